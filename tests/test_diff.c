/* test_diff.c - the statistics behind `etprof diff` against values computed by hand (in the
 * comments), U against brute-force pair counting, and etp_diff_compute on corpus dumps whose
 * answer is known by construction. Usage: test_diff DATA_DIR */
#include "check.h"
#include "ops_fixture.h"
#include "etprof.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *data_dir = "tests/data";

/* ---- Mann-Whitney U, by hand ------------------------------------------------------------- */

static void mwu_by_hand(void) {
    etp_mwu t;

    /* a = {1,2,3}, b = {4,5,6}. Every y of b exceeds every x of a: U_b = 3 * 3 = 9.
     * mean = na*nb/2 = 4.5. No ties: var = na*nb/12 * (N+1) = 9/12 * 7 = 5.25, sd = 2.291288.
     * z = (9 - 4.5 - 0.5) / 2.291288 = 1.745743 (continuity correction toward 0).
     * p = 2 * (1 - Phi(1.745743)); Phi(1.7457) = 0.959572 from the normal table -> p = 0.080856. */
    const double a1[] = {1, 2, 3}, b1[] = {4, 5, 6};
    CHECK_EQ_I(etp_mann_whitney_u(a1, 3, b1, 3, &t), ETP_OK);
    CHECK_NEAR(t.u, 9, 0);
    CHECK_NEAR(t.mean, 4.5, 0);
    CHECK_NEAR(t.sd, 2.291288, 1e-6);
    CHECK_NEAR(t.z, 1.745743, 1e-6);
    CHECK_NEAR(t.p, 0.080856, 1e-5);

    /* The other direction: U_b = 0, z = -1.745743, same p. */
    CHECK_EQ_I(etp_mann_whitney_u(b1, 3, a1, 3, &t), ETP_OK);
    CHECK_NEAR(t.u, 0, 0);
    CHECK_NEAR(t.z, -1.745743, 1e-6);
    CHECK_NEAR(t.p, 0.080856, 1e-5);

    /* Ties. a = {1,2,2,3}, b = {2,3,4,4}; pooled and sorted: 1 2 2 2 3 3 4 4.
     * Ranks: 1 -> 1; the three 2s share (2+3+4)/3 = 3; the two 3s (5+6)/2 = 5.5; the two 4s
     * (7+8)/2 = 7.5. R_b = 3 + 5.5 + 7.5 + 7.5 = 23.5, U_b = 23.5 - 4*5/2 = 13.5.
     * Check by pairs (y > x counts 1, y == x counts 1/2): x=1: 4; x=2: 0.5+3 = 3.5 (twice);
     * x=3: 0.5+2 = 2.5; total 13.5.
     * mean = 8. Tie term: (27-3) + (8-2) + (8-2) = 36; N(N-1) = 56.
     * var = 16/12 * (9 - 36/56) = 1.333333 * 8.357143 = 11.142857, sd = 3.338092.
     * z = (13.5 - 8 - 0.5) / 3.338092 = 1.497862; p = 2 * (1 - Phi(1.4979)) = 0.134169. */
    const double a2[] = {1, 2, 2, 3}, b2[] = {2, 3, 4, 4};
    CHECK_EQ_I(etp_mann_whitney_u(a2, 4, b2, 4, &t), ETP_OK);
    CHECK_NEAR(t.u, 13.5, 0);
    CHECK_NEAR(t.mean, 8, 0);
    CHECK_NEAR(t.sd * t.sd, 11.142857, 1e-6);
    CHECK_NEAR(t.z, 1.497862, 1e-6);
    CHECK_NEAR(t.p, 0.134169, 1e-5);

    /* Unequal sizes, order of input irrelevant. a = {30,10,40,20}, b = {35,25}.
     * Pairs: 25 > 10, 20 -> 2; 35 > 10, 20, 30 -> 3; U_b = 5. mean = 4, var = 8/12 * 7 = 4.666667,
     * sd = 2.160247, z = (5 - 4 - 0.5) / 2.160247 = 0.231455, p = 0.816961. */
    const double a3[] = {30, 10, 40, 20}, b3[] = {35, 25};
    CHECK_EQ_I(etp_mann_whitney_u(a3, 4, b3, 2, &t), ETP_OK);
    CHECK_NEAR(t.u, 5, 0);
    CHECK_NEAR(t.z, 0.231455, 1e-6);
    CHECK_NEAR(t.p, 0.816961, 1e-5);

    /* |U - mean| below the continuity correction: z = 0, p = 1. a = {1,4}, b = {2,3}: U_b = 2
     * (2 > 1, 3 > 1), mean 2. */
    const double a4[] = {1, 4}, b4[] = {2, 3};
    CHECK_EQ_I(etp_mann_whitney_u(a4, 2, b4, 2, &t), ETP_OK);
    CHECK_NEAR(t.u, 2, 0);
    CHECK_NEAR(t.z, 0, 0);
    CHECK_NEAR(t.p, 1, 0);

    /* Everything tied (identical constant samples): the tie term cancels N+1, sd = 0, p = 1. */
    const double a5[] = {5, 5, 5}, b5[] = {5, 5, 5};
    CHECK_EQ_I(etp_mann_whitney_u(a5, 3, b5, 3, &t), ETP_OK);
    CHECK_NEAR(t.u, 4.5, 0);
    CHECK_NEAR(t.sd, 0, 0);
    CHECK_NEAR(t.p, 1, 0);
    CHECK_NEAR(t.z, 0, 0);

    /* Refused: empty samples, NaN. */
    const double an[] = {1, NAN};
    CHECK_EQ_I(etp_mann_whitney_u(a1, 0, b1, 3, &t), ETP_E_USAGE);
    CHECK_EQ_I(etp_mann_whitney_u(an, 2, b1, 3, &t), ETP_E_USAGE);
}

/* U against brute-force pair counting, on pseudo-random samples with many ties. */
static void mwu_vs_pairs(void) {
    uint64_t s = 12345;
    for (int round = 0; round < 50; round++) {
        size_t na = 1 + (size_t)(round % 13), nb = 1 + (size_t)((round * 7) % 17);
        double a[16], b[20];
        for (size_t i = 0; i < na; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            a[i] = (double)((s >> 33) % 9);
        }
        for (size_t i = 0; i < nb; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            b[i] = (double)((s >> 33) % 9) + (round % 3);
        }
        double u = 0;
        for (size_t i = 0; i < na; i++)
            for (size_t j = 0; j < nb; j++) u += b[j] > a[i] ? 1.0 : b[j] == a[i] ? 0.5 : 0.0;
        etp_mwu t;
        CHECK_EQ_I(etp_mann_whitney_u(a, na, b, nb, &t), ETP_OK);
        CHECK_NEAR(t.u, u, 1e-9);
        CHECK(t.p >= 0 && t.p <= 1);
        /* swapping the samples mirrors U around its mean and keeps p */
        etp_mwu r;
        CHECK_EQ_I(etp_mann_whitney_u(b, nb, a, na, &r), ETP_OK);
        CHECK_NEAR(r.u, (double)(na * nb) - u, 1e-9);
        CHECK_NEAR(r.p, t.p, 1e-12);
    }
}

/* Samples long enough for the radix sort (>= 48 values each), with negative, fractional and
 * tied values and both zeros: U by pair counting and the tie-corrected sd from tie counts found
 * by brute force over the pooled values. */
static void mwu_large(void) {
    uint64_t s = 987654321;
    static double a[400], b[400], pool[800];
    for (int round = 0; round < 12; round++) {
        size_t na = 48 + (size_t)round * 29, nb = 300 - (size_t)round * 17;
        for (size_t i = 0; i < na + nb; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double v = (double)((int64_t)((s >> 33) % 2001) - 1000) / (round % 2 ? 8.0 : 1.0);
            if ((s >> 20) % 50 == 0) v = (s >> 21) % 2 ? -0.0 : 0.0;
            if ((s >> 24) % 40 == 0) v = 1e300 * ((s >> 25) % 2 ? -1 : 1);
            if (i < na) a[i] = v; else b[i - na] = v + (double)(round % 3);
            pool[i] = i < na ? a[i] : b[i - na];
        }
        double u = 0;
        for (size_t i = 0; i < na; i++)
            for (size_t j = 0; j < nb; j++) u += b[j] > a[i] ? 1.0 : b[j] == a[i] ? 0.5 : 0.0;
        size_t n = na + nb;
        double ties = 0;
        for (size_t i = 0; i < n; i++) {
            bool first = true;
            size_t t = 0;
            for (size_t k = 0; k < n; k++) {
                if (pool[k] == pool[i]) {
                    if (k < i) first = false;
                    t++;
                }
            }
            if (first) ties += (double)t * t * t - (double)t;
        }
        double da = (double)na, db = (double)nb, dn = (double)n;
        double sd = sqrt(da * db / 12.0 * ((dn + 1.0) - ties / (dn * (dn - 1.0))));
        etp_mwu t;
        CHECK_EQ_I(etp_mann_whitney_u(a, na, b, nb, &t), ETP_OK);
        CHECK_NEAR(t.u, u, 1e-6);
        CHECK_NEAR(t.sd, sd, 1e-9 * sd);
        CHECK(t.p >= 0 && t.p <= 1);
    }
}

/* ---- Benjamini-Hochberg, by hand --------------------------------------------------------- */

static void bh_by_hand(void) {
    /* p = {0.01, 0.04, 0.03, 0.5, NaN}: m = 4 (NaN skipped). Sorted: 0.01 (rank 1), 0.03 (2),
     * 0.04 (3), 0.5 (4). p*m/rank: 0.04, 0.06, 0.053333, 0.5. Step-up minimum from the top:
     * rank 4: 0.5; rank 3: 0.053333; rank 2: min(0.06, 0.053333) = 0.053333; rank 1: 0.04. */
    double p[] = {0.01, 0.04, 0.03, 0.5, NAN}, q[5];
    CHECK_EQ_I(etp_bh_adjust(p, 5, q), ETP_OK);
    CHECK_NEAR(q[0], 0.04, 1e-12);
    CHECK_NEAR(q[1], 0.16 / 3, 1e-12);
    CHECK_NEAR(q[2], 0.16 / 3, 1e-12);
    CHECK_NEAR(q[3], 0.5, 1e-12);
    CHECK(isnan(q[4]));
    /* in place, and capped at 1: p = {0.9, 0.8}: 0.9*2/2 = 0.9, 0.8*2/1 = 1.6 -> min(1.6, 0.9) */
    double r[] = {0.9, 0.8};
    CHECK_EQ_I(etp_bh_adjust(r, 2, r), ETP_OK);
    CHECK_NEAR(r[0], 0.9, 1e-12);
    CHECK_NEAR(r[1], 0.9, 1e-12);
}

static void names(void) {
    CHECK_EQ_S(etp_diff_verdict_name(ETP_DV_SLOWER, ETP_UNIT_NS), "slower");
    CHECK_EQ_S(etp_diff_verdict_name(ETP_DV_FASTER, ETP_UNIT_CYCLES), "faster");
    CHECK_EQ_S(etp_diff_verdict_name(ETP_DV_SLOWER, ETP_UNIT_COUNT), "higher");
    CHECK_EQ_S(etp_diff_verdict_name(ETP_DV_TOO_FEW_RUNS, ETP_UNIT_NS), "too few runs");
    CHECK_EQ_S(etp_diff_verdict_name(ETP_DV_NO_CHANGE, ETP_UNIT_NS), "no change");
    CHECK_EQ_S(etp_diff_verdict_name(ETP_DV_NOISE, ETP_UNIT_NS), "noise");
    CHECK_EQ_S(etp_diff_move_name(ETP_MOVE_TO_CPU), "to_cpu");
}

/* ---- the CI gate ------------------------------------------------------------------------- */

/* The smallest p the rank test can give. Exact floor 2 / C(na + nb, na) (complete separation,
 * either direction, out of all equally likely rank splits) against the normal approximation at
 * complete separation without ties, z = (na nb / 2 - 0.5) / sqrt(na nb (na + nb + 1) / 12):
 *  1 vs 1: 2 / C(2,1) = 1; z = 0 -> p = 1.                                          min_p 1
 *  3 vs 3: 2 / 20 = 0.1; z = 4 / 2.291288 = 1.745743 -> 0.080856.                   min_p 0.1
 *  4 vs 4: 2 / 70 = 0.028571; z = 7.5 / 3.464102 = 2.165064 -> 0.030383.            min_p 0.030383
 *  3 vs 5: 2 / 56 = 0.035714; z = 7 / 3.354102 = 2.086997 -> 0.036888.              min_p 0.036888
 *  1 vs 1000: 2 / 1001; z = 499.5 / sqrt(1000 * 1002 / 12) = 499.5 / 288.963 = 1.728597 ->
 *  0.083884: one run on a side never reaches 0.05 (z tends to sqrt(3) as nb grows).
 * Runs per side needed: at 0.05, 3 vs 3 gives 0.1 and 4 vs 4 0.030 -> 4. At 0.01: 5 vs 5 gives
 * max(2 / 252, erfc(12 / 4.787136 / sqrt 2) = 0.012186) >= 0.01; 6 vs 6 gives max(2 / 924,
 * erfc(17.5 / 6.244998 / sqrt 2) = 0.005075) -> 6. */
static void min_p_by_hand(void) {
    CHECK_NEAR(etp_mwu_min_p(1, 1), 1, 0);
    CHECK_NEAR(etp_mwu_min_p(0, 5), 1, 0);
    CHECK_NEAR(etp_mwu_min_p(3, 3), 0.1, 1e-12);
    CHECK_NEAR(etp_mwu_min_p(4, 4), 0.030383, 1e-6);
    CHECK_NEAR(etp_mwu_min_p(3, 5), 0.036888, 1e-6);
    CHECK_NEAR(etp_mwu_min_p(5, 3), 0.036888, 1e-6);
    CHECK_NEAR(etp_mwu_min_p(1, 1000), 0.083884, 1e-5);
    /* the test itself never goes below it: complete separation of 3 vs 3 and 4 vs 4 */
    etp_mwu t;
    const double a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
    CHECK_EQ_I(etp_mann_whitney_u(a, 4, b, 4, &t), ETP_OK);
    CHECK(t.p >= etp_mwu_min_p(4, 4) - 1e-12);
    CHECK_EQ_I(etp_mann_whitney_u(a, 3, b, 3, &t), ETP_OK);
    CHECK(t.p < etp_mwu_min_p(3, 3)); /* 0.081: the approximation is below the exact floor */
    CHECK_EQ_U(etp_mwu_runs_needed(0.05), 4);
    CHECK_EQ_U(etp_mwu_runs_needed(0.01), 6);
    CHECK_EQ_U(etp_mwu_runs_needed(0), 0);
    CHECK_EQ_U(etp_mwu_runs_needed(1), 0);
}

static etp_diff_cmp mk_cmp(uint32_t rb, uint32_t rn, double pct, etp_diff_verdict v, double p) {
    etp_diff_cmp c;
    memset(&c, 0, sizeof c);
    c.runs_base = rb;
    c.runs_new = rn;
    c.p50_base = 100;
    c.p50_new = 100 + pct;
    c.p50_delta = pct;
    c.p50_pct = pct;
    c.z = v == ETP_DV_FASTER ? -3 : 3;
    c.p = c.q = p;
    c.verdict = v;
    return c;
}

static etp_diff_gate gate_of(etp_diff_cmp c, bool both, double fail_pct) {
    etp_diff_opts o;
    etp_diff_opts_init(&o);
    o.fail_pct = fail_pct;
    etp_diff_gate g;
    etp_diff_gate_row(&c, both, false, &o, &g);
    return g;
}

static bool text_has(const etp_diff_gate *g, const char *want) {
    char b[400];
    etp_diff_gate_text(g, b, sizeof b);
    bool ok = strstr(b, want) != NULL;
    if (!ok) fprintf(stderr, "gate text \"%s\" lacks \"%s\"\n", b, want);
    return ok;
}

static void gate_rows(void) {
    etp_diff_gate g;
    /* 1 vs 1, +41 %, gate 5 %: the test cannot run (too few runs): inconclusive */
    g = gate_of(mk_cmp(1, 1, 41, ETP_DV_TOO_FEW_RUNS, NAN), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_INCONCLUSIVE);
    CHECK_EQ_I(g.reason, ETP_DR_TOO_FEW_RUNS);
    CHECK(!g.testable);
    CHECK_NEAR(g.min_p, 1, 0);
    CHECK_EQ_U(g.runs_needed, 4);
    CHECK_NEAR(g.threshold_pct, 5, 0);
    CHECK(text_has(&g, "p50 +41.00% > 5%, but 1 run(s) in BASE and 1 in NEW"));
    CHECK(text_has(&g, "cannot reach p < 0.05"));
    CHECK(text_has(&g, "at least 4 runs per side"));
    /* ... +3 % does not exceed 5 %: a pass on the change alone */
    g = gate_of(mk_cmp(1, 1, 3, ETP_DV_TOO_FEW_RUNS, NAN), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_PASS);
    CHECK_EQ_I(g.reason, ETP_DR_WITHIN);
    CHECK(text_has(&g, "judged on the change alone"));
    /* ... -41 %: not a regression */
    g = gate_of(mk_cmp(1, 1, -41, ETP_DV_TOO_FEW_RUNS, NAN), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_PASS);
    /* 3 vs 3, tested, p = 0.081 (noise): cannot reach 0.05 (floor 0.1): inconclusive */
    g = gate_of(mk_cmp(3, 3, 41, ETP_DV_NOISE, 0.080856), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_INCONCLUSIVE);
    CHECK_EQ_I(g.reason, ETP_DR_TOO_FEW_RUNS);
    CHECK(text_has(&g, "smallest possible p: 0.1)"));
    /* 3 vs 3 "slower" at p = 0.047 (ties shrink the approximation's variance): still below the
     * exact floor, so not a confident regression */
    g = gate_of(mk_cmp(3, 3, 41, ETP_DV_SLOWER, 0.047), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_INCONCLUSIVE);
    /* 12 vs 12 */
    g = gate_of(mk_cmp(12, 12, 41, ETP_DV_SLOWER, 3.7e-5), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_REGRESSION);
    CHECK_EQ_I(g.reason, ETP_DR_SIGNIFICANT);
    CHECK(g.testable);
    CHECK(text_has(&g, "p50 +41.00% > 5%, significantly slower (p=3.7e-05 < 0.05, 12 vs 12 runs)"));
    g = gate_of(mk_cmp(12, 12, 4, ETP_DV_SLOWER, 0.001), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_PASS);
    CHECK_EQ_I(g.reason, ETP_DR_WITHIN);
    g = gate_of(mk_cmp(12, 12, 5, ETP_DV_SLOWER, 0.001), true, 5); /* "more than": 5 is not */
    CHECK_EQ_I(g.outcome, ETP_DIFF_PASS);
    g = gate_of(mk_cmp(12, 12, 12, ETP_DV_NOISE, 0.3), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_PASS);
    CHECK_EQ_I(g.reason, ETP_DR_NOISE);
    g = gate_of(mk_cmp(12, 12, -20, ETP_DV_FASTER, 0.001), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_IMPROVEMENT);
    g = gate_of(mk_cmp(12, 12, -4, ETP_DV_FASTER, 0.001), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_PASS);
    /* 4 vs 4 can reach it; 3 vs 5 too (floor 0.037) */
    g = gate_of(mk_cmp(4, 4, 41, ETP_DV_SLOWER, 0.030383), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_REGRESSION);
    g = gate_of(mk_cmp(3, 5, 41, ETP_DV_SLOWER, 0.03689), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_REGRESSION);
    /* undefined change, missing samples, one side only */
    g = gate_of(mk_cmp(12, 12, NAN, ETP_DV_NOISE, 0.3), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_INCONCLUSIVE);
    CHECK_EQ_I(g.reason, ETP_DR_UNDEFINED);
    g = gate_of(mk_cmp(0, 5, NAN, ETP_DV_TOO_FEW_RUNS, NAN), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_INCONCLUSIVE);
    CHECK_EQ_I(g.reason, ETP_DR_NO_SAMPLES_BASE);
    g = gate_of(mk_cmp(5, 0, NAN, ETP_DV_TOO_FEW_RUNS, NAN), true, 5);
    CHECK_EQ_I(g.reason, ETP_DR_NO_SAMPLES_NEW);
    g = gate_of(mk_cmp(0, 0, NAN, ETP_DV_TOO_FEW_RUNS, NAN), true, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_NOT_COMPARED);
    CHECK_EQ_I(g.reason, ETP_DR_NO_SAMPLES);
    g = gate_of(mk_cmp(12, 0, NAN, ETP_DV_ADDED, NAN), false, 5);
    CHECK_EQ_I(g.outcome, ETP_DIFF_NOT_COMPARED);
    CHECK_EQ_I(g.reason, ETP_DR_ONE_SIDE);
    /* no gate (fail_pct NaN): the threshold is 0 */
    g = gate_of(mk_cmp(12, 12, 0.5, ETP_DV_SLOWER, 0.001), true, NAN);
    CHECK_EQ_I(g.outcome, ETP_DIFF_REGRESSION);
    CHECK_NEAR(g.threshold_pct, 0, 0);
    g = gate_of(mk_cmp(1, 1, 0, ETP_DV_TOO_FEW_RUNS, NAN), true, NAN);
    CHECK_EQ_I(g.outcome, ETP_DIFF_PASS);
    /* operators: q is the value shown */
    etp_diff_opts o;
    etp_diff_opts_init(&o);
    etp_diff_cmp c = mk_cmp(12, 12, 41, ETP_DV_SLOWER, 0.001);
    c.q = 0.004;
    etp_diff_gate_row(&c, true, true, &o, &g);
    CHECK(g.q_value);
    CHECK_NEAR(g.p, 0.004, 0);
    CHECK(text_has(&g, "q=0.0040"));
    CHECK_EQ_S(etp_diff_outcome_name(ETP_DIFF_INCONCLUSIVE), "inconclusive");
    CHECK_EQ_S(etp_diff_outcome_name(ETP_DIFF_REGRESSION), "regression");
    CHECK_EQ_S(etp_diff_outcome_name(ETP_DIFF_PASS), "pass");
    CHECK_EQ_S(etp_diff_outcome_name(ETP_DIFF_IMPROVEMENT), "improvement");
    CHECK_EQ_S(etp_diff_outcome_name(ETP_DIFF_NOT_COMPARED), "not compared");
}

static bool starts(const char *s, const char *prefix) {
    bool ok = strncmp(s, prefix, strlen(prefix)) == 0;
    if (!ok) fprintf(stderr, "\"%s\" does not start with \"%s\"\n", s, prefix);
    return ok;
}

static void gate_overall(void) {
    etp_diff_gate pass = gate_of(mk_cmp(12, 12, 0, ETP_DV_NO_CHANGE, 1), true, 5);
    etp_diff_gate pass_few = gate_of(mk_cmp(1, 1, 0, ETP_DV_TOO_FEW_RUNS, NAN), true, 5);
    etp_diff_gate inc = gate_of(mk_cmp(1, 1, 41, ETP_DV_TOO_FEW_RUNS, NAN), true, 5);
    etp_diff_gate reg = gate_of(mk_cmp(12, 12, 41, ETP_DV_SLOWER, 1e-4), true, 5);
    etp_diff_gate imp = gate_of(mk_cmp(12, 12, -41, ETP_DV_FASTER, 1e-4), true, 5);
    etp_diff_gate none = gate_of(mk_cmp(12, 0, NAN, ETP_DV_REMOVED, NAN), false, 5);
    const char *names[] = {"forward", "encoder", "decoder"};
    etp_diff_overall r;

    etp_diff_gate a[] = {pass, inc};
    etp_diff_gate_overall(a, names, 2, &r);
    CHECK_EQ_I(r.outcome, ETP_DIFF_INCONCLUSIVE);
    CHECK_EQ_I(r.first, 1);
    CHECK_EQ_U(r.inconclusive, 1);
    CHECK_EQ_U(r.passes, 1);
    CHECK(starts(r.reason, "encoder: p50 +41.00% > 5%, but 1 run(s) in BASE and 1 in NEW: "));

    etp_diff_gate b[] = {inc, reg, inc}; /* a confident regression wins */
    etp_diff_gate_overall(b, names, 3, &r);
    CHECK_EQ_I(r.outcome, ETP_DIFF_REGRESSION);
    CHECK_EQ_I(r.first, 1);
    CHECK(starts(r.reason,
                 "encoder: p50 +41.00% > 5%, significantly slower (p=0.0001 < 0.05, 12 vs 12 runs)"));

    etp_diff_gate c2[] = {inc, pass, inc};
    etp_diff_gate_overall(c2, NULL, 3, &r);
    CHECK_EQ_I(r.outcome, ETP_DIFF_INCONCLUSIVE);
    CHECK_EQ_I(r.first, 0);
    CHECK(starts(r.reason, "(method unknown): p50 +41.00%"));
    CHECK(strstr(r.reason, "; and 1 more method(s)") != NULL);

    etp_diff_gate d[] = {pass_few, imp};
    etp_diff_gate_overall(d, names, 2, &r);
    CHECK_EQ_I(r.outcome, ETP_DIFF_IMPROVEMENT);
    CHECK_EQ_I(r.first, 1);

    etp_diff_gate e[] = {pass, pass_few, none};
    etp_diff_gate_overall(e, names, 3, &r);
    CHECK_EQ_I(r.outcome, ETP_DIFF_PASS);
    CHECK_EQ_U(r.untested_passes, 1);
    CHECK_EQ_U(r.not_compared, 1);
    CHECK_EQ_I(r.first, -1);
    CHECK(strstr(r.reason, "no method is significantly slower by more than 5%") == r.reason);
    CHECK(strstr(r.reason, "1 method(s) had too few runs") != NULL);

    /* nothing compared: nothing to judge is not a pass */
    etp_diff_gate f[] = {none};
    etp_diff_gate_overall(f, names, 1, &r);
    CHECK_EQ_I(r.outcome, ETP_DIFF_INCONCLUSIVE);
    CHECK(strstr(r.reason, "nothing to judge") != NULL);
    etp_diff_gate_overall(NULL, NULL, 0, &r);
    CHECK_EQ_I(r.outcome, ETP_DIFF_INCONCLUSIVE);
}

/* ---- etp_diff_compute on corpus dumps ---------------------------------------------------- */

typedef ops_fixture fixture;

static bool open_fx(fixture *fx, const char *etdp, const char *pte) {
    return ops_fixture_open(fx, data_dir, etdp, pte, NULL);
}

static void close_fx(fixture *fx) { ops_fixture_close(fx); }

/* The Ethos-U pair (MANIFEST.md): BASE one partition, NEW 11; both or neither opened. */
static bool open_ethosu_pair(fixture *base, fixture *new_) {
    if (!open_fx(base, "ethosu-partial-delegation/mobilenet_v2_ethosu_single_1x.etdp",
                 "ethosu-partial-delegation/pte/mobilenet_v2_ethosu.pte"))
        return false;
    if (!open_fx(new_, "ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp",
                 "ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte")) {
        close_fx(base);
        return false;
    }
    return true;
}

/* A dump against itself: every row matched by instruction, every sample equal, so p = 1 and
 * the verdict is "no change" (or "too few runs" below 3 runs). */
static void self_diff(const char *etdp, const char *pte, bool few) {
    fixture a, b;
    if (!open_fx(&a, etdp, pte)) return;
    if (!open_fx(&b, etdp, pte)) {
        close_fx(&a);
        return;
    }
    etp_diff_opts o;
    etp_diff_opts_init(&o);
    o.fail_pct = 0;
    etp_diff_result *d = NULL;
    etp_error err = {0};
    CHECK_EQ_I(etp_diff_compute(a.r, b.r, &o, &d, &err), ETP_OK);
    if (d) {
        const etp_diff_summary *s = etp_diff_get_summary(d);
        size_t n;
        const etp_diff_op *ops = etp_diff_ops(d, ETP_DS_MATCHED, &n);
        /* every row but Method::execute, per method */
        size_t expect = etp_ops_row_count(a.r);
        for (size_t i = 0; i < etp_ops_method_count(a.r); i++)
            expect -= etp_ops_method_get(a.r, i)->exec_row >= 0;
        CHECK_EQ_U(n, expect);
        CHECK_EQ_U(s->added, 0);
        CHECK_EQ_U(s->removed, 0);
        CHECK_EQ_U(etp_diff_placement_count(d), 0);
        CHECK(!s->by_name);
        CHECK_EQ_U(s->methods_regressed, 0);
        for (size_t i = 0; i < n; i++) {
            CHECK(ops[i].cmp.p50_delta == 0 || isnan(ops[i].cmp.p50_delta));
            CHECK_EQ_I(ops[i].cmp.verdict, few ? ETP_DV_TOO_FEW_RUNS : ETP_DV_NO_CHANGE);
            if (!few) CHECK_NEAR(ops[i].cmp.p, 1, 0);
        }
        for (size_t i = 0; i < etp_diff_method_count(d); i++) {
            const etp_diff_method *m = etp_diff_method_get(d, i);
            CHECK_EQ_I(m->latency.verdict, few ? ETP_DV_TOO_FEW_RUNS : ETP_DV_NO_CHANGE);
            CHECK(!m->regressed);
            /* a change of 0 never exceeds the threshold (0 here): a pass, tested or not */
            CHECK_EQ_I(m->latency.gate.outcome, ETP_DIFF_PASS);
            CHECK_EQ_I(m->latency.gate.testable, !few);
        }
        CHECK_EQ_I(s->gate.outcome, ETP_DIFF_PASS);
        CHECK_EQ_U(s->gate.untested_passes, few ? etp_diff_method_count(d) : 0);
        CHECK_EQ_U(s->methods_inconclusive, 0);
    }
    etp_diff_free(d);
    close_fx(&a);
    close_fx(&b);
}

/* MobileNetV2 on Ethos-U: one partition (BASE) against 11 partitions whose residual adds fell
 * back to the CPU (NEW). MANIFEST.md: the _N program has 42 KernelCalls, 10 of them aten::add.out,
 * and 11 DelegateCalls; the single program has 2 KernelCalls (quantize, dequantize) and 1. */
static void ethosu_placement(void) {
    fixture a, b;
    if (!open_ethosu_pair(&a, &b)) return;
    etp_diff_opts o;
    etp_diff_opts_init(&o);
    o.programs_differ = true;
    etp_diff_result *d = NULL;
    etp_error err = {0};
    CHECK_EQ_I(etp_diff_compute(a.r, b.r, &o, &d, &err), ETP_OK);
    if (d) {
        CHECK_EQ_U(etp_diff_placement_count(d), 2);
        const etp_diff_placement *p = etp_diff_placement_get(d, 0);
        CHECK(p && p->move == ETP_MOVE_TO_CPU);
        if (p && p->move == ETP_MOVE_TO_CPU) {
            CHECK_EQ_S(p->op, "aten::add.out");
            CHECK_EQ_S(p->from, "EthosUBackend");
            CHECK_EQ_S(p->to, "cpu");
            CHECK_EQ_U(p->base_count, 0);
            CHECK_EQ_U(p->new_count, 10);
            CHECK(!p->observed);
        }
        p = etp_diff_placement_get(d, 1);
        CHECK(p && p->move == ETP_MOVE_PARTITIONS);
        if (p) {
            CHECK_EQ_U(p->base_count, 1);
            CHECK_EQ_U(p->new_count, 11);
        }
        const etp_diff_summary *s = etp_diff_get_summary(d);
        CHECK(s->by_name);
        /* matched: quantize kernel + wrapper, dequantize kernel + wrapper, the first
         * DELEGATE_CALL and its three EthosUBackend events = 8; added: the rest of NEW's rows */
        CHECK_EQ_U(s->matched, 8);
        CHECK_EQ_U(s->removed, 0);
        CHECK_EQ_U(s->added, etp_ops_row_count(b.r) - 1 - 8);
        CHECK_EQ_U(s->too_few, 8); /* one run each */
        const etp_diff_method *m = etp_diff_method_get(d, 0);
        CHECK_EQ_I(m->latency.verdict, ETP_DV_TOO_FEW_RUNS);
        CHECK_EQ_U(m->partitions_base, 1);
        CHECK_EQ_U(m->partitions_new, 11);
    }
    etp_diff_free(d);

    /* The gate at 5 %: the method's p50 grew (11180.929 -> 15803.926 us, issue 10.7's +41 %)
     * with one run a side: inconclusive, not a pass, and not a regression either. */
    o.fail_pct = 5;
    CHECK_EQ_I(etp_diff_compute(a.r, b.r, &o, &d, &err), ETP_OK);
    if (d) {
        const etp_diff_method *m = etp_diff_method_get(d, 0);
        CHECK(m->latency.p50_pct > 41 && m->latency.p50_pct < 42);
        CHECK_EQ_I(m->latency.gate.outcome, ETP_DIFF_INCONCLUSIVE);
        CHECK_EQ_I(m->latency.gate.reason, ETP_DR_TOO_FEW_RUNS);
        CHECK(!m->regressed);
        const etp_diff_summary *s = etp_diff_get_summary(d);
        CHECK_EQ_I(s->gate.outcome, ETP_DIFF_INCONCLUSIVE);
        CHECK_EQ_I(s->gate.first, 0);
        CHECK_EQ_U(s->methods_inconclusive, 1);
        CHECK_EQ_U(s->methods_regressed, 0);
        CHECK(starts(s->gate.reason, "forward: p50 +41."));
    }
    etp_diff_free(d);

    /* The other way round: the adds went back into the delegate. */
    CHECK_EQ_I(etp_diff_compute(b.r, a.r, &o, &d, &err), ETP_OK);
    if (d) {
        bool found = false;
        for (size_t i = 0; i < etp_diff_placement_count(d); i++) {
            const etp_diff_placement *p = etp_diff_placement_get(d, i);
            if (p->move == ETP_MOVE_TO_DELEGATE && p->op && strcmp(p->op, "aten::add.out") == 0) {
                found = true;
                CHECK_EQ_S(p->to, "EthosUBackend");
                CHECK_EQ_U(p->base_count, 10);
                CHECK_EQ_U(p->new_count, 0);
            }
            CHECK(p->move != ETP_MOVE_TO_CPU);
        }
        CHECK(found);
        CHECK_EQ_U(etp_diff_get_summary(d)->removed, etp_ops_row_count(b.r) - 1 - 8);
    }
    etp_diff_free(d);
    close_fx(&a);
    close_fx(&b);
}

/* etp_diff_list: what etprof diff lists. The Ethos-U pair (MANIFEST.md): NEW's program has 42
 * KernelCalls, each an OPERATOR_CALL wrapper around its kernel, BASE's 2 (both matched, see
 * ethosu_placement); one run each. add_pte_10x against add_pte_1x: 10 runs against 1. */
static void listing(void) {
    fixture a, b, c;
    if (!open_ethosu_pair(&a, &b)) return;
    etp_diff_opts o;
    etp_diff_opts_init(&o);
    o.programs_differ = true;
    etp_diff_result *d = NULL;
    etp_error err = {0};
    etp_diff_listing l;
    CHECK_EQ_I(etp_diff_compute(a.r, b.r, &o, &d, &err), ETP_OK);
    if (d) {
        size_t added = etp_ops_row_count(b.r) - 1 - 8;
        etp_diff_list(d, false, 0, &l);
        CHECK_EQ_U(l.wrappers_hidden, 42);
        CHECK_EQ_U(l.listed[ETP_DS_MATCHED], 6);
        CHECK_EQ_U(l.listed[ETP_DS_ADDED], added - 40);
        CHECK_EQ_U(l.listed[ETP_DS_REMOVED], 0);
        CHECK_EQ_U(l.shown[ETP_DS_MATCHED], 6);
        CHECK(!l.runs_differ);
        CHECK_EQ_U(l.runs_needed, 4); /* 2 / C(6, 3) = 0.1, 2 / C(8, 4) = 0.029 (alpha 0.05) */
        CHECK(l.units & (1u << ETP_UNIT_NS));
        etp_diff_list(d, true, 4, &l);
        CHECK_EQ_U(l.wrappers_hidden, 0);
        CHECK_EQ_U(l.listed[ETP_DS_MATCHED], 8);
        CHECK_EQ_U(l.shown[ETP_DS_MATCHED], 4);
        CHECK_EQ_U(l.listed[ETP_DS_ADDED], added);
        CHECK_EQ_U(l.shown[ETP_DS_ADDED], added); /* top caps the matched rows only */
        size_t n;
        const etp_diff_op *ops = etp_diff_ops(d, ETP_DS_MATCHED, &n);
        size_t wrappers = 0;
        for (size_t i = 0; i < n; i++) {
            CHECK(etp_diff_op_listed(&ops[i], true));
            bool w = ops[i].base->kind == ETP_KIND_OPERATOR_CALL;
            wrappers += w;
            CHECK_EQ_I(etp_diff_op_listed(&ops[i], false), !w);
        }
        CHECK_EQ_U(wrappers, 2);
        CHECK(!etp_diff_op_listed(NULL, true));
    }
    etp_diff_free(d);
    /* a threshold no change reaches hides every matched row: only the added wrappers count */
    o.threshold_pct = 1e12;
    CHECK_EQ_I(etp_diff_compute(a.r, b.r, &o, &d, &err), ETP_OK);
    if (d) {
        etp_diff_list(d, false, 0, &l);
        CHECK_EQ_U(l.listed[ETP_DS_MATCHED], 0);
        CHECK_EQ_U(l.wrappers_hidden, 40);
    }
    etp_diff_free(d);
    close_fx(&a);
    /* BASE without its program: its DELEGATE_CALL's backend is unknown ("delegate"); NEW's
     * program names it EthosUBackend, which the view shows */
    if (open_fx(&a, "ethosu-partial-delegation/mobilenet_v2_ethosu_single_1x.etdp", NULL)) {
        o.threshold_pct = 0;
        CHECK_EQ_I(etp_diff_compute(a.r, b.r, &o, &d, &err), ETP_OK);
        size_t n, found = 0;
        const etp_diff_op *ops = d ? etp_diff_ops(d, ETP_DS_MATCHED, &n) : NULL;
        for (size_t i = 0; ops && i < n; i++) {
            if (ops[i].base->kind != ETP_KIND_DELEGATE_CALL) continue;
            found++;
            CHECK_EQ_S(ops[i].base->placement, "delegate");
            CHECK_EQ_S(etp_diff_op_placement(&ops[i]), "EthosUBackend");
        }
        CHECK_EQ_U(found, 1);
        etp_diff_free(d);
        close_fx(&a);
    }
    close_fx(&b);
    if (open_fx(&a, "real/add_pte_10x.etdp", "upstream/add.pte")) {
        if (open_fx(&c, "real/add_pte_1x.etdp", "upstream/add.pte")) {
            etp_diff_opts_init(&o);
            CHECK_EQ_I(etp_diff_compute(a.r, c.r, &o, &d, &err), ETP_OK);
            etp_diff_list(d, false, 0, &l);
            CHECK(l.runs_differ);
            etp_diff_free(d);
            close_fx(&c);
        }
        close_fx(&a);
    }
    etp_diff_list(NULL, false, 0, &l);
    CHECK_EQ_U(l.runs_needed, 0);
}

int main(int argc, char **argv) {
    if (argc > 1) data_dir = argv[1];
    mwu_by_hand();
    mwu_vs_pairs();
    mwu_large();
    bh_by_hand();
    names();
    min_p_by_hand();
    gate_rows();
    gate_overall();
    self_diff("real/add_pte_10x.etdp", "upstream/add.pte", false);
    self_diff("real/add_pte_1x.etdp", "upstream/add.pte", true);
    self_diff("fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp",
              "upstream/stories260k_hybrid_llama_qnn.pte", false);
    ethosu_placement();
    listing();
    return check_done();
}
