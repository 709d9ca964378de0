#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks every RoCEv2 packet of a capture, independently of our C code.

usage: roce_check.py [--min N] [--expect-bad N] CAPTURE.pcap

A RoCEv2 packet is a UDP datagram to port 4791 over IPv4 or IPv6.  Each
one must decode (BTH version 0, a known RC/UC/UD/XRC opcode, the opcode's
extension headers, pad and ICRC present, payload + pad whole words) and
carry the right ICRC (IBTA Annex A17.3.3).  IPv4 ICRCs are recomputed by
python3-scapy's own RoCE layer (scapy.contrib.roce); scapy has no IPv6
ICRC, so those are recomputed here with zlib's CRC-32 over the masked
pseudo-header.  Prints the counts; exits 0 only if every RoCE packet is
good and there were at least N of them (default 1), or, with
--expect-bad, exactly that many bad ones (for tests that corrupt on
purpose).
"""
import struct
import sys
import zlib

try:
    from scapy.all import rdpcap, IP, IPv6, UDP
    from scapy.contrib.roce import BTH
except ImportError as e:  # the caller maps this to a skip
    print("SKIP: python3-scapy is not installed (%s)" % e)
    sys.exit(77)

ROCE_PORT = 4791

# Extension header bytes after the 12-byte BTH, by opcode (IBA 9.3), and
# whether the opcode may carry payload.  Written from the spec's opcode
# list, not from eng_wire_opcode.c.
_SEND, _WRITE = 0, 6
HDRS = {}
for base in (0x00, 0x20):
    for off in range(6):                 # SEND FIRST..ONLY_WITH_IMMEDIATE
        HDRS[base + off] = (4 if off in (3, 5) else 0, True)
    for off in range(6):                 # RDMA WRITE FIRST..ONLY_WITH_IMM
        ext = {0: 16, 3: 4, 4: 16, 5: 20}.get(off, 0)
        HDRS[base + 6 + off] = (ext, True)
HDRS.update({
    0x0c: (16, False),                   # READ REQUEST: RETH
    0x0d: (4, True), 0x0e: (0, True),    # READ RESPONSE FIRST/MIDDLE
    0x0f: (4, True), 0x10: (4, True),    # READ RESPONSE LAST/ONLY: AETH
    0x11: (4, False),                    # ACK: AETH
    0x12: (12, False),                   # ATOMIC ACK: AETH, AtomicAckETH
    0x13: (28, False), 0x14: (28, False),  # CMP_SWAP, FETCH_ADD: AtomicETH
    0x16: (4, True), 0x17: (4, True),    # SEND LAST/ONLY with invalidate
    0x64: (8, True), 0x65: (12, True),   # UD SEND ONLY (+imm): DETH
})
# XRC (transport 101, IBA 19.2.5.2): RC's opcodes at 0xa0; its requests
# carry the 4-byte XRCETH after the BTH, its responses do not.
_XRC_RESPONSES = {0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12}
for rc_op in [op for op in HDRS if op < 0x20]:
    ext, payload = HDRS[rc_op]
    HDRS[0xa0 + rc_op] = (ext + (0 if rc_op in _XRC_RESPONSES else 4),
                          payload)
# FIRST and MIDDLE packets are never padded (IBA 9.2).
UNPADDED = {0x00, 0x01, 0x06, 0x07, 0x0d, 0x0e, 0x20, 0x21, 0x26, 0x27,
            0xa0, 0xa1, 0xa6, 0xa7, 0xad, 0xae}


def icrc_ipv6(ip6, udp, roce):
    """ICRC of a RoCEv2 packet over IPv6: ip6 the 40-byte header, udp the
    8-byte UDP header, roce the UDP payload (BTH .. ICRC)."""
    ip6 = bytearray(ip6)
    ip6[0] |= 0x0f                       # traffic class, flow label
    ip6[1:4] = b"\xff\xff\xff"
    ip6[7] = 0xff                        # hop limit
    udp = bytearray(udp)
    udp[6:8] = b"\xff\xff"
    bth = bytearray(roce[:12])
    bth[4] = 0xff                        # FECN, BECN, resv6
    data = b"\xff" * 8 + bytes(ip6) + bytes(udp) + bytes(bth) + roce[12:-4]
    return zlib.crc32(data) & 0xffffffff


def check_layout(roce):
    """None if the UDP payload decodes, else why not."""
    if len(roce) < 16:
        return "shorter than BTH + ICRC"
    op, b1 = roce[0], roce[1]
    if b1 & 0x0f:
        return "TVer %d" % (b1 & 0x0f)
    if op not in HDRS:
        return "opcode 0x%02x" % op
    ext, payload = HDRS[op]
    pad = (b1 >> 4) & 3
    rest = len(roce) - 12 - ext - 4
    if rest < pad:
        return "truncated (opcode 0x%02x)" % op
    if rest and not payload:
        return "payload on opcode 0x%02x" % op
    if rest % 4:
        return "payload + pad not whole words"
    if pad and op in UNPADDED:
        return "pad on a FIRST/MIDDLE"
    return None


def check(path, min_pkts, expect_bad):
    counts = {"frames": 0, "roce": 0, "v4": 0, "v6": 0, "bad_icrc": 0,
              "malformed": 0}
    for n, pkt in enumerate(rdpcap(path), 1):
        counts["frames"] += 1
        if not pkt.haslayer(UDP) or pkt[UDP].dport != ROCE_PORT:
            continue
        counts["roce"] += 1
        udp = pkt[UDP]
        roce = bytes(udp.payload)
        why = check_layout(roce)
        if why:
            counts["malformed"] += 1
            print("frame %d: malformed: %s" % (n, why))
            continue
        stored = roce[-4:]
        if pkt.haslayer(IP) and pkt[IP].payload is udp:
            counts["v4"] += 1
            # scapy's own RoCE layer computes it (little-endian bytes).
            want = pkt[BTH].compute_icrc(None)
        elif pkt.haslayer(IPv6):
            counts["v6"] += 1
            ip6 = bytes(pkt[IPv6])[:40]
            want = struct.pack("<I", icrc_ipv6(ip6, bytes(udp)[:8], roce))
        else:
            counts["malformed"] += 1
            print("frame %d: RoCE port without IP" % n)
            continue
        if stored != want:
            counts["bad_icrc"] += 1
            print("frame %d: ICRC %s, want %s" % (n, stored.hex(), want.hex()))
    bad = counts["bad_icrc"] + counts["malformed"]
    print("roce_check: %(frames)d frames, %(roce)d RoCEv2 (IPv4 %(v4)d, "
          "IPv6 %(v6)d), %(bad_icrc)d bad ICRC, %(malformed)d malformed"
          % counts)
    if expect_bad is not None:
        return 0 if bad == expect_bad and counts["roce"] >= min_pkts else 1
    return 0 if bad == 0 and counts["roce"] >= min_pkts else 1


def main(argv):
    min_pkts, expect_bad, args = 1, None, []
    it = iter(argv)
    for a in it:
        if a == "--min":
            min_pkts = int(next(it))
        elif a == "--expect-bad":
            expect_bad = int(next(it))
        else:
            args.append(a)
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    return check(args[0], min_pkts, expect_bad)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
