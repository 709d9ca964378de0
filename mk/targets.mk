# Top-level targets.  Modules append to ALL_TARGETS, CHECK_UNIT,
# INSTALL_TARGETS and CLEAN_EXTRA.

.DEFAULT_GOAL := all
.PHONY: all check check-unit check-abi check-integration check-compat check-fuzz \
	check-cross check-vm \
	install deps demo bench clean headers-check

all: $(ALL_TARGETS)

# Debian packages needed to build and test; installed with apt-get when
# missing (root on Debian 12).  See mk/deps.sh for the list.
deps:
	sh mk/deps.sh

# All tiers; each prints its own summary, tests/run-tier.sh the total.
# The fuzz tier's smoke needs the libFuzzer targets (built when clang with
# libFuzzer is installed; the tier skips otherwise).
check: all $(CHECK_UNIT) headers-check $(if $(FUZZ_OK),fuzz-build)
	sh tests/run-tests.sh $(BUILD)

check-fuzz: $(if $(FUZZ_OK),fuzz-build)
	sh tests/run-tests.sh $(BUILD) fuzz

check-unit: all $(CHECK_UNIT)
	sh tests/run-tests.sh $(BUILD) unit

check-abi: all
	sh tests/run-tests.sh $(BUILD) abi

check-integration: all
	sh tests/run-tests.sh $(BUILD) integration

check-compat: all
	sh tests/run-tests.sh $(BUILD) compat

# The cross-node pass: tests/cross.list's scripts with PV_TOPO=cross.
check-cross: all
	sh tests/run-tests.sh $(BUILD) cross

# Debian's kernel with rdma_rxe under qemu (tests/vm/README.md).
check-vm: all
	sh tests/run-tests.sh $(BUILD) vm

# The main job: engine, two pods, verbs tools in each.
demo: all
	sh deploy/demo.sh $(BUILD)

# The data-path benchmark (root): perftest beside TCP between two pods.
bench: all
	sh bench/run.sh $(BUILD)

# Every header compiles on its own with its module's flags (headers_check
# in mk/rules.mk), each once per change of it, what it includes or the
# flags; and every header of the source tree is in some module's list.
HEADERS_CHECK_OK = $(patsubst %,$(HDRDIR)/%.ok,$(sort $(HEADERS_CHECK)))
# The tree's headers: every .h outside build trees and .git (generated
# headers live in $(BUILD)).
HEADERS_TREE = $(patsubst ./%,%,$(shell find . \( -name '.git' -o \
	-path './build*' -o -path './$(BUILD)' \) -prune -o -name '*.h' \
	-type f -print))
HEADERS_MISSING = $(filter-out $(HEADERS_CHECK),$(HEADERS_TREE))

headers-check: $(HEADERS_CHECK_OK)
	@if [ -n "$(strip $(HEADERS_MISSING))" ]; then \
		echo "headers-check: not in any module's HEADERS_CHECK list" \
			"(add them with headers_check in its module.mk):" >&2; \
		for h in $(HEADERS_MISSING); do echo "  $$h" >&2; done; \
		exit 1; \
	fi
	@echo "headers-check: $(words $(sort $(HEADERS_CHECK))) headers OK," \
		"all $(words $(HEADERS_TREE)) of the tree listed"

$(HDRDIR)/%.h.ok: %.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@printf '#include "%s"\n' "$<" | \
		$(CC) $(BASE_CPPFLAGS) $(HDR_FLAGS) $(BASE_CFLAGS) -Werror \
			-x c -fsyntax-only -MMD -MP -MT $@ -MF $@.d - || \
		{ echo "headers-check: $< does not compile on its own" \
			"(flags: $(strip $(HDR_FLAGS)))" >&2; exit 1; }
	@touch $@

install: all $(INSTALL_TARGETS)

clean:
	rm -rf $(BUILD) $(CLEAN_EXTRA)

# Objects built by explicit rules (not the pattern rule) follow the flags too.
$(CNI_FAULT_ADD_OBJ): $(FLAGS_STAMP)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
-include $(shell find $(HDRDIR) -name '*.d' 2>/dev/null)
