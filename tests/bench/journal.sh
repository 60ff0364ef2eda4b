#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What the journal of agent actions costs (issue 28's targets): the latency
# of `botdesk input click` from a fresh process, p50, with [journal] enabled
# = no and = yes, alternating on one desktop, paced as an agent acts (250 ms
# between actions, so the frame of one is taken before the next) and back
# to back in blocks of 10 (the next action then waits for the previous
# frame's grab); and the journal's bytes per
# 1,000 actions at the default frame_width (640). Prints figures; asserts
# nothing.
#
#   tests/bench/journal.sh [-n ACTIONS] [-b BUILD_DIR] [-o OUT_DIR]
#
# A command desktop (xeyes, which follows the pointer, so every frame
# differs a little) at 1440x900 on displays 360-364.
set -euo pipefail

RUNS=100 OUT=$PWD
. "$(dirname "$0")/lib.sh"
bench_parse_options "n:RUNS b:BUILD o:OUT" "$@"
bench_build
command -v xeyes >/dev/null || { echo "bench: xeyes (x11-apps) is needed" >&2; exit 2; }

bench_scratch journal
P=jbench
config() {
        cat >"$W/botdesk.ini" <<EOF
[display]
band = 360-364
geometry = 1440x900
[resources]
min_free_memory_mb = 0
[session]
desktop = command
command = xeyes -geometry 1440x900+0+0
command_settle_ms = 300
idle_stop_minutes = 0
[journal]
enabled = $1
EOF
}
trap bench_cleanup EXIT

bench_table journal

# clicks PAUSE BLOCK: RUNS clicks with the journal off and RUNS with it on,
# PAUSE seconds after each, alternating every BLOCK clicks on one desktop
# (the configuration is read again by every action), so that a change in
# the machine's load weighs on both alike. Each click is timed from its
# spawn until it has been reaped, as an agent's harness sees it return
# (a shell's $(date) after it would time date's own start as well). Sets
# OFF and ON, p50s in us.
clicks() {
        local out
        out=$(python3 - "$1" "$2" "$RUNS" "$BOTDESK" "$P" "$W/botdesk.ini" <<'PY'
import statistics, subprocess, sys, time
pause, block, runs, botdesk, profile, ini = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:]
def config(enabled):
    text = open(ini).read().replace("enabled = no" if enabled == "yes" else "enabled = yes", "enabled = " + enabled)
    open(ini, "w").write(text)
took = {"no": [], "yes": []}
k = 0
while len(took["yes"]) < runs:
    for mode in ("no", "yes"):
        config(mode)
        for _ in range(block):
            k += 1
            t0 = time.perf_counter_ns()
            subprocess.run([botdesk, "input", profile, "click", str(100 + k % 700), str(100 + k % 500)],
                           stdout=subprocess.DEVNULL, check=True)
            took[mode].append((time.perf_counter_ns() - t0) // 1000)
            if pause:
                time.sleep(pause)
print(int(statistics.median(took["no"])), int(statistics.median(took["yes"])))
PY
)
        read -r OFF ON <<<"$out"
}

config yes
"$BOTDESK" start -q "$P" >/dev/null
"$BOTDESK" input "$P" move 1 1 >/dev/null
J=$XDG_STATE_HOME/botdesk/$P/journal
rm -rf -- "${J:?}"
clicks 0.25 1
off_paced=$OFF on_paced=$ON
# Back to back: in blocks, so that an action with the journal on follows one that took a frame.
clicks 0 10
off_b2b=$OFF on_b2b=$ON
# Every frame written before the journal is weighed.
for _ in $(seq 50); do
        [ "$(ls "$J/frames" | grep -c '\.jpg$')" -ge $((2 * RUNS)) ] && break
        sleep 0.1
done
bytes=$(du -sb "$J" | cut -f1)

pct() { python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print("%+.1f" % (100 * (b - a) / a))' "$1" "$2"; }
row "measure" "value" "target"
row "---" "---" "---"
row "input click, journal off, paced 250 ms (us, p50)" "$off_paced" ""
row "input click, journal on, paced 250 ms (us, p50)" "$on_paced" ""
row "  added (%)" "$(pct "$off_paced" "$on_paced")" "<= 5"
row "input click, journal off, back to back (us, p50)" "$off_b2b" ""
row "input click, journal on, back to back (us, p50)" "$on_b2b" ""
row "  added (%)" "$(pct "$off_b2b" "$on_b2b")" ""
row "journal bytes per 1,000 actions (frame_width 640)" "$((bytes * 1000 / (2 * RUNS)))" ""
row "journal bytes per action" "$((bytes / (2 * RUNS)))" ""
