/*
 * A collector's HTTP authentication from its key files, for the http sink
 * and ls/fetch/upload alike; see <perfsink/collector.h>.
 */
#include <perfsink/collector.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <perfsink/kit.h>

static int set(const char *s)
{
	return s && *s;
}

/* A file's secret into *out; on error the key at fault is noted in a. */
static int secret_take(struct perfsink_coll_auth *a, enum perfsink_coll_auth_key key,
		       const char *what, const char *path, char **out, char *why, size_t n)
{
	int rc = perfsink_kit_secret_read(what, path, out, why, n);

	if (rc) {
		a->bad_key = key;
		a->unreadable = 1;
	}
	return rc;
}

/* The keys that do not go together: -EINVAL with the key at fault. */
static int refuse(struct perfsink_coll_auth *a, enum perfsink_coll_auth_key key, const char *msg,
		  char *why, size_t n)
{
	a->bad_key = key;
	snprintf(why, n, "%s", msg);
	return -EINVAL;
}

static int load(struct perfsink_coll_auth *a, const char *bearer_file, const char *user,
		const char *password_file, char *why, size_t n)
{
	int rc = 0;

	if (set(bearer_file))
		rc = secret_take(a, PERFSINK_COLL_AUTH_BEARER_FILE, "bearer_token_file", bearer_file,
				 &a->bearer, why, n);
	if (rc)
		return rc;
	if (set(password_file)) {
		/* Checked before the file is opened: a password without a user is unused. */
		if (!set(user))
			return refuse(a, PERFSINK_COLL_AUTH_PASSWORD_FILE, "password_file needs user", why, n);
		rc = secret_take(a, PERFSINK_COLL_AUTH_PASSWORD_FILE, "password_file", password_file,
				 &a->password, why, n);
		if (rc)
			return rc;
	}
	if (set(user) && !a->password)
		return refuse(a, PERFSINK_COLL_AUTH_USER, "user needs password_file", why, n);
	if (a->bearer && set(user))
		return refuse(a, PERFSINK_COLL_AUTH_PASSWORD_FILE,
			      "use either bearer_token_file or user + password_file", why, n);
	return 0;
}

int perfsink_coll_auth_load(struct perfsink_coll_auth *a, const char *bearer_file, const char *user,
			    const char *password_file, char *why, size_t n)
{
	memset(a, 0, sizeof(*a));
	int rc = load(a, bearer_file, user, password_file, why, n);

	if (rc) {
		enum perfsink_coll_auth_key key = a->bad_key;
		int unreadable = a->unreadable;

		perfsink_coll_auth_free(a);
		a->bad_key = key;
		a->unreadable = unreadable;
	}
	return rc;
}

void perfsink_coll_auth_free(struct perfsink_coll_auth *a)
{
	perfsink_kit_secret_free(a->bearer);
	perfsink_kit_secret_free(a->password);
	memset(a, 0, sizeof(*a));
}
