#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A real RFB client through `botdesk rfb`: the handshake and a framebuffer
# of the configured size come through; pointer input reaches the X server
# only while this viewer holds the control lease, and a lease change applies
# to the very next message of a running connection; a viewer without --viewer
# never gets input; while a human holds the lease, only that viewer
# connects; bad client data closes the stream (exit 1); a desktop
# that does not run gives exit 4. With gvnccapture and socat, a stock
# client behind the private front of doc/web-viewer.md (a 0600 Unix listener) captures
# a full-size image. Connections closed before their handshake lock no
# viewer out.
. "$(dirname "$0")/lib.sh"
bd_init rfb 85
bd_need_xserver
bd_need xdotool
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config

P=$(bd_profile a)

# rfbclient.py: a minimal RFB client on `botdesk rfb`; move:X,Y, run:CMD, where:LABEL.
client() { timeout 60 "$PY" "$BD_LIB_DIR/rfbclient.py" "$BOTDESK" "$P" "$@" 2>"$BD_T/out/client.err"; }

# ---- not running ------------------------------------------------------------------------------
timeout 20 "$BOTDESK" rfb "$P" --viewer v1 </dev/null >/dev/null 2>"$BD_T/out/nr.err"
t_is "$?" 4 "botdesk rfb of a desktop that does not run exits 4"
t_match "$(cat "$BD_T/out/nr.err")" "not running" "... saying it is not running"

bd_start "$P"
rc=$?
t_is "$rc" 0 "the desktop starts" || true
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }
eval "$("$BOTDESK" env "$P")"

lease() { timeout 20 "$BOTDESK" lease "$P" "$@"; }

t_is "$(lease show --json)" '{"holder": "agent", "viewer_hash": null, "since": null, "epoch": 0, "reason": null, "pending": null}' \
        "a fresh desktop's lease: the agent holds control at epoch 0"

# ---- input gated by the lease -----------------------------------------------------------------
out=$(client v1 where:start move:101,102 where:no-lease \
        "run:$BOTDESK lease $P take --viewer v1" move:201,202 where:taken \
        "run:$BOTDESK lease $P release --viewer v1" move:301,302 where:released)
t_diag "$out" "$(cat "$BD_T/out/client.err")"
start=$(sed -n 's/^start //p' <<<"$out")
t_match "$out" "^init 1024x768" "a real RFB client gets through the handshake and sees the 1024x768 screen"
t_isnt "$start" "" "the pointer position can be read with the desktop's env"
t_is "$(sed -n 's/^no-lease //p' <<<"$out")" "$start" "without the lease the client's pointer event does not move the pointer"
t_is "$(sed -n 's/^taken //p' <<<"$out")" "201,202" "once v1 takes the lease, its next pointer event moves the pointer, on the same connection"
t_is "$(sed -n 's/^released //p' <<<"$out")" "201,202" "once v1 releases the lease, its next pointer event is dropped"
t_match "$out" "exit 0\$" "the bridge exits 0 when the client closes its side"

lease take --viewer v1 >/dev/null
pointer() { xdotool getmouselocation | sed 's/^x:\([0-9]*\) y:\([0-9]*\) .*/\1,\2/'; }
out=$(client v2 move:401,402 where:other)
t_match "$out" "exit 3\$" "while v1 holds the lease, viewer v2's connection is refused (exit 3): a takeover is private"
t_unlike_init() { case $1 in *"init "*) t_fail "$2" "$1" ;; *) t_pass "$2" ;; esac; }
t_unlike_init "$out" "... before any of the screen reached it"
out=$(client - move:451,452 where:anon)
t_match "$out" "exit 3\$" "so is a viewer without --viewer"
t_is "$(pointer)" "201,202" "... and neither moved the pointer"
out=$(client v1 move:501,502 where:holder)
t_is "$(sed -n 's/^holder //p' <<<"$out")" "501,502" "a new connection of the holding viewer gets input from its first message"

printf 'HOLDER=human\nVIEWER=v1\nSINCE=\n' >"$(bd_rt "$P")/lease.tmp" && mv "$(bd_rt "$P")/lease.tmp" "$(bd_rt "$P")/lease"
out=$(client v1 move:601,602 where:torn)
t_is "$(sed -n 's/^torn //p' <<<"$out")" "501,502" "a torn lease file fails closed: even the viewer it names gets no input"
t_match "$(lease show)" "unreadable" "lease show says the file is unreadable"
lease take --viewer v1 >/dev/null
lease release --viewer v1 >/dev/null
t_match "$(lease show --json)" '"holder": "agent".*"epoch": [0-9]+' "take and release repair the lease"

# ---- bad client data --------------------------------------------------------------------------
printf 'RFB 003.008\n\001\000\007\000\000\000' | timeout 20 "$BOTDESK" rfb "$P" --viewer v1 >/dev/null 2>"$BD_T/out/bad.err"
t_is "$?" 1 "an unknown client message type closes the stream with exit 1"
t_is "$(wc -l <"$BD_T/out/bad.err")" 1 "... and one line on stderr: $(cat "$BD_T/out/bad.err")"

# ---- a stock client behind doc/web-viewer.md's private front -----------------------------------------
# The front is a 0600 Unix listener (socat UNIX-LISTEN, mode=0600); the
# viewer's side of `ssh -L` is played by a loopback TCP-to-Unix socat, since
# gvnccapture speaks TCP only.
if command -v gvnccapture >/dev/null 2>&1 && command -v socat >/dev/null 2>&1; then
        mkdir -m 700 "$BD_T/front"
        FRONT=$BD_T/front/view.sock
        socat "UNIX-LISTEN:$FRONT,mode=0600,fork" EXEC:"$BOTDESK rfb $P --viewer v1" 2>"$BD_T/out/socat.err" &
        SOCAT=$!
        bd_own_pid "$SOCAT"
        # Bounded: socat binds its socket and then applies mode= within 5 s
        # (between the two the socket has the umask's mode).
        for _ in $(seq 50); do [ -S "$FRONT" ] && [ "$(stat -c %a "$FRONT" 2>/dev/null)" = 600 ] && break; sleep 0.1; done
        t_is "$(stat -c %a "$FRONT" 2>/dev/null)" 600 "doc/web-viewer.md's front (socat UNIX-LISTEN ...,mode=0600) makes a 0600 socket"
        if bd_tcp_front "$P" v1 "UNIX-CONNECT:$FRONT" 2>"$BD_T/out/front.err"; then
                TUNNEL=$BD_FRONT_PID port=$BD_FRONT_PORT
                timeout 60 gvnccapture "127.0.0.1:$((port - 5900))" "$BD_T/out/capture.png" >"$BD_T/out/capture.log" 2>&1
                rc=$?
                t_is "$rc" 0 "gvnccapture through the private front and botdesk rfb succeeds"
                [ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/capture.log" "$BD_T/out/socat.err" 2>/dev/null)"
                size=$("$PY" -c '
import struct, sys
d = open(sys.argv[1], "rb").read(24)
print("%dx%d" % struct.unpack(">II", d[16:24]) if d[:8] == b"\x89PNG\r\n\x1a\n" else "not a PNG")' "$BD_T/out/capture.png" 2>&1)
                t_is "$size" 1024x768 "the captured image has the desktop's size"
                kill "$TUNNEL" 2>/dev/null
                wait "$TUNNEL" 2>/dev/null
        else
                t_fail "a loopback tunnel to the private front listens on a port of its own" "$(cat "$BD_T/out/front.err")"
        fi
        kill "$SOCAT" 2>/dev/null
        wait "$SOCAT" 2>/dev/null
else
        t_skip "gvnccapture through the private front" "gvnccapture or socat not installed"
fi

# ---- viewers that give up early lock nobody out -----------------------------------------------
# Access to rfb.sock is its 0600 mode; TigerVNC's blacklist of "hosts"
# with unfinished handshakes (5 by default) would lock every viewer out of
# this socket after a few aborted connections, so botdesk turns it off.
hello=$("$PY" - "$(bd_rt "$P")/rfb.sock" 2>"$BD_T/out/hello.err" <<'EOF'
import signal, socket, sys
signal.alarm(20)  # the bound of every wait below: connect, recv
def version():
    s = socket.socket(socket.AF_UNIX)
    # Blocking: the server may not have accepted the others yet, and a
    # full backlog makes a non-blocking connect fail with EAGAIN.
    s.connect(sys.argv[1])
    v = s.recv(12)
    s.close()
    return v.decode(errors="replace").strip()
for _ in range(20):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.close()
print(version())
EOF
)
[ -s "$BD_T/out/hello.err" ] && t_diag "$(cat "$BD_T/out/hello.err")"
t_is "$hello" "RFB 003.008" "after 20 connections closed before their handshake, the server still greets a viewer (not blacklisted)"
out=$(client v1 where:after-aborted)
t_match "$out" "^init 1024x768" "... and a real client still gets through the handshake"

bd_stop "$P"
t_is "$?" 0 "the desktop stops"
t_done
