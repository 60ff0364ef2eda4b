#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What an agent pays end to end on six real tasks (the task bench): each
# task done twice on one real Xfce desktop through `botdesk mcp`, with the
# official SDK's client (tests/bench/tasks.cjs):
#
#   reference  the reference demo's loop: one computer action, a 2 s sleep,
#              a full screenshot, repeat; where it must wait for something
#              it sleeps 2 s and takes another screenshot until it sees it.
#              A step is one call and one picture, as the demo's tool
#              returns the screenshot as the action's result (botdesk's own
#              settled picture of the action is dropped, not counted).
#   botdesk    botdesk's best use: actions batched (one settled screenshot
#              for the batch), wait_until on the desktop's events instead
#              of screenshots in a loop, since_revision and changed_region
#              so that a picture already seen costs nothing and a small
#              change only its part, "screenshot": false (a batch's too)
#              where a wait's answer alone is enough.
#
# Per task and in total: wall time, screenshots returned, image bytes
# returned (base64-decoded: what the model reads) and tool calls, the
# median of ROUNDS runs; and every outcome, checked outside MCP. Prints the
# table and writes OUT/bench-tasks-DATE.txt, .json (the rows, as
# bench.sh's) and -runs.json (every run's calls, to see where time goes).
# Exits 1 when an outcome was wrong in either mode: a fast failure is no
# win. The targets (>= 10x less wall time, >= 60 % fewer image bytes) are
# printed beside the totals, not asserted.
#
#   tests/bench/tasks.sh [-n ROUNDS] [-b BUILD_DIR] [-o OUT_DIR]
#
# About 65 s a round (ROUNDS 3: some 3.5 minutes with the start). Needs
# node and the MCP SDK (scripts/install-deps.sh --tests puts it in
# /usr/local/lib/botdesk-tests; BOTDESK_MCP_SDK_DIR elsewhere), chromium,
# mousepad, zenity, xfce4-terminal and python3-gi. Standalone mode, a
# 1280x800 desktop (screenshots at scale 1) on displays 885-889, its home a
# scratch dir: nothing of the user's is read or written.
#
# The tasks, and why each is made as it is:
#   terminal  the dock's Terminal; a command that takes a second prints a
#             line (and writes it to a file); done when the terminal shows
#             it. Checked: the file, and the terminal's accessible text.
#   dialog    zenity --entry, started by the bench as an application would;
#             type a name, press OK. Checked: zenity's exit code and output.
#   browser   the dock's Web Browser; its address bar, a file:// page
#             whose title says "Report ready 42" half a second after it
#             loaded. Checked: the window's title (Chromium puts no page in
#             the accessibility tree without a flag).
#   editor    the dock's Text Editor (Mousepad); a paragraph, ctrl+s, the
#             full path in Save As, Return. Checked: the file's content.
#   menu      tests/bench/tasks-menu.py, a GTK window whose menu bar has
#             Report > Export > Format > Markdown among siblings, clicked
#             level by level. Checked: its exit code and the path it prints.
#   drag      report.txt onto the Archive folder, both icons on xfdesktop's
#             desktop. Checked: Archive/report.txt with its content, and
#             no report.txt left. xfdesktop's rather than Thunar's: a drop
#             in Thunar's list makes botdesk's settle wait, most times,
#             until the screen next changes (the panel clock's minute).
#
# Where the model must read the screen (where to click, whether what it
# waits for shows) the bench plays it from outside MCP: the window list,
# the accessibility tree, the pixels of a full screenshot for the desktop's
# icons. That time is taken out of the wall time in both modes, and it
# costs no tool call or image: the model's own thinking is not measured
# either. Each application is started once before anything is timed, and
# the modes take turns going first, so that neither pays a cold start.
set -euo pipefail

RUNS=3 OUT=$PWD
. "$(dirname "$0")/lib.sh"
bench_parse_options "n:RUNS b:BUILD o:OUT" "$@"
bench_build
SDK_DIR=${BOTDESK_MCP_SDK_DIR:-/usr/local/lib/botdesk-tests}
[ -d "$SDK_DIR/node_modules/@modelcontextprotocol/sdk" ] ||
        { echo "bench: the MCP SDK is not in $SDK_DIR (scripts/install-deps.sh --tests)" >&2; exit 2; }
for c in node chromium mousepad zenity xfce4-terminal; do
        command -v "$c" >/dev/null || { echo "bench: $c is needed" >&2; exit 2; }
done

bench_scratch tasks
mkdir -m700 "$W/home"
export HOME=$W/home
# The dock's Web Browser runs botdesk-browser: the build tree's, not an installed one.
export BOTDESK_BROWSER_LAUNCHER=$BUILD/helper/botdesk-browser
unset DISPLAY DBUS_SESSION_BUS_ADDRESS
P=tasks
cat >"$BOTDESK_CONFIG" <<EOF
[display]
band = 885-889
geometry = 1280x800
[resources]
min_free_memory_mb = 0
[session]
desktop = xfce
idle_stop_minutes = 0
start_timeout = 60
EOF
trap bench_cleanup EXIT

bench_table tasks
JSON=$OUT/bench-tasks-$STAMP.json RUNS_JSON=$OUT/bench-tasks-$STAMP-runs.json
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg) STARTED=$(date -u +%Y-%m-%dT%H:%MZ)
"$BOTDESK" start -q "$P" >/dev/null
# Every wait of the tasks is bounded inside (30 s each); the whole at 20 minutes.
rc=0
# Its progress, a line per run, on stderr as it goes.
timeout 1200 node "$SRC/tests/bench/tasks.cjs" "$SDK_DIR" "$BOTDESK" "$P" "$HOME" "$RUNS" >"$W/tasks.json" \
        2> >(tee "$W/tasks.err" >&2) || rc=$?
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
if ! [ -s "$W/tasks.json" ]; then
        echo "bench: tasks.cjs gave no figures (exit $rc)" >&2
        exit 2
fi
cp "$W/tasks.json" "$RUNS_JSON"

{
        echo "botdesk task bench: $STARTED, $(nproc) cores, $(uname -r), $RUNS rounds (medians)"
        echo "load average (1, 5, 15 min) at the start: $LOAD_START, at the end: $LOAD_END"
        echo
} | tee -a "$TABLE"
# The table, and the rows of the JSON: each measure names its task, what it counts and the mode.
python3 - "$W/tasks.json" "$JSON" "$STAMP" "$LOAD_START" "$LOAD_END" <<'PY' | tee -a "$TABLE"
import json, sys
out, path, stamp, load_start, load_end = json.load(open(sys.argv[1])), *sys.argv[2:]
line = "| %-8s | %12s | %11s | %6s | %11s | %16s | %15s | %11s | %10s | %8s |"
print(line % ("task", "wall ms, ref", "wall ms, bd", "faster", "screenshots", "image bytes, ref", "image bytes, bd",
              "fewer bytes", "tool calls", "outcomes"))
print(line % (("---",) * 10))
rows = []
def show(name, ref, best, target=("", "")):
    faster = "%.1fx" % (ref["wall_ms"] / best["wall_ms"]) if best["wall_ms"] else "n/a"
    fewer = "%.0f %%" % (100 * (1 - best["image_bytes"] / ref["image_bytes"])) if ref["image_bytes"] else "n/a"
    print(line % (name, ref["wall_ms"], best["wall_ms"], faster, "%d / %d" % (ref["screenshots"], best["screenshots"]),
                  ref["image_bytes"], best["image_bytes"], fewer, "%d / %d" % (ref["tool_calls"], best["tool_calls"]),
                  "%d of %d" % (ref["ok"] + best["ok"], ref["runs"] + best["runs"])))
    for mode, m in (("reference loop", ref), ("botdesk", best)):
        for key, what in (("wall_ms", "wall time (ms)"), ("screenshots", "screenshots returned"),
                          ("image_bytes", "image bytes returned"), ("tool_calls", "tool calls")):
            rows.append({"measure": "%s: %s, %s" % (name, what, mode), "value": str(m[key]), "target": ""})
        rows.append({"measure": "%s: outcomes right, %s" % (name, mode), "value": "%d of %d" % (m["ok"], m["runs"]),
                     "target": "all"})
    rows.append({"measure": "%s: wall time, reference over botdesk" % name, "value": faster, "target": target[0]})
    rows.append({"measure": "%s: image bytes, botdesk fewer by" % name, "value": fewer, "target": target[1]})
for t in out["tasks"]:
    show(t["task"], t["reference"], t["best"])
print(line % (("---",) * 10))
show("total", out["total"]["reference"], out["total"]["best"], (">= 10x", ">= 60 %"))
print(line % ("target", "", "", ">= 10x", "", "", "", ">= 60 %", "", "all"))
print()
print("ref: the reference loop (action, 2 s, screenshot); bd: botdesk's best use. Medians of %d rounds (the"
      " total: their sum); outcomes: right in both modes, of all runs." % out["rounds"])
stalled = out["total"]["reference"]["stalled"] + out["total"]["best"]["stalled"]
if stalled:
    print("%d action calls took over 5 s (settle waiting on the screen's next change): see -runs.json" % stalled)
rows.append({"measure": "action calls over 5 s, both modes, all rounds", "value": str(stalled), "target": "0"})
seen = set()
dup = [r["measure"] for r in rows if r["measure"] in seen or seen.add(r["measure"])]
if dup:
    sys.exit("bench: measures named twice: " + ", ".join(dup))
with open(path, "w") as f:
    json.dump({"date": stamp, "load_average": {"start": load_start.split(), "end": load_end.split()}, "rows": rows}, f, indent=1)
PY
if [ "$rc" != 0 ]; then
        echo "bench: an outcome was wrong, or the bench failed (tasks.cjs exit $rc)" >&2
        exit 1
fi
