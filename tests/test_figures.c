/* test_figures.c - the public display layer (include/etprof_figures.h): the unit conversion
 * every view uses, the --format names, and two shared shapes built as document nodes. Expected values are hand
 * calculations (1500 ns = 1.5 us; 4000 cycles at 2 GHz = 2000 ns = 2 us) and the JSON keys of
 * docs/json-contract.md. */
#define _GNU_SOURCE
#include "check.h"
#include "etprof_figures.h"
#include "etprof_qnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void count_note(void *ctx, const char *text) {
    (void)text;
    (*(int *)ctx)++;
}

static char *render_json(const etp_doc *d) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_EQ_I(etp_doc_render(d, ETP_FMT_JSON, f, NULL), 0);
    fclose(f);
    return buf;
}

int main(void) {
    etp_disp d;
    const char *un = NULL;
    CHECK_EQ_I(etp_disp_init(&d, "us", 0, 0), 0);
    CHECK(fabs(etp_disp_conv(&d, ETP_UNIT_NS, 1500, &un) - 1.5) < 1e-12);
    CHECK(un && strcmp(un, "us") == 0);
    CHECK(etp_disp_conv(&d, ETP_UNIT_CYCLES, 4000, &un) == 4000); /* no clock: cycles stay */
    CHECK(un && strcmp(un, "cycles") == 0);
    CHECK_EQ_I(etp_disp_init(&d, "us", 2.0, 0), 0);
    CHECK(fabs(etp_disp_conv(&d, ETP_UNIT_CYCLES, 4000, &un) - 2.0) < 1e-12);
    CHECK(un && strcmp(un, "est_us") == 0);
    CHECK_EQ_I(etp_disp_init(&d, "ms", 0, 0), 0);
    CHECK(fabs(etp_disp_conv(&d, ETP_UNIT_NS, 2.5e6, &un) - 2.5) < 1e-12);
    CHECK_EQ_I(d.precision, 6);
    CHECK_EQ_I(etp_disp_init(&d, NULL, 0, 0), 0); /* default us */
    CHECK(strcmp(d.time_unit, "us") == 0);
    CHECK(etp_disp_init(&d, "minutes", 0, 0) == ETP_E_USAGE);
    CHECK(d.time_unit == NULL);
    /* notes: one for ticks of unknown rate, one for cycles, one more for the estimate */
    int n = 0;
    CHECK_EQ_I(etp_disp_init(&d, "us", 0, 0), 0);
    etp_disp_unit_notes(&d, 0, 1u << ETP_UNIT_TICKS, count_note, &n);
    CHECK_EQ_I(n, 1);
    n = 0;
    etp_disp_unit_notes(&d, 0, 1u << ETP_UNIT_CYCLES, count_note, &n);
    CHECK_EQ_I(n, 1);
    n = 0;
    CHECK_EQ_I(etp_disp_init(&d, "us", 1.5, 0), 0);
    etp_disp_unit_notes(&d, 0, 1u << ETP_UNIT_CYCLES, count_note, &n);
    CHECK_EQ_I(n, 2);

    /* the QNN shapes as nodes */
    etp_doc *doc = etp_doc_new("x", -1, NULL, NULL);
    etp_qnn_unit_counts u = {.qnn_ops = 5, .htp_ops = 4, .hmx = 2, .hvx = 3, .dma = 1,
                             .hmx_and_hvx = 1, .dma_only = 0, .none = 1};
    etp_fig_unit_counts(etp_doc_root(doc), "units", &u);
    char *js = render_json(doc);
    CHECK_MSG(strstr(js, "\"units\": {\n    \"qnn_ops\": 5,\n    \"htp_ops\": 4,\n    "
                         "\"ops_using_hmx\": 2,\n    \"ops_using_hvx\": 3,\n    "
                         "\"ops_using_dma\": 1,\n    \"ops_using_both\": 1,\n    "
                         "\"ops_dma_only\": 0,\n    \"ops_using_none\": 1\n  }") != NULL,
              "%s", js);
    free(js);
    etp_doc_free(doc);
    /* the --format names */
    static const char *const names[] = {"table", "csv", "tsv", "json", "jsonl", "md"};
    static const etp_format fmts[] = {ETP_FMT_TABLE, ETP_FMT_CSV, ETP_FMT_TSV,
                                      ETP_FMT_JSON,  ETP_FMT_JSONL, ETP_FMT_MD};
    for (int i = 0; i < 6; i++) {
        etp_format f = ETP_FMT_MD;
        CHECK_EQ_I(etp_format_parse(names[i], &f), 0);
        CHECK_EQ_I(f, fmts[i]);
        CHECK(strcmp(etp_format_name(fmts[i]), names[i]) == 0);
    }
    etp_format keep = ETP_FMT_CSV;
    CHECK_EQ_I(etp_format_parse("xml", &keep), ETP_E_USAGE);
    CHECK_EQ_I(keep, ETP_FMT_CSV);
    CHECK(etp_format_parse(NULL, &keep) == ETP_E_USAGE);
    return check_done();
}
