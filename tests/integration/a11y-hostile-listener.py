#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The listeners of tests/integration/a11y-hostile.sh: a TCP port on
# 127.0.0.1 (its number written to PORT) and a Unix socket at SOCKET, each
# logging every connection it accepts ("tcp" or "unix", a line each) to LOG,
# then closing it. Runs until killed.
# Usage: a11y-hostile-listener.py PORT LOG SOCKET
import os
import selectors
import socket
import sys

port_file, log, path = sys.argv[1:4]
tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.bind(("127.0.0.1", 0))
tcp.listen(16)
unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
unix.bind(path)
unix.listen(16)
sel = selectors.DefaultSelector()
sel.register(tcp, selectors.EVENT_READ, "tcp")
sel.register(unix, selectors.EVENT_READ, "unix")
with open(port_file + ".tmp", "w", encoding="ascii") as f:
    f.write("%d\n" % tcp.getsockname()[1])
os.rename(port_file + ".tmp", port_file)
while True:
    for key, _ in sel.select():
        c, _ = key.fileobj.accept()
        with open(log, "a", encoding="ascii") as f:
            f.write(key.data + "\n")
        c.close()
