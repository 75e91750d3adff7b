/*
 * Directory listings of a collector, parsed: a WebDAV PROPFIND multistatus
 * (Depth: 1), nginx's JSON autoindex, and an S3 ListObjectsV2 result.  Pure
 * text in, entries out: no I/O, so the unit test feeds captured answers.
 */
#ifndef PS_FETCH_LISTING_PARSE_H
#define PS_FETCH_LISTING_PARSE_H
#include <stddef.h>
#include <stdint.h>

struct coll_entry {
	char *name;      /* one path segment, decoded; no '/' */
	int is_dir;
	uint64_t size;
	int64_t mtime;   /* seconds since the epoch; 0 when not told */
};

struct coll_list {
	struct coll_entry *e;
	size_t nr, cap;
	char *next_token; /* S3: NextContinuationToken of a truncated answer, else NULL */
};

void coll_list_free(struct coll_list *l);
/* Add a copy of name; 0 or -ENOMEM. */
int coll_list_add(struct coll_list *l, const char *name, size_t len, int is_dir,
		  uint64_t size, int64_t mtime);

/*
 * PROPFIND answer for the folder whose URL path is dir_path ("/perf/h/"):
 * its members (the folder's own entry is skipped).  0, -EBADMSG, -ENOMEM.
 */
int listing_parse_propfind(const char *xml, size_t len, const char *dir_path, struct coll_list *out);
/* nginx `autoindex_format json` array.  0, -EBADMSG, -ENOMEM. */
int listing_parse_autoindex(const char *json, size_t len, struct coll_list *out);
/*
 * ListObjectsV2 with delimiter "/" under prefix (ending in '/' or empty):
 * CommonPrefixes become folders, Contents files, both named relative to
 * prefix.  0, -EBADMSG, -ENOMEM.
 */
int listing_parse_s3(const char *xml, size_t len, const char *prefix, struct coll_list *out);

/* "Thu, 03 Dec 2026 12:00:00 GMT" or "2026-12-03T12:00:00.000Z"; 0 if neither. */
int64_t listing_time_parse(const char *s);

#endif
