# cli/: the mpiwatch command-line tool.  Every cli/*.c is linked in; analyses
# come from analyze/ (ANALYZE_LIB) and the collector's reusable core
# (COLLECTOR_LIB) when those parts define them.
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(B)/obj/%.o)
BINS += $(B)/bin/mpiwatch
MANS += doc/man/mpiwatch.1

$(B)/bin/mpiwatch: $(CLI_OBJS) $(ANALYZE_LIB) $(COLLECTOR_LIB) $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) $(COLLECTOR_LIB) $(ANALYZE_LIB) $(IMB_LIB) $(CAL_LIB) $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) $(CURL_LIBS) $(MUNGE_LIBS) -lpthread -lm

$(B)/t/test_runlaunch: CPPFLAGS += -Icli
$(B)/t/test_runlaunch: $(B)/obj/cli/runlaunch.o
FUZZ_EXTRA_fuzz_launcher_output := cli/runlaunch.c

# mpiwatch run makes the agent's token with the collector's auth code.
$(B)/obj/cli/cmd_run.o $(B)/obj/cli/cmd_status.o: CPPFLAGS += -Icollector
