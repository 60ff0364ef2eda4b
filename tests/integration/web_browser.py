#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The browser part of tests/integration/web.sh: headless Chromium, driven
over --remote-debugging-pipe, opens botdesk web's page through a ticket.

  web_browser.py URL OUTDIR PROFILE VIEWER

Needs BOTDESK (the CLI) and DISPLAY/XAUTHORITY of PROFILE's desktop in the
environment (for xdotool; the browser itself gets neither). Prints one line
per check: "PASS text", "FAIL text: why", or "SCREEN R G B" (a pixel of
the screenshot, for the shell to compare with the X screen).
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time
import base64

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import web_client  # noqa: E402

URL, OUT, PROFILE, VIEWER = sys.argv[1:5]
BOTDESK = os.environ["BOTDESK"]


def say(ok, text, why=""):
    print(("PASS %s" % text) if ok else ("FAIL %s: %s" % (text, why)))
    sys.stdout.flush()


def pointer():
    out = subprocess.run(["xdotool", "getmouselocation"], capture_output=True, text=True, timeout=10).stdout
    f = dict(kv.split(":", 1) for kv in out.split() if ":" in kv)
    return int(f.get("x", -1)), int(f.get("y", -1))


def near(p, q):
    return abs(p[0] - q[0]) <= 2 and abs(p[1] - q[1]) <= 2


def lease():
    out = subprocess.run([BOTDESK, "lease", PROFILE, "--json"], capture_output=True, text=True, timeout=10).stdout
    return json.loads(out)


def wait_pointer(b, target, timeout):
    """Until the X pointer is at target (True), or timeout s passed (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if near(pointer(), target):
            return True
        time.sleep(0.1)
    return False


def move(b, x, y):
    """A mouse move through the page, at the page point that shows desktop pixel (x, y)."""
    r = b.eval("(() => { const c = document.querySelector('#screen canvas'); const r = c.getBoundingClientRect();"
               " return [r.left, r.top, r.width / c.width, r.height / c.height]; })()")
    px, py = r[0] + (x + 0.5) * r[2], r[1] + (y + 0.5) * r[3]
    b.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": px, "y": py})


b = web_client.announced_browser(OUT)
try:
    try:
        b.open_viewer(URL)
        say(True, "the page opened through the ticket connects noVNC to the desktop")
    except TimeoutError as e:
        say(False, "the page opened through the ticket connects noVNC to the desktop",
            "%s; page says: %s" % (e, b.eval("document.body ? document.body.innerText : ''")))
        raise SystemExit(0)

    # The first framebuffer update has arrived once the canvas has the desktop's size and a painted centre.
    try:
        b.wait_for("(() => { const c = document.querySelector('#screen canvas'); if (!c || c.width < 100) return false;"
                   " const d = c.getContext('2d').getImageData(c.width >> 1, c.height >> 1, 1, 1).data;"
                   " return d[3] > 0 && (d[0] + d[1] + d[2]) > 0; })()", "the first framebuffer update", 20)
    except TimeoutError as e:
        say(False, "the desktop is drawn on the page", str(e))
    shot = base64.b64decode(b.send("Page.captureScreenshot", {"format": "png"})["data"])
    with open(os.path.join(OUT, "page.png"), "wb") as f:
        f.write(shot)
    r = b.eval("(() => { const c = document.querySelector('#screen canvas'); const r = c.getBoundingClientRect();"
               " return [r.left + r.width / 2, r.top + r.height / 2, window.devicePixelRatio]; })()")
    x, y = int(r[0] * r[2]), int(r[1] * r[2])
    print("SCREEN %d %d %d" % web_client.pixel(shot, x, y))
    sys.stdout.flush()

    # Input through the page, gated by the lease on the server.
    start = pointer()
    move(b, 300, 200)
    time.sleep(1.5)  # long enough for a move that passed to arrive (the positive case below takes < 1 s)
    p = pointer()
    say(not near(p, (300, 200)), "while the agent holds the lease, a pointer move through the page does not move the X pointer",
        "the pointer went from %s to %s" % (start, p))

    b.click("take")
    try:
        b.wait_for("window.botdesk.you === true", "the page to show this viewer in control", 10)
        l = lease()
        say(l["lease"]["holder"] == "human" if "lease" in l else l.get("holder") == "human",
            "the page's Take over button gives this viewer the lease", json.dumps(l))
    except TimeoutError as e:
        say(False, "the page's Take over button gives this viewer the lease", str(e))

    move(b, 400, 300)
    say(wait_pointer(b, (400, 300), 5), "while this viewer holds the lease, a pointer move through the page moves the X pointer",
        "the pointer is at %s, not (400, 300)" % (pointer(),))

    subprocess.run([BOTDESK, "lease", PROFILE, "take", "--viewer", "someone-else"], capture_output=True, timeout=10)
    time.sleep(0.5)  # the lease applies within 250 ms (inotify)
    # A takeover is private: the page's stream is closed (4000), so nothing of
    # the page reaches the screen any more, and its bar claims nothing.
    try:
        b.wait_for("window.botdesk.connected === false", "the takeover to close the page's stream", 5)
        text = b.eval("document.getElementById('control').textContent")
        say(text.startswith("control: unknown"), "another viewer's takeover closes the page's stream, and its bar says control: unknown",
            "the bar says %r" % text)
    except TimeoutError as e:
        say(False, "another viewer's takeover closes the page's stream", str(e))
    p = pointer()
    say(near(p, (400, 300)), "the pointer stays where the page left it", "the pointer moved to %s" % (p,))

    # Take it back through the page and hand it back with the other button:
    # once the page knows it lost control (Take over is offered again).
    try:
        b.wait_for("window.botdesk.you === false", "the page to learn that another viewer holds control", 10)
    except TimeoutError as e:
        say(False, "after another viewer's takeover the page offers Take over again", str(e))
    b.click("take")
    try:
        b.wait_for("window.botdesk.you === true", "the page to show this viewer in control again", 10)
        b.wait_for("window.botdesk.connected === true", "the page to open its stream again", 20)
        say(True, "holding control again, the page opens its stream again")
        b.click("release")
        b.wait_for("window.botdesk.holder === 'agent'", "the page to show the agent in control", 10)
        l = lease()
        say(l.get("holder") == "agent", "the page's Hand back button returns control to the agent", json.dumps(l))
    except TimeoutError as e:
        say(False, "the page's Hand back button returns control to the agent", str(e))

    # Take it once more, then leave the page: release_on_close hands control to the agent.
    b.click("take")
    try:
        b.wait_for("window.botdesk.you === true", "the page to show this viewer in control again", 10)
    except TimeoutError as e:
        say(False, "the page takes the lease back", str(e))
    b.send("Page.navigate", {"url": "about:blank"})
    deadline, holder = time.monotonic() + 10, None
    while time.monotonic() < deadline:
        l = lease()
        holder = l["lease"]["holder"] if "lease" in l else l.get("holder")
        if holder == "agent":
            break
        time.sleep(0.2)
    say(holder == "agent", "when the controlling viewer leaves the page, control returns to the agent (release_on_close)",
        "holder is still %s after 10 s" % holder)

    # Another local user's listener on another port of 127.0.0.1, at the
    # profile's path: browsers send cookies to every port of a host, so
    # only the session's own random path keeps its cookie from going there.
    heads = []
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    srv.settimeout(15)

    def capture():
        try:
            c, _ = srv.accept()
        except OSError:
            return
        c.settimeout(5)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                d = c.recv(4096)
                if not d:
                    break
                data += d
            heads.append(data.decode("latin-1"))
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        except OSError:
            pass
        finally:
            c.close()

    th = threading.Thread(target=capture, daemon=True)
    th.start()
    other = "http://127.0.0.1:%d/%s/" % (srv.getsockname()[1], PROFILE)
    b.send("Page.navigate", {"url": other})
    th.join(20)
    srv.close()
    say(len(heads) == 1 and "botdesk_session" not in heads[0],
        "the browser sends the session cookie to no other port of 127.0.0.1, even at the profile's path",
        "what %s got: %r" % (other, heads))
finally:
    b.close()
