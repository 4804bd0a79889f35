/* cmd_check_outputs.c - `etprof check-outputs RUN.etdp --debug-buffer X.bin --pte model.bpte`:
 * the method outputs a run logged compared with the bundled program's expected outputs
 * (etp_check_outputs, include/etprof_bundled.h); this file only renders. */
#include "cli.h"
#include "etprof_bundled.h"
#include "etprof_tensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const etp_col chk_cols[] = {
    {"run", "run", NULL, ETP_T_UINT, false, 0},
    {"block", "block", NULL, ETP_T_UINT, false, 0},
    {"output_index", "output", NULL, ETP_T_UINT, false, 0},
    {"status", "status", NULL, ETP_T_STR, false, 0},
    {"within_tolerance", "within tolerance", NULL, ETP_T_BOOL, false, 0},
    {"dtype", "dtype", NULL, ETP_T_STR, true, 0},
    {"expected_dtype", "expected dtype", NULL, ETP_T_STR, true, 0},
    {"shape", "shape", NULL, ETP_T_STR, true, 0},
    {"expected_shape", "expected shape", NULL, ETP_T_STR, true, 0},
    {"numel", "numel", NULL, ETP_T_UINT, false, 0},
    {"mismatched", "mismatched", NULL, ETP_T_UINT, false, 0},
    {"max_abs", "max |diff|", NULL, ETP_T_FLOAT, true, -1},
    {"rule", "rule", NULL, ETP_T_STR, true, 0},
};
#define NC (sizeof chk_cols / sizeof chk_cols[0])

static void dims(char *b, size_t n, const int64_t *d, uint32_t rank) {
    size_t k = (size_t)snprintf(b, n, "[");
    for (uint32_t i = 0; i < rank && k < n; i++)
        k += (size_t)snprintf(b + k, n - k, "%s%lld", i ? ", " : "", (long long)d[i]);
    if (k < n) snprintf(b + k, n - k, "]");
}

static const char *dtype_of(bool tensor, const etp_tensor_view *v, const char *scalar) {
    return tensor ? etp_scalar_type_name(v->scalar_type) : scalar;
}

static int run_check(cli_args *a) {
    const char *path = a->pos[0];
    etp_chk_opts co;
    etp_chk_opts_default(&co);
    long tc = 0;
    if (a->set[OPT_TEST_CASE] && (!cli_get_long(a, OPT_TEST_CASE, &tc) || tc < 0 ||
                                  tc > (long)UINT32_MAX)) {
        cli_errorf("check-outputs: --test-case: expected a number from 0, got \"%s\"",
                   a->val[OPT_TEST_CASE]);
        return EXIT_USAGE;
    }
    co.test_case = (uint32_t)tc;
    if (a->set[OPT_RTOL] && (!cli_get_double(a, OPT_RTOL, &co.rtol) || co.rtol < 0)) {
        cli_errorf("check-outputs: --rtol: expected a number >= 0, got \"%s\"", a->val[OPT_RTOL]);
        return EXIT_USAGE;
    }
    if (a->set[OPT_ATOL] && (!cli_get_double(a, OPT_ATOL, &co.atol) || co.atol < 0)) {
        cli_errorf("check-outputs: --atol: expected a number >= 0, got \"%s\"", a->val[OPT_ATOL]);
        return EXIT_USAGE;
    }
    if (!a->set[OPT_PTE] || !a->set[OPT_DEBUG_BUFFER]) {
        cli_errorf("check-outputs: give the bundled program and the debug buffer: --pte "
                   "model.bpte --debug-buffer X.bin");
        return EXIT_USAGE;
    }
    etp_blob dbuf;
    memset(&dbuf, 0, sizeof dbuf);
    etp_error err = {0};
    int rc = cli_open_debug_buffer(&dbuf, a->val[OPT_DEBUG_BUFFER]);
    if (rc) return rc;
    cli_inputs in;
    if ((rc = cli_open_inputs(a, path, &in))) {
        etp_blob_close(&dbuf);
        return rc;
    }
    etp_bundled *b = NULL;
    etp_chk_result *r = NULL;
    if ((rc = etp_bundled_open(&b, &in.pte_blob, &err)) ||
        (rc = etp_check_outputs(in.model, &dbuf, b, &co, &r, &err))) {
        cli_error(&err);
        rc = cli_exit_for(rc);
        goto out;
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) goto out;
    size_t n = etp_chk_row_count(r);
    uint32_t runs = etp_chk_runs(r);
    uint64_t failed = etp_chk_failed(r);
    etp_doc *doc = etp_doc_new("check-outputs", 1, path, a->val[OPT_PTE]);
    etp_node *root = etp_doc_root(doc);
    etp_node_str(root, "debug_buffer", a->val[OPT_DEBUG_BUFFER]);
    etp_node_uint(root, "test_case", co.test_case);
    etp_node_float(root, "rtol", co.rtol);
    etp_node_float(root, "atol", co.atol);
    etp_node_uint(root, "runs", runs);
    etp_node_uint(root, "checked", n);
    etp_node_uint(root, "failed", failed);
    if (runs) etp_node_bool(root, "passed", failed == 0);
    else etp_node_null(root, "passed");
    etp_node *arr = etp_node_arr(root, "outputs");
    etp_table *t = etp_doc_table(doc, chk_cols, NC);
    for (size_t i = 0; i < n; i++) {
        const etp_chk_row *x = etp_chk_row_get(r, i);
        const etp_bvalue *ev = x->expected;
        char sh[256] = "", esh[256] = "";
        bool ea = x->has_actual && x->actual_is_tensor;
        bool ee = x->has_expected && ev->kind == ETP_BV_TENSOR;
        if (ea) dims(sh, sizeof sh, x->actual.sizes, x->actual.rank);
        if (ee) dims(esh, sizeof esh, ev->tensor.sizes, ev->tensor.rank);
        const char *dt = x->has_actual ? dtype_of(x->actual_is_tensor, &x->actual, "scalar")
                                       : NULL;
        const char *edt = x->has_expected ? dtype_of(ee, &ev->tensor,
                                                     etp_bvalue_kind_name(ev->kind))
                                          : NULL;
        char rule[96] = "";
        bool compared = x->status == ETP_CHK_PASS || x->status == ETP_CHK_FAIL;
        if (compared) {
            if (x->tolerance_used)
                snprintf(rule, sizeof rule, "|diff| <= %g + %g x |actual|", co.atol, co.rtol);
            else
                snprintf(rule, sizeof rule, "exact");
        }
        etp_node *j = etp_node_obj(arr, NULL);
        etp_node_uint(j, "run", etp_run_number(x->run));
        etp_node_uint(j, "block", x->block);
        etp_node_uint(j, "output_index", x->output_index);
        etp_node_str(j, "method", x->method);
        etp_node_str(j, "status", etp_chk_status_name(x->status));
        etp_node_bool(j, "within_tolerance", x->status == ETP_CHK_PASS);
        etp_node_str(j, "dtype", dt);
        etp_node_str(j, "expected_dtype", edt);
        etp_node *s1 = etp_node_arr(j, "shape");
        for (uint32_t d = 0; ea && d < x->actual.rank; d++) etp_node_int(s1, NULL, x->actual.sizes[d]);
        etp_node *s2 = etp_node_arr(j, "expected_shape");
        for (uint32_t d = 0; ee && d < ev->tensor.rank; d++)
            etp_node_int(s2, NULL, ev->tensor.sizes[d]);
        etp_node_uint(j, "numel", x->numel);
        etp_node_uint(j, "mismatched", x->mismatched);
        etp_node_float(j, "max_abs", x->max_abs);
        etp_node_bool(j, "tolerance_used", x->tolerance_used);

        etp_table_row(t);
        etp_table_uint(t, etp_run_number(x->run));
        etp_table_uint(t, x->block);
        etp_table_uint(t, x->output_index);
        etp_table_str(t, etp_chk_status_name(x->status));
        etp_table_bool(t, x->status == ETP_CHK_PASS);
        etp_table_str(t, dt);
        etp_table_str(t, edt);
        etp_table_str(t, ea ? sh : NULL);
        etp_table_str(t, ee ? esh : NULL);
        etp_table_uint(t, x->numel);
        etp_table_uint(t, x->mismatched);
        etp_table_float(t, x->max_abs);
        etp_table_str(t, *rule ? rule : NULL);
    }
    char note[512];
    if (!runs)
        snprintf(note, sizeof note,
                 "no method outputs were logged: nothing to check (exit 6); run with "
                 "etdump_runner --debug_level outputs (or intermediate) and --debug_output_path");
    else
        snprintf(note, sizeof note,
                 "%u run(s), %zu output(s) checked against test case %u: %llu failed%s", runs, n,
                 co.test_case, (unsigned long long)failed, failed ? " (exit 7)" : "");
    etp_doc_note(doc, note);
    etp_table_note(t, note);
    etp_doc_note(doc, "the dump does not record which test case's inputs ran (its "
                      "bundled_input_index is -1 in practice): --test-case N names it (default 0)");
    etp_table_note(t, "the dump does not record which test case's inputs ran: --test-case N "
                      "names it (default 0); values are the tensors' own data (no unit)");
    etp_section_table(etp_doc_section(doc, "outputs"), t);
    etp_doc_flat(doc, t);
    rc = cli_render(a, &o, doc);
    etp_doc_free(doc);
    rc = cli_out_close(&o, rc);
    if (!rc && !runs) {
        fprintf(stderr, "etprof: check-outputs: no method outputs were logged: exit 6\n");
        rc = EXIT_INCONCLUSIVE;
    } else if (!rc && failed) {
        fprintf(stderr, "etprof: check-outputs: %llu output(s) not within tolerance: exit 7\n",
                (unsigned long long)failed);
        rc = EXIT_DIVERGED;
    }
out:
    etp_chk_free(r);
    etp_bundled_close(b);
    cli_close_inputs(&in);
    etp_blob_close(&dbuf);
    return rc;
}

static const opt_id check_opts[] = {OPT_DEBUG_BUFFER, OPT_PTE, OPT_TEST_CASE, OPT_RTOL, OPT_ATOL,
                                    OPT_METHOD, OPT_IGNORE_MISMATCH, 0};

const cli_cmd cmd_check_outputs = {
    .name = "check-outputs",
    .summary = "the run's logged method outputs against a bundled program's expected outputs",
    .usage = "RUN.etdp --debug-buffer X.bin --pte model.bpte [--test-case N] [--rtol R] "
             "[--atol A]",
    .help = "Reads the bundled program's test suites (BP08: per method, test cases with inputs\n"
            "and expected outputs) and compares, for every run, the method outputs the runtime\n"
            "logged (debug events flagged as outputs, in order; needs --debug_level outputs or\n"
            "intermediate) with test case N's expected outputs: per output its status, whether\n"
            "it is within tolerance, the element count, how many elements are not, and the\n"
            "largest |diff|. HALF/FLOAT/DOUBLE elements pass when |actual - expected| <= atol +\n"
            "rtol x |actual| (ExecuTorch's rule; the schema holds no tolerances, so the defaults\n"
            "are ExecuTorch's: rtol 1e-5, atol 1e-8), other types when equal; a dtype or shape\n"
            "difference, a missing or unexpected output fails. Exit 7 when an output fails, 6\n"
            "when no method outputs were logged (the output is written first). docs/tensors.md.",
    .opts = check_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_check,
};
