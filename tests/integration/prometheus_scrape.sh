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
# Auth (--metrics-token-file): Prometheus scrapes with `authorization:
# credentials_file`; no token, a wrong one, the token's prefix, the token
# with a byte more, another scheme, a second Authorization field and a
# burst of bad tries get 401 with WWW-Authenticate (counted in
# metrics_unauthorized), an over-long header 431, while Prometheus keeps
# scraping; a rotated token file is re-read; a non-loopback
# --metrics-listen without a token makes podverbsd refuse to start.
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
TOKEN_FILE=$TMP/metrics.token
python3 -c 'import os; print(os.urandom(24).hex())' >"$TOKEN_FILE"
chmod 600 "$TOKEN_FILE"
TOKEN=$(cat "$TOKEN_FILE")
PODS_ENGINE_ARGS="--metrics-listen 127.0.0.1:$MPORT --metrics-token-file $TOKEN_FILE -L metrics_conns=2 -L metrics_timeout_ms=800"
pods_up
pvctl dev del "$POD_DEV" --netns "$(topo_path a)" >/dev/null || fail "dev del a"
pod_dev_add a --pod 'pv-test/pod-a "quoted"'
URL=http://127.0.0.1:$MPORT/metrics

pair_case ud 60 "ibv_ud_pingpong -d $POD_DEV -g 0 -n 300 -s 256" \
	"ibv_ud_pingpong -d $POD_DEV -g 0 -n 300 -s 256" || fail "ud pingpong"

nosan curl -sSf -H "Authorization: Bearer $TOKEN" "$URL" >"$TMP/expo.txt" 2>"$TMP/curl.err" ||
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
# deploy's scrape job, its token path pointed at ours (promtool checks
# that the credentials file exists).
sed "s|credentials_file: .*|credentials_file: $TOKEN_FILE|" \
	"$PV_ROOT/deploy/prometheus/scrape-podverbs.yml" >"$TMP/deploy-scrape.yml"
grep -q "credentials_file: $TOKEN_FILE" "$TMP/deploy-scrape.yml" ||
	fail "deploy's scrape job has no authorization credentials_file"
nosan promtool check config "$TMP/deploy-scrape.yml" >"$TMP/config.out" 2>&1 ||
	{ cat "$TMP/config.out"; fail "promtool check config refused deploy's scrape job"; }
echo "ok   promtool check config: deploy's scrape job ($(grep -c SUCCESS "$TMP/config.out") SUCCESS)"

# Prometheus, ours alone.
mkdir -p "$TMP/prom"
cat >"$TMP/prom.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: podverbs
    authorization:
      type: Bearer
      credentials_file: $TOKEN_FILE
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
python3 - "$MPORT" "$TOKEN" <<'PY' || fail "hostile scrapers"
import socket, sys, time
port = int(sys.argv[1])
token = sys.argv[2].encode()
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

def ask(auth_lines):
    # The engine answers once the head is whole or over-long and closes:
    # bytes of ours it never read make that close a reset, after the
    # answer.
    s = conn()
    s.settimeout(5)
    resp = b""
    try:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + auth_lines +
                  b"\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass
    while True:
        try:
            d = s.recv(65536)
        except ConnectionResetError:
            break
        if not d:
            break
        resp += d
    s.close()
    return resp
def refused(resp, what):
    assert resp.startswith(b"HTTP/1.1 401 "), (what, resp[:80])
    assert b"\r\nWWW-Authenticate: Bearer" in resp, (what, resp[:200])
    assert b"podverbs_" not in resp, what
bad = {
    "no token": b"",
    "wrong token": b"Authorization: Bearer " + b"x" * len(token) + b"\r\n",
    "token prefix": b"Authorization: Bearer " + token[:-1] + b"\r\n",
    "token and more": b"Authorization: Bearer " + token + b"A\r\n",
    "other scheme": b"Authorization: Basic " + token + b"\r\n",
    "two fields": b"Authorization: Bearer " + token +
                  b"\r\nAuthorization: Bearer x\r\n",
}
for what, lines in bad.items():
    refused(ask(lines), what)
long = ask(b"Authorization: Bearer " + b"a" * 8000 + b"\r\n")
assert long.startswith(b"HTTP/1.1 431 "), long[:80]
for i in range(200):
    refused(ask(b"Authorization: Bearer guess%d\r\n" % i), "burst")
good = ask(b"Authorization: Bearer " + token + b"\r\n")
assert good.startswith(b"HTTP/1.1 200 ") and b"podverbs_" in good, good[:80]
print("ok   auth: %d kinds of bad token and 200 guesses answered 401, an "
      "over-long header 431; the right token still 200" % len(bad))
PY
unauth=$(pvctl stats | awk '$1 == "metrics_unauthorized" { print $2 }')
[ "${unauth:-0}" -ge 206 ] || fail "metrics_unauthorized=$unauth, want >= 206"
# Prometheus kept scraping through the attack (its last scrape is up).
sleep 2
ups=$(nosan curl -sf --get "http://127.0.0.1:$PPORT/api/v1/query" \
	--data-urlencode 'query=up{job="podverbs"}' | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "none")')
[ "$ups" = 1 ] || fail "Prometheus' up after the attack: $ups"
echo "ok   metrics_unauthorized=$unauth; Prometheus up=$ups"

# Rotation: a new token (a Secret's atomic swap: rename) is taken.
python3 -c 'import os; print(os.urandom(24).hex())' >"$TOKEN_FILE.new"
mv "$TOKEN_FILE.new" "$TOKEN_FILE"
NEW=$(cat "$TOKEN_FILE")
code=""
end=$(($(date +%s) + 10))
while [ "$(date +%s)" -lt $end ]; do
	code=$(nosan curl -s -o /dev/null -w '%{http_code}' \
		-H "Authorization: Bearer $NEW" "$URL")
	[ "$code" = 200 ] && break
	sleep 0.3
done
[ "$code" = 200 ] || fail "new token not taken: $code"
code=$(nosan curl -s -o /dev/null -w '%{http_code}' \
	-H "Authorization: Bearer $TOKEN" "$URL")
[ "$code" = 401 ] || fail "old token still answered: $code"
grep -q -e "$NEW" -e "$TOKEN" "$ENGINE_LOG" &&
	fail "a token is in the engine log"
TOKEN=$NEW
echo "ok   rotated token taken, old one 401; no token in the engine log"

# A node-wide address with no token: refused at start.
X=$TMP/xeng
mkdir -p "$X"
if timeout 20 "$PV_BUILD/bin/podverbsd" -f -s "$X/e.sock" -a "$X-admin/admin.sock" \
	--state-file "" --no-seccomp --metrics-listen ":$MPORT" \
	>"$X.log" 2>&1; then
	fail "podverbsd started on :$MPORT with no token"
fi
grep -q "no --metrics-token-file" "$X.log" ||
	fail "no clear error: $(cat "$X.log")"
echo "ok   refused at start: $(grep -o 'not a loopback address and no --metrics-token-file' "$X.log")"
nosan curl -sf -H "Authorization: Bearer $TOKEN" "$URL" >/dev/null || fail "endpoint dead after the hostile scrapers"
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
