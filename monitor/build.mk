# monitor/: libmpiwatch, the PMPI monitor inside every MPI rank.
#
#   build/lib/libmpiwatch.so          the dispatcher to LD_PRELOAD
#   build/lib/libmpiwatch-openmpi.so  wrappers built with mpicc.openmpi (+ Fortran)
#   build/lib/libmpiwatch-mpich.so    wrappers built with mpicc.mpich
# The wrappers, the op table and the trampolines are generated from
# monitor/mpi.spec by monitor/gen.py into build/gen/monitor/.
MON_GEN   := $(B)/gen/monitor
MON_SPEC  := monitor/mpi.spec monitor/gen.py
MON_CORE  := runtime.c reqtab.c comms.c watcher.c motion.c dump.c stack.c profile.c
MON_VSRCS := $(addprefix monitor/,$(MON_CORE) mpiglue.c)
MON_LIBS  := $(B)/lib/libmpiwatch.so $(B)/lib/libmpiwatch-openmpi.so $(B)/lib/libmpiwatch-mpich.so
LIBS      += $(MON_LIBS)
MANS      += doc/man/libmpiwatch.7
CLEAN     +=

$(MON_GEN)/%: $(MON_SPEC)
	@mkdir -p $(dir $@)
	python3 monitor/gen.py monitor/mpi.spec $@

$(MON_GEN)/ops.c $(MON_GEN)/wrappers.c: $(MON_GEN)/ops.h

MON_CFLAGS = -std=gnu11 $(OPT) -fPIC $(WARN) $(HARDEN) -MMD -MP -fvisibility=default -fno-omit-frame-pointer \
  -Ishared -Imonitor -I$(MON_GEN) -DMW_VERSION='"$(VERSION)"' -D_GNU_SOURCE $(JSON_CFLAGS)

# One object directory per MPI; the wrappers are compiled with that MPI's mpicc.
define mon_variant
$(B)/obj/monitor/$(1)/%.o: monitor/%.c $(MON_GEN)/ops.h
	@mkdir -p $$(dir $$@)
	mpicc.$(1) $$(MON_CFLAGS) $(2) -c -o $$@ $$<
$(B)/obj/monitor/$(1)/gen_%.o: $(MON_GEN)/%.c $(MON_GEN)/ops.h
	@mkdir -p $$(dir $$@)
	mpicc.$(1) $$(MON_CFLAGS) $(2) -Wno-unused-parameter -c -o $$@ $$<
$(B)/lib/libmpiwatch-$(1).so: $(addprefix $(B)/obj/monitor/$(1)/,$(MON_CORE:.c=.o) mpiglue.o gen_wrappers.o gen_ops.o) $(SHARED_LIB)
	@mkdir -p $$(dir $$@)
	mpicc.$(1) -shared -o $$@ $$(filter %.o,$$^) $(SHARED_LIB) $(LDFLAGS) -Wl,-Bsymbolic $(JSON_LIBS) -ldl -lpthread
endef
$(eval $(call mon_variant,openmpi,-DMWM_FORTRAN))
$(eval $(call mon_variant,mpich,))

$(B)/obj/monitor/tramp.o: $(MON_GEN)/tramp.S
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $<

$(B)/lib/libmpiwatch.so: $(B)/obj/monitor/dispatch.o $(B)/obj/monitor/tramp.o
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDFLAGS) -ldl -lpthread

# unit tests: the MPI-independent core, compiled without MPI
UNIT_TESTS += $(addprefix $(B)/t/,test_monitor_comms test_monitor_dump test_monitor_reqtab test_monitor_stall)
MON_UNIT_OBJS := $(addprefix $(B)/obj/monitor/,reqtab.o comms.o)
$(B)/t/test_monitor_reqtab: $(B)/obj/monitor/reqtab.o
$(B)/t/test_monitor_comms: $(B)/obj/monitor/comms.o
$(B)/t/test_monitor_stall: $(B)/obj/monitor/unit/watcher.o $(B)/obj/monitor/unit/motion.o $(B)/obj/monitor/unit/dump.o $(B)/obj/monitor/unit/stack.o $(B)/obj/monitor/unit/runtime.o $(B)/obj/monitor/unit/profile.o $(B)/obj/monitor/reqtab.o $(B)/obj/monitor/comms.o $(B)/obj/monitor/unit/ops.o $(B)/obj/monitor/unit/fakeglue.o
$(B)/t/test_monitor_dump: $(B)/obj/monitor/unit/watcher.o $(B)/obj/monitor/unit/motion.o $(B)/obj/monitor/unit/dump.o $(B)/obj/monitor/unit/stack.o $(B)/obj/monitor/unit/runtime.o $(B)/obj/monitor/unit/profile.o $(B)/obj/monitor/reqtab.o $(B)/obj/monitor/comms.o $(B)/obj/monitor/unit/ops.o $(B)/obj/monitor/unit/fakeglue.o
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
$(B)/t/test_monitor_%: CPPFLAGS += -Imonitor -I$(MON_GEN)
$(B)/t/test_monitor_reqtab $(B)/t/test_monitor_comms $(B)/t/test_monitor_stall $(B)/t/test_monitor_dump: $(MON_GEN)/ops.h
