# analyze/: offline analyses (the deadlock detector), a library linked into
# the mpiwatch CLI and the collector.
ANALYZE_SRCS := $(wildcard analyze/*.c)
ANALYZE_OBJS := $(ANALYZE_SRCS:%.c=$(B)/obj/%.o)
ANALYZE_LIB  := $(B)/lib/libmwanalyze.a

MANS += doc/man/mpiwatch-analyze.1

$(ANALYZE_LIB): $(ANALYZE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/obj/analyze/%.o: CPPFLAGS += -Ianalyze

# Unit tests of the deadlock analysis: t/unit/test_dl_*.c
DL_UNIT := $(patsubst t/unit/%.c,$(B)/t/%,$(wildcard t/unit/test_dl_*.c))
$(DL_UNIT): $(ANALYZE_LIB)
$(DL_UNIT): CPPFLAGS += -Ianalyze
$(B)/obj/cli/cmd_analyze.o: CPPFLAGS += -Ianalyze

# Fuzz target: the whole analysis over fuzzed dumps.
FUZZ_EXTRA_fuzz_dl_dumps := $(ANALYZE_SRCS) -Ianalyze
$(B)/fuzz/fuzz_dl_dumps: $(ANALYZE_SRCS) $(wildcard analyze/*.h)
