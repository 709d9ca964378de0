# libverbs: libibverbs.so.1, ABI-compatible with rdma-core 44's.  The core
# (this folder) plus the providers compiled in, exported through
# libibverbs.map only (-fvisibility=hidden everywhere else).
#
# LV_ALL_OBJS (core + providers + common) is also what the unit tests link,
# so they can call internal functions and exported verbs directly.

LV_SRCS := \
	libverbs/lv_ah.c \
	libverbs/lv_ah_wc.c \
	libverbs/lv_async.c \
	libverbs/lv_context.c \
	libverbs/lv_cq.c \
	libverbs/lv_datapath.c \
	libverbs/lv_dev_ident.c \
	libverbs/lv_device.c \
	libverbs/lv_fork.c \
	libverbs/lv_handle.c \
	libverbs/lv_cmd_attr.c \
	libverbs/lv_cmd_cq_srq.c \
	libverbs/lv_cmd_ctx.c \
	libverbs/lv_cmd_flow.c \
	libverbs/lv_cmd_ioctl.c \
	libverbs/lv_cmd_mr.c \
	libverbs/lv_cmd_post.c \
	libverbs/lv_cmd_qp.c \
	libverbs/lv_cmd_verbs.c \
	libverbs/lv_cmd_wq.c \
	libverbs/lv_cmd_write.c \
	libverbs/lv_cmd_xrc.c \
	libverbs/lv_kern_ctx.c \
	libverbs/lv_kern_dev.c \
	libverbs/lv_kern_import.c \
	libverbs/lv_kern_match.c \
	libverbs/lv_kern_mr.c \
	libverbs/lv_kern_nl.c \
	libverbs/lv_kern_nlio.c \
	libverbs/lv_kern_verbs.c \
	libverbs/lv_kern_compat.c \
	libverbs/lv_pd_mr.c \
	libverbs/lv_pdomain.c \
	libverbs/lv_private.c \
	libverbs/lv_provider.c \
	libverbs/lv_qp.c \
	libverbs/lv_query.c \
	libverbs/lv_rate.c \
	libverbs/lv_srq.c \
	libverbs/lv_xrcd.c \
	libverbs/lv_strings.c \
	libverbs/lv_sysfs.c \
	libverbs/lv_usdt.c

LV_OBJS := $(call objs,$(LV_SRCS))
LV_ALL_OBJS := $(LV_OBJS) $(PV_SOFT_PROVIDER_OBJS) $(PV_COMMON_OBJS)
LV_MAP := libverbs/libibverbs.map
LIBIBVERBS := $(LIBDIR_B)/libibverbs.so.1

$(LIBIBVERBS): $(LV_ALL_OBJS) $(LV_MAP)
	@mkdir -p $(dir $@)
	$(CC) -shared $(SO_LDFLAGS) -Wl,-soname,libibverbs.so.1 \
		-Wl,--version-script=$(LV_MAP) -Wl,-z,defs -Wl,-z,now \
		-o $@ $(LV_ALL_OBJS)

$(LIBDIR_B)/libibverbs.so: $(LIBIBVERBS)
	ln -sf libibverbs.so.1 $@

install-libverbs: $(LIBIBVERBS)
	install -d $(DESTDIR)$(LIBDIR)
	install -m 0755 $(LIBIBVERBS) $(DESTDIR)$(LIBDIR)/libibverbs.so.1
	ln -sf libibverbs.so.1 $(DESTDIR)$(LIBDIR)/libibverbs.so

.PHONY: install-libverbs
ALL_TARGETS += $(LIBIBVERBS) $(LIBDIR_B)/libibverbs.so
INSTALL_TARGETS += install-libverbs
HEADERS_CHECK += libverbs/pv_provider.h libverbs/lv_core.h
HEADERS_CHECK += libverbs/lv_kern_abi.h libverbs/lv_kern.h libverbs/lv_cmd.h \
	libverbs/lv_kern_nl.h libverbs/lv_dev_ident.h \
	libverbs/lv_kern_verbs.h libverbs/lv_ioctl_fill.h \
	libverbs/lv_cmd_attr.h libverbs/lv_kern_mr.h \
	libverbs/lv_kern_import.h \
	tests/unit/libverbs/kcmd_fake.h

$(eval $(call unit_test,test_lv_pure,tests/unit/libverbs/test_lv_pure.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_soft_attr,tests/unit/soft_provider/test_soft_attr.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_soft_fake_engine,tests/unit/soft_provider/test_soft_fake_engine.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_soft_ring,tests/unit/soft_provider/test_soft_ring.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_soft_wqe,tests/unit/soft_provider/test_soft_wqe.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_soft_maps,tests/unit/soft_provider/test_soft_maps.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_soft_post,tests/unit/soft_provider/test_soft_post.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_soft_odp,tests/unit/soft_provider/test_soft_odp.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_lv_kern_match,tests/unit/libverbs/test_lv_kern_match.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_lv_kern_nl,tests/unit/libverbs/test_lv_kern_nl.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_lv_dev_ident,tests/unit/libverbs/test_lv_dev_ident.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_lv_cmd,tests/unit/libverbs/test_lv_cmd.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_lv_cmd_ex,tests/unit/libverbs/test_lv_cmd_ex.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_lv_cmd_mr,tests/unit/libverbs/test_lv_cmd_mr.c tests/unit/libverbs/kcmd_fake.c,$(LV_ALL_OBJS),))
$(eval $(call unit_test,test_lv_cmd_flow,tests/unit/libverbs/test_lv_cmd_flow.c tests/unit/libverbs/kcmd_fake.c,$(LV_ALL_OBJS),))
