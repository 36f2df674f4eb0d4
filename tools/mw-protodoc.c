/* mw-protodoc: the message layouts of doc/protocol.md, from the table the
 * heartbeat codec walks (shared/hb_layout.c).
 *
 *   mw-protodoc             print the generated markdown
 *   mw-protodoc --update F  rewrite the text between F's markers
 *                           (MW_HB_DOC_BEGIN, MW_HB_DOC_END) in place
 *
 * Exit 0, or 1 with a message on standard error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "heartbeat.h"

int main(int argc, char **argv)
{
	char *doc, *out;
	size_t len;
	FILE *f;

	if (argc == 1) {
		out = mw_hb_doc_layouts();
		if (!out || fputs(out, stdout) < 0)
			return 1;
		free(out);
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "--update") != 0) {
		fprintf(stderr, "usage: mw-protodoc [--update doc/protocol.md]\n");
		return 1;
	}
	if (mw_read_regular(argv[2], 1 << 22, &doc, &len)) {
		fprintf(stderr, "mw-protodoc: %s: %s\n", argv[2], mw_read_regular_why(errno));
		return 1;
	}
	out = mw_hb_doc_splice(doc);
	if (!out) {
		fprintf(stderr, "mw-protodoc: %s: %s\n", argv[2],
			errno == EINVAL ? "no markers " MW_HB_DOC_BEGIN : strerror(errno));
		return 1;
	}
	if (strcmp(out, doc) != 0) {
		f = fopen(argv[2], "w");
		if (!f || fputs(out, f) < 0 || fclose(f) != 0) {
			fprintf(stderr, "mw-protodoc: %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		fprintf(stderr, "mw-protodoc: %s updated\n", argv[2]);
	}
	free(doc);
	free(out);
	return 0;
}
