#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Standalone placement from inside a logind session (the process sits in a
# root-owned session-N.scope, so the helper cannot create cgroups and must
# fall back to a process group and a child subreaper).
. /botdesk-tests/lib.sh

P=solo
export BOTDESK_PLACEMENT=standalone
trap 'timeout 60 botdesk stop $P >/dev/null 2>&1; t_cleanup' EXIT

echo "# started from cgroup $(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)"
out=$(timeout 60 botdesk start $P 2>&1)
pass $? "BOTDESK_PLACEMENT=standalone botdesk start $P returns 0" "$out" || t_done
json=$(botdesk status --json $P)
is "status --json: placement is standalone" "$(json_get placement <<<"$json")" standalone
is "status --json: running is true" "$(json_get running <<<"$json")" true
out=$(display_works $P 2>&1)
pass $? "the display works ($out)" "$out"
hpid=$(json_get pid <<<"$json")
pids=$(for p in /proc/[0-9]*; do
        [ "$(awk '{ print $4 }' "$p/stat" 2>/dev/null)" = "$hpid" ] && echo "${p#/proc/}"
done)
echo "# helper $hpid, its children: $(echo $pids)"
out=$(timeout 60 botdesk stop $P 2>&1)
pass $? "botdesk stop $P returns 0" "$out"
out=$(survivors $hpid $pids)
pass "$([ -z "$out" ]; echo $?)" "neither the helper nor its children are left" "$out"
t_done
