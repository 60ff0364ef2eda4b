#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The browser part of tests/integration/web-takeover.sh: headless Chromium,
driven over --remote-debugging-pipe, behind a stand-in for a gateway's
reverse proxy (a loopback TCP port forwarded to botdesk web's Unix socket,
which this script can cut and restore).

  web_takeover.py SOCKET OUTDIR PROFILE VIEWER GRACE_MS

Needs BOTDESK in the environment. Prints one line per check ("PASS text",
"FAIL text: why"), "PID N" (Chromium's pid) first; ends by killing
Chromium (all its processes at once) with SIGKILL while its page holds control ("KILLED" at that
moment, for the shell to time the orphan release).
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import web_client  # noqa: E402

SOCK, OUT, PROFILE, VIEWER, GRACE_MS = sys.argv[1:6]
GRACE = int(GRACE_MS) / 1000
BOTDESK = os.environ["BOTDESK"]


def say(ok, text, why=""):
    print(("PASS %s" % text) if ok else ("FAIL %s: %s" % (text, why)))
    sys.stdout.flush()


def lease():
    out = subprocess.run([BOTDESK, "lease", PROFILE, "--json"], capture_output=True, text=True, timeout=10).stdout
    d = json.loads(out)
    return d.get("lease", d)


class Proxy:
    """127.0.0.1:PORT -> the Unix socket, as a gateway's proxy (or ssh -L) is. cut() drops
    every connection and refuses new ones until restore()."""

    def __init__(self, path):
        self.path, self.conns, self.up, self.lock = path, [], True, threading.Lock()
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(64)
        self.port = self.srv.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            c, _ = self.srv.accept()
            if not self.up:
                c.close()
                continue
            u = socket.socket(socket.AF_UNIX)
            try:
                u.connect(self.path)
            except OSError:
                c.close()
                continue
            with self.lock:
                self.conns += [c, u]
            for a, b in ((c, u), (u, c)):
                threading.Thread(target=self.pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def pipe(a, b):
        try:
            while True:
                d = a.recv(65536)
                if not d:
                    break
                b.sendall(d)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        self.up = False
        with self.lock:
            for s in self.conns:
                try:
                    # The connection ends with no close frame: the network failed (1006 on both
                    # sides). shutdown(), not close() alone, which would leave the pipe's recv
                    # holding it open.
                    s.shutdown(socket.SHUT_RDWR)
                    s.close()
                except OSError:
                    pass
            self.conns = []

    def restore(self):
        self.up = True


def ticket_url(base):
    out = subprocess.run([BOTDESK, "web", "ticket", PROFILE, "--viewer", VIEWER], capture_output=True, text=True,
                         timeout=10, check=True).stdout.strip()
    return base + out


def never_claims(b, seconds):
    """Sample the bar for seconds: the texts it showed."""
    seen, deadline = set(), time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen.add(b.eval("document.getElementById('control').textContent"))
        time.sleep(0.1)
    return seen


# The browser first: it hands Chromium fds 3 and 4, which the proxy's socket must not hold.
b = web_client.Browser(OUT)
proxy = Proxy(SOCK)
base = "http://127.0.0.1:%d" % proxy.port
print("PID %d" % b.pid)
sys.stdout.flush()
try:
    url = ticket_url(base)
    b.open(url)
    b.wait_for("window.botdesk && window.botdesk.connected", "noVNC to connect through the ticket", 30)
    say(True, "the page opened through a ticket connects")

    # Item: the same browser back at its spent ticket link gets the page.
    b.send("Page.navigate", {"url": url})
    try:
        b.wait_for("location.search === '' && window.botdesk && window.botdesk.connected",
                   "the page at the spent ticket link to connect", 30)
        say(True, "the same browser reopening its spent ticket link gets the page (its session answers), without the ticket in the URL")
    except TimeoutError as e:
        say(False, "the same browser reopening its spent ticket link gets the page",
            "%s; page says: %s" % (e, b.eval("document.body ? document.body.innerText : ''")))

    # Item: a reload keeps control.
    b.click("take")
    b.wait_for("window.botdesk.you === true", "the page to show this viewer in control", 10)
    before = lease()
    b.send("Page.reload", {"ignoreCache": True})
    t0 = time.monotonic()
    b.wait_for("window.botdesk && window.botdesk.connected && window.botdesk.you === true",
               "the reloaded page to connect", 30)
    took = time.monotonic() - t0
    time.sleep(max(0, GRACE - took) + 1.5)
    after = lease()
    say(after["holder"] == "human" and after["epoch"] == before["epoch"],
        "a Page.reload after Take over keeps control (reconnected in %.1f s; the lease unchanged %.1f s past the grace)"
        % (took, 1.5), "before %s, after %s" % (before, after))

    # Item: the page never claims control once its stream is gone.
    proxy.cut()
    try:
        b.wait_for("window.botdesk.connected === false", "the page to see its stream cut", 10)
        seen = never_claims(b, 3)
        say(all(not t.startswith("control: you") for t in seen) and any(t.startswith("control: unknown") for t in seen),
            "with its stream cut (and the server out of reach), the bar says control: unknown, never control: you",
            "the bar showed %r" % sorted(seen))
    except TimeoutError as e:
        say(False, "the page sees its stream cut", str(e))
    proxy.restore()
    try:
        b.wait_for("window.botdesk.connected === true", "the page to reconnect once the network is back", 20)
        l = lease()
        say(l["holder"] == "human", "a cut shorter than orphan_release_s keeps the hold, and the page reconnects", json.dumps(l))
        b.wait_for("document.getElementById('control').textContent === 'control: you'", "the bar to say control: you", 10)
        say(True, "connected again, the bar says control: you")
    except TimeoutError as e:
        say(False, "the page reconnects once the network is back", str(e))

    # Item: a browser killed while holding control (the shell times the release).
    print("KILLED %d" % time.time_ns())
    sys.stdout.flush()
    b.kill_all()
finally:
    b.close()
