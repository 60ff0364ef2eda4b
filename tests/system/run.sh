#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The system tier (meson test --suite system): boots ONE container with a real
# systemd (see harness.sh), installs botdesk into it, runs every t-*.sh of
# this folder there as the test user in a logind session, and prints one TAP
# stream. A script's "ok"/"not ok" lines are numbered here; a script that
# exits non-zero without a "not ok" of its own gets one. On a failure the
# container's journal since that script started is added as "#" lines.
#
# Environment: BOTDESK_SOURCE_DIR, BOTDESK_BUILD_DIR (set by meson);
# BOTDESK_SYSTEM_TESTS="t-kill t-cli" runs only those scripts;
# BOTDESK_SYSTEM_BENCH=1 also runs bench-*.sh (timings as "#" lines).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export BOTDESK_SOURCE_DIR=${BOTDESK_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
export BOTDESK_BUILD_DIR=${BOTDESK_BUILD_DIR:?BOTDESK_BUILD_DIR must name the meson build dir}
. "$here/harness.sh"

N=0 FAILED=0 TIER_T0=$(hx_now)
tap() { # tap STATUS DESC (a DESC of several lines is folded into one: a TAP line is one line)
        N=$((N + 1))
        if [ "$1" = 0 ]; then echo "ok $N - ${2//$'\n'/ }"; else echo "not ok $N - ${2//$'\n'/ }"; FAILED=1; fi
}
bail() { echo "Bail out! $*"; exit 1; }

if ! hx_check_host; then
        echo "1..0 # SKIP $HX_SKIP_REASON"
        exit 0
fi
trap 'hx_shutdown' EXIT
trap 'exit 130' INT TERM
hx_init || bail "cannot create a temporary directory"

t=$(hx_now)
cached=1
[ "${BOTDESK_TEST_REBUILD:-0}" = 1 ] && cached=0
log=$(hx_rootfs 2>&1 >/dev/null; echo "HX_ROOT=$HX_ROOT")
grep -q 'building rootfs' <<<"$log" && cached=0
HX_ROOT=$(sed -n 's/^HX_ROOT=//p' <<<"$log")
if [ -z "$HX_ROOT" ] || [ ! -e "$HX_ROOT/.botdesk-test-ok" ]; then
        tap 1 "setup: build the container's root file system"
        grep -v '^HX_ROOT=' <<<"$log" | tail -50 | sed 's/^/# /'
        bail "no root file system"
fi
grep '^\[system' <<<"$log" | sed 's/^/# /'
tap 0 "setup: root file system $HX_ROOT ($([ $cached = 1 ] && echo cached || echo built) in $(hx_elapsed "$t") s)"

t=$(hx_now)
log=$(hx_stage 2>&1 >/dev/null; echo "HX_STAGE=$HX_STAGE")
HX_STAGE=$(sed -n 's/^HX_STAGE=//p' <<<"$log")
if [ -z "$HX_STAGE" ] || [ ! -x "$HX_STAGE/usr/libexec/botdesk-helper" ]; then
        tap 1 "setup: build botdesk for /usr and stage its installation"
        grep -v '^HX_STAGE=' <<<"$log" | tail -50 | sed 's/^/# /'
        bail "botdesk does not build"
fi
tap 0 "setup: botdesk built and staged ($(hx_elapsed "$t") s)"

# bpf(): nspawn's seccomp filter refuses it by default, and with it systemd's IP
# firewall (IPAddressDeny=), which [network] is made of (t-network.sh).
hx_boot --bind-ro="$HX_STAGE":/botdesk-stage --bind-ro="$here":/botdesk-tests --system-call-filter=bpf 2>"$HX_TMP/boot.err"
st=$?
log=$(cat "$HX_TMP/boot.err")
if [ $st != 0 ]; then
        tap 1 "setup: boot the container"
        sed 's/^/# /' <<<"$log"
        bail "the container does not boot"
fi
tap 0 "setup: container booted with systemd, logind and user managers ($HX_BOOT_SECONDS s)"
grep '^# degraded' <<<"$log"

out=$(hx_root bash -c '
        set -e
        cp -a /botdesk-stage/. /
        printf "[resources]\nmin_free_memory_mb = 0\n" > /etc/botdesk.ini
        test -x /usr/libexec/botdesk-helper
        test -f /usr/lib/systemd/user/botdesk@.service
        command -v botdesk' 2>&1)
st=$?
tap $st "setup: botdesk installed into the container, /etc/botdesk.ini written"
[ $st = 0 ] || { sed 's/^/# /' <<<"$out"; bail "cannot install botdesk into the container"; }

# run_script PATH [KIND]: run one script as the test user, number its TAP lines.
run_script() {
        local path=$1 name rc=0 line desc any=0 bad=0 before after t0 wall user uid
        name=$(basename "$path" .sh)
        # "# as-user: root": a script that needs a privileged user manager (root's, user@0.service).
        user=$(sed -n 's/^# as-user: //p' "$path")
        user=${user:-$HX_USER}
        uid=$(hx_root id -u "$user")
        before=$(sed -n 's/^# root-before: //p' "$path")
        after=$(sed -n 's/^# root-after: //p' "$path")
        t0=$(date +%s) wall=$(hx_now)
        echo "# --- $name"
        if [ -n "$before" ]; then
                if ! out=$(hx_root bash -c "$before" 2>&1); then
                        tap 1 "$name: root-before: $before"
                        sed 's/^/# /' <<<"$out"
                        [ -n "$after" ] && hx_root bash -c "$after" >/dev/null 2>&1
                        return
                fi
        fi
        while IFS= read -r line; do
                case "$line" in
                "@@botdesk-rc "*) rc=${line#@@botdesk-rc };;
                "not ok"|"not ok "*|"Bail out!"*)
                        desc=$(sed -E 's/^(not ok( [0-9]+)?( -)?|Bail out!) ?//' <<<"$line")
                        any=1 bad=1
                        tap 1 "$name: $desc";;
                "ok"|"ok "*)
                        desc=$(sed -E 's/^ok( [0-9]+)?( -)? ?//' <<<"$line")
                        any=1
                        tap 0 "$name: $desc";;
                "#"*) echo "$line";;
                "1..0 # SKIP"*|"1..0 # skip"*)
                        any=1
                        tap 0 "$name # SKIP ${line#1..0 # [Ss][Kk][Ii][Pp]}";;
                "1.."*) ;;
                *) echo "# $line";;
                esac
        done < <(HX_USER=$user hx_user "$name" 900 /bin/bash -c 'exec 2>&1; exec /bin/bash "$0"' "/botdesk-tests/$name.sh"
                 echo "@@botdesk-rc $?")
        if [ "$rc" != 0 ] && [ $bad = 0 ]; then
                tap 1 "$name: exited with status $rc"
                bad=1
        elif [ $any = 0 ]; then
                tap 1 "$name: printed no result"
                bad=1
        fi
        # Every script gets a fresh user manager and runtime dir: end this
        # one's, then nothing of the test user may remain.
        hx_root bash -c '
                loginctl terminate-user "$1" 2>/dev/null
                for _ in $(seq 300); do
                        systemctl is-active -q user@$2.service || [ -e /run/user/$2 ] || exit 0
                        sleep 0.05
                done
                echo "user@$2.service or /run/user/$2 still there after 15 s"' - "$user" "$uid"
        # root's own processes (PID 1, the journal) are not the script's: what its user manager ran is.
        if [ "$user" = root ]; then
                out=$(hx_root bash -c 'grep -l "user@0.service" /proc/[0-9]*/cgroup 2>/dev/null | cut -d/ -f3 |
                                       xargs -r ps -o pid=,stat=,args= -p' 2>&1)
        else
                out=$(hx_root ps -u "$user" -o pid=,stat=,args= 2>&1)
        fi
        if [ -n "$out" ]; then
                tap 1 "$name: no process of $user outlives its user manager"
                sed 's/^/# /' <<<"$out"
                bad=1
        fi
        if [ -n "$after" ]; then
                out=$(hx_root bash -c "$after" 2>&1) ||
                        { tap 1 "$name: root-after: $after"; sed 's/^/# /' <<<"$out"; }
        fi
        echo "# $name took $(hx_elapsed "$wall") s"
        if [ $bad = 1 ]; then
                echo "# journal of the container since $name started (last 200 lines):"
                hx_root journalctl -b --no-pager --since "@$t0" 2>&1 | tail -200 | sed 's/^/#   /'
        fi
}

want=${BOTDESK_SYSTEM_TESTS:-}
for path in "$here"/t-*.sh; do
        name=$(basename "$path" .sh)
        if [ -n "$want" ] && ! grep -qw -- "$name" <<<"$want"; then
                continue
        fi
        run_script "$path"
done
if [ "${BOTDESK_SYSTEM_BENCH:-0}" = 1 ]; then
        for path in "$here"/bench-*.sh; do
                [ -e "$path" ] || continue
                echo "# --- $(basename "$path" .sh)"
                hx_user "$(basename "$path" .sh)" 1800 /bin/bash -c 'exec 2>&1; exec /bin/bash "$0"' \
                        "/botdesk-tests/$(basename "$path")" | sed 's/^/# /'
        done
fi

hx_shutdown 2>/dev/null
echo "# whole tier: $(hx_elapsed "$TIER_T0") s"
echo "1..$N"
exit $FAILED
