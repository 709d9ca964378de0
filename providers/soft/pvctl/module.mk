# providers/soft/pvctl: the operator's tool (admin requests to the engine).
# pvctl_main.c holds the command table; one file per object it manages.

PVCTL := $(BINDIR_B)/pvctl
PVCTL_SRCS := \
	providers/soft/pvctl/pvctl_main.c \
	providers/soft/pvctl/pvctl_session.c \
	providers/soft/pvctl/pvctl_out.c \
	providers/soft/pvctl/pvctl_dev.c \
	providers/soft/pvctl/pvctl_obj.c \
	providers/soft/pvctl/pvctl_stats.c \
	providers/soft/pvctl/pvctl_mr.c \
	providers/soft/pvctl/pvctl_hwc.c \
	providers/soft/pvctl/pvctl_top.c \
	providers/soft/pvctl/pvctl_sysfs.c
PVCTL_CJSON_CFLAGS = $(shell $(PKG_CONFIG) --cflags libcjson 2>/dev/null)
PVCTL_CJSON_LIBS = $(shell $(PKG_CONFIG) --libs libcjson 2>/dev/null || echo -lcjson)

$(OBJDIR)/providers/soft/pvctl/%.o: EXTRA_CFLAGS += $(PVCTL_CJSON_CFLAGS)

$(PVCTL): $(call objs,$(PVCTL_SRCS)) $(PV_COMMON_OBJS) $(PV_SOFT_PROTO_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^ $(PVCTL_CJSON_LIBS)

ALL_TARGETS += $(PVCTL)
$(eval $(call headers_check,providers/soft/pvctl/pvctl.h,PVCTL_CJSON_CFLAGS))

$(OBJDIR)/tests/unit/pvctl/%.o: EXTRA_CFLAGS += $(PVCTL_CJSON_CFLAGS)
$(eval $(call unit_test,test_pvctl_out,tests/unit/pvctl/test_pvctl_out.c,$(call objs,providers/soft/pvctl/pvctl_out.c providers/soft/pvctl/pvctl_session.c) $(PV_COMMON_OBJS) $(PV_SOFT_PROTO_OBJS),$(PVCTL_CJSON_LIBS)))
$(eval $(call unit_test,test_pvctl_sysfs,tests/unit/pvctl/test_pvctl_sysfs.c,$(call objs,providers/soft/pvctl/pvctl_sysfs.c providers/soft/pvctl/pvctl_dev.c providers/soft/pvctl/pvctl_out.c providers/soft/pvctl/pvctl_session.c) $(PV_COMMON_OBJS) $(PV_SOFT_PROTO_OBJS),$(PVCTL_CJSON_LIBS)))
