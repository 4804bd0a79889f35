/*
 * etprof_modules.h - time per nn.Module: the profiling rows of etp_ops_compute() attributed to
 * the modules of an ETRecord's edge program (docs/analyses.md, "Time per nn.Module").
 *
 * What is summed, so that nothing is counted twice:
 *  - every row's EXCLUSIVE value (its per-run sums minus its children of the same unit), so a
 *    DELEGATE_CALL contributes only its own overhead, the events inside it their own parts, and
 *    the exclusive values of a method's rows of one unit add up to its roots' totals (for time:
 *    Method::execute). The Inspector's find_total_for_module instead adds the DELEGATE_CALL and
 *    the events inside it (and its delegate's own timings), counting the same time twice.
 *  - per (method, domain): HOST time (ns, or host ticks without a tick rate: CPU kernels,
 *    OPERATOR_CALL wrappers, DELEGATE_CALLs and delegate events timed by the host or in time
 *    units, XNNPACK, Ethos-U, QNN's "(us)" times) and HTP CYCLES (QNN HTP nodes and their
 *    parent "Accelerator (execute) time (cycles)": thread-aggregate work, a work share, never
 *    a latency). The two are never added; rows in other units (counts, bytes, raw) are left out.
 *
 * Which module a row belongs to: its join (etp_etrecord_join_row, the one join of
 * etprof_etrecord.h) gives its edge-program nodes; the row's module is the innermost module
 * that ALL of those nodes (with an nn_module_stack) share: the longest common prefix of their
 * stacks (a CPU kernel's single node: that node's innermost module; a DELEGATE_CALL lowering
 * nodes of several modules: their closest common ancestor). A delegate-internal row (not an
 * HTP node) that joins no node is inside its DELEGATE_CALL: it takes its nearest joined
 * ancestor row's module. Every other row that no module claims (framework rows such as
 * Method::execute's own time, rows the record does not map, HTP nodes whose name matches no
 * edge node, nodes without nn_module_stack) goes to the "(no module)" row of its domain, so
 * that the rows of a domain add up to its total.
 *
 * Ownership and lifetime: the result owns its strings and arrays (copies: the ops result and
 * the record may be freed after the call); free it with etp_modules_free().
 * Threads: etp_modules_compute reads `ops` and `rec` only; a result is immutable.
 */
#ifndef ETPROF_MODULES_H
#define ETPROF_MODULES_H

#include "etprof.h"
#include "etprof_etrecord.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

typedef enum etp_mod_domain {
    ETP_MOD_HOST = 0, /* host time (ns, or ticks) */
    ETP_MOD_HTP,      /* QNN HTP cycles (work share) */
} etp_mod_domain;
/* "time", "htp_cycles" */
const char *etp_mod_domain_name(etp_mod_domain d);

typedef struct etp_modules_opts {
    const char *module; /* --module: only modules whose path is this or lies below it (and
                           their ancestors are not shown); NULL: all */
} etp_modules_opts;

typedef struct etp_module_row {
    uint32_t method;        /* index for etp_ops_method_get() of the ops result */
    uint32_t domain;        /* index for etp_modules_domain_get() */
    bool no_module;         /* the domain's "(no module)" row (path and cls NULL) */
    const char *path;       /* the module path (nn_module_stack fqn, "" for the root module) */
    const char *cls;        /* its class ("torch.nn.modules.linear.Linear") */
    int32_t parent;         /* the enclosing module's row, -1 for a top-level row (also when
                               the parent is filtered out by opts.module) */
    uint32_t depth;         /* 0 for top-level rows (nn_module_stack depth - 1) */
    etp_unit unit;          /* the domain's unit: ETP_UNIT_NS, ETP_UNIT_TICKS or ETP_UNIT_CYCLES */
    double inclusive;       /* sum over the runs of the rows attributed to it or below */
    double exclusive;       /* ... to it alone */
    double share;           /* percent of the domain total (inclusive / total); NaN if 0 */
    uint64_t count;         /* profiling rows (ops, HTP nodes) attributed to it or below */
    uint64_t count_exclusive;
} etp_module_row;

typedef struct etp_modules_domain {
    uint32_t method;
    etp_mod_domain domain;
    etp_unit unit;
    uint32_t runs;          /* the method's runs kept */
    double total;           /* the sum of every attributed exclusive value of the domain */
    uint64_t rows;          /* profiling rows attributed (with a value in this unit) */
    uint64_t rows_module;   /* of which a module claimed */
} etp_modules_domain;

typedef struct etp_modules etp_modules;

/* Attributes the rows of `ops` to the modules of `rec`'s edge programs (the edge program of
 * each row's method). `opts` may be NULL. ETP_E_USAGE when opts.module names no module that a
 * row was attributed to (err names the option); ETP_E_INTERNAL when out of memory. */
int etp_modules_compute(const etp_ops_result *ops, const etp_etrecord *rec,
                        const etp_modules_opts *opts, etp_modules **out, etp_error *err);
void etp_modules_free(etp_modules *m); /* NULL is allowed */

/* Rows per domain in tree order: depth first, children in the order the profile first
 * attributed time to them; the domain's "(no module)" row last. */
size_t etp_modules_row_count(const etp_modules *m);
const etp_module_row *etp_modules_row_get(const etp_modules *m, size_t i);
size_t etp_modules_domain_count(const etp_modules *m);
const etp_modules_domain *etp_modules_domain_get(const etp_modules *m, size_t i);

/* The join counts over every joinable row (etp_etrecord_row_joinable): rows tried and rows
 * joined to at least one node; QNN HTP node rows tried and matched by name. */
typedef struct etp_modules_joins {
    uint64_t rows, matched, htp_rows, htp_matched;
} etp_modules_joins;
const etp_modules_joins *etp_modules_join_counts(const etp_modules *m);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif
