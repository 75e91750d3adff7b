/* --control: perf record's command channel, byte-compatible with perf 6.1. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfsink/kit.h>

#include "config/value_parse.h"
#include "engine/control.h"

void control_init(struct control *c)
{
	memset(c, 0, sizeof(*c));
	c->ctl_fd = c->ack_fd = -1;
}

/* What was opened must be a FIFO of root or the recording user: 0 or -errno. */
static int fifo_check(int fd, const char *what, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int e = errno;
		snprintf(err, errlen, "--control: cannot %s: %s", what, strerror(e));
		return -e;
	}
	if (!S_ISFIFO(st.st_mode)) {
		snprintf(err, errlen, "--control: refusing to %s: it is not a FIFO (make one with "
			 "mkfifo)", what);
		return -EINVAL;
	}
	if (!perfsink_kit_trusted_uid(st.st_uid)) {
		snprintf(err, errlen, "--control: refusing to %s: it belongs to uid %u, neither root "
			 "nor uid %u who records", what, (unsigned)st.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	return 0;
}

/*
 * perf 6.1 opens these paths as they are (O_RDWR | O_NONBLOCK): a link
 * another user planted there is followed, a regular file read as commands
 * or written with "ack".  Here the directories are walked as an output's
 * are (no link, owned by root or the recording user, sticky when others
 * may write), the name is opened without following a link (O_NONBLOCK:
 * the open never waits), and only a FIFO of root or the recording user
 * is kept.
 */
static int fifo_open(const char *path, int *fd, char *err, size_t errlen)
{
	char what[300], why[512];
	const char *name;
	int dfd, e;

	snprintf(what, sizeof(what), "open FIFO '%s'", path);
	dfd = perfsink_kit_parent_open(path, 0, &name, what, why, sizeof(why));
	if (dfd < 0) {
		snprintf(err, errlen, "--control: %s", why);
		return dfd;
	}
	*fd = openat(dfd, name, O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	e = errno;
	close(dfd);
	if (*fd < 0) {
		if (e == ELOOP)
			snprintf(err, errlen, "--control: refusing to %s: it is a symbolic link", what);
		else
			snprintf(err, errlen, "--control: cannot %s: %s", what, strerror(e));
		return -e;
	}
	if ((e = fifo_check(*fd, what, err, errlen)) < 0) {
		close(*fd);
		*fd = -1;
	}
	return e;
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
			if (!c->len)
				c->whole = 0; /* a new command */
			if (c->len < sizeof(c->line) - 1)
				c->line[c->len++] = ch;
			c->whole++;
			continue;
		}
		c->line[c->len] = '\0';
		if (!c->len)
			continue;
		c->len = 0;
		return cmd_of(c->line); /* line and whole stay until the next read */
	}
	return CTL_NONE;
}

void control_shown(const struct control *c, char *out, size_t n)
{
	size_t k = 0;

	k += (size_t)snprintf(out, n, "'");
	for (size_t i = 0; i < CONTROL_SHOWN && c->line[i] && k < n; i++) {
		unsigned char ch = (unsigned char)c->line[i];
		k += (size_t)snprintf(out + k, n - k, ch >= 0x20 && ch < 0x7f && ch != '\'' &&
				      ch != '\\' ? "%c" : "\\x%02x", ch);
	}
	if (k < n && c->whole > CONTROL_SHOWN)
		snprintf(out + k, n - k, "'... (%zu bytes)", c->whole);
	else if (k < n)
		snprintf(out + k, n - k, "'");
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
