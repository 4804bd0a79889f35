/* analysis.h - display helpers shared by the analysis commands (ops, tree, summary, explain):
 * the unit a value is shown in and the notes that say what was converted (internal). */
#ifndef ETPROF_ANALYSIS_H
#define ETPROF_ANALYSIS_H

#include "etprof.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct ana_disp {
    const char *time_unit; /* "ns", "us", "ms", "s" */
    double unit_ns;        /* ns per time_unit */
    double htp_ghz;        /* --htp-clock-ghz, 0 when not given */
    double tick_ns;        /* host ns per tick, 0 = unknown rate */
    char est_unit[8];      /* "est_us": cycles turned into a time estimate */
    int precision;         /* decimals of number columns in the text formats */
} ana_disp;

/* Returns 0, or -1 when `time_unit` is not ns/us/ms/s. */
static inline int ana_disp_init(ana_disp *d, const char *time_unit, double htp_ghz, double tick_ns) {
    memset(d, 0, sizeof *d);
    d->time_unit = time_unit ? time_unit : "us";
    d->unit_ns = etp_time_unit_ns(d->time_unit);
    if (d->unit_ns <= 0) return -1;
    d->htp_ghz = htp_ghz > 0 ? htp_ghz : 0;
    d->tick_ns = tick_ns;
    snprintf(d->est_unit, sizeof d->est_unit, "est_%s", d->time_unit);
    d->precision = d->unit_ns >= 1e9 ? 9 : d->unit_ns >= 1e6 ? 6 : d->unit_ns >= 1e3 ? 3 : 1;
    return 0;
}

/* A value of a row in unit `u` as displayed, and the displayed unit's name. */
static inline double ana_conv(const ana_disp *d, etp_unit u, double v, const char **uname) {
    if (u == ETP_UNIT_NS) {
        *uname = d->time_unit;
        return v / d->unit_ns;
    }
    if (u == ETP_UNIT_CYCLES && d->htp_ghz > 0) {
        *uname = d->est_unit;
        return v / d->htp_ghz / d->unit_ns;
    }
    *uname = etp_unit_name(u);
    return v;
}

/* Notes explaining the units of rows with these flags and units (bit 1 << etp_unit). Each note
 * goes to emit(). */
static inline void ana_unit_notes(const ana_disp *d, uint32_t flags, uint32_t units,
                                  void (*emit)(void *ctx, const char *text), void *ctx) {
    char b[512];
    if (units & (1u << ETP_UNIT_NS)) {
        if (d->tick_ns > 0) {
            snprintf(b, sizeof b,
                     "host times are ETDump ticks converted to ns at %g ns/tick (--tick-ns, "
                     "--tick-hz to change), shown in %s",
                     d->tick_ns, d->time_unit);
            emit(ctx, b);
        }
        if (flags & ETP_MF_NOT_WALL) {
            snprintf(b, sizeof b,
                     "QNN \"(us)\" values are durations QNN reported (logged with start 0, "
                     "not timestamps), also shown in %s",
                     d->time_unit);
            emit(ctx, b);
        }
    }
    if (units & (1u << ETP_UNIT_TICKS)) {
        emit(ctx, "ticks: host ticks of unknown rate (--ticks); give --tick-hz or --tick-ns to "
                  "convert them to time");
    }
    if (flags & ETP_MF_QTIMER)
        emit(ctx, "\"Time for initial VTCM acquire (us)\" and \"Time for HVX + HMX power on and "
                  "acquire (us)\" are 19.2 MHz QTimer ticks despite their label: converted "
                  "(value / 19.2) to time");
    if (units & (1u << ETP_UNIT_CYCLES)) {
        emit(ctx, "cycles: HTP node cycles and \"Accelerator (execute) time (cycles)\" are busy "
                  "cycles summed over the HTP hardware threads (HVX, HMX): work, not wall time; "
                  "a node's share is its % of Accelerator (execute) time (cycles)");
        if (d->htp_ghz > 0) {
            snprintf(b, sizeof b,
                     "%s: an ESTIMATE, cycles / %g GHz (--htp-clock-ghz); thread-aggregate "
                     "busy time, not latency",
                     d->est_unit, d->htp_ghz);
            emit(ctx, b);
        }
    }
    if (units & (1u << ETP_UNIT_RAW))
        emit(ctx, "raw: a delegate value whose unit the file does not state (start time 0, no "
                  "unit suffix): not converted");
    if (flags & (ETP_MF_WRAPPED | ETP_MF_BAD_TIME))
        emit(ctx, "some events had start > end: a 32-bit counter wrap was assumed where "
                  "possible, the others have no duration and only count");
    if (flags & ETP_MF_MINIMAL_PAL)
        emit(ctx, "some timestamps are 11223344: the minimal PAL has no clock, times are 0");
}

/* The shared figures (etprof.h "Shared figures") in JSON, written alike by every command that
 * shows them (src/figures.c; docs/json-contract.md). */
struct jw;
struct etp_qnn_etd_join;
struct etp_qnn_unit_counts;
/* A top operator: {name, instruction_id, operator, placement, kind, count, p50, avg, total,
 * share, unit}. */
void ana_json_top_op(struct jw *w, const ana_disp *d, const etp_ops_row *row);
/* The DELEGATE_CALLs of a method: [{instruction_id, backend, runs, unit, delegate_call,
 * backend_time, overhead}], each figure {p50, avg, total} (null without backend time). */
void ana_json_delegates(struct jw *w, const ana_disp *d, const etp_ops_result *r, uint32_t method);
/* {etdump_nodes, matched, matched_by_op_id, matched_by_name_only, etdump_only, qnn_only,
 * conflicts, cycles_equal, cycles_different, verdict} (counts). */
void ana_json_qnn_join(struct jw *w, const struct etp_qnn_etd_join *j);
/* {qnn_ops, htp_ops, ops_using_hmx, ops_using_hvx, ops_using_dma, ops_using_both, ops_dma_only,
 * ops_using_none}. */
void ana_json_unit_counts(struct jw *w, const struct etp_qnn_unit_counts *u);

/* Notes on data the analyses count but leave out or reinterpret: blocks counted as runs from
 * their events, blocks not counted (and the option that includes them), events that end before
 * they start, delegate events named by their id. Each note goes to emit(). */
/* How a view names method m: its name; "(ambiguous: a, b)" when several methods of the program
 * fit its runs (etp_ops_method.n_candidates); "(method unknown)" otherwise. */
const char *ana_method_label(const etp_ops_method *m, char *buf, size_t cap);
/* JSON "method_candidates": the fitting methods' names of an ambiguous method, [] otherwise. */
void ana_json_method_candidates(struct jw *w, const etp_ops_method *m);
void ana_quality_notes(const etp_ops_result *r, void (*emit)(void *ctx, const char *text),
                       void *ctx);
/* The same as JSON: {blocks: [{name, blocks, events, counted_as_runs, by_events, reason,
 * include_with}], bad_time_rows: [{name, instruction_id, kind, count, bad_time_count}],
 * bad_time_events, wrapped_events, named_delegate_rows}. */
void ana_json_quality(struct jw *w, const etp_ops_result *r);

/* The same shapes as members of a result document (etprof_result.h): the jw versions above
 * write what these build. `key` NULL inside an array. */
struct etp_node;
void ana_node_top_op(struct etp_node *n, const char *key, const ana_disp *d, const etp_ops_row *row);
void ana_node_delegates(struct etp_node *n, const char *key, const ana_disp *d,
                        const etp_ops_result *r, uint32_t method);
void ana_node_method_candidates(struct etp_node *n, const etp_ops_method *m);
void ana_node_quality(struct etp_node *n, const char *key, const etp_ops_result *r);

#endif /* ETPROF_ANALYSIS_H */
