# imbalance/: load-imbalance analysis of TAU profiles (seed 004,
# doc/imbalance.md), a library linked into the mpiwatch CLI.
IMB_SRCS := $(wildcard imbalance/*.c)
IMB_GEN  := $(B)/gen/imb_spec.c
IMB_OBJS := $(IMB_SRCS:%.c=$(B)/obj/%.o) $(B)/obj/gen/imb_spec.o $(B)/obj/imbalance/imb_assets.o
IMB_LIB  := $(B)/lib/libmwimbalance.a

# The MPI name table: every function the monitor wraps (monitor/mpi.spec, the
# one list) with its kind; imbalance/imb_group.c maps kinds to groups.
$(IMB_GEN): monitor/mpi.spec imbalance/build.mk
	@mkdir -p $(dir $@)
	{ echo '/* generated from $< by imbalance/build.mk */'; \
	  echo '#include <stddef.h>'; \
	  echo 'struct imb_spec_entry { const char *name, *kind; };'; \
	  echo 'extern const struct imb_spec_entry imb_spec_table[];'; \
	  echo 'extern const size_t imb_spec_count;'; \
	  echo 'const struct imb_spec_entry imb_spec_table[] = {'; \
	  awk -F'|' '/^[A-Z]/ { n=$$1; k=$$2; gsub(/[ \t]/,"",n); gsub(/[ \t]/,"",k); printf "\t{\"%s\", \"%s\"},\n", n, k }' $<; \
	  echo '};'; \
	  echo 'const size_t imb_spec_count = sizeof(imb_spec_table) / sizeof(imb_spec_table[0]);'; } > $@
$(B)/obj/gen/imb_spec.o: $(IMB_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The page template and the vendored libraries (imbalance/web/vendor/README.md).
$(B)/obj/imbalance/imb_assets.o: imbalance/imb_assets.S imbalance/web/imbalance.html \
    imbalance/web/vendor/echarts.min.js imbalance/web/vendor/echarts-gl.min.js
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $<

$(IMB_LIB): $(IMB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# imb_fluct.c judges with calib/'s criterion (CAL_LIB, linked after IMB_LIB).
$(B)/obj/imbalance/%.o: CPPFLAGS += -Iimbalance -Icalib
$(B)/obj/cli/cmd_imbalance.o: CPPFLAGS += -Iimbalance
$(B)/bin/mpiwatch: $(IMB_LIB)
# The collector writes the analysis at the end of a profiled job
# (collector/build.mk links IMB_LIB and CAL_LIB; this file is read after it).
$(B)/bin/mpiwatch-collector: $(IMB_LIB) $(CAL_LIB)
CLI_EXTRA_LIBS += $(IMB_LIB)

# Unit tests: t/unit/test_imb_*.c
IMB_UNIT := $(patsubst t/unit/%.c,$(B)/t/%,$(wildcard t/unit/test_imb_*.c))
UNIT_TESTS += $(IMB_UNIT)
$(IMB_UNIT): $(IMB_LIB) $(CAL_LIB)
$(IMB_UNIT): CPPFLAGS += -Iimbalance -Icalib -DMW_SRCDIR='"$(CURDIR)"'

# Fuzz target: the profile and rules parsers.
FUZZERS += $(B)/fuzz/fuzz_imb_profile
IMB_FUZZ_SRCS := $(filter-out imbalance/imb_html.c imbalance/imb_files.c imbalance/imb_fluct.c imbalance/imb_phases.c,$(IMB_SRCS))
FUZZ_EXTRA_fuzz_imb_profile := $(IMB_FUZZ_SRCS) $(IMB_GEN) -Iimbalance
$(B)/fuzz/fuzz_imb_profile: $(IMB_SRCS) $(wildcard imbalance/*.h) $(IMB_GEN)
# cli/build.mk's fuzz_options reads the --threshold of analyze imbalance.
$(B)/fuzz/fuzz_options: $(IMB_SRCS) $(wildcard imbalance/*.h) $(IMB_GEN)

# Fuzz target: the compute-phase file parser (monitor's phases.N), then the
# fluctuation analysis on the rank it read against a copy of itself.
FUZZERS += $(B)/fuzz/fuzz_imb_phases
FUZZ_EXTRA_fuzz_imb_phases := imbalance/imb_phases.c imbalance/imb_fluct.c imbalance/imb_load.c imbalance/imb_profile.c \
	calib/cal_criterion.c calib/cal_stats.c -Iimbalance -Icalib
$(B)/fuzz/fuzz_imb_phases: imbalance/imb_phases.c imbalance/imb_fluct.c imbalance/imb_phases.h
