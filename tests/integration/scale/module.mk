# tests/integration/scale: the programs of the scale tests
# (tests/integration/scale_*.sh), linked to our libibverbs.so.1.

PV_OBJMEM := $(TESTDIR_B)/bin/pv-objmem
$(PV_OBJMEM): $(call objs,tests/integration/scale/pv_objmem.c) $(LIBIBVERBS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $(filter %.o,$^) $(LIBIBVERBS)
ALL_TARGETS += $(PV_OBJMEM)
