/* model_int.h - model internals for the command (internal, not part of the API). */
#ifndef ETPROF_MODEL_INT_H
#define ETPROF_MODEL_INT_H

#include "etprof.h"
#include "membudget.h"

/* Frees the per-block scratch (the events of the last block decoded: its view becomes
 * invalid); the next etp_model_block() allocates it again. For a caller done with the blocks
 * that goes on allocating (the analyses build their rows after the pass), so that the largest
 * block's events and the rows are not both held at the peak. */
void etp__model_release_scratch(etp_model *m);

/* The process's memory budget (docs/verifier.md "Memory", src/base/membudget.h): what the model
 * and the analyses materialise (the events of the block being decoded, the rows of every live
 * etp_ops_result) is charged against one budget for the whole process. */
/* Charged per event of the block being decoded on top of the model's scratch (the commands'
 * own per-event state: trace's writer, the events table that aligns every row), and per row of
 * an etp_ops_result (its accumulator, strings, samples and hash, plus what the commands build
 * from it: the document's cells, the table output, diff's matched rows). Measured:
 * docs/verifier.md "Memory". */
#define ETP_MEM_PER_EVENT 352u
#define ETP_MEM_PER_ROW 1664u
#define ETP_MEM_ROW_CHUNK 64u /* rows charged at a time */
/* Bytes charged per event on top of the scratch (default ETP_MEM_PER_EVENT): an analysis that
 * keeps little per event beyond the rows it charges itself (etp_ops_compute) sets its own for
 * its pass and ETP_MEM_PER_EVENT after it. */
void etp__model_set_event_charge(etp_model *m, uint32_t bytes);
/* This model reads blocks from `from` on and verifies them itself, just before it reads each:
 * after etp__dump_split_begin(dump, from) returned true (etdump_int.h). */
void etp__model_set_split(etp_model *m, uint32_t from);
/* This model verifies the blocks it reads before a split itself (etp__dump_take_first). */
void etp__model_set_taken(etp_model *m, bool taken);
/* The located error of an analysis whose rows went over the budget at event `index` of block
 * `block`: `rows` rows, `held` bytes charged in all (etp__mem_take). */
void etp__model_budget_error(const etp_model *m, uint32_t block, uint32_t index, uint64_t rows,
                             uint64_t budget, uint64_t held, etp_error *err);

/* When the last etp_model_block() call read its block as a replica (src/model.c, "Repeated
 * runs") of the block of the call before it: that block, whose events then had the same kinds,
 * labels, instructions, parents and units, in the same order. UINT32_MAX otherwise (a replica
 * one of whose events has another unit than in the block before included: a start time of 0
 * decides some units). */
uint32_t etp__model_repeat_of(const etp_model *m);

/* A second model of the same dump, program and options (its own scratch and caches), for a
 * worker that decodes other blocks on another thread. */
int etp__model_clone(const etp_model *m, etp_model **out, etp_error *err);
/* Adds what `later` counted (program mismatches) over blocks that all come after those of m. */
void etp__model_absorb(etp_model *m, const etp_model *later);

#endif
