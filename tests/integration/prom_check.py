#!/usr/bin/env python3
"""Parse a Prometheus text exposition file (format 0.0.4) strictly.

usage: prom_check.py FILE [NAME[{LABELS}]=VALUE ...]

Fails (exit 1, the reason on stderr) when a line is not a comment, a HELP
or TYPE line, or a sample; when a name or label is malformed; when a sample
comes without a TYPE for its metric, or a metric's samples are not
together; when a counter is negative.  Each NAME=VALUE argument must match
one sample exactly (VALUE as a number).  Prints nothing on success.
"""
import re
import sys

NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(rf'^({NAME})(\{{(?:{LABEL}(?:,{LABEL})*)?\}})? (\S+)( -?\d+)?$')


def fail(why):
    print(f'prom_check: {why}', file=sys.stderr)
    sys.exit(1)


def main():
    types, seen, samples, current = {}, set(), {}, None
    for n, line in enumerate(open(sys.argv[1]), 1):
        line = line.rstrip('\n')
        if line.startswith('# HELP ') or line.startswith('# TYPE '):
            parts = line.split(' ', 3)
            if len(parts) < 4 or not re.fullmatch(NAME, parts[2]):
                fail(f'line {n}: bad {parts[1]} line: {line}')
            if parts[1] == 'TYPE':
                if parts[3] not in ('counter', 'gauge', 'histogram', 'summary', 'untyped'):
                    fail(f'line {n}: unknown type {parts[3]}')
                if parts[2] in types:
                    fail(f'line {n}: second TYPE for {parts[2]}')
                types[parts[2]] = parts[3]
            continue
        if line.startswith('#') or not line:
            continue
        m = SAMPLE.match(line)
        if not m:
            fail(f'line {n}: not a sample: {line}')
        name, labels, value = m.group(1), m.group(2) or '', m.group(3)
        if name not in types:
            fail(f'line {n}: {name} has no TYPE line before it')
        if name != current and name in seen:
            fail(f'line {n}: samples of {name} are not together')
        current = name
        seen.add(name)
        v = float(value)
        if types[name] == 'counter' and v < 0:
            fail(f'line {n}: counter {name} is negative')
        samples[name + labels] = v
    for want in sys.argv[2:]:
        key, _, val = want.rpartition('=')
        if key not in samples:
            fail(f'no sample {key}')
        if samples[key] != float(val):
            fail(f'{key} is {samples[key]}, expected {val}')


if __name__ == '__main__':
    main()
