/* zipload.c - libzip loaded on first use (src/base/zipload.h). */
#include "zipload.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifndef ETPROF_LIBZIP_SONAME
#define ETPROF_LIBZIP_SONAME "libzip.so.4"
#endif

etp_zipfns etp__zipfns;
static bool loaded;
static char why[200];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* dlsym's object pointer stored into a function pointer the POSIX way (the bytes copied), and
 * false when the symbol is missing */
static bool sym(void *h, const char *name, void *slot) {
    void *p = dlsym(h, name);
    if (!p) {
        snprintf(why, sizeof why, "%s has no %s", ETPROF_LIBZIP_SONAME, name);
        return false;
    }
    memcpy(slot, &p, sizeof p);
    return true;
}

static void load(void) {
    /* RTLD_LOCAL: libzip's symbols stay out of the global scope (a program that links another
     * libzip is not disturbed); the handle is never closed, the table lives as long as the
     * process */
    void *h = dlopen(ETPROF_LIBZIP_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "%s", e ? e : ETPROF_LIBZIP_SONAME " not found");
        return;
    }
    etp_zipfns f;
    if (!sym(h, "zip_open", &f.open) || !sym(h, "zip_open_from_source", &f.open_from_source) ||
        !sym(h, "zip_source_buffer_create", &f.source_buffer_create) ||
        !sym(h, "zip_source_free", &f.source_free) || !sym(h, "zip_discard", &f.discard) ||
        !sym(h, "zip_get_num_entries", &f.get_num_entries) ||
        !sym(h, "zip_stat_init", &f.stat_init) || !sym(h, "zip_stat_index", &f.stat_index) ||
        !sym(h, "zip_fopen_index", &f.fopen_index) || !sym(h, "zip_fread", &f.fread) ||
        !sym(h, "zip_fclose", &f.fclose) || !sym(h, "zip_file_strerror", &f.file_strerror) ||
        !sym(h, "zip_strerror", &f.strerror) || !sym(h, "zip_get_error", &f.get_error) ||
        !sym(h, "zip_error_clear", &f.error_clear) || !sym(h, "zip_error_init", &f.error_init) ||
        !sym(h, "zip_error_init_with_code", &f.error_init_with_code) ||
        !sym(h, "zip_error_fini", &f.error_fini) ||
        !sym(h, "zip_error_code_zip", &f.error_code_zip) ||
        !sym(h, "zip_error_strerror", &f.error_strerror)) {
        dlclose(h);
        return;
    }
    etp__zipfns = f;
    loaded = true;
}

const etp_zipfns *etp__zip(const char *file, etp_error *err) {
    pthread_once(&once, load);
    if (loaded) return &etp__zipfns;
    etp_error_set(err, ETP_E_IO, file, -1, "",
                  "cannot read an ETRecord: libzip could not be loaded (%s); install Debian's "
                  "libzip4 (apt install libzip4)",
                  why);
    return NULL;
}
