#!/bin/sh
# SPDX-License-Identifier: MIT
# The engine's metrics endpoint (podverbsd --metrics-listen, issue 15)
# scraped by a real Prometheus (Debian's prometheus, started here with a
# temporary config and storage, scrape interval 1 s): after a UD pingpong
# between two pods, Prometheus' query API returns the byte counter of pod
# a's port, labelled with the pod's namespace and name (pvctl dev add
# --pod, what the CNI passes from K8S_POD_*), and it equals pvctl's
# figure once a scrape after the traffic landed; `promtool check metrics`
# accepts the exposition; deploy/'s alerting rules pass `promtool check
# rules`.  Hostile scrapers: a connection that never sends a request is
# dropped after metrics_timeout_ms, one beyond metrics_conns is closed at
# accept, a garbage request gets 400, and the endpoint keeps serving.
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd prometheus
need_cmd promtool
need_cmd curl
need_cmd python3
need_cmd ibv_ud_pingpong

# Debian's Go programs (prometheus, promtool) run without the SAN tiers'
# preloaded ASan, which they are not built for (they hang under it); so
# does curl, which only fetches.
nosan() {
	env -u LD_PRELOAD "$@"
}

# Two free TCP ports on loopback (bound, read back, released).
set -- $(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
MPORT=$1 PPORT=$2
PODS_ENGINE_ARGS="--metrics-listen 127.0.0.1:$MPORT -L metrics_conns=2 -L metrics_timeout_ms=800"
pods_up
pvctl dev del "$POD_DEV" --netns "$(topo_path a)" >/dev/null || fail "dev del a"
pod_dev_add a --pod 'pv-test/pod-a "quoted"'
URL=http://127.0.0.1:$MPORT/metrics

pair_case ud 60 "ibv_ud_pingpong -d $POD_DEV -g 0 -n 300 -s 256" \
	"ibv_ud_pingpong -d $POD_DEV -g 0 -n 300 -s 256" || fail "ud pingpong"

nosan curl -sSf "$URL" >"$TMP/expo.txt" 2>"$TMP/curl.err" ||
	fail "GET /metrics failed: $(cat "$TMP/curl.err"; tail -5 "$ENGINE_LOG")"
nosan promtool check metrics <"$TMP/expo.txt" >"$TMP/promtool.out" 2>&1 ||
	{ cat "$TMP/promtool.out"; fail "promtool check metrics refused it"; }
echo "ok   promtool check metrics: $(grep -c '^podverbs_' "$TMP/expo.txt") samples accepted"
grep -q 'pod_name="pod-a \\"quoted\\""' "$TMP/expo.txt" ||
	fail "no escaped pod_name label in the exposition"
nosan promtool check rules "$PV_ROOT/deploy/prometheus/podverbs-rules.yml" \
	>"$TMP/rules.out" 2>&1 ||
	{ cat "$TMP/rules.out"; fail "promtool check rules refused deploy's rules"; }
echo "ok   promtool check rules: $(grep SUCCESS "$TMP/rules.out")"

# Prometheus, ours alone.
mkdir -p "$TMP/prom"
cat >"$TMP/prom.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: podverbs
    static_configs:
      - targets: ['127.0.0.1:$MPORT']
YML
# Not through nosan: a shell function put in the background runs in a
# subshell, and $! would be that subshell, not Prometheus (which stop_pid
# then could not stop); env execs it, so $! is Prometheus itself.
env -u LD_PRELOAD prometheus --config.file="$TMP/prom.yml" \
	--storage.tsdb.path="$TMP/prom" \
	--web.listen-address="127.0.0.1:$PPORT" >"$TMP/prom.log" 2>&1 &
PROM=$!
topo_track_pid $PROM

want=$(pvctl stat show dev "$(pvctl --json dev list | python3 -c '
import json, sys
print([d["id"] for d in json.load(sys.stdin)
       if d["netns"] == sys.argv[1]][0])' "$(topo_path a)")" |
	awk '{ for (i = 3; i < NF; i++) if ($i == "sent_bytes") print $(i + 1) }')
[ "${want:-0}" -gt 0 ] || fail "pvctl shows no sent_bytes for pod a: '$want'"

# query: Prometheus' value of pod a's sent_bytes, or nothing yet.
query() {
	nosan curl -sf --get "http://127.0.0.1:$PPORT/api/v1/query" \
		--data-urlencode 'query=podverbs_port_sent_bytes_total{pod_namespace="pv-test",device="rdma0"}' |
		python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
if r: print(int(float(r[0]["value"][1])), r[0]["metric"]["pod_name"])'
}
got=""
end=$(($(date +%s) + 30))
while [ "$(date +%s)" -lt $end ]; do
	got=$(query 2>/dev/null)
	[ "${got%% *}" = "$want" ] && break
	sleep 1
done
[ "${got%% *}" = "$want" ] ||
	{ tail -5 "$TMP/prom.log"; fail "Prometheus has '$got', pvctl $want"; }
echo "ok   Prometheus query: sent_bytes of pod a = ${got%% *} (pvctl: $want), pod_name=${got#* }"

# Hostile scrapers, with Prometheus still scraping.
python3 - "$MPORT" <<'PY' || fail "hostile scrapers"
import socket, sys, time
port = int(sys.argv[1])
def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    return s
# Two silent connections hold both slots (metrics_conns=2) ...
silent = [conn(), conn()]
time.sleep(0.2)
# ... so a third is closed at once (or Prometheus holds one: then
# the second silent one was the refused one; either way one is shut).
third = conn()
third.settimeout(3)
shut = third.recv(1) == b""
# The silent ones are dropped after metrics_timeout_ms (800 ms).
t0 = time.time()
for s in silent:
    s.settimeout(5)
    try:
        s.recv(1)
    except OSError:
        pass
dropped = time.time() - t0
assert shut, "third connection not closed"
assert dropped < 4, "silent connections held %.1f s" % dropped
# Garbage gets a 400 and a close.
s = conn()
s.sendall(b"GET /metrics HTTP/1.1\r\nBad Header\r\n\r\n")
s.settimeout(5)
resp = s.recv(200)
assert resp.startswith(b"HTTP/1.1 400 "), resp
print("ok   hostile scrapers: one beyond the limit closed, silent ones "
      "dropped after %.1f s, garbage answered 400" % dropped)
PY
nosan curl -sf "$URL" >/dev/null || fail "endpoint dead after the hostile scrapers"
refused=$(pvctl stats | awk '$1 == "metrics_refused" { print $2 }')
slow=$(pvctl stats | awk '$1 == "metrics_dropped_slow" { print $2 }')
bad=$(pvctl stats | awk '$1 == "metrics_bad_requests" { print $2 }')
echo "engine: metrics_refused=$refused metrics_dropped_slow=$slow metrics_bad_requests=$bad"
[ "${refused:-0}" -ge 1 ] || fail "no connection refused at the limit"
[ "${slow:-0}" -ge 1 ] || fail "no slow scraper dropped"
[ "${bad:-0}" -ge 1 ] || fail "no bad request counted"
pid_alive "$ENGINE_PID" || fail "engine died"
stop_pid $PROM
echo PASS
