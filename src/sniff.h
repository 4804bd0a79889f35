/* sniff.h - names the kind of a file from its first bytes, for "wrong kind of file" errors. */
#ifndef ETPROF_SNIFF_H
#define ETPROF_SNIFF_H
#include <stddef.h>
#include <stdint.h>

#include "etprof.h" /* etp_file_kind, etp_sniff_kind() (public) */

/* Writes a short description ("an ExecuTorch program (.pte)") or "" when unknown. */
etp_file_kind etp_sniff(const uint8_t *data, size_t size, char *what, size_t cap);
#endif
