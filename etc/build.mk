# etc/: what "make install" puts on a node, and "make uninstall".
#
# The systemd unit and the plugstack snippet are templates (*.in) filled in
# with the real install paths.  The plugin that gets installed is built
# apart ($(B)/inst/), with the install paths compiled in as its defaults, so
# that "make install PREFIX=..." never rewrites the build tree the tests use.
# (etc/ is read before spank/build.mk: names from other fragments are
# used only in recipes or with "=".)
# A config file that exists and differs from ours is kept; ours goes beside
# it as NAME.dist.  "make uninstall" removes every file install added, and a
# config file only if it is still the one we shipped.

DATADIR   ?= $(PREFIX)/share
SCHEMADIR ?= $(DATADIR)/mpiwatch
INST_PATHS := PREFIX=$(PREFIX) BINDIR=$(BINDIR) SBINDIR=$(SBINDIR) LIBDIR=$(LIBDIR) SYSCONFDIR=$(SYSCONFDIR)

# Rewritten only when the paths change, so what depends on it is rebuilt
# exactly then.
$(B)/inst/paths: FORCE
	@mkdir -p $(dir $@)
	@echo '$(INST_PATHS)' | cmp -s - $@ || echo '$(INST_PATHS)' >$@
FORCE:
.PHONY: FORCE uninstall

INST_SUBST = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SBINDIR@|$(SBINDIR)|g' \
	-e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g'
$(B)/inst/etc/%: etc/%.in $(B)/inst/paths
	@mkdir -p $(dir $@)
	$(INST_SUBST) $< >$@

INST_SPANK_OBJS := $(patsubst %.c,$(B)/inst/obj/%.o,$(wildcard spank/*.c))
-include $(wildcard $(B)/inst/obj/spank/*.d)
$(B)/inst/obj/spank/%.o: spank/%.c $(B)/inst/paths
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(JSON_CFLAGS) -DMWS_DEFAULT_LIBDIR='"$(LIBDIR)"' \
	  -DMWS_DEFAULT_BINDIR='"$(BINDIR)"' -c -o $@ $<
$(B)/inst/mpiwatch.so: $(INST_SPANK_OBJS) $(SHARED_LIB) spank/mpiwatch.map
	$(CC) -shared $(CFLAGS) -o $@ $(INST_SPANK_OBJS) $(SHARED_LIB) $(LDFLAGS) $(MUNGE_LIBS) \
	  -Wl,--version-script=spank/mpiwatch.map

INST_UNIT  := $(B)/inst/etc/mpiwatch-nodehealthd.service
INST_SNIP  := $(B)/inst/etc/plugstack.conf.d/mpiwatch.conf
INST_CONFS := $(wildcard etc/*.conf)
INST_LIBS   = $(filter-out $(SPANK_PLUGIN),$(filter %.so,$(LIBS)))
INST_SCHEMAS := $(wildcard doc/schemas/*.json)
# The Grafana dashboard (doc/admin.md), beside the schemas.
GRAFANADIR ?= $(SCHEMADIR)/grafana
INST_GRAFANA := $(wildcard etc/grafana/*.json)

# install_conf SRC DIR: install SRC into DIR unless an edited copy is there.
define install_conf
	f=$(DESTDIR)$(2)/$$(basename $(1)); \
	if [ -e "$$f" ] && ! cmp -s $(1) "$$f"; then \
	  install -m 0644 $(1) "$$f.dist"; \
	  echo "install: kept the edited $$f; the new one is $$f.dist"; \
	else install -m 0644 $(1) "$$f"; fi
endef
# uninstall_conf SRC DIR: remove DIR's copy of SRC if unedited, and its .dist.
define uninstall_conf
	f=$(DESTDIR)$(2)/$$(basename $(1)); rm -f "$$f.dist"; \
	if [ -e "$$f" ] && ! cmp -s $(1) "$$f"; then \
	  echo "uninstall: kept the edited $$f"; else rm -f "$$f"; fi
endef

# What install needs, without the test programs (debian/rules builds this).
# The rule with $(BINS) and $(LIBS) is in the top Makefile, after every
# fragment has added to them.
build-install: $(B)/inst/mpiwatch.so $(INST_UNIT) $(INST_SNIP)
.PHONY: build-install

install: build-install
	set -e; \
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 \
	  $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(SYSCONFDIR)/mpiwatch $(DESTDIR)$(UNITDIR) \
	  $(DESTDIR)$(SYSCONFDIR)/slurm/plugstack.conf.d $(DESTDIR)$(SCHEMADIR) $(DESTDIR)$(GRAFANADIR); \
	for b in $(BINS); do case $$b in *nodehealthd) install -m 0755 $$b $(DESTDIR)$(SBINDIR)/;; \
	  *) install -m 0755 $$b $(DESTDIR)$(BINDIR)/;; esac; done; \
	for l in $(INST_LIBS) $(B)/inst/mpiwatch.so; do install -m 0755 $$l $(DESTDIR)$(LIBDIR)/; done; \
	for m in $(MANS); do s=$${m##*.}; install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done; \
	for s in $(INST_SCHEMAS); do install -m 0644 $$s $(DESTDIR)$(SCHEMADIR)/; done; \
	for g in $(INST_GRAFANA); do install -m 0644 $$g $(DESTDIR)$(GRAFANADIR)/; done; \
	install -m 0644 $(INST_UNIT) $(DESTDIR)$(UNITDIR)/; \
	for c in $(INST_CONFS); do $(call install_conf,$$c,$(SYSCONFDIR)/mpiwatch); done; \
	$(call install_conf,$(INST_SNIP),$(SYSCONFDIR)/slurm/plugstack.conf.d)

uninstall: $(INST_SNIP)
	set -e; \
	for b in $(BINS); do case $$b in *nodehealthd) rm -f $(DESTDIR)$(SBINDIR)/$${b##*/};; \
	  *) rm -f $(DESTDIR)$(BINDIR)/$${b##*/};; esac; done; \
	for l in $(INST_LIBS) $(B)/inst/mpiwatch.so; do rm -f $(DESTDIR)$(LIBDIR)/$${l##*/}; done; \
	for m in $(MANS); do s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}; done; \
	for s in $(INST_SCHEMAS); do rm -f $(DESTDIR)$(SCHEMADIR)/$${s##*/}; done; \
	for g in $(INST_GRAFANA); do rm -f $(DESTDIR)$(GRAFANADIR)/$${g##*/}; done; \
	rm -f $(DESTDIR)$(UNITDIR)/$(notdir $(INST_UNIT)); \
	for c in $(INST_CONFS); do $(call uninstall_conf,$$c,$(SYSCONFDIR)/mpiwatch); done; \
	$(call uninstall_conf,$(INST_SNIP),$(SYSCONFDIR)/slurm/plugstack.conf.d); \
	for d in $(LIBDIR) $(GRAFANADIR) $(SCHEMADIR) $(SYSCONFDIR)/mpiwatch; do \
	  rmdir $(DESTDIR)$$d 2>/dev/null || true; done
