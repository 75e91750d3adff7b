/* Do-nothing sink callbacks shared by the test plugins. */
#ifndef TEST_PLUGIN_STUB_H
#define TEST_PLUGIN_STUB_H
#include <perfsink/sink.h>

static int stub_open(const struct perfsink_instance *inst, void **ctx)
{
	(void)inst;
	*ctx = NULL;
	return 0;
}

static int stub_start(void *ctx, const struct perfsink_stream *s)
{
	(void)ctx;
	(void)s;
	return 0;
}

static int stub_write(void *ctx, struct perfsink_buf *b)
{
	(void)ctx;
	(void)b;
	return 0;
}

static int stub_barrier(void *ctx)
{
	(void)ctx;
	return 0;
}

static int stub_close(void *ctx, const struct perfsink_summary *sum)
{
	(void)ctx;
	(void)sum;
	return 0;
}

#define STUB_OPS .open = stub_open, .start = stub_start, .write = stub_write, \
	.barrier = stub_barrier, .close = stub_close
#endif
