/* jw.c - streaming JSON writer; see jw.h. */
#include "jw.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void jw_init(jw *w, FILE *f, bool pretty) {
    memset(w, 0, sizeof *w);
    w->f = f;
    w->pretty = pretty;
}

bool jw_ok(const jw *w) { return !w->error; }

int jw_finish(jw *w) {
    if (w->error || !w->done || w->depth != 0 || ferror(w->f)) return -1;
    return 0;
}

static void put(jw *w, const char *s, size_t n) {
    if (n && fwrite(s, 1, n, w->f) != n) w->error = true;
}

static void puts_(jw *w, const char *s) { put(w, s, strlen(s)); }

static void newline_indent(jw *w, int depth) {
    static const char spaces[] = "                                ";
    fputc('\n', w->f);
    for (int n = depth * 2; n > 0;) {
        int k = n < (int)sizeof spaces - 1 ? n : (int)sizeof spaces - 1;
        put(w, spaces, (size_t)k);
        n -= k;
    }
}

/* Called before every value. Returns false (and sets the error) when no value may come here. */
static bool before_value(jw *w) {
    if (w->error) return false;
    if (w->depth == 0) {
        if (w->done) w->error = true;
    } else if (w->kind[w->depth - 1] == '{') {
        if (!w->want_value) w->error = true;
        w->want_value = false;
    } else {
        if (w->items[w->depth - 1]) fputc(',', w->f);
        if (w->pretty) newline_indent(w, w->depth);
        w->items[w->depth - 1] = true;
    }
    return !w->error;
}

/* Called after every complete value. */
static void after_value(jw *w) {
    if (w->depth == 0) w->done = true;
}

static void open_level(jw *w, char kind) {
    if (!before_value(w)) return;
    if (w->depth == JW_MAX_DEPTH) {
        w->error = true;
        return;
    }
    w->kind[w->depth] = kind;
    w->items[w->depth] = false;
    w->depth++;
    fputc(kind, w->f);
}

static void close_level(jw *w, char kind) {
    if (w->error) return;
    if (w->depth == 0 || w->kind[w->depth - 1] != kind || w->want_value) {
        w->error = true;
        return;
    }
    w->depth--;
    if (w->pretty && w->items[w->depth]) newline_indent(w, w->depth);
    fputc(kind == '{' ? '}' : ']', w->f);
    after_value(w);
}

void jw_obj_begin(jw *w) { open_level(w, '{'); }
void jw_obj_end(jw *w) { close_level(w, '{'); }
void jw_arr_begin(jw *w) { open_level(w, '['); }
void jw_arr_end(jw *w) { close_level(w, '['); }

size_t jw_utf8_len(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) len = 3, lo = 0xA0;
    else if (c == 0xED) len = 3, hi = 0x9F; /* excludes UTF-16 surrogates */
    else if (c >= 0xE1 && c <= 0xEF) len = 3;
    else if (c == 0xF0) len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else if (c == 0xF4) len = 4, hi = 0x8F; /* nothing above U+10FFFF */
    else return 0; /* 0x80..0xC1 (continuation, overlong lead), 0xF5..0xFF */
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return len;
}

static void write_string(jw *w, const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    size_t run = 0; /* start of the pending run of bytes that need no escaping */
    fputc('"', w->f);
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len = 1;
        const char *esc = NULL;
        char ubuf[8];
        if (c >= 0x80) {
            len = jw_utf8_len(s + i, n - i);
            if (len == 0) esc = "\\ufffd", len = 1;
        } else if (c == '"') esc = "\\\"";
        else if (c == '\\') esc = "\\\\";
        else if (c == '\n') esc = "\\n";
        else if (c == '\t') esc = "\\t";
        else if (c == '\r') esc = "\\r";
        else if (c == '\b') esc = "\\b";
        else if (c == '\f') esc = "\\f";
        else if (c < 0x20) {
            snprintf(ubuf, sizeof ubuf, "\\u%04x", c);
            esc = ubuf;
        }
        if (esc) {
            put(w, str + run, i - run);
            puts_(w, esc);
            run = i + len;
        }
        i += len;
    }
    put(w, str + run, n - run);
    fputc('"', w->f);
}

void jw_key(jw *w, const char *key) {
    if (w->error) return;
    if (w->depth == 0 || w->kind[w->depth - 1] != '{' || w->want_value) {
        w->error = true;
        return;
    }
    if (w->items[w->depth - 1]) fputc(',', w->f);
    if (w->pretty) newline_indent(w, w->depth);
    w->items[w->depth - 1] = true;
    write_string(w, key ? key : "", key ? strlen(key) : 0);
    puts_(w, w->pretty ? ": " : ":");
    w->want_value = true;
}

static void scalar(jw *w, const char *text) {
    if (!before_value(w)) return;
    puts_(w, text);
    after_value(w);
}

void jw_strn(jw *w, const char *s, size_t len) {
    if (!s) {
        jw_null(w);
        return;
    }
    if (!before_value(w)) return;
    write_string(w, s, len);
    after_value(w);
}

void jw_str(jw *w, const char *s) { jw_strn(w, s, s ? strlen(s) : 0); }

void jw_int(jw *w, int64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    scalar(w, buf);
}

void jw_uint(jw *w, uint64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    scalar(w, buf);
}

/* printf's decimal point follows LC_NUMERIC; JSON needs '.'. Any byte that is not a digit, sign
 * or exponent letter is (part of) the decimal point: the whole run becomes one '.'. Only used on
 * finite numbers ("inf" would be mangled). */
size_t jw_c_number(char *s) {
    size_t o = 0;
    for (size_t i = 0; s[i];) {
        char c = s[i];
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e' || c == 'E') {
            s[o++] = c;
            i++;
        } else {
            s[o++] = '.';
            while (s[i] && !((s[i] >= '0' && s[i] <= '9') || s[i] == 'e' || s[i] == 'E')) i++;
        }
    }
    s[o] = '\0';
    return o;
}

size_t jw_dtoa(char buf[JW_DTOA_MAX], double v) {
    buf[0] = '\0';
    if (!isfinite(v)) return 0;
    if (v == (double)(int64_t)v && fabs(v) < 1e15 && !(v == 0 && signbit(v))) {
        /* Integral values (cycles, ns, counts) are most of what etprof writes: print them
         * directly; %.15g would give the same digits at many times the cost. */
        char tmp[24];
        int64_t x = (int64_t)v;
        uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
        size_t n = 0, k = 0;
        do tmp[n++] = (char)('0' + u % 10); while ((u /= 10) != 0);
        if (x < 0) buf[k++] = '-';
        while (n) buf[k++] = tmp[--n];
        buf[k] = '\0';
        return k;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, JW_DTOA_MAX, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break; /* %.17g always round-trips */
    }
    return jw_c_number(buf);
}

void jw_double(jw *w, double v) {
    char buf[JW_DTOA_MAX];
    if (jw_dtoa(buf, v) == 0) jw_null(w);
    else scalar(w, buf);
}

void jw_bool(jw *w, bool v) { scalar(w, v ? "true" : "false"); }
void jw_null(jw *w) { scalar(w, "null"); }
void jw_raw(jw *w, const char *json) { scalar(w, json ? json : "null"); }

void jw_hex(jw *w, const void *bytes, size_t n) {
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = bytes;
    if (!before_value(w)) return;
    fputc('"', w->f);
    for (size_t i = 0; i < n; i++) {
        fputc(digits[b[i] >> 4], w->f);
        fputc(digits[b[i] & 15], w->f);
    }
    fputc('"', w->f);
    after_value(w);
}
