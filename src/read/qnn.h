/*
 * qnn.h - internal API of etprof's readers for QNN's own profiling outputs ("QNN deep data").
 *
 * Readers (one per file kind, each `etp_qnn_read_X(path, &out, &err)` + a free function):
 *   QHAS JSON      (`*_qnn_htp_analysis_summary.json`, header.artifact_type "QHAS")  qnn_qhas.c
 *   optrace JSON   (Chrome trace, header.artifact_type "OP_TRACE")                   qnn_optrace.c
 *   runtrace JSON  (`*_runtrace.json`, header.artifact_type "RUN_TRACE")             qnn_runtrace.c
 *   heap file      (ExecuTorch's `DSP:before_context_created (bytes), N` lines)      qnn_text.c
 *   qnn-profile-viewer text log and CSV (same in-memory "viewer" structure)          qnn_text.c
 * Derived results (per-QNN-op table, summary, cross-checks, ETDump node join)        qnn_merge.c
 *
 * Conventions (in addition to etprof.h's):
 *  - Readers reject a file with ETP_E_INPUT (bad content) or ETP_E_IO (cannot read, directory)
 *    and a located one-line error: err->file = path as given, err->path = JSON path
 *    (`data.htp_op_instances.data[12].cycles`), err->offset = byte position for JSON syntax
 *    errors and for text files (start of the offending line), else -1; err->msg carries
 *    "line L column C: ..." for JSON syntax errors and "line L: ..." for text files.
 *  - JSON is parsed strictly by jansson; duplicate object keys are rejected (ambiguous).
 *  - Keys a reader relies on are required; unknown keys are ignored. A missing optional key (or
 *    JSON null) is reported as absent (`.has == false`, string NULL), never as zero. A present
 *    key of the wrong JSON type is an error even when the key is optional. Integer fields also
 *    accept integral JSON reals (1.0).
 *  - Op IDs are accepted as hex strings ("0x0000121500000023", 1..16 hex digits) or as
 *    non-negative JSON integers.
 *  - Strings returned by a reader live as long as the object it returned. Pointers in derived
 *    results (etp_qnn_derived, etp_qnn_join, mismatches) borrow from the reader objects they were
 *    computed from, which must outlive them.
 *  - Every function returning `int` returns ETP_OK or a negative ETP_E_* code; out-of-memory is
 *    ETP_E_INTERNAL.
 */
#ifndef ETPROF_QNN_H
#define ETPROF_QNN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etprof.h"
#include "etprof_qnn.h" /* the public part */

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Optional values
 * ------------------------------------------------------------------------------------------- */


typedef struct etp_qnn_flag {
    bool v;
    bool has;
} etp_qnn_flag;

typedef struct etp_qnn_version {
    int64_t major, minor, patch;
    bool has; /* header.version was present (each part defaults to 0 when missing) */
} etp_qnn_version;

/* HTP op unit / behaviour flags (QHAS booleans, optrace `args.Flags` words). */
enum {
    ETP_QNN_F_HMX = 1u << 0,       /* QHAS hmx,      optrace "uses_hmx" */
    ETP_QNN_F_HVX = 1u << 1,       /* QHAS hvx,      optrace "uses_hvx" */
    ETP_QNN_F_DMA = 1u << 2,       /* QHAS dma,      optrace "dma" */
    ETP_QNN_F_DMA_SET = 1u << 3,   /* QHAS dma_set,  optrace "dma_set" */
    ETP_QNN_F_DMA_WAIT = 1u << 4,  /* QHAS dma_wait, optrace "dma_wait" */
    ETP_QNN_F_SYNC = 1u << 5,      /* QHAS sync,     optrace "sync" */
    ETP_QNN_F_NULL_EXEC = 1u << 6, /*                optrace "null_exec" */
};
#define ETP_QNN_F_ANY_DMA (ETP_QNN_F_DMA | ETP_QNN_F_DMA_SET | ETP_QNN_F_DMA_WAIT)

/* The low 32 bits of a 64-bit HTP op ID = the `OpId_<n>` of ETDump / viewer node names. */
static inline uint32_t etp_qnn_qnn_op_id(uint64_t htp_op_id) { return (uint32_t)(htp_op_id & 0xffffffffu); }

/* ---------------------------------------------------------------------------------------------
 * QHAS (`*_qnn_htp_analysis_summary.json`)
 * ------------------------------------------------------------------------------------------- */

typedef struct etp_qnn_qhas_resource { /* data.htp_overall_summary.data[0].htp_resources.data[i] */
    const char *type;                  /* required: "HMX", "HVX", ... */
    int64_t tid;                       /* required: 256 = HMX thread, 512.. = HVX threads */
    int64_t cycles_used;               /* required: busy cycles of this hardware thread */
    etp_qnn_i64 start_cycle, end_cycle, timeline_cycles;
    etp_qnn_f64 utilization;           /* % of the graph timeline (overall timeline_cycles) */
    etp_qnn_i64 dram_read, dram_write, vtcm_read, vtcm_write; /* bytes */
} etp_qnn_qhas_resource;

typedef struct etp_qnn_qhas_overall { /* data.htp_overall_summary.data[0] (first HTP core) */
    etp_qnn_i64 htp;                  /* core index */
    etp_qnn_f64 percent_utilization;  /* % of the timeline where at least one unit is busy */
    etp_qnn_f64 percent_idle;
    etp_qnn_i64 time_us;              /* runtrace "QNN DSP Execute" us (truncated) */
    etp_qnn_i64 graph_execute_us;     /* runtrace "Graph Execute" us (truncated) */
    etp_qnn_f64 inf_per_s;
    etp_qnn_i64 timeline_cycles;      /* graph wall span in cycles */
    etp_qnn_i64 total_dram_read, total_dram_write, total_dram;  /* bytes */
    etp_qnn_i64 total_vtcm_read, total_vtcm_write, total_vtcm;  /* bytes */
    etp_qnn_i64 peak_vtcm_alloc;      /* bytes */
    etp_qnn_i64 unique_qnn_ops, qnn_nodes, unique_htp_ops, htp_nodes;
    uint32_t n_resources;
    etp_qnn_qhas_resource *resources; /* empty when htp_resources is absent */
} etp_qnn_qhas_overall;

typedef struct etp_qnn_qhas_op_type { /* data.qnn_op_types.data[i] / data.htp_op_types.data[i] */
    const char *op;                   /* required */
    etp_qnn_i64 cycles;
    etp_qnn_f64 percent_active_cycles;
    etp_qnn_i64 dominant_path_cycles; /* num_dominant_path_cycles_htp_0 */
    etp_qnn_f64 percent_dominant_path_cycles; /* percent_dominant_path_cycles_htp_0 */
    etp_qnn_i64 count;                /* num_htp_ops (qnn_op_types) / instances (htp_op_types) */
    etp_qnn_i64 dram_read, dram_write, vtcm_read, vtcm_write;
    etp_qnn_flag format_change, reference_op; /* htp_op_types only */
} etp_qnn_qhas_op_type;

typedef struct etp_qnn_qhas_node { /* data.qnn_op_instances_nodes.data[i]: one QNN op */
    const char *qnn_op;            /* required */
    const char *qnn_op_type;
    int64_t cycles;                /* required: thread-aggregate busy cycles */
    etp_qnn_f64 percent_active_cycles;
    etp_qnn_i64 dominant_path_cycles;          /* num_dominant_path_cycles_htp_0 */
    etp_qnn_f64 percent_dominant_path_cycles;  /* percent_dominant_path_cycles_htp_0 */
    etp_qnn_i64 num_htp_ops;
    etp_qnn_i64 dram_read, dram_write, vtcm_read, vtcm_write;
} etp_qnn_qhas_node;

typedef struct etp_qnn_qhas_instance { /* data.htp_op_instances.data[i]: one HTP op execution */
    uint64_t op_id;                    /* required (hex string or number) */
    const char *qnn_op;                /* required: owning QNN op name */
    int64_t cycles;                    /* required */
    const char *htp_op, *qnn_op_type, *dtype;
    etp_qnn_i64 htp, tid, start_cycle, num_dominant_path_cycles, rank, zero_offset;
    etp_qnn_f64 percent_dominant_path_cycles, step_size, cycles_per_packet;
    etp_qnn_flag hmx, hvx, dma, dma_set, dma_wait, sync, fmt_change, ref_op;
    uint32_t flags;                    /* ETP_QNN_F_* of the unit booleans that are true */
    etp_qnn_i64 dram_read, dram_write, vtcm_read, vtcm_write; /* bytes */
    bool has_dims;
    uint32_t n_dims;
    const int64_t *dims;
} etp_qnn_qhas_instance;

typedef struct etp_qnn_qhas_step { /* data.dominant_path_htp_<n>.data[i] */
    uint64_t op_id;
    bool has_op_id;
    const char *htp_op, *qnn_op;
    int64_t cycles;                /* required */
    etp_qnn_i64 dp_cycles, start_cycle, end_cycle;
    etp_qnn_flag partial;
    bool is_idle;                  /* the "Accumulated Idle" pseudo-op */
} etp_qnn_qhas_step;

typedef struct etp_qnn_qhas_path {
    uint32_t core; /* <n> of dominant_path_htp_<n> */
    uint32_t n_steps;
    etp_qnn_qhas_step *steps; /* in file order = critical-path order */
} etp_qnn_qhas_path;

enum { /* etp_qnn_qhas.sections: which sections were present */
    ETP_QNN_QHAS_OVERALL = 1u << 0,
    ETP_QNN_QHAS_QNN_OP_TYPES = 1u << 1,
    ETP_QNN_QHAS_NODES = 1u << 2,
    ETP_QNN_QHAS_HTP_OP_TYPES = 1u << 3,
    ETP_QNN_QHAS_INSTANCES = 1u << 4,
    ETP_QNN_QHAS_DOMINANT_PATH = 1u << 5,
};

typedef struct etp_qnn_qhas {
    json_t *root;            /* whole document (one reference held; json_incref to keep it) */
    etp_qnn_version version; /* header.version */
    const char *model_id;
    unsigned sections;
    uint32_t n_cores;        /* entries of htp_overall_summary.data */
    etp_qnn_qhas_overall overall; /* the first entry; valid when n_cores > 0 */
    uint32_t n_qnn_op_types;
    etp_qnn_qhas_op_type *qnn_op_types;
    uint32_t n_nodes;
    etp_qnn_qhas_node *nodes;
    uint32_t n_htp_op_types;
    etp_qnn_qhas_op_type *htp_op_types;
    uint32_t n_instances;
    etp_qnn_qhas_instance *instances;
    uint32_t n_paths;
    etp_qnn_qhas_path *paths; /* sorted by core */
    /* written by QNN's host-side estimator (Hextimate): its cycles and times are estimates
     * (docs/qnn.md, "Hextimate") */
    bool estimated;
    /* private */
    int64_t *dims_pool;
} etp_qnn_qhas;

int etp_qnn_read_qhas(const char *path, etp_qnn_qhas **out, etp_error *err);
/* The same from `len` bytes at `data` (copied), named `name` in errors. Every reader has such a
 * _mem twin (used by the fuzz targets and by callers that already hold the file). */
int etp_qnn_read_qhas_mem(const char *name, const void *data, size_t len, etp_qnn_qhas **out,
                          etp_error *err);
void etp_qnn_qhas_free(etp_qnn_qhas *q);

/* ---------------------------------------------------------------------------------------------
 * optrace (Chrome trace, OP_TRACE)
 * ------------------------------------------------------------------------------------------- */

typedef struct etp_qnn_trace_op { /* one HTP op, de-duplicated by args.ID */
    uint64_t id;                  /* args.ID (required) */
    const char *name;             /* event name = HTP op type (required) */
    const char *htp_op_type;      /* args."HTP Op Type" */
    const char *qnn_op;           /* args."QNN Op Name"; NULL for e.g. "Non Executed Tensors" */
    const char *qnn_op_type;      /* args."QNN Op Type" */
    const char *data_type;        /* args."Data Type" */
    int64_t pid, tid;             /* of the first occurrence; tid 256 = HMX, 512.. = HVX */
    int64_t ts, dur;              /* cycles (not us) */
    etp_qnn_i64 start_cycle;      /* args."Start Cycle" (absolute PCYCLE) */
    etp_qnn_i64 duration_cycles;  /* args."Duration (cycles)" */
    etp_qnn_i64 dominant_path_cycles; /* args."Dominant Path Cycles" */
    bool has_flags;               /* args.Flags present */
    uint32_t flags;               /* ETP_QNN_F_* */
    uint32_t n_other_flags;       /* Flags words not known to etprof */
    bool has_dims;
    uint32_t n_dims;
    const int64_t *dims;
    uint32_t occurrences;         /* X events carrying this ID (2 in the usual layout) */
} etp_qnn_trace_op;

typedef struct etp_qnn_trace_thread { /* M thread_name */
    int64_t pid, tid;
    const char *name; /* "Type: HMX", "Core:0 Type: HVX Tid: 513", ... */
} etp_qnn_trace_thread;

typedef struct etp_qnn_trace_process { /* M process_name / process_sort_index, merged by pid */
    int64_t pid;
    const char *name; /* "Core 0 Overview", "QNN::MatMul_2", ...; NULL if only sorted */
    uint64_t opid;
    bool has_opid;
    etp_qnn_i64 sort_index;
} etp_qnn_trace_process;

typedef enum etp_qnn_counter_kind {
    ETP_QNN_CTR_OTHER = 0,
    ETP_QNN_CTR_VTCM_ALLOC,
    ETP_QNN_CTR_VTCM_READ,
    ETP_QNN_CTR_VTCM_WRITE,
    ETP_QNN_CTR_DRAM_READ,
    ETP_QNN_CTR_DRAM_WRITE,
} etp_qnn_counter_kind;

typedef struct etp_qnn_counter_point {
    int64_t ts;   /* cycles, same origin as op ts */
    double value; /* bytes for the known counters */
} etp_qnn_counter_point;

typedef struct etp_qnn_trace_counter { /* C events of one name, in file order */
    const char *name;
    etp_qnn_counter_kind kind;
    uint32_t n_points;
    etp_qnn_counter_point *points;
    /* private */
    uint32_t cap;
} etp_qnn_trace_counter;

typedef struct etp_qnn_trace {
    etp_qnn_version version;
    uint32_t n_ops;
    etp_qnn_trace_op *ops; /* order of first appearance */
    uint32_t n_threads;
    etp_qnn_trace_thread *threads;
    uint32_t n_processes;
    etp_qnn_trace_process *processes;
    uint32_t n_counters;
    etp_qnn_trace_counter *counters;
    uint64_t n_events;        /* all traceEvents */
    uint64_t n_x_events;      /* X events before de-duplication */
    uint64_t n_dup_conflicts; /* duplicates whose dur or QNN op differed from the first copy */
    uint64_t n_flow_events;   /* s/f */
    uint64_t n_other_events;  /* other ph values (ignored) */
    /* private */
    void *pool;
    int64_t *dims_pool;
} etp_qnn_trace;

/* etp_qnn_read_optrace(), etp_qnn_trace_free(): include/etprof_qnn.h */
int etp_qnn_read_optrace_mem(const char *name, const void *data, size_t len, etp_qnn_trace **out,
                             etp_error *err);
/* The thread name of (pid, tid), or NULL. */
const char *etp_qnn_trace_thread_name(const etp_qnn_trace *t, int64_t pid, int64_t tid);
/* The counter series of a kind, or NULL. */
const etp_qnn_trace_counter *etp_qnn_trace_counter_get(const etp_qnn_trace *t,
                                                       etp_qnn_counter_kind kind);

/* ---------------------------------------------------------------------------------------------
 * runtrace (RUN_TRACE)
 * ------------------------------------------------------------------------------------------- */

#define ETP_QNN_TICK_HZ 19200000.0 /* runtrace ts/dur and two "us" QNN events are QTimer ticks */

typedef enum etp_qnn_phase_kind {
    ETP_QNN_PHASE_DSP_EXECUTE = 0, /* "QNN DSP Execute" */
    ETP_QNN_PHASE_VTCM_ACQUIRE,    /* "VTCM Acquire" */
    ETP_QNN_PHASE_POWER_ON,        /* "Resource Power On" */
    ETP_QNN_PHASE_GRAPH_EXECUTE,   /* "Graph Execute" */
    ETP_QNN_PHASE_OTHER,           /* any other X name */
} etp_qnn_phase_kind;
#define ETP_QNN_PHASE_KNOWN 4

typedef struct etp_qnn_rt_phase {
    etp_qnn_phase_kind kind;
    const char *name;
    int64_t ts, dur; /* 19.2 MHz ticks */
    const char *graph_name;
    etp_qnn_i64 stat_start_ticks, stat_end_ticks, stat_start_cycles, stat_end_cycles;
    etp_qnn_f64 htp_frequency_ghz; /* args.summary_htp_frequency_ghz */
    etp_qnn_f64 inf_per_s;         /* args."summary_inf/s" */
    etp_qnn_f64 time_us;           /* args.summary_time_us (= dur / 19.2) */
} etp_qnn_rt_phase;

typedef struct etp_qnn_rt_execute {
    int32_t phase[ETP_QNN_PHASE_KNOWN]; /* index into phases[] per known kind, -1 if missing */
    uint32_t first, count;              /* its phases, phases[first .. first+count) */
} etp_qnn_rt_execute;

typedef struct etp_qnn_runtrace {
    etp_qnn_version version;
    uint32_t n_phases;
    etp_qnn_rt_phase *phases; /* file order */
    uint32_t n_executes;
    etp_qnn_rt_execute *executes;
    const char *thread_name, *process_name; /* first M names seen, or NULL */
    /* private */
    void *pool;
} etp_qnn_runtrace;

int etp_qnn_read_runtrace(const char *path, etp_qnn_runtrace **out, etp_error *err);
int etp_qnn_read_runtrace_mem(const char *name, const void *data, size_t len,
                              etp_qnn_runtrace **out, etp_error *err);
void etp_qnn_runtrace_free(etp_qnn_runtrace *r);
/* Phase `kind` of execute `exec`, or NULL. */
const etp_qnn_rt_phase *etp_qnn_runtrace_phase(const etp_qnn_runtrace *r, uint32_t exec,
                                               etp_qnn_phase_kind kind);

/* ---------------------------------------------------------------------------------------------
 * Heap profiling file (ExecuTorch ProfileDataToFile)
 * ------------------------------------------------------------------------------------------- */

typedef struct etp_qnn_heap {
    etp_qnn_i64 before; /* DSP:before_context_created (bytes); always present after a read */
    etp_qnn_i64 after;  /* DSP:after_context_freed (bytes); absent if the line is missing */
    etp_qnn_i64 delta;  /* after - before, when both are present */
} etp_qnn_heap;

int etp_qnn_read_heap(const char *path, etp_qnn_heap **out, etp_error *err);
int etp_qnn_read_heap_mem(const char *name, const void *data, size_t len, etp_qnn_heap **out,
                          etp_error *err);
void etp_qnn_heap_free(etp_qnn_heap *h);

/* ---------------------------------------------------------------------------------------------
 * qnn-profile-viewer text log and CSV
 * ------------------------------------------------------------------------------------------- */



/* ---------------------------------------------------------------------------------------------
 * ETDump / viewer node names
 * ------------------------------------------------------------------------------------------- */


/* ---------------------------------------------------------------------------------------------
 * Derived results (qnn_merge.c)
 * ------------------------------------------------------------------------------------------- */


/* etp_qnn_source, the optional values, the viewer, node names, the derived rows and summary,
 * the optrace/QHAS check: include/etprof_qnn.h (public). */


typedef struct etp_qnn_sources { /* any may be NULL */
    const etp_qnn_qhas *qhas;
    const etp_qnn_trace *trace;
    const etp_qnn_runtrace *runtrace;
    const etp_qnn_heap *heap;
} etp_qnn_sources;


int etp_qnn_derive(const etp_qnn_sources *src, etp_qnn_derived **out, etp_error *err);
void etp_qnn_derived_free(etp_qnn_derived *d);


/* ETDump-side node (from etp_qnn_parse_node_name). */
typedef struct etp_qnn_etdump_node {
    const char *name;  /* QNN op name ("Input"/"Output" for those); NULL for unnamed system ops */
    size_t name_len;
    uint32_t op_id;
    int64_t cycles;
} etp_qnn_etdump_node;

typedef struct etp_qnn_join_pair {
    uint32_t node;  /* index into the ETDump nodes */
    uint32_t row;   /* index into the rows */
    bool by_id;     /* matched on OpId (else on name alone) */
    bool same_name; /* names agree (false also when the node is unnamed) */
} etp_qnn_join_pair;

typedef struct etp_qnn_join {
    uint32_t n_pairs;
    etp_qnn_join_pair *pairs;  /* in node order */
    uint32_t n_node_only;
    uint32_t *node_only;       /* node indices without a row */
    uint32_t n_row_only;
    uint32_t *row_only;        /* row indices without a node */
} etp_qnn_join;

/* Matching: a node takes an unmatched row with the same OpId, preferring one with the same name
 * (an unnamed node takes the first); nodes left over then match unmatched rows by name alone. */
int etp_qnn_join_nodes(const etp_qnn_etdump_node *nodes, uint32_t n_nodes,
                       const etp_qnn_op_row *rows, uint32_t n_rows, etp_qnn_join **out,
                       etp_error *err);
void etp_qnn_join_free(etp_qnn_join *j);

/* The node events of a viewer block as ETDump-side nodes (strings borrow from `block`). */
int etp_qnn_viewer_nodes(const etp_qnn_stat_block *block, etp_qnn_etdump_node **out,
                         uint32_t *n_out, etp_error *err);

/* ---------------------------------------------------------------------------------------------
 * Helpers shared by the qnn_*.c units (defined in qnn_qhas.c); not for other callers.
 * ------------------------------------------------------------------------------------------- */

/* Reads a whole file ("-" = stdin) into a NUL-terminated heap buffer. Directories and unreadable
 * files -> ETP_E_IO. */
int etp_qnn_slurp(const char *path, char **buf, size_t *len, etp_error *err);

/* Where a reader's bytes come from: the file `name` (data NULL), or `len` bytes at `data`. */
/* Default budget of the JSON readers, in values and keys (docs/qnn-inputs.md "Memory"). */
#define ETP_QNN_JSON_MAX_VALUES ((uint64_t)8 << 20)

typedef struct etp_qnn_src {
    const char *name;
    const void *data;
    size_t len;
} etp_qnn_src;

/* etp_qnn_slurp of the file, or a NUL-terminated heap copy of the memory. */
int etp_qnn_load(const etp_qnn_src *src, char **buf, size_t *len, etp_error *err);

/* Defines the public pair etp_qnn_read_<kind>(path, ...) and etp_qnn_read_<kind>_mem(name, data,
 * len, ...) over `static int fn(const etp_qnn_src *, type **, etp_error *)`. */
#define ETP_QNN_READER_ENTRIES(kind, type, fn)                                                    \
    int etp_qnn_read_##kind(const char *path, type **out, etp_error *err) {                       \
        etp_qnn_src src = {path, NULL, 0};                                                        \
        return fn(&src, out, err);                                                                \
    }                                                                                             \
    int etp_qnn_read_##kind##_mem(const char *name, const void *data, size_t len, type **out,     \
                                  etp_error *err) {                                               \
        etp_qnn_src src = {name, data ? data : "", len};                                          \
        return fn(&src, out, err);                                                                \
    }

/* JSON location context: `path` grows and shrinks as the reader descends ("a.b[3].c"; a key
 * that is empty or holds '.', '[', ']' or '"' is written ["key"]). */
typedef struct etp_qnn_jctx {
    const char *file;
    etp_error *err;
    size_t len;
    char path[ETP_ERR_PATH_MAX];
} etp_qnn_jctx;

void etp_qnn_jctx_init(etp_qnn_jctx *c, const char *file, etp_error *err);
size_t etp_qnn_jpush_key(etp_qnn_jctx *c, const char *key);  /* returns the mark to pop to */
size_t etp_qnn_jpush_index(etp_qnn_jctx *c, size_t index);
void etp_qnn_jpop(etp_qnn_jctx *c, size_t mark);
/* Sets ETP_E_INPUT at the current path (+ ".key" when key != NULL); returns ETP_E_INPUT. */
int etp_qnn_jfail(etp_qnn_jctx *c, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int etp_qnn_jnomem(etp_qnn_jctx *c);
const char *etp_qnn_json_type_name(const json_t *v);

/* Loads `src`, checks that it is a JSON object whose header.artifact_type equals `artifact`,
 * reads header.version into *version. */
int etp_qnn_json_open(const etp_qnn_src *src, const char *artifact, json_t **root,
                      etp_qnn_version *version, etp_error *err);

/* Typed member getters: `required` missing -> error; present with the wrong type -> error;
 * absent/null optional -> out->has = false (strings: NULL). Strings borrow from `obj`. */
int etp_qnn_jget_i64(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                     etp_qnn_i64 *out);
int etp_qnn_jget_f64(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                     etp_qnn_f64 *out);
int etp_qnn_jget_bool(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                      etp_qnn_flag *out);
int etp_qnn_jget_str(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                     const char **out);
int etp_qnn_jget_opid(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                      uint64_t *out, bool *has);
int etp_qnn_jget_obj(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                     json_t **out);
int etp_qnn_jget_arr(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                     json_t **out);
/* Parses "0x<hex>" (1..16 digits) or a decimal string; false when malformed. */
bool etp_qnn_parse_opid_str(const char *s, uint64_t *out);

/* Interning string pool: equal strings are stored once. */
void *etp_qnn_pool_new(void);
const char *etp_qnn_pool_intern(void *pool, const char *s, size_t len); /* NULL on OOM */
void etp_qnn_pool_free(void *pool);

/* Grows *ptr (elements of `elem` bytes) so that it holds at least `need`; 0 or ETP_E_INTERNAL. */
int etp_qnn_grow(void *ptr, uint32_t *cap, uint32_t need, size_t elem);

#ifdef __cplusplus
}
#endif
#endif /* ETPROF_QNN_H */
