#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A desktop not ready within start_timeout is killed whole: exit 1 within a
# few seconds, a message naming start_timeout, nothing published, nothing
# left running, no display number remembered.
. "$(dirname "$0")/lib.sh"
bd_init sto 70
bd_need_xserver
bd_config timeout=2 settle=600000
P=$(bd_profile t)
RT=$(bd_rt "$P")

# Watch the attempt while it runs, to know its processes afterwards.
bd_register "$P"
t0=$(date +%s%N)
(bd_start "$P"; echo $? >"$BD_T/out/rc") &
bg=$!
SEEN=
while kill -0 "$bg" 2>/dev/null; do
        bd_snapshot "$P"
        for p in $(desktop_pids "$P"); do
                case " $SEEN " in *" $p:"*) ;; *) SEEN="$SEEN $p:$(proc_starttime "$p")" ;; esac
        done
        sleep 0.1
done
wait "$bg"
ms=$((($(date +%s%N) - t0) / 1000000))
rc=$(cat "$BD_T/out/rc")
err=$(bd_err "$P")
t_is "$rc" 1 "start exits 1 when the desktop is not ready within start_timeout"
if [ "$ms" -lt 10000 ]; then t_pass "it fails within 10 s ($ms ms)"; else t_fail "it fails within 10 s" "took $ms ms"; fi
if [ "$ms" -ge 1900 ]; then t_pass "not before the 2 s timeout ($ms ms)"; else t_fail "not before the 2 s timeout" "took $ms ms"; fi
t_match "$err" 'not ready within start_timeout' "stderr says the desktop was not ready within start_timeout"
t_diag "stderr: $err"
t_is "$(printf '%s\n' "$err" | grep -c .)" 1 "the error is one line"
t_match "$(cat "$RT/last-error" 2>&1)" 'start_timeout' "last-error says why"
t_ok "no env is published" test ! -e "$RT/env"
t_ok "no display file remains" test ! -e "$RT/display"
t_ok "no helper record remains" test ! -e "$RT/helper"
xs=$(echo "$SEEN" | wc -w)
if [ "$xs" -ge 3 ]; then t_pass "the attempt had processes to kill ($xs seen)"; else
        t_fail "the attempt had processes to kill" "seen: $SEEN"; fi
alive=
for ps in $SEEN; do proc_alive "${ps%%:*}" "${ps#*:}" && alive="$alive ${ps%%:*}"; done
t_is "$alive$(desktop_pids "$P")" "" "no process of the attempt remains"
[ -n "$alive" ] && t_diag "$(describe_pids $alive)"
cg=$(bd_cgroup_of "$P")
[ -n "$cg" ] && t_ok "no cgroup $cg remains" test ! -e "$cg"
N=$(printf '%s' "$err" | sed -n 's/.* on :\([0-9][0-9]*\).*/\1/p' | head -n1)
if [ -n "$N" ]; then
        t_ok "/tmp/.X$N-lock of the attempt is gone" test ! -e "/tmp/.X$N-lock"
        t_ok "nothing is bound to :$N's X socket" eval "! x_socket_bound '$N'"
fi
# Nothing late: give a would-be late publisher a moment, then look again.
sleep 0.5
t_ok "still no env half a second later" test ! -e "$RT/env"
t_done
