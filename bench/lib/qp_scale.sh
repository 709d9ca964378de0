# SPDX-License-Identifier: MIT
# The QP-scaling rows (issue 14; sourced by bench/run.sh after measure.sh):
# ib_write_bw, 4 KiB, with 1, 16 and 1024 QPs at perftest's default depths
# (1024 QPs ask a 131072-CQE CQ), the median of $REPS runs each, then the
# 1024/16 ratio beside its target (>= 0.8).  tests/integration/qp_scale.sh
# guards a loose bound of the same ratio.

qp_scale_bw() {
	for _r in $(seq "$REPS"); do
		give_up ib_write_bw && break
		perftest_once ib_write_bw 4 -s 4096 -q "$1" -D "$SECS" --report_gbits
	done | median
}

qp_scale_rows() {
	echo
	echo "QP scaling: ib_write_bw 4 KiB, perftest's default depths, median of $REPS runs"
	_q16=- _q1024=-
	for _q in 1 16 1024; do
		_v=$(qp_scale_bw "$_q")
		printf '  %5s QPs %10s Gb/s\n' "$_q" "$_v"
		case $_q in 16) _q16=$_v ;; 1024) _q1024=$_v ;; esac
	done
	awk -v a="$_q1024" -v b="$_q16" 'BEGIN {
		if (a == "-" || b == "-" || b <= 0) { print "  1024/16 ratio: NO-RESULT"; exit }
		r = a / b
		printf "  1024/16 ratio %.2f (target >= 0.8: %s)\n", r, (r >= 0.8 ? "met" : "MISSED") }'
}
