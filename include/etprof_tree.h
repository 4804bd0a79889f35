/*
 * etprof_tree.h - the hierarchy of each method's time as a result document (`etprof tree`,
 * docs/analyses.md): Method::execute > instructions in order; DELEGATE_CALL > what the backend
 * logged (QNN: QNN (execute) > RPC > QNN accelerator > Accelerator > excluding wait; HTP node
 * cycles under Accelerator (execute) time (cycles)); OPERATOR_CALL > kernel. Each number is a
 * per-run statistic of the node's per-run sum (inclusive) and of its per-run exclusive part (the
 * sum minus its children of the same unit); values in other units hang under their scope as
 * facts.
 *
 * etp_tree_doc() fills a document (etprof_result.h) that etp_doc_render() writes: for
 * ETP_FMT_JSON the nested shape {stat, time_unit, methods: [{name, method_candidates, runs,
 * skipped_runs, roots: [node {..., children: [...]}]}], notes, data_quality} (docs/
 * json-contract.md "tree"); for the other formats one flat table (a row per node, depth-first,
 * in display order), indented and with at most `top` HTP nodes per parent in table and md.
 * The command and the Python binding (Profile.tree) call it; what they render is the same.
 *
 * Ownership: nothing is kept; the document copies what it needs. Errors: ETP_E_USAGE for an
 * unknown statistic (`total` included) or a NULL argument, ETP_E_INTERNAL when the document ran
 * out of memory. Threads: reentrant; `r`, `rec` and `model` are only read, but `model` and `r`
 * follow etprof.h's one-thread-at-a-time rule.
 */
#ifndef ETPROF_TREE_H
#define ETPROF_TREE_H

#include <stddef.h>

#include "etprof.h"
#include "etprof_figures.h"
#include "etprof_result.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

struct etp_etrecord;

typedef struct etp_tree_opts {
    const char *stat;       /* min, p10, p50, p90, avg or max; NULL: p50 */
    const etp_disp *disp;   /* display units; with a clock, htp_ghz set to it (etp_disp_init) */
    etp_format fmt;         /* ETP_FMT_JSON: the nested tree; others: the flat table */
    size_t top;             /* table/md: HTP nodes listed per parent (0: all) */
    double clock_ghz;       /* the HTP clock (etp_qnn_clock), NaN or <= 0: none */
    const char *clock_src;  /* etp_qnn_clock's source ("htp-clock-ghz", ...), or NULL */
    const struct etp_etrecord *rec; /* ETRecord columns, or NULL */
    etp_model *model;       /* the model `r` was computed from (backend notes in table/md) */
} etp_tree_opts;

/* Fills `doc` (from etp_doc_new("tree", 1, FILE, PROGRAM)) with the tree of `r`. */
int etp_tree_doc(etp_doc *doc, const etp_ops_result *r, const etp_tree_opts *o, etp_error *err);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_TREE_H */
