/* tensor.c - tensors in a debug buffer (include/etprof_tensor.h). */
#include "etprof_tensor.h"
#include "sniff.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static uint64_t le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int k = n - 1; k >= 0; k--) v = v << 8 | p[k];
    return v;
}

/* IEEE binary16. */
static double half(uint16_t h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double s = (h & 0x8000) ? -1 : 1;
    if (e == 0) return s * ldexp(m, -24);
    if (e == 31) return m ? NAN : s * INFINITY;
    return s * ldexp(m + 1024, e - 25);
}

/* 8-bit floats (OCP / "fnuz" variants): `eb` exponent bits, `bias`; fn: no infinities, the
 * all-ones mantissa with the all-ones exponent is NaN; fnuz: 0x80 is the only NaN, no -0. */
static double f8(uint8_t b, int eb, int bias, int kind) {
    int mb = 7 - eb;
    int e = (b >> mb) & ((1 << eb) - 1), m = b & ((1 << mb) - 1);
    double s = (b & 0x80) ? -1 : 1;
    if (kind == 2 && b == 0x80) return NAN;                                  /* fnuz */
    if (kind == 0 && e == (1 << eb) - 1) return m ? NAN : s * INFINITY;      /* e5m2 (IEEE) */
    if (kind == 1 && e == (1 << eb) - 1 && m == (1 << mb) - 1) return NAN;   /* e4m3fn */
    if (e == 0) return s * ldexp(m, 1 - bias - mb);
    return s * ldexp(m + (1 << mb), e - bias - mb);
}

static double decode(int t, const uint8_t *p) {
    switch (t) {
    case 0: case 13: case 16: case 17: return p[0];
    case 1: case 12: return (int8_t)p[0];
    case 2: return (int16_t)le(p, 2);
    case 3: case 14: return (int32_t)le(p, 4);
    case 4: return (double)(int64_t)le(p, 8);
    case 5: return half((uint16_t)le(p, 2));
    case 6: {
        uint32_t u = (uint32_t)le(p, 4);
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case 7: {
        uint64_t u = le(p, 8);
        double d;
        memcpy(&d, &u, 8);
        return d;
    }
    case 11: return p[0] != 0;
    case 15: {
        uint32_t u = (uint32_t)le(p, 2) << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case 22: case 27: return (double)le(p, 2);
    case 23: return f8(p[0], 5, 15, 0);
    case 24: return f8(p[0], 4, 7, 1);
    case 25: return f8(p[0], 5, 16, 2);
    case 26: return f8(p[0], 4, 8, 2);
    case 28: return (double)le(p, 4);
    case 29: return (double)le(p, 8);
    }
    return NAN;
}

int etp_debug_buffer_check(const etp_blob *buf, const char *path, etp_error *err) {
    if (!buf || !buf->data) return ETP_OK;
    etp_file_kind k = etp_sniff_kind(buf->data, buf->size);
    if (k != ETP_FILE_ETDUMP && k != ETP_FILE_PROGRAM && k != ETP_FILE_BUNDLED &&
        k != ETP_FILE_PTD && k != ETP_FILE_ZIP)
        return ETP_OK;
    char what[160];
    etp_sniff(buf->data, buf->size, what, sizeof what);
    etp_error_set(err, ETP_E_INPUT, buf->name, 0, path,
                  "not a debug buffer: this looks like %s; a debug buffer is the raw tensor bytes "
                  "of ETDumpGen::set_debug_buffer",
                  what);
    return ETP_E_INPUT;
}

int etp_tensor_view_init(const etp_tensor *t, const etp_blob *buf, const char *path,
                         etp_tensor_view *v, etp_error *err) {
    memset(v, 0, sizeof *v);
    const char *file = buf ? buf->name : NULL;
    v->scalar_type = t->scalar_type;
    v->offset = t->offset;
    int es = etp_scalar_type_size(t->scalar_type);
    char msg[160];
    if (!es) {
        snprintf(msg, sizeof msg, "scalar type %d is not defined by the schema", t->scalar_type);
        etp_error_set(err, ETP_E_INPUT, file, t->offset, path, "%s", msg);
        return ETP_E_INPUT;
    }
    if (t->sizes.len > ETP_TENSOR_MAX_RANK) {
        snprintf(msg, sizeof msg, "rank %u is above %d", t->sizes.len, ETP_TENSOR_MAX_RANK);
        etp_error_set(err, ETP_E_INPUT, file, t->offset, path, "%s", msg);
        return ETP_E_INPUT;
    }
    if (t->strides.len && t->strides.len != t->sizes.len) {
        snprintf(msg, sizeof msg, "%u strides for %u sizes", t->strides.len, t->sizes.len);
        etp_error_set(err, ETP_E_INPUT, file, t->offset, path, "%s", msg);
        return ETP_E_INPUT;
    }
    v->rank = t->sizes.len;
    uint64_t numel = 1, reach = 1; /* reach: the sizes' product with a zero counted as one */
    for (uint32_t d = 0; d < v->rank; d++) {
        int64_t s = etp_vec_i64(t->sizes, d);
        if (s < 0 || (s && reach > (UINT64_C(1) << 40) / (uint64_t)s)) {
            snprintf(msg, sizeof msg, "size %lld of dimension %u is negative or too large",
                     (long long)s, d);
            etp_error_set(err, ETP_E_INPUT, file, t->offset, path, "%s", msg);
            return ETP_E_INPUT;
        }
        v->sizes[d] = s;
        numel *= (uint64_t)s;
        if (s) reach *= (uint64_t)s; /* bounds the row-major strides, even when numel is 0 */
    }
    v->numel = numel;
    int64_t st = 1;
    for (uint32_t d = v->rank; d-- > 0;) { /* row-major */
        v->strides[d] = st;
        st *= v->sizes[d] ? v->sizes[d] : 1;
    }
    for (uint32_t d = 0; d < t->strides.len; d++) {
        int64_t s = etp_vec_i64(t->strides, d);
        if (s < 0 || s > (INT64_C(1) << 40)) {
            snprintf(msg, sizeof msg, "stride %lld of dimension %u is negative or too large",
                     (long long)s, d);
            etp_error_set(err, ETP_E_INPUT, file, t->offset, path, "%s", msg);
            return ETP_E_INPUT;
        }
        if (s != v->strides[d] && v->sizes[d] > 1) v->strided = true;
        v->strides[d] = s;
    }
    if (numel == 0 || t->offset < 0) { /* empty: no bytes were written */
        v->offset = -1;
        return ETP_OK;
    }
    uint64_t last = 0; /* element offset of the last element */
    for (uint32_t d = 0; d < v->rank; d++) {
        uint64_t n = (uint64_t)(v->sizes[d] - 1), s = (uint64_t)v->strides[d];
        /* each term below 2^56 keeps the sum of eight, times an element size, in 64 bits; no
         * buffer is that large, so such a view is refused rather than wrapped */
        if (s && n > (UINT64_C(1) << 56) / s) {
            snprintf(msg, sizeof msg, "stride %llu of dimension %u reaches beyond any buffer",
                     (unsigned long long)s, d);
            etp_error_set(err, ETP_E_INPUT, file, t->offset, path, "%s", msg);
            return ETP_E_INPUT;
        }
        last += n * s;
    }
    v->span_bytes = (last + 1) * (uint64_t)es;
    if (!buf || !buf->data) {
        etp_error_set(err, ETP_E_INPUT, NULL, t->offset, path,
                      "the tensor's bytes are in the debug buffer: give it (--debug-buffer F)");
        return ETP_E_INPUT;
    }
    /* the runtime writes numel x element size bytes (the tensor's storage): both that and the
     * elements the strides reach must lie in the buffer (this also bounds the work on a view by
     * the buffer's size, whatever the strides) */
    uint64_t nbytes = numel * (uint64_t)es;
    if (nbytes > v->span_bytes) v->span_bytes = nbytes;
    if ((uint64_t)t->offset > buf->size || v->span_bytes > buf->size - (uint64_t)t->offset) {
        snprintf(msg, sizeof msg,
                 "tensor bytes [%lld, %llu) lie outside the debug buffer (%zu bytes)",
                 (long long)t->offset, (unsigned long long)((uint64_t)t->offset + v->span_bytes),
                 buf->size);
        etp_error_set(err, ETP_E_INPUT, file, t->offset, path, "%s", msg);
        return ETP_E_INPUT;
    }
    int rc = etp_debug_buffer_check(buf, path, err);
    if (rc) return rc;
    v->base = buf->data + t->offset;
    return ETP_OK;
}

static const uint8_t *elem(const etp_tensor_view *v, uint64_t i) {
    uint64_t off = 0;
    for (uint32_t d = v->rank; d-- > 0;) {
        uint64_t s = (uint64_t)v->sizes[d];
        off += (i % s) * (uint64_t)v->strides[d];
        i /= s;
    }
    return v->base + off * (uint64_t)etp_scalar_type_size(v->scalar_type);
}

double etp_tensor_get(const etp_tensor_view *v, uint64_t i) {
    if (!v->base || i >= v->numel) return NAN;
    return decode(v->scalar_type, elem(v, i));
}

void etp_tensor_stats_compute(const etp_tensor_view *v, etp_tensor_stats *o) {
    memset(o, 0, sizeof *o);
    o->numel = v->base ? v->numel : 0;
    double mean = 0, m2 = 0, mn = INFINITY, mx = -INFINITY;
    uint64_t n = 0;
    for (uint64_t i = 0; i < o->numel; i++) {
        double x = etp_tensor_get(v, i);
        if (isnan(x)) {
            o->nan++;
            continue;
        }
        if (isinf(x)) {
            o->inf++;
            continue;
        }
        if (x == 0) o->zeros++;
        n++;
        double d = x - mean; /* Welford */
        mean += d / (double)n;
        m2 += d * (x - mean);
        if (x < mn) mn = x;
        if (x > mx) mx = x;
    }
    o->min = n ? mn : NAN;
    o->max = n ? mx : NAN;
    o->mean = n ? mean : NAN;
    o->std = n ? sqrt(m2 / (double)n) : NAN;
}

/* NumPy's descr of a type, and whether elements are widened to float32. */
static const char *npy_descr(int t, bool *widen) {
    *widen = false;
    switch (t) {
    case 0: case 13: case 16: case 17: return "|u1";
    case 1: case 12: return "|i1";
    case 2: return "<i2";
    case 3: case 14: return "<i4";
    case 4: return "<i8";
    case 5: return "<f2";
    case 6: return "<f4";
    case 7: return "<f8";
    case 11: return "|b1";
    case 22: case 27: return "<u2";
    case 28: return "<u4";
    case 29: return "<u8";
    default: *widen = true; return "<f4"; /* BFLOAT16, FLOAT8 variants */
    }
}

int etp_tensor_write_npy(const etp_tensor_view *v, FILE *f) {
    bool widen;
    const char *descr = npy_descr(v->scalar_type, &widen);
    char shape[ETP_TENSOR_MAX_RANK * 24 + 8];
    size_t k = 0;
    shape[k++] = '(';
    for (uint32_t d = 0; d < v->rank; d++)
        k += (size_t)snprintf(shape + k, sizeof shape - k, "%lld,%s", (long long)v->sizes[d],
                              d + 1 < v->rank ? " " : "");
    snprintf(shape + k, sizeof shape - k, ")");
    char hdr[512];
    int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
    /* magic (6) + version (2) + length (2) + header, padded with spaces to a multiple of 64 and
     * ended by a newline */
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
    size_t hl = (size_t)n + pad + 1;
    pre[8] = (unsigned char)(hl & 0xff);
    pre[9] = (unsigned char)(hl >> 8);
    if (fwrite(pre, 1, 10, f) != 10 || fwrite(hdr, 1, (size_t)n, f) != (size_t)n) return ETP_E_IO;
    for (size_t i = 0; i < pad; i++)
        if (fputc(' ', f) == EOF) return ETP_E_IO;
    if (fputc('\n', f) == EOF) return ETP_E_IO;
    int es = etp_scalar_type_size(v->scalar_type);
    for (uint64_t i = 0; v->base && i < v->numel; i++) {
        if (widen) {
            float x = (float)etp_tensor_get(v, i);
            unsigned char b[4];
            uint32_t u;
            memcpy(&u, &x, 4);
            for (int q = 0; q < 4; q++) b[q] = (unsigned char)(u >> (8 * q));
            if (fwrite(b, 1, 4, f) != 4) return ETP_E_IO;
        } else if (fwrite(elem(v, i), 1, (size_t)es, f) != (size_t)es) {
            return ETP_E_IO;
        }
    }
    return ferror(f) ? ETP_E_IO : ETP_OK;
}
