#!/usr/bin/env python3
"""One HTTP request over a Unix socket, as whoever runs this (the tests run it as other users):
http_unix.py SOCKET METHOD PATH [BODY_FILE]; prints the status line's code, then the body."""
import socket
import sys

sock_path, method, path = sys.argv[1:4]
body = open(sys.argv[4], 'rb').read() if len(sys.argv) > 4 else b''
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(30)
s.connect(sock_path)
head = f'{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n'
s.sendall(head.encode() + body)
data = b''
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
status = data.split(b'\r\n', 1)[0].split(b' ')[1].decode() if data else '000'
print(status)
print(data.split(b'\r\n\r\n', 1)[1].decode(errors='replace') if b'\r\n\r\n' in data else '')
