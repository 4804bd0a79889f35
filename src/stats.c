/* stats.c - sample statistics as the Python Inspector reports them (numpy's defaults):
 * percentiles by linear interpolation between the two nearest ranks, arithmetic mean, min, max. */
#include "etprof.h"

#include <math.h>
#include <string.h>

/* In-place heap sort: no allocation, no comparator calls, O(n log n) whatever the input.
 * NaNs are not expected (etprof never stores them as samples); they would be misplaced, never
 * read out of bounds. */
static void sift(double *v, size_t root, size_t n) {
    double x = v[root];
    for (size_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && v[child] < v[child + 1]) child++;
        if (!(x < v[child])) break;
        v[root] = v[child];
    }
    v[root] = x;
}

static void sort_doubles(double *v, size_t n) {
    if (n < 2) return;
    if (n <= 16) { /* insertion sort for the short samples of few runs */
        for (size_t i = 1; i < n; i++) {
            double x = v[i];
            size_t j = i;
            for (; j > 0 && x < v[j - 1]; j--) v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    for (size_t i = n / 2; i-- > 0;) sift(v, i, n);
    for (size_t end = n - 1; end > 0; end--) {
        double t = v[0];
        v[0] = v[end];
        v[end] = t;
        sift(v, 0, end);
    }
}

double etp_percentile(const double *sorted, size_t n, double p) {
    if (n == 0 || !sorted || isnan(p)) return NAN;
    if (p <= 0) return sorted[0];
    if (p >= 100) return sorted[n - 1];
    /* numpy: q = p / 100; virtual index = q * (n - 1); interpolate between floor and floor + 1,
     * computing from the upper neighbour when the fraction is >= 0.5 (numpy's _lerp), so the
     * result is bit-identical to numpy.percentile(..., method="linear"). */
    double q = p / 100.0;
    double vi = q * (double)(n - 1);
    double lo = floor(vi);
    size_t i = (size_t)lo;
    if (i >= n - 1) return sorted[n - 1];
    double t = vi - lo;
    double a = sorted[i], b = sorted[i + 1], d = b - a;
    if (t >= 0.5) return b - d * (1.0 - t);
    return a + d * t;
}

double etp_mean(const double *v, size_t n) {
    if (n == 0 || !v) return NAN;
    /* Pairwise summation keeps long samples accurate (numpy sums pairwise too). */
    if (n <= 8) {
        double s = 0;
        for (size_t i = 0; i < n; i++) s += v[i];
        return s / (double)n;
    }
    size_t h = n / 2;
    double a = etp_mean(v, h) * (double)h, b = etp_mean(v + h, n - h) * (double)(n - h);
    return (a + b) / (double)n;
}

void etp_stats_compute(double *v, size_t n, etp_stats *out) {
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0 || !v) {
        out->n = 0;
        out->min = out->p10 = out->p50 = out->p90 = out->avg = out->max = out->total = NAN;
        return;
    }
    sort_doubles(v, n);
    out->min = v[0];
    out->max = v[n - 1];
    out->p10 = etp_percentile(v, n, 10);
    out->p50 = etp_percentile(v, n, 50);
    out->p90 = etp_percentile(v, n, 90);
    out->avg = etp_mean(v, n);
    double s = 0;
    for (size_t i = 0; i < n; i++) s += v[i];
    out->total = s;
}

bool etp_stats_pick(const etp_stats *s, const char *name, double *out) {
    if (!s || !name) return false;
    static const struct {
        const char *name;
        size_t off;
    } keys[] = {
        {"min", offsetof(etp_stats, min)}, {"p10", offsetof(etp_stats, p10)},
        {"p50", offsetof(etp_stats, p50)}, {"p90", offsetof(etp_stats, p90)},
        {"avg", offsetof(etp_stats, avg)}, {"max", offsetof(etp_stats, max)},
        {"total", offsetof(etp_stats, total)},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(keys[i].name, name) == 0) {
            memcpy(out, (const char *)s + keys[i].off, sizeof *out);
            return true;
        }
    return false;
}

double etp_time_unit_ns(const char *name) {
    if (!name) return 0;
    if (strcmp(name, "ns") == 0) return 1;
    if (strcmp(name, "us") == 0) return 1e3;
    if (strcmp(name, "ms") == 0) return 1e6;
    if (strcmp(name, "s") == 0) return 1e9;
    return 0;
}
