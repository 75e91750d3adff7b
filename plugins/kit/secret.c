/*
 * Secrets for reaching a collector: see kit.h.  The one reader of them, for
 * the http sink (plugins/http/http_conf.c) and `perfsink ls/fetch/upload`
 * (src/fetch/collector.c), so that both take the same keys from the same
 * places.  No message holds a secret; buffers that held one are wiped.
 */
#include <perfsink/kit.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text.h"

/* A line of a credentials file longer than this is an error (a session token fits). */
#define CRED_LINE_MAX 4096

int perfsink_kit_secret_read(const char *what, const char *path, char **out, char *why, size_t n)
{
	char buf[4096];
	ssize_t k;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	*out = NULL;
	if (fd < 0) {
		e = errno;
		if (why && n)
			snprintf(why, n, "%s %s: %s", what, path, strerror(e));
		return -e;
	}
	do
		k = read(fd, buf, sizeof(buf) - 1);
	while (k < 0 && errno == EINTR);
	e = errno;
	close(fd);
	if (k < 0) {
		if (why && n)
			snprintf(why, n, "%s %s: %s", what, path, strerror(e));
		return -e;
	}
	buf[k] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!buf[0]) {
		if (why && n)
			snprintf(why, n, "%s %s is empty", what, path);
		return -EINVAL;
	}
	*out = strdup(buf);
	memset(buf, 0, sizeof(buf));
	return *out ? 0 : -ENOMEM;
}

void perfsink_kit_secret_free(char *s)
{
	if (s) {
		memset(s, 0, strlen(s));
		free(s);
	}
}

void perfsink_kit_s3_keys_free(struct perfsink_kit_s3_keys *k)
{
	perfsink_kit_secret_free(k->id);
	perfsink_kit_secret_free(k->secret);
	perfsink_kit_secret_free(k->token);
	k->id = k->secret = k->token = NULL;
}

/* One "name = value" line of the profile's section into k.  0 or -ENOMEM. */
static int cred_take(struct perfsink_kit_s3_keys *k, char *name, char *value)
{
	char **dst = !strcmp(name, "aws_access_key_id")     ? &k->id :
		     !strcmp(name, "aws_secret_access_key") ? &k->secret :
		     !strcmp(name, "aws_session_token")     ? &k->token : NULL;

	if (!dst)
		return 0;
	perfsink_kit_secret_free(*dst);
	*dst = strdup(value);
	return *dst ? 0 : -ENOMEM;
}

/*
 * The INI file f, as the config reader reads INI (no inline comments, no
 * continuation lines): [profile]'s keys into k.  0, -EINVAL with the line
 * in *bad, -ENOMEM.
 */
static int cred_parse(FILE *f, const char *profile, struct perfsink_kit_s3_keys *k, unsigned *bad)
{
	char line[CRED_LINE_MAX + 2];
	unsigned no = 0;
	int in = 0, rc = 0;

	while (rc == 0 && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		char *s, *eq;

		no++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n' && !feof(f)) {
			rc = -EINVAL; /* too long to be read whole */
			*bad = no;
			break;
		}
		s = kit_trim(line);
		if (*s == '[') {
			char *r = strchr(s, ']');

			if (!r)
				rc = -EINVAL;
			else
				in = (size_t)(r - s - 1) == strlen(profile) &&
				     !strncmp(s + 1, profile, strlen(profile));
		} else if (*s && *s != '#' && *s != ';') {
			if (!(eq = strchr(s, '=')) || eq == s) {
				rc = -EINVAL;
			} else if (in) {
				*eq = '\0';
				rc = cred_take(k, kit_trim(s), kit_trim(eq + 1));
			}
		}
		if (rc == -EINVAL)
			*bad = no;
	}
	memset(line, 0, sizeof(line));
	return rc;
}

/* The profile's keys from the credentials file at path into k. */
static int cred_file(struct perfsink_kit_s3_keys *k, const char *path, const char *profile,
		     char *why, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
	unsigned bad = 0;
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");

	if (!f) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		if (why && n)
			snprintf(why, n, "s3: no AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY in the environment "
				 "and credentials file %s cannot be read", path);
		return rc;
	}
	rc = cred_parse(f, profile, k, &bad);
	fclose(f);
	if (rc == -EINVAL && why && n)
		snprintf(why, n, "s3: credentials file %s: parse error at line %u", path, bad);
	else if (rc == 0 && (!k->id || !k->secret)) {
		if (why && n)
			snprintf(why, n, "s3: credentials file %s has no aws_access_key_id and "
				 "aws_secret_access_key in [%s]", path, profile);
		rc = -EACCES;
	}
	if (rc)
		perfsink_kit_s3_keys_free(k);
	return rc;
}

int perfsink_kit_s3_keys_load(struct perfsink_kit_s3_keys *k, const char *file, const char *profile,
			      char *why, size_t n)
{
	const char *id = getenv("AWS_ACCESS_KEY_ID"), *secret = getenv("AWS_SECRET_ACCESS_KEY");
	const char *token = getenv("AWS_SESSION_TOKEN"), *home = getenv("HOME");
	char path[4096];

	memset(k, 0, sizeof(*k));
	/* A file the configuration names wins over the environment. */
	if (!(file && file[0]) && id && id[0] && secret && secret[0]) {
		k->id = strdup(id);
		k->secret = strdup(secret);
		k->token = token && token[0] ? strdup(token) : NULL;
		if (k->id && k->secret && (k->token || !(token && token[0])))
			return 0;
		perfsink_kit_s3_keys_free(k);
		return -ENOMEM;
	}
	if (!(profile && profile[0]))
		profile = getenv("AWS_PROFILE");
	if (!(profile && profile[0]))
		profile = "default";
	if (file && file[0])
		snprintf(path, sizeof(path), "%s", file);
	else if (snprintf(path, sizeof(path), "%s/.aws/credentials", home ? home : "") >=
		 (int)sizeof(path))
		return -ENAMETOOLONG;
	return cred_file(k, path, profile, why, n);
}
