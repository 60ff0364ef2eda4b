#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# guard.sh TEST_PID TEST_DIR: started by lib.sh's bd_init in a session of
# its own. A test killed at its timeout cannot finish its cleanup: meson
# sends SIGTERM to the test's process group and SIGKILL half a second
# later, and the desktops the test started run on in sessions (and, as an
# unprivileged user, process groups) of their own. This waits until the
# test's process is gone; when the test's own cleanup did not get to the
# end (its TEST_DIR, which the cleanup removes last, is still there), it
# runs that cleanup here: every desktop the test recorded is stopped, then
# killed by its cgroup and token. Its output goes nowhere: the test's
# stdout is meson's and must not be held open.
set -u
test_pid=${1:?usage: guard.sh TEST_PID TEST_DIR}
dir=${2:?usage: guard.sh TEST_PID TEST_DIR}
case $dir in
"${TMPDIR:-/tmp}"/botdesk-it.*) ;;
*) exit 2 ;;   # only ever a dir bd_init made
esac
# --pid looks every second whether the test is still there.
tail --pid="$test_pid" -f /dev/null
[ -d "$dir" ] || exit 0
. "$(dirname "$0")/lib.sh"
BD_T=$dir
bd_cg_parent
T_PLANNED=1
bd_cleanup
