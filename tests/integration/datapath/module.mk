# tests/integration/datapath: two-sided verbs programs for the data-path
# integration tests (tests/integration/datapath_*.sh).  Each program is
# built against include/ and linked to our libibverbs.so.1.

DPT_DIR := $(TESTDIR_B)/integration
DPT_HARNESS := tests/integration/datapath/dpt.c
DPT_PROGS := \
	dpt_rc_ops \
	dpt_atomic \
	dpt_ud \
	dpt_srq \
	dpt_events \
	dpt_rem_access \
	dpt_rnr \
	dpt_local_err \
	dpt_flush \
	dpt_ex_api \
	dpt_kill \
	dpt_pkey \
	dpt_async \
	dpt_gid_spoof \
	dpt_rkey_guess \
	dpt_reuse \
	dpt_qkey \
	dpt_engine_death \
	dpt_restart \
	dpt_ring_race \
	dpt_flood \
	dpt_chunk_mr \
	dpt_order \
	dpt_errno \
	dpt_mcast \
	dpt_rereg \
	dpt_srq_resize \
	dpt_mw \
	dpt_pdomain \
	dpt_odp \
	dpt_xrc \
	dpt_xrc_open

# $(call dpt_prog,NAME): $(DPT_DIR)/NAME from NAME.c and the harness.
define dpt_prog
$(DPT_DIR)/$(1): $(call objs,tests/integration/datapath/$(1).c $(DPT_HARNESS)) $(LIBIBVERBS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE_LDFLAGS) -o $$@ $$(filter %.o,$$^) $(LIBIBVERBS)
ALL_TARGETS += $(DPT_DIR)/$(1)
endef
$(foreach p,$(DPT_PROGS),$(eval $(call dpt_prog,$(p))))
HEADERS_CHECK += tests/integration/datapath/dpt.h
