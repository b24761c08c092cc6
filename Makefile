# cgroup-feedback — top-level build.
#
#   make              build build/cgroup-feedback
#   make deps         install missing Debian 12 packages (as root) or print the command
#   make check        build and run every test (unit, integration, real kernel under qemu)
#   make check SANITIZE=1   the same with ASan + UBSan
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

CLIENT_PKGS := json-c libcrypto libcurl libudev libpcre2-8
# The watcher holds CAP_SYSLOG and links no network library (no libcurl, so
# no libssl, nghttp2, LDAP, Kerberos...): docs/ARCHITECTURE.md.
WATCH_PKGS  := json-c
# The report writer it starts per detection: snapshot, tokens, schema.
REPORT_PKGS := json-c libcrypto libudev libpcre2-8
TEST_PKGS   := cmocka
SERVER_PKGS := libmicrohttpd sqlite3 json-c libcrypto libssl libpcre2-8

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
LIBS       = $(shell $(PKG_CONFIG) --libs $(CLIENT_PKGS))

ifeq ($(SANITIZE),1)
BUILD      := build-san
OPT        := -O1 -g -fno-omit-frame-pointer
ALL_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all
LDFLAGS    += -fsanitize=address,undefined
endif

LIB_SRC    := $(wildcard lib/*.c)
MAINS      := client/cli/main.c client/cli/watch_main.c client/cli/report_main.c
CLIENT_SRC := $(filter-out $(MAINS),$(wildcard client/*/*.c))
LIB_OBJ    := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/catalog_blob.o $(BUILD)/schema_blob.o
CLIENT_BLOBS := $(BUILD)/allowlist_blob.o
CLIENT_OBJ := $(CLIENT_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TEST_TOOLS := $(BUILD)/tests/tools/validate-report $(BUILD)/tests/tools/killshim.so
SERVER_SRC := $(wildcard server-stub/*.c)
SERVER_OBJ := $(SERVER_SRC:%.c=$(BUILD)/%.o) $(BUILD)/dash_html_blob.o \
              $(BUILD)/dash_js_blob.o $(BUILD)/dash_css_blob.o
SERVER     := $(BUILD)/cgroup-feedback-server
WATCHER    := $(BUILD)/cgroup-feedback-watch
REPORTER   := $(BUILD)/cgroup-feedback-report
PROGRAMS   := $(BUILD)/cgroup-feedback $(WATCHER) $(REPORTER)

.PHONY: all deps tests layers check check-quick run bench install clean
all: $(PROGRAMS) $(SERVER)

# Only the client's files and tests see client/: the collector cannot
# include a client header by accident (it has its own quote includes).
CLIENT_CPPFLAGS := -Iclient

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/client/%.o: client/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CLIENT_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The catalog is data; the binary carries a copy so that it works uninstalled.
$(BUILD)/catalog_blob.c: data/catalog.json tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh cgfb_catalog_json $< > $@

$(BUILD)/schema_blob.c: docs/report.schema.json tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh cgfb_report_schema_json $< > $@

$(BUILD)/allowlist_blob.c: data/allowlist.json tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh cgfb_allowlist_json $< > $@

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
	ar rcs $@ $^

$(BUILD)/cgroup-feedback: $(BUILD)/client/cli/main.o $(BUILD)/libcgfb.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# From the same archive with fewer libraries: the linker takes only the
# objects a program uses, so an object of deliver/ (or, for the watcher, of
# the snapshot) pulled in by mistake fails these links.
$(WATCHER): $(BUILD)/client/cli/watch_main.o $(BUILD)/libcgfb.a
	$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ $(shell $(PKG_CONFIG) --libs $(WATCH_PKGS))
$(REPORTER): $(BUILD)/client/cli/report_main.o $(BUILD)/libcgfb.a
	$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ $(shell $(PKG_CONFIG) --libs $(REPORT_PKGS))

$(SERVER_OBJ): ALL_CFLAGS += $(shell $(PKG_CONFIG) --cflags $(SERVER_PKGS))
$(SERVER): $(SERVER_OBJ) $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --libs $(SERVER_PKGS)) -lpthread -lm

# The collector's unit tests (test_srv_*.c) link its objects but main.o.
SERVER_TEST_OBJ := $(filter-out $(BUILD)/server-stub/main.o,$(SERVER_OBJ))
$(BUILD)/tests/test_srv_%: tests/unit/test_srv_%.c tests/unit/testutil.h $(SERVER_TEST_OBJ) $(LIB_OBJ)
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

deps:
	sh tools/deps.sh

tests: $(PROGRAMS) $(SERVER) $(UNIT_BIN) $(TEST_TOOLS)

# The whole suite runs twice: on the normal build, under valgrind memcheck
# with VALGRIND=1 (the default: the unit tests natively and under it, the
# integration scripts' programs under it, README "Building and testing"),
# and on the ASan+UBSan build. SANITIZE=1 runs only the latter.
# The layering rule of docs/ARCHITECTURE.md, first: a violation fails at once.
layers:
	sh tools/check-layers.sh

# The fuzz targets' smoke run (fuzz/run.sh smoke) ends the suite; fuzz-build
# skips them, and the suite says so, where clang has no libFuzzer.
ifeq ($(SANITIZE),1)
check: layers tests fuzz-build
	BUILDS="$(BUILD)" sh tests/run.sh
else
check: layers tests fuzz-build
	$(MAKE) --no-print-directory SANITIZE=1 tests
	BUILDS="$(BUILD) build-san" VALGRIND=$(VALGRIND) sh tests/run.sh
endif

# One build, no valgrind, no qemu, no package builds, no fuzzing: for the
# edit-compile-test loop.
check-quick: layers tests
	BUILDS="$(BUILD)" VALGRIND=0 CGFB_SKIP_QEMU=1 CGFB_SKIP_PACKAGES=1 CGFB_SKIP_FUZZ=1 \
	  sh tests/run.sh

run: $(PROGRAMS) $(SERVER)
	BUILD=$(BUILD) sh tools/run-local.sh

bench: $(PROGRAMS) $(SERVER)
	BUILD=$(BUILD) sh bench/run.sh

install: $(PROGRAMS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(LIBEXECDIR)
	install -m 0755 $(BUILD)/cgroup-feedback $(DESTDIR)$(BINDIR)/cgroup-feedback
	install -m 0755 $(WATCHER) $(DESTDIR)$(LIBEXECDIR)/cgroup-feedback-watch
	install -m 0755 $(REPORTER) $(DESTDIR)$(LIBEXECDIR)/cgroup-feedback-report
	install -m 0644 data/catalog.json $(DESTDIR)$(DATADIR)/catalog.json
	install -m 0644 docs/report.schema.json $(DESTDIR)$(DATADIR)/report.schema.json
	install -m 0644 data/allowlist.json $(DESTDIR)$(DATADIR)/allowlist.json

include packaging/packaging.mk
include fuzz/fuzz.mk

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
