/*
 * BPF programs through raw bpf(2): BPF_PROG_GET_NEXT_ID, GET_FD_BY_ID and
 * OBJ_GET_INFO_BY_FD, as perf 6.1's perf_event__synthesize_bpf_events and
 * get_bpf_prog_info_linear do it, so BPF_PROG_INFO holds the same
 * perf_bpil and the KSYMBOL names are the ones perf gives.
 */
#include <config.h>

#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "format/record.h"
#include "probe/bpf_progs.h"

/* sizeof(struct bpf_prog_info) in perf 6.1's headers: what its files carry. */
#define PERF61_INFO_LEN 232
_Static_assert(sizeof(struct bpf_prog_info) >= PERF61_INFO_LEN, "bpf_prog_info too old");

/* perf's struct perf_bpil: u32 info_len, u32 data_len, u64 arrays, info, data. */
#define BPIL_HEAD 16
#define BPIL_DATA (BPIL_HEAD + PERF61_INFO_LEN)

/*
 * perf's bpil_array_desc for the arrays perf 6.1 asks for (JITED_INSNS,
 * JITED_KSYMS, JITED_FUNC_LENS, FUNC_INFO, LINE_INFO, JITED_LINE_INFO,
 * PROG_TAGS): where the pointer and the count are, and the record size
 * (fixed, or the offset of the field holding it).
 */
struct array_desc {
	int bit;
	size_t ptr, count;
	size_t size_field; /* 0: fixed size */
	uint32_t fixed;
};

#define OFF(f) offsetof(struct bpf_prog_info, f)
static const struct array_desc arrays[] = {
	{ 0, OFF(jited_prog_insns), OFF(jited_prog_len), 0, 1 },
	{ 3, OFF(jited_ksyms), OFF(nr_jited_ksyms), 0, 8 },
	{ 4, OFF(jited_func_lens), OFF(nr_jited_func_lens), 0, 4 },
	{ 5, OFF(func_info), OFF(nr_func_info), OFF(func_info_rec_size), 0 },
	{ 6, OFF(line_info), OFF(nr_line_info), OFF(line_info_rec_size), 0 },
	{ 7, OFF(jited_line_info), OFF(nr_jited_line_info), OFF(jited_line_info_rec_size), 0 },
	{ 8, OFF(prog_tags), OFF(nr_prog_tags), 0, BPF_TAG_SIZE },
};
#define NR_ARRAYS (sizeof(arrays) / sizeof(arrays[0]))

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static uint32_t get32(const void *info, size_t off)
{
	uint32_t v;
	memcpy(&v, (const uint8_t *)info + off, sizeof(v));
	return v;
}

static void put32(void *info, size_t off, uint32_t v)
{
	memcpy((uint8_t *)info + off, &v, sizeof(v));
}

static void put64(void *info, size_t off, uint64_t v)
{
	memcpy((uint8_t *)info + off, &v, sizeof(v));
}

static uint64_t get64(const void *info, size_t off)
{
	uint64_t v;
	memcpy(&v, (const uint8_t *)info + off, sizeof(v));
	return v;
}

static int info_by_fd(int fd, void *info, uint32_t len)
{
	union bpf_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)fd;
	attr.info.info_len = len;
	attr.info.info = (uint64_t)(uintptr_t)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0 ? -errno : 0;
}

static uint32_t array_size(const struct array_desc *d, const void *info)
{
	return d->size_field ? get32(info, d->size_field) : d->fixed;
}

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/*
 * perf's get_bpf_prog_info_linear, then bpil_addr_to_offs: the bpil as it
 * goes in the file, array pointers turned into offsets into data.  In
 * *bpil (malloc'd); the info (with pointers) is left in info_out.
 */
static int prog_bpil(int fd, uint8_t **bpil, size_t *len, struct bpf_prog_info *info_out)
{
	struct bpf_prog_info first;
	memset(&first, 0, sizeof(first));
	int r = info_by_fd(fd, &first, PERF61_INFO_LEN);
	if (r < 0)
		return r;
	size_t data_len = 0;
	for (size_t i = 0; i < NR_ARRAYS; i++)
		data_len += round8((size_t)get32(&first, arrays[i].count) * array_size(&arrays[i], &first));
	uint8_t *p = calloc(1, BPIL_DATA + data_len);
	if (!p)
		return -ENOMEM;
	uint8_t *info = p + BPIL_HEAD, *data = p + BPIL_DATA;
	uint64_t mask = 0;
	size_t off = 0;
	for (size_t i = 0; i < NR_ARRAYS; i++) {
		const struct array_desc *d = &arrays[i];
		uint32_t count = get32(&first, d->count), size = array_size(d, &first);
		put32(info, d->count, count);
		if (d->size_field)
			put32(info, d->size_field, size);
		put64(info, d->ptr, (uint64_t)(uintptr_t)(data + off));
		off += round8((size_t)count * size);
		mask |= 1ULL << d->bit;
	}
	if ((r = info_by_fd(fd, info, PERF61_INFO_LEN)) < 0) {
		free(p);
		return r;
	}
	memset(info_out, 0, sizeof(*info_out));
	memcpy(info_out, info, PERF61_INFO_LEN);
	for (size_t i = 0; i < NR_ARRAYS; i++)
		put64(info, arrays[i].ptr, get64(info, arrays[i].ptr) - (uint64_t)(uintptr_t)data);
	put32(p, 0, PERF61_INFO_LEN);
	put32(p, 4, (uint32_t)data_len);
	put64(p, 8, mask);
	*bpil = p;
	*len = BPIL_DATA + data_len;
	return 0;
}

/* ------------------------------------------------------------ BTF */

static bool has_btf(const struct ps_bpf_info *in, uint32_t id)
{
	for (uint32_t i = 0; i < in->nr_btfs; i++)
		if (in->btfs[i].id == id)
			return true;
	return false;
}

/* The raw bytes of BTF object id; 0 also when it is gone (perf then has none either). */
static int btf_add(struct ps_bpf_info *in, uint32_t id)
{
	if (!id || has_btf(in, id))
		return 0;
	union bpf_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.btf_id = id;
	int fd = (int)sys_bpf(BPF_BTF_GET_FD_BY_ID, &attr);
	if (fd < 0)
		return 0;
	struct bpf_btf_info bi;
	memset(&bi, 0, sizeof(bi));
	int r = info_by_fd(fd, &bi, sizeof(bi));
	uint8_t *data = r == 0 && bi.btf_size ? malloc(bi.btf_size) : NULL;
	uint32_t size = bi.btf_size;
	memset(&bi, 0, sizeof(bi));
	bi.btf = (uint64_t)(uintptr_t)data;
	bi.btf_size = size;
	if (!data || info_by_fd(fd, &bi, sizeof(bi)) < 0) {
		free(data);
		close(fd);
		return r == 0 && size && !data ? -ENOMEM : 0;
	}
	close(fd);
	struct ps_bpf_btf *v = realloc(in->btfs, (in->nr_btfs + 1) * sizeof(*v));
	if (!v) {
		free(data);
		return -ENOMEM;
	}
	in->btfs = v;
	uint32_t i = in->nr_btfs++;
	for (; i > 0 && v[i - 1].id > id; i--)
		v[i] = v[i - 1];
	v[i] = (struct ps_bpf_btf){ .id = id, .data = data, .size = size };
	return 0;
}

static const struct ps_bpf_btf *btf_find(const struct ps_bpf_info *in, uint32_t id)
{
	for (uint32_t i = 0; i < in->nr_btfs; i++)
		if (in->btfs[i].id == id)
			return &in->btfs[i];
	return NULL;
}

/* Bytes that follow a struct btf_type (12 bytes) of this kind and vlen. */
static size_t btf_extra(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case 1: case 14: case 17: return 4;          /* INT, VAR, DECL_TAG */
	case 3: return 12;                           /* ARRAY */
	case 4: case 5: case 15: case 19: return 12 * (size_t)vlen; /* STRUCT, UNION, DATASEC, ENUM64 */
	case 6: case 13: return 8 * (size_t)vlen;    /* ENUM, FUNC_PROTO */
	default: return 0;                           /* PTR, FWD, TYPEDEF, ..., FUNC, FLOAT */
	}
}

/*
 * The name of BTF type id in raw BTF (what btf__name_by_offset gives perf),
 * or NULL when the blob does not have it.
 */
static const char *btf_type_name(const struct ps_bpf_btf *btf, uint32_t type_id)
{
	const uint8_t *p = btf->data;
	if (btf->size < 24 || get32(p, 0) % 65536 != 0xeb9f)
		return NULL;
	uint32_t hdr = get32(p, 4), toff = get32(p, 8), tlen = get32(p, 12);
	uint32_t soff = get32(p, 16), slen = get32(p, 20);
	if ((uint64_t)hdr + toff + tlen > btf->size || (uint64_t)hdr + soff + slen > btf->size)
		return NULL;
	const uint8_t *t = p + hdr + toff, *end = t + tlen;
	for (uint32_t id = 1; t + 12 <= end; id++) {
		uint32_t name_off = get32(t, 0), info = get32(t, 4);
		if (id == type_id) {
			const char *strs = (const char *)p + hdr + soff;
			if (name_off >= slen || !memchr(strs + name_off, '\0', slen - name_off))
				return NULL;
			return strs + name_off;
		}
		t += 12 + btf_extra((info >> 24) & 0x1f, info & 0xffff);
	}
	return NULL;
}

/* ------------------------------------------------------------ records */

/* The BTF name of sub-program sub's function, when the program has BTF function info. */
static const char *btf_func_name(const struct ps_bpf_info *in, const struct bpf_prog_info *info,
				 uint32_t sub)
{
	const struct ps_bpf_btf *btf = info->btf_id ? btf_find(in, info->btf_id) : NULL;
	if (!btf || sub >= info->nr_func_info || info->func_info_rec_size < 8)
		return NULL;
	const uint8_t *fi = (const uint8_t *)(uintptr_t)info->func_info;
	/* struct bpf_func_info: u32 insn_off, u32 type_id */
	return btf_type_name(btf, get32(fi + (size_t)sub * info->func_info_rec_size, 4));
}

/*
 * perf's synthesize_bpf_prog_name: "bpf_prog_<tag>", then "_<function>"
 * from BTF when the program has it, else "_<name>" for a program without
 * sub-programs and "_F" for each sub-program.
 */
static void prog_name(char *out, size_t n, const struct ps_bpf_info *in,
		      const struct bpf_prog_info *info, uint32_t sub)
{
	const uint8_t (*tags)[BPF_TAG_SIZE] = (const void *)(uintptr_t)info->prog_tags;
	int len = snprintf(out, n, "bpf_prog_");
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		len += snprintf(out + len, n - (size_t)len, "%02x", tags[sub][i]);
	const char *fn = btf_func_name(in, info, sub);
	if (fn) {
		snprintf(out + len, n - (size_t)len, "_%s", fn);
	} else if (info->nr_jited_ksyms == 1 && sub == 0) {
		if (info->name[0])
			snprintf(out + len, n - (size_t)len, "_%.*s", (int)sizeof(info->name), info->name);
	} else {
		snprintf(out + len, n - (size_t)len, "_F");
	}
}

static void prog_records(struct bytes *b, const struct ps_events *evs,
			 const struct ps_bpf_info *in, const struct bpf_prog_info *info)
{
	const uint64_t *addrs = (const void *)(uintptr_t)info->jited_ksyms;
	const uint32_t *lens = (const void *)(uintptr_t)info->jited_func_lens;
	char name[256];

	for (uint32_t i = 0; i < info->nr_jited_ksyms; i++) {
		size_t start = record_begin(b, PERF_RECORD_KSYMBOL, 0);
		bytes_u64(b, addrs[i]);
		bytes_u32(b, lens[i]);
		bytes_u16(b, PERF_RECORD_KSYMBOL_TYPE_BPF);
		bytes_u16(b, 0);
		prog_name(name, sizeof(name), in, info, i);
		record_string(b, name);
		record_end(b, start, evs, NULL);
	}
	size_t start = record_begin(b, PERF_RECORD_BPF_EVENT, 0);
	bytes_u16(b, PERF_BPF_EVENT_PROG_LOAD);
	bytes_u16(b, 0);
	bytes_u32(b, info->id);
	bytes_add(b, info->tag, BPF_TAG_SIZE);
	record_end(b, start, evs, NULL);
}

/* ------------------------------------------------------------ programs */

static bool has_prog(const struct ps_bpf_info *in, uint32_t id)
{
	for (uint32_t i = 0; i < in->nr_progs; i++)
		if (in->progs[i].id == id)
			return true;
	return false;
}

static int prog_keep(struct ps_bpf_info *in, uint32_t id, uint8_t *bpil, size_t len)
{
	struct ps_bpf_prog *v = realloc(in->progs, (in->nr_progs + 1) * sizeof(*v));
	if (!v) {
		free(bpil);
		return -ENOMEM;
	}
	in->progs = v;
	uint32_t i = in->nr_progs++;
	for (; i > 0 && v[i - 1].id > id; i--)
		v[i] = v[i - 1];
	v[i] = (struct ps_bpf_prog){ .id = id, .bpil = bpil, .len = len };
	return 0;
}

/* 1: read, 0: gone meanwhile or inconsistent, -errno. */
static int prog_read(struct ps_bpf_info *in, struct bytes *b, const struct ps_events *evs,
		     uint32_t id)
{
	union bpf_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	int fd = (int)sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	uint8_t *bpil;
	size_t len;
	struct bpf_prog_info info;
	int r = prog_bpil(fd, &bpil, &len, &info);
	close(fd);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	/* perf skips a program whose JIT images, tags and lengths disagree */
	if (info.nr_jited_ksyms != info.nr_prog_tags ||
	    info.nr_jited_ksyms != info.nr_jited_func_lens) {
		free(bpil);
		return 0;
	}
	/* perf fetches the BTF of programs with BTF function info only */
	if (info.nr_func_info && info.func_info_rec_size && (r = btf_add(in, info.btf_id)) < 0) {
		free(bpil);
		return r;
	}
	if (b)
		prog_records(b, evs, in, &info);
	if (has_prog(in, id)) {
		free(bpil);
		return 1;
	}
	if ((r = prog_keep(in, id, bpil, len)) < 0)
		return r;
	return 1;
}

int bpf_progs_read(struct ps_bpf_info *info, struct bytes *b, const struct ps_events *evs)
{
	uint32_t id = 0;
	int n = 0;
	for (;;) {
		union bpf_attr attr;
		memset(&attr, 0, sizeof(attr));
		attr.start_id = id;
		if (sys_bpf(BPF_PROG_GET_NEXT_ID, &attr) < 0) {
			if (errno == ENOENT)
				return n;
			return -errno;
		}
		id = attr.next_id;
		if (!b && has_prog(info, id)) {
			n++; /* known: no records wanted, nothing to read again */
			continue;
		}
		int r = prog_read(info, b, evs, id);
		if (r < 0 && r != -EPERM && r != -EACCES)
			return r;
		n += r > 0;
	}
}

void bpf_progs_event(struct ps_bpf_info *info, const void *rec, uint16_t size)
{
	/* header, u16 type, u16 flags, u32 id, u8 tag[8] */
	uint16_t type;
	uint32_t id;
	if (size < sizeof(struct perf_event_header) + 8)
		return;
	memcpy(&type, (const uint8_t *)rec + 8, sizeof(type));
	memcpy(&id, (const uint8_t *)rec + 12, sizeof(id));
	if (type == PERF_BPF_EVENT_PROG_LOAD && !has_prog(info, id))
		prog_read(info, NULL, NULL, id);
}

void bpf_info_free(struct ps_bpf_info *info)
{
	for (uint32_t i = 0; i < info->nr_progs; i++)
		free(info->progs[i].bpil);
	free(info->progs);
	for (uint32_t i = 0; i < info->nr_btfs; i++)
		free(info->btfs[i].data);
	free(info->btfs);
	memset(info, 0, sizeof(*info));
}

bool bpf_bpil_ok(const uint8_t *p, uint64_t len, uint64_t *used)
{
	uint8_t info[PERF61_INFO_LEN];
	uint32_t info_len, data_len;
	uint64_t mask, known = 0;

	if (len < BPIL_HEAD)
		return false;
	info_len = get32(p, 0);
	data_len = get32(p, 4);
	mask = get64(p, 8);
	if (info_len > PERF61_INFO_LEN || BPIL_HEAD + (uint64_t)info_len + data_len > len)
		return false;
	/* perf zeroes what a shorter info lacks */
	memset(info, 0, sizeof(info));
	memcpy(info, p + BPIL_HEAD, info_len);
	for (size_t i = 0; i < NR_ARRAYS; i++) {
		const struct array_desc *d = &arrays[i];
		uint64_t off = get64(info, d->ptr);
		uint64_t need = (uint64_t)get32(info, d->count) * array_size(d, info);
		known |= 1ULL << d->bit;
		if (!(mask & 1ULL << d->bit)) {
			/* perf follows the field anyway: an offset left unconverted is a wild pointer */
			if (need)
				return false;
		} else if (off > data_len || need > data_len - off) {
			return false;
		}
	}
	*used = BPIL_HEAD + (uint64_t)info_len + data_len;
	return !(mask & ~known); /* an array whose layout perf 6.1 keeps to itself */
}
