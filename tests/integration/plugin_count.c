/*
 * Test sink "count": checks the host's perfsink_buf.records (ABI 1.1)
 * against its own walk of every buffer; a mismatch fails the write, so
 * the run exits non-zero with the sink's message.
 */
#include <errno.h>
#include <string.h>
#include <perfsink/sink.h>

static const struct perfsink_instance *the_inst;

static int count_open(const struct perfsink_instance *inst, void **ctx)
{
	the_inst = inst;
	*ctx = NULL;
	return 0;
}

static int count_write(void *ctx, struct perfsink_buf *b)
{
	uint32_t n = 0, tasks = 0;
	size_t off = 0;

	(void)ctx;
	while (off + 8 <= b->len) {
		uint32_t type;
		uint16_t size;
		memcpy(&type, b->data + off, sizeof(type));
		memcpy(&size, b->data + off + 6, sizeof(size));
		if (size < 8)
			break;
		/* PERF_RECORD_COMM, PERF_RECORD_FORK, PERF_RECORD_MMAP, PERF_RECORD_MMAP2 */
		tasks += type == 3 || type == 7 || type == 1 || type == 10;
		off += size;
		n++;
	}
	if (n != b->records || off != b->len || tasks != b->task_records) {
		the_inst->host->log(the_inst, PERFSINK_LOG_ERROR,
				    "buffer %llu (kind %u): host says %u records (%u COMM/FORK), walk finds %u (%u) "
				    "(%zu of %zu bytes)", (unsigned long long)b->seq, b->kind, b->records,
				    b->task_records, n, tasks, off, b->len);
		return -EBADMSG;
	}
	return 0;
}

static int count_start(void *ctx, const struct perfsink_stream *s)
{
	(void)ctx;
	(void)s;
	return 0;
}

static int count_barrier(void *ctx)
{
	(void)ctx;
	return 0;
}

static int count_close(void *ctx, const struct perfsink_summary *sum)
{
	(void)ctx;
	(void)sum;
	return 0;
}

static const struct perfsink_key keys[] = { { NULL, 0, NULL, NULL, 0, 0, NULL } };

static const struct perfsink_sink_ops ops = {
	.abi_major = PERFSINK_ABI_MAJOR,
	.abi_minor = PERFSINK_ABI_MINOR,
	.struct_size = sizeof(struct perfsink_sink_ops),
	.name = "count",
	.description = "test sink checking perfsink_buf.records",
	.keys = keys,
	.open = count_open,
	.start = count_start,
	.write = count_write,
	.barrier = count_barrier,
	.close = count_close,
};

PERFSINK_DEFINE_SINK(ops)
