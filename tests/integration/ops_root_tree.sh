#!/bin/bash
# A tree root unpacked from `git archive` and built with umask 002: every
# directory 0775 and every plugin 0775, owner and group root.  Root's group
# writing is root writing, so `./src/perfsink record` loads its own
# plugins from it; a directory or plugin another group may write is still
# refused, and so is one others may write.
#
# The build is simulated faithfully rather than run (a full autoreconf,
# configure and make would take minutes of this suite): the tree is
# `git archive HEAD` unpacked as root (no git: the same directories made
# with umask 002), and this build's binary and plugins are put at their
# places in it as the linker and libtool make them under umask 002
# (mkdir .libs, files 0775).
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 6
cd "$T"
umask 002
TREE=$T/tree
mkdir "$TREE"
# Only a checkout's own top: make distcheck's tree sits untracked inside
# a clone, where git archive fails.
if [ "$(git -C "$TOP_SRCDIR" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$TOP_SRCDIR" && pwd -P)" ]; then
	git -C "$TOP_SRCDIR" archive --format=tar HEAD | tar -x -C "$TREE" || exit 1
	diag "the tree: git archive HEAD of $TOP_SRCDIR, unpacked as root"
else
	mkdir -p "$TREE/src" "$TREE/plugins"
	diag "no git: the tree's directories made with umask 002"
fi
install -m 0775 "$TOP_BUILDDIR/src/perfsink" "$TREE/src/perfsink"
for so in "$TOP_BUILDDIR"/plugins/*/.libs/*.so; do
	p=$(basename "$(dirname "$(dirname "$so")")")
	[ "$(basename "$so")" = "$p.so" ] || continue # the kit library is no plugin
	mkdir -p "$TREE/plugins/$p/.libs"
	install -m 0775 "$so" "$TREE/plugins/$p/.libs/"
done
SO=$TREE/plugins/aio_file/.libs/aio_file.so
check "the tree is as root builds it with umask 002 (directories and plugins 0775, root:root)" \
	eval "test \"\$(stat -c '%a %u %g' '$TREE/plugins' '$TREE/plugins/aio_file/.libs' '$SO' | sort -u)\" = '775 0 0'" ||
	stat -c '%a %u %g %n' "$TREE" "$TREE/plugins" "$TREE/plugins/aio_file/.libs" "$SO" | sed 's/^/# /'

"$TREE/src/perfsink" record -e cpu-clock -F 999 -o "$T/tree.data" -- "$WORKLOAD" cpu 200 > "$T/rec.out" 2> "$T/rec.err"
rc=$?
check "./src/perfsink record loads its own plugins from that tree" \
	eval "test $rc = 0 && grep -q 'written to $T/tree.data' '$T/rec.err'" || show "$T/rec.err"
check "perf report reads what it wrote" perf_clean "$T/tree.data"
"$TREE/src/perfsink" sinks > "$T/sinks.out" 2>&1
check "perfsink sinks lists them all, none refused" \
	eval "grep -q '^  aio_file - ' '$T/sinks.out' && ! grep -q 'cannot load' '$T/sinks.out'" || show "$T/sinks.out"

# Another group may write the plugins' directory: refused, naming it.
chgrp nogroup "$TREE/plugins"
"$TREE/src/perfsink" record -e cpu-clock -o "$T/no.data" -- true > /dev/null 2> "$T/grp.err"
rc=$?
check "a directory another group may write is refused (exit 2, the directory named)" \
	eval "test $rc = 2 && grep -q 'directory $TREE/plugins is group-writable (mode 0775, group [1-9][0-9]*)' '$T/grp.err'" ||
	show "$T/grp.err"
chgrp root "$TREE/plugins"
# Both file sinks: the built-in config (plugin = file) loads uring_file
# where it is built and must not fall back to aio_file past a refused one.
chmod o+w "$SO" "$TREE"/plugins/uring_file/.libs/uring_file.so 2>/dev/null
"$TREE/src/perfsink" record -e cpu-clock -o "$T/no.data" -- true > /dev/null 2> "$T/ww.err"
rc=$?
check "a plugin others may write is refused" \
	eval "test $rc = 2 && grep -q 'refusing a world-writable plugin' '$T/ww.err'" || show "$T/ww.err"
done_testing
