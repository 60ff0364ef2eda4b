#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The desktop's browser for a DevTools client, with no TCP port of the
# browser's own; /json/version and /json/list as Chromium answers them,
# a listed page's own connection as the page's (commands without a
# sessionId). botdesk browser PROFILE endpoint prints a single-use
# ws://127.0.0.1:PORT/PROFILE/devtools/browser?ticket=T of botdesk web,
# and Playwright's own client (playwright-core's connectOverCDP, driving
# the desktop's Chromium through the launcher's 0600 socket) opens a page
# and reads its title through it; two clients do so at the same time. The ticket opens one connection (a
# second use is closed 4401); messages are relayed whole across WebSocket
# fragments both ways; a NUL inside a message (which would split it on the
# socket) is closed 1007, a binary frame 1003. No browser: exit 1; a human
# in control: exit 3, and a URL minted before the take reaches only the
# browser's fence; a stopped desktop: exit 4; a remote VNC profile: exit
# 3 (a placed desktop's browser: web-placed.sh). A gateway's pinned AGENT_BROWSER_PROFILE is the
# desktop browser's profile dir, a relative one below [browser] home. Band 440-444 (user run 540-544).
. "$(dirname "$0")/lib.sh"
bd_init brend 440
bd_need_xserver
bd_need node
[ -n "$PY" ] || t_skip_all "python3 not installed"
SDK_DIR=${BOTDESK_MCP_SDK_DIR:-/usr/local/lib/botdesk-tests}
[ -f "$SDK_DIR/node_modules/playwright-core/package.json" ] ||
        t_skip_all "playwright-core not installed in $SDK_DIR (scripts/install-deps.sh --tests)"
bd_need_browser
bd_config
P=$(bd_profile a)
RT=$(bd_rt "$P")
O=$BD_T/out
json_get() { "$PY" -c 'import json,sys; d=json.loads(sys.stdin.readline()); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
endpoint() { timeout 20 "$BOTDESK" browser "$P" endpoint "$@" 2>>"$O/endpoint.err"; }
playwright() { timeout 90 node "$BD_SOURCE_DIR/tests/integration/browser-endpoint-client.cjs" "$SDK_DIR" "$@" 2>>"$O/client.err"; }

# raw URL ACTION: a WebSocket client of our own on URL's path, one line of what it saw (devtools_raw.py).
raw() { local u=$1; shift; timeout 30 "$PY" "$BD_LIB_DIR/devtools_raw.py" "$ADDR" "/${u#ws://*/}" "$@" 2>&1; }

# The gateway's pinned browser identity: the desktop's browser uses the same profile dir.
PINNED=$BD_T/pinned-profile
AGENT_BROWSER_PROFILE=$PINNED bd_start "$P"
rc=$?
t_is "$rc" 0 "the desktop starts"
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }
t_is "$(sed -n "s/^export AGENT_BROWSER_PROFILE='\?\([^']*\)'\?$/\1/p" <<<"$("$BOTDESK" env "$P")")" "$PINNED" \
        "a desktop started under a pinned AGENT_BROWSER_PROFILE gives its browser that profile dir"

endpoint >/dev/null
t_is "$?" 1 "without a browser, browser endpoint exits 1"
t_match "$(tail -n1 "$O/endpoint.err")" "has no browser with DevTools running" "... saying so"

web_start web "$BOTDESK" web --listen 127.0.0.1:0
t_is "$?" 0 "botdesk web listens on a loopback port"
ADDR=$(sed -n 's|^Listening on http://\(127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$O/web.out")

"$BOTDESK" exec "$P" -- "$LAUNCHER" --cdp-socket="$RT/cdp.sock" -- "$CHROMIUM" "${HEADLESS[@]}" \
        --user-data-dir="$BD_T/profile" about:blank >"$O/browser.out" 2>"$O/browser.err" &
B=$!
bd_own_pid "$B"
wait_for 30 test -S "$RT/cdp.sock" || { t_fail "the launcher serves DevTools within 30 s" "$(tail -5 "$O/browser.err")"; t_done; }

# ---- Playwright through the endpoint -----------------------------------------------------------

URL=$(endpoint)
t_is "$?" 0 "browser endpoint prints a URL"
t_match "$URL" "^ws://$ADDR/$P/devtools/browser\\?ticket=[0-9a-f]{64}$" "... ws://ADDR/PROFILE/devtools/browser?ticket=T of botdesk web"
TITLE="botdesk devtools $$"
playwright open "$URL" "$TITLE" >"$O/open.json"
t_is "$?" 0 "Playwright's connectOverCDP attaches through it and opens a page" ||
        t_diag "$(cat "$O/open.json"; tail -5 "$O/client.err"; tail -5 "$O/web.err")"
t_match "$(grep '"connected"' "$O/open.json" | json_get 'd["version"]')" '^[0-9]+\.' "... it sees the browser's version"
t_is "$(grep '"page"' "$O/open.json" | json_get '(d["title"], d["sum"])')" "('$TITLE', 42)" \
        "... and reads back the title of the page it opened and a value computed in it"
t_is "$(raw "$URL" first)" "close 4401 unknown or already used" "the URL's ticket is spent: a second use is closed 4401"
# An http:// endpoint, which a client asks /json/version for the WebSocket (Chromium's discovery).
http_endpoint() { timeout 20 "$BOTDESK" browser "$P" http-endpoint "$@" 2>>"$O/endpoint.err"; }
# discover URL [REL]: "STATUS" and, on 200, the document's Browser and webSocketDebuggerUrl, of GET URL/REL
# (json/version/, as Playwright asks it).
discover() {
        "$PY" - "$@" <<'PYEOF2'
import http.client, json, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
c.request("GET", u.path + (sys.argv[2] if len(sys.argv) > 2 else "json/version/"))
r = c.getresponse()
body = r.read()
print(r.status, *([json.loads(body)["Browser"], json.loads(body)["webSocketDebuggerUrl"]] if r.status == 200 else []))
PYEOF2
}
HURL=$(http_endpoint)
t_match "$HURL" "^http://$ADDR/$P/devtools/[0-9a-f]{64}/\$" "browser http-endpoint prints http://ADDR/PROFILE/devtools/T/"
playwright open "$HURL" "$TITLE over http" >"$O/open-http.json"
t_is "$?" 0 "Playwright's connectOverCDP given that http:// URL finds the WebSocket (/json/version) and opens a page" ||
        t_diag "$(cat "$O/open-http.json"; tail -5 "$O/client.err"; tail -5 "$O/web.err")"
t_is "$(grep '"page"' "$O/open-http.json" | json_get 'd["title"]')" "$TITLE over http" "... and reads back its title"
t_match "$(discover "$HURL")" "^403" "the discovery ticket is spent by the one /json/version it answered"
read -r st browser wsurl < <(discover "$(http_endpoint)")
t_is "$st $browser" "200 botdesk-browser" "GET /json/version answers Chromium's document"
t_match "$wsurl" "^ws://$ADDR/$P/devtools/browser\\?ticket=[0-9a-f]{64}$" "... its webSocketDebuggerUrl with a ticket of its own"
t_match "$(raw "$wsurl" version)" "^answer (Headless)?Chrome$" "... which reaches the browser"
t_is "$(raw "$wsurl" first)" "close 4401 unknown or already used" "... once"
t_match "$(discover "http://$ADDR/$P/devtools/$(printf '%064d' 0)/")" "^403" "a made-up ticket discovers nothing (403)"
# /json/list: the browser's pages, each with a WebSocket URL of its own connection.
read -r _ TARGET < <(raw "$(endpoint)" create "listed-$$")
t_match "$TARGET" '^[0-9A-Fa-f]{32}$' "a page made on the browser's connection (Target.createTarget) has Chromium's id"
# listed URL: "STATUS" and, on 200, TARGET's type, title and webSocketDebuggerUrl in GET URL/json/list.
listed() {
        "$PY" - "$1" "$TARGET" <<'PYEOF3'
import http.client, json, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
c.request("GET", u.path + "json/list")
r = c.getresponse()
body = r.read()
if r.status != 200:
    print(r.status)
    sys.exit(0)
mine = [t for t in json.loads(body) if t["id"] == sys.argv[2]]
print(r.status, *([mine[0]["type"], mine[0]["title"], mine[0]["webSocketDebuggerUrl"]] if mine else ["absent"]))
PYEOF3
}
LHURL=$(http_endpoint)
read -r st type title pageurl < <(listed "$LHURL")
t_is "$st $type $title" "200 page listed-$$" "GET /json/list lists the page: its type and title, as Chromium's list does"
t_match "$pageurl" "^ws://$ADDR/$P/devtools/page/$TARGET\\?ticket=[0-9a-f]{64}$" \
        "... with the URL of its own connection: ws://ADDR/PROFILE/devtools/page/ID?ticket=T"
t_match "$(listed "$LHURL")" "^403" "the list's ticket is spent by that one request"
t_is "$(raw "$pageurl" title)" "answer listed-$$ bare" \
        "the page's own connection: a command without a sessionId is the page's, answered without one"
t_is "$(raw "$pageurl" first)" "close 4401 unknown or already used" "... once: its ticket is spent"
PAGE_TICKET=$(endpoint); PAGE_TICKET=${PAGE_TICKET##*ticket=}
t_match "$(raw "ws://$ADDR/$P/devtools/page/$(printf 'F%.0s' $(seq 32))?ticket=$PAGE_TICKET" title)" \
        "^close 1000 the browser closed" "a page the browser does not have: the connection is closed, nothing attached"
PAGE_TICKET=$(endpoint); PAGE_TICKET=${PAGE_TICKET##*ticket=}
t_match "$(raw "ws://$ADDR/$P/devtools/page/a-b?ticket=$PAGE_TICKET" first)" "^close 1008 no such page" \
        "a page id that is not one is refused before the browser is asked (1008)"
playwright pair "$(endpoint)" "$(endpoint)" "$TITLE" >"$O/pair.json"
t_is "$?" 0 "two Playwright clients attach at the same time, each through a URL of its own" ||
        t_diag "$(cat "$O/pair.json"; tail -5 "$O/client.err")"
t_is "$(grep '"pair"' "$O/pair.json" | json_get '(d["titles"], d["sums"])')" "(['$TITLE 0', '$TITLE 1'], [42, 49])" \
        "... and each opens a page of its own and reads it back, neither answered for the other"

# ---- the relay itself ----------------------------------------------------------------------------

t_match "$(raw "$(endpoint)" version)" "^answer (Headless)?Chrome$" \
        "a command sent in two WebSocket fragments reaches the browser whole, and its answer comes back"
t_match "$(raw "$(endpoint)" nul)" "^close 1007 " "a NUL inside a message, which would split it on the socket, is closed 1007"
t_match "$(raw "$(endpoint)" binary)" "^close 1003 " "a binary message is closed 1003: DevTools messages are text"
t_is "$(endpoint --json --ttl 5 | json_get '(d["ttl"], d["url"].startswith("ws://"))')" "(5, True)" \
        "--json says the URL and its time to live"
t_match "$(raw "ws://$ADDR/$P/devtools/browser?ticket=0000" first)" "^close 4401 missing or malformed" "a malformed ticket is closed 4401"

# ---- a human in control ----------------------------------------------------------------------------

BEFORE=$(endpoint)
BEFORE_LIST=$(http_endpoint)
"$BOTDESK" lease "$P" take --viewer v >/dev/null
endpoint >/dev/null
t_is "$?" 3 "while a human holds control, browser endpoint is refused (exit 3)"
t_match "$(raw "$BEFORE" first)" "human_has_control" "a URL minted before the take reaches only the browser's fence"
t_is "$(listed "$BEFORE_LIST")" 409 "... and /json/list is 409 (human_has_control): no page is named to the agent"
"$BOTDESK" lease "$P" release --viewer v >/dev/null

# The launcher's SIGTERM ends the browser with it: Chromium rewrites its environment (its process title),
# so no sweep by the desktop's variables would find a browser left behind.
kill -TERM "$B"
t_ok "the browser's launcher ends on SIGTERM, the browser with it (waited 10 s)" wait_for 10 sh -c "! kill -0 $B 2>/dev/null"
wait "$B" 2>/dev/null
kill -TERM "$WEB_PID"
wait "$WEB_PID"
t_is "$?" 0 "botdesk web exits 0"
t_ok "the desktop stops" bd_stop "$P"
endpoint >/dev/null
t_is "$?" 4 "a stopped desktop's browser endpoint exits 4"
# A VNC server botdesk did not start has no browser of botdesk's (a placed desktop's: web-placed.sh).
printf '[profile.%s]\nremote = 192.0.2.1:5900\n' "$(bd_profile vnc)" >>"$BOTDESK_CONFIG"
timeout 20 "$BOTDESK" browser "$(bd_profile vnc)" endpoint >/dev/null 2>"$O/elsewhere.err"
t_is "$?" 3 "browser endpoint of a remote VNC profile is refused (3)"
t_match "$(cat "$O/elsewhere.err")" "has no browser of botdesk's" "... saying so"

# [browser] home, the gateway's: a relative pin is below it, not below the user's home.
printf '[profile.%s]\nhome = %s\n' "$P" "$BD_T/gateway" >>"$BOTDESK_CONFIG"
AGENT_BROWSER_PROFILE=profiles/agent bd_start "$P"
t_is "$?" 0 "the desktop starts again, its profile's [browser] home set"
t_is "$(sed -n "s/^export AGENT_BROWSER_PROFILE='\?\([^']*\)'\?$/\1/p" <<<"$("$BOTDESK" env "$P")")" \
        "$BD_T/gateway/profiles/agent" "a relative AGENT_BROWSER_PROFILE is the browser's profile dir below that home"
t_ok "the desktop stops" bd_stop "$P"
t_done
