/* stats.c - sample statistics as the Python Inspector reports them (numpy's defaults):
 * percentiles by linear interpolation between the two nearest ranks, arithmetic mean, min, max. */
#include "etprof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sorting without comparator calls, O(n log n) (comparisons) or O(n) (radix) whatever the input.
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

static void heap_sort(double *v, size_t n) {
    for (size_t i = n / 2; i-- > 0;) sift(v, i, n);
    for (size_t end = n - 1; end > 0; end--) {
        double t = v[0];
        v[0] = v[end];
        v[end] = t;
        sift(v, 0, end);
    }
}

static void insertion_sort(double *v, size_t n) {
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        for (; j > 0 && x < v[j - 1]; j--) v[j] = v[j - 1];
        v[j] = x;
    }
}

/* Introsort: quicksort (median of three, Hoare partition) down to short ranges, which insertion
 * sort finishes; heap sort takes over a range that recursed too deep, so the worst case stays
 * O(n log n). Equal samples are indistinguishable (never -0.0 next to 0.0: sums start at +0.0),
 * so any correct sort gives the same array. */
static void intro_sort(double *v, size_t n, int depth) {
    while (n > 16) {
        if (depth-- == 0) {
            heap_sort(v, n);
            return;
        }
        double a = v[0], b = v[n / 2], c = v[n - 1], t;
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = 0, j = n - 1;
        for (;;) {
            while (v[i] < pivot) i++;
            while (pivot < v[j]) j--;
            if (i >= j) break;
            t = v[i];
            v[i] = v[j];
            v[j] = t;
            i++;
            j--;
        }
        /* [0, j] <= pivot <= [j + 1, n): recurse into the smaller part */
        size_t left = j + 1;
        if (left < n - left) {
            intro_sort(v, left, depth);
            v += left;
            n -= left;
        } else {
            intro_sort(v + left, n - left, depth);
            n = left;
        }
    }
    insertion_sort(v, n);
}

/* LSD radix sort on the bit patterns, mapped so that unsigned order is numeric order (negative
 * values: all bits flipped; others: the sign bit set). 8 passes of 8 bits at most; a pass in
 * which every key has the same byte is skipped (the exponent bytes of similar durations). For
 * the samples of many runs this beats any comparison sort: no data-dependent branches.
 * Returns false (nothing done) when the scratch space cannot be allocated. */
static inline uint64_t sort_key(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
}
static inline double key_value(uint64_t k) {
    uint64_t u = (k >> 63) ? k & ~(UINT64_C(1) << 63) : ~k;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

#define RADIX_MIN 64     /* shorter samples: comparison sort */
#define RADIX_STACK 1024 /* keys held on the stack (2 x 512 samples) */

/* The common case: every sample a whole number in [0, 2^32) (cycles, counts, ns under 4.3 s):
 * 32-bit keys, 4 passes at most. Returns false, having done nothing, for any other sample. */
/* A digit's 256 counts become the positions where each digit's keys start (exclusive sums). */
static inline void counts_to_starts(uint32_t c[256]) {
    uint32_t sum = 0;
    for (unsigned d = 0; d < 256; d++) {
        uint32_t x = c[d];
        c[d] = sum;
        sum += x;
    }
}

static inline bool whole_u32(double d) {
    return d >= 0 && d <= 4294967295.0 && d == (double)(uint32_t)d && !signbit(d);
}

static bool radix_sort_u32(double *v, size_t n) {
    uint32_t stack[RADIX_STACK], *a = stack;
    if (!n || !whole_u32(v[0])) return false; /* (no allocation for the usual other case) */
    if (n > RADIX_STACK / 2) {
        if (n > SIZE_MAX / 8 || !(a = malloc(2 * n * sizeof *a))) return false;
    }
    uint32_t *k = a, *t = a + n;
    uint32_t cnt[4][256];
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < n; i++) {
        /* a sample that is no whole number in [0, 2^32) (or -0.0): v untouched, false */
        if (!whole_u32(v[i])) {
            if (a != stack) free(a);
            return false;
        }
        uint32_t x = (uint32_t)v[i];
        k[i] = x;
        cnt[0][x & 255]++;
        cnt[1][(x >> 8) & 255]++;
        cnt[2][(x >> 16) & 255]++;
        cnt[3][x >> 24]++;
    }
    for (unsigned b = 0; b < 4; b++) {
        uint32_t *c = cnt[b];
        if (c[(k[0] >> (8 * b)) & 255] == n) continue; /* every key has this byte */
        counts_to_starts(c);
        for (size_t i = 0; i < n; i++) t[c[(k[i] >> (8 * b)) & 255]++] = k[i];
        uint32_t *sw = k;
        k = t;
        t = sw;
    }
    for (size_t i = 0; i < n; i++) v[i] = (double)k[i];
    if (a != stack) free(a);
    return true;
}

static bool radix_sort(double *v, size_t n) {
    if (radix_sort_u32(v, n)) return true;
    uint64_t stack[RADIX_STACK], *a = stack;
    if (n > RADIX_STACK / 2) {
        if (n > SIZE_MAX / 16 || !(a = malloc(2 * n * sizeof *a))) return false;
    }
    uint64_t *k = a, *t = a + n;
    uint32_t cnt[8][256];
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = sort_key(v[i]);
        k[i] = x;
        for (unsigned b = 0; b < 8; b++) cnt[b][(x >> (8 * b)) & 255]++;
    }
    for (unsigned b = 0; b < 8; b++) {
        uint32_t *c = cnt[b];
        if (c[(k[0] >> (8 * b)) & 255] == n) continue; /* every key has this byte */
        counts_to_starts(c);
        for (size_t i = 0; i < n; i++) t[c[(k[i] >> (8 * b)) & 255]++] = k[i];
        uint64_t *s = k;
        k = t;
        t = s;
    }
    for (size_t i = 0; i < n; i++) v[i] = key_value(k[i]);
    if (a != stack) free(a);
    return true;
}

static void sort_doubles(double *v, size_t n) {
    if (n < 2) return;
    if (n >= RADIX_MIN && n <= UINT32_MAX && radix_sort(v, n)) return;
    int depth = 0;
    for (size_t k = n; k > 1; k >>= 1) depth += 2;
    intro_sort(v, n, depth);
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
