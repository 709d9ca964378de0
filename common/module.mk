# common/: code shared by the library, the engine and the tools, below
# all of them: it includes only common/, include/ and system headers and
# calls only libc (tests/abi/layering.sh checks both).

PV_COMMON_SRCS := \
	common/pv_ipc.c \
	common/pv_devnode.c

PV_COMMON_OBJS := $(call objs,$(PV_COMMON_SRCS))

HEADERS_CHECK += common/pv_ipc.h
HEADERS_CHECK += common/pv-ipc-abi.h
HEADERS_CHECK += common/pv_devnode.h

$(eval $(call unit_test,test_pv_ipc,tests/unit/common/test_pv_ipc.c,$(PV_COMMON_OBJS),))
$(eval $(call unit_test,test_pv_devnode,tests/unit/common/test_pv_devnode.c,$(PV_COMMON_OBJS),))
HEADERS_CHECK += common/pv_usdt.h
