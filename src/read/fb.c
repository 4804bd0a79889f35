/* fb.c - FlatBuffer verifier with located errors (see fb.h). */
#include "fb.h"

#include <stdarg.h>
#include <stdio.h>

static void format_path(const fbv *v, char *out, size_t cap) {
    size_t n = 0;
    out[0] = 0;
    int depth = v->depth < FBV_MAX_DEPTH ? v->depth : FBV_MAX_DEPTH;
    for (int i = 0; i < depth && n + 1 < cap; i++) {
        int w;
        if (v->stack[i].name)
            w = snprintf(out + n, cap - n, "%s%s", n ? "." : "", v->stack[i].name);
        else
            w = snprintf(out + n, cap - n, "[%lld]", (long long)v->stack[i].index);
        if (w < 0) break;
        n += (size_t)w;
        if (n >= cap) {
            n = cap - 1;
            break;
        }
    }
}

int fbv_fail(fbv *v, uint64_t pos, const char *fmt, ...) {
    if (!v->err) return ETP_E_INPUT; /* a quiet lookup: nothing formatted (fb.h) */
    char path[ETP_ERR_PATH_MAX];
    char msg[ETP_ERR_MSG_MAX];
    format_path(v, path, sizeof path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    etp_error_set(v->err, ETP_E_INPUT, v->file, v->base + (int64_t)pos, path, "%s", msg);
    return ETP_E_INPUT;
}

int fbv_table(fbv *v, uint32_t t) {
    if (v->depth > FBV_MAX_DEPTH) return fbv_fail(v, t, "nesting deeper than %d", FBV_MAX_DEPTH);
    /* Distinct tables start at distinct positions, so more visits than bytes means tables are
     * shared; unbounded, a small crafted file would take quadratic time (hours for 1 MB). */
    if (++v->tables > v->size)
        return fbv_fail(v, t, "tables are referenced more than %u times in a %u-byte buffer "
                              "(shared tables)", v->size, v->size);
    if ((uint64_t)t + 4 > v->size)
        return fbv_fail(v, t, "table starts past the end of the buffer (%u bytes)", v->size);
    int64_t vt = (int64_t)t - (int64_t)fb_i32(v->buf + t);
    if (vt < 0 || vt + 4 > (int64_t)v->size)
        return fbv_fail(v, t, "vtable offset %d points outside the buffer", fb_i32(v->buf + t));
    uint16_t vlen = fb_u16(v->buf + vt), tlen = fb_u16(v->buf + vt + 2);
    if (vlen < 4 || (vlen & 1))
        return fbv_fail(v, (uint64_t)vt, "vtable length %u is invalid", vlen);
    if (vt + vlen > (int64_t)v->size)
        return fbv_fail(v, (uint64_t)vt, "vtable (%u bytes) runs past the end of the buffer", vlen);
    if (tlen < 4) return fbv_fail(v, (uint64_t)vt, "table size %u is smaller than 4", tlen);
    if ((uint64_t)t + tlen > v->size)
        return fbv_fail(v, t, "table (%u bytes) runs past the end of the buffer", tlen);
    return ETP_OK;
}

/* Field offset, checked as FlatBuffers' reference verifier and the ExecuTorch runtime check it:
 * the field's bytes lie inside the BUFFER. The table's declared inline size is not a bound on its
 * fields: real writers produce tables whose last field ends past it (the upstream QNN program's
 * segments[1] declares 8 bytes and holds its u64 `size` at bytes 4..12), and reading them is as
 * safe as reading any byte of the buffer. */
static int field_in_table(fbv *v, uint32_t t, unsigned id, unsigned n, uint32_t *off) {
    uint32_t vt = (uint32_t)((int64_t)t - (int64_t)fb_i32(v->buf + t));
    uint16_t vlen = fb_u16(v->buf + vt);
    unsigned slot = 4 + 2 * id;
    *off = 0;
    if (slot + 2 > vlen) return ETP_OK;
    uint16_t o = fb_u16(v->buf + vt + slot);
    if (!o) return ETP_OK;
    /* Located at the vtable entry holding the bad offset: t + o may lie past the end of the file. */
    if ((uint64_t)t + o + n > v->size)
        return fbv_fail(v, (uint64_t)vt + slot,
                        "field at table byte %u (%u bytes) runs past the end of the buffer (%u bytes)",
                        o, n, v->size);
    *off = o;
    return ETP_OK;
}

int fbv_scalar(fbv *v, uint32_t t, unsigned id, unsigned n) {
    uint32_t off;
    return field_in_table(v, t, id, n, &off);
}

int fbv_ref(fbv *v, uint32_t t, unsigned id, uint32_t *out) {
    uint32_t off;
    *out = 0;
    int rc = field_in_table(v, t, id, 4, &off);
    if (rc || !off) return rc;
    uint64_t target = (uint64_t)t + off + fb_u32(v->buf + t + off);
    if (target + 4 > v->size)
        return fbv_fail(v, (uint64_t)t + off, "offset %u points outside the buffer",
                        fb_u32(v->buf + t + off));
    *out = (uint32_t)target;
    return ETP_OK;
}

int fbv_string_at(fbv *v, uint32_t p) {
    if ((uint64_t)p + 4 > v->size) return fbv_fail(v, p, "string starts past the end of the buffer");
    uint64_t len = fb_u32(v->buf + p);
    if ((uint64_t)p + 4 + len + 1 > v->size)
        return fbv_fail(v, p, "string length %llu runs past the end of the buffer",
                        (unsigned long long)len);
    if (v->buf[p + 4 + len] != 0) return fbv_fail(v, p + 4 + len, "string is not NUL-terminated");
    return ETP_OK;
}

int fbv_string(fbv *v, uint32_t t, unsigned id) {
    uint32_t p;
    int rc = fbv_ref(v, t, id, &p);
    if (rc || !p) return rc;
    return fbv_string_at(v, p);
}

int fbv_vector(fbv *v, uint32_t t, unsigned id, unsigned elem, uint32_t *vec, uint32_t *len) {
    uint32_t p;
    *vec = 0;
    *len = 0;
    int rc = fbv_ref(v, t, id, &p);
    if (rc || !p) return rc;
    uint64_t n = fb_u32(v->buf + p);
    if ((uint64_t)p + 4 + n * elem > v->size)
        return fbv_fail(v, p, "vector of %llu elements (%u bytes each) runs past the end of the buffer",
                        (unsigned long long)n, elem);
    *vec = p;
    *len = (uint32_t)n;
    return ETP_OK;
}

int fbv_vec_elem(fbv *v, uint32_t vec, uint32_t i, uint32_t *table) {
    uint32_t e = vec + 4 + 4 * i;
    uint64_t target = (uint64_t)e + fb_u32(v->buf + e);
    if (target + 4 > v->size)
        return fbv_fail(v, e, "offset %u points outside the buffer", fb_u32(v->buf + e));
    *table = (uint32_t)target;
    return ETP_OK;
}
