#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk wait on a real Xfce desktop: --for window=TITLE returns once a
# window with that title is mapped (the wait already blocked before it
# existed), with its title and id in the JSON, and once a window's title
# changes to match; --for gone=TITLE once that
# window's process is killed; a wait that nothing satisfies exits 1 at its
# timeout saying what it waited for; bad usage exits 2 naming the valid
# form; a human's lease refuses it (3), and a take while it waits ends it
# as suppressed (3). Band 470-474.
. "$(dirname "$0")/lib.sh"
bd_init wait 470
bd_need_xserver
bd_need xfwm4 xmessage xprop
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config desktop=xfce timeout=60
P=$(bd_profile a)
NAME=botdesk-wait-$$
# What the waits look for: a part of the title, so that what they print is the window's whole title.
PART=wait-$$
json_get() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
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
FORM="--for window=TITLE|gone=TITLE"
usage_case "no --for" "$FORM"
usage_case "--for without a condition" "$FORM" --for
usage_case "an unknown condition" "$FORM" --for title=x
usage_case "an empty TITLE" "$FORM" --for window=
usage_case "a timeout over 600 s" "$FORM" --for window=x --timeout 601
usage_case "a malformed timeout" 'Invalid --timeout "5s": give whole seconds' --for window=x --timeout 5s
usage_case "two conditions" "Give one --for: a wait has one condition." --for window=x --for gone=y

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
