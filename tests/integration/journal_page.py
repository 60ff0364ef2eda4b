#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The browser part of tests/integration/journal.sh: headless Chromium
(web_client.Browser, over --remote-debugging-pipe) opens the page that
`botdesk journal P export DIR` wrote, from the file system, no server.

  journal_page.py INDEX_HTML OUTDIR

Prints one line per check: "PASS text" or "FAIL text: why".
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import web_client  # noqa: E402

PAGE, OUT = sys.argv[1:3]


def say(ok, text, why=""):
    print(("PASS %s" % text) if ok else ("FAIL %s: %s" % (text, why)))
    sys.stdout.flush()


b = web_client.Browser(OUT)
try:
    # Straight to the file: no server, no link from another page.
    t = b.send("Target.createTarget", {"url": "about:blank"}, session=False)
    b.session = b.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True}, session=False)["sessionId"]
    b.send("Page.enable")
    b.send("Runtime.enable")
    b.send("Page.navigate", {"url": "file://" + os.path.abspath(PAGE)})
    try:
        b.wait_for("document.readyState === 'complete' && document.images.length > 0 &&"
                   " Array.from(document.images).every(i => i.complete)", "the page and its frames to load", 20)
    except TimeoutError as e:
        say(False, "the exported page loads in headless Chromium", str(e))
        raise SystemExit(0)
    n = b.eval("document.images.length")
    loaded = b.eval("Array.from(document.images).filter(i => i.naturalWidth === 320).length")
    say(n > 0 and loaded == n, "the exported page shows every frame (%d) from its files" % n,
        "%d of %d images loaded at 320 pixels wide" % (loaded, n))
    ring = b.eval("(() => { const c = document.querySelector('circle.ring'); if (!c) return null;"
                  " const r = c.getBoundingClientRect(); return r.width > 0 && r.height > 0; })()")
    say(ring is True, "a click is drawn as a ring on its frame", "ring: %r" % (ring,))
    arrow = b.eval("document.querySelectorAll('line.arrow').length")
    say(arrow > 0, "a drag is drawn as an arrow", "arrows: %r" % (arrow,))
    caption = b.eval("Array.from(document.querySelectorAll('.caption')).map(e => e.innerText).join('|')")
    say("Typed: hello journal 1" in caption, "typed text shows as a caption", "captions: %r" % caption[:200])
    bands = b.eval("Array.from(document.querySelectorAll('.band')).map(e => e.innerText).join('|')")
    say("Human took control" in bands and "Control returned" in bands, "the takeover shows as bands",
        "bands: %r" % bands[:200])
    link = b.eval("(() => { const a = document.querySelector('a.framelink'); return a ? a.href : null; })()")
    say(bool(link) and link.startswith("file://") and link.endswith(".jpg"), "each frame links to its file",
        "link: %r" % (link,))
finally:
    b.close()
