/*
 * perfsink ls / perfsink fetch: the command lines; the work is in
 * src/fetch.  With --config, how to reach the collector (TLS, HTTP
 * authentication; for s3:// the endpoint, region and credentials) comes
 * from the http sink's section that sends there; s3:// without it takes
 * the AWS_* environment variables.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "config/config_file.h"
#include "config/opts.h"
#include "config/value_parse.h"
#include "engine/engine.h"
#include "fetch/collector.h"
#include "fetch/fetch.h"
#include "base/log.h"

/* The collector's limits, options of both verbs (defaults in fetch/collector.h). */
#define LIMITS_USAGE \
	"  --connect-timeout DUR   TCP+TLS connect of a request (default 10s)\n" \
	"  --stall-timeout DUR     a request moving less than 1 KiB in DUR is cut and\n" \
	"                          tried again (default 30s)\n" \
	"  --transfer-timeout DUR  a request lasting longer is cut (default 10m)\n" \
	"  --max-list-pages N      an S3 listing of more pages is refused (default 1000)\n"

static const char ls_usage[] =
	"usage: perfsink ls [--json] [--config FILE [--sink NAME]] URL\n"
	"\n"
	"List the hosts and sessions a collector holds: first and last part time,\n"
	"parts, bytes, and whether the session ended (its end marker is there).\n"
	"URL is the http sink's url (http:// or https://) or s3://BUCKET[/PREFIX].\n"
	"\n"
	"  --json           one JSON array instead of the table\n"
	"  --config FILE    TLS and authentication keys of the http sink's section\n"
	"                   (ca_file, tls_verify, bearer_token_file, user, password_file;\n"
	"                   s3: url, region, path_style, credentials_file, profile)\n"
	"  --sink NAME      which section (default: the first http one of the URL's mode)\n"
	LIMITS_USAGE
	"  -v, --verbose    more messages\n"
	"\n"
	"SIGINT or SIGTERM ends it within a second (exit 1).\n";

static const char fetch_usage[] =
	"usage: perfsink fetch [options] URL/HOST/SESSION\n"
	"\n"
	"Download a session's parts in order, check them, and write a perf.data file\n"
	"that perf report reads (no perf inject needed); then fill ~/.debug from the\n"
	"collector's buildid/ tree, and place the session's JIT maps at\n"
	"/tmp/perf-PID.map (never over a file already there).  Gaps and corrupt parts\n"
	"are reported (exit 1).\n"
	"\n"
	"  -o, --output FILE   the perf.data to write (default perf.data)\n"
	"  --follow            keep fetching a live session until its end marker\n"
	"                      arrives or SIGINT; FILE is readable at every step\n"
	"  --interval DUR      --follow: time between listings (default 1s)\n"
	"  --symbols WHICH     lazy (default): only the build-ids of the DSOs samples or\n"
	"                      their call chains fell in, and none ~/.debug holds; all:\n"
	"                      every build-id listed;\n"
	"                      none: as --no-symbols\n"
	"  --no-symbols        do not fill ~/.debug, place no JIT maps\n"
	"  --decompress        write uncompressed records (no COMPRESSED feature)\n"
	"  --max-ratio N       --decompress: a part may give N times its size, at least\n"
	"                      64 MiB (default 100); more is refused as a bomb\n"
	"  --max-jit-files N   JIT maps and jitdump files placed at most (default 256)\n"
	"  --max-jit-bytes SIZE  their bytes at most (default 1G)\n"
	"  --config FILE       keys of the http sink's section, as for perfsink ls\n"
	"  --sink NAME         which section of FILE\n"
	LIMITS_USAGE
	"  -v, --verbose       more messages\n"
	"\n"
	"SIGINT or SIGTERM ends it within a second: FILE is not written (exit 1), or\n"
	"with --follow keeps the parts taken so far (exit 0).\n";

/* Options both verbs share. */
struct coll_cli {
	char *config_path, *sink;
	int verbose;
	struct collector_limits lim;
};

/* getopt values of the options both verbs share. */
enum { OPT_CONNECT = 1000, OPT_STALL, OPT_TRANSFER, OPT_PAGES, OPT_RATIO, OPT_JIT_FILES, OPT_JIT_BYTES, OPT_SYMBOLS };
#define LIMITS_OPTIONS \
	{ "connect-timeout", required_argument, NULL, OPT_CONNECT }, \
	{ "stall-timeout", required_argument, NULL, OPT_STALL }, \
	{ "transfer-timeout", required_argument, NULL, OPT_TRANSFER }, \
	{ "max-list-pages", required_argument, NULL, OPT_PAGES }

static volatile sig_atomic_t coll_stop;

static void on_stop(int sig)
{
	(void)sig;
	coll_stop = 1;
}

/* SIGINT and SIGTERM set coll_stop: requests see it within 100 ms. */
static void stop_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_stop };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* A sink section's value for key, or NULL. */
static const char *section_value(const struct config_section *s, const char *key)
{
	const struct config_kv *kv = config_kv_find(s->kv, s->nr_kv, key);
	return kv ? kv->value : NULL;
}

/*
 * Fill o from the chosen [sink.NAME] section of the config (the strings
 * stay in cfg): the first http sink section of the URL's kind (mode = s3
 * for s3://), or the one --sink names.  0, or EXIT_BAD_INPUT after one
 * error line.
 */
static int conf_from_config(const struct coll_cli *cc, int s3, struct config *cfg,
			    struct collector_conf *o)
{
	struct record_opts ro;
	char err[512];
	const struct config_section *sec = NULL;
	record_opts_init(&ro);
	int rc = config_load(cfg, cc->config_path, &ro, err, sizeof(err));
	record_opts_free(&ro);
	if (rc < 0) {
		pr_err("%s", err);
		return EXIT_BAD_INPUT;
	}
	for (unsigned i = 0; i < cfg->nr_sections && !sec; i++) {
		const struct config_section *s = &cfg->sections[i];
		const char *plugin = section_value(s, "plugin"), *mode = section_value(s, "mode");
		int is_s3 = mode && !strcmp(mode, "s3");
		if (cc->sink ? !strcmp(s->name, cc->sink) :
			       plugin && !strcmp(plugin, "http") && is_s3 == s3)
			sec = s;
	}
	if (!sec) {
		pr_err("%s: no [sink.%s] section%s", cc->config_path, cc->sink ? cc->sink : "NAME",
		       cc->sink ? "" : s3 ? " with plugin = http and mode = s3" : " with plugin = http");
		return EXIT_BAD_INPUT;
	}
	bool b;
	const char *v;
	if (s3)
		o->endpoint = section_value(sec, "url");
	o->region = section_value(sec, "region");
	o->credentials_file = section_value(sec, "credentials_file");
	o->profile = section_value(sec, "profile");
	if ((v = section_value(sec, "path_style")) && parse_bool(v, &b) == 0)
		o->path_style = b;
	if ((v = section_value(sec, "tls_verify")) && parse_bool(v, &b) == 0)
		o->tls_verify = b;
	o->ca_file = section_value(sec, "ca_file");
	o->client_cert = section_value(sec, "client_cert");
	o->client_key = section_value(sec, "client_key");
	o->bearer_token_file = section_value(sec, "bearer_token_file");
	o->user = section_value(sec, "user");
	o->password_file = section_value(sec, "password_file");
	return 0;
}

static int collector_from(const char *url, const struct coll_cli *cc, struct collector *c,
			  struct config *cfg)
{
	struct collector_conf o = { .path_style = -1, .tls_verify = -1, .lim = cc->lim };
	o.lim.stop = &coll_stop;
	if (cc->config_path) {
		int code = conf_from_config(cc, !strncmp(url, "s3://", 5), cfg, &o);
		if (code)
			return code;
	}
	int rc = collector_open(c, url, &o);
	if (rc < 0) {
		pr_err("%s", c->err);
		return rc == -EINVAL ? EXIT_BAD_INPUT : 1;
	}
	return 0;
}

/* A duration above 0 in ms, or -1 after one error line. */
static int64_t duration_arg(const char *verb, const char *opt, const char *v)
{
	uint64_t ms;
	if (parse_duration_ms(v, &ms) < 0 || !ms || ms > INT64_MAX / 2) {
		pr_err("%s: --%s '%s': not a duration above 0 (e.g. 500ms, 30s, 10m)", verb, opt, v);
		return -1;
	}
	return (int64_t)ms;
}

/* A count 1..max, or 0 after one error line. */
static uint64_t count_arg(const char *verb, const char *opt, const char *v, uint64_t max)
{
	int64_t n;
	if (parse_int(v, 1, (int64_t)max, &n) < 0) {
		pr_err("%s: --%s '%s': not a number from 1 to %" PRIu64, verb, opt, v, max);
		return 0;
	}
	return (uint64_t)n;
}

/*
 * getopt for the options common to ls and fetch: 1 when opt was one of
 * them, 0 when not, -1 after an error line for a bad value.
 */
static int coll_opt(const char *verb, int opt, struct coll_cli *cc)
{
	int64_t *d = NULL;
	switch (opt) {
	case 'c': free(cc->config_path); cc->config_path = strdup(optarg); return 1;
	case 's': free(cc->sink); cc->sink = strdup(optarg); return 1;
	case 'v': cc->verbose++; return 1;
	case OPT_CONNECT: d = &cc->lim.connect_ms; break;
	case OPT_STALL: d = &cc->lim.stall_ms; break;
	case OPT_TRANSFER: d = &cc->lim.transfer_ms; break;
	case OPT_PAGES:
		cc->lim.list_pages = (unsigned)count_arg(verb, "max-list-pages", optarg, 1000000);
		return cc->lim.list_pages ? 1 : -1;
	default: return 0;
	}
	const char *name = opt == OPT_CONNECT ? "connect-timeout" : opt == OPT_STALL ? "stall-timeout"
										 : "transfer-timeout";
	*d = duration_arg(verb, name, optarg);
	return *d > 0 ? 1 : -1;
}

int cmd_ls(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{ "sink", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		LIMITS_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct coll_cli cc = { 0 };
	struct config cfg = { 0 };
	struct collector c = { 0 };
	int opt, json = 0, code = EXIT_BAD_INPUT, r;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":hv", lo, NULL)) != -1) {
		if ((r = coll_opt("ls", opt, &cc)) < 0)
			goto out;
		if (r)
			continue;
		if (opt == 'j') {
			json = 1;
		} else if (opt == 'h') {
			fputs(ls_usage, stdout);
			code = 0;
			goto out;
		} else {
			pr_err("ls: bad option '%s' (see perfsink ls --help)", argv[optind - 1]);
			goto out;
		}
	}
	if (optind != argc - 1) {
		pr_err("ls: one URL expected (see perfsink ls --help)");
		goto out;
	}
	log_set_verbosity(1 + cc.verbose);
	stop_handlers();
	code = collector_from(argv[optind], &cc, &c, &cfg);
	if (!code)
		code = ls_run(&c, json, stdout);
out:
	collector_close(&c);
	config_free(&cfg);
	free(cc.config_path);
	free(cc.sink);
	return code;
}

/* Split URL/HOST/SESSION (in place) into the collector URL, host and session. */
static int url_split(char *url, char **host, char **session)
{
	size_t n = strlen(url);
	while (n && url[n - 1] == '/')
		url[--n] = '\0';
	char *s = strrchr(url, '/');
	if (!s || s == url)
		return -1;
	*s = '\0';
	char *h = strrchr(url, '/');
	if (!h || h[-1] == '/' || h[1] == '\0' || s[1] == '\0')
		return -1;
	*h = '\0';
	*host = h + 1;
	*session = s + 1;
	/* Still a collector URL: a host after "://" (or a bucket after s3://). */
	const char *sep = strstr(url, "://");
	return sep && sep[3] ? 0 : -1;
}

int cmd_fetch(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "follow", no_argument, NULL, 'f' },
		{ "interval", required_argument, NULL, 'i' },
		{ "no-symbols", no_argument, NULL, 'n' },
		{ "symbols", required_argument, NULL, OPT_SYMBOLS },
		{ "decompress", no_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "sink", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "max-ratio", required_argument, NULL, OPT_RATIO },
		{ "max-jit-files", required_argument, NULL, OPT_JIT_FILES },
		{ "max-jit-bytes", required_argument, NULL, OPT_JIT_BYTES },
		LIMITS_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct coll_cli cc = { 0 };
	struct config cfg = { 0 };
	struct collector c = { 0 };
	struct fetch_opts fo = { .out = "perf.data", .poll_ms = 1000, .stop = &coll_stop };
	char *url = NULL, *host, *session;
	uint64_t ms;
	int opt, code = EXIT_BAD_INPUT, r;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":ho:v", lo, NULL)) != -1) {
		if ((r = coll_opt("fetch", opt, &cc)) < 0)
			goto out;
		if (r)
			continue;
		switch (opt) {
		case OPT_RATIO:
			if (!(fo.max_ratio = (unsigned)count_arg("fetch", "max-ratio", optarg, 1000000)))
				goto out;
			break;
		case OPT_JIT_FILES:
			if (!(fo.max_jit_files = (unsigned)count_arg("fetch", "max-jit-files", optarg, 1000000)))
				goto out;
			break;
		case OPT_JIT_BYTES:
			if (parse_size(optarg, &fo.max_jit_bytes) < 0 || !fo.max_jit_bytes) {
				pr_err("fetch: --max-jit-bytes '%s': not a size above 0 (e.g. 64M, 2G)", optarg);
				goto out;
			}
			break;
		case 'o': fo.out = optarg; break;
		case 'f': fo.follow = 1; break;
		case 'n': fo.no_symbols = 1; break;
		case OPT_SYMBOLS:
			fo.no_symbols = !strcmp(optarg, "none");
			fo.all_symbols = !strcmp(optarg, "all");
			if (!fo.no_symbols && !fo.all_symbols && strcmp(optarg, "lazy")) {
				pr_err("fetch: --symbols '%s': lazy, all or none", optarg);
				goto out;
			}
			break;
		case 'd': fo.decompress = 1; break;
		case 'i':
			if (parse_duration_ms(optarg, &ms) < 0 || !ms) {
				pr_err("fetch: --interval '%s': not a duration above 0 (e.g. 500ms, 2s)", optarg);
				goto out;
			}
			fo.poll_ms = (int64_t)ms;
			break;
		case 'h':
			fputs(fetch_usage, stdout);
			code = 0;
			goto out;
		default:
			pr_err("fetch: bad option '%s' (see perfsink fetch --help)", argv[optind - 1]);
			goto out;
		}
	}
	if (optind != argc - 1) {
		pr_err("fetch: one URL/HOST/SESSION expected (see perfsink fetch --help)");
		goto out;
	}
	url = strdup(argv[optind]);
	if (!url || url_split(url, &host, &session) < 0) {
		pr_err("fetch: '%s' is not URL/HOST/SESSION (perfsink ls URL shows them)", argv[optind]);
		goto out;
	}
	log_set_verbosity(1 + cc.verbose);
	stop_handlers();
	code = collector_from(url, &cc, &c, &cfg);
	if (code)
		goto out;
	code = fetch_run(&c, host, session, &fo);
out:
	collector_close(&c);
	config_free(&cfg);
	free(url);
	free(cc.config_path);
	free(cc.sink);
	return code;
}
