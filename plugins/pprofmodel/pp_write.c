/* Packing the profile with protobuf-c and gzip; see pp_write.h. */
#include <perfsink/pprof_model.h>
#include "profile.pb-c.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* Everything the message points into, freed together. */
struct msg {
	Profile pr;
	ValueType *vt, period;
	ValueType **vtp;
	Sample *s, **sp;
	Label *lab, **labp;
	uint64_t *locids;
	Mapping *m, **mp;
	Location *l, **lp;
	Line *ln, **lnp;
	Function *f, **fp;
	char **strs;
};

static void msg_free(struct msg *m)
{
	free(m->vt); free(m->vtp); free(m->s); free(m->sp); free(m->lab); free(m->labp);
	free(m->locids); free(m->m); free(m->mp); free(m->l); free(m->lp); free(m->ln);
	free(m->lnp); free(m->f); free(m->fp); free(m->strs);
}

static int fill_tables(struct msg *m, const struct pp_profile *p)
{
	m->pr.n_mapping = p->maps.n;
	m->pr.n_function = p->funcs.n;
	m->pr.n_location = p->locs.n;
	m->pr.n_string_table = p->strs.n;
	m->m = calloc(p->maps.n + 1, sizeof(*m->m));
	m->mp = calloc(p->maps.n + 1, sizeof(*m->mp));
	m->f = calloc(p->funcs.n + 1, sizeof(*m->f));
	m->fp = calloc(p->funcs.n + 1, sizeof(*m->fp));
	m->l = calloc(p->locs.n + 1, sizeof(*m->l));
	m->lp = calloc(p->locs.n + 1, sizeof(*m->lp));
	m->ln = calloc(p->nlines + 1, sizeof(*m->ln));
	m->lnp = calloc(p->nlines + 1, sizeof(*m->lnp));
	m->strs = calloc(p->strs.n + 1, sizeof(*m->strs));
	if (!m->m || !m->mp || !m->f || !m->fp || !m->l || !m->lp || !m->ln || !m->lnp || !m->strs)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->maps.n; i++) {
		const struct pp_mapping *x = &p->map[i];
		perftools__profiles__mapping__init(&m->m[i]);
		m->m[i] = (Mapping){ m->m[i].base, i + 1, x->start, x->limit, x->offset, x->file,
				     x->build_id, 0, x->has_lines, x->has_lines, 0 };
		m->mp[i] = &m->m[i];
	}
	/* has_functions when its locations are named: a profile left for the
	 * backend to symbolize (the pprof sink's symbolize = none) says it is not. */
	for (uint32_t i = 0; i < p->locs.n; i++)
		if (p->loc[i].mapping_id && p->loc[i].nlines)
			m->m[p->loc[i].mapping_id - 1].has_functions = 1;
	for (uint32_t i = 0; i < p->funcs.n; i++) {
		perftools__profiles__function__init(&m->f[i]);
		m->f[i].id = i + 1;
		m->f[i].name = p->func[i].name;
		m->f[i].system_name = p->func[i].system_name;
		m->f[i].filename = p->func[i].file;
		m->fp[i] = &m->f[i];
	}
	for (uint32_t i = 0; i < p->nlines; i++) {
		perftools__profiles__line__init(&m->ln[i]);
		m->ln[i].function_id = p->lines[i].function_id;
		m->ln[i].line = p->lines[i].line;
		m->lnp[i] = &m->ln[i];
	}
	for (uint32_t i = 0; i < p->locs.n; i++) {
		perftools__profiles__location__init(&m->l[i]);
		m->l[i].id = i + 1;
		m->l[i].mapping_id = p->loc[i].mapping_id;
		m->l[i].address = p->loc[i].address;
		m->l[i].n_line = p->loc[i].nlines;
		m->l[i].line = m->lnp + p->loc[i].line0;
		m->lp[i] = &m->l[i];
	}
	for (uint32_t i = 0; i < p->strs.n; i++)
		m->strs[i] = (char *)pp_string_at(p, i);
	m->pr.mapping = m->mp;
	m->pr.function = m->fp;
	m->pr.location = m->lp;
	m->pr.string_table = m->strs;
	return 0;
}

/* The samples: one array of location ids and one of labels for all. */
static int fill_samples(struct msg *m, const struct pp_profile *p)
{
	size_t nloc = 0, nlab = 0;
	struct pp_sample_view v;
	for (uint32_t i = 0; i < p->samples.n; i++) {
		pp_sample_get(p, i, NULL, NULL, &v);
		nloc += v.nlocs;
		nlab += v.nlabels;
	}
	m->s = calloc(p->samples.n + 1, sizeof(*m->s));
	m->sp = calloc(p->samples.n + 1, sizeof(*m->sp));
	m->locids = calloc(nloc + 1, sizeof(*m->locids));
	m->lab = calloc(nlab + 1, sizeof(*m->lab));
	m->labp = calloc(nlab + 1, sizeof(*m->labp));
	int64_t (*raw)[3] = calloc(nlab + 1, sizeof(*raw));
	if (!m->s || !m->sp || !m->locids || !m->lab || !m->labp || !raw) {
		free(raw);
		return -ENOMEM;
	}
	size_t lo = 0, la = 0;
	for (uint32_t i = 0; i < p->samples.n; i++) {
		Sample *s = &m->s[i];
		perftools__profiles__sample__init(s);
		pp_sample_get(p, i, m->locids + lo, raw + la, &v);
		s->n_location_id = v.nlocs;
		s->location_id = m->locids + lo;
		s->n_value = p->nvalues;
		s->value = (int64_t *)v.values;
		s->n_label = v.nlabels;
		s->label = m->labp + la;
		for (unsigned j = 0; j < v.nlabels; j++, la++) {
			perftools__profiles__label__init(&m->lab[la]);
			m->lab[la].key = raw[la][0];
			if (raw[la][1] >= 0)
				m->lab[la].str = raw[la][1];
			else
				m->lab[la].num = raw[la][2];
			m->labp[la] = &m->lab[la];
		}
		lo += v.nlocs;
		m->sp[i] = s;
	}
	free(raw);
	m->pr.n_sample = p->samples.n;
	m->pr.sample = m->sp;
	return 0;
}

static int fill(struct msg *m, const struct pp_profile *p)
{
	perftools__profiles__profile__init(&m->pr);
	m->vt = calloc(p->nvalues + 1, sizeof(*m->vt));
	m->vtp = calloc(p->nvalues + 1, sizeof(*m->vtp));
	if (!m->vt || !m->vtp)
		return -ENOMEM;
	for (unsigned i = 0; i < p->nvalues; i++) {
		perftools__profiles__value_type__init(&m->vt[i]);
		m->vt[i].type = p->vtype[i][0];
		m->vt[i].unit = p->vtype[i][1];
		m->vtp[i] = &m->vt[i];
	}
	m->pr.n_sample_type = p->nvalues;
	m->pr.sample_type = m->vtp;
	perftools__profiles__value_type__init(&m->period);
	m->period.type = p->period_type[0];
	m->period.unit = p->period_type[1];
	m->pr.period_type = &m->period;
	m->pr.period = p->period;
	m->pr.time_nanos = p->time_nanos;
	m->pr.duration_nanos = p->duration_nanos;
	m->pr.n_comment = p->ncomments;
	m->pr.comment = (int64_t *)p->comment;
	int rc = fill_tables(m, p);
	return rc ? rc : fill_samples(m, p);
}

/* gzip (zlib's deflate with a gzip wrapper) of n bytes to out. */
static int gzip_out(const uint8_t *buf, size_t n, FILE *out)
{
	z_stream z;
	uint8_t chunk[1 << 16];
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	int rc = 0, zr = Z_OK;
	z.next_in = (uint8_t *)buf;
	while (!rc && zr != Z_STREAM_END) {
		uInt in = n > (1u << 30) ? 1u << 30 : (uInt)n;
		z.avail_in = in;
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, in == n ? Z_FINISH : Z_NO_FLUSH);
		n -= in - z.avail_in;
		if (zr == Z_STREAM_ERROR)
			rc = -EIO;
		else if (fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out) != sizeof(chunk) - z.avail_out)
			rc = -EIO;
	}
	deflateEnd(&z);
	return rc;
}

int pp_write(const struct pp_profile *p, FILE *out)
{
	struct msg m;
	memset(&m, 0, sizeof(m));
	int rc = fill(&m, p);
	if (!rc) {
		size_t n = perftools__profiles__profile__get_packed_size(&m.pr);
		uint8_t *buf = malloc(n ? n : 1);
		if (!buf)
			rc = -ENOMEM;
		else if (perftools__profiles__profile__pack(&m.pr, buf) != n)
			rc = -EIO;
		else
			rc = gzip_out(buf, n, out);
		free(buf);
	}
	msg_free(&m);
	return rc;
}
