/* Decoding a sample record; see pp_sample.h. */
#include <perfsink/pprof_model.h>

#include <errno.h>
#include <string.h>

static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

uint64_t pp_sample_id(const uint8_t *r, uint16_t size, uint64_t st)
{
	size_t o = 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		return size >= 16 ? rd64(r + 8) : 0;
	if (!(st & PERF_SAMPLE_ID))
		return 0;
	o += 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
		  !!(st & PERF_SAMPLE_ADDR));
	return o + 8 <= size ? rd64(r + o) : 0;
}

/* Bytes of a read_format value at p, or 0 when it does not fit. */
static size_t read_size(uint64_t rf, const uint8_t *p, const uint8_t *end)
{
	size_t per = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
	size_t t = 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
	if (!(rf & PERF_FORMAT_GROUP))
		return per + t;
	if (end - p < 8 || rd64(p) > 4096)
		return 0;
	return 8 + t + rd64(p) * per;
}

/* The fields after PERIOD: READ, CALLCHAIN, RAW, BRANCH_STACK, REGS_USER, STACK_USER. */
static int decode_tail(const uint8_t *p, const uint8_t *end, const struct perf_event_attr *a,
		       struct pp_sample *s)
{
	uint64_t st = a->sample_type;
	if (st & PERF_SAMPLE_READ) {
		size_t n = read_size(a->read_format, p, end);
		if (!n || n > (size_t)(end - p))
			return -EINVAL;
		p += n;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (end - p < 8 || rd64(p) > (uint64_t)(end - p - 8) / 8)
			return -EINVAL;
		s->nr_chain = rd64(p);
		s->chain = p + 8;
		p += 8 + 8 * s->nr_chain;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t n;
		if (end - p < 4 || (memcpy(&n, p, 4), n > (size_t)(end - p - 4)))
			return -EINVAL;
		p += 4 + n;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		int hw = !!(a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
		if (end - p < 8 || rd64(p) > (uint64_t)(end - p) / 24)
			return -EINVAL;
		p += 8 + 8 * hw + 24 * rd64(p);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (end - p < 8)
			return -EINVAL;
		s->regs_abi = rd64(p);
		p += 8;
		if (s->regs_abi) {
			size_t n = 8 * (size_t)__builtin_popcountll(a->sample_regs_user);
			if ((size_t)(end - p) < n)
				return -EINVAL;
			s->regs_mask = a->sample_regs_user;
			s->regs = p;
			p += n;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if (end - p < 8 || rd64(p) > (uint64_t)(end - p - 8))
			return -EINVAL;
		uint64_t n = rd64(p);
		s->stack = p + 8;
		p += 8 + n;
		s->stack_size = n && end - p >= 8 && rd64(p) <= n ? rd64(p) : n;
	}
	return 0;
}

int pp_sample_decode(const uint8_t *r, uint16_t size, const struct perf_event_attr *a, struct pp_sample *s)
{
	const uint8_t *p = r + 8, *end = r + size;
	uint64_t st = a->sample_type;
	uint16_t misc;
	memset(s, 0, sizeof(*s));
	memcpy(&misc, r + 4, 2);
	s->cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	s->period = 1;
	/* The fixed-size fields, in the kernel's order. */
	static const uint64_t order[] = { PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,
					  PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
					  PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD };
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(st & order[i]))
			continue;
		if (end - p < 8)
			return -EINVAL;
		uint64_t v = rd64(p);
		p += 8;
		switch (order[i]) {
		case PERF_SAMPLE_IDENTIFIER: case PERF_SAMPLE_ID: s->id = v; break;
		case PERF_SAMPLE_IP: s->ip = v; break;
		case PERF_SAMPLE_TID: s->pid = (uint32_t)v; s->tid = (uint32_t)(v >> 32); break;
		case PERF_SAMPLE_TIME: s->time = v; break;
		case PERF_SAMPLE_CPU: s->cpu = (uint32_t)v; break;
		case PERF_SAMPLE_PERIOD: s->period = v; break;
		default: break;
		}
	}
	return decode_tail(p, end, a, s);
}

uint64_t pp_sample_chain(const struct pp_sample *s, uint64_t i)
{
	return rd64(s->chain + 8 * i);
}

uint64_t pp_sample_reg(const struct pp_sample *s, unsigned reg)
{
	if (!s->regs || reg >= 64 || !(s->regs_mask >> reg & 1))
		return 0;
	unsigned idx = (unsigned)__builtin_popcountll(s->regs_mask & ((1ull << reg) - 1));
	return rd64(s->regs + 8 * idx);
}
