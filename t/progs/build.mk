# MPI test and example programs, built once per MPI:
#   t/progs/<name>.c|.f90 and examples/<name>.c|.f90
#     -> build/progs/openmpi/<name>  and  build/progs/mpich/<name>
# Basenames must be unique across both folders.
PROG_SRCS := $(wildcard t/progs/*.c t/progs/*.f90 examples/*.c examples/*.f90)
PROG_NAMES := $(sort $(basename $(notdir $(PROG_SRCS))))
PROGS := $(foreach m,openmpi mpich,$(addprefix $(B)/progs/$(m)/,$(PROG_NAMES)))
PROG_CFLAGS := -g -O1 -fno-omit-frame-pointer -Wall
PROG_FFLAGS := -g -O1 -fno-omit-frame-pointer

define mw_prog_rules
$(B)/progs/$(1)/%: t/progs/%.c
	@mkdir -p $$(dir $$@)
	mpicc.$(1) $(PROG_CFLAGS) -o $$@ $$< -lm
$(B)/progs/$(1)/%: examples/%.c
	@mkdir -p $$(dir $$@)
	mpicc.$(1) $(PROG_CFLAGS) -o $$@ $$< -lm
$(B)/progs/$(1)/%: t/progs/%.f90
	@mkdir -p $$(dir $$@)
	mpif90.$(1) $(PROG_FFLAGS) -o $$@ $$<
$(B)/progs/$(1)/%: examples/%.f90
	@mkdir -p $$(dir $$@)
	mpif90.$(1) $(PROG_FFLAGS) -o $$@ $$<
endef
$(foreach m,openmpi mpich,$(eval $(call mw_prog_rules,$(m))))

progs: $(PROGS)
