# SPDX-License-Identifier: LGPL-2.1-or-later
# Part of lib.sh, which sources it: botdesk web, its raw client and fronts,
# browsers and MCP, as the integration tests drive them.

# botdesk web's raw client (web_client.py) against the Unix socket
# bd_web_placed started; wquery PROFILE VIEWER: a fresh ticket's query;
# wsession PROFILE VIEWER: the session cookie a fresh ticket opens.
wclient() { timeout 60 "$PY" "$BD_LIB_DIR/web_client.py" "$@" 2>&1; }
wquery() { local t; t=$("$BOTDESK" web ticket "$1" --viewer "$2") && printf '%s' "${t#*\?}"; }
wsession() { wclient http "unix:$BD_T/web.sock" GET "/$1/?$(wquery "$1" "$2")" |
        sed -n 's/^Set-Cookie: \(botdesk_session=[0-9a-f]*\);.*/\1/p'; }

# bd_web_placed PROFILE HOW: botdesk web on $BD_T/web.sock (WEB_PID) serves
# PROFILE, placed through a prefix (HOW says which, for the checks' names):
# a ticket opens its page, its lease and stream come through the prefix,
# and Take over and Hand back change the far side's lease. The server goes
# on running for the caller's own checks; bd_web_placed_end stops it.
bd_web_placed() {
        local p=$1 how=$2 out a
        web_start web "$BOTDESK" web --listen "unix:$BD_T/web.sock"
        t_is "$?" 0 "botdesk web listens on a Unix socket"
        out=$(wclient http "unix:$BD_T/web.sock" GET "/$p/?$(wquery "$p" alice)")
        t_is "$(head -n1 <<<"$out")" 303 "botdesk web: a ticket of the desktop $how opens its page"
        a=$(sed -n 's/^Set-Cookie: \(botdesk_session=[0-9a-f]*\);.*/\1/p' <<<"$out")
        t_match "$(wclient http "unix:$BD_T/web.sock" GET "/$p/lease" "$a")" '"holder": *"agent"' \
                "botdesk web: the lease of the desktop $how comes through the prefix: the agent holds control"
        t_match "$(wclient upgrade "unix:$BD_T/web.sock" "/$p/websockify?$(wquery "$p" bob)" --then close)" \
                "^greet 2 b'RFB 003\\.008" "botdesk web: its stream greets with the far X server's RFB version"
        t_is "$(wclient http "unix:$BD_T/web.sock" POST "/$p/take" "$a" | head -n1)" 200 "botdesk web: Take over"
        t_match "$(timeout 60 "$BOTDESK" lease "$p" --json 2>&1)" '"holder": "human"' \
                "...and the far side's lease says a human holds control"
        t_is "$(wclient http "unix:$BD_T/web.sock" POST "/$p/release" "$a" | head -n1)" 200 "botdesk web: Hand back"
        t_match "$(timeout 60 "$BOTDESK" lease "$p" --json 2>&1)" '"holder": "agent"' \
                "...and the far side's lease is the agent's again"
}
# bd_web_placed_end: SIGTERM to bd_web_placed's server; it exits 0, its children with it.
bd_web_placed_end() {
        kill -TERM "$WEB_PID"
        wait "$WEB_PID"
        t_is "$?" 0 "botdesk web exits 0, its children with it"
}

# bd_browser_report FILE: a browser driver's lines (web_browser.py and its
# kind) as checks: "PASS what" and "FAIL what" each one, "SCREEN text" into
# SCREEN (empty when it sent none).
bd_browser_report() {
        local line
        SCREEN=
        while IFS= read -r line; do
                case $line in
                PASS\ *) t_pass "browser: ${line#PASS }" ;;
                FAIL\ *) t_fail "browser: ${line#FAIL }" ;;
                SCREEN\ *) SCREEN=${line#SCREEN } ;;
                esac
        done <"$1"
}

# bd_tcp_front PROFILE VIEWER [TARGET [LISTEN_OPTS]]: a loopback TCP front for `botdesk rfb`
# (socat, one connection) for clients that speak only TCP; TARGET, a socat
# address, replaces the `botdesk rfb` it runs (e.g. UNIX-CONNECT:PATH for the
# viewer's end of a tunnel to a private front); LISTEN_OPTS adds options to
# the listening side (",fork": every connection, not one). Sets BD_FRONT_PORT and
# BD_FRONT_PID (registered for cleanup); call it directly, not in $(...). The port is known
# to be ours: the LISTEN socket on it is one that our socat holds. (Parallel
# tests, the root and the user run of one script among them, probe the same
# ports: a port merely seen listening may be another test's front.)
bd_tcp_front() {
        local p=$1 viewer=$2 target=${3:-} listen_opts=${4:-} base port i w sp odd=0
        [ -n "$target" ] || target="EXEC:$BOTDESK rfb $p --viewer $viewer"
        # Different first candidates for the two variants of one script.
        [ "$BD_VARIANT" = user ] && odd=1
        base=$((6300 + ($$ % 200) * 2 + odd))
        for ((i = 0; i < 20; i++)); do
                port=$((base + i * 401 % 2000))
                socat "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr$listen_opts" "$target" \
                        </dev/null >/dev/null 2>>"$BD_T/out/socat.err" &
                sp=$!
                bd_own_pid "$sp"
                # Bounded: 5 s for socat to listen or to give up on the port.
                for ((w = 0; w < 100; w++)); do
                        if tcp_listening "$sp" "$port"; then
                                BD_FRONT_PID=$sp BD_FRONT_PORT=$port
                                return 0
                        fi
                        proc_alive "$sp" || break
                        sleep 0.05
                done
                kill "$sp" 2>/dev/null
                wait "$sp" 2>/dev/null
        done
        echo "bd_tcp_front: no socat front listened within 20 ports; socat said: $(tail -n 3 "$BD_T/out/socat.err")" >&2
        return 1
}

# bd_need_browser: Chromium and the build's botdesk-browser, which the desktop's dock uses
# (BOTDESK_BROWSER_LAUNCHER): LAUNCHER and CHROMIUM set, and HEADLESS the flags of a test browser
# (as root Chromium needs --no-sandbox; the rest keeps it off the network).
bd_need_browser() {
        bd_need chromium
        LAUNCHER=$BD_BUILD_DIR/helper/botdesk-browser
        [ -x "$LAUNCHER" ] || t_skip_all "botdesk-browser not built in $BD_BUILD_DIR"
        CHROMIUM=$(command -v chromium)
        export BOTDESK_BROWSER_LAUNCHER=$LAUNCHER
        HEADLESS=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
                  --disable-sync --no-first-run --no-default-browser-check)
}

# bd_mcp_call PROFILE TOOL ARGS: one tools/call over MCP's raw protocol (2025-06-18, on botdesk mcp's
# stdio): its result, as one JSON line; botdesk mcp's stderr goes to $BD_T/out/mcp.err.
bd_mcp_call() {
        printf '%s\n' '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}' \
                '{"jsonrpc": "2.0", "method": "notifications/initialized"}' \
                "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/call\", \"params\": {\"name\": \"$2\", \"arguments\": $3}}" |
                timeout 70 "$BOTDESK" mcp "$1" 2>>"$BD_T/out/mcp.err" | "$PY" -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("id") == 2:
        print(json.dumps(m["result"]))'
}

# web_start NAME ARGS...: a `botdesk web` of the test's, its pid in WEB_PID,
# output in $BD_T/out/NAME.{out,err}; waits (bounded: 10 s) until it says
# where it listens.
web_start() {
        local name=$1 i o=$BD_T/out
        shift
        "$@" >"$o/$name.out" 2>"$o/$name.err" &
        WEB_PID=$!
        bd_own_pid "$WEB_PID"
        for i in $(seq 100); do
                grep -q '^Listening on' "$o/$name.out" 2>/dev/null && return 0
                proc_alive "$WEB_PID" || break
                sleep 0.1
        done
        t_diag "waited 10 s for $name to say where it listens:" "$(cat "$o/$name.err")"
        return 1
}
