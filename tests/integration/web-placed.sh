#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk web serves a profile placed through an exec prefix (a wrapper of
# the test's own plays the sandbox, as in placement-prefix.sh): a ticket
# minted here opens its page; its stream is the far side's screen (the
# RFB greeting comes through `botdesk rfb` run through the prefix); Take
# over and Hand back change the far side's lease and the page's answer says
# so; a take by another viewer evicts the holder-to-be's stream with 4000
# control-taken, as a take on the far side itself does; leaving the page
# under release_on_close hands control back there; a prefix whose target is
# gone answers with the prefix's own error, and starts nothing on this host;
# the desktop's browser is reached by Playwright through botdesk web and
# `botdesk cdp` there; and no child of botdesk web outlives it.
# Band 460-464, main variant only (the far side's desktop).
. "$(dirname "$0")/lib.sh"
bd_init wpl 460 once
bd_need_xserver
bd_need xsetroot
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_need node
SDK_DIR=${BOTDESK_MCP_SDK_DIR:-/usr/local/lib/botdesk-tests}
[ -f "$SDK_DIR/node_modules/playwright-core/package.json" ] ||
        t_skip_all "playwright-core not installed in $SDK_DIR (scripts/install-deps.sh --tests)"
bd_need_browser

CLIENT=$BD_LIB_DIR/web_client.py
O=$BD_T/out
# The far side: its own runtime, state and configuration.
F=$BD_T/far
mkdir -m 700 "$F" "$F/run" "$F/state" "$F/config"
BOTDESK_CONFIG=$F/botdesk.ini bd_config
cat >"$BD_T/wrap" <<EOF
#!/bin/sh
export XDG_RUNTIME_DIR=$F/run XDG_STATE_HOME=$F/state XDG_CONFIG_HOME=$F/config BOTDESK_CONFIG=$F/botdesk.ini
export BOTDESK_PLACEMENT=standalone PATH=$(dirname "$BOTDESK"):\$PATH
echo "\$*" >>"$BD_T/prefix.log"
# While $BD_T/count exists, each \`lease P show\` through here is counted, and slow (the burst below overlaps).
case "\$*" in *" lease "*" show --json") [ -e "$BD_T/count" ] && { echo lease >>"$BD_T/count"; sleep 2; } ;; esac
exec "\$@"
EOF
# A prefix whose container is gone: what podman exec says then, and its status.
printf '#!/bin/sh\necho "Error: no container with name or ID \\"bd-gone\\" found: no such container" >&2\nexit 125\n' \
        >"$BD_T/gone"
chmod 755 "$BD_T/wrap" "$BD_T/gone"

P=$(bd_profile a) G=$(bd_profile g)
bd_config
{
        printf '[web]\nreconnect_grace_ms = 0\n'
        printf '[profile.%s]\nplacement = exec\nexec = %s\n' "$P" "$BD_T/wrap"
        printf '[profile.%s]\nplacement = exec\nexec = %s\n' "$G" "$BD_T/gone"
} >>"$BOTDESK_CONFIG"
far_rt() { printf '%s/botdesk/%s' "$F/run" "$1"; }
bd_register "$P"
bd_far_cleanup "$P" "$F/run"

ticket() { "$BOTDESK" web ticket "${2:-$P}" --viewer "$1" 2>>"$O/ticket.err"; }
query() { local t; t=$(ticket "$@") && printf '%s' "${t#*\?}"; }
client() { timeout 60 "$PY" "$CLIENT" "$@" 2>&1; }
code() { client upgrade "unix:$SOCK" "$@" --then code; }
session() { client http "unix:$SOCK" GET "/${2:-$P}/?$(query "$1" "${2:-$P}")" |
        sed -n 's/^Set-Cookie: \(botdesk_session=[0-9a-f]*\);.*/\1/p'; }
# The far side's lease, through the prefix, as "holder viewer_hash".
far_lease() {
        "$BOTDESK" lease "$P" --json | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
print(d["holder"], d.get("viewer_hash") or "-")'
}
far_agent() { [ "$(far_lease)" = "agent -" ]; }
no_watch() { [ -z "$(cmdline_pids "watch $P --json")" ]; }
no_cdp() { [ -z "$(cmdline_pids "cdp $P")" ]; }
no_rfb_of() { [ -z "$(cmdline_pids "rfb $P --viewer $1")" ]; }
hash_of() { printf '%s' "$1" | sha256sum | cut -c1-12; }
# The JSON body of a response, one field: "holder you".
body_of() { "$PY" -c '
import json, sys
t = sys.stdin.read()
d = json.loads(t[t.index("\n\n") + 2:])
print(d["holder"], d["you"])'; }

bd_start "$P"
rc=$?
t_is "$rc" 0 "desktop $P starts through its prefix"
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }
FAR_TOKEN=$(sed -n 's/^TOKEN=//p' "$(far_rt "$P")/helper" 2>/dev/null)
t_is "$(helpers_of "$P" | wc -w)" 0 "its helper runs on the far side, none here"

timeout 60 "$BOTDESK" exec "$P" -- xsetroot -solid rgb:33/66/cc
t_is "$?" 0 "the far root window is painted #3366cc"

SOCK=$BD_T/web.sock
web_start web "$BOTDESK" web --listen "unix:$SOCK"
t_is "$?" 0 "botdesk web listens on a Unix socket"
WEB=$WEB_PID

# ---- the page, the lease, the stream -------------------------------------------------------------

out=$(client http "unix:$SOCK" GET "/$P/?$(query alice)")
t_is "$(head -n1 <<<"$out")" 303 "a ticket for the placed profile is redeemed (303 to its page)"
A=$(sed -n 's/^Set-Cookie: \(botdesk_session=[0-9a-f]*\);.*/\1/p' <<<"$out")
t_is "$(client http "unix:$SOCK" GET "/$P/" "$A" | head -n1)" 200 "its page is served"
out=$(client http "unix:$SOCK" GET "/$P/lease" "$A")
t_is "$(head -n1 <<<"$out")" 200 "GET lease answers from the far side"
t_is "$(body_of <<<"$out")" "agent False" "... the agent holds control there"

# A burst of GET lease without a session (free over the Unix socket, as a
# local profile's) waits on one child: not one child (and ssh) per request.
: >"$BD_T/count"
out=$(timeout 60 "$PY" - "$SOCK" "$P" <<'PYEOF'
import socket, sys
path, profile = sys.argv[1:]
conns = []
for _ in range(16):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(path)
    s.sendall(("GET /%s/lease HTTP/1.1\r\nHost: localhost\r\n\r\n" % profile).encode())
    conns.append(s)
codes = []
for s in conns:
    head = b""
    while b"\r\n" not in head:
        c = s.recv(256)
        if not c:
            break
        head += c
    codes.append(head.split(b" ")[1].decode() if b" " in head else "none")
    s.close()
print(" ".join(sorted(set(codes))), len(codes))
PYEOF
)
n=$(wc -l <"$BD_T/count")
rm -f "$BD_T/count"
t_is "$out" "200 16" "16 concurrent GET lease without a session are each answered (200)"
t_is "$n" 1 "... by one child through the prefix, not one each ($n)"

out=$(client upgrade "unix:$SOCK" "/$P/websockify?$(query bob)" --then close)
t_match "$out" "^greet 2 b'RFB 003\\.008" "the stream greets with the far X server's RFB version, through the prefix"
t_match "$out" "^close 1000" "... and closes cleanly when the viewer leaves"

# A framebuffer update of the screen's centre, raw, through the stream: "update RECTS BYTES".
fb_update() {
        timeout 60 "$PY" - "unix:$SOCK" "/$P/websockify?$(query "$1")" "$BD_LIB_DIR" <<'PYEOF' 2>&1
import struct, sys
sys.path.insert(0, sys.argv[3])
import web_client as w
s, status = w.upgrade(sys.argv[1], sys.argv[2])
op, p = w.recv_frame(s)
r = w.Payload(s, p)
width, height = w.rfb_handshake(r, s)
w.send_frame(s, 2, struct.pack(">BBHi", 2, 0, 1, 0))
w.send_frame(s, 2, struct.pack(">BBHHHH", 3, 0, width // 2, height // 2, 1, 1))
t, _, n = struct.unpack(">BBH", r.read(4))
x, y, rw, rh, enc = struct.unpack(">HHHHi", r.read(12))
print("update %d %s" % (n, r.read(rw * rh * 4)[:3].hex()))
w.send_frame(s, 8, struct.pack(">H", 1000))
PYEOF
}
t_is "$(fb_update gina)" "update 1 cc6633" "a framebuffer update of the far screen's centre comes through the stream (#3366cc)"

# ---- take over, hand back, eviction -------------------------------------------------------------

client upgrade "unix:$SOCK" "/$P/websockify?$(query bob)" --then wait-close-at >"$O/watch-bob.txt" &
bd_own_pid $!
WB=$!
wait_for 20 grep -qs '^greet' "$O/watch-bob.txt"
t_ok "bob watches the placed desktop" grep -q '^greet' "$O/watch-bob.txt"
t0=$(date +%s%N)
out=$(client http "unix:$SOCK" POST "/$P/take" "$A")
t_is "$(head -n1 <<<"$out")" 200 "alice takes over through the page's button"
t_is "$(body_of <<<"$out")" "human True" "... and the answer says she holds control"
t_is "$(far_lease)" "human $(hash_of alice)" "the far side's lease names alice"
wait "$WB"
t_is "$(grep '^close' "$O/watch-bob.txt")" "close 4000 control-taken" "her take closes bob's stream with 4000 control-taken"
at=$(sed -n 's/^at //p' "$O/watch-bob.txt")
dt=$(( (${at:-0} - t0) / 1000000 ))
if [ -n "$at" ] && [ "$dt" -lt 5000 ]; then t_pass "within 5 s ($dt ms)"; else t_fail "within 5 s" "$dt ms"; fi
t_is "$(code "/$P/websockify?$(query bob)")" 4000 "bob's reconnect is refused with 4000 while alice holds control"
t_is "$(code "/$P/websockify?$(query alice)")" open "alice's own stream opens"
out=$(client http "unix:$SOCK" POST "/$P/release" "$A")
t_is "$(head -n1 <<<"$out")" 200 "alice hands back through the page's button"
t_is "$(body_of <<<"$out")" "agent False" "... and the answer says the agent holds control"
t_is "$(far_lease)" "agent -" "the far side's lease is the agent's again"

# A take on the far side itself (the CLI through the prefix) ends a web stream alike.
client upgrade "unix:$SOCK" "/$P/websockify?$(query bob)" --then wait-close-at >"$O/watch-bob2.txt" &
bd_own_pid $!
WB=$!
wait_for 20 grep -qs '^greet' "$O/watch-bob2.txt"
"$BOTDESK" lease "$P" take --viewer carol >/dev/null
wait "$WB"
t_is "$(grep '^close' "$O/watch-bob2.txt")" "close 4000 control-taken" \
        "a take on the far side closes a web stream with 4000 control-taken (its botdesk rfb exits 3)"
"$BOTDESK" lease "$P" release --viewer carol >/dev/null

# Leaving the page while holding control (1000, reconnect_grace_ms = 0) hands back there.
D=$(session dave)
client http "unix:$SOCK" POST "/$P/take" "$D" >/dev/null
mkfifo "$O/dave.fifo"
client upgrade "unix:$SOCK" "/$P/websockify" --header "Cookie: $D" --then hold-then:1000 <"$O/dave.fifo" >"$O/dave.txt" &
bd_own_pid $!
WD=$!
exec 7>"$O/dave.fifo"
wait_for 20 grep -qs '^held' "$O/dave.txt"
t_is "$(client http "unix:$SOCK" GET "/$P/lease" "$D" | body_of)" "human True" "dave, in control, watches his page"
exec 7>&-
wait "$WD"
t_match "$(cat "$O/dave.txt")" "echo 1000" "dave leaves his page (1000)"
wait_for 20 far_agent
t_is "$(far_lease)" "agent -" "... and control returns to the agent on the far side"

# ---- a prefix whose target is gone ------------------------------------------------------------------

out=$(client http "unix:$SOCK" GET "/$G/?$(query alice "$G")")
C=$(sed -n 's/^Set-Cookie: \(botdesk_session=[0-9a-f]*\);.*/\1/p' <<<"$out")
out=$(client http "unix:$SOCK" GET "/$G/lease" "$C")
t_is "$(head -n1 <<<"$out")" 502 "the lease of a profile whose container is gone: 502"
t_match "$out" 'no container with name or ID "bd-gone" found' "... with the prefix's own error"
t_is "$(code "/$G/websockify?$(query alice "$G")")" 4001 "its stream closes with 4001 (desktop stopped)"
t_match "$(cat "$O/web.err")" "through its exec prefix ended \\(exit 1\\).*no container with name" \
        "... and botdesk web's log has the prefix's error"
t_is "$(helpers_of "$G" | wc -w)$(xservers_of "$G" | wc -w)" 00 "nothing was started on this host"

# ---- a real browser --------------------------------------------------------------------------------

# The page in headless Chromium, as web.sh drives it for a host profile:
# the desktop drawn, input only while the page holds control, Take over,
# another viewer's take, Hand back, release on leaving; here every lease
# the driver reads comes through the prefix.
if [ -x /usr/lib/chromium/chromium ] || command -v chromium >/dev/null 2>&1 &&
        [ -f /usr/share/novnc/core/rfb.js ] && command -v xdotool >/dev/null 2>&1; then
        web_start tcp "$BOTDESK" web --listen 127.0.0.1:0
        t_is "$?" 0 "botdesk web --listen 127.0.0.1:0 starts"
        TCP=$WEB_PID
        URL=$(ticket frank)
        (
                eval "$("$BOTDESK" env "$P")"
                export BOTDESK DISPLAY XAUTHORITY
                exec timeout 150 "$PY" "$BD_LIB_DIR/web_browser.py" "$URL" "$O" "$P" frank
        ) >"$O/browser.txt" 2>"$O/browser.err" &
        BPID=$!
        bd_own_pid "$BPID"
        wait_for 20 grep -qs '^PID ' "$O/browser.txt" && bd_own_pid "$(sed -n 's/^PID //p' "$O/browser.txt")"
        wait "$BPID"
        brc=$?
        bd_browser_report "$O/browser.txt"
        [ "$brc" = 0 ] || t_fail "the browser driver finishes (exit $brc)" "$(tail -n 15 "$O/browser.err")"
        t_is "$SCREEN" "51 102 204" "the page's screenshot shows the far desktop's root colour at the screen's centre"
        t_is "$(far_lease)" "agent -" "after the page, the agent holds control on the far side"
        kill -TERM "$TCP"
        wait "$TCP"
else
        t_skip "a real browser shows the placed desktop" "chromium, novnc or xdotool not installed"
fi

# ---- the browser's DevTools, through the prefix -----------------------------------------------------

# botdesk browser P endpoint for a placed desktop: the far side's status
# decides (running, the lease), the URL is this host's botdesk web, and its
# relay reaches the far browser's 0600 socket through `botdesk cdp P` run
# through the prefix. Playwright's own client attaches as to a host's.
web_start dev "$BOTDESK" web --listen 127.0.0.1:0
t_is "$?" 0 "a botdesk web on a loopback port serves the DevTools of placed desktops"
DEV=$WEB_PID
ADDR=$(sed -n 's|^Listening on http://\(127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$O/dev.out")
endpoint() { timeout 30 "$BOTDESK" browser "${2:-$P}" "${1:-endpoint}" 2>>"$O/endpoint.err"; }
raw() { local u=$1; shift; timeout 30 "$PY" "$BD_LIB_DIR/devtools_raw.py" "$ADDR" "/${u#ws://*/}" "$@" 2>&1; }
playwright() { timeout 90 node "$BD_LIB_DIR/browser-endpoint-client.cjs" "$SDK_DIR" "$@" 2>>"$O/client.err"; }
json_get() { "$PY" -c 'import json,sys; d=json.loads(sys.stdin.readline()); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }

URL=$(endpoint)
t_is "$?" 0 "browser endpoint of a placed desktop without a browser mints a URL (the far side says what it lacks)"
t_is "$(raw "$URL" first)" "close 1013 no browser" "... which closes 1013 (no browser), as botdesk cdp there said"
t_match "$(cat "$O/dev.err")" "DevTools of $P through its exec prefix ended \\(exit 1\\).*has no browser with DevTools" \
        "... and botdesk web's log has the far side's reason"

FRT=$(far_rt "$P")
timeout 200 "$BOTDESK" exec "$P" -- "$LAUNCHER" --cdp-socket="$FRT/cdp.sock" -- "$CHROMIUM" "${HEADLESS[@]}" \
        --user-data-dir="$BD_T/chromium" about:blank >"$O/chromium.out" 2>"$O/chromium.err" &
CH=$!
bd_own_pid "$CH"
wait_for 30 test -S "$FRT/cdp.sock" ||
        t_fail "the far side's browser serves DevTools within 30 s" "$(tail -5 "$O/chromium.err")"
URL=$(endpoint)
t_match "$URL" "^ws://$ADDR/$P/devtools/browser\\?ticket=[0-9a-f]{64}$" \
        "browser endpoint of a placed desktop prints this host's ws://ADDR/PROFILE/devtools/browser?ticket=T"
TITLE="botdesk placed devtools $$"
playwright open "$URL" "$TITLE" >"$O/open.json"
t_is "$?" 0 "Playwright's connectOverCDP attaches to the far browser through it and opens a page" ||
        t_diag "$(cat "$O/open.json"; tail -5 "$O/client.err"; tail -5 "$O/dev.err")"
t_is "$(grep '"page"' "$O/open.json" | json_get '(d["title"], d["sum"])')" "('$TITLE', 42)" \
        "... and reads back the title of the page it opened and a value computed in it"
t_ok "... through botdesk cdp run through the prefix" grep -q "cdp $P" "$BD_T/prefix.log"
t_is "$(raw "$URL" first)" "close 4401 unknown or already used" "the URL's ticket is spent: a second use is closed 4401"
playwright open "$(endpoint http-endpoint)" "$TITLE over http" >"$O/open-http.json"
t_is "$(grep '"page"' "$O/open-http.json" | json_get 'd["title"]')" "$TITLE over http" \
        "an http:// endpoint of the placed desktop is discovered (/json/version) and attached alike"
playwright pair "$(endpoint)" "$(endpoint)" "$TITLE" >"$O/pair.json"
t_is "$(grep '"pair"' "$O/pair.json" | json_get '(d["titles"], d["sums"])')" "(['$TITLE 0', '$TITLE 1'], [42, 49])" \
        "two Playwright clients attach to the far browser at the same time, each with its own page" ||
        t_diag "$(cat "$O/pair.json"; tail -5 "$O/client.err")"
read -r _ TARGET < <(raw "$(endpoint)" create "placed-listed-$$")
PAGEURL=$("$PY" - "$(endpoint http-endpoint)" "$TARGET" <<'PYEOF'
import http.client, json, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
c.request("GET", u.path + "json/list")
r = c.getresponse()
mine = [t for t in json.loads(r.read()) if t["id"] == sys.argv[2]] if r.status == 200 else []
print(mine[0]["webSocketDebuggerUrl"] if mine else "status %d" % r.status)
PYEOF
)
t_match "$PAGEURL" "^ws://$ADDR/$P/devtools/page/$TARGET\\?ticket=[0-9a-f]{64}$" \
        "/json/list of the placed desktop names a page made there, with its own connection's URL"
t_is "$(raw "$PAGEURL" title)" "answer placed-listed-$$ bare" "... which is that page's, through the prefix"

BEFORE=$(endpoint)
"$BOTDESK" lease "$P" take --viewer vera >/dev/null
endpoint >/dev/null
t_is "$?" 3 "while a human holds control on the far side, browser endpoint is refused (exit 3)"
t_match "$(tail -n1 "$O/endpoint.err")" "A human has control of this screen" "... saying so"
t_match "$(raw "$BEFORE" first)" "human_has_control" "a URL minted before the take reaches only the far browser's fence"
"$BOTDESK" lease "$P" release --viewer vera >/dev/null
endpoint endpoint "$G" >/dev/null
t_is "$?" 4 "browser endpoint of a placed profile whose container is gone exits 4 (not running)"
t_match "$(tail -n1 "$O/endpoint.err")" "not running.*no container with name" "... with the prefix's error"

kill -TERM "$DEV"
wait "$DEV"
t_is "$?" 0 "that botdesk web exits 0, its DevTools relays with it"
t_ok "no botdesk cdp is left (here or on the far side)" wait_for 10 no_cdp
kill -TERM "$CH" 2>/dev/null
t_ok "the far browser's launcher ends on SIGTERM (waited 10 s)" wait_for 10 sh -c "! kill -0 $CH 2>/dev/null"
wait "$CH" 2>/dev/null

# ---- no child outlives the server --------------------------------------------------------------------

client upgrade "unix:$SOCK" "/$P/websockify?$(query erin)" --then wait-close >"$O/watch-erin.txt" &
bd_own_pid $!
WE=$!
wait_for 20 grep -qs '^greet' "$O/watch-erin.txt"
t_ok "the stream has its botdesk rfb child" test -n "$(cmdline_pids "rfb $P --viewer erin")"
t_ok "while it has a stream, the placed profile's lease is followed by botdesk watch through the prefix" \
        test -n "$(cmdline_pids "watch $P --json")"
t_match "$(client http "unix:$SOCK" GET "/$P/lease" "$(session erin)" | body_of)" "agent False" \
        "GET lease answers meanwhile"
kill -TERM "$WEB"
wait "$WEB"
t_is "$?" 0 "botdesk web exits 0 on SIGTERM"
wait "$WE"
t_match "$(cat "$O/watch-erin.txt")" "close 1001" "the stream closes with 1001"
t_ok "no botdesk rfb of the stream is left (here or on the far side)" \
        wait_for 10 no_rfb_of erin
t_ok "nor the botdesk watch that followed the lease" wait_for 10 no_watch
t_done
