/* Credentials of a collector, read like the http sink reads them; see credentials.h. */
#include "fetch/credentials.h"
#include "fetch/collector.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR(c, ...) snprintf((c)->err, sizeof((c)->err), __VA_ARGS__)

/* aws_access_key_id etc. of [profile] in the AWS credentials file path. */
static int credentials_file_read(struct collector *c, const char *path, const char *profile)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int in = 0;
	if (!f) {
		ERR(c, "s3: no AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY in the environment and "
		       "credentials file %s cannot be read", path);
		return -EACCES;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *e = s + strcspn(s, "\r\n");
		*e = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '[') {
			char *r = strchr(s, ']');
			in = r && (size_t)(r - s - 1) == strlen(profile) && !strncmp(s + 1, profile, strlen(profile));
			continue;
		}
		char *eq = strchr(s, '=');
		if (!in || !eq || *s == '#' || *s == ';')
			continue;
		char *k = s, *v = eq + 1, *ke = eq;
		while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
			ke--;
		*ke = '\0';
		while (*v == ' ' || *v == '\t')
			v++;
		for (e = v + strlen(v); e > v && (e[-1] == ' ' || e[-1] == '\t');)
			*--e = '\0';
		char **dst = !strcmp(k, "aws_access_key_id") ? &c->key_id :
			     !strcmp(k, "aws_secret_access_key") ? &c->secret :
			     !strcmp(k, "aws_session_token") ? &c->token : NULL;
		if (dst) {
			free(*dst);
			*dst = strdup(v);
		}
	}
	fclose(f);
	if (!c->key_id || !c->secret) {
		ERR(c, "s3: credentials file %s has no aws_access_key_id and aws_secret_access_key "
		       "in profile [%s]", path, profile);
		return -EACCES;
	}
	return 0;
}

int credentials_load(struct collector *c, const struct collector_conf *o)
{
	const char *id = getenv("AWS_ACCESS_KEY_ID"), *secret = getenv("AWS_SECRET_ACCESS_KEY");
	if (id && *id && secret && *secret) {
		const char *tok = getenv("AWS_SESSION_TOKEN");
		c->key_id = strdup(id);
		c->secret = strdup(secret);
		c->token = tok && *tok ? strdup(tok) : NULL;
		return c->key_id && c->secret ? 0 : -ENOMEM;
	}
	char path[400];
	const char *profile = o && o->profile && *o->profile ? o->profile : getenv("AWS_PROFILE");
	if (o && o->credentials_file && *o->credentials_file)
		snprintf(path, sizeof(path), "%s", o->credentials_file);
	else
		snprintf(path, sizeof(path), "%s/.aws/credentials", getenv("HOME") ? getenv("HOME") : "");
	return credentials_file_read(c, path, profile && *profile ? profile : "default");
}

/* The first line of file into *out (for a token or password). */
int secret_read(struct collector *c, const char *what, const char *path, char **out)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		ERR(c, "%s %s cannot be read", what, path);
		if (f)
			fclose(f);
		return -EACCES;
	}
	fclose(f);
	buf[strcspn(buf, "\r\n")] = '\0';
	*out = strdup(buf);
	memset(buf, 0, sizeof(buf));
	return *out ? 0 : -ENOMEM;
}

