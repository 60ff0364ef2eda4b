#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Clients for tests/integration/web.sh, stdlib only.

  web_client.py http ADDR METHOD PATH [COOKIE [HOST]] [--header H]... -> "STATUS" and headers/body lines
  web_client.py upgrade ADDR PATH [--then ACTION] [--header H]... -> "STATUS", then what ACTION saw
      ACTIONS: greet (first binary frame), close (clean close, then the echo),
               wait-close (the server's close frame: code and reason),
               unmasked (send an unmasked frame: the close code),
               hold (greet, then keep the stream open until stdin closes),
               code (one word: the HTTP status of a refused request, the close
                     code of a refused upgrade, or "open" when the desktop greets),
               text (send a text frame: the close code),
               badrfb (after the RFB handshake, an unknown message type: the close code),
               wait-close-at (as wait-close, then "at NS": CLOCK_REALTIME ns of the close),
               hold-then:HOW (greet, "held", then on stdin's end leave by HOW:
                     1000 or 1001 a close frame with that code, 1005 one without
                     a code, drop no close frame at all)
  web_client.py many ADDR BOTDESK PROFILE N      -> the statuses of N + 1 streams opened at once
  web_client.py conns ADDR N PATH                -> the status of a request after N silent connections
  web_client.py png-pixel FILE X Y               -> "R G B" of a PNG pixel

ADDR is unix:PATH or HOST:PORT. Every wait is bounded and says what it waited for.
"""
import base64
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time
import zlib


def connect(addr, timeout=10):
    if addr.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(addr[5:])
        return s, "localhost"
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=timeout)
    return s, addr


def read_head(s):
    head = b""
    while b"\r\n\r\n" not in head:
        c = s.recv(1)
        if not c:
            break
        head += c
    return head.decode("latin-1")


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError("the stream ended")
        b += c
    return b


def recv_frame(s):
    h = recv_exact(s, 2)
    op, n = h[0] & 15, h[1] & 127
    if h[1] & 0x80:
        raise ValueError("the server masked a frame")
    if n == 126:
        n = struct.unpack(">H", recv_exact(s, 2))[0]
    elif n == 127:
        n = struct.unpack(">Q", recv_exact(s, 8))[0]
    return op, recv_exact(s, n)


def send_frame(s, op, payload, mask=True):
    n = len(payload)
    m = 0x80 if mask else 0
    h = bytes([0x80 | op])
    if n < 126:
        h += bytes([m | n])
    elif n < 65536:
        h += bytes([m | 126]) + struct.pack(">H", n)
    else:
        h += bytes([m | 127]) + struct.pack(">Q", n)
    if mask:
        k = os.urandom(4)
        h += k
        payload = bytes(b ^ k[i % 4] for i, b in enumerate(payload))
    s.sendall(h + payload)


def close_of(payload):
    if len(payload) < 2:
        return "1005"
    return "%d %s" % (struct.unpack(">H", payload[:2])[0], payload[2:].decode("utf-8", "replace"))


def cmd_http(addr, method, path, cookie=None, host=None, headers=()):
    s, default_host = connect(addr)
    host = host or default_host
    extra = "Cookie: %s\r\n" % cookie if cookie else ""
    extra += "".join(h + "\r\n" for h in headers)
    body = "Content-Length: 0\r\n" if method == "POST" else ""
    s.sendall(("%s %s HTTP/1.1\r\nHost: %s\r\n%s%s\r\n" % (method, path, host, extra, body)).encode())
    data = b""
    while True:
        c = s.recv(65536)
        if not c:
            break
        data += c
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    print(lines[0].split(" ", 2)[1])
    for line in lines[1:]:
        print(line)
    print()
    print(rest.decode("utf-8", "replace"))


def upgrade(addr, path, headers=()):
    """Open a WebSocket: (socket, HTTP status)."""
    s, host = connect(addr)
    key = base64.b64encode(os.urandom(16)).decode()
    extra = "".join(h + "\r\n" for h in headers)
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n%s\r\n" % (path, host, key, extra)).encode())
    head = read_head(s)
    return s, head.split(" ", 2)[1] if " " in head else "none"


def cmd_many(addr, botdesk, profile, n):
    """Open n streams, each with its own ticket, then one more: print each status
    (the last's close code, as close-CODE, when it is refused after the upgrade)."""
    held, out = [], []
    for i in range(int(n) + 1):
        t = subprocess.run([botdesk, "web", "ticket", profile, "--viewer", "v%d" % i], capture_output=True,
                           text=True, check=True).stdout.strip()
        s, status = upgrade(addr, "/%s/websockify?%s" % (profile, t.split("?", 1)[1]))
        if status == "101" and i == int(n):
            op, p = recv_frame(s)
            status = "close-" + close_of(p).split(" ", 1)[0] if op == 8 else "open"
            out.append(status)
            held.append(s)
            continue
        out.append(status)
        if status == "101":
            # A whole RFB handshake: Xvnc counts a viewer that leaves before
            # it as a security failure, and blacklists after a few.
            op, p = recv_frame(s)
            rfb_handshake(Payload(s, p), s)
        held.append(s)
    print(" ".join(out))
    for s in held:
        send_frame(s, 8, struct.pack(">H", 1000))
        s.close()


def cmd_conns(addr, n, path):
    """Open n connections that send nothing, then one with a request: its status."""
    idle = [connect(addr)[0] for _ in range(int(n))]
    time.sleep(0.3)  # the server accepts them all before the last one
    s, host = connect(addr)
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host)).encode())
    head = read_head(s)
    print(head.split(" ", 2)[1] if " " in head else "none")
    for c in idle:
        c.close()


def cmd_upgrade(addr, path, action="greet", headers=()):
    s, status = upgrade(addr, path, headers)
    if action == "code":
        if status != "101":
            print(status)
            return
        op, p = recv_frame(s)
        if op == 8:
            print(close_of(p).split(" ", 1)[0])
            return
        print("open")
        rfb_handshake(Payload(s, p), s)
        send_frame(s, 8, struct.pack(">H", 1000))
        return
    print(status)
    sys.stdout.flush()
    if status != "101":
        return
    if action == "text":
        send_frame(s, 1, b"RFB 003.008\n")
        op = 0
        while op != 8:
            op, p = recv_frame(s)
        print(close_of(p))
        return
    if action == "unmasked":
        send_frame(s, 2, b"RFB 003.008\n", mask=False)
        op, p = recv_frame(s)
        while op != 8:
            op, p = recv_frame(s)
        print(close_of(p))
        return
    op, p = recv_frame(s)
    print("greet %d %r" % (op, p))
    sys.stdout.flush()
    if action.startswith("flood"):
        flood(s, p, float(action.split(":")[1]))
        return
    # Complete the RFB handshake: Xvnc blacklists viewers that leave before it.
    rfb_handshake(Payload(s, p), s)
    op = 0
    if action == "close":
        send_frame(s, 8, struct.pack(">H", 1000) + b"bye")
        while op != 8:
            op, p = recv_frame(s)
        print("close " + close_of(p))
    elif action == "wait-close":
        s.settimeout(30)
        while op != 8:
            op, p = recv_frame(s)
        print("close " + close_of(p))
        sys.stdout.flush()
        try:
            send_frame(s, 8, p[:2])  # echo it, as a browser does
        except OSError:
            pass
    elif action == "ping":
        send_frame(s, 9, b"hi")
        while op != 10:
            op, p = recv_frame(s)
        print("pong %r" % p)
    elif action == "hold":
        sys.stdin.read()
    elif action == "badrfb":
        send_frame(s, 2, b"\x7f\x00\x00\x00")  # no RFB client message has type 127
        s.settimeout(10)
        while op != 8:
            op, p = recv_frame(s)
        print(close_of(p))
    elif action == "wait-close-at":
        s.settimeout(60)
        while op != 8:
            op, p = recv_frame(s)
        at = time.time_ns()
        print("close " + close_of(p))
        print("at %d" % at)
        sys.stdout.flush()
        try:
            send_frame(s, 8, p[:2])
        except OSError:
            pass
    elif action.startswith("hold-then:"):
        how = action.split(":", 1)[1]
        print("held")
        sys.stdout.flush()
        sys.stdin.read()
        if how == "drop":
            # No close frame: what a killed browser or a dropped network leaves (1006).
            s.close()
            print("dropped")
            return
        send_frame(s, 8, b"" if how == "1005" else struct.pack(">H", int(how)))
        s.settimeout(5)
        try:
            while op != 8:
                op, p = recv_frame(s)
            print("echo " + close_of(p))
        except (OSError, EOFError):
            print("no echo")
    elif action == "silent":
        # Read what comes, answer nothing: count the pings before the server gives up.
        pings = 0
        s.settimeout(30)
        while op != 8:
            op, p = recv_frame(s)
            pings += op == 9
        print("pings %d close %s" % (pings, close_of(p)))


class Payload:
    """The RFB byte stream inside the server's binary frames."""

    def __init__(self, s, first):
        self.s, self.buf = s, bytearray(first)

    def read(self, n):
        while len(self.buf) < n:
            op, p = recv_frame(self.s)
            if op == 8:
                raise EOFError("closed: " + close_of(p))
            if op == 2:
                self.buf += p
        out, self.buf = bytes(self.buf[:n]), self.buf[n:]
        return out


def rfb_handshake(r, s):
    """RFB 3.8 with security None and a shared ClientInit: the framebuffer's size."""
    r.read(12)
    send_frame(s, 2, b"RFB 003.008\n")
    n = r.read(1)[0]
    r.read(n)
    send_frame(s, 2, b"\x01")
    r.read(4)
    send_frame(s, 2, b"\x01")
    w, h = struct.unpack(">HH", r.read(4))
    r.read(16)
    r.read(struct.unpack(">I", r.read(4))[0])
    return w, h


def flood(s, first, seconds):
    """An RFB client that asks for many full updates, then reads nothing for a while."""
    r = Payload(s, first)
    w, h = rfb_handshake(r, s)
    send_frame(s, 2, struct.pack(">BBHi", 2, 0, 1, 0))  # Raw only: the largest updates
    print("flooding %dx%d" % (w, h))
    sys.stdout.flush()
    # One full update asked for every 20 ms, none read: a server that read
    # the desktop for this viewer regardless would hold 3 MiB more each time.
    for _ in range(int(seconds / 0.02)):
        send_frame(s, 2, struct.pack(">BBHHHH", 3, 0, 0, 0, w, h))
        time.sleep(0.02)
    got, deadline = 0, time.monotonic() + 10
    s.settimeout(10)
    while got < 4 * w * h and time.monotonic() < deadline:
        op, p = recv_frame(s)
        got += len(p)
    print("read %d bytes after the pause" % got)
    send_frame(s, 8, struct.pack(">H", 1000))


# ---- PNG, enough to read a pixel of a screenshot ------------------------------------------------

def png_pixels(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    i, idat, w = 8, b"", 0
    while i < len(data):
        n = struct.unpack(">I", data[i:i + 4])[0]
        kind, body = data[i + 4:i + 8], data[i + 8:i + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), "only 8-bit RGB(A)"
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        i += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def pixel(data, x, y):
    w, h, bpp, rows = png_pixels(data)
    return tuple(rows[y][x * bpp:x * bpp + 3])


# ---- the browser, through CDP on a pipe (fds 3 and 4), never a TCP port -----------------------

def announced_browser(outdir):
    """A Browser, its pid said first (\"PID n\") for the shell to clean up after."""
    b = Browser(outdir)
    print("PID %d" % b.pid)
    sys.stdout.flush()
    return b


class Browser:
    def __init__(self, outdir):
        exe = "/usr/lib/chromium/chromium" if os.access("/usr/lib/chromium/chromium", os.X_OK) else "chromium"
        cmd_r, self.cmd_w = os.pipe()
        self.resp_r, resp_w = os.pipe()
        args = [exe, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--user-data-dir=" + os.path.join(outdir, "chromium-profile"), "--window-size=1280,900",
                "about:blank"]
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY")}

        def fds():
            os.dup2(cmd_r, 3)
            os.dup2(resp_w, 4)

        self.log = open(os.path.join(outdir, "chromium.log"), "wb")
        # A session of its own: every process of this browser is in one group, which kill_all() ends at once.
        self.proc = subprocess.Popen(args, preexec_fn=fds, pass_fds=(3, 4), env=env, start_new_session=True,
                                     stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, close_fds=True)
        os.close(cmd_r)
        os.close(resp_w)
        self.pid = self.proc.pid
        self.next_id, self.buf, self.session, self.events = 0, b"", None, []

    def send(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                m = json.loads(raw)
                if m.get("id") == self.next_id:
                    if "error" in m:
                        raise RuntimeError("%s: %s" % (method, m["error"]))
                    return m.get("result", {})
                self.events.append(m)
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the browser to %s within %d s" % (method, timeout))
            r, _, _ = select.select([self.resp_r], [], [], left)
            if r:
                c = os.read(self.resp_r, 1 << 20)
                if not c:
                    raise EOFError("the browser closed its pipe (%s)" % method)
                self.buf += c

    def open(self, url):
        t = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        a = self.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True}, session=False)
        self.session = a["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        # As a user comes from a gateway: a link on another site's page
        # (here an opaque data: origin), so the navigation is cross-site.
        link = "data:text/html,<a id=go href='%s'>open</a>" % url
        self.send("Page.navigate", {"url": link})
        self.wait_for("document.getElementById('go') !== null", "the page with the link", 10)
        self.eval("document.getElementById('go').click()")

    def open_viewer(self, url, timeout=30):
        """botdesk web's page at url, until its noVNC has connected (TimeoutError else)."""
        self.open(url)
        self.wait_for("window.botdesk && window.botdesk.connected", "noVNC to connect through botdesk web", timeout)

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        return r.get("result", {}).get("value")

    def wait_for(self, expr, what, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.eval(expr):
                return True
            time.sleep(0.1)
        raise TimeoutError("waited %d s for %s" % (timeout, what))

    def click(self, button, timeout=10):
        """Click the page's button once it is enabled: the page enables Take over and Hand back only
        when its first look at the lease has come back, which may be after its stream connected;
        a click on a disabled button does nothing."""
        self.wait_for("(b => b !== null && !b.disabled)(document.getElementById('%s'))" % button,
                      "the page's %s button to be enabled" % button, timeout)
        self.eval("document.getElementById('%s').click()" % button)

    def kill_all(self):
        """SIGKILL to every process of the browser at once, as a crash or an OOM kill ends it. Killing
        only the first one leaves its network service alive a moment, and that one closes the page's
        WebSockets cleanly (1001), which a server rightly takes for a page that was left."""
        os.killpg(self.pid, signal.SIGKILL)
        self.proc.wait()

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill_all()


def cmd_png_pixel(path, x, y):
    with open(path, "rb") as f:
        print("%d %d %d" % pixel(f.read(), int(x), int(y)))


if __name__ == "__main__":
    a = sys.argv[1:]
    try:
        if a[0] == "http":
            pos, headers, rest = [], [], a[1:]
            while rest:
                if rest[0] == "--header":
                    headers.append(rest[1])
                    rest = rest[2:]
                else:
                    pos.append(rest[0])
                    rest = rest[1:]
            cmd_http(*pos, headers=headers)
        elif a[0] == "upgrade":
            action, headers, rest = "greet", [], a[3:]
            while rest:
                if rest[0] == "--then":
                    action = rest[1]
                elif rest[0] == "--header":
                    headers.append(rest[1])
                rest = rest[2:]
            cmd_upgrade(a[1], a[2], action, headers)
        elif a[0] == "conns":
            cmd_conns(*a[1:])
        elif a[0] == "many":
            cmd_many(*a[1:])
        elif a[0] == "png-pixel":
            cmd_png_pixel(*a[1:])
        else:
            sys.exit("unknown command " + a[0])
    except (OSError, EOFError, ValueError) as e:
        print("error %s" % e)
        sys.exit(1)
