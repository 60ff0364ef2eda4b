#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The browser part of tests/integration/checkpoint-clients.sh: botdesk web's
page (noVNC in headless Chromium, driven over --remote-debugging-pipe)
watching a checkpointable desktop while it is snapshotted, then hibernated
and resumed. Each dump ends the page's stream (botdesk ends the viewers'
connections first); the page must open a new one by itself, and draw.

  web_reconnect.py URL OUTDIR PROFILE

Needs BOTDESK (the CLI) in the environment. Prints one line per check:
"PASS text" or "FAIL text: why"; "PID n" first, Chromium's.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import web_client  # noqa: E402

URL, OUT, PROFILE = sys.argv[1:4]
BOTDESK = os.environ["BOTDESK"]
DRAWN = ("(() => { const c = document.querySelector('#screen canvas'); if (!c || c.width < 100) return false;"
         " const d = c.getContext('2d').getImageData(c.width >> 1, c.height >> 1, 1, 1).data;"
         " return d[3] > 0 && (d[0] + d[1] + d[2]) > 0; })()")


def say(ok, text, why=""):
    print(("PASS %s" % text) if ok else ("FAIL %s: %s" % (text, why)))
    sys.stdout.flush()


def botdesk(*args):
    r = subprocess.run([BOTDESK, *args], capture_output=True, text=True, timeout=200)
    return r.returncode, r.stderr.strip()


def reconnects(b, what, timeout):
    """Until the page has a stream that is not the one marked before, connected and drawing."""
    try:
        b.wait_for("window.botdesk.rfb && window.botdesk.rfb !== window.__before && window.botdesk.connected",
                   "the page to open a new stream " + what, timeout)
        b.wait_for(DRAWN, "the new stream to draw the desktop", 20)
        say(True, "the page opens a new stream by itself %s, and draws the desktop" % what)
    except TimeoutError as e:
        say(False, "the page opens a new stream by itself %s" % what,
            "%s; page says: %s" % (e, b.eval("document.body ? document.body.innerText : ''")))


b = web_client.announced_browser(OUT)
try:
    try:
        b.open_viewer(URL)
        b.wait_for(DRAWN, "the first framebuffer update", 20)
        say(True, "the page connects to the checkpointable desktop and draws it")
    except TimeoutError as e:
        say(False, "the page connects to the checkpointable desktop", str(e))
        raise SystemExit(0)

    b.eval("window.__before = window.botdesk.rfb, true")
    rc, err = botdesk("snapshot", PROFILE, "web")
    say(rc == 0, "botdesk snapshot works with the page watching", err)
    reconnects(b, "after the snapshot", 20)

    b.eval("window.__before = window.botdesk.rfb, true")
    rc, err = botdesk("hibernate", PROFILE)
    say(rc == 0, "botdesk hibernate works with the page watching", err)
    try:
        b.wait_for("window.botdesk.connected === false", "the page to see its stream end", 10)
        say(True, "the page sees its stream end with the hibernation")
    except TimeoutError as e:
        say(False, "the page sees its stream end with the hibernation", str(e))
    rc, err = botdesk("start", PROFILE)
    say(rc == 0, "botdesk start resumes the desktop", err)
    reconnects(b, "after the resume", 30)
finally:
    b.close()
