/* DSOs from MMAP/MMAP2 records and the BUILD_ID payload made from them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include "probe/buildid.h"
#include "probe/dso_set.h"

/* One MMAP (type 1) or MMAP2 (type 10) record naming file, no trailer. */
static void put_map(struct bytes *b, uint32_t type, uint16_t misc, const char *file)
{
	size_t at = type == PERF_RECORD_MMAP ? 40 : 72;
	size_t n = strlen(file) + 1, size = (at + n + 7) & ~(size_t)7;
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)size };
	size_t start = b->len;
	bytes_zero(b, size);
	memcpy(b->p + start, &h, sizeof(h));
	memcpy(b->p + start + at, file, n);
}

static unsigned count_records(const struct bytes *p, const char *want_name, int *found_misc)
{
	unsigned n = 0;
	for (size_t off = 0; off < p->len;) {
		const struct perf_event_header *h = (const void *)(p->p + off);
		assert_true(h->size >= 8 + 4 + 24 + 64);
		assert_int_equal((h->size - 36) % 64, 0);
		const char *name = (const char *)p->p + off + 36;
		if (want_name && !strcmp(name, want_name))
			*found_misc = h->misc;
		off += h->size;
		n++;
	}
	return n;
}

static void scan_keeps_real_files_once(void **state)
{
	struct dso_set s;
	struct bytes recs, ids;
	dso_set_init(&s);
	bytes_init(&recs);
	bytes_init(&ids);
	put_map(&recs, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, "[kernel.kallsyms]_text");
	put_map(&recs, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, "/bin/ls");
	put_map(&recs, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, "/bin/ls");
	put_map(&recs, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, "//anon");
	put_map(&recs, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, "[vdso]");
	put_map(&recs, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, "/tmp/gone (deleted)");
	put_map(&recs, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, "/etc/passwd");
	/* Data maps (attr mmap_data): never opened, never counted. */
	put_map(&recs, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA,
		"/etc/group");
	dso_set_scan(&s, recs.p, recs.len);
	/* kernel, /bin/ls, [vdso], /etc/passwd (no build-id: left out of the payload) */
	assert_int_equal(dso_set_count(&s), 4);
	assert_int_equal(dso_set_build_ids(&s, &ids), 0);
	int misc = 0;
	assert_int_equal(count_records(&ids, "/bin/ls", &misc), 3);
	assert_int_equal(misc & 7, PERF_RECORD_MISC_USER);
	assert_true(misc & (1 << 15));
	count_records(&ids, "[kernel.kallsyms]", &misc);
	assert_int_equal(misc & 7, PERF_RECORD_MISC_KERNEL);
	/* The id is /bin/ls's own. */
	uint8_t id[BUILDID_MAX];
	size_t len;
	assert_int_equal(buildid_read_file("/bin/ls", id, &len), 0);
	int seen = 0;
	for (size_t off = 0; off < ids.len;) {
		const struct perf_event_header *h = (const void *)(ids.p + off);
		if (!strcmp((const char *)ids.p + off + 36, "/bin/ls")) {
			assert_memory_equal(ids.p + off + 12, id, len);
			assert_int_equal(ids.p[off + 12 + 20], len);
			seen = 1;
		}
		off += h->size;
	}
	assert_true(seen);
	/* [vdso], a user DSO with the id of the image the kernel maps (ours). */
	misc = 0;
	count_records(&ids, "[vdso]", &misc);
	assert_int_equal(misc & 7, PERF_RECORD_MISC_USER);
	assert_int_equal(buildid_read_vdso(id, &len), 0);
	assert_int_equal(len, 20);
	bytes_free(&recs);
	bytes_free(&ids);
	dso_set_free(&s);
}

static void truncated_records_are_ignored(void **state)
{
	struct dso_set s;
	struct bytes recs;
	dso_set_init(&s);
	bytes_init(&recs);
	put_map(&recs, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, "/bin/ls");
	dso_set_scan(&s, recs.p, recs.len - 8); /* cut inside the record */
	assert_int_equal(dso_set_count(&s), 0);
	bytes_free(&recs);
	dso_set_free(&s);
}

/* The same path with another device/inode (another mount namespace) is another DSO. */
static void same_path_other_inode_is_another_dso(void **state)
{
	struct dso_set s;
	struct bytes recs;
	dso_set_init(&s);
	bytes_init(&recs);
	uint64_t ino = 1234;
	uint32_t maj = 8;
	put_map(&recs, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, "/bin/ls");
	size_t second = recs.len;
	put_map(&recs, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, "/bin/ls");
	memcpy(recs.p + second + 40, &maj, sizeof(maj));
	memcpy(recs.p + second + 48, &ino, sizeof(ino));
	size_t third = recs.len;
	put_map(&recs, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, "/bin/ls");
	memcpy(recs.p + third + 40, &maj, sizeof(maj));
	memcpy(recs.p + third + 48, &ino, sizeof(ino));
	dso_set_scan(&s, recs.p, recs.len);
	assert_int_equal(dso_set_count(&s), 2);
	bytes_free(&recs);
	dso_set_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scan_keeps_real_files_once),
		cmocka_unit_test(truncated_records_are_ignored),
		cmocka_unit_test(same_path_other_inode_is_another_dso),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
