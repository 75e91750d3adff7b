#!/bin/bash
# perfsink ls and fetch of an S3 collector (moto_server on loopback, which
# checks SigV4): a recording sent by the http sink in s3 mode is listed
# (ListObjectsV2) and comes back as a perf.data file whose perf report
# equals the local aio_file copy's; endpoint and credentials come from the
# environment or from the sink's section in --config; a wrong secret is a
# clear 403.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v moto_server >/dev/null && python3 -c 'import boto3' 2>/dev/null ||
	{ echo "1..0 # SKIP moto_server or boto3 not installed"; exit 0; }

T=$(mktemp -d /tmp/fetch_s3.XXXXXX)
MOTO_PID=
trap '[ -n "$MOTO_PID" ] && kill $MOTO_PID 2>/dev/null; wait; rm -rf "$T"' EXIT
echo "1..9"

P=$(free_port)
EP=http://127.0.0.1:$P
INITIAL_NO_AUTH_ACTION_COUNT=4 moto_server -H 127.0.0.1 -p "$P" >"$T/moto.log" 2>&1 &
MOTO_PID=$!
wait_port "$P" || { echo "Bail out! moto_server did not start"; exit 1; }
read -r KID SECRET < <(python3 "$TESTS_SRCDIR/integration/http_moto_setup.py" "$EP" bkt)
[ -n "$SECRET" ] || { echo "Bail out! moto setup failed"; exit 1; }
printf '[other]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$KID" "$SECRET" > "$T/credentials"

cat > "$T/c.ini" <<INI
[sink.local]
plugin = aio_file
path = $T/local.data
[sink.bucket]
plugin = http
mode = s3
url = $EP
bucket = bkt
prefix = runs
path_style = true
credentials_file = $T/credentials
profile = other
spool_dir = $T/spool
part_size = 16K
INI
report() { "$PERF" report -i "$1" --stdio 2>/dev/null | grep -v '^# (Tip:'; }
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_PROFILE
(cd "$T" && "$PERFSINK" record -e cpu-clock -F 999 -g --config c.ini -- "$TESTS_BUILDDIR/integration/workload" cpu 800 \
	>"$T/r.out" 2>"$T/r.err")
check "record fanned out to aio_file and s3" test $? = 0 || sed 's/^/# /' "$T/r.err"

env3() { AWS_ACCESS_KEY_ID=$KID AWS_SECRET_ACCESS_KEY=$SECRET AWS_ENDPOINT_URL=$EP "$@"; }
env3 "$PERFSINK" ls s3://bkt/runs >"$T/ls.out" 2>"$T/ls.err"
check "ls s3://bucket/prefix with credentials and endpoint from the environment" test $? = 0 ||
	sed 's/^/# /' "$T/ls.err"
read -r HOST SESS _ _ PARTS BYTES _ STATE < <(sed -n 2p "$T/ls.out")
check "lists the session: ended, its parts and bytes" \
	bash -c "test '$STATE' = ended && test '$PARTS' -ge 3 && test '$BYTES' -gt 10000"
"$PERFSINK" ls --config "$T/c.ini" s3://bkt/runs >"$T/ls2.out" 2>"$T/ls2.err"
check "ls --config: endpoint, path style and credentials file from the sink's section" \
	diff -q "$T/ls.out" "$T/ls2.out" || sed 's/^/# /' "$T/ls2.err"
AWS_ACCESS_KEY_ID=$KID AWS_SECRET_ACCESS_KEY=wrong AWS_ENDPOINT_URL=$EP \
	"$PERFSINK" ls s3://bkt/runs >"$T/ls3.out" 2>"$T/ls3.err"
check "a wrong secret: exit 1 with HTTP 403 SignatureDoesNotMatch" \
	bash -c "test $? = 1 && grep -q 'HTTP 403 SignatureDoesNotMatch' '$T/ls3.err'"
check "and no secret in the message" fails grep -q -e "$SECRET" -e wrong "$T/ls3.err"

env3 "$PERFSINK" fetch --no-symbols -o "$T/f.data" "s3://bkt/runs/$HOST/$SESS" >"$T/f.out" 2>"$T/f.err"
check "fetch s3://bucket/prefix/host/session exits 0" test $? = 0 || sed 's/^/# /' "$T/f.err"
report "$T/f.data" > "$T/a.txt"
report "$T/local.data" > "$T/b.txt"
check "perf report of the fetched file equals the local aio_file copy's" \
	bash -c "test \$(grep -c '%' '$T/a.txt') -gt 3 && diff -q '$T/a.txt' '$T/b.txt'"
python3 - "$EP" "$KID" "$SECRET" "runs/$HOST/$SESS/0000000001" <<'PY'
import sys, boto3
s3 = boto3.client('s3', endpoint_url=sys.argv[1], region_name='us-east-1',
                  aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3])
s3.delete_object(Bucket='bkt', Key=sys.argv[4])
PY
env3 "$PERFSINK" fetch --no-symbols -o "$T/g.data" "s3://bkt/runs/$HOST/$SESS" >"$T/g.out" 2>"$T/g.err"
check "a deleted object: exit 1 naming the gap" \
	bash -c "test $? = 1 && grep -q 'gap: part 0000000001 of $HOST/$SESS is missing' '$T/g.err'"
exit $tap_fail
