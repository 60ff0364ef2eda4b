#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""RFB framebuffer throughput, raw socket vs `botdesk rfb` vs `botdesk web`.

    rfb-throughput.py SOCKET BOTDESK PROFILE [ROUNDS [WEB_SOCKET WEB_PID]]

Asks for ROUNDS full, non-incremental updates in Raw encoding (the largest
thing a server sends) and prints MB/s for the raw Unix socket and for the
bridge, one line each: "raw 812.3" / "bridge 790.1" (stdout a pipe) /
"bridge_socket 801.2" (stdin and stdout one socket, as socat EXEC gives).
The same through a plain `socat STDIO UNIX-CONNECT:SOCKET` relay ("socat",
"socat_socket"), the floor of any relay process. After each relay, the CPU
time it used (user + system, "bridge_cpu_ms 41.2") and that per GB it
carried ("bridge_cpu_s_per_gb 0.40"): the reader below may bound the MB/s,
never the relay's own cost. With WEB_SOCKET (a running `botdesk web`),
also through a WebSocket ("web 650.2", updates per second "web_fps 30.1"),
and the server's RSS with 10 viewers attached ("web_rss10_kib 4123").
"""
import base64
import os
import socket
import struct
import subprocess
import sys
import time


class Stream:
    """read_some(n) returns some bytes (maybe more than n); readinto(view),
    when given, fills a buffer in place: the pixels are skipped through one
    scratch buffer, never joined into bytes objects, so that this reader
    costs as little per byte as Python allows."""

    def __init__(self, read, write, readinto=None):
        self.read_some, self.write, self.readinto = read, write, readinto
        self.buf = bytearray()
        self.scratch = memoryview(bytearray(1 << 20))

    def read(self, n):
        while len(self.buf) < n:
            chunk = self.read_some(1 << 20)
            if not chunk:
                raise EOFError("server closed the stream")
            self.buf += chunk
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def skip(self, n):
        held = min(n, len(self.buf))
        del self.buf[:held]
        n -= held
        while n > 0:
            if self.readinto:
                got = self.readinto(self.scratch[:min(n, len(self.scratch))])
            else:
                chunk = self.read_some(min(n, len(self.scratch)))
                got = len(chunk) if chunk else 0
                if got > n:
                    self.buf += chunk[n:]
                    got = n
            if not got:
                raise EOFError("server closed the stream")
            n -= got


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
    """MB/s and the bytes of pixels that came."""
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
            s.skip(rw * rh * 4)
            total += rw * rh * 4
    return total / (time.monotonic() - t0) / 1e6, total


class WebSocket:
    """The RFB stream inside binary WebSocket frames (client side: masked)."""

    def __init__(self, path, botdesk, profile):
        t = subprocess.run([botdesk, "web", "ticket", profile, "--viewer", "bench"], capture_output=True,
                           text=True, check=True).stdout.strip()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{profile}/websockify?{t.split('?', 1)[1]} HTTP/1.1\r\nHost: bench\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                           f"Sec-WebSocket-Key: {key}\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError("upgrade refused: " + head.decode(errors="replace").splitlines()[0])
        self.raw = Stream(self.sock.recv, self.sock.sendall)

    def read_some(self, n):
        while True:
            h = self.raw.read(2)
            ln = h[1] & 127
            if ln == 126:
                ln = struct.unpack(">H", self.raw.read(2))[0]
            elif ln == 127:
                ln = struct.unpack(">Q", self.raw.read(8))[0]
            payload = self.raw.read(ln)
            if h[0] & 15 == 8:
                return b""
            if h[0] & 15 == 2:
                return payload

    def write(self, data):
        mask = os.urandom(4)
        n = len(data)
        h = bytes([0x82]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
        self.sock.sendall(h + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))


def cpu_ms(p):
    """The relay's own CPU time (user + system), once it has exited: what the
    throughput, bound by this script's reads, cannot show."""
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    return (ru.ru_utime + ru.ru_stime) * 1e3


def relay(name, argv, rounds):
    """One relay process between us and the server: its MB/s, then its CPU
    time in all and per GB of pixels, first with a pipe each way (stdout a
    pipe: `botdesk rfb` splices into it), then on one socketpair (as socat's
    EXEC and websockify hand it over: the bridge splices through a pipe)."""
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    def write(data):
        p.stdin.write(data)
        p.stdin.flush()

    s = Stream(p.stdout.read, write, p.stdout.readinto)
    w, h = handshake(s)
    mbs, total = measure(s, w, h, rounds)
    print(f"{name} {mbs:.1f}")
    p.stdin.close()
    ms = cpu_ms(p)
    p.stdout.close()
    print(f"{name}_cpu_ms {ms:.1f}")
    print(f"{name}_cpu_s_per_gb {ms / 1e3 / (total / 1e9):.3f}")

    ours, theirs = socket.socketpair()
    p = subprocess.Popen(argv, stdin=theirs, stdout=theirs)
    theirs.close()
    s = Stream(ours.recv, ours.sendall, ours.recv_into)
    w, h = handshake(s)
    mbs, total = measure(s, w, h, rounds)
    print(f"{name}_socket {mbs:.1f}")
    ours.close()
    ms = cpu_ms(p)
    print(f"{name}_socket_cpu_ms {ms:.1f}")
    print(f"{name}_socket_cpu_s_per_gb {ms / 1e3 / (total / 1e9):.3f}")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def main():
    path, botdesk, profile = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 30

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    s = Stream(sock.recv, sock.sendall, sock.recv_into)
    w, h = handshake(s)
    print(f"raw {measure(s, w, h, rounds)[0]:.1f}")
    sock.close()

    relay("bridge", [botdesk, "rfb", profile], rounds)
    relay("socat", ["socat", "STDIO", f"UNIX-CONNECT:{path}"], rounds)

    if len(sys.argv) > 6:
        web_path, web_pid = sys.argv[5], int(sys.argv[6])
        ws = WebSocket(web_path, botdesk, profile)
        s = Stream(ws.read_some, ws.write)
        w, h = handshake(s)
        t0 = time.monotonic()
        mbs = measure(s, w, h, rounds)[0]
        print(f"web {mbs:.1f}")
        print(f"web_fps {rounds / (time.monotonic() - t0):.1f}")
        ws.sock.close()
        viewers = []
        for _ in range(10):
            v = WebSocket(web_path, botdesk, profile)
            sv = Stream(v.read_some, v.write)
            vw, vh = handshake(sv)
            measure(sv, vw, vh, 1)
            viewers.append(v)
        print(f"web_rss10_kib {rss_kib(web_pid)}")
        for v in viewers:
            v.sock.close()


if __name__ == "__main__":
    main()
