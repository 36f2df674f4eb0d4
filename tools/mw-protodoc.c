/* mw-protodoc: the generated parts of the documentation, each from the one
 * table the code walks: doc/protocol.md's message layouts (the heartbeat
 * codec's, shared/hb_layout.c) and doc/admin.md's metrics table
 * (nodehealthd's, nodehealthd/nhd_metrics.c).
 *
 *   mw-protodoc [--part P]             print part P's markdown
 *   mw-protodoc [--part P] --update F  rewrite the text between F's
 *                                      markers for P in place
 *
 * P is "layouts" (the default) or "metrics".  Exit 0, or 1 with a message
 * on standard error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docsplice.h"
#include "fsutil.h"
#include "heartbeat.h"
#include "nhd_metrics.h"

static const struct mw_doc_part *const parts[] = {&mw_hb_doc_part, &nhd_metrics_doc_part};

int main(int argc, char **argv)
{
	const struct mw_doc_part *p = parts[0];
	char *doc, *out;
	size_t len;
	FILE *f;

	if (argc >= 3 && !strcmp(argv[1], "--part")) {
		p = NULL;
		for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
			if (!strcmp(argv[2], parts[i]->name))
				p = parts[i];
		argc -= 2;
		argv += 2;
	}
	if (p && argc == 1) {
		out = p->gen();
		if (!out || fputs(out, stdout) < 0)
			return 1;
		free(out);
		return 0;
	}
	if (!p || argc != 3 || strcmp(argv[1], "--update") != 0) {
		fprintf(stderr, "usage: mw-protodoc [--part layouts|metrics] [--update FILE]\n");
		return 1;
	}
	if (mw_read_regular(argv[2], 1 << 22, &doc, &len)) {
		fprintf(stderr, "mw-protodoc: %s: %s\n", argv[2], mw_read_regular_why(errno));
		return 1;
	}
	out = mw_doc_part_splice(p, doc);
	if (!out) {
		fprintf(stderr, "mw-protodoc: %s: %s%s", argv[2], errno == EINVAL ? "no markers " : strerror(errno),
			errno == EINVAL ? p->begin : "\n");
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
