# tests/fuzz: libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined)
# built into their own tree $(FUZZ_BUILD) from the same sources, so they
# never mix with gcc's objects.  `make fuzz` runs each for FUZZ_SECONDS
# (mk/fuzz-run.sh); the fuzz tier of `make check` runs a short smoke
# (tests/fuzz/smoke.sh) over the seed corpora in tests/fuzz/corpus/.

FUZZ_CC ?= clang-14
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=gnu11 -O1 -g -Wall -Wno-unused-parameter -pthread \
	$(FUZZ_SAN) -Iinclude -I. -D_GNU_SOURCE $(NL_CFLAGS) \
	$(shell $(PKG_CONFIG) --cflags libcjson 2>/dev/null)
FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined -pthread
FUZZ_OBJDIR := $(FUZZ_BUILD)/obj
FUZZ_BINDIR := $(FUZZ_BUILD)/bin
# Whether clang with libFuzzer is here (libclang-rt-14-dev); without it
# `make check` builds no fuzzers and the fuzz tier skips.
FUZZ_OK := $(shell command -v $(FUZZ_CC) >/dev/null 2>&1 && \
	echo 'int LLVMFuzzerTestOneInput(const char *d, long n){return 0;}' | \
	$(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null && echo 1)

fuzz_objs = $(patsubst %.c,$(FUZZ_OBJDIR)/%.o,$(1))

$(FUZZ_OBJDIR)/%.o: %.c tests/fuzz/module.mk
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

FUZZ_ENG_SRCS := tests/fuzz/fuzz_eng.c $(ENG_CORE_SRCS) $(PV_COMMON_SRCS) \
	$(PV_SOFT_PROTO_SRCS) \
	$(NETNS_SRCS)
FUZZ_CNI_SRCS := cni-plugin/cni_conf.c cni-plugin/cni_env.c \
	cni-plugin/cni_err.c cni-plugin/cni_result.c cni-plugin/cni_state_json.c

# $(call fuzz_target,NAME,SOURCES,LIBS)
define fuzz_target
$(FUZZ_BINDIR)/$(1): $(call fuzz_objs,tests/fuzz/$(1).c $(2))
	@mkdir -p $$(dir $$@)
	$$(FUZZ_CC) $$(FUZZ_LDFLAGS) -o $$@ $$^ $(3)
FUZZ_BINS += $(FUZZ_BINDIR)/$(1)
endef

FUZZ_BINS :=
$(eval $(call fuzz_target,fuzz_ipc,$(FUZZ_ENG_SRCS),$(NL_LIBS)))
$(eval $(call fuzz_target,fuzz_wqe,$(FUZZ_ENG_SRCS),$(NL_LIBS)))
$(eval $(call fuzz_target,fuzz_cni_conf,$(FUZZ_CNI_SRCS),$(CNI_CJSON_LIBS)))
$(eval $(call fuzz_target,fuzz_dp_config,device-plugin/dp_config.c,$(CNI_CJSON_LIBS)))
$(eval $(call fuzz_target,fuzz_state,providers/soft/engine/eng_state_json.c,$(ENG_CJSON_LIBS)))
$(eval $(call fuzz_target,fuzz_wire,providers/soft/engine/eng_wire_crc32.c providers/soft/engine/eng_wire_hdr.c providers/soft/engine/eng_wire_icrc.c providers/soft/engine/eng_wire_opcode.c,))
$(eval $(call fuzz_target,fuzz_iphdr,providers/soft/engine/eng_wire_crc32.c providers/soft/engine/eng_wire_hdr.c providers/soft/engine/eng_wire_icrc.c providers/soft/engine/eng_wire_opcode.c providers/soft/engine/eng_wire_iphdr.c,))

$(eval $(call fuzz_target,fuzz_cm_mad,providers/soft/engine/eng_cm_mad.c providers/soft/engine/eng_cm_pdata.c providers/soft/engine/eng_cm_sm.c providers/soft/engine/eng_cm_sm_match.c providers/soft/engine/eng_cm_build.c,))
$(eval $(call fuzz_target,fuzz_rsocket,librdmacm/rc_rs_proto.c librdmacm/rc_rs_rx.c librdmacm/rc_rs_grant.c librdmacm/rc_rs_peermap.c,))
$(eval $(call fuzz_target,fuzz_rsdgram,librdmacm/rc_rs_dgram_proto.c,))

.PHONY: fuzz fuzz-build fuzz-smoke
fuzz-build: $(FUZZ_BINS)

# Long runs, one target after another (nice: a shared machine).
fuzz: fuzz-build
	sh mk/fuzz-run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

fuzz-smoke: fuzz-build
	PV_FUZZ_BUILD=$(FUZZ_BUILD) sh tests/fuzz/smoke.sh

CLEAN_EXTRA += $(FUZZ_BUILD)
-include $(shell find $(FUZZ_OBJDIR) -name '*.d' 2>/dev/null)
$(eval $(call headers_check,tests/fuzz/fuzz_eng.h,NL_CFLAGS))
