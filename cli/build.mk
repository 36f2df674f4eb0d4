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
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) $(ANALYZE_LIB) $(TREE_LIB) $(IMB_LIB) $(CAL_LIB) $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) $(MUNGE_LIBS) $(DW_LIBS) -lpthread -lm

# Unit test and fuzz target of the launcher's output parser (mpiwatch run).
UNIT_TESTS += $(B)/t/test_runlaunch
$(B)/t/test_runlaunch: CPPFLAGS += -Icli -Ianalyze
$(B)/t/test_runlaunch: $(B)/obj/cli/runlaunch.o $(ANALYZE_LIB)
UNIT_LIBS_test_runlaunch := $(ANALYZE_LIB) $(DW_LIBS)
$(B)/obj/cli/runlaunch.o $(B)/obj/cli/cmd_run.o: CPPFLAGS += -Ianalyze
FUZZERS += $(B)/fuzz/fuzz_launcher_output
FUZZ_EXTRA_fuzz_launcher_output := cli/runlaunch.c analyze/dl_crash.c analyze/dl_symbols.c analyze/dl_pool.c -Ianalyze $(DW_LIBS)
# ... and of its reading of the verdict in report.json (read_verdict).
FUZZERS += $(B)/fuzz/fuzz_run_verdict
FUZZ_EXTRA_fuzz_run_verdict := cli/runlaunch.c analyze/dl_crash.c analyze/dl_symbols.c analyze/dl_pool.c -Icli -Ianalyze $(DW_LIBS)
$(B)/fuzz/fuzz_run_verdict: cli/runlaunch.c cli/runlaunch.h

# Fuzz target: the option values parsed by hand (--collector HOST:PORT,
# the collector's and "analyze imbalance"'s --threshold, the settings files'
# numbers).  Recursive (=): the imbalance names are set by a later fragment,
# which also adds the generated table as a prerequisite.
FUZZERS += $(B)/fuzz/fuzz_options
FUZZ_EXTRA_fuzz_options = collector/verdict.c collector/verdict_text.c collector/colthreshold.c collector/colgraph.c $(IMB_FUZZ_SRCS) $(IMB_GEN) -Icollector -Iimbalance -Ianalyze
$(B)/fuzz/fuzz_options: collector/verdict.c collector/verdict_text.c collector/colthreshold.c collector/colgraph.c collector/verdict.h

# What "mpiwatch status" prints from a status object (cli/statusprint.c):
# its unit test and fuzz target (a job's report.json is the user's file).
UNIT_TESTS += $(B)/t/test_statusprint
$(B)/t/test_statusprint: CPPFLAGS += -Icli
$(B)/t/test_statusprint: $(B)/obj/cli/statusprint.o
FUZZERS += $(B)/fuzz/fuzz_status
FUZZ_EXTRA_fuzz_status := cli/statusprint.c -Icli

# "mpiwatch status --drained" (cli/drained.c) and the drain reason's format
# (shared/drainreason.c): unit test on a captured "sinfo --json", and a fuzz
# target (sinfo's answer, then the reason on its own).
UNIT_TESTS += $(B)/t/test_drained
$(B)/t/test_drained: CPPFLAGS += -Icli
$(B)/t/test_drained: $(B)/obj/cli/drained.o
FUZZERS += $(B)/fuzz/fuzz_drained
FUZZ_EXTRA_fuzz_drained := cli/drained.c -Icli
$(B)/fuzz/fuzz_drained: cli/drained.c cli/drained.h
