# providers/soft/engine: podverbsd, the software RoCEv2 device's engine.
# ENG_CORE_OBJS is everything but main(), linked by the unit tests too.

ENG_CORE_SRCS := \
	providers/soft/engine/eng_admin.c \
	providers/soft/engine/eng_admin_hwc.c \
	providers/soft/engine/eng_admission.c \
	providers/soft/engine/eng_caps.c \
	providers/soft/engine/eng_cm_conn.c \
	providers/soft/engine/eng_cm_mcast.c \
	providers/soft/engine/eng_cm_core.c \
	providers/soft/engine/eng_cm_id.c \
	providers/soft/engine/eng_cm_qpt.c \
	providers/soft/engine/eng_cm_wire.c \
	providers/soft/engine/eng_cm_wire_rx.c \
	providers/soft/engine/eng_cm_wire_svc.c \
	providers/soft/engine/eng_cm_mad.c \
	providers/soft/engine/eng_cm_pdata.c \
	providers/soft/engine/eng_cm_sm.c \
	providers/soft/engine/eng_cm_sm_match.c \
	providers/soft/engine/eng_cm_build.c \
	providers/soft/engine/eng_cq.c \
	providers/soft/engine/eng_ctx.c \
	providers/soft/engine/eng_device.c \
	providers/soft/engine/eng_dp_check.c \
	providers/soft/engine/eng_dp_comp.c \
	providers/soft/engine/eng_dp_err.c \
	providers/soft/engine/eng_dp_grh.c \
	providers/soft/engine/eng_dp_map.c \
	providers/soft/engine/eng_dp_mem.c \
	providers/soft/engine/eng_dp_req.c \
	providers/soft/engine/eng_dp_resp.c \
	providers/soft/engine/eng_dp_ring.c \
	providers/soft/engine/eng_dp_sched.c \
	providers/soft/engine/eng_dp_sge.c \
	providers/soft/engine/eng_dp_timer.c \
	providers/soft/engine/eng_events.c \
	providers/soft/engine/eng_fdcheck.c \
	providers/soft/engine/eng_gid_own.c \
	providers/soft/engine/eng_handles.c \
	providers/soft/engine/eng_hwc.c \
	providers/soft/engine/eng_hwc_count.c \
	providers/soft/engine/eng_http_auth.c \
	providers/soft/engine/eng_http_req.c \
	providers/soft/engine/eng_metrics.c \
	providers/soft/engine/eng_metrics_body.c \
	providers/soft/engine/eng_prom_fmt.c \
	providers/soft/engine/eng_idtab.c \
	providers/soft/engine/eng_limits.c \
	providers/soft/engine/eng_log.c \
	providers/soft/engine/eng_loop.c \
	providers/soft/engine/eng_poll.c \
	providers/soft/engine/eng_objects.c \
	providers/soft/engine/eng_port.c \
	providers/soft/engine/eng_qp.c \
	providers/soft/engine/eng_mcast.c \
	providers/soft/engine/eng_net_mcast.c \
	providers/soft/engine/eng_net_sockopt.c \
	providers/soft/engine/eng_mcast_ops.c \
	providers/soft/engine/eng_dp_drain.c \
	providers/soft/engine/eng_qp_fsm.c \
	providers/soft/engine/eng_qp_masks.c \
	providers/soft/engine/eng_quota.c \
	providers/soft/engine/eng_reaper.c \
	providers/soft/engine/eng_rt_prio.c \
	providers/soft/engine/eng_server.c \
	providers/soft/engine/eng_stats.c \
	providers/soft/engine/eng_csprng.c \
	providers/soft/engine/eng_keytab.c \
	providers/soft/engine/eng_mrkey.c \
	providers/soft/engine/eng_mr_rereg.c \
	providers/soft/engine/eng_usdt.c \
	providers/soft/engine/eng_mr_tally.c \
	providers/soft/engine/eng_mr_report.c \
	providers/soft/engine/eng_mw.c \
	providers/soft/engine/eng_xrcd.c \
	providers/soft/engine/eng_qp_open.c \
	providers/soft/engine/eng_rguard.c \
	providers/soft/engine/eng_tbucket.c \
	providers/soft/engine/eng_dp_rguard.c \
	providers/soft/engine/eng_dp_budget.c \
	providers/soft/engine/eng_wire_crc32.c \
	providers/soft/engine/eng_wire_hdr.c \
	providers/soft/engine/eng_wire_icrc.c \
	providers/soft/engine/eng_wire_opcode.c \
	providers/soft/engine/eng_comp_sm.c \
	providers/soft/engine/eng_resp_res.c \
	providers/soft/engine/eng_net.c \
	providers/soft/engine/eng_net_rx.c \
	providers/soft/engine/eng_net_tx.c \
	providers/soft/engine/eng_dp_settle.c \
	providers/soft/engine/eng_wire_iphdr.c \
	providers/soft/engine/eng_recv.c \
	providers/soft/engine/eng_wire_tx.c \
	providers/soft/engine/eng_wire_ud.c \
	providers/soft/engine/eng_wire_rc_pkt.c \
	providers/soft/engine/eng_wire_rc_rstep.c \
	providers/soft/engine/eng_wire_rc_gbn.c \
	providers/soft/engine/eng_wire_rc_state.c \
	providers/soft/engine/eng_wire_rc_req.c \
	providers/soft/engine/eng_wire_rc_comp.c \
	providers/soft/engine/eng_wire_rc_resp.c \
	providers/soft/engine/eng_wire_rtt.c \
	providers/soft/engine/eng_gidmap.c

ENG_CORE_OBJS := $(call objs,$(ENG_CORE_SRCS))
ENG_DEPS := $(ENG_CORE_OBJS) $(PV_COMMON_OBJS) $(PV_SOFT_PROTO_OBJS) $(NETNS_LIB)
PODVERBSD := $(BINDIR_B)/podverbsd

# The seccomp filter is linked by main() only (and its own unit test), so
# the other engine tests need no libseccomp.
ENG_SECCOMP_OBJ := $(call objs,providers/soft/engine/eng_seccomp.c)
ENG_SECCOMP_LIBS = $(shell $(PKG_CONFIG) --libs libseccomp 2>/dev/null || echo -lseccomp)

# The device state file (restoring devices after a restart), linked by
# main() and its own unit test, so the other engine tests need no cJSON.
ENG_STATE_OBJS := $(call objs,providers/soft/engine/eng_state.c providers/soft/engine/eng_state_json.c)
ENG_CJSON_LIBS = $(shell $(PKG_CONFIG) --libs libcjson 2>/dev/null || echo -lcjson)

$(PODVERBSD): $(call objs,providers/soft/engine/eng_main.c) $(ENG_SECCOMP_OBJ) $(ENG_STATE_OBJS) $(ENG_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^ $(NETNS_LIBS) $(ENG_SECCOMP_LIBS) $(ENG_CJSON_LIBS)

ALL_TARGETS += $(PODVERBSD)
HEADERS_CHECK += \
	providers/soft/engine/eng.h \
	providers/soft/engine/eng_admission.h \
	providers/soft/engine/eng_caps.h \
	providers/soft/engine/eng_dp.h \
	providers/soft/engine/eng_fdcheck.h \
	providers/soft/engine/eng_gid_own.h \
	providers/soft/engine/eng_handles.h \
	providers/soft/engine/eng_idtab.h \
	providers/soft/engine/eng_limits.h \
	providers/soft/engine/eng_list.h \
	providers/soft/engine/eng_log.h \
	providers/soft/engine/eng_loop.h \
	providers/soft/engine/eng_obj.h \
	providers/soft/engine/eng_port.h \
	providers/soft/engine/eng_qp_fsm.h \
	providers/soft/engine/eng_rt_prio.h \
	providers/soft/engine/eng_quota.h \
	providers/soft/engine/eng_reaper.h \
	providers/soft/engine/eng_seccomp.h \
	providers/soft/engine/eng_state.h \
	providers/soft/engine/eng_stats.h \
	providers/soft/engine/eng_csprng.h \
	providers/soft/engine/eng_keytab.h \
	providers/soft/engine/eng_mrkey.h \
	providers/soft/engine/eng_rguard.h \
	providers/soft/engine/eng_tbucket.h \
	providers/soft/engine/eng_dp_budget.h \
	providers/soft/engine/eng_dp_settle.h \
	providers/soft/engine/eng_dp_rguard.h \
	providers/soft/engine/eng_wr.h \
	providers/soft/engine/eng_wire_crc32.h \
	providers/soft/engine/eng_wire_hdr.h \
	providers/soft/engine/eng_wire_icrc.h \
	providers/soft/engine/eng_wire_opcode.h \
	providers/soft/engine/eng_wire_psn.h \
	providers/soft/engine/eng_dp_reply.h \
	providers/soft/engine/eng_comp_sm.h \
	providers/soft/engine/eng_resp_res.h \
	providers/soft/engine/eng_net.h \
	providers/soft/engine/eng_net_int.h \
	providers/soft/engine/eng_wire_iphdr.h \
	providers/soft/engine/eng_wire_xport.h \
	providers/soft/engine/eng_recv.h \
	providers/soft/engine/eng_wire_rc.h \
	providers/soft/engine/eng_mw.h \
	providers/soft/engine/eng_hwc.h \
	providers/soft/engine/eng_http_auth.h \
	providers/soft/engine/eng_http_req.h \
	providers/soft/engine/eng_metrics.h \
	providers/soft/engine/eng_prom_fmt.h

$(eval $(call unit_test,test_eng_pure,tests/unit/engine/test_eng_pure.c,$(addprefix $(OBJDIR)/providers/soft/engine/,eng_handles.o eng_idtab.o eng_limits.o eng_port.o eng_csprng.o eng_keytab.o eng_rguard.o eng_tbucket.o eng_dp_budget.o eng_mrkey.o),))
$(eval $(call unit_test,test_eng_dispatch,tests/unit/engine/test_eng_dispatch.c,$(ENG_DEPS),$(NETNS_LIBS)))
$(eval $(call unit_test,test_eng_mw,tests/unit/engine/test_eng_mw.c,$(ENG_DEPS),$(NETNS_LIBS)))
$(eval $(call unit_test,test_eng_xrcd,tests/unit/engine/test_eng_xrcd.c,$(ENG_DEPS),$(NETNS_LIBS)))
$(eval $(call unit_test,test_eng_qp_open,tests/unit/engine/test_eng_qp_open.c,$(ENG_DEPS),$(NETNS_LIBS)))

# Test helper for tests/integration/engine_*.sh.
ENG_CLIENT := $(TESTDIR_B)/bin/eng-client
$(ENG_CLIENT): $(call objs,tests/integration/eng_client.c) $(PV_COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^

ALL_TARGETS += $(ENG_CLIENT)

# The data path's pure pieces (no I/O).
$(eval $(call unit_test,test_eng_dp,tests/unit/engine/test_eng_dp.c,$(addprefix $(OBJDIR)/providers/soft/engine/,eng_dp_check.o eng_dp_grh.o eng_dp_ring.o eng_dp_timer.o),))
$(eval $(call unit_test,test_eng_dp_race,tests/unit/engine/test_eng_dp_race.c,$(OBJDIR)/providers/soft/engine/eng_dp_ring.o,))

# Data-path error semantics through our libibverbs (tests/integration/
# engine_dp.sh runs it in a pod namespace).
ENG_DP_LOOP := $(TESTDIR_B)/bin/eng-dp-loop
$(ENG_DP_LOOP): $(call objs,tests/integration/engine_dp/eng_dp_loop.c) $(LIBDIR_B)/libibverbs.so.1
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $(filter %.o,$^) $(LIBDIR_B)/libibverbs.so.1

ALL_TARGETS += $(ENG_DP_LOOP)

# The QP state machine and capability checks (pure).
$(eval $(call unit_test,test_eng_qp_fsm,tests/unit/engine/test_eng_qp_fsm.c \
	tests/unit/engine/test_eng_qp_fsm_values.c,$(addprefix $(OBJDIR)/providers/soft/engine/,eng_qp_fsm.o eng_qp_masks.o),))

# GID ownership (pure).
$(eval $(call unit_test,test_eng_gid_own,tests/unit/engine/test_eng_gid_own.c,$(OBJDIR)/providers/soft/engine/eng_gid_own.o,))

# The seccomp filter, loaded in a forked child that then tries what it
# refuses and what the engine still needs.
$(eval $(call unit_test,test_eng_seccomp,tests/unit/engine/test_eng_seccomp.c,$(ENG_SECCOMP_OBJ),$(ENG_SECCOMP_LIBS)))

# The device state file: parsing hostile files, kept ids, save/restore.
$(eval $(call unit_test,test_eng_state,tests/unit/engine/test_eng_state.c,$(ENG_STATE_OBJS) $(ENG_DEPS),$(NETNS_LIBS) $(ENG_CJSON_LIBS)))

# Finding 2 of issue 8 played by a hostile pod (tests/integration/
# engine_mr_attack.sh): a victim holding a secret, and the attacker.
ENG_MEM_SECRET := $(TESTDIR_B)/bin/eng-mem-secret
$(ENG_MEM_SECRET): $(call objs,tests/integration/engine_mem/eng_mem_secret.c)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^

ENG_MEM_ATTACK := $(TESTDIR_B)/bin/eng-mem-attack
$(ENG_MEM_ATTACK): $(call objs,tests/integration/engine_mem/eng_mem_attack.c) $(PV_COMMON_OBJS) $(LIBDIR_B)/libibverbs.so.1
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $(filter %.o,$^) $(LIBDIR_B)/libibverbs.so.1

ALL_TARGETS += $(ENG_MEM_SECRET) $(ENG_MEM_ATTACK)

# Finding 6 of issue 8 (the memory share) played by a hostile pod
# (tests/integration/engine_mr_quota.sh).
ENG_MEM_QUOTA := $(TESTDIR_B)/bin/eng-mem-quota
$(ENG_MEM_QUOTA): $(call objs,tests/integration/engine_mem/eng_mem_quota.c) $(PV_COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^

ALL_TARGETS += $(ENG_MEM_QUOTA)

# Per-device shares (the pure check; eng_quota.o needs the engine core).
$(eval $(call unit_test,test_eng_quota,tests/unit/engine/test_eng_quota.c,$(ENG_DEPS),$(NETNS_LIBS)))
$(eval $(call unit_test,test_eng_devpages,tests/unit/engine/test_eng_devpages.c,$(ENG_DEPS),$(NETNS_LIBS)))

# A hostile pod speaking the IPC directly (tests/integration/sec_*.sh).
SEC_ATTACK := $(TESTDIR_B)/bin/sec-attack
$(SEC_ATTACK): $(call objs,tests/integration/sec/sec_attack.c) $(PV_COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^

ALL_TARGETS += $(SEC_ATTACK)

# The IPC ABI's mirrors of verbs values and the engine's limit-shaped
# constants, checked against what they mirror (no objects: all constants).
$(eval $(call unit_test,test_eng_values,tests/unit/engine/test_eng_values.c,,))

# The wire's pure pieces (issue 10): header codec, opcode table and
# sequencing, ICRC, PSN arithmetic.
ENG_WIRE_OBJS := $(addprefix $(OBJDIR)/providers/soft/engine/,eng_wire_crc32.o eng_wire_hdr.o eng_wire_icrc.o eng_wire_opcode.o)
ENG_WIRE_IP_OBJS := $(ENG_WIRE_OBJS) $(OBJDIR)/providers/soft/engine/eng_wire_iphdr.o
$(eval $(call unit_test,test_eng_wire_hdr,tests/unit/engine/test_eng_wire_hdr.c,$(ENG_WIRE_OBJS),))
$(eval $(call unit_test,test_eng_wire_opcode,tests/unit/engine/test_eng_wire_opcode.c,$(ENG_WIRE_OBJS),))
$(eval $(call unit_test,test_eng_wire_icrc,tests/unit/engine/test_eng_wire_icrc.c,$(ENG_WIRE_OBJS),))
$(eval $(call unit_test,test_eng_wire_iphdr,tests/unit/engine/test_eng_wire_iphdr.c,$(ENG_WIRE_IP_OBJS),))
$(eval $(call unit_test,test_eng_recv,tests/unit/engine/test_eng_recv.c,$(ENG_DEPS),$(NETNS_LIBS)))
$(eval $(call unit_test,test_eng_wire_psn,tests/unit/engine/test_eng_wire_psn.c,,))

# The scapy/tshark cross-check's packet writer (tests/abi/wire_scapy.sh).
WIRE_PCAP := $(TESTDIR_B)/bin/wire-pcap
$(WIRE_PCAP): $(call objs,tests/tools/wire_pcap.c) $(ENG_WIRE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^

ALL_TARGETS += $(WIRE_PCAP)
# The completer's state machine and the responder's saved resources and
# PSN classifier (pure).
$(eval $(call unit_test,test_eng_comp_sm,tests/unit/engine/test_eng_comp_sm.c,$(addprefix $(OBJDIR)/providers/soft/engine/,eng_comp_sm.o eng_dp_timer.o),))
$(eval $(call unit_test,test_eng_resp_res,tests/unit/engine/test_eng_resp_res.c,$(OBJDIR)/providers/soft/engine/eng_resp_res.o,))
# net: the pure parts, and a device's real UDP 4791 socket on loopback in
# a private namespace (skipped without root).
$(eval $(call unit_test,test_eng_net,tests/unit/engine/test_eng_net.c,$(ENG_DEPS),$(NETNS_LIBS)))

# A UDP 4791 blaster/counter (tests/integration/net_flood.sh, net_bench.sh).
NET_BLAST := $(TESTDIR_B)/bin/net-blast
$(NET_BLAST): $(call objs,tests/integration/net/net_blast.c)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^

ALL_TARGETS += $(NET_BLAST)
# The CM agent's pure parts (issue 11): MAD codec, private data, state machines.
HEADERS_CHECK += \
	providers/soft/engine/eng_cm_msg.h
HEADERS_CHECK += \
	providers/soft/engine/eng_cm_mad.h
ENG_CM_OBJS := $(call objs,providers/soft/engine/eng_cm_mad.c)
$(eval $(call unit_test,test_eng_cm_mad,tests/unit/engine/test_eng_cm_mad.c,$(ENG_CM_OBJS),))
HEADERS_CHECK += \
	providers/soft/engine/eng_cm_pdata.h
$(eval $(call unit_test,test_eng_cm_pdata,tests/unit/engine/test_eng_cm_pdata.c,$(call objs,providers/soft/engine/eng_cm_pdata.c),))
HEADERS_CHECK += \
	providers/soft/engine/eng_cm_sm.h
ENG_CM_SM_OBJS := $(call objs,providers/soft/engine/eng_cm_sm.c providers/soft/engine/eng_cm_sm_match.c providers/soft/engine/eng_cm_build.c)
$(eval $(call unit_test,test_eng_cm_sm,tests/unit/engine/test_eng_cm_sm.c,$(ENG_CM_SM_OBJS) $(ENG_CM_OBJS),))
$(eval $(call unit_test,test_eng_cm_sm_lap,tests/unit/engine/test_eng_cm_sm_lap.c,$(ENG_CM_SM_OBJS) $(ENG_CM_OBJS),))

# Our CM MADs as files, for tshark's cross-check (tests/integration/cm_mad_tshark.sh).
CM_MAD_VECTORS := $(TESTDIR_B)/bin/cm-mad-vectors
$(CM_MAD_VECTORS): $(call objs,tests/integration/cm/cm_mad_vectors.c providers/soft/engine/eng_cm_mad.c providers/soft/engine/eng_cm_pdata.c)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^

ALL_TARGETS += $(CM_MAD_VECTORS)
HEADERS_CHECK += \
	providers/soft/engine/eng_cm_build.h
$(eval $(call unit_test,test_eng_cm_build,tests/unit/engine/test_eng_cm_build.c,$(ENG_CM_SM_OBJS) $(ENG_CM_OBJS),))
HEADERS_CHECK += providers/soft/engine/eng_cm.h providers/soft/engine/eng_cm_wire.h \
	providers/soft/engine/eng_cm_wire_int.h
$(eval $(call unit_test,test_eng_cm,tests/unit/engine/test_eng_cm.c,$(ENG_DEPS),$(NETNS_LIBS)))
# RC/UC on the wire: the packet rules (pure).
$(eval $(call unit_test,test_eng_wire_rc,tests/unit/engine/test_eng_wire_rc.c,$(addprefix $(OBJDIR)/providers/soft/engine/,eng_wire_rc_pkt.o eng_port.o) $(ENG_WIRE_OBJS),))
HEADERS_CHECK += providers/soft/engine/eng_mcast.h
$(eval $(call unit_test,test_eng_mcast,tests/unit/engine/test_eng_mcast.c,$(ENG_DEPS),$(NETNS_LIBS)))
# The RC requester's round-trip estimator (pure), which paces its probe.
HEADERS_CHECK += providers/soft/engine/eng_wire_rtt.h
$(eval $(call unit_test,test_eng_wire_rtt,tests/unit/engine/test_eng_wire_rtt.c,$(OBJDIR)/providers/soft/engine/eng_wire_rtt.o,))
# The engine's GID -> device index (pure): O(1) per-packet look-ups.
HEADERS_CHECK += providers/soft/engine/eng_gidmap.h
$(eval $(call unit_test,test_eng_gidmap,tests/unit/engine/test_eng_gidmap.c,$(OBJDIR)/providers/soft/engine/eng_gidmap.o,))
# RC on the wire driven by scripted packets: the responder's first
# decision (eng_wire_rc_rstep.c) behind the real parse and ICRC check, the
# requester's window decisions (eng_wire_rc_gbn.c) and the completer.
$(eval $(call unit_test,test_eng_wire_rc_steps,tests/unit/engine/test_eng_wire_rc_steps.c,$(addprefix $(OBJDIR)/providers/soft/engine/,eng_wire_rc_rstep.o eng_wire_rc_gbn.o eng_wire_rc_pkt.o eng_resp_res.o eng_comp_sm.o eng_dp_timer.o eng_port.o) $(ENG_WIRE_IP_OBJS),))

# Memory-registration tallies (pure).
$(eval $(call unit_test,test_eng_mr_tally,tests/unit/engine/test_eng_mr_tally.c,$(OBJDIR)/providers/soft/engine/eng_mr_tally.o,))
HEADERS_CHECK += providers/soft/engine/eng_mr_tally.h providers/soft/engine/eng_mr_report.h
# The metrics endpoint's pure parts: exposition formatter, HTTP request
# parser, listen address (eng_metrics.c's parser; linked with the core).
$(eval $(call unit_test,test_eng_prom,tests/unit/engine/test_eng_prom.c,$(ENG_DEPS),$(NETNS_LIBS)))
