# shared/: the common library linked into every program, the monitor and the plugin.
SHARED_SRCS := $(wildcard shared/*.c)
SHARED_OBJS := $(SHARED_SRCS:%.c=$(B)/obj/%.o)
SHARED_LIB  := $(B)/lib/libmwshared.a
# The op table every slot reader derives a call's name, kind and arguments
# from (generated from monitor/mpi.spec by monitor/gen.py: monitor/build.mk).
SHARED_OBJS += $(B)/obj/shared/slot_ops.o
$(B)/obj/shared/slot_ops.o: $(B)/gen/monitor/ops.c shared/mw_slot.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ishared -c -o $@ $<
# (the fuzz targets compile SHARED_SRCS themselves: the table goes with them)
SHARED_SRCS += $(B)/gen/monitor/ops.c

$(SHARED_LIB): $(SHARED_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# Unit tests of the shared modules (t/unit/test_<name>.c).
UNIT_TESTS += $(addprefix $(B)/t/,test_cliopt test_conf test_drainreq test_elfneeded test_fsutil test_hb test_hb_doc test_hb_wire \
	test_hostlist test_jobconf test_settings test_jsonschema test_link test_log test_mw_json test_mw_jnum test_probe test_runcmd test_slotnames test_slurm test_uvcmd test_uvprobe)

# test_uvcmd runs real children on a libuv loop, test_uvprobe probe rounds.
UNIT_LIBS_test_uvcmd := $(UV_LIBS)
UNIT_LIBS_test_uvprobe := $(UV_LIBS)
# (its responder is the one of the collector's probe tests)
$(B)/t/test_uvprobe: t/unit/probe_responder.c
UNIT_LIBS_test_slurm := $(UV_LIBS)

# test_hb checks the handshake's proofs (auth.c: MUNGE's library).
UNIT_LIBS_test_hb := $(MUNGE_LIBS)

# Fuzz targets of its parsers (fuzz/fuzz_<name>.c): command-line options, the drain request and
# Slurm's JSON answers, ELF headers, the heartbeat codec, host lists, probe
# packets, slots, key = value files, the one-machine token file, an agent's
# link error file (the collector's read_link_errors).
FUZZERS += $(addprefix $(B)/fuzz/,fuzz_auth_token fuzz_cliopt fuzz_conf fuzz_drainreq fuzz_elfneeded fuzz_heartbeat \
	fuzz_hostlist fuzz_link_error fuzz_probe fuzz_slot)

# The link liveness cost (bench/liveness-cost, doc/benchmarks.md): not installed.
build-all: $(B)/bench/liveness-cost
$(B)/bench/liveness-cost: bench/liveness-cost.c $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ishared -o $@ $< $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) -lpthread -lm
