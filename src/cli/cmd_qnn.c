/* cmd_qnn.c - `etprof qnn`: QNN's own profiling files answered in the terminal.
 *
 *   etprof qnn [ETDUMP [--pte P]] --qhas F [--optrace F] [--runtrace F] [--heap F]
 *       per-QNN-op HMX/HVX/DMA use, cycles, critical-path cycles, DRAM/VTCM bytes; the summary
 *       (utilization, clock, peak VTCM, memory traffic, unit busy cycles, critical path, heap);
 *       with an ETDump, the join of its HTP node events to the QNN ops and the cycle check.
 *   etprof qnn --profile-log F | --profile-csv F
 *       qnn-profile-viewer's own text or CSV output: the top-level and per-node view of each
 *       execute, without an ETDump.
 * See docs/qnn-inputs.md ("The qnn command"). */
#include "cli.h"
#include "analysis.h"
#include "etprof_qnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DP_TOP 5     /* critical-path ops in the summary */
#define LIST_MAX 20  /* join list entries shown in table/md (JSON has them all) */

typedef struct qctx {
    cli_args *a;
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
} qctx;

/* ------------------------------------------------------------------------------------------- */
/* small helpers */

static void j_i64(jw *w, const char *k, etp_qnn_i64 v) {
    jw_key(w, k);
    if (v.has) jw_int(w, v.v);
    else jw_null(w);
}

static void j_f64(jw *w, const char *k, etp_qnn_f64 v) {
    jw_key(w, k);
    if (v.has) jw_double(w, v.v);
    else jw_null(w);
}

static const char *clock_meaning(const qctx *c) { return etp_qnn_clock_meaning(c->clock_source); }

/* ETDump HTP node name of an ops row, for messages. */
static const char *row_name(const qctx *c, uint32_t i) { return etp_ops_row_get(c->r, i)->name; }

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
/* op table (all formats) */

static const out_col op_cols[] = {
    {"qnn_op", "QNN op", OUT_STR, 0},
    {"op_id", "OpId", OUT_UINT, 0},
    {"qnn_op_type", "type", OUT_STR, 0},
    {"cycles", "cycles", OUT_INT, 0},
    {"dominant_path_cycles", "crit.path cycles", OUT_INT, 0},
    {"share", "share %", OUT_FLOAT, 2},
    {"hmx", "HMX", OUT_BOOL, 0},
    {"hvx", "HVX", OUT_BOOL, 0},
    {"dma", "DMA", OUT_BOOL, 0},
    {"htp_ops", "HTP ops", OUT_UINT, 0},
    {"dram_read_bytes", "DRAM read B", OUT_INT, 0},
    {"dram_write_bytes", "DRAM write B", OUT_INT, 0},
    {"vtcm_read_bytes", "VTCM read B", OUT_INT, 0},
    {"vtcm_write_bytes", "VTCM write B", OUT_INT, 0},
    {"etdump_cycles", "ETDump cycles p50", OUT_FLOAT, 0},
};
#define NOPCOLS (sizeof op_cols / sizeof op_cols[0])

static void op_row(const qctx *c, out_table *t, uint32_t i) {
    const etp_qnn_op_row *r = &c->b.der->rows[i];
    out_row_begin(t);
    out_cell_str(t, r->qnn_op);
    if (r->has_op_id) out_cell_uint(t, r->op_id);
    else out_cell_null(t);
    out_cell_str(t, r->qnn_op_type);
    out_cell_int(t, r->cycles);
    out_cell_int(t, r->dominant_path_cycles);
    out_cell_float(t, r->share);
    out_cell_bool(t, r->hmx);
    out_cell_bool(t, r->hvx);
    out_cell_bool(t, r->dma);
    out_cell_uint(t, r->htp_ops);
    if (r->has_bytes) {
        out_cell_int(t, r->dram_read_bytes);
        out_cell_int(t, r->dram_write_bytes);
        out_cell_int(t, r->vtcm_read_bytes);
        out_cell_int(t, r->vtcm_write_bytes);
    } else {
        for (int k = 0; k < 4; k++) out_cell_null(t);
    }
    if (!c->j && (c->a->fmt == OUT_TABLE || c->a->fmt == OUT_MD)) {
        out_row_end(t);
        return;
    }
    double e = c->j ? c->j->row_etdump[i] : NAN;
    if (isfinite(e) && e == floor(e) && fabs(e) < 9e18) out_cell_int(t, (int64_t)e);
    else out_cell_float(t, e);
    out_row_end(t);
}

static void op_notes(const qctx *c, out_table *t) {
    const etp_qnn_derived *d = c->b.der;
    char b[400];
    snprintf(b, sizeof b,
             "%u QNN op(s) from %s%s; cycles = busy cycles of the op's HTP ops summed over the "
             "hardware threads (work, not wall time); share %% = %% of all ops' cycles (%lld); "
             "crit.path cycles = cycles on the dominant (critical) path",
             d->n_rows,
             d->rows_source == ETP_QNN_SRC_QHAS ? "the QHAS htp_op_instances" : "the optrace",
             c->n_order < d->n_rows ? " (--top)" : "", (long long)d->total_cycles);
    out_table_note(t, b);
    out_table_note(t, "HMX / HVX / DMA: true when any HTP op of the QNN op uses the unit (QHAS "
                      "booleans or optrace Flags; DMA includes dma_set and dma_wait); B = bytes");
    if (d->rows_source == ETP_QNN_SRC_OPTRACE)
        out_table_note(t, "byte columns are empty: the optrace has no per-op bytes (give --qhas)");
    if (d->unattributed_ops) {
        snprintf(b, sizeof b, "%u optrace op(s) without a QNN op name are not in the rows",
                 d->unattributed_ops);
        out_table_note(t, b);
    }
    if (c->etdump)
        out_table_note(t, "ETDump cycles p50 = the p50 over the runs of the matching ETDump HTP "
                          "node event (empty when no node matched by OpId and name)");
}

/* ------------------------------------------------------------------------------------------- */
/* JSON */

static void json_summary(const qctx *c, jw *w) {
    const etp_qnn_derived *d = c->b.der;
    const etp_qnn_summary *s = &d->summary;
    jw_obj_begin(w);
    jw_key(w, "source"); jw_str(w, etp_qnn_source_name(s->source));
    j_f64(w, "utilization_percent", s->utilization_percent);
    j_f64(w, "idle_percent", s->idle_percent);
    j_i64(w, "graph_execute_us", s->graph_execute_us);
    j_i64(w, "time_us", s->time_us);
    j_i64(w, "timeline_cycles", s->timeline_cycles);
    jw_key(w, "clock_ghz"); jw_double(w, c->clock_ghz);
    jw_key(w, "clock_source"); jw_str(w, c->clock_source);
    j_i64(w, "peak_vtcm_bytes", s->peak_vtcm_bytes);
    j_i64(w, "dram_read_bytes", s->dram_read_bytes);
    j_i64(w, "dram_write_bytes", s->dram_write_bytes);
    j_i64(w, "vtcm_read_bytes", s->vtcm_read_bytes);
    j_i64(w, "vtcm_write_bytes", s->vtcm_write_bytes);
    j_i64(w, "hmx_busy_cycles", s->hmx_busy_cycles);
    j_f64(w, "hmx_busy_share", s->hmx_busy_share);
    j_i64(w, "hvx_busy_cycles", s->hvx_busy_cycles);
    jw_key(w, "hvx_threads"); jw_uint(w, s->hvx_threads);
    j_f64(w, "hvx_busy_share", s->hvx_busy_share);
    jw_key(w, "threads");
    jw_arr_begin(w);
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const etp_qnn_thread_busy *t = &s->threads[i];
        jw_obj_begin(w);
        jw_key(w, "tid"); jw_int(w, t->tid);
        jw_key(w, "type"); jw_str(w, t->type);
        jw_key(w, "busy_cycles"); jw_int(w, t->busy_cycles);
        j_f64(w, "share", t->share);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "dominant_path");
    const etp_qnn_critical_path *cp = c->cp;
    if (!cp->present) {
        jw_null(w);
    } else {
        jw_obj_begin(w);
        jw_key(w, "source"); jw_str(w, cp->source);
        jw_key(w, "steps"); jw_uint(w, cp->steps);
        jw_key(w, "path_cycles"); jw_int(w, cp->path_cycles);
        jw_key(w, "idle_cycles"); jw_int(w, cp->idle_cycles);
        jw_key(w, "top_ops");
        jw_arr_begin(w);
        for (uint32_t k = 0; k < cp->n_ops && k < DP_TOP; k++) {
            const etp_qnn_cp_op *op = &cp->ops[k];
            jw_obj_begin(w);
            jw_key(w, "qnn_op"); jw_str(w, op->qnn_op);
            jw_key(w, "dp_cycles"); jw_int(w, op->dp_cycles);
            jw_key(w, "steps"); jw_uint(w, op->steps);
            jw_key(w, "share"); jw_double(w, op->share_percent);
            jw_obj_end(w);
        }
        jw_arr_end(w);
        jw_obj_end(w);
    }
    j_i64(w, "heap_before_bytes", s->heap_before_bytes);
    j_i64(w, "heap_after_bytes", s->heap_after_bytes);
    j_i64(w, "heap_delta_bytes", s->heap_delta_bytes);
    etp_qnn_unit_counts uc;
    etp_qnn_unit_counts_get(d, &uc);
    jw_key(w, "qnn_ops"); jw_uint(w, uc.qnn_ops);
    jw_key(w, "htp_ops"); jw_uint(w, uc.htp_ops);
    jw_key(w, "ops_using_hmx"); jw_uint(w, uc.hmx);
    jw_key(w, "ops_using_hvx"); jw_uint(w, uc.hvx);
    jw_key(w, "ops_using_dma"); jw_uint(w, uc.dma);
    jw_key(w, "ops_using_both"); jw_uint(w, uc.hmx_and_hvx);
    jw_key(w, "ops_dma_only"); jw_uint(w, uc.dma_only);
    jw_key(w, "ops_using_none"); jw_uint(w, uc.none);
    jw_key(w, "total_cycles"); jw_int(w, d->total_cycles);
    jw_obj_end(w);
}

static void json_join(const qctx *c, jw *w) {
    const etp_qnn_etd_join *j = c->j;
    const etp_qnn_derived *d = c->b.der;
    jw_obj_begin(w);
    const etp_ops_qnn *q = j->qnn >= 0 ? etp_ops_qnn_get(c->r, (size_t)j->qnn) : NULL;
    jw_key(w, "method");
    if (q) jw_str(w, etp_ops_method_get(c->r, q->method)->name);
    else jw_null(w);
    {
        etp_ops_method none = {0};
        ana_json_method_candidates(w, q ? etp_ops_method_get(c->r, q->method) : &none);
    }
    jw_key(w, "instruction_id");
    if (q) jw_int(w, etp_ops_row_get(c->r, q->delegate_row)->instr);
    else jw_null(w);
    jw_key(w, "etdump_nodes"); jw_uint(w, j->n_nodes);
    jw_key(w, "qnn_ops"); jw_uint(w, d->n_rows);
    jw_key(w, "matched"); jw_uint(w, j->matched);
    jw_key(w, "matched_by_op_id"); jw_uint(w, j->matched_by_id);
    jw_key(w, "matched_by_name_only"); jw_uint(w, j->matched_by_name);
    jw_key(w, "etdump_only");
    jw_arr_begin(w);
    for (uint32_t k = 0; k < j->n_etdump_only; k++) {
        const etp_ops_row *row = etp_ops_row_get(c->r, j->etdump_only[k]);
        jw_obj_begin(w);
        jw_key(w, "name"); jw_str(w, row->name);
        jw_key(w, "op_id"); jw_int(w, row->qnn_op_id);
        jw_key(w, "cycles"); jw_double(w, row->stats.p50);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "qnn_only");
    jw_arr_begin(w);
    for (uint32_t k = 0; k < j->n_qnn_only; k++) {
        const etp_qnn_op_row *r = &d->rows[j->qnn_only[k]];
        jw_obj_begin(w);
        jw_key(w, "qnn_op"); jw_str(w, r->qnn_op);
        jw_key(w, "op_id");
        if (r->has_op_id) jw_uint(w, r->op_id);
        else jw_null(w);
        jw_key(w, "cycles"); jw_int(w, r->cycles);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "name_only");
    jw_arr_begin(w);
    for (uint32_t k = 0; k < j->n_pairs; k++) {
        const etp_qnn_etd_pair *p = &j->pairs[k];
        if (!p->trusted || p->by_id) continue;
        const etp_qnn_op_row *r = &d->rows[p->qnn_row];
        jw_obj_begin(w);
        jw_key(w, "etdump_node"); jw_str(w, row_name(c, p->ops_row));
        jw_key(w, "etdump_op_id"); jw_int(w, etp_ops_row_get(c->r, p->ops_row)->qnn_op_id);
        jw_key(w, "qnn_op"); jw_str(w, r->qnn_op);
        jw_key(w, "qnn_op_id");
        if (r->has_op_id) jw_uint(w, r->op_id);
        else jw_null(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "conflicts");
    jw_arr_begin(w);
    for (uint32_t k = 0; k < j->n_pairs; k++) {
        const etp_qnn_etd_pair *p = &j->pairs[k];
        if (p->trusted) continue;
        const etp_qnn_op_row *r = &d->rows[p->qnn_row];
        jw_obj_begin(w);
        jw_key(w, "etdump_node"); jw_str(w, row_name(c, p->ops_row));
        jw_key(w, "qnn_op"); jw_str(w, r->qnn_op);
        jw_key(w, "op_id"); jw_int(w, etp_ops_row_get(c->r, p->ops_row)->qnn_op_id);
        jw_key(w, "by_op_id"); jw_bool(w, p->by_id);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "cycle_agreement");
    jw_obj_begin(w);
    jw_key(w, "compared"); jw_uint(w, j->cycles_equal + j->cycles_different);
    jw_key(w, "equal"); jw_uint(w, j->cycles_equal);
    jw_key(w, "different"); jw_uint(w, j->cycles_different);
    jw_key(w, "max_abs_diff_cycles"); jw_int(w, j->max_abs_diff);
    jw_key(w, "verdict"); jw_str(w, etp_qnn_etd_agreement(j));
    jw_key(w, "different_ops");
    jw_arr_begin(w);
    for (uint32_t k = 0; k < j->n_pairs; k++) {
        const etp_qnn_etd_pair *p = &j->pairs[k];
        const etp_qnn_op_row *r = &d->rows[p->qnn_row];
        if (!p->cycles_differ) continue;
        jw_obj_begin(w);
        jw_key(w, "qnn_op"); jw_str(w, r->qnn_op);
        jw_key(w, "etdump_cycles"); jw_double(w, p->etdump_cycles);
        jw_key(w, "qnn_cycles"); jw_int(w, r->cycles);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_obj_end(w);
    jw_obj_end(w);
}

static void json_check(const qctx *c, jw *w) {
    jw_obj_begin(w);
    jw_key(w, "optrace_vs_qhas");
    jw_obj_begin(w);
    jw_key(w, "mismatches");
    jw_arr_begin(w);
    for (uint32_t k = 0; k < c->n_mm; k++) {
        jw_obj_begin(w);
        jw_key(w, "qnn_op"); jw_str(w, c->mm[k].qnn_op);
        j_i64(w, "optrace_cycles", c->mm[k].optrace_cycles);
        j_i64(w, "qhas_cycles", c->mm[k].qhas_cycles);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "agree"); jw_bool(w, c->n_mm == 0);
    jw_obj_end(w);
    jw_obj_end(w);
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

static void collect_notes(const qctx *c, void (*emit)(void *, const char *), void *ctx) {
    char b[600];
    const etp_qnn_summary *s = &c->b.der->summary;
    if (s->source == ETP_QNN_SRC_OPTRACE)
        emit(ctx, "summary computed from the optrace (no --qhas): utilization = union of the "
                  "attributed ops' intervals over their span; no DRAM/VTCM byte totals");
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
                     "join: %u ETDump node(s) share an OpId with a QNN op of another name: the "
                     "files probably describe another graph; those are not matched",
                     c->j->conflicts);
            emit(ctx, b);
        }
        if (c->j->qnn < 0) emit(ctx, "join: the ETDump has no QNN HTP node events");
    }
}

static void note_jw(void *ctx, const char *s) { jw_str(ctx, s); }
static void note_tab(void *ctx, const char *s) { out_table_note(ctx, s); }

static int write_json(qctx *c, FILE *f) {
    cli_args *a = c->a;
    jw w;
    jw_init(&w, f, true);
    jw_obj_begin(&w);
    jw_key(&w, "schema_version"); jw_int(&w, 1);
    jw_key(&w, "inputs");
    jw_obj_begin(&w);
    jw_key(&w, "etdump"); jw_str(&w, c->etdump);
    jw_key(&w, "program"); jw_str(&w, a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL);
    jw_key(&w, "qhas"); jw_str(&w, c->paths.qhas);
    jw_key(&w, "optrace"); jw_str(&w, c->paths.optrace);
    jw_key(&w, "runtrace"); jw_str(&w, c->paths.runtrace);
    jw_key(&w, "heap"); jw_str(&w, c->paths.heap);
    jw_obj_end(&w);
    jw_key(&w, "rows_source"); jw_str(&w, etp_qnn_source_name(c->b.der->rows_source));
    jw_key(&w, "summary");
    json_summary(c, &w);
    jw_key(&w, "ops");
    out_table *t = out_table_new_in_json(&w, op_cols, NOPCOLS);
    if (!t) return EXIT_INTERNAL;
    for (uint32_t k = 0; k < c->n_order; k++) op_row(c, t, c->order[k]);
    int rc = out_table_finish(t);
    out_table_free(t);
    if (rc) return rc == ETP_E_IO ? EXIT_IO : EXIT_INTERNAL;
    if (c->j) {
        jw_key(&w, "join");
        json_join(c, &w);
    }
    if (c->checked) {
        jw_key(&w, "checks");
        json_check(c, &w);
    }
    jw_key(&w, "notes");
    jw_arr_begin(&w);
    collect_notes(c, note_jw, &w);
    jw_arr_end(&w);
    jw_obj_end(&w);
    fflush(f);
    rc = jw_finish(&w);
    fputc('\n', f);
    return rc ? EXIT_IO : EXIT_OK;
}

/* ------------------------------------------------------------------------------------------- */
/* table and md */

static const out_col sum_cols[] = {
    {"item", "summary", OUT_STR, 0},
    {"value", "value", OUT_FLOAT, 3},
    {"unit", "unit", OUT_STR, 0},
    {"note", "note", OUT_STR, 0},
};

static void s_row(out_table *t, const char *item, bool has, bool is_int, int64_t iv, double fv,
                  const char *unit, const char *note) {
    out_row_begin(t);
    out_cell_str(t, item);
    if (!has) out_cell_null(t);
    else if (is_int) out_cell_int(t, iv);
    else out_cell_float(t, fv);
    out_cell_str(t, unit);
    out_cell_str(t, note);
    out_row_end(t);
}

static void s_i64(out_table *t, const char *item, etp_qnn_i64 v, const char *unit, const char *note) {
    s_row(t, item, v.has, true, v.v, 0, unit, note);
}

static void s_f64(out_table *t, const char *item, etp_qnn_f64 v, const char *unit, const char *note) {
    s_row(t, item, v.has, false, 0, v.v, unit, note);
}

static int write_summary_table(qctx *c, cli_out *o) {
    const etp_qnn_derived *d = c->b.der;
    const etp_qnn_summary *s = &d->summary;
    out_table *t = cli_table(c->a, o, sum_cols, 4);
    if (!t) return EXIT_INTERNAL;
    /* a narrow terminal loses these first (out_table_set_droppable) */
    static const char *const drop[] = {"note:1", NULL};
    out_table_set_droppable(t, drop);
    char nb[300];
    const char *src = s->source == ETP_QNN_SRC_QHAS ? "QHAS htp_overall_summary"
                      : s->source == ETP_QNN_SRC_OPTRACE ? "computed from the optrace"
                                                         : "no QHAS or optrace summary";
    s_f64(t, "NPU utilization", s->utilization_percent, "%",
          "share of the graph timeline with at least one HTP unit busy");
    s_f64(t, "NPU idle", s->idle_percent, "%", src);
    s_i64(t, "graph execute time", s->graph_execute_us, "us",
          "runtrace Graph Execute (= Accelerator (execute excluding wait) time), truncated");
    s_i64(t, "DSP execute time", s->time_us, "us", "runtrace QNN DSP Execute, truncated");
    s_i64(t, "timeline", s->timeline_cycles, "cycles", "graph wall span on the HTP");
    s_row(t, "HTP clock", !isnan(c->clock_ghz), false, 0, c->clock_ghz, "GHz", clock_meaning(c));
    s_i64(t, "peak VTCM", s->peak_vtcm_bytes, "bytes", "largest VTCM allocation during the graph");
    s_i64(t, "DRAM read", s->dram_read_bytes, "bytes", NULL);
    s_i64(t, "DRAM write", s->dram_write_bytes, "bytes", NULL);
    s_i64(t, "VTCM read", s->vtcm_read_bytes, "bytes", NULL);
    s_i64(t, "VTCM write", s->vtcm_write_bytes, "bytes", NULL);
    s_i64(t, "HMX busy", s->hmx_busy_cycles, "cycles", "HMX thread(s)");
    s_f64(t, "HMX busy share", s->hmx_busy_share, "%", "HMX busy / timeline");
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
    out_table_note(t, "cycles are HTP processor cycles; per-op and per-thread cycles are busy "
                      "cycles (work), the timeline is wall span; - = not in the files given");
    int rc = out_table_finish(t);
    out_table_free(t);
    return rc ? (rc == ETP_E_IO ? EXIT_IO : EXIT_INTERNAL) : EXIT_OK;
}

static const out_col join_cols[] = {
    {"side", "join", OUT_STR, 0},
    {"name", "name", OUT_STR, 0},
    {"op_id", "OpId", OUT_INT, 0},
    {"etdump_cycles", "ETDump cycles p50", OUT_FLOAT, 0},
    {"qnn_cycles", "QNN cycles", OUT_INT, 0},
};

static void j_row(out_table *t, const char *side, const char *name, bool has_id, int64_t id,
                  double etd, bool has_q, int64_t qc) {
    out_row_begin(t);
    out_cell_str(t, side);
    out_cell_str(t, name);
    if (has_id) out_cell_int(t, id);
    else out_cell_null(t);
    out_cell_float(t, etd);
    if (has_q) out_cell_int(t, qc);
    else out_cell_null(t);
    out_row_end(t);
}

static int write_join_table(qctx *c, cli_out *o, bool md) {
    const etp_qnn_etd_join *j = c->j;
    const etp_qnn_derived *d = c->b.der;
    FILE *f = o->f;
    const etp_ops_qnn *q = j->qnn >= 0 ? etp_ops_qnn_get(c->r, (size_t)j->qnn) : NULL;
    fprintf(f, "\n%sjoin with %s", md ? "## " : "", c->etdump);
    if (q) {
        /* the method's name comes from the program: written as table cells are (valid UTF-8,
         * control characters as spaces) */
        char *mn = out_text_dup(etp_ops_method_get(c->r, q->method)->name);
        fprintf(f, " (method %s, instruction %d)", mn ? mn : "unknown",
                etp_ops_row_get(c->r, q->delegate_row)->instr);
        free(mn);
    }
    out_wrapf(f, md ? 0 : o->width, 0,
              ":%s%u of %u ETDump HTP node(s) matched a QNN op (%u by OpId and name, %u by name "
               "only); %u ETDump node(s) have no QNN op; %u QNN op(s) have no ETDump node; %u "
               "OpId conflict(s). Cycles: %u equal, %u different (largest difference %lld "
               "cycles): %s.\n\n",
            md ? "\n\n" : "\n", j->matched, j->n_nodes, j->matched_by_id, j->matched_by_name,
            j->n_etdump_only, j->n_qnn_only, j->conflicts, j->cycles_equal, j->cycles_different,
            (long long)j->max_abs_diff, agreement_message(c));
    out_col cols[5];
    memcpy(cols, join_cols, sizeof cols);
    out_table *t = cli_table(c->a, o, cols, 5);
    if (!t) return EXIT_INTERNAL;
    static const char *const drop[] = {"op_id:2", "qnn_cycles:1", NULL};
    out_table_set_droppable(t, drop);
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
        out_table_note(t, b);
    }
    int rc = out_table_finish(t);
    out_table_free(t);
    return rc ? (rc == ETP_E_IO ? EXIT_IO : EXIT_INTERNAL) : EXIT_OK;
}

static int write_tables(qctx *c, cli_out *o) {
    cli_args *a = c->a;
    bool md = a->fmt == OUT_MD;
    FILE *f = o->f;
    /* the heading wraps to the terminal width (table format), continuations indented */
    out_wrapf(f, md ? 0 : o->width, 2, "%sQNN HTP profile:%s%s%s%s%s%s%s%s\n\n", md ? "# " : "",
              c->paths.qhas ? " qhas " : "", c->paths.qhas ? c->paths.qhas : "",
              c->paths.optrace ? (c->paths.qhas ? "; optrace " : " optrace ") : "",
              c->paths.optrace ? c->paths.optrace : "", c->paths.runtrace ? "; runtrace " : "",
              c->paths.runtrace ? c->paths.runtrace : "", c->paths.heap ? "; heap " : "",
              c->paths.heap ? c->paths.heap : "");
    int rc = write_summary_table(c, o);
    if (rc) return rc;
    fprintf(f, "\n%sper QNN op\n\n", md ? "## " : "");
    /* without an ETDump the last column would be empty: left out here (kept in the data formats) */
    out_table *t = cli_table(a, o, op_cols, c->j ? NOPCOLS : NOPCOLS - 1);
    if (!t) return EXIT_INTERNAL;
    static const char *const drop[] = {
        "vtcm_write_bytes:13", "vtcm_read_bytes:12", "dram_write_bytes:11", "dram_read_bytes:10",
        "htp_ops:9", "dma:8", "hvx:7", "hmx:6", "dominant_path_cycles:5", "op_id:4",
        "etdump_cycles:3", "qnn_op_type:2", NULL};
    out_table_set_droppable(t, drop);
    for (uint32_t k = 0; k < c->n_order; k++) op_row(c, t, c->order[k]);
    op_notes(c, t);
    collect_notes(c, note_tab, t);
    rc = out_table_finish(t);
    out_table_free(t);
    if (rc) return rc == ETP_E_IO ? EXIT_IO : EXIT_INTERNAL;
    if (c->j) return write_join_table(c, o, md);
    return EXIT_OK;
}

/* csv, tsv, jsonl: the op rows */
static int write_flat(qctx *c, cli_out *o) {
    out_table *t = cli_table(c->a, o, op_cols, NOPCOLS);
    if (!t) return EXIT_INTERNAL;
    for (uint32_t k = 0; k < c->n_order; k++) op_row(c, t, c->order[k]);
    int rc = out_table_finish(t);
    out_table_free(t);
    return rc ? (rc == ETP_E_IO ? EXIT_IO : EXIT_INTERNAL) : EXIT_OK;
}

/* ------------------------------------------------------------------------------------------- */
/* qnn-profile-viewer mode */

static const char *unit_word(const etp_qnn_stat_event *e) {
    switch (e->unit) {
    case ETP_QNN_UNIT_US: return "us";
    case ETP_QNN_UNIT_CYCLES: return "cycles";
    case ETP_QNN_UNIT_COUNT: return "count";
    case ETP_QNN_UNIT_BYTES: return "bytes";
    case ETP_QNN_UNIT_OBJECT: return "object";
    case ETP_QNN_UNIT_OTHER: return e->unit_text;
    default: return NULL;
    }
}

static const out_col v_cols[] = {
    {"execute", "execute", OUT_UINT, 0},
    {"level", "level", OUT_STR, 0},
    {"name", "event", OUT_STR, 0},
    {"op_id", "OpId", OUT_UINT, 0},
    {"value", "value", OUT_FLOAT, 3},
    {"unit", "unit", OUT_STR, 0},
    {"share", "% of parent", OUT_FLOAT, 2},
    {"wall_est_us", "est. wall us", OUT_FLOAT, 3},
    {"note", "note", OUT_STR, 0},
};
#define NVCOLS (sizeof v_cols / sizeof v_cols[0])

static void v_event_row(out_table *t, const etp_qnn_stat_block *b, const etp_qnn_stat_event *e,
                        const etp_qnn_viewer_sums *s) {
    etp_qnn_node_name nn;
    out_row_begin(t);
    out_cell_uint(t, b->index);
    out_cell_str(t, e->is_node ? "node" : "top");
    out_cell_str(t, e->identifier);
    if (e->is_node && etp_qnn_parse_node_name(e->identifier, &nn) != ETP_QNN_NODE_NONE)
        out_cell_uint(t, nn.op_id);
    else out_cell_null(t);
    bool ticks = etp_qnn_viewer_is_qtimer_ticks(e);
    if (!e->has_value) out_cell_null(t);
    else if (!ticks && e->fvalue == (double)e->value) out_cell_int(t, e->value);
    else out_cell_float(t, etp_qnn_viewer_event_value(e));
    out_cell_str(t, unit_word(e));
    double share = etp_qnn_viewer_node_share(s, e);
    if (isnan(share)) out_cell_null(t);
    else out_cell_float(t, share);
    out_cell_float(t, etp_qnn_viewer_wall_est_us(s, e));
    if (ticks) {
        char b2[120];
        snprintf(b2, sizeof b2, "written %g \"us\": 19.2 MHz QTimer ticks, converted", e->fvalue);
        out_cell_str(t, b2);
    } else if (!e->has_value) {
        out_cell_str(t, "no value (opaque optrace payload)");
    } else {
        out_cell_null(t);
    }
    out_row_end(t);
}

static void json_viewer_block(jw *w, const etp_qnn_stat_block *b) {
    etp_qnn_viewer_sums s;
    etp_qnn_viewer_sums_get(b, &s);
    jw_obj_begin(w);
    jw_key(w, "index"); jw_uint(w, b->index);
    jw_key(w, "title"); jw_str(w, b->title);
    j_i64(w, "netrun_us", b->netrun_us);
    j_i64(w, "timestamp", b->timestamp);
    jw_key(w, "events");
    jw_arr_begin(w);
    for (uint32_t i = 0; i < b->n_events; i++) {
        const etp_qnn_stat_event *e = &b->events[i];
        if (e->is_node) continue;
        bool ticks = etp_qnn_viewer_is_qtimer_ticks(e);
        jw_obj_begin(w);
        jw_key(w, "name"); jw_str(w, e->identifier);
        jw_key(w, "value");
        if (!e->has_value) jw_null(w);
        else jw_double(w, etp_qnn_viewer_event_value(e));
        jw_key(w, "unit"); jw_str(w, unit_word(e));
        jw_key(w, "written_value");
        if (e->has_value) jw_double(w, e->fvalue);
        else jw_null(w);
        jw_key(w, "qtimer_ticks_converted"); jw_bool(w, ticks);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "nodes");
    jw_arr_begin(w);
    for (uint32_t i = 0; i < b->n_events; i++) {
        const etp_qnn_stat_event *e = &b->events[i];
        if (!e->is_node) continue;
        etp_qnn_node_name nn;
        etp_qnn_node_kind k = etp_qnn_parse_node_name(e->identifier, &nn);
        jw_obj_begin(w);
        jw_key(w, "name"); jw_str(w, e->identifier);
        jw_key(w, "qnn_op");
        if (nn.name) jw_strn(w, nn.name, nn.name_len);
        else jw_null(w);
        jw_key(w, "op_id");
        if (k != ETP_QNN_NODE_NONE) jw_uint(w, nn.op_id);
        else jw_null(w);
        jw_key(w, "kind");
        jw_str(w, k == ETP_QNN_NODE_NAMED    ? "named"
                  : k == ETP_QNN_NODE_INPUT  ? "input"
                  : k == ETP_QNN_NODE_OUTPUT ? "output"
                  : k == ETP_QNN_NODE_SYSTEM ? "system"
                                             : "other");
        jw_key(w, "cycles");
        if (e->has_value) jw_double(w, e->fvalue);
        else jw_null(w);
        jw_key(w, "unit"); jw_str(w, unit_word(e));
        jw_key(w, "share"); jw_double(w, etp_qnn_viewer_node_share(&s, e));
        jw_key(w, "wall_est_us"); jw_double(w, etp_qnn_viewer_wall_est_us(&s, e));
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "parent_cycles");
    if (s.has_parent) jw_int(w, s.parent_cycles);
    else jw_null(w);
    jw_key(w, "node_cycles_sum"); jw_int(w, s.node_cycles_sum);
    jw_key(w, "node_count"); jw_uint(w, s.node_count);
    jw_key(w, "nodes_sum_to_parent");
    if (s.comparable) jw_bool(w, s.nodes_equal_parent);
    else jw_null(w);
    jw_obj_end(w);
}

static const char *stat_kind_name(etp_qnn_stat_kind k) {
    switch (k) {
    case ETP_QNN_STAT_INIT: return "init";
    case ETP_QNN_STAT_COMPOSE: return "compose";
    case ETP_QNN_STAT_FINALIZE: return "finalize";
    case ETP_QNN_STAT_EXECUTE: return "execute";
    case ETP_QNN_STAT_DEINIT: return "deinit";
    default: return "other";
    }
}

/* The note naming the sections the reader skipped. */
static void viewer_skip_note(const etp_qnn_viewer *v, char *nb, size_t cap) {
    int k = snprintf(nb, cap, "%u section(s) etprof does not read were skipped:", v->n_skipped);
    for (uint32_t i = 0; i < v->n_skipped && i < ETP_QNN_VIEWER_SKIPPED_MAX; i++)
        if (k > 0 && (size_t)k < cap)
            k += snprintf(nb + k, cap - (size_t)k, "%s '%s' (line %u)", i ? "," : "",
                          v->skipped[i], v->skipped_line[i]);
    if (v->n_skipped > ETP_QNN_VIEWER_SKIPPED_MAX && k > 0 && (size_t)k < cap)
        snprintf(nb + k, cap - (size_t)k, ", ...");
}

static int run_viewer(cli_args *a) {
    bool csv = a->set[OPT_PROFILE_CSV];
    const char *path = csv ? a->val[OPT_PROFILE_CSV] : a->val[OPT_PROFILE_LOG];
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
    FILE *f = o.f;
    if (a->fmt == OUT_JSON) {
        jw w;
        jw_init(&w, f, true);
        jw_obj_begin(&w);
        jw_key(&w, "schema_version"); jw_int(&w, 1);
        jw_key(&w, "file"); jw_str(&w, path);
        jw_key(&w, "format"); jw_str(&w, v->format == ETP_QNN_VIEWER_CSV ? "csv" : "text");
        jw_key(&w, "input_log"); jw_str(&w, v->input_log);
        jw_key(&w, "viewer_version"); jw_str(&w, v->viewer_version);
        jw_key(&w, "netrun_version"); jw_str(&w, v->netrun_version);
        jw_key(&w, "backend_version"); jw_str(&w, v->backend_version);
        jw_key(&w, "executes");
        jw_arr_begin(&w);
        for (uint32_t i = 0; i < v->n_executes; i++) json_viewer_block(&w, &v->executes[i]);
        jw_arr_end(&w);
        jw_key(&w, "other_stats");
        jw_arr_begin(&w);
        for (uint32_t i = 0; i < v->n_stats; i++) {
            const etp_qnn_stat_block *b = &v->stats[i];
            jw_obj_begin(&w);
            jw_key(&w, "kind"); jw_str(&w, stat_kind_name(b->kind));
            jw_key(&w, "title"); jw_str(&w, b->title);
            j_i64(&w, "netrun_us", b->netrun_us);
            jw_key(&w, "aggregate");
            if (b->aggregate) jw_str(&w, b->aggregate);
            else jw_null(&w);
            jw_key(&w, "graph_name");
            if (b->graph_name) jw_str(&w, b->graph_name);
            else jw_null(&w);
            j_i64(&w, "graph_index", b->graph_index);
            jw_key(&w, "total_inference"); jw_bool(&w, b->total_inference);
            jw_key(&w, "netrun_ips_inf_per_sec");
            if (b->netrun_ips.has) jw_double(&w, b->netrun_ips.v);
            else jw_null(&w);
            jw_key(&w, "events");
            jw_arr_begin(&w);
            for (uint32_t k = 0; k < b->n_events; k++) {
                const etp_qnn_stat_event *e = &b->events[k];
                jw_obj_begin(&w);
                jw_key(&w, "name"); jw_str(&w, e->identifier);
                jw_key(&w, "value");
                if (e->has_value) jw_double(&w, e->fvalue);
                else jw_null(&w);
                jw_key(&w, "unit"); jw_str(&w, unit_word(e));
                jw_obj_end(&w);
            }
            jw_arr_end(&w);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_key(&w, "skipped_sections");
        jw_arr_begin(&w);
        for (uint32_t i = 0; i < v->n_skipped && i < ETP_QNN_VIEWER_SKIPPED_MAX; i++) {
            jw_obj_begin(&w);
            jw_key(&w, "heading"); jw_str(&w, v->skipped[i]);
            jw_key(&w, "line"); jw_int(&w, v->skipped_line[i]);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_key(&w, "skipped_section_count"); jw_int(&w, v->n_skipped);
        jw_key(&w, "notes");
        jw_arr_begin(&w);
        if (v->n_skipped) {
            char nb[300];
            viewer_skip_note(v, nb, sizeof nb);
            jw_str(&w, nb);
        }
        jw_str(&w, "node cycles are busy cycles summed over the HTP threads (work, not wall "
                   "time); share = % of the execute's Accelerator (execute) time (cycles)");
        jw_str(&w, "wall_est_us = share x the execute's Accelerator (execute excluding wait) "
                   "time: the NPU compute wall time apportioned by cycle share, an ESTIMATE");
        jw_str(&w, "\"Time for initial VTCM acquire\" and \"Time for HVX + HMX power on and "
                   "acquire\" are 19.2 MHz QTimer ticks despite their \"us\" label: value = "
                   "written value / 19.2 (us)");
        jw_arr_end(&w);
        jw_obj_end(&w);
        fflush(f);
        rc = jw_finish(&w) ? EXIT_IO : EXIT_OK;
        fputc('\n', f);
    } else {
        bool report = a->fmt == OUT_TABLE || a->fmt == OUT_MD;
        if (report)
            out_wrapf(f, a->fmt == OUT_MD ? 0 : o.width, 2,
                      "%sqnn-profile-viewer %s output: %s (%u execute(s))\n\n",
                    a->fmt == OUT_MD ? "# " : "", csv ? "CSV" : "text", path, v->n_executes);
        out_table *t = cli_table(a, &o, v_cols, NVCOLS);
        if (!t) rc = EXIT_INTERNAL;
        /* a narrow terminal loses these first (out_table_set_droppable) */
        static const char *const drop[] = {"note:7", "wall_est_us:6", "op_id:5", "share:4",
                                           "level:3", "execute:2", NULL};
        if (t) out_table_set_droppable(t, drop);
        for (uint32_t i = 0; t && i < v->n_executes; i++) {
            const etp_qnn_stat_block *b = &v->executes[i];
            etp_qnn_viewer_sums s;
            etp_qnn_viewer_sums_get(b, &s);
            for (uint32_t k = 0; k < b->n_events; k++) v_event_row(t, b, &b->events[k], &s);
            if (report && s.comparable) {
                char nb[300];
                snprintf(nb, sizeof nb,
                         "execute %u: %u node(s) sum to %lld cycles, Accelerator (execute) time "
                         "(cycles) = %lld: %s",
                         b->index, s.node_count, (long long)s.node_cycles_sum,
                         (long long)s.parent_cycles,
                         s.nodes_equal_parent ? "equal" : "DIFFERENT (events dropped?)");
                out_table_note(t, nb);
            }
        }
        for (uint32_t i = 0; t && report && i < v->n_stats; i++) {
            const etp_qnn_stat_block *b = &v->stats[i];
            if (!b->aggregate) continue;
            char nb[400];
            int k = snprintf(nb, sizeof nb, "viewer Execute Stats (%s)", b->aggregate);
            if (b->graph_name && k > 0 && (size_t)k < sizeof nb)
                k += snprintf(nb + k, sizeof nb - (size_t)k, ", graph %lld (%s)",
                              (long long)b->graph_index.v, b->graph_name);
            if (b->total_inference && k > 0 && (size_t)k < sizeof nb)
                k += snprintf(nb + k, sizeof nb - (size_t)k, ", Total Inference Time");
            if (b->netrun_us.has && k > 0 && (size_t)k < sizeof nb)
                k += snprintf(nb + k, sizeof nb - (size_t)k, ": NetRun %lld us",
                              (long long)b->netrun_us.v);
            for (uint32_t e = 0; e < b->n_events && k > 0 && (size_t)k < sizeof nb; e++)
                if (strstr(b->events[e].identifier, "QNN (execute) time") && b->events[e].has_value)
                    k += snprintf(nb + k, sizeof nb - (size_t)k, ", QNN (execute) time %g %s",
                                  b->events[e].fvalue, b->events[e].unit_text);
            if (b->netrun_ips.has && k > 0 && (size_t)k < sizeof nb)
                snprintf(nb + k, sizeof nb - (size_t)k, ": NetRun IPS %.4f inf/sec",
                         b->netrun_ips.v);
            out_table_note(t, nb);
        }
        if (t && report && v->n_skipped) {
            char nb[300];
            viewer_skip_note(v, nb, sizeof nb);
            out_table_note(t, nb);
        }
        if (t && report) {
            out_table_note(t, "node cycles are busy cycles summed over the HTP threads (work, "
                              "not wall time); % of parent = % of Accelerator (execute) time "
                              "(cycles)");
            out_table_note(t, "est. wall us = % of parent x the execute's Accelerator (execute "
                              "excluding wait) time: the NPU compute wall time apportioned by "
                              "cycle share, an ESTIMATE");
            out_table_note(t, "values of \"Time for initial VTCM acquire\" and \"Time for HVX + "
                              "HMX power on and acquire\" are 19.2 MHz QTimer ticks despite "
                              "their \"us\" label: shown converted to us");
        }
        if (t && (rc = out_table_finish(t))) rc = rc == ETP_E_IO ? EXIT_IO : EXIT_INTERNAL;
        out_table_free(t);
    }
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
    if (a->fmt == OUT_JSON) rc = write_json(c, o.f);
    else if (a->fmt == OUT_TABLE || a->fmt == OUT_MD) rc = write_tables(c, &o);
    else rc = write_flat(c, &o);
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
