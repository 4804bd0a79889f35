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

/* HTML-escapes s[0..n) to f as etp_table_render_html() does (the HTML report's escaping): & < >
 * " ' become references, C0 controls (but tab, line feed), DEL and bytes that are not
 * well-formed UTF-8 become U+FFFD. Safe in text and in quoted attribute values. */
void res_html_esc(FILE *f, const char *s, size_t n);

#endif
