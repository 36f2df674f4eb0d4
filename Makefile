# mpiwatch — one top-level Makefile.  Each part of the tree adds its own
# targets in <dir>/build.mk; this file holds the common flags and rules.
#
#   make            build everything into build/
#   make check      unit tests (Check)
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
WERROR    ?= -Werror
WARN      := -Wall -Wextra -Wmissing-prototypes -Wshadow $(WERROR)
HARDEN    := -D_FORTIFY_SOURCE=2 -fstack-protector-strong
OPT       ?= -O2 -g
CPPFLAGS  += -Ishared -DMW_VERSION='"$(VERSION)"' -D_GNU_SOURCE
CFLAGS    += -std=gnu11 $(OPT) -fPIC $(WARN) $(HARDEN) -MMD -MP
LDFLAGS   += -Wl,-z,relro,-z,now -Wl,--as-needed
JSON_CFLAGS := $(shell pkg-config --cflags json-c 2>/dev/null)
JSON_LIBS   := $(shell pkg-config --libs json-c 2>/dev/null)
CURL_LIBS   := $(shell pkg-config --libs libcurl 2>/dev/null)
MUNGE_LIBS  := $(shell pkg-config --libs munge 2>/dev/null || echo -lmunge)
DW_LIBS     := $(shell pkg-config --libs libdw 2>/dev/null || echo -ldw -lelf)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS  := $(shell pkg-config --libs check 2>/dev/null)

# Filled in by the build.mk fragments.  Each module's build.mk declares its
# own unit tests (t/unit/test_<name>.c -> $(B)/t/test_<name>) and fuzz targets
# (fuzz/fuzz_<name>.c -> $(B)/fuzz/fuzz_<name>), with what they link.
BINS       :=
LIBS       :=
UNIT_TESTS :=
FUZZERS    :=
MANS       :=
CLEAN      :=

.PHONY: check-valgrind progs all check test deps install uninstall clean demo demo-cluster fuzz-smoke integration lab-start lab-stop
all: build-all

include shared/build.mk
include $(filter-out shared/build.mk,$(wildcard */build.mk))
include t/progs/build.mk

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
# sources and the module's FUZZ_EXTRA_fuzz_<name> (sources and flags).
FUZZ_CC   ?= clang
$(B)/fuzz/%: fuzz/%.c $(SHARED_SRCS)
	@mkdir -p $(dir $@) $(B)/fuzz-corpus/$*
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  $(CPPFLAGS) $(JSON_CFLAGS) -Wall -Wextra -o $@ $< $(SHARED_SRCS) $(FUZZ_EXTRA_$*) $(JSON_LIBS) $(MUNGE_LIBS) -lpthread -lm

build-all: $(BINS) $(LIBS) $(PROGS)
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

# Fuzz targets need clang with libFuzzer; the smoke run is bounded.
fuzz: $(FUZZERS)
fuzz-smoke: $(FUZZERS)
	@set -e; for f in $(sort $(FUZZERS)); do \
	  n=$$(basename $$f); mkdir -p $(B)/fuzz-corpus/$$n; \
	  seeds=; [ -d fuzz/corpus/$$n ] && seeds=fuzz/corpus/$$n; \
	  echo "== fuzz $$n ($${FUZZ_SECONDS:-10} s)"; \
	  if ! ./$$f -max_total_time=$${FUZZ_SECONDS:-10} -rss_limit_mb=1024 -print_final_stats=0 \
	       $(B)/fuzz-corpus/$$n $$seeds > $(B)/fuzz-$$n.log 2>&1; then \
	    tail -n 40 $(B)/fuzz-$$n.log; echo "fuzz target $$n FAILED"; exit 1; fi; \
	  grep -E '^Done [0-9]+ runs' $(B)/fuzz-$$n.log || tail -n 1 $(B)/fuzz-$$n.log; \
	done

deps:
	./.ci/deps

integration: build-all
	t/run-integration

test: deps
	$(MAKE) build-all
	$(MAKE) check
	$(MAKE) check-valgrind
	$(MAKE) fuzz-smoke
	$(MAKE) integration

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
	rm -rf $(B) $(CLEAN)

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
