/* settings.h - read-only access to the process's settings, in the spirit of
 * chrony's CNF_Get*: a helper (mpiwatch-collector, mpiwatch-agent) loads its
 * settings once (the table's defaults, the job's settings file, then the
 * settings given on its command line), and every module reads them through
 * these accessors, by the one enum per setting of shared/jobconf.h.  Nobody
 * copies a setting into a struct of its own.
 *
 * After mw_settings_load the settings are sealed: mw_settings_set refuses
 * (errno EPERM) until mw_settings_reset.  Before any load the accessors
 * answer the table's defaults.  Unit tests reset, then set what they need.
 *
 * Single-threaded by design: load and set on the main thread before the
 * loop runs; reading from other threads afterwards is safe (nothing
 * changes).
 */
#ifndef MW_SETTINGS_H
#define MW_SETTINGS_H

#include <stddef.h>

#include "jobconf.h"

/* Load the settings: the table's defaults, then the settings file (if file
 * is not NULL), then the n overrides in order (job or helper settings),
 * each checked by the table; then seal them.  Return 0, or -1 with the
 * first error in err (the settings are then the defaults, unsealed). */
int mw_settings_load(const char *file, const struct mw_jobconf_override *ov, int n, char *err,
		     size_t errlen);

/* Set one setting from text, checked by the table (any scope).  Return 0,
 * or -1 with "KEY=VAL: expected WHAT" in err (errno EINVAL), or errno EPERM
 * once the settings are sealed (err says so). */
int mw_settings_set(enum mw_setting s, const char *val, char *err, size_t errlen);

/* Back to the table's defaults, unsealed, nothing given. */
void mw_settings_reset(void);

/* Whether the settings are sealed (loaded). */
int mw_settings_sealed(void);

/* The value of setting s: mw_setting_long for an INT (a DOUBLE is
 * truncated), mw_setting_double for an INT or a DOUBLE, mw_setting_int for
 * a BOOL (0/1) or an ENUM (the index of its choice), mw_setting_str for a
 * STRING ("" when unset, never NULL).  A setting of another type, or an s
 * out of range, reads as 0 or "" (a bug the unit test of the table finds). */
long mw_setting_long(enum mw_setting s);
double mw_setting_double(enum mw_setting s);
int mw_setting_int(enum mw_setting s);
const char *mw_setting_str(enum mw_setting s);

/* Whether s was given by an override of mw_settings_load or by
 * mw_settings_set (not: a default, the settings file). */
int mw_setting_given(enum mw_setting s);

/* Derived values, each rule written once:
 * - the hang limit in effect (mw_jobconf_hang_limit of hang_limit, timeout);
 * - the collector's settle time: settle when given, else timeout/4 within
 *   [1, 3] s;
 * - the agent's slot scan period: tick (timeout/4 when not given), kept
 *   within [0.1, 0.5] s. */
double mw_settings_hang_limit(void);
double mw_settings_settle(void);
double mw_settings_tick(void);

#endif
