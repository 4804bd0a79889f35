/*
 * qnn_report.h - glue between QNN's own profiling files (qnn.h) and the ETDump analyses
 * (etprof.h): load a set of QNN files and derive their tables in one call, join the derived
 * per-QNN-op rows to the ETDump's HTP node rows, and the per-node wall-time estimate.
 * Used by the `qnn`, `ops`, `tree` and `explain` commands (internal).
 */
#ifndef ETPROF_QNN_REPORT_H
#define ETPROF_QNN_REPORT_H

#include "etprof_qnn.h" /* the public part: bundle, clock, unit counts, critical path, viewer sums */
#include "qnn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "qhas", "optrace", "runtrace"; NULL for ETP_QNN_SRC_NONE. */
const char *etp_qnn_source_name(etp_qnn_source s);

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
    bool cycles_differ;   /* trusted and the p50 (rounded) != the QNN op's cycles (counted in
                             etp_qnn_etd_join.cycles_different; the "cycles differ" list) */
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

/* The rows of `d` by cycles, largest first; equal cycles keep row order (the order of "top QNN
 * ops" in explain and report). Fills idx[] (room for d->n_rows entries) with at most `top` rows
 * (0: all) and *n with their count. ETP_OK, or ETP_E_INTERNAL when out of memory. */
int etp_qnn_rows_by_cycles(const etp_qnn_derived *d, uint32_t top, uint32_t *idx, uint32_t *n);

#ifdef __cplusplus
}
#endif
#endif /* ETPROF_QNN_REPORT_H */
