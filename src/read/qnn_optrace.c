/*
 * qnn_optrace.c - optrace reader: the Chrome-trace JSON written by qnn-profile-viewer with the HTP
 * optrace reader (header.artifact_type "OP_TRACE").
 *
 * Kept: `X` op events de-duplicated by the 64-bit args.ID (each op appears on pid 0, the core
 * overview, and again on the pid of its QNN op), `M` thread/process names, `C` counters. Flow
 * events (`s`/`f`) are counted only. The JSON tree is released before returning: the result is
 * arrays of structs with strings interned once.
 */
#include "qnn.h"

#include <stdlib.h>
#include <string.h>

#define TRY(x)                                                                                    \
    do {                                                                                          \
        if ((rc = (x)) != ETP_OK) return rc;                                                      \
    } while (0)

typedef struct trace_reader {
    etp_qnn_jctx c;
    etp_qnn_trace *t;
    uint32_t ops_cap, threads_cap, procs_cap, counters_cap, dims_len, dims_cap;
    /* ID -> op index + 1 (0 = empty), open addressing */
    uint64_t *ids;
    uint32_t *slots;
    size_t nslots;
} trace_reader;

static const char *intern(trace_reader *r, const char *s) {
    if (!s) return NULL;
    return etp_qnn_pool_intern(r->t->pool, s, strlen(s));
}

/* Interns an optional string member (already type-checked by the getter). */
static int get_str(trace_reader *r, const json_t *o, const char *key, bool required,
                   const char **out) {
    const char *s;
    int rc;
    *out = NULL;
    TRY(etp_qnn_jget_str(&r->c, o, key, required, &s));
    if (s && !(*out = intern(r, s))) return etp_qnn_jnomem(&r->c);
    return ETP_OK;
}

static uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static bool ids_rehash(trace_reader *r) {
    size_t n = r->nslots ? r->nslots * 2 : 1024;
    uint64_t *ids = calloc(n, sizeof *ids);
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!ids || !slots) {
        free(ids);
        free(slots);
        return false;
    }
    for (size_t i = 0; i < r->nslots; i++) {
        if (!r->slots[i]) continue;
        size_t j = mix64(r->ids[i]) & (n - 1);
        while (slots[j]) j = (j + 1) & (n - 1);
        ids[j] = r->ids[i];
        slots[j] = r->slots[i];
    }
    free(r->ids);
    free(r->slots);
    r->ids = ids;
    r->slots = slots;
    r->nslots = n;
    return true;
}

/* Finds the op with `id`; when absent, *slot receives where to insert it. */
static uint32_t *ids_find(trace_reader *r, uint64_t id) {
    size_t j = mix64(id) & (r->nslots - 1);
    while (r->slots[j] && r->ids[j] != id) j = (j + 1) & (r->nslots - 1);
    r->ids[j] = id;
    return &r->slots[j];
}

static int read_flags(trace_reader *r, const json_t *args, etp_qnn_trace_op *op) {
    json_t *arr;
    int rc;
    TRY(etp_qnn_jget_arr(&r->c, args, "Flags", false, &arr));
    if (!arr) return ETP_OK;
    op->has_flags = true;
    size_t m = etp_qnn_jpush_key(&r->c, "Flags");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_string(v)) {
            etp_qnn_jpush_index(&r->c, i);
            return etp_qnn_jfail(&r->c, NULL, "expected a string, got %s",
                                 etp_qnn_json_type_name(v));
        }
        const char *f = json_string_value(v);
        if (strcmp(f, "uses_hmx") == 0) op->flags |= ETP_QNN_F_HMX;
        else if (strcmp(f, "uses_hvx") == 0) op->flags |= ETP_QNN_F_HVX;
        else if (strcmp(f, "dma") == 0) op->flags |= ETP_QNN_F_DMA;
        else if (strcmp(f, "dma_set") == 0) op->flags |= ETP_QNN_F_DMA_SET;
        else if (strcmp(f, "dma_wait") == 0) op->flags |= ETP_QNN_F_DMA_WAIT;
        else if (strcmp(f, "sync") == 0) op->flags |= ETP_QNN_F_SYNC;
        else if (strcmp(f, "null_exec") == 0) op->flags |= ETP_QNN_F_NULL_EXEC;
        else op->n_other_flags++;
    }
    etp_qnn_jpop(&r->c, m);
    return ETP_OK;
}

static int read_dims(trace_reader *r, const json_t *args, etp_qnn_trace_op *op) {
    json_t *arr;
    int rc;
    TRY(etp_qnn_jget_arr(&r->c, args, "Dims", false, &arr));
    if (!arr) return ETP_OK;
    size_t n = json_array_size(arr);
    if (n > UINT32_MAX - r->dims_len ||
        etp_qnn_grow(&r->t->dims_pool, &r->dims_cap, r->dims_len + (uint32_t)n, sizeof(int64_t)))
        return etp_qnn_jnomem(&r->c);
    size_t m = etp_qnn_jpush_key(&r->c, "Dims");
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_integer(v)) {
            etp_qnn_jpush_index(&r->c, i);
            return etp_qnn_jfail(&r->c, NULL, "expected an integer, got %s",
                                 etp_qnn_json_type_name(v));
        }
        r->t->dims_pool[r->dims_len + i] = (int64_t)json_integer_value(v);
    }
    etp_qnn_jpop(&r->c, m);
    op->has_dims = true;
    op->n_dims = (uint32_t)n;
    op->dims = (const int64_t *)(uintptr_t)r->dims_len; /* offset, fixed up at the end */
    r->dims_len += (uint32_t)n;
    return ETP_OK;
}

static int read_x(trace_reader *r, const json_t *ev) {
    int rc;
    json_t *args;
    etp_qnn_i64 pid, tid, ts, dur;
    uint64_t id;
    etp_qnn_jctx *c = &r->c;
    const char *name;
    TRY(etp_qnn_jget_str(c, ev, "name", true, &name));
    TRY(etp_qnn_jget_i64(c, ev, "pid", true, &pid));
    TRY(etp_qnn_jget_i64(c, ev, "tid", true, &tid));
    TRY(etp_qnn_jget_i64(c, ev, "ts", true, &ts));
    TRY(etp_qnn_jget_i64(c, ev, "dur", true, &dur));
    if (dur.v < 0) return etp_qnn_jfail(c, "dur", "negative duration %lld", (long long)dur.v);
    TRY(etp_qnn_jget_obj(c, ev, "args", true, &args));
    size_t m = etp_qnn_jpush_key(c, "args");
    TRY(etp_qnn_jget_opid(c, args, "ID", true, &id, NULL));
    r->t->n_x_events++;

    if ((r->t->n_ops + 1) * 2 > r->nslots && !ids_rehash(r)) return etp_qnn_jnomem(c);
    uint32_t *slot = ids_find(r, id);
    if (*slot) {
        /* A second copy: validate what it carries the same way, compare, keep the first. */
        etp_qnn_trace_op *op = &r->t->ops[*slot - 1];
        const char *qnn_op;
        TRY(etp_qnn_jget_str(c, args, "QNN Op Name", false, &qnn_op));
        op->occurrences++;
        bool same_op = (!qnn_op && !op->qnn_op) || (qnn_op && op->qnn_op &&
                                                   strcmp(qnn_op, op->qnn_op) == 0);
        if (dur.v != op->dur || !same_op) r->t->n_dup_conflicts++;
        etp_qnn_jpop(c, m);
        return ETP_OK;
    }
    if (etp_qnn_grow(&r->t->ops, &r->ops_cap, r->t->n_ops + 1, sizeof *r->t->ops))
        return etp_qnn_jnomem(c);
    etp_qnn_trace_op *op = &r->t->ops[r->t->n_ops];
    memset(op, 0, sizeof *op);
    op->id = id;
    op->pid = pid.v;
    op->tid = tid.v;
    op->ts = ts.v;
    op->dur = dur.v;
    op->occurrences = 1;
    if (!(op->name = intern(r, name))) return etp_qnn_jnomem(c);
    TRY(get_str(r, args, "HTP Op Type", false, &op->htp_op_type));
    TRY(get_str(r, args, "QNN Op Name", false, &op->qnn_op));
    TRY(get_str(r, args, "QNN Op Type", false, &op->qnn_op_type));
    TRY(get_str(r, args, "Data Type", false, &op->data_type));
    TRY(etp_qnn_jget_i64(c, args, "Start Cycle", false, &op->start_cycle));
    TRY(etp_qnn_jget_i64(c, args, "Duration (cycles)", false, &op->duration_cycles));
    TRY(etp_qnn_jget_i64(c, args, "Dominant Path Cycles", false, &op->dominant_path_cycles));
    TRY(read_flags(r, args, op));
    TRY(read_dims(r, args, op));
    r->t->n_ops++;
    *slot = r->t->n_ops;
    etp_qnn_jpop(c, m);
    return ETP_OK;
}

static etp_qnn_trace_process *process_for(trace_reader *r, int64_t pid) {
    for (uint32_t i = 0; i < r->t->n_processes; i++)
        if (r->t->processes[i].pid == pid) return &r->t->processes[i];
    if (etp_qnn_grow(&r->t->processes, &r->procs_cap, r->t->n_processes + 1,
                     sizeof *r->t->processes))
        return NULL;
    etp_qnn_trace_process *p = &r->t->processes[r->t->n_processes++];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    return p;
}

static int read_m(trace_reader *r, const json_t *ev) {
    int rc;
    const char *name;
    json_t *args;
    etp_qnn_i64 pid, tid;
    etp_qnn_jctx *c = &r->c;
    TRY(etp_qnn_jget_str(c, ev, "name", true, &name));
    bool thread = strcmp(name, "thread_name") == 0;
    bool pname = strcmp(name, "process_name") == 0;
    bool psort = strcmp(name, "process_sort_index") == 0;
    if (!thread && !pname && !psort) return ETP_OK; /* other metadata: ignored */
    TRY(etp_qnn_jget_i64(c, ev, "pid", true, &pid));
    if (thread) TRY(etp_qnn_jget_i64(c, ev, "tid", true, &tid));
    TRY(etp_qnn_jget_obj(c, ev, "args", true, &args));
    size_t m = etp_qnn_jpush_key(c, "args");
    if (thread) {
        const char *tname;
        TRY(get_str(r, args, "name", true, &tname));
        /* One entry per (pid, tid); a repeated one keeps its first name. */
        for (uint32_t i = 0; i < r->t->n_threads; i++)
            if (r->t->threads[i].pid == pid.v && r->t->threads[i].tid == tid.v) goto done;
        if (etp_qnn_grow(&r->t->threads, &r->threads_cap, r->t->n_threads + 1,
                         sizeof *r->t->threads))
            return etp_qnn_jnomem(c);
        r->t->threads[r->t->n_threads++] = (etp_qnn_trace_thread){pid.v, tid.v, tname};
    } else {
        etp_qnn_trace_process *p = process_for(r, pid.v);
        if (!p) return etp_qnn_jnomem(c);
        if (pname) {
            const char *pn;
            uint64_t opid;
            bool has;
            TRY(get_str(r, args, "name", true, &pn));
            TRY(etp_qnn_jget_opid(c, args, "opid", false, &opid, &has));
            if (!p->name) p->name = pn;
            if (has && !p->has_opid) {
                p->opid = opid;
                p->has_opid = true;
            }
        } else {
            etp_qnn_i64 si;
            TRY(etp_qnn_jget_i64(c, args, "sort_index", true, &si));
            if (!p->sort_index.has) p->sort_index = si;
        }
    }
done:
    etp_qnn_jpop(c, m);
    return ETP_OK;
}

static etp_qnn_counter_kind counter_kind(const char *name) {
    static const struct {
        const char *name;
        etp_qnn_counter_kind kind;
    } k[] = {
        {"VTCM alloc", ETP_QNN_CTR_VTCM_ALLOC}, {"VTCM read", ETP_QNN_CTR_VTCM_READ},
        {"VTCM write", ETP_QNN_CTR_VTCM_WRITE}, {"DRAM read", ETP_QNN_CTR_DRAM_READ},
        {"DRAM write", ETP_QNN_CTR_DRAM_WRITE},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strcmp(name, k[i].name) == 0) return k[i].kind;
    return ETP_QNN_CTR_OTHER;
}

static int read_c(trace_reader *r, const json_t *ev) {
    int rc;
    const char *name;
    json_t *args;
    etp_qnn_i64 ts;
    etp_qnn_jctx *c = &r->c;
    TRY(etp_qnn_jget_str(c, ev, "name", true, &name));
    TRY(etp_qnn_jget_i64(c, ev, "ts", true, &ts));
    TRY(etp_qnn_jget_obj(c, ev, "args", true, &args));
    /* The value is args[""]; other writers name it, so take the first member, which must be a
     * number. */
    const char *key;
    json_t *val = json_object_get(args, "");
    if (!val) {
        void *it = json_object_iter(args);
        if (!it) return etp_qnn_jfail(c, "args", "counter has no value");
        key = json_object_iter_key(it);
        val = json_object_iter_value(it);
    } else {
        key = "";
    }
    if (!json_is_number(val)) {
        size_t m = etp_qnn_jpush_key(c, "args");
        rc = etp_qnn_jfail(c, key, "expected a number, got %s", etp_qnn_json_type_name(val));
        etp_qnn_jpop(c, m);
        return rc;
    }
    etp_qnn_trace_counter *ctr = NULL;
    for (uint32_t i = 0; i < r->t->n_counters; i++)
        if (strcmp(r->t->counters[i].name, name) == 0) {
            ctr = &r->t->counters[i];
            break;
        }
    if (!ctr) {
        if (etp_qnn_grow(&r->t->counters, &r->counters_cap, r->t->n_counters + 1,
                         sizeof *r->t->counters))
            return etp_qnn_jnomem(c);
        ctr = &r->t->counters[r->t->n_counters++];
        memset(ctr, 0, sizeof *ctr);
        if (!(ctr->name = intern(r, name))) return etp_qnn_jnomem(c);
        ctr->kind = counter_kind(name);
    }
    if (etp_qnn_grow(&ctr->points, &ctr->cap, ctr->n_points + 1, sizeof *ctr->points))
        return etp_qnn_jnomem(c);
    ctr->points[ctr->n_points++] = (etp_qnn_counter_point){ts.v, json_number_value(val)};
    return ETP_OK;
}

static int read_events(trace_reader *r, json_t *root) {
    json_t *events;
    int rc;
    TRY(etp_qnn_jget_arr(&r->c, root, "traceEvents", true, &events));
    size_t m0 = etp_qnn_jpush_key(&r->c, "traceEvents");
    size_t n = json_array_size(events);
    for (size_t i = 0; i < n; i++) {
        json_t *ev = json_array_get(events, i);
        const char *ph;
        size_t m1 = etp_qnn_jpush_index(&r->c, i);
        if (!json_is_object(ev))
            return etp_qnn_jfail(&r->c, NULL, "expected an object, got %s",
                                 etp_qnn_json_type_name(ev));
        TRY(etp_qnn_jget_str(&r->c, ev, "ph", true, &ph));
        r->t->n_events++;
        if (strcmp(ph, "X") == 0) TRY(read_x(r, ev));
        else if (strcmp(ph, "M") == 0) TRY(read_m(r, ev));
        else if (strcmp(ph, "C") == 0) TRY(read_c(r, ev));
        else if (strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0 || strcmp(ph, "t") == 0)
            r->t->n_flow_events++;
        else r->t->n_other_events++;
        etp_qnn_jpop(&r->c, m1);
    }
    etp_qnn_jpop(&r->c, m0);
    return ETP_OK;
}

static int read_optrace(const etp_qnn_src *src, etp_qnn_trace **out, etp_error *err) {
    const char *path = src->name;
    *out = NULL;
    trace_reader r;
    memset(&r, 0, sizeof r);
    etp_qnn_jctx_init(&r.c, path, err);
    etp_qnn_trace *t = calloc(1, sizeof *t);
    if (!t || !(t->pool = etp_qnn_pool_new())) {
        free(t);
        etp_error_set(err, ETP_E_INTERNAL, path, -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    r.t = t;
    json_t *root;
    int rc = etp_qnn_json_open(src, "OP_TRACE", &root, &t->version, err);
    if (rc == ETP_OK) {
        rc = read_events(&r, root);
        json_decref(root);
    }
    free(r.ids);
    free(r.slots);
    for (uint32_t i = 0; i < t->n_ops; i++) {
        etp_qnn_trace_op *op = &t->ops[i];
        op->dims = op->has_dims && op->n_dims ? t->dims_pool + (uintptr_t)op->dims : NULL;
    }
    if (rc) {
        etp_qnn_trace_free(t);
        return rc;
    }
    *out = t;
    return ETP_OK;
}

ETP_QNN_READER_ENTRIES(optrace, etp_qnn_trace, read_optrace)

void etp_qnn_trace_free(etp_qnn_trace *t) {
    if (!t) return;
    for (uint32_t i = 0; i < t->n_counters; i++) free(t->counters[i].points);
    free(t->counters);
    free(t->ops);
    free(t->threads);
    free(t->processes);
    free(t->dims_pool);
    etp_qnn_pool_free(t->pool);
    free(t);
}

const char *etp_qnn_trace_thread_name(const etp_qnn_trace *t, int64_t pid, int64_t tid) {
    for (uint32_t i = 0; t && i < t->n_threads; i++)
        if (t->threads[i].pid == pid && t->threads[i].tid == tid) return t->threads[i].name;
    return NULL;
}

const etp_qnn_trace_counter *etp_qnn_trace_counter_get(const etp_qnn_trace *t,
                                                       etp_qnn_counter_kind kind) {
    for (uint32_t i = 0; t && i < t->n_counters; i++)
        if (t->counters[i].kind == kind) return &t->counters[i];
    return NULL;
}
