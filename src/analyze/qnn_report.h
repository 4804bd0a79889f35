/*
 * qnn_report.h - glue between QNN's own profiling files (qnn.h) and the ETDump analyses
 * (etprof.h): load a set of QNN files and derive their tables in one call, join the derived
 * per-QNN-op rows to the ETDump's HTP node rows, and the per-node wall-time estimate.
 * Used by the `qnn`, `ops`, `tree` and `explain` commands (internal).
 */
#ifndef ETPROF_QNN_REPORT_H
#define ETPROF_QNN_REPORT_H

#include "etprof_qnn.h" /* the public part: bundle, clock, unit counts, critical path, viewer sums */
#include "qnn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The join with the ETDump, the source names and the rows by cycles are public:
 * include/etprof_qnn.h. */

#ifdef __cplusplus
}
#endif
#endif /* ETPROF_QNN_REPORT_H */
