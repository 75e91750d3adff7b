/* perfsink upload: send what earlier runs left in the spools (engine/sinkset_once.c). */
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "config/config_file.h"
#include "loader/bind.h"
#include "engine/engine.h"
#include "base/log.h"
#include "config/opts.h"
#include "engine/signals.h"
#include "engine/sinkset.h"
#include "config/value_parse.h"

/* upload: SIGINT/SIGTERM ask the sink to stop; its requests see it within 100 ms. */
static void upload_on_stop(int sig)
{
	(void)sig;
	atomic_store(&signals_stop_requested, 1);
}

static void upload_stop_handlers(void)
{
	struct sigaction sa = { .sa_handler = upload_on_stop };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int cmd_upload(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "sink", required_argument, NULL, 's' },
		{ "deadline", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct record_opts o;
	struct config cfg = { 0 };
	struct bound_sinks sinks = { 0 };
	uint64_t deadline_ms = 60000;
	char err[512] = "";
	int c, code = EXIT_BAD_INPUT, verbose = 0;
	record_opts_init(&o);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hv", lo, NULL)) != -1) {
		if (c == 'v') {
			verbose++;
		} else if (c == 'c') {
			free(o.config_path);
			o.config_path = strdup(optarg);
		} else if (c == 's') {
			cli_add_sink(&o, optarg);
		} else if (c == 'd') {
			if (parse_duration_ms(optarg, &deadline_ms) < 0) {
				pr_err("upload: --deadline '%s': not a duration (e.g. 30s, 5m)", optarg);
				goto out;
			}
		} else if (c == 'h') {
			puts("usage: perfsink upload --config FILE [--sink NAME]... [--deadline 60s] [-v]\n\n"
			     "Send what earlier recordings left in the spool of each sink that has one.\n"
			     "Exit 1 when something could not be sent or a bad part was quarantined.");
			code = 0;
			goto out;
		} else {
			pr_err("upload: bad option '%s' (see perfsink upload --help)", argv[optind - 1]);
			goto out;
		}
	}
	if (!o.config_path) {
		pr_err("upload: --config FILE is required (the spool is configured there)");
		goto out;
	}
	if (config_load(&cfg, o.config_path, &o, err, sizeof(err)) < 0 ||
	    bind_load(&sinks, &cfg, o.plugin_dir, err, sizeof(err)) < 0 ||
	    bind_select(&sinks, &o, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		goto out;
	}
	/* -v on the command line wins over [record] verbose, as for record. */
	log_set_verbosity(verbose ? 1 + verbose : o.verbose);
	struct sinkset_upload_result res;
	upload_stop_handlers();
	sinkset_upload(&sinks, deadline_ms, &res);
	code = res.failed;
	if (atomic_load(&signals_stop_requested)) {
		if (!res.told)
			pr_err("upload: interrupted; what was not sent stays in the spool for the next run");
		code = 1;
	} else if (!res.spools) {
		pr_err("upload: no selected sink has anything to upload (only sinks with a spool do)");
		code = EXIT_BAD_INPUT;
	}
out:
	bind_free(&sinks);
	config_free(&cfg);
	record_opts_free(&o);
	return code;
}
