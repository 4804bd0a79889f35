/*
 * etprof_arm_pmu.h - what Arm runners log beside the ETDump: the Ethos-U performance report of
 * the Arm bare-metal executor runner (docs/backends.md "Arm Ethos-U: the runner's PMU report"),
 * and the VGF backend's device times (below: "Arm VGF"; docs/backends.md "Arm VGF: device
 * time").
 *
 * The Arm executor runner, built with its performance monitor, prints after its runs a report
 * of the Cortex-M PMU and the Ethos-U NPU's PMU on the serial console (ET_LOG lines such as
 * "I [executorch:arm_perf_monitor.cpp:190 StopMeasurements()] NPU Inferences : 10"), in the
 * same log whose "#[RUN THIS]" block holds the ETDump. The ETDump has none of it: the NPU's
 * cycles, its memory traffic (AXI or SRAM/external data beats) and its idle cycles exist only
 * there. etp_dump_open() reads the report when it reads an ETDump from such a log
 * (etp_dump_arm_pmu()); etp_arm_pmu_parse() reads any text.
 *
 * Lines read (the message after "] ", or the whole line without an ET_LOG prefix; numbers in
 * decimal, the "(x per inference)" the newer runners add is not used: etprof divides itself):
 *   NPU Inferences : N                      the runs measured (starts a report)
 *   NPU delegations: N (...)                the NPU's command streams run (newer runners)
 *   ethos-u : cycle_cnt : N cycles          CPU cycles inside EthosUBackend::execute
 *   Inference runtime: N CPU cycles total   CPU cycles of the measured runs (older runners
 *                                           print a uint32 with %d: a negative N is read as
 *                                           N + 2^32, and said)
 *   cpu_wait_for_npu_cntr : N CPU cycles    CPU cycles between the NPU's start and end
 *   ethosu_pmu_cycle_cntr : N               the NPU's cycle counter (NPU clock)
 *   ethosu_pmu_cntrK : N                    event counter K
 *   Ethos-U PMU Events:[ETHOSU_PMU_A, ...]  the events counted by counters 0, 1, ...
 * A report ends at the next "NPU Inferences" line. When the text holds several, the last one
 * before `before_line` is read (the one printed just before the ETDump used), and how many there
 * were is kept.
 *
 * Ownership: the report is a plain struct of values (no pointers), filled by the caller's
 * storage; etp_dump_arm_pmu()'s lives as long as the dump. Threads: reentrant.
 */
#ifndef ETPROF_ARM_PMU_H
#define ETPROF_ARM_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etprof.h"
#include "etprof_result.h"
#include "etprof_figures.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

#define ETP_ARM_PMU_COUNTERS 8 /* event counters kept (Ethos-U85 has 8, U55/U65 4) */

/* What one figure of the report counts, and in what. */
typedef enum etp_arm_pmu_unit {
    ETP_APU_CPU_CYCLES = 0, /* Cortex-M cycles (its PMU's cycle counter) */
    ETP_APU_NPU_CYCLES,     /* Ethos-U cycles (the NPU's clock) */
    ETP_APU_BEATS,          /* data beats on a memory interface (bytes = beats x its width) */
    ETP_APU_COUNT,          /* events */
} etp_arm_pmu_unit;

/* "CPU cycles", "NPU cycles", "beats", "count". */
const char *etp_arm_pmu_unit_name(etp_arm_pmu_unit u);

typedef struct etp_arm_pmu_counter {
    char event[48];         /* "AXI0_RD_DATA_BEAT_RECEIVED" (ETHOSU_PMU_ dropped); "" unnamed */
    uint64_t total;
    etp_arm_pmu_unit unit;  /* from the event's name: *_BEAT_* beats, NPU_IDLE, *_ACTIVE NPU
                               cycles, anything else a count */
} etp_arm_pmu_counter;

typedef struct etp_arm_pmu_report {
    bool present;             /* a report ("NPU Inferences" line) was found */
    uint32_t reports;         /* reports in the text before before_line */
    uint64_t line;            /* 1-based line of the report's "NPU Inferences" */
    uint64_t inferences;      /* NPU Inferences */
    /* each figure below counts only when its has_* is set (the line was there and read) */
    bool has_delegations, has_backend, has_runtime, has_wait, has_npu_cycles;
    uint64_t delegations;     /* NPU delegations: command streams the NPU ran */
    uint64_t backend_cycles;  /* ethos-u : cycle_cnt: CPU cycles in EthosUBackend::execute */
    uint64_t runtime_cycles;  /* Inference runtime: CPU cycles of the measured runs */
    bool runtime_wrapped;     /* printed negative (a uint32 through %d): 2^32 added */
    uint64_t wait_cycles;     /* cpu_wait_for_npu_cntr: CPU cycles while the NPU ran */
    uint64_t npu_cycles;      /* ethosu_pmu_cycle_cntr: NPU cycles */
    uint32_t n_counters;      /* counters 0 .. n_counters - 1 read */
    etp_arm_pmu_counter counters[ETP_ARM_PMU_COUNTERS];
    bool events_named;        /* an "Ethos-U PMU Events:[...]" line named the counters */
    const char *npu;          /* "Ethos-U55 or U65" (AXI events), "Ethos-U85" (SRAM/EXT
                                 events), NULL when the events do not tell (static string) */
    uint32_t bad_lines;       /* lines of the report with a key but no readable number: left out */
    uint64_t first_bad_line;  /* the first of them */
} etp_arm_pmu_report;

/* Reads the last report of text[0, n) that starts before 1-based line `before_line` (0: the whole
 * text) into *out (zeroed first; out->present false when there is none). Never fails: lines that
 * are not the report's are skipped, a key whose number cannot be read is counted in bad_lines. */
void etp_arm_pmu_parse(const char *text, size_t n, uint64_t before_line, etp_arm_pmu_report *out);

/* ---- Arm VGF: the device time the backend logs (docs/backends.md "Arm VGF: device time") ----
 * With EXECUTORCH_VGF_ENABLE_TIMESTAMP_QUERIES set, the VGF backend times each data-graph
 * dispatch with Vulkan timestamp queries and logs it, one ET_LOG line per execution:
 *   VGF_DATA_GRAPH_DEVICE_TIME ticks=N duration_ns=X duration_ms=Y
 * after "VGF timestamp queries enabled: queue_family=Q valid_bits=B period_ns=P" (or "VGF
 * timestampPeriod is P; using fallback 52.0 ns/tick" when the device reports no period). The
 * ETDump holds only the host phases (VGF_EXECUTE, VGF_DISPATCH_AND_WAIT...). */
typedef struct etp_vgf_device_times {
    uint32_t n;               /* VGF_DATA_GRAPH_DEVICE_TIME lines read */
    uint64_t first_line;      /* 1-based line of the first */
    double *duration_ns;      /* their duration_ns, in log order (n values; malloc'ed) */
    uint64_t *ticks;          /* their ticks (n values) */
    bool has_period;          /* a "VGF timestamp queries enabled" line was read */
    double period_ns;         /* its period_ns (the last one) */
    uint32_t valid_bits;
    bool fallback_period;     /* the device reported no period: 52 ns per tick was assumed */
    uint32_t bad_lines;       /* VGF_DATA_GRAPH_DEVICE_TIME lines without readable numbers */
    uint64_t first_bad_line;
} etp_vgf_device_times;

/* Reads the VGF device-time lines of text[0, n) into *out (zeroed first; out->n 0 when none).
 * ETP_OK, or ETP_E_INTERNAL when out of memory (*out then empty). Free with
 * etp_vgf_device_times_free (also after a failure). */
int etp_vgf_device_times_parse(const char *text, size_t n, etp_vgf_device_times *out);
void etp_vgf_device_times_free(etp_vgf_device_times *t);

/* A runner's log apart from the ETDump (the runner wrote the ETDump to a file, by semihosting,
 * and its log to the console): the Ethos-U PMU report, read up to the log's first "#[RUN THIS]"
 * line when it has one (the report before the ETDump it prints, as etp_dump_arm_pmu()), and the
 * VGF device times, either or both. */
typedef struct etp_runner_log {
    etp_arm_pmu_report pmu;   /* pmu.present false when the log has none */
    etp_vgf_device_times vgf; /* vgf.n 0 when the log has none */
} etp_runner_log;

/* Reads the log at `path` ("-": stdin). ETP_OK; ETP_E_IO when it cannot be read; ETP_E_INPUT,
 * located at offset 0, when it is binary (a NUL byte in its first 4 KiB) or holds neither an
 * Ethos-U PMU report nor a VGF device-time line (the error names the kind of file it looks
 * like); ETP_E_INTERNAL when out of memory. Free with etp_runner_log_free (also after a
 * failure). */
int etp_runner_log_read(const char *path, etp_runner_log *out, etp_error *err);
void etp_runner_log_free(etp_runner_log *l);

/* The VGF device times against the ETDump's VGF_EXECUTE row(s) of `r` (NULL: not compared), as
 * result-model facts: the JSON object `key` of n {lines, first_line, period_ns, valid_bits,
 * fallback_period, lines_left_out, device_time {n, min, p10, p50, p90, avg, max, total, unit},
 * etdump_vgf_execute {count, p50, unit} or null, device_share_of_host_p50_percent} (times
 * converted by etp_disp_conv: ns in the display unit); the text view, a heading and a table
 * (figure, value, unit) in section s; and the notes (the count of lines against the ETDump's
 * VGF_EXECUTE events, the assumed period, lines left out). Nothing when t->n is 0. */
void etp_fig_vgf_device_times(etp_node *n, const char *key, const etp_disp *d,
                              const etp_vgf_device_times *t, const etp_ops_result *r);
int etp_fig_vgf_device_table(etp_doc *doc, etp_section *s, const etp_disp *d,
                             const etp_vgf_device_times *t, const etp_ops_result *r);
void etp_vgf_device_notes(const etp_vgf_device_times *t, const etp_ops_result *r,
                          void (*emit)(void *ctx, const char *text), void *ctx);
/* The table alone (a table of doc; NULL when t->n is 0 or out of memory), for a view that lays
 * it out itself (the HTML report); the device p50 in ns and its share of the ETDump's
 * VGF_EXECUTE p50 (the table's values; NaN when unknown), for explain. */
etp_table *etp_vgf_device_table(etp_doc *doc, const etp_disp *d, const etp_vgf_device_times *t,
                                const etp_ops_result *r);
double etp_vgf_device_p50_ns(const etp_vgf_device_times *t);
double etp_vgf_device_share(const etp_vgf_device_times *t, const etp_ops_result *r);

/* The report of the log the dump was read from (the one before its ETDump's echo line); NULL
 * when the dump was not read from an Arm runner's serial log. A log without a report gives one
 * whose `present` is false. */
const etp_arm_pmu_report *etp_dump_arm_pmu(const etp_dump *d);

/* The ETDump runs a report is compared with: every run of every method of the result, the
 * --skip-first ones included (the runner measures all of them). */
uint64_t etp_arm_pmu_etdump_runs(const etp_ops_result *r);

/* The derived figures, each with one definition here (NaN when its inputs are missing or the
 * divisor is 0): a total per inference; the NPU share of the measured CPU cycles (the runner's
 * "Inference NPU ratio"), 100 x wait_cycles / runtime_cycles; the CPU share, 100 minus that. */
double etp_arm_pmu_per_inference(const etp_arm_pmu_report *r, uint64_t total);
double etp_arm_pmu_npu_share(const etp_arm_pmu_report *r);

/* The report as result-model facts: the JSON object `key` of n (null when !present) with
 * line, reports, inferences, npu, figures [{name, source, total, per_inference, unit}],
 * npu_share_percent and notes; and the text view: a heading and a table (figure, total, per
 * inference, unit, the log line it comes from) appended to section s, nothing when !present.
 * runs: the ETDump's runs the report is compared with (etdump_runs in the JSON; 0: not
 * compared, null). ETP_OK or ETP_E_INTERNAL. */
void etp_fig_arm_pmu(etp_node *n, const char *key, const etp_arm_pmu_report *r, uint64_t runs);
int etp_fig_arm_pmu_table(etp_doc *doc, etp_section *s, const etp_arm_pmu_report *r);
/* Its parts, for a view that lays them out itself (the HTML report): the table alone, a table of
 * `doc` (NULL when !present or out of memory), and the heading "Arm Ethos-U PMU report (the
 * runner's serial log, line L: N inference(s), NPU)" into buf (cap bytes; "" when !present). */
etp_table *etp_arm_pmu_table(etp_doc *doc, const etp_arm_pmu_report *r);
const char *etp_arm_pmu_heading(const etp_arm_pmu_report *r, char *buf, size_t cap);
/* Two reports compared (diff BASE NEW): each figure of either, matched by its log line's key
 * and its name (a counter counting another event is another figure), per inference on each side
 * (NaN where the report lacks it) and the change 100 x (new - base) / base (NaN when either is
 * missing or base is 0). Figures in the order of `figures` of BASE, then those only in NEW. */
typedef struct etp_arm_pmu_change {
    char name[80];
    const char *source;     /* static: the log line's key */
    etp_arm_pmu_unit unit;
    double base_per_inference, new_per_inference, change_percent;
} etp_arm_pmu_change;
/* Fills out[0..cap) and returns how many changes there are (at most 2 x (8 + counters)); either
 * report may be NULL or not present (its side is then NaN). */
size_t etp_arm_pmu_compare(const etp_arm_pmu_report *base, const etp_arm_pmu_report *new_,
                           etp_arm_pmu_change *out, size_t cap);
#define ETP_ARM_PMU_MAX_CHANGES (2 * (8 + ETP_ARM_PMU_COUNTERS))
/* The comparison as result-model facts: the JSON object `key` of n {base, new (each {line,
 * inferences, npu} or null), figures [{name, source, unit, base_per_inference,
 * new_per_inference, change_percent}]}, and the text view's table (figure, base, new, change %,
 * unit: per inference), a table of doc. NULL table when neither report is present. */
void etp_fig_arm_pmu_diff(etp_node *n, const char *key, const etp_arm_pmu_report *base,
                          const etp_arm_pmu_report *new_);
etp_table *etp_arm_pmu_diff_table(etp_doc *doc, const etp_arm_pmu_report *base,
                                  const etp_arm_pmu_report *new_);
/* The notes of a comparison: one aggregate per log, so no statistics and no verdict (and not in
 * the regression gate); and each side's own notes (etp_arm_pmu_notes, prefixed BASE/NEW). */
void etp_arm_pmu_diff_notes(const etp_arm_pmu_report *base, const etp_arm_pmu_report *new_,
                            void (*emit)(void *ctx, const char *text), void *ctx);

/* What a reader must know about the report, one emit() per note: the clock caveat of the CPU
 * cycles and the NPU share (the runner's own: identical CPU and NPU frequency, real hardware or
 * an FPGA; the FVP simulator's cycles are not timing), beats are not bytes, a wrapped runtime, a
 * count of inferences that differs from the ETDump's runs, lines left out, several reports. */
void etp_arm_pmu_notes(const etp_arm_pmu_report *r, uint64_t runs,
                       void (*emit)(void *ctx, const char *text), void *ctx);

ETP_API_END
#ifdef __cplusplus
}
#endif

#endif
