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

static const etp_col etr_cols[] = {
    {"op_types", "op types", NULL, ETP_T_STR, true, 0},
    {"module", "module", NULL, ETP_T_STR, true, 0},
    {"module_class", "module class", NULL, ETP_T_STR, true, 0},
    {"stack_trace", "source", NULL, ETP_T_STR, true, 0},
    {"stack_trace_full", "stack trace", NULL, ETP_T_STR, true, 0},
    {"debug_handles", "debug handles", NULL, ETP_T_STR, true, 0},
};

size_t cli_etr_cols(etp_col *cols, size_t n, bool machine) {
    size_t k = machine ? 6 : 4;
    memcpy(cols + n, etr_cols, k * sizeof *cols);
    return n + k;
}

/* The join of one row: framework rows get none (as the Inspector), HTP nodes by name,
 * delegate-internal events through delegate_map, instructions through debug_handle_map. */
static int row_join(const etp_etrecord *rec, const char *method, const etp_ops_row *row,
                    etp_etr_join *j, cli_etr_stats *st) {
    memset(j, 0, sizeof *j);
    if (!rec || row->chain < 0 || row->instr < 0 || row->place == ETP_PLACE_FRAMEWORK) return 1;
    int rc;
    if (row->htp_node) {
        rc = etp_etrecord_join_name(rec, method, row->name, j);
        if (st && !rc) {
            st->htp_rows++;
            st->htp_matched += j->n_nodes > 0;
        }
    } else if (row->kind == ETP_KIND_DELEGATE_INTERNAL) {
        rc = etp_etrecord_join(rec, method, row->instr, row->name, j);
    } else {
        rc = etp_etrecord_join(rec, method, row->instr, NULL, j);
    }
    if (rc) return rc;
    if (st) {
        st->rows++;
        st->matched += j->n_nodes > 0;
    }
    return 0;
}

static char *handles_text(const etp_etr_join *j) {
    if (!j->n_handles) return NULL;
    char *s = malloc((size_t)j->n_handles * 22 + 1);
    if (!s) return NULL;
    size_t at = 0;
    for (uint32_t i = 0; i < j->n_handles; i++)
        at += (size_t)sprintf(s + at, "%s%lld", i ? "," : "", (long long)j->handles[i]);
    return s;
}

/* The cells of one row as strings (NULL: absent), in cli_etr_cols order; `*hbuf` holds the
 * handles text to free. One join feeds both the result-model and the out.h tables. */
static size_t row_cells(const etp_etrecord *rec, const char *method, const etp_ops_row *row,
                        bool machine, cli_etr_stats *st, etp_etr_join *j, const char *v[6],
                        char **hbuf) {
    bool have = row_join(rec, method, row, j, st) == 0 && j->n_nodes > 0;
    v[0] = have ? j->op_types : NULL;
    v[1] = have ? j->module : NULL;
    v[2] = have ? j->module_class : NULL;
    v[3] = have ? j->frame : NULL;
    v[4] = have ? j->stack_trace : NULL;
    *hbuf = have && machine ? handles_text(j) : NULL;
    v[5] = *hbuf;
    return machine ? 6 : 4;
}

void cli_etr_cells(etp_table *t, const etp_etrecord *rec, const char *method,
                   const etp_ops_row *row, bool machine, cli_etr_stats *st) {
    etp_etr_join j;
    const char *v[6];
    char *h;
    size_t n = row_cells(rec, method, row, machine, st, &j, v, &h);
    for (size_t k = 0; k < n; k++) etp_table_str(t, v[k]);
    free(h);
    etp_etrecord_join_free(&j);
}

/* The same for a command not yet on the result model (tree): out.h columns and cells. */
size_t cli_etr_cols_out(out_col *cols, size_t n, bool machine) {
    size_t k = machine ? 6 : 4;
    for (size_t i = 0; i < k; i++)
        cols[n + i] = (out_col){etr_cols[i].key, etr_cols[i].header, OUT_STR, 0};
    return n + k;
}

void cli_etr_cells_out(out_table *t, const etp_etrecord *rec, const char *method,
                       const etp_ops_row *row, bool machine, cli_etr_stats *st) {
    etp_etr_join j;
    const char *v[6];
    char *h;
    size_t n = row_cells(rec, method, row, machine, st, &j, v, &h);
    for (size_t k = 0; k < n; k++) out_cell_str(t, v[k]);
    free(h);
    etp_etrecord_join_free(&j);
}

void cli_etr_json(jw *w, const etp_etrecord *rec, const char *method, const etp_ops_row *row,
                  cli_etr_stats *st) {
    etp_etr_join j;
    bool have = row_join(rec, method, row, &j, st) == 0 && j.n_nodes > 0;
    jw_key(w, "op_types");
    if (have) jw_str(w, j.op_types); else jw_null(w);
    jw_key(w, "module");
    if (have && j.module) jw_str(w, j.module); else jw_null(w);
    jw_key(w, "module_class");
    if (have && j.module_class) jw_str(w, j.module_class); else jw_null(w);
    jw_key(w, "stack_trace");
    if (have && j.frame) jw_str(w, j.frame); else jw_null(w);
    jw_key(w, "stack_trace_full");
    if (have && j.stack_trace) jw_str(w, j.stack_trace); else jw_null(w);
    /* as ops writes it (a table cell): the handles joined with "," */
    jw_key(w, "debug_handles");
    char *h = have ? handles_text(&j) : NULL;
    if (h) jw_str(w, h); else jw_null(w);
    free(h);
    etp_etrecord_join_free(&j);
}

void cli_etr_notes(const etp_etrecord *rec, const cli_etr_stats *st,
                   void (*note)(void *, const char *), void *ctx) {
    if (!rec) return;
    char b[512];
    snprintf(b, sizeof b,
             "ETRecord %s: %llu of %llu instruction rows joined to edge-program nodes "
             "(op_types, module, stack_trace; framework rows are never joined)",
             etp_etrecord_path(rec), (unsigned long long)st->matched,
             (unsigned long long)st->rows);
    note(ctx, b);
    if (st->htp_rows) {
        snprintf(b, sizeof b,
                 "QNN: %llu of %llu HTP node rows matched an edge-program node by name (the "
                 "QNN op name is the fx node name, QNN's suffixes removed)",
                 (unsigned long long)st->htp_matched, (unsigned long long)st->htp_rows);
        note(ctx, b);
    }
}

/* ---- etprof info R.etrecord ---- */

static void opt_str(jw *w, const char *k, const char *v) {
    jw_key(w, k);
    if (v) jw_str(w, v); else jw_null(w);
}

static void node_json(jw *w, const etp_etr_node *n) {
    jw_obj_begin(w);
    jw_key(w, "name"); jw_str(w, n->name);
    jw_key(w, "op"); jw_str(w, n->op);
    jw_key(w, "target"); jw_str(w, n->target);
    jw_key(w, "debug_handle");
    if (n->debug_handle >= 0) jw_int(w, n->debug_handle); else jw_null(w);
    opt_str(w, "stack_trace", n->stack_trace);
    opt_str(w, "source_fn_stack", n->source_fn_stack);
    jw_key(w, "nn_module_stack");
    jw_arr_begin(w);
    for (uint32_t i = 0; i < n->n_modules; i++) {
        jw_obj_begin(w);
        jw_key(w, "key"); jw_str(w, n->modules[i].key);
        jw_key(w, "fqn"); jw_str(w, n->modules[i].fqn);
        jw_key(w, "type"); jw_str(w, n->modules[i].type);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "dtype");
    if (n->dtype >= 0) jw_int(w, n->dtype); else jw_null(w);
    jw_key(w, "sizes");
    if (n->ndim >= 0) {
        jw_arr_begin(w);
        for (int32_t i = 0; i < n->ndim; i++) jw_int(w, n->sizes[i]);
        jw_arr_end(w);
    } else {
        jw_null(w);
    }
    jw_obj_end(w);
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
    uint32_t ne = etp_etrecord_entry_count(r), np = etp_etrecord_program_count(r);
    if (a->fmt == OUT_JSON) {
        jw w;
        jw_init(&w, o.f, true);
        jw_obj_begin(&w);
        jw_key(&w, "schema_version"); jw_int(&w, 1);
        jw_key(&w, "file"); jw_str(&w, path);
        jw_key(&w, "kind"); jw_str(&w, "etrecord");
        jw_key(&w, "entries");
        jw_arr_begin(&w);
        for (uint32_t i = 0; i < ne; i++) {
            const etp_etr_entry *e = etp_etrecord_entry(r, i);
            jw_obj_begin(&w);
            jw_key(&w, "name"); jw_str(&w, e->name);
            jw_key(&w, "kind"); jw_str(&w, etp_etr_kind_name(e->kind));
            jw_key(&w, "size_bytes"); jw_uint(&w, e->size);
            jw_key(&w, "compressed_bytes"); jw_uint(&w, e->compressed_size);
            jw_key(&w, "compression"); jw_str(&w, e->compression);
            jw_key(&w, "read"); jw_bool(&w, e->read);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_key(&w, "programs");
        jw_arr_begin(&w);
        for (uint32_t i = 0; i < np; i++) {
            const etp_etr_program *p = etp_etrecord_program(r, i);
            jw_obj_begin(&w);
            jw_key(&w, "entry"); jw_str(&w, p->entry);
            jw_key(&w, "kind"); jw_str(&w, etp_etr_kind_name(p->kind));
            jw_key(&w, "method"); jw_str(&w, p->method);
            jw_key(&w, "nodes"); jw_uint(&w, p->n_nodes);
            jw_key(&w, "nodes_with_debug_handle"); jw_uint(&w, p->n_handled);
            jw_key(&w, "node_list");
            jw_arr_begin(&w);
            for (uint32_t k = 0; k < p->n_nodes; k++) node_json(&w, &p->nodes[k]);
            jw_arr_end(&w);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_key(&w, "map_methods");
        jw_arr_begin(&w);
        for (uint32_t i = 0; i < etp_etrecord_map_method_count(r); i++)
            jw_str(&w, etp_etrecord_map_method(r, i));
        jw_arr_end(&w);
        jw_key(&w, "skipped");
        jw_arr_begin(&w);
        for (uint32_t i = 0; i < ne; i++) {
            const etp_etr_entry *e = etp_etrecord_entry(r, i);
            if (!e->read && e->kind != ETP_ETR_MARKER) jw_str(&w, e->name);
        }
        jw_arr_end(&w);
        jw_obj_end(&w);
        if (jw_finish(&w)) rc = EXIT_IO;
        fputc('\n', o.f);
    } else {
        static const out_col cols[] = {
            {"entry", "entry", OUT_STR, 0},        {"kind", "kind", OUT_STR, 0},
            {"method", "method", OUT_STR, 0},      {"nodes", "nodes", OUT_UINT, 0},
            {"size_bytes", "bytes", OUT_UINT, 0},  {"compression", "compression", OUT_STR, 0},
            {"read", "read", OUT_BOOL, 0},
        };
        if (a->fmt == OUT_TABLE)
            fprintf(o.f, "file       %s\nkind       ExecuTorch ETRecord (ZIP), %u entries, %u "
                         "programs, %u skipped (not read)\n\n",
                    path, ne, np, etp_etrecord_skipped_count(r));
        out_table *t = cli_table(a, &o, cols, sizeof cols / sizeof cols[0]);
        if (!t) {
            etp_etrecord_close(r);
            return cli_out_close(&o, EXIT_INTERNAL);
        }
        for (uint32_t i = 0; i < ne; i++) {
            const etp_etr_entry *e = etp_etrecord_entry(r, i);
            const etp_etr_program *p = NULL;
            for (uint32_t k = 0; k < np && !p; k++)
                if (strcmp(etp_etrecord_program(r, k)->entry, e->name) == 0)
                    p = etp_etrecord_program(r, k);
            out_row_begin(t);
            out_cell_str(t, e->name);
            out_cell_str(t, etp_etr_kind_name(e->kind));
            out_cell_str(t, p ? p->method : NULL);
            if (p) out_cell_uint(t, p->n_nodes); else out_cell_null(t);
            out_cell_uint(t, e->size);
            out_cell_str(t, e->compression);
            out_cell_bool(t, e->read);
            out_row_end(t);
        }
        if (etp_etrecord_skipped_count(r))
            out_table_note(t, "entries not read: torch.save pickles (state dicts, constants, "
                              "example inputs, reference outputs) need a Python unpickler and "
                              "are not needed to name operators; export_graph_id and unknown "
                              "names are not used");
        if (out_table_finish(t)) rc = EXIT_IO;
        out_table_free(t);
    }
    etp_etrecord_close(r);
    return cli_out_close(&o, rc);
}
