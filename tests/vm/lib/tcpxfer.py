#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A bounded TCP transfer with a digest on both ends (vm tier).

  tcpxfer.py recv PORT            accepts one connection (30 s), reads to EOF
  tcpxfer.py send PORT BYTES HOST connects (retrying for 30 s while the
                                  receiver starts), sends BYTES random bytes
                                  (the host last, as the pingpongs take it)
Each prints "BYTES SHA256" of what it moved; the test compares the lines.
"""
import hashlib
import os
import socket
import sys
import time


def recv(port):
    srv = socket.create_server(("0.0.0.0", int(port)))
    srv.settimeout(30)
    conn, _ = srv.accept()
    conn.settimeout(30)
    h, n = hashlib.sha256(), 0
    while True:
        b = conn.recv(65536)
        if not b:
            break
        h.update(b)
        n += len(b)
    print(n, h.hexdigest())


def send(port, nbytes, host):
    end = time.monotonic() + 30
    while True:
        try:
            s = socket.create_connection((host, int(port)), timeout=5)
            break
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.2)
    s.settimeout(30)
    data = os.urandom(int(nbytes))
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)
    print(len(data), hashlib.sha256(data).hexdigest())


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "recv":
        recv(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "send":
        send(*sys.argv[2:])
    else:
        sys.exit(__doc__)
