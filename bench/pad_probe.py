#!/usr/bin/env python3
"""Insert padding records into a perf.data file, to see whether a perf
reads past them (issue 15, item 3: a direct write from a ring needs the file
offset congruent with the ring address modulo the device's alignment, which
only a record that readers skip can provide).

Usage: pad_probe.py IN OUT [TYPE [SIZE [EVERY]]]
  TYPE   record type of the pad (default 82, PERF_RECORD_FINISHED_INIT)
  SIZE   bytes per pad, header included, a multiple of 8 (default 512)
  EVERY  a pad after every EVERY-th record; 0 (default): after each
         FINISHED_ROUND

IN must be a file-mode perf.data (not a pipe stream, not compressed).  The
feature sections after the data move by the bytes added and their offsets
are shifted to match; data.size grows.  Then compare, for example:
  cmp <(perf script -i IN) <(perf script -i OUT)
  perf report --stdio -i OUT >/dev/null    # stderr must stay empty
"""
import struct
import sys

FINISHED_ROUND = 68


def pad_records(data, pad, every):
    out, pos, nrec, npad = bytearray(), 0, 0, 0
    while pos + 8 <= len(data):
        rtype, _, size = struct.unpack_from('<IHH', data, pos)
        if size < 8:
            raise SystemExit(f'record at data offset {pos}: size {size}')
        out += data[pos:pos + size]
        pos += size
        nrec += 1
        if (every == 0 and rtype == FINISHED_ROUND) or (every and nrec % every == 0):
            out += pad
            npad += 1
    return out, npad


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    src, dst = argv[1], argv[2]
    ptype = int(argv[3]) if len(argv) > 3 else 82
    psize = int(argv[4]) if len(argv) > 4 else 512
    every = int(argv[5]) if len(argv) > 5 else 0
    if psize < 8 or psize % 8 or psize > 0xffff:
        raise SystemExit('SIZE: a multiple of 8 from 8 to 65528')
    b = open(src, 'rb').read()
    if b[:8] != b'PERFILE2':
        raise SystemExit(f'{src}: not a little-endian file-mode perf.data')
    hsize = struct.unpack_from('<Q', b, 8)[0]
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    # The feature table follows the data: one (offset, size) per set bit.
    nfeat = sum(bin(x).count('1') for x in b[hsize - 32:hsize])
    pad = struct.pack('<IHH', ptype, 0, psize) + bytes(psize - 8)
    data, npad = pad_records(b[data_off:data_off + data_size], pad, every)
    shift = len(data) - data_size
    tail = bytearray(b[data_off + data_size:])
    for i in range(nfeat):
        off, size = struct.unpack_from('<QQ', tail, 16 * i)
        struct.pack_into('<QQ', tail, 16 * i, off + shift, size)
    head = bytearray(b[:data_off])
    struct.pack_into('<Q', head, 48, len(data))
    with open(dst, 'wb') as f:
        f.write(head + data + tail)
    print(f'{dst}: {npad} records of type {ptype}, {psize} bytes each, added')


if __name__ == '__main__':
    main(sys.argv)
