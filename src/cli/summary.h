/* The end-of-record summary on stderr (log.h levels), from the engine's report. */
#ifndef PS_SUMMARY_H
#define PS_SUMMARY_H
#include <stdint.h>
#include "engine/engine.h"

/* A record_report_fn: the headline, the losses with a tuning hint, one line per sink. */
void summary_print(const struct record_report *r);
/* What the headline counts as written: samples minus the worst failed sink's loss. */
uint64_t summary_samples_written(const struct record_report *r);

#endif
