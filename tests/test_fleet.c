/* test_fleet.c - the pieces of the run history and the fleet export that stand alone:
 *  - SHA-256 against the test vectors of FIPS 180-4 (NIST's examples: "abc", the 448-bit
 *    message, one million 'a') and the empty message, whole and fed in odd pieces;
 *  - etp_diff_compare_samples, the gate of `history gate`, against a hand calculation of the
 *    Mann-Whitney U test (two-sided, normal approximation with continuity correction, as
 *    scipy.stats.mannwhitneyu(method="asymptotic")), and its verdicts;
 *  - etp_label_parse. */
#include "check.h"
#include "etprof.h"
#include "etprof_fleet.h"
#include "sha256.h"

#include <math.h>
#include <stdlib.h>

static void hex_of(const char *msg, size_t n, char out[65]) { etp_sha256_hex(msg, n, out); }

static void pieces(const char *msg, size_t n, size_t step, char out[65]) {
    etp_sha256_ctx c;
    uint8_t d[32];
    etp_sha256_init(&c);
    for (size_t i = 0; i < n; i += step) etp_sha256_update(&c, msg + i, n - i < step ? n - i : step);
    etp_sha256_final(&c, d);
    for (int i = 0; i < 32; i++) sprintf(out + 2 * i, "%02x", d[i]);
}

int main(void) {
    char h[65];
    /* FIPS 180-4 / NIST CSRC examples */
    hex_of("abc", 3, h);
    CHECK_EQ_S(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    hex_of("", 0, h);
    CHECK_EQ_S(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* 56 bytes */
    hex_of(m448, strlen(m448), h);
    CHECK_EQ_S(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    for (size_t step = 1; step < 60; step += 7) {
        pieces(m448, strlen(m448), step, h);
        CHECK_EQ_S(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    }
    char *mil = malloc(1000000);
    CHECK(mil != NULL);
    if (mil) {
        memset(mil, 'a', 1000000);
        hex_of(mil, 1000000, h);
        CHECK_EQ_S(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
        pieces(mil, 1000000, 4093, h);
        CHECK_EQ_S(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
        free(mil);
    }
    /* The 896-bit message of the standard's SHA-384/512 examples (112 bytes: padding spills
     * into a second block), digest from NIST's SHA-256 example values */
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                       "klmnopqrlmnopqrsmnopqrstnopqrstu";
    hex_of(m896, strlen(m896), h);
    CHECK_EQ_S(h, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

    /* Mann-Whitney U by hand: a = 1..5, b = 6..10 (complete separation, no ties): U(b) = 25,
     * mean 12.5, sd = sqrt(5 * 5 * 11 / 12) = 4.78713554, z = (25 - 12.5 - 0.5) / sd =
     * 2.50671825, p = erfc(z / sqrt 2) = 0.0121858 */
    double a[5] = {3, 1, 5, 2, 4}, b[5] = {10, 6, 9, 7, 8};
    etp_diff_cmp c;
    CHECK(etp_diff_compare_samples(a, 5, b, 5, NULL, &c) == ETP_OK);
    CHECK_NEAR(c.z, 2.50671825, 1e-6);
    CHECK_NEAR(c.p, 0.0121858, 1e-6);
    CHECK_NEAR(c.p50_base, 3, 0);
    CHECK_NEAR(c.p50_new, 8, 0);
    CHECK_NEAR(c.p50_pct, 100.0 * 5 / 3, 1e-9);
    CHECK(c.verdict == ETP_DV_SLOWER);
    CHECK(c.gate.outcome == ETP_DIFF_REGRESSION);
    /* the same sample twice: every value tied across the sides -> no change, pass */
    CHECK(etp_diff_compare_samples(a, 5, a, 5, NULL, &c) == ETP_OK);
    CHECK(c.verdict == ETP_DV_NO_CHANGE);
    CHECK(c.gate.outcome == ETP_DIFF_PASS);
    /* 2 runs a side cannot reach p < 0.05 (min_runs 3): too few runs, inconclusive */
    CHECK(etp_diff_compare_samples(a, 2, b, 2, NULL, &c) == ETP_OK);
    CHECK(c.verdict == ETP_DV_TOO_FEW_RUNS);
    CHECK(c.gate.outcome == ETP_DIFF_INCONCLUSIVE);
    /* faster, beyond a 10 % threshold */
    etp_diff_opts o;
    etp_diff_opts_init(&o);
    o.fail_pct = 10;
    CHECK(etp_diff_compare_samples(b, 5, a, 5, &o, &c) == ETP_OK);
    CHECK(c.verdict == ETP_DV_FASTER);
    CHECK(c.gate.outcome == ETP_DIFF_IMPROVEMENT);

    /* labels */
    char buf[512];
    etp_label l;
    etp_error err = {0};
    CHECK(etp_label_parse("device=Pixel 8=Pro", buf, sizeof buf, &l, &err) == ETP_OK);
    CHECK_EQ_S(l.key, "device");
    CHECK_EQ_S(l.value, "Pixel 8=Pro");
    CHECK(etp_label_parse("soc=", buf, sizeof buf, &l, &err) == ETP_OK);
    CHECK_EQ_S(l.value, "");
    CHECK(etp_label_parse("=x", buf, sizeof buf, &l, &err) == ETP_E_USAGE);
    CHECK(etp_label_parse("no value", buf, sizeof buf, &l, &err) == ETP_E_USAGE);
    CHECK_EQ_S(err.path, "--label");
    return check_done();
}
