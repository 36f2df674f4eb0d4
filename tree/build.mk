# tree/: the tree overlay between the node agents and the collector (seed 003,
# doc/tree.md): CP placement (best-effort average, fuzzy evaluation), the
# k-ary tree, the attach plan, the tree's messages and their aggregation.
# A library (prefix mwt_) linked into the mpiwatch CLI ("mpiwatch topo").
TREE_SRCS := $(wildcard tree/*.c)
TREE_OBJS := $(TREE_SRCS:%.c=$(B)/obj/%.o)
TREE_LIB  := $(B)/lib/libmwtree.a

$(TREE_LIB): $(TREE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/obj/tree/%.o: CPPFLAGS += -Itree
LIBS += $(TREE_LIB)

# Unit tests: t/unit/test_tree_*.c
TREE_UNIT := $(patsubst t/unit/%.c,$(B)/t/%,$(wildcard t/unit/test_tree_*.c))
UNIT_TESTS += $(TREE_UNIT)
$(TREE_UNIT): $(TREE_LIB)
$(TREE_UNIT): CPPFLAGS += -Itree

# "mpiwatch topo" (cli/cmd_topo.c)
$(B)/obj/cli/cmd_topo.o: CPPFLAGS += -Itree
$(B)/bin/mpiwatch: $(TREE_LIB)

# Fuzz target: the BE counts file parser.
FUZZERS += $(B)/fuzz/fuzz_tree_counts
FUZZ_EXTRA_fuzz_tree_counts := tree/mwt_counts.c tree/mwt_place.c -Itree
$(B)/fuzz/fuzz_tree_counts: tree/mwt_counts.c tree/mwt_counts.h tree/mwt_place.c

# Fuzz target: the decoder of a CP's aggregate (MW_HB_AGG payload).
FUZZERS += $(B)/fuzz/fuzz_tree_agg
FUZZ_EXTRA_fuzz_tree_agg := tree/mwt_agg.c tree/mwt_aggjson.c tree/mwt_err.c -Itree
$(B)/fuzz/fuzz_tree_agg: tree/mwt_agg.c tree/mwt_aggjson.c tree/mwt_aggstate.h tree/mwt_agg.h

# The in-process simulator (bench/tree-sim, doc/benchmarks.md): not installed.
build-all: $(B)/bench/tree-sim
$(B)/bench/tree-sim: bench/tree-sim.c $(TREE_LIB) $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itree $(CFLAGS) -o $@ $< $(TREE_LIB) $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) -lpthread -lm

# The CP role (tree/mwt_cp.c) talks MUNGE through shared/auth.c and runs on
# a libuv loop.
UNIT_LIBS_test_tree_cp := $(MUNGE_LIBS) $(UV_LIBS)

# The real-process bench's fake stuck ranks (bench/tree-agents): not installed.
build-all: $(B)/bench/tree-ranks
$(B)/bench/tree-ranks: bench/tree-ranks.c $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) -lpthread -lm

# Fuzz target: the decoder of a CP's probe summary (MW_HB_PROBESUM payload).
FUZZERS += $(B)/fuzz/fuzz_tree_probe
FUZZ_EXTRA_fuzz_tree_probe := tree/mwt_probe.c tree/mwt_err.c -Itree
$(B)/fuzz/fuzz_tree_probe: tree/mwt_probe.c tree/mwt_probe.h
