/* cmd_qnn.c - `etprof qnn`: QNN's own profiling files answered in the terminal.
 *
 *   etprof qnn [ETDUMP [--pte P]] --qhas F [--optrace F] [--runtrace F] [--heap F]
 *       per-QNN-op HMX/HVX/DMA use, cycles, critical-path cycles, DRAM/VTCM bytes; the summary
 *       (utilization, clock, peak VTCM, memory traffic, unit busy cycles, critical path, heap);
 *       with an ETDump, the join of its HTP node events to the QNN ops and the cycle check.
 *   etprof qnn --profile-log F | --profile-csv F
 *       qnn-profile-viewer's own text or CSV output: the top-level and per-node view of each
 *       execute, without an ETDump.
 * Every figure comes from the public QNN API (include/etprof_qnn.h); this file fills one result
 * document (include/etprof_result.h) per run, rendered in every format by cli_render().
 * See docs/qnn-inputs.md ("The qnn command"). */
#include "cli.h"
#include "etprof_figures.h"
#include "etprof_qnn.h"
#include "etprof_result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DP_TOP 5     /* critical-path ops in the summary */
#define LIST_MAX 20  /* join list entries shown in table/md (JSON has them all) */

typedef struct qctx {
    cli_args *a;
    etp_format fmt;
    etp_qnn_paths paths;
    etp_qnn_bundle b;
    double clock_ghz;         /* NaN when unknown */
    const char *clock_source; /* "htp-clock-ghz", "runtrace", "qhas", NULL */
    const char *etdump;       /* path or NULL */
    cli_inputs in;
    bool have_in;
    etp_ops_result *r;
    etp_qnn_etd_join *j;
    etp_qnn_critical_path *cp; /* the critical path by QNN op (library) */
    etp_qnn_cycle_mismatch *mm;
    uint32_t n_mm;
    bool checked;             /* optrace and QHAS were both given */
    uint32_t *order;          /* displayed rows */
    uint32_t n_order;
    etp_qnn_soc soc;          /* from the program's qnn_compile_spec (zero without --pte) */
} qctx;

/* ------------------------------------------------------------------------------------------- */
/* small helpers */

static bool text_view(etp_format f) { return f == ETP_FMT_TABLE || f == ETP_FMT_MD; }

static const char *clock_meaning(const qctx *c) { return etp_qnn_clock_meaning(c->clock_source); }

/* ETDump HTP node name of an ops row, for messages. */
static const char *row_name(const qctx *c, uint32_t i) { return etp_ops_row_get(c->r, i)->name; }

static void note_doc(void *ctx, const char *s) { etp_doc_note(ctx, s); }
static void note_tab(void *ctx, const char *s) { etp_table_note(ctx, s); }

/* ------------------------------------------------------------------------------------------- */
/* op rows: order */

static int make_order(qctx *c, const char *key, size_t top) {
    uint32_t n = c->b.der->n_rows;
    c->order = malloc((n ? n : 1) * sizeof *c->order);
    if (!c->order) return -1;
    return etp_qnn_rows_sorted(c->b.der, c->j ? c->j->row_etdump : NULL, key,
                               top > UINT32_MAX ? 0 : (uint32_t)top, c->order, &c->n_order)
               ? -1
               : 0;
}

/* ------------------------------------------------------------------------------------------- */
/* the op table (every format: JSON "ops", the csv/tsv/jsonl rows, the table/md block) */

static const etp_col op_cols[] = {
    {"qnn_op", "QNN op", NULL, ETP_T_STR, false, 0},
    {"op_id", "OpId", NULL, ETP_T_UINT, true, 0},
    {"qnn_op_type", "type", NULL, ETP_T_STR, true, 0},
    {"cycles", "cycles", NULL, ETP_T_INT, false, 0},
    {"dominant_path_cycles", "crit.path cycles", NULL, ETP_T_INT, false, 0},
    {"share", "share %", NULL, ETP_T_FLOAT, false, 2},
    {"hmx", "HMX", NULL, ETP_T_BOOL, false, 0},
    {"hvx", "HVX", NULL, ETP_T_BOOL, false, 0},
    {"dma", "DMA", NULL, ETP_T_BOOL, false, 0},
    {"htp_ops", "HTP ops", NULL, ETP_T_UINT, false, 0},
    {"dram_read_bytes", "DRAM read B", NULL, ETP_T_INT, true, 0},
    {"dram_write_bytes", "DRAM write B", NULL, ETP_T_INT, true, 0},
    {"vtcm_read_bytes", "VTCM read B", NULL, ETP_T_INT, true, 0},
    {"vtcm_write_bytes", "VTCM write B", NULL, ETP_T_INT, true, 0},
    {"etdump_cycles", "ETDump cycles p50", NULL, ETP_T_FLOAT, true, 0},
};
#define NOPCOLS (sizeof op_cols / sizeof op_cols[0])

static void op_row(const qctx *c, etp_table *t, uint32_t i) {
    const etp_qnn_op_row *r = &c->b.der->rows[i];
    etp_table_row(t);
    etp_table_str(t, r->qnn_op);
    if (r->has_op_id) etp_table_uint(t, r->op_id);
    else etp_table_null(t);
    etp_table_str(t, r->qnn_op_type);
    etp_table_int(t, r->cycles);
    etp_table_int(t, r->dominant_path_cycles);
    etp_table_float(t, r->share);
    etp_table_bool(t, r->hmx);
    etp_table_bool(t, r->hvx);
    etp_table_bool(t, r->dma);
    etp_table_uint(t, r->htp_ops);
    if (r->has_bytes) {
        etp_table_int(t, r->dram_read_bytes);
        etp_table_int(t, r->dram_write_bytes);
        etp_table_int(t, r->vtcm_read_bytes);
        etp_table_int(t, r->vtcm_write_bytes);
    } else {
        for (int k = 0; k < 4; k++) etp_table_null(t);
    }
    if (etp_table_cols(t) < NOPCOLS) return;
    /* a whole p50 is shown as an integer (cycles) */
    double e = c->j ? c->j->row_etdump[i] : NAN;
    if (isfinite(e) && e == floor(e) && fabs(e) < 9e18) etp_table_int(t, (int64_t)e);
    else etp_table_float(t, e);
}

static void op_notes(const qctx *c, etp_table *t) {
    const etp_qnn_derived *d = c->b.der;
    char b[400];
    snprintf(b, sizeof b,
             "%u QNN op(s) from %s%s; cycles = busy cycles of the op's HTP ops summed over the "
             "hardware threads (work, not wall time); share %% = %% of all ops' cycles (%lld); "
             "crit.path cycles = cycles on the dominant (critical) path",
             d->n_rows,
             d->rows_source == ETP_QNN_SRC_QHAS ? "the QHAS htp_op_instances" : "the optrace",
             c->n_order < d->n_rows ? " (--top)" : "", (long long)d->total_cycles);
    etp_table_note(t, b);
    etp_table_note(t, "HMX / HVX / DMA: true when any HTP op of the QNN op uses the unit (QHAS "
                      "booleans or optrace Flags; DMA includes dma_set and dma_wait); B = bytes");
    if (d->rows_source == ETP_QNN_SRC_OPTRACE)
        etp_table_note(t, "byte columns are empty: the optrace has no per-op bytes (give --qhas)");
    if (d->unattributed_ops) {
        snprintf(b, sizeof b, "%u optrace op(s) without a QNN op name are not in the rows",
                 d->unattributed_ops);
        etp_table_note(t, b);
    }
    if (c->etdump)
        etp_table_note(t, "ETDump cycles p50 = the p50 over the runs of the matching ETDump HTP "
                          "node event (empty when no node matched by OpId and name)");
}

/* ------------------------------------------------------------------------------------------- */
/* the JSON facts */

static void fact_summary(const qctx *c, etp_node *n) {
    const etp_qnn_derived *d = c->b.der;
    const etp_qnn_summary *s = &d->summary;
    etp_node_str(n, "source", etp_qnn_source_name(s->source));
    etp_qnn_node_f64(n, "utilization_percent", s->utilization_percent);
    etp_qnn_node_f64(n, "idle_percent", s->idle_percent);
    etp_qnn_node_i64(n, "graph_execute_us", s->graph_execute_us);
    etp_qnn_node_i64(n, "time_us", s->time_us);
    etp_qnn_node_f64(n, "graph_execute_time_us", s->graph_execute_time_us);
    etp_node_str(n, "graph_execute_source", etp_qnn_source_name(s->graph_execute_source));
    etp_qnn_node_f64(n, "dsp_execute_time_us", s->dsp_execute_time_us);
    etp_node_str(n, "dsp_execute_source", etp_qnn_source_name(s->dsp_execute_source));
    etp_node_bool(n, "estimated", s->estimated);
    etp_qnn_node_i64(n, "timeline_cycles", s->timeline_cycles);
    etp_node_float(n, "clock_ghz", c->clock_ghz);
    etp_node_str(n, "clock_source", c->clock_source);
    etp_qnn_node_i64(n, "peak_vtcm_bytes", s->peak_vtcm_bytes);
    etp_qnn_node_i64(n, "dram_read_bytes", s->dram_read_bytes);
    etp_qnn_node_i64(n, "dram_write_bytes", s->dram_write_bytes);
    etp_qnn_node_i64(n, "vtcm_read_bytes", s->vtcm_read_bytes);
    etp_qnn_node_i64(n, "vtcm_write_bytes", s->vtcm_write_bytes);
    etp_qnn_node_i64(n, "hmx_busy_cycles", s->hmx_busy_cycles);
    etp_qnn_node_f64(n, "hmx_busy_share", s->hmx_busy_share);
    etp_qnn_node_i64(n, "hmx_op_cycles", s->hmx_op_cycles);
    etp_qnn_node_f64(n, "hmx_op_share", s->hmx_op_share);
    etp_node_uint(n, "htp_cores", s->htp_cores);
    etp_qnn_node_i64(n, "hvx_busy_cycles", s->hvx_busy_cycles);
    etp_node_uint(n, "hvx_threads", s->hvx_threads);
    etp_qnn_node_f64(n, "hvx_busy_share", s->hvx_busy_share);
    etp_node *th = etp_node_arr(n, "threads");
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const etp_qnn_thread_busy *t = &s->threads[i];
        etp_node *o = etp_node_obj(th, NULL);
        etp_node_int(o, "tid", t->tid);
        etp_node_str(o, "type", t->type);
        etp_node_int(o, "busy_cycles", t->busy_cycles);
        etp_qnn_node_f64(o, "share", t->share);
    }
    const etp_qnn_critical_path *cp = c->cp;
    if (!cp->present) {
        etp_node_null(n, "dominant_path");
    } else {
        etp_node *dp = etp_node_obj(n, "dominant_path");
        etp_node_str(dp, "source", cp->source);
        etp_node_uint(dp, "steps", cp->steps);
        etp_node_int(dp, "path_cycles", cp->path_cycles);
        etp_node_int(dp, "idle_cycles", cp->idle_cycles);
        etp_node *top = etp_node_arr(dp, "top_ops");
        for (uint32_t k = 0; k < cp->n_ops && k < DP_TOP; k++) {
            const etp_qnn_cp_op *op = &cp->ops[k];
            etp_node *o = etp_node_obj(top, NULL);
            etp_node_str(o, "qnn_op", op->qnn_op);
            etp_node_int(o, "dp_cycles", op->dp_cycles);
            etp_node_uint(o, "steps", op->steps);
            etp_node_float(o, "share", op->share_percent);
        }
    }
    etp_qnn_node_i64(n, "heap_before_bytes", s->heap_before_bytes);
    etp_qnn_node_i64(n, "heap_after_bytes", s->heap_after_bytes);
    etp_qnn_node_i64(n, "heap_delta_bytes", s->heap_delta_bytes);
    etp_qnn_unit_counts uc;
    etp_qnn_unit_counts_get(d, &uc);
    etp_fig_unit_counts_members(n, &uc);
    etp_node_int(n, "total_cycles", d->total_cycles);
}

static void fact_join(const qctx *c, etp_node *n) {
    const etp_qnn_etd_join *j = c->j;
    const etp_qnn_derived *d = c->b.der;
    const etp_ops_qnn *q = j->qnn >= 0 ? etp_ops_qnn_get(c->r, (size_t)j->qnn) : NULL;
    const etp_ops_method *m = q ? etp_ops_method_get(c->r, q->method) : NULL;
    etp_ops_method none = {0};
    etp_node_str(n, "method", m ? m->name : NULL);
    etp_fig_method_candidates(n, m ? m : &none);
    if (q) etp_node_int(n, "instruction_id", etp_ops_row_get(c->r, q->delegate_row)->instr);
    else etp_node_null(n, "instruction_id");
    etp_node_uint(n, "etdump_nodes", j->n_nodes);
    etp_node_uint(n, "qnn_ops", d->n_rows);
    etp_node_uint(n, "matched", j->matched);
    etp_node_uint(n, "matched_by_op_id", j->matched_by_id);
    etp_node_uint(n, "matched_by_name_only", j->matched_by_name);
    etp_node_uint(n, "named_etdump_nodes", j->n_nodes_named);
    etp_node_uint(n, "named_qnn_ops", j->n_qnn_named);
    etp_node_uint(n, "named_matched", j->matched_named);
    etp_node_str(n, "graph", etp_qnn_etd_graph(j));
    etp_node *a = etp_node_arr(n, "etdump_only");
    for (uint32_t k = 0; k < j->n_etdump_only; k++) {
        const etp_ops_row *row = etp_ops_row_get(c->r, j->etdump_only[k]);
        etp_node *o = etp_node_obj(a, NULL);
        etp_node_str(o, "name", row->name);
        etp_node_int(o, "op_id", row->qnn_op_id);
        etp_node_float(o, "cycles", row->stats.p50);
    }
    a = etp_node_arr(n, "qnn_only");
    for (uint32_t k = 0; k < j->n_qnn_only; k++) {
        const etp_qnn_op_row *r = &d->rows[j->qnn_only[k]];
        etp_node *o = etp_node_obj(a, NULL);
        etp_node_str(o, "qnn_op", r->qnn_op);
        if (r->has_op_id) etp_node_uint(o, "op_id", r->op_id);
        else etp_node_null(o, "op_id");
        etp_node_int(o, "cycles", r->cycles);
    }
    a = etp_node_arr(n, "name_only");
    for (uint32_t k = 0; k < j->n_pairs; k++) {
        const etp_qnn_etd_pair *p = &j->pairs[k];
        if (!p->trusted || p->by_id) continue;
        const etp_qnn_op_row *r = &d->rows[p->qnn_row];
        etp_node *o = etp_node_obj(a, NULL);
        etp_node_str(o, "etdump_node", row_name(c, p->ops_row));
        etp_node_int(o, "etdump_op_id", etp_ops_row_get(c->r, p->ops_row)->qnn_op_id);
        etp_node_str(o, "qnn_op", r->qnn_op);
        if (r->has_op_id) etp_node_uint(o, "qnn_op_id", r->op_id);
        else etp_node_null(o, "qnn_op_id");
    }
    a = etp_node_arr(n, "conflicts");
    for (uint32_t k = 0; k < j->n_pairs; k++) {
        const etp_qnn_etd_pair *p = &j->pairs[k];
        if (p->trusted) continue;
        const etp_qnn_op_row *r = &d->rows[p->qnn_row];
        etp_node *o = etp_node_obj(a, NULL);
        etp_node_str(o, "etdump_node", row_name(c, p->ops_row));
        etp_node_str(o, "qnn_op", r->qnn_op);
        etp_node_int(o, "op_id", etp_ops_row_get(c->r, p->ops_row)->qnn_op_id);
        etp_node_bool(o, "by_op_id", p->by_id);
    }
    etp_node *ca = etp_node_obj(n, "cycle_agreement");
    etp_node_uint(ca, "compared", j->cycles_compared);
    etp_node_uint(ca, "equal", j->cycles_equal);
    etp_node_uint(ca, "different", j->cycles_different);
    etp_node_int(ca, "max_abs_diff_cycles", j->max_abs_diff);
    etp_node_str(ca, "verdict", etp_qnn_etd_agreement(j));
    a = etp_node_arr(ca, "different_ops");
    for (uint32_t k = 0; k < j->n_pairs; k++) {
        const etp_qnn_etd_pair *p = &j->pairs[k];
        const etp_qnn_op_row *r = &d->rows[p->qnn_row];
        if (!p->cycles_differ) continue;
        etp_node *o = etp_node_obj(a, NULL);
        etp_node_str(o, "qnn_op", r->qnn_op);
        etp_node_float(o, "etdump_cycles", p->etdump_cycles);
        etp_node_int(o, "qnn_cycles", r->cycles);
    }
}

static void fact_check(const qctx *c, etp_node *n) {
    etp_node *ov = etp_node_obj(n, "optrace_vs_qhas");
    etp_node *a = etp_node_arr(ov, "mismatches");
    for (uint32_t k = 0; k < c->n_mm; k++) {
        etp_node *o = etp_node_obj(a, NULL);
        etp_node_str(o, "qnn_op", c->mm[k].qnn_op);
        etp_qnn_node_i64(o, "optrace_cycles", c->mm[k].optrace_cycles);
        etp_qnn_node_i64(o, "qhas_cycles", c->mm[k].qhas_cycles);
    }
    etp_node_bool(ov, "agree", c->n_mm == 0);
}

static const char *agreement_message(const qctx *c) {
    const char *v = etp_qnn_etd_agreement(c->j);
    if (strcmp(v, "same_run") == 0)
        return "every matched op has the same cycles in the ETDump and the QNN files: they come "
               "from the same run (one measurement, read twice)";
    if (strcmp(v, "none") == 0) return "no op could be compared";
    if (strcmp(v, "mixed") == 0)
        return "some matched ops have equal cycles and some do not (both are shown per op: "
               "ETDump cycles p50 vs cycles): not one clean run; the files probably come from "
               "different runs, or the graph changed between them";
    return "cycles differ (both are shown per op: ETDump cycles p50 vs cycles): the ETDump and "
           "the QNN files come from different runs (optrace/QHAS are made by a separate "
           "qnn-net-run); compare shares, not absolute cycles";
}

/* The notes of the run: JSON "notes" and, in table/md, under the op table. */
static void collect_notes(const qctx *c, void (*emit)(void *, const char *), void *ctx) {
    char b[600];
    const etp_qnn_summary *s = &c->b.der->summary;
    if (c->j && etp_qnn_etd_graph_note(c->j, b, sizeof b)) emit(ctx, b);
    if (s->estimated) emit(ctx, ETP_QNN_ESTIMATED_NOTE);
    if (s->source == ETP_QNN_SRC_OPTRACE)
        emit(ctx, "summary computed from the optrace (no --qhas): utilization = union of the "
                  "attributed ops' intervals over their span; no DRAM/VTCM byte totals");
    if (etp_qnn_scope_note(s->htp_cores, b, sizeof b)) emit(ctx, b);
    if (etp_qnn_soc_vtcm_note(&c->soc, b, sizeof b) > 0) emit(ctx, b);
    if (c->soc.differs)
        emit(ctx, "the program's QnnBackend delegates were compiled for different SoCs or VTCM "
                  "budgets: the first one's is shown");
    if (c->soc.unreadable) {
        char e[400];
        etp_error_format(&c->soc.error, e, sizeof e);
        snprintf(b, sizeof b, "%u qnn_compile_spec(s) of the program could not be read, so "
                 "the SoC and VTCM budget may be unknown: %s", c->soc.unreadable, e);
        emit(ctx, b);
    }
    if (!isnan(c->clock_ghz)) {
        snprintf(b, sizeof b, "HTP clock %.4g GHz: %s", c->clock_ghz, clock_meaning(c));
        emit(ctx, b);
    }
    if (c->checked) {
        if (c->n_mm == 0) emit(ctx, "optrace per-op cycles equal the QHAS per-op cycles");
        else {
            snprintf(b, sizeof b,
                     "%u QNN op(s) have different cycles in the optrace and the QHAS (or are in "
                     "one only): were they made from the same profiling log?",
                     c->n_mm);
            emit(ctx, b);
        }
    }
    if (c->j) {
        snprintf(b, sizeof b, "join: %s", agreement_message(c));
        emit(ctx, b);
        if (c->j->conflicts) {
            snprintf(b, sizeof b,
                     "join: %u ETDump node(s) share an OpId with a QNN op of another name: "
                     "those are not matched",
                     c->j->conflicts);
            emit(ctx, b);
        }
        if (c->j->qnn < 0) emit(ctx, "join: the ETDump has no QNN HTP node events");
    }
}

static void fill_facts(const qctx *c, etp_doc *doc, etp_table *ops) {
    etp_node *root = etp_doc_root(doc);
    etp_node *in = etp_node_obj(root, "inputs");
    etp_node_str(in, "etdump", c->etdump);
    etp_node_str(in, "program", c->a->set[OPT_PTE] ? c->a->val[OPT_PTE] : NULL);
    etp_node_str(in, "qhas", c->paths.qhas);
    etp_node_str(in, "optrace", c->paths.optrace);
    etp_node_str(in, "runtrace", c->paths.runtrace);
    etp_node_str(in, "heap", c->paths.heap);
    etp_node_str(root, "rows_source", etp_qnn_source_name(c->b.der->rows_source));
    fact_summary(c, etp_node_obj(root, "summary"));
    if (c->soc.present) {
        etp_node *so = etp_node_obj(root, "soc");
        cli_node_qnn_soc(so, &c->soc);
        etp_qnn_node_f64(so, "peak_vtcm_share", etp_qnn_vtcm_share(&c->b.der->summary, &c->soc));
        etp_node_str(so, "source", "pte qnn_compile_spec");
    } else {
        etp_node_null(root, "soc");
    }
    etp_node_table(root, "ops", ops);
    if (c->j) fact_join(c, etp_node_obj(root, "join"));
    if (c->checked) fact_check(c, etp_node_obj(root, "checks"));
    collect_notes(c, note_doc, doc);
}

/* ------------------------------------------------------------------------------------------- */
/* table and md: a heading, the summary, the op table, the join */

static const etp_col sum_cols[] = {
    {"item", "summary", NULL, ETP_T_STR, false, 0},
    {"value", "value", NULL, ETP_T_FLOAT, true, 3},
    {"unit", "unit", NULL, ETP_T_STR, false, 0},
    {"note", "note", NULL, ETP_T_STR, true, 0},
};

static void s_row(etp_table *t, const char *item, bool has, bool is_int, int64_t iv, double fv,
                  const char *unit, const char *note) {
    etp_table_row(t);
    etp_table_str(t, item);
    if (!has) etp_table_null(t);
    else if (is_int) etp_table_int(t, iv);
    else etp_table_float(t, fv);
    etp_table_str(t, unit);
    etp_table_str(t, note);
}

static void s_i64(etp_table *t, const char *item, etp_qnn_i64 v, const char *unit, const char *note) {
    s_row(t, item, v.has, true, v.v, 0, unit, note);
}

static void s_f64(etp_table *t, const char *item, etp_qnn_f64 v, const char *unit, const char *note) {
    s_row(t, item, v.has, false, 0, v.v, unit, note);
}

/* an execute time: whole us as a QHAS writes them, to the tick (3 decimals) from a runtrace */
static void s_time(etp_table *t, const char *item, etp_qnn_f64 v, etp_qnn_source src,
                   const char *note) {
    bool whole = src == ETP_QNN_SRC_QHAS && v.has && v.v == floor(v.v) && fabs(v.v) < 9e18;
    s_row(t, item, v.has, whole, whole ? (int64_t)v.v : 0, v.v, "us", note);
}

static etp_table *summary_table(const qctx *c, etp_doc *doc) {
    const etp_qnn_derived *d = c->b.der;
    const etp_qnn_summary *s = &d->summary;
    etp_table *t = etp_doc_table(doc, sum_cols, 4);
    if (!t) return NULL;
    /* a narrow terminal loses these first */
    static const char *const drop[] = {"note:1", NULL};
    etp_table_droppable(t, drop);
    char nb[300];
    const char *src = s->source == ETP_QNN_SRC_QHAS ? "QHAS htp_overall_summary"
                      : s->source == ETP_QNN_SRC_OPTRACE ? "computed from the optrace"
                                                         : "no QHAS or optrace summary";
    s_f64(t, "NPU utilization", s->utilization_percent, "%",
          "share of the graph timeline with at least one HTP unit busy");
    s_f64(t, "NPU idle", s->idle_percent, "%", src);
    s_time(t, "graph execute time", s->graph_execute_time_us, s->graph_execute_source,
           etp_qnn_exec_time_meaning(s->graph_execute_source, true, s->estimated));
    s_time(t, "DSP execute time", s->dsp_execute_time_us, s->dsp_execute_source,
           etp_qnn_exec_time_meaning(s->dsp_execute_source, false, s->estimated));
    s_i64(t, "timeline", s->timeline_cycles, "cycles", "graph wall span on the HTP");
    s_row(t, "HTP clock", !isnan(c->clock_ghz), false, 0, c->clock_ghz, "GHz", clock_meaning(c));
    s_i64(t, "peak VTCM", s->peak_vtcm_bytes, "bytes", "largest VTCM allocation during the graph");
    if (c->soc.present && c->soc.vtcm_mb) {
        char sn[64];
        etp_qnn_soc_name(&c->soc, sn, sizeof sn);
        snprintf(nb, sizeof nb, "compiled for %s (.pte qnn_compile_spec)", sn);
        s_row(t, "VTCM budget", true, true, (int64_t)c->soc.vtcm_mb * 1048576, 0, "bytes", nb);
        s_f64(t, "peak VTCM share", etp_qnn_vtcm_share(s, &c->soc), "%", "peak VTCM / VTCM budget");
    }
    s_i64(t, "DRAM read", s->dram_read_bytes, "bytes", NULL);
    s_i64(t, "DRAM write", s->dram_write_bytes, "bytes", NULL);
    s_i64(t, "VTCM read", s->vtcm_read_bytes, "bytes", NULL);
    s_i64(t, "VTCM write", s->vtcm_write_bytes, "bytes", NULL);
    s_i64(t, "HMX busy", s->hmx_busy_cycles, "cycles",
          "the HMX thread(s): HMX compute plus the DMA and sync ops that thread runs");
    s_f64(t, "HMX busy share", s->hmx_busy_share, "%", "HMX busy / timeline");
    s_i64(t, "HMX compute", s->hmx_op_cycles, "cycles",
          "HTP ops using HMX (flag uses_hmx): the HMX unit's own work");
    s_f64(t, "HMX compute share", s->hmx_op_share, "%", "HMX compute / timeline");
    snprintf(nb, sizeof nb, "%u HVX thread(s)", s->hvx_threads);
    s_i64(t, "HVX busy", s->hvx_busy_cycles, "cycles", nb);
    s_f64(t, "HVX busy share", s->hvx_busy_share, "%",
          "HVX busy / (timeline x HVX threads): mean HVX thread load");
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const etp_qnn_thread_busy *th = &s->threads[i];
        char item[64];
        snprintf(item, sizeof item, "thread %lld %s busy", (long long)th->tid,
                 th->type ? th->type : "?");
        if (th->share.has) snprintf(nb, sizeof nb, "%.2f%% of the timeline", th->share.v);
        s_row(t, item, true, true, th->busy_cycles, 0, "cycles", th->share.has ? nb : NULL);
    }
    const etp_qnn_critical_path *cp = c->cp;
    if (cp->present) {
        snprintf(nb, sizeof nb, "%u step(s) from the %s; plus %lld idle cycles", cp->steps,
                 strcmp(cp->source, "qhas") == 0 ? "QHAS dominant_path_htp_0" : "optrace",
                 (long long)cp->idle_cycles);
        s_row(t, "critical path", true, true, cp->path_cycles, 0, "cycles", nb);
        for (uint32_t k = 0; k < cp->n_ops && k < DP_TOP; k++) {
            const etp_qnn_cp_op *op = &cp->ops[k];
            char item[300];
            snprintf(item, sizeof item, "  critical path: %s", op->qnn_op);
            snprintf(nb, sizeof nb, "%u step(s), %.2f%% of the timeline", op->steps,
                     isnan(op->share_percent) ? 0.0 : op->share_percent);
            s_row(t, item, true, true, op->dp_cycles, 0, "cycles", nb);
        }
    }
    s_i64(t, "DSP heap before", s->heap_before_bytes, "bytes", "DSP:before_context_created");
    s_i64(t, "DSP heap after", s->heap_after_bytes, "bytes", "DSP:after_context_freed");
    s_i64(t, "DSP heap delta", s->heap_delta_bytes, "bytes", "after - before");
    etp_qnn_unit_counts uc;
    etp_qnn_unit_counts_get(d, &uc);
    s_row(t, "QNN ops", true, true, uc.qnn_ops, 0, "count", NULL);
    s_row(t, "QNN ops using HMX", true, true, uc.hmx, 0, "count", NULL);
    s_row(t, "QNN ops using HVX", true, true, uc.hvx, 0, "count", NULL);
    s_row(t, "QNN ops using DMA", true, true, uc.dma, 0, "count", NULL);
    etp_table_note(t, "cycles are HTP processor cycles; per-op and per-thread cycles are busy "
                      "cycles (work), the timeline is wall span; - = not in the files given");
    return t;
}

static const etp_col join_cols[] = {
    {"side", "join", NULL, ETP_T_STR, false, 0},
    {"name", "name", NULL, ETP_T_STR, false, 0},
    {"op_id", "OpId", NULL, ETP_T_INT, true, 0},
    {"etdump_cycles", "ETDump cycles p50", NULL, ETP_T_FLOAT, true, 0},
    {"qnn_cycles", "QNN cycles", NULL, ETP_T_INT, true, 0},
};

static void j_row(etp_table *t, const char *side, const char *name, bool has_id, int64_t id,
                  double etd, bool has_q, int64_t qc) {
    etp_table_row(t);
    etp_table_str(t, side);
    etp_table_str(t, name);
    if (has_id) etp_table_int(t, id);
    else etp_table_null(t);
    etp_table_float(t, etd);
    if (has_q) etp_table_int(t, qc);
    else etp_table_null(t);
}

static int join_report(const qctx *c, etp_doc *doc, etp_section *s, bool md) {
    const etp_qnn_etd_join *j = c->j;
    const etp_qnn_derived *d = c->b.der;
    const etp_ops_qnn *q = j->qnn >= 0 ? etp_ops_qnn_get(c->r, (size_t)j->qnn) : NULL;
    etp_section_textf(s, 0, 0, "\n%sjoin with %s", md ? "## " : "", c->etdump);
    if (q) {
        /* the method's name comes from the program: written as table cells are (valid UTF-8,
         * control characters and line breaks as spaces) */
        const char *mn = etp_ops_method_get(c->r, q->method)->name;
        etp_section_textf(s, ETP_TEXT_CELL, 0, " (method %s, instruction %d)", mn ? mn : "unknown",
                          etp_ops_row_get(c->r, q->delegate_row)->instr);
    }
    etp_section_textf(s, ETP_TEXT_WRAP, 0,
                      ":%s%u of %u ETDump HTP node(s) matched a QNN op (%u by OpId and name, %u by "
                      "name only); %u ETDump node(s) have no QNN op; %u QNN op(s) have no ETDump "
                      "node; %u OpId conflict(s). Cycles: %u equal, %u different (largest "
                      "difference %lld cycles): %s.\n\n",
                      md ? "\n\n" : "\n", j->matched, j->n_nodes, j->matched_by_id,
                      j->matched_by_name, j->n_etdump_only, j->n_qnn_only, j->conflicts,
                      j->cycles_equal, j->cycles_different, (long long)j->max_abs_diff,
                      agreement_message(c));
    etp_table *t = etp_doc_table(doc, join_cols, 5);
    if (!t) return EXIT_INTERNAL;
    etp_section_table(s, t);
    static const char *const drop[] = {"op_id:2", "qnn_cycles:1", NULL};
    etp_table_droppable(t, drop);
    uint32_t shown = 0, more = 0;
    for (uint32_t k = 0; k < j->n_etdump_only; k++) {
        const etp_ops_row *row = etp_ops_row_get(c->r, j->etdump_only[k]);
        if (shown++ >= LIST_MAX) {
            more++;
            continue;
        }
        j_row(t, "etdump only", row->name, true, row->qnn_op_id, row->stats.p50, false, 0);
    }
    shown = 0;
    for (uint32_t k = 0; k < j->n_qnn_only; k++) {
        const etp_qnn_op_row *r = &d->rows[j->qnn_only[k]];
        if (shown++ >= LIST_MAX) {
            more++;
            continue;
        }
        j_row(t, "qnn only", r->qnn_op, r->has_op_id, r->op_id, NAN, true, r->cycles);
    }
    shown = 0;
    for (uint32_t k = 0; k < j->n_pairs; k++) {
        const etp_qnn_etd_pair *p = &j->pairs[k];
        const etp_qnn_op_row *r = &d->rows[p->qnn_row];
        char nm[600];
        if (!p->trusted || p->by_id) continue;
        if (shown++ >= LIST_MAX) {
            more++;
            continue;
        }
        snprintf(nm, sizeof nm, "%s (QNN OpId %s%u)", row_name(c, p->ops_row),
                 r->has_op_id ? "" : "unknown ", r->has_op_id ? r->op_id : 0);
        j_row(t, "name only", nm, true, etp_ops_row_get(c->r, p->ops_row)->qnn_op_id,
              p->etdump_cycles, true, r->cycles);
    }
    shown = 0;
    for (uint32_t k = 0; k < j->n_pairs; k++) {
        const etp_qnn_etd_pair *p = &j->pairs[k];
        const etp_qnn_op_row *r = &d->rows[p->qnn_row];
        char nm[600];
        if (p->trusted) continue;
        if (shown++ >= LIST_MAX) {
            more++;
            continue;
        }
        snprintf(nm, sizeof nm, "%s <> %s", row_name(c, p->ops_row), r->qnn_op);
        j_row(t, "OpId conflict", nm, true, etp_ops_row_get(c->r, p->ops_row)->qnn_op_id,
              p->etdump_cycles, true, r->cycles);
    }
    shown = 0;
    for (uint32_t k = 0; k < j->n_pairs; k++) {
        const etp_qnn_etd_pair *p = &j->pairs[k];
        const etp_qnn_op_row *r = &d->rows[p->qnn_row];
        if (!p->cycles_differ) continue;
        if (shown++ >= LIST_MAX) {
            more++;
            continue;
        }
        j_row(t, "cycles differ", r->qnn_op, r->has_op_id, r->op_id, p->etdump_cycles, true,
              r->cycles);
    }
    if (more) {
        char b[200];
        snprintf(b, sizeof b, "%u more entr%s not listed (at most %d per kind here; --format "
                 "json lists them all)", more, more == 1 ? "y" : "ies", LIST_MAX);
        etp_table_note(t, b);
    }
    return EXIT_OK;
}

static int fill_report(const qctx *c, etp_doc *doc, etp_table *ops) {
    bool md = c->fmt == ETP_FMT_MD;
    etp_section *s = etp_doc_section(doc, "qnn");
    /* the heading wraps to the terminal width (table format), continuations indented */
    etp_section_textf(s, ETP_TEXT_WRAP, 2, "%sQNN HTP profile:%s%s%s%s%s%s%s%s%s\n\n", md ? "# " : "",
                      c->paths.qhas ? " qhas " : "", c->paths.qhas ? c->paths.qhas : "",
                      c->b.der->summary.estimated ? " (estimated on the host, Hextimate)" : "",
                      c->paths.optrace ? (c->paths.qhas ? "; optrace " : " optrace ") : "",
                      c->paths.optrace ? c->paths.optrace : "", c->paths.runtrace ? "; runtrace " : "",
                      c->paths.runtrace ? c->paths.runtrace : "", c->paths.heap ? "; heap " : "",
                      c->paths.heap ? c->paths.heap : "");
    char gn[600];
    if (c->j && etp_qnn_etd_graph_note(c->j, gn, sizeof gn))
        etp_section_textf(s, ETP_TEXT_WRAP, 2, "warning: %s\n\n", gn);
    etp_table *st = summary_table(c, doc);
    if (!st) return EXIT_INTERNAL;
    etp_section_table(s, st);
    etp_section_textf(s, 0, 0, "\n%sper QNN op\n\n", md ? "## " : "");
    static const char *const drop[] = {
        "vtcm_write_bytes:13", "vtcm_read_bytes:12", "dram_write_bytes:11", "dram_read_bytes:10",
        "htp_ops:9", "dma:8", "hvx:7", "hmx:6", "dominant_path_cycles:5", "op_id:4",
        "etdump_cycles:3", "qnn_op_type:2", NULL};
    etp_table_droppable(ops, drop);
    etp_section_table(s, ops);
    if (c->j) return join_report(c, doc, s, md);
    return EXIT_OK;
}

/* The one document of a run: the JSON facts, the op rows (csv/tsv/jsonl) and, for table/md, the
 * report. JSON: {schema_version, inputs, rows_source, summary, ops, join, checks, notes}. */
static int fill_doc(qctx *c, etp_doc *doc) {
    bool text = text_view(c->fmt);
    /* without an ETDump the last column would be empty: the text views leave it out (the data
     * formats keep it, null) */
    etp_table *ops = etp_doc_table(doc, op_cols, text && !c->j ? NOPCOLS - 1 : NOPCOLS);
    if (!ops) return EXIT_INTERNAL;
    for (uint32_t k = 0; k < c->n_order; k++) op_row(c, ops, c->order[k]);
    op_notes(c, ops);
    collect_notes(c, note_tab, ops);
    fill_facts(c, doc, ops);
    etp_doc_flat(doc, ops);
    return text ? fill_report(c, doc, ops) : EXIT_OK;
}

/* ------------------------------------------------------------------------------------------- */
/* qnn-profile-viewer mode */

static int run_viewer(cli_args *a) {
    bool csv = a->set[OPT_PROFILE_CSV];
    const char *path = csv ? a->val[OPT_PROFILE_CSV] : a->val[OPT_PROFILE_LOG];
    etp_format fmt = a->fmt;
    etp_error err = {0};
    etp_qnn_viewer *v = NULL;
    int rc = csv ? etp_qnn_read_viewer_csv(path, &v, &err) : etp_qnn_read_viewer_text(path, &v, &err);
    if (rc) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        etp_qnn_viewer_free(v);
        return rc;
    }
    /* one document: the JSON facts, the event table (every other format) */
    etp_doc *doc = etp_qnn_viewer_doc(v, path, fmt);
    rc = doc ? cli_render(a, &o, doc) : EXIT_INTERNAL;
    etp_doc_free(doc);
    etp_qnn_viewer_free(v);
    return cli_out_close(&o, rc);
}

/* ------------------------------------------------------------------------------------------- */

static void progress(void *ctx, uint64_t done, uint64_t total) {
    cli_progress(ctx, "qnn", done, total);
}

static void qctx_free(qctx *c) {
    free(c->order);
    free(c->mm);
    etp_qnn_critical_path_free(c->cp);
    etp_qnn_etd_join_free(c->j);
    etp_ops_free(c->r);
    if (c->have_in) cli_close_inputs(&c->in);
    etp_qnn_bundle_free(&c->b);
}

static int run_qnn(cli_args *a) {
    bool viewer = a->set[OPT_PROFILE_LOG] || a->set[OPT_PROFILE_CSV];
    if (viewer) {
        if (a->set[OPT_PROFILE_LOG] && a->set[OPT_PROFILE_CSV]) {
            cli_errorf("qnn: give --profile-log or --profile-csv, not both");
            return EXIT_USAGE;
        }
        if (a->npos || a->set[OPT_QHAS] || a->set[OPT_OPTRACE] || a->set[OPT_RUNTRACE] ||
            a->set[OPT_HEAP] || a->set[OPT_PTE]) {
            cli_errorf("qnn: --profile-log/--profile-csv stand alone (no ETDUMP, --pte, --qhas, "
                       "--optrace, --runtrace or --heap)");
            return EXIT_USAGE;
        }
        return run_viewer(a);
    }
    if (!a->set[OPT_QHAS] && !a->set[OPT_OPTRACE]) {
        cli_errorf("qnn: give --qhas F and/or --optrace F (or --profile-log F / --profile-csv F); "
                   "see 'etprof qnn --help'");
        return EXIT_USAGE;
    }
    if (a->set[OPT_PTE] && a->npos == 0) {
        cli_errorf("qnn: --pte needs an ETDUMP argument");
        return EXIT_USAGE;
    }
    long top = 0, skip = 0;
    double ghz = NAN;
    if (a->set[OPT_TOP] && (!cli_get_long(a, OPT_TOP, &top) || top < 0)) {
        cli_errorf("qnn: --top: expected a number >= 0, got \"%s\"", a->val[OPT_TOP]);
        return EXIT_USAGE;
    }
    if (a->set[OPT_SKIP_FIRST] && (!cli_get_long(a, OPT_SKIP_FIRST, &skip) || skip < 0)) {
        cli_errorf("qnn: --skip-first: expected a number >= 0, got \"%s\"", a->val[OPT_SKIP_FIRST]);
        return EXIT_USAGE;
    }
    if (a->set[OPT_HTP_CLOCK_GHZ] && (!cli_get_double(a, OPT_HTP_CLOCK_GHZ, &ghz) || ghz <= 0)) {
        cli_errorf("qnn: --htp-clock-ghz: expected a positive number, got \"%s\"",
                   a->val[OPT_HTP_CLOCK_GHZ]);
        return EXIT_USAGE;
    }
    const char *sort = a->set[OPT_SORT] ? a->val[OPT_SORT] : "cycles";
    if (!etp_qnn_rows_sort_key_valid(sort)) {
        cli_errorf("qnn: --sort: unknown key \"%s\" (order, cycles, share, dominant_path_cycles, "
                   "htp_ops, dram_read_bytes, dram_write_bytes, vtcm_read_bytes, "
                   "vtcm_write_bytes, etdump_cycles, op_id, qnn_op, qnn_op_type)",
                   sort);
        return EXIT_USAGE;
    }
    qctx *c = calloc(1, sizeof *c);
    if (!c) {
        cli_errorf("out of memory");
        return EXIT_INTERNAL;
    }
    c->a = a;
    c->fmt = a->fmt;
    c->paths = (etp_qnn_paths){a->set[OPT_QHAS] ? a->val[OPT_QHAS] : NULL,
                               a->set[OPT_OPTRACE] ? a->val[OPT_OPTRACE] : NULL,
                               a->set[OPT_RUNTRACE] ? a->val[OPT_RUNTRACE] : NULL,
                               a->set[OPT_HEAP] ? a->val[OPT_HEAP] : NULL};
    c->etdump = a->npos ? a->pos[0] : NULL;
    etp_error err = {0};
    int rc = etp_qnn_bundle_load(&c->paths, &c->b, &err);
    if (rc) {
        cli_error(&err);
        free(c);
        return cli_exit_for(rc);
    }
    c->clock_ghz = etp_qnn_clock(ghz, &c->b, &c->clock_source);
    if ((rc = etp_qnn_critical_path_get(c->b.der, &c->cp, &err))) goto fail_err;
    if (c->b.qhas && c->b.trace) {
        c->checked = true;
        if ((rc = etp_qnn_check_optrace_qhas(c->b.trace, c->b.qhas, &c->mm, &c->n_mm, &err)))
            goto fail_err;
    }
    if (c->etdump) {
        if ((rc = cli_open_inputs(a, c->etdump, &c->in))) {
            qctx_free(c);
            free(c);
            return rc;
        }
        c->have_in = true;
        etp_qnn_program_soc(c->in.prog, &c->in.pte_blob, &c->soc);
        etp_ops_opts oo;
        etp_ops_opts_init(&oo);
        oo.block = a->set[OPT_BLOCK] ? a->val[OPT_BLOCK] : NULL;
        oo.skip_first = (uint32_t)skip;
        oo.progress = progress;
        oo.progress_ctx = a;
        rc = etp_ops_compute(c->in.model, &oo, &c->r, &err);
        cli_progress_end(a);
        if (rc) goto fail_err;
        if ((rc = etp_qnn_join_etdump(c->r, c->b.der, &c->j, &err))) goto fail_err;
    }
    if (make_order(c, sort, (size_t)top)) {
        cli_errorf("out of memory");
        qctx_free(c);
        free(c);
        return EXIT_INTERNAL;
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        qctx_free(c);
        free(c);
        return rc;
    }
    /* one document for every format */
    etp_doc *doc = etp_doc_new("qnn", 1, c->etdump, a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL);
    if (!doc) {
        rc = EXIT_INTERNAL;
    } else {
        etp_doc_envelope(doc, 0); /* the JSON names its inputs in "inputs" */
        rc = fill_doc(c, doc);
        if (!rc) rc = cli_render(a, &o, doc);
        etp_doc_free(doc);
    }
    if (!rc && ferror(o.f)) rc = EXIT_IO;
    if (rc && rc != EXIT_IO) cli_errorf("out of memory"); /* cli_out_close reports EXIT_IO */
    qctx_free(c);
    free(c);
    return cli_out_close(&o, rc);
fail_err:
    cli_error(&err);
    qctx_free(c);
    free(c);
    return cli_exit_for(rc);
}

static const opt_id qnn_opts[] = {OPT_QHAS,        OPT_OPTRACE,  OPT_RUNTRACE,  OPT_HEAP,
                                  OPT_PROFILE_LOG, OPT_PROFILE_CSV, OPT_PTE,    OPT_METHOD,
                                  OPT_IGNORE_MISMATCH,
                                  OPT_TICK_NS,     OPT_TICK_HZ,  OPT_TICKS,     OPT_BLOCK,
                                  OPT_SKIP_FIRST,  OPT_HTP_CLOCK_GHZ, OPT_SORT, OPT_TOP,
                                  OPT_NONE};

const cli_cmd cmd_qnn = {
    .name = "qnn",
    .summary = "QNN's own profiling files: HMX vs HVX per op, VTCM/DRAM, NPU utilization, clock; "
               "joined to the ETDump",
    .usage = "[ETDUMP [--pte P]] --qhas F [--optrace F] [--runtrace F] [--heap F]\n"
             "       etprof qnn --profile-log F | --profile-csv F",
    .help = "With --qhas (QNN HTP analysis summary JSON) and/or --optrace (Chrome trace): one row\n"
            "per QNN op with its cycles, critical-path cycles, share, HMX/HVX/DMA use (any of its\n"
            "HTP ops uses the unit), HTP op count and DRAM/VTCM bytes (QHAS), and a summary: NPU\n"
            "utilization, graph time, timeline, HTP clock (--runtrace measures it; else QHAS\n"
            "timeline / graph time; --htp-clock-ghz overrides), peak VTCM, DRAM/VTCM traffic, HMX\n"
            "and HVX busy cycles, per-thread busy cycles, the critical path and (--heap) the DSP\n"
            "heap. With an ETDUMP, its HTP node events are joined to the QNN ops by OpId and name:\n"
            "nodes on one side only, OpId conflicts, and whether the cycles agree (same run) or\n"
            "not (different runs). Rows sort by --sort (default cycles; order keeps file order).\n"
            "table/md: summary, op table, join; json: {schema_version, summary, ops, join};\n"
            "csv/tsv/jsonl: the op rows. --profile-log/--profile-csv read qnn-profile-viewer's\n"
            "text or CSV output: per execute, the top-level events and the node cycles, without\n"
            "an ETDump. See docs/qnn-inputs.md.",
    .opts = qnn_opts,
    .min_pos = 0,
    .max_pos = 1,
    .run = run_qnn,
};
