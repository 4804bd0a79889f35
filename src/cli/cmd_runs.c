/* cmd_runs.c - `etprof runs FILE [--pte P]`: one row per run with warm-up, outlier and trend
 * flags (etprof_runs.h computes them; docs/analyses.md "Runs"). This file only renders. */
#include "cli_ana.h"
#include "etprof_runs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void note_cb(void *ctx, const char *text) { etp_table_note(ctx, text); }
static void doc_note_cb(void *ctx, const char *text) { etp_doc_note(ctx, text); }

#define MAX_BACKENDS 16

typedef struct runs_ctx {
    cli_args *a;
    const etp_ops_result *r;  /* the file being written */
    const etp_runs_result *x;
    /* every file: one, or several (labels[i] non-NULL; docs/analyses.md "Several dumps at
     * once") */
    size_t nf;
    const etp_ops_result *rs[CLI_MAX_POS];
    const etp_runs_result *xs[CLI_MAX_POS];
    const char *labels[CLI_MAX_POS];
    const char *paths[CLI_MAX_POS];
    const char *label; /* the label of the file being written (NULL: one file) */
    const etp_disp *d;
    const char *backends[MAX_BACKENDS]; /* distinct delegate placements over the methods */
    size_t nb;
    bool qnn; /* some run has QNN figures */
} runs_ctx;

static double conv(const runs_ctx *c, etp_unit u, double v) {
    const char *un;
    return etp_disp_conv(c->d, u, v, &un);
}

static const char *uname(const runs_ctx *c, etp_unit u) {
    const char *un;
    etp_disp_conv(c->d, u, 0, &un);
    return un;
}

/* the QNN figure t of a run summed over its QNN partitions (NaN when none has it) */
static double qnn_sum(const etp_runs_row *rw, int t, etp_unit *u) {
    double s = NAN;
    *u = ETP_UNIT_NONE;
    for (uint32_t q = 0; q < rw->n_qnn; q++) {
        double v = rw->qnn[q].value[t];
        if (isnan(v)) continue;
        s = isnan(s) ? v : s + v;
        *u = rw->qnn[q].unit[t];
    }
    return s;
}

static const etp_runs_backend *backend_of(const etp_runs_row *rw, const char *placement) {
    for (uint32_t j = 0; j < rw->n_backends; j++)
        if (strcmp(rw->backends[j].placement, placement) == 0) return &rw->backends[j];
    return NULL;
}

static const char *flag_text(const etp_runs_row *rw) {
    return rw->warmup ? "warm-up" : rw->outlier ? "outlier" : "";
}

static void method_note(const runs_ctx *c, const etp_runs_method *mr, char *b, size_t cap) {
    char lb[600];
    const etp_ops_method *m = etp_ops_method_get(c->r, mr->method);
    const char *name = etp_method_label(m, lb, sizeof lb);
    int w = snprintf(b, cap, "%.300s%s%.300s: %u run(s), %u warm-up, %u outlier(s); ",
                     c->label ? c->label : "", c->label ? ": " : "", name, mr->runs,
                     mr->warmup_runs, mr->outliers);
    if (w < 0 || (size_t)w >= cap) return;
    if (mr->trend == ETP_TREND_UP || mr->trend == ETP_TREND_DOWN)
        w += snprintf(b + w, cap - (size_t)w,
                      "%s %.1f %% over the runs (Theil-Sen %.4g %s/run, Mann-Kendall p %.2g, %u "
                      "steady runs)",
                      etp_runs_trend_name(mr->trend), fabs(mr->drift_pct), conv(c, mr->unit, mr->slope),
                      uname(c, mr->unit), mr->trend_p, mr->trend_runs);
    else if (mr->trend == ETP_TREND_STABLE)
        w += snprintf(b + w, cap - (size_t)w,
                      "no significant drift (%+.1f %% over the runs, Mann-Kendall p %.2g, %u steady runs)",
                      mr->drift_pct, mr->trend_p, mr->trend_runs);
    else
        w += snprintf(b + w, cap - (size_t)w, "trend: too few steady runs (%u, need 5)",
                      mr->steady_runs);
    if (w < 0 || (size_t)w >= cap) return;
    if (!isnan(mr->runs_per_second))
        w += snprintf(b + w, cap - (size_t)w,
                      "; %.4g runs/s of summed Method::execute over all %u runs (warm-up "
                      "included)%s",
                      mr->runs_per_second, mr->runs,
                      mr->decode_style ? " (decode-style: tokens/s)" : "");
    if (w < 0 || (size_t)w >= cap) return;
    if (!isnan(mr->runs_per_second_steady))
        snprintf(b + w, cap - (size_t)w, ", %.4g %s over the %u steady runs (warm-up excluded)",
                 mr->runs_per_second_steady, mr->decode_style ? "tokens/s" : "runs/s",
                 mr->steady_runs);
}

static void general_notes(const runs_ctx *c, void (*emit)(void *, const char *), void *ctx) {
    const etp_runs_opts *o = etp_runs_get_opts(c->x);
    char b[700];
    snprintf(b, sizeof b,
             "warm-up = the first run of each method and the runs right after it above %.3g x "
             "the method's median; outlier = |Method::execute - median| > %.3g x robust scale "
             "(1.4826 MAD) of the steady runs; trend = Theil-Sen slope with Mann-Kendall p < "
             "%.3g and at least %.3g %% over the runs",
             o->warmup_factor, o->outlier_k, o->trend_alpha, o->trend_pct);
    emit(ctx, b);
    emit(ctx, "delegate = each backend's DELEGATE_CALLs, cpu = OPERATOR_CALLs (or kernels), "
              "framework = Method::execute minus both: the parts of `etprof summary`, per run");
    if (c->labels[0])
        emit(ctx, "several files: each file's runs, flags and trend are its own single-file "
                  "analysis, never merged with another file's; file = its label");
    runs_ctx cc = *c;
    for (size_t f = 0; f < c->nf; f++) {
        cc.x = c->xs[f];
        cc.r = c->rs[f];
        cc.label = c->labels[f];
        for (size_t i = 0; i < etp_runs_method_count(cc.x); i++) {
            method_note(&cc, etp_runs_method_get(cc.x, i), b, sizeof b);
            emit(ctx, b);
        }
    }
}

typedef struct label_note {
    const char *label;
    void (*emit)(void *, const char *);
    void *ctx;
} label_note;
/* a note of one file, prefixed with its label */
static void label_note_cb(void *ctx, const char *text) {
    const label_note *ln = ctx;
    char b[1400];
    snprintf(b, sizeof b, "%.300s: %s", ln->label, text);
    ln->emit(ln->ctx, b);
}

static void quality_notes(const runs_ctx *c, void (*emit)(void *, const char *), void *ctx) {
    for (size_t f = 0; f < c->nf; f++) {
        if (!c->labels[f]) {
            etp_quality_notes(c->rs[f], emit, ctx);
            continue;
        }
        label_note ln = {c->labels[f], emit, ctx};
        etp_quality_notes(c->rs[f], label_note_cb, &ln);
    }
}

/* The JSON facts: envelope, time unit, criteria, methods, runs; the notes. */
static void fill_json(const runs_ctx *c, etp_doc *doc) {
    const etp_disp *d = c->d;
    etp_node *root = etp_doc_root(doc);
    etp_node_str(root, "time_unit", d->time_unit);
    const etp_runs_opts *o = etp_runs_get_opts(c->x);
    etp_node *cr = etp_node_obj(root, "criteria");
    etp_node_float(cr, "warmup_factor", o->warmup_factor);
    etp_node_float(cr, "outlier_k", o->outlier_k);
    etp_node_float(cr, "trend_alpha", o->trend_alpha);
    etp_node_float(cr, "trend_pct", o->trend_pct);
    if (c->labels[0]) {
        etp_node *fs = etp_node_arr(root, "files");
        for (size_t f = 0; f < c->nf; f++) {
            etp_node *fo = etp_node_obj(fs, NULL);
            etp_node_str(fo, "label", c->labels[f]);
            etp_node_str(fo, "path", c->paths[f]);
            etp_node_uint(fo, "runs", etp_runs_row_count(c->xs[f]));
        }
    }
    etp_node *ms = etp_node_arr(root, "methods");
    for (size_t f = 0; f < c->nf; f++)
    for (size_t i = 0; i < etp_runs_method_count(c->xs[f]); i++) {
        const etp_runs_method *mr = etp_runs_method_get(c->xs[f], i);
        const etp_ops_method *m = etp_ops_method_get(c->rs[f], mr->method);
        etp_node *w = etp_node_obj(ms, NULL);
        if (c->labels[f]) etp_node_str(w, "file", c->labels[f]);
        etp_node_str(w, "name", m->name);
        etp_fig_method_candidates(w, m);
        etp_node_uint(w, "runs", mr->runs);
        etp_node_uint(w, "warmup_runs", mr->warmup_runs);
        etp_node_uint(w, "outliers", mr->outliers);
        etp_node_uint(w, "steady_runs", mr->steady_runs);
        etp_node_float(w, "median", conv(c, mr->unit, mr->median));
        etp_node_float(w, "robust_scale", conv(c, mr->unit, mr->scale));
        etp_node_float(w, "execute_total", conv(c, mr->unit, mr->execute_total));
        etp_node_str(w, "unit", uname(c, mr->unit));
        etp_node *tr = etp_node_obj(w, "trend");
        etp_node_str(tr, "verdict", etp_runs_trend_name(mr->trend));
        etp_node_float(tr, "slope_per_run", conv(c, mr->unit, mr->slope));
        etp_node_float(tr, "drift_pct", mr->drift_pct);
        etp_node_float(tr, "p", mr->trend_p);
        etp_node_uint(tr, "runs", mr->trend_runs);
        etp_node_float(w, "runs_per_second", mr->runs_per_second);
        etp_node_bool(w, "decode_style", mr->decode_style);
        etp_node_float(w, "tokens_per_second", mr->tokens_per_second);
        etp_node_float(w, "steady_execute_total", conv(c, mr->unit, mr->steady_execute_total));
        etp_node_float(w, "runs_per_second_steady", mr->runs_per_second_steady);
        etp_node_float(w, "tokens_per_second_steady", mr->tokens_per_second_steady);
    }
    etp_node *rs = etp_node_arr(root, "runs");
    for (size_t f = 0; f < c->nf; f++)
    for (size_t i = 0; i < etp_runs_row_count(c->xs[f]); i++) {
        const etp_ops_result *r = c->rs[f];
        const etp_runs_row *rw = etp_runs_row_get(c->xs[f], i);
        const etp_ops_method *m = etp_ops_method_get(r, rw->method);
        etp_node *w = etp_node_obj(rs, NULL);
        if (c->labels[f]) etp_node_str(w, "file", c->labels[f]);
        etp_node_str(w, "method", m->name);
        etp_fig_method_candidates(w, m);
        etp_node_uint(w, "run", etp_run_number(rw->run));
        etp_node_uint(w, "block", rw->block);
        etp_node_bool(w, "warmup", rw->warmup);
        etp_node_bool(w, "outlier", rw->outlier);
        etp_node_float(w, "robust_z", rw->robust_z);
        etp_node_float(w, "execute", conv(c, rw->unit, rw->execute));
        etp_node_float(w, "delegate", conv(c, rw->unit, rw->delegate));
        etp_node_float(w, "cpu", conv(c, rw->unit, rw->cpu));
        etp_node_float(w, "framework", conv(c, rw->unit, rw->framework));
        etp_node_str(w, "unit", uname(c, rw->unit));
        etp_node *bs = etp_node_arr(w, "backends");
        for (uint32_t j = 0; j < rw->n_backends; j++) {
            const etp_runs_backend *b = &rw->backends[j];
            etp_node *bo = etp_node_obj(bs, NULL);
            etp_node_str(bo, "placement", b->placement);
            etp_node_float(bo, "delegate", conv(c, rw->unit, b->delegate));
            etp_node_float(bo, "backend_time", conv(c, rw->unit, b->backend));
            etp_node_float(bo, "overhead", conv(c, rw->unit, b->overhead));
            etp_node_str(bo, "unit", uname(c, rw->unit));
        }
        etp_node *qs = etp_node_arr(w, "qnn");
        for (uint32_t q = 0; q < rw->n_qnn; q++) {
            const etp_runs_qnn *qq = &rw->qnn[q];
            const etp_ops_qnn *g = etp_ops_qnn_get(r, qq->qnn);
            etp_node *qo = etp_node_obj(qs, NULL);
            etp_node_int(qo, "instruction_id", etp_ops_row_get(r, g->delegate_row)->instr);
            etp_node *fs = etp_node_arr(qo, "figures");
            for (int t = 0; t < ETP_QT_COUNT_; t++) {
                if (g->top[t] < 0) continue;
                etp_node *fo = etp_node_obj(fs, NULL);
                etp_node_str(fo, "name", etp_qnn_top_name((etp_qnn_top)t));
                etp_node_float(fo, "value", conv(c, qq->unit[t], qq->value[t]));
                etp_node_str(fo, "unit", uname(c, qq->unit[t]));
            }
        }
    }
    general_notes(c, doc_note_cb, doc);
    quality_notes(c, doc_note_cb, doc);
}

/* The table of the text views and the flat formats: one row per run, with its notes. */
static etp_table *fill_table(const runs_ctx *c, etp_doc *doc) {
    const etp_disp *d = c->d;
    etp_col cols[17 + 3 * MAX_BACKENDS];
    char keys[3 * MAX_BACKENDS][80];
    size_t n = 0;
    if (c->labels[0]) cols[n++] = (etp_col){"file", "file", NULL, ETP_T_STR, false, 0};
    cols[n++] = (etp_col){"method", "method", NULL, ETP_T_STR, false, 0};
    cols[n++] = (etp_col){"run", "run", NULL, ETP_T_UINT, false, 0};
    cols[n++] = (etp_col){"block", "block", NULL, ETP_T_UINT, false, 0};
    cols[n++] = (etp_col){"flag", "flag", NULL, ETP_T_STR, false, 0};
    cols[n++] = (etp_col){"robust_z", "robust z", NULL, ETP_T_FLOAT, true, 2};
    cols[n++] = (etp_col){"execute", "Method::execute", NULL, ETP_T_FLOAT, true, d->precision};
    cols[n++] = (etp_col){"delegate", "delegate", NULL, ETP_T_FLOAT, true, d->precision};
    cols[n++] = (etp_col){"cpu", "cpu", NULL, ETP_T_FLOAT, true, d->precision};
    cols[n++] = (etp_col){"framework", "framework", NULL, ETP_T_FLOAT, true, d->precision};
    cols[n++] = (etp_col){"unit", "unit", NULL, ETP_T_STR, false, 0};
    for (size_t b = 0; b < c->nb; b++) {
        snprintf(keys[3 * b], sizeof keys[0], "delegate:%.60s", c->backends[b]);
        snprintf(keys[3 * b + 1], sizeof keys[0], "backend_time:%.60s", c->backends[b]);
        snprintf(keys[3 * b + 2], sizeof keys[0], "overhead:%.60s", c->backends[b]);
        for (int k = 0; k < 3; k++)
            cols[n++] = (etp_col){keys[3 * b + k], keys[3 * b + k], NULL, ETP_T_FLOAT, true, d->precision};
    }
    if (c->qnn) {
        cols[n++] = (etp_col){"qnn_execute", "QNN execute", NULL, ETP_T_FLOAT, true, d->precision};
        cols[n++] = (etp_col){"qnn_accel", "accel (excl wait)", NULL, ETP_T_FLOAT, true, d->precision};
        cols[n++] = (etp_col){"qnn_unit", "qnn unit", NULL, ETP_T_STR, true, 0};
        cols[n++] = (etp_col){"accel_cycles", "accel cycles", NULL, ETP_T_FLOAT, true, 0};
    }
    etp_table *t = etp_doc_table(doc, cols, n);
    if (!t) return NULL;
    for (size_t f = 0; f < c->nf; f++)
    for (size_t i = 0; i < etp_runs_row_count(c->xs[f]); i++) {
        const etp_runs_row *rw = etp_runs_row_get(c->xs[f], i);
        const etp_ops_method *m = etp_ops_method_get(c->rs[f], rw->method);
        char lb[600];
        etp_table_row(t);
        if (c->labels[f]) etp_table_str(t, c->labels[f]);
        etp_table_str(t, etp_method_label(m, lb, sizeof lb));
        etp_table_uint(t, etp_run_number(rw->run));
        etp_table_uint(t, rw->block);
        etp_table_str(t, flag_text(rw));
        etp_table_float(t, rw->robust_z);
        etp_table_float(t, conv(c, rw->unit, rw->execute));
        etp_table_float(t, conv(c, rw->unit, rw->delegate));
        etp_table_float(t, conv(c, rw->unit, rw->cpu));
        etp_table_float(t, conv(c, rw->unit, rw->framework));
        etp_table_str(t, uname(c, rw->unit));
        for (size_t b = 0; b < c->nb; b++) {
            const etp_runs_backend *e = backend_of(rw, c->backends[b]);
            etp_table_float(t, e ? conv(c, rw->unit, e->delegate) : NAN);
            etp_table_float(t, e ? conv(c, rw->unit, e->backend) : NAN);
            etp_table_float(t, e ? conv(c, rw->unit, e->overhead) : NAN);
        }
        if (c->qnn) {
            etp_unit u1, u2, u3;
            double qe = qnn_sum(rw, ETP_QT_QNN_EXECUTE, &u1);
            double qa = qnn_sum(rw, ETP_QT_EXCL_WAIT, &u2);
            double cy = qnn_sum(rw, ETP_QT_ACCEL_CYCLES, &u3);
            etp_unit ut = u1 != ETP_UNIT_NONE ? u1 : u2;
            etp_table_float(t, ut != ETP_UNIT_NONE ? conv(c, u1, qe) : NAN);
            etp_table_float(t, ut != ETP_UNIT_NONE ? conv(c, u2, qa) : NAN);
            etp_table_str(t, ut != ETP_UNIT_NONE ? uname(c, ut) : NULL);
            etp_table_float(t, cy);
        }
    }
    /* shown under the table in table and md (csv, tsv and jsonl have no notes) */
    general_notes(c, note_cb, t);
    if (c->qnn)
        etp_table_note(t, "QNN execute = QNN (execute) time, accel (excl wait) = Accelerator "
                          "(execute excluding wait) time: durations QNN reported, summed over "
                          "the run's QNN partitions; accel cycles = Accelerator (execute) time "
                          "(cycles), thread-aggregate busy cycles, not wall time");
    quality_notes(c, note_cb, t);
    return t;
}

/* the distinct delegate placements of every file, and whether a run has QNN figures */
static void backends_of(runs_ctx *c) {
    for (size_t f = 0; f < c->nf; f++)
    for (size_t i = 0; i < etp_runs_row_count(c->xs[f]); i++) {
        const etp_runs_row *rw = etp_runs_row_get(c->xs[f], i);
        c->qnn |= rw->n_qnn > 0;
        for (uint32_t j = 0; j < rw->n_backends; j++) {
            size_t b = 0;
            while (b < c->nb && strcmp(c->backends[b], rw->backends[j].placement) != 0) b++;
            if (b == c->nb && c->nb < MAX_BACKENDS) c->backends[c->nb++] = rw->backends[j].placement;
        }
    }
}

static int run_runs_multi(cli_args *a) {
    cli_ana ca;
    int rc = cli_ana_init(a, "runs", 0, 0, &ca);
    if (rc) return rc;
    etp_disp d = ca.d;
    etp_multi_result *x;
    if ((rc = cli_ana_multi(a, &ca, &x))) return rc;
    runs_ctx c = {.a = a, .d = &d, .nf = etp_multi_file_count(x)};
    for (size_t f = 0; f < c.nf; f++) {
        const etp_multi_file *mf = etp_multi_file_get(x, f);
        c.rs[f] = mf->ops;
        c.xs[f] = mf->runs;
        c.labels[f] = mf->label;
        c.paths[f] = mf->path;
    }
    c.r = c.rs[0];
    c.x = c.xs[0];
    backends_of(&c);
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        etp_multi_free(x);
        return rc;
    }
    etp_doc *doc = etp_doc_new("runs", 1, NULL, a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL);
    fill_json(&c, doc);
    etp_table *t = fill_table(&c, doc);
    etp_section_table(etp_doc_section(doc, "runs"), t);
    etp_doc_flat(doc, t);
    if (t && etp_doc_ok(doc)) {
        rc = cli_render(a, &o, doc);
    } else {
        cli_errorf("runs: out of memory");
        rc = EXIT_INTERNAL;
    }
    etp_doc_free(doc);
    etp_multi_free(x);
    return cli_out_close(&o, rc);
}

static int run_runs(cli_args *a) {
    if (cli_ana_is_multi(a)) return run_runs_multi(a);
    const char *path = a->pos[0];
    cli_ana ca;
    int rc = cli_ana_init(a, "runs", 0, 0, &ca);
    if (rc) return rc;
    etp_disp d = ca.d;
    if ((rc = cli_ana_compute(a, path, &ca))) return rc;
    d.tick_ns = ca.d.tick_ns; /* the dump's default tick rate is known once it is open */
    etp_runs_result *x = NULL;
    etp_error err = {0};
    if ((rc = etp_runs_compute(ca.r, NULL, &x, &err))) {
        cli_error(&err);
        cli_ana_close(&ca);
        return cli_exit_for(rc);
    }
    runs_ctx c = {.a = a, .r = ca.r, .x = x, .d = &d, .nf = 1, .rs = {ca.r}, .xs = {x}};
    backends_of(&c);
    uint32_t *scratch;
    cli_out o;
    if ((rc = cli_ana_output(a, &ca, 1, &scratch, &o))) {
        etp_runs_free(x);
        return rc;
    }
    /* one document: the JSON facts and notes; the run table for the other views */
    etp_doc *doc = etp_doc_new("runs", 1, path, a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL);
    fill_json(&c, doc);
    etp_table *t = fill_table(&c, doc);
    etp_section_table(etp_doc_section(doc, "runs"), t);
    etp_doc_flat(doc, t);
    if (t && etp_doc_ok(doc)) {
        rc = cli_render(a, &o, doc);
    } else {
        cli_errorf("runs: out of memory");
        rc = EXIT_INTERNAL;
    }
    etp_doc_free(doc);
    free(scratch);
    etp_runs_free(x);
    cli_ana_close(&ca);
    return cli_out_close(&o, rc);
}

static const opt_id runs_opts[] = {OPT_PTE,     OPT_METHOD,  OPT_IGNORE_MISMATCH, OPT_TICK_NS,
                                   OPT_TICK_HZ, OPT_TICKS,   OPT_BLOCK,           OPT_TIME_UNIT,
                                   OPT_LABEL,   OPT_NONE};

const cli_cmd cmd_runs = {
    .name = "runs",
    .summary = "one row per run: Method::execute, each backend's delegate time, CPU, framework, "
               "QNN figures; warm-up, outlier and trend flags, tokens/s",
    .usage = "FILE... [--pte P] [--label NAME ...]",
    .help = "One row per run (Execute block) of each method, in run order: Method::execute, the\n"
            "time in each backend's DELEGATE_CALLs (and the backend's own time inside them and\n"
            "the overhead around it), in CPU kernels (OPERATOR_CALL) and in the framework (the\n"
            "rest) - the parts of `etprof summary`, per run - and the QNN figures when present.\n"
            "Flags: warm-up (the first run of a method, and the runs right after it above 1.5 x\n"
            "the median), outlier (robust z = (x - median) / (1.4826 MAD) beyond 3.5), and per\n"
            "method the trend (Theil-Sen slope, Mann-Kendall p < 0.05, at least 5 % over the\n"
            "runs: \"drifting up x % over the runs\") and runs per second of summed\n"
            "Method::execute (tokens/s for decode-style methods). Several FILEs: each file's\n"
            "runs after a file column (its base name or --label NAME), flagged on their own.\n"
            "See docs/analyses.md \"Runs\".",
    .opts = runs_opts,
    .min_pos = 1,
    .max_pos = 8,
    .run = run_runs,
};
