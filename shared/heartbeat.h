/* heartbeat.h - the agent <-> collector wire protocol (seed 000's heartbeats).
 *
 * A TCP stream of frames.  Every frame is a 12-byte header followed by a
 * payload; all integers are big-endian:
 *
 *   0  u32 magic "MWHB"   4  u8 version (1)   5  u8 type   6  u16 flags (0)
 *   8  u32 payload length (at most MW_HB_MAX_PAYLOAD)
 *   12 payload: one JSON object (UTF-8 text, no NUL), fields per type: the table
 *
 * Every type's payload is written once, in the table of message layouts of
 * hb_layout.c (struct mw_hb_layout below): its fields, their JSON and C types,
 * their limits.  The encoder and the decoder (heartbeat.c) walk it, and so does
 * mw_hb_doc_layouts() (hb_doc.c), which writes the tables of doc/protocol.md
 * section 3 (`make protodoc`; test_hb_doc checks the committed text).  AGG and
 * PROBESUM carry a JSON object that tree/mwt_agg.c and tree/mwt_probe.c check.
 *
 * In the tree overlay a HEARTBEAT carries "seq", its origin's (the agent's)
 * sequence number (1, 2, ...), so that a receiver drops a duplicate (after a
 * re-attachment) and counts nothing twice; the flat star sends none.
 *
 * Decoding never trusts the input: lengths, types, ranges and strings are
 * checked and a malformed frame is rejected with a reason code.  Unknown
 * fields are ignored.  See the "Heartbeats" section of doc/protocol.md.
 */
#ifndef MW_HEARTBEAT_H
#define MW_HEARTBEAT_H

#include <stddef.h>
#include <stdint.h>

#include "mw_slot.h"

#define MW_HB_MAGIC 0x4D574842u /* "MWHB" */
#define MW_HB_VERSION 1
#define MW_HB_HDR_LEN 12
#define MW_HB_MAX_PAYLOAD (4u << 20) /* 4 MiB: room for a large dump */
#define MW_HB_MAX_RANK 16777215      /* 2^24 - 1 */
#define MW_HB_STR_MAX 63             /* node, host, call names... */

enum mw_hb_type {
	MW_HB_HELLO = 1,
	MW_HB_WELCOME = 2,
	MW_HB_RANK = 3,
	MW_HB_HEARTBEAT = 4,
	MW_HB_DUMP = 5,
	MW_HB_BYE = 6,
	MW_HB_DUMPREQ = 7,
	MW_HB_CHALLENGE = 8,
	MW_HB_AGG = 9,
	/* the tree overlay in use (doc/tree.md, doc/protocol.md "Tree roles"): 10-19 */
	MW_HB_ROLE = 10,   /* C->A: the agent's place in the tree */
	MW_HB_LISTEN = 11, /* CP->C: the port a CP listens on for its children */
	MW_HB_CHILD = 12,  /* CP->parent (forwarded to C): a child attached or left */
	MW_HB_PROBEREQ = 13, /* parent->CP: probe your subtree (doc/tree.md "Probing down the tree") */
	MW_HB_PROBESUM = 14, /* CP->parent: the subtree's probe summary (tree/mwt_probe.h) */
	MW_HB_VERIFY = 15,   /* A->C: the agent's nonce, first frame (mutual authentication) */
	/* 20-29: auxiliary processes (agent/agap.c, collector/colap.c) */
	MW_HB_APREQ = 20,
	MW_HB_APOUT = 21,
	MW_HB_NTYPES
};

/* The state a heartbeat reports for its rank. */
enum mw_hb_state {
	MW_HB_S_IN_MPI = 1,    /* inside a blocking MPI call (or polling) with no progress */
	MW_HB_S_COMPUTING = 2, /* outside MPI for the timeout (seed 000 cause A) */
	MW_HB_S_EXITED = 3,    /* the process ended without MPI_Finalize */
	MW_HB_S_VANISHED = 4,  /* the process is gone, status unknown */
	MW_HB_S_RESUMED = 5,   /* made progress again after an earlier heartbeat */
	MW_HB_S_FINALIZED = 6, /* finalized (sent only to resolve an earlier beat) */
	MW_HB_S_SLOW = 7,      /* in a call for the timeout without a completion, but its
				  transfer moves ("moving" says how): slow, not stuck */
	MW_HB_S_IN_INIT = 8,   /* inside MPI_Init for the timeout: never judged by time on
				  its own, a cascade once a rank of the job ended before or
				  inside MPI_Init (collector/verdict.c) */
	MW_HB_NSTATES
};

/* Why a frame was rejected (or that more bytes are needed). */
enum mw_hb_err {
	MW_HB_OK = 0,
	MW_HB_E_AGAIN,   /* incomplete: need more bytes (not an error on a stream) */
	MW_HB_E_MAGIC,   /* wrong magic */
	MW_HB_E_VERSION, /* unsupported version */
	MW_HB_E_TYPE,    /* unknown type */
	MW_HB_E_FLAGS,   /* non-zero flags */
	MW_HB_E_LONG,    /* payload longer than MW_HB_MAX_PAYLOAD */
	MW_HB_E_JSON,    /* payload is not one JSON object */
	MW_HB_E_FIELD,   /* a field is missing, of the wrong type or out of range */
	MW_HB_E_NCODES
};

#define MW_HB_NONCE_LEN 32  /* hex digits of a challenge */
#define MW_HB_CRED_MAX 1023 /* characters of a MUNGE credential */
#define MW_HB_PREAUTH_MAX 4096 /* payload bytes a link takes before its HELLO is welcomed */

struct mw_hb_hello {
	char job[32];                  /* digits, '_' and '+' */
	char node[MW_HB_STR_MAX + 1];  /* node name */
	int32_t pid;                   /* agent pid */
	int32_t ranks;                 /* local ranks known so far (may be 0) */
	char cred[MW_HB_CRED_MAX + 1]; /* MUNGE credential ("" = none) */
};

struct mw_hb_challenge {
	char nonce[MW_HB_NONCE_LEN + 1]; /* lowercase hex */
	char job[32];                    /* the collector's (or CP's) job */
	char cred[MW_HB_CRED_MAX + 1];   /* its proof (never empty on the wire) */
};

struct mw_hb_verify {
	char nonce[MW_HB_NONCE_LEN + 1]; /* the agent's, lowercase hex */
};

struct mw_hb_welcome {
	int ok;
	char error[128];
};

struct mw_hb_rank {
	int32_t rank, size, pid;
	char host[MW_HB_STR_MAX + 1];
};

struct mw_hb_beat {
	int32_t rank, size, pid;
	enum mw_hb_state state;
	char call[MW_HB_STR_MAX + 1]; /* "MPI_Recv", "" when not in MPI */
	char kind[16];                /* dump-format call kinds, "" if none */
	char comm[MW_HB_STR_MAX + 1]; /* communicator gid ("world"...) or "" */
	int32_t peer_world;           /* -1 none, -2 any source */
	int32_t root_world;           /* -1 none */
	int32_t tag;                  /* -1 any / none */
	uint64_t a, b, completions, calls; /* seed 002 counters */
	double idle_s;                /* seconds without progress when sent */
	int32_t exit_code;            /* -1 unknown / not exited */
	int32_t exit_signal;          /* 0 none */
	char moving[32];              /* slow: what moved ("recv_buffer,io"), else "" */
	uint32_t seq;                 /* tree overlay: per-origin sequence number, 1 .. 2^31-1; 0 = none */
	char site[MW_SLOT_SITE_MAX + 1]; /* the call's site "PROGRAM+0xOFFSET" (mw_slot_site), else "" */
	int32_t count;                /* the call's element count, 0 = none (or 0) */
	char datatype[24];            /* its predefined datatype ("MPI_INT"), "" unknown */
	uint64_t bytes;               /* count x the datatype's size, 0 unknown */
	int preinit;                  /* exited/vanished before its first MPI call (MPI_Init) */
};

#define MW_HB_AP_NAME_MAX 31            /* characters of an AP's name */
#define MW_HB_AP_OUTPUT_MAX (1u << 20)  /* bytes of one AP's output */
#define MW_HB_AP_NODES_MAX 65536        /* nodes named in one APREQ */

/* APREQ: run the auxiliary processes for suspicious event `round`. */
struct mw_hb_apreq {
	uint32_t round;                    /* 1 .. 2^31-1 */
	char (*nodes)[MW_HB_STR_MAX + 1];  /* malloc'd (NULL when n = 0) */
	size_t n;                          /* 0: every node that receives it */
};

/* APOUT: one auxiliary process's result. */
struct mw_hb_apout {
	uint32_t round;                     /* the APREQ's */
	char node[MW_HB_STR_MAX + 1];       /* where it ran */
	char name[MW_HB_AP_NAME_MAX + 1];   /* the site's name of the command */
	int32_t status;                     /* exit status 0-255; -1 did not exit normally */
	int32_t signal;                     /* signal that ended it (0 none; 9 when killed
					       at a bound) */
	int timed_out;                      /* killed at the time bound */
	int truncated;                      /* output cut at the size bound (and killed) */
	uint64_t bytes;                     /* output bytes read (up to the bound) */
	double elapsed_s;                   /* run time */
	char error[128];                    /* could not run: why ("" = it ran) */
	char *output;                       /* malloc'd; printable ASCII, '\n', '\t' */
};

#define MW_HB_UP_MAX 24 /* ancestors a ROLE names (depth of the deepest tree) */

struct mw_hb_up {
	char node[MW_HB_STR_MAX + 1]; /* the CP's node */
	char host[MW_HB_STR_MAX + 1]; /* where to connect (an address or a name) */
	uint16_t port;
};

struct mw_hb_role {
	int cp;                          /* listen for children */
	size_t nup;
	struct mw_hb_up up[MW_HB_UP_MAX]; /* nearest first */
};

struct mw_hb_child {
	char node[MW_HB_STR_MAX + 1];   /* the child */
	char parent[MW_HB_STR_MAX + 1]; /* the CP it attached to or left */
	int up;                         /* 1 attached, 0 left */
	int bye;                        /* left on purpose (agent stopping, moved) */
};

#define MW_HB_PROBE_TRIES_MAX 20
#define MW_HB_PROBE_WAIT_MAX 600.0

/* PROBEREQ: probe the subtree for round `round`. */
struct mw_hb_probereq {
	uint32_t round;  /* 1 .. 2^31-1 */
	uint16_t port;   /* nodehealthd's UDP port (1..65535) */
	int32_t tries;   /* probes per node, 1 .. MW_HB_PROBE_TRIES_MAX */
	double budget_s; /* time budget of one node's probes, (0, wait_s] */
	double wait_s;   /* the summary is due this long after the request, (0, MW_HB_PROBE_WAIT_MAX] */
};

struct mw_hb_msg {
	enum mw_hb_type type;
	union {
		struct mw_hb_hello hello;
		struct mw_hb_challenge challenge;
		struct mw_hb_verify verify;
		struct mw_hb_welcome welcome;
		struct mw_hb_rank rank;
		struct mw_hb_beat beat;
		struct {
			int32_t rank;
			char *json; /* compact JSON of the dump object (malloc'd) */
		} dump;
		struct {
			char reason[128];
		} bye;
		struct {
			int32_t *ranks; /* malloc'd */
			size_t n;
		} dumpreq;
		struct {
			char *json; /* compact JSON of the aggregate object (malloc'd) */
		} agg;
		struct mw_hb_apreq apreq;
		struct mw_hb_apout apout;
		struct mw_hb_role role;
		struct {
			uint16_t port;
		} listen;
		struct mw_hb_child child;
		struct mw_hb_probereq probereq;
		struct {
			char *json; /* compact JSON of the summary object (malloc'd) */
		} probesum;
	} u;
};

/* ---------------------------------------------------------- the layouts */

/* What a field is on the wire (JSON) and in its C struct. */
enum mw_hb_kind {
	MW_HB_K_I32,   /* JSON integer in [min, max]; int32_t */
	MW_HB_K_U16,   /* JSON integer in [min, max]; uint16_t */
	MW_HB_K_U32,   /* JSON integer in [min, max]; uint32_t */
	MW_HB_K_U64,   /* JSON integer in [min, max]; uint64_t */
	MW_HB_K_BOOL,  /* JSON true or false; int 1 or 0 */
	MW_HB_K_NUM,   /* JSON number (integer or not), finite, from dmin to dmax; double */
	MW_HB_K_STR,   /* JSON string: printable ASCII, min .. size-1 chars, accepted by
			  valid (if set); char[size] */
	MW_HB_K_TEXT,  /* JSON string accepted by valid; char * (the decoder's malloc) */
	MW_HB_K_STATE, /* JSON string: a state name (mw_hb_state_name); enum mw_hb_state */
	MW_HB_K_OBJ,   /* a JSON object, held as its compact JSON text; char * (malloc'd) */
	MW_HB_K_LIST,  /* JSON array of at most max values, each as elem[0] (at offset 0
			  of an element of size bytes) */
	MW_HB_K_OBJLIST, /* JSON array of at most max objects, each with the fields elem
			    (offsets within an element of size bytes) */
	MW_HB_K_WHOLE, /* the payload itself, any JSON object, as its JSON text; char * */
};

/* A LIST or OBJLIST is a pointer at offset (malloc'd by the decoder, NULL
 * when empty) or, with MW_HB_F_INLINE, an array at offset; its count is the
 * size_t at count_offset.  Its elements hold no pointers. */
#define MW_HB_F_OPT 1u      /* may be absent (then 0 or ""); the encoder omits 0 or "" */
#define MW_HB_F_WRAP63 2u   /* U64: the encoder clears bit 63 rather than refusing */
#define MW_HB_F_GT_MIN 4u   /* NUM: greater than dmin (not equal) */
#define MW_HB_F_LT_MAX 8u   /* NUM: less than dmax (not equal) */
#define MW_HB_F_INLINE 16u  /* LIST, OBJLIST: an array in the struct, not a pointer */

struct mw_hb_field {
	const char *name;  /* the JSON key (NULL ends a table; "" for a LIST's element) */
	enum mw_hb_kind kind;
	size_t offset;     /* in the message's struct (struct mw_hb_hello...) */
	size_t size;       /* STR: the char array's size; LIST, OBJLIST: one element's */
	int64_t min, max;  /* integers: bounds; STR: least length; LIST, OBJLIST: most elements */
	double dmin, dmax; /* NUM: bounds (MW_HB_F_GT_MIN, MW_HB_F_LT_MAX: exclusive) */
	unsigned flags;    /* MW_HB_F_* */
	int (*valid)(const char *s); /* STR, TEXT: the syntax (1 = accepted) */
	const char *syntax;          /* ... in words, for the protocol document */
	const char *unless;          /* present only when this BOOL field is false */
	const struct mw_hb_field *elem; /* LIST, OBJLIST */
	size_t count_offset;            /* LIST, OBJLIST: the size_t count */
	const char *doc;                /* one line for the protocol document */
};

struct mw_hb_layout {
	const char *name;  /* "hello" (NULL: the type number is free) */
	const char *dir;   /* who sends it to whom */
	const char *doc;   /* what it is for */
	const struct mw_hb_field *fields;
	/* A rule across fields (NULL none), and it in words. */
	int (*check)(const void *msg);
	const char *rule;
};

/* The layout of type, or NULL if no message has that type. */
const struct mw_hb_layout *mw_hb_layout(int type);

/* The markdown of every message layout: a table of the types and one table
 * of fields per type, as doc/protocol.md shows them.  Return it (malloc'd),
 * or NULL (errno ENOMEM). */
char *mw_hb_doc_layouts(void);

/* The markers around the generated text in doc/protocol.md. */
#define MW_HB_DOC_BEGIN "<!-- BEGIN generated: message layouts (make protodoc) -->\n"
#define MW_HB_DOC_END "<!-- END generated: message layouts -->\n"

/* doc/protocol.md's generated part: the markers and mw_hb_doc_layouts()
 * (spliced with mw_doc_part_splice, docsplice.h). */
struct mw_doc_part;
extern const struct mw_doc_part mw_hb_doc_part;

/* The text a HELLO's credential carries, binding it to the job, the node
 * and the connection (the collector's endpoint "ADDR:PORT", as the agent
 * connected to it and as the collector accepted it, and the collector's
 * nonce): "mpiwatch-hello 2 job=JOB node=NODE at=ENDPOINT nonce=NONCE".
 * Return 0, or -1 if it does not fit in len. */
int mw_hb_auth_payload(const char *job, const char *node, const char *endpoint, const char *nonce,
		       char *buf, size_t len);

/* The text the collector's (or a CP's) proof carries, binding it to its
 * job, its endpoint and both nonces: "mpiwatch-collector 1 job=JOB
 * at=ENDPOINT nonce=AGENT_NONCE challenge=COLLECTOR_NONCE".  Return 0, or
 * -1 if it does not fit in len. */
int mw_hb_proof_payload(const char *job, const char *endpoint, const char *agent_nonce,
			const char *nonce, char *buf, size_t len);

/* m becomes the CHALLENGE a collector (or a CP) answers a VERIFY with: its
 * own nonce, its job and its proof (cred, made over mw_hb_proof_payload()).
 * Strings too long for their fields are cut (the decoder then refuses the
 * frame); never fails. */
void mw_hb_challenge_make(struct mw_hb_msg *m, const char *nonce, const char *job, const char *cred);

/* Static names: "hello", ...; "in_mpi", ...; "bad magic", ... ("?" if unknown). */
const char *mw_hb_type_name(int type);
const char *mw_hb_state_name(int state);
const char *mw_hb_err_name(int err);

/* Parse a state name.  Return the state, or -1 if unknown. */
int mw_hb_state_parse(const char *s);

/* Return 1 if b holds a heartbeat the decoder would accept (ranges, names,
 * kinds), else 0. */
int mw_hb_beat_valid(const struct mw_hb_beat *b);

/* Encode m as one frame into *buf (malloc'd), its length in *len.
 * Return 0, or -1 with errno EINVAL (invalid message: it would not decode)
 * or ENOMEM / E2BIG (payload too long). */
int mw_hb_encode(const struct mw_hb_msg *m, uint8_t **buf, size_t *len);

/* Look at the start of a stream buffer.  Return MW_HB_OK with *frame_len set
 * to the length of the complete frame at buf, MW_HB_E_AGAIN if more bytes
 * are needed, or the header's error code (the stream is then unusable). */
enum mw_hb_err mw_hb_frame_check(const uint8_t *buf, size_t len, size_t *frame_len);

/* Decode exactly one frame of len bytes into m (free with mw_hb_msg_free).
 * Return MW_HB_OK, or an error code (m is then left empty). */
enum mw_hb_err mw_hb_decode(const uint8_t *buf, size_t len, struct mw_hb_msg *m);

/* Release what decoding allocated in m (dump, agg and probesum json, dumpreq ranks,
 * apreq nodes, apout output). */
void mw_hb_msg_free(struct mw_hb_msg *m);

/* Return 1 if s is a valid job id (1-31 chars of digits, '_' and '+'),
 * a valid node/host name (1-63 chars [A-Za-z0-9._-], starting alphanumeric). */
int mw_hb_valid_job(const char *s);
int mw_hb_valid_name(const char *s);

/* Return 1 if s is a valid AP name (1-31 chars [A-Za-z0-9._-], starting
 * alphanumeric), or valid AP output (at most MW_HB_AP_OUTPUT_MAX bytes of
 * printable ASCII, '\n' and '\t'). */
int mw_hb_valid_ap_name(const char *s);
int mw_hb_valid_ap_output(const char *s);

/* Make s (len bytes, any content) valid AP output in place: every byte that
 * is not printable ASCII, '\n' or '\t' becomes '?' (a NUL too).  len must
 * be at most MW_HB_AP_OUTPUT_MAX; s[len] must be writable (set to NUL). */
void mw_hb_ap_sanitize(char *s, size_t len);

#endif
