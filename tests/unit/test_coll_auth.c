/*
 * perfsink_coll_auth_load: the collector's HTTP authentication keys, read
 * one way for the http sink and ls/fetch/upload.  A table of key sets and
 * what each must give: the secrets, or the error, the key at fault and
 * whether a file could not be read.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <perfsink/collector.h>

static char dir[PATH_MAX];
static char tok[PATH_MAX + 16], pw[PATH_MAX + 16], empty[PATH_MAX + 16], none[PATH_MAX + 16];

static void file_put(char *out, size_t n, const char *name, const char *text)
{
	snprintf(out, n, "%s/%s", dir, name);
	if (!text)
		return;
	FILE *f = fopen(out, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ps-auth.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	file_put(tok, sizeof(tok), "token", "t0ken\n");
	file_put(pw, sizeof(pw), "pw", "s3cret\n");
	file_put(empty, sizeof(empty), "empty", "\n");
	file_put(none, sizeof(none), "none", NULL);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

enum { B = PERFSINK_COLL_AUTH_BEARER_FILE, U = PERFSINK_COLL_AUTH_USER,
       P = PERFSINK_COLL_AUTH_PASSWORD_FILE };

static void auth_table(void **state)
{
	static const struct {
		const char *bearer, *user, *password; /* file names: tok, pw, empty, none */
		int rc;
		const char *want_bearer, *want_password; /* on success */
		int bad_key, unreadable;                 /* on error */
		const char *why;                         /* a piece of the message */
	} t[] = {
		{ NULL, NULL, NULL, 0, NULL, NULL, 0, 0, "" },
		{ "", "", "", 0, NULL, NULL, 0, 0, "" },
		{ "tok", NULL, NULL, 0, "t0ken", NULL, 0, 0, "" },
		{ NULL, "u", "pw", 0, NULL, "s3cret", 0, 0, "" },
		{ "tok", "u", "pw", -EINVAL, NULL, NULL, P, 0, "use either" },
		{ NULL, "u", NULL, -EINVAL, NULL, NULL, U, 0, "user needs password_file" },
		{ NULL, NULL, "pw", -EINVAL, NULL, NULL, P, 0, "password_file needs user" },
		/* password_file without user is refused before the file is opened */
		{ NULL, NULL, "none", -EINVAL, NULL, NULL, P, 0, "password_file needs user" },
		{ "none", NULL, NULL, -ENOENT, NULL, NULL, B, 1, "bearer_token_file" },
		{ "empty", NULL, NULL, -EINVAL, NULL, NULL, B, 1, "bearer_token_file" },
		{ NULL, "u", "none", -ENOENT, NULL, NULL, P, 1, "password_file" },
		{ NULL, "u", "empty", -EINVAL, NULL, NULL, P, 1, "password_file" },
		/* the bearer's file is read first: its error wins */
		{ "none", "u", NULL, -ENOENT, NULL, NULL, B, 1, "bearer_token_file" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *name[2] = { t[i].bearer, t[i].password };
		const char *path[2];
		for (int k = 0; k < 2; k++)
			path[k] = !name[k] ? NULL : !*name[k] ? "" : !strcmp(name[k], "tok") ? tok :
				  !strcmp(name[k], "pw") ? pw : !strcmp(name[k], "empty") ? empty : none;
		struct perfsink_coll_auth a;
		char why[512] = "";
		int rc = perfsink_coll_auth_load(&a, path[0], t[i].user, path[1], why, sizeof(why));

		print_message("row %zu: rc %d, why \"%s\"\n", i, rc, why);
		assert_int_equal(rc, t[i].rc);
		if (rc == 0) {
			assert_true(!t[i].want_bearer == !a.bearer);
			assert_true(!t[i].want_password == !a.password);
			if (a.bearer)
				assert_string_equal(a.bearer, t[i].want_bearer);
			if (a.password)
				assert_string_equal(a.password, t[i].want_password);
		} else {
			assert_null(a.bearer);
			assert_null(a.password);
			assert_int_equal(a.bad_key, t[i].bad_key);
			assert_int_equal(a.unreadable, t[i].unreadable);
			assert_non_null(strstr(why, t[i].why));
			/* no secret ever in a message */
			assert_null(strstr(why, "t0ken"));
			assert_null(strstr(why, "s3cret"));
		}
		perfsink_coll_auth_free(&a);
		assert_null(a.bearer);
		assert_null(a.password);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(auth_table),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
