#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# systemctl --user start/stop botdesk@work.service: readiness, env, status,
# the delegated cgroup's layout, a clean stop, journal priorities.
. /botdesk-tests/lib.sh

U=botdesk@work.service
RT=$XDG_RUNTIME_DIR/botdesk/work
track $U

t=$(now)
out=$(timeout 60 systemctl --user start $U 2>&1)
pass $? "systemctl --user start $U returns 0 ($(ms_since "$t") ms)" "$out" || t_done
is "unit is active" "$(systemctl --user is-active $U)" active
is "unit status line says ready" "$(prop $U StatusText | sed 's/:[0-9]*/:N/')" "Desktop :N ready (1440x900)"
check "env file $RT/env exists" test -f "$RT/env"
out=$(display_works work 2>&1)
pass $? "eval \"\$(botdesk env work)\"; xdpyinfo works" "$out"
disp=$out

json=$(botdesk status --json work)
is "status --json: placement is user-unit" "$(json_get placement <<<"$json")" user-unit
is "status --json: unit is $U" "$(json_get unit <<<"$json")" $U
is "status --json: running is true" "$(json_get running <<<"$json")" true
is "status --json: display is the env's DISPLAY" "$(json_get display <<<"$json")" "$disp"
main=$(prop $U MainPID)
is "status --json: pid is the unit's MainPID" "$(json_get pid <<<"$json")" "$main"

cg=$(unit_cgroup $U)
check "unit cgroup $cg exists in the v2 hierarchy ($CG2)" test -d "$cg"
for sub in supervisor x11 session; do
        check "unit cgroup has $sub/" test -d "$cg/$sub"
done
is "the helper (MainPID $main) is the only process in supervisor/" "$(cat "$cg/supervisor/cgroup.procs" 2>/dev/null)" "$main"
xpid=$(x_pid "$cg/x11")
pass $? "the X server runs in x11/ (pid ${xpid:-none})" "$(cat "$cg/x11/cgroup.procs" 2>/dev/null | xargs -r ps -o pid,comm -p)"
check "xfwm4 runs in session/" comm_pid "$cg/session" xfwm4
is "no process is left in the unit cgroup's root" "$(cat "$cg/cgroup.procs" 2>/dev/null)" ""
pids=$(cg_pids "$cg")
echo "# processes of the desktop: $(echo $pids)"

t=$(now)
out=$(timeout 60 systemctl --user stop $U 2>&1)
pass $? "systemctl --user stop $U returns 0 ($(ms_since "$t") ms)" "$out"
is "unit is inactive after stop" "$(systemctl --user is-active $U)" inactive
is "unit Result is success" "$(prop $U Result)" success
is "helper exited with status 0" "$(prop $U ExecMainStatus)" 0
pass "$(cg_empty "$cg"; echo $?)" "unit cgroup is gone or empty once stop returned" "$(cg_pids "$cg")"
out=$(survivors $pids)
pass "$([ -z "$out" ]; echo $?)" "none of the desktop's processes (helper $main, X $xpid, ...) is alive" "$out"
check "env file removed" test ! -e "$RT/env"
check "rfb.sock removed" test ! -e "$RT/rfb.sock"

# Journal: the helper's "<N>" prefixes become PRIORITY fields. The stream is
# read by journald asynchronously; give it a moment to land.
helper_lines() {
        journalctl --user -u $U -o json --no-pager 2>/dev/null | python3 -c '
import json, sys
main = sys.argv[1]
for line in sys.stdin:
    e = json.loads(line)
    if e.get("_PID") == main and e.get("SYSLOG_IDENTIFIER") == "botdesk-helper":
        print(e.get("PRIORITY"), e.get("MESSAGE"))' "$main"
}
for _ in $(seq 50); do
        lines=$(helper_lines)
        grep -q '^6 Stopping desktop' <<<"$lines" && break
        sleep 0.1
done
check "journal: helper progress line 'Desktop :N ready' has PRIORITY=6" grep -qE '^6 Desktop :[0-9]+ ready' <<<"$lines"
check "journal: helper line 'Stopping desktop' has PRIORITY=6" grep -qE '^6 Stopping desktop' <<<"$lines"
check "journal: no helper line carries a raw '<N>' prefix" bash -c '! grep -qE "^[0-9]+ <[0-7]>" <<<"$1"' - "$lines"
[ "$T_FAILED" = 0 ] || printf '%s\n' "$lines" | diag
t_done
