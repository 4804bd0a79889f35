/* model_int.h - model internals for the command (internal, not part of the API). */
#ifndef ETPROF_MODEL_INT_H
#define ETPROF_MODEL_INT_H

#include "etprof.h"

/* For a caller that reads only the events, their kinds, pairing and instructions (etprof info):
 * etp_model_block() then leaves every event's unit, value, flags and QNN class unset
 * (ETP_UNIT_NONE, NaN, 0, ETP_QNN_NONE) instead of deciding them. */
void etp__model_skip_units(etp_model *m, bool skip);

/* Frees the per-block scratch (the events of the last block decoded: its view becomes
 * invalid); the next etp_model_block() allocates it again. For a caller done with the blocks
 * that goes on allocating (the analyses build their rows after the pass), so that the largest
 * block's events and the rows are not both held at the peak. */
void etp__model_release_scratch(etp_model *m);

#endif
