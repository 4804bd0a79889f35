/* etrecord_cells.c - the ETRecord's columns in result documents: one join per row
 * (etp_etrecord_join_row) rendered as the cells every view writes, and the notes on the join
 * (etprof_etrecord.h). Moved from the command's rendering so that library documents (tree) and
 * the command share one definition. */
#include "etprof_etrecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const etp_col etr_cols[] = {
    {"op_types", "op types", NULL, ETP_T_STR, true, 0},
    {"module", "module", NULL, ETP_T_STR, true, 0},
    {"module_class", "module class", NULL, ETP_T_STR, true, 0},
    {"stack_trace", "source", NULL, ETP_T_STR, true, 0},
    {"stack_trace_full", "stack trace", NULL, ETP_T_STR, true, 0},
    {"debug_handles", "debug handles", NULL, ETP_T_STR, true, 0},
};

size_t etp_etrecord_cols(etp_col *cols, size_t n, bool machine) {
    size_t k = machine ? 6 : 4;
    memcpy(cols + n, etr_cols, k * sizeof *cols);
    return n + k;
}

/* The join of one row, counted. */
static int row_join(const etp_etrecord *rec, const char *method, const etp_ops_row *row,
                    etp_etr_join *j, etp_etr_counts *st) {
    memset(j, 0, sizeof *j);
    if (!rec || !etp_etrecord_row_joinable(row)) return 1;
    int rc = etp_etrecord_join_row(rec, method, row, j);
    if (rc) return rc;
    if (st && row->htp_node) {
        st->htp_rows++;
        st->htp_matched += j->n_nodes > 0;
    }
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

size_t etp_etrecord_row_cells(const etp_etrecord *rec, const char *method, const etp_ops_row *row,
                              bool machine, etp_etr_counts *st, etp_etr_join *j, const char *v[6],
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

void etp_etrecord_table_cells(etp_table *t, const etp_etrecord *rec, const char *method,
                              const etp_ops_row *row, bool machine, etp_etr_counts *st) {
    etp_etr_join j;
    const char *v[6];
    char *h;
    size_t n = etp_etrecord_row_cells(rec, method, row, machine, st, &j, v, &h);
    for (size_t k = 0; k < n; k++) etp_table_str(t, v[k]);
    free(h);
    etp_etrecord_join_free(&j);
}

void etp_etrecord_node_cells(etp_node *n, const etp_etrecord *rec, const char *method,
                             const etp_ops_row *row, etp_etr_counts *st) {
    etp_etr_join j;
    const char *v[6];
    char *h;
    /* the machine cells: the handles joined with "," as ops writes them */
    etp_etrecord_row_cells(rec, method, row, true, st, &j, v, &h);
    for (size_t k = 0; k < 6; k++) etp_node_str(n, etr_cols[k].key, v[k]);
    free(h);
    etp_etrecord_join_free(&j);
}

char *etp_etrecord_where(const etp_etrecord *rec, const char *method, const etp_ops_row *row,
                         etp_etr_counts *st) {
    etp_etr_join j;
    const char *v[6];
    char *h, *s = NULL;
    etp_etrecord_row_cells(rec, method, row, false, st, &j, v, &h);
    if (v[1] || v[3]) {
        size_t n = (v[1] ? strlen(v[1]) : 0) + (v[2] ? strlen(v[2]) : 0) +
                   (v[3] ? strlen(v[3]) : 0) + 64;
        s = malloc(n);
        if (s) {
            int k = 0;
            if (v[1]) k = snprintf(s, n, "module %s%s%s%s", v[1][0] ? v[1] : "(root)",
                                   v[2] ? " (" : "", v[2] ? v[2] : "", v[2] ? ")" : "");
            if (v[3]) snprintf(s + k, n - (size_t)k, "%ssource %s", k ? ", " : "", v[3]);
        }
    }
    free(h);
    etp_etrecord_join_free(&j);
    return s;
}

int etp_etrecord_mismatch_note(const etp_etrecord *rec, const etp_etr_counts *st, char *buf,
                               size_t n) {
    if (!n) return 0;
    buf[0] = 0;
    if (!rec || !st || st->matched || st->htp_matched || st->rows + st->htp_rows == 0) return 0;
    char htp[96] = "";
    if (st->htp_rows)
        snprintf(htp, sizeof htp, " and none of the %llu QNN HTP node rows by name",
                 (unsigned long long)st->htp_rows);
    return snprintf(buf, n,
                    "WARNING: the ETRecord %s is from another program: none of the %llu "
                    "instruction rows of this dump joins one of its edge-program nodes (by "
                    "instruction id and debug handle)%s, as with a .pte of another model; its "
                    "op types, modules and source lines are not shown (give the ETRecord saved "
                    "with this program)",
                    etp_etrecord_path(rec), (unsigned long long)st->rows, htp);
}

void etp_etrecord_notes(const etp_etrecord *rec, const etp_etr_counts *st,
                        void (*note)(void *, const char *), void *ctx) {
    if (!rec) return;
    char b[700];
    if (etp_etrecord_mismatch_note(rec, st, b, sizeof b) > 0) note(ctx, b);
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

void etp_etrecord_missing_note(const etp_etrecord *rec, const etp_ops_result *r,
                               void (*note)(void *, const char *), void *ctx) {
    if (rec || !r) return;
    bool any = false;
    for (size_t i = 0; i < etp_ops_row_count(r) && !any; i++)
        any = etp_etrecord_row_joinable(etp_ops_row_get(r, i));
    if (!any) return;
    note(ctx, "no --etrecord: the program's ETRecord would add each operator's ATen op types, "
              "nn.Module and source line (and `etprof modules`: time per nn.Module); produce one "
              "at export with generate_etrecord=True (to_edge_transform_and_lower, to_edge or "
              "executorch.export), then get_etrecord().save(PATH) after to_executorch()");
}
