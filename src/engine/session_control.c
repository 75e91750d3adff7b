/*
 * The session's side of --control and -D: when the sampling events are
 * enabled, and what each control command does to the recording (perf
 * 6.1's record: enable, disable, snapshot = a --switch-output or
 * --overwrite cut, stop, ping, evlist; each acked).
 */
#include <config.h>

#include <stdio.h>
#include <time.h>

#include "base/log.h"
#include "config/opts.h"
#include "engine/control.h"
#include "engine/engine_priv.h"
#include "engine/evlist_track.h"

int engine_control_open(struct engine *e, char *err, size_t errlen)
{
	control_init(&e->ctl);
	return e->o->pf.control ? control_open(&e->ctl, e->o->pf.control, err, errlen) : 0;
}

/* Instead of enabling everything at the start: -D keeps the sampling events off. */
void engine_control_start(struct engine *e)
{
	bool now = !e->o->argv || e->evl.system_wide; /* else: enable_on_exec */

	if (!e->o->pf.delay_ms) {
		if (now)
			evlist_enable(&e->evl);
		return;
	}
	if (now)
		evlist_enable_kind(&e->evl, true);
	if (e->o->pf.delay_ms > 0)
		e->ctl.enable_at_ns = engine_now_ns(CLOCK_MONOTONIC) + e->o->pf.delay_ms * 1000000;
	log_summary(LOG_INFO, "Events disabled");
}

int engine_control_timeout(const struct engine *e, int timeout_ms)
{
	int64_t left;

	if (!e->ctl.enable_at_ns)
		return timeout_ms;
	left = (e->ctl.enable_at_ns - engine_now_ns(CLOCK_MONOTONIC)) / 1000000 + 1;
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
static bool command_run(struct engine *e, enum control_cmd cmd)
{
	bool stop = false;

	switch (cmd) {
	case CTL_ENABLE:
		e->ctl.enable_at_ns = 0;
		evlist_enable(&e->evl);
		log_summary(LOG_INFO, "Events enabled");
		break;
	case CTL_DISABLE:
		/* The side-band (maps, comms) keeps flowing so later samples resolve. */
		e->ctl.enable_at_ns = 0;
		evlist_disable_kind(&e->evl, false);
		log_summary(LOG_INFO, "Events disabled");
		break;
	case CTL_SNAPSHOT:
		if (e->o->switch_output == SWITCH_SIGNAL || e->o->overwrite)
			e->rotate_requested = true;
		break;
	case CTL_STOP:
		stop = true;
		break;
	case CTL_EVLIST:
		evlist_print(&e->evl);
		break;
	case CTL_PING:
		break;
	default:
		pr_warn("--control: unknown command '%s' (perf's: enable, disable, snapshot, "
			"stop, ping, evlist)", e->ctl.line);
		return false;
	}
	control_ack(&e->ctl);
	return stop;
}

bool engine_control_step(struct engine *e)
{
	enum control_cmd cmd;
	bool stop = false;

	if (e->ctl.enable_at_ns && engine_now_ns(CLOCK_MONOTONIC) >= e->ctl.enable_at_ns) {
		e->ctl.enable_at_ns = 0;
		evlist_enable_kind(&e->evl, false);
		log_summary(LOG_INFO, "Events enabled");
	}
	while ((cmd = control_next(&e->ctl)) != CTL_NONE)
		stop |= command_run(e, cmd);
	return stop;
}
