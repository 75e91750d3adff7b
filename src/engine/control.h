/*
 * perf record's --control channel and -D delay: commands read from a
 * descriptor or FIFO (perf 6.1's protocol: one word a line, "enable",
 * "disable", "snapshot", "stop", "ping", "evlist"; each answered "ack\n"
 * on the ack channel when there is one), and the time at which -D enables
 * the sampling events.  Engine thread.
 */
#ifndef PS_CONTROL_H
#define PS_CONTROL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum control_cmd { CTL_NONE = 0, CTL_ENABLE, CTL_DISABLE, CTL_SNAPSHOT, CTL_STOP, CTL_PING,
		   CTL_EVLIST, CTL_UNKNOWN };

struct control {
	int ctl_fd, ack_fd;  /* -1: none */
	bool own_fds;        /* fifo: opened here, closed by control_close */
	char line[64];       /* a command being read (its first 63 bytes) */
	size_t len, whole;   /* bytes kept in line; the command's length */
	int64_t enable_at_ns; /* -D: CLOCK_MONOTONIC time to enable at; 0: none pending */
};

/* Before any open: no channel, nothing pending. */
void control_init(struct control *c);
/*
 * spec "fifo:CTL[,ACK]" (opened read-write, non-blocking, as perf does, so
 * no writer is needed yet) or "fd:CTL[,ACK]" (inherited descriptors).
 * 0, or -errno with the reason in err.
 */
int control_open(struct control *c, const char *spec, char *err, size_t errlen);
/* The next whole command on the channel, CTL_NONE when none is complete. */
enum control_cmd control_next(struct control *c);
/*
 * The command just read (the CTL_UNKNOWN one), for a warning: at most
 * CONTROL_SHOWN bytes of it, quoted, other than printable ASCII as \xNN,
 * and its length when it was longer.  The channel may be fed by anyone who
 * can write the FIFO: its text is never echoed whole.
 */
#define CONTROL_SHOWN 8 /* the longest of perf's commands, "snapshot" */
void control_shown(const struct control *c, char *out, size_t n);
/* "ack\n" on the ack channel, if any. */
void control_ack(const struct control *c);
void control_close(struct control *c);

struct ps_evlist;
struct record_opts;

/* control_run.c: the recording's side. */
/* At the start, instead of enabling everything: with -D only the tracking event. */
void control_start(struct control *c, struct ps_evlist *evl, const struct record_opts *o);
/* A poll timeout shortened to -D's deadline (a negative one is left as it is). */
int control_timeout(const struct control *c, int timeout_ms);
/*
 * After each poll: -D's deadline, then every command read (rotate set by a
 * snapshot that means a cut).  True when a command asked to stop.
 */
bool control_step(struct control *c, struct ps_evlist *evl, const struct record_opts *o,
		  bool *rotate);

#endif
