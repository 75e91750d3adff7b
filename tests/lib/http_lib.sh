# Helpers for the http sink tests: nginx as a WebDAV collector and moto as
# an S3 store, both on 127.0.0.1 only, in a private temp dir.  Source it.

HTTP_PLUGIN=$TOP_BUILDDIR/plugins/http/.libs/http.so
HTTP_DRIVER=$TESTS_BUILDDIR/integration/http_driver

tap_n=0
tap_fail=0
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); tap_fail=1; echo "not ok $tap_n - $*"; }
fails() { ! "$@"; }
check() { # check DESCRIPTION COMMAND...
	local d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; return 1; fi
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_for SECONDS COMMAND...: poll until COMMAND succeeds; 1 after SECONDS.
# Tests wait for what they need to see, never for a fixed time.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

port_open() { python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null; }
wait_port() { wait_for 30 port_open "$1"; } # wait_port PORT: until something listens


# Debian's libnginx-mod-http-dav-ext (PROPFIND for listings), when installed.
NGINX_DAV_EXT=/usr/lib/nginx/modules/ngx_http_dav_ext_module.so

# nginx_conf DIR PORT [ssl]: a WebDAV PUT collector storing into DIR/root.
# The dav-ext module is loaded when present, so NGINX_EXTRA may say
# `dav_ext_methods PROPFIND OPTIONS;` (see NGINX_LISTING).
nginx_conf() {
	local dir=$1 port=$2 listen
	listen="listen 127.0.0.1:$port;"
	[ "$3" = ssl ] && listen="listen 127.0.0.1:$port ssl; ssl_certificate $dir/cert.pem; ssl_certificate_key $dir/key.pem;"
	mkdir -p "$dir/root" "$dir/tmp"
	{ [ -f "$NGINX_DAV_EXT" ] && echo "load_module $NGINX_DAV_EXT;"
	cat <<NGINX
daemon off;
user root;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 64; }
http {
	access_log $dir/access.log;
	client_body_temp_path $dir/tmp;
	proxy_temp_path $dir/tmp;
	fastcgi_temp_path $dir/tmp;
	uwsgi_temp_path $dir/tmp;
	scgi_temp_path $dir/tmp;
	server {
		$listen
		root $dir/root;
		$NGINX_SERVER_EXTRA
		location / {
			dav_methods PUT;
			create_full_put_path on;
			client_max_body_size 0;
			$NGINX_EXTRA
		}
	}
}
NGINX
	} > "$dir/nginx.conf"
}

# Listings for perfsink ls/fetch: PROPFIND (dav-ext) and the JSON autoindex.
NGINX_LISTING="dav_ext_methods PROPFIND OPTIONS; autoindex on; autoindex_format json;"
have_dav_ext() { [ -f "$NGINX_DAV_EXT" ]; }

# nginx_start DIR: run nginx in the background; NGINX_PID is set.
nginx_start() {
	local port
	port=$(sed -n 's/.*listen 127.0.0.1:\([0-9]*\).*/\1/p' "$1/nginx.conf")
	nginx -p "$1" -c "$1/nginx.conf" -e "$1/error.log" &
	NGINX_PID=$!
	wait_port "$port"
}

# collector_start DIR: nginx on a free port P serving DIR/root as a collector
# perfsink fetch can list (PROPFIND with dav-ext, else the JSON autoindex);
# sets P and ROOT, bails out when nginx does not start.
collector_start() {
	P=$(free_port)
	NGINX_EXTRA="autoindex on; autoindex_format json;"
	have_dav_ext && NGINX_EXTRA=$NGINX_LISTING
	nginx_conf "$1" "$P"
	nginx_start "$1" || { echo "Bail out! nginx did not start"; exit 1; }
	ROOT=$1/root
}

nginx_stop() {
	[ -n "$NGINX_PID" ] || return 0
	kill "$NGINX_PID" 2>/dev/null
	wait "$NGINX_PID" 2>/dev/null
	NGINX_PID=
}

# A perf pipe-mode stream to replay, recorded once per test run.  Exactly
# 400 tracepoint samples with call chains: the same size (about 54 KB) on
# any machine, however fast or loaded.
make_stream() { # make_stream OUT
	"$PERF" record -q -e syscalls:sys_enter_getppid -g -o - -- \
		"$TESTS_BUILDDIR/integration/workload" getppid 400 > "$1" 2>/dev/null
}

# count_files DIR: regular files below DIR (0 when DIR does not exist).
count_files() { find "$1" -type f 2>/dev/null | wc -l; }
# has_files DIR N: DIR holds at least N files.
has_files() { [ "$(count_files "$1")" -ge "$2" ]; }

# cat of the parts under DIR (names of 10-19 digits, not end markers) in seq order
parts_cat() {
	find "$1" -type f -regextype posix-extended -regex '.*/[0-9]{10,19}' | sort | xargs -r cat
}

# maxrss FILE CMD...: run CMD; its peak RSS (KiB) into FILE; its exit status.
maxrss() {
	local f=$1; shift
	python3 -c 'import resource, subprocess, sys
r = subprocess.call(sys.argv[2:])
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r)' "$f" "$@"
}

# one_session DIR: "HOST/SESSION" of the first session the http sink put in
# DIR (a collector's url path), empty when none.
one_session() {
	local h s
	h=$(ls "$1" 2>/dev/null | grep -v '^buildid$' | head -n 1)
	s=$(ls "$1/$h" 2>/dev/null | grep -v '\.end$' | head -n 1)
	[ -n "$h" ] && [ -n "$s" ] && echo "$h/$s"
}
