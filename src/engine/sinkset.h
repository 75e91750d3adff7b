/*
 * The configured sink instances as one fan-out target.  Engine thread only
 * (the host table it hands to sinks is callable from any thread).
 */
#ifndef PS_SINKSET_H
#define PS_SINKSET_H
#include <stdbool.h>
#include <perfsink/sink.h>
#include "engine/zgroup.h"

struct bound_sinks;
struct zstage;
struct record_sink_report;
struct record_output;

/* What one instance did not write, for the summary. */
struct sink_loss {
	uint64_t records, samples, bytes;
};

/* Records and samples of one buffer an instance accepted. */
struct sink_hist {
	uint32_t records, samples;
};

/*
 * The last buffers an instance accepted, newest last: what a failed sink
 * drops (stats.dropped_records) is the tail of what it accepted, and this
 * says how many samples that tail held.
 */
#define SINK_HIST 1024

struct sink_inst {
	struct perfsink_instance pub;
	struct sinkset *set;          /* the set it belongs to; NULL outside one (upload) */
	const struct sink_conf *conf;
	const struct perfsink_sink_ops *ops;
	void *ctx;
	int err;       /* first error; the instance gets no more writes */
	bool logged_error; /* the sink logged an error itself */
	bool opened;
	struct sink_loss undelivered; /* buffers it did not take: failed before, or write() refused */
	struct sink_hist *hist;       /* SINK_HIST entries, a ring; NULL outside a recording */
	unsigned hist_next, hist_n;
	struct record_output *outputs; /* host->output, in the order begun */
	unsigned nr_outputs, cap_outputs;
	/* Read just before close(): what the summary shows of a closed instance. */
	bool final;
	struct perfsink_sink_stats final_st;
	struct sink_loss final_loss;
	/* Compressed input (sink ABI 1.9): what it asked in open(), its stage. */
	struct zwant zwant;  /* level 0: raw buffers */
	int zgroup;          /* index into sinkset.stages; -1: raw */
};

struct sinkset {
	struct sink_inst *v;
	unsigned n;
	unsigned nr_stop_failed; /* failed instances with on_error = stop */
	uint64_t bytes, buffers; /* handed to the instances (each got them, or lost them) */
	bool ending;             /* drain/close: outputs done now are in the summary, not printed */
	/* One compression stage per distinct (level, chunk) asked for (sinkset_z.c). */
	struct zstage **stages;
	struct zgroup *groups;
	unsigned nr_stages;
	bool stages_made;
};

extern const struct perfsink_host sinkset_host;

/* si as the instance of c that open() gets (c must outlive it). */
void sink_inst_init(struct sink_inst *si, const struct sink_conf *c);
/*
 * open() si; on failure one error line (the sink's own, or "could not be
 * opened" when it logged none) and the negative errno.
 */
int sink_inst_open(struct sink_inst *si);
/* close() an opened si with sum (NULL: none); returns close()'s result. */
int sink_inst_close(struct sink_inst *si, const struct perfsink_summary *sum);
/* Free what si gathered (its history, the outputs it named). */
void sink_inst_release(struct sink_inst *si);

/*
 * Instances opened outside a recording, one at a time, no stream started
 * (sinkset_once.c); the CLI's way to the sinks, never their ops.
 *
 * `perfsink check`: open() and close() every instance of b, so that each
 * runs its own checks (url syntax, paths, spool).  0, or the first
 * failure's negative errno with its one line logged.
 */
int sinkset_check(const struct bound_sinks *b);
/* What `perfsink upload` did. */
struct sinkset_upload_result {
	unsigned spools;  /* instances with a spool (an upload op), opened or not */
	bool failed;      /* one could not be opened, or left something unsent */
	bool told;        /* one's upload() was interrupted and said so in one line */
};
/*
 * `perfsink upload`: every instance of b with a spool, in order, until a
 * stop is requested (signals_stop_requested): open(), upload() within
 * deadline_ms, close() (which says whether the spool still holds parts).
 */
void sinkset_upload(const struct bound_sinks *b, uint64_t deadline_ms,
		    struct sinkset_upload_result *res);

/* open() every instance; on failure closes those opened and returns the error. */
int sinkset_open(struct sinkset *ss, const struct bound_sinks *c);
/*
 * start() every instance: with s, or with whole for instances that do not
 * rotate (rotate = false), whose one output spans the whole run.
 */
int sinkset_start(struct sinkset *ss, const struct perfsink_stream *s,
		  const struct perfsink_stream *whole);
/*
 * Hand buf (holding samples SAMPLE records) to every live instance; a failed
 * one counts it as not written.  Returns -EPIPE once a stop-instance failed.
 */
int sinkset_write(struct sinkset *ss, struct perfsink_buf *buf, uint32_t samples);
int sinkset_barrier(struct sinkset *ss);
int sinkset_rotate(struct sinkset *ss, const struct perfsink_stream *next);
/* Whether every instance that rotates can; names the first that cannot. */
bool sinkset_can_rotate(const struct sinkset *ss, const char **which);
/* Called on the engine thread just before (begin) and after instance i's drain(). */
typedef void sinkset_drain_fn(void *arg, unsigned i, bool begin);
/*
 * End of the run, after sinkset_settle: drain() (sink ABI 1.4) every live
 * instance that has it, so that their stats are final; a failure marks it
 * failed.  From here on, outputs they finish are not printed one by one.
 * around (NULL: none) is called around each drain().
 */
void sinkset_drain(struct sinkset *ss, sinkset_drain_fn *around, void *arg);
/* Whether instance si's ops table has op m (appended by a later minor). */
#define sink_ops_has(ops, m) \
	((ops)->struct_size >= offsetof(struct perfsink_sink_ops, m) + sizeof((ops)->m) && (ops)->m)
/*
 * close() every opened instance, reading its stats and loss first (what
 * sinkset_reports gives for it afterwards); returns the first error.
 */
int sinkset_close(struct sinkset *ss, const struct perfsink_summary *sum);
/*
 * End of the run: barrier() on failed instances too, so their stats (what
 * they dropped) are final before the summary.
 */
void sinkset_settle(struct sinkset *ss);
/*
 * What instance i did not write: buffers not handed to it, plus its own
 * stats.dropped_records (samples among them from the buffers it accepted
 * last).  Zero for an instance that has not failed.
 */
void sinkset_loss(struct sinkset *ss, unsigned i, struct sink_loss *out);
/*
 * out[i] for every instance: names, whether it failed, what it lost
 * (sinkset_loss), its stats when it was opened and has a stats call.
 */
void sinkset_reports(struct sinkset *ss, struct record_sink_report *out);
/* A failed on_error = stop instance said -EPIPE: its reader went away. */
bool sinkset_reader_gone(const struct sinkset *ss);
/* out[i] for every instance, now, while recording (stats only, no loss walk). */
void sinkset_progress(struct sinkset *ss, struct record_sink_report *out);
/*
 * Compression stages (sinkset_z.c, sink ABI 1.9).  host->want_compressed;
 * sinkset_z_start makes the stages the instances asked for (once per
 * run); sinkset_z_write queues buf to each and hands the done ones on in
 * order; sinkset_z_flush waits until every stage handed on all it had;
 * sinkset_z_end logs each stage's totals and frees them (what they still
 * held counts as not written).
 */
int sinkset_host_want_compressed(const struct perfsink_instance *inst,
				 const struct perfsink_zwant *w);
int sinkset_z_start(struct sinkset *ss);
void sinkset_z_write(struct sinkset *ss, struct perfsink_buf *buf, uint32_t samples);
void sinkset_z_flush(struct sinkset *ss);
/* Hand on what the stages have done so far, without waiting (the record loop). */
void sinkset_z_poll(struct sinkset *ss);
void sinkset_z_end(struct sinkset *ss);
/* Give buf to live instance si (or count it not written); for sinkset_z.c. */
void sinkset_write_one(struct sinkset *ss, struct sink_inst *si, struct perfsink_buf *buf,
		       uint32_t samples);
/* Mark si failed with err (on_error decides what follows). */
void sinkset_fail(struct sinkset *ss, struct sink_inst *si, int err);
/* Count buf as not written by si. */
void sinkset_not_written(struct sink_inst *si, const struct perfsink_buf *buf, uint32_t samples);
/* Any instance live? */
bool sinkset_alive(const struct sinkset *ss);
void sinkset_free(struct sinkset *ss);

#endif
