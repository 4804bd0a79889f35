/* cmd_trace.c - `etprof trace FILE [--pte P] -o trace.json`: Chrome Trace Event Format JSON for
 * Perfetto (ui.perfetto.dev) and chrome://tracing, or with --format perfetto / -o X.pftrace
 * Perfetto's protobuf trace. The layout is in src/write/trace.c and docs/trace.md. */
#include "etprof_etrecord.h"
#include "cli.h"

#include <errno.h>
#include "cli_ana.h"
#include "etprof_qnn.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void progress(void *ctx, uint64_t done, uint64_t total) {
    cli_progress((cli_args *)ctx, "trace", done, total);
}

/* --runs A-B, A- or A (1 <= A <= B); --max-runs N, --skip-first N (N >= 0) */
static int run_options(cli_args *a, etp_trace_opts *to) {
    if (a->set[OPT_RUNS]) {
        const char *s = a->val[OPT_RUNS];
        char *end;
        errno = 0;
        unsigned long lo = strtoul(s, &end, 10), hi = lo;
        bool ok = end != s && isdigit((unsigned char)s[0]) && !errno;
        if (ok && *end == '-') {
            const char *h = end + 1;
            if (*h == 0) {
                hi = 0;
                end = (char *)h;
            } else {
                hi = strtoul(h, &end, 10);
                ok = end != h && isdigit((unsigned char)h[0]) && !errno;
            }
        }
        if (!ok || *end || lo < 1 || lo > UINT32_MAX || hi > UINT32_MAX || (hi && hi < lo)) {
            cli_errorf("trace: --runs: expected A-B, A- or A with 1 <= A <= B (runs of each "
                       "method, counted from 1), got \"%s\"",
                       s);
            return EXIT_USAGE;
        }
        to->run_first = (uint32_t)lo;
        to->run_last = (uint32_t)hi;
    }
    long v;
    if (a->set[OPT_MAX_RUNS]) {
        if (!cli_get_long(a, OPT_MAX_RUNS, &v) || v < 1 || v > (long)UINT32_MAX) {
            cli_errorf("trace: --max-runs: expected a number >= 1, got \"%s\"", a->val[OPT_MAX_RUNS]);
            return EXIT_USAGE;
        }
        to->max_runs = (uint32_t)v;
    }
    if (a->set[OPT_SKIP_FIRST]) {
        if (!cli_get_long(a, OPT_SKIP_FIRST, &v) || v < 0 || v > (long)UINT32_MAX) {
            cli_errorf("trace: --skip-first: expected a number >= 0, got \"%s\"",
                       a->val[OPT_SKIP_FIRST]);
            return EXIT_USAGE;
        }
        to->skip_first = (uint32_t)v;
    }
    return EXIT_OK;
}

/* Whether `name` ends with `suffix`. */
static bool ends_with(const char *name, const char *suffix) {
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && strcmp(name + n - k, suffix) == 0;
}

static int run_trace(cli_args *a) {
    /* --format perfetto, or -o NAME.pftrace[.gz] without --format: Perfetto's protobuf trace */
    bool perfetto = a->set[OPT_FORMAT] && strcmp(a->val[OPT_FORMAT], "perfetto") == 0;
    if (a->fmt_set && a->fmt != ETP_FMT_JSON) {
        cli_errorf("trace: --format json (Chrome Trace Event JSON, the default) or perfetto "
                   "(Perfetto's protobuf trace), got \"%s\"",
                   a->val[OPT_FORMAT]);
        return EXIT_USAGE;
    }
    if (!a->set[OPT_FORMAT] && a->set[OPT_OUTPUT] &&
        (ends_with(a->val[OPT_OUTPUT], ".pftrace") || ends_with(a->val[OPT_OUTPUT], ".pftrace.gz")))
        perfetto = true;
    if (perfetto && !a->set[OPT_OUTPUT] && isatty(STDOUT_FILENO)) {
        cli_errorf("trace: --format perfetto writes binary protobuf: give -o NAME.pftrace");
        return EXIT_USAGE;
    }
    const char *path = a->pos[0];
    etp_model_opts mo;
    int rc = cli_model_opts(a, &mo);
    if (rc) return rc;
    etp_trace_opts to;
    memset(&to, 0, sizeof to);
    if ((rc = run_options(a, &to))) return rc;
    /* --optrace: the HTP timeline needs a clock (--htp-clock-ghz, runtrace or QHAS). */
    etp_qnn_trace *ot = NULL;
    double ghz = 0;
    const char *clock_src = NULL;
    if (a->set[OPT_OPTRACE]) {
        if ((rc = cli_ana_clock(a, "trace", &ghz, &clock_src))) return rc;
        if (!clock_src || !(ghz > 0)) {
            cli_errorf("trace: --optrace: the HTP clock is unknown, so cycles cannot be placed in "
                       "time; give --runtrace F (measured), --qhas F (timeline / graph execute) "
                       "or --htp-clock-ghz G");
            return EXIT_USAGE;
        }
        etp_error e0 = {0};
        int r0 = etp_qnn_read_optrace(a->val[OPT_OPTRACE], &ot, &e0);
        if (r0) {
            cli_error(&e0);
            return cli_exit_for(r0);
        }
    } else if (a->set[OPT_RUNTRACE] || a->set[OPT_QHAS] || a->set[OPT_HTP_CLOCK_GHZ]) {
        cli_errorf("trace: --runtrace, --qhas and --htp-clock-ghz only give the clock of "
                   "--optrace; give --optrace F too");
        return EXIT_USAGE;
    }
    etp_etrecord *rec;
    if ((rc = cli_etr_open(a, &rec))) {
        etp_qnn_trace_free(ot);
        return rc;
    }
    cli_inputs in;
    if ((rc = cli_open_inputs(a, path, &in))) {
        etp_qnn_trace_free(ot);
        etp_etrecord_close(rec);
        return rc;
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        cli_close_inputs(&in);
        etp_qnn_trace_free(ot);
        etp_etrecord_close(rec);
        return rc;
    }
    to.etrecord = rec;
    to.source = path;
    to.program = a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL;
    to.tick_ns = in.tick_ns;
    to.progress = progress;
    to.progress_ctx = a;
    etp_trace_stats st;
    etp_error err = {0};
    /* -o NAME.gz: the trace gzip-compressed (Perfetto and chrome://tracing open .json.gz) */
    const char *op = a->set[OPT_OUTPUT] ? a->val[OPT_OUTPUT] : NULL;
    size_t opl = op ? strlen(op) : 0;
    FILE *gz = NULL;
    if (opl > 3 && strcmp(op + opl - 3, ".gz") == 0 && !(gz = etp_gzip_open(o.f, &err))) {
        cli_error(&err);
        cli_close_inputs(&in);
        etp_qnn_trace_free(ot);
        etp_etrecord_close(rec);
        return cli_out_close(&o, EXIT_INTERNAL);
    }
    FILE *tf = gz ? gz : o.f;
    int r = perfetto ? etp_trace_write_perfetto(in.model, tf, &to, ot, ghz, clock_src, &st, &err)
                     : etp_trace_write_htp(in.model, tf, &to, ot, ghz, clock_src, &st, &err);
    etp_qnn_trace_free(ot);
    cli_progress_end(a);
    int gz_errno = 0;
    if (gz && fclose(gz) != 0) gz_errno = errno ? errno : EIO; /* the gzip trailer, flushed */
    if ((r == ETP_E_IO && (gz || ferror(o.f))) || (!r && gz_errno)) {
        /* the output's write failed: cli_out_close says so, once */
        o.err = gz_errno ? gz_errno : errno;
        rc = EXIT_IO;
    } else if (r) {
        cli_error(&err);
        rc = cli_exit_for(r);
    }
    cli_close_inputs(&in);
    etp_etrecord_close(rec);
    rc = cli_out_close(&o, rc);
    if (!rc && !a->quiet) {
        if (st.synthetic && !perfetto)
            fprintf(stderr,
                    "etprof: trace: %llu of %llu slices are synthetic (delegate values without "
                    "timestamps, placed inside their DELEGATE_CALL; args.synthetic = true)\n",
                    (unsigned long long)st.synthetic, (unsigned long long)st.slices);
        if (st.clamped)
            fprintf(stderr, "etprof: trace: %llu slices were shortened to fit their enclosing "
                            "call (args.clamped = true)\n",
                    (unsigned long long)st.clamped);
        if (st.unplaced)
            fprintf(stderr, "etprof: trace: %llu events have no time and no timed enclosing "
                            "call: left out\n",
                    (unsigned long long)st.unplaced);
    }
    return rc;
}

static const opt_id trace_opts[] = {OPT_PTE,     OPT_METHOD,   OPT_IGNORE_MISMATCH,   OPT_TICK_NS,       OPT_TICK_HZ,
                                    OPT_TICKS,   OPT_OPTRACE,  OPT_RUNTRACE,      OPT_QHAS,
                                    OPT_HTP_CLOCK_GHZ, OPT_RUNS, OPT_MAX_RUNS, OPT_SKIP_FIRST, OPT_ETRECORD, 0};

const cli_cmd cmd_trace = {
    .name = "trace",
    .summary = "Chrome Trace Event JSON of the runs, for Perfetto and chrome://tracing",
    .usage = "FILE [--pte P] [--runs A-B] [--skip-first N] [--max-runs N] [--optrace F "
             "[--runtrace F | --qhas F | --htp-clock-ghz G]] [--format perfetto] "
             "-o trace.json[.gz] | -o trace.pftrace",
    .help = "Open the output at https://ui.perfetto.dev (Open trace file) or chrome://tracing.\n"
            "One process per method (\"load\" for Program::load_method/Method::init), one group\n"
            "of tracks per run. Events with real host timestamps keep them (us since the first\n"
            "timestamp in the file). Delegate values without timestamps (QNN: cycles, us) are\n"
            "laid out inside their DELEGATE_CALL on their own tracks and marked\n"
            "args.synthetic = true; counts and bytes are instant events, never durations.\n"
            "With --optrace (QNN optrace JSON) a process \"HTP (optrace)\" shows the HTP ops per\n"
            "hardware thread (HMX, HVX) converted from cycles with the HTP clock (--runtrace,\n"
            "--qhas or --htp-clock-ghz; required), starting at the first QnnBackend\n"
            "DELEGATE_CALL, plus VTCM/DRAM counters; args.synthetic_time = true.\n"
            "Big dumps: --runs A-B (runs A to B of each method, 1-based; A- to the end),\n"
            "--skip-first N, --max-runs N choose the runs written; they keep their numbers.\n"
            "-o NAME.gz writes the trace gzip-compressed (Perfetto opens .json.gz).\n"
            "--format perfetto (or -o NAME.pftrace) writes Perfetto's own protobuf trace\n"
            "instead, about a tenth of the JSON or less: tracks file > method > run, QNN\n"
            "cycles and counts as counters with units or arguments of their call (never\n"
            "durations), flows from each DELEGATE_CALL to the backend events inside it.\n"
            "See docs/trace.md.",
    .opts = trace_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_trace,
};
