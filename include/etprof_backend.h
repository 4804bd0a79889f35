/* etprof_backend.h - what etprof knows about each ExecuTorch backend's ETDump conventions
 * (issue 14.2, docs/backends.md): a table of small decoders, one entry per backend, each saying
 * how its events are recognised, the unit and clock domain of their values, how its ops are
 * named and grouped, and what its delegate_debug_metadata means. Adding a backend is adding one
 * entry to the table in src/analyze/backend.c (a static table in one file: every entry is data plus at
 * most one small function, so one file per backend would be mostly boilerplate).
 *
 * Ownership and lifetime: etp_backend_info pointers point into a static table and stay valid for
 * the life of the process; never free them. etp_backend_guess.name points into the table or
 * into the ops result (the program's backend id) and lives as long as that result.
 * Thread safety: the table is read-only; every function here only reads its arguments, so any
 * number of threads may call them at once (on one ops result too).
 */
#ifndef ETPROF_BACKEND_H
#define ETPROF_BACKEND_H

#include "etprof.h"
#include "etprof_figures.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

/* How a backend identifies the events it logs inside a DELEGATE_CALL. */
typedef enum etp_backend_ids {
    ETP_BID_NONE = 0, /* it logs nothing inside the DELEGATE_CALL */
    ETP_BID_STRING,   /* delegate_debug_id_str */
    ETP_BID_INT,      /* delegate_debug_id_int */
    ETP_BID_NAME,     /* ordinary named ProfileEvents (ProfileEvent.name), no delegate id */
} etp_backend_ids;

/* What its delegate_debug_metadata holds. */
typedef enum etp_backend_meta {
    ETP_BMETA_NONE = 0,      /* none is logged */
    ETP_BMETA_JSON,          /* a JSON document (Core ML, VGF neural statistics) */
    ETP_BMETA_FUNCTION_CODE, /* 1 byte: a function code (Neutron: 0 = profiling dump) */
} etp_backend_meta;

typedef struct etp_backend_info {
    const char *name;        /* the program's backend id: "XnnpackBackend" */
    const char *label;       /* short display name: "XNNPACK" */
    etp_backend_ids ids;
    const char *unit;        /* the unit of its values, in words */
    const char *clock;       /* "host" (PAL ticks, same clock as the DELEGATE_CALL), "device"
                                (its own clock domain), "none" (durations without a timeline) */
    const char *grouping;    /* how its op names group by op type, in words */
    etp_backend_meta meta;
    bool real_file_checked;  /* etprof was checked on a real dump of this backend */
} etp_backend_info;

/* The table: etp_backend_count() entries, in a fixed order. */
size_t etp_backend_count(void);
const etp_backend_info *etp_backend_at(size_t i); /* NULL past the end */
/* The entry whose name is `name` (case-insensitive), NULL when the backend is not in the table. */
const etp_backend_info *etp_backend_info_get(const char *name);

/* The backend behind one DELEGATE_CALL row of an ops result. */
typedef struct etp_backend_guess {
    const etp_backend_info *info; /* NULL: not in the table (or not recognised) */
    const char *name;       /* the program's backend id; else info->name; NULL when unknown */
    bool inferred;          /* true: recognised from the shapes of the events inside it (no
                               program); false: read from the program (or unknown) */
    uint32_t inner_rows;    /* delegate-internal rows directly inside it */
} etp_backend_guess;

/* Fills *out for DELEGATE_CALL row `row`. With a program the backend id is read from it. Without
 * one, the shapes of the rows directly inside decide:
 *   XNNPACK: every delegate-internal child is named "<op> #<k>" (k digits) and is host-timed
 *            (the DELEGATE_CALL's own time unit);
 *   QNN:     a child is a QNN event (etp_ops_row.qnn != ETP_QNN_NONE).
 * Anything else stays unknown (info NULL, name NULL). ETP_OK; ETP_E_USAGE when `row` is not a
 * DELEGATE_CALL row. */
int etp_backend_infer(const etp_ops_result *r, size_t row, etp_backend_guess *out);

/* One DELEGATE_CALL split for its backend: the DELEGATE_CALL, the sum of the ops its backend
 * logged inside it and the gap (for XNNPACK: XNNPACK's own overhead plus the gaps between ops).
 * The three figures are etp_ops_delegate_time_get()'s delegate, backend and overhead (the
 * backend's outermost timed events inside it, summed per run; delegate minus that per run), in
 * the DELEGATE_CALL row's unit: no second definition. */
typedef struct etp_backend_split {
    etp_backend_guess backend;
    etp_ops_delegate_time time;
} etp_backend_split;

/* ETP_OK; ETP_E_USAGE when `row` is not a DELEGATE_CALL row with a time unit; ETP_E_INTERNAL when
 * out of memory. */
int etp_backend_split_get(const etp_ops_result *r, size_t row, etp_backend_split *out);

/* The op type an inner event's name groups under for backend `b` (NULL: no rule, the name as
 * is): XNNPACK "Convolution (NHWC, F32) IGEMM #3" -> "Convolution (NHWC, F32) IGEMM" (the same
 * rule as etp_optype_of_name). Written into buf (cap bytes, truncated, always NUL-terminated);
 * returns buf. */
const char *etp_backend_op_group(const etp_backend_info *b, const char *name, char *buf,
                                 size_t cap);

/* How delegate_debug_metadata bytes were decoded. */
typedef enum etp_meta_kind {
    ETP_MK_EMPTY = 0,      /* no bytes */
    ETP_MK_JSON,           /* valid UTF-8 that parses as a JSON object or array: the text */
    ETP_MK_TEXT,           /* valid UTF-8 without control characters (tab/newline aside) */
    ETP_MK_FUNCTION_CODE,  /* the backend's 1-byte function code: "function code 0 (profiling
                              dump)" or "function code N (kernel N)" */
    ETP_MK_HEX,            /* anything else: lower-case hex */
} etp_meta_kind;

/* "empty", "json", "text", "function_code", "hex". */
const char *etp_meta_kind_name(etp_meta_kind k);

/* Decodes n metadata bytes for backend `b` (NULL: unknown backend; only JSON/text/hex apply).
 * One trailing NUL byte (C writers often include it) is not part of the text. The text goes to
 * buf (cap bytes, truncated, always NUL-terminated when cap > 0); *need (may be NULL) receives
 * the length of the whole text (buf is complete when *need < cap). */
etp_meta_kind etp_backend_metadata_decode(const etp_backend_info *b, const uint8_t *p, size_t n,
                                          char *buf, size_t cap, size_t *need);

/* ---- What each backend's own events tell (issue 14.2 items 2-5; docs/backends.md) ----------
 * One walk over the events of the runs kept (etp_ops_compute's), each event offered to every
 * backend decoder that recognises it (from the event alone: names, ids, metadata; no program
 * needed). Every figure is a total over the runs kept, in the unit named beside it: the events'
 * own unit (etp_mevent.unit: ns when the tick rate is known, ticks otherwise); events of another
 * unit than the backend's first one are counted in *_other_unit and left out of the sums. */

/* A Core ML op's preferredComputeUnit. */
typedef enum etp_coreml_cu {
    ETP_CU_NE = 0, /* "NE": the Apple Neural Engine (ANE) */
    ETP_CU_CPU,
    ETP_CU_GPU,
    ETP_CU_OTHER,  /* absent or another value */
    ETP_CU_COUNT_
} etp_coreml_cu;
const char *etp_coreml_cu_name(etp_coreml_cu c); /* "NE", "CPU", "GPU", "other" */

/* One operator group of a backend (Vulkan: GPU time per operator name). */
typedef struct etp_backend_group {
    char *name;
    uint64_t count;  /* events */
    double value;    /* summed, in the backend's unit */
} etp_backend_group;

typedef struct etp_backend_figures {
    uint32_t runs;                /* runs walked (etp_ops_runs_kept) */
    /* Core ML: delegate events whose metadata is Core ML's JSON (preferredComputeUnit,
     * supportedComputeUnits, operatorName, estimatedCost). Their times are the model's wall
     * time split by estimatedCost: ESTIMATES, not measurements. */
    uint64_t coreml_ops;
    etp_unit coreml_unit;
    uint64_t coreml_other_unit;
    double coreml_time;                        /* estimated, summed */
    uint64_t coreml_ops_cu[ETP_CU_COUNT_];     /* by preferredComputeUnit */
    double coreml_time_cu[ETP_CU_COUNT_];      /* estimated time by preferredComputeUnit */
    double coreml_cost;                        /* summed estimatedCost */
    double coreml_cost_cu[ETP_CU_COUNT_];
    uint64_t coreml_multi_cu;   /* ops whose supportedComputeUnits lists more than one unit */
    /* percent of coreml_time whose preferredComputeUnit is NE (NaN without Core ML ops). The
     * basis: the preferred unit (Core ML may still run an op elsewhere) and estimated times. */
    double coreml_ane_share;
    /* Vulkan: shader dispatch events (the name a JSON object with kernel_name, or, inside a
     * VulkanBackend DELEGATE_CALL of the program, a plain kernel name): GPU timestamp time in
     * the device clock domain; ETVK_* phases: host ticks (PAL). */
    uint64_t vulkan_dispatches;
    etp_unit vulkan_unit;
    uint64_t vulkan_other_unit;
    double vulkan_gpu_time;       /* summed dispatch durations (device clock) */
    uint64_t vulkan_phases;       /* ETVK_* events */
    double vulkan_execute_time;   /* summed ETVK_EXECUTE (host clock), in vulkan_phase_unit */
    etp_unit vulkan_phase_unit;
    etp_backend_group *vulkan_ops; /* dispatch time per operator name (kernel_name when the JSON
                                      has no operator), largest first */
    uint32_t n_vulkan_ops;
    uint32_t vulkan_ops_cap;      /* (internal: allocated entries) */
    /* Arm Ethos-U: EthosUBackend:: scopes; a leading '+' marks a sub-scope (a child). */
    uint64_t ethosu_scopes, ethosu_subscopes;
    etp_unit ethosu_unit;
    uint64_t ethosu_npu_scopes;   /* "+EthosUBackend::execute()NPU": the NPU's inference */
    double ethosu_npu_time;       /* their summed time (host clock: PMU cycles on bare metal) */
    /* Arm VGF: VGF_* phases (host), and VGF_NEURAL_STATISTICS JSON with base64 blobs. */
    uint64_t vgf_phases;
    etp_unit vgf_unit;
    double vgf_execute_time;      /* summed VGF_EXECUTE */
    uint64_t vgf_stats_events;    /* VGF_NEURAL_STATISTICS events */
    uint64_t vgf_stats_bad;       /* ... whose metadata is not the documented JSON */
    uint64_t vgf_segments;        /* segments[] entries */
    uint64_t vgf_blobs;           /* blobs (debug_database, statistics_info, statistics_memory) */
    uint64_t vgf_blobs_available; /* available: true */
    uint64_t vgf_blobs_decoded;   /* base64 decoded and of the stated size */
    uint64_t vgf_blobs_bad;       /* available but not decodable or not of the stated size */
    uint64_t vgf_blob_bytes;      /* decoded bytes */
    /* NXP Neutron: int-id delegate events with a 1-byte function code. Code 0 is the final
     * profiling-dump event: its time is overhead, not op time. */
    uint64_t neutron_ops, neutron_dump_events;
    etp_unit neutron_unit;
    uint64_t neutron_other_unit;
    double neutron_op_time;       /* the kernels (function code != 0) */
    double neutron_dump_time;     /* the profiling-dump overhead (function code 0) */
} etp_backend_figures;

/* Walks the runs kept of `r` (computed from model `m`) and fills *out. ETP_OK; the model's
 * error when a block cannot be read again; ETP_E_INTERNAL when out of memory. Free with
 * etp_backend_figures_free (also after a failure). */
int etp_backend_figures_get(etp_model *m, const etp_ops_result *r, etp_backend_figures *out,
                            etp_error *err);
void etp_backend_figures_free(etp_backend_figures *f);
/* True when any backend figure is present (some backend's events were seen). */
bool etp_backend_figures_any(const etp_backend_figures *f);

/* Result-model facts of the figures (src/view/backend_view.c): the JSON object `key` of n (each
 * backend's object null when none of its events was seen), and the text view: a heading and a
 * table (backend, figure, events, per run, unit, basis / clock) appended to section s; nothing
 * when no backend figure is present. ETP_OK or ETP_E_INTERNAL. */
void etp_fig_backend_figures(etp_node *n, const char *key, const etp_disp *d,
                             const etp_backend_figures *f);
int etp_fig_backend_table(etp_doc *doc, etp_section *s, const etp_disp *d,
                          const etp_backend_figures *f);

/* The text view of the split: for each DELEGATE_CALL of `method` whose backend is known and
 * host-timed (not QNN) and logged ops inside it, a row: instr, backend, DELEGATE_CALL, backend
 * ops, gap (p50 over the runs), unit, gap % of the call; a heading and the table appended to
 * section s, nothing when there is no such call. ETP_OK or ETP_E_INTERNAL. */
int etp_fig_delegate_split_table(etp_doc *doc, etp_section *s, const etp_disp *d,
                                 const etp_ops_result *r, uint32_t method);

/* What a reader must know about the figures' backends' rows (Core ML times are estimates, Vulkan
 * dispatches are GPU-clock durations, Neutron's function-code-0 events are the profiling dump's
 * overhead), one emit() per note; none when no such event was seen. etp_backend_notes computes
 * the figures first (and emits nothing when that fails). */
void etp_backend_figures_notes(const etp_backend_figures *f,
                               void (*emit)(void *ctx, const char *text), void *ctx);
void etp_backend_notes(etp_model *m, const etp_ops_result *r,
                       void (*emit)(void *ctx, const char *text), void *ctx);

/* The placement of row `row` for the text views: a row whose placement is "delegate" (no
 * program) inside a DELEGATE_CALL whose backend was inferred -> "<backend id> (inferred)"; else
 * its placement. Into buf (cap bytes, truncated, NUL-terminated); returns buf. */
const char *etp_backend_placement_label(const etp_ops_result *r, size_t row, char *buf,
                                        size_t cap);
/* The same for every row at once (one inference per DELEGATE_CALL): out[i] (etp_ops_row_count
 * entries, the caller's array) = a static "<backend id> (inferred)" or the row's placement.
 * ETP_OK or ETP_E_INTERNAL (out of memory). */
int etp_backend_placement_labels(const etp_ops_result *r, const char **out);

/* True when a delegate event's timestamps are in its backend's own device clock, not the host's
 * (recognised from the event alone): Vulkan shader dispatches (GPU timestamp ns), NXP Neutron's
 * events (the Neutron clock). The trace keeps them off the host track (docs/trace.md). */
bool etp_backend_event_device_clock(const etp_mevent *e);
/* The same for ops row `row` (a delegate-internal row named by a Vulkan dispatch JSON, or inside
 * a DELEGATE_CALL the program names VulkanBackend (not ETVK_*) or NeutronBackend): its times are durations in the device clock. The text views label its unit
 * "<unit> (device clock)". */
bool etp_backend_row_device_clock(const etp_ops_result *r, size_t row);

ETP_API_END
#ifdef __cplusplus
}
#endif

#endif
