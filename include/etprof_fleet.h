/* etprof_fleet.h - beyond one dump (issue 33): a dump's identity, a run history kept in SQLite
 * (docs/history.md) and the fleet export (PyTorch benchmark v3 records, a long op table;
 * docs/export.md).
 *
 * Every figure stored or exported is the per-file analysis of the rest of the library, never
 * recomputed: a method's latency and shares are its etp_ops_method of etp_ops_compute(), a
 * run's figures its etp_runs_row of etp_runs_compute(), an op's statistics its etp_ops_row. A file's
 * identity is the SHA-256 (FIPS 180-4) of its bytes, as 64 lower-case hex digits.
 *
 * Ownership: results are owned by the caller and freed with their _free function; their strings
 * live as long as they do. Errors: ETP_E_INPUT for a rejected dump or program, or a history file
 * that is not an etprof history (located: the file, the byte offset when known, the field);
 * ETP_E_USAGE for bad options (err->path names the option); ETP_E_IO for files that cannot be
 * read or written; ETP_E_INTERNAL when out of memory or SQLite fails otherwise.
 * Thread safety: an etp_history is used by one thread at a time; several processes (or handles)
 * may add to one history file at once (WAL journal, 30 s busy timeout): nothing is lost.
 */
#ifndef ETPROF_FLEET_H
#define ETPROF_FLEET_H

#include "etprof.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

/* A label of a dump (device, soc, os, build, commit, model, backend...): key=value. */
typedef struct etp_label {
    const char *key;
    const char *value;
} etp_label;

/* Splits "key=value" (key: letters, digits, '_', '-', '.', 1..64 bytes; value: any, may be
 * empty) into `out`, pointing into `s`'s copy in `buf` (cap bytes). ETP_E_USAGE (err->path
 * "--label") when it is not of that form. */
int etp_label_parse(const char *s, char *buf, size_t cap, etp_label *out, etp_error *err);

/* What every fleet call reads: the dumps, the program they ran (optional, the same for all), the
 * labels that apply to all of them, and the method to force (NULL: resolved as everywhere). */
typedef struct etp_fleet_opts {
    const char *pte;
    const etp_label *labels;
    size_t nlabels;
    const char *method;
} etp_fleet_opts;

/* ---- Run history (docs/history.md) ---- */

typedef struct etp_history etp_history;

/* Opens the history at `path`; with `create`, creates it when the file does not exist (without:
 * ETP_E_IO), and an empty file is set up as a new history. A file that
 * is not an SQLite database, or one that is but not an etprof history (another application id,
 * or tables of its own), or one of a newer schema, is refused with ETP_E_INPUT and left as it
 * was. */
int etp_history_open(etp_history **out, const char *path, bool create, etp_error *err);
void etp_history_close(etp_history *h);
/* The schema version this library writes (PRAGMA user_version). */
int etp_history_schema_version(void);

/* Adds each dump (one transaction per dump) with its identity, labels, per-method, per-run and
 * per-op figures. ids (may be NULL) receive the entries' ids. On an error the dumps added before
 * it stay added and `*done` (may be NULL) says how many. */
int etp_history_add(etp_history *h, const char *const *dumps, size_t n, const etp_fleet_opts *o,
                    int64_t *ids, size_t *done, etp_error *err);

/* One (entry, method) of the history: what `history list` shows. */
typedef struct etp_history_entry {
    int64_t id;
    uint32_t method_index;     /* the method's index in the entry's analysis */
    const char *added_at;      /* UTC, ISO 8601 */
    const char *captured_at;   /* the label "captured" when given, else the dump's mtime (UTC) */
    const char *dump_path;
    const char *dump_sha256;
    const char *program_sha256;/* "" without a program */
    const char *method;        /* "" when unnamed */
    const char *device;        /* the label "device", "" when absent */
    const char *labels;        /* "k=v,k=v" in key order */
    uint32_t runs, warmup_runs, steady_runs;
    etp_unit unit;             /* of the latency figures: ns or ticks */
    double p50, p90;           /* Method::execute over the runs kept (etp_ops_method.latency) */
    double delegate_share, cpu_share; /* percent of Method::execute, NaN when unknown */
    double tokens_per_second;  /* etp_runs_method.tokens_per_second (NaN unless decode-style) */
} etp_history_entry;

typedef struct etp_history_list etp_history_list;
/* Every (entry, method), oldest entry first. `entry_id` > 0: that entry only (history show). */
int etp_history_list_get(etp_history *h, int64_t entry_id, etp_history_list **out, etp_error *err);
void etp_history_list_free(etp_history_list *l);
size_t etp_history_list_count(const etp_history_list *l);
const etp_history_entry *etp_history_list_entry(const etp_history_list *l, size_t i);

/* The per-run metrics a series follows: each run's value in its etp_runs_row, steady runs only. */
typedef enum etp_history_metric {
    ETP_HM_LATENCY = 0, /* Method::execute */
    ETP_HM_DELEGATE,    /* all backends' DELEGATE_CALLs */
    ETP_HM_CPU,         /* CPU kernels */
    ETP_HM_FRAMEWORK,   /* the rest */
    ETP_HM_COUNT_
} etp_history_metric;
const char *etp_history_metric_name(etp_history_metric m); /* "latency", "delegate", ... */
/* ETP_E_USAGE for an unknown name. */
int etp_history_metric_parse(const char *s, etp_history_metric *out);

/* One point of a series: an entry's steady runs of the metric, compared with the steady runs of
 * every earlier entry of its series pooled, by the test of `diff` (etp_diff_compare_samples). */
typedef struct etp_history_point {
    const etp_history_entry *entry;
    uint32_t runs;       /* steady runs with a value */
    double p50;          /* of those, in `entry->unit` */
    bool compared;       /* false for the first point of a series */
    uint32_t runs_before;/* pooled runs of the earlier points */
    etp_diff_cmp cmp;    /* when compared: base = the earlier points, new = this point */
} etp_history_point;

/* A series: (program SHA-256, method, device), its points oldest first (captured, then id). */
typedef struct etp_history_series {
    const char *program_sha256, *method, *device;
    etp_unit unit;
    size_t npoints;
    const etp_history_point *points;
} etp_history_series;

typedef struct etp_history_trend etp_history_trend;
/* Every series of the history for metric `m` (series in order of their first entry). `o` (may be
 * NULL: the defaults of diff) sets alpha, min_runs and fail_pct (the gate's threshold). */
int etp_history_trend_get(etp_history *h, etp_history_metric m, const etp_diff_opts *o,
                          etp_history_trend **out, etp_error *err);
void etp_history_trend_free(etp_history_trend *t);
size_t etp_history_series_count(const etp_history_trend *t);
const etp_history_series *etp_history_series_get(const etp_history_trend *t, size_t i);
/* The gate (history gate): each series' newest point's gate decision (cmp.gate; a series of one
 * point is not compared), and the decision over them (etp_diff_gate_overall), as `diff
 * --fail-on-regression` decides over its methods. */
void etp_history_gate(const etp_history_trend *t, etp_diff_overall *out);

/* ---- Fleet export (docs/export.md) ---- */

typedef enum etp_export_format {
    ETP_EXPORT_V3 = 0, /* PyTorch benchmark v3 records, JSONEachRow: one per (file, method, metric) */
    ETP_EXPORT_JSONL,  /* the long op table as JSON Lines (ClickHouse JSONEachRow) */
    ETP_EXPORT_CSV,    /* the long op table as CSV with a header line */
} etp_export_format;
/* "v3", "jsonl", "csv"; ETP_E_USAGE for another name. */
int etp_export_format_parse(const char *s, etp_export_format *out);

/* The version of the long op table's columns (its schema_version field). */
#define ETP_EXPORT_SCHEMA_VERSION 1

typedef struct etp_export_opts {
    etp_fleet_opts in;
    etp_export_format format;
    bool csv_raw; /* CSV: no "'" before text cells that begin with = + - @ (--csv-raw) */
    const char *etrecord; /* the program's ETRecord: the op table's module column (the innermost
                             nn.Module of the row, joined as ops --etrecord joins); NULL: "" */
    /* v3 metadata (docs/export.md): required for ETP_EXPORT_V3 (ETP_E_USAGE naming the first
     * missing one), ignored otherwise. timestamp: Unix seconds. */
    const char *repo, *head_branch, *head_sha, *workflow_id, *job_id, *run_attempt;
    int64_t timestamp;
    bool timestamp_set;
} etp_export_opts;

typedef struct etp_export_stats {
    uint64_t files, records; /* files read, records (rows) written */
} etp_export_stats;

/* Writes the export of `dumps` to `f`, one file at a time (memory bounded by the largest file's
 * analysis, whatever n is). A rejected dump stops the export with its error; what was written
 * before stays in `f` (the caller's output file is atomic). Flushes but does not close `f`.
 * f NULL: only checks the options (the v3 metadata), before the caller opens its output. */
int etp_export_write(FILE *f, const char *const *dumps, size_t n, const etp_export_opts *o,
                     etp_export_stats *st, etp_error *err);
/* The CREATE TABLE statements for the long op table (database-less names: etprof_ops) in
 * ClickHouse's SQL, valid from ClickHouse 18.16 on (no Map type). */
int etp_export_schema_clickhouse(FILE *f, etp_error *err);

/* The per-run sums of ops row i's children of the same unit, aligned with row->samples (the row's
 * exclusive time in run k is samples[k] minus it); NULL when the row has no such children
 * (!has_children_same_unit). Lives as long as the result. */
const double *etp_ops_row_child_sums(const etp_ops_result *r, size_t i);

/* ---- Diff statistics of two bare samples ---- */

/* The comparison `diff` makes of a method's latency (Mann-Whitney U, verdict, gate with
 * o->fail_pct), for two samples given as values (any order; NaN not allowed). `o` may be NULL
 * (defaults). ETP_E_INTERNAL when out of memory. */
int etp_diff_compare_samples(const double *base, size_t nb, const double *new_, size_t nn,
                             const etp_diff_opts *o, etp_diff_cmp *out);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_FLEET_H */
