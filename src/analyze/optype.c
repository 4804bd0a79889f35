/* optype.c - the operators of an ops result grouped by type (etprof_runs.h, docs/analyses.md
 * "Operators by type"; TFLite benchmark_model's "summary by node type" is the model). */
#include "etprof_runs.h"
#include "ops_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct etp_optype_result {
    etp_optype_row *rows;
    size_t n;
    char *types; /* the type strings, NUL-separated */
};

const char *etp_optype_domain_name(etp_optype_domain d) {
    switch (d) {
    case ETP_OTD_CPU: return "cpu";
    case ETP_OTD_HTP: return "htp";
    case ETP_OTD_DELEGATE: return "delegate";
    }
    return "delegate";
}

/* the words of an ATen name that end the op: overload names and suffixes the QNN backend adds */
static bool stop_word(const char *w, size_t n) {
    static const char *const words[] = {"default", "tensor", "scalar", "int", "dim", "dims",
                                        "self", "out", "list", "float", "bool", "str",
                                        "value", "mode", "h", "sha", NULL};
    if (!n) return false;
    bool digits = true;
    for (size_t i = 0; i < n; i++) digits &= isdigit((unsigned char)w[i]) != 0;
    if (digits) return true;
    for (size_t k = 0; words[k]; k++)
        if (strlen(words[k]) == n && strncasecmp(words[k], w, n) == 0) return true;
    return false;
}

static void put(char *buf, size_t cap, const char *s, size_t n) {
    if (!cap) return;
    if (n >= cap) n = cap - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
}

const char *etp_optype_of_htp(const char *qnn_op, char *buf, size_t cap) {
    if (!qnn_op) {
        put(buf, cap, "", 0);
        return buf;
    }
    size_t len = strlen(qnn_op);
    if (strncmp(qnn_op, "aten_", 5) == 0) {
        const char *s = qnn_op + 5, *end = qnn_op + len, *cut = end;
        /* words separated by '_'; a leading '_' belongs to the op (_softmax, _to_copy) */
        const char *w = s;
        while (w < end && *w == '_') w++;
        bool first = true;
        while (w < end) {
            const char *e = memchr(w, '_', (size_t)(end - w));
            if (!e) e = end;
            if (!first && stop_word(w, (size_t)(e - w))) {
                cut = w - 1; /* before the '_' */
                break;
            }
            first = false;
            w = e + 1;
        }
        put(buf, cap, s, (size_t)(cut - s));
        return buf;
    }
    /* other names: without trailing "_<number>" words */
    size_t n = len;
    for (;;) {
        size_t k = n;
        while (k > 0 && isdigit((unsigned char)qnn_op[k - 1])) k--;
        if (k < n && k > 1 && qnn_op[k - 1] == '_') n = k - 1;
        else break;
    }
    put(buf, cap, qnn_op, n);
    return buf;
}

const char *etp_optype_of_name(const char *name, char *buf, size_t cap) {
    if (!name) {
        put(buf, cap, "", 0);
        return buf;
    }
    size_t n = strlen(name), k = n;
    while (k > 0 && isdigit((unsigned char)name[k - 1])) k--;
    if (k < n && k >= 2 && name[k - 1] == '#' && name[k - 2] == ' ') n = k - 2;
    put(buf, cap, name, n);
    return buf;
}

typedef struct key_row {
    etp_optype_row r;
    size_t order; /* first appearance */
} key_row;

static int cmp_group(const void *x, const void *y) {
    const etp_optype_row *a = &((const key_row *)x)->r, *b = &((const key_row *)y)->r;
    if (a->method != b->method) return a->method < b->method ? -1 : 1;
    if (a->domain != b->domain) return a->domain < b->domain ? -1 : 1;
    int c = strcmp(a->placement, b->placement);
    if (c) return c;
    if (a->unit != b->unit) return a->unit < b->unit ? -1 : 1;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return strcmp(a->type, b->type);
}

int etp_optype_compute(const etp_ops_result *r, etp_optype_result **out, etp_error *err) {
    *out = NULL;
    size_t nr = etp_ops_row_count(r);
    etp_optype_result *x = calloc(1, sizeof *x);
    key_row *k = calloc(nr ? nr : 1, sizeof *k);
    size_t tcap = 1, tlen = 0;
    for (size_t i = 0; i < nr; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        tcap += (row->op ? strlen(row->op) : 0) + strlen(row->name) + 20;
    }
    char *types = malloc(tcap);
    if (!x || !k || !types) {
        free(types);
        goto oom;
    }
    x->types = types;
    size_t n = 0;
    for (size_t i = 0; i < nr; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        const etp_ops_method *m = etp_ops_method_get(r, row->method);
        etp_optype_domain dom;
        char tb[1024];
        const char *type;
        int32_t part = etp__ops_row_part(r, i);
        if (part >= 0 && (uint32_t)part < m->n_parts && m->parts[part].place == ETP_PLACE_CPU) {
            dom = ETP_OTD_CPU;
            type = row->op ? row->op : row->name;
        } else if (row->htp_node) {
            dom = ETP_OTD_HTP;
            if (row->qnn == ETP_QNN_NODE_IO)
                type = strncmp(row->name, "Input", 5) == 0 ? "(graph input)" : "(graph output)";
            else if (row->qnn == ETP_QNN_NODE_SYS || !row->op)
                type = "(system op)";
            else
                type = etp_optype_of_htp(row->op, tb, sizeof tb);
        } else if (row->kind == ETP_KIND_DELEGATE_INTERNAL && row->qnn == ETP_QNN_NONE) {
            size_t nc;
            etp_ops_children(r, i, &nc);
            if (nc) continue; /* its children are the operators */
            dom = ETP_OTD_DELEGATE;
            type = etp_optype_of_name(row->name, tb, sizeof tb);
        } else {
            continue;
        }
        if (isnan(row->stats.total)) continue;
        const char *placement = dom == ETP_OTD_CPU ? "cpu" : row->placement;
        size_t j = 0;
        for (; j < n; j++) {
            const etp_optype_row *g = &k[j].r;
            if (g->method == row->method && g->domain == dom && g->unit == row->unit &&
                strcmp(g->placement, placement) == 0 && strcmp(g->type, type) == 0)
                break;
        }
        if (j == n) {
            size_t tl = strlen(type);
            memcpy(types + tlen, type, tl + 1);
            k[n] = (key_row){.r = {.method = row->method, .domain = dom, .placement = placement,
                                   .type = types + tlen, .unit = row->unit},
                             .order = n};
            tlen += tl + 1;
            n++;
        }
        etp_optype_row *g = &k[j].r;
        g->rows++;
        g->count += row->count;
        g->total += row->stats.total;
    }
    qsort(k, n, sizeof *k, cmp_group);
    x->rows = calloc(n ? n : 1, sizeof *x->rows);
    if (!x->rows) goto oom;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        double sum = 0;
        while (e < n && k[e].r.method == k[i].r.method && k[e].r.domain == k[i].r.domain &&
               k[e].r.unit == k[i].r.unit && strcmp(k[e].r.placement, k[i].r.placement) == 0)
            sum += k[e++].r.total;
        double cum = 0;
        double runs = etp_ops_method_get(r, k[i].r.method)->runs;
        for (size_t j = i; j < e; j++) {
            etp_optype_row *g = &k[j].r;
            g->avg = g->count ? g->total / (double)g->count : NAN;
            g->per_run = runs > 0 ? g->total / runs : NAN;
            g->share = sum > 0 ? g->total / sum * 100.0 : NAN;
            cum += g->share;
            g->cum_share = sum > 0 ? cum : NAN;
            x->rows[j] = *g;
        }
        i = e;
    }
    x->n = n;
    free(k);
    *out = x;
    return ETP_OK;
oom:
    free(k);
    etp_optype_free(x);
    etp_error_set(err, ETP_E_INTERNAL, "", -1, "", "out of memory");
    return ETP_E_INTERNAL;
}

void etp_optype_free(etp_optype_result *x) {
    if (!x) return;
    free(x->rows);
    free(x->types);
    free(x);
}

size_t etp_optype_count(const etp_optype_result *x) { return x->n; }
const etp_optype_row *etp_optype_get(const etp_optype_result *x, size_t i) {
    return i < x->n ? &x->rows[i] : NULL;
}
