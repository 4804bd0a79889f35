/* test_modules.c - time per nn.Module (include/etprof_modules.h) with values computed by hand.
 *
 * The dump is tests/data/flatc-built/all_kinds.etdp (built by flatc from all_kinds.json): one
 * Execute block with Method::execute 80..1300 (1220 ns), DELEGATE_CALL instruction 2 90..1200
 * (1110 ns), inside it delegate event id 7 100..150 (50 ns) and "Convolution (NHWC, F32) IGEMM
 * #1" 0..999 (a raw backend value: no time, left out). By hand:
 *   DELEGATE_CALL exclusive = 1110 - 50 = 1060; Method::execute exclusive = 1220 - 1110 = 110;
 *   the time domain's total = 110 + 1060 + 50 = 1220 (= Method::execute: nothing counted twice).
 * The records are written here with libzip: edge nodes n1 (handle 1, stack enc > enc.conv) and
 * n2 (handle 2, stack enc > enc.fc); debug_handle_map forward.2 = [1, 2] (the DELEGATE_CALL: the
 * common module of n1 and n2 is enc).
 *   A: delegate_map maps id 7 to handle 1: enc.conv = 50; enc exclusive 1060, inclusive 1110;
 *      (no module) = 110 (Method::execute's own time).
 *   B: delegate_map without id 7: the event takes its DELEGATE_CALL's module: enc exclusive =
 *      inclusive = 1110, no enc.conv row.
 * usage: test_modules DATA_DIR */
#include "check.h"
#include "etprof.h"
#include "etprof_modules.h"
#include "ops_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <zip.h>

#define EDGE "executorch.exir.dialects.edge.ops."
static const char *const edge_json =
    "{\"graph_module\": {\"graph\": {\"inputs\": [], \"outputs\": [], \"tensor_values\": {},"
    " \"nodes\": ["
    "{\"target\": \"" EDGE "aten.convolution.default\", \"inputs\": [], \"outputs\": "
    "[{\"as_tensor\": {\"name\": \"n1\"}}], \"metadata\": {\"debug_handle\": \"1\", "
    "\"nn_module_stack\": \"L__self___enc,enc,m.Enc;L__self___enc_conv,enc.conv,torch.nn.Conv2d\"}},"
    "{\"target\": \"" EDGE "aten.linear.default\", \"inputs\": [], \"outputs\": "
    "[{\"as_tensor\": {\"name\": \"n2\"}}], \"metadata\": {\"debug_handle\": \"2\", "
    "\"nn_module_stack\": \"L__self___enc,enc,m.Enc;L__self___enc_fc,enc.fc,torch.nn.Linear\"}}"
    "]}}, \"schema_version\": {\"major\": 3, \"minor\": 0}}";

static bool add(zip_t *z, const char *name, const char *text) {
    zip_source_t *s = zip_source_buffer(z, text, strlen(text), 0);
    if (!s) return false;
    if (zip_file_add(z, name, s, ZIP_FL_OVERWRITE) < 0) {
        zip_source_free(s);
        return false;
    }
    return true;
}

static bool write_record(const char *path, const char *delegate_map) {
    int e = 0;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &e);
    if (!z) return false;
    bool ok = add(z, "ETRECORD_V0", "") &&
              add(z, "edge_dialect_exported_program/forward", edge_json) &&
              add(z, "debug_handle_map", "{\"forward\": {\"2\": [1, 2]}}") &&
              add(z, "delegate_map", delegate_map);
    if (!ok) {
        zip_discard(z);
        return false;
    }
    return zip_close(z) == 0;
}

static const etp_module_row *find(const etp_modules *m, const char *path) {
    for (size_t i = 0; i < etp_modules_row_count(m); i++) {
        const etp_module_row *r = etp_modules_row_get(m, i);
        if (path ? (!r->no_module && strcmp(r->path, path) == 0) : r->no_module) return r;
    }
    return NULL;
}

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static etp_modules *compute(ops_fixture *fx, const char *rec_path, const char *module, int *rc,
                            etp_etrecord **rec) {
    etp_error err = {0};
    *rec = NULL;
    if (etp_etrecord_open(rec, rec_path, NULL, &err)) {
        CHECK_MSG(0, "open %s: %s", rec_path, err.msg);
        return NULL;
    }
    etp_modules_opts o = {.module = module};
    etp_modules *m = NULL;
    *rc = etp_modules_compute(fx->r, *rec, &o, &m, &err);
    return m;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    ops_fixture fx;
    if (!ops_fixture_open(&fx, argv[1], "flatc-built/all_kinds.etdp", NULL, NULL))
        return check_done();
    char a_path[] = "/tmp/etp_modules_a_XXXXXX", b_path[] = "/tmp/etp_modules_b_XXXXXX";
    int fa = mkstemp(a_path), fb = mkstemp(b_path);
    CHECK(fa >= 0 && fb >= 0);
    if (fa >= 0) close(fa);
    if (fb >= 0) close(fb);
    CHECK(write_record(a_path, "{\"forward\": {\"2\": {\"name\": \"XnnpackBackend\", "
                               "\"delegate_map\": {\"7\": [1]}}}}"));
    CHECK(write_record(b_path, "{\"forward\": {\"2\": {\"name\": \"XnnpackBackend\", "
                               "\"delegate_map\": {}}}}"));

    /* A */
    int rc = -1;
    etp_etrecord *rec;
    etp_modules *m = compute(&fx, a_path, NULL, &rc, &rec);
    CHECK_EQ_I(rc, ETP_OK);
    if (m) {
        CHECK_EQ_U(etp_modules_domain_count(m), 1);
        const etp_modules_domain *d = etp_modules_domain_get(m, 0);
        CHECK(d && d->domain == ETP_MOD_HOST && d->unit == ETP_UNIT_NS && NEAR(d->total, 1220));
        CHECK(d && d->rows == 3 && d->rows_module == 2); /* the raw row is left out */
        CHECK_EQ_U(etp_modules_row_count(m), 3);
        const etp_module_row *enc = find(m, "enc"), *conv = find(m, "enc.conv"),
                             *none = find(m, NULL);
        CHECK(enc && NEAR(enc->inclusive, 1110) && NEAR(enc->exclusive, 1060) &&
              enc->count == 2 && enc->count_exclusive == 1 && enc->depth == 0 &&
              enc->parent == -1 && strcmp(enc->cls, "m.Enc") == 0);
        CHECK(enc && NEAR(enc->share, 100.0 * 1110 / 1220));
        CHECK(conv && NEAR(conv->inclusive, 50) && NEAR(conv->exclusive, 50) && conv->depth == 1 &&
              conv->parent == 0 && strcmp(conv->cls, "torch.nn.Conv2d") == 0);
        CHECK(find(m, "enc.fc") == NULL); /* only a raw value: no time */
        CHECK(none && NEAR(none->inclusive, 110) && none->count == 1 &&
              etp_modules_row_get(m, 2) == none); /* last */
        const etp_modules_joins *j = etp_modules_join_counts(m);
        /* DELEGATE_CALL and id 7 joined; the Convolution event is not in delegate_map */
        CHECK(j && j->rows == 3 && j->matched == 2 && j->htp_rows == 0);
    }
    etp_modules_free(m);
    /* --module enc.conv: that row alone, top-level */
    m = NULL;
    etp_modules *f = NULL;
    etp_error err = {0};
    etp_modules_opts o = {.module = "enc.conv"};
    if (rec) {
        CHECK_EQ_I(etp_modules_compute(fx.r, rec, &o, &f, &err), ETP_OK);
        CHECK(f && etp_modules_row_count(f) == 1 && etp_modules_row_get(f, 0)->parent == -1 &&
              etp_modules_row_get(f, 0)->depth == 0 &&
              NEAR(etp_modules_row_get(f, 0)->inclusive, 50) &&
              NEAR(etp_modules_row_get(f, 0)->share, 100.0 * 50 / 1220));
        etp_modules_free(f);
        f = NULL;
        o.module = "enc.nope";
        CHECK_EQ_I(etp_modules_compute(fx.r, rec, &o, &f, &err), ETP_E_USAGE);
        CHECK(f == NULL && strstr(err.msg, "--module enc.nope: no module") == err.msg);
    }
    etp_etrecord_close(rec);

    /* B: the unmapped delegate event is its DELEGATE_CALL's */
    m = compute(&fx, b_path, NULL, &rc, &rec);
    CHECK_EQ_I(rc, ETP_OK);
    if (m) {
        const etp_module_row *enc = find(m, "enc");
        CHECK_EQ_U(etp_modules_row_count(m), 2);
        CHECK(enc && NEAR(enc->inclusive, 1110) && NEAR(enc->exclusive, 1110) && enc->count == 2);
        CHECK(find(m, "enc.conv") == NULL);
        CHECK(find(m, NULL) && NEAR(find(m, NULL)->inclusive, 110));
        CHECK(etp_modules_join_counts(m)->matched == 1);
    }
    etp_modules_free(m);
    etp_etrecord_close(rec);
    unlink(a_path);
    unlink(b_path);
    ops_fixture_close(&fx);
    return check_done();
}
