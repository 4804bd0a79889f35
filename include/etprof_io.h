/*
 * etprof_io.h - atomic output files: what every etprof output (a rendered document, a trace, a
 * report, an event stream) is written through, so that a reader sees the old file or the whole
 * new one, never a part.
 *
 * etp_outfile_open() on a real path writes into a new temporary file next to the target
 * ("<path>.XXXXXX.tmp", or ".etprof-XXXXXX.tmp" when that name would pass NAME_MAX; same
 * directory so the final rename() cannot cross file systems);
 * etp_outfile_commit() flushes, closes and renames it over the target in one step. Path NULL or
 * "-" means stdout: no temporary file, commit only flushes (stdout is not closed). A device or
 * FIFO target (e.g. /dev/null) is written directly.
 *
 * Ownership: every etp_outfile_open() that succeeded is followed by exactly one
 * etp_outfile_commit() or etp_outfile_abort(); both free the object. After a failed commit the
 * temporary file is removed and the target is untouched.
 *
 * Signals: while a temporary file exists, SIGINT, SIGTERM and SIGHUP (unless ignored) remove
 * every live temporary file and then end the process with the signal (the library installs
 * these handlers on the first open; at most 8 files may be live at once).
 *
 * Mode: the new file is created with mode 0666 minus the umask (like fopen "w"); when it
 * replaces a regular file, that file's permission bits are carried over. A symbolic link at the
 * target is followed (up to 40 links; ELOOP beyond) and the file it points to is replaced, in its
 * own directory: the link is never replaced. A link to a device or FIFO, or through /proc or
 * /dev/fd (/dev/stdout), is written in place; standard output named so is written through a
 * duplicate of its descriptor (its offset, its O_APPEND).
 *
 * SIGXFSZ: the first etp_outfile_open() (stdout too) sets SIGXFSZ to ignored when it is at its
 * default action, so that a write past RLIMIT_FSIZE fails with EFBIG (reported and cleaned up
 * like any failed write) instead of killing the process with the temporary file left behind.
 *
 * Threads: one etp_outfile is used by one thread at a time; distinct ones may be used from
 * different threads (the table of live temporary files is the library's only process-wide
 * state, kept for the signal handler).
 */
#ifndef ETPROF_IO_H
#define ETPROF_IO_H

#include <stdbool.h>
#include <stdio.h>

#include "etprof.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

typedef struct etp_outfile etp_outfile;

/* 0, or ETP_E_IO (cannot create the temporary file) / ETP_E_INTERNAL (out of memory) with `err`
 * naming `path`. On failure *s is NULL and nothing was created. */
int etp_outfile_open(etp_outfile **s, const char *path, etp_error *err);
FILE *etp_outfile_stream(etp_outfile *s);
/* Publishes the output. 0, or ETP_E_IO naming the target and the reason (write, close or rename
 * failed); in that case the temporary file is gone and the target is as it was. Frees `s`. */
int etp_outfile_commit(etp_outfile *s, etp_error *err);
/* The one message for output that could not be written: "<target>: write failed: <strerror>"
 * ("<stdout>" for standard output), ETP_E_IO. errnum 0 (unknown) gives "write error". */
void etp_outfile_write_error(const etp_outfile *s, int errnum, etp_error *err);
bool etp_outfile_is_stdout(const etp_outfile *s);
/* Discards the output (closes and unlinks the temporary file). Frees `s`; NULL is allowed. */
void etp_outfile_abort(etp_outfile *s);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_IO_H */
