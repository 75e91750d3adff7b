#!/bin/bash
# http sink against a real nginx WebDAV collector on loopback: the parts
# concatenate to the stream, perf reads it like the original, retried
# parts are idempotent, 4xx is fatal with a clear message, auth works and
# keeps secrets out of the logs.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }

T=$(mktemp -d /tmp/http_nginx.XXXXXX)
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..14"

make_stream "$T/s.pipe"
P=$(free_port)
echo secret-token-123 > "$T/token"
echo pass-word-456 > "$T/password"
printf 'perf:%s\n' "$(openssl passwd -apr1 pass-word-456)" > "$T/htpasswd"
NGINX_EXTRA="
		}
		location /forbidden { return 403; }
		location /bearer {
			if (\$http_authorization != \"Bearer secret-token-123\") { return 401; }
			if (\$http_x_tenant != \"team-a\") { return 400; }
			dav_methods PUT; create_full_put_path on; client_max_body_size 0;
		}
		location /basic {
			auth_basic perf; auth_basic_user_file $T/htpasswd;
			dav_methods PUT; create_full_put_path on; client_max_body_size 0;"
nginx_conf "$T/ng" "$P"
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
URL=http://127.0.0.1:$P
D="$T/ng/root/perf/testhost/s1"

drv() { "$HTTP_DRIVER" record "$HTTP_PLUGIN" "$T/s.pipe" "$@"; }

drv -b 4096 -e "$T/exp.pipe" url=$URL/perf spool_dir="$T/spool" part_size=16K >"$T/out" 2>"$T/err"
check "record to nginx: every op returns 0" test $? = 0
parts_cat "$D" > "$T/got.pipe"
check "parts concatenate to the stream sent" cmp -s "$T/got.pipe" "$T/exp.pipe"
check "the stream sent is the input" cmp -s "$T/exp.pipe" "$T/s.pipe"
"$PERF" script -i - < "$T/got.pipe" > "$T/got.script" 2>"$T/got.perr"
"$PERF" script -i - < "$T/s.pipe" > "$T/s.script" 2>/dev/null
check "perf script of the parts equals the original, line for line" \
	diff -q "$T/got.script" "$T/s.script"
check "perf script prints samples and no warning" \
	test -s "$T/got.script" -a ! -s "$T/got.perr"
names_ok() {
	local n=0 f
	for f in $(ls "$D"); do
		[ "$f" = "$(printf '%010d' $n)" ] || return 1
		[ "$(stat -c %s "$D/$f")" -le 16384 ] || return 1
		n=$((n + 1))
	done
	# Parts of at most 16 KiB: at least this many for the stream sent.
	[ $n -ge 2 ] && [ $n -ge $((($(stat -c %s "$T/exp.pipe") + 16383) / 16384)) ]
}
check "parts are named 0000000000.. in order, none over part_size" names_ok

cp -r "$D" "$T/first"
drv -b 4096 url=$URL/perf spool_dir="$T/spool" part_size=16K >/dev/null 2>&1
check "sending the same session again rewrites the same parts (idempotent PUT)" \
	diff -r -q "$T/first" "$D"

drv url=$URL/forbidden spool_dir="$T/spool" >"$T/out" 2>"$T/err"
check "a 403 fails the sink" test $? = 1
check "the 403 message names the status and the URL" \
	grep -q "PUT $URL/forbidden/testhost/s1/0000000000: HTTP 403.*not retryable" "$T/err"
check "what was not sent stays in the spool" test -s "$T/spool/http0/testhost/s1/0000000000"

drv -s b1 url=$URL/bearer bearer_token_file="$T/token" "headers=X-Tenant: team-a | X-Other: 1" \
	spool_dir="$T/spool2" >"$T/out" 2>"$T/err"
check "bearer token and extra headers are sent" \
	cmp -s "$T/s.pipe" <(parts_cat "$T/ng/root/bearer/testhost/b1")
echo wrong > "$T/token2"
drv -s b2 url=$URL/bearer bearer_token_file="$T/token2" "headers=X-Tenant: team-a" \
	spool_dir="$T/spool2" >"$T/out" 2>"$T/err"
check "a wrong token gives a clear 401" grep -q "HTTP 401" "$T/err"
drv -s c1 url=$URL/basic user=perf password_file="$T/password" spool_dir="$T/spool3" \
	>"$T/out" 2>"$T/err3"
check "basic auth with password_file" cmp -s "$T/s.pipe" <(parts_cat "$T/ng/root/basic/testhost/c1")
check "no secret in any log line" \
	bash -c "! grep -q -e secret-token -e pass-word '$T'/err*"
exit 0
