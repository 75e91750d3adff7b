/* Filling a sink's config struct from its key table; see perfsink/kit.h. */
#include <errno.h>
#include <string.h>
#include <perfsink/kit.h>

static int key_is_text(enum perfsink_key_type t)
{
	return t == PERFSINK_KEY_STRING || t == PERFSINK_KEY_PATH;
}

/* Whether v fits a field of size bytes, read as signed or as unsigned. */
static int fits(int64_t v, size_t size)
{
	int64_t lo, hi;

	if (size >= sizeof(int64_t))
		return 1;
	lo = -((int64_t)1 << (8 * size - 1));
	hi = ((int64_t)1 << (8 * size)) - 1;
	return v >= lo && v <= hi;
}

static void store_num(void *field, size_t size, int64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (size) {
	case 1: memcpy(field, &u8, 1); break;
	case 2: memcpy(field, &u16, 2); break;
	case 4: memcpy(field, &u32, 4); break;
	default: memcpy(field, &v, 8); break;
	}
}

static int fill_one(const struct perfsink_key *key, const struct perfsink_value *v,
		    const struct perfsink_kit_key_map *m, uint8_t *conf)
{
	if (key_is_text(key->type)) {
		if (m->size != sizeof(const char *))
			return -EINVAL;
		memcpy(conf + m->offset, &v->str, sizeof(v->str));
		return 0;
	}
	if (m->size != 1 && m->size != 2 && m->size != 4 && m->size != 8)
		return -EINVAL;
	if (!fits(v->num, m->size))
		return -ERANGE;
	store_num(conf + m->offset, m->size, v->num);
	return 0;
}

int perfsink_kit_conf_fill(const struct perfsink_key *keys, const struct perfsink_value *values,
			   const struct perfsink_kit_key_map *map, void *conf)
{
	size_t nr_keys = 0;

	while (keys[nr_keys].name)
		nr_keys++;
	for (; map->size; map++) {
		int err;

		if (map->key >= nr_keys)
			return -EINVAL;
		err = fill_one(&keys[map->key], &values[map->key], map, conf);
		if (err)
			return err;
	}
	return 0;
}
