#!/bin/sh
# The build-id cache: like perf record, perfsink adds the binaries it
# recorded to $HOME/.debug (perf's layout), so perf archive works and
# perf report still names the functions of a binary rebuilt since.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
command -v cc >/dev/null || skip_all "no C compiler to build the test program"
plan 20
cd "$T"

# prog VARIANT: a program whose hot functions are named after VARIANT.
prog() {
	cat >prog.c <<EOC
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void $1_spin_one(long n) { for (long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void $1_spin_two(long n) { for (long i = 0; i < n; i++) sink ^= i; }
int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	for (long k = 0; k < ms * 4; k++) { $1_spin_one(100000); $1_spin_two(100000); }
	return 0;
}
EOC
	cc -O1 -g -Wl,--build-id -o "$T/bin/prog" prog.c
}
mkdir bin
prog old || skip_all "cannot build the test program"
id=$(readelf -n bin/prog | sed -n 's/.*Build ID: *//p')
link=$HOME/.debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)

# The cache is filled by a worker that gets at most 100 ms after the
# workload ends; a second-long workload leaves it time on a loaded
# machine (the copy of /proc/kallsyms alone is ~0.1 s of CPU).  Not -q:
# "not added in time" would be said in rec.err.
"$PERFSINK" record -o ps.data -- "$T/bin/prog" 1500 2>rec.err
check "record exits 0" [ $? -eq 0 ] || show rec.err
check "the program is in the cache under its path and build-id" \
	[ -f "$HOME/.debug$T/bin/prog/$id/elf" ]
check "a hard link to it (same file system) or a copy" cmp -s bin/prog "$HOME/.debug$T/bin/prog/$id/elf"
check ".build-id/xx/yyyy links to its directory as perf's does" \
	[ "$(readlink "$link")" = "../..$T/bin/prog/$id" ]
kid=$(perf buildid-list -i ps.data 2>/dev/null | awk '$2 == "[kernel.kallsyms]" {print $1}')
check "the kernel's kallsyms under its build-id" [ -s "$HOME/.debug/[kernel.kallsyms]/$kid/kallsyms" ] ||
	show rec.err
check "and the vDSO" sh -c "ls '$HOME/.debug/[vdso]/'*/vdso >/dev/null 2>&1"
check "nothing half-copied is left" [ -z "$(find "$HOME/.debug" -name '.tmp-*')" ]

# perf record's own file, for the same comparison after the rebuild.
mkdir "$T/perfhome"
HOME=$T/perfhome "$PERF" record -q -o perf.data -- "$T/bin/prog" 300 2>/dev/null

"$PERF" archive ps.data >archive.out 2>archive.err
check "perf archive succeeds" [ $? -eq 0 ] || show archive.out archive.err
# The program's own files: perfsink waits at most 100 ms for the cache at
# the end, so on a loaded machine a library may be left out (said at -v).
check "with the program's files not missing" fails grep -q "Cannot stat.*$(echo "$id" | cut -c3-)" archive.err ||
	show archive.err
check "and packs the program" sh -c "tar tjf ps.data.tar.bz2 | grep -q '^${T#/}/bin/prog/$id/elf'" ||
	show archive.err

prog new
check "the rebuilt program has another build-id" \
	[ "$(readelf -n bin/prog | sed -n 's/.*Build ID: *//p')" != "$id" ]
"$PERF" report -i ps.data --stdio --sort sym >old.report 2>old.err
check "perf report names the old functions after the rebuild" grep -q old_spin_one old.report ||
	show old.report old.err
HOME=$T/perfhome "$PERF" report -i perf.data --stdio --sort sym >perf.report 2>&1
check "as it does for perf record's file" grep -q old_spin_one perf.report || show perf.report
check "and not the new ones" fails grep -q new_spin old.report

# Turned off: -N, the [record] key, and -B (no build-ids at all, as perf -B).
id=$(readelf -n bin/prog | sed -n 's/.*Build ID: *//p')
"$PERFSINK" record -q -N -o n.data -- "$T/bin/prog" 50 2>n.err
check "-N records" [ $? -eq 0 ] || show n.err
check "and adds nothing to the cache" [ ! -e "$HOME/.debug$T/bin/prog/$id" ]
printf '[record]\nno-buildid-cache = true\n[sink.f]\nplugin = aio_file\npath = cfg.data\n' >off.ini
"$PERFSINK" record -q --config off.ini -- "$T/bin/prog" 50 2>cfg.err
check "no-buildid-cache = true in [record] too" [ ! -e "$HOME/.debug$T/bin/prog/$id" ] || show cfg.err
"$PERFSINK" record -q -B -o b.data -- "$T/bin/prog" 50 2>b.err
check "-B: nothing in the cache" [ ! -e "$HOME/.debug$T/bin/prog/$id" ] || show b.err
"$PERF" buildid-list -i b.data >b.ids 2>&1
check "and no BUILD_ID feature" fails grep -q "$id" b.ids || show b.ids

# perf's own setting of the cache's place, buildid.dir in ~/.perfconfig.
printf '[buildid]\n\tdir = %s\n' "$T/elsewhere" >"$HOME/.perfconfig"
"$PERFSINK" record -q -o pc.data -- "$T/bin/prog" 50 2>pc.err
check "buildid.dir in ~/.perfconfig is used as by perf" [ -f "$T/elsewhere$T/bin/prog/$id/elf" ] ||
	show pc.err
rm "$HOME/.perfconfig"
done_testing
