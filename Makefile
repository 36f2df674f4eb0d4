# mpiwatch — one top-level Makefile.  Each part of the tree adds its own
# targets in <dir>/build.mk; this file holds the common flags and rules.
#
#   make            build everything into build/
#   make check      unit tests (Check)
#   make check-asan the unit tests and quick standalone tests built with ASan+UBSan (build-asan/)
#   make test       deps + build + unit tests (plain and under valgrind) + fuzz smoke
#                   + integration tests on the Slurm lab
#   make demo       the detection demo on this one machine
#   make install    honours DESTDIR and PREFIX (etc/build.mk); make uninstall

VERSION   := 0.1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
BINDIR    ?= $(PREFIX)/bin
SBINDIR   ?= $(PREFIX)/sbin
LIBDIR    ?= $(PREFIX)/lib/mpiwatch
MANDIR    ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
UNITDIR   ?= /lib/systemd/system

B         := build
CC        ?= gcc
# Debian's python3 (build-time generators), not whatever python3 PATH finds first.
PYTHON3   ?= /usr/bin/python3
WERROR    ?= -Werror
WARN      := -Wall -Wextra -Wmissing-prototypes -Wshadow $(WERROR)
HARDEN    := -D_FORTIFY_SOURCE=2 -fstack-protector-strong
OPT       ?= -O2 -g
CPPFLAGS  += -Ishared $(UV_CFLAGS) -DMW_VERSION='"$(VERSION)"' -D_GNU_SOURCE
CFLAGS    += -std=gnu11 $(OPT) -fPIC $(WARN) $(HARDEN) -MMD -MP
LDFLAGS   += -Wl,-z,relro,-z,now -Wl,--as-needed
# Sanitizer flags for every object and link (make check-asan sets them, with
# B=$(ASAN_B), never in build/).
SANITIZE  ?=
CFLAGS    += $(SANITIZE)
LDFLAGS   += $(SANITIZE)
JSON_CFLAGS := $(shell pkg-config --cflags json-c 2>/dev/null)
JSON_LIBS   := $(shell pkg-config --libs json-c 2>/dev/null)
CURL_LIBS   := $(shell pkg-config --libs libcurl 2>/dev/null)
# The link's authentication (shared/auth.c): MUNGE, and nettle's HMAC-SHA256 for the
# one-machine token proofs (shared/hmac.c).
MUNGE_LIBS  := $(shell pkg-config --libs munge 2>/dev/null || echo -lmunge) $(shell pkg-config --libs nettle 2>/dev/null || echo -lnettle)
DW_LIBS     := $(shell pkg-config --libs libdw 2>/dev/null || echo -ldw -lelf)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS  := $(shell pkg-config --libs check 2>/dev/null)
# libuv (Debian's libuv1-dev): the daemons' event loop (issue 31).
UV_CFLAGS   := $(shell pkg-config --cflags libuv 2>/dev/null)
UV_LIBS     := $(shell pkg-config --libs libuv 2>/dev/null || echo -luv)

# Filled in by the build.mk fragments.  Each module's build.mk declares its
# own unit tests (t/unit/test_<name>.c -> $(B)/t/test_<name>) and fuzz targets
# (fuzz/fuzz_<name>.c -> $(B)/fuzz/fuzz_<name>), with what they link.
BINS       :=
LIBS       :=
UNIT_TESTS :=
FUZZERS    :=
MANS       :=
CLEAN      :=

.PHONY: check-valgrind check-asan asan-build asan-run progs all check test deps install uninstall clean demo demo-cluster fuzz-smoke integration lab-start lab-stop
all: build-all

include shared/build.mk
include $(filter-out shared/build.mk,$(wildcard */build.mk))
include t/progs/build.mk
include t/tools/build.mk

# A test or fuzz target no build.mk declares would silently never run.
MW_UNDECLARED := $(filter-out $(UNIT_TESTS) $(FUZZERS), \
	$(patsubst t/unit/%.c,$(B)/t/%,$(wildcard t/unit/test_*.c)) \
	$(patsubst fuzz/%.c,$(B)/fuzz/%,$(wildcard fuzz/fuzz_*.c)))
$(if $(MW_UNDECLARED),$(error declared by no build.mk: $(MW_UNDECLARED)))

# Unit tests, with Check.  A module adds the objects and libraries a test
# needs as prerequisites ($(B)/t/test_foo: $(B)/obj/foo/bar.o) and other
# libraries in UNIT_LIBS_test_foo; every test links SHARED_LIB.
$(B)/t/%: t/unit/%.c $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(JSON_CFLAGS) $(CHECK_CFLAGS) -It/unit -o $@ \
	  $(filter %.c %.o,$^) $(filter-out $(SHARED_LIB),$(filter %.a,$^)) $(SHARED_LIB) \
	  $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) $(UNIT_LIBS_$*) -lpthread -lm

# Fuzz targets, built with clang's libFuzzer and ASan/UBSan from the shared
# sources and the module's FUZZ_EXTRA_fuzz_<name> (sources and flags).  The
# shared sources are compiled once for all targets ($(B)/obj/fuzz-shared/,
# the same flags, coverage-instrumented: fuzzer-no-link), not once per target.
FUZZ_CC   ?= clang
FUZZ_FLAGS := -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_SHARED_OBJS := $(patsubst %.c,$(B)/obj/fuzz-shared/%.o,$(SHARED_SRCS))
$(B)/obj/fuzz-shared/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(CPPFLAGS) $(JSON_CFLAGS) -Wall -Wextra -MMD -MP -c -o $@ $<
$(B)/fuzz/%: fuzz/%.c $(FUZZ_SHARED_OBJS)
	@mkdir -p $(dir $@) $(B)/fuzz-corpus/$*
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer \
	  $(CPPFLAGS) $(JSON_CFLAGS) -Wall -Wextra -o $@ $< $(FUZZ_SHARED_OBJS) $(FUZZ_EXTRA_$*) $(JSON_LIBS) $(MUNGE_LIBS) $(UV_LIBS) -lpthread -lm

build-all: $(BINS) $(LIBS) $(PROGS) $(LAB_TOOLS)
build-install: $(BINS) $(LIBS)

# Generic object rule: build/obj/<dir>/<file>.o from <dir>/<file>.c
$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(JSON_CFLAGS) -c -o $@ $<

check: $(UNIT_TESTS) $(PROGS)
	@set -e; fail=0; for t in $(sort $(UNIT_TESTS)); do \
	  echo "== $$t"; CK_FORK=yes ./$$t || fail=1; done; \
	  test $$fail -eq 0 || { echo "unit tests FAILED"; exit 1; }

# The unit tests again under valgrind (memory errors and definite leaks fail).
check-valgrind: $(UNIT_TESTS)
	@set -e; fail=0; for t in $(sort $(UNIT_TESTS)); do \
	  echo "== valgrind $$t"; \
	  CK_FORK=no valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	    --show-leak-kinds=definite ./$$t > $(B)/valgrind-$$(basename $$t).log 2>&1 \
	    || { tail -n 40 $(B)/valgrind-$$(basename $$t).log; fail=1; }; \
	  tail -n 1 $(B)/valgrind-$$(basename $$t).log; done; \
	  test $$fail -eq 0 || { echo "valgrind run FAILED"; exit 1; }

# Everything again with ASan+UBSan in $(ASAN_B)/ (its own tree: B is
# overridden, so nothing mixes with build/): the programs, the libraries
# (libmpiwatch and its variants too), the unit tests and bench/probe-load;
# then the unit tests and, beside them in the background, the quick
# standalone tests ASAN_PROVE, run against it, MW_BUILD telling the tests which tree.  About 3-4 minutes on 2 cores
# (doc/benchmarks.md); t/0601 (passes too: ASAN_PROVE='t/0601-run-confirmed.t')
# is left out for time, t/0211 (nodehealthd flooded, with the ASan build)
# runs in make integration.
# Any report fails: ASan and LSan write theirs to $(ASAN_B)/san/asan.<pid>
# (log_path: the helpers' stderr goes to files the tests delete); UBSan
# beside ASan writes to stderr only, so check-asan greps the unit tests'
# output and the tests copy any file with a report into $(ASAN_B)/san
# (tap_san_keep in t/lib/tap.sh).  The MPI ranks of "mpiwatch run" get the
# sanitized monitor with libasan preloaded first (MPIWATCH_LIB: libasan
# must come first in a process it was not linked into).  Each of our own
# programs reads its options from $(ASAN_B)/san-opts/<name> (include_if_exists
# with %b): leak checks and ASan's signal handlers.  Everything else (the MPI
# programs, mpirun) keeps its own SIGSEGV (the crash tests) and is not
# leak-checked: the MPI libraries' leaks are in components dlclosed at exit,
# which no suppression can name, so the monitor's leaks are checked by its
# unit tests (test_monitor_*), not in the ranks.  The MPI programs are build/'s.
ASAN_B     := build-asan
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_PROVE := t/0503-analyze-cli.t t/0600-run.t
ASAN_RT    := $(shell $(CC) -print-file-name=libasan.so)
ASAN_OWN   := $(notdir $(BINS) $(NHD_BENCH) $(UNIT_TESTS))
check-asan:
	$(MAKE) -j$(or $(JOBS),1) progs
	$(MAKE) -j$(or $(JOBS),1) B=$(ASAN_B) SANITIZE='$(ASAN_FLAGS)' asan-build
	@mkdir -p $(ASAN_B) && ln -sfn $(CURDIR)/$(B)/progs $(ASAN_B)/progs
	$(MAKE) B=$(ASAN_B) SANITIZE='$(ASAN_FLAGS)' asan-run
asan-build: $(BINS) $(LIBS) $(NHD_BENCH) $(UNIT_TESTS)
asan-run:
	@set -e; fail=0; san=$(CURDIR)/$(B)/san; opts=$(CURDIR)/$(B)/san-opts; \
	rm -rf $$san $$opts; mkdir -p $$san $$opts; \
	for p in $(ASAN_OWN); do \
	  echo 'detect_leaks=1:handle_segv=1:handle_sigbus=1:handle_sigfpe=1:handle_sigill=1' > $$opts/$$p; done; \
	export ASAN_OPTIONS="log_path=$$san/asan:detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:include_if_exists=$$opts/%b" \
	  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
	  MW_BUILD=$(CURDIR)/$(B) MW_SAN_DIR=$$san MPIWATCH_LIB="$(ASAN_RT) $(CURDIR)/$(B)/lib/libmpiwatch.so"; \
	$(if $(ASAN_PROVE),rm -f $(B)/asan-prove.rc; { st=0; prove $(ASAN_PROVE) > $(B)/asan-prove.log 2>&1 || st=$$?; echo $$st > $(B)/asan-prove.rc; } & pp=$$!;) \
	for t in $(sort $(UNIT_TESTS)); do \
	  l=$(B)/asan-$$(basename $$t).log; echo "== asan $$t"; \
	  if ! CK_FORK=yes CK_TIMEOUT_MULTIPLIER=10 ./$$t > $$l 2>&1 || grep -q 'runtime error: ' $$l; then tail -n 40 $$l; fail=1; fi; \
	  tail -n 1 $$l; done; \
	$(if $(ASAN_PROVE),wait $$pp; cat $(B)/asan-prove.log; [ "$$(cat $(B)/asan-prove.rc)" = 0 ] || fail=1;) \
	for f in $$san/*; do [ -e "$$f" ] || continue; echo "== sanitizer report $$f"; head -n 60 "$$f"; fail=1; done; \
	test $$fail -eq 0 || { echo "sanitizer run FAILED"; exit 1; }

# Fuzz targets need clang with libFuzzer; the smoke run is bounded, in all
# and per input (fuzz/smoke: an input over FUZZ_TIMEOUT s is a hang, a failure).
fuzz: $(FUZZERS)
fuzz-smoke: $(FUZZERS)
	@./fuzz/smoke $(B) $(sort $(FUZZERS))

deps:
	./.ci/deps

integration: build-all
	MW_LAB_SHARDS=$${MW_LAB_SHARDS:-2} t/run-integration

# The collector's lab tests once more with the tree overlay forced on (the
# site's plugin line: tree_threshold=1, fanout 2): every job of three nodes
# or more runs through communication processes (two nodes fit under the
# fanout: the flat star), and the star and the tree give the same answers
# (doc/tree.md).  t/tree-pass.t, last, fails the pass unless the jobs'
# reports show the tree used: agents that reached the collector through a CP.
# (t/0408 runs its collector by hand, without the plugin: not here.)
TREE_TESTS ?= $(filter-out t/0408-%,$(wildcard t/04[0-1][0-9]-*.t))
# (MW_LAB_KEEP=1: the tests' folders, with each job's report.json, stay until
# the lab stops, for t/tree-pass.t to read.)
integration-tree: build-all
	MW_LAB_SHARDS=$${MW_LAB_SHARDS:-2} MW_LAB_KEEP=1 MW_LAB_PLUGIN_ARGS="tree_threshold=1 tree_fanout=2" t/run-integration $(TREE_TESTS) t/tree-pass.t

# make test builds on every core (CI has 2) and fuzzes each target 6 s: the
# whole run must stay under 30 minutes there (doc/benchmarks.md, "CI").
JOBS ?= $(shell nproc)
# One parallel build of everything the phases run (the unit tests and the
# fuzz targets too: built by the later phases, they were built one at a
# time); then valgrind and the fuzz smoke run side by side (each is one
# process at a time, the fuzz runs are bounded in wall time).
test: deps
	$(MAKE) -j$(JOBS) build-all $(UNIT_TESTS) $(FUZZERS)
	$(MAKE) check
	FUZZ_SECONDS=$${FUZZ_SECONDS:-6} $(MAKE) -j$(JOBS) -O check-valgrind fuzz-smoke
	$(MAKE) JOBS=$(JOBS) check-asan
	$(MAKE) integration
	$(MAKE) integration-tree

demo: deps
	$(MAKE) build-all
	./examples/demo

demo-cluster: deps
	$(MAKE) build-all
	./examples/demo-cluster

lab-start:
	t/lab/start
lab-stop:
	t/lab/stop

clean:
	rm -rf $(B) $(ASAN_B) $(CLEAN)

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
