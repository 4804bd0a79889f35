/* gzstream.c - a FILE that gzip-compresses what is written to it into another FILE
 * (etp_gzip_open; zlib's deflate with the gzip wrapper), for `etprof trace -o trace.json.gz`. */
#define _GNU_SOURCE /* fopencookie */
#include "etprof.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct gz_cookie {
    z_stream z;
    FILE *out;
    int err; /* errno of the first failure, 0 */
    unsigned char buf[1 << 16];
} gz_cookie;

/* Deflates the pending input with `flush`, writing every full buffer to the output. */
static int pump(gz_cookie *c, int flush) {
    for (;;) {
        c->z.next_out = c->buf;
        c->z.avail_out = sizeof c->buf;
        int r = deflate(&c->z, flush);
        if (r == Z_STREAM_ERROR) {
            c->err = EIO;
            return -1;
        }
        size_t have = sizeof c->buf - c->z.avail_out;
        if (have && fwrite(c->buf, 1, have, c->out) != have) {
            c->err = errno ? errno : EIO;
            return -1;
        }
        if (flush == Z_FINISH ? r == Z_STREAM_END : c->z.avail_out != 0) return 0;
    }
}

static ssize_t gz_write(void *ck, const char *data, size_t n) {
    gz_cookie *c = ck;
    if (c->err) {
        errno = c->err;
        return -1;
    }
    size_t done = 0;
    while (done < n) { /* avail_in is an unsigned int */
        size_t k = n - done > (1u << 30) ? (1u << 30) : n - done;
        c->z.next_in = (unsigned char *)(uintptr_t)(data + done);
        c->z.avail_in = (unsigned)k;
        if (pump(c, Z_NO_FLUSH)) {
            errno = c->err;
            return -1;
        }
        done += k;
    }
    return (ssize_t)n;
}

static int gz_close(void *ck) {
    gz_cookie *c = ck;
    int rc = 0;
    if (!c->err) {
        c->z.next_in = NULL;
        c->z.avail_in = 0;
        if (pump(c, Z_FINISH)) rc = -1;
    } else {
        rc = -1;
    }
    if (rc == 0 && fflush(c->out)) {
        c->err = errno ? errno : EIO;
        rc = -1;
    }
    int e = c->err;
    deflateEnd(&c->z);
    free(c);
    if (rc) errno = e ? e : EIO;
    return rc;
}

FILE *etp_gzip_open(FILE *out, etp_error *err) {
    gz_cookie *c = calloc(1, sizeof *c);
    if (!c) {
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return NULL;
    }
    c->out = out;
    /* windowBits 15 + 16: a gzip header and trailer (RFC 1952), what gunzip and Perfetto read */
    if (deflateInit2(&c->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(c);
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "zlib: deflateInit2 failed");
        return NULL;
    }
    cookie_io_functions_t io = {.read = NULL, .write = gz_write, .seek = NULL, .close = gz_close};
    FILE *f = fopencookie(c, "w", io);
    if (!f) {
        deflateEnd(&c->z);
        free(c);
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return NULL;
    }
    return f;
}
