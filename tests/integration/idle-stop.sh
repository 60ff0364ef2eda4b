#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# idle_stop_minutes: a desktop nobody uses stops by itself, cleanly; one whose
# lease a human holds does not. (The shortest limit is a minute, so this test
# takes a little over one.)
. "$(dirname "$0")/lib.sh"
bd_init idl 35
bd_need_xserver
A=$(bd_profile a)
B=$(bd_profile b)

bd_config idle=1
# Taken before the start: the idle clock cannot start earlier than this.
t0=$EPOCHREALTIME
bd_start "$A"
t_is "$?" 0 "desktop A starts with idle_stop_minutes = 1"
bd_start "$B"
t_is "$?" 0 "desktop B starts with idle_stop_minutes = 1"
HA=$(rec_get "$A" PID)
HB=$(rec_get "$B" PID)
"$BOTDESK" lease "$B" take --viewer watcher >/dev/null
t_is "$?" 0 "a human takes B's lease"

# Test-side wait: up to 100 s for A's helper to end by itself.
end=$((SECONDS + 100))
while proc_alive "$HA" && [ $SECONDS -lt $end ]; do sleep 0.5; done
lasted=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
t_ok "A's helper ends by itself after a minute idle" test $SECONDS -lt $end
# Ending at all is not enough: a desktop stopped at once, or after any
# shorter time, would pass the wait above.
if awk -v l="$lasted" 'BEGIN { exit !(l >= 60) }'; then
        t_pass "A lasted its idle time (ended ${lasted} s after its start was asked for, at least 60)"
else
        t_fail "A lasted its idle time" "got:  ended ${lasted} s after its start was asked for" "want: at least 60 s (idle_stop_minutes = 1)"
fi
t_ok "A's env is no longer published" test ! -e "$(bd_rt "$A")/env"
t_ok "A stopped cleanly (no last-error)" test ! -e "$(bd_rt "$A")/last-error"
t_is "$(desktop_pids "$A")" "" "nothing of A runs"
t_ok "B, whose lease a human holds, still runs" proc_alive "$HB"
t_ok "B's env is still published" test -s "$(bd_rt "$B")/env"
"$BOTDESK" lease "$B" release --viewer watcher >/dev/null
bd_stop "$B"
t_is "$?" 0 "B stops on request"
t_done
