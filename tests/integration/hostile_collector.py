#!/usr/bin/env python3
# A collector that plays the red team's tricks on perfsink ls / fetch, on
# 127.0.0.1 only, bounded in time and in requests (it exits after either).
#
#   hostile_collector.py MODE DIR [options]
#
# It binds a free port and writes it to DIR/port; every request is one
# line of DIR/requests.log: "SECONDS-SINCE-START METHOD PATH".  Listings are
# nginx's JSON autoindex (PROPFIND is answered 405, as nginx without
# dav-ext); S3 listings are ListObjectsV2.  Modes:
#   drip       every answer is 200 and its body one byte per --every seconds
#              (a PUT's too, once its body is read: an upload that never ends)
#   s3-endless ListObjectsV2 truncated forever: a new continuation token
#              every page, or the same one with --same-token
#   session    host "h", session "s": part 0 from --part0 FILE, then the files
#              --part FILE... as parts 1, 2...; with --parts N, N parts listed
#              in reverse order (part 0 from --part0, the others empty);
#              --jit-maps N perf-PID.map files (PID from 2000000000) and
#              --jitdump PATH (repeatable) jitdump files in its jit/ folder
#   busy       every answer is 503, with "Retry-After: --retry-after" when
#              that is given
import argparse, functools, http.server, json, os, socket, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("mode", choices=["drip", "s3-endless", "session", "busy"])
ap.add_argument("dir")
ap.add_argument("--every", type=float, default=0.5)
ap.add_argument("--same-token", action="store_true")
ap.add_argument("--part0")
ap.add_argument("--part", action="append", default=[])
ap.add_argument("--parts", type=int, default=0)
ap.add_argument("--jit-maps", type=int, default=0)
ap.add_argument("--jitdump", action="append", default=[])
ap.add_argument("--retry-after")
ap.add_argument("--lifetime", type=float, default=60)
ap.add_argument("--max-requests", type=int, default=20000)
a = ap.parse_args()

START = time.monotonic()
log = open(os.path.join(a.dir, "requests.log"), "a", buffering=1)
lock = threading.Lock()
count = 0
MAP_BODY = b"7f0000001000 40 hostile_jitted_function\n"
DUMP_BODY = b"JiTD" + bytes(36)


def jit_escape(path):
    keep = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
    return "".join(chr(c) if c in keep else "_%02x" % c for c in path.encode())


def read(path):
    with open(path, "rb") as f:
        return f.read()


@functools.lru_cache(maxsize=8)
def listing_body(names):
    # Made once: a listing's time is then the client's, not this server's.
    now = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime())
    items = [{"name": n.rstrip("/"), "type": "directory" if n.endswith("/") else "file",
              "mtime": now, "size": 1} for n in names]
    return json.dumps(items).encode()


def parts_names():
    nparts = a.parts or 1 + len(a.part)
    return ["%010d" % i for i in reversed(range(nparts))] + ["jit/"]


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        # Headers and body are two writes: without this, Nagle's algorithm
        # and the client's delayed ACK make every answer take 40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def note(self):
        global count
        with lock:
            count += 1
            log.write("%.3f %s %s\n" % (time.monotonic() - START, self.command, self.path))
            if count > a.max_requests:
                os._exit(0)

    def send(self, code, body, ctype="application/octet-stream"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_PROPFIND(self):
        self.note()
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send(405, b"")

    def do_PUT(self):
        self.note()
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if a.mode != "drip":
            return self.send(405, b"")
        self.get_drip()

    def do_GET(self):
        self.note()
        getattr(self, "get_" + a.mode.replace("-", "_"))()

    def get_drip(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "100000")
        self.end_headers()
        try:
            while True:
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(a.every)
        except OSError:
            pass

    def get_busy(self):
        self.send_response(503)
        if a.retry_after is not None:
            self.send_header("Retry-After", a.retry_after)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def get_s3_endless(self):
        page = count
        token = "same" if a.same_token else "tok%d" % page
        body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult>"
                "<Name>b</Name><Prefix></Prefix><KeyCount>1</KeyCount><IsTruncated>true</IsTruncated>"
                "<NextContinuationToken>%s</NextContinuationToken>"
                "<CommonPrefixes><Prefix>host%d/</Prefix></CommonPrefixes></ListBucketResult>" % (token, page))
        self.send(200, body.encode(), "application/xml")

    def listing(self, names):
        self.send(200, listing_body(tuple(names)), "application/json")

    def get_session(self):
        p = self.path
        nparts = a.parts or 1 + len(a.part)
        if p == "/":
            return self.listing(["h/"])
        if p == "/h/":
            return self.listing(["s/"])
        if p == "/h/s/":
            return self.listing(parts_names())
        if p == "/h/s/jit/":
            return self.listing(["perf-%d.map" % (2000000000 + i) for i in range(a.jit_maps)] +
                                [jit_escape(d) for d in a.jitdump])
        if p.startswith("/h/s/jit/"):
            return self.send(200, MAP_BODY if p.endswith(".map") else DUMP_BODY)
        if p.startswith("/h/s/") and p[5:].isdigit():
            seq = int(p[5:])
            if seq == 0:
                return self.send(200, read(a.part0))
            if seq <= len(a.part):
                return self.send(200, read(a.part[seq - 1]))
            if seq < nparts:
                return self.send(200, b"")
        self.send(404, b"")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


if a.mode == "session":
    listing_body(tuple(parts_names()))
srv = Server(("127.0.0.1", 0), H)
with open(os.path.join(a.dir, "port.tmp"), "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(os.path.join(a.dir, "port.tmp"), os.path.join(a.dir, "port"))
threading.Timer(a.lifetime, lambda: os._exit(0)).start()
srv.serve_forever()
