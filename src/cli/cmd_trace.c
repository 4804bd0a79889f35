/* cmd_trace.c - `etprof trace FILE [--pte P] -o trace.json`: Chrome Trace Event Format JSON for
 * Perfetto (ui.perfetto.dev) and chrome://tracing. The layout is in src/trace.c and
 * docs/trace.md. */
#include "cli.h"

#include <string.h>

static void progress(void *ctx, uint64_t done, uint64_t total) {
    cli_progress((cli_args *)ctx, "trace", done, total);
}

static int run_trace(cli_args *a) {
    if (a->fmt_set && a->fmt != OUT_JSON) {
        cli_errorf("trace: the output is always Chrome Trace Event JSON (--format json or none)");
        return EXIT_USAGE;
    }
    /* TODO(optrace): accept --optrace F (QNN optrace JSON, read by etp_qnn_read_optrace) and
     * pass it to the trace writer for an extra "HTP optrace" process; see src/trace.c. */
    const char *path = a->pos[0];
    etp_model_opts mo;
    int rc = cli_model_opts(a, &mo);
    if (rc) return rc;
    cli_inputs in;
    if ((rc = cli_open_inputs(a, path, &in))) return rc;
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        cli_close_inputs(&in);
        return rc;
    }
    etp_trace_opts to;
    memset(&to, 0, sizeof to);
    to.source = path;
    to.program = a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL;
    to.tick_ns = mo.tick_ns;
    to.progress = progress;
    to.progress_ctx = a;
    etp_trace_stats st;
    etp_error err = {0};
    int r = etp_trace_write(in.model, o.f, &to, &st, &err);
    cli_progress_end(a);
    if (r) {
        cli_error(&err);
        rc = cli_exit_for(r);
    }
    cli_close_inputs(&in);
    rc = cli_out_close(&o, rc);
    if (!rc && !a->quiet) {
        if (st.synthetic)
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

static const opt_id trace_opts[] = {OPT_PTE, OPT_METHOD, OPT_TICK_NS, OPT_TICK_HZ, OPT_TICKS, 0};

const cli_cmd cmd_trace = {
    .name = "trace",
    .summary = "Chrome Trace Event JSON of the runs, for Perfetto and chrome://tracing",
    .usage = "FILE [--pte P] -o trace.json",
    .help = "Open the output at https://ui.perfetto.dev (Open trace file) or chrome://tracing.\n"
            "One process per method (\"load\" for Program::load_method/Method::init), one group\n"
            "of tracks per run. Events with real host timestamps keep them (us since the first\n"
            "timestamp in the file). Delegate values without timestamps (QNN: cycles, us) are\n"
            "laid out inside their DELEGATE_CALL on their own tracks and marked\n"
            "args.synthetic = true; counts and bytes are instant events, never durations.\n"
            "See docs/trace.md.",
    .opts = trace_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_trace,
};
