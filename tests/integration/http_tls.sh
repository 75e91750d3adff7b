#!/bin/bash
# http sink over TLS to nginx with a self-signed certificate: refused
# without the CA (verification is on by default), sent with ca_file,
# client certificates for mutual TLS.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
command -v openssl >/dev/null || { echo "1..0 # SKIP openssl not installed"; exit 0; }

T=$(mktemp -d /tmp/http_tls.XXXXXX)
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..7"

mkdir -p "$T/ng"
selfsigned() { # selfsigned KEY CERT CN
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1" -out "$2" -days 2 \
		-subj "/CN=$3" -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
}
selfsigned "$T/ng/key.pem" "$T/ng/cert.pem" 127.0.0.1
selfsigned "$T/client.key" "$T/client.pem" perf-client
make_stream "$T/s.pipe"
P=$(free_port)
NGINX_SERVER_EXTRA="ssl_verify_client optional_no_ca; ssl_client_certificate $T/client.pem;"
NGINX_EXTRA="
		}
		location /mtls {
			if (\$ssl_client_s_dn != \"CN=perf-client\") { return 403; }
			dav_methods PUT; create_full_put_path on; client_max_body_size 0;"
nginx_conf "$T/ng" "$P" ssl
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
URL=https://127.0.0.1:$P

drv() { "$HTTP_DRIVER" record "$HTTP_PLUGIN" "$T/s.pipe" "$@"; }

drv -s a url=$URL/perf spool_dir="$T/spool" >"$T/a.out" 2>"$T/a.err"
check "self-signed server without ca_file: the sink fails" test $? = 1
check "with a clear certificate error, not retried" \
	grep -q "PUT $URL/perf/testhost/a/0000000000: .*[Cc]ertificate.*not retryable" "$T/a.err"
check "nothing reached the server" test ! -d "$T/ng/root/perf/testhost/a"

drv -s b url=$URL/perf ca_file="$T/ng/cert.pem" spool_dir="$T/spool" >"$T/b.out" 2>"$T/b.err"
check "with ca_file the stream is sent" \
	cmp -s "$T/s.pipe" <(parts_cat "$T/ng/root/perf/testhost/b")

drv -s c url=$URL/mtls ca_file="$T/ng/cert.pem" spool_dir="$T/spool" >"$T/c.out" 2>"$T/c.err"
check "mutual TLS location refuses a client without certificate" grep -q "HTTP 403" "$T/c.err"
drv -s d url=$URL/mtls ca_file="$T/ng/cert.pem" client_cert="$T/client.pem" \
	client_key="$T/client.key" spool_dir="$T/spool" >"$T/d.out" 2>"$T/d.err"
check "and accepts the client certificate" \
	cmp -s "$T/s.pipe" <(parts_cat "$T/ng/root/mtls/testhost/d")

drv -s e url=$URL/perf tls_verify=false spool_dir="$T/spool" >"$T/e.out" 2>"$T/e.err"
check "tls_verify = false sends without a CA" \
	cmp -s "$T/s.pipe" <(parts_cat "$T/ng/root/perf/testhost/e")
exit 0
