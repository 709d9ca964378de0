# Generic rules: every .c under the tree compiles to build/obj/<path>.o with
# dependency files.  Modules add per-object flags with target-specific
# variables, e.g.  $(BUILD)/obj/netns/%.o: EXTRA_CFLAGS += $(NL_CFLAGS)

OBJDIR := $(BUILD)/obj
BINDIR_B := $(BUILD)/bin
LIBDIR_B := $(BUILD)/lib
TESTDIR_B := $(BUILD)/tests

# Turn a list of sources into their objects.
objs = $(patsubst %.c,$(OBJDIR)/%.o,$(1))

# The flags every object is built with, rewritten only when they change:
# objects depend on it, so `make CFLAGS=...` or SAN=1 in the same tree
# rebuilds everything instead of mixing objects built two ways.
FLAGS_STAMP := $(BUILD)/flags.txt
# -Werror changes no object: left out, so `make install` without WERROR=1
# (tests/integration/make_install.sh) does not rebuild a WERROR=1 tree.
FLAGS_NOW := CC=$(CC) CPPFLAGS=$(BASE_CPPFLAGS) \
	CFLAGS=$(filter-out -Werror,$(BASE_CFLAGS)) LDFLAGS=$(BASE_LDFLAGS)
ifneq ($(FLAGS_NOW),$(file <$(FLAGS_STAMP)))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_STAMP),$(FLAGS_NOW))
endif

$(OBJDIR)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CPPFLAGS) $(EXTRA_CPPFLAGS) $(BASE_CFLAGS) $(EXTRA_CFLAGS) \
		-MMD -MP -c $< -o $@

ALL_TARGETS :=
CHECK_UNIT :=
CLEAN_EXTRA :=

# $(call unit_test,NAME,SOURCES,OBJECTS,LIBS) defines $(TESTDIR_B)/unit/NAME.
define unit_test
$(TESTDIR_B)/unit/$(1): $(call objs,$(2)) $(3)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE_LDFLAGS) -o $$@ $$^ $(4) $$(CMOCKA_LIBS)
CHECK_UNIT += $(TESTDIR_B)/unit/$(1)
endef

# headers-check (mk/targets.mk): every header compiles on its own, with the
# flags its module's objects get.  A module lists its headers with
#   $(eval $(call headers_check,HEADERS,FLAG-VARIABLES,PREREQUISITES))
# naming the variables that hold its extra flags (e.g. NL_CFLAGS; expanded
# when the check runs) and what must exist first (generated headers).
# A plain `HEADERS_CHECK += h.h` means the header needs no extra flags.
# The checks depend on the module.mk that lists them: a change of its
# flags runs them again.
HDRDIR := $(BUILD)/headers
define headers_check
HEADERS_CHECK += $(1)
$(patsubst %,$(HDRDIR)/%.ok,$(1)): HDR_FLAGS += $(foreach v,$(2),$$($(v)))
$(patsubst %,$(HDRDIR)/%.ok,$(1)): $(3) $(lastword $(MAKEFILE_LIST))
endef
