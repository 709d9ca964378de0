#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Hostile RoCEv2 UD datagrams from a pod, for tests/integration/wire_ud.sh.

usage: ud_inject.py CASE[@SRC][,CASE[@SRC]...] SRC DST DQPN QKEY [COUNT]

Sends COUNT (default 5) UD SEND_ONLY packets to DST:4791 through a raw
socket (so the source address can be anyone's), built with python3-scapy,
whose RoCE layer computes the ICRC over the header as sent (DF, UDP
checksum 0 as kernel rxe sends; the IP ID names the case, 1230 + its place
in CASES below, so a capture tells which packets it holds).  CASE:
  good   everything right (QPN, Q_Key, P_Key 0xffff, ICRC)
  icrc   the ICRC's last byte flipped
  qkey   Q_Key + 1
  pkey   P_Key 0x1234 (another partition)
  noqp   destination QPN 0xfffffe
  trunc  BTH, 4 bytes of DETH and the ICRC: shorter than the opcode's
         headers
SRC is the source IP written in the header (spoofed or not); a case's
own @SRC overrides it.  One process sends every case, in order.
"""
import socket
import struct
import sys

try:
    from scapy.all import IP, UDP, Raw, raw
    from scapy.contrib.roce import BTH
except ImportError as e:
    print("SKIP: python3-scapy is not installed (%s)" % e)
    sys.exit(77)


CASES = ("good", "icrc", "qkey", "pkey", "noqp", "trunc")


def build(case, src, dst, dqpn, qkey):
    pkey = 0x1234 if case == "pkey" else 0xffff
    if case == "noqp":
        dqpn = 0xfffffe
    if case == "qkey":
        qkey = (qkey + 1) & 0xffffffff
    deth = struct.pack("!II", qkey, 0x000123)
    payload = bytes((i * 13) & 0xff for i in range(64))
    if case == "trunc":
        deth, payload = deth[:4], b""
    pkt = IP(src=src, dst=dst, flags="DF",
             id=1230 + CASES.index(case), ttl=64) / \
        UDP(sport=4791, dport=4791, chksum=0) / \
        (BTH(opcode=0x64, dqpn=dqpn, psn=1, pkey=pkey) /
         Raw(deth + payload))
    b = bytearray(raw(pkt))
    if case == "icrc":
        b[-1] ^= 0xff
    return bytes(b)


def main(argv):
    if len(argv) < 5:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    cases, src0, dst = argv[0], argv[1], argv[2]
    dqpn, qkey = int(argv[3], 0), int(argv[4], 0)
    count = int(argv[5]) if len(argv) > 5 else 5
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    for c in cases.split(","):
        case, _, src = c.partition("@")
        src = src or src0
        pkt = build(case, src, dst, dqpn, qkey)
        for _ in range(count):
            s.sendto(pkt, (dst, 0))
        print("sent %d %s packets %s -> %s QPN 0x%x" % (count, case, src,
                                                       dst, dqpn))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
