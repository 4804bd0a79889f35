/* sniff.h - names the kind of a file from its first bytes, for "wrong kind of file" errors. */
#ifndef ETPROF_SNIFF_H
#define ETPROF_SNIFF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etprof.h" /* etp_file_kind, etp_sniff_kind() (public) */

/* Writes a short description ("an ExecuTorch program (.pte)") or "" when unknown. Besides the
 * magic bytes, the QNN artifacts are named from their first 4 KiB: the profiling JSON by its
 * header.artifact_type (optrace, QHAS, runtrace), qnn-profile-viewer's text and CSV output, the
 * DSP heap file (the kind stays ETP_FILE_JSON or ETP_FILE_UNKNOWN). */
etp_file_kind etp_sniff(const uint8_t *data, size_t size, char *what, size_t cap);
/* The descriptions of the QNN text files. */
#define ETP_SNIFF_VIEWER_TEXT "qnn-profile-viewer's text output"
#define ETP_SNIFF_VIEWER_CSV "qnn-profile-viewer's CSV output"
#define ETP_SNIFF_HEAP "a QNN DSP heap file (qnn_runtime_heap_profiling_path)"
/* Whether a text begins as qnn-profile-viewer's CSV output does (its first line). */
bool etp__looks_like_viewer_csv(const void *data, size_t len);
/* Appends "; this looks like <what data is>" to err's message when the bytes tell a kind other
 * than `expected` (one of the descriptions above, or NULL): for the errors of a reader that was
 * given the wrong kind of file. */
void etp__sniff_hint(etp_error *err, const void *data, size_t n, const char *expected);
/* The value of the first "artifact_type" member in the first 4 KiB (the QNN profiling JSON's
 * header.artifact_type): its length, *type pointing into data; 0 when there is none. */
size_t etp__qnn_artifact_of(const void *data, size_t n, const char **type);
/* "a QNN optrace" for the artifact type "OP_TRACE" (`len` bytes), likewise QHAS and RUN_TRACE;
 * NULL for any other. */
const char *etp__qnn_artifact_name(const char *type, size_t len);
#endif
