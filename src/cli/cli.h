/* cli.h - what every etprof command shares: options, inputs, output. */
#ifndef ETPROF_CLI_H
#define ETPROF_CLI_H

#include "etprof.h"
#include "etprof_result.h"
#include "etprof_io.h"
#include "etprof_etrecord.h"
#include "etprof_qnn.h"
#include "etprof_tensor.h"

#include <stdbool.h>
#include <stdio.h>

/* Exit codes (documented in docs/cli.md). */
enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_IO = 3, EXIT_INTERNAL = 4,
       EXIT_REGRESSION = 5, EXIT_INCONCLUSIVE = 6, EXIT_DIVERGED = 7, EXIT_SIGPIPE = 141 };

/* Every option of every command has an id here; a command lists the ones it accepts. */
typedef enum opt_id {
    OPT_NONE = 0,
    /* global */
    OPT_FORMAT, OPT_OUTPUT, OPT_HELP, OPT_QUIET, OPT_PTE, OPT_METHOD, OPT_IGNORE_MISMATCH, OPT_TICK_NS, OPT_TICK_HZ,
    OPT_TICKS, OPT_CSV_RAW, OPT_WIDE,
    /* analysis */
    OPT_SORT, OPT_TOP, OPT_BLOCK, OPT_PLACEMENT, OPT_KIND, OPT_SKIP_FIRST, OPT_ALL, OPT_STAT,
    OPT_TIME_UNIT, OPT_HTP_CLOCK_GHZ,
    /* QNN inputs */
    OPT_QHAS, OPT_OPTRACE, OPT_RUNTRACE, OPT_HEAP, OPT_PROFILE_LOG, OPT_PROFILE_CSV,
    /* diff */
    OPT_THRESHOLD, OPT_FAIL_ON_REGRESSION, OPT_PTE_NEW, OPT_ALLOW_INCONCLUSIVE,
    /* events */
    OPT_DEBUG_BUFFER,
    /* tensors, compare */
    OPT_DUMP_DIR, OPT_DEBUG_BUFFER_NEW, OPT_FAIL_BELOW_SNR,
    /* ops */
    OPT_BY,
    /* trace */
    OPT_RUNS, OPT_MAX_RUNS,
    /* ETRecord (cmd_etrecord.c) */
    OPT_ETRECORD,
    /* tensors --select, compare across programs, check-outputs */
    OPT_SELECT, OPT_ETRECORD_NEW, OPT_TEST_CASE, OPT_RTOL, OPT_ATOL, OPT_HTML,
    /* several dumps at once (summary, ops, runs, report) */
    OPT_LABEL,
    /* modules */
    OPT_MODULE,
    /* the Arm runner's serial log apart from the ETDump (summary, explain, report) */
    OPT_RUNNER_LOG, OPT_RUNNER_LOG_NEW,
    /* history, export (cmd_history.c, cmd_export.c) */
    OPT_METRIC, OPT_GZIP, OPT_SCHEMA, OPT_REPO, OPT_HEAD_BRANCH, OPT_HEAD_SHA, OPT_WORKFLOW_ID,
    OPT_JOB_ID, OPT_RUN_ATTEMPT, OPT_TIMESTAMP,
    /* session (cmd_session.c) */
    OPT_PREFILL_RUNS, OPT_PROMPT_TOKENS,
    OPT_STRICT,
    OPT_COUNT_
} opt_id;

typedef struct cli_optdef {
    opt_id id;
    const char *name; /* long name without "--" */
    char short_name;  /* 0 if none */
    const char *arg;  /* argument placeholder, NULL for a flag */
    const char *help;
} cli_optdef;

#define CLI_MAX_POS 8

typedef struct cli_args {
    const char *val[OPT_COUNT_];
    bool set[OPT_COUNT_];
    const char *pos[CLI_MAX_POS];
    int npos;
    /* parsed globals */
    etp_format fmt;
    bool fmt_set;
    bool quiet;
    /* --label, repeated: the labels in order (the nth names the nth FILE) */
    const char *labels[CLI_MAX_POS];
    int nlabels;
    /* --method, repeated: with several FILEs, one per FILE (a single one applies to all) */
    const char *methods[CLI_MAX_POS];
    int nmethods;
    /* a command taking more than CLI_MAX_POS arguments (max_pos > CLI_MAX_POS: history, export):
     * every argument in order (pos[] holds the first CLI_MAX_POS) */
    const char **many;
    int nmany;
} cli_args;

typedef struct cli_cmd {
    const char *name;
    const char *summary;
    const char *usage;       /* e.g. "FILE [--pte P]" */
    const char *help;        /* paragraph(s) after the usage */
    const opt_id *opts;      /* accepted options (besides --format, -o, --help, -q), 0-terminated */
    int min_pos, max_pos;
    int (*run)(cli_args *a);
    bool own_format;         /* --format takes the command's own names (export): not parsed here */
} cli_cmd;

/* Lookup of an option definition by id. */
const cli_optdef *cli_opt(opt_id id);

/* Error reporting: one line on stderr, "etprof: ..." */
void cli_error(const etp_error *err);
void cli_errorf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Warnings ("etprof: warning: ..."), held until the command ends and printed then by
 * cli_warn_flush(), unless it ends with exit 1: an input rejected is exactly one line on stderr
 * (issue 35.7), even when a warning came before the rejection (the runner log's ticks warning,
 * then the program check's error). */
void cli_warnf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Prints the held warnings (dropped when rc is EXIT_INPUT) and forgets them. */
void cli_warn_flush(int rc);
int cli_exit_for(int etp_code);
/* Opens a --debug-buffer file and checks that it can be one (etp_debug_buffer_check), before
 * anything is written: 0, or the error reported and the exit status (b is then closed). */
int cli_open_debug_buffer(etp_blob *b, const char *path);

/* The SoC a program's QNN delegates were compiled for, as JSON members of `o` (qnn, info):
 * model_id, model, htp_arch, vtcm_budget_bytes (null when absent), differs. */
void cli_node_qnn_soc(etp_node *o, const etp_qnn_soc *soc);

/* Inputs */
typedef struct cli_inputs {
    etp_blob dump_blob, pte_blob;
    etp_dump *dump;
    etp_program *prog;
    etp_model *model;
    double tick_ns; /* the host tick rate the model reads the dump at: --tick-ns/--tick-hz/--ticks,
                       else the dump's default (etp_dump_default_tick_ns) */
} cli_inputs;

/* Opens the ETDump `path`, the --pte program if given, and the model (with --method, --tick-*).
 * On failure prints the error and returns the exit code (non-zero). */
int cli_open_inputs(cli_args *a, const char *path, cli_inputs *in);
/* Same, for a command that reads the dump only through etp_ops_compute()/etp_model_block():
 * the dump's blocks are verified in the background while it runs (a verification error then
 * comes from those calls); it calls etp_dump_wait_verified() before using anything else of the
 * dump. */
int cli_open_inputs_bg(cli_args *a, const char *path, cli_inputs *in);
/* cli_open_inputs_bg() from a blob the caller already opened (ownership passes to `in`, even on
 * failure), with a model that classifies only (etp_model_opts.kinds_only): for `info`. */
int cli_open_inputs_blob_kinds(cli_args *a, etp_blob *blob, cli_inputs *in);
void cli_close_inputs(cli_inputs *in);
int cli_model_opts(cli_args *a, etp_model_opts *mo);

/* Output: opens -o (atomically) or stdout. */
typedef struct cli_out {
    etp_outfile *s;
    FILE *f;
    bool tty;
    int width; /* terminal columns when tty, else 0 */
    int err;   /* errno of the failing write, when the command saw it (0: not known) */
} cli_out;
int cli_out_open(cli_args *a, cli_out *o);
/* Commits (rc == 0) or aborts (rc != 0) the output; returns the final exit code.
 * Every write failure of every command ends here (rc == EXIT_IO, or the stream's error flag, or
 * the final flush/close/rename): one message "etprof: <file>: write failed: <reason>", exit 3.
 * A command passing EXIT_IO prints nothing itself about the failed write. EPIPE on standard
 * output (the reader went away, SIGPIPE ignored) ends quietly with 141, as death by SIGPIPE. */
int cli_out_close(cli_out *o, int rc);


/* Renders `doc` in --format to the output (width, --wide, --csv-raw); returns an exit code. */
int cli_render(cli_args *a, cli_out *o, const etp_doc *doc);
/* The render options cli_render() uses (for a streaming table, etp_stream_open). */
etp_render_opts cli_render_opts(cli_args *a, const cli_out *o);

/* A text built piece by piece with stdio (open_memstream). */
typedef struct cli_text {
    char *p; /* the text after cli_text_close(); the caller frees it */
    size_t n;
    FILE *f;
} cli_text;
bool cli_text_open(cli_text *t); /* false when out of memory */
/* Ends the writing; false when out of memory (t->p may then be NULL or partial). */
bool cli_text_close(cli_text *t);

/* Option values */
bool cli_get_double(cli_args *a, opt_id id, double *out);
bool cli_get_long(cli_args *a, opt_id id, long *out);

/* Progress on stderr for long runs (only on a tty, not with -q). */
void cli_progress(cli_args *a, const char *what, uint64_t done, uint64_t total);
void cli_progress_end(cli_args *a);

/* --runner-log F (the Arm runner's log, apart from the ETDump): read into *out (its Ethos-U PMU
 * report and VGF device times; etp_runner_log_read) and *pmu = &out->pmu; without the option *out
 * is empty and *pmu = the report of the log the dump was read from, or NULL (etp_dump_arm_pmu).
 * Call before any output; prints the error and returns the exit code. The caller frees *out with
 * etp_runner_log_free (also after a failure). */
struct etp_arm_pmu_report;
struct etp_runner_log;
int cli_runner_log(cli_args *a, const etp_dump *d, struct etp_runner_log *out,
                   const struct etp_arm_pmu_report **pmu);
/* The same for option `opt` (OPT_RUNNER_LOG_NEW: diff's NEW). */
int cli_runner_log_opt(cli_args *a, int opt, const etp_dump *d, struct etp_runner_log *out,
                       const struct etp_arm_pmu_report **pmu);

/* ETRecord rendering (cmd_etrecord.c): `etprof info R.etrecord` and the --etrecord columns of
 * ops and tree. The join itself is library code (etprof_etrecord.h). */
struct etp_etrecord;
/* 1 when the file at `path` starts like a ZIP (PK\3\4 or PK\5\6); reads 4 bytes. */
bool cli_is_zip(const char *path);
int cli_etrecord_info(cli_args *a, const char *path);
/* Opens --etrecord F when given (else *rec = NULL); prints the error and returns the exit code. */
int cli_etr_open(cli_args *a, struct etp_etrecord **rec);
/* Columns op_types, module, module_class, stack_trace (+ stack_trace_full, debug_handles in the
 * machine formats): appends them at cols[n], returns the new count. */
size_t cli_etr_cols(etp_col *cols, size_t n, bool machine);
#define CLI_ETR_MAX_COLS 6
typedef etp_etr_counts cli_etr_stats; /* etprof_etrecord.h */
/* The cells of one ops or tree row (same order as cli_etr_cols). */
void cli_etr_cells(etp_table *t, const struct etp_etrecord *rec, const char *method,
                   const etp_ops_row *row, bool machine, cli_etr_stats *st);
/* The same (the machine formats' six) as members of JSON object node `n` (tree). */
void cli_etr_node(etp_node *n, const struct etp_etrecord *rec, const char *method,
                  const etp_ops_row *row, cli_etr_stats *st);
/* The short pair for views of a few rows (summary, report, diff): columns module and source
 * (the innermost user frame FILE:LINE), appended at cols[n]; returns the new count. */
#define CLI_ETR_SHORT_COLS 2
size_t cli_etr_short_cols(etp_col *cols, size_t n);
void cli_etr_short_cells(etp_table *t, const struct etp_etrecord *rec, const char *method,
                         const etp_ops_row *row, cli_etr_stats *st);
/* "module PATH (CLASS), source FILE:LINE" of one row for prose (explain); NULL when the record
 * names neither (or out of memory). The caller frees it. */
char *cli_etr_where(const struct etp_etrecord *rec, const char *method, const etp_ops_row *row,
                    cli_etr_stats *st);
/* Without --etrecord (rec NULL) and with rows an ETRecord would name: one note saying what a
 * record would add and how to produce one (ops, tree, summary). */
void cli_etr_missing_note(const struct etp_etrecord *rec, const etp_ops_result *r,
                          void (*note)(void *, const char *), void *ctx);
/* The notes: how many rows matched, HTP nodes matched by name. */
void cli_etr_notes(const struct etp_etrecord *rec, const cli_etr_stats *st,
                   void (*note)(void *, const char *), void *ctx);

/* The command table (cmd_*.c). */
extern const cli_cmd cmd_info, cmd_events;
/* history, export: --label key=value, repeated, parsed into labels[] (text in bufs[]); prints
 * the error and returns EXIT_USAGE on a bad one (cmd_export.c). */
struct etp_label;
int cli_fleet_labels(cli_args *a, struct etp_label *labels, char (*bufs)[512], size_t *n);

#endif
