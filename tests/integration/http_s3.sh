#!/bin/bash
# http sink in s3 mode against moto_server on loopback, which checks SigV4
# (INITIAL_NO_AUTH_ACTION_COUNT): objects concatenate to the stream, a
# wrong secret is a clear 403, credentials come from the environment or a
# credentials file, large parts go as multipart uploads.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v moto_server >/dev/null && python3 -c 'import boto3' 2>/dev/null ||
	{ echo "1..0 # SKIP moto_server or boto3 not installed"; exit 0; }

T=$(mktemp -d /tmp/http_s3.XXXXXX)
MOTO_PID=
trap '[ -n "$MOTO_PID" ] && kill $MOTO_PID 2>/dev/null; wait; rm -rf "$T"' EXIT
echo "1..11"

make_stream "$T/s.pipe"
P=$(free_port)
EP=http://127.0.0.1:$P
INITIAL_NO_AUTH_ACTION_COUNT=4 moto_server -H 127.0.0.1 -p "$P" >"$T/moto.log" 2>&1 &
MOTO_PID=$!
wait_port "$P" || { echo "Bail out! moto_server did not start"; exit 1; }
read -r KID SECRET < <(python3 "$TESTS_SRCDIR/integration/http_moto_setup.py" "$EP" bkt)
[ -n "$SECRET" ] || { echo "Bail out! moto setup failed"; exit 1; }

s3drv() { # s3drv SESSION [opts/keys...]
	local s=$1; shift
	"$HTTP_DRIVER" record "$HTTP_PLUGIN" "$T/s.pipe" -s "$s" mode=s3 url=$EP bucket=bkt \
		path_style=true spool_dir="$T/spool" "$@"
}
objects() { # objects PREFIX OUT: list (key size) and concatenate
	python3 "$TESTS_SRCDIR/integration/http_moto_setup.py" --get "$EP" bkt "$1" "$KID" "$SECRET" "$2"
}

AWS_ACCESS_KEY_ID=$KID AWS_SECRET_ACCESS_KEY=$SECRET s3drv e1 -b 4096 part_size=16K prefix=runs \
	>"$T/e1.out" 2>"$T/e1.err"
check "s3 with credentials from the environment: every op returns 0" test $? = 0
objects runs/testhost/e1/ "$T/e1.got" > "$T/e1.keys"
check "objects are {prefix}/{host}/{session}/{seq}" \
	grep -qx "runs/testhost/e1/0000000000 [0-9]*" "$T/e1.keys"
check "the objects concatenate to the stream" cmp -s "$T/e1.got" "$T/s.pipe"

AWS_ACCESS_KEY_ID=$KID AWS_SECRET_ACCESS_KEY=not-the-secret s3drv e2 >"$T/e2.out" 2>"$T/e2.err"
check "a wrong secret fails the sink" test $? = 1
check "with a clear 403 SignatureDoesNotMatch naming the object" \
	grep -q "PUT $EP/bkt/testhost/e2/0000000000: HTTP 403 SignatureDoesNotMatch" "$T/e2.err"
check "no secret in the log" bash -c "! grep -q -e '$SECRET' -e not-the-secret '$T/e2.err'"

printf '[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n[perf]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
	"$KID" "$SECRET" > "$T/credentials"
rm -rf "$T/spool"
(unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY; s3drv f1 credentials_file="$T/credentials" \
	profile=perf >"$T/f1.out" 2>"$T/f1.err")
objects testhost/f1/ "$T/f1.got" >/dev/null
check "credentials_file with a profile" cmp -s "$T/f1.got" "$T/s.pipe"
(unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY; s3drv f2 credentials_file="$T/nonexistent" \
	>"$T/f2.out" 2>"$T/f2.err")
check "no credentials: open fails with a clear message" \
	grep -q "no AWS_ACCESS_KEY_ID.*$T/nonexistent cannot be read" "$T/f2.err"

# The stream repeated to ~14 MiB in 64 KiB buffers (its size depends on the
# machine's speed): a 12 MiB part goes as 5+5+2 MiB chunks.
reps=$(( 14 * 1024 * 1024 / $(stat -c %s "$T/s.pipe") + 1 ))
AWS_ACCESS_KEY_ID=$KID AWS_SECRET_ACCESS_KEY=$SECRET s3drv m1 -b 65536 -r "$reps" -e "$T/m1.exp" \
	part_size=12M multipart_chunk=5M max_latency=60s >"$T/m1.out" 2>"$T/m1.err"
objects testhost/m1/ "$T/m1.got" > "$T/m1.keys"
check "a part over multipart_chunk is stored whole" \
	awk '$2 > 12000000 { big = 1 } END { exit !big }' "$T/m1.keys"
check "by a multipart upload of 3 chunks" \
	test "$(grep -c 'PUT /bkt/testhost/m1/0000000001?partNumber=[0-9]&uploadId=' "$T/moto.log")" = 3
check "the multipart objects concatenate to the stream" cmp -s "$T/m1.got" "$T/m1.exp"
exit 0
