/*
 * The status line (src/cli/status.c, compiled in here): what it says
 * while recording and while a sink drains, and that it fits any width
 * from its shortest form up without cutting a piece of it.
 */
#include <config.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/status.c"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A sink as the report has it, and its piece of the line in full and brief
 * words while recording; a draining one adds ", drain 57s left" or ", 57s
 * left" once recording stopped.
 */
struct sink_case {
	struct record_sink_report r;
	const char *full, *brief;
};
#define DRAIN_FULL ", drain 57s left"
#define DRAIN_BRIEF ", 57s left"

static struct sink_case sinks[] = {
	{ { .name = "default", .has_stats = true }, "default: ok", "default: ok" },
	{ { .name = "collector-eu-west", .has_stats = true,
	    .st = { .state = PERFSINK_STATE_RETRYING, .retry_in_ms = 2500,
		    .spooled_bytes = 1288490188, .drain_left_ms = 56200 } },
	  "collector-eu-west: retrying in 3s, spooling 1228.8 MB", "collector-eu-west: retry 3s, spool 1228.8M" },
	{ { .name = "archive", .has_stats = true,
	    .st = { .state = PERFSINK_STATE_SPOOLING, .spooled_bytes = 5 << 20 } },
	  "archive: spooling 5.0 MB", "archive: spool 5.0M" },
	{ { .name = "broken", .has_stats = true, .failed = true }, "broken: failed", "broken: failed" },
};

static struct status_ctx w = { .duration_ms = 60000, .last_secs = 11, .last_samples = 43000,
			       .last_bytes = 5 << 20 };

static struct record_report report(unsigned nr, bool stopped)
{
	static struct record_sink_report r[N(sinks)];

	for (unsigned i = 0; i < N(sinks); i++)
		r[i] = sinks[i].r;
	return (struct record_report){ .secs = 12, .stopped = stopped, .drain_secs = stopped ? 3 : 0,
				       .samples = 47000, .bytes = 6400000, .ring_bytes = (5 << 20) + 524288,
				       .sinks = r, .nr_sinks = nr };
}

static void test_words(void **state)
{
	struct record_report p = report(2, false);
	char line[512];

	(void)state;
	status_format(&w, &p, 500, line, sizeof(line));
	assert_string_equal(line, "[ 12s/60s  4000 ev/s  0.50 MB/s  47000 samples  6.1 MB  lost 0 | "
			    "default: ok | collector-eu-west: retrying in 3s, spooling 1228.8 MB ]");
	p = report(2, true);
	status_format(&w, &p, 500, line, sizeof(line));
	assert_string_equal(line, "[ 12s/60s  stopped 3s ago  47000 samples  6.1 MB  lost 0 | default: ok | "
			    "collector-eu-west: retrying in 3s, spooling 1228.8 MB, drain 57s left ]");
	/* Narrower: the rates go, then the sinks speak briefly, then the totals go. */
	status_format(&w, &p, 120, line, sizeof(line));
	assert_string_equal(line, "[ 12s/60s  47000 samples  6.1 MB  lost 0 | default: ok | "
			    "collector-eu-west: retry 3s, spool 1228.8M, 57s left ]");
	status_format(&w, &p, 90, line, sizeof(line));
	assert_string_equal(line, "[ 12s/60s  lost 0 | default: ok | "
			    "collector-eu-west: retry 3s, spool 1228.8M, 57s left ]");
	/* Then the last sinks give way, whole. */
	status_format(&w, &p, 80, line, sizeof(line));
	assert_string_equal(line, "[ 12s/60s  lost 0 | default: ok | +1 more ]");
	p.samples = 123456789;
	status_format(&w, &p, 200, line, sizeof(line));
	assert_non_null(strstr(line, "  123.5M samples  "));
}

static bool piece_is(const char *start, size_t len, const char *words, const char *drain)
{
	size_t n = strlen(words);

	return !strncmp(start, words, n) &&
	       (n == len || (drain && n + strlen(drain) == len && !strncmp(start + n, drain, len - n)));
}

/* Every piece of line between its "| " and the next " |" or " ]" is one the table has. */
static void pieces_whole(const char *line, unsigned nr, bool stopped)
{
	const char *p = strchr(line, '|');

	while (p) {
		const char *start = p + 2, *end = strstr(start, " |");
		size_t len;
		bool found = false;

		if (!end)
			end = strstr(start, " ]");
		assert_non_null(end);
		len = (size_t)(end - start);
		for (unsigned i = 0; i < nr && !found; i++) {
			bool drains = stopped && sinks[i].r.st.drain_left_ms;

			found = piece_is(start, len, sinks[i].full, drains ? DRAIN_FULL : NULL) ||
				piece_is(start, len, sinks[i].brief, drains ? DRAIN_BRIEF : NULL);
		}
		found = found || (len > 2 && start[0] == '+' && strstr(start, " more") == end - 5);
		if (!found)
			fail_msg("'%.*s' is no whole piece of '%s'", (int)len, start, line);
		p = strchr(end + 1, '|');
	}
}

/*
 * At every width from the shortest form up, with 1 to 4 sinks, recording
 * or draining: the line fits, ends with " ]", and no piece is cut.
 */
static void test_fits(void **state)
{
	char line[512];

	(void)state;
	for (unsigned nr = 1; nr <= N(sinks); nr++)
		for (int stopped = 0; stopped < 2; stopped++)
			for (unsigned width = 30; width <= 200; width++) {
				struct record_report p = report(nr, stopped);
				size_t len;

				status_format(&w, &p, width, line, sizeof(line));
				len = strlen(line);
				if (len >= width)
					fail_msg("%u sinks, width %u: %zu characters: '%s'", nr, width, len, line);
				assert_string_equal(line + len - 2, " ]");
				pieces_whole(line, nr, stopped);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_fits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
