# tests/vm/kboth: kboth-loop, the vm tier's one-process program over a
# kernel device and a soft device at once (tests/vm/t_kboth_one.sh),
# linked to our libibverbs.so.1.

KBOTH_LOOP := $(TESTDIR_B)/bin/kboth-loop
$(KBOTH_LOOP): $(call objs,tests/vm/kboth/kboth_loop.c) $(LIBIBVERBS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_LDFLAGS) -o $@ $(filter %.o,$^) $(LIBIBVERBS)
ALL_TARGETS += $(KBOTH_LOOP)
