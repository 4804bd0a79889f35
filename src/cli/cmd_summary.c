/* cmd_summary.c - `etprof summary FILE [--pte P]`: the first thing to run. File, methods, runs,
 * latency per method, where the time went (each backend's DELEGATE_CALLs, CPU kernels,
 * framework), the CPU fallback operators by type, and the top operators (docs/analyses.md). */
#include "cli_ana.h"
#include "etprof_etrecord.h"
#include "etprof_runs.h"
#include "etprof_backend.h"
#include "etprof_arm_pmu.h"
#include "etprof_qnn.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void note_cb(void *ctx, const char *text) { etp_table_note(ctx, text); }
/* data-quality notes in the text views: wrapped, names from the file shown safely */
static void text_note_cb(void *ctx, const char *text) {
    etp_section_text(ctx, ETP_TEXT_WRAP | ETP_TEXT_SAFE, "note: ", 6, text);
}

typedef struct sum_ctx {
    cli_args *a;
    const etp_ops_result *r;
    const etp_disp *d;
    size_t top;
    uint32_t *idx;
    bool has_prog;
    const etp_optype_result *types; /* the operators by type (etp_optype_compute) */
    const char *label;              /* several files: this file's label, else NULL */
    etp_table *flat_file;           /* several files: the flat table (with its file column) */
    const etp_backend_figures *bf; /* each backend's own figures (issue 14.2) */
    const etp_etrecord *rec; /* --etrecord: module and source of the top rows */
    cli_etr_stats etr;
    etp_qnn_soc soc; /* what the program's QNN delegates were compiled for (one file only) */
    const etp_arm_pmu_report *pmu; /* the Arm runner's PMU report (a dump read from its log) */
    const etp_vgf_device_times *vgf; /* --runner-log's VGF device times, NULL */
    const etp_program *prog; /* --pte: its buffers and tensors off the CPU (placement note) */
} sum_ctx;
static void doc_note_cb(void *ctx, const char *text) { etp_doc_note(ctx, text); }

static const char *place_kind(etp_place p) {
    return p == ETP_PLACE_DELEGATE ? "delegate" : p == ETP_PLACE_CPU ? "cpu" : "framework";
}

/* The top operators of method `mi` (etp_ops_top: one definition for every view). */
static size_t top_ops(const sum_ctx *c, uint32_t mi, uint32_t *idx) {
    return etp_ops_top(c->r, (int32_t)mi, c->top, idx);
}

static size_t top_nodes(const sum_ctx *c, uint32_t mi, uint32_t *idx) {
    etp_ops_filter f;
    etp_ops_filter_init(&f);
    f.method = (int32_t)mi;
    f.kind = "htp_node";
    f.sort = "total";
    f.top = c->top;
    size_t n = 0;
    etp_error err = {0};
    if (etp_ops_select(c->r, &f, idx, &n, &err)) return 0;
    return n;
}

/* ------------------------------------------------------------------------------------------- */

static void note_doc_cb(void *ctx, const char *text) { etp_doc_note(ctx, text); }

#define PLACEMENT_NOTE                                                                            \
    "placement: per_run = total / runs, so the parts add up to Method::execute; share = % of "   \
    "the Method::execute total; framework = Method::execute minus the DELEGATE_CALLs and "       \
    "OPERATOR_CALLs"

/* The JSON facts. */
/* The operator types of method `mi` (etp_optype_compute: one definition, as `ops --by type`). */
static void op_types_json(const sum_ctx *c, etp_node *mo, uint32_t mi) {
    etp_node *ta = etp_node_arr(mo, "op_types");
    for (size_t i = 0; i < etp_optype_count(c->types); i++) {
        const etp_optype_row *g = etp_optype_get(c->types, i);
        if (g->method != mi) continue;
        const char *un;
        etp_node *go = etp_node_obj(ta, NULL);
        etp_node_str(go, "domain", etp_optype_domain_name(g->domain));
        etp_node_str(go, "placement", g->placement);
        etp_node_str(go, "type", g->type);
        etp_node_uint(go, "rows", g->rows);
        etp_node_uint(go, "count", g->count);
        etp_node_float(go, "total", etp_disp_conv(c->d, g->unit, g->total, &un));
        etp_node_float(go, "avg", etp_disp_conv(c->d, g->unit, g->avg, &un));
        etp_node_float(go, "per_run", etp_disp_conv(c->d, g->unit, g->per_run, &un));
        etp_node_float(go, "share", g->share);
        etp_node_float(go, "cum_share", g->cum_share);
        etp_node_str(go, "unit", un);
    }
}

static void method_json(sum_ctx *c, etp_node *methods, uint32_t mi);

static void fill_json(sum_ctx *c, etp_doc *doc) {
    bool json = c->a->fmt == ETP_FMT_JSON;
    const etp_ops_result *r = c->r;
    const etp_disp *d = c->d;
    etp_node *root = etp_doc_root(doc);
    etp_node_str(root, "time_unit", d->time_unit);
    etp_node_uint(root, "runs", etp_ops_runs_kept(r));
    etp_node *methods = etp_node_arr(root, "methods");
    for (uint32_t mi = 0; mi < etp_ops_method_count(r); mi++) method_json(c, methods, mi);
    etp_doc_notes_here(doc);
    etp_doc_note(doc, PLACEMENT_NOTE);
    if (!c->has_prog) etp_doc_note(doc, "no --pte: methods, backends and operator namespaces are unknown");
    for (uint32_t mi = 0; c->prog && mi < etp_ops_method_count(r); mi++) {
        /* a newer program that puts planned buffers or tensors of a method off the CPU */
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        int plan = m->name ? etp_program_find_plan(c->prog, m->name) : -1;
        char dn[1200], nb[1400];
        if (plan >= 0 && etp_program_device_note(c->prog, (uint32_t)plan, dn, sizeof dn)) {
            snprintf(nb, sizeof nb, "memory placement of %.100s (--pte): %s", m->name, dn);
            etp_doc_note(doc, nb);
        }
    }
    etp_quality_notes(r, note_doc_cb, doc);
    if (json) cli_etr_notes(c->rec, &c->etr, doc_note_cb, doc);
    cli_etr_missing_note(c->rec, r, doc_note_cb, doc);
    etp_fig_quality(root, "data_quality", r);
    if (c->bf) etp_fig_backend_figures(root, "backend_figures", d, c->bf); /* additive (issue 14.2) */
    /* only for a dump read from an Arm runner's log, the one source of the report */
    if (c->pmu) {
        etp_fig_arm_pmu(root, "arm_pmu", c->pmu, etp_arm_pmu_etdump_runs(r));
        etp_arm_pmu_notes(c->pmu, etp_arm_pmu_etdump_runs(r), note_doc_cb, doc);
    }
    /* only with --runner-log: the VGF backend's device times from the log */
    if (c->vgf) {
        etp_fig_vgf_device_times(root, "vgf_device_time", d, c->vgf, r);
        etp_vgf_device_notes(c->vgf, r, note_doc_cb, doc);
    }
}

static void method_json(sum_ctx *c, etp_node *methods, uint32_t mi) {
    bool json = c->a->fmt == ETP_FMT_JSON;
    const etp_ops_result *r = c->r;
    const etp_disp *d = c->d;
    {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        const char *un;
        etp_node *mo = etp_node_obj(methods, NULL);
        if (c->label) etp_node_str(mo, "file", c->label);
        etp_node_str(mo, "name", m->name);
        etp_fig_method_candidates(mo, m);
        etp_node_uint(mo, "runs", m->runs);
        etp_node_uint(mo, "skipped_runs", m->skipped);
        etp_node *lat = etp_node_obj(mo, "latency");
        etp_node_float(lat, "min", etp_disp_conv(d, m->unit, m->latency.min, &un));
        etp_node_float(lat, "p10", etp_disp_conv(d, m->unit, m->latency.p10, &un));
        etp_node_float(lat, "p50", etp_disp_conv(d, m->unit, m->latency.p50, &un));
        etp_node_float(lat, "p90", etp_disp_conv(d, m->unit, m->latency.p90, &un));
        etp_node_float(lat, "avg", etp_disp_conv(d, m->unit, m->latency.avg, &un));
        etp_node_float(lat, "max", etp_disp_conv(d, m->unit, m->latency.max, &un));
        etp_node_float(lat, "total", etp_disp_conv(d, m->unit, m->latency.total, &un));
        if (m->exec_row >= 0 && etp_ops_row_get(r, (size_t)m->exec_row)->runs)
            etp_node_float(lat, "first_run", etp_disp_conv(d, m->unit, etp_ops_row_get(r, (size_t)m->exec_row)->samples[0], &un));
        else etp_node_null(lat, "first_run");
        etp_node_str(lat, "unit", un);
        etp_node *pl = etp_node_arr(mo, "placement");
        for (uint32_t j = 0; j < m->n_parts; j++) {
            const etp_ops_part *p = &m->parts[j];
            etp_node *po = etp_node_obj(pl, NULL);
            etp_node_str(po, "placement", p->placement);
            etp_node_str(po, "kind", place_kind(p->place));
            if (p->place == ETP_PLACE_FRAMEWORK) etp_node_null(po, "partitions");
            else etp_node_uint(po, "partitions", p->partitions);
            etp_node_uint(po, "calls", p->calls);
            etp_node_float(po, "per_run", etp_disp_conv(d, m->unit, p->per_run, &un));
            etp_node_float(po, "total", etp_disp_conv(d, m->unit, p->total, &un));
            etp_node_float(po, "share", p->share);
            etp_node_str(po, "unit", un);
            etp_node_bool(po, "backend_own", p->backend_own);
            etp_node_str(po, "backend_event",
                         p->backend_row >= 0 ? etp_ops_row_get(r, (size_t)p->backend_row)->name : NULL);
        }
        etp_node_str(mo, "profiling_level", etp_profiling_level_name(m->profiling_level));
        etp_node_uint(mo, "delegate_partitions", m->delegate_partitions);
        etp_fig_delegates(mo, "delegates", d, r, mi);
        etp_node *co = etp_node_arr(mo, "cpu_operators");
        for (uint32_t j = 0; j < m->n_cpu_ops; j++) {
            const etp_ops_cpu_op *o = &m->cpu_ops[j];
            etp_node *oo = etp_node_obj(co, NULL);
            etp_node_str(oo, "operator", o->op);
            etp_node_uint(oo, "instructions", o->instructions);
            etp_node_uint(oo, "calls", o->calls);
            etp_node_float(oo, "per_run", etp_disp_conv(d, m->unit, o->per_run, &un));
            etp_node_float(oo, "total", etp_disp_conv(d, m->unit, o->total, &un));
            etp_node_float(oo, "share", o->share);
            etp_node_str(oo, "unit", un);
        }
        etp_node *to = etp_node_arr(mo, "top_ops");
        size_t n = top_ops(c, mi, c->idx);
        for (size_t k = 0; k < n; k++) {
            const etp_ops_row *row = etp_ops_row_get(r, c->idx[k]);
            etp_node *o = etp_fig_top_op(to, NULL, d, r, c->idx[k]);
            if (c->rec) cli_etr_node(o, c->rec, m->name, row, json ? &c->etr : NULL);
        }
        etp_node *hn = etp_node_obj(mo, "htp_nodes");
        etp_node_uint(hn, "rows", m->htp_node_rows);
        etp_node *ht = etp_node_arr(hn, "top");
        n = top_nodes(c, mi, c->idx);
        for (size_t k = 0; k < n; k++) {
            const etp_ops_row *row = etp_ops_row_get(r, c->idx[k]);
            etp_node *o = etp_fig_top_op(ht, NULL, d, r, c->idx[k]);
            if (c->rec) cli_etr_node(o, c->rec, m->name, row, json ? &c->etr : NULL);
        }
        op_types_json(c, mo, mi);
    }
}

/* ------------------------------------------------------------------------------------------- */

static const etp_col flat_cols[] = {
    {"section", "section", NULL, ETP_T_STR, false, 0},
    {"method", "method", NULL, ETP_T_STR, false, 0},
    {"item", "item", NULL, ETP_T_STR, false, 0},
    {"placement", "placement", NULL, ETP_T_STR, false, 0},
    {"instructions", "instructions", NULL, ETP_T_UINT, false, 0},
    {"count", "count", NULL, ETP_T_UINT, false, 0},
    {"value", "value", NULL, ETP_T_FLOAT, false, 3},
    {"unit", "unit", NULL, ETP_T_STR, false, 0},
    {"share", "share%", NULL, ETP_T_FLOAT, false, 2},
};
#define NFLAT (sizeof flat_cols / sizeof flat_cols[0])

static const char *flat_label; /* several files: the file column's value (set per file) */

static void flat(etp_table *t, const char *sec, const char *method, const char *item,
                 const char *placement, int64_t instr, int64_t count, double value,
                 const char *unit, double share) {
    etp_table_row(t);
    if (flat_label) etp_table_str(t, flat_label);
    etp_table_str(t, sec);
    etp_table_str(t, method);
    etp_table_str(t, item);
    etp_table_str(t, placement);
    if (instr >= 0) etp_table_uint(t, (uint64_t)instr);
    else etp_table_null(t);
    if (count >= 0) etp_table_uint(t, (uint64_t)count);
    else etp_table_null(t);
    etp_table_float(t, value);
    etp_table_str(t, unit);
    etp_table_float(t, share);

}

/* csv, tsv, jsonl: one flat table with a section column. */
static int fill_flat(const sum_ctx *c, etp_doc *doc) {
    const etp_ops_result *r = c->r;
    etp_col cols[NFLAT];
    memcpy(cols, flat_cols, sizeof cols);
    cols[6].precision = c->d->precision;
    etp_table *t = c->flat_file;
    flat_label = t ? c->label : NULL;
    if (!t) {
        t = etp_doc_table(doc, cols, NFLAT);
        if (!t) return EXIT_INTERNAL;
        etp_doc_flat(doc, t);
    }
    for (uint32_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        const char *un;
        const char *stat[] = {"min", "p10", "p50", "p90", "avg", "max"};
        for (size_t s = 0; s < 6; s++) {
            double v = NAN;
            etp_stats_pick(&m->latency, stat[s], &v);
            double x = etp_disp_conv(c->d, m->unit, v, &un);
            flat(t, "latency", m->name, stat[s], "framework", -1, m->runs, x, un, NAN);
        }
        for (uint32_t j = 0; j < m->n_parts; j++) {
            const etp_ops_part *p = &m->parts[j];
            double v = etp_disp_conv(c->d, m->unit, p->per_run, &un);
            flat(t, "placement", m->name, p->placement, place_kind(p->place),
                 p->place == ETP_PLACE_FRAMEWORK ? -1 : (int64_t)p->partitions, (int64_t)p->calls,
                 v, un, p->share);
        }
        for (uint32_t j = 0; j < m->n_cpu_ops; j++) {
            const etp_ops_cpu_op *op = &m->cpu_ops[j];
            double v = etp_disp_conv(c->d, m->unit, op->per_run, &un);
            flat(t, "cpu_operator", m->name, op->op, "cpu", op->instructions, (int64_t)op->calls,
                 v, un, op->share);
        }
        size_t n = top_ops(c, mi, c->idx);
        for (size_t k = 0; k < n; k++) {
            const etp_ops_row *row = etp_ops_row_get(r, c->idx[k]);
            double v = etp_disp_conv(c->d, row->unit, row->stats.p50, &un);
            char pl[300];
            flat(t, "top_op", m->name, row->op ? row->op : row->name,
                 etp_backend_placement_label(r, c->idx[k], pl, sizeof pl),
                 row->instr >= 0 && row->chain >= 0 ? row->instr : -1, (int64_t)row->count, v, un,
                 row->share);
        }
        n = top_nodes(c, mi, c->idx);
        for (size_t k = 0; k < n; k++) {
            const etp_ops_row *row = etp_ops_row_get(r, c->idx[k]);
            double v = etp_disp_conv(c->d, row->unit, row->stats.p50, &un);
            char pl[300];
            flat(t, "htp_node", m->name, row->name,
                 etp_backend_placement_label(r, c->idx[k], pl, sizeof pl), row->instr, (int64_t)row->count,
                 v, un, row->share);
        }
        /* operators by type: value = per run, share = % of the type's domain and unit */
        for (size_t k = 0; k < etp_optype_count(c->types); k++) {
            const etp_optype_row *g = etp_optype_get(c->types, k);
            if (g->method != mi) continue;
            double v = etp_disp_conv(c->d, g->unit, g->per_run, &un);
            flat(t, "op_type", m->name, g->type, g->placement, -1, (int64_t)g->count, v, un,
                 g->share);
        }
    }
    return EXIT_OK;
}

/* ------------------------------------------------------------------------------------------- */

/* The operator types of method `mi` in the text views: one table per (domain, placement, unit)
 * group of etp_optype_compute, so that units never mix in a column; --top types per group. */
static int op_types_text(const sum_ctx *c, etp_doc *doc, etp_section *f, uint32_t mi) {
    const etp_optype_result *x = c->types;
    size_t n = etp_optype_count(x);
    for (size_t i = 0; i < n;) {
        const etp_optype_row *g0 = etp_optype_get(x, i);
        if (g0->method != mi) {
            i++;
            continue;
        }
        size_t e = i;
        while (e < n) {
            const etp_optype_row *g = etp_optype_get(x, e);
            if (g->method != mi || g->domain != g0->domain || g->unit != g0->unit ||
                strcmp(g->placement, g0->placement) != 0)
                break;
            e++;
        }
        const char *what = g0->domain == ETP_OTD_CPU   ? "CPU kernels by operator"
                           : g0->domain == ETP_OTD_HTP ? "HTP nodes by ATen op"
                                                       : "backend operators by name";
        const char *un;
        etp_disp_conv(c->d, g0->unit, 0, &un);
        size_t shown = e - i;
        if (c->top && shown > c->top) shown = c->top;
        etp_section_textf(f, ETP_TEXT_WRAP | ETP_TEXT_SAFE, 2,
                          "\noperators by type: %s (%s, %s): %zu type(s)%s\n\n", what,
                          g0->placement, un, e - i, shown < e - i ? ", the largest shown" : "");
        static const etp_col ycols[] = {
            {"type", "type", NULL, ETP_T_STR, false, 0},
            {"count", "count", NULL, ETP_T_UINT, false, 0},
            {"total", "total", NULL, ETP_T_FLOAT, false, 3},
            {"avg", "avg", NULL, ETP_T_FLOAT, false, 3},
            {"unit", "unit", NULL, ETP_T_STR, false, 0},
            {"share", "share%", NULL, ETP_T_FLOAT, false, 2},
            {"cum_share", "cum%", NULL, ETP_T_FLOAT, false, 2},
        };
        etp_col yc[7];
        memcpy(yc, ycols, sizeof yc);
        /* host time in --time-unit with its precision; cycles, ticks and counts are whole
         * numbers (the avg keeps 1 decimal) */
        bool whole = g0->unit != ETP_UNIT_NS && g0->unit != ETP_UNIT_US;
        yc[2].precision = whole ? 0 : c->d->precision;
        yc[3].precision = whole ? 1 : c->d->precision;
        etp_table *t = etp_doc_table(doc, yc, 7);
        etp_section_table(f, t);
        static const char *const ydrop[] = {"cum_share:3", "avg:2", "count:1", NULL};
        if (!t) return EXIT_INTERNAL;
        etp_table_droppable(t, ydrop);
        for (size_t k = i; k < i + shown; k++) {
            const etp_optype_row *g = etp_optype_get(x, k);
            etp_table_row(t);
            etp_table_str(t, g->type);
            etp_table_uint(t, g->count);
            etp_table_float(t, etp_disp_conv(c->d, g->unit, g->total, &un));
            etp_table_float(t, etp_disp_conv(c->d, g->unit, g->avg, &un));
            etp_table_str(t, un);
            etp_table_float(t, g->share);
            etp_table_float(t, g->cum_share);
        }
        char b[300];
        snprintf(b, sizeof b,
                 "total over the runs; avg = total / count; share%% and cum%% are of this "
                 "table's total%s",
                 shown < e - i ? "; every type: etprof ops --by type" : "");
        etp_table_note(t, b);
        i = e;
    }
    return EXIT_OK;
}

/* table and md: a short report made of small tables. */
static int fill_report(sum_ctx *c, etp_doc *doc, const char *path) {
    const etp_ops_result *r = c->r;
    const etp_disp *d = c->d;
    bool md = c->a->fmt == ETP_FMT_MD;
    etp_section *f = etp_doc_section(doc, "summary");
    const char *h = md ? "## " : "";
    if (c->label)
        etp_section_textf(f, ETP_TEXT_SAFE, 0, "%s== %s ==\n%s", md ? "# " : "", c->label,
                          md ? "\n" : "");
    etp_section_textf(f, 0, 0, "%sfile      %s\n", md ? "- " : "", path);
    if (c->has_prog) etp_section_textf(f, 0, 0, "%sprogram   %s\n", md ? "- " : "", c->a->val[OPT_PTE]);
    else
        etp_section_textf(f, ETP_TEXT_WRAP, md ? 12 : 10,
                  "%sprogram   not given (--pte P names the methods, operators and backends)\n",
                  md ? "- " : "");
    if (c->soc.present) {
        char sn[64], budget[48] = "";
        etp_qnn_soc_name(&c->soc, sn, sizeof sn);
        if (c->soc.vtcm_mb) snprintf(budget, sizeof budget, ", VTCM budget %u MiB", c->soc.vtcm_mb);
        etp_section_textf(f, ETP_TEXT_WRAP, md ? 12 : 10,
                          "%sQNN       compiled for %s%s (the program's qnn_compile_spec%s)\n",
                          md ? "- " : "", sn, budget,
                          c->soc.differs ? "; other QnnBackend delegates name another" : "");
    }
    etp_section_textf(f, 0, 0, "%sruns      %u (run blocks)", md ? "- " : "", etp_ops_runs_kept(r));
    etp_section_textf(f, 0, 0, "\n");
    /* the methods line, built whole to be wrapped under its value */
    size_t ml = 0, mcap = 64;
    char *line = malloc(mcap);
    if (!line) return EXIT_INTERNAL;
    ml = (size_t)snprintf(line, mcap, "%smethods  ", md ? "- " : "");
    for (uint32_t mi = 0; mi <= etp_ops_method_count(r); mi++) {
        char piece[800];
        if (mi == etp_ops_method_count(r)) {
            if (mi) break;
            snprintf(piece, sizeof piece, " none (no run was kept)");
        } else {
            const etp_ops_method *m = etp_ops_method_get(r, mi);
            /* method names come from the program: written as table cells are (valid UTF-8,
             * control characters as spaces) */
            const char *mn = m->name;
            char lb[600];
            snprintf(piece, sizeof piece, " %s (%u runs%s)",
                     mn ? mn : etp_method_label(m, lb, sizeof lb), m->runs,
                     m->skipped ? ", after --skip-first" : "");
        }
        size_t pl = strlen(piece);
        if (ml + pl + 1 > mcap) {
            while (ml + pl + 1 > mcap) mcap *= 2;
            char *nl = realloc(line, mcap);
            if (!nl) {
                free(line);
                return EXIT_INTERNAL;
            }
            line = nl;
        }
        memcpy(line + ml, piece, pl + 1);
        ml += pl;
    }
    etp_section_text(f, ETP_TEXT_WRAP | ETP_TEXT_SAFE, NULL, md ? 12 : 10, line);
    free(line);
    int rc = EXIT_OK;
    for (uint32_t mi = 0; mi < etp_ops_method_count(r) && !rc; mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        char lb[600];
        const char *mn = m->name; /* shown safely: ETP_TEXT_SAFE */
        const char *un = NULL;
        double p50 = etp_disp_conv(d, m->unit, m->latency.p50, &un);
        double p90 = etp_disp_conv(d, m->unit, m->latency.p90, &un);
        char first_run[120] = "";
        if (m->exec_row >= 0 && etp_ops_row_get(r, (size_t)m->exec_row)->runs > 1) {
            const char *fu = un;
            double first = etp_disp_conv(d, m->unit, etp_ops_row_get(r, (size_t)m->exec_row)->samples[0], &fu);
            snprintf(first_run, sizeof first_run, "; first run %.*f %s", d->precision, first, fu);
        }
        etp_section_textf(f, ETP_TEXT_WRAP | ETP_TEXT_SAFE, 2, "\n%s%s: latency (Method::execute per run) p50 %.*f %s, p90 %.*f %s%s\n\n",
                  h, mn ? mn : etp_method_label(m, lb, sizeof lb), d->precision, p50, un,
                  d->precision, p90, un, first_run);
        /* placement */
        static const etp_col pcols[] = {
            {"placement", "where the time went", NULL, ETP_T_STR, false, 0},
            {"partitions", "partitions", NULL, ETP_T_UINT, false, 0},
            {"calls", "calls", NULL, ETP_T_UINT, false, 0},
            {"per_run", "per run", NULL, ETP_T_FLOAT, false, 3},
            {"unit", "unit", NULL, ETP_T_STR, false, 0},
            {"share", "% of Method::execute", NULL, ETP_T_FLOAT, false, 2},
        };
        etp_col pc[6];
        memcpy(pc, pcols, sizeof pc);
        pc[3].precision = d->precision;
        etp_table *t = etp_doc_table(doc, pc, 6);
            etp_section_table(f, t);
        /* a narrow terminal loses these first (etp_table_droppable) */
        static const char *const pdrop[] = {"partitions:3", "calls:2", "per_run+unit:1", NULL};
        if (t) etp_table_droppable(t, pdrop);
        if (!t) return EXIT_INTERNAL;
        for (uint32_t j = 0; j < m->n_parts; j++) {
            const etp_ops_part *p = &m->parts[j];
            char label[300];
            if (p->place == ETP_PLACE_DELEGATE && p->backend_own)
                snprintf(label, sizeof label, "%s own time: %s (backend's own, no DELEGATE_CALL)",
                         p->placement, etp_ops_row_get(r, (size_t)p->backend_row)->name);
            else if (p->place == ETP_PLACE_DELEGATE)
                snprintf(label, sizeof label, "%s DELEGATE_CALLs", p->placement);
            else if (p->place == ETP_PLACE_CPU) snprintf(label, sizeof label, "CPU kernels (OPERATOR_CALL)");
            else snprintf(label, sizeof label, "framework overhead (rest of Method::execute)");
            etp_table_row(t);
            etp_table_str(t, label);
            if (p->place == ETP_PLACE_FRAMEWORK) etp_table_null(t);
            else etp_table_uint(t, p->partitions);
            etp_table_uint(t, p->calls);
            etp_table_float(t, etp_disp_conv(d, m->unit, p->per_run, &un));
            etp_table_str(t, un);
            etp_table_float(t, p->share);
        
        }
        char b[600];
        snprintf(b, sizeof b,
                 "%u delegate partition(s) (distinct DELEGATE_CALL instructions); per run = "
                 "total / %u runs, so the rows add up to Method::execute",
                 m->delegate_partitions, m->runs);
        etp_table_note(t, b);
        /* a newer program that puts planned buffers or tensors of this method off the CPU */
        int plan = c->prog && m->name ? etp_program_find_plan(c->prog, m->name) : -1;
        static const char dpre[] = "memory placement (--pte): ";
        char dn[sizeof dpre + 1200];
        memcpy(dn, dpre, sizeof dpre);
        if (plan >= 0 && etp_program_device_note(c->prog, (uint32_t)plan, dn + sizeof dpre - 1,
                                                 sizeof dn - (sizeof dpre - 1)))
            etp_table_note(t, dn);
        if (m->profiling_level == ETP_PL_METHOD_ONLY) {
            bool own = false;
            for (uint32_t j = 0; j < m->n_parts; j++) own |= m->parts[j].backend_own;
            snprintf(b, sizeof b,
                     "profiling level method_only (instruction events not recorded): %s",
                     own ? "a backend row is the backend's own top-level time (the best available "
                           "delegate time, not a DELEGATE_CALL) and the framework row includes "
                           "everything else"
                         : "the framework row is all of Method::execute");
            etp_table_note(t, b);
        }
        if (etp_fig_delegate_split_table(doc, f, d, r, mi)) return EXIT_INTERNAL; /* 14.2 */
        /* CPU fallback */
        if (m->n_cpu_ops == 0 && m->profiling_level != ETP_PL_FULL) {
            etp_section_textf(f, ETP_TEXT_WRAP, 2, "\nCPU (fallback) operators: unknown: instruction events were not "
                               "recorded (profiling level %s)\n",
                      etp_profiling_level_name(m->profiling_level));
        } else if (m->n_cpu_ops == 0 && !m->delegate_partitions && m->unwrapped_rows) {
            etp_section_textf(f, ETP_TEXT_WRAP, 2,
                              "\nCPU (fallback) operators: unknown: %u row(s) with an instruction "
                              "id were recorded without OPERATOR_CALL or DELEGATE_CALL, so where "
                              "they ran is unknown (etprof ops lists them)\n",
                              m->unwrapped_rows);
        } else if (m->n_cpu_ops == 0) {
            etp_section_textf(f, ETP_TEXT_WRAP, 2, "\n%sCPU (fallback) operators: none: every operator ran inside %s\n", md ? "" : "",
                    m->delegate_partitions ? "a delegate" : "no instruction (no OPERATOR_CALL or DELEGATE_CALL events: method-only profiling?)");
        } else {
            uint32_t ninstr = 0;
            for (uint32_t j = 0; j < m->n_cpu_ops; j++) ninstr += m->cpu_ops[j].instructions;
            etp_section_textf(f, ETP_TEXT_WRAP, 2, "\nCPU (fallback) operators: %u kernel instruction(s) of %u type(s)\n\n", ninstr,
                    m->n_cpu_ops);
            static const etp_col ccols[] = {
                {"operator", "operator", NULL, ETP_T_STR, false, 0},
                {"instructions", "x", NULL, ETP_T_UINT, false, 0},
                {"calls", "calls", NULL, ETP_T_UINT, false, 0},
                {"per_run", "per run", NULL, ETP_T_FLOAT, false, 3},
                {"unit", "unit", NULL, ETP_T_STR, false, 0},
                {"share", "% of Method::execute", NULL, ETP_T_FLOAT, false, 2},
            };
            etp_col cc[6];
            memcpy(cc, ccols, sizeof cc);
            cc[3].precision = d->precision;
            t = etp_doc_table(doc, cc, 6);
            etp_section_table(f, t);
            static const char *const cdrop[] = {"instructions:3", "calls:2", "per_run+unit:1",
                                                NULL};
            if (t) etp_table_droppable(t, cdrop);
            if (!t) return EXIT_INTERNAL;
            for (uint32_t j = 0; j < m->n_cpu_ops; j++) {
                const etp_ops_cpu_op *op = &m->cpu_ops[j];
                etp_table_row(t);
                etp_table_str(t, op->op);
                etp_table_uint(t, op->instructions);
                etp_table_uint(t, op->calls);
                etp_table_float(t, etp_disp_conv(d, m->unit, op->per_run, &un));
                etp_table_str(t, un);
                etp_table_float(t, op->share);
            
            }
        }
        /* top operators */
        size_t n = top_ops(c, mi, c->idx);
        if (n) {
            etp_section_textf(f, ETP_TEXT_WRAP, 2, "\ntop %zu operators by time (CPU kernels and delegate partitions)\n\n", n);
            static const etp_col tcols[] = {
                {"name", "name", NULL, ETP_T_STR, false, 0},      {"instr", "instr", NULL, ETP_T_INT, false, 0},
                {"placement", "placement", NULL, ETP_T_STR, false, 0},
                {"count", "count", NULL, ETP_T_UINT, false, 0},   {"p50", "p50", NULL, ETP_T_FLOAT, false, 3},
                {"total", "total", NULL, ETP_T_FLOAT, false, 3},  {"unit", "unit", NULL, ETP_T_STR, false, 0},
                {"share", "% of Method::execute", NULL, ETP_T_FLOAT, false, 2},
            };
            etp_col tc[8 + CLI_ETR_SHORT_COLS];
            memcpy(tc, tcols, sizeof tcols);
            tc[4].precision = tc[5].precision = d->precision;
            t = etp_doc_table(doc, tc, c->rec ? cli_etr_short_cols(tc, 8) : 8);
            etp_section_table(f, t);
            static const char *const tdrop[] = {"instr:6", "count:5", "total:4", "placement:3",
                                                "share:2", "p50+unit:1", NULL};
            if (t) etp_table_droppable(t, tdrop);
            if (!t) return EXIT_INTERNAL;
            for (size_t k = 0; k < n; k++) {
                const etp_ops_row *row = etp_ops_row_get(r, c->idx[k]);
                char label[600];
                char pl[300];
                etp_backend_placement_label(r, c->idx[k], pl, sizeof pl);
                if (row->kind == ETP_KIND_DELEGATE_CALL)
                    snprintf(label, sizeof label, "DELEGATE_CALL [%s]", pl);
                else snprintf(label, sizeof label, "%s", row->op ? row->op : row->name);
                etp_table_row(t);
                etp_table_str(t, label);
                if (row->chain >= 0 && row->instr >= 0) etp_table_int(t, row->instr);
                else etp_table_null(t);
                etp_table_str(t, pl);
                etp_table_uint(t, row->count);
                etp_table_float(t, etp_disp_conv(d, row->unit, row->stats.p50, &un));
                etp_table_float(t, etp_disp_conv(d, row->unit, row->stats.total, &un));
                etp_table_str(t, un);
                etp_table_float(t, row->share);
                if (c->rec) cli_etr_short_cells(t, c->rec, m->name, row, &c->etr);
            }
            bool kernel = false;
            for (size_t k = 0; k < n && !kernel; k++)
                kernel = etp_ops_row_get(r, c->idx[k])->kind == ETP_KIND_KERNEL;
            if (kernel && m->n_cpu_ops)
                etp_table_note(t, "a CPU operator's time here is its kernel's (native_call_*); the "
                                  "CPU (fallback) table above counts its whole OPERATOR_CALL, the "
                                  "kernel and its dispatch, so it is a little larger");
        }
        n = top_nodes(c, mi, c->idx);
        if (n) {
            etp_section_textf(f, ETP_TEXT_WRAP, 2, "\ntop %zu of %u HTP nodes by cycles (inside the QNN partition: these "
                               "ran on the NPU)\n\n",
                    n, m->htp_node_rows);
            static const etp_col ncols[] = {
                {"name", "HTP node", NULL, ETP_T_STR, false, 0},    {"count", "count", NULL, ETP_T_UINT, false, 0},
                {"p50", "p50", NULL, ETP_T_FLOAT, false, 0},        {"unit", "unit", NULL, ETP_T_STR, false, 0},
                {"share", "% of accelerator cycles", NULL, ETP_T_FLOAT, false, 2},
            };
            etp_col nc[5 + CLI_ETR_SHORT_COLS];
            memcpy(nc, ncols, sizeof ncols);
            t = etp_doc_table(doc, nc, c->rec ? cli_etr_short_cols(nc, 5) : 5);
            etp_section_table(f, t);
            static const char *const ndrop[] = {"count:3", "share:2", "p50+unit:1", NULL};
            if (t) etp_table_droppable(t, ndrop);
            if (!t) return EXIT_INTERNAL;
            uint32_t flags = 0, units = 0;
            for (size_t k = 0; k < n; k++) {
                const etp_ops_row *row = etp_ops_row_get(r, c->idx[k]);
                flags |= etp_disp_row_flags(row);
                units |= 1u << row->unit;
                etp_table_row(t);
                etp_table_str(t, row->name);
                etp_table_uint(t, row->count);
                etp_table_float(t, row->stats.p50);
                etp_table_str(t, etp_unit_name(row->unit));
                etp_table_float(t, row->share);
                if (c->rec) cli_etr_short_cells(t, c->rec, m->name, row, &c->etr);
            }
            etp_disp d0 = *d;
            d0.htp_ghz = 0;
            etp_disp_unit_notes(&d0, flags, units & (1u << ETP_UNIT_CYCLES), note_cb, t);
        }
        if (op_types_text(c, doc, f, mi)) return EXIT_INTERNAL;
    }
    if (!rc && c->bf && etp_fig_backend_table(doc, f, d, c->bf)) rc = EXIT_INTERNAL;
    if (!rc && c->pmu && etp_fig_arm_pmu_table(doc, f, c->pmu)) rc = EXIT_INTERNAL;
    if (!rc && c->vgf && etp_fig_vgf_device_table(doc, f, d, c->vgf, r)) rc = EXIT_INTERNAL;
    etp_section_text(f, 0, NULL, 0, "\n");
    etp_quality_notes(r, text_note_cb, f);
    if (c->bf) etp_backend_figures_notes(c->bf, text_note_cb, f);
    if (c->pmu) etp_arm_pmu_notes(c->pmu, etp_arm_pmu_etdump_runs(r), text_note_cb, f);
    if (c->vgf) etp_vgf_device_notes(c->vgf, r, text_note_cb, f);
    cli_etr_notes(c->rec, &c->etr, text_note_cb, f);
    cli_etr_missing_note(c->rec, r, text_note_cb, f);
    etp_section_text(f, ETP_TEXT_WRAP, NULL, 6, "more: etprof ops (every row), etprof tree (hierarchy and overhead), "
                            "etprof explain (what the numbers mean)");
    return rc;
}

static void label_note_cb(void *ctx, const char *text) {
    const char **lt = ctx; /* {label, doc} */
    char b[1400];
    snprintf(b, sizeof b, "%.300s: %s", lt[0], text);
    etp_doc_note((etp_doc *)(void *)lt[1], b);
}

/* Several files (docs/analyses.md "Several dumps at once"): each file's own summary, labelled;
 * JSON: `files` and a `file` member in each method; flat: the `file` column; text: one part per
 * file. */
static int run_summary_multi(cli_args *a) {
    if (a->set[OPT_RUNNER_LOG]) {
        cli_errorf("summary: --runner-log: applies to one FILE, not to several");
        return EXIT_USAGE;
    }
    cli_ana ca;
    int rc = cli_ana_init(a, "summary", 10, 0, &ca);
    if (rc) return rc;
    etp_disp d = ca.d;
    etp_multi_result *x;
    uint32_t *idx;
    cli_out o;
    if ((rc = cli_ana_multi_output(a, &ca, "summary", &x, &idx, &o))) return rc;
    size_t nf = etp_multi_file_count(x);
    etp_doc *doc = etp_doc_new("summary", 1, NULL, a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL);
    if (!doc) rc = EXIT_INTERNAL;
    sum_ctx c = {.a = a, .d = &d, .top = (size_t)ca.top, .idx = idx, .has_prog = a->set[OPT_PTE]};
    if (!rc) {
        etp_node *root = etp_doc_root(doc);
        etp_node_str(root, "time_unit", d.time_unit);
        uint64_t runs = 0;
        for (size_t i = 0; i < nf; i++) runs += etp_ops_runs_kept(etp_multi_file_get(x, i)->ops);
        etp_node_uint(root, "runs", runs);
        etp_node *files = etp_node_arr(root, "files");
        for (size_t i = 0; i < nf; i++) {
            const etp_multi_file *mf = etp_multi_file_get(x, i);
            etp_node *fo = etp_node_obj(files, NULL);
            etp_node_str(fo, "label", mf->label);
            etp_node_str(fo, "path", mf->path);
            etp_node_uint(fo, "runs", etp_ops_runs_kept(mf->ops));
            etp_fig_quality(fo, "data_quality", mf->ops);
        }
        etp_node *methods = etp_node_arr(root, "methods");
        for (size_t i = 0; i < nf; i++) {
            const etp_multi_file *mf = etp_multi_file_get(x, i);
            c.r = mf->ops;
            c.types = mf->types;
            c.label = mf->label;
            for (uint32_t mi = 0; mi < etp_ops_method_count(mf->ops); mi++) method_json(&c, methods, mi);
        }
        etp_doc_notes_here(doc);
        etp_doc_note(doc, PLACEMENT_NOTE);
        etp_doc_note(doc, "several files: each file is analysed on its own (its runs, methods, "
                          "shares and operator types), never merged with the others; `file` is "
                          "its label");
        if (!c.has_prog)
            etp_doc_note(doc, "no --pte: methods, backends and operator namespaces are unknown");
        for (size_t i = 0; i < nf; i++) {
            const etp_multi_file *mf = etp_multi_file_get(x, i);
            const void *lt[2] = {mf->label, doc};
            etp_quality_notes(mf->ops, label_note_cb, (void *)lt);
        }
        /* the flat table: a file column, then the single-file columns */
        etp_col cols[NFLAT + 1];
        cols[0] = (etp_col){"file", "file", NULL, ETP_T_STR, false, 0};
        memcpy(cols + 1, flat_cols, sizeof flat_cols);
        cols[7].precision = d.precision;
        etp_table *ft = etp_doc_table(doc, cols, NFLAT + 1);
        if (!ft) rc = EXIT_INTERNAL;
        else etp_doc_flat(doc, ft);
        for (size_t i = 0; !rc && i < nf; i++) {
            const etp_multi_file *mf = etp_multi_file_get(x, i);
            c.r = mf->ops;
            c.types = mf->types;
            c.label = mf->label;
            c.flat_file = ft;
            rc = fill_flat(&c, doc);
        }
        c.flat_file = NULL;
        if (!rc && (a->fmt == ETP_FMT_TABLE || a->fmt == ETP_FMT_MD)) {
            for (size_t i = 0; !rc && i < nf; i++) {
                const etp_multi_file *mf = etp_multi_file_get(x, i);
                if (i) etp_section_text(etp_doc_section(doc, "gap"), 0, NULL, 0, "\n");
                c.r = mf->ops;
                c.types = mf->types;
                c.label = mf->label;
                rc = fill_report(&c, doc, mf->path);
            }
        }
        if (!rc) rc = cli_render(a, &o, doc);
        else cli_errorf("summary: out of memory");
        etp_doc_free(doc);
    }
    free(idx);
    etp_multi_free(x);
    return cli_out_close(&o, rc);
}

static int run_summary(cli_args *a) {
    if (cli_ana_is_multi(a)) return run_summary_multi(a);
    const char *path = a->pos[0];
    cli_ana ca;
    int rc = cli_ana_init(a, "summary", 10, 0, &ca);
    if (rc) return rc;
    long top = ca.top;
    etp_disp d = ca.d;
    etp_etrecord *rec;
    if ((rc = cli_etr_open(a, &rec))) return rc;
    if ((rc = cli_ana_compute(a, path, &ca))) {
        etp_etrecord_close(rec);
        return rc;
    }
    d.tick_ns = ca.d.tick_ns; /* the dump's default tick rate is known once it is open */
    cli_inputs in = ca.in;
    etp_ops_result *r = ca.r;
    etp_runner_log rlog;
    const etp_arm_pmu_report *pmu;
    if ((rc = cli_runner_log(a, in.dump, &rlog, &pmu))) {
        etp_runner_log_free(&rlog);
        cli_ana_close(&ca);
        etp_etrecord_close(rec);
        return rc;
    }
    uint32_t *idx;
    cli_out o;
    if ((rc = cli_ana_output(a, &ca, etp_ops_row_count(r), &idx, &o))) {
        etp_runner_log_free(&rlog);
        etp_etrecord_close(rec);
        return rc;
    }
    etp_optype_result *types = NULL;
    etp_error terr = {0};
    if (etp_optype_compute(r, &types, &terr)) {
        cli_error(&terr);
        free(idx);
        cli_ana_close(&ca);
        etp_runner_log_free(&rlog);
        etp_etrecord_close(rec);
        return cli_out_close(&o, EXIT_INTERNAL);
    }
    etp_backend_figures bf;
    etp_error berr = {0};
    if (etp_backend_figures_get(in.model, r, &bf, &berr)) {
        cli_error(&berr);
        etp_backend_figures_free(&bf);
        etp_optype_free(types);
        free(idx);
        cli_ana_close(&ca);
        etp_runner_log_free(&rlog);
        etp_etrecord_close(rec);
        return cli_out_close(&o, cli_exit_for(berr.code ? berr.code : ETP_E_INTERNAL));
    }
    sum_ctx c = {.a = a, .r = r, .d = &d, .top = (size_t)top, .idx = idx, .has_prog = in.prog != NULL,
                 .types = types, .bf = &bf, .rec = rec, .pmu = pmu,
                 .vgf = rlog.vgf.n ? &rlog.vgf : NULL, .prog = in.prog};
    etp_qnn_program_soc(in.prog, &in.pte_blob, &c.soc);
    /* one document: the JSON facts, the flat table (csv/tsv/jsonl) and the report (table/md) */
    etp_doc *doc = etp_doc_new("summary", 1, path, a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL);
    if (!doc) rc = EXIT_INTERNAL;
    else {
        fill_json(&c, doc);
        rc = fill_flat(&c, doc);
        if (!rc && (a->fmt == ETP_FMT_TABLE || a->fmt == ETP_FMT_MD)) rc = fill_report(&c, doc, path);
        if (!rc) rc = cli_render(a, &o, doc);
        etp_doc_free(doc);
    }
    etp_backend_figures_free(&bf);
    free(idx);
    etp_optype_free(types);
    etp_ops_free(r);
    etp_runner_log_free(&rlog);
    etp_etrecord_close(rec);
    cli_close_inputs(&in);
    return cli_out_close(&o, rc);
}

static const opt_id summary_opts[] = {OPT_PTE,   OPT_METHOD, OPT_IGNORE_MISMATCH, OPT_TICK_NS,    OPT_TICK_HZ,
                                      OPT_TICKS, OPT_BLOCK,  OPT_SKIP_FIRST, OPT_TOP,
                                      OPT_TIME_UNIT, OPT_LABEL, OPT_ETRECORD, OPT_RUNNER_LOG,
                                      OPT_NONE};

const cli_cmd cmd_summary = {
    .name = "summary",
    .summary = "start here: methods, runs, latency, where the time went (NPU/delegate vs CPU vs "
               "framework), CPU fallbacks, top ops",
    .usage = "FILE... [--pte P] [--label NAME ...]",
    .help = "Per method: Method::execute p50/p90 over runs; the time in each backend's\n"
            "DELEGATE_CALLs, in CPU kernels (OPERATOR_CALL) and in the framework (the rest),\n"
            "absolute per run and as % of Method::execute; the number of delegate partitions;\n"
            "the CPU (fallback) operators grouped by type; the top --top (default 10) operators\n"
            "and HTP nodes; the operators by type (HTP nodes by ATen op, backend operators\n"
            "without \" #k\", CPU kernels by operator: count, total, avg, share, cumulative\n"
            "share, one table per unit). Several FILEs (e.g. prefill.etdp decode.etdp): each\n"
            "file summarised on its own, labelled by its base name or --label NAME (once per\n"
            "FILE); --method once for all or once per FILE. See docs/analyses.md.",
    .opts = summary_opts,
    .min_pos = 1,
    .max_pos = 8,
    .run = run_summary,
};
