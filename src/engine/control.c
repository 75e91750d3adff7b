/* --control: perf record's command channel, byte-compatible with perf 6.1. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/value_parse.h"
#include "engine/control.h"

void control_init(struct control *c)
{
	memset(c, 0, sizeof(*c));
	c->ctl_fd = c->ack_fd = -1;
}

static int fifo_open(const char *path, int *fd, char *err, size_t errlen)
{
	*fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0) {
		snprintf(err, errlen, "--control: cannot open %s: %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

static int fd_parse(const char *s, int *fd, char *err, size_t errlen)
{
	int64_t n;

	if (parse_int(s, 0, 1 << 20, &n) || fcntl((int)n, F_GETFD) < 0) {
		snprintf(err, errlen, "--control: '%s' is no open descriptor", s);
		return -EBADF;
	}
	*fd = (int)n;
	return 0;
}

int control_open(struct control *c, const char *spec, char *err, size_t errlen)
{
	bool fifo = !strncmp(spec, "fifo:", 5);
	char *copy = strdup(spec + (fifo ? 5 : 3)), *ack;
	int r;

	if (!copy)
		return -ENOMEM;
	ack = strchr(copy, ',');
	if (ack)
		*ack++ = '\0';
	c->own_fds = fifo;
	r = fifo ? fifo_open(copy, &c->ctl_fd, err, errlen) : fd_parse(copy, &c->ctl_fd, err, errlen);
	if (!r && ack)
		r = fifo ? fifo_open(ack, &c->ack_fd, err, errlen) : fd_parse(ack, &c->ack_fd, err, errlen);
	if (!r && !fifo)
		fcntl(c->ctl_fd, F_SETFL, fcntl(c->ctl_fd, F_GETFL) | O_NONBLOCK);
	free(copy);
	return r;
}

static enum control_cmd cmd_of(const char *w)
{
	static const struct { const char *word; enum control_cmd cmd; } cmds[] = {
		{ "enable", CTL_ENABLE }, { "disable", CTL_DISABLE }, { "snapshot", CTL_SNAPSHOT },
		{ "stop", CTL_STOP }, { "ping", CTL_PING }, { "evlist", CTL_EVLIST },
	};
	size_t n = strcspn(w, " ");

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strlen(cmds[i].word) == n && !strncmp(w, cmds[i].word, n))
			return cmds[i].cmd;
	return CTL_UNKNOWN;
}

enum control_cmd control_next(struct control *c)
{
	char ch;

	/* Byte by byte, as perf: a command ends at '\n' or '\0'. */
	while (c->ctl_fd >= 0 && read(c->ctl_fd, &ch, 1) == 1) {
		if (ch != '\n' && ch != '\0') {
			if (c->len < sizeof(c->line) - 1)
				c->line[c->len++] = ch;
			continue;
		}
		c->line[c->len] = '\0';
		if (!c->len)
			continue;
		c->len = 0;
		return cmd_of(c->line); /* line stays readable until the next read */
	}
	return CTL_NONE;
}

void control_ack(const struct control *c)
{
	if (c->ack_fd >= 0 && write(c->ack_fd, "ack\n", 4) != 4) {
		/* nobody reads the acks: perf ignores that too */
	}
}

void control_close(struct control *c)
{
	if (c->own_fds) {
		if (c->ctl_fd >= 0)
			close(c->ctl_fd);
		if (c->ack_fd >= 0)
			close(c->ack_fd);
	}
	control_init(c);
}
