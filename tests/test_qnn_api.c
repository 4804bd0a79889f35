/* test_qnn_api.c - the public QNN analyses of include/etprof_qnn.h on small fixtures whose
 * answers are computed by hand from the fixture files (see the comments at each check):
 *   optrace_cp.json          critical path from an optrace (steps by Start Cycle, an op on two
 *                            steps, a tie in dp cycles) and the HMX/HVX/DMA op counts
 *   qhas_small.json          critical path from QHAS dominant_path_htp_0 (idle step left out)
 *   qhas_cp_notimeline.json  no timeline: shares over path + idle cycles
 *   qhas_min.json            no dominant path at all
 *   viewer_small.txt         qnn-profile-viewer node sums, shares, wall estimates, QTimer ticks;
 *                            the words of node kinds, block kinds and units
 *   qhas_small.json + ../fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp
 *                            the join of the QNN ops to the ETDump's HTP nodes (etp_qnn_etd_join)
 * usage: test_qnn_api FIXTURES_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "etprof_qnn.h"
#include "qnn.h" /* only for the qnn-profile-viewer reader and its block/event layout */

static const char *g_dir;

static const char *fx(const char *name) {
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s", g_dir, name);
    return buf;
}

static int load(const char *qhas, const char *optrace, etp_qnn_bundle *b) {
    char q[1024] = "", o[1024] = "";
    if (qhas) snprintf(q, sizeof q, "%s", fx(qhas));
    if (optrace) snprintf(o, sizeof o, "%s", fx(optrace));
    etp_qnn_paths p = {qhas ? q : NULL, optrace ? o : NULL, NULL, NULL};
    etp_error err = {0};
    int rc = etp_qnn_bundle_load(&p, b, &err);
    if (rc) {
        char m[1024];
        etp_error_format(&err, m, sizeof m);
        fprintf(stderr, "load: %s\n", m);
    }
    return rc;
}

/* optrace_cp.json, ops with a QNN op name (Start Cycle, Duration (cycles), Dominant Path Cycles):
 *   Conv_x   50  30   0  uses_hmx
 *   MatMul_1 100 60  50  uses_hmx
 *   Quant_1  160 20   0  dma_set
 *   Sub_1    200 90  80  uses_hvx
 *   Nop_1    290  5   0  (no flags)
 *   MatMul_1 300 50  40  dma
 *   Relu_1   400 100 80  uses_hvx uses_hmx dma_wait
 * path = the ops with dp > 0 by start: MatMul_1 50, Sub_1 80, MatMul_1 40, Relu_1 80:
 *   4 steps, 250 cycles, no idle; timeline = 500 - 50 = 450 cycles.
 * by QNN op: MatMul_1 90 (2 steps, 90/450 = 20 %), Sub_1 80 and Relu_1 80 (17.78 %): the tie keeps
 * first appearance, Sub_1 before Relu_1 (not alphabetical). */
static void test_optrace_path(void) {
    etp_qnn_bundle b;
    if (load(NULL, "optrace_cp.json", &b)) {
        CHECK(!"optrace_cp.json loads");
        return;
    }
    etp_qnn_critical_path *cp = NULL;
    etp_error err = {0};
    CHECK_EQ_I(etp_qnn_critical_path_get(b.der, &cp, &err), ETP_OK);
    if (cp) {
        CHECK(cp->present);
        CHECK_EQ_S(cp->source, "optrace");
        CHECK_EQ_U(cp->steps, 4);
        CHECK_EQ_I(cp->path_cycles, 250);
        CHECK_EQ_I(cp->idle_cycles, 0);
        CHECK_EQ_I(cp->span_cycles, 450);
        CHECK_EQ_U(cp->n_ops, 3);
        if (cp->n_ops == 3) {
            CHECK_EQ_S(cp->ops[0].qnn_op, "MatMul_1");
            CHECK_EQ_I(cp->ops[0].dp_cycles, 90);
            CHECK_EQ_U(cp->ops[0].steps, 2);
            CHECK_NEAR(cp->ops[0].share_percent, 20.0, 1e-12);
            CHECK_EQ_S(cp->ops[1].qnn_op, "Sub_1");
            CHECK_EQ_I(cp->ops[1].dp_cycles, 80);
            CHECK_EQ_U(cp->ops[1].steps, 1);
            CHECK_NEAR(cp->ops[1].share_percent, 8000.0 / 450.0, 1e-12);
            CHECK_EQ_S(cp->ops[2].qnn_op, "Relu_1");
            CHECK_EQ_I(cp->ops[2].dp_cycles, 80);
            CHECK_NEAR(cp->ops[2].share_percent, 8000.0 / 450.0, 1e-12);
        }
    }
    etp_qnn_critical_path_free(cp);

    /* unit counts: rows are QNN ops (6: Conv_x, MatMul_1, Quant_1, Sub_1, Nop_1, Relu_1), 7 HTP
     * ops; HMX: Conv_x, MatMul_1, Relu_1; HVX: Sub_1, Relu_1; DMA (dma, dma_set, dma_wait):
     * MatMul_1, Quant_1, Relu_1; both HMX and HVX: Relu_1; DMA only: Quant_1; none: Nop_1 */
    etp_qnn_unit_counts uc;
    etp_qnn_unit_counts_get(b.der, &uc);
    CHECK_EQ_U(uc.qnn_ops, 6);
    CHECK_EQ_U(uc.htp_ops, 7);
    CHECK_EQ_U(uc.hmx, 3);
    CHECK_EQ_U(uc.hvx, 2);
    CHECK_EQ_U(uc.dma, 3);
    CHECK_EQ_U(uc.hmx_and_hvx, 1);
    CHECK_EQ_U(uc.dma_only, 1);
    CHECK_EQ_U(uc.none, 1);
    etp_qnn_unit_counts_get(NULL, &uc);
    CHECK_EQ_U(uc.qnn_ops + uc.hmx + uc.hvx + uc.dma, 0);

    /* row order. Rows in order of first appearance: 0 Conv_x, 1 MatMul_1, 2 Quant_1, 3 Sub_1,
     * 4 Nop_1, 5 Relu_1; cycles (sum of durations): 30, 110, 20, 90, 5, 100; OpIds (low 32 bits
     * of the first HTP op ID) 1, 2, 3, 4, 5, 7; no bytes (optrace). */
    uint32_t idx[6], n = 0;
    CHECK_EQ_I(etp_qnn_rows_sorted(b.der, NULL, "cycles", 0, idx, &n), ETP_OK);
    CHECK_EQ_U(n, 6);
    if (n == 6)
        CHECK(idx[0] == 1 && idx[1] == 5 && idx[2] == 3 && idx[3] == 0 && idx[4] == 2 && idx[5] == 4);
    CHECK_EQ_I(etp_qnn_rows_sorted(b.der, NULL, "cycles", 2, idx, &n), ETP_OK);
    CHECK(n == 2 && idx[0] == 1 && idx[1] == 5);
    CHECK_EQ_I(etp_qnn_rows_sorted(b.der, NULL, "qnn_op", 0, idx, &n), ETP_OK);
    if (n == 6) /* Conv_x MatMul_1 Nop_1 Quant_1 Relu_1 Sub_1 */
        CHECK(idx[0] == 0 && idx[1] == 1 && idx[2] == 4 && idx[3] == 2 && idx[4] == 5 && idx[5] == 3);
    CHECK_EQ_I(etp_qnn_rows_sorted(b.der, NULL, "op_id", 0, idx, &n), ETP_OK); /* smallest first */
    if (n == 6) CHECK(idx[0] == 0 && idx[1] == 1 && idx[2] == 2 && idx[5] == 5);
    CHECK_EQ_I(etp_qnn_rows_sorted(b.der, NULL, "dram_read_bytes", 0, idx, &n), ETP_OK);
    if (n == 6) CHECK(idx[0] == 0 && idx[3] == 3 && idx[5] == 5); /* all absent: file order */
    const double etd[6] = {NAN, 5, NAN, 7, 1, NAN};
    CHECK_EQ_I(etp_qnn_rows_sorted(b.der, etd, "etdump_cycles", 0, idx, &n), ETP_OK);
    if (n == 6) /* 7, 5, 1, then the rows without a value in file order */
        CHECK(idx[0] == 3 && idx[1] == 1 && idx[2] == 4 && idx[3] == 0 && idx[4] == 2 && idx[5] == 5);
    CHECK_EQ_I(etp_qnn_rows_sorted(b.der, NULL, "nope", 0, idx, &n), ETP_E_USAGE);
    CHECK(n == 0 && !etp_qnn_rows_sort_key_valid("nope") && etp_qnn_rows_sort_key_valid("order"));
    etp_qnn_bundle_free(&b);
}

/* qhas_small.json dominant_path_htp_0: Input dp 100, Accumulated Idle 10, Conv_1 dp 300 (partial,
 * cycles 400), Output dp 200; timeline_cycles 1000 (htp_overall_summary). dominant_path_htp_1 is
 * another core: not used. */
static void test_qhas_path(void) {
    etp_qnn_bundle b;
    if (load("qhas_small.json", NULL, &b)) {
        CHECK(!"qhas_small.json loads");
        return;
    }
    etp_qnn_critical_path *cp = NULL;
    etp_error err = {0};
    CHECK_EQ_I(etp_qnn_critical_path_get(b.der, &cp, &err), ETP_OK);
    if (cp) {
        CHECK(cp->present);
        CHECK_EQ_S(cp->source, "qhas");
        CHECK_EQ_U(cp->steps, 3);
        CHECK_EQ_I(cp->path_cycles, 600);
        CHECK_EQ_I(cp->idle_cycles, 10);
        CHECK_EQ_I(cp->span_cycles, 1000);
        CHECK_EQ_U(cp->n_ops, 3);
        if (cp->n_ops == 3) {
            CHECK_EQ_S(cp->ops[0].qnn_op, "Conv_1");
            CHECK_EQ_I(cp->ops[0].dp_cycles, 300); /* dp_cycles, not the op's 400 cycles */
            CHECK_NEAR(cp->ops[0].share_percent, 30.0, 1e-12);
            CHECK_EQ_S(cp->ops[1].qnn_op, "Output");
            CHECK_NEAR(cp->ops[1].share_percent, 20.0, 1e-12);
            CHECK_EQ_S(cp->ops[2].qnn_op, "Input");
            CHECK_NEAR(cp->ops[2].share_percent, 10.0, 1e-12);
        }
    }
    etp_qnn_critical_path_free(cp);
    /* htp_op_instances: Input (dma; dma_set), Conv_1 (hmx; hvx; dma_wait), Output (hvx),
     * SystemService_X (no unit); Orphan only in qnn_op_instances_nodes (no HTP op) */
    etp_qnn_unit_counts uc;
    etp_qnn_unit_counts_get(b.der, &uc);
    CHECK_EQ_U(uc.qnn_ops, 5);
    CHECK_EQ_U(uc.htp_ops, 7);
    CHECK_EQ_U(uc.hmx, 1);
    CHECK_EQ_U(uc.hvx, 2);
    CHECK_EQ_U(uc.dma, 2);
    CHECK_EQ_U(uc.hmx_and_hvx, 1);
    CHECK_EQ_U(uc.dma_only, 1);
    CHECK_EQ_U(uc.none, 2);
    etp_qnn_bundle_free(&b);

    /* no timeline: A 30, idle 20, B 50 -> span 30 + 50 + 20 = 100: B 50 %, A 30 % */
    if (load("qhas_cp_notimeline.json", NULL, &b)) {
        CHECK(!"qhas_cp_notimeline.json loads");
        return;
    }
    CHECK_EQ_I(etp_qnn_critical_path_get(b.der, &cp, &err), ETP_OK);
    if (cp) {
        CHECK(cp->present);
        CHECK_EQ_I(cp->path_cycles, 80);
        CHECK_EQ_I(cp->idle_cycles, 20);
        CHECK_EQ_I(cp->span_cycles, 100);
        CHECK_EQ_U(cp->n_ops, 2);
        if (cp->n_ops == 2) {
            CHECK_EQ_S(cp->ops[0].qnn_op, "B");
            CHECK_NEAR(cp->ops[0].share_percent, 50.0, 1e-12);
            CHECK_EQ_S(cp->ops[1].qnn_op, "A");
            CHECK_NEAR(cp->ops[1].share_percent, 30.0, 1e-12);
        }
    }
    etp_qnn_critical_path_free(cp);
    etp_qnn_bundle_free(&b);

    /* no dominant path in the file: present = false, nothing else */
    if (load("qhas_min.json", NULL, &b)) {
        CHECK(!"qhas_min.json loads");
        return;
    }
    CHECK_EQ_I(etp_qnn_critical_path_get(b.der, &cp, &err), ETP_OK);
    if (cp) {
        CHECK(!cp->present);
        CHECK(cp->source == NULL);
        CHECK_EQ_U(cp->n_ops, 0);
    }
    etp_qnn_critical_path_free(cp);
    etp_qnn_bundle_free(&b);
    CHECK_EQ_I(etp_qnn_critical_path_get(NULL, &cp, &err), ETP_OK);
    CHECK(cp && !cp->present);
    etp_qnn_critical_path_free(cp);
}

static const etp_qnn_stat_event *event(const etp_qnn_stat_block *b, const char *id) {
    for (uint32_t i = 0; i < b->n_events; i++)
        if (strcmp(b->events[i].identifier, id) == 0) return &b->events[i];
    return NULL;
}

/* viewer_small.txt, Execute Stat 1: Accelerator (execute) time (cycles) 757; nodes 120 + 630 + 7
 * + 0 = 757 (4 nodes); excluding wait 56 us; Time for initial VTCM acquire written 192 "us" =
 * 192 / 19.2 = 10 us. Execute Stat 2: 100 + 600 = 700 = parent; excluding wait 29.5 us. */
static void test_viewer(void) {
    etp_qnn_viewer *v = NULL;
    etp_error err = {0};
    if (etp_qnn_read_viewer_text(fx("viewer_small.txt"), &v, &err) || !v || v->n_executes != 2) {
        CHECK(!"viewer_small.txt reads, 2 executes");
        etp_qnn_viewer_free(v);
        return;
    }
    const etp_qnn_stat_block *b1 = &v->executes[0], *b2 = &v->executes[1];
    etp_qnn_viewer_sums s;
    etp_qnn_viewer_sums_get(b1, &s);
    CHECK(s.has_parent);
    CHECK_EQ_I(s.parent_cycles, 757);
    CHECK_EQ_I(s.node_cycles_sum, 757);
    CHECK_EQ_U(s.node_count, 4);
    CHECK_NEAR(s.excl_wait_us, 56.0, 0);
    CHECK(s.comparable && s.nodes_equal_parent);
    const etp_qnn_stat_event *conv = event(b1, "Conv_1:OpId_5 (cycles)");
    const etp_qnn_stat_event *rpc = event(b1, "RPC (execute) time");
    const etp_qnn_stat_event *vtcm = event(b1, "Time for initial VTCM acquire");
    CHECK(conv && rpc && vtcm);
    if (conv && rpc && vtcm) {
        CHECK_NEAR(etp_qnn_viewer_node_share(&s, conv), 630.0 * 100.0 / 757.0, 1e-12);
        CHECK_NEAR(etp_qnn_viewer_wall_est_us(&s, conv), 630.0 / 757.0 * 56.0, 1e-12);
        CHECK(isnan(etp_qnn_viewer_node_share(&s, rpc)));  /* not a node */
        CHECK(isnan(etp_qnn_viewer_wall_est_us(&s, rpc)));
        CHECK(etp_qnn_viewer_is_qtimer_ticks(vtcm));
        CHECK(!etp_qnn_viewer_is_qtimer_ticks(rpc));
        CHECK_NEAR(etp_qnn_viewer_event_value(vtcm), 10.0, 1e-12);
        CHECK_NEAR(etp_qnn_viewer_event_value(rpc), 3161.0, 0);
    }
    etp_qnn_viewer_sums_get(b2, &s);
    CHECK_EQ_I(s.parent_cycles, 700);
    CHECK_EQ_I(s.node_cycles_sum, 700);
    CHECK_EQ_U(s.node_count, 2);
    CHECK_NEAR(s.excl_wait_us, 29.5, 0);
    const etp_qnn_stat_event *in2 = event(b2, "Input OpId_2 (cycles)");
    if (in2) CHECK_NEAR(etp_qnn_viewer_wall_est_us(&s, in2), 100.0 / 700.0 * 29.5, 1e-12);
    else CHECK(!"execute 2 has Input OpId_2");
    /* a block without the parent: not comparable, no share */
    etp_qnn_stat_block nb = *b1;
    nb.n_events = 1; /* "Number of HVX threads used" only */
    etp_qnn_viewer_sums_get(&nb, &s);
    CHECK(!s.has_parent && !s.comparable && !s.nodes_equal_parent);
    CHECK(isnan(s.excl_wait_us));
    if (conv) CHECK(isnan(etp_qnn_viewer_node_share(&s, conv)));
    etp_qnn_viewer_free(v);
}

/* The viewer words (etp_qnn_*_name) on viewer_small.txt's Execute Stat 1, read off the file:
 * "Input OpId_2 (cycles)" an input node, "Conv_1:OpId_5 (cycles)" named, "OpId_9 (cycles)" a
 * system op, "Output OpId_3 (cycles)" an output node; units as written: "4  count", "3161  us",
 * "757  cycles", "Unknown event type :   object". The first block is the "Init Stats" section. */
static void test_viewer_words(void) {
    etp_qnn_viewer *v = NULL;
    etp_error err = {0};
    if (etp_qnn_read_viewer_text(fx("viewer_small.txt"), &v, &err) || !v || v->n_executes < 1) {
        CHECK(!"viewer_small.txt reads");
        etp_qnn_viewer_free(v);
        return;
    }
    const etp_qnn_stat_block *b = &v->executes[0];
    static const struct { const char *id, *kind, *unit; } want[] = {
        {"Input OpId_2 (cycles)", "input", "cycles"},
        {"Conv_1:OpId_5 (cycles)", "named", "cycles"},
        {"OpId_9 (cycles)", "system", "cycles"},
        {"Output OpId_3 (cycles)", "output", "cycles"},
        {"Number of HVX threads used", "other", "count"},
        {"RPC (execute) time", "other", "us"},
        {"Unknown event type", "other", "object"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const etp_qnn_stat_event *e = event(b, want[i].id);
        CHECK_MSG(e != NULL, "event %s", want[i].id);
        if (!e) continue;
        CHECK_MSG(strcmp(etp_qnn_node_kind_name(etp_qnn_parse_node_name(e->identifier, NULL)),
                         want[i].kind) == 0, "kind of %s", want[i].id);
        const char *u = etp_qnn_event_unit_name(e);
        CHECK_MSG(u && strcmp(u, want[i].unit) == 0, "unit of %s", want[i].id);
    }
    CHECK(strcmp(etp_qnn_stat_kind_name(b->kind), "execute") == 0);
    CHECK(v->n_stats >= 1 && strcmp(etp_qnn_stat_kind_name(v->stats[0].kind), "init") == 0);
    CHECK(strcmp(etp_qnn_stat_kind_name(ETP_QNN_STAT_COMPOSE), "compose") == 0);
    CHECK(strcmp(etp_qnn_stat_kind_name(ETP_QNN_STAT_FINALIZE), "finalize") == 0);
    CHECK(strcmp(etp_qnn_stat_kind_name(ETP_QNN_STAT_DEINIT), "deinit") == 0);
    CHECK(strcmp(etp_qnn_stat_kind_name(ETP_QNN_STAT_OTHER), "other") == 0);
    /* a unit the reader does not know stays as written; no unit is NULL */
    etp_qnn_stat_event x = {.identifier = "x", .unit = ETP_QNN_UNIT_OTHER, .unit_text = "ms"};
    CHECK(strcmp(etp_qnn_event_unit_name(&x), "ms") == 0);
    x.unit = ETP_QNN_UNIT_NONE;
    CHECK(etp_qnn_event_unit_name(&x) == NULL);
    x.unit = ETP_QNN_UNIT_BYTES;
    CHECK(strcmp(etp_qnn_event_unit_name(&x), "bytes") == 0);
    CHECK(etp_qnn_event_unit_name(NULL) == NULL);
    etp_qnn_viewer_free(v);
}

/* The join of qhas_small.json's QNN ops to the HTP nodes of stories260k_qnn_kv_forward_1x.etdp.
 * QNN side (qhas_small.json, by hand: op id = low 32 bits of the HTP op ids, cycles summed):
 *   Input 2 (100 + 20 = 120), Conv_1 5 (400 + 150 + 80 = 630), Output 3 (200),
 *   SystemService_X 0 (0x160000000000 -> 0; 50), Orphan (qnn_op_instances_nodes only: no id, 7).
 * ETDump side (decoded with flatc, tests/tools/flatc_events.py, not etprof): 1518 node events in
 * the one QNN partition; "Input OpId_2 (cycles)" 6935, "Output OpId_3 (cycles)" 17580, the
 * unnamed "OpId_0 (cycles)" 0, no OpId_5 node, no node named Conv_1 or Orphan.
 * So: 3 pairs, all by OpId and trusted (same name, or unnamed): matched 3 (3 by id, 0 by name),
 * 0 conflicts, 1518 - 3 = 1515 ETDump-only nodes, 2 QNN-only ops (Conv_1, Orphan); cycles
 * compared 3, equal 0, different 3; largest difference max(6935-120, 50-0, 17580-200) = 17380;
 * verdict different_runs. */
static void test_join(void) {
    char path[1200];
    snprintf(path, sizeof path, "%s/../fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp", g_dir);
    etp_qnn_bundle b;
    if (load("qhas_small.json", NULL, &b)) {
        CHECK(!"qhas_small.json loads");
        return;
    }
    etp_error err = {0};
    etp_blob blob;
    etp_dump *dump = NULL;
    etp_model *m = NULL;
    etp_ops_result *r = NULL;
    etp_qnn_etd_join *j = NULL;
    etp_model_opts mo;
    etp_model_opts_init(&mo);
    etp_ops_opts oo;
    etp_ops_opts_init(&oo);
    if (etp_blob_open(&blob, path, &err)) {
        CHECK(!"the ETDump opens");
        etp_qnn_bundle_free(&b);
        return;
    }
    CHECK(etp_dump_open(&dump, &blob, &err) == ETP_OK);
    if (dump) CHECK(etp_model_open(&m, dump, NULL, &mo, &err) == ETP_OK);
    if (m) CHECK(etp_ops_compute(m, &oo, &r, &err) == ETP_OK);
    if (r) CHECK(etp_qnn_join_etdump(r, b.der, &j, &err) == ETP_OK);
    if (j) {
        CHECK(j->qnn == 0);
        CHECK_EQ_U(j->n_nodes, 1518);
        CHECK_EQ_U(j->n_pairs, 3);
        CHECK_EQ_U(j->matched, 3);
        CHECK_EQ_U(j->matched_by_id, 3);
        CHECK_EQ_U(j->matched_by_name, 0);
        CHECK_EQ_U(j->conflicts, 0);
        CHECK_EQ_U(j->n_etdump_only, 1515);
        CHECK_EQ_U(j->n_qnn_only, 2);
        CHECK_EQ_U(j->cycles_equal, 0);
        CHECK_EQ_U(j->cycles_different, 3);
        CHECK_EQ_U(j->cycles_compared, 3);
        CHECK_EQ_I(j->max_abs_diff, 17380);
        CHECK(strcmp(etp_qnn_etd_agreement(j), "different_runs") == 0);
        const etp_qnn_op_row *in = etp_qnn_derived_row(b.der, "Input");
        CHECK(in != NULL);
        if (in) CHECK_NEAR(j->row_etdump[in - b.der->rows], 6935.0, 0);
        const etp_qnn_op_row *conv = etp_qnn_derived_row(b.der, "Conv_1");
        if (conv) CHECK(isnan(j->row_etdump[conv - b.der->rows]));
        else CHECK(!"Conv_1 is a row");
    }
    etp_qnn_etd_join_free(j);
    etp_ops_free(r);
    etp_model_close(m);
    etp_dump_close(dump);
    etp_blob_close(&blob);
    etp_qnn_bundle_free(&b);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_qnn_api FIXTURES_DIR\n");
        return 2;
    }
    g_dir = argv[1];
    test_optrace_path();
    test_qhas_path();
    test_viewer();
    test_viewer_words();
    test_join();
    return check_done();
}
