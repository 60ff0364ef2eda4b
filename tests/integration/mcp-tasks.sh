#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Tasks extension of MCP 2026-07-28 on botdesk mcp's stdio, driven in
# raw JSON-RPC (mcp-tasks-client.cjs): server/discover names the extension;
# wait_until called by a client that declares it is a task at once, working
# until the window the test then opens exists, and completed with what
# matched; a task cancelled is cancelled, its process gone, the server
# serving on; an id never made is -32602 for get and cancel, a get from a
# client that did not declare the extension -32021; without the extension
# the call is answered in its request; ask_human as a task completes once
# the human took control and handed it back, and cancelled withdraws its
# request for control; 16 working tasks and the next is refused with words;
# the input ending ends every task's process; a 2025 connection has no
# tasks. All of it again over Streamable HTTP on a socket of botdesk mcp's
# own (--listen unix:), whose one process keeps the tasks between requests
# (there SIGTERM ends the server and its tasks). Band 735 (once: the
# protocol is what varies, not the caller).
. "$(dirname "$0")/lib.sh"
bd_init tasks 735 once
bd_need_xserver
bd_need node xfwm4 xmessage
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config desktop=xfce timeout=60
P=$(bd_profile a)
TITLE=botdesk-tasks-$$
t_ok "the desktop starts" bd_start "$P"

# judge MODE: run the raw client (over MODE: stdio or http) and judge its steps.
judge() {
        local sockdir= W=
        if [ "$1" = http ]; then
                sockdir=$(mktemp -d "$BD_T/http.XXXXXX") && chmod 0700 "$sockdir"
                W="HTTP: "
        fi
        t0=$(date +%s)
        timeout 150 node "$(dirname "$0")/mcp-tasks-client.cjs" "$BOTDESK" "$P" "$TITLE" $sockdir >"$BD_T/steps" 2>"$BD_T/client.err"
        rc=$?
        t_is "$rc" 0 "${W}the raw client ran every step (exit 0; took $(($(date +%s) - t0)) s of 150)"
        [ "$rc" = 0 ] || { t_diag "$(tail -5 "$BD_T/client.err")"; t_diag "$(tail -3 "$BD_T/steps")"; }
        pid=$(grep '"step":"window"' "$BD_T/steps" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["pid"])' 2>/dev/null)
        [ -n "$pid" ] && bd_own_pid "$pid"

        get() { grep "\"step\":\"$1\"" "$BD_T/steps" | head -n1 |
                "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {"json": json}, {"d": d}))' "$2" 2>&1; }

        t_is "$(get discover 'd["extensions"]')" "{'io.modelcontextprotocol/tasks': {}}" \
                "${W}server/discover names the Tasks extension among its capabilities' extensions"
        t_is "$(get created '(d["result"]["resultType"], d["result"]["status"], len(d["result"]["taskId"]), d["result"]["ttlMs"] > 600000, d["result"]["pollIntervalMs"], "createdAt" in d["result"], d["children"])')" \
                "('task', 'working', 32, True, 1000, True, 1)" \
                "${W}wait_until for a window not yet there is a task at once: working, a 128-bit id, its ttl and poll interval, one process"
        t_is "$(get working '(d["result"]["resultType"], d["result"]["status"], "result" in d["result"])')" \
                "('complete', 'working', False)" "${W}tasks/get before the window exists says working, with no result"
        t_is "$(get completed '(d["result"]["status"], d["result"]["result"]["isError"], d["text"]["ok"], d["text"]["title"], d["children"])')" \
                "('completed', False, True, '$TITLE', 0)" \
                "${W}once the window opens, tasks/get says completed with wait_until's result inline (the window's title), its process gone"
        t_is "$(get completed 'd["seen"][0]')" working "${W}... after a get that still said working"
        t_is "$(get cancelled '(d["before"], d["after"], d["cancel"]["result"]["resultType"], d["get"]["status"])')" \
                "(1, 0, 'complete', 'cancelled')" "${W}tasks/cancel of a working wait: acknowledged, its process gone, get says cancelled"
        t_is "$(get cancelled '(d["status"], d["statusError"])')" "('complete', False)" "${W}... and the server serves the next call"
        t_is "$(get unknown '(d["get"]["code"], d["cancel"]["code"], "not found" in d["get"]["message"])')" "(-32602, -32602, True)" \
                "${W}an id never made: tasks/get and tasks/cancel are -32602, task not found"
        t_is "$(get unknown 'd["update"]["resultType"]')" complete "${W}tasks/update of a known task is acknowledged (it asks for no input)"
        t_is "$(get unknown '(d["undeclared"]["code"], list(d["undeclared"]["data"]["requiredCapabilities"]["extensions"]))')" \
                "(-32021, ['io.modelcontextprotocol/tasks'])" "${W}tasks/get from a request that does not declare the extension: -32021 naming it"
        t_is "$(get no_extension '(d["result"]["resultType"], d["result"]["isError"], "taskId" in d["result"])')" \
                "('complete', False, False)" "${W}without the extension, wait_until is answered in its request, as before"
        t_is "$(get ask '(d["created"]["resultType"], d["pending"]["reason"], d["mid"]["status"])')" \
                "('task', 'solve the captcha', 'working')" "${W}ask_human as a task: a handle at once, the request for control pending, working"
        t_is "$(get ask '(d["result"]["status"], d["text"]["outcome"], d["text"]["control"])')" "('completed', 'returned', 'agent')" \
                "${W}... the human takes control and hands it back: completed, outcome returned"
        t_is "$(get ask_cancelled '(d["pending"]["reason"], d["status"], d["after"])')" "('approve the payment', 'cancelled', None)" \
                "${W}ask_human's task cancelled: cancelled, and its request for control withdrawn"
        t_is "$(get cap '(d["kinds"], d["running"], d["over"]["isError"], "Too many tasks" in d["over"]["content"][0]["text"], d["left"])')" \
                "(['task'], 16, True, True, 0)" "${W}16 working tasks, the 17th refused in words (isError); all cancelled, no process left"
        t_is "$(get end '(d["code"], d["children"], d["alive"])')" "(0, 1, 0)" \
                "${W}the input ends (over HTTP: a SIGTERM) with a task working: the server exits 0 and the task's process is gone"
        t_is "$(get legacy '("taskId" in d["result"], d["result"]["isError"], d["get"]["code"])')" "(False, False, -32601)" \
                "${W}a 2025 connection: wait_until answered in its request, tasks/get is no method of that revision"
}
judge stdio
judge http
t_done
