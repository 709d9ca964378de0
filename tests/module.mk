# Test binaries.  Unit tests: one cmocka binary per module, built into
# $(TESTDIR_B)/unit/ and listed in CHECK_UNIT by each component's module.mk
# (see unit_test in mk/rules.mk).


HEADERS_CHECK += providers/soft/pv-soft-abi.h
HEADERS_CHECK += include/infiniband/verbs.h
HEADERS_CHECK += providers/soft/pv-soft-ring-abi.h
