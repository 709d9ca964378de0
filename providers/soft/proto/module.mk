# providers/soft/proto: the soft device's protocol code, shared by
# everything that speaks to its engine (the provider in libibverbs, the
# engine, pvctl, the CNI and device plugins, the test clients).  Built on
# common/'s framing; pure, no I/O.

PV_SOFT_PROTO_SRCS := \
	providers/soft/proto/pv_ipc_ops.c \
	providers/soft/proto/pv_gid_claim.c \
	providers/soft/proto/pv_dev_pages.c

PV_SOFT_PROTO_OBJS := $(call objs,$(PV_SOFT_PROTO_SRCS))

HEADERS_CHECK += providers/soft/proto/pv_ipc_ops.h
HEADERS_CHECK += providers/soft/proto/pv_gid_claim.h
HEADERS_CHECK += providers/soft/proto/pv_dev_pages.h

$(eval $(call unit_test,test_pv_soft_proto,tests/unit/soft_proto/test_pv_soft_proto.c,$(PV_SOFT_PROTO_OBJS),))
$(eval $(call unit_test,test_pv_dev_pages,tests/unit/soft_proto/test_pv_dev_pages.c,$(PV_SOFT_PROTO_OBJS),))
