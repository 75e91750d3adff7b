/* flame_synth FRAMES OUT.svg|OUT.html [NAME]: a flame graph of about FRAMES
 * frames (at least 12) made up, for the page tests and bench/flame_open.sh:
 * the stacks main;run;f1_D;f2_DD;...;f5_DDDDD for the five-digit numbers
 * from 10000 on, each function its own name, widths varied; NAME (a hostile
 * one, for the tests) instead of "run".  Built through the
 * profile model and flame_write, as perfsink flamegraph draws. */
#include <stdio.h>
#include <stdlib.h>
#include "flame/flame.h"
#include "pprof/pp_profile.h"

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fputs("usage: flame_synth FRAMES OUT.svg|OUT.html [NAME]\n", stderr);
		return 2;
	}
	long frames = atol(argv[1]);
	/* Leaves L give about L * 10/9 frames (each level a tenth of the next). */
	long leaves = frames * 9 / 10 > 9 ? frames * 9 / 10 : 9;
	struct pp_profile p;
	if (pp_profile_init(&p) || pp_value_type(&p, "samples", "count") < 0)
		return 1;
	int64_t m = pp_mapping(&p, 0x1000, 0x100000000, 0, "/usr/bin/synth", "");
	uint64_t top[2];
	const char *const names[2] = { argc == 4 ? argv[3] : "run", "main" };
	for (int i = 0; i < 2; i++) {
		struct pp_line l = { (uint64_t)pp_function(&p, names[i], names[i], NULL), 0 };
		top[i] = (uint64_t)pp_location_add(&p, (uint64_t)m, (uint64_t)(0x2000 + i), &l, 1);
	}
	for (long i = 0; i < leaves; i++) {
		char num[24], name[48];
		uint64_t locs[7];
		snprintf(num, sizeof(num), "%ld", 10000 + i);
		for (int d = 5; d >= 1; d--) {
			snprintf(name, sizeof(name), "f%d_%.*s", d, d, num);
			struct pp_line l = { (uint64_t)pp_function(&p, name, name, NULL), 0 };
			long prefix = atol(num);
			for (int k = d; k < 5; k++)
				prefix /= 10;
			uint64_t addr = 0x10000 + (uint64_t)d * 0x1000000 + (uint64_t)prefix * 8;
			int64_t id = (int64_t)pp_location_find(&p, (uint64_t)m, addr);
			locs[5 - d] = id ? (uint64_t)id : (uint64_t)pp_location_add(&p, (uint64_t)m, addr, &l, 1);
		}
		locs[5] = top[0];
		locs[6] = top[1];
		int64_t v = 1 + (i * 7919) % 97;
		if (pp_sample_add(&p, locs, 7, NULL, 0, &v))
			return 1;
	}
	const char *out = argv[2];
	size_t n = 0;
	while (out[n])
		n++;
	struct flame_opts o = { .svg = n > 4 && out[n - 1] == 'g', .host = "synth", .event = "cpu-clock",
				.samples = (uint64_t)leaves };
	struct flame_stats st;
	FILE *f = fopen(out, "w");
	if (!f || flame_write(&p, &o, f, &st) || fclose(f))
		return 1;
	printf("%u frames, %u deep\n", st.frames, st.depth);
	pp_profile_free(&p);
	return 0;
}
