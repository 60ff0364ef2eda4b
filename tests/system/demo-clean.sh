#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The newcomer's first command, in a clean container (meson test demo-clean):
# a systemd container (harness.sh) where botdesk is not installed and no
# build dir exists, the checkout's tracked files copied into the test user's
# home, and there, in a logind session, `sudo scripts/demo.sh` as the README
# says. It must install what is missing with apt, build, install, start
# desktop "demo" and end on the Tunnel and Open lines. Then what they say is
# done from the host: the tunnel to the printed socket (socat run inside the
# container as the user, as ssh -L would be: the socket's 0600 and botdesk
# web's peer checks see that user), and the printed URL opened in headless
# Chromium (tests/integration/web_client.py), whose page must show the
# desktop; the same URL in a fresh browser profile gets 403.
#
# The container shares the host's network (apt runs in it) and writes to an
# overlay over the cached root whose upper dir is a scratch dir under the
# build dir, on disk: the build dependencies and the build are too large for
# RAM. To keep the test fast, the cached root already holds the desktop's
# runtime packages (the system tier's list) plus sudo and socat; every build
# dependency, and the runtime packages botdesk's tier root lacks (noVNC
# among them), are demo.sh's to install.
#
# Needs root; prints "1..0 # SKIP reason" when it cannot run (a failure
# under CI=true). Environment: BOTDESK_SOURCE_DIR, BOTDESK_BUILD_DIR (meson).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export BOTDESK_SOURCE_DIR=${BOTDESK_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
export BOTDESK_BUILD_DIR=${BOTDESK_BUILD_DIR:?BOTDESK_BUILD_DIR must name the meson build dir}
src=$BOTDESK_SOURCE_DIR

# The root: the tier's packages, sudo and socat, the test user allowed to sudo.
HX_ROOT_EXTRA="sudo socat"
HX_ROOT_HOOKS=("echo 'tester ALL=(ALL:ALL) NOPASSWD: ALL' > \"\$1/etc/sudoers.d/tester\" && chmod 0440 \"\$1/etc/sudoers.d/tester\"")
HX_PRIVATE_NETWORK=0
. "$here/harness.sh"

DEMO_TIMEOUT=${BOTDESK_DEMO_TIMEOUT:-900}
N=0 FAILED=0 T0=$(hx_now)
tap() { # tap STATUS DESC (a DESC of several lines is folded into one: a TAP line is one line)
        N=$((N + 1))
        if [ "$1" = 0 ]; then echo "ok $N - ${2//$'\n'/ }"; else echo "not ok $N - ${2//$'\n'/ }"; FAILED=1; fi
}
diag() { sed 's/^/# /'; }
skip_all() {
        if [ "${CI:-}" = true ]; then
                echo "not ok 1 - $1 (CI=true: a missing prerequisite fails; scripts/install-deps.sh --tests installs the packages)"
                echo "1..1"
                exit 1
        fi
        echo "1..0 # SKIP $1"
        exit 0
}
finish() { echo "# whole test: $(hx_elapsed "$T0") s"; echo "1..$N"; exit "$FAILED"; }
bail() { echo "Bail out! $*"; exit 1; }

hx_check_host || skip_all "$HX_SKIP_REASON"
command -v git >/dev/null && git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
        skip_all "$src is not a git checkout (the newcomer's copy is git's tracked files)"
[ -x /usr/lib/chromium/chromium ] || command -v chromium >/dev/null 2>&1 || skip_all "chromium not installed"

SCRATCH="" RUNPID="" CHROMIUM=()
cleanup() {
        local IFS=$' \t\n' p
        set +e
        for p in "${CHROMIUM[@]}"; do
                # Each browser is a session (and process group) of its own, led by this pid.
                hx_alive "$p" && kill -KILL -- "-$p" 2>/dev/null
        done
        hx_shutdown
        if [ -n "$RUNPID" ]; then
                hx_alive "$RUNPID" && kill -TERM "$RUNPID" 2>/dev/null
                wait "$RUNPID" 2>/dev/null
        fi
        case "$SCRATCH" in
        "$BOTDESK_BUILD_DIR"/demo-clean.*) rm -rf -- "${SCRATCH:?}" ;;
        esac
}
trap cleanup EXIT
trap 'exit 130' INT TERM
hx_init || bail "cannot create a temporary directory"
SCRATCH=$(mktemp -d "$BOTDESK_BUILD_DIR/demo-clean.XXXXXX") || bail "cannot create a scratch dir in $BOTDESK_BUILD_DIR"
HX_OVERLAY=$SCRATCH/overlay

# ---- the clean container ------------------------------------------------------------------------
t=$(hx_now)
log=$(hx_rootfs 2>&1 >/dev/null; echo "HX_ROOT=$HX_ROOT")
HX_ROOT=$(sed -n 's/^HX_ROOT=//p' <<<"$log")
if [ -z "$HX_ROOT" ] || [ ! -e "$HX_ROOT/.botdesk-test-ok" ]; then
        tap 1 "setup: build the container's root file system"
        grep -v '^HX_ROOT=' <<<"$log" | tail -50 | diag
        bail "no root file system"
fi
grep '^\[system' <<<"$log" | diag
tap 0 "setup: root file system $HX_ROOT ($(grep -q 'building rootfs' <<<"$log" && echo built || echo cached) in $(hx_elapsed "$t") s)"

hx_boot 2>"$HX_TMP/boot.err"
st=$?
if [ $st != 0 ]; then
        tap 1 "setup: boot the container (host network, overlay on disk)"
        diag <"$HX_TMP/boot.err"
        bail "the container does not boot"
fi
tap 0 "setup: container booted with the host's network, its writes on disk in $SCRATCH ($HX_BOOT_SECONDS s)"

out=$(hx_root bash -c '
        ! command -v botdesk && ! test -e /usr/local/bin/botdesk && ! test -e /usr/bin/botdesk &&
        ! dpkg-query -W -f="\${Status}\n" meson gcc libsystemd-dev 2>/dev/null | grep -q "install ok installed" &&
        sudo -l -U tester | grep -q NOPASSWD' 2>&1)
tap $? "setup: the container is clean (no botdesk, no meson, gcc or libsystemd-dev) and tester may sudo"
[ -n "$out" ] && diag <<<"$out"

# The newcomer's checkout: git's tracked files, as they are in the work tree.
t=$(hx_now)
git -C "$src" ls-files -z | (cd "$src" && tar --null -T - -cf - 2>"$HX_TMP/tar.err") |
        nsenter -t "$HX_LEADER" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
                runuser -u "$HX_USER" -- bash -c 'mkdir -p /home/$1/botdesk && tar -C /home/$1/botdesk -xf -' - "$HX_USER" 2>&1 | diag
st=$?
out=$(hx_root bash -c 'test -x ~tester/botdesk/scripts/demo.sh && test ! -e ~tester/botdesk/build &&
        find ~tester/botdesk -type f | wc -l' 2>&1)
[ $st = 0 ] && [ "${out:-0}" -gt 10 ] 2>/dev/null
tap $? "setup: the checkout's $(git -C "$src" ls-files | wc -l) tracked files are in ~$HX_USER/botdesk, no build dir ($(hx_elapsed "$t") s)"
[ -s "$HX_TMP/tar.err" ] && diag <"$HX_TMP/tar.err"

# ---- the first command -----------------------------------------------------------------------------
# In a logind session of the user, as after an ssh login. The session stays
# open once demo.sh is done, as the newcomer's login does while the browser
# watches: when its last session ends, logind stops the user's manager and
# with it botdesk-web.socket.
OUT=$HX_TMP/demo.out
t=$(hx_now)
hx_user demo "$((DEMO_TIMEOUT + 600))" /bin/bash -c '
        cd ~/botdesk || exit 1
        sudo scripts/demo.sh
        echo "@@demo-rc $?"
        exec sleep infinity' >"$OUT" 2>&1 &
RUNPID=$!
rc=""
end=$((SECONDS + DEMO_TIMEOUT))
while [ "$SECONDS" -lt "$end" ] && hx_alive "$RUNPID"; do
        rc=$(sed -n 's/^@@demo-rc //p' "$OUT")
        [ -n "$rc" ] && break
        sleep 0.5
done
DEMO_SECONDS=$(hx_elapsed "$t")
[ -n "$rc" ] || rc="none (it did not end within $DEMO_TIMEOUT s, or its session ended: waited for its exit status)"
is_rc=1
[ "$rc" = 0 ] && is_rc=0
tap $is_rc "sudo scripts/demo.sh exits 0 in the clean container (status $rc, $DEMO_SECONDS s)"
echo "# demo.sh took $DEMO_SECONDS s; install-deps.sh named $(sed -n 's/^install-deps: installing //p' "$OUT" | wc -w) missing packages; apt: $(grep -m1 'newly installed' "$OUT")"
if [ $is_rc != 0 ]; then
        echo "# its output (last 80 lines):"
        grep -v '^@@demo-rc' "$OUT" | tail -80 | diag
        if ! hx_alive "$RUNPID"; then
                wait "$RUNPID"
                echo "# its session's systemd-run ended with status $?"
        fi
        echo "# the container's journal (last 150 lines):"
        hx_root journalctl -b --no-pager -n 150 2>&1 | diag
fi
grep -q 'install-deps: installing .*meson' "$OUT"
tap $? "demo.sh installed the build dependencies itself (install-deps.sh: meson among them)"
out=$(hx_root bash -c 'test -x /usr/local/bin/botdesk && /usr/local/bin/botdesk --version' 2>&1)
tap $? "demo.sh built and installed botdesk ($out)"

tunnel=$(sed -n 's/^Tunnel: *//p' "$OUT" | tail -n1)
open=$(sed -n 's/^Open: *//p' "$OUT" | tail -n1)
grep -Eq '^http://127\.0\.0\.1:[0-9]+/demo/\?ticket=[0-9A-Za-z_-]+$' <<<"$open"
tap $? "demo.sh ends on the Open: line with the ticket URL of desktop demo ($open)"
# A user manager runs in the session: the socket unit, reached through ssh -L.
sock=$(sed -nE 's/^ssh -N -L ([0-9]+):(\/[^ ]+) ([^ @]+)@([^ ]+)$/\2/p' <<<"$tunnel")
lport=$(sed -nE 's/^ssh -N -L ([0-9]+):.*/\1/p' <<<"$tunnel")
[ -n "$sock" ] && [ "$sock" = "/run/user/1000/botdesk/web.sock" ] && [ "${open#http://127.0.0.1:"$lport"/}" != "$open" ]
tap $? "demo.sh chose botdesk-web.socket (the user's manager runs) and printed its tunnel (Tunnel: $tunnel)"
if [ -z "$open" ] || [ -z "$sock" ]; then
        grep -v '^@@demo-rc' "$OUT" | tail -30 | diag
        finish
fi

# ---- the tunnel and the browser ----------------------------------------------------------------------
# ssh -L LPORT:SOCK, as far as botdesk web can tell: a process of the user
# connecting to the socket. Any free port stands for LPORT, as a newcomer
# whose 6080 is taken would choose another.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
out=$(hx_root systemd-run --quiet --collect --unit=botdesk-demo-tunnel -p User="$HX_USER" --service-type=exec \
        socat "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$sock" 2>&1)
st=$?
if [ $st = 0 ]; then
        st=1
        for _ in $(seq 100); do
                python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' \
                        "$port" 2>/dev/null && { st=0; break; }
                sleep 0.1
        done
fi
tap $st "the tunnel: 127.0.0.1:$port to $sock, by socat as $HX_USER inside the container (waited up to 10 s for it to listen)"
[ $st = 0 ] || { diag <<<"$out"; finish; }

url=http://127.0.0.1:$port/${open#http://127.0.0.1:"$lport"/}
BROUT=$SCRATCH/browser
mkdir -p "$BROUT"
t=$(hx_now)
timeout 150 python3 "$here/demo_browser.py" "$url" "$BROUT" demo >"$BROUT/results.txt" 2>"$BROUT/driver.err" &
bpid=$!
# Chromium's pids, for the cleanup, as soon as they are known.
while hx_alive "$bpid"; do
        mapfile -t CHROMIUM < <(sed -n 's/^PID //p' "$BROUT/results.txt")
        [ "${#CHROMIUM[@]}" -ge 2 ] && break
        sleep 0.1
done
wait "$bpid"
brc=$?
mapfile -t CHROMIUM < <(sed -n 's/^PID //p' "$BROUT/results.txt")
while IFS= read -r line; do
        case $line in
        PASS\ *) tap 0 "browser: ${line#PASS }" ;;
        FAIL\ *) tap 1 "browser: ${line#FAIL }" ;;
        esac
done <"$BROUT/results.txt"
[ "$brc" = 0 ] || { tap 1 "the browser driver finishes (exit $brc)"; tail -n 15 "$BROUT/driver.err" | diag; }
echo "# the browser part took $(hx_elapsed "$t") s"
# What the first browser showed, kept beside meson's logs (the scratch dir goes).
if [ -s "$BROUT/page.png" ] && [ -d "$BOTDESK_BUILD_DIR/meson-logs" ]; then
        cp "$BROUT/page.png" "$BOTDESK_BUILD_DIR/meson-logs/demo-clean-page.png" &&
                echo "# the page, as the first browser showed it: $BOTDESK_BUILD_DIR/meson-logs/demo-clean-page.png"
fi

# ---- what demo.sh tells to do next, as it says it ----------------------------------------------------
# Its "Use it:" line, run as the user in a fresh directory of the container: every program it names must be
# one the demo installed.
use=$(sed -n 's/^Use it: *//p' "$OUT" | tail -n1)
out=$(hx_root runuser -u "$HX_USER" -- env PATH=/usr/local/bin:/usr/bin:/bin XDG_RUNTIME_DIR=/run/user/1000 \
        bash -ec 'cd "$(mktemp -d)"; eval "$1"; test -s shot.png' - "$use" 2>&1)
tap $? "demo.sh's Use it: line runs as printed, with only what the demo installed ($use)"
[ -z "$out" ] || diag <<<"$out"

# ---- the logind tier of this /usr/local install, as doc/deployment.md says ----------------------------
# The demo's build has the default prefix: pam_botdesk.so is in /usr/local, where libpam does not look
# for a bare module name, the unit and the generator in /usr/local/lib/systemd. A profile naming its
# user, a daemon-reload, and the system unit must give a logind session that lookup finds.
t=$(hx_now)
out=$(hx_root bash -c 'grep -E "^session +required +/usr/local/[^ ]*/pam_botdesk\.so$" /etc/pam.d/botdesk &&
        test -f "$(sed -nE "s/^session +required +(\/[^ ]*pam_botdesk\.so)$/\1/p" /etc/pam.d/botdesk)"' 2>&1)
st=$?
tap $st "/etc/pam.d/botdesk names pam_botdesk.so by the path the install put it at ($out)"
[ $st = 0 ] || hx_root grep -n pam_botdesk /etc/pam.d/botdesk 2>&1 | diag
out=$(hx_root bash -c 'mkdir -p /etc/botdesk/botdesk.ini.d &&
        printf "[profile.ltier]\nuser = %s\n" "$1" >/etc/botdesk/botdesk.ini.d/50-ltier.ini &&
        systemctl daemon-reload &&
        systemctl cat botdesk-session@ltier.service | grep -x "User=$1" &&
        timeout 90 systemctl start botdesk-session@ltier.service && systemctl is-active botdesk-session@ltier.service' - "$HX_USER" 2>&1)
st=$?
tap $st "systemctl start botdesk-session@ltier.service: the generator set User=$HX_USER and the unit is active ($(hx_elapsed "$t") s)"
[ $st = 0 ] || { diag <<<"$out"; hx_root journalctl -b --no-pager -n 60 -u botdesk-session@ltier.service 2>&1 | diag; }
out=$(hx_root runuser -u "$HX_USER" -- env XDG_RUNTIME_DIR=/run/user/1000 /usr/local/bin/botdesk lookup ltier --json 2>&1)
st=$?
sid=$(python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["state"] == "active" and d["display"].startswith(":")
print(d["session"])' "$out" 2>/dev/null)
[ $st = 0 ] && [ -n "$sid" ]
tap $? "botdesk lookup ltier --json, as $HX_USER, finds its active logind session (${sid:-none}, exit $st)"
[ -n "$sid" ] || diag <<<"$out"
out=$(hx_root loginctl show-session "${sid:-none}" -p Type -p Desktop -p Name 2>&1 | sort)
[ "$out" = "$(printf 'Desktop=botdesk\nName=%s\nType=x11' "$HX_USER")" ]
tap $? "loginctl: session ${sid:-none} is $HX_USER's, of type x11 and desktop botdesk"
diag <<<"$out"
hx_root timeout 60 systemctl stop botdesk-session@ltier.service >/dev/null 2>&1
tap $? "systemctl stop botdesk-session@ltier.service"
finish
