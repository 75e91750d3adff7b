#!/usr/bin/env python3
"""Run a command on a pseudo-terminal, as an operator at a terminal would.

usage: pty_run.py LOG STEP... -- COMMAND [ARGS...]

Everything the command writes to the terminal goes to LOG as it comes.
Steps run in order; each has a deadline, none sleeps a fixed time:
  expect:SECONDS:REGEX   wait until the output so far matches REGEX
  ctrl-c                 type Ctrl-C (the terminal sends SIGINT to the
                         foreground process group, as a real one does)
  exit:SECONDS           wait for the command to exit; print its status
  cols:N                 make the terminal N columns wide (24 rows)
Exit status: 0 when every step succeeded, 1 when one timed out (the step
is named on stderr), 2 on bad usage.
"""
import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time


def main():
    args = sys.argv[1:]
    if '--' not in args or len(args) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    sep = args.index('--')
    log_path, steps, cmd = args[0], args[1:sep], args[sep + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    out = bytearray()
    log = open(log_path, 'wb')
    status = None

    def pump(until):
        nonlocal status
        while True:
            left = until - time.monotonic()
            r, _, _ = select.select([fd], [], [], max(0, min(left, 0.2)))
            if r:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    data = b''
                if data:
                    out.extend(data)
                    log.write(data)
                    log.flush()
            if status is None:
                p, st = os.waitpid(pid, os.WNOHANG)
                if p == pid:
                    status = st
            yield
            if time.monotonic() >= until:
                return

    for step in steps:
        kind, _, rest = step.partition(':')
        if kind == 'expect':
            secs, _, rx = rest.partition(':')
            pat = re.compile(rx.encode())
            for _ in pump(time.monotonic() + float(secs)):
                if pat.search(out):
                    break
            else:
                print(f'pty_run: timed out: {step}', file=sys.stderr)
                return 1
        elif kind == 'ctrl-c':
            os.write(fd, b'\x03')
        elif kind == 'cols':
            fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 24, int(rest), 0, 0))
        elif kind == 'exit':
            for _ in pump(time.monotonic() + float(rest)):
                if status is not None:
                    break
            if status is None:
                print(f'pty_run: timed out: {step}', file=sys.stderr)
                os.kill(pid, 9)
                return 1
            # what is left in the terminal after the exit, up to its end
            while select.select([fd], [], [], 2.0)[0]:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    break
                if not data:
                    break
                out.extend(data)
                log.write(data)
                log.flush()
            code = os.waitstatus_to_exitcode(status)
            print(f'exit {code}')
        else:
            print(f'pty_run: unknown step {step}', file=sys.stderr)
            return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
