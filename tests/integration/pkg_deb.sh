#!/bin/bash
# The Debian package, so that packaging cannot rot: debian/ as shipped, on
# the release tree (make distdir: what the tarball holds), built with
# `dpkg-buildpackage -us -uc -b` (its own configure and build; the suite is
# not run: nocheck), then
#   - lintian: no error, every warning fixed or overridden with its reason;
#   - dpkg-deb -c of perfsink and libperfsink-sink-dev against the expected
#     file list (what goes where, the spool root only);
#   - installed with dpkg -i into a throwaway root (an overlay of / on a
#     tmpfs, in a mount namespace of this test: the machine is not touched):
#     the unit in /lib/systemd/system naming /usr/bin and /etc/perfsink, so
#     does perfsink(1), the configs as conffiles, `perfsink check --config /etc/perfsink/fleet.ini
#     -a` passes, a sink builds against libperfsink-sink-dev with pkg-config;
#   - dpkg -r leaves only the configs and the service's data, dpkg -P nothing.
# Under make distcheck the sources are read-only: the tree is copied first,
# so it works there too.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
for t in dpkg-buildpackage dh lintian chrpath unshare; do
	command -v "$t" >/dev/null ||
		skip_all "$t is not installed (dpkg-dev debhelper lintian chrpath: ./bootstrap --test installs them)"
done
plan 18
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
VERSION=$(dpkg-parsechangelog -l "$TOP_SRCDIR/debian/changelog" -S Version)
inner_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP_BUILDDIR" "$@"; }

# 1. The release tree (a relative distdir: automake's recursion needs one).
SRC=$T/build/perfsink-$VERSION
mkdir -p "$T/build"
inner_make distdir distdir="$(realpath --relative-to="$TOP_BUILDDIR" "$SRC")" >"$T/distdir.log" 2>&1
check "make distdir has debian/" test -x "$SRC/debian/rules" || show "$T/distdir.log"
start=$SECONDS
(cd "$SRC" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1
rc=$?
diag "dpkg-buildpackage took $((SECONDS - start)) s"
check "dpkg-buildpackage -us -uc -b builds the packages (exit $rc)" [ $rc = 0 ] || { tail -n 40 "$T/build.log" | sed 's/^/# /'; }
DEB=$T/build/perfsink_${VERSION}_$(dpkg --print-architecture).deb
DEV=$T/build/libperfsink-sink-dev_${VERSION}_$(dpkg --print-architecture).deb

# 2. lintian: errors and warnings fail it; overridden tags do not.
lintian --fail-on error,warning \
	"$T/build/perfsink_${VERSION}_$(dpkg --print-architecture).changes" >"$T/lintian.log" 2>&1
check "lintian: no error or warning (overrides have their reason)" [ $? = 0 ] || show "$T/lintian.log"

# 3. The file lists: MODE PATH, the multiarch directory as MA, the kit's
# age and revision as A.R (the soname is the contract), docs apart.
listing() {
	dpkg-deb -c "$1" | awk -v ma="$MA" '{ p = $6; sub("^\\.", "", p); if (p != "/") sub("/$", "", p)
		gsub(ma, "MA", p); sub("\\.so\\.1\\.[0-9]+\\.[0-9]+$", ".so.1.A.R", p); print $1, p }' |
		grep -v ' /usr/share/doc/.' | sort -k2
}
expect_perfsink() {
	cat <<EOF
drwxr-xr-x /
drwxr-xr-x /etc
drwxr-xr-x /etc/perfsink
-rw-r--r-- /etc/perfsink/fleet.ini
-rw-r--r-- /etc/perfsink/perfsink.ini
drwxr-xr-x /lib
drwxr-xr-x /lib/systemd
drwxr-xr-x /lib/systemd/system
-rw-r--r-- /lib/systemd/system/perfsink@.service
drwxr-xr-x /usr
drwxr-xr-x /usr/bin
-rwxr-xr-x /usr/bin/perfsink
drwxr-xr-x /usr/lib
drwxr-xr-x /usr/lib/MA
lrwxrwxrwx /usr/lib/MA/libperfsink-sink.so.1
-rw-r--r-- /usr/lib/MA/libperfsink-sink.so.1.A.R
drwxr-xr-x /usr/lib/MA/perfsink
-rw-r--r-- /usr/lib/MA/perfsink/aio_file.so
-rw-r--r-- /usr/lib/MA/perfsink/http.so
-rw-r--r-- /usr/lib/MA/perfsink/pipe.so
-rw-r--r-- /usr/lib/MA/perfsink/pprof.so
-rw-r--r-- /usr/lib/MA/perfsink/uring_file.so
-rw-r--r-- /usr/lib/MA/perfsink/zstd.so
drwxr-xr-x /usr/libexec
drwxr-xr-x /usr/libexec/perfsink
-rwxr-xr-x /usr/libexec/perfsink/perfsink-profile
drwxr-xr-x /usr/share
drwxr-xr-x /usr/share/bash-completion
drwxr-xr-x /usr/share/bash-completion/completions
-rw-r--r-- /usr/share/bash-completion/completions/perfsink
drwxr-xr-x /usr/share/doc
drwxr-xr-x /usr/share/lintian
drwxr-xr-x /usr/share/lintian/overrides
-rw-r--r-- /usr/share/lintian/overrides/perfsink
drwxr-xr-x /usr/share/man
drwxr-xr-x /usr/share/man/man1
-rw-r--r-- /usr/share/man/man1/perfsink.1.gz
drwxr-xr-x /usr/share/man/man5
-rw-r--r-- /usr/share/man/man5/perfsink.ini.5.gz
drwxr-xr-x /usr/share/zsh
drwxr-xr-x /usr/share/zsh/vendor-completions
-rw-r--r-- /usr/share/zsh/vendor-completions/_perfsink
drwxr-xr-x /var
drwxr-xr-x /var/lib
drwxr-xr-x /var/lib/perfsink
drwxr-xr-x /var/lib/perfsink/metrics
drwxr-xr-x /var/spool
drwx------ /var/spool/perfsink
EOF
}
expect_dev() {
	cat <<EOF
drwxr-xr-x /
drwxr-xr-x /usr
drwxr-xr-x /usr/include
drwxr-xr-x /usr/include/perfsink
-rw-r--r-- /usr/include/perfsink/kit.h
-rw-r--r-- /usr/include/perfsink/sink.h
drwxr-xr-x /usr/lib
drwxr-xr-x /usr/lib/MA
lrwxrwxrwx /usr/lib/MA/libperfsink-sink.so
drwxr-xr-x /usr/lib/MA/pkgconfig
-rw-r--r-- /usr/lib/MA/pkgconfig/perfsink.pc
drwxr-xr-x /usr/share
drwxr-xr-x /usr/share/doc
drwxr-xr-x /usr/share/man
drwxr-xr-x /usr/share/man/man3
-rw-r--r-- /usr/share/man/man3/perfsink-sink.3.gz
EOF
}
listing "$DEB" >"$T/perfsink.list"
check "dpkg-deb -c perfsink: the expected files and modes" \
	eval "expect_perfsink | sort -k2 | diff - '$T/perfsink.list' >'$T/perfsink.diff'" || show "$T/perfsink.diff"
listing "$DEV" >"$T/dev.list"
check "dpkg-deb -c libperfsink-sink-dev: the expected files and modes" \
	eval "expect_dev | sort -k2 | diff - '$T/dev.list' >'$T/dev.diff'" || show "$T/dev.diff"
dpkg-deb -c "$DEB" | awk '{ print $6 }' | grep '^\./usr/share/doc/perfsink/' >"$T/doc.list"
check "perfsink's docs: README, copyright, changelog" \
	eval "grep -q 'README.md' '$T/doc.list' && grep -q '/copyright$' '$T/doc.list' && grep -q '/changelog.gz$' '$T/doc.list'" ||
	show "$T/doc.list"

# 4. The throwaway root: an overlay of / whose writes go to a tmpfs, in a
# mount namespace that ends with this script's call.  It runs the steps
# below (in_root) and writes what they found to $T/root.*.
in_root() {
	set -u
	local o=$T/ovl r=$T/ovl/root
	mkdir -p "$o"
	mount -t tmpfs tmpfs "$o" && mkdir "$o/up" "$o/work" "$r" &&
		mount -t overlay overlay -o "lowerdir=/,upperdir=$o/up,workdir=$o/work" "$r" || return 1
	for m in proc sys dev; do mount --rbind "/$m" "$r/$m"; done
	ch() { chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
	# What the package leaves, by name, in what the overlay changed.
	left() { (cd "$o/up" && find . -path ./var/lib/dpkg -prune -o -path ./tmp -prune -o -print) |
		grep perfsink | sort; }
	ch dpkg -i "$DEB" "$DEV" >"$T/root.install" 2>&1
	echo $? >"$T/root.install.rc"
	ch cat /lib/systemd/system/perfsink@.service >"$T/root.unit" 2>&1
	ch zcat /usr/share/man/man1/perfsink.1.gz >"$T/root.man1" 2>&1
	ch dpkg-query -W -f='${Conffiles}\n' perfsink >"$T/root.conffiles" 2>&1
	ch stat -c '%a %U %n' /var/spool/perfsink /var/lib/perfsink/metrics >"$T/root.dirs" 2>&1
	# As the unit would: in the state directory, 0700.
	ch sh -c 'mkdir -m 700 -p /var/lib/perfsink/fleet && cd /var/lib/perfsink/fleet &&
		perfsink check --config /etc/perfsink/fleet.ini -a' >"$T/root.check" 2>&1
	echo $? >"$T/root.check.rc"
	ch perfsink sinks >"$T/root.sinks" 2>&1
	ch perfsink pprof --help >"$T/root.pprof" 2>&1
	echo $? >"$T/root.pprof.rc"
	cp "$TOP_SRCDIR/examples/count_sink/count_sink.c" "$r/root/"
	ch sh -c 'cd /root && cc -shared -fPIC -Wall -Werror $(pkg-config --cflags perfsink) -o count_sink.so count_sink.c $(pkg-config --libs perfsink)' \
		>"$T/root.cc" 2>&1
	echo $? >"$T/root.cc.rc"
	rm -f "$r/root/count_sink.c" "$r/root/count_sink.so"
	# What a service run leaves: outputs, a stats file, a spooled part.
	ch sh -c 'touch /var/lib/perfsink/fleet/fleet.data /var/lib/perfsink/metrics/fleet.prom &&
		mkdir -p /var/spool/perfsink/collector && touch /var/spool/perfsink/collector/0000000001'
	ch dpkg -r perfsink libperfsink-sink-dev >"$T/root.remove" 2>&1
	echo $? >>"$T/root.remove"
	left >"$T/root.left.removed"
	ch dpkg -P perfsink libperfsink-sink-dev >"$T/root.purge" 2>&1
	echo $? >>"$T/root.purge"
	left >"$T/root.left.purged"
}
# What the machine has of these paths, before and after: the same.
machine() { ls -ld /etc/perfsink /lib/systemd/system/perfsink@.service /usr/bin/perfsink /var/spool/perfsink 2>&1; }
machine >"$T/machine.before"
if [ -s "$DEB" ] && [ -s "$DEV" ]; then
	export -f in_root
	T=$T DEB=$DEB DEV=$DEV TOP_SRCDIR=$TOP_SRCDIR unshare -m --propagation private bash -c in_root \
		>"$T/root.log" 2>&1
fi
check "dpkg -i of both packages into the throwaway root" [ "$(cat "$T/root.install.rc" 2>/dev/null)" = 0 ] ||
	show "$T/root.log" "$T/root.install"
check "the unit runs /usr/bin/perfsink with /etc/perfsink/NAME.ini" \
	grep -qx 'ExecStart=/usr/bin/perfsink record --no-status --config /etc/perfsink/%i.ini' "$T/root.unit" ||
	show "$T/root.unit"
check "perfsink(1) names the package's paths (FILES: /etc/perfsink, /lib/systemd/system; no /usr/local)" \
	eval "grep -qx '.I /etc/perfsink/perfsink.ini' '$T/root.man1' &&
	      grep -qx '.I /lib/systemd/system/perfsink@.service' '$T/root.man1' &&
	      grep -qx '.I /usr/lib/$MA/perfsink/' '$T/root.man1' && ! grep -q /usr/local '$T/root.man1'" ||
	grep -n '/usr/local\|^\.I /' "$T/root.man1" | sed 's/^/# /'
check "the configs are conffiles" \
	eval "grep -q '^ /etc/perfsink/fleet.ini ' '$T/root.conffiles' && grep -q '^ /etc/perfsink/perfsink.ini ' '$T/root.conffiles'" ||
	show "$T/root.conffiles"
check "spool 0700 and stats directory 0755, root's" \
	eval "printf '700 root /var/spool/perfsink\n755 root /var/lib/perfsink/metrics\n' | diff - '$T/root.dirs'" ||
	show "$T/root.dirs"
check "perfsink check --config /etc/perfsink/fleet.ini -a passes on the installed tree" \
	[ "$(cat "$T/root.check.rc" 2>/dev/null)" = 0 ] || show "$T/root.check"
check "the installed perfsink finds the installed plugins in /usr/lib/$MA/perfsink" \
	eval "grep -qx '    /usr/lib/$MA/perfsink/aio_file.so' '$T/root.sinks' &&
	      grep -qx '    /usr/lib/$MA/perfsink/http.so' '$T/root.sinks'" || show "$T/root.sinks"
check "the installed perfsink runs pprof from /usr/libexec/perfsink/perfsink-profile" \
	eval "[ \"\$(cat '$T/root.pprof.rc' 2>/dev/null)\" = 0 ] && grep -q '^usage: perfsink pprof' '$T/root.pprof'" ||
	show "$T/root.pprof"
check "a sink builds against libperfsink-sink-dev (pkg-config perfsink)" \
	[ "$(cat "$T/root.cc.rc" 2>/dev/null)" = 0 ] || show "$T/root.cc"
# dpkg -r keeps the conffiles and the service's data (Debian policy 6.5,
# 10.7.3); dpkg -P removes them, and the postrm what the service made.
printf '%s\n' ./etc/perfsink ./etc/perfsink/fleet.ini ./etc/perfsink/perfsink.ini ./var/lib/perfsink \
	./var/lib/perfsink/fleet ./var/lib/perfsink/fleet/fleet.data ./var/lib/perfsink/metrics \
	./var/lib/perfsink/metrics/fleet.prom ./var/spool/perfsink ./var/spool/perfsink/collector \
	./var/spool/perfsink/collector/0000000001 >"$T/keep"
check "dpkg -r leaves the configs and the service's data, nothing else" \
	diff "$T/keep" "$T/root.left.removed" || show "$T/root.remove" "$T/root.left.removed"
check "dpkg -P leaves nothing" [ ! -s "$T/root.left.purged" ] || show "$T/root.purge" "$T/root.left.purged"
machine >"$T/machine.after"
check "the machine itself is untouched (/etc/perfsink, the unit, /usr/bin/perfsink, the spool)" \
	diff "$T/machine.before" "$T/machine.after"
done_testing
