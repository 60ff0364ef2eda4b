#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# An X lock naming a dead process is stale: the start reclaims its number.
# A lock naming a live process (of anyone) is never touched: the start skips
# that number, even when the profile remembers it.
. "$(dirname "$0")/lib.sh"
bd_init slr 80
bd_need_xserver
bd_config
N=$BD_BAND_MIN
P=$(bd_profile s)
LOCK=/tmp/.X$N-lock

if ! display_unused "$N"; then
        t_fail "display :$N is free before the test" "$(ls -l "$LOCK" /tmp/.X11-unix/X$N 2>&1)"
        t_done
fi

# A dead pid: fork a child, reap it.
true &
dead=$!
wait "$dead"
t_ok "pid $dead is dead" eval "! proc_alive $dead"
printf '%10d\n' "$dead" >"$LOCK"
bd_own_file "$LOCK"
bd_start "$P"
rc=$?
t_is "$rc" 0 "start with a stale lock on :$N exits 0"
[ "$rc" = 0 ] || t_diag "$(bd_err "$P")"
t_is "$(rec_get "$P" DISPLAY)" "$N" "it got :$N, the stale lock's number"
X=$(xservers_of "$P")
t_is "$(lock_pid "$N")" "$X" "$LOCK now names the new X server"
bd_stop "$P"
t_is "$?" 0 "stop exits 0"
t_ok "$LOCK is gone after the stop" test ! -e "$LOCK"
t_is "$(cat "$(bd_rt "$P")/display" 2>&1)" "$N" "the profile remembers :$N"

# A live, unrelated process named by the lock.
sleep 1000 &
live=$!
bd_own_pid "$live"
printf '%10d\n' "$live" >"$LOCK"
bd_own_file "$LOCK"
before=$(stat -c '%i %Y %s' "$LOCK")
bd_start "$P"
rc=$?
t_is "$rc" 0 "start with a live lock on its remembered :$N exits 0"
[ "$rc" = 0 ] || t_diag "$(bd_err "$P")"
D=$(rec_get "$P" DISPLAY)
t_isnt "$D" "$N" "it did not take :$N (got :$D)"
if [ -n "$D" ] && [ "$D" -gt "$N" ] && [ "$D" -le "$BD_BAND_MAX" ]; then t_pass "it got another number of the band"; else
        t_fail "it got another number of the band" "got '$D'"; fi
t_is "$(stat -c '%i %Y %s' "$LOCK" 2>&1)" "$before" "the live lock file is untouched"
t_is "$(lock_pid "$N")" "$live" "it still names pid $live"
t_ok "the unrelated process $live still runs" proc_alive "$live"
bd_stop "$P"
t_is "$?" 0 "stop exits 0"
t_ok "the unrelated process $live still runs after the stop" proc_alive "$live"
t_is "$(lock_pid "$N")" "$live" "and its lock is still there"
kill "$live"
wait "$live" 2>/dev/null
rm -f "$LOCK"
t_done
