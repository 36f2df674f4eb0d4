/* docsplice.c - replace the generated part of a document (docsplice.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "docsplice.h"

char *mw_doc_splice(const char *doc, const char *begin, const char *end, const char *gen)
{
	const char *b = strstr(doc, begin), *e;
	size_t head, glen, tail;
	char *out;

	if (!b || !(e = strstr(b, end))) {
		errno = EINVAL;
		return NULL;
	}
	head = (size_t)(b - doc) + strlen(begin);
	glen = strlen(gen);
	tail = strlen(e);
	out = malloc(head + glen + tail + 1);
	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(out, doc, head);
	memcpy(out + head, gen, glen);
	memcpy(out + head + glen, e, tail + 1);
	return out;
}

char *mw_doc_part_splice(const struct mw_doc_part *part, const char *doc)
{
	char *gen = part->gen(), *out;
	int e;
	if (!gen)
		return NULL;
	out = mw_doc_splice(doc, part->begin, part->end, gen);
	e = errno;
	free(gen);
	errno = e;
	return out;
}
