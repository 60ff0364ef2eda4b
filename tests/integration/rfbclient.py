#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A minimal RFB 3.8 client speaking to `botdesk rfb` on its stdin/stdout.

    rfbclient.py BOTDESK PROFILE VIEWER ACTION...

VIEWER "-" runs `botdesk rfb` without --viewer. Actions, in order:
  move:X,Y    PointerEvent, then a framebuffer update request whose reply
              proves the server processed the event
  key:SYM     KeyEvent down and up of keysym SYM (0x61 for a), then the same proof
  run:CMD     a shell command
  where:LABEL print "LABEL X,Y", the X pointer position
  resize:WxH  SetDesktopSize of one screen, then read until the server
              reports WxH ("resized WxH") or says it refused
  wait-close:S  watch the screen until the bridge closes the stream
              ("closed-at NS", the wall clock in ns) or S seconds pass
              ("still-open"); the last action
Prints "init WxH" after the handshake, "error ..." when the server does
something else than expected, and "exit N", the bridge's exit status, last.
"""
import struct
import subprocess
import sys
import threading
import time

RAW, DESKTOP_SIZE, EXTENDED_DESKTOP_SIZE = 0, -223, -308


class Client:
    def __init__(self, r, w):
        self.r, self.w = r, w
        self.width = self.height = self.bpp = 0

    def readn(self, n):
        b = b""
        while len(b) < n:
            c = self.r.read(n - len(b))
            if not c:
                raise EOFError("the bridge closed after %d of %d bytes" % (len(b), n))
            b += c
        return b

    def handshake(self, encodings):
        if self.readn(12) != b"RFB 003.008\n":
            raise ValueError("not an RFB 3.8 server")
        self.w.write(b"RFB 003.008\n")
        types = self.readn(self.readn(1)[0])
        if 1 not in types:
            raise ValueError("security None not offered: %r" % types)
        self.w.write(b"\x01")
        if struct.unpack(">I", self.readn(4))[0] != 0:
            raise ValueError("security failed")
        self.w.write(b"\x00")  # ClientInit, not shared: the bridge makes it shared
        self.width, self.height = struct.unpack(">HH", self.readn(4))
        self.bpp = self.readn(16)[0]
        self.readn(struct.unpack(">I", self.readn(4))[0])
        print("init %dx%d" % (self.width, self.height), flush=True)
        self.w.write(struct.pack(">BBH", 2, 0, len(encodings)) + b"".join(struct.pack(">i", e) for e in encodings))

    def read_message(self):
        """One server message; True when it was a framebuffer update."""
        t = self.readn(1)[0]
        if t == 0:
            for _ in range(struct.unpack(">xH", self.readn(3))[0]):
                self.read_rect()
            return True
        if t == 1:
            self.readn(6 * struct.unpack(">xHH", self.readn(5))[1])
        elif t == 3:
            self.readn(struct.unpack(">3xI", self.readn(7))[0])
        elif t != 2:
            raise ValueError("unexpected server message %d" % t)
        return False

    def read_rect(self):
        x, y, rw, rh, enc = struct.unpack(">HHHHi", self.readn(12))
        if enc == RAW:
            self.readn(rw * rh * self.bpp // 8)
        elif enc == DESKTOP_SIZE:
            print("size %dx%d" % (rw, rh), flush=True)
            self.width, self.height = rw, rh
        elif enc == EXTENDED_DESKTOP_SIZE:
            screens = self.readn(4)[0]
            self.readn(16 * screens)
            # x: who asked (1 = this client), y: the server's answer (0 = done).
            print("extended %dx%d reason %d status %d" % (rw, rh, x, y), flush=True)
            if x == 1 and y != 0:
                raise ValueError("the server refused SetDesktopSize: status %d" % y)
            self.width, self.height = rw, rh
        else:
            raise ValueError("unexpected encoding %d" % enc)

    def request_update(self, incremental=False):
        if incremental:
            self.w.write(struct.pack(">BBHHHH", 3, 1, 0, 0, self.width, self.height))
        else:
            self.w.write(struct.pack(">BBHHHH", 3, 0, 0, 0, 1, 1))

    def sync(self):
        self.request_update()
        while not self.read_message():
            pass

    def move(self, x, y):
        self.w.write(struct.pack(">BBHH", 5, 0, x, y))
        self.sync()

    def key(self, sym):
        self.w.write(struct.pack(">BBxxI", 4, 1, sym) + struct.pack(">BBxxI", 4, 0, sym))
        self.sync()

    def wait_close(self, seconds, stop):
        """Read updates until EOF; stop() ends the wait by closing the bridge."""
        gave_up = threading.Event()
        timer = threading.Timer(seconds, lambda: (gave_up.set(), stop()))
        timer.start()
        try:
            self.request_update()
            while True:
                if self.read_message():
                    self.request_update(incremental=True)
        except (EOFError, OSError):
            pass
        timer.cancel()
        print("still-open" if gave_up.is_set() else "closed-at %d" % time.time_ns(), flush=True)

    def resize(self, want_w, want_h):
        self.request_update()
        self.w.write(struct.pack(">BBHHBB", 251, 0, want_w, want_h, 1, 0) +
                     struct.pack(">IHHHHI", 0, 0, 0, want_w, want_h, 0))
        while True:
            if not self.read_message():
                continue
            if (self.width, self.height) == (want_w, want_h):
                break
            self.request_update(incremental=True)
        print("resized %dx%d" % (self.width, self.height), flush=True)


def main():
    botdesk, profile, viewer = sys.argv[1:4]
    actions = [a.partition(":")[::2] for a in sys.argv[4:]]
    cmd = [botdesk, "rfb", profile] + ([] if viewer == "-" else ["--viewer", viewer])
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    client = Client(p.stdout, p.stdin)
    # The size pseudo-encodings only for a client that resizes: without them
    # every update is raw pixels.
    resizes = any(op == "resize" for op, _ in actions)
    try:
        client.handshake([RAW, DESKTOP_SIZE, EXTENDED_DESKTOP_SIZE] if resizes else [RAW])
        for op, arg in actions:
            if op == "move":
                client.move(*map(int, arg.split(",")))
            elif op == "key":
                client.key(int(arg, 0))
            elif op == "run":
                subprocess.run(arg, shell=True, check=True, stdout=subprocess.DEVNULL)
            elif op == "where":
                out = subprocess.run(["xdotool", "getmouselocation"], capture_output=True, text=True,
                                     check=True).stdout
                f = dict(kv.split(":", 1) for kv in out.split())
                print("%s %s,%s" % (arg, f["x"], f["y"]), flush=True)
            elif op == "resize":
                client.resize(*map(int, arg.split("x")))
            elif op == "wait-close":
                client.wait_close(float(arg), p.kill)
                break
            else:
                raise ValueError("unknown action %s" % op)
        p.stdin.close()
        p.stdout.read()
    except Exception as e:
        print("error %s" % e, flush=True)
        # A refusing bridge exits by itself: its status is the answer.
        try:
            p.stdin.close()
            p.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            p.kill()
    print("exit %d" % p.wait(), flush=True)


if __name__ == "__main__":
    main()
