#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A hostile pod's try at UDP 4791 (tests/integration/net_sock.sh):
#   net_bind.py try ADDR      bind ADDR:4791 with SO_REUSEADDR and
#                             SO_REUSEPORT; prints "bound" or "refused ERR"
#   net_bind.py hold ADDR     bind it and keep it until killed ("held")
import socket
import sys
import time

mode, addr = sys.argv[1], sys.argv[2]
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
if mode == "try":
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
try:
    s.bind((addr, 4791))
except OSError as e:
    print("refused", e.errno, flush=True)
    sys.exit(0)
print("bound" if mode == "try" else "held", flush=True)
if mode == "hold":
    while True:
        time.sleep(60)
