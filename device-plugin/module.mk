# device-plugin/: podverbs-device-plugin, the Kubernetes device plugin
# (API v1beta1 over gRPC core + protobuf-c).  The protobuf-c sources are
# generated at build time from device-plugin/protos/*.proto into
# $(BUILD)/gen/device-plugin/ and never committed.

DP_PROTOS := \
	device-plugin/protos/deviceplugin_v1beta1.proto \
	device-plugin/protos/pluginregistration_v1.proto

DP_GENDIR := $(BUILD)/gen/device-plugin
DP_GEN_C := $(patsubst device-plugin/protos/%.proto,$(DP_GENDIR)/%.pb-c.c,$(DP_PROTOS))
DP_GEN_H := $(DP_GEN_C:.c=.h)

# Pure logic (no gRPC): unit-tested on its own.
DP_CORE_SRCS := \
	device-plugin/dp_config.c \
	device-plugin/dp_discover.c \
	device-plugin/dp_pool.c

DP_SRCS := \
	$(DP_CORE_SRCS) \
	device-plugin/dp_arena.c \
	device-plugin/dp_alloc.c \
	device-plugin/dp_grpc_server.c \
	device-plugin/dp_health.c \
	device-plugin/dp_kubelet.c \
	device-plugin/dp_main.c \
	device-plugin/dp_metrics.c \
	device-plugin/dp_rpc.c \
	device-plugin/dp_seccomp.c

DP_CORE_OBJS := $(call objs,$(DP_CORE_SRCS))
DP_OBJS := $(call objs,$(DP_SRCS))
DP_GEN_OBJS := $(call objs,$(DP_GEN_C))
DP_PKGS := grpc libprotobuf-c libudev libcjson libseccomp
DP_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(DP_PKGS) 2>/dev/null)
DP_LIBS = $(shell $(PKG_CONFIG) --libs $(DP_PKGS) 2>/dev/null)
DP_BIN := $(BINDIR_B)/podverbs-device-plugin

# protoc-c writes both files of a pair at once (grouped pattern target).
$(DP_GENDIR)/%.pb-c.c $(DP_GENDIR)/%.pb-c.h: device-plugin/protos/%.proto
	@mkdir -p $(DP_GENDIR)
	protoc-c --proto_path=device-plugin/protos --c_out=$(DP_GENDIR) $<

$(DP_OBJS) $(DP_GEN_OBJS): EXTRA_CPPFLAGS += -I$(DP_GENDIR)
$(DP_OBJS) $(DP_GEN_OBJS): EXTRA_CFLAGS += $(DP_CFLAGS)
# Generated code follows protoc-c's conventions, not our prototypes rule.
$(DP_GEN_OBJS): EXTRA_CFLAGS += -Wno-missing-prototypes
$(DP_OBJS): $(DP_GEN_H)

$(DP_BIN): $(DP_OBJS) $(DP_GEN_OBJS) $(PV_COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^ $(DP_LIBS)

ALL_TARGETS += $(DP_BIN)
DP_HEADERS := \
	device-plugin/dp_alloc.h \
	device-plugin/dp_arena.h \
	device-plugin/dp_config.h \
	device-plugin/dp_daemon.h \
	device-plugin/dp_discover.h \
	device-plugin/dp_grpc_server.h \
	device-plugin/dp_health.h \
	device-plugin/dp_kubelet.h \
	device-plugin/dp_metrics.h \
	device-plugin/dp_pool.h \
	device-plugin/dp_rpc.h \
	device-plugin/dp_seccomp.h
DP_GEN_CPPFLAGS = -I$(DP_GENDIR)
$(eval $(call headers_check,$(DP_HEADERS),DP_GEN_CPPFLAGS DP_CFLAGS,$(DP_GEN_H)))

$(eval $(call unit_test,test_dp_config,tests/unit/dp/test_dp_config.c,$(OBJDIR)/device-plugin/dp_config.o,$(shell $(PKG_CONFIG) --libs libcjson 2>/dev/null)))
$(eval $(call unit_test,test_dp_pool,tests/unit/dp/test_dp_pool.c,$(OBJDIR)/device-plugin/dp_pool.o $(OBJDIR)/device-plugin/dp_discover.o,$(shell $(PKG_CONFIG) --libs libudev 2>/dev/null)))

$(OBJDIR)/tests/unit/dp/%.o: EXTRA_CFLAGS += $(shell $(PKG_CONFIG) --cflags libcjson 2>/dev/null)
$(eval $(call unit_test,test_dp_alloc,tests/unit/dp/test_dp_alloc.c,$(call objs,device-plugin/dp_alloc.c device-plugin/dp_arena.c device-plugin/dp_pool.c device-plugin/dp_discover.c device-plugin/dp_config.c) $(DP_GEN_OBJS),$(shell $(PKG_CONFIG) --libs libprotobuf-c libcjson libudev 2>/dev/null)))
$(OBJDIR)/tests/unit/dp/test_dp_alloc.o: EXTRA_CPPFLAGS += -I$(DP_GENDIR)
$(OBJDIR)/tests/unit/dp/test_dp_alloc.o: $(DP_GEN_H)
