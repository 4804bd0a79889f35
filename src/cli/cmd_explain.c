/* cmd_explain.c - `etprof explain FILE [--pte P]`: the profiling questions answered in plain words
 * with the file's own numbers, plus what the file cannot tell and what is missing. JSON carries
 * the same findings as structured records (docs/analyses.md). The findings are the library's
 * (etp_explain_compute, include/etprof_explain.h), and so is their document (etp_explain_doc,
 * include/etprof_explain_doc.h); this file reads the inputs and renders it. */
#include "cli_ana.h"
#include "etprof_arm_pmu.h"
#include "etprof_etrecord.h"
#include "etprof_qnn.h"
#include "etprof_explain.h"
#include "etprof_explain_doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_explain(cli_args *a) {
    const char *path = a->pos[0];
    cli_ana ca;
    int rc = cli_ana_init(a, "explain", 0, 0, &ca);
    if (rc) return rc;
    etp_disp d = ca.d;
    /* QNN's own files: read (and rejected with a located error) before the ETDump */
    etp_qnn_paths qp = {a->set[OPT_QHAS] ? a->val[OPT_QHAS] : NULL,
                        a->set[OPT_OPTRACE] ? a->val[OPT_OPTRACE] : NULL,
                        a->set[OPT_RUNTRACE] ? a->val[OPT_RUNTRACE] : NULL,
                        a->set[OPT_HEAP] ? a->val[OPT_HEAP] : NULL};
    etp_qnn_bundle qb;
    {
        etp_error qerr = {0};
        if ((rc = etp_qnn_bundle_load(&qp, &qb, &qerr))) {
            cli_error(&qerr);
            return cli_exit_for(rc);
        }
    }
    const char *clock_src = NULL;
    double clock = etp_qnn_clock(ca.ghz, &qb, &clock_src);
    if ((rc = cli_ana_compute(a, path, &ca))) {
        etp_qnn_bundle_free(&qb);
        return rc;
    }
    d.tick_ns = ca.d.tick_ns; /* the dump's default tick rate is known once it is open */
    cli_inputs in = ca.in;
    etp_ops_result *r = ca.r;
    etp_error err = {0};
    etp_qnn_etd_join *qj = NULL;
    if (!rc && etp_qnn_derived_row_count(qb.der)) rc = etp_qnn_join_etdump(r, qb.der, &qj, &err);
    if (rc) {
        cli_error(&err);
        etp_ops_free(r);
        etp_qnn_bundle_free(&qb);
        cli_close_inputs(&in);
        return cli_exit_for(rc);
    }
    etp_etrecord *rec = NULL;
    if ((rc = cli_etr_open(a, &rec))) {
        etp_qnn_etd_join_free(qj);
        etp_ops_free(r);
        etp_qnn_bundle_free(&qb);
        cli_close_inputs(&in);
        return rc;
    }
    etp_runner_log rlog;
    const etp_arm_pmu_report *pmu;
    if ((rc = cli_runner_log(a, in.dump, &rlog, &pmu))) {
        etp_runner_log_free(&rlog);
        etp_etrecord_close(rec);
        etp_qnn_etd_join_free(qj);
        etp_ops_free(r);
        etp_qnn_bundle_free(&qb);
        cli_close_inputs(&in);
        return rc;
    }
    etp_doc *doc = etp_doc_new("explain", 1, path, a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL);
    etp_explain_doc_opts eo = {
        .disp = &d, .fmt = a->fmt, .path = path, .qnn_paths = &qp, .rec = rec,
        .explain = {.program_given = in.prog != NULL, .tick_ns = d.tick_ns, .qnn = qb.der,
                    .qnn_join = qj, .htp_clock_ghz = clock, .htp_clock_source = clock_src,
                    .arm_pmu = pmu, .vgf = rlog.vgf.n ? &rlog.vgf : NULL}};
    rc = doc ? etp_explain_doc(doc, r, &eo, &err) : ETP_E_INTERNAL;
    cli_out o;
    if (rc) rc = EXIT_INTERNAL, cli_errorf("out of memory");
    else rc = cli_out_open(a, &o);
    if (!rc) {
        rc = cli_render(a, &o, doc);
        rc = cli_out_close(&o, rc);
    }
    etp_doc_free(doc);
    etp_runner_log_free(&rlog);
    etp_etrecord_close(rec);
    etp_qnn_etd_join_free(qj);
    etp_qnn_bundle_free(&qb);
    etp_ops_free(r);
    cli_close_inputs(&in);
    return rc;
}

static const opt_id explain_opts[] = {OPT_PTE,   OPT_METHOD,     OPT_IGNORE_MISMATCH,     OPT_TICK_NS,   OPT_TICK_HZ,
                                      OPT_TICKS, OPT_SKIP_FIRST, OPT_TIME_UNIT, OPT_QHAS,
                                      OPT_OPTRACE, OPT_RUNTRACE, OPT_HEAP, OPT_HTP_CLOCK_GHZ,
                                      OPT_ETRECORD, OPT_RUNNER_LOG, OPT_NONE};

const cli_cmd cmd_explain = {
    .name = "explain",
    .summary = "the answers in words, with this file's numbers: what nests in what, NPU vs CPU, "
               "units and traps, what the file cannot tell",
    .usage = "FILE [--pte P] [--qhas F] [--optrace F] [--runtrace F] [--heap F]",
    .help = "Answers: are Accelerator (execute) time (cycles), Method::execute and DELEGATE_CALL\n"
            "the same thing? Which rows ran on the NPU and which on the CPU? What unit is each\n"
            "number in, and what are the traps? With QNN events or QNN files: does each op use\n"
            "HMX or HVX, and how much VTCM/DRAM/heap, utilization and clock (answered from\n"
            "--qhas/--optrace/--runtrace/--heap, else which file and command give them)?\n"
            "What can the file not tell (and how to get it)?\n"
            "What is missing? JSON: {\"schema_version\":1,\"findings\":[{id, method, question,\n"
            "answer, facts}]}. See docs/analyses.md.",
    .opts = explain_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_explain,
};
