# providers/soft/pvctl: the operator's tool (admin requests to the engine).

PVCTL := $(BINDIR_B)/pvctl

$(PVCTL): $(call objs,providers/soft/pvctl/pvctl.c) $(PV_COMMON_OBJS) $(PV_SOFT_PROTO_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $^

ALL_TARGETS += $(PVCTL)
