# SPDX-License-Identifier: MIT
# The benchmark's report (POSIX sh; sourced by bench/run.sh): a Markdown
# file and two plots under $BENCH_OUT (default BUILD/bench/), from what the
# run measured:
#   report.md   the machine, the tables as printed, the sweep as tables
#               and the plots
#   bw.svg      bandwidth against message size, RDMA modes beside TCP
#   lat.svg     latency against message size, the same
#   sweep.tsv   the sweep's points (series, bytes, value)
# Plots need gnuplot (Debian's gnuplot-nox); without it the report says so
# and keeps the tables.

# report_machine: the machine and what it was doing, as Markdown list items.
report_machine() {
	_cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	_mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	_os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")
	_rev=$(git -C "$PV_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- CPU: ${_cpu:-unknown}, $(nproc) cores online"
	echo "- memory: $_mem; $_os; kernel $(uname -r)"
	echo "- podverbs: $_rev ($PV_BUILD)"
	echo "- load average at the start: ${REPORT_LOAD0:-?}; at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "- no RDMA hardware: the engine is the NIC; two pods (network namespaces) on one engine"
}

# report_sweep_table SERIES... : the sweep's points as a Markdown table, one
# column per series.
report_sweep_table() {
	awk -F'\t' -v cols="$*" 'BEGIN { n = split(cols, c, " ") }
		{ v[$1, $2] = $3; if (!($2 in seen)) { seen[$2] = 1; sz[++m] = $2 } }
		END {
			# Smallest size first, whichever series measured it first.
			for (a = 2; a <= m; a++)
				for (b = a; b > 1 && sz[b - 1] + 0 > sz[b] + 0; b--) {
					t = sz[b]; sz[b] = sz[b - 1]; sz[b - 1] = t
				}
			h = "| bytes |"; d = "|---:|"
			for (i = 1; i <= n; i++) { h = h " " c[i] " |"; d = d "---:|" }
			print h; print d
			for (j = 1; j <= m; j++) {
				l = "| " sz[j] " |"; any = 0
				for (i = 1; i <= n; i++) {
					x = ((c[i], sz[j]) in v) ? v[c[i], sz[j]] : ""
					if (x != "" && x != "-") { any = 1; x = sprintf("%.4g", x) }
					l = l " " x " |"
				}
				if (any) print l
			}
		}' "$TMP/sweep.tsv"
}

# report_plot OUT.svg TITLE YLABEL LOGY SERIES...: one gnuplot SVG.
report_plot() {
	_o=$1 _title=$2 _y=$3 _logy=$4
	shift 4
	_cmd="$TMP/plot.gp"
	{
		echo "set terminal svg size 800,480 dynamic font 'sans,11'"
		echo "set output '$_o'"
		echo "set title '$_title'"
		echo "set xlabel 'message size (bytes)'"
		echo "set ylabel '$_y'"
		echo "set termoption noenhanced"
		echo "set logscale x 2"
		[ "$_logy" = 1 ] && echo "set logscale y 10"
		# One tic per measured size, named in binary units (4K = 4096).
		awk -F'\t' -v ser="$*" 'BEGIN { n = split(ser, a, " "); for (i = 1; i <= n; i++) w[a[i]] = 1 }
			($1 in w) && !($2 in seen) { seen[$2] = 1; sz[++m] = $2 + 0 }
			END {
				l = ""
				for (j = 1; j <= m; j++) {
					v = sz[j]; t = v ""
					if (v >= 1048576 && v % 1048576 == 0) t = (v / 1048576) "M"
					else if (v >= 1024 && v % 1024 == 0) t = (v / 1024) "K"
					l = l (l == "" ? "" : ", ") "\"" t "\" " v
				}
				if (l != "") print "set xtics (" l ")"
			}' "$TMP/sweep.tsv"
		echo "set grid"
		echo "set key top left"
		echo "set datafile missing '-'"
		printf 'plot '
		_sep=
		for s in "$@"; do
			awk -F'\t' -v s="$s" '$1 == s { print $2, $3 }' "$TMP/sweep.tsv" >"$TMP/plot.$s"
			_lt=lp
			case $s in tcp_*) _lt="lp dt 2" ;; esac
			printf "%s'%s' using 1:2 with %s title '%s'" "$_sep" "$TMP/plot.$s" "$_lt" "$s"
			_sep=", "
		done
		echo
	} >"$_cmd"
	gnuplot "$_cmd" 2>"$TMP/gnuplot.err"
}

# report_write TABLE MSGRATE [CROSS]: writes the report from the files of
# the run's tables (any may be missing) and $TMP/sweep.tsv.
report_write() {
	OUT=${BENCH_OUT:-$PV_BUILD/bench}
	mkdir -p "$OUT" || return 1
	[ -s "$TMP/sweep.tsv" ] && cp "$TMP/sweep.tsv" "$OUT/sweep.tsv"
	_plots=0
	if command -v gnuplot >/dev/null 2>&1 && [ -s "$TMP/sweep.tsv" ]; then
		rm -f "$OUT/bw.svg" "$OUT/lat.svg"
		report_plot "$OUT/bw.svg" "bandwidth, pods a -> b on one engine" "Gb/s" 1 \
			ib_write_bw ib_send_bw ib_read_bw tcp_bw &&
		report_plot "$OUT/lat.svg" "latency (read: round trip; others one way)" "us" 1 \
			ib_write_lat ib_send_lat ib_read_lat tcp_lat && _plots=1
	fi
	{
		echo "# podverbs benchmark report"
		echo
		echo "Written by \`make bench\` (bench/run.sh); every RDMA figure is beside"
		echo "TCP measured between the same two pods in the same run."
		echo
		echo "## Machine"
		echo
		report_machine
		echo
		echo "## Summary (medians of ${REPS} runs)"
		echo
		echo '```'
		cat "$1" 2>/dev/null
		echo '```'
		if [ -s "$2" ]; then
			echo
			echo "## Message rate and large messages"
			echo
			echo '```'
			cat "$2"
			echo '```'
		fi
		if [ -s "$TMP/sweep.tsv" ]; then
			echo
			echo "## Against message size (one run per point)"
			echo
			if [ "$_plots" = 1 ]; then
				echo "![bandwidth against message size](bw.svg)"
				echo
				echo "![latency against message size](lat.svg)"
			else
				echo "(no plots: $(command -v gnuplot >/dev/null 2>&1 &&
					head -c 300 "$TMP/gnuplot.err" || echo "gnuplot is not installed"))"
			fi
			echo
			echo "Bandwidth, Gb/s (iperf3 writes 1 MiB at most: larger sizes are 1 MiB writes):"
			echo
			report_sweep_table ib_write_bw ib_send_bw ib_read_bw tcp_bw
			echo
			echo "Latency, µs (median; ib_read_lat is a round trip, the others and sockperf one way; sockperf's smallest message is 14 B):"
			echo
			report_sweep_table ib_write_lat ib_send_lat ib_read_lat tcp_lat
		fi
		if [ -n "${3:-}" ] && [ -s "$3" ]; then
			echo
			echo "## Across two nodes (bench/cross.sh)"
			echo
			echo '```'
			cat "$3"
			echo '```'
		fi
	} >"$OUT/report.md"
	echo "report: $OUT/report.md$([ "$_plots" = 1 ] && echo ", plots $OUT/bw.svg $OUT/lat.svg")"
}
