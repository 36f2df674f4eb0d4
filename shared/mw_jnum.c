/* mw_jnum.c - JSON doubles that serialize fast (mw_jnum.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mw_jnum.h"

static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

/* n / 10^d with n and 10^d exact doubles is the correctly rounded quotient,
 * which is what a correct strtod gives for the decimal string "n" with d
 * fractional digits: if it equals v, that string reads back as v. */
int mw_jnum_format(double v, char *buf)
{
	const double lim = 9007199254740992.0; /* 2^53 */
	if (!isfinite(v) || (v == 0.0 && signbit(v)))
		return 0;
	for (int d = 0; d < (int)(sizeof(p10) / sizeof(p10[0])); d++) {
		double s = v * p10[d];
		if (!(fabs(s) < lim))
			return 0;
		int64_t n = llrint(s);
		if ((double)n / p10[d] != v)
			continue;
		char dig[24];
		int nd = 0, len = 0;
		uint64_t u = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
		do {
			dig[nd++] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		while (nd <= d) /* at least one digit before the point */
			dig[nd++] = '0';
		if (n < 0)
			buf[len++] = '-';
		while (nd > d)
			buf[len++] = dig[--nd];
		buf[len++] = '.';
		if (!d)
			buf[len++] = '0';
		while (nd > 0)
			buf[len++] = dig[--nd];
		buf[len] = '\0';
		return len;
	}
	return 0;
}

static int jnum_serialize(json_object *o, struct printbuf *pb, int level, int flags)
{
	char buf[MW_JNUM_MAX];
	int n = mw_jnum_format(json_object_get_double(o), buf);
	if (!n)
		return json_object_double_to_json_string(o, pb, level, flags);
	return printbuf_memappend(pb, buf, n);
}

json_object *mw_jnum_new(double v)
{
	json_object *o = json_object_new_double(v);
	if (o)
		json_object_set_serializer(o, jnum_serialize, NULL, NULL);
	return o;
}
