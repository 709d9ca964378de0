# SPDX-License-Identifier: MIT
# The simulated link's MTU, changed in place (POSIX sh; sourced by
# bench/cross.sh after tests/lib/nodes.sh): the same pods, the same link,
# only the interface MTU differs between the benchmark's conditions.

# link_mtu MTU: every interface but lo in every namespace of this topology
# (nodes.sh's $TOPO_TMP/netns.list: pods, nodes, wire) gets MTU; veths
# first, bridges after (a bridge takes no MTU over its ports').  The
# engines see the change through netlink, as they see a CNI's.  Returns 1
# unless every pod's eth0 has MTU afterwards.
link_mtu() {
	_lm_m=$1
	for _lm_kind in veth bridge; do
		while read -r _lm_ns; do
			for _lm_if in $(ip -n "$_lm_ns" -o link show type "$_lm_kind" 2>/dev/null |
				awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
				ip -n "$_lm_ns" link set "$_lm_if" mtu "$_lm_m" 2>/dev/null
			done
		done <"$TOPO_TMP/netns.list"
	done
	NODES_MTU=$_lm_m
	for _lm_p in "$(nodes_dir)"/pod.*; do
		[ -e "$_lm_p" ] || continue
		_lm_pod=${_lm_p##*/pod.}
		topo_ip "$_lm_pod" link show eth0 2>/dev/null | grep -q " mtu $_lm_m " ||
			return 1
	done
	# The engines apply link changes from netlink, on their own loop: a
	# moment before the devices' active_mtu follows.
	sleep 0.5
	return 0
}
