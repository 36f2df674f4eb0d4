/* runcmd.h - run a program without a shell, with a time limit: Slurm's
 * commands (shared/slurm.c) and nodehealthd's drain hooks. */
#ifndef MW_RUNCMD_H
#define MW_RUNCMD_H

/* Run argv (argv[0] a path) without a shell, feeding input (may be NULL) on
 * stdin and collecting stdout and stderr (at most 1 MiB) into *output
 * (malloc'd, NUL-terminated; may be NULL to discard).  The child gets an empty
 * signal mask and is killed after timeout_s.
 * Return the exit status (0-255), 128+signal if it was killed, or -1 if it
 * could not be run (errno set; ETIMEDOUT on timeout). */
int mw_run_command(char *const argv[], const char *input, double timeout_s, char **output);

#endif
