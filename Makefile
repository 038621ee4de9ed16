# fanout: plain Makefile, dependencies found with pkg-config.
# `make demo` and `make test` install missing Debian -dev packages themselves (see `deps`).

CC      ?= cc
PKGS    := libfyaml libpcre2-8
DEB_PKGS := libfyaml-dev libfyaml-utils libpcre2-dev check pkg-config time
PKG_CONFIG ?= pkg-config

CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
CFLAGS  ?= -O2 -g
DEPCFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
DEPLIBS   = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lm
CHECKCFLAGS = $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECKLIBS   = $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

SRC     := $(filter-out src/main.c,$(wildcard src/*.c))
HDR     := $(wildcard include/fanout/*.h)
TESTSRC := $(wildcard test/unit/*.c)

BUILD   := build
ASAN    := build-asan
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

PREFIX ?= /usr/local

.PHONY: all deps demo test unit e2e conformance asan bench clean install

all: $(BUILD)/fanout

# Installs what pkg-config cannot find. Runs apt-get only when something is missing,
# so it is a no-op on a prepared machine and needs root (or sudo) only the first time.
deps:
	@if ! command -v $(PKG_CONFIG) >/dev/null 2>&1 || \
	    ! $(PKG_CONFIG) --exists $(PKGS) check || ! command -v fy-tool >/dev/null 2>&1 || [ ! -x /usr/bin/time ]; then \
	  echo "deps: installing $(DEB_PKGS)"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $(DEB_PKGS) >/dev/null; \
	fi
	@$(PKG_CONFIG) --exists $(PKGS) check || { echo "deps: $(PKGS) check still missing" >&2; exit 2; }

$(BUILD) $(ASAN):
	mkdir -p $@

$(BUILD)/%.o: src/%.c $(HDR) | $(BUILD)
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude $(DEPCFLAGS) -c $< -o $@

$(ASAN)/%.o: src/%.c $(HDR) | $(ASAN)
	$(CC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude $(DEPCFLAGS) -c $< -o $@

SCHEMAS  := $(wildcard schemas/*.json)
OBJ      := $(patsubst src/%.c,$(BUILD)/%.o,$(SRC)) $(BUILD)/bundled.o
ASAN_OBJ := $(patsubst src/%.c,$(ASAN)/%.o,$(SRC)) $(ASAN)/bundled.o

# schemas/*.json compiled into the binary.
$(BUILD)/bundled.c: $(SCHEMAS) tools/embed.sh | $(BUILD)
	sh tools/embed.sh $(SCHEMAS) > $@

$(BUILD)/bundled.o: $(BUILD)/bundled.c include/fanout/bundled.h
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude -c $< -o $@

$(ASAN)/bundled.o: $(BUILD)/bundled.c include/fanout/bundled.h | $(ASAN)
	$(CC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude -c $< -o $@

$(BUILD)/fanout: $(OBJ) $(BUILD)/main.o
	$(CC) $(CFLAGS) -o $@ $^ $(DEPLIBS)

$(ASAN)/fanout: $(ASAN_OBJ) $(ASAN)/main.o
	$(CC) $(SANFLAGS) -o $@ $^ $(DEPLIBS)

$(BUILD)/unit: $(TESTSRC) $(OBJ) $(HDR) test/unit/unit.h
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude -Itest/unit $(DEPCFLAGS) $(CHECKCFLAGS) -o $@ $(TESTSRC) $(OBJ) $(DEPLIBS) $(CHECKLIBS)

$(ASAN)/unit: $(TESTSRC) $(ASAN_OBJ) $(HDR) test/unit/unit.h
	$(CC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude -Itest/unit $(DEPCFLAGS) $(CHECKCFLAGS) -o $@ $(TESTSRC) $(ASAN_OBJ) $(DEPLIBS) $(CHECKLIBS)

$(BUILD)/schema-suite: test/conformance/schema_suite.c $(OBJ) $(HDR)
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude $(DEPCFLAGS) -o $@ $< $(OBJ) $(DEPLIBS)

$(ASAN)/schema-suite: test/conformance/schema_suite.c $(ASAN_OBJ) $(HDR)
	$(CC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude $(DEPCFLAGS) -o $@ $< $(ASAN_OBJ) $(DEPLIBS)

SUITE := ../shared/corpus/json-schema-test-suite/tests/draft7

demo: deps $(BUILD)/fanout
	@echo "== fanout render fixtures/demo/pipeline.yml"
	@cat fixtures/demo/pipeline.yml
	@echo "== rendered:"
	@$(BUILD)/fanout render fixtures/demo/pipeline.yml

# The whole suite: unit tests and end-to-end tests, then both again under ASan+UBSan.
test: deps
	@$(MAKE) --no-print-directory unit e2e conformance
	@$(MAKE) --no-print-directory asan

unit: $(BUILD)/unit
	CK_DEFAULT_TIMEOUT=30 ./$(BUILD)/unit

e2e: $(BUILD)/fanout
	FANOUT=$(BUILD)/fanout sh test/e2e.sh

# The official JSON Schema test suite (draft7), against the validator.
conformance: $(BUILD)/schema-suite
	./$(BUILD)/schema-suite $(SUITE)

asan: $(ASAN)/unit $(ASAN)/fanout $(ASAN)/schema-suite
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=test/lsan.supp CK_DEFAULT_TIMEOUT=60 ./$(ASAN)/unit
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=test/lsan.supp FANOUT=$(ASAN)/fanout sh test/e2e.sh
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=test/lsan.supp ./$(ASAN)/schema-suite $(SUITE) | tail -n 1

bench: deps $(BUILD)/fanout
	sh bench/bench.sh

# fanout on PATH (the pre-commit hooks need it) and its man page.
install: $(BUILD)/fanout
	install -D -m 755 $(BUILD)/fanout $(DESTDIR)$(PREFIX)/bin/fanout
	install -D -m 644 docs/fanout.1 $(DESTDIR)$(PREFIX)/share/man/man1/fanout.1

clean:
	rm -rf $(BUILD) $(ASAN)
