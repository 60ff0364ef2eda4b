#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk web keeps its session to its own listener and its buttons to its
# own page. Over TCP a session's cookie lives beneath a path of its own
# (/PROFILE/SCOPE/), which a browser sends to no other port of 127.0.0.1,
# and a request that only the cookie vouches for must name our origin: a
# cookie-only POST without Origin takes nothing, and another `botdesk web`
# on another port honours no cookie of this one. On every listener (the
# Unix socket behind a gateway's proxy too) a take, a release or a stream
# from another origin is refused (403; close 4403 for the stream), the origin being [web] origin or
# the host the proxy forwards; the page may not be framed. No Chromium:
# raw HTTP from web_client.py. Bands: 700-704 (root), 800-804 (user).
. "$(dirname "$0")/lib.sh"
bd_init wo 700
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"

CLIENT=$BD_LIB_DIR/web_client.py
O=$BD_T/out
bd_config
P=$(bd_profile a)
VIEWER=alice

bd_start "$P"
rc=$?
t_is "$rc" 0 "desktop $P starts"
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }

web_addr() { sed -n 's|^Listening on http://\(127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$O/$1.out"; }
# A ticket's query (ticket=...), for whichever listener redeems it.
ticket() { local u; u=$("$BOTDESK" web ticket "$P" --viewer "${1:-$VIEWER}" 2>>"$O/ticket.err"); printf '%s' "${u#*\?}"; }
client() { timeout 60 "$PY" "$CLIENT" "$@" 2>&1; }
holder() { "$BOTDESK" lease "$P" --json | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["holder"])'; }

# ---- TCP: the cookie belongs to its listener ----------------------------------------------------

web_start a "$BOTDESK" web --listen 127.0.0.1:0
t_is "$?" 0 "a first botdesk web listens on a loopback port"
A_PID=$WEB_PID
A=$(web_addr a)
web_start b "$BOTDESK" web --listen 127.0.0.1:0
t_is "$?" 0 "a second botdesk web listens on another port"
B_PID=$WEB_PID
B=$(web_addr b)

out=$(client http "$A" GET "/$P/?$(ticket)")
t_is "$(head -n1 <<<"$out")" 303 "the first redeems a ticket (303)"
COOKIE=$(sed -n 's/^Set-Cookie: \(botdesk_session=[0-9a-f]*\);.*/\1/p' <<<"$out")
SCOPE=$(sed -n 's|^Location: /[^/]*/\([0-9a-f]\{32\}\)/\r\{0,1\}$|\1|p' <<<"$out")
t_match "$out" "Set-Cookie: botdesk_session=[0-9a-f]{64}; Path=/$P/$SCOPE/;" \
        "the cookie's Path is the session's own random path, where the browser is sent (Location)"
t_match "$SCOPE" '^[0-9a-f]{32}$' "that path holds 128 random bits ($SCOPE)"

# What a browser sends another port of 127.0.0.1 is the cookie of every
# path it visits there; http.cookiejar applies the browsers' path rule.
out=$("$PY" - "$A" "$B" "$P" "$SCOPE" "${COOKIE#*=}" <<'PYEOF'
import http.cookiejar, sys, urllib.request
a, b, profile, scope, value = sys.argv[1:]
jar = http.cookiejar.CookieJar()
res = urllib.request.Request("http://%s/%s/" % (a, profile))
class R:  # the 303 answer as the browser got it
    def info(self):
        import email.message
        m = email.message.Message()
        m["Set-Cookie"] = "botdesk_session=%s; Path=/%s/%s/; HttpOnly; SameSite=Lax" % (value, profile, scope)
        return m
jar.extract_cookies(R(), res)
for url in ["http://%s/" % b, "http://%s/%s/" % (b, profile), "http://%s/%s/take" % (b, profile),
            "http://%s/%s/%s/" % (a, profile, scope)]:
    req = urllib.request.Request(url)
    jar.add_cookie_header(req)
    print(url, "cookie" if req.has_header("Cookie") else "none")
PYEOF
)
t_match "$out" "http://$B/$P/take none" "a browser sends the cookie to no guessable path of another port" 
t_match "$out" "http://$A/$P/$SCOPE/ cookie" "and sends it beneath the session's path"

before=$(holder)
out=$(client http "$A" POST "/$P/take" "$COOKIE")
t_isnt "$(head -n1 <<<"$out")" 200 "a cookie-only POST outside the session's path takes nothing ($(head -n1 <<<"$out"))"
out=$(client http "$A" POST "/$P/$SCOPE/take" "$COOKIE")
t_is "$(head -n1 <<<"$out")" 403 "a cookie-only POST without Origin is refused (403)"
t_match "$out" "without an Origin" "and says why"
t_is "$(holder)" "$before" "the lease did not move ($before)"
out=$(client http "$A" POST "/$P/$SCOPE/take" "$COOKIE" --header "Origin: http://127.0.0.1:${B#*:}")
t_is "$(head -n1 <<<"$out")" 403 "a POST from the other port's page is refused (403)"
t_is "$(client upgrade "$A" "/$P/$SCOPE/websockify" --header "Cookie: $COOKIE" --then code)" 4403 \
        "a cookie-only WebSocket upgrade without Origin is refused (close 4403)"
for path in "/$P/$SCOPE/take" "/$P/take"; do
        out=$(client http "$B" POST "$path" "$COOKIE" --header "Origin: http://$B")
        t_is "$(head -n1 <<<"$out")" 401 "the other botdesk web honours no cookie of the first ($path: 401)"
done
t_is "$(client http "$B" GET "/$P/$SCOPE/" "$COOKIE" | head -n1)" 401 "nor serves it the page (401)"
t_is "$(holder)" "$before" "the lease still did not move"
out=$(client http "$A" POST "/$P/$SCOPE/take" "$COOKIE" --header "Origin: http://$A")
t_is "$(head -n1 <<<"$out")" 200 "our own page's POST (Origin http://$A) takes the lease"
t_is "$(holder)" human "the viewer holds it"
out=$(client http "$A" POST "/$P/$SCOPE/release" "$COOKIE" --header "Origin: http://$A")
t_is "$(head -n1 <<<"$out")" 200 "and hands it back"
t_is "$(client http "$A" GET "/$P/$SCOPE/" "$COOKIE" | head -n1)" 200 "the page is served beneath the session's path"
t_is "$(client http "$A" GET "/$P/$SCOPE/novnc/../../" "$COOKIE" | head -n1)" 404 "a path that climbs out of it is not (404)"
out=$(client upgrade "$A" "/$P/websockify?$(ticket bob)")
t_is "$(head -n1 <<<"$out")" 101 "a ticket alone still opens a stream without Origin (the ticket is its own token)"

# ---- one peer's idle connections do not lock a viewer out --------------------------------------

out=$(client conns "$A" 300 "/$P/?$(ticket)")
t_is "$out" 303 "with one peer holding 300 idle connections, a ticketed viewer still gets the page (303)"
out=$(client http "$A" GET "/$P/$SCOPE/" "$COOKIE" | head -n1)
t_is "$out" 200 "and the server serves on once they are gone"
kill -TERM "$A_PID" "$B_PID"
wait "$A_PID" "$B_PID"

# ---- socket activation: the loopback rule of --listen ------------------------------------------

# activated ADDRESS: a listening TCP socket on ADDRESS handed to botdesk web
# as systemd does (fd 3, LISTEN_FDS, LISTEN_PID of the process that execs it).
# IP_FREEBIND binds an address no interface has: nothing can reach it.
# exec: web_start runs this in a subshell whose pid it kills and owns, so
# that pid must become botdesk web's, not its parent's.
activated() {
        exec "$PY" -c '
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_IP, 15, 1)
s.bind((sys.argv[1], 0))
s.listen(8)
os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
os.environ.update(LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
os.execv(sys.argv[2], [sys.argv[2], "web"])' "$@" "$BOTDESK"
}
out=$(timeout 20 bash -c "$(declare -f activated); PY=$PY BOTDESK=$BOTDESK activated 192.0.2.1" 2>&1)
rc=$?
t_isnt "$rc" 0 "a socket passed by systemd bound to a non-loopback address is refused (exit $rc)"
t_match "$out" 'bound to 192\.0\.2\.1:[0-9]+: only a loopback address' "and the message says where it was bound and why"
web_start act activated 127.0.0.1
t_is "$?" 0 "a socket passed by systemd on 127.0.0.1 is served"
ACT=$(sed -n 's|^Listening on http://\(127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$O/act.out")
t_is "$(client http "$ACT" GET "/$P/?$(ticket)" | head -n1)" 303 "and redeems tickets like --listen ($ACT)"
kill -TERM "$WEB_PID"
wait "$WEB_PID"
t_is "$?" 0 "the socket-activated server, its own pid, exits 0 on SIGTERM (nothing of it is left)"

# ---- the Unix listener: the origin the proxy forwards, or [web] origin --------------------------

SOCK=$BD_T/web.sock
web_start unix "$BOTDESK" web --listen "unix:$SOCK"
t_is "$?" 0 "botdesk web listens on a Unix socket"
UNIX_PID=$WEB_PID
U=unix:$SOCK
out=$(client http "$U" GET "/$P/")
t_match "$out" "Content-Security-Policy: .*frame-ancestors 'none'" "the page may not be framed (CSP frame-ancestors 'none')"
out=$(client http "$U" GET "/$P/?$(ticket)")
UCOOKIE=$(sed -n 's/^Set-Cookie: \(botdesk_session=[0-9a-f]*\);.*/\1/p' <<<"$out")
t_match "$UCOOKIE" '^botdesk_session=[0-9a-f]{64}$' "a ticket becomes a session over the Unix socket"
out=$(client http "$U" POST "/$P/take" "$UCOOKIE" --header "Origin: https://evil.example")
t_is "$(head -n1 <<<"$out")" 403 "Origin https://evil.example on /take is refused (403)"
t_is "$(client upgrade "$U" "/$P/websockify?$(ticket)" --header "Origin: https://evil.example" --then code)" 4403 \
        "Origin https://evil.example on the upgrade is refused (close 4403)"
out=$(client http "$U" POST "/$P/take" "$UCOOKIE" "gw.example" --header "X-Forwarded-Host: gw.example" \
        --header "Origin: https://other.gw.example")
t_is "$(head -n1 <<<"$out")" 403 "a sibling subdomain of the gateway is refused (403)"
out=$(client http "$U" POST "/$P/take" "$UCOOKIE" "127.0.0.1:8080" --header "X-Forwarded-Host: gw.example" \
        --header "Origin: https://gw.example:8443")
t_is "$(head -n1 <<<"$out")" 403 "another port of the gateway is refused (403)"
out=$(client http "$U" POST "/$P/take" "$UCOOKIE" "127.0.0.1:8080" --header "X-Forwarded-Host: gw.example" \
        --header "Origin: https://gw.example")
t_is "$(head -n1 <<<"$out")" 200 "the host the proxy forwards (X-Forwarded-Host) is our origin (200)"
t_is "$(holder)" human "and the take went through"
printf '[web]\norigin = https://desk.example\n' >>"$BOTDESK_CONFIG"
out=$(client http "$U" POST "/$P/release" "$UCOOKIE" "127.0.0.1:8080" --header "X-Forwarded-Host: gw.example" \
        --header "Origin: https://gw.example")
t_is "$(head -n1 <<<"$out")" 403 "with [web] origin set, the forwarded host no longer decides (403)"
out=$(client http "$U" POST "/$P/release" "$UCOOKIE" --header "Origin: https://desk.example")
t_is "$(head -n1 <<<"$out")" 200 "[web] origin is (200)"
t_is "$(holder)" agent "and the release went through"
# A ticket is spent only by a request that passed every other rule: one
# shown with another origin, another method or at another profile's door
# is refused, and the same ticket still opens the stream afterwards.
for how in origin method profile; do
        T=$(ticket)
        case $how in
        origin) got=$(client upgrade "$U" "/$P/websockify?$T" --header "Origin: https://evil.example" --then code)
                want=4403 ;;
        method) got=$(client http "$U" POST "/$P/websockify?$T" | head -n1) want=405 ;;
        profile) got=$(client http "$U" GET "/$(bd_profile b)/?$T" | head -n1) want=403 ;;
        esac
        t_is "$got" "$want" "a good ticket with another $how is refused ($want)"
        t_is "$(client upgrade "$U" "/$P/websockify?$T" --header "Origin: https://desk.example" --then code)" open \
                "... and the same ticket still opens a stream from [web] origin: the refusal spent nothing"
done
t_is "$(client upgrade "$U" "/$P/websockify?$T" --header "Origin: https://desk.example" --then code)" 4401 \
        "a ticket that opened a stream is spent (close 4401)"
kill -TERM "$UNIX_PID"
wait "$UNIX_PID"

t_done
