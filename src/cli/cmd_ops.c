/* cmd_ops.c - `etprof ops FILE [--pte P]`: per-operator statistics over runs (docs/analyses.md). */
#include "cli_ana.h"
#include "etprof_backend.h"
#include "etprof_etrecord.h"
#include "etprof_qnn.h"
#include "etprof_runs.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const etp_col ops_cols[] = {
    {"method", "method", NULL, ETP_T_STR, false, 0},
    {"instruction_id", "instr", NULL, ETP_T_INT, false, 0},
    {"name", "name", NULL, ETP_T_STR, false, 0},
    {"count", "count", NULL, ETP_T_UINT, false, 0},
    {"min", "min", NULL, ETP_T_FLOAT, false, 3},
    {"p10", "p10", NULL, ETP_T_FLOAT, false, 3},
    {"p50", "p50", NULL, ETP_T_FLOAT, false, 3},
    {"p90", "p90", NULL, ETP_T_FLOAT, false, 3},
    {"avg", "avg", NULL, ETP_T_FLOAT, false, 3},
    {"max", "max", NULL, ETP_T_FLOAT, false, 3},
    {"total", "total", NULL, ETP_T_FLOAT, false, 3},
    {"share", "share%", NULL, ETP_T_FLOAT, false, 2},
    {"unit", "unit", NULL, ETP_T_STR, false, 0},
    {"placement", "placement", NULL, ETP_T_STR, false, 0},
    {"kind", "kind", NULL, ETP_T_STR, false, 0},
    {"operator", "operator", NULL, ETP_T_STR, false, 0},
    /* only with an HTP clock (--htp-clock-ghz, --runtrace, --qhas): the per-node wall-time
     * estimate (Accelerator (execute excluding wait) time apportioned by cycle share) */
    {"wall_est_p50", "wall est p50", NULL, ETP_T_FLOAT, false, 3},
    {"wall_est_total", "wall est total", NULL, ETP_T_FLOAT, false, 3},
    {"wall_est_unit", "wall est unit", NULL, ETP_T_STR, false, 0},
};
#define NCOLS (sizeof ops_cols / sizeof ops_cols[0])
#define NWALL 3 /* the wall-estimate columns at the end */
/* in the machine formats only (json, csv, tsv, jsonl): the text table says it in its notes */
static const etp_col quality_cols[] = {
    {"bad_time_count", "bad time", NULL, ETP_T_UINT, false, 0},
    {"wrapped_count", "wrapped", NULL, ETP_T_UINT, false, 0},
    {"event_name", "event name", NULL, ETP_T_STR, false, 0},
};
#define NQUAL (sizeof quality_cols / sizeof quality_cols[0])

/* The cells of an ops row from its method to its share (the statistics in the display unit);
 * returns the name of that unit, the next cell of every ops table. */
static const char *row_cells(etp_table *t, const etp_disp *d, const etp_ops_row *row,
                             const etp_ops_method *m) {
    const char *un = NULL;
    etp_table_str(t, m->name);
    if (row->chain >= 0 && row->instr >= 0) etp_table_int(t, row->instr);
    else etp_table_null(t);
    etp_table_str(t, row->name);
    etp_table_uint(t, row->count);
    const double *st[] = {&row->stats.min, &row->stats.p10, &row->stats.p50, &row->stats.p90,
                          &row->stats.avg, &row->stats.max, &row->stats.total};
    for (size_t s = 0; s < sizeof st / sizeof st[0]; s++)
        etp_table_float(t, etp_disp_conv(d, row->unit, *st[s], &un));
    if (!un) etp_disp_conv(d, row->unit, 0, &un);
    etp_table_float(t, row->share);
    return un;
}

static void note_cb(void *ctx, const char *text) { etp_table_note(ctx, text); }

/* `ops --by type`: the rows grouped by operator type (etp_optype_compute; docs/analyses.md
 * "Operators by type"). Kept apart from run_ops so that the two renderings stay independent. */
static const etp_col type_cols[] = {
    {"method", "method", NULL, ETP_T_STR, false, 0},
    {"domain", "domain", NULL, ETP_T_STR, false, 0},
    {"placement", "placement", NULL, ETP_T_STR, false, 0},
    {"type", "type", NULL, ETP_T_STR, false, 0},
    {"rows", "rows", NULL, ETP_T_UINT, false, 0},
    {"count", "count", NULL, ETP_T_UINT, false, 0},
    {"total", "total", NULL, ETP_T_FLOAT, false, 3},
    {"avg", "avg", NULL, ETP_T_FLOAT, false, 3},
    {"per_run", "per run", NULL, ETP_T_FLOAT, false, 3},
    {"share", "share%", NULL, ETP_T_FLOAT, false, 2},
    {"cum_share", "cum%", NULL, ETP_T_FLOAT, false, 2},
    {"unit", "unit", NULL, ETP_T_STR, false, 0},
};

static int run_ops_by_type(cli_args *a) {
    if (strcmp(a->val[OPT_BY], "type") != 0) {
        cli_errorf("ops: --by: expected \"type\", got \"%s\"", a->val[OPT_BY]);
        return EXIT_USAGE;
    }
    cli_ana ca;
    int rc = cli_ana_init(a, "ops", 0, 0, &ca);
    if (rc) return rc;
    etp_disp d = ca.d;
    if ((rc = cli_ana_compute(a, a->pos[0], &ca))) return rc;
    d.tick_ns = ca.d.tick_ns; /* the dump's default tick rate is known once it is open */
    etp_optype_result *x = NULL;
    etp_error err = {0};
    if ((rc = etp_optype_compute(ca.r, &x, &err))) {
        cli_error(&err);
        cli_ana_close(&ca);
        return cli_exit_for(rc);
    }
    uint32_t *scratch;
    cli_out o;
    if ((rc = cli_ana_output(a, &ca, 1, &scratch, &o))) {
        etp_optype_free(x);
        return rc;
    }
    etp_col cols[sizeof type_cols / sizeof type_cols[0]];
    memcpy(cols, type_cols, sizeof cols);
    for (size_t c = 6; c <= 8; c++) cols[c].precision = d.precision;
    etp_doc *doc = etp_doc_new("ops", 1, NULL, NULL);
    etp_table *t = etp_doc_table(doc, cols, sizeof cols / sizeof cols[0]);
    rc = t ? EXIT_OK : EXIT_INTERNAL;
    uint32_t units = 0;
    size_t top = ca.top > 0 ? (size_t)ca.top : 0, shown = 0;
    for (size_t i = 0; t && i < etp_optype_count(x); i++) {
        const etp_optype_row *g = etp_optype_get(x, i);
        if (top && shown >= top) break;
        char lb[600];
        const char *un;
        units |= 1u << g->unit;
        etp_table_row(t);
        const etp_ops_method *m = etp_ops_method_get(ca.r, g->method);
        /* the text formats label an unknown or ambiguous method; the others write null, as ops */
        etp_table_str(t, a->fmt == ETP_FMT_TABLE || a->fmt == ETP_FMT_MD ? etp_method_label(m, lb, sizeof lb)
                                                                : m->name);
        etp_table_str(t, etp_optype_domain_name(g->domain));
        etp_table_str(t, g->placement);
        etp_table_str(t, g->type);
        etp_table_uint(t, g->rows);
        etp_table_uint(t, g->count);
        etp_table_float(t, etp_disp_conv(&d, g->unit, g->total, &un));
        etp_table_float(t, etp_disp_conv(&d, g->unit, g->avg, &un));
        etp_table_float(t, etp_disp_conv(&d, g->unit, g->per_run, &un));
        etp_table_float(t, g->share);
        etp_table_float(t, g->cum_share);
        etp_table_str(t, un);
        shown++;
    }
    if (t && (a->fmt == ETP_FMT_TABLE || a->fmt == ETP_FMT_MD || a->fmt == ETP_FMT_JSON)) {
        etp_table_note(t, "one row per (method, domain, placement, unit, operator type): cpu = the "
                          "CPU kernels (OPERATOR_CALL or kernel rows) by operator; htp = QNN HTP "
                          "nodes by ATen op (aten_<op>_default_..., docs/analyses.md); delegate = "
                          "other backend operators by name without \" #k\"; share% and cum% are "
                          "of the group's domain and unit (units never mix); avg = total / count");
        etp_disp_unit_notes(&d, 0, units, note_cb, t);
        etp_quality_notes(ca.r, note_cb, t);
    }
    if (t) {
        etp_doc_single_table(doc, t);
        rc = cli_render(a, &o, doc);
        etp_doc_free(doc);
    } else {
        etp_doc_free(doc);
        cli_errorf("ops: out of memory");
    }
    free(scratch);
    etp_optype_free(x);
    cli_ana_close(&ca);
    return cli_out_close(&o, rc);
}

typedef struct label_note {
    const char *label;
    etp_table *t;
} label_note;
/* a note of one file, prefixed with its label */
static void label_note_cb(void *ctx, const char *text) {
    const label_note *ln = ctx;
    char b[1400];
    snprintf(b, sizeof b, "%.300s: %s", ln->label, text);
    etp_table_note(ln->t, b);
}

/* Several files (docs/analyses.md "Several dumps at once"): each file's own rows (or operator
 * types with --by type), after a `file` column holding its label; --sort and --top apply within
 * each file; rows of two files are never merged. */
static int run_ops_multi(cli_args *a) {
    static const opt_id one_file[] = {OPT_ETRECORD, OPT_HTP_CLOCK_GHZ, OPT_QHAS, OPT_RUNTRACE,
                                      OPT_NONE};
    for (size_t k = 0; one_file[k]; k++)
        if (a->set[one_file[k]]) {
            cli_errorf("ops: --%s: applies to one FILE, not to several", cli_opt(one_file[k])->name);
            return EXIT_USAGE;
        }
    bool by_type = a->set[OPT_BY];
    if (by_type && strcmp(a->val[OPT_BY], "type") != 0) {
        cli_errorf("ops: --by: expected \"type\", got \"%s\"", a->val[OPT_BY]);
        return EXIT_USAGE;
    }
    cli_ana ca;
    int rc = cli_ana_init(a, "ops", 0, 0, &ca);
    if (rc) return rc;
    etp_disp d = ca.d;
    etp_ops_filter f;
    etp_ops_filter_init(&f);
    f.placement = a->set[OPT_PLACEMENT] ? a->val[OPT_PLACEMENT] : NULL;
    f.kind = a->set[OPT_KIND] ? a->val[OPT_KIND] : NULL;
    f.all = a->set[OPT_ALL];
    f.sort = a->set[OPT_SORT] ? a->val[OPT_SORT] : NULL;
    f.top = (size_t)ca.top;
    if (!by_type && f.kind && strcmp(f.kind, "htp_node") != 0 && strcmp(f.kind, "operator") != 0 &&
        etp_kind_parse(f.kind) == ETP_KIND_NONE) {
        cli_errorf("ops: --kind: unknown kind \"%s\" (framework, operator_call, kernel, "
                   "delegate_call, delegate_internal, htp_node, operator, instruction, other)",
                   f.kind);
        return EXIT_USAGE;
    }
    etp_multi_result *x;
    uint32_t *idx;
    cli_out o;
    if ((rc = cli_ana_multi_output(a, &ca, "ops", &x, &idx, &o))) return rc;
    size_t nf = etp_multi_file_count(x);
    bool text = a->fmt == ETP_FMT_TABLE || a->fmt == ETP_FMT_MD;
    bool qual = !text;
    etp_col cols[1 + NCOLS + NQUAL];
    size_t ncols = 1;
    cols[0] = (etp_col){"file", "file", NULL, ETP_T_STR, false, 0};
    if (by_type) {
        memcpy(cols + 1, type_cols, sizeof type_cols);
        ncols += sizeof type_cols / sizeof type_cols[0];
        for (size_t c = 7; c <= 9; c++) cols[c].precision = d.precision;
    } else {
        memcpy(cols + 1, ops_cols, (NCOLS - NWALL) * sizeof *ops_cols);
        ncols += NCOLS - NWALL;
        for (size_t c = 5; c <= 11; c++) cols[c].precision = d.precision;
        if (qual) {
            memcpy(cols + ncols, quality_cols, sizeof quality_cols);
            ncols += NQUAL;
        }
    }
    etp_doc *doc = etp_doc_new("ops", 1, NULL, NULL);
    etp_table *t = etp_doc_table(doc, cols, ncols);
    etp_error err = {0};
    uint32_t flags = 0, units = 0;
    for (size_t fi = 0; t && !rc && fi < nf; fi++) {
        const etp_multi_file *mf = etp_multi_file_get(x, fi);
        const etp_ops_result *r = mf->ops;
        if (by_type) {
            size_t shown = 0;
            for (size_t i = 0; i < etp_optype_count(mf->types); i++) {
                const etp_optype_row *g = etp_optype_get(mf->types, i);
                if (ca.top > 0 && shown >= (size_t)ca.top) break;
                char lb[600];
                const char *un;
                units |= 1u << g->unit;
                const etp_ops_method *m = etp_ops_method_get(r, g->method);
                etp_table_row(t);
                etp_table_str(t, mf->label);
                etp_table_str(t, text ? etp_method_label(m, lb, sizeof lb) : m->name);
                etp_table_str(t, etp_optype_domain_name(g->domain));
                etp_table_str(t, g->placement);
                etp_table_str(t, g->type);
                etp_table_uint(t, g->rows);
                etp_table_uint(t, g->count);
                etp_table_float(t, etp_disp_conv(&d, g->unit, g->total, &un));
                etp_table_float(t, etp_disp_conv(&d, g->unit, g->avg, &un));
                etp_table_float(t, etp_disp_conv(&d, g->unit, g->per_run, &un));
                etp_table_float(t, g->share);
                etp_table_float(t, g->cum_share);
                etp_table_str(t, un);
                shown++;
            }
            continue;
        }
        size_t n = 0;
        if ((rc = etp_ops_select(r, &f, idx, &n, &err))) {
            cli_error(&err);
            rc = cli_exit_for(rc);
            break;
        }
        for (size_t k = 0; k < n; k++) {
            const etp_ops_row *row = etp_ops_row_get(r, idx[k]);
            const etp_ops_method *m = etp_ops_method_get(r, row->method);
            flags |= etp_disp_row_flags(row);
            units |= 1u << row->unit;
            etp_table_row(t);
            etp_table_str(t, mf->label);
            etp_table_str(t, row_cells(t, &d, row, m));
            etp_table_str(t, row->placement);
            etp_table_str(t, etp_ops_row_kind_name(row));
            etp_table_str(t, row->op);
            if (qual) {
                etp_table_uint(t, row->bad_time_count);
                etp_table_uint(t, row->wrapped_count);
                etp_table_str(t, row->event_name);
            }
        }
    }
    if (t && !rc && (text || a->fmt == ETP_FMT_JSON)) {
        char b[700];
        etp_table_note(t, "several files: each file's rows are its own single-file analysis "
                          "(runs, statistics, shares), never merged with another file's; --sort "
                          "and --top apply within each file; file = its label");
        for (size_t fi = 0; fi < nf; fi++) {
            const etp_multi_file *mf = etp_multi_file_get(x, fi);
            snprintf(b, sizeof b, "%.300s: %s, %u runs (one per run block) of %zu method(s)",
                     mf->label, mf->path ? mf->path : "", etp_ops_runs_kept(mf->ops),
                     etp_ops_method_count(mf->ops));
            etp_table_note(t, b);
        }
        if (by_type)
            etp_table_note(t, "one row per (file, method, domain, placement, unit, operator "
                              "type); share% and cum% are of the group's file, method, domain and "
                              "unit (units never mix); avg = total / count");
        else
            etp_table_note(t, "statistics are over per-run sums, count = occurrences; share% = % "
                              "of the method's Method::execute total in its file");
        etp_disp_unit_notes(&d, flags, units, note_cb, t);
        if (!a->set[OPT_PTE])
            etp_table_note(t, "no --pte: methods, backends and operator namespaces are unknown");
        for (size_t fi = 0; fi < nf; fi++) {
            const etp_multi_file *mf = etp_multi_file_get(x, fi);
            label_note ln = {mf->label, t};
            etp_quality_notes(mf->ops, label_note_cb, &ln);
        }
    }
    if (!t) {
        cli_errorf("ops: out of memory");
        rc = EXIT_INTERNAL;
    }
    if (!rc) {
        etp_doc_single_table(doc, t);
        rc = cli_render(a, &o, doc);
    }
    etp_doc_free(doc);
    free(idx);
    etp_multi_free(x);
    return cli_out_close(&o, rc);
}

static int run_ops(cli_args *a) {
    if (cli_ana_is_multi(a)) return run_ops_multi(a);
    if (a->set[OPT_BY]) return run_ops_by_type(a);
    const char *path = a->pos[0];
    double clock;
    const char *clock_src;
    int rc = cli_ana_clock(a, "ops", &clock, &clock_src);
    if (rc) return rc;
    bool est = !isnan(clock);
    cli_ana ca;
    if ((rc = cli_ana_init(a, "ops", 0, est ? clock : 0, &ca))) return rc;
    long top = ca.top;
    etp_disp d = ca.d;
    etp_ops_filter f;
    etp_ops_filter_init(&f);
    f.placement = a->set[OPT_PLACEMENT] ? a->val[OPT_PLACEMENT] : NULL;
    f.kind = a->set[OPT_KIND] ? a->val[OPT_KIND] : NULL;
    f.all = a->set[OPT_ALL];
    f.sort = a->set[OPT_SORT] ? a->val[OPT_SORT] : NULL;
    f.top = (size_t)top;
    if (f.kind && strcmp(f.kind, "htp_node") != 0 && strcmp(f.kind, "operator") != 0 &&
        etp_kind_parse(f.kind) == ETP_KIND_NONE) {
        cli_errorf("ops: --kind: unknown kind \"%s\" (framework, operator_call, kernel, "
                   "delegate_call, delegate_internal, htp_node, operator, instruction, other)",
                   f.kind);
        return EXIT_USAGE;
    }
    etp_etrecord *rec;
    if ((rc = cli_etr_open(a, &rec))) return rc;
    if ((rc = cli_ana_compute(a, path, &ca))) {
        etp_etrecord_close(rec);
        return rc;
    }
    d.tick_ns = ca.d.tick_ns; /* the dump's default tick rate is known once it is open */
    cli_inputs in = ca.in;
    etp_ops_result *r = ca.r;
    etp_error err = {0};
    size_t nrows = etp_ops_row_count(r), n = 0;
    uint32_t *idx = malloc((nrows ? nrows : 1) * sizeof *idx);
    if (!idx) {
        cli_errorf("out of memory");
        etp_ops_free(r);
        etp_etrecord_close(rec);
        cli_close_inputs(&in);
        return EXIT_INTERNAL;
    }
    rc = etp_ops_select(r, &f, idx, &n, &err);
    if (rc) {
        cli_error(&err);
        free(idx);
        etp_ops_free(r);
        etp_etrecord_close(rec);
        cli_close_inputs(&in);
        return cli_exit_for(rc);
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        free(idx);
        etp_ops_free(r);
        etp_etrecord_close(rec);
        cli_close_inputs(&in);
        return rc;
    }
    etp_col cols[NCOLS + NQUAL + CLI_ETR_MAX_COLS];
    cli_etr_stats etr_st = {0};
    memcpy(cols, ops_cols, sizeof ops_cols);
    for (size_t c = 4; c <= 10; c++) cols[c].precision = d.precision;
    cols[NCOLS - 3].precision = cols[NCOLS - 2].precision = d.precision;
    size_t ncols = est ? NCOLS : NCOLS - NWALL;
    bool qual = a->fmt != ETP_FMT_TABLE && a->fmt != ETP_FMT_MD;
    if (qual) {
        memcpy(cols + ncols, quality_cols, sizeof quality_cols);
        ncols += NQUAL;
    }
    if (rec) ncols = cli_etr_cols(cols, ncols, qual);
    etp_doc *doc = etp_doc_new("ops", 1, NULL, NULL);
    etp_table *t = etp_doc_table(doc, cols, ncols);
    /* a narrow terminal loses these first (etp_table_droppable) */
    static const char *const droppable[] = {
        "p10:16", "p90:15", "min:14", "max:13", "avg:12", "kind:11", "count:10",
        "instruction_id:9", "wall_est_total:8", "operator:7", "method:6", "placement:5",
        "share:4", "total:3", "wall_est_p50+wall_est_unit:2", NULL};
    if (t) etp_table_droppable(t, droppable);
    if (!t) {
        etp_doc_free(doc);
        cli_errorf("out of memory");
        free(idx);
        etp_ops_free(r);
        etp_etrecord_close(rec);
        cli_close_inputs(&in);
        return cli_out_close(&o, EXIT_INTERNAL);
    }
    uint32_t flags = 0, units = 0;
    size_t wall_rows = 0;
    /* every format names an inferred backend as the other views do (etp_backend_placement_labels);
     * without memory: the placement */
    const bool text = a->fmt == ETP_FMT_TABLE || a->fmt == ETP_FMT_MD;
    const char **plab = malloc((etp_ops_row_count(r) + 1) * sizeof *plab);
    if (plab && etp_backend_placement_labels(r, plab) != ETP_OK) {
        free(plab);
        plab = NULL;
    }
    for (size_t k = 0; k < n; k++) {
        const etp_ops_row *row = etp_ops_row_get(r, idx[k]);
        const etp_ops_method *m = etp_ops_method_get(r, row->method);
        flags |= etp_disp_row_flags(row);
        units |= 1u << row->unit;
        etp_table_row(t);
        const char *un = row_cells(t, &d, row, m);
        if (text && etp_backend_row_device_clock(r, idx[k])) { /* text views (issue 14.2) */
            char du[64];
            snprintf(du, sizeof du, "%s (device clock)", un);
            etp_table_str(t, du);
        } else etp_table_str(t, un);
        etp_table_str(t, plab ? plab[idx[k]] : row->placement);
        etp_table_str(t, etp_ops_row_kind_name(row));
        etp_table_str(t, row->op);
        if (est) {
            double wf = etp_qnn_wall_ns_per_cycle(r, idx[k]);
            if (!isnan(wf)) wall_rows++;
            etp_table_float(t, row->stats.p50 * wf / d.unit_ns);
            etp_table_float(t, row->stats.total * wf / d.unit_ns);
            etp_table_str(t, isnan(wf) ? NULL : d.est_unit);
        }
        if (qual) {
            etp_table_uint(t, row->bad_time_count);
            etp_table_uint(t, row->wrapped_count);
            etp_table_str(t, row->event_name);
        }
        if (rec) cli_etr_cells(t, rec, m->name, row, qual, &etr_st);
    }
    if (a->fmt == ETP_FMT_TABLE || a->fmt == ETP_FMT_MD || a->fmt == ETP_FMT_JSON) {
        char b[256];
        snprintf(b, sizeof b,
                 "%u runs (one per run block) of %zu method(s); statistics are over "
                 "per-run sums, count = occurrences; share%% = %% of the method's "
                 "Method::execute total",
                 etp_ops_runs_kept(r), etp_ops_method_count(r));
        etp_table_note(t, b);
        if (est && clock_src && strcmp(clock_src, "htp-clock-ghz") != 0) {
            /* the clock came from a QNN file: say so instead of naming --htp-clock-ghz */
            etp_disp dn = d;
            dn.htp_ghz = 0;
            etp_disp_unit_notes(&dn, flags, units, note_cb, t);
            if (units & (1u << ETP_UNIT_CYCLES)) {
                snprintf(b, sizeof b,
                         "%s: an ESTIMATE, cycles / %.4g GHz (%s); thread-aggregate busy time, "
                         "not latency",
                         d.est_unit, clock, etp_qnn_clock_meaning(clock_src));
                etp_table_note(t, b);
            }
        } else {
            etp_disp_unit_notes(&d, flags, units, note_cb, t);
        }
        if (est && wall_rows) {
            snprintf(b, sizeof b,
                     "wall est: an ESTIMATE of each HTP node's wall time = its cycles x (its "
                     "partition's Accelerator (execute excluding wait) time / Accelerator "
                     "(execute) time (cycles), totals over the runs): the NPU compute wall time "
                     "apportioned by cycle share, in %s",
                     d.est_unit);
            etp_table_note(t, b);
        }
        if (!f.all && (!f.kind || strcmp(f.kind, "operator_call") != 0)) {
            size_t hidden = 0;
            for (size_t i = 0; i < nrows; i++)
                hidden += etp_ops_row_get(r, i)->kind == ETP_KIND_OPERATOR_CALL;
            if (hidden) {
                snprintf(b, sizeof b,
                         "%zu OPERATOR_CALL wrapper row(s) hidden (--all shows them; etprof tree "
                         "shows their overhead)",
                         hidden);
                etp_table_note(t, b);
            }
        }
        if (!in.prog)
            etp_table_note(t, "no --pte: methods, backends and operator namespaces are unknown "
                              "(operators are derived from native_call_<op> names)");
        etp_quality_notes(r, note_cb, t);
        etp_backend_notes(in.model, r, note_cb, t); /* issue 14.2 */
        cli_etr_notes(rec, &etr_st, note_cb, t);
        cli_etr_missing_note(rec, r, note_cb, t);
    }
    etp_doc_single_table(doc, t);
    rc = cli_render(a, &o, doc);
    etp_doc_free(doc);
    free(plab);
    free(idx);
    etp_ops_free(r);
    etp_etrecord_close(rec);
    cli_close_inputs(&in);
    return cli_out_close(&o, rc);
}

static const opt_id ops_opts[] = {OPT_PTE,       OPT_METHOD,   OPT_IGNORE_MISMATCH,   OPT_TICK_NS,   OPT_TICK_HZ,
                                  OPT_TICKS,     OPT_SORT,     OPT_TOP,       OPT_BLOCK,
                                  OPT_PLACEMENT, OPT_KIND,     OPT_SKIP_FIRST, OPT_ALL,
                                  OPT_TIME_UNIT, OPT_HTP_CLOCK_GHZ, OPT_QHAS, OPT_RUNTRACE,
                                  OPT_BY,        OPT_ETRECORD, OPT_LABEL, OPT_NONE};

const cli_cmd cmd_ops = {
    .name = "ops",
    .summary = "per-operator statistics over runs: count, min, p10, p50, p90, avg, max, total, "
               "share, unit, placement",
    .usage = "FILE... [--pte P] [--sort KEY] [--top N] [--placement cpu|BACKEND] [--kind KIND]",
    .help = "One row per (method, instruction, event identity) over the Execute blocks (runs).\n"
            "An identity seen several times in one run is summed into that run's sample; count\n"
            "is the number of occurrences. Time rows are shown in --time-unit (default us);\n"
            "cycles, counts and bytes keep their own unit. OPERATOR_CALL wrappers are hidden\n"
            "unless --all. --kind: framework, operator_call, kernel, delegate_call,\n"
            "delegate_internal, htp_node, instruction, other, or operator: the top-operator\n"
            "rows of summary and report (CPU kernels and DELEGATE_CALLs; `--kind operator\n"
            "--sort total --top N` is their top N). --sort: order (default), total,\n"
            "avg, p50, ..., share, count, name, operator, placement, kind, unit, method,\n"
            "instruction_id; numbers sort largest first, grouped by unit. With an HTP clock\n"
            "(--htp-clock-ghz, else measured by --runtrace F, else from --qhas F) cycles rows are\n"
            "shown as est_us (cycles / clock) and the wall est columns apportion each partition's\n"
            "Accelerator (execute excluding wait) time to its HTP nodes by cycle share; both are\n"
            "labelled estimates. --by type: one row per operator type (HTP nodes by ATen op,\n"
            "XNNPACK-style names without \" #k\", CPU kernels by operator) with count, total,\n"
            "avg, per run, share and cumulative share. Several FILEs: each file's rows after a\n"
            "file column (its base name or --label NAME, once per FILE), never merged; --sort\n"
            "and --top within each file. See docs/analyses.md and docs/qnn-inputs.md.",
    .opts = ops_opts,
    .min_pos = 1,
    .max_pos = 8,
    .run = run_ops,
};
