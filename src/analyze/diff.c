/* diff.c - two analyses (etp_ops_result) compared: operators matched across the dumps, deltas of
 * p50 and total, a Mann-Whitney U test per row with Benjamini-Hochberg q-values over the
 * operators, operators added and removed, placement changes (docs/diff.md). */
#include "etprof.h"
#include "etprof_fleet.h"
#include "etprof_figures.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------------------------- */

/* Order-preserving unsigned key of a double that is not NaN (-0.0 is taken as +0.0). */
static uint64_t dkey(double v) {
    uint64_t u;
    v += 0.0;
    memcpy(&u, &v, sizeof u);
    return (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
}

/* Sorts n doubles (no NaN) ascending: insertion sort when short, else an LSD radix sort on the
 * keys, 8 passes of 8 bits, skipping the passes where every key has the same byte. tmp holds n
 * keys of scratch; keys (n) are written and left sorted, with v sorted in step. */
static void sort_doubles(double *v, uint64_t *keys, uint64_t *tmp, size_t n) {
    for (size_t i = 0; i < n; i++) keys[i] = dkey(v[i]);
    if (n < 48) {
        for (size_t i = 1; i < n; i++) {
            uint64_t k = keys[i];
            size_t j = i;
            for (; j > 0 && keys[j - 1] > k; j--) keys[j] = keys[j - 1];
            keys[j] = k;
        }
    } else {
        uint64_t *src = keys, *dst = tmp;
        for (int pass = 0; pass < 8; pass++) {
            size_t cnt[256] = {0};
            int sh = pass * 8;
            for (size_t i = 0; i < n; i++) cnt[(src[i] >> sh) & 0xff]++;
            if (cnt[(src[0] >> sh) & 0xff] == n) continue;
            size_t sum = 0;
            for (int d = 0; d < 256; d++) {
                size_t c = cnt[d];
                cnt[d] = sum;
                sum += c;
            }
            for (size_t i = 0; i < n; i++) dst[cnt[(src[i] >> sh) & 0xff]++] = src[i];
            uint64_t *t = src;
            src = dst;
            dst = t;
        }
        if (src != keys) memcpy(keys, src, n * sizeof *keys);
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t u = keys[i];
        u = (u >> 63) ? u & ~(UINT64_C(1) << 63) : ~u;
        memcpy(&v[i], &u, sizeof u);
    }
}

int etp_mann_whitney_u(const double *a, size_t na, const double *b, size_t nb, etp_mwu *out) {
    out->u = out->mean = out->sd = out->z = out->p = NAN;
    if (!a || !b || na == 0 || nb == 0) return ETP_E_USAGE;
    size_t n = na + nb;
    if (n < na || n > SIZE_MAX / (2 * sizeof(double) + sizeof(uint64_t))) return ETP_E_INTERNAL;
    for (size_t i = 0; i < na; i++)
        if (isnan(a[i])) return ETP_E_USAGE;
    for (size_t i = 0; i < nb; i++)
        if (isnan(b[i])) return ETP_E_USAGE;
    /* both samples sorted apart, then walked as one merged order: ranks 1..n; a run of t equal
     * values at merged positions i..j-1 (0-based) shares the average rank (i + 1 + j) / 2 and
     * adds t^3 - t to the tie term of the variance (the same sums, in the same order, as a sort
     * of the pooled sample) */
    double *sa = malloc(n * sizeof *sa);
    uint64_t *keys = malloc(n * sizeof *keys), *tmp = malloc(n * sizeof *tmp);
    if (!sa || !keys || !tmp) {
        free(sa);
        free(keys);
        free(tmp);
        return ETP_E_INTERNAL;
    }
    double *sb = sa + na;
    memcpy(sa, a, na * sizeof *sa);
    memcpy(sb, b, nb * sizeof *sb);
    sort_doubles(sa, keys, tmp, na);
    sort_doubles(sb, keys, tmp, nb);
    free(keys);
    free(tmp);
    double rank_sum_b = 0, tie_term = 0;
    size_t ia = 0, ib = 0;
    while (ia < na || ib < nb) {
        double v = ia < na && (ib >= nb || sa[ia] <= sb[ib]) ? sa[ia] : sb[ib];
        size_t i = ia + ib, in_b = 0;
        while (ia < na && sa[ia] == v) ia++;
        while (ib < nb && sb[ib] == v) {
            ib++;
            in_b++;
        }
        size_t j = ia + ib;
        double rank = ((double)i + 1.0 + (double)j) / 2.0;
        rank_sum_b += rank * (double)in_b;
        double tc = (double)(j - i);
        tie_term += tc * tc * tc - tc;
    }
    free(sa);
    double dn = (double)n, da = (double)na, db = (double)nb;
    out->u = rank_sum_b - db * (db + 1.0) / 2.0;
    out->mean = da * db / 2.0;
    double var = da * db / 12.0 * ((dn + 1.0) - tie_term / (dn * (dn - 1.0)));
    /* every value tied: the tie term cancels (n + 1) exactly, up to rounding */
    out->sd = var > 1e-12 * da * db ? sqrt(var) : 0;
    if (out->sd == 0) {
        out->z = 0;
        out->p = 1;
        return ETP_OK;
    }
    double d = out->u - out->mean;
    double ad = fabs(d) - 0.5;
    if (ad < 0) ad = 0;
    out->z = (d < 0 ? -ad : ad) / out->sd;
    out->p = erfc(fabs(out->z) / sqrt(2.0));
    if (out->p > 1) out->p = 1;
    return ETP_OK;
}

typedef struct pidx {
    double p;
    size_t i;
} pidx;

static int cmp_pidx(const void *x, const void *y) {
    const pidx *a = x, *b = y;
    if (a->p != b->p) return a->p < b->p ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

int etp_bh_adjust(const double *p, size_t n, double *q) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) m += !isnan(p[i]);
    pidx *s = malloc((m ? m : 1) * sizeof *s);
    if (!s) return ETP_E_INTERNAL;
    for (size_t i = 0, k = 0; i < n; i++)
        if (!isnan(p[i])) s[k++] = (pidx){p[i], i};
    qsort(s, m, sizeof *s, cmp_pidx);
    /* step-up: q of rank k (1-based) = min over ranks j >= k of p(j) * m / j */
    double prev = 1.0;
    for (size_t k = m; k-- > 0;) {
        double v = s[k].p * (double)m / (double)(k + 1);
        if (v < prev) prev = v;
        s[k].p = prev;
    }
    for (size_t i = 0; i < n; i++)
        if (isnan(p[i])) q[i] = NAN;
    for (size_t k = 0; k < m; k++) q[s[k].i] = s[k].p;
    free(s);
    return ETP_OK;
}

double etp_mwu_min_p(uint32_t na, uint32_t nb) {
    if (na == 0 || nb == 0) return 1;
    double da = (double)na, db = (double)nb, n = da + db;
    /* C(n, k), k the smaller side; stop once it is so large that 2 / C is 0 for any purpose */
    uint32_t k = na < nb ? na : nb;
    double c = 1;
    for (uint32_t i = 1; i <= k && c < 1e300; i++) c = c * (n - (double)k + (double)i) / (double)i;
    double exact = 2.0 / c;
    if (exact > 1) exact = 1;
    /* the approximation at complete separation, no ties: |U - mean| = na nb / 2 */
    double sd = sqrt(da * db * (n + 1.0) / 12.0);
    double z = (da * db / 2.0 - 0.5) / sd;
    if (z < 0) z = 0;
    double approx = erfc(z / sqrt(2.0));
    if (approx > 1) approx = 1;
    return exact > approx ? exact : approx;
}

uint32_t etp_mwu_runs_needed(double alpha) {
    if (!(alpha > 0 && alpha < 1)) return 0;
    for (uint32_t n = 1; n <= 1000; n++)
        if (etp_mwu_min_p(n, n) < alpha) return n;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * The gate
 * ------------------------------------------------------------------------------------------- */

const char *etp_diff_outcome_name(etp_diff_outcome o) {
    switch (o) {
    case ETP_DIFF_PASS: return "pass";
    case ETP_DIFF_REGRESSION: return "regression";
    case ETP_DIFF_IMPROVEMENT: return "improvement";
    case ETP_DIFF_INCONCLUSIVE: return "inconclusive";
    case ETP_DIFF_NOT_COMPARED: return "not compared";
    }
    return "?";
}

void etp_diff_gate_row(const etp_diff_cmp *c, bool both, bool q, const etp_diff_opts *o,
                       etp_diff_gate *g) {
    memset(g, 0, sizeof *g);
    g->threshold_pct = isnan(o->fail_pct) ? 0 : o->fail_pct;
    g->p50_pct = c->p50_pct;
    g->p = q ? c->q : c->p;
    g->q_value = q;
    g->alpha = o->alpha;
    g->runs_base = c->runs_base;
    g->runs_new = c->runs_new;
    g->min_p = etp_mwu_min_p(c->runs_base, c->runs_new);
    uint32_t need = etp_mwu_runs_needed(o->alpha);
    g->runs_needed = need > o->min_runs ? need : o->min_runs;
    g->testable = c->runs_base >= o->min_runs && c->runs_new >= o->min_runs &&
                  g->min_p < o->alpha && !isnan(g->p);
    double thr = g->threshold_pct, pc = c->p50_pct;
    if (!both) {
        g->outcome = ETP_DIFF_NOT_COMPARED;
        g->reason = ETP_DR_ONE_SIDE;
    } else if (c->runs_base == 0 && c->runs_new == 0) {
        g->outcome = ETP_DIFF_NOT_COMPARED;
        g->reason = ETP_DR_NO_SAMPLES;
    } else if (c->runs_base == 0 || c->runs_new == 0) {
        g->outcome = ETP_DIFF_INCONCLUSIVE;
        g->reason = c->runs_base == 0 ? ETP_DR_NO_SAMPLES_BASE : ETP_DR_NO_SAMPLES_NEW;
    } else if (isnan(pc)) {
        g->outcome = ETP_DIFF_INCONCLUSIVE;
        g->reason = ETP_DR_UNDEFINED;
    } else if (pc > thr) {
        if (!g->testable) {
            g->outcome = ETP_DIFF_INCONCLUSIVE;
            g->reason = ETP_DR_TOO_FEW_RUNS;
        } else if (c->verdict == ETP_DV_SLOWER) {
            g->outcome = ETP_DIFF_REGRESSION;
            g->reason = ETP_DR_SIGNIFICANT;
        } else {
            g->outcome = ETP_DIFF_PASS;
            g->reason = ETP_DR_NOISE;
        }
    } else if (pc < -thr && g->testable && c->verdict == ETP_DV_FASTER) {
        g->outcome = ETP_DIFF_IMPROVEMENT;
        g->reason = ETP_DR_SIGNIFICANT;
    } else {
        g->outcome = ETP_DIFF_PASS;
        g->reason = ETP_DR_WITHIN;
    }
}

static void fmt_sig(char *b, size_t n, double v) {
    if (isnan(v)) snprintf(b, n, "-");
    else if (v < 1e-4) snprintf(b, n, "%.1e", v);
    else snprintf(b, n, "%.4f", v);
}

int etp_diff_gate_text(const etp_diff_gate *g, char *buf, size_t n) {
    char p[32], mp[32];
    fmt_sig(p, sizeof p, g->p);
    snprintf(mp, sizeof mp, "%.3g", g->min_p);
    const char *pn = g->q_value ? "q" : "p";
    double thr = g->threshold_pct;
    switch (g->reason) {
    case ETP_DR_SIGNIFICANT:
        if (g->outcome == ETP_DIFF_REGRESSION)
            return snprintf(buf, n,
                            "p50 %+.2f%% > %g%%, significantly slower (%s=%s < %g, %u vs %u runs)",
                            g->p50_pct, thr, pn, p, g->alpha, g->runs_base, g->runs_new);
        return snprintf(buf, n,
                        "p50 %+.2f%% < -%g%%, significantly faster (%s=%s < %g, %u vs %u runs)",
                        g->p50_pct, thr, pn, p, g->alpha, g->runs_base, g->runs_new);
    case ETP_DR_WITHIN:
        if (g->testable)
            return snprintf(buf, n, "p50 %+.2f%% does not exceed %g%% (%u vs %u runs)", g->p50_pct,
                            thr, g->runs_base, g->runs_new);
        return snprintf(buf, n,
                        "p50 %+.2f%% does not exceed %g%%; %u vs %u runs are too few for the "
                        "test, so this is judged on the change alone",
                        g->p50_pct, thr, g->runs_base, g->runs_new);
    case ETP_DR_NOISE:
        return snprintf(buf, n,
                        "p50 %+.2f%% > %g%%, but not significantly slower (%s=%s, %u vs %u runs): "
                        "the test cannot tell it from run-to-run noise",
                        g->p50_pct, thr, pn, p, g->runs_base, g->runs_new);
    case ETP_DR_TOO_FEW_RUNS:
        if (g->min_p < g->alpha && !isnan(g->p))
            return snprintf(buf, n,
                            "p50 %+.2f%% > %g%%, but %u run(s) in BASE and %u in NEW: fewer than "
                            "the %u per side a verdict needs (min_runs)",
                            g->p50_pct, thr, g->runs_base, g->runs_new, g->runs_needed);
        return snprintf(buf, n,
                        "p50 %+.2f%% > %g%%, but %u run(s) in BASE and %u in NEW: the "
                        "Mann-Whitney U test cannot reach p < %g with so few (smallest possible "
                        "p: %s); it needs at least %u runs per side",
                        g->p50_pct, thr, g->runs_base, g->runs_new, g->alpha, mp, g->runs_needed);
    case ETP_DR_UNDEFINED:
        return snprintf(buf, n,
                        "the p50 change is undefined (BASE p50 is 0, or BASE and NEW measure in "
                        "different units)");
    case ETP_DR_NO_SAMPLES_BASE:
        return snprintf(buf, n, "no samples in BASE (%u in NEW)", g->runs_new);
    case ETP_DR_NO_SAMPLES_NEW:
        return snprintf(buf, n, "no samples in NEW (%u in BASE)", g->runs_base);
    case ETP_DR_NO_SAMPLES: return snprintf(buf, n, "no samples on either side");
    case ETP_DR_ONE_SIDE: return snprintf(buf, n, "on one side only");
    }
    return snprintf(buf, n, "?");
}

void etp_diff_gate_overall(const etp_diff_gate *rows, const char *const *names, size_t n,
                           etp_diff_overall *out) {
    memset(out, 0, sizeof *out);
    out->first = -1;
    int32_t first[5] = {-1, -1, -1, -1, -1};
    double thr = 0;
    for (size_t i = 0; i < n; i++) {
        const etp_diff_gate *g = &rows[i];
        thr = g->threshold_pct;
        switch (g->outcome) {
        case ETP_DIFF_PASS:
            out->passes++;
            out->untested_passes += !g->testable;
            break;
        case ETP_DIFF_REGRESSION: out->regressions++; break;
        case ETP_DIFF_IMPROVEMENT: out->improvements++; break;
        case ETP_DIFF_INCONCLUSIVE: out->inconclusive++; break;
        case ETP_DIFF_NOT_COMPARED: out->not_compared++; break;
        }
        if ((int)g->outcome >= 0 && (int)g->outcome < 5 && first[g->outcome] < 0)
            first[g->outcome] = (int32_t)i;
    }
    uint32_t count = 0;
    if (out->regressions) {
        out->outcome = ETP_DIFF_REGRESSION;
        count = out->regressions;
    } else if (out->inconclusive) {
        out->outcome = ETP_DIFF_INCONCLUSIVE;
        count = out->inconclusive;
    } else if (out->passes + out->improvements == 0) {
        out->outcome = ETP_DIFF_INCONCLUSIVE;
        snprintf(out->reason, sizeof out->reason,
                 "no method has latency samples (Method::execute) on both sides: nothing to judge");
        return;
    } else if (out->improvements) {
        out->outcome = ETP_DIFF_IMPROVEMENT;
        count = out->improvements;
    } else {
        out->outcome = ETP_DIFF_PASS;
        size_t k = (size_t)snprintf(out->reason, sizeof out->reason,
                                    "no method is significantly slower by more than %g%%", thr);
        if (out->untested_passes && k < sizeof out->reason)
            snprintf(out->reason + k, sizeof out->reason - k,
                     "; %u method(s) had too few runs for the test and pass on their p50 change "
                     "alone",
                     out->untested_passes);
        return;
    }
    out->first = first[out->outcome];
    const char *name = names && names[out->first] ? names[out->first] : ETP_METHOD_UNKNOWN_LABEL;
    size_t k = (size_t)snprintf(out->reason, sizeof out->reason, "%s: ", name);
    if (k < sizeof out->reason)
        k += (size_t)etp_diff_gate_text(&rows[out->first], out->reason + k, sizeof out->reason - k);
    if (count > 1 && k < sizeof out->reason)
        snprintf(out->reason + k, sizeof out->reason - k, "; and %u more method(s)", count - 1);
}

/* ---------------------------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------------------------- */

const char *etp_diff_verdict_name(etp_diff_verdict v, etp_unit u) {
    bool dur = u == ETP_UNIT_NS || u == ETP_UNIT_US || u == ETP_UNIT_TICKS || u == ETP_UNIT_CYCLES;
    switch (v) {
    case ETP_DV_NO_CHANGE: return "no change";
    case ETP_DV_NOISE: return "noise";
    case ETP_DV_SLOWER: return dur ? "slower" : "higher";
    case ETP_DV_FASTER: return dur ? "faster" : "lower";
    case ETP_DV_TOO_FEW_RUNS: return "too few runs";
    case ETP_DV_ADDED: return "added";
    case ETP_DV_REMOVED: return "removed";
    }
    return "?";
}

const char *etp_diff_move_name(etp_diff_move m) {
    switch (m) {
    case ETP_MOVE_TO_CPU: return "to_cpu";
    case ETP_MOVE_PARTITIONS: return "partitions";
    case ETP_MOVE_TO_DELEGATE: return "to_delegate";
    }
    return "?";
}

void etp_diff_opts_init(etp_diff_opts *o) {
    memset(o, 0, sizeof *o);
    o->alpha = 0.05;
    o->min_runs = 3;
    o->no_change_pct = 1.0;
    o->threshold_pct = 0;
    o->fail_pct = NAN;
    o->programs_differ = false;
}

/* ---------------------------------------------------------------------------------------------
 * The result
 * ------------------------------------------------------------------------------------------- */

typedef struct op_acc {
    etp_diff_op pub;
    size_t bi, ni; /* row indices, SIZE_MAX when absent */
} op_acc;

struct etp_diff_result {
    etp_diff_method *methods;
    size_t nmethods;
    etp_diff_op *ops[3];
    size_t nops[3];
    etp_diff_placement *pl;
    size_t npl, plcap;
    etp_diff_summary sum;
    double alpha;      /* the options' (etp_diff_list) */
    uint32_t min_runs;
};

typedef struct ctx {
    const etp_ops_result *b, *n;
    const etp_diff_opts *o;
    etp_diff_result *d;
    op_acc *acc;
    size_t nacc, acccap;
} ctx;

static bool same_name(const char *a, const char *b) {
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static double pct(double base, double nw) {
    if (isnan(base) || isnan(nw)) return NAN;
    if (base == 0) return nw == 0 ? 0 : NAN;
    return 100.0 * (nw - base) / fabs(base);
}

static double nz(double v) { return isnan(v) ? 0 : v; }

/* Fills the sample part of a comparison (no verdict yet). Either row may be NULL. */
static int compare(const etp_ops_row *b, const etp_ops_row *n, uint32_t bruns, uint32_t nruns,
                   const etp_diff_opts *o, etp_diff_cmp *c) {
    memset(c, 0, sizeof *c);
    c->runs_base = b ? b->runs : 0;
    c->runs_new = n ? n->runs : 0;
    c->p50_base = b ? b->stats.p50 : NAN;
    c->p50_new = n ? n->stats.p50 : NAN;
    c->total_base = b ? b->stats.total : NAN;
    c->total_new = n ? n->stats.total : NAN;
    c->p50_delta = c->p50_new - c->p50_base;
    c->total_delta = c->total_new - c->total_base;
    c->p50_pct = pct(c->p50_base, c->p50_new);
    c->total_pct = pct(c->total_base, c->total_new);
    double pb = b && bruns ? nz(b->stats.total) / (double)bruns : 0;
    double pn = n && nruns ? nz(n->stats.total) / (double)nruns : 0;
    c->impact = pn - pb;
    c->z = c->p = c->q = NAN;
    if (b && n && c->runs_base >= o->min_runs && c->runs_new >= o->min_runs && c->runs_base &&
        c->runs_new) {
        etp_mwu t;
        int rc = etp_mann_whitney_u(b->samples, b->runs, n->samples, n->runs, &t);
        if (rc == ETP_E_INTERNAL) return rc;
        if (rc == ETP_OK) {
            c->z = t.z;
            c->p = c->q = t.p;
        }
    }
    return ETP_OK;
}

static void set_verdict(etp_diff_cmp *c, const etp_diff_opts *o, etp_diff_status s) {
    if (s == ETP_DS_ADDED) {
        c->verdict = ETP_DV_ADDED;
        return;
    }
    if (s == ETP_DS_REMOVED) {
        c->verdict = ETP_DV_REMOVED;
        return;
    }
    c->significant = !isnan(c->q) && c->q < o->alpha && c->z != 0;
    if (c->runs_base < o->min_runs || c->runs_new < o->min_runs || isnan(c->p))
        c->verdict = ETP_DV_TOO_FEW_RUNS;
    else if (c->significant)
        c->verdict = c->z > 0 ? ETP_DV_SLOWER : ETP_DV_FASTER;
    else if (!isnan(c->p50_pct) && fabs(c->p50_pct) < o->no_change_pct)
        c->verdict = ETP_DV_NO_CHANGE;
    else
        c->verdict = ETP_DV_NOISE;
}

static op_acc *push_op(ctx *c) {
    if (c->nacc == c->acccap) {
        size_t cap = c->acccap ? c->acccap * 2 : 64;
        op_acc *p = realloc(c->acc, cap * sizeof *p);
        if (!p) return NULL;
        c->acc = p;
        c->acccap = cap;
    }
    op_acc *a = &c->acc[c->nacc++];
    memset(a, 0, sizeof *a);
    a->bi = a->ni = SIZE_MAX;
    return a;
}

static etp_diff_placement *push_pl(etp_diff_result *d) {
    if (d->npl == d->plcap) {
        size_t cap = d->plcap ? d->plcap * 2 : 8;
        etp_diff_placement *p = realloc(d->pl, cap * sizeof *p);
        if (!p) return NULL;
        d->pl = p;
        d->plcap = cap;
    }
    etp_diff_placement *p = &d->pl[d->npl++];
    memset(p, 0, sizeof *p);
    return p;
}

/* ---------------------------------------------------------------------------------------------
 * Matching
 * ------------------------------------------------------------------------------------------- */

/* The rows of method `m` except its Method::execute row, in hierarchy order. */
static uint32_t *method_rows(const etp_ops_result *r, int32_t m, size_t *n) {
    *n = 0;
    size_t nr = etp_ops_row_count(r);
    uint32_t *v = malloc((nr ? nr : 1) * sizeof *v);
    if (!v) return NULL;
    if (m < 0) return v;
    const etp_ops_method *mm = etp_ops_method_get(r, (size_t)m);
    for (size_t i = 0; i < nr; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        if (row->method == (uint32_t)m && (int64_t)i != (int64_t)mm->exec_row) v[(*n)++] = (uint32_t)i;
    }
    return v;
}

static bool place_compatible(const char *a, const char *b) {
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0 || strcmp(a, "delegate") == 0 || strcmp(b, "delegate") == 0;
}

/* "aten::add.out" -> "add.out" */
static const char *strip_ns(const char *s) {
    if (!s) return s;
    const char *p = s, *q;
    while ((q = strstr(p, "::"))) p = q + 2;
    return p;
}

/* The instruction signature of a row, for deciding whether two programs line up. */
typedef struct sig {
    int32_t chain, instr;
    int kind;
    const char *label; /* NULL: matches anything */
} sig;

static bool sig_of(const etp_ops_row *r, sig *s) {
    if (r->chain < 0 || r->instr < 0) return false;
    s->chain = r->chain;
    s->instr = r->instr;
    s->kind = (int)r->kind;
    switch (r->kind) {
    case ETP_KIND_KERNEL:
    case ETP_KIND_INSTRUCTION: s->label = r->name; return true;
    case ETP_KIND_OPERATOR_CALL: s->label = r->op ? strip_ns(r->op) : NULL; return true;
    case ETP_KIND_DELEGATE_CALL: s->label = r->placement; return true;
    default: return false;
    }
}

static int cmp_sig(const void *x, const void *y) {
    const sig *a = x, *b = y;
    if (a->chain != b->chain) return a->chain < b->chain ? -1 : 1;
    if (a->instr != b->instr) return a->instr < b->instr ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    return strcmp(a->label ? a->label : "", b->label ? b->label : "");
}

/* 1 when the instructions of both sides carry the same operators and backends, 0 when not, <0
 * when out of memory. */
static int instructions_line_up(const etp_ops_result *br, const uint32_t *bv, size_t bn,
                                const etp_ops_result *nr, const uint32_t *nv, size_t nn) {
    sig *sb = malloc((bn ? bn : 1) * sizeof *sb), *sn = malloc((nn ? nn : 1) * sizeof *sn);
    if (!sb || !sn) {
        free(sb);
        free(sn);
        return -1;
    }
    size_t kb = 0, kn = 0;
    for (size_t i = 0; i < bn; i++) kb += sig_of(etp_ops_row_get(br, bv[i]), &sb[kb]);
    for (size_t i = 0; i < nn; i++) kn += sig_of(etp_ops_row_get(nr, nv[i]), &sn[kn]);
    int ok = kb == kn;
    if (ok) {
        qsort(sb, kb, sizeof *sb, cmp_sig);
        qsort(sn, kn, sizeof *sn, cmp_sig);
        for (size_t i = 0; ok && i < kb; i++) {
            const sig *a = &sb[i], *b = &sn[i];
            if (a->chain != b->chain || a->instr != b->instr || a->kind != b->kind) ok = 0;
            else if (a->kind == ETP_KIND_DELEGATE_CALL) ok = place_compatible(a->label, b->label);
            else if (a->label && b->label) ok = strcmp(a->label, b->label) == 0;
        }
    }
    free(sb);
    free(sn);
    return ok;
}

/* Sort keys for matching: by instruction (chain, instr, kind, name) or by name (kind, label,
 * hierarchy order: the k-th occurrence pairs with the k-th). */
typedef struct mkey {
    uint32_t row;
    int32_t chain, instr;
    int kind;
    const char *label;
    int unit; /* one event logged in two units is two rows (etp_ops_row.unit_varies) */
} mkey;

static int cmp_mkey_instr(const void *x, const void *y) {
    const mkey *a = x, *b = y;
    if (a->chain != b->chain) return a->chain < b->chain ? -1 : 1;
    if (a->instr != b->instr) return a->instr < b->instr ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    int c = strcmp(a->label, b->label);
    if (c) return c;
    return (a->unit > b->unit) - (a->unit < b->unit);
}

static int cmp_mkey_name(const void *x, const void *y) {
    const mkey *a = x, *b = y;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    int c = strcmp(a->label, b->label);
    if (c) return c;
    if (a->unit != b->unit) return a->unit < b->unit ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

/* The identity used when the programs differ: what the row is, not where it is. */
static const char *name_label(const etp_ops_row *r) {
    switch (r->kind) {
    case ETP_KIND_OPERATOR_CALL: return r->op ? strip_ns(r->op) : r->name;
    case ETP_KIND_DELEGATE_INTERNAL:
        if (r->htp_node) {
            if (r->qnn == ETP_QNN_NODE && r->op) return r->op; /* OpIds change between builds */
            if (r->qnn == ETP_QNN_NODE_SYS) return "OpId_* (cycles)";
        }
        return r->name ? r->name : "";
    default: return r->name ? r->name : "";
    }
}

static void fill_keys(const etp_ops_result *r, const uint32_t *v, size_t n, bool by_name, mkey *k) {
    for (size_t i = 0; i < n; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, v[i]);
        k[i] = (mkey){v[i], row->chain, row->instr, (int)row->kind,
                      by_name ? name_label(row) : (row->name ? row->name : ""), (int)row->unit};
    }
    qsort(k, n, sizeof *k, by_name ? cmp_mkey_name : cmp_mkey_instr);
}

static bool rows_compatible(const etp_ops_row *a, const etp_ops_row *b) {
    if (a->unit != b->unit || a->htp_node != b->htp_node) return false;
    return place_compatible(a->placement, b->placement);
}

/* match[i] = the NEW row paired with BASE row bv[i], or UINT32_MAX. */
static int match_rows(const ctx *c, const uint32_t *bv, size_t bn, const uint32_t *nv, size_t nn,
                      bool by_name, uint32_t *match) {
    mkey *kb = malloc((bn ? bn : 1) * sizeof *kb), *kn = malloc((nn ? nn : 1) * sizeof *kn);
    size_t nrb = etp_ops_row_count(c->b);
    uint32_t *pos = malloc((nrb ? nrb : 1) * sizeof *pos); /* BASE row -> index in bv */
    if (!kb || !kn || !pos) {
        free(kb);
        free(kn);
        free(pos);
        return ETP_E_INTERNAL;
    }
    for (size_t i = 0; i < bn; i++) {
        match[i] = UINT32_MAX;
        pos[bv[i]] = (uint32_t)i;
    }
    fill_keys(c->b, bv, bn, by_name, kb);
    fill_keys(c->n, nv, nn, by_name, kn);
    size_t i = 0, j = 0;
    while (i < bn && j < nn) {
        int d;
        if (by_name) {
            d = kb[i].kind != kn[j].kind ? (kb[i].kind < kn[j].kind ? -1 : 1)
                                         : strcmp(kb[i].label, kn[j].label);
            if (!d && kb[i].unit != kn[j].unit) d = kb[i].unit < kn[j].unit ? -1 : 1;
        } else {
            d = cmp_mkey_instr(&kb[i], &kn[j]);
        }
        if (d < 0) {
            i++;
        } else if (d > 0) {
            j++;
        } else {
            const etp_ops_row *rb = etp_ops_row_get(c->b, kb[i].row),
                              *rn = etp_ops_row_get(c->n, kn[j].row);
            if (rows_compatible(rb, rn)) match[pos[kb[i].row]] = kn[j].row;
            i++;
            j++;
        }
    }
    free(kb);
    free(kn);
    free(pos);
    return ETP_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Placement
 * ------------------------------------------------------------------------------------------- */

#define CANON_MAX 96

/* The operator behind a CPU kernel: "aten::add.out", "add.out", "native_call_add.out" -> "add" */
static void canon_cpu(const char *op, char *out) {
    const char *s = strip_ns(op);
    if (strncmp(s, "native_call_", 12) == 0) s += 12;
    size_t n = strcspn(s, ".");
    if (n >= CANON_MAX) n = CANON_MAX - 1;
    memcpy(out, s, n);
    out[n] = 0;
}

/* The operator behind a QNN node name (torch.fx naming of the edge-dialect node):
 * "aten_add_tensor_3" -> "add", "aten__softmax_default" -> "_softmax". Heuristic: the prefix
 * "aten_", a numeric suffix "_<n>" and a known overload suffix are removed. */
static void canon_qnn(const char *op, char *out) {
    static const char *const overloads[] = {"default", "tensor", "scalar", "int", "dim", "dims",
                                            "self", "out", "intlist", "using_ints", "list"};
    const char *s = op;
    if (strncmp(s, "aten_", 5) == 0) s += 5;
    size_t n = strlen(s);
    if (n >= CANON_MAX) n = CANON_MAX - 1;
    memcpy(out, s, n);
    out[n] = 0;
    char *us = strrchr(out, '_');
    if (us && us[1]) {
        bool digits = true;
        for (const char *p = us + 1; *p; p++) digits = digits && isdigit((unsigned char)*p);
        if (digits && us != out) *us = 0;
    }
    us = strrchr(out, '_');
    if (us && us != out) {
        for (size_t k = 0; k < sizeof overloads / sizeof overloads[0]; k++) {
            const char *a = us + 1, *b = overloads[k];
            while (*a && *b && tolower((unsigned char)*a) == *b) a++, b++;
            if (!*a && !*b) {
                *us = 0;
                break;
            }
        }
    }
}

typedef struct canon {
    char name[CANON_MAX];
    const char *op_base, *op_new; /* first CPU kernel operator string of each side */
    uint32_t bc, nc;              /* CPU kernel instructions */
    double bpr, npr;              /* their time per run */
    uint32_t bd, nd;              /* delegate nodes */
    const char *bback, *nback;    /* backend of those nodes */
} canon;

typedef struct canon_set {
    canon *v;
    size_t n, cap;
} canon_set;

static canon *canon_get(canon_set *s, const char *name) {
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, name) == 0) return &s->v[i];
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        canon *p = realloc(s->v, cap * sizeof *p);
        if (!p) return NULL;
        s->v = p;
        s->cap = cap;
    }
    canon *c = &s->v[s->n++];
    memset(c, 0, sizeof *c);
    memcpy(c->name, name, strlen(name) + 1);
    return c;
}

static int canon_side(canon_set *s, const etp_ops_result *r, int32_t mi, const uint32_t *v,
                      size_t n, bool is_new) {
    const etp_ops_method *m = etp_ops_method_get(r, (size_t)mi);
    char nm[CANON_MAX];
    for (uint32_t i = 0; i < m->n_cpu_ops; i++) {
        const etp_ops_cpu_op *op = &m->cpu_ops[i];
        canon_cpu(op->op, nm);
        canon *c = canon_get(s, nm);
        if (!c) return ETP_E_INTERNAL;
        if (is_new) {
            if (!c->op_new) c->op_new = op->op;
            c->nc += op->instructions;
            c->npr += nz(op->per_run);
        } else {
            if (!c->op_base) c->op_base = op->op;
            c->bc += op->instructions;
            c->bpr += nz(op->per_run);
        }
    }
    for (size_t i = 0; i < n; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, v[i]);
        if (!row->htp_node || row->qnn != ETP_QNN_NODE || !row->op) continue;
        canon_qnn(row->op, nm);
        canon *c = canon_get(s, nm);
        if (!c) return ETP_E_INTERNAL;
        if (is_new) {
            c->nd++;
            if (!c->nback) c->nback = row->placement;
        } else {
            c->bd++;
            if (!c->bback) c->bback = row->placement;
        }
    }
    return ETP_OK;
}

/* The backend of a method's delegates: the one backend, "delegate" for several, NULL for none */
static const char *sole_backend(const etp_ops_method *m) {
    const char *b = NULL;
    for (uint32_t j = 0; j < m->n_parts; j++) {
        if (m->parts[j].place != ETP_PLACE_DELEGATE) continue;
        if (b && strcmp(b, m->parts[j].placement) != 0) return "delegate";
        b = m->parts[j].placement;
    }
    return b;
}

static const etp_ops_part *find_part(const etp_ops_method *m, const char *placement) {
    for (uint32_t j = 0; j < m->n_parts; j++)
        if (m->parts[j].place == ETP_PLACE_DELEGATE && strcmp(m->parts[j].placement, placement) == 0)
            return &m->parts[j];
    return NULL;
}

static int placement_changes(ctx *c, uint32_t dm, const etp_diff_method *m, const uint32_t *bv,
                             size_t bn, const uint32_t *nv, size_t nn) {
    const etp_ops_method *mb = etp_ops_method_get(c->b, (size_t)m->base);
    const etp_ops_method *mn = etp_ops_method_get(c->n, (size_t)m->new_);
    canon_set s = {0};
    int rc = canon_side(&s, c->b, m->base, bv, bn, false);
    if (!rc) rc = canon_side(&s, c->n, m->new_, nv, nn, true);
    const char *base_back = sole_backend(mb), *new_back = sole_backend(mn);
    for (size_t i = 0; !rc && i < s.n; i++) {
        const canon *k = &s.v[i];
        etp_diff_move mv;
        bool observed;
        const char *other;
        if (k->nc > k->bc) {
            mv = ETP_MOVE_TO_CPU;
            observed = k->bd > k->nd;
            if (observed) other = k->bback;
            else if (k->bc == 0 && m->by_name && base_back) other = base_back;
            else continue;
        } else if (k->nc < k->bc) {
            mv = ETP_MOVE_TO_DELEGATE;
            observed = k->nd > k->bd;
            if (observed) other = k->nback;
            else if (k->nc == 0 && m->by_name && new_back) other = new_back;
            else continue;
        } else {
            continue;
        }
        etp_diff_placement *p = push_pl(c->d);
        if (!p) {
            rc = ETP_E_INTERNAL;
            break;
        }
        p->move = mv;
        p->method = dm;
        p->op = mv == ETP_MOVE_TO_CPU ? (k->op_new ? k->op_new : k->op_base)
                                      : (k->op_base ? k->op_base : k->op_new);
        p->from = mv == ETP_MOVE_TO_CPU ? other : "cpu";
        p->to = mv == ETP_MOVE_TO_CPU ? "cpu" : other;
        p->base_count = k->bc;
        p->new_count = k->nc;
        p->base_nodes = k->bd;
        p->new_nodes = k->nd;
        p->observed = observed;
        p->base_per_run = k->bpr;
        p->new_per_run = k->npr;
    }
    free(s.v);
    /* partitions per backend */
    for (int side = 0; !rc && side < 2; side++) {
        const etp_ops_method *a = side ? mn : mb, *o = side ? mb : mn;
        for (uint32_t j = 0; j < a->n_parts; j++) {
            const etp_ops_part *pa = &a->parts[j];
            if (pa->place != ETP_PLACE_DELEGATE) continue;
            const etp_ops_part *po = find_part(o, pa->placement);
            if (side && po) continue; /* seen from BASE already */
            uint32_t ca = pa->partitions, co = po ? po->partitions : 0;
            if (ca == co) continue;
            etp_diff_placement *p = push_pl(c->d);
            if (!p) {
                rc = ETP_E_INTERNAL;
                break;
            }
            p->move = ETP_MOVE_PARTITIONS;
            p->method = dm;
            p->from = p->to = pa->placement;
            p->base_count = side ? co : ca;
            p->new_count = side ? ca : co;
            p->base_per_run = side ? (po ? po->per_run : 0) : pa->per_run;
            p->new_per_run = side ? pa->per_run : (po ? po->per_run : 0);
            p->observed = true;
        }
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Methods
 * ------------------------------------------------------------------------------------------- */

static void method_shares(const etp_ops_method *m, double *cpu, double *del, uint32_t *parts) {
    *cpu = *del = NAN;
    *parts = 0;
    if (!m) return;
    *parts = m->delegate_partitions;
    double dl = 0;
    bool any = false;
    for (uint32_t j = 0; j < m->n_parts; j++) {
        const etp_ops_part *p = &m->parts[j];
        if (p->place == ETP_PLACE_CPU) *cpu = p->share;
        if (p->place == ETP_PLACE_DELEGATE && !isnan(p->share)) {
            dl += p->share;
            any = true;
        }
    }
    if (any) *del = dl;
    else if (!isnan(*cpu)) *del = 0;
}

static const etp_ops_row *exec_row(const etp_ops_result *r, int32_t mi) {
    if (mi < 0) return NULL;
    const etp_ops_method *m = etp_ops_method_get(r, (size_t)mi);
    return m->exec_row >= 0 ? etp_ops_row_get(r, (size_t)m->exec_row) : NULL;
}

static int add_ops_one_side(ctx *c, uint32_t dm, const etp_ops_result *r, const uint32_t *v,
                            size_t n, const bool *used, uint32_t runs, bool is_new, bool by_name) {
    for (size_t i = 0; i < n; i++) {
        if (used && used[i]) continue;
        const etp_ops_row *row = etp_ops_row_get(r, v[i]);
        op_acc *a = push_op(c);
        if (!a) return ETP_E_INTERNAL;
        a->pub.status = is_new ? ETP_DS_ADDED : ETP_DS_REMOVED;
        a->pub.method = dm;
        a->pub.by_name = by_name;
        if (is_new) {
            a->pub.new_ = row;
            a->ni = v[i];
        } else {
            a->pub.base = row;
            a->bi = v[i];
        }
        int rc = compare(is_new ? NULL : row, is_new ? row : NULL, runs, runs, c->o, &a->pub.cmp);
        if (rc) return rc;
    }
    return ETP_OK;
}

static int diff_method(ctx *c, uint32_t dm) {
    etp_diff_method *m = &c->d->methods[dm];
    const etp_ops_method *mb = m->base >= 0 ? etp_ops_method_get(c->b, (size_t)m->base) : NULL;
    const etp_ops_method *mn = m->new_ >= 0 ? etp_ops_method_get(c->n, (size_t)m->new_) : NULL;
    m->name = mb ? mb->name : mn->name;
    m->unit = mb ? mb->unit : mn->unit;
    int rc = compare(exec_row(c->b, m->base), exec_row(c->n, m->new_), mb ? mb->runs : 0,
                     mn ? mn->runs : 0, c->o, &m->latency);
    if (rc) return rc;
    if (mb && mn && mb->unit != mn->unit) { /* ticks against ns: not comparable */
        m->latency.p50_delta = m->latency.total_delta = m->latency.impact = NAN;
        m->latency.p50_pct = m->latency.total_pct = NAN;
        m->latency.z = m->latency.p = m->latency.q = NAN;
    }
    set_verdict(&m->latency, c->o, ETP_DS_MATCHED);
    etp_diff_gate_row(&m->latency, mb && mn, false, c->o, &m->latency.gate);
    method_shares(mb, &m->cpu_share_base, &m->delegate_share_base, &m->partitions_base);
    method_shares(mn, &m->cpu_share_new, &m->delegate_share_new, &m->partitions_new);

    size_t bn = 0, nn = 0;
    uint32_t *bv = method_rows(c->b, m->base, &bn), *nv = method_rows(c->n, m->new_, &nn);
    uint32_t *match = malloc((bn ? bn : 1) * sizeof *match);
    bool *used = calloc(nn ? nn : 1, sizeof *used);
    size_t nrn = etp_ops_row_count(c->n);
    uint32_t *npos = malloc((nrn ? nrn : 1) * sizeof *npos);
    if (!bv || !nv || !match || !used || !npos) {
        rc = ETP_E_INTERNAL;
        goto done;
    }
    if (mb && mn) {
        int lu = c->o->programs_differ ? 0 : instructions_line_up(c->b, bv, bn, c->n, nv, nn);
        if (lu < 0) {
            rc = ETP_E_INTERNAL;
            goto done;
        }
        m->by_name = !lu;
        if ((rc = match_rows(c, bv, bn, nv, nn, m->by_name, match))) goto done;
        for (size_t j = 0; j < nn; j++) npos[nv[j]] = (uint32_t)j;
        for (size_t i = 0; i < bn; i++) {
            if (match[i] == UINT32_MAX) continue;
            used[npos[match[i]]] = true;
            op_acc *a = push_op(c);
            if (!a) {
                rc = ETP_E_INTERNAL;
                goto done;
            }
            a->bi = bv[i];
            a->ni = match[i];
            a->pub.status = ETP_DS_MATCHED;
            a->pub.method = dm;
            a->pub.by_name = m->by_name;
            a->pub.base = etp_ops_row_get(c->b, bv[i]);
            a->pub.new_ = etp_ops_row_get(c->n, match[i]);
            if ((rc = compare(a->pub.base, a->pub.new_, mb->runs, mn->runs, c->o, &a->pub.cmp)))
                goto done;
        }
        bool *bused = calloc(bn ? bn : 1, sizeof *bused);
        if (!bused) {
            rc = ETP_E_INTERNAL;
            goto done;
        }
        for (size_t i = 0; i < bn; i++) bused[i] = match[i] != UINT32_MAX;
        rc = add_ops_one_side(c, dm, c->b, bv, bn, bused, mb->runs, false, m->by_name);
        free(bused);
        if (!rc) rc = add_ops_one_side(c, dm, c->n, nv, nn, used, mn->runs, true, m->by_name);
        if (!rc) rc = placement_changes(c, dm, m, bv, bn, nv, nn);
    } else if (mb) {
        rc = add_ops_one_side(c, dm, c->b, bv, bn, NULL, mb->runs, false, false);
    } else {
        rc = add_ops_one_side(c, dm, c->n, nv, nn, NULL, mn->runs, true, false);
    }
done:
    free(bv);
    free(nv);
    free(match);
    free(used);
    free(npos);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Ordering
 * ------------------------------------------------------------------------------------------- */

static int unit_group(etp_unit u) {
    switch (u) {
    case ETP_UNIT_NS:
    case ETP_UNIT_US: return 0;
    case ETP_UNIT_TICKS: return 1;
    case ETP_UNIT_CYCLES: return 2;
    case ETP_UNIT_COUNT: return 3;
    case ETP_UNIT_BYTES: return 4;
    case ETP_UNIT_RAW: return 5;
    default: return 6;
    }
}

static int cmp_op(const void *x, const void *y) {
    const op_acc *a = x, *b = y;
    if (a->pub.status != b->pub.status) return a->pub.status < b->pub.status ? -1 : 1;
    const etp_ops_row *ra = a->pub.base ? a->pub.base : a->pub.new_;
    const etp_ops_row *rb = b->pub.base ? b->pub.base : b->pub.new_;
    int ga = unit_group(ra->unit), gb = unit_group(rb->unit);
    if (ga != gb) return ga < gb ? -1 : 1;
    double ia = fabs(a->pub.cmp.impact), ib = fabs(b->pub.cmp.impact);
    bool na = isnan(ia), nb = isnan(ib);
    if (na != nb) return na ? 1 : -1;
    if (!na && ia != ib) return ia > ib ? -1 : 1;
    if (a->pub.method != b->pub.method) return a->pub.method < b->pub.method ? -1 : 1;
    if (a->bi != b->bi) return a->bi < b->bi ? -1 : 1;
    return (a->ni > b->ni) - (a->ni < b->ni);
}

static int pl_rank(const etp_diff_placement *p) { return (int)p->move; }

static double pl_weight(const etp_diff_placement *p) {
    switch (p->move) {
    case ETP_MOVE_TO_CPU: return nz(p->new_per_run);
    case ETP_MOVE_TO_DELEGATE: return nz(p->base_per_run);
    default: return fabs((double)p->new_count - (double)p->base_count);
    }
}

static void sort_placements(etp_diff_result *d) {
    /* insertion sort: stable, few entries */
    for (size_t x = 1; x < d->npl; x++) {
        etp_diff_placement v = d->pl[x];
        size_t y = x;
        while (y > 0) {
            const etp_diff_placement *p = &d->pl[y - 1];
            bool after = pl_rank(p) > pl_rank(&v) ||
                         (pl_rank(p) == pl_rank(&v) && pl_weight(p) < pl_weight(&v));
            if (!after) break;
            d->pl[y] = d->pl[y - 1];
            y--;
        }
        d->pl[y] = v;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Entry points
 * ------------------------------------------------------------------------------------------- */

int etp_diff_compute(const etp_ops_result *base, const etp_ops_result *new_, const etp_diff_opts *o,
                     etp_diff_result **out, etp_error *err) {
    *out = NULL;
    etp_diff_opts defaults;
    if (!o) {
        etp_diff_opts_init(&defaults);
        o = &defaults;
    }
    if (!base || !new_ || !(o->alpha > 0 && o->alpha < 1) || o->threshold_pct < 0 ||
        isnan(o->threshold_pct) || o->no_change_pct < 0 || isnan(o->no_change_pct)) {
        etp_error_set(err, ETP_E_USAGE, "", -1, "", "diff: invalid options");
        return ETP_E_USAGE;
    }
    etp_diff_result *d = calloc(1, sizeof *d);
    ctx c = {.b = base, .n = new_, .o = o, .d = d};
    if (d) d->alpha = o->alpha, d->min_runs = o->min_runs;
    size_t nb = etp_ops_method_count(base), nn = etp_ops_method_count(new_);
    int32_t *pair = malloc((nb ? nb : 1) * sizeof *pair);
    bool *taken = calloc(nn ? nn : 1, sizeof *taken);
    double *pv = NULL;
    int rc = ETP_OK;
    if (!d || !pair || !taken) goto oom;
    d->methods = calloc(nb + nn ? nb + nn : 1, sizeof *d->methods);
    if (!d->methods) goto oom;
    /* methods: by name; then, when one side lacks a program, its one unnamed method pairs
     * with the one method left on the other side */
    size_t ub = 0, un = 0, lb = 0, ln = 0;
    for (size_t i = 0; i < nb; i++) {
        pair[i] = -1;
        const char *name = etp_ops_method_get(base, i)->name;
        for (size_t j = 0; j < nn; j++)
            if (!taken[j] && same_name(name, etp_ops_method_get(new_, j)->name)) {
                pair[i] = (int32_t)j;
                taken[j] = true;
                break;
            }
        if (pair[i] < 0) ub++, lb = i;
    }
    for (size_t j = 0; j < nn; j++)
        if (!taken[j]) un++, ln = j;
    if (ub == 1 && un == 1 &&
        (!etp_ops_method_get(base, lb)->name || !etp_ops_method_get(new_, ln)->name)) {
        pair[lb] = (int32_t)ln;
        taken[ln] = true;
    }
    for (size_t i = 0; i < nb; i++)
        d->methods[d->nmethods++] = (etp_diff_method){.base = (int32_t)i, .new_ = pair[i]};
    for (size_t j = 0; j < nn; j++)
        if (!taken[j]) d->methods[d->nmethods++] = (etp_diff_method){.base = -1, .new_ = (int32_t)j};
    for (size_t i = 0; i < d->nmethods; i++)
        if ((rc = diff_method(&c, (uint32_t)i))) goto fail;

    /* q-values over the matched operators */
    pv = calloc(c.nacc ? c.nacc : 1, sizeof *pv);
    if (!pv) goto oom;
    for (size_t i = 0; i < c.nacc; i++)
        pv[i] = c.acc[i].pub.status == ETP_DS_MATCHED ? c.acc[i].pub.cmp.p : NAN;
    if ((rc = etp_bh_adjust(pv, c.nacc, pv))) goto fail;
    for (size_t i = 0; i < c.nacc; i++) {
        etp_diff_op *op = &c.acc[i].pub;
        if (op->status == ETP_DS_MATCHED) op->cmp.q = pv[i];
        set_verdict(&op->cmp, o, op->status);
        etp_diff_gate_row(&op->cmp, op->status == ETP_DS_MATCHED, true, o, &op->cmp.gate);
        op->hidden = op->status == ETP_DS_MATCHED && o->threshold_pct > 0 &&
                     !isnan(op->cmp.p50_pct) && fabs(op->cmp.p50_pct) < o->threshold_pct;
    }
    if (c.nacc) qsort(c.acc, c.nacc, sizeof *c.acc, cmp_op);
    for (size_t i = 0; i < c.nacc; i++) d->nops[c.acc[i].pub.status]++;
    for (int s = 0; s < 3; s++) {
        d->ops[s] = malloc((d->nops[s] ? d->nops[s] : 1) * sizeof *d->ops[s]);
        if (!d->ops[s]) goto oom;
    }
    size_t k[3] = {0, 0, 0};
    for (size_t i = 0; i < c.nacc; i++) {
        int s = (int)c.acc[i].pub.status;
        d->ops[s][k[s]++] = c.acc[i].pub;
    }
    sort_placements(d);

    /* summary */
    etp_diff_summary *sm = &d->sum;
    sm->methods = (uint32_t)d->nmethods;
    for (size_t i = 0; i < d->nmethods; i++) {
        etp_diff_method *m = &d->methods[i];
        sm->by_name |= m->by_name;
        switch (m->latency.verdict) {
        case ETP_DV_SLOWER: sm->methods_slower++; break;
        case ETP_DV_FASTER: sm->methods_faster++; break;
        case ETP_DV_TOO_FEW_RUNS: sm->methods_too_few++; break;
        default: break;
        }
        m->regressed = !isnan(o->fail_pct) && m->latency.gate.outcome == ETP_DIFF_REGRESSION;
        sm->methods_regressed += m->regressed;
        sm->methods_inconclusive += m->latency.gate.outcome == ETP_DIFF_INCONCLUSIVE;
        sm->methods_improved += m->latency.gate.outcome == ETP_DIFF_IMPROVEMENT;
    }
    {
        size_t nm = d->nmethods;
        etp_diff_gate *gates = malloc((nm ? nm : 1) * sizeof *gates);
        const char **names = malloc((nm ? nm : 1) * sizeof *names);
        if (!gates || !names) {
            free(gates);
            free(names);
            goto oom;
        }
        for (size_t i = 0; i < nm; i++) {
            gates[i] = d->methods[i].latency.gate;
            names[i] = d->methods[i].name;
        }
        etp_diff_gate_overall(gates, names, nm, &sm->gate);
        free(gates);
        free(names);
    }
    for (size_t i = 0; i < c.nacc; i++) {
        const etp_diff_op *op = &c.acc[i].pub;
        if (op->status == ETP_DS_ADDED) {
            sm->added++;
            continue;
        }
        if (op->status == ETP_DS_REMOVED) {
            sm->removed++;
            continue;
        }
        sm->matched++;
        sm->hidden += op->hidden;
        switch (op->cmp.verdict) {
        case ETP_DV_SLOWER: sm->slower++; break;
        case ETP_DV_FASTER: sm->faster++; break;
        case ETP_DV_NOISE: sm->noise++; break;
        case ETP_DV_NO_CHANGE: sm->no_change++; break;
        case ETP_DV_TOO_FEW_RUNS: sm->too_few++; break;
        default: break;
        }
    }
    for (size_t i = 0; i < d->npl; i++) {
        switch (d->pl[i].move) {
        case ETP_MOVE_TO_CPU: sm->to_cpu++; break;
        case ETP_MOVE_TO_DELEGATE: sm->to_delegate++; break;
        case ETP_MOVE_PARTITIONS: sm->partition_changes++; break;
        }
    }
    free(c.acc);
    free(pair);
    free(taken);
    free(pv);
    *out = d;
    return ETP_OK;
oom:
    rc = ETP_E_INTERNAL;
fail:
    if (rc == ETP_E_INTERNAL) etp_error_set(err, rc, "", -1, "", "out of memory");
    else etp_error_set(err, rc, "", -1, "", "diff failed");
    free(c.acc);
    free(pair);
    free(taken);
    free(pv);
    etp_diff_free(d);
    return rc;
}

void etp_diff_free(etp_diff_result *d) {
    if (!d) return;
    free(d->methods);
    for (int s = 0; s < 3; s++) free(d->ops[s]);
    free(d->pl);
    free(d);
}

const char *etp_diff_result_name(const etp_diff_result *d) {
    if (!d) return "?";
    const etp_diff_summary *s = &d->sum;
    if (s->methods_slower && s->methods_faster) return "mixed";
    if (s->methods_slower) return "slower";
    if (s->methods_faster) return "faster";
    for (size_t i = 0; i < d->nmethods; i++)
        if (d->methods[i].latency.verdict == ETP_DV_NOISE) return "noise";
    if (s->methods && s->methods_too_few == s->methods) return "too few runs";
    return "no change";
}

size_t etp_diff_method_count(const etp_diff_result *d) { return d ? d->nmethods : 0; }

const etp_diff_method *etp_diff_method_get(const etp_diff_result *d, size_t i) {
    return d && i < d->nmethods ? &d->methods[i] : NULL;
}

const etp_diff_op *etp_diff_ops(const etp_diff_result *d, etp_diff_status s, size_t *n) {
    if (!d || (int)s < 0 || (int)s > 2) {
        *n = 0;
        return NULL;
    }
    *n = d->nops[s];
    return d->ops[s];
}

size_t etp_diff_placement_count(const etp_diff_result *d) { return d ? d->npl : 0; }

const etp_diff_placement *etp_diff_placement_get(const etp_diff_result *d, size_t i) {
    return d && i < d->npl ? &d->pl[i] : NULL;
}

const etp_diff_summary *etp_diff_get_summary(const etp_diff_result *d) { return d ? &d->sum : NULL; }

/* ---- a view's listing (etprof diff) ---- */

bool etp_diff_op_listed(const etp_diff_op *op, bool all) {
    if (!op || op->hidden) return false;
    const etp_ops_row *r = op->base ? op->base : op->new_;
    return all || !r || r->kind != ETP_KIND_OPERATOR_CALL;
}

const char *etp_diff_op_placement(const etp_diff_op *op) {
    if (!op) return NULL;
    const etp_ops_row *r = op->base ? op->base : op->new_;
    if (!r) return NULL;
    if (op->base && op->new_ && op->base->placement && strcmp(op->base->placement, "delegate") == 0)
        return op->new_->placement;
    return r->placement;
}

void etp_diff_list(const etp_diff_result *d, bool all, size_t top, etp_diff_listing *out) {
    memset(out, 0, sizeof *out);
    if (!d) return;
    for (int st = 0; st < 3; st++) {
        size_t n;
        const etp_diff_op *ops = etp_diff_ops(d, (etp_diff_status)st, &n);
        for (size_t i = 0; i < n; i++) {
            const etp_diff_op *op = &ops[i];
            const etp_ops_row *r = op->base ? op->base : op->new_;
            if (!etp_diff_op_listed(op, all)) {
                out->wrappers_hidden += !op->hidden && r && r->kind == ETP_KIND_OPERATOR_CALL;
                continue;
            }
            out->listed[st]++;
            if (op->base)
                out->flags |= etp_disp_row_flags(op->base), out->units |= 1u << op->base->unit;
            if (op->new_)
                out->flags |= etp_disp_row_flags(op->new_), out->units |= 1u << op->new_->unit;
        }
        out->shown[st] = st == ETP_DS_MATCHED && top && out->listed[st] > top ? top : out->listed[st];
    }
    for (size_t i = 0; i < d->nmethods; i++) {
        const etp_diff_method *m = &d->methods[i];
        out->units |= 1u << m->unit;
        if (m->base >= 0 && m->new_ >= 0 && m->latency.runs_base != m->latency.runs_new)
            out->runs_differ = true;
    }
    uint32_t need = etp_mwu_runs_needed(d->alpha);
    out->runs_needed = need > d->min_runs ? need : d->min_runs;
}

/* ---------------------------------------------------------------------------------------------
 * Two bare samples (the run history's gate, etprof_fleet.h): the same comparison as a method's
 * latency in etp_diff_compute, on rows that hold only the samples and their statistics
 * ------------------------------------------------------------------------------------------- */

int etp_diff_compare_samples(const double *base, size_t nb, const double *new_, size_t nn,
                             const etp_diff_opts *o, etp_diff_cmp *out) {
    etp_diff_opts def;
    if (!o) {
        etp_diff_opts_init(&def);
        o = &def;
    }
    double *tmp = malloc((nb + nn + 1) * sizeof *tmp);
    if (!tmp) return ETP_E_INTERNAL;
    etp_ops_row rb, rn;
    memset(&rb, 0, sizeof rb);
    memset(&rn, 0, sizeof rn);
    if (nb) memcpy(tmp, base, nb * sizeof *tmp);
    if (nn) memcpy(tmp + nb, new_, nn * sizeof *tmp);
    etp_stats_compute(tmp, nb, &rb.stats); /* sorts its copy; the test reads the originals */
    etp_stats_compute(tmp + nb, nn, &rn.stats);
    free(tmp);
    rb.runs = (uint32_t)nb;
    rn.runs = (uint32_t)nn;
    rb.samples = base;
    rn.samples = new_;
    int rc = compare(&rb, &rn, (uint32_t)nb, (uint32_t)nn, o, out);
    if (rc) return rc;
    set_verdict(out, o, ETP_DS_MATCHED);
    etp_diff_gate_row(out, true, false, o, &out->gate);
    return ETP_OK;
}
