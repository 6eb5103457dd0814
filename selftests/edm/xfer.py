#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# A TCP file transfer for ndimm.sh, pool.sh and nicpool.sh (the image has no nc),
# and numbered UDP datagrams for shpool_guests.sh.
# xfer.py recv PORT OUT [go=PATH] [idle=SECS] [rcvbuf=BYTES]
#       | send ADDR PORT FILE [via=sendfile|sendall] [wait=SECS]
#       | udprecv PORT COUNT go=PATH | udpsend ADDR PORT COUNT
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

# Datagram SEQ: its number, then bytes that depend on it and on their place.
def datagram(seq, size=1200):
    return seq.to_bytes(4, "big") + bytes((seq * 7 + i) & 0xff for i in range(size - 4))

def udpsend(addr, port, count):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for seq in range(int(count)):
        s.sendto(datagram(seq), (addr, int(port)))

# Bind, wait until told to read (the datagrams wait in the socket's queue
# meanwhile), then read COUNT of them: each number once, each intact.
def udprecv(port, count, go):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", int(port)))
    deadline = time.monotonic() + 600
    while not os.path.exists(go):
        if time.monotonic() > deadline:
            sys.exit("never told to read")
        time.sleep(0.05)
    s.settimeout(10)
    seen = set()
    for _ in range(int(count)):
        b = s.recv(1 << 16)
        seq = int.from_bytes(b[:4], "big")
        if seq in seen or b != datagram(seq):
            sys.exit("datagram %d: repeated or altered" % seq)
        seen.add(seq)
    if seen != set(range(int(count))):
        sys.exit("datagrams missing")

args = [a for a in sys.argv[2:] if "=" not in a]
opts = dict(a.split("=", 1) for a in sys.argv[2:] if "=" in a)
{"recv": recv, "send": send, "udprecv": udprecv, "udpsend": udpsend}[sys.argv[1]](*args, **opts)
