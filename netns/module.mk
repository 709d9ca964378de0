# netns/: entering and running in network namespaces, reading links and
# addresses (libnl-route-3), GID tables.  Linked statically by the engine,
# the CNI plugin and test helpers: either $(NETNS_OBJS) or libpvnetns.a,
# plus $(NETNS_LIBS).

NETNS_SRCS := \
	netns/netns_gid.c \
	netns/netns_link.c \
	netns/netns_ns.c \
	netns/netns_watch.c

NETNS_OBJS := $(call objs,$(NETNS_SRCS))
NETNS_LIBS := $(NL_LIBS)
NETNS_LIB := $(LIBDIR_B)/libpvnetns.a

$(OBJDIR)/netns/%.o: EXTRA_CFLAGS += $(NL_CFLAGS)

$(NETNS_LIB): $(NETNS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# Test helper driven by tests/integration/netns_*.sh.
NETNS_PROBE := $(TESTDIR_B)/bin/netns-probe
$(NETNS_PROBE): $(call objs,tests/integration/netns_probe.c) $(NETNS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^ $(NETNS_LIBS)

ALL_TARGETS += $(NETNS_LIB) $(NETNS_PROBE)
$(eval $(call headers_check,netns/netns.h,NL_CFLAGS))

$(eval $(call unit_test,test_netns_gid,tests/unit/netns/test_netns_gid.c,$(OBJDIR)/netns/netns_gid.o,))
$(eval $(call unit_test,test_netns_watch,tests/unit/netns/test_netns_watch.c,$(OBJDIR)/netns/netns_watch.o $(OBJDIR)/netns/netns_ns.o,))
$(eval $(call unit_test,test_netns_ns,tests/unit/netns/test_netns_ns.c,$(OBJDIR)/netns/netns_ns.o $(OBJDIR)/netns/netns_watch.o,))
