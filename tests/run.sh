#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test suite on a fresh Debian machine: installs what the tests
# need, then
#   1. unit and integration tiers built with ASan+UBSan,
#   2. the unit tier under valgrind,
#   3. the fuzz targets with libFuzzer (clang) for a bounded time,
#   4. every tier (unit, integration, system) of a -Werror build,
# and ends with meson's summary of the last stage.
#   tests/run.sh            everything
#   tests/run.sh --quick    stage 4 only
# Extra arguments after the options go to the last `meson test`.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${BOTDESK_TEST_BUILD:-$src/build-tests}
quick=0
[ "${1:-}" = --quick ] && { quick=1; shift; }

stage() { printf '\n==> %s\n' "$*"; }

"$src/scripts/install-deps.sh" --tests

setup() { # DIR [meson options...]
        local dir=$1; shift
        [ -d "$dir" ] || meson setup "$dir" "$src" "$@" >/dev/null
        ninja -C "$dir" >/dev/null
}

if [ "$quick" = 0 ]; then
        stage "unit and integration tiers under ASan+UBSan"
        setup "$out-asan" -Db_sanitize=address,undefined -Db_lundef=false --buildtype=debug
        # Reports go to files: the helper is a daemon whose stderr no test
        # reads, so a report from it must fail the stage by itself.
        reports=$(mktemp -d /tmp/botdesk-sanitizer.XXXXXX)
        chmod 1777 "$reports"   # the integration tier also runs as another user
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:log_path=$reports/asan \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$reports/ubsan \
                meson test -C "$out-asan" --suite unit --suite integration --print-errorlogs --num-processes 2
        if compgen -G "$reports/*" >/dev/null; then
                cat "$reports"/* >&2
                echo "sanitizer reports above: failing" >&2
                exit 1
        fi
        rm -rf "$reports"

        stage "unit tier under valgrind"
        setup "$out"
        meson test -C "$out" --suite unit --no-suite shell --print-errorlogs --num-processes 2 \
                --wrapper "valgrind --quiet --error-exitcode=66 --leak-check=full --errors-for-leak-kinds=definite,indirect --track-fds=yes"

        stage "fuzz targets (libFuzzer, bounded)"
        CC=clang setup "$out-fuzz" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
                -Dpam=disabled --buildtype=debugoptimized
        meson test -C "$out-fuzz" --suite fuzz --print-errorlogs --num-processes 2
fi

stage "every tier: unit, integration, system (-Werror build)"
setup "$out" -Dwerror=true
# Two cores: integration tests start real desktops, one per core at a time.
exec meson test -C "$out" --print-errorlogs --num-processes 2 "$@"
