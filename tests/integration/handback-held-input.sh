#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Held input does not survive a takeover, on a real desktop whose window is
# the input recorder. The agent presses and never lets go (act's
# left_mouse_down, `input down button8`, `input down Control_L`) or holds a
# key (act's hold_key for 30 s, in the background); a human takes control
# through `botdesk rfb` (the take run by the RFB client itself, then its
# first pointer event and key at once): the application sees the button go
# up before the human's first event, the human's first key arrives with no
# button and no modifier in its state (not a drag, not ctrl+a), and the
# server holds nothing down (QueryPointer's mask and QueryKeymap, by
# held-input-state) while the human has control. hold_key (and wait) end
# within 5 s of the take, void and suppressed, instead of passing their
# 30 s. A key action takes at most 64 combos (INPUT_COMBOS_MAX): one more
# is refused before anything is sent, by act and by `botdesk input key`
# alike. Band 385.
. "$(dirname "$0")/lib.sh"
bd_init hbi 385
bd_need_xserver
bd_input_recorder
STATE=${BOTDESK_HELD_INPUT_STATE:-$BD_BUILD_DIR/tests/integration/held-input-state}
[ -x "$STATE" ] || t_skip_all "held-input-state not built (botdesk built without input support)"
P=$(bd_profile a)

json_get() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
bd() { timeout 30 "$BOTDESK" "$@"; }
lease() { timeout 20 "$BOTDESK" lease "$P" "$@"; }
act() { timeout 30 "$BOTDESK" act "$P" 2>>"$BD_T/out/act.err"; }
lines() { wc -l <"$LOG" | tr -d ' '; }
since() { tail -n +"$(($1 + 1))" "$LOG"; }
# human VIEWER ACTIONS...: an RFB client that takes control itself, then acts at once.
human() {
        local v=$1
        shift
        timeout 60 "$PY" "$BD_LIB_DIR/rfbclient.py" "$BOTDESK" "$P" "$v" "run:$BOTDESK lease $P take --viewer $v" "$@" \
                2>>"$BD_T/out/client.err"
}

t_ok "the desktop with the recorder starts" bd_start "$P" || t_diag "$(bd_err "$P")"
bd_recorder_files "$P"
t_ok "the recorder is ready" wait_for 5 grep -qx ready "$LOG"
eval "$("$BOTDESK" env "$P" | grep -E '^export (DISPLAY|XAUTHORITY)=')"
down() { timeout 10 "$STATE"; }
t_is "$(down)" "down:" "at first nothing is held down"

# ---- a button pressed and never released ----------------------------------------------------
bd input "$P" move 200 210
out=$(echo '{"action": "left_mouse_down"}' | act)
t_is "$(json_get 'd["ok"]' <<<"$out")" True "act left_mouse_down presses button 1 (and leaves it down)"
t_is "$(down)" "down: button1" "... the server holds button 1 down"
n=$(lines)
out=$(human v1 move:300,310 key:0x61)
t_match "$out" "exit 0\$" "a human takes control on their RFB stream and moves and types at once"
t_ok "... the key reached the application (waited up to 5 s)" wait_for 5 eval 'since $n | grep -q "^key-press a "'
t_diag "the application saw: $(since "$n" | tr '\n' ';')"
t_match "$(since "$n" | head -n1)" "^button-release 1 " "button 1 went up before anything of the human's arrived"
t_ok "... the human's first move was no drag" eval '! since $n | grep -q "^drag-motion"'
t_match "$(since "$n" | grep '^key-press a ')" "^key-press a 0\$" "... and their key came with no button held (state 0)"
t_is "$(down)" "down:" "nothing is held down while the human has control"
lease release --viewer v1 >/dev/null

# ---- a button beyond 5, which QueryPointer does not show ---------------------------------------
t_ok "input down button8 presses button 8 (back)" bd input "$P" down button8
n=$(lines)
out=$(human v5 key:0x61)
t_match "$out" "exit 0\$" "a human takes control and types at once"
t_ok "... the key reached the application (waited up to 5 s)" wait_for 5 eval 'since $n | grep -q "^key-press a "'
t_match "$(since "$n" | head -n1)" "^button-release 8 " "button 8 went up before the human's first key"
t_match "$(since "$n" | grep '^key-press a ')" "^key-press a 0\$" "... which came with no button held (state 0)"
t_is "$(since "$n" | grep -c '^button-release')" 1 "... and no other button saw a release without its press"
lease release --viewer v5 >/dev/null

# ---- a key pressed and never released -------------------------------------------------------
t_ok "input down Control_L presses Control" bd input "$P" down Control_L
t_match "$(down)" "^down: key[0-9]+\$" "... the server holds one key down"
n=$(lines)
out=$(human v2 key:0x61)
t_match "$out" "exit 0\$" "a human takes control and types at once"
t_ok "... the key reached the application (waited up to 5 s)" wait_for 5 eval 'since $n | grep -q "^key-press a "'
t_match "$(since "$n" | grep '^key-press a ')" "^key-press a 0\$" "... a plain a, not ctrl+a (state 0)"
t_is "$(down)" "down:" "nothing is held down while the human has control"
lease release --viewer v2 >/dev/null

# ---- hold_key cut short by a take -----------------------------------------------------------
echo '{"action": "hold_key", "text": "shift", "duration": 30}' | "$BOTDESK" act "$P" >"$BD_T/hold.out" 2>&1 &
HOLD=$!
bd_own_pid "$HOLD"
t_ok "act hold_key shift for 30 s holds a key down (waited up to 10 s)" wait_for 10 eval '[ "$(down)" != "down:" ]'
n=$(lines)
out=$(human v3 key:0x61)
t_match "$out" "exit 0\$" "a human takes control and types at once"
t_ok "... the key reached the application (waited up to 5 s)" wait_for 5 eval 'since $n | grep -q "^key-press a "'
t_match "$(since "$n" | grep '^key-press a ')" "^key-press a 0\$" "... without Shift (state 0)"
t_is "$(down)" "down:" "nothing is held down while the human has control"
t_ok "hold_key ends within 5 s of the take, not after its 30 s" wait_for 5 eval '! kill -0 $HOLD 2>/dev/null'
t_is "$(json_get '(d["ok"], d.get("suppressed"), d.get("void"))' <"$BD_T/hold.out" 2>&1)" "(False, 'human_has_control', True)" \
        "... reported void and suppressed"
kill "$HOLD" 2>/dev/null
wait "$HOLD" 2>/dev/null
lease release --viewer v3 >/dev/null

# ---- wait cut short by a take ----------------------------------------------------------------
echo '{"action": "wait", "duration": 30}' | "$BOTDESK" act "$P" >"$BD_T/wait.out" 2>&1 &
WAITING=$!
bd_own_pid "$WAITING"
# Waiting, not still starting: blocked in poll() (number 7 on x86-64) with
# most of the 30 s as its timeout (the third argument, in ms).
waiting() {
        local nr ms
        read -r nr _ _ ms _ <"/proc/$WAITING/syscall" 2>/dev/null && [ "$nr" = 7 ] && [ $((ms)) -gt 20000 ]
}
t_ok "act wait of 30 s is waiting (waited up to 10 s)" wait_for 10 waiting
lease take --viewer v4 >/dev/null
t_ok "act wait of 30 s ends within 5 s of a take" wait_for 5 eval '! kill -0 $WAITING 2>/dev/null'
t_is "$(json_get '(d["ok"], d.get("suppressed"), d.get("void"))' <"$BD_T/wait.out" 2>&1)" "(False, 'human_has_control', True)" \
        "... reported void and suppressed"
kill "$WAITING" 2>/dev/null
wait "$WAITING" 2>/dev/null
lease release --viewer v4 >/dev/null

# ---- key combos are capped ------------------------------------------------------------------
many=$(printf 'b %.0s' $(seq 65))
n=$(lines)
out=$(printf '{"action": "key", "text": "%s"}\n' "$many" | act)
t_is "$(json_get 'd["ok"]' <<<"$out")" False "act key with 65 combos is refused"
t_match "$(json_get 'd["error"]' <<<"$out")" "at most 64 combos" "... saying at most 64"
bd input "$P" key $many >/dev/null 2>"$BD_T/out/key.err"
t_is "$?" 2 "input key with 65 combos is a usage error (exit 2)"
t_match "$(cat "$BD_T/out/key.err")" "at most 64" "... saying at most 64"
out=$(printf '{"action": "key", "text": "%s"}\n' "${many% b }" | act)
t_is "$(json_get 'd["ok"]' <<<"$out")" True "act key with 64 combos runs"
t_ok "... and only its 64 reached the application (waited up to 5 s)" \
        wait_for 5 eval '[ "$(since $n | grep -c "^key-press b ")" = 64 ]'

t_done
