/* cmd_session.c - `etprof session FILE --pte P [--prefill-runs N] [--prompt-tokens N]`: the
 * generations of an LLM runner's dump (etprof_session.h computes them, etp_session_doc is the
 * document; docs/session.md). This file parses options, opens the files, calls and renders. */
#include "cli_ana.h"
#include "etprof_session.h"

#include <stdio.h>
#include <stdlib.h>

/* a count option >= lo, or -1 with the usage error printed */
static long count_opt(cli_args *a, opt_id id, long lo) {
    long v;
    if (!cli_get_long(a, id, &v) || v < lo || v > 1000000) {
        cli_errorf("session: --%s: expected a whole number from %ld to 1000000, got \"%s\"",
                   cli_opt(id)->name, lo, a->val[id]);
        return -1;
    }
    return v;
}

static int run_session(cli_args *a) {
    const char *path = a->pos[0];
    etp_session_opts so;
    etp_session_opts_init(&so);
    long v;
    if (a->set[OPT_PREFILL_RUNS]) {
        if ((v = count_opt(a, OPT_PREFILL_RUNS, 1)) < 0) return EXIT_USAGE;
        so.prefill_runs = (uint32_t)v;
    }
    if (a->set[OPT_PROMPT_TOKENS]) {
        if ((v = count_opt(a, OPT_PROMPT_TOKENS, 1)) < 0) return EXIT_USAGE;
        so.prompt_tokens = (uint32_t)v;
    }
    cli_ana ca;
    int rc;
    if ((rc = cli_ana_init(a, "session", 5, 0, &ca))) return rc;
    if (a->set[OPT_TOP]) so.slowest = (uint32_t)ca.top;
    if ((rc = cli_ana_compute(a, path, &ca))) return rc;
    etp_disp d = ca.d;
    cli_inputs in = ca.in;
    etp_ops_result *r = ca.r;
    etp_session_result *s = NULL;
    etp_error err = {0};
    int src = etp_session_compute(r, etp_model_program(in.model), &so, &s, &err);
    if (src) {
        cli_error(&err);
        etp_ops_free(r);
        cli_close_inputs(&in);
        return cli_exit_for(src);
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        etp_session_free(s);
        etp_ops_free(r);
        cli_close_inputs(&in);
        return rc;
    }
    etp_doc *doc = etp_doc_new("session", 1, path, a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL);
    int drc = doc ? etp_session_doc(doc, s, &d, &err) : ETP_E_INTERNAL;
    if (drc == ETP_OK && etp_doc_ok(doc)) {
        rc = cli_render(a, &o, doc);
    } else {
        cli_errorf("session: out of memory");
        rc = EXIT_INTERNAL;
    }
    etp_doc_free(doc);
    etp_session_free(s);
    etp_ops_free(r);
    cli_close_inputs(&in);
    return cli_out_close(&o, rc);
}

static const opt_id session_opts[] = {OPT_PTE,          OPT_METHOD,        OPT_IGNORE_MISMATCH,
                                      OPT_TICK_NS,      OPT_TICK_HZ,       OPT_TICKS,
                                      OPT_BLOCK,        OPT_TOP,           OPT_TIME_UNIT,
                                      OPT_PREFILL_RUNS, OPT_PROMPT_TOKENS, OPT_NONE};

const cli_cmd cmd_session = {
    .name = "session",
    .summary = "LLM generations: time to first token, prefill and decode tokens/s, per-token "
               "latency, each phase's split",
    .usage = "FILE --pte P [--prefill-runs N] [--prompt-tokens N]",
    .help = "A dump from an LLM runner: per generation, prefill run(s) then decode steps (one\n"
            "run, one token each). Which run is prefill comes from its method (the program's\n"
            "token input [1, L]: L > 1 prefill, 1 decode; else the name). Where the files cannot\n"
            "tell (an ambiguous method: shared context binary, no tensors logged),\n"
            "--prefill-runs N says the first N runs of each generation are prefill; without it\n"
            "etprof infers from order and duration, and every format says so. A generation\n"
            "starts at a prefill run after a decode run. Time to first token = the prefill\n"
            "runs' Method::execute; decode tokens/s over the steady steps (warm-up excluded,\n"
            "the rule of `etprof runs`), all steps too; --top N slowest decode steps per\n"
            "generation (default 5). See docs/session.md.",
    .opts = session_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_session,
};
