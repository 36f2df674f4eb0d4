/* settings.c - read-only access to the process's settings (settings.h). */
#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static struct mw_jobconf cur;              /* the process's settings */
static int ready;                          /* cur holds at least the defaults */
static int sealed;                         /* loaded: read-only */
static unsigned char given[MW_SET_COUNT];  /* set by an override or mw_settings_set */

/* cur with the table's defaults (once). */
static struct mw_jobconf *settings(void)
{
	if (!ready && mw_jobconf_init(&cur) == 0)
		ready = 1;
	return &cur;
}

void mw_settings_reset(void)
{
	if (ready)
		mw_jobconf_free(&cur);
	ready = sealed = 0;
	memset(given, 0, sizeof given);
	settings();
}

int mw_settings_sealed(void)
{
	return sealed;
}

int mw_settings_set(enum mw_setting s, const char *val, char *err, size_t errlen)
{
	if ((unsigned)s >= MW_SET_COUNT) {
		snprintf(err, errlen, "no setting %d", (int)s);
		errno = ENOENT;
		return -1;
	}
	if (sealed) {
		snprintf(err, errlen, "%s: the settings are read-only once loaded", mw_jobconf_keys[s].name);
		errno = EPERM;
		return -1;
	}
	if (mw_conf_set(mw_jobconf_keys, settings(), mw_jobconf_keys[s].name, val, err, errlen) < 0)
		return -1;
	given[s] = 1;
	return 0;
}

int mw_settings_load(const char *file, const struct mw_jobconf_override *ov, int n, char *err,
		     size_t errlen)
{
	struct mw_jobconf c;

	if (mw_jobconf_load(&c, file, ov, n, err, errlen) < 0) {
		mw_settings_reset();
		return -1;
	}
	mw_settings_reset();
	mw_jobconf_free(&cur);
	cur = c;
	for (int i = 0; i < n; i++) {
		const struct mw_conf_key *k = mw_conf_find(mw_jobconf_keys, ov[i].key);
		if (k)
			given[k - mw_jobconf_keys] = 1;
	}
	sealed = 1;
	return 0;
}

/* The field of s in cur, if s is a setting of type t; else NULL. */
static const void *field(enum mw_setting s, enum mw_conf_type t)
{
	if ((unsigned)s >= MW_SET_COUNT || mw_jobconf_keys[s].type != t)
		return NULL;
	return (const char *)settings() + mw_jobconf_keys[s].offset;
}

long mw_setting_long(enum mw_setting s)
{
	const void *p;
	if ((p = field(s, MW_CONF_INT)))
		return *(const long *)p;
	if ((p = field(s, MW_CONF_DOUBLE)))
		return (long)*(const double *)p;
	return 0;
}

double mw_setting_double(enum mw_setting s)
{
	const void *p;
	if ((p = field(s, MW_CONF_DOUBLE)))
		return *(const double *)p;
	if ((p = field(s, MW_CONF_INT)))
		return (double)*(const long *)p;
	return 0;
}

int mw_setting_int(enum mw_setting s)
{
	const void *p;
	if ((p = field(s, MW_CONF_BOOL)) || (p = field(s, MW_CONF_ENUM)))
		return *(const int *)p;
	return 0;
}

const char *mw_setting_str(enum mw_setting s)
{
	const void *p = field(s, MW_CONF_STRING);
	const char *v = p ? *(char *const *)p : NULL;
	return v ? v : "";
}

int mw_setting_given(enum mw_setting s)
{
	return (unsigned)s < MW_SET_COUNT && given[s];
}

double mw_settings_hang_limit(void)
{
	return mw_jobconf_hang_limit(mw_setting_double(MW_SET_HANG_LIMIT), mw_setting_double(MW_SET_TIMEOUT));
}

double mw_settings_settle(void)
{
	double s = mw_setting_double(MW_SET_TIMEOUT) / 4;
	if (mw_setting_given(MW_SET_SETTLE))
		return mw_setting_double(MW_SET_SETTLE);
	return s < 1 ? 1 : s > 3 ? 3 : s;
}

double mw_settings_tick(void)
{
	double t = mw_setting_double(MW_SET_TICK);
	if (t <= 0)
		t = mw_setting_double(MW_SET_TIMEOUT) / 4;
	return t < 0.1 ? 0.1 : t > 0.5 ? 0.5 : t;
}
