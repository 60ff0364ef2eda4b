#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# subscriptions/listen of MCP 2026-07-28 on botdesk mcp's stdio, driven in
# raw JSON-RPC (mcp-subscriptions-client.cjs): server/discover says
# resources can be subscribed to; a listen is acknowledged with the URIs
# botdesk serves (botdesk://P/lease, windows, screen) and nothing else; the
# human taking and handing back control, a window opening and closing, are
# each a notifications/resources/updated within a bounded wait, and a screen
# that keeps changing at most one per 500 ms; a filter that is not one is
# -32602, an id in use -32600, a fifth listen -32603, a second and an empty
# one allowed; cancelled, a subscription sends nothing more, its process is
# gone and the server serves on; the input ending ends every listener; a
# 2025 connection has no such method; the desktop stopping ends a listen
# with a completion, then notifications/cancelled. Then the same over
# Streamable HTTP (botdesk mcp --listen unix:): a listen's response is an
# event stream, a client closing it or notifications/cancelled ends the
# subscription, the server ending one ends the stream, and the desktop's
# stop ends the server (exit 4). Then all of it through botdesk web
# (/PROFILE/mcp, a bearer token), whose server kept for the desktop holds
# the subscriptions and a task that later requests follow, and ends with
# the desktop. Band 745 (once: the protocol is what varies, not the caller).
. "$(dirname "$0")/lib.sh"
bd_init subscriptions 745 once
bd_need_xserver
bd_need node xfwm4 xmessage
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config desktop=xfce timeout=60
P=$(bd_profile a)
TITLE=botdesk-subs-$$
t_ok "the desktop starts" bd_start "$P"

t0=$(date +%s)
timeout 200 node "$(dirname "$0")/mcp-subscriptions-client.cjs" "$BOTDESK" "$P" "$TITLE" >"$BD_T/steps" 2>"$BD_T/client.err"
rc=$?
t_is "$rc" 0 "the raw client ran every step (exit 0; took $(($(date +%s) - t0)) s of 200)"
[ "$rc" = 0 ] || { t_diag "$(tail -5 "$BD_T/client.err")"; t_diag "$(tail -3 "$BD_T/steps")"; }
pid=$(grep '"step":"window"' "$BD_T/steps" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["pid"])' 2>/dev/null)
[ -n "$pid" ] && bd_own_pid "$pid"

get() { grep "\"step\":\"$1\"" "$BD_T/steps" | head -n1 |
        "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {"json": json}, {"d": d}))' "$2" 2>&1; }

t_is "$(get discover 'd["resources"]')" "{'listChanged': False, 'subscribe': True}" \
        "server/discover says resources can be subscribed to (and their list never changes)"
t_is "$(get ack '(sorted(d["notifications"]["resourceSubscriptions"]), list(d["notifications"]), d["children"], d["first"])')" \
        "(['botdesk://$P/lease', 'botdesk://$P/screen', 'botdesk://$P/windows'], ['resourceSubscriptions'], 1, 0)" \
        "a listen is acknowledged first, with this desktop's three URIs alone (another profile's, a file, the tool list left out), one process"
t_is "$(get took '(d["meta"]["holder"], d["ms"] is not None and d["ms"] < 10000)')" "('human', True)" \
        "the human takes control: a lease notification within 10 s, saying who holds it"
t_is "$(get released '(d["meta"]["holder"], d["ms"] is not None and d["ms"] < 10000)')" "('agent', True)" \
        "the human hands back: a lease notification within 10 s"
t_is "$(get opened '(d["ms"] is not None and d["ms"] < 15000, d["id"] is not None and d["id"] > 0)')" "(True, True)" \
        "a window opens: a windows notification within 15 s naming it and its title"
t_is "$(get closed '(d["ms"] is not None and d["ms"] < 15000, d["reopened"])')" "(True, 0)" \
        "the window closes: a windows notification within 15 s naming it among the closed, not the opened (others opened: $(get closed 'd["others"]'))"
t_is "$(get screen '(d["count"] >= 1, d["count"] <= d["span"] // 500 + 1, d["hasMeta"])')" "(True, True, False)" \
        "a screen changing for 3 s: screen notifications, at most one per 500 ms ($(get screen 'd["count"]') in $(get screen 'd["span"]') ms)"
t_is "$(get screen 'd["minGap"] is None or d["minGap"] >= 400')" True \
        "... never two within the throttle (the closest $(get screen 'd["minGap"]') ms apart, 400 allowed for the pipe's jitter)"
t_is "$(get bad 'd["refused"]')" "{'missing': -32602, 'not_array': -32602, 'not_string': -32602, 'not_bool': -32602}" \
        "a filter that is not one (missing, URIs not a list, not strings, a flag not a boolean) is -32602"
t_is "$(get bad '(d["dup"], d["second"], d["empty"], d["fourth"], d["over"], d["children"])')" \
        "(-32600, {'resourceSubscriptions': ['botdesk://$P/lease']}, {}, True, -32603, 3)" \
        "the id of an open listen is -32600; a second listen is served, an empty one acknowledged empty (no process), a fifth -32603"
t_is "$(get both '(d["one"], d["two"])')" "(True, True)" "two listens of the lease each hear the human take it, under their own id"
t_is "$(get cancelled '(d["status"], d["statusError"])')" "('complete', False)" \
        "subscriptions cancelled: the server answers the next tools/call status"
t_is "$(get cancelled '(d["children"], d["other"], d["after"], d["responses"])')" "(1, True, 0, 0)" \
        "... their processes gone, no response to them, nothing more of them, the one not cancelled hearing on"
t_is "$(get end '(d["code"], d["children"], d["alive"])')" "(0, 1, 0)" \
        "the input ends with a listener open: the server exits 0 and the listener's process is gone"
t_is "$(get legacy 'd["error"]["code"]')" -32601 "a 2025 connection: subscriptions/listen is no method of that revision"
t_is "$(get stopped '(d["acked"], d["result"], d["cancel"], d["order"])')" \
        "(True, {'resultType': 'complete', '_meta': {'io.modelcontextprotocol/subscriptionId': 9}}, 9, True)" \
        "the desktop stops under a listen: the server ends it with a completion, then notifications/cancelled for its id"

# streams W: the checks of the event streams' steps (mcp-subscriptions-http-client.cjs), over HTTP and through
# web alike; W heads each check's name ("" or "through web, ").
streams() {
        local W=$1
        t_is "$(get ack '(d["status"], d["type"], sorted(d["notifications"]["resourceSubscriptions"]), d["first"], d["children"])')" \
                "(200, 'text/event-stream', ['botdesk://$P/lease', 'botdesk://$P/windows'], 0, 1)" \
                "${W}a listen's response is an event stream whose first event acknowledges the URIs botdesk serves; one process"
        t_is "$(get took 'd["ms"] is not None and d["ms"] < 10000')" True \
                "${W}the human takes control: a lease event on the stream within 10 s"
        t_is "$(get released 'd["ok"]')" True "... and hands back: another"
        t_is "$(get beside '(d["status"], d["statusType"], d["bad"], d["badType"], d["badCode"])')" \
                "(200, 'application/json', 200, 'application/json', -32602)" \
                "${W}while a stream is open other requests are answered, and a filter that is not one is a JSON -32602"
        t_is "$(get closed 'd["children"]')" 0 "${W}the client closes its stream: the subscription's process goes (within 10 s)"
        t_is "$(get cancelled '(d["acked"], d["status"], d["ended"], d["children"])')" "(True, 202, True, 0)" \
                "${W}notifications/cancelled for an open stream: 202, the server ends that stream and its process"
        t_is "$(get stopped '(d["acked"], d["result"]["resultType"], d["cancel"], d["order"], d["ended"])')" \
                "(True, 'complete', 'sub-3', True, True)" \
                "${W}the desktop stops under a stream: a completion, then notifications/cancelled, then the stream ends"
}

# ---- the same over Streamable HTTP (botdesk mcp --listen unix:) ----------------------------------------
t_ok "the desktop starts again" bd_start "$P"
mkdir -m 700 "$BD_T/http"
t0=$(date +%s)
timeout 200 node "$(dirname "$0")/mcp-subscriptions-http-client.cjs" "$BOTDESK" "$P" "$BD_T/http/mcp.sock" \
        >"$BD_T/steps" 2>"$BD_T/client-http.err"
rc=$?
pid=$(get server 'd["pid"]')
[ -n "$pid" ] && bd_own_pid "$pid"
t_is "$rc" 0 "over HTTP, the raw client ran every step (exit 0; took $(($(date +%s) - t0)) s of 200)"
[ "$rc" = 0 ] || { t_diag "$(tail -5 "$BD_T/client-http.err")"; t_diag "$(tail -3 "$BD_T/steps")"; }
t_is "$(get discover 'd["resources"]["subscribe"]')" True "over HTTP, server/discover says resources can be subscribed to"
streams ""
t_is "$(get end '(d["code"], d["socket"])')" "(4, False)" \
        "... and the server itself ends once its streams have (exit 4: not running), its socket removed"

# ---- the same through botdesk web: the server it keeps for the desktop ----------------------------------
t_ok "the desktop starts a third time" bd_start "$P"
mkdir -p "$BD_T/out"
web_start w "$BOTDESK" web --listen "unix:$BD_T/web.sock"
t_is "$?" 0 "botdesk web listens on a Unix socket"
TOKEN=$("$BOTDESK" web token "$P" --for mcp --ttl 300)
t0=$(date +%s)
timeout 200 node "$(dirname "$0")/mcp-subscriptions-http-client.cjs" "$BOTDESK" "$P" "$BD_T/web.sock" "$TOKEN" \
        "$WEB_PID" "$TITLE-web" >"$BD_T/steps" 2>"$BD_T/client-web.err"
rc=$?
t_is "$rc" 0 "through web, the raw client ran every step (exit 0; took $(($(date +%s) - t0)) s of 200)"
[ "$rc" = 0 ] || { t_diag "$(tail -5 "$BD_T/client-web.err")"; t_diag "$(tail -3 "$BD_T/steps")"; t_diag "$(tail -5 "$BD_T/out/w.err")"; }
pid=$(get window 'd["pid"]')
[ -n "$pid" ] && bd_own_pid "$pid"
t_is "$(get discover '(d["resources"]["subscribe"], list(d["extensions"]))')" "(True, ['io.modelcontextprotocol/tasks'])" \
        "through web, server/discover names subscriptions and the Tasks extension (the kept server runs both)"
t_is "$(get task '(d["kind"], d["working"], d["running"])')" "('task', 'working', 1)" \
        "through web, wait_until of a client that declares Tasks is a task at once, working on a later request, one process"
t_is "$(get task '(d["status"], d["title"], d["after"])')" "('completed', '$TITLE-web', 0)" \
        "... the window opens: tasks/get on another request says completed with the title, its process gone"
streams "through web, "
t_is "$(get end 'd["webChildren"]')" 0 "... and the server web kept for the desktop ends with it (within 10 s)"
t_is "$(get end '(d["after"]["status"], d["after"]["type"])')" "(503, 'application/json')" \
        "through web, with the desktop stopped, a request for the kept server is 503 in JSON (not running)"
kill "$WEB_PID"; wait "$WEB_PID" 2>/dev/null
t_done
