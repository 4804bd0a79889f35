/* analysis.h - the shared figures as JSON through the JSON writer, for the library's own
 * writers (the HTML report); everything else of the display layer is public in
 * include/etprof_figures.h (internal). */
#ifndef ETPROF_ANALYSIS_H
#define ETPROF_ANALYSIS_H

#include "etprof.h"
#include "etprof_figures.h"


/* The shared figures (etprof.h "Shared figures") in JSON, written alike by every command that
 * shows them (src/analyze/figures.c; docs/json-contract.md). */
struct jw;
struct etp_qnn_etd_join;
struct etp_qnn_unit_counts;
/* A top operator: {name, instruction_id, operator, placement, kind, count, p50, avg, total,
 * share, unit}. */
void ana_json_top_op(struct jw *w, const etp_disp *d, const etp_ops_result *r, size_t row);
/* The DELEGATE_CALLs of a method: [{instruction_id, backend, runs, unit, delegate_call,
 * backend_time, overhead}], each figure {p50, avg, total} (null without backend time). */
void ana_json_delegates(struct jw *w, const etp_disp *d, const etp_ops_result *r, uint32_t method);
/* {etdump_nodes, matched, matched_by_op_id, matched_by_name_only, etdump_only, qnn_only,
 * conflicts, cycles_equal, cycles_different, verdict} (counts). */
void ana_json_qnn_join(struct jw *w, const struct etp_qnn_etd_join *j);
/* {qnn_ops, htp_ops, ops_using_hmx, ops_using_hvx, ops_using_dma, ops_using_both, ops_dma_only,
 * ops_using_none}. */
void ana_json_unit_counts(struct jw *w, const struct etp_qnn_unit_counts *u);

/* JSON "method_candidates": the fitting methods' names of an ambiguous method, [] otherwise. */
void ana_json_method_candidates(struct jw *w, const etp_ops_method *m);
/* The same as JSON: {blocks: [{name, blocks, events, counted_as_runs, by_events, reason,
 * include_with}], bad_time_rows: [{name, instruction_id, kind, count, bad_time_count}],
 * bad_time_events, wrapped_events, named_delegate_rows}. */
void ana_json_quality(struct jw *w, const etp_ops_result *r);

#endif /* ETPROF_ANALYSIS_H */
