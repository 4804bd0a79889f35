/* etrecord.c - the ETRecord reader (include/etprof_etrecord.h, docs/formats.md "ETRecord").
 *
 * The container is read with libzip (loaded on first use: src/base/zipload.h): the central
 * directory first, then only the JSON entries that are needed, one at a time, each into a
 * buffer bounded by its claimed size (checked against the limit before anything is read) and
 * parsed with jansson. What is kept is copied
 * into the record's arena and the JSON document is freed before the next entry is read. */
#include "etprof_etrecord.h"
#include "etrecord_int.h"
#include "membudget.h"
#include "sniff.h"
#include "zipload.h"

#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ZF etp__zipfns /* libzip's calls, once etp__zip() has loaded it */

/* ---- arena: everything the record returns lives here until close ---- */

typedef struct arena_blk {
    struct arena_blk *next;
    size_t used, cap;
    max_align_t data[];
} arena_blk;

typedef struct map_entry {
    int64_t instr;
    uint32_t n;
    int64_t *h;
} map_entry;

typedef struct deleg_id {
    const char *id;
    uint32_t n;
    int64_t *h;
} deleg_id;

typedef struct deleg_entry {
    int64_t instr;
    const char *backend;
    uint32_t n_ids;
    deleg_id *ids;
} deleg_entry;

typedef struct method_maps {
    const char *method;
    uint32_t n_handles, n_deleg, n_outs;
    map_entry *handles; /* sorted by instr */
    deleg_entry *deleg; /* sorted by instr */
    map_entry *outs;    /* n = 1, h[0] = outputs */
} method_maps;

struct etp_etrecord {
    arena_blk *arena;
    char *path;
    uint32_t n_entries;
    etp_etr_entry *entries;
    uint32_t n_programs;
    etp_etr_program *programs;
    uint32_t n_methods;
    method_maps *methods;
    uint32_t skipped;
    uint64_t charged;      /* the arena's blocks, held of the memory budget until close */
    uint64_t refused_need; /* a block the budget refused (aalloc), for the error */
};

static void *aalloc(etp_etrecord *r, size_t n) {
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (n == 0) n = sizeof(max_align_t);
    arena_blk *b = r->arena;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        /* what the record keeps is charged against the memory budget until it is closed */
        if (!etp__mem_take(sizeof *b + cap, etp__mem_budget(), NULL)) {
            r->refused_need = r->charged + sizeof *b + cap;
            return NULL;
        }
        b = malloc(sizeof *b + cap);
        if (!b) {
            etp__mem_give(sizeof *b + cap);
            return NULL;
        }
        r->charged += sizeof *b + cap;
        b->next = r->arena;
        b->used = 0;
        b->cap = cap;
        r->arena = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

static char *astrn(etp_etrecord *r, const char *s, size_t len) {
    char *c = aalloc(r, len + 1);
    if (!c) return NULL;
    memcpy(c, s, len);
    c[len] = 0;
    return c;
}

static char *astr(etp_etrecord *r, const char *s) { return astrn(r, s, strlen(s)); }

/* ---- the reading context ---- */

typedef struct rd {
    etp_etrecord *r;
    zip_t *z;
    const char *file;
    const char *entry;
    etp_etrecord_opts o;
    etp_error *err;
    char jpath[200];
} rd;

/* Out of memory, or the arena over the memory budget (aalloc). */
static int oom(rd *c) {
    if (c->r && c->r->refused_need) {
        uint64_t budget = etp__mem_budget();
        etp_error_set(c->err, ETP_E_INPUT, c->file, -1, *c->entry ? c->entry : "",
                      "what the record keeps would take %.1f MiB, over the memory budget of "
                      "%.1f MiB (docs/verifier.md \"Memory\"): set ETPROF_MEMORY_BUDGET=MiB (0: "
                      "no limit) to allow more memory",
                      (double)c->r->refused_need / 1048576.0, (double)budget / 1048576.0);
        return ETP_E_INPUT;
    }
    etp_error_set(c->err, ETP_E_INTERNAL, c->file, -1, "", "out of memory");
    return ETP_E_INTERNAL;
}
#define OOM(c) oom(c)

static int fail_entry(rd *c, const char *jpath, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int fail_entry(rd *c, const char *jpath, const char *fmt, ...) {
    char path[ETP_ERR_PATH_MAX], msg[ETP_ERR_MSG_MAX];
    if (jpath && *jpath) snprintf(path, sizeof path, "entry %s: %s", c->entry, jpath);
    else snprintf(path, sizeof path, "entry %s", c->entry);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    etp_error_set(c->err, ETP_E_INPUT, c->file, -1, path, "%s", msg);
    return ETP_E_INPUT;
}

static const char *jtype(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* ---- one JSON entry, parsed as it inflates, within the memory budget ----
 *
 * The entry is never held whole: jansson reads it through a callback that inflates it a chunk
 * at a time, and each chunk is scanned before jansson sees it. The scan counts what jansson's
 * tree will take (its values, keys and strings) and charges it against the process's memory
 * budget (src/base/membudget.h) as it grows, so a zip bomb (a 100M-element array in 210 KB) is
 * refused at the byte where the tree would pass the budget, not after 4.6 GB; it also bounds
 * the nesting depth (jansson recurses). Bytes charged per structural character outside strings,
 * measured with jansson 2.14 on x86-64 (peak RSS of json_loadb over 10^6 values, malloc's
 * overhead included): an integer or other element 40 (charged 48 per ','), a string 88 + its
 * bytes ('"' 48 + ',' 48 + the bytes), an object member 257 (key '"' 48 + ':' 64 + its value),
 * an empty object 232 ('{' 240), an array 96 ('['). The lexer's buffer holds the longest token
 * up to three times (its doubling capacity and the decoded copy). */
#define ETR_CHARGE_OBJECT 240u
#define ETR_CHARGE_ARRAY 96u
#define ETR_CHARGE_MEMBER 64u  /* ':' */
#define ETR_CHARGE_ELEMENT 48u /* ',' */
#define ETR_CHARGE_STRING 48u  /* '"' that opens a string */
#define ETR_CHARGE_STEP ((uint64_t)1 << 20)

typedef struct jstream {
    rd *c;
    zip_file_t *f;
    uint64_t size, got; /* claimed and inflated bytes */
    bool scan; /* false: only read on (after a parse error) */
    bool in_str, esc;
    uint32_t depth;
    uint64_t cost, tok, max_tok, values; /* tree bytes so far (not the lexer's buffer) */
    uint64_t budget, charged;
    int rc; /* the error that stopped the parse (set in c->err), or ETP_OK */
} jstream;

static int etr_budget_fail(rd *c, uint64_t at, uint64_t need, uint64_t budget, uint64_t held,
                           uint64_t mine) {
    char also[64] = "";
    if (held > mine)
        snprintf(also, sizeof also, " (%.1f MiB already in use)", (double)(held - mine) / 1048576.0);
    return fail_entry(c, NULL,
                      "at byte %llu of the entry, its JSON values would take %.1f MiB to build, "
                      "over the memory budget of %.1f MiB%s (docs/verifier.md \"Memory\"): set "
                      "ETPROF_MEMORY_BUDGET=MiB (0: no limit) to allow more memory",
                      (unsigned long long)at, (double)need / 1048576.0,
                      (double)budget / 1048576.0, also);
}

/* Scans b[0..n), the entry's bytes from js->got on: depth, and the tree's cost, charged. */
static int scan_chunk(jstream *js, const unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = b[i];
        if (js->in_str) {
            js->cost++;
            js->tok++;
            if (js->esc) js->esc = false;
            else if (ch == '\\') js->esc = true;
            else if (ch == '"') js->in_str = false;
        } else {
            switch (ch) {
            case '"': js->in_str = true; js->cost += ETR_CHARGE_STRING; js->tok = 0; break;
            case '{':
            case '[':
                if (++js->depth > js->c->o.max_depth)
                    return fail_entry(js->c, NULL,
                                      "JSON nested deeper than %u levels at byte %llu of the entry",
                                      js->c->o.max_depth, (unsigned long long)(js->got + i));
                js->cost += ch == '{' ? ETR_CHARGE_OBJECT : ETR_CHARGE_ARRAY;
                js->values++;
                js->tok = 0;
                break;
            case '}':
            case ']': if (js->depth) js->depth--; js->tok = 0; break;
            case ':': js->cost += ETR_CHARGE_MEMBER; js->values++; js->tok = 0; break;
            case ',': js->cost += ETR_CHARGE_ELEMENT; js->values++; js->tok = 0; break;
            case ' ': case '\t': case '\n': case '\r': js->tok = 0; break;
            default: js->tok++; break; /* a number or a literal */
            }
        }
        if (js->tok > js->max_tok) js->max_tok = js->tok;
        uint64_t need = js->cost + 3 * js->max_tok;
        if (need > js->charged) {
            uint64_t step = (need - js->charged + ETR_CHARGE_STEP - 1) / ETR_CHARGE_STEP *
                            ETR_CHARGE_STEP, held = 0;
            if (!etp__mem_take(step, js->budget, &held))
                return etr_budget_fail(js->c, js->got + i, need, js->budget, held, js->charged);
            js->charged += step;
        }
    }
    return ETP_OK;
}

/* jansson's reader: the next inflated chunk, scanned; (size_t)-1 stops the parse (js->rc). */
static size_t entry_read(void *buf, size_t len, void *data) {
    jstream *js = data;
    if (js->rc) return (size_t)-1;
    /* one byte more than claimed may come: data that inflates past its claim is rejected */
    zip_uint64_t want = len;
    if (want > js->size + 1 - js->got) want = js->size + 1 - js->got;
    zip_int64_t k = want ? ZF.fread(js->f, buf, want) : 0;
    if (k < 0) {
        js->rc = fail_entry(js->c, NULL, "cannot read: %s", ZF.file_strerror(js->f));
        return (size_t)-1;
    }
    if ((uint64_t)k + js->got > js->size) {
        js->rc = fail_entry(js->c, NULL, "holds more data than the %llu bytes its header claims",
                            (unsigned long long)js->size);
        return (size_t)-1;
    }
    if (k == 0 && js->got != js->size) {
        js->rc = fail_entry(js->c, NULL, "holds %llu of the %llu bytes its header claims",
                            (unsigned long long)js->got, (unsigned long long)js->size);
        return (size_t)-1;
    }
    if (js->scan && (js->rc = scan_chunk(js, buf, (size_t)k))) return (size_t)-1;
    js->got += (uint64_t)k;
    return (size_t)k;
}

/* Parses entry `idx` (claimed size `size`) into `*doc`; `*charged` is what its tree holds of
 * the memory budget, to give back (etp__mem_give) once the document is freed. */
static int load_json(rd *c, zip_uint64_t idx, uint64_t size, json_t **doc, uint64_t *charged) {
    *doc = NULL;
    *charged = 0;
    if (size > c->o.max_json_bytes)
        return fail_entry(c, NULL,
                          "claims %llu bytes uncompressed, over the limit of %llu bytes for a "
                          "JSON entry (a zip bomb or not an ETRecord)",
                          (unsigned long long)size, (unsigned long long)c->o.max_json_bytes);
    zip_file_t *f = ZF.fopen_index(c->z, idx, 0);
    if (!f) {
        zip_error_t *ze = ZF.get_error(c->z);
        int rc = fail_entry(c, NULL, "cannot read: %s", ZF.error_strerror(ze));
        ZF.error_clear(c->z);
        return rc;
    }
    jstream js = {.c = c, .f = f, .size = size, .scan = true, .budget = etp__mem_budget()};
    json_error_t je;
    *doc = json_load_callback(entry_read, &js, JSON_REJECT_DUPLICATES, &je);
    /* jansson stops at the end of its value and the whitespace after it: the rest of the
     * claimed bytes must still be there, and nothing more */
    if (*doc && !js.rc) {
        unsigned char tail[256];
        while (!js.rc) {
            size_t k = entry_read(tail, sizeof tail, &js);
            if (k == (size_t)-1 || k == 0) break;
        }
        if (!js.rc && js.got != size)
            js.rc = fail_entry(c, NULL, "holds %llu of the %llu bytes its header claims",
                               (unsigned long long)js.got, (unsigned long long)size);
    }
    /* malformed: the rest is still read (not scanned), so that a damaged entry (a CRC or size
     * that does not match) is named as such first, as when entries were read whole */
    if (!*doc && !js.rc) {
        js.scan = false;
        unsigned char tail[4096];
        while (!js.rc) {
            size_t k = entry_read(tail, sizeof tail, &js);
            if (k == (size_t)-1 || k == 0) break;
        }
    }
    ZF.fclose(f);
    *charged = js.charged;
    if (js.rc) {
        json_decref(*doc);
        *doc = NULL;
        return js.rc;
    }
    if (!*doc) {
        /* jansson names every syntax error with its place; a failed allocation while it builds
         * the tree (json_array_append and the like) leaves none */
        if (json_error_code(&je) == json_error_out_of_memory || (je.line < 0 && !je.text[0])) {
            etp_error_set(c->err, ETP_E_INTERNAL, c->file, -1, "",
                          "out of memory parsing entry %s (%llu bytes of JSON)", c->entry,
                          (unsigned long long)size);
            return ETP_E_INTERNAL;
        }
        return fail_entry(c, NULL, "malformed JSON at line %d, column %d (byte %d of the entry): %s",
                          je.line, je.column, je.position, je.text);
    }
    return ETP_OK;
}

/* "forward" -> jpath builder */
static const char *jp(rd *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static const char *jp(rd *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->jpath, sizeof c->jpath, fmt, ap);
    va_end(ap);
    return c->jpath;
}

static int parse_i64(const char *s, int64_t *v) {
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*end || errno) return -1;
    *v = x;
    return 0;
}

static method_maps *maps_for(rd *c, const char *method) {
    etp_etrecord *r = c->r;
    for (uint32_t i = 0; i < r->n_methods; i++)
        if (strcmp(r->methods[i].method, method) == 0) return &r->methods[i];
    method_maps *m = realloc(r->methods, (r->n_methods + 1) * sizeof *m);
    if (!m) return NULL;
    r->methods = m;
    m = &r->methods[r->n_methods];
    memset(m, 0, sizeof *m);
    m->method = astr(r, method);
    if (!m->method) return NULL;
    r->n_methods++;
    return m;
}

/* an int or a list of ints -> arena array */
static int handle_list(rd *c, const json_t *v, const char *path, int64_t **h, uint32_t *n) {
    if (json_is_integer(v)) {
        *h = aalloc(c->r, sizeof **h);
        if (!*h) return OOM(c);
        (*h)[0] = json_integer_value(v);
        *n = 1;
        return ETP_OK;
    }
    if (!json_is_array(v))
        return fail_entry(c, path, "expected a debug handle (an integer) or a list of them, got %s",
                          jtype(v));
    size_t k = json_array_size(v);
    *h = aalloc(c->r, (k ? k : 1) * sizeof **h);
    if (!*h) return OOM(c);
    for (size_t i = 0; i < k; i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_integer(e)) {
            char p[160];
            snprintf(p, sizeof p, "%s[%zu]", path, i);
            return fail_entry(c, p, "expected a debug handle (an integer), got %s", jtype(e));
        }
        (*h)[i] = json_integer_value(e);
    }
    *n = (uint32_t)k;
    return ETP_OK;
}

static int cmp_map(const void *a, const void *b) {
    int64_t x = ((const map_entry *)a)->instr, y = ((const map_entry *)b)->instr;
    return (x > y) - (x < y);
}
static int cmp_deleg(const void *a, const void *b) {
    int64_t x = ((const deleg_entry *)a)->instr, y = ((const deleg_entry *)b)->instr;
    return (x > y) - (x < y);
}

/* debug_handle_map and instruction_id_to_num_outs_map: {"method": {"instr": ...}} */
static int read_instr_map(rd *c, const json_t *doc, bool outs) {
    if (!json_is_object(doc))
        return fail_entry(c, NULL, "expected an object of methods, got %s", jtype(doc));
    const char *method;
    json_t *mv;
    json_object_foreach((json_t *)doc, method, mv) {
        if (!json_is_object(mv))
            return fail_entry(c, jp(c, "%s", method), "expected an object of instructions, got %s",
                              jtype(mv));
        method_maps *m = maps_for(c, method);
        if (!m) return OOM(c);
        size_t k = json_object_size(mv);
        map_entry *e = aalloc(c->r, (k ? k : 1) * sizeof *e);
        if (!e) return OOM(c);
        size_t i = 0;
        const char *key;
        json_t *v;
        json_object_foreach(mv, key, v) {
            char p[160];
            snprintf(p, sizeof p, "%s.%s", method, key);
            if (parse_i64(key, &e[i].instr) || e[i].instr < 0)
                return fail_entry(c, p, "key is not an instruction id (a decimal integer)");
            if (outs) {
                if (!json_is_integer(v) || json_integer_value(v) < 0)
                    return fail_entry(c, p, "expected a number of outputs, got %s", jtype(v));
                e[i].h = aalloc(c->r, sizeof *e[i].h);
                if (!e[i].h) return OOM(c);
                e[i].h[0] = json_integer_value(v);
                e[i].n = 1;
            } else {
                int rc = handle_list(c, v, p, &e[i].h, &e[i].n);
                if (rc) return rc;
            }
            i++;
        }
        qsort(e, k, sizeof *e, cmp_map);
        if (outs) {
            m->outs = e;
            m->n_outs = (uint32_t)k;
        } else {
            m->handles = e;
            m->n_handles = (uint32_t)k;
        }
    }
    return ETP_OK;
}

static int read_delegate_map(rd *c, const json_t *doc) {
    if (!json_is_object(doc))
        return fail_entry(c, NULL, "expected an object of methods, got %s", jtype(doc));
    const char *method;
    json_t *mv;
    json_object_foreach((json_t *)doc, method, mv) {
        if (!json_is_object(mv))
            return fail_entry(c, jp(c, "%s", method), "expected an object of instructions, got %s",
                              jtype(mv));
        method_maps *m = maps_for(c, method);
        if (!m) return OOM(c);
        size_t k = json_object_size(mv);
        deleg_entry *e = aalloc(c->r, (k ? k : 1) * sizeof *e);
        if (!e) return OOM(c);
        size_t i = 0;
        const char *key;
        json_t *v;
        json_object_foreach(mv, key, v) {
            char p[160];
            snprintf(p, sizeof p, "%s.%s", method, key);
            if (parse_i64(key, &e[i].instr) || e[i].instr < 0)
                return fail_entry(c, p, "key is not an instruction id (a decimal integer)");
            if (!json_is_object(v))
                return fail_entry(c, p, "expected an object with name and delegate_map, got %s",
                                  jtype(v));
            json_t *name = json_object_get(v, "name"), *dm = json_object_get(v, "delegate_map");
            if (name && !json_is_null(name)) {
                if (!json_is_string(name))
                    return fail_entry(c, jp(c, "%s.name", p), "expected a backend name, got %s",
                                      jtype(name));
                e[i].backend = astr(c->r, json_string_value(name));
                if (!e[i].backend) return OOM(c);
            }
            if (dm && !json_is_null(dm)) {
                if (!json_is_object(dm))
                    return fail_entry(c, jp(c, "%s.delegate_map", p),
                                      "expected an object of delegate debug ids, got %s", jtype(dm));
                size_t nd = json_object_size(dm), j = 0;
                e[i].ids = aalloc(c->r, (nd ? nd : 1) * sizeof *e[i].ids);
                if (!e[i].ids) return OOM(c);
                const char *id;
                json_t *hv;
                json_object_foreach(dm, id, hv) {
                    char p2[200];
                    snprintf(p2, sizeof p2, "%s.delegate_map.%s", p, id);
                    e[i].ids[j].id = astr(c->r, id);
                    if (!e[i].ids[j].id) return OOM(c);
                    int rc = handle_list(c, hv, p2, &e[i].ids[j].h, &e[i].ids[j].n);
                    if (rc) return rc;
                    j++;
                }
                e[i].n_ids = (uint32_t)nd;
            }
            i++;
        }
        qsort(e, k, sizeof *e, cmp_deleg);
        m->deleg = e;
        m->n_deleg = (uint32_t)k;
    }
    return ETP_OK;
}

/* ---- nn_module_stack: `key,fqn,type` entries joined by ';', split outside brackets ---- */

static int bracket_step(char ch, int depth) {
    if (ch == '(' || ch == '[' || ch == '{' || ch == '<') return depth + 1;
    if ((ch == ')' || ch == ']' || ch == '}' || ch == '>') && depth > 0) return depth - 1;
    return depth;
}

int etp__etr_split_modules(const char *s, etp_etr_module *out, uint32_t cap, char *scratch) {
    /* scratch: strlen(s)+1 bytes; out[] point into it */
    size_t L = strlen(s);
    memcpy(scratch, s, L + 1);
    uint32_t n = 0;
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i <= L; i++) {
        char ch = scratch[i];
        if (ch && (ch != ';' || depth > 0)) {
            depth = bracket_step(ch, depth);
            continue;
        }
        scratch[i] = 0;
        char *e = scratch + start;
        start = i + 1;
        if (!*e) continue;
        /* first ',' at depth 0 ends the key; last ',' at depth 0 starts the type */
        char *first = NULL, *last = NULL;
        int d = 0;
        for (char *p = e; *p; p++) {
            if (*p == ',' && d == 0) {
                if (!first) first = p;
                last = p;
            }
            d = bracket_step(*p, d);
        }
        if (n < cap) {
            if (!first) {
                out[n] = (etp_etr_module){e, "", ""};
            } else if (first == last) {
                *first = 0;
                out[n] = (etp_etr_module){e, first + 1, ""};
            } else {
                *first = 0;
                *last = 0;
                out[n] = (etp_etr_module){e, first + 1, last + 1};
            }
        }
        n++;
        depth = 0;
    }
    return (int)n;
}

static int set_modules(rd *c, etp_etr_node *nd, const char *s) {
    size_t L = strlen(s);
    char *scratch = aalloc(c->r, L + 1);
    if (!scratch) return OOM(c);
    uint32_t cnt = 0;
    for (size_t i = 0; i <= L; i++) cnt += s[i] == ';' || s[i] == 0;
    etp_etr_module *m = aalloc(c->r, cnt * sizeof *m);
    if (!m) return OOM(c);
    int n = etp__etr_split_modules(s, m, cnt, scratch);
    nd->modules = m;
    nd->n_modules = (uint32_t)(n < 0 ? 0 : n > (int)cnt ? (int)cnt : n);
    return ETP_OK;
}

static const char *strip_target(const char *t) {
    static const char *const pre[] = {"executorch.exir.dialects.edge.ops.", "torch.ops.",
                                      "executorch.exir.dialects.backend.ops."};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
        size_t l = strlen(pre[i]);
        if (strncmp(t, pre[i], l) == 0) return t + l;
    }
    return t;
}

/* the name of a node's first output argument */
static const char *output_name(const json_t *outs) {
    json_t *o = json_array_get(outs, 0);
    if (!json_is_object(o)) return NULL;
    static const char *const kinds[] = {"as_tensor", "as_sym_int", "as_sym_bool", "as_sym_float"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        json_t *t = json_object_get(o, kinds[i]);
        if (json_is_object(t)) {
            json_t *n = json_object_get(t, "name");
            if (json_is_string(n)) return json_string_value(n);
        }
        if (json_is_object(t) && json_is_string(json_object_get(t, "as_name")))
            return json_string_value(json_object_get(t, "as_name"));
    }
    json_t *ts = json_object_get(o, "as_tensors");
    if (json_is_array(ts)) {
        json_t *n = json_object_get(json_array_get(ts, 0), "name");
        if (json_is_string(n)) return json_string_value(n);
    }
    return NULL;
}

static int read_tensor_meta(rd *c, const json_t *tv, etp_etr_node *nd) {
    nd->dtype = -1;
    nd->ndim = -1;
    if (!json_is_object(tv) || !nd->name[0]) return ETP_OK;
    json_t *meta = json_object_get(json_object_get(tv, nd->name), "meta");
    if (!json_is_object(meta)) meta = json_object_get(tv, nd->name); /* some versions: no meta */
    if (!json_is_object(meta)) return ETP_OK;
    json_t *dt = json_object_get(meta, "dtype");
    if (json_is_integer(dt)) nd->dtype = (int32_t)json_integer_value(dt);
    json_t *sz = json_object_get(meta, "sizes");
    if (json_is_array(sz)) {
        size_t k = json_array_size(sz);
        if (k > 64) return ETP_OK;
        int64_t *s = aalloc(c->r, (k ? k : 1) * sizeof *s);
        if (!s) return OOM(c);
        for (size_t i = 0; i < k; i++) {
            json_t *e = json_array_get(sz, i);
            json_t *ai = json_is_object(e) ? json_object_get(e, "as_int") : e;
            s[i] = json_is_integer(ai) ? json_integer_value(ai) : -1;
        }
        nd->sizes = s;
        nd->ndim = (int32_t)k;
    }
    return ETP_OK;
}

static int cmp_node_handle(const void *a, const void *b) {
    const etp_etr_node *x = *(const etp_etr_node *const *)a, *y = *(const etp_etr_node *const *)b;
    if (x->debug_handle != y->debug_handle) return (x->debug_handle > y->debug_handle) - (x->debug_handle < y->debug_handle);
    return (x->index > y->index) - (x->index < y->index);
}

typedef struct prog_priv {
    etp_etr_program pub;
    const etp_etr_node **by_handle; /* nodes with a handle, sorted by (handle, index) */
} prog_priv;

static int read_program(rd *c, const json_t *doc, prog_priv *pp) {
    if (!json_is_object(doc))
        return fail_entry(c, NULL, "expected an exported program (an object), got %s", jtype(doc));
    json_t *gm = json_object_get(doc, "graph_module");
    if (!json_is_object(gm))
        return fail_entry(c, "graph_module", gm ? "expected an object, got %s" : "missing%s",
                          gm ? jtype(gm) : "");
    json_t *g = json_object_get(gm, "graph");
    if (!json_is_object(g))
        return fail_entry(c, "graph_module.graph", g ? "expected an object, got %s" : "missing%s",
                          g ? jtype(g) : "");
    json_t *nodes = json_object_get(g, "nodes");
    if (!json_is_array(nodes))
        return fail_entry(c, "graph_module.graph.nodes",
                          nodes ? "expected an array, got %s" : "missing%s",
                          nodes ? jtype(nodes) : "");
    json_t *tv = json_object_get(g, "tensor_values");
    size_t k = json_array_size(nodes);
    etp_etr_node *nd = aalloc(c->r, (k ? k : 1) * sizeof *nd);
    if (!nd) return OOM(c);
    uint32_t handled = 0;
    for (size_t i = 0; i < k; i++) {
        json_t *n = json_array_get(nodes, i);
        char p[96];
        snprintf(p, sizeof p, "graph_module.graph.nodes[%zu]", i);
        if (!json_is_object(n)) return fail_entry(c, p, "expected a node (an object), got %s", jtype(n));
        nd[i].index = (uint32_t)i;
        nd[i].debug_handle = -1;
        json_t *t = json_object_get(n, "target");
        if (!json_is_string(t))
            return fail_entry(c, jp(c, "%s.target", p), t ? "expected a string, got %s" : "missing%s",
                              t ? jtype(t) : "");
        nd[i].target = astr(c->r, json_string_value(t));
        if (!nd[i].target) return OOM(c);
        nd[i].op = strip_target(nd[i].target);
        const char *nm = output_name(json_object_get(n, "outputs"));
        nd[i].name = astr(c->r, nm ? nm : "");
        if (!nd[i].name) return OOM(c);
        json_t *md = json_object_get(n, "metadata");
        if (md && !json_is_null(md) && !json_is_object(md))
            return fail_entry(c, jp(c, "%s.metadata", p), "expected an object, got %s", jtype(md));
        const char *key;
        json_t *v;
        json_object_foreach(md, key, v) {
            const char *sv = json_is_string(v) ? json_string_value(v) : NULL;
            if (strcmp(key, "debug_handle") == 0) {
                int64_t h;
                if (json_is_integer(v)) h = json_integer_value(v);
                else if (parse_i64(sv, &h))
                    return fail_entry(c, jp(c, "%s.metadata.debug_handle", p),
                                      "expected a decimal integer, got %s%s%s%s", jtype(v),
                                      sv ? " \"" : "", sv ? sv : "", sv ? "\"" : "");
                if (h < 0)
                    return fail_entry(c, jp(c, "%s.metadata.debug_handle", p),
                                      "debug handle %lld is negative", (long long)h);
                nd[i].debug_handle = h;
                handled++;
                continue;
            }
            bool st = strcmp(key, "stack_trace") == 0, nn = strcmp(key, "nn_module_stack") == 0,
                 sf = strcmp(key, "source_fn_stack") == 0;
            if (!st && !nn && !sf) continue;
            if (!sv) {
                if (json_is_null(v)) continue;
                return fail_entry(c, jp(c, "%s.metadata.%s", p, key), "expected a string, got %s",
                                  jtype(v));
            }
            if (st) {
                if (!(nd[i].stack_trace = astr(c->r, sv))) return OOM(c);
            } else if (sf) {
                if (!(nd[i].source_fn_stack = astr(c->r, sv))) return OOM(c);
            } else {
                int rc = set_modules(c, &nd[i], sv);
                if (rc) return rc;
            }
        }
        int rc = read_tensor_meta(c, tv, &nd[i]);
        if (rc) return rc;
    }
    pp->pub.nodes = nd;
    pp->pub.n_nodes = (uint32_t)k;
    pp->pub.n_handled = handled;
    pp->by_handle = aalloc(c->r, (handled ? handled : 1) * sizeof *pp->by_handle);
    if (!pp->by_handle) return OOM(c);
    uint32_t j = 0;
    for (size_t i = 0; i < k; i++)
        if (nd[i].debug_handle >= 0) pp->by_handle[j++] = &nd[i];
    qsort(pp->by_handle, j, sizeof *pp->by_handle, cmp_node_handle);
    return ETP_OK;
}

/* ---- classification of entry names ---- */

static bool ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static etp_etr_kind classify(const char *n, const char **method) {
    *method = NULL;
    if (strcmp(n, "ETRECORD_V0") == 0) return ETP_ETR_MARKER;
    if (strcmp(n, "debug_handle_map") == 0) return ETP_ETR_DEBUG_HANDLE_MAP;
    if (strcmp(n, "delegate_map") == 0) return ETP_ETR_DELEGATE_MAP;
    if (strcmp(n, "instruction_id_to_num_outs_map") == 0) return ETP_ETR_NUM_OUTS_MAP;
    if (strcmp(n, "export_graph_id") == 0) return ETP_ETR_GRAPH_ID;
    if (strcmp(n, "reference_outputs") == 0 || strcmp(n, "representative_inputs") == 0 ||
        ends_with(n, "_state_dict") || ends_with(n, "_constants") ||
        ends_with(n, "_example_inputs"))
        return ETP_ETR_PICKLE;
    if (n[0] == 0 || ends_with(n, "/")) return ETP_ETR_OTHER; /* a directory */
    static const char edge[] = "edge_dialect_exported_program";
    if (strcmp(n, edge) == 0) {
        *method = "forward";
        return ETP_ETR_EDGE_PROGRAM;
    }
    if (strncmp(n, edge, sizeof edge - 1) == 0 && n[sizeof edge - 1] == '/' && n[sizeof edge]) {
        *method = n + sizeof edge;
        return ETP_ETR_EDGE_PROGRAM;
    }
    if (strcmp(n, "exported_program") == 0) {
        *method = "forward";
        return ETP_ETR_ATEN_PROGRAM;
    }
    static const char aten[] = "aten_dialect_output";
    if (strncmp(n, aten, sizeof aten - 1) == 0 && n[sizeof aten - 1] == '/' && n[sizeof aten]) {
        *method = n + sizeof aten;
        return ETP_ETR_ATEN_PROGRAM;
    }
    const char *sl = strrchr(n, '/');
    if (sl && sl != n && sl[1]) {
        *method = sl + 1;
        return ETP_ETR_GRAPH_MAP;
    }
    return ETP_ETR_OTHER;
}

const char *etp_etr_kind_name(etp_etr_kind k) {
    switch (k) {
    case ETP_ETR_MARKER: return "marker";
    case ETP_ETR_DEBUG_HANDLE_MAP: return "debug_handle_map";
    case ETP_ETR_DELEGATE_MAP: return "delegate_map";
    case ETP_ETR_NUM_OUTS_MAP: return "num_outs_map";
    case ETP_ETR_GRAPH_ID: return "export_graph_id";
    case ETP_ETR_EDGE_PROGRAM: return "edge_program";
    case ETP_ETR_ATEN_PROGRAM: return "aten_program";
    case ETP_ETR_GRAPH_MAP: return "graph_map";
    case ETP_ETR_PICKLE: return "pickle";
    default: return "other";
    }
}

void etp_etrecord_opts_init(etp_etrecord_opts *o) {
    o->max_entries = ETP_ETR_MAX_ENTRIES;
    o->max_json_bytes = ETP_ETR_MAX_JSON_BYTES;
    o->max_depth = ETP_ETR_MAX_DEPTH;
}

static int zip_fail(rd *c, int code, const char *what, bool has_eocd) {
    zip_error_t ze;
    ZF.error_init_with_code(&ze, code);
    if (code == ZIP_ER_NOZIP && has_eocd)
        /* libzip's consistency check (ZIP_CHECKCONS) says "not a zip archive" when an entry's
         * header or data does not fit between the start of the file and the central directory */
        etp_error_set(c->err, ETP_E_INPUT, c->file, -1, "",
                      "damaged ZIP archive: an entry's data runs past the end of the file or "
                      "into the central directory (the sizes or offsets in the central "
                      "directory are wrong)");
    else if (code == ZIP_ER_NOZIP)
        etp_error_set(c->err, ETP_E_INPUT, c->file, -1, "",
                      "not an ETRecord: not a ZIP archive (no end of central directory record)");
    else if (code == ZIP_ER_OPEN || code == ZIP_ER_READ || code == ZIP_ER_SEEK)
        etp_error_set(c->err, code == ZIP_ER_OPEN ? ETP_E_IO : ETP_E_INPUT, c->file, -1, "",
                      "%s: %s", what, ZF.error_strerror(&ze));
    else if (code == ZIP_ER_MEMORY)
        etp_error_set(c->err, ETP_E_INTERNAL, c->file, -1, "", "out of memory");
    else
        etp_error_set(c->err, ETP_E_INPUT, c->file, -1, "", "damaged ZIP archive: %s",
                      ZF.error_strerror(&ze));
    ZF.error_fini(&ze);
    return c->err ? c->err->code : ETP_E_INPUT;
}

static int read_all(rd *c) {
    etp_etrecord *r = c->r;
    zip_int64_t ne = ZF.get_num_entries(c->z, 0);
    if (ne < 0) ne = 0;
    if ((uint64_t)ne > c->o.max_entries) {
        etp_error_set(c->err, ETP_E_INPUT, c->file, -1, "",
                      "%lld entries, over the limit of %u for an ETRecord",
                      (long long)ne, c->o.max_entries);
        return ETP_E_INPUT;
    }
    r->entries = aalloc(r, ((size_t)ne ? (size_t)ne : 1) * sizeof *r->entries);
    zip_uint64_t *idx = aalloc(r, ((size_t)ne ? (size_t)ne : 1) * sizeof *idx);
    if (!r->entries || !idx) return OOM(c);
    bool marker = false;
    uint32_t nprog = 0;
    for (zip_int64_t i = 0; i < ne; i++) {
        zip_stat_t st;
        ZF.stat_init(&st);
        if (ZF.stat_index(c->z, (zip_uint64_t)i, 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME)) {
            etp_error_set(c->err, ETP_E_INPUT, c->file, -1, "",
                          "damaged ZIP archive: central directory entry %lld cannot be read: %s",
                          (long long)i, ZF.strerror(c->z));
            return ETP_E_INPUT;
        }
        etp_etr_entry *e = &r->entries[r->n_entries++];
        idx[i] = (zip_uint64_t)i;
        e->name = astr(r, st.name);
        if (!e->name) return OOM(c);
        e->size = st.size;
        e->compressed_size = st.comp_size;
        e->compression = st.comp_method == ZIP_CM_STORE     ? "stored"
                         : st.comp_method == ZIP_CM_DEFLATE ? "deflate"
                                                            : "other";
        const char *method;
        e->kind = classify(e->name, &method);
        if (e->kind == ETP_ETR_MARKER) marker = true;
        if (e->kind == ETP_ETR_EDGE_PROGRAM || e->kind == ETP_ETR_ATEN_PROGRAM ||
            e->kind == ETP_ETR_GRAPH_MAP)
            nprog++;
    }
    if (!marker) {
        etp_error_set(c->err, ETP_E_INPUT, c->file, -1, "",
                      "not an ETRecord: no ETRECORD_V0 entry (a ZIP of %u entries)", r->n_entries);
        return ETP_E_INPUT;
    }
    prog_priv *pp = aalloc(r, (nprog ? nprog : 1) * sizeof *pp);
    if (!pp) return OOM(c);
    for (uint32_t i = 0; i < r->n_entries; i++) {
        etp_etr_entry *e = &r->entries[i];
        c->entry = e->name;
        bool json = e->kind == ETP_ETR_DEBUG_HANDLE_MAP || e->kind == ETP_ETR_DELEGATE_MAP ||
                    e->kind == ETP_ETR_NUM_OUTS_MAP || e->kind == ETP_ETR_EDGE_PROGRAM ||
                    e->kind == ETP_ETR_ATEN_PROGRAM || e->kind == ETP_ETR_GRAPH_MAP;
        if (!json) {
            if (e->kind != ETP_ETR_MARKER) r->skipped++;
            continue;
        }
        if (strcmp(e->compression, "other") == 0)
            return fail_entry(c, NULL, "unsupported compression method (stored and deflate are)");
        json_t *doc;
        uint64_t charged;
        int rc = load_json(c, idx[i], e->size, &doc, &charged);
        if (rc) {
            etp__mem_give(charged);
            return rc;
        }
        if (e->kind == ETP_ETR_DEBUG_HANDLE_MAP) rc = read_instr_map(c, doc, false);
        else if (e->kind == ETP_ETR_NUM_OUTS_MAP) rc = read_instr_map(c, doc, true);
        else if (e->kind == ETP_ETR_DELEGATE_MAP) rc = read_delegate_map(c, doc);
        else {
            prog_priv *p = &pp[r->n_programs];
            const char *method;
            p->pub.kind = classify(e->name, &method);
            p->pub.entry = e->name;
            p->pub.method = method; /* points into e->name or a literal */
            rc = read_program(c, doc, p);
            if (!rc) r->n_programs++;
        }
        json_decref(doc);
        etp__mem_give(charged);
        if (rc) return rc;
        e->read = true;
    }
    r->programs = &pp[0].pub; /* prog_priv starts with pub; accessors step by prog_priv */
    return ETP_OK;
}

static int open_zip(etp_etrecord **out, zip_t *z, const char *name,
                    const etp_etrecord_opts *opts, etp_error *err) {
    etp_etrecord *r = calloc(1, sizeof *r);
    rd c = {.r = r, .z = z, .file = name, .entry = "", .err = err};
    if (!r) {
        ZF.discard(z);
        return OOM(&c);
    }
    etp_etrecord_opts_init(&c.o);
    if (opts) {
        if (opts->max_entries) c.o.max_entries = opts->max_entries;
        if (opts->max_json_bytes) c.o.max_json_bytes = opts->max_json_bytes;
        if (opts->max_depth) c.o.max_depth = opts->max_depth;
    }
    r->path = strdup(name);
    int rc = r->path ? read_all(&c) : OOM(&c);
    ZF.discard(z);
    if (rc) {
        etp_etrecord_close(r);
        return rc;
    }
    *out = r;
    return ETP_OK;
}

/* An end of central directory record (PK\5\6) in the last 64 KiB + 22 bytes. */
static bool has_eocd(const unsigned char *t, size_t n) {
    for (size_t i = n >= 22 ? n - 22 + 1 : 0; i-- > 0;) {
        if (t[i] == 'P' && i + 4 <= n && t[i + 1] == 'K' && t[i + 2] == 5 && t[i + 3] == 6)
            return true;
        if (n - i > 65536 + 22) break;
    }
    return false;
}

static bool file_has_eocd(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    unsigned char *t = malloc(65536 + 22);
    bool ok = false;
    if (t && fseek(f, 0, SEEK_END) == 0) {
        long sz = ftell(f);
        long from = sz > 65536 + 22 ? sz - (65536 + 22) : 0;
        if (sz >= 0 && fseek(f, from, SEEK_SET) == 0) {
            size_t n = fread(t, 1, (size_t)(sz - from), f);
            ok = has_eocd(t, n);
        }
    }
    free(t);
    fclose(f);
    return ok;
}

int etp_etrecord_open(etp_etrecord **out, const char *path, const etp_etrecord_opts *opts,
                      etp_error *err) {
    *out = NULL;
    rd c = {.file = path, .err = err};
    if (!path || !*path) {
        etp_error_set(err, ETP_E_USAGE, "", -1, "", "no ETRecord file name given");
        return ETP_E_USAGE;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        etp_error_set(err, ETP_E_IO, path, -1, "", "is a directory");
        return ETP_E_IO;
    }
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        etp_error_set(err, ETP_E_IO, path, -1, "", "cannot open: %s", strerror(errno));
        return ETP_E_IO;
    }
    unsigned char head[4096] = {0}; /* the signature, and what the file is when it is not */
    size_t got = fread(head, 1, sizeof head, probe);
    fclose(probe);
    if (got == 0) {
        etp_error_set(err, ETP_E_INPUT, path, 0, "", "not an ETRecord: the file is empty");
        return ETP_E_INPUT;
    }
    if (got < 4 || head[0] != 'P' || head[1] != 'K') {
        etp_error_set(err, ETP_E_INPUT, path, 0, "",
                      "not an ETRecord: no ZIP signature PK at byte 0");
        etp__sniff_hint(err, head, got, NULL);
        return ETP_E_INPUT;
    }
    if (!etp__zip(path, err)) return ETP_E_IO;
    int zerr = 0;
    zip_t *z = ZF.open(path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
    if (!z) return zip_fail(&c, zerr, "cannot open", zerr == ZIP_ER_NOZIP && file_has_eocd(path));
    return open_zip(out, z, path, opts, err);
}

int etp__etrecord_open_buffer(etp_etrecord **out, const void *data, size_t size, const char *name,
                              const etp_etrecord_opts *opts, etp_error *err) {
    *out = NULL;
    rd c = {.file = name, .err = err};
    if (!etp__zip(name, err)) return ETP_E_IO;
    zip_error_t ze;
    ZF.error_init(&ze);
    zip_source_t *src = ZF.source_buffer_create(data, size, 0, &ze);
    if (!src) {
        ZF.error_fini(&ze);
        return OOM(&c);
    }
    zip_t *z = ZF.open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
    if (!z) {
        int code = ZF.error_code_zip(&ze);
        ZF.source_free(src);
        ZF.error_fini(&ze);
        return zip_fail(&c, code, "cannot open", has_eocd((const unsigned char *)data, size));
    }
    ZF.error_fini(&ze);
    return open_zip(out, z, name, opts, err);
}

void etp_etrecord_close(etp_etrecord *r) {
    if (!r) return;
    etp__mem_give(r->charged);
    for (arena_blk *b = r->arena; b;) {
        arena_blk *n = b->next;
        free(b);
        b = n;
    }
    free(r->methods);
    free(r->path);
    free(r);
}

/* ---- accessors ---- */

const char *etp_etrecord_path(const etp_etrecord *r) { return r->path; }
uint32_t etp_etrecord_entry_count(const etp_etrecord *r) { return r->n_entries; }
const etp_etr_entry *etp_etrecord_entry(const etp_etrecord *r, uint32_t i) {
    return i < r->n_entries ? &r->entries[i] : NULL;
}
uint32_t etp_etrecord_skipped_count(const etp_etrecord *r) { return r->skipped; }
uint32_t etp_etrecord_program_count(const etp_etrecord *r) { return r->n_programs; }

static const prog_priv *priv(const etp_etr_program *p) { return (const prog_priv *)p; }

const etp_etr_program *etp_etrecord_program(const etp_etrecord *r, uint32_t i) {
    if (i >= r->n_programs) return NULL;
    return &((const prog_priv *)r->programs)[i].pub;
}

const etp_etr_program *etp_etrecord_edge_program(const etp_etrecord *r, const char *method) {
    if (!method) method = "forward";
    const etp_etr_program *old = NULL;
    for (uint32_t i = 0; i < r->n_programs; i++) {
        const etp_etr_program *p = etp_etrecord_program(r, i);
        if (p->kind != ETP_ETR_EDGE_PROGRAM) continue;
        if (strchr(p->entry, '/')) {
            if (strcmp(p->method, method) == 0) return p;
        } else if (strcmp(method, "forward") == 0) {
            old = p;
        }
    }
    return old;
}

const etp_etr_node *etp_etrecord_node_by_name(const etp_etr_program *p, const char *name) {
    if (!p || !name) return NULL;
    for (uint32_t i = 0; i < p->n_nodes; i++)
        if (strcmp(p->nodes[i].name, name) == 0) return &p->nodes[i];
    return NULL;
}

uint32_t etp_etrecord_nodes_by_handle(const etp_etr_program *p, int64_t handle,
                                      const etp_etr_node **out, uint32_t cap) {
    if (!p) return 0;
    const prog_priv *pp = priv(p);
    uint32_t lo = 0, hi = p->n_handled;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pp->by_handle[mid]->debug_handle < handle) lo = mid + 1;
        else hi = mid;
    }
    uint32_t n = 0;
    for (uint32_t i = lo; i < p->n_handled && pp->by_handle[i]->debug_handle == handle; i++) {
        if (n < cap) out[n] = pp->by_handle[i];
        n++;
    }
    return n;
}

uint32_t etp_etrecord_map_method_count(const etp_etrecord *r) { return r->n_methods; }
const char *etp_etrecord_map_method(const etp_etrecord *r, uint32_t i) {
    return i < r->n_methods ? r->methods[i].method : NULL;
}

static const method_maps *find_maps(const etp_etrecord *r, const char *method) {
    if (!method) method = "forward";
    for (uint32_t i = 0; i < r->n_methods; i++)
        if (strcmp(r->methods[i].method, method) == 0) return &r->methods[i];
    return NULL;
}

static const map_entry *find_instr(const map_entry *e, uint32_t n, int64_t instr) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (e[mid].instr < instr) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && e[lo].instr == instr ? &e[lo] : NULL;
}

static const deleg_entry *find_deleg(const method_maps *m, int64_t instr) {
    if (!m) return NULL;
    uint32_t lo = 0, hi = m->n_deleg;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->deleg[mid].instr < instr) lo = mid + 1;
        else hi = mid;
    }
    return lo < m->n_deleg && m->deleg[lo].instr == instr ? &m->deleg[lo] : NULL;
}

bool etp_etrecord_instr_handles(const etp_etrecord *r, const char *method, int64_t instr,
                                const int64_t **h, uint32_t *n) {
    const method_maps *m = find_maps(r, method);
    const map_entry *e = m ? find_instr(m->handles, m->n_handles, instr) : NULL;
    if (!e) return false;
    *h = e->h;
    *n = e->n;
    return true;
}

const char *etp_etrecord_delegate_backend(const etp_etrecord *r, const char *method,
                                          int64_t instr) {
    const deleg_entry *d = find_deleg(find_maps(r, method), instr);
    return d ? d->backend : NULL;
}

bool etp_etrecord_delegate_handles(const etp_etrecord *r, const char *method, int64_t instr,
                                   const char *delegate_id, const int64_t **h, uint32_t *n) {
    const deleg_entry *d = find_deleg(find_maps(r, method), instr);
    if (!d || !delegate_id) return false;
    for (uint32_t i = 0; i < d->n_ids; i++)
        if (strcmp(d->ids[i].id, delegate_id) == 0) {
            *h = d->ids[i].h;
            *n = d->ids[i].n;
            return true;
        }
    return false;
}

int64_t etp_etrecord_num_outs(const etp_etrecord *r, const char *method, int64_t instr) {
    const method_maps *m = find_maps(r, method);
    const map_entry *e = m ? find_instr(m->outs, m->n_outs, instr) : NULL;
    return e ? e->h[0] : -1;
}
