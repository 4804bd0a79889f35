/* analysis.c - per-operator statistics over runs, the event hierarchy and the placement of a
 * method's time (CPU kernels, each backend's delegate calls, the framework). docs/analyses.md
 * says what every number means.
 *
 * One pass over the blocks with etp_model_block(). Every profile event of a kept block goes to a
 * row keyed by (method, chain, instruction, kind, identity, unit); a row keeps one double per
 * run (the sum of its occurrences in that run) and, for the exclusive time, the sum of its
 * children of the same unit in that run. Nothing else is kept per event.
 *
 * The hierarchy refines the model's pairing (wrapper <- events of its instruction):
 *  - QNN top-level events nest by their documented meaning: QNN (execute) > RPC (execute) >
 *    QNN accelerator (execute) > Accelerator (execute) (us) > {excluding wait, VTCM acquire,
 *    HVX + HMX power on}; HTP nodes hang under Accelerator (execute) time (cycles);
 *  - delegate events with real host timestamps (Ethos-U scopes, XNNPACK) nest by interval
 *    containment inside their DELEGATE_CALL.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "etprof.h"
#include "etprof_fleet.h"
#include "etdump_int.h"
#include "model_int.h"
#include "ops_int.h"
#include "pair_int.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#define CONTAIN_SCAN_MAX 512 /* how far ahead a delegate scope looks for its container */

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t len, cap;
    char data[];
} arena_chunk;

/* The first sample (and child-sum) arrays of the rows: carved from large chunks, instead of a
 * malloc (and a page fault every 4 KiB, costly on virtual machines) per row. */
#define POOL_CHUNK ((size_t)2 << 20)
typedef struct pool_chunk {
    struct pool_chunk *next;
    size_t len, cap; /* doubles */
    size_t bytes;    /* of the mapping, 0 when malloc'ed */
    double data[];
} pool_chunk;

typedef struct row_acc {
    etp_ops_row pub;
    uint64_t hash;
    uint64_t first_seen; /* (run serial << 32) | event index of the first occurrence */
    double *samples;
    double *childsum; /* allocated when the first child value arrives (most rows have none) */
    uint32_t cap;
    bool pooled;       /* samples lie in the result's sample pool (not freed on their own) */
    bool cs_pooled;    /* so does childsum */
    uint32_t last_run; /* run serial of the current sample, 0 = none yet */
    int32_t parent;    /* acc index, -2 = not seen with a parent yet */
    bool childsum_any;
    bool op_from_child;
    bool escaped;      /* the label is an escaped copy (ETP_MF_ESCAPED): part of the row's key */
    /* the method's run (0-based, runs kept) of each sample: NULL while sample k is run k (the
     * row had a value in every run so far), else `cap` entries (ops_int.h) */
    uint32_t *srun;
    uint32_t srun_cap;
    int32_t part;      /* index in its method's parts (finish_methods), -1 for none */
} row_acc;

typedef struct method_acc {
    const char *name;
    uint32_t seen, runs, skipped;
    int32_t exec_row; /* acc index */
    int32_t *hint;    /* row of each event position in the previous run, -1 unknown */
    uint32_t hint_cap;
    etp_ops_method pub;
    etp_ops_part *parts;
    etp_ops_cpu_op *cpu_ops;
    uint32_t *run_block; /* the block of each run kept (ops_int.h) */
    uint32_t rb_cap;
} method_acc;

struct etp_ops_result {
    arena_chunk *arena;
    pool_chunk *pool;
    row_acc *acc;
    size_t nacc, acc_cap;
    uint32_t *htab; /* acc index + 1, 0 = empty */
    size_t hcap;
    method_acc *methods;
    size_t nmethods, methods_cap;
    /* final, hierarchy order: acc itself once rows_ready (ROW()) */
    bool rows_ready;
    uint32_t *child_off, *child_idx; /* CSR; child_off has nrows + 2 entries (last: roots) */
    etp_ops_qnn *qnn;
    size_t nqnn;
    uint32_t blocks_read, runs_kept;
    /* row_of holds the rows of block rows_block's events, a run of method rows_method
     * (UINT32_MAX: none) */
    uint32_t rows_block, rows_method;
    /* per-block scratch */
    int32_t *row_of, *tp, *grp;
    uint32_t scratch_cap;
    /* Kept from the last block decoded in full for its repeats (add_block): in event order, the
     * events whose tree parent depends on their times (host scopes, KID_DYN) and those with a
     * parent row of their unit (child sums, nesting; KID_TIME when a time) */
    uint32_t *kids;
    uint32_t nkids;
    int32_t (*groups)[ETP_QT_COUNT_];
    uint32_t groups_cap;
    etp_ops_block_group *bgroups;
    size_t nbgroups, bgroups_cap;
    etp_qnn_soc soc; /* what the program's QNN delegates were compiled for (etp__ops_qnn_soc) */
    uint32_t mismatch_blocks; /* --ignore-program-mismatch: blocks the program did not fit */
    const char *mismatch_first; /* the located reason for the first of them */
    uint32_t conflict_blocks;   /* --method: blocks the files say ran another method */
    const char *conflict_first; /* the reason for the first of them */
    /* the memory budget (model_int.h): rows charged so far, and the refusal when over it */
    uint64_t mem_budget, mem_held;
    size_t rows_charged;
    bool over_budget;
    uint32_t over_index; /* the event whose row went over it */
    const etp_dump *dump;  /* computed from (etp__ops_dump) */
    const char *dump_name; /* its name, in the arena */
};
/* row k of the result (hierarchy order), once finish_tree() has put the accumulators in it */
#define ROW(r, k) ((r)->acc[(k)].pub)


/* ---------------------------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------------------------- */

static char *arena_alloc(etp_ops_result *r, size_t n) {
    arena_chunk *c = r->arena;
    if (!c || c->cap - c->len < n) {
        size_t cap = n > 16384 ? n : 16384;
        arena_chunk *nc = malloc(sizeof *nc + cap);
        if (!nc) return NULL;
        nc->next = c;
        nc->len = 0;
        nc->cap = cap;
        r->arena = c = nc;
    }
    char *p = c->data + c->len;
    c->len += n;
    return p;
}

#if defined(MAP_ANONYMOUS)
/* A POOL_CHUNK-aligned chunk: one transparent huge page where the system allows it, its memory
 * mapped at once. */
static void *pool_map(void) {
    size_t len = 2 * POOL_CHUNK;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    uintptr_t a = ((uintptr_t)p + POOL_CHUNK - 1) & ~(uintptr_t)(POOL_CHUNK - 1);
    if ((char *)a > p) munmap(p, (size_t)((char *)a - p));
    char *end = (char *)a + POOL_CHUNK;
    if (end < p + len) munmap(end, (size_t)(p + len - end));
#ifdef MADV_HUGEPAGE
    madvise((void *)a, POOL_CHUNK, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    madvise((void *)a, POOL_CHUNK, MADV_POPULATE_WRITE);
#endif
    return (void *)a;
}
#endif

/* n doubles from the pool; NULL when n is large (the caller mallocs) or out of memory. */
static double *pool_alloc(etp_ops_result *r, size_t n) {
    size_t room = (POOL_CHUNK - sizeof(pool_chunk)) / sizeof(double);
    if (n > room / 4) return NULL;
    pool_chunk *c = r->pool;
    if (!c || c->cap - c->len < n) {
        c = NULL;
        size_t bytes = POOL_CHUNK;
#if defined(MAP_ANONYMOUS)
        c = pool_map();
#endif
        if (!c) {
            if (!(c = malloc(POOL_CHUNK))) return NULL;
            bytes = 0;
        }
        c->next = r->pool;
        c->len = 0;
        c->cap = room;
        c->bytes = bytes;
        r->pool = c;
    }
    double *p = c->data + c->len;
    c->len += n;
    return p;
}

static const char *arena_strn(etp_ops_result *r, const char *s, size_t n) {
    char *p = arena_alloc(r, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static const char *arena_cat3(etp_ops_result *r, const char *a, const char *b, const char *c) {
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *p = arena_alloc(r, la + lb + lc + 1);
    if (!p) return NULL;
    memcpy(p, a, la);
    memcpy(p + la, b, lb);
    memcpy(p + la + lb, c, lc + 1);
    return p;
}

static uint64_t hash_key(uint32_t method, int32_t chain, int32_t instr, etp_kind kind,
                         const char *name) {
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *s = (const unsigned char *)name; *s; s++)
        h = (h ^ *s) * 1099511628211ull;
    h ^= ((uint64_t)method << 40) ^ ((uint64_t)(uint32_t)chain << 20) ^ (uint64_t)(uint32_t)instr ^
         ((uint64_t)kind << 56);
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static bool is_time_unit(etp_unit u) { return u == ETP_UNIT_NS || u == ETP_UNIT_TICKS; }

static const char *const qnn_top_names[ETP_QT_COUNT_] = {
    "QNN (execute) time (us)",
    "RPC (execute) time (us)",
    "QNN accelerator (execute) time (us)",
    "Accelerator (execute) time (us)",
    "Accelerator (execute excluding wait) time (us)",
    "Time for initial VTCM acquire (us)",
    "Time for HVX + HMX power on and acquire (us)",
    "Accelerator (execute) time (cycles)",
    "Number of HVX threads used (count)",
    "Num times yield occured (count)",
};

/* The enclosing top-level event of each one in time (-1: the DELEGATE_CALL itself). */
static const int qnn_top_parent[ETP_QT_COUNT_] = {
    -1, ETP_QT_QNN_EXECUTE, ETP_QT_RPC, ETP_QT_QNN_ACCEL, ETP_QT_ACCEL_US,
    ETP_QT_ACCEL_US, ETP_QT_ACCEL_US, -1, -1, -1,
};

int etp_qnn_top_of(const char *name) {
    if (!name) return -1;
    for (int i = 0; i < ETP_QT_COUNT_; i++)
        if (strcmp(name, qnn_top_names[i]) == 0) return i;
    return -1;
}

const char *etp_qnn_top_name(etp_qnn_top t) {
    return (unsigned)t < ETP_QT_COUNT_ ? qnn_top_names[t] : "";
}

void etp_ops_opts_init(etp_ops_opts *o) { memset(o, 0, sizeof *o); }

void etp_ops_filter_init(etp_ops_filter *f) {
    memset(f, 0, sizeof *f);
    f->method = -1;
}

const char *etp_ops_row_kind_name(const etp_ops_row *row) {
    return row->htp_node ? "htp_node" : etp_kind_name(row->kind);
}

/* ---------------------------------------------------------------------------------------------
 * Rows
 * ------------------------------------------------------------------------------------------- */

static bool rehash(etp_ops_result *r, size_t cap) {
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t) return false;
    for (size_t i = 0; i < r->nacc; i++) {
        size_t h = (size_t)r->acc[i].hash & (cap - 1);
        while (t[h]) h = (h + 1) & (cap - 1);
        t[h] = (uint32_t)i + 1;
    }
    free(r->htab);
    r->htab = t;
    r->hcap = cap;
    return true;
}

static const char *kernel_op(etp_ops_result *r, const etp_mevent *e) {
    if (e->op_name)
        return e->op_overload && *e->op_overload ? arena_cat3(r, e->op_name, ".", e->op_overload)
                                                 : arena_strn(r, e->op_name, strlen(e->op_name));
    if (e->kind != ETP_KIND_KERNEL || !e->label) return NULL;
    const char *l = e->label;
    if (strncmp(l, "native_call_", 12) == 0 && l[12]) l += 12;
    return arena_strn(r, l, strlen(l));
}

/* The unit of the row of an event: its own, us as ns. Part of the row's identity: an event
 * logged with another unit in another run (a start time of 0 decides some) has another row. */
static etp_unit row_unit(const etp_mevent *e) {
    return e->unit == ETP_UNIT_US ? ETP_UNIT_NS : e->unit;
}

/* The hash of a row's identity; row_find() and merge_result() must agree on it. */
static uint64_t row_hash(uint32_t method, int32_t chain, int32_t instr, etp_kind kind,
                         const char *label, bool esc, const char *ev_name, etp_unit unit) {
    return hash_key(method, chain, instr, kind, label) ^ (uint64_t)esc ^
           (ev_name ? hash_key(0, 0, 0, 0, ev_name) : 0) ^ (uint64_t)unit * 0xC2B2AE3D27D4EB4Full;
}

static void row_init(etp_ops_result *r, row_acc *a, uint32_t method, const etp_mevent *e,
                     const char *name) {
    etp_ops_row *p = &a->pub;
    p->method = method;
    p->chain = e->chain;
    p->instr = e->instr;
    p->name = name;
    p->kind = e->kind;
    p->qnn = e->qnn;
    p->qnn_op_id = e->qnn_op_id;
    p->htp_node = e->qnn == ETP_QNN_NODE || e->qnn == ETP_QNN_NODE_IO || e->qnn == ETP_QNN_NODE_SYS;
    p->unit = row_unit(e);
    p->parent = -1;
    p->share = NAN;
    p->nest_over_max_ratio = NAN;
    a->parent = -2;
    etp_place place = ETP_PLACE_FRAMEWORK;
    switch (e->kind) {
    case ETP_KIND_OPERATOR_CALL:
    case ETP_KIND_KERNEL: place = ETP_PLACE_CPU; break;
    case ETP_KIND_DELEGATE_CALL:
    case ETP_KIND_DELEGATE_INTERNAL: place = ETP_PLACE_DELEGATE; break;
    case ETP_KIND_OTHER:
        if (e->instr_kind == ETP_INSTR_KERNEL) place = ETP_PLACE_CPU;
        else if (e->instr_kind == ETP_INSTR_DELEGATE) place = ETP_PLACE_DELEGATE;
        break;
    default: break;
    }
    p->place = place;
    if (place == ETP_PLACE_CPU) p->placement = "cpu";
    else if (place == ETP_PLACE_FRAMEWORK) p->placement = "framework";
    else if (e->backend) p->placement = arena_strn(r, e->backend, strlen(e->backend));
    else p->placement = "delegate";
    if (place == ETP_PLACE_CPU) p->op = kernel_op(r, e);
    else if (e->kind == ETP_KIND_DELEGATE_INTERNAL) {
        if (e->qnn == ETP_QNN_NODE && e->qnn_name_len) p->op = arena_strn(r, name, e->qnn_name_len);
        else p->op = name;
    }
}

/* Rows of delegate events named by their id keep their own name in the key (the Inspector's
 * event signature holds both). */
static bool same_ev_name(const row_acc *a, const etp_mevent *e) {
    const char *x = a->pub.event_name, *y = e->ev_name;
    return x == y || (x && y && strcmp(x, y) == 0);
}

/* Finds or creates the row of event `e`; -1 when out of memory. */
static int32_t row_find(etp_ops_result *r, uint32_t method, const etp_mevent *e) {
    const char *label = e->label ? e->label : "";
    bool esc = (e->flags & ETP_MF_ESCAPED) != 0;
    etp_unit unit = row_unit(e);
    uint64_t h = row_hash(method, e->chain, e->instr, e->kind, label, esc, e->ev_name, unit);
    if (r->nacc + 1 > r->hcap / 2 && !rehash(r, r->hcap ? r->hcap * 2 : 1024)) return -1;
    size_t slot = (size_t)h & (r->hcap - 1);
    for (; r->htab[slot]; slot = (slot + 1) & (r->hcap - 1)) {
        row_acc *a = &r->acc[r->htab[slot] - 1];
        if (a->hash == h && a->pub.method == method && a->pub.chain == e->chain &&
            a->pub.instr == e->instr && a->pub.kind == e->kind && a->escaped == esc &&
            a->pub.unit == unit && strcmp(a->pub.name, label) == 0 && same_ev_name(a, e))
            return (int32_t)(r->htab[slot] - 1);
    }
    if (r->nacc >= r->rows_charged) {
        /* a new row: charge the next rows against the memory budget (model_int.h) */
        if (!etp__mem_take((uint64_t)ETP_MEM_PER_ROW * ETP_MEM_ROW_CHUNK, r->mem_budget,
                           &r->mem_held)) {
            r->over_budget = true;
            return -1;
        }
        r->rows_charged += ETP_MEM_ROW_CHUNK;
    }
    if (r->nacc == r->acc_cap) {
        size_t cap = r->acc_cap ? r->acc_cap * 2 : 256;
        row_acc *n = realloc(r->acc, cap * sizeof *n);
        if (!n) return -1;
        r->acc = n;
        r->acc_cap = cap;
    }
    const char *name = arena_strn(r, label, strlen(label));
    if (!name) return -1;
    row_acc *a = &r->acc[r->nacc];
    memset(a, 0, sizeof *a);
    a->hash = h;
    a->escaped = esc;
    row_init(r, a, method, e, name);
    if (e->ev_name) {
        if (!(a->pub.event_name = arena_strn(r, e->ev_name, strlen(e->ev_name)))) return -1;
        a->pub.op = a->pub.event_name;
    }
    r->htab[slot] = (uint32_t)r->nacc + 1;
    return (int32_t)r->nacc++;
}

/* The row of event `e` at position i: the previous run's row at that position when it matches
 * (runs of one method usually have the same events in the same order), else a hash lookup. */
static int32_t row_find_hinted(etp_ops_result *r, method_acc *m, uint32_t method, uint32_t i,
                               const etp_mevent *e) {
    if (i < m->hint_cap && m->hint[i] >= 0) {
        const row_acc *a = &r->acc[m->hint[i]];
        if (a->pub.kind == e->kind && a->pub.chain == e->chain && a->pub.instr == e->instr &&
            a->escaped == ((e->flags & ETP_MF_ESCAPED) != 0) && a->pub.unit == row_unit(e) &&
            same_ev_name(a, e) && strcmp(a->pub.name, e->label ? e->label : "") == 0)
            return m->hint[i];
    }
    int32_t ri = row_find(r, method, e);
    if (ri >= 0 && i < m->hint_cap) m->hint[i] = ri;
    return ri;
}

/* Value of `e` in its row's unit (us -> ns). */
static double row_value(const etp_mevent *e) {
    return e->unit == ETP_UNIT_US ? e->value * 1000.0 : e->value;
}

static bool is_row_event(const etp_mevent *e) {
    if (e->ev.type != ETP_EVENT_PROFILE) return false;
    switch (e->kind) {
    case ETP_KIND_FRAMEWORK:
    case ETP_KIND_OPERATOR_CALL:
    case ETP_KIND_KERNEL:
    case ETP_KIND_DELEGATE_CALL:
    case ETP_KIND_DELEGATE_INTERNAL:
    case ETP_KIND_INSTRUCTION:
    case ETP_KIND_OTHER: return true;
    default: return false;
    }
}

/* ---------------------------------------------------------------------------------------------
 * One block
 * ------------------------------------------------------------------------------------------- */

static int scratch(etp_ops_result *r, uint32_t n) {
    if (n <= r->scratch_cap) return ETP_OK;
    uint32_t cap = r->scratch_cap ? r->scratch_cap : 256;
    while (cap < n) cap *= 2;
    int32_t *a = realloc(r->row_of, cap * sizeof *a);
    if (a) r->row_of = a;
    int32_t *b = realloc(r->tp, cap * sizeof *b);
    if (b) r->tp = b;
    int32_t *c = realloc(r->grp, cap * sizeof *c);
    if (c) r->grp = c;
    uint32_t *k = realloc(r->kids, cap * sizeof *k);
    if (k) r->kids = k;
    if (!a || !b || !c || !k) return ETP_E_INTERNAL;
    r->scratch_cap = cap;
    return ETP_OK;
}

static bool host_scope(const etp_mevent *e) {
    return e->kind == ETP_KIND_DELEGATE_INTERNAL && is_time_unit(e->unit) &&
           !(e->flags & (ETP_MF_NOT_WALL | ETP_MF_BAD_TIME | ETP_MF_WRAPPED)) &&
           e->ev.profile.start_time <= e->ev.profile.end_time;
}

/* Does scope a (later in the block) contain scope b? */
static bool contains(const etp_mevent *a, const etp_mevent *b) {
    const etp_profile_event *x = &a->ev.profile, *y = &b->ev.profile;
    return x->start_time <= y->start_time && y->end_time <= x->end_time;
}

#define KID_DYN 0x80000000u  /* r->kids: a host scope, parent found again */
#define KID_TIME 0x40000000u /* r->kids: rows of a time unit (their nesting is checked); event
                              * indices stay below 2^30 (a block of a 2 GiB FlatBuffer) */

/* Can event i be a host scope (may_host), whose tree parent then depends on its times? By what
 * the times do not change: its kind, its model parent (a later wrapper), not a grouped QNN
 * event. */
static bool may_host(const etp_mevent *e, uint32_t i) {
    return !(e->qnn != ETP_QNN_NONE && e->parent >= 0) && e->kind == ETP_KIND_DELEGATE_INTERNAL &&
           e->parent > (int32_t)i;
}

/* Event i's tree parent when it is a host scope: the smallest later scope of the same wrapper
 * that contains it; else its model parent. */
static void host_parent(etp_ops_result *r, const etp_mevent *ev, uint32_t i) {
    const etp_mevent *e = &ev[i];
    r->tp[i] = e->parent;
    if (!host_scope(e)) return;
    uint32_t end = (uint32_t)e->parent;
    if (end > i + CONTAIN_SCAN_MAX) end = i + CONTAIN_SCAN_MAX;
    int32_t best = -1;
    uint64_t best_len = 0;
    for (uint32_t j = i + 1; j < end; j++) {
        const etp_mevent *c = &ev[j];
        if (c->parent != e->parent || !host_scope(c) || !contains(c, e)) continue;
        uint64_t len = c->ev.profile.end_time - c->ev.profile.start_time;
        if (best < 0 || len < best_len) {
            best = (int32_t)j;
            best_len = len;
        }
    }
    if (best >= 0) r->tp[i] = best;
}

/* Tree parent of every event of the block (see the file comment). `repeat`: the block repeats
 * the one before (same_rows in add_block), whose parents r->tp holds: only those that depend on
 * the times (KID_DYN in r->kids) are found again. */
static int tree_parents(etp_ops_result *r, const etp_block_view *v, bool repeat) {
    const etp_mevent *ev = v->events;
    uint32_t n = v->n, ngroups = 0;
    if (repeat) {
        for (uint32_t k = 0; k < r->nkids; k++)
            if ((r->kids[k] & KID_DYN)) host_parent(r, ev, r->kids[k] & ~(KID_DYN | KID_TIME));
        return ETP_OK;
    }
    for (uint32_t i = 0; i < n; i++) {
        r->tp[i] = ev[i].parent;
        r->grp[i] = -1;
    }
    /* QNN events grouped by their DELEGATE_CALL */
    for (uint32_t i = 0; i < n; i++) {
        const etp_mevent *e = &ev[i];
        if (e->qnn == ETP_QNN_NONE || e->parent < 0) continue;
        int32_t p = e->parent;
        if (r->grp[p] < 0) {
            if (ngroups == r->groups_cap) {
                uint32_t cap = r->groups_cap ? r->groups_cap * 2 : 8;
                void *g = realloc(r->groups, cap * sizeof *r->groups);
                if (!g) return ETP_E_INTERNAL;
                r->groups = g;
                r->groups_cap = cap;
            }
            for (int k = 0; k < ETP_QT_COUNT_; k++) r->groups[ngroups][k] = -1;
            r->grp[p] = (int32_t)ngroups++;
        }
        if (e->qnn == ETP_QNN_TOP) {
            int t = etp_qnn_top_of(e->label);
            if (t >= 0) r->groups[r->grp[p]][t] = (int32_t)i;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        const etp_mevent *e = &ev[i];
        if (e->qnn != ETP_QNN_NONE && e->parent >= 0) {
            const int32_t *g = r->groups[r->grp[e->parent]];
            int up = -1;
            if (e->qnn == ETP_QNN_TOP) {
                int t = etp_qnn_top_of(e->label);
                up = t >= 0 ? qnn_top_parent[t] : -1;
                while (up >= 0 && g[up] < 0) up = qnn_top_parent[up];
            } else {
                /* HTP nodes hang under the HTP cycle event; the LPAI and GPU backends log theirs
                 * under the EXECUTE event ("QNN (execute) time") instead */
                up = g[ETP_QT_ACCEL_CYCLES] >= 0 ? ETP_QT_ACCEL_CYCLES
                     : g[ETP_QT_QNN_EXECUTE] >= 0 ? ETP_QT_QNN_EXECUTE
                                                  : -1;
            }
            if (up >= 0) r->tp[i] = g[up];
            continue;
        }
        if (may_host(e, i)) host_parent(r, ev, i);
    }
    return ETP_OK;
}

/* Room for the first samples of a row created in the first run of its method, a block of n
 * events: such rows usually recur in every run, so they start with room for many runs (or all
 * the runs still to come), within a budget for that run (more at once would add to the peak
 * resident set while the file is still mapped); a row that first shows up in a later run
 * starts small. Either way the room then doubles as needed. */
#define SAMPLE_BUDGET ((uint64_t)8 << 20) /* bytes of first capacity in a method's first run */
static uint32_t first_cap(uint32_t n, bool first_run) {
    if (!first_run) return 4;
    uint64_t c = SAMPLE_BUDGET / sizeof(double) / (n ? n : 1);
    return c < 4 ? 4 : c > 4096 ? 4096 : (uint32_t)c;
}

/* A new sample (run `run`) for row `a`; `room` >= 1 is how many more runs can still come, this
 * one included (the blocks not read yet): a row seen in every run grows to exactly its final
 * size. `cap0` is the capacity of a new row. */
static int push_sample(etp_ops_result *r, row_acc *a, uint32_t run, uint32_t room,
                       uint32_t cap0) {
    if (a->pub.runs == a->cap) {
        uint64_t cap = a->cap ? (uint64_t)a->cap * 2 : cap0;
        if (cap > (uint64_t)a->pub.runs + room) cap = (uint64_t)a->pub.runs + room;
        if (cap > UINT32_MAX) cap = UINT32_MAX;
        double *s;
        if (!a->samples && (s = pool_alloc(r, cap))) {
            a->pooled = true;
        } else if (a->pooled) { /* outgrew its pooled array (left in the pool) */
            if (!(s = malloc(cap * sizeof *s))) return ETP_E_INTERNAL;
            memcpy(s, a->samples, a->pub.runs * sizeof *s);
            a->pooled = false;
        } else if (!(s = realloc(a->samples, cap * sizeof *s))) {
            return ETP_E_INTERNAL;
        }
        a->samples = s;
        if (a->childsum) {
            double *c;
            if (a->cs_pooled) {
                if (!(c = malloc(cap * sizeof *c))) return ETP_E_INTERNAL;
                memcpy(c, a->childsum, a->pub.runs * sizeof *c);
                a->cs_pooled = false;
            } else if (!(c = realloc(a->childsum, cap * sizeof *c))) {
                return ETP_E_INTERNAL;
            }
            a->childsum = c;
        }
        a->cap = (uint32_t)cap;
    }
    a->samples[a->pub.runs] = 0;
    if (a->childsum) a->childsum[a->pub.runs] = 0;
    a->pub.runs++;
    a->last_run = run;
    return ETP_OK;
}

/* A method by name; a run whose method is ambiguous (name NULL, several candidates) groups
 * with the runs of the same candidate set, apart from the runs of a known method. */
static int32_t method_find(etp_ops_result *r, const char *name, uint32_t ncand,
                           const char *const *cand) {
    char key[512] = "";
    if (!name && ncand > 1) {
        size_t k = 0;
        for (uint32_t c = 0; c < ncand && k + 1 < sizeof key; c++) {
            int w = snprintf(key + k, sizeof key - k, "%s%s", c ? ", " : "", cand[c]);
            if (w < 0) break;
            k += (size_t)w;
            if (k >= sizeof key) k = sizeof key - 1;
        }
    }
    for (size_t i = 0; i < r->nmethods; i++) {
        const char *m = r->methods[i].name;
        const char *mc = r->methods[i].pub.candidates;
        if (name ? (m && strcmp(m, name) == 0)
                 : (!m && (key[0] ? (mc && strcmp(mc, key) == 0) : !mc)))
            return (int32_t)i;
    }
    if (r->nmethods == r->methods_cap) {
        size_t cap = r->methods_cap ? r->methods_cap * 2 : 4;
        method_acc *n = realloc(r->methods, cap * sizeof *n);
        if (!n) return -1;
        r->methods = n;
        r->methods_cap = cap;
    }
    method_acc *m = &r->methods[r->nmethods];
    memset(m, 0, sizeof *m);
    m->exec_row = -1;
    if (name && !(m->name = arena_strn(r, name, strlen(name)))) return -1;
    if (key[0]) {
        char *raw = arena_alloc(r, ncand * sizeof(const char *) + sizeof(void *));
        const char **names =
            raw ? (const char **)(void *)(raw + (sizeof(void *) - (uintptr_t)raw % sizeof(void *)) %
                                                    sizeof(void *))
                : NULL;
        if (!names || !(m->pub.candidates = arena_strn(r, key, strlen(key)))) return -1;
        for (uint32_t c = 0; c < ncand; c++)
            if (!(names[c] = arena_strn(r, cand[c], strlen(cand[c])))) return -1;
        m->pub.n_candidates = ncand;
        m->pub.candidate_names = names;
    }
    return (int32_t)r->nmethods++;
}

/* Impossible nesting (etp_ops_row.nest_over_*): event `e` (value x, its row `a`) longer than
 * the event `pe` that encloses it, both times of one unit. */
static void check_nesting(row_acc *a, const etp_mevent *e, const etp_mevent *pe, double x) {
    if (!is_time_unit(a->pub.unit)) return;
    double px = row_value(pe);
    if (isnan(px) || px < 0 || !(x > px * (1 + 1e-9))) return;
    double ratio = px > 0 ? x / px : INFINITY;
    if (a->pub.nest_over_count == 0 || ratio > a->pub.nest_over_max_ratio)
        a->pub.nest_over_max_ratio = ratio;
    a->pub.nest_over_count++;
    if ((e->flags & ETP_MF_NOT_WALL) && !(pe->flags & ETP_MF_NOT_WALL))
        a->pub.nest_over_backend = true;
}

/* Counts block `v` in its group (etp_ops_block_groups). */
static int note_block(etp_ops_result *r, const etp_block_view *v, bool keep, bool filtered) {
    const char *name = v->info.name.ptr ? v->info.name.ptr : "";
    const char *reason = "run";
    if (!keep) {
        reason = filtered ? "block_filter" : !v->n ? "no_events" : "not_a_run";
        for (uint32_t i = 0; i < v->n && !filtered; i++)
            if (v->events[i].kind == ETP_KIND_FRAMEWORK &&
                v->events[i].label && (strcmp(v->events[i].label, "Method::init") == 0 ||
                                       strcmp(v->events[i].label, "Program::load_method") == 0)) {
                reason = "load";
                break;
            }
    }
    bool by_events = keep && !filtered && v->run_by_events && strcmp(reason, "run") == 0;
    for (size_t i = 0; i < r->nbgroups; i++) {
        etp_ops_block_group *g = &r->bgroups[i];
        if (g->kept == keep && g->by_events == by_events && strcmp(g->reason, reason) == 0 &&
            strcmp(g->name, name) == 0) {
            g->blocks++;
            g->events += v->n;
            return ETP_OK;
        }
    }
    if (r->nbgroups == r->bgroups_cap) {
        size_t cap = r->bgroups_cap ? r->bgroups_cap * 2 : 4;
        etp_ops_block_group *n = realloc(r->bgroups, cap * sizeof *n);
        if (!n) return ETP_E_INTERNAL;
        r->bgroups = n;
        r->bgroups_cap = cap;
    }
    const char *nm = arena_strn(r, name, strlen(name));
    if (!nm) return ETP_E_INTERNAL;
    r->bgroups[r->nbgroups++] =
        (etp_ops_block_group){nm, 1, v->n, keep, by_events, reason};
    return ETP_OK;
}

const etp_ops_block_group *etp_ops_block_groups(const etp_ops_result *r, size_t *n) {
    *n = r->nbgroups;
    return r->bgroups;
}

/* Records that the newest sample of `a` is run `ord` of its method (ops_int.h): the mapping is
 * kept only once a row has missed a run, so that a row present in every run costs nothing. */
static int note_sample_run(row_acc *a, uint32_t ord) {
    uint32_t k = a->pub.runs - 1;
    if (!a->srun && k == ord) return ETP_OK;
    if (!a->srun || a->srun_cap < a->cap) {
        uint32_t *s = realloc(a->srun, (size_t)a->cap * sizeof *s);
        if (!s) return ETP_E_INTERNAL;
        if (!a->srun)
            for (uint32_t j = 0; j < k; j++) s[j] = j;
        a->srun = s;
        a->srun_cap = a->cap;
    }
    a->srun[k] = ord;
    return ETP_OK;
}

/* Event i's parent row (r->tp, r->row_of) when both have rows: what a pass decides on its first
 * sight (the row's parent, an OPERATOR_CALL's operator from its kernel) is decided; false when
 * there is no such pair. */
static bool child_first(etp_ops_result *r, uint32_t i, uint32_t n) {
    int32_t ri = r->row_of[i], p = r->tp[i];
    if (ri < 0 || p < 0 || (uint32_t)p >= n || r->row_of[p] < 0) return false;
    int32_t pi = r->row_of[p];
    row_acc *a = &r->acc[ri], *pa = &r->acc[pi];
    if (a->parent == -2 && pi != ri) a->parent = pi;
    else if (pi != ri && a->parent >= 0 && a->parent != pi) a->pub.parent_varies = true;
    if (pa->pub.kind == ETP_KIND_OPERATOR_CALL && !pa->pub.op && a->pub.kind == ETP_KIND_KERNEL &&
        a->pub.op) {
        pa->pub.op = a->pub.op;
        pa->op_from_child = true;
    }
    return true;
}

/* Event i's value added to its parent row's child sum for this run (after child_first).
 * `same_unit`: the two rows are known to have one unit, 1 a time, 0 another (a repeat), -1 not
 * known. */
#if defined(__GNUC__)
__attribute__((always_inline)) /* once per event with a parent row: no call */
#endif
static inline int child_value(etp_ops_result *r, const etp_mevent *ev, uint32_t i, uint32_t run,
                              int same_unit) {
    uint32_t p = (uint32_t)r->tp[i];
    row_acc *pa = &r->acc[r->row_of[p]];
    double x = row_value(&ev[i]);
    if (isnan(x) || pa->last_run != run) return ETP_OK;
    if (same_unit < 0) {
        row_acc *a = &r->acc[r->row_of[i]];
        if (a->pub.unit != pa->pub.unit) return ETP_OK;
        check_nesting(a, &ev[i], &ev[p], x);
    } else if (same_unit) {
        check_nesting(&r->acc[r->row_of[i]], &ev[i], &ev[p], x);
    }
    if (!pa->childsum) {
        double *c = pool_alloc(r, pa->cap);
        if (c) {
            memset(c, 0, pa->cap * sizeof *c);
            pa->cs_pooled = true;
        } else if (!(c = calloc(pa->cap, sizeof *c))) {
            return ETP_E_INTERNAL;
        }
        pa->childsum = c;
    }
    pa->childsum[pa->pub.runs - 1] += x;
    pa->childsum_any = true;
    return ETP_OK;
}

/* `repeat_of`: the block v repeats (etp__model_repeat_of), or UINT32_MAX. */
static int add_block(etp_ops_result *r, const etp_ops_opts *o, const etp_block_view *v,
                     uint32_t room, uint32_t repeat_of) {
    bool keep = o->block ? (v->info.name.ptr && strcmp(v->info.name.ptr, o->block) == 0)
                         : v->is_execute;
    if (note_block(r, v, keep, o->block != NULL)) return ETP_E_INTERNAL;
    if (!keep) return ETP_OK;
    r->blocks_read++;
    int32_t mi = method_find(r, v->method, v->n_candidate_names, v->candidate_names);
    if (mi < 0) return ETP_E_INTERNAL;
    method_acc *m = &r->methods[mi];
    if (++m->seen <= o->skip_first) {
        m->skipped++;
        return ETP_OK;
    }
    m->runs++;
    if (m->runs > m->rb_cap) {
        uint32_t cap = m->rb_cap ? m->rb_cap * 2 : 16;
        uint32_t *rb = realloc(m->run_block, cap * sizeof *rb);
        if (!rb) return ETP_E_INTERNAL;
        m->run_block = rb;
        m->rb_cap = cap;
    }
    m->run_block[m->runs - 1] = v->block;
    uint32_t run = ++r->runs_kept;
    /* a repeat of the run whose rows row_of holds: every event has its row there already, and
     * its tree parent in tp unless that depends on its times */
    bool same_rows = repeat_of != UINT32_MAX && repeat_of == r->rows_block &&
                     (uint32_t)mi == r->rows_method;
    r->rows_block = UINT32_MAX;
    if (scratch(r, v->n) || tree_parents(r, v, same_rows)) return ETP_E_INTERNAL;
    if (v->n > m->hint_cap) {
        int32_t *h = realloc(m->hint, v->n * sizeof *h);
        if (!h) return ETP_E_INTERNAL;
        for (uint32_t k = m->hint_cap; k < v->n; k++) h[k] = -1;
        m->hint = h;
        m->hint_cap = v->n;
    }
    const etp_mevent *ev = v->events;
    uint32_t cap0 = first_cap(v->n, m->runs == 1);
    for (uint32_t i = 0; i < v->n; i++) {
        const etp_mevent *e = &ev[i];
        int32_t ri;
        if (same_rows) {
#if defined(__GNUC__)
            /* the sample an event ahead adds to: a row's samples lie apart from the others' */
            if (i + 16 < v->n && r->row_of[i + 16] >= 0) {
                const row_acc *pa = &r->acc[r->row_of[i + 16]];
                if (pa->samples) __builtin_prefetch(pa->samples + pa->pub.runs, 1);
            }
#endif
            if ((ri = r->row_of[i]) < 0) continue;
        } else {
            r->row_of[i] = -1;
            if (!is_row_event(e)) continue;
            ri = row_find_hinted(r, m, (uint32_t)mi, i, e);
            if (ri < 0) {
                r->over_index = i;
                return ETP_E_INTERNAL;
            }
            r->row_of[i] = ri;
        }
        row_acc *a = &r->acc[ri];
        if (!a->first_seen) a->first_seen = ((uint64_t)run << 32) | i;
        a->pub.count++;
        a->pub.flags |= e->flags;
        if (e->flags & ETP_MF_BAD_TIME) a->pub.bad_time_count++;
        if (e->flags & ETP_MF_WRAPPED) a->pub.wrapped_count++;
        if ((int32_t)i == v->method_event && m->exec_row < 0) m->exec_row = ri;
        double x = row_value(e);
        if (isnan(x)) continue;
        if (a->last_run != run) {
            if (push_sample(r, a, run, room, cap0) || note_sample_run(a, m->runs - 1))
                return ETP_E_INTERNAL;
        }
        a->samples[a->pub.runs - 1] += x;
    }
    /* Child values, in event order. A repeat goes over the events kept from the last block read
     * in full: those with a parent row of their unit, whose pairs of rows (and what was decided
     * on their first sight) are the same, and the host scopes, whose parents may not be. */
    if (same_rows) {
        for (uint32_t k = 0; k < r->nkids; k++) {
            uint32_t i = r->kids[k] & ~(KID_DYN | KID_TIME);
            if (r->kids[k] & KID_DYN) {
                if (child_first(r, i, v->n) && child_value(r, ev, i, run, -1))
                    return ETP_E_INTERNAL;
            } else if (child_value(r, ev, i, run, (r->kids[k] & KID_TIME) != 0)) {
                return ETP_E_INTERNAL;
            }
        }
    } else {
        r->nkids = 0;
        for (uint32_t i = 0; i < v->n; i++) {
            bool dyn = may_host(&ev[i], i);
            if (dyn) r->kids[r->nkids++] = i | KID_DYN; /* its parent may change */
            if (!child_first(r, i, v->n)) continue;
            etp_unit u = r->acc[r->row_of[i]].pub.unit;
            if (!dyn && u == r->acc[r->row_of[r->tp[i]]].pub.unit)
                r->kids[r->nkids++] = i | (is_time_unit(u) ? KID_TIME : 0);
            if (child_value(r, ev, i, run, -1)) return ETP_E_INTERNAL;
        }
    }
    r->rows_block = v->block;
    r->rows_method = (uint32_t)mi;
    return ETP_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Finishing: statistics, hierarchy order, shares, placement, QNN partitions
 * ------------------------------------------------------------------------------------------- */

typedef struct sib_key {
    uint32_t slot; /* parent acc index, or n for the roots */
    uint32_t method;
    int32_t chain, instr;
    uint64_t first_seen;
    uint32_t idx;
} sib_key;

/* Siblings in execution order: chain, instruction, then first appearance. */
static int cmp_sibling(const void *x, const void *y) {
    const sib_key *a = x, *b = y;
    if (a->slot != b->slot) return a->slot < b->slot ? -1 : 1;
    if (a->method != b->method) return a->method < b->method ? -1 : 1;
    if (a->chain != b->chain) return a->chain < b->chain ? -1 : 1;
    if (a->instr != b->instr) return a->instr < b->instr ? -1 : 1;
    if (a->first_seen != b->first_seen) return a->first_seen < b->first_seen ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int cmp_cpu_op(const void *x, const void *y) {
    const etp_ops_cpu_op *a = x, *b = y;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return strcmp(a->op, b->op);
}

/* The statistics of rows [lo, hi), on a scratch copy as long as the longest sample (maxruns). */
typedef struct stats_part {
    etp_ops_result *r;
    size_t lo, hi, maxruns;
    int rc;
} stats_part;

static void *stats_rows(void *arg) {
    stats_part *sp = arg;
    etp_ops_result *r = sp->r;
    double *tmp = malloc(sp->maxruns * sizeof *tmp);
    if (!tmp) {
        sp->rc = ETP_E_INTERNAL;
        return NULL;
    }
    for (size_t i = sp->lo; i < sp->hi; i++) {
        row_acc *a = &r->acc[i];
        uint32_t n = a->pub.runs;
        if (n) memcpy(tmp, a->samples, n * sizeof *tmp);
        etp_stats_compute(tmp, n, &a->pub.stats);
        if (a->childsum_any) {
            for (uint32_t k = 0; k < n; k++) tmp[k] = a->samples[k] - a->childsum[k];
            etp_stats_compute(tmp, n, &a->pub.excl);
        } else {
            a->pub.excl = a->pub.stats;
        }
        a->pub.has_children_same_unit = a->childsum_any;
        a->pub.samples = a->samples;
    }
    free(tmp);
    sp->rc = ETP_OK;
    return NULL;
}

/* Every row's statistics. Rows are independent: with many samples, a second thread takes the
 * rows after the one where half the samples are reached (the same values either way). */
static int finish_stats(etp_ops_result *r) {
    size_t maxruns = 1;
    uint64_t total = 0;
    for (size_t i = 0; i < r->nacc; i++) {
        uint32_t n = r->acc[i].pub.runs;
        if (n > maxruns) maxruns = n;
        total += r->acc[i].childsum_any ? 2 * (uint64_t)n : n;
    }
    stats_part one = {r, 0, r->nacc, maxruns, ETP_OK};
    if (r->nacc < 2 || !etp__pair_work_wanted(total)) {
        stats_rows(&one);
        return one.rc;
    }
    uint64_t half = 0;
    size_t cut = 0;
    while (cut < r->nacc && half < total / 2) {
        uint32_t n = r->acc[cut].pub.runs;
        half += r->acc[cut++].childsum_any ? 2 * (uint64_t)n : n;
    }
    stats_part two = {r, cut, r->nacc, maxruns, ETP_OK};
    one.hi = cut;
    pthread_t th;
    bool started = etp__thread_start(&th, stats_rows, &two) == 0;
    stats_rows(&one);
    if (started) pthread_join(th, NULL);
    else stats_rows(&two);
    etp__pair_release();
    return one.rc ? one.rc : two.rc;
}

static int finish_tree(etp_ops_result *r) {
    size_t n = r->nacc;
    /* parents: unset -> root; break any cycle (a parent chain longer than n) */
    for (size_t i = 0; i < n; i++)
        if (r->acc[i].parent < 0) r->acc[i].parent = -1;
    for (size_t i = 0; i < n; i++) {
        size_t steps = 0;
        for (int32_t p = r->acc[i].parent; p >= 0; p = r->acc[p].parent)
            if (++steps > n) {
                r->acc[i].parent = -1;
                break;
            }
    }
    size_t nn = n ? n : 1;
    sib_key *sk = malloc(nn * sizeof *sk);
    uint32_t *off = calloc(n + 2, sizeof *off), *order = malloc(nn * sizeof *order);
    uint32_t *stack = malloc(nn * sizeof *stack), *newidx = malloc(nn * sizeof *newidx);
    uint32_t *fill = calloc(n + 1, sizeof *fill);
    int rc = ETP_E_INTERNAL;
    if (!sk || !off || !order || !stack || !newidx || !fill) goto out;
    /* children of every acc row (slot n: the roots), sorted, as CSR over sk */
    for (size_t i = 0; i < n; i++) {
        const row_acc *a = &r->acc[i];
        uint32_t slot = a->parent < 0 ? (uint32_t)n : (uint32_t)a->parent;
        sk[i] = (sib_key){slot, a->pub.method, a->pub.chain, a->pub.instr, a->first_seen,
                          (uint32_t)i};
        off[slot + 1]++;
    }
    for (size_t i = 0; i <= n; i++) off[i + 1] += off[i];
    qsort(sk, n, sizeof *sk, cmp_sibling);
    /* depth-first preorder */
    size_t no = 0, sp = 0;
    for (size_t k = off[n + 1]; k > off[n]; k--) stack[sp++] = sk[k - 1].idx;
    while (sp) {
        uint32_t i = stack[--sp];
        order[no++] = i;
        for (size_t k = off[i + 1]; k > off[i]; k--) stack[sp++] = sk[k - 1].idx;
    }
    for (size_t k = 0; k < no; k++) newidx[order[k]] = (uint32_t)k;
    r->child_off = calloc(no + 2, sizeof *r->child_off);
    r->child_idx = malloc((no ? no : 1) * sizeof *r->child_idx);
    if (!r->child_off || !r->child_idx) goto out;
    /* The rows are the accumulators themselves, put in hierarchy order in place (a second
     * array of rows would double the peak for a result of a million rows). Parents, depths
     * and the methods' rows first, in the new numbering (a parent precedes its children). */
    for (size_t k = 0; k < no; k++) {
        row_acc *a = &r->acc[order[k]];
        etp_ops_row *row = &a->pub;
        row->parent = a->parent >= 0 ? (int32_t)newidx[a->parent] : -1;
        row->depth = row->parent >= 0 ? r->acc[order[row->parent]].pub.depth + 1 : 0;
        r->child_off[(row->parent < 0 ? no : (size_t)row->parent) + 1]++;
    }
    for (size_t i = 0; i < r->nacc; i++) r->acc[i].parent = r->acc[i].pub.parent;
    for (size_t mi = 0; mi < r->nmethods; mi++) {
        int32_t x = r->methods[mi].exec_row >= 0 ? (int32_t)newidx[r->methods[mi].exec_row] : -1;
        r->methods[mi].exec_row = x;
        r->methods[mi].pub.exec_row = x;
    }
    /* permute: the accumulator at i goes to newidx[i] */
    for (size_t i = 0; i < no; i++) {
        while (newidx[i] != i) {
            uint32_t j = newidx[i];
            row_acc t = r->acc[i];
            r->acc[i] = r->acc[j];
            r->acc[j] = t;
            newidx[i] = newidx[j];
            newidx[j] = j;
        }
    }
    r->rows_ready = true;
    for (size_t i = 0; i <= no; i++) r->child_off[i + 1] += r->child_off[i];
    for (size_t k = 0; k < no; k++) {
        int32_t p = ROW(r, k).parent;
        size_t s = p < 0 ? no : (size_t)p;
        r->child_idx[r->child_off[s] + fill[s]++] = (uint32_t)k;
    }
    rc = ETP_OK;
out:
    free(sk);
    free(off);
    free(order);
    free(stack);
    free(newidx);
    free(fill);
    return rc;
}

/* etp_ops_row.unit_varies: rows equal in everything but the unit, found side by side in an
 * order of the rows that leaves the unit out. */
static int cmp_identity(const void *x, const void *y) {
    const row_acc *a = *(const row_acc *const *)x, *b = *(const row_acc *const *)y;
    if (a->pub.method != b->pub.method) return a->pub.method < b->pub.method ? -1 : 1;
    if (a->pub.chain != b->pub.chain) return a->pub.chain < b->pub.chain ? -1 : 1;
    if (a->pub.instr != b->pub.instr) return a->pub.instr < b->pub.instr ? -1 : 1;
    if (a->pub.kind != b->pub.kind) return a->pub.kind < b->pub.kind ? -1 : 1;
    if (a->escaped != b->escaped) return a->escaped ? 1 : -1;
    int c = strcmp(a->pub.name, b->pub.name);
    if (c) return c;
    const char *p = a->pub.event_name ? a->pub.event_name : "",
               *q = b->pub.event_name ? b->pub.event_name : "";
    if ((c = strcmp(p, q))) return c;
    return (a->pub.event_name != NULL) - (b->pub.event_name != NULL);
}

static int finish_units(etp_ops_result *r, size_t nrows) {
    if (nrows < 2) return ETP_OK;
    row_acc **v = malloc(nrows * sizeof *v);
    if (!v) return ETP_E_INTERNAL;
    for (size_t i = 0; i < nrows; i++) v[i] = &r->acc[i];
    qsort(v, nrows, sizeof *v, cmp_identity);
    for (size_t i = 0; i + 1 < nrows; i++)
        if (cmp_identity(&v[i], &v[i + 1]) == 0)
            v[i]->pub.unit_varies = v[i + 1]->pub.unit_varies = true;
    free(v);
    return ETP_OK;
}

static void finish_shares(etp_ops_result *r, size_t nrows) {
    for (size_t k = 0; k < nrows; k++) {
        etp_ops_row *row = &ROW(r, k);
        const etp_ops_method *m = &r->methods[row->method].pub;
        if (is_time_unit(row->unit) && m->exec_row >= 0) {
            const etp_ops_row *x = &ROW(r, m->exec_row);
            if (x->unit == row->unit && x->stats.total > 0)
                row->share = row->stats.total / x->stats.total * 100.0;
        } else if (row->htp_node && row->parent >= 0) {
            const etp_ops_row *p = &ROW(r, row->parent);
            int pt = etp_qnn_top_of(p->name);
            if ((pt == ETP_QT_ACCEL_CYCLES || pt == ETP_QT_QNN_EXECUTE) && p->unit == row->unit &&
                p->stats.total > 0)
                row->share = row->stats.total / p->stats.total * 100.0;
        }
    }
}

static int finish_methods(etp_ops_result *r, size_t nrows) {
    for (size_t mi = 0; mi < r->nmethods; mi++) {
        method_acc *ma = &r->methods[mi];
        etp_ops_method *m = &ma->pub;
        m->name = ma->name;
        m->runs = ma->runs;
        m->skipped = ma->skipped;
        m->unit = ETP_UNIT_NS;
        double exec_total = NAN;
        if (m->exec_row >= 0) {
            const etp_ops_row *x = &ROW(r, m->exec_row);
            m->unit = x->unit;
            m->latency = x->stats;
            exec_total = x->stats.total;
        } else {
            etp_stats_compute(NULL, 0, &m->latency);
        }
        bool any_opcall = false, any_instr = false;
        size_t ndel = 0, ncpu = 0;
        m->unwrapped_rows = 0;
        m->unwrapped_first = -1;
        for (size_t k = 0; k < nrows; k++) {
            const etp_ops_row *row = &ROW(r, k);
            if (row->method != mi) continue;
            if (row->kind == ETP_KIND_OPERATOR_CALL) any_opcall = true;
            if (row->kind == ETP_KIND_DELEGATE_CALL) ndel++;
            if (row->kind == ETP_KIND_OPERATOR_CALL || row->kind == ETP_KIND_DELEGATE_CALL ||
                row->kind == ETP_KIND_KERNEL)
                any_instr = true;
            /* host-timed events with an instruction id but no runtime wrapper around them (a
             * writer other than the runtime's, e.g. the Inspector's tests): instruction events
             * were recorded, so the level is not method_only (issue 36 item 4) */
            if (row->kind == ETP_KIND_OTHER && row->chain >= 0 && row->instr >= 0 &&
                row->place == ETP_PLACE_FRAMEWORK && etp_unit_is_time(row->unit)) {
                any_instr = true;
                if (m->unwrapped_rows++ == 0) m->unwrapped_first = (int64_t)k;
            }
            if (row->htp_node) m->htp_node_rows++;
        }
        m->profiling_level = any_instr ? ETP_PL_FULL
                             : m->exec_row >= 0 ? ETP_PL_METHOD_ONLY
                                                : ETP_PL_NONE;
        /* method-only: one part per backend whose own outermost timed events sit directly
         * under Method::execute (room: at most one per row) */
        if (m->profiling_level == ETP_PL_METHOD_ONLY)
            for (size_t k = 0; k < nrows; k++) ndel += ROW(r, k).method == mi;
        ma->parts = calloc(ndel + 2, sizeof *ma->parts);
        for (size_t k = 0; k < nrows; k++) ncpu += ROW(r, k).method == mi;
        ma->cpu_ops = calloc(ncpu ? ncpu : 1, sizeof *ma->cpu_ops);
        if (!ma->parts || !ma->cpu_ops) return ETP_E_INTERNAL;
        uint32_t np = 0, nops = 0;
        etp_ops_part cpu = {.place = ETP_PLACE_CPU, .placement = "cpu", .backend_row = -1};
        double attributed = 0;
        for (size_t k = 0; k < nrows; k++) {
            const etp_ops_row *row = &ROW(r, k);
            if (row->method != mi) continue;
            r->acc[k].part = -1;
            double tot = isnan(row->stats.total) ? 0 : row->stats.total;
            if (row->kind == ETP_KIND_DELEGATE_CALL) {
                uint32_t j = 0;
                while (j < np && strcmp(ma->parts[j].placement, row->placement) != 0) j++;
                if (j == np) {
                    ma->parts[np++] = (etp_ops_part){.place = ETP_PLACE_DELEGATE,
                                                     .placement = row->placement,
                                                     .backend_row = -1};
                }
                r->acc[k].part = (int32_t)j;
                ma->parts[j].partitions++;
                ma->parts[j].calls += row->count;
                ma->parts[j].total += tot;
                m->delegate_partitions++;
                m->delegate_calls += row->count;
                attributed += tot;
                continue;
            }
            if (m->profiling_level == ETP_PL_METHOD_ONLY) {
                if (row->kind != ETP_KIND_DELEGATE_INTERNAL || row->place != ETP_PLACE_DELEGATE ||
                    !etp_unit_is_time(row->unit) || row->parent != m->exec_row)
                    continue;
                uint32_t j = 0;
                while (j < np && strcmp(ma->parts[j].placement, row->placement) != 0) j++;
                if (j == np) {
                    ma->parts[np++] = (etp_ops_part){.place = ETP_PLACE_DELEGATE,
                                                     .placement = row->placement,
                                                     .backend_own = true,
                                                     .backend_row = (int32_t)k};
                }
                r->acc[k].part = (int32_t)j;
                ma->parts[j].partitions++;
                ma->parts[j].calls += row->count;
                ma->parts[j].total += tot;
                attributed += tot;
                continue;
            }
            bool cpu_row = any_opcall ? row->kind == ETP_KIND_OPERATOR_CALL
                                      : row->kind == ETP_KIND_KERNEL;
            if (!cpu_row) continue;
            if (row->kind == ETP_KIND_OPERATOR_CALL) m->operator_calls += row->count;
            r->acc[k].part = -3; /* the cpu part, whose index is known below */
            cpu.partitions++;
            cpu.calls += row->count;
            cpu.total += tot;
            attributed += tot;
            const char *op = row->op ? row->op : row->name;
            uint32_t j = 0;
            while (j < nops && strcmp(ma->cpu_ops[j].op, op) != 0) j++;
            if (j == nops) ma->cpu_ops[nops++] = (etp_ops_cpu_op){.op = op};
            ma->cpu_ops[j].instructions++;
            ma->cpu_ops[j].calls += row->count;
            ma->cpu_ops[j].total += tot;
        }
        for (size_t k = 0; k < nrows; k++)
            if (ROW(r, k).method == mi && r->acc[k].part == -3) r->acc[k].part = (int32_t)np;
        ma->parts[np++] = cpu;
        ma->parts[np++] = (etp_ops_part){.place = ETP_PLACE_FRAMEWORK,
                                         .placement = "framework",
                                         .backend_row = -1,
                                         .calls = m->exec_row >= 0 ? ROW(r, m->exec_row).count : 0,
                                         .total = exec_total - attributed};
        double runs = m->runs ? (double)m->runs : NAN;
        for (uint32_t j = 0; j < np; j++) {
            etp_ops_part *p = &ma->parts[j];
            p->per_run = p->total / runs;
            p->share = exec_total > 0 ? p->total / exec_total * 100.0 : NAN;
        }
        for (uint32_t j = 0; j < nops; j++) {
            etp_ops_cpu_op *c = &ma->cpu_ops[j];
            c->per_run = c->total / runs;
            c->share = exec_total > 0 ? c->total / exec_total * 100.0 : NAN;
        }
        qsort(ma->cpu_ops, nops, sizeof *ma->cpu_ops, cmp_cpu_op);
        m->parts = ma->parts;
        m->n_parts = np;
        m->cpu_ops = ma->cpu_ops;
        m->n_cpu_ops = nops;
    }
    return ETP_OK;
}

static int finish_qnn(etp_ops_result *r, size_t nrows) {
    size_t nd = 0;
    for (size_t k = 0; k < nrows; k++) nd += ROW(r, k).kind == ETP_KIND_DELEGATE_CALL;
    r->qnn = calloc(nd ? nd : 1, sizeof *r->qnn);
    if (!r->qnn) return ETP_E_INTERNAL;
    for (size_t k = 0; k < nrows; k++) {
        const etp_ops_row *d = &ROW(r, k);
        if (d->kind != ETP_KIND_DELEGATE_CALL) continue;
        etp_ops_qnn q = {.method = d->method, .delegate_row = (uint32_t)k};
        for (int t = 0; t < ETP_QT_COUNT_; t++) q.top[t] = -1;
        bool any = strcmp(d->placement, "QnnBackend") == 0;
        for (size_t j = k + 1; j < nrows && ROW(r, j).depth > d->depth; j++) {
            const etp_ops_row *row = &ROW(r, j);
            if (row->qnn == ETP_QNN_TOP) {
                int t = etp_qnn_top_of(row->name);
                if (t >= 0 && q.top[t] < 0) q.top[t] = (int32_t)j;
                any = true;
            } else if (row->htp_node) {
                any = true;
                q.node_rows++;
                q.node_rows_named += row->qnn == ETP_QNN_NODE;
                q.node_rows_aten += row->op && strncmp(row->op, "aten_", 5) == 0;
                q.node_events += row->count;
            }
        }
        if (!any) continue;
        if (q.top[ETP_QT_ACCEL_CYCLES] >= 0) {
            const row_acc *a = &r->acc[q.top[ETP_QT_ACCEL_CYCLES]];
            if (a->childsum_any)
                for (uint32_t s = 0; s < a->pub.runs; s++) {
                    q.runs_checked++;
                    if (fabs(a->samples[s] - a->childsum[s]) > 0.5) q.runs_sum_mismatch++;
                }
        }
        r->qnn[r->nqnn++] = q;
    }
    return ETP_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Public
 * ------------------------------------------------------------------------------------------- */

void etp_ops_release_budget(etp_ops_result *r) {
    if (!r) return;
    etp__mem_give((uint64_t)r->rows_charged * ETP_MEM_PER_ROW);
    r->rows_charged = 0;
}

void etp_ops_free(etp_ops_result *r) {
    if (!r) return;
    etp__mem_give((uint64_t)r->rows_charged * ETP_MEM_PER_ROW);
    for (size_t i = 0; i < r->nacc; i++) {
        if (!r->acc[i].pooled) free(r->acc[i].samples);
        if (!r->acc[i].cs_pooled) free(r->acc[i].childsum);
        free(r->acc[i].srun);
    }
    for (size_t i = 0; i < r->nmethods; i++) {
        free(r->methods[i].parts);
        free(r->methods[i].cpu_ops);
        free(r->methods[i].hint);
        free(r->methods[i].run_block);
    }
    free(r->bgroups);
    while (r->arena) {
        arena_chunk *n = r->arena->next;
        free(r->arena);
        r->arena = n;
    }
    while (r->pool) {
        pool_chunk *n = r->pool->next;
        if (r->pool->bytes) munmap(r->pool, r->pool->bytes);
        else free(r->pool);
        r->pool = n;
    }
    free(r->acc);
    free(r->htab);
    free(r->methods);
    free(r->child_off);
    free(r->child_idx);
    free(r->qnn);
    free(r->row_of);
    free(r->tp);
    free(r->grp);
    free(r->kids);
    free(r->groups);
    free(r);
}

static etp_ops_result *result_new(void) {
    etp_ops_result *r = calloc(1, sizeof *r);
    if (r && !rehash(r, 1024)) {
        free(r);
        return NULL;
    }
    if (r) {
        r->mem_budget = etp__mem_budget();
        r->rows_block = r->rows_method = UINT32_MAX;
    }
    return r;
}

/* Blocks [lo, hi) of the dump into r, in order. `stop` (may be NULL): set by another thread
 * when the result is no longer wanted. */
static int run_blocks(etp_ops_result *r, etp_model *m, const etp_ops_opts *o, uint32_t lo,
                      uint32_t hi, uint32_t nblocks, const atomic_bool *stop, etp_error *err) {
    int rc = ETP_OK;
    for (uint32_t b = lo; b < hi && !rc; b++) {
        if (stop && atomic_load_explicit(stop, memory_order_relaxed)) return ETP_E_INTERNAL;
        etp_block_view v;
        rc = etp_model_block(m, b, &v, err);
        if (rc) break;
        if (add_block(r, o, &v, nblocks - b, etp__model_repeat_of(m))) {
            if (r->over_budget) {
                rc = ETP_E_INPUT;
                etp__model_budget_error(m, b, r->over_index, r->nacc + 1, r->mem_budget,
                                        r->mem_held, err);
            } else {
                rc = ETP_E_INTERNAL;
                etp_error_set(err, rc, NULL, -1, NULL, "out of memory");
            }
        }
        if (o->progress && !stop) o->progress(o->progress_ctx, b + 1, nblocks);
    }
    return rc;
}

/* ---- Two threads (docs/analyses.md "Two threads") ----
 * On a large dump the blocks are split in two: the caller's thread aggregates the first part,
 * a worker the second, each with its own model and rows, and the worker's rows are then merged
 * into the caller's as if its blocks had followed in one pass: rows new to the caller are
 * appended in the worker's order of first appearance (the one-thread order), samples and child
 * sums are appended run after run (each per-run sum is made within one block, so every value
 * is bit-identical), counts are added, and what a one-thread pass decides on first sight
 * (a row's parent, an OPERATOR_CALL's operator, a method's Method::execute row) is the caller's
 * when it has one. A failure of either part is not reported from it: the whole pass is made
 * again on one thread, so that errors (the memory budget's included: both parts charge it at
 * once) are the one-thread ones. When a pass takes two threads: pair_int.h (ETPROF_THREADS;
 * the tests compare one and two); --skip-first counts runs across the split and keeps one
 * thread. */

typedef struct ops_worker {
    etp_ops_result *r;
    etp_model *m;
    const etp_ops_opts *o;
    uint32_t lo, hi, nblocks;
    atomic_bool stop;
    int rc;
    etp_error err;
} ops_worker;

static void *ops_worker_main(void *arg) {
    ops_worker *w = arg;
    w->rc = run_blocks(w->r, w->m, w->o, w->lo, w->hi, w->nblocks, &w->stop, &w->err);
    etp__model_release_scratch(w->m);
    return NULL;
}

/* The chunks of w's arena and pool go to r (the strings and pooled arrays of w's rows stay
 * where they are). */
static void splice_chunks(etp_ops_result *r, etp_ops_result *w) {
    arena_chunk **a = &r->arena;
    while (*a) a = &(*a)->next;
    *a = w->arena;
    w->arena = NULL;
    pool_chunk **p = &r->pool;
    while (*p) p = &(*p)->next;
    *p = w->pool;
    w->pool = NULL;
}

/* Sample k of row a: its method run (0-based), as note_sample_run() keeps it. */
static uint32_t srun_of(const row_acc *a, uint32_t k) { return a->srun ? a->srun[k] : k; }

/* Appends the runs of w-row b (method runs offset by `roff`) to r-row a: in place when a has
 * room (a row of the first run of its method has room for every block after it). */
static int merge_samples(row_acc *a, const row_acc *b, uint32_t roff) {
    uint32_t na = a->pub.runs, nb = b->pub.runs, n = na + nb;
    if (!nb) return ETP_OK;
    if (n > a->cap) {
        double *s = malloc((size_t)n * sizeof *s);
        double *c = a->childsum ? malloc((size_t)n * sizeof *c) : NULL;
        uint32_t *sr = a->srun ? malloc((size_t)n * sizeof *sr) : NULL;
        if (!s || (a->childsum && !c) || (a->srun && !sr)) {
            free(s);
            free(c);
            free(sr);
            return ETP_E_INTERNAL;
        }
        if (na) memcpy(s, a->samples, na * sizeof *s);
        if (c && na) memcpy(c, a->childsum, na * sizeof *c);
        if (sr && na) memcpy(sr, a->srun, na * sizeof *sr);
        if (!a->pooled) free(a->samples);
        if (a->childsum && !a->cs_pooled) free(a->childsum);
        free(a->srun);
        a->samples = s;
        a->childsum = c;
        a->srun = sr;
        a->srun_cap = sr ? n : 0;
        a->pooled = a->cs_pooled = false;
        a->cap = n;
    }
    memcpy(a->samples + na, b->samples, nb * sizeof *a->samples);
    if (b->childsum && !a->childsum) {
        if (!(a->childsum = calloc(a->cap, sizeof *a->childsum))) return ETP_E_INTERNAL;
        a->cs_pooled = false;
    }
    if (a->childsum) {
        if (b->childsum) memcpy(a->childsum + na, b->childsum, nb * sizeof *a->childsum);
        else memset(a->childsum + na, 0, nb * sizeof *a->childsum);
    }
    bool ident = !a->srun;
    for (uint32_t k = 0; k < nb && ident; k++) ident = srun_of(b, k) + roff == na + k;
    if (!ident) {
        if (!a->srun || a->srun_cap < a->cap) {
            uint32_t *sr = realloc(a->srun, (size_t)a->cap * sizeof *sr);
            if (!sr) return ETP_E_INTERNAL;
            if (!a->srun)
                for (uint32_t k = 0; k < na; k++) sr[k] = k;
            a->srun = sr;
            a->srun_cap = a->cap;
        }
        for (uint32_t k = 0; k < nb; k++) a->srun[na + k] = srun_of(b, k) + roff;
    }
    a->pub.runs = n;
    a->childsum_any = a->childsum_any || b->childsum_any;
    return ETP_OK;
}

/* Merges w (the blocks after r's) into r; w is freed. */
static int merge_result(etp_ops_result *r, etp_ops_result *w) {
    int rc = ETP_E_INTERNAL;
    uint32_t *mmap_ = malloc((w->nmethods ? w->nmethods : 1) * sizeof *mmap_);
    uint32_t *moff = malloc((w->nmethods ? w->nmethods : 1) * sizeof *moff);
    int32_t *rowmap = malloc((w->nacc ? w->nacc : 1) * sizeof *rowmap);
    bool *fresh = calloc(w->nacc ? w->nacc : 1, sizeof *fresh);
    if (!mmap_ || !moff || !rowmap || !fresh) goto out;
    splice_chunks(r, w);
    for (size_t g = 0; g < w->nbgroups; g++) {
        const etp_ops_block_group *x = &w->bgroups[g];
        size_t i = 0;
        while (i < r->nbgroups &&
               !(r->bgroups[i].kept == x->kept && r->bgroups[i].by_events == x->by_events &&
                 strcmp(r->bgroups[i].reason, x->reason) == 0 && strcmp(r->bgroups[i].name, x->name) == 0))
            i++;
        if (i < r->nbgroups) {
            r->bgroups[i].blocks += x->blocks;
            r->bgroups[i].events += x->events;
            continue;
        }
        if (r->nbgroups == r->bgroups_cap) {
            size_t cap = r->bgroups_cap ? r->bgroups_cap * 2 : 4;
            etp_ops_block_group *n = realloc(r->bgroups, cap * sizeof *n);
            if (!n) goto out;
            r->bgroups = n;
            r->bgroups_cap = cap;
        }
        r->bgroups[r->nbgroups++] = *x;
    }
    for (size_t i = 0; i < w->nmethods; i++) {
        const method_acc *x = &w->methods[i];
        int32_t mi = method_find(r, x->name, x->pub.n_candidates, x->pub.candidate_names);
        if (mi < 0) goto out;
        mmap_[i] = (uint32_t)mi;
        moff[i] = r->methods[mi].runs;
    }
    uint32_t run_off = r->runs_kept;
    for (size_t j = 0; j < w->nacc; j++) {
        row_acc *b = &w->acc[j];
        uint32_t mi = mmap_[b->pub.method];
        const char *label = b->pub.name;
        uint64_t h = row_hash(mi, b->pub.chain, b->pub.instr, b->pub.kind, label, b->escaped,
                              b->pub.event_name, b->pub.unit);
        if (r->nacc + 1 > r->hcap / 2 && !rehash(r, r->hcap * 2)) goto out;
        size_t slot = (size_t)h & (r->hcap - 1);
        int32_t ri = -1;
        for (; r->htab[slot]; slot = (slot + 1) & (r->hcap - 1)) {
            row_acc *a = &r->acc[r->htab[slot] - 1];
            const char *x = a->pub.event_name, *y = b->pub.event_name;
            if (a->hash == h && a->pub.method == mi && a->pub.chain == b->pub.chain &&
                a->pub.instr == b->pub.instr && a->pub.kind == b->pub.kind &&
                a->escaped == b->escaped && a->pub.unit == b->pub.unit &&
                strcmp(a->pub.name, label) == 0 && (x == y || (x && y && strcmp(x, y) == 0))) {
                ri = (int32_t)(r->htab[slot] - 1);
                break;
            }
        }
        if (ri < 0) { /* new to r: w's row, moved */
            if (r->nacc == r->acc_cap) {
                size_t cap = r->acc_cap ? r->acc_cap * 2 : 256;
                row_acc *n = realloc(r->acc, cap * sizeof *n);
                if (!n) goto out;
                r->acc = n;
                r->acc_cap = cap;
            }
            ri = (int32_t)r->nacc++;
            row_acc *a = &r->acc[ri];
            *a = *b;
            a->hash = h;
            a->pub.method = mi;
            a->first_seen = b->first_seen + ((uint64_t)run_off << 32);
            if (b->srun || moff[b->pub.method]) {
                uint32_t *sr = malloc((size_t)(b->cap ? b->cap : 1) * sizeof *sr);
                if (!sr) {
                    r->nacc--;
                    goto out;
                }
                for (uint32_t k = 0; k < b->pub.runs; k++) sr[k] = srun_of(b, k) + moff[b->pub.method];
                free(b->srun);
                a->srun = sr;
                a->srun_cap = b->cap;
            }
            b->samples = b->childsum = NULL;
            b->srun = NULL;
            b->pooled = b->cs_pooled = true; /* nothing of it to free in w any more */
            r->htab[slot] = (uint32_t)ri + 1;
            fresh[j] = true;
        } else {
            row_acc *a = &r->acc[ri];
            if (merge_samples(a, b, moff[b->pub.method])) goto out;
            etp_ops_row *p = &a->pub;
            const etp_ops_row *q = &b->pub;
            p->count += q->count;
            p->flags |= q->flags;
            p->bad_time_count += q->bad_time_count;
            p->wrapped_count += q->wrapped_count;
            if (q->nest_over_count &&
                (!p->nest_over_count || q->nest_over_max_ratio > p->nest_over_max_ratio))
                p->nest_over_max_ratio = q->nest_over_max_ratio;
            p->nest_over_count += q->nest_over_count;
            p->nest_over_backend = p->nest_over_backend || q->nest_over_backend;
            p->parent_varies = p->parent_varies || q->parent_varies;
            if (!p->op && q->op && b->op_from_child) {
                p->op = q->op;
                a->op_from_child = true;
            }
        }
        rowmap[j] = ri;
    }
    /* links, now that every w row has its r row */
    for (size_t j = 0; j < w->nacc; j++) {
        row_acc *a = &r->acc[rowmap[j]];
        int32_t wp = w->acc[j].parent;
        int32_t np = wp >= 0 ? rowmap[wp] : wp;
        if (fresh[j]) a->parent = np;
        else if (a->parent == -2 && np >= 0) a->parent = np;
        else if (np >= 0 && a->parent >= 0 && a->parent != np) a->pub.parent_varies = true;
    }
    for (size_t i = 0; i < w->nmethods; i++) {
        method_acc *x = &w->methods[i], *y = &r->methods[mmap_[i]];
        y->seen += x->seen;
        y->skipped += x->skipped;
        if (y->exec_row < 0 && x->exec_row >= 0) y->exec_row = rowmap[x->exec_row];
        if (x->runs) {
            uint32_t n = y->runs + x->runs;
            if (n > y->rb_cap) {
                uint32_t *rb = realloc(y->run_block, n * sizeof *rb);
                if (!rb) goto out;
                y->run_block = rb;
                y->rb_cap = n;
            }
            memcpy(y->run_block + y->runs, x->run_block, x->runs * sizeof *y->run_block);
            y->runs = n;
        }
    }
    r->blocks_read += w->blocks_read;
    r->runs_kept += w->runs_kept;
    /* the memory charged for rows: what one pass would hold (row_find) */
    size_t want = (r->nacc + ETP_MEM_ROW_CHUNK - 1) / ETP_MEM_ROW_CHUNK * ETP_MEM_ROW_CHUNK;
    size_t held = r->rows_charged + w->rows_charged;
    if (held > want) etp__mem_give((uint64_t)(held - want) * ETP_MEM_PER_ROW);
    r->rows_charged = held > want ? want : held;
    w->rows_charged = 0;
    rc = ETP_OK;
out:
    free(mmap_);
    free(moff);
    free(rowmap);
    free(fresh);
    etp_ops_free(w);
    return rc;
}

/* The pass over the blocks, on two threads when that pays (see above): ETP_OK with r filled,
 * else the one-thread pass's error. */
static int ops_pass(etp_ops_result **rp, etp_model *m, const etp_ops_opts *o, etp_error *err) {
    etp_ops_result *r = *rp;
    uint32_t nb = etp_dump_get_info(etp_model_dump(m))->block_count;
    /* --skip-first counts runs across the split */
    if (!etp__pair_wanted(m, nb, !o->skip_first)) return run_blocks(r, m, o, 0, nb, nb, NULL, err);
    etp__pair p;
    ops_worker w = {.o = o, .hi = nb, .nblocks = nb};
    atomic_init(&w.stop, false);
    bool started = false;
    if ((w.r = result_new()) && etp__pair_open(&p, m, nb, 32)) {
        w.m = p.wm;
        w.lo = p.lo;
        started = etp__pair_run(&p, ops_worker_main, &w);
    }
    if (!started) {
        etp_ops_free(w.r);
        etp__pair_release();
        return run_blocks(r, m, o, 0, nb, nb, NULL, err);
    }
    int rc = run_blocks(r, m, o, 0, w.lo, nb, NULL, err);
    if (rc) atomic_store(&w.stop, true);
    etp__pair_join(&p);
    bool merge = etp__pair_finish(&p, m, !rc && !w.rc);
    etp__pair_release();
    if (merge) {
        rc = merge_result(r, w.r);
        if (o->progress) o->progress(o->progress_ctx, nb, nb);
        return rc;
    }
    etp_ops_free(w.r);
    /* A failure of either part: the one-thread pass decides (the first part may have failed
     * only because the worker held part of the memory budget at the same time). */
    if (err) memset(err, 0, sizeof *err);
    etp__model_release_scratch(m);
    etp_ops_free(r);
    if (!(*rp = r = result_new())) {
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    return run_blocks(r, m, o, 0, nb, nb, NULL, err);
}

const etp_dump *etp__ops_dump(const etp_ops_result *r) { return r->dump; }
const char *etp__ops_dump_name(const etp_ops_result *r) { return r->dump_name; }

int etp_ops_compute(etp_model *m, const etp_ops_opts *opts, etp_ops_result **out, etp_error *err) {
    *out = NULL;
    etp_ops_opts o;
    if (opts) o = *opts;
    else etp_ops_opts_init(&o);
    etp_ops_result *r = result_new();
    if (!r) {
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    /* per event, the pass keeps only its scratch (row_of, tp, grp, kids, the method's hint: 20
     * bytes); the rows are charged by row_find */
    etp__model_set_event_charge(m, 32);
    int rc = ops_pass(&r, m, &o, err);
    /* the rows hold copies of what they need: the largest block's events can go before the
     * rows are built (docs/verifier.md, "Memory") */
    etp__model_release_scratch(m);
    etp__model_set_event_charge(m, ETP_MEM_PER_EVENT);
    if (!rc && finish_stats(r)) rc = ETP_E_INTERNAL;
    if (!rc && finish_tree(r)) rc = ETP_E_INTERNAL;
    if (!rc) etp_qnn_program_soc(etp_model_program(m), NULL, &r->soc);
    if (!rc) {
        r->dump = etp_model_dump(m);
        const char *dn = etp__model_dump_name(m);
        r->dump_name = dn ? arena_strn(r, dn, strlen(dn)) : NULL;
    }
    size_t nrows = r->nacc;
    if (!rc) {
        finish_shares(r, nrows);
        if (finish_units(r, nrows) || finish_methods(r, nrows) || finish_qnn(r, nrows))
            rc = ETP_E_INTERNAL;
    }
    if (rc) {
        if (rc == ETP_E_INTERNAL && err && !err->code)
            etp_error_set(err, rc, NULL, -1, NULL, "out of memory");
        etp_ops_free(r);
        return rc;
    }
    free(r->row_of);
    free(r->tp);
    free(r->grp);
    free(r->kids);
    free(r->groups);
    r->row_of = r->tp = r->grp = NULL;
    r->kids = NULL;
    r->groups = NULL;
    const char *first = NULL;
    r->mismatch_blocks = etp_model_mismatch(m, &first);
    if (r->mismatch_blocks && first && !(r->mismatch_first = arena_strn(r, first, strlen(first)))) {
        etp_ops_free(r);
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    r->conflict_blocks = etp_model_method_conflict(m, &first);
    if (r->conflict_blocks && first && !(r->conflict_first = arena_strn(r, first, strlen(first)))) {
        etp_ops_free(r);
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    *out = r;
    return ETP_OK;
}

uint32_t etp_ops_method_conflict(const etp_ops_result *r, const char **first) {
    if (first) *first = r->conflict_first ? r->conflict_first : "";
    return r->conflict_blocks;
}

const etp_qnn_soc *etp__ops_qnn_soc(const etp_ops_result *r) { return r ? &r->soc : NULL; }

uint32_t etp_ops_program_mismatch(const etp_ops_result *r, const char **first) {
    if (first) *first = r->mismatch_first ? r->mismatch_first : "";
    return r->mismatch_blocks;
}

size_t etp_ops_row_count(const etp_ops_result *r) { return r->nacc; }

const etp_ops_row *etp_ops_row_get(const etp_ops_result *r, size_t i) {
    return i < r->nacc && r->rows_ready ? &r->acc[i].pub : NULL;
}

const uint32_t *etp_ops_children(const etp_ops_result *r, size_t i, size_t *n) {
    size_t s = i == SIZE_MAX || i >= r->nacc ? r->nacc : i;
    *n = r->child_off[s + 1] - r->child_off[s];
    return r->child_idx + r->child_off[s];
}

size_t etp_ops_method_count(const etp_ops_result *r) { return r->nmethods; }

const etp_ops_method *etp_ops_method_get(const etp_ops_result *r, size_t i) {
    return i < r->nmethods ? &r->methods[i].pub : NULL;
}

size_t etp_ops_qnn_count(const etp_ops_result *r) { return r->nqnn; }

const etp_ops_qnn *etp_ops_qnn_get(const etp_ops_result *r, size_t i) {
    return i < r->nqnn ? &r->qnn[i] : NULL;
}

uint32_t etp_ops_blocks_read(const etp_ops_result *r) { return r->blocks_read; }
uint32_t etp_ops_runs_kept(const etp_ops_result *r) { return r->runs_kept; }

/* ---------------------------------------------------------------------------------------------
 * Selection
 * ------------------------------------------------------------------------------------------- */

typedef struct sel_key {
    uint32_t idx;
    int cls;
    double num;
    const char *str;
} sel_key;

static int unit_class(etp_unit u) {
    switch (u) {
    case ETP_UNIT_NS: return 0;
    case ETP_UNIT_TICKS: return 1;
    case ETP_UNIT_CYCLES: return 2;
    case ETP_UNIT_COUNT: return 3;
    case ETP_UNIT_BYTES: return 4;
    case ETP_UNIT_RAW: return 5;
    default: return 6;
    }
}

static int cmp_num_desc(const void *x, const void *y) {
    const sel_key *a = x, *b = y;
    if (a->cls != b->cls) return a->cls < b->cls ? -1 : 1;
    bool na = isnan(a->num), nb = isnan(b->num);
    if (na != nb) return na ? 1 : -1;
    if (!na && a->num != b->num) return a->num > b->num ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int cmp_num_asc(const void *x, const void *y) {
    const sel_key *a = x, *b = y;
    if (a->num != b->num) return a->num < b->num ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int cmp_str(const void *x, const void *y) {
    const sel_key *a = x, *b = y;
    if (!a->str != !b->str) return a->str ? -1 : 1; /* absent last */
    int c = a->str ? strcmp(a->str, b->str) : 0;
    if (c) return c;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int etp_ops_select(const etp_ops_result *r, const etp_ops_filter *f, uint32_t *idx, size_t *n,
                   etp_error *err) {
    etp_ops_filter d;
    if (!f) {
        etp_ops_filter_init(&d);
        f = &d;
    }
    etp_kind want = ETP_KIND_NONE;
    bool want_htp = false, want_op = false;
    if (f->kind) {
        if (strcmp(f->kind, "htp_node") == 0) want_htp = true;
        else if (strcmp(f->kind, "operator") == 0) want_op = true;
        else if ((want = etp_kind_parse(f->kind)) == ETP_KIND_NONE) {
            etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL,
                          "unknown kind \"%s\" (framework, operator_call, kernel, delegate_call, "
                          "delegate_internal, htp_node, operator, instruction, other)",
                          f->kind);
            return ETP_E_USAGE;
        }
    }
    enum { S_ORDER, S_NUM, S_NUM_ASC, S_STR } how = S_ORDER;
    const char *key = f->sort && *f->sort ? f->sort : "order";
    static const char *const num_keys[] = {"min", "p10", "p50", "p90", "avg", "max", "total"};
    bool known = strcmp(key, "order") == 0;
    for (size_t i = 0; i < sizeof num_keys / sizeof num_keys[0]; i++)
        if (strcmp(key, num_keys[i]) == 0) known = true, how = S_NUM;
    if (!strcmp(key, "share") || !strcmp(key, "count")) known = true, how = S_NUM;
    if (!strcmp(key, "instruction_id")) known = true, how = S_NUM_ASC;
    if (!strcmp(key, "method") || !strcmp(key, "name") || !strcmp(key, "unit") ||
        !strcmp(key, "placement") || !strcmp(key, "kind") || !strcmp(key, "operator"))
        known = true, how = S_STR;
    if (!known) {
        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL,
                      "unknown sort key \"%s\" (order, method, instruction_id, name, count, min, "
                      "p10, p50, p90, avg, max, total, share, unit, placement, kind, operator)",
                      key);
        return ETP_E_USAGE;
    }
    size_t m = 0;
    sel_key *keys = malloc((r->nacc ? r->nacc : 1) * sizeof *keys);
    /* the operator rows (etp_ops_top): a method's CPU rows are its kernels when it has any */
    bool *kernels = want_op ? calloc(r->nmethods ? r->nmethods : 1, sizeof *kernels) : NULL;
    if (!keys || (want_op && !kernels)) {
        free(keys);
        free(kernels);
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    for (size_t i = 0; want_op && i < r->nacc; i++)
        if (ROW(r, i).kind == ETP_KIND_KERNEL) kernels[ROW(r, i).method] = true;
    for (size_t i = 0; i < r->nacc; i++) {
        const etp_ops_row *row = &ROW(r, i);
        if (f->method >= 0 && row->method != (uint32_t)f->method) continue;
        if (f->placement && strcasecmp(f->placement, row->placement) != 0) continue;
        if (want_htp && !row->htp_node) continue;
        if (want != ETP_KIND_NONE && row->kind != want) continue;
        if (want_op) {
            bool op = row->kind == ETP_KIND_DELEGATE_CALL ||
                      row->kind == (kernels[row->method] ? ETP_KIND_KERNEL : ETP_KIND_OPERATOR_CALL);
            if (!op || !is_time_unit(row->unit) || isnan(row->stats.total)) continue;
        } else if (row->kind == ETP_KIND_OPERATOR_CALL && !f->all && want != ETP_KIND_OPERATOR_CALL) {
            continue;
        }
        sel_key k = {.idx = (uint32_t)i, .cls = unit_class(row->unit), .num = NAN};
        if (how == S_NUM) {
            if (!strcmp(key, "count")) k.num = (double)row->count, k.cls = 0;
            else if (!strcmp(key, "share")) k.num = row->share;
            else etp_stats_pick(&row->stats, key, &k.num);
        } else if (how == S_NUM_ASC) {
            k.num = (double)row->instr;
        } else if (how == S_STR) {
            if (!strcmp(key, "method")) k.str = r->methods[row->method].name;
            else if (!strcmp(key, "name")) k.str = row->name;
            else if (!strcmp(key, "unit")) k.str = etp_unit_name(row->unit);
            else if (!strcmp(key, "placement")) k.str = row->placement;
            else if (!strcmp(key, "kind")) k.str = etp_ops_row_kind_name(row);
            else k.str = row->op;
        }
        keys[m++] = k;
    }
    if (how == S_NUM) qsort(keys, m, sizeof *keys, cmp_num_desc);
    else if (how == S_NUM_ASC) qsort(keys, m, sizeof *keys, cmp_num_asc);
    else if (how == S_STR) qsort(keys, m, sizeof *keys, cmp_str);
    if (f->top && m > f->top) m = f->top;
    for (size_t i = 0; i < m; i++) idx[i] = keys[i].idx;
    *n = m;
    free(keys);
    free(kernels);
    return ETP_OK;
}

int etp_ops_children_stats(const etp_ops_result *r, size_t i, etp_stats *out) {
    etp_stats_compute(NULL, 0, out);
    if (i >= r->nacc) return ETP_E_USAGE;
    const row_acc *a = &r->acc[i];
    uint32_t n = a->pub.runs;
    double *tmp = n ? malloc(n * sizeof *tmp) : NULL;
    if (n && !tmp) return ETP_E_INTERNAL;
    for (uint32_t k = 0; k < n; k++) tmp[k] = a->childsum_any ? a->childsum[k] : 0;
    etp_stats_compute(tmp, n, out);
    free(tmp);
    return ETP_OK;
}

const char *etp_profiling_level_name(etp_profiling_level l) {
    switch (l) {
    case ETP_PL_FULL: return "full";
    case ETP_PL_METHOD_ONLY: return "method_only";
    case ETP_PL_NONE: return "none";
    }
    return "none";
}

/* ---- ops_int.h ---- */

uint32_t etp__ops_sample_run(const etp_ops_result *r, size_t i, uint32_t k) {
    const row_acc *a = &r->acc[i];
    return a->srun ? a->srun[k] : k;
}

double etp__ops_sample_child(const etp_ops_result *r, size_t i, uint32_t k) {
    const row_acc *a = &r->acc[i];
    return a->childsum_any ? a->childsum[k] : 0;
}

int32_t etp__ops_row_part(const etp_ops_result *r, size_t i) { return r->acc[i].part; }

const uint32_t *etp__ops_run_blocks(const etp_ops_result *r, size_t m) {
    return r->methods[m].run_block;
}

/* etprof_fleet.h: the per-run sums of the row's children of the same unit (its exclusive time
 * per run is samples[k] minus this), NULL when the row has none */
const double *etp_ops_row_child_sums(const etp_ops_result *r, size_t i) {
    if (!r || i >= r->nacc || !r->rows_ready || !r->acc[i].childsum_any) return NULL;
    return r->acc[i].childsum;
}
