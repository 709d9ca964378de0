#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A raw client of the engine's CM service (providers/soft/pv-soft-cm-abi.h),
for tests that need what no well-behaved program does: dying mid-handshake,
and hostile requests.  Runs inside a pod (PODVERBS_ENGINE names the socket).

  cm_peer.py listen ADDR PORT hold|accept   listen; print events
  cm_peer.py connect SRC DST PORT hold|establish
  cm_peer.py hostile OWN_ADDR OTHER_ADDR    bad requests; exit 0 if all refused
Each line printed is flushed: "LISTENING", "EVENT <type> <status>",
"REQ_SENT", "CONNECTED", "ok <what>", "FAIL <what>".
"""
import array
import errno
import os
import socket
import struct
import sys
import time

MAGIC, VERSION = 0x50564950, 1
OP_HELLO = 1
(OP_CM_OPEN, OP_CM_ID_CREATE, OP_CM_ID_DESTROY, OP_CM_BIND,
 OP_CM_RESOLVE_ADDR, OP_CM_RESOLVE_ROUTE, OP_CM_LISTEN, OP_CM_CONNECT,
 OP_CM_ACCEPT, OP_CM_REJECT, OP_CM_ESTABLISH, OP_CM_DISCONNECT,
 OP_CM_OPTION) = range(64, 77)
PS_TCP = 0x0106
HDR = struct.Struct("<IHHIIiI")
EV_SIZE = 400


def say(*a):
    print(*a, flush=True)


class Conn:
    def __init__(self, prove=True):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.connect(os.environ.get("PODVERBS_ENGINE",
                                      "/run/podverbs/engine.sock"))
        self.seq = 0
        hello = struct.pack("<II24x", VERSION, 1 if prove else 0)
        fds = []
        if prove:
            fds = [os.open("/proc/thread-self/ns/net", os.O_RDONLY)]
        st, _, _ = self.call(OP_HELLO, hello, fds)
        for fd in fds:
            os.close(fd)
        assert st == 0, st
        self.ev = None

    def call(self, op, payload=b"", fds=()):
        self.seq += 1
        msg = HDR.pack(MAGIC, VERSION, op, len(payload), self.seq, 0, 0)
        anc = []
        if fds:
            anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                    array.array("i", fds))]
        self.s.sendmsg([msg + payload], anc)
        while True:
            data, anc, _, _ = self.s.recvmsg(65536, socket.CMSG_SPACE(16))
            got = []
            for lvl, typ, d in anc:
                if lvl == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                    a = array.array("i")
                    a.frombytes(d[:len(d) - len(d) % 4])
                    got += list(a)
            _, _, rop, ln, seq, status, _ = HDR.unpack_from(data)
            if seq == self.seq:
                return status, data[HDR.size:HDR.size + ln], got

    def open_cm(self):
        st, _, fds = self.call(OP_CM_OPEN)
        if st == 0:
            self.ev = socket.socket(fileno=fds[0])
        return st

    def id_create(self, ps=PS_TCP, qpt=2):
        st, out, _ = self.call(OP_CM_ID_CREATE, struct.pack("<IIQ", ps, qpt, 7))
        return st, (struct.unpack_from("<I", out)[0] if st == 0 else 0)

    def ref(self, op, i, arg=0, arg2=0):
        return self.call(op, struct.pack("<IIII", i, arg, arg2, 0))[0]

    def addr_req(self, op, i, src, dst=None):
        return self.call(op, struct.pack("<II", i, 0) + src + (dst or addr(None)))[0]

    def conn_req(self, op, i, qpn=0x1234, pdata=b"", plen=None):
        plen = len(pdata) if plen is None else plen
        p = struct.pack("<IIBBBBBBBBI", qpn, 0x42, 1, 1, 0, 7, 7, 0, plen, 0, 0)
        return self.call(op, struct.pack("<I", i) + p + pdata.ljust(196, b"\0"))[0]

    def event(self, timeout=10):
        self.ev.settimeout(timeout)
        d = self.ev.recv(EV_SIZE)
        typ, status, i, lid = struct.unpack_from("<IiII", d)
        return typ, status, i, lid


def addr(ip, port=0):
    if ip is None:
        return bytes(24)
    a = bytes(10) + b"\xff\xff" + socket.inet_aton(ip)
    return struct.pack("<HHI", socket.AF_INET, socket.htons(port), 0) + a


def listen(a, port, mode):
    c = Conn()
    assert c.open_cm() == 0
    st, i = c.id_create()
    assert c.addr_req(OP_CM_BIND, i, addr(a, port)) == 0
    assert c.ref(OP_CM_LISTEN, i, 8) == 0
    say("LISTENING")
    while True:
        try:
            typ, status, nid, _ = c.event(30)
        except socket.timeout:
            return
        say("EVENT", typ, status)
        if typ == 4 and mode == "accept":
            say("ACCEPT", c.conn_req(OP_CM_ACCEPT, nid, qpn=0x5678))


def connect(src, dst, port, mode):
    c = Conn()
    assert c.open_cm() == 0
    st, i = c.id_create()
    assert c.addr_req(OP_CM_RESOLVE_ADDR, i, addr(src), addr(dst, port)) == 0
    assert c.event()[0] == 0
    assert c.ref(OP_CM_RESOLVE_ROUTE, i) == 0
    assert c.event()[0] == 2
    assert c.conn_req(OP_CM_CONNECT, i, pdata=b"hello") == 0
    say("REQ_SENT")
    if mode == "establish":
        typ, status, _, _ = c.event()
        say("EVENT", typ, status)
        if typ == 5 and c.ref(OP_CM_ESTABLISH, i) == 0:
            say("CONNECTED")
    time.sleep(60)


def hostile(own, other):
    bad = 0

    def expect(what, got, want):
        nonlocal bad
        if got == -want:
            say("ok", what, "->", errno.errorcode[want])
        else:
            bad += 1
            say("FAIL", what, "got", got, "want", -want)

    c = Conn()
    expect("ID_CREATE before CM_OPEN", c.id_create()[0], errno.EINVAL)
    assert c.open_cm() == 0
    expect("second CM_OPEN", c.open_cm(), errno.EBUSY)
    expect("port space 0x3f", c.id_create(ps=0x3f)[0], errno.EPROTONOSUPPORT)
    expect("destroy unknown id", c.ref(OP_CM_ID_DESTROY, 0x12345), errno.EINVAL)
    st, i = c.id_create()
    expect("bind another pod's address",
           c.addr_req(OP_CM_BIND, i, addr(other, 7100)), errno.EADDRNOTAVAIL)
    assert c.addr_req(OP_CM_BIND, i, addr(own, 7100)) == 0
    st, j = c.id_create()
    expect("bind a port in use", c.addr_req(OP_CM_BIND, j, addr(own, 7100)),
           errno.EADDRINUSE)
    st, k = c.id_create()
    expect("wildcard over a bound port",
           c.addr_req(OP_CM_BIND, k, addr("0.0.0.0", 7100)), errno.EADDRINUSE)
    expect("connect before route", c.conn_req(OP_CM_CONNECT, j), errno.EINVAL)
    expect("accept without a request", c.conn_req(OP_CM_ACCEPT, i),
           errno.EINVAL)
    expect("ack timeout 99", c.ref(OP_CM_OPTION, i, 4, 99), errno.EINVAL)
    # Another connection's id: handles are per connection.
    c2 = Conn()
    assert c2.open_cm() == 0
    expect("another connection's id", c2.ref(OP_CM_LISTEN, i, 1), errno.EINVAL)
    # Private data over the REQ's 56 bytes.
    st, m = c2.id_create()
    assert c2.addr_req(OP_CM_RESOLVE_ADDR, m, addr(own), addr(own, 7100)) == 0
    assert c2.event()[0] == 0
    assert c2.ref(OP_CM_RESOLVE_ROUTE, m) == 0
    assert c2.event()[0] == 2
    expect("REQ private data 57 bytes",
           c2.conn_req(OP_CM_CONNECT, m, pdata=bytes(57)), errno.EINVAL)
    expect("REQ private data length 255",
           c2.conn_req(OP_CM_CONNECT, m, plen=255), errno.EINVAL)
    # Wrong request size: the framing refuses it before the handler.
    st, _, _ = c2.call(OP_CM_LISTEN, b"\1\0\0")
    expect("short CM_LISTEN", st, errno.EINVAL)
    # An unproven connection gets no CM channel.
    c3 = Conn(prove=False)
    expect("CM_OPEN unproven", c3.open_cm(), errno.EPERM)
    return 1 if bad else 0


def main():
    m = sys.argv[1]
    if m == "listen":
        listen(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif m == "connect":
        connect(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif m == "hostile":
        sys.exit(hostile(sys.argv[2], sys.argv[3]))


main()
