#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk's RFB client (control/rfb-client.h), the start of a profile that
# fronts a VNC server botdesk did not start, against real TigerVNC servers
# the test starts on Unix sockets: one asking for VNC authentication with a
# password made by vncpasswd, one with security None. The right password
# gets the server's ServerInit (its size and name); a wrong one, or none,
# is refused in botdesk's words, never the server's; a full update of a
# root window the test painted reads back as its colour. A profile with
# remote = is checked (no names, loopback only when allowed), reported by
# status and refused by the verbs that do not serve it yet; its thumbnail
# is the server's framebuffer (over TCP and through remote = exec:), with
# the password file's rules, a wrong password and a missing server said in
# botdesk's words, behind the lease; the password is in nothing botdesk
# wrote or said. Band 725, once.
. "$(dirname "$0")/lib.sh"
bd_init rfc 725 once
bd_need_xserver
bd_need vncpasswd xsetroot
PROBE=${BOTDESK_RFB_CLIENT_PROBE:-$BOTDESK_BUILD_DIR/tests/integration/rfb-client-probe}
[ -x "$PROBE" ] || t_skip_all "the test's rfb-client-probe is not built ($PROBE)"
X=$(command -v Xtigervnc || command -v Xvnc)

# serve N SOCKET ARGS...: a TigerVNC server on display :N and SOCKET, its pid owned by the test.
SERVERS=()
serve() {
        local n=$1 sock=$2
        shift 2
        "$X" ":$n" -rfbport -1 -rfbunixpath "$sock" -rfbunixmode 0600 -nolisten tcp -geometry 800x600 -depth 24 \
                -desktop "probe-$n" "$@" >"$BD_T/out/x$n.log" 2>&1 &
        SERVERS+=($!)
        bd_own_pid $!
}
gone() { ! kill -0 "$1" 2>/dev/null; }
probe() { timeout 20 "$PROBE" "$@" 2>&1; }

printf 'botdesk\n' | vncpasswd -f >"$BD_T/passwd"
chmod 600 "$BD_T/passwd"
printf 'botdesk\n' >"$BD_T/right"
printf 'wrong-pw\n' >"$BD_T/wrong"
serve 725 "$BD_T/auth.sock" -SecurityTypes VncAuth -PasswordFile "$BD_T/passwd"
serve 726 "$BD_T/none.sock" -SecurityTypes None
t_ok "a TigerVNC server with VNC authentication listens (waited 10 s for its socket)" wait_for 10 test -S "$BD_T/auth.sock"
t_ok "and one with security None (waited 10 s)" wait_for 10 test -S "$BD_T/none.sock"

t_is "$(probe "$BD_T/auth.sock" "$BD_T/right")" "ready 800x600 probe-725" \
        "with the right password the handshake ends in the server's ServerInit (800x600, its name)"
out=$(probe "$BD_T/auth.sock" "$BD_T/wrong")
t_match "$out" "^error EACCES: the server refused the password$" "a wrong password: EACCES, in botdesk's words"
out=$(probe "$BD_T/auth.sock")
t_match "$out" "^error ENOKEY: " "no password for a server that asks for one: ENOKEY"
t_is "$(probe "$BD_T/none.sock")" "ready 800x600 probe-726" "security None: ServerInit without a password"
t_is "$(probe "$BD_T/none.sock" "$BD_T/right")" "ready 800x600 probe-726" "... and with one it does not need"

# The screen: the root window painted a colour of the test's own, read back through updates.
DISPLAY=:726 xsetroot -solid '#1a2b3c' 2>"$BD_T/out/xsetroot.err"
t_is "$?" 0 "the test paints the root window of :726 #1a2b3c (xsetroot)"
t_is "$(probe "$BD_T/none.sock" --frame | tail -n1)" "frame 1a2b3c 0" \
        "a full update read by botdesk's client is that colour at the centre, and everywhere"
DISPLAY=:725 xsetroot -solid '#c0ffee' 2>>"$BD_T/out/xsetroot.err"
t_is "$(probe "$BD_T/auth.sock" "$BD_T/right" --frame | tail -n1)" "frame c0ffee 0" \
        "... and through VNC authentication"

# ---- a profile that names such a server (remote =): checked, reported, refused for the rest ----------
V=$(bd_profile vm)
printf '[profile.%s]\nremote = 127.0.0.1:5900\n' "$V" >"$BOTDESK_CONFIG"
"$BOTDESK" config check >"$BD_T/out/check" 2>&1
t_is "$?" 2 "remote = a loopback address without remote_allow_loopback: a configuration error (2)"
t_match "$(cat "$BD_T/out/check")" "remote_allow_loopback = yes" "... naming the key that allows it"
printf '[profile.%s]\nremote = vnc.example:5900\n' "$V" >"$BOTDESK_CONFIG"
t_match "$("$BOTDESK" config check 2>&1)" "resolves no names" "remote = a name: refused, no DNS"
printf '[profile.%s]\nremote = 127.0.0.1:5900\nremote_allow_loopback = yes\n' "$V" >"$BOTDESK_CONFIG"
t_is "$("$BOTDESK" status "$V" --json | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["placement"], d["placement_kind"], d["remote"], d["running"], d["remote_warning"], d["geometry"])')" \
        "remote remote 127.0.0.1:5900 True None None" \
        "status --json: placement remote, the remote as written, running as far as botdesk knows, no warning for loopback, no size before a session"
printf '[profile.%s]\nremote = 203.0.113.7:5900\n' "$V" >"$BOTDESK_CONFIG"
t_match "$("$BOTDESK" status "$V" --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["remote_warning"])')" \
        "public address.*unencrypted" "a peer at a public address: status --json says remote_warning"
out=$(timeout 30 "$BOTDESK" thumbnail "$V" -o "$BD_T/no.png" 2>&1)
t_is "$(grep -c "public address" <<<"$out")" 1 "... and the front's start says it once in the log"
printf '[profile.%s]\nremote = 127.0.0.1:5900\nremote_allow_loopback = yes\n' "$V" >"$BOTDESK_CONFIG"
out=$(timeout 20 "$BOTDESK_HELPER" "$V" 2>&1)
t_is "$?" 3 "botdesk-helper for a remote profile, however it was started, refuses (3)"
t_match "$out" "no desktop is started for it" "... and starts nothing"
for verb in "start $V" "stop $V" "windows $V" "files $V ls"; do
        out=$(timeout 20 "$BOTDESK" $verb 2>&1)
        t_is "$?" 3 "botdesk $verb on a remote profile: refused (3)"
        t_match "$out" "VNC server botdesk did not start" "... saying why"
done

# ---- botdesk thumbnail of a remote profile: its framebuffer, over TCP and over exec: -----------------
PORT=$((5900 + 727))
# A password of its own, to look for where it must never be.
SECRET=Pw$((RANDOM % 90000 + 10000))z
printf '%s\n' "$SECRET" | vncpasswd -f >"$BD_T/passwd727"
chmod 600 "$BD_T/passwd727"
"$X" :727 -rfbport "$PORT" -localhost -nolisten tcp -geometry 640x480 -depth 24 -desktop probe-727 \
        -SecurityTypes VncAuth -PasswordFile "$BD_T/passwd727" >"$BD_T/out/x727.log" 2>&1 &
SERVERS+=($!)
bd_own_pid $!
t_ok "a TigerVNC server with VNC authentication listens on 127.0.0.1:$PORT (waited 10 s)" \
        wait_for 10 grep -q "Listening for VNC connections" "$BD_T/out/x727.log"
DISPLAY=:727 xsetroot -solid '#336699' 2>>"$BD_T/out/xsetroot.err"
printf '%s\n' "$SECRET" >"$BD_T/pw"
chmod 600 "$BD_T/pw"
remote_config() {
        printf '[profile.%s]\nremote = %s\nremote_allow_loopback = yes\nremote_password_file = %s\n' "$V" "$1" "$2" \
                >"$BOTDESK_CONFIG"
}
# centre FILE: the PNG's size and the colour at its centre, as "WxH RRGGBB".
centre() {
        "$PY" -c '
import sys
sys.path.insert(0, sys.argv[1])
import web_client as w
wd, h, bpp, rows = w.png_pixels(open(sys.argv[2], "rb").read())
r, g, b = rows[h // 2][bpp * (wd // 2):bpp * (wd // 2) + 3]
print("%dx%d %02x%02x%02x" % (wd, h, r, g, b))' "$BD_LIB_DIR" "$1"
}
# remote_thumb ARGS...: botdesk thumbnail of the remote profile, what it said in $out (and in out/remote.log).
remote_thumb() {
        local rc
        out=$(timeout 30 "$BOTDESK" thumbnail "$V" "$@" 2>&1)
        rc=$?
        printf '%s\n' "$out" >>"$BD_T/out/remote.log"
        return $rc
}
remote_config "127.0.0.1:$PORT" "$BD_T/pw"
remote_thumb -o "$BD_T/remote.png"
t_is "$?" 0 "botdesk thumbnail of a remote profile reads its framebuffer over RFB (remote = 127.0.0.1:$PORT)" ||
        t_diag "$out"
t_is "$(centre "$BD_T/remote.png" 2>&1)" "640x480 336699" "... a PNG of the server's screen: its size, and the colour the test painted"
t_is "$("$BOTDESK" status "$V" --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["geometry"])')" "640x480" \
        "status --json: the geometry the server's ServerInit gave"
t_match "$("$BOTDESK" status "$V")" "remote = 127.0.0.1:$PORT \(640x480\)" "... and the text status names the server and its size"
doctor_remote() { timeout 60 "$BOTDESK" doctor --json 2>/dev/null | "$PY" -c '
import json, sys
for r in json.load(sys.stdin).get("remote", []):
    print(r["profile"], r["remote"], r["reachable"], r.get("geometry"))'; }
t_is "$(doctor_remote)" "$V 127.0.0.1:$PORT True [640, 480]" \
        "botdesk doctor --json: the remote profile's server answers, with its size"
t_is "$(timeout 30 "$BOTDESK" thumbnail "$V" --json --size 320x240 2>&1 |
        "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["width"], d["height"], d["screen"], d["data_url"].split(",")[0])')" \
        "320 240 [640, 480] data:image/png;base64" "--json --size: scaled, with the screen's size and a data URL"
remote_config "exec:socat - TCP:127.0.0.1:$PORT" "$BD_T/pw"
remote_thumb -o "$BD_T/exec.png"
t_is "$?" 0 "remote = exec:COMMAND: the same picture through the command's stdio" || t_diag "$out"
t_is "$(centre "$BD_T/exec.png" 2>&1)" "640x480 336699" "... of the same screen"
remote_config "127.0.0.1:$PORT" "$BD_T/wrong"
chmod 600 "$BD_T/wrong"
remote_thumb -o "$BD_T/no.png"
t_is "$?" 1 "a wrong password: exit 1"
t_match "$out" "the server refused the password\.$" "... in botdesk's words"
t_ok "... and no picture" test ! -e "$BD_T/no.png"
chmod 644 "$BD_T/pw"
remote_config "127.0.0.1:$PORT" "$BD_T/pw"
remote_thumb -o "$BD_T/no.png"
t_is "$?" 1 "a password file others may read: exit 1, nothing sent"
t_match "$out" "group or others may read it" "... saying so"
chmod 600 "$BD_T/pw"
remote_config "127.0.0.1:$((PORT + 1))" "$BD_T/pw"
remote_thumb -o "$BD_T/no.png"
t_is "$?" 1 "a server that is not there: exit 1"
t_match "$out" "refused the connection" "... saying it refused the connection"
t_is "$(doctor_remote)" "$V 127.0.0.1:$((PORT + 1)) False None" "... and botdesk doctor says it does not answer"
t_match "$(timeout 60 "$BOTDESK" doctor 2>&1)" "remote $V: 127.0.0.1:$((PORT + 1)) does not answer as configured" \
        "... in its text too, after the session's own words"
# fake MODE: a server of the test's own on 127.0.0.1:PORT+2 for one connection: "stall" greets and then
# says nothing; "apple" offers only Apple's security types. Its pid in FAKE.
fake() {
        "$PY" - "$((PORT + 2))" "$1" <<'PYEOF' >"$BD_T/out/fake-$1.log" 2>&1 &
import socket, sys, time
port, mode = int(sys.argv[1]), sys.argv[2]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(1)
print("listening", flush=True)
c, _ = s.accept()
c.sendall(b"RFB 003.008\n")
c.recv(12)
if mode == "apple":
    c.sendall(bytes([2, 30, 35]))
time.sleep(30)
PYEOF
        FAKE=$!
        bd_own_pid $FAKE
        wait_for 10 grep -qs listening "$BD_T/out/fake-$1.log"
}
fake stall
remote_config "127.0.0.1:$((PORT + 2))" "$BD_T/pw"
t0=$(date +%s%N)
remote_thumb -o "$BD_T/no.png"
t_is "$?" 1 "a server that stalls mid-handshake: exit 1"
dt=$(( ($(date +%s%N) - t0) / 1000000 ))
t_match "$out" "did not finish the handshake in time" "... saying so"
if [ "$dt" -ge 9000 ] && [ "$dt" -lt 20000 ]; then t_pass "... at the 10 s deadline ($dt ms)"; else t_fail "at the 10 s deadline" "$dt ms"; fi
kill -TERM "$FAKE"
fake apple
remote_thumb -o "$BD_T/no.png"
t_is "$?" 1 "a server that offers only Apple's security types: exit 1"
t_match "$out" "no security type botdesk speaks" "... saying so, in botdesk's words"
kill -TERM "$FAKE"
remote_config "127.0.0.1:$PORT" "$BD_T/pw"

# ---- botdesk rfb of a remote profile: the viewer greeted here, the lease applied here ---------------
# rfbclient.py speaks plain RFB 3.8 with security None to `botdesk rfb`: the server's password stays
# botdesk's. where:LABEL reads the pointer on the server's own display (:727).
client() { DISPLAY=:727 timeout 60 "$PY" "$BD_LIB_DIR/rfbclient.py" "$BOTDESK" "$V" "$@" 2>>"$BD_T/out/client.err"; }
out=$(client v1 move:11,12 where:start move:101,102 where:agent)
printf '%s\n' "$out" >>"$BD_T/out/remote.log"
t_match "$out" "^init 640x480" "a viewer of botdesk rfb on a remote profile gets the server's 640x480 screen (security None here)"
start=$(sed -n 's/^start //p' <<<"$out")
t_is "$(sed -n 's/^agent //p' <<<"$out")" "$start" "... and while the agent holds control, its pointer events do not reach the server"
t_match "$out" "exit 0\$" "... and the bridge exits 0 when the viewer closes"
t_ok "viewer v1 takes control of the remote desktop" timeout 20 "$BOTDESK" lease "$V" take --viewer v1
out=$(client v1 move:201,202 where:holder)
printf '%s\n' "$out" >>"$BD_T/out/remote.log"
t_match "$out" "^holder 201,202$" "the holder's pointer event moves the server's pointer to 201,202"
out=$(client v2 move:301,302)
t_match "$out" "exit 3$" "another viewer is refused (3) while a human holds the remote desktop"
t_ok "... v1 hands control back" timeout 20 "$BOTDESK" lease "$V" release --viewer v1
remote_config "127.0.0.1:$PORT" "$BD_T/wrong"
out=$(timeout 30 "$BOTDESK" rfb "$V" --viewer v1 </dev/null 2>&1 >/dev/null)
t_is "$?" 1 "botdesk rfb with a wrong password: exit 1, before a byte reaches the viewer"
t_match "$out" "the server refused the password\.$" "... in botdesk's words"
remote_config "127.0.0.1:$PORT" "$BD_T/pw"

# ---- botdesk input on a remote profile: RFB key and pointer events, behind the lease --------------------
REC=${BOTDESK_INPUT_RECORDER:-$BOTDESK_BUILD_DIR/tests/integration/input-recorder}
DISPLAY=:727 "$REC" "$BD_T/rec.txt" "$BD_T/rec.log" >"$BD_T/out/rec.out" 2>&1 &
RP=$!
bd_own_pid $RP
t_ok "the tests' X client records input on the server's display :727 (waited 10 s)" \
        wait_for 10 grep -qs '^ready' "$BD_T/rec.log"
rinput() { timeout 30 "$BOTDESK" input "$V" "$@" 2>>"$BD_T/out/input.err"; }
out=$(rinput click 100 120 --json)
t_is "$?" 0 "botdesk input click on a remote profile: exit 0"
t_match "$out" '"action": "click", "x": 100, "y": 120, "button": 1' "... its JSON names the click"
t_ok "... and the server delivered the press at 100,120 (the recorder's window saw it there)" \
        grep -q '^button-press 1 100 120$' "$BD_T/rec.log"
TEXT='Héllo_Ж "wörld"!'
out=$(rinput type "$TEXT" --json)
t_is "$?" 0 "botdesk input type on a remote profile: exit 0"
t_match "$out" '"characters": 16' "... 16 characters sent"
t_is "$(cat "$BD_T/rec.txt")" "$TEXT" "... and the server typed them all: capitals, shifted symbols, Cyrillic, accents"
rinput scroll 0 2 >/dev/null
t_is "$(grep -c '^button-press 5 ' "$BD_T/rec.log")" 2 "scroll 0 2: two presses of button 5 (down)" ||
        t_diag "$(cat "$BD_T/rec.log")"
rinput click >/dev/null
t_is "$(grep -c '^button-press 1 100 120$' "$BD_T/rec.log")" 2 \
        "a click without a position happens where the last action left the pointer (100,120)"
rinput drag 200 200 300 260 >/dev/null
t_ok "drag: the button held through the motion to 300,260 (the recorder saw drag-motion there)" \
        grep -q '^drag-motion 300 260$' "$BD_T/rec.log"
# A drag GTK's drag-and-drop takes for one on the far server: paced by its updates, as on a desktop of botdesk's.
: >"$BD_T/dnd.out"
DISPLAY=:727 "$PY" "$BD_SOURCE_DIR/tests/integration/dnd-app.py" dnd-$$ "$BD_T/dnd.out" >"$BD_T/out/dnd.out" 2>&1 &
DP=$!
bd_own_pid $DP
t_ok "a GTK application with a drag source and a drop target runs on the server's display (waited 20 s)" \
        wait_for 20 grep -qs '^ready ' "$BD_T/dnd.out" || t_diag "$(cat "$BD_T/out/dnd.out")"
read -r _ SX SY TX TY < <(grep '^ready ' "$BD_T/dnd.out")
rinput drag "$SX" "$SY" "$TX" "$TY" >/dev/null
t_ok "drag from its source to its target: GTK drops (waited 10 s)" wait_for 10 grep -q '^dropped botdesk-dnd$' "$BD_T/dnd.out" ||
        t_diag "$(cat "$BD_T/dnd.out" "$BD_T/out/dnd.out")"
kill "$DP" 2>/dev/null
wait "$DP" 2>/dev/null
out=$(rinput move 50 60 --settle=200 --json)
t_match "$out" '"settle": "(settled|no_change)", "settle_ms": [0-9]+' "--settle waits for the server's updates and says how it ended"
out=$(rinput click 1 1 --window 0x1234 2>&1)
t_is "$?" 2 "--window on a remote profile: a usage error (2)"
out=$(timeout 30 "$BOTDESK" input "$V" click 700 10 2>&1)
t_is "$?" 2 "a position outside the server's 640x480 screen: a usage error (2)"
t_match "$out" "outside the screen \(640x480\)" "... naming the server's size"
t_ok "a human takes control of the remote desktop" timeout 20 "$BOTDESK" lease "$V" take --viewer h2
before=$(wc -l <"$BD_T/rec.log")
timeout 30 "$BOTDESK" input "$V" click 100 120 >/dev/null 2>&1
t_is "$?" 3 "while a human holds control, the agent's input is refused (3)"
t_is "$(wc -l <"$BD_T/rec.log")" "$before" "... and nothing reached the server"
t_ok "... the human hands back" timeout 20 "$BOTDESK" lease "$V" release --viewer h2
# botdesk mcp on the remote profile: the computer tool on the same session, one MCP client's run.
out=$(timeout 90 "$PY" - "$BOTDESK" "$V" <<'PYEOF' 2>&1
import json, subprocess, sys
botdesk, profile = sys.argv[1:3]
calls = [("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
         ("tools/list", {}),
         ("tools/call", {"name": "computer", "arguments": {"action": "screenshot"}}),
         ("tools/call", {"name": "computer", "arguments": {"action": "left_click", "coordinate": [150, 160]}}),
         ("tools/call", {"name": "computer", "arguments": {"action": "type", "text": "mcp-ok"}}),
         ("tools/call", {"name": "computer", "arguments": {"action": "cursor_position"}}),
         ("tools/call", {"name": "computer", "arguments": {"action": "screenshot"}}),
         ("tools/call", {"name": "windows", "arguments": {}})]
lines = [json.dumps({"jsonrpc": "2.0", "id": i, "method": m, "params": p}) for i, (m, p) in enumerate(calls)]
lines.insert(1, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
p = subprocess.run([botdesk, "mcp", profile], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=80)
res = {}
for line in p.stdout.splitlines():
    m = json.loads(line)
    res[m["id"]] = m
def text(i):
    return json.loads(next(c["text"] for c in res[i]["result"]["content"] if c["type"] == "text"))
names = [t["name"] for t in res[1]["result"]["tools"]]
print("tools", "computer" in names, "windows" in names, "a11y_tree" in names, "file_upload" in names)
shot = res[2]["result"]["content"]
print("shot", [c["type"] for c in shot], [c.get("mimeType") for c in shot if c["type"] == "image"], text(2).get("screenshot"))
print("click", res[3]["result"].get("isError", False), text(3).get("settle"))
print("type", res[4]["result"].get("isError", False))
print("cursor", text(5).get("cursor") or text(5).get("coordinate"))
rev = text(6).get("revision", "")
print("revision", len(rev), rev.split(".")[0] == text(2).get("revision", ".").split(".")[0])
print("windows", res[7].get("error", {}).get("message", "no error")[:40])
PYEOF
)
printf '%s\n' "$out" >>"$BD_T/out/remote.log"
t_is "$(sed -n 's/^tools //p' <<<"$out")" "True False False False" \
        "botdesk mcp on a remote profile offers the computer tool, not windows, a11y or files (what a VNC server cannot give)"
t_match "$(sed -n 's/^shot //p' <<<"$out")" "^\['text', 'image'\] \['image/jpeg'\] \{'width': 640, 'height': 480, 'scale': 1\}" \
        "its screenshot is a JPEG of the server's 640x480 framebuffer"
t_match "$(sed -n 's/^click //p' <<<"$out")" "^False (settled|no_change)" "left_click answers, settled by the server's updates"
t_ok "... and the server delivered it at 150,160" grep -q '^button-press 1 150 160$' "$BD_T/rec.log"
t_is "$(sed -n 's/^type //p' <<<"$out")" False "type answers"
t_match "$(cat "$BD_T/rec.txt")" "mcp-ok$" "... and the server typed the text"
t_is "$(sed -n 's/^cursor //p' <<<"$out")" "[150, 160]" "cursor_position: where botdesk's events left the pointer"
t_is "$(sed -n 's/^revision //p' <<<"$out")" "29 True" "a screenshot's revision is RUN.HASH, the run the same for the same server"
t_match "$(sed -n 's/^windows //p' <<<"$out")" "Unknown tool \"windows\"" "a call of windows is refused as a tool not offered"

# botdesk act with OpenAI's batched computer_call, verbatim, on the same remote screen.
echo '{"type":"computer_call","call_id":"call_r","actions":[{"type":"click","button":"left","x":210,"y":220},{"type":"type","text":"oa!"}],"pending_safety_checks":[]}' |
        timeout 60 "$BOTDESK" act "$V" >"$BD_T/out/act.json" 2>"$BD_T/out/act.err"
t_is "$?" 0 "botdesk act takes OpenAI's computer_call for the remote profile"
t_is "$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["type"], d["call_id"], d["output"]["image_url"][:23])' "$BD_T/out/act.json" 2>&1)" \
        "computer_call_output call_r data:image/jpeg;base64," "... answering with a computer_call_output and the screen after it"
t_ok "... its click reached the server at 210,220" grep -q '^button-press 1 210 220$' "$BD_T/rec.log"
t_match "$(cat "$BD_T/rec.txt")" "oa!$" "... and its text was typed"

# The journal, as for a local desktop: the agent's actions on the remote screen, the MCP click with its frame.
jl=$(timeout 30 "$BOTDESK" journal "$V" --json 2>>"$BD_T/out/journal.err")
t_match "$(grep -c '"action": "input click"' <<<"$jl")" "^[1-9]" "botdesk journal lists the remote profile's input clicks"
t_match "$(grep '"action": "agent left_click"' <<<"$jl" | head -n1)" '"result": "ok".*"frame": "[^"]+' \
        "... and the MCP left_click, ok, with the frame of the screen after it" || t_diag "$jl"
kill -TERM "$RP"
t_ok "the recorder exits (waited 10 s)" wait_for 10 gone "$RP"

# While a viewer is connected, the password is in no process botdesk runs for it: not in the argv or the
# environment of botdesk rfb, nor of its front (a fork of it).
mkfifo "$BD_T/hold.fifo"
"$BOTDESK" rfb "$V" --viewer z <"$BD_T/hold.fifo" >/dev/null 2>"$BD_T/out/hold.err" &
HP=$!
bd_own_pid $HP
exec 8>"$BD_T/hold.fifo"
front_of() { local c; c=$(cat "/proc/$1/task/$1/children" 2>/dev/null); [ -n "$c" ] && echo "$c"; }
t_ok "botdesk rfb holds a session with its front (waited 10 s)" wait_for 10 front_of "$HP"
hits=0
for pid in $HP $(front_of "$HP"); do
        for f in cmdline environ; do
                grep -qaF -- "$SECRET" "/proc/$pid/$f" 2>/dev/null && hits=$((hits + 1))
        done
done
t_is "$hits" 0 "the password is in no argv or environment of botdesk rfb or its front"
exec 8>&-
t_ok "... which end when the viewer does (waited 10 s)" wait_for 10 gone "$HP"

# ---- botdesk web of a remote profile: the page's stream through botdesk rfb, its lease here ------------
SOCK=$BD_T/web.sock
web_start web "$BOTDESK" web --listen "unix:$SOCK"
t_is "$?" 0 "botdesk web listens on a Unix socket"
wclient() { timeout 60 "$PY" "$BD_LIB_DIR/web_client.py" "$@" 2>&1; }
query() { local t; t=$("$BOTDESK" web ticket "$V" --viewer "$1" 2>>"$BD_T/out/ticket.err") && printf '%s' "${t#*\?}"; }
out=$(wclient upgrade "unix:$SOCK" "/$V/websockify?$(query ann)" --then close)
t_match "$out" "^greet 2 b'RFB 003\\.008" "a web viewer of the remote profile is greeted by botdesk's front (RFB 003.008)"
t_match "$out" "^close 1000" "... and the stream closes cleanly when it leaves"
# The centre of the screen, raw, through the WebSocket stream: "update RECTS RRGGBB".
out=$(timeout 60 "$PY" - "unix:$SOCK" "/$V/websockify?$(query ann)" "$BD_LIB_DIR" <<'PYEOF' 2>&1
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
px = r.read(rw * rh * 4)[:3]
print("update %d %dx%d %02x%02x%02x" % (n, width, height, px[2], px[1], px[0]))
w.send_frame(s, 8, struct.pack(">H", 1000))
PYEOF
)
t_is "$out" "update 1 640x480 336699" "through botdesk web, the remote screen's centre is the colour the test painted"
wclient upgrade "unix:$SOCK" "/$V/websockify?$(query bea)" --then wait-close-at >"$BD_T/out/watch-bea.txt" &
WB=$!
bd_own_pid $WB
t_ok "bea watches the remote desktop through botdesk web (waited 20 s for its greeting)" \
        wait_for 20 grep -qs '^greet' "$BD_T/out/watch-bea.txt"
t_ok "ann takes control of the remote desktop" timeout 20 "$BOTDESK" lease "$V" take --viewer ann
wait "$WB"
t_is "$(grep '^close' "$BD_T/out/watch-bea.txt")" "close 4000 control-taken" \
        "ann's take closes bea's web stream with 4000 control-taken: the takeover is private"
t_ok "ann hands back" timeout 20 "$BOTDESK" lease "$V" release --viewer ann
kill -TERM "$WEB_PID"
t_ok "botdesk web exits on SIGTERM (waited 10 s)" wait_for 10 gone "$WEB_PID"
t_is "$(cmdline_pids "rfb $V --viewer" | wc -w)" 0 \
        "no botdesk rfb of the remote profile, nor its front (a fork of it), outlives botdesk web"

# A real viewer: noVNC in headless Chromium through botdesk web (web_browser.py, as web.sh drives it for a
# local desktop): the remote screen drawn, input only while the page holds control, Take over, another
# viewer's take, Hand back, release on leaving; the pointer read on the server's display (:727).
if [ -x /usr/lib/chromium/chromium ] || command -v chromium >/dev/null 2>&1 &&
        [ -f /usr/share/novnc/core/rfb.js ] && command -v xdotool >/dev/null 2>&1; then
        web_start tcp "$BOTDESK" web --listen 127.0.0.1:0
        t_is "$?" 0 "botdesk web --listen 127.0.0.1:0 starts"
        TCP=$WEB_PID
        URL=$("$BOTDESK" web ticket "$V" --viewer frank 2>>"$BD_T/out/ticket.err")
        (
                export BOTDESK DISPLAY=:727
                unset XAUTHORITY
                exec timeout 150 "$PY" "$BD_LIB_DIR/web_browser.py" "$URL" "$BD_T/out" "$V" frank
        ) >"$BD_T/out/browser.txt" 2>"$BD_T/out/browser.err" &
        BPID=$!
        bd_own_pid "$BPID"
        wait_for 20 grep -qs '^PID ' "$BD_T/out/browser.txt" && bd_own_pid "$(sed -n 's/^PID //p' "$BD_T/out/browser.txt")"
        wait "$BPID"
        brc=$?
        bd_browser_report "$BD_T/out/browser.txt"
        [ "$brc" = 0 ] || t_fail "the browser driver finishes (exit $brc)" "$(tail -n 15 "$BD_T/out/browser.err")"
        t_is "$SCREEN" "51 102 153" "the page's screenshot shows the remote screen's colour (#336699) at its centre"
        t_is "$(timeout 20 "$BOTDESK" lease "$V" show --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["holder"])')" \
                agent "after the page, the agent holds control of the remote desktop"
        kill -TERM "$TCP"
        wait "$TCP"
else
        t_skip "a real browser shows the remote desktop" "chromium, novnc or xdotool not installed"
fi

t_ok "a human takes the remote desktop's lease" timeout 20 "$BOTDESK" lease "$V" take --viewer h
timeout 30 "$BOTDESK" thumbnail "$V" -o "$BD_T/no.png" >/dev/null 2>&1
t_is "$?" 3 "while a human holds the remote desktop's lease, its thumbnail is refused (3)"
t_ok "... and hands it back" timeout 20 "$BOTDESK" lease "$V" release --viewer h
# Wherever botdesk writes for the profile (its journal and state, its runtime dir) and whatever it said.
leaks=$(grep -rlF -- "$SECRET" "$XDG_STATE_HOME/botdesk" "$(bd_rt "$V")" "$BD_T/out" 2>/dev/null | grep -v "/passwd727$")
t_is "$leaks" "" "the password is in no file botdesk wrote (state, journal, runtime dir) and in none of its output"

# SIGTERM, so each server removes its lock file and socket as it exits.
for pid in "${SERVERS[@]}"; do
        kill -TERM "$pid"
        t_ok "the server $pid exits on SIGTERM (waited 10 s)" wait_for 10 gone "$pid"
done
t_done
