# make install: honours PREFIX, DESTDIR and the directories in mk/config.mk.
# Installs the public headers, libibverbs.so.1 (+ dev symlink, pkg-config
# file), the engine, pvctl, the device plugin and the CNI plugin.

PC_FILES += $(BUILD)/pkgconfig/libibverbs.pc

# Regenerated on every install: PREFIX may differ from the last one.
$(BUILD)/pkgconfig/%.pc: mk/pc/%.pc.in FORCE
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' $< > $@

install-headers:
	install -d $(DESTDIR)$(INCLUDEDIR)/infiniband
	install -m 0644 include/infiniband/verbs.h $(DESTDIR)$(INCLUDEDIR)/infiniband/

install-pc: $(PC_FILES)
	install -d $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0644 $(PC_FILES) $(DESTDIR)$(PKGCONFIGDIR)/

install-bins: $(PODVERBSD) $(PVCTL) $(DP_BIN) $(CNI_BIN)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(CNIBINDIR)
	install -m 0755 $(PODVERBSD) $(DP_BIN) $(DESTDIR)$(SBINDIR)/
	install -m 0755 $(PVCTL) $(DESTDIR)$(BINDIR)/
	install -m 0755 $(CNI_BIN) $(DESTDIR)$(CNIBINDIR)/

FORCE:
.PHONY: install-headers install-pc install-bins FORCE
INSTALL_TARGETS += install-headers install-pc install-bins
