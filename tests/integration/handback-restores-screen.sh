#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A hand-back restores the screen: a viewer holding the lease resizes the
# desktop with SetDesktopSize through `botdesk rfb`; once it releases, the
# configured 1440x900 is back within a bounded wait, created anew when the
# output had lost that mode, and the agent's coordinates mean what they
# meant (the bottom-right pixel of 1440x900 is reachable again).
. "$(dirname "$0")/lib.sh"
bd_init hbk 250
bd_need_xserver
bd_need xdpyinfo xdotool xrandr
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config
sed -i 's/^geometry = .*/geometry = 1440x900/' "$BOTDESK_CONFIG"

P=$(bd_profile a)

# A minimal RFB 3.8 client on `botdesk rfb`'s stdin/stdout: announces
# ExtendedDesktopSize, sends SetDesktopSize WxH (one screen) and reads
# until the server reports the new size (or says it refused).
cat >"$BD_T/resize.py" <<'PYEOF'
import struct, subprocess, sys

botdesk, profile, viewer, want_w, want_h = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
p = subprocess.Popen([botdesk, "rfb", profile, "--viewer", viewer], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     bufsize=0)
r, w = p.stdout, p.stdin

def readn(n):
    b = b""
    while len(b) < n:
        c = r.read(n - len(b))
        if not c:
            raise EOFError("the bridge closed after %d of %d bytes" % (len(b), n))
        b += c
    return b

try:
    if readn(12) != b"RFB 003.008\n":
        raise ValueError("not an RFB 3.8 server")
    w.write(b"RFB 003.008\n")
    if 1 not in readn(readn(1)[0]):
        raise ValueError("security None not offered")
    w.write(b"\x01")
    if struct.unpack(">I", readn(4))[0] != 0:
        raise ValueError("security failed")
    w.write(b"\x01")
    width, height = struct.unpack(">HH", readn(4))
    bpp = readn(16)[0]
    readn(struct.unpack(">I", readn(4))[0])
    print("init %dx%d" % (width, height), flush=True)
    # Raw, DesktopSize (-223), ExtendedDesktopSize (-308).
    w.write(struct.pack(">BBHiii", 2, 0, 3, 0, -223, -308))
    w.write(struct.pack(">BBHHHH", 3, 0, 0, 0, 1, 1))
    w.write(struct.pack(">BBHHBB", 251, 0, want_w, want_h, 1, 0) + struct.pack(">IHHHHI", 0, 0, 0, want_w, want_h, 0))
    while True:
        t = readn(1)[0]
        if t == 0:
            n = struct.unpack(">xH", readn(3))[0]
            for _ in range(n):
                x, y, rw, rh, enc = struct.unpack(">HHHHi", readn(12))
                if enc == 0:
                    readn(rw * rh * bpp // 8)
                elif enc == -223:
                    print("size %dx%d" % (rw, rh), flush=True)
                    width, height = rw, rh
                elif enc == -308:
                    screens = readn(4)[0]
                    readn(16 * screens)
                    # x: who asked (1 = this client), y: the server's answer (0 = done).
                    print("extended %dx%d reason %d status %d" % (rw, rh, x, y), flush=True)
                    if x == 1 and y != 0:
                        raise ValueError("the server refused SetDesktopSize: status %d" % y)
                    width, height = rw, rh
                else:
                    raise ValueError("unexpected encoding %d" % enc)
            if (width, height) == (want_w, want_h):
                break
            w.write(struct.pack(">BBHHHH", 3, 1, 0, 0, width, height))
        elif t == 1:
            readn(6 * struct.unpack(">xHH", readn(5))[1])
        elif t == 2:
            pass
        elif t == 3:
            readn(struct.unpack(">3xI", readn(7))[0])
        else:
            raise ValueError("unexpected server message %d" % t)
    print("resized %dx%d" % (width, height), flush=True)
    w.close()
    r.read()
except Exception as e:
    print("error %s" % e, flush=True)
    p.kill()
print("exit %d" % p.wait(), flush=True)
PYEOF

# The screen's size as the X server reports it.
screen_size() { (eval "$("$BOTDESK" env "$P")" && timeout 10 xdpyinfo) 2>/dev/null | awk '/dimensions:/ { print $2; exit }'; }
# wait_size WxH SECONDS: until the screen has that size (test-side, bounded).
wait_size() {
        local end=$((SECONDS + $2))
        while [ "$(screen_size)" != "$1" ] && [ $SECONDS -lt "$end" ]; do sleep 0.1; done
        [ "$(screen_size)" = "$1" ]
}

bd_start "$P"
rc=$?
t_is "$rc" 0 "the desktop starts at 1440x900" || true
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }
t_is "$(screen_size)" 1440x900 "xdpyinfo sees the configured 1440x900"

"$BOTDESK" lease "$P" take --viewer human >/dev/null
t_is "$?" 0 "the human viewer takes the lease"
out=$(timeout 60 "$PY" "$BD_T/resize.py" "$BOTDESK" "$P" human 800 600 2>"$BD_T/out/resize.err")
t_match "$out" "resized 800x600" "the viewer's SetDesktopSize through botdesk rfb is answered with 800x600" ||
        t_diag "$out" "$(cat "$BD_T/out/resize.err")"
t_ok "xdpyinfo sees 800x600 (bounded wait: 5 s)" wait_size 800x600 5

# The output loses the configured mode, so the hand-back has to create it.
envs=$("$BOTDESK" env "$P")
(eval "$envs" && xrandr --delmode VNC-0 1440x900) >/dev/null 2>&1
modes=$( (eval "$envs" && xrandr) 2>&1)
case $modes in
*" 1440x900 "*) t_diag "VNC-0 kept its 1440x900 mode; the restore finds it rather than creating it" ;;
*) t_pass "VNC-0 no longer has a 1440x900 mode" ;;
esac

t0=$(date +%s%N)
"$BOTDESK" lease "$P" release --viewer human >/dev/null
t_is "$?" 0 "the viewer hands control back"
t_ok "the screen is 1440x900 again (bounded wait: 5 s)" wait_size 1440x900 5
t_diag "restored $((($(date +%s%N) - t0) / 1000000)) ms after the release"
modes=$( (eval "$envs" && xrandr) 2>&1)
t_match "$modes" "VNC-0 connected( primary)? 1440x900\\+0\\+0" "VNC-0 shows 1440x900 at 0,0" || t_diag "$modes"

# The agent's coordinates: the bottom-right pixel of the configured size.
timeout 20 "$BOTDESK" input "$P" move 1439 899 2>"$BD_T/out/move.err"
t_is "$?" 0 "botdesk input accepts 1439 899 again" || t_diag "$(cat "$BD_T/out/move.err")"
loc=$( (eval "$envs" && timeout 10 xdotool getmouselocation) 2>&1)
t_match "$loc" "^x:1439 y:899 " "the pointer lands at 1439,899 ($loc)"
(eval "$envs" && timeout 10 xdotool mousemove 1439 899 && timeout 10 xdotool mousemove 0 0 &&
        timeout 10 xdotool mousemove 1439 899) >/dev/null 2>&1
loc=$( (eval "$envs" && timeout 10 xdotool getmouselocation) 2>&1)
t_match "$loc" "^x:1439 y:899 " "xdotool mousemove 1439 899 lands there too"

# A second round: the mode made last time is gone from the output as well.
"$BOTDESK" lease "$P" take --viewer human >/dev/null
out=$(timeout 60 "$PY" "$BD_T/resize.py" "$BOTDESK" "$P" human 1024 768 2>"$BD_T/out/resize.err")
t_match "$out" "resized 1024x768" "a second SetDesktopSize gives 1024x768" || t_diag "$out" "$(cat "$BD_T/out/resize.err")"
t_ok "xdpyinfo sees 1024x768 (bounded wait: 5 s)" wait_size 1024x768 5
"$BOTDESK" lease "$P" release --viewer human >/dev/null
t_ok "the second hand-back restores 1440x900 too (bounded wait: 5 s)" wait_size 1440x900 5

# Without a resize a hand-back changes nothing.
"$BOTDESK" lease "$P" take --viewer human >/dev/null
"$BOTDESK" lease "$P" release --viewer human >/dev/null
t_is "$(screen_size)" 1440x900 "a take and release without a resize leaves 1440x900"

bd_stop "$P"
t_is "$?" 0 "the desktop stops"
t_done
