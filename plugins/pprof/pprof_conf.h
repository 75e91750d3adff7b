/*
 * The pprof sink's configuration: its keys (perfsink sinks lists them,
 * perfsink.ini(5) documents them), the values filled by offset, and the
 * collector connection (secrets read once at open).  Engine thread.
 */
#ifndef PPROF_CONF_H
#define PPROF_CONF_H
#include <stdint.h>
#include <perfsink/sink.h>
#include <perfsink/kit.h>
#include <perfsink/collector.h>
#include <perfsink/collector_ship.h>

enum pprof_mode { PPROF_MODE_PYROSCOPE = 0, PPROF_MODE_PUT };
enum pprof_symbolize { PPROF_SYM_NONE = 0, PPROF_SYM_LOCAL };

struct pprof_conf {
	const char *url, *app, *labels, *headers, *bucket, *region, *prefix;
	const char *ca_file, *client_cert, *client_key, *user;
	const char *bearer_token_file, *password_file, *credentials_file, *profile;
	const char *spool_dir;
	unsigned mode, symbolize, overflow;
	int64_t window_ms, drain_timeout_ms, backoff_base_ms, backoff_cap_ms;
	int64_t connect_ms, request_ms;
	uint64_t max_memory, queue_max, spool_max, symbol_cache_max, unwind_max;
	int tls_verify, path_style;
	/* Read at open: the secrets and the collector connection. */
	struct perfsink_coll_auth auth; /* bearer_token_file's and password_file's */
	struct perfsink_kit_s3_keys s3;
	struct perfsink_coll_conf coll;
	char **header_list;     /* headers split: "Name: value", NULL-ended */
	/* What the object shipper reads, pointing at the fields above. */
	struct coll_ship_conf ship;
};

/* S3: a window larger than this goes as a multipart upload (S3's minimum
 * chunk is 5 MiB; a window is rarely near it). */
#define PPROF_MULTIPART_CHUNK (16u << 20)

/* The key table (ops->keys), ended by a NULL name. */
const struct perfsink_key *pprof_conf_keys(void);

/*
 * Fill c from inst's values and read the secrets; one line in why on
 * error ("FILE:LINE: ..." when the host names the key's origin).
 * 0, -EINVAL, -ENOMEM, or a secret's read error.
 */
int pprof_conf_load(struct pprof_conf *c, const struct perfsink_instance *inst, char *why,
		    size_t n);
/* Wipe and free the secrets. */
void pprof_conf_free(struct pprof_conf *c);

#endif
