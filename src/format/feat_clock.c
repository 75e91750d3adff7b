/* CLOCKID and CLOCK_DATA payloads (perf 6.1: write_clockid, write_clock_data). */
#include "format/feat_clock.h"

void feat_clockid_write(struct bytes *b, const struct ps_clock *c)
{
	bytes_u64(b, c->clockid_res_ns);
}

void feat_clock_data_write(struct bytes *b, const struct ps_clock *c)
{
	bytes_u32(b, 1); /* version */
	bytes_u32(b, (uint32_t)c->clockid);
	bytes_u64(b, c->tod_ns);
	bytes_u64(b, c->clockid_ns);
}
