#!/bin/bash
# The pprof sink (mode = pyroscope) against a loopback stand-in for Grafana
# Pyroscope's ingest API (pyroscope_server.py records each request): every
# window is one POST /ingest?name=APP{host=...,labels}&from=&until=
# &format=pprof, multipart/form-data with the profile as "profile" and the
# sample types as "sample_type_config", with the bearer token and extra
# headers as the http sink sends them, the profile parses (go tool
# pprof), and the windows' samples add up to the recording's.
. "$TESTS_SRCDIR/lib/http_lib.sh"
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/integration/pprof_sink_lib.sh"
need_root
need_go
SRV=
cleanup_hook() { [ -z "$SRV" ] || kill "$SRV"; }
plan 10

mkdir -p "$T/py"
python3 "$TESTS_SRCDIR/integration/pyroscope_server.py" "$T/py" &
SRV=$!
wait_for 30 test -s "$T/py/port" || { echo "Bail out! the Pyroscope stand-in did not start"; exit 1; }
PORT=$(cat "$T/py/port")

echo "t0k3n-for-the-test" > "$T/token"
record_fanout y "mode = pyroscope" "url = http://127.0.0.1:$PORT" "app = perfsink.cpu" \
	"labels = env=test,team=perf" "bearer_token_file = $T/token" "headers = X-Scope-OrgID: fleet"
check "record with aio_file and pprof (mode = pyroscope) succeeds" test "$(cat "$T/y.rc")" = 0 ||
	sed 's/^/# /' "$T/y.err"
R=$T/py/requests.jsonl
# req_all PYTHON-EXPR: true for every request (r: its JSON) and there are >= 3.
req_all() {
	python3 -c 'import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
ok = len(rs) >= 3 and all(eval(sys.argv[2], {"r": r}) for r in rs)
if not ok: print("# " + "\n# ".join(json.dumps(r) for r in rs[:3]))
sys.exit(0 if ok else 1)' "$R" "$1"
}
check "every window is a POST to /ingest" req_all 'r["method"] == "POST" and r["path"] == "/ingest"'
check "name is APP{host=HOST,labels}" \
	req_all "r['query'].get('name') == 'perfsink.cpu{host=$(uname -n | tr -c 'A-Za-z0-9._\n-' _),env=test,team=perf}'"
check "from and until are UNIX seconds, from < until" \
	req_all 'r["query"]["from"].isdigit() and r["query"]["until"].isdigit() and 1.6e9 < int(r["query"]["from"]) < int(r["query"]["until"])'
check "format=pprof" req_all 'r["query"].get("format") == "pprof"'
check "the body is multipart/form-data with profile and sample_type_config" \
	req_all 'r["content_type"].startswith("multipart/form-data; boundary=") and r["parts"] == ["profile", "sample_type_config"]'
check "auth as the http sink: the bearer token, and the extra header (Pyroscope's tenant)" \
	req_all 'r["authorization"] == "Bearer t0k3n-for-the-test" and r["tenant"] == "fleet"'
mapfile -t W < <(ls "$T"/py/*.pb.gz 2>/dev/null)
check "every profile parses (go tool pprof)" all_read "${W[@]}"
check "the windows' samples add up to the recording's" same_count "$T/y.data" "${W[@]}"
check "windows follow each other: each from is the until of the one before, or later" \
	python3 -c 'import json, sys
rs = [json.loads(l)["query"] for l in open(sys.argv[1])]
sys.exit(0 if all(int(b["from"]) >= int(a["until"]) - 1 for a, b in zip(rs, rs[1:])) else 1)' "$R"
done_testing
