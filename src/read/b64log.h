/* b64log.h - ETDumps printed base64-encoded on a serial console (internal; docs/formats.md
 * "ETDumps in a serial log"). The Arm bare-metal executor runner prints, after its runs:
 *
 *     #[RUN THIS]
 *     # Writing debug_buffer.bin [base64]                      (only with a debug buffer)
 *     echo "<base64>" | base64 -d >debug_buffer.bin            (only with a debug buffer)
 *     # Writing etdump.bin [base64]
 *     echo "<base64>" | base64 -d >etdump.bin
 *     # Generate cpu cycle table with:
 *     python3 -m devtools.inspector.inspector_cli --etdump_path etdump.bin ...
 *     #[END]
 *
 * etp_dump_open() accepts such a log (and a file holding nothing but base64) in place of an
 * ETDump: it decodes the ETDump of the first block here and verifies it as any ETDump. */
#ifndef ETPROF_B64LOG_H
#define ETPROF_B64LOG_H

#include "etprof.h"

typedef struct etp_b64log_info {
    bool plain;        /* the whole file is base64 (no markers) */
    uint32_t dumps;    /* ETDump blocks in the log (1 for a plain file) */
    uint32_t used;     /* the one decoded, 1-based (always 1: the first) */
    uint64_t line;     /* 1-based line of its echo "..." line (1 for a plain file) */
    uint64_t first_lines[8]; /* the echo lines of the first (up to 8) blocks */
} etp_b64log_info;

/* True when `data` looks like a serial log holding an ETDump block (a "#[RUN THIS]" line) or a
 * plain base64 file (only base64 characters and white space, at least 16 of them). Cheap: the
 * marker search, or one pass over the bytes. */
bool etp__b64log_detect(const uint8_t *data, size_t size);

/* Decodes the first ETDump of the log. On success *out (malloc'ed, the caller frees it) holds
 * *out_len decoded bytes (not yet verified as an ETDump). Errors are ETP_E_INPUT, located in
 * `file` at the byte offset of the offending character or line, with its line number in the
 * message ("line 12, column 40: invalid base64 character '*'"); ETP_E_INTERNAL when out of
 * memory. */
int etp__b64log_decode(const uint8_t *data, size_t size, const char *file, uint8_t **out,
                       size_t *out_len, etp_b64log_info *info, etp_error *err);

/* Plain base64 (a backend's metadata: VGF neural statistics blobs): decodes the n characters of
 * s (white space ignored) into out (room for n / 4 * 3 + 3 bytes). ETP_OK, or ETP_E_INPUT (a bad
 * character, truncated, empty). */
int etp__b64_decode(const uint8_t *s, size_t n, uint8_t *out, size_t *out_len);

#endif
