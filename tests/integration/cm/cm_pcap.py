#!/usr/bin/env python3
"""cm_pcap.py OUT.pcap MAD...: wraps each 256-byte CM MAD file in a RoCEv2
packet (Ethernet, IPv4 10.0.0.1 -> 10.0.0.2, UDP to 4791, BTH UD
SEND_ONLY to QP1, DETH with the GSI Q_Key 0x80010000 from QP1, a zero
ICRC) so Wireshark's InfiniBand dissector decodes it
(tests/integration/cm_mad_tshark.sh)."""
import struct, sys
def csum(b):
    s = sum(struct.unpack('!%dH' % (len(b)//2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
out, mads = sys.argv[1], sys.argv[2:]
f = open(out, 'wb')
f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
for i, p in enumerate(mads):
    mad = open(p, 'rb').read()
    bth = struct.pack('!BBHII', 0x64, 0, 0xffff, 1, i)
    deth = struct.pack('!II', 0x80010000, 1)
    payload = bth + deth + mad + b'\0' * 4
    udp = struct.pack('!HHHH', 49152 + i, 4791, 8 + len(payload), 0) + payload
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), i, 0x4000, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
    pkt = b'\x02\0\0\0\0\x02' + b'\x02\0\0\0\0\x01' + b'\x08\x00' + ip + udp
    f.write(struct.pack('<IIII', i, 0, len(pkt), len(pkt)) + pkt)
