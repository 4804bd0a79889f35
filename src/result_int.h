/* result_int.h - what the library's own JSON writers share with the result model (internal). */
#ifndef ETPROF_RESULT_INT_H
#define ETPROF_RESULT_INT_H

#include "etprof_result.h"
#include "jw.h"

/* Writes node `n`'s value (not its key) with `w`, as etp_doc_render's JSON view does. */
void res_node_json(jw *w, const etp_node *n);
/* The i-th member of an object or array node (NULL past the end). */
const etp_node *res_node_child(const etp_node *n, size_t i);

#endif
