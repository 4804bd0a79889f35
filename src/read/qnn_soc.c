/*
 * qnn_soc.c - the SoC a QNN delegate was compiled for, read from the program (etprof_qnn.h,
 * etp_qnn_program_soc).
 *
 * ExecuTorch's Qualcomm backend stores its options in each QnnBackend delegate's compile spec
 * "qnn_compile_spec": a FlatBuffer (no size prefix) whose root table, QnnExecuTorchOptions, holds
 * the SoC as its field 0, a SocInfo table {0 soc_model: int (the QcomChipset id), 1 htp_info:
 * HtpInfo {0 htp_arch: int, 1 vtcm_size_in_mb: uint}}. The backend's other options were
 * renumbered between ExecuTorch versions (a real program's root table has 13 fields where the
 * schema of another version lists them in another order), so only this first table, the same in
 * every version seen, is read. The bytes come from the program file and are verified like any
 * other FlatBuffer (fb.h): a spec that does not verify is reported, never read.
 *
 * The VTCM budget: the spec's vtcm_size_in_mb is what ExecuTorch configures each QNN graph with
 * (QNN's HTP graph option "VTCM size", in MiB). The QNN context binary (the delegate's processed
 * blob) also records the HTP compiler's options as text, where the configured size appears in
 * bytes (vtcm_size=8388608 for 8 MiB) beside other VTCM keys; the upstream stories260k program
 * holds "vtcm_size=8388608;vtcm_kb=-1;vtcm_mb=4", vtcm_mb=4 being an option the explicit size
 * overrides. So the spec's value is used (else vtcm_size when it is a whole number of MiB), and
 * any value that disagrees with it is said (etp_qnn_soc_vtcm_note), never dropped silently.
 */
#include "fb.h"
#include "qnn_report.h"

#include <stdio.h>
#include <string.h>

/* QcomChipset ids with one name in every ExecuTorch (and QNN SDK) table seen. */
static const struct {
    int32_t id;
    const char *name;
} chipsets[] = {
    {36, "SM8450"},   {39, "SA8295"},   {42, "SM8475"},   {43, "SM8550"},   {45, "SXR1230P"},
    {46, "SSG2115P"}, {52, "SA8255"},   {53, "SXR2230P"}, {57, "SM8650"},   {58, "SSG2125P"},
    {69, "SM8750"},   {75, "SXR2330P"}, {77, "QCS9100"},  {87, "SM8850"},   {95, "SAR2230P"},
    {96, "SW6100"},   {97, "SM8845"},
};

const char *etp_qnn_chipset_name(int32_t id) {
    for (size_t i = 0; i < sizeof chipsets / sizeof chipsets[0]; i++)
        if (chipsets[i].id == id) return chipsets[i].name;
    return NULL;
}

/* The SocInfo of one spec value (n bytes at p, `base` its offset in the file) into *s;
 * ETP_E_INPUT, located in err (the file offset and the spec's path), when it does not verify. */
static int read_soc(const uint8_t *p, uint32_t n, int64_t base, const char *file, const char *path,
                    etp_qnn_soc *s, etp_error *err) {
    fbv v = {.buf = p, .size = n, .base = base, .file = file, .err = err};
    fbv_push(&v, path);
    if (n < 8) return fbv_fail(&v, 0, "%u bytes: too short for a FlatBuffer", n);
    uint32_t root = fb_u32(p), si = 0, hi = 0;
    if (root > n - 4) /* located at the offset word, not at where it points */
        return fbv_fail(&v, 0, "root table offset %u lies past the spec's %u bytes", root, n);
    int rc;
    if ((rc = fbv_table(&v, root))) return rc;
    fbv_push(&v, "soc_info");
    if ((rc = fbv_ref(&v, root, 0, &si))) return rc;
    if (!si) return fbv_fail(&v, root, "absent (not a QnnExecuTorchOptions table?)");
    if ((rc = fbv_table(&v, si)) || (rc = fbv_scalar(&v, si, 0, 4))) return rc;
    s->soc_model = fb_field(p, si, 0) ? fb_i32(p + si + fb_field(p, si, 0)) : 0;
    fbv_push(&v, "htp_info");
    if ((rc = fbv_ref(&v, si, 1, &hi))) return rc;
    if (hi) {
        if ((rc = fbv_table(&v, hi)) || (rc = fbv_scalar(&v, hi, 0, 4)) ||
            (rc = fbv_scalar(&v, hi, 1, 4)))
            return rc;
        s->htp_arch = fb_field(p, hi, 0) ? fb_i32(p + hi + fb_field(p, hi, 0)) : 0;
        s->vtcm_mb = fb_field(p, hi, 1) ? fb_u32(p + hi + fb_field(p, hi, 1)) : 0;
    }
    s->soc_name = etp_qnn_chipset_name(s->soc_model);
    return ETP_OK;
}

/* The decimal value after the first "key" (e.g. "vtcm_mb=") in n bytes at p, whose previous byte
 * is a separator (not a letter, digit or '_'); false when absent or not a number. */
static bool blob_option(const uint8_t *p, size_t n, const char *key, uint64_t *out) {
    size_t kl = strlen(key);
    for (size_t i = 0; i + kl < n;) {
        const uint8_t *q = memchr(p + i, (unsigned char)key[0], n - kl - i);
        if (!q) return false;
        i = (size_t)(q - p);
        bool sep = i == 0 || !(p[i - 1] == '_' || (p[i - 1] >= '0' && p[i - 1] <= '9') ||
                               ((p[i - 1] | 0x20) >= 'a' && (p[i - 1] | 0x20) <= 'z'));
        if (sep && memcmp(q, key, kl) == 0 && i + kl < n && p[i + kl] >= '0' && p[i + kl] <= '9') {
            uint64_t v = 0;
            for (size_t j = i + kl; j < n && p[j] >= '0' && p[j] <= '9' && v < UINT64_MAX / 10; j++)
                v = v * 10 + (uint64_t)(p[j] - '0');
            *out = v;
            return true;
        }
        i++;
    }
    return false;
}

/* The QNN context binary's VTCM options (the first readable spec's delegate) against the spec. */
static void blob_vtcm(const etp_program *p, etp_qnn_soc *s) {
    const uint8_t *data;
    size_t len;
    uint64_t v;
    if (!etp_program_delegate_payload(p, s->plan, s->delegate, &data, &len)) return;
    if (blob_option(data, len, "vtcm_size=", &v)) s->blob_vtcm_size_bytes = v;
    if (blob_option(data, len, "vtcm_mb=", &v) && v <= UINT32_MAX) s->blob_vtcm_mb = (uint32_t)v;
    if (!s->vtcm_mb && s->blob_vtcm_size_bytes && s->blob_vtcm_size_bytes % 1048576 == 0 &&
        s->blob_vtcm_size_bytes / 1048576 <= UINT32_MAX)
        s->vtcm_mb = (uint32_t)(s->blob_vtcm_size_bytes / 1048576);
    uint64_t used = (uint64_t)s->vtcm_mb * 1048576;
    s->vtcm_conflict = s->vtcm_mb && ((s->blob_vtcm_size_bytes && s->blob_vtcm_size_bytes != used) ||
                                      (s->blob_vtcm_mb && s->blob_vtcm_mb != s->vtcm_mb));
}

int etp_qnn_soc_vtcm_note(const etp_qnn_soc *s, char *buf, size_t n) {
    if (!n) return 0;
    buf[0] = 0;
    if (!s || !s->present || !s->vtcm_conflict) return 0;
    char size[80] = "", mb[48] = "";
    if (s->blob_vtcm_size_bytes)
        snprintf(size, sizeof size, " vtcm_size=%llu (%.6g MiB)%s",
                 (unsigned long long)s->blob_vtcm_size_bytes,
                 (double)s->blob_vtcm_size_bytes / 1048576.0, s->blob_vtcm_mb ? " and" : "");
    if (s->blob_vtcm_mb) snprintf(mb, sizeof mb, " vtcm_mb=%u", s->blob_vtcm_mb);
    return snprintf(buf, n,
                    "WARNING: the VTCM budget is given twice and the values disagree: the "
                    "qnn_compile_spec's vtcm_size_in_mb says %u MiB, the QNN context binary's "
                    "compiler options say%s%s; %u MiB is used (the size ExecuTorch configures the "
                    "graph with; docs/qnn-inputs.md \"VTCM budget\")",
                    s->vtcm_mb, size, mb, s->vtcm_mb);
}

static bool same_soc(const etp_qnn_soc *a, const etp_qnn_soc *b) {
    return a->soc_model == b->soc_model && a->htp_arch == b->htp_arch && a->vtcm_mb == b->vtcm_mb;
}

void etp_qnn_program_soc(const etp_program *p, const etp_blob *blob, etp_qnn_soc *out) {
    memset(out, 0, sizeof *out);
    if (!p) return;
    const char *file = blob ? blob->name : "";
    const etp_program_info *pi = etp_program_get_info(p);
    for (uint32_t pl = 0; pl < pi->plan_count; pl++) {
        etp_plan_info pli;
        etp_program_plan(p, pl, &pli);
        for (uint32_t d = 0; d < pli.delegate_count; d++) {
            etp_delegate dl;
            if (!etp_program_delegate(p, pl, d, &dl) || !dl.id.ptr ||
                strcmp(dl.id.ptr, "QnnBackend") != 0)
                continue;
            for (uint32_t k = 0; k < dl.compile_spec_count; k++) {
                etp_compile_spec cs;
                if (!etp_program_compile_spec(p, pl, d, k, &cs) || !cs.key.ptr ||
                    strcmp(cs.key.ptr, "qnn_compile_spec") != 0)
                    continue;
                char path[160];
                snprintf(path, sizeof path, "execution_plan[%u].delegates[%u].compile_specs[%u]"
                         ".value (qnn_compile_spec)", pl, d, k);
                etp_qnn_soc s = {0};
                etp_error e = {0};
                /* the value's offset in the file, for errors, when it lies in the blob */
                int64_t base = 0;
                if (blob && cs.value.ptr >= blob->data && cs.value.len <= blob->size &&
                    (size_t)(cs.value.ptr - blob->data) <= blob->size - cs.value.len)
                    base = (int64_t)(cs.value.ptr - blob->data);
                if (read_soc(cs.value.ptr, cs.value.len, base, file, path, &s, &e)) {
                    out->unreadable++;
                    if (out->unreadable == 1) out->error = e;
                    continue;
                }
                out->specs++;
                if (out->specs == 1) {
                    s.specs = out->specs;
                    s.unreadable = out->unreadable;
                    s.error = out->error;
                    *out = s;
                    out->present = true;
                    out->plan = pl;
                    out->delegate = d;
                    blob_vtcm(p, out);
                } else if (!same_soc(out, &s)) {
                    out->differs = true;
                }
            }
        }
    }
}

etp_qnn_f64 etp_qnn_vtcm_share(const etp_qnn_summary *s, const etp_qnn_soc *soc) {
    etp_qnn_f64 r = {0, false};
    if (!s || !soc || !soc->present || !soc->vtcm_mb || !s->peak_vtcm_bytes.has) return r;
    r.v = (double)s->peak_vtcm_bytes.v * 100.0 / ((double)soc->vtcm_mb * 1048576.0);
    r.has = true;
    return r;
}

int etp_qnn_soc_name(const etp_qnn_soc *soc, char *buf, size_t n) {
    if (!n) return 0;
    buf[0] = 0;
    if (!soc || !soc->present) return 0;
    int k = soc->soc_name ? snprintf(buf, n, "%s", soc->soc_name)
                          : snprintf(buf, n, "chipset id %d", (int)soc->soc_model);
    if (soc->htp_arch && k >= 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, ", HTP V%d", (int)soc->htp_arch);
    return k;
}
