# agent/: mpiwatch-agent, the per-node, per-job heartbeat agent.  It reads
# the monitor's slots and talks to the collector over shared/mw_link.c; it
# links the shared library and tree/ (the CP role of the tree overlay).
AGENT_SRCS := $(wildcard agent/*.c)
AGENT_OBJS := $(AGENT_SRCS:%.c=$(B)/obj/%.o)
BINS += $(B)/bin/mpiwatch-agent
MANS += doc/man/mpiwatch-agent.1 doc/man/mpiwatch-ap.conf.5

$(B)/obj/agent/%.o: CPPFLAGS += -Iagent -Itree

$(B)/bin/mpiwatch-agent: $(AGENT_OBJS) $(B)/lib/libmwtree.a $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(AGENT_OBJS) $(B)/lib/libmwtree.a $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) $(MUNGE_LIBS) $(UV_LIBS) -lpthread -lm

# Fuzz target of the site's auxiliary processes file (shared/apconf.c).
FUZZERS += $(B)/fuzz/fuzz_apconf

# Unit test of the agent's connection tries on its loop (agconnect.c,
# aghs.c): the agent's objects but its main, against loopback parents.
UNIT_TESTS += $(B)/t/test_agconnect
$(B)/t/test_agconnect: $(filter-out $(B)/obj/agent/mpiwatch-agent.o,$(AGENT_OBJS)) $(B)/lib/libmwtree.a
$(B)/t/test_agconnect: CPPFLAGS += -Iagent -Itree
UNIT_LIBS_test_agconnect := $(MUNGE_LIBS) $(UV_LIBS)

# Unit test of the agent's watch of the slots (agwatch.c) on a fake clock:
# what a rank's slot makes the agent tell (in_init, resumed, exited).
UNIT_TESTS += $(B)/t/test_agwatch
$(B)/t/test_agwatch: $(filter-out $(B)/obj/agent/mpiwatch-agent.o,$(AGENT_OBJS)) $(B)/lib/libmwtree.a
$(B)/t/test_agwatch: CPPFLAGS += -Iagent -Itree
UNIT_LIBS_test_agwatch := $(MUNGE_LIBS) $(UV_LIBS)
