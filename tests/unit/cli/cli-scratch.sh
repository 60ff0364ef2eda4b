# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the CLI's shell tests that run botdesk on words alone: TAP's
# ok and not_ok, and a scratch home from which nothing reaches a real
# desktop, user manager or configuration (removed at exit); usage_rc VERB,
# a usage error's exit status (exec's own 125: its command's statuses are
# its).
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $1"; shift; for d in "$@"; do echo "# $d"; done; }

scratch=$(mktemp -d) || exit 1
cleanup() { case $scratch in /tmp/?*) rm -rf -- "${scratch:?}" ;; esac; }
trap cleanup EXIT
export XDG_RUNTIME_DIR=$scratch/run XDG_STATE_HOME=$scratch/state XDG_CONFIG_HOME=$scratch/config HOME=$scratch/home
export BOTDESK_CONFIG=$scratch/botdesk.ini BOTDESK_PLACEMENT=standalone BOTDESK_HELPER=$scratch/no-such-helper
mkdir -p -m 0700 "$XDG_RUNTIME_DIR"
printf '[session]\nauto_start = no\n' >"$BOTDESK_CONFIG"

usage_rc() {
        if [ "$1" = exec ]; then echo 125; else echo 2; fi
}
