#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One side of an rsocket failure-mode case, over the librdmacm.so.1
that LD_LIBRARY_PATH finds (ours), through ctypes: no build step, and
the calls are exactly what a C program makes.

  rsocket_peer.py stall-server IP PORT   accept, read nothing for 3 s,
                                         then read all and check it
  rsocket_peer.py stall-client IP PORT   non-blocking sends until EAGAIN,
                                         wait, then send the rest
  rsocket_peer.py half-server IP PORT    read to EOF, then answer
  rsocket_peer.py half-client IP PORT    send, rshutdown(SHUT_WR), read
                                         the answer after it
  rsocket_peer.py poll-server IP PORT    accept, wait 1 s, send 100 bytes
  rsocket_peer.py poll-client IP PORT    rpoll and rselect over the rsocket
                                         and a pipe: each wakes for the
                                         right one (keep-alives on, 1 s)
RS_PEER_KEEPALIVE=1 turns keep-alives on (every 1 s) on each connected
rsocket.  Prints what it saw; exits 0 when the case held."""
import ctypes
import errno
import hashlib
import os
import socket
import struct
import sys
import time

LIB = ctypes.CDLL("librdmacm.so.1", use_errno=True)
for name in ("rsocket", "rbind", "rlisten", "raccept", "rconnect",
             "rshutdown", "rclose", "rpoll", "rselect"):
    getattr(LIB, name).restype = ctypes.c_int
LIB.rsend.restype = ctypes.c_ssize_t
LIB.rrecv.restype = ctypes.c_ssize_t
LIB.rsend.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                      ctypes.c_int]
LIB.rrecv.argtypes = LIB.rsend.argtypes

MSG_DONTWAIT = 0x40
TOTAL = 4 << 20          # the stalled case: 4 MiB, far over the buffers
HALF = 300000            # the half-close case


def sockaddr(ip, port):
    raw = struct.pack("=H", socket.AF_INET) + struct.pack("!H", port) + \
        socket.inet_aton(ip) + bytes(8)
    return ctypes.create_string_buffer(raw, len(raw))


def check(ret, what):
    if ret < 0:
        e = ctypes.get_errno()
        sys.exit("%s: %s" % (what, errno.errorcode.get(e, e)))
    return ret


def pattern(n, seed=0):
    return bytes((i * 7 + seed) & 0xFF for i in range(n))


def keepalive_if_asked(s):
    """The connected rsocket S, with keep-alives on if RS_PEER_KEEPALIVE=1."""
    if os.environ.get("RS_PEER_KEEPALIVE") == "1":
        keepalive_on(s)
    return s


def listen_accept(ip, port):
    l = check(LIB.rsocket(socket.AF_INET, socket.SOCK_STREAM, 0), "rsocket")
    sa = sockaddr(ip, port)
    check(LIB.rbind(l, sa, len(sa)), "rbind")
    check(LIB.rlisten(l, 1), "rlisten")
    print("listening", flush=True)
    s = check(LIB.raccept(l, None, None), "raccept")
    return l, keepalive_if_asked(s)


def connect(ip, port):
    s = check(LIB.rsocket(socket.AF_INET, socket.SOCK_STREAM, 0), "rsocket")
    sa = sockaddr(ip, port)
    check(LIB.rconnect(s, sa, len(sa)), "rconnect")
    return keepalive_if_asked(s)


def recv_all(s, limit):
    got = bytearray()
    buf = ctypes.create_string_buffer(65536)
    while len(got) < limit:
        n = check(LIB.rrecv(s, buf, 65536, 0), "rrecv")
        if n == 0:
            break
        got += buf.raw[:n]
    return bytes(got)


def send_all(s, data, flags=0):
    off = 0
    while off < len(data):
        chunk = data[off:off + 65536]
        n = LIB.rsend(s, chunk, len(chunk), flags)
        if n < 0:
            return off, ctypes.get_errno()
        off += n
    return off, 0


def stall_server(ip, port):
    want = hashlib.sha256(pattern(TOTAL)).digest()
    l, s = listen_accept(ip, port)
    print("server: accepted, sleeping 3 s", flush=True)
    time.sleep(3)
    got = recv_all(s, TOTAL)
    ok = hashlib.sha256(got).digest() == want
    print("server read %d bytes, %s" % (len(got), "intact" if ok else "CORRUPT"))
    LIB.rclose(s)
    LIB.rclose(l)
    return 0 if ok and len(got) == TOTAL else 1


def stall_client(ip, port):
    global T0
    data = pattern(TOTAL)       # before connecting: the reader sleeps 3 s
    s = connect(ip, port)
    T0 = time.time()
    sent, err = send_all(s, data, MSG_DONTWAIT)
    if err != errno.EAGAIN or sent >= TOTAL:
        print("client: %d bytes went before the reader read (err %s)"
              % (sent, err))
        return 1
    print("client: EAGAIN after %d bytes while the reader slept (%.2f s after connect)" % (sent, time.time() - T0))
    more, err = send_all(s, data[sent:], MSG_DONTWAIT)
    if err != errno.EAGAIN:
        print("client: a second try sent %d more (err %s)" % (more, err))
        return 1
    rest, err = send_all(s, data[sent + more:])   # blocking: resumes
    if err:
        print("client: blocking send failed: %s" % errno.errorcode[err])
        return 1
    print("client: blocking send resumed, %d bytes in all"
          % (sent + more + rest))
    buf = ctypes.create_string_buffer(16)
    n = LIB.rrecv(s, buf, 16, 0)                   # the server's close
    LIB.rclose(s)
    return 0 if n == 0 else 1


def half_server(ip, port):
    l, s = listen_accept(ip, port)
    got = recv_all(s, HALF + 1)
    ok = got == pattern(HALF)
    print("server: %d bytes then end of stream, %s"
          % (len(got), "intact" if ok else "CORRUPT"))
    reply = pattern(5000, 3)
    sent, err = send_all(s, reply)
    print("server: answered %d bytes after the peer's SHUT_WR (err %s)"
          % (sent, err))
    LIB.rclose(s)
    LIB.rclose(l)
    return 0 if ok and sent == len(reply) and not err else 1


def half_client(ip, port):
    s = connect(ip, port)
    sent, err = send_all(s, pattern(HALF))
    if err:
        return 1
    check(LIB.rshutdown(s, socket.SHUT_WR), "rshutdown")
    n = LIB.rsend(s, b"x", 1, 0)
    e = ctypes.get_errno()
    print("client: send after SHUT_WR: %d (%s)"
          % (n, errno.errorcode.get(e, e)))
    got = recv_all(s, 5001)
    ok = got == pattern(5000, 3)
    print("client: read the answer after SHUT_WR: %d bytes, %s"
          % (len(got), "intact" if ok else "CORRUPT"))
    LIB.rclose(s)
    # Ours refuses with EPIPE, as TCP does.  rdma-core's rsend still
    # sends while it has credits (the vm tier's interop case runs this
    # over Debian's library with RS_PEER_SEND_AFTER_SHUT_WR=any).
    refused = n == -1 and e == errno.EPIPE
    if os.environ.get("RS_PEER_SEND_AFTER_SHUT_WR") == "any":
        refused = True
    return 0 if ok and refused else 1


class PollFd(ctypes.Structure):
    _fields_ = [("fd", ctypes.c_int), ("events", ctypes.c_short),
                ("revents", ctypes.c_short)]


POLLIN = 1


def rpoll(fds, ms):
    arr = (PollFd * len(fds))(*[PollFd(f, POLLIN, 0) for f in fds])
    n = LIB.rpoll(arr, len(fds), ms)
    return n, [a.revents & POLLIN for a in arr]


def rselect_readable(fds, ms):
    words = 1024 // 64
    bits = (ctypes.c_ulong * words)()
    for f in fds:
        bits[f // 64] |= 1 << (f % 64)

    class Timeval(ctypes.Structure):
        _fields_ = [("s", ctypes.c_long), ("us", ctypes.c_long)]
    tv = Timeval(ms // 1000, (ms % 1000) * 1000)
    n = LIB.rselect(max(fds) + 1, ctypes.byref(bits), None, None,
                    ctypes.byref(tv))
    return n, [bool(bits[f // 64] & (1 << (f % 64))) for f in fds]


def poll_server(ip, port):
    l, s = listen_accept(ip, port)
    time.sleep(1)
    sent, err = send_all(s, pattern(100))
    buf = ctypes.create_string_buffer(16)
    LIB.rrecv(s, buf, 16, 0)          # until the client closes
    LIB.rclose(s)
    LIB.rclose(l)
    return 0 if sent == 100 else 1


def keepalive_on(s):
    one = ctypes.c_int(1)
    check(LIB.rsetsockopt(s, socket.SOL_SOCKET, socket.SO_KEEPALIVE,
                          ctypes.byref(one), 4), "SO_KEEPALIVE")
    check(LIB.rsetsockopt(s, socket.IPPROTO_TCP, socket.TCP_KEEPIDLE,
                          ctypes.byref(one), 4), "TCP_KEEPIDLE")
    v, n = ctypes.c_int(0), ctypes.c_uint(4)
    check(LIB.rgetsockopt(s, socket.IPPROTO_TCP, socket.TCP_KEEPIDLE,
                          ctypes.byref(v), ctypes.byref(n)), "get")
    print("keep-alive on, every %d s" % v.value)


def poll_client(ip, port):
    import os
    s = check(LIB.rsocket(socket.AF_INET, socket.SOCK_STREAM, 0), "rsocket")
    keepalive_on(s)     # sent while rpoll waits: the peer must not mind
    sa = sockaddr(ip, port)
    check(LIB.rconnect(s, sa, len(sa)), "rconnect")
    r, w = os.pipe()
    ok = True
    n, ready = rpoll([s, r], 200)
    print("rpoll, nothing sent yet: %d ready" % n)
    ok &= n == 0
    os.write(w, b"x")
    n, ready = rpoll([s, r], 5000)
    print("rpoll after a pipe write: %d ready, rsocket %s, pipe %s"
          % (n, bool(ready[0]), bool(ready[1])))
    ok &= n == 1 and not ready[0] and ready[1]
    os.read(r, 1)
    n, ready = rselect_readable([s, r], 5000)   # the server's 100 bytes
    print("rselect when the peer sends: %d ready, rsocket %s, pipe %s"
          % (n, ready[0], ready[1]))
    ok &= n == 1 and ready[0] and not ready[1]
    got = recv_all(s, 100)
    print("read %d bytes" % len(got))
    ok &= got == pattern(100)
    LIB.rclose(s)
    return 0 if ok else 1


if __name__ == "__main__":
    mode, ip, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sys.exit({"stall-server": stall_server, "stall-client": stall_client,
              "half-server": half_server,
              "half-client": half_client, "poll-server": poll_server,
              "poll-client": poll_client}[mode](ip, port))
