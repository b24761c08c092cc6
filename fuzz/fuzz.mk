# Fuzzing: one libFuzzer target per parser of untrusted bytes (fuzz/*.c;
# docs/FUZZING.md says what each covers and how to run a campaign).
# Built with clang into build-fuzz/ by a make of its own (BUILD=build-fuzz):
# every object instrumented for coverage and checked by ASan and UBSan.
# Warnings are not errors there: gcc's build (make tests) is the gate, and
# clang warns about some things gcc does not.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_JOBS=1] [FUZZ_TARGETS="scan canon"]
#                      build, then run each target for FUZZ_SECONDS on its
#                      working corpus build-fuzz/corpus/<target>
#   make fuzz-build    the targets only; says so and does nothing when clang
#                      or its libFuzzer (libclang-rt-dev) is missing
#   make fuzz-smoke    each target a few seconds from its seed corpus, as TAP
#                      (tests/run.sh runs this in make check)
#   make fuzz-merge    fold what campaigns found into the seed corpus fuzz/corpus
#   make fuzz-dicts    regenerate fuzz/dict/ from the catalog and the schema
#   make fuzz-corpus   regenerate the seed corpus from tests/data and test reports

FUZZ_BUILD   := build-fuzz
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 1
FUZZ_ALL     := $(sort $(basename $(notdir $(wildcard fuzz/*.c))))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_NOWARN  := -Wno-missing-field-initializers -Wno-bitwise-instead-of-logical

.PHONY: fuzz fuzz-build fuzz-targets fuzz-smoke fuzz-merge fuzz-dicts fuzz-corpus

fuzz-build:
	@if sh fuzz/have-libfuzzer.sh "$(FUZZ_CC)"; then \
	  $(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) SANITIZE= WERROR=0 CC="$(FUZZ_CC)" \
	    OPT="-O1 -g -fno-omit-frame-pointer" \
	    CFLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN) $(FUZZ_NOWARN)" \
	    LDFLAGS="-fsanitize=fuzzer $(FUZZ_SAN)" fuzz-targets; \
	else \
	  echo "fuzz: $(FUZZ_CC) cannot link a libFuzzer target (Debian: apt-get install clang libclang-rt-dev); not built"; \
	fi

fuzz: fuzz-build
	sh fuzz/run.sh campaign $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	sh fuzz/run.sh smoke

fuzz-merge: fuzz-build
	sh fuzz/run.sh merge $(FUZZ_TARGETS)

fuzz-dicts:
	python3 fuzz/tools/gen-dicts.py

fuzz-corpus: tests
	sh fuzz/tools/mkcorpus.sh $(BUILD)

# From here on, what the make of its own builds (BUILD is build-fuzz there).
FUZZ_LIBS = $(LIBS) $(shell $(PKG_CONFIG) --libs $(SERVER_PKGS)) -lpthread -lm

fuzz-targets: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)

# The collector's objects but main.o, as the test_srv_* tests link them.
$(BUILD)/libsrv.a: $(SERVER_TEST_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/fuzz/%: fuzz/%.c fuzz/fuzz.h $(BUILD)/libsrv.a $(BUILD)/libcgfb.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CLIENT_CPPFLAGS) -Iserver-stub -Ifuzz $(ALL_CFLAGS) \
	  $(shell $(PKG_CONFIG) --cflags $(SERVER_PKGS)) -fsanitize=fuzzer -MMD -MP \
	  $< -o $@ $(LDFLAGS) $(BUILD)/libsrv.a $(BUILD)/libcgfb.a $(FUZZ_LIBS)
