/* sort.c - etp__sort over the C library's qsort_r (glibc 2.8+, musl 1.2.3+; the GNU argument
 * order: comparator, then context). Kept in its own file: only here is _GNU_SOURCE defined. */
#define _GNU_SOURCE 1
#include <stdlib.h>

#include "sort.h"

void etp__sort(void *base, size_t n, size_t size, etp__cmp_fn cmp, void *ctx) {
    if (n > 1) qsort_r(base, n, size, cmp, ctx);
}
