#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Datagram rsockets through ctypes over the librdmacm.so.1 that
LD_LIBRARY_PATH finds (ours): two SOCK_DGRAM rsockets of one pod talk
to each other.

  rsocket_dgram_peer.py IP   (IP: the pod's own address)

Checks SO_TYPE, a non-blocking rrecvfrom's EAGAIN, rpoll with nothing
and with a datagram there, rselect over an rsocket and a pipe, that
every datagram arrives intact and once with its sender's address (the
first over UDP, the rest over UD), rrecvmsg's MSG_TRUNC, EMSGSIZE past
2040 bytes, and rclose with datagrams still queued.  Prints what it saw;
exits 0 when every check held."""
import ctypes
import errno
import os
import select
import socket
import struct
import sys

LIB = ctypes.CDLL("librdmacm.so.1", use_errno=True)
LIB.rsendto.restype = ctypes.c_ssize_t
LIB.rsendto.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                        ctypes.c_int, ctypes.c_void_p, ctypes.c_uint]
LIB.rrecvfrom.restype = ctypes.c_ssize_t
LIB.rrecvfrom.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                          ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
MSG_DONTWAIT = 0x40
MSG_TRUNC = 0x20
O_NONBLOCK = os.O_NONBLOCK
F_SETFL = 4
SOL_SOCKET = 1
SO_TYPE = 3
FAILS = []


class PollFd(ctypes.Structure):
    _fields_ = [("fd", ctypes.c_int), ("events", ctypes.c_short),
                ("revents", ctypes.c_short)]


def sockaddr(ip, port):
    raw = struct.pack("=H", socket.AF_INET) + struct.pack("!H", port) + \
        socket.inet_aton(ip) + bytes(8)
    return ctypes.create_string_buffer(raw, len(raw))


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


def err():
    e = ctypes.get_errno()
    return errno.errorcode.get(e, str(e))


def dgram(ip, port):
    s = LIB.rsocket(socket.AF_INET, socket.SOCK_DGRAM, 0)
    if s < 0:
        sys.exit("rsocket(SOCK_DGRAM): " + err())
    a = sockaddr(ip, port)
    if LIB.rbind(s, a, len(a)) < 0:
        sys.exit("rbind: " + err())
    return s, a


def recvfrom(s, n=4096, flags=0):
    buf = ctypes.create_string_buffer(n)
    src = ctypes.create_string_buffer(128)
    sl = ctypes.c_uint(128)
    r = LIB.rrecvfrom(s, buf, n, flags, src, ctypes.byref(sl))
    if r < 0:
        return r, None, None
    port = struct.unpack("!H", src.raw[2:4])[0]
    ip = socket.inet_ntoa(src.raw[4:8])
    return r, buf.raw[:min(r, n)], (ip, port)


def rpoll(s, ev, ms):
    p = PollFd(s, ev, 0)
    n = LIB.rpoll(ctypes.byref(p), 1, ms)
    return n, p.revents


def main():
    ip = sys.argv[1]
    r1, a1 = dgram(ip, 7190)
    r2, a2 = dgram(ip, 7191)
    v = ctypes.c_int(0)
    vl = ctypes.c_uint(4)
    LIB.rgetsockopt(r1, SOL_SOCKET, SO_TYPE, ctypes.byref(v), ctypes.byref(vl))
    expect(v.value == socket.SOCK_DGRAM, "SO_TYPE is SOCK_DGRAM (%d)" % v.value)
    LIB.rfcntl(r1, F_SETFL, O_NONBLOCK)
    n, _, _ = recvfrom(r1)
    expect(n < 0 and ctypes.get_errno() == errno.EAGAIN,
           "non-blocking rrecvfrom with nothing there: EAGAIN")
    expect(rpoll(r1, select.POLLIN, 0)[0] == 0, "rpoll, nothing there: 0 ready")
    # 20 datagrams r2 -> r1: the first travels over UDP (r2 does not know
    # r1's QPN yet), r1's answer teaches it, the rest go over UD.
    got = []
    for i in range(20):
        msg = bytes([i]) * (100 + i)
        if LIB.rsendto(r2, msg, len(msg), 0, a1, len(a1)) != len(msg):
            expect(False, "rsendto %d: %s" % (i, err()))
            break
        n, re = rpoll(r1, select.POLLIN, 3000)
        if n != 1 or not re & select.POLLIN:
            expect(False, "rpoll for datagram %d: %d" % (i, n))
            break
        n, data, src = recvfrom(r1)
        got.append((data == msg, src))
        # r1 answers each: r2's UDP socket reads r1's CTRL on the way.
        LIB.rsendto(r1, b"ack", 3, 0, a2, len(a2))
        recvfrom(r2, 16, 0)
    expect(len(got) == 20 and all(g[0] for g in got),
           "20 datagrams intact, one each (%d)" % len(got))
    expect(all(g[1] == (ip, 7191) for g in got),
           "each from the sender's address %s" % (got[0][1] if got else None,))
    # rselect over r1 and a pipe: only the one written wakes.
    rp, wp = os.pipe()
    os.write(wp, b"x")
    rs = (ctypes.c_ulong * 16)()
    for fd in (r1, rp):
        rs[fd // 64] |= 1 << (fd % 64)
    tv = (ctypes.c_long * 2)(1, 0)
    n = LIB.rselect(max(r1, rp) + 1, rs, None, None, tv)
    pipe_set = bool(rs[rp // 64] & (1 << (rp % 64)))
    r1_set = bool(rs[r1 // 64] & (1 << (r1 % 64)))
    expect(n == 1 and pipe_set and not r1_set,
           "rselect: the pipe ready, the rsocket not (%d)" % n)
    # A datagram longer than the buffer: MSG_TRUNC gives its length.
    big = b"z" * 900
    LIB.rsendto(r2, big, len(big), 0, a1, len(a1))
    rpoll(r1, select.POLLIN, 3000)
    n, data, _ = recvfrom(r1, 100, MSG_TRUNC)
    expect(n == 900 and data == b"z" * 100,
           "MSG_TRUNC: a 900-byte datagram into 100 bytes says 900 (%d)" % n)
    n = LIB.rsendto(r2, b"q" * 2041, 2041, 0, a1, len(a1))
    expect(n < 0 and ctypes.get_errno() == errno.EMSGSIZE,
           "2041 bytes: EMSGSIZE (%s)" % (err() if n < 0 else n))
    n = LIB.rsendto(r2, b"q" * 2040, 2040, 0, a1, len(a1))
    expect(n == 2040, "2040 bytes (past the MTU: over UDP) sent (%d)" % n)
    n, re = rpoll(r1, select.POLLIN, 3000)
    n, data, _ = recvfrom(r1)
    expect(n == 2040 and data == b"q" * 2040, "2040 bytes arrive intact (%d)" % n)
    # rclose with datagrams queued at r1 and just sent by r2.
    for i in range(5):
        LIB.rsendto(r2, b"p", 1, 0, a1, len(a1))
    rpoll(r1, select.POLLIN, 3000)
    expect(LIB.rclose(r1) == 0, "rclose with datagrams pending: 0")
    expect(LIB.rclose(r2) == 0, "rclose of the sender: 0")
    print("PASS" if not FAILS else "FAILED: %d" % len(FAILS))
    sys.exit(1 if FAILS else 0)


main()
