/* cmd_report.c - `etprof report FILE [--pte P] [--qhas F ...] -o report.html`: one self-contained
 * HTML file with the summary, charts and tables (src/write/report.c, docs/report.md). */
#include "cli.h"
#include "etprof_arm_pmu.h"
#include "etprof_etrecord.h"
#include "etprof_runs.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static void progress(void *ctx, uint64_t done, uint64_t total) {
    cli_progress((cli_args *)ctx, "report", done, total);
}

static int run_report(cli_args *a) {
    if (a->fmt_set) {
        cli_errorf("report: the output is always one HTML file (no --format)");
        return EXIT_USAGE;
    }
    long skip = 0, top = 0;
    if (a->set[OPT_SKIP_FIRST] && (!cli_get_long(a, OPT_SKIP_FIRST, &skip) || skip < 0 ||
                                   skip > (long)UINT32_MAX)) {
        cli_errorf("report: --skip-first: expected a number >= 0, got \"%s\"",
                   a->val[OPT_SKIP_FIRST]);
        return EXIT_USAGE;
    }
    if (a->set[OPT_TOP] &&
        (!cli_get_long(a, OPT_TOP, &top) || top <= 0 || top > 1000000)) {
        cli_errorf("report: --top: expected a number from 1 to 1000000, got \"%s\"",
                   a->val[OPT_TOP]);
        return EXIT_USAGE;
    }
    const char *tu = a->set[OPT_TIME_UNIT] ? a->val[OPT_TIME_UNIT] : "us";
    if (etp_time_unit_ns(tu) <= 0) {
        cli_errorf("report: --time-unit: expected ns, us, ms or s, got \"%s\"", tu);
        return EXIT_USAGE;
    }
    if (!a->set[OPT_OUTPUT] && isatty(1)) {
        cli_errorf("report: the report is an HTML file: give -o report.html (or redirect the "
                   "output)");
        return EXIT_USAGE;
    }
    etp_model_opts mo;
    int rc = cli_model_opts(a, &mo);
    if (rc) return rc;
    if (a->npos > 1 || a->nlabels) {
        /* several files (docs/report.md "Several files") */
        static const opt_id one_file[] = {OPT_QHAS, OPT_OPTRACE, OPT_RUNTRACE, OPT_HEAP,
                                          OPT_RUNNER_LOG, OPT_NONE};
        for (size_t k = 0; one_file[k]; k++)
            if (a->set[one_file[k]]) {
                cli_errorf("report: --%s: applies to one FILE, not to several",
                           cli_opt(one_file[k])->name);
                return EXIT_USAGE;
            }
        if (a->nlabels && a->nlabels != a->npos) {
            cli_errorf("report: --label: %d label(s) for %d file(s) (give one --label per FILE, "
                       "in order, or none)",
                       a->nlabels, a->npos);
            return EXIT_USAGE;
        }
        if (a->nmethods > 1 && a->nmethods != a->npos) {
            cli_errorf("report: --method: %d methods for %d file(s) (give one --method for every "
                       "FILE, one per FILE in order)",
                       a->nmethods, a->npos);
            return EXIT_USAGE;
        }
        cli_inputs ins[CLI_MAX_POS];
        etp_model *models[CLI_MAX_POS];
        const char *labels[CLI_MAX_POS], *sources[CLI_MAX_POS];
        char lb[CLI_MAX_POS][512];
        int n = 0;
        const char *method = a->val[OPT_METHOD];
        for (; n < a->npos; n++) {
            if (a->nmethods > 1) a->val[OPT_METHOD] = a->methods[n];
            rc = cli_open_inputs(a, a->pos[n], &ins[n]);
            a->val[OPT_METHOD] = method;
            if (rc) break;
            models[n] = ins[n].model;
            sources[n] = a->pos[n];
            labels[n] = a->nlabels ? a->labels[n] : etp_multi_label(a->pos[n], lb[n], sizeof lb[n]);
        }
        cli_out o;
        if (!rc && (rc = cli_out_open(a, &o)) == 0) {
            etp_report_opts ro;
            etp_report_opts_init(&ro);
            ro.sources = sources;
            ro.program = a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL;
            ro.time_unit = tu;
            ro.tick_ns = n ? ins[0].tick_ns : mo.tick_ns; /* the first file's (units per file) */
            ro.block = a->set[OPT_BLOCK] ? a->val[OPT_BLOCK] : NULL;
            ro.skip_first = (uint32_t)skip;
            ro.top_ops = (uint32_t)top;
            etp_error err = {0};
            int r = etp_report_write_multi(models, labels, (size_t)n, o.f, &ro, &err);
            if (r == ETP_E_IO && ferror(o.f)) {
                o.err = errno;
                rc = EXIT_IO;
            } else if (r) {
                cli_error(&err);
                rc = cli_exit_for(r);
            }
            rc = cli_out_close(&o, rc);
        }
        for (int i = 0; i < n; i++) cli_close_inputs(&ins[i]);
        return rc;
    }
    const char *path = a->pos[0];
    etp_etrecord *rec;
    if ((rc = cli_etr_open(a, &rec))) return rc;
    cli_inputs in;
    if ((rc = cli_open_inputs(a, path, &in))) {
        etp_etrecord_close(rec);
        return rc;
    }
    etp_runner_log rlog;
    const etp_arm_pmu_report *pmu;
    if ((rc = cli_runner_log(a, in.dump, &rlog, &pmu))) {
        etp_runner_log_free(&rlog);
        cli_close_inputs(&in);
        etp_etrecord_close(rec);
        return rc;
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        etp_runner_log_free(&rlog);
        cli_close_inputs(&in);
        etp_etrecord_close(rec);
        return rc;
    }
    etp_report_opts ro;
    etp_report_opts_init(&ro);
    ro.source = path;
    ro.program = a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL;
    ro.time_unit = tu;
    ro.tick_ns = in.tick_ns;
    ro.block = a->set[OPT_BLOCK] ? a->val[OPT_BLOCK] : NULL;
    ro.skip_first = (uint32_t)skip;
    ro.top_ops = (uint32_t)top;
    ro.qhas = a->set[OPT_QHAS] ? a->val[OPT_QHAS] : NULL;
    ro.optrace = a->set[OPT_OPTRACE] ? a->val[OPT_OPTRACE] : NULL;
    ro.runtrace = a->set[OPT_RUNTRACE] ? a->val[OPT_RUNTRACE] : NULL;
    ro.heap = a->set[OPT_HEAP] ? a->val[OPT_HEAP] : NULL;
    ro.progress = progress;
    ro.progress_ctx = a;
    ro.etrecord = rec;
    ro.arm_pmu = pmu;
    ro.vgf = rlog.vgf.n ? &rlog.vgf : NULL;
    etp_error err = {0};
    int r = etp_report_write(in.model, o.f, &ro, &err);
    cli_progress_end(a);
    if (r == ETP_E_IO && ferror(o.f)) {
        o.err = errno; /* the output's write failed: cli_out_close says so, once */
        rc = EXIT_IO;
    } else if (r) {
        cli_error(&err);
        rc = cli_exit_for(r);
    }
    etp_runner_log_free(&rlog);
    cli_close_inputs(&in);
    etp_etrecord_close(rec);
    return cli_out_close(&o, rc);
}

static const opt_id report_opts[] = {OPT_PTE,        OPT_METHOD,    OPT_IGNORE_MISMATCH,    OPT_TICK_NS, OPT_TICK_HZ,
                                     OPT_TICKS,      OPT_BLOCK,     OPT_SKIP_FIRST,
                                     OPT_TOP,        OPT_TIME_UNIT, OPT_QHAS,    OPT_OPTRACE,
                                     OPT_RUNTRACE,   OPT_HEAP,      OPT_LABEL,     OPT_ETRECORD,
                                     OPT_RUNNER_LOG, OPT_NONE};

const cli_cmd cmd_report = {
    .name = "report",
    .summary = "one self-contained HTML report: summary, charts, top ops, CPU fallback, QNN",
    .usage = "FILE... [--pte P] [--qhas F --optrace F --runtrace F --heap F] -o report.html",
    .help = "Writes one HTML file that opens in any browser without network access: latency\n"
            "p50/p90 per method, a stacked bar of where the time goes (delegates / CPU kernels /\n"
            "framework), latency over runs (warm-up visible), the hierarchy as an icicle chart,\n"
            "the top --top (default 50) operators, the CPU fallback operators, QNN units and\n"
            "caveats with the HTP node cycles in their own chart and, with QNN's optrace / QHAS /\n"
            "runtrace / heap files, HMX/HVX/DMA per op, VTCM peak, DRAM traffic, utilization and\n"
            "the HTP timeline. Charts are inline SVG; the only script sorts tables. The output is\n"
            "deterministic. Several FILEs: one page with a table of the files and each file's\n"
            "own report (labels: base names or --label NAME once per FILE). See docs/report.md.",
    .opts = report_opts,
    .min_pos = 1,
    .max_pos = 8,
    .run = run_report,
};
