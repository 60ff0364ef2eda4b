#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The SELinux tier: boots Debian's kernel under qemu (TCG: KVM does not work
# for nested guests on the build machines) with SELinux permissive, the
# reference policy and botdesk's module installed offline, and botdesk
# installed from a staged `meson install`. In the guest, the test user
# starts a desktop through the user unit, root starts one through the
# logind tier (botdesk-session@.service, PAM), and the test fails on any AVC
# denial that names one of botdesk's types. Permissive mode logs every
# denial once instead of stopping at the first, so one boot shows them all.
#
# usage: vm-test.sh BOTDESK.PP
# env:   BOTDESK_SOURCE_DIR, BOTDESK_BUILD_DIR (meson sets both for the test)
#        BOTDESK_VM_CACHE     kernel and root file systems (default /var/cache/botdesk-vm)
#        BOTDESK_VM_SOURCES   apt sources for mmdebstrap (default: the host's)
#        BOTDESK_VM_TIMEOUT   seconds qemu may run (default 600)
#        BOTDESK_VM_AVC_LOG   copy every AVC line of the boot to this file
#        BOTDESK_VM_SERIAL_LOG copy the serial console to this file
# Prints TAP; "1..0 # SKIP reason" when the host cannot run it (not root,
# tools not installable, no apt sources).

set -u
PP=${1:-}
SRC=${BOTDESK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BOTDESK_BUILD_DIR:-$SRC/build}
CACHE=${BOTDESK_VM_CACHE:-/var/cache/botdesk-vm}
SOURCES=${BOTDESK_VM_SOURCES:-/etc/apt/sources.list.d/debian.sources}
TIMEOUT=${BOTDESK_VM_TIMEOUT:-600}
MEM=${BOTDESK_VM_MEM:-3072}
VERSION=1
T0=$EPOCHREALTIME

log() { printf '# [vm %6.1fs] %s\n' "$(awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" "$*"; }
skip() { echo "1..0 # SKIP $*"; exit 0; }
bail() { echo "Bail out! $*"; exit 1; }

N=0 FAILED=0
ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }
finish() { echo "1..$N"; [ "$FAILED" = 0 ]; exit $?; }

# ---- the host ------------------------------------------------------------------------------
[ "$(id -u)" = 0 ] || skip "needs root (mmdebstrap --mode=root, an ext4 image with SELinux labels); running as uid $(id -u)"
[ -n "$PP" ] && [ -r "$PP" ] || bail "usage: $0 BOTDESK.PP (the compiled module)"
PP=$(realpath "$PP")
[ -r "$SOURCES" ] || skip "no apt sources file $SOURCES for mmdebstrap"
[ -e /dev/kvm ] || true   # never used: TCG only

need=""
for c in qemu-system-x86_64:qemu-system-x86 busybox:busybox-static cpio:cpio mmdebstrap:mmdebstrap \
         setfiles:policycoreutils semodule:semodule-utils getfattr:attr mkfs.ext4:e2fsprogs meson:meson ninja:ninja-build; do
        command -v "${c%%:*}" >/dev/null || need="$need ${c#*:}"
done
# semodule -p links against the reference policy of the image; the host
# only needs the tools.
if [ -n "$need" ]; then
        log "installing$need"
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q --no-install-recommends $need >/dev/null 2>&1 ||
                { apt-get update -q >/dev/null 2>&1; apt-get install -y -q --no-install-recommends $need >/dev/null 2>&1; } ||
                skip "cannot install$need"
fi
# busybox may come from the dynamic package; the initramfs needs a static one.
file -L "$(command -v busybox)" 2>/dev/null | grep -q 'dynamically linked' && {
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends busybox-static >/dev/null 2>&1 ||
                skip "cannot install busybox-static"; }
mkdir -p "$CACHE" || skip "cannot create $CACHE"
exec 9>"$CACHE/.lock"
flock 9

# ---- kernel and initramfs (cached) ---------------------------------------------------------
# Debian's cloud kernel has SELinux built in and virtio_blk as a module,
# so a busybox initramfs loads the virtio modules and switches to the disk.
if [ ! -e "$CACHE/kernel/.ok" ]; then
        kpkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
        [ -n "$kpkg" ] || { apt-get update -q >/dev/null 2>&1;
                kpkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }'); }
        [ -n "$kpkg" ] || skip "apt knows no linux-image-cloud-amd64"
        log "fetching $kpkg"
        rm -rf -- "${CACHE:?}/kernel" && mkdir -p "$CACHE/kernel"
        (cd "$CACHE/kernel" && apt-get download -q "$kpkg" >/dev/null 2>&1 && dpkg-deb -x ./*.deb x && rm -f ./*.deb) ||
                skip "cannot download $kpkg"
        kv=$(ls "$CACHE/kernel/x/lib/modules")
        cp "$CACHE/kernel/x/boot/vmlinuz-$kv" "$CACHE/kernel/vmlinuz"
        i=$CACHE/kernel/initrd
        mkdir -p "$i"/{bin,dev,proc,sys,newroot,mod}
        cp "$(command -v busybox)" "$i/bin/busybox"
        for m in virtio/virtio_ring virtio/virtio virtio/virtio_pci_modern_dev virtio/virtio_pci_legacy_dev \
                 virtio/virtio_pci block/virtio_blk; do
                cp "$CACHE/kernel/x/lib/modules/$kv/kernel/drivers/$m.ko" "$i/mod/" || bail "no $m.ko in $kpkg"
        done
        cat > "$i/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk; do
        /bin/busybox insmod /mod/$m.ko
done
for i in $(/bin/busybox seq 200); do [ -b /dev/vda ] && break; /bin/busybox sleep 0.05; done
/bin/busybox mount -o rw /dev/vda /newroot || { echo "initrd: cannot mount /dev/vda"; /bin/busybox poweroff -f; }
/bin/busybox umount /proc /sys
/bin/busybox mount --move /dev /newroot/dev
exec /bin/busybox switch_root /newroot /lib/systemd/systemd
EOF
        chmod +x "$i/init"
        (cd "$i" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$CACHE/kernel/initrd.img"
        rm -rf -- "${CACHE:?}/kernel/x"
        touch "$CACHE/kernel/.ok"
        log "kernel $kv ready"
fi

# ---- root file system (cached by its package list) ------------------------------------------
PACKAGES="systemd systemd-sysv dbus dbus-user-session libpam-systemd passwd login util-linux procps
 selinux-policy-default policycoreutils
 libxcb1 libxcb-shm0 libpng16-16 libjpeg62-turbo libgnutls30 libpam0g libsystemd0
 tigervnc-standalone-server xfwm4 xfce4-panel xfdesktop4 xfce4-settings xfconf dbus-daemon x11-xkb-utils x11-utils
 $("$SRC/tests/runtime-packages.sh" "$BUILD/helper/botdesk" "$BUILD/helper/botdesk-helper" "$BUILD/helper/botdesk-browser" "$BUILD/helper/botdesk-x11.so" \
        "$BUILD/pam/pam_botdesk.so")"
PACKAGES=$(echo $PACKAGES | tr ' ' '\n' | sort -u | tr '\n' ' ')
MASK="console-getty.service getty@tty1.service serial-getty@ttyS0.service systemd-networkd.service
 systemd-resolved.service systemd-timesyncd.service apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer
 fstrim.timer man-db.timer dpkg-db-backup.timer"
key=$(printf '%s\n' "v$VERSION" $PACKAGES $MASK | sort | sha256sum | cut -c1-12)
ROOT=$CACHE/rootfs-$key
if [ ! -e "$ROOT/.ok" ]; then
        t=$EPOCHREALTIME
        log "building root file system $ROOT"
        rm -rf -- "${ROOT:?}" "$ROOT.tmp"
        mmdebstrap --quiet --variant=minbase --mode=root --format=directory \
                --include="$(echo $PACKAGES | tr ' ' ',')" \
                --customize-hook='echo botdesk-vm > "$1/etc/hostname"; : > "$1/etc/fstab"' \
                --customize-hook='echo "127.0.0.1 localhost botdesk-vm" > "$1/etc/hosts"' \
                --customize-hook='echo LANG=C.UTF-8 > "$1/etc/default/locale"' \
                --customize-hook='chroot "$1" useradd -m -u 1000 -s /bin/bash tester' \
                --customize-hook="chroot \"\$1\" systemctl mask -q $(echo $MASK) 2>/dev/null || true" \
                bookworm "$ROOT.tmp" "$SOURCES" > "$CACHE/mmdebstrap.log" 2>&1 ||
                { sed 's/^/# /' "$CACHE/mmdebstrap.log" | tail -20; rm -rf -- "${ROOT:?}.tmp"; skip "mmdebstrap failed"; }
        touch "$ROOT.tmp/.ok"
        mv "$ROOT.tmp" "$ROOT"
        log "root file system built in $(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s"
fi
flock -u 9

# ---- botdesk, staged -----------------------------------------------------------------------
W=$(mktemp -d /tmp/botdesk-vm.XXXXXX) && [ -d "$W" ] || bail "mktemp -d failed"
trap 'rm -rf "${W:?}"' EXIT
SB=$BUILD/selinux-vm-build
if [ -e "$SB/build.ninja" ] && ! grep -qs "^ *source *: *$(realpath "$SRC")\$" "$SB/meson-info/intro-projectinfo.json" &&
   ! grep -qsF "\"source\": \"$(realpath "$SRC")\"" "$SB/meson-info/meson-info.json"; then
        rm -rf "${SB:?}"
fi
if [ ! -e "$SB/build.ninja" ]; then
        meson setup "$SB" "$SRC" -Dprefix=/usr -Dsysconfdir=/etc -Dtests=false -Dselinux=disabled \
                > "$W/setup.log" 2>&1 || { sed 's/^/# /' "$W/setup.log" | tail -20; bail "meson setup of the staged build failed"; }
fi
ninja -C "$SB" > "$W/ninja.log" 2>&1 || { sed 's/^/# /' "$W/ninja.log" | tail -20; bail "staged build failed"; }
DESTDIR=$W/stage meson install -C "$SB" --no-rebuild --quiet > "$W/install.log" 2>&1 ||
        { sed 's/^/# /' "$W/install.log" | tail -20; bail "meson install failed"; }
log "botdesk built and staged"

# ---- the image -----------------------------------------------------------------------------
cp -a "$ROOT" "$W/root"
R=$W/root
# cp -a of "stage/." also copies the mode of the stage directory (0700,
# from mktemp) onto the image's /.
chmod 0755 "$W/stage"
cp -a "$W/stage/." "$R/"
# Desktops start while the guest runs under TCG, several times slower
# than a real machine: larger start timeouts, no memory gate.
cat > "$R/etc/botdesk.ini" <<'EOF'
[session]
start_timeout = 240
[resources]
min_free_memory_mb = 0
[profile.sess]
user = tester
EOF
for d in etc/systemd/user/botdesk@.service.d etc/systemd/system/botdesk-session@.service.d; do
        mkdir -p "$R/$d"
        printf '[Service]\nTimeoutStartSec=300\n' > "$R/$d/vm.conf"
done

# A second test user, confined: user_u logs in as user_t and its user
# manager runs in user_systemd_t (tester keeps the default, unconfined_u).
# semodule runs inside the image so that genhomedircon reads the image's
# passwd and labels /home/tester2 and /run/user/1001 for user_u.
chroot "$R" useradd -m -u 1001 -s /bin/bash tester2 || bail "useradd tester2 failed"
echo 'tester2:user_u:s0' > "$R/var/lib/selinux/default/active/seusers.local"
cp "$PP" "$R/tmp/botdesk.pp"
t=$EPOCHREALTIME
# BOTDESK_VM_NODONTAUDIT=1 builds the policy without its dontaudit rules,
# to see what they hide (a diagnosis, not a test: many are harmless).
da=""
[ "${BOTDESK_VM_NODONTAUDIT:-0}" = 1 ] && da=-D
if ! chroot "$R" semodule -s default -n $da -i /tmp/botdesk.pp > "$W/semodule.log" 2>&1; then
        not_ok "botdesk.pp links into the image's reference policy (semodule)"
        sed 's/^/# /' "$W/semodule.log"
        finish
fi
rm -f "$R/tmp/botdesk.pp"
ok "botdesk.pp links into the image's reference policy (semodule, $(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s)"

install -m 0755 "$SRC/tests/selinux/vm-guest.sh" "$R/usr/local/bin/botdesk-vm-guest"
# BOTDESK_VM_DEBUG=1: the guest also prints the audit records of botdesk's processes.
[ "${BOTDESK_VM_DEBUG:-0}" = 1 ] && touch "$R/etc/botdesk-vm-debug"
cat > "$R/etc/systemd/system/botdesk-vm-guest.service" <<'EOF'
[Unit]
After=multi-user.target systemd-logind.service systemd-user-sessions.service
[Service]
Type=oneshot
ExecStart=/usr/local/bin/botdesk-vm-guest
ExecStopPost=/bin/systemctl poweroff --no-block
[Install]
WantedBy=multi-user.target
EOF
ln -sf /etc/systemd/system/botdesk-vm-guest.service "$R/etc/systemd/system/multi-user.target.wants/"

setfiles -r "$R" "$R/etc/selinux/default/contexts/files/file_contexts" "$R" > "$W/setfiles.log" 2>&1 ||
        { sed 's/^/# /' "$W/setfiles.log" | tail; bail "setfiles failed"; }
lbl=$(getfattr --absolute-names -n security.selinux --only-values "$R/usr/libexec/botdesk-helper" 2>/dev/null | tr -d '\0')
if [[ $lbl == *:botdesk_exec_t:* ]]; then ok "setfiles labels the installed helper botdesk_exec_t"
else not_ok "setfiles labels the installed helper botdesk_exec_t"; echo "# label: ${lbl:-none (is getfattr installed?)}"; fi

size=$(( $(du -sm "$R" | cut -f1) + 1024 ))M
mkfs.ext4 -q -F -L root -d "$R" "$W/root.img" "$size" > "$W/mkfs.log" 2>&1 || { sed "s/^/# /" "$W/mkfs.log"; bail "mkfs.ext4 -d failed"; }
rm -rf "${W:?}/root"
log "image ready ($size)"

# ---- boot ----------------------------------------------------------------------------------
APPEND="console=ttyS0 root=/dev/vda rw panic=-1 quiet systemd.show_status=false"
APPEND="$APPEND security=selinux selinux=1 enforcing=0 audit=1 audit_backlog_limit=8192"
timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 -m "$MEM" \
        -kernel "$CACHE/kernel/vmlinuz" -initrd "$CACHE/kernel/initrd.img" -append "$APPEND" \
        -drive file="$W/root.img",format=raw,if=virtio -nographic -no-reboot -display none -nic none \
        > "$W/serial.raw" 2>&1
qrc=$?
tr -d '\r' < "$W/serial.raw" > "$W/serial.log"
[ -n "${BOTDESK_VM_SERIAL_LOG:-}" ] && cp "$W/serial.log" "$BOTDESK_VM_SERIAL_LOG"
log "guest finished (qemu exit status $qrc)"

if ! grep -q '^@@BEGIN' "$W/serial.log"; then
        not_ok "the guest boots and runs the test (qemu exit status $qrc)"
        tail -40 "$W/serial.log" | sed 's/^/# /'
        finish
fi
ok "the guest boots with SELinux and runs the test"
# The guest prints its own results as "ok - ..."/"not ok - ..." and
# diagnostics; number them into this plan.
sed -n '/^@@BEGIN/,/^@@END/p' "$W/serial.log" | sed '1d;$d' | grep -av '^\[ *[0-9.]*\] ' > "$W/guest.out"
if [ -n "${BOTDESK_VM_AVC_LOG:-}" ]; then
        sed -n 's/^@@AVC //p; s/^@@AUD /AUDIT /p' "$W/guest.out" > "$BOTDESK_VM_AVC_LOG"
fi
while IFS= read -r line; do
        case $line in
        "ok - "*) ok "${line#ok - }" ;;
        "not ok - "*) not_ok "${line#not ok - }" ;;
        "#"*) echo "$line" ;;
        @@AVC*|@@AUD*) ;;
        *) echo "# $line" ;;
        esac
done < "$W/guest.out"
grep -q '^@@END' "$W/serial.log" || not_ok "the guest test ran to its end (timeout ${TIMEOUT}s?)"
log "total"
finish
