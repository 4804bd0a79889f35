/* jw.c - streaming JSON writer; see jw.h. */
#define _DEFAULT_SOURCE /* fwrite_unlocked */
#include "jw.h"

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
    jw_flush(w);
    if (w->error || !w->done || w->depth != 0 || ferror(w->f)) return -1;
    return 0;
}

/* Output goes through the FILE's own buffer without taking its lock per call (a writer is used by
 * one thread). Each call assembles its bytes (separator, indentation, key or value) in a stage
 * and hands them over in one piece when it returns, so that every byte is in the FILE when the
 * call returns and callers may write to the FILE themselves between calls. With jw_set_buffer()
 * the stage is the free end of that buffer, and the FILE gets the bytes when it fills up. A
 * failed write is noticed here or by ferror() in jw_finish(). */
#if defined(__GLIBC__)
#define JW_FWRITE fwrite_unlocked
#else
#define JW_FWRITE fwrite
#endif

#define STAGE 512

typedef struct stage {
    jw *w;
    char *b;      /* where the call's bytes go: `local`, or the free end of w->buf */
    size_t n, cap;
    char local[STAGE];
} stage;

static void put_file(jw *w, const char *s, size_t n) {
    if (n && JW_FWRITE(s, 1, n, w->f) != n) w->error = true;
}

void jw_set_buffer(jw *w, char *buf, size_t cap) {
    jw_flush(w);
    w->buf = cap >= 1024 ? buf : NULL;
    w->cap = w->buf ? cap : 0;
    w->len = 0;
}

void jw_flush(jw *w) {
    if (w->buf && w->len) put_file(w, w->buf, w->len);
    w->len = 0;
}

/* (not an initializer: that would clear `local` on every call) */
static inline void st_init(stage *o, jw *w) {
    o->w = w;
    o->n = 0;
    if (w->buf) {
        o->b = w->buf + w->len;
        o->cap = w->cap - w->len;
    } else {
        o->b = o->local;
        o->cap = STAGE;
    }
}

/* Hands the staged bytes over: to the buffer (kept), or to the FILE. */
static void st_flush(stage *o) {
    jw *w = o->w;
    if (w->buf) w->len += o->n;
    else put_file(w, o->b, o->n);
    o->n = 0;
}

/* Makes room: the staged bytes go out, and with a buffer it is written to the FILE. */
static void st_spill(stage *o) {
    jw *w = o->w;
    st_flush(o);
    if (w->buf) {
        jw_flush(w);
        o->b = w->buf;
        o->cap = w->cap;
    }
}

static inline void st_add(stage *o, const char *s, size_t n) {
    if (n > o->cap - o->n) {
        st_spill(o);
        if (n > o->cap) {
            put_file(o->w, s, n);
            return;
        }
    }
    memcpy(o->b + o->n, s, n);
    o->n += n;
}

static inline void st_ch(stage *o, char c) {
    if (o->n == o->cap) st_spill(o);
    o->b[o->n++] = c;
}

int jw_line_end(jw *w) {
    int rc = w->error || !w->done || w->depth != 0 ? -1 : 0;
    w->error = w->want_value = w->done = false;
    w->depth = 0;
    jw_newline(w);
    return rc;
}

void jw_newline(jw *w) {
    stage o;
    st_init(&o, w);
    st_ch(&o, '\n');
    st_flush(&o);
}

static void newline_indent(stage *o, int depth) {
    static const char nl_spaces[] = "\n                                                              ";
    size_t n = 1 + 2 * (size_t)depth;
    if (n <= sizeof nl_spaces - 1) {
        st_add(o, nl_spaces, n);
        return;
    }
    st_add(o, nl_spaces, sizeof nl_spaces - 1);
    for (n -= sizeof nl_spaces - 1; n > 0;) {
        size_t k = n < sizeof nl_spaces - 2 ? n : sizeof nl_spaces - 2;
        st_add(o, nl_spaces + 1, k);
        n -= k;
    }
}

/* Called before every value. Returns false (and sets the error) when no value may come here. */
static bool before_value(jw *w, stage *o) {
    if (w->error) return false;
    if (w->depth == 0) {
        if (w->done) w->error = true;
    } else if (w->kind[w->depth - 1] == '{') {
        if (!w->want_value) w->error = true;
        w->want_value = false;
    } else {
        if (w->items[w->depth - 1]) st_ch(o, ',');
        if (w->pretty) newline_indent(o, w->depth);
        w->items[w->depth - 1] = true;
    }
    return !w->error;
}

/* Called after every complete value. */
static void after_value(jw *w) {
    if (w->depth == 0) w->done = true;
}

static void open_level(jw *w, char kind) {
    stage o;
    st_init(&o, w);
    if (!before_value(w, &o)) return;
    if (w->depth == JW_MAX_DEPTH) {
        w->error = true;
        return;
    }
    w->kind[w->depth] = kind;
    w->items[w->depth] = false;
    w->depth++;
    st_ch(&o, kind);
    st_flush(&o);
}

static void close_level(jw *w, char kind) {
    if (w->error) return;
    if (w->depth == 0 || w->kind[w->depth - 1] != kind || w->want_value) {
        w->error = true;
        return;
    }
    stage o;
    st_init(&o, w);
    w->depth--;
    if (w->pretty && w->items[w->depth]) newline_indent(&o, w->depth);
    st_ch(&o, kind == '{' ? '}' : ']');
    st_flush(&o);
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

/* 1 for the bytes written as they are (printable ASCII but '"' and '\\'). */
static const unsigned char plain[256] = {
#define R16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
    R16(0), R16(0),                                         /* 0x00-0x1f */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,         /* 0x20-0x2f: '"' */
    R16(1), R16(1),                                         /* 0x30-0x4f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,         /* 0x50-0x5f: '\\' */
    R16(1),                                                 /* 0x60-0x6f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,         /* 0x70-0x7f (DEL is plain) */
    R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0),
#undef R16
};

/* Does any of the 8 bytes need escaping (< 0x20, '"', '\\', >= 0x80)? Exact: the "has a zero
 * byte" and "has a byte below n" tests are never wrong for bytes below 0x80, and bytes from 0x80
 * are caught by their high bit. */
static inline bool special8(uint64_t x) {
    const uint64_t ones = UINT64_C(0x0101010101010101), high = UINT64_C(0x8080808080808080);
    uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
    uint64_t ctl = (x - ones * 0x20) & ~x;
    uint64_t quote = (q - ones) & ~q, bslash = (b - ones) & ~b;
    return ((ctl | quote | bslash | x) & high) != 0;
}

static void write_string(stage *o, const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    if (n <= 256) {
        /* short and plain (names, keys): copied while scanned */
        if (n + 2 > o->cap - o->n) st_spill(o);
        if (n + 2 <= o->cap - o->n) {
            char *d = o->b + o->n;
            size_t i = 0;
            d[0] = '"';
            for (; i + 8 <= n; i += 8) { /* 8 bytes at a time while none needs escaping */
                uint64_t x;
                memcpy(&x, s + i, 8);
                if (special8(x)) break;
                memcpy(d + 1 + i, &x, 8);
            }
            for (; i < n && plain[s[i]]; i++) d[1 + i] = (char)s[i];
            if (i == n) {
                d[1 + n] = '"';
                o->n += n + 2;
                return;
            }
        }
    }
    size_t run = 0; /* start of the pending run of bytes that need no escaping */
    st_ch(o, '"');
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (plain[c]) {
            i++;
            continue;
        }
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
            st_add(o, str + run, i - run);
            st_add(o, esc, strlen(esc));
            run = i + len;
        }
        i += len;
    }
    st_add(o, str + run, n - run);
    st_ch(o, '"');
}

/* The escaping of write_string's general path, into memory with room for 6 n + 2 bytes: the
 * same text. */
static char *esc_into(char *d, const unsigned char *s, size_t n) {
    *d++ = '"';
    size_t i = 0;
    bool clean = true;
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        if (special8(x)) {
            clean = false;
            break;
        }
        memcpy(d, &x, 8);
        d += 8;
    }
    if (clean && i < n && n >= 8) { /* the last < 8 bytes: as the 8 that end the string */
        uint64_t x;
        memcpy(&x, s + n - 8, 8);
        if (!special8(x)) {
            memcpy(d - (i - (n - 8)), &x, 8); /* rewrites i - (n - 8) bytes with themselves */
            d += n - i;
            i = n;
        }
    }
    while (i < n) {
        unsigned char c = s[i];
        if (plain[c]) {
            *d++ = (char)c;
            i++;
            continue;
        }
        size_t len = 1;
        if (c >= 0x80) {
            len = jw_utf8_len(s + i, n - i);
            if (len == 0) {
                d = jw_put_lit(d, "\\ufffd");
                i++;
            } else {
                memcpy(d, s + i, len);
                d += len;
                i += len;
            }
            continue;
        }
        i++;
        switch (c) {
        case '"': d = jw_put_lit(d, "\\\""); break;
        case '\\': d = jw_put_lit(d, "\\\\"); break;
        case '\n': d = jw_put_lit(d, "\\n"); break;
        case '\t': d = jw_put_lit(d, "\\t"); break;
        case '\r': d = jw_put_lit(d, "\\r"); break;
        case '\b': d = jw_put_lit(d, "\\b"); break;
        case '\f': d = jw_put_lit(d, "\\f"); break;
        default: {
            static const char hex[] = "0123456789abcdef";
            d = jw_put_lit(d, "\\u00");
            *d++ = hex[c >> 4];
            *d++ = hex[c & 15];
        }
        }
    }
    *d++ = '"';
    return d;
}

/* The hot path of a compact buffered writer (events, trace): a member of an object, its key or
 * its scalar value, written straight into the buffer when it fits; the checks are the ones of the
 * general path below, which handles everything else (pretty, no buffer, full buffer, misuse). */
static inline bool fast_ok(const jw *w, size_t need) {
    return w->buf && !w->pretty && !w->error && w->depth > 0 && w->kind[w->depth - 1] == '{' &&
           need <= w->cap - w->len;
}

static void key_n(jw *w, const char *key, size_t len, bool plain_ascii) {
    if (plain_ascii && !w->want_value && fast_ok(w, len + 4)) {
        char *d = w->buf + w->len;
        if (w->items[w->depth - 1]) *d++ = ',';
        *d++ = '"';
        memcpy(d, key, len);
        d += len;
        *d++ = '"';
        *d++ = ':';
        w->len = (size_t)(d - w->buf);
        w->items[w->depth - 1] = true;
        w->want_value = true;
        return;
    }
    if (w->error) return;
    if (w->depth == 0 || w->kind[w->depth - 1] != '{' || w->want_value) {
        w->error = true;
        return;
    }
    stage o;
    st_init(&o, w);
    if (w->items[w->depth - 1]) st_ch(&o, ',');
    if (w->pretty) newline_indent(&o, w->depth);
    w->items[w->depth - 1] = true;
    if (plain_ascii) {
        st_ch(&o, '"');
        st_add(&o, key, len);
        st_ch(&o, '"');
    } else {
        write_string(&o, key, len);
    }
    if (w->pretty) st_add(&o, ": ", 2);
    else st_ch(&o, ':');
    st_flush(&o);
    w->want_value = true;
}

void jw_key(jw *w, const char *key) { key_n(w, key ? key : "", key ? strlen(key) : 0, false); }
void jw__key_plain_slow(jw *w, const char *key, size_t len) { key_n(w, key, len, true); }

static void scalar_n(jw *w, const char *text, size_t n) {
    if (w->want_value && fast_ok(w, n)) { /* an object member's value (depth > 0: not done) */
        memcpy(w->buf + w->len, text, n);
        w->len += n;
        w->want_value = false;
        return;
    }
    stage o;
    st_init(&o, w);
    if (!before_value(w, &o)) return;
    st_add(&o, text, n);
    st_flush(&o);
    after_value(w);
}

static void scalar(jw *w, const char *text) { scalar_n(w, text, strlen(text)); }

void jw_strn(jw *w, const char *s, size_t len) {
    if (!s) {
        jw_null(w);
        return;
    }
    if (w->want_value && fast_ok(w, len + 2)) {
        /* an object member's value with nothing to escape (most names): copied while scanned
         * straight into the buffer; on the first byte that needs escaping nothing is kept and
         * the general path below writes it */
        char *d = w->buf + w->len;
        const unsigned char *u = (const unsigned char *)s;
        size_t i = 0;
        d[0] = '"';
        for (; i + 8 <= len; i += 8) {
            uint64_t x;
            memcpy(&x, u + i, 8);
            if (special8(x)) break;
            memcpy(d + 1 + i, &x, 8);
        }
        for (; i < len && plain[u[i]]; i++) d[1 + i] = (char)u[i];
        if (i == len) {
            d[1 + len] = '"';
            w->len += len + 2;
            w->want_value = false;
            return;
        }
    }
    stage o;
    st_init(&o, w);
    if (!before_value(w, &o)) return;
    write_string(&o, s, len);
    st_flush(&o);
    after_value(w);
}

void jw_str(jw *w, const char *s) { jw_strn(w, s, s ? strlen(s) : 0); }

/* Decimal digits of v, right-aligned so that they end at `end`; returns where they start. */
static char *utoa_end(char *end, uint64_t v) {
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930"
                                   "31323334353637383940414243444546474849505152535455565758596061"
                                   "62636465666768697071727374757677787980818283848586878889909192"
                                   "93949596979899";
    char *p = end;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--p = pairs[d + 1];
        *--p = pairs[d];
    }
    if (v >= 10) {
        unsigned d = (unsigned)v * 2;
        *--p = pairs[d + 1];
        *--p = pairs[d];
    } else {
        *--p = (char)('0' + v);
    }
    return p;
}

void jw_int(jw *w, int64_t v) {
    char buf[24], *end = buf + sizeof buf;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *p = utoa_end(end, u);
    if (v < 0) *--p = '-';
    scalar_n(w, p, (size_t)(end - p));
}

void jw_uint(jw *w, uint64_t v) {
    char buf[24], *end = buf + sizeof buf;
    char *p = utoa_end(end, v);
    scalar_n(w, p, (size_t)(end - p));
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

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

/* What the loop in jw_dtoa() prints for 1e-4 <= |v| < 1e15 (v not whole), computed exactly in
 * integers instead of by up to three printf + strtod rounds: |v| = m * 2^-K, so
 * N = m * 10^s = |v| * 10^s * 2^K is exact in 128 bits (s <= 20, K <= 66, m < 2^53), and from it
 * the 15-, 16- and 17-digit roundings (ties to even, as glibc's printf rounds) and whether each
 * reads back as v (strtod: nearest, ties to even). Fixed notation only, as %g uses it below
 * 10^precision. 0 (not handled) for a power of two (its lower neighbour is nearer) or when the
 * rounding reaches 10^15. */
static size_t dtoa_exact(char buf[JW_DTOA_MAX], double v, double a) {
    int e2;
    double fr = frexp(a, &e2); /* a = fr * 2^e2, fr in [0.5, 1) */
    uint64_t m = (uint64_t)ldexp(fr, 53);
    int K = 53 - e2;
    if (m == (UINT64_C(1) << 52) || K <= 0 || K > 70) return 0;
    static const uint64_t p10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                   100000000, 1000000000, UINT64_C(10000000000),
                                   UINT64_C(100000000000), UINT64_C(1000000000000),
                                   UINT64_C(10000000000000), UINT64_C(100000000000000),
                                   UINT64_C(1000000000000000), UINT64_C(10000000000000000),
                                   UINT64_C(100000000000000000), UINT64_C(1000000000000000000)};
    int X = (int)floor(log10(a)); /* decimal exponent, corrected below */
    u128 N = 0, D = 0, mask = ((u128)1 << K) - 1;
    int s = 0;
    for (int tries = 0; tries < 3; tries++) {
        s = 16 - X;
        if (s < 0 || s > 22) return 0;
        u128 p10s = s <= 18 ? (u128)p10[s] : (u128)p10[18] * p10[s - 18];
        N = (u128)m * p10s;
        D = N >> K;
        if (D < (u128)p10[16]) X--;
        else if (D >= (u128)p10[17]) X++;
        else break;
    }
    if (D < (u128)p10[16] || D >= (u128)p10[17]) return 0;
    u128 R = N & mask;
    u128 ten_s = s <= 18 ? (u128)p10[s] : (u128)p10[18] * p10[s - 18];
    for (int prec = 15; prec <= 17; prec++) {
        uint64_t q = p10[17 - prec];
        uint64_t c = (uint64_t)(D / q);
        u128 rem = (u128)(uint64_t)(D % q) * ((u128)1 << K) + R; /* below c, in units of 2^-K */
        u128 half = (u128)q << (K - 1);
        if (rem > half || (rem == half && (c & 1))) c++;
        int Xc = X;
        if (c == p10[prec]) { /* rounded up to the next power of ten */
            c = p10[prec - 1];
            Xc++;
        }
        if (Xc >= 15) return 0;
        /* reads back as v? |c*q*10^(Xc-X) - D.R| against half an ulp, all times 10^s * 2^K */
        u128 chat = (u128)c * q * (Xc > X ? 10 : 1);
        u128 cK = chat << K;
        u128 diff = cK > N ? cK - N : N - cK;
        u128 lim = ten_s; /* 2 * diff < 10^s: nearer than half an ulp */
        bool back = 2 * diff < lim || (2 * diff == lim && !(m & 1));
        if (!back && prec < 17) continue;
        /* fixed notation: prec digits of c (trailing zeros dropped), point after Xc + 1 digits */
        char dig[20];
        int nd = 0;
        for (uint64_t t = c; nd < prec; t /= 10) dig[prec - 1 - nd++] = (char)('0' + t % 10);
        while (nd > 0 && dig[nd - 1] == '0' && nd > Xc + 1) nd--;
        size_t o = 0;
        if (v < 0) buf[o++] = '-';
        if (Xc < 0) {
            buf[o++] = '0';
            buf[o++] = '.';
            for (int z = 0; z < -Xc - 1; z++) buf[o++] = '0';
            for (int i = 0; i < nd; i++) buf[o++] = dig[i];
        } else {
            for (int i = 0; i < nd; i++) {
                if (i == Xc + 1) buf[o++] = '.';
                buf[o++] = dig[i];
            }
            for (int i = nd; i < Xc + 1; i++) buf[o++] = '0';
        }
        buf[o] = '\0';
        return o;
    }
    return 0;
}
#endif

size_t jw_dtoa(char buf[JW_DTOA_MAX], double v) {
    buf[0] = '\0';
    if (!isfinite(v)) return 0;
    /* Whole numbers below 10^15 (durations in ns, cycles, counts): %.15g prints every digit and
     * no exponent, and the digits read back exactly, so this is what the loop below would give. */
    if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v && !(v == 0 && signbit(v))) {
        char tmp[24], *end = tmp + sizeof tmp;
        int64_t i = (int64_t)v;
        char *p = utoa_end(end, i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i);
        if (i < 0) *--p = '-';
        size_t n = (size_t)(end - p);
        memcpy(buf, p, n);
        buf[n] = '\0';
        return n;
    }
    /* Decimals of at most 6 places and 15 significant digits (times converted from integer ns:
     * 1.234 us, 0.5 ms): v is the double nearest to d = n / 10^k, so %.15g prints d's digits
     * (v is within half an ulp of d, far less than half a unit of the 15th digit) and they read
     * back as v: the loop below would stop at 15 with this text. Fixed notation as %g uses it
     * from 1e-4 on. Written from the integer n, without printf or strtod. */
    double a = fabs(v);
    if (a >= 1e-4 && a < 1e9) {
        static const double p10[] = {1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
        for (int k = 0; k < 6; k++) {
            double s = a * p10[k];
            if (s >= 1e15) break;
            double r = nearbyint(s);
            if (r / p10[k] != a) continue; /* correctly rounded: the double nearest r / 10^k */
            uint64_t n = (uint64_t)r, div = 1;
            for (int j = 0; j <= k; j++) div *= 10;
            char tmp[40], *end = tmp + sizeof tmp, *p = end;
            uint64_t frac = n % div;
            int places = k + 1;
            while (frac && frac % 10 == 0) { /* trailing zeros go, as %g drops them */
                frac /= 10;
                places--;
            }
            for (int j = 0; j < places; j++) {
                *--p = (char)('0' + frac % 10);
                frac /= 10;
            }
            *--p = '.';
            p = utoa_end(p, n / div);
            if (v < 0) *--p = '-';
            size_t len = (size_t)(end - p);
            memcpy(buf, p, len);
            buf[len] = '\0';
            return len;
        }
    }
#ifdef __SIZEOF_INT128__
    if (a >= 1e-4 && a < 1e15) {
        size_t n = dtoa_exact(buf, v, a);
        if (n) return n;
    }
#endif
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, JW_DTOA_MAX, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break; /* %.17g always round-trips */
    }
    return jw_c_number(buf);
}

void jw_double(jw *w, double v) {
    char buf[JW_DTOA_MAX];
    size_t n = jw_dtoa(buf, v);
    if (n == 0) jw_null(w);
    else scalar_n(w, buf, n);
}

void jw_bool(jw *w, bool v) { scalar(w, v ? "true" : "false"); }
void jw_null(jw *w) { scalar(w, "null"); }
void jw_raw(jw *w, const char *json) { scalar(w, json ? json : "null"); }

void jw_hex(jw *w, const void *bytes, size_t n) {
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = bytes;
    stage o;
    st_init(&o, w);
    if (!before_value(w, &o)) return;
    st_ch(&o, '"');
    for (size_t i = 0; i < n; i++) {
        st_ch(&o, digits[b[i] >> 4]);
        st_ch(&o, digits[b[i] & 15]);
    }
    st_ch(&o, '"');
    st_flush(&o);
    after_value(w);
}

/* ---- raw writing (jw.h) ---- */

char *jw_raw_begin(jw *w, size_t bound) {
    if (!w->buf || w->pretty || w->error || w->depth != 0 || w->done || bound > w->cap)
        return NULL;
    if (bound > w->cap - w->len) {
        jw_flush(w);
        if (w->error) return NULL;
    }
    return w->buf + w->len;
}

void jw_raw_end(jw *w, char *end) {
    w->len = (size_t)(end - w->buf);
    w->done = true;
}

/* Decimal digits of v (1 for 0). */
static inline unsigned dec_digits(uint64_t v) {
    unsigned n = 1;
    for (; v >= 10000; v /= 10000) n += 4;
    return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* The digits are written in place, from their end: no staging buffer to copy from. */
char *jw_put_uint(char *d, uint64_t v) {
    char *end = d + dec_digits(v);
    utoa_end(end, v);
    return end;
}

char *jw_put_int(char *d, int64_t v) {
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (v < 0) *d++ = '-';
    return jw_put_uint(d, u);
}

char *jw_put_double(char *d, double v) {
    char buf[JW_DTOA_MAX];
    size_t n = jw_dtoa(buf, v);
    return n ? jw_put(d, buf, n) : jw_put_lit(d, "null");
}

char *jw_put_str(char *d, const char *s, size_t n) {
    return esc_into(d, (const unsigned char *)s, n);
}

char *jw_put_strz(char *d, const char *s) {
    return s ? esc_into(d, (const unsigned char *)s, strlen(s)) : jw_put_lit(d, "null");
}

char *jw_put_hex(char *d, const void *bytes, size_t n) {
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = bytes;
    *d++ = '"';
    for (size_t i = 0; i < n; i++) {
        *d++ = digits[b[i] >> 4];
        *d++ = digits[b[i] & 15];
    }
    *d++ = '"';
    return d;
}
