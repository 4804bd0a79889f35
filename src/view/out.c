/* out.c - tabular output in six formats; see out.h and docs/output-formats.md. */
#include "out.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "etprof.h"

#define MIN_SHRINK_WIDTH 12
#define NAME_KEEP_WIDTH 28 /* string columns keep this much before numeric columns go */
#define ABSENT ((size_t)-1) /* length prefix of an absent cell in the arena */

typedef struct {
    char *p;
    size_t len, cap;
} buf;

struct out_table {
    out_format fmt;
    FILE *f;
    const out_col *cols;
    size_t ncols;
    jw own; /* the writer of json/jsonl output */
    jw *w;  /* &own, or the caller's writer */
    bool in_json;
    int max_width;
    bool in_row, misuse, oom, finished;
    bool csv_raw; /* no formula-injection prefix */
    size_t cell; /* cells given in the current row */
    /* table/md: the header row then every row, each cell a size_t length (ABSENT) and its
     * display text; csv/tsv: scratch space for one field */
    buf arena;
    buf notes; /* NUL-terminated copies */
    size_t *widths;
    bool *hidden; /* table: columns left out to fit max_width */
    int *drop;    /* table: rank of each column for leaving out, 0 = never */
    int *group;   /* table: columns with the same group (> 0) are left out together */
};

/* --------------------------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------------------------ */

static bool reserve(out_table *t, buf *b, size_t extra) {
    if (t->oom) return false;
    if (b->cap - b->len >= extra) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra) {
        if (cap > SIZE_MAX / 2) {
            t->oom = true;
            return false;
        }
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) {
        t->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

static void append(out_table *t, buf *b, const void *data, size_t n) {
    if (!reserve(t, b, n)) return;
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

static bool is_numeric(out_type type) {
    return type == OUT_INT || type == OUT_UINT || type == OUT_FLOAT;
}

/* Number of code points of valid UTF-8 text. */
static size_t text_width(const char *s, size_t n) {
    size_t w = n, i = 0;
    for (; i + 8 <= n; i += 8) { /* 8 bytes at a time: the continuation bytes (10xxxxxx) */
        uint64_t x;
        memcpy(&x, s + i, 8);
        uint64_t c = x & ~(x << 1) & UINT64_C(0x8080808080808080);
        for (; c; c &= c - 1) w--;
    }
    for (; i < n; i++) w -= ((unsigned char)s[i] & 0xC0) == 0x80;
    return w;
}

enum { SAN_PLAIN, SAN_MD, SAN_CSV_QUOTED, SAN_CSV };

/* Writes s[0..n) to `o` (room for 3 * n bytes) as valid UTF-8 (each invalid byte becomes U+FFFD)
 * in which control characters (C0, DEL, C1) are spaces, except TAB, CR and LF in the csv modes.
 * SAN_MD escapes '|', SAN_CSV_QUOTED doubles '"'. Returns the end. */
static char *sanitize_to(char *o, const char *str, size_t n, int mode) {
    const unsigned char *s = (const unsigned char *)str;
    bool csv = mode == SAN_CSV || mode == SAN_CSV_QUOTED;
    /* printable ASCII other than the mode's special character is copied as it is (0: none) */
    unsigned char special = mode == SAN_MD ? '|' : mode == SAN_CSV_QUOTED ? '"' : 0;
    for (size_t i = 0; i < n;) {
        while (i < n && (unsigned char)(s[i] - 0x20) < 0x5F && s[i] != special) *o++ = (char)s[i++];
        if (i == n) break;
        unsigned char c = s[i];
        if (c >= 0x80) {
            size_t len = jw_utf8_len(s + i, n - i);
            if (len == 0) {
                memcpy(o, "\xEF\xBF\xBD", 3);
                o += 3;
                i++;
            } else if (len == 2 && c == 0xC2 && s[i + 1] < 0xA0) {
                *o++ = ' '; /* U+0080..U+009F */
                i += 2;
            } else {
                memcpy(o, s + i, len);
                o += len;
                i += len;
            }
            continue;
        }
        if ((c < 0x20 || c == 0x7F) && !(csv && (c == '\t' || c == '\r' || c == '\n'))) c = ' ';
        else if (c == '|' && mode == SAN_MD) *o++ = '\\';
        else if (c == '"' && mode == SAN_CSV_QUOTED) *o++ = '"';
        *o++ = (char)c;
        i++;
    }
    return o;
}

/* Appends s[0..n) to the arena, sanitized (sanitize_to). */
static void sanitize(out_table *t, const char *str, size_t n, int mode) {
    if (n > (SIZE_MAX - 16) / 3 || !reserve(t, &t->arena, 3 * n)) {
        t->oom = true;
        return;
    }
    char *o = sanitize_to(t->arena.p + t->arena.len, str, n, mode);
    t->arena.len = (size_t)(o - t->arena.p);
}

char *out_text_dup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s);
    char *c = n < (SIZE_MAX - 1) / 3 ? malloc(3 * n + 1) : NULL;
    if (c) *sanitize_to(c, s, n, SAN_PLAIN) = 0;
    return c;
}

/* "%.*f" of v with 0..9 places, written from an integer: the text printf gives, which rounds
 * v's exact binary value to the nearest multiple of 10^-places. r = nearbyint(v * 10^places)
 * (the product rounded to a double first) is that multiple when v's exact product lies within
 * 0.5 of r. fma(v, 10^places, -r) is that difference rounded once (relative error 2^-53), so a
 * magnitude below 0.5 - 2^-40 proves it. Anything else (a tie or close to one, a product of
 * 2^52 or more, more than 9 places, NaN) returns false and printf writes it. Needs cap >= 32
 * (at most 16 digits, a point, 9 places, a sign). */
static bool fixed_places(char *b, size_t cap, double v, int places) {
    static const double p10d[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    static const uint64_t p10u[] = {1,       10,       100,       1000,       10000,
                                    100000,  1000000,  10000000,  100000000,  1000000000};
    if (places < 0 || places > 9 || cap < 32) return false;
    double s = v * p10d[places];
    if (!(fabs(s) < 4503599627370496.0)) return false; /* 2^52; NaN too */
    double r = nearbyint(s);
    if (!(fabs(fma(v, p10d[places], -r)) < 0.5 - 0x1p-40)) return false;
    uint64_t n = (uint64_t)fabs(r), ip = n / p10u[places], fp = n % p10u[places];
    char tmp[32], *end = tmp + sizeof tmp, *p = end;
    for (int i = 0; i < places; i++, fp /= 10) *--p = (char)('0' + fp % 10);
    if (places) *--p = '.';
    do *--p = (char)('0' + ip % 10);
    while (ip /= 10);
    if (signbit(v)) *--p = '-'; /* as printf: "-0.000" for -0.0001 (the caller drops it) */
    memcpy(b, p, (size_t)(end - p));
    b[end - p] = '\0';
    return true;
}

/* Text of a float cell in the text formats (out.h). */
const char *out_fmt_float(char *b, size_t cap, double v, int precision) {
    if (isinf(v)) return v < 0 ? "-inf" : "inf";
    if (precision < 0) {
        jw_dtoa(b, v);
    } else if (!fixed_places(b, cap, v, precision)) {
        snprintf(b, cap, "%.*f", precision > 30 ? 30 : precision, v);
        jw_c_number(b);
    }
    if (b[0] == '-' && strspn(b + 1, "0.") == strlen(b + 1)) return b + 1; /* no "-0.00" */
    return b;
}

static void put_n(FILE *f, char c, size_t n) {
    char run[64];
    memset(run, c, n < sizeof run ? n : sizeof run);
    for (size_t k; n; n -= k) fwrite(run, 1, k = n < sizeof run ? n : sizeof run, f);
}

/* --------------------------------------------------------------------------------------------
 * Cells
 * ------------------------------------------------------------------------------------------ */

typedef enum { V_ABSENT, V_STR, V_INT, V_UINT, V_FLOAT, V_BOOL } vkind;

typedef struct {
    vkind kind;
    const char *s;
    size_t n;
    int64_t i;
    uint64_t u;
    double d;
    bool b;
    bool own_prec; /* V_FLOAT: prec, not the column's precision (out_cell_float_prec) */
    int prec;
} val;

static void json_value(jw *w, const val *v) {
    switch (v->kind) {
    case V_ABSENT: jw_null(w); break;
    case V_STR: jw_strn(w, v->s, v->n); break;
    case V_INT: jw_int(w, v->i); break;
    case V_UINT: jw_uint(w, v->u); break;
    case V_FLOAT: jw_double(w, v->d); break;
    case V_BOOL: jw_bool(w, v->b); break;
    }
}

/* The text of a value in the text formats (NULL when absent); numbers are formatted into nb. */
static const char *text_value(const val *v, const out_col *col, char *nb, size_t cap, size_t *n) {
    const char *s = NULL;
    switch (v->kind) {
    case V_ABSENT: return NULL;
    case V_STR: *n = v->n; return v->s;
    case V_INT: snprintf(nb, cap, "%" PRId64, v->i); s = nb; break;
    case V_UINT: snprintf(nb, cap, "%" PRIu64, v->u); s = nb; break;
    case V_FLOAT: s = out_fmt_float(nb, cap, v->d, v->own_prec ? v->prec : col->precision); break;
    case V_BOOL: s = v->b ? "true" : "false"; break;
    }
    *n = strlen(s);
    return s;
}

/* Would a spreadsheet read this text cell as a formula? (OWASP "CSV injection" list) */
static bool formula_like(const val *v) {
    if (v->kind != V_STR || v->n == 0) return false;
    char c = v->s[0];
    if (!(c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r')) return false;
    if (c != '-' && c != '+') return true;
    /* a number given as text ("-12.5", "+3") is a number, not a formula: left as it is */
    char nb[64];
    if (v->n >= sizeof nb) return true;
    memcpy(nb, v->s, v->n);
    nb[v->n] = '\0';
    char *end;
    (void)strtod(nb, &end);
    return end == nb || *end != '\0';
}

static void csv_field(out_table *t, const char *s, size_t n, bool prefix) {
    bool quote = false;
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
    t->arena.len = 0;
    if (quote) append(t, &t->arena, "\"", 1);
    if (prefix) append(t, &t->arena, "'", 1);
    sanitize(t, s, n, quote ? SAN_CSV_QUOTED : SAN_CSV);
    if (quote) append(t, &t->arena, "\"", 1);
}

/* Table and md cells longer than this many bytes are kept cut (at a character's start), with
 * how many bytes were left out: a table keeps every row until the last (to align its columns),
 * and a long string that many rows share (a name every event of a crafted dump refers to) would
 * otherwise be kept once per row. csv, tsv and json keep every byte. docs/output-formats.md. */
#define CELL_MAX 4096

/* Stores one table/md cell (s NULL: absent) in the arena. */
static void keep_cell(out_table *t, const char *s, size_t n) {
    size_t at = t->arena.len, len = ABSENT;
    append(t, &t->arena, &len, sizeof len);
    if (!s || t->oom) return;
    size_t keep = n;
    if (n > CELL_MAX) {
        keep = CELL_MAX; /* back to the start of a UTF-8 character (at most 3 bytes back) */
        for (int k = 0; k < 3 && ((unsigned char)s[keep] & 0xC0) == 0x80; k++) keep--;
    }
    sanitize(t, s, keep, t->fmt == OUT_MD ? SAN_MD : SAN_PLAIN);
    if (keep < n) {
        char cut[64];
        int k = snprintf(cut, sizeof cut, " [... %zu more bytes]", n - keep);
        append(t, &t->arena, cut, (size_t)k);
    }
    len = t->arena.len - at - sizeof len;
    if (!t->oom) memcpy(t->arena.p + at, &len, sizeof len);
}

static void put_cell(out_table *t, const val *v) {
    if (!t->in_row || t->cell >= t->ncols) {
        t->misuse = true;
        return;
    }
    const out_col *col = &t->cols[t->cell];
    char nb[400];
    size_t n = 0;
    const char *s;
    switch (t->fmt) {
    case OUT_JSON:
    case OUT_JSONL:
        jw_key(t->w, col->key);
        json_value(t->w, v);
        break;
    case OUT_CSV:
    case OUT_TSV:
        if (t->cell) fputc(t->fmt == OUT_CSV ? ',' : '\t', t->f);
        s = text_value(v, col, nb, sizeof nb, &n);
        if (!s) break;
        if (t->fmt == OUT_CSV) {
            csv_field(t, s, n, !t->csv_raw && formula_like(v));
        } else {
            t->arena.len = 0;
            if (!t->csv_raw && formula_like(v)) append(t, &t->arena, "'", 1);
            sanitize(t, s, n, SAN_PLAIN);
        }
        if (!t->oom) fwrite(t->arena.p, 1, t->arena.len, t->f);
        break;
    case OUT_TABLE:
    case OUT_MD:
        s = text_value(v, col, nb, sizeof nb, &n);
        keep_cell(t, s, n);
        break;
    }
    t->cell++;
}

void out_cell_strn(out_table *t, const char *s, size_t len) {
    val v = {.kind = s ? V_STR : V_ABSENT, .s = s, .n = len};
    put_cell(t, &v);
}

void out_cell_str(out_table *t, const char *s) { out_cell_strn(t, s, s ? strlen(s) : 0); }

void out_cell_int(out_table *t, int64_t x) {
    val v = {.kind = V_INT, .i = x};
    put_cell(t, &v);
}

void out_cell_uint(out_table *t, uint64_t x) {
    val v = {.kind = V_UINT, .u = x};
    put_cell(t, &v);
}

void out_cell_float(out_table *t, double x) {
    val v = {.kind = isnan(x) ? V_ABSENT : V_FLOAT, .d = x};
    put_cell(t, &v);
}

void out_cell_float_prec(out_table *t, double x, int precision) {
    val v = {.kind = isnan(x) ? V_ABSENT : V_FLOAT, .d = x, .own_prec = true, .prec = precision};
    put_cell(t, &v);
}

void out_cell_bool(out_table *t, bool x) {
    val v = {.kind = V_BOOL, .b = x};
    put_cell(t, &v);
}

void out_cell_null(out_table *t) {
    val v = {.kind = V_ABSENT};
    put_cell(t, &v);
}

/* --------------------------------------------------------------------------------------------
 * Rows
 * ------------------------------------------------------------------------------------------ */

void out_row_begin(out_table *t) {
    if (t->in_row || t->finished) {
        t->misuse = true;
        return;
    }
    t->in_row = true;
    t->cell = 0;
    if (t->fmt == OUT_JSONL) jw_init(&t->own, t->f, false);
    if (t->fmt == OUT_JSON || t->fmt == OUT_JSONL) jw_obj_begin(t->w);
}

void out_row_end(out_table *t) {
    if (!t->in_row) {
        t->misuse = true;
        return;
    }
    while (t->cell < t->ncols) out_cell_null(t);
    t->in_row = false;
    switch (t->fmt) {
    case OUT_JSON: jw_obj_end(t->w); break;
    case OUT_JSONL:
        jw_obj_end(t->w);
        if (jw_finish(t->w) != 0 && !ferror(t->f)) t->misuse = true;
        fputc('\n', t->f);
        break;
    case OUT_CSV:
    case OUT_TSV: fputc('\n', t->f); break;
    case OUT_TABLE:
    case OUT_MD: break;
    }
}

/* --------------------------------------------------------------------------------------------
 * Creation
 * ------------------------------------------------------------------------------------------ */

static out_table *table_alloc(out_format fmt, FILE *f, const out_col *cols, size_t ncols) {
    if ((unsigned)fmt > OUT_MD) return NULL;
    out_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->fmt = fmt;
    t->f = f;
    t->cols = cols;
    t->ncols = ncols;
    t->w = &t->own;
    if (fmt == OUT_TABLE || fmt == OUT_MD) {
        t->widths = calloc(ncols ? ncols : 1, sizeof *t->widths);
        t->hidden = calloc(ncols ? ncols : 1, sizeof *t->hidden);
        t->drop = calloc(ncols ? ncols : 1, sizeof *t->drop);
        t->group = calloc(ncols ? ncols : 1, sizeof *t->group);
        if (!t->widths || !t->hidden || !t->drop || !t->group) {
            free(t->widths);
            free(t->hidden);
            free(t->drop);
            free(t->group);
            free(t);
            return NULL;
        }
    }
    return t;
}

out_table *out_table_new(out_format fmt, FILE *f, const out_col *cols, size_t ncols) {
    out_table *t = table_alloc(fmt, f, cols, ncols);
    if (!t) return NULL;
    switch (fmt) {
    case OUT_JSON:
        jw_init(&t->own, f, true);
        jw_obj_begin(t->w);
        jw_key(t->w, "schema_version");
        jw_int(t->w, 1);
        jw_key(t->w, "rows");
        jw_arr_begin(t->w);
        break;
    case OUT_JSONL: break;
    case OUT_CSV:
    case OUT_TSV:
        /* the header line is a row of the keys */
        t->in_row = true;
        for (size_t c = 0; c < ncols; c++) out_cell_str(t, cols[c].key);
        t->in_row = false;
        fputc('\n', f);
        break;
    case OUT_TABLE:
    case OUT_MD:
        /* the header is the arena's first row */
        for (size_t c = 0; c < ncols; c++)
            keep_cell(t, cols[c].header ? cols[c].header : cols[c].key,
                      strlen(cols[c].header ? cols[c].header : cols[c].key));
        break;
    }
    return t;
}

out_table *out_table_new_in_json(jw *w, const out_col *cols, size_t ncols) {
    out_table *t = table_alloc(OUT_JSON, NULL, cols, ncols);
    if (!t) return NULL;
    t->w = w;
    t->f = w->f;
    t->in_json = true;
    jw_arr_begin(w);
    return t;
}

void out_table_set_csv_raw(out_table *t, bool raw) { t->csv_raw = raw; }

void out_table_set_max_width(out_table *t, int cols) { t->max_width = cols > 0 ? cols : 0; }

void out_table_set_droppable(out_table *t, const char *const *key_ranks) {
    if (!t->drop) return;
    int g = 0;
    for (; key_ranks && *key_ranks; key_ranks++) {
        const char *colon = strrchr(*key_ranks, ':');
        if (!colon) continue;
        int rank = atoi(colon + 1);
        g++;
        /* "a+b:3": a and b go together */
        for (const char *k = *key_ranks; k < colon;) {
            const char *plus = memchr(k, '+', (size_t)(colon - k));
            size_t kl = (size_t)((plus ? plus : colon) - k);
            for (size_t c = 0; c < t->ncols; c++)
                if (strlen(t->cols[c].key) == kl && memcmp(t->cols[c].key, k, kl) == 0) {
                    t->drop[c] = rank;
                    t->group[c] = g;
                }
            k += kl + (plus != NULL);
        }
    }
}

void out_table_note(out_table *t, const char *text) {
    if (!text) return;
    append(t, &t->notes, text, strlen(text) + 1);
}

/* --------------------------------------------------------------------------------------------
 * Rendering of table and md
 * ------------------------------------------------------------------------------------------ */

/* Walks the arena cell by cell; returns false at the end. */
static bool next_cell(const out_table *t, size_t *pos, const char **s, size_t *n) {
    if (*pos >= t->arena.len) return false;
    memcpy(n, t->arena.p + *pos, sizeof *n);
    *pos += sizeof *n;
    *s = *n == ABSENT ? NULL : t->arena.p + *pos;
    if (*s) *pos += *n;
    return true;
}

static size_t line_width(const out_table *t) {
    size_t total = 0, shown = 0;
    for (size_t c = 0; c < t->ncols; c++)
        if (!t->hidden[c]) {
            total += t->widths[c];
            shown++;
        }
    return total + (shown ? 2 * (shown - 1) : 0);
}

/* Shrinks the widest string columns, never below `floor`, until the lines fit `max`; returns
 * the width left. */
static size_t shrink_strings(out_table *t, size_t max, size_t total, size_t floor) {
    while (total > max) {
        size_t widest = t->ncols, second = floor;
        for (size_t c = 0; c < t->ncols; c++) {
            if (t->hidden[c] || t->cols[c].type != OUT_STR || t->widths[c] <= floor) continue;
            if (widest == t->ncols || t->widths[c] > t->widths[widest]) {
                if (widest != t->ncols && t->widths[widest] > second) second = t->widths[widest];
                widest = c;
            } else if (t->widths[c] > second) {
                second = t->widths[c];
            }
        }
        if (widest == t->ncols) break; /* nothing left to shrink */
        size_t cut = t->widths[widest] - second;
        if (cut == 0) cut = 1; /* a tie: take one from the leftmost, the next round the other */
        if (cut > total - max) cut = total - max;
        t->widths[widest] -= cut;
        total -= cut;
    }
    return total;
}

/* Fits the lines into `max` columns: string columns are shortened down to NAME_KEEP_WIDTH
 * first, then the columns marked droppable are left out (highest rank first, the rightmost of a
 * tie, with the rest of its group), and only then are string columns cut further (never below
 * MIN_SHRINK_WIDTH). A note names the columns left out and how to get them back. */
static void shrink_to(out_table *t, size_t max) {
    size_t full = line_width(t);
    size_t total = shrink_strings(t, max, full, NAME_KEEP_WIDTH);
    size_t *order = malloc(t->ncols * sizeof *order); /* the columns left out, in turn */
    size_t nout = 0;
    while (total > max) {
        size_t pick = t->ncols;
        for (size_t c = 0; c < t->ncols; c++)
            if (!t->hidden[c] && t->drop[c] > 0 &&
                (pick == t->ncols || t->drop[c] >= t->drop[pick]))
                pick = c;
        if (pick == t->ncols) break;
        for (size_t c = 0; c < t->ncols; c++)
            if (c == pick || (!t->hidden[c] && t->group[c] == t->group[pick])) t->hidden[c] = true;
        if (order) order[nout++] = pick;
        total = line_width(t);
    }
    /* a wide column may have made room for narrower, less important ones left out before it:
     * those come back when they fit, the more important first */
    for (size_t k = nout; k-- > 0 && total <= max;) {
        size_t pick = order[k];
        for (size_t c = 0; c < t->ncols; c++)
            if (c == pick || t->group[c] == t->group[pick]) t->hidden[c] = false;
        size_t with = line_width(t);
        if (with <= max) {
            total = with;
            continue;
        }
        for (size_t c = 0; c < t->ncols; c++)
            if (c == pick || t->group[c] == t->group[pick]) t->hidden[c] = true;
    }
    free(order);
    char left_out[256] = "";
    size_t lo = 0;
    for (size_t c = 0; c < t->ncols; c++) {
        if (!t->hidden[c]) continue;
        const char *h = t->cols[c].header ? t->cols[c].header : t->cols[c].key;
        int w = snprintf(left_out + lo, sizeof left_out - lo, "%s%s", lo ? ", " : "", h);
        if (w > 0 && (size_t)w < sizeof left_out - lo) lo += (size_t)w;
    }
    if (lo) {
        char note[400];
        snprintf(note, sizeof note,
                 "columns left out to fit %zu terminal columns: %s (--wide or COLUMNS=%zu shows "
                 "them; --format csv or json has every column)",
                 max, left_out, full);
        out_table_note(t, note);
    }
    shrink_strings(t, max, total, MIN_SHRINK_WIDTH);
}

/* The table's lines are put together here and written in blocks: one fwrite per 16 KB instead
 * of three stdio calls per cell. */
typedef struct {
    FILE *f;
    size_t len;
    char b[16384];
} line_out;

static void lo_flush(line_out *o) {
    if (o->len) fwrite(o->b, 1, o->len, o->f);
    o->len = 0;
}

static void lo_put(line_out *o, const char *s, size_t n) {
    if (n > sizeof o->b - o->len) {
        lo_flush(o);
        if (n > sizeof o->b) {
            fwrite(s, 1, n, o->f);
            return;
        }
    }
    memcpy(o->b + o->len, s, n);
    o->len += n;
}

static void lo_puts(line_out *o, const char *s) { lo_put(o, s, strlen(s)); }

static void lo_fill(line_out *o, char c, size_t n) {
    while (n) {
        if (o->len == sizeof o->b) lo_flush(o);
        size_t k = sizeof o->b - o->len < n ? sizeof o->b - o->len : n;
        memset(o->b + o->len, c, k);
        o->len += k;
        n -= k;
    }
}

/* Writes one cell padded to `width` (cut with a '~' when longer). */
static void put_padded(line_out *o, const char *s, size_t n, size_t width, bool right, bool last) {
    size_t w = text_width(s, n);
    if (w > width) {
        size_t keep = width - 1, i = 0;
        for (size_t cp = 0; i < n; i++) {
            if (((unsigned char)s[i] & 0xC0) != 0x80 && cp++ == keep) break;
        }
        lo_put(o, s, i);
        lo_put(o, "~", 1);
        return;
    }
    if (right) lo_fill(o, ' ', width - w);
    lo_put(o, s, n);
    if (!right && !last) lo_fill(o, ' ', width - w);
}

static void render(out_table *t) {
    bool md = t->fmt == OUT_MD;
    size_t pos = 0, k = 0, n;
    const char *s;
    if (t->ncols == 0) return;
    for (size_t c = 0; c < t->ncols; c++) {
        t->widths[c] = md ? 3 : 1;
        t->hidden[c] = false;
    }
    while (next_cell(t, &pos, &s, &n)) {
        size_t w = s ? text_width(s, n) : 1, c = k++ % t->ncols;
        if (w > t->widths[c]) t->widths[c] = w;
    }
    if (!md && t->max_width > 0 && t->ncols > 0) shrink_to(t, (size_t)t->max_width);
    size_t last_shown = 0;
    for (size_t c = 0; c < t->ncols; c++)
        if (!t->hidden[c]) last_shown = c;

    pos = 0;
    k = 0;
    bool first = true;
    line_out lo, *o = &lo;
    lo.f = t->f;
    lo.len = 0;
    while (next_cell(t, &pos, &s, &n)) {
        size_t c = k++ % t->ncols;
        bool last = c == last_shown, right = is_numeric(t->cols[c].type);
        if (!t->hidden[c]) {
            lo_puts(o, md ? (!first ? " | " : "| ") : (!first ? "  " : ""));
            put_padded(o, s ? s : "-", s ? n : 1, t->widths[c], right, last && !md);
            first = false;
        }
        if (c + 1 != t->ncols) continue;
        lo_puts(o, md ? " |\n" : "\n");
        first = true;
        if (k != t->ncols) continue;
        /* after the header: the rule */
        for (size_t r = 0; r < t->ncols; r++) {
            if (t->hidden[r]) continue;
            bool rr = is_numeric(t->cols[r].type);
            lo_puts(o, md ? (!first ? " | " : "| ") : (!first ? "  " : ""));
            lo_fill(o, '-', t->widths[r] - (md && rr));
            if (md && rr) lo_put(o, ":", 1);
            first = false;
        }
        lo_puts(o, md ? " |\n" : "\n");
        first = true;
    }
    lo_flush(o);
}

/* Writes `prefix` then s[0..n) and a newline, wrapped at spaces to `max` columns (0: not
 * wrapped); continuation lines start with `indent` spaces. The first line has max minus the
 * prefix's width, the others max - indent. A word longer than its line stays whole. */
static void wrap_text(FILE *f, const char *prefix, const char *s, size_t n, size_t max,
                      size_t indent) {
    size_t pw = prefix ? text_width(prefix, strlen(prefix)) : 0;
    if (prefix) fputs(prefix, f);
    if (!max || max < indent + 20 || max < pw + 20 || pw + text_width(s, n) <= max) {
        fwrite(s, 1, n, f);
        fputc('\n', f);
        return;
    }
    size_t room = max - pw, start = pw; /* the first line's room and its first column */
    while (n) {
        size_t cut = n, cp = 0, last_space = 0;
        for (size_t i = 0; i < n; i++) {
            if (((unsigned char)s[i] & 0xC0) == 0x80) continue;
            if (cp == room) { /* a space just past the room ends a line that fits */
                cut = s[i] == ' ' && start + cp >= indent ? i : last_space;
                break;
            }
            /* not inside a leading "key   " (a label padded to the indent): "file   PATH"
             * stays one line */
            if (s[i] == ' ' && i > 0 && start + cp >= indent) last_space = i;
            cp++;
        }
        if (cut == 0) { /* one word longer than the line: whole, up to the next break */
            cut = n;
            for (size_t i = 1, col = 1; i < n; i++) {
                if (((unsigned char)s[i] & 0xC0) == 0x80) continue;
                if (s[i] == ' ' && s[i - 1] != ' ' && start + col >= indent) {
                    cut = i;
                    break;
                }
                col++;
            }
        }
        fwrite(s, 1, cut, f);
        fputc('\n', f);
        while (cut < n && s[cut] == ' ') cut++;
        s += cut;
        n -= cut;
        room = max - indent;
        start = indent;
        if (n) put_n(f, ' ', indent);
    }
}

void out_wrap(FILE *f, int width, const char *prefix, size_t indent, const char *text) {
    if (!text) return;
    size_t max = width > 0 ? (size_t)width : 0;
    for (const char *line = text;;) {
        const char *nl = strchr(line, '\n');
        size_t ln = nl ? (size_t)(nl - line) : strlen(line);
        if (!nl && ln == 0 && line != text) break; /* the text ended with a newline */
        wrap_text(f, line == text ? prefix : NULL, line, ln, max, indent);
        if (!nl) break;
        line = nl + 1;
    }
}

void out_wrapf(FILE *f, int width, size_t indent, const char *fmt, ...) {
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    char *big = NULL;
    if ((size_t)n >= sizeof small) {
        big = malloc((size_t)n + 1);
        if (!big) { /* out of memory: written unwrapped */
            va_start(ap, fmt);
            vfprintf(f, fmt, ap);
            va_end(ap);
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    out_wrap(f, width, NULL, indent, big ? big : small);
    free(big);
}

/* A note's line after its prefix ("note: ", "> "), wrapped in the table format with a width. */
static void put_wrapped(out_table *t, const char *prefix, const char *s, size_t n, size_t indent) {
    size_t max = t->fmt == OUT_TABLE && t->max_width > 0 ? (size_t)t->max_width : 0;
    wrap_text(t->f, prefix, s, n, max, indent);
}

static void render_notes(out_table *t) {
    bool md = t->fmt == OUT_MD;
    for (size_t at = 0; at < t->notes.len;) {
        const char *note = t->notes.p + at;
        size_t len = strlen(note);
        fputs(md ? (at ? ">\n" : "\n") : "", t->f);
        for (const char *line = note; line <= note + len;) {
            const char *nl = memchr(line, '\n', (size_t)(note + len - line));
            size_t ln = nl ? (size_t)(nl - line) : (size_t)(note + len - line);
            if (!nl && ln == 0 && line != note) break; /* the note ended with a newline */
            t->arena.len = 0;
            sanitize(t, line, ln, SAN_PLAIN);
            if (t->oom) return;
            put_wrapped(t, md ? "> " : "note: ", t->arena.p, t->arena.len, md ? 2 : 6);
            line += ln + 1;
        }
        at += len + 1;
    }
}

/* --------------------------------------------------------------------------------------------
 * Finishing
 * ------------------------------------------------------------------------------------------ */

int out_table_finish(out_table *t) {
    if (t->finished || t->in_row) t->misuse = true;
    if (t->finished) return ETP_E_INTERNAL;
    t->finished = true;
    switch (t->fmt) {
    case OUT_JSON:
        jw_arr_end(t->w);
        if (t->in_json) break;
        if (t->notes.len) {
            jw_key(t->w, "notes");
            jw_arr_begin(t->w);
            for (size_t at = 0; at < t->notes.len; at += strlen(t->notes.p + at) + 1)
                jw_str(t->w, t->notes.p + at);
            jw_arr_end(t->w);
        }
        jw_obj_end(t->w);
        if (jw_finish(t->w) != 0 && !ferror(t->f)) t->misuse = true;
        fputc('\n', t->f);
        break;
    case OUT_TABLE:
    case OUT_MD:
        if (t->oom) break;
        render(t);
        render_notes(t);
        break;
    case OUT_CSV:
    case OUT_TSV:
    case OUT_JSONL: break;
    }
    if (!jw_ok(t->w) && !ferror(t->f)) t->misuse = true;
    if (!t->in_json && fflush(t->f) != 0) return ETP_E_IO;
    if (ferror(t->f)) return ETP_E_IO;
    return t->misuse || t->oom ? ETP_E_INTERNAL : ETP_OK;
}

void out_table_free(out_table *t) {
    if (!t) return;
    free(t->arena.p);
    free(t->notes.p);
    free(t->widths);
    free(t->hidden);
    free(t->drop);
    free(t->group);
    free(t);
}

/* --------------------------------------------------------------------------------------------
 * Format names
 * ------------------------------------------------------------------------------------------ */

static const char *const format_names[] = {"table", "csv", "tsv", "json", "jsonl", "md"};

int out_format_parse(const char *s, out_format *f) {
    for (size_t i = 0; s && i < sizeof format_names / sizeof format_names[0]; i++) {
        if (strcmp(s, format_names[i]) == 0) {
            *f = (out_format)i;
            return ETP_OK;
        }
    }
    return ETP_E_USAGE;
}

const char *out_format_name(out_format f) {
    return (unsigned)f < sizeof format_names / sizeof format_names[0] ? format_names[f] : "?";
}
