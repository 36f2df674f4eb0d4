/* mwt_err.c - see mwt_err.h. */
#include "mwt_err.h"

#include <stdarg.h>
#include <stdio.h>

void mwt_errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	if (!len || !err)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}
