/*
 * The object shipper: a queue of objects (struct part: a key and bytes) to
 * PUT on the collector, one transfer at a time in queue order, retried
 * with jittered backoff (or as a 429/503's Retry-After asks), moved to the
 * spool on an outage or overflow (per the coll_ship_conf policy: spool, block,
 * drop_oldest), and the spool's backlog of earlier runs sent after them.
 * The http sink's uploader ships its stream parts with it; a sink that
 * PUTs one object per window (pprof) needs only:
 *
 *     ship_init(&s, inst, conf, spool);       once, on its own thread's side
 *     ship_enqueue(&s, part);                 part->key set: the URL tail
 *     ship_step(&s, now);                     in its loop: start, drive, reap
 *     curl_multi_poll(s.multi, ..., ship_timeout(&s, now, max), ...);
 *     ship_finish(&s, &left);                 unsent objects to the spool
 *     ship_destroy(&s);
 *
 * and reads s.st (under s.lock) for its stats().
 *
 * Losing data: an object the spool cannot take is dropped; with
 * ship.have_lt (a stream's LOST template) it is replaced by a LOST record
 * saying how many records were lost, else it is sent empty; with
 * ship.dropped_fn it is said there and forgotten (an object of its own).
 *
 * THREADS.  Every ship_* function runs on the owner's one thread (the
 * sink's), except that s->lock guards err and st, which the engine side
 * reads; ship_fail takes it.  The lock is a leaf.
 */
#ifndef PERFSINK_COLLECTOR_SHIP_H
#define PERFSINK_COLLECTOR_SHIP_H
#include <perfsink/collector.h>
#include <perfsink/kit.h>
#include <perfsink/sink.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>


struct part;
struct spool;
struct transfer;

/* ---------------------------------------------------------- objects */

enum part_kind {
	PART_DATA = 0,   /* records from buffers; subject to the spool cap */
	PART_META,       /* prologue or LOST marker: small, never dropped */
	PART_END,        /* the stream's end marker {host}/{session}.end: sent
			  * after the last part; spooled after it (as
			  * {session}/end) when the stream ended cleanly but
			  * could not be sent */
};

struct part {
	struct part *next;     /* queue link */
	uint64_t seq;
	enum part_kind kind;
	struct perfsink_kit_buf body; /* data NULL while the bytes live only in
				       * spool_path; len counts them still */
	int file_fd;           /* a large spooled part, checked, sent from its
				* file (spool_load): -1 when none */
	uint64_t records;      /* records in data, for loss accounting */
	char *key;             /* "{host}/{session}/{seq}": URL tail and spool name */
	char *spool_path;      /* the part's spool file, or NULL */
	int64_t opened_ms;
};

struct part *part_new(uint64_t seq, enum part_kind kind);
int part_append(struct part *p, const void *data, size_t len);
/* Free the bytes (and close file_fd), now kept only in the spool file; body.len still counts them. */
void part_unload(struct part *p);
/* Frees the bytes and the struct (not the spool file). */
void part_free(struct part *p);

/*
 * The end marker's bytes: {"parts": N, "start_ns": S, "end_ns": E}\n, N the
 * stream's part count, S and E the recording host's CLOCK_REALTIME (ns
 * since the epoch) when the stream began and when it ended, so `perfsink
 * ls` shows when it was recorded, not when its parts arrived.
 * part_end_format writes them to buf (at least PART_END_MAX bytes) and
 * returns their length.  part_end_parse accepts exactly what it writes,
 * and the {"parts": N}\n of sinks before the times (a spool of an older
 * run; *start_ns = *end_ns = 0), with N >= 1 (part 0, the prologue, always
 * exists): 0 and *parts, or -1.  start_ns, end_ns may be NULL.
 */
#define PART_END_MAX 96
size_t part_end_format(char *buf, uint64_t parts, int64_t start_ns, int64_t end_ns);
int part_end_parse(const uint8_t *data, size_t len, uint64_t *parts, int64_t *start_ns,
		   int64_t *end_ns);

/* -------------------------------------------------------- the conf */

/*
 * What the shipper, its transfers and the spool read of a sink's
 * configuration: the sink fills one (pointing into its own conf) and
 * keeps it alive as long as the ship.
 */
enum coll_overflow { OVERFLOW_SPOOL = 0, OVERFLOW_DROP_OLDEST, OVERFLOW_BLOCK };

struct coll_ship_conf {
	int s3;                 /* 0: PUT {url}/{key}; 1: S3 (SigV4) under bucket, prefix */
	const char *url;        /* validated, without trailing '/' */
	const char *bucket, *prefix; /* s3; prefix "" when none */
	int path_style;
	char *const *headers;   /* "Name: value", NULL-terminated */
	const struct perfsink_coll_conf *coll; /* transport, TLS, auth, SigV4 */
	enum coll_overflow overflow;
	size_t queue_size;      /* bytes of data objects held in memory before the policy acts */
	int64_t backoff_base_ms, backoff_cap_ms, stall_timeout_ms;
	size_t multipart_chunk; /* s3: an object larger than this goes as a multipart upload */
	const char *key_suffix; /* appended to an object's key in its URL (".pb.gz"), or NULL */
	/*
	 * How the log names the objects ("windows"; NULL: "parts") and what
	 * sends a spool's objects later ("the next run"; NULL: "`perfsink
	 * upload`"): a sink's words in the shipper's messages.
	 */
	const char *objects, *resend;
	/*
	 * A request other than a PUT of the object (Pyroscope's ingest): when
	 * set, the transfer POSTs what it builds on e to the URL it returns
	 * (malloc'd): 0, or a negative errno.  arg is theirs.
	 */
	int (*post_build)(void *arg, CURL *e, const struct part *p, char **url, curl_mime **form);
	void *post_arg;
};

/* ---------------------------------------------------- the transfer */

/*
 * One upload of one part: a PUT of the part's bytes to its URL (http mode,
 * or s3 mode with SigV4), on a curl easy handle that the caller adds to its
 * multi handle.  Large s3 parts go as a multipart upload (create, one PUT
 * per multipart_chunk, complete): the transfer is then a short sequence of
 * requests, advanced with transfer_done() after each one.
 *
 * Single-threaded: transfers belong to the sink's thread.
 */
enum transfer_result {
	XFER_DONE = 0,   /* the part is stored */
	XFER_NEXT,       /* next request of a multipart upload is ready: add easy again */
	XFER_RETRY,      /* connect error, timeout, 5xx, 408, 429: try again later */
	XFER_FATAL,      /* 4xx or a local error: retrying cannot help */
};

struct transfer;

/* A transfer for p (whose bytes are in memory); NULL on allocation failure. */
struct transfer *transfer_new(const struct coll_ship_conf *c, struct part *p);
/* The easy handle of the current request; valid until the next call. */
CURL *transfer_easy(struct transfer *t);
/*
 * The current request finished with code cc.  On XFER_RETRY the same
 * request is set up again; msg gets one line for the log (status, method
 * and URL, never credentials).
 */
enum transfer_result transfer_done(struct transfer *t, CURLcode cc, char *msg, size_t msglen);
struct part *transfer_part(const struct transfer *t);
/*
 * After transfer_done() gave XFER_RETRY for a 429 or 503: the wait the
 * collector asked for with Retry-After, in ms; -1 when it asked nothing.
 */
int64_t transfer_retry_after(const struct transfer *t);
/*
 * CLOCK_MONOTONIC ms at which the current request counts as stalled
 * (stall_timeout without a byte moving): the owner must drive curl by then.
 */
int64_t transfer_stall_deadline(const struct transfer *t);
void transfer_free(struct transfer *t);

/*
 * Whether the collector has an object at key (HEAD, blocking, at most
 * timeout_ms): 1 with its size in *size, 0 when it has none (404), or
 * -ETIMEDOUT, -EIO (msg says why: status or curl error), -ENOMEM.  For a
 * thread of its own (the symbol shipper), not the uploader's multi handle.
 * abort_fn (may be NULL), called with arg about once a second and more
 * often while bytes move, ends the request when it returns non-zero.
 */
int transfer_head(const struct coll_ship_conf *c, const char *key, int64_t timeout_ms,
		  curl_xferinfo_callback abort_fn, void *arg, uint64_t *size, char *msg, size_t msglen);

/*
 * For a post_build hook: p's bytes as mp's data, from memory or (a large
 * spooled object) read from its file as curl sends them.  0 or -ENOMEM.
 */
int transfer_form_data(curl_mimepart *mp, const struct part *p);

/* The URL a part goes to (no credentials): for messages and tests. */
char *transfer_url(const struct coll_ship_conf *c, const char *key);

/* ------------------------------------------------------- the spool */

/*
 * The local spool: parts that could not be sent yet, one file each, at
 *
 *     {spool_dir}/{instance}/{host}/{session}/{seq}      (part->key below the instance)
 *     {spool_dir}/{instance}/{host}/{session}/end        (the end marker, key
 *                                                         {host}/{session}.end)
 *
 * written as "{seq}.tmp" ("end.tmp") and renamed, so a crash leaves whole
 * parts or nothing.  The end marker is there only when the recording ended
 * cleanly with the session's tail unsent: the scan lists it after the
 * session's parts, so it is sent after them.  The data parts it holds are capped at max bytes; meta parts
 * (prologue, LOST markers) are tiny and always accepted, so the stream a
 * later upload delivers stays readable.  What is in the directory at open
 * (a backlog of earlier runs) counts toward the cap.
 *
 * SAFETY.  perfsink runs as root on hosts it does not own, and the spool is
 * read back and sent to a collector, so nothing in it is trusted:
 * - every directory of the spool is created 0700 and checked at each use
 *   (owned by the effective uid, not writable by group or others), and is
 *   reached from a directory fd with O_NOFOLLOW, so no symlink is followed
 *   anywhere below spool_dir;
 * - a part is sent only when its name is a sequence number as the sink
 *   writes it (spool_seq_name) and its bytes are whole perf pipe-mode
 *   records (perfsink_kit_records_validate), read from a regular file owned by the
 *   effective uid with one link;
 * - an end marker likewise, when its bytes are exactly the sink's
 *   {"parts": N} (part_end_parse) and no part numbered N or more was in
 *   its session's directory (at the scan, or when it is loaded);
 * - anything else found there (odd name, symlink, FIFO, directory where a
 *   part belongs, truncated or corrupt part) is moved, never deleted, to
 *   {spool_dir}/quarantine/{instance}/... (made the same safe way), and
 *   reported through on_quarantine.
 *
 * Single-threaded: used from the sink's thread, or from open() before the
 * thread starts.
 */
/* Bytes a part may have beyond part_size (one ring buffer larger than it
 * makes a part of its own); a larger file is quarantined unread. */
#define SPOOL_PART_SLACK (64ull << 20)
/* A part up to this size is read into memory once checked (its bytes may
 * be the stream's build-id list, which the sink reads); a larger one is
 * sent from its file. */
#define SPOOL_INMEM_MAX (1u << 20)


/*
 * Told once per entry moved to quarantine: what it was (path), where it
 * went (to, or NULL when it could not be moved and was only left out),
 * why, and how many bytes of data that means lost.
 */
typedef void (*spool_quarantine_fn)(void *arg, const char *path, const char *to, const char *why,
				    uint64_t bytes);

struct spool {
	char *dir;        /* {spool_dir}/{instance}, for messages */
	char *qdir;       /* {spool_dir}/quarantine/{instance}, for messages */
	char *instance;
	int base_fd;      /* {spool_dir} */
	int fd;           /* {spool_dir}/{instance} */
	uid_t owner;      /* the effective uid at open */
	uint64_t max;     /* cap on data bytes */
	uint64_t part_max; /* a part file larger than this is quarantined unread (0: no cap) */
	uint64_t used;    /* bytes in the directory */
	spool_quarantine_fn on_quarantine; /* may be NULL */
	/*
	 * Whether the len bytes of fd are an object the sink would send: 0,
	 * -EBADMSG with why (then quarantined), or -errno.  NULL: whole perf
	 * pipe-mode records (the http sink's stream parts, part 0 the prologue).
	 */
	int (*check_fd)(int fd, uint64_t len, const struct part *p, char *why, size_t whylen);
	void *arg;
	char err[512];    /* the reason of the last failure other than a bad part */
};

/*
 * Create {spool_dir} (mkdir -p, 0700) and {spool_dir}/{instance} (0700),
 * check both (owner, mode, no symlink), check that files can be created,
 * and count what is there.  Returns 0 or a negative errno with one line of
 * reason in err (a foreign or group/world-writable directory: -EPERM).
 */
int spool_open(struct spool *s, const char *spool_dir, const char *instance,
	       uint64_t max, char *err, size_t errlen);
/* Safe after a failed open and a second time. */
void spool_close(struct spool *s);

/*
 * Store p's bytes under p->key and set p->spool_path.  The bytes stay in
 * memory; the caller frees them when it wants.  -ENOSPC when a data part
 * does not fit under the cap, -EPERM when a spool directory fails its
 * check, other negative errno on I/O errors (reason in s->err).
 */
int spool_put(struct spool *s, struct part *p);
/*
 * Read the bytes of a spooled part (or end marker) back into p->data and
 * check them, with bounded memory: a part larger than s->part_max is
 * quarantined unread; one larger than SPOOL_INMEM_MAX (spool_read.h) is
 * checked from its file and left there, open in p->file_fd, to be sent
 * from it.
 * -EBADMSG: the part was not a good one; it has been quarantined (and
 * reported), p->spool_path is NULL, the caller forgets p.  -ENOENT: it is
 * gone.  Other negative errno: the spool itself failed (reason in s->err).
 */
int spool_load(struct spool *s, struct part *p);
/* The part was delivered: delete its file (and empty parent dirs). */
void spool_remove(struct spool *s, struct part *p);

/*
 * The parts in the spool, as a list in order of place (host, session,
 * seq, then the session's end marker, kind PART_END, its seq the number of
 * parts the scan found that it must count at least) with data NULL, key
 * and spool_path set; *out NULL when empty.  Leftover "{seq}.tmp" and
 * "end.tmp" files (a write cut by a crash) are deleted; every entry that
 * is neither a part nor an end marker is quarantined.  Returns the number
 * of entries (end markers included) or a negative errno (reason in s->err).
 */
int spool_scan(struct spool *s, struct part **out);

/*
 * Whether name is a part name: the sink's "%010" PRIu64 form of a seq
 * below 10^19, i.e. 10 digits, or 11 to 19 digits not starting with 0.
 * Stores the seq in *seq (may be NULL).
 */
int spool_seq_name(const char *name, uint64_t *seq);

/* ----------------------------------------------------- the shipper */


struct ship {
	const struct perfsink_instance *inst;
	const struct perfsink_host *host;
	const struct coll_ship_conf *conf;
	struct spool *spool;
	CURLM *multi;
	/*
	 * Leaf lock: nothing else is locked while it is held, and no host
	 * call but buf_get is made under it.  cond signals any change below
	 * (the owner's fields under it too).
	 */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int err;                   /* first fatal error, 0 if none; set by ship_fail */
	struct perfsink_sink_stats st;
	uint64_t quarantined;      /* spool entries moved to quarantine */

	/* The owner's thread only. */
	struct part *q_head, *q_tail; /* this run's objects, queue order */
	size_t q_mem;              /* bytes of data parts only in memory */
	struct part *backlog;      /* objects of earlier runs, key order */
	int backlog_scanned;
	struct transfer *xfer;
	struct perfsink_coll_backoff bo;
	int64_t next_try;
	int down;                  /* last attempt failed; retrying */
	struct perfsink_kit_lost_template lt; /* set by the owner: what a drop leaves */
	int have_lt;
	uint64_t lost_parts;
	int loss_warned;
	int end_spool_warned;      /* an end marker could not be spooled: said once */
	uint64_t ends_sent;        /* end markers delivered (not parts: not in st.files) */
	/* Whose data waits in the spool: this run's parts, earlier runs' (backlog). */
	uint64_t spooled_parts, spooled_bytes, backlog_parts, backlog_bytes, backlog_sent;
	/*
	 * Set by an owner whose objects stand alone (pprof's windows): called
	 * for every object dropped (counted in st, lost_parts), which is then
	 * forgotten, not sent empty nor spooled.  NULL: the once-said warning
	 * and the LOST record or empty object in its place.
	 */
	void (*dropped_fn)(void *arg, const struct part *p, const char *why);
	void *dropped_arg;
	/* Called when an object of the backlog was delivered, its bytes still loaded. */
	void (*backlog_sent_fn)(void *arg, const struct part *p);
	void *backlog_sent_arg;
};

/* What ship_finish left in the spool. */
struct ship_left {
	uint64_t parts, ends, bytes, records;
};

/*
 * Set up s (its curl multi, lock, backoff; spool callbacks to s).  spool
 * may be NULL (no spool_dir): what cannot wait in memory (the overflow
 * policy, the end) is then dropped, counted.  0 or -ENOMEM.
 */
int ship_init(struct ship *s, const struct perfsink_instance *inst, const struct coll_ship_conf *conf,
	      struct spool *spool);
void ship_destroy(struct ship *s);
/* The first fatal error sticks; wakes the engine side. */
void ship_fail(struct ship *s, int rc);
/* Queue p (key set; NULL: nothing) after every object before it; apply the overflow policy. */
void ship_enqueue(struct ship *s, struct part *p);
/* Read the spool's backlog of earlier runs, once: sent after this run's objects. */
void ship_backlog_scan(struct ship *s);
/* Start a transfer when one is due, let curl work, reap what ended, start the next. */
void ship_step(struct ship *s, int64_t now);
/* t lowered to when the shipper must run again (a retry, a stalled transfer). */
int64_t ship_timeout(const struct ship *s, int64_t now, int64_t t);
/* Objects queued, in the backlog or in flight. */
int ship_busy(const struct ship *s);
/* s->lock held: st's shipper counters and state from s. */
void ship_stats_fill(struct ship *s);
/* At the end: abandon the transfer in flight (its object stays queued).  Again: nothing. */
void ship_finish_transfer(struct ship *s);
/* Then: ship_finish_transfer, spool what is unsent, free the queue; counts in *left. */
void ship_finish(struct ship *s, struct ship_left *left);

#endif
