#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""cm_wire_forge.py SRC DST MODE N [PORT]: hostile CM MADs to DST's QP1.

Sends N RoCEv2 packets (UD SEND_ONLY to QP 1, DETH GSI Q_Key 0x80010000
from QP 1, ICRC by python3-scapy's RoCE layer) from a UDP socket bound to
SRC:49999 in the current network namespace, each one of:
  short    a 200-byte payload (a MAD is 256)
  garbage  256 random bytes with a base version of 2
  badreq   a REQ whose RDMA CM private-data header has version 5
  get      a Get(ClassPortInfo)
  flood    REQs for TCP port PORT, each its own comm ID and QPN
The REQ is laid out from IBA vol 1 §12.6.5 here, not by our encoder.
"""
import os
import socket
import struct
import sys
import time

try:
    from scapy.all import IP, UDP, Raw
    from scapy.contrib.roce import BTH
except ImportError as e:
    print("SKIP: python3-scapy is not installed (%s)" % e)
    sys.exit(77)

SPORT = 49999


def mad_hdr(method, attr, tid):
    return struct.pack("!BBBBHHQHHI", 1, 0x07, 2, method, 0, 0, tid, attr,
                       0, 0)


def req(src, dst, port, comm_id, qpn, hdr_version=0):
    gid = lambda a: bytes(10) + b"\xff\xff" + socket.inet_aton(a)
    b = struct.pack("!I4xQQ4xI", comm_id, 0x0000000001060000 | port,
                    0x0200000000000001, 0)
    b += struct.pack("!I", qpn << 8 | 1)            # QPN, responder res.
    b += struct.pack("!I", 1)                       # EECN 0, initiator depth
    b += struct.pack("!I", 20 << 3)                 # remote CM resp. timeout, RC
    b += struct.pack("!I", 0x123456 << 8 | 20 << 3 | 7)
    b += struct.pack("!HBB", 0xffff, 3 << 4 | 7, 15 << 4)
    b += struct.pack("!HH", 0xffff, 0xffff) + gid(src) + gid(dst)
    b += struct.pack("!IBBBB", 3, 0, 64, 0, 17 << 3)
    b += bytes(44)                                  # no alternate path
    pd = struct.pack("!BBH", hdr_version, 0x40, 40000)
    pd += bytes(12) + socket.inet_aton(src) + bytes(12) + socket.inet_aton(dst)
    b += pd + bytes(92 - len(pd))
    assert len(b) == 232, len(b)
    return mad_hdr(0x03, 0x0010, comm_id) + b


def packet(src, dst, payload, psn):
    p = (IP(src=src, dst=dst, flags="DF", id=0, ttl=64) /
         UDP(sport=SPORT, dport=4791) /
         BTH(opcode=0x64, pkey=0xffff, dqpn=1, psn=psn) /
         Raw(struct.pack("!II", 0x80010000, 1) + payload))
    return bytes(p[UDP].payload)


def main():
    src, dst, mode, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    port = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((src, SPORT))
    base = struct.unpack("!I", os.urandom(4))[0] | 1
    for i in range(n):
        if mode == "short":
            pay = os.urandom(200)
        elif mode == "garbage":
            pay = b"\x02" + os.urandom(255)
        elif mode == "badreq":
            pay = req(src, dst, port or 7000, (base + i) & 0xffffffff or 1,
                      0x100 + i, hdr_version=5)
        elif mode == "get":
            pay = mad_hdr(0x01, 0x0001, 0x42 + i) + bytes(232)
        elif mode == "flood":
            pay = req(src, dst, port, (base + i) & 0xffffffff or 1,
                      0x1000 + i)
        else:
            sys.exit("unknown mode " + mode)
        s.sendto(packet(src, dst, pay, i), (dst, 4791))
        if i % 50 == 49:
            time.sleep(0.005)   # not a test of the socket buffer
    print("sent", n, mode)


if __name__ == "__main__":
    main()
