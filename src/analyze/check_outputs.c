/* check_outputs.c - a run's logged method outputs against a bundled test case's expected
 * outputs (include/etprof_bundled.h). */
#include "etprof_bundled.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct etp_chk_result {
    etp_chk_row *rows;
    size_t n, cap;
    uint32_t runs;
    uint64_t failed;
};

const char *etp_chk_status_name(etp_chk_status s) {
    switch (s) {
    case ETP_CHK_PASS: return "pass";
    case ETP_CHK_FAIL: return "fail";
    case ETP_CHK_SHAPE_DIFFERS: return "shape differs";
    case ETP_CHK_DTYPE_DIFFERS: return "dtype differs";
    case ETP_CHK_KIND_DIFFERS: return "kind differs";
    case ETP_CHK_MISSING: return "missing";
    case ETP_CHK_EXTRA: return "not expected";
    }
    return "?";
}

void etp_chk_opts_default(etp_chk_opts *o) {
    memset(o, 0, sizeof *o);
    o->rtol = 1e-5;
    o->atol = 1e-8;
}

static bool is_float_type(int t) { return t == 5 || t == 6 || t == 7; } /* HALF FLOAT DOUBLE */

/* ExecuTorch's element rule (bundled_program.cpp, described in etprof_bundled.h). */
static bool close_enough(double a, double e, double rtol, double atol, bool tol) {
    if (isnan(a) && isnan(e)) return true;
    if (isinf(a) && isinf(e) && (a > 0) == (e > 0)) return true;
    if (!tol || (rtol == 0 && atol == 0)) return a == e;
    double d = fabs(a - e);
    return isfinite(d) && d <= atol + fabs(rtol * a);
}

static void tally(etp_chk_row *r, double a, double e, const etp_chk_opts *o) {
    if (!close_enough(a, e, o->rtol, o->atol, r->tolerance_used)) r->mismatched++;
    double d = fabs(a - e);
    if (isfinite(d) && (isnan(r->max_abs) || d > r->max_abs)) r->max_abs = d;
    r->numel++;
}

static void compare_row(etp_chk_row *r, const etp_chk_opts *o) {
    const etp_bvalue *x = r->expected;
    r->max_abs = NAN;
    if (r->actual_is_tensor != (x->kind == ETP_BV_TENSOR)) {
        r->status = ETP_CHK_KIND_DIFFERS;
        return;
    }
    if (r->actual_is_tensor) {
        const etp_tensor_view *a = &r->actual, *e = &x->tensor;
        if (a->scalar_type != e->scalar_type) {
            r->status = ETP_CHK_DTYPE_DIFFERS;
            return;
        }
        bool same = a->rank == e->rank;
        for (uint32_t d = 0; same && d < a->rank; d++) same = a->sizes[d] == e->sizes[d];
        if (!same) {
            r->status = ETP_CHK_SHAPE_DIFFERS;
            return;
        }
        r->tolerance_used = is_float_type(a->scalar_type);
        uint64_t n = a->base && e->base ? a->numel : 0;
        for (uint64_t i = 0; i < n; i++)
            tally(r, etp_tensor_get(a, i), etp_tensor_get(e, i), o);
    } else {
        double ev = x->kind == ETP_BV_INT ? (double)x->int_val
                    : x->kind == ETP_BV_BOOL ? (x->bool_val ? 1 : 0)
                                             : x->double_val;
        r->tolerance_used = x->kind == ETP_BV_DOUBLE;
        tally(r, r->actual_scalar, ev, o);
    }
    r->status = r->mismatched ? ETP_CHK_FAIL : ETP_CHK_PASS;
}

static etp_chk_row *add(etp_chk_result *r) {
    if (r->n == r->cap) {
        size_t c = r->cap ? r->cap * 2 : 16;
        etp_chk_row *q = realloc(r->rows, c * sizeof *q);
        if (!q) return NULL;
        r->rows = q;
        r->cap = c;
    }
    etp_chk_row *x = &r->rows[r->n++];
    memset(x, 0, sizeof *x);
    x->max_abs = NAN;
    return x;
}

int etp_check_outputs(etp_model *m, const etp_blob *dbuf, const etp_bundled *b,
                      const etp_chk_opts *opts, etp_chk_result **out, etp_error *err) {
    *out = NULL;
    etp_chk_opts dflt;
    if (!opts) {
        etp_chk_opts_default(&dflt);
        opts = &dflt;
    }
    etp_chk_result *r = calloc(1, sizeof *r);
    if (!r) goto oom;
    const etp_dump_info *di = etp_dump_get_info(etp_model_dump(m));
    int rc;
    for (uint32_t blk = 0; blk < di->block_count; blk++) {
        etp_block_view bv;
        if ((rc = etp_model_block(m, blk, &bv, err))) goto fail;
        const etp_bsuite *suite = NULL;
        uint32_t k = 0;
        for (uint32_t i = 0; i < bv.n; i++) {
            const etp_mevent *e = &bv.events[i];
            if (e->ev.type != ETP_EVENT_DEBUG || !e->ev.debug.has_debug_entry) continue;
            const etp_value *val = &e->ev.debug.debug_entry;
            if (!(val->has_output && val->output)) continue;
            if (!suite) { /* the first output of this run: its test case */
                suite = bv.method ? etp_bundled_find_suite(b, bv.method) : NULL;
                if (!suite && !bv.method && etp_bundled_suite_count(b) == 1)
                    suite = etp_bundled_suite(b, 0);
                if (!suite) {
                    if (bv.method)
                        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL,
                                      "the bundled program has no test suite for method \"%s\" "
                                      "(%u suites)", bv.method, etp_bundled_suite_count(b));
                    else
                        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL,
                                      "block %u's method is not known and the bundled program "
                                      "has %u test suites: give --method", blk,
                                      etp_bundled_suite_count(b));
                    rc = ETP_E_USAGE;
                    goto fail;
                }
                if (opts->test_case >= suite->n_cases) {
                    etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL,
                                  "test case %u does not exist: method \"%s\" has %u", 
                                  opts->test_case, suite->method, suite->n_cases);
                    rc = ETP_E_USAGE;
                    goto fail;
                }
            }
            const etp_bcase *tc = &suite->cases[opts->test_case];
            etp_chk_row *x = add(r);
            if (!x) goto oom;
            x->block = blk;
            x->run = r->runs;
            x->output_index = k;
            x->method = suite->method;
            x->has_actual = true;
            char path[160];
            snprintf(path, sizeof path, "run_data[%u].events[%u].debug_event.debug_entry.tensor",
                     blk, i);
            if (val->val == ETP_VAL_TENSOR && val->has_tensor) {
                x->actual_is_tensor = true;
                if ((rc = etp_tensor_view_init(&val->tensor, dbuf, path, &x->actual, err)))
                    goto fail;
            } else if (val->val == ETP_VAL_INT && val->has_int) {
                x->actual_scalar = (double)val->int_val;
            } else if (val->val == ETP_VAL_BOOL && val->has_bool) {
                x->actual_scalar = val->bool_val;
            } else if (val->val == ETP_VAL_DOUBLE && val->has_double) {
                x->actual_scalar = val->double_val;
            } else if (val->val == ETP_VAL_FLOAT && val->has_float) {
                x->actual_scalar = val->float_val;
            } else {
                x->has_actual = false; /* a TensorList or an empty value: cannot be compared */
            }
            if (k < tc->n_outputs) {
                x->has_expected = true;
                x->expected = &tc->outputs[k];
                if (x->has_actual) compare_row(x, opts);
                else x->status = ETP_CHK_KIND_DIFFERS;
            } else {
                x->status = ETP_CHK_EXTRA;
            }
            k++;
        }
        if (suite) {
            const etp_bcase *tc = &suite->cases[opts->test_case];
            for (uint32_t q = k; q < tc->n_outputs; q++) {
                etp_chk_row *x = add(r);
                if (!x) goto oom;
                x->block = blk;
                x->run = r->runs;
                x->output_index = q;
                x->method = suite->method;
                x->has_expected = true;
                x->expected = &tc->outputs[q];
                x->status = ETP_CHK_MISSING;
            }
            r->runs++;
        }
    }
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].status != ETP_CHK_PASS) r->failed++;
    *out = r;
    return ETP_OK;
oom:
    rc = ETP_E_INTERNAL;
    etp_error_set(err, rc, NULL, -1, NULL, "out of memory");
fail:
    etp_chk_free(r);
    return rc;
}

void etp_chk_free(etp_chk_result *r) {
    if (!r) return;
    free(r->rows);
    free(r);
}
size_t etp_chk_row_count(const etp_chk_result *r) { return r ? r->n : 0; }
const etp_chk_row *etp_chk_row_get(const etp_chk_result *r, size_t i) {
    return r && i < r->n ? &r->rows[i] : NULL;
}
uint32_t etp_chk_runs(const etp_chk_result *r) { return r ? r->runs : 0; }
uint64_t etp_chk_failed(const etp_chk_result *r) { return r ? r->failed : 0; }
