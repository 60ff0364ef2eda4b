#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The integration tier's cleanup (tests/integration/lib.sh) fails a test
# that leaves a process behind: one carrying the test's XDG_RUNTIME_DIR and
# not started by the test's own shell is named, killed by its pid, and
# counted as a failed check. A test that leaves nothing passes.
#   test-leak-sweep.sh SOURCE_DIR   (BOTDESK_BUILD_DIR: a built tree)
set -u
src=${1:?usage: test-leak-sweep.sh SOURCE_DIR}
. "$(dirname "$0")/check.sh"
W=$(mktemp -d /tmp/botdesk-leak-sweep.XXXXXX)
trap 'rm -rf -- "${W:?}"' EXIT

# A test script of the integration tier: LEAK=1 leaves a grandchild behind
# (its subshell exits, so the test's shell is not its parent), which writes
# its pid to $W/pid.
cat >"$W/it.sh" <<'SCRIPT'
. "$BD_SRC/tests/integration/lib.sh"
bd_init leaksweep 990 once
if [ "$LEAK" = 1 ]; then
        ( sleep 300 & echo $! >"$W/pid" )
fi
t_pass "ran"
t_done
SCRIPT
it() { env BD_SRC="$src" W="$W" LEAK="$1" BOTDESK_TEST_VARIANT=main bash "$W/it.sh" 2>/dev/null; }

out=$(it 0)
check "a test that leaves nothing passes" [ $? -eq 0 ]
check "and reports no leftover" eval '! grep -q "outlived" <<<"$out"'

out=$(it 1)
rc=$?
pid=$(cat "$W/pid" 2>/dev/null)
check "a test that leaves a process behind fails" [ "$rc" -ne 0 ]
check "with a failed check that says so" grep -q "^not ok 2 - no process of this test outlived it" <<<"$out"
check "naming the process by its pid and command line" grep -q "^# cleanup: process $pid (sleep 300 ) outlived the test; killed" <<<"$out"
gone() { local i; for i in $(seq 50); do [ -e "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ] || return 0; sleep 0.1; done; return 1; }
check "and the process is gone (waited up to 5 s)" gone "$pid"
[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
echo "1..$n"
