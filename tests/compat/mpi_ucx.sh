#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's Open MPI (openmpi-bin, 4.1) over Debian's UCX over our
# libibverbs: a 2-rank job, one rank in each pod, no sshd anywhere.
# tests/compat/mpi/pv_mpi_check.c (built here with mpicc) ping-pongs
# checked messages of 1 B to 4 MiB, streams 64 KiB and 1 MiB messages, and
# checks allreduces (sum, max, min); it runs twice in the same pods:
#   ucx   --mca pml ucx, UCX_TLS=rc_v,self on the pod's soft device: the
#         engine's responders must have placed at least the ping-pong's
#         bytes (dp_bytes), so the job really ran over verbs;
#   tcp   --mca pml ob1 --mca btl tcp,self: the engine must see none.
# Both must pass with every byte checked; a table puts their latency and
# bandwidth side by side.
#
# Launch: mpirun runs in pod a (its rank 0 there), and starts the orted of
# pod b through tests/compat/mpi/pv_mpi_agent.sh (`plm_rsh_agent`: what
# ssh would do, `ip netns exec` by the host's IP instead); each pod gets
# its own host name (UTS namespace), as a real pod has.  Open MPI's own
# traffic (OOB, PMIx modex) goes over the pods' eth0.  With PV_TOPO=cross
# (tests/cross.list) pod a is on node 1 and b on node 2, each with its own
# engine, and the job crosses the RoCEv2 wire.
# MPI_SCALE (percent, default 100; cross-node MPI_SCALE_CROSS, 30) scales
# the iterations.
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd mpirun mpicc ucx_info unshare
pods_up

SRC=$PV_ROOT/tests/compat/mpi
PROG=$TMP/pv_mpi_check
# mpicc: Debian's wrapper (gcc with Open MPI's flags); the program is ours
# but no part of the tree's build (it needs Open MPI's headers).
mpicc -O2 -Wall -Wextra -Werror -o "$PROG" "$SRC/pv_mpi_check.c" >"$TMP/mpicc.out" 2>&1 || {
	cat "$TMP/mpicc.out"
	fail "mpicc pv_mpi_check.c"
}

PV_MPI_MAP=$TMP/mpi.map
{
	echo "$POD_A_IP ${TOPO_PREFIX}a $(pod_engine_sock a) pv-mpi-a"
	echo "$POD_B_IP ${TOPO_PREFIX}b $(pod_engine_sock b) pv-mpi-b"
} >"$PV_MPI_MAP"
PV_MPI_LIB=$PV_LIB
export PV_MPI_MAP PV_MPI_LIB
# Root in a test namespace: Open MPI refuses root unless told twice.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Cross-node a round trip takes both engines' loops and two routed hops:
# fewer of them, so that the script stays well under a minute.
MPI_SCALE=${MPI_SCALE:-100}
[ "${PV_TOPO:-}" = cross ] && MPI_SCALE=${MPI_SCALE_CROSS:-30}

# dp_bytes: bytes the engines' responders placed (both nodes' cross-node).
dp_bytes() {
	_db_n=1
	[ "${PV_TOPO:-}" = cross ] && _db_n="1 2"
	for _db_i in $_db_n; do
		pvctl_node "$_db_i" stats 2>/dev/null
	done | awk '$1 == "dp_bytes" { s += $2 } END { print s + 0 }'
}

# mpi_job NAME MCA...: pv_mpi_check in pods a and b with those MCA
# arguments; output in $TMP/NAME.out.  Returns mpirun's status.
mpi_job() {
	_mj_name=$1
	shift
	# shellcheck disable=SC2086
	in_pod a unshare --uts sh -c 'hostname pv-mpi-a && exec "$@"' sh \
		timeout 90 mpirun --allow-run-as-root -np 2 \
		--host "$POD_A_IP:1,$POD_B_IP:1" \
		--mca plm_rsh_agent "sh $SRC/pv_mpi_agent.sh" \
		--mca plm_rsh_no_tree_spawn 1 --bind-to none \
		--mca oob_tcp_if_include eth0 \
		--mca btl_tcp_if_include eth0 \
		"$@" "$PROG" "$MPI_SCALE" >"$TMP/$_mj_name.out" 2>&1
}

# pingpong_bytes FILE: the bytes the ping-pongs moved (both directions,
# the untimed warm-up round included).
pingpong_bytes() {
	awk '$1 == "pingpong" { s += 2 * $2 * ($3 + 1) } END { printf "%d\n", s }' "$1"
}

# job_case NAME WANT_VERBS MCA...: one job; WANT_VERBS yes means the
# engine must have placed at least the ping-pong's bytes, no means none.
job_case() {
	_jc_name=$1 _jc_verbs=$2
	shift 2
	_jc_before=$(dp_bytes)
	mpi_job "$_jc_name" "$@"
	_jc_rc=$?
	_jc_moved=$(( $(dp_bytes) - _jc_before ))
	if [ "$_jc_rc" != 0 ]; then
		# The first error lines come before a backtrace's tail.
		echo "---- $_jc_name.out (head)"
		grep -v '^\[[^]]*\] \[ *[0-9]*\]' "$TMP/$_jc_name.out" | head -25
		case_fail "$_jc_name" "mpirun exited $_jc_rc (124 = timeout)"
		return 1
	fi
	grep -qx 'pv_mpi_check: OK' "$TMP/$_jc_name.out" || {
		case_fail "$_jc_name" "no 'pv_mpi_check: OK'"
		return 1
	}
	_jc_pp=$(pingpong_bytes "$TMP/$_jc_name.out")
	case $_jc_verbs in
	yes)	[ "$_jc_moved" -ge "$_jc_pp" ] || {
			case_fail "$_jc_name" "the engines placed $_jc_moved bytes, under the ping-pong's $_jc_pp: not over verbs"
			return 1
		} ;;
	no)	[ "$_jc_moved" = 0 ] || {
			case_fail "$_jc_name" "the engines placed $_jc_moved bytes in a job that must not use verbs"
			return 1
		} ;;
	esac
	case_ok "$_jc_name: data checked, $(grep -c '^allreduce .* ok$' \
		"$TMP/$_jc_name.out") allreduce sizes, engines placed $_jc_moved B"
}

# UCX: rc_verbs (UCX's alias rc_v: RC for data, ud_verbs to wire it up),
# only on the pod's device.  Open MPI's pml ucx keeps only devices matching
# pml_ucx_devices (default mlx*, Mellanox's names): any, for ours.
UCX_DEV=$POD_DEV:1
job_case mpi-ucx yes --mca pml ucx --mca pml_ucx_devices any \
	--mca pml_ucx_tls any --mca btl self --mca osc ^ucx \
	-x UCX_TLS=rc_v,self -x UCX_NET_DEVICES="$UCX_DEV" \
	-x UCX_WARN_UNUSED_ENV_VARS=n
job_case mpi-tcp no --mca pml ob1 --mca btl tcp,self --mca osc ^ucx

# The table: rank 0's figures, UCX beside TCP.
if [ -s "$TMP/mpi-ucx.out" ] && [ -s "$TMP/mpi-tcp.out" ]; then
	where="same node"
	[ "${PV_TOPO:-}" = cross ] && where="cross-node (pod a on node 1, b on node 2)"
	echo
	echo "pv_mpi_check, 2 ranks, one per pod, $where (lat: us, half a round trip; bw: MB/s)"
	printf '%-9s %8s %10s %10s %7s %10s %10s %7s\n' test size ucx-lat tcp-lat ratio \
		ucx-bw tcp-bw ratio
	awk '
	FNR == 1 { f++ }
	$1 == "pingpong" || $1 == "stream" {
		k = $1 " " $2
		for (i = 3; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "lat_us") lat[f, k] = kv[2]
			if (kv[1] == "bw_MBps") bw[f, k] = kv[2]
		}
		if (f == 1) order[++n] = k
	}
	END {
		for (j = 1; j <= n; j++) {
			k = order[j]
			split(k, p, " ")
			l1 = lat[1, k]; l2 = lat[2, k]; b1 = bw[1, k]; b2 = bw[2, k]
			printf "%-9s %8s %10s %10s %7s %10s %10s %7s\n", p[1], p[2],
				(l1 == "" ? "-" : l1), (l2 == "" ? "-" : l2),
				(l1 != "" && l2 > 0 ? sprintf("%.2fx", l1 / l2) : "-"),
				b1, b2, (b2 > 0 ? sprintf("%.2fx", b1 / b2) : "-")
		}
	}' "$TMP/mpi-ucx.out" "$TMP/mpi-tcp.out"
	echo
fi
pairs_done
