/* zipload.h - libzip, loaded when an ETRecord is first opened (dlopen), not when etprof starts.
 *
 * Debian's libzip pulls in libcrypto, libbz2 and their relocations: linked normally they cost
 * every run of every command about 4 ms of start-up (bench/RESULTS.md "Start-up"), though only
 * ETRecord reading uses them. The reader calls libzip through this table instead; the library is
 * the same Debian package (libzip4, in the .deb's Depends), its soname found at configure time
 * (ETPROF_LIBZIP_SONAME). */
#ifndef ETPROF_ZIPLOAD_H
#define ETPROF_ZIPLOAD_H

#include "etprof.h"

#include <zip.h>

typedef struct etp_zipfns {
    zip_t *(*open)(const char *, int, int *);
    zip_t *(*open_from_source)(zip_source_t *, int, zip_error_t *);
    zip_source_t *(*source_buffer_create)(const void *, zip_uint64_t, int, zip_error_t *);
    void (*source_free)(zip_source_t *);
    void (*discard)(zip_t *);
    zip_int64_t (*get_num_entries)(zip_t *, zip_flags_t);
    void (*stat_init)(zip_stat_t *);
    int (*stat_index)(zip_t *, zip_uint64_t, zip_flags_t, zip_stat_t *);
    zip_file_t *(*fopen_index)(zip_t *, zip_uint64_t, zip_flags_t);
    zip_int64_t (*fread)(zip_file_t *, void *, zip_uint64_t);
    int (*fclose)(zip_file_t *);
    const char *(*file_strerror)(zip_file_t *);
    const char *(*strerror)(zip_t *);
    zip_error_t *(*get_error)(zip_t *);
    void (*error_clear)(zip_t *);
    void (*error_init)(zip_error_t *);
    void (*error_init_with_code)(zip_error_t *, int);
    void (*error_fini)(zip_error_t *);
    int (*error_code_zip)(const zip_error_t *);
    const char *(*error_strerror)(zip_error_t *);
} etp_zipfns;

/* The table, loaded once per process (thread-safe); NULL when libzip cannot be loaded, with an
 * ETP_E_IO error naming `file` (what was being opened), the library and how to install it. */
const etp_zipfns *etp__zip(const char *file, etp_error *err);
/* The same table, for calls made after etp__zip() returned it (pthread_once orders the two). */
extern etp_zipfns etp__zipfns;

#endif
