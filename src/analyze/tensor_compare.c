/* tensor_compare.c - two runs' logged tensors compared element by element (etprof_tensor.h). */
#include "etprof_tensor.h"
#include "etprof_etrecord.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int etp_tensor_compare(const etp_tensor_view *a, const etp_tensor_view *b, etp_tensor_cmp *o) {
    memset(o, 0, sizeof *o);
    uint64_t na = a->base ? a->numel : 0, nb = b->base ? b->numel : 0;
    if (na != nb) return ETP_E_USAGE;
    double se = 0, sa = 0, sb = 0, dot = 0, sabs = 0, mx = 0;
    uint64_t n = 0;
    for (uint64_t i = 0; i < na; i++) {
        double x = etp_tensor_get(a, i), y = etp_tensor_get(b, i);
        if (!isfinite(x) || !isfinite(y)) {
            o->nonfinite++;
            continue;
        }
        double d = x - y;
        se += d * d;
        sabs += fabs(d);
        if (fabs(d) > mx) mx = fabs(d);
        sa += x * x;
        sb += y * y;
        dot += x * y;
        n++;
    }
    o->numel = na;
    o->mse = n ? se / (double)n : NAN;
    o->l1 = n ? sabs / (double)n : NAN;
    o->max_abs = n ? mx : NAN;
    o->snr_db = se == 0 ? (n ? INFINITY : NAN) : sa == 0 ? NAN : 10 * log10(sa / se);
    o->cosine = sa == 0 && sb == 0 ? (n ? 1 : NAN) : (sa == 0 || sb == 0) ? NAN
                                                   : dot / (sqrt(sa) * sqrt(sb));
    return ETP_OK;
}

const char *etp_cmp_status_name(etp_cmp_status s) {
    switch (s) {
    case ETP_CMP_MATCHED: return "matched";
    case ETP_CMP_SHAPE_DIFFERS: return "shape differs";
    case ETP_CMP_ONLY_BASE: return "only in base";
    case ETP_CMP_ONLY_NEW: return "only in new";
    }
    return "?";
}

/* One logged tensor of one side. */
typedef struct side_t {
    uint32_t run;
    int32_t instr;
    int64_t key1;  /* what is matched on: the instruction, or the debug handle */
    bool nokey;    /* BY_DEBUG_HANDLE: the instruction has no handle (never matched) */
    uint32_t occ;
    int32_t list;
    bool output;
    const char *op, *ovl;
    etp_tensor_view v;
    bool used;
} side_t;

typedef struct side {
    side_t *t;
    size_t n, cap;
} side;

struct etp_cmp_result {
    etp_cmp_row *rows;
    size_t n;
    etp_cmp_match match;
};

const char *etp_cmp_match_name(etp_cmp_match m) {
    switch (m) {
    case ETP_CMP_BY_INSTRUCTION: return "instruction";
    case ETP_CMP_BY_DEBUG_HANDLE: return "debug handle";
    case ETP_CMP_BY_OP_ORDER: return "op order";
    }
    return "?";
}

/* Open addressing over 64-bit keys (value + 1 stored; 0 = empty), for the occurrence counts and
 * the matching: both stay linear in the number of logged tensors whatever the dump holds. */
typedef struct kmap {
    uint64_t *key;
    uint32_t *val;
    size_t mask, used;
} kmap;

static uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static int kmap_init(kmap *m, size_t n) {
    size_t c = 16;
    while (c < n * 2 + 2) c *= 2;
    m->key = calloc(c, sizeof *m->key);
    m->val = calloc(c, sizeof *m->val);
    m->mask = c - 1;
    m->used = 0;
    return m->key && m->val ? 0 : -1;
}

static void kmap_free(kmap *m) {
    free(m->key);
    free(m->val);
}

/* The slot of `k` (found or empty). */
static size_t kmap_slot(const kmap *m, uint64_t k) {
    size_t i = (size_t)mix64(k) & m->mask;
    while (m->val[i] && m->key[i] != k) i = (i + 1) & m->mask;
    return i;
}

static uint64_t key_of(const side_t *x) {
    return mix64(((uint64_t)x->run << 32) ^ (uint64_t)x->key1) ^
           mix64(((uint64_t)x->occ << 33) ^ ((uint64_t)(uint32_t)x->list << 1) ^ x->output);
}

static int push(side *s, const side_t *x) {
    if (s->n == s->cap) {
        size_t c = s->cap ? s->cap * 2 : 64;
        side_t *q = realloc(s->t, c * sizeof *q);
        if (!q) return -1;
        s->t = q;
        s->cap = c;
    }
    s->t[s->n++] = *x;
    return 0;
}

/* The highest debug handle debug_handle_map gives instruction `instr`, -1 when none. */
static int64_t handle_of(const etp_etrecord *rec, const char *method, int32_t instr) {
    const int64_t *h;
    uint32_t n;
    int64_t best = -1;
    if (etp_etrecord_instr_handles(rec, method, instr, &h, &n))
        for (uint32_t k = 0; k < n; k++)
            if (h[k] > best) best = h[k];
    return best;
}

/* Every tensor the dump logged, in order. */
static int collect(etp_model *m, const etp_blob *buf, side *s, etp_cmp_match mode,
                   const etp_etrecord *rec, const char *method, etp_error *err) {
    const etp_dump_info *di = etp_dump_get_info(etp_model_dump(m));
    uint32_t run = 0;
    for (uint32_t b = 0; b < di->block_count; b++) {
        etp_block_view bv;
        int rc = etp_model_block(m, b, &bv, err);
        if (rc) return rc;
        size_t before = s->n;
        kmap occs; /* (instruction, output) -> values logged so far in this run */
        if (kmap_init(&occs, bv.n)) {
            etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
            return ETP_E_INTERNAL;
        }
        for (uint32_t i = 0; i < bv.n; i++) {
            const etp_mevent *e = &bv.events[i];
            if (e->ev.type != ETP_EVENT_DEBUG || !e->ev.debug.has_debug_entry) continue;
            const etp_value *val = &e->ev.debug.debug_entry;
            bool list = val->val == ETP_VAL_TENSOR_LIST && val->has_tensor_list;
            if (!(val->val == ETP_VAL_TENSOR && val->has_tensor) && !list) continue;
            bool is_out = val->has_output && val->output;
            int64_t key1 = e->instr;
            bool nokey = false;
            if (mode == ETP_CMP_BY_DEBUG_HANDLE && !is_out) {
                const char *mm = method ? method : bv.method ? bv.method : "forward";
                key1 = e->chain >= 0 ? handle_of(rec, mm, e->instr) : -1;
                nokey = key1 < 0;
            } else if (mode != ETP_CMP_BY_INSTRUCTION && is_out) {
                key1 = -2; /* method outputs: by their order in the run */
            }
            uint64_t ok = ((uint64_t)key1 << 1) | is_out;
            size_t slot = kmap_slot(&occs, ok);
            uint32_t occ = occs.val[slot]; /* values this (instruction, output) logged before */
            occs.key[slot] = ok;
            occs.val[slot] = occ + 1;
            uint32_t nl = list ? val->tensor_list_len : 1;
            for (uint32_t l = 0; l < nl; l++) {
                etp_tensor tk;
                if (list) etp_value_tensor_list_get(val, l, &tk);
                else tk = val->tensor;
                char path[160];
                snprintf(path, sizeof path, "run_data[%u].events[%u].debug_event.debug_entry.%s",
                         b, i, list ? "tensor_list" : "tensor");
                side_t x;
                memset(&x, 0, sizeof x);
                if ((rc = etp_tensor_view_init(&tk, buf, path, &x.v, err))) {
                    kmap_free(&occs);
                    return rc;
                }
                x.run = run;
                x.instr = e->instr;
                x.key1 = key1;
                x.nokey = nokey;
                x.ovl = e->op_overload;
                x.occ = occ;
                x.list = list ? (int32_t)l : -1;
                x.output = val->has_output && val->output;
                x.op = e->op_name;
                if (push(s, &x)) {
                    kmap_free(&occs);
                    etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
                    return ETP_E_INTERNAL;
                }
            }
        }
        kmap_free(&occs);
        if (s->n > before) run++;
    }
    return ETP_OK;
}

static bool same_key(const side_t *a, const side_t *b) {
    return a->run == b->run && a->key1 == b->key1 && a->occ == b->occ && a->list == b->list &&
           a->output == b->output;
}

/* "name.overload" with "::" as "." equal on both sides (true when either is unknown). */
static bool same_op(const side_t *x, const side_t *y) {
    if (!x->op || !y->op) return true;
    const char *p = x->op, *q = y->op;
    for (;;) {
        if (p[0] == ':' && p[1] == ':') p++;
        if (q[0] == ':' && q[1] == ':') q++;
        if (*p != *q) return false;
        if (!*p) break;
        p++;
        q++;
    }
    const char *o1 = x->ovl ? x->ovl : "", *o2 = y->ovl ? y->ovl : "";
    return strcmp(o1, o2) == 0;
}

static bool same_shape(const etp_tensor_view *a, const etp_tensor_view *b) {
    if (a->scalar_type != b->scalar_type || a->rank != b->rank) return false;
    for (uint32_t d = 0; d < a->rank; d++)
        if (a->sizes[d] != b->sizes[d]) return false;
    return true;
}

int etp_cmp_compute(etp_model *base, const etp_blob *bbuf, etp_model *nw, const etp_blob *nbuf,
                    etp_cmp_result **out, etp_error *err) {
    return etp_cmp_compute_with(base, bbuf, nw, nbuf, NULL, out, err);
}

int etp_cmp_compute_with(etp_model *base, const etp_blob *bbuf, etp_model *nw,
                         const etp_blob *nbuf, const etp_cmp_opts *opts, etp_cmp_result **out,
                         etp_error *err) {
    *out = NULL;
    side a = {0}, b = {0};
    etp_cmp_result *r = NULL;
    etp_cmp_match mode = opts ? opts->match : ETP_CMP_BY_INSTRUCTION;
    if (mode == ETP_CMP_BY_DEBUG_HANDLE && (!opts->base_etrecord || !opts->new_etrecord)) {
        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL,
                      "matching by debug handle needs the ETRecords of both programs");
        return ETP_E_USAGE;
    }
    int rc = collect(base, bbuf, &a, mode, opts ? opts->base_etrecord : NULL,
                     opts ? opts->base_method : NULL, err);
    if (!rc)
        rc = collect(nw, nbuf, &b, mode, opts ? opts->new_etrecord : NULL,
                     opts ? opts->new_method : NULL, err);
    if (rc) goto done;
    r = calloc(1, sizeof *r);
    if (r) r->rows = calloc(a.n + b.n + 1, sizeof *r->rows);
    if (!r || !r->rows) {
        rc = ETP_E_INTERNAL;
        etp_error_set(err, rc, NULL, -1, NULL, "out of memory");
        goto done;
    }
    /* NEW's tensors by key; a key occurs once per side (occurrence and list index tell repeated
     * values apart), a later duplicate (a hostile dump) is left unmatched */
    kmap bm;
    if (kmap_init(&bm, b.n)) {
        rc = ETP_E_INTERNAL;
        etp_error_set(err, rc, NULL, -1, NULL, "out of memory");
        goto done;
    }
    r->match = mode;
    for (size_t q = 0; q < b.n; q++) {
        if (b.t[q].nokey || (mode == ETP_CMP_BY_OP_ORDER && !b.t[q].output)) continue;
        uint64_t k = key_of(&b.t[q]);
        size_t slot = kmap_slot(&bm, k);
        while (bm.val[slot] && !same_key(&b.t[bm.val[slot] - 1], &b.t[q])) {
            slot = (slot + 1) & bm.mask; /* a hash collision of different keys */
            while (bm.val[slot] && bm.key[slot] != k) slot = (slot + 1) & bm.mask;
        }
        if (!bm.val[slot]) {
            bm.key[slot] = k;
            bm.val[slot] = (uint32_t)q + 1;
        }
    }
    size_t ap = 0; /* BY_OP_ORDER: NEW's position */
    for (size_t i = 0; i < a.n; i++) {
        etp_cmp_row *row = &r->rows[r->n++];
        const side_t *x = &a.t[i];
        row->run = x->run;
        row->instruction_id = x->instr;
        row->occurrence = x->occ;
        row->list_index = x->list;
        row->output = x->output;
        row->op_base = x->op;
        row->base = x->v;
        row->instruction_id_new = -1;
        row->debug_handle = mode == ETP_CMP_BY_DEBUG_HANDLE && !x->output ? x->key1 : -1;
        size_t k = SIZE_MAX;
        uint64_t hk = key_of(x);
        if (x->nokey) {
            row->status = ETP_CMP_ONLY_BASE;
            continue;
        }
        if (mode == ETP_CMP_BY_OP_ORDER && !x->output) {
            /* the next unused NEW intermediate of this run with the same op, dtype and shape */
            while (ap < b.n && (b.t[ap].run < x->run || b.t[ap].used || b.t[ap].output)) ap++;
            size_t seen = 0;
            for (size_t q = ap; q < b.n && b.t[q].run == x->run && seen < ETP_CMP_LOOKAHEAD; q++) {
                if (b.t[q].output || b.t[q].used) continue;
                seen++;
                if (same_op(x, &b.t[q]) && same_shape(&x->v, &b.t[q].v)) {
                    k = q;
                    break;
                }
            }
            if (k == SIZE_MAX) {
                row->status = ETP_CMP_ONLY_BASE;
                continue;
            }
            ap = k + 1;
            goto matched;
        }
        for (size_t slot = kmap_slot(&bm, hk); bm.val[slot];) {
            size_t c = bm.val[slot] - 1;
            if (same_key(x, &b.t[c])) {
                if (!b.t[c].used) k = c;
                break;
            }
            slot = (slot + 1) & bm.mask;
            while (bm.val[slot] && bm.key[slot] != hk) slot = (slot + 1) & bm.mask;
        }
        if (k == SIZE_MAX) {
            row->status = ETP_CMP_ONLY_BASE;
            continue;
        }
    matched:
        b.t[k].used = true;
        row->new_ = b.t[k].v;
        if (mode != ETP_CMP_BY_INSTRUCTION) {
            row->instruction_id_new = b.t[k].instr;
            row->op_new = b.t[k].op;
        }
        row->status = etp_tensor_compare(&x->v, &b.t[k].v, &row->cmp) ? ETP_CMP_SHAPE_DIFFERS
                                                                      : ETP_CMP_MATCHED;
    }
    for (size_t q = 0; q < b.n; q++) {
        if (b.t[q].used) continue;
        etp_cmp_row *row = &r->rows[r->n++];
        row->status = ETP_CMP_ONLY_NEW;
        row->run = b.t[q].run;
        row->instruction_id = b.t[q].instr;
        row->occurrence = b.t[q].occ;
        row->list_index = b.t[q].list;
        row->output = b.t[q].output;
        row->new_ = b.t[q].v;
        row->instruction_id_new = mode != ETP_CMP_BY_INSTRUCTION ? b.t[q].instr : -1;
        row->op_new = mode != ETP_CMP_BY_INSTRUCTION ? b.t[q].op : NULL;
        row->debug_handle = mode == ETP_CMP_BY_DEBUG_HANDLE && !b.t[q].nokey && !b.t[q].output
                                ? b.t[q].key1 : -1;
    }
    kmap_free(&bm);
    *out = r;
    r = NULL;
done:
    free(a.t);
    free(b.t);
    etp_cmp_free(r);
    return rc;
}

void etp_cmp_free(etp_cmp_result *r) {
    if (!r) return;
    free(r->rows);
    free(r);
}

size_t etp_cmp_row_count(const etp_cmp_result *r) { return r ? r->n : 0; }

etp_cmp_match etp_cmp_matching(const etp_cmp_result *r) {
    return r ? r->match : ETP_CMP_BY_INSTRUCTION;
}

void etp_cmp_counts(const etp_cmp_result *r, uint64_t *matched, uint64_t *only_base,
                    uint64_t *only_new) {
    uint64_t m = 0, ob = 0, on = 0;
    for (size_t i = 0; r && i < r->n; i++) {
        etp_cmp_status st = r->rows[i].status;
        if (st == ETP_CMP_ONLY_BASE) ob++;
        else if (st == ETP_CMP_ONLY_NEW) on++;
        else m++;
    }
    if (matched) *matched = m;
    if (only_base) *only_base = ob;
    if (only_new) *only_new = on;
}

const etp_cmp_row *etp_cmp_row_get(const etp_cmp_result *r, size_t i) {
    return r && i < r->n ? &r->rows[i] : NULL;
}

int64_t etp_cmp_first_below(const etp_cmp_result *r, double snr_db) {
    for (size_t i = 0; r && i < r->n; i++) {
        const etp_cmp_row *row = &r->rows[i];
        if (row->status != ETP_CMP_MATCHED) continue;
        double s = row->cmp.snr_db;
        if (isinf(snr_db) ? !(isinf(s) && s > 0) : !(s >= snr_db)) return (int64_t)i;
    }
    return -1;
}
