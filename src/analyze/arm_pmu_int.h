/* arm_pmu_int.h - what the Arm runner log's figures (src/analyze/arm_pmu.c) give their views
 * (src/view/arm_pmu_view.c) beyond the public API (internal). */
#ifndef ETPROF_ARM_PMU_INT_H
#define ETPROF_ARM_PMU_INT_H

#include "etprof.h"
#include "etprof_arm_pmu.h"

#include <stdbool.h>

/* One figure of the Ethos-U report, in the order every view shows them. */
typedef struct pmu_fig {
    char name[80];
    const char *source; /* the log's key */
    uint64_t total;
    etp_arm_pmu_unit unit;
} pmu_fig;

static inline bool present(const etp_arm_pmu_report *r) { return r && r->present; }

/* The report's figures into f (room for 8 + ETP_ARM_PMU_COUNTERS); their count. */
size_t etp__arm_pmu_figures(const etp_arm_pmu_report *r, pmu_fig *f);

/* The ETDump's VGF_EXECUTE rows: events, and the one row's p50 and unit (nrows > 1: several
 * delegates or instructions, no single p50). */
typedef struct vgf_host {
    uint64_t count;
    uint32_t nrows;
    double p50;
    etp_unit unit;
} vgf_host;

vgf_host etp__vgf_host_of(const etp_ops_result *r);
/* The device time's statistics (ns); false when out of memory. */
bool etp__vgf_device_stats(const etp_vgf_device_times *t, etp_stats *st);
/* 100 x device p50 / host p50, when the host p50 is a time in ns. */
double etp__vgf_device_share(const etp_stats *st, const vgf_host *h);

#endif
