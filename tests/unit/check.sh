# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the unit tier's shell tests: check DESCRIPTION CMD... prints
# one TAP line, ok when CMD succeeds; n counts them ("1..$n" at the end).
n=0
check() {
        local d=$1
        shift
        n=$((n + 1))
        if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fi
}
