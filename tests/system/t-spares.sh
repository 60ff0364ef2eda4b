#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Warm spares under the user manager: `botdesk pool fill` starts a spare as
# botdesk@_spare-XXXXXXXX.service; `botdesk start P` adopts it, and P's
# status names that unit, whose cgroup holds the desktop; a replacement
# spare unit follows; `botdesk stop P` stops the spare's unit and leaves
# nothing; `botdesk pool drain` stops the spares.
. /botdesk-tests/lib.sh

P=sp1
conf=${XDG_CONFIG_HOME:-$HOME/.config}/botdesk/botdesk.ini
mkdir -p "${conf%/*}"
[ -e "$conf" ] && cp "$conf" "$HOME/botdesk.ini.before"
printf '[pool]\nspares = 1\n' >>"$conf"
restore() {
        timeout 60 botdesk stop $P >/dev/null 2>&1
        timeout 120 botdesk pool drain >/dev/null 2>&1
        if [ -e "$HOME/botdesk.ini.before" ]; then mv "$HOME/botdesk.ini.before" "$conf"; else rm -f "$conf"; fi
        t_cleanup
}
trap restore EXIT

# spare_of STATE: the first spare in STATE (ready, starting) of `pool list`.
spare_of() { botdesk pool list 2>/dev/null | awk -v s="$1" '$2 == s { print $1; exit }'; }

out=$(warm_user_bus)
pass $? "the user manager is on the user bus" "$out"
out=$(timeout 120 botdesk pool fill 2>&1)
pass $? "botdesk pool fill returns 0" "$out" || t_done
S=$(spare_of ready)
SU=botdesk@$S.service
track "$SU"
pass "$([[ $S =~ ^_spare-[0-9a-f]{8}$ ]]; echo $?)" "a ready spare is listed ($S)" "$(botdesk pool list 2>&1)"
is "the spare runs as $SU" "$(systemctl --user is-active "$SU")" active
spid=$(prop "$SU" MainPID)

t=$(now)
out=$(timeout 60 botdesk start $P 2>&1)
pass $? "botdesk start $P returns 0 ($(ms_since "$t") ms)" "$out" || t_done
json=$(botdesk status --json $P)
is "status --json: running" "$(json_get running <<<"$json")" true
is "status --json: placement is user-unit" "$(json_get placement <<<"$json")" user-unit
is "status --json: the unit is the adopted spare's" "$(json_get unit <<<"$json")" "$SU"
is "status --json: the pid is that unit's MainPID" "$(json_get pid <<<"$json")" "$spid"
is "botdesk@$P.service did not start" "$(systemctl --user is-active botdesk@$P.service)" inactive
out=$(display_works $P 2>&1)
pass $? "the display works with $P's env ($out)" "$out"
cg=$(unit_cgroup "$SU")
for sub in supervisor x11 session; do
        check "the unit's cgroup has $sub/" test -d "$cg/$sub"
done
pids=$(cg_pids "$cg")

R=
for _ in $(seq 300); do
        R=$(spare_of ready)
        [ -n "$R" ] && [ "$R" != "$S" ] && break
        R=
        sleep 0.2
done
pass "$([ -n "$R" ]; echo $?)" "a replacement spare is ready (waited up to 60 s)" "$(botdesk pool list 2>&1)"
[ -n "$R" ] && track "botdesk@$R.service"
is "it runs as its own unit" "$(systemctl --user is-active "botdesk@$R.service")" active

t=$(now)
out=$(timeout 60 botdesk stop $P 2>&1)
pass $? "botdesk stop $P returns 0 ($(ms_since "$t") ms)" "$out"
is "$SU is inactive after the stop" "$(systemctl --user is-active "$SU")" inactive
pass "$(cg_empty "$cg"; echo $?)" "its cgroup is gone or empty" "$(cg_pids "$cg")"
out=$(survivors $pids)
pass "$([ -z "$out" ]; echo $?)" "no process of the adopted desktop is left" "$out"
check "the spare's name is gone from the runtime dir" test ! -e "$XDG_RUNTIME_DIR/botdesk/$S"

out=$(timeout 120 botdesk pool drain 2>&1)
pass $? "botdesk pool drain returns 0" "$out"
is "the replacement's unit is inactive after the drain" "$(systemctl --user is-active "botdesk@$R.service")" inactive
is "no spare is left" "$(botdesk pool list 2>&1)" ""
t_done
