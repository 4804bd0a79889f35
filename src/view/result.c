/* result.c - the result model (include/etprof_result.h) and its one renderer, over out.c (the
 * table formats) and jw.c (JSON). The JSON envelope is written here and nowhere else. */
#include "etprof_result.h"
#include "membudget.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "jw.h"
#include "out.h"
#include "result_int.h"

typedef struct cell {
    etp_type t;
    unsigned char prec1; /* ETP_T_FLOAT: 0 the column's precision, 1 shortest, p + 2 (p 0..30) */
    size_t n; /* string length */
    union {
        int64_t i;
        uint64_t u;
        double f;
        bool b;
        char *s;
    } v;
} cell;

typedef enum { N_VAL, N_OBJ, N_ARR, N_TABLE, N_NOTES } nkind;

struct etp_node {
    etp_doc *doc;
    nkind kind;
    char *key;
    cell val;          /* N_VAL */
    etp_node **kids;   /* N_OBJ, N_ARR */
    size_t nkids, capkids;
    etp_table *table;  /* N_TABLE */
    bool compact;      /* etp_node_compact */
};

struct etp_table {
    etp_doc *doc;
    etp_col *cols;     /* strings owned */
    char **headers;    /* out_col header per column ("header (unit)"), owned */
    size_t ncols;
    cell *cells;       /* rows * ncols */
    size_t nrows, cap;
    size_t at;         /* next cell of the current row */
    bool in_row;
    char **notes;
    size_t nnotes;
    char **drop;       /* NULL-terminated */
    etp_table *next;   /* every table of the document */
};

typedef struct block {
    etp_table *table; /* or prose: */
    unsigned flags;
    char *prefix;
    size_t indent;
    char *text;
} block;

struct etp_section {
    etp_doc *doc;
    char *key;
    block *blocks;
    size_t nblocks;
    etp_section *next;
};

struct etp_doc {
    char *command, *file, *program;
    int schema_version;
    bool error;
    etp_node root;
    bool notes_placed;
    char **notes;
    size_t nnotes;
    etp_table *tables, *tables_tail;
    etp_section *sections, *sections_tail;
    etp_table *flat;
    etp_table *single;
    /* JSON layout (etp_doc_envelope, etp_doc_program_here, etp_doc_json_omit) */
    unsigned envelope; /* ETP_ENV_* members written after schema_version */
    bool program_placed;
    size_t program_at; /* the root member the program goes before */
    unsigned json_omit;
    int wrap_width;          /* etp_doc_wrap_width */
    const etp_node *jsonl;   /* etp_doc_jsonl_array */
    struct doc_chunk *arena; /* the members (nodes), their keys and string values, and the
                                tables' string cells: freed at once (doc_alloc) */
};

/* A document holds tens of thousands of small members and strings (`etprof tree` of the 50 MB
 * benchmark dump: 25,746 JSON values, most with a key). One malloc and one free each cost that
 * command 2.5 ms of its 32 ms; they come from chunks instead, given back with the document. */
typedef struct doc_chunk {
    struct doc_chunk *next;
    size_t len, cap;
    _Alignas(max_align_t) char data[];
} doc_chunk;

#define DOC_CHUNK ((size_t)64 << 10)

/* n bytes from d's chunks, aligned for any member, zeroed; NULL (d->error set) when out of
 * memory. */
static void *doc_alloc(etp_doc *d, size_t n) {
    size_t a = _Alignof(max_align_t);
    n = (n + a - 1) / a * a;
    doc_chunk *c = d->arena;
    if (!c || c->cap - c->len < n) {
        size_t cap = n > DOC_CHUNK / 4 ? n : DOC_CHUNK - sizeof *c;
        doc_chunk *nc = malloc(sizeof *nc + cap);
        if (!nc) {
            d->error = true;
            return NULL;
        }
        nc->len = 0;
        nc->cap = cap;
        if (n > DOC_CHUNK / 4 && c) { /* a large one goes behind the current chunk */
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            d->arena = nc;
        }
        c = nc;
    }
    void *p = c->data + c->len;
    c->len += n;
    memset(p, 0, n);
    return p;
}

/* A copy of s (n bytes) from d's chunks. */
static char *doc_strn(etp_doc *d, const char *s, size_t n) {
    char *p = doc_alloc(d, n + 1);
    if (p) memcpy(p, s, n);
    return p;
}

static char *dup(etp_doc *d, const char *s) {
    if (!s) return NULL;
    char *p = strdup(s);
    if (!p) d->error = true;
    return p;
}

static bool grow(etp_doc *d, void **p, size_t *cap, size_t n, size_t size) {
    if (n < *cap) return true;
    size_t nc = *cap ? *cap * 2 : 8;
    void *q = realloc(*p, nc * size);
    if (!q) {
        d->error = true;
        return false;
    }
    *p = q;
    *cap = nc;
    return true;
}

static bool push_str(etp_doc *d, char ***list, size_t *n, const char *s) {
    char **l = realloc(*list, (*n + 1) * sizeof *l);
    if (!l) {
        d->error = true;
        return false;
    }
    *list = l;
    if (!(l[*n] = dup(d, s))) return false;
    (*n)++;
    return true;
}

etp_doc *etp_doc_new(const char *command, int schema_version, const char *file, const char *program) {
    etp_doc *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->schema_version = schema_version;
    d->envelope = ETP_ENV_FILE | ETP_ENV_PROGRAM;
    d->command = dup(d, command ? command : "");
    d->file = dup(d, file);
    d->program = dup(d, program);
    d->root.doc = d;
    d->root.kind = N_OBJ;
    if (d->error) {
        etp_doc_free(d);
        return NULL;
    }
    return d;
}

/* The arrays of n's members (the members, keys and strings are in the document's chunks). */
static void free_node(etp_node *n) {
    for (size_t i = 0; i < n->nkids; i++) free_node(n->kids[i]);
    free(n->kids);
}

static void free_list(char **l, size_t n) {
    for (size_t i = 0; i < n; i++) free(l[i]);
    free(l);
}

void etp_doc_free(etp_doc *d) {
    if (!d) return;
    free_node(&d->root);
    free_list(d->notes, d->nnotes);
    for (etp_table *t = d->tables, *nt; t; t = nt) {
        nt = t->next;
        for (size_t c = 0; c < t->ncols; c++) {
            free((char *)t->cols[c].key);
            free((char *)t->cols[c].header);
            free((char *)t->cols[c].unit);
            free(t->headers[c]);
        }
        free(t->cols);
        free(t->headers);
        free(t->cells);
        free_list(t->notes, t->nnotes);
        if (t->drop) {
            for (char **p = t->drop; *p; p++) free(*p);
            free(t->drop);
        }
        free(t);
    }
    for (etp_section *s = d->sections, *ns; s; s = ns) {
        ns = s->next;
        for (size_t i = 0; i < s->nblocks; i++) {
            free(s->blocks[i].prefix);
            free(s->blocks[i].text);
        }
        free(s->blocks);
        free(s->key);
        free(s);
    }
    free(d->command);
    free(d->file);
    free(d->program);
    for (doc_chunk *c = d->arena, *nc; c; c = nc) {
        nc = c->next;
        free(c);
    }
    free(d);
}

const char *etp_doc_command(const etp_doc *d) { return d ? d->command : NULL; }
bool etp_doc_ok(const etp_doc *d) { return d && !d->error; }
etp_node *etp_doc_root(etp_doc *d) { return d ? &d->root : NULL; }

/* ---- facts ---- */

static etp_node *add(etp_node *n, const char *key, nkind kind) {
    if (!n || n->doc->error) return NULL;
    etp_doc *d = n->doc;
    if ((n->kind == N_OBJ) != (key != NULL) || (n->kind != N_OBJ && n->kind != N_ARR)) {
        d->error = true; /* a keyed member in an array, or a value in a value */
        return NULL;
    }
    if (!grow(d, (void **)&n->kids, &n->capkids, n->nkids, sizeof *n->kids)) return NULL;
    etp_node *k = doc_alloc(d, sizeof *k);
    if (!k) return NULL;
    k->doc = d;
    k->kind = kind;
    if (key && !(k->key = doc_strn(d, key, strlen(key)))) return NULL;
    n->kids[n->nkids++] = k;
    return k;
}

void etp_node_int(etp_node *n, const char *key, int64_t v) {
    etp_node *k = add(n, key, N_VAL);
    if (k) k->val = (cell){.t = ETP_T_INT, .v.i = v};
}
void etp_node_uint(etp_node *n, const char *key, uint64_t v) {
    etp_node *k = add(n, key, N_VAL);
    if (k) k->val = (cell){.t = ETP_T_UINT, .v.u = v};
}
void etp_node_float(etp_node *n, const char *key, double v) {
    etp_node *k = add(n, key, N_VAL);
    if (k) k->val = isfinite(v) ? (cell){.t = ETP_T_FLOAT, .v.f = v} : (cell){.t = ETP_T_NULL};
}
void etp_node_str(etp_node *n, const char *key, const char *s) {
    etp_node *k = add(n, key, N_VAL);
    if (!k) return;
    if (!s) {
        k->val.t = ETP_T_NULL;
        return;
    }
    k->val.t = ETP_T_STR;
    k->val.n = strlen(s);
    if (!(k->val.v.s = doc_strn(n->doc, s, k->val.n))) k->val.t = ETP_T_NULL;
}
void etp_node_bool(etp_node *n, const char *key, bool v) {
    etp_node *k = add(n, key, N_VAL);
    if (k) k->val = (cell){.t = ETP_T_BOOL, .v.b = v};
}
void etp_node_null(etp_node *n, const char *key) {
    etp_node *k = add(n, key, N_VAL);
    if (k) k->val.t = ETP_T_NULL;
}
etp_node *etp_node_obj(etp_node *n, const char *key) { return add(n, key, N_OBJ); }
etp_node *etp_node_arr(etp_node *n, const char *key) { return add(n, key, N_ARR); }
void etp_node_table(etp_node *n, const char *key, etp_table *t) {
    if (!t) return;
    etp_node *k = add(n, key, N_TABLE);
    if (k) k->table = t;
}
void etp_doc_notes_here(etp_doc *d) {
    if (!d || d->notes_placed) return;
    if (add(&d->root, "notes", N_NOTES)) d->notes_placed = true;
}
void etp_doc_note(etp_doc *d, const char *text) {
    if (d && !d->error && text) push_str(d, &d->notes, &d->nnotes, text);
}

/* -- compact members (explain) -- */
void etp_node_compact(etp_node *n) {
    if (n && (n->kind == N_OBJ || n->kind == N_ARR)) n->compact = true;
}

/* ---- tables ---- */

etp_table *etp_doc_table(etp_doc *d, const etp_col *cols, size_t ncols) {
    if (!d || d->error || !ncols) return NULL;
    etp_table *t = calloc(1, sizeof *t);
    if (!t) {
        d->error = true;
        return NULL;
    }
    t->doc = d;
    if (d->tables_tail) d->tables_tail->next = t;
    else d->tables = t;
    d->tables_tail = t;
    t->cols = calloc(ncols, sizeof *t->cols);
    t->headers = calloc(ncols, sizeof *t->headers);
    if (!t->cols || !t->headers) {
        d->error = true;
        return NULL;
    }
    t->ncols = ncols;
    for (size_t c = 0; c < ncols; c++) {
        t->cols[c] = cols[c];
        t->cols[c].key = dup(d, cols[c].key ? cols[c].key : "");
        t->cols[c].header = dup(d, cols[c].header);
        t->cols[c].unit = dup(d, cols[c].unit);
        const char *h = cols[c].header ? cols[c].header : cols[c].key ? cols[c].key : "";
        if (cols[c].unit) {
            size_t n = strlen(h) + strlen(cols[c].unit) + 4;
            if ((t->headers[c] = malloc(n))) snprintf(t->headers[c], n, "%s (%s)", h, cols[c].unit);
            else d->error = true;
        } else {
            t->headers[c] = dup(d, h);
        }
    }
    return d->error ? NULL : t;
}

static cell *next_cell(etp_table *t) {
    if (!t || t->doc->error) return NULL;
    if (!t->in_row || t->at >= t->ncols) {
        t->doc->error = true;
        return NULL;
    }
    return &t->cells[(t->nrows - 1) * t->ncols + t->at++];
}

void etp_table_row(etp_table *t) {
    if (!t || t->doc->error) return;
    size_t need = (t->nrows + 1) * t->ncols;
    if (need > t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 16 * t->ncols;
        while (nc < need) nc *= 2;
        cell *c = realloc(t->cells, nc * sizeof *c);
        if (!c) {
            t->doc->error = true;
            return;
        }
        t->cells = c;
        t->cap = nc;
    }
    memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof *t->cells);
    for (size_t c = 0; c < t->ncols; c++) t->cells[t->nrows * t->ncols + c].t = ETP_T_NULL;
    t->nrows++;
    t->at = 0;
    t->in_row = true;
}

void etp_table_str(etp_table *t, const char *s) {
    cell *c = next_cell(t);
    if (!c || !s) return;
    size_t n = strlen(s);
    if ((c->v.s = doc_strn(t->doc, s, n))) {
        c->t = ETP_T_STR;
        c->n = n;
    }
}
void etp_table_int(etp_table *t, int64_t v) {
    cell *c = next_cell(t);
    if (c) *c = (cell){.t = ETP_T_INT, .v.i = v};
}
void etp_table_uint(etp_table *t, uint64_t v) {
    cell *c = next_cell(t);
    if (c) *c = (cell){.t = ETP_T_UINT, .v.u = v};
}
void etp_table_float(etp_table *t, double v) {
    cell *c = next_cell(t);
    if (c && !isnan(v)) *c = (cell){.t = ETP_T_FLOAT, .v.f = v};
}
void etp_table_float_prec(etp_table *t, double v, int precision) {
    cell *c = next_cell(t);
    if (c && !isnan(v))
        *c = (cell){.t = ETP_T_FLOAT, .v.f = v,
                    .prec1 = (unsigned char)(precision < 0 ? 1 : precision > 30 ? 32 : precision + 2)};
}
void etp_table_bool(etp_table *t, bool v) {
    cell *c = next_cell(t);
    if (c) *c = (cell){.t = ETP_T_BOOL, .v.b = v};
}
void etp_table_null(etp_table *t) { (void)next_cell(t); }

void etp_table_note(etp_table *t, const char *text) {
    if (t && !t->doc->error && text) push_str(t->doc, &t->notes, &t->nnotes, text);
}

void etp_table_droppable(etp_table *t, const char *const *key_ranks) {
    if (!t || t->doc->error || !key_ranks) return;
    size_t n = 0;
    while (key_ranks[n]) n++;
    char **l = calloc(n + 1, sizeof *l);
    if (!l) {
        t->doc->error = true;
        return;
    }
    for (size_t i = 0; i < n; i++) l[i] = dup(t->doc, key_ranks[i]);
    if (t->drop) {
        for (char **p = t->drop; *p; p++) free(*p);
        free(t->drop);
    }
    t->drop = l;
}

size_t etp_table_rows(const etp_table *t) { return t ? t->nrows : 0; }
size_t etp_table_cols(const etp_table *t) { return t ? t->ncols : 0; }
const etp_col *etp_table_col(const etp_table *t, size_t i) { return t && i < t->ncols ? &t->cols[i] : NULL; }

bool etp_table_cell(const etp_table *t, size_t row, size_t col, etp_type *type, int64_t *i,
                    uint64_t *u, double *f, const char **s) {
    if (!t || row >= t->nrows || col >= t->ncols) return false;
    const cell *c = &t->cells[row * t->ncols + col];
    if (type) *type = c->t;
    if (i) *i = c->t == ETP_T_INT ? c->v.i : c->t == ETP_T_BOOL ? (int64_t)c->v.b : 0;
    if (u) *u = c->t == ETP_T_UINT ? c->v.u : 0;
    if (f) *f = c->t == ETP_T_FLOAT ? c->v.f : NAN;
    if (s) *s = c->t == ETP_T_STR ? c->v.s : NULL;
    return true;
}

int etp_table_column(const etp_table *t, size_t j, etp_col_data *out) {
    if (!out) return ETP_E_USAGE;
    memset(out, 0, sizeof *out);
    if (!t || j >= t->ncols) return ETP_E_USAGE;
    const etp_col *col = &t->cols[j];
    out->key = col->key;
    out->unit = col->unit;
    out->type = col->type;
    size_t n = t->nrows;
    out->n = n;
    if (!n) return 0;
    /* values (8 bytes each: int64, uint64, double, pointer; bool rounded up too) then flags */
    if (n > (SIZE_MAX - 16) / 9) return ETP_E_INTERNAL;
    unsigned char *mem = malloc(n * 8 + n);
    if (!mem) {
        memset(out, 0, sizeof *out);
        return ETP_E_INTERNAL;
    }
    out->mem = mem;
    bool *valid = (bool *)(mem + n * 8);
    out->valid = valid;
    switch (col->type) {
    case ETP_T_INT: out->i = (int64_t *)(void *)mem; break;
    case ETP_T_UINT: out->u = (uint64_t *)(void *)mem; break;
    case ETP_T_FLOAT: out->f = (double *)(void *)mem; break;
    case ETP_T_BOOL: out->b = (bool *)mem; break;
    case ETP_T_STR: out->s = (const char **)(void *)mem; break;
    case ETP_T_NULL: break;
    }
    size_t nv = 0;
    const cell *c = &t->cells[j];
    for (size_t r = 0; r < n; r++, c += t->ncols) {
        bool ok = true;
        switch (col->type) {
        case ETP_T_INT:
            out->i[r] = c->t == ETP_T_INT ? c->v.i : c->t == ETP_T_UINT ? (int64_t)c->v.u
                        : c->t == ETP_T_BOOL ? (int64_t)c->v.b : (ok = false, 0);
            break;
        case ETP_T_UINT:
            out->u[r] = c->t == ETP_T_UINT ? c->v.u : c->t == ETP_T_INT ? (uint64_t)c->v.i
                        : c->t == ETP_T_BOOL ? (uint64_t)c->v.b : (ok = false, 0);
            break;
        case ETP_T_FLOAT:
            out->f[r] = c->t == ETP_T_FLOAT ? c->v.f : c->t == ETP_T_INT ? (double)c->v.i
                        : c->t == ETP_T_UINT ? (double)c->v.u : (ok = false, NAN);
            break;
        case ETP_T_BOOL:
            out->b[r] = c->t == ETP_T_BOOL ? c->v.b : c->t == ETP_T_INT ? c->v.i != 0
                        : c->t == ETP_T_UINT ? c->v.u != 0 : (ok = false, false);
            break;
        case ETP_T_STR:
            out->s[r] = c->t == ETP_T_STR ? c->v.s : (ok = false, NULL);
            break;
        case ETP_T_NULL: ok = false; break;
        }
        valid[r] = ok;
        nv += ok;
    }
    out->nvalid = nv;
    return 0;
}

/* ---- sections ---- */

etp_section *etp_doc_section(etp_doc *d, const char *key) {
    if (!d || d->error) return NULL;
    etp_section *s = calloc(1, sizeof *s);
    if (!s) {
        d->error = true;
        return NULL;
    }
    s->doc = d;
    s->key = dup(d, key);
    if (d->sections_tail) d->sections_tail->next = s;
    else d->sections = s;
    d->sections_tail = s;
    return s;
}

static block *add_block(etp_section *s, etp_doc *d) {
    if (!s || !d || d->error) return NULL;
    block *b = realloc(s->blocks, (s->nblocks + 1) * sizeof *b);
    if (!b) {
        d->error = true;
        return NULL;
    }
    s->blocks = b;
    memset(&b[s->nblocks], 0, sizeof *b);
    return &b[s->nblocks++];
}

static etp_doc *doc_of(etp_section *s) { return s ? s->doc : NULL; }

void etp_section_text(etp_section *s, unsigned flags, const char *prefix, size_t indent, const char *text) {
    etp_doc *d = doc_of(s);
    block *b = add_block(s, d);
    if (!b) return;
    b->flags = flags;
    b->indent = indent;
    b->prefix = dup(d, prefix);
    b->text = dup(d, text ? text : "");
}

void etp_section_textf(etp_section *s, unsigned flags, size_t indent, const char *fmt, ...) {
    etp_doc *d = doc_of(s);
    if (!s || !d || d->error) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        d->error = true;
        return;
    }
    char *p = malloc((size_t)n + 1);
    if (!p) {
        d->error = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    etp_section_text(s, flags, NULL, indent, p);
    free(p);
}

void etp_section_table(etp_section *s, etp_table *t) {
    if (!t) return;
    block *b = add_block(s, t->doc);
    if (b) b->table = t;
}

void etp_doc_flat(etp_doc *d, etp_table *t) {
    if (d && t) d->flat = t;
}

void etp_doc_single_table(etp_doc *d, etp_table *t) {
    if (d && t) d->single = t;
}

/* -- one-line prose, default wrap width, JSON lines of an array (diff, explain) -- */
void etp_doc_wrap_width(etp_doc *d, int width) {
    if (d) d->wrap_width = width > 0 ? width : 0;
}

void etp_doc_jsonl_array(etp_doc *d, etp_node *arr) {
    if (!d || !arr) return;
    if (arr->doc != d || arr->kind != N_ARR) d->error = true;
    else d->jsonl = arr;
}

/* ---- rendering ---- */

static void json_cell(jw *w, const cell *c) {
    switch (c->t) {
    case ETP_T_STR: jw_strn(w, c->v.s, c->n); break;
    case ETP_T_INT: jw_int(w, c->v.i); break;
    case ETP_T_UINT: jw_uint(w, c->v.u); break;
    case ETP_T_FLOAT: jw_double(w, c->v.f); break;
    case ETP_T_BOOL: jw_bool(w, c->v.b); break;
    case ETP_T_NULL: jw_null(w); break;
    }
}

static void json_table(jw *w, const etp_table *t) {
    jw_arr_begin(w);
    for (size_t r = 0; r < t->nrows; r++) {
        jw_obj_begin(w);
        for (size_t c = 0; c < t->ncols; c++) {
            jw_key(w, t->cols[c].key);
            json_cell(w, &t->cells[r * t->ncols + c]);
        }
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void json_node(jw *w, const etp_doc *d, const etp_node *n);

/* etp_node_compact: written by a compact writer, then placed whole. */
static bool json_compact(jw *w, const etp_doc *d, const etp_node *n) {
    char *p = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&p, &len);
    if (!m) return false;
    jw c;
    jw_init(&c, m, false);
    etp_node tmp = *n;
    tmp.key = NULL;
    tmp.compact = false;
    json_node(&c, d, &tmp);
    bool ok = fflush(m) == 0 && jw_finish(&c) == 0;
    fclose(m);
    if (ok) {
        if (n->key) jw_key(w, n->key);
        jw_raw(w, p);
    }
    free(p);
    return ok;
}

static void json_node(jw *w, const etp_doc *d, const etp_node *n) {
    if (n->compact && w->pretty && json_compact(w, d, n)) return;
    if (n->key) jw_key(w, n->key);
    switch (n->kind) {
    case N_VAL: json_cell(w, &n->val); break;
    case N_TABLE: json_table(w, n->table); break;
    case N_NOTES:
        jw_arr_begin(w);
        for (size_t i = 0; i < d->nnotes; i++) jw_str(w, d->notes[i]);
        jw_arr_end(w);
        break;
    case N_OBJ:
    case N_ARR:
        if (n->kind == N_OBJ) jw_obj_begin(w);
        else jw_arr_begin(w);
        for (size_t i = 0; i < n->nkids; i++) json_node(w, d, n->kids[i]);
        if (n->kind == N_OBJ) jw_obj_end(w);
        else jw_arr_end(w);
        break;
    }
}

void res_node_json(jw *w, const etp_node *n) {
    if (!n) {
        jw_null(w);
        return;
    }
    etp_node tmp = *n;
    tmp.key = NULL; /* the value only */
    json_node(w, n->doc, &tmp);
}

const etp_node *res_node_child(const etp_node *n, size_t i) {
    return n && i < n->nkids ? n->kids[i] : NULL;
}

/* The JSON view: the envelope, then the facts; the notes where placed, else last. */
static int render_json(const etp_doc *d, FILE *f) {
    jw w;
    jw_init(&w, f, true);
    jw_obj_begin(&w);
    /* one rule for "program": the envelope keeps it (etp_doc_envelope), not omitted
     * (etp_doc_json_omit), written first or where etp_doc_program_here() put it */
    bool program = d->schema_version >= 0 && (d->envelope & ETP_ENV_PROGRAM);
    if (d->schema_version >= 0) {
        jw_key(&w, "schema_version"); jw_int(&w, d->schema_version);
        if (d->envelope & ETP_ENV_FILE) {
            jw_key(&w, "file"); jw_str(&w, d->file);
        }
        if (program && !d->program_placed) {
            jw_key(&w, "program"); jw_str(&w, d->program);
        }
    }
    for (size_t i = 0; i <= d->root.nkids; i++) {
        if (program && d->program_placed && d->program_at == i) {
            jw_key(&w, "program"); jw_str(&w, d->program);
        }
        if (i < d->root.nkids) json_node(&w, d, d->root.kids[i]);
    }
    if (!d->notes_placed && !(d->json_omit & ETP_JSON_NO_NOTES)) {
        jw_key(&w, "notes");
        jw_arr_begin(&w);
        for (size_t i = 0; i < d->nnotes; i++) jw_str(&w, d->notes[i]);
        jw_arr_end(&w);
    }
    jw_obj_end(&w);
    fflush(f);
    int rc = jw_finish(&w);
    fputc('\n', f);
    return rc ? ETP_E_IO : ETP_OK;
}

static int render_table(const etp_table *t, etp_format fmt, FILE *f, const etp_render_opts *o) {
    out_col *cols = calloc(t->ncols, sizeof *cols);
    if (!cols) return ETP_E_INTERNAL;
    for (size_t c = 0; c < t->ncols; c++)
        cols[c] = (out_col){t->cols[c].key, t->headers[c], (out_type)t->cols[c].type,
                            t->cols[c].precision};
    out_table *ot = out_table_new((out_format)fmt, f, cols, t->ncols);
    if (!ot) {
        free(cols);
        return ETP_E_INTERNAL;
    }
    if (o->width) out_table_set_max_width(ot, o->width);
    if (o->csv_raw) out_table_set_csv_raw(ot, true);
    if (t->drop) out_table_set_droppable(ot, (const char *const *)t->drop);
    for (size_t r = 0; r < t->nrows; r++) {
        out_row_begin(ot);
        for (size_t c = 0; c < t->ncols; c++) {
            const cell *x = &t->cells[r * t->ncols + c];
            switch (x->t) {
            case ETP_T_STR: out_cell_strn(ot, x->v.s, x->n); break;
            case ETP_T_INT: out_cell_int(ot, x->v.i); break;
            case ETP_T_UINT: out_cell_uint(ot, x->v.u); break;
            case ETP_T_FLOAT:
                if (x->prec1) out_cell_float_prec(ot, x->v.f, x->prec1 - 2);
                else out_cell_float(ot, x->v.f);
                break;
            case ETP_T_BOOL: out_cell_bool(ot, x->v.b); break;
            case ETP_T_NULL: out_cell_null(ot); break;
            }
        }
        out_row_end(ot);
    }
    for (size_t i = 0; i < t->nnotes; i++) out_table_note(ot, t->notes[i]);
    int rc = out_table_finish(ot);
    out_table_free(ot);
    free(cols);
    return rc;
}

/* out_text_dup() line by line: the line breaks stay. */
static char *safe_lines(const char *text) {
    size_t n = strlen(text), cap = n * 3 + 1, len = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    for (const char *p = text;;) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char *line = malloc(l + 1);
        if (!line) {
            free(out);
            return NULL;
        }
        memcpy(line, p, l);
        line[l] = 0;
        char *sl = out_text_dup(line);
        free(line);
        if (!sl) {
            free(out);
            return NULL;
        }
        size_t sn = strlen(sl);
        if (len + sn + 2 > cap) {
            cap = (len + sn + 2) * 2;
            char *no = realloc(out, cap);
            if (!no) {
                free(sl);
                free(out);
                return NULL;
            }
            out = no;
        }
        memcpy(out + len, sl, sn);
        len += sn;
        free(sl);
        if (!e) break;
        out[len++] = '\n';
        p = e + 1;
    }
    out[len] = 0;
    return out;
}

static int render_text(const etp_doc *d, etp_format fmt, FILE *f, const etp_render_opts *o) {
    /* prose fits the terminal as tables do (else the document's wrap width) */
    int W = fmt == ETP_FMT_MD ? 0 : o->width ? o->width : d->wrap_width;
    int rc = ETP_OK;
    for (const etp_section *s = d->sections; s; s = s->next) {
        for (size_t i = 0; i < s->nblocks; i++) {
            const block *b = &s->blocks[i];
            if (b->table) {
                int r = render_table(b->table, fmt, f, o);
                if (!rc) rc = r;
                continue;
            }
            bool as_cell = b->flags & ETP_TEXT_CELL;
            char *safe = as_cell ? out_text_dup(b->text)
                       : b->flags & ETP_TEXT_SAFE ? safe_lines(b->text) : NULL;
            if ((b->flags & (ETP_TEXT_SAFE | ETP_TEXT_CELL)) && !safe) return ETP_E_INTERNAL;
            const char *text = safe ? safe : b->text;
            if (b->flags & ETP_TEXT_WRAP) {
                out_wrap(f, W, b->prefix, b->indent, text);
            } else {
                if (b->prefix) fputs(b->prefix, f);
                fputs(text, f);
            }
            free(safe);
        }
    }
    if (fflush(f) != 0 || ferror(f)) rc = ETP_E_IO;
    return rc;
}

/* A single-table document's JSON (etp_doc_single_table). */
static int render_single_json(const etp_doc *d, FILE *f) {
    const etp_table *t = d->single;
    jw w;
    jw_init(&w, f, true);
    jw_obj_begin(&w);
    jw_key(&w, "schema_version"); jw_int(&w, d->schema_version);
    jw_key(&w, "rows");
    json_table(&w, t);
    if (t->nnotes) {
        jw_key(&w, "notes");
        jw_arr_begin(&w);
        for (size_t i = 0; i < t->nnotes; i++) jw_str(&w, t->notes[i]);
        jw_arr_end(&w);
    }
    jw_obj_end(&w);
    int rc = jw_finish(&w);
    fputc('\n', f);
    if (fflush(f) != 0 || ferror(f)) return ETP_E_IO;
    return rc ? ETP_E_INTERNAL : ETP_OK;
}

/* etp_doc_jsonl_array: one compact JSON value per element, one per line. */
static int render_jsonl_array(const etp_doc *d, FILE *f) {
    int rc = ETP_OK;
    for (size_t i = 0; i < d->jsonl->nkids; i++) {
        jw w;
        jw_init(&w, f, false);
        etp_node tmp = *d->jsonl->kids[i];
        tmp.key = NULL;
        json_node(&w, d, &tmp);
        fflush(f);
        if (jw_finish(&w)) rc = ETP_E_IO;
        fputc('\n', f);
    }
    if (fflush(f) != 0 || ferror(f)) rc = ETP_E_IO;
    return rc;
}

/* The format names of --format (docs/output-formats.md), in etp_format order: out.c's table. */
_Static_assert((int)ETP_FMT_TABLE == (int)OUT_TABLE && (int)ETP_FMT_CSV == (int)OUT_CSV &&
                   (int)ETP_FMT_TSV == (int)OUT_TSV && (int)ETP_FMT_JSON == (int)OUT_JSON &&
                   (int)ETP_FMT_JSONL == (int)OUT_JSONL && (int)ETP_FMT_MD == (int)OUT_MD,
               "etp_format and out_format list the formats in the same order");
int etp_format_parse(const char *name, etp_format *fmt) {
    out_format f;
    if (out_format_parse(name, &f) != ETP_OK) return ETP_E_USAGE;
    *fmt = (etp_format)f;
    return ETP_OK;
}

const char *etp_format_name(etp_format fmt) { return out_format_name((out_format)fmt); }

int etp_doc_render(const etp_doc *d, etp_format fmt, FILE *f, const etp_render_opts *opts) {
    etp_render_opts none = {0};
    const etp_render_opts *o = opts ? opts : &none;
    if (!d || !f) return ETP_E_USAGE;
    if (d->error) return ETP_E_INTERNAL;
    if (d->single && fmt == ETP_FMT_JSON) return render_single_json(d, f);
    if (d->single) return fmt <= ETP_FMT_MD ? render_table(d->single, fmt, f, o) : ETP_E_USAGE;
    switch (fmt) {
    case ETP_FMT_JSON: return render_json(d, f);
    case ETP_FMT_TABLE:
    case ETP_FMT_MD: return render_text(d, fmt, f, o);
    case ETP_FMT_CSV:
    case ETP_FMT_TSV:
    case ETP_FMT_JSONL:
        if (fmt == ETP_FMT_JSONL && d->jsonl) return render_jsonl_array(d, f);
        if (!d->flat) return ETP_OK;
        return render_table(d->flat, fmt, f, o);
    }
    return ETP_E_USAGE;
}

/* ---- HTML (etp_table_render_html) ---- */

void res_html_esc(FILE *f, const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        if (c < 0x80) {
            switch (c) {
            case '&': fputs("&amp;", f); break;
            case '<': fputs("&lt;", f); break;
            case '>': fputs("&gt;", f); break;
            case '"': fputs("&quot;", f); break;
            case '\'': fputs("&#39;", f); break;
            default:
                if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) fputs("\xEF\xBF\xBD", f);
                else fputc(c, f);
            }
            i++;
            continue;
        }
        size_t l = jw_utf8_len(p + i, n - i);
        if (l == 0) {
            fputs("\xEF\xBF\xBD", f);
            i++;
        } else {
            fwrite(p + i, 1, l, f);
            i += l;
        }
    }
}

static void html_esc(FILE *f, const char *s) {
    if (s) res_html_esc(f, s, strlen(s));
}

static bool numeric(etp_type t) { return t == ETP_T_INT || t == ETP_T_UINT || t == ETP_T_FLOAT; }

/* class="a b c" of the non-empty parts (nothing when all are empty). */
static void html_class(FILE *f, const char *a, const char *b, const char *c) {
    const char *p[3] = {a, b, c};
    bool any = false;
    for (int i = 0; i < 3; i++) {
        if (!p[i] || !*p[i]) continue;
        fputs(any ? " " : " class=\"", f);
        html_esc(f, p[i]);
        any = true;
    }
    if (any) fputc('"', f);
}

int etp_table_render_html(const etp_table *t, FILE *f, const etp_html_opts *opts) {
    etp_html_opts none = {0};
    const etp_html_opts *o = opts ? opts : &none;
    if (!t || !f) return ETP_E_USAGE;
    if (t->doc->error) return ETP_E_INTERNAL;
    const char *nc = o->num_class ? o->num_class : "n";
    const char *null_text = o->null_text ? o->null_text : "\xE2\x80\x93";
    if (o->wrap_class) {
        fputs("<div", f);
        html_class(f, o->wrap_class, NULL, NULL);
        fputc('>', f);
    }
    fputs("<table", f);
    html_class(f, o->table_class, NULL, NULL);
    if (o->id) {
        fputs(" id=\"", f);
        html_esc(f, o->id);
        fputc('"', f);
    }
    fputs("><thead><tr>", f);
    for (size_t c = 0; c < t->ncols; c++) {
        fputs("<th", f);
        if (numeric(t->cols[c].type)) {
            html_class(f, nc, NULL, NULL);
            fputs(" data-type=\"num\"", f);
        }
        fputc('>', f);
        html_esc(f, t->headers[c]);
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>", f);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs("<tr>", f);
        for (size_t c = 0; c < t->ncols; c++) {
            const cell *x = &t->cells[r * t->ncols + c];
            etp_html_cell hc = {0};
            if (o->cell) o->cell(o->ctx, t, r, c, &hc);
            char nb[400];
            const char *text = NULL, *sortv = NULL;
            switch (x->t) {
            case ETP_T_STR: text = x->v.s; break;
            case ETP_T_INT: snprintf(nb, sizeof nb, "%" PRId64, x->v.i); text = sortv = nb; break;
            case ETP_T_UINT: snprintf(nb, sizeof nb, "%" PRIu64, x->v.u); text = sortv = nb; break;
            case ETP_T_FLOAT: break;
            case ETP_T_BOOL: text = x->v.b ? "yes" : "no"; break;
            case ETP_T_NULL: break;
            }
            char sb[JW_DTOA_MAX];
            if (x->t == ETP_T_FLOAT) {
                int prec = x->prec1 ? x->prec1 - 2 : t->cols[c].precision;
                text = out_fmt_float(nb, sizeof nb, x->v.f, prec);
                sortv = jw_dtoa(sb, x->v.f) ? sb : NULL;
            }
            bool num = numeric(t->cols[c].type);
            fputs("<td", f);
            html_class(f, num ? nc : NULL, o->col_class ? o->col_class[c] : NULL, hc.cls);
            if (num && sortv) {
                fputs(" data-v=\"", f);
                html_esc(f, sortv);
                fputc('"', f);
            }
            if (hc.title) {
                fputs(" title=\"", f);
                html_esc(f, hc.title);
                fputc('"', f);
            }
            fputc('>', f);
            if (hc.html) fputs(hc.html, f);
            if (!hc.replace) {
                if (text) res_html_esc(f, text, x->t == ETP_T_STR ? x->n : strlen(text));
                else fputs(null_text, f);
            }
            fputs("</td>", f);
        }
        fputs("</tr>", f);
    }
    fputs("</tbody></table>", f);
    if (o->wrap_class) fputs("</div>", f);
    for (size_t i = 0; i < t->nnotes; i++) {
        fputs("<p class=\"note\">", f);
        html_esc(f, t->notes[i]);
        fputs("</p>", f);
    }
    return ferror(f) ? ETP_E_IO : ETP_OK;
}

/* ---- JSON layout and safe names (info, tree: issue 11.3) ---- */

void etp_doc_program_here(etp_doc *d) {
    if (!d || d->error || d->program_placed) return;
    d->program_placed = true;
    d->program_at = d->root.nkids;
}

void etp_doc_json_omit(etp_doc *d, unsigned members) {
    if (d) d->json_omit |= members;
}

char *etp_text_safe(const char *s) { return out_text_dup(s); }

/* ---- partial JSON envelope (feature: qnn port) ---- */

void etp_doc_envelope(etp_doc *d, unsigned members) {
    if (d) d->envelope = members & (ETP_ENV_FILE | ETP_ENV_PROGRAM);
}

/* ---- streaming tables (etp_stream) ---- */

struct etp_stream {
    etp_format fmt;
    FILE *f;
    etp_doc *doc;   /* holds the copied columns */
    etp_table *t;
    out_col *ocols;
    out_table *ot;  /* table, md, csv, tsv */
    jw w;           /* json: the whole document; jsonl: the current line */
    char *buf;      /* the writers' buffer (jw_set_buffer) */
    size_t at;      /* next cell of the current row */
    bool in_row;
    bool misuse;
    bool io;        /* a jsonl line failed */
    /* the table formats keep every row until close: charged against the memory budget
     * (res_stream_charge_row), and refused past it (nothing is written then) */
    uint64_t group, pending, charged; /* the current group, its rows not charged yet */
    bool refused;
    etp_error err;
    char file[ETP_ERR_FILE_MAX]; /* the `file` of etp_stream_open, for that error */
};

#define STREAM_BUF (1u << 16)

etp_stream *etp_stream_open(etp_format fmt, FILE *f, const etp_render_opts *opts,
                            const etp_col *cols, size_t ncols, int schema_version,
                            const char *file, const char *rows_key) {
    if (!f || (unsigned)fmt > ETP_FMT_MD) return NULL;
    etp_render_opts none = {0};
    const etp_render_opts *o = opts ? opts : &none;
    etp_stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->fmt = fmt;
    s->f = f;
    if (file) snprintf(s->file, sizeof s->file, "%s", file);
    s->doc = etp_doc_new("stream", -1, NULL, NULL);
    s->t = etp_doc_table(s->doc, cols, ncols);
    s->ocols = calloc(ncols ? ncols : 1, sizeof *s->ocols);
    s->buf = malloc(STREAM_BUF);
    if (!s->t || !s->ocols || !s->buf) goto fail;
    for (size_t c = 0; c < ncols; c++)
        s->ocols[c] = (out_col){s->t->cols[c].key, s->t->headers[c], (out_type)s->t->cols[c].type,
                                s->t->cols[c].precision};
    switch (fmt) {
    case ETP_FMT_JSON:
        jw_init(&s->w, f, true);
        jw_set_buffer(&s->w, s->buf, STREAM_BUF);
        jw_obj_begin(&s->w);
        if (schema_version >= 0) {
            jw_key(&s->w, "schema_version"); jw_int(&s->w, schema_version);
            jw_key(&s->w, "file"); jw_str(&s->w, file);
        }
        jw_key(&s->w, rows_key ? rows_key : "rows");
        jw_arr_begin(&s->w);
        break;
    case ETP_FMT_JSONL: /* one writer and buffer for every line (jw_line_end) */
        jw_init(&s->w, f, false);
        jw_set_buffer(&s->w, s->buf, STREAM_BUF);
        break;
    default:
        if (!(s->ot = out_table_new((out_format)fmt, f, s->ocols, ncols))) goto fail;
        if (o->width) out_table_set_max_width(s->ot, o->width);
        if (o->csv_raw) out_table_set_csv_raw(s->ot, true);
        break;
    }
    return s;
fail:
    etp_doc_free(s->doc);
    free(s->ocols);
    free(s->buf);
    free(s);
    return NULL;
}

void etp_stream_droppable(etp_stream *s, const char *const *key_ranks) {
    if (s && s->ot && key_ranks) out_table_set_droppable(s->ot, key_ranks);
}

static bool stream_json(const etp_stream *s) {
    return s->fmt == ETP_FMT_JSON || s->fmt == ETP_FMT_JSONL;
}

jw *res_stream_json_row(etp_stream *s) {
    if (!s || !stream_json(s)) return NULL;
    if (s->in_row) {
        s->misuse = true;
        return NULL;
    }
    return &s->w;
}

void res_stream_json_row_end(etp_stream *s) { /* jsonl: each line is one JSON value */
    if (!s || s->fmt != ETP_FMT_JSONL) return;
    if (jw_line_end(&s->w)) s->io = true;
}

void etp_stream_row(etp_stream *s) {
    if (!s) return;
    if (s->in_row) {
        s->misuse = true;
        return;
    }
    s->in_row = true;
    s->at = 0;
    if (stream_json(s)) {
        jw_obj_begin(&s->w);
    } else {
        out_row_begin(s->ot);
    }
}

/* Starts the next cell (json: its key); false on misuse. */
static bool stream_cell(etp_stream *s) {
    if (!s) return false;
    if (!s->in_row || s->at >= s->t->ncols) {
        s->misuse = true;
        return false;
    }
    if (stream_json(s)) jw_key(&s->w, s->t->cols[s->at].key);
    s->at++;
    return true;
}

void etp_stream_str(etp_stream *s, const char *v) {
    if (!stream_cell(s)) return;
    if (stream_json(s)) jw_str(&s->w, v);
    else out_cell_str(s->ot, v);
}
void etp_stream_int(etp_stream *s, int64_t v) {
    if (!stream_cell(s)) return;
    if (stream_json(s)) jw_int(&s->w, v);
    else out_cell_int(s->ot, v);
}
void etp_stream_uint(etp_stream *s, uint64_t v) {
    if (!stream_cell(s)) return;
    if (stream_json(s)) jw_uint(&s->w, v);
    else out_cell_uint(s->ot, v);
}
void etp_stream_float(etp_stream *s, double v) {
    if (!stream_cell(s)) return;
    if (stream_json(s)) jw_double(&s->w, v);
    else out_cell_float(s->ot, v);
}
void etp_stream_bool(etp_stream *s, bool v) {
    if (!stream_cell(s)) return;
    if (stream_json(s)) jw_bool(&s->w, v);
    else out_cell_bool(s->ot, v);
}
void etp_stream_null(etp_stream *s) {
    if (!stream_cell(s)) return;
    if (stream_json(s)) jw_null(&s->w);
    else out_cell_null(s->ot);
}

void etp_stream_row_end(etp_stream *s) {
    if (!s) return;
    if (!s->in_row) {
        s->misuse = true;
        return;
    }
    if (stream_json(s)) {
        while (s->at < s->t->ncols) etp_stream_null(s);
        jw_obj_end(&s->w);
        res_stream_json_row_end(s);
    } else {
        out_row_end(s->ot);
    }
    s->in_row = false;
}

bool res_stream_charge_row(etp_stream *s, uint64_t group, uint32_t per_row) {
    if (!s || s->refused) return false;
    if (s->fmt != ETP_FMT_TABLE && s->fmt != ETP_FMT_MD) return true; /* written as they come */
    if (s->pending && group != s->group) {
        uint64_t bytes = s->pending * per_row;
        if (!etp__mem_take(bytes, etp__mem_budget(), NULL)) {
            s->refused = true;
            return false;
        }
        s->charged += bytes;
        s->pending = 0;
    }
    s->group = group;
    s->pending++;
    return true;
}

etp_error *res_stream_error(etp_stream *s) { return &s->err; }
const char *res_stream_file(const etp_stream *s) { return s->file[0] ? s->file : NULL; }

int etp_stream_error(const etp_stream *s, etp_error *err) {
    if (!s || !s->refused) return ETP_OK;
    if (err) *err = s->err;
    return s->err.code ? s->err.code : ETP_E_INPUT;
}

int etp_stream_flush(etp_stream *s) {
    if (!s) return ETP_E_INTERNAL;
    if (s->refused) return etp_stream_error(s, NULL);
    if (stream_json(s)) jw_flush(&s->w);
    return s->io || ferror(s->f) ? ETP_E_IO : ETP_OK;
}

int etp_stream_close(etp_stream *s) {
    if (!s) return ETP_E_INTERNAL;
    int rc = ETP_OK;
    if (s->in_row) s->misuse = true;
    if (s->fmt == ETP_FMT_JSON) {
        jw_arr_end(&s->w);
        jw_obj_end(&s->w);
        if (jw_finish(&s->w)) rc = ETP_E_IO;
        fputc('\n', s->f);
    } else if (s->fmt == ETP_FMT_JSONL) {
        jw_flush(&s->w);
        if (ferror(s->f)) rc = ETP_E_IO;
    } else if (s->ot) {
        /* refused: nothing is written (the rows so far would be a partial table) */
        rc = s->refused ? etp_stream_error(s, NULL) : out_table_finish(s->ot);
        out_table_free(s->ot);
    }
    etp__mem_give(s->charged);
    if (!rc && s->io) rc = ETP_E_IO;
    if (!rc && s->misuse) rc = ETP_E_INTERNAL;
    etp_doc_free(s->doc);
    free(s->ocols);
    free(s->buf);
    free(s);
    return rc;
}

