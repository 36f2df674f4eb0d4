/* docsplice.h - a generated part of a document between two marker lines:
 * the one splice both doc/protocol.md's message layouts (hb_doc.c) and
 * doc/admin.md's metrics table (nodehealthd/nhd_metrics.c) are written
 * with. */
#ifndef MW_DOCSPLICE_H
#define MW_DOCSPLICE_H

/* Copy doc (NUL-terminated) with the text between the lines begin and end
 * (both kept) replaced by gen.  Return the copy (malloc'd), or NULL with
 * errno EINVAL (a marker missing, or end before begin) or ENOMEM. */
char *mw_doc_splice(const char *doc, const char *begin, const char *end, const char *gen);

/* A generated part of a document: its name (for tools/mw-protodoc), its
 * marker lines and the generator of the text between them (malloc'd, or
 * NULL with errno set). */
struct mw_doc_part {
	const char *name, *begin, *end;
	char *(*gen)(void);
};

/* Copy doc (NUL-terminated) with part's text replaced by a fresh part->gen().
 * Return the copy (malloc'd), or NULL with errno EINVAL (a marker missing,
 * or end before begin), ENOMEM, or the generator's errno. */
char *mw_doc_part_splice(const struct mw_doc_part *part, const char *doc);

#endif
