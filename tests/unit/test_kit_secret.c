/*
 * The kit's collector secrets (kit 1.5): perfsink_kit_secret_read and
 * perfsink_kit_s3_keys_load, which the http sink and ls/fetch/upload share.
 * Tables of files, environments and what each must give.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <perfsink/kit.h>

static char dir[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ps-secret.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* dir/name holding text (NULL: no file); its path in out. */
static void file_put(const char *name, const char *text, char *out, size_t n)
{
	FILE *f;

	snprintf(out, n, "%s/%s", dir, name);
	unlink(out);
	if (!text)
		return;
	f = fopen(out, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void secret_files(void **state)
{
	static const struct {
		const char *text; /* NULL: no such file */
		int rc;
		const char *want; /* the secret, or a piece of the message */
	} t[] = {
		{ "tok3n\n", 0, "tok3n" },
		{ "tok3n", 0, "tok3n" },
		{ "tok3n\r\nsecond line\n", 0, "tok3n" },
		{ "a b;c=d\n", 0, "a b;c=d" },
		{ "\nlater\n", -EINVAL, "is empty" },
		{ "", -EINVAL, "is empty" },
		{ NULL, -ENOENT, "No such file" },
	};
	char path[PATH_MAX], why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *s = (char *)1;

		file_put("token", t[i].text, path, sizeof(path));
		why[0] = '\0';
		assert_int_equal(perfsink_kit_secret_read("bearer_token_file", path, &s, why, sizeof(why)),
				 t[i].rc);
		if (t[i].rc == 0) {
			assert_string_equal(s, t[i].want);
		} else {
			assert_null(s);
			assert_non_null(strstr(why, t[i].want));
			assert_non_null(strstr(why, "bearer_token_file"));
		}
		perfsink_kit_secret_free(t[i].rc == 0 ? s : NULL);
	}
}

static void env_clear(void)
{
	unsetenv("AWS_ACCESS_KEY_ID");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	unsetenv("AWS_SESSION_TOKEN");
	unsetenv("AWS_PROFILE");
}

static void s3_keys(void **state)
{
	static const char two[] = "[default]\naws_access_key_id = D1\naws_secret_access_key = DS\n"
				  "# a comment\n; another\n\n[perf]\n  aws_access_key_id=P1  \n"
				  "aws_secret_access_key = P;S\naws_session_token = PT\n";
	static const struct {
		const char *file;    /* credentials file text; NULL: none */
		int given;           /* pass its path (else HOME/.aws/credentials) */
		const char *profile; /* argument */
		const char *env_profile, *env_id, *env_secret, *env_token;
		int rc;
		const char *id, *secret, *token; /* or id: a piece of the message */
	} t[] = {
		/* The environment when no file is given. */
		{ NULL, 0, NULL, NULL, "E1", "ES", "ET", 0, "E1", "ES", "ET" },
		{ NULL, 0, NULL, NULL, "E1", "ES", NULL, 0, "E1", "ES", NULL },
		/* A file given wins over the environment. */
		{ two, 1, NULL, NULL, "E1", "ES", NULL, 0, "D1", "DS", NULL },
		{ two, 1, "perf", NULL, NULL, NULL, NULL, 0, "P1", "P;S", "PT" },
		{ two, 1, NULL, "perf", NULL, NULL, NULL, 0, "P1", "P;S", "PT" },
		{ two, 1, "default", "perf", NULL, NULL, NULL, 0, "D1", "DS", NULL },
		/* Half a key pair in the environment: the file. */
		{ two, 0, NULL, NULL, "E1", NULL, NULL, 0, "D1", "DS", NULL },
		{ two, 1, "nope", NULL, NULL, NULL, NULL, -EACCES, "no aws_access_key_id", NULL, NULL },
		{ "[default]\naws_access_key_id = X\n", 1, NULL, NULL, NULL, NULL, NULL, -EACCES,
		  "in [default]", NULL, NULL },
		{ "[default]\njunk\n", 1, NULL, NULL, NULL, NULL, NULL, -EINVAL, "parse error at line 2",
		  NULL, NULL },
		{ "[default\n", 1, NULL, NULL, NULL, NULL, NULL, -EINVAL, "line 1", NULL, NULL },
		{ NULL, 1, NULL, NULL, NULL, NULL, NULL, -ENOENT, "cannot be read", NULL, NULL },
	};
	char path[PATH_MAX], aws[PATH_MAX], why[512];

	(void)state;
	snprintf(aws, sizeof(aws), "%s/.aws", dir);
	mkdir(aws, 0700);
	setenv("HOME", dir, 1);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct perfsink_kit_s3_keys k;
		int rc;

		env_clear();
		if (t[i].env_profile)
			setenv("AWS_PROFILE", t[i].env_profile, 1);
		if (t[i].env_id)
			setenv("AWS_ACCESS_KEY_ID", t[i].env_id, 1);
		if (t[i].env_secret)
			setenv("AWS_SECRET_ACCESS_KEY", t[i].env_secret, 1);
		if (t[i].env_token)
			setenv("AWS_SESSION_TOKEN", t[i].env_token, 1);
		file_put(t[i].given ? "creds" : ".aws/credentials", t[i].file, path, sizeof(path));
		why[0] = '\0';
		rc = perfsink_kit_s3_keys_load(&k, t[i].given ? path : NULL, t[i].profile, why,
					       sizeof(why));
		assert_int_equal(rc, t[i].rc);
		if (rc) {
			assert_null(k.id);
			assert_null(k.secret);
			assert_non_null(strstr(why, t[i].id));
			continue;
		}
		assert_string_equal(k.id, t[i].id);
		assert_string_equal(k.secret, t[i].secret);
		if (t[i].token)
			assert_string_equal(k.token, t[i].token);
		else
			assert_null(k.token);
		perfsink_kit_s3_keys_free(&k);
		assert_null(k.secret);
	}
	env_clear();
}

/* A session token longer than inih's 200-byte lines is read whole; a line
 * longer than the reader's 4096 bytes is an error, not a cut secret. */
static void long_lines(void **state)
{
	char text[12000], tok[5000], path[PATH_MAX], why[512];
	struct perfsink_kit_s3_keys k;

	(void)state;
	env_clear();
	memset(tok, 'T', 1500);
	tok[1500] = '\0';
	snprintf(text, sizeof(text), "[default]\naws_access_key_id=I\naws_secret_access_key=S\n"
		 "aws_session_token = %s\n", tok);
	file_put("long", text, path, sizeof(path));
	assert_int_equal(perfsink_kit_s3_keys_load(&k, path, NULL, why, sizeof(why)), 0);
	assert_string_equal(k.token, tok);
	perfsink_kit_s3_keys_free(&k);
	memset(tok, 'T', 4990);
	tok[4990] = '\0';
	snprintf(text, sizeof(text), "[default]\naws_access_key_id=I\naws_secret_access_key=S\n"
		 "aws_session_token = %s\n", tok);
	file_put("long", text, path, sizeof(path));
	assert_int_equal(perfsink_kit_s3_keys_load(&k, path, NULL, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "line 4"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(secret_files),
		cmocka_unit_test(s3_keys),
		cmocka_unit_test(long_lines),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
