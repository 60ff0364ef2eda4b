#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk mcp driven by a client nobody here wrote: the official MCP
# TypeScript SDK (pinned, installed by scripts/install-deps.sh --tests),
# against a desktop whose screenshots are scaled (screenshot_max_edge 800 of
# a 1024 px screen): initialize; tools/list with valid JSON Schemas; a
# screenshot whose JPEG decodes to the advertised size; every action of both
# schemas, clicks and drags landing within a pixel of the screen point aimed
# at through the scaled space; exact Unicode typing; zoom; batch; windows;
# bad actions refused with the valid form and nothing sent; a human's take
# making the next action a suppressed error with the epoch; the clipboard
# both ways (MCP and botdesk clipboard), refused while a human has control;
# ask_human returning once a human took control and handed it back, or at
# its timeout. On the raw stream: -32700, -32601, -32602, a message over
# 1 MiB, and the server still serving. botdesk act: the same actions as
# lines. Settle on DAMAGE: an idle screen is no_change after its quiet time;
# a real GTK entry's blinking caret does not keep it from passing
# (caret-entry.py; GTK repaints the whole window at each blink, so what
# changed is compared, not what was drawn), while two typed characters are
# a change; a clock redrawn every second never lets a 1.5 s quiet time pass
# (still_changing at the cap); a window that appears settles once drawn.
# Revisions: every screenshot's text says the screen's revision; a
# screenshot with since_revision of the same screen is "unchanged" with a
# text item alone (computer, the screenshot member, batch, act, and across
# processes: thumbnail's revision is MCP's), a repainted root is a change
# with a picture, a malformed one is refused naming RUN.HASH, and one from
# before a restart gets revision_reset with the full picture; an action's
# own screenshot takes it too. changed_region: a small window since the
# last picture is a crop of its box alone, a repainted root the whole.
# The same client on a real Xfce desktop, and the clipboard against xclip: mcp-xfce.sh.
# Band 720-724.
. "$(dirname "$0")/lib.sh"
bd_init mcp 720
bd_need_xserver
bd_need node xsetroot xmessage xwininfo
bd_input_recorder
SDK_DIR=${BOTDESK_MCP_SDK_DIR:-/usr/local/lib/botdesk-tests}
[ -d "$SDK_DIR/node_modules/@modelcontextprotocol/sdk" ] ||
        t_skip_all "the MCP SDK is not in $SDK_DIR (scripts/install-deps.sh --tests installs it)"
printf '[agent]\nscreenshot_max_edge = 800\n' >>"$BOTDESK_CONFIG"
P=$(bd_profile a)

t_ok "the desktop with the recorder starts" bd_start "$P"
bd_recorder_files "$P"
t_ok "the recorder is ready" wait_for 5 grep -qx ready "$LOG"

log_has() { grep -qxF -- "$1" "$LOG" 2>/dev/null; }
# near "EVENT" X Y: the recorder logged EVENT within one pixel of X,Y.
near() {
        awk -v ev="$1" -v x="$2" -v y="$3" '
                { n = split(ev, w, " "); ok = 1
                  for (i = 1; i <= n; i++) if ($i != w[i]) ok = 0
                  if (ok && NF == n + 2 && ($(n+1) - x) ^ 2 <= 1 && ($(n+2) - y) ^ 2 <= 1) found = 1 }
                END { exit !found }' "$LOG"
}
step() { grep "\"step\": *\"$1\"" "$BD_T/steps" | head -n1; }
get() { step "$1" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$2"; }

export MCP_TMP=$BD_T
export MCP_TEXT='Grüße, мир! 日本語 😀 ok'
: >"$TEXT"
t0=$(date +%s)
timeout 40 node "$(dirname "$0")/mcp-client.cjs" "$SDK_DIR" "$BOTDESK" "$P" >"$BD_T/steps" 2>"$BD_T/client.err"
rc=$?
t_is "$rc" 0 "the SDK's client ran every step (exit 0)"
[ "$rc" = 0 ] || { t_diag "$(tail -5 "$BD_T/client.err")"; t_diag "$(tail -3 "$BD_T/steps")"; }
t_ok "... within 40 s (took $(($(date +%s) - t0)) s)" [ "$rc" != 124 ]

t_is "$(get initialize 'd["server"]["name"], "tools" in d["capabilities"]')" "('botdesk', True)" \
        "initialize: the server is botdesk and offers tools"
t_is "$(get tools 'sorted(t["name"] for t in d["tools"])')" "['a11y_do', 'a11y_find', 'a11y_tree', 'ask_human', 'batch', 'clipboard_read', 'clipboard_write', 'computer', 'cursor_position', 'double_click', 'downloads', 'file_download', 'file_list', 'file_upload', 'hold_key', 'key', 'left_click', 'left_click_drag', 'left_mouse_down', 'left_mouse_up', 'middle_click', 'mouse_move', 'right_click', 'screenshot', 'scroll', 'status', 'triple_click', 'type', 'view', 'wait', 'wait_until', 'windows', 'zoom']" \
        "tools/list lists computer, batch, windows, status, ask_human, the clipboard, a11y and file tools, and the toolset's 17 members"
t_is "$(get tools 'all(t["schemaValid"] for t in d["tools"])')" True "every tool's inputSchema compiles as a JSON Schema (ajv)"
t_match "$(get tools '[t["description"] for t in d["tools"] if t["name"] == "computer"][0]')" '800x600 pixels \(the 1024x768 screen at scale 0\.78125\)' \
        "the computer tool's description gives the screenshot's size and scale"

t_is "$(get screenshot '(d["isError"], d["image"]["mimeType"], d["image"]["width"], d["image"]["height"])')" \
        "(False, 'image/jpeg', 800, 600)" "a screenshot is a JPEG that decodes to 800x600"
t_is "$(get screenshot '(d["text"]["screenshot"]["width"], d["text"]["screenshot"]["height"], d["text"]["screenshot"]["scale"])')" \
        "(800, 600, 0.78125)" "... and its result says that size and the scale"

t_is "$(get click '(d["isError"], d["text"]["settle"] in ("settled", "no_change", "still_changing"), d["image"]["width"])')" \
        "(False, True, 800)" "left_click succeeds, says how the screen settled and returns a screenshot"
t_ok "left_click at the screenshot's pixel of 300,400 presses button 1 within a pixel of 300,400" \
        wait_for 5 near "button-press 1" 300 400
t_ok "left_click_drag presses near 100,110 and releases near 500,310" \
        wait_for 5 eval 'near "button-press 1" 100 110 && near "button-release 1" 500 310'
t_ok "OpenAI's click with button right presses button 3 near 640,480" wait_for 5 near "button-press 3" 640 480
# What was typed, then the Return of the key action and OpenAI's type of é further down.
t_ok "the Unicode text typed over MCP arrives exactly (both schemas' type)" \
        wait_for 5 eval '[ "$(cat "$TEXT")" = "$MCP_TEXT"$'"'"'\n'"'"'é ]'
[ "$(cat "$TEXT")" = "$MCP_TEXT"$'\n'é ] || t_diag "got: $(cat "$TEXT")"
t_is "$(get type 'd["text"]["characters"]')" "$("$PY" -c 'import os; print(len(os.environ["MCP_TEXT"]))')" \
        "type says how many characters it typed"
t_is "$(get cursor 'd["text"]["coordinate"]')" "[500, 375]" "cursor_position is in the screenshot's space (640,480 at 0.78125)"
t_is "$(get zoom '(d["isError"], d["image"]["width"], d["image"]["height"], d["text"]["zoom"]["screen_region"])')" \
        "(False, 200, 100, [0, 0, 199, 99])" "zoom returns the region at native resolution, with its screen rectangle"

n0=$(wc -l <"$LOG")
for s in unknown outside extra; do
        t_is "$(get $s 'd["isError"]')" True "a bad action ($s) is an error result"
done
t_match "$(get unknown 'd["text"]')" 'Unknown action "fly"; the actions are: key, type, mouse_move' "... an unknown action lists the actions"
t_match "$(get outside 'd["text"]')" 'outside the screenshot \(800x600' "... a point outside the screenshot names its bounds"
t_match "$(get extra 'd["text"]')" 'left_click does not take "scroll_amount". Use:' "... an extra argument names the valid form"
t_ok "batch runs its actions in order: OpenAI's move, then Anthropic's left_click there" \
        eval 'near "button-press 1" 20 30 || near "button-press 1" 21 31'
t_is "$(get batch '(d["isError"], [r["action"] for r in d["text"]["results"]], d["image"] is not None)')" \
        "(False, ['move', 'left_click'], True)" "batch reports each action and ends with one screenshot"
t_match "$(get windows 'd["text"]["windows"][0]["title"]')" 'botdesk recorder' "windows lists the recorder's window"

t_is "$(get every '[r["name"] for r in d["results"] if r["isError"] or not r["image"]]')" "[]" \
        "every other action of both schemas succeeds and returns a screenshot"
t_ok "key ctrl+l Return presses Control_L, l with Control held, then Return" \
        eval 'tr "\n" " " <"$LOG" | grep -q "key-press Control_L 0 key-press l 0x4 .*key-press Return 0"'
t_ok "middle_click presses button 2 near 52,62" near "button-press 2" 52 62
t_is "$(grep -c '^button-press 1 5[34] 6[345]$' "$LOG")" 2 "double_click presses button 1 twice near 54,64"
t_is "$(grep -c '^button-press 1 5[567] 6[567]$' "$LOG")" 3 "triple_click presses button 1 three times near 56,66"
t_ok "left_mouse_down presses near 58,68, left_mouse_up releases near 60,70" \
        eval 'near "button-press 1" 58 68 && near "button-release 1" 60 70'
t_is "$(grep -c '^button-press 5 6[123] 7[123]$' "$LOG")" 2 "scroll down 2 is two steps of button 5 near 62,72"
t_ok "hold_key shift presses and releases Shift" eval 'grep -q "^key-press Shift_L" "$LOG"'
t_is "$(grep -c '^button-press 1 \(69\|70\|71\) \(79\|80\|81\)$' "$LOG")" 2 "OpenAI's double_click presses twice near 70,80"
t_ok "OpenAI's drag follows its path to its last point near 90,99" near "button-release 1" 90 99
t_ok "OpenAI's keypress CTRL A presses a with Control held" eval 'grep -q "^key-press a 0x4" "$LOG"'
t_is "$(grep -c '^button-press 4 7[567] 8[567]$' "$LOG")" 2 "OpenAI's scroll_y -200 is two steps up (button 4) near 76,86"
t_is "$(get taken '(d["isError"], d["text"]["suppressed"], d["text"]["epoch"] > 0)')" "(True, 'human_has_control', True)" \
        "after a human's take, the next action is an error result: suppressed, with the epoch"
t_is "$(get taken_screenshot '(d["isError"], d["image"])')" "(True, None)" "... and no screenshot is handed to the agent"
t_ok "... and the refused click never reached the screen" eval '! near "button-press 1" 700 700'
t_ok "once released, the next action runs again" wait_for 5 near "button-press 1" 710 710

t_is "$(get clip_write '(d["isError"], d["text"]["ok"])')" "(False, True)" "clipboard_write succeeds"
t_is "$(get clip_cli_get 'd["text"]')" "Grüße 📋 from MCP" "... and botdesk clipboard get reads exactly that text from the desktop's CLIPBOARD"
t_is "$(get clip_read '(d["isError"], d["text"])')" "(False, 'мир from the CLI')" \
        "clipboard_read gives exactly what botdesk clipboard set put there"
t_is "$(get clip_taken '(d["isError"], d["text"]["suppressed"])')" "(True, 'human_has_control')" \
        "clipboard_read is refused while a human holds control"
printf 'x' | "$BOTDESK" lease "$P" take --viewer human-3 >/dev/null
printf 'secret' | "$BOTDESK" clipboard "$P" set 2>/dev/null
t_is "$?" 3 "botdesk clipboard set is refused (exit 3) while a human holds control"
"$BOTDESK" lease "$P" release --viewer human-3 >/dev/null
t_is "$("$BOTDESK" clipboard "$P" get)" "мир from the CLI" "... and the refused set changed nothing"
t_ok "the clipboard's content is in no log" eval '! grep -rqs "from the CLI\|from MCP" "$BD_T" --include="*.log" --include="log*"'
t_match "$(cat "$BD_T/pending" 2>/dev/null)" '"pending": \{"viewer_hash": "[0-9a-f]+", "reason": "log in to the bank, please"\}' \
        "ask_human shows the agent's request, with its reason, to the people watching the lease"
t_is "$(get ask '(d["isError"], d["text"]["outcome"], d["text"]["control"])')" "(False, 'returned', 'agent')" \
        "ask_human returns once the human took control and handed it back"
t_is "$(get ask_timeout '(d["isError"], d["text"]["outcome"], d["text"]["waited_ms"] >= 1000)')" "(False, 'timeout', True)" \
        "ask_human with nobody coming returns timeout after its timeout"


# ---- revisions --------------------------------------------------------------------------------------
REV='^[0-9a-f]{12}\.[0-9a-f]{16}$'
r1=$(get rev_first 'd["text"]["revision"]')
t_match "$r1" "$REV" "a screenshot's text says the screen's revision, RUN.HASH"
t_is "$(get rev_first 'd["kinds"]')" "['text', 'image']" "... in the text item before the image"
t_is "$(get every '[r["name"] for r in d["results"] if not r["text"].get("revision")]')" "[]" \
        "every action's automatic screenshot carries a revision"
t_match "$(get batch 'd["text"]["results"][-1]["revision"]')" "$REV" "batch's final screenshot carries one"
t_is "$(get rev_same '(d["isError"], d["text"]["unchanged"], d["text"]["revision"], d["kinds"])')" \
        "(False, True, '$r1', ['text'])" "a screenshot since that revision of the same screen: unchanged, a text item alone"
t_is "$(get rev_member '(d["isError"], d["text"]["unchanged"], d["kinds"])')" "(False, True, ['text'])" \
        "... and so through the toolset's screenshot member"
t_is "$(get rev_openai '(d["isError"], d["text"]["unchanged"], d["kinds"])')" "(False, True, ['text'])" \
        "... and through OpenAI's screenshot"
r2=$(get rev_changed 'd["text"]["revision"]')
t_is "$(get rev_changed '(d["isError"], d["text"]["unchanged"], d["image"]["width"])')" "(False, False, 800)" \
        "after the root was repainted: not unchanged, and the picture"
t_ok "... under a new revision of the same run" eval '[ "$r2" != "$r1" ] && [ "${r2%.*}" = "${r1%.*}" ]'
t_is "$(get rev_batch '(d["isError"], d["text"]["results"][-1]["unchanged"], d["image"] is not None)')" "(False, False, True)" \
        "batch's last screenshot since the old revision: changed, with its picture"
t_is "$(get rev_bad 'd["isError"]')" True "a malformed since_revision is an error result"
t_match "$(get rev_bad 'd["text"]')" 'since_revision must be RUN\.HASH, 12 and 16 lowercase hex digits' "... naming the valid form"
t_is "$(get rev_click '(d["isError"], d["text"]["unchanged"], d["kinds"])')" "(False, True, ['text'])" \
        "an action's own screenshot takes since_revision: a click that changed nothing is unchanged, a text item alone"

# ---- changed_region --------------------------------------------------------------------------------
t_is "$(get region_alone 'd["isError"]')" True "changed_region without since_revision is an error result"
t_match "$(get region_alone 'd["text"]')" 'changed_region needs since_revision' "... saying what it needs"
t_is "$(get region_base '(d["isError"], "changed_region" in d["text"], d["image"]["width"], d["image"]["height"])')" \
        "(False, False, 800, 600)" "the first with changed_region, since a picture botdesk did not keep: the whole picture"
t_diag "the small change: $(get region_small '(d["window"], d["text"].get("changed_region"), d["image"])')"
t_is "$(get region_small '(d["isError"], d["text"]["unchanged"], d["text"]["screenshot"]["width"])')" "(False, False, 800)" \
        "a small window since the picture kept: changed, in the same 800 px space"
t_is "$(get region_small '(lambda b, w, s: b is not None and b[0] <= int(w[0] * s) + 1 and b[1] <= int(w[1] * s) + 1 and
        b[2] >= int((w[0] + w[2] - 1) * s) - 1 and b[3] >= int((w[1] + w[3] - 1) * s) - 1)(d["text"].get("changed_region"),
        d["window"], d["text"]["screenshot"]["scale"])')" True \
        "... its changed_region holds the window (xwininfo's geometry, scaled)"
t_is "$(get region_small '(lambda b: (b[2] - b[0] + 1) * (b[3] - b[1] + 1) * 2 <= 800 * 600)(d["text"]["changed_region"])')" True \
        "... and is at most half the picture"
t_is "$(get region_small '(lambda b, i: (i["width"], i["height"]) == (b[2] - b[0] + 1, b[3] - b[1] + 1))(d["text"]["changed_region"], d["image"])')" True \
        "... and the image is that box alone (its JPEG decodes to the box's size)"
t_is "$(get region_big '(d["isError"], d["text"]["unchanged"], "changed_region" in d["text"], d["image"]["width"])')" \
        "(False, False, False, 800)" "the whole root repainted since: the whole picture, no changed_region"
t_is "$(get batch_noshot '(d["isError"], d["kinds"], [r["ok"] for r in d["text"]["results"]], d["text"]["results"][-1]["settle"] in ("settled", "no_change"))')" \
        "(False, ['text'], [True, True], True)" "batch with \"screenshot\": false: both actions run and settle, a text item alone"
t_is "$(get batch_badshot 'd["isError"]')" True "... and \"screenshot\" that is not a boolean is an error result"

# ---- the raw stream: errors that the SDK never sends ----------------------------------------------
{
        echo '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}'
        echo 'this is not json'
        echo '{"jsonrpc": "2.0", "id": 2, "method": "no/such"}'
        echo '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "nosuch"}}'
        "$PY" -c 'print("{\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"ping\", \"params\": {\"pad\": \"" + "x" * (1 << 20) + "\"}}")'
        echo '{"jsonrpc": "2.0", "method": "notifications/initialized"}'
        echo '{"jsonrpc": "2.0", "id": 5, "method": "ping"}'
} | timeout 20 "$BOTDESK" mcp "$P" >"$BD_T/raw" 2>"$BD_T/raw.err"
t_is "$?" 0 "botdesk mcp ends with 0 when its input ends"
raw() { "$PY" -c 'import json,sys; d=[json.loads(l) for l in open(sys.argv[1])]; print(eval(sys.argv[2], {}, {"d": d}))' "$BD_T/raw" "$1"; }
t_is "$(raw 'd[0]["result"]["protocolVersion"]')" 2024-11-05 "initialize negotiates the version the client asks for"
t_is "$(raw '[x.get("error", {}).get("code") for x in d[1:]]')" "[-32700, -32601, -32602, -32600, None]" \
        "malformed JSON -32700, unknown method -32601, unknown tool -32602, over 1 MiB an error, notification unanswered"
t_is "$(raw '(d[-1]["id"], d[-1]["result"])')" "(5, {})" "... and the server still answers ping after them"
# ---- botdesk act: the same actions as a stream of lines ---------------------------------------------
mkdir "$BD_T/shots"
printf '%s\n' '{"type": "click", "x": 100, "y": 100}' 'not json' '{"action": "nosuch"}' '{"action": "screenshot"}' |
        timeout 20 "$BOTDESK" act "$P" --screenshots "$BD_T/shots" >"$BD_T/act" 2>"$BD_T/act.err"
t_is "$?" 0 "botdesk act ends with 0 when its input ends"
act() { "$PY" -c 'import json,sys; d=[json.loads(l) for l in open(sys.argv[1])]; print(eval(sys.argv[2], {}, {"d": d}))' "$BD_T/act" "$1"; }
t_is "$(act '[x["ok"] for x in d]')" "[True, False, False, True]" "act answers each line in order: done, not JSON, unknown action, done"
t_ok "act's click at the screenshot's 100,100 lands near 128,128" wait_for 5 near "button-press 1" 128 128
t_is "$(act 'd[3]["image_file"].endswith("000002.jpg"), d[3]["screenshot"]["width"]')" "(True, 800)" \
        "act --screenshots DIR writes each action's screenshot there and names it"
t_is "$(stat -c %a "$BD_T/shots/000002.jpg")" 600 "... readable by its owner alone"
t_match "$(act 'd[3]["revision"]')" "$REV" "act's answer of a bare action carries the revision"
# Content-addressed: another process, botdesk thumbnail, names the same screen with the same revision.
r3=$("$BOTDESK" thumbnail "$P" --json --size 64x64 | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["revision"])')
t_match "$r3" "$REV" "thumbnail --json says the revision"
printf '%s\n' "{\"action\": \"screenshot\", \"since_revision\": \"$r3\"}" '{"type": "screenshot", "since_revision": "0.1"}' |
        timeout 20 "$BOTDESK" act "$P" --screenshots base64 >"$BD_T/act" 2>"$BD_T/act.err"
t_is "$(act '(d[0]["ok"], d[0]["unchanged"], d[0]["revision"], "image" in d[0])')" "(True, True, '$r3', False)" \
        "act's screenshot since thumbnail's revision of the same screen: unchanged, no image"
t_match "$(act '(d[1]["ok"], d[1]["error"])')" "False, .*since_revision must be RUN\.HASH" \
        "act refuses a malformed since_revision, naming the valid form"
# What "unchanged" saves, as a diagnostic (a benchmark's business, not a test's): the median over
# 20 runs of thumbnail's own phases, the read + scale + encode of an 800x600 JPEG against the read + hash.
phases() {
        for _ in $(seq 20); do
                "$BOTDESK" thumbnail "$P" --json --format jpeg --size 800x600 --timings "$@" 2>&1 >/dev/null
        done | awk '{ print ($7 + $9 + $11) / 1000 }' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
t_diag "1024x768 screen: read+scale+encode $(phases) ms, read+hash (unchanged) $(phases --since-revision "$r3") ms (medians of 20)"

# ---- settle ----------------------------------------------------------------------------------------
bd_need xclock xmessage
out=$("$BOTDESK" settle "$P" --quiet 300 --timeout 2000 --json)
t_is "$(echo "$out" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["settle"], 300 <= d["ms"] < 1000)')" "no_change True" \
        "settle on an idle screen: no_change once 300 ms passed without a change"
out=$("$BOTDESK" input "$P" click 900 700 --settle=200 --json)
t_match "$(echo "$out" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["settle"], d["settle_ms"])')" \
        '^(no_change|settled) [0-9]+$' "input --settle says how the screen settled after the click"
# A real GTK entry: GTK repaints its whole 400x60 window at each blink.
"$PY" -c 'import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk' 2>/dev/null ||
        t_fail "python3-gi and gir1.2-gtk-3.0 are installed (scripts/install-deps.sh --tests)"
: >"$BD_T/caret.out"
"$BOTDESK" exec "$P" -- "$PY" "$(dirname "$0")/caret-entry.py" >"$BD_T/caret.out" 2>"$BD_T/caret.err" &
caret=$!
t_ok "the GTK entry is shown (waited up to 15 s)" wait_for 15 grep -qx ready "$BD_T/caret.out"
for i in 1 2 3 4 5 6; do
        "$BOTDESK" thumbnail "$P" --size 1024x768 2>/dev/null | md5sum
        sleep 0.4
done >"$BD_T/caret.sums"
t_isnt "$(sort -u "$BD_T/caret.sums" | wc -l)" 1 "the entry's caret blinks: six screenshots 0.4 s apart are not all the same"
out=$("$BOTDESK" settle "$P" --quiet 1200 --timeout 3000 --json)
t_match "$(echo "$out" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["settle"], d["ms"] < 3000)')" \
        "^(no_change|settled) True$" "a GTK entry's blinking caret does not keep a 1.2 s quiet time from passing (before the 3 s cap)"
out=$("$BOTDESK" input "$P" type "xy" --settle=300 --json)
t_is "$(echo "$out" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["settle"])')" settled \
        "two characters typed into the entry are a change: settled, though small"
kill "$caret" 2>/dev/null; wait "$caret" 2>/dev/null
"$BOTDESK" exec "$P" -- xclock -update 1 -geometry 300x300+600+100 >/dev/null 2>&1 &
clock=$!
sleep 1
out=$("$BOTDESK" settle "$P" --quiet 1500 --timeout 3000 --json)
t_is "$(echo "$out" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["settle"], d["ms"] >= 3000)')" "still_changing True" \
        "a clock redrawn every second keeps a 1.5 s quiet time from passing: still_changing at the 3 s cap"
kill "$clock" 2>/dev/null; wait "$clock" 2>/dev/null
# The wait begins first (0.3 s to connect and drain what came before), then the window, well within the
# wait's 1.5 s of quiet: what it draws is a change, and the quiet after it ends the wait.
"$BOTDESK" settle "$P" --quiet 1500 --timeout 8000 --json >"$BD_T/settle.out" &
waiter=$!
sleep 0.3
"$BOTDESK" exec "$P" -- xmessage -geometry 400x200+100+100 "a new window" >/dev/null 2>&1 &
msg=$!
wait "$waiter"
t_is "$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["settle"])' "$BD_T/settle.out")" "settled" \
        "a window that appears is drawn, then quiet: settled"
kill "$msg" 2>/dev/null; wait "$msg" 2>/dev/null

# ---- a revision from before a restart ---------------------------------------------------------------
bd_stop "$P"
t_ok "the desktop starts again" bd_start "$P"
{
        echo '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}'
        echo '{"jsonrpc": "2.0", "method": "notifications/initialized"}'
        echo '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "computer", "arguments": {"action": "screenshot", "since_revision": "'"$r3"'"}}}'
} | timeout 20 "$BOTDESK" mcp "$P" >"$BD_T/raw" 2>"$BD_T/raw.err"
t_is "$(raw '(lambda c, t: (t.get("revision_reset"), t.get("unchanged"), t.get("revision") != "'"$r3"'", [x["type"] for x in c]))(d[1]["result"]["content"], __import__("json").loads(d[1]["result"]["content"][0]["text"]))')" \
        "(True, False, True, ['text', 'image'])" "a revision from before a restart: revision_reset, never unchanged, with the picture"
t_done
