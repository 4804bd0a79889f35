/*
 * etprof_explain_doc.h - the `etprof explain` document: the findings of etp_explain_compute
 * (etprof_explain.h) rendered as the command shows them — per finding its question, the answer
 * in plain words with the file's own numbers (time in the display unit) and the facts as a JSON
 * object — plus the data-quality notes (docs/analyses.md "explain").
 *
 * etp_explain_doc() fills a document (etprof_result.h) that etp_doc_render() writes in every
 * format: JSON {findings: [{id, method, question, answer, facts}], notes, data_quality}; jsonl
 * one finding per line; csv/tsv one row per finding (id, method, question, answer); table and
 * md the title, each question and its answer, then the data-quality notes, wrapped to 98
 * columns (etp_doc_wrap_width). The command and the Python binding (Profile.explain().text)
 * call it.
 *
 * Ownership: nothing is kept. Errors: ETP_E_USAGE for a NULL argument, ETP_E_INTERNAL when out
 * of memory (the document is then not usable). Threads: reentrant; `r` and `rec` are only read.
 */
#ifndef ETPROF_EXPLAIN_DOC_H
#define ETPROF_EXPLAIN_DOC_H

#include <stdbool.h>

#include "etprof.h"
#include "etprof_explain.h"
#include "etprof_figures.h"
#include "etprof_qnn.h"
#include "etprof_result.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

struct etp_etrecord;

typedef struct etp_explain_doc_opts {
    const etp_disp *disp;     /* display units (time_unit, tick rate) */
    etp_format fmt;           /* table/md add the prose section (md: markdown headings) */
    const char *path;         /* the dump as named in the title */
    const etp_qnn_paths *qnn_paths; /* QNN's own files given (named in the answers), or NULL */
    etp_explain_options explain;    /* what etp_explain_compute is given (program_given, ...) */
    const struct etp_etrecord *rec; /* names the top operators' module and source, or NULL */
} etp_explain_doc_opts;

/* Computes the findings of `r` and fills `doc` (from etp_doc_new("explain", 1, FILE, PROG)). */
int etp_explain_doc(etp_doc *doc, const etp_ops_result *r, const etp_explain_doc_opts *o,
                    etp_error *err);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_EXPLAIN_DOC_H */
