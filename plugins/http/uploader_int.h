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
#include "ship.h"

#define TAKE_MAX 64
/* Longest wait of barrier() for queued parts to be sent. */
#define BARRIER_SEND_WAIT_MS 250

struct uploader {
	const struct perfsink_instance *inst;
	const struct perfsink_host *host;
	const struct http_conf *conf;
	struct spool *spool;
	pthread_t thread;
	struct ship ship;          /* queue, transfers, spool; ship.lock guards what follows */

	/* Under ship.lock: engine side <-> thread. */
	struct perfsink_buf **bq;  /* engine -> thread, ring of bq_cap */
	size_t bq_cap, bq_head, bq_len;
	int taking;                /* thread holds buffers taken from bq */
	int sending;               /* parts are queued and the collector is up */
	int flushing;              /* a barrier waits: ignore the block throttle */
	uint8_t *prologue;         /* handed over by uploader_start */
	size_t prologue_len;
	uint8_t *epilogue;         /* handed over by uploader_epilogue */
	size_t epilogue_len;
	char *next_key_base;       /* "{host}/{session}" of the stream handed over */
	int64_t next_start_ns;     /* its CLOCK_REALTIME start (stream->start_realtime_ns) */
	int64_t end_ns;            /* CLOCK_REALTIME the last stream ended; 0: not told */
	int upload_req, upload_done;
	uploader_buildids_fn on_buildids; /* set by uploader_on_buildids */
	void *on_buildids_arg;
	int stopping;              /* set by uploader_close */
	int64_t drain_until;       /* with stopping */

	/* Thread only. */
	int t_stopping;            /* copies of stopping and drain_until, */
	int64_t t_drain_until;     /* taken under lock by engine_side_take */
	struct part_cutter cut;
	char *key_base;            /* "{host}/{session}" of the parts being cut */
	int64_t start_ns;          /* CLOCK_REALTIME its stream began */
	int64_t t_end_ns;          /* copy of end_ns, taken with stopping */
	struct compressor *comp;   /* compress = zstd, else NULL */
	int end_queued;            /* the end marker of key_base is queued */
	int have_stream;           /* key_base names a stream begun by start() */
	int interrupted;           /* a second Ctrl-C ended the drain */
	int recording;             /* a stream began: the host prints the summary */
	int joined;                /* engine side: the thread has ended (drain) */
};

#define LOG(u, lvl, ...) (u)->host->log((u)->inst, PERFSINK_LOG_##lvl, __VA_ARGS__)

/* uploader.c: the thread. */
void *uploader_main(void *arg);

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
