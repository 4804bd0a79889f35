/* trace.c - the trace walk and its Chrome Trace Event Format JSON writer (Perfetto,
 * chrome://tracing). The walk lays each block out once (trace_int.h) and hands it to a sink:
 * the JSON one here, or Perfetto's protobuf one (trace_pftrace.c, etp_trace_write_perfetto).
 *
 * Layout (docs/trace.md):
 *  - one process per method ("Execute (method unknown)" without a program), one process "load"
 *    for the other blocks (Default: Program::load_method, Method::init);
 *  - per block (run) a group of threads: the host track with every event that has real host
 *    timestamps, up to three overflow lanes for the rare events that overlap without nesting,
 *    and the synthetic tracks for delegate values without timestamps (QNN);
 *  - times are integer nanoseconds internally (exact nesting arithmetic), written as µs with up
 *    to three decimals, relative to the first host timestamp of the file. Integer ns survive
 *    the importers' µs -> ns conversion (Perfetto rounds ts*1000) without breaking nesting.
 *
 * Streaming: one block is laid out at a time and written before the next one is read.
 */
#include "sort.h"
#include "etprof.h"
#include "etprof_backend.h"
#include "etprof_etrecord.h"
#include "etprof_qnn.h"
#include "jw.h"
#include "qnn.h"
#include "trace_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---------------------------------------------------------------------- */

static void *grow(void *p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *q = realloc(p, c * elem);
    if (!q) return NULL;
    *cap = c;
    return q;
}

static bool is_str(const char *s, const char *lit) { return s && strcmp(s, lit) == 0; }

/* ns -> µs text with up to three decimals, exact ("12.5", "0.001", "3"), from the integer. */
static void put_us(jw *w, int64_t ns) {
    char buf[40], *end = buf + sizeof buf - 1, *p = end;
    bool neg = ns < 0;
    uint64_t v = neg ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    uint64_t ip = v / 1000u, fp = v % 1000u;
    *end = '\0';
    if (fp) {
        int places = 3;
        while (fp % 10 == 0) fp /= 10, places--;
        while (places--) *--p = (char)('0' + fp % 10), fp /= 10;
        *--p = '.';
    }
    do *--p = (char)('0' + ip % 10); while (ip /= 10);
    if (neg) *--p = '-';
    jw_raw(w, p);
}

static void key_us(jw *w, const char *k, int64_t ns) {
    jw_key(w, k);
    put_us(w, ns);
}

static bool is_wall(const etp_mevent *e) {
    return e->ev.type == ETP_EVENT_PROFILE && !(e->flags & (ETP_MF_NOT_WALL | ETP_MF_BAD_TIME));
}

/* Raw duration in ticks, as the model saw it (32-bit wrap handled). */
static uint64_t raw_dur(const etp_mevent *e) {
    uint64_t s = e->ev.profile.start_time, t = e->ev.profile.end_time;
    if (s <= t) return t - s;
    return (UINT64_C(1) << 32) - s + t; /* ETP_MF_WRAPPED */
}

/* Unwrapped start/end ticks of a wall event; call in file order. */
static void clock_times(hclock *c, const etp_mevent *e, uint64_t *s, uint64_t *t) {
    uint64_t end = e->ev.profile.end_time;
    if (c->unwrap) {
        uint64_t u = (c->epoch << 32) | (end & 0xffffffffu);
        if (c->have_last && u + (UINT64_C(1) << 31) < c->last) {
            c->epoch++;
            u = (c->epoch << 32) | (end & 0xffffffffu);
        }
        /* Scope-end order keeps ends non-decreasing; a small step back is a post-hoc event. */
        if (!c->have_last || u > c->last) c->last = u;
        c->have_last = true;
        end = u;
    }
    uint64_t d = raw_dur(e);
    *t = end;
    *s = end >= d ? end - d : 0;
}

static int64_t to_ns(const trace *t, uint64_t ticks) {
    uint64_t rel = ticks >= t->base ? ticks - t->base : 0;
    return (int64_t)llround((double)rel * t->ns_per_tick);
}

static int64_t ns_value(double ns) {
    if (!(ns > 0)) return 0;
    return ns > 9e18 ? (int64_t)9e18 : (int64_t)llround(ns);
}

static int64_t us_to_ns(double us) {
    if (!(us > 0)) return 0;
    double v = us * 1e3;
    if (v > 9e18) v = 9e18;
    return (int64_t)llround(v);
}

const char *etp__trace_placement(const etp_mevent *e) {
    switch (e->kind) {
    case ETP_KIND_KERNEL:
    case ETP_KIND_OPERATOR_CALL: return "cpu";
    case ETP_KIND_DELEGATE_CALL:
    case ETP_KIND_DELEGATE_INTERNAL: return e->backend ? e->backend : "delegate";
    case ETP_KIND_ALLOCATION: return "memory";
    default: return e->backend ? e->backend : "framework";
    }
}

const char *etp__trace_qnn_class_name(etp_qnn_class q) {
    switch (q) {
    case ETP_QNN_TOP: return "top";
    case ETP_QNN_NODE: return "node";
    case ETP_QNN_NODE_IO: return "node_io";
    case ETP_QNN_NODE_SYS: return "node_sys";
    default: return NULL;
    }
}

/* The QNN top-level µs events in their documented nesting order, outermost first
 * (qnn-profiling.md §3.1): QNN (execute) ⊇ RPC ⊇ QNN accelerator ⊇ Accelerator ⊇ excl. wait. */
static const char *const chain_names[] = {
    "QNN (execute) time (us)",
    "RPC (execute) time (us)",
    "QNN accelerator (execute) time (us)",
    "Accelerator (execute) time (us)",
    "Accelerator (execute excluding wait) time (us)",
};
#define N_CHAIN 5
#define CHAIN_ACCEL 3
#define CHAIN_EXCL 4
static const char *const wait_names[] = {
    "Time for initial VTCM acquire (us)",
    "Time for HVX + HMX power on and acquire (us)",
};
static const char node_parent_name[] = "Accelerator (execute) time (cycles)";

static int chain_index(const char *label) {
    for (int i = 0; i < N_CHAIN; i++)
        if (is_str(label, chain_names[i])) return i;
    return -1;
}


/* ---- metadata ----------------------------------------------------------------------------- */

static void meta(trace *t, const char *what, int pid, int64_t tid, const char *key,
                 const char *sval, int64_t ival) {
    jw *w = &t->w;
    jw_obj_begin(w);
    jw_key_lit(w, "name"); jw_str(w, what);
    jw_key_lit(w, "ph"); jw_str(w, "M");
    jw_key_lit(w, "pid"); jw_int(w, pid);
    if (tid >= 0) {
        jw_key_lit(w, "tid"); jw_int(w, tid);
    }
    jw_key_lit(w, "args");
    jw_obj_begin(w);
    jw_key(w, key);
    if (sval) jw_str(w, sval);
    else jw_int(w, ival);
    jw_obj_end(w);
    jw_obj_end(w);
    jw_newline(&t->w);
}

static void json_process(trace *t, int pid, const char *name, int sort) {
    meta(t, "process_name", pid, -1, "name", name, 0);
    meta(t, "process_sort_index", pid, -1, "sort_index", NULL, sort);
}

static void name_process(trace *t, int pid, const char *name, int sort) {
    t->sink->process(t, pid, name, sort);
    t->st->processes++;
}

static void json_thread(trace *t, int pid, int64_t tid, const char *name) {
    meta(t, "thread_name", pid, tid, "name", name, 0);
    meta(t, "thread_sort_index", pid, tid, "sort_index", NULL, tid);
    t->st->tracks++;
}

/* The process of a block and its run number (1-based within the process). */
/* Whether the run in block `v` is written (etp_trace_opts run selection); *number receives its
 * number among its method's runs. -1 when out of memory. */
static int run_selected(trace *t, const etp_block_view *v, uint64_t *number) {
    const etp_trace_opts *o = t->o;
    const char *name = v->method;
    size_t i = 0;
    for (; i < t->nrc; i++)
        if ((!t->rc[i].name && !name) || (t->rc[i].name && name && strcmp(t->rc[i].name, name) == 0))
            break;
    if (i == t->nrc) {
        run_count *n = grow(t->rc, &t->caprc, t->nrc + 1, sizeof *t->rc);
        if (!n) return -1;
        t->rc = n;
        t->rc[t->nrc++] = (run_count){name, 0, 0};
    }
    run_count *c = &t->rc[i];
    uint64_t r = ++c->seen;
    *number = r;
    bool keep = r > o->skip_first && (!o->run_first || r >= o->run_first) &&
                (!o->run_last || r <= o->run_last) && (!o->max_runs || c->kept < o->max_runs);
    if (keep) c->kept++;
    else t->st->runs_left_out++;
    return keep;
}

static int block_process(trace *t, const etp_block_view *v, uint64_t *run, etp_error *err) {
    if (!v->is_execute) {
        if (!t->load_named) {
            name_process(t, 1, "load", 0);
            t->load_named = true;
        }
        *run = ++t->load_runs;
        return 1;
    }
    const char *name = v->method;
    uint64_t number = *run; /* the run's number among its method's runs */
    for (size_t i = 0; i < t->nprocs; i++) {
        method_proc *p = &t->procs[i];
        if ((p->name == NULL && name == NULL) || (p->name && name && strcmp(p->name, name) == 0)) {
            ++p->runs;
            *run = number;
            return p->pid;
        }
    }
    method_proc *np = grow(t->procs, &t->capprocs, t->nprocs + 1, sizeof *t->procs);
    if (!np) {
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return -1;
    }
    t->procs = np;
    method_proc *p = &t->procs[t->nprocs++];
    p->name = name;
    p->pid = t->next_pid++;
    p->runs = 1;
    *run = number;
    name_process(t, p->pid, name ? name : "Execute (method unknown)", p->pid);
    return p->pid;
}

/* ---- per-block layout ------------------------------------------------------------------- */

static int reserve(trace *t, uint32_t n, etp_error *err) {
    if (n > t->cap) {
        uint32_t c = t->cap ? t->cap : 64;
        while (c < n) c *= 2;
        bool ok = true;
#define RE(p)                                                                                    \
    do {                                                                                         \
        void *q = realloc(p, (size_t)c * sizeof *(p));                                           \
        if (q) p = q;                                                                            \
        else ok = false;                                                                         \
    } while (0)
        RE(t->slice_of);
        RE(t->ws);
        RE(t->we);
        RE(t->wall);
        RE(t->order);
        for (int l = 0; l < N_LANES; l++) RE(t->lane[l]);
#undef RE
        void *g = realloc(t->grp, (size_t)c * 2 * sizeof *t->grp);
        if (g) t->grp = g;
        else ok = false;
        if (!ok) {
            etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
            return ETP_E_INTERNAL;
        }
        t->cap = c;
    }
    return ETP_OK;
}

static tslice *add_slice(trace *t) {
    tslice *s = grow(t->sl, &t->capsl, t->nsl + 1, sizeof *t->sl);
    if (!s) return NULL;
    t->sl = s;
    s = &t->sl[t->nsl++];
    memset(s, 0, sizeof *s);
    s->ev = -1;
    s->container = -1;
    return s;
}

static bool add_inst(trace *t, int64_t ts, int32_t ev, int32_t container, uint8_t sub) {
    tinst *p = grow(t->in, &t->capin, t->nin + 1, sizeof *t->in);
    if (!p) return false;
    t->in = p;
    p = &t->in[t->nin++];
    p->ts = ts;
    p->ev = ev;
    p->container = container;
    p->sub = sub;
    return true;
}

/* Sort context for host events: start asc, end desc, index desc (a wrapper is written after
 * what it wraps, so with equal spans the later event is the outer one). */
static int cmp_host(const void *a, const void *b, void *ctx) {
    const trace *t = ctx;
    const int64_t *ws = t->ws, *we = t->we;
    int32_t i = *(const int32_t *)a, j = *(const int32_t *)b;
    if (ws[i] != ws[j]) return ws[i] < ws[j] ? -1 : 1;
    if (we[i] != we[j]) return we[i] > we[j] ? -1 : 1;
    return i > j ? -1 : (i < j);
}

/* Lays the real-timestamp events out on the host track (and overflow lanes). */
static int layout_host(trace *t, const etp_block_view *v, etp_error *err) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < v->n; i++)
        if (t->wall[i]) t->order[n++] = (int32_t)i;
    etp__sort(t->order, n, sizeof *t->order, cmp_host, t);
    uint32_t depth[N_LANES] = {0};
    for (uint32_t k = 0; k < n; k++) {
        int32_t i = t->order[k];
        int64_t s = t->ws[i], e = t->we[i];
        int lane = -1;
        for (int l = 0; l < N_LANES; l++) {
            /* Close the slices that ended by `s` (sorted by start: they contain nothing later). */
            while (depth[l]) {
                const tslice *top = &t->sl[t->lane[l][depth[l] - 1]];
                if (top->ts + top->dur > s) break;
                depth[l]--;
            }
            if (lane < 0) {
                const tslice *top = depth[l] ? &t->sl[t->lane[l][depth[l] - 1]] : NULL;
                if (!top || e <= top->ts + top->dur) lane = l;
            }
        }
        bool clamped = false;
        if (lane < 0) { /* overlaps in every lane: shorten it to fit the host track */
            lane = 0;
            const tslice *top = &t->sl[t->lane[0][depth[0] - 1]];
            e = top->ts + top->dur;
            clamped = true;
        }
        tslice *sl = add_slice(t);
        if (!sl) goto oom;
        sl->ts = s;
        sl->dur = e - s;
        sl->ev = i;
        sl->rank = (int64_t)k;
        sl->sub = (uint8_t)(SUB_HOST + lane);
        sl->role = ROLE_REAL;
        sl->clamped = clamped;
        t->slice_of[i] = (int32_t)(t->nsl - 1);
        t->lane[lane][depth[lane]++] = (int32_t)(t->nsl - 1);
        if (lane > 0) t->st->overlapped++;
        if (clamped) t->st->clamped++;
    }
    return ETP_OK;
oom:
    etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
    return ETP_E_INTERNAL;
}

/* Groups by their container's start, longer first (ctx: the trace). */
static int cmp_group(const void *a, const void *b, void *ctx) {
    const trace *t = ctx;
    const tslice *x = &t->sl[t->slice_of[t->grp[2 * *(const int32_t *)a]]];
    const tslice *y = &t->sl[t->slice_of[t->grp[2 * *(const int32_t *)b]]];
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1;
    return (*(const int32_t *)a > *(const int32_t *)b) - (*(const int32_t *)a < *(const int32_t *)b);
}

static int cmp_pair(const void *a, const void *b) {
    const int32_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Places the delegate events without timestamps of one container (a DELEGATE_CALL, or the
 * nearest timed ancestor) inside its span. */
static int place_group(trace *t, const etp_block_view *v, int32_t c, const int32_t *pairs,
                       uint32_t np, uint8_t set, etp_error *err) {
    const uint8_t sub_time = (uint8_t)(SUB_TIME + 3 * set), sub_other = (uint8_t)(SUB_OTHER + 3 * set),
                  sub_nodes = (uint8_t)(SUB_NODES + 3 * set);
    const tslice *cs = &t->sl[t->slice_of[c]];
    int64_t c0 = cs->ts, c1 = cs->ts + cs->dur;
    int32_t chain[N_CHAIN], waits[2] = {-1, -1}, parent = -1;
    for (int k = 0; k < N_CHAIN; k++) chain[k] = -1;
    uint32_t nnodes = 0;
    double node_sum = 0;
    for (uint32_t k = 0; k < np; k++) {
        int32_t i = pairs[2 * k + 1];
        const etp_mevent *e = &v->events[i];
        int ci;
        if (e->unit == ETP_UNIT_US && (ci = chain_index(e->label)) >= 0 && chain[ci] < 0)
            chain[ci] = i;
        else if (e->unit == ETP_UNIT_US && is_str(e->label, wait_names[0]) && waits[0] < 0)
            waits[0] = i;
        else if (e->unit == ETP_UNIT_US && is_str(e->label, wait_names[1]) && waits[1] < 0)
            waits[1] = i;
        else if (e->unit == ETP_UNIT_CYCLES && e->qnn >= ETP_QNN_NODE) {
            nnodes++;
            if (e->value > 0) node_sum += e->value;
        } else if (e->unit == ETP_UNIT_CYCLES && parent < 0 && is_str(e->label, node_parent_name))
            parent = i;
    }
    /* 1. The µs chain, end-aligned, each inside the previous one. */
    int64_t p0 = c0, p1 = c1;
    int64_t span0[N_CHAIN], span1[N_CHAIN];
    for (int k = 0; k < N_CHAIN; k++) {
        span0[k] = span1[k] = 0;
        if (chain[k] < 0) continue;
        const etp_mevent *e = &v->events[chain[k]];
        int64_t d = us_to_ns(e->value);
        tslice *s = add_slice(t);
        if (!s) goto oom;
        if (d > p1 - p0) {
            d = p1 - p0;
            s->clamped = true;
            t->st->clamped++;
        }
        s->ts = p1 - d;
        s->dur = d;
        s->ev = chain[k];
        s->container = c;
        s->sub = sub_time;
        s->role = ROLE_CHAIN;
        s->rank = 10 * k; /* waits (35, 36) go between the accelerator (30) and excl. wait */
        p0 = s->ts;
        span0[k] = s->ts;
        span1[k] = p1;
    }
    /* 2. Waits (VTCM acquire, power-up): inside the accelerator span, before the graph itself. */
    {
        int host = -1;
        for (int k = CHAIN_ACCEL; k >= 0; k--)
            if (chain[k] >= 0) {
                host = k;
                break;
            }
        int64_t g0 = host >= 0 ? span0[host] : c0;
        int64_t g1 = chain[CHAIN_EXCL] >= 0 ? span0[CHAIN_EXCL] : (host >= 0 ? span1[host] : c1);
        int64_t at = g0;
        for (int k = 0; k < 2; k++) {
            if (waits[k] < 0) continue;
            int64_t d = us_to_ns(v->events[waits[k]].value);
            tslice *s = add_slice(t);
            if (!s) goto oom;
            if (d > g1 - at) {
                d = g1 - at > 0 ? g1 - at : 0;
                s->clamped = true;
                t->st->clamped++;
            }
            s->ts = at;
            s->dur = d;
            s->ev = waits[k];
            s->container = c;
            s->sub = sub_time;
            s->role = ROLE_WAIT;
            s->rank = 35 + k;
            at += d;
        }
    }
    /* 3. Nodes: spread over the graph-execution span by their share of the node-cycle total. */
    if (nnodes) {
        int64_t w0 = c0, w1 = c1;
        const char *window = "DELEGATE_CALL";
        for (int k = N_CHAIN - 1; k >= 0; k--)
            if (chain[k] >= 0) {
                w0 = span0[k];
                w1 = span1[k];
                window = chain_names[k];
                break;
            }
        if (window && strcmp(window, "DELEGATE_CALL") == 0 && v->events[c].kind != ETP_KIND_DELEGATE_CALL)
            window = v->events[c].label;
        tslice *pslice = add_slice(t);
        if (!pslice) goto oom;
        pslice->ts = w0;
        pslice->dur = w1 - w0;
        pslice->ev = parent;
        pslice->container = c;
        pslice->sub = sub_nodes;
        pslice->role = ROLE_NODE_PARENT;
        pslice->rank = 0;
        pslice->node_sum = node_sum;
        pslice->node_count = nnodes;
        pslice->window = window;
        double cum = 0;
        uint32_t seen = 0;
        int64_t wd = w1 - w0, at = w0;
        for (uint32_t k = 0; k < np; k++) {
            int32_t i = pairs[2 * k + 1];
            const etp_mevent *e = &v->events[i];
            if (!(e->unit == ETP_UNIT_CYCLES && e->qnn >= ETP_QNN_NODE)) continue;
            double val = e->value > 0 ? e->value : 0;
            cum += val;
            seen++;
            int64_t end = node_sum > 0 ? w0 + (int64_t)llround((double)wd * (cum / node_sum)) : w0;
            if (seen == nnodes && node_sum > 0) end = w1;
            if (end < at) end = at;
            if (end > w1) end = w1;
            tslice *s = add_slice(t);
            if (!s) goto oom;
            s->ts = at;
            s->dur = end - at;
            s->ev = i;
            s->container = c;
            s->sub = sub_nodes;
            s->role = ROLE_NODE;
            s->rank = 1 + (int64_t)seen;
            s->share = node_sum > 0 ? val / node_sum : 0;
            at = end;
        }
    }
    /* 4. Everything else: other time values end-aligned (device-clock events: at their offset
     *    from the group's first device start, from the container's start); counts, bytes, raw
     *    values and cycles that are not nodes as instants at the container's end (never drawn as
     *    time). */
    int32_t rank_other = 0;
    uint64_t dev0 = UINT64_MAX;
    for (uint32_t k = 0; k < np; k++) {
        const etp_mevent *e = &v->events[pairs[2 * k + 1]];
        if (etp_backend_event_device_clock(e) && e->ev.profile.start_time < dev0)
            dev0 = e->ev.profile.start_time;
    }
    for (uint32_t k = 0; k < np; k++) {
        int32_t i = pairs[2 * k + 1];
        const etp_mevent *e = &v->events[i];
        bool used = false;
        for (int q = 0; q < N_CHAIN; q++) used |= chain[q] == i;
        used |= waits[0] == i || waits[1] == i;
        used |= e->unit == ETP_UNIT_CYCLES && e->qnn >= ETP_QNN_NODE;
        if (used) continue;
        if (i == parent) {
            if (nnodes) continue; /* drawn as the node container */
        } else if (etp_unit_is_time(e->unit)) {
            int64_t d = e->unit == ETP_UNIT_US ? us_to_ns(e->value) : ns_value(e->value);
            tslice *s = add_slice(t);
            if (!s) goto oom;
            int64_t at = -1;
            if (dev0 != UINT64_MAX && etp_backend_event_device_clock(e)) {
                at = c0 + ns_value((double)(e->ev.profile.start_time - dev0) * t->ns_per_tick);
                if (at > c1) at = c1;
            }
            if (d > (at >= 0 ? c1 - at : c1 - c0)) {
                d = at >= 0 ? c1 - at : c1 - c0;
                s->clamped = true;
                t->st->clamped++;
            }
            s->ts = at >= 0 ? at : c1 - d;
            s->dur = d;
            s->ev = i;
            s->container = c;
            s->sub = sub_other;
            s->role = ROLE_OTHER;
            s->rank = rank_other++;
            continue;
        }
        if (!add_inst(t, c1, i, c, sub_time)) goto oom;
    }
    return ETP_OK;
oom:
    etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
    return ETP_E_INTERNAL;
}

static int cmp_slice(const void *a, const void *b) {
    const tslice *x = a, *y = b;
    if (x->sub != y->sub) return x->sub < y->sub ? -1 : 1;
    if (x->sub < N_LANES) return (x->rank > y->rank) - (x->rank < y->rank); /* layout order */
    /* Synthetic tracks: by start, then by container (a later call's first slice never becomes
     * the parent of an earlier call's zero-length last one), then in the planned nesting order
     * (outer first, nodes in QNN order) - not by duration, so that a zero-cycle node stays a
     * sibling of the node starting where it sits. */
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->container != y->container) return x->container < y->container ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Sorts t->sl by cmp_slice (a total order, so any algorithm gives the same result): a stable
 * distribution by track first (cmp_slice's first key), then each track's slices sorted only
 * when they are not in order already - the usual case, as each track's layout is made in order
 * (a QNN run's thousands of node slices are). false when out of memory. */
static bool sort_slices(trace *t) {
    size_t n = t->nsl, cnt[SUB_COUNT_ + 1] = {0};
    bool sorted = true;
    for (size_t k = 1; k < n && sorted; k++)
        if (cmp_slice(&t->sl[k - 1], &t->sl[k]) > 0) sorted = false;
    if (sorted) return true;
    tslice *d = grow(t->sl2, &t->capsl2, n, sizeof *t->sl2);
    if (!d) return false;
    t->sl2 = d;
    for (size_t k = 0; k < n; k++) cnt[t->sl[k].sub + 1]++;
    for (int s = 0; s < SUB_COUNT_; s++) cnt[s + 1] += cnt[s];
    size_t at[SUB_COUNT_];
    memcpy(at, cnt, sizeof at);
    for (size_t k = 0; k < n; k++) d[at[t->sl[k].sub]++] = t->sl[k];
    for (int s = 0; s < SUB_COUNT_; s++) {
        size_t lo = cnt[s], hi = cnt[s + 1];
        bool ok = true;
        for (size_t k = lo + 1; k < hi && ok; k++)
            if (cmp_slice(&d[k - 1], &d[k]) > 0) ok = false;
        if (!ok) qsort(d + lo, hi - lo, sizeof *d, cmp_slice);
    }
    tslice *tmp = t->sl;
    size_t tc = t->capsl;
    t->sl = d;
    t->capsl = t->capsl2;
    t->sl2 = tmp;
    t->capsl2 = tc;
    return true;
}

static int cmp_inst(const void *a, const void *b) {
    const tinst *x = a, *y = b;
    if (x->sub != y->sub) return x->sub < y->sub ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}

/* ---- writing ------------------------------------------------------------------------------ */

static void write_operator(jw *w, const etp_mevent *e) {
    jw_key_lit(w, "operator");
    if (e->op_name) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s%s%s", e->op_name,
                 e->op_overload && *e->op_overload ? "." : "",
                 e->op_overload ? e->op_overload : "");
        jw_str(w, buf);
    } else jw_null(w);
}

static void write_flags(jw *w, uint32_t fl) {
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{ETP_MF_WRAPPED, "wrapped"},     {ETP_MF_BAD_TIME, "bad_time"},
                 {ETP_MF_MINIMAL_PAL, "minimal_pal"}, {ETP_MF_NO_CLOCK, "no_clock"},
                 {ETP_MF_QTIMER, "qtimer_ticks"}, {ETP_MF_NOT_WALL, "no_timestamps"},
                 {ETP_MF_AGGREGATE, "thread_aggregate"}};
    fl &= ~(uint32_t)ETP_MF_FROM_TICKS; /* the normal case: not worth a word */
    if (!fl) return;
    jw_key_lit(w, "flags");
    jw_arr_begin(w);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (fl & names[i].bit) jw_str(w, names[i].name);
    jw_arr_end(w);
}

/* The backend the ops views infer for the DELEGATE_CALL of instruction (chain, instr), NULL. */
const char *etp__trace_inferred_backend(const trace *t, int32_t chain, int32_t instr) {
    for (size_t i = 0; i < t->ninf; i++)
        if (t->inf[i].chain == chain && t->inf[i].instr == instr) return t->inf[i].name;
    return NULL;
}

/* Without a program: each DELEGATE_CALL whose backend the ops views infer from the events inside
 * it (etp_backend_infer, the one rule), from an ops pass over the dump. Nothing when the pass
 * fails (the args then say nothing inferred). */
static void infer_backends(trace *t) {
    if (etp_model_program(t->m)) return;
    etp_ops_opts oo;
    etp_ops_opts_init(&oo);
    etp_ops_result *r = NULL;
    etp_error e = {0};
    if (etp_ops_compute(t->m, &oo, &r, &e)) return;
    size_t n = etp_ops_row_count(r);
    for (size_t i = 0; i < n; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        etp_backend_guess g;
        if (row->kind != ETP_KIND_DELEGATE_CALL || etp_backend_infer(r, i, &g) != ETP_OK ||
            !g.inferred || !g.info || etp__trace_inferred_backend(t, row->chain, row->instr))
            continue;
        struct inferred *x = realloc(t->inf, (t->ninf + 1) * sizeof *x);
        if (!x) break;
        t->inf = x;
        t->inf[t->ninf++] = (struct inferred){row->chain, row->instr, g.info->name};
    }
    etp_ops_free(r);
}

/* The args every slice and instant carries. `e` may be NULL (a made-up container). */
static void common_args(const trace *t, jw *w, const etp_block_view *v, const etp_mevent *e,
                        const etp_mevent *ctr, bool synthetic, const struct etp_etrecord *rec) {
    const etp_mevent *src = e ? e : ctr;
    jw_key_lit(w, "kind"); jw_str(w, etp_kind_name(src->kind));
    jw_key_lit(w, "placement"); jw_str(w, etp__trace_placement(src));
    jw_key_lit(w, "backend"); jw_str(w, src->backend);
    if (t->ninf && !src->backend &&
        (src->kind == ETP_KIND_DELEGATE_CALL || src->kind == ETP_KIND_DELEGATE_INTERNAL)) {
        const char *inf = etp__trace_inferred_backend(t, src->chain, src->instr);
        if (inf) {
            jw_key_lit(w, "backend_inferred");
            jw_str(w, inf);
        }
    }
    if (e) write_operator(w, e);
    else {
        jw_key_lit(w, "operator");
        jw_null(w);
    }
    jw_key_lit(w, "chain");
    if (src->chain >= 0) jw_int(w, src->chain); else jw_null(w);
    jw_key_lit(w, "instruction");
    /* Method-level events carry chain -1 and instruction 0: no instruction. */
    if (src->chain >= 0 && src->instr >= 0) jw_int(w, src->instr); else jw_null(w);
    jw_key_lit(w, "block"); jw_uint(w, v->block);
    jw_key_lit(w, "event");
    if (e) jw_uint(w, e->index); else jw_null(w);
    jw_key_lit(w, "synthetic"); jw_bool(w, synthetic);
    if (rec && e && etp_etrecord_event_joinable(e)) {
        etp_etr_join j;
        if (etp_etrecord_join_event(rec, v->method, e, &j) == ETP_OK && j.n_nodes) {
            jw_key_lit(w, "op_types"); jw_str(w, j.op_types);
            jw_key_lit(w, "module"); jw_str(w, j.module);
            jw_key_lit(w, "module_class"); jw_str(w, j.module_class);
            jw_key_lit(w, "stack_trace"); jw_str(w, j.frame);
        }
        etp_etrecord_join_free(&j);
    }
}

static void write_slice(trace *t, const etp_block_view *v, const tslice *s, int pid,
                        int64_t tid) {
    jw *w = &t->w;
    const etp_mevent *e = s->ev >= 0 ? &v->events[s->ev] : NULL;
    const etp_mevent *ctr = s->container >= 0 ? &v->events[s->container] : NULL;
    bool synthetic = s->role != ROLE_REAL;
    char name[300];
    const char *nm = e && e->label ? e->label : "?";
    if (s->role == ROLE_NODE && e && e->label) {
        /* "aten_add:OpId_7 (cycles)" -> "aten_add:OpId_7": the unit is in args */
        size_t len = strlen(e->label);
        static const char suf[] = " (cycles)";
        if (len >= sizeof suf - 1 && strcmp(e->label + len - (sizeof suf - 1), suf) == 0 &&
            len - (sizeof suf - 1) < sizeof name) {
            memcpy(name, e->label, len - (sizeof suf - 1));
            name[len - (sizeof suf - 1)] = 0;
            nm = name;
        }
    } else if (s->role == ROLE_NODE_PARENT && !e) {
        nm = "QNN nodes (cycles)";
    }
    jw_obj_begin(w);
    jw_key_lit(w, "name"); jw_str(w, nm);
    jw_key_lit(w, "cat"); jw_str(w, synthetic ? "synthetic" : etp_kind_name(e->kind));
    jw_key_lit(w, "ph"); jw_str(w, "X");
    key_us(w, "ts", s->ts);
    key_us(w, "dur", s->dur);
    jw_key_lit(w, "pid"); jw_int(w, pid);
    jw_key_lit(w, "tid"); jw_int(w, tid);
    jw_key_lit(w, "args");
    jw_obj_begin(w);
    common_args(t, w, v, e, ctr, synthetic, t->o ? t->o->etrecord : NULL);
    if (e) {
        jw_key_lit(w, "unit"); jw_str(w, e->unit ? etp_unit_name(e->unit) : NULL);
        jw_key_lit(w, "value"); jw_double(w, e->value);
    } else {
        jw_key_lit(w, "unit"); jw_str(w, "cycles");
        jw_key_lit(w, "value"); jw_double(w, s->node_sum);
    }
    if (e && e->ev.type == ETP_EVENT_PROFILE && !synthetic) {
        jw_key_lit(w, "start_time"); jw_uint(w, e->ev.profile.start_time);
        jw_key_lit(w, "end_time"); jw_uint(w, e->ev.profile.end_time);
    }
    if (e && e->ev.type == ETP_EVENT_PROFILE && e->ev.profile.delegate_debug_id_int != -1) {
        jw_key_lit(w, "delegate_debug_id"); jw_int(w, e->ev.profile.delegate_debug_id_int);
    }
    if (e) write_flags(w, e->flags);
    if (synthetic) {
        jw_key_lit(w, "layout");
        switch (s->role) {
        case ROLE_CHAIN:
        case ROLE_OTHER: jw_str(w, "end-aligned with the enclosing call"); break;
        case ROLE_WAIT: jw_str(w, "after the accelerator start, back to back"); break;
        case ROLE_NODE_PARENT: jw_str(w, "span the nodes are spread over"); break;
        default: jw_str(w, "back to back, sized by share of the node-cycle total"); break;
        }
        jw_key_lit(w, "container_event"); jw_int(w, s->container);
        if (e && e->qnn) {
            jw_key_lit(w, "qnn_class"); jw_str(w, etp__trace_qnn_class_name(e->qnn));
        }
        if (e && e->qnn_op_id >= 0) {
            jw_key_lit(w, "qnn_op_id"); jw_int(w, e->qnn_op_id);
        }
        if (s->role == ROLE_NODE) {
            jw_key_lit(w, "share"); jw_double(w, s->share);
            jw_key_lit(w, "estimated_us"); jw_double(w, (double)s->dur / 1e3);
        }
        if (s->role == ROLE_NODE_PARENT) {
            jw_key_lit(w, "node_sum_cycles"); jw_double(w, s->node_sum);
            jw_key_lit(w, "nodes"); jw_uint(w, s->node_count);
            jw_key_lit(w, "window"); jw_str(w, s->window);
        }
    }
    if (s->clamped) {
        jw_key_lit(w, "clamped"); jw_bool(w, true);
    }
    jw_obj_end(w);
    jw_obj_end(w);
    jw_newline(&t->w);
    t->st->slices++;
    if (synthetic) t->st->synthetic++;
}

static void write_inst(trace *t, const etp_block_view *v, const tinst *p, int pid, int64_t tid,
                       const etp_dump *d) {
    jw *w = &t->w;
    const etp_mevent *e = &v->events[p->ev];
    const etp_mevent *ctr = p->container >= 0 ? &v->events[p->container] : NULL;
    char name[300];
    const char *nm = e->label;
    if (e->ev.type == ETP_EVENT_ALLOCATION) {
        etp_str an = {NULL, 0};
        if (e->ev.allocation.allocator_id >= 1)
            an = etp_dump_allocator_name(d, v->block, (uint32_t)e->ev.allocation.allocator_id - 1);
        snprintf(name, sizeof name, "allocation %s", an.ptr ? an.ptr : "(unknown allocator)");
        nm = name;
    }
    if (!nm) nm = "?";
    jw_obj_begin(w);
    jw_key_lit(w, "name"); jw_str(w, nm);
    jw_key_lit(w, "cat"); jw_str(w, "synthetic");
    jw_key_lit(w, "ph"); jw_str(w, "i");
    jw_key_lit(w, "s"); jw_str(w, "t");
    key_us(w, "ts", p->ts);
    jw_key_lit(w, "pid"); jw_int(w, pid);
    jw_key_lit(w, "tid"); jw_int(w, tid);
    jw_key_lit(w, "args");
    jw_obj_begin(w);
    common_args(t, w, v, e, ctr, true, t->o ? t->o->etrecord : NULL);
    jw_key_lit(w, "unit"); jw_str(w, e->unit ? etp_unit_name(e->unit) : NULL);
    jw_key_lit(w, "value"); jw_double(w, e->value);
    if (e->ev.type == ETP_EVENT_PROFILE && e->ev.profile.delegate_debug_id_int != -1) {
        jw_key_lit(w, "delegate_debug_id"); jw_int(w, e->ev.profile.delegate_debug_id_int);
    }
    write_flags(w, e->flags);
    if (e->qnn) {
        jw_key_lit(w, "qnn_class"); jw_str(w, etp__trace_qnn_class_name(e->qnn));
    }
    jw_key_lit(w, "layout");
    jw_str(w, p->container >= 0 ? "at the end of the enclosing call (no timestamp)"
                                : "after the previous timed event in file order (no timestamp)");
    if (p->container >= 0) {
        jw_key_lit(w, "container_event"); jw_int(w, p->container);
    }
    jw_obj_end(w);
    jw_obj_end(w);
    jw_newline(&t->w);
    t->st->instants++;
}

static const char *const lane_suffix[N_LANES] = {"", " (overlapping 1)", " (overlapping 2)",
                                                 " (overlapping 3)"};
static const char *const set_suffix[3] = {" time", " other times", " nodes by cycle share"};

void etp__trace_block_names(const trace *t, const etp_block_view *v, int pid, uint64_t run,
                            char *runname, size_t nrun, const char **backend_out) {
    /* The backend that names the synthetic tracks: the containers' one, "delegates" if mixed. */
    const char *backend = NULL;
    bool mixed = false;
    for (size_t k = 0; k < t->nsl + t->nin; k++) {
        int32_t c = k < t->nsl ? t->sl[k].container : t->in[k - t->nsl].container;
        if (c < 0) continue;
        const char *b = v->events[c].backend ? v->events[c].backend : "delegate";
        if (!backend) backend = b;
        else if (strcmp(backend, b) != 0) mixed = true;
    }
    if (!backend) backend = "delegate";
    if (mixed) backend = "delegates";
    *backend_out = backend;
    if (pid == 1)
        snprintf(runname, nrun, "%s (block %u)", v->info.name.ptr ? v->info.name.ptr : "block",
                 v->block);
    else snprintf(runname, nrun, "run %llu", (unsigned long long)run);
}

void etp__trace_track_name(const char *runname, const char *backend, int sub, char *tn,
                           size_t n) {
    if (sub < N_LANES) snprintf(tn, n, "%s%s", runname, lane_suffix[sub]);
    else {
        int set = (sub - SUB_TIME) / 3;
        char nth[24] = "";
        if (set) snprintf(nth, sizeof nth, " #%d", set + 1);
        snprintf(tn, n, "%s: %s%s (synthetic%s)", runname, backend,
                 set_suffix[(sub - SUB_TIME) % 3], nth);
    }
}

static int json_block(trace *t, const etp_block_view *v, int pid, uint64_t run, etp_error *err) {
    (void)err;
    int64_t base_tid = (int64_t)(run - 1) * TIDS_PER_RUN + 1;
    bool named[SUB_COUNT_] = {false};
    const char *backend;
    char runname[200];
    etp__trace_block_names(t, v, pid, run, runname, sizeof runname, &backend);
    for (int pass = 0; pass < 2; pass++) {
        size_t cnt = pass ? t->nin : t->nsl;
        for (size_t k = 0; k < cnt; k++) {
            uint8_t sub = pass ? t->in[k].sub : t->sl[k].sub;
            if (!named[sub]) {
                char tn[300];
                etp__trace_track_name(runname, backend, sub, tn, sizeof tn);
                json_thread(t, pid, base_tid + sub, tn);
                named[sub] = true;
            }
            if (pass) write_inst(t, v, &t->in[k], pid, base_tid + sub, etp_model_dump(t->m));
            else write_slice(t, v, &t->sl[k], pid, base_tid + sub);
        }
    }
    /* An empty run still gets its track, so every run is visible. */
    if (!named[SUB_HOST]) json_thread(t, pid, base_tid, runname);
    return ETP_OK;
}

/* ---- the walk ----------------------------------------------------------------------------- */

/* Pre-pass: the trace base (first host timestamp) and whether 32-bit counters wrapped. */
static int prepass(trace *t, etp_error *err) {
    const etp_dump_info *di = etp_dump_get_info(etp_model_dump(t->m));
    hclock cu = {.unwrap = true}, cr = {.unwrap = false};
    uint64_t min_raw = UINT64_MAX, min_unw = UINT64_MAX;
    bool all32 = true;
    for (uint32_t b = 0; b < di->block_count; b++) {
        etp_block_view v;
        int rc = etp_model_block(t->m, b, &v, err);
        if (rc) return rc;
        for (uint32_t i = 0; i < v.n; i++) {
            const etp_mevent *e = &v.events[i];
            if (!is_wall(e)) continue;
            const etp_profile_event *p = &e->ev.profile;
            if (p->start_time > UINT32_MAX || p->end_time > UINT32_MAX) all32 = false;
            uint64_t s, en;
            clock_times(&cr, e, &s, &en);
            if (s < min_raw) min_raw = s;
            clock_times(&cu, e, &s, &en);
            if (s < min_unw) min_unw = s;
        }
    }
    t->unwrap = all32;
    uint64_t base = all32 ? min_unw : min_raw;
    t->have_base = base != UINT64_MAX;
    t->base = t->have_base ? base : 0;
    return ETP_OK;
}

static int do_block(trace *t, uint32_t b, etp_error *err) {
    etp_block_view v;
    int rc = etp_model_block(t->m, b, &v, err);
    if (rc) return rc;
    uint64_t number = 0;
    if (v.is_execute) {
        int sel = run_selected(t, &v, &number);
        if (sel < 0) {
            etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
            return ETP_E_INTERNAL;
        }
        if (!sel) return ETP_OK;
    }
    if ((rc = reserve(t, v.n ? v.n : 1, err))) return rc;
    t->nsl = t->nin = 0;
    int64_t last_end = -1, first_start = -1;
    for (uint32_t i = 0; i < v.n; i++) {
        const etp_mevent *e = &v.events[i];
        t->slice_of[i] = -1;
        /* a backend's device-clock events (Vulkan dispatches, Neutron) never share the host
         * track: laid out under their DELEGATE_CALL like the values without timestamps */
        t->wall[i] = is_wall(e) && !etp_backend_event_device_clock(e);
        if (t->wall[i]) {
            uint64_t s, en;
            clock_times(&t->clk, e, &s, &en);
            t->ws[i] = to_ns(t, s);
            t->we[i] = to_ns(t, en);
            if (t->we[i] < t->ws[i]) t->we[i] = t->ws[i];
        }
    }
    if ((rc = layout_host(t, &v, err))) return rc;
    for (uint32_t i = 0; i < v.n; i++) {
        const etp_mevent *e = &v.events[i];
        if (t->wall[i] && e->kind == ETP_KIND_DELEGATE_CALL && is_str(e->backend, "QnnBackend") &&
            (!t->have_qnn_origin || t->ws[i] < t->qnn_origin)) {
            t->qnn_origin = t->ws[i];
            t->have_qnn_origin = true;
        }
    }
    /* Group the events without timestamps by their nearest timed ancestor. */
    uint32_t ng = 0;
    for (uint32_t i = 0; i < v.n; i++) {
        const etp_mevent *e = &v.events[i];
        if (e->ev.type != ETP_EVENT_PROFILE || t->wall[i]) continue;
        if (!(e->flags & ETP_MF_NOT_WALL) &&
            (e->flags & ETP_MF_BAD_TIME || !etp_backend_event_device_clock(e))) {
            /* ETP_MF_BAD_TIME: no usable time at all */
            t->st->unplaced++;
            continue;
        }
        int32_t c = e->parent;
        for (uint32_t hops = 0; c >= 0 && t->slice_of[c] < 0 && hops < v.n; hops++)
            c = v.events[c].parent;
        if (c < 0 || t->slice_of[c] < 0) c = v.method_event >= 0 && t->slice_of[v.method_event] >= 0
                                               ? v.method_event : -1;
        if (c < 0) {
            t->st->unplaced++;
            continue;
        }
        t->grp[2 * ng] = c;
        t->grp[2 * ng + 1] = (int32_t)i;
        ng++;
    }
    bool grp_sorted = true; /* the usual case: one container, events in file order */
    for (uint32_t k = 1; k < ng && grp_sorted; k++)
        if (cmp_pair(t->grp + 2 * (k - 1), t->grp + 2 * k) > 0) grp_sorted = false;
    if (ng && !grp_sorted) qsort(t->grp, ng, 2 * sizeof *t->grp, cmp_pair);
    /* One group per container; containers sorted by start get the first track set whose last
     * container has ended (interval colouring), so that groups on one track never overlap. */
    uint32_t ngroups = 0;
    for (uint32_t k = 0; k < ng; ngroups++) {
        uint32_t j = k;
        while (j < ng && t->grp[2 * j] == t->grp[2 * k]) j++;
        t->order[ngroups] = (int32_t)k; /* group start in grp */
        k = j;
    }
    etp__sort(t->order, ngroups, sizeof *t->order, cmp_group, t);
    int64_t set_end[N_SETS];
    for (int q = 0; q < N_SETS; q++) set_end[q] = INT64_MIN;
    for (uint32_t gi = 0; gi < ngroups; gi++) {
        uint32_t k = (uint32_t)t->order[gi], j = k;
        while (j < ng && t->grp[2 * j] == t->grp[2 * k]) j++;
        const tslice *cs = &t->sl[t->slice_of[t->grp[2 * k]]];
        int set = -1;
        for (int q = 0; q < N_SETS && set < 0; q++)
            if (set_end[q] <= cs->ts) set = q;
        if (set < 0) { /* more nested containers than track sets: leave the group out */
            t->st->unplaced += j - k;
            continue;
        }
        set_end[set] = cs->ts + cs->dur;
        if ((rc = place_group(t, &v, t->grp[2 * k], t->grp + 2 * k, j - k, (uint8_t)set, err)))
            return rc;
    }
    /* Allocations: no timestamps either; placed after the timed event written before them. */
    for (uint32_t i = 0; i < v.n; i++) {
        if (t->wall[i] && (first_start < 0 || t->ws[i] < first_start)) first_start = t->ws[i];
    }
    for (uint32_t i = 0; i < v.n; i++) {
        const etp_mevent *e = &v.events[i];
        if (t->wall[i] && t->we[i] > last_end) last_end = t->we[i];
        if (e->ev.type != ETP_EVENT_ALLOCATION) continue;
        int64_t at = last_end >= 0 ? last_end : first_start;
        if (at < 0) {
            t->st->unplaced++;
            continue;
        }
        if (!add_inst(t, at, (int32_t)i, -1, SUB_HOST)) {
            etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
            return ETP_E_INTERNAL;
        }
    }
    if (t->nsl && !sort_slices(t)) {
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    if (t->nin) qsort(t->in, t->nin, sizeof *t->in, cmp_inst);
    uint64_t run = number;
    int pid = block_process(t, &v, &run, err);
    if (pid < 0) return ETP_E_INTERNAL;
    if ((rc = t->sink->block(t, &v, pid, run, err))) return rc;
    t->st->blocks++;
    return ETP_OK;
}

/* ---- HTP (optrace) process ---------------------------------------------------------------- */

/* One op of the optrace on its output lane. */
typedef struct hslice {
    uint32_t op;       /* index into optrace->ops */
    uint32_t lane;     /* 0 = the hardware thread's track, k >= 1 = overflow lane k */
} hslice;

/* Per thread: start asc, end desc (outer first), file order (ctx: the optrace). */
static int cmp_htp_op(const void *a, const void *b, void *ctx) {
    const etp_qnn_trace *ot = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    const etp_qnn_trace_op *x = &ot->ops[i], *y = &ot->ops[j];
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    int64_t ex = x->ts + x->dur, ey = y->ts + y->dur;
    if (ex != ey) return ex > ey ? -1 : 1;
    return i < j ? -1 : (i > j);
}

static int cmp_point(const void *a, const void *b) {
    const etp_qnn_counter_point *x = a, *y = b;
    return x->ts < y->ts ? -1 : (x->ts > y->ts);
}

static const char *counter_label(const etp_qnn_trace_counter *c) {
    switch (c->kind) {
    case ETP_QNN_CTR_VTCM_ALLOC: return "VTCM alloc (bytes)";
    case ETP_QNN_CTR_VTCM_READ: return "VTCM read (bytes)";
    case ETP_QNN_CTR_VTCM_WRITE: return "VTCM write (bytes)";
    case ETP_QNN_CTR_DRAM_READ: return "DRAM read (bytes)";
    case ETP_QNN_CTR_DRAM_WRITE: return "DRAM write (bytes)";
    default: return NULL;
    }
}

/* "HMX (tid 256)", "HVX (tid 512)", else the optrace's own name or "tid N". */
static void htp_thread_name(const etp_qnn_trace *ot, int64_t pid, int64_t tid, uint32_t lane,
                            char *buf, size_t n) {
    const char *tn = etp_qnn_trace_thread_name(ot, 0, tid);
    if (!tn) tn = etp_qnn_trace_thread_name(ot, pid, tid);
    const char *unit = NULL;
    if (tn && strstr(tn, "HMX")) unit = "HMX";
    else if (tn && strstr(tn, "HVX")) unit = "HVX";
    else if (!tn && tid == 256) unit = "HMX";
    else if (!tn && tid >= 512) unit = "HVX";
    int k;
    if (unit) k = snprintf(buf, n, "%s (tid %lld)", unit, (long long)tid);
    else if (tn) k = snprintf(buf, n, "%s (tid %lld)", tn, (long long)tid);
    else k = snprintf(buf, n, "tid %lld", (long long)tid);
    if (lane && k > 0 && (size_t)k < n) {
        if (lane == 1) snprintf(buf + k, n - (size_t)k, " (overlap)");
        else snprintf(buf + k, n - (size_t)k, " (overlap %u)", lane);
    }
}

#define HTP_LANE_TID 1000000 /* overflow lane k of hardware thread T: tid T + k * HTP_LANE_TID */

/* JSON sink: one optrace op, an X event on its hardware thread's track. */
static void json_htp_op(trace *t, int pid, int64_t tid, const etp_qnn_trace_op *op, int64_t s,
                        int64_t e, bool overlap) {
    jw *w = &t->w;
    double ghz = t->ghz;
    const char *source = t->clock_source;
        char idbuf[24];
        snprintf(idbuf, sizeof idbuf, "0x%016llx", (unsigned long long)op->id);
        jw_obj_begin(w);
        jw_key_lit(w, "name"); jw_str(w, op->name);
        jw_key_lit(w, "cat"); jw_str(w, "htp");
        jw_key_lit(w, "ph"); jw_str(w, "X");
        jw_key_lit(w, "pid"); jw_int(w, pid);
        jw_key_lit(w, "tid"); jw_int(w, tid);
        key_us(w, "ts", s);
        key_us(w, "dur", e - s);
        jw_key_lit(w, "args");
        jw_obj_begin(w);
        jw_key_lit(w, "htp_op"); jw_str(w, op->name);
        jw_key_lit(w, "qnn_op"); jw_str(w, op->qnn_op);
        jw_key_lit(w, "op_id"); jw_str(w, idbuf);
        jw_key_lit(w, "cycles"); jw_int(w, op->dur);
        jw_key_lit(w, "hmx"); jw_bool(w, (op->flags & ETP_QNN_F_HMX) != 0);
        jw_key_lit(w, "hvx"); jw_bool(w, (op->flags & ETP_QNN_F_HVX) != 0);
        jw_key_lit(w, "dma"); jw_bool(w, (op->flags & ETP_QNN_F_ANY_DMA) != 0);
        jw_key_lit(w, "clock_ghz"); jw_double(w, ghz);
        jw_key_lit(w, "clock_source"); jw_str(w, source);
        jw_key_lit(w, "synthetic_time"); jw_bool(w, true);
        if (overlap) {
            jw_key_lit(w, "overlap"); jw_bool(w, true);
        }
        jw_obj_end(w);
        jw_obj_end(w);
        jw_newline(&t->w);
}

/* JSON sink: one point of an optrace counter, a C event. */
static void json_htp_counter(trace *t, int pid, const etp_qnn_trace_counter *ct,
                             const char *label, int64_t ts, double value) {
    jw *w = &t->w;
    jw_obj_begin(w);
    jw_key_lit(w, "name"); jw_str(w, label);
    jw_key_lit(w, "cat"); jw_str(w, "htp");
    jw_key_lit(w, "ph"); jw_str(w, "C");
    jw_key_lit(w, "pid"); jw_int(w, pid);
    jw_key_lit(w, "tid"); jw_int(w, 0);
    key_us(w, "ts", ts);
    jw_key_lit(w, "args");
    jw_obj_begin(w);
    jw_key(w, ct->kind == ETP_QNN_CTR_OTHER ? "value" : "bytes");
    jw_double(w, value);
    jw_obj_end(w);
    jw_obj_end(w);
    jw_newline(&t->w);
}


static int write_htp(trace *t, const etp_qnn_trace *ot, double ghz, const char *source,
                     uint64_t *n_slices, uint64_t *n_overlap, etp_error *err) {
    (void)source;
    int rc = ETP_OK;
    int pid = t->next_pid++;
    int64_t origin = t->have_qnn_origin ? t->qnn_origin : 0;
    uint32_t n = ot->n_ops;
    uint32_t *ord = malloc((n ? n : 1) * sizeof *ord);
    hslice *hs = malloc((n ? n : 1) * sizeof *hs);
    uint32_t *stack = malloc((n ? n : 1) * sizeof *stack); /* per op: next open op of its lane */
    uint32_t *lane_depth = NULL, *lane_base = NULL;
    size_t cap_lanes = 0;
    if (!ord || !hs || !stack) goto oom;
    /* Cycle origin: the earliest op start or counter point. */
    int64_t c0 = INT64_MAX;
    for (uint32_t i = 0; i < n; i++)
        if (ot->ops[i].ts < c0) c0 = ot->ops[i].ts;
    for (uint32_t c = 0; c < ot->n_counters; c++)
        for (uint32_t k = 0; k < ot->counters[c].n_points; k++)
            if (ot->counters[c].points[k].ts < c0) c0 = ot->counters[c].points[k].ts;
    if (c0 == INT64_MAX) c0 = 0;
#define CYC_NS(cyc) (origin + (int64_t)llround((double)((cyc) - c0) / ghz))
    name_process(t, pid, "HTP (optrace)", pid);
    for (uint32_t i = 0; i < n; i++) ord[i] = i;
    etp__sort(ord, n, sizeof *ord, cmp_htp_op, (void *)ot);
    /* Lanes per hardware thread: lane 0 unless an op overlaps an open one without nesting. Each
     * lane keeps its own stack of open ops (a segment of `stack`, sized per thread). */
    for (uint32_t a = 0; a < n;) {
        uint32_t b = a;
        int64_t tid = ot->ops[ord[a]].tid;
        while (b < n && ot->ops[ord[b]].tid == tid) b++;
        uint32_t nl = 0, max_lane = 0;
        uint32_t cnt = b - a;
        if (cap_lanes < cnt) {
            free(lane_depth);
            free(lane_base);
            lane_depth = malloc(cnt * sizeof *lane_depth);
            lane_base = malloc(cnt * sizeof *lane_base);
            if (!lane_depth || !lane_base) goto oom;
            cap_lanes = cnt;
        }
        /* Lanes hold disjoint ops; each lane's stack is a linked list through `stack`
         * (stack[k] = previous open op index of that lane, as position in ord). */
        for (uint32_t k = a; k < b; k++) {
            const etp_qnn_trace_op *op = &ot->ops[ord[k]];
            int64_t s = op->ts, e = op->ts + op->dur;
            int lane = -1;
            for (uint32_t l = 0; l < nl; l++) {
                while (lane_depth[l]) { /* pop ops that ended by s */
                    uint32_t top = lane_base[l];
                    const etp_qnn_trace_op *tp = &ot->ops[ord[top]];
                    if (tp->ts + tp->dur > s) break;
                    lane_base[l] = stack[top];
                    lane_depth[l]--;
                }
                if (lane < 0) {
                    if (!lane_depth[l]) lane = (int)l;
                    else {
                        const etp_qnn_trace_op *tp = &ot->ops[ord[lane_base[l]]];
                        if (e <= tp->ts + tp->dur) lane = (int)l;
                    }
                }
            }
            if (lane < 0) {
                lane = (int)nl;
                lane_depth[nl] = 0;
                lane_base[nl] = UINT32_MAX;
                nl++;
            }
            stack[k] = lane_base[lane];
            lane_base[lane] = k;
            lane_depth[lane]++;
            hs[k].op = ord[k];
            hs[k].lane = (uint32_t)lane;
            if ((uint32_t)lane > max_lane) max_lane = (uint32_t)lane;
        }
        for (uint32_t l = 0; l <= max_lane && cnt; l++) {
            char tn[256];
            htp_thread_name(ot, ot->ops[ord[a]].pid, tid, l, tn, sizeof tn);
            t->sink->thread(t, pid, tid + (int64_t)l * HTP_LANE_TID, tn);
        }
        a = b;
    }
    /* Slices, per thread and lane in start order (outer first). */
    for (uint32_t k = 0; k < n; k++) {
        const etp_qnn_trace_op *op = &ot->ops[hs[k].op];
        int64_t s = CYC_NS(op->ts), e = CYC_NS(op->ts + op->dur);
        t->sink->htp_op(t, pid, op->tid + (int64_t)hs[k].lane * HTP_LANE_TID, op, s, e,
                        hs[k].lane != 0);
        (*n_slices)++;
        t->st->slices++;
        if (hs[k].lane) (*n_overlap)++;
    }
    /* Counters: C events in time order (stable for equal ts). */
    for (uint32_t c = 0; c < ot->n_counters; c++) {
        const etp_qnn_trace_counter *ct = &ot->counters[c];
        const char *label = counter_label(ct);
        if (!ct->n_points) continue;
        etp_qnn_counter_point *pts = malloc(ct->n_points * sizeof *pts);
        if (!pts) goto oom;
        memcpy(pts, ct->points, ct->n_points * sizeof *pts);
        /* Points are normally in time order already; sort only when they are not. */
        bool sorted = true;
        for (uint32_t k = 1; k < ct->n_points; k++)
            if (pts[k].ts < pts[k - 1].ts) sorted = false;
        if (!sorted) qsort(pts, ct->n_points, sizeof *pts, cmp_point);
        char other[256];
        if (!label) {
            snprintf(other, sizeof other, "%s", ct->name ? ct->name : "counter");
            label = other;
        }
        for (uint32_t k = 0; k < ct->n_points; k++)
            t->sink->htp_counter(t, pid, ct, label, CYC_NS(pts[k].ts), pts[k].value);
        free(pts);
    }
#undef CYC_NS
    goto done;
oom:
    etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
    rc = ETP_E_INTERNAL;
done:
    free(ord);
    free(hs);
    free(stack);
    free(lane_depth);
    free(lane_base);
    return rc;
}

/* ---- the JSON sink ------------------------------------------------------------------------ */

static int json_begin(trace *t, etp_error *err) {
    (void)err;
    jw_init(&t->w, t->f, false);
    /* hundreds of MB of small values: the writer keeps them and hands the FILE 256 KiB at once */
    char *wbuf = malloc((size_t)1 << 18);
    t->sink_state = wbuf;
    if (wbuf) jw_set_buffer(&t->w, wbuf, (size_t)1 << 18);
    jw_obj_begin(&t->w);
    jw_key_lit(&t->w, "traceEvents");
    jw_arr_begin(&t->w);
    jw_newline(&t->w);
    return ETP_OK;
}

static int json_end(trace *t, etp_error *err) {
    const etp_trace_opts *o = t->o;
    etp_trace_stats *st = t->st;
    jw_arr_end(&t->w);
    jw_key_lit(&t->w, "otherData");
    jw_obj_begin(&t->w);
    jw_key_lit(&t->w, "generator"); jw_str(&t->w, "etprof " ETPROF_VERSION);
    jw_key_lit(&t->w, "source"); jw_str(&t->w, o->source);
    jw_key_lit(&t->w, "program"); jw_str(&t->w, o->program);
    jw_key_lit(&t->w, "time_base");
    jw_str(&t->w, o->tick_ns > 0
                      ? "us since the first host timestamp in the file"
                      : "host ticks of unknown rate since the first one, 1 tick drawn as 1 ns");
    jw_key_lit(&t->w, "tick_ns"); jw_double(&t->w, o->tick_ns);
    jw_key_lit(&t->w, "base_ticks");
    if (t->have_base) jw_uint(&t->w, t->base);
    else jw_null(&t->w);
    jw_key_lit(&t->w, "counter_unwrapped_32bit"); jw_bool(&t->w, t->unwrap);
    jw_key_lit(&t->w, "synthetic_note");
    jw_str(&t->w, "slices with args.synthetic = true have no timestamps of their own: they are "
                  "laid out inside their DELEGATE_CALL from backend-reported values (see "
                  "docs/trace.md)");
    jw_key_lit(&t->w, "slices"); jw_uint(&t->w, st->slices);
    jw_key_lit(&t->w, "synthetic_slices"); jw_uint(&t->w, st->synthetic);
    jw_key_lit(&t->w, "instants"); jw_uint(&t->w, st->instants);
    jw_key_lit(&t->w, "clamped"); jw_uint(&t->w, st->clamped);
    jw_key_lit(&t->w, "overlapping"); jw_uint(&t->w, st->overlapped);
    jw_key_lit(&t->w, "unplaced"); jw_uint(&t->w, st->unplaced);
    jw_key_lit(&t->w, "run_selection");
    jw_obj_begin(&t->w);
    jw_key_lit(&t->w, "skip_first"); jw_uint(&t->w, o->skip_first);
    jw_key_lit(&t->w, "first");
    if (o->run_first) jw_uint(&t->w, o->run_first);
    else jw_null(&t->w);
    jw_key_lit(&t->w, "last");
    if (o->run_last) jw_uint(&t->w, o->run_last);
    else jw_null(&t->w);
    jw_key_lit(&t->w, "max_runs");
    if (o->max_runs) jw_uint(&t->w, o->max_runs);
    else jw_null(&t->w);
    jw_key_lit(&t->w, "runs_left_out"); jw_uint(&t->w, st->runs_left_out);
    jw_obj_end(&t->w);
    if (t->ot) {
        jw_key_lit(&t->w, "htp_optrace");
        jw_obj_begin(&t->w);
        jw_key_lit(&t->w, "clock_ghz"); jw_double(&t->w, t->ghz);
        jw_key_lit(&t->w, "clock_source"); jw_str(&t->w, t->clock_source);
        jw_key_lit(&t->w, "origin");
        jw_str(&t->w, t->have_qnn_origin ? "first QnnBackend DELEGATE_CALL"
                                         : "0 (no QnnBackend DELEGATE_CALL with timestamps)");
        jw_key_lit(&t->w, "slices"); jw_uint(&t->w, t->htp_slices);
        jw_key_lit(&t->w, "overlap_lane_slices"); jw_uint(&t->w, t->htp_overlap);
        jw_key_lit(&t->w, "note");
        jw_str(&t->w, "HTP op times are optrace cycles / clock: placed (args.synthetic_time = "
                      "true), not measured on the host clock");
        jw_obj_end(&t->w);
    }
    jw_obj_end(&t->w);
    jw_obj_end(&t->w);
    jw_newline(&t->w);
    if (jw_finish(&t->w) != 0 || ferror(t->f)) {
        etp_error_set(err, ETP_E_IO, NULL, -1, NULL, "write failed");
        return ETP_E_IO;
    }
    return ETP_OK;
}

static void json_release(trace *t) { free(t->sink_state); }

const trace_sink etp__trace_json_sink = {
    .begin = json_begin,
    .process = json_process,
    .thread = json_thread,
    .block = json_block,
    .htp_op = json_htp_op,
    .htp_counter = json_htp_counter,
    .end = json_end,
    .release = json_release,
};

/* ---- driver ------------------------------------------------------------------------------- */

/* The walk: the pre-pass, every block laid out and handed to `sink`, then the optrace. */
static int trace_run(etp_model *m, FILE *f, const etp_trace_opts *o, const etp_qnn_trace *optrace,
                     double clock_ghz, const char *clock_source, etp_trace_stats *st,
                     etp_error *err, const trace_sink *sink) {
    etp_trace_opts defo;
    etp_trace_stats dst;
    if (optrace && !(clock_ghz > 0 && clock_ghz < 1e6)) {
        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL,
                      "optrace: the HTP clock is unknown (give --runtrace, --qhas or "
                      "--htp-clock-ghz)");
        return ETP_E_USAGE;
    }
    if (!o) {
        memset(&defo, 0, sizeof defo);
        defo.tick_ns = 1.0;
        o = &defo;
    }
    if (!st) st = &dst;
    memset(st, 0, sizeof *st);
    trace t;
    memset(&t, 0, sizeof t);
    t.m = m;
    t.o = o;
    t.st = st;
    t.f = f;
    t.next_pid = 2;
    t.ns_per_tick = o->tick_ns > 0 ? o->tick_ns : 1.0;
    t.sink = sink;
    t.ot = optrace;
    t.ghz = clock_ghz;
    t.clock_source = clock_source;
    int rc = prepass(&t, err);
    if (!rc) infer_backends(&t);
    t.clk.unwrap = t.unwrap;
    const etp_dump_info *di = etp_dump_get_info(etp_model_dump(m));
    int brc = sink->begin(&t, err);
    if (!rc) rc = brc;
    for (uint32_t b = 0; b < di->block_count && !rc; b++) {
        rc = do_block(&t, b, err);
        if (o->progress) o->progress(o->progress_ctx, b + 1, di->block_count);
        if (!rc && t.sink_rc) {
            *err = t.sink_err;
            rc = t.sink_rc;
        }
        if (!rc && ferror(f)) {
            etp_error_set(err, ETP_E_IO, NULL, -1, NULL, "write failed");
            rc = ETP_E_IO;
        }
    }
    /* With a QNN optrace: one process "HTP (optrace)" after the ETDump blocks (write_htp). */
    if (!rc && optrace)
        rc = write_htp(&t, optrace, clock_ghz, clock_source, &t.htp_slices, &t.htp_overlap, err);
    if (!rc && t.sink_rc) {
        *err = t.sink_err;
        rc = t.sink_rc;
    }
    if (!rc) rc = sink->end(&t, err);
    sink->release(&t);
    free(t.procs);
    free(t.rc);
    free(t.sl);
    free(t.sl2);
    free(t.in);
    free(t.slice_of);
    free(t.ws);
    free(t.we);
    free(t.wall);
    free(t.order);
    for (int l = 0; l < N_LANES; l++) free(t.lane[l]);
    free(t.grp);
    free(t.inf);
    return rc;
}

int etp_trace_write(etp_model *m, FILE *f, const etp_trace_opts *o, etp_trace_stats *st,
                    etp_error *err) {
    return trace_run(m, f, o, NULL, 0, NULL, st, err, &etp__trace_json_sink);
}

int etp_trace_write_htp(etp_model *m, FILE *f, const etp_trace_opts *o,
                        const etp_qnn_trace *optrace, double clock_ghz, const char *clock_source,
                        etp_trace_stats *st, etp_error *err) {
    return trace_run(m, f, o, optrace, clock_ghz, clock_source, st, err, &etp__trace_json_sink);
}

int etp_trace_write_perfetto(etp_model *m, FILE *f, const etp_trace_opts *o,
                             const etp_qnn_trace *optrace, double clock_ghz,
                             const char *clock_source, etp_trace_stats *st, etp_error *err) {
    return trace_run(m, f, o, optrace, clock_ghz, clock_source, st, err,
                     &etp__trace_pftrace_sink);
}
