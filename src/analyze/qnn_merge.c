/*
 * qnn_merge.c - results derived from QNN's profiling outputs: the per-QNN-op table and the
 * summary (from QHAS, else computed from the optrace), the optrace-vs-QHAS cycle check, the
 * ETDump/viewer node-name classifier and the node join.
 */
#include "qnn.h"

#include <stdlib.h>
#include <string.h>

static int64_t sat_add(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t sat_sub(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int oom(etp_error *err) {
    etp_error_set(err, ETP_E_INTERNAL, "", -1, "", "out of memory");
    return ETP_E_INTERNAL;
}

/* ---------------------------------------------------------------------------------------------
 * String -> index map (keys borrowed, explicit lengths)
 * ------------------------------------------------------------------------------------------- */

typedef struct smap {
    const char **keys;
    size_t *lens;
    uint32_t *vals;
    size_t cap, n;
} smap;

static uint64_t shash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void smap_free(smap *m) {
    free(m->keys);
    free(m->lens);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* Slot of key (empty slot when absent). */
static size_t smap_slot(const smap *m, const char *k, size_t n) {
    size_t j = shash(k, n) & (m->cap - 1);
    while (m->keys[j] && !(m->lens[j] == n && memcmp(m->keys[j], k, n) == 0))
        j = (j + 1) & (m->cap - 1);
    return j;
}

static bool smap_get(const smap *m, const char *k, size_t n, uint32_t *v) {
    if (!m->cap) return false;
    size_t j = smap_slot(m, k, n);
    if (!m->keys[j]) return false;
    *v = m->vals[j];
    return true;
}

static bool smap_put(smap *m, const char *k, size_t n, uint32_t v) {
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        smap o = *m;
        m->keys = calloc(nc, sizeof *m->keys);
        m->lens = calloc(nc, sizeof *m->lens);
        m->vals = calloc(nc, sizeof *m->vals);
        if (!m->keys || !m->lens || !m->vals) {
            smap_free(m);
            *m = o;
            return false;
        }
        m->cap = nc;
        m->n = 0;
        for (size_t i = 0; i < o.cap; i++)
            if (o.keys[i]) {
                size_t j = smap_slot(m, o.keys[i], o.lens[i]);
                m->keys[j] = o.keys[i];
                m->lens[j] = o.lens[i];
                m->vals[j] = o.vals[i];
                m->n++;
            }
        smap_free(&o);
    }
    size_t j = smap_slot(m, k, n);
    if (!m->keys[j]) m->n++;
    m->keys[j] = k;
    m->lens[j] = n;
    m->vals[j] = v;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Per-op rows
 * ------------------------------------------------------------------------------------------- */

typedef struct rows_build {
    etp_qnn_derived *d;
    uint32_t cap;
    smap names;
} rows_build;

/* The row of `qnn_op`, created when new. NULL on OOM. */
static etp_qnn_op_row *row_for(rows_build *b, const char *qnn_op, uint32_t op_id,
                               const char *type) {
    uint32_t i;
    size_t n = strlen(qnn_op);
    if (smap_get(&b->names, qnn_op, n, &i)) {
        etp_qnn_op_row *r = &b->d->rows[i];
        if (r->op_id != op_id) r->op_id_conflict = true;
        if (!r->qnn_op_type) r->qnn_op_type = type;
        return r;
    }
    if (etp_qnn_grow(&b->d->rows, &b->cap, b->d->n_rows + 1, sizeof *b->d->rows) ||
        !smap_put(&b->names, qnn_op, n, b->d->n_rows))
        return NULL;
    etp_qnn_op_row *r = &b->d->rows[b->d->n_rows++];
    memset(r, 0, sizeof *r);
    r->qnn_op = qnn_op;
    r->op_id = op_id;
    r->has_op_id = true;
    r->qnn_op_type = type;
    return r;
}

static void add_op(etp_qnn_op_row *r, int64_t cycles, int64_t dp, uint32_t flags) {
    r->cycles = sat_add(r->cycles, cycles);
    r->dominant_path_cycles = sat_add(r->dominant_path_cycles, dp);
    r->htp_ops++;
    if (flags & ETP_QNN_F_HMX) {
        r->hmx = true;
        r->hmx_cycles = sat_add(r->hmx_cycles, cycles);
    }
    if (flags & ETP_QNN_F_HVX) {
        r->hvx = true;
        r->hvx_cycles = sat_add(r->hvx_cycles, cycles);
    }
    if (flags & ETP_QNN_F_ANY_DMA) {
        r->dma = true;
        r->dma_cycles = sat_add(r->dma_cycles, cycles);
    }
}

static int rows_from_qhas(rows_build *b, const etp_qnn_qhas *q) {
    for (uint32_t i = 0; i < q->n_instances; i++) {
        const etp_qnn_qhas_instance *in = &q->instances[i];
        etp_qnn_op_row *r = row_for(b, in->qnn_op, etp_qnn_qnn_op_id(in->op_id), in->qnn_op_type);
        if (!r) return ETP_E_INTERNAL;
        add_op(r, in->cycles, in->num_dominant_path_cycles.v, in->flags);
        r->has_bytes = true;
        r->dram_read_bytes = sat_add(r->dram_read_bytes, in->dram_read.v);
        r->dram_write_bytes = sat_add(r->dram_write_bytes, in->dram_write.v);
        r->vtcm_read_bytes = sat_add(r->vtcm_read_bytes, in->vtcm_read.v);
        r->vtcm_write_bytes = sat_add(r->vtcm_write_bytes, in->vtcm_write.v);
    }
    /* QNN ops listed in qnn_op_instances_nodes without any HTP op instance: no op id known. */
    for (uint32_t i = 0; i < q->n_nodes; i++) {
        const etp_qnn_qhas_node *nd = &q->nodes[i];
        uint32_t k;
        if (smap_get(&b->names, nd->qnn_op, strlen(nd->qnn_op), &k)) continue;
        etp_qnn_op_row *r = row_for(b, nd->qnn_op, 0, nd->qnn_op_type);
        if (!r) return ETP_E_INTERNAL;
        r->has_op_id = false;
        r->cycles = nd->cycles;
        r->dominant_path_cycles = nd->dominant_path_cycles.v;
        r->has_bytes = true;
        r->dram_read_bytes = nd->dram_read.v;
        r->dram_write_bytes = nd->dram_write.v;
        r->vtcm_read_bytes = nd->vtcm_read.v;
        r->vtcm_write_bytes = nd->vtcm_write.v;
    }
    return ETP_OK;
}

static int rows_from_trace(rows_build *b, const etp_qnn_trace *t) {
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const etp_qnn_trace_op *op = &t->ops[i];
        if (!op->qnn_op) {
            b->d->unattributed_ops++;
            continue;
        }
        etp_qnn_op_row *r = row_for(b, op->qnn_op, etp_qnn_qnn_op_id(op->id), op->qnn_op_type);
        if (!r) return ETP_E_INTERNAL;
        add_op(r, op->dur, op->dominant_path_cycles.v, op->flags);
    }
    return ETP_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Summary
 * ------------------------------------------------------------------------------------------- */

static int cmp_busy(const void *a, const void *b) {
    const etp_qnn_thread_busy *x = a, *y = b;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

static etp_qnn_f64 pct(int64_t num, int64_t den) {
    etp_qnn_f64 r = {0, false};
    if (den > 0) {
        r.v = (double)num * 100.0 / (double)den;
        r.has = true;
    }
    return r;
}

static void unit_totals(etp_qnn_summary *s) {
    int64_t hmx = 0, hvx = 0;
    uint32_t nhmx = 0, nhvx = 0;
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const etp_qnn_thread_busy *t = &s->threads[i];
        if (t->type && strcmp(t->type, "HMX") == 0) {
            hmx = sat_add(hmx, t->busy_cycles);
            nhmx++;
        } else if (t->type && strcmp(t->type, "HVX") == 0) {
            hvx = sat_add(hvx, t->busy_cycles);
            nhvx++;
        }
    }
    if (nhmx) {
        s->hmx_busy_cycles = (etp_qnn_i64){hmx, true};
        if (s->timeline_cycles.has) s->hmx_busy_share = pct(hmx, s->timeline_cycles.v);
    }
    if (nhvx) {
        s->hvx_busy_cycles = (etp_qnn_i64){hvx, true};
        s->hvx_threads = nhvx;
        if (s->timeline_cycles.has && s->timeline_cycles.v > 0 &&
            s->timeline_cycles.v <= INT64_MAX / nhvx)
            s->hvx_busy_share = pct(hvx, s->timeline_cycles.v * (int64_t)nhvx);
    }
    for (uint32_t i = 0; i < s->n_threads; i++)
        if (s->timeline_cycles.has)
            s->threads[i].share = pct(s->threads[i].busy_cycles, s->timeline_cycles.v);
}

static int summary_from_qhas(etp_qnn_summary *s, const etp_qnn_qhas *q) {
    const etp_qnn_qhas_overall *o = &q->overall;
    s->source = ETP_QNN_SRC_QHAS;
    s->utilization_percent = o->percent_utilization;
    s->idle_percent = o->percent_idle;
    s->graph_execute_us = o->graph_execute_us;
    s->time_us = o->time_us;
    s->timeline_cycles = o->timeline_cycles;
    s->htp_cores = q->n_cores;
    s->peak_vtcm_bytes = o->peak_vtcm_alloc;
    s->dram_read_bytes = o->total_dram_read;
    s->dram_write_bytes = o->total_dram_write;
    s->vtcm_read_bytes = o->total_vtcm_read;
    s->vtcm_write_bytes = o->total_vtcm_write;
    if (o->n_resources) {
        s->threads = calloc(o->n_resources, sizeof *s->threads);
        if (!s->threads) return ETP_E_INTERNAL;
    }
    for (uint32_t i = 0; i < o->n_resources; i++) {
        const etp_qnn_qhas_resource *res = &o->resources[i];
        s->threads[s->n_threads++] =
            (etp_qnn_thread_busy){res->tid, res->type, res->cycles_used, {0, false}};
    }
    /* no resources: s->threads is NULL, and qsort() with a NULL base is undefined even for 0
     * elements (a QHAS overall summary without "resources" met UBSan's nonnull check) */
    if (s->n_threads) qsort(s->threads, s->n_threads, sizeof *s->threads, cmp_busy);
    unit_totals(s);
    return ETP_OK;
}

/* The execute times with their source: the runtrace's first execute to the tick (dur / 19.2
 * MHz) over the QHAS's whole us, which the QHAS truncates from its own run's runtrace. */
static void exec_times(etp_qnn_summary *s, const etp_qnn_qhas *q, const etp_qnn_runtrace *rt) {
    static const etp_qnn_phase_kind kind[2] = {ETP_QNN_PHASE_GRAPH_EXECUTE,
                                               ETP_QNN_PHASE_DSP_EXECUTE};
    etp_qnn_f64 *val[2] = {&s->graph_execute_time_us, &s->dsp_execute_time_us};
    etp_qnn_source *from[2] = {&s->graph_execute_source, &s->dsp_execute_source};
    const etp_qnn_i64 *qv[2] = {&s->graph_execute_us, &s->time_us};
    for (int k = 0; k < 2; k++) {
        const etp_qnn_rt_phase *p = rt ? etp_qnn_runtrace_phase(rt, 0, kind[k]) : NULL;
        if (p && p->dur >= 0) {
            *val[k] = (etp_qnn_f64){(double)p->dur / (ETP_QNN_TICK_HZ / 1e6), true};
            *from[k] = ETP_QNN_SRC_RUNTRACE;
        } else if (q && q->n_cores && qv[k]->has) {
            *val[k] = (etp_qnn_f64){(double)qv[k]->v, true};
            *from[k] = ETP_QNN_SRC_QHAS;
        }
    }
    s->estimated = q && q->estimated;
}

typedef struct span {
    int64_t a, b;
} span;

static int cmp_span(const void *x, const void *y) {
    const span *p = x, *q = y;
    return (p->a > q->a) - (p->a < q->a);
}

static const char *unit_type_of(const etp_qnn_trace *t, int64_t tid) {
    const char *name = etp_qnn_trace_thread_name(t, 0, tid);
    for (uint32_t i = 0; !name && i < t->n_threads; i++)
        if (t->threads[i].tid == tid) name = t->threads[i].name;
    if (!name) return NULL;
    if (strstr(name, "HMX")) return "HMX";
    if (strstr(name, "HVX")) return "HVX";
    return NULL;
}

/* Summary computed from the optrace alone: attributed ops only (those with a QNN op name). */
static int summary_from_trace(etp_qnn_summary *s, const etp_qnn_trace *t) {
    span *sp = t->n_ops ? malloc(t->n_ops * sizeof *sp) : NULL;
    uint32_t n = 0, cap = 0;
    if (t->n_ops && !sp) return ETP_E_INTERNAL;
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const etp_qnn_trace_op *op = &t->ops[i];
        if (!op->qnn_op) continue;
        int64_t a = op->start_cycle.has ? op->start_cycle.v : op->ts;
        sp[n++] = (span){a, sat_add(a, op->dur)};
        uint32_t k = 0;
        while (k < s->n_threads && s->threads[k].tid != op->tid) k++;
        if (k == s->n_threads) {
            if (etp_qnn_grow(&s->threads, &cap, s->n_threads + 1, sizeof *s->threads)) {
                free(sp);
                return ETP_E_INTERNAL;
            }
            s->threads[s->n_threads++] =
                (etp_qnn_thread_busy){op->tid, unit_type_of(t, op->tid), 0, {0, false}};
        }
        s->threads[k].busy_cycles = sat_add(s->threads[k].busy_cycles, op->dur);
    }
    if (n) {
        s->source = ETP_QNN_SRC_OPTRACE;
        qsort(sp, n, sizeof *sp, cmp_span);
        int64_t lo = sp[0].a, hi = sp[0].b, busy = 0, ca = sp[0].a, cb = sp[0].b;
        for (uint32_t i = 1; i < n; i++) {
            if (sp[i].b > hi) hi = sp[i].b;
            if (sp[i].a > cb) {
                busy = sat_add(busy, sat_sub(cb, ca));
                ca = sp[i].a;
                cb = sp[i].b;
            } else if (sp[i].b > cb) {
                cb = sp[i].b;
            }
        }
        busy = sat_add(busy, sat_sub(cb, ca));
        if (!__builtin_sub_overflow(hi, lo, &s->timeline_cycles.v)) {
            s->timeline_cycles.has = true;
            s->utilization_percent = pct(busy, s->timeline_cycles.v);
            if (s->utilization_percent.has)
                s->idle_percent = (etp_qnn_f64){100.0 - s->utilization_percent.v, true};
        }
    }
    free(sp);
    const etp_qnn_trace_counter *va = etp_qnn_trace_counter_get(t, ETP_QNN_CTR_VTCM_ALLOC);
    if (va && va->n_points) {
        double peak = va->points[0].value;
        for (uint32_t i = 1; i < va->n_points; i++)
            if (va->points[i].value > peak) peak = va->points[i].value;
        if (peak >= -9.2e18 && peak <= 9.2e18) s->peak_vtcm_bytes = (etp_qnn_i64){(int64_t)peak, true};
    }
    /* no op with a QNN op name: s->threads is NULL (qsort() with it is undefined) */
    if (s->n_threads) qsort(s->threads, s->n_threads, sizeof *s->threads, cmp_busy);
    unit_totals(s);
    return ETP_OK;
}

static int dominant_from_qhas(etp_qnn_summary *s, const etp_qnn_qhas_path *p) {
    s->dominant_source = ETP_QNN_SRC_QHAS;
    if (p->n_steps) {
        s->dominant = calloc(p->n_steps, sizeof *s->dominant);
        if (!s->dominant) return ETP_E_INTERNAL;
    }
    for (uint32_t i = 0; i < p->n_steps; i++) {
        const etp_qnn_qhas_step *st = &p->steps[i];
        int64_t dp = st->dp_cycles.has ? st->dp_cycles.v : st->cycles;
        if (st->is_idle) {
            s->dominant_idle_cycles = sat_add(s->dominant_idle_cycles, dp);
            continue;
        }
        s->dominant_dp_cycles = sat_add(s->dominant_dp_cycles, dp);
        s->dominant[s->n_dominant++] = (etp_qnn_dp_op){
            st->htp_op, st->qnn_op, st->op_id, st->has_op_id, st->cycles, st->dp_cycles,
            st->start_cycle, st->partial.v};
    }
    return ETP_OK;
}

static int cmp_dp(const void *a, const void *b) {
    const etp_qnn_dp_op *x = a, *y = b;
    return (x->start_cycle.v > y->start_cycle.v) - (x->start_cycle.v < y->start_cycle.v);
}

/* optrace: ops with Dominant Path Cycles > 0, by start cycle (no idle steps, no partials). */
static int dominant_from_trace(etp_qnn_summary *s, const etp_qnn_trace *t) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->n_ops; i++) n += t->ops[i].dominant_path_cycles.v > 0;
    if (!n) return ETP_OK;
    s->dominant_source = ETP_QNN_SRC_OPTRACE;
    if (!(s->dominant = calloc(n, sizeof *s->dominant))) return ETP_E_INTERNAL;
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const etp_qnn_trace_op *op = &t->ops[i];
        if (op->dominant_path_cycles.v <= 0) continue;
        int64_t start = op->start_cycle.has ? op->start_cycle.v : op->ts;
        s->dominant[s->n_dominant++] = (etp_qnn_dp_op){
            op->name, op->qnn_op, op->id, true, op->dur, op->dominant_path_cycles,
            {start, true}, false};
        s->dominant_dp_cycles = sat_add(s->dominant_dp_cycles, op->dominant_path_cycles.v);
    }
    qsort(s->dominant, s->n_dominant, sizeof *s->dominant, cmp_dp);
    return ETP_OK;
}

/* HMX compute (etp_qnn_summary.hmx_op_cycles): the rows' HMX-flagged cycles, known when every
 * row's flags are (each has an HTP op), over the summary's timeline. */
static void hmx_compute(etp_qnn_derived *d) {
    etp_qnn_summary *s = &d->summary;
    if (!d->n_rows) return;
    int64_t c = 0;
    for (uint32_t i = 0; i < d->n_rows; i++) {
        if (!d->rows[i].htp_ops) return;
        c = sat_add(c, d->rows[i].hmx_cycles);
    }
    s->hmx_op_cycles = (etp_qnn_i64){c, true};
    /* with several cores the timeline is the first core's, the rows every core's */
    if (s->timeline_cycles.has && s->htp_cores <= 1) s->hmx_op_share = pct(c, s->timeline_cycles.v);
}

int etp_qnn_derive(const etp_qnn_sources *src, etp_qnn_derived **out, etp_error *err) {
    *out = NULL;
    etp_qnn_derived *d = calloc(1, sizeof *d);
    if (!d) return oom(err);
    rows_build b = {.d = d};
    int rc = ETP_OK;
    const etp_qnn_qhas *q = src ? src->qhas : NULL;
    const etp_qnn_trace *t = src ? src->trace : NULL;
    if (q && (q->n_instances || q->n_nodes)) {
        d->rows_source = ETP_QNN_SRC_QHAS;
        rc = rows_from_qhas(&b, q);
    } else if (t) {
        d->rows_source = ETP_QNN_SRC_OPTRACE;
        rc = rows_from_trace(&b, t);
    }
    smap_free(&b.names);
    if (rc) goto fail;
    for (uint32_t i = 0; i < d->n_rows; i++) d->total_cycles = sat_add(d->total_cycles, d->rows[i].cycles);
    for (uint32_t i = 0; i < d->n_rows; i++)
        d->rows[i].share = d->total_cycles > 0
                               ? (double)d->rows[i].cycles * 100.0 / (double)d->total_cycles
                               : 0.0;

    etp_qnn_summary *s = &d->summary;
    if (q && q->n_cores) rc = summary_from_qhas(s, q);
    else if (t) rc = summary_from_trace(s, t);
    if (rc) goto fail;
    hmx_compute(d);
    if (q && q->n_paths) rc = dominant_from_qhas(s, &q->paths[0]);
    else if (t) rc = dominant_from_trace(s, t);
    if (rc) goto fail;

    const etp_qnn_rt_phase *ge =
        src && src->runtrace ? etp_qnn_runtrace_phase(src->runtrace, 0, ETP_QNN_PHASE_GRAPH_EXECUTE)
                             : NULL;
    if (ge && ge->htp_frequency_ghz.has) {
        s->clock_ghz = ge->htp_frequency_ghz;
        s->clock_source = ETP_QNN_SRC_RUNTRACE;
    } else if (q && q->n_cores && q->overall.timeline_cycles.has &&
               q->overall.graph_execute_us.has && q->overall.graph_execute_us.v > 0) {
        s->clock_ghz = (etp_qnn_f64){(double)q->overall.timeline_cycles.v /
                                         (double)q->overall.graph_execute_us.v / 1000.0,
                                     true};
        s->clock_source = ETP_QNN_SRC_QHAS;
    }
    exec_times(s, q, src ? src->runtrace : NULL);
    if (src && src->heap) {
        s->heap_before_bytes = src->heap->before;
        s->heap_after_bytes = src->heap->after;
        s->heap_delta_bytes = src->heap->delta;
    }
    *out = d;
    return ETP_OK;
fail:
    etp_qnn_derived_free(d);
    return oom(err);
}

void etp_qnn_derived_free(etp_qnn_derived *d) {
    if (!d) return;
    free(d->rows);
    free(d->summary.threads);
    free(d->summary.dominant);
    free(d);
}

const etp_qnn_op_row *etp_qnn_derived_row(const etp_qnn_derived *d, const char *qnn_op) {
    for (uint32_t i = 0; d && qnn_op && i < d->n_rows; i++)
        if (strcmp(d->rows[i].qnn_op, qnn_op) == 0) return &d->rows[i];
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * optrace vs QHAS cycles
 * ------------------------------------------------------------------------------------------- */

typedef struct named_sum {
    const char *name;
    int64_t cycles;
} named_sum;

/* Appends/accumulates name -> cycles. */
static bool sum_put(smap *m, named_sum **arr, uint32_t *n, uint32_t *cap, const char *name,
                    int64_t cycles) {
    uint32_t i;
    if (smap_get(m, name, strlen(name), &i)) {
        (*arr)[i].cycles = sat_add((*arr)[i].cycles, cycles);
        return true;
    }
    if (etp_qnn_grow(arr, cap, *n + 1, sizeof **arr) || !smap_put(m, name, strlen(name), *n))
        return false;
    (*arr)[(*n)++] = (named_sum){name, cycles};
    return true;
}

int etp_qnn_check_optrace_qhas(const etp_qnn_trace *t, const etp_qnn_qhas *q,
                               etp_qnn_cycle_mismatch **out, uint32_t *n_out, etp_error *err) {
    *out = NULL;
    *n_out = 0;
    if (!t || !q) {
        etp_error_set(err, ETP_E_USAGE, "", -1, "", "both an optrace and a QHAS are needed");
        return ETP_E_USAGE;
    }
    smap tm = {0}, qm = {0};
    named_sum *ts = NULL, *qs = NULL;
    uint32_t tn = 0, tcap = 0, qn = 0, qcap = 0, mcap = 0;
    etp_qnn_cycle_mismatch *mm = NULL;
    uint32_t mn = 0;
    bool ok = true;
    for (uint32_t i = 0; ok && i < t->n_ops; i++)
        if (t->ops[i].qnn_op) ok = sum_put(&tm, &ts, &tn, &tcap, t->ops[i].qnn_op, t->ops[i].dur);
    if (q->sections & ETP_QNN_QHAS_NODES) {
        for (uint32_t i = 0; ok && i < q->n_nodes; i++)
            ok = sum_put(&qm, &qs, &qn, &qcap, q->nodes[i].qnn_op, q->nodes[i].cycles);
    } else {
        for (uint32_t i = 0; ok && i < q->n_instances; i++)
            ok = sum_put(&qm, &qs, &qn, &qcap, q->instances[i].qnn_op, q->instances[i].cycles);
    }
    for (uint32_t i = 0; ok && i < qn; i++) {
        uint32_t k;
        bool in_t = smap_get(&tm, qs[i].name, strlen(qs[i].name), &k);
        if (in_t && ts[k].cycles == qs[i].cycles) continue;
        if ((ok = !etp_qnn_grow(&mm, &mcap, mn + 1, sizeof *mm)))
            mm[mn++] = (etp_qnn_cycle_mismatch){qs[i].name, {in_t ? ts[k].cycles : 0, in_t},
                                                {qs[i].cycles, true}};
    }
    for (uint32_t i = 0; ok && i < tn; i++) {
        uint32_t k;
        if (smap_get(&qm, ts[i].name, strlen(ts[i].name), &k)) continue;
        if ((ok = !etp_qnn_grow(&mm, &mcap, mn + 1, sizeof *mm)))
            mm[mn++] = (etp_qnn_cycle_mismatch){ts[i].name, {ts[i].cycles, true}, {0, false}};
    }
    smap_free(&tm);
    smap_free(&qm);
    free(ts);
    free(qs);
    if (!ok) {
        free(mm);
        return oom(err);
    }
    *out = mm;
    *n_out = mn;
    return ETP_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Node names and the join
 * ------------------------------------------------------------------------------------------- */

etp_qnn_node_kind etp_qnn_parse_node_name(const char *name, etp_qnn_node_name *out) {
    static const char suffix[] = " (cycles)", tag[] = "OpId_";
    etp_qnn_node_name r = {ETP_QNN_NODE_NONE, NULL, 0, 0};
    if (out) *out = r;
    if (!name) return ETP_QNN_NODE_NONE;
    size_t n = strlen(name), sl = sizeof suffix - 1, tl = sizeof tag - 1;
    if (n < sl || memcmp(name + n - sl, suffix, sl) != 0) return ETP_QNN_NODE_NONE;
    n -= sl;
    /* trailing decimal digits = the id */
    size_t d = n;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') d--;
    if (d == n || n - d > 10) return ETP_QNN_NODE_NONE;
    uint64_t id = 0;
    for (size_t i = d; i < n; i++) id = id * 10 + (uint64_t)(name[i] - '0');
    if (id > UINT32_MAX || d < tl || memcmp(name + d - tl, tag, tl) != 0) return ETP_QNN_NODE_NONE;
    size_t pre = d - tl; /* text before "OpId_" */
    r.op_id = (uint32_t)id;
    if (pre == 0) {
        r.kind = ETP_QNN_NODE_SYSTEM;
    } else if (pre == 6 && memcmp(name, "Input ", 6) == 0) {
        r.kind = ETP_QNN_NODE_INPUT;
        r.name = "Input";
        r.name_len = 5;
    } else if (pre == 7 && memcmp(name, "Output ", 7) == 0) {
        r.kind = ETP_QNN_NODE_OUTPUT;
        r.name = "Output";
        r.name_len = 6;
    } else if (pre >= 2 && name[pre - 1] == ':') {
        r.kind = ETP_QNN_NODE_NAMED;
        r.name = name;
        r.name_len = pre - 1;
    } else {
        return ETP_QNN_NODE_NONE;
    }
    if (out) *out = r;
    return r.kind;
}

int etp_qnn_viewer_nodes(const etp_qnn_stat_block *block, etp_qnn_etdump_node **out,
                         uint32_t *n_out, etp_error *err) {
    *out = NULL;
    *n_out = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; block && i < block->n_events; i++) n += block->events[i].is_node;
    if (!n) return ETP_OK;
    etp_qnn_etdump_node *v = calloc(n, sizeof *v);
    if (!v) return oom(err);
    uint32_t k = 0;
    for (uint32_t i = 0; i < block->n_events; i++) {
        const etp_qnn_stat_event *e = &block->events[i];
        etp_qnn_node_name nn;
        if (!e->is_node || etp_qnn_parse_node_name(e->identifier, &nn) == ETP_QNN_NODE_NONE)
            continue;
        v[k++] = (etp_qnn_etdump_node){nn.name, nn.name_len, nn.op_id, e->value};
    }
    *out = v;
    *n_out = k;
    return ETP_OK;
}

typedef struct id_idx {
    uint32_t id, idx;
} id_idx;

static int cmp_id_idx(const void *a, const void *b) {
    const id_idx *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static bool same_name(const etp_qnn_etdump_node *nd, const etp_qnn_op_row *r) {
    return nd->name && r->qnn_op && strlen(r->qnn_op) == nd->name_len &&
           memcmp(r->qnn_op, nd->name, nd->name_len) == 0;
}

int etp_qnn_join_nodes(const etp_qnn_etdump_node *nodes, uint32_t n_nodes,
                       const etp_qnn_op_row *rows, uint32_t n_rows, etp_qnn_join **out,
                       etp_error *err) {
    *out = NULL;
    etp_qnn_join *j = calloc(1, sizeof *j);
    id_idx *byid = n_rows ? malloc(n_rows * sizeof *byid) : NULL;
    bool *row_used = n_rows ? calloc(n_rows, sizeof *row_used) : NULL;
    etp_qnn_join_pair *match = n_nodes ? calloc(n_nodes, sizeof *match) : NULL;
    bool *node_done = n_nodes ? calloc(n_nodes, sizeof *node_done) : NULL;
    smap names = {0};
    bool ok = j && (!n_rows || (byid && row_used)) && (!n_nodes || (match && node_done));
    uint32_t nb = 0; /* rows with a known op id, in byid[] */
    for (uint32_t i = 0; ok && i < n_rows; i++) {
        if (rows[i].has_op_id) byid[nb++] = (id_idx){rows[i].op_id, i};
        uint32_t dummy;
        if (rows[i].qnn_op && !smap_get(&names, rows[i].qnn_op, strlen(rows[i].qnn_op), &dummy))
            ok = smap_put(&names, rows[i].qnn_op, strlen(rows[i].qnn_op), i);
    }
    if (ok && nb) qsort(byid, nb, sizeof *byid, cmp_id_idx);
    /* Pass 1: by OpId, preferring the same name. */
    for (uint32_t i = 0; ok && i < n_nodes; i++) {
        const etp_qnn_etdump_node *nd = &nodes[i];
        size_t lo = 0, hi = nb;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (byid[mid].id < nd->op_id) lo = mid + 1;
            else hi = mid;
        }
        int64_t pick = -1;
        for (size_t k = lo; k < nb && byid[k].id == nd->op_id; k++) {
            uint32_t r = byid[k].idx;
            if (row_used[r]) continue;
            if (same_name(nd, &rows[r])) {
                pick = r;
                break;
            }
            if (pick < 0) pick = r;
        }
        if (pick >= 0) {
            row_used[pick] = true;
            node_done[i] = true;
            match[i] = (etp_qnn_join_pair){i, (uint32_t)pick, true, same_name(nd, &rows[pick])};
        }
    }
    /* Pass 2: leftover named nodes by name alone. */
    for (uint32_t i = 0; ok && i < n_nodes; i++) {
        uint32_t r;
        if (node_done[i] || !nodes[i].name) continue;
        if (smap_get(&names, nodes[i].name, nodes[i].name_len, &r) && !row_used[r]) {
            row_used[r] = true;
            node_done[i] = true;
            match[i] = (etp_qnn_join_pair){i, r, false, true};
        }
    }
    uint32_t np = 0, nn = 0, nr = 0;
    for (uint32_t i = 0; ok && i < n_nodes; i++) {
        if (node_done[i]) np++;
        else nn++;
    }
    for (uint32_t i = 0; ok && i < n_rows; i++) nr += !row_used[i];
    if (ok && np) ok = (j->pairs = malloc(np * sizeof *j->pairs)) != NULL;
    if (ok && nn) ok = (j->node_only = malloc(nn * sizeof *j->node_only)) != NULL;
    if (ok && nr) ok = (j->row_only = malloc(nr * sizeof *j->row_only)) != NULL;
    for (uint32_t i = 0; ok && i < n_nodes; i++) {
        if (node_done[i]) j->pairs[j->n_pairs++] = match[i];
        else j->node_only[j->n_node_only++] = i;
    }
    for (uint32_t i = 0; ok && i < n_rows; i++)
        if (!row_used[i]) j->row_only[j->n_row_only++] = i;
    free(byid);
    free(row_used);
    free(match);
    free(node_done);
    smap_free(&names);
    if (!ok) {
        etp_qnn_join_free(j);
        return oom(err);
    }
    *out = j;
    return ETP_OK;
}

void etp_qnn_join_free(etp_qnn_join *j) {
    if (!j) return;
    free(j->pairs);
    free(j->node_only);
    free(j->row_only);
    free(j);
}
