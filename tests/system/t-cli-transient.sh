#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `botdesk start P` with no botdesk@.service installed: the CLI creates the
# transient unit botdesk@P.service (StartTransientUnit), with the same
# delegated cgroup layout; `botdesk stop P` stops it. A profile scoped by
# a gateway's home (BOTDESK_HOME) is such a unit under its scoped name. The browser the caller
# names (AGENT_BROWSER_EXECUTABLE_PATH) goes into its Environment=.
# The runner applies these lines as root in the container around this script:
# root-before: mv /usr/lib/systemd/user/botdesk@.service /root/botdesk@.service
# root-after: mv /root/botdesk@.service /usr/lib/systemd/user/botdesk@.service
. /botdesk-tests/lib.sh

P=t1 U=botdesk@t1.service
track $U
trap 'for p in $P t3; do timeout 60 botdesk stop $p >/dev/null 2>&1; done; BOTDESK_HOME=/srv/gateway timeout 60 botdesk stop t4 >/dev/null 2>&1; t_cleanup' EXIT

out=$(systemctl --user cat botdesk@.service 2>&1)
pass "$([ $? != 0 ]; echo $?)" "precondition: no botdesk@.service unit file is installed" "$out"
# The cold-bus case is t-cli's; here the user manager is on the bus first.
out=$(warm_user_bus)
pass $? "the user manager is on the user bus" "$out"
out=$(timeout 60 botdesk start $P 2>&1)
pass $? "botdesk start $P returns 0" "$out" || t_done
is "systemctl --user is-active $U" "$(systemctl --user is-active $U)" active
frag=$(prop $U FragmentPath)
pass "$(case "$frag" in ""|"$XDG_RUNTIME_DIR"/systemd/transient/*) echo 0;; *) echo 1;; esac)" \
        "$U is transient (FragmentPath '${frag}')"
is "$U is Type=notify" "$(prop $U Type)" notify
is "$U has Delegate=yes" "$(prop $U Delegate)" yes
json=$(botdesk status --json $P)
is "status --json: placement is user-unit" "$(json_get placement <<<"$json")" user-unit
is "status --json: unit is $U" "$(json_get unit <<<"$json")" $U
out=$(display_works $P 2>&1)
pass $? "the display works ($out)" "$out"
cg=$(unit_cgroup $U)
for sub in supervisor x11 session; do
        check "unit cgroup has $sub/" test -d "$cg/$sub"
done
pids=$(cg_pids "$cg")
hpid=$(json_get pid <<<"$json")
out=$(timeout 60 botdesk stop $P 2>&1)
pass $? "botdesk stop $P returns 0" "$out"
state=$(systemctl --user is-active $U)
is "$U is inactive (or gone) after botdesk stop" "$state" inactive
pass "$(cg_empty "$cg"; echo $?)" "unit cgroup is gone or empty" "$(cg_pids "$cg")"
out=$(survivors $pids $hpid)
pass "$([ -z "$out" ]; echo $?)" "no process of the desktop is left" "$out"
# ---- a start that finds another caller's start under way -----------------------------------
# A wrapper makes the helper slow to start (4 s before it runs), so a second
# start finds the unit activating and joins its job; its --timeout 1 must
# leave the first caller's start alone, and that start then ends ready.
P2=t2 U2=botdesk@t2.service
track $U2
slow=$HOME/slow-helper
printf '#!/bin/sh\nsleep 4\nexec /usr/libexec/botdesk-helper "$@"\n' >"$slow" && chmod 755 "$slow"
BOTDESK_HELPER=$slow timeout 60 botdesk start $P2 >"$HOME/first-start.out" 2>&1 &
first=$!
for _ in $(seq 100); do [ "$(systemctl --user is-active $U2)" = activating ] && break; sleep 0.05; done
is "$U2 is activating while its helper is slow to start (waited up to 5 s)" "$(systemctl --user is-active $U2)" activating
out=$(timeout 30 botdesk start --timeout 1 $P2 2>&1)
pass "$([ $? != 0 ]; echo $?)" "a second start with --timeout 1 fails" "$out"
pass "$(grep -q "is another caller's" <<<"$out"; echo $?)" "... saying that the start under way is another caller's" "$out"
wait "$first"
pass $? "the first start, left alone, returns 0" "$(cat "$HOME/first-start.out")"
is "$U2 is active after the first start returned" "$(systemctl --user is-active $U2)" active
out=$(timeout 60 botdesk stop $P2 2>&1)
pass $? "botdesk stop $P2 returns 0" "$out"
# ---- a gateway's home scopes the name: the unit and its helper take it whole -------------------
P4=t4.$(printf /srv/gateway | sha256sum | cut -c1-8) U4=botdesk@t4.$(printf /srv/gateway | sha256sum | cut -c1-8).service
track $U4
out=$(BOTDESK_HOME=/srv/gateway timeout 60 botdesk start t4 2>&1)
pass $? "botdesk start t4 under BOTDESK_HOME=/srv/gateway returns 0" "$out"
is "$U4 is active: the scoped name is the unit's instance" "$(systemctl --user is-active $U4)" active
is "status --json of $P4 names its unit" "$(json_get unit <<<"$(botdesk status --json $P4)")" $U4
out=$(display_works $P4 2>&1)
pass $? "its display works ($out)" "$out"
out=$(BOTDESK_HOME=/srv/gateway timeout 60 botdesk stop t4 2>&1)
pass $? "botdesk stop t4 under that home returns 0" "$out"
is "$U4 is inactive (or gone) after it" "$(systemctl --user is-active $U4)" inactive
# ---- the browser the caller names: in the transient unit's Environment= ----------------------
browser_round t3
t_done
