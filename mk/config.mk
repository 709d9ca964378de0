# Tunables: override on the command line (make PREFIX=/usr WERROR=1).

# 1 builds with AddressSanitizer + UndefinedBehaviorSanitizer into its own
# tree (build-san/ unless BUILD is given): make check SAN=1.  A tree built
# that way stays one: `make BUILD=build-san install` (as make_install.sh
# runs) keeps the sanitizers instead of rebuilding the tree without them.
ifeq ($(origin SAN),undefined)
ifdef BUILD
ifneq ($(findstring -fsanitize=,$(file <$(BUILD)/flags.txt)),)
SAN := 1
endif
endif
endif
SAN ?= 0
# Where the in-place tree is built.
ifeq ($(SAN),1)
BUILD ?= build-san
else
BUILD ?= build
endif
# Installation prefix and staging root.
PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= $(PREFIX)/lib
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# Where CNI plugins live (container runtimes look here).
CNIBINDIR ?= /opt/cni/bin
# 1 turns warnings into errors (CI sets it).
WERROR ?= 0
# Optimisation and debug flags.
OPTFLAGS ?= -O2 -g

CC ?= cc
WARNFLAGS := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes \
	-Wstrict-prototypes -Wno-unused-parameter
ifeq ($(WERROR),1)
WARNFLAGS += -Werror
endif
# Hardening as Debian's packages get it (dpkg-buildflags, hardening=+all).
# Objects are all -fPIC (the library needs it; PIE executables accept it);
# executables link with -pie, the shared library without (see SO_LDFLAGS).
# _FORTIFY_SOURCE needs optimisation, so it is dropped with -O0 and under
# ASan (which checks the same calls itself and clashes with __*_chk).
HARDEN_CPPFLAGS := -D_FORTIFY_SOURCE=2
HARDEN_CFLAGS := -fstack-protector-strong -fstack-clash-protection
ifneq ($(findstring x86_64,$(shell $(CC) -dumpmachine 2>/dev/null)),)
HARDEN_CFLAGS += -fcf-protection
endif
HARDEN_LDFLAGS := -pie -Wl,-z,relro -Wl,-z,now
ifneq ($(filter -O0,$(OPTFLAGS)),)
HARDEN_CPPFLAGS :=
endif
SAN_CFLAGS :=
SAN_LDFLAGS :=
ifeq ($(SAN),1)
HARDEN_CPPFLAGS :=
SAN_CFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
SAN_LDFLAGS := -fsanitize=address,undefined
endif

# include/ first: our public headers win over any installed rdma-core ones.
# The user's CPPFLAGS, CFLAGS and LDFLAGS (environment or command line, e.g.
# from dpkg-buildflags) come after ours, so they win.
BASE_CPPFLAGS := -Iinclude -I. -D_GNU_SOURCE $(HARDEN_CPPFLAGS) $(CPPFLAGS)
BASE_CFLAGS := -std=gnu11 -fPIC -fvisibility=hidden $(OPTFLAGS) $(WARNFLAGS) \
	-pthread $(HARDEN_CFLAGS) $(SAN_CFLAGS) $(CFLAGS)
BASE_LDFLAGS := -pthread $(HARDEN_LDFLAGS) $(SAN_LDFLAGS) $(LDFLAGS)
# Shared libraries: the same without -pie (gcc would link a PIE's start-up
# code into the library).
SO_LDFLAGS = $(filter-out -pie,$(BASE_LDFLAGS))

PKG_CONFIG ?= pkg-config
NL_CFLAGS = $(shell $(PKG_CONFIG) --cflags libnl-3.0 libnl-route-3.0 2>/dev/null)
NL_LIBS = $(shell $(PKG_CONFIG) --libs libnl-3.0 libnl-route-3.0 2>/dev/null)
CMOCKA_LIBS = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

# USDT probes (common/pv_usdt.h) need <sys/sdt.h> (Debian's
# systemtap-sdt-dev); without it they are compiled out and make says so.
# USDT=0 compiles them out anyway.  Probes cost a predicted branch
# when nobody traces (pv_usdt.h).
USDT ?= 1
ifeq ($(USDT),0)
BASE_CPPFLAGS += -DPV_NO_USDT
else ifeq ($(shell printf '\043include <sys/sdt.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo y),)
$(info podverbs: no <sys/sdt.h> (Debian: systemtap-sdt-dev): USDT probes compiled out)
# In the flags, so a tree rebuilds once the header comes or goes.
BASE_CPPFLAGS += -DPV_NO_USDT
endif
