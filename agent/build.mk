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
