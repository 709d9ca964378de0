# Top-level targets.  Modules append to ALL_TARGETS, CHECK_UNIT,
# INSTALL_TARGETS and CLEAN_EXTRA.

.DEFAULT_GOAL := all
.PHONY: all check check-unit check-abi check-integration check-compat check-fuzz \
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

# The main job: engine, two pods, verbs tools in each.
demo: all
	sh deploy/demo.sh $(BUILD)

# The data-path benchmark (root): perftest beside TCP between two pods.
bench: all
	sh bench/run.sh $(BUILD)

# Every header compiles on its own.
headers-check:
	@set -e; for h in $(HEADERS_CHECK); do \
		printf '#include "%s"\n' "$$h" | \
		$(CC) $(BASE_CPPFLAGS) -U_FORTIFY_SOURCE -std=gnu11 -Wall -Wextra -Werror \
			-x c -fsyntax-only - || { echo "header $$h"; exit 1; }; \
	done; echo "headers-check: $(words $(HEADERS_CHECK)) headers OK"

install: all $(INSTALL_TARGETS)

clean:
	rm -rf $(BUILD) $(CLEAN_EXTRA)

# Objects built by explicit rules (not the pattern rule) follow the flags too.
$(CNI_FAULT_ADD_OBJ): $(FLAGS_STAMP)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
