/* libFuzzer target for the settings parsers (shared/jobconf.c, through the
 * plugin's spank/mws_opts.c): the --mpiwatch argument, plugstack.conf
 * arguments, and the job's settings file that the agent, the collector and
 * the monitor read; what one writes the other must read back. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../spank/mws_opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[4096], path[64];
	struct mw_jobconf c, back;
	char *argv[16];
	int argc = 0, fd;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	/* The bytes as a settings file. */
	fd = memfd_create("settings", 0);
	if (fd >= 0 && write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (mw_jobconf_init(&c) == 0) {
			mw_jobconf_read(&c, path, err, sizeof(err));
			mw_jobconf_free(&c);
		}
	}
	if (fd >= 0)
		close(fd);
	/* The bytes as --mpiwatch=..., then as whitespace-split plugstack
	 * arguments; the result written and read back must be the same. */
	char *copy = strdup(s);
	for (char *save = NULL, *w = strtok_r(s, " \t\n", &save); w && argc < 16;
	     w = strtok_r(NULL, " \t\n", &save))
		argv[argc++] = w;
	if (copy && mws_conf_load(&c, argc, argv, 1, copy, err, sizeof(err)) >= 0) {
		char a[8192], b[8192];
		static char dir[] = "/tmp/fuzz-jobconf.XXXXXX";
		static int have_dir;
		if (!have_dir)
			have_dir = mkdtemp(dir) != NULL;
		snprintf(path, sizeof(path), "%s/settings", dir);
		if (have_dir && mw_jobconf_resolve(&c, 42, "/home/u") == 0 && mw_jobconf_init(&back) == 0) {
			if (mw_jobconf_write(&c, path, (uid_t)-1, (gid_t)-1) == 0 &&
			    mw_jobconf_read(&back, path, err, sizeof(err)) == 0) {
				mw_jobconf_summary(&c, a, sizeof(a));
				mw_jobconf_summary(&back, b, sizeof(b));
				if (strcmp(a, b))
					abort(); /* written, then read back differently */
			}
			mw_jobconf_free(&back);
		}
		mw_jobconf_free(&c);
	}
	free(copy);
	free(s);
	return 0;
}
