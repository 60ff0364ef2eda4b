#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# How many desktops one host holds: COUNT Xfce desktops of one user started
# at once, standalone. Prints when all were ready, each one's PSS, each
# one's CPU while idle (from its cgroup's cpu.stat and its helper's ticks),
# the time to stop them all and whether every stop left an empty cgroup;
# then the sizing rule those figures give. Prints figures; asserts nothing.
#
#   tests/bench/fleet.sh [-c COUNT] [-i IDLE_SECONDS] [-t START_TIMEOUT] [-b BUILD_DIR] [-o OUT_DIR]
#
# START_TIMEOUT is each desktop's start_timeout (default 15, the product's):
# a start must never fail because the others are slow, so the starts keep
# it and queue ([resources] concurrent_starts) instead.
#
# Needs a quiet machine: it takes both cores for a minute or more, and
# displays 900 to 900+COUNT-1, which no test uses as a base band (run it
# when no test runs: spare tests reach into the 600s and beyond).
#
# One user's inotify instances (fs.inotify.max_user_instances, 128 by
# default) do not hold 100 desktops: as root it applies the project's own
# drop-in, conf/sysctl.d/50-botdesk.conf, says so, and puts the old value
# back at exit.
set -euo pipefail

COUNT=100 IDLE=60 START_TIMEOUT=15 OUT=$PWD
. "$(dirname "$0")/lib.sh"
bench_parse_options "c:COUNT i:IDLE t:START_TIMEOUT b:BUILD o:OUT" "$@"
bench_build
[ "$COUNT" -ge 1 ] && [ $((900 + COUNT - 1)) -le 999 ] || { echo "bench: -c 1 to 100 (displays 900-999)" >&2; exit 2; }

bench_scratch fleet
cat >"$W/botdesk.ini" <<EOF
[display]
band = 900-$((900 + COUNT - 1))
[resources]
min_free_memory_mb = 0
[session]
idle_stop_minutes = 0
start_timeout = $START_TIMEOUT
EOF

SYSCTL=fs.inotify.max_user_instances
old_instances=$(sysctl -n "$SYSCTL")
need=$((COUNT * 8 + 128))
restore_sysctl=
if [ "$old_instances" -lt "$need" ]; then
        if [ "$(id -u)" = 0 ]; then
                sysctl -q -p "$SRC/conf/sysctl.d/50-botdesk.conf"
                restore_sysctl=$old_instances
                echo "bench: applied conf/sysctl.d/50-botdesk.conf: $SYSCTL $old_instances -> $(sysctl -n "$SYSCTL") (put back at exit)"
        else
                echo "bench: $SYSCTL is $old_instances, under the $need that $COUNT desktops want; not root, so left as it is"
        fi
fi

profiles=()
for i in $(seq "$COUNT"); do profiles+=("fleet$i"); done
cleanup() {
        set +e
        bench_cleanup
        [ -z "$restore_sysctl" ] || sysctl -q -w "$SYSCTL=$restore_sysctl"
}
trap cleanup EXIT

bench_table fleet
max() { sort -n | tail -1; }

echo "bench: starting $COUNT desktops at once ($(nproc) cores, $(awk '/^MemTotal/ {print int($2 / 1048576)}' /proc/meminfo) GiB)"
mem0=$(awk '/^MemAvailable/ {print $2}' /proc/meminfo)
t0=$(date +%s%N)
for p in "${profiles[@]}"; do
        # set -e is the subshell's too: a failed start must still write its status.
        ( rc=0; "$BOTDESK" start -q "$p" >/dev/null 2>"$W/$p.err" || rc=$?; echo "$rc" >"$W/$p.rc"; ms "$t0" >"$W/$p.ms" ) &
done
wait
all_ready=$(ms "$t0")
load_ready=$(cut -d' ' -f1 /proc/loadavg)
fails=0
for p in "${profiles[@]}"; do
        rc=$(cat "$W/$p.rc" 2>/dev/null) || rc=none
        [ "$rc" = 0 ] && continue
        fails=$((fails + 1))
        echo "bench: $p failed (exit $rc): $(tail -n 2 "$W/$p.err" 2>/dev/null)"
done
displays=$(for p in "${profiles[@]}"; do desktop_state "$p" DISPLAY; done | sort -u | wc -l)


# Idle CPU of each over IDLE seconds: its cgroup's usage plus its helper's ticks.
tck=$(getconf CLK_TCK)
cpu_now() {
        local p=$1 cg hp u ticks
        cg=$(desktop_state "$p" CGROUP) hp=$(desktop_state "$p" PID)
        # A desktop that did not start has neither: it used nothing.
        [ -n "$cg" ] && u=$(awk '/^usage_usec/ {print $2}' "$cg/cpu.stat" 2>/dev/null) || u=0
        [ -n "$hp" ] && ticks=$(awk '{print $14 + $15}' "/proc/$hp/stat" 2>/dev/null) || ticks=0
        echo $(( ${u:-0} + ${ticks:-0} * 1000000 / tck ))
}
echo "bench: all $COUNT ready after $all_ready ms; measuring idle CPU over $IDLE s"
declare -A cpu0
for p in "${profiles[@]}"; do cpu0[$p]=$(cpu_now "$p"); done
sleep "$IDLE"
# CPU time each used (us), read once.
for p in "${profiles[@]}"; do echo $(( $(cpu_now "$p") - ${cpu0[$p]} )); done >"$W/idle"
# pct US: US of CPU time over the IDLE seconds, as % of one core.
pct() { awk -v u="$1" -v s="$IDLE" 'BEGIN { printf "%.2f", u / (s * 1e6) * 100 }'; }

# Memory once they idle (Xfce writes its settings and settles after ready):
# the PSS of each desktop, its helper with it, and what all took together.
mem1=$(awk '/^MemAvailable/ {print $2}' /proc/meminfo)
for p in "${profiles[@]}"; do
        # shellcheck disable=SC2046
        echo $(( $(pss_of $(desktop_pids "$p") "$(desktop_state "$p" PID)") / 1024 ))
done >"$W/pss"

stop_all "${profiles[@]}"

pss_median=$(median <"$W/pss")
idle_median=$(median <"$W/idle")
row "measure" "value" "target"
row "---" "---" "---"
row "$COUNT concurrent starts, all ready (ms)" "$all_ready" "100: <= 120000"
row "  first ready / median ready (ms)" "$(cat "$W"/fleet*.ms | sort -n | head -1) / $(cat "$W"/fleet*.ms | median)" ""
row "  failed starts / distinct displays" "$fails / $displays" "0 / $COUNT"
row "  start_timeout of each / load average at the end of the starts" "$START_TIMEOUT s / $load_ready" ""
row "  PSS per desktop once idle, median / max (MiB)" "$pss_median / $(max <"$W/pss")" "<= 80"
row "  MemAvailable taken by all once idle (MiB)" "$(( (mem0 - mem1) / 1024 ))" ""
row "  idle CPU per desktop, median / max (% of a core)" "$(pct "$idle_median") / $(pct "$(max <"$W/idle")")" "<= 0.2"
row "  idle CPU of all $COUNT (% of a core)" "$(pct "$(awk '{ s += $1 } END { print s + 0 }' "$W/idle")")" ""
row "$COUNT concurrent stops (ms)" "$STOP_MS" ""
row "  failed stops / cgroups not empty after" "$STOP_FAILS / $STOP_NOT_EMPTY" "0 / 0"
row "  $SYSCTL" "$(sysctl -n "$SYSCTL")" ">= $need"
row "sizing: desktops per GiB of memory (1024 / PSS)" "$(( 1024 / (pss_median > 0 ? pss_median : 1) ))" ""
row "sizing: desktop starts per core-minute" \
        "$(( COUNT * 60000 / ((all_ready > 0 ? all_ready : 1) * $(nproc)) ))" ""
if [ -s "$W/stop.err" ]; then sort "$W/stop.err" | uniq -c | sed 's/^/  stop: /'; fi
cat "$W"/fleet*.err 2>/dev/null | sort | uniq -c | sed 's/^/  start: /' || true
