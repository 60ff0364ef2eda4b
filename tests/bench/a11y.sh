#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The accessibility tree's figures (issue: the tree of the desktop): the
# idle PSS of a desktop with and without [session] accessibility, the full
# tree of a desktop with two application windows (nodes, ms) and --find of
# one button (ms). Prints a table; asserts nothing.
#
#   tests/bench/a11y.sh [-n RUNS] [-b BUILD_DIR]
#
# Standalone mode, real Xvnc + Xfce, displays 285-289; every desktop it
# starts is stopped.
set -euo pipefail

RUNS=10
. "$(dirname "$0")/lib.sh"
bench_parse_options "n:RUNS b:BUILD" "$@"
bench_build

bench_scratch a11y
unset DISPLAY DBUS_SESSION_BUS_ADDRESS
config() {
        printf '[display]\nband = 285-289\n[resources]\nmin_free_memory_mb = 0\n[session]\nidle_stop_minutes = 0\nstart_timeout = 60\naccessibility = %s\n' \
                "$1" >"$BOTDESK_CONFIG"
}
trap bench_cleanup EXIT
PY=/usr/bin/python3
row() { printf '| %-48s | %10s | %-16s |\n' "$1" "$2" "$3"; }
desktop_pss() {
        local cg
        cg=$(sed -n 's/^CGROUP=//p' "$W/run/botdesk/$1/helper")
        # The helper's own PSS with the rest: the figure is the desktop's.
        pss_of $(find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null) "$(sed -n 's/^PID=//p' "$W/run/botdesk/$1/helper")"
}
# An idle desktop's PSS, 10 s after ready (Xfce writes its settings and settles first).
idle_pss() {
        config "$1"
        "$BOTDESK" start -q "idle-$1" >/dev/null
        sleep 10
        echo $(( $(desktop_pss "idle-$1") / 1024 ))
        # The launcher, its bus and the registry (found by their names among the desktop's).
        if [ "$1" = yes ]; then
                local cg pids=() p
                cg=$(sed -n 's/^CGROUP=//p' "$W/run/botdesk/idle-$1/helper")
                for p in $(find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null); do
                        grep -qE 'at-spi|accessibility.conf' "/proc/$p/cmdline" 2>/dev/null && pids+=("$p")
                done
                echo "$(( $(pss_of "${pids[@]}") / 1024 ))" >"$W/bus-pss"
        fi
        "$BOTDESK" stop -q "idle-$1" >/dev/null
}

echo "botdesk a11y benchmark: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(uname -r)"
row "measure" "value" "target"
row "---" "---" "---"
# Alternately, three of each: the median.
nos=() yeses=()
for i in 1 2 3; do nos+=("$(idle_pss no)"); yeses+=("$(idle_pss yes)"); done
no=$(printf '%s\n' "${nos[@]}" | median) yes=$(printf '%s\n' "${yeses[@]}" | median)
bus_pss=$(cat "$W/bus-pss")
row "idle desktop PSS, accessibility = no (MiB)" "$no" ""
row "idle desktop PSS, accessibility = yes (MiB)" "$yes" "the difference: its cost"
row "  the accessibility bus's processes alone (MiB)" "$bus_pss" ""

config yes
"$BOTDESK" start -q tree >/dev/null
for t in one two; do
        "$BOTDESK" exec tree -- "$PY" "$SRC/tests/integration/a11y-app.py" "bench $t" /dev/null >/dev/null 2>&1 &
done
for ((i = 0; i < 100; i++)); do
        [ "$("$BOTDESK" a11y tree --find 'role=push button,name==Save' --json 2>/dev/null | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["count"])' 2>/dev/null)" = 2 ] && break
        sleep 0.2
done
nodes=$("$BOTDESK" a11y tree --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["nodes_read"])')
tree=() find=()
for ((i = 0; i < RUNS; i++)); do
        t0=$(date +%s%N); "$BOTDESK" a11y tree --json >/dev/null; tree+=("$(ms "$t0")")
        t0=$(date +%s%N); "$BOTDESK" a11y tree --find 'role=push button,name==Save' >/dev/null; find+=("$(ms "$t0")")
done
row "full tree, Xfce + two GTK windows (nodes)" "$nodes" "<= 2000"
row "  full tree, a fresh botdesk a11y --json (ms)" "$(printf '%s\n' "${tree[@]}" | median)" "<= 300"
row "--find of one button, a fresh process (ms)" "$(printf '%s\n' "${find[@]}" | median)" "<= 50"
t0=$(date +%s%N); "$BOTDESK" windows tree >/dev/null; t0=$(ms "$t0")
row "  for scale: botdesk windows, a fresh process (ms)" "$t0" ""

# A window of many elements: the tree at the size of the cap.
"$BOTDESK" exec tree -- "$PY" "$SRC/tests/integration/a11y-app.py" "bench big" /dev/null 900 >/dev/null 2>&1 &
for ((i = 0; i < 100; i++)); do
        "$BOTDESK" a11y tree --find 'name==Item 899' 2>/dev/null | grep -q '^1 found' && break
        sleep 0.2
done
big=() nodes=
for ((i = 0; i < RUNS; i++)); do
        t0=$(date +%s%N); "$BOTDESK" a11y tree --json >"$W/big.json"; big+=("$(ms "$t0")")
done
nodes=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["nodes_read"], "cut" if d["cut"] else "")' "$W/big.json")
row "full tree with a window of 900 buttons (nodes)" "$nodes" "<= 2000"
row "  full tree, a fresh botdesk a11y --json (ms)" "$(printf '%s\n' "${big[@]}" | median)" "<= 300"
