#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# No two integration scripts share a display number. Every script runs in
# parallel with the others, as root and (through as-user.sh, 100 higher) as
# botdesk-test, and (the spare variant, BOTDESK_TEST_VARIANT=spare) 600
# higher; tests assert which numbers their desktops hold, so a shared band
# makes them fail at random. Counts `bd_init TAG N` (N..N+4, N+100..N+104
# and N+600..N+604; only N..N+4 for `bd_init TAG N once`, which lib.sh
# refuses to run in another variant) and every explicit `band=A-B`. Prints TAP.
#   test-bands.sh INTEGRATION_DIR
set -u
dir=${1:?usage: test-bands.sh INTEGRATION_DIR}
n=0 failed=0
declare -A owner
for f in "$dir"/*.sh; do
        s=$(basename "$f" .sh)
        ranges=()
        while read -r base once; do
                ranges+=("$base-$((base + 4))")
                [ "$once" = once ] || ranges+=("$((base + 100))-$((base + 104))" "$((base + 600))-$((base + 604))")
        done < <(sed -n 's/^[[:space:]]*bd_init[[:space:]]\+[^[:space:]]\+[[:space:]]\+\([0-9]\+\)\([[:space:]]\+once\)\?\([[:space:]].*\)\?$/\1 \2/p' "$f")
        while read -r r; do
                ranges+=("$r")
        done < <(grep -oi 'band=[0-9]\+-[0-9]\+' "$f" | sed 's/^[a-z]*=//I' | sort -u)
        for r in "${ranges[@]}"; do
                for ((d = ${r%-*}; d <= ${r#*-}; d++)); do
                        if [ -n "${owner[$d]:-}" ] && [ "${owner[$d]}" != "$s" ]; then
                                n=$((n + 1)) failed=$((failed + 1))
                                echo "not ok $n - display :$d belongs to one script only"
                                echo "# both ${owner[$d]} and $s use it: give one of them a band of its own"
                        fi
                        owner[$d]=$s
                done
        done
done
n=$((n + 1))
[ "${#owner[@]}" -gt 50 ] && echo "ok $n - the scripts' bands were found (${#owner[@]} numbers)" ||
        { echo "not ok $n - the scripts' bands were found (only ${#owner[@]} numbers)"; failed=$((failed + 1)); }
echo "1..$n"
[ "$failed" = 0 ]
