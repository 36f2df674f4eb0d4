# collector/: mpiwatch-collector, the per-job collector, and its core as a
# library (COLLECTOR_LIB) for the program and its unit tests.
COLLECTOR_MAINS := collector/mpiwatch-collector.c
COLLECTOR_SRCS := $(filter-out $(COLLECTOR_MAINS),$(wildcard collector/*.c))
COLLECTOR_OBJS := $(COLLECTOR_SRCS:%.c=$(B)/obj/%.o)
COLLECTOR_LIB := $(B)/lib/libmwcollector.a

LIBS += $(COLLECTOR_LIB)
BINS += $(B)/bin/mpiwatch-collector
MANS += doc/man/mpiwatch-collector.1

$(COLLECTOR_LIB): $(COLLECTOR_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/obj/collector/%.o: CPPFLAGS += -Icollector -Ianalyze -Iimbalance -Itree

$(B)/bin/mpiwatch-collector: $(B)/bin/%: $(B)/obj/collector/%.o $(COLLECTOR_LIB) $(ANALYZE_LIB) $(B)/lib/libmwtree.a $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(COLLECTOR_LIB) $(ANALYZE_LIB) $(IMB_LIB) $(CAL_LIB) $(B)/lib/libmwtree.a $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) $(CURL_LIBS) $(MUNGE_LIBS) $(DW_LIBS) $(UV_LIBS) -lpthread -lm

# Unit tests of the collector's core.
UNIT_TESTS += $(B)/t/test_collector $(B)/t/test_verdict $(B)/t/test_coltree $(B)/t/test_colsummary
$(B)/t/test_coltree: $(COLLECTOR_LIB) $(ANALYZE_LIB) $(B)/lib/libmwtree.a
$(B)/t/test_coltree: CPPFLAGS += -Icollector -Itree
UNIT_LIBS_test_coltree := $(CURL_LIBS) $(MUNGE_LIBS) $(DW_LIBS) $(UV_LIBS)
$(B)/t/test_colsummary: $(B)/obj/collector/colsummary.o $(B)/obj/collector/verdict.o $(B)/obj/collector/colthreshold.o $(COLLECTOR_LIB) $(ANALYZE_LIB) $(B)/lib/libmwtree.a
$(B)/t/test_colsummary: CPPFLAGS += -Icollector
UNIT_LIBS_test_colsummary := $(UV_LIBS)
$(B)/t/test_verdict $(B)/t/test_collector: $(COLLECTOR_LIB) $(ANALYZE_LIB) $(B)/lib/libmwtree.a
$(B)/t/test_verdict $(B)/t/test_collector: CPPFLAGS += -Icollector
UNIT_LIBS_test_collector := $(CURL_LIBS) $(MUNGE_LIBS) $(DW_LIBS) $(UV_LIBS)
UNIT_LIBS_test_verdict := $(CURL_LIBS) $(MUNGE_LIBS) $(DW_LIBS) $(UV_LIBS)
# The evaluation's decisions on a fake clock (coleval.h; issue 31).
UNIT_TESTS += $(B)/t/test_col_eval
$(B)/t/test_col_eval: $(COLLECTOR_LIB) $(ANALYZE_LIB) $(B)/lib/libmwimbalance.a $(B)/lib/libmwcalib.a $(B)/lib/libmwtree.a
$(B)/t/test_col_eval: CPPFLAGS += -Icollector -Ianalyze -Iimbalance -Itree
UNIT_LIBS_test_col_eval := $(CURL_LIBS) $(MUNGE_LIBS) $(DW_LIBS) $(UV_LIBS)

# The nodes' calibrations for the compute-phase flag (nodecal.h; issue 32).
UNIT_TESTS += $(B)/t/test_nodecal
$(B)/t/test_nodecal: t/unit/probe_responder.c $(COLLECTOR_LIB) $(ANALYZE_LIB) $(B)/lib/libmwimbalance.a $(B)/lib/libmwcalib.a $(B)/lib/libmwtree.a
$(B)/t/test_nodecal: CPPFLAGS += -Icollector -Ianalyze -Iimbalance -Itree
UNIT_LIBS_test_nodecal := $(CURL_LIBS) $(MUNGE_LIBS) $(DW_LIBS) $(UV_LIBS)

# Fuzz target: the collector's reading of a rank's dump (JSON from an agent).
FUZZERS += $(B)/fuzz/fuzz_col_dump
FUZZ_EXTRA_fuzz_col_dump := collector/colstate.c collector/verdict.c collector/verdict_text.c collector/colthreshold.c collector/colgraph.c -Icollector -Ianalyze -Iimbalance
$(B)/fuzz/fuzz_col_dump: collector/colstate.c collector/verdict.c collector/verdict_text.c collector/colthreshold.c collector/colgraph.c $(wildcard collector/*.h)

# Fuzz target: the job's output file read for crash reports (joblog.c).
FUZZERS += $(B)/fuzz/fuzz_joblog
# slurmrestd's OpenAPI document (which job API version to post to).
FUZZERS += $(B)/fuzz/fuzz_restd_version
FUZZ_EXTRA_fuzz_restd_version := collector/restd.c -Icollector $(CURL_LIBS)
$(B)/fuzz/fuzz_restd_version: collector/restd.c collector/restd.h
# slurmrestd's reply to the comment's POST (does it list errors?).
FUZZERS += $(B)/fuzz/fuzz_restd_reply
FUZZ_EXTRA_fuzz_restd_reply := collector/restd.c -Icollector $(CURL_LIBS)
$(B)/fuzz/fuzz_restd_reply: collector/restd.c collector/restd.h
FUZZ_EXTRA_fuzz_joblog := collector/joblog.c collector/colstate.c collector/verdict.c collector/verdict_text.c collector/colthreshold.c collector/colgraph.c analyze/dl_crash.c analyze/dl_symbols.c analyze/dl_pool.c -Icollector -Ianalyze -Iimbalance $(DW_LIBS)
$(B)/fuzz/fuzz_joblog: collector/joblog.c analyze/dl_crash.c $(wildcard collector/*.h)
# Unit test of the auxiliary processes (issue 13): frames, bounds, the site
# file, the agent's round (agent/agap.c) and the collector's (collector/colap.c).
UNIT_TESTS += $(B)/t/test_ap
$(B)/t/test_ap: $(B)/obj/agent/agap.o $(COLLECTOR_LIB) $(ANALYZE_LIB) $(B)/lib/libmwtree.a
$(B)/t/test_ap: CPPFLAGS += -Icollector -Iagent -Itree
UNIT_LIBS_test_ap := $(CURL_LIBS) $(MUNGE_LIBS) $(DW_LIBS) $(UV_LIBS)
# The probe round on a real loop: Slurm asked without blocking it (issue 31).
UNIT_TESTS += $(B)/t/test_colprobe
$(B)/t/test_colprobe: t/unit/probe_responder.c $(COLLECTOR_LIB) $(ANALYZE_LIB) $(B)/lib/libmwimbalance.a $(B)/lib/libmwcalib.a $(B)/lib/libmwtree.a
$(B)/t/test_colprobe: CPPFLAGS += -Icollector -Ianalyze -Iimbalance -Itree
UNIT_LIBS_test_colprobe := $(CURL_LIBS) $(MUNGE_LIBS) $(DW_LIBS) $(UV_LIBS)
UNIT_TESTS += $(B)/t/test_colact_last
$(B)/t/test_colact_last: $(COLLECTOR_LIB) $(ANALYZE_LIB) $(B)/lib/libmwimbalance.a $(B)/lib/libmwcalib.a $(B)/lib/libmwtree.a
$(B)/t/test_colact_last: CPPFLAGS += -Icollector -Ianalyze -Iimbalance -Itree
UNIT_LIBS_test_colact_last := $(CURL_LIBS) $(MUNGE_LIBS) $(DW_LIBS) $(UV_LIBS)
