/* bundled.c - bundled programs' test suites (include/etprof_bundled.h), verified field by field
 * with the FlatBuffer verifier (src/read/fb.h): every error is located (byte offset, field path). */
#include "etprof_bundled.h"
#include "fb.h"

#include <stdlib.h>
#include <string.h>

struct etp_bundled {
    uint32_t version;
    uint32_t n_suites;
    etp_bsuite *suites;
    etp_bcase *cases;
    etp_bvalue *values;
    char **names;
};

#define TRY(x)                                                                                    \
    do {                                                                                          \
        int rc_ = (x);                                                                            \
        if (rc_) return rc_;                                                                      \
    } while (0)

static int read_tensor(fbv *v, uint32_t t, etp_bvalue *o) {
    const uint8_t *buf = v->buf;
    TRY(fbv_table(v, t));
    TRY(fbv_scalar(v, t, 0, 1));
    uint32_t sv, sn, dv, dn, ov, on;
    fbv_push(v, "sizes");
    TRY(fbv_vector(v, t, 1, 4, &sv, &sn));
    fbv_pop(v);
    fbv_push(v, "data");
    TRY(fbv_vector(v, t, 2, 1, &dv, &dn));
    fbv_pop(v);
    fbv_push(v, "dim_order");
    TRY(fbv_vector(v, t, 3, 1, &ov, &on));
    fbv_pop(v);
    etp_tensor_view *tv = &o->tensor;
    memset(tv, 0, sizeof *tv);
    int st = fb_get_i8(buf, t, 0, 0);
    int es = etp_scalar_type_size(st);
    if (!es) {
        fbv_push(v, "scalar_type");
        return fbv_fail(v, t + fb_field(buf, t, 0), "scalar type %d is not defined by the schema",
                        st);
    }
    if (sn > ETP_TENSOR_MAX_RANK) {
        fbv_push(v, "sizes");
        return fbv_fail(v, sv, "rank %u is above %d", sn, ETP_TENSOR_MAX_RANK);
    }
    tv->scalar_type = st;
    tv->rank = sn;
    uint64_t numel = 1, reach = 1; /* reach: the sizes' product with a zero counted as one */
    for (uint32_t d = 0; d < sn; d++) {
        int32_t s = fb_i32(buf + sv + 4 + 4 * d);
        if (s < 0 || (s && reach > (UINT64_C(1) << 40) / (uint64_t)s)) {
            fbv_push(v, "sizes");
            fbv_push_index(v, d);
            return fbv_fail(v, sv + 4 + 4 * d, "size %d is negative or too large", s);
        }
        tv->sizes[d] = s;
        numel *= (uint64_t)s;
        if (s) reach *= (uint64_t)s; /* bounds the strides below, even when numel is 0 */
    }
    tv->numel = numel;
    /* strides from the dim order (outermost dimension first), row-major without one */
    uint8_t order[ETP_TENSOR_MAX_RANK];
    if (on && on != sn) {
        fbv_push(v, "dim_order");
        return fbv_fail(v, ov, "%u entries for rank %u", on, sn);
    }
    bool seen[ETP_TENSOR_MAX_RANK] = {false};
    for (uint32_t d = 0; d < sn; d++) {
        order[d] = on ? buf[ov + 4 + d] : (uint8_t)d;
        if (order[d] >= sn || seen[order[d]]) {
            fbv_push(v, "dim_order");
            fbv_push_index(v, d);
            return fbv_fail(v, ov + 4 + d, "dimension %u repeated or not below rank %u",
                            order[d], sn);
        }
        seen[order[d]] = true;
        if (order[d] != d) tv->strided = true;
    }
    int64_t stride = 1;
    for (uint32_t k = sn; k-- > 0;) {
        tv->strides[order[k]] = stride;
        stride *= tv->sizes[order[k]] ? tv->sizes[order[k]] : 1;
    }
    uint64_t nbytes = numel * (uint64_t)es;
    tv->span_bytes = nbytes;
    if (nbytes > (uint64_t)dn || (nbytes && !dv)) {
        fbv_push(v, "data");
        return fbv_fail(v, dv ? dv : t, "%u data bytes for %llu elements of %d bytes", dn,
                        (unsigned long long)numel, es);
    }
    if (numel == 0) {
        tv->offset = -1;
        return ETP_OK;
    }
    tv->offset = v->base + dv + 4;
    tv->base = buf + dv + 4;
    return ETP_OK;
}

static int read_value(fbv *v, uint32_t t, etp_bvalue *o) {
    const uint8_t *buf = v->buf;
    memset(o, 0, sizeof *o);
    o->file_offset = v->base + t;
    TRY(fbv_table(v, t));
    TRY(fbv_scalar(v, t, 0, 1));
    uint8_t ty = fb_get_u8(buf, t, 0, 0);
    uint32_t u;
    fbv_push(v, "val");
    TRY(fbv_ref(v, t, 1, &u));
    if (ty < 1 || ty > 4 || !u) {
        if (ty < 1 || ty > 4) {
            fbv_pop(v);
            fbv_push(v, "val_type");
            return fbv_fail(v, t + fb_field(buf, t, 0),
                            "value type %u is not Tensor (1), Int (2), Bool (3) or Double (4)",
                            ty);
        }
        return fbv_fail(v, t, "value of type %u has no table", ty);
    }
    o->kind = (etp_bvalue_kind)ty;
    switch (ty) {
    case 1: TRY(read_tensor(v, u, o)); break;
    case 2:
        TRY(fbv_table(v, u));
        TRY(fbv_scalar(v, u, 0, 8));
        o->int_val = fb_get_i64(buf, u, 0, 0);
        break;
    case 3:
        TRY(fbv_table(v, u));
        TRY(fbv_scalar(v, u, 0, 1));
        o->bool_val = fb_get_u8(buf, u, 0, 0) != 0;
        break;
    case 4:
        TRY(fbv_table(v, u));
        TRY(fbv_scalar(v, u, 0, 8));
        o->double_val = fb_get_f64(buf, u, 0, 0);
        break;
    }
    fbv_pop(v);
    return ETP_OK;
}

/* Counts (first pass) or reads (second pass) the values of a case's vector field `id`. */
static int values(fbv *v, uint32_t tc, unsigned id, const char *name, etp_bvalue *dst,
                  uint32_t *n_out) {
    uint32_t vec, n;
    fbv_push(v, name);
    TRY(fbv_vector(v, tc, id, 4, &vec, &n));
    *n_out = n;
    for (uint32_t i = 0; dst && i < n; i++) {
        uint32_t e;
        fbv_push_index(v, i);
        TRY(fbv_vec_elem(v, vec, i, &e));
        TRY(read_value(v, e, &dst[i]));
        fbv_pop(v);
    }
    fbv_pop(v);
    return ETP_OK;
}

/* One pass over the suites: counting (b->values NULL) or filling. */
static int walk(fbv *v, uint32_t root, etp_bundled *b, uint64_t *nvals, uint64_t *ncases) {
    const uint8_t *buf = v->buf;
    uint32_t svec, ns;
    fbv_push(v, "method_test_suites");
    TRY(fbv_vector(v, root, 1, 4, &svec, &ns));
    b->n_suites = ns;
    uint64_t vk = 0, ck = 0;
    for (uint32_t s = 0; s < ns; s++) {
        uint32_t st;
        fbv_push_index(v, s);
        TRY(fbv_vec_elem(v, svec, s, &st));
        TRY(fbv_table(v, st));
        fbv_push(v, "method_name");
        TRY(fbv_string(v, st, 0));
        fbv_pop(v);
        uint32_t cvec, nc;
        fbv_push(v, "test_cases");
        TRY(fbv_vector(v, st, 1, 4, &cvec, &nc));
        if (b->suites) {
            etp_str nm = fb_str(buf, st, 0);
            char *c = malloc((size_t)nm.len + 1);
            if (!c) return ETP_E_INTERNAL;
            if (nm.len) memcpy(c, nm.ptr, nm.len);
            c[nm.len] = 0;
            b->names[s] = c;
            b->suites[s].method = c;
            b->suites[s].n_cases = nc;
            b->suites[s].cases = b->cases + ck;
        }
        for (uint32_t k = 0; k < nc; k++) {
            uint32_t tc;
            fbv_push_index(v, k);
            TRY(fbv_vec_elem(v, cvec, k, &tc));
            TRY(fbv_table(v, tc));
            uint32_t ni, no;
            etp_bvalue *dst = b->values ? b->values + vk : NULL;
            TRY(values(v, tc, 0, "inputs", dst, &ni));
            TRY(values(v, tc, 1, "expected_outputs", dst ? dst + ni : NULL, &no));
            if (b->cases) {
                etp_bcase *c = &b->cases[ck];
                c->n_inputs = ni;
                c->n_outputs = no;
                c->inputs = dst;
                c->outputs = dst + ni;
            }
            vk += (uint64_t)ni + no;
            ck++;
            if (vk > ETP_BUNDLED_MAX_VALUES)
                return fbv_fail(v, tc, "more than %u values in the test cases",
                                ETP_BUNDLED_MAX_VALUES);
            fbv_pop(v);
        }
        fbv_pop(v);
        fbv_pop(v);
    }
    fbv_pop(v);
    *nvals = vk;
    *ncases = ck;
    return ETP_OK;
}

int etp_bundled_open(etp_bundled **out, const etp_blob *blob, etp_error *err) {
    *out = NULL;
    const char *file = blob->name;
    if (blob->size < 8 || memcmp(blob->data + 4, "BP08", 4) != 0) {
        etp_error_set(err, ETP_E_INPUT, file, blob->size < 8 ? 0 : 4, NULL,
                      "not a bundled program: no identifier BP08 at byte 4");
        return ETP_E_INPUT;
    }
    if (blob->size > UINT32_MAX) {
        etp_error_set(err, ETP_E_INPUT, file, 0, NULL,
                      "file of %zu bytes exceeds the FlatBuffer 4 GiB limit", blob->size);
        return ETP_E_INPUT;
    }
    fbv v = {.buf = blob->data, .size = (uint32_t)blob->size, .base = 0, .file = file, .err = err};
    uint32_t root = fb_u32(blob->data);
    if ((uint64_t)root + 4 > v.size) {
        fbv_push(&v, "root");
        return fbv_fail(&v, 0, "root offset %u points outside the buffer", root);
    }
    etp_bundled *b = calloc(1, sizeof *b);
    if (!b) goto oom;
    int rc = fbv_table(&v, root);
    if (!rc) {
        fbv_push(&v, "version");
        rc = fbv_scalar(&v, root, 0, 4);
        fbv_pop(&v);
    }
    uint64_t nv = 0, nc = 0;
    if (!rc) rc = walk(&v, root, b, &nv, &nc); /* verify and count */
    if (rc) {
        etp_bundled_close(b);
        return rc;
    }
    b->version = fb_get_u32(blob->data, root, 0, 0);
    b->suites = calloc(b->n_suites + 1, sizeof *b->suites);
    b->names = calloc(b->n_suites + 1, sizeof *b->names);
    b->cases = calloc(nc + 1, sizeof *b->cases);
    b->values = calloc(nv + 1, sizeof *b->values);
    if (!b->suites || !b->names || !b->cases || !b->values) goto oom;
    v.depth = 0;
    v.tables = 0;
    rc = walk(&v, root, b, &nv, &nc); /* read (verified already) */
    if (rc == ETP_E_INTERNAL) goto oom;
    if (rc) {
        etp_bundled_close(b);
        return rc;
    }
    *out = b;
    return ETP_OK;
oom:
    etp_bundled_close(b);
    etp_error_set(err, ETP_E_INTERNAL, file, -1, NULL, "out of memory");
    return ETP_E_INTERNAL;
}

void etp_bundled_close(etp_bundled *b) {
    if (!b) return;
    for (uint32_t i = 0; b->names && i < b->n_suites; i++) free(b->names[i]);
    free(b->names);
    free(b->suites);
    free(b->cases);
    free(b->values);
    free(b);
}

uint32_t etp_bundled_version(const etp_bundled *b) { return b ? b->version : 0; }
uint32_t etp_bundled_suite_count(const etp_bundled *b) { return b ? b->n_suites : 0; }
const etp_bsuite *etp_bundled_suite(const etp_bundled *b, uint32_t i) {
    return b && i < b->n_suites ? &b->suites[i] : NULL;
}
const etp_bsuite *etp_bundled_find_suite(const etp_bundled *b, const char *method) {
    for (uint32_t i = 0; b && method && i < b->n_suites; i++)
        if (strcmp(b->suites[i].method, method) == 0) return &b->suites[i];
    return NULL;
}

const char *etp_bvalue_kind_name(etp_bvalue_kind k) {
    switch (k) {
    case ETP_BV_TENSOR: return "tensor";
    case ETP_BV_INT: return "int";
    case ETP_BV_BOOL: return "bool";
    case ETP_BV_DOUBLE: return "double";
    case ETP_BV_NONE: break;
    }
    return "none";
}
