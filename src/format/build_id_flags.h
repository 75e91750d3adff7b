/*
 * What perfsink record says in a BUILD_ID entry beyond perf's fields, in
 * bytes of its 24-byte id that perf reserves, ignores and writes 0
 * (struct perf_record_header_build_id: data[20], size, reserved1__,
 * reserved2__).  Written by probe/dso_set.c, read by fetch (and by the
 * kit for sinks, perfsink_kit_build_id.sampled).
 */
#ifndef PS_BUILD_ID_FLAGS_H
#define PS_BUILD_ID_FLAGS_H

/*
 * Byte 21: DSO_SAMPLED when a sample's ip or a frame of its call chain
 * fell in that DSO, DSO_MAPPED_ONLY when none did, 0 when hits were not
 * tracked (then a reader must take it as sampled, as a perf file).
 */
#define DSO_HIT_BYTE 21
#define DSO_SAMPLED 1
#define DSO_MAPPED_ONLY 2
/*
 * Byte 22: DSO_HITS_CHAIN when byte 21 counts call chain frames too (and
 * is set); 0 in recordings whose marks were sample ips alone, which a
 * reader that needs the frames' files must check against the samples.
 */
#define DSO_HITS_RULE_BYTE 22
#define DSO_HITS_CHAIN 1

#endif
