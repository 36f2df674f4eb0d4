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
