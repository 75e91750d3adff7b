#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loader/bind.h"
#include "base/log.h"
#include "format/perf_file.h"
#include "format/stream.h"
#include "loader/plugin.h"
#include "engine/pool.h"
#include "engine/engine.h"
#include "engine/sinkset.h"
#include "engine/signals.h"

static void host_log(const struct perfsink_instance *inst, enum perfsink_log_level lvl,
		     const char *fmt, ...)
{
	va_list ap;
	if ((unsigned)lvl > PERFSINK_LOG_DEBUG)
		lvl = PERFSINK_LOG_DEBUG; /* a sink's bad level must not index past the tags */
	va_start(ap, fmt);
	if (inst && inst->host_priv && lvl == PERFSINK_LOG_ERROR)
		((struct sink_inst *)inst->host_priv)->logged_error = true;
	log_vmsg((enum log_level)lvl, inst ? inst->name : NULL, fmt, ap);
	va_end(ap);
}

static const char *host_value_origin(const struct perfsink_instance *inst, unsigned key)
{
	const struct sink_inst *si = inst ? inst->host_priv : NULL;
	const struct sink_conf *c = si ? si->conf : NULL;

	if (!c)
		return "(config)"; /* not an instance of ours; still never NULL */
	if (key < c->nr_values && c->origins && c->origins[key])
		return c->origins[key];
	return c->where;
}

static struct record_output *output_find(struct sink_inst *si, const char *where)
{
	for (unsigned k = si->nr_outputs; k-- > 0;)
		if (!strcmp(si->outputs[k].where, where))
			return &si->outputs[k];
	return NULL;
}

static struct record_output *output_add(struct sink_inst *si, const char *where)
{
	if (si->nr_outputs == si->cap_outputs) {
		unsigned cap = si->cap_outputs ? 2 * si->cap_outputs : 8;
		struct record_output *v = realloc(si->outputs, cap * sizeof(*v));
		if (!v)
			return NULL;
		si->outputs = v;
		si->cap_outputs = cap;
	}
	char *w = strdup(where);
	if (!w)
		return NULL;
	si->outputs[si->nr_outputs] = (struct record_output){ .where = w };
	return &si->outputs[si->nr_outputs++];
}

/*
 * Where the data went (sink ABI 1.4).  A remote stream's URL is printed
 * as it begins; an output done while recording (a rotation) as it is
 * done, as perf's --switch-output prints each dump; at the end of the
 * run the summary names them all.
 */
static void host_output(const struct perfsink_instance *inst, enum perfsink_output_event ev,
			const char *where, uint64_t bytes)
{
	struct sink_inst *si = inst ? inst->host_priv : NULL;
	struct record_output *o;

	if (!si || !where || ev < PERFSINK_OUTPUT_BEGUN || ev > PERFSINK_OUTPUT_REMOVED)
		return;
	o = ev == PERFSINK_OUTPUT_BEGUN ? NULL : output_find(si, where);
	if (!o && !(o = output_add(si, where)))
		return;
	/* A removed output keeps the size it was written with: it counts as written. */
	if (ev != PERFSINK_OUTPUT_REMOVED || o->event != PERFSINK_OUTPUT_DONE)
		o->bytes = ev == PERFSINK_OUTPUT_DONE ? bytes : 0;
	o->event = ev;
	bool remote = strstr(where, "://") != NULL; /* a URL: said at once */
	bool ending = !si->set || si->set->ending; /* `perfsink upload` has no set */
	if (ev == PERFSINK_OUTPUT_BEGUN)
		log_summary(remote ? LOG_INFO : LOG_DEBUG, "[ sink %s (%s): %s %s ]", si->pub.name,
			    si->ops->name, remote ? "streaming to" : "writing", where);
	else if (ev == PERFSINK_OUTPUT_DONE && !ending)
		log_summary(LOG_INFO, "[ sink %s (%s): Dump %s (%.3f MB) ]", si->pub.name,
			    si->ops->name, where, (double)bytes / (1024.0 * 1024.0));
	else if (ev == PERFSINK_OUTPUT_REMOVED && !ending)
		log_summary(LOG_DEBUG, "[ sink %s (%s): removed %s ]", si->pub.name, si->ops->name, where);
}

static int host_stop_requested(const struct perfsink_instance *inst)
{
	(void)inst;
	return atomic_load(&signals_stop_requested) != 0; /* "Any thread" */
}

static int host_pool_regions(const struct perfsink_stream *s, struct perfsink_region *out,
			     unsigned n)
{
	const struct perfsink_stream_priv *p = s ? s->priv : NULL;
	if (!p)
		return -EINVAL;
	for (unsigned i = 0; i < n && i < p->nr_pool_regions; i++)
		out[i] = p->pool_regions[i];
	return (int)p->nr_pool_regions;
}

const struct perfsink_host sinkset_host = {
	.struct_size = sizeof(struct perfsink_host),
	.abi_minor = PERFSINK_ABI_MINOR,
	.log = host_log,
	.buf_get = psbuf_get,
	.buf_put = psbuf_put,
	.file_header = perf_file_header,
	.file_features = perf_file_features,
	.data_size_offset = PERF_FILE_DATA_SIZE_OFFSET,
	.pipe_header = perf_pipe_header,
	.bytes_free = perf_bytes_free,
	.value_origin = host_value_origin,
	.output = host_output,
	.stop_requested = host_stop_requested,
	.pool_regions = host_pool_regions,
	.want_compressed = sinkset_host_want_compressed,
};

void sink_inst_init(struct sink_inst *si, const struct sink_conf *c)
{
	memset(si, 0, sizeof(*si));
	si->conf = c;
	si->ops = c->plugin->ops;
	si->pub.name = c->name;
	si->pub.host = &sinkset_host;
	si->pub.values = c->values;
	si->pub.host_priv = si;
	si->zgroup = -1;
}

int sink_inst_open(struct sink_inst *si)
{
	int r = si->ops->open(&si->pub, &si->ctx);

	if (r < 0) {
		/* One line: the sink's own, or this one if it said nothing. */
		if (!si->logged_error)
			pr_err("sink '%s' (%s) could not be opened: %s", si->pub.name,
			       si->ops->name, strerror(-r));
		return r;
	}
	si->opened = true;
	return 0;
}

int sink_inst_close(struct sink_inst *si, const struct perfsink_summary *sum)
{
	int r = si->ops->close(si->ctx, sum);

	si->opened = false;
	si->ctx = NULL;
	return r;
}

void sink_inst_release(struct sink_inst *si)
{
	free(si->hist);
	si->hist = NULL;
	for (unsigned k = 0; k < si->nr_outputs; k++)
		free(si->outputs[k].where);
	free(si->outputs);
	si->outputs = NULL;
	si->nr_outputs = si->cap_outputs = 0;
}

int sinkset_open(struct sinkset *ss, const struct bound_sinks *c)
{
	memset(ss, 0, sizeof(*ss));
	ss->v = calloc(c->nr_sinks, sizeof(*ss->v));
	if (!ss->v)
		return -ENOMEM;
	ss->n = c->nr_sinks;
	for (unsigned i = 0; i < c->nr_sinks; i++) {
		struct sink_inst *si = &ss->v[i];
		sink_inst_init(si, &c->sinks[i]);
		si->set = ss;
		si->hist = calloc(SINK_HIST, sizeof(*si->hist));
		if (!si->hist) {
			sinkset_close(ss, NULL);
			return -ENOMEM;
		}
		int r = sink_inst_open(si);
		if (r < 0) {
			sinkset_close(ss, NULL);
			return r;
		}
	}
	return 0;
}

void sinkset_fail(struct sinkset *ss, struct sink_inst *si, int err)
{
	if (si->err)
		return;
	si->err = err;
	if (si->conf->on_error == ON_ERROR_STOP) {
		ss->nr_stop_failed++;
	} else {
		pr_warn("sink '%s' failed (%s); recording goes on without it (on_error = detach)",
			si->pub.name, strerror(-err));
	}
}

int sinkset_start(struct sinkset *ss, const struct perfsink_stream *s,
		  const struct perfsink_stream *whole)
{
	int zr = sinkset_z_start(ss);
	for (unsigned i = 0; i < ss->n; i++) {
		struct sink_inst *si = &ss->v[i];
		int r = zr < 0 && si->zgroup >= 0 ? zr
			: si->ops->start(si->ctx, si->conf->no_rotate ? whole : s);
		if (r < 0)
			sinkset_fail(ss, si, r);
	}
	return ss->nr_stop_failed ? -EPIPE : (sinkset_alive(ss) ? 0 : -EPIPE);
}

void sinkset_not_written(struct sink_inst *si, const struct perfsink_buf *buf, uint32_t samples)
{
	si->undelivered.records += buf->records;
	si->undelivered.samples += samples;
	/* A compressed buffer stands for its raw bytes (sink ABI 1.9). */
	si->undelivered.bytes += perfsink_buf_raw_len(buf);
}

static void accepted(struct sink_inst *si, const struct perfsink_buf *buf, uint32_t samples)
{
	si->hist[si->hist_next] = (struct sink_hist){ buf->records, samples };
	si->hist_next = (si->hist_next + 1) % SINK_HIST;
	if (si->hist_n < SINK_HIST)
		si->hist_n++;
}

void sinkset_write_one(struct sinkset *ss, struct sink_inst *si, struct perfsink_buf *buf,
		       uint32_t samples)
{
	if (si->err) {
		sinkset_not_written(si, buf, samples);
		return;
	}
	int r = si->ops->write(si->ctx, buf);
	if (r < 0) {
		sinkset_fail(ss, si, r);
		sinkset_not_written(si, buf, samples);
	} else {
		accepted(si, buf, samples);
	}
}

int sinkset_write(struct sinkset *ss, struct perfsink_buf *buf, uint32_t samples)
{
	ss->bytes += buf->len;
	ss->buffers++;
	buf->raw_len = buf->len; /* sink ABI 1.9: set in every buffer */
	for (unsigned i = 0; i < ss->n; i++)
		if (ss->v[i].zgroup < 0)
			sinkset_write_one(ss, &ss->v[i], buf, samples);
	sinkset_z_write(ss, buf, samples);
	return ss->nr_stop_failed || !sinkset_alive(ss) ? -EPIPE : 0;
}

int sinkset_barrier(struct sinkset *ss)
{
	sinkset_z_flush(ss); /* a barrier covers what the stages still hold */
	for (unsigned i = 0; i < ss->n; i++) {
		struct sink_inst *si = &ss->v[i];
		if (si->err)
			continue;
		int r = si->ops->barrier(si->ctx);
		if (r < 0)
			sinkset_fail(ss, si, r);
	}
	return ss->nr_stop_failed || !sinkset_alive(ss) ? -EPIPE : 0;
}

bool sinkset_can_rotate(const struct sinkset *ss, const char **which)
{
	for (unsigned i = 0; i < ss->n; i++) {
		if (!ss->v[i].conf->no_rotate && !ss->v[i].ops->rotate) {
			*which = ss->v[i].pub.name;
			return false;
		}
	}
	return true;
}

int sinkset_rotate(struct sinkset *ss, const struct perfsink_stream *next)
{
	int r = sinkset_barrier(ss);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < ss->n; i++) {
		struct sink_inst *si = &ss->v[i];
		if (si->err || !si->ops->rotate || si->conf->no_rotate)
			continue;
		int e = si->ops->rotate(si->ctx, next);
		if (e < 0)
			sinkset_fail(ss, si, e);
	}
	return ss->nr_stop_failed || !sinkset_alive(ss) ? -EPIPE : 0;
}

bool sinkset_reader_gone(const struct sinkset *ss)
{
	for (unsigned i = 0; i < ss->n; i++)
		if (ss->v[i].err == -EPIPE && ss->v[i].conf->on_error == ON_ERROR_STOP)
			return true;
	return false;
}

bool sinkset_alive(const struct sinkset *ss)
{
	for (unsigned i = 0; i < ss->n; i++)
		if (!ss->v[i].err)
			return true;
	return false;
}

void sinkset_settle(struct sinkset *ss)
{
	for (unsigned i = 0; i < ss->n; i++)
		if (ss->v[i].opened && ss->v[i].err)
			ss->v[i].ops->barrier(ss->v[i].ctx);
}

/* Samples in the last `records` records si accepted (a partial buffer: pro rata). */
static uint64_t tail_samples(const struct sink_inst *si, uint64_t records)
{
	uint64_t samples = 0;

	for (unsigned k = 0; k < si->hist_n && records; k++) {
		const struct sink_hist *h = &si->hist[(si->hist_next + SINK_HIST - 1 - k) % SINK_HIST];
		uint64_t take = h->records < records ? h->records : records;

		samples += h->records ? h->samples * take / h->records : 0;
		records -= take;
	}
	return samples;
}

void sinkset_loss(struct sinkset *ss, unsigned i, struct sink_loss *out)
{
	struct sink_inst *si = &ss->v[i];
	struct perfsink_sink_stats st = { 0 };

	memset(out, 0, sizeof(*out));
	if (!si->err)
		return;
	*out = si->undelivered;
	if (!si->opened || !si->ops->stats)
		return;
	si->ops->stats(si->ctx, &st);
	out->records += st.dropped_records;
	out->bytes += st.dropped_bytes;
	out->samples += tail_samples(si, st.dropped_records);
}

/* The plugin, or what an alias chose and why (plugin.h). */
static const char *sink_plugin_label(const struct sink_inst *si)
{
	const char *note = si->conf->plugin->note;
	return note ? note : si->ops->name;
}

/*
 * What si wrote (record_sink_report.written): the sizes of its files as
 * they were finished, when it named only files and finished every one;
 * else (a URL, an output still open, no output named) its bytes_out.
 */
static uint64_t sink_written(const struct sink_inst *si, const struct perfsink_sink_stats *st)
{
	uint64_t sum = 0;

	for (unsigned k = 0; k < si->nr_outputs; k++) {
		const struct record_output *o = &si->outputs[k];

		if (strstr(o->where, "://") || o->event == PERFSINK_OUTPUT_BEGUN)
			return st->bytes_out;
		sum += o->bytes;
	}
	return si->nr_outputs ? sum : st->bytes_out;
}

static struct record_sink_report report_head(const struct sink_inst *si)
{
	return (struct record_sink_report){
		.name = si->pub.name, .plugin = sink_plugin_label(si), .failed = si->err != 0,
		.outputs = si->outputs, .nr_outputs = si->nr_outputs,
	};
}

void sinkset_progress(struct sinkset *ss, struct record_sink_report *out)
{
	for (unsigned i = 0; i < ss->n; i++) {
		struct sink_inst *si = &ss->v[i];
		out[i] = report_head(si);
		if (si->opened && si->ops->stats) {
			out[i].has_stats = true;
			si->ops->stats(si->ctx, &out[i].st);
		}
		out[i].written = out[i].st.bytes_out; /* its outputs are not finished yet */
	}
}

void sinkset_reports(struct sinkset *ss, struct record_sink_report *out)
{
	struct sink_loss loss;

	/* First what each failed one lost, then each one's stats (as perf's summary order needs). */
	for (unsigned i = 0; i < ss->n; i++) {
		out[i] = report_head(&ss->v[i]);
		if (ss->v[i].final) {
			loss = ss->v[i].final_loss;
			out[i].has_stats = ss->v[i].ops->stats != NULL;
			out[i].st = ss->v[i].final_st;
		} else {
			sinkset_loss(ss, i, &loss);
		}
		out[i].lost_records = loss.records;
		out[i].lost_samples = loss.samples;
		out[i].lost_bytes = loss.bytes;
	}
	for (unsigned i = 0; i < ss->n; i++) {
		struct sink_inst *si = &ss->v[i];
		if (!si->opened || !si->ops->stats)
			continue;
		out[i].has_stats = true;
		si->ops->stats(si->ctx, &out[i].st);
		sinkset_loss(ss, i, &loss);
		out[i].lost_records = loss.records;
		out[i].lost_samples = loss.samples;
		out[i].lost_bytes = loss.bytes;
	}
	for (unsigned i = 0; i < ss->n; i++)
		out[i].written = sink_written(&ss->v[i], &out[i].st);
}

void sinkset_drain(struct sinkset *ss, sinkset_drain_fn *around, void *arg)
{
	ss->ending = true;
	for (unsigned i = 0; i < ss->n; i++) {
		struct sink_inst *si = &ss->v[i];
		if (!si->opened || si->err || !sink_ops_has(si->ops, drain))
			continue;
		if (around)
			around(arg, i, true);
		int r = si->ops->drain(si->ctx);
		if (around)
			around(arg, i, false);
		if (r < 0)
			sinkset_fail(ss, si, r);
	}
}

int sinkset_close(struct sinkset *ss, const struct perfsink_summary *sum)
{
	int first = 0;
	ss->ending = true;
	sinkset_z_end(ss);
	for (unsigned i = 0; i < ss->n; i++) {
		struct sink_inst *si = &ss->v[i];
		if (!si->opened)
			continue;
		if (sum && si->hist) {
			/* The summary, printed after close(), shows these. */
			sinkset_loss(ss, i, &si->final_loss);
			memset(&si->final_st, 0, sizeof(si->final_st));
			if (si->ops->stats)
				si->ops->stats(si->ctx, &si->final_st);
			si->final = true;
		}
		int r = sink_inst_close(si, sum);
		if (r < 0 && !first)
			first = r;
	}
	return first;
}

void sinkset_free(struct sinkset *ss)
{
	sinkset_z_end(ss);
	for (unsigned i = 0; ss->v && i < ss->n; i++)
		sink_inst_release(&ss->v[i]);
	free(ss->v);
	memset(ss, 0, sizeof(*ss));
}
