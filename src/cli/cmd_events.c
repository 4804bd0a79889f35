/* cmd_events.c - `etprof events FILE [--pte P]`: every event with every field after defaults.
 * JSON/JSONL keys are the schema's own field names (docs/json-contract.md). */
#include "cli.h"
#include "etprof_events.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int run_events(cli_args *a) {
    const char *path = a->pos[0];
    cli_inputs in;
    int rc = cli_open_inputs(a, path, &in);
    if (rc) return rc;
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        cli_close_inputs(&in);
        return rc;
    }
    const etp_dump_info *di = etp_dump_get_info(in.dump);
    bool with_program = in.prog != NULL;
    etp_error err = {0};
    /* millions of events: each row goes out as it comes (etprof_events.h), nothing is kept but
     * the table format's cell text */
    etp_render_opts ro = cli_render_opts(a, &o);
    etp_stream *s = etp_events_open(a->fmt, o.f, &ro, path);
    for (uint32_t b = 0; b < di->block_count && !rc; b++) {
        etp_block_view v;
        if ((rc = etp_model_block(in.model, b, &v, &err))) {
            cli_error(&err);
            rc = cli_exit_for(rc);
            break;
        }
        for (uint32_t i = 0; i < v.n; i++) etp_events_row(s, in.dump, &v, &v.events[i], with_program);
        int frc = etp_stream_flush(s);
        if (frc == ETP_E_IO) rc = EXIT_IO;
        else if (frc && etp_stream_error(s, &err)) { /* the table over the memory budget */
            cli_error(&err);
            rc = cli_exit_for(frc);
        }
        cli_progress(a, "events", b + 1, di->block_count);
    }
    cli_progress_end(a);
    if (s && etp_stream_close(s) && !rc) rc = EXIT_IO;
    cli_close_inputs(&in);
    return cli_out_close(&o, rc);
}

static const opt_id events_opts[] = {OPT_PTE, OPT_METHOD, OPT_IGNORE_MISMATCH, OPT_TICK_NS, OPT_TICK_HZ, OPT_TICKS, 0};

const cli_cmd cmd_events = {
    .name = "events",
    .summary = "every event with every field (defaults applied), its block, kind and instruction",
    .usage = "FILE [--pte P]",
    .help = "JSON and JSONL use the ETDump schema's own field names; see docs/json-contract.md.\n"
            "--format jsonl streams one object per event per line, for huge files and pipes.",
    .opts = events_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_events,
};
