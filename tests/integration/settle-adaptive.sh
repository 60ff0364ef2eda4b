#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The adaptive settle of botdesk mcp's actions: an X client of the test's
# own (frame-painter.c) paints frames on a click. Three frames, 50 then
# 120 ms apart, with settle_min_ms 100: the second gap is longer than the
# least window, and is waited for only because the window learnt from the
# first gap (three times it) outlasts it; the window then learnt from the
# second (three times 120 ms, within settle_max_ms 400) is reported as
# settle_window_ms, and the settled screenshot is the picture a second
# later shows (since_revision: unchanged). One frame with settle_min_ms =
# settle_max_ms = 90 ends on exactly 90 ms (the bounds are read, and a max
# below the min is the min); settle_min_ms = 0 keeps the fixed 150 ms.
# Band 770-774, main variant only.
. "$(dirname "$0")/lib.sh"
bd_init sad 770 once
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"
[ -x "${BOTDESK_FRAME_PAINTER:-}" ] || t_skip_all "frame-painter not built (BOTDESK_FRAME_PAINTER)"
bd_config
P=$(bd_profile a)
O=$BD_T/out
CONFIG=$BOTDESK_CONFIG
cp "$CONFIG" "$BD_T/base.ini"

# agent KEY=VALUE...: the test's configuration with these [agent] keys (read by each botdesk mcp at its start).
agent() { { cat "$BD_T/base.ini"; printf '[agent]\n'; printf '%s\n' "$@"; } >"$CONFIG"; }

# painter [GAP...]: the painter, alone on the screen, waited for (bounded: 30 s) until it says it is shown.
PAINTER=
painter() {
        [ -n "$PAINTER" ] && { kill -TERM "$PAINTER" 2>/dev/null; wait "$PAINTER" 2>/dev/null; }
        : >"$O/painter.out"
        "$BOTDESK" exec "$P" -- "$BOTDESK_FRAME_PAINTER" "$@" >"$O/painter.out" 2>>"$O/painter.err" &
        PAINTER=$!
        bd_own_pid "$PAINTER"
        wait_for 30 grep -qx ready "$O/painter.out" || t_fail "the painter is shown within 30 s" "$(tail -n 3 "$O/painter.err")"
}

# step: over botdesk mcp, a left_click on the painter, then a second later a screenshot since the click's
# revision; one line: settle, settle_window_ms, and whether the later screen was unchanged.
step() {
        timeout 60 "$PY" - "$BOTDESK" "$P" <<'PYEOF' 2>>"$O/step.err"
import json, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "mcp", sys.argv[2]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def call(i, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m
call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
tool = lambda i, args: json.loads(call(i, "tools/call", {"name": "computer", "arguments": args})["result"]["content"][0]["text"])
click = tool(2, {"action": "left_click", "coordinate": [300, 200]})
time.sleep(1)
later = tool(3, {"action": "screenshot", "since_revision": click["revision"]})
print(click.get("settle"), click.get("settle_window_ms"), later.get("unchanged"))
p.stdin.close()
p.wait()
PYEOF
}

bd_start "$P"
rc=$?
t_is "$rc" 0 "the desktop starts"
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }

# ---- frames apart: learnt from their gaps --------------------------------------------------------
agent "settle_min_ms = 100" "settle_max_ms = 400"
painter 50 120
read -r settle window unchanged < <(step)
t_is "$settle $unchanged" "settled True" \
        "frames 50 then 120 ms apart: settled on the last one (a second later the screen is the settled picture)" ||
        t_diag "$(cat "$O/painter.out")"
t_ok "... on a window learnt from the longer gap, more than 3 x 50 ms, at most settle_max_ms 400 (it was $window)" \
        test "${window:-0}" -gt 150 -a "${window:-0}" -le 400
t_is "$(grep -c '^frame' "$O/painter.out")" 3 "... and the painter painted its three frames"

# ---- the bounds ------------------------------------------------------------------------------------
agent "settle_min_ms = 90" "settle_max_ms = 10"
painter
read -r settle window unchanged < <(step)
t_is "$settle $window $unchanged" "settled 90 True" \
        "one frame, settle_min_ms 90 and a settle_max_ms below it: quiet 90 ms after it, the settled picture final"
agent "settle_min_ms = 0"
read -r settle window unchanged < <(step)
t_is "$settle $window $unchanged" "settled 150 True" "settle_min_ms = 0: the fixed 150 ms window"

kill -TERM "$PAINTER" 2>/dev/null
wait "$PAINTER" 2>/dev/null
t_done
