/* result_int.h - what the library's own JSON writers share with the result model (internal). */
#ifndef ETPROF_RESULT_INT_H
#define ETPROF_RESULT_INT_H

#include "etprof_result.h"
#include "jw.h"

/* Writes node `n`'s value (not its key) with `w`, as etp_doc_render's JSON view does. */
void res_node_json(jw *w, const etp_node *n);
/* The i-th member of an object or array node (NULL past the end). */
const etp_node *res_node_child(const etp_node *n, size_t i);

/* etp_stream: a row whose JSON value the caller writes itself (json, jsonl), instead of
 * etp_stream_row()'s flat cells. Returns the writer, where the row's value goes (json: the next
 * element of the rows array; jsonl: a new line's writer), or NULL in the other formats (then
 * give the cells). Write exactly one value, then call res_stream_json_row_end(). */
jw *res_stream_json_row(etp_stream *s);
void res_stream_json_row_end(etp_stream *s);

/* etp_stream in the table formats (table, md: every row kept until close, to align the
 * columns): counts the next row, of group `group`, and charges the rows of the group before,
 * `per_row` bytes each, against the memory budget (docs/verifier.md "Memory") when a new group
 * starts: the rows of the group being written are the caller's to charge (the events view's:
 * the model's per-event charge, ETP_MEM_PER_EVENT, covers the table's rows of the block being
 * decoded). True to write the row; false when over the budget: the stream is refused from then
 * on (etp_stream_flush/close return its error and write nothing), and the caller sets the
 * located error in res_stream_error(s). Always true in the other formats (rows go out as they
 * come). */
bool res_stream_charge_row(etp_stream *s, uint64_t group, uint32_t per_row);
etp_error *res_stream_error(etp_stream *s);
const char *res_stream_file(const etp_stream *s); /* etp_stream_open's `file`, or NULL */

/* HTML-escapes s[0..n) to f as etp_table_render_html() does (the HTML report's escaping): & < >
 * " ' become references, C0 controls (but tab, line feed), DEL and bytes that are not
 * well-formed UTF-8 become U+FFFD. Safe in text and in quoted attribute values. */
void res_html_esc(FILE *f, const char *s, size_t n);

#endif
