# tools/: programs for the developers, built with the rest, never installed.
# mw-protodoc writes doc/protocol.md's message layouts from the table the
# heartbeat codec walks (shared/hb_layout.c); test_hb_doc checks the
# committed text.
build-all: $(B)/tools/mw-protodoc
$(B)/tools/mw-protodoc: tools/mw-protodoc.c $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(JSON_CFLAGS) -Ishared -o $@ $< $(SHARED_LIB) $(LDFLAGS) $(JSON_LIBS) -lm

.PHONY: protodoc
protodoc: $(B)/tools/mw-protodoc
	$(B)/tools/mw-protodoc --update doc/protocol.md
