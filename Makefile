# cgroup-feedback — top-level build.
#
#   make              build build/cgroup-feedback
#   make deps         install missing Debian 12 packages (as root) or print the command
#   make check        build and run every test (unit, integration, real kernel under qemu)
#   make check SANITIZE=1   the same with ASan + UBSan
#   make bench        benchmarks (not part of check)
#   make install PREFIX=/usr DESTDIR=...
#   make dist | deb | rpm   source tarball, Debian / RPM packages (packaging/packaging.mk)

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share/cgroup-feedback
MANDIR     ?= $(PREFIX)/share/man
DESTDIR    ?=
VERSION    := 0.1.0
VALGRIND   ?= 1

CC         ?= cc
PKG_CONFIG ?= pkg-config
BUILD      ?= build

CLIENT_PKGS := json-c libcrypto libcurl libudev libpcre2-8
TEST_PKGS   := cmocka
SERVER_PKGS := libmicrohttpd sqlite3 json-c libcrypto libssl libpcre2-8

WARN    := -Wall -Wextra -Wformat=2 -Wshadow -Wpointer-arith -Wstrict-prototypes \
           -Wmissing-prototypes -Wvla -Wno-unused-parameter
ifneq ($(WERROR),0)
WARN    += -Werror
endif
OPT     ?= -O2 -g
CFLAGS  ?=
CPPFLAGS += -D_GNU_SOURCE -Iinclude -Ilib -Iclient -I$(BUILD) \
            -DCGFB_VERSION='"$(VERSION)"' -DCGFB_DATADIR='"$(DATADIR)"'
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
CLIENT_SRC := $(filter-out client/cli/main.c,$(wildcard client/*/*.c))
LIB_OBJ    := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/catalog_blob.o $(BUILD)/schema_blob.o
CLIENT_BLOBS := $(BUILD)/allowlist_blob.o
CLIENT_OBJ := $(CLIENT_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TEST_TOOLS := $(BUILD)/tests/tools/validate-report
SERVER_SRC := $(wildcard server-stub/*.c)
SERVER_OBJ := $(SERVER_SRC:%.c=$(BUILD)/%.o) $(BUILD)/dash_html_blob.o \
              $(BUILD)/dash_js_blob.o $(BUILD)/dash_css_blob.o
SERVER     := $(BUILD)/cgroup-feedback-server

.PHONY: all deps tests layers check check-quick run bench install clean
all: $(BUILD)/cgroup-feedback $(SERVER)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

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

$(SERVER_OBJ): ALL_CFLAGS += $(shell $(PKG_CONFIG) --cflags $(SERVER_PKGS))
$(SERVER): $(SERVER_OBJ) $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --libs $(SERVER_PKGS)) -lpthread -lm

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h $(BUILD)/libcgfb.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) $(shell $(PKG_CONFIG) --cflags $(TEST_PKGS)) \
	  $< -o $@ $(LDFLAGS) $(BUILD)/libcgfb.a $(LIBS) $(shell $(PKG_CONFIG) --libs $(TEST_PKGS))

# Programs the integration tests run (the C side of the report checks).
$(BUILD)/tests/tools/%: tests/tools/%.c $(BUILD)/libcgfb.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $< -o $@ $(LDFLAGS) $(BUILD)/libcgfb.a $(LIBS)

deps:
	sh tools/deps.sh

tests: $(BUILD)/cgroup-feedback $(SERVER) $(UNIT_BIN) $(TEST_TOOLS)

# The whole suite runs twice: on the normal build (unit tests under
# valgrind too) and on the ASan+UBSan build. SANITIZE=1 runs only the latter.
# The layering rule of docs/ARCHITECTURE.md, first: a violation fails at once.
layers:
	sh tools/check-layers.sh

ifeq ($(SANITIZE),1)
check: layers tests
	BUILDS="$(BUILD)" sh tests/run.sh
else
check: layers tests
	$(MAKE) --no-print-directory SANITIZE=1 tests
	BUILDS="$(BUILD) build-san" VALGRIND=$(VALGRIND) sh tests/run.sh
endif

# One build, no valgrind, no qemu, no package builds: for the edit-compile-test loop.
check-quick: layers tests
	BUILDS="$(BUILD)" VALGRIND=0 CGFB_SKIP_QEMU=1 CGFB_SKIP_PACKAGES=1 sh tests/run.sh

run: $(BUILD)/cgroup-feedback $(SERVER)
	BUILD=$(BUILD) sh tools/run-local.sh

bench: $(BUILD)/cgroup-feedback $(SERVER)
	BUILD=$(BUILD) sh bench/run.sh

install: $(BUILD)/cgroup-feedback
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)
	install -m 0755 $(BUILD)/cgroup-feedback $(DESTDIR)$(BINDIR)/cgroup-feedback
	install -m 0644 data/catalog.json $(DESTDIR)$(DATADIR)/catalog.json
	install -m 0644 docs/report.schema.json $(DESTDIR)$(DATADIR)/report.schema.json
	install -m 0644 data/allowlist.json $(DESTDIR)$(DATADIR)/allowlist.json

include packaging/packaging.mk

clean:
	rm -rf build build-san

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
