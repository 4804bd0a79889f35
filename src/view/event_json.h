/* event_json.h - one event as JSON or as a flat table row (internal). */
#ifndef ETPROF_EVENT_JSON_H
#define ETPROF_EVENT_JSON_H

#include "etprof.h"
#include "etprof_result.h"
#include "jw.h"

/* "profile", "allocation", "debug" or "none". */
const char *etp_event_type_name(etp_event_type t);
/* The event as one JSON object: block, index, type, kind, the schema fields after defaults, the
 * derived parent/value/unit and, with_program, method/instruction_kind/operator/backend. */
void etp_event_json(jw *w, const etp_dump *d, const etp_block_view *v, const etp_mevent *e,
                    bool with_program);
/* The flat columns (csv, tsv, table, md) and one row of them. */
extern const etp_col etp_event_cols[];
extern const size_t etp_event_ncols;
void etp_event_row(etp_stream *t, const etp_block_view *v, const etp_mevent *e);
#endif
