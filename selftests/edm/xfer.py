#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# A TCP file transfer for pool.sh and nicpool.sh (the image has no nc).
# xfer.py recv PORT OUT | send ADDR PORT FILE
import socket, sys

def recv(port, out):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", int(port)))
    ls.listen(1)
    ls.settimeout(120)
    s, _ = ls.accept()
    s.settimeout(120)
    with open(out, "wb") as f:
        while True:
            b = s.recv(1 << 16)
            if not b:
                break
            f.write(b)
    s.close()

def send(addr, port, path):
    s = socket.create_connection((addr, int(port)), timeout=120)
    with open(path, "rb") as f:
        s.sendfile(f)
    s.shutdown(socket.SHUT_WR)
    while s.recv(4096):
        pass

{"recv": recv, "send": send}[sys.argv[1]](*sys.argv[2:])
