/* ops_table.c - the rows of `etprof ops --format json` as one typed table (etprof_figures.h
 * etp_ops_table): what the Python package's ops() turns into a DataFrame column by column
 * (etp_table_column), with the display of etp_disp_conv, the HTP wall-time estimate columns of
 * --htp-clock-ghz and the ETRecord's columns of --etrecord (etp_etrecord_table_cells: the one
 * join rule). */
#include "etprof_etrecord.h"
#include "etprof_backend.h"
#include "etprof_figures.h"
#include "etprof_qnn.h"

#include <math.h>
#include <stddef.h>

static const etp_col ops_cols_head[] = {
    {"method", "method", NULL, ETP_T_STR, true, 0},
    {"instruction_id", "instr", NULL, ETP_T_INT, true, 0},
    {"name", "name", NULL, ETP_T_STR, false, 0},
    {"count", "count", NULL, ETP_T_UINT, false, 0},
    {"min", "min", NULL, ETP_T_FLOAT, true, -1},
    {"p10", "p10", NULL, ETP_T_FLOAT, true, -1},
    {"p50", "p50", NULL, ETP_T_FLOAT, true, -1},
    {"p90", "p90", NULL, ETP_T_FLOAT, true, -1},
    {"avg", "avg", NULL, ETP_T_FLOAT, true, -1},
    {"max", "max", NULL, ETP_T_FLOAT, true, -1},
    {"total", "total", NULL, ETP_T_FLOAT, true, -1},
    {"share", "share", "%", ETP_T_FLOAT, true, -1},
    {"unit", "unit", NULL, ETP_T_STR, true, 0},
    {"placement", "placement", NULL, ETP_T_STR, true, 0},
    {"kind", "kind", NULL, ETP_T_STR, true, 0},
    {"operator", "operator", NULL, ETP_T_STR, true, 0},
};
static const etp_col ops_cols_wall[] = {
    {"wall_est_p50", "wall est p50", NULL, ETP_T_FLOAT, true, -1},
    {"wall_est_total", "wall est total", NULL, ETP_T_FLOAT, true, -1},
    {"wall_est_unit", "wall est unit", NULL, ETP_T_STR, true, 0},
};
static const etp_col ops_cols_tail[] = {
    {"bad_time_count", "bad times", NULL, ETP_T_UINT, false, 0},
    {"wrapped_count", "wrapped", NULL, ETP_T_UINT, false, 0},
    {"event_name", "event name", NULL, ETP_T_STR, true, 0},
};
#define NHEAD (sizeof ops_cols_head / sizeof ops_cols_head[0])
#define NWALL (sizeof ops_cols_wall / sizeof ops_cols_wall[0])
#define NTAIL (sizeof ops_cols_tail / sizeof ops_cols_tail[0])

etp_table *etp_ops_table(etp_doc *d, const etp_ops_result *r, const uint32_t *idx, size_t n,
                         const etp_disp *disp, const struct etp_etrecord *rec) {
    if (!d || !r || !disp || (n && !idx)) return NULL;
    etp_col cols[NHEAD + NWALL + NTAIL + ETP_ETR_MAX_COLS];
    size_t nc = 0;
    for (size_t k = 0; k < NHEAD; k++) cols[nc++] = ops_cols_head[k];
    bool est = disp->htp_ghz > 0;
    for (size_t k = 0; est && k < NWALL; k++) cols[nc++] = ops_cols_wall[k];
    for (size_t k = 0; k < NTAIL; k++) cols[nc++] = ops_cols_tail[k];
    if (rec) nc = etp_etrecord_cols(cols, nc, true);
    etp_table *t = etp_doc_table(d, cols, nc);
    if (!t) return NULL;
    for (size_t k = 0; k < n; k++) {
        const etp_ops_row *row = etp_ops_row_get(r, idx[k]);
        const etp_ops_method *m = etp_ops_method_get(r, row->method);
        etp_table_row(t);
        etp_table_str(t, m ? m->name : NULL);
        if (row->chain >= 0 && row->instr >= 0) etp_table_int(t, row->instr);
        else etp_table_null(t);
        etp_table_str(t, row->name);
        etp_table_uint(t, row->count);
        const char *un = NULL;
        const double st[7] = {row->stats.min, row->stats.p10, row->stats.p50, row->stats.p90,
                              row->stats.avg, row->stats.max, row->stats.total};
        for (int s = 0; s < 7; s++) etp_table_float(t, etp_disp_conv(disp, row->unit, st[s], &un));
        etp_table_float(t, row->share);
        (void)etp_disp_conv(disp, row->unit, 0, &un);
        etp_table_str(t, un);
        char pl[300]; /* the label every view gives: an inferred backend named */
        etp_table_str(t, etp_backend_placement_label(r, idx[k], pl, sizeof pl));
        etp_table_str(t, etp_ops_row_kind_name(row));
        etp_table_str(t, row->op);
        if (est) { /* the command's columns: cycles x the partition's ns per cycle */
            double wf = etp_qnn_wall_ns_per_cycle(r, idx[k]);
            etp_table_float(t, row->stats.p50 * wf / disp->unit_ns);
            etp_table_float(t, row->stats.total * wf / disp->unit_ns);
            etp_table_str(t, isnan(wf) ? NULL : disp->est_unit);
        }
        etp_table_uint(t, row->bad_time_count);
        etp_table_uint(t, row->wrapped_count);
        etp_table_str(t, row->event_name);
        if (rec) etp_etrecord_table_cells(t, rec, m ? m->name : NULL, row, true, NULL);
    }
    return etp_doc_ok(d) ? t : NULL;
}
