#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The guest half of vm-test.sh: runs as root from a oneshot unit once the
# guest is up, prints "ok - ..."/"not ok - ..." lines and "# ..." notes
# between @@BEGIN and @@END on the serial console, and every AVC line of the
# boot as "@@AVC ...". With --as-user it is the part that runs as the test
# user inside a logind session (systemd-run -p PAMName=login).

P=work          # user-unit profile
S=sess          # logind-tier profile ([profile.sess] user = tester)

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
note() { sed 's/^/# /'; }
now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
label_of_pid() { ps -o label= -p "$1" 2>/dev/null | tr -d ' '; }
type_of() { local c; c=$(ls -Zd "$1" 2>/dev/null | awk '{ print $1 }'); c=${c#*:*:}; echo "${c%%:*}"; }
is_type() { # is_type DESC PATH TYPE
        local t; t=$(type_of "$2")
        if [ "$t" = "$3" ]; then ok "$1"; else not_ok "$1"; echo "$2 is ${t:-missing}, expected $3" | note; fi
}
pid_in_domain() { # pid_in_domain DESC PID TYPE
        local l; l=$(label_of_pid "$2")
        if [ -n "$2" ] && [ "$2" != 0 ] && [[ $l == *:"$3":* ]]; then ok "$1 ($l)"
        else not_ok "$1"; echo "pid '${2}' has label '${l}'" | note; ps -eZ | grep -v ' \[' | note; fi
}

as_user() {
        local t json pid x ok_start=1 u
        u=$(id -Z | cut -d: -f1)
        # Every line names the SELinux user: unconfined_u (the default login
        # mapping, user manager in unconfined_t) or user_u (user_t, user
        # manager in user_systemd_t).
        ok() { echo "ok - $u: $*"; }
        not_ok() { echo "not ok - $u: $*"; }
        echo "$(id -un) runs as $(id -Z) in session ${XDG_SESSION_ID:-?}, XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-unset}" | note
        cd "$HOME" || { ls -ldZ / /home "$HOME"; id; } 2>&1 | note
        # A key of the per-user botdesk.ini that reaches the X server: the
        # helper must see HOME (no AT_SECURE from the domain transition).
        mkdir -p "$HOME/.config/botdesk"
        printf '[display]\ngeometry = 1024x768\n' > "$HOME/.config/botdesk/botdesk.ini"
        t=$(now)
        if systemctl --user start "botdesk@$P.service" 2>&1 | note; [ "${PIPESTATUS[0]}" = 0 ]; then
                ok "the user unit botdesk@$P starts a desktop ($(since "$t") s under TCG)"
        else
                ok_start=0
                not_ok "the user unit botdesk@$P starts a desktop"
                { systemctl --user status --no-pager "botdesk@$P.service"; cat "$XDG_RUNTIME_DIR/botdesk/$P/last-error"; } 2>&1 | note
        fi
        json=$(botdesk status --json "$P" 2>&1)
        if grep -Eq '"running": ?true' <<<"$json"; then ok "botdesk status --json $P says running"
        else not_ok "botdesk status --json $P says running"; echo "$json" | note; fi
        pid=$(systemctl --user show -p MainPID --value "botdesk@$P.service")
        pid_in_domain "the helper of the user unit runs in botdesk_t" "$pid" botdesk_t
        x=$(pgrep -u "$(id -u)" -x Xtigervnc | head -1)
        pid_in_domain "its Xtigervnc runs in botdesk_t" "$x" botdesk_t
        x=$(pgrep -u "$(id -u)" -x xfwm4 | head -1)
        pid_in_domain "its xfwm4 runs in botdesk_t" "$x" botdesk_t
        is_type "the runtime directory is botdesk_runtime_t" "$XDG_RUNTIME_DIR/botdesk" botdesk_runtime_t
        is_type "the RFB socket is botdesk_runtime_t" "$XDG_RUNTIME_DIR/botdesk/$P/rfb.sock" botdesk_runtime_t
        is_type "the state directory is botdesk_home_t" "$HOME/.local/state/botdesk" botdesk_home_t
        is_type "~/.local (created for the state directory) is xdg_data_t" "$HOME/.local" xdg_data_t
        if [ "$ok_start" = 1 ] && botdesk thumbnail "$P" -o "$HOME/thumb.png" 2>&1 | note && [ -s "$HOME/thumb.png" ]; then
                ok "botdesk thumbnail (MIT-SHM/memfd from the user domain) writes a PNG"
        else not_ok "botdesk thumbnail (MIT-SHM/memfd from the user domain) writes a PNG"; fi
        x=$( (eval "$(botdesk env "$P")" && xdpyinfo) 2>&1)
        if grep -q 'dimensions: *1024x768 ' <<<"$x"; then
                ok "a client in the user domain reaches the X server, whose geometry comes from ~/.config/botdesk/botdesk.ini"
        else not_ok "a client in the user domain reaches the X server, whose geometry comes from ~/.config/botdesk/botdesk.ini"
             grep -i 'dimensions\|unable\|error' <<<"$x" | head -5 | note; fi
        t=$(now)
        if systemctl --user stop "botdesk@$P.service" 2>&1 | note; [ "${PIPESTATUS[0]}" = 0 ] &&
           ! pgrep -u "$(id -u)" -x Xtigervnc >/dev/null; then
                ok "systemctl --user stop botdesk@$P leaves no X server ($(since "$t") s)"
        else not_ok "systemctl --user stop botdesk@$P leaves no X server"; ps -eZ | grep -v ' \[' | note; fi

        # Standalone mode: the CLI itself starts the helper (the user
        # domain's own transition to botdesk_t).
        t=$(now)
        if BOTDESK_PLACEMENT=standalone botdesk start solo 2>&1 | note; [ "${PIPESTATUS[0]}" = 0 ]; then
                ok "botdesk start (standalone) starts a desktop ($(since "$t") s)"
        else not_ok "botdesk start (standalone) starts a desktop"; cat "$XDG_RUNTIME_DIR/botdesk/solo/last-error" 2>&1 | note; fi
        json=$(botdesk status --json solo 2>&1)
        pid=$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' <<<"$json")
        pid_in_domain "the standalone helper runs in botdesk_t" "$pid" botdesk_t
        if botdesk stop solo 2>&1 | note; [ "${PIPESTATUS[0]}" = 0 ] && ! pgrep -u "$(id -u)" -x Xtigervnc >/dev/null; then
                ok "botdesk stop (standalone) leaves no X server"
        else not_ok "botdesk stop (standalone) leaves no X server"; ps -eZ | grep -v ' \[' | note; fi
}

# as_login USER: run the user part as USER in a logind session of its own.
as_login() {
        local st
        # No start timeout of systemd's (90 s): under TCG on a busy host the
        # login session alone took most of it. The guest as a whole is bounded
        # by vm-test.sh's qemu timeout.
        systemd-run --wait --pipe -q --service-type=exec -p PAMName=login -p "User=$1" -p TimeoutStartSec=infinity \
                /usr/local/bin/botdesk-vm-guest --as-user </dev/null 2>&1 | cat
        st=${PIPESTATUS[0]}
        if [ "$st" != 0 ]; then
                not_ok "the part of $1 ran (systemd-run exit status $st)"
                journalctl -b --no-pager -n 40 2>&1 | note
        fi
}

as_root() {
        local t pid x st avc mine
        exec > /dev/ttyS0 2>&1
        echo "@@BEGIN"
        if [ "$(cat /sys/fs/selinux/enforce 2>/dev/null)" = 0 ]; then ok "SELinux is on, permissive ($(cat /proc/cmdline))"
        else not_ok "SELinux is on, permissive"; ls /sys/fs/selinux 2>&1 | head -3 | note; fi
        echo "booted in $(cut -d' ' -f1 /proc/uptime) s" | note
        is_type "the helper is botdesk_exec_t" /usr/libexec/botdesk-helper botdesk_exec_t
        is_type "/etc/botdesk.ini is botdesk_conf_t" /etc/botdesk.ini botdesk_conf_t
        is_type "tmpfiles.d creates /run/botdesk as botdesk_var_run_t" /run/botdesk botdesk_var_run_t
        is_type "tmpfiles.d creates /run/botdesk/alloc.lock as botdesk_var_run_t" /run/botdesk/alloc.lock botdesk_var_run_t
        is_type "tmpfiles.d creates /run/botdesk/display-claims as botdesk_claims_t" /run/botdesk/display-claims botdesk_claims_t

        # The user unit, as the test users in logind sessions with their user
        # managers: tester is unconfined_u, tester2 is user_u.
        as_login tester
        as_login tester2

        # The logind tier: PID 1 runs the PAM stack (pam_botdesk in init_t),
        # then executes the helper as the user.
        t=$(now)
        if timeout 300 systemctl start "botdesk-session@$S.service" 2>&1 | note; [ "${PIPESTATUS[0]}" = 0 ]; then
                ok "the logind tier botdesk-session@$S starts a desktop ($(since "$t") s)"
        else not_ok "the logind tier botdesk-session@$S starts a desktop"
             systemctl status --no-pager "botdesk-session@$S.service" 2>&1 | note; fi
        pid=$(systemctl show -p MainPID --value "botdesk-session@$S.service")
        pid_in_domain "the helper of the logind tier runs in botdesk_t" "$pid" botdesk_t
        x=$(ls /run/botdesk/reservations/ 2>/dev/null | head -1)
        if [ -n "$x" ]; then is_type "pam_botdesk's reservation is botdesk_var_run_t" "/run/botdesk/reservations/$x" botdesk_var_run_t
        else not_ok "pam_botdesk records a reservation under /run/botdesk/reservations"; fi
        loginctl list-sessions --no-legend 2>&1 | note
        t=$(now)
        if systemctl stop "botdesk-session@$S.service" 2>&1 | note; [ "${PIPESTATUS[0]}" = 0 ] &&
           ! pgrep -x Xtigervnc >/dev/null; then ok "stopping botdesk-session@$S leaves no X server ($(since "$t") s)"
        else not_ok "stopping botdesk-session@$S leaves no X server"; ps -eZ | grep -v ' \[' | note; fi

        # Every denial of the boot. Permissive mode logs each one once.
        sleep 1
        avc=$(journalctl -b --no-pager -o cat 2>/dev/null | grep -aE 'avc: +denied' | sort -u)
        st=$(journalctl -b --no-pager -o cat 2>/dev/null | grep -acE 'backlog limit exceeded|audit: .*suppressed|lost=[1-9]')
        [ -n "$avc" ] && sed 's/^/@@AVC /' <<<"$avc"
        # The audit records around them (SYSCALL: which call, which exe).
        [ -e /etc/botdesk-vm-debug ] && journalctl -b --no-pager -o cat _TRANSPORT=audit 2>/dev/null |
                grep -a 'botdesk' | sed 's/^/@@AUD /'
        mine=$(grep -E '[st]context=[^ ]*:botdesk_' <<<"$avc")
        if [ -z "$mine" ]; then ok "no AVC denial names a botdesk type ($(grep -c . <<<"$avc") denials elsewhere)"
        else not_ok "no AVC denial names a botdesk type"; head -100 <<<"$mine" | note; fi
        [ "$st" = 0 ] || echo "the journal reports lost or suppressed audit records ($st lines)" | note
        echo "@@END"
}

if [ "${1:-}" = --as-user ]; then
        as_user
else
        as_root
fi
