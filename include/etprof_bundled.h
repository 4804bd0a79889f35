/*
 * etprof_bundled.h - bundled programs (.bpte): their test suites (per method, test cases with
 * inputs and expected outputs as Values), and `etprof check-outputs`: the method outputs a run
 * logged into its debug buffer compared with a test case's expected outputs.
 *
 * Format (schema/bundled_program.fbs, identifier BP08, not size-prefixed):
 *   BundledProgram{version 0, method_test_suites 1, program 2}
 *   BundledMethodTestSuite{method_name 0, test_cases 1}
 *   BundledMethodTestCase{inputs 0, expected_outputs 1}
 *   Value{val_type 0, val 1}: 1 Tensor, 2 Int, 3 Bool, 4 Double
 *   Tensor{scalar_type 0, sizes 1 ([int]), data 2 ([ubyte]), dim_order 3 ([ubyte])}
 *   Int{int_val 0 (long)}  Bool{bool_val 0}  Double{double_val 0}
 * The schema carries no tolerances: ExecuTorch's verification takes them as arguments (rtol
 * 1e-5, atol 1e-8 by default); etprof uses the same defaults and the same rule (below).
 *
 * Ownership: etp_bundled borrows the blob (which must stay open); tensor views point into it.
 * Thread safety: a bundled program is read-only after etp_bundled_open(); a check result too.
 * Errors: ETP_E_INPUT located in the file (byte offset, field path such as
 * "method_test_suites[0].test_cases[3].expected_outputs[0].val.sizes[1]").
 */
#ifndef ETPROF_BUNDLED_H
#define ETPROF_BUNDLED_H

#include "etprof.h"
#include "etprof_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

typedef enum etp_bvalue_kind {
    ETP_BV_NONE = 0,
    ETP_BV_TENSOR = 1,
    ETP_BV_INT = 2,
    ETP_BV_BOOL = 3,
    ETP_BV_DOUBLE = 4,
} etp_bvalue_kind;

typedef struct etp_bvalue {
    etp_bvalue_kind kind;
    int64_t file_offset;    /* of the Value table */
    etp_tensor_view tensor; /* TENSOR: the data in the file; strides from dim_order (offset =
                               the data's file offset) */
    int64_t int_val;        /* INT */
    bool bool_val;          /* BOOL */
    double double_val;      /* DOUBLE */
} etp_bvalue;

typedef struct etp_bcase {
    uint32_t n_inputs, n_outputs;
    const etp_bvalue *inputs, *outputs;
} etp_bcase;

typedef struct etp_bsuite {
    const char *method; /* NUL-terminated copy */
    uint32_t n_cases;
    const etp_bcase *cases;
} etp_bsuite;

typedef struct etp_bundled etp_bundled;

/* At most this many Values in all test cases (a larger claim is a located error). */
#define ETP_BUNDLED_MAX_VALUES (1u << 20)

/* Verifies the bundled program in `blob` and reads its test suites. ETP_E_INPUT (located) when
 * it is not a bundled program or any field is malformed: a tensor whose data holds fewer bytes
 * than its sizes need, a negative size, a rank above ETP_TENSOR_MAX_RANK, a dim_order that is
 * not a permutation, an undefined scalar type or value type. ETP_E_INTERNAL when out of memory. */
int etp_bundled_open(etp_bundled **out, const etp_blob *blob, etp_error *err);
void etp_bundled_close(etp_bundled *b);
uint32_t etp_bundled_version(const etp_bundled *b);
uint32_t etp_bundled_suite_count(const etp_bundled *b);
const etp_bsuite *etp_bundled_suite(const etp_bundled *b, uint32_t i); /* NULL past the end */
const etp_bsuite *etp_bundled_find_suite(const etp_bundled *b, const char *method);
const char *etp_bvalue_kind_name(etp_bvalue_kind k); /* "tensor", "int", "bool", "double" */

/* ---------------------------------------------------------------------------------------------
 * check-outputs
 * ------------------------------------------------------------------------------------------- */

typedef enum etp_chk_status {
    ETP_CHK_PASS = 0,       /* within tolerance (every element) */
    ETP_CHK_FAIL,           /* some element outside the tolerance */
    ETP_CHK_SHAPE_DIFFERS,  /* shapes differ (as ExecuTorch: a failure) */
    ETP_CHK_DTYPE_DIFFERS,  /* element types differ (as ExecuTorch: a failure) */
    ETP_CHK_KIND_DIFFERS,   /* a tensor against an Int, ... (a failure) */
    ETP_CHK_MISSING,        /* an expected output the run did not log (a failure) */
    ETP_CHK_EXTRA,          /* a logged output the test case does not expect (a failure) */
} etp_chk_status;
const char *etp_chk_status_name(etp_chk_status s); /* "pass", "fail", "shape differs", ... */

typedef struct etp_chk_opts {
    uint32_t test_case; /* the test case whose inputs ran (default 0) */
    double rtol, atol;  /* defaults 1e-5 and 1e-8 (etp_chk_opts_default) */
} etp_chk_opts;
void etp_chk_opts_default(etp_chk_opts *o);

typedef struct etp_chk_row {
    etp_chk_status status;
    uint32_t block;        /* run_data block */
    uint32_t run;          /* runs that logged method outputs, from 0 */
    uint32_t output_index; /* the k-th method output logged in the run */
    const char *method;
    bool has_actual, has_expected;
    bool actual_is_tensor;
    etp_tensor_view actual;   /* actual_is_tensor: the logged tensor */
    double actual_scalar;     /* an inline Int/Bool/Float/Double output */
    const etp_bvalue *expected;
    uint64_t numel;        /* elements compared */
    uint64_t mismatched;   /* elements outside the tolerance (PASS/FAIL rows) */
    double max_abs;        /* largest |actual - expected| over finite pairs (NaN: none) */
    bool tolerance_used;   /* HALF/FLOAT/DOUBLE (and Double values): rtol/atol; else exact */
} etp_chk_row;

typedef struct etp_chk_result etp_chk_result;

/* For every run (Execute block) that logged method outputs (debug events whose Value has
 * output = true, in the order logged), compares output k with expected output k of test case
 * opts->test_case of the suite named like the block's method (or the only suite when the
 * block has no method name). An element is within tolerance when both are NaN, both the same
 * infinity, or |actual - expected| <= atol + |rtol x actual| (ExecuTorch's rule, rtol applied
 * to the runtime value) for HALF, FLOAT and DOUBLE; every other type must be equal.
 * Errors: ETP_E_USAGE when the test case or the method's suite does not exist (message says
 * which exist); a logged tensor outside the buffer (located, as etp_tensor_view_init);
 * ETP_E_INTERNAL when out of memory. The model, buffer and bundled program must outlive the
 * result. */
int etp_check_outputs(etp_model *m, const etp_blob *dbuf, const etp_bundled *b,
                      const etp_chk_opts *opts, etp_chk_result **out, etp_error *err);
void etp_chk_free(etp_chk_result *r);
size_t etp_chk_row_count(const etp_chk_result *r);
const etp_chk_row *etp_chk_row_get(const etp_chk_result *r, size_t i);
uint32_t etp_chk_runs(const etp_chk_result *r);   /* runs with method outputs */
uint64_t etp_chk_failed(const etp_chk_result *r); /* rows that are not PASS */

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_BUNDLED_H */
