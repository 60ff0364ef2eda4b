#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk mcp driven by the official MCP TypeScript SDK v2's client (pinned,
# installed by scripts/install-deps.sh --tests) in each of its ways to agree
# on a revision: pinned to the stateless 2026-07-28 (server/discover, the
# _meta envelope on every request), "auto" (which probes with
# server/discover on a short-lived second `botdesk mcp` and then keeps
# 2026-07-28), and its default, the 2025-11-25 initialize. In each: the
# tools, every schema compiling with ajv and the same names `botdesk mcp
# --help` lists, a screenshot, a toolset member, status, a human's take
# refusing the next action and the hand-back letting it through, and an
# unknown tool as a -32602 protocol error. On the raw stream: what a
# version not served, an envelope without the client's capabilities and an
# initialize on a 2026 connection get, and the server serving on after.
# Over Streamable HTTP (botdesk mcp --listen unix:PATH): the same client in
# the same three ways, and what HTTP itself refuses (GET 405, a body that
# is not JSON 415, over 1 MiB 413, headers that disagree with the body
# 400/-32020), a directory others can enter and a live socket refused, and
# SIGTERM ending the server with its socket removed. Through `botdesk web`
# on a loopback port, for an agent elsewhere: POST /PROFILE/mcp with a
# bearer token of `botdesk web token`, the same client pinned and legacy;
# no token or a bad one 401 with WWW-Authenticate, another profile's 403,
# a page of another origin 403, GET 405, a revoked token 401, a desktop
# that is not running 503 saying so.
# Band 625 (once: the SDK is what varies, not the caller).
. "$(dirname "$0")/lib.sh"
bd_init mcp2 625 once
bd_need_xserver
bd_need node
SDK_DIR=${BOTDESK_MCP_SDK_DIR:-/usr/local/lib/botdesk-tests}
[ -d "$SDK_DIR/node_modules/@modelcontextprotocol/client" ] ||
        t_skip_all "the MCP SDK v2 client is not in $SDK_DIR (scripts/install-deps.sh --tests installs it)"
bd_config
P=$(bd_profile a)
t_ok "the desktop starts" bd_start "$P"

# The tools botdesk mcp --help names (the members stand behind "one tool per member").
usage_tools=$("$BOTDESK" help mcp | tr -s ' \n' '  ' | "$PY" -c '
import re, sys
text = sys.stdin.read()
m = re.search(r"tools (.*?), and one tool per member", text)
print(sorted(w for w in re.split(r"[ ,]+(?:and )?", m.group(1)) if w) if m else "")')

step() { grep "\"step\": *\"$1\"" "$BD_T/steps.$2" | head -n1; }
get() { step "$1" "$3" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {"json": json}, {"d": d}))' "$2"; }

for mode in pin auto legacy; do
        case $mode in
        pin) want=2026-07-28 what="pinned to 2026-07-28" ;;
        auto) want=2026-07-28 what="auto" ;;
        legacy) want=2025-11-25 what="legacy (initialize)" ;;
        esac
        t0=$(date +%s)
        timeout 60 node "$(dirname "$0")/mcp-v2-client.cjs" "$SDK_DIR" "$BOTDESK" "$P" $mode \
                >"$BD_T/steps.$mode" 2>"$BD_T/client.$mode.err"
        rc=$?
        t_is "$rc" 0 "$what: the SDK v2 client ran every step (exit 0; took $(($(date +%s) - t0)) s of 60)"
        [ "$rc" = 0 ] || { t_diag "$(tail -5 "$BD_T/client.$mode.err")"; t_diag "$(tail -3 "$BD_T/steps.$mode")"; }
        t_is "$(get connect '(d["version"], d["server"]["name"], d["tools"], d["instructions"])' $mode)" \
                "('$want', 'botdesk', True, True)" "$what: agreed on $want with botdesk, which offers tools and instructions"
        if [ $mode != legacy ]; then
                t_is "$(get connect 'd["supported"][:2]' $mode)" "['2026-07-28', '2025-11-25']" \
                        "$what: server/discover lists both revisions, 2026-07-28 first"
        fi
        t_is "$(get tools 'len(d["names"]), d["invalid"]' $mode)" "(33, [])" \
                "$what: 33 tools, every inputSchema compiling with ajv"
        t_is "$(get tools 'sorted(n for n in d["names"] if n in ("computer", "batch", "windows", "status", "ask_human", "clipboard_read", "clipboard_write", "a11y_tree", "a11y_find", "a11y_do", "wait_until", "file_upload", "file_download", "file_list", "downloads", "view"))' $mode)" \
                "$usage_tools" "$what: the tools botdesk mcp --help names, and those alone besides the members"
        t_is "$(get screenshot '(d["isError"], d["image"]["mimeType"], d["image"]["width"])' $mode)" \
                "(False, 'image/jpeg', 1024)" "$what: a screenshot through the computer tool is a 1024 px JPEG"
        t_is "$(get member 'd["isError"], d["image"] is not None' $mode)" "(False, True)" \
                "$what: a toolset member (mouse_move) acts and returns a screenshot"
        t_is "$(get status 'd["text"]["control"]' $mode)" agent "$what: status says the agent has control"
        t_is "$(get resources 'd["capability"], d["list"]' $mode)" \
                "(True, [['botdesk://$P/lease', 'application/json'], ['botdesk://$P/windows', 'application/json'], ['botdesk://$P/screen', 'image/jpeg'], ['ui://botdesk/viewer', 'text/html;profile=mcp-app']])" \
                "$what: botdesk offers resources, and resources/list names the lease, the windows, the screen and the viewer"
        t_is "$(get resources 'd["read"]["lease"]["uri"], d["read"]["windows"]["uri"], d["read"]["screen"]["uri"]' $mode)" \
                "('botdesk://$P/lease', 'botdesk://$P/windows', 'botdesk://$P/screen')" "$what: each read answers for its URI"
        t_is "$(get resources 'd["read"]["lease"]["json"]["holder"], type(d["read"]["lease"]["json"]["epoch"]).__name__' $mode)" \
                "('agent', 'int')" "$what: the lease reads as JSON: the agent holds it, with an integer epoch"
        t_is "$(get resources 'type(d["read"]["windows"]["json"]["windows"]).__name__' $mode)" list \
                "$what: the windows read as the windows tool's JSON (a list of windows)"
        t_is "$(get resources 'd["read"]["screen"]["mimeType"], d["read"]["screen"]["blob"]["magic"], d["read"]["screen"]["blob"]["size"] > 2000' $mode)" \
                "('image/jpeg', 'ffd8ff', True)" "$what: the screen reads as a JPEG blob"
        t_is "$(get resources 'd["unknown"]["code"], d["unknown"]["uri"]' $mode)" "(-32602, 'botdesk://$P/nothing')" \
                "$what: a URI botdesk does not serve is -32602, naming it (as the SDK's server, in either revision)"
        t_is "$(get taken_screen 'd["mimeType"], d["json"]["suppressed"]' $mode)" "('application/json', 'human_has_control')" \
                "$what: under a human, the screen's read is the refusal, not a picture"
        t_is "$(get taken '(d["isError"], d["text"]["suppressed"])' $mode)" "(True, 'human_has_control')" \
                "$what: after a human's take, the next action is refused (suppressed)"
        t_is "$(get released 'd["isError"]' $mode)" False "$what: after the hand-back, the next action runs"
        t_is "$(get unknown '(d["error"]["code"], d["error"]["protocolError"])' $mode)" "(-32602, True)" \
                "$what: an unknown tool is the protocol error -32602"
done

# ask_human as rounds of input requests: a 2026 client that elicits.
timeout 90 node "$(dirname "$0")/mcp-v2-client.cjs" "$SDK_DIR" "$BOTDESK" "$P" ask >"$BD_T/steps.ask" 2>"$BD_T/client.ask.err"
rc=$?
t_is "$rc" 0 "ask_human's rounds: the SDK v2 client, eliciting, ran every step"
[ "$rc" = 0 ] || { t_diag "$(head -3 "$BD_T/client.ask.err")"; t_diag "$(tail -3 "$BD_T/steps.ask")"; }
t_is "$(get ask_returned '(d["isError"], d["text"]["outcome"], len(d["elicitations"]), d["elicitations"][0]["pending"]["reason"])' ask)" \
        "(False, 'returned', 1, 'log in to the bank')" \
        "ask_human: the request is pending while the user is asked; taken and handed back, the outcome is returned"
t_is "$(get ask_held '(d["text"]["outcome"], len(d["elicitations"]), "still has control" in d["elicitations"][1]["message"])' ask)" \
        "('returned', 2, True)" "ask_human: accepted while the human still holds control, the user is asked again"
t_is "$(get ask_declined '(d["isError"], d["text"]["outcome"])' ask)" "(False, 'declined')" "ask_human: declined, the outcome says so"
t_is "$(get after_decline 'd["lease"].get("lease", d["lease"])["pending"]' ask)" None "... and the request for control is withdrawn"
t_is "$(get ask_not_taken '(d["text"]["outcome"], d["text"]["control"])' ask)" "('not_taken', 'agent')" \
        "ask_human: accepted with no takeover, the outcome is not_taken and the agent goes on"
# A requestState altered by the client, and one of no ask at all: -32602, nothing decided.
tamper=$("$PY" - "$BOTDESK" "$P" <<'EOF'
import json, subprocess, sys
bd, prof = sys.argv[1:]
env = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
       "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}
p = subprocess.Popen([bd, "mcp", prof], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def call(i, **extra):
        msg = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
               "params": {"name": "ask_human", "arguments": {"reason": "r"}, "_meta": env, **extra}}
        p.stdin.write(json.dumps(msg) + "\n"); p.stdin.flush()
        return json.loads(p.stdout.readline())
first = call(1)["result"]
state = first["requestState"]
bad = state[:-1] + ("0" if state[-1] != "0" else "1")
answers = {"handoff": {"action": "accept", "content": {}}}
print(first["resultType"], "handoff" in first["inputRequests"],
      call(2, requestState=bad, inputResponses=answers)["error"]["code"],
      call(3, requestState="ask_human:0:99999999999999999.00", inputResponses=answers)["error"]["code"],
      call(4, requestState=state)["result"]["resultType"],
      call(5, requestState=state, inputResponses={"handoff": {"action": "decline"}})["result"]["resultType"])
p.stdin.close(); p.wait(timeout=20)
EOF
)
t_is "$tamper" "input_required True -32602 -32602 input_required complete" \
        "ask_human: a tampered or forged requestState is -32602; no answer asks again; the untouched state is honoured"

# The raw stream: each refusal with its code, and the server answering on.
ENV='"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}'
{
        printf '%s\n' '{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}}'
        printf '%s\n' '{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}'
        printf '{"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {"_meta": {%s}}}\n' "$ENV"
        printf '%s\n' '{"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}'
        printf '%s\n' '{"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {}}'
        printf '{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "status", "arguments": {}, "_meta": {%s}}}\n' "$ENV"
} | timeout 30 "$BOTDESK" mcp "$P" >"$BD_T/raw" 2>"$BD_T/raw.err"
t_is "$?" 0 "the raw stream: botdesk mcp answered every line and ended with its input"
answer() { grep "\"id\": *$1[,}]" "$BD_T/raw" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {"json": json}, {"d": d}))' "$2"; }
t_is "$(answer 1 '(d["error"]["code"], d["error"]["data"]["supported"], d["error"]["data"]["requested"])')" \
        "(-32022, ['2026-07-28'], '2099-01-01')" "a version not served is -32022 with the versions served and the one asked for"
t_is "$(answer 2 '(d["error"]["code"], d["error"]["data"]["envelope"]["key"])')" \
        "(-32602, 'io.modelcontextprotocol/clientCapabilities')" "an envelope without the client's capabilities is -32602, naming the key"
t_is "$(answer 3 '(d["result"]["resultType"], d["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"])')" \
        "('complete', 'botdesk')" "after both, server/discover is answered: resultType complete, botdesk's identity in _meta"
t_is "$(answer 4 'd["error"]["code"]')" -32022 "an initialize on the 2026 connection is -32022"
t_is "$(answer 5 'd["error"]["code"]')" -32602 "a request without the envelope there is -32602"
t_is "$(answer 6 '(d["result"]["isError"], json.loads(d["result"]["content"][0]["text"])["control"])')" "(False, 'agent')" \
        "and the next 2026 request is served (status)"

# Streamable HTTP on a Unix socket, in a directory only this user enters.
SOCKDIR=$(mktemp -d "$BD_T/http.XXXXXX") && chmod 0700 "$SOCKDIR"
SOCK=$SOCKDIR/mcp.sock
"$BOTDESK" mcp "$P" --listen "unix:$SOCK" 2>"$BD_T/http.err" &
http_pid=$!
t_ok "botdesk mcp --listen makes its socket (waited at most 10 s)" wait_for 10 test -S "$SOCK"
t_is "$(stat -c %a "$SOCK")" 600 "... mode 0600"
for mode in pin auto legacy; do
        case $mode in
        pin|auto) want=2026-07-28 ;;
        legacy) want=2025-11-25 ;;
        esac
        t0=$(date +%s)
        timeout 60 node "$(dirname "$0")/mcp-v2-client.cjs" "$SDK_DIR" "$BOTDESK" "$P" $mode "$SOCK" \
                >"$BD_T/steps.http-$mode" 2>"$BD_T/client.http-$mode.err"
        rc=$?
        t_is "$rc" 0 "HTTP, $mode: the SDK v2 client over Streamable HTTP ran every step (took $(($(date +%s) - t0)) s of 60)"
        [ "$rc" = 0 ] || { t_diag "$(head -3 "$BD_T/client.http-$mode.err")"; t_diag "$(tail -3 "$BD_T/http.err")"; }
        t_is "$(get connect '(d["version"], d["server"]["name"])' http-$mode)" "('$want', 'botdesk')" "HTTP, $mode: agreed on $want"
        t_is "$(get tools 'len(d["names"]), d["invalid"]' http-$mode)" "(33, [])" "HTTP, $mode: the 33 tools"
        t_is "$(get screenshot '(d["isError"], d["image"]["width"])' http-$mode)" "(False, 1024)" "HTTP, $mode: a screenshot"
        t_is "$(get resources 'd["read"]["lease"]["json"]["holder"], d["read"]["screen"]["blob"]["magic"]' http-$mode)" \
                "('agent', 'ffd8ff')" "HTTP, $mode: the lease and the screen read as resources"
        t_is "$(get taken '(d["isError"], d["text"]["suppressed"])' http-$mode)" "(True, 'human_has_control')" \
                "HTTP, $mode: refused while a human has control"
        t_is "$(get released 'd["isError"]' http-$mode)" False "HTTP, $mode: runs after the hand-back"
        t_is "$(get unknown 'd["error"]["code"]' http-$mode)" -32602 "HTTP, $mode: an unknown tool is -32602"
done

# raw METHOD BODY [HEADER...]: "STATUS ALLOW CODE" of botdesk's answer on the socket.
raw() {
        "$PY" - "$SOCK" "$@" <<'EOF'
import json, socket, sys
path, method, body, *headers = sys.argv[1:]
if body.startswith("@big"):
        body = '{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": "' + "a" * (1 << 21) + '"}}'
s = socket.socket(socket.AF_UNIX)
s.settimeout(20)
s.connect(path)
head = f"{method} /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: {len(body.encode())}\r\n"
head += "".join(h + "\r\n" for h in headers) + "\r\n"
try:
        s.sendall(head.encode() + body.encode())
except BrokenPipeError:
        pass
data = b""
while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
                break
        data += chunk
head, _, rest = data.partition(b"\r\n\r\n")
lines = head.decode().split("\r\n")
fields = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
n = int(fields.get("content-length", "0"))
while len(rest) < n:
        chunk = s.recv(65536)
        if not chunk:
                break
        rest += chunk
code = json.loads(rest)["error"]["code"] if n and "error" in json.loads(rest) else "-"
print(lines[0].split()[1], fields.get("allow", "-"), code)
EOF
}
J='Content-Type: application/json'
LIST='{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {'"$ENV"'}}}'
t_is "$(raw GET '')" "405 POST -32000" "HTTP: GET is 405 with Allow: POST (2026-07-28 has no stream to GET)"
t_is "$(raw DELETE '')" "405 POST -32000" "HTTP: DELETE is 405 (no session to end)"
t_is "$(raw POST "$LIST" 'Content-Type: text/plain' 'MCP-Protocol-Version: 2026-07-28' 'Mcp-Method: tools/list')" "415 - -32000" \
        "HTTP: a body that is not application/json is 415"
t_is "$(raw POST @big "$J")" "413 - -32000" "HTTP: a body over 1 MiB is 413, unread"
t_is "$(raw POST "$LIST" "$J" 'Mcp-Method: tools/list')" "400 - -32020" "HTTP: a 2026 request without MCP-Protocol-Version is 400, -32020"
t_is "$(raw POST "$LIST" "$J" 'MCP-Protocol-Version: 2026-07-28' 'Mcp-Method: tools/call')" "400 - -32020" \
        "HTTP: an Mcp-Method that is not the body's is 400, -32020"
t_is "$(raw POST "$LIST" "$J" 'MCP-Protocol-Version: 2026-07-28' 'Mcp-Method: tools/list')" "200 - -" \
        "HTTP: the same request with its headers agreeing is 200"
t_is "$(raw POST '{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}' "$J")" "200 - -" \
        "HTTP: a 2025 request needs no initialize before it (each request stands alone)"
t_is "$(raw POST '{"jsonrpc": "2.0", "method": "notifications/initialized"}' "$J")" "202 - -" "HTTP: a notification is 202"

"$BOTDESK" mcp "$P" --listen "unix:$SOCK" 2>"$BD_T/second.err"
t_is "$?" 1 "a second server on the live socket is refused (exit 1)"
t_match "$(cat "$BD_T/second.err")" "is in use" "... saying the socket is in use"
"$BOTDESK" mcp "$P" --listen "unix:/tmp/botdesk-mcp-$$.sock" 2>"$BD_T/tmp.err"
t_is "$?" 1 "a socket in /tmp (others may enter it) is refused (exit 1)"
t_match "$(cat "$BD_T/tmp.err")" "only you can enter" "... saying what the directory must be"
t_ok "... and nothing was made there" test ! -e "/tmp/botdesk-mcp-$$.sock"
"$BOTDESK" mcp "$P" --listen "mcp.sock" 2>"$BD_T/rel.err"
t_is "$?" 2 "--listen without unix:/ABSOLUTE is a usage error (exit 2)"

# ---- through botdesk web, on a loopback port, with a bearer token ----
mkdir -p "$BD_T/out"
web_start w "$BOTDESK" web --listen 127.0.0.1:0
t_is "$?" 0 "botdesk web listens on a loopback port"
ADDR=$(sed -n 's|^Listening on http://\(127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$BD_T/out/w.out")
TOKEN=$("$BOTDESK" web token "$P" --for mcp --ttl 300)
t_match "$TOKEN" '^[0-9a-f]{64}$' "botdesk web token prints a bearer token (64 hex digits)"
for mode in pin legacy; do
        case $mode in pin) want=2026-07-28 ;; legacy) want=2025-11-25 ;; esac
        t0=$(date +%s)
        MCP_TOKEN=$TOKEN timeout 60 node "$(dirname "$0")/mcp-v2-client.cjs" "$SDK_DIR" "$BOTDESK" "$P" $mode \
                "http://$ADDR/$P/mcp" >"$BD_T/steps.web-$mode" 2>"$BD_T/client.web-$mode.err"
        rc=$?
        t_is "$rc" 0 "web, $mode: the SDK v2 client through botdesk web ran every step (took $(($(date +%s) - t0)) s of 60)"
        [ "$rc" = 0 ] || { t_diag "$(head -3 "$BD_T/client.web-$mode.err")"; t_diag "$(tail -3 "$BD_T/out/w.err")"; }
        t_is "$(get connect '(d["version"], d["server"]["name"])' web-$mode)" "('$want', 'botdesk')" "web, $mode: agreed on $want"
        t_is "$(get tools 'len(d["names"]), d["invalid"]' web-$mode)" "(33, [])" "web, $mode: the 33 tools"
        t_is "$(get screenshot '(d["isError"], d["image"]["width"])' web-$mode)" "(False, 1024)" "web, $mode: a screenshot"
        t_is "$(get resources 'len(d["list"]), d["read"]["screen"]["blob"]["magic"]' web-$mode)" "(4, 'ffd8ff')" \
                "web, $mode: the resources listed and the screen read through botdesk web"
        t_is "$(get taken '(d["isError"], d["text"]["suppressed"])' web-$mode)" "(True, 'human_has_control')" \
                "web, $mode: refused while a human has control"
        t_is "$(get unknown 'd["error"]["code"]' web-$mode)" -32602 "web, $mode: an unknown tool is -32602"
done

# webraw METHOD PATH BODY [HEADER...]: "STATUS WWW-AUTHENTICATE" of botdesk web's answer.
webraw() {
        "$PY" - "$ADDR" "$@" <<'EOF'
import http.client, sys
addr, method, path, body, *headers = sys.argv[1:]
host, port = addr.split(":")
c = http.client.HTTPConnection(host, int(port), timeout=30)
c.request(method, path, body=body.encode() if body else None,
          headers=dict(h.split(": ", 1) for h in headers))
r = c.getresponse()
r.read()
print(r.status, r.getheader("WWW-Authenticate") or "-")
EOF
}
PV='MCP-Protocol-Version: 2026-07-28'
MM='Mcp-Method: tools/list'
t_is "$(webraw POST "/$P/mcp" "$LIST" "$J" "$PV" "$MM")" '401 Bearer realm="botdesk"' \
        "web: without a token, 401 with WWW-Authenticate: Bearer"
t_is "$(webraw POST "/$P/mcp" "$LIST" "$J" "$PV" "$MM" "Authorization: Bearer $(printf '0%.0s' $(seq 64))")" \
        '401 Bearer realm="botdesk", error="invalid_token"' "web: an unknown token, 401 invalid_token"
OTHER=$("$BOTDESK" web token "$(bd_profile b)" --for mcp --ttl 300)
t_is "$(webraw POST "/$P/mcp" "$LIST" "$J" "$PV" "$MM" "Authorization: Bearer $OTHER")" "403 -" \
        "web: another profile's token, 403"
t_is "$(webraw POST "/$P/mcp" "$LIST" "$J" "$PV" "$MM" "Authorization: Bearer $TOKEN" "Origin: http://evil.example")" "403 -" \
        "web: a page of another origin, 403 (DNS rebinding)"
t_is "$(webraw GET "/$P/mcp" "" "Authorization: Bearer $TOKEN")" "405 -" "web: GET /PROFILE/mcp, 405"
t_is "$(webraw POST "/$P/mcp" "$LIST" 'Content-Type: text/plain' "Authorization: Bearer $TOKEN")" "415 -" \
        "web: a body that is not JSON, 415"
t_is "$(webraw POST "/$P/mcp" "$LIST" "$J" "$PV" "$MM" "Authorization: Bearer $TOKEN")" "200 -" \
        "web: with the token, the request is answered (200)"
t_is "$(webraw POST "/$(bd_profile b)/mcp" "$LIST" "$J" "$PV" "$MM" "Authorization: Bearer $OTHER")" "503 -" \
        "web: a desktop that is not running, 503"
# Four calls of one token at once (each a 4 s wait), and a fifth refused until one ends.
WAIT='{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "computer", "arguments": {"action": "wait", "duration": 4}, "_meta": {'"$ENV"'}}}'
CALLH=("$J" "$PV" 'Mcp-Method: tools/call' 'Mcp-Name: computer' "Authorization: Bearer $TOKEN")
waiters=()
for i in 1 2 3 4; do
        webraw POST "/$P/mcp" "$WAIT" "${CALLH[@]}" >"$BD_T/waiter.$i" &
        waiters+=($!)
done
t_ok "four calls of one token run at once (their children seen within 10 s)" \
        wait_for 10 eval '[ "$(pgrep -c -P "$WEB_PID")" -ge 4 ]'
t_is "$(webraw POST "/$P/mcp" "$LIST" "$J" "$PV" "$MM" "Authorization: Bearer $TOKEN")" "429 -" \
        "web: a fifth call of the same token meanwhile, 429"
t_is "$(webraw POST "/$(bd_profile b)/mcp" "$LIST" "$J" "$PV" "$MM" "Authorization: Bearer $OTHER")" "503 -" \
        "web: ... while another token is served as before"
wait "${waiters[@]}"
t_is "$(cat "$BD_T"/waiter.* | sort | uniq -c | awk '{print $1, $2}')" "4 200" "web: the four waits each answered (200)"
t_is "$(webraw POST "/$P/mcp" "$LIST" "$J" "$PV" "$MM" "Authorization: Bearer $TOKEN")" "200 -" \
        "web: once they ended, the token is served again"
echo "$TOKEN" | "$BOTDESK" web revoke "$P"
t_is "$?" 0 "botdesk web revoke takes the token on stdin"
t_is "$(webraw POST "/$P/mcp" "$LIST" "$J" "$PV" "$MM" "Authorization: Bearer $TOKEN")" \
        '401 Bearer realm="botdesk", error="invalid_token"' "web: the revoked token, 401"
kill "$WEB_PID"; wait "$WEB_PID" 2>/dev/null

kill -TERM "$http_pid"
t_ok "SIGTERM ends the server (waited at most 10 s)" wait_for 10 eval '! kill -0 '"$http_pid"' 2>/dev/null'
wait "$http_pid"
t_is "$?" 0 "... with exit 0"
t_ok "... and its socket is gone" test ! -e "$SOCK"
t_done
