#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The live viewer in the chat (MCP Apps): botdesk mcp's view tool names
# ui://botdesk/viewer in its _meta; the resource is a page with no secret
# in it, whose _meta.ui.csp lets in botdesk web's origin alone (nothing
# while no botdesk web listens on TCP, and view then says how to start
# one); view answers the embed URL of a single-use ticket; a host
# (mcp-app-host.cjs: Chromium, a sandboxed frame under that policy) shows
# the desktop live, noVNC's modules and the stream fetched across origins
# from a frame that has none of ours. The render spends the stream's
# ticket; beneath the embed path nothing else is served; an embed ticket
# opens no page, a viewer's ticket no embed. With [agent] view_takeover =
# on the page's Take over and Hand back (tools the host passes on for the
# page alone) move control to its user and back, and a key typed in the
# frame meanwhile reaches the desktop. Band 765-769, main variant only.
. "$(dirname "$0")/lib.sh"
bd_init mapp 765 once
bd_need_xserver
bd_need xsetroot node
[ -n "$PY" ] || t_skip_all "python3 not installed"
SDK_DIR=${BOTDESK_MCP_SDK_DIR:-/usr/local/lib/botdesk-tests}
for m in @modelcontextprotocol/client playwright-core; do
        [ -f "$SDK_DIR/node_modules/$m/package.json" ] ||
                t_skip_all "$m not installed in $SDK_DIR (scripts/install-deps.sh --tests)"
done
[ -f /usr/share/novnc/core/rfb.js ] || t_skip_all "novnc not installed (/usr/share/novnc)"
bd_need_browser
bd_config
P=$(bd_profile a)
O=$BD_T/out
host() { timeout 120 node "$BD_LIB_DIR/mcp-app-host.cjs" "$SDK_DIR" "$BOTDESK" "$P" "$CHROMIUM" "$@" 2>>"$O/host.err"; }
# step FILE NAME EXPR: EXPR of the JSON line of step NAME in FILE.
step() {
        "$PY" - "$@" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d.get("step") == sys.argv[2]:
        print(eval(sys.argv[3], {}, {"d": d}))
        break
else:
    print("no step", sys.argv[2])
PYEOF
}
client() { timeout 60 "$PY" "$BD_LIB_DIR/web_client.py" "$@" 2>&1; }

bd_start "$P"
rc=$?
t_is "$rc" 0 "the desktop starts"
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }
timeout 60 "$BOTDESK" exec "$P" -- xsetroot -solid rgb:33/66/cc
t_is "$?" 0 "its root window is painted #3366cc"

# ---- what the server offers, with no botdesk web on TCP -------------------------------------------

host list >"$O/list.json"
t_is "$?" 0 "the SDK v2 client lists, reads and calls" || t_diag "$(tail -n 5 "$O/host.err"; cat "$O/list.json")"
t_is "$(step "$O/list.json" tools '(d["meta"]["ui"]["resourceUri"], d["meta"]["ui/resourceUri"])')" \
        "('ui://botdesk/viewer', 'ui://botdesk/viewer')" \
        "the view tool's _meta names ui://botdesk/viewer (ui.resourceUri, and the flat key older hosts read)"
t_is "$(step "$O/list.json" tools 'd["others"]')" "[]" "... and no other tool does"
t_is "$(step "$O/list.json" listed 'd["listed"]["mimeType"]')" "text/html;profile=mcp-app" \
        "resources/list names the viewer as an MCP App (text/html;profile=mcp-app)"
t_is "$(step "$O/list.json" read '(d["uri"], d["mimeType"], d["doctype"], d["secret"], d["prefersBorder"])')" \
        "('ui://botdesk/viewer', 'text/html;profile=mcp-app', True, False, True)" \
        "resources/read gives an HTML5 page with no ticket or token in it"
t_is "$(step "$O/list.json" read 'd["csp"]')" "{'connectDomains': [], 'resourceDomains': []}" \
        "... whose CSP lets nothing in while no botdesk web listens on TCP"
t_is "$(step "$O/list.json" view 'd["isError"]')" True "view then is an error"
t_match "$(step "$O/list.json" view 'd["body"]["error"]')" "botdesk web --listen 127.0.0.1:0" "... saying how to start one"

# ---- a host renders it -------------------------------------------------------------------------------

web_start web "$BOTDESK" web --listen 127.0.0.1:0
t_is "$?" 0 "botdesk web listens on a loopback port"
ADDR=$(sed -n 's|^Listening on http://\(127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$O/web.out")
host render 51,102,204 >"$O/render.json"
t_is "$?" 0 "a host renders the viewer" || t_diag "$(tail -n 5 "$O/host.err"; cat "$O/render.json")"
t_is "$(step "$O/render.json" read 'd["csp"]')" "{'connectDomains': ['ws://$ADDR'], 'resourceDomains': ['http://$ADDR']}" \
        "the viewer's CSP lets in botdesk web's origin alone: its WebSocket and its files"
VIEW=$(step "$O/render.json" view 'd["body"]["viewer"]')
t_match "$VIEW" "^http://$ADDR/$P/embed/[0-9a-f]{64}/\$" "view answers the embed URL of a ticket of botdesk web"
t_is "$(step "$O/render.json" view '(d["body"]["expires_in"], d["body"]["watch_only"])')" "(120, True)" \
        "... good for 120 s, watch-only"
t_is "$(step "$O/render.json" render '(d["connected"], d["error"], d["pixel"])')" "(True, None, '51,102,204')" \
        "in the host's sandboxed frame the viewer connects and draws the desktop (its centre #3366cc)" ||
        t_diag "$(cat "$O/render.json"; tail -n 5 "$O/web.err")"
t_diag "connected and drawn $(step "$O/render.json" render 'd["ms"]') ms after the frame was made"
t_is "$(step "$O/render.json" render '(d["origin"], d["blocked"])')" "('null', [])" \
        "... from a frame with no origin of ours, nothing it needed refused by its CSP"
t_is "$(step "$O/render.json" render '[m for m in d["heard"] if m.startswith("ui/")]')" \
        "['ui/initialize', 'ui/notifications/initialized']" "... after the extension's handshake with the host"
t_match "$(cat "$O/web.err")" "An embedded viewer's ticket was redeemed for $P" "botdesk web says the ticket was redeemed"

# ---- the embed path's edges ----------------------------------------------------------------------------

path=/${VIEW#http://*/}
t_is "$(client upgrade "$ADDR" "${path}websockify" --then code)" 4401 "the render spent the stream's ticket: a second stream is closed 4401"
t_is "$(client http "$ADDR" GET "${path}novnc/core/rfb.js" | head -n1)" 403 "... and its noVNC files are gone with it (403)"
host list >"$O/list2.json"
VIEW2=$(step "$O/list2.json" view 'd["body"]["viewer"]')
path2=/${VIEW2#http://*/}
out=$(client http "$ADDR" GET "${path2}novnc/core/rfb.js" --header "Origin: https://app.example")
t_is "$(head -n1 <<<"$out")" 200 "a fresh ticket serves noVNC's files to another origin"
t_match "$out" "Access-Control-Allow-Origin: \\*" "... with Access-Control-Allow-Origin: * (modules are fetched with CORS)"
t_is "$(client http "$ADDR" GET "${path2}novnc/core/rfb.js" | head -n1)" 200 "... as often as the module graph asks, until the stream"
t_is "$(client http "$ADDR" GET "${path2}take" | head -n1)" 404 "beneath the embed path nothing but noVNC and the stream is served (take: 404)"
t_is "$(client http "$ADDR" GET "${path2}websockify" | head -n1)" 426 "a plain GET of its stream is 426, and spends nothing"
t_is "$(client http "$ADDR" GET "/$P/?ticket=${path2: -65:64}" | head -n1)" 403 "an embed ticket opens no page (403)"
TICKET=$("$BOTDESK" web ticket "$P" --viewer eve 2>/dev/null)
t_is "$(client http "$ADDR" GET "/$P/embed/${TICKET##*ticket=}/novnc/core/rfb.js" | head -n1)" 403 \
        "a viewer's ticket opens no embed (403)"
t_is "$(client http "$ADDR" GET "/$P/embed/$(printf '%064d' 7)/novnc/core/rfb.js" | head -n1)" 403 \
        "a made-up ticket opens nothing (403)"
t_match "$(client upgrade "$ADDR" "${path2}websockify" --header "Origin: https://app.example" --then greet)" \
        "^greet 2 b'RFB 003" "the fresh ticket's stream greets with RFB from another origin"

# ---- Take over from the chat, where its user is the desktop's human -------------------------------------

t_is "$(step "$O/list.json" tools 'd["others"]')" "[]" "without [agent] view_takeover, no tool for the page to take control"
t_is "$(step "$O/render.json" view '(d["body"]["takeover"], d["body"]["watch_only"])')" "(False, True)" \
        "... and view says the page is watch-only"
printf '[agent]\nview_takeover = on\n' >>"$BOTDESK_CONFIG"
REC=${BOTDESK_INPUT_RECORDER:-$BD_BUILD_DIR/tests/integration/input-recorder}
timeout 60 "$BOTDESK" exec "$P" -- "$REC" "$BD_T/rec.txt" "$BD_T/rec.log" >"$O/rec.out" 2>&1 &
REC_PID=$!
bd_own_pid "$REC_PID"
t_ok "the tests' X client records input on the desktop (waited 10 s)" wait_for 10 grep -qs '^ready' "$BD_T/rec.log"
host takeover >"$O/takeover.json"
t_is "$?" 0 "a host renders the viewer with Take over" || t_diag "$(tail -n 5 "$O/host.err"; cat "$O/takeover.json")"
t_is "$(step "$O/takeover.json" tools 'd["others"]')" "[['view_take', ['app']], ['view_release', ['app']]]" \
        "with view_takeover = on, view_take and view_release name the viewer, visible to its page alone"
t_is "$(step "$O/takeover.json" view '(d["body"]["takeover"], d["body"]["watch_only"])')" "(True, False)" \
        "... and view says the page may take control"
t_is "$(step "$O/takeover.json" takeover '(d["before"], d["took"], d["during"])')" "('agent', True, 'human')" \
        "the page's Take over, called through the host, gives its user control"
t_is "$(step "$O/takeover.json" takeover '(d["handed"], d["after"], d["button"], d["error"])')" \
        "(True, 'agent', 'Take over', None)" "... and its Hand back gives it back to the agent"
t_is "$(step "$O/takeover.json" takeover 'd["called"]')" "['view_take', 'view_release']" "... each a tool call the host passed on"
t_is "$(cat "$BD_T/rec.txt" 2>/dev/null)" a "a key typed in the frame while its user held control reached the desktop"
kill -TERM "$REC_PID" 2>/dev/null

kill -TERM "$WEB_PID"
wait "$WEB_PID"
t_is "$?" 0 "botdesk web exits 0"
t_done
