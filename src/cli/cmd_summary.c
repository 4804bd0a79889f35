/* cmd_summary.c - `etprof summary FILE [--pte P]`: the first thing to run. File, methods, runs,
 * latency per method, where the time went (each backend's DELEGATE_CALLs, CPU kernels,
 * framework), the CPU fallback operators by type, and the top operators (docs/analyses.md). */
#include "cli_ana.h"

#include <stdlib.h>
#include <string.h>

static void note_cb(void *ctx, const char *text) { out_table_note(ctx, text); }
static void json_note_cb(void *ctx, const char *text) { jw_str(ctx, text); }
typedef struct text_out {
    FILE *f;
    int width; /* wrap prose to this many columns (0: not wrapped) */
} text_out;
static void text_note_cb(void *ctx, const char *text) {
    const text_out *to = ctx;
    char *t = out_text_dup(text); /* block names come from the file */
    out_wrap(to->f, to->width, "note: ", 6, t ? t : text);
    free(t);
}

typedef struct sum_ctx {
    cli_args *a;
    const etp_ops_result *r;
    const ana_disp *d;
    size_t top;
    uint32_t *idx;
    bool has_prog;
} sum_ctx;

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

static void json_row(jw *w, const sum_ctx *c, const etp_ops_row *row) { ana_json_top_op(w, c->d, row); }

static int write_json(const sum_ctx *c, FILE *f, const char *path) {
    const etp_ops_result *r = c->r;
    const ana_disp *d = c->d;
    jw w;
    jw_init(&w, f, true);
    jw_obj_begin(&w);
    jw_key(&w, "schema_version"); jw_int(&w, 1);
    jw_key(&w, "file"); jw_str(&w, path);
    jw_key(&w, "program"); jw_str(&w, c->a->set[OPT_PTE] ? c->a->val[OPT_PTE] : NULL);
    jw_key(&w, "time_unit"); jw_str(&w, d->time_unit);
    jw_key(&w, "runs"); jw_uint(&w, etp_ops_runs_kept(r));
    jw_key(&w, "methods");
    jw_arr_begin(&w);
    for (uint32_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        const char *un;
        jw_obj_begin(&w);
        jw_key(&w, "name"); jw_str(&w, m->name);
        ana_json_method_candidates(&w, m);
        jw_key(&w, "runs"); jw_uint(&w, m->runs);
        jw_key(&w, "skipped_runs"); jw_uint(&w, m->skipped);
        jw_key(&w, "latency");
        jw_obj_begin(&w);
        jw_key(&w, "min"); jw_double(&w, ana_conv(d, m->unit, m->latency.min, &un));
        jw_key(&w, "p10"); jw_double(&w, ana_conv(d, m->unit, m->latency.p10, &un));
        jw_key(&w, "p50"); jw_double(&w, ana_conv(d, m->unit, m->latency.p50, &un));
        jw_key(&w, "p90"); jw_double(&w, ana_conv(d, m->unit, m->latency.p90, &un));
        jw_key(&w, "avg"); jw_double(&w, ana_conv(d, m->unit, m->latency.avg, &un));
        jw_key(&w, "max"); jw_double(&w, ana_conv(d, m->unit, m->latency.max, &un));
        jw_key(&w, "total"); jw_double(&w, ana_conv(d, m->unit, m->latency.total, &un));
        jw_key(&w, "first_run");
        if (m->exec_row >= 0 && etp_ops_row_get(r, (size_t)m->exec_row)->runs)
            jw_double(&w, ana_conv(d, m->unit, etp_ops_row_get(r, (size_t)m->exec_row)->samples[0], &un));
        else jw_null(&w);
        jw_key(&w, "unit"); jw_str(&w, un);
        jw_obj_end(&w);
        jw_key(&w, "placement");
        jw_arr_begin(&w);
        for (uint32_t j = 0; j < m->n_parts; j++) {
            const etp_ops_part *p = &m->parts[j];
            jw_obj_begin(&w);
            jw_key(&w, "placement"); jw_str(&w, p->placement);
            jw_key(&w, "kind"); jw_str(&w, place_kind(p->place));
            jw_key(&w, "partitions");
            if (p->place == ETP_PLACE_FRAMEWORK) jw_null(&w);
            else jw_uint(&w, p->partitions);
            jw_key(&w, "calls"); jw_uint(&w, p->calls);
            jw_key(&w, "per_run"); jw_double(&w, ana_conv(d, m->unit, p->per_run, &un));
            jw_key(&w, "total"); jw_double(&w, ana_conv(d, m->unit, p->total, &un));
            jw_key(&w, "share"); jw_double(&w, p->share);
            jw_key(&w, "unit"); jw_str(&w, un);
            jw_key(&w, "backend_own"); jw_bool(&w, p->backend_own);
            jw_key(&w, "backend_event");
            if (p->backend_row >= 0) jw_str(&w, etp_ops_row_get(r, (size_t)p->backend_row)->name);
            else jw_null(&w);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_key(&w, "profiling_level"); jw_str(&w, etp_profiling_level_name(m->profiling_level));
        jw_key(&w, "delegate_partitions"); jw_uint(&w, m->delegate_partitions);
        jw_key(&w, "delegates");
        ana_json_delegates(&w, d, r, mi);
        jw_key(&w, "cpu_operators");
        jw_arr_begin(&w);
        for (uint32_t j = 0; j < m->n_cpu_ops; j++) {
            const etp_ops_cpu_op *o = &m->cpu_ops[j];
            jw_obj_begin(&w);
            jw_key(&w, "operator"); jw_str(&w, o->op);
            jw_key(&w, "instructions"); jw_uint(&w, o->instructions);
            jw_key(&w, "calls"); jw_uint(&w, o->calls);
            jw_key(&w, "per_run"); jw_double(&w, ana_conv(d, m->unit, o->per_run, &un));
            jw_key(&w, "total"); jw_double(&w, ana_conv(d, m->unit, o->total, &un));
            jw_key(&w, "share"); jw_double(&w, o->share);
            jw_key(&w, "unit"); jw_str(&w, un);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_key(&w, "top_ops");
        jw_arr_begin(&w);
        size_t n = top_ops(c, mi, c->idx);
        for (size_t k = 0; k < n; k++) json_row(&w, c, etp_ops_row_get(r, c->idx[k]));
        jw_arr_end(&w);
        jw_key(&w, "htp_nodes");
        jw_obj_begin(&w);
        jw_key(&w, "rows"); jw_uint(&w, m->htp_node_rows);
        jw_key(&w, "top");
        jw_arr_begin(&w);
        n = top_nodes(c, mi, c->idx);
        for (size_t k = 0; k < n; k++) json_row(&w, c, etp_ops_row_get(r, c->idx[k]));
        jw_arr_end(&w);
        jw_obj_end(&w);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_key(&w, "notes");
    jw_arr_begin(&w);
    jw_str(&w, "placement: per_run = total / runs, so the parts add up to Method::execute; share "
               "= % of the Method::execute total; framework = Method::execute minus the "
               "DELEGATE_CALLs and OPERATOR_CALLs");
    if (!c->has_prog)
        jw_str(&w, "no --pte: methods, backends and operator namespaces are unknown");
    ana_quality_notes(r, json_note_cb, &w);
    jw_arr_end(&w);
    jw_key(&w, "data_quality");
    ana_json_quality(&w, r);
    jw_obj_end(&w);
    fflush(f);
    int rc = jw_finish(&w);
    fputc('\n', f);
    return rc ? EXIT_IO : EXIT_OK;
}

/* ------------------------------------------------------------------------------------------- */

static const out_col flat_cols[] = {
    {"section", "section", OUT_STR, 0},
    {"method", "method", OUT_STR, 0},
    {"item", "item", OUT_STR, 0},
    {"placement", "placement", OUT_STR, 0},
    {"instructions", "instructions", OUT_UINT, 0},
    {"count", "count", OUT_UINT, 0},
    {"value", "value", OUT_FLOAT, 3},
    {"unit", "unit", OUT_STR, 0},
    {"share", "share%", OUT_FLOAT, 2},
};
#define NFLAT (sizeof flat_cols / sizeof flat_cols[0])

static void flat(out_table *t, const char *sec, const char *method, const char *item,
                 const char *placement, int64_t instr, int64_t count, double value,
                 const char *unit, double share) {
    out_row_begin(t);
    out_cell_str(t, sec);
    out_cell_str(t, method);
    out_cell_str(t, item);
    out_cell_str(t, placement);
    if (instr >= 0) out_cell_uint(t, (uint64_t)instr);
    else out_cell_null(t);
    if (count >= 0) out_cell_uint(t, (uint64_t)count);
    else out_cell_null(t);
    out_cell_float(t, value);
    out_cell_str(t, unit);
    out_cell_float(t, share);
    out_row_end(t);
}

/* csv, tsv, jsonl: one flat table with a section column. */
static int write_flat(const sum_ctx *c, cli_out *o) {
    const etp_ops_result *r = c->r;
    out_col cols[NFLAT];
    memcpy(cols, flat_cols, sizeof cols);
    cols[6].precision = c->d->precision;
    out_table *t = cli_table(c->a, o, cols, NFLAT);
    if (!t) return EXIT_INTERNAL;
    for (uint32_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        const char *un;
        const char *stat[] = {"min", "p10", "p50", "p90", "avg", "max"};
        for (size_t s = 0; s < 6; s++) {
            double v = NAN;
            etp_stats_pick(&m->latency, stat[s], &v);
            double x = ana_conv(c->d, m->unit, v, &un);
            flat(t, "latency", m->name, stat[s], "framework", -1, m->runs, x, un, NAN);
        }
        for (uint32_t j = 0; j < m->n_parts; j++) {
            const etp_ops_part *p = &m->parts[j];
            double v = ana_conv(c->d, m->unit, p->per_run, &un);
            flat(t, "placement", m->name, p->placement, place_kind(p->place),
                 p->place == ETP_PLACE_FRAMEWORK ? -1 : (int64_t)p->partitions, (int64_t)p->calls,
                 v, un, p->share);
        }
        for (uint32_t j = 0; j < m->n_cpu_ops; j++) {
            const etp_ops_cpu_op *op = &m->cpu_ops[j];
            double v = ana_conv(c->d, m->unit, op->per_run, &un);
            flat(t, "cpu_operator", m->name, op->op, "cpu", op->instructions, (int64_t)op->calls,
                 v, un, op->share);
        }
        size_t n = top_ops(c, mi, c->idx);
        for (size_t k = 0; k < n; k++) {
            const etp_ops_row *row = etp_ops_row_get(r, c->idx[k]);
            double v = ana_conv(c->d, row->unit, row->stats.p50, &un);
            flat(t, "top_op", m->name, row->op ? row->op : row->name, row->placement,
                 row->instr >= 0 && row->chain >= 0 ? row->instr : -1, (int64_t)row->count, v, un,
                 row->share);
        }
        n = top_nodes(c, mi, c->idx);
        for (size_t k = 0; k < n; k++) {
            const etp_ops_row *row = etp_ops_row_get(r, c->idx[k]);
            double v = ana_conv(c->d, row->unit, row->stats.p50, &un);
            flat(t, "htp_node", m->name, row->name, row->placement, row->instr, (int64_t)row->count,
                 v, un, row->share);
        }
    }
    int rc = out_table_finish(t) ? EXIT_IO : EXIT_OK;
    out_table_free(t);
    return rc;
}

/* ------------------------------------------------------------------------------------------- */

/* table and md: a short report made of small tables. */
static int write_report(const sum_ctx *c, cli_out *o, const char *path) {
    const etp_ops_result *r = c->r;
    const ana_disp *d = c->d;
    bool md = c->a->fmt == OUT_MD;
    FILE *f = o->f;
    const char *h = md ? "## " : "";
    /* the prose fits the terminal as the tables do (table format only) */
    int W = md ? 0 : o->width;
    fprintf(f, "%sfile      %s\n", md ? "- " : "", path);
    if (c->has_prog) fprintf(f, "%sprogram   %s\n", md ? "- " : "", c->a->val[OPT_PTE]);
    else
        out_wrapf(f, W, md ? 12 : 10,
                  "%sprogram   not given (--pte P names the methods, operators and backends)\n",
                  md ? "- " : "");
    fprintf(f, "%sruns      %u (run blocks)", md ? "- " : "", etp_ops_runs_kept(r));
    fprintf(f, "\n");
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
            char *mn = out_text_dup(m->name);
            if (m->name && !mn) {
                free(line);
                return EXIT_INTERNAL;
            }
            char lb[600];
            snprintf(piece, sizeof piece, " %s (%u runs%s)",
                     mn ? mn : ana_method_label(m, lb, sizeof lb), m->runs,
                     m->skipped ? ", after --skip-first" : "");
            free(mn);
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
    out_wrap(f, W, NULL, md ? 12 : 10, line);
    free(line);
    int rc = EXIT_OK;
    for (uint32_t mi = 0; mi < etp_ops_method_count(r) && !rc; mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        char lb[600];
        char *mn = out_text_dup(m->name); /* as above */
        if (m->name && !mn) return EXIT_INTERNAL;
        const char *un = NULL;
        double p50 = ana_conv(d, m->unit, m->latency.p50, &un);
        double p90 = ana_conv(d, m->unit, m->latency.p90, &un);
        char first_run[120] = "";
        if (m->exec_row >= 0 && etp_ops_row_get(r, (size_t)m->exec_row)->runs > 1) {
            const char *fu = un;
            double first = ana_conv(d, m->unit, etp_ops_row_get(r, (size_t)m->exec_row)->samples[0], &fu);
            snprintf(first_run, sizeof first_run, "; first run %.*f %s", d->precision, first, fu);
        }
        out_wrapf(f, W, 2, "\n%s%s: latency (Method::execute per run) p50 %.*f %s, p90 %.*f %s%s\n\n",
                  h, mn ? mn : ana_method_label(m, lb, sizeof lb), d->precision, p50, un,
                  d->precision, p90, un, first_run);
        free(mn);
        /* placement */
        static const out_col pcols[] = {
            {"placement", "where the time went", OUT_STR, 0},
            {"partitions", "partitions", OUT_UINT, 0},
            {"calls", "calls", OUT_UINT, 0},
            {"per_run", "per run", OUT_FLOAT, 3},
            {"unit", "unit", OUT_STR, 0},
            {"share", "% of Method::execute", OUT_FLOAT, 2},
        };
        out_col pc[6];
        memcpy(pc, pcols, sizeof pc);
        pc[3].precision = d->precision;
        out_table *t = cli_table(c->a, o, pc, 6);
        /* a narrow terminal loses these first (out_table_set_droppable) */
        static const char *const pdrop[] = {"partitions:3", "calls:2", "per_run+unit:1", NULL};
        if (t) out_table_set_droppable(t, pdrop);
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
            out_row_begin(t);
            out_cell_str(t, label);
            if (p->place == ETP_PLACE_FRAMEWORK) out_cell_null(t);
            else out_cell_uint(t, p->partitions);
            out_cell_uint(t, p->calls);
            out_cell_float(t, ana_conv(d, m->unit, p->per_run, &un));
            out_cell_str(t, un);
            out_cell_float(t, p->share);
            out_row_end(t);
        }
        char b[600];
        snprintf(b, sizeof b,
                 "%u delegate partition(s) (distinct DELEGATE_CALL instructions); per run = "
                 "total / %u runs, so the rows add up to Method::execute",
                 m->delegate_partitions, m->runs);
        out_table_note(t, b);
        if (m->profiling_level == ETP_PL_METHOD_ONLY) {
            bool own = false;
            for (uint32_t j = 0; j < m->n_parts; j++) own |= m->parts[j].backend_own;
            snprintf(b, sizeof b,
                     "profiling level method_only (instruction events not recorded): %s",
                     own ? "a backend row is the backend's own top-level time (the best available "
                           "delegate time, not a DELEGATE_CALL) and the framework row includes "
                           "everything else"
                         : "the framework row is all of Method::execute");
            out_table_note(t, b);
        }
        rc = out_table_finish(t) ? EXIT_IO : EXIT_OK;
        out_table_free(t);
        /* CPU fallback */
        if (m->n_cpu_ops == 0 && m->profiling_level != ETP_PL_FULL) {
            out_wrapf(f, W, 2, "\nCPU (fallback) operators: unknown: instruction events were not "
                               "recorded (profiling level %s)\n",
                      etp_profiling_level_name(m->profiling_level));
        } else if (m->n_cpu_ops == 0) {
            out_wrapf(f, W, 2, "\n%sCPU (fallback) operators: none: every operator ran inside %s\n", md ? "" : "",
                    m->delegate_partitions ? "a delegate" : "no instruction (no OPERATOR_CALL or DELEGATE_CALL events: method-only profiling?)");
        } else {
            uint32_t ninstr = 0;
            for (uint32_t j = 0; j < m->n_cpu_ops; j++) ninstr += m->cpu_ops[j].instructions;
            out_wrapf(f, W, 2, "\nCPU (fallback) operators: %u kernel instruction(s) of %u type(s)\n\n", ninstr,
                    m->n_cpu_ops);
            static const out_col ccols[] = {
                {"operator", "operator", OUT_STR, 0},
                {"instructions", "x", OUT_UINT, 0},
                {"calls", "calls", OUT_UINT, 0},
                {"per_run", "per run", OUT_FLOAT, 3},
                {"unit", "unit", OUT_STR, 0},
                {"share", "% of Method::execute", OUT_FLOAT, 2},
            };
            out_col cc[6];
            memcpy(cc, ccols, sizeof cc);
            cc[3].precision = d->precision;
            t = cli_table(c->a, o, cc, 6);
            static const char *const cdrop[] = {"instructions:3", "calls:2", "per_run+unit:1",
                                                NULL};
            if (t) out_table_set_droppable(t, cdrop);
            if (!t) return EXIT_INTERNAL;
            for (uint32_t j = 0; j < m->n_cpu_ops; j++) {
                const etp_ops_cpu_op *op = &m->cpu_ops[j];
                out_row_begin(t);
                out_cell_str(t, op->op);
                out_cell_uint(t, op->instructions);
                out_cell_uint(t, op->calls);
                out_cell_float(t, ana_conv(d, m->unit, op->per_run, &un));
                out_cell_str(t, un);
                out_cell_float(t, op->share);
                out_row_end(t);
            }
            if (!rc) rc = out_table_finish(t) ? EXIT_IO : EXIT_OK;
            out_table_free(t);
        }
        /* top operators */
        size_t n = top_ops(c, mi, c->idx);
        if (n) {
            out_wrapf(f, W, 2, "\ntop %zu operators by time (CPU kernels and delegate partitions)\n\n", n);
            static const out_col tcols[] = {
                {"name", "name", OUT_STR, 0},      {"instr", "instr", OUT_INT, 0},
                {"placement", "placement", OUT_STR, 0},
                {"count", "count", OUT_UINT, 0},   {"p50", "p50", OUT_FLOAT, 3},
                {"total", "total", OUT_FLOAT, 3},  {"unit", "unit", OUT_STR, 0},
                {"share", "% of Method::execute", OUT_FLOAT, 2},
            };
            out_col tc[8];
            memcpy(tc, tcols, sizeof tc);
            tc[4].precision = tc[5].precision = d->precision;
            t = cli_table(c->a, o, tc, 8);
            static const char *const tdrop[] = {"instr:6", "count:5", "total:4", "placement:3",
                                                "share:2", "p50+unit:1", NULL};
            if (t) out_table_set_droppable(t, tdrop);
            if (!t) return EXIT_INTERNAL;
            for (size_t k = 0; k < n; k++) {
                const etp_ops_row *row = etp_ops_row_get(r, c->idx[k]);
                char label[600];
                if (row->kind == ETP_KIND_DELEGATE_CALL)
                    snprintf(label, sizeof label, "DELEGATE_CALL [%s]", row->placement);
                else snprintf(label, sizeof label, "%s", row->op ? row->op : row->name);
                out_row_begin(t);
                out_cell_str(t, label);
                if (row->chain >= 0 && row->instr >= 0) out_cell_int(t, row->instr);
                else out_cell_null(t);
                out_cell_str(t, row->placement);
                out_cell_uint(t, row->count);
                out_cell_float(t, ana_conv(d, row->unit, row->stats.p50, &un));
                out_cell_float(t, ana_conv(d, row->unit, row->stats.total, &un));
                out_cell_str(t, un);
                out_cell_float(t, row->share);
                out_row_end(t);
            }
            if (!rc) rc = out_table_finish(t) ? EXIT_IO : EXIT_OK;
            out_table_free(t);
        }
        n = top_nodes(c, mi, c->idx);
        if (n) {
            out_wrapf(f, W, 2, "\ntop %zu of %u HTP nodes by cycles (inside the QNN partition: these "
                               "ran on the NPU)\n\n",
                    n, m->htp_node_rows);
            static const out_col ncols[] = {
                {"name", "HTP node", OUT_STR, 0},    {"count", "count", OUT_UINT, 0},
                {"p50", "p50", OUT_FLOAT, 0},        {"unit", "unit", OUT_STR, 0},
                {"share", "% of accelerator cycles", OUT_FLOAT, 2},
            };
            t = cli_table(c->a, o, ncols, 5);
            static const char *const ndrop[] = {"count:3", "share:2", "p50+unit:1", NULL};
            if (t) out_table_set_droppable(t, ndrop);
            if (!t) return EXIT_INTERNAL;
            uint32_t flags = 0, units = 0;
            for (size_t k = 0; k < n; k++) {
                const etp_ops_row *row = etp_ops_row_get(r, c->idx[k]);
                flags |= row->flags;
                units |= 1u << row->unit;
                out_row_begin(t);
                out_cell_str(t, row->name);
                out_cell_uint(t, row->count);
                out_cell_float(t, row->stats.p50);
                out_cell_str(t, etp_unit_name(row->unit));
                out_cell_float(t, row->share);
                out_row_end(t);
            }
            ana_disp d0 = *d;
            d0.htp_ghz = 0;
            ana_unit_notes(&d0, flags, units & (1u << ETP_UNIT_CYCLES), note_cb, t);
            if (!rc) rc = out_table_finish(t) ? EXIT_IO : EXIT_OK;
            out_table_free(t);
        }
    }
    fputc('\n', f);
    text_out to = {f, W};
    ana_quality_notes(r, text_note_cb, &to);
    out_wrap(f, W, NULL, 6, "more: etprof ops (every row), etprof tree (hierarchy and overhead), "
                            "etprof explain (what the numbers mean)");
    if (ferror(f) && !rc) rc = EXIT_IO;
    return rc;
}

static int run_summary(cli_args *a) {
    const char *path = a->pos[0];
    cli_ana ca;
    int rc = cli_ana_init(a, "summary", 10, 0, &ca);
    if (rc) return rc;
    long top = ca.top;
    ana_disp d = ca.d;
    if ((rc = cli_ana_compute(a, path, &ca))) return rc;
    cli_inputs in = ca.in;
    etp_ops_result *r = ca.r;
    uint32_t *idx;
    cli_out o;
    if ((rc = cli_ana_output(a, &ca, etp_ops_row_count(r), &idx, &o))) return rc;
    sum_ctx c = {.a = a, .r = r, .d = &d, .top = (size_t)top, .idx = idx, .has_prog = in.prog != NULL};
    if (a->fmt == OUT_JSON) rc = write_json(&c, o.f, path);
    else if (a->fmt == OUT_TABLE || a->fmt == OUT_MD) rc = write_report(&c, &o, path);
    else rc = write_flat(&c, &o);
    free(idx);
    etp_ops_free(r);
    cli_close_inputs(&in);
    return cli_out_close(&o, rc);
}

static const opt_id summary_opts[] = {OPT_PTE,   OPT_METHOD, OPT_IGNORE_MISMATCH, OPT_TICK_NS,    OPT_TICK_HZ,
                                      OPT_TICKS, OPT_BLOCK,  OPT_SKIP_FIRST, OPT_TOP,
                                      OPT_TIME_UNIT, OPT_NONE};

const cli_cmd cmd_summary = {
    .name = "summary",
    .summary = "start here: methods, runs, latency, where the time went (NPU/delegate vs CPU vs "
               "framework), CPU fallbacks, top ops",
    .usage = "FILE [--pte P]",
    .help = "Per method: Method::execute p50/p90 over runs; the time in each backend's\n"
            "DELEGATE_CALLs, in CPU kernels (OPERATOR_CALL) and in the framework (the rest),\n"
            "absolute per run and as % of Method::execute; the number of delegate partitions;\n"
            "the CPU (fallback) operators grouped by type; the top --top (default 10) operators\n"
            "and HTP nodes. See docs/analyses.md.",
    .opts = summary_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_summary,
};
