#!/bin/sh
# SPDX-License-Identifier: MIT
# Finding 2 of issue 8, played by a hostile pod: memory registered without
# a memfd was reached with process_vm_readv/writev on the registering pid,
# so it followed whoever held that pid (or ran in that process) later.
# eng-mem-attack registers such an MR over the raw IPC from pod A, keeps
# the connection in a child and then
#   pidreuse: exits, and a victim process is given its pid (ns_last_pid,
#             inside a private pid namespace that the engine runs in too);
#   setuid:   runs as uid 1234 and execs a setuid-root program holding a
#             secret read from a root-only file;
# pod B then RDMA READs and WRITEs through the MR.  Neither may reach the
# victim: the engine refuses an MR without a memfd (and counts it), and
# never calls process_vm_* (its seccomp filter refuses them).  Our own
# library, told not to move pages (PODVERBS_MR_SHARE=0), must fail
# ibv_reg_mr visibly rather than fall back.
. "$PV_ROOT/tests/lib/topo.sh"

ATTACK="$PV_BUILD/tests/bin/eng-mem-attack"
SECRET="$PV_BUILD/tests/bin/eng-mem-secret"
CTL="$PV_BUILD/bin/pvctl"

# Inside `unshare --pid --fork --mount-proc`: the engine and every process
# of the attack share one pid namespace whose ns_last_pid is ours alone.
if [ "$1" = inner ]; then
	trap '' EXIT
	start_engine
	"$CTL" dev add --netns "$(topo_path a)" --ifname eth0 --name rdma0 ||
		fail "add a"
	"$CTL" dev add --netns "$(topo_path b)" --ifname eth0 --name rdma0 ||
		fail "add b"
	_bad=
	for _m in pidreuse setuid; do
		echo "== $_m"
		_f=$TMP/pod-secret
		[ $_m = setuid ] && _f=$TMP/root-secret
		LD_LIBRARY_PATH="$PV_BUILD/lib" "$ATTACK" $_m "$(topo_path a)" \
			"$(topo_path b)" 10.9.0.1 10.9.0.2 "$TMP/victim" "$_f"
		_rc=$?
		case $_rc in
		0) ;;
		77) exit 77 ;;
		1) _bad="$_bad $_m" ;;
		*) fail "$_m: attack program error ($_rc)" ;;
		esac
	done
	[ -z "$_bad" ] || fail "the MR reached the victim in:$_bad"
	# Our library never falls back: what it cannot share fails
	# ibv_reg_mr with EOPNOTSUPP, and PODVERBS_DEBUG says why.
	echo "== ibv_reg_mr with PODVERBS_MR_SHARE=0"
	ip netns exec "$(topo_name a)" env \
		LD_LIBRARY_PATH="$PV_BUILD/lib" \
		PODVERBS_ENGINE="$ENGINE_SOCK" PODVERBS_MR_SHARE=0 \
		PODVERBS_DEBUG=1 timeout 10 ibv_rc_pingpong -d rdma0 \
		-g 0 >"$TMP/pp.out" 2>&1
	_rc=$?
	cat "$TMP/pp.out"
	[ $_rc != 0 ] && [ $_rc != 124 ] &&
		grep -q 'ibv_reg_mr.*Operation not supported: PODVERBS_MR_SHARE=0' \
			"$TMP/pp.out" ||
		fail "ibv_reg_mr did not fail visibly (rc $_rc)"
	_n=$("$CTL" stats | awk '$1 == "dp_mr_refused_no_memfd" { print $2 }')
	echo "dp_mr_refused_no_memfd: ${_n:-absent}"
	[ "${_n:-0}" -ge 2 ] || fail "refusals not counted"
	pid_alive "$ENGINE_PID" || fail "engine died"
	echo "PASS"
	exit 0
fi

topo_init
# ibv_rc_pingpong (mk/deps.sh) is the library check below: without it
# the whole script skips rather than pass with that check unrun.
need_cmd unshare ibv_rc_pingpong
[ -x "$ATTACK" ] && [ -x "$SECRET" ] && [ -x "$CTL" ] ||
	skip "eng-mem-attack/eng-mem-secret/pvctl not built"
topo_ns a
topo_ns b
topo_veth a b 10.9.0.1/24 10.9.0.2/24 eth0 eth0
topo_wait_dad a
topo_wait_dad b
# uid 1234 must reach the socket and the setuid victim, not the secret.
chmod 0711 "$TMP"
cp "$SECRET" "$TMP/victim" && chown 0:0 "$TMP/victim" &&
	chmod 4755 "$TMP/victim" || fail "setuid victim"
echo "pod-c-secret-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')" \
	>"$TMP/pod-secret"
echo "root-only-secret-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')" \
	>"$TMP/root-secret"
chmod 0644 "$TMP/pod-secret"
chmod 0600 "$TMP/root-secret"
unshare --pid --fork --mount-proc sh "$0" inner
