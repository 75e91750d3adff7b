#!/usr/bin/env python3
"""Print the perf.data feature ids a file or a pipe stream carries, one per line.

File mode: the bits of the header's feature bitmap.  Pipe mode: the
feat_id of each HEADER_FEATURE record (type 80), in stream order, without
the end marker (HEADER_LAST_FEATURE, 32 in perf 6.1).  header_vs_perf.sh
compares perf record's with perfsink's.
"""
import struct
import sys

HEADER_FEATURE, LAST_FEATURE = 80, 32


def file_features(d):
    bits = d[72:104]
    return [i for i in range(256) if bits[i // 8] >> (i % 8) & 1]


def pipe_features(d):
    out, off = [], 16
    while off + 8 <= len(d):
        typ, _misc, size = struct.unpack_from('<IHH', d, off)
        if size < 8:
            break
        if typ == HEADER_FEATURE:
            fid = struct.unpack_from('<Q', d, off + 8)[0]
            if fid != LAST_FEATURE:
                out.append(fid)
        if typ == 66:  # HEADER_TRACING_DATA: the blob follows, uncounted
            off += struct.unpack_from('<I', d, off + 8)[0]
        off += size
    return out


def main():
    d = open(sys.argv[1], 'rb').read()
    if d[:8] != b'PERFILE2':
        sys.exit('not a perf.data file')
    pipe = struct.unpack_from('<Q', d, 8)[0] == 16
    for f in (pipe_features(d) if pipe else file_features(d)):
        print(f)


main()
