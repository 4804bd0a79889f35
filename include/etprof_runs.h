/* etprof_runs.h - views of many runs (issue 14.1): one row per run (`etprof runs`) and the
 * operators summarised by type (`etprof ops --by type`).
 *
 * Both are computed from an ops result (etp_ops_compute) and recompute no figure: a run's
 * Method::execute, each backend's delegate time, the CPU-kernel time and the framework rest are
 * the per-run values of exactly the rows that make the method's parts (etp_ops_method.parts,
 * the `summary` placement table); a backend's own time inside a DELEGATE_CALL and the overhead
 * around it are the per-run values behind etp_ops_delegate_time_get(); the QNN figures are the
 * per-run values of the top-level QNN rows of etp_ops_qnn. Summed over the runs, a run row's
 * figures give the part totals of `summary` (docs/analyses.md "Runs").
 *
 * Ownership and lifetime: a result is owned by the caller and freed with etp_runs_free() /
 * etp_optype_free(). Its names point into the ops result, which must outlive it.
 * Errors: ETP_E_USAGE for bad options (located in err->path: the option), ETP_E_INTERNAL when out
 * of memory; nothing else can fail (the ops result was verified when computed).
 * Thread safety: computing only reads the ops result, so several threads may compute from one
 * ops result at once; a result may be read by several threads and freed by one.
 */
#ifndef ETPROF_RUNS_H
#define ETPROF_RUNS_H

#include "etprof.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

/* ---- Runs ---- */

typedef struct etp_runs_opts {
    /* Warm-up: the first run of each method, and each following run, as long as every run
     * before it was warm-up, whose Method::execute is above warmup_factor x the median of the
     * method's runs. Default 1.5. */
    double warmup_factor;
    /* Outliers, among the runs that are not warm-up: |x - median| > outlier_k x 1.4826 x MAD
     * (a robust z-score above k; 1.4826 x MAD estimates the standard deviation of normal
     * noise). When the MAD is 0, 1.2533 x the mean absolute deviation from the median is used;
     * when that is 0 too, no run is an outlier. Default 3.5. */
    double outlier_k;
    /* Trend, over the runs that are not warm-up (outliers included: the estimator is robust):
     * Theil-Sen slope (median of the pairwise slopes) and the Mann-Kendall test (two-sided,
     * normal approximation, no tie correction). The method drifts when p < trend_alpha and the
     * slope over the runs' span is at least trend_pct percent of the median. At least 5 runs
     * are needed; above 2000 runs, 2000 evenly spaced ones are used. Defaults 0.05 and 5. */
    double trend_alpha;
    double trend_pct;
} etp_runs_opts;

void etp_runs_opts_init(etp_runs_opts *o);

/* One backend's time in one run (one entry per delegate part of the method, in parts order). */
typedef struct etp_runs_backend {
    const char *placement; /* backend id, or "delegate" when the program is unknown */
    uint32_t part;         /* index in the method's etp_ops_method.parts */
    double delegate;       /* the part's time in the run: its DELEGATE_CALLs summed (method-only
                              dumps: the backend's own outermost events) */
    bool has_backend;      /* the backend logged time inside its DELEGATE_CALLs */
    double backend;        /* that time, summed (QNN: QNN (execute) time); NaN when !has_backend */
    double overhead;       /* delegate - backend: the host time around the backend (NaN when
                              !has_backend) */
} etp_runs_backend;

/* The QNN top-level figures of one delegate partition in one run. */
typedef struct etp_runs_qnn {
    uint32_t qnn;                     /* index for etp_ops_qnn_get() */
    double value[ETP_QT_COUNT_];      /* NaN when the event is absent in the run */
    etp_unit unit[ETP_QT_COUNT_];     /* the row's unit (ns for the "(us)" times, cycles, count) */
} etp_runs_qnn;

typedef struct etp_runs_row {
    uint32_t method;      /* index for etp_ops_method_get() (name NULL when unknown/ambiguous) */
    uint32_t run;         /* 0-based, among the method's runs */
    uint32_t block;       /* the dump's block index */
    etp_unit unit;        /* of every time of the row but the QNN figures: ns, or ticks */
    double execute;       /* Method::execute; NaN when the run has none */
    uint32_t n_backends;
    const etp_runs_backend *backends;
    double delegate;      /* all backends */
    double cpu;           /* the CPU part: its OPERATOR_CALLs (or kernels) summed */
    double framework;     /* execute - delegate - cpu (NaN without execute) */
    uint32_t n_qnn;
    const etp_runs_qnn *qnn;
    bool warmup;
    bool outlier;
    double robust_z;      /* (execute - median) / robust scale of the steady runs; NaN when the
                             run is warm-up, has no execute, or the scale is 0 */
} etp_runs_row;

typedef enum etp_runs_trend {
    ETP_TREND_TOO_FEW = 0, /* fewer than 5 steady runs with an execute time */
    ETP_TREND_STABLE,      /* no significant drift, or one smaller than trend_pct */
    ETP_TREND_UP,          /* latency grows over the runs (thermal throttling shows this way) */
    ETP_TREND_DOWN,
} etp_runs_trend;
const char *etp_runs_trend_name(etp_runs_trend t); /* "too few runs", "stable", "drifting up",
                                                      "drifting down" */

typedef struct etp_runs_method {
    uint32_t method;        /* index for etp_ops_method_get() */
    uint32_t runs;          /* rows of this method */
    etp_unit unit;          /* of its times */
    uint32_t warmup_runs, outliers;
    uint32_t steady_runs;   /* not warm-up, with an execute time */
    double median_all;      /* median execute over all its runs (warm-up threshold basis) */
    double median, scale;   /* over the steady runs: median and robust scale (1.4826 MAD, or
                               the fallback; 0 when every steady run is equal) */
    etp_runs_trend trend;
    double slope;           /* Theil-Sen, unit per run; NaN when too few */
    double drift_pct;       /* slope x (last - first steady run index) / median, percent */
    double trend_p;         /* Mann-Kendall p; NaN when too few */
    uint32_t trend_runs;    /* runs the trend used (at most 2000) */
    double execute_total;   /* sum of Method::execute over all runs */
    /* runs per second of the summed Method::execute (ns methods only; NaN for ticks): one run
     * produces one token in a decode-style method, so there it is tokens per second */
    double runs_per_second;
    bool decode_style;      /* the method's name holds "decode", "kv" or "token" (any case)
                               and neither "prefill" nor "prompt" */
    double tokens_per_second; /* = runs_per_second when decode_style, else NaN */
    /* The same over the steady runs only (warm-up excluded, the rule of warmup_factor):
     * steady_runs / the sum of their Method::execute. runs_per_second and tokens_per_second
     * above cover every run, the cold first one included (docs/analyses.md "Runs"). */
    double steady_execute_total;      /* sum of Method::execute over the steady runs */
    double runs_per_second_steady;    /* NaN for ticks or no steady run */
    double tokens_per_second_steady;  /* = runs_per_second_steady when decode_style, else NaN */
} etp_runs_method;

typedef struct etp_runs_result etp_runs_result;

/* `o` may be NULL (defaults). Rows are per method (ops method order), in run order. */
int etp_runs_compute(const etp_ops_result *r, const etp_runs_opts *o, etp_runs_result **out,
                     etp_error *err);
void etp_runs_free(etp_runs_result *x);
size_t etp_runs_row_count(const etp_runs_result *x);
const etp_runs_row *etp_runs_row_get(const etp_runs_result *x, size_t i);
size_t etp_runs_method_count(const etp_runs_result *x);
const etp_runs_method *etp_runs_method_get(const etp_runs_result *x, size_t i);
const etp_runs_opts *etp_runs_get_opts(const etp_runs_result *x);

/* Theil-Sen slope of (x[i], y[i]) (median of the pairwise slopes with x[j] != x[i]) and the
 * two-sided Mann-Kendall p of y ordered by x (x ascending). NaN for n < 2. ETP_E_INTERNAL when
 * out of memory. */
int etp_theil_sen(const double *x, const double *y, size_t n, double *slope, double *p);

/* ---- Operators by type ---- */

/* The domain an operator type belongs to; the types of one domain share one unit. */
typedef enum etp_optype_domain {
    ETP_OTD_CPU = 0,  /* CPU kernels: the rows of the method's cpu part, by operator */
    ETP_OTD_HTP,      /* QNN HTP nodes, by their ATen op (etp_optype_of_htp) */
    ETP_OTD_DELEGATE, /* other operators a backend logged (XNNPACK "<op> #k"...): by name
                         without " #k"; only rows without children (leaves) */
} etp_optype_domain;
const char *etp_optype_domain_name(etp_optype_domain d); /* "cpu", "htp", "delegate" */

typedef struct etp_optype_row {
    uint32_t method;
    etp_optype_domain domain;
    const char *placement;  /* "cpu" or the backend id */
    const char *type;       /* the operator type */
    etp_unit unit;
    uint32_t rows;          /* ops rows grouped */
    uint64_t count;         /* occurrences over the runs (sum of the rows' count) */
    double total;           /* sum of the rows' totals */
    double avg;             /* total / count: per occurrence */
    double per_run;         /* total / the method's runs */
    double share;           /* percent of the total of its (method, domain, placement, unit) */
    double cum_share;       /* running sum of share in the order below */
} etp_optype_row;

typedef struct etp_optype_result etp_optype_result;

/* Groups the rows of the ops result by (method, domain, placement, unit, type). HTP node rows:
 * "Input/Output OpId_N" are "(graph input)" / "(graph output)", "OpId_N" (system ops) and nodes
 * without an op name "(system op)". Rows without a total (no sample) are left out. Ordered by
 * method, then domain (cpu, htp, delegate), placement, unit, then total, largest first (ties by
 * type A-Z). */
int etp_optype_compute(const etp_ops_result *r, etp_optype_result **out, etp_error *err);
void etp_optype_free(etp_optype_result *x);
size_t etp_optype_count(const etp_optype_result *x);
const etp_optype_row *etp_optype_get(const etp_optype_result *x, size_t i);

/* The type of an HTP node from its QNN op name (without ":OpId_N"), written to buf:
 *   "aten_<op>_<rest>"  -> <op>: the words up to the first one that is an overload name or an
 *                          QNN suffix (default, tensor, scalar, int, dim, dims, self, out,
 *                          list, float, bool, str, value, mode, h, sha; any case) or a number; "aten_convolution_default_28_h_7"
 *                          -> "convolution", "aten_view_copy_default" -> "view_copy";
 *   other names            -> the name without its trailing "_<number>" words ("q_conv_3" ->
 *                          "q_conv").
 * Returns buf. */
const char *etp_optype_of_htp(const char *qnn_op, char *buf, size_t cap);
/* The type of a delegate operator name: the name without a trailing " #<number>"
 * ("Convolution (NHWC, F32) IGEMM #3" -> "Convolution (NHWC, F32) IGEMM"). Returns buf. */
const char *etp_optype_of_name(const char *name, char *buf, size_t cap);

/* ---- Several dumps at once (issue 14.1) ----
 *
 * One analysis of N ETDumps (e.g. prefill.etdp and decode.etdp of one LLM run) with each file's
 * runs kept apart and labelled: every figure is that file's own single-file analysis
 * (etp_ops_compute, etp_optype_compute, etp_runs_compute on its model), so the rows of two files
 * are never merged, even when they are the same op of the same method (docs/analyses.md
 * "Several dumps at once"). Ownership: the result owns its per-file results and label copies;
 * they stay valid after the models are closed. Errors: ETP_E_USAGE for n == 0, an empty label or
 * two equal labels (err->path "--label"); the errors of etp_ops_compute (the file's path in
 * err->file when the model's error names none); ETP_E_INTERNAL when out of memory. Thread
 * safety: as etp_ops_compute, per model; the result may be read by several threads. */
typedef struct etp_multi_input {
    const char *label;  /* NULL: the file's base name (etp_multi_label) */
    const char *path;   /* the file, as shown (may be NULL when label is given) */
    etp_model *model;   /* the file's model (borrowed for the call only) */
} etp_multi_input;

typedef struct etp_multi_file {
    const char *label;
    const char *path;
    const etp_ops_result *ops;       /* this file's ops result */
    const etp_optype_result *types;  /* its operators by type */
    const etp_runs_result *runs;     /* its runs (default etp_runs_opts unless given) */
} etp_multi_file;

typedef struct etp_multi_result etp_multi_result;

/* `oo` and `ro` may be NULL (defaults); each applies to every file. */
int etp_multi_compute(const etp_multi_input *in, size_t n, const etp_ops_opts *oo,
                      const etp_runs_opts *ro, etp_multi_result **out, etp_error *err);
void etp_multi_free(etp_multi_result *x);
size_t etp_multi_file_count(const etp_multi_result *x);
const etp_multi_file *etp_multi_file_get(const etp_multi_result *x, size_t i);
/* The default label of a file: its base name (after the last '/'); "-" (standard input) stays
 * "-"; NULL or "" gives "". Written to buf; returns buf. */
const char *etp_multi_label(const char *path, char *buf, size_t cap);

/* The HTML report of several dumps (docs/report.md "Several files"): one page with a table of
 * the files (label, path, per method runs and latency p50/p90) and each file's own report, the
 * bytes etp_report_write() writes for it alone (with o->sources[i] as its source), inline in a
 * frame (iframe srcdoc: no reference outside the file; ids of two files never collide). Nothing
 * is merged across files. `labels` (n, unique: the caller's etp_multi labels) name the files.
 * The QNN file options of `o` apply to every file (give them with one file only). Errors: as
 * etp_report_write(); ETP_E_USAGE for n == 0. Flushes but does not close `f`. */
int etp_report_write_multi(etp_model *const *models, const char *const *labels, size_t n,
                           FILE *f, const etp_report_opts *o, etp_error *err);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_RUNS_H */
