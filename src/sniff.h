/* sniff.h - names the kind of a file from its first bytes, for "wrong kind of file" errors. */
#ifndef ETPROF_SNIFF_H
#define ETPROF_SNIFF_H
#include <stddef.h>
#include <stdint.h>

typedef enum etp_file_kind {
    ETP_FILE_UNKNOWN = 0,
    ETP_FILE_ETDUMP,         /* ED00, size-prefixed or plain */
    ETP_FILE_PROGRAM,        /* ETxx at byte 4 */
    ETP_FILE_BUNDLED,        /* BP08 at byte 4 */
    ETP_FILE_ZIP,            /* an ETRecord is a ZIP */
    ETP_FILE_JSON,
    ETP_FILE_EMPTY,
    ETP_FILE_PTD,            /* FTxx at byte 4 (FH01 at byte 8): ExecuTorch named data */
} etp_file_kind;

etp_file_kind etp_sniff_kind(const uint8_t *data, size_t size);
/* Writes a short description ("an ExecuTorch program (.pte)") or "" when unknown. */
etp_file_kind etp_sniff(const uint8_t *data, size_t size, char *what, size_t cap);
#endif
