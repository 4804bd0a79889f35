/* membudget.c - the process's memory budget (membudget.h, docs/verifier.md "Memory"): one
 * atomic count of the bytes charged by the model, the analyses and the readers. */
#include "membudget.h"

#include <stdatomic.h>
#include <stdlib.h>

static _Atomic uint64_t mem_held;

uint64_t etp__mem_budget(void) {
    const char *e = getenv("ETPROF_MEMORY_BUDGET");
    if (!e || !*e) return ETP_MEM_BUDGET_DEFAULT;
    char *end;
    unsigned long long v = strtoull(e, &end, 10);
    if (*end || *e == '-') return ETP_MEM_BUDGET_DEFAULT;
    if (v == 0 || v >= (UINT64_MAX >> 20)) return UINT64_MAX;
    return (uint64_t)v << 20;
}

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
