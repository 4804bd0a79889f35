/* cmd_runs.c - `etprof runs FILE [--pte P]`: one row per run with warm-up, outlier and trend
 * flags (etprof_runs.h computes them; docs/analyses.md "Runs"). This file only renders. */
#include "analysis.h"
#include "cli_ana.h"
#include "etprof_runs.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void note_cb(void *ctx, const char *text) { out_table_note(ctx, text); }
static void json_note_cb(void *ctx, const char *text) { jw_str(ctx, text); }

#define MAX_BACKENDS 16

typedef struct runs_ctx {
    cli_args *a;
    const etp_ops_result *r;
    const etp_runs_result *x;
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
    int w = snprintf(b, cap, "%.300s: %u run(s), %u warm-up, %u outlier(s); ", name, mr->runs,
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
        snprintf(b + w, cap - (size_t)w, "; %.4g runs/s of summed Method::execute%s",
                 mr->runs_per_second, mr->decode_style ? " (decode-style: tokens/s)" : "");
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
    for (size_t i = 0; i < etp_runs_method_count(c->x); i++) {
        method_note(c, etp_runs_method_get(c->x, i), b, sizeof b);
        emit(ctx, b);
    }
}

static int write_json(const runs_ctx *c, FILE *f, const char *path) {
    const etp_disp *d = c->d;
    jw w;
    jw_init(&w, f, true);
    jw_obj_begin(&w);
    jw_key(&w, "schema_version"); jw_int(&w, 1);
    jw_key(&w, "file"); jw_str(&w, path);
    jw_key(&w, "program"); jw_str(&w, c->a->set[OPT_PTE] ? c->a->val[OPT_PTE] : NULL);
    jw_key(&w, "time_unit"); jw_str(&w, d->time_unit);
    const etp_runs_opts *o = etp_runs_get_opts(c->x);
    jw_key(&w, "criteria");
    jw_obj_begin(&w);
    jw_key(&w, "warmup_factor"); jw_double(&w, o->warmup_factor);
    jw_key(&w, "outlier_k"); jw_double(&w, o->outlier_k);
    jw_key(&w, "trend_alpha"); jw_double(&w, o->trend_alpha);
    jw_key(&w, "trend_pct"); jw_double(&w, o->trend_pct);
    jw_obj_end(&w);
    jw_key(&w, "methods");
    jw_arr_begin(&w);
    for (size_t i = 0; i < etp_runs_method_count(c->x); i++) {
        const etp_runs_method *mr = etp_runs_method_get(c->x, i);
        const etp_ops_method *m = etp_ops_method_get(c->r, mr->method);
        jw_obj_begin(&w);
        jw_key(&w, "name"); jw_str(&w, m->name);
        ana_json_method_candidates(&w, m);
        jw_key(&w, "runs"); jw_uint(&w, mr->runs);
        jw_key(&w, "warmup_runs"); jw_uint(&w, mr->warmup_runs);
        jw_key(&w, "outliers"); jw_uint(&w, mr->outliers);
        jw_key(&w, "steady_runs"); jw_uint(&w, mr->steady_runs);
        jw_key(&w, "median"); jw_double(&w, conv(c, mr->unit, mr->median));
        jw_key(&w, "robust_scale"); jw_double(&w, conv(c, mr->unit, mr->scale));
        jw_key(&w, "execute_total"); jw_double(&w, conv(c, mr->unit, mr->execute_total));
        jw_key(&w, "unit"); jw_str(&w, uname(c, mr->unit));
        jw_key(&w, "trend");
        jw_obj_begin(&w);
        jw_key(&w, "verdict"); jw_str(&w, etp_runs_trend_name(mr->trend));
        jw_key(&w, "slope_per_run"); jw_double(&w, conv(c, mr->unit, mr->slope));
        jw_key(&w, "drift_pct"); jw_double(&w, mr->drift_pct);
        jw_key(&w, "p"); jw_double(&w, mr->trend_p);
        jw_key(&w, "runs"); jw_uint(&w, mr->trend_runs);
        jw_obj_end(&w);
        jw_key(&w, "runs_per_second"); jw_double(&w, mr->runs_per_second);
        jw_key(&w, "decode_style"); jw_bool(&w, mr->decode_style);
        jw_key(&w, "tokens_per_second"); jw_double(&w, mr->tokens_per_second);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_key(&w, "runs");
    jw_arr_begin(&w);
    for (size_t i = 0; i < etp_runs_row_count(c->x); i++) {
        const etp_runs_row *rw = etp_runs_row_get(c->x, i);
        const etp_ops_method *m = etp_ops_method_get(c->r, rw->method);
        jw_obj_begin(&w);
        jw_key(&w, "method"); jw_str(&w, m->name);
        ana_json_method_candidates(&w, m);
        jw_key(&w, "run"); jw_uint(&w, rw->run);
        jw_key(&w, "block"); jw_uint(&w, rw->block);
        jw_key(&w, "warmup"); jw_bool(&w, rw->warmup);
        jw_key(&w, "outlier"); jw_bool(&w, rw->outlier);
        jw_key(&w, "robust_z"); jw_double(&w, rw->robust_z);
        jw_key(&w, "execute"); jw_double(&w, conv(c, rw->unit, rw->execute));
        jw_key(&w, "delegate"); jw_double(&w, conv(c, rw->unit, rw->delegate));
        jw_key(&w, "cpu"); jw_double(&w, conv(c, rw->unit, rw->cpu));
        jw_key(&w, "framework"); jw_double(&w, conv(c, rw->unit, rw->framework));
        jw_key(&w, "unit"); jw_str(&w, uname(c, rw->unit));
        jw_key(&w, "backends");
        jw_arr_begin(&w);
        for (uint32_t j = 0; j < rw->n_backends; j++) {
            const etp_runs_backend *b = &rw->backends[j];
            jw_obj_begin(&w);
            jw_key(&w, "placement"); jw_str(&w, b->placement);
            jw_key(&w, "delegate"); jw_double(&w, conv(c, rw->unit, b->delegate));
            jw_key(&w, "backend_time"); jw_double(&w, conv(c, rw->unit, b->backend));
            jw_key(&w, "overhead"); jw_double(&w, conv(c, rw->unit, b->overhead));
            jw_key(&w, "unit"); jw_str(&w, uname(c, rw->unit));
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_key(&w, "qnn");
        jw_arr_begin(&w);
        for (uint32_t q = 0; q < rw->n_qnn; q++) {
            const etp_runs_qnn *qq = &rw->qnn[q];
            const etp_ops_qnn *g = etp_ops_qnn_get(c->r, qq->qnn);
            jw_obj_begin(&w);
            jw_key(&w, "instruction_id");
            jw_int(&w, etp_ops_row_get(c->r, g->delegate_row)->instr);
            jw_key(&w, "figures");
            jw_arr_begin(&w);
            for (int t = 0; t < ETP_QT_COUNT_; t++) {
                if (g->top[t] < 0) continue;
                jw_obj_begin(&w);
                jw_key(&w, "name"); jw_str(&w, etp_qnn_top_name((etp_qnn_top)t));
                jw_key(&w, "value"); jw_double(&w, conv(c, qq->unit[t], qq->value[t]));
                jw_key(&w, "unit"); jw_str(&w, uname(c, qq->unit[t]));
                jw_obj_end(&w);
            }
            jw_arr_end(&w);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_key(&w, "notes");
    jw_arr_begin(&w);
    general_notes(c, json_note_cb, &w);
    etp_quality_notes(c->r, json_note_cb, &w);
    jw_arr_end(&w);
    jw_obj_end(&w);
    fflush(f);
    int rc = jw_finish(&w);
    fputc('\n', f);
    return rc ? EXIT_IO : EXIT_OK;
}

static int write_table(const runs_ctx *c, cli_out *o) {
    const etp_disp *d = c->d;
    out_col cols[16 + 3 * MAX_BACKENDS];
    char keys[3 * MAX_BACKENDS][80];
    size_t n = 0;
    cols[n++] = (out_col){"method", "method", OUT_STR, 0};
    cols[n++] = (out_col){"run", "run", OUT_UINT, 0};
    cols[n++] = (out_col){"block", "block", OUT_UINT, 0};
    cols[n++] = (out_col){"flag", "flag", OUT_STR, 0};
    cols[n++] = (out_col){"robust_z", "robust z", OUT_FLOAT, 2};
    cols[n++] = (out_col){"execute", "Method::execute", OUT_FLOAT, d->precision};
    cols[n++] = (out_col){"delegate", "delegate", OUT_FLOAT, d->precision};
    cols[n++] = (out_col){"cpu", "cpu", OUT_FLOAT, d->precision};
    cols[n++] = (out_col){"framework", "framework", OUT_FLOAT, d->precision};
    cols[n++] = (out_col){"unit", "unit", OUT_STR, 0};
    for (size_t b = 0; b < c->nb; b++) {
        snprintf(keys[3 * b], sizeof keys[0], "delegate:%.60s", c->backends[b]);
        snprintf(keys[3 * b + 1], sizeof keys[0], "backend_time:%.60s", c->backends[b]);
        snprintf(keys[3 * b + 2], sizeof keys[0], "overhead:%.60s", c->backends[b]);
        for (int k = 0; k < 3; k++)
            cols[n++] = (out_col){keys[3 * b + k], keys[3 * b + k], OUT_FLOAT, d->precision};
    }
    size_t nq0 = n;
    if (c->qnn) {
        cols[n++] = (out_col){"qnn_execute", "QNN execute", OUT_FLOAT, d->precision};
        cols[n++] = (out_col){"qnn_accel", "accel (excl wait)", OUT_FLOAT, d->precision};
        cols[n++] = (out_col){"qnn_unit", "qnn unit", OUT_STR, 0};
        cols[n++] = (out_col){"accel_cycles", "accel cycles", OUT_FLOAT, 0};
    }
    (void)nq0;
    out_table *t = cli_table(c->a, o, cols, n);
    if (!t) {
        cli_errorf("runs: out of memory");
        return EXIT_INTERNAL;
    }
    for (size_t i = 0; i < etp_runs_row_count(c->x); i++) {
        const etp_runs_row *rw = etp_runs_row_get(c->x, i);
        const etp_ops_method *m = etp_ops_method_get(c->r, rw->method);
        char lb[600];
        out_row_begin(t);
        out_cell_str(t, etp_method_label(m, lb, sizeof lb));
        out_cell_uint(t, rw->run);
        out_cell_uint(t, rw->block);
        out_cell_str(t, flag_text(rw));
        out_cell_float(t, rw->robust_z);
        out_cell_float(t, conv(c, rw->unit, rw->execute));
        out_cell_float(t, conv(c, rw->unit, rw->delegate));
        out_cell_float(t, conv(c, rw->unit, rw->cpu));
        out_cell_float(t, conv(c, rw->unit, rw->framework));
        out_cell_str(t, uname(c, rw->unit));
        for (size_t b = 0; b < c->nb; b++) {
            const etp_runs_backend *e = backend_of(rw, c->backends[b]);
            out_cell_float(t, e ? conv(c, rw->unit, e->delegate) : NAN);
            out_cell_float(t, e ? conv(c, rw->unit, e->backend) : NAN);
            out_cell_float(t, e ? conv(c, rw->unit, e->overhead) : NAN);
        }
        if (c->qnn) {
            etp_unit u1, u2, u3;
            double qe = qnn_sum(rw, ETP_QT_QNN_EXECUTE, &u1);
            double qa = qnn_sum(rw, ETP_QT_EXCL_WAIT, &u2);
            double cy = qnn_sum(rw, ETP_QT_ACCEL_CYCLES, &u3);
            etp_unit ut = u1 != ETP_UNIT_NONE ? u1 : u2;
            out_cell_float(t, ut != ETP_UNIT_NONE ? conv(c, u1, qe) : NAN);
            out_cell_float(t, ut != ETP_UNIT_NONE ? conv(c, u2, qa) : NAN);
            out_cell_str(t, ut != ETP_UNIT_NONE ? uname(c, ut) : NULL);
            out_cell_float(t, cy);
        }
        out_row_end(t);
    }
    if (c->a->fmt == OUT_TABLE || c->a->fmt == OUT_MD) {
        general_notes(c, note_cb, t);
        if (c->qnn)
            out_table_note(t, "QNN execute = QNN (execute) time, accel (excl wait) = Accelerator "
                              "(execute excluding wait) time: durations QNN reported, summed over "
                              "the run's QNN partitions; accel cycles = Accelerator (execute) time "
                              "(cycles), thread-aggregate busy cycles, not wall time");
        etp_quality_notes(c->r, note_cb, t);
    }
    int rc = out_table_finish(t) ? EXIT_IO : EXIT_OK;
    out_table_free(t);
    return rc;
}

static int run_runs(cli_args *a) {
    const char *path = a->pos[0];
    cli_ana ca;
    int rc = cli_ana_init(a, "runs", 0, 0, &ca);
    if (rc) return rc;
    etp_disp d = ca.d;
    if ((rc = cli_ana_compute(a, path, &ca))) return rc;
    etp_runs_result *x = NULL;
    etp_error err = {0};
    if ((rc = etp_runs_compute(ca.r, NULL, &x, &err))) {
        cli_error(&err);
        cli_ana_close(&ca);
        return cli_exit_for(rc);
    }
    runs_ctx c = {.a = a, .r = ca.r, .x = x, .d = &d};
    for (size_t i = 0; i < etp_runs_row_count(x); i++) {
        const etp_runs_row *rw = etp_runs_row_get(x, i);
        c.qnn |= rw->n_qnn > 0;
        for (uint32_t j = 0; j < rw->n_backends; j++) {
            size_t b = 0;
            while (b < c.nb && strcmp(c.backends[b], rw->backends[j].placement) != 0) b++;
            if (b == c.nb && c.nb < MAX_BACKENDS) c.backends[c.nb++] = rw->backends[j].placement;
        }
    }
    uint32_t *scratch;
    cli_out o;
    if ((rc = cli_ana_output(a, &ca, 1, &scratch, &o))) {
        etp_runs_free(x);
        return rc;
    }
    rc = a->fmt == OUT_JSON ? write_json(&c, o.f, path) : write_table(&c, &o);
    free(scratch);
    etp_runs_free(x);
    cli_ana_close(&ca);
    return cli_out_close(&o, rc);
}

static const opt_id runs_opts[] = {OPT_PTE,     OPT_METHOD,  OPT_IGNORE_MISMATCH, OPT_TICK_NS,
                                   OPT_TICK_HZ, OPT_TICKS,   OPT_BLOCK,           OPT_TIME_UNIT,
                                   OPT_NONE};

const cli_cmd cmd_runs = {
    .name = "runs",
    .summary = "one row per run: Method::execute, each backend's delegate time, CPU, framework, "
               "QNN figures; warm-up, outlier and trend flags, tokens/s",
    .usage = "FILE [--pte P]",
    .help = "One row per run (Execute block) of each method, in run order: Method::execute, the\n"
            "time in each backend's DELEGATE_CALLs (and the backend's own time inside them and\n"
            "the overhead around it), in CPU kernels (OPERATOR_CALL) and in the framework (the\n"
            "rest) - the parts of `etprof summary`, per run - and the QNN figures when present.\n"
            "Flags: warm-up (the first run of a method, and the runs right after it above 1.5 x\n"
            "the median), outlier (robust z = (x - median) / (1.4826 MAD) beyond 3.5), and per\n"
            "method the trend (Theil-Sen slope, Mann-Kendall p < 0.05, at least 5 % over the\n"
            "runs: \"drifting up x % over the runs\") and runs per second of summed\n"
            "Method::execute (tokens/s for decode-style methods). See docs/analyses.md \"Runs\".",
    .opts = runs_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_runs,
};
