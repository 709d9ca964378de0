# librdmacm: librdmacm.so.1, ABI-compatible with rdma-core 44's (symbol
# versions RDMACM_1.0 .. 1.3 in librdmacm.map, everything else hidden).
# Linked against our libibverbs.so.1 (a program loads both, and the verbs
# objects an id carries are that library's).

RC_SRCS := \
	librdmacm/rc_addr.c \
	librdmacm/rc_addrinfo.c \
	librdmacm/rc_chan.c \
	librdmacm/rc_cm_todo.c \
	librdmacm/rc_conn.c \
	librdmacm/rc_devices.c \
	librdmacm/rc_event.c \
	librdmacm/rc_mcast.c \
	librdmacm/rc_id.c \
	librdmacm/rc_qp.c \
	librdmacm/rc_srq.c \
	librdmacm/rc_rs_grant.c \
	librdmacm/rc_rs_iomap.c \
	librdmacm/rc_rs_peermap.c \
	librdmacm/rc_rs_proto.c \
	librdmacm/rc_rs_rx.c \
	librdmacm/rc_rs_table.c \
	librdmacm/rc_rs_cm.c \
	librdmacm/rc_rs_ep.c \
	librdmacm/rc_rs_xfer.c \
	librdmacm/rc_rs_io.c \
	librdmacm/rc_rs_sock.c \
	librdmacm/rc_rs_poll.c \
	librdmacm/rc_rs_opt.c \
	librdmacm/rc_rs_dgram_proto.c \
	librdmacm/rc_rs_dgram.c \
	librdmacm/rc_rs_dgram_io.c \
	librdmacm/rc_strings.c \
	librdmacm/rc_unimpl.c

RC_OBJS := $(call objs,$(RC_SRCS))
RC_MAP := librdmacm/librdmacm.map
LIBRDMACM := $(LIBDIR_B)/librdmacm.so.1

$(LIBRDMACM): $(RC_OBJS) $(PV_COMMON_OBJS) $(RC_MAP) $(LIBIBVERBS)
	@mkdir -p $(dir $@)
	$(CC) -shared $(SO_LDFLAGS) -Wl,-soname,librdmacm.so.1 \
		-Wl,--version-script=$(RC_MAP) -Wl,-z,defs -Wl,-z,now \
		-o $@ $(RC_OBJS) $(PV_COMMON_OBJS) -L$(LIBDIR_B) -l:libibverbs.so.1 -lpthread

$(LIBDIR_B)/librdmacm.so: $(LIBRDMACM)
	ln -sf librdmacm.so.1 $@

install-librdmacm: $(LIBRDMACM)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/rdma \
		$(DESTDIR)$(INCLUDEDIR)/infiniband
	install -m 0755 $(LIBRDMACM) $(DESTDIR)$(LIBDIR)/librdmacm.so.1
	ln -sf librdmacm.so.1 $(DESTDIR)$(LIBDIR)/librdmacm.so
	install -m 0644 include/rdma/rdma_cma.h include/rdma/rdma_verbs.h \
		include/rdma/rsocket.h $(DESTDIR)$(INCLUDEDIR)/rdma/
	install -m 0644 include/infiniband/sa.h \
		$(DESTDIR)$(INCLUDEDIR)/infiniband/

.PHONY: install-librdmacm
ALL_TARGETS += $(LIBRDMACM) $(LIBDIR_B)/librdmacm.so
INSTALL_TARGETS += install-librdmacm
PC_FILES += $(BUILD)/pkgconfig/librdmacm.pc
HEADERS_CHECK += librdmacm/rc_core.h librdmacm/rc_dev.h librdmacm/rc_cm.h
HEADERS_CHECK += include/rdma/rdma_cma.h include/rdma/rdma_verbs.h \
	include/rdma/rsocket.h include/infiniband/sa.h
HEADERS_CHECK += providers/soft/pv-soft-cm-abi.h
HEADERS_CHECK += librdmacm/rc_rs_proto.h librdmacm/rc_rs_rx.h librdmacm/rc_rs.h
HEADERS_CHECK += librdmacm/rc_rs_grant.h
HEADERS_CHECK += librdmacm/rc_rs_peermap.h
HEADERS_CHECK += librdmacm/rc_rs_dgram_proto.h librdmacm/rc_rs_dgram.h

$(eval $(call unit_test,test_rc_rs_proto,tests/unit/librdmacm/test_rc_rs_proto.c,$(call objs,librdmacm/rc_rs_proto.c librdmacm/rc_rs_rx.c),))
$(eval $(call unit_test,test_rc_rs_grant,tests/unit/librdmacm/test_rc_rs_grant.c,$(call objs,librdmacm/rc_rs_grant.c librdmacm/rc_rs_proto.c librdmacm/rc_rs_rx.c),))
$(eval $(call unit_test,test_rc_rs_peermap,tests/unit/librdmacm/test_rc_rs_peermap.c,$(call objs,librdmacm/rc_rs_peermap.c librdmacm/rc_rs_proto.c),))
$(eval $(call unit_test,test_rc_rs_dgram_proto,tests/unit/librdmacm/test_rc_rs_dgram_proto.c,$(call objs,librdmacm/rc_rs_dgram_proto.c),))
