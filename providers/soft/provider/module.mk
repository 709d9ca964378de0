# providers/soft/provider: the soft provider's client side, compiled into
# libibverbs.so.1 (see libverbs/module.mk) and registered in
# libverbs/lv_provider.c.  Talks to podverbsd over pv-soft-abi.h.

PV_SOFT_PROVIDER_SRCS := \
	providers/soft/provider/soft_conn.c \
	providers/soft/provider/soft_context.c \
	providers/soft/provider/soft_cq_ex.c \
	providers/soft/provider/soft_death.c \
	providers/soft/provider/soft_discover.c \
	providers/soft/provider/soft_events.c \
	providers/soft/provider/soft_map.c \
	providers/soft/provider/soft_maps.c \
	providers/soft/provider/soft_mr_share.c \
	providers/soft/provider/soft_mr_tab.c \
	providers/soft/provider/soft_mw.c \
	providers/soft/provider/soft_objects.c \
	providers/soft/provider/soft_odp.c \
	providers/soft/provider/soft_ops.c \
	providers/soft/provider/soft_poll.c \
	providers/soft/provider/soft_post.c \
	providers/soft/provider/soft_qp.c \
	providers/soft/provider/soft_qp_attr.c \
	providers/soft/provider/soft_qp_ex.c \
	providers/soft/provider/soft_ring.c \
	providers/soft/provider/soft_wqe.c

PV_SOFT_PROVIDER_OBJS := $(call objs,$(PV_SOFT_PROVIDER_SRCS))

HEADERS_CHECK += providers/soft/provider/soft_provider.h \
	providers/soft/provider/soft_dp.h
