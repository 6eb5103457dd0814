#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# A TCP file transfer for ndimm.sh, pool.sh and nicpool.sh (the image has no nc).
# xfer.py recv PORT OUT [go=PATH] [idle=SECS] [rcvbuf=BYTES]
#       | send ADDR PORT FILE [via=sendfile|sendall] [wait=SECS]
import os, socket, sys, time

def recv(port, out, go=None, idle=None, rcvbuf=None):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if rcvbuf:  # SO_RCVBUFFORCE, past net.core.rmem_max; sets the window
        ls.setsockopt(socket.SOL_SOCKET, 33, int(rcvbuf))
    ls.bind(("0.0.0.0", int(port)))
    ls.listen(1)
    ls.settimeout(120)
    s, _ = ls.accept()
    if go:  # stall: let the data pile up in the socket until told to read
        deadline = time.monotonic() + 300
        while not os.path.exists(go):
            if time.monotonic() > deadline:
                sys.exit("never told to read")
            time.sleep(0.05)
    # idle: the connection may never end (its wire is gone); stop after
    # that many seconds without data
    s.settimeout(float(idle) if idle else 120)
    with open(out, "wb") as f:
        while True:
            try:
                b = s.recv(1 << 16)
            except socket.timeout:
                if idle:
                    break
                raise
            if not b:
                break
            f.write(b)
    s.close()

# via=sendall copies the file through user space into the socket (ndimm.sh
# counts which transmit path its skbs take); sendfile lends page cache pages.
# wait: the receiver may be in another guest and not listening yet (its
# address answers ping before its python has bound): a refused connect is
# tried again until that many seconds have passed.
def connect(addr, port, wait):
    deadline = time.monotonic() + float(wait)
    while True:
        try:
            return socket.create_connection((addr, int(port)), timeout=120)
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)

def send(addr, port, path, via="sendfile", wait="120"):
    s = connect(addr, port, wait)
    with open(path, "rb") as f:
        if via == "sendfile":
            s.sendfile(f)
        elif via == "sendall":
            while True:
                b = f.read(1 << 16)
                if not b:
                    break
                s.sendall(b)
        else:
            sys.exit("via: sendfile or sendall, not " + via)
    s.shutdown(socket.SHUT_WR)
    while s.recv(4096):  # the receiver closes once it has it all
        pass

args = [a for a in sys.argv[2:] if "=" not in a]
opts = dict(a.split("=", 1) for a in sys.argv[2:] if "=" in a)
{"recv": recv, "send": send}[sys.argv[1]](*args, **opts)
