/* cli.c - shared plumbing of the etprof command: options, inputs, output, errors. */
#include "cli.h"
#include "etprof_arm_pmu.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const cli_optdef optdefs[] = {
    {OPT_FORMAT, "format", 'f', "FMT", "output format: table, csv, tsv, json, jsonl, md"},
    {OPT_OUTPUT, "output", 'o', "FILE", "write to FILE (atomically) instead of standard output"},
    {OPT_HELP, "help", 'h', NULL, "show this help"},
    {OPT_QUIET, "quiet", 'q', NULL, "no progress indicator, no notes on standard error"},
    {OPT_CSV_RAW, "csv-raw", 0, NULL,
     "csv/tsv: text cells starting with = + - @ TAB CR are not prefixed with '"},
    {OPT_WIDE, "wide", 0, NULL,
     "table: every column at full width, whatever COLUMNS or the terminal width"},
    {OPT_PTE, "pte", 0, "P", "the program (.pte/.bpte) that ran: names operators and backends"},
    {OPT_METHOD, "method", 0, "NAME", "the method that ran (default: inferred from the events)"},
    {OPT_STRICT, "strict", 0, NULL,
     "--method that the files contradict (logged tensor shapes, delegate blob) is an error"},
    {OPT_IGNORE_MISMATCH, "ignore-program-mismatch", 0, NULL,
     "go on when --pte cannot explain the dump's events (those runs stay unresolved; warns)"},
    {OPT_TICK_NS, "tick-ns", 0, "RATIO", "nanoseconds per host tick (default 1, Linux/Android; an Arm runner log: ticks)"},
    {OPT_TICK_HZ, "tick-hz", 0, "HZ", "host tick rate, e.g. a bare-metal cycle counter clock"},
    {OPT_TICKS, "ticks", 0, NULL, "host ticks have an unknown rate: report them as ticks"},
    {OPT_SORT, "sort", 0, "KEY", "sort rows by this column (descending for numbers)"},
    {OPT_TOP, "top", 0, "N", "only the first N rows"},
    {OPT_BLOCK, "block", 0, "NAME", "only blocks with this name"},
    {OPT_PLACEMENT, "placement", 0, "WHERE", "only rows placed on cpu or on this backend"},
    {OPT_KIND, "kind", 0, "KIND", "only rows of this kind"},
    {OPT_BY, "by", 0, "WHAT", "type: one row per operator type (count, total, avg, share, cumulative share)"},
    {OPT_RUNS, "runs", 0, "A-B", "trace: only runs A to B of each method (1-based; A-: to the end)"},
    {OPT_MAX_RUNS, "max-runs", 0, "N", "trace: at most N runs of each method"},
    {OPT_SKIP_FIRST, "skip-first", 0, "N", "ignore the first N runs of each method (warm-up)"},
    {OPT_ALL, "all", 0, NULL, "also show OPERATOR_CALL wrapper rows"},
    {OPT_STAT, "stat", 0, "STAT", "per-run statistic: min, p10, p50, p90, avg, max"},
    {OPT_TIME_UNIT, "time-unit", 0, "U", "unit for time values: ns, us, ms, s (default us)"},
    {OPT_HTP_CLOCK_GHZ, "htp-clock-ghz", 0, "GHZ", "HTP clock, to estimate time from cycles"},
    {OPT_QHAS, "qhas", 0, "F", "QNN HTP analysis summary JSON (QHAS)"},
    {OPT_OPTRACE, "optrace", 0, "F", "QNN optrace Chrome-trace JSON"},
    {OPT_RUNTRACE, "runtrace", 0, "F", "QNN runtrace JSON"},
    {OPT_HEAP, "heap", 0, "F", "QNN DSP heap-profiling text file"},
    {OPT_PROFILE_LOG, "profile-log", 0, "F", "qnn-profile-viewer text output"},
    {OPT_PROFILE_CSV, "profile-csv", 0, "F", "qnn-profile-viewer CSV output"},
    {OPT_THRESHOLD, "threshold", 0, "PCT", "smallest change to report, in percent"},
    {OPT_FAIL_ON_REGRESSION, "fail-on-regression", 0, "PCT",
     "exit 5 on a confident p50 regression beyond PCT percent, 6 when too few runs to judge"},
    {OPT_PTE_NEW, "pte-new", 0, "P", "the program NEW ran, when it differs from --pte"},
    {OPT_ALLOW_INCONCLUSIVE, "allow-inconclusive", 0, NULL,
     "with --fail-on-regression: exit 0, not 6, when inconclusive (with a warning)"},
    {OPT_DEBUG_BUFFER, "debug-buffer", 0, "F", "the debug buffer holding logged tensors"},
    {OPT_DUMP_DIR, "dump", 0, "DIR", "also write each tensor as a NumPy .npy file into DIR"},
    {OPT_DEBUG_BUFFER_NEW, "debug-buffer-new", 0, "F", "the NEW run's debug buffer (compare)"},
    {OPT_FAIL_BELOW_SNR, "fail-below-snr", 0, "DB",
     "exit 7 when a compared tensor's SNR is below DB decibels"},
    {OPT_ETRECORD, "etrecord", 0, "F",
     "the ETRecord of the program: op types, nn.Module and source line per row"},
    {OPT_SELECT, "select", 0, "EXPR",
     "only these values: instr=N|A-B, run=N|A-B, block=N|A-B, op=TEXT (substring), op==TEXT"},
    {OPT_ETRECORD_NEW, "etrecord-new", 0, "F", "the ETRecord of the program NEW ran (compare)"},
    {OPT_TEST_CASE, "test-case", 0, "N", "the bundled test case whose inputs ran (default 0)"},
    {OPT_RTOL, "rtol", 0, "R", "relative tolerance (default 1e-5, as ExecuTorch's verification)"},
    {OPT_ATOL, "atol", 0, "A", "absolute tolerance (default 1e-8, as ExecuTorch's verification)"},
    {OPT_HTML, "html", 0, "FILE",
     "also write a self-contained HTML page with the per-op SNR chart (compare)"},
    {OPT_LABEL, "label", 0, "NAME",
     "several FILEs: the label of the next FILE (repeat it, one per FILE; default: base name)"},
    {OPT_MODULE, "module", 0, "NAME",
     "modules: only this nn.Module path (e.g. layers.0.attention) and the modules below it"},
    {OPT_RUNNER_LOG, "runner-log", 0, "F",
     "the runner's log, when the ETDump is a file apart: Ethos-U PMU report, VGF device times"},
    {OPT_RUNNER_LOG_NEW, "runner-log-new", 0, "F",
     "diff: the Arm runner's serial log of NEW, when its ETDump is a file apart"},
    {OPT_METRIC, "metric", 0, "M",
     "history: the per-run figure a series follows: latency (default), delegate, cpu, framework"},
    {OPT_GZIP, "gzip", 0, NULL, "export: gzip the output (the fleet upload's .json.gz)"},
    {OPT_SCHEMA, "schema", 0, "DB", "export: print the CREATE TABLE of the op table for DB (clickhouse)"},
    {OPT_REPO, "repo", 0, "OWNER/NAME", "export v3: the repository (required)"},
    {OPT_HEAD_BRANCH, "head-branch", 0, "B", "export v3: the branch"},
    {OPT_HEAD_SHA, "head-sha", 0, "SHA", "export v3: the commit benchmarked (required)"},
    {OPT_WORKFLOW_ID, "workflow-id", 0, "N", "export v3: the CI workflow run id (required)"},
    {OPT_JOB_ID, "job-id", 0, "N", "export v3: the CI job id (required)"},
    {OPT_RUN_ATTEMPT, "run-attempt", 0, "N", "export v3: the workflow run attempt (required)"},
    {OPT_TIMESTAMP, "timestamp", 0, "T", "export v3: the records' Unix time in seconds (required)"},
    {OPT_PREFILL_RUNS, "prefill-runs", 0, "N",
     "session: the first N runs of each generation are prefill (when the files cannot tell)"},
    {OPT_PROMPT_TOKENS, "prompt-tokens", 0, "N",
     "session: the prompt length in tokens (default: the prefill method's input shape)"},
};

const cli_optdef *cli_opt(opt_id id) {
    for (size_t i = 0; i < sizeof optdefs / sizeof optdefs[0]; i++)
        if (optdefs[i].id == id) return &optdefs[i];
    return NULL;
}

void cli_errorf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("etprof: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static char *warn_text; /* the held warnings, each "etprof: warning: ...\n" */
static size_t warn_len;

void cli_warnf(const char *fmt, ...) {
    static const char head[] = "etprof: warning: ";
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    char *t = realloc(warn_text, warn_len + sizeof head + (size_t)n + 1);
    if (!t) return; /* out of memory: a warning is not worth failing for */
    warn_text = t;
    memcpy(t + warn_len, head, sizeof head - 1);
    warn_len += sizeof head - 1;
    va_start(ap, fmt);
    vsnprintf(t + warn_len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    warn_len += (size_t)n;
    memcpy(t + warn_len, "\n", 2);
    warn_len += 1;
}

void cli_warn_flush(int rc) {
    if (warn_text && rc != EXIT_INPUT) {
        fputs(warn_text, stderr);
        fflush(stderr);
    }
    free(warn_text);
    warn_text = NULL;
    warn_len = 0;
}

void cli_error(const etp_error *err) {
    char buf[ETP_ERR_FILE_MAX + ETP_ERR_PATH_MAX + ETP_ERR_MSG_MAX + 64];
    etp_error_format(err, buf, sizeof buf);
    cli_errorf("%s", buf);
}

int cli_exit_for(int code) { return etp_exit_code(code); }

int cli_open_debug_buffer(etp_blob *b, const char *path) {
    etp_error err = {0};
    int rc = etp_blob_open_expect(b, path, ETP_EXPECT_DEBUG_BUFFER, &err);
    if (!rc && (rc = etp_debug_buffer_check(b, NULL, &err))) etp_blob_close(b);
    if (!rc) return 0;
    memset(b, 0, sizeof *b);
    cli_error(&err);
    return cli_exit_for(rc);
}

bool cli_get_double(cli_args *a, opt_id id, double *out) {
    if (!a->set[id]) return false;
    char *end;
    errno = 0;
    double v = strtod(a->val[id], &end);
    if (errno || end == a->val[id] || *end || !isfinite(v)) return false;
    *out = v;
    return true;
}

bool cli_get_long(cli_args *a, opt_id id, long *out) {
    if (!a->set[id]) return false;
    char *end;
    errno = 0;
    long v = strtol(a->val[id], &end, 10);
    if (errno || end == a->val[id] || *end) return false;
    *out = v;
    return true;
}

int cli_model_opts(cli_args *a, etp_model_opts *mo) {
    etp_model_opts_init(mo);
    mo->method = a->set[OPT_METHOD] ? a->val[OPT_METHOD] : NULL;
    mo->ignore_program_mismatch = a->set[OPT_IGNORE_MISMATCH];
    mo->strict_method = a->set[OPT_STRICT];
    int n = a->set[OPT_TICK_NS] + a->set[OPT_TICK_HZ] + a->set[OPT_TICKS];
    if (n > 1) {
        cli_errorf("--tick-ns, --tick-hz and --ticks exclude each other");
        return EXIT_USAGE;
    }
    double v;
    if (a->set[OPT_TICK_NS]) {
        if (!cli_get_double(a, OPT_TICK_NS, &v) || v <= 0) {
            cli_errorf("--tick-ns: expected a positive number, got \"%s\"", a->val[OPT_TICK_NS]);
            return EXIT_USAGE;
        }
        mo->tick_ns = v;
    }
    if (a->set[OPT_TICK_HZ]) {
        if (!cli_get_double(a, OPT_TICK_HZ, &v) || v <= 0) {
            cli_errorf("--tick-hz: expected a positive frequency in Hz, got \"%s\"",
                       a->val[OPT_TICK_HZ]);
            return EXIT_USAGE;
        }
        mo->tick_ns = 1e9 / v;
    }
    if (a->set[OPT_TICKS]) mo->tick_ns = 0;
    return EXIT_OK;
}

static int open_inputs(cli_args *a, etp_blob *blob, cli_inputs *in, bool background,
                       bool kinds_only);

static int open_path(cli_args *a, const char *path, cli_inputs *in, bool background) {
    etp_error err = {0};
    etp_blob blob;
    int rc = etp_blob_open_expect(&blob, path, ETP_EXPECT_DUMP, &err);
    if (rc) {
        memset(in, 0, sizeof *in);
        cli_error(&err);
        return cli_exit_for(rc);
    }
    return open_inputs(a, &blob, in, background, false);
}

int cli_open_inputs(cli_args *a, const char *path, cli_inputs *in) {
    return open_path(a, path, in, false);
}

int cli_open_inputs_bg(cli_args *a, const char *path, cli_inputs *in) {
    return open_path(a, path, in, true);
}

static void verify_progress(void *ctx, uint64_t done, uint64_t total) {
    cli_progress(ctx, "reading", done, total);
}

int cli_open_inputs_blob_kinds(cli_args *a, etp_blob *blob, cli_inputs *in) {
    return open_inputs(a, blob, in, true, true);
}

/* With `background`, the dump's blocks are verified by a second thread while the command runs
 * (etp_dump_open_opts.background); any error of the inputs is still the one a full verification first
 * would have reported: the dump's, when it has one. */
static int open_inputs(cli_args *a, etp_blob *blob, cli_inputs *in, bool background,
                       bool kinds_only) {
    etp_error err = {0};
    memset(in, 0, sizeof *in);
    in->dump_blob = *blob;
    memset(blob, 0, sizeof *blob);
    /* the tick options are checked (and their errors printed) before the model opens: then the
     * dump must have been verified first, as it always was */
    if (a->set[OPT_TICK_NS] || a->set[OPT_TICK_HZ] || a->set[OPT_TICKS]) background = false;
    int rc;
    if (background) {
        etp_dump_open_opts oo = {.background = true};
        rc = etp_dump_open_with(&in->dump, &in->dump_blob, &oo, &err);
    } else {
        /* verifying a large file takes a while: a progress line on a terminal */
        etp_dump_open_opts oo = {.progress = verify_progress, .progress_ctx = a};
        rc = etp_dump_open_with(&in->dump, &in->dump_blob, &oo, &err);
        cli_progress_end(a);
    }
    if (!rc && etp_dump_source_note(in->dump))
        cli_warnf("%s", etp_dump_source_note(in->dump));
    if (!rc && a->set[OPT_PTE]) {
        rc = etp_blob_open_expect(&in->pte_blob, a->val[OPT_PTE], ETP_EXPECT_PROGRAM, &err);
        if (!rc) rc = etp_program_open(&in->prog, &in->pte_blob, &err);
    }
    etp_model_opts mo;
    int x = rc ? EXIT_OK : cli_model_opts(a, &mo);
    if (x) {
        cli_close_inputs(in);
        return x;
    }
    mo.dump_name = in->dump_blob.name;
    mo.kinds_only = kinds_only;
    if (!rc && !a->set[OPT_TICK_NS] && !a->set[OPT_TICK_HZ] && !a->set[OPT_TICKS]) {
        /* no rate given: the dump's own (ticks for a bare-metal runner's log), said once */
        const char *why = NULL;
        mo.tick_ns = etp_dump_default_tick_ns(in->dump, &why);
        if (why) cli_warnf("%s: %s", in->dump_blob.name, why);
    }
    in->tick_ns = mo.tick_ns;
    if (!rc) rc = etp_model_open(&in->model, in->dump, in->prog, &mo, &err);
    if (rc) {
        etp_error derr = {0};
        int drc = in->dump ? etp_dump_wait_verified(in->dump, &derr) : ETP_OK;
        cli_error(drc ? &derr : &err); /* the dump's own error comes first */
        cli_close_inputs(in);
        return cli_exit_for(drc ? drc : rc);
    }
    return EXIT_OK;
}

void cli_close_inputs(cli_inputs *in) {
    const char *first = NULL;
    uint32_t nc = in->model ? etp_model_method_conflict(in->model, &first) : 0;
    if (nc)
        fprintf(stderr,
                "etprof: warning: --method contradicts the files in %u block(s); first: %s\n", nc,
                first);
    uint32_t nm = in->model ? etp_model_mismatch(in->model, &first) : 0;
    if (nm)
        cli_warnf("--ignore-program-mismatch: %u block(s) do not fit the program and were left "
                  "unresolved; first: %s",
                  nm, first);
    etp_model_close(in->model);
    etp_dump_close(in->dump);
    etp_program_close(in->prog);
    if (in->dump_blob.kind) etp_blob_close(&in->dump_blob);
    if (in->pte_blob.kind) etp_blob_close(&in->pte_blob);
    memset(in, 0, sizeof *in);
}

int cli_out_open(cli_args *a, cli_out *o) {
    etp_error err = {0};
    memset(o, 0, sizeof *o);
    const char *path = a->set[OPT_OUTPUT] ? a->val[OPT_OUTPUT] : NULL;
    int rc = etp_outfile_open(&o->s, path, &err);
    if (rc) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    o->f = etp_outfile_stream(o->s);
    o->tty = !path && isatty(STDOUT_FILENO);
    /* Table width on standard output: COLUMNS when set (as ls does), else the terminal's. */
    const char *cols = path || a->set[OPT_WIDE] ? NULL : getenv("COLUMNS");
    char *end = NULL;
    long cw = cols && *cols ? strtol(cols, &end, 10) : 0;
    if (end && !*end && cw >= 20 && cw <= 100000) {
        o->width = (int)cw;
    } else if (o->tty && !a->set[OPT_WIDE]) {
        struct winsize ws;
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) o->width = ws.ws_col;
    }
    return EXIT_OK;
}

/* The one place a failed write is reported (issue 16.3). */
static int out_write_failed(cli_out *o, int errnum) {
    bool pipe_gone = errnum == EPIPE && etp_outfile_is_stdout(o->s);
    etp_error err = {0};
    etp_outfile_write_error(o->s, errnum, &err);
    etp_outfile_abort(o->s);
    o->s = NULL;
    if (pipe_gone) {
        /* `etprof ... | head`: the reader has all it wanted; quiet, the status a SIGPIPE death
         * gives (128 + 13) */
        clearerr(stdout);
        return EXIT_SIGPIPE;
    }
    cli_error(&err);
    return EXIT_IO;
}

int cli_out_close(cli_out *o, int rc) {
    if (!o->s) return rc;
    int e = o->err ? o->err : errno; /* the failing write's, unless something came between */
    if (rc == EXIT_OK || rc == EXIT_IO) {
        bool failed = ferror(o->f) != 0;
        if (failed || rc == EXIT_IO) {
            /* retry what is still buffered: its errno is the failing write's own */
            clearerr(o->f);
            errno = 0;
            if (fflush(o->f) != 0) {
                failed = true;
                if (errno) e = errno;
            }
        }
        /* rc == EXIT_IO without a failed write: an input error, already reported */
        if (failed) return out_write_failed(o, e);
    }
    if (rc) {
        etp_outfile_abort(o->s);
        o->s = NULL;
        return rc;
    }
    etp_error err = {0};
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f)) return out_write_failed(o, errno ? errno : e);
    int r = etp_outfile_commit(o->s, &err);
    o->s = NULL;
    if (r) {
        cli_error(&err);
        return cli_exit_for(r);
    }
    return EXIT_OK;
}

etp_render_opts cli_render_opts(cli_args *a, const cli_out *o) {
    return (etp_render_opts){.width = o->width, .csv_raw = a->set[OPT_CSV_RAW]};
}

int cli_render(cli_args *a, cli_out *o, const etp_doc *doc) {
    etp_render_opts ro = cli_render_opts(a, o);
    int rc = etp_doc_render(doc, a->fmt, o->f, &ro);
    return rc == ETP_E_IO ? EXIT_IO : rc ? EXIT_INTERNAL : EXIT_OK;
}

/* Is standard error a terminal? Asked once (this is called per block). */
static bool stderr_tty(void) {
    static int tty = -1;
    if (tty < 0) tty = isatty(STDERR_FILENO) ? 1 : 0;
    return tty == 1;
}

static int progress_last = -1;           /* percentage shown, -1 = none */
static const char *progress_what = NULL; /* of which step */

void cli_progress(cli_args *a, const char *what, uint64_t done, uint64_t total) {
    if (a->quiet || total == 0 || !stderr_tty()) return;
    int pct = (int)(done * 100 / total);
    if (pct == progress_last && what == progress_what) return;
    progress_last = pct;
    progress_what = what;
    fprintf(stderr, "\r%s %3d%%", what, pct);
    fflush(stderr);
}

void cli_progress_end(cli_args *a) {
    if (a->quiet || !stderr_tty() || progress_last < 0) return;
    progress_last = -1;
    progress_what = NULL;
    fputs("\r\033[K", stderr);
    fflush(stderr);
}

bool cli_text_open(cli_text *t) {
    t->p = NULL;
    t->n = 0;
    t->f = open_memstream(&t->p, &t->n);
    return t->f != NULL;
}

bool cli_text_close(cli_text *t) {
    bool ok = t->f && fclose(t->f) == 0 && t->p;
    t->f = NULL;
    return ok;
}

void cli_node_qnn_soc(etp_node *o, const etp_qnn_soc *soc) {
    etp_node_int(o, "model_id", soc->soc_model);
    etp_node_str(o, "model", soc->soc_name);
    if (soc->htp_arch) etp_node_int(o, "htp_arch", soc->htp_arch);
    else etp_node_null(o, "htp_arch");
    if (soc->vtcm_mb) etp_node_int(o, "vtcm_budget_bytes", (int64_t)soc->vtcm_mb * 1048576);
    else etp_node_null(o, "vtcm_budget_bytes");
    etp_node_bool(o, "differs", soc->differs);
    char w[600];
    etp_node_str(o, "vtcm_warning", etp_qnn_soc_vtcm_note(soc, w, sizeof w) > 0 ? w : NULL);
}

int cli_runner_log_opt(cli_args *a, int opt, const etp_dump *d, etp_runner_log *out,
                       const etp_arm_pmu_report **pmu) {
    memset(out, 0, sizeof *out);
    *pmu = etp_dump_arm_pmu(d);
    if (!a->set[opt]) return EXIT_OK;
    etp_error err = {0};
    int rc = etp_runner_log_read(a->val[opt], out, &err);
    if (rc) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    *pmu = &out->pmu;
    return EXIT_OK;
}

int cli_runner_log(cli_args *a, const etp_dump *d, etp_runner_log *out,
                   const etp_arm_pmu_report **pmu) {
    return cli_runner_log_opt(a, OPT_RUNNER_LOG, d, out, pmu);
}
