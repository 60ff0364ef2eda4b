#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The browser part of tests/system/demo-clean.sh: the URL demo.sh printed,
opened as its reader would, in headless Chromium (the integration tier's
driver, tests/integration/web_client.py).

  demo_browser.py URL OUTDIR PROFILE

Prints "PID N" for each Chromium started (its process group, for the
shell's cleanup), then one line per check: "PASS text" or "FAIL text: why".
The first browser must show the desktop: noVNC connected, a painted canvas
of the desktop's size, the bar naming the profile, "connected" and who
holds control. A second browser, with a fresh profile, opening the same
URL gets 403: the ticket was spent by the first.
"""
import base64
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import web_client  # noqa: E402

URL, OUT, PROFILE = sys.argv[1:4]


def say(ok, text, why=""):
    print(("PASS %s" % text) if ok else ("FAIL %s: %s" % (text, why)))
    sys.stdout.flush()


def browser(name):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    b = web_client.Browser(d)
    print("PID %d" % b.pid)
    sys.stdout.flush()
    return b


def open_link(b, url):
    """As Browser.open (a link clicked on another site's page), with the network domain on, so that
    the status of the document's response can be read."""
    t = b.send("Target.createTarget", {"url": "about:blank"}, session=False)
    a = b.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True}, session=False)
    b.session = a["sessionId"]
    b.send("Page.enable")
    b.send("Runtime.enable")
    b.send("Network.enable")
    b.send("Page.navigate", {"url": "data:text/html,<a id=go href='%s'>open</a>" % url})
    b.wait_for("document.getElementById('go') !== null", "the page with the link", 10)
    b.eval("document.getElementById('go').click()")


def document_status(b, url, timeout=20):
    """The HTTP status of the response to url, as the network domain reported it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for m in b.events:
            if m.get("method") == "Network.responseReceived":
                r = m["params"]["response"]
                if r.get("url") == url:
                    return r.get("status")
        b.eval("1")  # gathers the events that came meanwhile
        time.sleep(0.1)
    raise TimeoutError("waited %d s for the response to %s" % (timeout, url))


PAINTED = """(() => {
  const c = document.querySelector('#screen canvas');
  if (!c || c.width < 100 || c.height < 100) return null;
  const g = c.getContext('2d'), seen = new Set();
  let lit = 0;
  for (let i = 1; i < 16; i++)
    for (let j = 1; j < 16; j++) {
      const d = g.getImageData(Math.floor(c.width * i / 16), Math.floor(c.height * j / 16), 1, 1).data;
      if (d[3] > 0 && d[0] + d[1] + d[2] > 0) lit++;
      seen.add(d.join(','));
    }
  return lit > 0 && seen.size > 1 ? [c.width, c.height, lit, seen.size] : null;
})()"""

first = browser("first")
try:
    open_link(first, URL)
    try:
        first.wait_for("window.botdesk && window.botdesk.connected", "noVNC to connect through the ticket", 30)
        say(True, "the printed URL opens the page and noVNC connects to the desktop")
    except TimeoutError as e:
        say(False, "the printed URL opens the page and noVNC connects to the desktop",
            "%s; page says: %s" % (e, first.eval("document.body ? document.body.innerText : ''")))
        raise SystemExit(0)
    try:
        first.wait_for(PAINTED, "the desktop painted on the canvas (non-blank pixels in a 15x15 grid)", 20)
        w, h, lit, colours = first.eval(PAINTED)
        say(True, "the canvas shows the desktop: %dx%d, %d of 225 sampled pixels lit, %d colours" % (w, h, lit, colours))
    except TimeoutError as e:
        say(False, "the canvas shows the desktop", str(e))
    with open(os.path.join(OUT, "page.png"), "wb") as f:
        f.write(base64.b64decode(first.send("Page.captureScreenshot", {"format": "png"})["data"]))
    want = {"title": "botdesk: " + PROFILE, "state": "connected", "control": "control: agent"}
    try:
        first.wait_for("document.getElementById('control').textContent === 'control: agent'"
                       " && !document.getElementById('take').disabled",
                       "the bar to show who holds control and offer Take over", 10)
    except TimeoutError:
        pass
    bar = first.eval("({title: document.querySelector('#bar b').textContent,"
                     " state: document.getElementById('state').textContent,"
                     " control: document.getElementById('control').textContent,"
                     " take: !document.getElementById('take').disabled})")
    say(bar and all(bar.get(k) == v for k, v in want.items()) and bar.get("take"),
        "the bar shows the desktop, its stream and its control: %s, %s, %s, Take over offered to this viewer"
        % (want["title"], want["state"], want["control"]), "the bar shows %r" % (bar,))
finally:
    first.close()

# The same link in a browser that never had it: the ticket is spent.
second = browser("second")
try:
    open_link(second, URL)
    try:
        st = document_status(second, URL)
        say(st == 403, "the same ticket URL in a fresh browser profile: 403", "status %s" % st)
    except TimeoutError as e:
        say(False, "the same ticket URL in a fresh browser profile: 403", str(e))
    connected = second.eval("!!(window.botdesk && window.botdesk.connected)")
    say(connected is False, "and that browser's page shows no desktop", "window.botdesk.connected is %r" % connected)
finally:
    second.close()
