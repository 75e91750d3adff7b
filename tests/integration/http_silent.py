#!/usr/bin/env python3
# A collector that takes the whole request (answering "100 Continue" when
# asked) and then never answers: what stall_timeout is for.  Loopback only.
#   http_silent.py PORT
import socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
held = []
def serve(c):
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = c.recv(65536)
        if not d:
            return
        buf += d
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").lower().split("\r\n")
    n = next((int(l.split(":", 1)[1]) for l in lines if l.startswith("content-length:")), 0)
    if any(l.startswith("expect:") and "100-continue" in l for l in lines):
        c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
    while len(body) < n:
        d = c.recv(65536)
        if not d:
            return
        body += d
    held.append(c)  # the whole request is in; the answer never comes
while True:
    threading.Thread(target=serve, args=(s.accept()[0],), daemon=True).start()
