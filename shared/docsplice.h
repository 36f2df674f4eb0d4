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

#endif
