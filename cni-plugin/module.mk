# cni-plugin/: the `podverbs` CNI plugin (CNI 1.0/1.1, chained).
# Pure parts (env, config, results, state records, RDMA netlink messages)
# are unit-tested in tests/unit/cni/; the rest by tests/integration/cni_*.sh
# and podman_*.sh.

CNI_CJSON_LIBS = $(shell $(PKG_CONFIG) --libs libcjson 2>/dev/null || echo -lcjson)
CNI_SECCOMP_LIBS = $(shell $(PKG_CONFIG) --libs libseccomp 2>/dev/null || echo -lseccomp)

CNI_SRCS := \
	cni-plugin/cni_cmd_add.c \
	cni-plugin/cni_cmd_check.c \
	cni-plugin/cni_cmd_del.c \
	cni-plugin/cni_cmd_shared.c \
	cni-plugin/cni_cmd_status.c \
	cni-plugin/cni_claim.c \
	cni-plugin/cni_conf.c \
	cni-plugin/cni_engine.c \
	cni-plugin/cni_env.c \
	cni-plugin/cni_err.c \
	cni-plugin/cni_gc_list.c \
	cni-plugin/cni_kernel.c \
	cni-plugin/cni_main.c \
	cni-plugin/cni_rdmanl.c \
	cni-plugin/cni_result.c \
	cni-plugin/cni_seccomp.c \
	cni-plugin/cni_state.c \
	cni-plugin/cni_state_json.c

CNI_BIN := $(BINDIR_B)/podverbs
CNI_LIBS = $(CNI_CJSON_LIBS) $(CNI_SECCOMP_LIBS) $(NETNS_LIBS)

$(OBJDIR)/cni-plugin/%.o: EXTRA_CFLAGS += $(NL_CFLAGS)
$(OBJDIR)/tests/unit/cni/%.o: EXTRA_CFLAGS += $(NL_CFLAGS)

$(CNI_BIN): $(call objs,$(CNI_SRCS)) $(PV_COMMON_OBJS) $(PV_SOFT_PROTO_OBJS) $(NETNS_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^ $(CNI_LIBS)

ALL_TARGETS += $(CNI_BIN)

# Test build of the plugin with crash points (PODVERBS_CNI_TEST_CRASH_AT,
# cni_cmd_add.c) for tests/integration/cni_crash.sh; never installed.
CNI_FAULT_BIN := $(TESTDIR_B)/bin/podverbs-fault
CNI_FAULT_ADD_OBJ := $(OBJDIR)/cni-plugin/cni_cmd_add-fault.o

$(CNI_FAULT_ADD_OBJ): cni-plugin/cni_cmd_add.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CPPFLAGS) $(EXTRA_CPPFLAGS) -DCNI_TEST_FAULTS $(BASE_CFLAGS) \
		$(EXTRA_CFLAGS) -MMD -MP -c $< -o $@

$(CNI_FAULT_BIN): $(CNI_FAULT_ADD_OBJ) \
		$(call objs,$(filter-out cni-plugin/cni_cmd_add.c,$(CNI_SRCS))) \
		$(PV_COMMON_OBJS) $(PV_SOFT_PROTO_OBJS) $(NETNS_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^ $(CNI_LIBS)

ALL_TARGETS += $(CNI_FAULT_BIN)
CNI_HEADERS := \
	cni-plugin/cni_claim.h \
	cni-plugin/cni_cmd.h \
	cni-plugin/cni_conf.h \
	cni-plugin/cni_engine.h \
	cni-plugin/cni_env.h \
	cni-plugin/cni_err.h \
	cni-plugin/cni_kernel.h \
	cni-plugin/cni_rdmanl.h \
	cni-plugin/cni_result.h \
	cni-plugin/cni_seccomp.h \
	cni-plugin/cni_state.h
$(eval $(call headers_check,$(CNI_HEADERS),NL_CFLAGS))

cni_o = $(patsubst %,$(OBJDIR)/cni-plugin/%.o,$(1))

$(eval $(call unit_test,test_cni_conf,tests/unit/cni/test_cni_conf.c,$(call cni_o,cni_conf cni_env cni_err),$(CNI_CJSON_LIBS)))
$(eval $(call unit_test,test_cni_result,tests/unit/cni/test_cni_result.c,$(call cni_o,cni_result cni_conf cni_err),$(CNI_CJSON_LIBS)))
$(eval $(call unit_test,test_cni_state,tests/unit/cni/test_cni_state.c,$(call cni_o,cni_state cni_state_json cni_claim cni_engine cni_err cni_gc_list) $(PV_COMMON_OBJS) $(PV_SOFT_PROTO_OBJS),$(CNI_CJSON_LIBS)))
$(eval $(call unit_test,test_cni_rdmanl,tests/unit/cni/test_cni_rdmanl.c,$(call cni_o,cni_rdmanl),$(NL_LIBS)))
$(eval $(call unit_test,test_cni_env,tests/unit/cni/test_cni_env.c,$(call cni_o,cni_env cni_err),))
