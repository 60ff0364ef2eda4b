#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The control lease gates every agent action on a real desktop: while a
# human holds it (or the lease file is unreadable) input, windows, cursor,
# thumbnail and exec are refused with exit 3 and nothing reaches the
# screen; a takeover in the middle of a long type voids it (exit 3,
# "suppressed") and stops the typing; lease wait returns within 250 ms of a
# release and exit 3 on timeout; a request shows as pending; stop --force
# ends a human lease with its reason, so the next start is not refused.
. "$(dirname "$0")/lib.sh"
bd_init inl 315
bd_need_xserver
bd_input_recorder
P=$(bd_profile a)
RT=$(bd_rt "$P")

log_lines() { wc -l <"$LOG" | tr -d ' '; }
size_of() { wc -c <"$1" | tr -d ' '; }
json_get() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

t_ok "the desktop with the recorder starts" bd_start "$P"
bd_recorder_files "$P"
t_ok "the recorder is ready" wait_for 5 grep -qx ready "$LOG"

# ---- refused while a human holds --------------------------------------------------------------

"$BOTDESK" lease "$P" take --viewer human-1 --reason "entering a password" >/dev/null
n0=$(log_lines)
refused() {
        local desc=$1 rc
        shift
        "$@" >"$BD_T/r.out" 2>"$BD_T/r.err" </dev/null
        rc=$?
        t_is "$rc" 3 "$desc is refused (exit 3) while a human holds the lease"
        grep -q "A human has control of this screen" "$BD_T/r.err" ||
                t_fail "$desc: the refusal says a human has control" "$(cat "$BD_T/r.err")"
}
refused "input move" "$BOTDESK" input "$P" move 5 5
refused "input click" "$BOTDESK" input "$P" click 5 5
refused "input key" "$BOTDESK" input "$P" key Return
refused "input type" "$BOTDESK" input "$P" type hello
refused "input down" "$BOTDESK" input "$P" down button1
refused "windows" "$BOTDESK" windows "$P" --json
refused "cursor" "$BOTDESK" cursor "$P" --json
refused "exec" "$BOTDESK" exec "$P" -- touch "$BD_T/exec-ran"
t_ok "... and exec did not run its command" [ ! -e "$BD_T/exec-ran" ]
if "$BOTDESK" thumbnail --help >/dev/null 2>&1; then
        refused "thumbnail" "$BOTDESK" thumbnail "$P" -o "$BD_T/shot.png"
        t_ok "... and no thumbnail was written" [ ! -e "$BD_T/shot.png" ]
fi
sleep 0.2
t_is "$(log_lines)" "$n0" "no refused action reached the screen"
t_is "$(size_of "$TEXT")" 0 "nothing was typed"

out=$("$BOTDESK" lease "$P" show --json)
t_is "$(echo "$out" | json_get '(d["holder"], d["reason"])')" "('human', 'entering a password')" \
        "lease show --json gives the take's reason"

# ---- fail closed ------------------------------------------------------------------------------

"$BOTDESK" lease "$P" release --viewer human-1 >/dev/null
printf 'HOLDER=agent\nnot a lease\n' >"$RT/lease.tmp" && mv "$RT/lease.tmp" "$RT/lease"
refused "input with an unreadable lease file (fail closed)" "$BOTDESK" input "$P" move 5 5
refused "windows with an unreadable lease file" "$BOTDESK" windows "$P"
"$BOTDESK" lease "$P" take --viewer repair >/dev/null && "$BOTDESK" lease "$P" release --viewer repair >/dev/null
t_ok "after repairing the lease the agent acts again" "$BOTDESK" input "$P" move 5 5

# ---- a takeover voids a running type ----------------------------------------------------------

"$PY" -c 'import sys; sys.stdout.write("abcdefghij" * 40000)' >"$BD_T/long"
: >"$TEXT"
"$BOTDESK" input "$P" type --stdin --json <"$BD_T/long" >"$BD_T/type.out" 2>"$BD_T/type.err" &
tpid=$!
bd_own_pid "$tpid"
wait_for 5 test -s "$TEXT" || t_fail "the long type began (waited 5 s for its first characters)"
"$BOTDESK" lease "$P" take --viewer human-2 >/dev/null
wait "$tpid"
t_is "$?" 3 "a takeover in the middle of a long type makes it exit 3"
t_is "$(json_get 'd.get("suppressed")' <"$BD_T/type.out")" human_has_control \
        "... with {\"suppressed\": \"human_has_control\"} on stdout"
t_is "$(json_get 'sorted(d)' <"$BD_T/type.out")" "['action', 'epoch', 'profile', 'suppressed']" \
        "... and no result data (no character count)"
t_match "$(cat "$BD_T/type.err")" "took control of this screen while input type ran; its result is void" \
        "... and says its result is void"
# The server may still be delivering events it had queued; then nothing more comes.
at_exit=$(size_of "$TEXT")
stable() {
        local a
        a=$(size_of "$TEXT")
        sleep 0.3
        [ "$(size_of "$TEXT")" = "$a" ]
}
t_ok "typing stopped: the text stops growing after the takeover (waited up to 5 s)" wait_for 5 stable
got=$(size_of "$TEXT")
t_ok "only part of the text was typed ($got of 400000 characters, $at_exit when type exited)" [ "$got" -lt 400000 ]

# ---- lease wait -------------------------------------------------------------------------------

t0=$(now_ms)
"$BOTDESK" lease "$P" wait --timeout 1 >/dev/null 2>&1
rc=$?
t1=$(now_ms)
t_is "$rc" 3 "lease wait --timeout 1 while a human holds is exit 3"
t_ok "... after about the timeout ($((t1 - t0)) ms)" [ $((t1 - t0)) -ge 900 ] && [ $((t1 - t0)) -lt 3000 ]

("$BOTDESK" lease "$P" wait --timeout 20 --json >"$BD_T/wait.out"; echo "$? $(now_ms)" >"$BD_T/wait.done") &
wpid=$!
bd_own_pid "$wpid"
sleep 0.5
t_ok "lease wait is still waiting while the human holds" [ ! -e "$BD_T/wait.done" ]
rel=$(now_ms)
"$BOTDESK" lease "$P" release --viewer human-2 >/dev/null
wait "$wpid"
read -r wrc wend <"$BD_T/wait.done"
t_is "$wrc" 0 "lease wait exits 0 once the agent holds control"
t_ok "... within 250 ms of the release ($((wend - rel)) ms, the release command included)" [ $((wend - rel)) -lt 250 ]
t_is "$(json_get 'd["holder"]' <"$BD_T/wait.out")" agent "... and prints the agent's lease"
t_ok "lease wait returns at once when the agent already holds" timeout 5 "$BOTDESK" lease "$P" wait --timeout 1

# ---- request ----------------------------------------------------------------------------------

"$BOTDESK" lease "$P" request --viewer human-3 --reason "I need to solve the captcha" >/dev/null
out=$("$BOTDESK" lease "$P" show --json)
want=$(printf %s human-3 | sha256sum | cut -c1-12)
t_is "$(echo "$out" | json_get '(d["holder"], d["pending"]["viewer_hash"], d["pending"]["reason"])')" \
        "('agent', '$want', 'I need to solve the captcha')" "a request shows as pending with the viewer's hash and reason"
t_ok "the agent still acts while a request is pending" "$BOTDESK" input "$P" move 6 6

# ---- stop --force ends a human lease ------------------------------------------------------------

"$BOTDESK" lease "$P" take --viewer human-3 >/dev/null
bd_snapshot "$P"
timeout 60 "$BOTDESK" stop "$P" >/dev/null 2>&1
t_is "$?" 3 "stop while a human holds is refused"
timeout 60 "$BOTDESK" stop "$P" --force >/dev/null 2>&1
t_is "$?" 0 "stop --force while a human holds stops the desktop"
out=$("$BOTDESK" lease "$P" show --json)
t_is "$(echo "$out" | json_get '(d["holder"], d["reason"], d["pending"])')" "('agent', 'ended by botdesk stop --force', None)" \
        "... and ends the human lease with the reason recorded"
t_ok "the next start is not refused" bd_start "$P"
t_ok "the desktop stops" bd_stop "$P"
t_done
