# Packaging rules, included by the top-level Makefile.
#
#   make install PREFIX=/usr DESTDIR=...   also installs what is below
#   make dist    build/cgroup-feedback-$(VERSION).tar.gz from git HEAD
#   make deb     Debian packages into build/deb/ (dpkg-buildpackage -us -uc -b)
#   make rpm     RPM packages into build/rpm/ (rpmbuild -bb)
#
# Directories follow the FHS; on PREFIX=/usr the unit directory is the one
# systemd's pkg-config file names (/lib/systemd/system on Debian 12).
SBINDIR       ?= $(PREFIX)/sbin
SYSCONFDIR    ?= /etc
ifeq ($(PREFIX),/usr)
UNITDIR       ?= $(shell $(PKG_CONFIG) --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
else
UNITDIR       ?= $(PREFIX)/lib/systemd/system
endif
SYSUSERSDIR   ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR   ?= $(PREFIX)/lib/tmpfiles.d
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions

PKG_UNITS_IN  := $(wildcard packaging/systemd/*.service.in)
PKG_TIMERS    := $(wildcard packaging/systemd/*.timer)
PKG_MAN8      := docs/man/cgroup-feedback.8 docs/man/cgroup-feedback-server.8
PKG_MAN5      := docs/man/cgroup-feedback.conf.5

.PHONY: install-packaging install-server dist deb rpm pkg-srcdir

install: install-packaging install-server

install-server: $(BUILD)/cgroup-feedback-server
	install -d $(DESTDIR)$(SBINDIR)
	install -m 0755 $(BUILD)/cgroup-feedback-server $(DESTDIR)$(SBINDIR)/cgroup-feedback-server

# Everything but the binaries (tests install this part alone). Units name
# the binaries by their installed path.
install-packaging:
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
	  $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
	  $(DESTDIR)$(COMPLETIONDIR) $(DESTDIR)$(SYSCONFDIR)/cgroup-feedback \
	  $(DESTDIR)$(SYSCONFDIR)/default
	for u in $(PKG_UNITS_IN); do \
	  sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SBINDIR@|$(SBINDIR)|g' \
	      -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' $$u \
	    > $(DESTDIR)$(UNITDIR)/$$(basename $$u .in) && \
	  chmod 0644 $(DESTDIR)$(UNITDIR)/$$(basename $$u .in) || exit 1; done
	install -m 0644 $(PKG_TIMERS) $(DESTDIR)$(UNITDIR)/
	install -m 0644 packaging/systemd/cgroup-feedback.sysusers $(DESTDIR)$(SYSUSERSDIR)/cgroup-feedback.conf
	install -m 0644 packaging/systemd/cgroup-feedback-server.sysusers $(DESTDIR)$(SYSUSERSDIR)/cgroup-feedback-server.conf
	install -m 0644 packaging/systemd/cgroup-feedback.tmpfiles $(DESTDIR)$(TMPFILESDIR)/cgroup-feedback.conf
	install -m 0644 packaging/systemd/cgroup-feedback-server.tmpfiles $(DESTDIR)$(TMPFILESDIR)/cgroup-feedback-server.conf
	install -m 0644 $(PKG_MAN8) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 $(PKG_MAN5) $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 packaging/bash-completion/cgroup-feedback packaging/bash-completion/cgroup-feedback-server \
	  $(DESTDIR)$(COMPLETIONDIR)/
	# An administrator's configuration is never overwritten.
	for f in cgroup-feedback/cgroup-feedback.conf:packaging/conf/cgroup-feedback.conf \
	         default/cgroup-feedback-server:packaging/conf/cgroup-feedback-server.default; do \
	  dst=$(DESTDIR)$(SYSCONFDIR)/$${f%%:*}; \
	  if [ -e "$$dst" ] && [ -z "$(DESTDIR)" ]; then echo "install: keeping $$dst"; \
	  else install -m 0644 $${f#*:} "$$dst" || exit 1; fi; done

# The source tarball: exactly what git HEAD holds.
dist:
	@mkdir -p $(BUILD)
	git archive --format=tar.gz --prefix=cgroup-feedback-$(VERSION)/ \
	  -o $(BUILD)/cgroup-feedback-$(VERSION).tar.gz HEAD
	@echo $(BUILD)/cgroup-feedback-$(VERSION).tar.gz

# Packages are built from a copy of the sources under $(BUILD), never in the
# source tree: the tracked files and the new ones git does not ignore (so an
# uncommitted change is packaged as it is), or, outside git, the tree
# without the build directories.
# PKG_WORK: where packages are built and left (tests use a private one).
PKG_WORK  ?= $(BUILD)
PKG_SRCDIR = $(PKG_WORK)/pkgsrc/cgroup-feedback-$(VERSION)
pkg-srcdir:
	rm -rf $(PKG_WORK)/pkgsrc && mkdir -p $(PKG_SRCDIR)
	if git rev-parse --show-toplevel >/dev/null 2>&1; then \
	  git ls-files -z --cached --others --exclude-standard | \
	    tar --null -T - --ignore-failed-read -cf - | tar -xf - -C $(PKG_SRCDIR); \
	else \
	  tar --exclude=./build --exclude=./build-san --exclude=./.git -cf - . | tar -xf - -C $(PKG_SRCDIR); \
	fi


deb: pkg-srcdir
	rm -rf $(PKG_WORK)/deb && mkdir -p $(PKG_WORK)/deb
	mv $(PKG_SRCDIR) $(PKG_WORK)/deb/
	cd $(PKG_WORK)/deb/cgroup-feedback-$(VERSION) && dpkg-buildpackage -us -uc -b
	rm -rf $(PKG_WORK)/deb/cgroup-feedback-$(VERSION) $(PKG_WORK)/pkgsrc
	@ls -1 $(PKG_WORK)/deb/*.deb

# rpmbuild cannot see the build dependencies dpkg installed: --nodeps on Debian.
RPMBUILD_FLAGS ?= $(shell [ -e /etc/debian_version ] && echo --nodeps)
rpm: pkg-srcdir
	rm -rf $(PKG_WORK)/rpm && mkdir -p $(PKG_WORK)/rpm/SOURCES
	tar -C $(PKG_WORK)/pkgsrc -czf $(PKG_WORK)/rpm/SOURCES/cgroup-feedback-$(VERSION).tar.gz cgroup-feedback-$(VERSION)
	rm -rf $(PKG_WORK)/pkgsrc
	rpmbuild -bb $(RPMBUILD_FLAGS) --define "_topdir $(abspath $(PKG_WORK)/rpm)" packaging/rpm/cgroup-feedback.spec
	@find $(PKG_WORK)/rpm/RPMS -name '*.rpm'
