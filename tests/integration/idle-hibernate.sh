#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# [session] idle_action = hibernate: a checkpointable desktop nobody uses
# hibernates by itself after idle_stop_minutes instead of stopping, under
# an agent's idle MCP session (--start), whose next call resumes it; one
# whose lease a human holds does not. (The
# shortest limit is a minute, so this test takes a little over one.) Needs
# root and CRIU 4.1 or later, as hibernate.sh.
. "$(dirname "$0")/lib.sh"
bd_init ihb 815 once
bd_need_xserver
bd_need zenity xfwm4 cmp
bd_need_criu
A=$(bd_profile a)
B=$(bd_profile b)

bd_config command="sh -c 'xfwm4 & exec zenity --scale --title=idle-test --text=idle-test --value=40'" \
        checkpointable=yes criu="$CRIU" idle=1 idle_action=hibernate timeout=30
t_match "$("$BOTDESK" config show 2>/dev/null | grep '^idle_action')" 'hibernate' "the configuration says idle_action = hibernate"
t0=$EPOCHREALTIME
bd_start "$A"
t_is "$?" 0 "desktop A starts"
bd_start "$B"
t_is "$?" 0 "desktop B starts"
HA=$(rec_get "$A" PID)
HB=$(rec_get "$B" PID)
"$BOTDESK" lease "$B" take --viewer watcher >/dev/null
t_is "$?" 0 "a human takes B's lease"
# The window up and the screen settled first: a picture taken while zenity maps would differ from any later.
window_up() { "$BOTDESK" windows "$A" 2>/dev/null | grep -q idle-test; }
wait_for 20 window_up || echo "# A's window did not come up within 20 s"
"$BOTDESK" settle "$A" >/dev/null 2>&1
bd_shot_stable "$A" "$BD_T/before.png"
# An agent's MCP session on A, open and idle all the while, as an agent waiting for its user keeps one.
coproc MCP { exec timeout 300 "$BOTDESK" mcp "$A" --start 2>"$BD_T/mcp.err"; }
MCP_OUT=${MCP[0]} MCP_IN=${MCP[1]}
bd_own_pid "$MCP_PID"
printf '%s\n' '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}' \
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}' >&"$MCP_IN"
IFS= read -r -t 60 INIT <&"$MCP_OUT"
t_match "$INIT" '"protocolVersion"' "an agent's MCP session on A is open"

# Test-side wait: up to 100 s for A's helper to end by itself.
end=$((SECONDS + 100))
while proc_alive "$HA" && [ $SECONDS -lt $end ]; do sleep 0.5; done
lasted=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
t_ok "A's helper ends by itself after a minute idle" test $SECONDS -lt $end
t_ok "... not before the minute (${lasted} s)" awk -v l="$lasted" 'BEGIN { exit !(l >= 59) }'
"$BOTDESK" status "$A" --json >"$BD_T/a.json" 2>/dev/null
t_ok "A is hibernated, not stopped" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d["hibernated"])' "$BD_T/a.json"
t_match "$(cat "$(bd_rt "$A")/helper.log" 2>/dev/null)" 'hibernating desktop.*idle_action' "... and its log says why"
t_ok "B, under a human's hold, runs on" proc_alive "$HB"
# The agent's next call resumes it, the session never having closed.
printf '%s\n' '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "computer", "arguments": {"action": "cursor_position"}}}' >&"$MCP_IN"
IFS= read -r -t 120 ANSWER <&"$MCP_OUT"
t_match "$ANSWER" '"id": ?2' "the agent's next call is answered (waited at most 120 s)"
t_ok "... not as an error" bash -c '! grep -q "\"isError\": *true" <<<"$1"' _ "$ANSWER"
"$BOTDESK" status "$A" --quiet
t_is "$?" 0 "... A running again"
t_match "$(cat "$(bd_rt "$A")/helper.log" 2>/dev/null)" 'Restored desktop' "... resumed from its images by that call"
"$BOTDESK" thumbnail "$A" --output "$BD_T/after.png" >/dev/null 2>&1
t_ok "... the same screen" cmp -s "$BD_T/before.png" "$BD_T/after.png"
exec {MCP_IN}>&-
"$BOTDESK" lease "$B" release --viewer watcher >/dev/null
bd_stop "$A"
bd_stop "$B"
t_done
