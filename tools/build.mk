# tools/: programs for the developers, built with the rest, never installed.
# mw-protodoc writes the generated parts of the documentation from the tables
# the code walks: doc/protocol.md's message layouts (the heartbeat codec's,
# shared/hb_layout.c; `make protodoc`, checked by test_hb_doc) and
# doc/admin.md's metrics table (nodehealthd's, nodehealthd/nhd_metrics.c;
# `make metricsdoc`, checked by test_nhd_metrics).
build-all: $(B)/tools/mw-protodoc
$(B)/tools/mw-protodoc: tools/mw-protodoc.c $(B)/obj/nodehealthd/nhd_metrics.o $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(JSON_CFLAGS) -Ishared -Inodehealthd -o $@ $< $(B)/obj/nodehealthd/nhd_metrics.o $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) -lm

.PHONY: protodoc metricsdoc
protodoc: $(B)/tools/mw-protodoc
	$(B)/tools/mw-protodoc --update doc/protocol.md
metricsdoc: $(B)/tools/mw-protodoc
	$(B)/tools/mw-protodoc --part metrics --update doc/admin.md
