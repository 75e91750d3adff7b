#!/bin/bash
# unit_run.sh CMD [ARGS...]: run CMD as systemd would run a command of the
# unit pkg_unit.sh read, without systemd as PID 1.  Run it in a mount
# namespace of its own (unshare -m --propagation private); it sets up:
#   /var/lib, /var/spool   UR_ROOT/var/lib and UR_ROOT/var/spool instead of
#                          the machine's (StateDirectory= already made there)
#   ProtectSystem=strict   every mount read-only but /proc, /sys, /dev and
#                          UR_RW (StateDirectory=, ReadWritePaths=; a "-"
#                          path that does not exist is skipped, as systemd does)
#   WorkingDirectory=      UR_WORKDIR;  UMask= UR_UMASK
#   CapabilityBoundingSet= UR_CAPS (setpriv's --bounding-set syntax)
#   the seccomp filters    UR_SECCOMP: unit_seccomp's arguments
# and then execs CMD: its PID is the caller's $! (MAINPID).  The
# environment is the caller's (pkg_unit.sh passes systemd's: no HOME).
set -eu
: "${UR_ROOT:?}" "${UR_RW:?}" "${UR_WORKDIR:?}" "${UR_UMASK:?}" "${UR_CAPS:?}" "${UR_SECCOMP:?}" "${UR_FILTER:?}"

mount --bind "$UR_ROOT/var/lib" /var/lib
mount --bind "$UR_ROOT/var/spool" /var/spool
rw=
for p in $UR_RW; do
	case $p in -*) p=${p#-}; [ -e "$p" ] || continue ;; esac
	mount --bind "$p" "$p"
	rw="$rw $p"
done
# Mount points as mountinfo lists them (field 5; \040 is a space).
awk '{ print $5 }' /proc/self/mountinfo | sort -u | while read -r m; do
	case $m in /proc | /proc/* | /sys | /sys/* | /dev | /dev/*) continue ;; esac
	for p in $rw; do [ "$m" = "$p" ] && continue 2; done
	mount -o remount,bind,ro "$(printf '%b' "$m")" 2>/dev/null || true
done
umask "$UR_UMASK"
cd "$UR_WORKDIR"
# shellcheck disable=SC2086
exec setpriv --bounding-set "$UR_CAPS" -- "$UR_FILTER" $UR_SECCOMP -- "$@"
