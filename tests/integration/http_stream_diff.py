#!/usr/bin/env python3
"""Compare a perf pipe stream received by a collector with the one sent.

usage: http_stream_diff.py SENT RECEIVED

RECEIVED must be SENT with zero or more runs of records replaced by one
PERF_RECORD_LOST each, whose count is the number of records it replaces.
Prints "lost_bytes=N lost_records=N lost_markers=N" and exits 0, or prints
where the streams diverge and exits 1.
"""
import struct
import sys

PERF_RECORD_LOST = 2
HEADER_TRACING_DATA = 66


def records(data):
    """(offset, bytes) of each record after the 16-byte pipe header."""
    off = 16
    out = []
    while off + 8 <= len(data):
        rtype, _misc, size = struct.unpack_from('<IHH', data, off)
        extra = struct.unpack_from('<I', data, off + 8)[0] if rtype == HEADER_TRACING_DATA else 0
        if size < 8 or off + size + extra > len(data):
            raise SystemExit('malformed record at %d' % off)
        out.append((off, data[off:off + size + extra]))
        off += size + extra
    if off != len(data):
        raise SystemExit('%d trailing bytes' % (len(data) - off))
    return out


def main():
    sent = open(sys.argv[1], 'rb').read()
    got = open(sys.argv[2], 'rb').read()
    if sent[:16] != got[:16]:
        print('pipe headers differ')
        return 1
    a, b = records(sent), records(got)
    i = j = 0
    lost_bytes = lost_records = markers = 0
    while j < len(b):
        rec = b[j][1]
        if i < len(a) and a[i][1] == rec:
            i += 1
            j += 1
            continue
        rtype = struct.unpack_from('<I', rec, 0)[0]
        if rtype != PERF_RECORD_LOST:
            print('streams diverge: sent offset %d, received offset %d' % (a[i][0] if i < len(a) else -1, b[j][0]))
            return 1
        n = struct.unpack_from('<Q', rec, 16)[0]
        if n == 0 or i + n > len(a):
            print('LOST marker at received offset %d counts %d records, %d left' % (b[j][0], n, len(a) - i))
            return 1
        lost_records += n
        lost_bytes += sum(len(r) for _o, r in a[i:i + n])
        markers += 1
        i += n
        j += 1
    if i != len(a):
        print('received stream ends early: %d records missing' % (len(a) - i))
        return 1
    print('lost_bytes=%d lost_records=%d lost_markers=%d' % (lost_bytes, lost_records, markers))
    return 0


sys.exit(main())
