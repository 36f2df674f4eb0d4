# nodehealthd/: mpiwatch-nodehealthd, the root daemon beside slurmd.
NHD_SRCS := $(wildcard nodehealthd/*.c)
NHD_OBJS := $(NHD_SRCS:%.c=$(B)/obj/%.o)
NHD_LIB_OBJS := $(filter-out $(B)/obj/nodehealthd/nhd_main.o $(B)/obj/nodehealthd/nhd_notify.o,$(NHD_OBJS))
BINS += $(B)/bin/mpiwatch-nodehealthd
MANS += doc/man/mpiwatch-nodehealthd.8 doc/man/nodehealthd.conf.5

# The quick calibration (nhd_calib.c) is calib/'s.
$(B)/obj/nodehealthd/%.o: CPPFLAGS += -Icalib
$(B)/bin/mpiwatch-nodehealthd: $(NHD_OBJS) $(CAL_LIB) $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(NHD_OBJS) $(CAL_LIB) $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) $(UV_LIBS) -lpthread -lm

# systemd's readiness and watchdog notifications (nhd_notify.c): the
# protocol's datagrams written by the daemon itself, no libsystemd (1 MB of
# RSS, doc/benchmarks.md).

# Unit tests of the daemon's modules.
UNIT_TESTS += $(addprefix $(B)/t/,test_nhd_calib test_nhd_checks test_nhd_conf test_nhd_drain test_nhd_rl test_nhd_schemas test_nhd_metrics)
$(B)/t/test_nhd_%: CPPFLAGS += -Inodehealthd -Icalib
$(B)/t/test_nhd_calib: $(B)/obj/nodehealthd/nhd_calib.o $(B)/obj/nodehealthd/nhd_checks.o $(B)/obj/nodehealthd/nhd_conf.o $(CAL_LIB)
$(B)/t/test_nhd_conf: $(B)/obj/nodehealthd/nhd_conf.o
$(B)/t/test_nhd_checks: $(B)/obj/nodehealthd/nhd_checks.o $(B)/obj/nodehealthd/nhd_conf.o
$(B)/t/test_nhd_rl: $(B)/obj/nodehealthd/nhd_rl.o
# test_nhd_metrics gathers the daemon's state (nhd_mexport.c) too.
$(B)/t/test_nhd_metrics: $(NHD_LIB_OBJS) $(CAL_LIB)
UNIT_LIBS_test_nhd_metrics := $(UV_LIBS)
$(B)/t/test_nhd_drain: $(B)/obj/nodehealthd/nhd_drain.o $(B)/obj/nodehealthd/nhd_drainop.o $(B)/obj/nodehealthd/nhd_conf.o
# The drain procedure and the daemon's state run on a libuv loop.
UNIT_LIBS_test_nhd_drain := $(UV_LIBS)
UNIT_LIBS_test_nhd_schemas := $(UV_LIBS)
$(B)/t/test_nhd_schemas: $(NHD_LIB_OBJS) $(CAL_LIB)

# Fuzz target: nodehealthd.conf (the drain request and Slurm's answers are
# shared/'s: fuzz_drainreq).
FUZZERS += $(B)/fuzz/fuzz_nhdconf
FUZZ_EXTRA_fuzz_nhdconf := nodehealthd/nhd_conf.c -Inodehealthd
$(B)/fuzz/fuzz_nhdconf: nodehealthd/nhd_conf.c

# The probe load generator (bench/, also used by t/0210): not installed.
NHD_BENCH := $(B)/bench/probe-load $(B)/bench/probe-fanout
build-all: $(NHD_BENCH)
$(B)/bench/probe-load: bench/probe-load.c $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) -lpthread -lm
$(B)/bench/probe-fanout: bench/probe-fanout.c $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) -lpthread -lm

