/* cmd_diff.c - `etprof diff BASE.etdp NEW.etdp [--pte P] [--pte-new P2] [--threshold PCT]
 * [--fail-on-regression PCT]`: did my change make it faster? Operators matched across the two
 * dumps, p50 and total deltas with a noise-aware verdict per row, operators added and removed,
 * placement changes first (docs/diff.md). */
#include "etprof_etrecord.h"
#include "etprof_arm_pmu.h"
#include "cli_ana.h"

#include <stdio.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void progress_base(void *ctx, uint64_t done, uint64_t total) {
    cli_progress(ctx, "diff: BASE", done, total);
}

static void progress_new(void *ctx, uint64_t done, uint64_t total) {
    cli_progress(ctx, "diff: NEW", done, total);
}

typedef struct dctx {
    cli_args *a;
    const etp_diff_result *d;
    const etp_ops_result *rb, *rn;
    const etp_diff_opts *o;
    etp_disp disp;
    const char *base_path, *new_path;
    bool all;
    size_t top;
    bool fail_set, allow_inconclusive;
    double fail_pct, threshold;
    etp_diff_listing ls; /* what is listed (etp_diff_list) */
    const etp_etrecord *rec; /* --etrecord: a module column (joined to BASE's row, else NEW's) */
    /* each side's Arm runner PMU report (a dump read from the runner's log), NULL otherwise;
     * pmu: either side was read from such a log */
    const etp_arm_pmu_report *pmu_b, *pmu_n;
    bool pmu;
} dctx;

/* ------------------------------------------------------------------------------------------- */

static const char *mname(const char *n) { return n ? n : ETP_METHOD_UNKNOWN_LABEL; }

/* The etp_ops_method of a diff method (base side first), NULL when none. */
static const etp_ops_method *side_method(const dctx *c, const etp_diff_method *m) {
    if (m->base >= 0) return etp_ops_method_get(c->rb, (size_t)m->base);
    if (m->new_ >= 0) return etp_ops_method_get(c->rn, (size_t)m->new_);
    return NULL;
}

/* A method as the text names it: "(ambiguous: a, b)" when the files cannot tell which ran. */
static const char *dlabel(const dctx *c, const etp_diff_method *m) {
    static char lb[600]; /* one line at a time */
    const etp_ops_method *om = side_method(c, m);
    if (!m->name && om && om->n_candidates) return etp_method_label(om, lb, sizeof lb);
    return mname(m->name);
}

static const char *match_name(const etp_diff_method *m) {
    if (m->base < 0 || m->new_ < 0) return NULL;
    return m->by_name ? "name" : "instruction";
}

static const etp_ops_row *any_row(const etp_diff_op *op) { return op->base ? op->base : op->new_; }

static double conv(const dctx *c, etp_unit u, double v, const char **un) {
    return etp_disp_conv(&c->disp, u, v, un);
}

static const char *unit_name(const dctx *c, etp_unit u) {
    const char *un;
    conv(c, u, 0, &un);
    return un;
}

/* "+12.34%" */
static void fmt_pct(char *b, size_t n, double v) {
    if (isnan(v)) snprintf(b, n, "-");
    else snprintf(b, n, "%+.2f%%", v);
}

static void fmt_p(char *b, size_t n, double v) {
    if (isnan(v)) snprintf(b, n, "-");
    else if (v < 1e-4) snprintf(b, n, "%.1e", v);
    else snprintf(b, n, "%.4f", v);
}


/* The exit code the gate asks for: 5 on a regression, 6 when inconclusive (0 with
 * --allow-inconclusive), else 0; 0 without --fail-on-regression. */
static int gate_exit(const dctx *c) {
    if (!c->fail_set) return EXIT_OK;
    const etp_diff_overall *g = &etp_diff_get_summary(c->d)->gate;
    if (g->outcome == ETP_DIFF_REGRESSION) return EXIT_REGRESSION;
    if (g->outcome == ETP_DIFF_INCONCLUSIVE && !c->allow_inconclusive) return EXIT_INCONCLUSIVE;
    return EXIT_OK;
}

/* ------------------------------------------------------------------------------------------- */
/* Headline text: placement changes, then one line per method, then the gate. */

typedef void (*line_fn)(void *ctx, const char *text);

static void headline(const dctx *c, line_fn emit, void *ctx) {
    const etp_diff_result *d = c->d;
    char b[1024], x[192], y[96];
    for (size_t i = 0; i < etp_diff_placement_count(d); i++) {
        const etp_diff_placement *p = etp_diff_placement_get(d, i);
        const etp_diff_method *m = etp_diff_method_get(d, p->method);
        const char *un;
        double bp = conv(c, m->unit, p->base_per_run, &un), np = conv(c, m->unit, p->new_per_run, &un);
        if (p->move == ETP_MOVE_PARTITIONS) {
            snprintf(b, sizeof b,
                     "PARTITIONS %s: %s %u -> %u partition(s), %.*f -> %.*f %s per run",
                     dlabel(c, m), p->from, p->base_count, p->new_count, c->disp.precision, bp,
                     c->disp.precision, np, un);
        } else {
            bool to_cpu = p->move == ETP_MOVE_TO_CPU;
            if (p->observed)
                snprintf(x, sizeof x, "observed: %u -> %u %s node(s)", p->base_nodes, p->new_nodes,
                         to_cpu ? p->from : p->to);
            else
                snprintf(x, sizeof x,
                         "inferred: not on the CPU in %s, which delegated to %s; its events do "
                         "not name operators",
                         to_cpu ? "BASE" : "NEW", to_cpu ? p->from : p->to);
            snprintf(b, sizeof b,
                     "PLACEMENT %s: %s moved from %s to %s: %u -> %u CPU kernel instruction(s), "
                     "%.*f -> %.*f %s per run on the CPU (%s)",
                     dlabel(c, m), p->op ? p->op : "?", to_cpu ? p->from : "the CPU",
                     to_cpu ? "the CPU" : p->to, p->base_count, p->new_count, c->disp.precision,
                     bp, c->disp.precision, np, un, x);
        }
        emit(ctx, b);
    }
    for (size_t i = 0; i < etp_diff_method_count(d); i++) {
        const etp_diff_method *m = etp_diff_method_get(d, i);
        const etp_diff_cmp *l = &m->latency;
        const char *un;
        double pb = conv(c, m->unit, l->p50_base, &un), pn = conv(c, m->unit, l->p50_new, &un);
        if (m->base < 0 || m->new_ < 0) {
            snprintf(b, sizeof b, "%s: only in %s (p50 %.*f %s, %u run(s))", dlabel(c, m),
                     m->base < 0 ? "NEW" : "BASE", c->disp.precision, m->base < 0 ? pn : pb, un,
                     m->base < 0 ? l->runs_new : l->runs_base);
            emit(ctx, b);
            continue;
        }
        fmt_pct(x, sizeof x, l->p50_pct);
        if (l->verdict == ETP_DV_TOO_FEW_RUNS)
            snprintf(y, sizeof y, "too few runs (%u vs %u; %u per side needed)", l->runs_base,
                     l->runs_new, c->o->min_runs);
        else {
            char p[32];
            fmt_p(p, sizeof p, l->p);
            snprintf(y, sizeof y, "%s (p=%s, %u vs %u runs)",
                     etp_diff_verdict_name(l->verdict, m->unit), p, l->runs_base, l->runs_new);
        }
        snprintf(b, sizeof b, "%s: p50 latency %.*f -> %.*f %s (%s): %s", dlabel(c, m),
                 c->disp.precision, pb, c->disp.precision, pn, un, x, y);
        emit(ctx, b);
    }
    const etp_diff_summary *s = etp_diff_get_summary(d);
    const etp_diff_overall *g = &s->gate;
    if (c->fail_set) {
        switch (g->outcome) {
        case ETP_DIFF_REGRESSION: {
            size_t n = (size_t)snprintf(b, sizeof b, "fail-on-regression %g%%: FAILED (exit 5):",
                                        c->fail_pct);
            for (size_t i = 0; i < etp_diff_method_count(d) && n < sizeof b; i++) {
                const etp_diff_method *m = etp_diff_method_get(d, i);
                if (!m->regressed) continue;
                fmt_pct(x, sizeof x, m->latency.p50_pct);
                n += (size_t)snprintf(b + n, sizeof b - n, " %s %s", dlabel(c, m), x);
            }
            break;
        }
        case ETP_DIFF_INCONCLUSIVE:
            if (c->allow_inconclusive)
                snprintf(b, sizeof b,
                         "fail-on-regression %g%%: INCONCLUSIVE, allowed by --allow-inconclusive "
                         "(exit 0): %s",
                         c->fail_pct, g->reason);
            else
                snprintf(b, sizeof b, "fail-on-regression %g%%: INCONCLUSIVE (exit 6): %s",
                         c->fail_pct, g->reason);
            break;
        default:
            if (g->untested_passes)
                snprintf(b, sizeof b,
                         "fail-on-regression %g%%: passed, but %u method(s) had too few runs to be "
                         "judged by the test: their p50 change does not exceed %g%%",
                         c->fail_pct, g->untested_passes, c->fail_pct);
            else
                snprintf(b, sizeof b,
                         "fail-on-regression %g%%: passed (no method is significantly slower by "
                         "more than %g%%)",
                         c->fail_pct, c->fail_pct);
            break;
        }
        emit(ctx, b);
    }
}

static void notes(const dctx *c, line_fn emit, void *ctx) {
    const etp_diff_result *d = c->d;
    const etp_diff_summary *s = etp_diff_get_summary(d);
    char b[640];
    for (int side = 0; side < 2; side++) {
        const etp_ops_result *r = side ? c->rn : c->rb;
        const char *first;
        uint32_t nm = r ? etp_ops_program_mismatch(r, &first) : 0;
        if (nm) {
            snprintf(b, sizeof b,
                     "%s: PROGRAM MISMATCH ignored (--ignore-program-mismatch): %u block(s) do not "
                     "fit the program and are compared without method, operators or backends; "
                     "first: %.400s",
                     side ? "NEW" : "BASE", nm, first);
            emit(ctx, b);
        }
        for (size_t i = 0; r && i < etp_ops_method_count(r); i++) {
            const etp_ops_method *m = etp_ops_method_get(r, i);
            if (!m->n_candidates) continue;
            snprintf(b, sizeof b,
                     "%s: method unknown for %u run(s): they fit %u methods of the program (%.300s) "
                     "and the files cannot tell which ran (same instructions; no logged tensor "
                     "shape or delegate blob tells them apart); --method NAME settles it",
                     side ? "NEW" : "BASE", m->runs + m->skipped, m->n_candidates, m->candidates);
            emit(ctx, b);
        }
    }
    snprintf(b, sizeof b,
             "operators: %u matched (%u slower, %u faster, %u noise, %u no change, %u too few "
             "runs), %u added, %u removed; matched %s",
             s->matched, s->slower, s->faster, s->noise, s->no_change, s->too_few, s->added,
             s->removed,
             s->by_name ? "by (kind, name or operator, occurrence): the programs differ"
                        : "by (method, chain, instruction, kind, identity)");
    emit(ctx, b);
    snprintf(b, sizeof b,
             "verdicts: two-sided Mann-Whitney U test of the per-run samples (normal "
             "approximation, tie and continuity corrections); operators: Benjamini-Hochberg q < "
             "%g over the matched rows, methods: p < %g; fewer than %u runs on a side: too few "
             "runs; not significant and |delta p50| < %g%%: no change, otherwise noise",
             c->o->alpha, c->o->alpha, c->o->min_runs, c->o->no_change_pct);
    emit(ctx, b);
    emit(ctx, "rows are sorted by impact: the change of the row's total time per run; time rows "
              "first, then ticks, cycles, counts, bytes; units are never compared across");
    if (c->ls.runs_differ)
        emit(ctx, "BASE and NEW have different numbers of runs: totals differ by that alone; "
                  "compare p50s, and the impact (change of total per run) that sorts rows");
    if (s->hidden) {
        snprintf(b, sizeof b, "%u matched operator row(s) with |delta p50| < %g%% hidden (--threshold)",
                 s->hidden, c->threshold);
        emit(ctx, b);
    }
    etp_disp_unit_notes(&c->disp, c->ls.flags, c->ls.units, emit, ctx);
    etp_clock_notes(c->ls.flags, emit, ctx);
    if (c->pmu) etp_arm_pmu_diff_notes(c->pmu_b, c->pmu_n, emit, ctx);
    if (!c->all && c->ls.wrappers_hidden) {
        snprintf(b, sizeof b, "%zu OPERATOR_CALL wrapper row(s) hidden (--all shows them)",
                 c->ls.wrappers_hidden);
        emit(ctx, b);
    }
}

/* ------------------------------------------------------------------------------------------- */
/* Operator rows */

enum { C_METHOD, C_INSTR, C_INSTR_NEW, C_NAME, C_OPERATOR, C_KIND, C_PLACEMENT, C_UNIT, C_RUNS_B,
       C_RUNS_N, C_P50_B, C_P50_N, C_P50_D, C_P50_PCT, C_TOT_B, C_TOT_N, C_TOT_D, C_TOT_PCT,
       C_IMPACT, C_P, C_Q, C_VERDICT, C_STATUS, C_MATCH, C_GATE, C_GATE_REASON, C_N_ };

static const etp_col op_cols_all[C_N_] = {
    [C_METHOD] = {"method", "method", NULL, ETP_T_STR, true, 0},
    [C_INSTR] = {"instruction_id", "instr", NULL, ETP_T_INT, true, 0},
    [C_INSTR_NEW] = {"instruction_id_new", "instr new", NULL, ETP_T_INT, true, 0},
    [C_NAME] = {"name", "name", NULL, ETP_T_STR, false, 0},
    [C_OPERATOR] = {"operator", "operator", NULL, ETP_T_STR, true, 0},
    [C_KIND] = {"kind", "kind", NULL, ETP_T_STR, false, 0},
    [C_PLACEMENT] = {"placement", "placement", NULL, ETP_T_STR, false, 0},
    [C_UNIT] = {"unit", "unit", NULL, ETP_T_STR, false, 0},
    [C_RUNS_B] = {"runs_base", "runs base", NULL, ETP_T_UINT, false, 0},
    [C_RUNS_N] = {"runs_new", "runs new", NULL, ETP_T_UINT, false, 0},
    [C_P50_B] = {"p50_base", "p50 base", NULL, ETP_T_FLOAT, true, 3},
    [C_P50_N] = {"p50_new", "p50 new", NULL, ETP_T_FLOAT, true, 3},
    [C_P50_D] = {"p50_delta", "Δp50", NULL, ETP_T_FLOAT, true, 3},
    [C_P50_PCT] = {"p50_pct", "Δp50%", NULL, ETP_T_FLOAT, true, 2},
    [C_TOT_B] = {"total_base", "total base", NULL, ETP_T_FLOAT, true, 3},
    [C_TOT_N] = {"total_new", "total new", NULL, ETP_T_FLOAT, true, 3},
    [C_TOT_D] = {"total_delta", "Δtotal", NULL, ETP_T_FLOAT, true, 3},
    [C_TOT_PCT] = {"total_pct", "Δtotal%", NULL, ETP_T_FLOAT, true, 2},
    [C_IMPACT] = {"impact_per_run", "Δ/run", NULL, ETP_T_FLOAT, true, 3},
    [C_P] = {"p_value", "p", NULL, ETP_T_FLOAT, true, -1},
    [C_Q] = {"q_value", "q", NULL, ETP_T_FLOAT, true, -1},
    [C_VERDICT] = {"verdict", "verdict", NULL, ETP_T_STR, false, 0},
    [C_STATUS] = {"status", "status", NULL, ETP_T_STR, false, 0},
    [C_MATCH] = {"match", "match", NULL, ETP_T_STR, true, 0},
    [C_GATE] = {"gate", "gate", NULL, ETP_T_STR, false, 0},
    [C_GATE_REASON] = {"gate_reason", "gate reason", NULL, ETP_T_STR, false, 0},
};

/* The people formats (table, md) show fewer columns. */
static const int op_cols_people[] = {C_METHOD, C_INSTR,  C_NAME,  C_P50_B,   C_P50_N,
                                     C_P50_D,  C_P50_PCT, C_TOT_D, C_Q,      C_VERDICT,
                                     C_UNIT,   C_PLACEMENT, C_KIND};

typedef struct optab {
    etp_table *t;
    bool people;
    int col_of[C_N_]; /* position -> column id */
    size_t ncols;
} optab;

/* A new operator table of the document: every column, or the people's (table, md). */
static etp_table *optab_new(const dctx *c, etp_doc *doc, optab *ot, bool people) {
    etp_col cols[C_N_ + 1];
    ot->people = people;
    ot->ncols = 0;
    size_t n = people ? sizeof op_cols_people / sizeof op_cols_people[0] : (size_t)C_N_;
    for (size_t i = 0; i < n; i++) {
        int k = people ? op_cols_people[i] : (int)i;
        ot->col_of[ot->ncols] = k;
        cols[ot->ncols] = op_cols_all[k];
        if (op_cols_all[k].type == ETP_T_FLOAT && op_cols_all[k].precision == 3)
            cols[ot->ncols].precision = c->disp.precision;
        ot->ncols++;
    }
    if (c->rec) cols[ot->ncols] = (etp_col){"module", "module", NULL, ETP_T_STR, true, 0};
    return ot->t = etp_doc_table(doc, cols, ot->ncols + (c->rec ? 1 : 0));
}

/* Cells must be given in column order: collect them, then emit. */
typedef struct cell {
    int type; /* 0 absent, 1 str, 2 int, 3 uint, 4 float */
    const char *s;
    int64_t i;
    uint64_t u;
    double f;
    char buf[320];
} cell;

static void put_str(cell *v, const char *s) {
    v->type = s ? 1 : 0;
    v->s = s;
}
static void put_float(cell *v, double f) {
    v->type = isnan(f) ? 0 : 4;
    v->f = f;
}
static void put_text(cell *v, const char *fmt_buf) {
    memcpy(v->buf, fmt_buf, strlen(fmt_buf) + 1);
    v->type = 1;
    v->s = v->buf;
}

static void op_row(const dctx *c, optab *ot, const etp_diff_op *op) {
    cell v[C_N_];
    memset(v, 0, sizeof v);
    const etp_ops_row *r = any_row(op);
    const etp_diff_method *m = etp_diff_method_get(c->d, op->method);
    const etp_diff_cmp *x = &op->cmp;
    const char *un;
    put_str(&v[C_METHOD], ot->people ? dlabel(c, m) : m->name);
    if (op->base && op->base->chain >= 0 && op->base->instr >= 0) {
        v[C_INSTR].type = 2;
        v[C_INSTR].i = op->base->instr;
    }
    if (op->new_ && op->new_->chain >= 0 && op->new_->instr >= 0) {
        v[C_INSTR_NEW].type = 2;
        v[C_INSTR_NEW].i = op->new_->instr;
    }
    if (ot->people && !op->base && v[C_INSTR_NEW].type) v[C_INSTR] = v[C_INSTR_NEW];
    put_str(&v[C_NAME], r->name);
    put_str(&v[C_OPERATOR], op->new_ && op->new_->op ? op->new_->op : r->op);
    put_str(&v[C_KIND], etp_ops_row_kind_name(r));
    put_str(&v[C_PLACEMENT], etp_diff_op_placement(op));
    put_str(&v[C_UNIT], unit_name(c, r->unit));
    v[C_RUNS_B].type = v[C_RUNS_N].type = 3;
    v[C_RUNS_B].u = x->runs_base;
    v[C_RUNS_N].u = x->runs_new;
    put_float(&v[C_P50_B], conv(c, r->unit, x->p50_base, &un));
    put_float(&v[C_P50_N], conv(c, r->unit, x->p50_new, &un));
    put_float(&v[C_P50_D], conv(c, r->unit, x->p50_delta, &un));
    put_float(&v[C_TOT_B], conv(c, r->unit, x->total_base, &un));
    put_float(&v[C_TOT_N], conv(c, r->unit, x->total_new, &un));
    put_float(&v[C_TOT_D], conv(c, r->unit, x->total_delta, &un));
    put_float(&v[C_IMPACT], conv(c, r->unit, x->impact, &un));
    if (ot->people) {
        char b[48];
        if (!isnan(x->p50_pct)) {
            fmt_pct(b, sizeof b, x->p50_pct);
            put_text(&v[C_P50_PCT], b);
        }
        if (!isnan(x->q)) {
            fmt_p(b, sizeof b, x->q);
            put_text(&v[C_Q], b);
        }
    } else {
        put_float(&v[C_P50_PCT], x->p50_pct);
        put_float(&v[C_TOT_PCT], x->total_pct);
        put_float(&v[C_P], x->p);
        put_float(&v[C_Q], x->q);
    }
    put_str(&v[C_VERDICT], etp_diff_verdict_name(x->verdict, r->unit));
    put_str(&v[C_STATUS], op->status == ETP_DS_MATCHED ? "matched"
                          : op->status == ETP_DS_ADDED ? "added"
                                                       : "removed");
    put_str(&v[C_MATCH], op->status == ETP_DS_MATCHED ? (op->by_name ? "name" : "instruction") : NULL);
    put_str(&v[C_GATE], etp_diff_outcome_name(x->gate.outcome));
    if (!ot->people) {
        char why[sizeof v[C_GATE_REASON].buf];
        etp_diff_gate_text(&x->gate, why, sizeof why);
        put_text(&v[C_GATE_REASON], why);
    }

    etp_table_row(ot->t);
    for (size_t pos = 0; pos < ot->ncols; pos++) {
        const cell *e = &v[ot->col_of[pos]];
        switch (e->type) {
        case 1: etp_table_str(ot->t, e->s); break;
        case 2: etp_table_int(ot->t, e->i); break;
        case 3: etp_table_uint(ot->t, e->u); break;
        case 4: etp_table_float(ot->t, e->f); break;
        default: etp_table_null(ot->t); break;
        }
    }
    if (c->rec) {
        /* the record of the program that ran: BASE's row when it has one, else NEW's */
        const etp_ops_row *jr = op->base ? op->base : op->new_;
        const etp_ops_result *rr = op->base ? c->rb : c->rn;
        etp_etr_join j;
        bool ok = etp_etrecord_join_row(c->rec, etp_ops_method_get(rr, jr->method)->name, jr,
                                        &j) == ETP_OK && j.n_nodes;
        etp_table_str(ot->t, ok ? j.module : NULL);
        etp_etrecord_join_free(&j);
    }
}

/* Adds the listed operators of status `s` (top N of the matched ones). */
static void op_rows(const dctx *c, optab *ot, etp_diff_status s) {
    size_t n, shown = 0;
    const etp_diff_op *ops = etp_diff_ops(c->d, s, &n);
    for (size_t i = 0; i < n && shown < c->ls.shown[s]; i++) {
        if (!etp_diff_op_listed(&ops[i], c->all)) continue;
        op_row(c, ot, &ops[i]);
        shown++;
    }
}

/* ------------------------------------------------------------------------------------------- */
/* Methods */

static const etp_col method_cols[] = {
    {"method", "method", NULL, ETP_T_STR, false, 0},
    {"runs_base", "runs base", NULL, ETP_T_UINT, false, 0},
    {"runs_new", "runs new", NULL, ETP_T_UINT, false, 0},
    {"p50_base", "p50 base", NULL, ETP_T_FLOAT, true, 3},
    {"p50_new", "p50 new", NULL, ETP_T_FLOAT, true, 3},
    {"p50_delta", "Δp50", NULL, ETP_T_FLOAT, true, 3},
    {"p50_pct", "Δp50%", NULL, ETP_T_FLOAT, true, 2},
    {"total_delta", "Δtotal", NULL, ETP_T_FLOAT, true, 3},
    {"p_value", "p", NULL, ETP_T_FLOAT, true, -1},
    {"verdict", "verdict", NULL, ETP_T_STR, false, 0},
    {"gate", "gate", NULL, ETP_T_STR, false, 0},
    {"unit", "unit", NULL, ETP_T_STR, false, 0},
    {"cpu_share_base", "cpu% base", NULL, ETP_T_FLOAT, true, 1},
    {"cpu_share_new", "cpu% new", NULL, ETP_T_FLOAT, true, 1},
    {"partitions_base", "parts base", NULL, ETP_T_UINT, false, 0},
    {"partitions_new", "parts new", NULL, ETP_T_UINT, false, 0},
    {"match", "match", NULL, ETP_T_STR, true, 0},
};
#define N_METHOD_COLS (sizeof method_cols / sizeof method_cols[0])

/* The methods of the table format (p50 change and p as the text writes them). */
static void method_table(const dctx *c, etp_table *t) {
    for (size_t i = 0; i < etp_diff_method_count(c->d); i++) {
        const etp_diff_method *m = etp_diff_method_get(c->d, i);
        const etp_diff_cmp *l = &m->latency;
        const char *un;
        char b[48];
        etp_table_row(t);
        etp_table_str(t, dlabel(c, m));
        etp_table_uint(t, l->runs_base);
        etp_table_uint(t, l->runs_new);
        etp_table_float(t, conv(c, m->unit, l->p50_base, &un));
        etp_table_float(t, conv(c, m->unit, l->p50_new, &un));
        etp_table_float(t, conv(c, m->unit, l->p50_delta, &un));
        fmt_pct(b, sizeof b, l->p50_pct);
        if (isnan(l->p50_pct)) etp_table_null(t);
        else etp_table_str(t, b);
        etp_table_float(t, conv(c, m->unit, l->total_delta, &un));
        fmt_p(b, sizeof b, l->p);
        if (isnan(l->p)) etp_table_null(t);
        else etp_table_str(t, b);
        etp_table_str(t, etp_diff_verdict_name(l->verdict, m->unit));
        etp_table_str(t, etp_diff_outcome_name(l->gate.outcome));
        etp_table_str(t, unit_name(c, m->unit));
        etp_table_float(t, m->cpu_share_base);
        etp_table_float(t, m->cpu_share_new);
        etp_table_uint(t, m->partitions_base);
        etp_table_uint(t, m->partitions_new);
        etp_table_str(t, match_name(m));
    }
}

/* ------------------------------------------------------------------------------------------- */
/* JSON facts */

static void n_cmp(etp_node *o, const dctx *c, etp_unit u, const etp_diff_cmp *x) {
    const char *un;
    etp_node_str(o, "unit", unit_name(c, u));
    etp_node_uint(o, "runs_base", x->runs_base);
    etp_node_uint(o, "runs_new", x->runs_new);
    etp_node_float(o, "p50_base", conv(c, u, x->p50_base, &un));
    etp_node_float(o, "p50_new", conv(c, u, x->p50_new, &un));
    etp_node_float(o, "p50_delta", conv(c, u, x->p50_delta, &un));
    etp_node_float(o, "p50_pct", x->p50_pct);
    etp_node_float(o, "total_base", conv(c, u, x->total_base, &un));
    etp_node_float(o, "total_new", conv(c, u, x->total_new, &un));
    etp_node_float(o, "total_delta", conv(c, u, x->total_delta, &un));
    etp_node_float(o, "total_pct", x->total_pct);
    etp_node_float(o, "impact_per_run", conv(c, u, x->impact, &un));
    etp_node_float(o, "z", x->z);
    etp_node_float(o, "p_value", x->p);
    etp_node_float(o, "q_value", x->q);
    etp_node_bool(o, "significant", x->significant);
    etp_node_str(o, "verdict", etp_diff_verdict_name(x->verdict, u));
    char why[320];
    etp_diff_gate_text(&x->gate, why, sizeof why);
    etp_node_str(o, "gate", etp_diff_outcome_name(x->gate.outcome));
    etp_node_str(o, "gate_reason", why);
    etp_node_float(o, "min_p", x->gate.min_p);
}

static void emit_node(void *ctx, const char *text) { etp_node_str(ctx, NULL, text); }
static void emit_doc_note(void *ctx, const char *text) { etp_doc_note(ctx, text); }

/* JSON: {schema_version, base, new, time_unit, threshold_pct, methods, ops, placement_changes,
 * added, removed, verdict, notes} (no envelope: its own base and new). */
static void fill_json(const dctx *c, etp_doc *doc) {
    const etp_diff_result *d = c->d;
    const etp_diff_summary *s = etp_diff_get_summary(d);
    etp_node *root = etp_doc_root(doc);
    const char *paths[2] = {c->base_path, c->new_path};
    const etp_ops_result *rs[2] = {c->rb, c->rn};
    const char *ptes[2] = {c->a->set[OPT_PTE] ? c->a->val[OPT_PTE] : NULL,
                           c->a->set[OPT_PTE_NEW] ? c->a->val[OPT_PTE_NEW]
                           : c->a->set[OPT_PTE]   ? c->a->val[OPT_PTE]
                                                  : NULL};
    for (int k = 0; k < 2; k++) {
        etp_node *side = etp_node_obj(root, k ? "new" : "base");
        etp_node_str(side, "file", paths[k]);
        etp_node_str(side, "program", ptes[k]);
        etp_node_uint(side, "runs", etp_ops_runs_kept(rs[k]));
    }
    etp_node_str(root, "time_unit", c->disp.time_unit);
    etp_node_float(root, "threshold_pct", c->threshold);
    etp_node *ma = etp_node_arr(root, "methods");
    for (size_t i = 0; i < etp_diff_method_count(d); i++) {
        const etp_diff_method *m = etp_diff_method_get(d, i);
        etp_node *mo = etp_node_obj(ma, NULL);
        etp_node_str(mo, "method", m->name);
        const etp_ops_method *om = side_method(c, m);
        etp_ops_method none = {0};
        etp_fig_method_candidates(mo, om ? om : &none);
        etp_node_str(mo, "status", m->base < 0 ? "added" : m->new_ < 0 ? "removed" : "matched");
        etp_node_str(mo, "match", match_name(m));
        n_cmp(mo, c, m->unit, &m->latency);
        etp_node_bool(mo, "regressed", m->regressed);
        etp_node_float(mo, "cpu_share_base", m->cpu_share_base);
        etp_node_float(mo, "cpu_share_new", m->cpu_share_new);
        etp_node_float(mo, "delegate_share_base", m->delegate_share_base);
        etp_node_float(mo, "delegate_share_new", m->delegate_share_new);
        etp_node_uint(mo, "partitions_base", m->partitions_base);
        etp_node_uint(mo, "partitions_new", m->partitions_new);
    }
    static const char *const keys[3] = {"ops", "added", "removed"};
    for (int st = 0; st < 3; st++) {
        optab ot;
        optab_new(c, doc, &ot, false);
        op_rows(c, &ot, (etp_diff_status)st);
        etp_node_table(root, keys[st], ot.t);
        if (st) continue;
        etp_node *pa = etp_node_arr(root, "placement_changes");
        for (size_t i = 0; i < etp_diff_placement_count(d); i++) {
            const etp_diff_placement *p = etp_diff_placement_get(d, i);
            const etp_diff_method *m = etp_diff_method_get(d, p->method);
            const char *un;
            etp_node *po = etp_node_obj(pa, NULL);
            etp_node_str(po, "method", m->name);
            etp_node_str(po, "change", etp_diff_move_name(p->move));
            etp_node_str(po, "operator", p->op);
            etp_node_str(po, "from", p->from);
            etp_node_str(po, "to", p->to);
            etp_node_uint(po, "base_count", p->base_count);
            etp_node_uint(po, "new_count", p->new_count);
            etp_node_uint(po, "base_nodes", p->base_nodes);
            etp_node_uint(po, "new_nodes", p->new_nodes);
            etp_node_str(po, "evidence", p->observed ? "observed" : "inferred");
            etp_node_float(po, "base_per_run", conv(c, m->unit, p->base_per_run, &un));
            etp_node_float(po, "new_per_run", conv(c, m->unit, p->new_per_run, &un));
            etp_node_str(po, "unit", un);
        }
    }
    etp_node *v = etp_node_obj(root, "verdict");
    etp_node_str(v, "result", etp_diff_result_name(d));
    if (c->fail_set) etp_node_float(v, "fail_on_regression_pct", c->fail_pct);
    else etp_node_null(v, "fail_on_regression_pct");
    etp_node_bool(v, "failed", s->methods_regressed > 0);
    etp_node_int(v, "exit_code", gate_exit(c));
    etp_node_str(v, "gate", etp_diff_outcome_name(s->gate.outcome));
    etp_node_str(v, "gate_reason", s->gate.reason);
    etp_node_bool(v, "allow_inconclusive", c->allow_inconclusive);
    etp_node_uint(v, "runs_needed", c->ls.runs_needed);
    etp_node_uint(v, "methods_inconclusive", s->methods_inconclusive);
    etp_node_uint(v, "methods_improved", s->methods_improved);
    etp_node *rm = etp_node_arr(v, "regressed_methods");
    for (size_t i = 0; i < etp_diff_method_count(d); i++)
        if (etp_diff_method_get(d, i)->regressed) etp_node_str(rm, NULL, etp_diff_method_get(d, i)->name);
    etp_node_str(v, "test", "mann-whitney-u");
    etp_node_float(v, "alpha", c->o->alpha);
    etp_node_uint(v, "min_runs", c->o->min_runs);
    etp_node_float(v, "no_change_pct", c->o->no_change_pct);
    etp_node_str(v, "match", s->by_name ? "name" : "instruction");
    etp_node_uint(v, "methods", s->methods);
    etp_node_uint(v, "methods_slower", s->methods_slower);
    etp_node_uint(v, "methods_faster", s->methods_faster);
    etp_node_uint(v, "methods_too_few_runs", s->methods_too_few);
    etp_node_uint(v, "ops_matched", s->matched);
    etp_node_uint(v, "ops_slower", s->slower);
    etp_node_uint(v, "ops_faster", s->faster);
    etp_node_uint(v, "ops_noise", s->noise);
    etp_node_uint(v, "ops_no_change", s->no_change);
    etp_node_uint(v, "ops_too_few_runs", s->too_few);
    etp_node_uint(v, "ops_added", s->added);
    etp_node_uint(v, "ops_removed", s->removed);
    etp_node_uint(v, "ops_hidden", s->hidden);
    etp_node_uint(v, "placement_to_cpu", s->to_cpu);
    etp_node_uint(v, "placement_to_delegate", s->to_delegate);
    etp_node_uint(v, "partition_changes", s->partition_changes);
    headline(c, emit_node, etp_node_arr(v, "headline"));
    /* only when a side was read from an Arm runner's log (the one source of the report) */
    if (c->pmu) etp_fig_arm_pmu_diff(root, "arm_pmu", c->pmu_b, c->pmu_n);
    notes(c, emit_doc_note, doc);
}

/* csv, tsv, jsonl: every operator row with every column. */
static void fill_flat(const dctx *c, etp_doc *doc) {
    optab ot;
    etp_doc_flat(doc, optab_new(c, doc, &ot, false));
    for (int st = 0; st < 3; st++) op_rows(c, &ot, (etp_diff_status)st);
}

/* ------------------------------------------------------------------------------------------- */
/* The text views. table: headline, methods, operators, added, removed, notes; md: the operator
 * rows with the headline and the notes as the table's notes. Their lines name methods,
 * operators and backends from the input: shown as table cells are (ETP_TEXT_CELL). */

static void emit_line(void *ctx, const char *text) {
    etp_section_text(ctx, ETP_TEXT_WRAP | ETP_TEXT_CELL, NULL, 2, text);
}
static void emit_note_line(void *ctx, const char *text) {
    etp_section_text(ctx, ETP_TEXT_WRAP | ETP_TEXT_CELL, "note: ", 6, text);
}
static void emit_table_note(void *ctx, const char *text) { etp_table_note(ctx, text); }

static void fill_table(const dctx *c, etp_doc *doc) {
    etp_section *sec = etp_doc_section(doc, "diff");
    headline(c, emit_line, sec);
    etp_section_text(sec, 0, NULL, 0, "\n");
    etp_table *t = etp_doc_table(doc, method_cols, N_METHOD_COLS);
    /* a narrow terminal loses these first */
    static const char *const mdrop[] = {
        "match:15", "partitions_base+partitions_new:14", "cpu_share_base+cpu_share_new:13",
        "total_delta:12", "p_value:11", "runs_base+runs_new:10", "gate:9", "p50_delta:8",
        "p50_base+p50_new+unit:2", "verdict:1", NULL};
    etp_table_droppable(t, mdrop);
    method_table(c, t);
    etp_section_table(sec, t);
    static const char *const titles[3] = {"operators, by impact", "added (only in NEW)",
                                          "removed (only in BASE)"};
    for (int st = 0; st < 3; st++) {
        size_t n = c->ls.listed[st];
        if (st && !n) continue;
        if (c->ls.shown[st] < n)
            etp_section_textf(sec, 0, 0, "\n%s (first %zu of %zu):\n", titles[st], c->ls.shown[st], n);
        else
            etp_section_textf(sec, 0, 0, "\n%s (%zu):\n", titles[st], n);
        optab ot;
        optab_new(c, doc, &ot, true);
        static const char *const odrop[] = {
            "kind:9", "placement:8", "method:7", "q_value:6", "total_delta:5",
            "instruction_id:4", "p50_delta:3", "p50_base+p50_new+unit:2", "verdict:1", NULL};
        etp_table_droppable(ot.t, odrop);
        op_rows(c, &ot, (etp_diff_status)st);
        etp_section_table(sec, ot.t);
    }
    etp_table *pt = c->pmu ? etp_arm_pmu_diff_table(doc, c->pmu_b, c->pmu_n) : NULL;
    if (pt) {
        etp_section_textf(sec, 0, 0, "\nArm Ethos-U PMU report, per inference (one total per "
                                     "log: no verdict):\n");
        etp_section_table(sec, pt);
    }
    notes(c, emit_note_line, sec);
}

static void fill_md(const dctx *c, etp_doc *doc) {
    optab ot;
    etp_section *sec = etp_doc_section(doc, "diff");
    etp_section_table(sec, optab_new(c, doc, &ot, true));
    for (int st = 0; st < 3; st++) op_rows(c, &ot, (etp_diff_status)st);
    headline(c, emit_table_note, ot.t);
    notes(c, emit_table_note, ot.t);
    etp_table *pt = c->pmu ? etp_arm_pmu_diff_table(doc, c->pmu_b, c->pmu_n) : NULL;
    if (pt) etp_section_table(sec, pt);
}

/* ------------------------------------------------------------------------------------------- */

/* The same regular file (device and inode) named twice: `diff A A`, or two paths to one file. */
static bool same_regular_file(const char *x, const char *y) {
    struct stat sx, sy;
    if (strcmp(x, "-") == 0 || strcmp(y, "-") == 0) return false;
    if (stat(x, &sx) || stat(y, &sy)) return false;
    return S_ISREG(sx.st_mode) && S_ISREG(sy.st_mode) && sx.st_dev == sy.st_dev &&
           sx.st_ino == sy.st_ino;
}

static bool same_file_bytes(const etp_blob *x, const etp_blob *y) {
    return x->size == y->size && (x->size == 0 || memcmp(x->data, y->data, x->size) == 0);
}

static int run_diff(cli_args *a) {
    const char *bp = a->pos[0], *np = a->pos[1];
    long top = 0, skip = 0;
    dctx c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.base_path = bp;
    c.new_path = np;
    if (strcmp(bp, "-") == 0 && strcmp(np, "-") == 0) {
        cli_errorf("diff: BASE and NEW cannot both be standard input");
        return EXIT_USAGE;
    }
    if (a->set[OPT_TOP] && (!cli_get_long(a, OPT_TOP, &top) || top < 0)) {
        cli_errorf("diff: --top: expected a number >= 0, got \"%s\"", a->val[OPT_TOP]);
        return EXIT_USAGE;
    }
    if (a->set[OPT_SKIP_FIRST] && (!cli_get_long(a, OPT_SKIP_FIRST, &skip) || skip < 0)) {
        cli_errorf("diff: --skip-first: expected a number >= 0, got \"%s\"", a->val[OPT_SKIP_FIRST]);
        return EXIT_USAGE;
    }
    etp_diff_opts dopts;
    etp_diff_opts_init(&dopts);
    if (a->set[OPT_THRESHOLD] &&
        (!cli_get_double(a, OPT_THRESHOLD, &dopts.threshold_pct) || dopts.threshold_pct < 0)) {
        cli_errorf("diff: --threshold: expected a percentage >= 0, got \"%s\"", a->val[OPT_THRESHOLD]);
        return EXIT_USAGE;
    }
    if (a->set[OPT_FAIL_ON_REGRESSION]) {
        if (!cli_get_double(a, OPT_FAIL_ON_REGRESSION, &dopts.fail_pct) || dopts.fail_pct < 0) {
            cli_errorf("diff: --fail-on-regression: expected a percentage >= 0, got \"%s\"",
                       a->val[OPT_FAIL_ON_REGRESSION]);
            return EXIT_USAGE;
        }
        c.fail_set = true;
        c.fail_pct = dopts.fail_pct;
    }
    c.allow_inconclusive = a->set[OPT_ALLOW_INCONCLUSIVE];
    c.threshold = dopts.threshold_pct;
    c.top = (size_t)top;
    c.all = a->set[OPT_ALL];
    etp_model_opts mo;
    int rc = cli_model_opts(a, &mo);
    if (rc) return rc;
    if (etp_disp_init(&c.disp, a->set[OPT_TIME_UNIT] ? a->val[OPT_TIME_UNIT] : "us", 0, mo.tick_ns)) {
        cli_errorf("diff: --time-unit: expected ns, us, ms or s, got \"%s\"", a->val[OPT_TIME_UNIT]);
        return EXIT_USAGE;
    }

    etp_etrecord *rec = NULL;
    if ((rc = cli_etr_open(a, &rec))) return rc;
    c.rec = rec;
    /* One file named twice with one program: it is mapped, modelled and aggregated once, and
     * both sides are that one result (the figures are the same as two opens would give). */
    bool shared = same_regular_file(bp, np) &&
                  (!a->set[OPT_PTE_NEW] ||
                   (a->set[OPT_PTE] && same_regular_file(a->val[OPT_PTE], a->val[OPT_PTE_NEW])));
    cli_inputs ib, in;
    memset(&in, 0, sizeof in);
    /* --runner-log / --runner-log-new (read once both sides are computed) */
    etp_runner_log given[2];
    memset(given, 0, sizeof given);
    if ((rc = cli_open_inputs_bg(a, bp, &ib))) {
        etp_etrecord_close(rec);
        return rc;
    }
    cli_args an = *a;
    if (a->set[OPT_PTE_NEW]) {
        an.set[OPT_PTE] = true;
        an.val[OPT_PTE] = a->val[OPT_PTE_NEW];
    }
    if (!shared && (rc = cli_open_inputs_bg(&an, np, &in))) {
        cli_close_inputs(&ib);
        etp_etrecord_close(rec);
        return rc;
    }
    const cli_inputs *pn = shared ? &ib : &in;
    /* the base's tick rate in the notes (each side's units are its own; units never compare) */
    c.disp.tick_ns = ib.tick_ns;
    dopts.programs_differ = ib.prog && pn->prog && !same_file_bytes(&ib.pte_blob, &pn->pte_blob);

    etp_ops_opts oo;
    etp_ops_opts_init(&oo);
    oo.block = a->set[OPT_BLOCK] ? a->val[OPT_BLOCK] : NULL;
    oo.skip_first = (uint32_t)skip;
    oo.progress_ctx = a;
    etp_error err = {0};
    etp_ops_result *rb = NULL, *rn = NULL;
    etp_diff_result *d = NULL;
    oo.progress = progress_base;
    rc = etp_ops_compute(ib.model, &oo, &rb, &err);
    cli_progress_end(a);
    if (!rc && !shared) {
        oo.progress = progress_new;
        rc = etp_ops_compute(in.model, &oo, &rn, &err);
        cli_progress_end(a);
    }
    if (!rc) rc = etp_diff_compute(rb, shared ? rb : rn, &dopts, &d, &err);
    if (rc) {
        cli_error(&err);
        rc = cli_exit_for(rc);
        goto done;
    }
    c.d = d;
    c.rb = rb;
    c.rn = shared ? rb : rn;
    /* --runner-log / --runner-log-new: each side's log apart from its ETDump */
    if ((rc = cli_runner_log_opt(a, OPT_RUNNER_LOG, ib.dump, &given[0], &c.pmu_b)) ||
        (rc = cli_runner_log_opt(a, OPT_RUNNER_LOG_NEW, pn->dump, &given[1], &c.pmu_n)))
        goto done;
    c.pmu = c.pmu_b || c.pmu_n;
    c.o = &dopts;
    etp_diff_list(d, c.all, c.top, &c.ls);
    /* one document: the JSON facts, the flat rows (csv, tsv, jsonl) and the text views */
    etp_doc *doc = etp_doc_new("diff", 1, NULL, NULL);
    etp_doc_envelope(doc, 0); /* the JSON names its inputs: base, new */
    if (doc) {
        fill_json(&c, doc);
        fill_flat(&c, doc);
        if (a->fmt == ETP_FMT_TABLE) fill_table(&c, doc);
        if (a->fmt == ETP_FMT_MD) fill_md(&c, doc);
    }
    if (!etp_doc_ok(doc)) {
        cli_errorf("diff: out of memory");
        etp_doc_free(doc);
        rc = EXIT_INTERNAL;
        goto done;
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        etp_doc_free(doc);
        goto done;
    }
    rc = cli_render(a, &o, doc);
    etp_doc_free(doc);
    if (rc && rc != EXIT_IO) cli_errorf("diff: out of memory"); /* cli_out_close reports EXIT_IO */
    rc = cli_out_close(&o, rc);
    if (!rc && c.fail_set && etp_diff_get_summary(d)->gate.outcome == ETP_DIFF_INCONCLUSIVE)
        cli_errorf("warning: diff: fail-on-regression %g%%: inconclusive%s: %s", c.fail_pct,
                   c.allow_inconclusive ? " (allowed by --allow-inconclusive, exit 0)"
                                        : " (exit 6)",
                   etp_diff_get_summary(d)->gate.reason);
    if (!rc) rc = gate_exit(&c);
done:
    etp_runner_log_free(&given[0]);
    etp_runner_log_free(&given[1]);
    etp_etrecord_close(rec);
    etp_diff_free(d);
    etp_ops_free(rb);
    etp_ops_free(rn);
    cli_close_inputs(&in);
    cli_close_inputs(&ib);
    return rc;
}

static const opt_id diff_opts[] = {OPT_PTE,        OPT_PTE_NEW,   OPT_THRESHOLD,
                                   OPT_FAIL_ON_REGRESSION, OPT_ALLOW_INCONCLUSIVE,
                                   OPT_METHOD,     OPT_IGNORE_MISMATCH, OPT_TICK_NS,
                                   OPT_TICK_HZ,    OPT_TICKS,     OPT_BLOCK,
                                   OPT_SKIP_FIRST, OPT_ALL,       OPT_TOP,
                                   OPT_TIME_UNIT,  OPT_ETRECORD,  OPT_RUNNER_LOG,
                                   OPT_RUNNER_LOG_NEW, OPT_NONE};

const cli_cmd cmd_diff = {
    .name = "diff",
    .summary = "did it get faster? operators of two dumps compared, with a noise-aware verdict",
    .usage = "BASE.etdp NEW.etdp [--pte P] [--pte-new P2] [--threshold PCT] "
             "[--fail-on-regression PCT [--allow-inconclusive]]",
    .help = "Matches operators across the two dumps by (method, chain, instruction, kind,\n"
            "identity); when the programs differ (instruction ids do not line up, or --pte-new\n"
            "names a different program) by (method, kind, name or operator, occurrence order).\n"
            "Reports per method and per operator the p50 and total of BASE and NEW, their\n"
            "change, and a verdict from a Mann-Whitney U test over the per-run samples:\n"
            "slower, faster, noise, no change, or too few runs (fewer than 3 on a side).\n"
            "Operators that moved from a delegate (NPU) to the CPU come first; then each\n"
            "method's latency; then the operators by impact (change of total time per run;\n"
            "time first, units never mixed), those added and those removed.\n"
            "--threshold hides operators whose p50 moved by less than PCT percent.\n"
            "--fail-on-regression PCT exits 5 when a method's p50 latency is significantly\n"
            "slower by more than PCT percent (for CI), and 6 (inconclusive) when a method's p50\n"
            "grew by more than PCT percent but its runs are too few for the test to reach\n"
            "p < 0.05 (at least 4 per side); --allow-inconclusive turns 6 into 0, with a\n"
            "warning. csv, tsv, md and jsonl hold the operator rows; json holds everything.\n"
            "See docs/diff.md.",
    .opts = diff_opts,
    .min_pos = 2,
    .max_pos = 2,
    .run = run_diff,
};
