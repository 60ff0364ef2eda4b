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
CHROMIUM=$(command -v chromium) || { echo "bench: no chromium" >&2; exit 2; }

bench_scratch hibernate
export BOTDESK_NS_INIT=$BUILD/helper/botdesk-ns-init
unset DISPLAY DBUS_SESSION_BUS_ADDRESS
printf '#!/bin/sh\nxfwm4 &\nexec %s --no-sandbox --disable-gpu --no-first-run --no-default-browser-check --disable-background-networking --disable-component-update --disable-sync --user-data-dir=%s "data:text/html,<title>bench</title><h1>botdesk</h1><p>a page</p>"\n' \
        "$CHROMIUM" "$W/state/botdesk/web/browser-profile" >"$W/browser.sh"
chmod +x "$W/browser.sh"
printf '[display]\nband = 945-959\n[resources]\nmin_free_memory_mb = 0\n[session]\nidle_stop_minutes = 0\nstart_timeout = 60\ncheckpointable = yes\ncriu = %s\n[profile.web]\ndesktop = command\ncommand = %s\n' \
        "$CRIU" "$W/browser.sh" >"$BOTDESK_CONFIG"
trap bench_cleanup EXIT
bench_table hibernate

json_field() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(v >> 20 if sys.argv[2] == "size" else v)' "$1" "$2"; }

# round PROFILE RUN: one of each measure, appended to the arrays named PROFILE_*.
round() {
        local p=$1 i=$2 t0 k
        local -n pss=${p}_pss hib=${p}_hib dump=${p}_dump size=${p}_size resume=${p}_resume snap=${p}_snap forks=${p}_forks
        "$BOTDESK" start -q "$p" >/dev/null
        # Xfce writes its settings, Chromium draws its page, in the first seconds.
        sleep 10
        pss+=("$(( $(pss_of $(desktop_pids "$p") "$(desktop_state "$p" PID)") / 1024 ))")
        t0=$(date +%s%N)
        "$BOTDESK" hibernate "$p" --json >"$W/hib.json"
        hib+=("$(ms "$t0")")
        dump+=("$(json_field "$W/hib.json" dump_ms)")
        size+=("$(json_field "$W/hib.json" size)")
        t0=$(date +%s%N)
        "$BOTDESK" start -q "$p" >/dev/null
        resume+=("$(ms "$t0")")
        grep -q 'Restored desktop' "$W/run/botdesk/$p/helper.log" || echo "bench: $p, run $i, started cold" >&2
        t0=$(date +%s%N)
        "$BOTDESK" snapshot -q "$p" "s$i"
        snap+=("$(ms "$t0")")
        t0=$(date +%s%N)
        "$BOTDESK" fork -q "$p" "s$i" --as "$p-f$i" --count 10
        forks+=("$(ms "$t0")")
        for ((k = 1; k <= 10; k++)); do "$BOTDESK" stop -q "$p-f$i-$k" >/dev/null & done
        wait
        "$BOTDESK" stop -q "$p" >/dev/null
}

echo "botdesk hibernate benchmark: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(uname -r), $("$CRIU" --version | head -n1)"
row "measure" "value" "target"
row "---" "---" "---"
for p in idle web; do
        declare -a "${p}_pss=()" "${p}_hib=()" "${p}_dump=()" "${p}_size=()" "${p}_resume=()" "${p}_snap=()" "${p}_forks=()"
        for ((i = 0; i < RUNS; i++)); do round "$p" "$i"; done
done
median_of() { local -n a=$1; printf '%s\n' "${a[@]}" | median; }
for p in idle web; do
        [ "$p" = idle ] && what="idle Xfce desktop" || what="xfwm4 and Chromium on a page"
        row "$what: PSS, helper included (MiB)" "$(median_of "${p}_pss")" ""
        row "  botdesk hibernate, to nothing running (ms)" "$(median_of "${p}_hib")" "<= 1000 (E2B: ~4 s/GB)"
        row "    the dump alone, as the helper times it (ms)" "$(median_of "${p}_dump")" ""
        row "    its images (MiB)" "$(median_of "${p}_size")" "<= the PSS"
        row "  botdesk start of it, restored to READY (ms)" "$(median_of "${p}_resume")" "<= 500 (E2B: ~1 s)"
        row "  botdesk snapshot of it, running on (ms)" "$(median_of "${p}_snap")" ""
        row "  botdesk fork of the snapshot into 10, all READY (ms)" "$(median_of "${p}_forks")" "<= 3000"
done
echo "median of $RUNS; table in $TABLE"
