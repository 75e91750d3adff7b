#!/bin/sh
# The auth keys of a collector (bearer_token_file, user, password_file)
# are read and checked by one implementation (perfsink_coll_auth_load):
# the http sink, the pprof sink and `perfsink ls --config` refuse the same
# sets with the same message, exit 2, before any request is made.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
cd "$T"
plan 16
echo t0ken >token
echo s3cret >pw
chmod 600 token pw
# sink PLUGIN SET...: a config of one sink of that plugin with the keys given.
sink() {
	p=$1
	shift
	{
		echo "[sink.s]"
		echo "plugin = $p"
		echo "url = http://127.0.0.1:9/c"
		echo "spool_dir = $T/spool" # not the machine's /var/spool/perfsink
		for k in "$@"; do echo "$k"; done
	} >"$p.ini"
}
# "description|message|keys" (keys split on spaces)
cases="bearer with user and password|use either bearer_token_file or user + password_file|bearer_token_file=$T/token user=u password_file=$T/pw
user without password_file|user needs password_file|user=u
password_file without user|password_file needs user|password_file=$T/pw"
IFS='
'
for c in $cases; do
	desc=${c%%|*}
	rest=${c#*|}
	want=${rest%%|*}
	keys=$(echo "${rest#*|}" | tr ' ' '\n' | sed 's/=/ = /')
	for p in http pprof; do
		# shellcheck disable=SC2086
		sink $p $keys
		"$PERFSINK" check --config "$p.ini" -- "$WORKLOAD" exit 0 >out 2>err
		rc=$?
		if [ $rc -eq 2 ] && grep -q -- "$want" err && ! grep -q 't0ken\|s3cret' err; then
			ok "$p sink, $desc: refused at check, exit 2"
		else
			not_ok "$p sink, $desc: refused at check, exit 2 (got $rc)"
			show err
		fi
	done
	sink http $keys
	"$PERFSINK" ls --config http.ini http://127.0.0.1:9/c >out 2>err
	rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$want" err && [ "$(wc -l <err)" -eq 1 ]; then
		ok "ls --config, $desc: the sink's refusal, exit 2, one line"
	else
		not_ok "ls --config, $desc: the sink's refusal, exit 2, one line (got $rc)"
		show err
	fi
done
unset IFS
# The sets each accepts are the same too.
for set in "bearer_token_file = $T/token" "user = u|password_file = $T/pw" ""; do
	for p in http pprof; do
		IFS='|'
		# shellcheck disable=SC2086
		sink $p $set
		unset IFS
		if "$PERFSINK" check --config "$p.ini" -- "$WORKLOAD" exit 0 >out 2>err; then
			ok "$p sink accepts '${set:-no auth}'"
		else
			not_ok "$p sink accepts '${set:-no auth}'"
			show err
		fi
	done
done
# A file that cannot be read: every reader names the key and the file, no secret.
sink http "bearer_token_file = $T/nonexistent"
"$PERFSINK" ls --config http.ini http://127.0.0.1:9/c >out 2>err
rc=$?
check "ls --config, unreadable bearer_token_file: exit 1 naming it" \
	sh -c "[ $rc -eq 1 ] && grep -q 'bearer_token_file .*/nonexistent' err"
done_testing
