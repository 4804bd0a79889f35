/* fuzz_tensor.c - fuzz target for the tensor decoder (src/read/tensor.c, tensor_compare.c), the
 * bundled program reader (src/read/bundled.c), check-outputs (src/analyze/check_outputs.c) and the --select
 * parser (src/analyze/tensor_select.c).
 *
 * The input is used three ways:
 *  - as a bundled program (.bpte): when accepted, every test suite, case and value is walked
 *    (every element of every tensor decoded, every view inside the input), and check-outputs
 *    runs the fixed dump's logged outputs against each test case; when rejected, the error is a
 *    located ETP_E_INPUT naming the file (fuzz_common.h);
 *  - as the debug buffer of the fixed dump (bundled_program_intermediate_1x.etdp): every logged
 *    tensor is viewed, decoded, summarised and written as .npy; the dump is compared with
 *    itself (this buffer against the real one) and checked against the fixed bundled program;
 *    a tensor outside the buffer is a located ETP_E_INPUT naming the buffer;
 *  - its first bytes as a --select expression: parsing either succeeds or is ETP_E_USAGE. */
#include "fuzz_common.h"
#include "etprof_bundled.h"

extern const unsigned char *const etprof_fuzz_tensor_data[];
extern const size_t etprof_fuzz_tensor_size[];
extern const char *const etprof_fuzz_tensor_name[];
extern const size_t etprof_fuzz_tensor_count;

static struct {
    etp_blob dump_blob, buf_blob, bp_blob;
    etp_dump *dump;
    etp_program *prog;
    etp_model *model;
    etp_bundled *bundled;
} fx;

static const unsigned char *fixed(const char *name, size_t *n) {
    for (size_t i = 0; i < etprof_fuzz_tensor_count; i++)
        if (strcmp(etprof_fuzz_tensor_name[i], name) == 0) {
            *n = etprof_fuzz_tensor_size[i];
            return etprof_fuzz_tensor_data[i];
        }
    fz_die("fixed file %s is not embedded", name);
}

static void load_fixtures(void) {
    static bool loaded;
    if (loaded) return;
    loaded = true;
    size_t n;
    const unsigned char *p = fixed("bundled_program_intermediate_1x.etdp", &n);
    etp_blob_borrow(&fx.dump_blob, p, n, "fixed.etdp");
    p = fixed("bundled_program_intermediate_1x.debug.bin", &n);
    etp_blob_borrow(&fx.buf_blob, p, n, "fixed.debug.bin");
    p = fixed("bundled_program.bpte", &n);
    etp_blob_borrow(&fx.bp_blob, p, n, "fixed.bpte");
    etp_error err = {0};
    if (etp_dump_open(&fx.dump, &fx.dump_blob, &err) ||
        etp_program_open(&fx.prog, &fx.bp_blob, &err) ||
        etp_model_open(&fx.model, fx.dump, fx.prog, NULL, &err) ||
        etp_bundled_open(&fx.bundled, &fx.bp_blob, &err))
        fz_die("the fixed files do not open: %s", err.msg);
}

/* A tensor outside the buffer: located by the tensor's own byte offset (which may lie past the
 * buffer's end: that is the error) and the event's path. */
static void check_view_error(const char *who, int rc, const etp_error *err, const char *name) {
    FZ_ASSERT(rc == ETP_E_INPUT && err->code == rc, "%s returned %d", who, rc);
    FZ_ASSERT(err->msg[0] && strcmp(err->file, name) == 0 && err->path[0],
              "%s: error without message, file or path", who);
    FZ_ASSERT(strpbrk(err->msg, "\r\n") == NULL, "%s: error message is not one line", who);
    etprof_fuzz_rejected++;
}

static void walk_view(const fz_input *in, const etp_tensor_view *v) {
    if (v->base) {
        FZ_ASSERT(!in || fz_inside(in, v->base, v->span_bytes), "tensor view outside the input");
        for (uint64_t i = 0; i < v->numel; i++) {
            double x = etp_tensor_get(v, i);
            fz_sink_ += (uint32_t)(!isfinite(x) ? 1 : (int64_t)fmod(x, 1e9)); /* inf: fmod is NaN */
        }
    }
    etp_tensor_stats st;
    etp_tensor_stats_compute(v, &st);
    FZ_ASSERT(st.numel == (v->base ? v->numel : 0), "stats count %llu elements of %llu",
              (unsigned long long)st.numel, (unsigned long long)v->numel);
    FILE *f = fopen("/dev/null", "wb");
    if (f) {
        FZ_ASSERT(etp_tensor_write_npy(v, f) == ETP_OK, ".npy write failed");
        fclose(f);
    }
}

static void check_all(const etp_bundled *b, const etp_blob *buf) {
    for (uint32_t c = 0; c < 4; c++) {
        etp_chk_opts o;
        etp_chk_opts_default(&o);
        o.test_case = c;
        etp_chk_result *r = NULL;
        etp_error err = {0};
        int rc = etp_check_outputs(fx.model, buf, b, &o, &r, &err);
        if (rc) {
            FZ_ASSERT(rc == ETP_E_USAGE || rc == ETP_E_INPUT, "check-outputs returned %d", rc);
            FZ_ASSERT(err.msg[0], "check-outputs: empty error message");
            if (rc == ETP_E_INPUT) check_view_error("check-outputs", rc, &err, buf->name);
            continue;
        }
        uint64_t failed = 0;
        for (size_t i = 0; i < etp_chk_row_count(r); i++) {
            const etp_chk_row *x = etp_chk_row_get(r, i);
            FZ_ASSERT(x->mismatched <= x->numel, "more mismatched elements than compared");
            if (x->status != ETP_CHK_PASS) failed++;
            fz_sink_ += (uint32_t)strlen(etp_chk_status_name(x->status));
        }
        FZ_ASSERT(failed == etp_chk_failed(r), "failed count differs from the rows");
        etp_chk_free(r);
    }
}

static void as_bundled(const uint8_t *data, size_t size) {
    etp_blob blob;
    etp_blob_borrow(&blob, data, size, "fuzz.bpte");
    etp_bundled *b = NULL;
    etp_error err = {0};
    int rc = etp_bundled_open(&b, &blob, &err);
    if (rc) {
        fz_check_rejection("etp_bundled_open", rc, &err, "fuzz.bpte", size, false);
        return;
    }
    etprof_fuzz_accepted++;
    fz_input in = {data, size};
    for (uint32_t s = 0; s <= etp_bundled_suite_count(b); s++) {
        const etp_bsuite *su = etp_bundled_suite(b, s);
        if (s == etp_bundled_suite_count(b)) {
            FZ_ASSERT(!su, "suite past the end is not NULL");
            break;
        }
        fz_sink_ += (uint32_t)strlen(su->method);
        FZ_ASSERT(etp_bundled_find_suite(b, su->method) != NULL, "suite not found by name");
        for (uint32_t c = 0; c < su->n_cases; c++) {
            const etp_bcase *tc = &su->cases[c];
            for (uint32_t k = 0; k < tc->n_inputs + tc->n_outputs; k++) {
                const etp_bvalue *v = k < tc->n_inputs ? &tc->inputs[k]
                                                       : &tc->outputs[k - tc->n_inputs];
                FZ_ASSERT(v->kind >= ETP_BV_TENSOR && v->kind <= ETP_BV_DOUBLE, "value kind %d",
                          (int)v->kind);
                FZ_ASSERT(v->file_offset >= 0 && (uint64_t)v->file_offset < size,
                          "value offset outside the input");
                fz_sink_ += (uint32_t)strlen(etp_bvalue_kind_name(v->kind));
                if (v->kind == ETP_BV_TENSOR) walk_view(&in, &v->tensor);
            }
        }
    }
    check_all(b, &fx.buf_blob);
    etp_bundled_close(b);
}

static void as_buffer(const uint8_t *data, size_t size) {
    etp_blob blob;
    etp_blob_borrow(&blob, data, size, "fuzz.debug.bin");
    fz_input in = {data, size};
    const etp_dump_info *di = etp_dump_get_info(fx.dump);
    bool all_ok = true;
    for (uint32_t b = 0; b < di->block_count; b++) {
        etp_block_view bv;
        etp_error err = {0};
        if (etp_model_block(fx.model, b, &bv, &err)) fz_die("fixed dump block: %s", err.msg);
        for (uint32_t i = 0; i < bv.n; i++) {
            const etp_mevent *e = &bv.events[i];
            if (e->ev.type != ETP_EVENT_DEBUG || !e->ev.debug.has_debug_entry) continue;
            const etp_value *val = &e->ev.debug.debug_entry;
            if (val->val != ETP_VAL_TENSOR || !val->has_tensor) continue;
            etp_tensor_view v;
            int rc = etp_tensor_view_init(&val->tensor, &blob, "t", &v, &err);
            if (rc) {
                all_ok = false;
                check_view_error("etp_tensor_view_init", rc, &err, "fuzz.debug.bin");
                continue;
            }
            walk_view(&in, &v);
        }
    }
    if (all_ok) etprof_fuzz_accepted++;
    etp_cmp_result *r = NULL;
    etp_error err = {0};
    int rc = etp_cmp_compute(fx.model, &fx.buf_blob, fx.model, &blob, &r, &err);
    FZ_ASSERT((rc == ETP_OK) == all_ok, "compare and the views disagree on the buffer (%d)", rc);
    if (rc) check_view_error("etp_cmp_compute", rc, &err, "fuzz.debug.bin");
    else {
        for (size_t i = 0; i < etp_cmp_row_count(r); i++) {
            const etp_cmp_row *x = etp_cmp_row_get(r, i);
            FZ_ASSERT(x->status == ETP_CMP_MATCHED, "the dump against itself left row %zu "
                      "unmatched", i);
        }
        etp_cmp_free(r);
    }
    check_all(fx.bundled, &blob);
}

static void as_select(const uint8_t *data, size_t size) {
    char expr[128];
    size_t n = size < sizeof expr - 1 ? size : sizeof expr - 1;
    memcpy(expr, data, n);
    expr[n] = 0;
    etp_tensor_select s;
    etp_error err = {0};
    int rc = etp_tensor_select_parse(expr, &s, &err);
    FZ_ASSERT(rc == ETP_OK || (rc == ETP_E_USAGE && err.msg[0]), "select parse returned %d", rc);
    if (!rc) {
        fz_sink_ += etp_tensor_select_match(&s, 1, 0, 2, "aten::add", "out");
        FZ_ASSERT(etp_tensor_select_match(&s, 1, 0, 2, NULL, NULL) || s.has_op ||
                      s.has_instr || s.has_run || s.has_block,
                  "an empty selection rejected a value");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    load_fixtures();
    as_bundled(data, size);
    as_buffer(data, size);
    as_select(data, size);
    return 0;
}
