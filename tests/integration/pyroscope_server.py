#!/usr/bin/env python3
"""A loopback stand-in for Grafana Pyroscope's HTTP ingest API (POST /ingest,
https://grafana.com/docs/pyroscope/latest/configure-server/about-server-api/)
for the pprof sink's tests: it checks nothing itself, it records.

usage: pyroscope_server.py DIR
  listens on 127.0.0.1 (a free port, written to DIR/port once listening);
  for every request appends one JSON line to DIR/requests.jsonl: method,
  path, query (name, from, until, format, ...), content_type, parts (the
  names of a multipart/form-data body's parts), authorization and tenant
  (the Authorization and X-Scope-OrgID headers), and saves the part named
  "profile" (or the whole body when it is not multipart) as DIR/N.pb.gz.
  Answers 200 to POST /ingest, 404 to anything else.
"""
import email.parser
import email.policy
import http.server
import json
import os
import sys
import urllib.parse

DIR = sys.argv[1]


class Handler(http.server.BaseHTTPRequestHandler):
    count = 0

    def log_message(self, *args):
        pass

    def record(self, body):
        url = urllib.parse.urlsplit(self.path)
        ctype = self.headers.get('Content-Type', '')
        parts, profile = [], body
        if ctype.startswith('multipart/form-data'):
            msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b'Content-Type: ' + ctype.encode() + b'\r\n\r\n' + body)
            profile = None
            for part in msg.iter_parts():
                name = part.get_param('name', header='content-disposition')
                parts.append(name)
                if name == 'profile':
                    profile = part.get_payload(decode=True)
        Handler.count += 1
        if profile is not None:
            with open(os.path.join(DIR, '%d.pb.gz' % Handler.count), 'wb') as f:
                f.write(profile)
        with open(os.path.join(DIR, 'requests.jsonl'), 'a') as f:
            f.write(json.dumps({
                'method': self.command, 'path': url.path,
                'query': dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True)),
                'content_type': ctype, 'parts': parts, 'n': Handler.count,
                'authorization': self.headers.get('Authorization'),
                'tenant': self.headers.get('X-Scope-OrgID')}) + '\n')
        return url.path

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('Content-Length', '0')))
        ok = self.record(body) == '/ingest'
        self.send_response(200 if ok else 404)
        self.send_header('Content-Length', '0')
        self.end_headers()

    do_PUT = do_POST


server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
with open(os.path.join(DIR, 'port.tmp'), 'w') as f:
    f.write('%d\n' % server.server_address[1])
os.rename(os.path.join(DIR, 'port.tmp'), os.path.join(DIR, 'port'))
server.serve_forever()
