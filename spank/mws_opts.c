/* mws_opts.c - the plugin's settings (mws_opts.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mws_opts.h"

int mws_conf_init(struct mw_jobconf *c)
{
	char err[256];
	if (mw_jobconf_init(c) < 0)
		return -1;
	if (mw_jobconf_set(c, MW_JC_SITE, "lib", MWS_DEFAULT_LIBDIR "/libmpiwatch.so", err, sizeof(err)) < 0 ||
	    mw_jobconf_set(c, MW_JC_SITE, "bindir", MWS_DEFAULT_BINDIR, err, sizeof(err)) < 0) {
		mw_jobconf_free(c);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int mws_conf_load(struct mw_jobconf *c, int argc, char **argv, int user_given, const char *user_arg,
		  char *err, size_t errlen)
{
	char uerr[512];
	int bad;

	if (errlen)
		err[0] = '\0';
	if (mws_conf_init(c) < 0) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	bad = mw_jobconf_parse_site(c, argc, argv, err, errlen);
	if (user_given && mw_jobconf_parse_user(c, user_arg, uerr, sizeof(uerr)) < 0) {
		/* Checked when the option was given: cannot happen. */
		size_t used = strlen(err);
		snprintf(err + used, errlen - used, "%s%s", used ? "\n" : "", uerr);
		bad++;
	}
	return bad;
}

int mws_partition_off(const struct mw_jobconf *c, const char *partition)
{
	size_t n = partition ? strlen(partition) : 0;
	const char *p = c->off_partitions ? c->off_partitions : "";
	if (!n)
		return 0;
	while (*p) {
		size_t l = strcspn(p, ",");
		if (l == n && !strncmp(p, partition, n))
			return 1;
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}
