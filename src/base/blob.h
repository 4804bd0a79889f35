/* blob.h - mapping or reading an input whole, with a first-bytes check passed in by the reader
 * (internal; src/base/blob.c). The base layer knows no file kind: the check is a callback. */
#ifndef ETPROF_BLOB_H
#define ETPROF_BLOB_H

#include "etprof.h"

#include <stddef.h>
#include <stdint.h>

/* A check of an input's first bytes, before the rest is read: ETP_OK to read on, or an error
 * (set in `err`) that ends the read. `n` >= ETP_BLOB_HEAD. */
typedef int (*etp_blob_check)(const uint8_t *head, size_t n, const char *name, etp_error *err);
#define ETP_BLOB_HEAD 16
/* etp_blob_open() that, for a pipe or device (not a regular file: a mapping reads nothing up
 * front), shows the first ETP_BLOB_HEAD bytes to `check` (may be NULL) before reading on. */
int etp__blob_open_checked(etp_blob *b, const char *path, etp_blob_check check, etp_error *err);

/* The same, reading a pipe or device to at most `max` bytes (a side input: the memory budget,
 * docs/verifier.md "Memory"); more is refused, located at byte `max`. */
int etp__blob_open_bounded(etp_blob *b, const char *path, etp_blob_check check, uint64_t max,
                           etp_error *err);

#endif
