/* model_int.h - model internals for the command (internal, not part of the API). */
#ifndef ETPROF_MODEL_INT_H
#define ETPROF_MODEL_INT_H

#include "etprof.h"

/* Frees the per-block scratch (the events of the last block decoded: its view becomes
 * invalid); the next etp_model_block() allocates it again. For a caller done with the blocks
 * that goes on allocating (the analyses build their rows after the pass), so that the largest
 * block's events and the rows are not both held at the peak. */
void etp__model_release_scratch(etp_model *m);

#endif
