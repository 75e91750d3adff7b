#!/bin/bash
# make install into a DESTDIR: the binary, the plugins (no .la beside them),
# the kit library, the headers, the man pages, the example config and the
# docs and perfsink.pc; the example sink (examples/count_sink) builds against
# the installed tree through pkg-config alone and counts a short recording;
# the fleet files (systemd unit naming the installed binary and config
# directory, fleet.ini, bash completion) are in place; then make uninstall
# leaves no file behind.  No libtool archive is installed (libperfsink-sink.la
# neither).  A sink built with pkg-config --cflags --libs against an install
# into another prefix, one the dynamic linker does not search, loads (the .pc
# gives a run path to the kit).
. "${TESTS_SRCDIR:-.}/lib/lib.sh"
: "${TOP_BUILDDIR:?run through make check}" "${INST_BINDIR:?run through make check}"
D="$T/root"
# The make running this test passes its jobserver and command-line variables
# in the environment; the inner make must not inherit them.
inner_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP_BUILDDIR" "$@"; }
# Plugins built in this tree (zstd and http are optional at configure time).
built_plugins() {
	for p in aio_file uring_file zstd http pipe; do
		[ -e "$TOP_BUILDDIR/plugins/$p/$p.la" ] && echo "$p"
	done
}
# present DIR NAME...: each NAME exists under DIR (missing ones are shown).
present() {
	local dir=$1 miss=0; shift
	for f in "$@"; do
		[ -e "$dir/$f" ] || { diag "missing: $dir/$f"; miss=1; }
	done
	return $miss
}
# logged LOG CMD...: CMD with its output in LOG (check prints to stdout).
logged() { local log=$1; shift; "$@" >"$log" 2>&1; }
# pc ARGS...: pkg-config that sees only the DESTDIR's perfsink.pc and
# prefixes its paths with the DESTDIR.
pc() {
	PKG_CONFIG_LIBDIR="$D$INST_LIBDIR/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D" \
		pkg-config "$@"
}
# pc_agrees: perfsink.pc names the installed include dir, the kit library
# and the plugin directory.
pc_agrees() {
	{ pc --cflags perfsink; pc --libs perfsink; pc --variable=plugindir perfsink; } >"$T/pc.txt" &&
		printf '%s\n' "-I$D${INST_PKGINCLUDEDIR%/perfsink}" \
			"-L$D$INST_LIBDIR -Wl,-rpath,$D$INST_LIBDIR -lperfsink-sink" \
			"$D$INST_PKGLIBDIR" | diff -b - "$T/pc.txt" >>"$T/pc.txt"
}
# build_example: count_sink.so in $T/plugins, from the installed header only.
build_example() {
	mkdir -p "$T/plugins" && local cflags && cflags=$(pc --cflags perfsink) &&
		diag "cflags: $cflags" &&
		# shellcheck disable=SC2086
		cc -std=c11 -Wall -Wextra -Werror -shared -fPIC $cflags -o "$T/plugins/count_sink.so" \
			"$TOP_SRCDIR/examples/count_sink/count_sink.c"
}
# record_counted: a short recording into the example sink only.
record_counted() {
	printf '[sink.count]\nplugin = count_sink\nreport = %s\n' "$T/counts.txt" >"$T/count.ini" &&
		"$PERFSINK" record --config "$T/count.ini" --plugin-dir "$T/plugins" \
			-e cpu-clock -F 999 -- "$WORKLOAD" cpu 300
}
samples_counted() { awk '$1 == "SAMPLE" && $2 > 0 { n++ } END { exit !n }' "$T/counts.txt"; }
# prefix_install: the kit, the headers and perfsink.pc installed with prefix
# T/pfx, as `configure --prefix=T/pfx` would place them (the plugins, linked
# for this build's prefix, libtool installs nowhere else); perfsink.pc read
# with that prefix.  Fails when this build's libdir is not below its prefix.
PFX=$T/pfx
pfx_pc() { PKG_CONFIG_LIBDIR="$PFX/lib/pkgconfig" pkg-config --define-variable=prefix="$PFX" "$@"; }
prefix_install() {
	local dirs=(prefix="$PFX" exec_prefix="$PFX" libdir="$PFX/lib" includedir="$PFX/include"
		pkgincludedir="$PFX/include/perfsink" pkgconfigdir="$PFX/lib/pkgconfig")
	inner_make -C plugins/kit install "${dirs[@]}" &&
		inner_make install-pkgincludeHEADERS install-pkgconfigDATA "${dirs[@]}" &&
		test "$(pfx_pc --variable=libdir perfsink)" = "$PFX/lib"
}
# build_linked: count_sink.so in T/pplugins, built and linked with the
# prefix's pkg-config --cflags --libs (the kit becomes a NEEDED library).
build_linked() {
	mkdir -p "$T/pplugins" && local flags && flags=$(pfx_pc --cflags --libs perfsink) &&
		diag "flags: $flags" &&
		# shellcheck disable=SC2086
		cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -Wl,--no-as-needed \
			-o "$T/pplugins/count_sink.so" "$TOP_SRCDIR/examples/count_sink/count_sink.c" $flags &&
		readelf -d "$T/pplugins/count_sink.so" | grep -q 'NEEDED.*libperfsink-sink'
}
record_linked() {
	printf '[sink.count]\nplugin = count_sink\nreport = %s\n' "$T/pcounts.txt" >"$T/pcount.ini" &&
		env -u LD_LIBRARY_PATH "$PERFSINK" record --config "$T/pcount.ini" --plugin-dir "$T/pplugins" \
			-e cpu-clock -F 999 -- "$WORKLOAD" cpu 300
}
# summary_true: configure's summary (in config.log) names the plugin
# directory expanded, as installed, and every plugin this tree built.
summary_true() {
	local log=$TOP_BUILDDIR/config.log p
	grep -qx "  plugins: *$INST_PKGLIBDIR" "$log" || return 1
	local words=" $(sed -n 's/^  sinks: *//p' "$log") "
	for p in $(built_plugins); do
		[[ $words == *" $p "* ]] || { diag "the sinks line lacks $p:$words"; return 1; }
	done
}
left_files() { find "$D" \( -type f -o -type l \) -print; }

# unit_names_install: the installed unit runs the installed binary with /etc/perfsink/NAME.ini.
unit_names_install() {
	grep -q "^ExecStart=$INST_BINDIR/perfsink record --no-status --config $INST_SYSCONFDIR/perfsink/%i.ini\$" \
		"$D$INST_UNITDIR/perfsink@.service"
}

plan 20
check "configure's summary: plugins $INST_PKGLIBDIR, every sink built" summary_true ||
	grep -A8 '^perfsink [0-9]' "$TOP_BUILDDIR/config.log" | sed 's/^/# /'
check "make install DESTDIR exits 0" logged "$T/install.log" inner_make install DESTDIR="$D" ||
	show "$T/install.log"
check "bin/perfsink installed and runs" logged "$T/help.txt" "$D$INST_BINDIR/perfsink" --help
# shellcheck disable=SC2046
check "every built plugin in $INST_PKGLIBDIR" present "$D$INST_PKGLIBDIR" $(built_plugins | sed 's/$/.so/')
check "no libtool archive in the plugin directory" \
	test -z "$(find "$D$INST_PKGLIBDIR" -name '*.la' | tee "$T/la.txt")" || show "$T/la.txt"
check "the kit library in $INST_LIBDIR" logged /dev/null compgen -G "$D$INST_LIBDIR/libperfsink-sink.so*"
check "no libtool archive in $INST_LIBDIR" \
	test -z "$(find "$D$INST_LIBDIR" -maxdepth 1 -name '*.la' | tee "$T/libla.txt")" || show "$T/libla.txt"
check "headers sink.h and kit.h" present "$D$INST_PKGINCLUDEDIR" sink.h kit.h
check "man pages perfsink.1, perfsink.ini.5 and perfsink-sink.3" \
	present "$D$INST_MANDIR" man1/perfsink.1 man5/perfsink.ini.5 man3/perfsink-sink.3
check "example config and docs" present "$D" "$INST_SYSCONFDIR/perfsink/perfsink.ini" \
	"$INST_DOCDIR/README.md" "$INST_DOCDIR/ARCHITECTURE.md" "$INST_DOCDIR/perf-format.md"
check "fleet files: perfsink@.service, fleet.ini, bash and zsh completions" present "$D" \
	"$INST_UNITDIR/perfsink@.service" "$INST_SYSCONFDIR/perfsink/fleet.ini" "$INST_COMPLETIONDIR/perfsink" \
	"$INST_ZSHCOMPLETIONDIR/_perfsink"
check "the installed unit names the installed binary and config directory" unit_names_install ||
	show "$D$INST_UNITDIR/perfsink@.service"
check "perfsink.pc: cflags, libs and plugindir" pc_agrees || show "$T/pc.txt"
check "example sink builds with pkg-config --cflags perfsink" \
	logged "$T/cc.log" build_example || show "$T/cc.log"
if [ "$(id -u)" != 0 ]; then
	skip "example sink: recording needs root for perf_event_open"
	skip "example sink: no recording, no counts"
else
	check "perfsink loads it from --plugin-dir and records" \
		logged "$T/record.log" record_counted || show "$T/record.log"
	check "its report counts SAMPLE records" samples_counted || show "$T/counts.txt"
fi
check "make install into another prefix ($PFX)" logged "$T/pinstall.log" prefix_install ||
	show "$T/pinstall.log"
check "a sink linked with that prefix's pkg-config --libs perfsink builds" \
	logged "$T/pcc.log" build_linked || show "$T/pcc.log"
if [ "$(id -u)" != 0 ]; then
	skip "linked sink: recording needs root for perf_event_open"
else
	check "perfsink loads it (libperfsink-sink.so.1 found through its run path) and records" \
		logged "$T/precord.log" record_linked || show "$T/precord.log"
fi
inner_make uninstall DESTDIR="$D" >"$T/uninstall.log" 2>&1
check "make uninstall leaves no file" test -z "$(left_files | tee "$T/left.txt")" ||
	show "$T/uninstall.log" "$T/left.txt"
done_testing
