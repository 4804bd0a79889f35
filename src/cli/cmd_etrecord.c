/* cmd_etrecord.c - rendering of ETRecords: `etprof info R.etrecord` and the --etrecord columns of
 * ops and tree (docs/cli.md). Reading and joining are library code (etprof_etrecord.h). */
#include "cli.h"
#include "etprof_etrecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cli_is_zip(const char *path) {
    if (!path || strcmp(path, "-") == 0) return false;
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    unsigned char h[4] = {0};
    size_t n = fread(h, 1, 4, f);
    fclose(f);
    return n == 4 && h[0] == 'P' && h[1] == 'K' &&
           ((h[2] == 3 && h[3] == 4) || (h[2] == 5 && h[3] == 6));
}

int cli_etr_open(cli_args *a, etp_etrecord **rec) {
    *rec = NULL;
    if (!a->set[OPT_ETRECORD]) return EXIT_OK;
    etp_error err = {0};
    int rc = etp_etrecord_open(rec, a->val[OPT_ETRECORD], NULL, &err);
    if (rc) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    return EXIT_OK;
}

size_t cli_etr_cols(etp_col *cols, size_t n, bool machine) {
    return etp_etrecord_cols(cols, n, machine);
}

/* The cells of one row (etp_etrecord_row_cells: the library's one definition). */
static size_t row_cells(const etp_etrecord *rec, const char *method, const etp_ops_row *row,
                        bool machine, cli_etr_stats *st, etp_etr_join *j, const char *v[6],
                        char **hbuf) {
    return etp_etrecord_row_cells(rec, method, row, machine, st, j, v, hbuf);
}

void cli_etr_cells(etp_table *t, const etp_etrecord *rec, const char *method,
                   const etp_ops_row *row, bool machine, cli_etr_stats *st) {
    etp_etrecord_table_cells(t, rec, method, row, machine, st);
}

void cli_etr_node(etp_node *n, const etp_etrecord *rec, const char *method, const etp_ops_row *row,
                  cli_etr_stats *st) {
    etp_etrecord_node_cells(n, rec, method, row, st);
}

static const etp_col etr_short_cols[] = {
    {"module", "module", NULL, ETP_T_STR, true, 0},
    {"source", "source", NULL, ETP_T_STR, true, 0},
};

size_t cli_etr_short_cols(etp_col *cols, size_t n) {
    memcpy(cols + n, etr_short_cols, sizeof etr_short_cols);
    return n + CLI_ETR_SHORT_COLS;
}

void cli_etr_short_cells(etp_table *t, const etp_etrecord *rec, const char *method,
                         const etp_ops_row *row, cli_etr_stats *st) {
    etp_etr_join j;
    const char *v[6];
    char *h;
    row_cells(rec, method, row, false, st, &j, v, &h);
    etp_table_str(t, v[1]);
    etp_table_str(t, v[3]);
    free(h);
    etp_etrecord_join_free(&j);
}

char *cli_etr_where(const etp_etrecord *rec, const char *method, const etp_ops_row *row,
                    cli_etr_stats *st) {
    return etp_etrecord_where(rec, method, row, st);
}

void cli_etr_notes(const etp_etrecord *rec, const cli_etr_stats *st,
                   void (*note)(void *, const char *), void *ctx) {
    etp_etrecord_notes(rec, st, note, ctx);
}

void cli_etr_missing_note(const etp_etrecord *rec, const etp_ops_result *r,
                          void (*note)(void *, const char *), void *ctx) {
    etp_etrecord_missing_note(rec, r, note, ctx);
}

/* ---- etprof info R.etrecord ---- */

static void node_facts(etp_node *o, const etp_etr_node *n) {
    etp_node_str(o, "name", n->name);
    etp_node_str(o, "op", n->op);
    etp_node_str(o, "target", n->target);
    if (n->debug_handle >= 0) etp_node_int(o, "debug_handle", n->debug_handle);
    else etp_node_null(o, "debug_handle");
    etp_node_str(o, "stack_trace", n->stack_trace);
    etp_node_str(o, "source_fn_stack", n->source_fn_stack);
    etp_node *ms = etp_node_arr(o, "nn_module_stack");
    for (uint32_t i = 0; i < n->n_modules; i++) {
        etp_node *m = etp_node_obj(ms, NULL);
        etp_node_str(m, "key", n->modules[i].key);
        etp_node_str(m, "fqn", n->modules[i].fqn);
        etp_node_str(m, "type", n->modules[i].type);
    }
    if (n->dtype >= 0) etp_node_int(o, "dtype", n->dtype);
    else etp_node_null(o, "dtype");
    if (n->ndim >= 0) {
        etp_node *sz = etp_node_arr(o, "sizes");
        for (int32_t i = 0; i < n->ndim; i++) etp_node_int(sz, NULL, n->sizes[i]);
    } else {
        etp_node_null(o, "sizes");
    }
}

/* The JSON view: the record's entries, programs with their nodes, methods and what was skipped. */
static void etrecord_facts(etp_doc *doc, const etp_etrecord *r) {
    uint32_t ne = etp_etrecord_entry_count(r), np = etp_etrecord_program_count(r);
    etp_node *root = etp_doc_root(doc);
    etp_node_str(root, "kind", "etrecord");
    etp_node *ea = etp_node_arr(root, "entries");
    for (uint32_t i = 0; i < ne; i++) {
        const etp_etr_entry *e = etp_etrecord_entry(r, i);
        etp_node *o = etp_node_obj(ea, NULL);
        etp_node_str(o, "name", e->name);
        etp_node_str(o, "kind", etp_etr_kind_name(e->kind));
        etp_node_uint(o, "size_bytes", e->size);
        etp_node_uint(o, "compressed_bytes", e->compressed_size);
        etp_node_str(o, "compression", e->compression);
        etp_node_bool(o, "read", e->read);
    }
    etp_node *pa = etp_node_arr(root, "programs");
    for (uint32_t i = 0; i < np; i++) {
        const etp_etr_program *p = etp_etrecord_program(r, i);
        etp_node *o = etp_node_obj(pa, NULL);
        etp_node_str(o, "entry", p->entry);
        etp_node_str(o, "kind", etp_etr_kind_name(p->kind));
        etp_node_str(o, "method", p->method);
        etp_node_uint(o, "nodes", p->n_nodes);
        etp_node_uint(o, "nodes_with_debug_handle", p->n_handled);
        etp_node *nl = etp_node_arr(o, "node_list");
        for (uint32_t k = 0; k < p->n_nodes; k++) node_facts(etp_node_obj(nl, NULL), &p->nodes[k]);
    }
    etp_node *mm = etp_node_arr(root, "map_methods");
    for (uint32_t i = 0; i < etp_etrecord_map_method_count(r); i++)
        etp_node_str(mm, NULL, etp_etrecord_map_method(r, i));
    etp_node *sk = etp_node_arr(root, "skipped");
    for (uint32_t i = 0; i < ne; i++) {
        const etp_etr_entry *e = etp_etrecord_entry(r, i);
        if (!e->read && e->kind != ETP_ETR_MARKER) etp_node_str(sk, NULL, e->name);
    }
}

static const etp_col entry_cols[] = {
    {"entry", "entry", NULL, ETP_T_STR, false, 0},
    {"kind", "kind", NULL, ETP_T_STR, false, 0},
    {"method", "method", NULL, ETP_T_STR, true, 0},
    {"nodes", "nodes", NULL, ETP_T_UINT, true, 0},
    {"size_bytes", "bytes", NULL, ETP_T_UINT, false, 0},
    {"compression", "compression", NULL, ETP_T_STR, false, 0},
    {"read", "read", NULL, ETP_T_BOOL, false, 0},
};

/* The text views and csv/tsv/jsonl: one row per entry (the program it holds, if any). */
static int etrecord_table(cli_args *a, etp_doc *doc, const etp_etrecord *r, const char *path) {
    uint32_t ne = etp_etrecord_entry_count(r), np = etp_etrecord_program_count(r);
    etp_section *s = etp_doc_section(doc, "etrecord");
    if (a->fmt == ETP_FMT_TABLE)
        etp_section_textf(s, 0, 0, "file       %s\nkind       ExecuTorch ETRecord (ZIP), %u entries, "
                                   "%u programs, %u skipped (not read)\n\n",
                          path, ne, np, etp_etrecord_skipped_count(r));
    etp_table *t = etp_doc_table(doc, entry_cols, sizeof entry_cols / sizeof entry_cols[0]);
    if (!t) return EXIT_INTERNAL;
    etp_section_table(s, t);
    etp_doc_flat(doc, t);
    for (uint32_t i = 0; i < ne; i++) {
        const etp_etr_entry *e = etp_etrecord_entry(r, i);
        const etp_etr_program *p = NULL;
        for (uint32_t k = 0; k < np && !p; k++)
            if (strcmp(etp_etrecord_program(r, k)->entry, e->name) == 0)
                p = etp_etrecord_program(r, k);
        etp_table_row(t);
        etp_table_str(t, e->name);
        etp_table_str(t, etp_etr_kind_name(e->kind));
        etp_table_str(t, p ? p->method : NULL);
        if (p) etp_table_uint(t, p->n_nodes);
        else etp_table_null(t);
        etp_table_uint(t, e->size);
        etp_table_str(t, e->compression);
        etp_table_bool(t, e->read);
    }
    if (etp_etrecord_skipped_count(r))
        etp_table_note(t, "entries not read: torch.save pickles (state dicts, constants, example "
                          "inputs, reference outputs) need a Python unpickler and are not needed "
                          "to name operators; export_graph_id and unknown names are not used");
    return EXIT_OK;
}

int cli_etrecord_info(cli_args *a, const char *path) {
    if (a->set[OPT_PTE]) {
        cli_errorf("info: %s is an ETRecord; --pte applies to ETDumps", path);
        return EXIT_USAGE;
    }
    etp_etrecord *r;
    etp_error err = {0};
    int rc = etp_etrecord_open(&r, path, NULL, &err);
    if (rc) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        etp_etrecord_close(r);
        return rc;
    }
    /* JSON: {schema_version, file, kind, entries, programs, map_methods, skipped} (0.1.0) */
    etp_doc *doc = etp_doc_new("info", 1, path, NULL);
    etp_doc_envelope(doc, ETP_ENV_FILE); /* a record names no program */
    etp_doc_json_omit(doc, ETP_JSON_NO_NOTES);
    if (a->fmt == ETP_FMT_JSON) etrecord_facts(doc, r);
    else rc = etrecord_table(a, doc, r, path);
    if (!rc && doc) rc = cli_render(a, &o, doc);
    else rc = EXIT_INTERNAL;
    if (rc == EXIT_INTERNAL) cli_errorf("info: out of memory");
    etp_doc_free(doc);
    etp_etrecord_close(r);
    return cli_out_close(&o, rc);
}
