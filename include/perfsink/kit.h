/* SPDX-License-Identifier: MIT */
/*
 * perfsink sink kit: optional helpers for sink plugins, in the installed
 * library libperfsink-sink (link with -lperfsink-sink).
 *
 * sink.h is the ABI between the engine and a sink; this header is not part
 * of it.  A sink that uses the kit links the library; the engine never does.
 * The kit has its own version (PERFSINK_KIT_VERSION_*): the minor grows when
 * functions are added, the major when one changes, and the library's soname
 * follows the major.
 *
 * Every function documents, where it is declared, which threads may call
 * it, who owns what it takes and returns, and what it returns.  Unless said
 * otherwise: errors are negative errno values, never exit(); nothing is
 * logged (messages go to a caller's `why` buffer, for the sink to log with
 * host->log); an object is used by one thread at a time.
 *
 * Parts:
 *   - safe paths (1.3): directories and inputs opened without following
 *     a link anywhere, in directories no untrusted user can change;
 *   - output files: safe creation of perf.data outputs (no symlinks, no
 *     other user's files, NAME.old kept), segment names, pwrite_all;
 *   - the POSIX AIO writer: ordered asynchronous appends to one file
 *     (1.5: also as the file sink's writer ops); its ordering core, the
 *     write queue, for a sink's own writer (1.8);
 *   - O_DIRECT record streams: block splitting, buffer ends (data.size);
 *   - the perf.data file sink, all but its writer (aio_file, uring_file);
 *   - a growable byte buffer;
 *   - the PERF_RECORD_COMPRESSED framer (zstd);
 *   - perf records: walking (1.6), counting, validating, LOST records;
 *   - filling a sink's config struct from its key table by offset
 *     (1.5: the keys declared once, PERFSINK_KIT_KEYS);
 *   - symbols (1.1): the files behind a recording's build-ids, and the
 *     symbol archive (a tar.zst laid out as perf's ~/.debug); 1.5: their
 *     separate debug files found through .gnu_debuglink;
 *   - collector secrets (1.5): a token or password file, S3 keys;
 *   - the async worker (1.7): ordered jobs on one thread, a barrier, a
 *     sticky first error, buffer references held until a job is done.
 */
#ifndef PERFSINK_KIT_H
#define PERFSINK_KIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <perfsink/sink.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERFSINK_KIT_VERSION_MAJOR 1
#define PERFSINK_KIT_VERSION_MINOR 9 /* 1.1: elf/symbols/archive, dio, ends, file sink, output reports;
                                      1.2: perfsink_kit_fsink_open_keys, perfsink_kit_buildid_cache_dir,
                                      perfsink_kit_sym_read falls back to the build-id cache;
                                      1.3: safe paths (perfsink_kit_dir_*, perfsink_kit_input_open);
                                      1.4: perfsink_kit_build_id.sampled;
                                      1.5: perfsink_kit_aiow_writer_ops, PERFSINK_KIT_KEYS,
                                      perfsink_kit_debug_find, perfsink_kit_debug_read_of
                                      (.gnu_debuglink), perfsink_kit_buildid_cache_dir_note,
                                      collector secrets (perfsink_kit_secret_*,
                                      perfsink_kit_s3_keys_*);
                                      1.6: the record walk, perfsink_kit_rec_next (inline);
                                      1.7: the async worker, perfsink_kit_worker_*;
                                      1.8: the write queue, perfsink_kit_wq_*;
                                      perfsink_kit_deadline;
                                      1.9: perfsink_kit_wq_detach */

/* ------------------------------------------------------------- safe paths */

/*
 * Kit 1.3.  A recorder runs as root among users it does not trust: a path
 * it is given may hold a link planted by one of them, anywhere.  These
 * open a path one component at a time, each through its parent's
 * descriptor with O_NOFOLLOW, so nothing is resolved twice and a link is
 * refused wherever it stands (before or during the walk).  Every function
 * fills why (one line, may be NULL) on failure, naming what the path was
 * for: what is a verb phrase such as "write '/tmp/x'", and messages read
 * "refusing to write '/tmp/x': '/tmp/d' is a symbolic link" or "cannot
 * write '/tmp/x': '/tmp/no': No such file or directory".  Any thread.
 *
 * A directory is trusted when it is owned by root or the recording user
 * (perfsink_kit_trusted_uid) and, if others or a group other than root's
 * may write in it, it is sticky (/tmp: only an entry's owner may rename or
 * replace it).
 */
/* root, the effective or real uid, or (running as root) sudo's SUDO_UID. */
int perfsink_kit_trusted_uid(uid_t uid);
struct stat;
/* One directory's stat against the rule above: 0, or -EPERM/-ENOTDIR with why. */
int perfsink_kit_dir_trust(const struct stat *st, const char *what, const char *shown,
			   char *why, size_t n);
#define PERFSINK_KIT_DIR_MKDIR 1u /* create missing components, mode 0700 */
/*
 * Kit 1.3 too, for root's own trees that another user must not reach into
 * (a build-id cache): every directory owned by root or the effective uid;
 * sudo's invoking user is not trusted there.
 */
#define PERFSINK_KIT_DIR_OWN 2u
/*
 * Instead of the owner rule: every directory must be searchable by others,
 * whoever owns it, so that what is opened below could be reached by
 * anyone (to read a file only when any user could read it).
 */
#define PERFSINK_KIT_DIR_PUBLIC 4u
/*
 * Open directory path (absolute, or relative to the working directory,
 * which is then checked from / too), checking every component from / down.
 * Returns an O_PATH|O_DIRECTORY descriptor (for the *at calls; the caller
 * closes it) or a negative errno: -ELOOP for a link, -EPERM for an
 * untrusted directory, else the system's error.
 */
int perfsink_kit_dir_open(const char *path, unsigned flags, const char *what, char *why,
			  size_t n);
/*
 * The directory path's last component is in (".": the working directory),
 * opened as perfsink_kit_dir_open(dir, flags, ...) does; *name points at
 * that component in path.  The descriptor or a negative errno.
 */
int perfsink_kit_parent_open(const char *path, unsigned flags, const char **name, const char *what,
			     char *why, size_t n);
/*
 * The same below dirfd, a directory already checked: rel is one or more
 * components ("a/b"; ".." is walked and checked like any other); shown
 * names dirfd in messages.  A new descriptor; dirfd stays open.
 */
int perfsink_kit_dir_walk(int dirfd, const char *rel, unsigned flags, const char *what,
			  const char *shown, char *why, size_t n);
/*
 * Open a file to read: never through a link at its last component, never
 * a FIFO or a device (opened O_NONBLOCK so that a FIFO cannot hang the
 * open, refused unless it is a regular file; reads then block as usual).
 * path is relative to dirfd (AT_FDCWD for the working directory).
 * Returns an O_RDONLY descriptor or a negative errno.
 */
int perfsink_kit_input_open(int dirfd, const char *path, const char *what, char *why, size_t n);

/* ----------------------------------------------------------- output files */

/*
 * perfsink_kit_output: how a file sink creates an output (the main file, a
 * rotated segment, a flight-recorder dump) safely when it runs as root in a
 * directory other users may write, such as /tmp.
 *
 *  - Refused, with a one-line reason naming the path: a link anywhere in
 *    the path (-ELOOP), a directory on the way that is not trusted (see
 *    safe paths above: -EPERM); an existing entry at the path that is a
 *    symbolic link, not a regular file, or owned by another user than the
 *    effective uid (-EPERM).  A sticky directory such as /tmp is fine
 *    when the file does not exist or is ours.
 *  - Never written through a link: the data goes to a new temporary file
 *    ".NAME.XXXXXXXX" created with O_CREAT|O_EXCL|O_NOFOLLOW relative to a
 *    descriptor of the parent directory, renamed into place (without
 *    replacing anything) once the sink has written its header.
 *  - An existing non-empty output is renamed NAME.old first, as perf record
 *    does (an empty one is replaced); perfsink_kit_output_discard() removes
 *    our file and puts NAME.old back, so a run that fails before recording
 *    leaves the directory as it found it, byte for byte.
 *
 * Every function fills why (one line, may be NULL) on failure and returns
 * a negative errno.  THREADS: one thread at a time per output.  OWNERSHIP:
 * the struct is the caller's; the strings and descriptors in it are the
 * kit's, released by perfsink_kit_output_close/discard.
 */
struct perfsink_kit_output {
	char *path;     /* as given: for messages */
	char *name;     /* last component */
	char *tmp;      /* temporary name until placed, then NULL */
	int dirfd;      /* parent directory (O_PATH), -1 when closed */
	int fd;         /* the new file, O_WRONLY; -1 when closed */
	int placed;     /* renamed to name */
	int kept_old;   /* an existing file was renamed to name.old */
	dev_t dev;
	ino_t ino;      /* our file */
	dev_t old_dev;
	ino_t old_ino;  /* the file we renamed to name.old */
};

/* A closed output (perfsink_kit_output_close and _discard are no-ops on it). */
void perfsink_kit_output_init(struct perfsink_kit_output *o);
/* Could path become an output now?  For open(): checks only, creates nothing. */
int perfsink_kit_output_check(const char *path, char *why, size_t n);
/*
 * Check again and create the temporary file beside path; o->fd is ready
 * for writing.  o must be closed (perfsink_kit_output_init); on failure it stays so.
 */
int perfsink_kit_output_create(struct perfsink_kit_output *o, const char *path, char *why,
			       size_t n);
/* Rename an existing output to .old (or drop it when empty), ours to path. */
int perfsink_kit_output_place(struct perfsink_kit_output *o, char *why, size_t n);
/*
 * Kit 1.3, for outputs whose name is new by construction (a rotated
 * segment, a dump): create checks the directory but not the name, and
 * place never replaces or moves anything: when the name is taken (a link
 * planted at a predictable name, another user's file), ours becomes
 * PATH.1, PATH.2, ... (o->path and o->name say which).  place_new returns
 * how many names were taken (0: the name itself) or a negative errno.
 */
int perfsink_kit_output_create_new(struct perfsink_kit_output *o, const char *path, char *why,
				   size_t n);
int perfsink_kit_output_place_new(struct perfsink_kit_output *o, char *why, size_t n);
/*
 * Kit 1.3, for a file replaced whole (a stats file, a repaired
 * recording): rename ours over path, which may hold only a regular file
 * of the effective uid (checked again), never keeping .old.  Readers see
 * the old file or the new one, never half of one.  0 or -errno.
 */
int perfsink_kit_output_replace(struct perfsink_kit_output *o, char *why, size_t n);
/*
 * Kit 1.3: remove the temporary files a killed run left beside path
 * (".NAME...XXXXXXXX" as the kit names them, NAME being path's last
 * component, and recover's older ".NAME.recover.XXXXXX"): only regular
 * files of the effective uid with one link, beginning with magic (when
 * not NULL) or empty, that no live run holds (a run keeps its temporary
 * file locked with flock until it is placed or discarded).  note gets
 * their names and sizes when any was removed, for the caller to log.
 * Returns how many were removed, or a negative errno.
 */
int perfsink_kit_output_sweep(const char *path, const char *magic, char *note, size_t n);
/*
 * Another descriptor on the same file (e.g. O_WRONLY|O_DIRECT), opened
 * relative to the directory without following links and checked to be
 * the same inode.  Returns the fd or a negative errno.
 */
int perfsink_kit_output_reopen(const struct perfsink_kit_output *o, int flags);
/*
 * The run did not record into this output: close it, remove it (only if
 * the name still points at our file) and put name.old back.  0 or -errno.
 */
int perfsink_kit_output_discard(struct perfsink_kit_output *o);
/* Close the descriptors, keeping a placed file (an unplaced one is
 * discarded).  0 or the first close error. */
int perfsink_kit_output_close(struct perfsink_kit_output *o);

/* Write all len bytes at off, resuming short writes; 0 or a negative errno.
 * Synchronous (headers and features, not the data path); any thread. */
int perfsink_kit_pwrite_all(int fd, const void *p, size_t len, uint64_t off);

/*
 * Output names of rotating file sinks and pruning of old segments.  A
 * segment of base path P is "P.<YYYYmmddHHMMSS>.<NNNNNN>": the local time
 * the segment began and its number, so lexical order is time order.
 * Any thread; pure apart from the directory listing.
 */
/* Path of the output for stream s: base itself when not rotating.  malloc'd
 * (the caller frees it); NULL when out of memory. */
char *perfsink_kit_segment_path(const char *base, const struct perfsink_stream *s);
/* True when name (no directory) is a segment name of base name bname. */
int perfsink_kit_segment_name_matches(const char *bname, const char *name);
/*
 * Keep the newest keep segments of base, delete the older ones (only
 * regular files of the effective uid count as segments).  Returns
 * how many were deleted or a negative errno (the first failure).
 */
int perfsink_kit_segments_prune(const char *base, unsigned keep);
/*
 * Kit 1.1: the same, and each deleted segment reported to the host as
 * PERFSINK_OUTPUT_REMOVED for inst (sink ABI 1.4; nothing with an older
 * host), so the summary does not name files that are gone.  Engine thread
 * (host->output is), i.e. from inside an op.
 */
int perfsink_kit_segments_prune_report(const struct perfsink_instance *inst, const char *base,
				       unsigned keep);
/*
 * Kit 1.3: the segments this run created, for stream->max_files.  Only
 * they are pruned (perf's rule): an earlier run's segments with the same
 * base name stay, and a segment's name taken since by another file keeps
 * that file.  perfsink_kit_segments_prune above lists the directory and
 * so removes earlier runs' segments too.  One thread at a time.
 */
struct perfsink_kit_seglist;
int perfsink_kit_seglist_create(struct perfsink_kit_seglist **out);
void perfsink_kit_seglist_destroy(struct perfsink_kit_seglist *l);
/* o (placed) is this run's newest segment.  0 or -ENOMEM. */
int perfsink_kit_seglist_add(struct perfsink_kit_seglist *l, const struct perfsink_kit_output *o);
/*
 * Delete this run's oldest segments until keep remain, each reported to
 * the host as PERFSINK_OUTPUT_REMOVED for inst (may be NULL); engine
 * thread when inst is given.  How many were deleted, or the first error.
 */
int perfsink_kit_seglist_prune(struct perfsink_kit_seglist *l, const struct perfsink_instance *inst,
			       unsigned keep);

/*
 * Kit 1.1: report path, a file output just closed, to the host as
 * PERFSINK_OUTPUT_DONE with its size on disk (sink ABI 1.4).  Engine thread.
 */
void perfsink_kit_output_report_done(const struct perfsink_instance *inst, const char *path);

/* -------------------------------------------------------------- AIO writer */

/*
 * perfsink_kit_aiow: ordered asynchronous appends to one file with POSIX
 * AIO.  Each write gets one control block, an explicit file offset (the
 * writer keeps the append offset itself, as perf --aio does), a decreasing
 * aio_reqprio, a retry on EAGAIN and a resubmission of the rest after a
 * short write.  A completion thread reaps control blocks with aio_suspend
 * and calls the write's done() callback, so callers never have to poll.
 *
 * THREADS.  perfsink_kit_aiow_write/_drain/_destroy are called from one
 * thread (the sink's caller).  done() and on_commit() run on the completion
 * thread; they must not call back into the writer.
 *
 * OWNERSHIP.  The bytes of a write must stay valid until its done() ran.
 * The writer never closes fd.
 *
 * ERRORS.  The first failed write (ENOSPC, EIO, ...) makes the writer
 * failed: its error is sticky and returned by every later write and
 * drain; writes still in flight complete with done(arg, err).
 */
struct perfsink_kit_aiow;

/*
 * ctx: aiow_config.done_ctx; arg: the write's own argument; err: 0 when all
 * len bytes are on file, else a negative errno.
 */
typedef void (*perfsink_kit_aiow_done_fn)(void *ctx, void *arg, int err);
/* The contiguous completed prefix of the file grew to end (bytes). */
typedef void (*perfsink_kit_aiow_commit_fn)(void *arg, uint64_t end);

struct perfsink_kit_aiow_config {
	int fd;
	unsigned nr_cb;        /* control blocks: writes in flight at most (>= 1) */
	uint64_t offset;       /* where the first write goes */
	perfsink_kit_aiow_commit_fn on_commit; /* optional */
	void *commit_arg;
	void *done_ctx;        /* first argument of every done() */
};

struct perfsink_kit_aiow_stats {
	uint64_t writes;   /* aio_write calls, resubmissions included */
	uint64_t bytes;    /* bytes completed */
	uint64_t retries;  /* EAGAIN retries and short-write resubmissions */
	uint64_t waits;    /* times perfsink_kit_aiow_write waited for a free control block */
};

/* Returns 0 or a negative errno (thread creation, memory). */
int perfsink_kit_aiow_create(const struct perfsink_kit_aiow_config *cfg,
			     struct perfsink_kit_aiow **out);
/*
 * Queue len bytes at the current append offset and advance it.  Waits for
 * a free control block when all are in flight.  On 0, done() will be
 * called exactly once; on error it is not called and nothing was queued.
 */
int perfsink_kit_aiow_write(struct perfsink_kit_aiow *w, const void *data, size_t len,
			    perfsink_kit_aiow_done_fn done, void *arg);
/* Wait until nothing is in flight; returns the sticky error or 0. */
int perfsink_kit_aiow_drain(struct perfsink_kit_aiow *w);
/* Next append offset. */
uint64_t perfsink_kit_aiow_offset(const struct perfsink_kit_aiow *w);
/* End of the contiguous prefix written without error. */
uint64_t perfsink_kit_aiow_committed(const struct perfsink_kit_aiow *w);
int perfsink_kit_aiow_error(const struct perfsink_kit_aiow *w);
void perfsink_kit_aiow_stats(const struct perfsink_kit_aiow *w,
			     struct perfsink_kit_aiow_stats *out);
/* Drains, stops the completion thread, frees.  Does not close fd. */
void perfsink_kit_aiow_destroy(struct perfsink_kit_aiow *w);

/* ------------------------------------------------------------ write queue */

/*
 * Kit 1.7.  perfsink_kit_wq: the ordering core of an asynchronous append
 * writer without its I/O, for a sink that brings its own (uring_file's
 * io_uring writer; the POSIX AIO writer above is built on the same core).
 * The queue keeps n slots, one per write in flight, in submission order;
 * the append offset; waiting for a free slot (stats.waits); releasing
 * finished writes to their done() strictly in submission order; the
 * committed prefix (on_commit); the first error, sticky.  The backend
 * brings submit (start a slot's remaining bytes) and a completion path
 * that, under the queue's lock, marks slots finished and releases them.
 *
 * THREADS.  _write/_drain/_destroy from one thread (the writer's caller).
 * submit runs on that thread inside _write, with the queue's lock held.
 * The completion path (any one other thread) takes the lock
 * (perfsink_kit_wq_lock), advances slot->done, calls _finish and _release,
 * and unlocks.  done() and on_commit() run from _release with the lock
 * dropped, on the completion path's thread, and must not call back into
 * the queue.  The getters take the lock: any thread not holding it.
 * OWNERSHIP.  A write's bytes stay valid until its done() ran.  A slot
 * (perfsink_kit_wq_slot) belongs to the queue; the backend may read it and
 * advance done from submit until _finish, under the lock.
 * ERRORS.  The first failed write (submit or _finish with err < 0) makes
 * the queue failed: every later _write and _drain returns that error;
 * writes in flight still complete, with done(arg, err).
 */
struct perfsink_kit_wq;

/* One write in flight, as its backend sees it. */
struct perfsink_kit_wq_slot {
	const uint8_t *data;
	size_t len;
	size_t done;       /* bytes on file: the backend advances it */
	uint64_t off;      /* file offset of data[0] */
	uint64_t seq;      /* submission order, from 0 */
	unsigned index;    /* 0 .. slots-1, fixed per slot: index of the backend's own state */
};

/* submit's "nothing was queued, try again after a pause" (the queue sleeps 200 us). */
#define PERFSINK_KIT_WQ_AGAIN 1

/*
 * Start s->len - s->done bytes from s->data + s->done at s->off + s->done.
 * The queue's lock is held.  0 when started (or handed on), PERFSINK_KIT_WQ_AGAIN,
 * or a negative errno (the write fails, the queue with it).  A backend
 * counts its own submissions (perfsink_kit_wq_counters: writes).
 */
typedef int (*perfsink_kit_wq_submit_fn)(void *ctx, struct perfsink_kit_wq_slot *s);

struct perfsink_kit_wq_config {
	unsigned slots;        /* writes in flight at most (>= 1) */
	uint64_t offset;       /* where the first write goes */
	perfsink_kit_aiow_commit_fn on_commit; /* optional */
	void *commit_arg;
	void *done_ctx;        /* first argument of every done() */
	perfsink_kit_wq_submit_fn submit;
	void *submit_ctx;
};

/* 0, -EINVAL (no submit, no slots) or -ENOMEM. */
int perfsink_kit_wq_create(const struct perfsink_kit_wq_config *cfg, struct perfsink_kit_wq **out);
/* Frees; nothing may be in flight (drained) and the completion path gone.  NULL: nothing. */
void perfsink_kit_wq_destroy(struct perfsink_kit_wq *q);
/*
 * Queue len bytes at the append offset and advance it; waits for a free
 * slot.  On 0, done() runs exactly once (at once, on the caller's thread,
 * for len 0); on error it does not and nothing was queued.
 */
int perfsink_kit_wq_write(struct perfsink_kit_wq *q, const void *data, size_t len,
			  perfsink_kit_aiow_done_fn done, void *arg);
/* Wait until nothing is in flight and no callback runs; the sticky error or 0. */
int perfsink_kit_wq_drain(struct perfsink_kit_wq *q);
uint64_t perfsink_kit_wq_offset(struct perfsink_kit_wq *q);    /* next append offset */
uint64_t perfsink_kit_wq_committed(struct perfsink_kit_wq *q); /* end of the error-free prefix */
int perfsink_kit_wq_error(struct perfsink_kit_wq *q);          /* the sticky error or 0 */
/* writes and retries are the backend's to count, bytes too; waits the queue's. */
void perfsink_kit_wq_stats(struct perfsink_kit_wq *q, struct perfsink_kit_aiow_stats *out);
/* The queue's lock: also the one guarding the backend's submission state. */
void perfsink_kit_wq_lock(struct perfsink_kit_wq *q);
void perfsink_kit_wq_unlock(struct perfsink_kit_wq *q);
/* Lock held: the counters, for the backend to add its writes, bytes and retries to. */
struct perfsink_kit_aiow_stats *perfsink_kit_wq_counters(struct perfsink_kit_wq *q);
/* Lock held: slot s is finished, all its bytes on file (err 0) or failed (-errno). */
void perfsink_kit_wq_finish(struct perfsink_kit_wq *q, struct perfsink_kit_wq_slot *s, int err);
/*
 * Lock held: hand the finished slots on in submission order: their done()
 * and on_commit run with the lock dropped; returns with it held.
 */
void perfsink_kit_wq_release(struct perfsink_kit_wq *q);
/*
 * Kit 1.9.  Lock held, slot s submitted and not finished: take its done()
 * away from it, for a backend that has copied the rest of its bytes
 * elsewhere and writes from there (uring_file's spill).  The caller runs
 * done(done_ctx, *arg, 0) with the lock dropped, on its thread; its
 * completion then calls nothing, while its bytes, its error and its place
 * in the committed prefix count as before.  Detaching twice gives a NULL
 * *fn the second time.
 */
void perfsink_kit_wq_detach(struct perfsink_kit_wq *q, struct perfsink_kit_wq_slot *s,
			    perfsink_kit_aiow_done_fn *fn, void **arg);

/* ------------------------------------------------- O_DIRECT record streams */

/*
 * Since kit 1.1.  O_DIRECT writing of a stream of whole records, shared by
 * the file sinks (aio_file, uring_file): how each buffer splits into
 * direct writes, and which buffer end data.size may show.
 *
 * The file is written in PERFSINK_KIT_DIO_BLOCK units from a block-aligned
 * offset.  A buffer's bytes first complete the pending partial block left
 * by the buffers before it (copied into a bounce block, written once
 * full), then its block-aligned middle is written straight from the
 * buffer (the host places buffer data at its stream offset modulo the
 * block: sink ABI 1.2), and its last partial block becomes the new pending
 * block, written when the next buffers fill it or, at the end, with a
 * buffered write.  Every block is written once, so no two writes in flight
 * share a block.  Pure functions; any thread.
 */
#define PERFSINK_KIT_DIO_BLOCK PERFSINK_BUF_ALIGN

struct perfsink_kit_dio_split {
	size_t head;      /* bytes copied into the pending block */
	int block_full;   /* the pending block is then full: write it */
	size_t mid;       /* bytes written straight from data + head (a multiple of the block) */
	size_t tail;      /* bytes that start the next pending block */
	int aligned;      /* data + head is block-aligned (or mid is 0) */
};

/* Split len bytes at data, with pending bytes (< the block) in the pending block. */
struct perfsink_kit_dio_split perfsink_kit_dio_split(const uint8_t *data, size_t len,
						     size_t pending);
/*
 * May fd take O_DIRECT writes whose memory, offset and length are
 * multiples of the block?  Asks the kernel (statx DIOALIGN); 0 where it
 * does not say (tmpfs, older kernels), so those files stay buffered.
 */
int perfsink_kit_dio_usable(int fd);

/*
 * The file offsets where buffers end, kept until the writes before them
 * are on file.  data.size must end on a record boundary; with O_DIRECT the
 * writer completes whole blocks, which end inside records, so the size
 * perf is shown is the last buffer end at or below the completed prefix.
 * THREADS: push from the sink's caller, take from a completion thread; a
 * mutex makes them safe together.  Returns: 0 or -ENOMEM.
 */
struct perfsink_kit_ends;

int perfsink_kit_ends_create(struct perfsink_kit_ends **out);
/* Forget every end (a new file); keeps the memory. */
void perfsink_kit_ends_reset(struct perfsink_kit_ends *e);
/*
 * end must not be below the last one pushed; records counts the records of
 * the file up to end (it says what a cut at end loses).  0 or -ENOMEM.
 */
int perfsink_kit_ends_push(struct perfsink_kit_ends *e, uint64_t end, uint64_t records);
/* The largest end pushed that is <= upto (0 if none); drops those.  upto
 * never decreases between resets. */
uint64_t perfsink_kit_ends_take(struct perfsink_kit_ends *e, uint64_t upto);
/* The records up to the largest end taken so far. */
uint64_t perfsink_kit_ends_taken_records(struct perfsink_kit_ends *e);
/* NULL is a no-op. */
void perfsink_kit_ends_destroy(struct perfsink_kit_ends *e);

/* ------------------------------------------------------ perf.data file sink */

/*
 * Since kit 1.1.  perfsink_kit_fsink: a whole perf.data (file mode) sink
 * but for the writer, shared by aio_file (POSIX AIO) and uring_file
 * (io_uring), so both behave the same on a full disk, at rotation and in
 * flight-recorder dumps, and keep data.size at the completed prefix (at a
 * buffer end, at most 100 ms behind, perfsink_kit_ends) for `perfsink
 * recover` after a crash.  With direct, O_DIRECT where the file system
 * takes it (perfsink_kit_dio_*), said once per run at -v (debug) as
 * "'PATH': O_DIRECT writes" or "'PATH': buffered writes (WHY)".
 *
 * The writer ops make ordered appends to one file with the contract of the
 * POSIX AIO writer above (perfsink_kit_aiow: done() once per write, from
 * another thread; on_commit as the completed prefix grows; sticky errors).
 * THREADS: as sink.h: the perfsink_kit_fsink_* functions are a sink's ops,
 * called on the engine thread; the writer's callbacks run on its own.
 */
struct perfsink_kit_writer_ops {
	/*
	 * A writer for the rest of a file: appends through fd from offset on
	 * (direct: fd is the O_DIRECT descriptor, and a buffer may make two
	 * writes, a block and its middle).  0 or a negative errno.
	 */
	int (*create)(void *wctx, int fd, int direct, uint64_t offset,
		      perfsink_kit_aiow_commit_fn on_commit, void *commit_arg, void *done_ctx,
		      void **w);
	int (*write)(void *w, const void *data, size_t len, perfsink_kit_aiow_done_fn done,
		     void *arg);
	int (*drain)(void *w);                 /* nothing in flight; the sticky error */
	uint64_t (*offset)(void *w);           /* next append offset */
	uint64_t (*committed)(void *w);        /* end of the completed, error-free prefix */
	void (*stats)(void *w, struct perfsink_kit_aiow_stats *out);
	void (*destroy)(void *w);              /* drains first */
	/* Optional: before each output's first writer (start, rotate); 0 or -errno (logged by it). */
	int (*begin)(void *wctx, const struct perfsink_stream *s);
	/* Optional: at close, after the last writer is gone. */
	void (*fini)(void *wctx);
};

struct perfsink_kit_fsink_config {
	const char *path;        /* the sink's path value (borrowed until close) */
	unsigned path_key;       /* its index in the key table, for "FILE:LINE: " */
	int fsync;               /* fdatasync before close */
	int direct;              /* O_DIRECT where the file system takes it */
	const struct perfsink_kit_writer_ops *wops;
	void *wctx;              /* first argument of create, begin, fini */
};

struct perfsink_kit_fsink;

/*
 * For a sink's open(): checks that path can become an output (logged with
 * FILE:LINE when not).  0, -ENOMEM, or the check's negative errno.
 */
int perfsink_kit_fsink_open(const struct perfsink_instance *inst,
			    const struct perfsink_kit_fsink_config *cfg,
			    struct perfsink_kit_fsink **out);

struct perfsink_kit_key_map; /* filling a config struct, below */

/* Since kit 1.2: which keys of a file sink's table hold these values. */
struct perfsink_kit_fsink_keys {
	unsigned path;    /* PATH key: the output (its index also gives "FILE:LINE: ") */
	unsigned fsync;   /* BOOL key: fdatasync before close */
	unsigned direct;  /* BOOL key: O_DIRECT where the file system takes it */
};

/*
 * Since kit 1.2.  A file sink's whole open(): fills conf, the sink's
 * calloc'd config struct, from inst->values (perfsink_kit_conf_fill with
 * keys and map), then perfsink_kit_fsink_open with the values of fkeys,
 * wops, and conf as wctx.  conf is the call's: on error it is freed, on 0
 * it is the file sink's wctx (wops->fini frees it).  Engine thread, from
 * open().  0 or what conf_fill or fsink_open returned.
 */
int perfsink_kit_fsink_open_keys(const struct perfsink_instance *inst,
				 const struct perfsink_key *keys,
				 const struct perfsink_kit_key_map *map,
				 const struct perfsink_kit_fsink_keys *fkeys,
				 const struct perfsink_kit_writer_ops *wops, void *conf,
				 struct perfsink_kit_fsink **out);
/* The sink ops, with ctx the perfsink_kit_fsink; sink.h says what each returns. */
int perfsink_kit_fsink_start(void *ctx, const struct perfsink_stream *s);
int perfsink_kit_fsink_write(void *ctx, struct perfsink_buf *buf);
int perfsink_kit_fsink_barrier(void *ctx);
int perfsink_kit_fsink_rotate(void *ctx, const struct perfsink_stream *next);
/* Frees the fsink; wops->fini(wctx) last. */
int perfsink_kit_fsink_close(void *ctx, const struct perfsink_summary *sum);
void perfsink_kit_fsink_stats(void *ctx, struct perfsink_sink_stats *out);

/*
 * Kit 1.5.  The POSIX AIO writer (perfsink_kit_aiow_*) as writer ops, so a
 * file sink written with POSIX AIO brings none of its own: its config
 * struct is (or starts with) a perfsink_kit_aiow_conf, calloc'd in open()
 * and passed as conf to perfsink_kit_fsink_open_keys (fini frees it).
 * cblocks: AIO control blocks in flight, 0 for one per pooled buffer of
 * the stream (twice that with O_DIRECT, where a buffer may make two
 * writes); nr_buffers is the writer's own (begin sets it).
 */
struct perfsink_kit_aiow_conf {
	unsigned cblocks;
	unsigned nr_buffers;
};
extern const struct perfsink_kit_writer_ops perfsink_kit_aiow_writer_ops;

/* ------------------------------------------------------------ byte buffer */

/*
 * A growable byte vector.  Zero-initialise it (or {0}) before use; data is
 * malloc'd by the kit and owned by the buffer until perfsink_kit_buf_free.
 * Capacity grows by doubling from 64 KiB.  THREADS: one thread at a time.
 */
struct perfsink_kit_buf {
	uint8_t *data;
	size_t len, cap;
};

/* Make room for extra more bytes.  0 or -ENOMEM (the buffer unchanged). */
int perfsink_kit_buf_reserve(struct perfsink_kit_buf *b, size_t extra);
/* Append len bytes of p.  0 or -ENOMEM (nothing appended). */
int perfsink_kit_buf_append(struct perfsink_kit_buf *b, const void *p, size_t len);
/*
 * Set the capacity to exactly cap bytes, to allocate a known size at once
 * or give back what a buffer did not use.  0, -EINVAL when cap < len (the
 * buffer unchanged), or -ENOMEM (unchanged).
 */
int perfsink_kit_buf_resize(struct perfsink_kit_buf *b, size_t cap);
/* len = 0, memory kept. */
void perfsink_kit_buf_reset(struct perfsink_kit_buf *b);
/* Free the memory; the buffer is empty and reusable. */
void perfsink_kit_buf_free(struct perfsink_kit_buf *b);

/* -------------------------------------------------- COMPRESSED records */

#define PERFSINK_KIT_REC_HDR 8             /* struct perf_event_header */
/* Kit 1.0's name for PERFSINK_RECORD_COMPRESSED (sink.h), kept for sinks. */
#define PERFSINK_KIT_REC_COMPRESSED 81
#define PERFSINK_KIT_Z_PAYLOAD_MAX (65535 - PERFSINK_KIT_REC_HDR)
#define PERFSINK_KIT_Z_GROUP_MAX (63u * 1024) /* input bytes per record at most */

/*
 * perfsink_kit_zframe: bytes -> PERF_RECORD_COMPRESSED records (zstd), as
 * perf 6.1 reads them.  The one framer of perfsink: the zstd sink and the
 * http sink's compress = zstd both use it.
 *
 * Input is cut into flush groups of at most PERFSINK_KIT_Z_GROUP_MAX bytes.
 * Each group is compressed and flushed (ZSTD_e_flush, or ZSTD_e_end to end
 * the frame) and its output becomes exactly one record.  Hence, for every
 * record:
 *   - header.size <= 65535: a group's worst-case output (ZSTD_compressBound
 *     plus frame header and end block) is below 65527 bytes of payload;
 *   - it decompresses on its own position in the stream to between 1 and
 *     PERFSINK_KIT_Z_GROUP_MAX bytes.  perf decompresses each record into
 *     a buffer of mmap_len bytes and treats an empty result as fatal, so
 *     both bounds matter: announce mmap_len >= PERFSINK_KIT_Z_GROUP_MAX.
 * A frame may stay open across calls (one continuous stream, like perf) or
 * be ended on the last group (independent frames).  Raw records may be
 * appended between groups: perf's reader keeps one decompression stream
 * across the file and skips nothing.
 *
 * THREADS.  One thread at a time per zframe.
 * OWNERSHIP.  The zframe owns its zstd context and scratch memory until
 * perfsink_kit_zframe_fini; records are appended to the caller's buffer.
 * RETURN VALUES.  0 or a negative errno (-ENOMEM, -EIO for a zstd error,
 * -ENOTSUP when the kit was built without zstd).
 */
enum perfsink_kit_zmode {
	PERFSINK_KIT_Z_KEEP = 0, /* keep the group open for more input */
	PERFSINK_KIT_Z_FLUSH,    /* emit the group: output is complete up to here */
	PERFSINK_KIT_Z_END,      /* emit the group and end the frame */
};

struct ZSTD_CCtx_s;

struct perfsink_kit_zframe {
	struct ZSTD_CCtx_s *cctx;
	size_t group;          /* input bytes in the current group */
	int open;              /* a frame was begun and not ended */
	struct perfsink_kit_buf scratch; /* compressed bytes of the current group */
	uint64_t in_bytes;     /* bytes compressed */
	uint64_t out_bytes;    /* record bytes emitted, headers included */
	uint64_t records;      /* records emitted */
};

/* level: a zstd level.  -EINVAL for a level zstd refuses. */
int perfsink_kit_zframe_init(struct perfsink_kit_zframe *f, int level);
void perfsink_kit_zframe_fini(struct perfsink_kit_zframe *f);
/* Forget any open frame: the next group begins a new one (new file). */
int perfsink_kit_zframe_reset(struct perfsink_kit_zframe *f);
/*
 * Compress len bytes into records appended to out.  Full groups are
 * emitted when more input arrives; mode says what to do with the last one.
 * PERFSINK_KIT_Z_END with nothing pending leaves an open frame open and
 * returns -EINVAL (ending it would need a record that decompresses to
 * nothing).  On error, out may hold part of the records: reset the frame.
 */
int perfsink_kit_zframe_put(struct perfsink_kit_zframe *f, struct perfsink_kit_buf *out,
			    const void *data, size_t len, enum perfsink_kit_zmode mode);
/* Bytes pending in the current group: a raw record may follow only at 0. */
static inline size_t perfsink_kit_zframe_pending(const struct perfsink_kit_zframe *f)
{
	return f->group;
}

/*
 * Whole perf records data[0..len) -> COMPRESSED records appended to out,
 * each chunk of whole records (at most chunk_max bytes; a larger single
 * record is a chunk of its own) one COMPRESSED record holding an
 * independent zstd frame, so any part of the output, and each record, can
 * be decoded on its own.  A chunk that compression would not shrink, that
 * zstd fails on, or that is longer than PERFSINK_KIT_Z_GROUP_MAX (it would
 * take two records) is appended as it is; so are bytes
 * after a malformed record header.  The last tail bytes (a FINISHED_ROUND)
 * are appended as they are.  Announce mmap_len >= max(chunk_max,
 * PERFSINK_KIT_Z_GROUP_MAX).  Returns 0 or -ENOMEM.
 */
int perfsink_kit_zframe_records(struct perfsink_kit_zframe *f, struct perfsink_kit_buf *out,
				const uint8_t *data, size_t len, size_t tail, size_t chunk_max);

/* ----------------------------------------------------------- perf records */

/*
 * Walking perf records, counting and checking them, and writing the LOST
 * record that marks data a sink had to drop.  Pure functions of their
 * arguments: any thread; nothing allocated, out buffers are the caller's.
 *
 * Record types are sink.h's enum perfsink_record_type (perf's user types)
 * and PERF_RECORD_* of <linux/perf_event.h> (the kernel's).  The names
 * below are kit 1.0's, kept for sinks built against them: the same values
 * (the kit checks it when built), as plain numbers so #if still reads them.
 */
#define PERFSINK_KIT_REC_LOST 2                 /* PERF_RECORD_LOST */
#define PERFSINK_KIT_REC_HEADER_ATTR 64         /* PERFSINK_RECORD_HEADER_ATTR */
#define PERFSINK_KIT_REC_HEADER_TRACING_DATA 66 /* PERFSINK_RECORD_HEADER_TRACING_DATA */
#define PERFSINK_KIT_REC_AUXTRACE 71            /* PERFSINK_RECORD_AUXTRACE */
#define PERFSINK_KIT_REC_HEADER_FEATURE 80      /* PERFSINK_RECORD_HEADER_FEATURE */

/*
 * Kit 1.6.  The record walk of perfsink, the engine's and every sink's:
 *
 *     struct perfsink_kit_rec_iter it;
 *     struct perfsink_kit_rec r;
 *     perfsink_kit_rec_iter_init(&it, buf->data, buf->len);
 *     while (perfsink_kit_rec_next(&it, &r))
 *             use(r.type, r.misc, r.size, r.p);
 *     if (it.stop != PERFSINK_KIT_REC_END) ... it.off is where it stopped
 *
 * A record is returned while at least 8 bytes are left, its header.size is
 * at least 8 and it fits in what is left; the walk then stops at that
 * record's start (it.off) and it.stop says why.  With it.payload set (pipe
 * mode: a spooled part, a stream file), the bytes that HEADER_TRACING_DATA
 * (u32 at +8) and AUXTRACE (u64 at +8) carry after their record count too:
 * r.payload holds them, the walk steps over them, and a record that
 * announces more than is left, or is too small to announce it, stops the
 * walk (PERFSINK_KIT_REC_PAST_END).  it.off may be set after init (at most
 * len) to begin later.  Records need not be aligned (r.p is read with
 * memcpy).  Inline: nothing to link, fast enough for the engine's drain.
 */
enum perfsink_kit_rec_stop {
	PERFSINK_KIT_REC_END = 0,   /* every byte walked */
	PERFSINK_KIT_REC_SHORT,     /* 1..7 bytes left: a header cut short */
	PERFSINK_KIT_REC_UNDERSIZE, /* header.size < 8 (all zero: zeros) */
	PERFSINK_KIT_REC_PAST_END,  /* header.size (or payload) past the end: torn */
};

struct perfsink_kit_rec_iter {
	const uint8_t *data;
	size_t len;
	size_t off;                      /* the next record; at the stop, where it stopped */
	int payload;                     /* step over TRACING_DATA's and AUXTRACE's payload */
	enum perfsink_kit_rec_stop stop; /* why the last perfsink_kit_rec_next returned 0 */
};

struct perfsink_kit_rec {
	const uint8_t *p;  /* the record: size bytes at data + off */
	uint32_t type;
	uint16_t misc, size;
	uint64_t payload;  /* bytes after the record that size omits (it.payload only) */
};

static inline void perfsink_kit_rec_iter_init(struct perfsink_kit_rec_iter *it, const void *data,
					      size_t len)
{
	it->data = (const uint8_t *)data;
	it->len = len;
	it->off = 0;
	it->payload = 0;
	it->stop = PERFSINK_KIT_REC_END;
}

/* Whether perf 6.1 knows the type: the kernel's 1..21 (to AUX_OUTPUT_HW_ID), the user's 64..83. */
static inline int perfsink_kit_rec_type_known(uint32_t type)
{
	return (type >= 1 && type <= 21) || (type >= PERFSINK_RECORD_HEADER_ATTR && type <= 83);
}

/* Bytes after the record r that its size omits: UINT64_MAX when it is too small to say. */
static inline uint64_t perfsink_kit_rec_payload(const struct perfsink_kit_rec *r)
{
	uint32_t n32;
	uint64_t n64;

	if (r->type == PERFSINK_RECORD_HEADER_TRACING_DATA) {
		if (r->size < 12)
			return UINT64_MAX;
		__builtin_memcpy(&n32, r->p + 8, sizeof(n32));
		return n32;
	}
	if (r->type == PERFSINK_RECORD_AUXTRACE) {
		if (r->size < 16)
			return UINT64_MAX;
		__builtin_memcpy(&n64, r->p + 8, sizeof(n64));
		return n64;
	}
	return 0;
}

/* The next whole record into *r: 1, or 0 at the stop (it->stop, it->off). */
static inline int perfsink_kit_rec_next(struct perfsink_kit_rec_iter *it, struct perfsink_kit_rec *r)
{
	size_t left = it->len - it->off;
	const uint8_t *p;

	if (left < 8) {
		it->stop = left ? PERFSINK_KIT_REC_SHORT : PERFSINK_KIT_REC_END;
		return 0;
	}
	p = it->data + it->off;
	__builtin_memcpy(&r->type, p, sizeof(r->type));
	__builtin_memcpy(&r->misc, p + 4, sizeof(r->misc));
	__builtin_memcpy(&r->size, p + 6, sizeof(r->size));
	if (r->size < 8) {
		it->stop = PERFSINK_KIT_REC_UNDERSIZE;
		return 0;
	}
	if (r->size > left) {
		it->stop = PERFSINK_KIT_REC_PAST_END;
		return 0;
	}
	r->p = p;
	r->payload = 0;
	if (it->payload) {
		r->payload = perfsink_kit_rec_payload(r);
		if (r->payload > left - r->size) {
			it->stop = PERFSINK_KIT_REC_PAST_END;
			return 0;
		}
	}
	it->off += r->size + (size_t)r->payload;
	return 1;
}

/*
 * Number of whole records in data[0..len).  Stops at a header that is
 * malformed (size < 8 or past the end); *rest (may be NULL) receives the
 * bytes not covered by whole records, 0 for a well-formed block.
 */
uint64_t perfsink_kit_records_count(const uint8_t *data, size_t len, size_t *rest);
/* Records in a buffer passed to write(): buf->records when the host counted
 * them (ABI 1.1), else perfsink_kit_records_count of its bytes. */
uint64_t perfsink_kit_buf_records(const struct perfsink_buf *buf);

/*
 * Whether data[0..len) is whole perf pipe-mode records, as a spooled part
 * must be before it is sent: with prologue, the 16-byte pipe header
 * ("PERFILE2", size 16) first; then header sizes (>= 8) that chain exactly
 * to the end, every type one perf 6.1 knows (kernel 1..21, user 64..83),
 * and the payload that HEADER_TRACING_DATA and AUXTRACE carry after their
 * header counted.  An empty non-prologue part is valid (a LOST marker that
 * could not be made).  Returns 0, or -EBADMSG with where and why in why.
 */
int perfsink_kit_records_validate(const uint8_t *data, size_t len, int prologue, char *why,
				  size_t whylen);

/* What a synthesized LOST record must look like to match the stream's attr. */
struct perfsink_kit_lost_template {
	uint64_t id;          /* first event id of the first HEADER_ATTR */
	uint64_t sample_type; /* of that attr */
	int sample_id_all;
};

/*
 * Fill t from a pipe-mode prologue (16-byte header, then HEADER_ATTR ...).
 * Returns 0, or -EINVAL when there is no HEADER_ATTR in it.
 */
int perfsink_kit_lost_template_from_pipe_header(const uint8_t *hdr, size_t len,
						struct perfsink_kit_lost_template *t);

/*
 * Write a PERF_RECORD_LOST {id, lost} with the sample_id trailer that t
 * implies (time 0, so perf delivers it without reordering) into out.
 * Returns its size, or 0 when cap is too small (PERFSINK_KIT_LOST_RECORD_MAX fits).
 */
#define PERFSINK_KIT_LOST_RECORD_MAX 72
size_t perfsink_kit_lost_record_write(const struct perfsink_kit_lost_template *t, uint64_t lost,
				      uint8_t *out, size_t cap);

/* ------------------------------------------------------- config by offset */

/*
 * A sink's key table (sink.h, unchanged) plus a map from each key to the
 * field of the sink's own config struct that receives its parsed value, as
 * Fluent Bit's config_map does:
 *
 *     static const struct perfsink_kit_key_map my_map[] = {
 *             PERFSINK_KIT_MAP(K_LEVEL, struct my_conf, level),
 *             PERFSINK_KIT_MAP(K_PATH, struct my_conf, path),
 *             PERFSINK_KIT_MAP_END,
 *     };
 *     err = perfsink_kit_conf_fill(my_keys, inst->values, my_map, &conf);
 *
 * STRING and PATH keys go to a `const char *` field: the value's text,
 * borrowed (it lives until close() returns; strdup it to keep it longer).
 * The other types go to an integer (or enum) field of 1, 2, 4 or 8 bytes:
 * value.num (BOOL 0/1, ENUM the index, DURATION ms, SIZE bytes), which the
 * key's min/max have already checked.  Keys without a map entry are left
 * for the sink to read from values itself.
 */
struct perfsink_kit_key_map {
	unsigned key;  /* index into the key table (and into values) */
	size_t offset; /* offsetof(config struct, field) */
	size_t size;   /* sizeof(field); 0 ends the map */
};

#define PERFSINK_KIT_MAP(key, type, field) \
	{ (key), offsetof(type, field), sizeof(((type *)0)->field) }
#define PERFSINK_KIT_MAP_END { 0, 0, 0 }

/*
 * Kit 1.5: one declaration per key, from which come the key indices, the
 * key table of sink.h and the map above, so the three cannot disagree.  A
 * sink lists its keys once, in a macro of two: KEY for a key stored in its
 * config struct (type, field), ONLY for one it does not store (the kit's
 * file sink reads path, fsync and direct itself):
 *
 *     #define MY_KEYS(KEY, ONLY) \
 *         KEY(MY_LEVEL, "level", PERFSINK_KEY_INT, "3", 1, 22, NULL, \
 *             "compression level", struct my_conf, level) \
 *         ONLY(MY_PATH, "path", PERFSINK_KEY_PATH, "perf.data", 0, 0, NULL, \
 *              "output file")
 *     PERFSINK_KIT_KEYS(MY_KEYS, my_keys, my_map);
 *
 * defines enum { MY_LEVEL, MY_PATH } (in the order listed), my_keys (the
 * ops' key table, ended) and my_map (for perfsink_kit_conf_fill, ended).
 * The arguments are those of struct perfsink_key: name, type, default,
 * min, max, choices, description.
 */
#define PERFSINK_KIT_KEY_INDEX_(idx, n, t, def, min, max, ch, doc, type, field) idx,
#define PERFSINK_KIT_ONLY_INDEX_(idx, n, t, def, min, max, ch, doc) idx,
#define PERFSINK_KIT_KEY_ABI_(idx, n, t, def, min, max, ch, doc, type, field) \
	{ n, t, def, doc, min, max, ch },
#define PERFSINK_KIT_ONLY_ABI_(idx, n, t, def, min, max, ch, doc) \
	{ n, t, def, doc, min, max, ch },
#define PERFSINK_KIT_KEY_MAP_(idx, n, t, def, min, max, ch, doc, type, field) \
	PERFSINK_KIT_MAP(idx, type, field),
#define PERFSINK_KIT_ONLY_MAP_(idx, n, t, def, min, max, ch, doc)
#define PERFSINK_KIT_KEYS(list, keys, map)                                               \
	enum { PERFSINK_KIT_KEYS_ENUM(list) };                                               \
	static const struct perfsink_key keys[] = PERFSINK_KIT_KEYS_TABLE(list);             \
	static const struct perfsink_kit_key_map map[] = PERFSINK_KIT_KEYS_MAP(list)

/*
 * The three parts of PERFSINK_KIT_KEYS, for a sink of several files whose
 * key indices are needed outside the file that holds the tables (the http
 * sink): the enumerators, in its header,
 *
 *     enum my_key { PERFSINK_KIT_KEYS_ENUM(MY_KEYS) MY_KEY_COUNT };
 *
 * and in one .c file the key table (ended) and the map (ended):
 *
 *     const struct perfsink_key my_keys[] = PERFSINK_KIT_KEYS_TABLE(MY_KEYS);
 *     static const struct perfsink_kit_key_map my_map[] = PERFSINK_KIT_KEYS_MAP(MY_KEYS);
 */
#define PERFSINK_KIT_KEYS_ENUM(list) list(PERFSINK_KIT_KEY_INDEX_, PERFSINK_KIT_ONLY_INDEX_)
#define PERFSINK_KIT_KEYS_TABLE(list)                                                    \
	{ list(PERFSINK_KIT_KEY_ABI_, PERFSINK_KIT_ONLY_ABI_)                                \
	  { NULL, (enum perfsink_key_type)0, NULL, NULL, 0, 0, NULL } }
#define PERFSINK_KIT_KEYS_MAP(list) \
	{ list(PERFSINK_KIT_KEY_MAP_, PERFSINK_KIT_ONLY_MAP_) PERFSINK_KIT_MAP_END }

/*
 * Store every mapped value into conf.  Any thread; nothing allocated.
 * Returns 0; -EINVAL for a map that does not match the key table (a key
 * index past its end, a text key into a field that is not a pointer, an
 * integer field of another size); -ERANGE when a value does not fit its
 * field (a min/max wider than the field).  Fields before the error are set.
 */
int perfsink_kit_conf_fill(const struct perfsink_key *keys, const struct perfsink_value *values,
			   const struct perfsink_kit_key_map *map, void *conf);

/* ---------------------------------------------------------- symbols (1.1) */

/*
 * The files a recording's build-ids name, as perf's build-id cache
 * (~/.debug) keeps them: {path}/{build-id}/elf for an ELF file (kallsyms
 * for the kernel, vdso for [vdso]), {path}/{build-id}/debug for its
 * separate debug file, and the link .build-id/xx/yyyy -> ../../{path}/{build-id}.
 * Pure functions of their arguments and the files they read: any thread.
 */
#define PERFSINK_KIT_BUILD_ID_MAX 20 /* perf's BUILD_ID_SIZE; longer ids are cut */

enum perfsink_kit_sym_kind {
	PERFSINK_KIT_SYM_ELF = 0,  /* a file: name is its absolute path */
	PERFSINK_KIT_SYM_KALLSYMS, /* [kernel.kallsyms]: /proc/kallsyms */
	PERFSINK_KIT_SYM_VDSO,     /* [vdso]: this process's vdso image */
};

struct perfsink_kit_build_id {
	char hex[2 * PERFSINK_KIT_BUILD_ID_MAX + 1];
	const char *name;          /* points into the records walked */
	enum perfsink_kit_sym_kind kind;
	/* 1.4: 0 when the record says no sample fell in the file (perfsink
	 * record marks it, reserved byte 21 = 2); 1 when one did, or the
	 * record does not say (perf's own files). */
	int sampled;
};

/*
 * Walk perf build-id records (the BUILD_ID feature's payload, or
 * PERF_RECORD_HEADER_BUILD_ID records: the same layout) from *off (0 to
 * begin).  Returns 1 with the next entry that names something readable in
 * *out, 0 at the end (or at a malformed record).
 */
int perfsink_kit_build_id_next(const uint8_t *p, size_t len, size_t *off,
			       struct perfsink_kit_build_id *out);
/*
 * The directory of perf's build-id cache, as perf and perfsink record find
 * it: buildid.dir of perf's config files ($PERF_CONFIG alone, else
 * /etc/perfconfig then ~/.perfconfig, the last one wins), else
 * $HOME/.debug, else ".debug" when HOME is unset.  n bytes of out (4096
 * are enough).  0, or -ENAMETOOLONG.
 */
int perfsink_kit_buildid_cache_dir(char *out, size_t n);
/*
 * Kit 1.5: the same; note (nlen bytes, may be NULL) gets one line naming
 * the first config file ignored because it belongs to another user than
 * root or the effective uid (as perf ignores it), else "".  For the caller
 * to log: a buildid.dir it expected is not used.
 */
int perfsink_kit_buildid_cache_dir_note(char *out, size_t n, char *note, size_t nlen);
/* perf's name of the cached file: "elf", "kallsyms" or "vdso". */
const char *perfsink_kit_sym_cache_name(enum perfsink_kit_sym_kind kind);
/* Lower-case hex of id (len bytes, at most PERFSINK_KIT_BUILD_ID_MAX). */
void perfsink_kit_build_id_hex(const uint8_t *id, size_t len,
			       char out[2 * PERFSINK_KIT_BUILD_ID_MAX + 1]);

/*
 * The bytes perf's cache would hold for b into out (replaced), *size their
 * size (also on -EFBIG).  An ELF file is read whole and its build-id
 * checked against b's.  It is read from the local build-id cache first
 * (perfsink_kit_buildid_cache_dir()/<name>/<hex>/elf, where perfsink
 * record files the very file each process mapped, containers' files
 * included), walked without links through directories of root or the
 * effective uid only.  Else, since kit 1.3, from b's path only when anyone
 * could read it there (every directory searchable by others, no link on
 * the way, the file readable by others): run as root, a recorded path may
 * lead to a secret by now, which must never be shipped.
 * max: bytes at most, 0 for no cap.  Returns 0; -EFBIG over max (out
 * empty); -ESTALE when the cache (or else the path) has a file of another
 * build-id; -EACCES when the file at the path is not one anyone may read,
 * -ENOENT, ... from opening the path when the cache has none; -ENOMEM.
 */
int perfsink_kit_sym_read(const struct perfsink_kit_build_id *b, uint64_t max,
			  struct perfsink_kit_buf *out, uint64_t *size);
/*
 * The whole regular file at path into out (replaced), *size its size (also
 * on -EFBIG).  Files of /proc, whose size stat does not know, too.  Same
 * returns as perfsink_kit_sym_read but -ESTALE; -EINVAL when not a regular file.
 */
int perfsink_kit_file_read(const char *path, uint64_t max, struct perfsink_kit_buf *out,
			   uint64_t *size);
/* The path of the separate debug file of build-id hex (n bytes of out, 80 are enough). */
void perfsink_kit_debug_path(const char *hex, char *out, size_t n);
/*
 * The separate debug file of build-id hex, /usr/lib/debug/.build-id/xx/yyyy.debug,
 * into out.  Same returns; -ENOENT when the machine has none.
 */
int perfsink_kit_debug_read(const char *hex, uint64_t max, struct perfsink_kit_buf *out,
			    uint64_t *size);
/*
 * Kit 1.5.  The separate debug file of b (an ELF file) where gdb and perf
 * find one: /usr/lib/debug/.build-id/xx/yyyy.debug, else the file its
 * .gnu_debuglink section names (b's file from the build-id cache, else at
 * its path when anyone may read it there), looked for in b's directory,
 * its .debug/ and /usr/lib/debug/ + its directory, each only when anyone
 * may read it there, and taken only when its CRC32 is the link's and its
 * build-id b's (as gdb, the first such place wins).
 * perfsink_kit_debug_find says cheaply whether the machine has one
 * (without the CRC check): 0, or how it was found.
 * perfsink_kit_debug_read_of reads it into out, *how saying which way:
 * same returns as perfsink_kit_sym_read; -ENOENT when there is none,
 * -ESTALE when the link's places hold only other files.
 */
#define PERFSINK_KIT_DEBUG_BUILD_ID 1 /* /usr/lib/debug/.build-id */
#define PERFSINK_KIT_DEBUG_LINK     2 /* .gnu_debuglink */
int perfsink_kit_debug_find(const struct perfsink_kit_build_id *b);
int perfsink_kit_debug_read_of(const struct perfsink_kit_build_id *b, uint64_t max,
			       struct perfsink_kit_buf *out, uint64_t *size, int *how);

/* Build-id of the ELF image img[0..len) (notes of the program headers, else
 * of the sections).  0, -ENOEXEC (not ELF), -ENOENT (no build-id). */
int perfsink_kit_elf_build_id(const uint8_t *img, size_t len,
			      uint8_t id[PERFSINK_KIT_BUILD_ID_MAX], size_t *idlen);
/* 1 when the image has a non-empty .symtab (not stripped), else 0. */
int perfsink_kit_elf_has_symbols(const uint8_t *img, size_t len);
/* This process's vdso image (AT_SYSINFO_EHDR) and its length; 0 or -ENOENT/-ENOEXEC. */
int perfsink_kit_vdso_image(const uint8_t **img, size_t *len);

struct perfsink_kit_symarchive_stats {
	unsigned entries;   /* build-ids walked */
	unsigned files;     /* of them stored (elf, kallsyms, vdso) */
	unsigned debug;     /* separate debug files stored */
	unsigned missing;   /* file gone or unreadable: not stored */
	unsigned changed;   /* file now has another build-id: not stored */
	uint64_t bytes;     /* file bytes stored, before compression */
	uint64_t out_bytes; /* bytes written to fd */
};

/*
 * Write to fd the symbol archive of build_ids (perf build-id records, as
 * for perfsink_kit_build_id_next): a tar compressed with zstd, one frame,
 * holding for each build-id its file, its debug file when the machine has
 * one, and the .build-id link, in perf's cache layout, so that
 * `mkdir -p ~/.debug && tar -I zstd -xf ARCHIVE -C ~/.debug` makes perf
 * report find them.  Files that are gone or changed are left out and
 * counted.  The caller owns fd (written from its current offset, never
 * closed).  Returns 0, or a negative errno with one line in why: a write
 * error, -ENOMEM, -ENOTSUP when the kit was built without zstd.
 */
int perfsink_kit_symarchive_write(int fd, const uint8_t *build_ids, size_t len,
				  struct perfsink_kit_symarchive_stats *st, char *why, size_t whylen);

/*
 * The BUILD_ID feature payload of the perf.data file at path into out
 * (replaced; empty when the file has none).  0, -EBADMSG (not a perf.data
 * file, or its feature index is not readable), -errno, -ENOMEM.  Since kit
 * 1.3 path is opened as perfsink_kit_input_open does: -ELOOP for a link,
 * -EINVAL for a FIFO, device or anything else not a regular file.
 */
int perfsink_kit_perf_file_build_ids(const char *path, struct perfsink_kit_buf *out);
/*
 * The symbol archive of the perf.data file at path, written to archive
 * (through a temporary file, renamed when complete; mode 0600, as it holds
 * root's /proc/kallsyms).  Same returns, why says which file and what failed.
 */
int perfsink_kit_symarchive_of_file(const char *path, const char *archive,
				    struct perfsink_kit_symarchive_stats *st, char *why, size_t whylen);

/* ---------------------------------------------------- collector secrets */

/*
 * Kit 1.5.  The secrets for reaching a collector (the http sink, and
 * `perfsink ls/fetch/upload` reading what it sent), read one way for both.
 * Any thread; nothing is logged and no message (why, one line, may be
 * NULL) ever holds a secret.  Buffers that held one are wiped; free what
 * these return with perfsink_kit_secret_free / perfsink_kit_s3_keys_free,
 * which wipe it too.
 */
/*
 * The first line of the file at path (a bearer token, a password), without
 * its line end, into *out (malloc'd).  Opened O_CLOEXEC, so a workload
 * started later never inherits it; at most 4095 bytes are read.  what
 * names the file in messages ("bearer_token_file").  0; -EINVAL when the
 * first line is empty; -errno when it cannot be opened or read; -ENOMEM.
 */
int perfsink_kit_secret_read(const char *what, const char *path, char **out, char *why, size_t n);
/* Wipe and free s (NULL is fine). */
void perfsink_kit_secret_free(char *s);

/* S3 access keys for SigV4; token is NULL without a session token. */
struct perfsink_kit_s3_keys {
	char *id, *secret, *token;
};
/*
 * Fill k (all of it the caller's: perfsink_kit_s3_keys_free).  When file
 * is NULL or "": AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with
 * AWS_SESSION_TOKEN when set) if both are set, else ~/.aws/credentials.
 * A file given is read even when the environment has keys (the
 * configuration's choice wins).  The file's section [profile] (NULL or
 * "": AWS_PROFILE, else "default") gives aws_access_key_id,
 * aws_secret_access_key and aws_session_token.  The file is INI as
 * perfsink's config reads it: "name = value" lines, '#' or ';' comments
 * at the start of a line only (a ';' in a value is data), lines of at
 * most 4096 bytes.  0; -errno when the file cannot be opened (why: "no
 * AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY in the environment and
 * credentials file PATH cannot be read"); -EINVAL with the line of a parse
 * error; -EACCES when the profile lacks the id or the secret; -ENOMEM,
 * -ENAMETOOLONG.  On error k holds nothing.
 */
int perfsink_kit_s3_keys_load(struct perfsink_kit_s3_keys *k, const char *file, const char *profile,
			      char *why, size_t n);
void perfsink_kit_s3_keys_free(struct perfsink_kit_s3_keys *k);

/* ------------------------------------------------------- the async worker */

/*
 * Kit 1.7.  One thread that runs a sink's jobs in the order they were
 * queued, so the engine thread never blocks on a write, a compression or a
 * request, and the buffer reference follows the I/O:
 *
 *     engine thread --push(job)--> FIFO --> the worker's thread: run(job),
 *                                           buf_put(job->buf), done(job)
 *
 * A job is the caller's struct, with a struct perfsink_kit_job in it (use
 * ctx, or put it first and cast).  The caller sets run, done, buf and ctx;
 * next is the worker's.  With buf set, push takes a reference
 * (host->buf_get) and the worker drops it (host->buf_put) once run
 * returned: the engine gets its buffer back when the job is done, never on
 * a later op call.
 *
 * The first error is sticky: run's negative return, or
 * perfsink_kit_worker_fail from any thread.  Jobs queued before it still
 * run, with err set, so they can count what they drop instead of doing
 * their I/O; push refuses new jobs with it.
 *
 * THREADS.  push, barrier, wait, drop, stop and free from one owner thread
 * (the engine thread); fail, error and pending from any thread.  run and
 * done are called on the worker's thread with no lock of the worker held:
 * they may call fail and error, never push, barrier or stop.  The worker's
 * lock is a leaf: a caller may hold its own lock around any call but
 * push (which may wait), barrier, wait and stop.
 */
struct perfsink_kit_worker;

struct perfsink_kit_job {
	/*
	 * The job's work, on the worker's thread.  err: the worker's sticky
	 * error so far (0: none).  Returns 0 or a negative errno, which
	 * becomes the sticky error when it is the first.
	 */
	int (*run)(struct perfsink_kit_job *job, int err);
	/*
	 * After run (or instead of it: refused or dropped); frees the job.
	 * NULL: none, and then the worker does not touch the job once run
	 * started, so run (or a completion it set off) may free it.
	 */
	void (*done)(struct perfsink_kit_job *job);
	struct perfsink_buf *buf;         /* NULL, or held from push until the job is done */
	void *ctx;                        /* the caller's */
	struct perfsink_kit_job *next;    /* the worker's */
	uint64_t seq;                     /* the worker's: its place in the queue */
};

struct perfsink_kit_worker_conf {
	const struct perfsink_host *host; /* its buf_get and buf_put */
	size_t max_queued;                /* jobs queued before push waits; 0: no limit */
	/*
	 * Optional, for a worker whose thread also drives I/O of its own
	 * between jobs (the http sink's transfers on a curl multi handle).
	 * idle(arg, more) runs on the thread instead of sleeping when no job
	 * is queued (more 0: it may wait for its I/O), and after every
	 * PERFSINK_KIT_WORKER_BATCH jobs in a row (more 1: it must not
	 * wait).  A waiting idle must return soon after wake(arg), which push
	 * and stop call with no lock held (a wake before the wait counts,
	 * as curl_multi_wakeup's does).  NULL: the thread sleeps between jobs.
	 */
	void (*idle)(void *arg, int more);
	void (*wake)(void *arg);
	void *arg;
};
#define PERFSINK_KIT_WORKER_BATCH 64

/*
 * Kit 1.8.  ts = now on clock + ms, normalized: the deadline of a
 * pthread_cond_timedwait on a condition variable of that clock (its
 * condattr's, CLOCK_REALTIME by default).  ms >= 0.  Any thread.
 */
struct timespec;
void perfsink_kit_deadline(clockid_t clock, int64_t ms, struct timespec *ts);

/* Start the thread, idle.  0, -ENOMEM or pthread_create's error. */
int perfsink_kit_worker_new(const struct perfsink_kit_worker_conf *conf,
			    struct perfsink_kit_worker **out);
/*
 * Queue job after every job queued before.  Waits while max_queued jobs
 * are queued (backpressure).  0; or the sticky error (-ESHUTDOWN after
 * stop): then the job is not queued, no reference is taken, and done is
 * called before push returns.
 */
int perfsink_kit_worker_push(struct perfsink_kit_worker *w, struct perfsink_kit_job *job);
/*
 * Wait until every job queued before the call is done (run, its buffer
 * released, done called).  Returns the sticky error, 0 if none.
 */
int perfsink_kit_worker_barrier(struct perfsink_kit_worker *w);
/*
 * The barrier with a deadline in CLOCK_MONOTONIC ms: the sticky error, 0,
 * or -ETIMEDOUT when jobs queued before are still not done then.
 */
int perfsink_kit_worker_wait(struct perfsink_kit_worker *w, int64_t deadline_ms);
/*
 * Set the sticky error to err (< 0) when there is none.  Returns 1 when
 * this call set it (the caller says it, once), else 0.
 */
int perfsink_kit_worker_fail(struct perfsink_kit_worker *w, int err);
/* The sticky error, 0 if none. */
int perfsink_kit_worker_error(struct perfsink_kit_worker *w);
/* Jobs queued or running, not done yet. */
size_t perfsink_kit_worker_pending(struct perfsink_kit_worker *w);
/*
 * Take out the queued jobs not started yet for which match(job, arg) is
 * non-zero; each is released (buffer, done) without running.  Returns how
 * many.  match runs under the worker's lock: it only looks at the job.
 */
size_t perfsink_kit_worker_drop(struct perfsink_kit_worker *w,
				int (*match)(const struct perfsink_kit_job *job, void *arg), void *arg);
/*
 * Run what is queued (with the sticky error, if any, as for any job), then
 * end the thread.  Later pushes are refused.  Returns the sticky error.
 * Once; later calls only return it.
 */
int perfsink_kit_worker_stop(struct perfsink_kit_worker *w);
/* stop, then free w.  NULL: nothing. */
void perfsink_kit_worker_free(struct perfsink_kit_worker *w);

#ifdef __cplusplus
}
#endif
#endif /* PERFSINK_KIT_H */
