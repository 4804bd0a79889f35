/* cmd_tree.c - `etprof tree FILE [--pte P]`: the hierarchy of a method's time, per-run statistic,
 * with inclusive/exclusive time, shares, overhead and the QNN nesting (docs/analyses.md). */
#include "cli_ana.h"
#include "etprof_backend.h"
#include "etprof_etrecord.h"
#include "etprof_qnn.h"
#include "etprof_tree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_tree(cli_args *a) {
    const char *path = a->pos[0];
    const char *stat = a->set[OPT_STAT] ? a->val[OPT_STAT] : "p50";
    etp_stats probe = {0};
    double dummy;
    if (!etp_stats_pick(&probe, stat, &dummy) || strcmp(stat, "total") == 0) {
        cli_errorf("tree: --stat: expected min, p10, p50, p90, avg or max, got \"%s\"", stat);
        return EXIT_USAGE;
    }
    double clock;
    const char *clock_src;
    int rc = cli_ana_clock(a, "tree", &clock, &clock_src);
    if (rc) return rc;
    bool est = !isnan(clock);
    cli_ana ca;
    if ((rc = cli_ana_init(a, "tree", 10, est ? clock : 0, &ca))) return rc;
    long top = ca.top;
    etp_disp d = ca.d;
    etp_etrecord *rec;
    if ((rc = cli_etr_open(a, &rec))) return rc;
    if ((rc = cli_ana_compute(a, path, &ca))) {
        etp_etrecord_close(rec);
        return rc;
    }
    d.tick_ns = ca.d.tick_ns; /* the dump's default tick rate is known once it is open */
    cli_inputs in = ca.in;
    etp_ops_result *r = ca.r;
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        cli_ana_close(&ca);
        etp_etrecord_close(rec);
        return rc;
    }
    etp_doc *doc = etp_doc_new("tree", 1, path, a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL);
    etp_tree_opts to = {.stat = stat, .disp = &d, .fmt = a->fmt, .top = (size_t)top,
                        .clock_ghz = clock, .clock_src = clock_src, .rec = rec,
                        .model = in.model};
    etp_error terr = {0};
    int trc = etp_tree_doc(doc, r, &to, &terr);
    if (trc == ETP_E_USAGE) {
        cli_error(&terr);
        rc = EXIT_USAGE;
    } else if (trc == ETP_OK && etp_doc_ok(doc)) {
        rc = cli_render(a, &o, doc);
    } else {
        cli_errorf("tree: out of memory");
        rc = EXIT_INTERNAL;
    }
    etp_doc_free(doc);
    etp_ops_free(r);
    etp_etrecord_close(rec);
    cli_close_inputs(&in);
    return cli_out_close(&o, rc);
}

static const opt_id tree_opts[] = {OPT_PTE,   OPT_METHOD,     OPT_IGNORE_MISMATCH,     OPT_TICK_NS,   OPT_TICK_HZ,
                                   OPT_TICKS, OPT_STAT,       OPT_BLOCK,     OPT_SKIP_FIRST,
                                   OPT_TOP,   OPT_TIME_UNIT,  OPT_HTP_CLOCK_GHZ, OPT_QHAS,
                                   OPT_RUNTRACE, OPT_ETRECORD, OPT_NONE};

const cli_cmd cmd_tree = {
    .name = "tree",
    .summary = "the hierarchy of each method's time: inclusive, exclusive, overhead, QNN nesting",
    .usage = "FILE [--pte P] [--stat p50] [--top N]",
    .help = "Method::execute > instructions in order; DELEGATE_CALL [backend] > what the backend\n"
            "logged (QNN: QNN (execute) > RPC > QNN accelerator > Accelerator > excluding wait;\n"
            "HTP node cycles under Accelerator (execute) time (cycles)); OPERATOR_CALL > kernel.\n"
            "Each number is a per-run statistic (--stat, default p50). Values in other units\n"
            "(cycles, counts) hang under their scope as facts. --top N limits the HTP nodes\n"
            "listed per partition in table/md (default 10; 0 = all). With an HTP clock\n"
            "(--htp-clock-ghz, else measured by --runtrace F, else from --qhas F) cycles are shown\n"
            "as est_us and a wall est column apportions Accelerator (execute excluding wait) time\n"
            "to the HTP nodes by cycle share (both estimates). See docs/analyses.md.",
    .opts = tree_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_tree,
};
