/*
 * Collector listings: just enough XML and JSON scanning for the three
 * answers a collector gives (see <perfsink/collector.h>).  Element names
 * are matched by their local part, so any namespace prefix (D:, d:, none)
 * is accepted.  Moved here from src/fetch so that every reader of a
 * collector (ls/fetch, the sinks to come) parses one way.
 */
#include <perfsink/collector.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void perfsink_coll_list_free(struct perfsink_coll_list *l)
{
	for (size_t i = 0; i < l->nr; i++)
		free(l->e[i].name);
	free(l->e);
	free(l->next_token);
	memset(l, 0, sizeof(*l));
}

int perfsink_coll_list_add(struct perfsink_coll_list *l, const char *name, size_t len, int is_dir,
			   uint64_t size, int64_t mtime)
{
	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct perfsink_coll_entry *e = realloc(l->e, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		l->e = e;
		l->cap = cap;
	}
	char *n = strndup(name, len);
	if (!n)
		return -ENOMEM;
	l->e[l->nr++] = (struct perfsink_coll_entry){ n, is_dir, size, mtime };
	return 0;
}

int64_t perfsink_coll_time_parse(const char *s)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *end = strptime(s, "%a, %d %b %Y %H:%M:%S", &tm);
	if (!end) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	}
	return end ? (int64_t)timegm(&tm) : 0;
}

/* ------------------------------------------------------------------ XML */

/*
 * The next element whose local name is local, in [p, end): its content in
 * body/blen (empty for <x/>); returns where scanning goes on, NULL if none.
 */
static const char *xml_elem(const char *p, const char *end, const char *local,
			    const char **body, size_t *blen)
{
	size_t ll = strlen(local);
	while ((p = memchr(p, '<', (size_t)(end - p)))) {
		const char *name = ++p, *q = p;
		if (p >= end || *p == '/' || *p == '?' || *p == '!')
			continue;
		while (q < end && *q != '>' && *q != '/' && *q != ' ' && *q != '\t' &&
		       *q != '\r' && *q != '\n')
			q++;
		const char *colon = memchr(name, ':', (size_t)(q - name));
		const char *ln = colon ? colon + 1 : name;
		if ((size_t)(q - ln) != ll || memcmp(ln, local, ll))
			continue;
		size_t qlen = (size_t)(q - name);
		const char *gt = memchr(q, '>', (size_t)(end - q));
		if (!gt)
			return NULL;
		if (gt[-1] == '/') {
			*body = gt;
			*blen = 0;
			return gt + 1;
		}
		/* The close tag with the same qualified name. */
		for (const char *c = gt + 1; (c = memchr(c, '<', (size_t)(end - c))); c++) {
			if (end - c >= (long)qlen + 3 && c[1] == '/' && !memcmp(c + 2, name, qlen) &&
			    c[2 + qlen] == '>') {
				*body = gt + 1;
				*blen = (size_t)(c - gt - 1);
				return c + 3 + qlen;
			}
		}
		return NULL;
	}
	return NULL;
}

/* Content of the first element local inside [p, end) into out (decoded); 0 or -1. */
static int xml_text(const char *p, const char *end, const char *local, char *out, size_t n)
{
	const char *b;
	size_t bl, o = 0;
	if (!xml_elem(p, end, local, &b, &bl) || !n)
		return -1;
	static const struct { const char *ent; char c; } ents[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};
	for (size_t i = 0; i < bl && o + 1 < n; i++) {
		char c = b[i];
		if (c == '&')
			for (size_t k = 0; k < sizeof(ents) / sizeof(ents[0]); k++) {
				size_t el = strlen(ents[k].ent);
				if (bl - i >= el && !memcmp(b + i, ents[k].ent, el)) {
					c = ents[k].c;
					i += el - 1;
					break;
				}
			}
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decode s in place; a "scheme://host" in front is dropped. */
static void href_path(char *s)
{
	char *p = strstr(s, "://");
	if (p) {
		p = strchr(p + 3, '/');
		memmove(s, p ? p : "/", strlen(p ? p : "/") + 1);
	}
	char *w = s;
	for (char *r = s; *r; r++) {
		if (*r == '%' && hexval(r[1]) >= 0 && hexval(r[2]) >= 0) {
			*w++ = (char)(hexval(r[1]) * 16 + hexval(r[2]));
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

int perfsink_coll_list_propfind(const char *xml, size_t len, const char *dir_path,
				struct perfsink_coll_list *out)
{
	const char *p = xml, *end = xml + len, *b;
	size_t bl;
	int seen = 0;
	size_t dl = strlen(dir_path);
	while (dl > 1 && dir_path[dl - 1] == '/')
		dl--;
	while ((p = xml_elem(p, end, "response", &b, &bl))) {
		char href[4096], t[128];
		seen = 1;
		if (xml_text(b, b + bl, "href", href, sizeof(href)))
			return -EBADMSG;
		href_path(href);
		size_t hl = strlen(href);
		int is_dir = hl && href[hl - 1] == '/';
		while (hl > 1 && href[hl - 1] == '/')
			href[--hl] = '\0';
		if (hl == dl && !strncmp(href, dir_path, dl))
			continue; /* the folder itself */
		const char *rb, *rt;
		size_t rl;
		if ((rt = xml_elem(b, b + bl, "resourcetype", &rb, &rl)) &&
		    xml_elem(rb, rb + rl, "collection", &rt, &rl))
			is_dir = 1;
		uint64_t size = 0;
		int64_t mtime = 0;
		if (!xml_text(b, b + bl, "getcontentlength", t, sizeof(t)))
			size = strtoull(t, NULL, 10);
		if (!xml_text(b, b + bl, "getlastmodified", t, sizeof(t)))
			mtime = perfsink_coll_time_parse(t);
		const char *name = strrchr(href, '/');
		name = name ? name + 1 : href;
		if (!*name)
			continue;
		int rc = perfsink_coll_list_add(out, name, strlen(name), is_dir, size, mtime);
		if (rc)
			return rc;
	}
	return seen || strstr(xml, "multistatus") ? 0 : -EBADMSG;
}

int perfsink_coll_list_s3(const char *xml, size_t len, const char *prefix, struct perfsink_coll_list *out)
{
	const char *end = xml + len, *p, *b;
	size_t bl, pl = strlen(prefix);
	char key[4096], t[128];
	int rc;

	if (!strstr(xml, "ListBucketResult"))
		return -EBADMSG;
	for (p = xml; (p = xml_elem(p, end, "CommonPrefixes", &b, &bl));) {
		if (xml_text(b, b + bl, "Prefix", key, sizeof(key)) || strncmp(key, prefix, pl))
			return -EBADMSG;
		size_t kl = strlen(key);
		while (kl > pl && key[kl - 1] == '/')
			kl--;
		if (kl > pl && !memchr(key + pl, '/', kl - pl) &&
		    (rc = perfsink_coll_list_add(out, key + pl, kl - pl, 1, 0, 0)))
			return rc;
	}
	for (p = xml; (p = xml_elem(p, end, "Contents", &b, &bl));) {
		if (xml_text(b, b + bl, "Key", key, sizeof(key)) || strncmp(key, prefix, pl))
			return -EBADMSG;
		if (!key[pl] || strchr(key + pl, '/'))
			continue;
		uint64_t size = xml_text(b, b + bl, "Size", t, sizeof(t)) ? 0 : strtoull(t, NULL, 10);
		int64_t mtime = 0;
		if (!xml_text(b, b + bl, "LastModified", t, sizeof(t)))
			mtime = perfsink_coll_time_parse(t);
		if ((rc = perfsink_coll_list_add(out, key + pl, strlen(key + pl), 0, size, mtime)))
			return rc;
	}
	if (!xml_text(xml, end, "IsTruncated", t, sizeof(t)) && !strcmp(t, "true")) {
		if (xml_text(xml, end, "NextContinuationToken", key, sizeof(key)))
			return -EBADMSG;
		free(out->next_token);
		if (!(out->next_token = strdup(key)))
			return -ENOMEM;
	}
	return 0;
}

/* ----------------------------------------------------------------- JSON */

/* The string value of "key" in the object [p, end) into out; 0 or -1. */
static int json_str(const char *p, const char *end, const char *key, char *out, size_t n)
{
	char pat[64];
	size_t pl = (size_t)snprintf(pat, sizeof(pat), "\"%s\"", key), o = 0;
	const char *k = memmem(p, (size_t)(end - p), pat, pl);
	if (!k)
		return -1;
	for (k += pl; k < end && (*k == ' ' || *k == ':' || *k == '\t'); k++)
		;
	if (k >= end)
		return -1;
	if (*k != '"') { /* a number */
		while (k < end && o + 1 < n && ((*k >= '0' && *k <= '9') || *k == '-'))
			out[o++] = *k++;
		out[o] = '\0';
		return o ? 0 : -1;
	}
	for (k++; k < end && *k != '"' && o + 1 < n; k++) {
		if (*k == '\\' && k + 1 < end)
			k++;
		out[o++] = *k;
	}
	out[o] = '\0';
	return 0;
}

int perfsink_coll_list_autoindex(const char *json, size_t len, struct perfsink_coll_list *out)
{
	const char *p = json, *end = json + len;
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	if (p >= end || *p != '[')
		return -EBADMSG;
	while ((p = memchr(p, '{', (size_t)(end - p)))) {
		const char *close = memchr(p, '}', (size_t)(end - p));
		char name[4096], type[32], t[128];
		if (!close || json_str(p, close, "name", name, sizeof(name)) ||
		    json_str(p, close, "type", type, sizeof(type)))
			return -EBADMSG;
		uint64_t size = json_str(p, close, "size", t, sizeof(t)) ? 0 : strtoull(t, NULL, 10);
		int64_t mtime = json_str(p, close, "mtime", t, sizeof(t)) ? 0 : perfsink_coll_time_parse(t);
		p = close + 1;
		if (!name[0] || strchr(name, '/'))
			continue; /* not one path segment: nothing the sink names */
		int rc = perfsink_coll_list_add(out, name, strlen(name), !strcmp(type, "directory"), size,
						 mtime);
		if (rc)
			return rc;
	}
	return 0;
}

int perfsink_coll_propfind_refused(long status)
{
	return status == 405 || status == 501 || status == 400 || status == 403;
}
