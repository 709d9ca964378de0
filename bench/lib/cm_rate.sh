# SPDX-License-Identifier: MIT
# The benchmark's connection-setup row (issue 11; POSIX sh; sourced by
# bench/run.sh and bench/cross.sh after measure.sh): Debian's cmtime sets
# up CM_CONNS (default 1000) RDMA CM connections between the pods at once
# and tears them down, timing each step over all of them.  The rate is
# connections / (connect + disconnect wall time): connects+disconnects
# per second; the whole cycle (create id .. destroy) is shown beside it.
#
# The caller sets what measure.sh needs (TMP, IP_B, ns_exec, ENG_A/ENG_B,
# LIB) and CM_ADMIN_B: the admin socket of the server pod's engine, to
# see its rdma_listen (there is no socket to wait for); empty: 2 s pause.

CM_CONNS=${BENCH_CM_CONNS:-1000}

cm_listens_b() {
	"$PV_BUILD/bin/pvctl" --admin-socket "$CM_ADMIN_B" stats 2>/dev/null |
		awk '$1 == "cm_listens" { print $2 }'
}

# cm_refusals_b: the server engine's counters of refused requests, if
# any ("; name=N ...").
cm_refusals_b() {
	[ -n "$CM_ADMIN_B" ] || return 0
	"$PV_BUILD/bin/pvctl" --admin-socket "$CM_ADMIN_B" stats 2>/dev/null |
		awk '$1 ~ /^cm_(wire_peer_full|wire_table_full|backlog_full|no_listener|wire_rx_refused)$/ && $2 != 0 {
			s = s " " $1 "=" $2 } END { if (s != "") printf ";%s", s }'
}

# cm_rate_once: one cmtime run; prints "RATE CYCLE_RATE CONNECT_MS
# DISCONNECT_MS" or "FAILED why".
cm_rate_once() {
	_cl0=$(cm_listens_b)
	bg_server cmtime b env LD_LIBRARY_PATH="$LIB" PODVERBS_ENGINE="$ENG_B" \
		cmtime -b "$IP_B" -c "$CM_CONNS"
	_ci=0
	if [ -n "$CM_ADMIN_B" ] && [ -n "$_cl0" ]; then
		while [ "$(cm_listens_b)" = "$_cl0" ] && [ $_ci -lt 100 ]; do
			_ci=$((_ci + 1))
			sleep 0.1
		done
	else
		sleep 2
	fi
	verbs a timeout 120 cmtime -s "$IP_B" -c "$CM_CONNS" >"$TMP/cmtime.cli" 2>&1
	_crc=$?
	stop_server cmtime
	if [ "$_crc" != 0 ] || grep -q -E 'REJECTED|UNREACHABLE|failed' "$TMP/cmtime.cli"; then
		echo "FAILED exit $_crc: $(grep -v '^ ' "$TMP/cmtime.cli" | grep -E -i 'error|fail|event' | head -1)$(cm_refusals_b)"
		return
	fi
	awk -v n="$CM_CONNS" -F: '
		/^[a-z ]+:/ { split($2, f, " "); ms[$1] = f[1]; all += f[1] }
		END {
			for (k in ms) { kk = k; gsub(/ +$/, "", kk); t[kk] = ms[k] }
			cd = t["connect"] + t["disconnect"]
			if (cd <= 0) { print "FAILED no connect/disconnect figures"; exit }
			printf "%.0f %.0f %.1f %.1f\n", n / (cd / 1000), n / (all / 1000),
				t["connect"], t["disconnect"]
		}' "$TMP/cmtime.cli"
}

# cm_rate_row LABEL: the row, median of REPS runs by rate.
cm_rate_row() {
	: >"$TMP/cmrate"
	for _r in $(seq "$REPS"); do
		cm_rate_once >>"$TMP/cmrate"
	done
	_cgood=$(grep -v '^FAILED' "$TMP/cmrate" | sort -n -k1,1)
	_cn=$(printf '%s\n' "$_cgood" | grep -c .)
	if [ "$_cn" = 0 ]; then
		printf '%-16s %s\n' "$1" "$(head -1 "$TMP/cmrate")"
		return
	fi
	printf '%s\n' "$_cgood" | sed -n "$(((_cn + 1) / 2))p" |
		awk -v l="$1" -v n="$CM_CONNS" -v runs="$_cn" -v reps="$REPS" '{
			printf "%-16s %8s conn/s connect+disconnect (connect %s ms, disconnect %s ms for %d at once); whole cycle %s conn/s%s\n",
				l, $1, $3, $4, n, $2, (runs < reps ? sprintf(" (%d of %d runs failed)", reps - runs, reps) : "")
		}'
	[ "$_cn" -lt "$REPS" ] && grep '^FAILED' "$TMP/cmrate" | head -1 | sed 's/^/    /'
	return 0
}
