# SPDX-License-Identifier: MIT
# The benchmark's measurements (POSIX sh; sourced by bench/run.sh and
# bench/cross.sh): perftest runs between two pods, TCP baselines (iperf3,
# sockperf) between the same pods, medians, engine CPU, table rows.
#
# The caller sets:
#   TMP        a private temp folder
#   REPS SECS LAT_ITERS BW_SIZE LAT_SIZE
#   IP_B DEV   the server pod's address and the device name in both pods
#   LIB        our libibverbs' folder
#   ENG_A ENG_B  the engine socket of pod a (client) and pod b (server):
#              the same one on one node, each node's own across nodes
#   ns_exec a|b CMD...   CMD in the client (a) or server (b) pod
# and may set:
#   PT_TIMEOUT  seconds one perftest side may take (default 60)
#   PT_FAIL_FAST=1  stop a row's repetitions at the first failed run (a
#              run that cannot work costs its timeout once, not REPS times)

PT_TIMEOUT=${PT_TIMEOUT:-60}
PT_FAIL_FAST=${PT_FAIL_FAST:-0}

verbs() {
	_v=$1
	shift
	case $_v in a) _e=$ENG_A ;; *) _e=$ENG_B ;; esac
	ns_exec "$_v" env LD_LIBRARY_PATH="$LIB" PODVERBS_ENGINE="$_e" "$@"
}

listening() {
	[ -n "$(ns_exec b ss -Hltn "sport = :$1" 2>/dev/null)" ]
}

# wait_listen PORT PID: until PORT listens in pod b (or PID exits), 10 s.
wait_listen() {
	_i=0
	while ! listening "$1"; do
		kill -0 "$2" 2>/dev/null || return 1
		_i=$((_i + 1))
		[ $_i -gt 100 ] && return 1
		sleep 0.1
	done
}

# median: the middle of the numbers on stdin ("-" when there are none).
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}

# engine_ticks PID: that engine's utime+stime in clock ticks (0 if gone).
engine_ticks() {
	[ -n "${1:-}" ] && [ -r "/proc/$1/stat" ] || { echo 0; return; }
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

HZ=$(getconf CLK_TCK)
# cpu_pct TICKS SECS: percent of one core.
cpu_pct() {
	awk -v t="$1" -v s="$2" -v hz="$HZ" 'BEGIN { printf "%.1f", (s > 0 ? 100 * t / hz / s : 0) }'
}

now() { date +%s.%N; }

# pt_failed TOOL WHY: records a failed run of TOOL (counted in its row,
# its output kept in $TMP/last-failure and $TMP/why.TOOL).
pt_failed() {
	echo x >>"$TMP/failed.$1"
	cp "$TMP/last-failure" "$TMP/why.$1"
}

# pt_errors FILE: perftest's error lines in FILE (its banner and tables
# left out), at most 5.
pt_errors() {
	grep -iE 'error|fail|couldn|unable|timed out|exceeded|not supported|invalid' "$1" |
		sed 's/^ *//' | head -5
}

# perftest_once TOOL FIELD ARGS...: one server/client run; prints field
# FIELD of the last result row of the client, or nothing on failure (the
# tail of both outputs goes to $TMP/last-failure).
perftest_once() {
	_t=$1 _f=$2
	shift 2
	verbs b timeout "$PT_TIMEOUT" "$_t" -d "$DEV" -F "$@" >"$TMP/srv.out" 2>&1 &
	_s=$!
	if ! wait_listen 18515 "$_s"; then
		kill "$_s" 2>/dev/null
		wait "$_s" 2>/dev/null
		{ echo "== $_t server"; tail -5 "$TMP/srv.out"; } >"$TMP/last-failure"
		pt_failed "$_t"
		return
	fi
	verbs a timeout "$PT_TIMEOUT" "$_t" -d "$DEV" -F "$@" "$IP_B" >"$TMP/cli.out" 2>&1
	_rc=$?
	wait "$_s"
	if [ $_rc != 0 ]; then
		{ echo "== $_t client (rc $_rc$([ $_rc = 124 ] && echo ": timed out after ${PT_TIMEOUT} s"))"
		  pt_errors "$TMP/cli.out"
		  echo "== $_t server"; pt_errors "$TMP/srv.out"; } \
			>"$TMP/last-failure"
		pt_failed "$_t"
		return
	fi
	awk -v f="$_f" '/^ *#bytes/ { on = 1; next }
		on && /^ *[0-9]+ +[0-9]+ +[0-9.]+/ { v = $f } END { if (v != "") print v }' \
		"$TMP/cli.out"
}

# give_up TOOL: true when PT_FAIL_FAST is set and TOOL already failed.
give_up() {
	[ "$PT_FAIL_FAST" = 1 ] && [ -s "$TMP/failed.$1" ]
}

# cpu_mark TOOL T0A T0B W0: appends the ticks both engines spent since
# T0A/T0B and the wall time since W0 to $TMP/cpu.TOOL.
cpu_mark() {
	echo "$(( $(engine_ticks "$ENGINE_PID_A") - $2 )) $(( $(engine_ticks "$ENGINE_PID_B") - $3 )) $4 $(now)" \
		>>"$TMP/cpu.$1"
}

# rdma_bw TOOL: median Gb/s; each run's engine ticks (engine A, engine B)
# and wall seconds go to $TMP/cpu.TOOL.
rdma_bw() {
	for _r in $(seq "$REPS"); do
		give_up "$1" && break
		_a0=$(engine_ticks "$ENGINE_PID_A") _b0=$(engine_ticks "$ENGINE_PID_B") _w0=$(now)
		perftest_once "$1" 4 -s "$BW_SIZE" -D "$SECS" --report_gbits
		cpu_mark "$1" "$_a0" "$_b0" "$_w0"
	done | median
}

rdma_lat() {
	for _r in $(seq "$REPS"); do
		give_up "$1" && break
		_a0=$(engine_ticks "$ENGINE_PID_A") _b0=$(engine_ticks "$ENGINE_PID_B") _w0=$(now)
		perftest_once "$1" 5 -s "$LAT_SIZE" -n "$LAT_ITERS"
		cpu_mark "$1" "$_a0" "$_b0" "$_w0"
	done | median
}

# tool_cpu TOOL COL: percent of a core engine A (COL 1) or B (COL 2)
# spent over TOOL's runs, setup included ("-" without runs).
tool_cpu() {
	[ -s "$TMP/cpu.$1" ] || { echo -; return; }
	awk -v hz="$HZ" -v c="$2" '{ t += $c; s += $4 - $3 }
		END { printf "%.1f", (s > 0 ? 100 * t / hz / s : 0) }' "$TMP/cpu.$1"
}

# bg_server NAME NS CMD...: starts CMD in NS in the background with its
# pid in $TMP/NAME.pid and $SRV_PID (the command itself, not a wrapping
# shell, so that stop_server can end it).  Not to be called inside $(...).
bg_server() {
	_n=$1 _ns=$2
	shift 2
	rm -f "$TMP/$_n.pid"
	ns_exec "$_ns" sh -c 'echo $$ >"$0"; exec "$@"' "$TMP/$_n.pid" "$@" \
		>"$TMP/$_n.out" 2>&1 &
	_i=0
	while [ ! -s "$TMP/$_n.pid" ] && [ $_i -lt 50 ]; do
		_i=$((_i + 1))
		sleep 0.1
	done
	SRV_PID=$(cat "$TMP/$_n.pid" 2>/dev/null)
}

stop_server() {
	[ -s "$TMP/$1.pid" ] && kill "$(cat "$TMP/$1.pid")" 2>/dev/null
	rm -f "$TMP/$1.pid"
}

tcp_bw() {
	for _r in $(seq "$REPS"); do
		bg_server iperf3 b iperf3 -s -1 -p 5201
		if wait_listen 5201 "$SRV_PID"; then
			ns_exec a timeout 60 iperf3 -c "$IP_B" -p 5201 -t "$SECS" -f m 2>&1 |
				awk '/receiver/ { for (i = 1; i < NF; i++)
					if ($(i + 1) == "Mbits/sec") print $i / 1000 }'
		fi
		stop_server iperf3
	done | median
}

tcp_lat() {
	bg_server sockperf b sockperf server --tcp -i "$IP_B" -p 11111
	if wait_listen 11111 "$SRV_PID"; then
		for _r in $(seq "$REPS"); do
			ns_exec a timeout 60 sockperf ping-pong --tcp -i "$IP_B" \
				-p 11111 -t "$SECS" -m 14 2>&1 |
				awk '/percentile 50.000 =/ { print $NF }'
		done | median
	else
		echo "-"
	fi
	stop_server sockperf
}

# failed TOOL: " (N of REPS runs failed)" when any did.
failed() {
	[ -s "$TMP/failed.$1" ] &&
		echo " ($(wc -l <"$TMP/failed.$1") of $REPS runs failed)"
}

# row NAME VALUE UNIT TCP KIND [NOTE [BW_FACTOR [EXTRA]]]: KIND bw wants
# VALUE >= BW_FACTOR (default 3) x TCP, lat wants VALUE < TCP.  No VALUE
# with failed runs is FAILED, without is NO-RESULT: never a figure that
# was not measured.  EXTRA is printed at the end of the line as it is.
row() {
	awk -v n="$1" -v v="$2" -v u="$3" -v t="$4" -v k="$5" -v note="${6:-}" \
	    -v x="${7:-3}" -v extra="${8:-}" 'BEGIN {
		tg = (k == "bw" ? ">= " x "x TCP" : "< TCP")
		if (v == "" || v == "-" || t == "" || t == "-") {
			res = (note != "" && (v == "" || v == "-")) ? "FAILED" : "NO-RESULT"
			l = sprintf("%-16s %10s %-5s %10s %-5s %8s  %-10s %-9s%s%s", n,
				(v == "" || v == "-" ? (res == "FAILED" ? "FAILED" : "-") : sprintf("%.2f", v)),
				(v == "" || v == "-" ? "" : u),
				(t == "" || t == "-" ? "-" : sprintf("%.2f", t)), u, "-", tg, res, extra, note)
			sub(/ +$/, "", l)
			print l
			exit
		}
		r = t > 0 ? v / t : 0
		ok = (k == "bw") ? (r >= x) : (v < t)
		l = sprintf("%-16s %10.2f %-5s %10.2f %-5s %7.2fx  %-10s %-9s%s%s", n, v, u, t, u, r,
			tg, (ok ? "PASS" : "MISS"), extra, note)
		sub(/ +$/, "", l)
		print l
	}'
}
