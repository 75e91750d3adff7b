/*
 * The profile model (pprof/pp_profile.h, what perfsink pprof writes) as a
 * frame tree: each sample's stack, inline frames expanded (outermost
 * first), every frame given its kind from its mapping and name.  The only
 * file of src/flame that knows the model.
 */
#ifndef PS_FLAME_MODEL_H
#define PS_FLAME_MODEL_H
#include "flame/flame_tree.h"

struct pp_profile;

/* The kind of a frame of mapping file (NULL: no mapping) named name, by
 * its mapping first: kernel for the kernel's, JIT for anonymous and JIT
 * maps (perf map, jitdump's jitted-*.so, memfd), named or not; then
 * unknown when nothing named it ("[unknown]"), user otherwise. */
enum flame_kind flame_kind_of(const char *file, const char *name);

/* Merge every sample of prof into t (made by flame_tree_init), weighted by
 * value vi; reverse: leaf first (the callers' view).  0, -ENOMEM, -E2BIG,
 * -EINVAL (vi past the value types). */
int flame_from_profile(const struct pp_profile *prof, unsigned vi, int reverse, struct flame_tree *t);

#endif
