/* test_tree_doc.c - the library's tree and explain documents (include/etprof_tree.h,
 * include/etprof_explain_doc.h) rendered and checked against values by hand.
 *
 * The dump is tests/data/flatc-built/all_kinds.etdp (built by flatc from all_kinds.json): one
 * Execute block with Method::execute 80..1300 (1220 ns), DELEGATE_CALL instruction 2 90..1200
 * (1110 ns), inside it delegate event id 7 100..150 (50 ns) and a raw backend value. By hand
 * (one run, so every statistic is the value): Method::execute inclusive 1220, exclusive
 * 1220 - 1110 = 110; DELEGATE_CALL inclusive 1110, exclusive 1110 - 50 = 1060, share of its
 * parent 1110 / 1220 x 100; the event 50 ns. The JSON is parsed back with jansson.
 * Errors: an unknown or "total" statistic and NULL arguments are ETP_E_USAGE.
 * usage: test_tree_doc DATA_DIR */
#include "check.h"
#include "etprof.h"
#include "etprof_explain_doc.h"
#include "etprof_tree.h"
#include "ops_fixture.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *render(const etp_doc *doc, etp_format fmt) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return NULL;
    etp_render_opts ro = {0};
    int rc = etp_doc_render(doc, fmt, f, &ro);
    fclose(f);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

static json_t *child_named(json_t *arr, const char *name) {
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        const char *s = json_string_value(json_object_get(v, "name"));
        if (s && strcmp(s, name) == 0) return v;
    }
    return NULL;
}

static double num(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    ops_fixture fx;
    if (!ops_fixture_open(&fx, argv[1], "flatc-built/all_kinds.etdp", NULL, NULL))
        return check_done();
    etp_disp d;
    CHECK_EQ_I(etp_disp_init(&d, "ns", 0, 0), ETP_OK);
    etp_error err = {0};

    /* the JSON tree */
    etp_doc *doc = etp_doc_new("tree", 1, "all_kinds.etdp", NULL);
    etp_tree_opts o = {.stat = "p50", .disp = &d, .fmt = ETP_FMT_JSON, .clock_ghz = NAN,
                       .model = fx.model};
    CHECK_EQ_I(etp_tree_doc(doc, fx.r, &o, &err), ETP_OK);
    char *text = render(doc, ETP_FMT_JSON);
    CHECK(text != NULL);
    json_error_t je;
    json_t *root = text ? json_loads(text, 0, &je) : NULL;
    CHECK_MSG(root != NULL, "the tree JSON parses");
    json_t *roots = json_object_get(json_array_get(json_object_get(root, "methods"), 0), "roots");
    json_t *ex = child_named(roots, "Method::execute");
    CHECK(ex != NULL);
    if (ex) {
        CHECK_NEAR(num(ex, "inclusive"), 1220, 1e-9);
        CHECK_NEAR(num(ex, "exclusive"), 110, 1e-9);
        CHECK_EQ_S(json_string_value(json_object_get(ex, "unit")), "ns");
        json_t *dc = child_named(json_object_get(ex, "children"), "DELEGATE_CALL");
        CHECK(dc != NULL);
        if (dc) {
            CHECK_NEAR(num(dc, "inclusive"), 1110, 1e-9);
            CHECK_NEAR(num(dc, "exclusive"), 1060, 1e-9);
            CHECK_NEAR(num(dc, "share_of_parent"), 1110.0 / 1220.0 * 100.0, 1e-9);
            CHECK_EQ_I((int)json_integer_value(json_object_get(dc, "instruction_id")), 2);
        }
    }
    CHECK_EQ_S(json_string_value(json_object_get(root, "stat")), "p50");
    CHECK_EQ_S(json_string_value(json_object_get(root, "time_unit")), "ns");
    json_decref(root);
    free(text);
    etp_doc_free(doc);

    /* the flat table: one row per node, the root first */
    doc = etp_doc_new("tree", 1, "all_kinds.etdp", NULL);
    o.fmt = ETP_FMT_CSV;
    CHECK_EQ_I(etp_tree_doc(doc, fx.r, &o, &err), ETP_OK);
    text = render(doc, ETP_FMT_CSV);
    CHECK(text && strstr(text, "Method::execute") && strstr(text, "DELEGATE_CALL"));
    free(text);
    etp_doc_free(doc);

    /* errors */
    doc = etp_doc_new("tree", 1, "all_kinds.etdp", NULL);
    o.stat = "total";
    CHECK_EQ_I(etp_tree_doc(doc, fx.r, &o, &err), ETP_E_USAGE);
    CHECK(strstr(err.msg, "total") != NULL);
    o.stat = "p99";
    CHECK_EQ_I(etp_tree_doc(doc, fx.r, &o, &err), ETP_E_USAGE);
    CHECK_EQ_I(etp_tree_doc(NULL, fx.r, &o, &err), ETP_E_USAGE);
    CHECK_EQ_I(etp_tree_doc(doc, NULL, &o, &err), ETP_E_USAGE);
    etp_doc_free(doc);

    /* explain: the JSON findings and the text's title; the first answer names Method::execute
     * = 1.22 us (1220 ns, two decimals at >= 1: the command's rule) */
    CHECK_EQ_I(etp_disp_init(&d, "us", 0, 0), ETP_OK);
    etp_explain_doc_opts eo = {.disp = &d, .fmt = ETP_FMT_TABLE, .path = "all_kinds.etdp",
                               .explain = {.htp_clock_ghz = NAN}};
    doc = etp_doc_new("explain", 1, "all_kinds.etdp", NULL);
    CHECK_EQ_I(etp_explain_doc(doc, fx.r, &eo, &err), ETP_OK);
    text = render(doc, ETP_FMT_TABLE);
    CHECK(text && strncmp(text, "etprof explain: all_kinds.etdp (no --pte)\n", 42) == 0);
    CHECK_MSG(text && strstr(text, "Method::execute = 1.22 us"), "explain text: %s",
              text ? text : "(none)");
    free(text);
    text = render(doc, ETP_FMT_JSON);
    root = text ? json_loads(text, 0, &je) : NULL;
    json_t *f0 = json_array_get(json_object_get(root, "findings"), 0);
    CHECK(f0 && strcmp(json_string_value(json_object_get(f0, "id")), "same_thing") == 0);
    CHECK(f0 && strstr(json_string_value(json_object_get(f0, "answer")), "1.22 us") != NULL);
    json_decref(root);
    free(text);
    etp_doc_free(doc);
    CHECK_EQ_I(etp_explain_doc(NULL, fx.r, &eo, &err), ETP_E_USAGE);

    ops_fixture_close(&fx);
    return check_done();
}
