/* cmd_diff.c - `etprof diff BASE.etdp NEW.etdp [--pte P] [--pte-new P2] [--threshold PCT]
 * [--fail-on-regression PCT]`: did my change make it faster? Operators matched across the two
 * dumps, p50 and total deltas with a noise-aware verdict per row, operators added and removed,
 * placement changes first (docs/diff.md). */
#include "analysis.h"
#include "cli.h"

#include <stdio.h>
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
} dctx;

/* ------------------------------------------------------------------------------------------- */

static const char *mname(const char *n) { return n ? n : "(unnamed)"; }

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

static bool op_listed(const dctx *c, const etp_diff_op *op) {
    if (op->hidden) return false;
    return c->all || any_row(op)->kind != ETP_KIND_OPERATOR_CALL;
}

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

/* The table format's own lines: they name methods, operators and backends from the input, so
 * they are written as table cells are (valid UTF-8, control characters as spaces). */
typedef struct text_out {
    FILE *f;
    int width; /* the lines wrap to this many columns (0: not wrapped) */
} text_out;
static void emit_prefixed(const text_out *to, const char *prefix, const char *text) {
    char *t = out_text_dup(text);
    out_wrap(to->f, to->width, prefix, *prefix ? 6 : 2, t ? t : "(out of memory)");
    free(t);
}
static void emit_line(void *ctx, const char *text) { emit_prefixed(ctx, "", text); }
static void emit_note_line(void *ctx, const char *text) { emit_prefixed(ctx, "note: ", text); }
static void emit_note(void *ctx, const char *text) { out_table_note(ctx, text); }
static void emit_json(void *ctx, const char *text) { jw_str(ctx, text); }

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
    for (size_t i = 0; i < etp_diff_method_count(d); i++) {
        const etp_diff_method *m = etp_diff_method_get(d, i);
        if (m->base >= 0 && m->new_ >= 0 && m->latency.runs_base != m->latency.runs_new) {
            emit(ctx, "BASE and NEW have different numbers of runs: totals differ by that alone; "
                      "compare p50s, and the impact (change of total per run) that sorts rows");
            break;
        }
    }
    if (s->hidden) {
        snprintf(b, sizeof b, "%u matched operator row(s) with |delta p50| < %g%% hidden (--threshold)",
                 s->hidden, c->threshold);
        emit(ctx, b);
    }
    uint32_t flags = 0, units = 0;
    for (int st = 0; st < 3; st++) {
        size_t n;
        const etp_diff_op *ops = etp_diff_ops(d, (etp_diff_status)st, &n);
        for (size_t i = 0; i < n; i++) {
            if (!op_listed(c, &ops[i])) continue;
            if (ops[i].base) flags |= ops[i].base->flags, units |= 1u << ops[i].base->unit;
            if (ops[i].new_) flags |= ops[i].new_->flags, units |= 1u << ops[i].new_->unit;
        }
    }
    for (size_t i = 0; i < etp_diff_method_count(d); i++)
        units |= 1u << etp_diff_method_get(d, i)->unit;
    etp_disp_unit_notes(&c->disp, flags, units, emit, ctx);
    if (!c->all) {
        size_t n, hidden = 0;
        for (int st = 0; st < 3; st++) {
            const etp_diff_op *ops = etp_diff_ops(d, (etp_diff_status)st, &n);
            for (size_t i = 0; i < n; i++)
                hidden += !ops[i].hidden && any_row(&ops[i])->kind == ETP_KIND_OPERATOR_CALL;
        }
        if (hidden) {
            snprintf(b, sizeof b, "%zu OPERATOR_CALL wrapper row(s) hidden (--all shows them)", hidden);
            emit(ctx, b);
        }
    }
}

/* ------------------------------------------------------------------------------------------- */
/* Operator rows */

enum { C_METHOD, C_INSTR, C_INSTR_NEW, C_NAME, C_OPERATOR, C_KIND, C_PLACEMENT, C_UNIT, C_RUNS_B,
       C_RUNS_N, C_P50_B, C_P50_N, C_P50_D, C_P50_PCT, C_TOT_B, C_TOT_N, C_TOT_D, C_TOT_PCT,
       C_IMPACT, C_P, C_Q, C_VERDICT, C_STATUS, C_MATCH, C_GATE, C_GATE_REASON, C_N_ };

static const out_col op_cols_all[C_N_] = {
    [C_METHOD] = {"method", "method", OUT_STR, 0},
    [C_INSTR] = {"instruction_id", "instr", OUT_INT, 0},
    [C_INSTR_NEW] = {"instruction_id_new", "instr new", OUT_INT, 0},
    [C_NAME] = {"name", "name", OUT_STR, 0},
    [C_OPERATOR] = {"operator", "operator", OUT_STR, 0},
    [C_KIND] = {"kind", "kind", OUT_STR, 0},
    [C_PLACEMENT] = {"placement", "placement", OUT_STR, 0},
    [C_UNIT] = {"unit", "unit", OUT_STR, 0},
    [C_RUNS_B] = {"runs_base", "runs base", OUT_UINT, 0},
    [C_RUNS_N] = {"runs_new", "runs new", OUT_UINT, 0},
    [C_P50_B] = {"p50_base", "p50 base", OUT_FLOAT, 3},
    [C_P50_N] = {"p50_new", "p50 new", OUT_FLOAT, 3},
    [C_P50_D] = {"p50_delta", "Δp50", OUT_FLOAT, 3},
    [C_P50_PCT] = {"p50_pct", "Δp50%", OUT_FLOAT, 2},
    [C_TOT_B] = {"total_base", "total base", OUT_FLOAT, 3},
    [C_TOT_N] = {"total_new", "total new", OUT_FLOAT, 3},
    [C_TOT_D] = {"total_delta", "Δtotal", OUT_FLOAT, 3},
    [C_TOT_PCT] = {"total_pct", "Δtotal%", OUT_FLOAT, 2},
    [C_IMPACT] = {"impact_per_run", "Δ/run", OUT_FLOAT, 3},
    [C_P] = {"p_value", "p", OUT_FLOAT, -1},
    [C_Q] = {"q_value", "q", OUT_FLOAT, -1},
    [C_VERDICT] = {"verdict", "verdict", OUT_STR, 0},
    [C_STATUS] = {"status", "status", OUT_STR, 0},
    [C_MATCH] = {"match", "match", OUT_STR, 0},
    [C_GATE] = {"gate", "gate", OUT_STR, 0},
    [C_GATE_REASON] = {"gate_reason", "gate reason", OUT_STR, 0},
};

/* The people formats (table, md) show fewer columns. */
static const int op_cols_people[] = {C_METHOD, C_INSTR,  C_NAME,  C_P50_B,   C_P50_N,
                                     C_P50_D,  C_P50_PCT, C_TOT_D, C_Q,      C_VERDICT,
                                     C_UNIT,   C_PLACEMENT, C_KIND};

typedef struct optab {
    out_table *t;
    bool people;
    int map[C_N_];    /* column id -> position, -1 when not shown */
    int col_of[C_N_]; /* position -> column id */
    out_col cols[C_N_];
    size_t ncols;
    bool in_row;
} optab;

static void optab_cols(const dctx *c, optab *ot, bool people) {
    ot->people = people;
    ot->ncols = 0;
    for (int k = 0; k < C_N_; k++) ot->map[k] = -1;
    size_t n = people ? sizeof op_cols_people / sizeof op_cols_people[0] : (size_t)C_N_;
    for (size_t i = 0; i < n; i++) {
        int k = people ? op_cols_people[i] : (int)i;
        ot->map[k] = (int)ot->ncols;
        ot->col_of[ot->ncols] = k;
        ot->cols[ot->ncols] = op_cols_all[k];
        if (op_cols_all[k].type == OUT_FLOAT && op_cols_all[k].precision == 3)
            ot->cols[ot->ncols].precision = c->disp.precision;
        ot->ncols++;
    }
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
    const char *pl = r->placement;
    if (op->base && op->new_ && strcmp(op->base->placement, "delegate") == 0) pl = op->new_->placement;
    put_str(&v[C_PLACEMENT], pl);
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

    out_row_begin(ot->t);
    for (size_t pos = 0; pos < ot->ncols; pos++) {
        const cell *e = &v[ot->col_of[pos]];
        switch (e->type) {
        case 1: out_cell_str(ot->t, e->s); break;
        case 2: out_cell_int(ot->t, e->i); break;
        case 3: out_cell_uint(ot->t, e->u); break;
        case 4: out_cell_float(ot->t, e->f); break;
        default: out_cell_null(ot->t); break;
        }
    }
    out_row_end(ot->t);
}

/* Writes the listed operators of status `s` (top N of the matched ones). */
static void op_rows(const dctx *c, optab *ot, etp_diff_status s) {
    size_t n, shown = 0;
    const etp_diff_op *ops = etp_diff_ops(c->d, s, &n);
    for (size_t i = 0; i < n; i++) {
        if (!op_listed(c, &ops[i])) continue;
        if (s == ETP_DS_MATCHED && c->top && shown >= c->top) break;
        op_row(c, ot, &ops[i]);
        shown++;
    }
}

static size_t count_listed(const dctx *c, etp_diff_status s) {
    size_t n, k = 0;
    const etp_diff_op *ops = etp_diff_ops(c->d, s, &n);
    for (size_t i = 0; i < n; i++) k += op_listed(c, &ops[i]);
    return k;
}

/* ------------------------------------------------------------------------------------------- */
/* Methods */

static const out_col method_cols[] = {
    {"method", "method", OUT_STR, 0},
    {"runs_base", "runs base", OUT_UINT, 0},
    {"runs_new", "runs new", OUT_UINT, 0},
    {"p50_base", "p50 base", OUT_FLOAT, 3},
    {"p50_new", "p50 new", OUT_FLOAT, 3},
    {"p50_delta", "Δp50", OUT_FLOAT, 3},
    {"p50_pct", "Δp50%", OUT_FLOAT, 2},
    {"total_delta", "Δtotal", OUT_FLOAT, 3},
    {"p_value", "p", OUT_FLOAT, -1},
    {"verdict", "verdict", OUT_STR, 0},
    {"gate", "gate", OUT_STR, 0},
    {"unit", "unit", OUT_STR, 0},
    {"cpu_share_base", "cpu% base", OUT_FLOAT, 1},
    {"cpu_share_new", "cpu% new", OUT_FLOAT, 1},
    {"partitions_base", "parts base", OUT_UINT, 0},
    {"partitions_new", "parts new", OUT_UINT, 0},
    {"match", "match", OUT_STR, 0},
};
#define N_METHOD_COLS (sizeof method_cols / sizeof method_cols[0])

static void method_table(const dctx *c, out_table *t, bool people) {
    for (size_t i = 0; i < etp_diff_method_count(c->d); i++) {
        const etp_diff_method *m = etp_diff_method_get(c->d, i);
        const etp_diff_cmp *l = &m->latency;
        const char *un;
        char b[48];
        out_row_begin(t);
        out_cell_str(t, dlabel(c, m));
        out_cell_uint(t, l->runs_base);
        out_cell_uint(t, l->runs_new);
        out_cell_float(t, conv(c, m->unit, l->p50_base, &un));
        out_cell_float(t, conv(c, m->unit, l->p50_new, &un));
        out_cell_float(t, conv(c, m->unit, l->p50_delta, &un));
        if (people) {
            fmt_pct(b, sizeof b, l->p50_pct);
            if (isnan(l->p50_pct)) out_cell_null(t);
            else out_cell_str(t, b);
        } else {
            out_cell_float(t, l->p50_pct);
        }
        out_cell_float(t, conv(c, m->unit, l->total_delta, &un));
        if (people) {
            fmt_p(b, sizeof b, l->p);
            if (isnan(l->p)) out_cell_null(t);
            else out_cell_str(t, b);
        } else {
            out_cell_float(t, l->p);
        }
        out_cell_str(t, etp_diff_verdict_name(l->verdict, m->unit));
        out_cell_str(t, etp_diff_outcome_name(l->gate.outcome));
        out_cell_str(t, unit_name(c, m->unit));
        out_cell_float(t, m->cpu_share_base);
        out_cell_float(t, m->cpu_share_new);
        out_cell_uint(t, m->partitions_base);
        out_cell_uint(t, m->partitions_new);
        out_cell_str(t, match_name(m));
        out_row_end(t);
    }
}

/* ------------------------------------------------------------------------------------------- */
/* JSON */

static void j_cmp(jw *w, const dctx *c, etp_unit u, const etp_diff_cmp *x) {
    const char *un;
    jw_key(w, "unit"); jw_str(w, unit_name(c, u));
    jw_key(w, "runs_base"); jw_uint(w, x->runs_base);
    jw_key(w, "runs_new"); jw_uint(w, x->runs_new);
    jw_key(w, "p50_base"); jw_double(w, conv(c, u, x->p50_base, &un));
    jw_key(w, "p50_new"); jw_double(w, conv(c, u, x->p50_new, &un));
    jw_key(w, "p50_delta"); jw_double(w, conv(c, u, x->p50_delta, &un));
    jw_key(w, "p50_pct"); jw_double(w, x->p50_pct);
    jw_key(w, "total_base"); jw_double(w, conv(c, u, x->total_base, &un));
    jw_key(w, "total_new"); jw_double(w, conv(c, u, x->total_new, &un));
    jw_key(w, "total_delta"); jw_double(w, conv(c, u, x->total_delta, &un));
    jw_key(w, "total_pct"); jw_double(w, x->total_pct);
    jw_key(w, "impact_per_run"); jw_double(w, conv(c, u, x->impact, &un));
    jw_key(w, "z"); jw_double(w, x->z);
    jw_key(w, "p_value"); jw_double(w, x->p);
    jw_key(w, "q_value"); jw_double(w, x->q);
    jw_key(w, "significant"); jw_bool(w, x->significant);
    jw_key(w, "verdict"); jw_str(w, etp_diff_verdict_name(x->verdict, u));
    char why[320];
    etp_diff_gate_text(&x->gate, why, sizeof why);
    jw_key(w, "gate"); jw_str(w, etp_diff_outcome_name(x->gate.outcome));
    jw_key(w, "gate_reason"); jw_str(w, why);
    jw_key(w, "min_p"); jw_double(w, x->gate.min_p);
}

static int write_json(const dctx *c, FILE *f) {
    const etp_diff_result *d = c->d;
    const etp_diff_summary *s = etp_diff_get_summary(d);
    jw w;
    jw_init(&w, f, true);
    jw_obj_begin(&w);
    jw_key(&w, "schema_version"); jw_int(&w, 1);
    const char *paths[2] = {c->base_path, c->new_path};
    const etp_ops_result *rs[2] = {c->rb, c->rn};
    const char *ptes[2] = {c->a->set[OPT_PTE] ? c->a->val[OPT_PTE] : NULL,
                           c->a->set[OPT_PTE_NEW] ? c->a->val[OPT_PTE_NEW]
                           : c->a->set[OPT_PTE]   ? c->a->val[OPT_PTE]
                                                  : NULL};
    for (int k = 0; k < 2; k++) {
        jw_key(&w, k ? "new" : "base");
        jw_obj_begin(&w);
        jw_key(&w, "file"); jw_str(&w, paths[k]);
        jw_key(&w, "program"); jw_str(&w, ptes[k]);
        jw_key(&w, "runs"); jw_uint(&w, etp_ops_runs_kept(rs[k]));
        jw_obj_end(&w);
    }
    jw_key(&w, "time_unit"); jw_str(&w, c->disp.time_unit);
    jw_key(&w, "threshold_pct"); jw_double(&w, c->threshold);
    jw_key(&w, "methods");
    jw_arr_begin(&w);
    for (size_t i = 0; i < etp_diff_method_count(d); i++) {
        const etp_diff_method *m = etp_diff_method_get(d, i);
        jw_obj_begin(&w);
        jw_key(&w, "method"); jw_str(&w, m->name);
        {
            const etp_ops_method *om = side_method(c, m);
            etp_ops_method none = {0};
            ana_json_method_candidates(&w, om ? om : &none);
        }
        jw_key(&w, "status");
        jw_str(&w, m->base < 0 ? "added" : m->new_ < 0 ? "removed" : "matched");
        jw_key(&w, "match"); jw_str(&w, match_name(m));
        j_cmp(&w, c, m->unit, &m->latency);
        jw_key(&w, "regressed"); jw_bool(&w, m->regressed);
        jw_key(&w, "cpu_share_base"); jw_double(&w, m->cpu_share_base);
        jw_key(&w, "cpu_share_new"); jw_double(&w, m->cpu_share_new);
        jw_key(&w, "delegate_share_base"); jw_double(&w, m->delegate_share_base);
        jw_key(&w, "delegate_share_new"); jw_double(&w, m->delegate_share_new);
        jw_key(&w, "partitions_base"); jw_uint(&w, m->partitions_base);
        jw_key(&w, "partitions_new"); jw_uint(&w, m->partitions_new);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    static const char *const keys[3] = {"ops", "added", "removed"};
    optab ot;
    optab_cols(c, &ot, false);
    for (int st = 0; st < 3; st++) {
        jw_key(&w, keys[st]);
        ot.t = out_table_new_in_json(&w, ot.cols, ot.ncols);
        if (!ot.t) return EXIT_INTERNAL;
        op_rows(c, &ot, (etp_diff_status)st);
        int rc = out_table_finish(ot.t);
        out_table_free(ot.t);
        if (rc) return rc == ETP_E_IO ? EXIT_IO : EXIT_INTERNAL;
        if (st == 0) {
            jw_key(&w, "placement_changes");
            jw_arr_begin(&w);
            for (size_t i = 0; i < etp_diff_placement_count(d); i++) {
                const etp_diff_placement *p = etp_diff_placement_get(d, i);
                const etp_diff_method *m = etp_diff_method_get(d, p->method);
                const char *un;
                jw_obj_begin(&w);
                jw_key(&w, "method"); jw_str(&w, m->name);
                jw_key(&w, "change"); jw_str(&w, etp_diff_move_name(p->move));
                jw_key(&w, "operator"); jw_str(&w, p->op);
                jw_key(&w, "from"); jw_str(&w, p->from);
                jw_key(&w, "to"); jw_str(&w, p->to);
                jw_key(&w, "base_count"); jw_uint(&w, p->base_count);
                jw_key(&w, "new_count"); jw_uint(&w, p->new_count);
                jw_key(&w, "base_nodes"); jw_uint(&w, p->base_nodes);
                jw_key(&w, "new_nodes"); jw_uint(&w, p->new_nodes);
                jw_key(&w, "evidence"); jw_str(&w, p->observed ? "observed" : "inferred");
                jw_key(&w, "base_per_run"); jw_double(&w, conv(c, m->unit, p->base_per_run, &un));
                jw_key(&w, "new_per_run"); jw_double(&w, conv(c, m->unit, p->new_per_run, &un));
                jw_key(&w, "unit"); jw_str(&w, un);
                jw_obj_end(&w);
            }
            jw_arr_end(&w);
        }
    }
    jw_key(&w, "verdict");
    jw_obj_begin(&w);
    jw_key(&w, "result"); jw_str(&w, etp_diff_result_name(d));
    jw_key(&w, "fail_on_regression_pct");
    if (c->fail_set) jw_double(&w, c->fail_pct);
    else jw_null(&w);
    jw_key(&w, "failed"); jw_bool(&w, s->methods_regressed > 0);
    jw_key(&w, "exit_code"); jw_int(&w, gate_exit(c));
    jw_key(&w, "gate"); jw_str(&w, etp_diff_outcome_name(s->gate.outcome));
    jw_key(&w, "gate_reason"); jw_str(&w, s->gate.reason);
    jw_key(&w, "allow_inconclusive"); jw_bool(&w, c->allow_inconclusive);
    jw_key(&w, "runs_needed"); jw_uint(&w, etp_mwu_runs_needed(c->o->alpha) > c->o->min_runs
                                                 ? etp_mwu_runs_needed(c->o->alpha)
                                                 : c->o->min_runs);
    jw_key(&w, "methods_inconclusive"); jw_uint(&w, s->methods_inconclusive);
    jw_key(&w, "methods_improved"); jw_uint(&w, s->methods_improved);
    jw_key(&w, "regressed_methods");
    jw_arr_begin(&w);
    for (size_t i = 0; i < etp_diff_method_count(d); i++)
        if (etp_diff_method_get(d, i)->regressed) jw_str(&w, etp_diff_method_get(d, i)->name);
    jw_arr_end(&w);
    jw_key(&w, "test"); jw_str(&w, "mann-whitney-u");
    jw_key(&w, "alpha"); jw_double(&w, c->o->alpha);
    jw_key(&w, "min_runs"); jw_uint(&w, c->o->min_runs);
    jw_key(&w, "no_change_pct"); jw_double(&w, c->o->no_change_pct);
    jw_key(&w, "match"); jw_str(&w, s->by_name ? "name" : "instruction");
    jw_key(&w, "methods"); jw_uint(&w, s->methods);
    jw_key(&w, "methods_slower"); jw_uint(&w, s->methods_slower);
    jw_key(&w, "methods_faster"); jw_uint(&w, s->methods_faster);
    jw_key(&w, "methods_too_few_runs"); jw_uint(&w, s->methods_too_few);
    jw_key(&w, "ops_matched"); jw_uint(&w, s->matched);
    jw_key(&w, "ops_slower"); jw_uint(&w, s->slower);
    jw_key(&w, "ops_faster"); jw_uint(&w, s->faster);
    jw_key(&w, "ops_noise"); jw_uint(&w, s->noise);
    jw_key(&w, "ops_no_change"); jw_uint(&w, s->no_change);
    jw_key(&w, "ops_too_few_runs"); jw_uint(&w, s->too_few);
    jw_key(&w, "ops_added"); jw_uint(&w, s->added);
    jw_key(&w, "ops_removed"); jw_uint(&w, s->removed);
    jw_key(&w, "ops_hidden"); jw_uint(&w, s->hidden);
    jw_key(&w, "placement_to_cpu"); jw_uint(&w, s->to_cpu);
    jw_key(&w, "placement_to_delegate"); jw_uint(&w, s->to_delegate);
    jw_key(&w, "partition_changes"); jw_uint(&w, s->partition_changes);
    jw_key(&w, "headline");
    jw_arr_begin(&w);
    headline(c, emit_json, &w);
    jw_arr_end(&w);
    jw_obj_end(&w);
    jw_key(&w, "notes");
    jw_arr_begin(&w);
    notes(c, emit_json, &w);
    jw_arr_end(&w);
    jw_obj_end(&w);
    fputc('\n', f);
    if (fflush(f) || jw_finish(&w)) return EXIT_IO;
    return EXIT_OK;
}

/* ------------------------------------------------------------------------------------------- */
/* table: headline, methods, operators, added, removed; md/csv/tsv/jsonl: operator rows */

static int write_table(const dctx *c, cli_out *o) {
    FILE *f = o->f;
    text_out to = {f, o->width};
    headline(c, emit_line, &to);
    fputc('\n', f);
    out_table *t = cli_table(c->a, o, method_cols, N_METHOD_COLS);
    /* a narrow terminal loses these first (out_table_set_droppable) */
    static const char *const mdrop[] = {
        "match:15", "partitions_base+partitions_new:14", "cpu_share_base+cpu_share_new:13",
        "total_delta:12", "p_value:11", "runs_base+runs_new:10", "gate:9", "p50_delta:8",
        "p50_base+p50_new+unit:2", "verdict:1", NULL};
    if (t) out_table_set_droppable(t, mdrop);
    if (!t) return EXIT_INTERNAL;
    method_table(c, t, true);
    int rc = out_table_finish(t);
    out_table_free(t);
    if (rc) return rc == ETP_E_IO ? EXIT_IO : EXIT_INTERNAL;
    static const char *const titles[3] = {"operators, by impact", "added (only in NEW)",
                                          "removed (only in BASE)"};
    for (int st = 0; st < 3; st++) {
        size_t n = count_listed(c, (etp_diff_status)st);
        if (st && !n) continue;
        if (st == 0 && c->top && n > c->top)
            fprintf(f, "\n%s (first %zu of %zu):\n", titles[st], c->top, n);
        else
            fprintf(f, "\n%s (%zu):\n", titles[st], n);
        optab ot;
        optab_cols(c, &ot, true);
        ot.t = cli_table(c->a, o, ot.cols, ot.ncols);
        static const char *const odrop[] = {
            "kind:9", "placement:8", "method:7", "q_value:6", "total_delta:5",
            "instruction_id:4", "p50_delta:3", "p50_base+p50_new+unit:2", "verdict:1", NULL};
        if (ot.t) out_table_set_droppable(ot.t, odrop);
        if (!ot.t) return EXIT_INTERNAL;
        op_rows(c, &ot, (etp_diff_status)st);
        rc = out_table_finish(ot.t);
        out_table_free(ot.t);
        if (rc) return rc == ETP_E_IO ? EXIT_IO : EXIT_INTERNAL;
    }
    notes(c, emit_note_line, &to);
    if (fflush(f) || ferror(f)) return EXIT_IO;
    return EXIT_OK;
}

static int write_rows(const dctx *c, cli_out *o) {
    optab ot;
    optab_cols(c, &ot, c->a->fmt == OUT_MD);
    ot.t = cli_table(c->a, o, ot.cols, ot.ncols);
    if (!ot.t) return EXIT_INTERNAL;
    for (int st = 0; st < 3; st++) op_rows(c, &ot, (etp_diff_status)st);
    if (c->a->fmt == OUT_MD) {
        headline(c, emit_note, ot.t);
        notes(c, emit_note, ot.t);
    }
    int rc = out_table_finish(ot.t);
    out_table_free(ot.t);
    if (rc) return rc == ETP_E_IO ? EXIT_IO : EXIT_INTERNAL;
    return EXIT_OK;
}

/* ------------------------------------------------------------------------------------------- */

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

    cli_inputs ib, in;
    if ((rc = cli_open_inputs(a, bp, &ib))) return rc;
    cli_args an = *a;
    if (a->set[OPT_PTE_NEW]) {
        an.set[OPT_PTE] = true;
        an.val[OPT_PTE] = a->val[OPT_PTE_NEW];
    }
    if ((rc = cli_open_inputs(&an, np, &in))) {
        cli_close_inputs(&ib);
        return rc;
    }
    dopts.programs_differ = ib.prog && in.prog && !same_file_bytes(&ib.pte_blob, &in.pte_blob);

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
    if (!rc) {
        oo.progress = progress_new;
        rc = etp_ops_compute(in.model, &oo, &rn, &err);
        cli_progress_end(a);
    }
    if (!rc) rc = etp_diff_compute(rb, rn, &dopts, &d, &err);
    if (rc) {
        cli_error(&err);
        rc = cli_exit_for(rc);
        goto done;
    }
    c.d = d;
    c.rb = rb;
    c.rn = rn;
    c.o = &dopts;
    cli_out o;
    if ((rc = cli_out_open(a, &o))) goto done;
    switch (a->fmt) {
    case OUT_JSON: rc = write_json(&c, o.f); break;
    case OUT_TABLE: rc = write_table(&c, &o); break;
    default: rc = write_rows(&c, &o); break;
    }
    if (rc && rc != EXIT_IO) cli_errorf("diff: out of memory"); /* cli_out_close reports EXIT_IO */
    rc = cli_out_close(&o, rc);
    if (!rc && c.fail_set && etp_diff_get_summary(d)->gate.outcome == ETP_DIFF_INCONCLUSIVE)
        cli_errorf("warning: diff: fail-on-regression %g%%: inconclusive%s: %s", c.fail_pct,
                   c.allow_inconclusive ? " (allowed by --allow-inconclusive, exit 0)"
                                        : " (exit 6)",
                   etp_diff_get_summary(d)->gate.reason);
    if (!rc) rc = gate_exit(&c);
done:
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
                                   OPT_TIME_UNIT,  OPT_NONE};

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
