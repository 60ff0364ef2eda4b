#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Not a test: times `systemctl --user start/stop botdesk@work.service`,
# N rounds (default 5), and prints each and the medians.
. /botdesk-tests/lib.sh

U=botdesk@bench.service N=${BENCH_ROUNDS:-5}
track $U
starts=() stops=()
for i in $(seq "$N"); do
        t=$(now)
        timeout 60 systemctl --user start $U || { echo "start $i failed"; systemctl --user status $U --no-pager; exit 1; }
        starts+=("$(ms_since "$t")")
        t=$(now)
        timeout 60 systemctl --user stop $U || { echo "stop $i failed"; exit 1; }
        stops+=("$(ms_since "$t")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "start ms: ${starts[*]} (median $(median "${starts[@]}"))"
echo "stop ms:  ${stops[*]} (median $(median "${stops[@]}"))"
