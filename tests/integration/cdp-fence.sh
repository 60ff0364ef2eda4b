#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The shared browser is fenced while a human holds control. A real headless
# Chromium behind the desktop's cdp.sock (botdesk-browser, as the dock
# starts it): the agent's Runtime.evaluate runs while the agent holds the
# lease; a take answers the command then in flight (a promise the page
# resolves two seconds later) with {"id": N, "error": {"code": -32000,
# "message": "human_has_control"}} at once, every later message the same
# way without it reaching the browser, and keeps the page's console events
# from the agent; a connection opened meanwhile gets that error and is
# closed; after the hand-back the same connection evaluates again on the
# same page (the browser ran on) and the events flow again. Band 275-279,
# main variant only: the fence is the launcher's, whoever runs it.
. "$(dirname "$0")/lib.sh"
bd_init cdf 275 once
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_need_browser
bd_config

P=$(bd_profile a)
RT=$(bd_rt "$P")
SOCK=$RT/cdp.sock

cat >"$BD_T/fence.py" <<'EOF'
import json, socket, subprocess, sys, time

path, botdesk, profile = sys.argv[1:4]

def lease(*args):
    subprocess.run([botdesk, "lease", profile, *args], check=True, stdout=subprocess.DEVNULL, timeout=20)

class Client:
    def __init__(self):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(30)
        self.s.connect(path)
        self.buf = b""
        self.n = 0
        self.events = []
    def recv(self, timeout=30):
        self.s.settimeout(timeout)
        while b"\0" not in self.buf:
            c = self.s.recv(1 << 16)
            if not c:
                raise EOFError("the socket closed")
            self.buf += c
        m, _, self.buf = self.buf.partition(b"\0")
        return json.loads(m)
    def send(self, method, params=None, session=None):
        self.n += 1
        m = {"id": self.n, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        self.s.sendall(json.dumps(m).encode() + b"\0")
        return self.n
    def answer(self, n, timeout=30):
        while True:
            r = self.recv(timeout)
            if r.get("id") == n:
                return r
            self.events.append(r)
    def call(self, method, params=None, session=None):
        r = self.answer(self.send(method, params, session))
        if "error" in r:
            raise RuntimeError("%s: %s" % (method, r["error"]))
        return r["result"]
    def evaluate(self, expr, session, wait=False):
        return self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": wait}, session)
    def events_for(self, seconds):
        """The events that arrive within seconds (none expected: then it waits the whole time)."""
        got, end = [], time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                got.append(self.recv(max(0.01, end - time.monotonic())))
            except socket.timeout:
                break
        return got

def say(key, value):
    print(key, json.dumps(value), flush=True)

c = Client()
target = c.call("Target.createTarget", {"url": "about:blank"})["targetId"]
sid = c.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
c.call("Runtime.enable", session=sid)
c.events = []
r = c.answer(c.evaluate("6 * 7", sid))
say("agent", r.get("result", {}).get("result", {}).get("value"))
# The page logs a tick every 100 ms from now on: events for whoever is attached.
c.answer(c.evaluate("setInterval(() => console.log('tick'), 100); 1", sid))
say("events-before", sum(1 for e in c.events_for(1) if e.get("method") == "Runtime.consoleAPICalled") > 0)

# A command in flight across the take: the page answers it two seconds later.
n = c.evaluate("new Promise(r => setTimeout(() => r('late'), 2000))", sid, wait=True)
time.sleep(0.3)
t0 = time.monotonic()
lease("take", "--viewer", "human-1")
r = c.answer(n, timeout=10)
say("inflight", [r.get("error"), r.get("sessionId") == sid, round(time.monotonic() - t0, 2) < 1.5])
r = c.answer(c.evaluate("6 * 7", sid), timeout=10)
say("fenced", [r.get("id") == c.n, r.get("error"), "result" in r])
r = c.answer(c.send("Browser.getVersion"), timeout=10)
say("fenced-browser", r.get("error"))
late = c.events_for(2.5)
say("quiet", [m for m in late if m.get("method") or m.get("result")])

other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
other.settimeout(10)
other.connect(path)
data = b""
while True:
    chunk = other.recv(4096)
    if not chunk:
        break
    data += chunk
say("new-connection", json.loads(data.rstrip(b"\0")).get("error"))

lease("release", "--viewer", "human-1")
r = c.answer(c.evaluate("document.readyState + ':' + (6 * 7)", sid), timeout=10)
say("after", r.get("result", {}).get("result", {}).get("value"))
say("events-after", sum(1 for e in c.events_for(1) if e.get("method") == "Runtime.consoleAPICalled") > 0)
EOF

bd_start "$P"
rc=$?
t_is "$rc" 0 "the desktop starts" || true
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }

"$BOTDESK" exec "$P" -- "$LAUNCHER" --cdp-socket="$SOCK" -- "$CHROMIUM" "${HEADLESS[@]}" \
        --user-data-dir="$BD_T/profile" about:blank >"$BD_T/out/browser.out" 2>"$BD_T/out/browser.err" &
B=$!
bd_own_pid "$B"
wait_for 30 test -S "$SOCK" || { t_fail "the launcher serves DevTools on cdp.sock within 30 s" "$(tail -n 20 "$BD_T/out/browser.err")"; t_done; }

out=$(timeout 90 "$PY" "$BD_T/fence.py" "$SOCK" "$BOTDESK" "$P" 2>"$BD_T/out/fence.err")
t_diag "$out" "$(tail -n 3 "$BD_T/out/fence.err")"
field() { sed -n "s/^$1 //p" <<<"$out"; }
ERR='{"code": -32000, "message": "human_has_control"}'
t_is "$(field agent)" 42 "while the agent holds the lease, its Runtime.evaluate runs in the page (42)"
t_is "$(field events-before)" true "... and the page's console events reach it"
t_is "$(field inflight)" "[$ERR, true, true]" \
        "a take answers the Runtime.evaluate in flight with human_has_control (with its sessionId), within 1.5 s"
t_is "$(field fenced)" "[true, $ERR, false]" "under the human, Runtime.evaluate gets {\"id\": N, \"error\": human_has_control} and no result"
t_is "$(field fenced-browser)" "$ERR" "... so does a browser-level command"
t_is "$(field quiet)" "[]" "... and in 2.5 s no event and no late result (the in-flight promise's) reaches the agent"
t_is "$(field new-connection)" "$ERR" "a connection opened under the human gets human_has_control and is closed"
t_is "$(field after)" "\"complete:42\"" "after the hand-back, the same connection evaluates on the same page again"
t_is "$(field events-after)" true "... and the page's events (its timer ran on meanwhile) reach the agent again"
t_ok "the browser ran on through the take" kill -0 "$B"
t_match "$(cat "$BD_T/out/browser.err")" "A human has control: DevTools answer every agent message with human_has_control" \
        "the launcher says when the fence went up"

kill -TERM "$B"
for _ in $(seq 100); do kill -0 "$B" 2>/dev/null || break; sleep 0.1; done
wait "$B" 2>/dev/null
bd_stop "$P"
t_is "$?" 0 "the desktop stops"
t_done
