/* modules.c - time per nn.Module (include/etprof_modules.h): the exclusive values of the ops
 * rows attributed, through the one ETRecord join (etrecord_join.c), to the module tree of the
 * edge program's nn_module_stack. */
#include "etprof_modules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mnode {
    uint32_t dom;
    int32_t parent;
    uint32_t depth;
    char *path, *cls;
    double incl, excl;
    uint64_t cnt, cnt_ex;
} mnode;

typedef struct dom_acc {
    etp_modules_domain pub;
    double nomod;
    uint64_t nomod_cnt;
} dom_acc;

struct etp_modules {
    etp_module_row *rows;
    size_t nrows;
    etp_modules_domain *doms;
    size_t ndoms;
    etp_modules_joins joins;
    char **strs; /* owned strings of the rows */
    size_t nstrs;
};

/* what a row was attributed to: a stack prefix of the record's nodes (or none) */
typedef struct attr {
    const etp_etr_module *stack;
    uint32_t len;
} attr;

const char *etp_mod_domain_name(etp_mod_domain d) {
    return d == ETP_MOD_HTP ? "htp_cycles" : "time";
}

static void set_err(etp_error *err, int code, const char *msg) {
    if (!err) return;
    memset(err, 0, sizeof *err);
    err->code = code;
    err->offset = -1;
    size_t n = strlen(msg);
    if (n >= sizeof err->msg) n = sizeof err->msg - 1;
    memcpy(err->msg, msg, n);
    err->msg[n] = 0;
}

static char *dup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

typedef struct build {
    mnode *nodes;
    size_t n, cap;
    dom_acc *doms;
    size_t nd, capd;
} build;

static int dom_of(build *b, uint32_t method, etp_mod_domain d, etp_unit u, uint32_t runs) {
    for (size_t i = 0; i < b->nd; i++)
        if (b->doms[i].pub.method == method && b->doms[i].pub.domain == d &&
            b->doms[i].pub.unit == u)
            return (int)i;
    if (b->nd == b->capd) {
        size_t nc = b->capd ? b->capd * 2 : 4;
        dom_acc *p = realloc(b->doms, nc * sizeof *p);
        if (!p) return -1;
        b->doms = p;
        b->capd = nc;
    }
    memset(&b->doms[b->nd], 0, sizeof b->doms[b->nd]);
    b->doms[b->nd].pub.method = method;
    b->doms[b->nd].pub.domain = d;
    b->doms[b->nd].pub.unit = u;
    b->doms[b->nd].pub.runs = runs;
    return (int)b->nd++;
}

/* The tree node of stack prefix `a` in domain `dom`, created with its ancestors when new;
 * -1 when out of memory. */
static long node_of(build *b, uint32_t dom, attr a) {
    long cur = -1;
    for (uint32_t k = 0; k < a.len; k++) {
        long found = -1;
        for (size_t i = 0; i < b->n && found < 0; i++)
            if (b->nodes[i].dom == dom && b->nodes[i].parent == cur &&
                strcmp(b->nodes[i].path, a.stack[k].fqn) == 0 &&
                strcmp(b->nodes[i].cls, a.stack[k].type) == 0)
                found = (long)i;
        if (found < 0) {
            if (b->n == b->cap) {
                size_t nc = b->cap ? b->cap * 2 : 16;
                mnode *p = realloc(b->nodes, nc * sizeof *p);
                if (!p) return -2;
                b->nodes = p;
                b->cap = nc;
            }
            mnode *m = &b->nodes[b->n];
            memset(m, 0, sizeof *m);
            m->dom = dom;
            m->parent = (int32_t)cur;
            m->depth = k;
            m->path = dup(a.stack[k].fqn);
            m->cls = dup(a.stack[k].type);
            if (!m->path || !m->cls) {
                free(m->path);
                free(m->cls);
                return -2;
            }
            found = (long)b->n++;
        }
        cur = found;
    }
    return cur;
}

static void build_free(build *b) {
    for (size_t i = 0; i < b->n; i++) {
        free(b->nodes[i].path);
        free(b->nodes[i].cls);
    }
    free(b->nodes);
    free(b->doms);
}

/* Depth-first emission of node `i`'s subtree (children in creation order). */
static void emit(const build *b, etp_modules *m, size_t i, int32_t parent, uint32_t depth,
                 const dom_acc *d, uint32_t dom) {
    const mnode *n = &b->nodes[i];
    etp_module_row *r = &m->rows[m->nrows];
    int32_t me = (int32_t)m->nrows++;
    memset(r, 0, sizeof *r);
    r->method = d->pub.method;
    r->domain = dom;
    r->path = n->path;
    r->cls = n->cls;
    r->parent = parent;
    r->depth = depth;
    r->unit = d->pub.unit;
    r->inclusive = n->incl;
    r->exclusive = n->excl;
    r->share = d->pub.total != 0 ? 100.0 * n->incl / d->pub.total : NAN;
    r->count = n->cnt;
    r->count_exclusive = n->cnt_ex;
    for (size_t c = i + 1; c < b->n; c++)
        if (b->nodes[c].parent == (int32_t)i) emit(b, m, c, me, depth + 1, d, dom);
}

/* The nodes of `b` whose path is `want` and that lie inside no other such node. */
static bool is_match_root(const build *b, size_t i, const char *want) {
    if (strcmp(b->nodes[i].path, want) != 0) return false;
    for (int32_t p = b->nodes[i].parent; p >= 0; p = b->nodes[p].parent)
        if (strcmp(b->nodes[p].path, want) == 0) return false;
    return true;
}

int etp_modules_compute(const etp_ops_result *ops, const etp_etrecord *rec,
                        const etp_modules_opts *opts, etp_modules **out, etp_error *err) {
    *out = NULL;
    const char *want = opts ? opts->module : NULL;
    size_t nr = etp_ops_row_count(ops);
    build b = {0};
    etp_modules *m = calloc(1, sizeof *m);
    attr *at = calloc(nr ? nr : 1, sizeof *at);
    if (!m || !at) goto oom;
    attr last = {NULL, 0};
    int last_dom = -1;
    long last_node = -1;
    /* node pointers of the record: the record outlives this call, the result copies */
    for (size_t i = 0; i < nr; i++) {
        const etp_ops_row *row = etp_ops_row_get(ops, i);
        const etp_ops_method *meth = etp_ops_method_get(ops, row->method);
        bool joinable = etp_etrecord_row_joinable(row);
        if (joinable) {
            etp_etr_join j;
            if (etp_etrecord_join_row(rec, meth->name, row, &j)) goto oom;
            at[i].stack = j.module_stack;
            at[i].len = j.n_module_stack;
            m->joins.rows++;
            m->joins.matched += j.n_nodes > 0;
            if (row->htp_node) {
                m->joins.htp_rows++;
                m->joins.htp_matched += j.n_nodes > 0;
            }
            /* inside a DELEGATE_CALL: a backend event the record does not map belongs to its
             * nearest joined ancestor */
            if (!j.n_nodes && !row->htp_node && row->kind == ETP_KIND_DELEGATE_INTERNAL)
                for (int32_t p = row->parent; p >= 0 && !at[i].len;
                     p = etp_ops_row_get(ops, (size_t)p)->parent)
                    at[i] = at[p];
            etp_etrecord_join_free(&j);
        }
        etp_mod_domain d;
        if (row->unit == ETP_UNIT_NS || row->unit == ETP_UNIT_TICKS) d = ETP_MOD_HOST;
        else if (row->unit == ETP_UNIT_CYCLES) d = ETP_MOD_HTP;
        else continue;
        double v = row->excl.total;
        if (!row->runs || isnan(v)) continue;
        int di = dom_of(&b, row->method, d, row->unit, meth->runs);
        if (di < 0) goto oom;
        dom_acc *da = &b.doms[di];
        da->pub.total += v;
        da->pub.rows++;
        if (!at[i].len) {
            da->nomod += v;
            da->nomod_cnt++;
            continue;
        }
        da->pub.rows_module++;
        /* consecutive rows mostly share their module: the last lookup is reused */
        long ni;
        if (at[i].stack == last.stack && at[i].len == last.len && di == last_dom) {
            ni = last_node;
        } else {
            ni = node_of(&b, (uint32_t)di, at[i]);
            if (ni < -1) goto oom;
            last = at[i];
            last_dom = di;
            last_node = ni;
        }
        b.nodes[ni].excl += v;
        b.nodes[ni].cnt_ex++;
        for (long p = ni; p >= 0; p = b.nodes[p].parent) {
            b.nodes[p].incl += v;
            b.nodes[p].cnt++;
        }
    }
    free(at);
    at = NULL;
    m->rows = calloc(b.n + b.nd + 1, sizeof *m->rows);
    m->doms = malloc((b.nd ? b.nd : 1) * sizeof *m->doms);
    if (!m->rows || !m->doms) goto oom;
    m->ndoms = b.nd;
    for (size_t d = 0; d < b.nd; d++) {
        m->doms[d] = b.doms[d].pub;
        for (size_t i = 0; i < b.n; i++) {
            if (b.nodes[i].dom != d) continue;
            if (want ? is_match_root(&b, i, want) : b.nodes[i].parent < 0)
                emit(&b, m, i, -1, 0, &b.doms[d], (uint32_t)d);
        }
        if (want) continue;
        etp_module_row *r = &m->rows[m->nrows++];
        memset(r, 0, sizeof *r);
        r->method = b.doms[d].pub.method;
        r->domain = (uint32_t)d;
        r->no_module = true;
        r->parent = -1;
        r->unit = b.doms[d].pub.unit;
        r->inclusive = r->exclusive = b.doms[d].nomod;
        r->share = b.doms[d].pub.total != 0 ? 100.0 * b.doms[d].nomod / b.doms[d].pub.total : NAN;
        r->count = r->count_exclusive = b.doms[d].nomod_cnt;
    }
    if (want && !m->nrows) {
        char msg[ETP_ERR_MSG_MAX + 512];
        snprintf(msg, sizeof msg,
                 "--module %.80s: no module of that path holds any profiled row (paths are "
                 "nn_module_stack paths, e.g. \"layers.0.attention\"; etprof modules without "
                 "--module lists them)",
                 want);
        set_err(err, ETP_E_USAGE, msg);
        build_free(&b);
        etp_modules_free(m);
        return ETP_E_USAGE;
    }
    /* the strings move to the result */
    m->strs = malloc((b.n ? b.n : 1) * 2 * sizeof *m->strs);
    if (!m->strs) goto oom;
    for (size_t i = 0; i < b.n; i++) {
        m->strs[m->nstrs++] = b.nodes[i].path;
        m->strs[m->nstrs++] = b.nodes[i].cls;
    }
    free(b.nodes);
    free(b.doms);
    *out = m;
    return ETP_OK;
oom:
    free(at);
    build_free(&b);
    etp_modules_free(m);
    set_err(err, ETP_E_INTERNAL, "out of memory");
    return ETP_E_INTERNAL;
}

void etp_modules_free(etp_modules *m) {
    if (!m) return;
    for (size_t i = 0; i < m->nstrs; i++) free(m->strs[i]);
    free(m->strs);
    free(m->rows);
    free(m->doms);
    free(m);
}

size_t etp_modules_row_count(const etp_modules *m) { return m ? m->nrows : 0; }
const etp_module_row *etp_modules_row_get(const etp_modules *m, size_t i) {
    return m && i < m->nrows ? &m->rows[i] : NULL;
}
size_t etp_modules_domain_count(const etp_modules *m) { return m ? m->ndoms : 0; }
const etp_modules_domain *etp_modules_domain_get(const etp_modules *m, size_t i) {
    return m && i < m->ndoms ? &m->doms[i] : NULL;
}
const etp_modules_joins *etp_modules_join_counts(const etp_modules *m) {
    return m ? &m->joins : NULL;
}
