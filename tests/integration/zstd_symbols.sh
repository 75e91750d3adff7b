#!/bin/sh
# Symbol archives: `perfsink archive FILE` and the zstd sink's
# `symbols = true` write FILE.symbols.tar.zst; unpacked into a fresh
# HOME's ~/.debug it makes perf report name a program's functions after
# the program is gone, as the report on the recording machine did.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
command -v zstd >/dev/null || skip_all "zstd (the program) not installed"
command -v cc >/dev/null || skip_all "no C compiler to build the test program"
plan 10
cd "$T"
mkdir bin
cc -O1 -g -Wl,--build-id -o bin/sym_prog "$TESTS_SRCDIR/integration/sym_prog.c" || skip_all "cannot build sym_prog"
ID=$(LC_ALL=C readelf -n bin/sym_prog | awk '/Build ID/ {print $3}')

# top_syms DATA HOME: the report's symbols, percent and name, in order.
top_syms() {
	HOME=$2 "$PERF" report -i "$1" --stdio --no-children --sort sym 2>/dev/null |
		awk '/^ +[0-9.]+%/ {print $1, $3}' | head -n 5
}

"$PERFSINK" record -e cpu-clock -F 999 -o a.data -- bin/sym_prog 400 >/dev/null 2>err
check "recorded the program" [ $? -eq 0 ] || show err
top_syms a.data "$T/h0" >orig.top
check "the recording machine's report names its functions" grep -q sym_alpha_work orig.top || show orig.top

"$PERFSINK" archive a.data >arch.out 2>arch.err
check "perfsink archive exits 0 and says what it stored" \
	grep -q "a.data.symbols.tar.zst: [0-9]* build-ids: [1-9][0-9]* files" arch.out || show arch.out arch.err
tar -I zstd -tf a.data.symbols.tar.zst >list 2>&1
check "the archive holds the program under its build-id and the .build-id link, as ~/.debug does" \
	grep -qx "${T#/}/bin/sym_prog/$ID/elf" list
check "and the link" grep -qx ".build-id/$(echo "$ID" | cut -c1-2)/$(echo "$ID" | cut -c3-)" list || show list

mv bin/sym_prog bin/gone
top_syms a.data "$T/h1" >gone.top
check "without the program (fresh HOME) perf report cannot name them" fails grep -q sym_alpha_work gone.top
mkdir -p h2/.debug && tar -I zstd -xf a.data.symbols.tar.zst -C h2/.debug
top_syms a.data "$T/h2" >unpacked.top
# The program's own functions, compared: the kernel's and the vdso's lines
# below them tie at one sample each (their order varies), and the archive
# may name a vdso sample the recording machine's report left as an address.
grep ' sym_' orig.top >orig.prog
grep ' sym_' unpacked.top >unpacked.prog
check "unpacked into a fresh ~/.debug: the same report as on the recording machine" \
	cmp orig.prog unpacked.prog || show orig.top unpacked.top
mv bin/gone bin/sym_prog

printf '[sink.z]\nplugin = zstd\npath = %s/z.data\nsymbols = true\n' "$T" >z.ini
"$PERFSINK" record -e cpu-clock -F 999 --config z.ini --switch-output=300ms -- bin/sym_prog 1000 >/dev/null 2>zerr
check "zstd with symbols = true and rotation records" [ $? -eq 0 ] || show zerr
n_out=$(ls z.data.* | grep -vc symbols)
n_sym=$(ls z.data.*.symbols.tar.zst | wc -l)
check "one archive beside every rotated output ($n_out outputs, $n_sym archives)" [ "$n_out" -ge 2 -a "$n_out" = "$n_sym" ] ||
	{ ls >&2; show zerr; }
# The first output: later ones have no MMAP of the program (it was mapped
# before they began), so not even the recording machine names their frames.
first=$(ls z.data.* | grep -v symbols | head -n 1)
top_syms "$first" "$T/h0" >z.orig
mv bin/sym_prog bin/gone
mkdir -p h3/.debug && tar -I zstd -xf "$first.symbols.tar.zst" -C h3/.debug
top_syms "$first" "$T/h3" >z.top
# The program's own functions: the kernel's and the vdso's frames may come
# out better from the archive (it carries kallsyms and the vdso image).
check "an output's archive symbolizes it without the program, as the recording machine did" \
	sh -c 'grep -q sym_alpha_work z.orig && [ "$(grep sym_ z.orig)" = "$(grep sym_ z.top)" ]' || show z.orig z.top
done_testing
