/* Upload of one object over HTTP or S3, or a sink's POST; see collector_ship.h. */
#include <perfsink/collector_ship.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

enum stage { ST_PUT, ST_MP_CREATE, ST_MP_PART, ST_MP_COMPLETE, ST_HEAD, ST_POST };

struct transfer {
	const struct coll_ship_conf *conf;
	struct part *part;
	CURL *easy;
	struct curl_slist *hdrs;
	char *obj_url;          /* where the object goes, without query */
	char *url;              /* current request URL */
	const char *method;
	enum stage stage;
	const uint8_t *body;    /* current request body; NULL: part->file_fd from file_off */
	size_t body_len, body_off;
	uint64_t file_off;
	char *xml;              /* body of CompleteMultipartUpload */
	curl_mime *form;        /* ST_POST: the body post_build made */
	struct perfsink_coll_answer resp; /* start of the response body */
	char etag[256];         /* ETag header of the last response */
	int64_t retry_after_hdr; /* Retry-After of the last response in ms, or -1 */
	int64_t retry_after_ms;  /* what transfer_retry_after() reports */
	/* stall_timeout: bytes seen so far and when they last moved */
	curl_off_t moved;
	int64_t moved_ms;       /* -1 until the request is on the wire */
	int stalled;
	/* multipart */
	char *upload_id;        /* URL-escaped */
	unsigned chunk, nr_chunks;
	char **etags;
};

static size_t body_read(char *buf, size_t size, size_t n, void *arg)
{
	struct transfer *t = arg;
	size_t len = size * n, left = t->body_len - t->body_off;

	if (len > left)
		len = left;
	if (t->body) {
		memcpy(buf, t->body + t->body_off, len);
	} else if (len) {
		/* A large spooled part: read from its file as curl sends it. */
		ssize_t k = pread(t->part->file_fd, buf, len, (off_t)(t->file_off + t->body_off));

		if (k <= 0)
			return CURL_READFUNC_ABORT;
		len = (size_t)k;
	}
	t->body_off += len;
	return len;
}

/* curl rewinds a body to resend it (a redirect, an auth retry): only within it. */
static int seek_within(size_t *pos, size_t len, curl_off_t off, int origin)
{
	if (origin != SEEK_SET || off < 0 || (size_t)off > len)
		return CURL_SEEKFUNC_CANTSEEK;
	*pos = (size_t)off;
	return CURL_SEEKFUNC_OK;
}

static int body_seek(void *arg, curl_off_t off, int origin)
{
	struct transfer *t = arg;

	return seek_within(&t->body_off, t->body_len, off, origin);
}

/* A form part's data read from a spooled object's file as curl sends it. */
struct file_span {
	int fd;
	size_t pos, len;
};

static size_t span_read(char *buf, size_t size, size_t n, void *arg)
{
	struct file_span *f = arg;
	size_t len = size * n < f->len - f->pos ? size * n : f->len - f->pos;
	ssize_t k = len ? pread(f->fd, buf, len, (off_t)f->pos) : 0;

	if (k < 0)
		return CURL_READFUNC_ABORT;
	f->pos += (size_t)k;
	return (size_t)k;
}

static int span_seek(void *arg, curl_off_t off, int origin)
{
	struct file_span *f = arg;

	return seek_within(&f->pos, f->len, off, origin);
}

int transfer_form_data(curl_mimepart *mp, const struct part *p)
{
	struct file_span *f;

	if (p->body.data)
		return curl_mime_data(mp, (const char *)p->body.data, p->body.len) ? -ENOMEM : 0;
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	*f = (struct file_span){ p->file_fd, 0, p->body.len };
	if (curl_mime_data_cb(mp, (curl_off_t)p->body.len, span_read, span_seek, free, f)) {
		free(f);
		return -ENOMEM;
	}
	return 0;
}

static size_t header_read(char *buf, size_t size, size_t n, void *arg)
{
	struct transfer *t = arg;
	size_t len = size * n;

	/* A status line starts a response (a 100 Continue comes first). */
	if (len > 5 && !strncmp(buf, "HTTP/", 5))
		t->retry_after_hdr = -1;
	char v[128];
	if (perfsink_coll_header_value(buf, len, "Retry-After", v, sizeof(v)))
		t->retry_after_hdr = perfsink_coll_retry_after_parse(v);
	perfsink_coll_header_value(buf, len, "ETag", t->etag, sizeof(t->etag));
	return len;
}

/* Key of the object: [prefix/]key[suffix]; in s3 mode a limited charset. */
static char *object_key(const struct coll_ship_conf *c, const char *key)
{
	const char *pre = c->prefix ? c->prefix : "", *suf = c->key_suffix ? c->key_suffix : "";
	size_t n;
	char *s, *p;

	while (*pre == '/')
		pre++;
	n = strlen(pre) + strlen(key) + strlen(suf) + 2;
	s = malloc(n);
	if (!s)
		return NULL;
	snprintf(s, n, "%s%s%s%s", pre, pre[0] && pre[strlen(pre) - 1] != '/' ? "/" : "", key, suf);
	for (p = s; c->s3 && *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      strchr("._~/-", *p)))
			*p = '_';
	return s;
}

char *transfer_url(const struct coll_ship_conf *c, const char *key)
{
	char *k = object_key(c, key), *out;

	out = k ? perfsink_coll_url(c->url, c->s3 ? c->bucket : NULL, c->s3 && c->path_style, k) : NULL;
	free(k);
	return out;
}

static int headers_build(struct transfer *t)
{
	const struct coll_ship_conf *c = t->conf;
	size_t i;
	int rc = 0;

	for (i = 0; c->headers && c->headers[i] && rc == 0; i++)
		rc = perfsink_coll_header_add(&t->hdrs, c->headers[i]);
	if (c->s3) {
		/* The payload hash and session token SigV4 needs with curl 7.88. */
		rc = rc ? rc : perfsink_coll_s3_headers(&t->hdrs, c->coll);
		if (rc == 0 && t->stage != ST_PUT && t->stage != ST_MP_PART && t->stage != ST_HEAD)
			/* Set, not removed: curl 7.88 signs a header it is told to drop. */
			rc = perfsink_coll_header_add(&t->hdrs, t->stage == ST_MP_COMPLETE ? "Content-Type: application/xml"
								   : "Content-Type: application/octet-stream");
	} else if (t->stage == ST_POST) {
		/* The form sets its own multipart Content-Type. */
		rc = rc ? rc : perfsink_coll_header_add(&t->hdrs, "Expect:");
	} else {
		rc = rc ? rc : perfsink_coll_header_add(&t->hdrs, "Content-Type: application/octet-stream");
		/*
		 * No "Expect: 100-continue" (curl adds it to every PUT): waiting
		 * for the 100 moves no byte and would count against stall_timeout.
		 */
		rc = rc ? rc : perfsink_coll_header_add(&t->hdrs, "Expect:");
	}
	return rc;
}

/*
 * stall_timeout: no byte up or down for that long, once the request is on
 * the wire (connecting is connect_timeout's business).  curl's own
 * LOW_SPEED_TIME averages the speed over about 5 s, so a request that sent
 * its body and then waits for an answer was aborted after 6-7 s instead of
 * 1 s; this clock is exact to the uploader's wake-up (it polls until
 * transfer_stall_deadline()).
 */
static int progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		    curl_off_t ulnow)
{
	struct transfer *t = arg;
	curl_off_t pre = 0;
	int64_t now = perfsink_coll_mono_ms();

	(void)dltotal;
	(void)ultotal;
	if (t->moved_ms < 0) {
		curl_easy_getinfo(t->easy, CURLINFO_PRETRANSFER_TIME_T, &pre);
		if (pre > 0) {
			t->moved_ms = now;
			t->moved = dlnow + ulnow;
		}
		return 0;
	}
	if (dlnow + ulnow != t->moved) {
		t->moved = dlnow + ulnow;
		t->moved_ms = now;
		return 0;
	}
	if (now - t->moved_ms >= t->conf->stall_timeout_ms) {
		t->stalled = 1;
		return 1; /* CURLE_ABORTED_BY_CALLBACK */
	}
	return 0;
}

int64_t transfer_stall_deadline(const struct transfer *t)
{
	/* Before the request is on the wire: look again within 100 ms. */
	return t->moved_ms < 0 ? perfsink_coll_mono_ms() + 100 : t->moved_ms + t->conf->stall_timeout_ms;
}

int64_t transfer_retry_after(const struct transfer *t)
{
	return t->retry_after_ms;
}

/* What every request of the transfer has: the collector client's setup
 * (transport, TLS, auth, SigV4), then the stall clock and the callbacks. */
static int options_common(struct transfer *t)
{
	const struct coll_ship_conf *c = t->conf;
	CURL *e = t->easy;
	int rc = perfsink_coll_easy_setup(e, c->coll);

	curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, progress);
	curl_easy_setopt(e, CURLOPT_XFERINFODATA, t);
	/* Waiting for a 100 Continue moves no byte: keep it within stall_timeout. */
	curl_easy_setopt(e, CURLOPT_EXPECT_100_TIMEOUT_MS,
			 (long)(c->stall_timeout_ms / 2 < 1000 ? c->stall_timeout_ms / 2 : 1000));
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, perfsink_coll_answer_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &t->resp);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, header_read);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, t);
	curl_easy_setopt(e, CURLOPT_PRIVATE, t);
	return rc;
}

/* Set up the request of the current stage on a fresh easy handle. */
static int request_setup(struct transfer *t)
{
	size_t n = strlen(t->obj_url) + 128 + (t->upload_id ? strlen(t->upload_id) : 0);
	size_t chunk = t->conf->multipart_chunk;

	if (t->easy)
		curl_easy_cleanup(t->easy);
	curl_mime_free(t->form);
	t->form = NULL;
	curl_slist_free_all(t->hdrs);
	t->hdrs = NULL;
	perfsink_coll_answer_reset(&t->resp);
	t->etag[0] = '\0';
	t->retry_after_hdr = -1;
	t->moved = 0;
	t->moved_ms = -1;
	t->stalled = 0;
	t->body_off = 0;
	free(t->url);
	t->url = malloc(n);
	t->easy = curl_easy_init();
	if (!t->url || !t->easy || headers_build(t) < 0)
		return -ENOMEM;
	/* SigV4 in curl 7.88 signs the query as written: keep it canonical. */
	switch (t->stage) {
	case ST_PUT:
		snprintf(t->url, n, "%s", t->obj_url);
		t->body = t->part->body.data;
		t->body_len = t->part->body.len;
		t->file_off = 0;
		break;
	case ST_MP_CREATE:
		snprintf(t->url, n, "%s?uploads=", t->obj_url);
		t->body_len = 0;
		break;
	case ST_MP_PART:
		snprintf(t->url, n, "%s?partNumber=%u&uploadId=%s", t->obj_url, t->chunk + 1, t->upload_id);
		t->body = t->part->body.data ? t->part->body.data + (size_t)t->chunk * chunk : NULL;
		t->file_off = (uint64_t)t->chunk * chunk;
		t->body_len = t->part->body.len - (size_t)t->chunk * chunk;
		if (t->body_len > chunk)
			t->body_len = chunk;
		break;
	case ST_HEAD:
		snprintf(t->url, n, "%s", t->obj_url);
		t->body_len = 0;
		break;
	case ST_MP_COMPLETE:
		snprintf(t->url, n, "%s?uploadId=%s", t->obj_url, t->upload_id);
		t->body = (const uint8_t *)t->xml;
		t->body_len = strlen(t->xml);
		break;
	case ST_POST:
		free(t->url);
		t->url = NULL;
		if (t->conf->post_build(t->conf->post_arg, t->easy, t->part, &t->url, &t->form) < 0 ||
		    !t->url)
			return -ENOMEM;
		break;
	}
	if (options_common(t) < 0)
		return -ENOMEM;
	curl_easy_setopt(t->easy, CURLOPT_URL, t->url);
	curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->hdrs);
	if (t->stage == ST_HEAD) {
		t->method = "HEAD";
		curl_easy_setopt(t->easy, CURLOPT_NOBODY, 1L);
	} else if (t->stage == ST_PUT || t->stage == ST_MP_PART) {
		t->method = "PUT";
		curl_easy_setopt(t->easy, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(t->easy, CURLOPT_READFUNCTION, body_read);
		curl_easy_setopt(t->easy, CURLOPT_READDATA, t);
		curl_easy_setopt(t->easy, CURLOPT_SEEKFUNCTION, body_seek);
		curl_easy_setopt(t->easy, CURLOPT_SEEKDATA, t);
		curl_easy_setopt(t->easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)t->body_len);
	} else if (t->stage == ST_POST) {
		t->method = "POST";
		curl_easy_setopt(t->easy, CURLOPT_MIMEPOST, t->form);
	} else {
		t->method = "POST";
		curl_easy_setopt(t->easy, CURLOPT_POST, 1L);
		curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)t->body_len);
		curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, t->body_len ? (const char *)t->body : "");
	}
	return 0;
}

struct transfer *transfer_new(const struct coll_ship_conf *c, struct part *p)
{
	struct transfer *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->conf = c;
	t->part = p;
	t->obj_url = transfer_url(c, p->key);
	t->stage = c->post_build ? ST_POST : ST_PUT;
	t->retry_after_ms = -1;
	if (!c->post_build && c->s3 && p->body.len > c->multipart_chunk) {
		t->stage = ST_MP_CREATE;
		t->nr_chunks = (unsigned)((p->body.len + c->multipart_chunk - 1) / c->multipart_chunk);
		t->etags = calloc(t->nr_chunks, sizeof(char *));
	}
	if (!t->obj_url || (t->stage == ST_MP_CREATE && !t->etags) || request_setup(t) < 0) {
		transfer_free(t);
		return NULL;
	}
	return t;
}

CURL *transfer_easy(struct transfer *t)
{
	return t->easy;
}

struct part *transfer_part(const struct transfer *t)
{
	return t->part;
}

static int complete_xml_build(struct transfer *t)
{
	size_t n = 128, i, off;

	for (i = 0; i < t->nr_chunks; i++)
		n += strlen(t->etags[i]) + 64;
	t->xml = malloc(n);
	if (!t->xml)
		return -ENOMEM;
	off = (size_t)snprintf(t->xml, n, "<CompleteMultipartUpload>");
	for (i = 0; i < t->nr_chunks; i++)
		off += (size_t)snprintf(t->xml + off, n - off,
					"<Part><PartNumber>%zu</PartNumber><ETag>%s</ETag></Part>", i + 1,
					t->etags[i]);
	snprintf(t->xml + off, n - off, "</CompleteMultipartUpload>");
	return 0;
}

/* Move a multipart upload to its next request after a 2xx. */
static enum transfer_result multipart_advance(struct transfer *t, char *msg, size_t msglen)
{
	char id[PERFSINK_COLL_ANSWER_MAX];

	switch (t->stage) {
	case ST_MP_CREATE:
		if (!perfsink_coll_answer_xml(&t->resp, "UploadId", id, sizeof(id))) {
			snprintf(msg, msglen, "POST %s?uploads=: no UploadId in the response", t->obj_url);
			return XFER_FATAL;
		}
		t->upload_id = curl_easy_escape(t->easy, id, 0);
		t->stage = ST_MP_PART;
		t->chunk = 0;
		break;
	case ST_MP_PART:
		if (!t->etag[0]) {
			snprintf(msg, msglen, "PUT %s part %u: no ETag in the response", t->obj_url, t->chunk + 1);
			return XFER_FATAL;
		}
		t->etags[t->chunk] = strdup(t->etag);
		if (!t->etags[t->chunk])
			return XFER_FATAL;
		if (++t->chunk < t->nr_chunks)
			break;
		if (complete_xml_build(t) < 0)
			return XFER_FATAL;
		t->stage = ST_MP_COMPLETE;
		break;
	default:
		return XFER_DONE;
	}
	if (request_setup(t) < 0) {
		snprintf(msg, msglen, "out of memory");
		return XFER_FATAL;
	}
	return XFER_NEXT;
}

enum transfer_result transfer_done(struct transfer *t, CURLcode cc, char *msg, size_t msglen)
{
	long status = 0;
	char code[PERFSINK_COLL_ANSWER_MAX];

	msg[0] = '\0';
	t->retry_after_ms = -1;
	if (cc == CURLE_ABORTED_BY_CALLBACK && t->stalled) {
		snprintf(msg, msglen, "%s %s: no byte moved for %lld ms (stall_timeout): %s", t->method,
			 t->url, (long long)t->conf->stall_timeout_ms,
			 curl_easy_strerror(CURLE_OPERATION_TIMEDOUT));
		return request_setup(t) < 0 ? XFER_FATAL : XFER_RETRY;
	}
	if (cc != CURLE_OK) {
		snprintf(msg, msglen, "%s %s: %s", t->method, t->url, curl_easy_strerror(cc));
		/* A certificate that does not verify will not verify next time either. */
		if (cc == CURLE_PEER_FAILED_VERIFICATION || cc == CURLE_SSL_CACERT_BADFILE ||
		    cc == CURLE_SSL_CERTPROBLEM || cc == CURLE_UNSUPPORTED_PROTOCOL ||
		    cc == CURLE_URL_MALFORMAT || cc == CURLE_OUT_OF_MEMORY)
			return XFER_FATAL;
		return request_setup(t) < 0 ? XFER_FATAL : XFER_RETRY;
	}
	curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
	/* S3 may answer a failed CompleteMultipartUpload with 200 and an <Error>. */
	if (status >= 200 && status < 300 && !(t->stage == ST_MP_COMPLETE && strstr(t->resp.text, "<Error>")))
		return t->stage == ST_PUT || t->stage == ST_POST ? XFER_DONE : multipart_advance(t, msg, msglen);
	int has_code = perfsink_coll_answer_xml(&t->resp, "Code", code, sizeof(code));
	snprintf(msg, msglen, "%s %s: HTTP %ld%s%s", t->method, t->url, status, has_code ? " " : "",
		 has_code ? code : "");
	if (status == 429 || status == 503)
		t->retry_after_ms = t->retry_after_hdr;
	if (perfsink_coll_status_transient(status) || (status >= 200 && status < 300))
		return request_setup(t) < 0 ? XFER_FATAL : XFER_RETRY;
	return XFER_FATAL;
}

void transfer_free(struct transfer *t)
{
	unsigned i;

	if (!t)
		return;
	if (t->easy)
		curl_easy_cleanup(t->easy);
	curl_slist_free_all(t->hdrs);
	for (i = 0; t->etags && i < t->nr_chunks; i++)
		free(t->etags[i]);
	free(t->etags);
	curl_free(t->upload_id);
	free(t->xml);
	curl_mime_free(t->form);
	free(t->url);
	free(t->obj_url);
	free(t);
}

int transfer_head(const struct coll_ship_conf *c, const char *key, int64_t timeout_ms,
		  curl_xferinfo_callback abort_fn, void *arg, uint64_t *size, char *msg, size_t msglen)
{
	struct part p = { .key = (char *)key };
	struct transfer *t = calloc(1, sizeof(*t));
	curl_off_t len = -1;
	long status = 0;
	CURLcode cc;
	int rc;

	msg[0] = '\0';
	if (!t)
		return -ENOMEM;
	t->conf = c;
	t->part = &p;
	t->stage = ST_HEAD;
	t->obj_url = transfer_url(c, key);
	if (!t->obj_url || request_setup(t) < 0) {
		transfer_free(t);
		return -ENOMEM;
	}
	curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS, (long)(timeout_ms > 1 ? timeout_ms : 1));
	if (abort_fn) {
		curl_easy_setopt(t->easy, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(t->easy, CURLOPT_XFERINFOFUNCTION, abort_fn);
		curl_easy_setopt(t->easy, CURLOPT_XFERINFODATA, arg);
	}
	cc = curl_easy_perform(t->easy);
	curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(t->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &len);
	if (cc != CURLE_OK) {
		snprintf(msg, msglen, "HEAD %s: %s", t->url, curl_easy_strerror(cc));
		rc = cc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT : -EIO;
	} else if (status >= 200 && status < 300) {
		*size = len > 0 ? (uint64_t)len : 0;
		rc = 1;
	} else if (status == 404) {
		rc = 0;
	} else {
		snprintf(msg, msglen, "HEAD %s: HTTP %ld", t->url, status);
		rc = -EIO;
	}
	transfer_free(t);
	return rc;
}
