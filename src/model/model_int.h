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
/* Charged per block by etp_census_compute (its record, and `info --format json`'s entry for the
 * block) and per run by etp_runs_compute (its row, backends and QNN figures, and the runs
 * table's document: about 2.4 KB a run measured on 2^16 runs), held until the result is freed:
 * per-run state that a dump whose run_data entries share one RunData table (4 bytes of file a
 * run) could otherwise grow past any multiple of the file (docs/verifier.md "Memory"). */
#define ETP_MEM_PER_BLOCK 2048u
#define ETP_MEM_PER_RUN 2560u
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

/* The dump's file name for errors (etp_model_opts.dump_name). */
const char *etp__model_dump_name(const etp_model *m);
/* Charges `n` items (blocks or runs) of `per` bytes each against the budget (held until given
 * back with etp__mem_give(n * per)): ETP_OK, or ETP_E_INPUT with the located error at the item
 * where the charge passes the budget: `block_of(ctx, k)` gives the block of item k. */
int etp__budget_blocks(const etp_dump *d, const char *name, uint64_t n, uint32_t per,
                       const char *what, uint32_t (*block_of)(const void *ctx, uint64_t k),
                       const void *ctx, etp_error *err);

/* When the last etp_model_block() call read its block as a replica (src/model/model.c, "Repeated
 * runs") of the block of the call before it: that block, whose events then had the same kinds,
 * labels, instructions, parents and units, in the same order. UINT32_MAX otherwise (a replica
 * one of whose events has another unit than in the block before included: a start time of 0
 * decides some units). */
uint32_t etp__model_repeat_of(const etp_model *m);
/* ns per host tick the model reads host times at (etp_model_opts.tick_ns; 0: ticks). */
double etp__model_tick_ns(const etp_model *m);

/* A second model of the same dump, program and options (its own scratch and caches), for a
 * worker that decodes other blocks on another thread. */
int etp__model_clone(const etp_model *m, etp_model **out, etp_error *err);
/* Adds what `later` counted (program mismatches) over blocks that all come after those of m. */
void etp__model_absorb(etp_model *m, const etp_model *later);

#endif
