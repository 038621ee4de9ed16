# fanout: plain Makefile, dependencies found with pkg-config.
# `make demo` and `make test` install missing Debian -dev packages themselves (see `deps`).

CC      ?= cc
PKGS    := libfyaml libpcre2-8 libcrypto
# libcrypto (OpenSSL) for the SHA-256 and MD5 the shard runners hash node ids with;
# libxml2's headers for the JUnit XML reports `diff --durations` reads (a maintained
# parser, not one of our own: XML's entities, encodings and CDATA are its business),
# loaded when one is read (pipediff_junit.c: linked, it doubled the start-up);
# python3 for the tests that check shard assignments against hashlib; zsh for the test of
# the zsh completion; pre-commit for the test of the hooks with a real pre-commit.
# What building fanout needs (all the Action installs), and what the tests add.
BUILD_DEB_PKGS := libfyaml-dev libpcre2-dev libssl-dev libxml2-dev pkg-config
DEB_PKGS := $(BUILD_DEB_PKGS) libfyaml-utils check time valgrind python3 zsh pre-commit
PKG_CONFIG ?= pkg-config

CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
CFLAGS  ?= -O2 -g
XML_PKG := libxml-2.0
DEPCFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) $(XML_PKG) 2>/dev/null)
# libfyaml, PCRE2 and libcrypto are linked statically when their -dev packages ship the
# archives (Debian's do): a small render spent a tenth of its time in the dynamic loader.
DEPLIBDIR = $(shell $(PKG_CONFIG) --variable=libdir libfyaml 2>/dev/null)
DEPLIBS   = $(if $(and $(wildcard $(DEPLIBDIR)/libfyaml.a),$(wildcard $(DEPLIBDIR)/libpcre2-8.a),$(wildcard $(DEPLIBDIR)/libcrypto.a)),\
              -Xlinker -Bstatic -lfyaml -lpcre2-8 -lcrypto -Xlinker -Bdynamic,\
              $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)) -lm
CHECKCFLAGS = $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECKLIBS   = $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

# One folder per layer (docs/design.md); every module is src/<layer>/<module>.c, a
# dialect's src/dialect/<dialect>/<module>.c (its private headers beside it).
SRC     := $(filter-out src/cmd/main.c,$(wildcard src/*/*.c src/*/*/*.c))
HDR     := $(wildcard include/fanout/*.h include/fanout/*.def src/*/*.h src/*/*/*.h)
TESTSRC := $(wildcard test/unit/*.c) test/blocktext_oracle.c test/quotedtext_oracle.c test/yaml_events.c

BUILD   := build
ASAN    := build-asan
# The ASan+UBSan build is clang's: its UBSan also checks arithmetic on a null pointer
# (`NULL + 0`), which gcc 12's does not (a bug of ours only the clang-built fuzzers found,
# stop 53), and its warnings gate the tree beside gcc's of the release build.
# `make test SANCC=gcc` builds it with gcc where clang cannot be had.
SANCC   ?= clang
SANDEPS := $(if $(findstring clang,$(SANCC)),clang-deps)
FUZZ_TARGETS := render schema diff expr shards shardflags gha buildkite config glob change conditional durations blocktext quotedtext
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

PREFIX ?= /usr/local

.PHONY: FORCE all deps build-deps demo test layers unit e2e conformance hostile asan bench bench-instr clean install fuzz clang-deps

all: $(BUILD)/fanout

# Installs what pkg-config cannot find. Runs apt-get only when something is missing,
# so it is a no-op on a prepared machine and needs root (or sudo) only the first time.
# apt-get installs the packages $(1) unless the shell test $(2) passes (sudo unless root).
define apt_install
	@if ! { $(2); }; then \
	  echo "deps: installing $(1)"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $(1) >/dev/null; \
	fi
endef

deps:
	$(call apt_install,$(DEB_PKGS),command -v $(PKG_CONFIG) >/dev/null 2>&1 && \
	    $(PKG_CONFIG) --exists $(PKGS) $(XML_PKG) check && command -v fy-tool >/dev/null 2>&1 && [ -x /usr/bin/time ] && \
	    command -v valgrind >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 && \
	    command -v zsh >/dev/null 2>&1 && command -v pre-commit >/dev/null 2>&1)
	@$(PKG_CONFIG) --exists $(PKGS) $(XML_PKG) check || { echo "deps: $(PKGS) $(XML_PKG) check still missing" >&2; exit 2; }

# clang with its sanitizer and libFuzzer runtimes, for the ASan build (when SANCC is
# clang) and `make fuzz`: a libFuzzer target links only when all are there.
CLANG_PROBE = echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' | \
              $(FUZZCC) -x c -fsanitize=fuzzer,address,undefined -o /dev/null - >/dev/null 2>&1
clang-deps:
	$(call apt_install,clang libclang-rt-14-dev,$(CLANG_PROBE))
	@$(CLANG_PROBE) || { echo "clang-deps: $(FUZZCC) cannot build a sanitized libFuzzer target" >&2; exit 2; }

# Only what building fanout needs (the GitHub Action's set-up).
build-deps:
	$(call apt_install,$(BUILD_DEB_PKGS),command -v $(PKG_CONFIG) >/dev/null 2>&1 && $(PKG_CONFIG) --exists $(PKGS) $(XML_PKG))
	@$(PKG_CONFIG) --exists $(PKGS) $(XML_PKG) || { echo "build-deps: $(PKGS) $(XML_PKG) still missing" >&2; exit 2; }

$(BUILD) $(ASAN):
	mkdir -p $@

$(BUILD)/%.o: src/%.c $(HDR) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude $(DEPCFLAGS) -c $< -o $@

$(ASAN)/%.o: src/%.c $(HDR) | $(ASAN) $(SANDEPS)
	@mkdir -p $(dir $@)
	$(SANCC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude $(DEPCFLAGS) -c $< -o $@

SCHEMAS  := $(wildcard schemas/*.json)
OBJ      := $(patsubst src/%.c,$(BUILD)/%.o,$(SRC)) $(BUILD)/bundled.o $(BUILD)/tmplbundled.o $(BUILD)/version.o
ASAN_OBJ := $(patsubst src/%.c,$(ASAN)/%.o,$(SRC)) $(ASAN)/bundled.o $(ASAN)/tmplbundled.o $(ASAN)/version.o

# schemas/*.json compiled into the binary as trees, read at build time by tools/embed.c
# with fanout's own reader (so no schema is parsed at run time).
EMBED_OBJ := $(patsubst %,$(BUILD)/%.o,yaml/source yaml/stream yaml/blocktext yaml/quotedtext yaml/ynode yaml/yscalar base/diag base/diag_sarif base/rules base/suggest base/output base/strset base/strhash base/scratch)
$(BUILD)/embed: tools/embed.c tools/literal.h $(EMBED_OBJ)
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude -o $@ $< $(EMBED_OBJ) $(DEPLIBS)

$(BUILD)/bundled.c: $(SCHEMAS) $(BUILD)/embed
	$(BUILD)/embed $(SCHEMAS) > $@.tmp && mv $@.tmp $@

$(BUILD)/bundled.o: $(BUILD)/bundled.c include/fanout/bundled.h
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude -c $< -o $@

$(ASAN)/bundled.o: $(BUILD)/bundled.c include/fanout/bundled.h | $(ASAN) $(SANDEPS)
	$(SANCC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude -c $< -o $@

# The bundled template schemas (github-workflow-v1) compiled at build time by
# tools/tmplembed.c with fanout's own compiler, as tables (none is compiled at run time).
TMPLEMBED_OBJ := $(EMBED_OBJ) $(BUILD)/schema/tmplschema_read.o $(BUILD)/schema/tmplschema_contexts.o \
                 $(BUILD)/bundled.o
$(BUILD)/tmplembed: tools/tmplembed.c tools/literal.h $(TMPLEMBED_OBJ) src/schema/tmplschema_internal.h
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude -Isrc -o $@ $< $(TMPLEMBED_OBJ) $(DEPLIBS)

$(BUILD)/tmplbundled.c: $(BUILD)/tmplembed
	$(BUILD)/tmplembed $(basename $(notdir $(SCHEMAS))) > $@.tmp && mv $@.tmp $@

$(BUILD)/tmplbundled.o: $(BUILD)/tmplbundled.c src/schema/tmplschema_internal.h
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude -Isrc -c $< -o $@

$(ASAN)/tmplbundled.o: $(BUILD)/tmplbundled.c src/schema/tmplschema_internal.h | $(ASAN) $(SANDEPS)
	$(SANCC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude -Isrc -c $< -o $@

# `fanout --version`: `git describe` of the checkout (v0.2.0, v0.2.0-3-gabc1234, with
# -dirty when changed), else RELEASE (a tree without git). version.c is rewritten only
# when the version changes, so that nothing else is rebuilt.
RELEASE := 0.2.0
VERSION = $(or $(patsubst v%,%,$(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null)),$(RELEASE))

$(BUILD)/version.c: FORCE | $(BUILD)
	@printf 'const char fanout_version[] = "%s";\n' '$(VERSION)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

FORCE:

$(BUILD)/version.o: $(BUILD)/version.c
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -c $< -o $@

$(ASAN)/version.o: $(BUILD)/version.c | $(ASAN) $(SANDEPS)
	$(SANCC) $(CSTD) $(WARN) $(SANFLAGS) -c $< -o $@

# Not position-independent: as a PIE its 38,000 relocations (the bundled schemas are
# trees of pointers) were written at every start, 200 page faults and 5 of a 9 ms start.
$(BUILD)/fanout: $(OBJ) $(BUILD)/cmd/main.o
	$(CC) $(CFLAGS) -no-pie -o $@ $^ $(DEPLIBS)

$(ASAN)/fanout: $(ASAN_OBJ) $(ASAN)/cmd/main.o
	$(SANCC) $(SANFLAGS) -o $@ $^ $(DEPLIBS)

# --wrap: the unit tests make an allocation or a JIT compile fail (test_schema.c's __wrap_*)
$(BUILD)/unit: $(TESTSRC) $(OBJ) $(HDR) test/unit/unit.h
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude -Isrc -Itest/unit $(DEPCFLAGS) $(CHECKCFLAGS) -o $@ $(TESTSRC) $(OBJ) $(DEPLIBS) $(CHECKLIBS) -Wl,--wrap=calloc,--wrap=realloc,--wrap=scratch_file,--wrap=pcre2_jit_compile_8

$(ASAN)/unit: $(TESTSRC) $(ASAN_OBJ) $(HDR) test/unit/unit.h
	$(SANCC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude -Isrc -Itest/unit $(DEPCFLAGS) $(CHECKCFLAGS) -o $@ $(TESTSRC) $(ASAN_OBJ) $(DEPLIBS) $(CHECKLIBS) -Wl,--wrap=calloc,--wrap=realloc,--wrap=scratch_file,--wrap=pcre2_jit_compile_8

$(BUILD)/schema-suite: test/conformance/schema_suite.c $(OBJ) $(HDR)
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude $(DEPCFLAGS) -o $@ $< $(OBJ) $(DEPLIBS)

$(ASAN)/schema-suite: test/conformance/schema_suite.c $(ASAN_OBJ) $(HDR)
	$(SANCC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude $(DEPCFLAGS) -o $@ $< $(ASAN_OBJ) $(DEPLIBS)

$(BUILD)/expr-driver: test/conformance/expr_driver.c $(OBJ) $(HDR) src/expr/expr_internal.h
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude $(DEPCFLAGS) -o $@ $< $(OBJ) $(DEPLIBS)

$(BUILD)/glob-driver: test/conformance/glob_driver.c $(OBJ) $(HDR)
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Iinclude $(DEPCFLAGS) -o $@ $< $(OBJ) $(DEPLIBS)

$(ASAN)/expr-driver: test/conformance/expr_driver.c $(ASAN_OBJ) $(HDR) src/expr/expr_internal.h
	$(SANCC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude $(DEPCFLAGS) -o $@ $< $(ASAN_OBJ) $(DEPLIBS)

SUITE := ../shared/corpus/json-schema-test-suite/tests/draft7

demo: deps $(BUILD)/fanout
	@echo "== fanout render fixtures/demo/pipeline.yml"
	@cat fixtures/demo/pipeline.yml
	@echo "== rendered:"
	@$(BUILD)/fanout render fixtures/demo/pipeline.yml

# The whole suite: the layer check, unit, end-to-end, conformance and hostile-input
# tests, then all again under ASan+UBSan with the fuzzers' regressions. On CI (CI set)
# also the instruction budget and a short run of every fuzz target, so that no harness
# rots.
test: deps
	@$(MAKE) --no-print-directory layers unit e2e conformance hostile
	@$(MAKE) --no-print-directory asan
	@if [ -n "$${CI:-}" ]; then $(MAKE) --no-print-directory bench-instr fuzz FUZZ_SECONDS=$${FUZZ_SMOKE_SECONDS:-20} FUZZ_SEED=1; fi

# Every include an edge tools/layers.txt allows, no include cycle, docs/design.md's
# module table true to the tree (tools/layers.sh).
layers:
	sh tools/layers.sh

unit: $(BUILD)/unit
	CK_DEFAULT_TIMEOUT=30 ./$(BUILD)/unit

e2e: $(BUILD)/fanout
	FANOUT=$(BUILD)/fanout sh test/e2e.sh

# The official JSON Schema test suite (draft7), against the validator; the expression
# engine against GitHub's own evaluator (@actions/expressions from npm), `validate`
# against GitHub's workflow parser (@actions/workflow-parser; its hand-made cases run
# without node, the rest is skipped, with a message, without node) and `render`'s matrix
# jobs against a transcription of GitHub's MatrixBuilder (skipped without node), and the
# picomatch glob dialect against picomatch from npm (skipped without node), and test-area
# steps against vLLM's generator's own step model (skipped without CI_INFRA, a ci-infra
# checkout, and Python's PyYAML and pydantic 2, which Debian does not package), and
# Buildkite pipelines' keys and values as buildkite/go-pipeline's own ordered package
# reads them (skipped without GO_PIPELINE, a go-pipeline checkout, and Go with Debian's
# golang-gopkg-yaml.v3-dev and golang-github-google-go-cmp-dev).
conformance: $(BUILD)/schema-suite $(BUILD)/expr-driver $(BUILD)/glob-driver $(BUILD)/fanout
	./$(BUILD)/schema-suite $(SUITE)
	sh test/conformance/expr.sh ./$(BUILD)/expr-driver
	sh test/conformance/glob.sh ./$(BUILD)/glob-driver
	sh test/conformance/workflow.sh ./$(BUILD)/fanout
	sh test/conformance/matrix.sh ./$(BUILD)/fanout
	sh test/conformance/testarea.sh ./$(BUILD)/fanout
	sh test/conformance/bkread.sh ./$(BUILD)/fanout

# Every case of test/hostile/cases.tsv, each process within 10 s of CPU time (40 s under
# ASan, which runs a case 2-8 times slower) and the case within five times that in wall
# time (a hang). CPU time, so that a busy machine passes (its page faults wait on the
# neighbours); keep a margin of 5x: the slowest case takes 1.0 s of CPU in release and
# 2.3 s under ASan.
hostile: $(BUILD)/fanout
	FANOUT=$(BUILD)/fanout sh test/hostile/run.sh

# The suppressions by an absolute path: clang's runtime looks for a relative one from the
# process's directory, and e2e cases run fanout from their fixtures'.
SANENV := ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/test/lsan.supp

asan: $(ASAN)/unit $(ASAN)/fanout $(ASAN)/schema-suite $(ASAN)/expr-driver $(patsubst %,$(ASAN)/replay-%,$(FUZZ_TARGETS))
	$(SANENV) CK_DEFAULT_TIMEOUT=60 ./$(ASAN)/unit
	$(SANENV) FANOUT=$(ASAN)/fanout sh test/e2e.sh
	$(SANENV) ./$(ASAN)/schema-suite $(SUITE) | tail -n 1
	$(SANENV) sh test/conformance/expr.sh ./$(ASAN)/expr-driver
	$(SANENV) sh test/conformance/workflow.sh ./$(ASAN)/fanout
	$(SANENV) HOSTILE_SECONDS=40 FANOUT=$(ASAN)/fanout sh test/hostile/run.sh
	@for t in $(FUZZ_TARGETS); do \
	  set -- test/fuzz/regressions/$$t/*; [ -e "$$1" ] || continue; \
	  printf 'fuzz regressions %s: ' $$t; \
	  ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 LSAN_OPTIONS=suppressions=$(CURDIR)/test/lsan.supp \
	    timeout -k 10 300 ./$(ASAN)/replay-$$t "$$@" || exit 1; \
	done

# ---- fuzzing (clang's libFuzzer) ----
# `make fuzz` builds one libFuzzer binary per target under build-fuzz/ and runs each for
# FUZZ_SECONDS on a corpus seeded from fixtures/ and ../shared/corpus. Inputs that crash,
# leak or time out are written to test/fuzz/regressions/<target>/, where `make test`
# replays them (replay.c, built as the ASan build is, with SANCC). FUZZ_SEED fixes
# libFuzzer's random seed: CI's smoke run uses one, so that a gate is reproducible (a
# slower machine runs a prefix of the same inputs); `make fuzz` alone explores anew.
# Inputs are at most 64 KiB, render's 192 KiB: past 64 KiB the source reads in chunks.
FUZZ := build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_SEED ?=
FUZZCC ?= clang
FUZZFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_OBJ := $(patsubst src/%.c,$(FUZZ)/%.o,$(SRC)) $(FUZZ)/bundled.o $(FUZZ)/tmplbundled.o $(FUZZ)/version.o
FUZZ_SHARED := test/fuzz/fuzz_common.c test/fuzz/fuzz_oracle.c test/fuzz/fuzz_mutate.c test/blocktext_oracle.c test/quotedtext_oracle.c test/yaml_events.c
FUZZ_COMMON := $(FUZZ_SHARED) test/fuzz/fuzz.h

$(FUZZ):
	mkdir -p $@

.SECONDARY: $(FUZZ_OBJ)

$(FUZZ)/%.o: src/%.c $(HDR) | $(FUZZ)
	@mkdir -p $(dir $@)
	$(FUZZCC) $(CSTD) $(WARN) $(FUZZFLAGS) -fsanitize=fuzzer-no-link -Iinclude $(DEPCFLAGS) -c $< -o $@

$(FUZZ)/bundled.o: $(BUILD)/bundled.c include/fanout/bundled.h | $(FUZZ)
	$(FUZZCC) $(CSTD) $(WARN) $(FUZZFLAGS) -Iinclude -c $< -o $@

$(FUZZ)/tmplbundled.o: $(BUILD)/tmplbundled.c src/schema/tmplschema_internal.h | $(FUZZ)
	$(FUZZCC) $(CSTD) $(WARN) $(FUZZFLAGS) -Iinclude -Isrc -c $< -o $@

$(FUZZ)/version.o: $(BUILD)/version.c | $(FUZZ)
	$(FUZZCC) $(CSTD) $(WARN) $(FUZZFLAGS) -c $< -o $@

$(FUZZ)/fuzz-%: test/fuzz/fuzz_%.c $(FUZZ_COMMON) $(FUZZ_OBJ)
	$(FUZZCC) $(CSTD) $(WARN) $(FUZZFLAGS) -fsanitize=fuzzer -DFUZZ_LIBFUZZER -Iinclude $(DEPCFLAGS) -o $@ $< $(FUZZ_SHARED) $(FUZZ_OBJ) $(DEPLIBS)

$(ASAN)/replay-%: test/fuzz/fuzz_%.c test/fuzz/replay.c $(FUZZ_COMMON) $(ASAN_OBJ)
	$(SANCC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude $(DEPCFLAGS) -o $@ $< test/fuzz/replay.c $(FUZZ_SHARED) $(ASAN_OBJ) $(DEPLIBS)

fuzz: deps clang-deps
	@$(MAKE) --no-print-directory $(patsubst %,$(FUZZ)/fuzz-%,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p test/fuzz/regressions/$$t $(FUZZ)/corpus-$$t; \
	  [ -n "$$(ls $(FUZZ)/corpus-$$t)" ] || sh test/fuzz/seed.sh $$t $(FUZZ)/corpus-$$t; \
	  echo "== fuzz $$t for $(FUZZ_SECONDS) s"; \
	  $(SANENV) FUZZ_ARTIFACT_PREFIX=test/fuzz/regressions/$$t/ timeout -k 10 $$(( $(FUZZ_SECONDS) * 2 + 120 )) \
	    ./$(FUZZ)/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -max_len=$$(case $$t in render) echo 196608 ;; *) echo 65536 ;; esac) $(if $(FUZZ_SEED),-seed=$(FUZZ_SEED)) -print_final_stats=1 -artifact_prefix=test/fuzz/regressions/$$t/ \
	    $(FUZZ)/corpus-$$t </dev/null 2>$(FUZZ)/log-$$t || { rc=$$?; tail -n 40 $(FUZZ)/log-$$t; \
	    [ $$rc -lt 124 ] || echo "fuzz: $$t did not end within $$(( $(FUZZ_SECONDS) * 2 + 120 )) s"; exit 1; }; \
	  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)' $(FUZZ)/log-$$t; \
	done

bench: deps $(BUILD)/fanout $(BUILD)/expr-driver
	sh bench/bench.sh

# Instruction counts (callgrind) against bench/instr-budget.txt: fails 5% over budget.
bench-instr: deps $(BUILD)/fanout
	sh bench/instr.sh

# fanout on PATH (the pre-commit hooks need it), its man page, the reference and the
# other docs (DOCDIR), and the bash and zsh completions (completions/).
DOCDIR ?= $(PREFIX)/share/doc/fanout

install: $(BUILD)/fanout
	install -D -m 755 $(BUILD)/fanout $(DESTDIR)$(PREFIX)/bin/fanout
	install -D -m 644 docs/fanout.1 $(DESTDIR)$(PREFIX)/share/man/man1/fanout.1
	install -d $(DESTDIR)$(DOCDIR)
	install -m 644 docs/*.md docs/*.json $(DESTDIR)$(DOCDIR)/
	install -D -m 644 completions/fanout.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/fanout
	install -D -m 644 completions/_fanout $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_fanout

clean:
	rm -rf $(BUILD) $(ASAN) $(FUZZ)
