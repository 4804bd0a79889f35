/* sort.h - sorting with a context argument (internal).
 *
 * The library is reentrant (include/etprof.h, "Threads"): comparators get their context as an
 * argument, never through a file-scope variable. */
#ifndef ETPROF_SORT_H
#define ETPROF_SORT_H

#include <stddef.h>

typedef int (*etp__cmp_fn)(const void *a, const void *b, void *ctx);

/* Sorts n elements of `size` bytes at `base` by cmp(a, b, ctx). Comparators used with it define a
 * total order (ties broken by index), so the result does not depend on the algorithm. */
void etp__sort(void *base, size_t n, size_t size, etp__cmp_fn cmp, void *ctx);

#endif
