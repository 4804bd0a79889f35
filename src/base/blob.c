/* blob.c - read-only input files: mmap for regular files, a bounded read for pipes. */
#include "etprof.h"
#include "blob.h"
#include "membudget.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads a pipe or device to its end, bounded by ETP_STDIN_MAX, or by `max` when lower (a side
 * input: the memory budget). With `check`, the first
 * ETP_BLOB_HEAD bytes (or all of a shorter input) are shown to it as soon as they are in, and a
 * rejection stops the read there: `/dev/zero` is not read to 4 GiB to find it is not a dump. */
static int read_all(etp_blob *b, int fd, etp_blob_check check, uint64_t max, etp_error *err) {
    size_t cap = 1 << 16, len = 0;
    bool checked = check == NULL;
    uint8_t *buf = malloc(cap);
    if (!buf) goto oom;
    for (;;) {
        if (len == cap) {
            /* Grow to at most one byte past the limit: enough to tell that the input is larger
             * (checked after each read), without doubling a 4 GiB buffer to 8 GiB first. */
            uint64_t want = (uint64_t)cap * 2;
            if (want > ETP_STDIN_MAX + 1) want = ETP_STDIN_MAX + 1;
            if (max < ETP_STDIN_MAX && want > max + 1) want = max + 1;
            if (want > SIZE_MAX) goto oom;
            uint8_t *nb = realloc(buf, (size_t)want);
            if (!nb) goto oom;
            buf = nb;
            cap = (size_t)want;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            etp_error_set(err, ETP_E_IO, b->name, -1, NULL, "read failed: %s", strerror(e));
            return ETP_E_IO;
        }
        if (r == 0) break;
        len += (size_t)r;
        if (!checked && len >= ETP_BLOB_HEAD) {
            checked = true;
            int rc = check(buf, len, b->name, err);
            if (rc) {
                free(buf);
                return rc;
            }
        }
        if (max < ETP_STDIN_MAX && len > max) {
            free(buf);
            etp_error_set(err, ETP_E_INPUT, b->name, (int64_t)max, NULL,
                          "more than %.1f MiB from a pipe or device, over the memory budget "
                          "(docs/verifier.md \"Memory\"): pass a regular file (mapped, not "
                          "read), or set ETPROF_MEMORY_BUDGET=MiB (0: no limit) to allow more "
                          "memory",
                          (double)max / 1048576.0);
            return ETP_E_INPUT;
        }
        if (len > ETP_STDIN_MAX) {
            free(buf);
            etp_error_set(err, ETP_E_IO, b->name, -1, NULL,
                          "input from a pipe is larger than the %llu-byte limit; pass a regular "
                          "file instead",
                          (unsigned long long)ETP_STDIN_MAX);
            return ETP_E_IO;
        }
    }
    b->data = buf;
    b->size = len;
    b->map_base = buf;
    b->kind = 2;
    return ETP_OK;
oom:
    free(buf);
    etp_error_set(err, ETP_E_INTERNAL, b->name, -1, NULL, "out of memory reading input");
    return ETP_E_INTERNAL;
}

int etp_blob_open(etp_blob *b, const char *path, etp_error *err) {
    return etp__blob_open_checked(b, path, NULL, err);
}

int etp__blob_open_checked(etp_blob *b, const char *path, etp_blob_check check,
                           etp_error *err) {
    return etp__blob_open_bounded(b, path, check, ETP_STDIN_MAX, err);
}

int etp__blob_open_bounded(etp_blob *b, const char *path, etp_blob_check check, uint64_t max,
                           etp_error *err) {
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", strcmp(path, "-") == 0 ? "<stdin>" : path);
    if (strcmp(path, "-") == 0) return read_all(b, STDIN_FILENO, check, max, err);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        etp_error_set(err, ETP_E_IO, b->name, -1, NULL, "cannot open: %s", strerror(errno));
        return ETP_E_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        etp_error_set(err, ETP_E_IO, b->name, -1, NULL, "cannot stat: %s", strerror(e));
        return ETP_E_IO;
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        etp_error_set(err, ETP_E_IO, b->name, -1, NULL, "is a directory, not a file");
        return ETP_E_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        int rc = read_all(b, fd, check, max, err);
        close(fd);
        return rc;
    }
    if (st.st_size == 0) {
        close(fd);
        b->data = (const uint8_t *)"";
        b->size = 0;
        b->kind = 3;
        return ETP_OK;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (m == MAP_FAILED) {
        etp_error_set(err, ETP_E_IO, b->name, -1, NULL, "cannot map: %s", strerror(e));
        return ETP_E_IO;
    }
    posix_madvise(m, (size_t)st.st_size, POSIX_MADV_SEQUENTIAL);
    b->data = m;
    b->size = (size_t)st.st_size;
    b->map_base = m;
    b->map_size = (size_t)st.st_size;
    b->kind = 1;
    return ETP_OK;
}

void etp_blob_borrow(etp_blob *b, const void *data, size_t size, const char *name) {
    memset(b, 0, sizeof *b);
    b->data = data;
    b->size = size;
    b->kind = 3;
    snprintf(b->name, sizeof b->name, "%s", name ? name : "<memory>");
}

void etp_blob_close(etp_blob *b) {
    if (b->kind == 1) munmap(b->map_base, b->map_size);
    else if (b->kind == 2) free(b->map_base);
    memset(b, 0, sizeof *b);
}
