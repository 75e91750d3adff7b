/* A file sink's open() from its key table; see kit.h (perfsink_kit_fsink_open_keys). */
#include <stdlib.h>
#include <perfsink/kit.h>

int perfsink_kit_fsink_open_keys(const struct perfsink_instance *inst,
				 const struct perfsink_key *keys,
				 const struct perfsink_kit_key_map *map,
				 const struct perfsink_kit_fsink_keys *fkeys,
				 const struct perfsink_kit_writer_ops *wops, void *conf,
				 struct perfsink_kit_fsink **out)
{
	const struct perfsink_value *v = inst->values;
	int r = perfsink_kit_conf_fill(keys, v, map, conf);
	struct perfsink_kit_fsink_config cfg = {
		.path = v[fkeys->path].str, .path_key = fkeys->path,
		.fsync = v[fkeys->fsync].num != 0, .direct = v[fkeys->direct].num != 0,
		.wops = wops, .wctx = conf,
	};
	if (r == 0)
		r = perfsink_kit_fsink_open(inst, &cfg, out);
	if (r < 0)
		free(conf);
	return r;
}
