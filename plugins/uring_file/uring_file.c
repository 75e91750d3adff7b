/*
 * uring_file: writes perf.data (file mode) through io_uring.  The file
 * itself (header, data.size checkpoints, the O_DIRECT split, full disk,
 * rotation, flight-recorder dumps) is the kit's perf.data file sink
 * (perfsink_kit_fsink, perfsink/kit.h), shared with aio_file, so both
 * write the same bytes and fail the same way; this sink brings the writer
 * (uring_writer.h) and the ring it uses (uring_io.h).
 *
 * direct is on by default: O_DIRECT takes the copy into the page cache,
 * most of the recorder's CPU, off the path, and unlike glibc's POSIX AIO,
 * which runs the writes of one descriptor one after the other, io_uring
 * keeps every pooled buffer's write in flight at once (the queue is deep
 * enough for all of them), so a direct write that holds its buffer until
 * the disk has it does not hold the others back.  The pooled buffers are
 * registered once as fixed buffers (sink ABI 1.4, host->pool_regions), so
 * the kernel does not pin their pages on every write.  Each sink write is
 * plugged (uring_writer_plug): with O_DIRECT the kit writes the pending
 * block, then the middle, and both are entered with one system call.  They
 * stay two writes, so the middle keeps its fixed buffer: the kit grows the
 * file ahead of the data, so io_uring issues both at once instead of
 * handing them to a worker, and a vectored write of the two pinned the
 * middle's pages on every buffer (up to 30 % of the recorder's CPU with
 * DWARF stacks).  The ring lives for the whole run; each file gets a
 * writer on it.
 *
 * A direct write holds its pooled buffer until the disk has it.  Beside a
 * busy neighbour's writeback that is hundreds of milliseconds, and the
 * pool ran out (a fifth to a third of a storm lost).  So the ring comes
 * with spill memory (uring_spill.h, spill_size at most, sized from the
 * disk's measured rate): once the writes in flight hold half of one ring's
 * buffers, the writer copies each buffer there and gives it back at once.
 * And the engine never enters the ring: it queues, the ring's I/O thread
 * submits and reaps (uring_io.h), so a write issued inline that waits for
 * an extent or inode lock behind a busy journal waits on that thread.
 *
 * Where io_uring cannot be set up, open() says so in one line and fails;
 * ops->available tells the loader the same, for `plugin = file`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfsink/sink.h>
#include <perfsink/kit.h>
#include "uring_io.h"
#include "uring_writer.h"

/* The writer's config and ring; path, fsync and direct go to the kit's file sink (uring_file_fkeys). */
struct uring_file {
	const struct perfsink_instance *inst;
	unsigned depth;      /* config: slots; 0 = from the stream */
	int fixed;           /* config: register the pool; cleared when it cannot be */
	uint64_t spill_size; /* config: bytes of spill memory; 0 = none */
	unsigned nr_buffers; /* of the current stream (begin) */
	unsigned spill_at;   /* writes in flight from pooled buffers from which writes spill */
	struct uring_io io;  /* the run's ring, set up at the first output */
	struct uring_spill *spill; /* set up with the ring; NULL: none */
	struct uring_writer *w; /* the current file's writer; NULL between files */
};

/* The sink's context: the kit's file sink, and this sink's state for plugging its writes. */
struct uring_sink {
	struct perfsink_kit_fsink *f;
	struct uring_file *u; /* owned by f (its wctx): freed by its close */
};

/* path, fsync and direct are the kit's file sink's; the others the writer's. */
#define URING_FILE_KEYS(KEY, ONLY)                                                        \
	ONLY(KEY_PATH, "path", PERFSINK_KEY_PATH, "perf.data", 0, 0, NULL,                \
	     "output file (perf.data format); -o sets it")                                \
	KEY(KEY_DEPTH, "depth", PERFSINK_KEY_INT, "0", 0, 4096, NULL,                     \
	    "writes in flight at most; 0 = every pooled buffer's (two each with O_DIRECT)", \
	    struct uring_file, depth)                                                     \
	ONLY(KEY_FSYNC, "fsync", PERFSINK_KEY_BOOL, "false", 0, 0, NULL,                 \
	     "fdatasync the file before it is closed")                                    \
	ONLY(KEY_DIRECT, "direct", PERFSINK_KEY_BOOL, "true", 0, 0, NULL,                \
	     "write records with O_DIRECT where the file system supports it")             \
	KEY(KEY_FIXED, "fixed_buffers", PERFSINK_KEY_BOOL, "true", 0, 0, NULL,            \
	    "register the pooled buffers with io_uring once (no page pinning per write)", \
	    struct uring_file, fixed)                                                     \
	KEY(KEY_SPILL, "spill_size", PERFSINK_KEY_SIZE, "256M", 0, 1LL << 40, NULL,       \
	    "memory that holds writes while the disk is behind, so pooled buffers go back " \
	    "at once; at most this, in use one second of the disk's measured rate; " \
	    "0 = none (needs fixed_buffers)", struct uring_file, spill_size)
PERFSINK_KIT_KEYS(URING_FILE_KEYS, uring_file_keys, uring_file_map);

static const struct perfsink_kit_fsink_keys uring_file_fkeys = { KEY_PATH, KEY_FSYNC, KEY_DIRECT };

#define SPILL_MAX_CHUNKS 8192

#define LOG(u, lvl, ...) (u)->inst->host->log((u)->inst, (lvl), __VA_ARGS__)

/*
 * Writes in flight at most: every pooled buffer's, two each with O_DIRECT
 * (a block and a middle), and one per spill chunk.
 */
static unsigned slots_for(const struct uring_file *u, int direct)
{
	if (u->depth)
		return u->depth;
	unsigned chunks = u->spill ? uring_spill_nr_chunks(u->spill) : 0;
	return (direct ? 2 * u->nr_buffers : u->nr_buffers) + chunks;
}

/*
 * The run's spill memory, at the first output: chunks of one pooled
 * buffer.  Without it (too small for a chunk, no memory) writes hold their
 * pooled buffers, as they did before it: said at -v.
 */
static void spill_setup(struct uring_file *u, const struct perfsink_stream *s)
{
	if (!u->spill_size || !u->fixed)
		return;
	/* Each chunk is a write in flight, and an io_uring has at most 32768 entries. */
	uint64_t cap = u->spill_size;
	if (s->buffer_size && cap / s->buffer_size > SPILL_MAX_CHUNKS)
		cap = SPILL_MAX_CHUNKS * s->buffer_size;
	int r = uring_spill_create(cap, s->buffer_size, &u->spill);
	if (r < 0)
		LOG(u, PERFSINK_LOG_DEBUG, "no spill memory (spill_size %llu, buffers of %llu bytes): %s",
		    (unsigned long long)u->spill_size, (unsigned long long)s->buffer_size, strerror(-r));
}

/*
 * Register the pooled buffers as fixed buffers, once for the run (again
 * only if the host moved them).  Without them every write pins its pages:
 * slower, not wrong, so a failure is said at -v and recording goes on.
 */
static void register_pool(struct uring_file *u, const struct perfsink_stream *s)
{
	const struct perfsink_host *h = u->inst->host;
	if (!u->fixed)
		return;
	if (!PERFSINK_HOST_HAS(h, pool_regions) || !h->pool_regions) {
		LOG(u, PERFSINK_LOG_DEBUG, "no fixed buffers: the host is older than sink ABI 1.4");
		u->fixed = 0;
		return;
	}
	int n = h->pool_regions(s, NULL, 0);
	struct perfsink_region *v = n > 0 ? calloc((size_t)n, sizeof(*v)) : NULL;
	int r = !v ? (n < 0 ? n : -ENOMEM) : h->pool_regions(s, v, (unsigned)n);
	if (r >= 0 && !uring_io_registered(&u->io, v, (unsigned)n))
		r = uring_io_register(&u->io, v, (unsigned)n);
	if (r < 0) {
		LOG(u, PERFSINK_LOG_DEBUG, "no fixed buffers: cannot register %d pooled buffers: %s",
		    n, strerror(-r));
		u->fixed = 0;
	}
	free(v);
}

/* Each output: the run's ring at the first one (deep enough for every write in flight and the stop NOP), the pool registered. */
static int uring_begin(void *wctx, const struct perfsink_stream *s)
{
	struct uring_file *u = wctx;
	u->nr_buffers = s->nr_buffers ? s->nr_buffers : 2;
	/* Half of one ring's buffers: each ring has a pool of its own, and a burst on one CPU can take it. */
	unsigned per_ring = s->nr_rings ? u->nr_buffers / s->nr_rings : u->nr_buffers;
	u->spill_at = per_ring / 2 ? per_ring / 2 : 1;
	if (!u->io.ready) {
		char why[256];
		spill_setup(u, s);
		/* Every write in flight, and the read that the kick completes. */
		int r = uring_io_init(&u->io, slots_for(u, 1) + 1, why, sizeof(why));
		if (r < 0) {
			LOG(u, PERFSINK_LOG_ERROR, "%s", why);
			return r;
		}
		if (!u->io.single_issuer)
			LOG(u, PERFSINK_LOG_DEBUG, "io_uring without SINGLE_ISSUER|DEFER_TASKRUN "
			    "(a kernel before 6.1): completions run as task work of the I/O thread");
	}
	register_pool(u, s);
	return 0;
}

static int uring_create(void *wctx, int fd, int direct, uint64_t offset,
			perfsink_kit_aiow_commit_fn on_commit, void *commit_arg, void *done_ctx, void **w)
{
	struct uring_file *u = wctx;
	struct uring_writer_config cfg = {
		.io = &u->io,
		.fd = fd,
		.slots = slots_for(u, direct),
		.spill = u->spill,
		.spill_at = u->spill_at,
		.offset = offset,
		.on_commit = on_commit,
		.commit_arg = commit_arg,
		.done_ctx = done_ctx,
	};
	struct uring_writer *uw;
	int r = uring_writer_create(&cfg, &uw);
	if (r == 0) {
		uring_writer_set_log(uw, u->inst);
		uring_writer_set_ref(uw, &u->w);
	}
	*w = uw;
	return r;
}

static int uring_write(void *w, const void *data, size_t len, perfsink_kit_aiow_done_fn done, void *arg)
{
	return uring_writer_write(w, data, len, done, arg);
}

static int uring_drain(void *w) { return uring_writer_drain(w); }
static uint64_t uring_offset(void *w) { return uring_writer_offset(w); }
static uint64_t uring_committed(void *w) { return uring_writer_committed(w); }

static void uring_stats(void *w, struct perfsink_kit_aiow_stats *out)
{
	struct uring_writer_stats st;
	uring_writer_stats(w, &st);
	*out = (struct perfsink_kit_aiow_stats){ .writes = st.writes, .bytes = st.bytes,
						 .retries = st.retries, .waits = st.waits };
}

static void uring_destroy(void *w) { uring_writer_destroy(w); }

/* At -v: how much the spill took, and whether it ran out. */
static void spill_say(struct uring_file *u)
{
	if (!u->spill)
		return;
	struct uring_spill_stats st;
	uring_spill_get_stats(u->spill, &st);
	if (st.chunks || st.full)
		LOG(u, PERFSINK_LOG_DEBUG,
		    "the disk fell behind: %llu writes (%llu bytes) went through spill memory, "
		    "%llu bytes at most at once; %llu found it full",
		    (unsigned long long)st.chunks, (unsigned long long)st.bytes,
		    (unsigned long long)st.peak, (unsigned long long)st.full);
}

static void uring_fini(void *wctx)
{
	struct uring_file *u = wctx;
	uring_io_exit(&u->io);
	spill_say(u);
	uring_spill_destroy(u->spill);
	free(u);
}

static const struct perfsink_kit_writer_ops uring_writer_ops = {
	.create = uring_create,
	.write = uring_write,
	.drain = uring_drain,
	.offset = uring_offset,
	.committed = uring_committed,
	.stats = uring_stats,
	.destroy = uring_destroy,
	.begin = uring_begin,
	.fini = uring_fini,
};

/* Whether io_uring works here: what `plugin = file` asks before picking this sink. */
static int uring_file_available(char *why, size_t n)
{
	return uring_io_probe(why, n);
}

static int uring_file_open(const struct perfsink_instance *inst, void **ctx)
{
	char why[256];
	int r = uring_io_probe(why, sizeof(why));
	if (r < 0) {
		inst->host->log(inst, PERFSINK_LOG_ERROR, "%s; use plugin = aio_file (or file)", why);
		return r;
	}
	struct uring_sink *us = calloc(1, sizeof(*us));
	struct uring_file *u = calloc(1, sizeof(*u));
	if (!us || !u) {
		free(us);
		free(u);
		return -ENOMEM;
	}
	u->inst = inst;
	us->u = u;
	r = perfsink_kit_fsink_open_keys(inst, uring_file_keys, uring_file_map, &uring_file_fkeys,
					 &uring_writer_ops, u, &us->f);
	if (r < 0) {
		free(us); /* u went with the failed open */
		return r;
	}
	*ctx = us;
	return 0;
}

static int uring_file_start(void *ctx, const struct perfsink_stream *s)
{
	return perfsink_kit_fsink_start(((struct uring_sink *)ctx)->f, s);
}

/*
 * One sink write, plugged: with O_DIRECT the kit writes the pending block
 * then the middle, which the writer enters together (uring_writer_plug).
 */
static int uring_file_write(void *ctx, struct perfsink_buf *buf)
{
	struct uring_sink *us = ctx;
	struct uring_writer *w = us->u->w;
	if (w)
		uring_writer_plug(w);
	int r = perfsink_kit_fsink_write(us->f, buf);
	/* The kit may have replaced the writer (buffered from here): the new one is unplugged. */
	int e = w && us->u->w == w ? uring_writer_unplug(w) : 0;
	return r < 0 ? r : e;
}

static int uring_file_barrier(void *ctx)
{
	return perfsink_kit_fsink_barrier(((struct uring_sink *)ctx)->f);
}

static int uring_file_rotate(void *ctx, const struct perfsink_stream *next)
{
	return perfsink_kit_fsink_rotate(((struct uring_sink *)ctx)->f, next);
}

static int uring_file_close(void *ctx, const struct perfsink_summary *sum)
{
	struct uring_sink *us = ctx;
	int r = perfsink_kit_fsink_close(us->f, sum);
	free(us);
	return r;
}

static void uring_file_stats(void *ctx, struct perfsink_sink_stats *out)
{
	perfsink_kit_fsink_stats(((struct uring_sink *)ctx)->f, out);
}

static const struct perfsink_sink_ops uring_file_ops = {
	.abi_major = PERFSINK_ABI_MAJOR,
	.abi_minor = PERFSINK_ABI_MINOR,
	.struct_size = sizeof(struct perfsink_sink_ops),
	.flags = PERFSINK_SINK_WRITES_FILES,
	.name = "uring_file",
	.description = "perf.data file written with io_uring (O_DIRECT, fixed buffers)",
	.keys = uring_file_keys,
	.open = uring_file_open,
	.start = uring_file_start,
	.write = uring_file_write,
	.barrier = uring_file_barrier,
	.rotate = uring_file_rotate,
	.close = uring_file_close,
	.stats = uring_file_stats,
	.available = uring_file_available,
};

PERFSINK_DEFINE_SINK(uring_file_ops)
