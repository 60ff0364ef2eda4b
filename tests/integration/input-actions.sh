#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk input, windows and cursor on a real X server, as the tests' own X
# client (input-recorder, the desktop's command) and xdotool see it: every
# input action moves, clicks, drags, scrolls, presses or types exactly what
# it says; type delivers mixed-script text (Latin, Cyrillic, Greek, CJK,
# emoji, more distinct characters than there are spare keycodes) exactly
# and leaves the keyboard map as it found it; windows reports the EWMH
# client list; bad input is exit 2 and sends nothing.
. "$(dirname "$0")/lib.sh"
bd_init inp 310
bd_need_xserver
bd_need xdotool xmodmap
bd_input_recorder
P=$(bd_profile a)

log_has() { grep -qxF -- "$1" "$LOG" 2>/dev/null; }
log_lines() { wc -l <"$LOG" | tr -d ' '; }
text_is() { [ "$(cat "$TEXT")" = "$1" ]; }
# The text file equals file $1 byte for byte.
text_equals_file() { cmp -s "$TEXT" "$1"; }
json_get() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }

t_ok "the desktop with the recorder starts" bd_start "$P"
bd_recorder_files "$P"
t_ok "the recorder has mapped and focused its window" wait_for 5 log_has ready
eval "$("$BOTDESK" env "$P")"

# ---- pointer ----------------------------------------------------------------------------------

out=$("$BOTDESK" input "$P" move 123 234 --json)
t_is "$?" 0 "input move exits 0"
t_is "$(echo "$out" | json_get '(d["action"], d["x"], d["y"])')" "('move', 123, 234)" "move --json says what it did"
t_match "$(xdotool getmouselocation)" '^x:123 y:234 ' "after move 123 234 the X server's pointer is at 123,234"
out=$("$BOTDESK" cursor "$P" --json)
t_is "$(echo "$out" | json_get '(d["x"], d["y"], d["screen_width"], d["screen_height"])')" "(123, 234, 1024, 768)" \
        "cursor --json reports the pointer and the screen"
t_is "$("$BOTDESK" cursor "$P")" "123 234" "cursor prints X Y"

"$BOTDESK" input "$P" click 300 400
t_ok "click 300 400 presses and releases button 1 there" \
        wait_for 5 eval 'log_has "button-press 1 300 400" && log_has "button-release 1 300 400"'

n0=$(log_lines)
"$BOTDESK" input "$P" click 50 60 --button 3 --double
wait_for 5 eval '[ "$(grep -c "^button-release 3 50 60$" "$LOG")" = 2 ]'
t_is "$(tail -n +$((n0 + 1)) "$LOG" | grep -c '^button-press 3 50 60$')" 2 "click --button 3 --double presses button 3 twice"

"$BOTDESK" input "$P" click
t_ok "click without a position clicks where the pointer is" wait_for 5 log_has "button-release 1 50 60"

"$BOTDESK" input "$P" drag 100 110 500 310
t_ok "drag presses at the start, moves with the button held and releases at the end" \
        wait_for 5 eval 'log_has "button-press 1 100 110" && log_has "drag-motion 500 310" && log_has "button-release 1 500 310"'
t_match "$(xdotool getmouselocation)" '^x:500 y:310 ' "after the drag the pointer is at its end"

n0=$(log_lines)
"$BOTDESK" input "$P" scroll 0 3
"$BOTDESK" input "$P" scroll -2 0
wait_for 5 eval '[ "$(grep -c "^button-release 6 " "$LOG")" = 2 ]'
t_is "$(tail -n +$((n0 + 1)) "$LOG" | grep -c '^button-press 5 ')" 3 "scroll 0 3 is three steps of the wheel down (button 5)"
t_is "$(tail -n +$((n0 + 1)) "$LOG" | grep -c '^button-press 6 ')" 2 "scroll -2 0 is two steps left (button 6)"

"$BOTDESK" input "$P" down button1 && "$BOTDESK" input "$P" up button1
t_ok "down button1 / up button1 press and release the button" \
        wait_for 5 eval '[ "$(tail -n 2 "$LOG")" = "$(printf "button-press 1 500 310\nbutton-release 1 500 310")" ]'

# ---- keys -------------------------------------------------------------------------------------

n0=$(log_lines)
"$BOTDESK" input "$P" key ctrl+l
t_ok "key ctrl+l presses Control_L, then l with Control held" \
        wait_for 5 eval 'tail -n +$((n0 + 1)) "$LOG" | tr "\n" " " | grep -q "key-press Control_L 0 key-press l 0x4 "'
n0=$(log_lines)
"$BOTDESK" input "$P" key super Return alt+F4
t_ok "key super Return alt+F4 presses each combo in order" \
        wait_for 5 eval 'tail -n +$((n0 + 1)) "$LOG" | tr "\n" " " | grep -q "key-press Super_L 0 key-press Return 0 key-press Alt_L 0 key-press F4 0x8 "'
n0=$(log_lines)
"$BOTDESK" input "$P" down shift && "$BOTDESK" input "$P" key a && "$BOTDESK" input "$P" up shift
t_ok "down shift holds Shift for the next key until up shift" \
        wait_for 5 eval 'tail -n +$((n0 + 1)) "$LOG" | tr "\n" " " | grep -q "key-press Shift_L 0 key-press A 0x1 "'

# ---- type -------------------------------------------------------------------------------------

xmodmap -pke >"$BD_T/map.before"
: >"$TEXT"
printf 'Hello, World! Grüße — мир, Ελληνικά, 日本語テキスト, 한국어, emoji 😀🎉\n\ttab; done.' >"$BD_T/mixed"
out=$("$BOTDESK" input "$P" type "$(cat "$BD_T/mixed")" --json)
t_is "$?" 0 "type of mixed-script text exits 0"
t_ok "the mixed-script text (Latin, Cyrillic, Greek, CJK, Hangul, emoji, newline, tab) arrives exactly" \
        wait_for 30 text_equals_file "$BD_T/mixed"
text_equals_file "$BD_T/mixed" || t_diag "got: $(od -c "$TEXT" | head -5)"
t_is "$(echo "$out" | json_get 'd["characters"]')" "$("$PY" -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' "$BD_T/mixed")" \
        "type --json counts the characters typed"

# 300 distinct CJK characters: many rounds through the pool of spare keycodes.
"$PY" -c 'import sys; sys.stdout.write("".join(chr(0x4e00 + i) for i in range(300)) + "ok")' >"$BD_T/cjk"
: >"$TEXT"
"$BOTDESK" input "$P" type --stdin <"$BD_T/cjk"
t_is "$?" 0 "type --stdin of 300 distinct CJK characters exits 0"
t_ok "all 300 arrive exactly, in order, though the map has far fewer spare keycodes (waited up to 30 s)" wait_for 30 text_equals_file "$BD_T/cjk"
xmodmap -pke >"$BD_T/map.after"
cmp -s "$BD_T/map.before" "$BD_T/map.after"; t_is "$?" 0 "after typing, the keyboard map is exactly as before"; diff "$BD_T/map.before" "$BD_T/map.after" | head -20 | while read -r l; do t_diag "$l"; done

# 1,000 mixed characters, exact (their rate is the bench's: tests/bench/bench.sh).
"$PY" -c 'import sys; s = "Hello, мир! Grüße 日本語 😀 Ελληνικά 한국어 "; sys.stdout.write((s * 40)[:1000])' >"$BD_T/k"
: >"$TEXT"
t0=$(date +%s%N)
"$BOTDESK" input "$P" type --stdin <"$BD_T/k"
t_is "$?" 0 "1,000 mixed-script characters are typed (exit 0)"
t_diag "typing them took $((($(date +%s%N) - t0) / 1000000)) ms"
t_ok "... and arrive exactly (waited up to 30 s)" wait_for 30 text_equals_file "$BD_T/k"

# ---- windows ----------------------------------------------------------------------------------

out=$("$BOTDESK" windows "$P" --json)
t_is "$?" 0 "windows --json exits 0"
t_is "$(echo "$out" | json_get '[(w["title"], w["class"], w["instance"], w["x"], w["y"], w["width"], w["height"], w["active"]) for w in d["windows"]]')" \
        "[('botdesk recorder — тест', 'BotdeskRecorder', 'recorder', 16, 24, 900, 700, True)]" \
        "windows lists the client list's window: UTF-8 title, class, root geometry, active"
t_match "$("$BOTDESK" windows "$P")" '^0x[0-9a-f]{8} \* 900x700\+16\+24 BotdeskRecorder ' "windows prints one line a window"

wid=$(echo "$out" | json_get 'd["windows"][0]["id"]')
"$BOTDESK" input "$P" click 10 20 --window "$wid"
t_ok "click --window ID X Y clicks at X Y inside that window (16+10, 24+20 on the root)" \
        wait_for 5 log_has "button-release 1 26 44"
out=$("$BOTDESK" input "$P" move 0 0 --window "$(printf '0x%x' "$wid")" --json)
t_is "$(echo "$out" | json_get '(d["window"], d["x"], d["y"])')" "($wid, 16, 24)" \
        "--window takes a hex id too, and --json gives the root position"

# ---- bad input: exit 2, nothing sent ----------------------------------------------------------

n0=$(log_lines)
: >"$TEXT"
xdotool mousemove 10 10
bad() {
        local desc=$1 rc
        shift
        "$BOTDESK" input "$P" "$@" >"$BD_T/bad.out" 2>"$BD_T/bad.err"
        rc=$?
        t_is "$rc" 2 "$desc: exit 2"
        grep -q 'Usage: botdesk input' "$BD_T/bad.err" || t_fail "$desc: the accepted forms are shown" "$(cat "$BD_T/bad.err")"
}
bad "a position outside the screen" move 1024 10
bad "a position outside the screen (click)" click 5 768
bad "a drag ending outside the screen" drag 10 10 2000 10
bad "a negative coordinate" move -5 10
bad "one coordinate" click 5
bad "an unknown key name" key ctrl+nosuchkey
bad "a second combo that does not parse, after a good one" key Return ctrl+
bad "empty text" type ""
bad "a control character in the text" type "$(printf 'a\001b')"
bad "invalid UTF-8" type "$(printf 'a\377b')"
bad "an unknown action" jump 1 2
bad "button 0" click --button 0
bad "scroll 0 0" scroll 0 0
bad "an unknown key to hold" down nosuchkey
bad "an unknown window id" click 1 1 --window 0x7fffff0
bad "a position outside the window" click 900 10 --window "$wid"
bad "a malformed window id" click 1 1 --window 0xzz
bad "--window for a key" key Return --window "$wid"
"$BOTDESK" input "$P" move 1 1
wait_for 5 eval '[ "$(xdotool getmouselocation | cut -d" " -f1)" = x:1 ]'
t_is "$(log_lines)" "$n0" "none of the bad commands reached the screen (no event recorded)"
t_is "$(cat "$TEXT")" "" "... and nothing was typed"
"$BOTDESK" windows "$P" extra >/dev/null 2>&1
t_is "$?" 2 "windows with an extra argument is exit 2"

t_ok "the desktop stops" bd_stop "$P"
"$BOTDESK" input "$P" move 1 1 2>/dev/null
t_is "$?" 4 "input on a stopped desktop is exit 4"
t_done
