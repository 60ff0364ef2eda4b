#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The clients of a checkpointable desktop across its dumps. A viewer on
# rfb.sock and botdesk mcp's X connections (a session on stdio, a server
# over HTTP) come from outside the tree, which CRIU cannot dump: botdesk
# ends them first (the viewer sees its connection end and leaves), and
# botdesk mcp opens the desktop again at its next request, the agent doing
# nothing: after a snapshot, and after a hibernation by resuming the
# desktop (--start); the screen's revision holds across both. A session
# without --start ends at its next request, saying why. A program of
# botdesk exec on X is not botdesk's to end: a dump is refused while it
# runs. botdesk web's page watching the desktop opens a new stream by
# itself after a snapshot and after a resume. Needs root and
# CRIU 4.1 or later (scripts/install-deps.sh --tests makes one).
. "$(dirname "$0")/lib.sh"
bd_init ckc 825 once
bd_need_xserver
bd_need zenity xfwm4 socat python3 chromium
bd_need_criu
[ -f /usr/share/novnc/core/rfb.js ] || t_skip_all "novnc is not installed (/usr/share/novnc)"
P=$(bd_profile a)
RT=$(bd_rt "$P")

bd_config command="sh -c 'xfwm4 & exec zenity --scale --title=clients-test --text=clients-test --value=10'" \
        checkpointable=yes criu="$CRIU" timeout=30
bd_start "$P"
t_is "$?" 0 "a checkpointable desktop starts" || { cat "$BD_T/out/$P.err"; t_done; }
window_up() { "$BOTDESK" windows "$P" 2>/dev/null | grep -q clients-test; }
wait_for 20 window_up
t_is "$?" 0 "its window is up (waited 20 s)"
"$BOTDESK" settle "$P" >/dev/null 2>&1

# One MCP session for the whole test, as an agent keeps one.
coproc MCP { exec timeout 300 "$BOTDESK" mcp "$P" --start 2>"$BD_T/mcp.err"; }
MCP_OUT=${MCP[0]} MCP_IN=${MCP[1]}
bd_own_pid "$MCP_PID"
ID=1
# call ARGS-JSON: a computer action, its answer's first text (JSON) in $BD_T/answer; bounded: 120 s.
call() {
        local line
        ID=$((ID + 1))
        printf '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "computer", "arguments": %s}}\n' \
                "$ID" "$1" >&"$MCP_IN" || return 1
        IFS= read -r -t 120 line <&"$MCP_OUT" || return 1
        printf '%s\n' "$line" | python3 -c '
import json, sys
m = json.loads(sys.stdin.read())
r = m["result"]
print(json.dumps({"error": r.get("isError", False), "id": m["id"], **json.loads(r["content"][0]["text"])}))' \
                >"$BD_T/answer"
}
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' "$BD_T/answer" "$1"; }
# stable_revision: the screen's revision once two pictures in a row agree (GTK may still be drawing), in REV.
unchanged() { call "{\"action\": \"screenshot\", \"since_revision\": \"$REV\"}" && [ "$(field unchanged)" = True ]; }
stable_revision() {
        call '{"action": "screenshot"}' && REV=$(field revision) || return 1
        wait_for 10 unchanged
}
printf '%s\n' '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}' \
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}' >&"$MCP_IN"
IFS= read -r -t 60 INIT <&"$MCP_OUT"
t_match "$INIT" '"protocolVersion"' "an MCP session is open"
call '{"action": "screenshot"}'
t_is "$(field error)" False "... and takes a picture"
t_match "$(field revision)" '\.' "... with the screen's revision ($(field revision))"

# An MCP server over HTTP besides (botdesk mcp --listen), as an agent on another host reaches one.
SOCKDIR=$(mktemp -d "$BD_T/http.XXXXXX") && chmod 0700 "$SOCKDIR"
SOCK=$SOCKDIR/mcp.sock
"$BOTDESK" mcp "$P" --start --listen "unix:$SOCK" 2>"$BD_T/http.err" &
HTTP=$!
bd_own_pid "$HTTP"
wait_for 10 test -S "$SOCK"
t_is "$?" 0 "an MCP server listens over HTTP (waited 10 s for its socket)"
# http_call ARGS-JSON: the same over HTTP, each request on its own (bounded: 120 s).
http_call() {
        python3 - "$SOCK" "$1" >"$BD_T/answer" <<'PYEOF2'
import json, socket, sys
path, args = sys.argv[1:]
body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "computer", "arguments": json.loads(args)}}).encode()
s = socket.socket(socket.AF_UNIX)
s.settimeout(120)
s.connect(path)
s.sendall(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          b"Accept: application/json, text/event-stream\r\nConnection: close\r\n"
          b"Content-Length: %d\r\n\r\n" % len(body) + body)
data = b""
while chunk := s.recv(65536):
        data += chunk
head, _, rest = data.partition(b"\r\n\r\n")
text = rest.decode()
if "data:" in text:
        text = "".join(l[5:] for l in text.splitlines() if l.startswith("data:"))
r = json.loads(text)["result"]
print(json.dumps({"error": r.get("isError", False), **json.loads(r["content"][0]["text"])}))
PYEOF2
}
http_call '{"action": "screenshot"}'
t_is "$?$(field error)" 0False "... and takes a picture"
HREV=$(field revision)

# A viewer besides: botdesk rfb, the stdio bridge viewers use, its input held open.
mkfifo "$BD_T/viewer.in"
"$BOTDESK" rfb "$P" --viewer v1 <"$BD_T/viewer.in" >"$BD_T/viewer.out" 2>"$BD_T/viewer.err" &
VIEWER=$!
bd_own_pid "$VIEWER"
exec {VIEWER_IN}>"$BD_T/viewer.in"
greeted() { grep -q '^RFB 003' "$BD_T/viewer.out"; }
wait_for 10 greeted
t_is "$?" 0 "a viewer connects through botdesk rfb (waited 10 s for the server's greeting)"

# A snapshot with both connected.
stable_revision
t_is "$?" 0 "the screen holds still (waited 10 s for two pictures to agree: $REV)"
timeout 120 "$BOTDESK" snapshot "$P" s1 >"$BD_T/snap.out" 2>"$BD_T/snap.err"
t_is "$?" 0 "botdesk snapshot works with a viewer and an MCP session connected" || cat "$BD_T/snap.err"
t_match "$(cat "$RT/helper.log")" 'Ended [2-9][0-9]* connection\(s\) from outside' "... whose connections botdesk ended (the helper's log)"
viewer_gone() { ! kill -0 "$VIEWER" 2>/dev/null; }
wait_for 10 viewer_gone
t_is "$?" 0 "the viewer saw its connection end and left (waited 10 s)"
wait "$VIEWER"
t_is "$?" 0 "... botdesk rfb ending well"
t_match "$(cat "$BD_T/viewer.err")" 'snapshotted or hibernated.*connect again' "... saying why ($(head -c 150 "$BD_T/viewer.err"))"
exec {VIEWER_IN}>&-
call "{\"action\": \"screenshot\", \"since_revision\": \"$REV\"}"
t_is "$?$(field error)" 0False "the MCP session's next picture works, the agent doing nothing"
t_is "$(field unchanged)" True "... the same screen on the same run (unchanged since $REV)"
t_match "$(cat "$BD_T/mcp.err")" 'opened again' "... the session having opened the desktop again (its log)"
call '{"action": "key", "text": "Right"}'
t_is "$(field error)" False "... and its input works"
http_call "{\"action\": \"screenshot\", \"since_revision\": \"$HREV\"}"
t_is "$?$(field error)" 0False "the HTTP server's next picture works too"
t_match "$(cat "$BD_T/http.err")" 'opened again' "... it having opened the desktop again (its log)"

# A program of the host connected to X (xprop, not through botdesk exec): it would die with its
# connection, which is not botdesk's to end; the snapshot is refused, saying so, and the program lives on.
(eval "$("$BOTDESK" env "$P")"; exec xprop -root -spy _NET_ACTIVE_WINDOW) >"$BD_T/xprop.out" 2>&1 &
XPROP=$!
bd_own_pid "$XPROP"
spying() { [ -s "$BD_T/xprop.out" ]; }
wait_for 10 spying
t_is "$?" 0 "a program of the host watches the root window (waited 10 s for its first line)"
timeout 120 "$BOTDESK" snapshot "$P" s2 >"$BD_T/snap.out" 2>"$BD_T/snap.err"
t_is "$?" 1 "botdesk snapshot is refused while it is connected"
t_match "$(cat "$BD_T/snap.err")" 'from outside the desktop' "... naming the cause ($(head -c 200 "$BD_T/snap.err"))"
t_ok "... and the program lives on" kill -0 "$XPROP"
kill "$XPROP" 2>/dev/null
wait "$XPROP" 2>/dev/null

# A program of botdesk exec joins the tree: it runs, and goes with the desktop into every dump.
timeout 30 "$BOTDESK" exec "$P" -- zenity --scale --title=exec-test --text=exec-test --value=5 >"$BD_T/exec.out" 2>"$BD_T/exec.err"
t_is "$?" 0 "botdesk exec starts a window in the desktop and returns" || t_diag "$(cat "$BD_T/exec.err")"
exec_up() { "$BOTDESK" windows "$P" 2>/dev/null | grep -q exec-test; }
wait_for 20 exec_up
t_is "$?" 0 "... its window is up (waited 20 s)"
# A click gives it the focus the window manager held back (an urgent window's title blinks, and the
# screen would never hold still).
G=$("$BOTDESK" windows "$P" 2>/dev/null | awk '/exec-test/ {print $2; exit}')
"$BOTDESK" input "$P" click "$(echo "$G" | awk -F'[x+]' '{print $3 + int($1 / 2)}')" \
        "$(echo "$G" | awk -F'[x+]' '{print $4 + int($2 / 2)}')" >/dev/null 2>&1
t_is "$?" 0 "... and a click in it ($G) gives it the focus"
# A hibernation under the session, which resumes the desktop at its next request.
stable_revision
t_is "$?" 0 "the screen holds still again (waited 10 s: $REV)"
timeout 200 "$BOTDESK" hibernate "$P" >"$BD_T/hib.out" 2>"$BD_T/hib.err"
t_is "$?" 0 "botdesk hibernate works with the MCP session connected" || cat "$BD_T/hib.err"
"$BOTDESK" status "$P" --quiet
t_is "$?" 4 "... the desktop is not running"
call "{\"action\": \"screenshot\", \"since_revision\": \"$REV\"}"
t_is "$?$(field error)" 0False "the session's next picture works"
t_is "$(field unchanged)" True "... the same screen, its revision kept (a resumed desktop is the same run: $REV)"
t_match "$(cat "$RT/helper.log")" 'Restored desktop' "... which the session resumed from its images (the helper's log)"
t_ok "... with the window of botdesk exec, which went with the tree" exec_up
http_call '{"action": "cursor_position"}'
t_is "$?$(field error)" 0False "the HTTP server answers on the resumed desktop"
kill "$HTTP"
wait "$HTTP"
t_is "$?" 0 "... and ends on SIGTERM as ever"

# A session without --start ends at its next request once its desktop hibernated, saying why.
exec {MCP_IN}>&-
wait "$MCP_PID" 2>/dev/null
mkfifo "$BD_T/in2"
timeout 200 "$BOTDESK" mcp "$P" <"$BD_T/in2" >"$BD_T/out2" 2>"$BD_T/err2" &
M2=$!
bd_own_pid "$M2"
exec {IN2}>"$BD_T/in2"
printf '%s\n' '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}' \
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}' \
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "computer", "arguments": {"action": "cursor_position"}}}' >&"$IN2"
answered() { grep -q '"id":2\|"id": 2' "$BD_T/out2"; }
wait_for 30 answered
t_is "$?" 0 "a second session (no --start) answers (waited 30 s)"
timeout 200 "$BOTDESK" hibernate "$P" >"$BD_T/hib.out" 2>"$BD_T/hib.err"
t_is "$?" 0 "the desktop hibernates under it"
printf '%s\n' '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "computer", "arguments": {"action": "cursor_position"}}}' >&"$IN2"
ended() { ! kill -0 "$M2" 2>/dev/null; }
wait_for 30 ended
t_is "$?" 0 "... and the session ends at its next request (waited 30 s)"
wait "$M2"
t_is "$?" 1 "... failing"
t_match "$(cat "$BD_T/err2")" "$P.*(not running|hibernated)" "... saying why ($(tail -n1 "$BD_T/err2"))"
exec {IN2}>&-
"$BOTDESK" status "$P" --quiet
t_is "$?" 4 "... and leaves it hibernated"

# botdesk web's page watching it: across a snapshot, and a hibernation and its resume, the page opens a new
# stream by itself (web_reconnect.py).
bd_start "$P"
t_is "$?" 0 "the desktop resumes once more"
. "$(dirname "$0")/lib-web.sh"
web_start web "$BOTDESK" web --listen 127.0.0.1:0
t_is "$?" 0 "botdesk web listens on a loopback port"
URL=$("$BOTDESK" web ticket "$P" --viewer alice 2>"$BD_T/ticket.err")
t_match "$URL" '^http://127\.0\.0\.1:[0-9]+/' "a ticket for its page ($URL)"
BOTDESK=$BOTDESK timeout 200 "$PY" "$(dirname "$0")/web_reconnect.py" "$URL" "$BD_T/out" "$P" >"$BD_T/browser.txt" \
        2>"$BD_T/browser.err" &
BPID=$!
bd_own_pid "$BPID"
wait "$BPID"
BRC=$?
CPID=$(sed -n 's/^PID //p' "$BD_T/browser.txt")
[ -n "$CPID" ] && proc_alive "$CPID" && bd_own_pid "$CPID"
bd_browser_report "$BD_T/browser.txt"
t_is "$BRC" 0 "the browser's driver finishes" || t_diag "$(tail -n 15 "$BD_T/browser.err")"
t_done
