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
        t_is "$(get tools 'len(d["names"]), d["invalid"]' $mode)" "(27, [])" \
                "$what: 27 tools, every inputSchema compiling with ajv"
        t_is "$(get tools 'sorted(n for n in d["names"] if n in ("computer", "batch", "windows", "status", "ask_human", "clipboard_read", "clipboard_write", "a11y_tree", "a11y_find", "a11y_do"))' $mode)" \
                "$usage_tools" "$what: the tools botdesk mcp --help names, and those alone besides the members"
        t_is "$(get screenshot '(d["isError"], d["image"]["mimeType"], d["image"]["width"])' $mode)" \
                "(False, 'image/jpeg', 1024)" "$what: a screenshot through the computer tool is a 1024 px JPEG"
        t_is "$(get member 'd["isError"], d["image"] is not None' $mode)" "(False, True)" \
                "$what: a toolset member (mouse_move) acts and returns a screenshot"
        t_is "$(get status 'd["text"]["control"]' $mode)" agent "$what: status says the agent has control"
        t_is "$(get taken '(d["isError"], d["text"]["suppressed"])' $mode)" "(True, 'human_has_control')" \
                "$what: after a human's take, the next action is refused (suppressed)"
        t_is "$(get released 'd["isError"]' $mode)" False "$what: after the hand-back, the next action runs"
        t_is "$(get unknown '(d["error"]["code"], d["error"]["protocolError"])' $mode)" "(-32602, True)" \
                "$what: an unknown tool is the protocol error -32602"
done

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
t_done
