/* trace_pftrace.c - Perfetto's native protobuf trace (.pftrace), a sink of the trace walk.
 *
 * The walk in trace.c lays each block out once (trace_int.h); this sink writes what it laid out
 * as TracePacket messages (schema/perfetto_trace.proto, encoded by libprotobuf-c), each one
 * written as field 1 of the Trace message as soon as it is made: memory holds one block's
 * scratch, the interning tables and the track table, never the trace.
 *
 * Track tree (docs/trace.md): the file (a process track) > one track per method ("load" and
 * "HTP (optrace)" too, as the JSON's processes) > one track per run ("run 3": the host slices)
 * > the run's other tracks (overflow lanes, synthetic time tracks). Counters (QNN counts,
 * cycles, bytes) are counter tracks under their method, with their unit; QNN node cycles are
 * arguments of the call that ran them (never durations). One packet sequence: names, categories,
 * argument names and string values are interned, each written once.
 */
#include "etprof.h"
#include "etprof_etrecord.h"
#include "trace_int.h"
#include "perfetto_trace.pb-c.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SEQ_ID 1
#define OUT_CHUNK ((size_t)1 << 18)

typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__TrackEvent TEvent;
typedef Perfetto__Protos__DebugAnnotation Ann;
typedef Perfetto__Protos__DebugAnnotationNumber NumAnn;

/* Interning tables (InternedData fields). */
enum { T_NAME, T_CAT, T_ANN, T_STR, N_TABS };

/* A string -> iid table (open addressing; keys copied). */
typedef struct stab {
    char **key;
    uint64_t *iid, *hash;
    size_t cap, n;
} stab;

/* A counter track: (method pid, label, unit) -> uuid. */
typedef struct ctrack {
    int pid;
    int unit;
    char *label;
    uint64_t uuid;
} ctrack;

/* An open slice of the track being written. */
typedef struct open_sl {
    int64_t ts, end;
} open_sl;

/* One open HTP track: its uuid and its stack. */
typedef struct htp_track {
    int64_t tid;
    uint64_t uuid;
    open_sl *st;
    size_t n, cap;
} htp_track;

typedef struct pf {
    trace *t;
    uint8_t *out;      /* pending output, flushed to the FILE in OUT_CHUNK pieces */
    size_t nout;
    uint8_t *pk;       /* one packet's encoding */
    size_t cappk;
    stab tab[N_TABS];
    uint64_t next_iid[N_TABS];
    /* new entries of the packet being built, written in its interned_data */
    Perfetto__Protos__EventName *nm;
    Perfetto__Protos__EventName **nmp;
    Perfetto__Protos__EventCategory *ct;
    Perfetto__Protos__EventCategory **ctp;
    Perfetto__Protos__DebugAnnotationName *an;
    Perfetto__Protos__DebugAnnotationName **anp;
    Perfetto__Protos__InternedString *sv;
    Perfetto__Protos__InternedString **svp;
    size_t n_new[N_TABS], cap_new[N_TABS];
    uint64_t next_uuid;
    uint64_t root_uuid;
    /* method tracks by pid (JSON processes) */
    uint64_t *method_uuid;
    size_t cap_method;
    ctrack *ctr;
    size_t nctr, capctr;
    uint64_t *ctr_hash; /* open addressing over ctr indices + 1 */
    size_t cap_ctr_hash;
    uint64_t next_flow;
    /* per-block scratch */
    int32_t *kids;      /* slice indices grouped by their container event */
    size_t capkids;
    int32_t *kid_lo;    /* per event: first index in kids, -1 */
    int32_t *kid_n;
    int32_t *pos;       /* per event: its real slice in t->sl, -1 */
    size_t capev;
    open_sl *stack;
    size_t capstack;
    Ann *ann;           /* annotations of one event */
    Ann **annp;
    size_t capann;
    uint64_t *flows;
    size_t capflows;
    /* arguments packed ahead of their event (the dictionaries: thousands of QNN nodes), added
     * to the TrackEvent as already-encoded debug_annotations fields */
    uint8_t *pre;
    size_t npre, cappre;
    ProtobufCMessageUnknownField uf[4];
    size_t uf_off[4], nuf;
    /* the last call's node labels by position, with their iids: the next run's nodes usually
     * come in the same order, so one strcmp replaces a hash lookup */
    const char **pred_key;
    uint64_t *pred_iid;
    size_t npred, cappred;
    /* HTP */
    uint64_t htp_uuid;
    htp_track *ht;
    size_t nht, capht;
} pf;

static void fail(trace *t, int rc, const char *what) {
    if (t->sink_rc) return;
    t->sink_rc = rc;
    etp_error_set(&t->sink_err, rc, NULL, -1, NULL, "%s", what);
}

static void oom(trace *t) { fail(t, ETP_E_INTERNAL, "out of memory"); }

static bool grow_arr(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

/* 64-bit hash of a string, 8 bytes at a time. */
static uint64_t hash_str(const char *s, uint64_t seed) {
    size_t n = strlen(s);
    uint64_t h = 0x9e3779b97f4a7c15u ^ seed ^ n;
    for (; n >= 8; n -= 8, s += 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdu;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
    return h ^ (h >> 32);
}

/* ---- output ------------------------------------------------------------------------------- */

static void flush_out(pf *p) {
    if (p->nout && fwrite(p->out, 1, p->nout, p->t->f) != p->nout)
        fail(p->t, ETP_E_IO, "write failed");
    p->nout = 0;
}

static void put_bytes(pf *p, const void *b, size_t n) {
    if (p->nout + n > OUT_CHUNK) flush_out(p);
    if (n > OUT_CHUNK) {
        if (fwrite(b, 1, n, p->t->f) != n) fail(p->t, ETP_E_IO, "write failed");
        return;
    }
    memcpy(p->out + p->nout, b, n);
    p->nout += n;
}

/* Encodes `pk` (with the packet's new interned entries) as Trace.packet (field 1). */
static void emit(pf *p, Packet *pk) {
    if (p->t->sink_rc) return;
    Perfetto__Protos__InternedData idata = PERFETTO__PROTOS__INTERNED_DATA__INIT;
    bool any = false;
    for (int k = 0; k < N_TABS; k++) any |= p->n_new[k] != 0;
    if (any) {
        for (size_t i = 0; i < p->n_new[T_NAME]; i++) p->nmp[i] = &p->nm[i];
        for (size_t i = 0; i < p->n_new[T_CAT]; i++) p->ctp[i] = &p->ct[i];
        for (size_t i = 0; i < p->n_new[T_ANN]; i++) p->anp[i] = &p->an[i];
        for (size_t i = 0; i < p->n_new[T_STR]; i++) p->svp[i] = &p->sv[i];
        idata.n_event_names = p->n_new[T_NAME];
        idata.event_names = p->nmp;
        idata.n_event_categories = p->n_new[T_CAT];
        idata.event_categories = p->ctp;
        idata.n_debug_annotation_names = p->n_new[T_ANN];
        idata.debug_annotation_names = p->anp;
        idata.n_debug_annotation_string_values = p->n_new[T_STR];
        idata.debug_annotation_string_values = p->svp;
        pk->interned_data = &idata;
    }
    pk->has_trusted_packet_sequence_id = 1;
    pk->trusted_packet_sequence_id = SEQ_ID;
    size_t n = perfetto__protos__trace_packet__get_packed_size(pk);
    if (!grow_arr((void **)&p->pk, &p->cappk, n + 16, 1)) {
        oom(p->t);
        return;
    }
    uint8_t hdr[11];
    size_t h = 0;
    hdr[h++] = 0x0a; /* field 1, length-delimited */
    for (uint64_t v = n; ; ) {
        uint8_t b = v & 0x7f;
        v >>= 7;
        hdr[h++] = v ? (uint8_t)(b | 0x80) : b;
        if (!v) break;
    }
    size_t got = perfetto__protos__trace_packet__pack(pk, p->pk);
    put_bytes(p, hdr, h);
    put_bytes(p, p->pk, got);
    pk->interned_data = NULL;
    for (int k = 0; k < N_TABS; k++) p->n_new[k] = 0;
}

/* ---- interning ---------------------------------------------------------------------------- */

/* The iid of `s` in table `k`, adding it (and queueing its entry for the next packet) when new.
 * The queued entries point at the table's own copy of the string. 0 when out of memory. */
static uint64_t intern_key(pf *p, int k, const char *s, const char **key);

static uint64_t intern(pf *p, int k, const char *s) { return intern_key(p, k, s, NULL); }

/* intern(), and *key (when not NULL) receives the table's copy of the string. */
static uint64_t intern_key(pf *p, int k, const char *s, const char **key) {
    stab *tb = &p->tab[k];
    if (!s) s = "";
    if ((tb->n + 1) * 2 > tb->cap) {
        size_t nc = tb->cap ? tb->cap * 2 : 256;
        char **nk = calloc(nc, sizeof *nk);
        uint64_t *ni = calloc(nc, sizeof *ni), *nh = calloc(nc, sizeof *nh);
        if (!nk || !ni || !nh) {
            free(nk);
            free(ni);
            free(nh);
            oom(p->t);
            return 0;
        }
        for (size_t i = 0; i < tb->cap; i++) {
            if (!tb->key[i]) continue;
            size_t j = tb->hash[i] & (nc - 1);
            while (nk[j]) j = (j + 1) & (nc - 1);
            nk[j] = tb->key[i];
            ni[j] = tb->iid[i];
            nh[j] = tb->hash[i];
        }
        free(tb->key);
        free(tb->iid);
        free(tb->hash);
        tb->key = nk;
        tb->iid = ni;
        tb->hash = nh;
        tb->cap = nc;
    }
    uint64_t h = hash_str(s, (uint64_t)k);
    size_t j = h & (tb->cap - 1);
    while (tb->key[j]) {
        if (tb->hash[j] == h && strcmp(tb->key[j], s) == 0) {
            if (key) *key = tb->key[j];
            return tb->iid[j];
        }
        j = (j + 1) & (tb->cap - 1);
    }
    char *copy = strdup(s);
    if (!copy) {
        oom(p->t);
        return 0;
    }
    size_t q = p->n_new[k];
    bool ok = true;
    switch (k) {
    case T_NAME:
        ok = grow_arr((void **)&p->nm, &p->cap_new[k], q + 1, sizeof *p->nm) &&
             (p->nmp = realloc(p->nmp, p->cap_new[k] * sizeof *p->nmp)) != NULL;
        break;
    case T_CAT:
        ok = grow_arr((void **)&p->ct, &p->cap_new[k], q + 1, sizeof *p->ct) &&
             (p->ctp = realloc(p->ctp, p->cap_new[k] * sizeof *p->ctp)) != NULL;
        break;
    case T_ANN:
        ok = grow_arr((void **)&p->an, &p->cap_new[k], q + 1, sizeof *p->an) &&
             (p->anp = realloc(p->anp, p->cap_new[k] * sizeof *p->anp)) != NULL;
        break;
    default:
        ok = grow_arr((void **)&p->sv, &p->cap_new[k], q + 1, sizeof *p->sv) &&
             (p->svp = realloc(p->svp, p->cap_new[k] * sizeof *p->svp)) != NULL;
        break;
    }
    if (!ok) {
        free(copy);
        oom(p->t);
        return 0;
    }
    uint64_t iid = ++p->next_iid[k];
    tb->key[j] = copy;
    tb->iid[j] = iid;
    tb->hash[j] = h;
    if (key) *key = copy;
    tb->n++;
    switch (k) {
    case T_NAME: {
        Perfetto__Protos__EventName e = PERFETTO__PROTOS__EVENT_NAME__INIT;
        e.has_iid = 1, e.iid = iid, e.name = copy;
        p->nm[q] = e;
        break;
    }
    case T_CAT: {
        Perfetto__Protos__EventCategory e = PERFETTO__PROTOS__EVENT_CATEGORY__INIT;
        e.has_iid = 1, e.iid = iid, e.name = copy;
        p->ct[q] = e;
        break;
    }
    case T_ANN: {
        Perfetto__Protos__DebugAnnotationName e = PERFETTO__PROTOS__DEBUG_ANNOTATION_NAME__INIT;
        e.has_iid = 1, e.iid = iid, e.name = copy;
        p->an[q] = e;
        break;
    }
    default: {
        Perfetto__Protos__InternedString e = PERFETTO__PROTOS__INTERNED_STRING__INIT;
        e.has_iid = 1, e.iid = iid, e.has_str = 1;
        e.str.data = (uint8_t *)copy;
        e.str.len = strlen(copy);
        p->sv[q] = e;
        break;
    }
    }
    p->n_new[k] = q + 1;
    return iid;
}

/* ---- annotations -------------------------------------------------------------------------- */

static Ann *ann_add(pf *p, size_t *n, const char *name) {
    if (!grow_arr((void **)&p->ann, &p->capann, *n + 1, sizeof *p->ann)) {
        oom(p->t);
        return NULL;
    }
    Ann a = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;
    a.has_name_iid = 1;
    a.name_iid = intern(p, T_ANN, name);
    p->ann[*n] = a;
    return &p->ann[(*n)++];
}

static void ann_str(pf *p, size_t *n, const char *name, const char *v) {
    if (!v) return;
    Ann *a = ann_add(p, n, name);
    if (!a) return;
    a->has_string_value_iid = 1;
    a->string_value_iid = intern(p, T_STR, v);
}

static void ann_int(pf *p, size_t *n, const char *name, int64_t v) {
    Ann *a = ann_add(p, n, name);
    if (!a) return;
    a->has_int_value = 1;
    a->int_value = v;
}

static void ann_uint(pf *p, size_t *n, const char *name, uint64_t v) {
    Ann *a = ann_add(p, n, name);
    if (!a) return;
    a->has_uint_value = 1;
    a->uint_value = v;
}

static void ann_bool(pf *p, size_t *n, const char *name, bool v) {
    Ann *a = ann_add(p, n, name);
    if (!a) return;
    a->has_bool_value = 1;
    a->bool_value = v;
}

/* A value as an integer when it is one, else a double. */
static void ann_num(pf *p, size_t *n, const char *name, double v) {
    if (v == floor(v) && fabs(v) < 9e15) {
        if (v >= 0) ann_uint(p, n, name, (uint64_t)v);
        else ann_int(p, n, name, (int64_t)v);
        return;
    }
    Ann *a = ann_add(p, n, name);
    if (!a) return;
    a->has_double_value = 1;
    a->double_value = v;
}

/* Points the pointer array at the annotations (after every ann_add: the array may move). */
static bool ann_finish(pf *p, size_t n) {
    Ann **q = realloc(p->annp, (n ? n : 1) * sizeof *q);
    if (!q) {
        oom(p->t);
        return false;
    }
    p->annp = q;
    for (size_t i = 0; i < n; i++) q[i] = &p->ann[i];
    return true;
}

/* ---- tracks ------------------------------------------------------------------------------- */

static uint64_t new_track(pf *p, uint64_t parent, const char *name,
                          Perfetto__Protos__CounterDescriptor *cd) {
    uint64_t uuid = p->next_uuid++;
    Packet pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
    Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
    td.has_uuid = 1;
    td.uuid = uuid;
    td.has_parent_uuid = parent != 0;
    td.parent_uuid = parent;
    td.name = (char *)name;
    td.counter = cd;
    pk.track_descriptor = &td;
    emit(p, &pk);
    p->t->st->tracks++;
    return uuid;
}

static uint64_t method_track(pf *p, int pid) {
    if (pid >= 0 && (size_t)pid < p->cap_method && p->method_uuid[pid]) return p->method_uuid[pid];
    return p->root_uuid; /* not named (cannot happen: the walk names a process first) */
}

/* The counter track of `label` in `unit` under method `pid`, made on first use. */
static uint64_t counter_track(pf *p, int pid, const char *label, int unit) {
    if (!label) label = "?";
    uint64_t h = hash_str(label, (uint64_t)pid * 31u + (uint64_t)unit);
    if ((p->nctr + 1) * 2 > p->cap_ctr_hash) {
        size_t nc = p->cap_ctr_hash ? p->cap_ctr_hash * 2 : 64;
        uint64_t *nh = calloc(nc, sizeof *nh);
        if (!nh) {
            oom(p->t);
            return 0;
        }
        for (size_t i = 0; i < p->nctr; i++) {
            const ctrack *c = &p->ctr[i];
            size_t j = hash_str(c->label, (uint64_t)c->pid * 31u + (uint64_t)c->unit) & (nc - 1);
            while (nh[j]) j = (j + 1) & (nc - 1);
            nh[j] = i + 1;
        }
        free(p->ctr_hash);
        p->ctr_hash = nh;
        p->cap_ctr_hash = nc;
    }
    size_t j = h & (p->cap_ctr_hash - 1);
    while (p->ctr_hash[j]) {
        const ctrack *c = &p->ctr[p->ctr_hash[j] - 1];
        if (c->pid == pid && c->unit == unit && strcmp(c->label, label) == 0) return c->uuid;
        j = (j + 1) & (p->cap_ctr_hash - 1);
    }
    if (!grow_arr((void **)&p->ctr, &p->capctr, p->nctr + 1, sizeof *p->ctr)) {
        oom(p->t);
        return 0;
    }
    char *copy = strdup(label);
    if (!copy) {
        oom(p->t);
        return 0;
    }
    Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
    if (unit == ETP_UNIT_COUNT) {
        cd.has_unit = 1;
        cd.unit = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_COUNT;
    } else if (unit == ETP_UNIT_BYTES) {
        cd.has_unit = 1;
        cd.unit = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_SIZE_BYTES;
    }
    const char *un = unit > 0 ? etp_unit_name((etp_unit)unit) : NULL;
    cd.unit_name = (char *)(un ? un : "raw");
    uint64_t uuid = new_track(p, method_track(p, pid), label, &cd);
    p->ctr[p->nctr] = (ctrack){pid, unit, copy, uuid};
    p->ctr_hash[j] = ++p->nctr;
    return uuid;
}

static void counter_point(pf *p, uint64_t uuid, int64_t ts, double v) {
    Packet pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
    TEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
    pk.has_timestamp = 1;
    pk.timestamp = (uint64_t)(ts > 0 ? ts : 0);
    pk.has_sequence_flags = 1;
    pk.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
    te.has_type = 1;
    te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER;
    te.has_track_uuid = 1;
    te.track_uuid = uuid;
    if (v == floor(v) && fabs(v) < 9e15) {
        te.has_counter_value = 1;
        te.counter_value = (int64_t)v;
    } else {
        te.has_double_counter_value = 1;
        te.double_counter_value = v;
    }
    pk.track_event = &te;
    emit(p, &pk);
}

/* ---- slices ------------------------------------------------------------------------------- */

static void slice_end(pf *p, uint64_t track, int64_t ts) {
    Packet pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
    TEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
    pk.has_timestamp = 1;
    pk.timestamp = (uint64_t)(ts > 0 ? ts : 0);
    pk.has_sequence_flags = 1;
    pk.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
    te.has_type = 1;
    te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
    te.has_track_uuid = 1;
    te.track_uuid = track;
    pk.track_event = &te;
    emit(p, &pk);
}

/* A begin (or instant) event with `nann` annotations in p->ann, flows out and one flow in. */
static void event_begin(pf *p, int type, uint64_t track, int64_t ts, const char *name,
                        const char *cat, size_t nann, const uint64_t *flows, size_t nflows,
                        uint64_t flow_in) {
    Packet pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
    TEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
    uint64_t cat_iid = intern(p, T_CAT, cat);
    pk.has_timestamp = 1;
    pk.timestamp = (uint64_t)(ts > 0 ? ts : 0);
    pk.has_sequence_flags = 1;
    pk.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
    te.has_type = 1;
    te.type = (Perfetto__Protos__TrackEvent__Type)type;
    te.has_track_uuid = 1;
    te.track_uuid = track;
    te.has_name_iid = 1;
    te.name_iid = intern(p, T_NAME, name);
    te.n_category_iids = 1;
    te.category_iids = &cat_iid;
    if (nann && ann_finish(p, nann)) {
        te.n_debug_annotations = nann;
        te.debug_annotations = p->annp;
    }
    te.n_flow_ids = nflows;
    te.flow_ids = (uint64_t *)flows;
    if (flow_in) {
        te.n_terminating_flow_ids = 1;
        te.terminating_flow_ids = &flow_in;
    }
    if (p->nuf) {
        for (size_t i = 0; i < p->nuf; i++) p->uf[i].data = p->pre + p->uf_off[i];
        te.base.n_unknown_fields = (unsigned)p->nuf;
        te.base.unknown_fields = p->uf;
    }
    pk.track_event = &te;
    emit(p, &pk);
    p->nuf = 0;
    p->npre = 0;
}

/* Packs the dictionary argument `name` {entries} now (libprotobuf-c, DebugAnnotation) for the
 * next event_begin: sized and encoded once, instead of once per enclosing message. */
static void prepack_dict(pf *p, const char *name, NumAnn **entries, size_t n) {
    if (p->nuf >= 4) return;
    Perfetto__Protos__DebugAnnotationNumberDict a =
        PERFETTO__PROTOS__DEBUG_ANNOTATION_NUMBER_DICT__INIT;
    a.has_name_iid = 1;
    a.name_iid = intern(p, T_ANN, name);
    a.n_dict_entries = n;
    a.dict_entries = entries;
    size_t sz = perfetto__protos__debug_annotation_number_dict__get_packed_size(&a);
    if (!grow_arr((void **)&p->pre, &p->cappre, p->npre + sz + 10, 1)) {
        oom(p->t);
        return;
    }
    /* an unknown field's data is what follows its tag: the length, then the message */
    size_t h = 0;
    for (uint64_t v = sz;;) {
        uint8_t b = v & 0x7f;
        v >>= 7;
        p->pre[p->npre + h++] = v ? (uint8_t)(b | 0x80) : b;
        if (!v) break;
    }
    size_t got = h + perfetto__protos__debug_annotation_number_dict__pack(&a, p->pre + p->npre + h);
    ProtobufCMessageUnknownField *f = &p->uf[p->nuf];
    f->tag = 4; /* TrackEvent.debug_annotations */
    f->wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
    f->len = got;
    f->data = NULL; /* set by event_begin: p->pre may still move */
    p->uf_off[p->nuf++] = p->npre;
    p->npre += got;
}

static bool is_node(const tslice *s) { return s->role == ROLE_NODE || s->role == ROLE_NODE_PARENT; }

/* The event index whose children (flows, node arguments) slice k belongs to, -1. */
static int32_t owner_of(const trace *t, const etp_block_view *v, const tslice *s) {
    if (s->role != ROLE_REAL) return s->container;
    const etp_mevent *e = &v->events[s->ev];
    if (e->kind != ETP_KIND_DELEGATE_INTERNAL) return -1;
    int32_t c = e->parent;
    for (uint32_t hops = 0; c >= 0 && hops < v->n; hops++) {
        if (v->events[c].kind == ETP_KIND_DELEGATE_CALL && t->wall[c]) return c;
        c = v->events[c].parent;
    }
    return -1;
}

/* The slice's name, as the JSON names it. */
static const char *slice_name(const tslice *s, const etp_mevent *e, char *buf, size_t n) {
    const char *nm = e && e->label ? e->label : "?";
    if (s->role == ROLE_NODE_PARENT && !e) nm = "QNN nodes (cycles)";
    (void)buf;
    (void)n;
    return nm;
}

/* The annotations of a slice (p->ann[0..*n)). */
static void slice_args(pf *p, const etp_block_view *v, const tslice *s, const etp_mevent *e,
                       size_t *n) {
    trace *t = p->t;
    if (!e) return;
    bool synthetic = s->role != ROLE_REAL;
    if (e->op_name) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s%s%s", e->op_name,
                 e->op_overload && *e->op_overload ? "." : "",
                 e->op_overload ? e->op_overload : "");
        ann_str(p, n, "operator", buf);
    }
    ann_str(p, n, "backend", e->backend);
    if (!e->backend && t->ninf &&
        (e->kind == ETP_KIND_DELEGATE_CALL || e->kind == ETP_KIND_DELEGATE_INTERNAL))
        ann_str(p, n, "backend_inferred", etp__trace_inferred_backend(t, e->chain, e->instr));
    if (e->chain >= 0) ann_int(p, n, "chain", e->chain);
    if (e->instr >= 0) ann_int(p, n, "instruction", e->instr);
    if (e->ev.type == ETP_EVENT_PROFILE && e->ev.profile.delegate_debug_id_int != -1)
        ann_int(p, n, "delegate_debug_id", e->ev.profile.delegate_debug_id_int);
    if (synthetic) {
        /* a backend-reported time laid out inside its call: the value in its own unit */
        ann_bool(p, n, "synthetic", true);
        ann_str(p, n, "unit", e->unit ? etp_unit_name(e->unit) : NULL);
        ann_num(p, n, "value", e->value);
        if (e->qnn) ann_str(p, n, "qnn_class", etp__trace_qnn_class_name(e->qnn));
    }
    if (s->clamped) ann_bool(p, n, "clamped", true);
    const struct etp_etrecord *rec = t->o ? t->o->etrecord : NULL;
    if (rec && etp_etrecord_event_joinable(e)) {
        etp_etr_join j;
        if (etp_etrecord_join_event(rec, v->method, e, &j) == ETP_OK && j.n_nodes) {
            ann_str(p, n, "op_types", j.op_types);
            ann_str(p, n, "module", j.module);
            ann_str(p, n, "module_class", j.module_class);
            ann_str(p, n, "stack_trace", j.frame);
        }
        etp_etrecord_join_free(&j);
    }
}

/* Whether instant `in` (a value without a time, inside a call) is a counter; else it is an
 * argument of its call: counts, bytes and QNN's top-level cycles are counters (one track each
 * per method), other cycles (per-op values not classed as QNN nodes) and raw values are
 * arguments, so that a backend's per-op values never make thousands of tracks. */
static bool value_is_counter(const etp_mevent *e) {
    return e->unit == ETP_UNIT_COUNT || e->unit == ETP_UNIT_BYTES ||
           (e->unit == ETP_UNIT_CYCLES && e->qnn == ETP_QNN_TOP);
}

/* Kid q of a container: a node slice (its cycles), or a value instant that is not a counter. */
static const etp_mevent *dict_member(const trace *t, const etp_block_view *v, int32_t kid,
                                     int unit) {
    if ((size_t)kid < t->nsl) {
        const tslice *s = &t->sl[kid];
        return s->role == ROLE_NODE && unit == -1 ? &v->events[s->ev] : NULL;
    }
    const tinst *in = &t->in[(size_t)kid - t->nsl];
    const etp_mevent *e = &v->events[in->ev];
    if (unit == -1 || value_is_counter(e)) return NULL;
    return (int)e->unit == unit ? e : NULL;
}

/* The values of container kids [lo, lo+cnt) that `dict_member(.., unit)` selects, as one
 * dictionary argument {label: value}: QNN node cycles (unit -1) or the other values of one
 * unit. NULL when none; else ptrs[0] is the entries' array (the caller frees both). */
static NumAnn **values_dict(pf *p, const etp_block_view *v, int32_t lo, int32_t cnt, int unit,
                            size_t *nent) {
    trace *t = p->t;
    size_t m = 0;
    for (int32_t q = 0; q < cnt; q++)
        if (dict_member(t, v, p->kids[lo + q], unit)) m++;
    *nent = m;
    if (!m) return NULL;
    NumAnn *ents = malloc(m * sizeof *ents);
    NumAnn **ptrs = malloc(m * sizeof *ptrs);
    if (!ents || !ptrs) {
        free(ents);
        free(ptrs);
        oom(t);
        return NULL;
    }
    size_t i = 0;
    for (int32_t q = 0; q < cnt; q++) {
        const etp_mevent *e = dict_member(t, v, p->kids[lo + q], unit);
        if (!e) continue;
        NumAnn a = PERFETTO__PROTOS__DEBUG_ANNOTATION_NUMBER__INIT;
        a.has_name_iid = 1;
        const char *lab = e->label ? e->label : "?";
        if (unit == -1 && i < p->npred && strcmp(p->pred_key[i], lab) == 0) {
            a.name_iid = p->pred_iid[i];
        } else {
            const char *key = NULL;
            a.name_iid = intern_key(p, T_ANN, lab, &key);
            if (unit == -1 && key &&
                grow_arr((void **)&p->pred_key, &p->cappred, i + 1, sizeof *p->pred_key)) {
                uint64_t *pi = realloc(p->pred_iid, p->cappred * sizeof *pi);
                if (pi) {
                    p->pred_iid = pi;
                    p->pred_key[i] = key;
                    p->pred_iid[i] = a.name_iid;
                    if (i >= p->npred) p->npred = i + 1;
                }
            }
        }
        double val = e->value;
        if (val >= 0 && val == floor(val) && val < 9e15) {
            a.has_uint_value = 1;
            a.uint_value = (uint64_t)val;
        } else if (val == floor(val) && fabs(val) < 9e15) {
            a.has_int_value = 1;
            a.int_value = (int64_t)val;
        } else {
            a.has_double_value = 1;
            a.double_value = val;
        }
        ents[i] = a;
        ptrs[i] = &ents[i];
        i++;
    }
    return ptrs;
}

static int pf_block(trace *t, const etp_block_view *v, int pid, uint64_t run, etp_error *err) {
    pf *p = t->sink_state;
    (void)err;
    size_t nsl = t->nsl, nev = v->n ? v->n : 1, nkid = nsl + t->nin;
    if (!grow_arr((void **)&p->kids, &p->capkids, 2 * nkid + 1, sizeof *p->kids) ||
        !grow_arr((void **)&p->pos, &p->capev, nev, sizeof *p->pos) ||
        !(p->kid_lo = realloc(p->kid_lo, p->capev * sizeof *p->kid_lo)) ||
        !(p->kid_n = realloc(p->kid_n, p->capev * sizeof *p->kid_n)) ||
        !grow_arr((void **)&p->stack, &p->capstack, nsl + 1, sizeof *p->stack) ||
        !grow_arr((void **)&p->flows, &p->capflows, nsl + 1, sizeof *p->flows)) {
        oom(t);
        return t->sink_rc;
    }
    /* Children of each container (its flows and node arguments), by the container's event. */
    int32_t *own = malloc((nkid ? nkid : 1) * sizeof *own);
    if (!own) {
        oom(t);
        return t->sink_rc;
    }
    size_t nk = 0;
    for (uint32_t i = 0; i < v->n; i++) p->pos[i] = p->kid_lo[i] = -1, p->kid_n[i] = 0;
    for (size_t k = 0; k < nsl; k++) {
        const tslice *s = &t->sl[k];
        own[k] = owner_of(t, v, s);
        if (s->role == ROLE_REAL && s->ev >= 0) p->pos[s->ev] = (int32_t)k;
        if (own[k] >= 0) p->kids[nk++] = (int32_t)k;
    }
    for (size_t k = 0; k < t->nin; k++) { /* values inside a call: its counters or arguments */
        own[nsl + k] = t->in[k].container;
        if (own[nsl + k] >= 0) p->kids[nk++] = (int32_t)(nsl + k);
    }
    /* grouped by container, in slice order within a group (a counting sort) */
    for (size_t q = 0; q < nk; q++) p->kid_n[own[p->kids[q]]]++;
    int32_t at = 0;
    for (uint32_t i = 0; i < v->n; i++)
        if (p->kid_n[i]) p->kid_lo[i] = at, at += p->kid_n[i], p->kid_n[i] = 0;
    for (size_t q = 0; q < nk; q++) {
        int32_t k = p->kids[q], c = own[k];
        p->kids[nkid + (size_t)p->kid_lo[c] + (size_t)p->kid_n[c]++] = k;
    }
    memmove(p->kids, p->kids + nkid, nk * sizeof *p->kids);
    uint64_t flow_base = p->next_flow;
    p->next_flow += nsl;
    /* Tracks: "run N" under the method, the run's other tracks under it. */
    const char *backend;
    char runname[200];
    etp__trace_block_names(t, v, pid, run, runname, sizeof runname, &backend);
    uint64_t uuid[SUB_COUNT_] = {0};
    uuid[SUB_HOST] = new_track(p, method_track(p, pid), runname, NULL);
    size_t depth = 0;
    int cur = -1;
    for (size_t k = 0; k <= nsl && !t->sink_rc; k++) {
        const tslice *s = k < nsl ? &t->sl[k] : NULL;
        if (s && is_node(s)) continue;
        if (!s || s->sub != cur) { /* close the previous track's slices */
            while (depth) {
                depth--;
                slice_end(p, uuid[cur], p->stack[depth].end);
            }
            if (!s) break;
            cur = s->sub;
            if (!uuid[cur]) {
                char tn[300];
                etp__trace_track_name(runname, backend, cur, tn, sizeof tn);
                uuid[cur] = new_track(p, uuid[SUB_HOST], tn, NULL);
            }
        }
        int64_t end = s->ts + s->dur;
        while (depth && !(s->ts >= p->stack[depth - 1].ts && end <= p->stack[depth - 1].end)) {
            depth--;
            slice_end(p, uuid[cur], p->stack[depth].end);
        }
        const etp_mevent *e = s->ev >= 0 ? &v->events[s->ev] : NULL;
        size_t nann = 0;
        slice_args(p, v, s, e, &nann);
        size_t nflows = 0, ndict = 0;
        NumAnn **dict[4];
        if (s->role == ROLE_REAL && s->ev >= 0 && p->kid_lo[s->ev] >= 0) {
            int32_t lo = p->kid_lo[s->ev], cnt = p->kid_n[s->ev];
            for (int32_t q = 0; q < cnt; q++) {
                int32_t kk = p->kids[lo + q];
                if ((size_t)kk < nsl && !is_node(&t->sl[kk]))
                    p->flows[nflows++] = flow_base + (uint64_t)kk;
            }
            /* -1: QNN node cycles; then the other values that are not counters, by unit */
            static const int units[] = {-1, ETP_UNIT_CYCLES, ETP_UNIT_RAW, ETP_UNIT_NONE};
            bool present[4] = {false, false, false, false};
            for (int32_t q = 0; q < cnt; q++) {
                int32_t kk = p->kids[lo + q];
                if ((size_t)kk < nsl) present[0] |= t->sl[kk].role == ROLE_NODE;
                else {
                    const etp_mevent *ie = &v->events[t->in[(size_t)kk - nsl].ev];
                    if (!value_is_counter(ie))
                        for (int u = 1; u < 4; u++) present[u] |= (int)ie->unit == units[u];
                }
            }
            for (size_t u = 0; u < sizeof units / sizeof units[0] && ndict < 4; u++) {
                if (!present[u]) continue;
                size_t nent = 0;
                NumAnn **d = values_dict(p, v, lo, cnt, units[u], &nent);
                if (!d) continue;
                dict[ndict++] = d;
                const char *dn = units[u] == -1              ? "qnn_node_cycles"
                                 : units[u] == ETP_UNIT_CYCLES ? "values_cycles"
                                 : units[u] == ETP_UNIT_RAW    ? "values_raw"
                                                               : "values_unitless";
                prepack_dict(p, dn, d, nent);
            }
        }
        uint64_t flow_in = own[k] >= 0 ? flow_base + (uint64_t)k : 0;
        char nb[300];
        event_begin(p, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, uuid[cur], s->ts,
                    slice_name(s, e, nb, sizeof nb),
                    s->role != ROLE_REAL ? "synthetic" : etp_kind_name(e->kind), nann, p->flows,
                    nflows, flow_in);
        for (size_t q = 0; q < ndict; q++) {
            free(dict[q][0]);
            free(dict[q]);
        }
        p->stack[depth++] = (open_sl){s->ts, end};
        t->st->slices++;
        if (s->role != ROLE_REAL) t->st->synthetic++;
    }
    /* Values that are not times: counters under the method, set for the span of their call. */
    for (size_t k = 0; k < nsl && !t->sink_rc; k++) {
        const tslice *s = &t->sl[k];
        if (s->role != ROLE_NODE_PARENT) continue;
        const etp_mevent *e = s->ev >= 0 ? &v->events[s->ev] : NULL;
        int32_t c = s->container;
        const tslice *cs = c >= 0 && p->pos[c] >= 0 ? &t->sl[p->pos[c]] : s;
        uint64_t cu = counter_track(p, pid, e && e->label ? e->label : "QNN nodes (cycles)",
                                    ETP_UNIT_CYCLES);
        counter_point(p, cu, cs->ts, e ? e->value : s->node_sum);
        counter_point(p, cu, cs->ts + cs->dur, 0);
    }
    for (size_t k = 0; k < t->nin && !t->sink_rc; k++) {
        const tinst *in = &t->in[k];
        const etp_mevent *e = &v->events[in->ev];
        if (in->container >= 0) {
            if (!value_is_counter(e)) continue; /* an argument of its call */
            int32_t c = in->container;
            const tslice *cs = p->pos[c] >= 0 ? &t->sl[p->pos[c]] : NULL;
            uint64_t cu = counter_track(p, pid, e->label, e->unit ? (int)e->unit : ETP_UNIT_RAW);
            counter_point(p, cu, cs ? cs->ts : in->ts, e->value);
            counter_point(p, cu, cs ? cs->ts + cs->dur : in->ts, 0);
            continue;
        }
        /* allocations: an instant on the run's track */
        char name[300];
        const char *nm = e->label;
        if (e->ev.type == ETP_EVENT_ALLOCATION) {
            etp_str an = {NULL, 0};
            if (e->ev.allocation.allocator_id >= 1)
                an = etp_dump_allocator_name(etp_model_dump(t->m), v->block,
                                             (uint32_t)e->ev.allocation.allocator_id - 1);
            snprintf(name, sizeof name, "allocation %s", an.ptr ? an.ptr : "(unknown allocator)");
            nm = name;
        }
        if (!uuid[in->sub]) {
            char tn[300];
            etp__trace_track_name(runname, backend, in->sub, tn, sizeof tn);
            uuid[in->sub] = new_track(p, uuid[SUB_HOST], tn, NULL);
        }
        size_t nann = 0;
        ann_str(p, &nann, "unit", e->unit ? etp_unit_name(e->unit) : NULL);
        ann_num(p, &nann, "value", e->value);
        event_begin(p, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, uuid[in->sub], in->ts,
                    nm ? nm : "?", "synthetic", nann, NULL, 0, 0);
        t->st->instants++;
    }
    free(own);
    return t->sink_rc;
}

/* ---- processes and the optrace ---------------------------------------------------------- */

static void pf_process(trace *t, int pid, const char *name, int sort) {
    pf *p = t->sink_state;
    (void)sort;
    if (pid < 0) return;
    size_t old = p->cap_method;
    if (!grow_arr((void **)&p->method_uuid, &p->cap_method, (size_t)pid + 1,
                  sizeof *p->method_uuid)) {
        oom(t);
        return;
    }
    memset(p->method_uuid + old, 0, (p->cap_method - old) * sizeof *p->method_uuid);
    uint64_t u = new_track(p, p->root_uuid, name, NULL);
    p->method_uuid[pid] = u;
    if (name && strcmp(name, "HTP (optrace)") == 0) p->htp_uuid = u;
}

static htp_track *htp_find(pf *p, int64_t tid) {
    for (size_t i = 0; i < p->nht; i++)
        if (p->ht[i].tid == tid) return &p->ht[i];
    return NULL;
}

static void pf_thread(trace *t, int pid, int64_t tid, const char *name) {
    pf *p = t->sink_state;
    if (!grow_arr((void **)&p->ht, &p->capht, p->nht + 1, sizeof *p->ht)) {
        oom(t);
        return;
    }
    htp_track *h = &p->ht[p->nht++];
    memset(h, 0, sizeof *h);
    h->tid = tid;
    h->uuid = new_track(p, method_track(p, pid), name, NULL);
}

static void htp_close(pf *p, htp_track *h, int64_t upto, bool all) {
    while (h->n) {
        open_sl *top = &h->st[h->n - 1];
        if (!all && top->end > upto) break;
        slice_end(p, h->uuid, top->end);
        h->n--;
    }
}

static void pf_htp_op(trace *t, int pid, int64_t tid, const etp_qnn_trace_op *op, int64_t s,
                      int64_t e, bool overlap) {
    pf *p = t->sink_state;
    (void)pid;
    htp_track *h = htp_find(p, tid);
    if (!h) return;
    while (h->n && !(s >= h->st[h->n - 1].ts && e <= h->st[h->n - 1].end)) {
        h->n--;
        slice_end(p, h->uuid, h->st[h->n].end);
    }
    if (!grow_arr((void **)&h->st, &h->cap, h->n + 1, sizeof *h->st)) {
        oom(t);
        return;
    }
    size_t nann = 0;
    char idbuf[24];
    snprintf(idbuf, sizeof idbuf, "0x%016llx", (unsigned long long)op->id);
    ann_str(p, &nann, "qnn_op", op->qnn_op);
    ann_str(p, &nann, "op_id", idbuf);
    ann_int(p, &nann, "cycles", op->dur);
    ann_bool(p, &nann, "hmx", (op->flags & ETP_QNN_F_HMX) != 0);
    ann_bool(p, &nann, "hvx", (op->flags & ETP_QNN_F_HVX) != 0);
    ann_bool(p, &nann, "dma", (op->flags & ETP_QNN_F_ANY_DMA) != 0);
    Ann *a = ann_add(p, &nann, "clock_ghz");
    if (a) {
        a->has_double_value = 1;
        a->double_value = t->ghz;
    }
    ann_str(p, &nann, "clock_source", t->clock_source);
    if (overlap) ann_bool(p, &nann, "overlap", true);
    event_begin(p, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, h->uuid, s, op->name,
                "htp", nann, NULL, 0, 0);
    h->st[h->n++] = (open_sl){s, e};
    t->st->slices++;
}

static void htp_close_all(pf *p) {
    for (size_t i = 0; i < p->nht; i++) htp_close(p, &p->ht[i], 0, true);
}

static void pf_htp_counter(trace *t, int pid, const etp_qnn_trace_counter *ct, const char *label,
                           int64_t ts, double value) {
    pf *p = t->sink_state;
    htp_close_all(p);
    uint64_t cu = counter_track(p, pid, label, ct->kind == ETP_QNN_CTR_OTHER ? ETP_UNIT_RAW
                                                                             : ETP_UNIT_BYTES);
    counter_point(p, cu, ts, value);
}

/* ---- sequence ----------------------------------------------------------------------------- */

static int pf_begin(trace *t, etp_error *err) {
    pf *p = calloc(1, sizeof *p);
    if (p) p->out = malloc(OUT_CHUNK);
    if (!p || !p->out) {
        free(p);
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    t->sink_state = p;
    p->t = t;
    p->next_uuid = 1;
    p->next_flow = 1;
    /* The first packet clears the sequence's interning state; it names the file's track. */
    const char *src = t->o->source ? t->o->source : "ETDump";
    const char *base = strrchr(src, '/');
    base = base ? base + 1 : src;
    Packet pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
    Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
    Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
    pd.has_pid = 1;
    pd.pid = 1;
    pd.process_name = (char *)base;
    td.has_uuid = 1;
    td.uuid = p->root_uuid = p->next_uuid++;
    td.name = (char *)base;
    td.process = &pd;
    pk.track_descriptor = &td;
    pk.has_sequence_flags = 1;
    pk.sequence_flags =
        PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
    emit(p, &pk);
    t->st->tracks++;
    if (t->sink_rc) {
        *err = t->sink_err;
        return t->sink_rc;
    }
    return ETP_OK;
}

static int pf_end(trace *t, etp_error *err) {
    pf *p = t->sink_state;
    htp_close_all(p);
    flush_out(p);
    if (!t->sink_rc && ferror(t->f)) fail(t, ETP_E_IO, "write failed");
    if (t->sink_rc) {
        *err = t->sink_err;
        return t->sink_rc;
    }
    return ETP_OK;
}

static void pf_release(trace *t) {
    pf *p = t->sink_state;
    if (!p) return;
    for (int k = 0; k < N_TABS; k++) {
        for (size_t i = 0; i < p->tab[k].cap; i++) free(p->tab[k].key[i]);
        free(p->tab[k].key);
        free(p->tab[k].iid);
        free(p->tab[k].hash);
    }
    for (size_t i = 0; i < p->nctr; i++) free(p->ctr[i].label);
    for (size_t i = 0; i < p->nht; i++) free(p->ht[i].st);
    free(p->ht);
    free(p->ctr);
    free(p->ctr_hash);
    free(p->method_uuid);
    free(p->nm);
    free(p->nmp);
    free(p->ct);
    free(p->ctp);
    free(p->an);
    free(p->anp);
    free(p->sv);
    free(p->svp);
    free(p->kids);
    free(p->kid_lo);
    free(p->kid_n);
    free(p->pos);
    free(p->stack);
    free(p->ann);
    free(p->annp);
    free(p->flows);
    free(p->pred_key);
    free(p->pred_iid);
    free(p->pre);
    free(p->pk);
    free(p->out);
    free(p);
    t->sink_state = NULL;
}

const trace_sink etp__trace_pftrace_sink = {
    .begin = pf_begin,
    .process = pf_process,
    .thread = pf_thread,
    .block = pf_block,
    .htp_op = pf_htp_op,
    .htp_counter = pf_htp_counter,
    .end = pf_end,
    .release = pf_release,
};
