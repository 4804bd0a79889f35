/*
 * etprof_figures.h - how a value is shown, and the figures several views share, as result-model
 * nodes (issue 11.1, 11.3).
 *
 * A view shows a row's value in a display unit: host times (ns) in the --time-unit, HTP cycles
 * as cycles or, when a clock is given, as a labelled time ESTIMATE, every other unit as it is.
 * etp_disp holds that choice; etp_disp_conv() is the one conversion every view and every format
 * uses, and etp_disp_unit_notes() the notes that say what was converted.
 *
 * The etp_fig_* builders add the JSON shapes that several commands and the HTML report share (a
 * top operator, the DELEGATE_CALLs of a method, method candidates, data quality, the QNN join
 * and the QNN ops per HTP unit) to a result document (etprof_result.h), so that every view writes
 * each shape from the same definition (docs/json-contract.md lists where each appears).
 *
 * Ownership: nothing here allocates for the caller; the builders copy into the document.
 * Errors: etp_disp_init() returns ETP_E_USAGE for an unknown time unit; the builders follow the
 * document's sticky-error rule (etprof_result.h). Threads: all functions are reentrant; an
 * etp_disp is read-only after etp_disp_init() and may be shared between threads.
 */
#ifndef ETPROF_FIGURES_H
#define ETPROF_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "etprof.h"
#include "etprof_result.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

struct etp_qnn_etd_join;
struct etp_qnn_unit_counts;

typedef struct etp_disp {
    const char *time_unit; /* "ns", "us", "ms", "s" */
    double unit_ns;        /* ns per time_unit */
    double htp_ghz;        /* HTP clock for cycle estimates (--htp-clock-ghz), 0 when not given */
    double tick_ns;        /* host ns per tick (--tick-ns/--tick-hz), 0 = unknown rate */
    char est_unit[8];      /* "est_us": the unit of cycles shown as a time estimate */
    int precision;         /* decimals of time columns in the text formats */
} etp_disp;

/* time_unit NULL means "us"; htp_ghz <= 0: cycles stay cycles. 0, or ETP_E_USAGE when
 * `time_unit` is not ns/us/ms/s (then *d is zeroed). */
int etp_disp_init(etp_disp *d, const char *time_unit, double htp_ghz, double tick_ns);

/* The value `v` of unit `u` as displayed, and (in *uname, never NULL) the displayed unit's name:
 * ns -> time_unit; cycles with a clock -> est_unit; anything else unchanged with its own name. */
double etp_disp_conv(const etp_disp *d, etp_unit u, double v, const char **uname);

/* The model flags of a row as etp_disp_unit_notes() reads them: its flags, ETP_MF_NOT_WALL only
 * on a time row (a duration QNN reported in us, shown as time; a raw or cycles value is no such
 * row). */
uint32_t etp_disp_row_flags(const etp_ops_row *row);

/* The notes that explain the units of rows with these model flags (ETP_MF_*) and units (bit
 * 1 << etp_unit): tick conversion, QNN durations, QTimer labels, cycles as work, estimates, raw
 * values, wrapped counters. Each note goes to emit(ctx, text). */
void etp_disp_unit_notes(const etp_disp *d, uint32_t flags, uint32_t units,
                         void (*emit)(void *ctx, const char *text), void *ctx);
/* The notes of a clock that did not run, for rows with these flags: ETP_MF_MINIMAL_PAL (the
 * minimal PAL's constant) and ETP_MF_NO_CLOCK (0 at both ends). etp_quality_notes() gives them
 * for a whole result; a view of other rows (diff) calls this. */
void etp_clock_notes(uint32_t flags, void (*emit)(void *ctx, const char *text), void *ctx);

/* How a view names method m: its name; "(ambiguous: a, b)" (written into buf) when several
 * methods of the program fit its runs; "(method unknown)" otherwise. */
const char *etp_method_label(const etp_ops_method *m, char *buf, size_t cap);

/* Notes on data the analyses count but leave out or reinterpret: blocks counted as runs from
 * their events, blocks not counted (and the option that includes them), events that end before
 * they start, delegate events named by their id. Each note goes to emit(ctx, text). */
void etp_quality_notes(const etp_ops_result *r, void (*emit)(void *ctx, const char *text), void *ctx);

/* ---- shared shapes as document nodes (`key` NULL inside an array) ---- */

/* {name, instruction_id, operator, placement, kind, count, p50, avg, total, share, unit}; returns
 * the object (for members a caller adds: the ETRecord columns) */
etp_node *etp_fig_top_op(etp_node *n, const char *key, const etp_disp *d, const etp_ops_result *r,
                         size_t row);
/* The DELEGATE_CALLs of method `method`: [{instruction_id, backend, runs, unit, delegate_call,
 * backend_time, overhead, backend_name, backend_source, inner_rows}], each figure {p50, avg,
 * total} (null without backend time). */
void etp_fig_delegates(etp_node *n, const char *key, const etp_disp *d, const etp_ops_result *r,
                       uint32_t method);
/* Member "method_candidates" of object n: the fitting methods of an ambiguous method, else []. */
void etp_fig_method_candidates(etp_node *n, const etp_ops_method *m);
/* {blocks: [...], bad_time_rows: [...], bad_time_events, wrapped_events, named_delegate_rows} */
void etp_fig_quality(etp_node *n, const char *key, const etp_ops_result *r);
/* {etdump_nodes, matched, matched_by_op_id, matched_by_name_only, etdump_only, qnn_only,
 * conflicts, cycles_equal, cycles_different, verdict} */
void etp_fig_qnn_join(etp_node *n, const char *key, const struct etp_qnn_etd_join *j);
/* {qnn_ops, htp_ops, ops_using_hmx, ops_using_hvx, ops_using_dma, ops_using_both, ops_dma_only,
 * ops_using_none} */
void etp_fig_unit_counts(etp_node *n, const char *key, const struct etp_qnn_unit_counts *u);
/* The same eight members added to the object `obj` itself (qnn's summary holds them flat). */
void etp_fig_unit_counts_members(etp_node *obj, const struct etp_qnn_unit_counts *u);

/* ---- the ops rows as one typed table (the Python package's ops()) ----
 * Rows idx[0..n) of `r` (etp_ops_select's order) with the columns of `etprof ops --format json`
 * rows: method, instruction_id, name, count, min, p10, p50, p90, avg, max, total, share, unit,
 * placement, kind, operator, then (disp->htp_ghz > 0) wall_est_p50, wall_est_total,
 * wall_est_unit, then bad_time_count, wrapped_count, event_name, then (rec given) the ETRecord's
 * six machine columns (etp_etrecord_cols). Values as etp_disp_conv() shows them; absent values
 * null. NULL on a NULL argument or the document's error. */
struct etp_etrecord;
etp_table *etp_ops_table(etp_doc *d, const etp_ops_result *r, const uint32_t *idx, size_t n,
                         const etp_disp *disp, const struct etp_etrecord *rec);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_FIGURES_H */
