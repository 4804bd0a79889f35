/* inspector.c - the Python Inspector's event table (include/etprof_inspector.h): runs merged
 * by event structure, one event per signature, samples per run. Written from the Inspector's
 * documented behaviour (../shared/docs/etdump-format.md section 3). */
#include "etprof_inspector.h"
#include "model_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A signature within one run. */
typedef struct sig {
    /* identity (what the Inspector compares) */
    const char *name; /* profile name ("" when none) */
    uint32_t name_len;
    int32_t instr;    /* -1 = None */
    int32_t dint;     /* -1 = None */
    const char *dstr; /* NULL = None (absent or empty) */
    uint32_t dstr_len;
    bool profile;     /* false: debug-only */
    bool dbg;         /* has a debug signature */
    const char *dname;
    uint32_t dname_len;
    int32_t dinstr, ddint;
    const char *ddstr;
    uint32_t ddstr_len;
    /* the run's sample */
    int64_t chain;
    uint32_t ev;      /* event index in the block (the profile event, or the first debug one) */
    double value;
    etp_unit unit;
    uint64_t start;
    uint32_t replaced; /* earlier occurrences in the run that this one replaced */
    uint64_t end;      /* the sample's raw end_time */
    etp_vec meta;      /* the sample's delegate_debug_metadata */
    uint32_t key;      /* the instruction key (index in scratch.keys) of the kept sample */
} sig;

/* An instruction-event key of one run. */
typedef struct ikey {
    int32_t instr, dint;
    int64_t chain;
    const char *dstr;
    uint32_t dstr_len;
    int32_t first_prof, last_prof; /* event indices (linked by next[]), -1 = none */
    int32_t first_dbg;             /* first non-output debug event, -1 = none */
    int32_t last_dbg;              /* last one: the non-output debug events are linked by next[] */
    uint64_t hash;
} ikey;

typedef struct group {
    etp_inspector_block pub;
    uint64_t hash;
    uint32_t n;
    sig *sigs;                 /* identity of the first run's signatures */
    etp_inspector_event *evs;
    char (*idtext)[16];
    double **vals;
    uint64_t **starts;
    etp_inspector_sample **samples; /* per signature and run: end time, metadata */
    uint32_t *dbg_off;         /* n + 1 offsets into dbg_idx (the first run's debug events) */
    uint32_t *dbg_idx;
    uint32_t cap;              /* capacity of every vals/starts vector, in runs */
} group;

typedef struct priv {
    group *groups;
    uint32_t n_groups, cap_groups;
    etp_inspector_block *blocks;
} priv;

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t hash_bytes(uint64_t h, const char *p, uint32_t n) {
    uint64_t x = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; i++) x = (x ^ (uint8_t)p[i]) * 1099511628211ull;
    return mix(h, x ^ n);
}

static bool str_eq(const char *a, uint32_t al, const char *b, uint32_t bl) {
    if (!a || !b) return a == b;
    return al == bl && memcmp(a, b, al) == 0;
}

static bool sig_eq(const sig *a, const sig *b) {
    if (a->profile != b->profile || a->dbg != b->dbg || a->instr != b->instr || a->dint != b->dint)
        return false;
    if (!str_eq(a->dstr, a->dstr_len, b->dstr, b->dstr_len)) return false;
    if (a->profile && !str_eq(a->name, a->name_len, b->name, b->name_len)) return false;
    if (a->dbg && (a->dinstr != b->dinstr || a->ddint != b->ddint ||
                   !str_eq(a->dname, a->dname_len, b->dname, b->dname_len) ||
                   !str_eq(a->ddstr, a->ddstr_len, b->ddstr, b->ddstr_len)))
        return false;
    return true;
}

static uint64_t sig_hash(const sig *s) {
    uint64_t h = mix(0, (uint64_t)s->profile << 1 | s->dbg);
    h = mix(h, (uint32_t)s->instr);
    h = mix(h, (uint32_t)s->dint);
    if (s->dstr) h = hash_bytes(h, s->dstr, s->dstr_len);
    if (s->profile) h = hash_bytes(h, s->name, s->name_len);
    if (s->dbg) {
        h = mix(h, (uint32_t)s->dinstr);
        h = mix(h, (uint32_t)s->ddint);
        h = hash_bytes(h, s->dname ? s->dname : "", s->dname ? s->dname_len : 0);
        if (s->ddstr) h = hash_bytes(h, s->ddstr, s->ddstr_len);
    }
    return h;
}

/* Per-run scratch, kept over the runs. */
typedef struct scratch {
    ikey *keys;
    uint32_t n_keys, cap_keys;
    int32_t *next;      /* per event: next profile (or non-output debug) event of the key */
    uint32_t cap_ev;
    uint32_t *kslot;    /* open addressing over keys (index + 1; 0 = empty) */
    uint32_t kmask;
    sig *sigs;
    uint32_t n_sigs, cap_sigs;
    uint32_t *sslot;    /* open addressing over sigs */
    uint32_t smask;
} scratch;

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size) {
    if (need <= *cap) return 0;
    uint32_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > UINT32_MAX / 2) return -1;
        c *= 2;
    }
    void *q = realloc(*p, (size_t)c * size);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int table(uint32_t **slot, uint32_t *mask, uint32_t n) {
    uint32_t want = 16;
    while (want < n * 2u && want < (1u << 31)) want *= 2;
    if (want - 1 != *mask || !*slot) {
        free(*slot);
        *slot = calloc(want, sizeof **slot);
        if (!*slot) return -1;
        *mask = want - 1;
    } else {
        memset(*slot, 0, (size_t)want * sizeof **slot);
    }
    return 0;
}

static const char *nonempty(etp_str s, uint32_t *len) {
    *len = s.ptr ? s.len : 0;
    return s.ptr && s.len ? s.ptr : NULL;
}

/* The key of event e (a profile or debug event). */
static void key_of(const etp_event *ev, ikey *k) {
    memset(k, 0, sizeof *k);
    if (ev->type == ETP_EVENT_PROFILE) {
        const etp_profile_event *p = &ev->profile;
        k->instr = p->instruction_id;
        k->chain = p->chain_index;
        k->dint = p->delegate_debug_id_int;
        k->dstr = p->delegate_debug_id_str.ptr;
        k->dstr_len = p->delegate_debug_id_str.len;
    } else {
        const etp_debug_event *d = &ev->debug;
        k->instr = d->instruction_id;
        /* the schema's u64: (u64)-1 is not the profile events' -1 (Python compares the raw
         * values), so it gets a value no i32 chain can have */
        k->chain = d->chain_index > (uint64_t)INT64_MAX ? INT64_MIN : (int64_t)d->chain_index;
        k->dint = d->delegate_debug_id_int;
        k->dstr = d->delegate_debug_id_str.ptr;
        k->dstr_len = d->delegate_debug_id_str.len;
    }
    uint64_t h = mix(mix(mix(0, (uint32_t)k->instr), (uint64_t)k->chain), (uint32_t)k->dint);
    k->hash = k->dstr ? hash_bytes(h, k->dstr, k->dstr_len) : mix(h, 7);
}

static bool key_eq(const ikey *a, const ikey *b) {
    return a->instr == b->instr && a->chain == b->chain && a->dint == b->dint &&
           str_eq(a->dstr, a->dstr_len, b->dstr, b->dstr_len);
}

/* Builds the run's signatures (deduplicated) into s->sigs. Returns 0 or -1 (memory). */
static int run_sigs(scratch *s, const etp_block_view *v, uint64_t *replaced) {
    s->n_keys = 0;
    s->n_sigs = 0;
    if (grow((void **)&s->next, &s->cap_ev, v->n ? v->n : 1, sizeof *s->next)) return -1;
    if (table(&s->kslot, &s->kmask, v->n)) return -1;
    for (uint32_t i = 0; i < v->n; i++) {
        const etp_event *ev = &v->events[i].ev;
        if (ev->type != ETP_EVENT_PROFILE && ev->type != ETP_EVENT_DEBUG) continue;
        ikey k;
        key_of(ev, &k);
        uint32_t pos = (uint32_t)k.hash & s->kmask, ki;
        for (;;) {
            uint32_t e = s->kslot[pos];
            if (!e) {
                if (grow((void **)&s->keys, &s->cap_keys, s->n_keys + 1, sizeof *s->keys))
                    return -1;
                k.first_prof = k.last_prof = k.first_dbg = k.last_dbg = -1;
                s->keys[s->n_keys] = k;
                ki = s->n_keys++;
                s->kslot[pos] = ki + 1;
                break;
            }
            if (key_eq(&s->keys[e - 1], &k)) {
                ki = e - 1;
                break;
            }
            pos = (pos + 1) & s->kmask;
        }
        ikey *kk = &s->keys[ki];
        if (ev->type == ETP_EVENT_PROFILE) {
            s->next[i] = -1;
            if (kk->last_prof >= 0) s->next[kk->last_prof] = (int32_t)i;
            else kk->first_prof = (int32_t)i;
            kk->last_prof = (int32_t)i;
        } else {
            const etp_debug_event *d = &ev->debug;
            bool output = d->has_debug_entry && d->debug_entry.has_output && d->debug_entry.output;
            if (!output) {
                s->next[i] = -1;
                if (kk->last_dbg >= 0) s->next[kk->last_dbg] = (int32_t)i;
                else kk->first_dbg = (int32_t)i;
                kk->last_dbg = (int32_t)i;
            }
        }
    }
    if (table(&s->sslot, &s->smask, v->n)) return -1;
    for (uint32_t ki = 0; ki < s->n_keys; ki++) {
        const ikey *k = &s->keys[ki];
        if (k->first_prof < 0 && k->first_dbg < 0) continue; /* program outputs only */
        sig base;
        memset(&base, 0, sizeof base);
        if (k->first_dbg >= 0) {
            const etp_debug_event *d = &v->events[k->first_dbg].ev.debug;
            base.dbg = true;
            base.dname = d->name.ptr ? d->name.ptr : "";
            base.dname_len = d->name.ptr ? d->name.len : 0;
            base.dinstr = d->instruction_id;
            base.ddint = d->delegate_debug_id_int < 0 ? -1 : d->delegate_debug_id_int;
            base.ddstr = nonempty(d->delegate_debug_id_str, &base.ddstr_len);
        }
        for (int32_t i = k->first_prof; ; i = s->next[i]) {
            sig g = base;
            const etp_mevent *me;
            if (k->first_prof < 0) { /* debug-only */
                me = &v->events[k->first_dbg];
                g.profile = false;
                g.instr = me->ev.debug.instruction_id < 0 ? -1 : me->ev.debug.instruction_id;
                g.dint = base.ddint;
                g.dstr = base.ddstr;
                g.dstr_len = base.ddstr_len;
                g.value = NAN;
                g.unit = ETP_UNIT_NONE;
                g.chain = k->chain;
                g.ev = (uint32_t)k->first_dbg;
                g.key = ki;
            } else {
                me = &v->events[i];
                const etp_profile_event *p = &me->ev.profile;
                g.profile = true;
                g.name = p->name.ptr ? p->name.ptr : "";
                g.name_len = p->name.ptr ? p->name.len : 0;
                g.instr = p->instruction_id < 0 ? -1 : p->instruction_id;
                g.dint = p->delegate_debug_id_int < 0 ? -1 : p->delegate_debug_id_int;
                g.dstr = nonempty(p->delegate_debug_id_str, &g.dstr_len);
                g.value = me->value;
                g.unit = me->unit;
                g.start = p->start_time;
                g.chain = p->chain_index;
                g.ev = (uint32_t)i;
                g.end = p->end_time;
                g.meta = p->delegate_debug_metadata;
                g.key = ki;
            }
            uint64_t h = sig_hash(&g);
            uint32_t pos = (uint32_t)h & s->smask;
            bool dup = false;
            for (;;) {
                uint32_t e = s->sslot[pos];
                if (!e) break;
                if (sig_eq(&s->sigs[e - 1], &g)) {
                    /* the Inspector keeps the first position and the last sample */
                    sig *old = &s->sigs[e - 1];
                    old->value = g.value;
                    old->unit = g.unit;
                    old->start = g.start;
                    old->end = g.end;
                    old->meta = g.meta;
                    old->key = g.key;
                    old->replaced++;
                    (*replaced)++;
                    dup = true;
                    break;
                }
                pos = (pos + 1) & s->smask;
            }
            if (!dup) {
                if (grow((void **)&s->sigs, &s->cap_sigs, s->n_sigs + 1, sizeof *s->sigs))
                    return -1;
                s->sigs[s->n_sigs] = g;
                s->sslot[pos] = ++s->n_sigs;
            }
            if (k->first_prof < 0 || s->next[i] < 0) break;
        }
    }
    return 0;
}

static void group_free(group *g) {
    for (uint32_t k = 0; k < g->n; k++) {
        if (g->vals) free(g->vals[k]);
        if (g->starts) free(g->starts[k]);
        if (g->samples) free(g->samples[k]);
    }
    free(g->samples);
    free(g->dbg_off);
    free(g->dbg_idx);
    free(g->vals);
    free(g->starts);
    free(g->sigs);
    free(g->evs);
    free(g->idtext);
}

void etp_inspector_free(etp_inspector_result *r) {
    if (!r) return;
    priv *p = r->priv_;
    if (p) {
        for (uint32_t i = 0; i < p->n_groups; i++) group_free(&p->groups[i]);
        free(p->groups);
        free(p->blocks);
        free(p);
    }
    free(r);
}

static int group_new(priv *p, const etp_block_view *v, const scratch *s, uint64_t h,
                     uint32_t *gi) {
    if (grow((void **)&p->groups, &p->cap_groups, p->n_groups + 1, sizeof *p->groups)) return -1;
    group *g = &p->groups[p->n_groups];
    memset(g, 0, sizeof *g);
    g->hash = h;
    g->n = s->n_sigs;
    size_t n = s->n_sigs ? s->n_sigs : 1;
    g->sigs = malloc(n * sizeof *g->sigs);
    g->evs = calloc(n, sizeof *g->evs);
    g->idtext = calloc(n, sizeof *g->idtext);
    g->vals = calloc(n, sizeof *g->vals);
    g->starts = calloc(n, sizeof *g->starts);
    g->samples = calloc(n, sizeof *g->samples);
    g->dbg_off = calloc(n + 1, sizeof *g->dbg_off);
    p->n_groups++; /* freed with the result from here on */
    if (!g->sigs || !g->evs || !g->idtext || !g->vals || !g->starts || !g->samples ||
        !g->dbg_off)
        return -1;
    /* the first run's debug events of every signature: its kept sample's key's */
    uint32_t nd = 0;
    for (uint32_t k = 0; k < s->n_sigs; k++) {
        g->dbg_off[k] = nd;
        for (int32_t i = s->keys[s->sigs[k].key].first_dbg; i >= 0; i = s->next[i]) nd++;
    }
    g->dbg_off[s->n_sigs] = nd;
    g->dbg_idx = malloc((nd ? nd : 1) * sizeof *g->dbg_idx);
    if (!g->dbg_idx) return -1;
    nd = 0;
    for (uint32_t k = 0; k < s->n_sigs; k++)
        for (int32_t i = s->keys[s->sigs[k].key].first_dbg; i >= 0; i = s->next[i])
            g->dbg_idx[nd++] = (uint32_t)i;
    if (s->n_sigs) memcpy(g->sigs, s->sigs, s->n_sigs * sizeof *g->sigs);
    g->pub.name = v->info.name;
    g->pub.bundled_input_index = v->info.bundled_input_index;
    g->pub.first_run = v->block;
    g->pub.method = v->method;
    for (uint32_t k = 0; k < s->n_sigs; k++) {
        const sig *sg = &s->sigs[k];
        const etp_mevent *me = &v->events[sg->ev];
        etp_inspector_event *e = &g->evs[k];
        e->delegate_id_int = sg->dint;
        e->delegate_id_str.ptr = sg->dstr;
        e->delegate_id_str.len = sg->dstr ? sg->dstr_len : 0;
        e->instruction_id = sg->instr;
        e->chain_index = sg->chain < INT32_MIN || sg->chain > INT32_MAX ? -1 : (int32_t)sg->chain;
        e->kind = me->kind;
        e->backend = me->backend;
        e->has_perf = sg->profile;
        e->unit = sg->profile ? sg->unit : ETP_UNIT_NONE;
        e->has_debug = sg->dbg;
        e->is_delegated = sg->dint >= 0 || sg->dstr;
        if (sg->dint >= 0) {
            snprintf(g->idtext[k], sizeof g->idtext[k], "%d", (int)sg->dint);
            e->name = g->idtext[k];
            e->name_len = strlen(g->idtext[k]);
        } else if (sg->dstr) {
            e->name = sg->dstr;
            e->name_len = sg->dstr_len;
        } else if (sg->profile) {
            e->name = sg->name;
            e->name_len = sg->name_len;
        } else { /* a debug-only signature of a non-delegated instruction: the debug name */
            e->name = sg->dname ? sg->dname : "";
            e->name_len = sg->dname ? sg->dname_len : 0;
        }
    }
    *gi = p->n_groups - 1;
    return 0;
}

static bool host_time(etp_unit u) { return u == ETP_UNIT_NS || u == ETP_UNIT_TICKS; }

/* A sample read as `raw` only because its start time is 0 (the model's rule for delegate events
 * and unlabelled names: a QNN-style value with no timestamps), in a signature whose other runs
 * carry host timestamps: the Inspector takes every profile event as end - start on one clock
 * (its event_blocks_test run grouping: runs (0, 1) and (2, 4) of one event give raw [1, 2]), so
 * such a sample is host time too: its value (end - 0 ticks) in the host unit (x tick_ns for ns). */
static double zero_start_as_host(double raw, etp_unit host, double tick_ns) {
    return host == ETP_UNIT_NS && tick_ns > 0 ? raw * tick_ns : raw;
}

static int group_add(group *g, const scratch *s, double tick_ns) {
    uint32_t run = g->pub.n_runs;
    if (run == g->cap) {
        uint32_t c = g->cap ? g->cap * 2 : 4;
        if (c < g->cap) return -1;
        for (uint32_t k = 0; k < g->n; k++) {
            if (!g->sigs[k].profile) continue;
            double *nv = realloc(g->vals[k], (size_t)c * sizeof *nv);
            if (!nv) return -1;
            g->vals[k] = nv;
            uint64_t *ns = realloc(g->starts[k], (size_t)c * sizeof *ns);
            if (!ns) return -1;
            g->starts[k] = ns;
            etp_inspector_sample *sm = realloc(g->samples[k], (size_t)c * sizeof *sm);
            if (!sm) return -1;
            g->samples[k] = sm;
        }
        g->cap = c;
    }
    for (uint32_t k = 0; k < g->n; k++) {
        const sig *sg = &s->sigs[k];
        if (!sg->profile) continue;
        etp_inspector_event *e = &g->evs[k];
        double v = sg->value;
        if (sg->unit != e->unit) {
            if (e->unit == ETP_UNIT_RAW && host_time(sg->unit)) {
                /* earlier runs read as raw for their start 0: host time after all, when every
                 * one of them started at 0 */
                bool zero = true;
                for (uint32_t i = 0; i < run && zero; i++)
                    zero = isnan(g->vals[k][i]) || g->starts[k][i] == 0;
                if (zero) {
                    for (uint32_t i = 0; i < run; i++)
                        g->vals[k][i] = zero_start_as_host(g->vals[k][i], sg->unit, tick_ns);
                    e->unit = sg->unit;
                }
                if (sg->unit != e->unit) {
                    e->mixed_units = true;
                    v = NAN;
                }
            } else if (host_time(e->unit) && sg->unit == ETP_UNIT_RAW && sg->start == 0) {
                v = zero_start_as_host(v, e->unit, tick_ns); /* this run started at 0 */
            } else {
                e->mixed_units = true;
                v = NAN;
            }
        }
        g->vals[k][run] = v;
        g->starts[k][run] = sg->start;
        g->samples[k][run].end_time = sg->end;
        g->samples[k][run].delegate_debug_metadata = sg->meta;
        e->replaced += sg->replaced;
    }
    g->pub.n_runs++;
    return 0;
}

int etp_inspector_compute(etp_model *m, const etp_dump *d, etp_inspector_result **out,
                          etp_error *err) {
    *out = NULL;
    etp_inspector_result *r = calloc(1, sizeof *r);
    priv *p = calloc(1, sizeof *p);
    scratch s;
    memset(&s, 0, sizeof s);
    uint32_t *gslot = NULL, gmask = 0, gcount = 0;
    int rc = ETP_OK;
    if (!r || !p) goto oom;
    r->priv_ = p;
    uint32_t nb = etp_dump_get_info(d)->block_count;
    if (table(&gslot, &gmask, 64)) goto oom;
    for (uint32_t b = 0; b < nb; b++) {
        etp_block_view v;
        if ((rc = etp_model_block(m, b, &v, err))) goto fail;
        if (!v.info.has_events) continue; /* the Inspector skips runs without events */
        r->runs++;
        for (uint32_t i = 0; i < v.n; i++)
            if (v.events[i].ev.type == ETP_EVENT_ALLOCATION) r->allocation_events++;
        if (run_sigs(&s, &v, &r->replaced)) goto oom;
        uint64_t h = hash_bytes(mix(0, (uint32_t)v.info.bundled_input_index),
                                v.info.name.ptr ? v.info.name.ptr : "",
                                v.info.name.ptr ? v.info.name.len : 0);
        h = mix(h, v.info.name.ptr != NULL);
        for (uint32_t k = 0; k < s.n_sigs; k++) h = mix(h, sig_hash(&s.sigs[k]));
        uint32_t pos = (uint32_t)h & gmask, gi = UINT32_MAX;
        for (;;) {
            uint32_t e = gslot[pos];
            if (!e) break;
            group *g = &p->groups[e - 1];
            if (g->hash == h && g->n == s.n_sigs &&
                g->pub.bundled_input_index == v.info.bundled_input_index &&
                str_eq(g->pub.name.ptr, g->pub.name.len, v.info.name.ptr, v.info.name.len)) {
                bool same = true;
                for (uint32_t k = 0; k < s.n_sigs && same; k++) same = sig_eq(&g->sigs[k], &s.sigs[k]);
                if (same) {
                    gi = e - 1;
                    break;
                }
            }
            pos = (pos + 1) & gmask;
        }
        if (gi == UINT32_MAX) {
            if (group_new(p, &v, &s, h, &gi)) goto oom;
            gslot[pos] = gi + 1;
            if (++gcount * 2 > gmask) { /* rehash */
                uint32_t *ns = calloc((size_t)(gmask + 1) * 2, sizeof *ns);
                if (!ns) goto oom;
                uint32_t nm = gmask * 2 + 1;
                for (uint32_t q = 0; q < p->n_groups; q++) {
                    uint32_t ps = (uint32_t)p->groups[q].hash & nm;
                    while (ns[ps]) ps = (ps + 1) & nm;
                    ns[ps] = q + 1;
                }
                free(gslot);
                gslot = ns;
                gmask = nm;
            }
        }
        if (group_add(&p->groups[gi], &s, etp__model_tick_ns(m))) goto oom;
    }
    p->blocks = calloc(p->n_groups ? p->n_groups : 1, sizeof *p->blocks);
    if (!p->blocks) goto oom;
    for (uint32_t i = 0; i < p->n_groups; i++) {
        group *g = &p->groups[i];
        for (uint32_t k = 0; k < g->n; k++) {
            etp_inspector_event *e = &g->evs[k];
            if (e->has_perf) {
                e->n_samples = g->pub.n_runs;
                e->values = g->vals[k];
                e->start_times = g->starts[k];
            }
        }
        g->pub.n_events = g->n;
        g->pub.events = g->evs;
        p->blocks[i] = g->pub;
    }
    r->n_blocks = p->n_groups;
    r->blocks = p->blocks;
    free(s.keys);
    free(s.next);
    free(s.kslot);
    free(s.sigs);
    free(s.sslot);
    free(gslot);
    *out = r;
    return ETP_OK;
oom:
    rc = ETP_E_INTERNAL;
    etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
fail:
    free(s.keys);
    free(s.next);
    free(s.kslot);
    free(s.sigs);
    free(s.sslot);
    free(gslot);
    if (r) r->priv_ = p;
    else free(p);
    etp_inspector_free(r);
    return rc;
}

const uint32_t *etp_inspector_debug_events(const etp_inspector_result *r, uint32_t block,
                                           uint32_t event, uint32_t *n) {
    *n = 0;
    if (!r || block >= r->n_blocks) return NULL;
    const priv *p = r->priv_;
    const group *g = &p->groups[block];
    if (event >= g->n) return NULL;
    *n = g->dbg_off[event + 1] - g->dbg_off[event];
    return *n ? g->dbg_idx + g->dbg_off[event] : NULL;
}

const etp_inspector_sample *etp_inspector_samples(const etp_inspector_result *r, uint32_t block,
                                                  uint32_t event) {
    if (!r || block >= r->n_blocks) return NULL;
    const priv *p = r->priv_;
    const group *g = &p->groups[block];
    if (event >= g->n || !g->sigs[event].profile) return NULL;
    return g->samples[event];
}
