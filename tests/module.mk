# Test binaries.  Unit tests: one cmocka binary per module, built into
# $(TESTDIR_B)/unit/ and listed in CHECK_UNIT by each component's module.mk
# (see unit_test in mk/rules.mk).


HEADERS_CHECK += providers/soft/pv-soft-abi.h
HEADERS_CHECK += include/infiniband/verbs.h
HEADERS_CHECK += include/infiniband/verbs_api.h
HEADERS_CHECK += include/infiniband/ib_user_ioctl_verbs.h
HEADERS_CHECK += include/infiniband/opcode.h
HEADERS_CHECK += include/infiniband/sa.h
HEADERS_CHECK += include/infiniband/tm_types.h
# Obsolete in rdma-core too: they #warning so on inclusion, as rdma-core's do.
HDR_OBSOLETE_CFLAGS := -Wno-cpp
$(eval $(call headers_check,include/infiniband/arch.h include/infiniband/sa-kern-abi.h,HDR_OBSOLETE_CFLAGS,))
HEADERS_CHECK += providers/soft/pv-soft-ring-abi.h
HEADERS_CHECK += tests/unit/engine/test_eng_qp_fsm.h
HEADERS_CHECK += tests/integration/engine_mem/eng_mem.h

# Sanitizer build: the programs that load a seccomp filter skip
# LeakSanitizer's exit-time check once filtered (tests/san/san_seccomp.c says
# why).  Their link rules link $^, so a prerequisite is enough.
ifeq ($(SAN),1)
SAN_SECCOMP_OBJ := $(call objs,tests/san/san_seccomp.c)
$(PODVERBSD) $(CNI_BIN) $(CNI_FAULT_BIN) $(DP_BIN): $(SAN_SECCOMP_OBJ)
endif

# tests/integration/mr_report.sh: a pod's client that registers aligned
# and misaligned MRs and exits holding them.
MR_HOLD := $(TESTDIR_B)/bin/mr-hold
$(MR_HOLD): $(call objs,tests/integration/mr/mr_hold.c) $(LIBIBVERBS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $(filter %.o,$^) $(LIBIBVERBS)

ALL_TARGETS += $(MR_HOLD)

# tests/vm/t_kcmd_qp.sh: the QP/CQ/SRQ provider-ABI commands on a kernel
# device in the VM (our libibverbs, Debian's librxe).
KCMD_PROBE := $(TESTDIR_B)/bin/kcmd-probe
$(KCMD_PROBE): $(call objs,tests/vm/kcmd_probe.c) $(LIBIBVERBS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $(filter %.o,$^) $(LIBIBVERBS)

ALL_TARGETS += $(KCMD_PROBE)
