/* cmd_events.c - `etprof events FILE [--pte P]`: every event with every field after defaults.
 * JSON/JSONL keys are the schema's own field names (docs/json-contract.md). */
#include "cli.h"
#include "event_json.h"

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
    jw w;
    out_table *t = NULL;
    /* millions of events: the writers keep their output here and hand it to the FILE in large
     * pieces (nothing else writes to it meanwhile) */
    static char jbuf[1 << 16];
    if (a->fmt == OUT_JSON) {
        jw_init(&w, o.f, true);
        jw_set_buffer(&w, jbuf, sizeof jbuf);
        jw_obj_begin(&w);
        jw_key(&w, "schema_version"); jw_int(&w, 1);
        jw_key(&w, "file"); jw_str(&w, path);
        jw_key(&w, "events");
        jw_arr_begin(&w);
    } else if (a->fmt != OUT_JSONL) {
        t = cli_table(a, &o, etp_event_cols, etp_event_ncols);
        /* a narrow terminal loses these first (out_table_set_droppable) */
        static const char *const drop[] = {
            "delegate_debug_id_int:14", "parent:13", "chain_index:12", "start_time:11",
            "end_time:10", "type:9", "method:8", "backend:7", "operator:6", "instruction_id:5",
            "kind:4", "unit+value:1", NULL};
        if (t) out_table_set_droppable(t, drop);
    }
    for (uint32_t b = 0; b < di->block_count && !rc; b++) {
        etp_block_view v;
        if ((rc = etp_model_block(in.model, b, &v, &err))) {
            cli_error(&err);
            rc = cli_exit_for(rc);
            break;
        }
        for (uint32_t i = 0; i < v.n; i++) {
            if (a->fmt == OUT_JSON) etp_event_json(&w, in.dump, &v, &v.events[i], with_program);
            else if (a->fmt == OUT_JSONL) {
                jw lw;
                jw_init(&lw, o.f, false);
                jw_set_buffer(&lw, jbuf, sizeof jbuf);
                etp_event_json(&lw, in.dump, &v, &v.events[i], with_program);
                if (jw_finish(&lw)) rc = EXIT_IO;
                fputc('\n', o.f);
            } else etp_event_row(t, &v, &v.events[i]);
        }
        if (a->fmt == OUT_JSON) jw_flush(&w);
        if (ferror(o.f)) rc = EXIT_IO;
        cli_progress(a, "events", b + 1, di->block_count);
    }
    cli_progress_end(a);
    if (a->fmt == OUT_JSON) {
        jw_arr_end(&w);
        jw_obj_end(&w);
        if (jw_finish(&w) && !rc) rc = EXIT_IO;
        fputc('\n', o.f);
    } else if (t) {
        if (out_table_finish(t) && !rc) rc = EXIT_IO;
        out_table_free(t);
    }
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
