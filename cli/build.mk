# cli/: the mpiwatch command-line tool.  Every cli/*.c is linked in; analyses
# come from analyze/ (ANALYZE_LIB), imbalance/ (IMB_LIB) and calib/
# (CAL_LIB); Slurm, MUNGE and the run directory from shared/ (SHARED_LIB).
# It does not link the collector: "mpiwatch run" starts mpiwatch-collector.
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(B)/obj/%.o)
BINS += $(B)/bin/mpiwatch
MANS += doc/man/mpiwatch.1

$(B)/bin/mpiwatch: $(CLI_OBJS) $(ANALYZE_LIB) $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) $(ANALYZE_LIB) $(TREE_LIB) $(IMB_LIB) $(CAL_LIB) $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) $(MUNGE_LIBS) -lpthread -lm

# Unit test and fuzz target of the launcher's output parser (mpiwatch run).
UNIT_TESTS += $(B)/t/test_runlaunch
$(B)/t/test_runlaunch: CPPFLAGS += -Icli
$(B)/t/test_runlaunch: $(B)/obj/cli/runlaunch.o
FUZZERS += $(B)/fuzz/fuzz_launcher_output
FUZZ_EXTRA_fuzz_launcher_output := cli/runlaunch.c
