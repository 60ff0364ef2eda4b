#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk web with a real desktop and a real browser. Headless Chromium,
# driven over --remote-debugging-pipe (never a TCP debugging port), opens
# the page through a ticket on a loopback listener; a screenshot of the page
# shows the desktop's root colour, as the X screen has it (botdesk
# thumbnail); a pointer move sent through the page moves the X pointer only
# while the ticket's viewer holds the lease; leaving the page hands control
# back (release_on_close). Tickets: a reused or missing one is refused
# (close 4401, never a stream); over TCP even the files need one. The Unix
# listener is 0600, out of reach of a second uid, and serves a socket-
# activated server too. Close codes say why a stream ended: 1002 for a
# broken frame (and the other stream carries on), 1001 when the server shuts
# down, 4001 when the desktop stops (and for a ticket minted before the
# stop, used after it). Bands: 240-244 (root), 340-344 (user).
. "$(dirname "$0")/lib.sh"
bd_init web 240
bd_need_xserver
bd_need xdotool xsetroot
[ -n "$PY" ] || t_skip_all "python3 not installed"

# A missing package skips here, but fails CI, where install-deps.sh --tests installed it.
need_pkg() {
        if [ "${CI:-}" = true ]; then
                printf 'not ok 1 - %s (CI=true: scripts/install-deps.sh --tests installs it)\n1..1\n' "$1"
                T_PLANNED=1
                exit 1
        fi
        t_skip_all "$1"
}
[ -x /usr/lib/chromium/chromium ] || command -v chromium >/dev/null 2>&1 || need_pkg "chromium not installed"
[ -f /usr/share/novnc/core/rfb.js ] || need_pkg "novnc not installed (/usr/share/novnc)"

CLIENT=$BD_LIB_DIR/web_client.py
BROWSER=$BD_LIB_DIR/web_browser.py
O=$BD_T/out
bd_config
P=$(bd_profile a)
VIEWER=alice

bd_start "$P"
rc=$?
t_is "$rc" 0 "desktop $P starts"
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }
# The root window's colour, which the page must show.
"$BOTDESK" exec "$P" -- xsetroot -solid rgb:33/66/cc
t_is "$?" 0 "the root window is painted #3366cc"


ticket() { "$BOTDESK" web ticket "$P" --viewer "${1:-$VIEWER}" 2>>"$O/ticket.err"; }
client() { timeout 60 "$PY" "$CLIENT" "$@" 2>&1; }

# ---- what it refuses to listen on -------------------------------------------------------------

out=$(timeout 10 "$BOTDESK" web --listen 0.0.0.0:0 2>&1)
rc=$?
t_isnt "$rc" 0 "botdesk web refuses to listen on 0.0.0.0 (exit $rc)"
t_match "$out" 'only a loopback address' "and says only a loopback address is allowed"

# ---- the loopback listener and the browser ------------------------------------------------------

web_start tcp "$BOTDESK" web --listen 127.0.0.1:0
t_is "$?" 0 "botdesk web --listen 127.0.0.1:0 starts and says where it listens"
TCP_PID=$WEB_PID
BASE=$(sed -n 's|^Listening on \(http://127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$O/tcp.out")
ADDR=${BASE#http://}
t_match "$BASE" '^http://127\.0\.0\.1:[0-9]+$' "it listens on a loopback port ($BASE)"

URL=$(ticket)
t_match "$URL" "^$BASE/$P/\\?ticket=[0-9a-f]{64}\$" "botdesk web ticket prints the page's URL with a 256-bit token"

eval "$("$BOTDESK" env "$P")"
export BOTDESK DISPLAY XAUTHORITY
timeout 150 "$PY" "$BROWSER" "$URL" "$O" "$P" "$VIEWER" >"$O/browser.txt" 2>"$O/browser.err" &
BPID=$!
bd_own_pid "$BPID"
wait "$BPID"
brc=$?
unset DISPLAY XAUTHORITY
# Chromium is the driver's child; the driver closes it, and its pid is remembered for the cleanup.
CPID=$(sed -n 's/^PID //p' "$O/browser.txt")
[ -n "$CPID" ] && proc_alive "$CPID" && bd_own_pid "$CPID"
bd_browser_report "$O/browser.txt"
[ "$brc" = 0 ] || t_fail "the browser driver finishes (exit $brc)" "$(tail -n 15 "$O/browser.err")" \
        "$(grep -v dbus "$O/chromium.log" 2>/dev/null | tail -n 5)"
t_is "$SCREEN" "51 102 204" "the page's screenshot shows the desktop's root colour at the screen's centre"
if "$BOTDESK" thumbnail "$P" -o "$O/thumb.png" --format png 2>"$O/thumb.err"; then
        W=$(od -An -tu1 -j16 -N4 "$O/thumb.png" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
        H=$(od -An -tu1 -j20 -N4 "$O/thumb.png" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
        t_is "$(client png-pixel "$O/thumb.png" $((W / 2)) $((H / 2)))" "$SCREEN" \
                "the same pixel as the X screen shows it (botdesk thumbnail)"
else
        t_fail "botdesk thumbnail of $P works" "$(cat "$O/thumb.err")"
fi

# ---- tickets -------------------------------------------------------------------------------------

T1=$(ticket)
PAGE=${T1#"$BASE"}
out=$(client http "$ADDR" GET "$PAGE")
t_is "$(head -n1 <<<"$out")" 303 "the page redeems a ticket and sends the browser on without it (303)"
t_match "$out" "Set-Cookie: botdesk_session=[0-9a-f]{64}; Path=/$P/[0-9a-f]{32}/; HttpOnly; SameSite=Lax" \
        "a session cookie replaces the ticket, sent only beneath the session's own path"
COOKIE=$(sed -n 's/^Set-Cookie: \(botdesk_session=[0-9a-f]*\);.*/\1/p' <<<"$out")
SCOPE=$(sed -n 's|^Location: /[^/]*/\([0-9a-f]*\)/\r\{0,1\}$|\1|p' <<<"$out")
t_is "$(client http "$ADDR" GET "$PAGE" | head -n1)" 403 "the same ticket a second time is refused (403)"
t_is "$(client upgrade "$ADDR" "/$P/websockify?${T1#*\?}" --then code)" 4401 "a used ticket opens no stream (close 4401)"
t_is "$(client upgrade "$ADDR" "/$P/websockify" --then code)" 4401 "no ticket opens no stream (close 4401)"
t_is "$(client http "$ADDR" GET "/$P/novnc/core/rfb.js" | head -n1)" 401 "over TCP, noVNC's files need a ticket too (401)"
t_is "$(client http "$ADDR" GET "/$P/$SCOPE/novnc/core/rfb.js" "$COOKIE" | head -n1)" 200 "with the ticket's session they are served"
t_is "$(client http "$ADDR" GET "/$P/novnc/core/rfb.js" "$COOKIE" | head -n1)" 401 "but only beneath the session's path (401)"
out=$(client upgrade "$ADDR" "/$P/websockify?ticket=$(printf '%064d' 0)" --then code)
t_is "$out" 4401 "a made-up ticket opens no stream (close 4401)"
T2=$(ticket bob)
out=$(client upgrade "$ADDR" "/$P/websockify?${T2#*\?}")
t_is "$(head -n1 <<<"$out")" 101 "a fresh ticket upgrades to a WebSocket (101)"
t_match "$out" "greet 2 b'RFB 003\\.00[0-9]\\\\n'" "the first binary frame is the desktop's RFB greeting"
T3=$(ticket)
out=$(client upgrade "$ADDR" "/$(bd_profile other)/websockify?${T3#*\?}" --then code)
t_is "$out" 4401 "a ticket for one profile opens no stream on another (close 4401)"

out=$(client conns "$ADDR" 300 "/$P/")
t_is "$out" 401 "with one peer holding 300 idle connections, the next request is still answered (401 without a ticket)"
# The server sees the closes on its own time: wait (5 s at most) for it to answer again.
for i in $(seq 50); do out=$(client http "$ADDR" GET "/$P/" | head -n1); [ "$out" = 401 ] && break; sleep 0.1; done
t_is "$out" 401 "once they are gone it serves again"
T10=$(ticket)
t_is "$(client http "$ADDR" GET "/$P/?${T10#*\?}" "" "rebound.example:${ADDR#*:}" | head -n1)" 403 \
        "over TCP, a Host that is not the loopback is refused (403), before the ticket is looked at"
t_is "$(client http "$ADDR" GET "/$P/?${T10#*\?}" "" "localhost:${ADDR#*:}" | head -n1)" 303 "localhost is the loopback"
T8=$(ticket)
out=$(client upgrade "$ADDR" "/$P/websockify?${T8#*\?}" --header "Origin: http://evil.example" --then code)
t_is "$out" 4403 "over TCP, an upgrade from another site's page is refused (close 4403)"
out=$(client many "$ADDR" "$BOTDESK" "$P" 16)
t_is "$out" "$(printf '101 %.0s' $(seq 16))close-1013" \
        "16 viewers of one desktop stream at once; a 17th is refused after the upgrade with close 1013 (try again later)"

kill -TERM "$TCP_PID"
wait "$TCP_PID"
t_is "$?" 0 "the TCP server exits 0 on SIGTERM"
t_ok "it removes the web.url it wrote" test ! -e "$XDG_RUNTIME_DIR/botdesk/web.url"

# ---- the Unix listener ----------------------------------------------------------------------------

SOCK=$XDG_RUNTIME_DIR/botdesk/web.sock
web_start unix "$BOTDESK" web
t_is "$?" 0 "botdesk web starts on its default Unix socket"
UNIX_PID=$WEB_PID
t_is "$(stat -c '%a %F' "$SOCK" 2>&1)" "600 socket" "the default listener is a 0600 socket ($SOCK)"
l=$(comm -12 <(socket_inodes_of "$UNIX_PID") <(tcp_listen_inodes))
t_is "$l" "" "and it listens on no TCP port"
t_is "$(client http "unix:$SOCK" GET "/$P/" | head -n1)" 200 "over the Unix socket the page needs no ticket (the gateway's proxy decides)"
t_is "$(client upgrade "unix:$SOCK" "/$P/websockify" --then code)" 4401 "but the stream does (close 4401)"
t_is "$(client http "unix:$SOCK" GET "/$P/novnc/core/rfb.js" | head -n1)" 200 "noVNC's files are served from /usr/share/novnc"
t_is "$(client http "unix:$SOCK" GET "/$P/novnc/../../../etc/passwd" | head -n1)" 404 "a path with .. is refused (404)"
t_is "$(client http "unix:$SOCK" GET "/$P/novnc/%2e%2e/%2e%2e/etc/passwd" | head -n1)" 404 "and spelt in escapes too"
out=$(printf 'GET /%s/ HTTP/1.1\r\nBroken header\r\n\r\n' "$P" | timeout 10 "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read())
print(s.recv(100).split(b"\r\n")[0].decode())' "$SOCK" 2>&1)
t_is "$out" "HTTP/1.1 400 Bad Request" "a malformed request gets 400"

# ---- another uid: the socket's own mode keeps it out ------------------------------------------

if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null 2>&1; then
        U=botdesk-test
        if ! id -u "$U" >/dev/null 2>&1; then
                exec 9<"$BD_LIB_DIR/as-user.sh"
                flock 9
                id -u "$U" >/dev/null 2>&1 ||
                        useradd --system --create-home --home-dir /var/lib/botdesk-test --shell /bin/sh --user-group "$U" >&2
                flock -u 9
                exec 9<&-
        fi
        # Every directory above it is traversable here, so that the socket's own mode is what protects it.
        chmod 711 "$BD_T" "$XDG_RUNTIME_DIR" "$XDG_RUNTIME_DIR/botdesk"
        out=$(runuser -u "$U" -- /usr/bin/python3 -c '
import errno, socket, sys
try:
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))' "$SOCK" 2>&1)
        t_is "$out" EACCES "a second uid ($U) cannot connect to the Unix listener (EACCES)"
        chmod 700 "$BD_T" "$XDG_RUNTIME_DIR" "$XDG_RUNTIME_DIR/botdesk"
else
        t_pass "a second uid cannot connect to the Unix listener # SKIP needs root to use a second uid"
fi

# ---- back-pressure: a viewer that does not read costs the server no memory --------------------

rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null; }
RSS0=$(rss_kb "$UNIX_PID")
T7=$(ticket)
client upgrade "unix:$SOCK" "/$P/websockify?${T7#*\?}" --then flood:4 >"$O/flood.txt" &
FLOOD=$!
bd_own_pid "$FLOOD"
for i in $(seq 100); do grep -q '^flooding' "$O/flood.txt" && break; sleep 0.1; done
RSSMAX=$RSS0
for i in 1 2 3; do
        sleep 1 # sampling while the viewer reads nothing and asks for a full update every 20 ms
        r=$(rss_kb "$UNIX_PID")
        [ -n "$r" ] && [ "$r" -gt "$RSSMAX" ] && RSSMAX=$r
done
wait "$FLOOD"
t_match "$(cat "$O/flood.txt")" 'read [1-9][0-9]* bytes after the pause' "the stalled viewer still gets its updates afterwards"
if [ -n "$RSS0" ] && [ $((RSSMAX - RSS0)) -lt 8192 ]; then
        t_pass "a viewer that reads nothing while asking for 200 full updates grows the server by $((RSSMAX - RSS0)) kB (< 8 MiB)"
else
        t_fail "a viewer that reads nothing does not make the server buffer" "RSS ${RSS0:-?} kB before, $RSSMAX kB at most during" \
                "$(cat "$O/flood.txt")"
fi

# A stream that waits, a stream that breaks the framing, then the server stops.
T4=$(ticket)
client upgrade "unix:$SOCK" "/$P/websockify?${T4#*\?}" --then wait-close >"$O/held.txt" &
HELD=$!
bd_own_pid "$HELD"
for i in $(seq 50); do grep -q '^greet' "$O/held.txt" && break; sleep 0.1; done
t_match "$(cat "$O/held.txt")" '^101' "a first stream is open (waited 5 s for its greeting)"
T5=$(ticket)
out=$(client upgrade "unix:$SOCK" "/$P/websockify?${T5#*\?}" --then unmasked)
t_is "$(tail -n1 <<<"$out")" "1002 an unmasked frame from the client" "an unmasked frame closes that stream with 1002"
t_ok "the first stream is not disturbed by the other's error" proc_alive "$HELD"
"$BOTDESK" lease "$P" take --viewer "$VIEWER" >/dev/null
kill -TERM "$UNIX_PID"
wait "$HELD"
t_is "$(tail -n1 "$O/held.txt")" "close 1001 server shutting down" "SIGTERM closes open streams with 1001 \"server shutting down\""
wait "$UNIX_PID"
t_is "$?" 0 "the Unix server exits 0"
t_ok "and removes its socket" test ! -e "$SOCK"
t_is "$("$BOTDESK" lease "$P" --json | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["holder"])')" human \
        "a server shutdown is not the viewer leaving: its viewer keeps control"
"$BOTDESK" lease "$P" release --viewer "$VIEWER" >/dev/null

# ---- a silent viewer: pinged, then closed ----------------------------------------------------------

web_start ping "$BOTDESK" web --listen "unix:$BD_T/ping.sock" --ping 1
PING_PID=$WEB_PID
T9=$(ticket)
t0=$(date +%s%N)
out=$(client upgrade "unix:$BD_T/ping.sock" "/$P/websockify?${T9#*\?}" --then silent)
dt=$(( ($(date +%s%N) - t0) / 1000000 ))
t_match "$(tail -n1 <<<"$out")" '^pings [1-9][0-9]* close 1001 idle timeout$' \
        "with --ping 1, a viewer that answers no ping is pinged, then closed with 1001 \"idle timeout\""
if [ "$dt" -ge 1500 ] && [ "$dt" -lt 10000 ]; then t_pass "after 2-4 s of silence (${dt} ms)"; else t_fail "after 2-4 s of silence" "${dt} ms"; fi
kill -TERM "$PING_PID"
wait "$PING_PID"

# ---- [web] viewers = one: the newest viewer's stream replaces the older ------------------------------
cp "$BOTDESK_CONFIG" "$BD_T/config.before-one"
printf '[web]\nviewers = one\n' >>"$BOTDESK_CONFIG"
web_start one "$BOTDESK" web --listen "unix:$BD_T/one.sock"
ONE_PID=$WEB_PID
T11=$(ticket pane-a)
client upgrade "unix:$BD_T/one.sock" "/$P/websockify?${T11#*\?}" --then wait-close >"$BD_T/out/one-a" 2>&1 &
ONE_A=$!
bd_own_pid "$ONE_A"
t_ok "with viewers = one, a first viewer streams (waited 10 s for its greeting)" wait_for 10 grep -q '^greet' "$BD_T/out/one-a"
T12=$(ticket pane-b)
t_is "$(client upgrade "unix:$BD_T/one.sock" "/$P/websockify?${T12#*\?}" --then code)" open "a second viewer streams too"
t_ok "... and the first one's stream is closed (waited 10 s for its close)" wait_for 10 grep -q '^close' "$BD_T/out/one-a"
t_is "$(grep '^close' "$BD_T/out/one-a")" "close 4000 replaced" "... with 4000 \"replaced\""
wait "$ONE_A"
kill -TERM "$ONE_PID"
wait "$ONE_PID"
cp "$BD_T/config.before-one" "$BOTDESK_CONFIG"

# ---- socket activation -----------------------------------------------------------------------------

if command -v systemd-socket-activate >/dev/null 2>&1; then
        # It passes on only the environment it is told to.
        systemd-socket-activate -l "$SOCK" -E XDG_RUNTIME_DIR -E XDG_STATE_HOME -E XDG_CONFIG_HOME -E BOTDESK_CONFIG \
                "$BOTDESK" web >"$O/act.out" 2>"$O/act.err" &
        ACT=$!
        bd_own_pid "$ACT"
        for i in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
        t_is "$(client http "unix:$SOCK" GET "/$P/" | head -n1)" 200 "a socket passed by systemd (sd_listen_fds) is served"
        T6=$(ticket)
        client upgrade "unix:$SOCK" "/$P/websockify?${T6#*\?}" --then wait-close >"$O/stopped.txt" &
        HELD=$!
        bd_own_pid "$HELD"
        for i in $(seq 50); do grep -q '^greet' "$O/stopped.txt" && break; sleep 0.1; done
else
        t_pass "socket activation # SKIP systemd-socket-activate not installed"
        web_start unix2 "$BOTDESK" web
        ACT=$WEB_PID
        T6=$(ticket)
        client upgrade "unix:$SOCK" "/$P/websockify?${T6#*\?}" --then wait-close >"$O/stopped.txt" &
        HELD=$!
        bd_own_pid "$HELD"
        for i in $(seq 50); do grep -q '^greet' "$O/stopped.txt" && break; sleep 0.1; done
fi

# ---- the desktop stops under an open stream --------------------------------------------------------

T13=$(ticket)
bd_stop "$P"
t_is "$?" 0 "the desktop stops"
wait "$HELD"
t_is "$(tail -n1 "$O/stopped.txt")" "close 4001 desktop stopped" "the stream ends with 4001 \"desktop stopped\""
t_is "$(client upgrade "unix:$SOCK" "/$P/websockify?${T13#*\?}" --then code)" 4001 \
        "a ticket minted before the stop opens no stream after it (close 4001)"
t_is "$(ticket)" "" "... and no new ticket is minted for the stopped desktop"
kill -TERM "$ACT" 2>/dev/null
wait "$ACT"

t_done
