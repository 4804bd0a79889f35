/* etdump.c - ETDump (.etdp) verification and zero-copy access.
 *
 * Field ids (declaration order of schema/etdump.fbs):
 *   ETDump{version 0, run_data 1}  RunData{name 0, bundled_input_index 1, allocators 2, events 3}
 *   Allocator{name 0}  Event{profile_event 0, allocation_event 1, debug_event 2}
 *   ProfileEvent{name 0, chain_index 1, instruction_id 2, delegate_debug_id_int 3,
 *                delegate_debug_id_str 4, delegate_debug_metadata 5, start_time 6, end_time 7}
 *   AllocationEvent{allocator_id 0, allocation_size 1}
 *   DebugEvent{chain_index 0, instruction_id 1, debug_entry 2, delegate_debug_id_int 3,
 *              delegate_debug_id_str 4, name 5}
 *   Value{val 0, tensor 1, tensor_list 2, int_value 3, float_value 4, double_value 5,
 *         bool_value 6, output 7}
 *   Tensor{scalar_type 0, sizes 1, strides 2, offset 3}  TensorList{tensors 0}
 *   Int{int_val 0} Bool{bool_val 0} Float{float_val 0} Double{double_val 0}
 */
#define _DEFAULT_SOURCE /* madvise(MADV_DONTNEED) */
#include "etprof.h"
#include "etdump_int.h"
#include "membudget.h"
#include "thread.h"
#include "b64log.h"
#include "etprof_arm_pmu.h"
#include "fb.h"
#include "sniff.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct block {
    uint32_t table;
    uint32_t events_vec, n_events;
    uint32_t alloc_vec, n_alloc;
    /* A repeat (verified as one, "Repeated blocks" below): its events are laid out as those of
     * block `rep_of` (UINT32_MAX: not a repeat), rep_delta bytes further on. */
    uint32_t rep_of;
    int64_t rep_delta;
} block;

typedef struct async_verify async_verify;

struct etp_dump {
    const uint8_t *buf;
    uint32_t size;
    uint64_t blob_size; /* the bytes it was opened from (a log's: the decoded ETDump) */
    int64_t base;
    etp_dump_info info;
    block *blocks;
    uint32_t rd_vec; /* the run_data vector (etp__dump_block_offset) */
    uint64_t charged; /* of the memory budget: the blocks' records, until close */
    void *map_base; /* the file mapping of the blob (etp_blob_open), NULL for other blobs */
    size_t map_size;
    async_verify *av; /* etp_dump_open_opts.background: the blocks being verified, NULL when done */
    struct b64_source *src; /* decoded from a serial log or a base64 file (b64log.h), else NULL */
};

/* The decoded bytes of a dump read from a serial log or a base64 file, owned by the dump: the
 * blob borrowing them (its name says where in the log the dump was) and a note for the reader. */
typedef struct b64_source {
    etp_blob blob;
    uint8_t *bytes;
    char note[640];
    bool runner_log; /* a #[RUN THIS] block of the Arm bare-metal runner (not a plain base64 file) */
    etp_arm_pmu_report pmu; /* the runner's PMU report before that block (etprof_arm_pmu.h) */
} b64_source;

/* ---- verification ---- */

#define TRY(x)                                                                                    \
    do {                                                                                          \
        int rc_ = (x);                                                                            \
        if (rc_) return rc_;                                                                      \
    } while (0)

static int verify_tensor(fbv *v, uint32_t t) {
    uint32_t vec, n;
    TRY(fbv_table(v, t));
    fbv_push(v, "scalar_type");
    TRY(fbv_scalar(v, t, 0, 1));
    fbv_pop(v);
    fbv_push(v, "sizes");
    TRY(fbv_vector(v, t, 1, 8, &vec, &n));
    fbv_pop(v);
    fbv_push(v, "strides");
    TRY(fbv_vector(v, t, 2, 8, &vec, &n));
    fbv_pop(v);
    fbv_push(v, "offset");
    TRY(fbv_scalar(v, t, 3, 8));
    fbv_pop(v);
    return ETP_OK;
}

/* A one-scalar table such as Int{int_val}. */
static int verify_box(fbv *v, uint32_t t, unsigned size, const char *field) {
    TRY(fbv_table(v, t));
    fbv_push(v, field);
    TRY(fbv_scalar(v, t, 0, size));
    fbv_pop(v);
    return ETP_OK;
}

static int verify_value(fbv *v, uint32_t t) {
    uint32_t p;
    TRY(fbv_table(v, t));
    fbv_push(v, "val");
    TRY(fbv_scalar(v, t, 0, 1));
    int8_t val = fb_get_i8(v->buf, t, 0, 0);
    if (val < 0 || val > ETP_VAL_STRING)
        return fbv_fail(v, t + fb_field(v->buf, t, 0), "unknown value type %d (known: 0-7)", val);
    fbv_pop(v);
    fbv_push(v, "tensor");
    TRY(fbv_ref(v, t, 1, &p));
    if (p) TRY(verify_tensor(v, p));
    fbv_pop(v);
    fbv_push(v, "tensor_list");
    TRY(fbv_ref(v, t, 2, &p));
    if (p) {
        uint32_t vec, n;
        TRY(fbv_table(v, p));
        fbv_push(v, "tensors");
        TRY(fbv_vector(v, p, 0, 4, &vec, &n));
        for (uint32_t i = 0; i < n; i++) {
            uint32_t e;
            fbv_push_index(v, i);
            TRY(fbv_vec_elem(v, vec, i, &e));
            TRY(verify_tensor(v, e));
            fbv_pop(v);
        }
        fbv_pop(v);
    }
    fbv_pop(v);
    static const struct {
        const char *name, *inner;
        unsigned size;
    } boxes[] = {{"int_value", "int_val", 8},     {"float_value", "float_val", 4},
                 {"double_value", "double_val", 8}, {"bool_value", "bool_val", 1},
                 {"output", "bool_val", 1}};
    for (unsigned i = 0; i < 5; i++) {
        fbv_push(v, boxes[i].name);
        TRY(fbv_ref(v, t, 3 + i, &p));
        if (p) TRY(verify_box(v, p, boxes[i].size, boxes[i].inner));
        fbv_pop(v);
    }
    return ETP_OK;
}

static int verify_profile(fbv *v, uint32_t t) {
    uint32_t vec, n;
    TRY(fbv_table(v, t));
    fbv_push(v, "name");
    TRY(fbv_string(v, t, 0));
    fbv_pop(v);
    static const char *const i32s[] = {NULL, "chain_index", "instruction_id", "delegate_debug_id_int"};
    for (unsigned id = 1; id <= 3; id++) {
        fbv_push(v, i32s[id]);
        TRY(fbv_scalar(v, t, id, 4));
        fbv_pop(v);
    }
    fbv_push(v, "delegate_debug_id_str");
    TRY(fbv_string(v, t, 4));
    fbv_pop(v);
    fbv_push(v, "delegate_debug_metadata");
    TRY(fbv_vector(v, t, 5, 1, &vec, &n));
    fbv_pop(v);
    fbv_push(v, "start_time");
    TRY(fbv_scalar(v, t, 6, 8));
    fbv_pop(v);
    fbv_push(v, "end_time");
    TRY(fbv_scalar(v, t, 7, 8));
    fbv_pop(v);
    return ETP_OK;
}

static int verify_allocation(fbv *v, uint32_t t) {
    TRY(fbv_table(v, t));
    fbv_push(v, "allocator_id");
    TRY(fbv_scalar(v, t, 0, 4));
    fbv_pop(v);
    fbv_push(v, "allocation_size");
    TRY(fbv_scalar(v, t, 1, 8));
    fbv_pop(v);
    return ETP_OK;
}

static int verify_debug(fbv *v, uint32_t t) {
    uint32_t p;
    TRY(fbv_table(v, t));
    fbv_push(v, "chain_index");
    TRY(fbv_scalar(v, t, 0, 8));
    fbv_pop(v);
    fbv_push(v, "instruction_id");
    TRY(fbv_scalar(v, t, 1, 4));
    fbv_pop(v);
    fbv_push(v, "debug_entry");
    TRY(fbv_ref(v, t, 2, &p));
    if (p) TRY(verify_value(v, p));
    fbv_pop(v);
    fbv_push(v, "delegate_debug_id_int");
    TRY(fbv_scalar(v, t, 3, 4));
    fbv_pop(v);
    fbv_push(v, "delegate_debug_id_str");
    TRY(fbv_string(v, t, 4));
    fbv_pop(v);
    fbv_push(v, "name");
    TRY(fbv_string(v, t, 5));
    fbv_pop(v);
    return ETP_OK;
}

static int verify_event(fbv *v, uint32_t t, etp_dump_info *info) {
    uint32_t p;
    TRY(fbv_table(v, t));
    fbv_push(v, "profile_event");
    TRY(fbv_ref(v, t, 0, &p));
    if (p) {
        TRY(verify_profile(v, p));
        info->profile_count++;
    }
    fbv_pop(v);
    bool have = p != 0;
    fbv_push(v, "allocation_event");
    TRY(fbv_ref(v, t, 1, &p));
    if (p) {
        TRY(verify_allocation(v, p));
        if (!have) info->allocation_count++;
        have = true;
    }
    fbv_pop(v);
    fbv_push(v, "debug_event");
    TRY(fbv_ref(v, t, 2, &p));
    if (p) {
        TRY(verify_debug(v, p));
        if (!have) info->debug_count++;
        have = true;
    }
    fbv_pop(v);
    if (!have) info->none_count++;
    return ETP_OK;
}

/* ---- fast path ----
 * Most events of a dump share a handful of vtables, so an event can be checked against a vtable
 * that was validated once: the fast path does the same checks as the verifier above, in one
 * straight pass with no path bookkeeping, and accepts only what the verifier accepts. When any
 * check fails (or the event has a shape it does not handle: a debug event), the event is verified
 * again by the verifier above, which either accepts it after all or reports where and why. */

bool etp__verify_fast = true;

#define VTC_SIZE 16 /* vtables cached per table type */

typedef struct vt_entry {
    uint32_t key;     /* vtable position + 1, 0 = empty */
    uint16_t tlen;    /* table inline size */
    uint16_t off[8];  /* field offsets (0 = absent) */
} vt_entry;

typedef struct vt_cache {
    vt_entry e[VTC_SIZE];
} vt_cache;

/* The last block verified in full, and the layout of a block that later blocks repeat
 * ("Repeated blocks" below). */
typedef struct full_block {
    bool ok;          /* every event took the fast path */
    uint32_t block, vec, n;
    uint64_t tables;  /* tables its events count (fbv.tables) */
    uint64_t profile, alloc, none;
} full_block;

typedef struct layout {
    full_block src;   /* the block it was taken from (its counts are a repeat's) */
    uint32_t lo, hi;  /* its bytes [lo, hi) (hi == 0: none) */
    uint8_t *mask;    /* hi - lo bytes: 0xff compared, 0 a time field or a vtable offset */
    uint32_t *so;     /* its tables' vtable offsets: position - lo, << 1 | 1 when the vtable
                         lies outside [lo, hi) (a repeat's table then uses the same one) */
    uint32_t n_so;
    size_t mask_cap, so_cap;
} layout;

typedef struct fast_ctx {
    vt_cache event, profile, alloc;
    full_block last;
    layout lay;
    uint64_t lay_work; /* bytes the layouts have gone over (bounded: lay_afford) */
} fast_ctx;

static void fast_ctx_free(fast_ctx *fc) {
    if (!fc) return;
    free(fc->lay.mask);
    free(fc->lay.so);
    free(fc);
}

/* Emptied for a new pass (its buffers kept). */
static void fast_ctx_reset(fast_ctx *fc) {
    layout keep = fc->lay;
    memset(fc, 0, sizeof *fc);
    fc->lay.mask = keep.mask;
    fc->lay.so = keep.so;
    fc->lay.mask_cap = keep.mask_cap;
    fc->lay.so_cap = keep.so_cap;
}

/* Field sizes per table type; 0 for a uoffset (4 bytes). */
static const uint8_t event_sizes[3] = {0, 0, 0};
static const uint8_t profile_sizes[8] = {0, 4, 4, 4, 0, 0, 8, 8};
static const uint8_t alloc_sizes[2] = {4, 8};

/* The vtable of a table of this type at `t`, validated as fbv_table() and field_in_table() would
 * (for every field of the type), or NULL. */
static const vt_entry *fast_table(const fbv *v, vt_cache *c, const uint8_t *sizes, unsigned nf,
                                  uint32_t t) {
    if ((uint64_t)t + 4 > v->size) return NULL;
    int64_t vt = (int64_t)t - (int64_t)fb_i32(v->buf + t);
    if (vt < 0 || vt + 4 > (int64_t)v->size) return NULL;
    uint32_t key = (uint32_t)vt + 1;
    vt_entry *e = &c->e[(key * 2654435761u) >> 28];
    if (e->key != key) {
        uint16_t vlen = fb_u16(v->buf + vt), tlen = fb_u16(v->buf + vt + 2);
        if (vlen < 4 || (vlen & 1) || vt + vlen > (int64_t)v->size || tlen < 4) return NULL;
        vt_entry ne = {.key = key, .tlen = tlen};
        for (unsigned id = 0; id < nf; id++) {
            unsigned slot = 4 + 2 * id;
            uint16_t o = slot + 2 <= vlen ? fb_u16(v->buf + vt + slot) : 0;
            if (o && (uint32_t)o + (sizes[id] ? sizes[id] : 4) > tlen) return NULL;
            ne.off[id] = o;
        }
        /* a field id beyond the type's fields is never read: not checked, as in the verifier */
        *e = ne;
    }
    if ((uint64_t)t + e->tlen > v->size) return NULL;
    return e;
}

/* uoffset at t + o (o != 0): the target, or 0 when it lies outside the buffer. */
static inline uint32_t fast_ref(const fbv *v, uint32_t t, uint16_t o) {
    uint64_t target = (uint64_t)t + o + fb_u32(v->buf + t + o);
    return target + 4 > v->size ? 0 : (uint32_t)target;
}

static inline bool fast_string(const fbv *v, uint32_t t, uint16_t o) {
    if (!o) return true;
    uint32_t p = fast_ref(v, t, o);
    if (!p) return false;
    uint64_t end = (uint64_t)p + 4 + fb_u32(v->buf + p);
    return end + 1 <= v->size && v->buf[end] == 0;
}

static inline bool fast_vector(const fbv *v, uint32_t t, uint16_t o, unsigned elem) {
    if (!o) return true;
    uint32_t p = fast_ref(v, t, o);
    return p && (uint64_t)p + 4 + (uint64_t)fb_u32(v->buf + p) * elem <= v->size;
}

/* Event at `t` with a profile and/or an allocation event and no debug event. Returns false to
 * hand the event to the verifier (nothing counted). */
static bool fast_event(fbv *v, fast_ctx *fc, uint32_t t, etp_dump_info *info) {
    const vt_entry *ev = fast_table(v, &fc->event, event_sizes, 3, t);
    if (!ev || ev->off[2]) return false;
    uint64_t tables = v->tables + 1;
    uint32_t p = 0, a = 0;
    if (ev->off[0]) {
        if (!(p = fast_ref(v, t, ev->off[0]))) return false;
        const vt_entry *pe = fast_table(v, &fc->profile, profile_sizes, 8, p);
        if (!pe || !fast_string(v, p, pe->off[0]) || !fast_string(v, p, pe->off[4]) ||
            !fast_vector(v, p, pe->off[5], 1))
            return false;
        tables++;
    }
    if (ev->off[1]) {
        if (!(a = fast_ref(v, t, ev->off[1]))) return false;
        if (!fast_table(v, &fc->alloc, alloc_sizes, 2, a)) return false;
        tables++;
    }
    if (tables > v->size) return false; /* the verifier reports the shared tables */
    v->tables = tables;
    if (p) info->profile_count++;
    else if (a) info->allocation_count++;
    else info->none_count++;
    return true;
}

/* ---- Repeated blocks ----
 * The runs of a method log the same events, and a writer lays each run out as it laid out the
 * one before (flatcc: the same tables, strings and vectors, in the same order), so a block's
 * bytes equal an earlier block's, some distance away, in everything but its events' times and
 * its tables' vtable offsets (a vtable that both blocks share lies at a different distance from
 * each of them). When a block verified in full (every event on the fast path) is followed by a
 * block whose events vector holds the same bytes, the first block's layout is taken: the extent
 * [lo, hi) of its events' objects (the events vector, tables, strings, vectors; no two may
 * share a byte), the places of its time fields and vtable offsets (no other field the readers
 * read may lie over one: a vtable can place fields anywhere in a table), and where each vtable
 * is. A later block whose events vector lies `delta` bytes from the layout's is then a repeat of it
 * when [lo + delta, hi + delta) lies in the buffer and equals [lo, hi) in every byte but those
 * places, and each of its vtable offsets leads to the same vtable (one outside the extent) or
 * to the copy of it (one inside). Every check of the verifier then holds on the repeat, as it
 * held on the same bytes at the same relative places: it is verified, its counts are the
 * layout's block's, and a reader may take its events as that block's moved by delta, with their
 * own times (etp__dump_same_layout). Anything else is verified as usual. */

#define LAYOUT_MAX ((uint32_t)16 << 20) /* larger extents are not kept */

/* The bytes the layouts go over (taking one, comparing a block with one) are bounded by twice
 * the buffer (a real dump's repeats do not overlap: they go over it once); past that, blocks are
 * verified object by object, whose cost the verifier bounds. Without the bound, blocks sharing
 * one events vector, or repeats one byte apart in a periodic buffer, would each go over the
 * whole extent. Charges `bytes` and returns true when they fit. */
static bool lay_afford(const fbv *v, fast_ctx *fc, uint64_t bytes) {
    uint64_t cap = 2 * (uint64_t)v->size + ((uint64_t)1 << 20);
    if (fc->lay_work > cap || bytes > cap - fc->lay_work) return false;
    fc->lay_work += bytes;
    return true;
}

/* The objects of a verified event at `t` (the fast path took it: no debug event), and the
 * fields the readers read from its tables. */
typedef struct ev_objs {
    uint32_t n, nt, ntm, nf;
    uint32_t a[5], b[5]; /* object byte ranges [a, b) */
    uint32_t tab[2];     /* its tables */
    uint32_t tm[2];      /* its time fields (8 bytes each) */
    uint32_t f[10];      /* its other fields that are read (their first byte) */
    uint8_t fw[10];      /* and their widths */
} ev_objs;

static uint32_t table_size(const uint8_t *buf, uint32_t t) {
    uint32_t vt = (uint32_t)((int64_t)t - (int64_t)fb_i32(buf + t));
    return fb_u16(buf + vt + 2);
}

static void obj_add(ev_objs *o, uint32_t a, uint32_t b) {
    o->a[o->n] = a;
    o->b[o->n++] = b;
}

/* Field `id` (`w` bytes) of the table at t, when present, as one that is read. */
static void field_add(ev_objs *o, const uint8_t *buf, uint32_t t, unsigned id, uint8_t w) {
    uint32_t f = fb_field(buf, t, id);
    if (!f) return;
    o->f[o->nf] = t + f;
    o->fw[o->nf++] = w;
}

static void event_objects(const uint8_t *buf, uint32_t t, ev_objs *o) {
    o->n = o->nt = o->ntm = o->nf = 0;
    uint32_t p = fb_ref(buf, t, 0), al = fb_ref(buf, t, 1);
    obj_add(o, t, t + table_size(buf, t));
    field_add(o, buf, t, 0, 4);
    field_add(o, buf, t, 1, 4);
    if (p) {
        for (unsigned id = 0; id < 6; id++) field_add(o, buf, p, id, 4);
        obj_add(o, p, p + table_size(buf, p));
        o->tab[o->nt++] = p;
        uint32_t s;
        if ((s = fb_ref(buf, p, 0))) obj_add(o, s, s + 4 + fb_u32(buf + s) + 1);
        if ((s = fb_ref(buf, p, 4))) obj_add(o, s, s + 4 + fb_u32(buf + s) + 1);
        if ((s = fb_ref(buf, p, 5))) obj_add(o, s, s + 4 + fb_u32(buf + s));
        uint32_t f;
        if ((f = fb_field(buf, p, 6))) o->tm[o->ntm++] = p + f;
        if ((f = fb_field(buf, p, 7))) o->tm[o->ntm++] = p + f;
    } else if (al) {
        obj_add(o, al, al + table_size(buf, al));
        o->tab[o->nt++] = al;
        field_add(o, buf, al, 0, 4);
        field_add(o, buf, al, 1, 8);
    }
    o->tab[o->nt++] = t;
}

enum { LAY_FREE = 0, LAY_OBJ = 1, LAY_MASKED = 2, LAY_VTABLE = 3 };

/* Marks [a, b) (inside the extent) as `what`: false when a byte of it is taken. */
static bool lay_mark(uint8_t *m, uint32_t a, uint32_t b, uint8_t what) {
    for (uint32_t k = a; k < b; k++) {
        if (m[k] != LAY_FREE) return false;
        m[k] = what;
    }
    return true;
}

/* The layout of fc->last (verified, every event on the fast path); false when it cannot be
 * one (an extent too large, objects sharing bytes, no memory). */
static bool take_layout(const fbv *v, fast_ctx *fc) {
    const uint8_t *buf = v->buf;
    layout *L = &fc->lay;
    const full_block *f = &fc->last;
    L->hi = 0;
    uint32_t lo = f->vec, hi = f->vec + 4 + 4 * f->n;
    size_t ntab = 0;
    ev_objs o;
    for (uint32_t i = 0; i < f->n; i++) {
        event_objects(buf, fb_vec_table(buf, f->vec, i), &o);
        for (uint32_t k = 0; k < o.n; k++) {
            if (o.a[k] < lo) lo = o.a[k];
            if (o.b[k] > hi) hi = o.b[k];
        }
        ntab += o.nt;
    }
    if (hi - lo > LAYOUT_MAX || !lay_afford(v, fc, hi - lo)) return false;
    size_t len = hi - lo;
    if (len > L->mask_cap) {
        uint8_t *m = realloc(L->mask, len);
        if (!m) return false;
        L->mask = m;
        L->mask_cap = len;
    }
    if (ntab > L->so_cap) {
        uint32_t *so = realloc(L->so, ntab * sizeof *so);
        if (!so) return false;
        L->so = so;
        L->so_cap = ntab;
    }
    uint8_t *m = L->mask;
    memset(m, LAY_FREE, len);
    if (!lay_mark(m, f->vec - lo, f->vec + 4 + 4 * f->n - lo, LAY_OBJ)) return false;
    /* Event after event: its objects (a byte another object, a vtable or a masked place took
     * ends the layout, whichever comes first), then its masked places (inside its own tables,
     * marked just before), its vtables, and the fields read from its tables (none may lie over
     * a masked place: a vtable may place a field over a time or a vtable offset). */
    L->n_so = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        event_objects(buf, fb_vec_table(buf, f->vec, i), &o);
        for (uint32_t k = 0; k < o.n; k++)
            if (!lay_mark(m, o.a[k] - lo, o.b[k] - lo, LAY_OBJ)) return false;
        for (uint32_t k = 0; k < o.ntm; k++) memset(m + (o.tm[k] - lo), LAY_MASKED, 8);
        for (uint32_t k = 0; k < o.nt; k++) {
            uint32_t t = o.tab[k];
            memset(m + (t - lo), LAY_MASKED, 4);
            int64_t vt = (int64_t)t - fb_i32(buf + t);
            int64_t vend = vt + fb_u16(buf + vt);
            bool inside = vt >= lo && vend <= hi;
            L->so[L->n_so++] = (t - lo) << 1 | (inside ? 0u : 1u);
            if (inside) {
                /* compared as bytes of the extent (a vtable shared by several tables is marked
                 * again each time: charged) */
                if (!lay_afford(v, fc, (uint64_t)(vend - vt))) return false;
                for (int64_t k2 = vt; k2 < vend; k2++) {
                    uint8_t *c = m + (k2 - lo);
                    if (*c == LAY_FREE) *c = LAY_VTABLE;
                    else if (*c != LAY_VTABLE) return false;
                }
            }
        }
        for (uint32_t k = 0; k < o.nf; k++)
            for (uint32_t b = 0; b < o.fw[k]; b++)
                if (m[o.f[k] + b - lo] == LAY_MASKED) return false;
    }
    for (size_t k = 0; k < len; k++) m[k] = m[k] == LAY_MASKED ? 0 : 0xff;
    L->src = *f;
    L->lo = lo;
    L->hi = hi;
    return true;
}

/* a and b equal in every byte where mask is 0xff (mask bytes are 0 or 0xff). */
static bool masked_equal(const uint8_t *a, const uint8_t *b, const uint8_t *mask, size_t n) {
    size_t k = 0;
    while (k + 8 <= n) {
        size_t end = n - k >= 4096 ? k + 4096 : n - (n - k) % 8;
        uint64_t acc = 0;
        for (; k < end; k += 8) {
            uint64_t x, y, z;
            memcpy(&x, a + k, 8);
            memcpy(&y, b + k, 8);
            memcpy(&z, mask + k, 8);
            acc |= (x ^ y) & z;
        }
        if (acc) return false;
    }
    unsigned acc = 0;
    for (; k < n; k++) acc |= (unsigned)(a[k] ^ b[k]) & mask[k];
    return acc == 0;
}

/* Block b (block bi, its events vector verified) as a repeat of fc's layout. */
static bool repeat_of_layout(fbv *v, fast_ctx *fc, uint32_t bi, block *b, etp_dump_info *info) {
    const layout *L = &fc->lay;
    if (!L->hi || L->src.n != b->n_events || L->src.block == bi) return false;
    int64_t delta = (int64_t)b->events_vec - (int64_t)L->src.vec;
    if ((int64_t)L->lo + delta < 0 || (int64_t)L->hi + delta > (int64_t)v->size) return false;
    if (v->tables + L->src.tables > v->size) return false; /* the verifier reports it */
    if (!lay_afford(v, fc, L->hi - L->lo)) return false;
    const uint8_t *x = v->buf + L->lo, *y = x + delta;
    if (!masked_equal(x, y, L->mask, L->hi - L->lo)) return false;
    for (uint32_t k = 0; k < L->n_so; k++) {
        uint32_t pos = L->so[k] >> 1;
        int64_t want = (int64_t)fb_i32(x + pos) + (L->so[k] & 1 ? delta : 0);
        if ((int64_t)fb_i32(y + pos) != want) return false;
    }
    v->tables += L->src.tables;
    info->profile_count += L->src.profile;
    info->allocation_count += L->src.alloc;
    info->none_count += L->src.none;
    b->rep_of = L->src.block;
    b->rep_delta = delta;
    return true;
}

/* Block b verified as a repeat (true), or to be verified in full. */
static bool verify_repeat(fbv *v, fast_ctx *fc, uint32_t bi, block *b, etp_dump_info *info) {
    if (!b->n_events) return false;
    if (repeat_of_layout(v, fc, bi, b, info)) return true;
    const full_block *f = &fc->last;
    if (!f->ok || f->n != b->n_events || (fc->lay.hi && fc->lay.src.block == f->block) ||
        memcmp(v->buf + f->vec, v->buf + b->events_vec, 4 + 4 * (size_t)f->n) != 0)
        return false;
    if (!take_layout(v, fc)) {
        fc->last.ok = false;
        return false;
    }
    return repeat_of_layout(v, fc, bi, b, info);
}

static int verify_block(fbv *v, uint32_t t, uint32_t bi, block *b, etp_dump_info *info,
                        fast_ctx *fc) {
    TRY(fbv_table(v, t));
    b->table = t;
    fbv_push(v, "name");
    TRY(fbv_string(v, t, 0));
    fbv_pop(v);
    fbv_push(v, "bundled_input_index");
    TRY(fbv_scalar(v, t, 1, 4));
    fbv_pop(v);
    fbv_push(v, "allocators");
    TRY(fbv_vector(v, t, 2, 4, &b->alloc_vec, &b->n_alloc));
    for (uint32_t i = 0; i < b->n_alloc; i++) {
        uint32_t e;
        fbv_push_index(v, i);
        TRY(fbv_vec_elem(v, b->alloc_vec, i, &e));
        TRY(fbv_table(v, e));
        fbv_push(v, "name");
        TRY(fbv_string(v, e, 0));
        fbv_pop(v);
        fbv_pop(v);
    }
    fbv_pop(v);
    fbv_push(v, "events");
    TRY(fbv_vector(v, t, 3, 4, &b->events_vec, &b->n_events));
    b->rep_of = UINT32_MAX;
    if (etp__verify_fast && verify_repeat(v, fc, bi, b, info)) {
        fbv_pop(v);
        info->event_count += b->n_events;
        return ETP_OK;
    }
    full_block f = {.ok = b->n_events > 0, .block = bi, .vec = b->events_vec, .n = b->n_events,
                    .tables = v->tables, .profile = info->profile_count,
                    .alloc = info->allocation_count, .none = info->none_count};
    for (uint32_t i = 0; i < b->n_events; i++) {
        uint32_t e = b->events_vec + 4 + 4 * i;
        uint64_t target = (uint64_t)e + fb_u32(v->buf + e);
#if defined(__GNUC__)
        if (i + 16 < b->n_events) { /* the event 16 ahead: its tables and strings follow it */
            uint64_t ahead = (uint64_t)e + 64 + fb_u32(v->buf + e + 64);
            if (ahead + 128 <= v->size) {
                __builtin_prefetch(v->buf + ahead);
                __builtin_prefetch(v->buf + ahead + 64);
            }
        }
#endif
        if (etp__verify_fast && target + 4 <= v->size && fast_event(v, fc, (uint32_t)target, info))
            continue;
        f.ok = false;
        fbv_push_index(v, i);
        TRY(fbv_vec_elem(v, b->events_vec, i, &e));
        TRY(verify_event(v, e, info));
        fbv_pop(v);
    }
    fbv_pop(v);
    info->event_count += b->n_events;
    f.tables = v->tables - f.tables;
    f.profile = info->profile_count - f.profile;
    f.alloc = info->allocation_count - f.alloc;
    f.none = info->none_count - f.none;
    fc->last = f;
    return ETP_OK;
}

static bool has_dump_id(const uint8_t *data, size_t size) {
    return size >= 12 && (memcmp(data + 8, "ED00", 4) == 0 || memcmp(data + 4, "ED00", 4) == 0);
}

/* text: no NUL or other C0 control byte but white space (a serial log, a base64 file) */
static bool looks_text(const uint8_t *d, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (d[i] < 0x20 && d[i] != '\n' && d[i] != '\r' && d[i] != '\t') return false;
    return n > 0;
}

static int check_dump_strict(const uint8_t *data, size_t size, const char *file, etp_error *err) {
    if (has_dump_id(data, size)) return ETP_OK;
    if (looks_text(data, size < 4096 ? size : 4096) && etp_sniff_kind(data, size) == ETP_FILE_UNKNOWN) {
        char what[160];
        etp_sniff(data, size, what, sizeof what);
        etp_error_set(err, ETP_E_INPUT, file, 0, NULL,
                      "not an ETDump: a text file without an ETDump block of the Arm runner "
                      "(#[RUN THIS] ... echo \"<base64>\" | base64 -d >etdump.bin) and not plain "
                      "base64 of an ETDump (docs/formats.md)%s%s",
                      what[0] ? "; this looks like " : "", what);
        return ETP_E_INPUT;
    }
    return etp__blob_check_dump_id(data, size, file, err);
}

/* The first bytes of a pipe: an ETDump, or text that may be a serial log (decided at open). */
int etp__blob_check_dump(const uint8_t *data, size_t size, const char *file, etp_error *err) {
    if (has_dump_id(data, size) || etp__b64log_detect(data, size) || looks_text(data, size))
        return ETP_OK;
    return etp__blob_check_dump_id(data, size, file, err);
}

int etp__blob_check_dump_id(const uint8_t *data, size_t size, const char *file, etp_error *err) {
    if (has_dump_id(data, size)) return ETP_OK;
    char what[160];
    etp_sniff(data, size, what, sizeof what);
    etp_error_set(err, ETP_E_INPUT, file, 8, NULL,
                  "not an ETDump: no file identifier ED00 at byte 8 (size-prefixed) or 4%s%s",
                  what[0] ? "; this looks like " : "", what);
    return ETP_E_INPUT;
}

int etp__blob_check_dump_or_program(const uint8_t *data, size_t size, const char *file,
                                    etp_error *err) {
    etp_file_kind k = etp_sniff_kind(data, size);
    if (k == ETP_FILE_PROGRAM || k == ETP_FILE_BUNDLED) return ETP_OK;
    return etp__blob_check_dump(data, size, file, err);
}

/* The public form of the blob's first-bytes check (etprof.h): the check is the reader's, passed
 * to the base layer's mapping as a callback. */
int etp_blob_open_expect(etp_blob *b, const char *path, unsigned expect, etp_error *err) {
    if (expect & ETP_EXPECT_DEBUG_BUFFER) {
        uint64_t budget = etp__mem_budget();
        /* raw tensor bytes: no first bytes to judge by (the caller's etp_debug_buffer_check
         * refuses a dump, program or ZIP once it is read) */
        return etp__blob_open_bounded(b, path, NULL,
                                      budget < ETP_STDIN_MAX ? budget : ETP_STDIN_MAX, err);
    }
    etp_blob_check check = NULL;
    switch (expect & (ETP_EXPECT_DUMP | ETP_EXPECT_PROGRAM)) {
    case ETP_EXPECT_DUMP: check = etp__blob_check_dump; break;
    case ETP_EXPECT_PROGRAM: check = etp__blob_check_program; break;
    case ETP_EXPECT_DUMP | ETP_EXPECT_PROGRAM: check = etp__blob_check_dump_or_program; break;
    default: break;
    }
    return etp__blob_open_checked(b, path, check, err);
}

static int open_impl(etp_dump **out, const etp_blob *blob,
                     void (*progress)(void *ctx, uint64_t done, uint64_t total), void *ctx,
                     bool async, etp_error *err);

/* Verifies every block in order (v: the verifier state after the root, its path at
 * "run_data"). `av`, when set, is told after each block and can stop the loop. */
static int verify_blocks(etp_dump *d, fbv *v, uint32_t rd_vec,
                         void (*progress)(void *ctx, uint64_t done, uint64_t total), void *ctx,
                         async_verify *av);

/* ---- verification in the background (etp_dump_open_opts.background) ---- */

uint32_t etp__async_min = (uint32_t)4 << 20; /* smaller buffers: verified before the open returns */

struct async_verify {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    _Atomic uint32_t verified; /* blocks verified so far */
    atomic_bool stop;          /* etp_dump_close() before the end */
    bool done;                 /* the thread has finished (under mu) */
    int rc;                    /* its result, once done */
    etp_error err;             /* its error, once done */
    fbv v;                     /* the verifier state, owned by the thread */
    uint32_t rd_vec;
    etp_dump *d;
    /* A split (etp__dump_split_begin): the blocks from split_from on are verified by the
     * thread that reads them, while this one verifies those before; it then stops at
     * split_from until etp__dump_split_end() says how that went. */
    fbv v0;                      /* the verifier state after the root, for the split */
    _Atomic uint32_t split_from; /* UINT32_MAX: no split */
    int split;                   /* under mu: SPLIT_NONE, _ON, _OK, _FAILED */
    /* the split's thread's own until etp__dump_split_end(): */
    fbv sv;                      /* its verifier state, from v0 */
    etp_error serr;
    struct fast_ctx *sfc;
    uint32_t split_done;         /* blocks from split_from it has verified */
    bool split_bad;              /* one failed: it verifies no more */
    etp_dump_info split_info;    /* its counts */
    bool held;                   /* under mu: the test hook ETPROF_TEST_SPLIT_VERIFY (below) */
    int hook;                    /* that hook: 1 held until a handover asks (lent at block 0),
                                    2 at the split before a handover can ask (none) */
    /* A handover (etp__dump_take_first): during a split, the thread that reads the blocks
     * before it verifies them itself too, with this thread's state, while this one waits. */
    atomic_bool take_req;        /* asked for; cleared (under mu) by this thread */
    bool taken;                  /* under mu: held by the reader; this thread waits on lend_cv
                                    (not on cv, which every verified block wakes) */
    pthread_cond_t lend_cv;
    fbv *take_v;                 /* this thread's state and fast path, lent */
    struct fast_ctx *take_fc;
    uint32_t take_pos;           /* the next block to verify (the holder's until given back) */
    int take_rc;                 /* the holder's failure: this thread ends with it */
};

enum { SPLIT_NONE, SPLIT_ON, SPLIT_OK, SPLIT_FAILED };

static void async_block_done(async_verify *av, uint32_t n) {
    pthread_mutex_lock(&av->mu);
    atomic_store_explicit(&av->verified, n, memory_order_release);
    pthread_cond_broadcast(&av->cv);
    pthread_mutex_unlock(&av->mu);
}

/* The held verifier (ETPROF_TEST_SPLIT_VERIFY) starts: someone needs a block (under mu). */
static void release_held(async_verify *av) {
    if (!av->held) return;
    av->held = false;
    pthread_cond_broadcast(&av->cv);
}

static void *async_main(void *arg) {
    async_verify *av = arg;
    pthread_mutex_lock(&av->mu);
    while (av->held && !atomic_load_explicit(&av->stop, memory_order_relaxed))
        pthread_cond_wait(&av->cv, &av->mu);
    pthread_mutex_unlock(&av->mu);
    int rc = verify_blocks(av->d, &av->v, av->rd_vec, NULL, NULL, av);
    pthread_mutex_lock(&av->mu);
    av->rc = rc;
    av->done = true;
    pthread_cond_broadcast(&av->cv);
    pthread_mutex_unlock(&av->mu);
    return NULL;
}

static bool start_async(etp_dump *d, const fbv *v, uint32_t rd_vec, int hook) {
    bool held = hook != 0;
    async_verify *av = calloc(1, sizeof *av);
    if (!av) return false;
    av->held = held;
    av->hook = hook;
    av->v = *v;
    av->v.err = &av->err;
    av->v0 = av->v;
    atomic_init(&av->split_from, UINT32_MAX);
    av->rd_vec = rd_vec;
    av->d = d;
    atomic_init(&av->verified, 0);
    atomic_init(&av->stop, false);
    if (pthread_mutex_init(&av->mu, NULL) != 0) {
        free(av);
        return false;
    }
    if (pthread_cond_init(&av->cv, NULL) != 0) {
        pthread_mutex_destroy(&av->mu);
        free(av);
        return false;
    }
    if (pthread_cond_init(&av->lend_cv, NULL) != 0) {
        pthread_cond_destroy(&av->cv);
        pthread_mutex_destroy(&av->mu);
        free(av);
        return false;
    }
    d->av = av;
    if (etp__thread_start(&av->th, async_main, av) != 0) {
        pthread_cond_destroy(&av->lend_cv);
        pthread_cond_destroy(&av->cv);
        pthread_mutex_destroy(&av->mu);
        free(av);
        d->av = NULL;
        return false;
    }
    return true;
}

/* Joins the thread and frees its state: verification is over (or abandoned, `stop`). */
static void async_end(etp_dump *d) {
    async_verify *av = d->av;
    pthread_join(av->th, NULL);
    pthread_cond_destroy(&av->lend_cv);
    pthread_cond_destroy(&av->cv);
    pthread_mutex_destroy(&av->mu);
    fast_ctx_free(av->sfc);
    free(av);
    d->av = NULL;
}

int etp__dump_wait(const etp_dump *dc, uint32_t blocks, etp_error *err) {
    async_verify *av = dc->av;
    if (!av) return ETP_OK;
    if (blocks > dc->info.block_count) blocks = dc->info.block_count;
    if (atomic_load_explicit(&av->verified, memory_order_acquire) >= blocks) return ETP_OK;
    pthread_mutex_lock(&av->mu);
    release_held(av);
    while (!av->done && atomic_load_explicit(&av->verified, memory_order_acquire) < blocks)
        pthread_cond_wait(&av->cv, &av->mu);
    int rc = ETP_OK;
    if (atomic_load_explicit(&av->verified, memory_order_acquire) < blocks) {
        rc = av->rc ? av->rc : ETP_E_INTERNAL;
        if (err) *err = av->err;
    }
    pthread_mutex_unlock(&av->mu);
    return rc;
}

int etp_dump_wait_verified(etp_dump *d, etp_error *err) {
    if (!d->av) return ETP_OK;
    int rc = etp__dump_wait(d, d->info.block_count, err);
    async_end(d);
    return rc;
}

/* ---- a split: the second part of the blocks verified by the thread that reads it ---- */

/* Block i of the run_data vector at rd_vec, its path frame popped when it passes. */
static int verify_nth(fbv *v, uint32_t rd_vec, uint32_t i, block *b, etp_dump_info *info,
                      fast_ctx *fc) {
    uint32_t e;
    int rc;
    fbv_push_index(v, i);
    if ((rc = fbv_vec_elem(v, rd_vec, i, &e)) || (rc = verify_block(v, e, i, b, info, fc))) return rc;
    fbv_pop(v);
    return ETP_OK;
}

bool etp__dump_split_begin(const etp_dump *dc, uint32_t from) {
    async_verify *av = dc->av;
    if (!av || from == 0 || from >= dc->info.block_count) return false;
    fast_ctx *fc = av->sfc ? av->sfc : calloc(1, sizeof *fc);
    if (!fc) return false;
    av->sfc = fc;
    bool on = false;
    pthread_mutex_lock(&av->mu);
    /* only while the verifier has not reached `from` (it reads split_from before each block,
     * after publishing the one before under mu), and once per dump */
    if (av->split == SPLIT_NONE && !av->done &&
        atomic_load_explicit(&av->split_from, memory_order_relaxed) == UINT32_MAX &&
        atomic_load_explicit(&av->verified, memory_order_acquire) < from) {
        fast_ctx_reset(fc);
        av->sv = av->v0;
        av->sv.err = &av->serr;
        av->split_done = 0;
        av->split_bad = false;
        memset(&av->split_info, 0, sizeof av->split_info);
        av->split = SPLIT_ON;
        atomic_store_explicit(&av->split_from, from, memory_order_release);
        on = true;
    }
    /* the test hook's two orders of a split and a handover (docs/cli.md "Test hooks"): the
     * verifier still held when the handover asks (1), or already at the split (2) */
    if (!on || av->hook != 1) release_held(av);
    while (on && av->hook == 2 && !av->done &&
           atomic_load_explicit(&av->verified, memory_order_acquire) < from)
        pthread_cond_wait(&av->cv, &av->mu);
    pthread_mutex_unlock(&av->mu);
    return on;
}

int etp__dump_split_verify(const etp_dump *dc, uint32_t blk, etp_error *err) {
    async_verify *av = dc->av;
    uint32_t from = atomic_load_explicit(&av->split_from, memory_order_relaxed);
    while (!av->split_bad && from + av->split_done <= blk) {
        uint32_t i = from + av->split_done;
        if (verify_nth(&av->sv, av->rd_vec, i, &dc->blocks[i], &av->split_info, av->sfc))
            av->split_bad = true;
        else
            av->split_done++;
    }
    if (!av->split_bad) return ETP_OK;
    /* not reported from here: after etp__dump_split_end() the verifier goes over these blocks
     * in order and reports the first error as a pass without the split does */
    etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "a split part's verification failed");
    return ETP_E_INTERNAL;
}

void etp__dump_split_end(const etp_dump *dc) {
    async_verify *av = dc->av;
    pthread_mutex_lock(&av->mu);
    uint32_t from = atomic_load_explicit(&av->split_from, memory_order_relaxed);
    av->split = !av->split_bad && from + av->split_done == dc->info.block_count ? SPLIT_OK
                                                                                : SPLIT_FAILED;
    pthread_cond_broadcast(&av->cv);
    pthread_mutex_unlock(&av->mu);
}

/* The verifier at block i, asked to hand over (etp__dump_take_first): lends its state and waits
 * until it is given back; returns the next block to verify, *rc the holder's failure. */
static uint32_t lend(async_verify *av, fbv *v, struct fast_ctx *fc, uint32_t i, int *rc) {
    pthread_mutex_lock(&av->mu);
    if (atomic_load_explicit(&av->take_req, memory_order_relaxed)) {
        atomic_store_explicit(&av->take_req, false, memory_order_relaxed);
        av->take_v = v;
        av->take_fc = fc;
        av->take_pos = i;
        av->take_rc = ETP_OK;
        av->taken = true;
        pthread_cond_broadcast(&av->cv);
        while (av->taken) pthread_cond_wait(&av->lend_cv, &av->mu);
        i = av->take_pos;
        *rc = av->take_rc;
    }
    pthread_mutex_unlock(&av->mu);
    return i;
}

bool etp__dump_take_first(const etp_dump *dc) {
    async_verify *av = dc->av;
    if (!av) return false;
    pthread_mutex_lock(&av->mu);
    bool taken = false;
    if (av->split == SPLIT_ON && !av->done && !av->taken) {
        atomic_store_explicit(&av->take_req, true, memory_order_release);
        release_held(av);
        /* until it lends (at its next block), or has passed the last block before the split
         * (it publishes each under mu, and checks for a request before the next) */
        uint32_t from = atomic_load_explicit(&av->split_from, memory_order_relaxed);
        while (atomic_load_explicit(&av->take_req, memory_order_relaxed) && !av->done &&
               atomic_load_explicit(&av->verified, memory_order_acquire) < from)
            pthread_cond_wait(&av->cv, &av->mu);
        atomic_store_explicit(&av->take_req, false, memory_order_relaxed);
        taken = av->taken;
    }
    pthread_mutex_unlock(&av->mu);
    return taken;
}

int etp__dump_taken_verify(const etp_dump *dc, uint32_t blocks, etp_error *err) {
    async_verify *av = dc->av;
    uint32_t from = atomic_load_explicit(&av->split_from, memory_order_relaxed);
    if (blocks > from) blocks = from;
    while (!av->take_rc && av->take_pos < blocks) {
        uint32_t i = av->take_pos;
        int rc = verify_nth(av->take_v, av->rd_vec, i, &dc->blocks[i], &((etp_dump *)dc)->info,
                            av->take_fc);
        if (rc) {
            av->take_rc = rc;
            break;
        }
        av->take_pos = i + 1;
        async_block_done(av, i + 1);
    }
    if (!av->take_rc) return ETP_OK;
    if (err) *err = av->err; /* the verifier's own error, as it would have reported it */
    return av->take_rc;
}

void etp__dump_give_back(const etp_dump *dc) {
    async_verify *av = dc->av;
    pthread_mutex_lock(&av->mu);
    av->taken = false;
    pthread_cond_broadcast(&av->lend_cv);
    pthread_mutex_unlock(&av->mu);
}

int etp_dump_open(etp_dump **out, const etp_blob *blob, etp_error *err) {
    return open_impl(out, blob, NULL, NULL, false, err);
}

int etp_dump_open_with(etp_dump **out, const etp_blob *blob, const etp_dump_open_opts *o,
                       etp_error *err) {
    if (!o) return open_impl(out, blob, NULL, NULL, false, err);
    return open_impl(out, blob, o->background ? NULL : o->progress,
                     o->background ? NULL : o->progress_ctx, o->background, err);
}

/* The verifier at a split's first block: waits for the split's end; true when its thread
 * verified every block from there (its counts are added), false to verify them here (the split
 * failed, or the two parts together visited more tables than the bound allows): verified again
 * in order, an error is then reported where one pass reports it. */
static bool split_gate(etp_dump *d, fbv *v, async_verify *av) {
    bool over = false;
    pthread_mutex_lock(&av->mu);
    if (atomic_load_explicit(&av->take_req, memory_order_relaxed)) {
        atomic_store_explicit(&av->take_req, false, memory_order_relaxed); /* nothing to take */
        pthread_cond_broadcast(&av->cv);
    }
    while (av->split == SPLIT_ON && !atomic_load_explicit(&av->stop, memory_order_relaxed))
        pthread_cond_wait(&av->cv, &av->mu);
    if (av->split == SPLIT_OK && v->tables + (av->sv.tables - av->v0.tables) <= v->size) {
        etp_dump_info *s = &av->split_info, *t = &d->info;
        t->event_count += s->event_count;
        t->profile_count += s->profile_count;
        t->allocation_count += s->allocation_count;
        t->debug_count += s->debug_count;
        t->none_count += s->none_count;
        over = true;
    }
    if (av->split != SPLIT_ON) av->split = SPLIT_NONE;
    pthread_mutex_unlock(&av->mu);
    return over;
}

static int verify_blocks(etp_dump *d, fbv *v, uint32_t rd_vec,
                         void (*progress)(void *ctx, uint64_t done, uint64_t total), void *ctx,
                         async_verify *av) {
    uint32_t n_blocks = d->info.block_count;
    fast_ctx *fc = calloc(1, sizeof *fc);
    if (!fc) {
        etp_error_set(v->err, ETP_E_INTERNAL, v->file, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    /* The pages of the file are mapped as the blocks are read (the kernel maps several per
     * fault). Mapping them all at once first (MADV_POPULATE_READ) took 2.3 ms of the 50 MB
     * benchmark's wall time before the first block could be read, and saved no CPU time. */
    int rc = ETP_OK;
    for (uint32_t i = 0; i < n_blocks; i++) {
        if (av && atomic_load_explicit(&av->take_req, memory_order_acquire) &&
            i < atomic_load_explicit(&av->split_from, memory_order_acquire)) {
            i = lend(av, v, fc, i, &rc);
            if (rc || i >= n_blocks) break;
        }
        if (av && i == atomic_load_explicit(&av->split_from, memory_order_acquire) &&
            split_gate(d, v, av)) {
            async_block_done(av, n_blocks); /* the split's thread verified the rest */
            break;
        }
        if (av && atomic_load_explicit(&av->stop, memory_order_relaxed)) {
            rc = ETP_E_INTERNAL; /* nobody is waiting for this */
            break;
        }
        if ((rc = verify_nth(v, rd_vec, i, &d->blocks[i], &d->info, fc))) break;
        if (progress) progress(ctx, i + 1, n_blocks);
        if (av) async_block_done(av, i + 1);
    }
    fast_ctx_free(fc);
    return rc;
}

/* A serial log or base64 file: the first ETDump in it, decoded, then opened as any ETDump; the
 * dump owns the decoded bytes. Errors of the decoded dump name it by its place in the log. */
static int open_b64(etp_dump **out, const etp_blob *blob,
                    void (*progress)(void *ctx, uint64_t done, uint64_t total), void *ctx,
                    bool async, etp_error *err) {
    b64_source *src = calloc(1, sizeof *src);
    if (!src) {
        etp_error_set(err, ETP_E_INTERNAL, blob->name, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    etp_b64log_info info;
    size_t n;
    int rc = etp__b64log_decode(blob->data, blob->size, blob->name, &src->bytes, &n, &info, err);
    if (rc) {
        free(src);
        return rc;
    }
    char name[ETP_ERR_FILE_MAX];
    if (info.plain)
        snprintf(name, sizeof name, "%.400s (base64)", blob->name);
    else
        snprintf(name, sizeof name, "%.400s (ETDump %u of %u, base64 at line %llu)", blob->name,
                 info.used, info.dumps, (unsigned long long)info.line);
    if (!has_dump_id(src->bytes, n)) {
        etp_error_set(err, ETP_E_INPUT, blob->name, 0, NULL,
                      "line %llu: the base64 decodes to %zu bytes that are not an ETDump (no "
                      "identifier ED00 at byte 8 or 4)",
                      (unsigned long long)info.line, n);
        free(src->bytes);
        free(src);
        return ETP_E_INPUT;
    }
    etp_blob_borrow(&src->blob, src->bytes, n, name);
    src->runner_log = !info.plain;
    if (src->runner_log)
        etp_arm_pmu_parse((const char *)blob->data, blob->size, info.line, &src->pmu);
    if (info.dumps > 1) {
        int w = snprintf(src->note, sizeof src->note,
                         "%.300s: %u ETDumps in the log (base64 at line", blob->name, info.dumps);
        for (uint32_t k = 0; k < info.dumps && k < 8 && w > 0 && (size_t)w < sizeof src->note - 40; k++)
            w += snprintf(src->note + w, sizeof src->note - (size_t)w, "%s %llu", k ? "," : "",
                          (unsigned long long)info.first_lines[k]);
        if (w > 0 && (size_t)w < sizeof src->note - 120)
            snprintf(src->note + w, sizeof src->note - (size_t)w,
                     "%s); the first (line %llu) is analysed: cut the log to analyse another",
                     info.dumps > 8 ? ", ..." : "", (unsigned long long)info.line);
    }
    rc = open_impl(out, &src->blob, progress, ctx, async, err);
    if (rc) {
        free(src->bytes);
        free(src);
        return rc;
    }
    (*out)->src = src;
    return ETP_OK;
}

uint64_t etp_dump_byte_size(const etp_dump *d) { return d ? d->blob_size : 0; }

const char *etp_dump_source_kind(const etp_dump *d) {
    if (!d) return NULL;
    return !d->src ? "etdump" : d->src->runner_log ? "arm_runner_log" : "base64";
}

const char *etp_dump_source_note(const etp_dump *d) {
    return d->src && d->src->note[0] ? d->src->note : NULL;
}

const etp_arm_pmu_report *etp_dump_arm_pmu(const etp_dump *d) {
    return d && d->src && d->src->runner_log ? &d->src->pmu : NULL;
}

double etp_dump_default_tick_ns(const etp_dump *d, const char **why) {
    if (why) *why = NULL;
    if (!d || !d->src || !d->src->runner_log) return 1.0;
    if (why)
        *why = "read from the Arm bare-metal runner's serial log, whose timestamps are the "
               "Cortex-M PMU cycle counter (ARM_PMU_Get_CCNTR; 0 on a core without a PMU), not "
               "ns: host times are ticks of unknown rate; --tick-hz HZ (the core clock) turns "
               "them into time (CPU cycles of the FVP simulator are no real time)";
    return 0.0;
}

static int open_impl(etp_dump **out, const etp_blob *blob,
                     void (*progress)(void *ctx, uint64_t done, uint64_t total), void *ctx,
                     bool async, etp_error *err) {
    *out = NULL;
    const uint8_t *data = blob->data;
    size_t size = blob->size;
    const char *file = blob->name;
    if (size == 0) {
        etp_error_set(err, ETP_E_INPUT, file, 0, NULL, "file is empty; an ETDump starts with a "
                                                       "size prefix and the identifier ED00");
        return ETP_E_INPUT;
    }
    if (size < 12 && !etp__b64log_detect(data, size)) {
        etp_error_set(err, ETP_E_INPUT, file, 0, NULL,
                      "file is too small to be an ETDump (%zu bytes; at least 12 needed)", size);
        return ETP_E_INPUT;
    }
    if (!has_dump_id(data, size) && etp__b64log_detect(data, size))
        return open_b64(out, blob, progress, ctx, async, err);
    int idrc = check_dump_strict(data, size, file, err);
    if (idrc) return idrc;
    bool prefixed = memcmp(data + 8, "ED00", 4) == 0;
    uint64_t start = prefixed ? 4 : 0, len = size - start;
    if (prefixed) {
        uint64_t prefix = fb_u32(data);
        if (prefix > size - 4) {
            etp_error_set(err, ETP_E_INPUT, file, 0, "size_prefix",
                          "size prefix says %llu bytes follow but the file has %llu: the file is "
                          "truncated",
                          (unsigned long long)prefix, (unsigned long long)(size - 4));
            return ETP_E_INPUT;
        }
        if (prefix < 8) {
            etp_error_set(err, ETP_E_INPUT, file, 0, "size_prefix",
                          "size prefix %llu is too small for a FlatBuffer",
                          (unsigned long long)prefix);
            return ETP_E_INPUT;
        }
        len = prefix;
    }
    if (len > UINT32_MAX) {
        etp_error_set(err, ETP_E_INPUT, file, (int64_t)start, NULL,
                      "FlatBuffer of %llu bytes exceeds the format's 4 GiB limit",
                      (unsigned long long)len);
        return ETP_E_INPUT;
    }
    etp_dump *d = calloc(1, sizeof *d);
    if (!d) goto oom;
    d->buf = data + start;
    d->size = (uint32_t)len;
    d->blob_size = size;
    d->base = (int64_t)start;
    d->info.size_prefixed = prefixed;
    if (blob->kind == 1) {
        d->map_base = blob->map_base;
        d->map_size = blob->map_size;
    }
    fbv v = {.buf = d->buf, .size = d->size, .base = d->base, .file = file, .err = err};
    uint32_t root = fb_u32(d->buf);
    int rc;
    fbv_push(&v, "root");
    if ((uint64_t)root + 4 > d->size) {
        rc = fbv_fail(&v, 0, "root offset %u points outside the buffer", root);
        goto fail;
    }
    fbv_pop(&v);
    if ((rc = fbv_table(&v, root))) goto fail;
    fbv_push(&v, "version");
    if ((rc = fbv_scalar(&v, root, 0, 4))) goto fail;
    fbv_pop(&v);
    d->info.version = fb_get_u32(d->buf, root, 0, 0);
    uint32_t rd_vec, n_blocks;
    fbv_push(&v, "run_data");
    if ((rc = fbv_vector(&v, root, 1, 4, &rd_vec, &n_blocks))) goto fail;
    d->info.block_count = n_blocks;
    d->rd_vec = rd_vec;
    /* a record per block, charged against the memory budget until close (docs/verifier.md
     * "Memory"): 4 bytes of file a block when run_data entries share one RunData table */
    uint64_t need = (uint64_t)(n_blocks ? n_blocks : 1) * sizeof *d->blocks, in_use = 0,
             budget = etp__mem_budget();
    if (!etp__mem_take(need, budget, &in_use)) {
        etp_error_set(err, ETP_E_INPUT, file, d->base + (int64_t)rd_vec, "run_data",
                      "%u blocks would take %.1f MiB to index, over the memory budget of %.1f "
                      "MiB%s (docs/verifier.md \"Memory\"): set ETPROF_MEMORY_BUDGET=MiB (0: no "
                      "limit) to allow more memory%s",
                      n_blocks, (double)need / 1048576.0, (double)budget / 1048576.0,
                      in_use ? " with what is already in use" : "",
                      n_blocks && d->size / n_blocks < 16
                          ? " (run_data entries sharing RunData tables?)" : "");
        rc = ETP_E_INPUT;
        goto fail;
    }
    d->charged = need;
    d->blocks = calloc(n_blocks ? n_blocks : 1, sizeof *d->blocks);
    if (!d->blocks) goto oom;
    for (uint32_t i = 0; i < n_blocks; i++) d->blocks[i].rep_of = UINT32_MAX;
    /* Test hook (docs/cli.md "Test hooks"): every dump of two blocks or more is verified in the
     * background, its verifier held until a block is first needed or a split begins, so that a
     * two-thread pass always splits the verification (etdump_int.h), whatever the file size. */
    const char *hook = async ? getenv("ETPROF_TEST_SPLIT_VERIFY") : NULL;
    int held = hook && strcmp(hook, "1") == 0 ? 1 : hook && strcmp(hook, "2") == 0 ? 2 : 0;
    if (async && n_blocks >= 2 && (d->size >= etp__async_min || held) &&
        start_async(d, &v, rd_vec, held)) {
        *out = d;
        return ETP_OK;
    }
    if ((rc = verify_blocks(d, &v, rd_vec, progress, ctx, NULL))) goto fail;
    *out = d;
    return ETP_OK;
oom:
    etp_error_set(err, ETP_E_INTERNAL, file, -1, NULL, "out of memory");
    rc = ETP_E_INTERNAL;
fail:
    etp_dump_close(d);
    return rc;
}

void etp_dump_close(etp_dump *d) {
    if (!d) return;
    if (d->av) {
        pthread_mutex_lock(&d->av->mu);
        atomic_store(&d->av->stop, true);
        pthread_cond_broadcast(&d->av->cv); /* a verifier waiting at a split's gate */
        pthread_mutex_unlock(&d->av->mu);
        async_end(d);
    }
    free(d->blocks);
    etp__mem_give(d->charged);
    if (d->src) {
        free(d->src->bytes);
        free(d->src);
    }
    free(d);
}

const etp_dump_info *etp_dump_get_info(const etp_dump *d) { return &d->info; }

uint64_t etp__dump_buffer_size(const etp_dump *d) { return d->size; }

const uint8_t *etp__dump_bytes(const etp_dump *d) { return d->buf; }

bool etp__dump_same_layout(const etp_dump *d, uint32_t a, uint32_t b, int64_t *delta) {
    if (a >= d->info.block_count || b >= d->info.block_count) return false;
    const block *x = &d->blocks[a], *y = &d->blocks[b];
    if (y->rep_of == UINT32_MAX) return false;
    if (y->rep_of == a) {
        *delta = y->rep_delta;
        return true;
    }
    if (x->rep_of != y->rep_of) return false;
    *delta = y->rep_delta - x->rep_delta;
    return true;
}

int64_t etp__dump_events_offset(const etp_dump *d, uint32_t bi) {
    if (bi >= d->info.block_count || !d->blocks[bi].events_vec) return -1;
    return d->base + (int64_t)d->blocks[bi].events_vec;
}

int64_t etp__dump_block_offset(const etp_dump *d, uint32_t bi) {
    if (bi >= d->info.block_count || !d->rd_vec) return -1;
    return d->base + (int64_t)d->rd_vec + 4 + 4 * (int64_t)bi; /* the element's uoffset */
}

void etp_dump_block(const etp_dump *d, uint32_t bi, etp_block_info *out) {
    memset(out, 0, sizeof *out);
    out->bundled_input_index = -1;
    if (bi >= d->info.block_count) return; /* out of range: an empty block */
    const block *b = &d->blocks[bi];
    out->name = fb_str(d->buf, b->table, 0);
    out->bundled_input_index = fb_get_i32(d->buf, b->table, 1, -1);
    out->allocator_count = b->n_alloc;
    out->event_count = b->n_events;
    out->has_events = b->events_vec != 0;
}

etp_str etp_dump_allocator_name(const etp_dump *d, uint32_t bi, uint32_t ai) {
    etp_str s = {NULL, 0};
    if (bi >= d->info.block_count || ai >= d->blocks[bi].n_alloc) return s;
    const block *b = &d->blocks[bi];
    return fb_str(d->buf, fb_vec_table(d->buf, b->alloc_vec, ai), 0);
}

static void read_tensor(const uint8_t *buf, uint32_t t, etp_tensor *x) {
    x->scalar_type = fb_get_i8(buf, t, 0, 0);
    x->sizes = fb_vec(buf, t, 1);
    x->strides = fb_vec(buf, t, 2);
    x->offset = fb_get_i64(buf, t, 3, 0);
}

static void read_value(const uint8_t *buf, uint32_t t, etp_value *x) {
    uint32_t p;
    memset(x, 0, sizeof *x);
    x->val = fb_get_i8(buf, t, 0, 0);
    if ((p = fb_ref(buf, t, 1))) {
        x->has_tensor = true;
        read_tensor(buf, p, &x->tensor);
    }
    if ((p = fb_ref(buf, t, 2))) {
        x->has_tensor_list = true;
        uint32_t vec = fb_ref(buf, p, 0);
        if (vec) {
            x->buf_ = buf;
            x->tensor_list_pos_ = vec;
            x->tensor_list_len = fb_u32(buf + vec);
        }
    }
    if ((p = fb_ref(buf, t, 3))) {
        x->has_int = true;
        x->int_val = fb_get_i64(buf, p, 0, 0);
    }
    if ((p = fb_ref(buf, t, 4))) {
        x->has_float = true;
        x->float_val = fb_get_f32(buf, p, 0, 0.0f);
    }
    if ((p = fb_ref(buf, t, 5))) {
        x->has_double = true;
        x->double_val = fb_get_f64(buf, p, 0, 0.0);
    }
    if ((p = fb_ref(buf, t, 6))) {
        x->has_bool = true;
        x->bool_val = fb_get_u8(buf, p, 0, 0) != 0;
    }
    if ((p = fb_ref(buf, t, 7))) {
        x->has_output = true;
        x->output = fb_get_u8(buf, p, 0, 0) != 0;
    }
}

void etp_value_tensor_list_get(const etp_value *v, uint32_t i, etp_tensor *out) {
    memset(out, 0, sizeof *out);
    if (!v->buf_ || i >= v->tensor_list_len) return;
    read_tensor(v->buf_, fb_vec_table(v->buf_, v->tensor_list_pos_, i), out);
}

void etp_dump_event(const etp_dump *d, uint32_t bi, uint32_t i, etp_event *ev) {
    const uint8_t *buf = d->buf;
    memset(ev, 0, sizeof *ev);
    if (bi >= d->info.block_count || i >= d->blocks[bi].n_events) return; /* ETP_EVENT_NONE */
    const block *b = &d->blocks[bi];
    uint32_t t = fb_vec_table(buf, b->events_vec, i), p;
    if ((p = fb_ref(buf, t, 0))) {
        etp_profile_event *x = &ev->profile;
        ev->type = ETP_EVENT_PROFILE;
        x->name = fb_str(buf, p, 0);
        x->chain_index = fb_get_i32(buf, p, 1, 0);
        x->instruction_id = fb_get_i32(buf, p, 2, -1);
        x->delegate_debug_id_int = fb_get_i32(buf, p, 3, -1);
        x->delegate_debug_id_str = fb_str(buf, p, 4);
        x->delegate_debug_metadata = fb_vec(buf, p, 5);
        x->start_time = fb_get_u64(buf, p, 6, 0);
        x->end_time = fb_get_u64(buf, p, 7, 0);
    } else if ((p = fb_ref(buf, t, 1))) {
        ev->type = ETP_EVENT_ALLOCATION;
        ev->allocation.allocator_id = fb_get_i32(buf, p, 0, 0);
        ev->allocation.allocation_size = fb_get_u64(buf, p, 1, 0);
    } else if ((p = fb_ref(buf, t, 2))) {
        etp_debug_event *x = &ev->debug;
        ev->type = ETP_EVENT_DEBUG;
        x->chain_index = fb_get_u64(buf, p, 0, 0);
        x->instruction_id = fb_get_i32(buf, p, 1, -1);
        uint32_t de = fb_ref(buf, p, 2);
        if (de) {
            x->has_debug_entry = true;
            read_value(buf, de, &x->debug_entry);
        }
        x->delegate_debug_id_int = fb_get_i32(buf, p, 3, -1);
        x->delegate_debug_id_str = fb_str(buf, p, 4);
        x->name = fb_str(buf, p, 5);
    } else {
        ev->type = ETP_EVENT_NONE;
    }
}

/* ---- internal: the model's decoder (etdump_int.h) ---- */

/* Offsets of fields 0..n-1 of the table at `t` (0 = absent), read from its vtable once. */
static inline void table_offsets(const uint8_t *buf, uint32_t t, unsigned n, uint16_t *o) {
    uint32_t vt = (uint32_t)((int64_t)t - (int64_t)fb_i32(buf + t));
    unsigned vlen = fb_u16(buf + vt);
    for (unsigned id = 0; id < n; id++) {
        unsigned slot = 4 + 2 * id;
        o[id] = slot + 2 <= vlen ? fb_u16(buf + vt + slot) : 0;
    }
}

static inline etp_str str_at(const uint8_t *buf, uint32_t t, uint16_t o) {
    etp_str s = {NULL, 0};
    if (o) {
        uint32_t p = t + o + fb_u32(buf + t + o);
        s.len = fb_u32(buf + p);
        s.ptr = (const char *)buf + p + 4;
    }
    return s;
}

uint32_t etp__dump_event_reuse(const etp_dump *d, uint32_t bi, uint32_t i, etp_event *ev,
                               uint32_t tpos[2]) {
    const uint8_t *buf = d->buf;
    const block *b = &d->blocks[bi];
    uint32_t t = fb_vec_table(buf, b->events_vec, i);
#if defined(__GNUC__)
    if (i + 16 < b->n_events) { /* an event ahead (verified: inside the buffer) */
        uint32_t ahead = fb_vec_table(buf, b->events_vec, i + 16);
        __builtin_prefetch(buf + ahead);
        __builtin_prefetch(buf + ahead + 64);
    }
#endif
    uint16_t eo[3];
    table_offsets(buf, t, 3, eo);
    etp_event_type type = eo[0]   ? ETP_EVENT_PROFILE
                          : eo[1] ? ETP_EVENT_ALLOCATION
                          : eo[2] ? ETP_EVENT_DEBUG
                                  : ETP_EVENT_NONE;
    /* etp_dump_event() leaves every member but the decoded one zero: clear what the previous
     * event left (the new member is assigned in full below). */
    if (ev->type != type) {
        memset(ev, 0, sizeof *ev); /* the members share storage */
        ev->type = type;
    }
    if (type == ETP_EVENT_PROFILE) {
        uint32_t p = t + eo[0] + fb_u32(buf + t + eo[0]);
        uint16_t o[8];
        table_offsets(buf, p, 8, o);
        etp_profile_event *x = &ev->profile;
        etp_profile_event y;
        y.name = str_at(buf, p, o[0]);
        y.chain_index = o[1] ? fb_i32(buf + p + o[1]) : 0;
        y.instruction_id = o[2] ? fb_i32(buf + p + o[2]) : -1;
        y.delegate_debug_id_int = o[3] ? fb_i32(buf + p + o[3]) : -1;
        y.delegate_debug_id_str = str_at(buf, p, o[4]);
        etp_str md = str_at(buf, p, o[5]);
        y.delegate_debug_metadata.ptr = (const uint8_t *)md.ptr;
        y.delegate_debug_metadata.len = md.len;
        y.start_time = o[6] ? fb_u64(buf + p + o[6]) : 0;
        y.end_time = o[7] ? fb_u64(buf + p + o[7]) : 0;
        *x = y;
        tpos[0] = o[6] ? p + o[6] : 0;
        tpos[1] = o[7] ? p + o[7] : 0;
        return t;
    } else if (type == ETP_EVENT_ALLOCATION) {
        uint32_t p = t + eo[1] + fb_u32(buf + t + eo[1]);
        ev->allocation.allocator_id = fb_get_i32(buf, p, 0, 0);
        ev->allocation.allocation_size = fb_get_u64(buf, p, 1, 0);
    } else if (type == ETP_EVENT_DEBUG) {
        etp_dump_event(d, bi, i, ev); /* rare: the full decoder */
    }
    tpos[0] = tpos[1] = 0;
    return t;
}

void etp__dump_release(const etp_dump *d, etp__released *r, uint32_t lo, uint32_t hi) {
    if (!d->map_base || d->map_size < ETP_RELEASE_MIN || hi <= lo) return;
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
    uintptr_t a = (uintptr_t)(d->buf + lo), b = (uintptr_t)(d->buf + hi);
    a = (a + page - 1) & ~(page - 1); /* whole pages inside [lo, hi) only */
    b &= ~(page - 1);
    uintptr_t base = (uintptr_t)d->map_base, end = base + d->map_size;
    if (a < base) a = base;
    if (b > end) b = end;
    if (a >= b) return;
    /* in steps of ETP_RELEASE_STEP: each call costs a TLB flush */
    if ((r->lo == r->hi ? b - a : (a < r->lo ? r->lo - a : 0) + (b > r->hi ? b - r->hi : 0)) <
        ETP_RELEASE_STEP)
        return;
    if (r->lo == r->hi) {
        madvise((void *)a, b - a, MADV_DONTNEED);
        r->lo = a;
        r->hi = b;
        return;
    }
    /* only what was not released yet: the range grows at either end */
    if (a < r->lo) {
        madvise((void *)a, r->lo - a, MADV_DONTNEED);
        r->lo = a;
    }
    if (b > r->hi) {
        madvise((void *)r->hi, b - r->hi, MADV_DONTNEED);
        r->hi = b;
    }
}

int64_t etp_vec_i64(etp_vec v, uint32_t i) { return i < v.len ? fb_i64(v.ptr + 8 * (size_t)i) : 0; }
uint8_t etp_vec_u8(etp_vec v, uint32_t i) { return i < v.len ? v.ptr[i] : 0; }
int32_t etp_vec_i32(etp_vec v, uint32_t i) { return i < v.len ? fb_i32(v.ptr + 4 * (size_t)i) : 0; }

static const char *const scalar_names[30] = {
    [0] = "BYTE",        [1] = "CHAR",          [2] = "SHORT",           [3] = "INT",
    [4] = "LONG",        [5] = "HALF",          [6] = "FLOAT",           [7] = "DOUBLE",
    [11] = "BOOL",       [12] = "QINT8",        [13] = "QUINT8",         [14] = "QINT32",
    [15] = "BFLOAT16",   [16] = "QUINT4X2",     [17] = "QUINT2X4",       [22] = "BITS16",
    [23] = "FLOAT8E5M2", [24] = "FLOAT8E4M3FN", [25] = "FLOAT8E5M2FNUZ", [26] = "FLOAT8E4M3FNUZ",
    [27] = "UINT16",     [28] = "UINT32",       [29] = "UINT64",
};

const char *etp_scalar_type_name(int code) {
    return code >= 0 && code < 30 ? scalar_names[code] : NULL;
}

int etp_scalar_type_size(int code) {
    switch (code) {
    case 0: case 1: case 11: case 12: case 13: case 16: case 17: case 23: case 24: case 25: case 26:
        return 1;
    case 2: case 5: case 15: case 22: case 27: return 2;
    case 3: case 6: case 14: case 28: return 4;
    case 4: case 7: case 29: return 8;
    default: return 0;
    }
}
