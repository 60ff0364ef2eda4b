#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Four concurrent starts of one profile: all succeed, all report the same
# desktop, and exactly one helper and one X server exist for it.
. "$(dirname "$0")/lib.sh"
bd_init csp 50
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config

P=$(bd_profile same)
bd_register "$P"
pids=
for i in 1 2 3 4; do
        (timeout 120 "$BOTDESK" start "$P" --json >"$BD_T/out/$i.json" 2>"$BD_T/out/$i.err"
         echo $? >"$BD_T/out/$i.rc") &
        pids="$pids $!"
done
wait $pids
bd_snapshot "$P"

seen=
for i in 1 2 3 4; do
        rc=$(cat "$BD_T/out/$i.rc")
        t_is "$rc" 0 "concurrent start #$i exits 0"
        [ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/$i.err")"
        got=$("$PY" -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["running"], s["display"], s["pid"])' \
                "$BD_T/out/$i.json" 2>&1)
        t_match "$got" '^True :[0-9]+ [0-9]+$' "start #$i prints a running status"
        seen="$seen$got
"
done
t_is "$(printf '%s' "$seen" | sort -u | wc -l)" 1 "all four report the same display and pid"
t_diag "$(printf '%s' "$seen" | sort -u)"

H=$(helpers_of "$P")
t_is "$(echo $H | wc -w)" 1 "exactly one botdesk-helper process runs for the profile"
t_is "$(echo $H)" "$(rec_get "$P" PID)" "it is the one the helper record names"
X=$(xservers_of "$P")
t_is "$(echo $X | wc -w)" 1 "exactly one X server runs for the profile"
# And no other X server of this test's uid claims a number of our band
# (but a warm spare's, in the spare variant).
others=
spares_x=" $(echo $(bd_spare_xservers)) "
for n in $(seq "$BD_BAND_MIN" "$BD_BAND_MAX"); do
        l=$(lock_pid "$n")
        [ -n "$l" ] && proc_alive "$l" && [ "$l" != "$X" ] && [ "$(stat -c %u "/tmp/.X$n-lock")" = "$BD_UID" ] &&
                [[ $spares_x != *" $l "* ]] && others="$others :$n($l)"
done
t_is "$others" "" "no second X server holds a number of the band"
if [ -n "$(rec_get "$P" CGROUP)" ]; then
        t_is "$(cat "$(rec_get "$P" CGROUP)/supervisor/cgroup.procs" 2>&1 | wc -l)" 1 "one process in the supervisor cgroup"
fi

ALL=$(desktop_pids "$P")
bd_stop "$P"
t_is "$?" 0 "stop exits 0"
alive=
for p in $ALL; do proc_alive "$p" && alive="$alive $p"; done
t_is "$alive$(desktop_pids "$P")" "" "nothing of the desktop remains"
t_done
