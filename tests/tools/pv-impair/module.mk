# tests/tools/pv-impair: the link impairer the multi-node tests put on the
# wire between simulated nodes (tests/lib/nodes.sh: wire_impair).  Built
# into $(TESTDIR_B)/bin/pv-impair; its pure parts have a unit test.

PVI_DIR := tests/tools/pv-impair
PV_IMPAIR := $(TESTDIR_B)/bin/pv-impair
PVI_PURE_SRCS := \
	$(PVI_DIR)/pvi_spec.c \
	$(PVI_DIR)/pvi_frame.c \
	$(PVI_DIR)/pvi_path.c \
	$(PVI_DIR)/pvi_report.c
PVI_SRCS := \
	$(PVI_PURE_SRCS) \
	$(PVI_DIR)/pvi_io.c \
	$(PVI_DIR)/pvi_main.c

$(PV_IMPAIR): $(call objs,$(PVI_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^ -lm

ALL_TARGETS += $(PV_IMPAIR)
HEADERS_CHECK += $(PVI_DIR)/pvi_rng.h
HEADERS_CHECK += $(PVI_DIR)/pvi_spec.h
HEADERS_CHECK += $(PVI_DIR)/pvi_frame.h
HEADERS_CHECK += $(PVI_DIR)/pvi_path.h
HEADERS_CHECK += $(PVI_DIR)/pvi_report.h
HEADERS_CHECK += $(PVI_DIR)/pvi_io.h

$(eval $(call unit_test,test_pv_impair,tests/unit/impair/test_pv_impair.c,$(call objs,$(PVI_PURE_SRCS)),-lm))
