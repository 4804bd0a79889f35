/* jw.h - a small streaming JSON writer over a FILE* (internal).
 *
 * Usage:
 *     jw w;
 *     jw_init(&w, stdout, true);
 *     jw_obj_begin(&w);
 *     jw_key(&w, "name"); jw_str(&w, "conv");
 *     jw_key(&w, "ms");   jw_double(&w, 1.25);
 *     jw_obj_end(&w);
 *     if (jw_finish(&w) != 0) ... write error or misuse ...
 *
 * Commas, key/value separators and (when pretty) two-space indentation are written automatically.
 * Misuse (a value where a key is expected, unbalanced ends, nesting deeper than JW_MAX_DEPTH, a
 * second top-level value) never asserts: it sets a sticky error flag, after which every call is
 * a no-op, and jw_finish() reports it. Strings are escaped per RFC 8259; every byte that is not
 * part of a well-formed UTF-8 sequence is written as \ufffd, so the output is always valid JSON.
 */
#ifndef ETPROF_JW_H
#define ETPROF_JW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define JW_MAX_DEPTH 64

typedef struct jw {
    FILE *f;
    bool pretty;
    bool error;     /* sticky: misuse or a failed write */
    bool want_value;/* a key was written; its value comes next */
    bool done;      /* the top-level value is complete */
    int depth;
    char kind[JW_MAX_DEPTH]; /* '{' or '[' per open level */
    bool items[JW_MAX_DEPTH];/* the level already holds at least one member */
    char *buf;               /* jw_set_buffer(): output held here until jw_flush() */
    size_t cap, len;
} jw;

void jw_init(jw *w, FILE *f, bool pretty);
/* Opt-in for hot paths (millions of values): the writer keeps its output in `buf` (`cap` bytes,
 * owned by the caller, at least 1024) and writes it to the FILE when the buffer is full and at
 * jw_flush() or jw_finish(). Until then the caller must not write to the FILE itself. Without
 * it, every call hands its bytes to the FILE before returning. */
void jw_set_buffer(jw *w, char *buf, size_t cap);
/* Writes what the buffer holds to the FILE (no fflush). */
void jw_flush(jw *w);
/* A line break between tokens (JSON whitespace, for line-per-record output): written through
 * the writer, so it stays in order with a jw_set_buffer() buffer. */
void jw_newline(jw *w);
/* JSON Lines: ends the current line's value and starts the next one on the same writer (and
 * buffer): 0 when one complete, well-nested value was written since jw_init() or the last
 * jw_line_end(), -1 otherwise; either way the nesting state is reset and a newline written. A
 * failed write of the FILE shows in ferror(), not here. */
int jw_line_end(jw *w);
/* Returns 0 when one complete, well-nested value was written without error; -1 otherwise (misuse,
 * unbalanced nesting, nothing written, ferror on the FILE). Writes nothing itself (no final
 * newline) but what jw_set_buffer()'s buffer holds. Does not fflush the FILE: call it after
 * fflush() to see every write error. */
int jw_finish(jw *w);
bool jw_ok(const jw *w);

void jw_obj_begin(jw *w);
void jw_obj_end(jw *w);
void jw_arr_begin(jw *w);
void jw_arr_end(jw *w);
void jw_key(jw *w, const char *key);
/* A key that is a string literal of printable ASCII without '"' or '\\' (the caller's promise):
 * written without measuring or scanning it, for hot paths. */
#define jw_key_lit(w, lit) jw_key_plain((w), "" lit, sizeof(lit) - 1)
void jw__key_plain_slow(jw *w, const char *key, size_t len);
/* Inline so that a literal key's copy has a constant length; the fast path of a compact buffered
 * writer inside an object, else jw__key_plain_slow (jw.c: every check and case). */
static inline void jw_key_plain(jw *w, const char *key, size_t len) {
    if (w->buf && !w->pretty && !w->error && !w->want_value && w->depth > 0 &&
        w->kind[w->depth - 1] == '{' && len + 4 <= w->cap - w->len) {
        char *d = w->buf + w->len;
        if (w->items[w->depth - 1]) *d++ = ',';
        *d++ = '"';
        memcpy(d, key, len); /* a constant length for a literal: inlined */
        d += len;
        *d++ = '"';
        *d++ = ':';
        w->len = (size_t)(d - w->buf);
        w->items[w->depth - 1] = true;
        w->want_value = true;
        return;
    }
    jw__key_plain_slow(w, key, len);
}

void jw_str(jw *w, const char *s); /* NULL -> null */
void jw_strn(jw *w, const char *s, size_t len); /* may contain NUL bytes; NULL -> null */
void jw_int(jw *w, int64_t v);
void jw_uint(jw *w, uint64_t v);
void jw_double(jw *w, double v); /* shortest of %.15g/%.16g/%.17g that round-trips; NaN/inf -> null */
void jw_bool(jw *w, bool v);
void jw_null(jw *w);
void jw_hex(jw *w, const void *bytes, size_t n); /* lower-case hex string */
void jw_raw(jw *w, const char *json);            /* a complete JSON value, written verbatim */

/* Helpers shared with the other output code. */

/* Raw writing, for the hottest writer (every event as a JSON Lines line): with a compact writer
 * that has a buffer (jw_set_buffer) and is at the start of a top-level value, jw_raw_begin() makes
 * `bound` bytes of room (flushing the buffer if needed) and returns where the value's text goes;
 * the caller writes one complete JSON value with the jw_put_* helpers (each returns the new end;
 * the caller keeps within `bound`) and hands the end to jw_raw_end(). NULL when raw writing does
 * not apply (pretty, no buffer, not at a value's start, bound above the buffer): use the checked
 * calls then. The helpers write exactly what the checked calls write for the same value. */
char *jw_raw_begin(jw *w, size_t bound);
void jw_raw_end(jw *w, char *end);
static inline char *jw_put(char *d, const char *s, size_t n) {
    memcpy(d, s, n);
    return d + n;
}
#define jw_put_lit(d, lit) jw_put((d), "" lit, sizeof(lit) - 1)
char *jw_put_uint(char *d, uint64_t v);        /* at most 20 bytes */
char *jw_put_int(char *d, int64_t v);          /* at most 20 bytes */
char *jw_put_double(char *d, double v);        /* at most JW_DTOA_MAX bytes; null if not finite */
char *jw_put_str(char *d, const char *s, size_t n); /* quoted, escaped: at most 6 n + 2 bytes */
char *jw_put_strz(char *d, const char *s);     /* a C string, or null for NULL */
char *jw_put_hex(char *d, const void *b, size_t n); /* quoted lower-case hex: 2 n + 2 bytes */

/* Size of a buffer that always holds jw_dtoa's output. */
#define JW_DTOA_MAX 32
/* Formats a finite double as jw_double does ('.' as decimal point whatever the locale).
 * Returns the length, or 0 (and "") when v is NaN or infinite. */
size_t jw_dtoa(char buf[JW_DTOA_MAX], double v);
/* Rewrites printf output of a finite number in place so that its decimal point is '.' whatever
 * LC_NUMERIC says. Returns the new length. */
size_t jw_c_number(char *s);
/* Length (1..4) of the well-formed UTF-8 sequence at s[0..n), or 0 when s[0] does not start one
 * (overlong forms, surrogates, code points above U+10FFFF, truncated or stray bytes). n > 0. */
size_t jw_utf8_len(const unsigned char *s, size_t n);

#endif /* ETPROF_JW_H */
