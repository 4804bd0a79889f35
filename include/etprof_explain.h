/* etprof_explain.h - the findings of `etprof explain` as structured facts (issue 11.1).
 *
 * etp_explain_compute() answers the profiling questions of docs/analyses.md ("explain") from an
 * ops result: each answer is an etp_finding holding typed facts (numbers with their unit, counts,
 * names, flags, lists of records) and, where the file cannot tell, a "cannot tell" fact saying
 * what would settle it. `etprof explain` only renders these (its text answers and its JSON
 * "facts" objects).
 *
 * Coverage: questions 1 (same_thing: Method::execute vs DELEGATE_CALL vs the QNN values) and 2
 * (npu_vs_cpu: delegated partitions, CPU fallbacks, top operators), one finding per method each;
 * then the file-wide units (units and traps); questions 3 (hmx_vs_hvx) and 4 (memory_utilization)
 * from QNN's own files when given (else what gives them, and the commands); cannot_tell and
 * missing.
 *
 * Figures are not recomputed here: every number is a field of the ops result (its rows, methods,
 * partitions, QNN groups, etp_ops_delegate_time_get, etp_ops_top), or a ratio of two of them.
 *
 * Ownership and lifetime: the result is owned by the caller and freed with etp_explain_free(). Its
 * texts and names point into the ops result (or are static): the ops result must outlive it.
 * Thread safety: etp_explain_compute() only reads the ops result, so several threads may compute
 * from one ops result at once; a result may be read by several threads, freed by one.
 */
#ifndef ETPROF_EXPLAIN_H
#define ETPROF_EXPLAIN_H

#include "etprof.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

typedef enum etp_fact_kind {
    ETP_FACT_NUMBER = 0, /* value, in unit (per per_unit; a percentage when percent) */
    ETP_FACT_COUNT,      /* count */
    ETP_FACT_TEXT,       /* text (NULL: not known, JSON null) */
    ETP_FACT_FLAG,       /* flag */
    ETP_FACT_LIST,       /* a list of `count` records: the facts whose `list` is this id, by
                          * `item`; flag set: each record is one plain value (its fact's id is
                          * then "value") */
    ETP_FACT_ROW,        /* a record that is one ops row (`row`) */
    ETP_FACT_RECORD,     /* one record of `count` facts: those whose `list` is this id */
} etp_fact_kind;

typedef struct etp_fact {
    const char *id;      /* stable key, = the key in the finding's JSON "facts" object */
    etp_fact_kind kind;
    double value;        /* NUMBER */
    etp_unit unit;       /* NUMBER: ETP_UNIT_NS / ETP_UNIT_TICKS host time (the row's unit, not
                          * the display unit), ETP_UNIT_CYCLES, ETP_UNIT_NONE for a plain number */
    etp_unit per_unit;   /* NUMBER: value per one of these (cycles per ETP_UNIT_US), else NONE */
    bool percent;        /* NUMBER: a percentage (of Method::execute unless the id says) */
    uint64_t count;      /* COUNT; LIST: number of records */
    bool flag;           /* FLAG */
    const char *text;    /* TEXT */
    const char *name;    /* the name the fact refers to (backend, event, label), or NULL */
    int32_t row;         /* the ops row it refers to, -1 */
    int32_t method;      /* the method it is about, -1 (file-wide findings name it per fact) */
    const char *list;    /* id of the LIST it is a member of, NULL at the top level */
    uint32_t item;       /* index of its record in that list */
    bool extra;          /* not a field of explain JSON schema 1 (used by the text only) */
    bool unknown;        /* NUMBER: the value is not known (JSON null; value NaN or 0) */
    bool integral;       /* NUMBER: a whole number (bytes, cycles, us as the file gives them) */
    bool cannot_tell;    /* the file cannot tell this; `settle` says what would */
    const char *settle;
} etp_fact;

typedef enum etp_explain_question {
    ETP_EXQ_SAME_THING = 1, /* are Accelerator time, Method::execute and DELEGATE_CALL the same? */
    ETP_EXQ_NPU_CPU = 2,    /* which ops ran on the NPU, which fell back to the CPU? */
    ETP_EXQ_HMX_HVX = 3,    /* does each op run on HMX or HVX? (QNN files) */
    ETP_EXQ_MEMORY = 4,     /* VTCM/TCM, DRAM, heap, utilization, clock (QNN files) */
    ETP_EXQ_UNITS = 5,      /* what unit is each number in, and the traps */
    ETP_EXQ_CANNOT_TELL = 6, /* what the file cannot tell */
    ETP_EXQ_MISSING = 7,    /* what is missing from the file or the command line */
} etp_explain_question;

typedef struct etp_finding {
    const char *id;            /* "same_thing", "npu_vs_cpu", "units", "hmx_vs_hvx",
                                * "memory_utilization", "cannot_tell", "missing" */
    etp_explain_question question;
    int32_t method;            /* method index in the ops result, -1 for the whole file */
    const char *method_name;   /* NULL when unknown */
    const char *question_text; /* the question in words */
    size_t n_facts;
    const etp_fact *facts;     /* in a stable order (the JSON order) */
} etp_finding;

typedef struct etp_explain_result {
    size_t n_findings;
    const etp_finding *findings; /* per method: same_thing; then per method: npu_vs_cpu; then
                                  * units; hmx_vs_hvx and memory_utilization when the ETDump has
                                  * QNN events or QNN files were given; cannot_tell, missing */
} etp_explain_result;

typedef struct etp_explain_options {
    bool program_given; /* the ops result was computed with a .pte (names, backends) */
    uint32_t top_ops;   /* operators named per method (0: 5) */
    double tick_ns;     /* host ns per tick the ops result was computed with, 0 = unknown rate */
    /* QNN's own files (questions 3 and 4). These objects are library-internal for now (the
     * QNN readers have no public header yet): NULL when no QNN file was given. */
    const struct etp_qnn_derived *qnn;        /* the tables derived from --qhas/--optrace/... */
    const struct etp_qnn_etd_join *qnn_join;  /* their join to this ETDump's HTP nodes, or NULL */
    double htp_clock_ghz;                     /* for cycle -> time estimates; <= 0 or NaN: unknown */
    const char *htp_clock_source;             /* "htp-clock-ghz", "runtrace", "qhas", or NULL */
    /* The Arm runner's Ethos-U PMU report of the log the ETDump was read from
     * (etp_dump_arm_pmu(), etprof_arm_pmu.h), or NULL: question 6 then says what it holds. */
    const struct etp_arm_pmu_report *arm_pmu;
    /* The VGF backend's device times of the runner's log (--runner-log; etprof_arm_pmu.h), or
     * NULL: question 6 then gives them beside the ETDump's VGF_EXECUTE. */
    const struct etp_vgf_device_times *vgf;
} etp_explain_options;

/* Computes the findings. opt may be NULL (no program, 5 top operators). Returns ETP_OK and *out,
 * or ETP_E_INTERNAL (out of memory) / ETP_E_USAGE (r or out NULL) with err filled (err may be NULL). */
int etp_explain_compute(const etp_ops_result *r, const etp_explain_options *opt,
                        etp_explain_result **out, etp_error *err);
void etp_explain_free(etp_explain_result *x);

/* The first top-level fact (list == NULL) of f with this id, NULL when the finding has none. */
const etp_fact *etp_explain_fact(const etp_finding *f, const char *id);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_EXPLAIN_H */
