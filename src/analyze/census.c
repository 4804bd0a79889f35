/* census.c - what a dump holds, block by block: events by type and kind, the method of each
 * block, the runs of each method and the delegate calls of each backend (etprof info).
 *
 * One pass of etp_model_block(). On a large dump the blocks are split in two (pair_int.h): each
 * part counts into its own tables and the worker's are added after the caller's in its order of
 * first appearance, which is what one pass in order gives. */
#include "etprof.h"
#include "model_int.h"
#include "pair_int.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct count_tab {
    etp_census_count *v;
    uint32_t n, cap;
} count_tab;

/* One part's counts (the whole pass's on one thread). */
typedef struct census_part {
    uint64_t kinds[ETP_KIND_COUNT_];
    count_tab methods, backends;
} census_part;

struct etp_census {
    etp_census_block *blocks;
    uint32_t nblocks;
    bool *owns_name; /* blocks[i].info.name is its own copy (else shared with the block before) */
    census_part all;
    uint64_t charged; /* of the memory budget (ETP_MEM_PER_BLOCK a block), until freed */
};

static void tab_free(count_tab *t) {
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* n more of `name` (a program string: names are compared by content). false: out of memory. */
static bool tab_add(count_tab *t, const char *name, uint64_t n) {
    for (uint32_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i].name, name) == 0) {
            t->v[i].n += n;
            return true;
        }
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 8;
        etp_census_count *v = realloc(t->v, cap * sizeof *v);
        if (!v) return false;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = (etp_census_count){name, n};
    return true;
}

/* The block's name, kept: the pass over a large file gives the file's pages back as it goes,
 * and mapping a page again per block for the output would cost more than the copy. A block
 * named like the one before it in the same part (usually "Execute") shares its copy. */
static bool keep_name(etp_census *c, uint32_t b, uint32_t part_lo) {
    etp_str *n = &c->blocks[b].info.name;
    if (!n->ptr) return true;
    if (b > part_lo) {
        const etp_str *p = &c->blocks[b - 1].info.name;
        if (p->ptr && p->len == n->len && memcmp(p->ptr, n->ptr, n->len) == 0) {
            n->ptr = p->ptr;
            return true;
        }
    }
    char *copy = malloc((size_t)n->len + 1);
    if (!copy) return false;
    memcpy(copy, n->ptr, n->len);
    copy[n->len] = 0;
    n->ptr = copy;
    c->owns_name[b] = true;
    return true;
}

static void free_names(etp_census *c, uint32_t lo, uint32_t hi) {
    for (uint32_t b = lo; b < hi; b++)
        if (c->owns_name[b]) {
            free((char *)c->blocks[b].info.name.ptr);
            c->owns_name[b] = false;
        }
}

typedef struct census_run {
    etp_census *c;
    etp_model *m;
    census_part *part;
    uint32_t lo, hi;
    const etp_census_opts *o; /* progress: the caller's part only */
    atomic_bool stop;
    int rc;
    etp_error err;
} census_run;

static int run_blocks(census_run *w) {
    etp_census *c = w->c;
    for (uint32_t b = w->lo; b < w->hi; b++) {
        if (atomic_load_explicit(&w->stop, memory_order_relaxed)) return ETP_E_INTERNAL;
        etp_block_view v;
        int rc = etp_model_block(w->m, b, &v, &w->err);
        if (rc) return rc;
        etp_census_block *cb = &c->blocks[b];
        cb->info = v.info;
        if (!keep_name(c, b, w->lo)) goto oom;
        cb->is_execute = v.is_execute;
        cb->plan = v.plan;
        cb->method = v.method;
        cb->candidates = v.candidates;
        cb->basis = v.method_basis;
        cb->n_candidate_names =
            v.n_candidate_names < ETP_CENSUS_CAND_MAX ? v.n_candidate_names : ETP_CENSUS_CAND_MAX;
        for (uint32_t k = 0; k < cb->n_candidate_names; k++)
            cb->candidate_names[k] = v.candidate_names[k];
        if (v.is_execute && v.method && !tab_add(&w->part->methods, v.method, 1)) goto oom;
        uint64_t *kinds = w->part->kinds;
        for (uint32_t i = 0; i < v.n; i++) {
            const etp_mevent *e = &v.events[i];
            cb->by_type[e->ev.type & 3]++;
            kinds[e->kind]++;
            if (e->kind == ETP_KIND_DELEGATE_CALL && e->backend &&
                !tab_add(&w->part->backends, e->backend, 1))
                goto oom;
        }
        if (w->o && w->o->progress) w->o->progress(w->o->progress_ctx, b + 1, c->nblocks);
    }
    return ETP_OK;
oom:
    etp_error_set(&w->err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
    return ETP_E_INTERNAL;
}

static void *census_worker_main(void *arg) {
    census_run *w = arg;
    w->rc = run_blocks(w);
    etp__model_release_scratch(w->m);
    return NULL;
}

/* Adds part q's counts after those of p. */
static bool part_merge(census_part *p, const census_part *q) {
    for (int k = 0; k < ETP_KIND_COUNT_; k++) p->kinds[k] += q->kinds[k];
    for (uint32_t i = 0; i < q->methods.n; i++)
        if (!tab_add(&p->methods, q->methods.v[i].name, q->methods.v[i].n)) return false;
    for (uint32_t i = 0; i < q->backends.n; i++)
        if (!tab_add(&p->backends, q->backends.v[i].name, q->backends.v[i].n)) return false;
    return true;
}

static void part_clear(census_part *p) {
    tab_free(&p->methods);
    tab_free(&p->backends);
    memset(p, 0, sizeof *p);
}

/* Blocks [0, nb) on this thread into c (from scratch). */
static int one_pass(etp_census *c, etp_model *m, const etp_census_opts *o, etp_error *err) {
    census_run w = {.c = c, .m = m, .part = &c->all, .lo = 0, .hi = c->nblocks, .o = o};
    atomic_init(&w.stop, false);
    int rc = run_blocks(&w);
    if (rc && err) *err = w.err;
    return rc;
}

/* The pass, on two threads when that pays: ETP_OK with c filled, else the one-thread error. */
static int census_pass(etp_census *c, etp_model *m, const etp_census_opts *o, etp_error *err) {
    uint32_t nb = c->nblocks;
    if (!etp__pair_wanted(m, nb, true)) return one_pass(c, m, o, err);
    etp__pair p;
    census_part wpart = {0};
    census_run w = {.c = c, .part = &wpart, .hi = nb};
    atomic_init(&w.stop, false);
    bool started = false;
    if (etp__pair_open(&p, m, nb, 0)) {
        w.m = p.wm;
        w.lo = p.lo;
        started = etp__pair_run(&p, census_worker_main, &w);
    }
    if (!started) {
        etp__pair_release();
        return one_pass(c, m, o, err);
    }
    census_run f = {.c = c, .m = m, .part = &c->all, .lo = 0, .hi = p.lo, .o = o};
    atomic_init(&f.stop, false);
    int rc = run_blocks(&f);
    if (rc) atomic_store(&w.stop, true);
    etp__pair_join(&p);
    bool merge = etp__pair_finish(&p, m, !rc && !w.rc);
    etp__pair_release();
    if (merge) {
        bool ok = part_merge(&c->all, &wpart);
        part_clear(&wpart);
        if (!ok) {
            etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
            return ETP_E_INTERNAL;
        }
        if (o && o->progress) o->progress(o->progress_ctx, nb, nb);
        return ETP_OK;
    }
    /* A failure of either part: the one-thread pass decides (its error is the one-thread one,
     * the memory budget's included). */
    part_clear(&wpart);
    part_clear(&c->all);
    free_names(c, 0, nb);
    memset(c->blocks, 0, (size_t)nb * sizeof *c->blocks);
    etp__model_release_scratch(m);
    return one_pass(c, m, o, err);
}

int etp_census_compute(etp_model *m, const etp_census_opts *opts, etp_census **out,
                       etp_error *err) {
    *out = NULL;
    uint32_t nb = etp_dump_get_info(etp_model_dump(m))->block_count;
    /* a record per block (and info's JSON entry for it): the budget first (model_int.h) */
    int brc = etp__budget_blocks(etp_model_dump(m), etp__model_dump_name(m), nb,
                                 ETP_MEM_PER_BLOCK, "blocks (runs) listed one by one", NULL, NULL,
                                 err);
    if (brc) return brc;
    etp_census *c = calloc(1, sizeof *c);
    if (c) {
        c->nblocks = nb;
        c->blocks = calloc(nb ? nb : 1, sizeof *c->blocks);
        c->owns_name = calloc(nb ? nb : 1, sizeof *c->owns_name);
    }
    if (c) c->charged = (uint64_t)nb * ETP_MEM_PER_BLOCK;
    else etp__mem_give((uint64_t)nb * ETP_MEM_PER_BLOCK);
    if (!c || !c->blocks || !c->owns_name) {
        etp_census_free(c);
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    int rc = census_pass(c, m, opts, err);
    if (rc) {
        etp_census_free(c);
        return rc;
    }
    *out = c;
    return ETP_OK;
}

void etp_census_free(etp_census *c) {
    if (!c) return;
    etp__mem_give(c->charged);
    if (c->blocks && c->owns_name) free_names(c, 0, c->nblocks);
    part_clear(&c->all);
    free(c->blocks);
    free(c->owns_name);
    free(c);
}

const etp_census_block *etp_census_blocks(const etp_census *c, uint32_t *n) {
    *n = c->nblocks;
    return c->blocks;
}

const uint64_t *etp_census_kinds(const etp_census *c) { return c->all.kinds; }

const etp_census_count *etp_census_methods(const etp_census *c, uint32_t *n) {
    *n = c->all.methods.n;
    return c->all.methods.v;
}

const etp_census_count *etp_census_backends(const etp_census *c, uint32_t *n) {
    *n = c->all.backends.n;
    return c->all.backends.v;
}
