/* The INI config: a table of bad configs (exact file:line and reason), good ones, selection and -o. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/config_file.h"
#include "loader/bind.h"
#include "config/opts.h"
#include "loader/plugin.h"
#include "engine/sinkset.h"
#include "test_config_util.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct fixture {
	char *dir;
	struct record_opts o;
	struct config c;
	struct bound_sinks s;   /* c's sections bound to their plugins */
	char err[2048];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->dir = test_tmpdir_make();
	record_opts_init(&f->o);
	/* as the CLI does with --plugin-dir before loading the config */
	f->o.plugin_dir = strdup(test_plugin_dir());
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	bind_free(&f->s);
	config_free(&f->c);
	record_opts_free(&f->o);
	test_tmpdir_remove(f->dir);
	free(f);
	return 0;
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' does not contain '%s'", hay, needle);
}

/* Write text as a config file and load it; the path is returned (caller frees). */
static char *load(struct fixture *f, const char *text, int *ret)
{
	char *path = test_file_write(f->dir, "test.ini", text);

	bind_free(&f->s);
	config_free(&f->c);
	f->err[0] = '\0';
	*ret = config_load(&f->c, path, &f->o, f->err, sizeof(f->err));
	if (!*ret)
		*ret = bind_load(&f->s, &f->c, f->o.plugin_dir, f->err, sizeof(f->err));
	return path;
}

static const struct { const char *text; int line; const char *why; } bad_configs[] = {
	{ "[bogus]\n", 1, "unknown section [bogus]; accepted: [record], [sink.NAME]" },
	{ "# comment\n[sink.a]\nplugin = plugin_good\nnope = 1\n", 4,
	  "[sink.a], key 'nope': unknown key for plugin good; accepted: plugin, on_error, rotate, path" },
	{ "[sink.a]\nplugin = plugin_good\ncount = 11\n", 3,
	  "[sink.a], key 'count': '11' is not an integer from 1 to 10" },
	{ "[sink.a]\ncount = 2\n", 1, "[sink.a], key 'plugin': missing" },
	{ "[sink.a]\nplugin = plugin_null\n", 2,
	  "[sink.a], key 'plugin': " },
	{ "[sink.a]\nplugin = plugin_abi_major\n", 2, "speaks sink ABI 2" },
	{ "[sink.a]\nplugin = nosuch\n", 2, "sink plugin 'nosuch' not found (looked in: " },
	{ "[sink.a]\nplugin = plugin_good\n\n[sink.a]\nplugin = plugin_good\n", 4,
	  "duplicate section [sink.a] (first at line 1)" },
	{ "[sink.a]\nplugin = plugin_good\nlabel = x\nlabel = y\n", 4,
	  "[sink.a], key 'label': set twice (first at line 3)" },
	{ "[record]\nfreq = 10\nfreq = 20\n", 3, "[record], key 'freq': set twice" },
	{ "[record]\nfreq = abc\n", 2, "[record], key 'freq': 'abc' is not a sampling frequency" },
	{ "[record]\nfreq = 10 ; ten\n", 2, "'10 ; ten' is not a sampling frequency" },
	{ "[record]\nbogus = 1\n", 2, "[record], key 'bogus': unknown key; accepted: event, freq" },
	{ "[record]\ncpu = 8000\n", 2, "CPU 8000 in '8000' is not online" },
	{ "# c\n\n[sink.a]\n", 3, "section [sink.a] is empty" },
	{ "[record]\n[sink.a]\nplugin = plugin_good\n", 1, "section [record] is empty" },
	{ "[record]\nfreq=1\n[record]\naio=2\n", 3, "duplicate section [record] (first at line 1)" },
	{ "freq = 10\n", 1, "key 'freq' outside any section" },
	{ "[record]\nfreq 10\n", 2, "syntax error" },
	{ "[record]\n= 10\n", 2, "empty key name" },
	{ "[record\nfreq = 1\n", 1, "section header without ']'" },
	{ "[record] x\n", 1, "unexpected text after ']'" },
	{ "[sink.a b]\nplugin = plugin_good\n", 1, "bad instance name 'a b'" },
	{ "[sink.]\nplugin = plugin_good\n", 1, "bad instance name ''" },
	{ "[sink.abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz]\n", 1,
	  "section name too long" },
	{ "[sink.a]\nplugin = plugin_good\non_error = maybe\n", 3,
	  "[sink.a], key 'on_error': 'maybe' is not accepted; accepted: stop, detach" },
	{ "[sink.a]\nplugin = plugin_good\nrotate = sometimes\n", 3,
	  "[sink.a], key 'rotate': 'sometimes' is not a boolean" },
	{ "[sink.a]\nplugin = plugin_good\nmode = turbo\n", 3,
	  "[sink.a], key 'mode': 'turbo' is not accepted; accepted: fast, safe, off" },
	{ "[sink.a]\nplugin = plugin_good\ncompress = perhaps\n", 3, "is not a boolean" },
	{ "[sink.a]\nplugin = plugin_good\ntimeout = 12x\n", 3, "'12x' is not a duration" },
	{ "[sink.a]\nplugin = plugin_good\ntimeout = 2h\n", 3,
	  "'2h' is out of range; accepted: from 100 to 3600000 ms" },
	{ "[sink.a]\nplugin = plugin_good\nbuffer_size = 0x40g\n", 3, "'0x40g' is not a size" },
	{ "[sink.a]\nplugin = plugin_good\nbuffer_size = 1K\n", 3,
	  "'1K' is out of range; accepted: from 4096 to 1073741824 bytes" },
	{ "[sink.a]\nplugin = plugin_good\npath =\n", 3, "[sink.a], key 'path': empty path" },
	{ "[sink.ok]\nplugin = plugin_good\n[sink.b]\nplugin = plugin_plain\n", 3,
	  "[sink.b], key 'url': missing; plugin plain requires it" },
	{ "[sink.a]\nplugin = plugin_good\nlabel = x\n  continued\n", 4, "syntax error" },
	{ "[sink.a]\nplugin = plugin_good\nbuffer-size = 8K\nbuffer_size = 8K\n", 4,
	  "[sink.a], key 'buffer_size': set twice (first at line 3)" },
	{ "[record]\nmmap-pages = 8\nmmap_pages = 8\n", 3, "set twice" },
	{ "[sink.a]\nplugin: plugin_good\n", 2, "':' does not separate a key" },
};

static void test_bad_configs(void **state)
{
	struct fixture *f = *state;
	char want[4096];
	int ret;

	for (size_t i = 0; i < N(bad_configs); i++) {
		char *path = load(f, bad_configs[i].text, &ret);

		if (ret != -EINVAL)
			fail_msg("config %zu was accepted:\n%s", i, bad_configs[i].text);
		snprintf(want, sizeof(want), "%s:%d: ", path, bad_configs[i].line);
		if (strncmp(f->err, want, strlen(want)))
			fail_msg("config %zu: '%s' does not start with '%s'", i, f->err, want);
		assert_contains(f->err, bad_configs[i].why);
		assert_null(strchr(f->err, '\n'));
		print_message("# %s\n", f->err);
		assert_int_equal(f->s.nr_sinks, 0);
		free(path);
	}
}

static void test_line_too_long(void **state)
{
	struct fixture *f = *state;
	char *text, *path, *x = malloc(5001);
	int ret;

	memset(x, 'x', 5000);
	x[5000] = '\0';
	assert_true(asprintf(&text, "[sink.a]\nplugin = plugin_good\nlabel = %s\ncount = 2\n",
			     x) > 0);
	path = load(f, text, &ret);
	assert_int_equal(ret, -EINVAL);
	assert_contains(f->err, ":3: line too long (5008 characters, at most 4096)");
	free(path);
	free(text);
	free(x);
}

static void test_missing_file(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(config_load(&f->c, "/nonexistent/perfsink.ini", &f->o, f->err,
				     sizeof(f->err)), -EINVAL);
	assert_contains(f->err, "cannot read config: '/nonexistent/perfsink.ini': No such file");
}

static const struct perfsink_value *value_of(const struct sink_conf *s, const char *key)
{
	for (unsigned i = 0; i < s->nr_values; i++)
		if (!strcmp(s->plugin->ops->keys[i].name, key))
			return &s->values[i];
	fail_msg("no key %s", key);
	return NULL;
}

/* Two instances of one plugin, every key type, defaults filled, [record] applied. */
static void test_good_fan_out(void **state)
{
	struct fixture *f = *state;
	const struct sink_conf *a, *b;
	char *path, *text, longv[1001];
	int ret;

	memset(longv, 'v', 1000);
	longv[1000] = '\0';
	assert_true(asprintf(&text,
		"; perfsink config\n"
		"[record]\n"
		"event = sched:sched_switch,cpu-clock\n"
		"freq = 999\n"
		"mmap_pages = 1M\n"
		"\n"
		"[sink.first]\n"
		"plugin = plugin_good\n"
		"path = /tmp/a.data\n"
		"label = http://example.invalid/p?a=1;b=2 ; not a comment\n"
		"count = 0x7\n"
		"buffer_size = 2M\n"
		"compress = yes\n"
		"mode = off\n"
		"timeout = 1.5s\n"
		"on_error = detach\n"
		"\n"
		"[sink.second]\n"
		"# only what differs from the defaults\n"
		"plugin = %s\n"
		"label = %s\n", test_plugin_path("plugin_good"), longv) > 0);
	path = load(f, text, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(f->s.nr_sinks, 2);
	assert_string_equal(f->c.path, path);
	a = &f->s.sinks[0];
	b = &f->s.sinks[1];
	assert_string_equal(a->name, "first");
	assert_string_equal(b->name, "second");
	assert_int_equal(a->nr_values, 7);
	assert_int_equal(a->on_error, ON_ERROR_DETACH);
	assert_int_equal(a->no_rotate, 0);
	assert_int_equal(b->on_error, ON_ERROR_STOP);
	assert_string_equal(value_of(a, "path")->str, "/tmp/a.data");
	assert_string_equal(value_of(a, "label")->str,
			    "http://example.invalid/p?a=1;b=2 ; not a comment");
	assert_int_equal(value_of(a, "count")->num, 7);
	assert_int_equal(value_of(a, "buffer_size")->num, 2 << 20);
	assert_int_equal(value_of(a, "compress")->num, 1);
	assert_int_equal(value_of(a, "mode")->num, 2);
	assert_int_equal(value_of(a, "timeout")->num, 1500);
	assert_int_equal(value_of(a, "timeout")->set, 1);
	/* defaults filled in, marked unset */
	assert_string_equal(value_of(b, "path")->str, "good.out");
	assert_int_equal(value_of(b, "path")->set, 0);
	assert_int_equal(value_of(b, "count")->num, 3);
	assert_int_equal(value_of(b, "buffer_size")->num, 65536);
	assert_int_equal(value_of(b, "mode")->num, 1);
	assert_int_equal(value_of(b, "timeout")->num, 10000);
	assert_int_equal(strlen(value_of(b, "label")->str), 1000);
	assert_int_equal(value_of(b, "label")->set, 1);
	assert_contains(a->where, ":7");
	assert_contains(b->where, ":18");
	/* [record] applied to the options */
	assert_int_equal(f->o.nr_events, 1); /* one -e string, perf's syntax */
	assert_string_equal(f->o.events[0], "sched:sched_switch,cpu-clock");
	assert_int_equal(f->o.freq, 999);
	assert_int_equal(f->o.mmap_pages, 256);
	assert_int_equal(bind_select(&f->s, &f->o, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->s.nr_sinks, 2);
	free(path);
	free(text);
}

/* A byte order mark, CRLF line ends and quotes (which are data, not syntax). */
static void test_bom_crlf(void **state)
{
	struct fixture *f = *state;
	char *path;
	int ret;

	path = load(f, "\xef\xbb\xbf[sink.a]\r\nplugin = plugin_good\r\n"
		    "label = \"quoted\" \r\n\r\nbuffer-size = 8K\r\n", &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(f->s.nr_sinks, 1);
	assert_string_equal(value_of(&f->s.sinks[0], "label")->str, "\"quoted\"");
	assert_int_equal(value_of(&f->s.sinks[0], "buffer_size")->num, 8192);
	free(path);
}

/* Comments, blank lines and CRLF between: the error is still at its exact line. */
static void test_line_numbers(void **state)
{
	static const char *const filler[] = { "# c\n", "\n", "; c\n", "   \r\n", "\t# t\n" };
	struct fixture *f = *state;
	char text[4096] = "[sink.a]\r\nplugin = plugin_good\n", *path;
	int ret;

	for (unsigned i = 0; i < 35; i++)
		strcat(text, filler[i % 5]);
	strcat(text, "count = 1\n  mode = fast\ncount = 2\n");
	path = load(f, text, &ret);
	assert_int_equal(ret, -EINVAL);
	assert_contains(f->err, ".ini:40: [sink.a], key 'count': set twice (first at line 38)");
	free(path);
}

/* The CLI is applied after the config and wins, including --plugin-dir. */
static void test_cli_wins(void **state)
{
	struct fixture *f = *state;
	char *path;
	int ret;

	path = load(f, "[record]\nfreq = 999\nplugin-dir = /nonexistent\nevent = task-clock\n"
		    "[sink.a]\nplugin = plugin_good\n", &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(f->o.plugin_dir, test_plugin_dir());
	/* as cli.c applies its options: no call between config_load and these */
	assert_int_equal(record_opt_set(&f->o, "count", "500", f->err, sizeof(f->err)), 0);
	assert_int_equal(record_opt_set(&f->o, "event", "cpu-clock", f->err, sizeof(f->err)), 0);
	assert_int_equal(f->o.period, 500);
	assert_int_equal(f->o.freq, 0);
	assert_int_equal(f->o.nr_events, 1);
	assert_string_equal(f->o.events[0], "cpu-clock");
	assert_int_equal(record_opts_check(&f->o, f->err, sizeof(f->err)), 0);
	free(path);
}

static void sinks_set(struct record_opts *o, const char *a, const char *b)
{
	o->nr_sinks = b ? 2 : 1;
	o->sinks = calloc(2, sizeof(char *));
	o->sinks[0] = strdup(a);
	if (b)
		o->sinks[1] = strdup(b);
}

static const char two_writers[] =
	"[sink.one]\nplugin = plugin_good\npath = one.out\n"
	"[sink.two]\nplugin = plugin_good\npath = two.out\n"
	"[sink.net]\nplugin = plugin_plain\nurl = http://127.0.0.1/;x\n";

static void test_select(void **state)
{
	struct fixture *f = *state;
	char *path;
	int ret;

	path = load(f, two_writers, &ret);
	assert_int_equal(ret, 0);
	sinks_set(&f->o, "two", "plugin_good");
	assert_int_equal(bind_select(&f->s, &f->o, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->s.nr_sinks, 2);
	assert_string_equal(f->s.sinks[0].name, "two");
	/* not an instance but a plugin: a default instance of it */
	assert_string_equal(f->s.sinks[1].name, "good");
	assert_string_equal(value_of(&f->s.sinks[1], "path")->str, "good.out");
	assert_string_equal(f->s.sinks[1].where, "--sink");
	free(path);
}

/* Naming a sink twice selects it once; two names for one instance name collide. */
static void test_select_twice(void **state)
{
	struct fixture *f = *state;
	char *path;
	int ret;

	path = load(f, two_writers, &ret);
	assert_int_equal(ret, 0);
	sinks_set(&f->o, "one", "one");
	assert_int_equal(bind_select(&f->s, &f->o, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->s.nr_sinks, 1);
	free(path);
	record_opts_free(&f->o);
	record_opts_init(&f->o);
	f->o.plugin_dir = strdup(test_plugin_dir());
	path = load(f, two_writers, &ret);
	assert_int_equal(ret, 0);
	sinks_set(&f->o, "plugin_good", test_plugin_path("plugin_good"));
	assert_int_equal(bind_select(&f->s, &f->o, f->err, sizeof(f->err)), -EINVAL);
	assert_contains(f->err, "a sink instance named 'good' is already selected");
	free(path);
}

static void test_select_errors(void **state)
{
	static const struct { const char *sink, *output, *why; } bad[] = {
		{ "nosuch", NULL, "--sink 'nosuch': no such sink instance or plugin" },
		{ "plugin_plain", NULL, "--sink 'plugin_plain': plugin plain requires key 'url'" },
		{ "plugin_null", NULL, "--sink 'plugin_null': " },
		{ NULL, "x.data", "-o 'x.data': several selected sinks write files (one, two)" },
		{ "/nonexistent.so", NULL, "--sink '/nonexistent.so': sink plugin '/nonexistent.so' "
		  "not found" },
		{ "net", "x.data", "-o 'x.data': no selected sink writes files" },
	};
	struct fixture *f = *state;
	char *path;
	int ret;

	for (size_t i = 0; i < N(bad); i++) {
		path = load(f, two_writers, &ret);
		assert_int_equal(ret, 0);
		if (bad[i].sink)
			sinks_set(&f->o, bad[i].sink, NULL);
		if (bad[i].output)
			f->o.output = strdup(bad[i].output);
		assert_int_equal(bind_select(&f->s, &f->o, f->err, sizeof(f->err)), -EINVAL);
		assert_contains(f->err, bad[i].why);
		free(path);
		record_opts_free(&f->o);
		record_opts_init(&f->o);
		f->o.plugin_dir = strdup(test_plugin_dir());
	}
}

static void test_output(void **state)
{
	struct fixture *f = *state;
	const struct perfsink_value *v;
	char *path;
	int ret;

	path = load(f, two_writers, &ret);
	assert_int_equal(ret, 0);
	sinks_set(&f->o, "net", "one");
	f->o.output = strdup("/tmp/out.data");
	assert_int_equal(bind_select(&f->s, &f->o, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->s.nr_sinks, 2);
	assert_string_equal(f->s.sinks[0].name, "net");
	assert_string_equal(value_of(&f->s.sinks[0], "url")->str, "http://127.0.0.1/;x");
	v = value_of(&f->s.sinks[1], "path");
	assert_string_equal(v->str, "/tmp/out.data");
	assert_int_equal(v->set, 1);
	free(path);
}

/* The embedded default, with "aio_file" standing for the test plugin "good". */
static void test_default_config(void **state)
{
	struct fixture *f = *state;
	char *link;

	assert_true(asprintf(&link, "%s/aio_file.so", f->dir) > 0);
	assert_int_equal(symlink(test_plugin_path("plugin_good"), link), 0);
	free(f->o.plugin_dir);
	f->o.plugin_dir = strdup(f->dir);
	assert_int_equal(config_load(&f->c, NULL, &f->o, f->err, sizeof(f->err)), 0);
	assert_null(f->c.path);
	assert_int_equal(bind_load(&f->s, &f->c, f->o.plugin_dir, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->s.nr_sinks, 1);
	assert_string_equal(f->s.sinks[0].name, "default");
	assert_string_equal(f->s.sinks[0].plugin->name, "aio_file");
	assert_int_equal(f->s.sinks[0].on_error, ON_ERROR_STOP);
	assert_int_equal(value_of(&f->s.sinks[0], "count")->set, 0);
	f->o.output = strdup("run.data");
	assert_int_equal(bind_select(&f->s, &f->o, f->err, sizeof(f->err)), 0);
	assert_string_equal(value_of(&f->s.sinks[0], "path")->str, "run.data");
	free(link);
}

/* What host->value_origin tells a sink: the line, the section for a default, "-o". */
static void test_value_origin(void **state)
{
	struct fixture *f = *state;
	struct sink_inst si;
	char *path, want[1200];
	int ret;

	path = load(f, "# x\n[sink.a]\nplugin = plugin_good\nlabel = l\n", &ret);
	assert_int_equal(ret, 0);
	sink_inst_init(&si, &f->s.sinks[0]);
	snprintf(want, sizeof(want), "%s:4", path);
	assert_string_equal(sinkset_host.value_origin(&si.pub, 1), want); /* label */
	snprintf(want, sizeof(want), "%s:2", path);
	assert_string_equal(sinkset_host.value_origin(&si.pub, 0), want); /* path: default */
	assert_string_equal(sinkset_host.value_origin(&si.pub, 999), want); /* out of range */
	assert_string_equal(perfsink_value_origin(&si.pub, 1), sinkset_host.value_origin(&si.pub, 1));
	f->o.output = strdup("o.data");
	assert_int_equal(bind_select(&f->s, &f->o, f->err, sizeof(f->err)), 0);
	sink_inst_init(&si, &f->s.sinks[0]);
	assert_string_equal(sinkset_host.value_origin(&si.pub, 0), "-o");
	free(path);
}

/* One file, two writers: refused, naming both sections; paths compare resolved. */
static void test_same_path(void **state)
{
	static const struct { const char *text, *output; int line, first; } same[] = {
		{ "[sink.a]\nplugin = plugin_good\npath = x.data\n"
		  "[sink.b]\nplugin = plugin_good\npath = ./x.data\n", NULL, 4, 1 },
		{ "[sink.a]\nplugin = plugin_good\npath = /tmp/../tmp/x.data\n"
		  "[sink.b]\nplugin = plugin_good\npath = /tmp/x.data\n", NULL, 4, 1 },
		{ "[sink.a]\nplugin = plugin_good\n"
		  "[sink.b]\nplugin = plugin_good\n", NULL, 3, 1 }, /* both default */
	};
	struct fixture *f = *state;
	char *path, want[1200];
	int ret;

	for (size_t i = 0; i < N(same); i++) {
		path = load(f, same[i].text, &ret);
		assert_int_equal(ret, 0);
		assert_int_equal(bind_select(&f->s, &f->o, f->err, sizeof(f->err)), -EINVAL);
		snprintf(want, sizeof(want), "%s:%d: [sink.b] writes the same file as [sink.a] "
			 "(%s:%d): /", path, same[i].line, path, same[i].first);
		assert_contains(f->err, want);
		free(path);
	}
	/* distinct files are fine, -o included */
	path = load(f, "[sink.a]\nplugin = plugin_good\npath = /tmp/x.data\n"
		    "[sink.b]\nplugin = plugin_plain\nurl = u\n", &ret);
	assert_int_equal(ret, 0);
	f->o.output = strdup("/tmp/y.data");
	assert_int_equal(bind_select(&f->s, &f->o, f->err, sizeof(f->err)), 0);
	free(path);
}

/* CONFIG_MAX_SINKS sections load; one more is refused at its line. */
static void test_sink_limit(void **state)
{
	struct fixture *f = *state;
	size_t cap = 100 * 64, len = 0;
	char *text = malloc(cap), *path, want[1200];
	int ret;

	assert_non_null(text);
	for (int i = 0; i < CONFIG_MAX_SINKS; i++)
		len += (size_t)snprintf(text + len, cap - len, "[sink.s%d]\nplugin = plugin_good\n"
					"path = s%d.out\n", i, i);
	path = load(f, text, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(f->s.nr_sinks, CONFIG_MAX_SINKS);
	free(path);
	snprintf(text + len, cap - len, "[sink.over]\nplugin = plugin_good\n");
	path = load(f, text, &ret);
	assert_int_equal(ret, -EINVAL);
	snprintf(want, sizeof(want), "%s:%d: [sink.over]: too many sinks: %d [sink.NAME] "
		 "sections, at most %d", path, 3 * CONFIG_MAX_SINKS + 1, CONFIG_MAX_SINKS + 1,
		 CONFIG_MAX_SINKS);
	assert_string_equal(f->err, want);
	free(path);
	free(text);
}

static void test_parse_value(void **state)
{
	static const struct perfsink_key k_int = { "n", PERFSINK_KEY_INT, NULL, "", -5, 0, NULL };
	static const struct perfsink_key k_enum = { "e", PERFSINK_KEY_ENUM, NULL, "", 0, 0, "a|b" };
	struct perfsink_value v;
	char err[256];

	(void)state;
	assert_int_equal(config_parse_value(&k_int, "-5", &v, err, sizeof(err)), 0);
	assert_int_equal(v.num, -5);
	assert_int_equal(config_parse_value(&k_int, "9223372036854775807", &v, err, sizeof(err)), 0);
	assert_int_equal(config_parse_value(&k_int, "-6", &v, err, sizeof(err)), -EINVAL);
	assert_contains(err, "'-6' is not an integer from -5 (decimal or 0x hex)");
	assert_int_equal(config_parse_value(&k_enum, "b", &v, err, sizeof(err)), 0);
	assert_int_equal(v.num, 1);
	assert_string_equal(v.str, "b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_configs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_too_long, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_good_fan_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bom_crlf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_numbers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_select, setup, teardown),
		cmocka_unit_test_setup_teardown(test_select_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_select_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_value_origin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sink_limit, setup, teardown),
		cmocka_unit_test(test_parse_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
