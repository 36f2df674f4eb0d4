# monitor/: libmpiwatch, the PMPI monitor inside every MPI rank.
#
#   build/lib/libmpiwatch.so          the dispatcher to LD_PRELOAD
#   build/lib/libmpiwatch-openmpi.so  wrappers built with mpicc.openmpi (+ Fortran)
#   build/lib/libmpiwatch-mpich.so    wrappers built with mpicc.mpich
#   build/lib/libmpiwatch-portable.so the dispatcher in plain C (not installed;
#                                     for the tests of the portable path)
# The wrappers, the op table, the trampolines (tramp.S), the same in plain C
# (forward.c) and the checks of mpi.spec against each mpi.h (check.c) are
# generated from monitor/mpi.spec by monitor/gen.py into build/gen/monitor/.
#
# MW_PORTABLE=1 builds libmpiwatch.so from forward.c instead of the x86-64
# trampolines; it is the default when $(CC) does not target x86-64.
MON_ARCH    := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine 2>/dev/null)))
MW_PORTABLE ?= $(if $(filter x86_64,$(MON_ARCH)),0,1)
MON_GEN   := $(B)/gen/monitor
MON_SPEC  := monitor/mpi.spec monitor/gen.py
MON_CORE  := runtime.c reqtab.c comms.c watcher.c motion.c dump.c stack.c profile.c blind.c
MON_VSRCS := $(addprefix monitor/,$(MON_CORE) mpiglue.c)
MON_LIBS  := $(B)/lib/libmpiwatch.so $(B)/lib/libmpiwatch-openmpi.so $(B)/lib/libmpiwatch-mpich.so
LIBS      += $(MON_LIBS)
MANS      += doc/man/libmpiwatch.7
CLEAN     +=

MON_GEN_FILES := $(addprefix $(MON_GEN)/,ops.h ops.c wrappers.c tramp.S forward.c check.c)
$(MON_GEN_FILES): $(MON_GEN)/%: $(MON_SPEC)
	@mkdir -p $(dir $@)
	$(PYTHON3) monitor/gen.py monitor/mpi.spec $@

$(MON_GEN)/ops.c $(MON_GEN)/wrappers.c: $(MON_GEN)/ops.h

MON_CFLAGS = -std=gnu11 $(OPT) -fPIC $(WARN) $(HARDEN) $(SANITIZE) -MMD -MP -fvisibility=default -fno-omit-frame-pointer \
  -Ishared -Icalib -Imonitor -I$(MON_GEN) -DMW_VERSION='"$(VERSION)"' -D_GNU_SOURCE $(JSON_CFLAGS)

# One object directory per MPI; the wrappers are compiled with that MPI's mpicc.
define mon_variant
$(B)/obj/monitor/$(1)/%.o: monitor/%.c $(MON_GEN)/ops.h
	@mkdir -p $$(dir $$@)
	mpicc.$(1) $$(MON_CFLAGS) $(2) -c -o $$@ $$<
$(B)/obj/monitor/$(1)/gen_%.o: $(MON_GEN)/%.c $(MON_GEN)/ops.h
	@mkdir -p $$(dir $$@)
	mpicc.$(1) $$(MON_CFLAGS) $(2) -Wno-unused-parameter -c -o $$@ $$<
# gen_check.o holds no code: it compiles only if mpi.spec matches this mpi.h
# (first, so that a wrong spec line is reported as such)
$(B)/obj/monitor/$(1)/gen_wrappers.o: | $(B)/obj/monitor/$(1)/gen_check.o
$(B)/lib/libmpiwatch-$(1).so: $(addprefix $(B)/obj/monitor/$(1)/,$(MON_CORE:.c=.o) mpiglue.o gen_check.o gen_wrappers.o) $(SHARED_LIB) $(CAL_LIB)
	@mkdir -p $$(dir $$@)
	mpicc.$(1) -shared -o $$@ $$(filter %.o,$$^) $(SHARED_LIB) $(CAL_LIB) $(LDFLAGS) -Wl,-Bsymbolic $(JSON_LIBS) -ldl -lpthread -lm
endef
$(eval $(call mon_variant,openmpi,-DMWM_FORTRAN))
$(eval $(call mon_variant,mpich,))

$(B)/obj/monitor/tramp.o: $(MON_GEN)/tramp.S
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $<

# The forwarders must end in a tail call (the wrapper's return address is the
# application's call site): -O2 -foptimize-sibling-calls whatever OPT says.
$(B)/obj/monitor/forward.o: $(MON_GEN)/forward.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -O2 -foptimize-sibling-calls -c -o $@ $<

# Relink libmpiwatch.so when MW_PORTABLE changes (the file changes only then;
# FORCE is etc/build.mk's).
$(B)/obj/monitor/portable.flag: FORCE
	@mkdir -p $(dir $@)
	@test "$$(cat $@ 2>/dev/null)" = "$(MW_PORTABLE)" || echo "$(MW_PORTABLE)" > $@

MON_DISPATCH_0 := $(B)/obj/monitor/dispatch.o $(B)/obj/monitor/tramp.o
MON_DISPATCH_1 := $(B)/obj/monitor/dispatch.o $(B)/obj/monitor/forward.o
ifeq ($(filter 0 1,$(MW_PORTABLE)),)
$(error MW_PORTABLE must be 0 or 1, not '$(MW_PORTABLE)')
endif
$(B)/lib/libmpiwatch.so: $(MON_DISPATCH_$(MW_PORTABLE)) $(B)/obj/monitor/portable.flag
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(filter %.o,$^) $(LDFLAGS) -ldl -lpthread

$(B)/lib/libmpiwatch-portable.so: $(MON_DISPATCH_1)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDFLAGS) -ldl -lpthread
build-all: $(B)/lib/libmpiwatch-portable.so

# mpi.spec against both mpi.h (a wrong prototype must fail the build, naming
# the function) and the portable forwarders' tail calls.
check: check-monitor-gen
check-monitor-gen: $(B)/obj/monitor/forward.o $(B)/lib/libmpiwatch.so $(B)/lib/libmpiwatch-portable.so
	@echo "== t/unit/monitor_gen.sh"; sh t/unit/monitor_gen.sh $^
.PHONY: check-monitor-gen

# repeated polls through the real wrappers (one MPICH rank reads its own slot)
check: check-monitor-poll
check-monitor-poll: $(B)/lib/libmpiwatch.so $(SHARED_LIB) | $(B)/lib/libmpiwatch-mpich.so
	@echo "== t/unit/monitor_poll.sh"; sh t/unit/monitor_poll.sh $^
.PHONY: check-monitor-poll

# unit tests: the MPI-independent core, compiled without MPI
UNIT_TESTS += $(addprefix $(B)/t/,test_monitor_comms test_monitor_dump test_monitor_reqtab test_monitor_stall)
MON_UNIT_OBJS := $(addprefix $(B)/obj/monitor/,reqtab.o comms.o)
$(B)/t/test_monitor_reqtab: $(B)/obj/monitor/reqtab.o
$(B)/t/test_monitor_comms: $(B)/obj/monitor/comms.o
$(B)/t/test_monitor_stall: $(B)/obj/monitor/unit/watcher.o $(B)/obj/monitor/unit/motion.o $(B)/obj/monitor/unit/dump.o $(B)/obj/monitor/unit/stack.o $(B)/obj/monitor/unit/runtime.o $(B)/obj/monitor/unit/profile.o $(B)/obj/monitor/unit/blind.o $(B)/obj/monitor/reqtab.o $(B)/obj/monitor/comms.o $(B)/obj/monitor/unit/ops.o $(B)/obj/monitor/unit/fakeglue.o
$(B)/t/test_monitor_dump: $(B)/obj/monitor/unit/watcher.o $(B)/obj/monitor/unit/motion.o $(B)/obj/monitor/unit/dump.o $(B)/obj/monitor/unit/stack.o $(B)/obj/monitor/unit/runtime.o $(B)/obj/monitor/unit/profile.o $(B)/obj/monitor/unit/blind.o $(B)/obj/monitor/reqtab.o $(B)/obj/monitor/comms.o $(B)/obj/monitor/unit/ops.o $(B)/obj/monitor/unit/fakeglue.o
UNIT_LIBS_test_monitor_stall := -ldl
UNIT_LIBS_test_monitor_dump := -ldl
$(B)/obj/monitor/unit/%.o: monitor/%.c $(MON_GEN)/ops.h
	@mkdir -p $(dir $@)
	$(CC) $(MON_CFLAGS) -c -o $@ $<
$(B)/obj/monitor/unit/ops.o: $(MON_GEN)/ops.c $(MON_GEN)/ops.h
	@mkdir -p $(dir $@)
	$(CC) $(MON_CFLAGS) -c -o $@ $<
$(B)/obj/monitor/unit/fakeglue.o: t/unit/monitor_fakeglue.c
	@mkdir -p $(dir $@)
	$(CC) $(MON_CFLAGS) -c -o $@ $<
$(B)/t/test_monitor_%: CPPFLAGS += -Imonitor -Icalib -I$(MON_GEN)
# runtime.c reads calib/cal_timer's TSC check (the profile's clock)
$(B)/t/test_monitor_stall $(B)/t/test_monitor_dump: $(CAL_LIB)
$(B)/t/test_monitor_reqtab $(B)/t/test_monitor_comms $(B)/t/test_monitor_stall $(B)/t/test_monitor_dump: $(MON_GEN)/ops.h

# bench/overhead.sh's statistics: the rank-sum test (calib/cal_stats) and the
# Hodges-Lehmann shift with its interval, monitor on vs off (not installed).
$(B)/bench/overhead-stats: bench/overhead-stats.c $(CAL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Icalib -o $@ $< $(CAL_LIB) $(LDFLAGS) -lm
build-all: $(B)/bench/overhead-stats
