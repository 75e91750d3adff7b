/*
 * Secrets for reaching a collector, read as the http sink reads them
 * (plugins/http/http_conf.c; duplicated because the CLI may not include a
 * plugin's internals): S3 keys from AWS_ACCESS_KEY_ID /
 * AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, else from a credentials file
 * and profile; a token or password from the first line of its file.
 * Errors: one line in c->err, never holding a secret.
 */
#ifndef PS_FETCH_CREDENTIALS_H
#define PS_FETCH_CREDENTIALS_H

struct collector;
struct collector_conf;

/* c->key_id, secret, token.  0, -EACCES (none found / unreadable), -ENOMEM. */
int credentials_load(struct collector *c, const struct collector_conf *o);
/* The first line of path into *out (malloc'd).  0, -EACCES, -ENOMEM. */
int secret_read(struct collector *c, const char *what, const char *path, char **out);

#endif
