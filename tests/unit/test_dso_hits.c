/* probe/dso_hits.c: sample ip -> DSO per process, a table of maps and lookups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "probe/dso_hits.h"

/* Stand-ins for DSOs: only their addresses are compared. */
static char A, B, C, K;
#define DA ((struct dso_entry *)&A)
#define DB ((struct dso_entry *)&B)
#define DC ((struct dso_entry *)&C)
#define DK ((struct dso_entry *)&K)

static void lookups_in_and_around_ranges(void **state)
{
	static const struct { int32_t pid; uint64_t ip; struct dso_entry *want; } t[] = {
		{ 10, 0x1000, DA }, { 10, 0x1fff, DA }, { 10, 0x2000, NULL }, { 10, 0xfff, NULL },
		{ 10, 0x5000, DB }, { 10, 0x5800, DB }, { 10, 0x6000, NULL },
		{ 11, 0x1000, NULL },                     /* another process */
		{ -1, 0xffffffffc0001000, DK },           /* a module (the kernel's maps) */
		{ 10, 0x1000, DA },                       /* after another pid: the cache is not fooled */
	};
	struct dso_hits *h = dso_hits_new();

	(void)state;
	dso_hits_map(h, 10, 0x5000, 0x1000, DB, 0);
	dso_hits_map(h, 10, 0x1000, 0x1000, DA, 0); /* out of order */
	dso_hits_map(h, -1, 0xffffffffc0000000, 0x2000, DK, 0);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_ptr_equal(dso_hits_find(h, t[i].pid, t[i].ip), t[i].want);
	dso_hits_free(h);
}

/* A pid with no maps is a cached miss, until a map or a fork gives it some. */
static void a_process_without_maps_then_with(void **state)
{
	struct dso_hits *h = dso_hits_new();

	(void)state;
	for (int i = 0; i < 3; i++) {
		assert_ptr_equal(dso_hits_find(h, -1, 0xffffffffc0001000), NULL); /* no modules yet */
		assert_ptr_equal(dso_hits_find(h, 30, 0x1000), NULL);
	}
	dso_hits_map(h, -1, 0xffffffffc0000000, 0x2000, DK, 0);
	assert_ptr_equal(dso_hits_find(h, -1, 0xffffffffc0001000), DK);
	assert_ptr_equal(dso_hits_find(h, 30, 0x1000), NULL);
	dso_hits_map(h, 31, 0x1000, 0x1000, DA, 0);
	dso_hits_fork(h, 30, 31, 0);
	assert_ptr_equal(dso_hits_find(h, 30, 0x1000), DA);
	assert_ptr_equal(dso_hits_find(h, 32, 0x1000), NULL);
	dso_hits_map(h, 32, 0x1000, 0x1000, DB, 0);
	assert_ptr_equal(dso_hits_find(h, 32, 0x1000), DB);
	assert_ptr_equal(dso_hits_find(h, 30, 0x1000), DA);
	dso_hits_free(h);
}

static void a_new_mapping_replaces_what_it_overlaps(void **state)
{
	struct dso_hits *h = dso_hits_new();

	(void)state;
	dso_hits_map(h, 7, 0x1000, 0x1000, DA, 0);
	dso_hits_map(h, 7, 0x3000, 0x1000, DB, 0);
	assert_ptr_equal(dso_hits_find(h, 7, 0x3100), DB); /* cached */
	dso_hits_map(h, 7, 0x1800, 0x2000, DC, 0);             /* over both */
	assert_ptr_equal(dso_hits_find(h, 7, 0x1100), NULL);
	assert_ptr_equal(dso_hits_find(h, 7, 0x3100), DC);
	assert_ptr_equal(dso_hits_find(h, 7, 0x3900), NULL);
	dso_hits_free(h);
}

static void a_child_has_its_parents_maps_an_exit_frees_them_later(void **state)
{
	struct dso_hits *h = dso_hits_new();

	(void)state;
	dso_hits_map(h, 20, 0x1000, 0x1000, DA, 0);
	dso_hits_fork(h, 21, 20, 0);
	assert_ptr_equal(dso_hits_find(h, 21, 0x1234), DA);
	dso_hits_map(h, 21, 0x1000, 0x1000, DB, 0); /* the child's own, the parent keeps its */
	assert_ptr_equal(dso_hits_find(h, 20, 0x1234), DA);
	assert_ptr_equal(dso_hits_find(h, 21, 0x1234), DB);
	dso_hits_fork(h, 20, 20, 0);                /* a thread: nothing changes */
	assert_ptr_equal(dso_hits_find(h, 20, 0x1234), DA);

	dso_hits_drop(h, 20, 0);
	dso_hits_pass_end(h); /* other rings of this pass may still hold its samples */
	assert_ptr_equal(dso_hits_find(h, 20, 0x1234), DA);
	dso_hits_pass_end(h);
	assert_ptr_equal(dso_hits_find(h, 20, 0x1234), NULL);

	/* A pid reused by a new process before the free: its maps stay. */
	dso_hits_drop(h, 21, 0);
	dso_hits_map(h, 30, 0x1000, 0x1000, DC, 0);
	dso_hits_fork(h, 21, 30, 0);
	dso_hits_pass_end(h);
	dso_hits_pass_end(h);
	assert_ptr_equal(dso_hits_find(h, 21, 0x1234), DC);
	/* An exec: the maps stay until new ones overlap them. */
	dso_hits_drop(h, 21, 1);
	dso_hits_pass_end(h);
	dso_hits_pass_end(h);
	assert_ptr_equal(dso_hits_find(h, 21, 0x1234), DC);
	dso_hits_free(h);
}

static void many_processes_and_ranges(void **state)
{
	struct dso_hits *h = dso_hits_new();

	(void)state;
	for (int32_t pid = 1; pid <= 3000; pid++)
		for (uint64_t r = 0; r < 40; r++)
			dso_hits_map(h, pid, 0x100000 * (40 - r), 0x1000, r % 2 ? DA : DB, 0);
	for (int32_t pid = 1; pid <= 3000; pid += 7)
		for (uint64_t r = 0; r < 40; r++) {
			assert_ptr_equal(dso_hits_find(h, pid, 0x100000 * (40 - r) + 0x10), r % 2 ? DA : DB);
			assert_ptr_equal(dso_hits_find(h, pid, 0x100000 * (40 - r) + 0x1000), NULL);
		}
	dso_hits_free(h);
}

/* A call chain's ips go back and forth between a few ranges and the gaps
 * between them; a gap remembered empty must not hide a range mapped later. */
static void a_chain_through_ranges_and_gaps(void **state)
{
	static const struct { int32_t pid; uint64_t ip; struct dso_entry *want; } t[] = {
		{ 5, 0x1100, DA }, { -1, 0xffffffff81000000, NULL }, /* the kernel's text: a gap */
		{ 5, 0x5100, DB }, { 5, 0x3000, NULL }, { 5, 0x9000, NULL }, { 5, 0x10, NULL },
		{ -1, 0xffffffffc0000100, DK }, { 5, 0x1200, DA }, { -1, 0xffffffff81000100, NULL },
		{ 5, 0x5200, DB }, { 5, 0x3100, NULL }, { 4, 0x1100, NULL }, { 5, 0x1300, DA },
	};
	struct dso_hits *h = dso_hits_new();

	(void)state;
	dso_hits_map(h, 5, 0x1000, 0x1000, DA, 0);
	dso_hits_map(h, 5, 0x5000, 0x1000, DB, 0);
	dso_hits_map(h, -1, 0xffffffffc0000000, 0x2000, DK, 0);
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
			assert_ptr_equal(dso_hits_find(h, t[i].pid, t[i].ip), t[i].want);
	dso_hits_map(h, 5, 0x3000, 0x1000, DC, 0); /* in the gap found empty */
	assert_ptr_equal(dso_hits_find(h, 5, 0x3100), DC);
	assert_ptr_equal(dso_hits_find(h, 5, 0x2800), NULL);
	dso_hits_fork(h, 4, 5, 0);                 /* a child of 5: the gap 4 had is gone */
	assert_ptr_equal(dso_hits_find(h, 4, 0x1100), DA);
	dso_hits_free(h);
}

/* Times (records carry them): the drainer reads rings one after another,
 * so an older MMAP or a FORK can come after what followed it. */
static void records_read_out_of_their_order(void **state)
{
	struct dso_hits *h = dso_hits_new();

	(void)state;
	/* A newer mapping read first: the older one read after does not replace it. */
	dso_hits_map(h, 7, 0x1000, 0x1000, DB, 200);
	dso_hits_map(h, 7, 0x1000, 0x1000, DA, 100);
	assert_ptr_equal(dso_hits_find(h, 7, 0x1100), DB);
	dso_hits_map(h, 7, 0x1000, 0x1000, DC, 300); /* a newer one does */
	assert_ptr_equal(dso_hits_find(h, 7, 0x1100), DC);

	/* A child's own maps (after its exec) read before its FORK stay; the
	 * parent's come as they were at the fork. */
	dso_hits_map(h, 20, 0x1000, 0x1000, DA, 50);
	dso_hits_map(h, 20, 0x9000, 0x1000, DA, 50);
	dso_hits_map(h, 21, 0x5000, 0x1000, DB, 250);  /* the child's, after the fork */
	dso_hits_map(h, 20, 0x7000, 0x1000, DC, 300);  /* the parent's, after the fork */
	dso_hits_map(h, 21, 0x9000, 0x1000, DC, 260);  /* over one of the parent's */
	dso_hits_fork(h, 21, 20, 100);
	assert_ptr_equal(dso_hits_find(h, 21, 0x5100), DB);
	assert_ptr_equal(dso_hits_find(h, 21, 0x1100), DA);
	assert_ptr_equal(dso_hits_find(h, 21, 0x7100), NULL);
	assert_ptr_equal(dso_hits_find(h, 21, 0x9100), DC);
	assert_ptr_equal(dso_hits_find(h, 20, 0x9100), DA);
	/* An older process by that pid: its maps are not the new one's. */
	dso_hits_map(h, 22, 0x3000, 0x1000, DA, 10);
	dso_hits_fork(h, 22, 20, 100);
	assert_ptr_equal(dso_hits_find(h, 22, 0x3100), NULL);
	assert_ptr_equal(dso_hits_find(h, 22, 0x1100), DA);
	dso_hits_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lookups_in_and_around_ranges),
		cmocka_unit_test(a_process_without_maps_then_with),
		cmocka_unit_test(a_new_mapping_replaces_what_it_overlaps),
		cmocka_unit_test(a_child_has_its_parents_maps_an_exit_frees_them_later),
		cmocka_unit_test(many_processes_and_ranges),
		cmocka_unit_test(a_chain_through_ranges_and_gaps),
		cmocka_unit_test(records_read_out_of_their_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
