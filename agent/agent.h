/* agent.h - the per-node, per-job agent: watches the local ranks' monitor
 * slots and sends heartbeats to the job's collector (seed 000's per-node
 * heartbeat manager). */
#ifndef AG_AGENT_H
#define AG_AGENT_H

#include <stdint.h>

struct ag_opts {
	char job[32];          /* --job */
	char node[64];         /* --node */
	char rundir[1024];     /* --rundir: the monitor's slot directory */
	char host[256];        /* --collector HOST:PORT */
	uint16_t port;
	int nports;            /* ports tried: port .. port + nports - 1 (5) */
	double timeout_s;      /* --timeout: no progress for this long => heartbeat */
	double tick_s;         /* --tick: slot scan period (0: timeout / 4); kept in 0.1 .. 0.5 s */
	double job_check_s;    /* how often to ask Slurm if the job still runs (job_check; 0 = never) */
	double backoff_max_s;  /* reconnect backoff ceiling (30 s) */
	double rundir_wait_s;  /* exit if the rundir never appears within this (600 s) */
	char munge_socket[512]; /* --munge-socket PATH ("" = MUNGE's default) */
	char auth_token[128];   /* from --auth-file: a token instead of MUNGE ("" = MUNGE) */
	char ap_conf[1024];     /* --ap-conf: the site's auxiliary processes ("" = none; agent/agap.h) */
	double liveness_s;      /* the link liveness setting (jobconf liveness; 0 = off) */
	double connect_timeout_s;   /* jobconf connect_timeout */
	double handshake_timeout_s; /* jobconf handshake_timeout */
	char outdir[4096];      /* the report folder (jobconf dir): where a link error is left
				 * for the collector's report ("" = nowhere) */
};

/* Fill o with defaults (everything but job, node, rundir, host/port). */
void ag_opts_default(struct ag_opts *o);

/* Run the agent on its own libuv loop until SIGTERM/SIGINT, its rundir
 * disappears or the job is over.  SIGTERM, SIGINT and SIGHUP are the loop's
 * (uv_signal; SIGHUP is ignored), SIGPIPE is ignored.  Return 0 on a clean
 * stop, or -1 on a startup error (logged). */
int ag_run(const struct ag_opts *o);

#endif
