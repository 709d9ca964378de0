# podverbs — top-level, non-recursive Makefile.
#
# `make` builds an in-place tree under build/ that runs without installing:
#   build/lib/libibverbs.so.1, build/bin/podverbsd, build/bin/pvctl, ...
# `make check` runs every test tier (unit, abi, integration, compat, fuzz, vm).
# `make install` honours PREFIX and DESTDIR.
#
# Each component lists its files, one per line, in its own module.mk,
# included below.  Tunables are declared once in mk/config.mk.

include mk/config.mk
include mk/rules.mk

include common/module.mk
include providers/soft/proto/module.mk
include netns/module.mk
include providers/soft/provider/module.mk
include providers/soft/engine/module.mk
include providers/soft/pvctl/module.mk
include libverbs/module.mk
include librdmacm/module.mk
include cni-plugin/module.mk
include device-plugin/module.mk
include tests/integration/datapath/module.mk
include tests/integration/scale/module.mk
include tests/vm/kboth/module.mk
include tests/module.mk
include tests/tools/pv-impair/module.mk
include tests/fuzz/module.mk
include mk/install.mk

include mk/targets.mk
