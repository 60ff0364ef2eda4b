#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The interrupted-start integration test with many more rounds: prints the
# rounds, the injections by target and the violations.
#
#   tests/bench/interrupted-start.sh [-r ROUNDS_PER_TARGET] [-x XFCE_ROUNDS] [-s SEED] [-b BUILD_DIR]
#
# 40 rounds per target (6 targets) and 5 Xfce round pairs make 250
# injections. Exit status 1 when any round found a violation.
set -euo pipefail

ROUNDS=40 XFCE=5 SEED=
. "$(dirname "$0")/lib.sh"
bench_parse_options "r:ROUNDS x:XFCE s:SEED b:BUILD" "$@"
[ -x "$BUILD/helper/botdesk" ] || { echo "bench: build first (ninja -C $BUILD)" >&2; exit 2; }

W=$(mktemp -d /tmp/botdesk-bench-irs.XXXXXX)
trap 'rm -rf -- "${W:?}"' EXIT
t0=$(date +%s)
rc=0
# The rounds as a floor, with no time budget past it and no limit on it: a count, not a time.
vars=(BOTDESK_BUILD_DIR="$BUILD" BOTDESK_SOURCE_DIR="$SRC" BOTDESK_INTERRUPT_ROUNDS="$ROUNDS"
      BOTDESK_INTERRUPT_XFCE_ROUNDS="$XFCE" BOTDESK_INTERRUPT_BUDGET_S=0 BOTDESK_INTERRUPT_FLOOR_LIMIT_S=0
      BOTDESK_INTERRUPT_SUMMARY="$W/summary")
[ -n "$SEED" ] && vars+=(BOTDESK_INTERRUPT_SEED="$SEED")
env "${vars[@]}" bash "$SRC/tests/integration/interrupted-start.sh" >"$W/tap" 2>"$W/stderr" || rc=$?
[ "$rc" = 0 ] || tail -n 5 "$W/stderr" >&2
echo "interrupted starts: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(uname -r), $(( $(date +%s) - t0 )) s"
sed -n 's/^# \(seed .*\)/\1/p' "$W/tap"
cat "$W/summary" 2>/dev/null || echo "no summary: the test ended early"
# The violations themselves, as the test described them.
grep -A3 '^not ok' "$W/tap" || true
exit $rc
