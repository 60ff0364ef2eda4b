#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The dock's browser serves DevTools on a 0600 Unix socket, never on TCP
# (DESIGN section 11). A desktop publishes BOTDESK_CDP_SOCKET and its dock
# entry starts the browser through botdesk-browser; a real headless
# Chromium started through that launcher inside the desktop is driven over
# the socket by a minimal CDP client (a new target, a data: URL, a value
# computed by the page); while it runs, no process of the browser holds a
# listening TCP socket, and the same check does find the port of a browser
# started the old way (--remote-debugging-port=0). Two clients at once,
# each set up as Playwright's connectOverCDP does (auto-attach, waiting for
# the debugger, flat sessions), each create a target, navigate it to a
# data: URL and evaluate a value, and neither sees the other's answers or
# sessions; a ninth client while eight are attached is told the limit and
# closed. Bands: 105-109 (user run 205-209).
. "$(dirname "$0")/lib.sh"
bd_init brw 105
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_need_browser
bd_config

P=$(bd_profile a)
RT=$(bd_rt "$P")

# A minimal CDP client over the pipe framing (each message JSON + NUL).
cat >"$BD_T/cdp.py" <<'EOF'
import json, socket, sys, threading, time

path, mode = sys.argv[1], sys.argv[2]

class Client:
    """Keeps what it receives that is not its own: an answer to an id it did
    not send (or twice, or on another session than the command's), an event
    of a session it was never told of."""
    def __init__(self):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(30)
        self.s.connect(path)
        self.buf = b""
        self.n = 0
        self.sent = {}           # id -> the session it was sent on (None: the root connection)
        self.answered = set()
        self.sessions = set()    # child sessions announced to this client
        self.attached = {}       # targetId -> session
        self.stray = []
    def recv(self):
        while b"\0" not in self.buf:
            c = self.s.recv(1 << 16)
            if not c:
                raise EOFError("the socket closed")
            self.buf += c
        m, _, self.buf = self.buf.partition(b"\0")
        m = json.loads(m)
        self.handle(m)
        return m
    def handle(self, m):
        sid = m.get("sessionId")
        if "id" in m:
            if m["id"] not in self.sent or m["id"] in self.answered or self.sent[m["id"]] != sid:
                self.stray.append(m)
            self.answered.add(m["id"])
            return
        if sid is not None and sid not in self.sessions:
            self.stray.append(m)
        if m.get("method") == "Target.attachedToTarget":
            p = m["params"]
            self.sessions.add(p["sessionId"])
            self.attached[p["targetInfo"]["targetId"]] = p["sessionId"]
            # As Playwright does: every auto-attached target waits for each client that asked it to.
            if p.get("waitingForDebugger"):
                self.send("Runtime.runIfWaitingForDebugger", session=p["sessionId"])
    def send(self, method, params=None, session=None):
        self.n += 1
        m = {"id": self.n, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        self.sent[self.n] = session
        self.s.sendall(json.dumps(m).encode() + b"\0")
        return self.n
    def call(self, method, params=None, session=None):
        n = self.send(method, params, session)
        while True:
            r = self.recv()
            if r.get("id") == n:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"]))
                return r["result"]
    def pump(self, until, seconds):
        """Handle what arrives until until() or seconds passed."""
        end = time.monotonic() + seconds
        while not until() and time.monotonic() < end:
            self.s.settimeout(0.1)
            try:
                self.recv()
            except socket.timeout:
                pass
        self.s.settimeout(30)
        return until()

def read_refusal(timeout=10):
    """Connect, read until the relay closes: its one message."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    data = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return json.loads(data.rstrip(b"\0"))["error"]["message"]

def served_client(seconds=5):
    """A client the relay serves: one that left a moment ago may still hold its slot (bounded: seconds)."""
    end = time.monotonic() + seconds
    while True:
        try:
            cl = Client()
            cl.call("Browser.getVersion")
            return cl
        except (EOFError, ConnectionError):
            if time.monotonic() > end:
                raise RuntimeError("no DevTools slot free within %d s" % seconds)
            time.sleep(0.1)

def navigate_and_evaluate(c, sid, title):
    c.call("Page.enable", session=sid)
    c.call("Page.navigate", {"url": "data:text/html,<title>%s</title><p>page</p>" % title}, session=sid)
    # Bounded: the navigation commits within a few seconds or the test fails.
    v = ""
    for _ in range(100):
        v = c.call("Runtime.evaluate", {"expression": "document.title + ':' + (6 * 7)", "returnByValue": True},
                   session=sid)["result"].get("value", "")
        if v.startswith(title):
            break
        c.pump(lambda: False, 0.1)
    return v

def playwright_like(name, c, ready, done, out):
    """What connectOverCDP does first, then a page of its own, at the same time as the other client."""
    try:
        ready.wait(30)
        c.call("Browser.getVersion")
        c.call("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True})
        target = c.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        # Bounded: the new page is auto-attached within 10 s.
        if not c.pump(lambda: target in c.attached, 10):
            raise RuntimeError("no Target.attachedToTarget for the new page within 10 s")
        out[name] = {"value": navigate_and_evaluate(c, c.attached[target], "botdesk-" + name)}
    except Exception as e:
        out[name] = {"error": str(e)}
    finally:
        done[name].set()
        # The other client's page waits for this one's auto-attached session too: keep answering (bounded: 60 s).
        c.pump(lambda: all(d.is_set() for d in done.values()), 60)
        c.pump(lambda: False, 0.5)

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
    elif mode == "two":
        clients = {"A": c, "B": Client()}
        ready, out = threading.Barrier(2), {}
        done = {name: threading.Event() for name in clients}
        threads = [threading.Thread(target=playwright_like, args=(name, cl, ready, done, out)) for name, cl in clients.items()]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        for name, cl in clients.items():
            print("value-%s" % name, out.get(name, {}).get("value", out.get(name)), flush=True)
            print("stray-%s" % name, json.dumps(cl.stray)[:2000], flush=True)
            print("unanswered-%s" % name, sorted(set(cl.sent) - cl.answered), flush=True)
        print("disjoint", not (clients["A"].sessions & clients["B"].sessions) and len(clients["A"].sessions) > 0, flush=True)
    elif mode == "limit":
        # Eight with this one; the clients of the previous run may take a moment to be seen gone.
        others = [served_client() for _ in range(7)]
        print("ninth", read_refusal(), flush=True)
        print("eighth-still", others[-1].call("Browser.getVersion")["product"], flush=True)
        others[0].s.close()
        print("after-leave", served_client().call("Browser.getVersion")["product"], flush=True)
except Exception as e:
    print("error", e, flush=True)
EOF
cdp() { timeout 120 "$PY" "$BD_T/cdp.py" "$@" 2>>"$BD_T/out/cdp.err"; }

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

out=$(cdp "$SOCK" two)
t_diag "$out"
field() { sed -n "s/^$1 //p" <<<"$out"; }
t_is "$(field value-A)" "botdesk-A:42" \
        "two clients at once, set up as connectOverCDP does: the first creates a target (auto-attached), navigates it and evaluates"
t_is "$(field value-B)" "botdesk-B:42" "... and so does the second, meanwhile"
t_is "$(field stray-A)" "[]" "the first client gets no answer but its own and no event of a session not announced to it"
t_is "$(field stray-B)" "[]" "... nor does the second"
t_is "$(field unanswered-A) $(field unanswered-B)" "[] []" "... and each gets an answer to every command it sent"
t_is "$(field disjoint)" True "the two clients' sessions are their own: none is shared"

out=$(cdp "$SOCK" limit)
t_diag "$out"
t_match "$out" "ninth Too many DevTools clients: this browser serves at most 8 at once" \
        "a ninth client while eight are attached is told the limit and closed"
t_match "$out" "eighth-still (Headless)?Chrome/" "... and the eighth keeps working"
t_match "$out" "after-leave (Headless)?Chrome/" "once one leaves, a new client is served"

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
