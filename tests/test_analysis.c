/* test_analysis.c - the analyses (issue 3) against values computed here, independently, from the
 * raw events read with the low-level reader (etp_dump_event), from tests/data/MANIFEST.md facts,
 * or by hand. Usage: test_analysis DATA_DIR */
#include "check.h"
#include "ops_fixture.h"
#include "etprof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *data_dir = "tests/data";

typedef ops_fixture fixture;

static bool open_fx(fixture *fx, const char *etdp, const char *pte, const etp_ops_opts *oo) {
    return ops_fixture_open(fx, data_dir, etdp, pte, oo);
}

static void close_fx(fixture *fx) { ops_fixture_close(fx); }

/* ---- independent helpers: raw events and a textbook percentile ---------------------------- */

static const char *raw_label(const etp_profile_event *p) {
    return p->name.ptr ? p->name.ptr : p->delegate_debug_id_str.ptr;
}

/* Durations (end - start) of the profile events named `name` (and at `instr` unless -1) of one
 * block, summed; returns the number of such events. */
static int raw_sum(const etp_dump *d, uint32_t b, const char *name, int32_t instr, double *sum) {
    etp_block_info bi;
    etp_dump_block(d, b, &bi);
    int n = 0;
    *sum = 0;
    for (uint32_t i = 0; i < bi.event_count; i++) {
        etp_event ev;
        etp_dump_event(d, b, i, &ev);
        if (ev.type != ETP_EVENT_PROFILE) continue;
        const char *l = raw_label(&ev.profile);
        if (!l || strcmp(l, name) != 0) continue;
        if (instr >= 0 && ev.profile.instruction_id != instr) continue;
        *sum += (double)(ev.profile.end_time - ev.profile.start_time);
        n++;
    }
    return n;
}

static void isort(double *v, size_t n) {
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* rank = (n - 1) p / 100, interpolated between the neighbouring order statistics */
static double pct(const double *sorted, size_t n, double p) {
    double rank = (double)(n - 1) * p / 100.0;
    size_t i = (size_t)rank;
    double frac = rank - (double)i;
    if (i + 1 >= n) return sorted[n - 1];
    return sorted[i] * (1 - frac) + sorted[i + 1] * frac;
}

static double rel_tol(double x) { return fabs(x) * 1e-12 + 1e-9; }

static const etp_ops_row *find_row(const etp_ops_result *r, const char *name, int32_t instr) {
    for (size_t i = 0; i < etp_ops_row_count(r); i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        if (strcmp(row->name, name) == 0 && (instr < 0 || row->instr == instr)) return row;
    }
    return NULL;
}

/* Per-run samples of `name` over blocks [first, last], stats checked against the row. */
static void check_row_stats(const fixture *fx, const char *name, int32_t instr, uint32_t first,
                            uint32_t last, double scale, const etp_ops_row *row) {
    double v[4096];
    size_t n = 0;
    int count = 0;
    for (uint32_t b = first; b <= last && n < 4096; b++) {
        double s;
        int k = raw_sum(fx->dump, b, name, instr, &s);
        if (k) v[n++] = s * scale;
        count += k;
    }
    CHECK_MSG(row != NULL, "row %s", name);
    if (!row || n == 0) return;
    double total = 0;
    for (size_t i = 0; i < n; i++) total += v[i];
    isort(v, n);
    CHECK_EQ_U(row->count, count);
    CHECK_EQ_U(row->runs, n);
    CHECK_NEAR(row->stats.min, v[0], rel_tol(v[0]));
    CHECK_NEAR(row->stats.max, v[n - 1], rel_tol(v[n - 1]));
    CHECK_NEAR(row->stats.p10, pct(v, n, 10), rel_tol(v[n - 1]));
    CHECK_NEAR(row->stats.p50, pct(v, n, 50), rel_tol(v[n - 1]));
    CHECK_NEAR(row->stats.p90, pct(v, n, 90), rel_tol(v[n - 1]));
    CHECK_NEAR(row->stats.avg, total / (double)n, rel_tol(total));
    CHECK_NEAR(row->stats.total, total, rel_tol(total));
}

/* ---- tests ------------------------------------------------------------------------------- */

static void test_stats(void) {
    /* hand-computed: numpy.percentile([1,2,3,4], [10,50,90]) = 1.3, 2.5, 3.7 */
    double v[] = {4, 1, 3, 2};
    etp_stats s;
    etp_stats_compute(v, 4, &s);
    CHECK_NEAR(s.p10, 1.3, 1e-12);
    CHECK_NEAR(s.p50, 2.5, 1e-12);
    CHECK_NEAR(s.p90, 3.7, 1e-12);
    CHECK_NEAR(s.avg, 2.5, 1e-12);
    CHECK_NEAR(s.total, 10, 1e-12);
    CHECK(s.min == 1 && s.max == 4 && s.n == 4);
    double one[] = {7};
    etp_stats_compute(one, 1, &s);
    CHECK(s.p10 == 7 && s.p50 == 7 && s.p90 == 7);
    etp_stats_compute(NULL, 0, &s);
    CHECK(isnan(s.p50) && s.n == 0);
    /* sorted 10 20 40 50 100: p10 at rank 0.4 -> 10 + 0.4 * 10 = 14; p90 at rank 3.6 -> 50 + 0.6 * 50 = 80 */
    double w[] = {50, 10, 40, 20, 100};
    etp_stats_compute(w, 5, &s);
    CHECK_NEAR(s.p10, 14, 1e-12);
    CHECK_NEAR(s.p50, 40, 1e-12);
    CHECK_NEAR(s.p90, 80, 1e-12);
    double p;
    CHECK(etp_stats_pick(&s, "p90", &p) && p == s.p90);
    CHECK(!etp_stats_pick(&s, "p95", &p));
    CHECK(etp_time_unit_ns("ms") == 1e6 && etp_time_unit_ns("cycles") == 0);
}

/* etp_stats_compute() sorts with a radix sort for samples of 64 or more (32-bit keys when every
 * value is a whole number in [0, 2^32)) and a comparison sort below: whatever the path, the sorted
 * array and every statistic must be bit for bit what a plain qsort gives. */
static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static void test_stats_sort_paths(void) {
    static const size_t sizes[] = {2, 15, 16, 17, 63, 64, 65, 100, 511, 512, 513, 1000, 5000};
    uint64_t x = 0x9e3779b97f4a7c15u;
    int mismatches = 0, cases = 0;
    for (int kind = 0; kind < 7; kind++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            double *v = malloc(n * sizeof *v), *ref = malloc(n * sizeof *ref);
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                double d;
                switch (kind) {
                case 0: d = (double)(x % 100000); break;                 /* cycles, counts */
                case 1: d = (double)(x % 7); break;                      /* many ties */
                case 2: d = (double)(x >> 20) + 4294967296.0; break;     /* whole, >= 2^32 */
                case 3: d = ((double)(x % 2000000) - 1000000) / 3.0; break; /* signed fractions */
                case 4: d = (double)(x % 4294967296u); break;            /* the full 32-bit range */
                case 5: d = i == n / 2 ? 0.5 : (double)(x % 1000); break; /* one non-integer */
                default: d = i == n - 1 ? 2.5 : (double)(x % 1000); break; /* ... the last */
                }
                v[i] = ref[i] = d;
            }
            qsort(ref, n, sizeof *ref, cmp_double);
            etp_stats s;
            etp_stats_compute(v, n, &s);
            double total = 0;
            for (size_t i = 0; i < n; i++) total += ref[i];
            bool same = memcmp(v, ref, n * sizeof *v) == 0 && s.n == n && s.min == ref[0] &&
                        s.max == ref[n - 1] && s.p10 == etp_percentile(ref, n, 10) &&
                        s.p50 == etp_percentile(ref, n, 50) && s.p90 == etp_percentile(ref, n, 90) &&
                        s.avg == etp_mean(ref, n) && s.total == total;
            if (!same) {
                mismatches++;
                fprintf(stderr, "stats sort path: kind %d n %zu differs\n", kind, n);
            }
            cases++;
            free(v);
            free(ref);
        }
    }
    CHECK(cases == 7 * 13);
    CHECK_EQ_I(mismatches, 0);
}

/* real runtime, real .pte: 100 runs of aten::add.out */
static void test_add_100x(void) {
    fixture fx;
    if (!open_fx(&fx, "real/add_pte_100x.etdp", "upstream/add.pte", NULL)) return;
    const etp_ops_result *r = fx.r;
    CHECK_EQ_U(etp_ops_method_count(r), 1);
    const etp_ops_method *m = etp_ops_method_get(r, 0);
    CHECK_EQ_S(m->name, "forward");
    CHECK_EQ_U(m->runs, 100); /* MANIFEST: 101 blocks = Default + 100 Execute */
    CHECK_EQ_U(etp_ops_row_count(r), 3);
    /* hierarchy order: Method::execute > OPERATOR_CALL > native_call_add.out */
    CHECK_EQ_S(etp_ops_row_get(r, 0)->name, "Method::execute");
    CHECK_EQ_S(etp_ops_row_get(r, 1)->name, "OPERATOR_CALL");
    CHECK_EQ_S(etp_ops_row_get(r, 2)->name, "native_call_add.out");
    CHECK_EQ_I(etp_ops_row_get(r, 2)->parent, 1);
    CHECK_EQ_I(etp_ops_row_get(r, 1)->parent, 0);
    const etp_ops_row *ex = find_row(r, "Method::execute", -1);
    const etp_ops_row *oc = find_row(r, "OPERATOR_CALL", 0);
    const etp_ops_row *nc = find_row(r, "native_call_add.out", 0);
    check_row_stats(&fx, "Method::execute", -1, 1, 100, 1, ex);
    check_row_stats(&fx, "OPERATOR_CALL", 0, 1, 100, 1, oc);
    check_row_stats(&fx, "native_call_add.out", 0, 1, 100, 1, nc);
    if (ex && oc && nc) {
        CHECK_EQ_S(nc->op, "aten::add.out");
        CHECK_EQ_S(oc->op, "aten::add.out");
        CHECK_EQ_S(nc->placement, "cpu");
        CHECK_EQ_S(ex->placement, "framework");
        CHECK(nc->unit == ETP_UNIT_NS);
        /* share = total / Method::execute total */
        CHECK_NEAR(nc->share, nc->stats.total / ex->stats.total * 100, 1e-9);
        CHECK_NEAR(ex->share, 100, 1e-9);
        /* exclusive of OPERATOR_CALL: per run OPERATOR_CALL - native_call */
        double v[100];
        size_t n = 0;
        for (uint32_t b = 1; b <= 100; b++) {
            double a, k;
            raw_sum(fx.dump, b, "OPERATOR_CALL", 0, &a);
            raw_sum(fx.dump, b, "native_call_add.out", 0, &k);
            v[n++] = a - k;
        }
        isort(v, n);
        CHECK_NEAR(oc->excl.p50, pct(v, n, 50), 1e-6);
        CHECK(oc->has_children_same_unit);
        /* placement: cpu = OPERATOR_CALLs, framework = the rest */
        const etp_ops_part *cpu = NULL, *fw = NULL;
        for (uint32_t j = 0; j < m->n_parts; j++) {
            if (m->parts[j].place == ETP_PLACE_CPU) cpu = &m->parts[j];
            if (m->parts[j].place == ETP_PLACE_FRAMEWORK) fw = &m->parts[j];
        }
        CHECK(cpu && fw);
        if (cpu && fw) {
            CHECK_NEAR(cpu->total, oc->stats.total, 1e-6);
            CHECK_NEAR(fw->total, ex->stats.total - oc->stats.total, 1e-6);
            CHECK_EQ_U(cpu->partitions, 1);
            CHECK_NEAR(cpu->per_run, oc->stats.total / 100, 1e-9);
        }
        CHECK_EQ_U(m->n_cpu_ops, 1);
        CHECK_EQ_S(m->cpu_ops[0].op, "aten::add.out");
        CHECK_EQ_U(m->delegate_partitions, 0);
    }
    close_fx(&fx);

    /* --skip-first 10: the statistics of blocks 11..100 only */
    etp_ops_opts oo;
    etp_ops_opts_init(&oo);
    oo.skip_first = 10;
    if (!open_fx(&fx, "real/add_pte_100x.etdp", "upstream/add.pte", &oo)) return;
    CHECK_EQ_U(etp_ops_method_get(fx.r, 0)->runs, 90);
    CHECK_EQ_U(etp_ops_method_get(fx.r, 0)->skipped, 10);
    check_row_stats(&fx, "Method::execute", -1, 11, 100, 1, find_row(fx.r, "Method::execute", -1));
    close_fx(&fx);
}

/* a loop: bundled program mul + add + add, and an identity repeated inside one run */
static void test_bundled_repeats(void) {
    fixture fx;
    if (!open_fx(&fx, "real/bundled_program_10x.etdp", "upstream/bundled_program.bpte", NULL)) return;
    /* MANIFEST: per Execute block native_call_add.out x2 (two instructions), mul x1 */
    size_t adds = 0;
    for (size_t i = 0; i < etp_ops_row_count(fx.r); i++) {
        const etp_ops_row *row = etp_ops_row_get(fx.r, i);
        if (strcmp(row->name, "native_call_add.out") == 0) {
            adds++;
            CHECK_EQ_U(row->count, 10);
            check_row_stats(&fx, "native_call_add.out", row->instr, 1, 10, 1, row);
        }
    }
    CHECK_EQ_U(adds, 2);
    const etp_ops_method *m = etp_ops_method_get(fx.r, 0);
    CHECK_EQ_U(m->n_cpu_ops, 2);
    for (uint32_t j = 0; j < m->n_cpu_ops; j++) {
        if (strcmp(m->cpu_ops[j].op, "aten::add.out") == 0) CHECK_EQ_U(m->cpu_ops[j].instructions, 2);
        else CHECK_EQ_S(m->cpu_ops[j].op, "aten::mul.out");
    }
    close_fx(&fx);
    /* --block Default: one "run" of the load block; every identity is counted, none dropped */
    etp_ops_opts oo;
    etp_ops_opts_init(&oo);
    oo.block = "Default";
    if (!open_fx(&fx, "ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp", NULL, &oo))
        return;
    /* MANIFEST: Default has "+EthosUBackend::init()processed_data" x11: summed into one sample */
    const etp_ops_row *row = find_row(fx.r, "+EthosUBackend::init()processed_data", -1);
    CHECK(row != NULL);
    if (row) {
        CHECK_EQ_U(row->count, 11);
        CHECK_EQ_U(row->runs, 1);
        double s;
        CHECK_EQ_I(raw_sum(fx.dump, 0, "+EthosUBackend::init()processed_data", -1, &s), 11);
        CHECK_NEAR(row->stats.total, s, 1e-6);
        CHECK_NEAR(row->stats.p50, s, 1e-6);
    }
    close_fx(&fx);
}

static const char *const qnn_tops[] = {
    "Number of HVX threads used (count)",
    "RPC (execute) time (us)",
    "QNN accelerator (execute) time (us)",
    "Num times yield occured (count)",
    "Time for initial VTCM acquire (us)",
    "Time for HVX + HMX power on and acquire (us)",
    "Accelerator (execute) time (cycles)",
    "Accelerator (execute) time (us)",
    "Accelerator (execute excluding wait) time (us)",
    "QNN (execute) time (us)",
};

static void test_qnn(const char *etdp, uint32_t runs) {
    fixture fx;
    if (!open_fx(&fx, etdp, "upstream/stories260k_hybrid_llama_qnn.pte", NULL)) return;
    const etp_ops_result *r = fx.r;
    CHECK_EQ_U(etp_ops_method_count(r), 1);
    const etp_ops_method *m = etp_ops_method_get(r, 0);
    CHECK_EQ_U(m->runs, runs);
    /* MANIFEST: 1530 distinct profile names per Execute block: 1518 nodes + 10 QNN top-level +
     * DELEGATE_CALL + Method::execute */
    CHECK_EQ_U(etp_ops_row_count(r), 1530);
    CHECK_EQ_U(m->htp_node_rows, 1518);
    /* placement: one QnnBackend partition, no CPU fallback */
    CHECK_EQ_U(m->delegate_partitions, 1);
    CHECK_EQ_U(m->n_cpu_ops, 0);
    CHECK_EQ_U(m->operator_calls, 0);
    uint32_t ndel = 0;
    for (uint32_t j = 0; j < m->n_parts; j++)
        if (m->parts[j].place == ETP_PLACE_DELEGATE) {
            ndel++;
            CHECK_EQ_S(m->parts[j].placement, "QnnBackend");
            CHECK_EQ_U(m->parts[j].partitions, 1);
            CHECK_EQ_U(m->parts[j].calls, runs);
        } else if (m->parts[j].place == ETP_PLACE_CPU) {
            CHECK_EQ_U(m->parts[j].partitions, 0);
            CHECK(m->parts[j].total == 0);
        }
    CHECK_EQ_U(ndel, 1);
    /* every node row: an HTP node, in cycles, thread-aggregate, on QnnBackend */
    size_t nodes = 0, bad = 0;
    for (size_t i = 0; i < etp_ops_row_count(r); i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        bool looks_node = strstr(row->name, "OpId_") && strstr(row->name, " (cycles)");
        if (!looks_node) continue;
        nodes++;
        if (!row->htp_node || row->unit != ETP_UNIT_CYCLES || !(row->flags & ETP_MF_AGGREGATE) ||
            strcmp(row->placement, "QnnBackend") != 0 || row->place != ETP_PLACE_DELEGATE ||
            strcmp(etp_ops_row_kind_name(row), "htp_node") != 0 || row->count != runs)
            bad++;
    }
    CHECK_EQ_U(nodes, 1518);
    CHECK_EQ_U(bad, 0);
    /* QNN partition facts: node sum == parent in every run (MANIFEST QNN check) */
    CHECK_EQ_U(etp_ops_qnn_count(r), 1);
    const etp_ops_qnn *q = etp_ops_qnn_get(r, 0);
    if (q) {
        CHECK_EQ_U(q->node_rows, 1518);
        CHECK_EQ_U(q->node_rows_named, 1512); /* MANIFEST: named [1512] */
        CHECK_EQ_U(q->runs_checked, runs);
        CHECK_EQ_U(q->runs_sum_mismatch, 0);
        for (int t = 0; t < ETP_QT_COUNT_; t++) CHECK_MSG(q->top[t] >= 0, "top %d present", t);
    }
    /* independent: per-run node sums == parent, computed from the raw events */
    for (uint32_t b = 1; b <= runs; b++) {
        etp_block_info bi;
        etp_dump_block(fx.dump, b, &bi);
        double parent = -1, sum = 0;
        for (uint32_t i = 0; i < bi.event_count; i++) {
            etp_event ev;
            etp_dump_event(fx.dump, b, i, &ev);
            const char *l = ev.type == ETP_EVENT_PROFILE ? raw_label(&ev.profile) : NULL;
            if (!l) continue;
            if (strcmp(l, "Accelerator (execute) time (cycles)") == 0) parent = (double)ev.profile.end_time;
            else if (strstr(l, "OpId_")) sum += (double)ev.profile.end_time;
        }
        CHECK_NEAR(sum, parent, 0.5);
    }
    /* units of every QNN event name of qnn-profiling.md 3.1 */
    for (size_t k = 0; k < sizeof qnn_tops / sizeof qnn_tops[0]; k++) {
        const etp_ops_row *row = find_row(r, qnn_tops[k], -1);
        CHECK_MSG(row != NULL, "row %s", qnn_tops[k]);
        if (!row) continue;
        CHECK(row->qnn == ETP_QNN_TOP);
        CHECK(row->flags & ETP_MF_NOT_WALL);
        const char *n = qnn_tops[k];
        size_t len = strlen(n);
        bool qt = strstr(n, "VTCM acquire") || strstr(n, "power on");
        if (len > 5 && strcmp(n + len - 5, " (us)") == 0) {
            CHECK_MSG(row->unit == ETP_UNIT_NS, "%s is a time", n);
            /* us -> ns; the two tick events are 19.2 MHz ticks */
            double scale = qt ? 1000.0 / 19.2 : 1000.0;
            check_row_stats(&fx, n, -1, 1, runs, scale, row);
            CHECK_MSG(((row->flags & ETP_MF_QTIMER) != 0) == qt, "%s qtimer flag", n);
        } else if (strstr(n, "(cycles)")) {
            CHECK(row->unit == ETP_UNIT_CYCLES && (row->flags & ETP_MF_AGGREGATE));
            check_row_stats(&fx, n, -1, 1, runs, 1, row);
        } else {
            CHECK(row->unit == ETP_UNIT_COUNT);
            check_row_stats(&fx, n, -1, 1, runs, 1, row);
            CHECK(isnan(row->share));
        }
    }
    /* node name classes */
    int64_t id;
    uint32_t nl;
    CHECK(etp_qnn_classify("aten_convolution_default:OpId_23 (cycles)", 41, &id, &nl) == ETP_QNN_NODE &&
          id == 23 && nl == 24);
    CHECK(etp_qnn_classify("Input OpId_2 (cycles)", 21, &id, &nl) == ETP_QNN_NODE_IO && id == 2);
    CHECK(etp_qnn_classify("Output OpId_3 (cycles)", 22, &id, &nl) == ETP_QNN_NODE_IO && id == 3);
    CHECK(etp_qnn_classify("OpId_0 (cycles)", 15, &id, &nl) == ETP_QNN_NODE_SYS && id == 0);
    /* first-run power-on: MANIFEST "power-on ticks first 5923" (10x and 1x kv_forward) */
    const etp_ops_row *pw = find_row(r, "Time for HVX + HMX power on and acquire (us)", -1);
    if (pw && pw->runs) CHECK_NEAR(pw->samples[0], 5923 / 19.2 * 1000, 1e-6);
    /* hierarchy: the documented QNN nesting and nodes under the cycles parent */
    const etp_ops_row *dc = find_row(r, "DELEGATE_CALL", 0);
    CHECK(dc != NULL);
    static const char *const chain[] = {"QNN (execute) time (us)", "RPC (execute) time (us)",
                                        "QNN accelerator (execute) time (us)",
                                        "Accelerator (execute) time (us)",
                                        "Accelerator (execute excluding wait) time (us)"};
    const etp_ops_row *up = dc;
    for (size_t k = 0; k < 5 && up; k++) {
        const etp_ops_row *row = find_row(r, chain[k], -1);
        CHECK_MSG(row && row->parent >= 0 && etp_ops_row_get(r, (size_t)row->parent) == up,
                  "%s nests under the previous", chain[k]);
        up = row;
    }
    const etp_ops_row *cyc = find_row(r, "Accelerator (execute) time (cycles)", -1);
    const etp_ops_row *in2 = find_row(r, "Input OpId_2 (cycles)", -1);
    CHECK(cyc && in2 && in2->parent >= 0 && etp_ops_row_get(r, (size_t)in2->parent) == cyc);
    CHECK(cyc && cyc->parent >= 0 && etp_ops_row_get(r, (size_t)cyc->parent) == dc);
    if (cyc && cyc->runs) CHECK_NEAR(cyc->excl.max, 0, 0.5); /* nodes add up exactly */
    /* node share = node total / parent cycles total */
    if (cyc && in2) CHECK_NEAR(in2->share, in2->stats.total / cyc->stats.total * 100, 1e-9);
    /* DELEGATE_CALL exclusive per run = DELEGATE_CALL ns - QNN (execute) us * 1000 */
    if (dc) {
        double v[64];
        size_t n = 0;
        for (uint32_t b = 1; b <= runs && n < 64; b++) {
            double a, e;
            raw_sum(fx.dump, b, "DELEGATE_CALL", 0, &a);
            raw_sum(fx.dump, b, "QNN (execute) time (us)", -1, &e);
            v[n++] = a - e * 1000;
        }
        isort(v, n);
        CHECK_NEAR(dc->excl.p50, pct(v, n, 50), 1e-6);
        check_row_stats(&fx, "DELEGATE_CALL", 0, 1, runs, 1, dc);
    }
    close_fx(&fx);
}

/* Ethos-U partial delegation: 11 partitions, 42 CPU kernels of three types */
static void test_ethosu(void) {
    fixture fx;
    if (!open_fx(&fx, "ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp",
                 "ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte", NULL))
        return;
    const etp_ops_result *r = fx.r;
    const etp_ops_method *m = etp_ops_method_get(r, 0);
    CHECK_EQ_U(m->delegate_partitions, 11);
    CHECK_EQ_U(m->n_cpu_ops, 3);
    struct {
        const char *op;
        uint32_t n;
        bool seen;
    } want[] = {{"cortex_m::quantize_per_tensor.out", 11, false},
                {"cortex_m::dequantize_per_tensor.out", 21, false},
                {"aten::add.out", 10, false}};
    for (uint32_t j = 0; j < m->n_cpu_ops; j++)
        for (size_t k = 0; k < 3; k++)
            if (strcmp(m->cpu_ops[j].op, want[k].op) == 0) {
                CHECK_EQ_U(m->cpu_ops[j].instructions, want[k].n);
                CHECK_EQ_U(m->cpu_ops[j].calls, want[k].n);
                want[k].seen = true;
            }
    for (size_t k = 0; k < 3; k++) CHECK_MSG(want[k].seen, "%s listed", want[k].op);
    /* totals from the raw events of block 1 */
    double dc, oc, ex;
    CHECK_EQ_I(raw_sum(fx.dump, 1, "DELEGATE_CALL", -1, &dc), 11);
    CHECK_EQ_I(raw_sum(fx.dump, 1, "OPERATOR_CALL", -1, &oc), 42);
    CHECK_EQ_I(raw_sum(fx.dump, 1, "Method::execute", -1, &ex), 1);
    for (uint32_t j = 0; j < m->n_parts; j++) {
        const etp_ops_part *p = &m->parts[j];
        if (p->place == ETP_PLACE_DELEGATE) {
            CHECK_EQ_S(p->placement, "EthosUBackend");
            CHECK_EQ_U(p->partitions, 11);
            CHECK_NEAR(p->total, dc, 1e-6);
            CHECK_NEAR(p->share, dc / ex * 100, 1e-9);
        } else if (p->place == ETP_PLACE_CPU) {
            CHECK_EQ_U(p->partitions, 42);
            CHECK_NEAR(p->total, oc, 1e-6);
        } else {
            CHECK_NEAR(p->total, ex - dc - oc, 1e-6);
        }
    }
    /* Ethos-U scopes nest by their timestamps: NPU and memcpy inside EthosUBackend::execute() */
    const etp_ops_row *npu = find_row(r, "+EthosUBackend::execute()NPU", 1);
    const etp_ops_row *exe = find_row(r, "EthosUBackend::execute()", 1);
    const etp_ops_row *cp = find_row(r, "+EthosUBackend::execute()handles.input.memcpy()", 1);
    const etp_ops_row *d1 = find_row(r, "DELEGATE_CALL", 1);
    CHECK(npu && exe && cp && d1);
    if (npu && exe && cp && d1) {
        CHECK(etp_ops_row_get(r, (size_t)npu->parent) == exe);
        CHECK(etp_ops_row_get(r, (size_t)cp->parent) == exe);
        CHECK(etp_ops_row_get(r, (size_t)exe->parent) == d1);
        CHECK_EQ_S(npu->placement, "EthosUBackend");
        CHECK_NEAR(exe->excl.total, exe->stats.total - npu->stats.total - cp->stats.total, 1e-6);
    }
    /* selection: placement filter and numeric sort grouped by unit, largest first */
    uint32_t idx[512];
    size_t n = 0;
    etp_ops_filter f;
    etp_ops_filter_init(&f);
    f.placement = "cpu";
    etp_error err = {0};
    CHECK(etp_ops_select(r, &f, idx, &n, &err) == ETP_OK);
    CHECK_EQ_U(n, 42); /* kernels only: OPERATOR_CALL rows hidden */
    f.all = true;
    CHECK(etp_ops_select(r, &f, idx, &n, &err) == ETP_OK);
    CHECK_EQ_U(n, 84);
    etp_ops_filter_init(&f);
    f.sort = "total";
    f.top = 5;
    CHECK(etp_ops_select(r, &f, idx, &n, &err) == ETP_OK);
    CHECK_EQ_U(n, 5);
    CHECK_EQ_S(etp_ops_row_get(r, idx[0])->name, "Method::execute");
    for (size_t k = 1; k < n; k++)
        CHECK(etp_ops_row_get(r, idx[k])->stats.total <= etp_ops_row_get(r, idx[k - 1])->stats.total);
    f.sort = "bogus";
    CHECK(etp_ops_select(r, &f, idx, &n, &err) == ETP_E_USAGE);
    close_fx(&fx);
}

/* synthetic mixed dump, no .pte: the CPU fallbacks are found from their native_call_ names */
static void test_synth(void) {
    fixture fx;
    if (!open_fx(&fx, "synthetic/synth_qnn_mixed_small_3x.etdp", NULL, NULL)) return;
    const etp_ops_method *m = etp_ops_method_get(fx.r, 0);
    CHECK(m->name == NULL);
    CHECK_EQ_U(m->runs, 3);
    CHECK_EQ_U(m->delegate_partitions, 2);
    const char *want[] = {"embedding.out", "quantize_per_tensor.out", "dequantize_per_tensor.out",
                          "argmax.out"};
    CHECK_EQ_U(m->n_cpu_ops, 4);
    for (size_t k = 0; k < 4; k++) {
        bool seen = false;
        for (uint32_t j = 0; j < m->n_cpu_ops; j++)
            if (strcmp(m->cpu_ops[j].op, want[k]) == 0) {
                seen = true;
                CHECK_EQ_U(m->cpu_ops[j].instructions, 1);
                CHECK_EQ_U(m->cpu_ops[j].calls, 3);
            }
        CHECK_MSG(seen, "%s found", want[k]);
    }
    for (uint32_t j = 0; j < m->n_parts; j++)
        if (m->parts[j].place == ETP_PLACE_DELEGATE) CHECK_EQ_S(m->parts[j].placement, "delegate");
    /* int-id delegate events: identity "5", in host time */
    const etp_ops_row *five = find_row(fx.r, "5", 3);
    CHECK(five && five->unit == ETP_UNIT_NS && five->count == 3);
    /* old-style node names without a unit suffix stay raw */
    const etp_ops_row *conv = find_row(fx.r, "aten_convolution_default", 2);
    CHECK(conv && conv->unit == ETP_UNIT_RAW && !conv->htp_node);
    close_fx(&fx);
}

/* etp_census_compute against tests/data/MANIFEST.md: 11 blocks, `Default` (Method::init and
 * Program::load_method) then 10 `Execute` blocks of 1530 profile events, 15302 events in all;
 * each run has one Method::execute and one DELEGATE_CALL (the QNN backend, named in the
 * program), everything else the backend logged. On one thread and on two (ETPROF_THREADS). */
static void test_census(void) {
    for (int threads = 1; threads <= 2; threads++) {
        setenv("ETPROF_THREADS", threads == 1 ? "1" : "2", 1);
        fixture fx;
        if (!open_fx(&fx, "fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp",
                     "upstream/stories260k_hybrid_llama_qnn.pte", NULL))
            continue;
        etp_census *c = NULL;
        etp_error err = {0};
        CHECK(etp_census_compute(fx.model, NULL, &c, &err) == ETP_OK);
        if (c) {
            uint32_t nb, nm, nk;
            const etp_census_block *b = etp_census_blocks(c, &nb);
            CHECK_EQ_U(nb, 11);
            CHECK(b[0].info.name.ptr && strcmp(b[0].info.name.ptr, "Default") == 0);
            CHECK_EQ_U(b[0].by_type[ETP_EVENT_PROFILE], 2);
            CHECK(!b[0].is_execute);
            for (uint32_t i = 1; i < nb; i++) {
                CHECK(b[i].info.name.ptr && strcmp(b[i].info.name.ptr, "Execute") == 0);
                CHECK_EQ_U(b[i].info.event_count, 1530);
                CHECK_EQ_U(b[i].by_type[ETP_EVENT_PROFILE], 1530);
                CHECK_EQ_U(b[i].by_type[ETP_EVENT_ALLOCATION] + b[i].by_type[ETP_EVENT_DEBUG], 0);
                CHECK(b[i].is_execute);
                /* both methods of the program fit the events (tests/test_method_ambiguity.py):
                 * no method is taken */
                CHECK(b[i].method == NULL);
                CHECK_EQ_U(b[i].candidates, 2);
                CHECK_EQ_U(b[i].n_candidate_names, 2);
                if (b[i].n_candidate_names == 2)
                    CHECK(strcmp(b[i].candidate_names[0], "kv_forward") == 0 &&
                          strcmp(b[i].candidate_names[1], "prefill_forward") == 0);
            }
            const uint64_t *k = etp_census_kinds(c);
            uint64_t total = 0;
            for (int j = 0; j < ETP_KIND_COUNT_; j++) total += k[j];
            CHECK_EQ_U(total, 15302);
            CHECK_EQ_U(k[ETP_KIND_FRAMEWORK], 12);
            CHECK_EQ_U(k[ETP_KIND_DELEGATE_CALL], 10);
            CHECK_EQ_U(k[ETP_KIND_DELEGATE_INTERNAL], 15302 - 22);
            etp_census_methods(c, &nm);
            CHECK_EQ_U(nm, 0);
            const etp_census_count *bk = etp_census_backends(c, &nk);
            CHECK_EQ_U(nk, 1);
            if (nk) {
                CHECK(strcmp(bk[0].name, "QnnBackend") == 0);
                CHECK_EQ_U(bk[0].n, 10);
            }
        }
        etp_census_free(c);
        c = NULL;
        /* the method given (--method): every Execute block is a run of it */
        etp_model_opts mo;
        etp_model_opts_init(&mo);
        mo.method = "kv_forward";
        etp_model *m2 = NULL;
        CHECK(etp_model_open(&m2, fx.dump, fx.prog, &mo, &err) == ETP_OK);
        if (m2 && etp_census_compute(m2, NULL, &c, &err) == ETP_OK) {
            uint32_t nb, nm;
            const etp_census_block *b = etp_census_blocks(c, &nb);
            for (uint32_t i = 1; i < nb; i++)
                CHECK(b[i].method && strcmp(b[i].method, "kv_forward") == 0 &&
                      b[i].basis == ETP_MB_OPTION);
            const etp_census_count *m = etp_census_methods(c, &nm);
            CHECK_EQ_U(nm, 1);
            if (nm) {
                CHECK(strcmp(m[0].name, "kv_forward") == 0);
                CHECK_EQ_U(m[0].n, 10);
            }
        } else {
            CHECK(!"census with --method");
        }
        etp_census_free(c);
        etp_model_close(m2);
        close_fx(&fx);
    }
    unsetenv("ETPROF_THREADS");
}

int main(int argc, char **argv) {
    if (argc > 1) data_dir = argv[1];
    test_stats();
    test_stats_sort_paths();
    test_add_100x();
    test_bundled_repeats();
    test_qnn("fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp", 10);
    test_qnn("fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp", 1);
    test_ethosu();
    test_synth();
    test_census();
    return check_done();
}
