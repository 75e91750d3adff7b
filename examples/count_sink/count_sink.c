/*
 * count_sink: an example perfsink sink.  It counts the perf records it is
 * given, by record type, and writes the counts to the file named by its one
 * key, `report`, when the recording ends.  It stores no perf.data.
 *
 * Built outside perfsink's tree, against the installed headers only (the
 * kit's record walk is inline: no library to link):
 *     cc -shared -fPIC $(pkg-config --cflags perfsink) -o count_sink.so count_sink.c
 * See README.md beside it.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/perf_event.h> /* PERF_RECORD_*: the kernel's record types */

#include <perfsink/kit.h> /* the record walk (inline) */
#include <perfsink/sink.h>

#define MAX_TYPE 128 /* perf's record types are below this */

enum { KEY_REPORT };

static const struct perfsink_key count_keys[] = {
	[KEY_REPORT] = { .name = "report", .type = PERFSINK_KEY_PATH, .def = NULL,
			 .description = "file the record counts are written to at the end" },
	{ 0 },
};

struct count_ctx {
	const struct perfsink_instance *inst;
	char *report;
	uint64_t by_type[MAX_TYPE];
	uint64_t other; /* types >= MAX_TYPE */
	uint64_t bytes_in, buffers;
};

/* Names of the common types; the rest are printed as numbers. */
static const char *type_name(unsigned type)
{
	switch (type) {
	case PERF_RECORD_MMAP: return "MMAP";
	case PERF_RECORD_LOST: return "LOST";
	case PERF_RECORD_COMM: return "COMM";
	case PERF_RECORD_EXIT: return "EXIT";
	case PERF_RECORD_FORK: return "FORK";
	case PERF_RECORD_SAMPLE: return "SAMPLE";
	case PERF_RECORD_MMAP2: return "MMAP2";
	case PERFSINK_RECORD_FINISHED_ROUND: return "FINISHED_ROUND";
	case PERFSINK_RECORD_FINISHED_INIT: return "FINISHED_INIT";
	default: return NULL;
	}
}

static int count_open(const struct perfsink_instance *inst, void **ctx)
{
	struct count_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->inst = inst;
	c->report = strdup(inst->values[KEY_REPORT].str);
	if (!c->report) {
		free(c);
		return -ENOMEM;
	}
	*ctx = c;
	return 0;
}

static int count_start(void *ctx, const struct perfsink_stream *stream)
{
	(void)ctx;
	(void)stream;
	return 0;
}

/* Synchronous: the buffer is read before write() returns, so no reference. */
static int count_write(void *ctx, struct perfsink_buf *buf)
{
	struct count_ctx *c = ctx;
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;

	/* The kit's record walk: inline in kit.h, nothing to link. */
	perfsink_kit_rec_iter_init(&it, buf->data, buf->len);
	while (perfsink_kit_rec_next(&it, &r)) {
		if (r.type < MAX_TYPE)
			c->by_type[r.type]++;
		else
			c->other++;
	}
	if (it.stop == PERFSINK_KIT_REC_UNDERSIZE || it.stop == PERFSINK_KIT_REC_PAST_END)
		return -EINVAL;
	c->bytes_in += buf->len;
	c->buffers++;
	return 0;
}

static int count_barrier(void *ctx)
{
	(void)ctx;
	return 0;
}

static int write_report(const struct count_ctx *c)
{
	FILE *f = fopen(c->report, "w");
	int err = 0;

	if (!f)
		return -errno;
	for (unsigned t = 0; t < MAX_TYPE; t++) {
		const char *name = type_name(t);

		if (!c->by_type[t])
			continue;
		if (name)
			fprintf(f, "%s %llu\n", name, (unsigned long long)c->by_type[t]);
		else
			fprintf(f, "TYPE_%u %llu\n", t, (unsigned long long)c->by_type[t]);
	}
	if (c->other)
		fprintf(f, "OTHER %llu\n", (unsigned long long)c->other);
	if (ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* The report's size, as the summary's "written" counts outputs. */
static uint64_t report_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/*
 * close(ctx, NULL) comes after `perfsink upload` or `perfsink check`:
 * nothing was counted, and nothing may be created.  Otherwise the report is
 * this sink's one output: the host names it in its summary (sink ABI 1.4;
 * perfsink_output() does nothing with an older host).
 */
static int count_close(void *ctx, const struct perfsink_summary *sum)
{
	struct count_ctx *c = ctx;
	int err = 0;

	if (sum) {
		err = write_report(c);
		if (err)
			c->inst->host->log(c->inst, PERFSINK_LOG_ERROR, "%s: %s",
					   c->report, strerror(-err));
		else
			perfsink_output(c->inst, PERFSINK_OUTPUT_DONE, c->report, report_size(c->report));
	}
	free(c->report);
	free(c);
	return err;
}

/* Nothing is stored, so nothing is written out and nothing is lost. */
static void count_stats(void *ctx, struct perfsink_sink_stats *out)
{
	const struct count_ctx *c = ctx;

	memset(out, 0, sizeof(*out));
	out->bytes_in = c->bytes_in;
	out->buffers = c->buffers;
}

static const struct perfsink_sink_ops count_ops = {
	.abi_major = PERFSINK_ABI_MAJOR,
	.abi_minor = PERFSINK_ABI_MINOR,
	.struct_size = sizeof(struct perfsink_sink_ops),
	.name = "count_sink",
	.description = "counts records by type (an example sink)",
	.keys = count_keys,
	.open = count_open,
	.start = count_start,
	.write = count_write,
	.barrier = count_barrier,
	.close = count_close,
	.stats = count_stats,
};

PERFSINK_DEFINE_SINK(count_ops)
