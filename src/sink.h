/* sink.h - atomic output files (internal).
 *
 * sink_open() on a real path writes into a new temporary file next to the target
 * ("<path>.XXXXXX.tmp", same directory so the final rename() cannot cross file systems);
 * sink_commit() flushes, closes and renames it over the target in one step, so readers see
 * either the old file or the complete new one, never a partial file. Path NULL or "-" means
 * stdout: no temporary file, commit only flushes (stdout is not closed).
 *
 * Every sink_open() that succeeded must be followed by exactly one sink_commit() or
 * sink_abort(): callers call sink_abort() on every error path. SIGINT, SIGTERM and SIGHUP
 * (unless ignored) remove every live temporary file and then end the process with the signal. Both free the sink. After a failed commit the temporary file is removed too, and the
 * target is untouched.
 *
 * The new file is created with mode 0666 minus the umask (like fopen "w"); when it replaces a
 * regular file, that file's permission bits are carried over. A symbolic link at the target is replaced, not followed.
 */
#ifndef ETPROF_SINK_H
#define ETPROF_SINK_H

#include <stdbool.h>
#include <stdio.h>

#include "etprof.h"

typedef struct sink sink;

/* 0, or ETP_E_IO (cannot create the temporary file) / ETP_E_INTERNAL (out of memory) with `err`
 * naming `path`. On failure *s is NULL and nothing was created. */
int sink_open(sink **s, const char *path, etp_error *err);
FILE *sink_file(sink *s);
/* Publishes the output. 0, or ETP_E_IO naming the target and the reason (write, close or rename
 * failed); in that case the temporary file is gone and the target is as it was. Frees `s`. */
int sink_commit(sink *s, etp_error *err);
/* The one message for output that could not be written: "<target>: write failed: <strerror>"
 * ("<stdout>" for standard output), ETP_E_IO. errnum 0 (unknown) gives "write error". */
void sink_write_error(const sink *s, int errnum, etp_error *err);
bool sink_is_stdout(const sink *s);
/* Discards the output (closes and unlinks the temporary file). Frees `s`; NULL is allowed. */
void sink_abort(sink *s);

#endif /* ETPROF_SINK_H */
