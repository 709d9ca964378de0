#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Prints the ICRC test vectors of test_eng_wire_icrc.c (run by hand; the
output is checked in).  IPv4 ICRCs by python3-scapy's RoCE layer, IPv6
ones by tests/lib/roce_check.py's zlib computation (scapy has none)."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../lib"))
from scapy.all import IP, IPv6, UDP, Raw, raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402
import roce_check  # noqa: E402


def v4(name, bth, ext, payload, **ip):
    pkt = IP(src="10.1.2.3", dst="10.4.5.6", **ip) / \
        UDP(sport=49152, dport=4791) / (bth / Raw(ext + payload))
    return name, raw(pkt)


def v6(name, bth, ext, payload, **ip):
    bth.icrc = 0                  # scapy would warn: no IPv6 ICRC
    pkt = IPv6(src="fd00::1:2", dst="fd00::3:4", **ip) / \
        UDP(sport=50000, dport=4791) / (bth / Raw(ext + payload))
    b = bytearray(raw(pkt))
    icrc = roce_check.icrc_ipv6(bytes(b[:40]), bytes(b[40:48]), bytes(b[48:]))
    b[-4:] = struct.pack("<I", icrc)
    return name, bytes(b)


reth = struct.pack("!QII", 0x7f1234560000, 0x1234abcd, 3)
aeth = struct.pack("!I", 0x1f000042)
atm = struct.pack("!QIQQ", 0x7f0000001000, 0xabcdef01, 5, 0)
deth = struct.pack("!II", 0x11111111, 0x000123)
vecs = [
    v4("v4_send_only_pad1", BTH(opcode=0x04, padcount=1, dqpn=0x11, psn=7,
                                ackreq=1), b"", b"abc\0", tos=0x02, ttl=64,
       id=0x1234),
    v4("v4_write_only_pad3_ecn", BTH(opcode=0x0a, padcount=3, dqpn=0xabcdef,
                                     psn=0xffffff, fecn=1, becn=1),
       reth, b"x\0\0\0", tos=0xbb, ttl=3),
    v4("v4_ack", BTH(opcode=0x11, dqpn=0x22, psn=0x100, pkey=0x8001),
       aeth, b"", ttl=255),
    v4("v4_cmp_swap", BTH(opcode=0x13, dqpn=0x33, psn=0x123456), atm, b""),
    v4("v4_ud_send_imm", BTH(opcode=0x65, dqpn=0x44, psn=1, solicited=1),
       deth + b"\xca\xfe\xf0\x0d", bytes(range(64))),
    v6("v6_read_resp_middle", BTH(opcode=0x0e, dqpn=0x55, psn=0x800000),
       b"", bytes(range(256)) * 4, tc=0x68, fl=0xabcde, hlim=17),
    v6("v6_uc_write_last_imm", BTH(opcode=0x29, padcount=2, dqpn=0x66, psn=9),
       b"\x01\x02\x03\x04", b"hi\0\0"),
    v6("v6_ack_nak", BTH(opcode=0x11, dqpn=0x77, psn=0x42), b"\x60\x00\x00\x05",
       b""),
]
for name, b in vecs:
    print("static const uint8_t %s[] = {" % name)
    for i in range(0, len(b), 12):
        print("\t" + ", ".join("0x%02x" % x for x in b[i:i + 12]) + ",")
    print("};")
print("static const struct icrc_vec vecs[] = {")
for name, b in vecs:
    print('\t{ "%s", %s, sizeof(%s), %d },' % (name, name, name,
                                                  40 if name[1] == "6" else 20))
print("};")
