/* fb.h - FlatBuffer primitives: a verifier that reports where (byte offset + field path) and why,
 * and unchecked accessors for buffers that passed verification.
 *
 * Positions are byte offsets from the start of the FlatBuffer (`buf`). `base` is where that
 * buffer starts in the file, so reported offsets are file offsets.
 *
 * What the verifier guarantees for every object it accepted (see docs/verifier.md):
 *  - a table's soffset leads to a vtable wholly inside the buffer, of even length >= 4;
 *  - the table's inline size from the vtable lies inside the buffer, and every field the reader
 *    uses lies inside the buffer (as FlatBuffers' reference verifier checks it: a field past the
 *    table's declared inline size is read, as the runtime reads it);
 *  - every uoffset lands inside the buffer; strings have their length, bytes and NUL inside it;
 *  - vector lengths times element size fit in the buffer (computed without overflow).
 * Scalars are read with memcpy, so no alignment is assumed. uoffsets are unsigned and point
 * forward, so a reference cycle cannot exist; nesting depth is bounded by the schema walker.
 * Tables referenced from many places (a DAG) are verified once per reference; the number of table
 * visits is capped at the buffer size, which no buffer without shared tables can reach, so
 * verifying (and then reading) a file stays linear in its size. */
#ifndef ETPROF_FB_H
#define ETPROF_FB_H

#include "etprof.h"

#include <stdint.h>
#include <string.h>

static inline uint16_t fb_u16(const uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}
static inline uint32_t fb_u32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline int32_t fb_i32(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint64_t fb_u64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline int64_t fb_i64(const uint8_t *p) {
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* ---- unchecked access (only on verified buffers) ---- */

/* Offset of field `id` inside the table at `t`, 0 when absent. */
static inline uint32_t fb_field(const uint8_t *buf, uint32_t t, unsigned id) {
    uint32_t vt = (uint32_t)((int64_t)t - (int64_t)fb_i32(buf + t));
    uint16_t vlen = fb_u16(buf + vt);
    unsigned slot = 4 + 2 * id;
    if (slot + 2 > vlen) return 0;
    return fb_u16(buf + vt + slot);
}
/* Position of the object referenced by the uoffset field `id`, 0 when absent. */
static inline uint32_t fb_ref(const uint8_t *buf, uint32_t t, unsigned id) {
    uint32_t o = fb_field(buf, t, id);
    if (!o) return 0;
    return t + o + fb_u32(buf + t + o);
}
static inline etp_str fb_str(const uint8_t *buf, uint32_t t, unsigned id) {
    etp_str s = {NULL, 0};
    uint32_t p = fb_ref(buf, t, id);
    if (p) {
        s.len = fb_u32(buf + p);
        s.ptr = (const char *)buf + p + 4;
    }
    return s;
}
static inline etp_vec fb_vec(const uint8_t *buf, uint32_t t, unsigned id) {
    etp_vec v = {NULL, 0};
    uint32_t p = fb_ref(buf, t, id);
    if (p) {
        v.len = fb_u32(buf + p);
        v.ptr = buf + p + 4;
    }
    return v;
}
/* Table element `i` of a table vector whose length word is at `vec`. */
static inline uint32_t fb_vec_table(const uint8_t *buf, uint32_t vec, uint32_t i) {
    uint32_t e = vec + 4 + 4 * i;
    return e + fb_u32(buf + e);
}
#define FB_SCALAR(name, type, rd)                                                                 \
    static inline type name(const uint8_t *buf, uint32_t t, unsigned id, type dflt) {             \
        uint32_t o = fb_field(buf, t, id);                                                        \
        return o ? (type)rd(buf + t + o) : dflt;                                                  \
    }
FB_SCALAR(fb_get_i32, int32_t, fb_i32)
FB_SCALAR(fb_get_u32, uint32_t, fb_u32)
FB_SCALAR(fb_get_u64, uint64_t, fb_u64)
FB_SCALAR(fb_get_i64, int64_t, fb_i64)
static inline int8_t fb_get_i8(const uint8_t *buf, uint32_t t, unsigned id, int8_t dflt) {
    uint32_t o = fb_field(buf, t, id);
    return o ? (int8_t)buf[t + o] : dflt;
}
static inline uint8_t fb_get_u8(const uint8_t *buf, uint32_t t, unsigned id, uint8_t dflt) {
    uint32_t o = fb_field(buf, t, id);
    return o ? buf[t + o] : dflt;
}
static inline float fb_get_f32(const uint8_t *buf, uint32_t t, unsigned id, float dflt) {
    uint32_t o = fb_field(buf, t, id);
    float f = dflt;
    if (o) memcpy(&f, buf + t + o, 4);
    return f;
}
static inline double fb_get_f64(const uint8_t *buf, uint32_t t, unsigned id, double dflt) {
    uint32_t o = fb_field(buf, t, id);
    double f = dflt;
    if (o) memcpy(&f, buf + t + o, 8);
    return f;
}

/* ---- verification ---- */

#define FBV_MAX_DEPTH 24

typedef struct fbv {
    const uint8_t *buf;
    uint32_t size;     /* bytes in buf */
    int64_t base;      /* file offset of buf[0] */
    const char *file;  /* for errors */
    etp_error *err;    /* NULL: a quiet lookup, whose failures are returned, never formatted */
    int depth;
    uint64_t tables;   /* fbv_table() calls so far: bounded by `size` (see fbv_table) */
    struct {
        const char *name; /* field name, or NULL for a vector element */
        int64_t index;    /* element index when name == NULL */
    } stack[FBV_MAX_DEPTH];
} fbv;

/* Path frames: push a field name, or a vector index, pop when done. */
static inline void fbv_push(fbv *v, const char *name) {
    if (v->depth < FBV_MAX_DEPTH) {
        v->stack[v->depth].name = name;
        v->stack[v->depth].index = -1;
    }
    v->depth++;
}
static inline void fbv_push_index(fbv *v, int64_t i) {
    if (v->depth < FBV_MAX_DEPTH) {
        v->stack[v->depth].name = NULL;
        v->stack[v->depth].index = i;
    }
    v->depth++;
}
static inline void fbv_pop(fbv *v) { v->depth--; }

/* Records an input error at buffer position `pos`, with the current path (nothing when v->err is
 * NULL). Returns ETP_E_INPUT. */
int fbv_fail(fbv *v, uint64_t pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Verifies the table at `t`: soffset, vtable, inline size. */
int fbv_table(fbv *v, uint32_t t);
/* Verifies that scalar field `id` of table `t` (size `n` bytes) lies inside the table. */
int fbv_scalar(fbv *v, uint32_t t, unsigned id, unsigned n);
/* Verifies uoffset field `id` and returns the target position in *out (0 when absent). */
int fbv_ref(fbv *v, uint32_t t, unsigned id, uint32_t *out);
/* Verifies an optional string field. */
int fbv_string(fbv *v, uint32_t t, unsigned id);
/* Verifies an optional vector field of `elem`-byte scalars; *vec gets the length word's position
 * (0 when absent) and *len the element count. */
int fbv_vector(fbv *v, uint32_t t, unsigned id, unsigned elem, uint32_t *vec, uint32_t *len);
/* Verifies element `i` of a table vector at `vec` (its uoffset) and returns the table position
 * (the table itself is not verified). */
int fbv_vec_elem(fbv *v, uint32_t vec, uint32_t i, uint32_t *table);
/* Verifies a string whose length word is at `p` (used for string vectors). */
int fbv_string_at(fbv *v, uint32_t p);

#endif
