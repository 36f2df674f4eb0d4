/* agent.h - the per-node, per-job agent: watches the local ranks' monitor
 * slots and sends heartbeats to the job's collector (seed 000's per-node
 * heartbeat manager). */
#ifndef AG_AGENT_H
#define AG_AGENT_H

#include <stdint.h>

/* What the launcher gives this agent beyond the settings.  The settings
 * themselves (timeout, tick, ports, job check, liveness, the link's
 * timeouts, munged's socket, the report folder where a link error is left
 * for the collector) are read through shared/settings.h, loaded once by
 * the program. */
struct ag_opts {
	char job[32];          /* --job */
	char node[64];         /* --node */
	char rundir[1024];     /* --rundir: the monitor's slot directory */
	char host[256];        /* --collector HOST:PORT: ports port .. port + ports - 1 are tried */
	uint16_t port;
	double backoff_max_s;  /* reconnect backoff ceiling (30 s) */
	double rundir_wait_s;  /* exit if the rundir never appears within this (600 s) */
	char auth_token[128];   /* from --auth-file: a token instead of MUNGE ("" = MUNGE) */
	char ap_conf[1024];     /* --ap-conf: the site's auxiliary processes ("" = none; agent/agap.h) */
};

/* Fill o with defaults (everything but job, node, rundir, host/port). */
void ag_opts_default(struct ag_opts *o);

/* Run the agent (with the settings of shared/settings.h) on its own libuv
 * loop until SIGTERM/SIGINT, its rundir disappears or the job is over.  SIGTERM, SIGINT and SIGHUP are the loop's
 * (uv_signal; SIGHUP is ignored), SIGPIPE is ignored.  Return 0 on a clean
 * stop, or -1 on a startup error (logged). */
int ag_run(const struct ag_opts *o);

#endif
