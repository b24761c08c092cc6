# cgroup-feedback — top-level build.
#
#   make              build build/cgroup-feedback
#   make deps         install missing Debian 12 packages (as root) or print the command
#   make check        build and run every test (unit, integration, system, fuzz tiers)
#   make check-unit | check-integration | check-system | check-fuzz   one tier
#   make check-quick  unit and integration tests, normal build, no valgrind
#   make check SANITIZE=1   the ASan + UBSan build only
#   make demo         a recorded kernel log replayed into a scratch directory, with
#                     a collector of its own (tools/demo.sh); make run: the live log
#   tests/run.sh --list | tests/run.sh PATTERN...   what exists; run a few
#   make bench        benchmarks (not part of check)
#   make fuzz FUZZ_SECONDS=N   every libFuzzer target for N seconds (fuzz/fuzz.mk,
#                     docs/FUZZING.md); make check runs each a few seconds
#   make install PREFIX=/usr DESTDIR=...
#   make dist | deb | rpm   source tarball, Debian / RPM packages (packaging/packaging.mk)

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/cgroup-feedback
DATADIR    ?= $(PREFIX)/share/cgroup-feedback
MANDIR     ?= $(PREFIX)/share/man
DESTDIR    ?=
VERSION    := 0.1.0
VALGRIND   ?= 1

CC         ?= cc
PKG_CONFIG ?= pkg-config
BUILD      ?= build

CLIENT_PKGS := json-c libcrypto libcurl libudev libpcre2-8 libsystemd icu-uc icu-i18n \
               zlib liblzma libzstd liblz4 yaml-0.1
# Debian's libbz2-dev ships no pkg-config file.
BZ2_LIBS    := $(shell $(PKG_CONFIG) --libs bzip2 2>/dev/null || echo -lbz2)
# The watcher holds CAP_SYSLOG and links no network library (no libcurl, so
# no libssl, nghttp2, LDAP, Kerberos...): docs/ARCHITECTURE.md.
WATCH_PKGS  := json-c
# The administrator's command: scan, check, status, catalog... map no libcurl
# (nor what it pulls in) and no ICU; the commands that read free text or
# send are cgroup-feedback-send, which it execs (docs/ARCHITECTURE.md).
CLI_PKGS    := $(filter-out libcurl icu-uc icu-i18n,$(CLIENT_PKGS))
SEND_PKGS   := $(CLIENT_PKGS)
# The report writer it starts per detection: snapshot, tokens, schema; and
# the journal, where it looks up for the watcher what the ring buffer lost.
REPORT_PKGS := json-c libcrypto libudev libpcre2-8 libsystemd
TEST_PKGS   := cmocka
SERVER_PKGS := libmicrohttpd gnutls sqlite3 libpq json-c libcrypto libssl libpcre2-8

WARN    := -Wall -Wextra -Wformat=2 -Wshadow -Wpointer-arith -Wstrict-prototypes \
           -Wmissing-prototypes -Wvla -Wno-unused-parameter
ifneq ($(WERROR),0)
WARN    += -Werror
endif
OPT     ?= -O2 -g
CFLAGS  ?=
CPPFLAGS += -D_GNU_SOURCE -Iinclude -I$(BUILD) \
            -DCGFB_VERSION='"$(VERSION)"' -DCGFB_DATADIR='"$(DATADIR)"' \
            -DCGFB_LIBEXECDIR='"$(LIBEXECDIR)"' -DCGFB_BINDIR='"$(BINDIR)"'
ALL_CFLAGS = -std=gnu11 $(OPT) $(WARN) $(CFLAGS) \
             $(shell $(PKG_CONFIG) --cflags $(CLIENT_PKGS))
LIBS       = $(shell $(PKG_CONFIG) --libs $(CLIENT_PKGS)) $(BZ2_LIBS)

ifeq ($(SANITIZE),1)
BUILD      := build-san
OPT        := -O1 -g -fno-omit-frame-pointer
ALL_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all
LDFLAGS    += -fsanitize=address,undefined
endif

LIB_SRC    := $(wildcard lib/*.c)
MAINS      := client/cli/main.c client/cli/main_send.c client/watch/main.c client/reporter/main.c
CLIENT_SRC := $(filter-out $(MAINS),$(wildcard client/*/*.c))
LIB_OBJ    := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/catalog_blob.o $(BUILD)/schema_blob.o
CLIENT_BLOBS := $(BUILD)/allowlist_blob.o $(BUILD)/readiness_blob.o $(BUILD)/kernels_blob.o
CLIENT_OBJ := $(CLIENT_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TEST_TOOLS := $(BUILD)/tests/tools/validate-report $(BUILD)/tests/tools/killshim.so \
	$(BUILD)/tests/tools/clockshim.so
SERVER_SRC := $(wildcard server-stub/*.c server-stub/*/*.c)
SERVER_OBJ := $(SERVER_SRC:%.c=$(BUILD)/%.o) $(BUILD)/dash_html_blob.o \
              $(BUILD)/dash_js_blob.o $(BUILD)/dash_css_blob.o $(BUILD)/allowlist_blob.o
SERVER     := $(BUILD)/cgroup-feedback-server
WATCHER    := $(BUILD)/cgroup-feedback-watch
REPORTER   := $(BUILD)/cgroup-feedback-report
SENDER     := $(BUILD)/cgroup-feedback-send
PROGRAMS   := $(BUILD)/cgroup-feedback $(WATCHER) $(REPORTER) $(SENDER)

.PHONY: all deps tests layers check check-quick run demo bench install clean
all: $(PROGRAMS) $(SERVER) $(BUILD)/layers.ok

# Only the client's files and tests see client/: the collector cannot
# include a client header by accident (it has its own quote includes).
CLIENT_CPPFLAGS := -Iclient

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# Each folder of client/ and each layer of server-stub/ is compiled with an
# include tree of only the folders it may include (links made from the rule,
# tools/check-layers.sh --allowed), as systemd builds basic < libsystemd <
# shared: a forbidden include does not compile. The collector's main.c,
# the unit tests and the fuzz targets see their whole half.
TREES := $(foreach d,$(sort $(dir $(CLIENT_SRC) $(MAINS) $(filter server-stub/%/,$(dir $(SERVER_SRC))))),\
	 $(BUILD)/inc/$(d).tree)
$(TREES): $(BUILD)/inc/%/.tree: tools/check-layers.sh
	@rm -rf $(@D) && mkdir -p $(@D)
	@for d in $$(sh tools/check-layers.sh --allowed $*); do \
	  ln -s $(CURDIR)/$(dir $*)$$d $(@D)/$$d || exit 1; done
	@touch $@

folder = $(firstword $(subst /, ,$(1)))
.SECONDEXPANSION:
$(BUILD)/client/%.o: client/%.c | $(BUILD)/inc/client/$$(call folder,$$*)/.tree
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(BUILD)/inc/client/$(call folder,$*) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

SERVER_TREE = $(if $(findstring /,$(1)),$(BUILD)/inc/server-stub/$(call folder,$(1))/.tree)
$(BUILD)/server-stub/%.o: server-stub/%.c | $$(call SERVER_TREE,$$*)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(if $(findstring /,$*),-I$(BUILD)/inc/server-stub/$(call folder,$*),-Iserver-stub) \
	  $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The catalog is data; the binary carries a copy so that it works uninstalled.
$(BUILD)/catalog_blob.c: data/catalog.json tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh cgfb_catalog_json $< > $@

$(BUILD)/schema_blob.c: docs/report.schema.json tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh cgfb_report_schema_json $< > $@

$(BUILD)/readiness_blob.c: data/readiness.json tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh cgfb_readiness_json $< > $@

$(BUILD)/allowlist_blob.c: data/allowlist.json tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh cgfb_allowlist_json $< > $@
$(BUILD)/kernels_blob.c: data/kernels.json tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh cgfb_kernels_json $< > $@

# The collector's dashboard: page, script and style, served from memory.
$(BUILD)/dash_html_blob.c: server-stub/dashboard/index.html tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh cgfb_dash_html $< > $@
$(BUILD)/dash_js_blob.c: server-stub/dashboard/app.js tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh cgfb_dash_js $< > $@
$(BUILD)/dash_css_blob.c: server-stub/dashboard/app.css tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh cgfb_dash_css $< > $@

$(BUILD)/%_blob.o: $(BUILD)/%_blob.c
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libcgfb.a: $(LIB_OBJ) $(CLIENT_OBJ) $(CLIENT_BLOBS)
	rm -f $@ && ar rcs $@ $^

# From the same archive with fewer libraries: the linker takes only the
# objects a program uses, so an object of deliver/ (or, for the watcher, of
# the snapshot) pulled in by mistake fails these links.
$(BUILD)/cgroup-feedback: $(BUILD)/client/cli/main.o $(BUILD)/libcgfb.a
	$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ $(shell $(PKG_CONFIG) --libs $(CLI_PKGS)) $(BZ2_LIBS)
$(SENDER): $(BUILD)/client/cli/main_send.o $(BUILD)/libcgfb.a
	$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ $(shell $(PKG_CONFIG) --libs $(SEND_PKGS)) $(BZ2_LIBS)
$(WATCHER): $(BUILD)/client/watch/main.o $(BUILD)/libcgfb.a
	$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ $(shell $(PKG_CONFIG) --libs $(WATCH_PKGS))
$(REPORTER): $(BUILD)/client/reporter/main.o $(BUILD)/libcgfb.a
	$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ $(shell $(PKG_CONFIG) --libs $(REPORT_PKGS))

# The collector names its headers by folder ("store/store.h"), as the client does.
$(SERVER_OBJ): ALL_CFLAGS += $(shell $(PKG_CONFIG) --cflags $(SERVER_PKGS))
$(SERVER): $(SERVER_OBJ) $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --libs $(SERVER_PKGS)) -lpthread -lm

# The collector's unit tests (test_srv_*.c) link its objects but main.o.
SERVER_TEST_OBJ := $(filter-out $(BUILD)/server-stub/main.o,$(SERVER_OBJ))
$(BUILD)/tests/test_srv_%: tests/unit/test_srv_%.c tests/unit/testutil.h tests/unit/srvsql.h $(SERVER_TEST_OBJ) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iserver-stub -Itests/unit $(ALL_CFLAGS) \
	  $(shell $(PKG_CONFIG) --cflags $(SERVER_PKGS) $(TEST_PKGS)) $< -o $@ $(LDFLAGS) \
	  $(SERVER_TEST_OBJ) $(LIB_OBJ) $(shell $(PKG_CONFIG) --libs $(SERVER_PKGS) $(TEST_PKGS)) \
	  -lpthread -lm

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h $(BUILD)/libcgfb.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CLIENT_CPPFLAGS) -Itests/unit $(ALL_CFLAGS) $(shell $(PKG_CONFIG) --cflags $(TEST_PKGS)) \
	  $< -o $@ $(LDFLAGS) $(BUILD)/libcgfb.a $(LIBS) $(shell $(PKG_CONFIG) --libs $(TEST_PKGS))

# Programs the integration tests run (the C side of the report checks).
$(BUILD)/tests/tools/%: tests/tools/%.c $(BUILD)/libcgfb.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CLIENT_CPPFLAGS) $(ALL_CFLAGS) $< -o $@ $(LDFLAGS) $(BUILD)/libcgfb.a $(LIBS)

# The kill loops' LD_PRELOAD shim: never sanitized (an ASan binary is told
# to accept it with verify_asan_link_order=0).
$(BUILD)/tests/tools/killshim.so: tests/tools/killshim.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g $(WARN) -fPIC -shared $< -o $@ -ldl

# The clock tests' LD_PRELOAD shim (a wall clock stepped back), the same way.
$(BUILD)/tests/tools/clockshim.so: tests/tools/clockshim.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g $(WARN) -fPIC -shared $< -o $@ -ldl -lpthread

deps:
	sh tools/deps.sh

tests: $(PROGRAMS) $(SERVER) $(UNIT_BIN) $(TEST_TOOLS) $(BUILD)/layers.ok

# The layering rule on what was built: which object uses which (nm), and
# what each program takes in (tools/check-symbols.sh). A violation fails
# the build, whatever the source text looks like.
$(BUILD)/layers.ok: $(PROGRAMS) $(SERVER) tools/check-symbols.sh tools/check-layers.sh
	sh tools/check-symbols.sh $(BUILD)
	@touch $@

# The suite (tests/run.sh, docs/TESTING.md) in four tiers; `make check` runs
# them all in one pool of parallel jobs (CHECK_JOBS at a time, the number of
# CPUs by default): the unit tests natively, under valgrind and under ASan +
# UBSan; every integration script on the normal build and on the ASan+UBSan
# build, the scripts of tests/valgrind-scripts with every program under
# valgrind memcheck (VALGRIND=0: none); the collector's scripts again on
# PostgreSQL; the real-kernel test, the packages and the full-system test in
# qemu (the system tier); the fuzz targets' smoke run. SANITIZE=1 runs the
# sanitizer build only. Select with tests/run.sh PATTERN... (--list).
# The layering rule of docs/ARCHITECTURE.md, first: a violation fails at once.
layers:
	sh tools/check-layers.sh

NPROC      := $(shell nproc 2>/dev/null || echo 2)
CHECK_JOBS ?= $(NPROC)
ifeq ($(SANITIZE),1)
CHECK_BUILDS := $(BUILD)
else
CHECK_BUILDS := $(BUILD) build-san
endif
RUN_TESTS  = BUILDS="$(CHECK_BUILDS)" VALGRIND=$(VALGRIND) sh tests/run.sh -j $(CHECK_JOBS)

# Both builds (and, for the fuzz tier, the fuzz targets), compiled in
# parallel: each tier needs only its part.
.PHONY: check-build check-unit check-integration check-system check-fuzz
check-build: layers
	$(MAKE) --no-print-directory -j$(NPROC) tests
ifneq ($(SANITIZE),1)
	$(MAKE) --no-print-directory -j$(NPROC) SANITIZE=1 tests
endif

check: check-build
	$(MAKE) --no-print-directory -j$(NPROC) fuzz-build
	$(RUN_TESTS)
check-unit: check-build
	$(RUN_TESTS) --tier unit
check-integration: check-build
	$(RUN_TESTS) --tier integration
check-system: check-build
	$(RUN_TESTS) --tier system
check-fuzz:
	$(MAKE) --no-print-directory -j$(NPROC) fuzz-build
	$(RUN_TESTS) --tier fuzz

# The edit-compile-test loop: one build, no valgrind, no second store, no
# qemu, no packages, no fuzzing.
check-quick: layers
	$(MAKE) --no-print-directory -j$(NPROC) tests
	BUILDS="$(BUILD)" VALGRIND=0 sh tests/run.sh -j $(CHECK_JOBS) --tier unit --tier integration \
	  --exclude pg/ --exclude server-pg-

run: $(PROGRAMS) $(SERVER)
	BUILD=$(BUILD) sh tools/run-local.sh

# A recorded kernel log replayed into a scratch directory, with a collector
# of its own (tools/demo.sh): on any host, as any user; Ctrl-C ends it.
demo: $(PROGRAMS) $(SERVER)
	BUILD=$(BUILD) sh tools/demo.sh

bench: $(PROGRAMS) $(SERVER)
	BUILD=$(BUILD) sh bench/run.sh

install: $(PROGRAMS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(LIBEXECDIR)
	install -m 0755 $(BUILD)/cgroup-feedback $(DESTDIR)$(BINDIR)/cgroup-feedback
	install -m 0755 $(WATCHER) $(DESTDIR)$(LIBEXECDIR)/cgroup-feedback-watch
	install -m 0755 $(REPORTER) $(DESTDIR)$(LIBEXECDIR)/cgroup-feedback-report
	install -m 0755 $(SENDER) $(DESTDIR)$(LIBEXECDIR)/cgroup-feedback-send
	install -m 0644 data/catalog.json $(DESTDIR)$(DATADIR)/catalog.json
	install -m 0644 docs/report.schema.json $(DESTDIR)$(DATADIR)/report.schema.json
	install -m 0644 docs/check.schema.json $(DESTDIR)$(DATADIR)/check.schema.json
	install -m 0644 docs/status.schema.json $(DESTDIR)$(DATADIR)/status.schema.json
	install -m 0644 data/allowlist.json $(DESTDIR)$(DATADIR)/allowlist.json
	# cgroup-feedback demo: the script make demo runs, and its recording.
	install -d $(DESTDIR)$(DATADIR)/demo
	install -m 0755 tools/demo.sh $(DESTDIR)$(DATADIR)/demo/demo.sh
	install -m 0644 tests/data/logs/fedora-6.15.kmsg $(DESTDIR)$(DATADIR)/demo/fedora-6.15.kmsg

include packaging/packaging.mk
include fuzz/fuzz.mk

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
