# SPDX-License-Identifier: LGPL-2.1-or-later
"""A DevTools client of our own, on web_client.py's framing, for the relay's edges.

  devtools_raw.py ADDR PATH ACTION -> one line of what it saw
    version  Browser.getVersion sent in two fragments: "answer PRODUCT"
    nul      a NUL inside a message: how the server closed
    binary   a binary message: how the server closed
    first    the first message or close: "text ..." or "close CODE REASON"
    create T a page titled T made on the browser's connection: "target ID" once its title is T
    title    on a page's own connection, its document.title: "answer TITLE"
             and "bare" when the answer has no sessionId (a page's root)
  ADDR is HOST:PORT or unix:PATH; a refused upgrade prints "status CODE".
"""
import json, os, struct, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import web_client as w

addr, path, action = sys.argv[1], sys.argv[2], sys.argv[3]

def frame(op, payload, fin=True):
    k = os.urandom(4)
    n = len(payload)
    h = bytes([(0x80 if fin else 0) | op])
    h += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n)
    return h + k + bytes(b ^ k[i % 4] for i, b in enumerate(payload))

def message(s):
    """A whole text message, its fragments joined; or ('close', code)."""
    data, first = b"", True
    while True:
        op, p = w.recv_frame(s)
        if op == 8:
            return ("close", w.close_of(p))
        if op in (9, 10):
            continue
        if first and op != 1 or not first and op != 0:
            return ("bad-op", op)
        first = False
        data += p
        if w.last_fin:
            return ("text", data)

# recv_frame does not say FIN: read it ourselves.
def recv_frame(s):
    h = w.recv_exact(s, 2)
    w.last_fin = bool(h[0] & 0x80)
    op, n = h[0] & 15, h[1] & 127
    if n == 126:
        n = struct.unpack(">H", w.recv_exact(s, 2))[0]
    elif n == 127:
        n = struct.unpack(">Q", w.recv_exact(s, 8))[0]
    return op, w.recv_exact(s, n)
w.recv_frame = recv_frame

def answer(s, id):
    """The answer to command id, skipping events; None, having printed how it ended, when none came."""
    while True:
        kind, m = message(s)
        if kind != "text":
            print(kind, m)
            return None
        d = json.loads(m)
        if d.get("id") == id:
            return d

def command(s, id, method, params):
    s.sendall(frame(1, json.dumps({"id": id, "method": method, "params": params}).encode()))
    return answer(s, id)

s, status = w.upgrade(addr, path)
if status != "101":
    print("status", status)
    sys.exit(0)
if action == "version":
    # One command in two fragments: it reaches the browser whole.
    s.sendall(frame(1, b'{"id": 7, "meth', fin=False) + frame(0, b'od": "Browser.getVersion"}'))
    d = answer(s, 7)
    if d:
        print("answer", d["result"]["product"].split("/")[0] if "result" in d else d.get("error"))
elif action == "nul":
    s.sendall(frame(1, b'{"id": 1, "method": "Browser.getVersion"}\x00{"id": 2, "method": "Browser.close"}'))
    print(*message(s))
elif action == "binary":
    s.sendall(frame(2, b'{"id": 1, "method": "Browser.getVersion"}'))
    print(*message(s))
elif action == "first":
    print(*message(s))
elif action == "create":
    # Chromium lists a page under the title it has loaded, which may come after createTarget's answer: ask
    # for the browser's targets until the page's title is T, for at most 10 s.
    import time
    want = sys.argv[4]
    d = command(s, 3, "Target.createTarget", {"url": "data:text/html,<title>%s</title>" % want})
    if d and "result" in d:
        tid, deadline, n, titled = d["result"]["targetId"], time.monotonic() + 10, 100, False
        while not titled and time.monotonic() < deadline:
            n += 1
            t = command(s, n, "Target.getTargets", {})
            titled = bool(t) and any(i.get("targetId") == tid and i.get("title") == want
                                     for i in t.get("result", {}).get("targetInfos", []))
            if not titled:
                time.sleep(0.05)
        print("target", tid if titled else "%s: not titled %s within 10 s" % (tid, want))
    elif d:
        print("target", d.get("error"))
elif action == "title":
    d = command(s, 4, "Runtime.evaluate", {"expression": "document.title", "returnByValue": True})
    if d:
        print("answer", d["result"]["result"]["value"] if "result" in d else d.get("error"),
              "session" if "sessionId" in d else "bare")
