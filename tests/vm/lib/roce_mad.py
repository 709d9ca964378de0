#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""RoCEv2 by hand, for the vm tier (scapy; run on the VM's node).

  roce_mad.py get IFACE DST_MAC SRC_IP DST_IP
      sends a UD SEND_ONLY to QP1 (the GSI) carrying a MAD Get of the
      Performance Management class's ClassPortInfo, waits for the reply
      and checks it: UD SEND_ONLY back to our QP from QP1, the GSI Q_Key,
      a GetResp MAD of the same class and transaction id, a correct ICRC.
  roce_mad.py icrc PCAP
      recomputes the ICRC of every RoCEv2 packet in PCAP (scapy's own
      implementation, independent of the sender's); fails on a mismatch
      or when there is none.
IBTA Vol. 1: BTH 9.2, DETH 9.3.2, MAD common header 13.4.3, GSI Q_Key
0x80010000 (QP1) 13.5.1; Annex A17 (RoCEv2): UDP port 4791, ICRC A17.6.
"""
import random
import struct
import sys
import threading

from scapy.all import AsyncSniffer, Ether, IP, UDP, Raw, conf, get_if_hwaddr, rdpcap, sendp
from scapy.contrib.roce import BTH

conf.verb = 0
ROCE_PORT = 4791
OP_UD_SEND_ONLY = 0x64
GSI_QKEY = 0x80010000
CLASS_PERF = 0x04
METHOD_GET, METHOD_GET_RESP = 0x01, 0x81
ATTR_CLASS_PORT_INFO = 0x0001
OUR_QPN = 0x000042
MAD_LEN = 256


def mad_get(tid):
    hdr = struct.pack("!BBBBHHQHHI", 1, CLASS_PERF, 1, METHOD_GET, 0, 0,
                      tid, ATTR_CLASS_PORT_INFO, 0, 0)
    return hdr + bytes(MAD_LEN - len(hdr))


def icrc_ok(pkt):
    """The ICRC as carried, and as scapy computes it over the same bytes."""
    ip = pkt[IP].copy()
    got = ip[BTH].icrc
    ip[BTH].icrc = None
    want = int.from_bytes(bytes(ip)[-4:], "big")
    return got == want, got, want


def describe(pkt):
    b = pkt[BTH]
    s = (f"{pkt[IP].src}:{pkt[UDP].sport} -> {pkt[IP].dst}:{pkt[UDP].dport}"
         f" op=0x{b.opcode:02x} dqpn=0x{b.dqpn:06x} psn={b.psn}")
    pay = bytes(b.payload)
    if b.opcode == OP_UD_SEND_ONLY and len(pay) >= 8 + 24:
        qkey, sqp = struct.unpack("!I4s", pay[:8])
        bv, cls, cv, meth, st, _, tid, attr = struct.unpack("!BBBBHHQH", pay[8:26])
        s += (f" qkey=0x{qkey:08x} srcqp=0x{int.from_bytes(sqp[1:], 'big'):06x}"
              f" mad(class=0x{cls:02x} method=0x{meth:02x} status=0x{st:04x}"
              f" tid=0x{tid:016x} attr=0x{attr:04x})")
    ok, got, want = icrc_ok(pkt)
    return s + f" icrc=0x{got:08x} {'ok' if ok else 'BAD (want 0x%08x)' % want}"


def check_reply(pkt, tid):
    b = pkt[BTH]
    pay = bytes(b.payload)
    if b.opcode != OP_UD_SEND_ONLY or b.dqpn != OUR_QPN:
        return "not a UD SEND_ONLY to our QP"
    if len(pay) < 8 + MAD_LEN:
        return f"payload of {len(pay)} bytes, want DETH + a {MAD_LEN}-byte MAD"
    qkey, sqp = struct.unpack("!I4s", pay[:8])
    _, cls, _, meth, _, _, rtid, attr = struct.unpack("!BBBBHHQH", pay[8:26])
    if int.from_bytes(sqp[1:], "big") != 1 or qkey != GSI_QKEY:
        return "not from QP1 with the GSI Q_Key"
    if (cls, meth, rtid, attr) != (CLASS_PERF, METHOD_GET_RESP, tid, ATTR_CLASS_PORT_INFO):
        return "not the GetResp(ClassPortInfo) of our transaction"
    if not icrc_ok(pkt)[0]:
        return "bad ICRC"
    return None


def cmd_get(iface, dst_mac, src, dst):
    tid = random.getrandbits(32) << 16 | 0x5056
    req = (Ether(src=get_if_hwaddr(iface), dst=dst_mac) /
           IP(src=src, dst=dst, flags="DF") / UDP(sport=0xC0DE, dport=ROCE_PORT) /
           BTH(opcode=OP_UD_SEND_ONLY, dqpn=1, psn=1) /
           Raw(struct.pack("!II", GSI_QKEY, OUR_QPN) + mad_get(tid)))
    # The reply can come before a lazily started sniffer listens: send only
    # once its socket is open.
    up = threading.Event()
    sn = AsyncSniffer(iface=iface, filter=f"udp dst port {ROCE_PORT} and src host {dst}",
                      started_callback=up.set)
    sn.start()
    if not up.wait(10):
        print("the sniffer did not start")
        return 1
    sendp(req, iface=iface)
    print("sent:", describe(req[IP].__class__(bytes(req[IP]))), flush=True)
    for _ in range(100):
        sn.join(timeout=0.1)
        if any(p.haslayer(BTH) and check_reply(p, tid) is None for p in sn.results or []):
            break
    sn.stop()
    replies = [p for p in sn.results if p.haslayer(BTH)]
    for p in replies:
        why = check_reply(p, tid)
        print("reply:", describe(p), "->", why or "valid")
    if not any(check_reply(p, tid) is None for p in replies):
        print(f"no valid GetResp from {dst} within 10 s ({len(replies)} RoCE packets)")
        return 1
    return 0


def cmd_icrc(path):
    n = bad = 0
    for p in rdpcap(path):
        if p.haslayer(UDP) and p[UDP].dport == ROCE_PORT and p.haslayer(BTH):
            n += 1
            print(describe(p))
            bad += not icrc_ok(p)[0]
    print(f"{n} RoCEv2 packets, {bad} with a bad ICRC")
    return 0 if n and not bad else 1


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "get":
        sys.exit(cmd_get(*sys.argv[2:]))
    if len(sys.argv) == 3 and sys.argv[1] == "icrc":
        sys.exit(cmd_icrc(sys.argv[2]))
    sys.exit(__doc__)
