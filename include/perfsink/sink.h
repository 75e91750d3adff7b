/* SPDX-License-Identifier: MIT */
/*
 * perfsink sink ABI: the one header a sink plugin includes.
 *
 * A sink is a shared object that exports one symbol,
 *
 *     const struct perfsink_sink_ops *perfsink_sink_entry(void);
 *
 * (PERFSINK_ENTRY_SYMBOL), returning a pointer to a static, const ops table.
 * The loader refuses the plugin when the symbol is missing, when abi_major
 * differs from the host's, when abi_minor is newer than the host's, or when
 * struct_size is smaller than the host needs for that minor.
 *
 * Life of one sink instance (one [sink.NAME] section of the config):
 *
 *     open(inst, &ctx)          config already validated against ops->keys
 *     start(ctx, stream)        recording begins; stream stays valid until
 *                               rotate(ctx, next) has returned, or close()
 *     write(ctx, buf) ...       many times, in stream order; never empty
 *     barrier(ctx)              before rotate() and at the end of the run
 *     rotate(ctx, next)         optional: finish this output, begin the next
 *     close(ctx, summary)       final; ctx is freed by the sink
 *
 * An instance that failed gets one more barrier() at the end of the run
 * (its error is ignored) so that what it reports in stats() as dropped is
 * final before the summary counts it as lost.
 *
 * close() may come without a barrier() when the run was aborted before
 * recording began (summary->stop_reason < 0), and with summary NULL after
 * upload() (`perfsink upload`: open, upload, close, no start) or right
 * after open() (`perfsink check`: open, close, to run the sink's own
 * checks; it must create no output then).
 *
 * REQUIRED AND OPTIONAL OPS.  open, start, write, barrier and close are
 * required: the loader refuses a plugin where one is NULL.  rotate (NULL:
 * the sink cannot rotate; --switch-output and --overwrite are refused
 * unless its instances set rotate = false), stats (NULL: the summary has
 * no line for it and counts nothing of it as lost), upload (NULL: no
 * spool; `perfsink upload` skips it) and drain (NULL, or a sink older than
 * ABI 1.4: nothing to send at the end) may be NULL.
 *
 * A SYNCHRONOUS write() -- one that has read or copied every byte it needs
 * by the time it returns -- need not take a reference: the engine holds
 * its own until write() returns.  Only bytes used after the return need
 * host->buf_get (and a later buf_put, exactly once per get).
 * stats() may be called at any time between open() and close(), also for an
 * instance that failed or never started.
 *
 * THREADS.  The engine calls every op of one instance from a single thread
 * (the engine thread), never two ops at once.  One exception (ABI 1.7): while
 * the engine thread waits in an instance's drain(), another host thread may
 * call that instance's stats(), about once a second, for the status line;
 * so a sink with a drain() keeps stats() safe beside it (its counters
 * under a lock of its own).  Sinks built for an older minor are not asked.  A sink may run threads of its
 * own; from those it may call only perfsink_host.buf_get, .buf_put and .log.
 * The format helpers (file_header, file_features, pipe_header) read the
 * stream's state, which the engine thread updates between ops: call them
 * from inside an op (start, rotate, close, ...), never from a sink thread.
 * The BUILD_ID feature they give lists the files the recording mapped so
 * far: refreshed every PERFSINK_BUILD_IDS_EVERY_MS while recording (ABI
 * 1.5; before, only at rotate and at the end), complete in rotate(),
 * drain() and close().
 *
 * OWNERSHIP.  Buffers belong to the engine's pool.  write() must take a
 * reference (host->buf_get) for as long as it needs the bytes, and drop it
 * (host->buf_put) when its I/O has completed, from any thread.  The engine
 * may be waiting for that reference to come back (backpressure), so a sink
 * must release references on its own, never only on the next op call.
 * Byte ranges returned in struct perfsink_bytes are owned by the caller of
 * the helper and freed with host->bytes_free.
 *
 * COMPRESSED INPUT (ABI 1.9).  A sink that writes zstd-compressed perf
 * data does not compress it itself: from open() it calls
 * host->want_compressed(inst, &want) (perfsink_want_compressed() below).
 * The engine then runs one compression stage per distinct (level, chunk)
 * among the instances that asked, on worker threads of its own (never the
 * drain thread), and hands every such instance, instead of each RING
 * buffer, a PERFSINK_BUF_COMPRESSED buffer made from it once for all of
 * them:
 *   - data: whole records: the ring records cut into chunks of whole
 *     records of at most PERFSINK_Z_CHUNK bytes, each chunk one
 *     PERF_RECORD_COMPRESSED record holding an independent zstd frame
 *     (perfsink_kit_zframe_records; a chunk that would not shrink stays
 *     raw), then the raw buffer's FINISHED_ROUND (tail_round) as it was.
 *     Announce mmap_len >= PERFSINK_Z_MMAP_LEN in the COMPRESSED feature;
 *   - records, task_records, samples lost with it: those of the raw
 *     buffer (what losing this buffer loses); raw_len its raw bytes;
 *   - task_data/task_len: the raw buffer's COMM, FORK, MMAP and MMAP2
 *     records, uncompressed, for sinks that track processes (task_len 0
 *     when task_records is 0);
 *   - cpu, seq, tail_round as the raw buffer's; not placed for O_DIRECT.
 * SYNTH buffers come as they are (raw records are valid in a compressed
 * stream).  Order is the stream's: every buffer, compressed or not, in
 * dispatch order.  The instance's barrier() comes only after the stage
 * has handed it everything dispatched before, so a barrier covers the
 * stage's queue.  An instance that did not ask gets raw buffers as
 * before.  Buffers are refcounted as any other (host->buf_get/buf_put).
 *
 * RETURN VALUES.  0 on success, a negative errno on failure.  A failure from
 * open() aborts the run before any event is opened.  A failure from start(),
 * write(), barrier() or rotate() marks the instance failed: the sink logs
 * its own precise message once, the engine stops writing to it and, with
 * on_error = stop (the default), ends the recording cleanly; with
 * on_error = detach it logs one warning and records on without it.  -EPIPE
 * means the reader of the sink's output went away (a closed pipe): with
 * on_error = stop, perfsink then exits with status 141, as a process that
 * SIGPIPE killed would (perfsink ignores SIGPIPE while recording).  close()
 * is called exactly once for every instance that open() returned 0 for,
 * failed or not, and must leave whatever was written in a state perf can
 * read.
 */
#ifndef PERFSINK_SINK_H
#define PERFSINK_SINK_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERFSINK_ABI_MAJOR 1
/*
 * 1.1: perfsink_buf.records (was reserved).
 * 1.2: buffer data placed at its stream offset modulo PERFSINK_BUF_ALIGN,
 *      and file_header() a multiple of it long (O_DIRECT writers).
 * 1.3: perfsink_host.value_origin (where a key's value came from).
 * 1.4: perfsink_host.output (where the data went) and .stop_requested;
 *      perfsink_sink_stats.state and the spool/backlog counters after
 *      `files`; perfsink_sink_ops.drain (send what is left before the
 *      summary); perfsink_host.pool_regions (the pooled buffers' memory,
 *      for sinks that register it with the kernel once: io_uring fixed
 *      buffers); perfsink_sink_ops.available (may this sink work on this
 *      machine, asked when an alias such as `plugin = file` chooses).
 * 1.5: the BUILD_ID feature of the format helpers is refreshed while
 *      recording, every PERFSINK_BUILD_IDS_EVERY_MS (see THREADS below);
 *      perfsink_buf.task_records.
 * 1.6: perfsink_buf.task_records counts MMAP and MMAP2 records too.
 * 1.7: while the engine waits in an instance's drain(), it may call that
 *      instance's stats() from another thread (see THREADS), and
 *      perfsink_sink_stats.drain_left_ms says how long drain() will wait
 *      still: the status line counts it down.
 * 1.8: perfsink_sink_stats.symbols_*; the BUILD_ID records of the format
 *      helpers say in their id's reserved byte 21 whether samples fell in
 *      the file (1), or not (2): perfsink_kit_build_id.sampled.
 */
#define PERFSINK_ABI_MINOR 8
/* How old, at most, the BUILD_ID list of a stream is while recording (1.5). */
#define PERFSINK_BUILD_IDS_EVERY_MS 5000
/* Alignment unit of buffer data and of the file-mode data offset (1.2). */
#define PERFSINK_BUF_ALIGN 4096
#define PERFSINK_ENTRY_SYMBOL "perfsink_sink_entry"

struct perfsink_host;
struct perfsink_stream_priv;

/* ------------------------------------------------------------------ keys */

enum perfsink_key_type {
	PERFSINK_KEY_STRING = 1, /* any text; value.str */
	PERFSINK_KEY_INT,        /* decimal or 0x hex within [min, max]; value.num */
	PERFSINK_KEY_SIZE,       /* bytes with optional K/M/G/T suffix (powers of 1024); value.num */
	PERFSINK_KEY_BOOL,       /* true/false/yes/no/on/off/1/0; value.num 0 or 1 */
	PERFSINK_KEY_ENUM,       /* one of choices ("a|b|c"); value.num = index */
	PERFSINK_KEY_DURATION,   /* number with ms/s/m/h suffix (no suffix: s); value.num in ms */
	PERFSINK_KEY_PATH,       /* file system path; value.str */
};

/*
 * One configuration key a sink accepts.  The table ends with an entry whose
 * name is NULL.  The core parses, range-checks and reports errors with
 * file:line before open() is called; def is parsed like a user value.
 * min/max apply to INT, SIZE and DURATION (ms); max = 0 means no upper bound.
 */
struct perfsink_key {
	const char *name;
	enum perfsink_key_type type;
	const char *def;         /* default as text; NULL: key is required */
	const char *description; /* one line, shown by `perfsink sinks` */
	int64_t min, max;
	const char *choices;     /* ENUM only: "a|b|c" */
};

/* Parsed value of one key; index i matches ops->keys[i]. */
struct perfsink_value {
	const char *str; /* the text as written (or the default); never NULL */
	int64_t num;     /* numeric meaning, per perfsink_key_type */
	int set;         /* 1 if the user set it, 0 if it is the default */
};

enum perfsink_log_level {
	PERFSINK_LOG_ERROR = 0,
	PERFSINK_LOG_WARN,
	PERFSINK_LOG_INFO,
	PERFSINK_LOG_DEBUG,
};

/* What open() receives.  Valid until close() returns. */
struct perfsink_instance {
	const char *name;                   /* instance name, "local" in [sink.local] */
	const struct perfsink_host *host;   /* services of the engine */
	const struct perfsink_value *values; /* one per key, in table order */
	void *host_priv;                    /* engine's own; do not touch */
};

/* ----------------------------------------------------------- record types */

/*
 * Record types found in buffers and pipe headers.  The kernel's
 * (PERF_RECORD_SAMPLE = 9, MMAP2 = 10, LOST = 2, COMM = 3, LOST_SAMPLES =
 * 13, ...) are in <linux/perf_event.h>; these are perf's user-space types
 * (tools/perf/util/event.h), which the kernel header lacks.  perfsink
 * writes FINISHED_ROUND (the tail_round of a drain pass), FINISHED_INIT
 * (after the synthesized records that begin every output), LOST_SAMPLES
 * (per-event counts at the end, as perf 6.1), and in pipe headers
 * HEADER_ATTR, HEADER_FEATURE, HEADER_TRACING_DATA and EVENT_UPDATE; the
 * zstd sinks write COMPRESSED.  A sink that walks records (kit.h's
 * perfsink_kit_rec_next, inline) must pass every type on unchanged, known
 * or not.
 */
enum perfsink_record_type {
	PERFSINK_RECORD_HEADER_ATTR = 64,
	PERFSINK_RECORD_HEADER_EVENT_TYPE = 65,
	PERFSINK_RECORD_HEADER_TRACING_DATA = 66,
	PERFSINK_RECORD_HEADER_BUILD_ID = 67,
	PERFSINK_RECORD_FINISHED_ROUND = 68,
	PERFSINK_RECORD_ID_INDEX = 69,
	PERFSINK_RECORD_AUXTRACE_INFO = 70,
	PERFSINK_RECORD_AUXTRACE = 71,
	PERFSINK_RECORD_AUXTRACE_ERROR = 72,
	PERFSINK_RECORD_THREAD_MAP = 73,
	PERFSINK_RECORD_CPU_MAP = 74,
	PERFSINK_RECORD_STAT_CONFIG = 75,
	PERFSINK_RECORD_STAT = 76,
	PERFSINK_RECORD_STAT_ROUND = 77,
	PERFSINK_RECORD_EVENT_UPDATE = 78,
	PERFSINK_RECORD_TIME_CONV = 79,
	PERFSINK_RECORD_HEADER_FEATURE = 80,
	PERFSINK_RECORD_COMPRESSED = 81,
	PERFSINK_RECORD_FINISHED_INIT = 82,
};

/* ---------------------------------------------------------------- buffers */

enum perfsink_buf_kind {
	PERFSINK_BUF_RING = 1, /* records copied from one kernel ring */
	PERFSINK_BUF_SYNTH,    /* records the engine synthesized (COMM, MMAP, ...) */
	PERFSINK_BUF_COMPRESSED, /* 1.9: a RING buffer compressed (COMPRESSED INPUT) */
};

/*
 * A refcounted block of whole perf records, in stream order.  Read-only for
 * sinks.  When tail_round is non-zero, the last tail_round bytes are a
 * PERF_RECORD_FINISHED_ROUND that closes one drain pass; sinks that
 * transform ring data (compression) should keep that record as it is.
 *
 * Since ABI 1.2 the host places data so that data - (stream offset) is a
 * multiple of PERFSINK_BUF_ALIGN, where the stream offset is the number of
 * bytes of every buffer dispatched in this stream before this one.  A sink
 * that writes the buffers back to back from an aligned file offset (as
 * after file_header()) can thus hand their aligned middles to O_DIRECT
 * writes.  It must still check each address: an older host, or a sink that
 * keeps one file across streams, does not get this alignment.
 */
struct perfsink_buf {
	const uint8_t *data;
	size_t len;
	uint32_t kind;        /* enum perfsink_buf_kind */
	int32_t cpu;          /* ring's CPU, -1 when not from a ring */
	uint64_t seq;         /* dispatch order, from 0, per stream */
	uint32_t tail_round;  /* 0 or 8 */
	/*
	 * Since ABI 1.1: the number of records in data (FINISHED_ROUND
	 * included), counted by the host as it read them, so a sink that must
	 * account for records (a write that fails drops them) need not walk
	 * the buffer again.  0 from a host that does not count them: data is
	 * never empty, so 0 means "count them yourself".
	 */
	uint32_t records;
	/*
	 * Since ABI 1.5: how many of them are COMM or FORK records (new or
	 * renamed tasks; synthesized ones too), and since 1.6 MMAP or MMAP2
	 * records (new mappings), so a sink that tracks the recorded
	 * processes or their files walks only the buffers that have some.
	 */
	uint32_t task_records;
	/*
	 * Since ABI 1.9, set in PERFSINK_BUF_COMPRESSED buffers only (else
	 * raw_len = len, task_data NULL): the raw buffer's length, and its
	 * task records (see COMPRESSED INPUT at the top).
	 */
	uint32_t task_len;
	uint64_t raw_len;
	const uint8_t *task_data;
};

/* Ring or synthesized bytes buf stands for: raw_len when compressed (1.9). */
static inline uint64_t perfsink_buf_raw_len(const struct perfsink_buf *b)
{
	return b->kind == PERFSINK_BUF_COMPRESSED ? b->raw_len : b->len;
}

/*
 * Compressed input (1.9): each COMPRESSED record holds at most this many
 * bytes of whole records (one record longer than it is one chunk of its
 * own, kept raw when over PERFSINK_Z_MMAP_LEN); mmap_len to announce.
 */
#define PERFSINK_Z_CHUNK (63u * 1024)
#define PERFSINK_Z_MMAP_LEN 65536u

/* What a sink asks of host->want_compressed (1.9). */
struct perfsink_zwant {
	uint32_t level;   /* zstd level, 1..22 */
	uint32_t threads; /* workers the stage may use for it; 0: the host's choice */
	uint32_t chunk;   /* 0: PERFSINK_Z_CHUNK (the one frame sinks share) */
	uint32_t reserved;
};

/* Memory the host owns (host->pool_regions); never freed by a sink. */
struct perfsink_region {
	const void *base;
	size_t len;
};

/* A byte range returned by a host helper; free with host->bytes_free. */
struct perfsink_bytes {
	uint8_t *data;
	size_t len;
};

/* ----------------------------------------------------------------- stream */

/* Compression described in the COMPRESSED feature (perf's HEADER_COMPRESSED). */
struct perfsink_compression {
	uint32_t type;     /* 1 = zstd */
	uint32_t level;
	uint32_t ratio;    /* bytes before / bytes after, rounded; 0 if unknown */
	uint32_t mmap_len; /* >= the largest decompressed size of one record */
};

/*
 * What is being recorded.  Passed to start() and rotate(); valid until the
 * next rotate() or close().  Sinks treat it as read-only and pass it back to
 * the format helpers.
 */
struct perfsink_stream {
	uint32_t nr_events;
	const char *const *event_names; /* "cpu-clock", "sched:sched_switch" */
	uint32_t nr_rings;              /* one per CPU being read */
	uint32_t nr_buffers;            /* pooled buffers over all rings */
	uint64_t buffer_size;           /* bytes of one pooled buffer */
	uint64_t ring_mmap_len;         /* bytes of one ring mmap, control page included */
	uint32_t segment;               /* 0, then +1 at each rotation */
	uint32_t max_files;             /* rotation: keep the newest N outputs; 0 = all */
	const char *session;            /* unique id of this recording run */
	const char *host_name;          /* uname nodename */
	int64_t start_realtime_ns;      /* CLOCK_REALTIME when this segment began */
	const struct perfsink_stream_priv *priv; /* engine's own */
	uint32_t flags;                 /* PERFSINK_STREAM_* */
	uint32_t reserved;
};

/*
 * stream->flags.  ROTATING: rotate() will be called (on size, time or
 * SIGUSR2; never for an instance configured with rotate = false, which gets
 * a stream without this flag for the whole run); file sinks name every output, the first one too, after the
 * segment ("<path>.<YYYYmmddHHMMSS>.<NNNNNN>", local time of the segment's
 * start) so names sort in time order.  OVERWRITE: flight recorder; each
 * segment is one dump of the rings' newest data.
 */
#define PERFSINK_STREAM_ROTATING  (1u << 0)
#define PERFSINK_STREAM_OVERWRITE (1u << 1)

/* Where a file-mode output ended: input of the final header and features. */
struct perfsink_file_end {
	uint64_t data_offset; /* from file_header(); where records start */
	uint64_t data_size;   /* bytes of records written after data_offset */
	const struct perfsink_compression *comp; /* NULL: not compressed */
};

/* Engine-wide totals handed to close(). */
struct perfsink_summary {
	uint64_t samples;
	uint64_t lost_events;  /* from PERF_RECORD_LOST and LOST_SAMPLES */
	uint64_t ring_bytes;   /* bytes read from the rings */
	int64_t duration_ns;   /* the recording time: start to stop, without the drain */
	int stop_reason;       /* 0 normal end, else a negative errno */
};

/* host->output events (1.4). */
enum perfsink_output_event {
	PERFSINK_OUTPUT_BEGUN = 1, /* created / stream begun; bytes 0 */
	PERFSINK_OUTPUT_DONE,      /* complete and readable; bytes: its size */
	PERFSINK_OUTPUT_REMOVED,   /* deleted by the sink; bytes 0 */
};

/* perfsink_sink_stats.state (1.4): what the status line shows for the instance. */
enum perfsink_sink_state {
	PERFSINK_STATE_OK = 0,     /* writing or sending as fast as it comes */
	PERFSINK_STATE_RETRYING,   /* the destination refused; next try in retry_in_ms */
	PERFSINK_STATE_SPOOLING,   /* destination down: data goes to a spool (spooled_bytes) */
	PERFSINK_STATE_FAILED,     /* gave up; what it gets from now on is lost */
};

/*
 * Per-instance counters, filled by ops->stats.  The host zeroes the struct
 * before the call, so a sink fills only what it counts.  Fields after
 * `files` came with ABI 1.4; the loader never runs a sink built for a newer
 * minor than the host's, so a sink may fill every field of its own header.
 */
struct perfsink_sink_stats {
	uint64_t bytes_in;        /* bytes accepted from the engine */
	uint64_t bytes_out;       /* bytes written or sent (after compression) */
	uint64_t buffers;         /* buffers accepted */
	uint64_t retries;         /* I/O retried (EAGAIN, short write, 5xx, ...) */
	uint64_t dropped_bytes;   /* accepted but never stored: lost */
	uint64_t dropped_records; /* perf records in dropped_bytes */
	uint64_t pending_bytes;   /* left for later (e.g. a spool), not lost */
	uint64_t files;           /* outputs completed (segments, parts, ...) */
	/* 1.4 */
	uint32_t state;           /* enum perfsink_sink_state */
	uint32_t retry_in_ms;     /* RETRYING: time to the next try */
	uint64_t spooled_bytes;   /* of this run's data, bytes waiting in a spool */
	uint64_t spooled_parts;   /* the parts (outputs) they make */
	uint64_t backlog_bytes;   /* earlier runs' data still waiting in the spool */
	uint64_t backlog_parts;
	uint64_t backlog_sent_bytes; /* of bytes_out, earlier runs' data sent by this run */
	uint64_t lost_parts;      /* outputs replaced by a LOST marker or never stored */
	/* 1.7 */
	uint32_t drain_left_ms;   /* in drain(): how long it waits still; else 0 */
	uint32_t reserved;
	/* 1.8: symbol files shipped beside the data (the http sink) */
	uint64_t symbols_files;   /* files shipped (executables, debug files, JIT files) */
	uint64_t symbols_bytes;   /* their bytes */
	uint64_t symbols_skipped; /* not shipped: over a size cap or the budget */
	uint64_t symbols_skipped_bytes;
	uint64_t symbols_unsampled; /* mapped, no sample fell in them: not shipped */
};

/* ------------------------------------------------------------------- host */

/*
 * Services of the engine, valid for the whole life of the instance.
 * Callable from any thread unless noted.
 */
struct perfsink_host {
	uint32_t struct_size;
	uint32_t abi_minor;

	/* One logging path; the line is prefixed with the instance name. */
	void (*log)(const struct perfsink_instance *inst, enum perfsink_log_level lvl,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

	/* References on a buffer passed to write(). */
	void (*buf_get)(struct perfsink_buf *buf);
	void (*buf_put)(struct perfsink_buf *buf);

	/*
	 * perf.data file mode.  file_header(stream, NULL, out): the bytes from
	 * offset 0 up to the data section, with data.size 0 and no features
	 * (write them first).  file_header(stream, end, out): the same bytes,
	 * final, to be written again at offset 0.  Both have the same length,
	 * which is the data offset, a multiple of PERFSINK_BUF_ALIGN since
	 * ABI 1.2 (zero-filled after the attrs).  Errors: -ENOMEM; -EINVAL when
	 * end->data_offset is not that length; -ENODATA when tracepoints are
	 * recorded but their format data is missing (perf would refuse the
	 * file).
	 */
	int (*file_header)(const struct perfsink_stream *s,
			   const struct perfsink_file_end *end,
			   struct perfsink_bytes *out);
	/* Feature index and payloads, to write at data_offset + data_size. */
	int (*file_features)(const struct perfsink_stream *s,
			     const struct perfsink_file_end *end,
			     struct perfsink_bytes *out);
	/* Offset of data.size inside the header, for crash-safe updates. */
	uint64_t data_size_offset;

	/*
	 * perf.data pipe mode: header, HEADER_ATTR per event, HEADER_FEATURE
	 * records in bit order (COMPRESSED among them when comp is not NULL;
	 * all before any data, as perf needs), HEADER_TRACING_DATA with
	 * tracepoints, then EVENT_UPDATE name records.  The records from the
	 * buffers follow it as they are.  Its length need not be a multiple
	 * of 8 (perf does not pad HEADER_FEATURE).  -E2BIG: one event has so
	 * many ids that its HEADER_ATTR passes 65535 bytes.
	 */
	int (*pipe_header)(const struct perfsink_stream *s,
			   const struct perfsink_compression *comp,
			   struct perfsink_bytes *out);

	void (*bytes_free)(struct perfsink_bytes *b);

	/*
	 * Since ABI 1.3 (check struct_size covers it before calling: an older
	 * host has no such field).  Where the value of key `key` (an index
	 * into ops->keys) came from, for error messages in the config's
	 * "FILE:LINE: ..." style: the config line that set it, the line of
	 * the instance's [sink.NAME] section when the key has its default,
	 * or the option that set it ("-o") when the command line did.
	 * Instances made by --sink NAME have no section: "--sink".  Never NULL
	 * from a 1.3 host (a key out of range gets the section's place).
	 * Any thread; the string lives until close() returns.
	 */
	const char *(*value_origin)(const struct perfsink_instance *inst, unsigned key);

	/*
	 * Since ABI 1.4 (check with PERFSINK_HOST_HAS).  Where the data went:
	 * the host names every output in its summary, prints each one that
	 * is done while recording (a rotation) at once, and writes them to
	 * --summary-json; it never guesses a sink's file names.  `where` is a
	 * path or a URL (copied; any length), `bytes` the output's size when
	 * done (0 otherwise).  A sink reports BEGUN when it creates an output
	 * or begins a remote stream (a `where` with "://", a URL, is printed at
	 * once: an operator needs it while the run goes on; the summary says
	 * "sent to" it), DONE when the output is complete and readable, REMOVED when
	 * it deleted one (empty, or older than stream->max_files).  Engine
	 * thread only: call it from inside an op, never from a sink thread.
	 */
	void (*output)(const struct perfsink_instance *inst, enum perfsink_output_event ev,
		       const char *where, uint64_t bytes);
	/*
	 * Since ABI 1.4.  Non-zero once the user asked a second time to stop
	 * (a second SIGINT/SIGTERM): a sink waiting on the network in drain()
	 * or close() leaves the rest where the next run finds it (a spool),
	 * says so, and returns at once.  Any thread; cheap (a flag read).
	 */
	int (*stop_requested)(const struct perfsink_instance *inst);
	/*
	 * Since ABI 1.4 (check PERFSINK_HOST_HAS first).  The memory of the
	 * pooled buffers that ring data (PERFSINK_BUF_RING) arrives in: every
	 * such buf->data .. + len lies inside one of these regions, which
	 * stay mapped at the same addresses for the whole run (every stream
	 * of it), until close() returns.  Synthesized buffers (BUF_SYNTH)
	 * are not in them.  For sinks that register memory with the kernel
	 * once instead of pinning it on every write (io_uring fixed
	 * buffers).  Fills out[0 .. min(n, total)) and returns the total
	 * number of regions (call with n = 0 to size out), or a negative
	 * errno.  From the engine thread, inside start() or rotate().
	 */
	int (*pool_regions)(const struct perfsink_stream *s, struct perfsink_region *out,
			    unsigned n);
	/*
	 * Since ABI 1.9 (check PERFSINK_HOST_HAS; may be NULL).  From open()
	 * only: this instance wants its RING buffers compressed by the
	 * engine's stage for want->level (COMPRESSED INPUT above).  Instances
	 * that ask for the same (level, chunk) share one stage: their bytes
	 * are compressed once.  0, or -EINVAL (a level or chunk out of
	 * range), -ENOTSUP (no zstd in this build): then the sink fails its
	 * open() with one message saying it needs this stage (sink ABI 1.9);
	 * perfsink's sinks have no compressor of their own.  The stage's workers count max(threads)
	 * of those that share it.
	 */
	int (*want_compressed)(const struct perfsink_instance *inst,
			       const struct perfsink_zwant *want);
};

/* Whether host h has member m (fields appended by later minors). */
#define PERFSINK_HOST_HAS(h, m)                                             \
	((h)->struct_size >= offsetof(struct perfsink_host, m) + sizeof((h)->m))

/*
 * host->value_origin(inst, key) when the host has it (ABI 1.3), else NULL:
 * what a sink calls to start an open() error with "FILE:LINE: ".
 */
static inline const char *perfsink_value_origin(const struct perfsink_instance *inst,
						unsigned key)
{
	const struct perfsink_host *h = inst->host;

	if (!PERFSINK_HOST_HAS(h, value_origin) || !h->value_origin)
		return NULL;
	return h->value_origin(inst, key);
}

/* host->output(inst, ev, where, bytes) when the host has it (ABI 1.4), else nothing. */
static inline void perfsink_output(const struct perfsink_instance *inst,
				   enum perfsink_output_event ev, const char *where,
				   uint64_t bytes)
{
	const struct perfsink_host *h = inst->host;

	if (PERFSINK_HOST_HAS(h, output) && h->output)
		h->output(inst, ev, where, bytes);
}

/* host->stop_requested(inst) when the host has it (ABI 1.4), else 0. */
static inline int perfsink_stop_requested(const struct perfsink_instance *inst)
{
	const struct perfsink_host *h = inst->host;

	return PERFSINK_HOST_HAS(h, stop_requested) && h->stop_requested
		? h->stop_requested(inst) : 0;
}

/* host->want_compressed(inst, w) when the host has it (ABI 1.9), else -ENOTSUP. */
static inline int perfsink_want_compressed(const struct perfsink_instance *inst,
					   const struct perfsink_zwant *w)
{
	const struct perfsink_host *h = inst->host;

	return PERFSINK_HOST_HAS(h, want_compressed) && h->want_compressed
		? h->want_compressed(inst, w) : -ENOTSUP;
}

/* -------------------------------------------------------------------- ops */

struct perfsink_sink_ops {
	uint32_t abi_major;   /* PERFSINK_ABI_MAJOR */
	uint32_t abi_minor;   /* PERFSINK_ABI_MINOR */
	uint32_t struct_size; /* sizeof(struct perfsink_sink_ops) */
	uint32_t flags;       /* PERFSINK_SINK_* */
	const char *name;        /* plugin name, e.g. "aio_file" */
	const char *description; /* one line */
	const struct perfsink_key *keys;

	int (*open)(const struct perfsink_instance *inst, void **ctx);
	int (*start)(void *ctx, const struct perfsink_stream *stream);
	/* Asynchronous: take a reference, return; may block only for backpressure. */
	int (*write)(void *ctx, struct perfsink_buf *buf);
	/* Returns when nothing is in flight; returns the instance's error, if any. */
	int (*barrier)(void *ctx);
	/* Optional (NULL: rotation unsupported).  Called after barrier(). */
	int (*rotate)(void *ctx, const struct perfsink_stream *next);
	/* Final.  Frees ctx. */
	int (*close)(void *ctx, const struct perfsink_summary *sum);
	void (*stats)(void *ctx, struct perfsink_sink_stats *out);
	/*
	 * Optional.  Deliver what an earlier run left behind (a spool), then
	 * return 0, or a negative errno when some of it could not be delivered
	 * within deadline_ms.  `perfsink upload` calls open(), upload(), then
	 * close(ctx, NULL) with no start() in between; that close() returns a
	 * negative errno when anything stays undelivered (-EAGAIN: still in
	 * the spool).  A SIGINT/SIGTERM sets host->stop_requested(): upload()
	 * returns within about 100 ms (-EINTR) and close() sends no more.
	 */
	int (*upload)(void *ctx, int64_t deadline_ms);
	/*
	 * Optional, since ABI 1.4 (the host checks struct_size).  Called once
	 * at the end of a recording, after the final barrier() and before the
	 * host reads stats() for the summary and calls close(): send what is
	 * still queued, for at most the sink's own deadline, and leave the
	 * rest where a later run finds it, so that stats() then tell the
	 * final sent / spooled / lost counts.  It returns early when
	 * host->stop_requested() turns non-zero.  It logs, before it waits,
	 * what it waits for and for how long.  close() after drain() must
	 * not wait for the network again.  0, or a negative errno (logged
	 * by the sink; the run's exit status reports it as a sink failure).
	 */
	int (*drain)(void *ctx);
	/*
	 * Since ABI 1.4; optional (NULL: always).  Whether the sink can work
	 * on this machine at all (a kernel interface it needs, not its
	 * config): 0, or a negative errno with a one-line reason in why.
	 * Called by the loader, before any open(), when an alias names this
	 * sink first (`plugin = file`: uring_file, else aio_file).  No ctx;
	 * any thread; must leave nothing behind.
	 */
	int (*available)(char *why, size_t n);
};

/* ops->flags */
#define PERFSINK_SINK_WRITES_FILES (1u << 0) /* has a "path" key that -o may set */

typedef const struct perfsink_sink_ops *(*perfsink_entry_fn)(void);

#define PERFSINK_DEFINE_SINK(ops_var)                                     \
	__attribute__((visibility("default")))                            \
	const struct perfsink_sink_ops *perfsink_sink_entry(void);        \
	const struct perfsink_sink_ops *perfsink_sink_entry(void) { return &(ops_var); }

#ifdef __cplusplus
}
#endif
#endif /* PERFSINK_SINK_H */
