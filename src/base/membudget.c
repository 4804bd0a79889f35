/* membudget.c - the process's memory budget (membudget.h, docs/verifier.md "Memory"): one
 * atomic count of the bytes charged by the model, the analyses and the readers. */
#include "membudget.h"
#include "etprof.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t mem_held;

uint64_t etp_memory_budget(char *warning, size_t n) {
    if (warning && n) warning[0] = 0;
    const char *e = getenv("ETPROF_MEMORY_BUDGET");
    if (!e || !*e) return ETP_MEM_BUDGET_DEFAULT;
    const char *p = e;
    uint64_t v = 0;
    bool over = false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > ((UINT64_MAX >> 20) - (uint64_t)(*p - '0')) / 10) over = true;
        else v = v * 10 + (uint64_t)(*p - '0');
    }
    if (p != e && !*p && !over) return v == 0 ? UINT64_MAX : v << 20;
    if (warning && n) {
        /* the value as given, its first 40 bytes, control characters as '?' (one line) */
        char shown[44];
        size_t k = 0;
        for (; e[k] && k < 40; k++)
            shown[k] = (unsigned char)e[k] < 0x20 || e[k] == 0x7f ? '?' : e[k];
        memcpy(shown + k, e[k] ? "..." : "", e[k] ? 4 : 1);
        snprintf(warning, n,
                 "ETPROF_MEMORY_BUDGET=\"%s\" %s: the default memory budget of %llu MiB is kept "
                 "(docs/verifier.md \"Memory\")",
                 shown,
                 p != e && !*p ? "is too large (at most 17592186044415 MiB; 0 lifts the limit)"
                               : "is not a whole number of MiB (digits only; 0 lifts the limit)",
                 (unsigned long long)(ETP_MEM_BUDGET_DEFAULT >> 20));
    }
    return ETP_MEM_BUDGET_DEFAULT;
}

uint64_t etp__mem_budget(void) { return etp_memory_budget(NULL, 0); }

bool etp__mem_take(uint64_t bytes, uint64_t budget, uint64_t *held) {
    uint64_t cur = atomic_load(&mem_held);
    do {
        if (budget != UINT64_MAX && (cur > budget || bytes > budget - cur)) {
            if (held) *held = cur;
            return false;
        }
    } while (!atomic_compare_exchange_weak(&mem_held, &cur, cur + bytes));
    return true;
}

void etp__mem_give(uint64_t bytes) { atomic_fetch_sub(&mem_held, bytes); }
