#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# as-user.sh SCRIPT: run an integration test as an unprivileged user, the way
# botdesk is used (no writable cgroup: the token fallback is exercised).
# Not root: run it as we are. Root: as the system user botdesk-test (created
# once, home /var/lib/botdesk-test), with the BOTDESK_* variables passed on.
set -u
script=$1
shift
# As lib.sh's t_skip_all: under CI=true, a run that cannot happen fails.
skip_all() {
        if [ "${CI:-}" = true ]; then
                printf 'not ok 1 - the test runs as an unprivileged user\n# skipped (%s), which CI=true does not allow\n1..1\n' "$1"
                exit 1
        fi
        echo "1..0 # SKIP $1"
        exit 0
}
export BOTDESK_TEST_VARIANT=user
if [ "$(id -u)" != 0 ]; then
        exec bash "$script" "$@"
fi

# bd_second_user: the user, created once (parallel tests agree through a lock).
. "$(dirname "$0")/lib.sh"
bd_second_user
U=$BD_U
H=$BD_UH
command -v runuser >/dev/null 2>&1 || skip_all "runuser not installed"

src=${BOTDESK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BOTDESK_BUILD_DIR:-$src/build}
readable() {
        runuser -u "$U" -- sh -c 'test -r "$1" && test -x "$2/helper/botdesk" && test -x "$2/helper/botdesk-helper" && test -r "$3/conf/skel"' \
                sh "$1" "$2" "$3"
}
stage=""
if ! readable "$script" "$build" "$src"; then
        # The checkout lives where the user cannot look (a 0700 home, say):
        # run from a copy of just what the tests use. The binaries link only
        # system libraries, so they run from anywhere.
        stage=$(mktemp -d /tmp/botdesk-as-user.XXXXXX)
        chmod 755 "$stage"
        mkdir -p "$stage/build" "$stage/src/conf" "$stage/src/tests"
        "$(dirname "$0")/stage-build.sh" "$build" "$stage/build"
        cp -r "$src/conf/skel" "$src/conf/applications" "$stage/src/conf/"
        cp -r "$src/tests/integration" "$stage/src/tests/"
        chmod -R a+rX "$stage"
        script=$stage/src/tests/integration/$(basename "$script")
        build=$stage/build
        src=$stage/src
        readable "$script" "$build" "$src" || { rm -rf -- "${stage:?}"; skip_all "cannot give $U a readable copy of the build"; }
fi

# install.sh's sudo paths need [install] system_path from a file owned by
# root, which the user cannot write: root writes one, naming a directory of
# the user's where the test puts its fakes.
fixture=$(mktemp -d /tmp/botdesk-as-user-config.XXXXXX) || skip_all "mktemp failed"
chmod 755 "$fixture"
mkdir "$fixture/sys"
chown "$U" "$fixture/sys"
printf '[install]\nsystem_path = %s/sys\n' "$fixture" >"$fixture/botdesk.ini"

runuser -u "$U" -- env -i \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME="$H" USER="$U" LOGNAME="$U" LANG=C.UTF-8 TMPDIR=/tmp \
        BOTDESK_SOURCE_DIR="$src" BOTDESK_BUILD_DIR="$build" BOTDESK_TEST_VARIANT=user ${CI:+CI="$CI"} \
        BOTDESK_TEST_SYSTEM_CONFIG="$fixture/botdesk.ini" \
        ${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} ${UBSAN_OPTIONS:+UBSAN_OPTIONS="$UBSAN_OPTIONS"} \
        bash "$script" "$@"
rc=$?
[ -n "$stage" ] && rm -rf -- "${stage:?}"
rm -rf -- "${fixture:?}"
exit $rc
