/* test_result.c - the result model (include/etprof_result.h): one document rendered in every
 * format. Expected texts are written out by hand from docs/output-formats.md and
 * docs/json-contract.md (envelope first, notes, null cells, units in headers). */
#define _GNU_SOURCE
#include "check.h"
#include "etprof_result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *render(const etp_doc *d, etp_format fmt, int width, int *rc) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    etp_render_opts o = {.width = width};
    *rc = etp_doc_render(d, fmt, f, &o);
    fclose(f);
    return buf;
}

#define CHECK_STR(got, want) CHECK_MSG(strcmp((got), (want)) == 0, "got\n%s\nwant\n%s", (got), (want))

static etp_doc *sample(void) {
    etp_doc *d = etp_doc_new("demo", 1, "a.etdp", NULL);
    static const etp_col cols[] = {
        {"op", "Operator", NULL, ETP_T_STR, false, 0},
        {"count", "Count", NULL, ETP_T_UINT, false, 0},
        {"ms", "Time", "ms", ETP_T_FLOAT, true, 2},
    };
    etp_table *t = etp_doc_table(d, cols, 3);
    etp_table_row(t); etp_table_str(t, "conv"); etp_table_uint(t, 12); etp_table_float(t, 1.5);
    etp_table_row(t); etp_table_str(t, "=add"); etp_table_uint(t, 3); etp_table_null(t);
    etp_doc_flat(d, t);
    etp_node *root = etp_doc_root(d);
    etp_node_str(root, "time_unit", "ms");
    etp_node *g = etp_node_obj(root, "latency");
    etp_node_float(g, "p50", 0.25);
    etp_node_float(g, "p90", NAN);
    etp_node *a = etp_node_arr(root, "methods");
    etp_node_str(a, NULL, "forward");
    etp_node_table(root, "ops", t);
    etp_doc_notes_here(d);
    etp_doc_note(d, "first note");
    etp_node_bool(root, "last", true);
    etp_section *s = etp_doc_section(d, "main");
    etp_section_text(s, 0, "- ", 0, "file a.etdp\n");
    etp_section_table(s, t);
    etp_section_text(s, ETP_TEXT_SAFE, NULL, 0, "name\x01x\n");
    etp_table_note(t, "a note");
    return d;
}

/* ---- streaming tables (etp_stream) ---- */

/* The two rows of sample()'s table written to a stream in `fmt`. */
static char *stream_sample(etp_format fmt, int width, int *rc) {
    static const etp_col cols[] = {
        {"op", "Operator", NULL, ETP_T_STR, false, 0},
        {"count", "Count", NULL, ETP_T_UINT, false, 0},
        {"ms", "Time", "ms", ETP_T_FLOAT, true, 2},
    };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    etp_render_opts o = {.width = width};
    etp_stream *s = etp_stream_open(fmt, f, &o, cols, 3, 1, "a.etdp", "ops");
    etp_stream_row(s); etp_stream_str(s, "conv"); etp_stream_uint(s, 12); etp_stream_float(s, 1.5);
    etp_stream_row_end(s);
    etp_stream_row(s); etp_stream_str(s, "=add"); etp_stream_uint(s, 3); /* ms not given: null */
    etp_stream_row_end(s);
    *rc = etp_stream_flush(s);
    int r = etp_stream_close(s);
    if (!*rc) *rc = r;
    fclose(f);
    return buf;
}

static void stream_tests(void) {
    int rc;
    /* json: {schema_version, file, <rows_key>: [row objects]}, pretty as the renderer's */
    char *js = stream_sample(ETP_FMT_JSON, 0, &rc);
    CHECK_EQ_I(rc, 0);
    CHECK_STR(js, "{\n  \"schema_version\": 1,\n  \"file\": \"a.etdp\",\n  \"ops\": [\n"
                  "    {\n      \"op\": \"conv\",\n      \"count\": 12,\n      \"ms\": 1.5\n    },\n"
                  "    {\n      \"op\": \"=add\",\n      \"count\": 3,\n      \"ms\": null\n    }\n  ]\n}\n");
    free(js);
    char *jl = stream_sample(ETP_FMT_JSONL, 0, &rc);
    CHECK_EQ_I(rc, 0);
    CHECK_STR(jl, "{\"op\":\"conv\",\"count\":12,\"ms\":1.5}\n{\"op\":\"=add\",\"count\":3,\"ms\":null}\n");
    free(jl);
    char *csv = stream_sample(ETP_FMT_CSV, 0, &rc);
    CHECK_EQ_I(rc, 0);
    CHECK_STR(csv, "op,count,ms\nconv,12,1.50\n'=add,3,\n");
    free(csv);
    char *tb = stream_sample(ETP_FMT_TABLE, 0, &rc);
    CHECK_EQ_I(rc, 0);
    CHECK_MSG(strstr(tb, "Operator  Count  Time (ms)") != NULL, "%s", tb);
    CHECK_MSG(strstr(tb, "conv         12       1.50") != NULL, "%s", tb);
    CHECK_MSG(strstr(tb, "=add          3          -") != NULL, "%s", tb);
    free(tb);
    /* the text and csv formats are cell for cell the renderer's: a document of the same table
     * (without notes) renders to the same bytes */
    etp_doc *d = etp_doc_new("demo", 1, "a.etdp", NULL);
    static const etp_col cols[] = {
        {"op", "Operator", NULL, ETP_T_STR, false, 0},
        {"count", "Count", NULL, ETP_T_UINT, false, 0},
        {"ms", "Time", "ms", ETP_T_FLOAT, true, 2},
    };
    etp_table *t = etp_doc_table(d, cols, 3);
    etp_table_row(t); etp_table_str(t, "conv"); etp_table_uint(t, 12); etp_table_float(t, 1.5);
    etp_table_row(t); etp_table_str(t, "=add"); etp_table_uint(t, 3); etp_table_null(t);
    etp_doc_single_table(d, t);
    static const etp_format same[] = {ETP_FMT_TABLE, ETP_FMT_CSV, ETP_FMT_TSV, ETP_FMT_JSONL, ETP_FMT_MD};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        for (int w = 0; w <= 20; w += 20) {
            int r1, r2;
            char *a = render(d, same[i], w, &r1), *b = stream_sample(same[i], w, &r2);
            CHECK_EQ_I(r1, 0);
            CHECK_EQ_I(r2, 0);
            CHECK_MSG(strcmp(a, b) == 0, "format %d width %d: doc\n%s\nstream\n%s", (int)same[i], w, a, b);
            free(a);
            free(b);
        }
    }
    etp_doc_free(d);
    /* misuse: a cell outside a row, a cell past the last column */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    etp_stream *s = etp_stream_open(ETP_FMT_CSV, f, NULL, cols, 1, -1, NULL, NULL);
    etp_stream_int(s, 1);
    CHECK_EQ_I(etp_stream_close(s), ETP_E_INTERNAL);
    s = etp_stream_open(ETP_FMT_JSONL, f, NULL, cols, 1, -1, NULL, NULL);
    etp_stream_row(s); etp_stream_str(s, "a"); etp_stream_str(s, "b");
    etp_stream_row_end(s);
    CHECK_EQ_I(etp_stream_close(s), ETP_E_INTERNAL);
    fclose(f);
    free(buf);
    CHECK(etp_stream_open((etp_format)99, stdout, NULL, cols, 1, 1, NULL, NULL) == NULL);
    CHECK_EQ_I(etp_stream_close(NULL), ETP_E_INTERNAL);
    /* schema_version < 0: no envelope; rows_key NULL: "rows" */
    buf = NULL;
    f = open_memstream(&buf, &len);
    s = etp_stream_open(ETP_FMT_JSON, f, NULL, cols, 2, -1, "x", NULL);
    CHECK_EQ_I(etp_stream_close(s), 0);
    fclose(f);
    CHECK_STR(buf, "{\n  \"rows\": []\n}\n");
    free(buf);
}

/* ---- JSON members left out (etp_doc_json_omit) ---- */
static void json_omit_tests(void) {
    int rc;
    etp_doc *d = etp_doc_new("x", 1, "f", "p");
    etp_node_uint(etp_doc_root(d), "n", 7);
    etp_doc_note(d, "kept out");
    etp_doc_json_omit(d, ETP_JSON_NO_NOTES);
    char *js = render(d, ETP_FMT_JSON, 0, &rc);
    CHECK_EQ_I(rc, 0);
    CHECK_STR(js, "{\n  \"schema_version\": 1,\n  \"file\": \"f\",\n  \"program\": \"p\",\n  \"n\": 7\n}\n");
    free(js);
    etp_doc_envelope(d, ETP_ENV_FILE); /* and the envelope without program */
    js = render(d, ETP_FMT_JSON, 0, &rc);
    CHECK_STR(js, "{\n  \"schema_version\": 1,\n  \"file\": \"f\",\n  \"n\": 7\n}\n");
    free(js);
    etp_doc_free(d);
    etp_doc_json_omit(NULL, ETP_JSON_NO_NOTES);
}

/* ---- HTML (etp_table_render_html) ---- */

static char *html(const etp_table *t, const etp_html_opts *o, int *rc) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *rc = etp_table_render_html(t, f, o);
    fclose(f);
    return buf;
}

/* A bar before the cells of column 2 (its width from the row), a class on the bool column, the
 * second row's name cell replaced by a link. */
static void hook(void *ctx, const etp_table *t, size_t row, size_t col, etp_html_cell *c) {
    int *calls = ctx;
    (*calls)++;
    static char b[64];
    if (col == 2) {
        snprintf(b, sizeof b, "<span class=\"bar\" style=\"width:%zupx\"></span>", row + 1);
        c->html = b;
    }
    if (col == 3) {
        etp_type ty = ETP_T_NULL;
        etp_table_cell(t, row, col, &ty, NULL, NULL, NULL, NULL);
        c->cls = ty == ETP_T_BOOL ? "flag" : "flag none";
        c->title = "uses <HMX>";
    }
    if (col == 0 && row == 1) {
        c->html = "<a href=\"#x\">x</a>";
        c->replace = true;
    }
}

static void html_tests(void) {
    int rc;
    etp_doc *d = etp_doc_new("html", -1, NULL, NULL);
    static const etp_col cols[] = {
        {"op", "Operator", NULL, ETP_T_STR, false, 0},
        {"count", "Count", NULL, ETP_T_UINT, false, 0},
        {"ms", "Time", "ms", ETP_T_FLOAT, true, 2},
        {"hmx", "HMX", NULL, ETP_T_BOOL, true, 0},
    };
    etp_table *t = etp_doc_table(d, cols, 4);
    etp_table_row(t);
    etp_table_str(t, "a<b>&\"c'\x01\xff");
    etp_table_uint(t, 12);
    etp_table_float(t, 1.5);
    etp_table_bool(t, true);
    etp_table_row(t);
    etp_table_null(t);
    etp_table_uint(t, 3);
    etp_table_float_prec(t, 0.123456, 4); /* its own precision; data-v the exact value */
    etp_table_null(t);
    etp_table_row(t);
    etp_table_str(t, "x");
    etp_table_null(t);
    etp_table_float(t, -0.001); /* no "-0.00" */
    etp_table_bool(t, false);
    etp_table_note(t, "n<1>");

    /* defaults: no wrapper, no id/class, class "n", data-type/data-v, en dash for null */
    char *h = html(t, NULL, &rc);
    CHECK_EQ_I(rc, 0);
    CHECK_STR(h, "<table><thead><tr><th>Operator</th><th class=\"n\" data-type=\"num\">Count</th>"
                 "<th class=\"n\" data-type=\"num\">Time (ms)</th><th>HMX</th></tr></thead><tbody>"
                 "<tr><td>a&lt;b&gt;&amp;&quot;c&#39;\xEF\xBF\xBD\xEF\xBF\xBD</td>"
                 "<td class=\"n\" data-v=\"12\">12</td><td class=\"n\" data-v=\"1.5\">1.50</td>"
                 "<td>yes</td></tr>"
                 "<tr><td>\xE2\x80\x93</td><td class=\"n\" data-v=\"3\">3</td>"
                 "<td class=\"n\" data-v=\"0.123456\">0.1235</td><td>\xE2\x80\x93</td></tr>"
                 "<tr><td>x</td><td class=\"n\">\xE2\x80\x93</td>"
                 "<td class=\"n\" data-v=\"-0.001\">0.00</td><td>no</td></tr>"
                 "</tbody></table><p class=\"note\">n&lt;1&gt;</p>");
    free(h);

    /* every option and the hook */
    int calls = 0;
    static const char *const cc[] = {"name", NULL, NULL, NULL};
    etp_html_opts o = {.id = "t\"1", .table_class = "sortable", .wrap_class = "tw scroll",
                       .num_class = "num", .null_text = "-", .col_class = cc, .cell = hook,
                       .ctx = &calls};
    h = html(t, &o, &rc);
    CHECK_EQ_I(rc, 0);
    CHECK_EQ_I(calls, 12);
    CHECK_STR(h, "<div class=\"tw scroll\"><table class=\"sortable\" id=\"t&quot;1\"><thead><tr>"
                 "<th>Operator</th><th class=\"num\" data-type=\"num\">Count</th>"
                 "<th class=\"num\" data-type=\"num\">Time (ms)</th><th>HMX</th></tr></thead><tbody>"
                 "<tr><td class=\"name\">a&lt;b&gt;&amp;&quot;c&#39;\xEF\xBF\xBD\xEF\xBF\xBD</td>"
                 "<td class=\"num\" data-v=\"12\">12</td>"
                 "<td class=\"num\" data-v=\"1.5\"><span class=\"bar\" style=\"width:1px\"></span>1.50</td>"
                 "<td class=\"flag\" title=\"uses &lt;HMX&gt;\">yes</td></tr>"
                 "<tr><td class=\"name\"><a href=\"#x\">x</a></td><td class=\"num\" data-v=\"3\">3</td>"
                 "<td class=\"num\" data-v=\"0.123456\"><span class=\"bar\" style=\"width:2px\"></span>0.1235</td>"
                 "<td class=\"flag none\" title=\"uses &lt;HMX&gt;\">-</td></tr>"
                 "<tr><td class=\"name\">x</td><td class=\"num\">-</td>"
                 "<td class=\"num\" data-v=\"-0.001\"><span class=\"bar\" style=\"width:3px\"></span>0.00</td>"
                 "<td class=\"flag\" title=\"uses &lt;HMX&gt;\">no</td></tr>"
                 "</tbody></table></div><p class=\"note\">n&lt;1&gt;</p>");
    free(h);

    /* the cell's own precision in the text views too (csv: a control character is a space);
     * JSON keeps the value */
    etp_doc_flat(d, t);
    h = render(d, ETP_FMT_CSV, 0, &rc);
    CHECK_STR(h, "op,count,ms,hmx\n\"a<b>&\"\"c' \xEF\xBF\xBD\",12,1.50,true\n,3,0.1235,\nx,,0.00,false\n");
    free(h);
    h = render(d, ETP_FMT_JSONL, 0, &rc);
    CHECK(strstr(h, "\"ms\":0.123456") != NULL);
    free(h);

    /* errors: NULL arguments; a document in error writes nothing */
    CHECK_EQ_I(etp_table_render_html(NULL, stdout, NULL), ETP_E_USAGE);
    CHECK_EQ_I(etp_table_render_html(t, NULL, NULL), ETP_E_USAGE);
    etp_table_row(t);
    for (int i = 0; i < 5; i++) etp_table_null(t); /* a cell past the last column */
    h = html(t, NULL, &rc);
    CHECK_EQ_I(rc, ETP_E_INTERNAL);
    CHECK_STR(h, "");
    free(h);
    etp_doc_free(d);
}

/* etp_table_column: whole columns as typed arrays, values given by hand below, nulls flagged,
 * cells of another numeric type converted to the column's, text in a numeric column null. */
static void column_tests(void) {
    etp_doc *d = etp_doc_new("cols", 1, NULL, NULL);
    static const etp_col cols[] = {{"i", NULL, NULL, ETP_T_INT, true, 0},
                                   {"u", NULL, "ns", ETP_T_UINT, false, 0},
                                   {"f", NULL, "us", ETP_T_FLOAT, true, 3},
                                   {"b", NULL, NULL, ETP_T_BOOL, true, 0},
                                   {"s", NULL, NULL, ETP_T_STR, true, 0}};
    etp_table *t = etp_doc_table(d, cols, 5);
    etp_table_row(t); /* row 0 */
    etp_table_int(t, -7);
    etp_table_uint(t, UINT64_C(18446744073709551615));
    etp_table_float(t, 2.5);
    etp_table_bool(t, true);
    etp_table_str(t, "conv");
    etp_table_row(t); /* row 1: nulls, and cells of another type */
    etp_table_null(t);
    etp_table_int(t, 42);        /* INT cell in a UINT column: 42 */
    etp_table_float(t, NAN);     /* NaN: null */
    etp_table_int(t, 0);         /* INT 0 in a BOOL column: false */
    etp_table_null(t);
    etp_table_row(t); /* row 2 */
    etp_table_uint(t, 9);        /* UINT cell in an INT column: 9 */
    etp_table_uint(t, 0);
    etp_table_int(t, 3);         /* INT 3 in a FLOAT column: 3.0 */
    etp_table_null(t);
    etp_table_str(t, "");
    etp_table_row(t); /* row 3: text in a numeric column is null */
    etp_table_str(t, "x");
    etp_table_uint(t, 1);
    etp_table_float_prec(t, -0.125, 2);
    etp_table_bool(t, false);
    etp_table_int(t, 5); /* a number in a text column: null */
    CHECK(etp_doc_ok(d));
    etp_col_data c;
    CHECK_EQ_I(etp_table_column(t, 0, &c), 0);
    CHECK(c.type == ETP_T_INT && c.n == 4 && c.nvalid == 2 && c.i && !c.u && !c.f && !c.s);
    CHECK_STR(c.key, "i");
    CHECK(c.unit == NULL);
    CHECK(c.valid[0] && !c.valid[1] && c.valid[2] && !c.valid[3]);
    CHECK(c.i[0] == -7 && c.i[1] == 0 && c.i[2] == 9 && c.i[3] == 0);
    free(c.mem);
    CHECK_EQ_I(etp_table_column(t, 1, &c), 0);
    CHECK(c.type == ETP_T_UINT && c.nvalid == 4 && c.u);
    CHECK_STR(c.unit, "ns");
    CHECK(c.u[0] == UINT64_MAX && c.u[1] == 42 && c.u[2] == 0 && c.u[3] == 1);
    free(c.mem);
    CHECK_EQ_I(etp_table_column(t, 2, &c), 0);
    CHECK(c.type == ETP_T_FLOAT && c.nvalid == 3 && c.f);
    CHECK_STR(c.unit, "us");
    CHECK(c.f[0] == 2.5 && isnan(c.f[1]) && !c.valid[1] && c.f[2] == 3.0 && c.f[3] == -0.125);
    free(c.mem);
    CHECK_EQ_I(etp_table_column(t, 3, &c), 0);
    CHECK(c.type == ETP_T_BOOL && c.nvalid == 3 && c.b);
    CHECK(c.b[0] && !c.b[1] && c.valid[1] && !c.valid[2] && !c.b[3] && c.valid[3]);
    free(c.mem);
    CHECK_EQ_I(etp_table_column(t, 4, &c), 0);
    CHECK(c.type == ETP_T_STR && c.nvalid == 2 && c.s);
    CHECK_STR(c.s[0], "conv");
    CHECK(c.s[1] == NULL && !c.valid[1] && c.s[3] == NULL && !c.valid[3]);
    CHECK_STR(c.s[2], "");
    free(c.mem);
    CHECK_EQ_I(etp_table_column(t, 5, &c), ETP_E_USAGE); /* out of range */
    CHECK(c.n == 0 && c.mem == NULL);
    CHECK_EQ_I(etp_table_column(NULL, 0, &c), ETP_E_USAGE);
    etp_table *empty = etp_doc_table(d, cols, 2);
    CHECK_EQ_I(etp_table_column(empty, 1, &c), 0);
    CHECK(c.n == 0 && c.mem == NULL && c.type == ETP_T_UINT);
    etp_doc_free(d);
}

int main(void) {
    int rc;
    etp_doc *d = sample();
    CHECK(etp_doc_ok(d));
    CHECK_STR(etp_doc_command(d), "demo");
    CHECK_EQ_U(etp_table_rows(NULL), 0);

    char *js = render(d, ETP_FMT_JSON, 0, &rc);
    CHECK_EQ_I(rc, 0);
    CHECK_STR(js, "{\n  \"schema_version\": 1,\n  \"file\": \"a.etdp\",\n  \"program\": null,\n"
                  "  \"time_unit\": \"ms\",\n  \"latency\": {\n    \"p50\": 0.25,\n    \"p90\": null\n  },\n"
                  "  \"methods\": [\n    \"forward\"\n  ],\n"
                  "  \"ops\": [\n    {\n      \"op\": \"conv\",\n      \"count\": 12,\n      \"ms\": 1.5\n    },\n"
                  "    {\n      \"op\": \"=add\",\n      \"count\": 3,\n      \"ms\": null\n    }\n  ],\n"
                  "  \"notes\": [\n    \"first note\"\n  ],\n  \"last\": true\n}\n");
    free(js);

    char *csv = render(d, ETP_FMT_CSV, 0, &rc);
    CHECK_EQ_I(rc, 0);
    /* csv header: the keys; "'" before a formula-like text cell; null: empty */
    CHECK_STR(csv, "op,count,ms\nconv,12,1.50\n'=add,3,\n");
    free(csv);
    char *tsv = render(d, ETP_FMT_TSV, 0, &rc);
    CHECK_EQ_I(rc, 0);
    CHECK(strncmp(tsv, "op\tcount\tms\n", 12) == 0 || strncmp(tsv, "op\tcount\tms\r\n", 13) == 0);
    CHECK(strstr(tsv, "conv\t12\t1.50") != NULL);
    free(tsv);
    char *jl = render(d, ETP_FMT_JSONL, 0, &rc);
    CHECK_EQ_I(rc, 0);
    CHECK_STR(jl, "{\"op\":\"conv\",\"count\":12,\"ms\":1.5}\n{\"op\":\"=add\",\"count\":3,\"ms\":null}\n");
    free(jl);

    char *tb = render(d, ETP_FMT_TABLE, 0, &rc);
    CHECK_EQ_I(rc, 0);
    /* the unit goes into the header; numbers right-aligned; the control character a space */
    CHECK(strncmp(tb, "- file a.etdp\n", 14) == 0);
    CHECK_MSG(strstr(tb, "Operator  Count  Time (ms)") != NULL, "%s", tb);
    CHECK_MSG(strstr(tb, "conv         12       1.50") != NULL, "%s", tb);
    CHECK(strstr(tb, "a note") != NULL);
    CHECK(strstr(tb, "name x\n") != NULL);
    free(tb);
    char *md = render(d, ETP_FMT_MD, 0, &rc);
    CHECK_EQ_I(rc, 0);
    CHECK_MSG(strstr(md, "| Operator | Count | Time (ms) |") != NULL, "%s", md);
    CHECK_MSG(strstr(md, "| conv     |    12 |      1.50 |") != NULL, "%s", md);
    free(md);

    /* the cells read back as given */
    etp_type ty;
    double fv;
    const char *sv;
    uint64_t uv;
    etp_node *root = etp_doc_root(d);
    (void)root;
    CHECK(etp_doc_ok(d));
    etp_doc_free(d);

    /* misuse is sticky and makes render fail without writing */
    d = etp_doc_new("x", 1, NULL, NULL);
    static const etp_col one[] = {{"a", NULL, NULL, ETP_T_INT, false, 0}};
    etp_table *t = etp_doc_table(d, one, 1);
    etp_table_row(t);
    etp_table_int(t, 1);
    CHECK(etp_table_cell(t, 0, 0, &ty, NULL, &uv, &fv, &sv) && ty == ETP_T_INT);
    CHECK(!etp_table_cell(t, 1, 0, &ty, NULL, NULL, NULL, NULL));
    etp_table_int(t, 2); /* a second cell in a one-column row */
    CHECK(!etp_doc_ok(d));
    char *none = render(d, ETP_FMT_JSON, 0, &rc);
    CHECK_EQ_I(rc, ETP_E_INTERNAL);
    CHECK_EQ_U(strlen(none), 0);
    free(none);
    etp_doc_free(d);
    /* a keyed member in an array is misuse too */
    d = etp_doc_new("x", -1, NULL, NULL);
    etp_node *arr = etp_node_arr(etp_doc_root(d), "a");
    etp_node_int(arr, "k", 1);
    CHECK(!etp_doc_ok(d));
    etp_doc_free(d);
    /* schema_version < 0: no envelope */
    d = etp_doc_new("x", -1, "f", NULL);
    etp_node_uint(etp_doc_root(d), "n", 7);
    char *bare = render(d, ETP_FMT_JSON, 0, &rc);
    CHECK_STR(bare, "{\n  \"n\": 7,\n  \"notes\": []\n}\n");
    free(bare);
    etp_doc_free(d);
    /* JSON layout (info, tree): the program member placed among the facts, or left out, and
     * no notes array; etp_text_safe as a table cell shows a name */
    d = etp_doc_new("info", 1, "d.etdp", "p.pte");
    etp_node_str(etp_doc_root(d), "kind", "etdump");
    etp_doc_program_here(d);
    etp_node_uint(etp_doc_root(d), "blocks", 2);
    etp_doc_json_omit(d, ETP_JSON_NO_NOTES);
    etp_doc_note(d, "not shown");
    char *lay = render(d, ETP_FMT_JSON, 0, &rc);
    CHECK_EQ_I(rc, 0);
    CHECK_STR(lay, "{\n  \"schema_version\": 1,\n  \"file\": \"d.etdp\",\n  \"kind\": \"etdump\",\n"
                   "  \"program\": \"p.pte\",\n  \"blocks\": 2\n}\n");
    free(lay);
    etp_doc_free(d);
    d = etp_doc_new("info", 1, "p.pte", NULL);
    etp_node_str(etp_doc_root(d), "kind", "program");
    etp_doc_program_here(d); /* at the end: after the last member */
    etp_doc_envelope(d, ETP_ENV_FILE); /* no program member, wherever placed */
    lay = render(d, ETP_FMT_JSON, 0, &rc);
    CHECK_STR(lay, "{\n  \"schema_version\": 1,\n  \"file\": \"p.pte\",\n  \"kind\": \"program\",\n"
                   "  \"notes\": []\n}\n");
    free(lay);
    etp_doc_free(d);
    d = etp_doc_new("info", 1, "d.etdp", NULL);
    etp_node_str(etp_doc_root(d), "kind", "etdump");
    etp_doc_program_here(d);
    etp_doc_program_here(d); /* once: the first place counts */
    etp_doc_notes_here(d);
    lay = render(d, ETP_FMT_JSON, 0, &rc);
    CHECK_STR(lay, "{\n  \"schema_version\": 1,\n  \"file\": \"d.etdp\",\n  \"kind\": \"etdump\",\n"
                   "  \"program\": null,\n  \"notes\": []\n}\n");
    free(lay);
    etp_doc_free(d);
    etp_doc_program_here(NULL);
    etp_doc_json_omit(NULL, ETP_JSON_NO_NOTES);
    /* U+00E9 stays; the invalid byte 0xFF is U+FFFD (EF BF BD); TAB, LF, DEL and U+0085 spaces */
    char *safe = etp_text_safe("a\tb\nc\x7F\xC3\xA9\xFF\xC2\x85z");
    CHECK_STR(safe, "a b c \xC3\xA9\xEF\xBF\xBD z");
    free(safe);
    CHECK(etp_text_safe(NULL) == NULL);
    etp_doc_free(NULL);

    /* partial envelope (etp_doc_envelope): schema_version alone, then schema_version + file */
    d = etp_doc_new("x", 1, "f.etdp", "p.pte");
    etp_doc_envelope(d, 0);
    etp_node_uint(etp_doc_root(d), "n", 7);
    char *env = render(d, ETP_FMT_JSON, 0, &rc);
    CHECK_EQ_I(rc, ETP_OK);
    CHECK_STR(env, "{\n  \"schema_version\": 1,\n  \"n\": 7,\n  \"notes\": []\n}\n");
    free(env);
    etp_doc_envelope(d, ETP_ENV_FILE);
    env = render(d, ETP_FMT_JSON, 0, &rc);
    CHECK_STR(env, "{\n  \"schema_version\": 1,\n  \"file\": \"f.etdp\",\n  \"n\": 7,\n"
                   "  \"notes\": []\n}\n");
    free(env);
    etp_doc_envelope(d, ETP_ENV_PROGRAM);
    env = render(d, ETP_FMT_JSON, 0, &rc);
    CHECK_STR(env, "{\n  \"schema_version\": 1,\n  \"program\": \"p.pte\",\n  \"n\": 7,\n"
                   "  \"notes\": []\n}\n");
    free(env);
    etp_doc_envelope(NULL, 0); /* ignored */
    etp_doc_free(d);

    /* ETP_TEXT_CELL: a control character and a line break both become spaces, as in a table
     * cell (ETP_TEXT_SAFE keeps the line break); not wrapped */
    d = etp_doc_new("x", 1, NULL, NULL);
    etp_section *sec = etp_doc_section(d, "s");
    etp_section_text(sec, ETP_TEXT_CELL, NULL, 0, "[a\tb\nc]");
    etp_section_text(sec, ETP_TEXT_SAFE, NULL, 0, "[a\tb\nc]");
    etp_section_textf(sec, ETP_TEXT_CELL, 0, " (method %s)", "m\x01x");
    char *cell = render(d, ETP_FMT_TABLE, 0, &rc);
    CHECK_EQ_I(rc, ETP_OK);
    CHECK_STR(cell, "[a b c][a b\nc] (method m x)");
    free(cell);
    cell = render(d, ETP_FMT_MD, 0, &rc);
    CHECK_STR(cell, "[a b c][a b\nc] (method m x)");
    free(cell);
    etp_doc_free(d);
    /* -- compact members, one-line prose, wrap width, jsonl of an array (diff, explain) -- */
    d = etp_doc_new("x", 1, "f", NULL);
    etp_node *fs = etp_node_arr(etp_doc_root(d), "findings");
    etp_node *f0 = etp_node_obj(fs, NULL);
    etp_node_str(f0, "id", "a");
    etp_node *fx = etp_node_obj(f0, "facts");
    etp_node_compact(fx);
    etp_node_int(fx, "x", 1);
    etp_node *l = etp_node_arr(fx, "l");
    etp_node_int(l, NULL, 1);
    etp_node_str(l, NULL, "t");
    etp_doc_jsonl_array(d, fs);
    etp_section *s = etp_doc_section(d, "p");
    etp_section_text(s, ETP_TEXT_CELL, "> ", 0, "a\nb\x01" "c");
    etp_section_text(s, 0, NULL, 0, "|\n");
    etp_section_text(s, ETP_TEXT_SAFE, NULL, 0, "a\nb\x01" "c|\n");
    etp_section_text(s, ETP_TEXT_WRAP | ETP_TEXT_CELL, NULL, 2, "aaaa bbbb cccc dddd eeee ffff gggg");
    CHECK(etp_doc_ok(d));
    char *cj = render(d, ETP_FMT_JSON, 0, &rc);
    CHECK_STR(cj, "{\n  \"schema_version\": 1,\n  \"file\": \"f\",\n  \"program\": null,\n"
                  "  \"findings\": [\n    {\n      \"id\": \"a\",\n"
                  "      \"facts\": {\"x\":1,\"l\":[1,\"t\"]}\n    }\n  ],\n  \"notes\": []\n}\n");
    free(cj);
    char *cl = render(d, ETP_FMT_JSONL, 0, &rc);
    CHECK_STR(cl, "{\"id\":\"a\",\"facts\":{\"x\":1,\"l\":[1,\"t\"]}}\n");
    free(cl);
    /* unlimited width: not wrapped until the document has a wrap width */
    char *pt = render(d, ETP_FMT_TABLE, 0, &rc);
    CHECK_STR(pt, "> a b c|\na\nb c|\naaaa bbbb cccc dddd eeee ffff gggg\n");
    free(pt);
    etp_doc_wrap_width(d, 24);
    pt = render(d, ETP_FMT_TABLE, 0, &rc);
    CHECK_STR(pt, "> a b c|\na\nb c|\naaaa bbbb cccc dddd eeee\n  ffff gggg\n");
    free(pt);
    pt = render(d, ETP_FMT_TABLE, 100, &rc); /* the terminal's width wins */
    CHECK_STR(pt, "> a b c|\na\nb c|\naaaa bbbb cccc dddd eeee ffff gggg\n");
    free(pt);
    pt = render(d, ETP_FMT_MD, 0, &rc); /* md is never wrapped */
    CHECK_STR(pt, "> a b c|\na\nb c|\naaaa bbbb cccc dddd eeee ffff gggg\n");
    free(pt);
    /* jsonl of a node that is not an array: misuse */
    etp_doc_jsonl_array(d, fx);
    CHECK(!etp_doc_ok(d));
    etp_doc_free(d);
    stream_tests();
    json_omit_tests();
    html_tests();
    column_tests();
    return check_done();
}
