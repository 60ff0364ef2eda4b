#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The logind tier: botdesk-session@work.service (PAMName=botdesk, User= from
# the generator) gives a logind session of type x11, class user, desktop
# botdesk, display :N, service botdesk; `botdesk lookup` finds it; SIGKILL of
# the helper leaves no process of that generation once the unit restarted
# (pam_botdesk's close hook empties the scope); a leftover whose close hook
# never ran is killed by the next open; terminating the session leaves no
# process either; another user cannot reach the RFB socket.
#
# Root is needed to start a system unit and to act as a second user, and
# run.sh runs scripts as the test user with root only before and after.
# So this script has three parts: run as root with --root-before (install
# the configuration, start the unit, check what only root can, write TAP
# lines to $ROOT_TAP), as the test user (relay those lines, then every check
# the session's owner can make), and as root with --root-after (stop, restore).
#
# root-before: bash /botdesk-tests/t-logind.sh --root-before
# root-after: bash /botdesk-tests/t-logind.sh --root-after

P=work
U=botdesk-session@$P.service
L=left
LU=botdesk-session@$L.service
STATE=/run/botdesk-test-logind
ROOT_TAP=$STATE/root.tap
SECOND_USER=botdesk-other

# ---- as root, before -------------------------------------------------------------------------
root_before() {
        local out st n user
        mkdir -p "$STATE" && chmod 0755 "$STATE"
        . /botdesk-tests/root-tap.sh
        root_tap_open "$ROOT_TAP"

        root_config_save "$STATE"
        # The test user owns profile work for this script (restored afterwards).
        # Profile left's command leaves a process behind in the scope (setsid).
        { cat "$STATE/botdesk.ini.orig" 2>/dev/null
          printf '\n[profile.%s]\nuser = %s\n' "$P" "$(id -un 1000)"
          printf '\n[profile.%s]\nuser = %s\ndesktop = command\ncommand_settle_ms = 200\n' "$L" "$(id -un 1000)"
          printf 'command = setsid -f sleep 600 && exec sleep 600\n'; } > /etc/botdesk.ini
        chmod 0644 /etc/botdesk.ini

        # Installed by `meson install`: module, stack, unit, generator, tmpfiles.
        r_check "pam_botdesk.so is installed where libpam looks" \
                bash -c 'ls /lib/*/security/pam_botdesk.so /usr/lib/*/security/pam_botdesk.so /usr/lib/security/pam_botdesk.so 2>/dev/null | grep -q .' || return
        r_check "/etc/pam.d/botdesk is installed" test -f /etc/pam.d/botdesk || return
        r_check "the system unit $U is known" systemctl cat "$U" || return
        r_check "systemd-tmpfiles creates /run/botdesk" systemd-tmpfiles --create botdesk.conf
        out=$(stat -c '%U %a' /run/botdesk /run/botdesk/reservations /run/botdesk/alloc.lock 2>&1 | tr '\n' ' ')
        if [ "$out" = "root 755 root 755 root 600 " ]; then r_ok "/run/botdesk, its reservations/ and alloc.lock are root's (the lock root's alone)"
        else r_not_ok "/run/botdesk, its reservations/ and alloc.lock are root's (the lock root's alone)"; echo "$out" | r_diag; fi

        # The generator runs on daemon-reload.
        systemctl daemon-reload
        user=$(systemctl show -p User --value "$U")
        if [ "$user" = "$(id -un 1000)" ]; then r_ok "the generator gives $U User=$user from [profile.$P] user ="
        else r_not_ok "the generator gives $U User= from [profile.$P] user ="; echo "User=$user" | r_diag
             ls -R /run/systemd/generator 2>&1 | grep -i botdesk | r_diag; return; fi

        out=$(timeout 60 systemctl start "$U" 2>&1)
        st=$?
        if [ $st = 0 ]; then r_ok "systemctl start $U (as root) returns 0"
        else r_not_ok "systemctl start $U (as root) returns 0"
             { echo "$out"; systemctl status --no-pager "$U"; journalctl -b --no-pager -n 60; } 2>&1 | r_diag; return; fi

        n=$(grep -l "^profile=$P\$" /run/botdesk/reservations/* 2>/dev/null | head -1)
        if [ -n "$n" ]; then r_ok "a reservation of profile $P exists: $n ($(head -1 "$n" | tr -d '\n'), the unit's MainPID is $(systemctl show -p MainPID --value "$U"))"
        else r_not_ok "a reservation of profile $P exists in /run/botdesk/reservations"; ls -l /run/botdesk/reservations 2>&1 | r_diag; fi

        out=$(timeout 60 systemctl start "$LU" 2>&1)
        if [ $? = 0 ]; then r_ok "systemctl start $LU (as root) returns 0"
        else r_not_ok "systemctl start $LU (as root) returns 0"
             { echo "$out"; systemctl status --no-pager "$LU"; } 2>&1 | r_diag; fi

        # A second user: neither the socket nor the directory leading to it.
        id "$SECOND_USER" >/dev/null 2>&1 || useradd -M -u 1001 -s /usr/sbin/nologin "$SECOND_USER"
        out=$(setpriv --reuid="$SECOND_USER" --regid="$SECOND_USER" --init-groups python3 -c '
import errno, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno)); sys.exit(0)
print("connected"); sys.exit(1)' "/run/user/1000/botdesk/$P/rfb.sock" 2>&1)
        if [ "$out" = EACCES ]; then r_ok "another user ($SECOND_USER) cannot connect to the test user's rfb.sock (EACCES)"
        else r_not_ok "another user ($SECOND_USER) cannot connect to the test user's rfb.sock (EACCES)"; echo "$out" | r_diag; fi
        out=$(stat -c '%a %U' "/run/user/1000/botdesk/$P/rfb.sock" 2>&1)
        if [ "$out" = "600 $(id -un 1000)" ]; then r_ok "rfb.sock is 0600 and the test user's"
        else r_not_ok "rfb.sock is 0600 and the test user's"; echo "$out" | r_diag; fi
}

# ---- as root, after --------------------------------------------------------------------------
root_after() {
        timeout 60 systemctl stop "$U" "$LU" >/dev/null 2>&1
        systemctl reset-failed "$U" "$LU" >/dev/null 2>&1
        . /botdesk-tests/root-tap.sh
        root_config_restore "$STATE"
        rm -rf -- "${STATE:?}"
        # Nothing of the tier may be left: no session of service botdesk.
        for s in $(loginctl list-sessions --no-legend 2>/dev/null | awk '{ print $1 }'); do
                if [ "$(loginctl show-session "$s" -p Service --value 2>/dev/null)" = botdesk ]; then
                        echo "session $s of service botdesk is still there:"
                        loginctl show-session "$s"
                        exit 1
                fi
        done
        exit 0
}

case "${1:-}" in
--root-before) root_before; exit 0;;
--root-after) root_after;;
esac

# ---- as the test user ------------------------------------------------------------------------
. /botdesk-tests/lib.sh

# system-level unit properties (lib.sh's prop is for the user manager)
sprop() { systemctl show -p "$2" --value "$1"; }
# unit_session UNIT: the id of the logind session whose leader is UNIT's main process.
unit_session() {
        local s main
        main=$(sprop "$1" MainPID)
        [ "$main" != 0 ] || return 1
        for s in $(loginctl list-sessions --no-legend | awk '{ print $1 }'); do
                [ "$(loginctl show-session "$s" -p Leader --value)" = "$main" ] && { echo "$s"; return 0; }
        done
        return 1
}
# scope_pids ID: every process of session ID's scope.
scope_pids() { cg_pids "$CG2/user.slice/user-$(id -u).slice/session-$1.scope"; }

root_tap_relay "$ROOT_TAP" "systemctl start $U"

# ---- the session logind registered -----------------------------------------------------------
sid=$(unit_session "$U")
pass $? "logind has a session led by the main process of $U (${sid:-none})" "$(loginctl list-sessions 2>&1)" || t_done
declare -A want=([Type]=x11 [Class]=user [Desktop]=botdesk [Service]=botdesk [State]=active [Name]="$(id -un)")
for k in Type Class Desktop Service State Name; do
        is "loginctl show-session $sid: $k=${want[$k]}" "$(loginctl show-session "$sid" -p "$k" --value)" "${want[$k]}"
done
disp=$(loginctl show-session "$sid" -p Display --value)
pass "$([[ $disp =~ ^:[0-9]+$ ]]; echo $?)" "loginctl show-session $sid: Display=:N ($disp)"
main=$(sprop "$U" MainPID)
is "the session's leader is the unit's main process, the helper" "$(loginctl show-session "$sid" -p Leader --value)" "$main"
check "the helper runs in session-$sid.scope" grep -q "session-$sid.scope" "/proc/$main/cgroup"
is "the helper got BOTDESK_DISPLAY from pam_botdesk" \
        "$(tr '\0' '\n' < "/proc/$main/environ" | sed -n 's/^BOTDESK_DISPLAY=//p')" "${disp#:}"

# ---- the desktop and botdesk lookup ----------------------------------------------------------
out=$(display_works "$P" 2>&1)
pass $? "eval \"\$(botdesk env $P)\"; xdpyinfo works ($out)" "$out"
is "the published DISPLAY is the session's display" "$out" "$disp"

json=$(botdesk lookup "$P" --json 2>&1)
pass $? "botdesk lookup $P --json finds it" "$json"
is "lookup: session" "$(json_get session <<<"$json")" "$sid"
is "lookup: display" "$(json_get display <<<"$json")" "$disp"
is "lookup: state" "$(json_get state <<<"$json")" active
is "lookup: scope" "$(json_get scope <<<"$json")" "session-$sid.scope"
is "lookup: leader" "$(json_get leader <<<"$json")" "$main"
out=$(botdesk lookup "$P" 2>&1)
pass $? "botdesk lookup $P (text) exits 0" "$out"
botdesk lookup nosuchprofile >/dev/null 2>&1
is "botdesk lookup of a profile without a session exits 4" "$?" 4
json=$(botdesk status --json "$P" 2>&1)
is "status --json: placement is session" "$(json_get placement <<<"$json")" session
is "status --json: session is the logind session" "$(json_get session <<<"$json")" "$sid"

# ---- SIGKILL of the helper: the close hook reaps the scope, the unit restarts -----------------
old_sid=$sid old_main=$main
old_pids=$(scope_pids "$old_sid")
echo "# generation 1: session $old_sid, helper $old_main, processes: $(echo $old_pids)"
restarts=$(sprop "$U" NRestarts)
check "SIGKILL to the helper ($old_main), from its own user" kill -KILL "$old_main"
out=$(wait_gone 10 $old_pids)
pass $? "every process of session $old_sid is gone (pam_botdesk's close emptied the scope)" "$out"
for _ in $(seq 300); do
        [ "$(sprop "$U" NRestarts)" != "$restarts" ] && [ "$(sprop "$U" ActiveState)" = active ] && break
        sleep 0.05
done
is "the unit restarted on its own and is active" "$(sprop "$U" ActiveState)" active
sid=$(unit_session "$U")
pass "$([ -n "$sid" ] && [ "$sid" != "$old_sid" ]; echo $?)" "a new session replaced the old one ($old_sid -> ${sid:-none})"
out=$(survivors $old_pids)
pass "$([ -z "$out" ]; echo $?)" "no process of the old generation is alive" "$out"
check "the old scope is gone or empty" cg_empty "$CG2/user.slice/user-$(id -u).slice/session-$old_sid.scope"
out=$(display_works "$P" 2>&1)
pass $? "the new desktop works ($out)" "$out"
json=$(botdesk lookup "$P" --json 2>&1)
is "botdesk lookup finds the new session" "$(json_get session <<<"$json")" "$sid"

# ---- a leftover whose close hook never ran: the next open kills its session -----------------
# Profile "left" runs a command that leaves a process of its own (setsid) in
# the scope. With its (sd-pam) SIGKILLed first, the helper's death runs no
# close hook: the session stays with that process alive, until the unit's
# restart opens a new session, which must kill it.
lsid=$(botdesk lookup "$L" --json 2>/dev/null | json_get session)
pass "$([ -n "$lsid" ]; echo $?)" "botdesk lookup $L finds the session of $LU (${lsid:-none})" || t_done
scope=$CG2/user.slice/user-$(id -u).slice/session-$lsid.scope
sdpam=$(comm_pid "$scope" "(sd-pam)")
pass $? "systemd's (sd-pam), which runs the close hook, is in session $lsid's scope (pid ${sdpam:-none})" \
        "$(cat "$scope/cgroup.procs" 2>/dev/null | xargs -r ps -o pid,comm -p)"
lmain=$(sprop "$LU" MainPID)
lpids=$(scope_pids "$lsid")
echo "# session $lsid: helper $lmain, (sd-pam) $sdpam, processes: $(echo $lpids)"
restarts=$(sprop "$LU" NRestarts)
check "SIGKILL to (sd-pam) $sdpam, then to the helper $lmain" kill -KILL ${sdpam:-0} "$lmain"
out=$(wait_gone 5 "$lmain" ${sdpam:-})
pass $? "the helper and (sd-pam) are gone" "$out"
left=$(survivors $lpids)
pass "$([ -n "$left" ]; echo $?)" "without a close hook, processes of session $lsid outlive the helper ($(echo $left))"
is "logind still has session $lsid" "$(loginctl show-session "$lsid" -p Id --value 2>/dev/null)" "$lsid"
for _ in $(seq 300); do
        [ "$(sprop "$LU" NRestarts)" != "$restarts" ] && [ "$(sprop "$LU" ActiveState)" = active ] && break
        sleep 0.05
done
is "$LU restarted on its own and is active" "$(sprop "$LU" ActiveState)" active
out=$(survivors $lpids)
pass "$([ -z "$out" ]; echo $?)" "the new open killed the leftover session $lsid: none of its processes is alive" "$out"
check "the journal says pam_botdesk killed session $lsid" \
        bash -c 'journalctl -b --no-pager -q -g "Killing the leftover session $1 " | grep -q pam_botdesk' - "$lsid"
nsid=$(botdesk lookup "$L" --json 2>/dev/null | json_get session)
pass "$([ -n "$nsid" ] && [ "$nsid" != "$lsid" ]; echo $?)" "a new session of $L replaced it ($lsid -> ${nsid:-none})"
# Its owner may end it (stopping the system unit would need polkit).
check "loginctl terminate-session $nsid ends $L's desktop" loginctl terminate-session "$nsid"

# ---- loginctl terminate-session: nothing of the session is left ------------------------------
pids=$(scope_pids "$sid")
echo "# generation 2: session $sid, processes: $(echo $pids)"
check "loginctl terminate-session $sid (as its owner)" loginctl terminate-session "$sid"
out=$(wait_gone 15 $pids)
pass $? "terminate-session leaves no process of session $sid" "$out"
for _ in $(seq 300); do
        case "$(sprop "$U" ActiveState)" in inactive|failed) break;; esac
        sleep 0.05
done
is "the unit is inactive after its session was terminated" "$(sprop "$U" ActiveState)" inactive
botdesk lookup "$P" >/dev/null 2>&1
is "botdesk lookup exits 4 once the session is gone" "$?" 4
t_done
