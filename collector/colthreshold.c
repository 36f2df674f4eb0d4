/* colthreshold.c - the verdict's names, which heartbeat states are
 * suspicious, and the threshold rule (verdict.h): when enough ranks are
 * suspicious for an evaluation. */
#include "settings.h"
#include "verdict.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *col_verdict_name(enum col_verdict v)
{
	switch (v) {
	case COL_V_SOFTWARE:
		return "software";
	case COL_V_HARDWARE:
		return "hardware";
	default:
		return "none";
	}
}

int col_state_suspicious(int state)
{
	return state == MW_HB_S_IN_MPI || state == MW_HB_S_EXITED || state == MW_HB_S_VANISHED;
}

int col_threshold_parse(const char *s, struct col_threshold *t)
{
	char *end;
	double v;
	size_t n;

	if (!s || !*s)
		goto bad;
	n = strlen(s);
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		goto bad;
	if (s[n - 1] == '%') {
		if (end != s + n - 1 || v <= 0 || v > 100)
			goto bad;
		t->percent = 1;
	} else {
		if (*end || v < 1 || v > MW_HB_MAX_RANK + 1.0 || v != floor(v))
			goto bad;
		t->percent = 0;
	}
	t->value = v;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

long col_threshold_setting_need(long nranks)
{
	struct col_threshold t;
	if (col_threshold_parse(mw_setting_str(MW_SET_THRESHOLD), &t) < 0)
		return 1;
	return col_threshold_need(&t, nranks);
}

long col_threshold_need(const struct col_threshold *t, long nranks)
{
	long need;
	if (!t->percent)
		need = (long)t->value;
	else if (nranks <= 0)
		need = 1;
	else
		need = (long)ceil(t->value * (double)nranks / 100.0 - 1e-9);
	return need < 1 ? 1 : need;
}
