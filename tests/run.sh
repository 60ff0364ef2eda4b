#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test suite on a fresh Debian machine: installs what the tests
# need, builds with warnings as errors, runs every tier (unit, integration,
# system) and ends with meson's summary.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BOTDESK_TEST_BUILD:-$src/build-tests}

"$src/scripts/install-deps.sh" --tests
if [ ! -d "$build" ]; then
        meson setup "$build" "$src" -Dwerror=true --buildtype=debugoptimized
fi
ninja -C "$build"
# Two cores: integration tests start real desktops, one per core at a time.
exec meson test -C "$build" --print-errorlogs --num-processes 2 "$@"
