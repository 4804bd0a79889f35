/* ops_int.h - what the per-run views (runs.c) read of an etp_ops_result beyond the public API
 * (internal): which run each sample of a row belongs to, the per-run child sums, which part of
 * its method a row counts in, and the block of each run. */
#ifndef ETPROF_OPS_INT_H
#define ETPROF_OPS_INT_H

#include "etprof.h"
#include "etprof_qnn.h"

#include <stdbool.h>

/* The run (0-based index among its method's runs kept) of sample k of row i (k < row->runs). */
uint32_t etp__ops_sample_run(const etp_ops_result *r, size_t i, uint32_t k);
/* Sample k of row i minus its exclusive part: the sum of its children of the same unit in that
 * run (0 when none; what etp_ops_children_stats() summarises). */
double etp__ops_sample_child(const etp_ops_result *r, size_t i, uint32_t k);
/* The index in its method's etp_ops_method.parts[] of the part row i counts in (the rows whose
 * totals make that part's total), -1 when it counts in none (the framework part is the rest). */
int32_t etp__ops_row_part(const etp_ops_result *r, size_t i);
/* The dump's block index of each run kept of method `m` (etp_ops_method.runs entries). */
const uint32_t *etp__ops_run_blocks(const etp_ops_result *r, size_t m);

/* The dump the result was computed from and its file name (for a located error: runs.c), or
 * NULL when it was not computed from a model. Only read while that dump is open. */
const etp_dump *etp__ops_dump(const etp_ops_result *r);
const char *etp__ops_dump_name(const etp_ops_result *r);

/* What the program's QNN delegates were compiled for (etp_qnn_program_soc, read when the result
 * was computed; present false without a program or a spec): explain's memory answer. */
const etp_qnn_soc *etp__ops_qnn_soc(const etp_ops_result *r);

/* The warm-up rule of `etprof runs` and `etprof session` (etp_runs_opts.warmup_factor): run i of
 * a series is warm-up when it is the first, or when the run before it was warm-up and its
 * execute[i] is above factor x median_all (the median of the whole series). NaN: not warm-up
 * (but the first). One definition for both views. */
bool etp__warmup_is(const double *execute, size_t i, double factor, double median_all,
                    bool prev_warmup);
/* runs per second of `total` ns over `runs` runs; NaN unless the unit is ns, runs > 0 and
 * total > 0 (tokens/s of decode-style runs: one token per run). */
double etp__per_second(uint32_t runs, double total, etp_unit unit);

#endif
