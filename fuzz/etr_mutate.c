/* etr_mutate.c - the ETRecord-aware mutator (etr_mutate.h): the ZIP is read with libzip (as the
 * reader does: src/base/zipload.h), one JSON entry mutated as text, and the archive written
 * again here (local headers, central directory, end record; each entry deflated with zlib or
 * stored, with its CRC-32), so that the mutation reaches jansson and the reader's budget. */
#include "etr_mutate.h"
#include "etprof.h"
#include "zipload.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define ZF etp__zipfns
#define MAX_ENTRIES 64
#define MAX_ENTRY_BYTES ((size_t)4 << 20) /* an entry read back for mutation */
/* A mutated entry's text: above the fuzz target's 1 MiB limit for a JSON entry (so that limit
 * is met too), small enough to deflate in a few milliseconds. */
#define MAX_TEXT ((size_t)2 << 20)

typedef struct ent {
    char *name;
    uint8_t *data;
    size_t len;
    bool deflate;
} ent;

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
    bool oom;
} buf;

static void put(buf *b, const void *d, size_t n) {
    if (b->oom) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n) cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put16(buf *b, uint32_t v) {
    uint8_t t[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put(b, t, 2);
}

static void put32(buf *b, uint32_t v) {
    uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, t, 4);
}

static uint32_t rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

static void free_ents(ent *e, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(e[i].name);
        free(e[i].data);
    }
}

/* The entries of the ZIP data[0..size), inflated; false when it is not one libzip opens. */
static bool read_zip(const uint8_t *data, size_t size, ent *e, size_t *n) {
    etp_error err = {0};
    *n = 0;
    if (!etp__zip("fuzz", &err)) return false;
    zip_error_t ze;
    ZF.error_init(&ze);
    zip_source_t *src = ZF.source_buffer_create(data, size, 0, &ze);
    if (!src) {
        ZF.error_fini(&ze);
        return false;
    }
    zip_t *z = ZF.open_from_source(src, ZIP_RDONLY, &ze);
    ZF.error_fini(&ze);
    if (!z) {
        ZF.source_free(src);
        return false;
    }
    zip_int64_t ne = ZF.get_num_entries(z, 0);
    bool ok = ne > 0 && ne <= MAX_ENTRIES;
    for (zip_int64_t i = 0; ok && i < ne; i++) {
        zip_stat_t st;
        ZF.stat_init(&st);
        if (ZF.stat_index(z, (zip_uint64_t)i, 0, &st) || !(st.valid & ZIP_STAT_NAME) ||
            !(st.valid & ZIP_STAT_SIZE) || st.size > MAX_ENTRY_BYTES) {
            ok = false;
            break;
        }
        ent *x = &e[(*n)++];
        memset(x, 0, sizeof *x);
        x->name = strdup(st.name);
        x->data = malloc(st.size ? st.size : 1);
        x->deflate = st.comp_method != ZIP_CM_STORE;
        zip_file_t *f = x->name && x->data ? ZF.fopen_index(z, (zip_uint64_t)i, 0) : NULL;
        if (!f) {
            ok = false;
            break;
        }
        zip_uint64_t got = 0;
        while (got < st.size) {
            zip_int64_t k = ZF.fread(f, x->data + got, st.size - got);
            if (k <= 0) break;
            got += (zip_uint64_t)k;
        }
        ZF.fclose(f);
        if (got != st.size) ok = false;
        x->len = (size_t)got;
    }
    ZF.discard(z);
    if (!ok) {
        free_ents(e, *n);
        *n = 0;
    }
    return ok;
}

/* The index just past the JSON value starting at t[i] (a scalar: up to , ] } or space). */
static size_t value_end(const uint8_t *t, size_t n, size_t i) {
    int depth = 0;
    bool str = false;
    for (; i < n; i++) {
        uint8_t c = t[i];
        if (str) {
            if (c == '\\') i++;
            else if (c == '"') {
                str = false;
                if (depth == 0) return i + 1;
            }
        } else if (c == '"') {
            str = true;
        } else if (c == '[' || c == '{') {
            depth++;
        } else if (c == ']' || c == '}') {
            if (depth == 0) return i;
            if (--depth == 0) return i + 1;
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == ':')) {
            return i;
        }
    }
    return n;
}

/* A random position of byte `c` outside strings (n when none). */
static size_t find_byte(const uint8_t *t, size_t n, uint8_t c, uint64_t *s) {
    size_t count = 0;
    bool str = false;
    for (size_t i = 0; i < n; i++) {
        if (str) {
            if (t[i] == '\\') i++;
            else if (t[i] == '"') str = false;
        } else if (t[i] == '"') {
            if (c == '"') count++;
            str = true;
        } else if (t[i] == c) {
            count++;
        }
    }
    if (!count) return n;
    size_t want = rnd(s) % count;
    str = false;
    for (size_t i = 0; i < n; i++) {
        if (str) {
            if (t[i] == '\\') i++;
            else if (t[i] == '"') str = false;
        } else if (t[i] == '"') {
            if (c == '"' && want-- == 0) return i;
            str = true;
        } else if (t[i] == c && want-- == 0) {
            return i;
        }
    }
    return n;
}

/* t[0..n) with t[a..b) replaced by r[0..rn) repeated `times` times, into a new buffer. */
static uint8_t *splice(const uint8_t *t, size_t n, size_t a, size_t b, const uint8_t *r, size_t rn,
                       size_t times, size_t *out) {
    size_t len = a + rn * times + (n - b);
    if (len > MAX_TEXT) return NULL;
    uint8_t *m = malloc(len ? len : 1);
    if (!m) return NULL;
    memcpy(m, t, a);
    for (size_t k = 0; k < times; k++) memcpy(m + a + k * rn, r, rn);
    memcpy(m + a + rn * times, t + b, n - b);
    *out = len;
    return m;
}

/* One mutation of the JSON text t[0..n): a new buffer, or NULL when nothing applies. */
static uint8_t *mutate_json(const uint8_t *t, size_t n, uint64_t *s, size_t *out) {
    static const char *const numbers[] = {"-1", "9223372036854775807", "-9223372036854775808",
                                          "18446744073709551616", "1e999", "-0", "1.5", "0x10",
                                          "2147483648", "4294967296", "01"};
    static const char *const values[] = {"null", "true", "{}", "[]", "\"\"", "0", "\"x\"",
                                         "{\"a\":1}", "[[]]", "\"\\u0000\"", "\"\\ud800\""};
    switch (rnd(s) % 9) {
    case 0: { /* an array element repeated: a bomb of up to 2^20 elements */
        size_t i = find_byte(t, n, '[', s);
        if (i >= n || i + 1 >= n || t[i + 1] == ']') return NULL;
        size_t e = value_end(t, n, i + 1);
        if (e <= i + 1) return NULL;
        size_t rn = e - (i + 1) + 1;
        uint8_t *r = malloc(rn);
        if (!r) return NULL;
        memcpy(r, t + i + 1, rn - 1);
        r[rn - 1] = ',';
        size_t times = (size_t)1 << (rnd(s) % 19);
        uint8_t *m = splice(t, n, i + 1, i + 1, r, rn, times, out);
        free(r);
        return m;
    }
    case 1: { /* a value nested deep */
        size_t i = find_byte(t, n, ':', s);
        if (i >= n) return NULL;
        size_t d = 1 + rnd(s) % 300, e = value_end(t, n, i + 1);
        size_t len = n + 2 * d;
        uint8_t *m = malloc(len);
        if (!m) return NULL;
        memcpy(m, t, i + 1);
        memset(m + i + 1, '[', d);
        memcpy(m + i + 1 + d, t + i + 1, e - (i + 1));
        memset(m + d + e, ']', d);
        memcpy(m + 2 * d + e, t + e, n - e);
        *out = len;
        return m;
    }
    case 2: { /* a run of whitespace */
        size_t i = find_byte(t, n, ',', s);
        if (i >= n) i = 0;
        const uint8_t sp = (uint8_t)(rnd(s) & 1 ? ' ' : '\n');
        return splice(t, n, i, i, &sp, 1, (size_t)1 << (rnd(s) % 21), out);
    }
    case 3: { /* an extreme number for a value */
        size_t i = find_byte(t, n, ':', s);
        if (i >= n) i = find_byte(t, n, ',', s);
        if (i >= n) return NULL;
        size_t e = value_end(t, n, i + 1);
        const char *v = numbers[rnd(s) % (sizeof numbers / sizeof *numbers)];
        return splice(t, n, i + 1, e, (const uint8_t *)v, strlen(v), 1, out);
    }
    case 4: { /* a long or escaped string */
        size_t i = find_byte(t, n, '"', s);
        if (i >= n) return NULL;
        static const char *const bits[] = {"a", "\\\"", "\\u00e9", "\\ud83d\\ude00", "\xc3\xa9",
                                           "\xff", "\\n", "/"};
        const char *b = bits[rnd(s) % (sizeof bits / sizeof *bits)];
        return splice(t, n, i + 1, i + 1, (const uint8_t *)b, strlen(b),
                      (size_t)1 << (rnd(s) % 18), out);
    }
    case 5: { /* a value of another type */
        size_t i = find_byte(t, n, rnd(s) & 1 ? ':' : ',', s);
        if (i >= n) return NULL;
        size_t e = value_end(t, n, i + 1);
        const char *v = values[rnd(s) % (sizeof values / sizeof *values)];
        return splice(t, n, i + 1, e, (const uint8_t *)v, strlen(v), 1, out);
    }
    case 6: { /* an object member repeated (a duplicate key) */
        size_t i = find_byte(t, n, '{', s);
        if (i >= n || i + 1 >= n || t[i + 1] != '"') return NULL;
        size_t k = value_end(t, n, i + 1);
        if (k >= n || t[k] != ':') return NULL;
        size_t e = value_end(t, n, k + 1);
        size_t rn = e - (i + 1) + 1;
        uint8_t *r = malloc(rn);
        if (!r) return NULL;
        memcpy(r, t + i + 1, rn - 1);
        r[rn - 1] = ',';
        uint8_t *m = splice(t, n, i + 1, i + 1, r, rn, 1 + rnd(s) % 3, out);
        free(r);
        return m;
    }
    case 7: { /* a span cut */
        if (!n) return NULL;
        size_t a = rnd(s) % n, b = a + rnd(s) % (n - a + 1);
        return splice(t, n, a, b, NULL, 0, 0, out);
    }
    default: { /* a byte changed */
        if (!n) return NULL;
        uint8_t *m = malloc(n);
        if (!m) return NULL;
        memcpy(m, t, n);
        static const uint8_t bytes[] = {'{', '}', '[', ']', ',', ':', '"', '\\', '0', '-', 0,
                                        0xff, ' '};
        m[rnd(s) % n] = rnd(s) & 1 ? bytes[rnd(s) % sizeof bytes] : (uint8_t)rnd(s);
        *out = n;
        return m;
    }
    }
}

/* Entry e written as a local header and its data; its central directory record into `cd`. */
static bool write_entry(buf *z, buf *cd, const ent *e) {
    uint32_t crc = (uint32_t)crc32(0L, e->data, (uInt)e->len);
    uint8_t *comp = NULL;
    size_t clen = e->len;
    if (e->deflate) {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        if (deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return false;
        uLong bound = deflateBound(&zs, (uLong)e->len);
        comp = malloc(bound ? bound : 1);
        if (!comp) {
            deflateEnd(&zs);
            return false;
        }
        zs.next_in = e->data;
        zs.avail_in = (uInt)e->len;
        zs.next_out = comp;
        zs.avail_out = (uInt)bound;
        int rc = deflate(&zs, Z_FINISH);
        clen = zs.total_out;
        deflateEnd(&zs);
        if (rc != Z_STREAM_END) {
            free(comp);
            return false;
        }
    }
    size_t nl = strlen(e->name);
    uint32_t off = (uint32_t)z->n;
    put32(z, 0x04034b50);
    put16(z, 20);
    put16(z, 0);
    put16(z, e->deflate ? 8 : 0);
    put16(z, 0);
    put16(z, 0x21); /* 1980-01-01 */
    put32(z, crc);
    put32(z, (uint32_t)clen);
    put32(z, (uint32_t)e->len);
    put16(z, (uint32_t)nl);
    put16(z, 0);
    put(z, e->name, nl);
    put(z, e->deflate ? comp : e->data, clen);
    free(comp);
    put32(cd, 0x02014b50);
    put16(cd, 20);
    put16(cd, 20);
    put16(cd, 0);
    put16(cd, e->deflate ? 8 : 0);
    put16(cd, 0);
    put16(cd, 0x21);
    put32(cd, crc);
    put32(cd, (uint32_t)clen);
    put32(cd, (uint32_t)e->len);
    put16(cd, (uint32_t)nl);
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0);
    put32(cd, 0);
    put32(cd, off);
    put(cd, e->name, nl);
    return !z->oom && !cd->oom;
}

static bool is_json(const ent *e) {
    size_t i = 0;
    while (i < e->len && (e->data[i] == ' ' || e->data[i] == '\n')) i++;
    return i < e->len && (e->data[i] == '{' || e->data[i] == '[');
}

size_t etprof_etr_mutate(uint8_t *data, size_t size, size_t max_size, uint32_t seed) {
    ent e[MAX_ENTRIES];
    size_t n = 0;
    if (size < 22 || !read_zip(data, size, e, &n)) return 0;
    uint64_t s = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed * 0x100000001b3ull);
    if (!s) s = 1;
    size_t json[MAX_ENTRIES], nj = 0;
    for (size_t i = 0; i < n; i++)
        if (is_json(&e[i])) json[nj++] = i;
    size_t result = 0;
    if (nj) {
        ent *x = &e[json[rnd(&s) % nj]];
        size_t len = 0;
        uint8_t *m = NULL;
        for (int tries = 0; !m && tries < 8; tries++) m = mutate_json(x->data, x->len, &s, &len);
        if (m) {
            free(x->data);
            x->data = m;
            x->len = len;
            if (rnd(&s) % 4 == 0) x->deflate = !x->deflate;
            buf z = {0}, cd = {0};
            bool ok = true;
            for (size_t i = 0; ok && i < n; i++) ok = write_entry(&z, &cd, &e[i]);
            if (ok) {
                uint32_t cd_off = (uint32_t)z.n, cd_len = (uint32_t)cd.n;
                put(&z, cd.p, cd.n);
                put32(&z, 0x06054b50);
                put16(&z, 0);
                put16(&z, 0);
                put16(&z, (uint32_t)n);
                put16(&z, (uint32_t)n);
                put32(&z, cd_len);
                put32(&z, cd_off);
                put16(&z, 0);
                if (!z.oom && z.n <= max_size) {
                    memcpy(data, z.p, z.n);
                    result = z.n;
                }
            }
            free(z.p);
            free(cd.p);
        }
    }
    free_ents(e, n);
    return result;
}
