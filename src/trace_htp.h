/* trace_htp.h - the trace writer with an optrace HTP timeline (internal; docs/trace.md). */
#ifndef ETPROF_TRACE_HTP_H
#define ETPROF_TRACE_HTP_H

#include "etprof.h"
#include "qnn.h"

#include <stdio.h>

/* etp_trace_write plus one process "HTP (optrace)" drawn from a QNN optrace with a known HTP
 * clock (GHz > 0; clock_source names where it came from). `optrace` NULL = etp_trace_write. */
int etp_trace_write_htp(etp_model *m, FILE *f, const etp_trace_opts *o,
                        const etp_qnn_trace *optrace, double clock_ghz, const char *clock_source,
                        etp_trace_stats *st, etp_error *err);
#endif
