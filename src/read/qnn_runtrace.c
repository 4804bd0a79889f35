/*
 * qnn_runtrace.c - runtrace reader (`*_runtrace.json`, header.artifact_type "RUN_TRACE").
 *
 * Each execute of the profiled run contributes a group of `X` phases: "QNN DSP Execute" (the
 * whole DSP-side call) containing "VTCM Acquire", "Resource Power On" and "Graph Execute", with
 * ts/dur in 19.2 MHz QTimer ticks and the measured HTP clock in args.summary_htp_frequency_ghz.
 *
 * Grouping: a "QNN DSP Execute" starts a new execute; any other phase joins the current execute
 * unless that execute already has a phase of the same known kind, or the phase starts outside
 * the current DSP Execute's [ts, ts + dur] span, in which case it starts a new one.
 */
#include "qnn.h"

#include <stdlib.h>
#include <string.h>

#define TRY(x)                                                                                    \
    do {                                                                                          \
        if ((rc = (x)) != ETP_OK) return rc;                                                      \
    } while (0)

typedef struct rt_reader {
    etp_qnn_jctx c;
    etp_qnn_runtrace *r;
    uint32_t phases_cap, execs_cap;
} rt_reader;

static etp_qnn_phase_kind phase_kind(const char *name) {
    if (strcmp(name, "QNN DSP Execute") == 0) return ETP_QNN_PHASE_DSP_EXECUTE;
    if (strcmp(name, "VTCM Acquire") == 0) return ETP_QNN_PHASE_VTCM_ACQUIRE;
    if (strcmp(name, "Resource Power On") == 0) return ETP_QNN_PHASE_POWER_ON;
    if (strcmp(name, "Graph Execute") == 0) return ETP_QNN_PHASE_GRAPH_EXECUTE;
    return ETP_QNN_PHASE_OTHER;
}

static int intern_opt(rt_reader *rd, const char *s, const char **out) {
    *out = NULL;
    if (s && !(*out = etp_qnn_pool_intern(rd->r->pool, s, strlen(s)))) return etp_qnn_jnomem(&rd->c);
    return ETP_OK;
}

static int new_execute(rt_reader *rd) {
    etp_qnn_runtrace *r = rd->r;
    if (etp_qnn_grow(&r->executes, &rd->execs_cap, r->n_executes + 1, sizeof *r->executes))
        return etp_qnn_jnomem(&rd->c);
    etp_qnn_rt_execute *e = &r->executes[r->n_executes++];
    for (int k = 0; k < ETP_QNN_PHASE_KNOWN; k++) e->phase[k] = -1;
    e->first = r->n_phases;
    e->count = 0;
    return ETP_OK;
}

static int read_phase(rt_reader *rd, const json_t *ev) {
    int rc;
    const char *name, *graph;
    etp_qnn_i64 ts, dur;
    json_t *args;
    etp_qnn_jctx *c = &rd->c;
    etp_qnn_runtrace *r = rd->r;
    TRY(etp_qnn_jget_str(c, ev, "name", true, &name));
    TRY(etp_qnn_jget_i64(c, ev, "ts", true, &ts));
    TRY(etp_qnn_jget_i64(c, ev, "dur", true, &dur));
    if (dur.v < 0) return etp_qnn_jfail(c, "dur", "negative duration %lld", (long long)dur.v);
    TRY(etp_qnn_jget_obj(c, ev, "args", false, &args));
    if (etp_qnn_grow(&r->phases, &rd->phases_cap, r->n_phases + 1, sizeof *r->phases))
        return etp_qnn_jnomem(c);
    etp_qnn_rt_phase *p = &r->phases[r->n_phases];
    memset(p, 0, sizeof *p);
    p->kind = phase_kind(name);
    p->ts = ts.v;
    p->dur = dur.v;
    TRY(intern_opt(rd, name, &p->name));
    if (args) {
        size_t m = etp_qnn_jpush_key(c, "args");
        TRY(etp_qnn_jget_str(c, args, "graph_name", false, &graph));
        TRY(intern_opt(rd, graph, &p->graph_name));
        TRY(etp_qnn_jget_i64(c, args, "stat_start_ticks", false, &p->stat_start_ticks));
        TRY(etp_qnn_jget_i64(c, args, "stat_end_ticks", false, &p->stat_end_ticks));
        TRY(etp_qnn_jget_i64(c, args, "stat_start_cycles", false, &p->stat_start_cycles));
        TRY(etp_qnn_jget_i64(c, args, "stat_end_cycles", false, &p->stat_end_cycles));
        TRY(etp_qnn_jget_f64(c, args, "summary_htp_frequency_ghz", false, &p->htp_frequency_ghz));
        TRY(etp_qnn_jget_f64(c, args, "summary_inf/s", false, &p->inf_per_s));
        TRY(etp_qnn_jget_f64(c, args, "summary_time_us", false, &p->time_us));
        etp_qnn_jpop(c, m);
    }

    /* Grouping (see the file comment). */
    etp_qnn_rt_execute *cur = r->n_executes ? &r->executes[r->n_executes - 1] : NULL;
    bool start = !cur || p->kind == ETP_QNN_PHASE_DSP_EXECUTE;
    if (!start && p->kind != ETP_QNN_PHASE_OTHER && cur->phase[p->kind] >= 0) start = true;
    if (!start && cur->phase[ETP_QNN_PHASE_DSP_EXECUTE] >= 0) {
        const etp_qnn_rt_phase *dsp = &r->phases[cur->phase[ETP_QNN_PHASE_DSP_EXECUTE]];
        if (p->ts < dsp->ts || (uint64_t)p->ts - (uint64_t)dsp->ts > (uint64_t)dsp->dur)
            start = true;
    }
    if (start) TRY(new_execute(rd));
    cur = &r->executes[r->n_executes - 1];
    if (p->kind != ETP_QNN_PHASE_OTHER) cur->phase[p->kind] = (int32_t)r->n_phases;
    cur->count++;
    r->n_phases++;
    return ETP_OK;
}

static int read_meta(rt_reader *rd, const json_t *ev) {
    int rc;
    const char *name, *value;
    json_t *args;
    etp_qnn_jctx *c = &rd->c;
    TRY(etp_qnn_jget_str(c, ev, "name", true, &name));
    bool thread = strcmp(name, "thread_name") == 0, proc = strcmp(name, "process_name") == 0;
    if (!thread && !proc) return ETP_OK;
    TRY(etp_qnn_jget_obj(c, ev, "args", true, &args));
    size_t m = etp_qnn_jpush_key(c, "args");
    TRY(etp_qnn_jget_str(c, args, "name", true, &value));
    etp_qnn_jpop(c, m);
    const char **slot = thread ? &rd->r->thread_name : &rd->r->process_name;
    if (!*slot) TRY(intern_opt(rd, value, slot));
    return ETP_OK;
}

static int read_events(rt_reader *rd, json_t *root) {
    json_t *events;
    int rc;
    TRY(etp_qnn_jget_arr(&rd->c, root, "traceEvents", true, &events));
    size_t m0 = etp_qnn_jpush_key(&rd->c, "traceEvents");
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *ev = json_array_get(events, i);
        const char *ph;
        size_t m1 = etp_qnn_jpush_index(&rd->c, i);
        if (!json_is_object(ev))
            return etp_qnn_jfail(&rd->c, NULL, "expected an object, got %s",
                                 etp_qnn_json_type_name(ev));
        TRY(etp_qnn_jget_str(&rd->c, ev, "ph", true, &ph));
        if (strcmp(ph, "X") == 0) TRY(read_phase(rd, ev));
        else if (strcmp(ph, "M") == 0) TRY(read_meta(rd, ev));
        etp_qnn_jpop(&rd->c, m1);
    }
    etp_qnn_jpop(&rd->c, m0);
    return ETP_OK;
}

static int read_runtrace(const etp_qnn_src *src, etp_qnn_runtrace **out, etp_error *err) {
    const char *path = src->name;
    *out = NULL;
    rt_reader rd;
    memset(&rd, 0, sizeof rd);
    etp_qnn_jctx_init(&rd.c, path, err);
    etp_qnn_runtrace *r = calloc(1, sizeof *r);
    if (!r || !(r->pool = etp_qnn_pool_new())) {
        free(r);
        etp_error_set(err, ETP_E_INTERNAL, path, -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    rd.r = r;
    json_t *root;
    int rc = etp_qnn_json_open(src, "RUN_TRACE", &root, &r->version, err);
    if (rc == ETP_OK) {
        rc = read_events(&rd, root);
        json_decref(root);
    }
    if (rc) {
        etp_qnn_runtrace_free(r);
        return rc;
    }
    *out = r;
    return ETP_OK;
}

ETP_QNN_READER_ENTRIES(runtrace, etp_qnn_runtrace, read_runtrace)

void etp_qnn_runtrace_free(etp_qnn_runtrace *r) {
    if (!r) return;
    free(r->phases);
    free(r->executes);
    etp_qnn_pool_free(r->pool);
    free(r);
}

const etp_qnn_rt_phase *etp_qnn_runtrace_phase(const etp_qnn_runtrace *r, uint32_t exec,
                                               etp_qnn_phase_kind kind) {
    if (!r || exec >= r->n_executes || (int)kind < 0 || kind >= ETP_QNN_PHASE_KNOWN) return NULL;
    int32_t i = r->executes[exec].phase[kind];
    return i >= 0 ? &r->phases[i] : NULL;
}
