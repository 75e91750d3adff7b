/* Do-nothing sink callbacks shared by the test plugins. */
#ifndef TEST_PLUGIN_MINIMAL_H
#define TEST_PLUGIN_MINIMAL_H
#include <perfsink/sink.h>

static int minimal_open(const struct perfsink_instance *inst, void **ctx)
{
	(void)inst;
	*ctx = NULL;
	return 0;
}

static int minimal_start(void *ctx, const struct perfsink_stream *s)
{
	(void)ctx;
	(void)s;
	return 0;
}

static int minimal_write(void *ctx, struct perfsink_buf *b)
{
	(void)ctx;
	(void)b;
	return 0;
}

static int minimal_barrier(void *ctx)
{
	(void)ctx;
	return 0;
}

static int minimal_close(void *ctx, const struct perfsink_summary *sum)
{
	(void)ctx;
	(void)sum;
	return 0;
}

#define STUB_OPS .open = minimal_open, .start = minimal_start, .write = minimal_write, \
	.barrier = minimal_barrier, .close = minimal_close
#endif
