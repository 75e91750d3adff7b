/* The profile model; see pp_profile.h. */
#include <perfsink/pprof_model.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Make room for one more of n elements of size sz in *arr (cap in *cap). */
static int room(void *arr, uint32_t n, uint32_t *cap, size_t sz)
{
	void **a = arr;
	if (n < *cap)
		return 0;
	uint32_t c = *cap ? *cap * 2 : 64;
	void *q = realloc(*a, (size_t)c * sz);
	if (!q)
		return -ENOMEM;
	*a = q;
	*cap = c;
	return 0;
}

int pp_profile_init(struct pp_profile *p)
{
	memset(p, 0, sizeof(*p));
	pp_intern_init(&p->strs);
	pp_intern_init(&p->maps);
	pp_intern_init(&p->funcs);
	pp_intern_init(&p->locs);
	pp_intern_init(&p->samples);
	return pp_string(p, "") == 0 ? 0 : -ENOMEM;
}

void pp_profile_free(struct pp_profile *p)
{
	pp_intern_free(&p->strs);
	pp_intern_free(&p->maps);
	pp_intern_free(&p->funcs);
	pp_intern_free(&p->locs);
	pp_intern_free(&p->samples);
	perfsink_kit_buf_free(&p->key);
	free(p->map);
	free(p->func);
	free(p->loc);
	free(p->lines);
	free(p->values);
	memset(p, 0, sizeof(*p));
}

/* Strings are interned with their NUL, so every key has a byte and
 * pp_string_at can hand out the arena's copy as it is. */
int64_t pp_string(struct pp_profile *p, const char *s)
{
	int added;
	return pp_intern(&p->strs, s, strlen(s) + 1, &added);
}

const char *pp_string_at(const struct pp_profile *p, uint64_t i)
{
	size_t n;
	return pp_intern_key(&p->strs, (uint32_t)i, &n);
}

static int vtype(struct pp_profile *p, const char *type, const char *unit, int64_t out[2])
{
	out[0] = pp_string(p, type);
	out[1] = pp_string(p, unit);
	return out[0] < 0 || out[1] < 0 ? -ENOMEM : 0;
}

/* Give every sample row one more value (0): a value type added late. */
static int widen(struct pp_profile *p)
{
	size_t rows = p->samples.n, w = p->nvalues;
	if (!rows)
		return 0;
	int64_t *v = malloc(p->cap_values * (w + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < rows; i++) {
		memcpy(v + i * (w + 1), p->values + i * w, w * sizeof(*v));
		v[i * (w + 1) + w] = 0;
	}
	free(p->values);
	p->values = v;
	return 0;
}

int pp_value_type(struct pp_profile *p, const char *type, const char *unit)
{
	if (p->nvalues == PP_MAX_VALUES)
		return -E2BIG;
	int rc = vtype(p, type, unit, p->vtype[p->nvalues]);
	if (!rc)
		rc = widen(p);
	return rc ? rc : (int)p->nvalues++;
}

int pp_period(struct pp_profile *p, const char *type, const char *unit, int64_t period)
{
	p->period = period;
	return vtype(p, type, unit, p->period_type);
}

int pp_comment(struct pp_profile *p, const char *text)
{
	if (p->ncomments == sizeof(p->comment) / sizeof(p->comment[0]))
		return -E2BIG;
	int64_t s = pp_string(p, text);
	if (s < 0)
		return (int)s;
	p->comment[p->ncomments++] = s;
	return 0;
}

int64_t pp_mapping(struct pp_profile *p, uint64_t start, uint64_t limit, uint64_t offset,
		   const char *file, const char *build_id)
{
	struct pp_mapping m = { start, limit, offset, pp_string(p, file ? file : ""),
				pp_string(p, build_id ? build_id : ""), 0 };
	int added;
	if (m.file < 0 || m.build_id < 0)
		return -ENOMEM;
	/* The key: the fields that make two mappings the same one. */
	int64_t i = pp_intern(&p->maps, &m, offsetof(struct pp_mapping, has_lines), &added);
	if (i < 0 || (added && room(&p->map, (uint32_t)i, &p->cap_map, sizeof(m))))
		return -ENOMEM;
	if (added)
		p->map[i] = m;
	return i + 1;
}

int64_t pp_function(struct pp_profile *p, const char *name, const char *system_name, const char *file)
{
	struct pp_function f = { pp_string(p, name), pp_string(p, system_name ? system_name : name),
				 pp_string(p, file ? file : "") };
	int added;
	if (f.name < 0 || f.system_name < 0 || f.file < 0)
		return -ENOMEM;
	int64_t i = pp_intern(&p->funcs, &f, sizeof(f), &added);
	if (i < 0 || (added && room(&p->func, (uint32_t)i, &p->cap_func, sizeof(f))))
		return -ENOMEM;
	if (added)
		p->func[i] = f;
	return i + 1;
}

uint64_t pp_location_find(const struct pp_profile *p, uint64_t mapping_id, uint64_t address)
{
	uint64_t k[2] = { mapping_id, address };
	int64_t i = pp_intern_find(&p->locs, k, sizeof(k));
	return i < 0 ? 0 : (uint64_t)i + 1;
}

int64_t pp_location_add(struct pp_profile *p, uint64_t mapping_id, uint64_t address,
			const struct pp_line *lines, unsigned nlines)
{
	uint64_t k[2] = { mapping_id, address };
	int added;
	int64_t i = pp_intern(&p->locs, k, sizeof(k), &added);
	if (i < 0 || !added)
		return i < 0 ? i : i + 1;
	if (room(&p->loc, (uint32_t)i, &p->cap_loc, sizeof(*p->loc)))
		return -ENOMEM;
	p->loc[i] = (struct pp_location){ mapping_id, address, p->nlines, 0 };
	int rc = pp_location_set_lines(p, (uint64_t)i + 1, lines, nlines);
	return rc ? rc : i + 1;
}

int pp_location_set_lines(struct pp_profile *p, uint64_t id, const struct pp_line *lines, unsigned nlines)
{
	struct pp_location *l = &p->loc[id - 1];
	if (l->nlines)
		return 0;
	l->line0 = p->nlines;
	for (unsigned j = 0; j < nlines; j++) {
		if (room(&p->lines, p->nlines, &p->cap_lines, sizeof(*p->lines)))
			return -ENOMEM;
		p->lines[p->nlines++] = lines[j];
		l->nlines++;
		if (lines[j].line && l->mapping_id)
			p->map[l->mapping_id - 1].has_lines = 1;
	}
	return 0;
}

/* The sample key: nlocs, nlabels (u32 each), the location ids, then each
 * label as key, str (-1: a number), num. */
static int sample_key(struct pp_profile *p, const uint64_t *loc_ids, unsigned nlocs,
		      const struct pp_label *labels, unsigned nlabels)
{
	struct perfsink_kit_buf *k = &p->key;
	uint32_t head[2] = { nlocs, nlabels };
	perfsink_kit_buf_reset(k);
	if (perfsink_kit_buf_append(k, head, sizeof(head)) ||
	    (nlocs && perfsink_kit_buf_append(k, loc_ids, nlocs * sizeof(*loc_ids))))
		return -ENOMEM;
	for (unsigned i = 0; i < nlabels; i++) {
		int64_t key = pp_string(p, labels[i].key);
		int64_t str = labels[i].str ? pp_string(p, labels[i].str) : -1;
		if (key < 0 || (labels[i].str && str < 0))
			return -ENOMEM;
		uint64_t l[3] = { (uint64_t)key, (uint64_t)str,
				  (uint64_t)(labels[i].str ? 0 : labels[i].num) };
		if (perfsink_kit_buf_append(k, l, sizeof(l)))
			return -ENOMEM;
	}
	return 0;
}

int pp_sample_add(struct pp_profile *p, const uint64_t *loc_ids, unsigned nlocs,
		  const struct pp_label *labels, unsigned nlabels, const int64_t *values)
{
	int added;
	if (!p->nvalues)
		return -EINVAL;
	if (sample_key(p, loc_ids, nlocs, labels, nlabels))
		return -ENOMEM;
	int64_t i = pp_intern(&p->samples, p->key.data, p->key.len, &added);
	if (i < 0)
		return (int)i;
	if ((size_t)i >= p->cap_values) {
		size_t cap = p->cap_values ? p->cap_values * 2 : 256;
		int64_t *v = realloc(p->values, cap * p->nvalues * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->values = v;
		p->cap_values = cap;
	}
	int64_t *row = p->values + (size_t)i * p->nvalues;
	for (unsigned j = 0; j < p->nvalues; j++)
		row[j] = (added ? 0 : row[j]) + values[j];
	return 0;
}

void pp_sample_get(const struct pp_profile *p, uint32_t i, uint64_t *locs, int64_t (*lab)[3],
		   struct pp_sample_view *v)
{
	size_t n;
	const uint8_t *k = pp_intern_key(&p->samples, i, &n);
	uint32_t nl, nb;
	memcpy(&nl, k, 4);
	memcpy(&nb, k + 4, 4);
	v->nlocs = nl;
	v->nlabels = nb;
	v->loc_ids = locs;
	v->values = p->values + (size_t)i * p->nvalues;
	if (!locs)
		return;
	memcpy(locs, k + 8, (size_t)nl * 8);
	if (lab)
		memcpy(lab, k + 8 + (size_t)nl * 8, (size_t)nb * 24);
}

/* One table's memory: its arena and its per-key arrays and slots. */
static size_t intern_bytes(const struct pp_intern *t)
{
	return t->arena.cap + (size_t)t->cap * (sizeof(*t->off) + sizeof(*t->len) + sizeof(*t->hv)) +
	       (size_t)t->nslot * sizeof(*t->slot);
}

size_t pp_profile_bytes(const struct pp_profile *p)
{
	return intern_bytes(&p->strs) + intern_bytes(&p->maps) + intern_bytes(&p->funcs) +
	       intern_bytes(&p->locs) + intern_bytes(&p->samples) + p->key.cap +
	       (size_t)p->cap_map * sizeof(*p->map) + (size_t)p->cap_func * sizeof(*p->func) +
	       (size_t)p->cap_loc * sizeof(*p->loc) + (size_t)p->cap_lines * sizeof(*p->lines) +
	       p->cap_values * p->nvalues * sizeof(*p->values);
}
