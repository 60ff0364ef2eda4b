#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A human's takeover on a real desktop. The epoch pin: every agent action
# (input, windows, cursor, thumbnail, exec, clipboard, act, and the MCP
# tools' "epoch") pinned with --epoch N runs while the lease is at epoch N
# and is refused (exit 3, {"suppressed": "epoch_moved"} with --json, nothing
# reaches the screen) once a take and a release moved it, although the
# agent holds control again; an --epoch that is not a number is a usage
# error (exit 2). Only the holder sees a takeover: real RFB clients on
# `botdesk rfb` (a watcher with a viewer id, one without, the taker's own)
# see a take by `botdesk lease take` end every stream but the holder's
# within 0.5 s (closed socket, exit 3, a line on stderr saying why) while
# the holder's stream goes on; until the hand-back a connection by anyone
# else (gvnccapture behind a front included) is refused before a byte of
# the screen, the holder's own second one is not; after the hand-back many
# watch again. The lease's small points: take of a stopped desktop is 4,
# wait's --timeout at most 1800 and 600 by default; cursor, windows and
# thumbnail --start start a stopped desktop; [session] wallpaper reaches xfconf and the
# screen of a real Xfce desktop. Bands 270-274 (user run 370-374).
. "$(dirname "$0")/lib.sh"
bd_init tko 270
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config
P=$(bd_profile a)
RT=$(bd_rt "$P")

json_get() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
lease() { timeout 20 "$BOTDESK" lease "$P" "$@"; }
epoch() { lease show --json | json_get 'd["epoch"]'; }
bd() { timeout 30 "$BOTDESK" "$@"; }
pointer() { bd cursor "$P"; }

# ---- the lease's small points, and --start of the verbs that look ------------------------------
bd_register "$P"
lease take --viewer human-0 >/dev/null 2>"$BD_T/out/take.err"
t_is "$?" 4 "lease take of a desktop that is not running is refused (exit 4)"
t_match "$(cat "$BD_T/out/take.err")" "not running" "... saying it is not running"
t_ok "... and writes no lease" test ! -e "$RT/lease"
lease wait --timeout 1801 >/dev/null 2>"$BD_T/out/wait.err"
t_is "$?" 2 "lease wait --timeout 1801 is a usage error (at most 1800 s)"

bd cursor "$P" --start --json >"$BD_T/out/cursor.out" 2>"$BD_T/out/cursor.err"
rc=$?
bd_snapshot "$P"
t_is "$rc" 0 "cursor --start of a stopped desktop starts it and answers" || true
[ "$rc" = 0 ] || { t_diag "$(cat "$BD_T/out/cursor.err")"; t_done; }
t_match "$(cat "$BD_T/out/cursor.out")" '"screen_width": 1024' "... with the pointer of its 1024-pixel screen"

# lease wait without --timeout ends after 600 s: its deadline is read off
# the poll() it blocks in (/proc/PID/syscall: number 7 on x86-64, the third
# argument the milliseconds), then the hand-back ends the wait with 0.
lease take --viewer human-0 >/dev/null
# Not under timeout(1): the pid must be the wait's own. The release below ends it.
"$BOTDESK" lease "$P" wait >"$BD_T/out/wait-default.out" 2>&1 &
WAIT_PID=$!
bd_own_pid "$WAIT_PID"
SYSCALL=
# The shell reads it: the wait is its child, which Yama's ptrace scope allows.
in_poll() { read -r SYSCALL <"/proc/$WAIT_PID/syscall" 2>/dev/null && [ "${SYSCALL%% *}" = 7 ]; }
if wait_for 10 in_poll; then
        read -r _ _ _ ms _ <<<"$SYSCALL"
        ms=$((ms))
        if [ "$ms" -gt 590000 ] && [ "$ms" -le 600000 ]; then t_pass "lease wait without --timeout waits 600 s by default (poll's timeout: $ms ms)"
        else t_fail "lease wait without --timeout waits 600 s by default" "poll's timeout: $ms ms ($SYSCALL)"; fi
else t_fail "lease wait without --timeout blocks in poll() within 10 s" "/proc/$WAIT_PID/syscall: ${SYSCALL:-unreadable}"; fi
lease release --viewer human-0 >/dev/null
wait "$WAIT_PID"
t_is "$?" 0 "... and the hand-back ends it with 0"

# ---- the epoch pin ----------------------------------------------------------------------------
E0=$(epoch)
t_ok "input move --epoch $E0 (the lease's epoch) runs" bd input "$P" move 11 12 --epoch "$E0"
t_is "$(pointer)" "11 12" "... and moves the pointer"
t_is "$(bd cursor "$P" --json --epoch="$E0" | json_get '(d["x"], d["epoch"])')" "(11, $E0)" \
        "cursor --epoch=$E0 runs and reports that epoch"
t_ok "exec --epoch $E0 runs its command" bd exec "$P" --epoch "$E0" -- touch "$BD_T/exec-pinned"
t_ok "... (it ran)" test -e "$BD_T/exec-pinned"

for bad in abc -1 1.5 "" 9007199254740992; do
        bd input "$P" move 1 1 --epoch "$bad" >/dev/null 2>"$BD_T/out/bad.err"
        t_is "$?" 2 "input --epoch '$bad' is a usage error (exit 2)"
done
t_match "$(cat "$BD_T/out/bad.err")" "Invalid --epoch" "... saying the epoch is invalid"
bd exec "$P" --epoch x -- touch "$BD_T/exec-bad" 2>/dev/null
t_is "$?" 125 "exec --epoch x is a usage error (exec's own 125)"
t_ok "... and its command did not run" test ! -e "$BD_T/exec-bad"
t_is "$(pointer)" "11 12" "no action with a bad --epoch reached the screen"

lease take --viewer human-1 >/dev/null && lease release --viewer human-1 >/dev/null
E1=$(epoch)
t_is "$(lease show --json | json_get 'd["holder"]')" agent "after a take and a release the agent holds control again"
t_isnt "$E1" "$E0" "... at a new epoch ($E1)"

moved() { # DESC CMD...: refused for the epoch, with 3 (exec: its own 125)
        local desc=$1 rc want=3
        shift
        [ "$desc" = exec ] && want=125
        "$@" >"$BD_T/out/moved.out" 2>"$BD_T/out/moved.err" </dev/null
        rc=$?
        t_is "$rc" "$want" "$desc pinned to the old epoch is refused (exit $want) though the agent holds control"
        grep -q "changed since the lease epoch $E0" "$BD_T/out/moved.err" ||
                t_fail "$desc: the refusal says the epoch moved" "$(cat "$BD_T/out/moved.err")"
}
moved "input move --json" bd input "$P" move 200 201 --json --epoch "$E0"
t_is "$(json_get '(d["suppressed"], d["epoch"], d["action"])' <"$BD_T/out/moved.out")" "('epoch_moved', $E1, 'input move')" \
        "... with {\"suppressed\": \"epoch_moved\"} and the current epoch on stdout"
moved "input type" bd input "$P" type --epoch "$E0" hello
moved "cursor" bd cursor "$P" --json --epoch "$E0"
t_is "$(json_get 'd["suppressed"]' <"$BD_T/out/moved.out")" epoch_moved "... cursor --json says epoch_moved"
moved "windows" bd windows "$P" --epoch "$E0"
moved "exec" bd exec "$P" --epoch "$E0" -- touch "$BD_T/exec-moved"
t_ok "... and exec did not run its command" test ! -e "$BD_T/exec-moved"
moved "clipboard get" bd clipboard "$P" get --epoch "$E0"
if bd thumbnail --help >/dev/null 2>&1; then
        moved "thumbnail" bd thumbnail "$P" -o "$BD_T/shot.png" --epoch "$E0"
        t_ok "... and no thumbnail was written" test ! -e "$BD_T/shot.png"
fi
t_is "$(pointer)" "11 12" "no action pinned to the old epoch reached the screen"
t_ok "the same action pinned to the new epoch runs" bd input "$P" move 21 22 --epoch "$E1"
t_is "$(pointer)" "21 22" "... and moves the pointer"

# act: every line of the session is held to its --epoch.
out=$(echo '{"action": "mouse_move", "coordinate": [300, 301]}' | bd act "$P" --epoch "$E0" 2>/dev/null)
t_is "$(json_get '(d["ok"], d["suppressed"])' <<<"$out")" "(False, 'epoch_moved')" \
        "act --epoch $E0: the action is refused, suppressed epoch_moved"
# MCP: the tools' "epoch" (a call's own pin), on the raw protocol.
mcp_lines() {
        printf '%s\n' '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}' \
                '{"jsonrpc": "2.0", "method": "notifications/initialized"}'
        local id=2 args
        for args in "$@"; do
                printf '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "computer", "arguments": %s}}\n' \
                        "$id" "$args"
                id=$((id + 1))
        done
}
mcp_lines "{\"action\": \"mouse_move\", \"coordinate\": [310, 311], \"epoch\": $E0}" \
        "{\"action\": \"cursor_position\", \"epoch\": \"$E1\"}" \
        "{\"action\": \"cursor_position\", \"epoch\": $E1}" |
        bd mcp "$P" >"$BD_T/out/mcp.out" 2>"$BD_T/out/mcp.err"
result() { # ID EXPR on the text of the result of request ID
        "$PY" -c '
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("id") == int(sys.argv[2]):
        r = m["result"]
        t = r["content"][0]["text"]
        try:
            t = json.loads(t)
        except ValueError:
            pass
        print(eval(sys.argv[3], {}, {"r": r, "t": t}))' "$BD_T/out/mcp.out" "$1" "$2"
}
t_is "$(result 2 '(r.get("isError"), t["suppressed"], t["epoch"])')" "(True, 'epoch_moved', $E1)" \
        "MCP computer with epoch $E0 is an error result: suppressed epoch_moved, with the current epoch"
t_match "$(result 3 '(r.get("isError"), t)')" "^\(True, 'epoch must be" "MCP epoch \"$E1\" (a string) is an error result saying what epoch takes"
t_is "$(result 4 '(bool(r.get("isError")), t["ok"])')" "(False, True)" "MCP computer with epoch $E1 runs"
t_is "$(pointer)" "21 22" "no MCP call pinned to the old epoch reached the screen"

# ---- only the holder sees a takeover ----------------------------------------------------------
cat >"$BD_T/viewers.py" <<'EOF'
import os, struct, subprocess, sys, threading, time

botdesk, profile, rt = sys.argv[1:4]

class Viewer:
    """A real RFB 3.8 client on `botdesk rfb`: handshake, then a reader that counts the server's bytes."""
    def __init__(self, viewer):
        cmd = [botdesk, "rfb", profile] + ([] if viewer == "-" else ["--viewer", viewer])
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self.got = 0
        self.eof_at = None
        self.w = self.h = 0
    def readn(self, n):
        b = b""
        while len(b) < n:
            c = self.p.stdout.read(n - len(b))
            if not c:
                raise EOFError("closed after %d bytes" % (self.got + len(b)))
            b += c
        self.got += n
        return b
    def handshake(self):
        try:
            self.readn(12)
            self.p.stdin.write(b"RFB 003.008\n")
            self.readn(self.readn(1)[0])
            self.p.stdin.write(b"\x01")
            self.readn(4)
            self.p.stdin.write(b"\x01")
            self.w, self.h = struct.unpack(">HH", self.readn(4))
            self.readn(16)
            self.readn(struct.unpack(">I", self.readn(4))[0])
            self.p.stdin.write(struct.pack(">BBHi", 2, 0, 1, 0))
        except (EOFError, BrokenPipeError):
            return False
        threading.Thread(target=self.pump, daemon=True).start()
        return True
    def pump(self):
        while True:
            c = self.p.stdout.read(65536)
            if not c:
                self.eof_at = time.time()
                return
            self.got += len(c)
    def request(self):
        self.p.stdin.write(struct.pack(">BBHHHH", 3, 0, 0, 0, self.w, self.h))
    def status(self, timeout=10):
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            return "running"
        return "exit %d: %s" % (rc, self.p.stderr.read().decode().strip())
    def close(self):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        return self.status()

def say(*words):
    print(*words, flush=True)

def lease(*args):
    subprocess.run([botdesk, "lease", profile, *args], check=True, stdout=subprocess.DEVNULL, timeout=20)

watcher, anon, holder = Viewer("watch-1"), Viewer("-"), Viewer("human-1")
say("init", watcher.handshake(), anon.handshake(), holder.handshake(), "%dx%d" % (holder.w, holder.h))
for v in (watcher, anon, holder):
    v.request()
time.sleep(1)
say("watching", watcher.got > 1000, anon.got > 1000, holder.got > 1000)

lease("take", "--viewer", "human-1")
# From the moment the take replaced the lease file (its mtime, the same clock as eof_at).
t0 = os.stat(os.path.join(rt, "lease")).st_mtime
end = time.time() + 5
while time.time() < end and (watcher.eof_at is None or anon.eof_at is None):
    time.sleep(0.01)
for name, v in (("watcher", watcher), ("anon", anon)):
    say("evicted-" + name, "%.3f" % ((v.eof_at or end + 1) - t0), v.status())
before = holder.got
holder.request()
end = time.monotonic() + 10
while time.monotonic() < end and holder.got == before:
    time.sleep(0.01)
say("holder", holder.got > before, holder.eof_at is None)

again = Viewer("watch-1")
say("again", again.handshake(), again.got, again.status())
again = Viewer("-")
say("again-anon", again.handshake(), again.got, again.status())
second = Viewer("human-1")
say("holder-second", second.handshake())
second.close()

lease("release", "--viewer", "human-1")
many = [Viewer("watch-1"), Viewer("watch-2"), Viewer("-")]
say("many", *[v.handshake() for v in many])
for v in many:
    v.request()
time.sleep(0.5)
say("many-see", *[v.got > 1000 and v.eof_at is None for v in many])
say("holder-after", holder.eof_at is None)
for v in many + [holder]:
    v.close()
EOF
out=$(timeout 90 "$PY" "$BD_T/viewers.py" "$BOTDESK" "$P" "$RT" 2>"$BD_T/out/viewers.err")
t_diag "$out" "$(tail -n 3 "$BD_T/out/viewers.err")"
field() { sed -n "s/^$1 //p" <<<"$out"; }
t_is "$(field init)" "True True True 1024x768" \
        "three real RFB clients through botdesk rfb (a watcher, one without --viewer, human-1) get the screen"
t_is "$(field watching)" "True True True" "... and framebuffer updates, while the agent holds control"
for who in watcher anon; do
        read -r took rest <<<"$(field "evicted-$who")"
        t_ok "a take by human-1 closes the $who's stream within 0.5 s of the lease's change (took $took s)" \
                "$PY" -c "import sys; sys.exit(not float(sys.argv[1]) < 0.5)" "$took"
        t_match "$rest" "^exit 3: .*Closing the RFB stream of $P: a human took control" "... exit 3, saying why on stderr"
done
t_is "$(field holder)" "True True" "the holder's stream goes on and gets the screen"
t_match "$(field again)" "^False 0 exit 3: .*A human has control of desktop $P" \
        "until the hand-back the watcher's reconnect is refused (exit 3) before a byte of the screen"
t_match "$(field again-anon)" "^False 0 exit 3: " "... and so is one without --viewer"
t_is "$(field holder-second)" True "a second stream of the holder connects"
t_is "$(field many)" "True True True" "after the hand-back three viewers connect again"
t_is "$(field many-see)" "True True True" "... and all see the screen, with the former holder's"
t_is "$(field holder-after)" True "the former holder's stream lived through the hand-back"

# A stock viewer behind a front (bd_tcp_front: socat, one connection), under a take and after it.
if command -v gvnccapture >/dev/null 2>&1 && command -v socat >/dev/null 2>&1; then
        capture() {
                local rc
                bd_tcp_front "$P" watch-1 2>"$BD_T/out/front.err" || { echo front-failed; return; }
                timeout 30 gvnccapture "127.0.0.1:$((BD_FRONT_PORT - 5900))" "$BD_T/out/capture.png" \
                        >"$BD_T/out/capture.log" 2>&1
                rc=$?
                kill "$BD_FRONT_PID" 2>/dev/null
                wait "$BD_FRONT_PID" 2>/dev/null
                echo "$rc"
        }
        lease take --viewer human-1 >/dev/null
        rc=$(capture)
        t_isnt "$rc" 0 "gvnccapture through a front of watch-1 fails while human-1 holds control"
        t_ok "... and captured nothing" test ! -s "$BD_T/out/capture.png"
        lease release --viewer human-1 >/dev/null
        rc=$(capture)
        t_is "$rc" 0 "after the hand-back it captures the screen"
else
        t_skip "gvnccapture under a takeover" "gvnccapture or socat not installed"
fi

bd_stop "$P"
t_is "$?" 0 "the desktop stops"
for verb in windows thumbnail; do
        case $verb in
        thumbnail) bd thumbnail "$P" --start -o "$BD_T/start.png" >/dev/null 2>"$BD_T/out/start.err" ;;
        *) bd "$verb" "$P" --start --json >/dev/null 2>"$BD_T/out/start.err" ;;
        esac
        rc=$?
        bd_snapshot "$P"
        if [ "$verb" = thumbnail ] && [ "$rc" = 1 ] && grep -q "built without" "$BD_T/out/start.err"; then
                t_skip "thumbnail --start" "botdesk built without thumbnails"
                continue
        fi
        t_is "$rc" 0 "$verb --start of a stopped desktop starts it and answers" || t_diag "$(cat "$BD_T/out/start.err")"
        t_match "$(bd status --json "$P")" '"running": true' "... and the desktop runs"
        bd_stop "$P"
done

# ---- [session] wallpaper on a real Xfce desktop -----------------------------------------------
W=$(bd_profile w)
"$PY" - "$BD_T/wall.png" <<'EOF'
import struct, sys, zlib
w, h = 64, 48
raw = b"".join(b"\0" + bytes((200, 30, 140)) * w for _ in range(h))
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                              chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
EOF
chmod 644 "$BD_T/wall.png"
printf '[profile.%s]\ndesktop = xfce\nwallpaper = %s\n' "$W" "$BD_T/wall.png" >>"$BOTDESK_CONFIG"
bd_start "$W"
rc=$?
t_is "$rc" 0 "an Xfce desktop with [session] wallpaper starts" || t_diag "$(bd_err "$W")"
t_is "$(bd exec "$W" -- xfconf-query -c xfce4-desktop -p /backdrop/screen0/monitorVNC-0/workspace0/last-image 2>&1)" \
        "$BD_T/wall.png" "xfconf gives xfdesktop the configured image for VNC-0's workspace"
# The middle of the screen (the panels are at the edges) in the image's colour, drawn by xfdesktop (bounded: 15 s).
centre() {
        bd thumbnail "$W" --size 64x48 -o "$BD_T/shot.png" 2>/dev/null || return 1
        "$PY" - "$BD_T/shot.png" <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
w, h, depth, ctype = struct.unpack(">IIBB", d[16:26])
idat, i = b"", 8
while i < len(d):
    n, t = struct.unpack(">I4s", d[i:i + 8])
    if t == b"IDAT":
        idat += d[i + 8:i + 8 + n]
    i += 12 + n
raw, bpp = zlib.decompress(idat), {2: 3, 6: 4}[ctype]
stride, rows, prev = w * bpp, [], bytearray(w * bpp)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        p = a + b - c
        pred = [0, a, b, (a + b) // 2, a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c][f]
        line[x] = (line[x] + pred) & 255
    rows.append(line)
    prev = line
px = rows[h // 2][(w // 2) * bpp:(w // 2) * bpp + 3]
print(all(abs(v - want) <= 24 for v, want in zip(px, (200, 30, 140))), tuple(px))
EOF
}
if bd thumbnail --help >/dev/null 2>&1; then
        wait_for 15 eval 'centre | grep -q "^True"'
        t_match "$(centre)" "^True" "the screen shows the wallpaper's colour in its middle"
fi
bd_stop "$W"
t_is "$?" 0 "the Xfce desktop stops"
t_done
