# Lab tools in C (the Python ones in t/tools run as they are):
#   t/tools/nfdelay.c -> build/t/nfdelay  (t/lab/slow-link: added latency on
#   a node's link through a netfilter queue, where the kernel has no netem;
#   Debian's libnetfilter-queue-dev)
LAB_TOOLS := $(B)/t/nfdelay
NFQ_LIBS  := $(shell pkg-config --libs libnetfilter_queue 2>/dev/null || echo -lnetfilter_queue)

$(B)/t/nfdelay: t/tools/nfdelay.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(NFQ_LIBS)
