/* probe.h - the UDP liveness probe: wire format and a parallel client.
 *
 * A collector (or "mpiwatch probe") sends a PROBE to the nodehealthd of every
 * node; each daemon answers with a REPLY that echoes the probe's random nonce
 * and carries the node's state (alive or degraded) and a short health summary.
 * The format is described in doc/protocol.md.  All integers are big-endian.
 *
 *   PROBE (exactly MW_PROBE_MIN_SIZE..MW_PROBE_MAX_SIZE bytes)
 *     0  u32 magic "MWPB"       4  u8 version (1)   5  u8 type (1 = probe)
 *     6  u16 flags (0)          8  u8 nonce[16]     24 zero padding
 *   REPLY (never longer than the probe it answers)
 *     0..23 as above, type 2, flags bit 0 = summary truncated
 *     24 u8 state (1 alive, 2 degraded)   25 u8 failed checks
 *     26 u8 name_len   27 u8 reserved (0)   28 u16 summary_len   30 u16 reserved
 *     32 u32 age of the health result in seconds
 *     36 name[name_len] summary[summary_len]   (ASCII, no NUL)
 *     then, with flags bit 1 (FACTORS), 12 bytes of what the node knows of
 *     itself (the tree's fuzzy placement, doc/tree.md): u32 load average x
 *     1000, u32 free memory MiB (both 0xffffffff unknown), u16 online cores
 *     (0 unknown), u16 reserved (0)
 *     then, with flags bit 2 (CALIB), 12 bytes of the node's last timer
 *     calibration (doc/calibrate.md): u32 shortest trustworthy interval ns
 *     (0 none found), u32 resolution ns (0 none resolved; both rounded up),
 *     u8 bit 0 = the calibration made the node degraded, u8 reserved (0),
 *     u16 reserved (0)
 */
#ifndef MW_PROBE_H
#define MW_PROBE_H

#include <stddef.h>
#include <stdint.h>

#define MW_PROBE_MAGIC 0x4D575042u /* "MWPB" */
#define MW_PROBE_VERSION 1
#define MW_PROBE_TYPE_PROBE 1
#define MW_PROBE_TYPE_REPLY 2
#define MW_PROBE_NONCE_LEN 16
#define MW_PROBE_HDR_LEN 24
#define MW_PROBE_REPLY_HDR_LEN 36
#define MW_PROBE_MIN_SIZE 256  /* probes are padded to this; replies fit in it */
#define MW_PROBE_MAX_SIZE 1472 /* larger datagrams are malformed */
#define MW_PROBE_DEFAULT_PORT 717 /* privileged: no user can bind it (doc/security.md) */
#define MW_PROBE_DEFAULT_PORT_STR "717" /* the same, for settings tables */
#define MW_PROBE_PRIV_PORT_MIN 512   /* source ports of MW_PROBE_F_PRIVSRC probes: 512..1023 */
#define MW_PROBE_F_PRIVSRC 0x1u     /* probes go out from a privileged source port */
#define MW_PROBE_F_FIRST 0x2u       /* node 0 decides: the round ends once it answered */
#define MW_PROBE_RTT_FACTOR 10.0   /* once a node answered: a try waits 10 x the slowest round trip... */
#define MW_PROBE_MIN_ROUND_S 1.0   /* ...but the tries to a silent node span at least 1 s (or the budget) */
#define MW_PROBE_NAME_MAX 63
#define MW_PROBE_SUMMARY_MAX (MW_PROBE_MIN_SIZE - MW_PROBE_REPLY_HDR_LEN)
#define MW_PROBE_FLAG_TRUNCATED 0x0001
#define MW_PROBE_FLAG_FACTORS 0x0002
#define MW_PROBE_FACTORS_LEN 12
#define MW_PROBE_FLAG_CALIB 0x0004
#define MW_PROBE_CALIB_LEN 12

/* What a node's nodehealthd knows of its own resources (the factor set of
 * the tree's fuzzy placement).  Negative (cores: 0) = unknown. */
struct mw_probe_factors {
	double load;         /* 1-minute load average */
	double mem_free_mb;  /* MemAvailable, MiB */
	int cores;           /* online cores */
};

/* What a node's last timer calibration found (nodehealthd's quick one at
 * start or on request: the figures a job on the node can trust). */
struct mw_probe_calib {
	double interval_ns;   /* shortest trustworthy interval R0; 0: none found */
	double resolution_ns; /* the resolution; 0: none resolved */
	int degraded;         /* the calibration made the node degraded */
};

enum mw_probe_state {
	MW_PROBE_DEAD = 0,     /* no valid reply within the budget */
	MW_PROBE_ALIVE = 1,    /* answered, all health checks pass */
	MW_PROBE_DEGRADED = 2, /* answered, some health check failed */
	MW_PROBE_ERROR = 3,    /* could not be probed (name does not resolve...) */
	MW_PROBE_NODAEMON = 4, /* the node's kernel refused the probe port (ICMP port
				* unreachable from the node itself): the node is up,
				* no nodehealthd listens there */
};

/* Why a datagram was rejected by mw_probe_decode_*(); index of the daemon's
 * malformed-packet counters. */
enum mw_probe_err {
	MW_PROBE_OK = 0,
	MW_PROBE_E_SHORT,    /* shorter than the minimum for its type */
	MW_PROBE_E_LONG,     /* longer than MW_PROBE_MAX_SIZE */
	MW_PROBE_E_MAGIC,    /* wrong magic */
	MW_PROBE_E_VERSION,  /* unsupported version */
	MW_PROBE_E_TYPE,     /* wrong type for where it arrived */
	MW_PROBE_E_FORMAT,   /* inconsistent lengths, bad state, non-ASCII text */
	MW_PROBE_E_NCODES
};

/* A decoded reply (names and summary NUL-terminated, sanitised). */
struct mw_probe_reply {
	uint8_t nonce[MW_PROBE_NONCE_LEN];
	int state;        /* MW_PROBE_ALIVE or MW_PROBE_DEGRADED */
	int failed;       /* number of failed health checks */
	int truncated;    /* the summary was cut to fit */
	uint32_t age_s;   /* age of the health result */
	char name[MW_PROBE_NAME_MAX + 1];
	char summary[MW_PROBE_SUMMARY_MAX + 1];
	int has_factors;  /* the reply carried the factors block */
	struct mw_probe_factors f;
	int has_calib;    /* the reply carried the calibration block */
	struct mw_probe_calib cal;
};

/* One node's result from mw_probe_nodes(). */
struct mw_probe_result {
	enum mw_probe_state state;
	double rtt_ms;   /* round trip of the answered attempt; -1 when dead */
	int tries;       /* probes sent */
	int failed;      /* failed health checks reported by the node */
	char name[MW_PROBE_NAME_MAX + 1];        /* name the daemon reported */
	char summary[MW_PROBE_SUMMARY_MAX + 1];  /* health summary, or the error */
	char addr[64];                           /* numeric address probed */
	int has_factors;                         /* the reply carried f */
	struct mw_probe_factors f;               /* the node's load, memory, cores */
	int has_calib;                           /* the reply carried cal */
	struct mw_probe_calib cal;               /* the node's last calibration */
};

/* Return a static string for a state ("alive", "dead", "degraded", "error",
 * "no daemon"). */
const char *mw_probe_state_name(enum mw_probe_state s);

/* Return a static string for a decode error code. */
const char *mw_probe_err_name(enum mw_probe_err e);

/* Write a probe carrying nonce into buf (len >= MW_PROBE_MIN_SIZE): the
 * header, then zero padding up to MW_PROBE_MIN_SIZE.  Return the number of
 * bytes written (MW_PROBE_MIN_SIZE), or -1 if buf is too small (errno EINVAL). */
int mw_probe_encode_probe(uint8_t *buf, size_t len, const uint8_t nonce[MW_PROBE_NONCE_LEN]);

/* Check a received datagram as a probe and copy its nonce.  Return MW_PROBE_OK
 * or the reason it is malformed (an enum mw_probe_err). */
enum mw_probe_err mw_probe_decode_probe(const uint8_t *buf, size_t len,
					uint8_t nonce[MW_PROBE_NONCE_LEN]);

/* Write the reply to a probe of probe_len bytes into buf (len bytes):
 * state, failed checks, age, node name and summary; the name is cut to
 * MW_PROBE_NAME_MAX and the summary cut (flag TRUNCATED) so that the reply is
 * never longer than probe_len nor len.  Non-printable bytes become '?'.
 * Return the reply length, or -1 (errno EINVAL) if even the header does not
 * fit. */
int mw_probe_encode_reply(uint8_t *buf, size_t len, size_t probe_len,
			  const uint8_t nonce[MW_PROBE_NONCE_LEN], int state, int failed,
			  uint32_t age_s, const char *name, const char *summary);

/* mw_probe_encode_reply with the factors block f (NULL: none; same as
 * mw_probe_encode_reply).  The block is kept when the reply has room for
 * it (the summary is cut first). */
int mw_probe_encode_reply_factors(uint8_t *buf, size_t len, size_t probe_len,
				  const uint8_t nonce[MW_PROBE_NONCE_LEN], int state, int failed,
				  uint32_t age_s, const char *name, const char *summary,
				  const struct mw_probe_factors *f);

/* mw_probe_encode_reply_factors with the calibration block cal as well
 * (NULL: none).  Each block is kept when the reply has room for it, the
 * factors first (the summary is cut before either). */
int mw_probe_encode_reply_ex(uint8_t *buf, size_t len, size_t probe_len,
			     const uint8_t nonce[MW_PROBE_NONCE_LEN], int state, int failed,
			     uint32_t age_s, const char *name, const char *summary,
			     const struct mw_probe_factors *f, const struct mw_probe_calib *cal);

/* Decode a reply.  Return MW_PROBE_OK and fill out, or an error code. */
enum mw_probe_err mw_probe_decode_reply(const uint8_t *buf, size_t len, struct mw_probe_reply *out);

/* Fill nonce with random bytes (getrandom).  Return 0, or -1 (errno set). */
int mw_probe_nonce(uint8_t nonce[MW_PROBE_NONCE_LEN]);

/* The time between two tries to a node that has not answered yet (a round's
 * retry schedule): while no node of the round has answered (rtt_s < 0), the
 * budget shared by the tries, budget_s / tries; once nodes answered, rtt_s
 * is the slowest round trip among them and the tries follow it:
 * MW_PROBE_RTT_FACTOR x rtt_s, at least MW_PROBE_MIN_ROUND_S / tries (the
 * floor: a slow or loaded node's daemon gets that long to answer any of its
 * tries) and at most budget_s / tries.  Pure. */
double mw_probe_spacing(double budget_s, int tries, double rtt_s);

/* Probe n nodes in parallel.  names[i] is the node name (used to resolve the
 * address when addrs is NULL or addrs[i] is NULL or ""), addrs[i] an optional
 * address or name to send to.  Each node gets up to tries probes (each with a
 * fresh nonce), spaced by mw_probe_spacing: over budget_s seconds while no
 * node answered, after the first answers as the round trips measured say (a
 * dead node among live ones is judged after MW_PROBE_MIN_ROUND_S on a LAN,
 * not after the whole budget); a reply to any try counts until the round's
 * end, and only if it comes
 * from the probed address and port and echoes a nonce sent to that node.
 * out[i] receives the result of node i (MW_PROBE_ERROR when its address
 * cannot be resolved).
 * Replies are matched through an index of the nonces sent, so the cost is
 * linear in n (at most 16M nodes).
 * A node whose own kernel refuses the port (ICMP port unreachable, read from
 * the socket's error queue) is MW_PROBE_NODAEMON: up, without a daemon.
 * Return the number of nodes that answered (alive or degraded), or -1 on a
 * local error such as no socket (errno set; out[] then all ERROR). */
int mw_probe_nodes(const char *const *names, const char *const *addrs, size_t n, uint16_t port,
		   double budget_s, int tries, struct mw_probe_result *out);

/* mw_probe_nodes with flags: MW_PROBE_F_PRIVSRC sends the probes from a
 * random free source port in MW_PROBE_PRIV_PORT_MIN..1023 (never port
 * itself), which only a process with CAP_NET_BIND_SERVICE can bind: the
 * answering daemon gives such probes their own rate limit, out of reach of
 * any user's flood (nodehealthd's re-probes, doc/security.md).  Without
 * the capability the probes go out from an ephemeral port (warned once). */
int mw_probe_nodes_ex(const char *const *names, const char *const *addrs, size_t n, uint16_t port,
		      double budget_s, int tries, unsigned flags, struct mw_probe_result *out);

/* The same probe round without blocking, for an event loop (the collector,
 * a CP): mw_probe_nodes() is start, then step after each poll of the fds
 * for POLLIN with the timeout, until step says done, then finish. */
struct mw_probe_round;
struct pollfd;

/* Resolve the n nodes (as mw_probe_nodes), open the sockets and send the
 * first tries; out[] (n entries, the caller's, kept until finish) fills as
 * replies come.  Return the round, or NULL with errno set (EINVAL: bad
 * arguments; ENOMEM).  A local error after the arguments are taken (no
 * socket) gives a round that is done, whose finish returns -1. */
struct mw_probe_round *mw_probe_round_start(const char *const *names, const char *const *addrs, size_t n,
					    uint16_t port, double budget_s, int tries,
					    struct mw_probe_result *out);

/* mw_probe_round_start with flags (MW_PROBE_F_*, as mw_probe_nodes_ex).
 * MW_PROBE_F_FIRST: node 0 is the one asked about, the others are there for
 * their round trips (the retry schedule of node 0, mw_probe_spacing) and
 * what they tell besides: the round is over as soon as node 0 answered
 * (alive or degraded; not when its kernel refused the port: the others'
 * results may still be needed); the others' results are then as far as the
 * round got (a silent one: dead after fewer tries). */
struct mw_probe_round *mw_probe_round_start_ex(const char *const *names, const char *const *addrs, size_t n,
					       uint16_t port, double budget_s, int tries, unsigned flags,
					       struct mw_probe_result *out);

/* The round's sockets to poll for POLLIN into pfd (at most max); 0 when done. */
int mw_probe_round_fds(const struct mw_probe_round *r, struct pollfd *pfd, int max);

/* Milliseconds until the round must be stepped even if nothing came (the
 * next tries, or its end); 0 when it should be stepped now. */
int mw_probe_round_timeout_ms(const struct mw_probe_round *r);

/* Read what came (an answer's round trip may bring the next tries and the
 * end forward: mw_probe_spacing), send the next tries when their time has
 * come.  Return 1 when the round is over (every node answered, or every
 * try of the silent ones had its time), 0
 * while it goes on, -1 after a local error (finish tells). */
int mw_probe_round_step(struct mw_probe_round *r);

/* End the round (done or not: the nodes not answered are dead, with "no
 * reply to N probes"), free it.  Return the number of nodes that answered
 * (alive or degraded), or -1 after a local error (errno set; out[] then all
 * MW_PROBE_ERROR). */
int mw_probe_round_finish(struct mw_probe_round *r);

#endif
