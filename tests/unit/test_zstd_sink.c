/*
 * The zstd sink driven through its ABI (dlopen), with a host whose format
 * helpers write a recognizable header and feature section, and whose
 * "pool" has two buffers: the engine reuses one only after the sink has
 * given it back, so a sink that keeps references until its next call
 * would hang here (a deadline turns that into a failure).
 * The host compresses as the engine's stage does (sink ABI 1.9, sink.h
 * COMPRESSED INPUT): the sink asks want_compressed from open(), and every
 * RING buffer comes COMPRESSED, framed by the kit's
 * perfsink_kit_zframe_records at PERFSINK_Z_CHUNK.
 * The file is then read back: final header, features after the data, and
 * the data section decoded as perf does, byte for byte equal to the input.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <perfsink/kit.h>
#include <perfsink/sink.h>
#include "zstd_decode.h"

#define HDR_LEN 128
#define FEAT_LEN 32
#define DATA_SIZE_OFF 48

static const struct perfsink_sink_ops *ops;
static char dir[] = "/tmp/test_zstd_sink.XXXXXX";

/* ----------------------------------------------------------- the host */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static char logbuf[8192];
static unsigned log_errors;

static void host_log(const struct perfsink_instance *inst, enum perfsink_log_level lvl,
		     const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "# %s: %s\n", inst->name, line);
	pthread_mutex_lock(&mu);
	if (lvl == PERFSINK_LOG_ERROR)
		log_errors++;
	strncat(logbuf, line, sizeof(logbuf) - strlen(logbuf) - 2);
	strcat(logbuf, "\n");
	pthread_mutex_unlock(&mu);
}

struct tbuf {
	struct perfsink_buf pub;
	uint8_t mem[200 * 1024];
	struct perfsink_kit_buf z; /* mem COMPRESSED, as the stage hands it */
	int refs;
};

static void host_get(struct perfsink_buf *b)
{
	pthread_mutex_lock(&mu);
	((struct tbuf *)b)->refs++;
	pthread_mutex_unlock(&mu);
}

static void host_put(struct perfsink_buf *b)
{
	pthread_mutex_lock(&mu);
	((struct tbuf *)b)->refs--;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

/* Header: magic, data offset, data.size at 48, then what end said. */
static int host_header(const struct perfsink_stream *s, const struct perfsink_file_end *end,
		       struct perfsink_bytes *out)
{
	uint8_t *p = calloc(1, HDR_LEN);
	uint64_t off = HDR_LEN;

	memcpy(p, "ZSTDTEST", 8);
	memcpy(p + 8, &off, 8);
	memcpy(p + 16, &s->segment, 4);
	if (end) {
		p[20] = 1; /* final */
		memcpy(p + DATA_SIZE_OFF, &end->data_size, 8);
		if (end->comp)
			memcpy(p + 64, end->comp, sizeof(*end->comp));
	}
	out->data = p;
	out->len = HDR_LEN;
	return 0;
}

static int host_features(const struct perfsink_stream *s, const struct perfsink_file_end *end,
			 struct perfsink_bytes *out)
{
	uint8_t *p = calloc(1, FEAT_LEN);

	(void)s;
	memcpy(p, "FEATURES", 8);
	memcpy(p + 8, &end->data_size, 8);
	if (end->comp)
		memcpy(p + 16, end->comp, sizeof(*end->comp));
	out->data = p;
	out->len = FEAT_LEN;
	return 0;
}

static void host_bytes_free(struct perfsink_bytes *b)
{
	free(b->data);
	b->data = NULL;
}

/* What the sink asked of the stage, and the stage's framer at that level. */
static struct perfsink_zwant wanted;
static unsigned wants;
static struct perfsink_kit_zframe stage;
static int stage_level;

static int host_want(const struct perfsink_instance *inst, const struct perfsink_zwant *w)
{
	(void)inst;
	wanted = *w;
	wants++;
	if (stage_level != (int)w->level) {
		if (stage_level)
			perfsink_kit_zframe_fini(&stage);
		assert_int_equal(perfsink_kit_zframe_init(&stage, (int)w->level), 0);
		stage_level = (int)w->level;
	}
	return 0;
}

static const struct perfsink_host host = {
	.struct_size = sizeof(struct perfsink_host),
	.abi_minor = PERFSINK_ABI_MINOR,
	.log = host_log,
	.buf_get = host_get,
	.buf_put = host_put,
	.file_header = host_header,
	.file_features = host_features,
	.data_size_offset = DATA_SIZE_OFF,
	.bytes_free = host_bytes_free,
	.want_compressed = host_want,
};

static struct perfsink_stream stream = {
	.nr_events = 1, .nr_rings = 2, .nr_buffers = 2,
	.buffer_size = sizeof(((struct tbuf *)0)->mem), .ring_mmap_len = 528384,
	.session = "test", .host_name = "test", .start_realtime_ns = 1764700000000000000ll,
};

/* --------------------------------------------------------- the engine */

struct run {
	const char *path;
	const char *level, *threads, *min_batch;
	const char *max_pending;  /* NULL: the default */
	unsigned nr;          /* buffers to write */
	int incompressible;
	uint8_t *in;          /* everything written, in order */
	size_t in_len;
	int write_err;        /* first error from write() or barrier() */
};

static struct perfsink_value vals[8];
static struct perfsink_instance inst = { .name = "z", .host = &host, .values = vals };

static void set_values(const struct run *r)
{
	const struct perfsink_key *k;
	unsigned i = 0;

	memset(vals, 0, sizeof(vals));
	for (k = ops->keys; k->name; k++, i++) {
		const char *v = k->def;

		if (!strcmp(k->name, "path"))
			v = r->path;
		else if (!strcmp(k->name, "level") && r->level)
			v = r->level;
		else if (!strcmp(k->name, "threads") && r->threads)
			v = r->threads;
		else if (!strcmp(k->name, "min_batch") && r->min_batch)
			v = r->min_batch;
		else if (!strcmp(k->name, "max_pending") && r->max_pending)
			v = r->max_pending;
		vals[i].str = v;
		vals[i].num = strtoll(v, NULL, 0);
		if (k->type == PERFSINK_KEY_SIZE && strchr(v, 'K'))
			vals[i].num *= 1024;
		if (k->type == PERFSINK_KEY_SIZE && strchr(v, 'M'))
			vals[i].num *= 1024 * 1024;
	}
}

/* Wait until the sink gave b back; a deadline turns a hang into a failure. */
static void wait_returned(struct tbuf *b)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 60;
	pthread_mutex_lock(&mu);
	while (b->refs > 0)
		if (pthread_cond_timedwait(&cv, &mu, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&mu);
	if (b->refs > 0)
		fail_msg("the sink kept a buffer reference: the engine would wait forever");
}

static void fill(struct tbuf *b, unsigned i, int incompressible)
{
	size_t len = 8 * (size_t)(1 + rand() % (i % 5 == 0 ? 20000 : 300));
	int synth = i == 0 || i % 17 == 5;
	int round = !synth && rand() % 2;

	zdec_fake_records(b->mem, len < 16 ? 16 : len, i, !incompressible);
	b->pub.data = b->mem;
	b->pub.len = len < 16 ? 16 : len;
	b->pub.kind = synth ? PERFSINK_BUF_SYNTH : PERFSINK_BUF_RING;
	b->pub.tail_round = 0;
	if (round) {
		static const uint8_t rec[8] = { 68, 0, 0, 0, 0, 0, 8, 0 };

		memcpy(b->mem + b->pub.len, rec, 8);
		b->pub.len += 8;
		b->pub.tail_round = 8;
	}
}

/* The engine's stage (src/engine/zstage.c): a RING buffer handed on COMPRESSED. */
static void stage_compress(struct tbuf *b)
{
	size_t raw = b->pub.len;

	b->pub.raw_len = raw;
	if (b->pub.kind != PERFSINK_BUF_RING)
		return;
	perfsink_kit_buf_reset(&b->z);
	assert_int_equal(perfsink_kit_zframe_records(&stage, &b->z, b->pub.data, raw,
						     b->pub.tail_round, PERFSINK_Z_CHUNK), 0);
	b->pub.records = (uint32_t)perfsink_kit_records_count(b->pub.data, raw, NULL);
	b->pub.data = b->z.data;
	b->pub.len = b->z.len;
	b->pub.kind = PERFSINK_BUF_COMPRESSED;
}

/* Write r->nr buffers through a pool of two; record what was written. */
static void run_writes(void *ctx, struct run *r, struct tbuf *pool)
{
	unsigned i;

	for (i = 0; i < r->nr; i++) {
		struct tbuf *b = &pool[i % 2];
		int e;

		wait_returned(b);
		fill(b, i, r->incompressible);
		b->pub.seq = i;
		memcpy(r->in + r->in_len, b->pub.data, b->pub.len);
		stage_compress(b);
		e = ops->write(ctx, &b->pub);
		if (e) {
			r->write_err = e;
			break;
		}
		r->in_len += b->pub.raw_len;
	}
	if (!r->write_err)
		r->write_err = ops->barrier(ctx);
	wait_returned(&pool[0]);
	wait_returned(&pool[1]);
}

/* ------------------------------------------------------ the file back */

struct result {
	uint8_t *file;
	size_t file_len;
	uint64_t data_size;
	struct perfsink_compression comp;
	struct zdec d;
};

static void read_back(const char *path, struct result *res)
{
	FILE *f = fopen(path, "rb");
	struct perfsink_compression fcomp;
	uint64_t fsize;
	char err[256] = "";
	struct stat st;

	memset(res, 0, sizeof(*res));
	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	res->file_len = (size_t)st.st_size;
	res->file = malloc(res->file_len + 1);
	assert_int_equal(fread(res->file, 1, res->file_len, f), res->file_len);
	fclose(f);
	assert_true(res->file_len >= HDR_LEN + FEAT_LEN);
	assert_memory_equal(res->file, "ZSTDTEST", 8);
	assert_int_equal(res->file[20], 1); /* the header was rewritten at the end */
	memcpy(&res->data_size, res->file + DATA_SIZE_OFF, 8);
	memcpy(&res->comp, res->file + 64, sizeof(res->comp));
	assert_int_equal(res->file_len, HDR_LEN + res->data_size + FEAT_LEN);
	assert_memory_equal(res->file + HDR_LEN + res->data_size, "FEATURES", 8);
	memcpy(&fsize, res->file + HDR_LEN + res->data_size + 8, 8);
	assert_int_equal(fsize, res->data_size);
	memcpy(&fcomp, res->file + HDR_LEN + res->data_size + 16, sizeof(fcomp));
	assert_memory_equal(&fcomp, &res->comp, sizeof(fcomp));
	assert_int_equal(res->comp.type, 1);
	if (zdec_section(res->file + HDR_LEN, res->data_size, res->comp.mmap_len, &res->d,
			 err, sizeof(err)))
		fail_msg("decode %s: %s", path, err);
	assert_true(res->d.max_record <= 65535);
}

static void result_free(struct result *res)
{
	zdec_free(&res->d);
	free(res->file);
}

static struct tbuf *pool_new(void)
{
	struct tbuf *pool = calloc(2, sizeof(*pool));

	assert_non_null(pool);
	return pool;
}

static void pool_free(struct tbuf *pool)
{
	perfsink_kit_buf_free(&pool[0].z);
	perfsink_kit_buf_free(&pool[1].z);
	free(pool);
}

static void roundtrip(const char *threads, const char *min_batch, const char *level,
		      const char *max_pending)
{
	char path[256];
	struct run r = { path, level, threads, min_batch, max_pending, 300, 0, NULL, 0, 0 };
	struct tbuf *pool = pool_new();
	struct perfsink_sink_stats st;
	struct result res;
	void *ctx;

	snprintf(path, sizeof(path), "%s/rt-%s-%s.data", dir, threads, min_batch);
	r.in = malloc(r.nr * sizeof(pool->mem) + 16);
	set_values(&r);
	wants = 0;
	assert_int_equal(ops->open(&inst, &ctx), 0);
	/* Asked the stage once, at its level, with its threads. */
	assert_int_equal(wants, 1);
	assert_int_equal(wanted.level, atoi(level));
	assert_int_equal(wanted.threads, atoi(threads));
	assert_int_equal(ops->start(ctx, &stream), 0);
	srand(42);
	run_writes(ctx, &r, pool);
	assert_int_equal(r.write_err, 0);
	ops->stats(ctx, &st);
	assert_int_equal(st.bytes_in, r.in_len);
	assert_int_equal(st.buffers, r.nr);
	assert_int_equal(st.dropped_bytes, 0);
	assert_int_equal(ops->close(ctx, NULL), 0);
	read_back(path, &res);
	assert_int_equal(res.d.len, r.in_len);
	assert_memory_equal(res.d.data, r.in, r.in_len);
	assert_int_equal(res.comp.level, atoi(level));
	assert_true(res.comp.ratio >= 2);
	assert_true(res.comp.mmap_len >= res.d.max_decomp);
	assert_int_equal(res.d.frame_open, 0); /* the stage's frames are independent */
	result_free(&res);
	free(r.in);
	pool_free(pool);
}

static void test_roundtrip(void **state)
{
	(void)state;
	roundtrip("1", "128K", "1", NULL);
	roundtrip("1", "0", "3", NULL);
	roundtrip("2", "4K", "1", NULL);
	roundtrip("4", "128K", "1", NULL);
	roundtrip("3", "0", "19", NULL);
	/* Backpressure below min_batch: waiting must close the batch. */
	roundtrip("1", "64M", "1", "1M");
	roundtrip("2", "64M", "1", "1M");
}

static void test_open_bad_path(void **state)
{
	char path[256];
	struct run r = { path, NULL, NULL, NULL, NULL, 0, 0, NULL, 0, 0 };
	void *ctx = NULL;

	(void)state;
	snprintf(path, sizeof(path), "%s/no/such/dir/x.data", dir);
	set_values(&r);
	logbuf[0] = 0;
	log_errors = 0;
	assert_int_equal(ops->open(&inst, &ctx), -ENOENT);
	assert_int_equal(log_errors, 1);
	assert_non_null(strstr(logbuf, path));
}

/* Opened but never started (another sink failed): open() only checks the
 * path, so nothing is ever created. */
static void test_open_close(void **state)
{
	char path[256];
	struct run r = { path, NULL, NULL, NULL, NULL, 0, 0, NULL, 0, 0 };
	void *ctx = NULL;

	(void)state;
	snprintf(path, sizeof(path), "%s/unused.data", dir);
	set_values(&r);
	assert_int_equal(ops->open(&inst, &ctx), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(ops->close(ctx, NULL), 0);
	assert_int_equal(access(path, F_OK), -1);
}

/*
 * A file size limit (EFBIG; fallocate does not see it): one error, the
 * write path fails, and the file keeps a readable prefix of whole records.
 */
static void test_file_too_large(void **state)
{
	char path[256];
	struct run r = { path, "1", "2", "64K", NULL, 200, 1, NULL, 0, 0 };
	struct tbuf *pool = pool_new();
	struct rlimit old, lim;
	struct perfsink_sink_stats st;
	struct result res;
	void *ctx;

	(void)state;
	snprintf(path, sizeof(path), "%s/efbig.data", dir);
	r.in = malloc(r.nr * sizeof(pool->mem) + 16);
	set_values(&r);
	logbuf[0] = 0;
	log_errors = 0;
	assert_int_equal(ops->open(&inst, &ctx), 0);
	assert_int_equal(ops->start(ctx, &stream), 0);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 300 * 1024;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	srand(7);
	run_writes(ctx, &r, pool);
	ops->stats(ctx, &st);
	ops->close(ctx, NULL);
	setrlimit(RLIMIT_FSIZE, &old);
	assert_int_equal(r.write_err, -EFBIG);
	assert_int_equal(log_errors, 1);
	assert_non_null(strstr(logbuf, "File too large"));
	assert_true(st.dropped_bytes > 0);
	read_back(path, &res);
	assert_true(res.d.len > 0 && res.d.len < r.in_len);
	assert_memory_equal(res.d.data, r.in, res.d.len); /* a prefix, whole records */
	assert_int_equal(zdec_whole_records(res.d.data, res.d.len), 1);
	result_free(&res);
	free(r.in);
	pool_free(pool);
}

/*
 * No compression stage: a host older than 1.9, or one that answers
 * -ENOTSUP (built without zstd).  The sink has no compressor of its own,
 * so open() fails with one message that says what it needs.
 */
static int want_notsup(const struct perfsink_instance *i, const struct perfsink_zwant *w)
{
	(void)i;
	(void)w;
	return -ENOTSUP;
}

static void test_open_no_stage(void **state)
{
	static const struct {
		size_t struct_size;
		int (*want)(const struct perfsink_instance *, const struct perfsink_zwant *);
	} hosts[] = {
		{ offsetof(struct perfsink_host, want_compressed), host_want }, /* 1.8 */
		{ sizeof(struct perfsink_host), NULL },
		{ sizeof(struct perfsink_host), want_notsup },
	};
	char path[256];
	struct run r = { path, NULL, NULL, NULL, NULL, 0, 0, NULL, 0, 0 };
	unsigned i;

	(void)state;
	snprintf(path, sizeof(path), "%s/nostage.data", dir);
	set_values(&r);
	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		struct perfsink_host h = host;
		struct perfsink_instance in = inst;
		void *ctx = NULL;

		h.struct_size = hosts[i].struct_size;
		h.want_compressed = hosts[i].want;
		in.host = &h;
		logbuf[0] = 0;
		log_errors = 0;
		assert_int_equal(ops->open(&in, &ctx), -ENOTSUP);
		assert_int_equal(log_errors, 1);
		assert_non_null(strstr(logbuf, "compression stage (sink ABI 1.9)"));
		assert_int_equal(access(path, F_OK), -1);
	}
}

static void segment_name(char *out, size_t n, const char *base, const struct perfsink_stream *s)
{
	time_t t = (time_t)(s->start_realtime_ns / 1000000000);
	char stamp[32];
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	snprintf(out, n, "%s.%s.%06u", base, stamp, s->segment);
}

/*
 * A rotating stream: every output is named after its segment, each one is
 * final when the next begins, and max_files keeps the newest ones.
 */
static void test_rotate(void **state)
{
	char path[256], names[3][300];
	struct run r = { path, "1", "1", "16K", NULL, 40, 0, NULL, 0, 0 };
	struct perfsink_stream seg[3];
	struct tbuf *pool = pool_new();
	size_t starts[4];
	struct result res;
	unsigned i;
	void *ctx;

	(void)state;
	snprintf(path, sizeof(path), "%s/rot.data", dir);
	r.in = malloc(3 * r.nr * sizeof(pool->mem) + 16);
	set_values(&r);
	for (i = 0; i < 3; i++) {
		seg[i] = stream;
		seg[i].flags = PERFSINK_STREAM_ROTATING;
		seg[i].max_files = 2;
		seg[i].segment = i;
		seg[i].start_realtime_ns += i * 5000000000ll;
		segment_name(names[i], sizeof(names[i]), path, &seg[i]);
	}
	assert_int_equal(ops->open(&inst, &ctx), 0);
	assert_int_equal(ops->start(ctx, &seg[0]), 0);
	srand(3);
	for (i = 0; i < 3; i++) {
		if (i)
			assert_int_equal(ops->rotate(ctx, &seg[i]), 0);
		starts[i] = r.in_len;
		run_writes(ctx, &r, pool);
	}
	starts[3] = r.in_len;
	assert_int_equal(r.write_err, 0);
	assert_int_equal(ops->close(ctx, NULL), 0);
	assert_int_equal(access(path, F_OK), -1);     /* never used */
	assert_int_equal(access(names[0], F_OK), -1); /* pruned: max_files = 2 */
	for (i = 1; i < 3; i++) {
		read_back(names[i], &res);
		assert_int_equal(res.d.len, starts[i + 1] - starts[i]);
		assert_memory_equal(res.d.data, r.in + starts[i], res.d.len);
		assert_int_equal(res.d.frame_open, 0); /* independent frames: each file decodes alone */
		assert_int_equal(res.file[16], i); /* the header of segment i */
		result_free(&res);
	}
	free(r.in);
	pool_free(pool);
}

static int setup(void **state)
{
	void *dl = dlopen(ZSTD_PLUGIN, RTLD_NOW | RTLD_LOCAL);
	perfsink_entry_fn entry;

	(void)state;
	alarm(600); /* a hang inside the sink fails the test instead */
	if (!dl) {
		fprintf(stderr, "# dlopen %s: %s\n", ZSTD_PLUGIN, dlerror());
		return -1;
	}
	entry = (perfsink_entry_fn)(uintptr_t)dlsym(dl, PERFSINK_ENTRY_SYMBOL);
	ops = entry ? entry() : NULL;
	if (!ops || ops->abi_major != PERFSINK_ABI_MAJOR || !(ops->flags & PERFSINK_SINK_WRITES_FILES))
		return -1;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	if (stage_level)
		perfsink_kit_zframe_fini(&stage);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_open_bad_path),
		cmocka_unit_test(test_open_close),
		cmocka_unit_test(test_open_no_stage),
		cmocka_unit_test(test_file_too_large),
		cmocka_unit_test(test_rotate),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
