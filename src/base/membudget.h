/* membudget.h - the process's memory budget (docs/verifier.md "Memory"), in the base layer so
 * that every reader charges it, not only the model and the analyses (internal). */
#ifndef ETPROF_MEMBUDGET_H
#define ETPROF_MEMBUDGET_H

#include <stdbool.h>
#include <stdint.h>

/* What the model, the analyses and the readers materialise is charged against one budget for
 * the whole process, so that peak RSS stays within the input files + 64 MiB.
 * ETP_MEM_BUDGET_DEFAULT bytes, or ETPROF_MEMORY_BUDGET (MiB; 0 = no limit). */
#define ETP_MEM_BUDGET_DEFAULT ((uint64_t)52 << 20)

/* The budget in bytes (UINT64_MAX: no limit); reads ETPROF_MEMORY_BUDGET. */
uint64_t etp__mem_budget(void);
/* Charges `bytes` when the process's total stays within `budget`: true; else false, nothing
 * charged, and `*held` (may be NULL) is what was already charged. */
bool etp__mem_take(uint64_t bytes, uint64_t budget, uint64_t *held);
void etp__mem_give(uint64_t bytes);

#endif
