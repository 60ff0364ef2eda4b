#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `botdesk start P` with botdesk@.service installed: the CLI asks the user
# manager to start botdesk@P.service (StartUnit); `botdesk stop P` stops it.
# Part 1 runs first thing in a fresh login, when the user bus is still
# waiting for socket activation (what an agent's first command meets); part 2
# once the user manager is on the bus. The browser the caller names reaches
# the installed unit through start.env (EnvironmentFile=).
. /botdesk-tests/lib.sh

trap 'for p in cli1 cli2 cli3; do timeout 60 botdesk stop $p >/dev/null 2>&1; done; t_cleanup' EXIT

cli_round() { # cli_round WHAT PROFILE
        local what=$1 P=$2 U=botdesk@$2.service out json cg pids hpid
        track $U
        out=$(timeout 60 botdesk start $P 2>&1)
        pass $? "$what: botdesk start $P returns 0" "$out" || return
        json=$(botdesk status --json $P)
        is "$what: status --json: placement is user-unit" "$(json_get placement <<<"$json")" user-unit
        is "$what: systemctl --user is-active $U" "$(systemctl --user is-active $U)" active
        is "$what: status --json: unit is $U" "$(json_get unit <<<"$json")" $U
        is "$what: status --json: pid is the unit's MainPID" "$(json_get pid <<<"$json")" "$(prop $U MainPID)"
        is "$what: the unit runs from the installed unit file" "$(prop $U FragmentPath)" /usr/lib/systemd/user/botdesk@.service
        out=$(display_works $P 2>&1)
        pass $? "$what: the display works ($out)" "$out"
        cg=$(unit_cgroup $U)
        pids=$(cg_pids "$cg")
        hpid=$(json_get pid <<<"$json")
        out=$(timeout 60 botdesk stop $P 2>&1)
        pass $? "$what: botdesk stop $P returns 0" "$out"
        is "$what: $U is inactive after botdesk stop" "$(systemctl --user is-active $U)" inactive
        pass "$(cg_empty "$cg"; echo $?)" "$what: unit cgroup is gone or empty" "$(cg_pids "$cg")"
        out=$(survivors $pids $hpid)
        pass "$([ -z "$out" ]; echo $?)" "$what: no process of the desktop is left" "$out"
}

check "precondition: botdesk@.service is installed" systemctl --user cat botdesk@.service
cli_round "fresh login" cli1
out=$(warm_user_bus)
pass $? "the user manager is on the user bus" "$out"
cli_round "user bus up" cli2
browser_round cli3
t_done
