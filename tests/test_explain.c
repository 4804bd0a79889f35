/* test_explain.c - etp_explain_compute (include/etprof_explain.h): explain's findings as facts,
 * checked against tests/data/MANIFEST.md (instruction patterns, DELEGATE_CALL durations, QNN
 * check values) and hand calculation, including the "cannot tell" facts.
 * Usage: test_explain DATA_DIR */
#include "check.h"
#include "ops_fixture.h"
#include "etprof.h"
#include "etprof_explain.h"
#include "qnn_report.h" /* the QNN file readers (internal until etprof_qnn.h) */

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *data_dir = "tests/data";

typedef struct fixture {
    ops_fixture o;
    etp_explain_result *x;
} fixture;

static bool open_fx(fixture *fx, const char *etdp, const char *pte, uint32_t skip_first) {
    etp_error err = {0};
    etp_ops_opts oo;
    etp_ops_opts_init(&oo);
    oo.skip_first = skip_first;
    fx->x = NULL;
    if (!ops_fixture_open(&fx->o, data_dir, etdp, pte, &oo)) return false;
    etp_explain_options xo = {.program_given = pte != NULL};
    if (etp_explain_compute(fx->o.r, &xo, &fx->x, &err)) {
        fprintf(stderr, "cannot explain %s: %s\n", etdp, err.msg);
        CHECK(!"fixture explained");
        ops_fixture_close(&fx->o);
        return false;
    }
    return true;
}

static void close_fx(fixture *fx) {
    etp_explain_free(fx->x);
    ops_fixture_close(&fx->o);
}

static const etp_finding *finding(const fixture *fx, const char *id, int32_t method) {
    for (size_t i = 0; i < fx->x->n_findings; i++)
        if (strcmp(fx->x->findings[i].id, id) == 0 && fx->x->findings[i].method == method)
            return &fx->x->findings[i];
    return NULL;
}

/* The fact `id` of record `item` of list `list`. */
static const etp_fact *member(const etp_finding *f, const char *list, uint32_t item, const char *id) {
    for (size_t i = 0; f && i < f->n_facts; i++)
        if (f->facts[i].list && strcmp(f->facts[i].list, list) == 0 && f->facts[i].item == item &&
            strcmp(f->facts[i].id, id) == 0)
            return &f->facts[i];
    return NULL;
}

/* The CPU operator record named op in npu_vs_cpu, its instruction count (-1 when absent). */
static long long cpu_op_instr(const etp_finding *f, const char *op) {
    const etp_fact *l = etp_explain_fact(f, "cpu_operators");
    for (uint32_t i = 0; l && i < l->count; i++) {
        const etp_fact *o = member(f, "cpu_operators", i, "operator");
        if (o && o->text && strcmp(o->text, op) == 0)
            return (long long)member(f, "cpu_operators", i, "instructions")->count;
    }
    return -1;
}

#define FACT(f, id) etp_explain_fact(f, id)

/* MANIFEST: mobilenet_v2_ethosu_single_1x, pattern K0 D1 K2, DELEGATE_CALL 10925344 ns (one run) */
static void test_ethosu_single(void) {
    fixture fx;
    if (!open_fx(&fx, "ethosu-partial-delegation/mobilenet_v2_ethosu_single_1x.etdp",
                 "ethosu-partial-delegation/pte/mobilenet_v2_ethosu.pte", 0))
        return;
    CHECK_EQ_U(fx.x->n_findings, 5); /* one method: same_thing, npu_vs_cpu; units, cannot_tell, missing */
    const etp_finding *st = finding(&fx, "same_thing", 0), *nc = finding(&fx, "npu_vs_cpu", 0);
    CHECK(st && st->question == ETP_EXQ_SAME_THING);
    CHECK(nc && nc->question == ETP_EXQ_NPU_CPU);
    if (!st || !nc) goto out;
    const etp_fact *dc = FACT(st, "delegate_call"), *me = FACT(st, "method_execute");
    CHECK(dc && dc->kind == ETP_FACT_NUMBER && dc->unit == ETP_UNIT_NS && dc->value == 10925344.0);
    CHECK(dc && dc->name && strcmp(dc->name, "EthosUBackend") == 0);
    CHECK(dc && dc->row >= 0 && etp_ops_row_get(fx.o.r, (size_t)dc->row)->instr == 1); /* D1 */
    const etp_fact *sh = FACT(st, "delegate_call_share_of_method");
    CHECK(me && me->value >= 10925344.0); /* Method::execute contains the call */
    CHECK(sh && sh->percent && me && fabs(sh->value - 10925344.0 / me->value * 100.0) < 1e-9);
    CHECK(FACT(st, "runs") && FACT(st, "runs")->count == 1);
    CHECK(FACT(st, "qnn_events") && !FACT(st, "qnn_events")->flag);
    CHECK(FACT(st, "instruction_events") && FACT(st, "instruction_events")->flag &&
          !FACT(st, "instruction_events")->cannot_tell);
    CHECK(FACT(nc, "delegate_partitions")->count == 1);
    CHECK(FACT(nc, "cpu_kernel_instructions")->count == 2); /* K0, K2 */
    CHECK(!FACT(nc, "cpu_kernel_instructions")->cannot_tell);
    CHECK(FACT(nc, "delegates")->kind == ETP_FACT_LIST && FACT(nc, "delegates")->count == 1);
    const etp_fact *bk = member(nc, "delegates", 0, "backend");
    CHECK(bk && bk->text && strcmp(bk->text, "EthosUBackend") == 0 && !bk->cannot_tell);
    CHECK(member(nc, "delegates", 0, "partitions")->count == 1);
    CHECK(cpu_op_instr(nc, "cortex_m::quantize_per_tensor.out") == 1);
    CHECK(cpu_op_instr(nc, "cortex_m::dequantize_per_tensor.out") == 1);
    CHECK(FACT(nc, "program_given")->flag && !FACT(nc, "program_given")->cannot_tell);
out:
    close_fx(&fx);
}

/* MANIFEST: mobilenet_v2_ethosu_N_partial_1x, 11 DelegateCall + 42 KernelCall
 * (quantize x11, dequantize x21, add x10) */
static void test_ethosu_partial(void) {
    fixture fx;
    if (!open_fx(&fx, "ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp",
                 "ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte", 0))
        return;
    const etp_finding *st = finding(&fx, "same_thing", 0), *nc = finding(&fx, "npu_vs_cpu", 0);
    CHECK(st && nc);
    if (!st || !nc) goto out;
    CHECK_EQ_U(FACT(nc, "delegate_partitions")->count, 11);
    CHECK_EQ_U(FACT(st, "delegate_partitions")->count, 11);
    CHECK_EQ_U(FACT(nc, "cpu_kernel_instructions")->count, 42);
    CHECK_EQ_I(cpu_op_instr(nc, "cortex_m::quantize_per_tensor.out"), 11);
    CHECK_EQ_I(cpu_op_instr(nc, "cortex_m::dequantize_per_tensor.out"), 21);
    CHECK_EQ_I(cpu_op_instr(nc, "aten::add.out"), 10);
    CHECK_EQ_U(member(nc, "delegates", 0, "partitions")->count, 11);
    /* the largest DELEGATE_CALL is at most the MANIFEST's longest, 5546682 ns */
    CHECK(FACT(st, "delegate_call") && FACT(st, "delegate_call")->value <= 5546682.0 &&
          FACT(st, "delegate_call")->value >= 379501.0);
    const etp_fact *top = FACT(nc, "top_operators");
    CHECK(top && top->kind == ETP_FACT_LIST && top->count == 5);
    for (uint32_t k = 0; top && k < top->count; k++) {
        const etp_fact *o = member(nc, "top_operators", k, "operator");
        CHECK(o && o->kind == ETP_FACT_ROW && o->row >= 0 && o->name);
    }
out:
    close_fx(&fx);
}

/* Without --pte: the backends and namespaced names cannot be told; with --skip-first 1 on a one-run
 * dump nothing is left, so the CPU fallbacks cannot be told either. */
static void test_cannot_tell(void) {
    fixture fx;
    if (open_fx(&fx, "ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp", NULL, 0)) {
        const etp_finding *nc = finding(&fx, "npu_vs_cpu", 0);
        CHECK(nc);
        const etp_fact *pg = nc ? FACT(nc, "program_given") : NULL;
        CHECK(pg && !pg->flag && pg->cannot_tell && pg->settle && strstr(pg->settle, "--pte"));
        const etp_fact *bk = member(nc, "delegates", 0, "backend");
        CHECK(bk && bk->cannot_tell && bk->settle);
        CHECK(nc && FACT(nc, "cpu_kernel_instructions")->count == 42); /* still known */
        CHECK(nc && cpu_op_instr(nc, "aten::add.out") == -1);        /* no namespace without it */
        close_fx(&fx);
    }
    if (open_fx(&fx, "ethosu-partial-delegation/mobilenet_v2_ethosu_single_1x.etdp",
                "ethosu-partial-delegation/pte/mobilenet_v2_ethosu.pte", 1)) {
        const etp_finding *st = finding(&fx, "same_thing", 0), *nc = finding(&fx, "npu_vs_cpu", 0);
        CHECK(st && nc);
        if (st && nc) {
            CHECK_EQ_U(FACT(st, "runs")->count, 0);
            CHECK(!FACT(st, "delegate_call") && !FACT(st, "method_execute"));
            const etp_fact *ie = FACT(st, "instruction_events");
            CHECK(ie && !ie->flag && ie->cannot_tell && ie->settle);
            const etp_fact *ci = FACT(nc, "cpu_kernel_instructions");
            CHECK(ci && ci->count == 0 && ci->cannot_tell);
        }
        close_fx(&fx);
    }
}

/* MANIFEST QNN check of stories260k_qnn_kv_forward_1x: 1518 node events, node sum == parent,
 * parent cycles 1224737, excl-wait 292 us. */
static void test_qnn(void) {
    fixture fx;
    if (!open_fx(&fx, "fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp",
                 "upstream/stories260k_hybrid_llama_qnn.pte", 0))
        return;
    const etp_finding *st = NULL, *nc = NULL;
    for (size_t i = 0; i < fx.x->n_findings; i++) {
        const etp_finding *f = &fx.x->findings[i];
        const etp_fact *q = FACT(f, "qnn_events");
        if (q && q->flag) st = f;
    }
    CHECK(st);
    if (!st) goto out;
    nc = finding(&fx, "npu_vs_cpu", st->method);
    const etp_fact *cy = FACT(st, "accelerator_cycles"), *ex = FACT(st, "accelerator_excluding_wait");
    CHECK(cy && cy->unit == ETP_UNIT_CYCLES && cy->value == 1224737.0);
    CHECK(ex && ex->unit == ETP_UNIT_NS && ex->value == 292000.0);
    CHECK(ex && ex->name && strcmp(ex->name, "Accelerator (execute excluding wait) time") == 0);
    CHECK_EQ_U(FACT(st, "htp_node_rows")->count, 1518);
    CHECK_EQ_U(FACT(st, "node_sum_runs_checked")->count, 1);
    CHECK_EQ_U(FACT(st, "node_sum_runs_mismatch")->count, 0);
    const etp_fact *cpu = FACT(st, "cycles_per_us_excl_wait");
    CHECK(cpu && cpu->unit == ETP_UNIT_CYCLES && cpu->per_unit == ETP_UNIT_US &&
          fabs(cpu->value - 1224737.0 / 292.0) < 1e-9);
    /* QNN (execute) >= ... >= excl-wait (MANIFEST nesting check) */
    const etp_fact *qe = FACT(st, "qnn_execute");
    CHECK(qe && ex && qe->value >= ex->value);
    CHECK(nc && FACT(nc, "htp_node_rows")->count == 1518);
    CHECK(nc && FACT(nc, "qnn_partitions")->count == 1 && FACT(nc, "qnn_partitions")->extra);
out:
    close_fx(&fx);
}

/* The file-wide findings: units, cannot_tell, missing. */
static void test_file_wide(void) {
    fixture fx;
    /* MANIFEST: kv_forward_1x labels: 1518 HTP node "(cycles)" labels + "Accelerator (execute)
     * time (cycles)", two "(count)" labels, the two QTimer-tick "(us)" labels; one run */
    if (open_fx(&fx, "fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp",
                "upstream/stories260k_hybrid_llama_qnn.pte", 0)) {
        const etp_finding *u = finding(&fx, "units", -1), *ct = finding(&fx, "cannot_tell", -1),
                          *mi = finding(&fx, "missing", -1);
        CHECK(u && u->question == ETP_EXQ_UNITS && ct && mi);
        if (u && ct && mi) {
            const etp_fact *rpu = FACT(u, "rows_per_unit");
            CHECK(rpu && rpu->kind == ETP_FACT_RECORD);
            const etp_fact *cy = member(u, "rows_per_unit", 0, "cycles");
            const etp_fact *co = member(u, "rows_per_unit", 0, "count");
            CHECK(cy && cy->count == 1519);
            CHECK(co && co->count == 2);
            CHECK(FACT(u, "qtimer_converted") && FACT(u, "qtimer_converted")->flag);
            CHECK(!FACT(u, "first_run_over_p50")); /* one run: no cold-run ratio */
            const etp_fact *q = FACT(ct, "qnn");
            CHECK(q && q->flag && q->cannot_tell && q->settle && strstr(q->settle, "--qhas"));
            const etp_fact *cmds = FACT(ct, "commands");
            CHECK(cmds && cmds->kind == ETP_FACT_LIST && cmds->flag && cmds->count == 2);
            const etp_fact *c0 = member(ct, "commands", 0, "value");
            CHECK(c0 && c0->text && strncmp(c0->text, "qnn-net-run ", 12) == 0);
            CHECK(FACT(mi, "pte_given")->flag && !FACT(mi, "pte_given")->cannot_tell);
            const etp_fact *runs = FACT(mi, "runs");
            CHECK(runs && runs->count == 1 && runs->cannot_tell); /* < 3 runs: no percentiles */
        }
        close_fx(&fx);
    }
    /* 10 runs (MANIFEST), no --pte */
    if (open_fx(&fx, "fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp", NULL, 0)) {
        const etp_finding *mi = finding(&fx, "missing", -1), *u = finding(&fx, "units", -1);
        CHECK(mi && FACT(mi, "runs")->count == 10 && !FACT(mi, "runs")->cannot_tell);
        CHECK(mi && !FACT(mi, "pte_given")->flag && FACT(mi, "pte_given")->cannot_tell);
        /* the cold-run ratio is the first run over the p50 of Method::execute */
        const etp_fact *fr = u ? FACT(u, "first_run_over_p50") : NULL;
        CHECK(fr && fr->method == 0 && fr->row >= 0);
        if (fr && fr->row >= 0) {
            const etp_ops_row *ex = etp_ops_row_get(fx.o.r, (size_t)fr->row);
            CHECK(strcmp(ex->name, "Method::execute") == 0 && ex->runs == 10);
            CHECK(fabs(fr->value - ex->samples[0] / ex->stats.p50) < 1e-12);
        }
        close_fx(&fx);
    }
    if (open_fx(&fx, "ethosu-partial-delegation/mobilenet_v2_ethosu_single_1x.etdp",
                "ethosu-partial-delegation/pte/mobilenet_v2_ethosu.pte", 1)) {
        const etp_finding *mi = finding(&fx, "missing", -1), *ct = finding(&fx, "cannot_tell", -1);
        CHECK(ct && !FACT(ct, "qnn")->flag && !FACT(ct, "commands"));
        CHECK(mi && FACT(mi, "runs")->count == 0);
        /* the only run skipped: method 0 has no instruction events to show */
        const etp_fact *pl = NULL;
        for (size_t i = 0; mi && i < mi->n_facts; i++)
            if (strcmp(mi->facts[i].id, "profiling_level") == 0) pl = &mi->facts[i];
        CHECK(pl && pl->method == 0 && pl->extra && pl->cannot_tell && strcmp(pl->text, "full") != 0);
        close_fx(&fx);
    }
}

/* Questions 3 and 4 from QNN's own files (tests/data/qnn-fixtures): expected values read from the
 * fixture JSON with jq (HMX ops = distinct qnn_op of htp_op_instances with hmx: 101, HVX: 1410,
 * HMX busy = the HMX htp_resources cycles_used: 387812), the heap file by hand (931000 - 928212 =
 * 2788) and the runtrace's 1.25 GHz (as test_qnn_cli.sh checks them on the command). */
static void test_qnn_files(void) {
    fixture fx;
    if (!open_fx(&fx, "fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp",
                 "upstream/stories260k_hybrid_llama_qnn.pte", 0))
        return;
    char qh[1024], rt[1024], hp[1024];
    snprintf(qh, sizeof qh, "%s/qnn-fixtures/stories260k_kv_qhas.json", data_dir);
    snprintf(rt, sizeof rt, "%s/qnn-fixtures/runtrace_small.json", data_dir);
    snprintf(hp, sizeof hp, "%s/qnn-fixtures/heap_ok.txt", data_dir);
    etp_qnn_paths qp = {qh, NULL, rt, hp};
    etp_qnn_bundle qb;
    etp_error err = {0};
    etp_qnn_etd_join *qj = NULL;
    etp_explain_result *x = NULL;
    CHECK(etp_qnn_bundle_load(&qp, &qb, &err) == ETP_OK);
    CHECK(etp_qnn_join_etdump(fx.o.r, qb.der, &qj, &err) == ETP_OK);
    const char *src = NULL;
    double clock = etp_qnn_clock(0, &qb, &src);
    etp_explain_options xo = {.program_given = true, .qnn = qb.der, .qnn_join = qj,
                              .htp_clock_ghz = clock, .htp_clock_source = src};
    CHECK(etp_explain_compute(fx.o.r, &xo, &x, &err) == ETP_OK);
    const etp_finding *h = NULL, *m = NULL;
    for (size_t i = 0; x && i < x->n_findings; i++) {
        if (x->findings[i].question == ETP_EXQ_HMX_HVX) h = &x->findings[i];
        if (x->findings[i].question == ETP_EXQ_MEMORY) m = &x->findings[i];
    }
    CHECK(h && m);
    if (h && m) {
        CHECK(FACT(h, "available")->flag && !FACT(h, "available")->cannot_tell);
        CHECK_EQ_U(FACT(h, "qnn_ops")->count, 1517);
        CHECK_EQ_U(FACT(h, "ops_using_hmx")->count, 101);
        CHECK_EQ_U(FACT(h, "ops_using_hvx")->count, 1410);
        const etp_fact *hb = FACT(h, "hmx_busy_cycles");
        CHECK(hb && hb->integral && !hb->unknown && hb->unit == ETP_UNIT_CYCLES && hb->value == 387812);
        const etp_fact *top = FACT(h, "top_ops");
        CHECK(top && top->count == 5);
        /* largest first */
        for (uint32_t k = 1; top && k < top->count; k++)
            CHECK(member(h, "top_ops", k - 1, "cycles")->value >= member(h, "top_ops", k, "cycles")->value);
        CHECK(FACT(h, "join") && FACT(h, "join")->kind == ETP_FACT_RECORD);
        CHECK_EQ_U(member(h, "join", 0, "etdump_nodes")->count, 1518); /* MANIFEST: 1518 nodes */
        const etp_fact *u = FACT(m, "utilization_percent");
        CHECK(u && u->percent && !u->cannot_tell && u->value == 90.5);
        CHECK(FACT(m, "peak_vtcm_bytes")->value == 2097152 && FACT(m, "peak_vtcm_bytes")->unit == ETP_UNIT_BYTES);
        CHECK(FACT(m, "heap_delta_bytes")->value == 2788);
        CHECK(FACT(m, "clock_ghz")->value == 1.25 && !FACT(m, "clock_ghz")->cannot_tell);
        CHECK(strcmp(FACT(m, "clock_source")->text, "runtrace") == 0);
        /* MANIFEST: parent cycles 1224737, excl-wait 292 us: busy us at 1.25 GHz, threads */
        const etp_fact *bu = FACT(m, "accelerator_busy_us_estimate"), *mt = FACT(m, "mean_busy_threads_estimate");
        CHECK(bu && bu->unit == ETP_UNIT_US && fabs(bu->value - 1224737.0 / 1.25 / 1000.0) < 1e-9);
        CHECK(mt && fabs(mt->value - 1224737.0 / 1.25 / 1000.0 / 292.0) < 1e-9);
        CHECK(!FACT(m, "commands")); /* nothing missing */
    }
    etp_explain_free(x);
    x = NULL;
    /* the same dump without the files: HMX/HVX and memory cannot be told, and say what gives them */
    etp_explain_options none = {.program_given = true};
    CHECK(etp_explain_compute(fx.o.r, &none, &x, &err) == ETP_OK);
    h = m = NULL;
    for (size_t i = 0; x && i < x->n_findings; i++) {
        if (x->findings[i].question == ETP_EXQ_HMX_HVX) h = &x->findings[i];
        if (x->findings[i].question == ETP_EXQ_MEMORY) m = &x->findings[i];
    }
    CHECK(h && m);
    if (h && m) {
        const etp_fact *av = FACT(h, "available");
        CHECK(av && !av->flag && av->cannot_tell && strstr(av->settle, "--qhas"));
        CHECK(FACT(h, "needs") && FACT(h, "needs")->count == 2);
        const etp_fact *ck = FACT(m, "clock_ghz");
        CHECK(ck && ck->cannot_tell && isnan(ck->value) && strstr(ck->settle, "--runtrace"));
        const etp_fact *hb = FACT(m, "heap_before_bytes");
        CHECK(hb && hb->unknown && hb->cannot_tell && strstr(hb->settle, "--heap"));
        CHECK(FACT(m, "utilization_percent")->unknown);
        CHECK(FACT(m, "commands") && FACT(m, "commands")->count == 2);
    }
    etp_explain_free(x);
    etp_qnn_etd_join_free(qj);
    etp_qnn_bundle_free(&qb);
    close_fx(&fx);
}

static void test_args(void) {
    etp_explain_result *x = (etp_explain_result *)1;
    etp_error err = {0};
    CHECK(etp_explain_compute(NULL, NULL, &x, &err) == ETP_E_USAGE && err.code == ETP_E_USAGE);
    CHECK(etp_explain_fact(NULL, "x") == NULL);
    etp_explain_free(NULL);
}

int main(int argc, char **argv) {
    if (argc > 1) data_dir = argv[1];
    test_ethosu_single();
    test_ethosu_partial();
    test_cannot_tell();
    test_qnn();
    test_file_wide();
    test_qnn_files();
    test_args();
    return check_done();
}
