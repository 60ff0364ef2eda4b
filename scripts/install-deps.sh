#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Install what botdesk needs on Debian/Ubuntu, and nothing already there.
#   scripts/install-deps.sh            build + runtime
#   scripts/install-deps.sh --tests    also what the test tiers and the bench need
#   scripts/install-deps.sh --list [--tests|--demo]   print the packages, install nothing
#   scripts/install-deps.sh --list --runtime          what a desktop needs and its everyday programs
#                                                     (scripts/build-image.sh)
# Every program a test, the bench or CI calls comes from these lists
# (tests/unit/test-deps.py checks that).
set -euo pipefail

build=(meson ninja-build pkg-config gcc libc6-dev scdoc bash-completion libsystemd-dev libinih-dev libpam0g-dev nettle-dev
       libxcb1-dev libxcb-shm0-dev libxcb-image0-dev libpng-dev libjpeg-dev libxcb-xtest0-dev libxkbcommon-dev
       libxcb-randr0-dev libxcb-damage0-dev libxxhash-dev zlib1g-dev libgnutls28-dev)
runtime=(libinih1 libxxhash0 zlib1g libgnutls30 tigervnc-standalone-server xfwm4 xfce4-panel xfdesktop4 xfce4-settings xfconf
         dbus-daemon x11-xkb-utils novnc at-spi2-core)
# [network] allow's domain names: the desktop's filtering proxy (helper/cli/network-proxy.c).
runtime+=(tinyproxy-bin)
tests=(dbus-bin x11-utils x11-apps x11-xserver-utils xdotool xclip python3 socat gvncviewer valgrind clang chromium
       systemd-container mmdebstrap util-linux procps passwd perl hyperfine
       selinux-policy-dev selinux-policy-default semodule-utils policycoreutils setools
       qemu-system-x86 busybox-static cpio attr e2fsprogs file
       openssh-server openssh-client podman runc catatonit python3-yaml ffmpeg)
# placement = docker, against a daemon a test starts of its own (tests/integration/placement-container.sh).
tests+=(docker.io)
# The accessibility test's GTK application (tests/integration/a11y-app.py).
tests+=(python3-gi gir1.2-gtk-3.0)
# A desktop's bus starts no document portal (tests/integration/portal-mount.sh):
# the portal itself, and a GTK file dialog that asks for it.
tests+=(xdg-desktop-portal zenity)
# The RFB client's test makes a TigerVNC password file (tests/integration/rfb-client-tigervnc.sh).
tests+=(tigervnc-tools)
# VeNCrypt's test makes its CAs and certificates with certtool (tests/integration/rfb-client-vencrypt.sh).
tests+=(gnutls-bin)
# The clean-container demo test (tests/system/demo-clean.sh) copies the checkout's tracked files.
tests+=(git)
# The polkit rule's unit test runs it under node (Debian: nodejs provides /usr/bin/node).
tests+=(nodejs)
# The zsh and fish completions, completed by those shells (tests/unit/completion-shells.sh).
tests+=(zsh fish)

# npm packages the tests drive, each pinned to an exact version (an unpinned
# install may serve an old major here), into one directory of their own
# outside any source tree. One package a line, with the test that uses it.
npm_tests=(
        @modelcontextprotocol/sdk@1.32.2        # the MCP v1 client (tests/integration/mcp.sh)
        @modelcontextprotocol/client@2.4.0      # the MCP v2 client, 2026-07-28 (tests/integration/mcp-v2.sh)
        @modelcontextprotocol/conformance@0.2.0-alpha.12  # the official server scenarios (tests/integration/mcp-conformance.sh)
        @anthropic-ai/sdk@1.16.0                # the vendors' types botdesk act answers in
        openai@7.60.0                           #   (tests/integration/act-vendors.sh, through tsc)
        @google/genai@3.3.0
        typescript@7.0.2
        playwright-core@1.65.2                  # connectOverCDP, driving the desktop's own Chromium: no browser
                                                #   download (tests/integration/browser-endpoint.sh)
)
MCP_SDK_DIR=/usr/local/lib/botdesk-tests

# CRIU 4.1 or later for the hibernate tests (tests/integration/hibernate.sh).
# Debian 12's 3.17 fails on current kernels and Debian 13's 4.1.1 hangs in
# every dump on VMs without hardware breakpoints; Debian testing's 4.2.1
# works but needs a newer libc. So: a root of its own that mmdebstrap makes
# from the Debian archive, its criu run through that root's loader by the
# wrapper $CRIU_DIR/criu (doc/snapshots.md). Nothing fetched by URL, nothing
# built.
CRIU_DIR=$MCP_SDK_DIR/criu
CRIU_SUITE=forky
criu_works() { "$CRIU_DIR/criu" --version 2>/dev/null | grep -Eq '^Version: (4\.[1-9]|[5-9])'; }

list=0
[ "${1:-}" = --list ] && { list=1; shift; }
# The everyday programs `botdesk install` puts in beside what a desktop needs (helper/shared/packages.c):
# the demo's desktop and the image's have them, and the tests check their rows against dpkg.
everyday=(xfce4-terminal thunar mousepad fonts-dejavu-core x11-utils x11-xserver-utils)
want=("${build[@]}" "${runtime[@]}")
[ "${1:-}" = --runtime ] && want=("${runtime[@]}" "${everyday[@]}")
[ "${1:-}" = --tests ] && want+=("${tests[@]}")
# Debian's nodejs comes without npm; NodeSource's has it built in.
[ "${1:-}" = --tests ] && ! command -v npm >/dev/null 2>&1 && [ "$list" = 0 ] && want+=(npm)
[ "${1:-}" = --demo ] || [ "${1:-}" = --tests ] && want+=("${everyday[@]}")
if [ "$list" = 1 ]; then
        printf '%s\n' "${want[@]}"
        exit 0
fi

missing=()
for p in "${want[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm_installed NAME@VERSION: that exact version is in MCP_SDK_DIR.
npm_installed() {
        local name=${1%@*} version=${1##*@}
        grep -qs "\"version\": \"$version\"" "$MCP_SDK_DIR/node_modules/$name/package.json"
}
npm_missing=()
if [ "${1:-}" = --tests ]; then
        for p in "${npm_tests[@]}"; do
                npm_installed "$p" || npm_missing+=("$p")
        done
fi
criu_missing=0
[ "${1:-}" = --tests ] && ! criu_works && criu_missing=1
[ ${#missing[@]} -eq 0 ] && [ ${#npm_missing[@]} -eq 0 ] && [ "$criu_missing" = 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
        for p in "${npm_missing[@]}"; do missing+=("$p (npm)"); done
        [ "$criu_missing" = 0 ] || missing+=("criu from Debian $CRIU_SUITE (mmdebstrap)")
        echo "install-deps: run as root (sudo) to install: ${missing[*]}" >&2
        exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
        echo "install-deps: installing ${missing[*]}" >&2
        apt-get update -q
        apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if [ ${#npm_missing[@]} -gt 0 ]; then
        echo "install-deps: installing ${npm_missing[*]} into $MCP_SDK_DIR" >&2
        mkdir -p "$MCP_SDK_DIR"
        # All at once, so that npm resolves them together and keeps every one.
        npm install --no-audit --no-fund --save-exact --prefix "$MCP_SDK_DIR" "${npm_tests[@]}"
        for p in "${npm_tests[@]}"; do
                npm_installed "$p" || { echo "install-deps: npm did not install $p" >&2; exit 1; }
        done
        echo "install-deps: the tests' npm packages are in $MCP_SDK_DIR/node_modules" >&2
fi
if [ "$criu_missing" = 1 ]; then
        echo "install-deps: making a Debian $CRIU_SUITE root with criu in $CRIU_DIR" >&2
        mkdir -p "$MCP_SDK_DIR"
        new=$(mktemp -d "$MCP_SDK_DIR/criu.new.XXXXXX")
        # A mirror may serve a testing release whose Release file has expired;
        # a second try for a mirror's passing failure.
        made=0
        for try in 1 2; do
                if mmdebstrap --quiet --variant=essential --include=criu --mode=root --format=directory \
                        --aptopt='Acquire::Check-Valid-Until "false"' \
                        "$CRIU_SUITE" "$new/root" "deb http://deb.debian.org/debian $CRIU_SUITE main" >&2; then
                        made=1
                        break
                fi
                echo "install-deps: mmdebstrap failed (try $try of 2)" >&2
                rm -rf -- "${new:?}/root"
        done
        if [ "$made" = 0 ]; then
                rm -rf -- "${new:?}"
                echo "install-deps: mmdebstrap could not make the criu root" >&2
                exit 1
        fi
        loader=$(cd "$new/root" && ls lib64/ld-linux-*.so.* 2>/dev/null | head -n1)
        libs=$(cd "$new/root" && ls -d usr/lib/*-linux-gnu 2>/dev/null | head -n1)
        if [ -z "$loader" ] || [ -z "$libs" ]; then
                rm -rf -- "${new:?}"
                echo "install-deps: no loader in the criu root" >&2
                exit 1
        fi
        printf '%s\n' '#!/bin/sh' \
                "# CRIU of Debian $CRIU_SUITE, run with its own libraries (scripts/install-deps.sh)." \
                "exec \"$CRIU_DIR/root/$loader\" --library-path \"$CRIU_DIR/root/$libs\" \"$CRIU_DIR/root/usr/sbin/criu\" \"\$@\"" \
                >"$new/criu"
        chmod 755 "$new/criu"
        if [ -e "$CRIU_DIR" ]; then
                old=$(mktemp -d "$MCP_SDK_DIR/criu.old.XXXXXX")
                mv -- "$CRIU_DIR" "$old/"
                rm -rf -- "${old:?}"
        fi
        mv -- "$new" "$CRIU_DIR"
        criu_works || { echo "install-deps: $CRIU_DIR/criu does not run" >&2; exit 1; }
        echo "install-deps: $("$CRIU_DIR/criu" --version | head -n1) in $CRIU_DIR" >&2
fi
