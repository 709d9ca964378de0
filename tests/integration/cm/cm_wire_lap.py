#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""cm_wire_lap.py SRC DST PORT: a CM peer on the wire that asks for path
migration, as an IB host's CM would.

Runs in a namespace where nothing else holds UDP 4791 on SRC (a pod with
no soft device).  Connects to DST's listener on TCP port PORT with its own
MADs (REQ as cm_wire_forge.py lays it out, then RTU once the REP came),
then sends, each answered or not:
  LAP (its QPN right)         -> APR, AP status 2 "unsupported", the LAP's
                                 transaction ID and both comm IDs
  the same LAP again          -> the same APR (a lost APR is recovered)
  LAP with another QPN        -> nothing (dropped)
  APR                         -> nothing (we sent no LAP the peer answers)
  DREQ                        -> DREP
Prints "ok <what>" or "FAIL <what>" per step; exit 0 when all passed.
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    from cm_wire_forge import mad_hdr, req
    from scapy.all import IP, UDP, Raw
    from scapy.contrib.roce import BTH
except ImportError as e:
    print("SKIP: python3-scapy is not installed (%s)" % e)
    sys.exit(77)

A_REP, A_RTU, A_DREQ, A_DREP, A_LAP, A_APR = 0x13, 0x14, 0x15, 0x16, 0x19, 0x1a
bad = 0


def say(ok, what):
    global bad
    if not ok:
        bad += 1
    print("ok  " if ok else "FAIL", what, flush=True)


class Peer:
    def __init__(self, src, dst):
        self.src, self.dst, self.psn = src, dst, 0
        self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.s.bind((src, 4791))

    def send(self, mad):
        p = (IP(src=self.src, dst=self.dst, flags="DF", id=0, ttl=64) /
             UDP(sport=4791, dport=4791) /
             BTH(opcode=0x64, pkey=0xffff, dqpn=1, psn=self.psn) /
             Raw(struct.pack("!II", 0x80010000, 1) + mad))
        self.psn += 1
        self.s.sendto(bytes(p[UDP].payload), (self.dst, 4791))

    def recv(self, attr, secs):
        """The next MAD of attribute attr within secs: (tid, data) or None."""
        end = time.monotonic() + secs
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.s.settimeout(left)
            try:
                pkt = self.s.recv(4096)
            except socket.timeout:
                return None
            mad = pkt[12 + 8:12 + 8 + 256]   # BTH, DETH, then the MAD
            if len(mad) != 256 or mad[1] != 0x07:
                continue
            tid, a = struct.unpack_from("!QH", mad, 8)
            if a == attr:
                return tid, mad[24:]


def small(attr, tid, local, remote, rest=b""):
    body = struct.pack("!II", local, remote) + rest
    return mad_hdr(0x03, attr, tid) + body + bytes(232 - len(body))


def lap(tid, local, remote, qpn):
    # Remote QPN (24 bits) and the remote CM response timeout (5 bits).
    rest = bytes(4) + struct.pack("!I", qpn << 8 | 20 << 3) + bytes(4)
    rest += bytes(4) + bytes(32)            # LIDs 0, alternate GIDs 0
    rest += struct.pack("!IBBBB", 0, 64, 0, 0, 17 << 3)
    return small(A_LAP, tid, local, remote, rest)


def main():
    src, dst, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    p = Peer(src, dst)
    ours = struct.unpack("!I", os.urandom(4))[0] | 1
    p.send(req(src, dst, port, ours, 0x4321))
    got = p.recv(A_REP, 10)
    if not got:
        say(False, "no REP to our REQ")
        return 1
    tid, rep = got
    theirs, = struct.unpack_from("!I", rep, 0)
    their_qpn = struct.unpack_from("!I", rep, 12)[0] >> 8
    say(struct.unpack_from("!I", rep, 4)[0] == ours,
        "REP: comm ID 0x%08x, QPN 0x%06x" % (theirs, their_qpn))
    p.send(small(A_RTU, tid, ours, theirs))
    time.sleep(0.3)

    for n in (1, 2):
        ltid = 0x1a9000000000 + n
        p.send(lap(ltid, ours, theirs, their_qpn))
        got = p.recv(A_APR, 5)
        if not got:
            say(False, "LAP %d: no APR" % n)
            continue
        atid, apr = got
        loc, rem, ilen, status = struct.unpack_from("!IIBB", apr, 0)
        say(atid == ltid and loc == theirs and rem == ours and
            status == 2 and ilen == 0,
            "LAP %d: APR status %d (unsupported), tid 0x%x, IDs 0x%08x/0x%08x"
            % (n, status, atid, loc, rem))
    p.send(lap(0x1a9000000009, ours, theirs, their_qpn ^ 1))
    say(p.recv(A_APR, 1) is None, "LAP naming another QPN: no APR")
    p.send(small(A_APR, 0x1a9000000010, ours, theirs))
    say(p.recv(A_APR, 1) is None, "an APR we were not owed: nothing back")

    p.send(small(A_DREQ, 0x77, ours, theirs, struct.pack("!I", their_qpn << 8)))
    got = p.recv(A_DREP, 5)
    say(got is not None and struct.unpack_from("!I", got[1], 4)[0] == ours,
        "DREQ: DREP, the connection was still there")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
