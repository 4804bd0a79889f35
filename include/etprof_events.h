/* etprof_events.h - every event of a dump, one row each: the view of `etprof events`
 * (docs/json-contract.md), written to a streaming table (etp_stream, etprof_result.h) so that a
 * dump of any size is written in bounded memory.
 *
 *     etp_stream *s = etp_events_open(ETP_FMT_JSONL, stdout, NULL, "run.etdp");
 *     for each block b: etp_model_block(m, b, &v, &err);
 *                       for each i: etp_events_row(s, dump, &v, &v.events[i], prog != NULL);
 *                       etp_stream_flush(s);
 *     int rc = etp_stream_close(s);
 *
 * json and jsonl: each event is one object with the schema's own field names (block, index,
 * type, kind, the fields after defaults, the derived parent/value/unit and, with a program,
 * method/instruction_kind/operator/backend); json wraps them as {"schema_version": 1, "file": F,
 * "events": [...]}. table, md, csv, tsv: the flat columns block, index, type, kind, label,
 * chain_index, instruction_id, delegate_debug_id_int, start_time, end_time, value, unit,
 * parent, method, operator, backend (a narrow terminal drops the less useful ones first).
 *
 * Ownership: the stream is the caller's (etp_stream_close); the views are only read during the
 * call. Errors: those of the stream: sticky, reported by etp_stream_flush/close. Threads: one thread
 * per stream.
 */
#ifndef ETPROF_EVENTS_H
#define ETPROF_EVENTS_H

#include <stdbool.h>
#include <stdio.h>

#include "etprof.h"
#include "etprof_result.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

/* A stream of the events view of the dump named `file` (the JSON "file"). NULL when out of
 * memory or fmt unknown. */
etp_stream *etp_events_open(etp_format fmt, FILE *f, const etp_render_opts *opts, const char *file);
/* Event `e` of block view `v` of dump `d` as the next row; with_program: the program-derived
 * members (json, jsonl) are written. */
void etp_events_row(etp_stream *s, const etp_dump *d, const etp_block_view *v, const etp_mevent *e,
                    bool with_program);

/* The same flat rows as a table of document `d` (one row per event of block view `v`, in the
 * columns listed above: block, index, type, kind, label, chain_index, instruction_id,
 * delegate_debug_id_int, start_time, end_time, value, unit, parent, method, operator, backend),
 * appended to `t` when given (a table this function made), else to a new table. Whole columns of
 * it come out with etp_table_column (the Python package's events()). NULL on error (the
 * document's sticky error). */
etp_table *etp_events_table(etp_doc *d, etp_table *t, const etp_block_view *v);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_EVENTS_H */
