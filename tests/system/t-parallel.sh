#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Two profiles started at the same time: both ready, on distinct displays.
. /botdesk-tests/lib.sh

A=botdesk@para1.service B=botdesk@para2.service
track $A $B
tmp=$(mktemp -d)

t=$(now)
timeout 60 systemctl --user start $A >"$tmp/a" 2>&1 &
pa=$!
timeout 60 systemctl --user start $B >"$tmp/b" 2>&1 &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
echo "# both started in $(ms_since "$t") ms"
pass $ra "parallel start of $A returns 0" "$(cat "$tmp/a")"
pass $rb "parallel start of $B returns 0" "$(cat "$tmp/b")"
is "$A is active" "$(systemctl --user is-active $A)" active
is "$B is active" "$(systemctl --user is-active $B)" active
da=$(display_works para1 2>&1)
pass $? "para1's display works ($da)" "$da"
db=$(display_works para2 2>&1)
pass $? "para2's display works ($db)" "$db"
pass "$([ "$da" != "$db" ]; echo $?)" "the displays differ ($da, $db)"
ja=$(botdesk status --json para1) jb=$(botdesk status --json para2)
is "status of para1 names its own display" "$(json_get display <<<"$ja")" "$da"
is "status of para2 names its own display" "$(json_get display <<<"$jb")" "$db"
pa_pids=$(cg_pids "$(unit_cgroup $A)") pb_pids=$(cg_pids "$(unit_cgroup $B)")

check "stop $A returns 0" timeout 60 systemctl --user stop $A
is "$B is still active after stopping $A" "$(systemctl --user is-active $B)" active
check "stop $B returns 0" timeout 60 systemctl --user stop $B
out=$(survivors $pa_pids $pb_pids)
pass "$([ -z "$out" ]; echo $?)" "no process of either desktop is left" "$out"
rm -rf -- "${tmp:?}"
t_done
