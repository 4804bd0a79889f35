/* cmd_modules.c - `etprof modules RUN.etdp --pte P --etrecord R`: time per nn.Module
 * (etp_modules_compute, include/etprof_modules.h; docs/analyses.md "Time per nn.Module"). */
#include "cli_ana.h"
#include "etprof_etrecord.h"
#include "etprof_modules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How to produce an ETRecord (ExecuTorch's export APIs; docs/cli.md "modules"). */
#define CLI_ETRECORD_HOWTO                                                                      \
    "export with generate_etrecord=True (to_edge_transform_and_lower(..., "                     \
    "generate_etrecord=True), to_edge(..., generate_etrecord=True) or executorch.export), "    \
    "then save it with get_etrecord().save(PATH) on the program manager after to_executorch(); " \
    "older releases: executorch.devtools.generate_etrecord(PATH, edge_program_copy, "           \
    "executorch_program)"

static const etp_col mod_cols[] = {
    {"method", "method", NULL, ETP_T_STR, true, 0},
    {"domain", "domain", NULL, ETP_T_STR, false, 0},
    {"depth", "depth", NULL, ETP_T_UINT, false, 0},
    {"module", "module", NULL, ETP_T_STR, false, 0},
    {"class", "class", NULL, ETP_T_STR, true, 0},
    {"inclusive", "inclusive", NULL, ETP_T_FLOAT, false, 3},
    {"exclusive", "exclusive", NULL, ETP_T_FLOAT, false, 3},
    {"share", "share%", NULL, ETP_T_FLOAT, true, 2},
    {"count", "count", NULL, ETP_T_UINT, false, 0},
    {"count_exclusive", "count excl", NULL, ETP_T_UINT, false, 0},
    {"unit", "unit", NULL, ETP_T_STR, false, 0},
};
#define NCOLS (sizeof mod_cols / sizeof mod_cols[0])
#define NO_MODULE "(no module)"

static void note_cb(void *ctx, const char *text) { etp_table_note(ctx, text); }
static void doc_note_cb(void *ctx, const char *text) { etp_doc_note(ctx, text); }

/* The path as shown: "" is the root module */
static const char *shown_path(const etp_module_row *r) {
    if (r->no_module) return NO_MODULE;
    return r->path[0] ? r->path : "(root)";
}

/* Row `i` and its children as JSON objects in `arr`; returns the next row after its subtree. */
static size_t json_row(const etp_modules *m, size_t i, etp_node *arr, const etp_disp *d) {
    const etp_module_row *r = etp_modules_row_get(m, i);
    const char *un;
    etp_node *o = etp_node_obj(arr, NULL);
    etp_node_str(o, "module", r->no_module ? NO_MODULE : r->path);
    etp_node_str(o, "class", r->cls);
    etp_node_bool(o, "no_module", r->no_module);
    etp_node_float(o, "inclusive", etp_disp_conv(d, r->unit, r->inclusive, &un));
    etp_node_float(o, "exclusive", etp_disp_conv(d, r->unit, r->exclusive, &un));
    etp_node_str(o, "unit", un);
    etp_node_float(o, "share", r->share);
    etp_node_uint(o, "count", r->count);
    etp_node_uint(o, "count_exclusive", r->count_exclusive);
    etp_node *kids = etp_node_arr(o, "children");
    size_t k = i + 1;
    while (k < etp_modules_row_count(m) && etp_modules_row_get(m, k)->parent == (int32_t)i)
        k = json_row(m, k, kids, d);
    return k;
}

static void notes(const etp_modules *mods, const etp_etrecord *rec, bool filtered,
                  void (*note)(void *, const char *), void *ctx) {
    char b[640];
    const etp_modules_joins *j = etp_modules_join_counts(mods);
    etp_etr_counts st = {j->rows, j->matched, j->htp_rows, j->htp_matched};
    if (etp_etrecord_mismatch_note(rec, &st, b, sizeof b) > 0) note(ctx, b);
    snprintf(b, sizeof b,
             "ETRecord %s: %llu of %llu instruction rows joined to edge-program nodes "
             "(framework rows are never joined)",
             etp_etrecord_path(rec), (unsigned long long)j->matched,
             (unsigned long long)j->rows);
    note(ctx, b);
    if (j->htp_rows) {
        snprintf(b, sizeof b,
                 "QNN: %llu of %llu HTP node rows matched an edge-program node by name (the QNN "
                 "op name is the fx node name, QNN's suffixes removed)",
                 (unsigned long long)j->htp_matched, (unsigned long long)j->htp_rows);
        note(ctx, b);
    }
    note(ctx, "inclusive/exclusive: totals over the runs of each row's EXCLUSIVE value (its "
              "time minus its children of the same unit), so a DELEGATE_CALL and the events "
              "inside it are never counted twice (the Inspector's find_total_for_module adds "
              "both); share% = inclusive / the domain's total; count = profiling rows (ops, HTP "
              "nodes) attributed to the module or below");
    note(ctx, "a row's module: the innermost nn.Module all its edge-program nodes share; backend "
              "events the record does not map take their DELEGATE_CALL's; rows no module claims "
              "(framework time, unmapped rows, nodes without nn_module_stack) are \"" NO_MODULE
              "\"");
    bool htp = false;
    for (size_t i = 0; i < etp_modules_domain_count(mods); i++)
        htp |= etp_modules_domain_get(mods, i)->domain == ETP_MOD_HTP;
    if (htp)
        note(ctx, "domain htp_cycles: QNN HTP node cycles, thread-aggregate WORK (a work share, not "
                  "latency), never added to host time (domain time)");
    if (filtered)
        note(ctx, "--module: only that module and the modules below it; share% stays of the "
                  "whole domain");
}

static int run_modules(cli_args *a) {
    if (!a->set[OPT_ETRECORD]) {
        cli_errorf("modules: --etrecord F is required: the nn.Module of each operator comes from "
                   "the program's ETRecord; to produce one, " CLI_ETRECORD_HOWTO);
        return EXIT_USAGE;
    }
    const char *path = a->pos[0];
    cli_ana ca;
    int rc = cli_ana_init(a, "modules", 0, 0, &ca);
    if (rc) return rc;
    etp_disp d = ca.d;
    etp_etrecord *rec;
    if ((rc = cli_etr_open(a, &rec))) return rc;
    if ((rc = cli_ana_compute(a, path, &ca))) {
        etp_etrecord_close(rec);
        return rc;
    }
    d.tick_ns = ca.d.tick_ns; /* the dump's default tick rate is known once it is open */
    etp_modules_opts mo = {.module = a->set[OPT_MODULE] ? a->val[OPT_MODULE] : NULL};
    etp_modules *mods = NULL;
    etp_error err = {0};
    if ((rc = etp_modules_compute(ca.r, rec, &mo, &mods, &err))) {
        cli_error(&err);
        etp_etrecord_close(rec);
        cli_ana_close(&ca);
        return cli_exit_for(rc);
    }
    uint32_t *scratch;
    cli_out o;
    if ((rc = cli_ana_output(a, &ca, 1, &scratch, &o))) {
        etp_modules_free(mods);
        etp_etrecord_close(rec);
        return rc;
    }
    etp_ops_result *r = ca.r;
    etp_doc *doc = etp_doc_new("modules", 1, path, a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL);
    size_t nrows = etp_modules_row_count(mods);
    uint32_t units = 0;
    for (size_t i = 0; i < etp_modules_domain_count(mods); i++)
        units |= 1u << etp_modules_domain_get(mods, i)->unit;
    if (a->fmt == ETP_FMT_JSON) {
        /* {schema_version, file, program, etrecord, time_unit, domains: [{method, domain, unit,
         * runs, total, rows, rows_module, modules: [tree]}], joins, notes} */
        etp_node *root = etp_doc_root(doc);
        etp_node_str(root, "etrecord", etp_etrecord_path(rec));
        etp_node_str(root, "time_unit", d.time_unit);
        etp_node *da = etp_node_arr(root, "domains");
        for (size_t di = 0; di < etp_modules_domain_count(mods); di++) {
            const etp_modules_domain *dm = etp_modules_domain_get(mods, di);
            const char *un;
            etp_node *o2 = etp_node_obj(da, NULL);
            etp_node_str(o2, "method", etp_ops_method_get(r, dm->method)->name);
            etp_node_str(o2, "domain", etp_mod_domain_name(dm->domain));
            double tot = etp_disp_conv(&d, dm->unit, dm->total, &un);
            etp_node_str(o2, "unit", un);
            etp_node_uint(o2, "runs", dm->runs);
            etp_node_float(o2, "total", tot);
            etp_node_uint(o2, "rows", dm->rows);
            etp_node_uint(o2, "rows_module", dm->rows_module);
            etp_node *ma = etp_node_arr(o2, "modules");
            for (size_t i = 0; i < nrows;) {
                const etp_module_row *mr = etp_modules_row_get(mods, i);
                if (mr->domain != di || mr->parent >= 0) {
                    i++;
                    continue;
                }
                i = json_row(mods, i, ma, &d);
            }
        }
        const etp_modules_joins *j = etp_modules_join_counts(mods);
        etp_node *jo = etp_node_obj(root, "joins");
        etp_node_uint(jo, "rows", j->rows);
        etp_node_uint(jo, "rows_matched", j->matched);
        etp_node_uint(jo, "htp_rows", j->htp_rows);
        etp_node_uint(jo, "htp_rows_matched", j->htp_matched);
        etp_doc_notes_here(doc);
        notes(mods, rec, mo.module != NULL, doc_note_cb, doc);
        etp_disp_unit_notes(&d, 0, units, doc_note_cb, doc);
    } else {
        etp_col cols[NCOLS];
        memcpy(cols, mod_cols, sizeof cols);
        cols[5].precision = cols[6].precision = d.precision;
        etp_table *t = etp_doc_table(doc, cols, NCOLS);
        static const char *const droppable[] = {"count_exclusive:6", "depth:5", "class:4",
                                                "method:3", "domain:2", "exclusive:1", NULL};
        etp_table_droppable(t, droppable);
        etp_section_table(etp_doc_section(doc, "modules"), t);
        etp_doc_flat(doc, t);
        bool text = a->fmt == ETP_FMT_TABLE || a->fmt == ETP_FMT_MD;
        for (size_t i = 0; t && i < nrows; i++) {
            const etp_module_row *mr = etp_modules_row_get(mods, i);
            const etp_modules_domain *dm = etp_modules_domain_get(mods, mr->domain);
            const char *un;
            char lb[600];
            const etp_ops_method *m = etp_ops_method_get(r, dm->method);
            etp_table_row(t);
            etp_table_str(t, text ? etp_method_label(m, lb, sizeof lb) : m->name);
            etp_table_str(t, etp_mod_domain_name(dm->domain));
            etp_table_uint(t, mr->depth);
            if (text) {
                char *ind = malloc(strlen(shown_path(mr)) + 2 * (mr->depth > 32 ? 32 : mr->depth) + 1);
                if (ind) sprintf(ind, "%*s%s", (int)(2 * (mr->depth > 32 ? 32 : mr->depth)), "",
                                 shown_path(mr));
                etp_table_str(t, ind ? ind : shown_path(mr));
                free(ind);
            } else {
                etp_table_str(t, mr->no_module ? NO_MODULE : mr->path);
            }
            etp_table_str(t, mr->cls);
            /* cycles are whole numbers: no decimals (time: --time-unit's precision) */
            int prec = mr->unit == ETP_UNIT_CYCLES ? 0 : d.precision;
            etp_table_float_prec(t, etp_disp_conv(&d, mr->unit, mr->inclusive, &un), prec);
            etp_table_float_prec(t, etp_disp_conv(&d, mr->unit, mr->exclusive, &un), prec);
            etp_table_float(t, mr->share);
            etp_table_uint(t, mr->count);
            etp_table_uint(t, mr->count_exclusive);
            etp_table_str(t, un);
        }
        if (t && (text || a->fmt == ETP_FMT_JSON)) {
            notes(mods, rec, mo.module != NULL, note_cb, t);
            etp_disp_unit_notes(&d, 0, units, note_cb, t);
        }
    }
    if (etp_doc_ok(doc)) {
        rc = cli_render(a, &o, doc);
    } else {
        cli_errorf("modules: out of memory");
        rc = EXIT_INTERNAL;
    }
    etp_doc_free(doc);
    free(scratch);
    etp_modules_free(mods);
    etp_etrecord_close(rec);
    cli_ana_close(&ca);
    return cli_out_close(&o, rc);
}

static const opt_id modules_opts[] = {OPT_PTE,       OPT_METHOD,   OPT_IGNORE_MISMATCH,
                                      OPT_TICK_NS,   OPT_TICK_HZ,  OPT_TICKS,
                                      OPT_BLOCK,     OPT_SKIP_FIRST, OPT_TIME_UNIT,
                                      OPT_ETRECORD,  OPT_MODULE,   OPT_NONE};

const cli_cmd cmd_modules = {
    .name = "modules",
    .summary = "time per nn.Module (needs --etrecord): inclusive, exclusive, share, count, unit",
    .usage = "FILE --pte P --etrecord R [--module NAME]",
    .help = "The profiling rows of `ops` attributed to the nn.Module hierarchy of the program's\n"
            "ETRecord (nn_module_stack of its edge-program nodes): per module its inclusive and\n"
            "exclusive totals over the runs, share of the domain, and how many rows (ops, HTP\n"
            "nodes) it holds. Each row adds its EXCLUSIVE value (minus its children of the same\n"
            "unit), so a DELEGATE_CALL is never counted with the events inside it. Host time\n"
            "(CPU kernels, XNNPACK, delegate calls) and QNN HTP cycles (work share) are separate\n"
            "domains, never added. Rows no module claims go to \"(no module)\". QNN HTP nodes\n"
            "join by name (the note says how many matched). Table: an indented tree; JSON:\n"
            "nested; csv/tsv/jsonl: flat rows with depth. --module NAME keeps that module and\n"
            "those below it. Without --etrecord: exit 2 with how to produce one. See\n"
            "docs/analyses.md \"Time per nn.Module\".",
    .opts = modules_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_modules,
};
