#!/bin/sh
# ABI oracle for include/rdma/{rdma_cma,rdma_verbs,rsocket}.h and
# include/infiniband/sa.h against Debian's librdmacm-dev/libibverbs-dev
# (rdma-core 44):
#  1. each header compiles alone with strict warnings, as C and C++;
#  2. a probe prints sizeof/alignof of every struct that crosses the ABI,
#     offsetof/sizeof of each member, and the value of every enumerator
#     and constant macro; built against each set of headers, the outputs
#     must be identical;
#  3. a program using every rdma_verbs.h inline and rsocket call compiles
#     against both headers and calls the same library symbols.
# The probe is written here by name; rdma-core's headers are read at run
# time only.  Exit 0 pass, 77 skip, 1 fail.
set -u
ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
RDMA_INC=${PV_RDMA_INCLUDE:-/usr/include}
CC=${CC:-cc}
CXX=${CXX:-c++}
[ -f "$RDMA_INC/rdma/rdma_cma.h" ] || { echo "SKIP: librdmacm-dev not installed"; exit 77; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pv-rdmacm-abi.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }
STRICT="-Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes -Werror"

# 1. Alone, as C and C++.
for h in rdma/rdma_cma.h rdma/rdma_verbs.h rdma/rsocket.h infiniband/sa.h; do
	for std in gnu11 c11 gnu99; do
		printf '#include <%s>\n' "$h" |
			$CC -std=$std $STRICT -I"$ROOT/include" -x c -fsyntax-only - ||
			bad "$h does not compile alone as $std"
	done
	if command -v "$CXX" >/dev/null 2>&1; then
		printf '#include <%s>\n' "$h" |
			$CXX -std=c++11 -Wall -Wextra -Werror -I"$ROOT/include" \
				-x c++ -fsyntax-only - ||
			bad "$h does not compile alone as C++"
	fi
done

# 2. Layout and values.
cat >"$WORK/layout.c" <<'PROBE'
#include <stdio.h>
#include <stddef.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdma/rsocket.h>
#include <infiniband/sa.h>
#define S(t) printf("%s size %zu align %zu\n", #t, sizeof(t), _Alignof(t));
#define M(t, m) printf("%s.%s off %zu size %zu\n", #t, #m, \
	offsetof(t, m), sizeof(((t *)0)->m));
#define V(c) printf("%s = %lld\n", #c, (long long)(c));
int main(void)
{
	S(struct rdma_ib_addr) M(struct rdma_ib_addr, sgid)
	M(struct rdma_ib_addr, dgid) M(struct rdma_ib_addr, pkey)
	S(struct rdma_addr) M(struct rdma_addr, src_addr)
	M(struct rdma_addr, src_sin) M(struct rdma_addr, src_sin6)
	M(struct rdma_addr, src_storage) M(struct rdma_addr, dst_addr)
	M(struct rdma_addr, dst_sin) M(struct rdma_addr, dst_sin6)
	M(struct rdma_addr, dst_storage) M(struct rdma_addr, addr)
	M(struct rdma_addr, addr.ibaddr)
	S(struct rdma_route) M(struct rdma_route, addr)
	M(struct rdma_route, path_rec) M(struct rdma_route, num_paths)
	S(struct rdma_event_channel) M(struct rdma_event_channel, fd)
	S(struct rdma_cm_id) M(struct rdma_cm_id, verbs)
	M(struct rdma_cm_id, channel) M(struct rdma_cm_id, context)
	M(struct rdma_cm_id, qp) M(struct rdma_cm_id, route)
	M(struct rdma_cm_id, ps) M(struct rdma_cm_id, port_num)
	M(struct rdma_cm_id, event) M(struct rdma_cm_id, send_cq_channel)
	M(struct rdma_cm_id, send_cq) M(struct rdma_cm_id, recv_cq_channel)
	M(struct rdma_cm_id, recv_cq) M(struct rdma_cm_id, srq)
	M(struct rdma_cm_id, pd) M(struct rdma_cm_id, qp_type)
	S(struct rdma_conn_param) M(struct rdma_conn_param, private_data)
	M(struct rdma_conn_param, private_data_len)
	M(struct rdma_conn_param, responder_resources)
	M(struct rdma_conn_param, initiator_depth)
	M(struct rdma_conn_param, flow_control)
	M(struct rdma_conn_param, retry_count)
	M(struct rdma_conn_param, rnr_retry_count)
	M(struct rdma_conn_param, srq) M(struct rdma_conn_param, qp_num)
	S(struct rdma_ud_param) M(struct rdma_ud_param, private_data)
	M(struct rdma_ud_param, private_data_len)
	M(struct rdma_ud_param, ah_attr) M(struct rdma_ud_param, qp_num)
	M(struct rdma_ud_param, qkey)
	S(struct rdma_cm_event) M(struct rdma_cm_event, id)
	M(struct rdma_cm_event, listen_id) M(struct rdma_cm_event, event)
	M(struct rdma_cm_event, status) M(struct rdma_cm_event, param)
	M(struct rdma_cm_event, param.conn) M(struct rdma_cm_event, param.ud)
	S(struct rdma_addrinfo) M(struct rdma_addrinfo, ai_flags)
	M(struct rdma_addrinfo, ai_family) M(struct rdma_addrinfo, ai_qp_type)
	M(struct rdma_addrinfo, ai_port_space)
	M(struct rdma_addrinfo, ai_src_len) M(struct rdma_addrinfo, ai_dst_len)
	M(struct rdma_addrinfo, ai_src_addr) M(struct rdma_addrinfo, ai_dst_addr)
	M(struct rdma_addrinfo, ai_src_canonname)
	M(struct rdma_addrinfo, ai_dst_canonname)
	M(struct rdma_addrinfo, ai_route_len) M(struct rdma_addrinfo, ai_route)
	M(struct rdma_addrinfo, ai_connect_len)
	M(struct rdma_addrinfo, ai_connect) M(struct rdma_addrinfo, ai_next)
	S(struct rdma_cm_join_mc_attr_ex)
	M(struct rdma_cm_join_mc_attr_ex, comp_mask)
	M(struct rdma_cm_join_mc_attr_ex, join_flags)
	M(struct rdma_cm_join_mc_attr_ex, addr)
	S(struct ibv_sa_path_rec) M(struct ibv_sa_path_rec, dgid)
	M(struct ibv_sa_path_rec, sgid) M(struct ibv_sa_path_rec, dlid)
	M(struct ibv_sa_path_rec, slid) M(struct ibv_sa_path_rec, raw_traffic)
	M(struct ibv_sa_path_rec, flow_label) M(struct ibv_sa_path_rec, hop_limit)
	M(struct ibv_sa_path_rec, traffic_class)
	M(struct ibv_sa_path_rec, reversible) M(struct ibv_sa_path_rec, numb_path)
	M(struct ibv_sa_path_rec, pkey) M(struct ibv_sa_path_rec, sl)
	M(struct ibv_sa_path_rec, mtu_selector) M(struct ibv_sa_path_rec, mtu)
	M(struct ibv_sa_path_rec, rate_selector) M(struct ibv_sa_path_rec, rate)
	M(struct ibv_sa_path_rec, packet_life_time_selector)
	M(struct ibv_sa_path_rec, packet_life_time)
	M(struct ibv_sa_path_rec, preference)
	S(struct ibv_sa_mcmember_rec) M(struct ibv_sa_mcmember_rec, mgid)
	M(struct ibv_sa_mcmember_rec, port_gid) M(struct ibv_sa_mcmember_rec, qkey)
	M(struct ibv_sa_mcmember_rec, mlid)
	M(struct ibv_sa_mcmember_rec, mtu_selector)
	M(struct ibv_sa_mcmember_rec, mtu)
	M(struct ibv_sa_mcmember_rec, traffic_class)
	M(struct ibv_sa_mcmember_rec, pkey)
	M(struct ibv_sa_mcmember_rec, rate_selector)
	M(struct ibv_sa_mcmember_rec, rate)
	M(struct ibv_sa_mcmember_rec, packet_life_time_selector)
	M(struct ibv_sa_mcmember_rec, packet_life_time)
	M(struct ibv_sa_mcmember_rec, sl) M(struct ibv_sa_mcmember_rec, flow_label)
	M(struct ibv_sa_mcmember_rec, hop_limit) M(struct ibv_sa_mcmember_rec, scope)
	M(struct ibv_sa_mcmember_rec, join_state)
	M(struct ibv_sa_mcmember_rec, proxy_join)
	S(struct ibv_sa_service_rec) M(struct ibv_sa_service_rec, id)
	M(struct ibv_sa_service_rec, gid) M(struct ibv_sa_service_rec, pkey)
	M(struct ibv_sa_service_rec, lease) M(struct ibv_sa_service_rec, key)
	M(struct ibv_sa_service_rec, name) M(struct ibv_sa_service_rec, data8)
	M(struct ibv_sa_service_rec, data16) M(struct ibv_sa_service_rec, data32)
	M(struct ibv_sa_service_rec, data64)
	S(struct ibv_path_record) M(struct ibv_path_record, service_id)
	M(struct ibv_path_record, dgid) M(struct ibv_path_record, sgid)
	M(struct ibv_path_record, dlid) M(struct ibv_path_record, slid)
	M(struct ibv_path_record, flowlabel_hoplimit)
	M(struct ibv_path_record, tclass)
	M(struct ibv_path_record, reversible_numpath)
	M(struct ibv_path_record, pkey) M(struct ibv_path_record, qosclass_sl)
	M(struct ibv_path_record, mtu) M(struct ibv_path_record, rate)
	M(struct ibv_path_record, packetlifetime)
	M(struct ibv_path_record, preference) M(struct ibv_path_record, reserved)
	S(struct ibv_path_data) M(struct ibv_path_data, flags)
	M(struct ibv_path_data, reserved) M(struct ibv_path_data, path)
	S(enum rdma_cm_event_type) S(enum rdma_port_space)
	V(RDMA_CM_EVENT_ADDR_RESOLVED) V(RDMA_CM_EVENT_ADDR_ERROR)
	V(RDMA_CM_EVENT_ROUTE_RESOLVED) V(RDMA_CM_EVENT_ROUTE_ERROR)
	V(RDMA_CM_EVENT_CONNECT_REQUEST) V(RDMA_CM_EVENT_CONNECT_RESPONSE)
	V(RDMA_CM_EVENT_CONNECT_ERROR) V(RDMA_CM_EVENT_UNREACHABLE)
	V(RDMA_CM_EVENT_REJECTED) V(RDMA_CM_EVENT_ESTABLISHED)
	V(RDMA_CM_EVENT_DISCONNECTED) V(RDMA_CM_EVENT_DEVICE_REMOVAL)
	V(RDMA_CM_EVENT_MULTICAST_JOIN) V(RDMA_CM_EVENT_MULTICAST_ERROR)
	V(RDMA_CM_EVENT_ADDR_CHANGE) V(RDMA_CM_EVENT_TIMEWAIT_EXIT)
	V(RDMA_PS_IPOIB) V(RDMA_PS_TCP) V(RDMA_PS_UDP) V(RDMA_PS_IB)
	V(RDMA_IB_IP_PS_MASK) V(RDMA_IB_IP_PORT_MASK) V(RDMA_IB_IP_PS_TCP)
	V(RDMA_IB_IP_PS_UDP) V(RDMA_IB_PS_IB) V(RDMA_UDP_QKEY)
	V(RDMA_MAX_RESP_RES) V(RDMA_MAX_INIT_DEPTH)
	V(RAI_PASSIVE) V(RAI_NUMERICHOST) V(RAI_NOROUTE) V(RAI_FAMILY)
	V(RDMA_CM_JOIN_MC_ATTR_ADDRESS) V(RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS)
	V(RDMA_CM_JOIN_MC_ATTR_RESERVED) V(RDMA_MC_JOIN_FLAG_FULLMEMBER)
	V(RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER) V(RDMA_MC_JOIN_FLAG_RESERVED)
	V(RDMA_OPTION_ID) V(RDMA_OPTION_IB) V(RDMA_OPTION_ID_TOS)
	V(RDMA_OPTION_ID_REUSEADDR) V(RDMA_OPTION_ID_AFONLY)
	V(RDMA_OPTION_ID_ACK_TIMEOUT) V(RDMA_OPTION_IB_PATH)
	V(IBV_PATH_RECORD_REVERSIBLE) V(IBV_PATH_FLAG_GMP)
	V(IBV_PATH_FLAG_PRIMARY) V(IBV_PATH_FLAG_ALTERNATE)
	V(IBV_PATH_FLAG_OUTBOUND) V(IBV_PATH_FLAG_INBOUND)
	V(IBV_PATH_FLAG_INBOUND_REVERSE) V(IBV_PATH_FLAG_BIDIRECTIONAL)
	V(SOL_RDMA) V(RDMA_SQSIZE) V(RDMA_RQSIZE) V(RDMA_INLINE)
	V(RDMA_IOMAPSIZE) V(RDMA_ROUTE)
	return 0;
}
PROBE
$CC -std=gnu11 -w -I"$ROOT/include" "$WORK/layout.c" -o "$WORK/l-ours" &&
	$CC -std=gnu11 -w -isystem "$RDMA_INC" "$WORK/layout.c" -o "$WORK/l-rdma" ||
	{ echo "FAIL: layout probe does not build"; exit 1; }
"$WORK/l-ours" >"$WORK/ours.txt" && "$WORK/l-rdma" >"$WORK/rdma.txt" ||
	{ echo "FAIL: layout probe did not run"; exit 1; }
if ! diff -u "$WORK/rdma.txt" "$WORK/ours.txt"; then
	bad "layouts or values differ (- Debian's, + ours)"
fi
echo "layout: $(wc -l <"$WORK/ours.txt") sizes, offsets and values compared"

# 3. The inlines and the rsocket calls, against both headers.
cat >"$WORK/use.c" <<'PROBE'
#include <rdma/rdma_verbs.h>
#include <rdma/rsocket.h>
int use(struct rdma_cm_id *id, struct ibv_mr *mr, struct ibv_ah *ah,
	struct ibv_wc *wc, char *buf);
int use(struct rdma_cm_id *id, struct ibv_mr *mr, struct ibv_ah *ah,
	struct ibv_wc *wc, char *buf)
{
	struct ibv_sge sge = { 0 };
	int r = 0;

	r |= rdma_reg_msgs(id, buf, 8) != NULL;
	r |= rdma_reg_read(id, buf, 8) != NULL;
	r |= rdma_reg_write(id, buf, 8) != NULL;
	r |= rdma_dereg_mr(mr);
	r |= rdma_post_recvv(id, buf, &sge, 1);
	r |= rdma_post_sendv(id, buf, &sge, 1, 0);
	r |= rdma_post_readv(id, buf, &sge, 1, 0, 1, 2);
	r |= rdma_post_writev(id, buf, &sge, 1, 0, 1, 2);
	r |= rdma_post_recv(id, buf, buf, 8, mr);
	r |= rdma_post_send(id, buf, buf, 8, mr, 0);
	r |= rdma_post_read(id, buf, buf, 8, mr, 0, 1, 2);
	r |= rdma_post_write(id, buf, buf, 8, mr, 0, 1, 2);
	r |= rdma_post_ud_send(id, buf, buf, 8, mr, 0, ah, 5);
	r |= rdma_get_send_comp(id, wc);
	r |= rdma_get_recv_comp(id, wc);
	r |= rdma_get_local_addr(id) != NULL;
	r |= rdma_get_peer_addr(id) != NULL;
	r |= rsocket(AF_INET, SOCK_STREAM, 0);
	r |= rfcntl(3, 0, 0);
	return r;
}
PROBE
$CC -std=gnu11 $STRICT -I"$ROOT/include" -c "$WORK/use.c" -o "$WORK/use-ours.o" &&
	$CC -std=gnu11 $STRICT -isystem "$RDMA_INC" -c "$WORK/use.c" -o "$WORK/use-rdma.o" ||
	bad "the inline-use probe does not build against both headers"
if [ -f "$WORK/use-ours.o" ] && [ -f "$WORK/use-rdma.o" ]; then
	nm -u "$WORK/use-ours.o" | awk '{print $2}' | grep -v '^__' | sort >"$WORK/u-ours"
	nm -u "$WORK/use-rdma.o" | awk '{print $2}' | grep -v '^__' | sort >"$WORK/u-rdma"
	diff -u "$WORK/u-rdma" "$WORK/u-ours" || bad "the inlines call different symbols"
fi
if command -v "$CXX" >/dev/null 2>&1; then
	$CXX -std=c++11 -Wall -Werror -I"$ROOT/include" -x c++ -c "$WORK/use.c" \
		-o "$WORK/use-cxx.o" || bad "the inline-use probe does not build as C++"
fi
[ $fail = 0 ] && echo "rdmacm layout: ok"
exit $fail
