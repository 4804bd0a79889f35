/* sha256.h - SHA-256 (FIPS 180-4) of a buffer, for a file's identity in the run history and the
 * fleet export (internal; docs/dependencies.md says why it is written here). */
#ifndef ETPROF_SHA256_H
#define ETPROF_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct etp_sha256_ctx {
    uint32_t h[8];
    uint64_t bytes;   /* message length so far */
    uint8_t buf[64];  /* the partial block */
    size_t used;
} etp_sha256_ctx;

void etp_sha256_init(etp_sha256_ctx *c);
void etp_sha256_update(etp_sha256_ctx *c, const void *data, size_t n);
void etp_sha256_final(etp_sha256_ctx *c, uint8_t out[32]);
/* The digest of data[0..n) as 64 lower-case hex digits and a NUL. */
void etp_sha256_hex(const void *data, size_t n, char out[65]);

#endif
