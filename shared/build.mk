# shared/: the common library linked into every program, the monitor and the plugin.
SHARED_SRCS := $(wildcard shared/*.c)
SHARED_OBJS := $(SHARED_SRCS:%.c=$(B)/obj/%.o)
SHARED_LIB  := $(B)/lib/libmwshared.a

$(SHARED_LIB): $(SHARED_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# Unit tests: t/unit/test_<name>.c -> build/t/test_<name>.  A module adds its
# own objects as extra prerequisites:  $(B)/t/test_foo: $(B)/obj/foo/bar.o
UNIT_SRCS  := $(wildcard t/unit/test_*.c)
UNIT_TESTS += $(UNIT_SRCS:t/unit/%.c=$(B)/t/%)

$(B)/t/%: t/unit/%.c $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(JSON_CFLAGS) $(CHECK_CFLAGS) -It/unit -o $@ \
	  $(filter %.c %.o,$^) $(filter-out $(SHARED_LIB),$(filter %.a,$^)) $(SHARED_LIB) \
	  $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) $(UNIT_LIBS_$*) -lpthread -lm

# Fuzz targets: fuzz/fuzz_<name>.c, built with clang's libFuzzer and ASan/UBSan.
FUZZ_SRCS := $(wildcard fuzz/fuzz_*.c)
FUZZERS   += $(FUZZ_SRCS:fuzz/%.c=$(B)/fuzz/%)
FUZZ_CC   ?= clang
$(B)/fuzz/%: fuzz/%.c $(SHARED_SRCS)
	@mkdir -p $(dir $@) $(B)/fuzz-corpus/$*
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  $(CPPFLAGS) $(JSON_CFLAGS) -Wall -Wextra -o $@ $< $(SHARED_SRCS) $(FUZZ_EXTRA_$*) $(JSON_LIBS) $(MUNGE_LIBS) -lpthread -lm
