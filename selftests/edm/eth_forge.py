#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# A rogue host's tools for fabric_netns.sh: capture an EDM-over-Ethernet
# frame (ethertype 0x88B5) as it passes a netdev, and send it again from
# another netdev with a chosen source, destination and burst sequence
# number (struct edm_burst_hdr right after the Ethernet header: __be32 seq,
# __be32 ack, __be16 nblocks, u8 flags, u8 epoch).
#
# eth_forge.py capture IFNAME OUT [timeout=SECS]
#     the first 0x88B5 frame received on IFNAME that carries blocks (not an
#     acknowledgment alone), in hex, to OUT
# eth_forge.py send IFNAME FRAMEFILE SRC DST SEQ [count=N] [seconds=S]
#     FRAMEFILE's frame with those addresses and sequence number, N times
#     (seq, seq+1, ...) or for S seconds; prints how many were sent
import socket, struct, sys, time

ETH_P_EDM = 0x88B5
ETH_P_ALL = 0x0003
BURST_HDR = 12


def mac(s):
    b = bytes.fromhex(s.replace(":", ""))
    if len(b) != 6:
        sys.exit(f"bad MAC address {s!r}")
    return b


def capture(ifname, out, timeout="30"):
    # ETH_P_ALL: on a bridge port only the taps see a frame before the
    # bridge takes it
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((ifname, ETH_P_ALL))
    end = time.monotonic() + float(timeout)
    while True:
        s.settimeout(max(end - time.monotonic(), 0.001))
        try:
            frame, addr = s.recvfrom(1 << 16)
        except socket.timeout:
            sys.exit(f"no 0x88B5 frame on {ifname} in {timeout} s")
        if (addr[2] != socket.PACKET_OUTGOING and len(frame) >= 14 + BURST_HDR and
                frame[12:14] == struct.pack(">H", ETH_P_EDM) and frame[22:24] != b"\0\0"):
            break
    with open(out, "w") as f:
        f.write(frame.hex() + "\n")


def send(ifname, framefile, src, dst, seq, count="1", seconds=None):
    frame = bytes.fromhex(open(framefile).read().strip())
    if len(frame) < 14 + BURST_HDR:
        sys.exit("the frame is too short for an EDM burst")
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    seq, n = int(seq, 0), 0
    end = time.monotonic() + float(seconds) if seconds else None
    while (end and time.monotonic() < end) or (not end and n < int(count)):
        s.send(mac(dst) + mac(src) + frame[12:14] + struct.pack(">I", (seq + n) & 0xffffffff) +
               frame[18:])
        n += 1
    print(n)


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("capture", "send"):
        sys.exit(__doc__ or "usage: eth_forge.py capture|send ...")
    pos = [a for a in sys.argv[2:] if "=" not in a]
    kw = dict(a.split("=", 1) for a in sys.argv[2:] if "=" in a)
    (capture if sys.argv[1] == "capture" else send)(*pos, **kw)


if __name__ == "__main__":
    main()
