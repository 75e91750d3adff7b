/*
 * http_driver: runs the http sink plugin without the engine, for tests.
 *
 *   http_driver record PLUGIN INPUT [opts] [key=value ...]
 *       Replays INPUT, a perf pipe-mode stream: its prologue (header and
 *       HEADER_* records) is what host->pipe_header returns, the records
 *       after it are written in buffers of whole records.
 *       -b BYTES  buffer size (default 65536)    -r N   replay records N times
 *       -p MS     sleep between buffers          -s ID  session (default "s1")
 *       -w FILE   after the N replays, go on replaying while FILE exists
 *                 (a test removes it once it has seen what it waits for)
 *       -e FILE   write the expected stream (prologue + records as written)
 *   http_driver upload PLUGIN [-t MS] [key=value ...]
 *       open, upload(MS), close(NULL): sends a spool left by earlier runs.
 *
 * Prints "open=RC start=RC write=RC barrier=RC close=RC" (or upload=RC) and
 * one "stats ..." line.  Exits 0 when every op returned 0, 1 when one
 * failed, 2 on usage errors, 3 when a buffer reference was not returned.
 * Config values are parsed here (the core does it in perfsink).
 */
#include <perfsink/sink.h>

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

struct dbuf {
	struct perfsink_buf b;
	atomic_int refs;
};

static atomic_int live_refs;
static const uint8_t *prologue;
static size_t prologue_len;

static void h_log(const struct perfsink_instance *inst, enum perfsink_log_level lvl, const char *fmt, ...)
{
	static const char *names[] = { "error", "warning", "info", "debug" };
	va_list ap;

	if (lvl == PERFSINK_LOG_DEBUG && !getenv("HTTP_DRIVER_DEBUG"))
		return;
	/* HTTP_DRIVER_TIMES: a CLOCK_MONOTONIC stamp, for tests that time the sink. */
	if (getenv("HTTP_DRIVER_TIMES")) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		fprintf(stderr, "[%lld.%03ld] ", (long long)ts.tv_sec, ts.tv_nsec / 1000000);
	}
	fprintf(stderr, "perfsink: %s: %s: ", inst->name, names[lvl]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void h_buf_get(struct perfsink_buf *b)
{
	atomic_fetch_add(&((struct dbuf *)b)->refs, 1);
	atomic_fetch_add(&live_refs, 1);
}

static void h_buf_put(struct perfsink_buf *b)
{
	struct dbuf *d = (struct dbuf *)b;

	atomic_fetch_sub(&live_refs, 1);
	if (atomic_fetch_sub(&d->refs, 1) == 1)
		free(d);
}

static int h_pipe_header(const struct perfsink_stream *s, const struct perfsink_compression *c,
			 struct perfsink_bytes *out)
{
	(void)s;
	(void)c;
	out->data = malloc(prologue_len);
	if (!out->data)
		return -ENOMEM;
	memcpy(out->data, prologue, prologue_len);
	out->len = prologue_len;
	return 0;
}

static void h_bytes_free(struct perfsink_bytes *b)
{
	free(b->data);
	b->data = NULL;
}

static const struct perfsink_host host = {
	.struct_size = sizeof(struct perfsink_host),
	.abi_minor = PERFSINK_ABI_MINOR,
	.log = h_log,
	.buf_get = h_buf_get,
	.buf_put = h_buf_put,
	.pipe_header = h_pipe_header,
	.bytes_free = h_bytes_free,
};

struct unit {
	const char *suffix;
	int64_t mult;
};

static int64_t scaled(const char *s, const struct unit *units)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return -1;
	for (; units->suffix; units++)
		if (!strcasecmp(end, units->suffix))
			return (int64_t)(v * (double)units->mult);
	return -1;
}

/* Enough of the core's value parsing for the http sink's key types. */
static int value_parse(const struct perfsink_key *k, const char *text, struct perfsink_value *v)
{
	static const struct unit size_units[] = {
		{ "", 1 }, { "K", 1 << 10 }, { "M", 1 << 20 }, { "G", 1 << 30 }, { NULL, 0 } };
	static const struct unit dur_units[] = {
		{ "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { NULL, 0 } };

	v->str = text;
	switch (k->type) {
	case PERFSINK_KEY_SIZE:
		v->num = scaled(text, size_units);
		return v->num < 0 ? -EINVAL : 0;
	case PERFSINK_KEY_DURATION:
		v->num = scaled(text, dur_units);
		return v->num < 0 ? -EINVAL : 0;
	case PERFSINK_KEY_BOOL:
		v->num = !strcasecmp(text, "true") || !strcasecmp(text, "yes") || !strcmp(text, "1") ||
			 !strcasecmp(text, "on");
		return 0;
	case PERFSINK_KEY_INT:
		v->num = strtoll(text, NULL, 0);
		return 0;
	case PERFSINK_KEY_ENUM: {
		const char *c = k->choices;
		size_t n = strlen(text);
		int64_t i;

		for (i = 0; c; i++) {
			if (!strncmp(c, text, n) && (c[n] == '|' || !c[n])) {
				v->num = i;
				return 0;
			}
			c = strchr(c, '|');
			c = c ? c + 1 : NULL;
		}
		return -EINVAL;
	}
	default:
		return 0;
	}
}

static struct perfsink_value *values_build(const struct perfsink_key *keys, char **kv, int nkv)
{
	size_t n = 0, i;
	struct perfsink_value *v;
	int j;

	while (keys[n].name)
		n++;
	v = calloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++) {
		const char *text = keys[i].def;

		for (j = 0; j < nkv; j++) {
			size_t l = strlen(keys[i].name);

			if (!strncmp(kv[j], keys[i].name, l) && kv[j][l] == '=') {
				text = kv[j] + l + 1;
				v[i].set = 1;
			}
		}
		if (!text) {
			fprintf(stderr, "http_driver: key %s is required\n", keys[i].name);
			return NULL;
		}
		if (value_parse(&keys[i], text, &v[i]) < 0) {
			fprintf(stderr, "http_driver: bad value for %s: %s\n", keys[i].name, text);
			return NULL;
		}
	}
	for (j = 0; j < nkv; j++) {
		for (i = 0; i < n; i++)
			if (!strncmp(kv[j], keys[i].name, strlen(keys[i].name)) &&
			    kv[j][strlen(keys[i].name)] == '=')
				break;
		if (i == n) {
			fprintf(stderr, "http_driver: unknown key in %s\n", kv[j]);
			return NULL;
		}
	}
	return v;
}

static uint8_t *file_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *d = NULL;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	d = malloc((size_t)n + 1);
	if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
		free(d);
		d = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return d;
}

static uint16_t rsize(const uint8_t *p)
{
	uint16_t s;

	memcpy(&s, p + 6, 2);
	return s;
}

/* Length of the prologue: 16-byte header, then the HEADER_* records. */
static size_t prologue_measure(const uint8_t *d, size_t len)
{
	size_t off = 16;

	while (off + 8 <= len) {
		uint32_t type, extra = 0;

		memcpy(&type, d + off, 4);
		if (type != 64 && type != 80 && type != 66)
			break;
		if (type == 66)
			memcpy(&extra, d + off + 8, 4);
		off += rsize(d + off) + extra;
	}
	return off;
}

static struct dbuf *dbuf_new(const uint8_t *d, size_t len, uint64_t seq)
{
	struct dbuf *b = calloc(1, sizeof(*b) + len);
	uint8_t *data = (uint8_t *)(b + 1);

	memcpy(data, d, len);
	b->b.data = data;
	b->b.len = len;
	b->b.kind = PERFSINK_BUF_RING;
	b->b.cpu = 0;
	b->b.seq = seq;
	atomic_init(&b->refs, 1);
	atomic_fetch_add(&live_refs, 1);
	return b;
}

struct opts {
	size_t buf_size;
	long pace_ms, repeat, timeout_ms;
	const char *session, *expect, *hold;
};

/* -w: the test still holds the replay (its file exists). */
static int held(const char *hold)
{
	return hold && access(hold, F_OK) == 0;
}

static int replay(const struct perfsink_sink_ops *ops, void *ctx, const uint8_t *rec, size_t len,
		  const struct opts *o, FILE *expect)
{
	uint64_t seq = 0;
	long r;
	int rc = 0;

	for (r = 0; (r < o->repeat || held(o->hold)) && rc == 0; r++) {
		size_t off = 0;

		while (off < len && rc == 0) {
			size_t end = off;
			struct dbuf *b;

			while (end < len && end - off + rsize(rec + end) <= o->buf_size)
				end += rsize(rec + end);
			if (end == off)
				end += rsize(rec + end);
			b = dbuf_new(rec + off, end - off, seq++);
			rc = ops->write(ctx, &b->b);
			if (rc == 0 && expect)
				fwrite(rec + off, 1, end - off, expect);
			h_buf_put(&b->b);
			off = end;
			if (o->pace_ms)
				usleep((useconds_t)o->pace_ms * 1000);
		}
	}
	return rc;
}

static void stats_print(const struct perfsink_sink_ops *ops, void *ctx)
{
	struct perfsink_sink_stats st;

	ops->stats(ctx, &st);
	printf("stats bytes_in=%" PRIu64 " buffers=%" PRIu64 " bytes_out=%" PRIu64 " files=%" PRIu64
	       " retries=%" PRIu64 " dropped_bytes=%" PRIu64 " dropped_records=%" PRIu64
	       " pending_bytes=%" PRIu64 "\n", st.bytes_in, st.buffers, st.bytes_out, st.files,
	       st.retries, st.dropped_bytes, st.dropped_records, st.pending_bytes);
}

static int run_record(const struct perfsink_sink_ops *ops, void *ctx, const char *input, const struct opts *o)
{
	const char *events[] = { "cpu-clock" };
	struct perfsink_stream s = { 0 };
	struct perfsink_summary sum = { 0 };
	size_t len;
	uint8_t *d = file_read(input, &len);
	FILE *expect = NULL;
	int rs, rw = 0, rb = 0, rc;

	if (!d) {
		fprintf(stderr, "http_driver: cannot read %s\n", input);
		return 2;
	}
	prologue = d;
	prologue_len = prologue_measure(d, len);
	s.nr_events = 1;
	s.event_names = events;
	s.nr_rings = 1;
	s.nr_buffers = 64;
	s.buffer_size = o->buf_size;
	s.session = o->session;
	s.host_name = "testhost";
	if (o->expect) {
		expect = fopen(o->expect, "wb");
		fwrite(d, 1, prologue_len, expect);
	}
	rs = ops->start(ctx, &s);
	if (rs == 0)
		rw = replay(ops, ctx, d + prologue_len, len - prologue_len, o, expect);
	if (rs == 0)
		rb = ops->barrier(ctx);
	if (expect)
		fclose(expect);
	stats_print(ops, ctx);
	rc = ops->close(ctx, &sum);
	printf("start=%d write=%d barrier=%d close=%d\n", rs, rw, rb, rc);
	free(d);
	return rs || rw || rb || rc;
}

int main(int argc, char **argv)
{
	struct opts o = { 65536, 0, 1, 10000, "s1", NULL, NULL };
	const struct perfsink_sink_ops *ops;
	struct perfsink_instance inst = { "http0", &host, NULL, NULL };
	const char *mode, *input = NULL;
	void *dl, *ctx;
	int c, rc, rc_op;

	if (argc < 3)
		return 2;
	mode = argv[1];
	dl = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		fprintf(stderr, "http_driver: %s\n", dlerror());
		return 2;
	}
	ops = ((perfsink_entry_fn)dlsym(dl, PERFSINK_ENTRY_SYMBOL))();
	optind = 3;
	if (!strcmp(mode, "record"))
		input = argv[optind++];
	while ((c = getopt(argc, argv, "b:p:r:s:e:t:n:w:")) != -1) {
		switch (c) {
		case 'b': o.buf_size = strtoul(optarg, NULL, 0); break;
		case 'p': o.pace_ms = atol(optarg); break;
		case 'r': o.repeat = atol(optarg); break;
		case 's': o.session = optarg; break;
		case 'e': o.expect = optarg; break;
		case 't': o.timeout_ms = atol(optarg); break;
		case 'n': inst.name = optarg; break;
		case 'w': o.hold = optarg; break;
		default: return 2;
		}
	}
	inst.values = values_build(ops->keys, argv + optind, argc - optind);
	if (!inst.values)
		return 2;
	rc_op = ops->open(&inst, &ctx);
	printf("open=%d\n", rc_op);
	if (rc_op)
		return 1;
	if (input) {
		rc = run_record(ops, ctx, input, &o);
	} else {
		rc_op = ops->upload(ctx, o.timeout_ms);
		stats_print(ops, ctx);
		printf("upload=%d\n", rc_op);
		rc = rc_op != 0;
		ops->close(ctx, NULL);
	}
	if (atomic_load(&live_refs) != 0) {
		fprintf(stderr, "http_driver: %d buffer references not returned\n", atomic_load(&live_refs));
		return 3;
	}
	free((void *)inst.values);
	dlclose(dl);
	return rc;
}
