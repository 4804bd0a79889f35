/* error.c - located, one-line errors (see etp_error in etprof.h). */
#include "etprof.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* An error is one line: control characters that came in with names from the input (a method
 * name holding a line break, say) are shown as spaces, as the table views show them. */
static void one_line(char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = ' ';
}

void etp_error_set(etp_error *err, int code, const char *file, int64_t offset, const char *path,
                   const char *fmt, ...) {
    if (!err) return;
    err->code = code;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->offset = offset;
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    one_line(err->file);
    one_line(err->path);
    one_line(err->msg);
}

int etp_error_format(const etp_error *err, char *buf, size_t cap) {
    char off[48] = "";
    if (err->offset >= 0) snprintf(off, sizeof off, "offset %lld: ", (long long)err->offset);
    return snprintf(buf, cap, "%s%s%s%s%s%s", err->file, err->file[0] ? ": " : "", off, err->path,
                    err->path[0] ? ": " : "", err->msg);
}

int etp_exit_code(int code) {
    switch (code) {
    case ETP_OK: return 0;
    case ETP_E_INPUT: return 1;
    case ETP_E_USAGE: return 2;
    case ETP_E_IO: return 3;
    default: return 4;
    }
}
