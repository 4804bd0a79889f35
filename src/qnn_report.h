/*
 * qnn_report.h - glue between QNN's own profiling files (qnn.h) and the ETDump analyses
 * (etprof.h): load a set of QNN files and derive their tables in one call, join the derived
 * per-QNN-op rows to the ETDump's HTP node rows, and the per-node wall-time estimate.
 * Used by the `qnn`, `ops`, `tree` and `explain` commands (internal).
 */
#ifndef ETPROF_QNN_REPORT_H
#define ETPROF_QNN_REPORT_H

#include "qnn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The QNN files of one analysis; each NULL when not given. */
typedef struct etp_qnn_paths {
    const char *qhas, *optrace, *runtrace, *heap;
} etp_qnn_paths;

typedef struct etp_qnn_bundle {
    etp_qnn_qhas *qhas;
    etp_qnn_trace *trace;
    etp_qnn_runtrace *runtrace;
    etp_qnn_heap *heap;
    etp_qnn_derived *der; /* derived from the files above; NULL when no file was given */
} etp_qnn_bundle;

/* True when any path is set. */
bool etp_qnn_paths_any(const etp_qnn_paths *p);
/* Reads every file given (in the order QHAS, optrace, runtrace, heap; the first rejected one
 * fails the call with its located error: ETP_E_INPUT or ETP_E_IO) and derives the rows and the
 * summary. On failure *b is left empty. */
int etp_qnn_bundle_load(const etp_qnn_paths *p, etp_qnn_bundle *b, etp_error *err);
void etp_qnn_bundle_free(etp_qnn_bundle *b);

/* "qhas", "optrace", "runtrace"; NULL for ETP_QNN_SRC_NONE. */
const char *etp_qnn_source_name(etp_qnn_source s);

/* The HTP clock for cycle -> time estimates: `given_ghz` when > 0 (source "htp-clock-ghz"), else
 * the bundle's (source "runtrace": measured, or "qhas": timeline_cycles / graph_execute_us).
 * Returns the GHz, or NaN (source NULL) when none is known. `b` may be NULL. */
double etp_qnn_clock(double given_ghz, const etp_qnn_bundle *b, const char **source);
/* What a clock source means, one phrase ("measured: runtrace ..."); for NULL: how to get one. */
const char *etp_qnn_clock_meaning(const char *source);

/* ---------------------------------------------------------------------------------------------
 * The join of the derived rows with the ETDump's HTP node rows
 * ------------------------------------------------------------------------------------------- */

typedef struct etp_qnn_etd_pair {
    uint32_t ops_row;     /* etp_ops_row index of the ETDump node */
    uint32_t qnn_row;     /* index into etp_qnn_derived.rows */
    bool by_id;           /* matched on OpId (else on the name alone) */
    bool trusted;         /* the names agree, or the ETDump node is unnamed ("OpId_N (cycles)"):
                             false = an OpId match under another name (a conflict) */
    double etdump_cycles; /* the ETDump node's p50 over the runs */
} etp_qnn_etd_pair;

typedef struct etp_qnn_etd_join {
    int32_t qnn;           /* etp_ops_qnn index of the partition joined; -1 when the ETDump has
                              no QNN partition (then every row is QNN-only) */
    uint32_t n_nodes;      /* HTP node rows of that partition */
    uint32_t n_pairs;
    etp_qnn_etd_pair *pairs;  /* in ETDump node order */
    uint32_t matched;      /* trusted pairs */
    uint32_t matched_by_id, matched_by_name; /* of the trusted pairs */
    uint32_t conflicts;    /* untrusted pairs */
    uint32_t n_etdump_only;
    uint32_t *etdump_only; /* ops row indices of ETDump nodes without a QNN op */
    uint32_t n_qnn_only;
    uint32_t *qnn_only;    /* derived row indices without an ETDump node */
    /* cycle agreement over the trusted pairs: the ETDump node's p50 (rounded) == QNN cycles */
    uint32_t cycles_equal, cycles_different;
    int64_t max_abs_diff;  /* largest |ETDump - QNN| over the trusted pairs, cycles */
    double *row_etdump;    /* per derived row: the p50 of its trusted ETDump node, NaN if none */
    int32_t *row_ops;      /* per derived row: the ops row of its trusted ETDump node, or -1 */
} etp_qnn_etd_join;

/* Joins `d`'s rows to the HTP node rows of the ETDump partition where most of them match (by
 * OpId preferring the same name, then by name; see etp_qnn_join_nodes). Both inputs must outlive
 * the join. */
int etp_qnn_join_etdump(const etp_ops_result *r, const etp_qnn_derived *d, etp_qnn_etd_join **out,
                        etp_error *err);
void etp_qnn_etd_join_free(etp_qnn_etd_join *j);
/* "same_run" (every compared op has equal cycles), "different_runs" (none equal), "mixed",
 * or "none" (nothing compared). */
const char *etp_qnn_etd_agreement(const etp_qnn_etd_join *j);

/* ---------------------------------------------------------------------------------------------
 * Shared figures of the derived rows (src/figures.c): one definition for qnn, explain, report
 * ------------------------------------------------------------------------------------------- */

/* How many QNN ops use each HTP unit: an op uses a unit when any of its HTP ops does (QHAS
 * htp_op_instances flags, or optrace Flags; dma = dma, dma_set or dma_wait). */
typedef struct etp_qnn_unit_counts {
    uint32_t qnn_ops;          /* derived rows */
    uint32_t htp_ops;          /* HTP ops over all rows */
    uint32_t hmx, hvx, dma;    /* ops using HMX / HVX / DMA (an op may count in several) */
    uint32_t hmx_and_hvx;      /* ops using both HMX and HVX */
    uint32_t dma_only;         /* ops using DMA and neither HMX nor HVX */
    uint32_t none;             /* ops using none of the three */
} etp_qnn_unit_counts;

/* Counts over `d`'s rows; all zero when `d` is NULL. */
void etp_qnn_unit_counts_get(const etp_qnn_derived *d, etp_qnn_unit_counts *out);
/* The rows of `d` by cycles, largest first; equal cycles keep row order (the order of "top QNN
 * ops" in explain and report). Fills idx[] (room for d->n_rows entries) with at most `top` rows
 * (0: all) and *n with their count. ETP_OK, or ETP_E_INTERNAL when out of memory. */
int etp_qnn_rows_by_cycles(const etp_qnn_derived *d, uint32_t top, uint32_t *idx, uint32_t *n);

/* ---------------------------------------------------------------------------------------------
 * Per-node wall-time estimate
 * ------------------------------------------------------------------------------------------- */

/* For a cycles row of a QNN partition (an HTP node or "Accelerator (execute) time (cycles)"):
 * ns of "Accelerator (execute excluding wait) time" per cycle, i.e. the partition's excluding-
 * wait total over its Accelerator (execute) time (cycles) total over the runs kept. A node's
 * cycles times this factor apportion the NPU compute wall time by cycle share: an ESTIMATE.
 * NaN when the row is not such a row or either total is missing or not positive. */
double etp_qnn_wall_ns_per_cycle(const etp_ops_result *r, size_t row);

#ifdef __cplusplus
}
#endif
#endif /* ETPROF_QNN_REPORT_H */
