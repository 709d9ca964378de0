/* SPDX-License-Identifier: MIT */
/* Engine counters, declared once; ADM_STATS sends them by name. */
#ifndef ENG_STATS_H
#define ENG_STATS_H

#include <stdint.h>

#define ENG_STATS(X)			\
	X(clients_accepted)		\
	X(clients_closed)		\
	X(clients_rejected)		\
	X(clients_live)			\
	X(requests)			\
	X(msgs_malformed)		\
	X(msgs_unknown_op)		\
	X(requests_denied)		\
	X(requests_failed)		\
	X(limit_hits)			\
	X(replies_dropped)		\
	X(events_sent)			\
	X(events_dropped)		\
	X(devices_added)		\
	X(devices_removed)		\
	X(devices_live)			\
	X(objects_created)		\
	X(objects_destroyed)		\
	X(objects_live)			\
	X(link_events)			\
	X(gid_changes)			\
	X(gid_conflicts)		\
	X(port_state_changes)		\
	X(dp_wqes)			\
	X(dp_bytes)			\
	X(dp_cqes)			\
	X(dp_cqes_lost)			\
	X(dp_cq_overflows)		\
	X(dp_flushed)			\
	X(dp_qp_errors)			\
	X(dp_ring_errors)		\
	X(dp_access_errors)		\
	X(dp_rnr_naks)			\
	X(dp_drops_no_dest)		\
	X(dp_drops_no_recv)		\
	X(dp_drops_pkey)		\
	X(dp_drops_qkey)		\
	X(dp_mr_mapped)			\
	X(dp_mr_refused_no_memfd)	\
	X(dp_mr_refused_unpopulated)	\
	X(dp_mr_misaligned)		\
	X(quota_fds_hit)		\
	X(quota_maps_hit)		\
	X(quota_mr_bytes_hit)		\
	X(dp_sleeps)			\
	X(dp_spin_backoffs)		\
	X(dp_sleeps_nospin)		\
	X(dp_doorbells)			\
	X(dp_rkey_violations)		\
	X(dp_remote_refused)		\
	X(qkey_privileged_denied)	\
	X(state_saves)			\
	X(state_journal_appends)	\
	X(state_save_errors)		\
	X(state_files_rejected)		\
	X(state_entries_restored)	\
	X(state_entries_dropped)	\
	X(state_entries_rejected)	\
	X(fds_reaped)			\
	X(msgs_fds_refused)		\
	X(admin_denied)			\
	X(hello_ns_proven)		\
	X(hello_ns_refused)		\
	X(clients_rejected_ns)		\
	X(clients_unproven_expired)	\
	X(net_sockets_opened)		\
	X(net_sockets_live)		\
	X(net_bind_errors)		\
	X(net_rx_pkts)			\
	X(net_rx_bytes)			\
	X(net_rx_batches)		\
	X(net_rx_gro_trains)		\
	X(net_rx_runts)			\
	X(net_rx_oversized)		\
	X(net_rx_unclaimed)		\
	X(net_rx_overflows)		\
	X(net_rx_budget_hits)		\
	X(net_rx_errors)		\
	X(net_tx_pkts)			\
	X(net_tx_bytes)			\
	X(net_tx_batches)		\
	X(net_tx_eagain)		\
	X(net_tx_errors)		\
	X(net_tx_dropped)		\
	X(net_tx_queue_full)		\
	X(net_tx_no_socket)		\
	X(net_tx_gso_sends)		\
	X(net_tx_gso_segs)		\
	X(net_tx_gso_fallbacks)		\
	X(cm_ids_created)		\
	X(cm_ids_live)			\
	X(cm_bad_requests)		\
	X(cm_events_sent)		\
	X(cm_events_dropped)		\
	X(cm_connects)			\
	X(cm_established)		\
	X(cm_rejects)			\
	X(cm_no_listener)		\
	X(cm_backlog_full)		\
	X(cm_transport_mismatch)	\
	X(cm_disconnects)		\
	X(cm_listens)		\
	X(wire_tx_pkts)	\
	X(wire_tx_errors)	\
	X(wire_tx_rc_unclaimed)	\
	X(wire_rx_pkts)	\
	X(wire_rx_parse_err)	\
	X(wire_rx_not_our_ip)	\
	X(wire_rx_icrc_err)	\
	X(wire_rx_ipid_recovered)	\
	X(wire_rx_src_local)	\
	X(wire_rx_no_qp)	\
	X(wire_rx_pkey)	\
	X(wire_rx_qp_state)	\
	X(wire_rx_bad_opcode)	\
	X(wire_rx_src_mismatch)	\
	X(wire_rx_qkey)	\
	X(wire_rx_qp1_unclaimed)	\
	X(wire_rx_rc_unclaimed)	\
	X(wire_ud_tx)	\
	X(wire_ud_tx_lost)	\
	X(wire_ud_rx)	\
	X(wire_ud_rx_dropped)	\
	X(wire_rc_retransmits)	\
	X(wire_rc_timeouts)	\
	X(wire_rc_seq_naks_sent)	\
	X(wire_rc_seq_naks_rcvd)	\
	X(wire_rc_rnr_naks_sent)	\
	X(wire_rc_rnr_naks_rcvd)	\
	X(wire_rc_naks_sent)	\
	X(wire_rc_acks_sent)	\
	X(wire_rc_dup_reqs)	\
	X(wire_rc_out_of_seq)	\
	X(wire_rc_bad_reqs)	\
	X(wire_rc_bad_resp)	\
	X(wire_rc_stale_resp)	\
	X(wire_rc_tx_lost)	\
	X(wire_rc_nomem)	\
	X(wire_uc_dropped)	\
	X(wire_rc_probes)		\
	X(wire_rc_rnr_held)	\
	X(wire_rc_rnr_held_ok)	\
	X(wire_rc_held_drops)	\
	X(wire_rc_read_credit_waits)	\
	X(cm_wire_tx)	\
	X(cm_wire_tx_errors)	\
	X(cm_wire_resends)	\
	X(cm_wire_unreachable)	\
	X(cm_wire_conns_live)	\
	X(cm_wire_table_full)	\
	X(cm_wire_detached)	\
	X(cm_wire_rx)	\
	X(cm_wire_rx_bad)	\
	X(cm_wire_rx_bad_req)	\
	X(cm_wire_rx_get)	\
	X(cm_wire_rx_req)	\
	X(cm_wire_rx_refused)	\
	X(cm_wire_rx_unmatched)	\
	X(cm_wire_rx_dropped)	\
	X(cm_wire_peer_full) \
	X(mcast_attaches)		\
	X(mcast_detaches)		\
	X(mcast_refused)		\
	X(mcast_sends)			\
	X(mcast_delivered)		\
	X(mcast_drops)			\
	X(mcast_wire_tx)		\
	X(wire_rx_mcast)		\
	X(wire_rx_mcast_echo)		\
	X(net_mcast_joins)		\
	X(net_mcast_leaves)		\
	X(net_mcast_join_errors)	\
	X(net_mcast_join_throttled)	\
	X(cm_mcast_joins)		\
	X(mr_rereg)			\
	X(srq_resized)			\
	X(mw_bound)			\
	X(mw_invalidated)		\
	X(mw_errors)			\
	X(xrcd_opened)			\
	X(xrcd_refused)			\
	X(xrc_srqn_refused)		\
	X(xrc_qp_opened)		\
	X(xrc_qp_open_refused)		\
	X(xrc_qp_handed_over)		\
	X(cm_wire_lap_refused)	\
	X(gid_index_nomem)		\
	X(net_rx_time_hits)		\
	X(loop_idle_ns)			\
	X(loop_busy_ns)			\
	X(metrics_scrapes)		\
	X(metrics_refused)		\
	X(metrics_bad_requests)		\
	X(metrics_unauthorized)		\
	X(metrics_token_reload_failed)	\
	X(metrics_dropped_slow)		\
	X(quota_ring_bytes_hit)

enum eng_stat {
#define ENG_STAT_ENUM(n) ENG_STAT_##n,
	ENG_STATS(ENG_STAT_ENUM)
#undef ENG_STAT_ENUM
	ENG_STAT_COUNT
};

extern uint64_t eng_stats[ENG_STAT_COUNT];

#define eng_stat_inc(n)		(eng_stats[ENG_STAT_##n]++)
#define eng_stat_dec(n)		(eng_stats[ENG_STAT_##n]--)
#define eng_stat_add(n, v)	(eng_stats[ENG_STAT_##n] += (v))

const char *eng_stat_name(enum eng_stat s);

#endif /* ENG_STATS_H */
