#!/bin/sh
# Another recorder on the same CPUs: Linux adds every consumer's sample_id
# size to the one KSYMBOL / BPF_EVENT header it outputs to all of them, so
# each one after the first gets a record sized too large, stale ring bytes
# at its end, and perf report stops on it ("failed to process type: 17").
# perfsink repairs such records (src/engine/record_fix.h).
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip_all "bpf_load.py knows SYS_bpf of x86-64 only"
plan 4
cd "$T"
# Loads a BPF program (r0 = 0; exit) N times: each load and unload is a
# KSYMBOL and a BPF_EVENT record.
cat >bpf_load.py <<'EOS'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
insns = ctypes.create_string_buffer(struct.pack('<BBhiBBhi', 0xb7, 0, 0, 0, 0x95, 0, 0, 0))
lic = ctypes.create_string_buffer(b'GPL')
for _ in range(int(sys.argv[1])):
    # BPF_PROG_LOAD: SOCKET_FILTER, 2 instructions, license; SYS_bpf is 321 on x86-64
    attr = ctypes.create_string_buffer(struct.pack('<IIQQ', 1, 2, ctypes.addressof(insns),
                                                   ctypes.addressof(lic)) + bytes(128))
    fd = libc.syscall(321, 5, attr, len(attr))
    if fd < 0:
        sys.exit('bpf: ' + os.strerror(ctypes.get_errno()))
    os.close(fd)
EOS
# The other recorder starts after perfsink (the kernel lists the newest
# consumer first), while perfsink records: perfsink is the one that gets
# the records sized too large.
cat >work.sh <<EOS
"$PERF" record -q -a -e dummy -o other.data -- sleep 60 >/dev/null 2>&1 & other=\$!
i=0; until [ -s other.data ] || [ \$i -ge 300 ]; do sleep 0.1; i=\$((i + 1)); done
"$WORKLOAD" cpu 500
python3 bpf_load.py 4
kill -INT \$other; wait \$other || true
EOS
# Small rings and call chains: the rings wrap many times before the
# programs load, so what lies past a record is old samples, not zeros
# (an id of 0 perf would take for the first event).
"$PERFSINK" record -v -a -e cpu-clock -F 999 -g -m 8 -o ps.data -- sh work.sh >/dev/null 2>err
check "perfsink records while another recorder runs" [ $? -eq 0 ] || show err
n=$("$PERF" report -D -i ps.data 2>/dev/null | grep -c 'PERF_RECORD_KSYMBOL')
check "the recording holds the programs' KSYMBOL records ($n)" [ "$n" -ge 8 ]
# Small rings lose chunks (perf warns of them): only an error counts here.
"$PERF" report -i ps.data --stdio >/dev/null 2>report.err
rc=$?
check "perf report reads it without an error" \
	sh -c "[ $rc -eq 0 ] && ! grep -q 'failed to process' report.err" || show report.err
check "the repair is said at -v" grep -q 'KSYMBOL/BPF_EVENT records the kernel sized too large' err || show err
done_testing
