#!/usr/bin/env python3
"""A Unix socket listener for the fault tests: unix_listener.py PATH MODE READY_FILE LOG_FILE.
MODE "record": accepts and appends one line per connection (and what it read) to LOG_FILE.
MODE "wedge": never accepts, and fills its own backlog so that every further connect would block.
Writes READY_FILE once listening; runs until killed."""
import os
import socket
import sys
import time

path, mode, ready, log = sys.argv[1:5]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(0 if mode == 'wedge' else 16)
fillers = []
if mode == 'wedge':
    for _ in range(8):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.setblocking(False)
        try:
            c.connect(path)
        except (BlockingIOError, OSError):
            break
        fillers.append(c)
open(ready, 'w').close()
while True:
    if mode == 'wedge':
        time.sleep(1)
        continue
    conn, _ = s.accept()
    conn.settimeout(1)
    try:
        got = conn.recv(4096)
    except OSError:
        got = b''
    with open(log, 'a') as f:
        f.write('connection: %r\n' % got[:60])
    conn.close()
