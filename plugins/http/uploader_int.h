/*
 * Inside the uploader (uploader*.c only): its struct, shared by the engine
 * side (uploader_api.c), the thread (uploader.c) and the part cutting
 * (uploader_stream.c).  Shipping the parts is the object shipper's
 * (ship.h), embedded as u->ship: its lock and cond are the uploader's too.
 */
#ifndef HTTP_UPLOADER_INT_H
#define HTTP_UPLOADER_INT_H
#include "uploader.h"
#include "part.h"
#include <perfsink/collector_ship.h>

/* Longest wait of barrier() for queued parts to be sent. */
#define BARRIER_SEND_WAIT_MS 250

struct uploader {
	const struct perfsink_instance *inst;
	const struct perfsink_host *host;
	const struct http_conf *conf;
	struct spool *spool;
	/* The thread: the engine side's streams, buffers and requests as jobs, in order. */
	struct perfsink_kit_worker *worker;
	struct ship ship;          /* queue, transfers, spool; ship.lock guards what follows */

	/* Under ship.lock: engine side <-> thread. */
	int sending;               /* parts are queued and the collector is up */
	int flushing;              /* a barrier waits: ignore the block throttle */
	int64_t end_ns;            /* CLOCK_REALTIME the last stream ended; 0: not told */
	int upload_req, upload_done;
	uploader_buildids_fn on_buildids; /* set by uploader_on_buildids */
	void *on_buildids_arg;
	int stopping;              /* set by uploader_drain */
	int64_t drain_until;       /* with stopping, before the drain job is queued */

	/* Thread only. */
	struct part_cutter cut;
	char *key_base;            /* "{host}/{session}" of the parts being cut */
	int64_t start_ns;          /* CLOCK_REALTIME its stream began */
	int end_queued;            /* the end marker of key_base is queued */
	int have_stream;           /* key_base names a stream begun by start() */
	int interrupted;           /* a second Ctrl-C ended the drain */
	int recording;             /* a stream began: the host prints the summary */
	int joined;                /* engine side: the thread has ended (drain) */
};

#define LOG(u, lvl, ...) (u)->host->log((u)->inst, PERFSINK_LOG_##lvl, __VA_ARGS__)

/* The thread's jobs (uploader.c), queued by the engine side (uploader_api.c). */
enum up_kind { UP_BUFFER, UP_START, UP_EPILOGUE, UP_FLUSH, UP_UPLOAD, UP_DRAIN };
struct up_job {
	struct perfsink_kit_job kj; /* first; kj.ctx is the uploader, kj.buf a UP_BUFFER's */
	char *key_base;             /* UP_START: "{host}/{session}", owned */
	int64_t start_ns;           /* UP_START: stream->start_realtime_ns */
	uint8_t *bytes;             /* UP_START: the prologue, UP_EPILOGUE: the epilogue, owned */
	size_t len;
};
typedef int (*up_job_fn)(struct perfsink_kit_job *job, int err);
/* A job of kind for u (run, done, ctx set), or NULL. */
struct up_job *up_job_new(struct uploader *u, enum up_kind kind);
/* The worker's hooks: drive the transfers between jobs; wake the thread. */
void up_idle(void *arg, int more);
void up_wake(void *arg);

/* uploader_stream.c, on the thread: streams cut into parts, queued to ship. */
void part_enqueue(struct uploader *u, struct part *p);
void end_enqueue(struct uploader *u, int64_t end_ns);
void prologue_take(struct uploader *u, char *key_base, int64_t start_ns, uint8_t *bytes,
		   size_t len);
void epilogue_take(struct uploader *u, uint8_t *bytes, size_t len);
void buffers_append(struct uploader *u, struct perfsink_buf **bufs, size_t n);
/* ship's backlog_sent_fn: a spooled build-id part of an earlier run was sent. */
void backlog_buildids(void *arg, const struct part *p);

#endif
