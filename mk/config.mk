# Tunables: override on the command line (make PREFIX=/usr WERROR=1).

# Where the in-place tree is built.
BUILD ?= build
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
# include/ first: our public headers win over any installed rdma-core ones.
BASE_CPPFLAGS := -Iinclude -I. -D_GNU_SOURCE
BASE_CFLAGS := -std=gnu11 -fPIC -fvisibility=hidden $(OPTFLAGS) $(WARNFLAGS) \
	-pthread
BASE_LDFLAGS := -pthread

PKG_CONFIG ?= pkg-config
NL_CFLAGS = $(shell $(PKG_CONFIG) --cflags libnl-3.0 libnl-route-3.0 2>/dev/null)
NL_LIBS = $(shell $(PKG_CONFIG) --libs libnl-3.0 libnl-route-3.0 2>/dev/null)
CMOCKA_LIBS = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)
