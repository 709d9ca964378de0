# providers/soft/engine: podverbsd, the software RoCEv2 device's engine.
# ENG_CORE_OBJS is everything but main(), linked by the unit tests too.

ENG_CORE_SRCS := \
	providers/soft/engine/eng_admin.c \
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
	providers/soft/engine/eng_gid_own.c \
	providers/soft/engine/eng_handles.c \
	providers/soft/engine/eng_idtab.c \
	providers/soft/engine/eng_limits.c \
	providers/soft/engine/eng_log.c \
	providers/soft/engine/eng_loop.c \
	providers/soft/engine/eng_objects.c \
	providers/soft/engine/eng_port.c \
	providers/soft/engine/eng_qp.c \
	providers/soft/engine/eng_server.c \
	providers/soft/engine/eng_stats.c

ENG_CORE_OBJS := $(call objs,$(ENG_CORE_SRCS))
ENG_DEPS := $(ENG_CORE_OBJS) $(PV_COMMON_OBJS) $(NETNS_LIB)
PODVERBSD := $(BINDIR_B)/podverbsd

# The seccomp filter is linked by main() only (and its own unit test), so
# the other engine tests need no libseccomp.
ENG_SECCOMP_OBJ := $(call objs,providers/soft/engine/eng_seccomp.c)
ENG_SECCOMP_LIBS = $(shell $(PKG_CONFIG) --libs libseccomp 2>/dev/null || echo -lseccomp)

$(PODVERBSD): $(call objs,providers/soft/engine/eng_main.c) $(ENG_SECCOMP_OBJ) $(ENG_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^ $(NETNS_LIBS) $(ENG_SECCOMP_LIBS)

ALL_TARGETS += $(PODVERBSD)
HEADERS_CHECK += \
	providers/soft/engine/eng.h \
	providers/soft/engine/eng_dp.h \
	providers/soft/engine/eng_gid_own.h \
	providers/soft/engine/eng_handles.h \
	providers/soft/engine/eng_ibv.h \
	providers/soft/engine/eng_idtab.h \
	providers/soft/engine/eng_limits.h \
	providers/soft/engine/eng_list.h \
	providers/soft/engine/eng_log.h \
	providers/soft/engine/eng_loop.h \
	providers/soft/engine/eng_obj.h \
	providers/soft/engine/eng_port.h \
	providers/soft/engine/eng_seccomp.h \
	providers/soft/engine/eng_stats.h

$(eval $(call unit_test,test_eng_pure,tests/unit/engine/test_eng_pure.c,$(addprefix $(OBJDIR)/providers/soft/engine/,eng_handles.o eng_idtab.o eng_limits.o eng_port.o),))
$(eval $(call unit_test,test_eng_dispatch,tests/unit/engine/test_eng_dispatch.c,$(ENG_DEPS),$(NETNS_LIBS)))

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

# GID ownership (pure).
$(eval $(call unit_test,test_eng_gid_own,tests/unit/engine/test_eng_gid_own.c,$(OBJDIR)/providers/soft/engine/eng_gid_own.o,))

# The seccomp filter, loaded in a forked child that then tries what it
# refuses and what the engine still needs.
$(eval $(call unit_test,test_eng_seccomp,tests/unit/engine/test_eng_seccomp.c,$(ENG_SECCOMP_OBJ),$(ENG_SECCOMP_LIBS)))
