/*
 * The symbol shipper: the http sink's second thread, which puts the files
 * behind a stream's build-ids on the collector in the debuginfod layout
 *
 *     {url}/buildid/{build-id}/executable   the mapped file; the kernel's
 *                                           is a copy of /proc/kallsyms,
 *                                           [vdso] the vdso image
 *     {url}/buildid/{build-id}/debuginfo    its separate debug file
 *     {url}/{host}/{session}/jit/perf-PID.map   JIT maps of recorded processes
 *     {url}/{host}/{session}/jit/_2f...dump     their jitdump files (jitdumps.h)
 *
 * (s3: the same keys under [{prefix}/]).  A file is sent once per
 * collector: a HEAD finds what is already there.  An executable already
 * there that is smaller than ours while ours has a symbol table (a
 * stripped upload of the same build-id) is replaced; never the other way
 * round.  Files over symbols_max are not sent, nor any once symbols_budget
 * bytes were sent, nor (symbols = sampled) a file no sample fell in.  All
 * counted, and logged in one line at close.
 *
 * It has its own connections, so the sample stream never waits for it.
 * Work is queued as the stream goes (the build-ids seen so far, every
 * PERFSINK_BUILD_IDS_EVERY_MS from a 1.5 host) and at its end (all of
 * them, with the JIT maps and jitdump files of its processes); what a run has settled is
 * not looked at again.
 * A stream whose build-id part waited in the spool is queued again when it
 * is sent from there (by `perfsink upload` or a later run), with no JIT
 * maps nor jitdump files: its pids are gone, and its MMAP records are not
 * walked again.
 *
 * THREADS.  symship_* are called from the engine thread (the sink ops);
 * the work runs on the shipper's thread, the kit's async worker.
 */
#ifndef HTTP_SYMSHIP_H
#define HTTP_SYMSHIP_H
#include <perfsink/sink.h>
#include <stddef.h>
#include <stdint.h>

struct symship;
struct http_conf;
struct dump_set;
struct held_roots;

/* Start the thread (idle).  conf outlives the shipper.  0 or -errno. */
int symship_new(const struct perfsink_instance *inst, const struct http_conf *conf,
		struct symship **out);
/*
 * Queue one ended stream's work: recs are its build-id records (copied),
 * key_base its "{host}/{session}" (copied), pids the processes it
 * recorded (copied; entries <= 0 are skipped), whose /tmp/perf-PID.map is
 * shipped when it exists (a process in another mount namespace: its
 * /tmp/perf-NSPID.map, read through /proc/PID/root, or through its held
 * root once it is gone, shipped as perf-PID.map, the host pid, which the
 * samples carry), dumps (copied;
 * NULL for none) the jitdump files its MMAP records named, read now;
 * roots (moved into the job, *roots left empty; NULL for none) the roots
 * of its container processes held since they were seen, through which
 * the files of those gone by now are read (held_roots.h), then closed.
 */
int symship_queue(struct symship *s, const uint8_t *recs, size_t len, const char *key_base,
		  const int32_t *pids, size_t npids, const struct dump_set *dumps,
		  struct held_roots *roots);
/*
 * While recording: the build-ids seen so far of the stream key_base (no JIT
 * maps).  It replaces an interim job of that stream not started yet, and
 * its failures are not counted (the stream's end tries again).
 */
int symship_queue_interim(struct symship *s, const uint8_t *recs, size_t len, const char *key_base);
/*
 * Wait until the queued work is done, or CLOCK_MONOTONIC ms deadline (it
 * goes on after that): so the counters of drain()'s stats include it.
 */
void symship_wait(struct symship *s, int64_t deadline_ms);
/* The symbols_* counters of out, so far.  Any thread. */
void symship_stats(struct symship *s, struct perfsink_sink_stats *out);
/*
 * Finish the queued work, but stop at CLOCK_MONOTONIC ms deadline (what
 * is left is counted, not sent); log the counts; stop the thread; free s.
 * Returns how many files were not shipped because a request failed or
 * was not tried (the collector failing, or the deadline).
 */
unsigned symship_close(struct symship *s, int64_t deadline_ms);

#endif
