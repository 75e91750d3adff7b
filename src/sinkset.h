/*
 * The configured sink instances as one fan-out target.  Engine thread only
 * (the host table it hands to sinks is callable from any thread).
 */
#ifndef PS_SINKSET_H
#define PS_SINKSET_H
#include <stdbool.h>
#include <perfsink/sink.h>

struct config;

struct sink_inst {
	struct perfsink_instance pub;
	const struct sink_conf *conf;
	const struct perfsink_sink_ops *ops;
	void *ctx;
	int err;       /* first error; the instance gets no more writes */
	bool logged_error; /* the sink logged an error itself */
	bool opened;
};

struct sinkset {
	struct sink_inst *v;
	unsigned n;
	unsigned nr_stop_failed; /* failed instances with on_error = stop */
};

extern const struct perfsink_host sinkset_host;

/* si as the instance of c that open() gets (c must outlive it). */
void sink_inst_init(struct sink_inst *si, const struct sink_conf *c);

/* open() every instance; on failure closes those opened and returns the error. */
int sinkset_open(struct sinkset *ss, const struct config *c);
/*
 * start() every instance: with s, or with whole for instances that do not
 * rotate (rotate = false), whose one output spans the whole run.
 */
int sinkset_start(struct sinkset *ss, const struct perfsink_stream *s,
		  const struct perfsink_stream *whole);
/* Hand buf to every live instance.  Returns -EPIPE once a stop-instance failed. */
int sinkset_write(struct sinkset *ss, struct perfsink_buf *buf);
int sinkset_barrier(struct sinkset *ss);
int sinkset_rotate(struct sinkset *ss, const struct perfsink_stream *next);
/* Whether every instance that rotates can; names the first that cannot. */
bool sinkset_can_rotate(const struct sinkset *ss, const char **which);
/* close() every opened instance; returns the first error. */
int sinkset_close(struct sinkset *ss, const struct perfsink_summary *sum);
/* Print one summary line per instance (stats). */
void sinkset_report(struct sinkset *ss);
/* Any instance live? */
bool sinkset_alive(const struct sinkset *ss);
void sinkset_free(struct sinkset *ss);

#endif
