# analyze/: offline analyses (the deadlock detector), a library linked into
# the mpiwatch CLI and the collector.
ANALYZE_SRCS := $(wildcard analyze/*.c)
ANALYZE_OBJS := $(ANALYZE_SRCS:%.c=$(B)/obj/%.o) $(B)/obj/gen/dl_dump_schema.o

# The monitor's dump schema, compiled in (analyze/dl_load.c validates with it).
$(B)/gen/dl_dump_schema.c: doc/schemas/dump.schema.json
	@mkdir -p $(dir $@)
	{ echo '/* generated from $< by analyze/build.mk */'; \
	  echo 'extern const char dl_dump_schema_text[];'; \
	  echo 'const char dl_dump_schema_text[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; echo ';'; } > $@
$(B)/obj/gen/dl_dump_schema.o: $(B)/gen/dl_dump_schema.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<
ANALYZE_LIB  := $(B)/lib/libmwanalyze.a

MANS += doc/man/mpiwatch-analyze.1

$(ANALYZE_LIB): $(ANALYZE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/obj/analyze/%.o: CPPFLAGS += -Ianalyze

# Unit tests of the deadlock analysis: t/unit/test_dl_*.c
DL_UNIT := $(patsubst t/unit/%.c,$(B)/t/%,$(wildcard t/unit/test_dl_*.c))
UNIT_TESTS += $(DL_UNIT)
$(DL_UNIT): $(ANALYZE_LIB)
$(DL_UNIT): CPPFLAGS += -Ianalyze
$(foreach t,$(DL_UNIT),$(eval UNIT_LIBS_$(notdir $(t)) += $(DW_LIBS)))
$(B)/obj/cli/cmd_analyze.o: CPPFLAGS += -Ianalyze

# Fuzz target: the whole analysis over fuzzed dumps.
FUZZERS += $(B)/fuzz/fuzz_dl_dumps
FUZZ_EXTRA_fuzz_dl_dumps := $(ANALYZE_SRCS) $(B)/gen/dl_dump_schema.c -Ianalyze $(DW_LIBS)
$(B)/fuzz/fuzz_dl_dumps: $(ANALYZE_SRCS) $(wildcard analyze/*.h) $(B)/gen/dl_dump_schema.c
