#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The dock's browser serves DevTools on a 0600 Unix socket, never on TCP
# (DESIGN section 11). A desktop publishes BOTDESK_CDP_SOCKET and its dock
# entry starts the browser through botdesk-browser; a real headless
# Chromium started through that launcher inside the desktop is driven over
# the socket by a minimal CDP client (a new target, a data: URL, a value
# computed by the page); while it runs, no process of the browser holds a
# listening TCP socket, and the same check does find the port of a browser
# started the old way (--remote-debugging-port=0). A second client while
# one is attached is told so and closed. Bands: 105-109 (user run 205-209).
. "$(dirname "$0")/lib.sh"
bd_init brw 105
bd_need_xserver
bd_need chromium
[ -n "$PY" ] || t_skip_all "python3 not installed"
LAUNCHER=$BD_BUILD_DIR/helper/botdesk-browser
[ -x "$LAUNCHER" ] || t_skip_all "botdesk-browser not built in $BD_BUILD_DIR"
CHROMIUM=$(command -v chromium)
export BOTDESK_BROWSER_LAUNCHER=$LAUNCHER
bd_config

P=$(bd_profile a)
RT=$(bd_rt "$P")
# As root Chromium needs --no-sandbox; the rest keeps a test browser off the network.
HEADLESS=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
          --disable-sync --no-first-run --no-default-browser-check)

# A minimal CDP client over the pipe framing (each message JSON + NUL).
cat >"$BD_T/cdp.py" <<'EOF'
import json, socket, sys, time

path, mode = sys.argv[1], sys.argv[2]

class Client:
    def __init__(self):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(30)
        self.s.connect(path)
        self.buf = b""
        self.n = 0
    def recv(self):
        while b"\0" not in self.buf:
            c = self.s.recv(1 << 16)
            if not c:
                raise EOFError("the socket closed")
            self.buf += c
        m, _, self.buf = self.buf.partition(b"\0")
        return json.loads(m)
    def call(self, method, params=None, session=None):
        self.n += 1
        m = {"id": self.n, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        self.s.sendall(json.dumps(m).encode() + b"\0")
        while True:
            r = self.recv()
            if r.get("id") == self.n:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"]))
                return r["result"]

try:
    c = Client()
    print("product", c.call("Browser.getVersion")["product"], flush=True)
    if mode == "drive":
        target = c.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        sid = c.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        c.call("Page.enable", session=sid)
        c.call("Page.navigate", {"url": "data:text/html,<title>botdesk-cdp</title><p>page</p>"}, session=sid)
        # Bounded: the navigation commits within a few seconds or the test fails.
        for _ in range(100):
            v = c.call("Runtime.evaluate", {"expression": "document.title + ':' + (6 * 7)", "returnByValue": True},
                       session=sid)["result"].get("value", "")
            if v.startswith("botdesk-cdp"):
                break
            time.sleep(0.1)
        print("value", v, flush=True)
    elif mode == "second":
        other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        other.settimeout(10)
        other.connect(path)
        data = b""
        while True:
            chunk = other.recv(4096)
            if not chunk:
                break
            data += chunk
        print("second", json.loads(data.rstrip(b"\0"))["error"]["message"], flush=True)
        print("first-still", c.call("Browser.getVersion")["product"], flush=True)
except Exception as e:
    print("error", e, flush=True)
EOF
cdp() { timeout 60 "$PY" "$BD_T/cdp.py" "$@" 2>>"$BD_T/out/cdp.err"; }

# Every live descendant of PID, PID included (the browser's whole tree).
tree_of() {
        ps -e -o pid=,ppid=,stat= | awk -v r="$1" '
                { pp[$1] = $2; st[$1] = $3 }
                END {
                        in_[r] = 1
                        do { c = 0; for (p in pp) if (!(p in in_) && (pp[p] in in_)) { in_[p] = 1; c = 1 } } while (c)
                        for (p in in_) if ((p in st) && st[p] !~ /^Z/) print p
                }' | sort -n
}

# "PID(comm):INODE" for each listening TCP socket held by PIDS.
tcp_listeners() {
        local listen p ino
        listen=$(tcp_listen_inodes)
        for p in "$@"; do
                for ino in $(socket_inodes_of "$p"); do
                        printf '%s\n' "$listen" | grep -qxF -- "$ino" && echo "$p($(cat "/proc/$p/comm" 2>/dev/null)):$ino"
                done
        done
}

# wait_for_socket PATH PID: until PATH is a socket (bounded: 30 s), or PID died.
wait_for_socket() {
        local i
        for i in $(seq 300); do
                [ -S "$1" ] && return 0
                kill -0 "$2" 2>/dev/null || return 1
                sleep 0.1
        done
        return 1
}

bd_start "$P"
rc=$?
t_is "$rc" 0 "the desktop starts" || true
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }
ENVF=$("$BOTDESK" env "$P")
SOCK=$(sed -n "s/^export BOTDESK_CDP_SOCKET='\?\([^']*\)'\?$/\1/p" <<<"$ENVF")
t_is "$SOCK" "$RT/cdp.sock" "the desktop publishes BOTDESK_CDP_SOCKET, the profile's cdp.sock, in its env"
UDD=$(sed -n "s/^export AGENT_BROWSER_USER_DATA_DIR='\?\([^']*\)'\?$/\1/p" <<<"$ENVF")
t_is "$(sed -n "s/^export AGENT_BROWSER_PROFILE='\?\([^']*\)'\?$/\1/p" <<<"$ENVF")" "$UDD" \
        "the env also exports AGENT_BROWSER_PROFILE, the same dir as AGENT_BROWSER_USER_DATA_DIR ($UDD)"

# ---- the dock's entry --------------------------------------------------------------------------
ENTRY=$XDG_STATE_HOME/botdesk/$P/xdg/config/xfce4/panel/launcher-11/botdesk-browser.desktop
EXEC=$(sed -n 's/^Exec=//p' "$ENTRY" 2>/dev/null)
t_match "$EXEC" "^$LAUNCHER --cdp-socket=$RT/cdp.sock -- " "the dock's browser entry starts the browser through botdesk-browser on that socket"
t_match "$EXEC" "^[^%]*$" "... and passes no field codes"
if [ "$(id -u)" = 0 ]; then
        t_match "$EXEC" " --no-sandbox( |$)" "run as root, the dock's browser gets --no-sandbox"
else
        case "$EXEC " in
        *" --no-sandbox "*) t_fail "run as a user, the dock's browser keeps its sandbox" "$EXEC" ;;
        *) t_pass "run as a user, the dock's browser keeps its sandbox" ;;
        esac
fi
case $EXEC in
*remote-debugging-port*) t_fail "the dock's browser entry opens no DevTools TCP port" "$EXEC" ;;
*) t_pass "the dock's browser entry opens no DevTools TCP port" ;;
esac

# ---- a real browser through the launcher, inside the desktop -----------------------------------
"$BOTDESK" exec "$P" -- "$LAUNCHER" --cdp-socket="$SOCK" -- "$CHROMIUM" "${HEADLESS[@]}" \
        --user-data-dir="$BD_T/profile" about:blank >"$BD_T/out/browser.out" 2>"$BD_T/out/browser.err" &
B=$!
bd_own_pid "$B"
if ! wait_for_socket "$SOCK" "$B"; then
        t_fail "the launcher serves DevTools on the socket within 30 s" "$(tail -n 20 "$BD_T/out/browser.err")"
        t_done
fi
t_pass "the launcher serves DevTools on the socket within 30 s"
t_is "$(stat -c %a "$SOCK")" 600 "the DevTools socket is mode 0600"
t_is "$(stat -c %a "$RT")" 700 "... in the profile's 0700 runtime dir"

out=$(cdp "$SOCK" drive)
t_diag "$out"
t_match "$out" "^product (Headless)?Chrome/" "a CDP client over the socket reaches the browser (Browser.getVersion)"
t_is "$(sed -n 's/^value //p' <<<"$out")" "botdesk-cdp:42" \
        "it opens a target, navigates it to a data: URL and evaluates a value in the page"

tree=$(tree_of "$B")
comms=$(for p in $tree; do cat "/proc/$p/comm" 2>/dev/null; done | sort -u | tr '\n' ' ')
t_match "$comms" "chrom" "the browser's processes are found below the launcher: $comms"
listeners=$(tcp_listeners $tree)
t_is "$listeners" "" "no process of the running browser listens on TCP"

out=$(cdp "$SOCK" second)
t_match "$out" "second Another client" "a second client while one is attached gets an error message and is closed"
t_match "$out" "first-still " "... and the first client keeps working"

# A second start of the launcher while the first serves hands over to the running browser.
timeout 30 "$LAUNCHER" --cdp-socket="$SOCK" -- "$CHROMIUM" "${HEADLESS[@]}" --user-data-dir="$BD_T/profile" \
        --version >"$BD_T/out/second.out" 2>&1
t_is "$?" 0 "a second launcher start while one serves runs the browser plainly (here: --version)"
t_ok "... and leaves the first one's socket in place" test -S "$SOCK"

kill -TERM "$B"
for _ in $(seq 100); do kill -0 "$B" 2>/dev/null || break; sleep 0.1; done
wait "$B" 2>/dev/null
t_ok "SIGTERM to the launcher ends the browser and the launcher (within 10 s)" sh -c "! kill -0 $B 2>/dev/null"
t_is "$(tree_of "$B")" "" "... with no process of the browser left"
t_ok "... and removes the socket" test ! -e "$SOCK"

# ---- control: the same check finds the port of a browser started the old way ------------------
"$CHROMIUM" "${HEADLESS[@]}" --user-data-dir="$BD_T/profile-old" --remote-debugging-port=0 about:blank \
        >"$BD_T/out/old.out" 2>&1 &
OLD=$!
bd_own_pid "$OLD"
# Bounded: the browser announces its port within 30 s; the listener is seen within 10 s more.
for _ in $(seq 300); do
        [ -s "$BD_T/profile-old/DevToolsActivePort" ] && break
        sleep 0.1
done
for _ in $(seq 100); do
        old=$(tcp_listeners $(tree_of "$OLD"))
        [ -n "$old" ] && break
        sleep 0.1
done
t_isnt "$old" "" "control: the check does see the DevTools TCP port of --remote-debugging-port=0"
[ -n "$old" ] || t_diag "tree: $(tree_of "$OLD" | tr '\n' ' ')" "DevToolsActivePort: $(cat "$BD_T/profile-old/DevToolsActivePort" 2>&1)"
kill -TERM "$OLD" 2>/dev/null
for _ in $(seq 100); do kill -0 "$OLD" 2>/dev/null || break; sleep 0.1; done
kill -KILL $(tree_of "$OLD") 2>/dev/null
wait "$OLD" 2>/dev/null

bd_stop "$P"
t_is "$?" 0 "the desktop stops"
t_done
