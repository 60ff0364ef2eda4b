#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk wait on a real Xfce desktop: --for window=TITLE returns once a
# window with that title is mapped (the wait already blocked before it
# existed), with its title and id in the JSON, and once a window's title
# changes to match; --for gone=TITLE once that
# window's process is killed; a wait that nothing satisfies exits 1 at its
# timeout saying what it waited for; bad usage exits 2 naming the valid
# form; a human's lease refuses it (3), and a take while it waits ends it
# as suppressed (3). --for quiet returns once the screen is still, --for
# changed blocks until a window is drawn; --for a11y=ROLE:NAME and
# text=STRING block until a real GTK application's element is on the
# accessibility tree, with its id, role, name and bounds; the MCP tool
# wait_until answers the same with a settled screenshot. Band 470-474.
. "$(dirname "$0")/lib.sh"
bd_init wait 470
bd_need_xserver
bd_need xfwm4 xmessage xprop
[ -n "$PY" ] || t_skip_all "python3 not installed"
[ -x /usr/libexec/at-spi-bus-launcher ] || t_skip_all "at-spi2-core not installed"
"$PY" -c 'import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk' 2>/dev/null ||
        t_skip_all "python3-gi and gir1.2-gtk-3.0 not installed"
bd_config desktop=xfce timeout=60
P=$(bd_profile a)
NAME=botdesk-wait-$$
# What the waits look for: a part of the title, so that what they print is the window's whole title.
PART=wait-$$
json_get() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {"json": json}, {"d": d}))' "$1"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# ---- usage errors: nothing waited -------------------------------------------------------------

# usage_case DESC WANT ARGS...: exit 2, nothing waited, and stderr says WANT.
usage_case() {
        local desc=$1 want=$2 rc
        shift 2
        timeout 10 "$BOTDESK" wait "$P" "$@" >"$BD_T/u.out" 2>"$BD_T/u.err" </dev/null
        rc=$?
        t_is "$rc" 2 "$desc: exit 2"
        grep -qF -- "$want" "$BD_T/u.err" || t_fail "$desc: the message says $want" "$(cat "$BD_T/u.err")"
}
# What wait judges itself names the valid form; a word the parser refuses says what is wrong with it.
FORM="window=TITLE|gone=TITLE|a11y=ROLE:NAME|text=STRING|quiet[=MS]|changed"
usage_case "no --for" "$FORM"
usage_case "--for without a condition" "$FORM" --for
usage_case "an unknown condition" "$FORM" --for title=x
usage_case "an empty TITLE" "$FORM" --for window=
usage_case "a timeout over 600 s" "$FORM" --for window=x --timeout 601
usage_case "a malformed timeout" 'Invalid --timeout "5s": give whole seconds' --for window=x --timeout 5s
usage_case "two conditions" "Give one --for: a wait has one condition." --for window=x --for gone=y
usage_case "a11y= without a colon" "a11y=Save has no colon: give a11y=ROLE:NAME" --for a11y=Save
usage_case "a11y= that names nothing" "names nothing" --for a11y=:
usage_case "an empty text=" "Empty STRING in text=" --for text=
usage_case "a quiet time of 0" "give quiet or quiet=MS, MS 1-60000" --for quiet=0
usage_case "a quiet time that is not a number" "give quiet or quiet=MS, MS 1-60000" --for quiet=soon

if ! bd_start "$P"; then
        t_fail "the Xfce desktop starts" "$(bd_err "$P")"
        t_done
fi
t_pass "the Xfce desktop starts"

# ---- timeout ----------------------------------------------------------------------------------

timeout 30 "$BOTDESK" wait "$P" --for window=no-such-window-$$ --timeout 1 >"$BD_T/t.out" 2>"$BD_T/t.err"
t_is "$?" 1 "a wait nothing satisfies exits 1 at its timeout"
t_match "$(cat "$BD_T/t.err")" "Timed out after 1 s .*waiting for a window whose title contains \"no-such-window-$$\"" \
        "... saying what it waited for"

# ---- window= ----------------------------------------------------------------------------------

"$BOTDESK" wait "$P" --for "window=$PART" --timeout 30 --json >"$BD_T/w.out" 2>"$BD_T/w.err" &
WPID=$!
bd_own_pid "$WPID"
# Long enough for the wait to have read the list and blocked: it must not return before the window exists.
sleep 1
t_ok "the wait for a window not yet there is still waiting" kill -0 "$WPID"
t0=$(now_ms)
"$BOTDESK" exec "$P" -- xmessage -title "$NAME" "wait test" >"$BD_T/out/xmessage.out" 2>&1 &
XM=$!
bd_own_pid "$XM"
wait "$WPID"
rc=$?
t1=$(now_ms)
t_is "$rc" 0 "wait --for window= returns 0 once the window exists"
t_diag "returned $((t1 - t0)) ms after the window's program was started"
t_is "$(json_get 'd["matched"]' <"$BD_T/w.out")" window "... with \"matched\": \"window\""
t_is "$(json_get 'd["title"]' <"$BD_T/w.out")" "$NAME" "... and the window's whole title"
WID=$(json_get 'd["id"]' <"$BD_T/w.out")
LISTED=$("$BOTDESK" windows "$P" --json | json_get '[w["id"] for w in d["windows"] if w["title"] == "'"$NAME"'"]')
t_is "$LISTED" "[$WID]" "... and the id botdesk windows lists for it"
t_ok "an already open window is matched at once" timeout 10 "$BOTDESK" wait "$P" --for "window=$PART" --timeout 5

# A title that changes: the client's own _NET_WM_NAME/WM_NAME, not the list.
RENAMED=botdesk-renamed-$$
"$BOTDESK" wait "$P" --for "window=$RENAMED" --timeout 30 --json >"$BD_T/n.out" 2>"$BD_T/n.err" &
NPID=$!
bd_own_pid "$NPID"
sleep 1
t_ok "the wait for a title no window has yet is still waiting" kill -0 "$NPID"
timeout 10 "$BOTDESK" exec "$P" -- xprop -id "$WID" -f _NET_WM_NAME 8u -set _NET_WM_NAME "$RENAMED" \
        >"$BD_T/out/xprop.out" 2>&1 || t_diag "xprop: $(cat "$BD_T/out/xprop.out")"
wait "$NPID"
t_is "$?" 0 "wait --for window= returns 0 once a window's title changes to match"
t_is "$(json_get '(d["title"], d["id"])' <"$BD_T/n.out")" "('$RENAMED', $WID)" "... with the renamed window's title and id"
NAME=$RENAMED

# ---- gone= ------------------------------------------------------------------------------------

"$BOTDESK" wait "$P" --for "gone=$NAME" --timeout 30 --json >"$BD_T/g.out" 2>"$BD_T/g.err" &
GPID=$!
bd_own_pid "$GPID"
sleep 1
t_ok "the wait for the window to go is still waiting while it is open" kill -0 "$GPID"
kill -TERM "$XM"
wait "$XM" 2>/dev/null
wait "$GPID"
t_is "$?" 0 "wait --for gone= returns 0 once the window's process is killed"
t_is "$(json_get '(d["matched"], d["title"], d["id"])' <"$BD_T/g.out")" "('gone', '$NAME', None)" \
        "... with \"matched\": \"gone\""

# ---- quiet and changed ------------------------------------------------------------------------

timeout 30 "$BOTDESK" wait "$P" --for quiet=300 --timeout 20 --json >"$BD_T/q.out" 2>"$BD_T/q.err"
t_is "$?" 0 "wait --for quiet=300 returns 0 on a still screen" || t_diag "$(cat "$BD_T/q.err")"
t_is "$(json_get '(d["matched"], d["quiet_ms"], d["ms"] >= 300)' <"$BD_T/q.out")" "('quiet', 300, True)" \
        "... with \"matched\": \"quiet\" after at least the quiet time"

"$BOTDESK" wait "$P" --for changed --timeout 30 --json >"$BD_T/c.out" 2>"$BD_T/c.err" &
CPID=$!
bd_own_pid "$CPID"
sleep 1
t_ok "the wait for a change is still waiting while nothing is drawn" kill -0 "$CPID"
"$BOTDESK" exec "$P" -- xmessage -title "botdesk-changed-$$" "a change" >"$BD_T/out/xmessage2.out" 2>&1 &
XM2=$!
bd_own_pid "$XM2"
wait "$CPID"
t_is "$?" 0 "wait --for changed returns 0 once a window is drawn" || t_diag "$(cat "$BD_T/c.err")"
t_is "$(json_get 'd["matched"]' <"$BD_T/c.out")" changed "... with \"matched\": \"changed\""
kill -TERM "$XM2"
wait "$XM2" 2>/dev/null

# ---- a11y= and text= --------------------------------------------------------------------------

APP_TITLE="botdesk wait app $$"
"$BOTDESK" wait "$P" --for "a11y=push button:Save" --timeout 40 --json >"$BD_T/a.out" 2>"$BD_T/a.err" &
APID=$!
bd_own_pid "$APID"
"$BOTDESK" wait "$P" --for "text=Remember" --timeout 40 --json >"$BD_T/x.out" 2>"$BD_T/x.err" &
TPID=$!
bd_own_pid "$TPID"
sleep 1
t_ok "the wait for an element not yet there is still waiting" kill -0 "$APID"
: >"$BD_T/saved"
"$BOTDESK" exec "$P" -- "$PY" "$BD_SOURCE_DIR/tests/integration/a11y-app.py" "$APP_TITLE" "$BD_T/saved" \
        >"$BD_T/out/app.out" 2>&1 &
APP=$!
bd_own_pid "$APP"
wait "$APID"
t_is "$?" 0 "wait --for a11y=push button:Save returns 0 once the application shows its button" ||
        t_diag "$(cat "$BD_T/a.err" "$BD_T/out/app.out")"
t_is "$(json_get '(d["matched"], d["element"]["role"], d["element"]["name"])' <"$BD_T/a.out")" \
        "('a11y', 'push button', 'Save')" "... with the element's role and name"
t_match "$(json_get 'd["element"]["id"], len(d["element"]["bounds"])' <"$BD_T/a.out")" "^\('.+', 4\)$" \
        "... and its id and bounds"
wait "$TPID"
t_is "$?" 0 "wait --for text=Remember returns 0 once an element shows that text" || t_diag "$(cat "$BD_T/x.err")"
t_is "$(json_get '(d["matched"], d["element"]["name"])' <"$BD_T/x.out")" "('text', 'Remember me')" \
        "... with the element that shows it"
timeout 30 "$BOTDESK" wait "$P" --for "a11y=push button:No such button $$" --timeout 2 >"$BD_T/an.out" 2>"$BD_T/an.err"
t_is "$?" 1 "a wait for an element that never shows exits 1 at its timeout"
t_match "$(cat "$BD_T/an.err")" "Timed out after 2 s .*waiting for an element a11y=push button:No such button" \
        "... saying what it waited for"

# ---- the MCP tool wait_until ------------------------------------------------------------------

mcp_call() { bd_mcp_call "$P" "$@"; }
mcp_call wait_until "{\"for\": \"a11y=push button:Save\", \"timeout\": 20}" >"$BD_T/m.out"
t_is "$(json_get '(d.get("isError", False), [c["type"] for c in d["content"]])' <"$BD_T/m.out")" \
        "(False, ['text', 'image'])" "wait_until answers what matched and a screenshot" ||
        t_diag "$(head -c 600 "$BD_T/m.out"; cat "$BD_T/out/mcp.err")"
t_is "$(json_get 'json.loads(d["content"][0]["text"])["element"]["name"] + " " + d["content"][1]["mimeType"]' \
        <"$BD_T/m.out" 2>&1)" "Save image/jpeg" "... the element in the text, the picture as a JPEG"
t_match "$(json_get 'json.loads(d["content"][0]["text"]).get("revision")' <"$BD_T/m.out" 2>&1)" '^[0-9a-f]+\.[0-9a-f]+$' \
        "... with the screen's revision"
mcp_call wait_until '{"for": "quiet=200", "screenshot": false}' >"$BD_T/mq.out"
t_is "$(json_get '(d.get("isError", False), len(d["content"]), json.loads(d["content"][0]["text"])["matched"])' \
        <"$BD_T/mq.out" 2>&1)" "(False, 1, 'quiet')" "wait_until with screenshot false answers the match alone"
mcp_call wait_until "{\"for\": \"a11y=push button:Save\", \"screenshot\": false}" >"$BD_T/mn.out"
t_is "$(json_get '(len(d["content"]), (r := json.loads(d["content"][0]["text"]))["element"]["name"], r.get("settle") in ("settled", "still_changing", "no_change"), "settle_ms" in r)' \
        <"$BD_T/mn.out" 2>&1)" "(1, 'Save', True, True)" \
        "wait_until with screenshot false still settles after the match (settle and settle_ms), so input that follows is taken"
mcp_call wait_until '{"for": "title=x"}' >"$BD_T/mb.out"
t_is "$(json_get '(d.get("isError"), "Unknown condition" in d["content"][0]["text"])' <"$BD_T/mb.out" 2>&1)" \
        "(True, True)" "wait_until with an unknown condition is an error naming it"
mcp_call wait_until '{"for": "window=no-such-window-'$$'", "timeout": 1}' >"$BD_T/mt.out"
t_is "$(json_get '(d.get("isError"), json.loads(d["content"][0]["text"])["timed_out"])' <"$BD_T/mt.out" 2>&1)" \
        "(True, True)" "wait_until that nothing satisfies answers timed_out at its timeout"
kill -TERM "$APP"
wait "$APP" 2>/dev/null

# ---- the lease --------------------------------------------------------------------------------

"$BOTDESK" lease "$P" take --viewer v >/dev/null
timeout 10 "$BOTDESK" wait "$P" --for window=x --timeout 5 >"$BD_T/l.out" 2>"$BD_T/l.err"
t_is "$?" 3 "wait is refused (exit 3) while a human holds the lease"
t_match "$(cat "$BD_T/l.err")" "A human has control of this screen" "... saying a human has control"
"$BOTDESK" lease "$P" release --viewer v >/dev/null

"$BOTDESK" wait "$P" --for window=no-such-window-$$ --timeout 30 --json >"$BD_T/s.out" 2>"$BD_T/s.err" &
SPID=$!
bd_own_pid "$SPID"
sleep 1
t_ok "a wait runs while the agent holds control" kill -0 "$SPID"
"$BOTDESK" lease "$P" take --viewer v >/dev/null
wait "$SPID"
t_is "$?" 3 "a takeover during the wait ends it with exit 3"
t_is "$(json_get 'd.get("suppressed")' <"$BD_T/s.out")" human_has_control \
        "... as {\"suppressed\": \"human_has_control\"}"
"$BOTDESK" lease "$P" release --viewer v >/dev/null

t_ok "the desktop stops" bd_stop "$P"
t_done
