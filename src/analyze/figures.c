/* figures.c - the figures several commands show, each computed once (etprof.h "Shared
 * figures", qnn_report.h): the top operators of a method, a DELEGATE_CALL split into backend
 * time and the rest, the QNN ops per HTP unit, the QNN ops by cycles. docs/json-contract.md
 * lists where each one appears. */
#include "analysis.h"
#include "etprof_backend.h"
#include "jw.h"
#include "ops_int.h"
#include "result_int.h"
#include "qnn_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t etp_ops_top(const etp_ops_result *r, int32_t method, size_t top, uint32_t *idx) {
    etp_ops_filter f;
    etp_ops_filter_init(&f);
    f.method = method;
    f.kind = "operator";
    f.sort = "total";
    f.top = top;
    size_t n = 0;
    etp_error err = {0};
    if (etp_ops_select(r, &f, idx, &n, &err)) return 0; /* out of memory: nothing to show */
    return n;
}

int etp_ops_delegate_time_get(const etp_ops_result *r, size_t i, etp_ops_delegate_time *out) {
    memset(out, 0, sizeof *out);
    etp_stats_compute(NULL, 0, &out->delegate);
    out->backend = out->overhead = out->delegate;
    if (i >= etp_ops_row_count(r)) return ETP_E_USAGE;
    const etp_ops_row *row = etp_ops_row_get(r, i);
    if (row->kind != ETP_KIND_DELEGATE_CALL ||
        (row->unit != ETP_UNIT_NS && row->unit != ETP_UNIT_TICKS))
        return ETP_E_USAGE;
    out->row = (uint32_t)i;
    out->runs = row->runs;
    out->has_backend = row->has_children_same_unit;
    out->delegate = row->stats;
    out->overhead = row->excl;
    return etp_ops_children_stats(r, i, &out->backend);
}

void etp_qnn_unit_counts_get(const etp_qnn_derived *d, etp_qnn_unit_counts *out) {
    memset(out, 0, sizeof *out);
    if (!d) return;
    out->qnn_ops = d->n_rows;
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const etp_qnn_op_row *o = &d->rows[i];
        out->htp_ops += o->htp_ops;
        out->hmx += o->hmx;
        out->hvx += o->hvx;
        out->dma += o->dma;
        out->hmx_and_hvx += o->hmx && o->hvx;
        out->dma_only += o->dma && !o->hmx && !o->hvx;
        out->none += !o->hmx && !o->hvx && !o->dma;
    }
}

typedef struct cyc_key {
    int64_t cycles;
    uint32_t idx;
} cyc_key;

static int cmp_cycles(const void *x, const void *y) {
    const cyc_key *a = x, *b = y;
    if (a->cycles != b->cycles) return a->cycles > b->cycles ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int etp_qnn_rows_by_cycles(const etp_qnn_derived *d, uint32_t top, uint32_t *idx, uint32_t *n) {
    uint32_t m = d ? d->n_rows : 0;
    *n = 0;
    if (!m) return ETP_OK;
    cyc_key *k = malloc(m * sizeof *k);
    if (!k) return ETP_E_INTERNAL;
    for (uint32_t i = 0; i < m; i++) k[i] = (cyc_key){d->rows[i].cycles, i};
    qsort(k, m, sizeof *k, cmp_cycles);
    if (top && top < m) m = top;
    for (uint32_t i = 0; i < m; i++) idx[i] = k[i].idx;
    free(k);
    *n = m;
    return ETP_OK;
}

/* The flags of a row that hold for what it measures: ETP_MF_NOT_WALL only for a time. */
uint32_t etp_disp_row_flags(const etp_ops_row *row) {
    return row->unit == ETP_UNIT_NS ? row->flags : row->flags & ~(uint32_t)ETP_MF_NOT_WALL;
}
