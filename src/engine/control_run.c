/*
 * What --control's commands and -D do to a recording: when the sampling
 * events are enabled, and each command's effect (perf 6.1's record: enable,
 * disable, snapshot = a --switch-output or --overwrite cut, stop, ping,
 * evlist; each acked).
 */
#include <config.h>

#include <stdio.h>
#include <time.h>

#include "base/log.h"
#include "config/opts.h"
#include "engine/control.h"
#include "engine/evlist.h"
#include "engine/now.h"
#include "engine/evlist_track.h"

void control_start(struct control *c, struct ps_evlist *evl, const struct record_opts *o)
{
	bool now = !o->argv || evl->system_wide; /* else: enable_on_exec */

	if (!o->pf.delay_ms) {
		if (now)
			evlist_enable(evl);
		return;
	}
	if (now)
		evlist_enable_kind(evl, true);
	if (o->pf.delay_ms > 0)
		c->enable_at_ns = engine_now_ns(CLOCK_MONOTONIC) + o->pf.delay_ms * 1000000;
	log_summary(LOG_INFO, "Events disabled");
}

int control_timeout(const struct control *c, int timeout_ms)
{
	int64_t left;

	if (!c->enable_at_ns || timeout_ms < 0)
		return timeout_ms;
	left = (c->enable_at_ns - engine_now_ns(CLOCK_MONOTONIC)) / 1000000 + 1;
	if (left < 0)
		left = 0;
	return left < timeout_ms ? (int)left : timeout_ms;
}

static void evlist_print(const struct ps_evlist *evl)
{
	for (unsigned i = 0; i < evl->nr; i++)
		log_summary(LOG_ERR, "%s", evl->ev[i].name);
}

/* One command; true for stop. */
static bool command_run(struct control *c, struct ps_evlist *evl, const struct record_opts *o,
			enum control_cmd cmd, bool *rotate)
{
	bool stop = false;

	switch (cmd) {
	case CTL_ENABLE:
		c->enable_at_ns = 0;
		evlist_enable(evl);
		log_summary(LOG_INFO, "Events enabled");
		break;
	case CTL_DISABLE:
		/* The side-band (maps, comms) keeps flowing so later samples resolve. */
		c->enable_at_ns = 0;
		evlist_disable_kind(evl, false);
		log_summary(LOG_INFO, "Events disabled");
		break;
	case CTL_SNAPSHOT:
		if (o->switch_output == SWITCH_SIGNAL || o->overwrite)
			*rotate = true;
		break;
	case CTL_STOP:
		stop = true;
		break;
	case CTL_EVLIST:
		evlist_print(evl);
		break;
	case CTL_PING:
		break;
	default: {
		char shown[4 * CONTROL_SHOWN + 32];
		control_shown(c, shown, sizeof(shown));
		pr_warn("--control: unknown command %s; perf's are enable, disable, snapshot, "
			"stop, ping, evlist", shown);
		return false;
	}
	}
	control_ack(c);
	return stop;
}

bool control_step(struct control *c, struct ps_evlist *evl, const struct record_opts *o,
		  bool *rotate)
{
	enum control_cmd cmd;
	bool stop = false;

	if (c->enable_at_ns && engine_now_ns(CLOCK_MONOTONIC) >= c->enable_at_ns) {
		c->enable_at_ns = 0;
		evlist_enable_kind(evl, false);
		log_summary(LOG_INFO, "Events enabled");
	}
	while ((cmd = control_next(c)) != CTL_NONE)
		stop |= command_run(c, evl, o, cmd, rotate);
	return stop;
}
