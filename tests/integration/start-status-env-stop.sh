#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A real Xfce desktop: start, status --json with every key, a usable env for
# real X clients, a window manager, exec, the session's environment (the
# caller's LANG kept, Qt on X11), private sockets, no TCP listener, and a
# stop that leaves nothing behind.
. "$(dirname "$0")/lib.sh"
bd_init sse 40
bd_need_xserver
bd_need xfwm4 xfsettingsd xfdesktop xfce4-panel xdpyinfo xprop
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config desktop=xfce timeout=60
# A LANG of the caller's that is not botdesk's default (exec-env.sh starts without one).
export LANG=C

P=$(bd_profile work)
RT=$(bd_rt "$P")

t0=$(date +%s%N)
bd_start "$P" --json
rc=$?
t_is "$rc" 0 "botdesk start of an Xfce desktop exits 0" || true
[ "$rc" = 0 ] || t_diag "$(bd_err "$P")" "$(tail -n 20 "$RT/helper.log" 2>/dev/null)"
t_diag "start took $((($(date +%s%N) - t0) / 1000000)) ms"

STATUS=$(timeout 20 "$BOTDESK" status --json "$P")
t_is "$?" 0 "status --json exits 0"
out=$(timeout 20 "$BOTDESK" status "$P" --quiet 2>&1)
t_is "$?:$out" "0:" "status --quiet of the running desktop prints nothing and exits 0"
check=$("$PY" - "$STATUS" "$BD_BAND_MIN" "$BD_BAND_MAX" "$(rec_get "$P" PID)" "$RT/rfb.sock" <<'EOF'
import json, sys
s = json.loads(sys.argv[1]); lo, hi = int(sys.argv[2]), int(sys.argv[3])
keys = ["profile", "supported", "installed", "missing", "running", "pid", "display", "socket", "geometry",
        "install_command", "browser", "blocker", "memory_available_mb", "memory_limit_mb", "placement",
        "unit", "session", "lease", "idle_seconds", "started_at", "warning"]
bad = [k for k in keys if k not in s]
bad += ["lease." + k for k in ("holder", "viewer_hash", "since", "epoch") if k not in (s.get("lease") or {})]
if s.get("running") is not True: bad.append("running=%r" % s.get("running"))
if s.get("placement") != "standalone": bad.append("placement=%r" % s.get("placement"))
d = s.get("display")
if not (isinstance(d, str) and d.startswith(":") and d[1:].isdigit() and lo <= int(d[1:]) <= hi):
    bad.append("display=%r not in %d-%d" % (d, lo, hi))
if str(s.get("pid")) != sys.argv[4]: bad.append("pid=%r, helper record says %s" % (s.get("pid"), sys.argv[4]))
if s.get("socket") != sys.argv[5]: bad.append("socket=%r" % s.get("socket"))
if not isinstance(s.get("missing"), list): bad.append("missing is not an array")
print(" ".join(bad) if bad else "ok")
EOF
)
t_is "$check" ok "status --json has every key of the contract, running, standalone, display in band"
D=$(printf '%s' "$STATUS" | "$PY" -c 'import json,sys; print(json.load(sys.stdin).get("display") or "")' 2>/dev/null)
N=${D#:}
t_match "$D" '^:[0-9]+$' "the display is :N ($D)"

# A real X client with the published environment.
out=$( (eval "$("$BOTDESK" env "$P")" && timeout 20 xdpyinfo) 2>&1)
t_match "$out" "name of display: +$D(\\.0)?\$|name of display: +$D" "xdpyinfo works with eval \"\$(botdesk env $P)\""
envjson=$("$BOTDESK" env --json "$P")
t_ok "botdesk env --json is one JSON object with DISPLAY=$D" \
        "$PY" -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["DISPLAY"]==sys.argv[2] and d["XAUTHORITY"], d' "$envjson" "$D"
wm=$( (eval "$("$BOTDESK" env "$P")" && timeout 20 xprop -root _NET_SUPPORTING_WM_CHECK) 2>&1)
t_match "$wm" 'window id # 0x[0-9a-f]+' "the window manager set _NET_SUPPORTING_WM_CHECK on the root window"
ex=$(timeout 20 "$BOTDESK" exec "$P" -- sh -c 'echo $DISPLAY' 2>&1)
t_is "$ex" "$D" "botdesk exec runs a command on the desktop's display"

# Files and modes.
t_ok "rfb.sock is a socket" test -S "$RT/rfb.sock"
t_is "$(stat -c %a "$RT/rfb.sock" 2>&1)" 600 "rfb.sock has mode 0600"
t_is "$(stat -c %a "$RT" 2>&1)" 700 "the runtime dir has mode 0700"
t_is "$(stat -c %a "$RT/Xauthority" 2>&1)" 600 "Xauthority has mode 0600"
t_is "$(stat -c %u "$RT/rfb.sock" 2>&1)" "$BD_UID" "rfb.sock is owned by the user"

# No listening TCP socket belongs to any process of the desktop.
bd_snapshot "$P"
PIDS=$(desktop_pids "$P")
npids=$(echo $PIDS | wc -w)
# Xvnc, dbus-daemon, xfwm4, xfsettingsd, xfdesktop, xfce4-panel + helper at least.
if [ "$npids" -ge 6 ]; then t_pass "the desktop's processes are found ($npids)"; else
        t_fail "the desktop's processes are found" "only: $(echo $PIDS)" "$(describe_pids $PIDS)"; fi
XS=$(xservers_of "$P")
t_is "$(echo $XS | wc -w)" 1 "exactly one X server serves the profile"
WM=$(for p in $PIDS; do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = xfwm4 ] && echo "$p"; done | head -n1)
if [ "$BD_VARIANT" = spare ]; then
        # An adopted spare's session began before this start, from the pool's: it has a LANG, the pool's or
        # the default, never none.
        t_ok "an adopted spare's session has a LANG" bash -c 'tr "\0" "\n" <"/proc/$1/environ" | grep -q "^LANG=."' - "$WM"
else
        t_ok "the session keeps the caller's LANG (C, not the default C.UTF-8)" proc_has_env "$WM" LANG=C
fi
t_ok "the session's Qt programs use X11 (QT_QPA_PLATFORM=xcb)" proc_has_env "$WM" QT_QPA_PLATFORM=xcb
# The session's look: GTK's dark theme, and a status tray, whose panel plugin owns the tray selection
# once it runs (bounded: the panel loads its plugins after the desktop is ready).
t_is "$(timeout 20 "$BOTDESK" exec "$P" -- xfconf-query -c xsettings -p /Net/ThemeName 2>&1)" Adwaita-dark \
        "the session's GTK theme is the dark one (xsettings /Net/ThemeName)"
tray=
end=$((SECONDS + 20))
while [ "$SECONDS" -lt "$end" ]; do
        tray=$(timeout 10 "$BOTDESK" exec "$P" -- "$PY" -c 'import ctypes, ctypes.util
x = ctypes.CDLL(ctypes.util.find_library("X11"))
x.XOpenDisplay.restype = ctypes.c_void_p
x.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
x.XGetSelectionOwner.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
x.XGetSelectionOwner.restype = ctypes.c_ulong
d = x.XOpenDisplay(None)
print("owned" if d and x.XGetSelectionOwner(d, x.XInternAtom(d, b"_NET_SYSTEM_TRAY_S0", 0)) else "none")' 2>&1)
        [ "$tray" = owned ] && break
        sleep 0.2
done
t_is "$tray" owned "the panel's status tray owns _NET_SYSTEM_TRAY_S0 (waited at most 20 s)"
inodes=$(socket_inodes_of $PIDS)
listen=$(tcp_listen_inodes)
common=$(comm -12 <(echo "$inodes" | sort -u) <(echo "$listen" | sort -u) | grep -v '^$')
if [ -n "$inodes" ] && [ -z "$common" ]; then
        t_pass "no TCP socket in LISTEN state belongs to the desktop ($(echo "$inodes" | wc -l) sockets checked)"
else
        t_fail "no TCP socket in LISTEN state belongs to the desktop" "listening inodes of the desktop: '$common'" \
                "socket inodes found: $(echo "$inodes" | wc -w)"
fi

# The check above can see a listener: one started with botdesk exec (so part
# of the desktop) is found, and the stop below must take it down as well.
"$BOTDESK" exec "$P" -- "$PY" -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1); time.sleep(60)' >/dev/null 2>&1 &
EXECPID=$!
disown "$EXECPID" 2>/dev/null
found=
i=0
end=$((SECONDS + 30))
while [ "$SECONDS" -lt "$end" ]; do
        i=$((i + 1))
        common=$(comm -12 <(socket_inodes_of $(desktop_pids "$P")) <(tcp_listen_inodes) | grep -v '^$')
        [ -n "$common" ] && { found=1; break; }
        sleep 0.05
done
t_is "$found" 1 "control: a TCP listener started with botdesk exec is seen as the desktop's"
[ -n "$found" ] || t_diag "after $i rounds; exec pid $EXECPID: $(describe_pids $EXECPID)" \
        "its sockets: $(socket_inodes_of $EXECPID | tr '\n' ' ')" "listening: $(tcp_listen_inodes | tr '\n' ' ')"

CG=$(rec_get "$P" CGROUP)
TOK=$(rec_get "$P" TOKEN)
if [ "$BD_UID" = 0 ] && [ -n "$BD_CG_PARENT" ] && [ -w "$BD_CG_PARENT" ]; then
        t_is "$CG" "$(bd_cgroup_of "$P")" "as root the desktop runs in its own cgroup below ours"
else
        t_is "$CG" "" "without a writable cgroup the helper records none (token fallback)"
        t_match "$TOK" '^[0-9a-f]{32}$' "the helper record names a random token"
        if grep -qzxF "BOTDESK_TOKEN=$TOK" "/proc/$XS/environ" 2>/dev/null; then t_pass "the X server carries the token"; else
                t_fail "the X server carries the token" \
                        "PRODUCT BUG (reported): the X server is spawned before session_env() adds BOTDESK_TOKEN, so a" \
                        "token scan (the only reaping without cgroups, besides PDEATHSIG) cannot find it."; fi
fi

# The session's programs start in the home (a terminal opens in ~), the X server in /.
home=$(readlink -f "$HOME")
cmd_cwd=
for pid in $(desktop_pids "$P"); do
        case $(cat "/proc/$pid/comm" 2>/dev/null) in xfwm4|sleep) cmd_cwd=$(readlink "/proc/$pid/cwd"); break ;; esac
done
t_is "$cmd_cwd" "$home" "the session's window manager (or command) works in the home, $home"
[ "$cmd_cwd" = "$home" ] || t_diag "$(for pid in $(desktop_pids "$P"); do echo "$pid $(cat /proc/$pid/comm) $(readlink /proc/$pid/cwd)"; done)"
t_is "$(readlink "/proc/$XS/cwd" 2>&1)" "/" "... and the X server's is /"

# Stop.
bd_stop "$P"
rc=$?
# First the pids known before (cheap, right when stop returned), then a scan.
alive=
for p in $PIDS; do proc_alive "$p" && alive="$alive $p"; done
t_is "$rc" 0 "botdesk stop exits 0"
t_is "$alive" "" "when stop returns, every process the desktop had is gone (dead or a zombie)"
[ -n "$alive" ] && t_diag "$(describe_pids $alive)"
left=$(desktop_pids "$P")
t_is "$(echo $left)" "" "no process of the desktop remains after stop"
[ -n "$left" ] && t_diag "$(describe_pids $left)"
[ -n "$CG" ] && t_ok "its cgroup $CG is removed" test ! -e "$CG"
[ -n "$TOK" ] && t_is "$(token_pids "$TOK" | wc -l)" 0 "no process carries its token"
t_ok "the command started with botdesk exec is gone too" eval "! proc_alive $EXECPID"
for f in env rfb.sock helper Xauthority bus; do
        t_ok "$f is removed from the runtime dir" test ! -e "$RT/$f"
done
t_ok "/tmp/.X$N-lock is removed" test ! -e "/tmp/.X$N-lock"
t_ok "/tmp/.X11-unix/X$N is removed" test ! -e "/tmp/.X11-unix/X$N"
t_ok "nothing listens on display $N's X socket any more" eval "! x_socket_bound '$N'"
st=$("$BOTDESK" status --json "$P" | "$PY" -c 'import json,sys; s=json.load(sys.stdin); print(s["running"], s["display"])')
t_is "$st" "False None" "status says not running, no display"
out=$(timeout 20 "$BOTDESK" status "$P" -q 2>&1)
t_is "$?:$out" "4:" "status -q of the stopped desktop prints nothing and exits 4"

t_done
