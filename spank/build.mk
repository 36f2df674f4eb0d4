# spank/: mpiwatch.so, the SPANK plugin (Slurm 22.05 spank.h).
SPANK_SRCS := $(wildcard spank/*.c)
SPANK_OBJS := $(SPANK_SRCS:%.c=$(B)/obj/%.o)
SPANK_PLUGIN := $(B)/lib/mpiwatch.so
LIBS += $(SPANK_PLUGIN)
MANS += doc/man/mpiwatch-spank.8

# Where an installed plugin finds the monitor and the programs by default.
$(SPANK_OBJS): CPPFLAGS += -DMWS_DEFAULT_LIBDIR='"$(LIBDIR)"' -DMWS_DEFAULT_BINDIR='"$(BINDIR)"'

# The plugin checks munged with the agents' own MUNGE code (shared/auth.c,
# taken from SHARED_LIB).

$(SPANK_PLUGIN): $(SPANK_OBJS) $(SHARED_LIB) spank/mpiwatch.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(CFLAGS) -o $@ $(SPANK_OBJS) $(SHARED_LIB) $(LDFLAGS) $(MUNGE_LIBS) \
	  -Wl,--version-script=spank/mpiwatch.map

# Unit tests of the pure parts (no Slurm needed), and a fuzz target.
UNIT_TESTS += $(B)/t/test_spank_opts
FUZZERS += $(B)/fuzz/fuzz_spank_opts
$(B)/t/test_spank_opts: CPPFLAGS += -Ispank
$(B)/t/test_spank_opts: $(B)/obj/spank/mws_opts.o $(B)/obj/spank/mws_env.o $(B)/obj/spank/mws_launch.o \
	$(B)/obj/spank/mws_rundir.o
# The run folder and the reads of the user's files, as root (issue 30, items
# 6, 8, 9): needs root, as the plugin.
UNIT_TESTS += $(B)/t/test_spank_rundir
$(B)/t/test_spank_rundir: CPPFLAGS += -Ispank
$(B)/t/test_spank_rundir: $(B)/obj/spank/mws_opts.o $(B)/obj/spank/mws_launch.o $(B)/obj/spank/mws_rundir.o
FUZZ_EXTRA_fuzz_spank_opts := spank/mws_opts.c
$(B)/fuzz/fuzz_spank_opts: CPPFLAGS += -DMWS_DEFAULT_LIBDIR='"/x"' -DMWS_DEFAULT_BINDIR='"/x"'
