#!/bin/bash
# The pprof sink (mode = put with a bucket) against moto_server, which
# checks SigV4: every window is an object {prefix}/{host}/{session}/
# {from_ms}.pb.gz, go tool pprof reads each, their samples add up to the
# recording's.
. "$TESTS_SRCDIR/lib/http_lib.sh"
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/integration/pprof_sink_lib.sh"
need_root
command -v moto_server >/dev/null && python3 -c 'import boto3' 2>/dev/null ||
	skip_all "moto_server or boto3 not installed"
need_go
MOTO=
cleanup_hook() { [ -z "$MOTO" ] || kill "$MOTO"; }
plan 4

P=$(free_port)
EP=http://127.0.0.1:$P
INITIAL_NO_AUTH_ACTION_COUNT=4 moto_server -H 127.0.0.1 -p "$P" >"$T/moto.log" 2>&1 &
MOTO=$!
wait_port "$P" || { echo "Bail out! moto_server did not start"; exit 1; }
read -r KID SECRET < <(python3 "$TESTS_SRCDIR/integration/http_moto_setup.py" "$EP" bkt)
[ -n "$SECRET" ] || { echo "Bail out! moto setup failed"; exit 1; }

AWS_ACCESS_KEY_ID=$KID AWS_SECRET_ACCESS_KEY=$SECRET record_fanout s "mode = put" "url = $EP" \
	"bucket = bkt" "path_style = true" "prefix = profiles"
check "record with aio_file and pprof (mode = put, S3) succeeds" test "$(cat "$T/s.rc")" = 0 ||
	sed 's/^/# /' "$T/s.err"
mkdir -p "$T/got"
python3 - "$EP" "$KID" "$SECRET" "$T/got" > "$T/keys" <<'PY'
import os, sys, boto3
ep, kid, secret, out = sys.argv[1:]
s3 = boto3.client('s3', endpoint_url=ep, region_name='us-east-1',
                  aws_access_key_id=kid, aws_secret_access_key=secret)
for o in s3.list_objects_v2(Bucket='bkt').get('Contents', []):
    print(o['Key'])
    s3.download_file('bkt', o['Key'], os.path.join(out, o['Key'].replace('/', '_')))
PY
check "windows are objects profiles/{host}/{session}/{from_ms}.pb.gz" \
	bash -c "[ \$(grep -cE '^profiles/[^/]+/[^/]+/[0-9]{13}\.pb\.gz$' '$T/keys') -ge 3 ]"
mapfile -t W < <(ls "$T"/got/*)
check "go tool pprof reads every window" all_read "${W[@]}"
check "the windows' samples add up to the recording's" same_count "$T/s.data" "${W[@]}"
done_testing
