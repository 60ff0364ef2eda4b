# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the benchmark scripts (bash, sourced): where the tree and the
# build are, and their options.
#
#   . "$(dirname "$0")/lib.sh"
#   bench_parse_options "n:RUNS b:BUILD" "$@"

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$SRC/build

# bench_parse_options "X:VAR ..." ARGS...: each -X VALUE of ARGS into VAR;
# an unknown option (getopts says which) exits 2.
bench_parse_options() {
        local spec=$1 optstring="" pair o
        local -A var=()
        shift
        for pair in $spec; do
                optstring+="${pair%%:*}:"
                var[${pair%%:*}]=${pair#*:}
        done
        OPTIND=1
        while getopts "$optstring" o; do
                [ -n "${var[$o]:-}" ] || exit 2
                printf -v "${var[$o]}" %s "$OPTARG"
        done
}

# bench_build: BUILD made absolute (BOTDESK_HELPER must not depend on the
# cwd) and BOTDESK its CLI; exits 2 when it is not built.
bench_build() {
        BUILD=$(cd "$BUILD" && pwd)
        BOTDESK=$BUILD/helper/botdesk
        [ -x "$BOTDESK" ] || { echo "bench: build first (ninja -C $BUILD)" >&2; exit 2; }
}

# bench_scratch NAME: a desktop world of the bench's own in W (a new
# /tmp/botdesk-bench-NAME.XXXXXX): its runtime, state and configuration,
# this build's helper, standalone placement. bench_cleanup stops every
# desktop made there and removes W; a bench's EXIT trap calls it.
bench_scratch() {
        W=$(mktemp -d "/tmp/botdesk-bench-$1.XXXXXX")
        mkdir -m700 "$W/run"
        export XDG_RUNTIME_DIR=$W/run XDG_STATE_HOME=$W/state BOTDESK_CONFIG=$W/botdesk.ini
        export BOTDESK_HELPER=$BUILD/helper/botdesk-helper BOTDESK_SKEL_DIR=$SRC/conf/skel BOTDESK_PLACEMENT=standalone
}
bench_cleanup() {
        local p
        set +e
        for p in $(ls "$W/run/botdesk" 2>/dev/null); do "$BOTDESK" stop -q "$p" >/dev/null 2>&1 & done
        wait
        case $W in /tmp/botdesk-bench-?*) rm -rf -- "${W:?}" ;; esac
}

# ms T0: milliseconds since T0 (date +%s%N).
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
# median: of the numbers on stdin, one a line ("n/a" for none).
median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print "n/a"; else print a[int((NR+1)/2)]}'; }
# pss_of PID...: their PSS together, in KiB (a pid gone counts 0).
pss_of() {
        local total=0 p v
        for p in "$@"; do
                v=$(awk '/^Pss:/{print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
                total=$((total + ${v:-0}))
        done
        echo "$total"
}
# desktop_state PROFILE KEY: KEY= of the profile's helper state file under $W/run.
# Empty, and no failure, for a desktop that did not start.
desktop_state() { sed -n "s/^$2=//p" "$W/run/botdesk/$1/helper" 2>/dev/null || true; }
# desktop_pids PROFILE: every process of the desktop's cgroup (not its helper).
desktop_pids() {
        local cg
        cg=$(desktop_state "$1" CGROUP)
        if [ -n "$cg" ] && [ -d "$cg" ]; then
                find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null
        fi
}

# stop_all PROFILE...: stop them all at once; sets STOP_MS (until the last
# returned), STOP_FAILS (stops that failed) and STOP_NOT_EMPTY (cgroups
# with a process left after). Their errors go to $W/stop.err.
stop_all() {
        local p cg cgs=() pids=() j t0
        for p in "$@"; do cgs+=("$(desktop_state "$p" CGROUP)"); done
        t0=$(date +%s%N)
        for p in "$@"; do
                "$BOTDESK" stop -q "$p" >/dev/null 2>>"$W/stop.err" &
                pids+=("$!")
        done
        STOP_FAILS=0
        for j in "${pids[@]}"; do wait "$j" || STOP_FAILS=$((STOP_FAILS + 1)); done
        STOP_MS=$(ms "$t0")
        STOP_NOT_EMPTY=0
        for cg in "${cgs[@]}"; do
                if [ -n "$cg" ] && [ -d "$cg" ] && [ -n "$(find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null)" ]; then
                        STOP_NOT_EMPTY=$((STOP_NOT_EMPTY + 1))
                fi
        done
}

# bench_table NAME: the table of this run, OUT/bench-NAME-DATE.txt (STAMP,
# TABLE); row MEASURE VALUE TARGET prints a row and adds it to the table.
bench_table() {
        STAMP=$(date -u +%Y%m%dT%H%M%SZ)
        TABLE=$OUT/bench-$1-$STAMP.txt
        : >"$TABLE"
}
row() { printf '| %-52s | %14s | %-22s |\n' "$1" "$2" "$3" | tee -a "$TABLE"; }
