/*
 * Test sink "lossy": behaves like a file sink on a disk that fills up.  It
 * keeps the first `keep` buffers, accepts the next `drop` ones but loses
 * them (reported in stats.dropped_records, as a failed asynchronous write
 * would), then fails the next write.  At close it logs how many samples it
 * kept, which the engine's summary must report as written.
 */
#include <errno.h>
#include <string.h>
#include <perfsink/sink.h>

#define SAMPLE 9 /* PERF_RECORD_SAMPLE */

enum { KEY_KEEP, KEY_DROP };

struct lossy {
	const struct perfsink_instance *inst;
	int64_t keep, drop, writes;
	uint64_t kept_samples, dropped_records, dropped_bytes, bytes_in;
};

static struct lossy the_sink;

static int lossy_open(const struct perfsink_instance *inst, void **ctx)
{
	memset(&the_sink, 0, sizeof(the_sink));
	the_sink.inst = inst;
	the_sink.keep = inst->values[KEY_KEEP].num;
	the_sink.drop = inst->values[KEY_DROP].num;
	*ctx = &the_sink;
	return 0;
}

static uint64_t samples_in(const struct perfsink_buf *b)
{
	uint64_t n = 0;
	size_t off = 0;

	while (off + 8 <= b->len) {
		uint32_t type;
		uint16_t size;

		memcpy(&type, b->data + off, sizeof(type));
		memcpy(&size, b->data + off + 6, sizeof(size));
		if (size < 8)
			break;
		n += type == SAMPLE;
		off += size;
	}
	return n;
}

static int lossy_write(void *ctx, struct perfsink_buf *b)
{
	struct lossy *l = ctx;

	l->writes++;
	if (l->writes > l->keep + l->drop) {
		l->inst->host->log(l->inst, PERFSINK_LOG_ERROR, "write %lld: no space left (test)",
				   (long long)l->writes);
		return -ENOSPC;
	}
	l->bytes_in += b->len;
	if (l->writes > l->keep) {
		l->dropped_records += b->records;
		l->dropped_bytes += b->len;
	} else {
		l->kept_samples += samples_in(b);
	}
	return 0;
}

static int lossy_start(void *ctx, const struct perfsink_stream *s)
{
	(void)ctx;
	(void)s;
	return 0;
}

static int lossy_barrier(void *ctx)
{
	struct lossy *l = ctx;

	return l->writes > l->keep + l->drop ? -ENOSPC : 0;
}

static int lossy_close(void *ctx, const struct perfsink_summary *sum)
{
	struct lossy *l = ctx;

	(void)sum;
	l->inst->host->log(l->inst, PERFSINK_LOG_INFO, "kept %llu samples",
			   (unsigned long long)l->kept_samples);
	return 0;
}

static void lossy_stats(void *ctx, struct perfsink_sink_stats *out)
{
	struct lossy *l = ctx;

	memset(out, 0, sizeof(*out));
	out->bytes_in = l->bytes_in;
	out->bytes_out = l->bytes_in - l->dropped_bytes;
	out->dropped_bytes = l->dropped_bytes;
	out->dropped_records = l->dropped_records;
}

static const struct perfsink_key keys[] = {
	[KEY_KEEP] = { "keep", PERFSINK_KEY_INT, "10", "buffers kept", 0, 0, NULL },
	[KEY_DROP] = { "drop", PERFSINK_KEY_INT, "3", "buffers then lost", 0, 0, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

static const struct perfsink_sink_ops ops = {
	.abi_major = PERFSINK_ABI_MAJOR,
	.abi_minor = PERFSINK_ABI_MINOR,
	.struct_size = sizeof(struct perfsink_sink_ops),
	.name = "lossy",
	.description = "test sink that loses buffers as a full disk does",
	.keys = keys,
	.open = lossy_open,
	.start = lossy_start,
	.write = lossy_write,
	.barrier = lossy_barrier,
	.close = lossy_close,
	.stats = lossy_stats,
};

PERFSINK_DEFINE_SINK(ops)
