/* mwt_err.h - the tree library's error messages: one formatter for every
 * "char *err, size_t errlen" out-parameter of tree/. */
#ifndef MWT_ERR_H
#define MWT_ERR_H

#include <stddef.h>

/* Format a message into err (nothing when len is 0; always NUL-terminated). */
void mwt_errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
