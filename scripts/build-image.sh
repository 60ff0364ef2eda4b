#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Build an OCI image with botdesk and the desktop's packages, from Debian
# packages only, and import it into podman (or docker):
#
#   scripts/build-image.sh [--tag localhost/botdesk:latest] [--engine podman|docker]
#
# 1. botdesk is built from this tree for /usr (the build dir cached, one per
#    tree) and installed into a stage (meson install --destdir), in a
#    temporary dir.
# 2. A root file system with the desktop's packages (install-deps.sh
#    --list --runtime) and the libraries the staged binaries link, from the
#    host's own apt sources, by mmdebstrap; cached by its package list.
# 3. Root + stage are one tar, imported as the image, labelled with a hash of
#    the staged files and the package list: a rerun with nothing changed
#    only hashes the stage and compares the label.
#
# Then: podman run -d --init --name agent-42 botdesk:test
#       podman exec -i agent-42 botdesk start work
# (--init: podman's init is PID 1 and reaps what the desktop leaves.) On
# hosts where podman needs them, pass --runtime runc and --ulimit to `run`.
#
# Environment: BOTDESK_IMAGE_CACHE (default /var/cache/botdesk-image),
# BOTDESK_IMAGE_SOURCES (default /etc/apt/sources.list.d/debian.sources),
# BOTDESK_IMAGE_SUITE (default bookworm). Needs root (mmdebstrap --mode=root).
set -euo pipefail

VERSION=1
TAG=localhost/botdesk:latest
ENGINE=podman
SRC=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${BOTDESK_IMAGE_CACHE:-/var/cache/botdesk-image}
SOURCES=${BOTDESK_IMAGE_SOURCES:-/etc/apt/sources.list.d/debian.sources}
SUITE=${BOTDESK_IMAGE_SUITE:-bookworm}

while [ $# -gt 0 ]; do
        case $1 in
        --tag) TAG=${2:?--tag needs a value}; shift 2 ;;
        --engine) ENGINE=${2:?--engine needs a value}; shift 2 ;;
        -h|--help) sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-image: unknown argument $1" >&2; exit 2 ;;
        esac
done

log() { printf 'build-image: %s\n' "$*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[ "$(id -u)" = 0 ] || { log "needs root (mmdebstrap --mode=root)"; exit 1; }
for p in "$ENGINE" mmdebstrap meson ninja tar sha256sum dpkg-query ldd; do
        command -v "$p" >/dev/null || { log "$p is not installed (scripts/install-deps.sh --tests)"; exit 1; }
done
[ -r "$SOURCES" ] || { log "no apt sources file $SOURCES"; exit 1; }

T0=$(now)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/botdesk-image.XXXXXX")
trap 'rm -rf -- "${WORK:?}"' EXIT

# ---- 1. botdesk, staged for /usr ---------------------------------------------------------------
t=$(now)
# The build dir is kept in the cache (one per source tree), so that a rerun
# only compiles what changed; the stage is made afresh every time.
mkdir -p "$CACHE"
BUILD=$CACHE/build-$(printf '%s' "$SRC" | sha256sum | cut -c1-12)
(
        flock 9
        if [ ! -f "$BUILD/build.ninja" ]; then
                meson setup --prefix=/usr --sysconfdir=/etc --buildtype=release -Dtests=false -Dman=disabled \
                        -Dselinux=disabled "$BUILD" "$SRC" >"$WORK/meson.log" 2>&1 || { cat "$WORK/meson.log" >&2; exit 1; }
        fi
        ninja -C "$BUILD" >"$WORK/ninja.log" 2>&1 || { tail -n 30 "$WORK/ninja.log" >&2; exit 1; }
        DESTDIR="$WORK/stage" meson install -C "$BUILD" --quiet --no-rebuild >"$WORK/install.log" 2>&1 ||
                { cat "$WORK/install.log" >&2; exit 1; }
) 9>"$CACHE/.build-lock"
log "botdesk built and staged in $(since "$t") s"

# The packages: the desktop's, the libraries the staged programs link (by
# the host's own package database, so they are Debian's names), and procps
# for looking inside.
libs=$(find "$WORK/stage" -type f -perm -u+x -exec ldd {} + 2>/dev/null |
        awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
        while read -r f; do dpkg-query -S "$(readlink -f "$f")" 2>/dev/null || dpkg-query -S "$f" 2>/dev/null; done |
        cut -d: -f1 | sort -u)
pkgs=$( { "$SRC/scripts/install-deps.sh" --list --runtime; echo "$libs"; echo procps; } | sort -u | tr '\n' ' ')

# ---- 2. the root file system, cached by its package list ---------------------------------------
rkey=$(printf '%s\n' "v$VERSION" "$SUITE" "$pkgs" "$(sha256sum <"$SOURCES")" | sha256sum | cut -c1-12)
root=$CACHE/rootfs-$rkey
(
        flock 9
        [ -e "$root/.botdesk-image-ok" ] && exit 0
        t=$(now)
        log "building the root file system $root ($pkgs)"
        [ -n "$rkey" ] && rm -rf -- "${root:?}.tmp"
        mmdebstrap --quiet --variant=minbase --mode=root --format=directory \
                --include="$(echo $pkgs | tr ' ' ',')" \
                --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
                "$SUITE" "$root.tmp" "$SOURCES" >&2
        touch "$root.tmp/.botdesk-image-ok"
        mv "$root.tmp" "$root"
        # Roots of other package lists are not used again: one is kept.
        for d in "$CACHE"/rootfs-*; do
                [ -d "$d" ] && [ "$d" != "$root" ] && rm -rf -- "${d:?}"
        done
        log "root file system built in $(since "$t") s ($(du -sh "$root" | cut -f1))"
) 9>"$CACHE/.lock"

# ---- 3. the image, labelled with what it holds -------------------------------------------------
# An imported image has no PATH of its own: `podman run` supplies one, but
# `podman kube play` (and so a pod's `exec -i`) runs with none.
IMAGE_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
key=$( { echo "v$VERSION $rkey PATH=$IMAGE_PATH"; cd "$WORK/stage" && find . -type f -print0 | sort -z | xargs -0 sha256sum; } |
        sha256sum | cut -c1-16)
# One import at a time: two runs at once (tests in parallel) would hard-link
# the same cached root, and each one's links and cleanup change the inodes'
# ctime under the other's tar ("file changed as we read it"). The second
# finds the first's image and reuses it.
exec 8>"$CACHE/.image-lock"
flock 8
have=$("$ENGINE" image inspect --format '{{index .Config.Labels "org.botdesk.key"}}' "$TAG" 2>/dev/null || true)
if [ "$have" = "$key" ]; then
        log "$TAG is up to date (key $key), $(since "$T0") s"
        echo "$TAG"
        exit 0
fi
t=$(now)
# The root as hard links (instant, and the cache is never written to), the
# stage copied over it with every file it replaces unlinked first; one tar,
# since importers refuse duplicate paths.
cp -al "$root" "$WORK/image" 2>/dev/null || { rm -rf -- "${WORK:?}/image"; cp -a "$root" "$WORK/image"; }
cp -a --remove-destination "$WORK/stage/." "$WORK/image/"
rm -f -- "$WORK/image/.botdesk-image-ok"
tar --numeric-owner -C "$WORK/image" -cf "$WORK/image.tar" .
old=$("$ENGINE" image inspect --format '{{.Id}}' "$TAG" 2>/dev/null || true)
"$ENGINE" import --change 'CMD ["/bin/sleep", "infinity"]' --change "LABEL org.botdesk.key=$key" \
        --change 'ENV LANG=C.UTF-8' --change "ENV PATH=$IMAGE_PATH" "$WORK/image.tar" "$TAG" >/dev/null
# The image it replaces, unless a container still uses it (then rmi refuses).
[ -n "$old" ] && "$ENGINE" rmi "$old" >/dev/null 2>&1 || true
log "$TAG imported in $(since "$t") s (key $key); total $(since "$T0") s"
echo "$TAG"
