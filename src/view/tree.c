/* tree.c - the tree document (include/etprof_tree.h): the hierarchy of each method's time,
 * per-run statistic, with inclusive/exclusive time, shares, overhead and the QNN nesting. The
 * command (src/cli/cmd_tree.c) and the Python binding render it. */
#include "etprof_tree.h"
#include "etprof_backend.h"
#include "etprof_etrecord.h"
#include "etprof_qnn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tree_ctx {
    etp_format fmt;
    const etp_ops_result *r;
    const etp_disp *d;
    const char *stat;
    size_t top;       /* HTP nodes listed per parent in table/md (0: all) */
    bool limit_nodes; /* table and md */
    etp_table *t;     /* table, md, csv, tsv, jsonl */
    uint32_t *scratch;
    uint32_t flags, units;
    bool wall;        /* an HTP clock is known: show the per-node wall-time estimate */
    size_t wall_rows; /* rows that got one */
    const struct etp_etrecord *rec; /* --etrecord (etp_etrecord_*_cells render its fields) */
    etp_etr_counts etr;
    bool etr_machine;
    const char **plab; /* each row's placement, an inferred backend named (NULL: the
                          placement) */
} tree_ctx;

static void doc_note_cb(void *ctx, const char *text) { etp_doc_note(ctx, text); }
static void note_cb(void *ctx, const char *text) { etp_table_note(ctx, text); }

static double stat_of(const tree_ctx *c, const etp_stats *s) {
    double v = NAN;
    etp_stats_pick(s, c->stat, &v);
    return v;
}

static bool is_time(etp_unit u) { return u == ETP_UNIT_NS || u == ETP_UNIT_TICKS; }

/* What the exclusive part of a node with children means. */
static const char *excl_meaning(const tree_ctx *c, const etp_ops_row *row) {
    (void)c;
    switch (row->kind) {
    case ETP_KIND_FRAMEWORK:
        return "unattributed: outside any profiled instruction";
    case ETP_KIND_OPERATOR_CALL: return "framework overhead (wrapper minus kernel)";
    case ETP_KIND_DELEGATE_CALL:
        return "delegate-call overhead (not timed by the backend)";
    default: break;
    }
    switch (etp_qnn_top_of(row->name)) {
    case ETP_QT_QNN_EXECUTE: return "host-side QNN outside RPC";
    case ETP_QT_RPC: return "FastRPC transport";
    case ETP_QT_QNN_ACCEL: return "DSP-side QNN outside the accelerator";
    case ETP_QT_ACCEL_US: return "not in its three parts";
    case ETP_QT_ACCEL_CYCLES: return "cycles in no HTP node";
    default: return "self time (no child scope)";
    }
}

static const char *role_of(const etp_ops_row *row, const etp_ops_row *parent) {
    if (row->htp_node) return "htp_node";
    if (!is_time(row->unit)) return "fact";
    if (parent && !is_time(parent->unit)) return "fact";
    return "time";
}

typedef struct node_key {
    double v;
    uint32_t pos, row;
} node_key;

/* Larger values first, NaN after every number, then the original position. */
static int cmp_node_key(const void *x, const void *y) {
    const node_key *a = x, *b = y;
    bool na = isnan(a->v), nb = isnan(b->v);
    if (na != nb) return na ? 1 : -1;
    if (!na && a->v != b->v) return a->v > b->v ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Children of `i` in display order: time children first, then facts; HTP nodes by the statistic,
 * largest first. Returns the count; fills c->scratch from `at`. */
static size_t ordered_children(tree_ctx *c, size_t i, uint32_t *out) {
    size_t n, m = 0;
    const uint32_t *kids = etp_ops_children(c->r, i, &n);
    for (int pass = 0; pass < 3; pass++)
        for (size_t k = 0; k < n; k++) {
            const etp_ops_row *row = etp_ops_row_get(c->r, kids[k]);
            int p = row->htp_node ? 2 : is_time(row->unit) ? 0 : 1;
            if (p == pass) out[m++] = kids[k];
        }
    /* sort the HTP nodes (a suffix) by the statistic, largest first, NaN last, equal ones in
     * their order (a stable sort): each node's value read once */
    size_t first = m;
    while (first > 0 && etp_ops_row_get(c->r, out[first - 1])->htp_node) first--;
    size_t nh = m - first;
    node_key *keys = nh > 1 ? malloc(nh * sizeof *keys) : NULL;
    if (keys) {
        for (size_t k = 0; k < nh; k++)
            keys[k] = (node_key){stat_of(c, &etp_ops_row_get(c->r, out[first + k])->stats),
                                 (uint32_t)k, out[first + k]};
        qsort(keys, nh, sizeof *keys, cmp_node_key);
        for (size_t k = 0; k < nh; k++) out[first + k] = keys[k].row;
        free(keys);
        return m;
    }
    /* out of memory: the same order by insertion */
    for (size_t x = first + 1; x < m; x++) {
        uint32_t v = out[x];
        double vx = stat_of(c, &etp_ops_row_get(c->r, v)->stats);
        size_t y = x;
        while (y > first) {
            double vy = stat_of(c, &etp_ops_row_get(c->r, out[y - 1])->stats);
            if (!(vx > vy) && !(isnan(vy) && !isnan(vx))) break;
            out[y] = out[y - 1];
            y--;
        }
        out[y] = v;
    }
    return m;
}

typedef struct node_vals {
    double incl, excl, share_parent, share_method;
    double wall; /* wall-time estimate in the display unit (NaN: none) */
    const char *unit;
    const char *role;
    const char *meaning;
} node_vals;

static void node_values(tree_ctx *c, size_t i, node_vals *nv) {
    const etp_ops_row *row = etp_ops_row_get(c->r, i);
    const etp_ops_row *parent = row->parent >= 0 ? etp_ops_row_get(c->r, (size_t)row->parent) : NULL;
    const etp_ops_method *m = etp_ops_method_get(c->r, row->method);
    const etp_ops_row *exec = m->exec_row >= 0 ? etp_ops_row_get(c->r, (size_t)m->exec_row) : NULL;
    double incl = stat_of(c, &row->stats);
    double excl = row->has_children_same_unit ? stat_of(c, &row->excl) : incl;
    nv->role = role_of(row, parent);
    nv->meaning = row->has_children_same_unit ? excl_meaning(c, row) : NULL;
    if (row->flags & ETP_MF_QTIMER) nv->meaning = "19.2 MHz ticks converted";
    if (etp_qnn_top_of(row->name) == ETP_QT_EXCL_WAIT)
        nv->meaning = "NPU compute wall time";
    if (row->parent_varies && !nv->meaning)
        nv->meaning = "enclosed by other events in some runs (no %parent)";
    nv->share_parent = nv->share_method = NAN;
    /* Shares are of totals over the runs, whatever --stat shows: the one definition every view
     * uses (summary's "% of Method::execute" and "% of accelerator cycles", the report's), not a
     * ratio of two medians. A parent that is not this row's in every run: no share of it. */
    if (parent && parent->unit == row->unit && !row->parent_varies) {
        double pv = parent->stats.total;
        if (pv > 0) nv->share_parent = row->stats.total / pv * 100.0;
    }
    if (exec && is_time(row->unit) && exec->unit == row->unit) {
        double ev = exec->stats.total;
        if (ev > 0) nv->share_method = row->stats.total / ev * 100.0;
    }
    nv->wall = NAN;
    if (c->wall) {
        double f = etp_qnn_wall_ns_per_cycle(c->r, i);
        nv->wall = incl * f / c->d->unit_ns;
        if (!isnan(f)) c->wall_rows++;
    }
    nv->incl = etp_disp_conv(c->d, row->unit, incl, &nv->unit);
    nv->excl = etp_disp_conv(c->d, row->unit, excl, &nv->unit);
    c->flags |= etp_disp_row_flags(row);
    c->units |= 1u << row->unit;
}

static void flat_row(tree_ctx *c, size_t i, const node_vals *nv, bool indent) {
    const etp_ops_row *row = etp_ops_row_get(c->r, i);
    const etp_ops_method *m = etp_ops_method_get(c->r, row->method);
    etp_table *t = c->t;
    etp_table_row(t);
    etp_table_str(t, m->name);
    etp_table_uint(t, row->depth);
    if (indent) {
        char b[1024];
        /* md collapses spaces: indent with no-break spaces (2 bytes each in UTF-8) there */
        bool md = c->fmt == ETP_FMT_MD;
        size_t depth = row->depth > 32 ? 32 : row->depth, pad = 0;
        for (size_t k = 0; k < 2 * depth; k++) {
            if (md) {
                b[pad++] = (char)0xC2;
                b[pad++] = (char)0xA0;
            } else {
                b[pad++] = ' ';
            }
        }
        const char *label = row->name;
        char tmp[600];
        if (row->kind == ETP_KIND_DELEGATE_CALL) {
            /* the text view names an inferred backend (issue 14.2) */
            snprintf(tmp, sizeof tmp, "DELEGATE_CALL [%s]", c->plab ? c->plab[i] : row->placement);
            label = tmp;
        } else if (row->kind == ETP_KIND_OPERATOR_CALL && row->op) {
            snprintf(tmp, sizeof tmp, "OPERATOR_CALL [%s]", row->op);
            label = tmp;
        }
        snprintf(b + pad, sizeof b - pad, "%s", label);
        etp_table_str(t, b);
    } else {
        etp_table_str(t, row->name);
    }
    if (row->chain >= 0 && row->instr >= 0) etp_table_int(t, row->instr);
    else etp_table_null(t);
    etp_table_str(t, etp_ops_row_kind_name(row));
    etp_table_str(t, c->plab ? c->plab[i] : row->placement);
    etp_table_uint(t, row->count);
    etp_table_float(t, nv->incl);
    etp_table_float(t, strcmp(nv->role, "time") == 0 || row->has_children_same_unit ? nv->excl : NAN);
    if (indent && c->limit_nodes && c->plab && etp_backend_row_device_clock(c->r, i)) {
        char du[64];
        snprintf(du, sizeof du, "%s (device clock)", nv->unit ? nv->unit : "");
        etp_table_str(t, du);
    } else etp_table_str(t, nv->unit);
    etp_table_float(t, nv->share_parent);
    etp_table_float(t, nv->share_method);
    etp_table_str(t, nv->role);
    etp_table_str(t, nv->meaning);
    if (c->wall) {
        etp_table_float(t, nv->wall);
        etp_table_str(t, isnan(nv->wall) ? NULL : c->d->est_unit);
    }
    if (c->rec) etp_etrecord_table_cells(t, c->rec, m->name, row, c->etr_machine, &c->etr);
}

static void walk_flat(tree_ctx *c, size_t i, uint32_t *buf, bool indent) {
    node_vals nv;
    node_values(c, i, &nv);
    flat_row(c, i, &nv, indent);
    size_t n = ordered_children(c, i, buf);
    size_t shown = 0, hidden = 0;
    for (size_t k = 0; k < n; k++) {
        const etp_ops_row *row = etp_ops_row_get(c->r, buf[k]);
        if (row->htp_node && c->limit_nodes && c->top && shown >= c->top) {
            hidden++;
            continue;
        }
        if (row->htp_node) shown++;
        walk_flat(c, buf[k], buf + n, indent);
    }
    if (hidden) {
        const etp_ops_row *row = etp_ops_row_get(c->r, i);
        char b[200];
        snprintf(b, sizeof b, "%*s... %zu more HTP nodes (etprof ops --kind htp_node)",
                 (int)((row->depth + 1) * 2 > 64 ? 64 : (row->depth + 1) * 2), "", hidden);
        etp_table_row(c->t); /* the other cells are null */
        etp_table_str(c->t, etp_ops_method_get(c->r, row->method)->name);
        etp_table_uint(c->t, row->depth + 1);
        etp_table_str(c->t, b);
    }
}

/* Node `i` and its children (in display order) as a JSON object in array `parent`. */
static void json_node(tree_ctx *c, etp_node *parent, size_t i, uint32_t *buf) {
    const etp_ops_row *row = etp_ops_row_get(c->r, i);
    node_vals nv;
    node_values(c, i, &nv);
    etp_node *o = etp_node_obj(parent, NULL);
    etp_node_str(o, "name", row->name);
    etp_node_str(o, "kind", etp_ops_row_kind_name(row));
    etp_node_str(o, "placement", c->plab ? c->plab[i] : row->placement);
    if (row->chain >= 0 && row->instr >= 0) etp_node_int(o, "instruction_id", row->instr);
    else etp_node_null(o, "instruction_id");
    etp_node_str(o, "operator", row->op);
    etp_node_uint(o, "count", row->count);
    etp_node_uint(o, "runs", row->runs);
    etp_node_str(o, "role", nv.role);
    etp_node_str(o, "unit", nv.unit);
    etp_node_float(o, "inclusive", nv.incl);
    etp_node_float(o, "exclusive",
                   strcmp(nv.role, "time") == 0 || row->has_children_same_unit ? nv.excl : NAN);
    if (row->has_children_same_unit) etp_node_float(o, "overhead", nv.excl);
    else etp_node_null(o, "overhead");
    etp_node_float(o, "share_of_parent", nv.share_parent);
    etp_node_float(o, "share_of_method", nv.share_method);
    etp_node_str(o, "meaning", nv.meaning);
    if (c->wall) {
        etp_node_float(o, "wall_estimate", nv.wall);
        etp_node_str(o, "wall_estimate_unit", isnan(nv.wall) ? NULL : c->d->est_unit);
    }
    if (c->rec) etp_etrecord_node_cells(o, c->rec, etp_ops_method_get(c->r, row->method)->name, row, &c->etr);
    etp_node *kids = etp_node_arr(o, "children");
    size_t n = ordered_children(c, i, buf);
    for (size_t k = 0; k < n; k++) json_node(c, kids, buf[k], buf + n);
}

static const etp_col tree_cols[] = {
    {"method", "method", NULL, ETP_T_STR, true, 0},
    {"depth", "depth", NULL, ETP_T_UINT, false, 0},
    {"name", "node", NULL, ETP_T_STR, false, 0},
    {"instruction_id", "instr", NULL, ETP_T_INT, true, 0},
    {"kind", "kind", NULL, ETP_T_STR, true, 0},
    {"placement", "placement", NULL, ETP_T_STR, true, 0},
    {"count", "count", NULL, ETP_T_UINT, true, 0},
    {"inclusive", "inclusive", NULL, ETP_T_FLOAT, true, 3},
    {"exclusive", "exclusive", NULL, ETP_T_FLOAT, true, 3},
    {"unit", "unit", NULL, ETP_T_STR, true, 0},
    {"share_of_parent", "%parent", NULL, ETP_T_FLOAT, true, 2},
    {"share_of_method", "%method", NULL, ETP_T_FLOAT, true, 2},
    {"role", "role", NULL, ETP_T_STR, true, 0},
    {"meaning", "exclusive means / note", NULL, ETP_T_STR, true, 0},
    /* only with an HTP clock (--htp-clock-ghz, --runtrace, --qhas) */
    {"wall_estimate", "wall est", NULL, ETP_T_FLOAT, true, 3},
    {"wall_estimate_unit", "wall est unit", NULL, ETP_T_STR, true, 0},
};
#define NCOLS (sizeof tree_cols / sizeof tree_cols[0])
#define NWALL 2

int etp_tree_doc(etp_doc *doc, const etp_ops_result *r, const etp_tree_opts *o, etp_error *err) {
    if (!doc || !r || !o || !o->disp) {
        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL, "tree: missing document, result or options");
        return ETP_E_USAGE;
    }
    const char *stat = o->stat ? o->stat : "p50";
    etp_stats probe = {0};
    double dummy;
    if (!etp_stats_pick(&probe, stat, &dummy) || strcmp(stat, "total") == 0) {
        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL,
                      "tree: --stat: expected min, p10, p50, p90, avg or max, got \"%s\"", stat);
        return ETP_E_USAGE;
    }
    const etp_disp d = *o->disp;
    double clock = o->clock_ghz > 0 ? o->clock_ghz : NAN;
    const char *clock_src = o->clock_src;
    bool est = !isnan(clock);
    const struct etp_etrecord *rec = o->rec;
    etp_format fmt = o->fmt;
    size_t nrows = etp_ops_row_count(r);
    /* children buffers nest: depth <= nrows, total use <= 2 * nrows */
    uint32_t *buf = malloc((2 * nrows + 2) * sizeof *buf);
    if (!buf) {
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "tree: out of memory");
        return ETP_E_INTERNAL;
    }
    tree_ctx c = {.fmt = fmt, .r = r, .d = &d, .stat = stat, .top = o->top,
                  .limit_nodes = fmt == ETP_FMT_TABLE || fmt == ETP_FMT_MD, .wall = est,
                  .rec = rec, .etr_machine = fmt != ETP_FMT_TABLE && fmt != ETP_FMT_MD};
    /* every format names an inferred backend as the other views do; without memory: the
     * placement */
    c.plab = malloc((nrows + 1) * sizeof *c.plab);
    if (c.plab && etp_backend_placement_labels(r, c.plab) != ETP_OK) {
        free(c.plab);
        c.plab = NULL;
    }
    size_t nroots;
    const uint32_t *roots = etp_ops_children(r, SIZE_MAX, &nroots);
    if (fmt == ETP_FMT_JSON) {
        /* {schema_version, file, program, stat, time_unit, methods: [{..., roots: [node with
         * children]}], notes, data_quality} */
        etp_node *root = etp_doc_root(doc);
        etp_node_str(root, "stat", stat);
        etp_node_str(root, "time_unit", d.time_unit);
        etp_node *ma = etp_node_arr(root, "methods");
        for (size_t mi = 0; mi < etp_ops_method_count(r); mi++) {
            const etp_ops_method *m = etp_ops_method_get(r, mi);
            etp_node *mo = etp_node_obj(ma, NULL);
            etp_node_str(mo, "name", m->name);
            etp_fig_method_candidates(mo, m);
            etp_node_uint(mo, "runs", m->runs);
            etp_node_uint(mo, "skipped_runs", m->skipped);
            etp_node *ra = etp_node_arr(mo, "roots");
            for (size_t k = 0; k < nroots; k++)
                if (etp_ops_row_get(r, roots[k])->method == mi) json_node(&c, ra, roots[k], buf);
        }
        etp_doc_notes_here(doc);
        etp_doc_note(doc, "inclusive/exclusive are the chosen per-run statistic of each node's "
                          "per-run sum and of its per-run exclusive part (the sum minus its "
                          "children of the same unit); facts are values in other units hung under "
                          "their scope");
        if (est) {
            char b[400];
            snprintf(b, sizeof b,
                     "%s: an ESTIMATE, cycles / %.4g GHz (%s); thread-aggregate busy time, not "
                     "latency",
                     d.est_unit, clock, etp_qnn_clock_meaning(clock_src));
            etp_doc_note(doc, b);
            etp_doc_note(doc, "wall_estimate: an ESTIMATE of an HTP node's wall time = its cycles "
                              "x its partition's Accelerator (execute excluding wait) time / "
                              "Accelerator (execute) time (cycles) (totals over the runs): the NPU "
                              "compute wall time apportioned by cycle share");
        }
        etp_quality_notes(r, doc_note_cb, doc);
        etp_etrecord_notes(rec, &c.etr, doc_note_cb, doc);
        etp_etrecord_missing_note(rec, r, doc_note_cb, doc);
        etp_fig_quality(root, "data_quality", r);
    } else {
        etp_col cols[NCOLS + ETP_ETR_MAX_COLS];
        memcpy(cols, tree_cols, sizeof tree_cols);
        cols[7].precision = cols[8].precision = d.precision;
        cols[NCOLS - 2].precision = d.precision;
        size_t ncols = est ? NCOLS : NCOLS - NWALL;
        if (rec) ncols = etp_etrecord_cols(cols, ncols, c.etr_machine);
        etp_table *t = etp_doc_table(doc, cols, ncols);
        static const char *const droppable[] = {
            "role:14", "depth:13", "instruction_id:12", "kind:11", "count:10",
            "share_of_parent:9", "meaning:8", "method:7", "placement:6",
            "wall_estimate+wall_estimate_unit:5", "share_of_method:4", "exclusive:3", NULL};
        etp_table_droppable(t, droppable);
        etp_section_table(etp_doc_section(doc, "tree"), t);
        etp_doc_flat(doc, t);
        c.t = t;
        bool indent = fmt == ETP_FMT_TABLE || fmt == ETP_FMT_MD;
        for (size_t k = 0; t && k < nroots; k++) walk_flat(&c, roots[k], buf, indent);
        if (t && (fmt == ETP_FMT_TABLE || fmt == ETP_FMT_MD)) {
            char b[512];
            for (size_t mi = 0; mi < etp_ops_method_count(r); mi++) {
                const etp_ops_method *m = etp_ops_method_get(r, mi);
                char lb[600];
                snprintf(b, sizeof b,
                         "%s: %u run(s)%s; each number is the %s over runs of the node's "
                         "per-run value",
                         m->name ? m->name
                         : m->n_candidates ? etp_method_label(m, lb, sizeof lb)
                                           : "(method unknown: no --pte)",
                         m->runs,
                         m->skipped ? " after --skip-first" : "", stat);
                etp_table_note(t, b);
            }
            etp_table_note(t, "exclusive = the node minus its children of the same unit (per "
                              "run); facts (role fact/htp_node) are values in other units hung "
                              "under their scope, they do not add to time");
            if (est && clock_src && strcmp(clock_src, "htp-clock-ghz") != 0) {
                /* the clock came from a QNN file: say so instead of naming --htp-clock-ghz */
                etp_disp dn = d;
                dn.htp_ghz = 0;
                etp_disp_unit_notes(&dn, c.flags, c.units, note_cb, t);
                if (c.units & (1u << ETP_UNIT_CYCLES)) {
                    snprintf(b, sizeof b,
                             "%s: an ESTIMATE, cycles / %.4g GHz (%s); thread-aggregate busy "
                             "time, not latency",
                             d.est_unit, clock, etp_qnn_clock_meaning(clock_src));
                    etp_table_note(t, b);
                }
            } else {
                etp_disp_unit_notes(&d, c.flags, c.units, note_cb, t);
            }
            etp_quality_notes(r, note_cb, t);
            if (o->model) etp_backend_notes(o->model, r, note_cb, t); /* issue 14.2 */
            etp_etrecord_notes(rec, &c.etr, note_cb, t);
            etp_etrecord_missing_note(rec, r, note_cb, t);
            if (est && c.wall_rows)
                etp_table_note(t, "wall est: an ESTIMATE of an HTP node's wall time = its cycles "
                                  "x its partition's Accelerator (execute excluding wait) time / "
                                  "Accelerator (execute) time (cycles) (totals over the runs): "
                                  "the NPU compute wall time apportioned by cycle share");
        }
    }
    free(c.plab);
    free(buf);
    if (!etp_doc_ok(doc)) {
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "tree: out of memory");
        return ETP_E_INTERNAL;
    }
    return ETP_OK;
}
