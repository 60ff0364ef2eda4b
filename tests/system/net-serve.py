# SPDX-License-Identifier: LGPL-2.1-or-later
# net-serve.py ADDRESS PORT: a TCP service outside any desktop that answers
# "hi" to each connection; prints "listening" once it does.
import socket
import sys

family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(family, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(16)
print("listening", flush=True)
while True:
    c, _ = s.accept()
    c.sendall(b"hi\n")
    c.close()
