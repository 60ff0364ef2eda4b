#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The system tier's container: a real systemd (PID 1 of a systemd-nspawn
# container over a Debian bookworm root built by mmdebstrap) with logind and
# per-user managers, botdesk installed from a staged `meson install`.
#
# Sourced by run.sh (functions hx_*), or run directly for manual work:
#   harness.sh rootfs              build (or reuse) the cached root, print its path
#   harness.sh run [-s ROOTCMD] -- CMD...
#                                  boot, install botdesk, run ROOTCMD as root and
#                                  CMD as the test user in a logind session, stop
# Environment:
#   BOTDESK_SOURCE_DIR, BOTDESK_BUILD_DIR   source tree and meson build dir
#   BOTDESK_TEST_CACHE     rootfs cache (default /var/cache/botdesk-test)
#   BOTDESK_TEST_REBUILD=1 rebuild the cached rootfs
#   BOTDESK_TEST_SOURCES   apt sources (default /etc/apt/sources.list.d/debian.sources)
# A caller may set, before hx_rootfs and hx_boot (the defaults are the tier's):
#   HX_ROOT_EXTRA          more packages for the root (a root of its own: the cache key has them)
#   HX_ROOT_HOOKS=(...)    more mmdebstrap --customize-hook commands (also in the key)
#   HX_PRIVATE_NETWORK=0   the container shares the host's network (for apt inside it)
#   HX_OVERLAY=DIR         the container's writes go to DIR/upper on disk (an overlay
#                          over the cached root, mounted in nspawn's private mount
#                          namespace), not to --volatile=overlay's tmpfs in RAM
#
# Hazards obeyed here (each seen on the build machines): systemd is never
# started from the root cgroup (the launching shell first moves into a fresh
# cgroup in the name=systemd and unified hierarchies); nspawn runs in a
# private mount namespace with a tmpfs on /run/systemd; leftovers are killed
# only by pid from our own cgroup; no host folder containing the container's
# root is ever bound into it.

HX_VERSION=3
HX_USER=tester
HX_CACHE=${BOTDESK_TEST_CACHE:-/var/cache/botdesk-test}
HX_SOURCES=${BOTDESK_TEST_SOURCES:-/etc/apt/sources.list.d/debian.sources}
HX_BOOT_TIMEOUT=${BOTDESK_TEST_BOOT_TIMEOUT:-60}
# chromium: t-network drives the desktop's browser through its proxy.
HX_PACKAGES="systemd systemd-sysv dbus dbus-user-session libpam-systemd passwd login util-linux procps
 libxcb1 libxcb-shm0 libxcb-image0 libpng16-16 libjpeg62-turbo libgnutls30 libpam0g libsystemd0
 tigervnc-standalone-server xfwm4 xfce4-panel xfdesktop4 xfce4-settings xfconf dbus-daemon x11-xkb-utils
 x11-utils xdotool python3 tinyproxy-bin
 chromium"
HX_MASK="console-getty.service getty@tty1.service systemd-networkd.service systemd-resolved.service
 systemd-timesyncd.service apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer
 man-db.timer dpkg-db-backup.timer"

HX_T0=${EPOCHREALTIME}
HX_ROOT_EXTRA=${HX_ROOT_EXTRA:-} HX_PRIVATE_NETWORK=${HX_PRIVATE_NETWORK:-1} HX_OVERLAY=${HX_OVERLAY:-}
[ -n "${HX_ROOT_HOOKS+x}" ] || HX_ROOT_HOOKS=()
HX_ROOT="" HX_STAGE="" HX_TMP="" HX_NSPID="" HX_LEADER="" HX_CG="" HX_BOOTLOG=""
HX_CGROOTS=() HX_CGMADE=()

hx_log() { printf '[system %7.2fs] %s\n' "$(hx_elapsed "$HX_T0")" "$*" >&2; }
hx_now() { echo "${EPOCHREALTIME}"; }
hx_elapsed() { awk -v a="$1" -v b="${EPOCHREALTIME}" 'BEGIN { printf "%.2f", b - a }'; }

# alive PID: exists and is not a zombie (kill -0 succeeds on zombies).
hx_alive() {
        local st
        st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) && [ -n "$st" ] && [ "$st" != Z ]
}

# ---- host checks ---------------------------------------------------------------------------
# hx_check_host: 0 when the tier can run; otherwise sets HX_SKIP_REASON and returns 1.
hx_check_host() {
        HX_SKIP_REASON=$(hx_check_host_1) && hx_cgroup_roots
}
hx_cgroup_roots() {
        if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
                HX_CGROOTS=(/sys/fs/cgroup)
        else
                HX_CGROOTS=(/sys/fs/cgroup/systemd /sys/fs/cgroup/unified)
        fi
}
hx_check_host_1() {
        local fs
        if [ "$(id -u)" != 0 ]; then
                echo "needs root (systemd-nspawn and mmdebstrap --mode=root); running as uid $(id -u)"
                return 1
        fi
        if ! command -v systemd-nspawn >/dev/null || ! command -v mmdebstrap >/dev/null; then
                if command -v apt-get >/dev/null; then
                        hx_log "installing systemd-container mmdebstrap"
                        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
                                systemd-container mmdebstrap >/dev/null 2>&1 ||
                        { DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1 &&
                          DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
                                systemd-container mmdebstrap >/dev/null 2>&1; }
                fi
                if ! command -v systemd-nspawn >/dev/null || ! command -v mmdebstrap >/dev/null; then
                        echo "systemd-nspawn or mmdebstrap missing and 'apt-get install systemd-container mmdebstrap' failed"
                        return 1
                fi
        fi
        for t in unshare nsenter setsid flock pgrep python3 meson ninja; do
                command -v "$t" >/dev/null || { echo "$t missing on the host"; return 1; }
        done
        [ -r "$HX_SOURCES" ] || { echo "no apt sources file $HX_SOURCES for mmdebstrap"; return 1; }
        fs=$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)
        if [ "$fs" = cgroup2fs ]; then
                :
        elif [ "$(stat -f -c %T /sys/fs/cgroup/systemd 2>/dev/null)" = cgroupfs ] &&
             [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
                :
        else
                echo "no usable cgroup hierarchies: need cgroup2 at /sys/fs/cgroup, or name=systemd at /sys/fs/cgroup/systemd plus cgroup2 at /sys/fs/cgroup/unified"
                return 1
        fi
        hx_cgroup_roots
        for d in "${HX_CGROOTS[@]}"; do
                [ -w "$d" ] || { echo "cgroup hierarchy $d is not writable"; return 1; }
        done
        return 0
}

# ---- cached root file system ---------------------------------------------------------------
hx_rootfs() {
        local key root pkgs t h b=${BOTDESK_BUILD_DIR:-} hooks=()
        # Plus the packages of every library the built binaries load: a new
        # dependency of botdesk reaches the container without a list to keep.
        pkgs=$(echo $HX_PACKAGES $HX_ROOT_EXTRA $("$(dirname "${BASH_SOURCE[0]}")/../runtime-packages.sh" \
                "$b/helper/botdesk" "$b/helper/botdesk-helper" "$b/helper/botdesk-browser" "$b/helper/botdesk-x11.so" \
                "$b/pam/pam_botdesk.so") |
                tr ' ' '\n' | sort -u | tr '\n' ' ')
        key=$(printf '%s\n' "v$HX_VERSION" "$HX_USER" "$pkgs" "$HX_MASK" "${HX_ROOT_HOOKS[@]}" | sha256sum | cut -c1-12)
        root=$HX_CACHE/rootfs-$key
        mkdir -p "$HX_CACHE"
        (
                flock 9
                if [ "${BOTDESK_TEST_REBUILD:-0}" != 1 ] && [ -e "$root/.botdesk-test-ok" ]; then
                        exit 0
                fi
                t=$(hx_now)
                hx_log "building rootfs $root"
                rm -rf -- "${root:?}" "${root:?}.tmp"
                for h in "${HX_ROOT_HOOKS[@]}"; do hooks+=(--customize-hook="$h"); done
                mmdebstrap --quiet --variant=minbase --mode=root --format=directory \
                        --include="$(echo $pkgs | tr ' ' ',')" \
                        --customize-hook='echo botdesk-test > "$1/etc/hostname"' \
                        --customize-hook='echo "127.0.0.1 localhost botdesk-test" > "$1/etc/hosts"' \
                        --customize-hook="chroot \"\$1\" useradd -m -u 1000 -s /bin/bash -G systemd-journal $HX_USER" \
                        --customize-hook='chroot "$1" passwd -d root >/dev/null' \
                        --customize-hook="chroot \"\$1\" systemctl mask -q $(echo $HX_MASK) 2>/dev/null || true" \
                        --customize-hook='echo "LANG=C.UTF-8" > "$1/etc/default/locale"' \
                        "${hooks[@]}" \
                        bookworm "$root.tmp" "$HX_SOURCES" >&2 || exit 1
                touch "$root.tmp/.botdesk-test-ok"
                mv "$root.tmp" "$root"
                hx_log "rootfs built in $(hx_elapsed "$t") s ($(du -sh "$root" | cut -f1))"
        ) 9>"$HX_CACHE/.lock" || return 1
        HX_ROOT=$root
}

# ---- the project, staged -------------------------------------------------------------------
# Builds the source tree for /usr and /etc in its own build dir under the meson
# build dir and installs it into a stage that the container copies to /.
hx_stage() {
        local src=${BOTDESK_SOURCE_DIR:?} build=${BOTDESK_BUILD_DIR:?} sb t
        sb=$build/sysroot-build
        t=$(hx_now)
        # A build dir configured for another source tree is of no use here.
        if [ -e "$sb/build.ninja" ] && ! python3 -c '
import json, os, sys
d = json.load(open(os.path.join(sys.argv[1], "meson-info", "meson-info.json")))["directories"]["source"]
sys.exit(os.path.realpath(d) != os.path.realpath(sys.argv[2]))' "$sb" "$src" 2>/dev/null; then
                rm -rf -- "${sb:?}"
        fi
        if [ ! -e "$sb/build.ninja" ]; then
                rm -rf -- "${sb:?}"
                meson setup "$sb" "$src" -Dprefix=/usr -Dsysconfdir=/etc -Dtests=false \
                        --buildtype=debugoptimized >&2 || return 1
        fi
        ninja -C "$sb" >&2 || return 1
        HX_STAGE=$HX_TMP/stage
        rm -rf -- "${HX_STAGE:?}"
        DESTDIR=$HX_STAGE meson install -C "$sb" --no-rebuild --quiet >&2 || return 1
        hx_log "project built and staged in $(hx_elapsed "$t") s"
}

# ---- boot ----------------------------------------------------------------------------------
# hx_boot EXTRA_NSPAWN_ARGS...: boot the container from $HX_ROOT; sets HX_LEADER.
hx_boot() {
        local parent args h d made t st c
        t=$(hx_now)
        # A fresh cgroup in every hierarchy we need, below where we stand in the
        # unified one (or the memory one, as the recipe does when that is deeper).
        parent=$(awk -F: '$2=="memory" { print $3 }' /proc/self/cgroup)
        [ -n "$parent" ] && [ "$parent" != / ] || parent=$(awk -F: '$1=="0" { print $3 }' /proc/self/cgroup)
        HX_CG=${parent%/}/botdesk-system-$$
        for h in "${HX_CGROOTS[@]}"; do
                # remember the directories we create, to remove exactly those
                d=$h$HX_CG made=()
                while [ ! -d "$d" ]; do made=("$d" "${made[@]}"); d=$(dirname "$d"); done
                mkdir -p "$h$HX_CG" || return 1
                HX_CGMADE+=("${made[@]}")
        done
        HX_BOOTLOG=$HX_TMP/boot.log
        args=(--quiet --register=no --keep-unit --boot
              --machine="botdesk-test-$$" --console=passive)
        [ "$HX_PRIVATE_NETWORK" = 0 ] || args+=(--private-network)
        if [ -n "$HX_OVERLAY" ]; then
                mkdir -p "$HX_OVERLAY/upper" "$HX_OVERLAY/work" "$HX_OVERLAY/root" || return 1
                args+=(--directory="$HX_OVERLAY/root")
        else
                args+=(--directory="$HX_ROOT" --volatile=overlay)
        fi
        args+=("$@")
        # bash -> exec unshare -> exec bash -> exec systemd-nspawn: one pid.
        # The overlay is mounted in nspawn's private mount namespace: it goes with it.
        HX_OV=$HX_OVERLAY HX_OV_LOWER=$HX_ROOT setsid bash -c '
                cg=$1; shift
                for h in '"${HX_CGROOTS[*]}"'; do echo $$ > "$h$cg/cgroup.procs" || exit 1; done
                exec unshare --mount --propagation private bash -c "
                        mount -t tmpfs -o mode=755 tmpfs /run/systemd || exit 1
                        if [ -n \"\$HX_OV\" ]; then
                                mount -t overlay overlay -o \"lowerdir=\$HX_OV_LOWER,upperdir=\$HX_OV/upper,workdir=\$HX_OV/work\" \"\$HX_OV/root\" || exit 1
                        fi
                        exec systemd-nspawn \"\$@\"" nspawn "$@"
        ' hx-nspawn "$HX_CG" "${args[@]}" >"$HX_BOOTLOG" 2>&1 </dev/null &
        HX_NSPID=$!
        for _ in $(seq $((HX_BOOT_TIMEOUT * 20))); do
                for c in $(pgrep -P "$HX_NSPID" 2>/dev/null); do
                        [ "$(cat "/proc/$c/comm" 2>/dev/null)" = systemd ] && HX_LEADER=$c
                done
                [ -n "$HX_LEADER" ] && break
                hx_alive "$HX_NSPID" || { sed 's/^/# nspawn: /' "$HX_BOOTLOG" >&2; hx_log "nspawn died"; return 1; }
                sleep 0.05
        done
        [ -n "$HX_LEADER" ] || { hx_log "no container PID 1 after ${HX_BOOT_TIMEOUT}s"; return 1; }
        st=""
        for _ in $(seq $((HX_BOOT_TIMEOUT * 10))); do
                st=$(hx_root systemctl is-system-running 2>/dev/null)
                case "$st" in running|degraded) break;; esac
                sleep 0.1
        done
        case "$st" in
        running|degraded) ;;
        *) sed 's/^/# nspawn: /' "$HX_BOOTLOG" >&2; hx_log "boot did not finish: '$st'"; return 1;;
        esac
        [ "$st" = degraded ] && hx_root systemctl --failed --no-legend --no-pager | sed 's/^/# degraded: /' >&2
        HX_BOOT_SECONDS=$(hx_elapsed "$t")
        hx_log "booted ($st) in $HX_BOOT_SECONDS s, container PID 1 = host pid $HX_LEADER"
}

# hx_root CMD...: run CMD as root inside the container (stdin from /dev/null).
hx_root() {
        nsenter -t "$HX_LEADER" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@" </dev/null
}

# hx_user NAME TIMEOUT CMD...: run CMD as the test user in a real logind
# session (PAM "login") with its user manager; stdout and stderr are merged.
# TimeoutStartSec too: with PAMName=, systemd 252 never sees a Type=exec
# unit's exec (its PAM process keeps the exec fd open), so the unit stays
# "activating" and the default 90 s start timeout would kill CMD.
hx_user() {
        local name=$1 tmo=$2
        shift 2
        hx_root systemd-run --quiet --wait --pipe --collect --service-type=exec \
                --unit="botdesk-test-$name" -p PAMName=login -p User="$HX_USER" \
                -p WorkingDirectory='~' -p Environment=LANG=C.UTF-8 -p RuntimeMaxSec="$tmo" -p TimeoutStartSec="$tmo" \
                "$@" 2>&1
}

# hx_shutdown: power off, then kill by pid whatever is left in our cgroups and
# remove them. Idempotent; safe to call from an EXIT trap.
hx_shutdown() {
        # A signal that interrupted `IFS= read` leaves that IFS in place for
        # the trap running this: restore word splitting first.
        local IFS=$' \t\n' h d p t
        [ -n "$HX_NSPID$HX_CG$HX_TMP" ] || return 0
        set +e
        t=$(hx_now)
        if [ -n "$HX_LEADER" ] && hx_alive "$HX_LEADER"; then
                hx_root systemctl poweroff --no-block >/dev/null 2>&1
                for _ in $(seq 400); do hx_alive "$HX_NSPID" || break; sleep 0.05; done
        fi
        if [ -n "$HX_NSPID" ] && hx_alive "$HX_NSPID"; then
                hx_log "nspawn still alive after 20 s, killing it"
                kill -KILL "$HX_LEADER" 2>/dev/null; sleep 0.2
                kill -TERM "$HX_NSPID" 2>/dev/null; sleep 0.5
        fi
        if [ -n "$HX_CG" ]; then
                for h in "${HX_CGROOTS[@]}"; do
                        d=$h$HX_CG
                        [ -d "$d" ] || continue
                        for _ in 1 2 3; do
                                p=$(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null)
                                [ -z "$p" ] && break
                                hx_log "killing leftovers in $d: $(echo $p)"
                                for x in $p; do kill -KILL "$x" 2>/dev/null; done
                                sleep 0.2
                        done
                        find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
                        [ -d "$d" ] && hx_log "could not remove cgroup $d"
                done
                for ((i = ${#HX_CGMADE[@]} - 1; i >= 0; i--)); do rmdir "${HX_CGMADE[i]}" 2>/dev/null; done
                HX_CG=""
        fi
        [ -n "$HX_NSPID" ] && wait "$HX_NSPID" 2>/dev/null
        HX_NSPID="" HX_LEADER=""
        [ -n "$HX_TMP" ] && rm -rf -- "${HX_TMP:?}"
        HX_TMP=""
        hx_log "container gone, cleaned up in $(hx_elapsed "$t") s"
}

hx_init() {
        HX_TMP=$(mktemp -d /tmp/botdesk-system.XXXXXX) || return 1
}

# ---- manual use ----------------------------------------------------------------------------
hx_main() {
        local setup="" rc
        set -uo pipefail
        case "${1:-}" in
        rootfs)
                hx_check_host || { echo "cannot run: $HX_SKIP_REASON" >&2; exit 2; }
                hx_rootfs && echo "$HX_ROOT"
                ;;
        run)
                shift
                [ "${1:-}" = -s ] && { setup=$2; shift 2; }
                [ "${1:-}" = -- ] && shift
                [ $# -gt 0 ] || { echo "usage: $0 run [-s ROOTCMD] -- CMD..." >&2; exit 2; }
                hx_check_host || { echo "cannot run: $HX_SKIP_REASON" >&2; exit 2; }
                trap hx_shutdown EXIT
                hx_init && hx_rootfs && hx_stage && hx_boot \
                        --bind-ro="$HX_STAGE":/botdesk-stage \
                        --bind-ro="${BOTDESK_SOURCE_DIR:?}/tests/system":/botdesk-tests || exit 1
                hx_root bash -c 'cp -a /botdesk-stage/. /' || exit 1
                [ -n "$setup" ] && { hx_root bash -c "$setup" || exit 1; }
                hx_user manual 3600 "$@"
                rc=$?
                exit $rc
                ;;
        *)
                echo "usage: $0 rootfs | run [-s ROOTCMD] -- CMD..." >&2
                exit 2
                ;;
        esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
        hx_main "$@"
fi
