# calib/: can this node tell a real slowdown from timer noise? (seed 001,
# doc/calibrate.md): timer costs, the workload, the rank tests, the interval
# search and the criterion; a library linked into the mpiwatch CLI.
CAL_SRCS := $(wildcard calib/*.c)
CAL_OBJS := $(CAL_SRCS:%.c=$(B)/obj/%.o)
CAL_LIB  := $(B)/lib/libmwcalib.a

$(CAL_LIB): $(CAL_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/obj/calib/%.o: CPPFLAGS += -Icalib
$(B)/obj/cli/cmd_calibrate.o $(B)/obj/cli/cmd_fluctuation.o: CPPFLAGS += -Icalib
$(B)/bin/mpiwatch: $(CAL_LIB)
LIBS += $(CAL_LIB)
MANS += doc/man/mpiwatch-calibrate.1

# Unit tests: t/unit/test_cal_*.c
CAL_UNIT := $(patsubst t/unit/%.c,$(B)/t/%,$(wildcard t/unit/test_cal_*.c))
UNIT_TESTS += $(CAL_UNIT)
$(CAL_UNIT): $(CAL_LIB)
$(CAL_UNIT): CPPFLAGS += -Icalib

# Fuzz target: the timings file parser.
FUZZERS += $(B)/fuzz/fuzz_cal_timings
FUZZ_EXTRA_fuzz_cal_timings := calib/cal_timings.c -Icalib
$(B)/fuzz/fuzz_cal_timings: calib/cal_timings.c calib/cal_timings.h
# ... and the calibration file that analyze fluctuation takes.
FUZZERS += $(B)/fuzz/fuzz_cal_criterion
FUZZ_EXTRA_fuzz_cal_criterion := $(CAL_SRCS) -Icalib
$(B)/fuzz/fuzz_cal_criterion: $(CAL_SRCS) $(wildcard calib/*.h)
# ... and a node's calibration history (calibrate --history FILE).
FUZZERS += $(B)/fuzz/fuzz_cal_history
FUZZ_EXTRA_fuzz_cal_history := $(CAL_SRCS) -Icalib
$(B)/fuzz/fuzz_cal_history: $(CAL_SRCS) $(wildcard calib/*.h)
