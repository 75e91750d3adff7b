/*
 * perfsink ls / fetch, the pure parts: collector listings (WebDAV PROPFIND
 * as nginx's dav-ext answers, nginx's JSON autoindex, S3 ListObjectsV2 with
 * a continuation), part names, end markers, the part check, and the
 * names of shipped JIT maps (a pid from the collector becomes a /tmp path).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "fetch/fetch.h"
#include "fetch/jit_maps.h"
#include <perfsink/collector.h>
#include "fetch/pipe_to_file.h"

static const struct perfsink_coll_entry *find(const struct perfsink_coll_list *l, const char *name)
{
	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->e[i].name, name))
			return &l->e[i];
	return NULL;
}

static void propfind_nginx(void **state)
{
	static const char xml[] =
		"<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<D:multistatus xmlns:D=\"DAV:\">\n"
		"<D:response>\n<D:href>/c/vm/</D:href>\n<D:propstat>\n<D:prop>\n"
		"<D:getlastmodified>Thu, 03 Dec 2026 12:45:37 GMT</D:getlastmodified>\n"
		"<D:resourcetype><D:collection/></D:resourcetype>\n</D:prop>\n"
		"<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n"
		"<D:response>\n<D:href>/c/vm/s%2d1/</D:href>\n<D:propstat>\n<D:prop>\n"
		"<D:resourcetype><D:collection/></D:resourcetype>\n</D:prop>\n</D:propstat>\n</D:response>\n"
		"<D:response>\n<D:href>http://127.0.0.1:8080/c/vm/s-1.end</D:href>\n<D:propstat>\n<D:prop>\n"
		"<D:getcontentlength>14</D:getcontentlength>\n"
		"<D:getlastmodified>Thu, 03 Dec 2026 12:45:38 GMT</D:getlastmodified>\n"
		"<D:resourcetype/>\n</D:prop>\n</D:propstat>\n</D:response>\n</D:multistatus>\n";
	struct perfsink_coll_list l = { 0 };
	assert_int_equal(perfsink_coll_list_propfind(xml, strlen(xml), "/c/vm/", &l), 0);
	assert_int_equal(l.nr, 2); /* the folder itself is not a member */
	const struct perfsink_coll_entry *d = find(&l, "s-1"), *f = find(&l, "s-1.end");
	assert_non_null(d);
	assert_true(d->is_dir);
	assert_non_null(f);
	assert_false(f->is_dir);
	assert_int_equal(f->size, 14);
	assert_int_equal(f->mtime, 1796301938); /* 2026-12-03T12:45:38Z */
	perfsink_coll_list_free(&l);
	assert_int_equal(perfsink_coll_list_propfind("<html>", 6, "/", &l), -EBADMSG);
}

static void autoindex_json(void **state)
{
	static const char js[] =
		"[\n{ \"name\":\"0000000000\", \"type\":\"file\", \"mtime\":\"Thu, 03 Dec 2026 12:45:37 GMT\", "
		"\"size\":1234 },\n{ \"name\":\"sub\", \"type\":\"directory\", \"mtime\":\"Thu, 03 Dec 2026 "
		"12:45:37 GMT\" }\n]\n";
	struct perfsink_coll_list l = { 0 };
	assert_int_equal(perfsink_coll_list_autoindex(js, strlen(js), &l), 0);
	assert_int_equal(l.nr, 2);
	assert_int_equal(find(&l, "0000000000")->size, 1234);
	assert_true(find(&l, "sub")->is_dir);
	perfsink_coll_list_free(&l);
	assert_int_equal(perfsink_coll_list_autoindex("<html>", 6, &l), -EBADMSG);
}

static void s3_list_v2(void **state)
{
	static const char xml[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
		"<Name>bkt</Name><Prefix>runs/vm/</Prefix><IsTruncated>true</IsTruncated>"
		"<NextContinuationToken>a+b/c=&amp;d</NextContinuationToken>"
		"<Contents><Key>runs/vm/s1.end</Key><LastModified>2026-12-03T12:45:38.000Z</LastModified>"
		"<Size>14</Size></Contents>"
		"<CommonPrefixes><Prefix>runs/vm/s1/</Prefix></CommonPrefixes></ListBucketResult>";
	struct perfsink_coll_list l = { 0 };
	assert_int_equal(perfsink_coll_list_s3(xml, strlen(xml), "runs/vm/", &l), 0);
	assert_int_equal(l.nr, 2);
	assert_true(find(&l, "s1")->is_dir);
	assert_int_equal(find(&l, "s1.end")->mtime, 1796301938);
	assert_string_equal(l.next_token, "a+b/c=&d");
	perfsink_coll_list_free(&l);
	assert_int_equal(perfsink_coll_list_s3("<Error/>", 8, "", &l), -EBADMSG);
}

static void names_and_markers(void **state)
{
	uint64_t seq;
	assert_int_equal(part_name_seq("0000000042", &seq), 0);
	assert_int_equal(seq, 42);
	assert_int_equal(part_name_seq("12345678901", &seq), 0);
	assert_int_equal(part_name_seq("000000004", &seq), -1);
	assert_int_equal(part_name_seq("01234567890", &seq), -1);
	assert_int_equal(part_name_seq("s1.end", &seq), -1);
	assert_int_equal(end_marker_parts("{\"parts\": 12}\n", 14), 12);
	assert_int_equal(end_marker_parts("{}", 2), -1);
}

/* Only names the sink writes: any other would name some other /tmp file. */
static void jit_map_names(void **state)
{
	static const struct { const char *name; int pid; } cases[] = {
		{ "perf-1.map", 1 },
		{ "perf-4242.map", 4242 },
		{ "perf-2147483647.map", 2147483647 },
		{ "perf-2147483648.map", -1 },  /* above INT_MAX */
		{ "perf-99999999999999999999.map", -1 },
		{ "perf-0.map", -1 },
		{ "perf-042.map", -1 },
		{ "perf--1.map", -1 },
		{ "perf-.map", -1 },
		{ "perf-12.map.tmp", -1 },
		{ "perf-12.mapx", -1 },
		{ "perf-12", -1 },
		{ "perf-1/../x.map", -1 },
		{ "jit-12.dump", -1 },
		{ "", -1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("%s\n", cases[i].name);
		assert_int_equal(jit_map_name_pid(cases[i].name), cases[i].pid);
	}
}

static void part_checks(void **state)
{
	uint8_t p[16 + 16] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16 };
	char err[128];
	/* A FINISHED_ROUND (68, size 8) twice. */
	p[16] = 68, p[22] = 8, p[24] = 68, p[30] = 8;
	assert_int_equal(part_check(p, sizeof(p), 1, err, sizeof(err)), 0);
	assert_int_equal(part_check(p + 16, 16, 0, err, sizeof(err)), 0);
	assert_int_equal(part_check(p + 16, 16, 1, err, sizeof(err)), -EBADMSG);
	assert_int_equal(part_check(p + 16, 12, 0, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "cut at offset 8"));
	p[30] = 3;
	assert_int_equal(part_check(p + 16, 16, 0, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "offset 8 has size 3"));
	p[30] = 8, p[24] = 200;
	assert_int_equal(part_check(p + 16, 16, 0, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "unknown type 200"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(propfind_nginx),
		cmocka_unit_test(autoindex_json),
		cmocka_unit_test(s3_list_v2),
		cmocka_unit_test(names_and_markers),
		cmocka_unit_test(part_checks),
		cmocka_unit_test(jit_map_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
