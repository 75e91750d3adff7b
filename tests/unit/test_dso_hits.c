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
	dso_hits_map(h, 10, 0x5000, 0x1000, DB);
	dso_hits_map(h, 10, 0x1000, 0x1000, DA); /* out of order */
	dso_hits_map(h, -1, 0xffffffffc0000000, 0x2000, DK);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_ptr_equal(dso_hits_find(h, t[i].pid, t[i].ip), t[i].want);
	dso_hits_free(h);
}

static void a_new_mapping_replaces_what_it_overlaps(void **state)
{
	struct dso_hits *h = dso_hits_new();

	(void)state;
	dso_hits_map(h, 7, 0x1000, 0x1000, DA);
	dso_hits_map(h, 7, 0x3000, 0x1000, DB);
	assert_ptr_equal(dso_hits_find(h, 7, 0x3100), DB); /* cached */
	dso_hits_map(h, 7, 0x1800, 0x2000, DC);             /* over both */
	assert_ptr_equal(dso_hits_find(h, 7, 0x1100), NULL);
	assert_ptr_equal(dso_hits_find(h, 7, 0x3100), DC);
	assert_ptr_equal(dso_hits_find(h, 7, 0x3900), NULL);
	dso_hits_free(h);
}

static void a_child_has_its_parents_maps_an_exit_frees_them_later(void **state)
{
	struct dso_hits *h = dso_hits_new();

	(void)state;
	dso_hits_map(h, 20, 0x1000, 0x1000, DA);
	dso_hits_fork(h, 21, 20);
	assert_ptr_equal(dso_hits_find(h, 21, 0x1234), DA);
	dso_hits_map(h, 21, 0x1000, 0x1000, DB); /* the child's own, the parent keeps its */
	assert_ptr_equal(dso_hits_find(h, 20, 0x1234), DA);
	assert_ptr_equal(dso_hits_find(h, 21, 0x1234), DB);
	dso_hits_fork(h, 20, 20);                /* a thread: nothing changes */
	assert_ptr_equal(dso_hits_find(h, 20, 0x1234), DA);

	dso_hits_drop(h, 20, 0);
	dso_hits_pass_end(h); /* other rings of this pass may still hold its samples */
	assert_ptr_equal(dso_hits_find(h, 20, 0x1234), DA);
	dso_hits_pass_end(h);
	assert_ptr_equal(dso_hits_find(h, 20, 0x1234), NULL);

	/* A pid reused by a new process before the free: its maps stay. */
	dso_hits_drop(h, 21, 0);
	dso_hits_map(h, 30, 0x1000, 0x1000, DC);
	dso_hits_fork(h, 21, 30);
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
			dso_hits_map(h, pid, 0x100000 * (40 - r), 0x1000, r % 2 ? DA : DB);
	for (int32_t pid = 1; pid <= 3000; pid += 7)
		for (uint64_t r = 0; r < 40; r++) {
			assert_ptr_equal(dso_hits_find(h, pid, 0x100000 * (40 - r) + 0x10), r % 2 ? DA : DB);
			assert_ptr_equal(dso_hits_find(h, pid, 0x100000 * (40 - r) + 0x1000), NULL);
		}
	dso_hits_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lookups_in_and_around_ranges),
		cmocka_unit_test(a_new_mapping_replaces_what_it_overlaps),
		cmocka_unit_test(a_child_has_its_parents_maps_an_exit_frees_them_later),
		cmocka_unit_test(many_processes_and_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
