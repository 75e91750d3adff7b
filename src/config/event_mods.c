/*
 * Event modifiers (:u :k :h :G :H :I :p :P :S :D :e :W :b) with perf 6.1's
 * meaning (parse-events.c, get_event_modifier).
 */
#include <config.h>

#include <string.h>

#include "config/event_spec.h"

struct ev_mods ev_mods_default(void)
{
	/* perf's event_attr_init: not a guest profiler, so guests are excluded. */
	return (struct ev_mods){ .exclude_guest = true };
}

/* u, k, h: the first of them excludes all three, each one lets its own back in. */
static void privilege(struct ev_mods *m, bool *exclude, char c)
{
	if (!*exclude) {
		*exclude = true;
		m->exclude_user = m->exclude_kernel = m->exclude_hv = true;
	}
	if (c == 'u') {
		if (!m->exclude_GH)
			m->exclude_guest = true;
		m->exclude_user = false;
	} else if (c == 'k') {
		m->exclude_kernel = false;
	} else {
		m->exclude_hv = false;
	}
}

/* G, H: the first excludes guest and host, each one lets its own back in. */
static void virt(struct ev_mods *m, char c)
{
	if (!m->exclude_GH) {
		m->exclude_GH = true;
		m->exclude_guest = m->exclude_host = true;
	}
	if (c == 'G')
		m->exclude_guest = false;
	else
		m->exclude_host = false;
}

void ev_mods_apply(struct ev_mods *m, const char *letters, bool group, bool leader)
{
	struct ev_mods was = *m;

	/* A group's modifiers start from the member's own exclusions and
	 * precision; S, P and W are the group's alone (perf sets them). */
	if (!group)
		memset(m, 0, sizeof(*m));
	m->sample_read = m->precise_max = m->weak = false;
	bool exclude = m->exclude_user || m->exclude_kernel || m->exclude_hv;
	for (const char *c = letters; *c; c++) {
		switch (*c) {
		case 'u': case 'k': case 'h': privilege(m, &exclude, *c); break;
		case 'G': case 'H': virt(m, *c); break;
		case 'I': m->exclude_idle = true; break;
		case 'p':
			m->precise++;
			/* precise sampling goes with exclude_guest */
			if (!m->exclude_GH)
				m->exclude_guest = true;
			break;
		case 'P': m->precise_max = true; break;
		case 'S': m->sample_read = true; break;
		case 'D': m->pinned = true; break;
		case 'e': m->exclusive = true; break;
		case 'W': m->weak = true; break;
		default: break; /* 'b': a BPF counter for perf stat; nothing for record */
		}
	}
	/* D and e of a group apply to its leader only. */
	if (group && !leader) {
		m->pinned = was.pinned;
		m->exclusive = was.exclusive;
	}
}
