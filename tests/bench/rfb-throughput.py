#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""RFB framebuffer throughput, raw socket vs `botdesk rfb`.

    rfb-throughput.py SOCKET BOTDESK PROFILE [ROUNDS]

Asks for ROUNDS full, non-incremental updates in Raw encoding (the largest
thing a server sends) and prints MB/s for the raw Unix socket and for the
bridge, one line each: "raw 812.3" / "bridge 790.1".
"""
import socket
import struct
import subprocess
import sys
import time


class Stream:
    def __init__(self, read, write):
        self.read_some, self.write = read, write
        self.buf = b""

    def read(self, n):
        while len(self.buf) < n:
            chunk = self.read_some(1 << 20)
            if not chunk:
                raise EOFError("server closed the stream")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out


def handshake(s):
    version = s.read(12)
    s.write(version)  # 3.8 (or whatever the server speaks)
    n = s.read(1)[0]
    types = s.read(n)
    if 1 not in types:
        raise RuntimeError("server does not offer security type None")
    s.write(b"\x01")
    if struct.unpack(">I", s.read(4))[0] != 0:
        raise RuntimeError("security handshake failed")
    s.write(b"\x01")  # shared
    w, h = struct.unpack(">HH", s.read(4))
    s.read(16)  # pixel format
    s.read(struct.unpack(">I", s.read(4))[0])  # name
    # 32 bpp true colour, Raw only.
    s.write(struct.pack(">BxxxBBBBHHHBBBxxx", 0, 32, 24, 0, 1, 255, 255, 255, 16, 8, 0))
    s.write(struct.pack(">BxHi", 2, 1, 0))
    return w, h


def measure(s, w, h, rounds):
    total = 0
    t0 = time.monotonic()
    for _ in range(rounds):
        s.write(struct.pack(">BBHHHH", 3, 0, 0, 0, w, h))
        while True:
            kind = s.read(1)[0]
            if kind == 0:
                break
            if kind == 2:  # bell
                continue
            if kind == 1:  # colour map
                s.read(3)
                s.read(struct.unpack(">H", s.read(2))[0] * 6)
                continue
            raise RuntimeError(f"unexpected server message {kind}")
        s.read(1)
        rects = struct.unpack(">H", s.read(2))[0]
        for _ in range(rects):
            rx, ry, rw, rh, enc = struct.unpack(">HHHHi", s.read(12))
            if enc != 0:
                raise RuntimeError(f"unexpected encoding {enc}")
            total += len(s.read(rw * rh * 4))
    return total / (time.monotonic() - t0) / 1e6


def main():
    path, botdesk, profile = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 30

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    s = Stream(sock.recv, sock.sendall)
    w, h = handshake(s)
    print(f"raw {measure(s, w, h, rounds):.1f}")
    sock.close()

    p = subprocess.Popen([botdesk, "rfb", profile], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    def write(data):
        p.stdin.write(data)
        p.stdin.flush()

    s = Stream(p.stdout.read1 if hasattr(p.stdout, "read1") else p.stdout.read, write)
    w, h = handshake(s)
    print(f"bridge {measure(s, w, h, rounds):.1f}")
    p.stdin.close()
    p.wait(timeout=10)


if __name__ == "__main__":
    main()
