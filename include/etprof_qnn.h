/*
 * etprof_qnn.h - the public QNN API of libetprof: QNN's own profiling files (QHAS analysis
 * summary, optrace Chrome trace, runtrace, DSP heap log, qnn-profile-viewer output) loaded
 * together and the analyses `etprof qnn` shows, as typed results with explicit units.
 *
 * Conventions (as in etprof.h)
 *  - Functions that can fail return 0 (ETP_OK) or a negative ETP_E_* code and fill an etp_error
 *    with the file, byte offset, field path and reason (located, one line).
 *  - The QNN file objects (etp_qnn_qhas, etp_qnn_trace, etp_qnn_runtrace, etp_qnn_heap) are
 *    opaque here: obtained from the library, read through the functions below, freed by the
 *    function named with them. The results (etp_qnn_derived: rows and summary; the
 *    qnn-profile-viewer blocks and events; node names) are typed structs, read-only to the
 *    caller; their "private" members are not part of the API.
 *  - Strings in results point into the object they were computed from (the bundle) and live as
 *    long as it does.
 *  - Thread safety: the library keeps no global mutable state for these functions. A loaded
 *    bundle and the results computed from it are read-only and may be shared between threads;
 *    loading, computing and freeing need no lock beyond not freeing an object another thread reads.
 *  - Cycles are HTP processor cycles; "busy" cycles are work summed over the hardware threads,
 *    the timeline is the graph's wall span on the HTP.
 */
#ifndef ETPROF_QNN_PUBLIC_H
#define ETPROF_QNN_PUBLIC_H

#include "etprof.h"
#include "etprof_result.h" /* etp_doc, etp_format: etp_qnn_viewer_doc */

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

/* Opaque QNN file objects (their layout is private to the library). */
typedef struct etp_qnn_qhas etp_qnn_qhas;         /* QHAS analysis summary JSON */
typedef struct etp_qnn_trace etp_qnn_trace;       /* optrace (Chrome trace JSON) */
typedef struct etp_qnn_runtrace etp_qnn_runtrace; /* runtrace (Chrome trace JSON) */
typedef struct etp_qnn_heap etp_qnn_heap;         /* DSP heap usage log */
typedef struct etp_qnn_derived etp_qnn_derived;   /* the per-QNN-op rows and the summary (below) */
typedef struct etp_qnn_stat_block etp_qnn_stat_block; /* one qnn-profile-viewer block (below) */
typedef struct etp_qnn_stat_event etp_qnn_stat_event; /* one event line of a block (below) */

/* ---------------------------------------------------------------------------------------------
 * Loading: a set of QNN files in one call
 * ------------------------------------------------------------------------------------------- */

/* The QNN files of one analysis; each NULL when not given. */
typedef struct etp_qnn_paths {
    const char *qhas, *optrace, *runtrace, *heap;
} etp_qnn_paths;

/* The files read and what is derived from them. Owned by the caller: release with
 * etp_qnn_bundle_free(). Read-only after etp_qnn_bundle_load() returns. */
typedef struct etp_qnn_bundle {
    etp_qnn_qhas *qhas;
    etp_qnn_trace *trace;
    etp_qnn_runtrace *runtrace;
    etp_qnn_heap *heap;
    etp_qnn_derived *der; /* derived from the files above; NULL when no file was given */
} etp_qnn_bundle;

/* How many per-QNN-op rows `d` holds (0 for NULL). */
uint32_t etp_qnn_derived_row_count(const etp_qnn_derived *d);

/* True when any path is set. */
bool etp_qnn_paths_any(const etp_qnn_paths *p);
/* Reads every file given (in the order QHAS, optrace, runtrace, heap; the first rejected one
 * fails the call with its located error: ETP_E_INPUT or ETP_E_IO; ETP_E_INTERNAL when out of
 * memory) and derives the rows and the summary. On failure *b is left empty. */
int etp_qnn_bundle_load(const etp_qnn_paths *p, etp_qnn_bundle *b, etp_error *err);
/* Frees what the bundle holds and empties it; safe on an empty bundle and on NULL. */
void etp_qnn_bundle_free(etp_qnn_bundle *b);

/* The HTP clock for cycle -> time estimates, GHz: `given_ghz` when > 0 (source "htp-clock-ghz"),
 * else the bundle's (source "runtrace": measured, or "qhas": timeline_cycles /
 * graph_execute_us, "qhas-estimated" when that QHAS was estimated on the host by Hextimate). NaN (source NULL) when none is known. `b` may be NULL. The source is a
 * static string. */
double etp_qnn_clock(double given_ghz, const etp_qnn_bundle *b, const char **source);
/* What a clock source means, one phrase (static string); for NULL: how to get one. */
const char *etp_qnn_clock_meaning(const char *source);


/* The one sentence every view shows when the summary and the rows cover different scopes: a
 * QHAS of several HTP cores (`htp_cores` = etp_qnn_summary.htp_cores). Written into buf
 * (NUL-terminated, truncated to n); returns false (buf empty) for 0 or 1 core. */
bool etp_qnn_scope_note(uint32_t htp_cores, char *buf, size_t n);

/* ---------------------------------------------------------------------------------------------
 * HMX / HVX / DMA use: the one definition of the op counts (qnn, explain, report)
 * ------------------------------------------------------------------------------------------- */

/* How many QNN ops use each HTP unit: an op uses a unit when any of its HTP ops does (QHAS
 * htp_op_instances flags, or optrace Flags; dma = dma, dma_set or dma_wait). All counts. */
typedef struct etp_qnn_unit_counts {
    uint32_t qnn_ops;          /* derived rows (QNN ops) */
    uint32_t htp_ops;          /* HTP ops over all rows */
    uint32_t hmx, hvx, dma;    /* ops using HMX / HVX / DMA (an op may count in several) */
    uint32_t hmx_and_hvx;      /* ops using both HMX and HVX */
    uint32_t dma_only;         /* ops using DMA and neither HMX nor HVX */
    uint32_t none;             /* ops using none of the three */
} etp_qnn_unit_counts;

/* Counts over `d`'s rows into *out; all zero when `d` is NULL. Cannot fail. */
void etp_qnn_unit_counts_get(const etp_qnn_derived *d, etp_qnn_unit_counts *out);

/* ---------------------------------------------------------------------------------------------
 * Per-QNN-op rows: the order `etprof qnn --sort/--top` shows
 * ------------------------------------------------------------------------------------------- */

/* True for a sort key of the rows: "order" (file order), the numeric keys "cycles", "share",
 * "dominant_path_cycles", "htp_ops", "dram_read_bytes", "dram_write_bytes", "vtcm_read_bytes",
 * "vtcm_write_bytes", "etdump_cycles", "op_id", and the text keys "qnn_op", "qnn_op_type". */
bool etp_qnn_rows_sort_key_valid(const char *key);
/* The rows of `d` sorted by `key`: numeric keys largest first except "op_id" (smallest first),
 * rows without the value (bytes without QHAS, unknown OpId, no ETDump match) last; text keys
 * ascending (strcmp, absent = ""); "order" keeps file order; equal keys keep file order.
 * `etdump_cycles` (one value per row, NaN when none; may be NULL = all NaN) is the ETDump p50 of
 * the "etdump_cycles" key. Fills idx[] (room for every row) with at most `top` rows (0: all) and
 * *n with their count. ETP_OK; ETP_E_USAGE for an unknown key; ETP_E_INTERNAL when out of memory
 * (*n = 0 on failure). Reentrant: keeps no state between calls. */
int etp_qnn_rows_sorted(const etp_qnn_derived *d, const double *etdump_cycles, const char *key,
                        uint32_t top, uint32_t *idx, uint32_t *n);

/* ---------------------------------------------------------------------------------------------
 * Critical (dominant) path, by QNN op
 * ------------------------------------------------------------------------------------------- */

typedef struct etp_qnn_cp_op {
    const char *qnn_op;    /* the step's QNN op name, else its HTP op name, else "?" */
    int64_t dp_cycles;     /* cycles the op contributes to the path, summed over its steps
                              (a step's dp_cycles, or its cycles when the file has none) */
    uint32_t steps;        /* path steps of this op */
    double share_percent;  /* dp_cycles / span_cycles x 100, %; NaN when span_cycles <= 0 */
} etp_qnn_cp_op;

typedef struct etp_qnn_critical_path {
    bool present;          /* false: the files have no dominant path (the rest is zero/NULL) */
    const char *source;    /* "qhas" (dominant_path_htp_<first core>) or "optrace"; NULL */
    uint32_t steps;        /* steps on the path, the "Accumulated Idle" steps left out */
    int64_t path_cycles;   /* sum of the steps' dp cycles, cycles */
    int64_t idle_cycles;   /* sum of the left-out idle steps' dp cycles, cycles */
    int64_t span_cycles;   /* the share denominator, cycles: the timeline when known and > 0,
                              else path_cycles + idle_cycles */
    uint32_t n_ops;
    etp_qnn_cp_op *ops;    /* one per QNN op on the path, largest dp_cycles first; equal
                              dp_cycles keep the order of first appearance on the path */
} etp_qnn_critical_path;

/* Computes the critical path of `d` (which must outlive the result: names point into it).
 * ETP_OK (*out set, present=false when there is no path or `d` is NULL), or ETP_E_INTERNAL when
 * out of memory (*out NULL). Free with etp_qnn_critical_path_free(). */
int etp_qnn_critical_path_get(const etp_qnn_derived *d, etp_qnn_critical_path **out,
                              etp_error *err);
void etp_qnn_critical_path_free(etp_qnn_critical_path *p);

/* ---------------------------------------------------------------------------------------------
 * qnn-profile-viewer executes: node sums, shares, wall-time estimates
 * ------------------------------------------------------------------------------------------- */

/* The factor of the QTimer: "Time for initial VTCM acquire" and "Time for HVX + HMX power on and
 * acquire" are written in 19.2 MHz ticks despite their "us" label. */
#define ETP_QNN_QTIMER_TICKS_PER_US 19.2

typedef struct etp_qnn_viewer_sums {
    bool has_parent;          /* the block has "Accelerator (execute) time (cycles)" with a value */
    int64_t parent_cycles;    /* its value, cycles (0 without a parent) */
    int64_t node_cycles_sum;  /* sum of the node events' values, cycles */
    uint32_t node_count;      /* node events with a value */
    double excl_wait_us;      /* "Accelerator (execute excluding wait) time", us; NaN if absent */
    bool comparable;          /* has_parent and node_count > 0 */
    bool nodes_equal_parent;  /* comparable and node_cycles_sum == parent_cycles */
} etp_qnn_viewer_sums;

/* Sums of one block (an execute) into *out. Cannot fail. */
void etp_qnn_viewer_sums_get(const etp_qnn_stat_block *b, etp_qnn_viewer_sums *out);
/* A node event's share of the parent cycles, %; NaN when `e` is not a node, has no value, or the
 * parent is missing or not positive. */
double etp_qnn_viewer_node_share(const etp_qnn_viewer_sums *s, const etp_qnn_stat_event *e);
/* A node event's wall-time ESTIMATE, us: its share of the parent cycles x the excluding-wait
 * time (the NPU compute wall time apportioned by cycle share); NaN when either is unknown. */
double etp_qnn_viewer_wall_est_us(const etp_qnn_viewer_sums *s, const etp_qnn_stat_event *e);
/* True when `e` is a top-level "us" event that is really QTimer ticks (see above). */
bool etp_qnn_viewer_is_qtimer_ticks(const etp_qnn_stat_event *e);
/* The event's value in its unit, ticks converted to us; NaN when it has no value. */
double etp_qnn_viewer_event_value(const etp_qnn_stat_event *e);

/* ---------------------------------------------------------------------------------------------
 * Per-node wall-time estimate of an ETDump QNN partition
 * ------------------------------------------------------------------------------------------- */

/* For a cycles row of a QNN partition (an HTP node or "Accelerator (execute) time (cycles)"):
 * ns of "Accelerator (execute excluding wait) time" per cycle, i.e. the partition's excluding-
 * wait total over its Accelerator (execute) time (cycles) total over the runs kept. A node's
 * cycles times this factor apportion the NPU compute wall time by cycle share: an ESTIMATE.
 * NaN when the row is not such a row or either total is missing or not positive. */
double etp_qnn_wall_ns_per_cycle(const etp_ops_result *r, size_t row);

/* ---------------------------------------------------------------------------------------------
 * Typed results: optional values, qnn-profile-viewer files, node names, the derived rows
 * ------------------------------------------------------------------------------------------- */

/* An optional value: `has` false when the file has no such value (key absent or null). */
typedef struct etp_qnn_i64 {
    int64_t v;
    bool has; /* false: key absent (or null); v is then 0 and meaningless */
} etp_qnn_i64;

typedef struct etp_qnn_f64 {
    double v;
    bool has;
} etp_qnn_f64;

typedef enum etp_qnn_unit {
    ETP_QNN_UNIT_NONE = 0, /* no unit given */
    ETP_QNN_UNIT_US,
    ETP_QNN_UNIT_CYCLES,
    ETP_QNN_UNIT_COUNT,
    ETP_QNN_UNIT_BYTES,
    ETP_QNN_UNIT_OBJECT,
    ETP_QNN_UNIT_OTHER, /* see unit_text */
} etp_qnn_unit;

typedef enum etp_qnn_stat_kind {
    ETP_QNN_STAT_OTHER = 0,
    ETP_QNN_STAT_INIT,     /* "Init Stats", "Create From Binary Stats", CSV INIT */
    ETP_QNN_STAT_COMPOSE,  /* "Compose Graphs Stats", CSV COMPOSE GRAPHS */
    ETP_QNN_STAT_FINALIZE, /* "Finalize Stats", CSV FINALIZE */
    ETP_QNN_STAT_EXECUTE,  /* "Execute Stat N", CSV EXECUTE */
    ETP_QNN_STAT_DEINIT,   /* "De-Init Stats", CSV DE-INIT */
} etp_qnn_stat_kind;

typedef struct etp_qnn_stat_event {
    const char *identifier; /* e.g. "Accelerator (execute) time (cycles)", "Input OpId_2 (cycles)" */
    bool has_value;         /* false for valueless lines ("Unknown event type :   object") */
    int64_t value;          /* the value (truncated toward zero if it was not an integer) */
    double fvalue;          /* the value as written */
    etp_qnn_unit unit;
    const char *unit_text;  /* unit word as written ("us", "CYCLES"), "" when none */
    bool is_node;           /* indented sub-event (text) / SUB-EVENT (CSV) */
    uint32_t line;          /* 1-based line in the file */
} etp_qnn_stat_event;

typedef struct etp_qnn_stat_block {
    etp_qnn_stat_kind kind;
    const char *title;      /* text: "Execute Stat 1", "Init Stats"; CSV: the Message column */
    uint32_t index;         /* 1-based ordinal among blocks of the same kind */
    etp_qnn_i64 timestamp;  /* CSV Msg Timestamp (absent in text logs or when not a number) */
    etp_qnn_i64 netrun_us;  /* text "NetRun: N us"; CSV NETRUN row (in its unit) */
    const char *label;      /* CSV NETRUN identifier when not "null" ("Graph 0: name") */
    uint32_t n_events;      /* backend events (NETRUN rows excluded) */
    etp_qnn_stat_event *events;
    uint32_t line;
    /* QNN 2.13-style text logs ("Execute Stats (Average):", "Graph 0 (model):", ...) */
    const char *aggregate;  /* "Average", "Min", "Max", "Overall" for "Execute Stats (<X>):"
                               blocks (kind ETP_QNN_STAT_OTHER, in stats[]); NULL otherwise */
    const char *graph_name; /* "model" from a "Graph 0 (model):" line in the block; NULL if none */
    etp_qnn_i64 graph_index;        /* the 0 of "Graph 0 (model):" */
    bool total_inference;           /* the block holds a "Total Inference Time:" heading */
    etp_qnn_f64 netrun_ips;         /* "NetRun IPS: 214.8888 inf/sec" (inferences per second) */
} etp_qnn_stat_block;

typedef enum etp_qnn_viewer_format {
    ETP_QNN_VIEWER_TEXT = 1,
    ETP_QNN_VIEWER_CSV = 2
} etp_qnn_viewer_format;

typedef struct etp_qnn_viewer {
    etp_qnn_viewer_format format;
    const char *input_log;       /* "Input Log File Location" / "input log file location" */
    const char *log_created;     /* text only */
    const char *viewer_version, *netrun_version, *backend_version;
    etp_qnn_f64 time_scale;      /* text "Time Scale" */
    etp_qnn_i64 epoch_timestamp, steady_clock_timestamp; /* text */
    uint32_t n_executes;
    etp_qnn_stat_block *executes; /* EXECUTE blocks in file order */
    uint32_t n_stats;
    etp_qnn_stat_block *stats;    /* every other block in file order */
    /* Sections etprof does not know, skipped with their lines (text only): the heading as
       written and its line number; the first ETP_QNN_VIEWER_SKIPPED_MAX are kept, n_skipped
       counts all. */
    uint32_t n_skipped;
    const char *skipped[8];
    uint32_t skipped_line[8];
    /* private */
    void *pool;
    etp_qnn_stat_event *event_pool;
} etp_qnn_viewer;

#define ETP_QNN_VIEWER_SKIPPED_MAX 8
int etp_qnn_read_viewer_text(const char *path, etp_qnn_viewer **out, etp_error *err);
int etp_qnn_read_viewer_csv(const char *path, etp_qnn_viewer **out, etp_error *err);
/* Chooses CSV when the first non-empty line is the CSV preamble or header, else text. */
int etp_qnn_read_viewer(const char *path, etp_qnn_viewer **out, etp_error *err);
/* format: 0 = choose as etp_qnn_read_viewer does, else an etp_qnn_viewer_format. */
int etp_qnn_read_viewer_mem(const char *name, const void *data, size_t len, int format,
                            etp_qnn_viewer **out, etp_error *err);
void etp_qnn_viewer_free(etp_qnn_viewer *v);
/* The result document of `etprof qnn --profile-log/--profile-csv PATH` for viewer output v (read
 * from PATH): the JSON facts (format, versions, executes with their top-level events and nodes --
 * share of Accelerator (execute) time (cycles) and wall-time estimate --, other statistics,
 * skipped sections, notes), the event table with its notes (the doc's flat table: csv, tsv,
 * jsonl), and for fmt table or md a "viewer" section with its heading and the table. Render it
 * with etp_doc_render (include/etprof_result.h); free with etp_doc_free. NULL when out of
 * memory. */
etp_doc *etp_qnn_viewer_doc(const etp_qnn_viewer *v, const char *path, etp_format fmt);
/* Writes an optional value into a result node: the number, or JSON null when absent. */
void etp_qnn_node_i64(etp_node *n, const char *key, etp_qnn_i64 v);
void etp_qnn_node_f64(etp_node *n, const char *key, etp_qnn_f64 v);
/* The event of `block` whose identifier is `identifier`, or NULL. */
const etp_qnn_stat_event *etp_qnn_stat_find(const etp_qnn_stat_block *block,
                                            const char *identifier);

typedef enum etp_qnn_node_kind {
    ETP_QNN_NODE_NONE = 0, /* not a node name */
    ETP_QNN_NODE_NAMED,    /* "<qnn op>:OpId_<n> (cycles)" */
    ETP_QNN_NODE_INPUT,    /* "Input OpId_<n> (cycles)" */
    ETP_QNN_NODE_OUTPUT,   /* "Output OpId_<n> (cycles)" */
    ETP_QNN_NODE_SYSTEM,   /* "OpId_<n> (cycles)": unnamed system op */
} etp_qnn_node_kind;

typedef struct etp_qnn_node_name {
    etp_qnn_node_kind kind;
    const char *name; /* NAMED: points into the input (not NUL-terminated at name_len);
                         INPUT/OUTPUT: "Input"/"Output"; SYSTEM/NONE: NULL */
    size_t name_len;
    uint32_t op_id;   /* the <n> (decimal, fits 32 bits) */
} etp_qnn_node_name;

/* Classifies an ETDump delegate event name / viewer node identifier. `out` may be NULL. */
etp_qnn_node_kind etp_qnn_parse_node_name(const char *name, etp_qnn_node_name *out);

/* The words `etprof qnn --profile-log/--profile-csv` writes for these (JSON "kind", "unit";
 * docs/qnn-inputs.md), static strings: a node name's kind "named", "input", "output", "system",
 * else "other"; a block's kind "init", "compose", "finalize", "execute", "deinit", else "other";
 * an event's unit "us", "cycles", "count", "bytes", "object", its unit_text for
 * ETP_QNN_UNIT_OTHER (then it lives as long as the viewer), NULL when it has none (or e NULL). */
const char *etp_qnn_node_kind_name(etp_qnn_node_kind k);
const char *etp_qnn_stat_kind_name(etp_qnn_stat_kind k);
const char *etp_qnn_event_unit_name(const etp_qnn_stat_event *e);

/* The per-QNN-op rows and the summary derived from the QNN files (etp_qnn_bundle.der). */
/* Which file a figure came from. */
typedef enum etp_qnn_source {
    ETP_QNN_SRC_NONE = 0,
    ETP_QNN_SRC_QHAS,
    ETP_QNN_SRC_OPTRACE,
    ETP_QNN_SRC_RUNTRACE,
} etp_qnn_source;
/* "qhas", "optrace", "runtrace"; NULL for ETP_QNN_SRC_NONE. */
const char *etp_qnn_source_name(etp_qnn_source s);
/* Where an execute time of the summary comes from, one phrase (static string) for its label:
 * `graph` selects the graph-execute time (else the DSP-execute time), `src` and `estimated` are
 * the summary's (graph_execute_source / dsp_execute_source, estimated). */
/* The sentence every view shows when the QHAS was estimated on the host (summary.estimated). */
#define ETP_QNN_ESTIMATED_NOTE                                                                     \
    "the QHAS was estimated on the host by QNN's Hextimate, not measured on a device: its "        \
    "cycles, times, utilization and bytes are estimates"
const char *etp_qnn_exec_time_meaning(etp_qnn_source src, bool graph, bool estimated);

typedef struct etp_qnn_op_row { /* one QNN op */
    const char *qnn_op;
    uint32_t op_id;            /* low 32 bits of the HTP op IDs = ETDump OpId_<n> */
    bool has_op_id;            /* false: QHAS node without HTP op instances (id unknown) */
    bool op_id_conflict;       /* its HTP ops disagree on the low 32 bits (first one kept) */
    const char *qnn_op_type;   /* NULL if unknown */
    int64_t cycles;            /* sum of its HTP op cycles (thread-aggregate) */
    int64_t dominant_path_cycles;
    double share;              /* cycles / total cycles of all rows, % */
    bool hmx, hvx, dma;        /* any HTP op uses the unit; dma = dma || dma_set || dma_wait */
    uint32_t htp_ops;          /* HTP op count */
    bool has_bytes;            /* the byte fields below are known (QHAS source only) */
    int64_t dram_read_bytes, dram_write_bytes, vtcm_read_bytes, vtcm_write_bytes;
    int64_t hmx_cycles, hvx_cycles, dma_cycles; /* sums of cycles of HTP ops using the unit */
} etp_qnn_op_row;

typedef struct etp_qnn_thread_busy {
    int64_t tid;
    const char *type;     /* "HMX", "HVX", or NULL when unknown */
    int64_t busy_cycles;
    etp_qnn_f64 share;    /* busy / timeline cycles, % */
} etp_qnn_thread_busy;

typedef struct etp_qnn_dp_op { /* one step of the dominant (critical) path */
    const char *htp_op, *qnn_op;
    uint64_t op_id;
    bool has_op_id;
    int64_t cycles;            /* the op's cycles */
    etp_qnn_i64 dp_cycles;     /* cycles it contributes to the path */
    etp_qnn_i64 start_cycle;
    bool partial;
} etp_qnn_dp_op;

typedef struct etp_qnn_summary {
    etp_qnn_source source;          /* QHAS, else optrace (computed), else NONE */
    etp_qnn_f64 utilization_percent, idle_percent;
    etp_qnn_i64 graph_execute_us, time_us;  /* QHAS only */
    etp_qnn_i64 timeline_cycles;
    etp_qnn_f64 clock_ghz;
    etp_qnn_source clock_source;    /* RUNTRACE, QHAS (timeline / graph_execute_us) or NONE */
    etp_qnn_i64 peak_vtcm_bytes;
    etp_qnn_i64 dram_read_bytes, dram_write_bytes, vtcm_read_bytes, vtcm_write_bytes; /* QHAS */
    etp_qnn_i64 hmx_busy_cycles;    /* sum over HMX threads: the thread's busy cycles, which hold
                                     * the DMA and sync ops it runs as well as HMX compute */
    etp_qnn_f64 hmx_busy_share;     /* hmx_busy / timeline, % */
    etp_qnn_i64 hvx_busy_cycles;    /* sum over HVX threads */
    uint32_t hvx_threads;
    etp_qnn_f64 hvx_busy_share;     /* hvx_busy / (timeline x hvx_threads), % = mean HVX load */
    uint32_t n_threads;
    etp_qnn_thread_busy *threads;
    etp_qnn_source dominant_source; /* QHAS (dominant_path_htp_<first core>) or OPTRACE */
    uint32_t n_dominant;
    etp_qnn_dp_op *dominant;        /* ordered, "Accumulated Idle" skipped */
    int64_t dominant_dp_cycles;     /* sum of dp_cycles of those steps */
    int64_t dominant_idle_cycles;   /* sum of the skipped idle steps' dp_cycles */
    etp_qnn_i64 heap_before_bytes, heap_after_bytes, heap_delta_bytes;
    /* HMX compute: the cycles of the HTP ops that use HMX (QHAS htp_op_instances flags, or
     * optrace Flags uses_hmx), summed over the rows (their hmx_cycles); what the HMX unit did,
     * where hmx_busy_cycles is its thread's whole busy time. Unknown without rows, or when a
     * row has no HTP op (a QHAS node without instances: its flags are not known). */
    etp_qnn_i64 hmx_op_cycles;
    etp_qnn_f64 hmx_op_share;       /* hmx_op_cycles / timeline, %; unknown with several cores */
    /* HTP cores the QHAS describes (entries of htp_overall_summary; 0 without a QHAS). With
     * more than one, the summary's figures are the first core's while the rows hold every
     * core's HTP ops (etp_qnn_scope_note says so). */
    uint32_t htp_cores;
    /* The graph-execute and DSP-execute times, each with the file it comes from: the first
     * execute's runtrace phase ("Graph Execute", "QNN DSP Execute": dur / 19.2 MHz, to the tick)
     * when a runtrace is given, else the QHAS's graph_execute_us / time_us (whole us: the QHAS
     * truncates its run's runtrace; estimated ones when `estimated`); source NONE and no value
     * when neither file has it. graph_execute_us / time_us above stay the QHAS's own. */
    etp_qnn_f64 graph_execute_time_us, dsp_execute_time_us;
    etp_qnn_source graph_execute_source, dsp_execute_source;
    /* The QHAS was written by QNN's host-side estimator (Hextimate), not measured on a device:
     * its cycles and times are estimates (etp_qnn_qhas.estimated). */
    bool estimated;
} etp_qnn_summary;

typedef struct etp_qnn_derived {
    etp_qnn_source rows_source;   /* QHAS when given (htp_op_instances), else OPTRACE, else NONE */
    uint32_t n_rows;
    etp_qnn_op_row *rows;         /* order of first appearance of each QNN op */
    int64_t total_cycles;         /* sum of row cycles (the `share` denominator) */
    uint32_t unattributed_ops;    /* optrace ops without a QNN op name (not in rows) */
    etp_qnn_summary summary;
} etp_qnn_derived;
/* Row of a QNN op name, or NULL. */
const etp_qnn_op_row *etp_qnn_derived_row(const etp_qnn_derived *d, const char *qnn_op);

/* ---------------------------------------------------------------------------------------------
 * The SoC a QNN delegate was compiled for (the program's "qnn_compile_spec")
 * ------------------------------------------------------------------------------------------- */

/* From the first QnnBackend delegate's "qnn_compile_spec" compile spec (ExecuTorch's
 * QnnExecuTorchOptions FlatBuffer, whose first table, SocInfo, is read; the rest of that schema
 * changed between versions and is not). The graphs were compiled for this SoC and VTCM budget;
 * the device that ran them is not recorded anywhere. */
typedef struct etp_qnn_soc {
    bool present;         /* a readable spec was found */
    int32_t soc_model;    /* QcomChipset id, e.g. 57 */
    const char *soc_name; /* "SM8650", or NULL for an id etprof does not know (static string) */
    int32_t htp_arch;     /* HTP (Hexagon) architecture: 68, 69, 73, 75, 79, 81; 0 when absent */
    uint32_t vtcm_mb;     /* VTCM budget of the graphs, in MiB (the spec's vtcm_size_in_mb);
                           * 0 when absent */
    uint32_t plan, delegate; /* where the first readable spec is */
    uint32_t specs;       /* readable specs in the program */
    bool differs;         /* another readable spec names another SoC, architecture or budget */
    uint32_t unreadable;  /* specs that did not verify as such a FlatBuffer (not read) */
    etp_error error;      /* the first of them, located (file, byte offset, path) */
    /* The QNN context binary of that delegate (its processed blob) records the HTP compiler's
     * options as text ("...;vtcm_size=8388608;vtcm_kb=-1;vtcm_mb=4;..."): the first value of
     * each, 0 when absent or the blob is not read. */
    uint64_t blob_vtcm_size_bytes; /* vtcm_size= (bytes) */
    uint32_t blob_vtcm_mb;         /* vtcm_mb= (MiB) */
    bool vtcm_conflict;            /* those values do not all give vtcm_mb: etp_qnn_soc_vtcm_note */
} etp_qnn_soc;

/* Fills *out from program `p` (NULL: nothing found); `blob` (may be NULL) is the file it was
 * opened from, for the errors' file name and offsets (without it, an error's offset counts from
 * the spec's first byte). Cannot fail: a spec that does not verify is counted in `unreadable`,
 * never read. */
void etp_qnn_program_soc(const etp_program *p, const etp_blob *blob, etp_qnn_soc *out);
/* When the program's values of the VTCM budget disagree (soc->vtcm_conflict): one line naming
 * each and the one used, into buf (WARNING: ...); "" otherwise. Returns the length snprintf would
 * have written. */
int etp_qnn_soc_vtcm_note(const etp_qnn_soc *soc, char *buf, size_t n);
/* "SM8650, HTP V75" ("chipset id N" for an unknown id; no arch when absent) into buf; "" when
 * no SoC is present. Returns the length snprintf would have written. */
int etp_qnn_soc_name(const etp_qnn_soc *soc, char *buf, size_t n);
/* The name of a QcomChipset id ("SM8650"), or NULL when unknown. */
const char *etp_qnn_chipset_name(int32_t id);
/* Peak VTCM as a share of the VTCM budget the graphs were compiled for: the summary's
 * peak_vtcm_bytes * 100 / (vtcm_mb MiB), %; unknown unless both are known. The peak comes from
 * the QNN files (one run of the graph), the budget from the program. */
etp_qnn_f64 etp_qnn_vtcm_share(const etp_qnn_summary *s, const etp_qnn_soc *soc);

/* optrace per-QNN-op cycles (sum of de-duplicated X dur) vs QHAS per-node cycles
 * (qnn_op_instances_nodes, or the sum of htp_op_instances when that section is absent).
 * Ops present on one side only are mismatches with the other side absent. */
typedef struct etp_qnn_cycle_mismatch {
    const char *qnn_op;
    etp_qnn_i64 optrace_cycles, qhas_cycles;
} etp_qnn_cycle_mismatch;

int etp_qnn_check_optrace_qhas(const etp_qnn_trace *t, const etp_qnn_qhas *q,
                               etp_qnn_cycle_mismatch **out, uint32_t *n_out, etp_error *err);

/* ---------------------------------------------------------------------------------------------
 * Reading one file: optrace
 * ------------------------------------------------------------------------------------------- */

/* Reads a QNN optrace (Chrome trace JSON written by qnn-profile-viewer's optrace reader) from
 * `path` ("-" = stdin). ETP_OK, ETP_E_IO, ETP_E_INPUT (located: file, byte offset, JSON path)
 * or ETP_E_INTERNAL. Free with etp_qnn_trace_free() (NULL allowed). */
int etp_qnn_read_optrace(const char *path, etp_qnn_trace **out, etp_error *err);
void etp_qnn_trace_free(etp_qnn_trace *t);

/* ---------------------------------------------------------------------------------------------
 * The join of the derived rows with the ETDump's HTP node rows
 * ------------------------------------------------------------------------------------------- */

typedef struct etp_qnn_etd_pair {
    uint32_t ops_row;     /* etp_ops_row index of the ETDump node */
    uint32_t qnn_row;     /* index into etp_qnn_derived.rows */
    bool by_id;           /* matched on OpId (else on the name alone) */
    bool trusted;         /* the names agree, or the ETDump node is unnamed ("OpId_N (cycles)"):
                             false = an OpId match under another name (a conflict) */
    double etdump_cycles; /* the ETDump node's p50 over the runs */
    bool cycles_differ;   /* trusted and the p50 (rounded) != the QNN op's cycles (counted in
                             etp_qnn_etd_join.cycles_different; the "cycles differ" list) */
} etp_qnn_etd_pair;

typedef struct etp_qnn_etd_join {
    int32_t qnn;           /* etp_ops_qnn index of the partition joined; -1 when the ETDump has
                              no QNN partition (then every row is QNN-only) */
    uint32_t n_nodes;      /* HTP node rows of that partition */
    uint32_t n_pairs;
    etp_qnn_etd_pair *pairs;  /* in ETDump node order */
    uint32_t matched;      /* trusted pairs */
    uint32_t matched_by_id, matched_by_name; /* of the trusted pairs */
    uint32_t conflicts;    /* untrusted pairs */
    uint32_t n_etdump_only;
    uint32_t *etdump_only; /* ops row indices of ETDump nodes without a QNN op */
    uint32_t n_qnn_only;
    uint32_t *qnn_only;    /* derived row indices without an ETDump node */
    /* cycle agreement over the trusted pairs: the ETDump node's p50 (rounded) == QNN cycles */
    uint32_t cycles_equal, cycles_different;
    int64_t max_abs_diff;  /* largest |ETDump - QNN| over the trusted pairs, cycles */
    double *row_etdump;    /* per derived row: the p50 of its trusted ETDump node, NaN if none */
    int32_t *row_ops;      /* per derived row: the ops row of its trusted ETDump node, or -1 */
    uint32_t cycles_compared; /* pairs whose cycles were compared: cycles_equal +
                                 cycles_different (JSON cycle_agreement.compared) */
    uint32_t n_qnn;        /* QNN ops of the files (etp_qnn_derived.n_rows) */
    /* the same counts without the ops every graph has (Input, Output, SystemService*, unnamed
     * "OpId_N" system nodes): what tells two graphs apart (etp_qnn_etd_graph) */
    uint32_t n_qnn_named, n_nodes_named, matched_named;
} etp_qnn_etd_join;

/* Joins `d`'s rows to the HTP node rows of the ETDump partition where most of them match (by
 * OpId preferring the same name, then by name; see etp_qnn_join_nodes). Both inputs must outlive
 * the join. */
int etp_qnn_join_etdump(const etp_ops_result *r, const etp_qnn_derived *d, etp_qnn_etd_join **out,
                        etp_error *err);
void etp_qnn_etd_join_free(etp_qnn_etd_join *j);
/* "same_run" (every compared op has equal cycles), "different_runs" (none equal), "mixed",
 * or "none" (nothing compared). */
const char *etp_qnn_etd_agreement(const etp_qnn_etd_join *j);
/* Whether the QNN files describe the graph of the ETDump's partition, from the ops that are not
 * in every graph (n_qnn_named, n_nodes_named, matched_named): "other_graph" when fewer than half
 * of those QNN ops and fewer than half of those HTP nodes matched by OpId and name (a graph and
 * its own optrace/QHAS match nearly all; two graphs share little more than Input and Output),
 * "matches" otherwise, "unknown" when there is nothing to compare (the ETDump has no HTP node
 * events, or either side has only Input, Output and system ops). */
const char *etp_qnn_etd_graph(const etp_qnn_etd_join *j);
/* For "other_graph": the sentence every view shows (what matched, that the QNN figures are the
 * other graph's, and what settles it), written to buf; its length, 0 (nothing written) for
 * any other verdict. */
size_t etp_qnn_etd_graph_note(const etp_qnn_etd_join *j, char *buf, size_t n);

/* ---------------------------------------------------------------------------------------------
 * Shared figures of the derived rows (src/analyze/figures.c): one definition for qnn, explain, report
 * ------------------------------------------------------------------------------------------- */

/* The rows of `d` by cycles, largest first; equal cycles keep row order (the order of "top QNN
 * ops" in explain and report). Fills idx[] (room for d->n_rows entries) with at most `top` rows
 * (0: all) and *n with their count. ETP_OK, or ETP_E_INTERNAL when out of memory. */
int etp_qnn_rows_by_cycles(const etp_qnn_derived *d, uint32_t top, uint32_t *idx, uint32_t *n);

/* ---------------------------------------------------------------------------------------------
 * Trace with the HTP timeline
 * ------------------------------------------------------------------------------------------- */

/* etp_trace_write() plus one process "HTP (optrace)" drawn from a QNN optrace with a known HTP
 * clock (`clock_ghz` > 0; `clock_source` names where it came from, e.g. etp_qnn_clock()'s
 * source) (docs/trace.md). `optrace` NULL: exactly etp_trace_write(). */
int etp_trace_write_htp(etp_model *m, FILE *f, const etp_trace_opts *o,
                        const etp_qnn_trace *optrace, double clock_ghz, const char *clock_source,
                        etp_trace_stats *st, etp_error *err);

/* The same trace as Perfetto's native protobuf (a .pftrace: TracePacket messages, interned names,
 * a track tree file > method > run, QNN cycles and counts as typed counters or slice arguments,
 * never as durations, flows from each DELEGATE_CALL to the backend events inside it; the
 * messages are schema/perfetto_trace.proto, the layout docs/trace.md). Streams like the JSON:
 * one block at a time, memory bounded by the largest block and the distinct names. `optrace`
 * may be NULL. `st` counts what was written (slices: begin/end pairs; instants: instant
 * events). Returns as etp_trace_write_htp(). */
int etp_trace_write_perfetto(etp_model *m, FILE *f, const etp_trace_opts *o,
                             const etp_qnn_trace *optrace, double clock_ghz,
                             const char *clock_source, etp_trace_stats *st, etp_error *err);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_QNN_PUBLIC_H */
