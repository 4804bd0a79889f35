/*
 * qnn_analysis.c - the QNN analyses of include/etprof_qnn.h that `etprof qnn` renders: the
 * critical path by QNN op, and the qnn-profile-viewer execute sums, node shares, wall-time
 * estimates and QTimer tick conversion. (The unit counts are in figures.c, the bundle, clock and
 * the ETDump wall factor in qnn_report.c.)
 */
#include "qnn_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t sat_add64(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* ---------------------------------------------------------------------------------------------
 * Critical path
 * ------------------------------------------------------------------------------------------- */

void etp_qnn_critical_path_free(etp_qnn_critical_path *p) {
    if (!p) return;
    free(p->ops);
    free(p);
}

int etp_qnn_critical_path_get(const etp_qnn_derived *d, etp_qnn_critical_path **out,
                              etp_error *err) {
    *out = NULL;
    etp_qnn_critical_path *p = calloc(1, sizeof *p);
    if (!p) goto nomem;
    if (!d || d->summary.dominant_source == ETP_QNN_SRC_NONE) {
        *out = p;
        return ETP_OK;
    }
    const etp_qnn_summary *s = &d->summary;
    p->present = true;
    p->source = etp_qnn_source_name(s->dominant_source);
    p->steps = s->n_dominant;
    p->path_cycles = s->dominant_dp_cycles;
    p->idle_cycles = s->dominant_idle_cycles;
    p->span_cycles = s->timeline_cycles.has && s->timeline_cycles.v > 0
                         ? s->timeline_cycles.v
                         : sat_add64(s->dominant_dp_cycles, s->dominant_idle_cycles);
    if (s->n_dominant) {
        etp_qnn_cp_op *v = calloc(s->n_dominant, sizeof *v);
        if (!v) goto nomem;
        p->ops = v;
        uint32_t n = 0;
        for (uint32_t i = 0; i < s->n_dominant; i++) {
            const etp_qnn_dp_op *st = &s->dominant[i];
            const char *name = st->qnn_op ? st->qnn_op : st->htp_op ? st->htp_op : "?";
            int64_t dp = st->dp_cycles.has ? st->dp_cycles.v : st->cycles;
            uint32_t k = 0;
            while (k < n && strcmp(v[k].qnn_op, name) != 0) k++;
            if (k == n) v[n++] = (etp_qnn_cp_op){name, 0, 0, NAN};
            v[k].dp_cycles = sat_add64(v[k].dp_cycles, dp);
            v[k].steps++;
        }
        /* largest first; ties keep the order of first appearance (insertion sort is stable) */
        for (uint32_t i = 1; i < n; i++) {
            etp_qnn_cp_op x = v[i];
            uint32_t k = i;
            while (k > 0 && x.dp_cycles > v[k - 1].dp_cycles) {
                v[k] = v[k - 1];
                k--;
            }
            v[k] = x;
        }
        for (uint32_t i = 0; i < n; i++)
            v[i].share_percent = p->span_cycles > 0
                                     ? (double)v[i].dp_cycles * 100.0 / (double)p->span_cycles
                                     : NAN;
        p->n_ops = n;
    }
    *out = p;
    return ETP_OK;
nomem:
    etp_qnn_critical_path_free(p);
    etp_error_set(err, ETP_E_INTERNAL, "", -1, "", "out of memory");
    return ETP_E_INTERNAL;
}

/* ---------------------------------------------------------------------------------------------
 * qnn-profile-viewer executes
 * ------------------------------------------------------------------------------------------- */

void etp_qnn_viewer_sums_get(const etp_qnn_stat_block *b, etp_qnn_viewer_sums *out) {
    memset(out, 0, sizeof *out);
    out->excl_wait_us = NAN;
    for (uint32_t i = 0; i < b->n_events; i++) {
        const etp_qnn_stat_event *e = &b->events[i];
        /* the parent of the node events: "Accelerator (execute) time (cycles)" (a text
         * identifier may carry the unit in its name); the first one */
        if (!out->has_parent && !e->is_node && e->unit == ETP_QNN_UNIT_CYCLES && e->has_value &&
            strncmp(e->identifier, "Accelerator (execute) time", 26) == 0) {
            out->has_parent = true;
            out->parent_cycles = e->value;
        }
        /* the last one */
        if (!e->is_node && e->has_value && e->unit == ETP_QNN_UNIT_US &&
            strncmp(e->identifier, "Accelerator (execute excluding wait) time", 41) == 0)
            out->excl_wait_us = e->fvalue;
        if (e->is_node && e->has_value) {
            out->node_cycles_sum = sat_add64(out->node_cycles_sum, e->value);
            out->node_count++;
        }
    }
    out->comparable = out->has_parent && out->node_count > 0;
    out->nodes_equal_parent = out->comparable && out->node_cycles_sum == out->parent_cycles;
}

double etp_qnn_viewer_node_share(const etp_qnn_viewer_sums *s, const etp_qnn_stat_event *e) {
    if (!e->is_node || !e->has_value || !s->has_parent || s->parent_cycles <= 0) return NAN;
    return (double)e->value * 100.0 / (double)s->parent_cycles;
}

double etp_qnn_viewer_wall_est_us(const etp_qnn_viewer_sums *s, const etp_qnn_stat_event *e) {
    if (!e->is_node || !e->has_value || !s->has_parent || s->parent_cycles <= 0) return NAN;
    return (double)e->value / (double)s->parent_cycles * s->excl_wait_us;
}

bool etp_qnn_viewer_is_qtimer_ticks(const etp_qnn_stat_event *e) {
    return !e->is_node && e->unit == ETP_QNN_UNIT_US &&
           (strcmp(e->identifier, "Time for initial VTCM acquire") == 0 ||
            strcmp(e->identifier, "Time for HVX + HMX power on and acquire") == 0);
}

double etp_qnn_viewer_event_value(const etp_qnn_stat_event *e) {
    if (!e->has_value) return NAN;
    if (etp_qnn_viewer_is_qtimer_ticks(e)) return e->fvalue / ETP_QNN_QTIMER_TICKS_PER_US;
    return e->fvalue;
}

const char *etp_qnn_node_kind_name(etp_qnn_node_kind k) {
    switch (k) {
    case ETP_QNN_NODE_NAMED: return "named";
    case ETP_QNN_NODE_INPUT: return "input";
    case ETP_QNN_NODE_OUTPUT: return "output";
    case ETP_QNN_NODE_SYSTEM: return "system";
    default: return "other";
    }
}

const char *etp_qnn_stat_kind_name(etp_qnn_stat_kind k) {
    switch (k) {
    case ETP_QNN_STAT_INIT: return "init";
    case ETP_QNN_STAT_COMPOSE: return "compose";
    case ETP_QNN_STAT_FINALIZE: return "finalize";
    case ETP_QNN_STAT_EXECUTE: return "execute";
    case ETP_QNN_STAT_DEINIT: return "deinit";
    default: return "other";
    }
}

const char *etp_qnn_event_unit_name(const etp_qnn_stat_event *e) {
    if (!e) return NULL;
    switch (e->unit) {
    case ETP_QNN_UNIT_US: return "us";
    case ETP_QNN_UNIT_CYCLES: return "cycles";
    case ETP_QNN_UNIT_COUNT: return "count";
    case ETP_QNN_UNIT_BYTES: return "bytes";
    case ETP_QNN_UNIT_OBJECT: return "object";
    case ETP_QNN_UNIT_OTHER: return e->unit_text;
    default: return NULL;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Row order (--sort / --top)
 * ------------------------------------------------------------------------------------------- */

static const char *const k_num_keys[] = {
    "cycles",           "share",           "dominant_path_cycles", "htp_ops",
    "dram_read_bytes",  "dram_write_bytes", "vtcm_read_bytes",     "vtcm_write_bytes",
    "etdump_cycles",    "op_id",           NULL};

static int key_index(const char *key, const char *const *keys) {
    for (int i = 0; keys[i]; i++)
        if (strcmp(key, keys[i]) == 0) return i;
    return -1;
}

bool etp_qnn_rows_sort_key_valid(const char *key) {
    return key && (strcmp(key, "order") == 0 || key_index(key, k_num_keys) >= 0 ||
                   strcmp(key, "qnn_op") == 0 || strcmp(key, "qnn_op_type") == 0);
}

/* One row's key, computed before sorting (the comparators need no context). */
typedef struct row_key {
    double v;        /* numeric keys; NaN = absent */
    const char *s;   /* text keys */
    uint32_t idx;
} row_key;

static int by_index(const row_key *x, const row_key *y) { return (x->idx > y->idx) - (x->idx < y->idx); }

static int num_cmp(const row_key *x, const row_key *y, int dir) {
    bool nx = isnan(x->v), ny = isnan(y->v);
    if (nx != ny) return nx ? 1 : -1; /* absent last */
    if (!nx && x->v != y->v) return x->v > y->v ? -dir : dir;
    return by_index(x, y);
}

static int cmp_desc(const void *a, const void *b) { return num_cmp(a, b, 1); }
static int cmp_asc(const void *a, const void *b) { return num_cmp(a, b, -1); }

static int cmp_text(const void *a, const void *b) {
    const row_key *x = a, *y = b;
    int r = strcmp(x->s, y->s);
    return r ? r : by_index(x, y);
}

static double row_num(const etp_qnn_op_row *r, const double *etd, uint32_t i, int k) {
    switch (k) {
    case 0: return (double)r->cycles;
    case 1: return r->share;
    case 2: return (double)r->dominant_path_cycles;
    case 3: return r->htp_ops;
    case 4: return r->has_bytes ? (double)r->dram_read_bytes : NAN;
    case 5: return r->has_bytes ? (double)r->dram_write_bytes : NAN;
    case 6: return r->has_bytes ? (double)r->vtcm_read_bytes : NAN;
    case 7: return r->has_bytes ? (double)r->vtcm_write_bytes : NAN;
    case 8: return etd ? etd[i] : NAN;
    default: return r->has_op_id ? (double)r->op_id : NAN;
    }
}

int etp_qnn_rows_sorted(const etp_qnn_derived *d, const double *etdump_cycles, const char *key,
                        uint32_t top, uint32_t *idx, uint32_t *n) {
    *n = 0;
    if (!etp_qnn_rows_sort_key_valid(key)) return ETP_E_USAGE;
    uint32_t m = d ? d->n_rows : 0;
    if (!m) return ETP_OK;
    uint32_t shown = top && top < m ? top : m;
    if (strcmp(key, "order") == 0) {
        for (uint32_t i = 0; i < shown; i++) idx[i] = i;
        *n = shown;
        return ETP_OK;
    }
    row_key *k = malloc(m * sizeof *k);
    if (!k) return ETP_E_INTERNAL;
    int ki = key_index(key, k_num_keys);
    bool type = strcmp(key, "qnn_op_type") == 0;
    for (uint32_t i = 0; i < m; i++) {
        const etp_qnn_op_row *r = &d->rows[i];
        const char *t = type ? r->qnn_op_type : r->qnn_op;
        k[i] = (row_key){ki >= 0 ? row_num(r, etdump_cycles, i, ki) : NAN, t ? t : "", i};
    }
    qsort(k, m, sizeof *k, ki < 0 ? cmp_text : strcmp(key, "op_id") == 0 ? cmp_asc : cmp_desc);
    for (uint32_t i = 0; i < shown; i++) idx[i] = k[i].idx;
    free(k);
    *n = shown;
    return ETP_OK;
}

uint32_t etp_qnn_derived_row_count(const etp_qnn_derived *d) { return d ? d->n_rows : 0; }
