#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Hibernate and resume (doc/snapshots.md): an idle Xfce desktop with
# [session] checkpointable = yes, RUNS times: its PSS, `botdesk hibernate`
# (the CLI's wall time, and the dump the helper reports), the images' size,
# and the `botdesk start` that restores it, to READY. Prints a table (and
# OUT/bench-hibernate-DATE.txt); asserts nothing. Needs root and CRIU 4.1
# or later (-C PATH; scripts/install-deps.sh --tests makes one).
#
#   tests/bench/hibernate.sh [-n RUNS] [-b BUILD_DIR] [-o OUT_DIR] [-C CRIU]
#
# Standalone mode, real Xvnc + Xfce, displays 945-959 (the parent and ten
# forks); every desktop it starts is stopped.
set -euo pipefail

RUNS=5 OUT=$PWD CRIU=/usr/local/lib/botdesk-tests/criu/criu
. "$(dirname "$0")/lib.sh"
bench_parse_options "n:RUNS b:BUILD o:OUT C:CRIU" "$@"
bench_build
[ -x "$CRIU" ] || { echo "bench: no CRIU at $CRIU (-C PATH)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench: a checkpointable desktop needs root" >&2; exit 2; }

bench_scratch hibernate
export BOTDESK_NS_INIT=$BUILD/helper/botdesk-ns-init
unset DISPLAY DBUS_SESSION_BUS_ADDRESS
printf '[display]\nband = 945-959\n[resources]\nmin_free_memory_mb = 0\n[session]\nidle_stop_minutes = 0\nstart_timeout = 60\ncheckpointable = yes\ncriu = %s\n' \
        "$CRIU" >"$BOTDESK_CONFIG"
trap bench_cleanup EXIT
bench_table hibernate

echo "botdesk hibernate benchmark: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(uname -r), $("$CRIU" --version | head -n1)"
row "measure" "value" "target"
row "---" "---" "---"
pss=() hib=() dump=() size=() resume=() snap=() forks=()
for ((i = 0; i < RUNS; i++)); do
        "$BOTDESK" start -q idle >/dev/null
        # Xfce writes its settings and settles in the first seconds.
        sleep 10
        pss+=("$(( $(pss_of $(desktop_pids idle) "$(desktop_state idle PID)") / 1024 ))")
        t0=$(date +%s%N)
        "$BOTDESK" hibernate idle --json >"$W/hib.json"
        hib+=("$(ms "$t0")")
        dump+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dump_ms"])' "$W/hib.json")")
        size+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["size"] >> 20)' "$W/hib.json")")
        t0=$(date +%s%N)
        "$BOTDESK" start -q idle >/dev/null
        resume+=("$(ms "$t0")")
        grep -q 'Restored desktop' "$W/run/botdesk/idle/helper.log" || echo "bench: run $i started cold" >&2
        t0=$(date +%s%N)
        "$BOTDESK" snapshot -q idle "s$i"
        snap+=("$(ms "$t0")")
        t0=$(date +%s%N)
        "$BOTDESK" fork -q idle "s$i" --as "f$i" --count 10
        forks+=("$(ms "$t0")")
        for ((k = 1; k <= 10; k++)); do "$BOTDESK" stop -q "f$i-$k" >/dev/null & done
        wait
        "$BOTDESK" stop -q idle >/dev/null
done
row "idle Xfce desktop PSS, helper included (MiB)" "$(printf '%s\n' "${pss[@]}" | median)" ""
row "botdesk hibernate, to nothing running (ms)" "$(printf '%s\n' "${hib[@]}" | median)" "<= 1000 (E2B: ~4 s/GB)"
row "  the dump alone, as the helper times it (ms)" "$(printf '%s\n' "${dump[@]}" | median)" ""
row "  its images (MiB)" "$(printf '%s\n' "${size[@]}" | median)" "<= the PSS"
row "botdesk start of it, restored to READY (ms)" "$(printf '%s\n' "${resume[@]}" | median)" "<= 500 (E2B: ~1 s)"
row "botdesk snapshot of it, running on (ms)" "$(printf '%s\n' "${snap[@]}" | median)" ""
row "botdesk fork of that snapshot into 10, all READY (ms)" "$(printf '%s\n' "${forks[@]}" | median)" "<= 3000"
row "the same with the browser open on a page" "not built" "its sandbox: doc"
echo "median of $RUNS; table in $TABLE"
