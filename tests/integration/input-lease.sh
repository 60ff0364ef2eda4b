#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The control lease gates every agent action on a real desktop: while a
# human holds it (or the lease file is unreadable) input, windows, cursor,
# thumbnail and exec are refused with exit 3 (exec: its own 125) and nothing reaches the
# screen (thumbnail --json says "suppressed" in its one line, and so does
# one a takeover voids while it reads the screen); a takeover in the
# middle of a long type voids it (exit 3, "suppressed") and at most one batch of characters (64, INPUT_TYPE_BATCH)
# reaches the screen after it, counted in the server's order of events with
# a slow reader, not by waiting for the text to stop growing; lease wait
# sleeps on an event (no wake-ups while it waits), returns once the agent
# holds again and exit 3 on timeout (the 250 ms target is the bench's); a request shows as pending; stop --force
# ends a human lease with its reason, so the next start is not refused.
. "$(dirname "$0")/lib.sh"
bd_init inl 315
bd_need_xserver
# A slow reader (100 us a key press): what reaches the screen is the
# server's business, whatever the client's pace.
bd_input_recorder 100
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
# refused DESC [--exit N] CMD...: N is 3, or exec's own 125.
refused() {
        local desc=$1 rc want=3
        shift
        [ "$1" = --exit ] && want=$2 && shift 2
        "$@" >"$BD_T/r.out" 2>"$BD_T/r.err" </dev/null
        rc=$?
        t_is "$rc" "$want" "$desc is refused (exit $want) while a human holds the lease"
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
refused "exec" --exit 125 "$BOTDESK" exec "$P" -- touch "$BD_T/exec-ran"
t_ok "... and exec did not run its command" [ ! -e "$BD_T/exec-ran" ]
if "$BOTDESK" thumbnail --help >/dev/null 2>&1; then
        refused "thumbnail" "$BOTDESK" thumbnail "$P" -o "$BD_T/shot.png"
        t_ok "... and no thumbnail was written" [ ! -e "$BD_T/shot.png" ]
        refused "thumbnail --json" "$BOTDESK" thumbnail "$P" --json
        t_is "$(json_get '(sorted(d), d["suppressed"], d["action"], d["profile"])' <"$BD_T/r.out")" \
                "(['action', 'epoch', 'profile', 'suppressed'], 'human_has_control', 'thumbnail', '$P')" \
                "... and says so in one line of JSON, {\"suppressed\": \"human_has_control\"}, with no picture"
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

# ---- a takeover voids a running thumbnail ------------------------------------------------------

if "$BOTDESK" thumbnail --help >/dev/null 2>&1; then
        # The server stopped, the thumbnail is admitted and then waits on its
        # X connection (made after the gate), while the take happens.
        X=$(xservers_of "$P" | head -n1)
        kill -STOP "$X"
        "$BOTDESK" thumbnail "$P" --json >"$BD_T/thumb.out" 2>"$BD_T/thumb.err" </dev/null &
        thpid=$!
        bd_own_pid "$thpid"
        x_connected() { ls -l "/proc/$thpid/fd" 2>/dev/null | grep -q 'socket:'; }
        wait_for 10 x_connected || t_fail "the thumbnail connected to the stopped server (waited 10 s)"
        "$BOTDESK" lease "$P" take --viewer human-t >/dev/null
        kill -CONT "$X"
        wait "$thpid"
        t_is "$?" 3 "a takeover while the thumbnail reads the screen makes it exit 3"
        t_is "$(json_get '(sorted(d), d["suppressed"], d["action"])' <"$BD_T/thumb.out")" \
                "(['action', 'epoch', 'profile', 'suppressed'], 'human_has_control', 'thumbnail')" \
                "... with --json, {\"suppressed\": \"human_has_control\"} alone on stdout, no picture"
        t_is "$(wc -l <"$BD_T/thumb.out" | tr -d ' ')" 1 "... in one line"
        t_match "$(cat "$BD_T/thumb.err")" "took control of this screen while thumbnail ran; its result is void" \
                "... and says its result is void"
        "$BOTDESK" lease "$P" release --viewer human-t >/dev/null
fi

# ---- a takeover voids a running type ----------------------------------------------------------

"$PY" -c 'import sys; sys.stdout.write("abcdefghij" * 40000)' >"$BD_T/long"
: >"$TEXT"
# The marker: a client connected ahead, whose mark the server takes as
# soon as it runs, beside what the typing queued meanwhile.
mkfifo "$BD_T/mark.in"
(set -a && . "$RT/env" && exec "$REC" --mark <"$BD_T/mark.in" >"$BD_T/mark.out" 2>&1) &
bd_own_pid $!
exec 7>"$BD_T/mark.in"
t_ok "the marker is connected (waited up to 10 s)" wait_for 10 grep -qx connected "$BD_T/mark.out"
"$BOTDESK" input "$P" type --stdin --json <"$BD_T/long" >"$BD_T/type.out" 2>"$BD_T/type.err" &
tpid=$!
bd_own_pid "$tpid"
wait_for 5 test -s "$TEXT" || t_fail "the long type began (waited 5 s for its first characters)"
# The server falls behind the typing, as on a loaded machine, only more so:
# stopped for half a second, while the take happens and the mark is queued.
X=$(xservers_of "$P" | head -n1)
t_match "$X" '^[0-9]+$' "the desktop's X server is found (pid $X)"
kill -STOP "$X"
sleep 0.5
"$BOTDESK" lease "$P" take --viewer human-2 >/dev/null
echo >&7
sleep 0.3   # for the marker to write its request, which the server cannot answer yet
kill -CONT "$X"
wait "$tpid"
t_is "$?" 3 "a takeover in the middle of a long type makes it exit 3"
t_is "$(json_get 'd.get("suppressed")' <"$BD_T/type.out")" human_has_control \
        "... with {\"suppressed\": \"human_has_control\"} on stdout"
t_is "$(json_get 'sorted(d)' <"$BD_T/type.out")" "['action', 'epoch', 'profile', 'suppressed']" \
        "... and no result data (no character count)"
t_match "$(cat "$BD_T/type.err")" "took control of this screen while input type ran; its result is void" \
        "... and says its result is void"
# Every key press the recorder logs after the mark reached the screen after the take.
t_ok "the marker's mark was taken (waited up to 30 s)" wait_for 30 grep -qx marked "$BD_T/mark.out"
exec 7>&-
t_ok "the recorder read its events up to the mark (waited up to 30 s)" wait_for 30 grep -qx mark "$LOG"
after=$(sed -n '/^mark$/,$p' "$LOG" | grep -c '^key-press')
t_ok "at most one batch reached the screen after the takeover ($after key presses after it, of 64 allowed)" \
        [ "$after" -le 64 ]
got=$(size_of "$TEXT")
t_ok "only part of the text was typed ($got of 400000 characters)" [ "$got" -lt 400000 ]

# ---- lease wait -------------------------------------------------------------------------------

t0=$(now_ms)
"$BOTDESK" lease "$P" wait --timeout 1 >/dev/null 2>&1
rc=$?
t1=$(now_ms)
t_is "$rc" 3 "lease wait --timeout 1 while a human holds is exit 3"
t_ok "... after about the timeout ($((t1 - t0)) ms)" [ $((t1 - t0)) -ge 900 ] && [ $((t1 - t0)) -lt 10000 ]

"$BOTDESK" lease "$P" wait --timeout 60 --json >"$BD_T/wait.out" &
wpid=$!
bd_own_pid "$wpid"
wakeups() { sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "/proc/$wpid/status" 2>/dev/null; }
# Settled into its wait (bounded: 5 s), then one second watched: a
# poller wakes up every few milliseconds, a wait on inotify not at all.
wait_for 5 eval '[ "$(wakeups)" = "$(sleep 0.2; wakeups)" ]'
w0=$(wakeups)
sleep 1
w1=$(wakeups)
t_ok "lease wait is still waiting while the human holds" proc_alive "$wpid"
t_ok "... asleep on an event: $((w1 - w0)) wake-ups in 1 s" [ -n "$w0" ] && [ -n "$w1" ] && [ $((w1 - w0)) -le 2 ]
rel=$(now_ms)
"$BOTDESK" lease "$P" release --viewer human-2 >/dev/null
wait "$wpid"
wrc=$?
t_is "$wrc" 0 "lease wait exits 0 once the agent holds control"
t_diag "lease wait returned $(($(now_ms) - rel)) ms after the release began (target 250 ms: tests/bench/)"
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
