# SPDX-License-Identifier: MIT
# vm tier: what the kernel-interop tests share (POSIX sh; sourced by the
# t_*_interop.sh after vm.sh): a case run both ways with its wire traffic
# captured, the check of the captures, counters on both sides.
#
#   vm_interop_case NAME WHERE SECS "VM CMD" "POD CMD"
#                            vm_pair_case NAME-WHERE with the server on
#                            WHERE's side ("vm": VM CMD serves, POD CMD
#                            is the client; "pod": the other way), its
#                            first $VM_CAP_PKTS RoCE packets captured,
#                            both outputs kept as $VM_WORK/pair-NAME-WHERE.*
#   vm_interop_want NAME     whether case NAME is to run: all, or those
#                            in $VM_INTEROP_CASES (for debugging one)
#   vm_interop_check MIN     tshark decodes every captured packet of this
#                            test's cases as InfiniBand (RoCEv2), none
#                            malformed, at least MIN of them; scapy
#                            rechecks every ICRC (tests/lib/roce_check.py)
#   vm_pvstat NAME           one of our engine's counters (pvctl stats)
#   vm_pvstats_nonzero RE    our counters matching RE that are not 0
#   vm_rxe_counters          kernel rxe's hw_counters that are not 0
#   vm_cm_listening PORT     whether the kernel's RDMA CM in the VM has a
#                            listener on TCP-space PORT (rdma res show)
#   vm_cm_trace PCAP [N]     what a failed CM case says: every CM MAD of
#                            PCAP (time, sender, message, local/remote
#                            comm ID, REJ reason) and its first N (20)
#                            RC packets (QP, PSN, AETH syndrome)
#   vm_cm_gate_watch PORT PID DIR
#                            (in the VM, beside a server PID) DIR/listen1
#                            once the kernel lists PID's first listener on
#                            PORT, DIR/listen2 once a second one (a new
#                            cm-idn, or one after none): perftest -R's
#                            listener for its second connection
#   vm_cm_gate_so            builds lib/cm_gate.c (the client's second
#                            rdma_connect waits for $PV_CM_GATE) into
#                            $VM_WORK/cm_gate.so, seen by both sides
#   vm_keep_failed NAME FILE...
#                            copies a failed case's capture and outputs to
#                            $VM_CACHE/failed/NAME-<pid>/, which no later
#                            run sweeps (run folders go at the next run)
#
# A capture keeps each case's first packets only: scapy takes ~2 ms a
# packet here, and a case's opcodes and segmentation all show in its
# first messages.

VM_CAP_PKTS=${VM_CAP_PKTS:-800}

vm_interop_case() {
	_ic_name=$1-$2 _ic_where=$2 _ic_secs=$3
	if [ "$_ic_where" = vm ]; then
		_ic_srv=$4 _ic_cli=$5
	else
		_ic_srv=$5 _ic_cli=$4
	fi
	vm_capture_start "$VM_WORK/cap-$$-$_ic_name.pcap" -c "$VM_CAP_PKTS" \
		udp port 4791
	vm_pair_case "$_ic_name" "$_ic_secs" "$_ic_where" "$_ic_srv" "$_ic_cli"
	_ic_rc=$?
	vm_capture_stop
	# Both sides' output stays with the run's logs (TMP goes at exit).
	cp "$TMP/pair-$_ic_name.server" "$TMP/pair-$_ic_name.client" \
		"$VM_WORK/" 2>/dev/null
	return "$_ic_rc"
}

vm_interop_want() {
	case " ${VM_INTEROP_CASES:-$1} " in *" $1 "*) return 0 ;; esac
	return 1
}

vm_interop_check() {
	_cc_min=$1
	[ -n "${VM_INTEROP_CASES:-}" ] && _cc_min=1	# some cases only
	_cc_cap=$VM_WORK/cap-$$-all.pcap
	# Each case's capture starts after the last one stopped: in order.
	mergecap -a -w "$_cc_cap" "$VM_WORK"/cap-$$-*-*.pcap ||
		{ echo "capture: mergecap failed"; return 1; }
	cat "$VM_WORK"/cap-$$-*-*.pcap.log 2>/dev/null |
		awk '/dropped by kernel/ { d += $1 } END { print d + 0, "packets dropped by the capture" }'
	# Every packet, and those with a BTH opcode (decoded as InfiniBand).
	tshark -r "$_cc_cap" -T fields -e infiniband.bth.opcode 2>/dev/null |
		awk '{ t++ } $1 != "" { ib++ } END { print t + 0, ib + 0 }' \
		>"$_cc_cap.tshark"
	read -r _cc_total _cc_n <"$_cc_cap.tshark"
	_cc_malf=$(tshark -r "$_cc_cap" \
		-Y '_ws.malformed || _ws.expert.severity == error' 2>/dev/null | wc -l)
	echo "tshark: $_cc_n of $_cc_total packets decoded as InfiniBand, $_cc_malf malformed"
	if [ "$_cc_n" -lt "$_cc_min" ] || [ "$_cc_n" != "$_cc_total" ] ||
		[ "$_cc_malf" != 0 ]; then
		echo "capture: $_cc_n of $_cc_total decoded, $_cc_malf malformed (want >= $_cc_min, all)"
		return 1
	fi
	# Its status, not grep's: the output is filtered afterwards.
	_cc_out=$(/usr/bin/python3 "$PV_ROOT/tests/lib/roce_check.py" \
		--min "$_cc_min" "$_cc_cap")
	_cc_rc=$?
	echo "$_cc_out" | grep -v '^frame' | head -20
	[ "$_cc_rc" = 77 ] && skip "roce_check: $_cc_out"
	return "$_cc_rc"
}

vm_pvstat() {
	"$PV_BUILD/bin/pvctl" --admin-socket "$ENGINE_ADMIN_SOCK" stats |
		awk -v n="$1" '$1 == n { print $2 }'
}

vm_pvstats_nonzero() {
	"$PV_BUILD/bin/pvctl" --admin-socket "$ENGINE_ADMIN_SOCK" stats |
		grep -E "$1" | grep -v ' 0$' | awk '{ printf "%s=%s ", $1, $2 }'
	echo
}

vm_rxe_counters() {
	vm_run 20 'cd /sys/class/infiniband/rxe0/ports/1/hw_counters &&
		grep -H . * | grep -v ":0$" | grep -v ^lifespan | tr "\n" " "
		echo' || true
}

vm_cm_listening() {
	vm_run 10 "rdma res show cm_id | grep -q 'state LISTEN .*src-addr [0-9.]*:$1 '"
}

# The comm IDs are read from the MAD itself (tshark names them only for
# some messages): local at MAD offset 24, remote at 28 (IBA 12.6), after
# the BTH and DETH (20 bytes) of the UDP payload.
vm_cm_trace() {
	echo "--- CM MADs of $1 (time, from, message, local/remote comm ID, REJ reason):"
	tshark -r "$1" -Y 'infiniband.bth.destqp == 1' -T fields \
		-E separator=/t -e frame.time_relative -e ip.src -e _ws.col.Info \
		-e infiniband.cm.rej.reason -e udp.payload 2>/dev/null |
		awk -F'\t' '{ sub(/^CM: /, "", $3)
			printf "%9.3f %-10s %-18s %s %s %s\n", $1, $2, $3,
				substr($5, 89, 8), substr($5, 97, 8),
				$4 != "" ? "reason " $4 : "" }'
	echo "--- first ${2:-20} RC packets (time, from, QP, PSN, AETH, what):"
	tshark -r "$1" -Y 'infiniband.bth.destqp != 1' -c "${2:-20}" -T fields \
		-E separator=/t -e frame.time_relative -e ip.src \
		-e infiniband.bth.destqp -e infiniband.bth.psn \
		-e infiniband.aeth.syndrome -e _ws.col.Info 2>/dev/null |
		awk -F'\t' '{ printf "%9.3f %-10s %s psn %s aeth %s %s\n",
			$1, $2, $3, $4, $5 == "" ? "-" : $5, $6 }'
}

vm_keep_failed() {
	_kf_dir=$VM_CACHE/failed/$1-$$
	shift
	mkdir -p "$_kf_dir" && cp "$@" "$_kf_dir/" 2>/dev/null
	echo "kept for later: $_kf_dir"
}

# The kernel's listener ids on a port, as `rdma res show cm_id` names them.
vm_cm_listen_idn() {
	rdma res show cm_id 2>/dev/null | awk -v p=":$1" '/state LISTEN/ {
		for (i = 1; i < NF; i++) {
			if ($i == "cm-idn") n = $(i + 1)
			if ($i == "src-addr" && substr($(i + 1),
			    length($(i + 1)) - length(p) + 1) == p) print n
		} }' | head -1
}

vm_cm_gate_watch() {
	_gw_first= _gw_gap=
	while kill -0 "$2" 2>/dev/null; do
		_gw_idn=$(vm_cm_listen_idn "$1")
		if [ -z "$_gw_idn" ]; then
			[ -n "$_gw_first" ] && _gw_gap=1
		elif [ -z "$_gw_first" ]; then
			_gw_first=$_gw_idn
			: >"$3/listen1"
		elif [ "$_gw_idn" != "$_gw_first" ] || [ -n "$_gw_gap" ]; then
			: >"$3/listen2"
			return 0
		fi
		sleep 0.05
	done
}

vm_cm_gate_so() {
	[ -e "$VM_WORK/cm_gate.so" ] && return 0
	${CC:-cc} -shared -fPIC -O2 -o "$VM_WORK/cm_gate.so" \
		"$VM_LIB/cm_gate.c" -ldl
}
