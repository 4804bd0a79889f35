/* sniff.c - file kind from magic bytes. */
#include "sniff.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

etp_file_kind etp_sniff_kind(const uint8_t *d, size_t n) {
    if (n == 0) return ETP_FILE_EMPTY;
    if (n >= 12 && memcmp(d + 8, "ED00", 4) == 0) return ETP_FILE_ETDUMP;
    if (n >= 8 && memcmp(d + 4, "ED00", 4) == 0) return ETP_FILE_ETDUMP;
    if (n >= 8 && d[4] == 'E' && d[5] == 'T' && isdigit(d[6]) && isdigit(d[7]))
        return ETP_FILE_PROGRAM;
    if (n >= 8 && memcmp(d + 4, "BP", 2) == 0 && isdigit(d[6]) && isdigit(d[7]))
        return ETP_FILE_BUNDLED;
    if (n >= 8 && d[4] == 'F' && d[5] == 'T' && isdigit(d[6]) && isdigit(d[7]))
        return ETP_FILE_PTD;
    if (n >= 4 && memcmp(d, "PK\x03\x04", 4) == 0) return ETP_FILE_ZIP;
    size_t i = 0;
    if (n >= 3 && memcmp(d, "\xef\xbb\xbf", 3) == 0) i = 3;
    while (i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t')) i++;
    if (i < n && (d[i] == '{' || d[i] == '[')) return ETP_FILE_JSON;
    return ETP_FILE_UNKNOWN;
}

etp_file_kind etp_sniff(const uint8_t *d, size_t n, char *what, size_t cap) {
    etp_file_kind k = etp_sniff_kind(d, n);
    const char *s = "";
    switch (k) {
    case ETP_FILE_ETDUMP: s = "an ETDump (.etdp)"; break;
    case ETP_FILE_PROGRAM: s = "an ExecuTorch program (.pte)"; break;
    case ETP_FILE_BUNDLED: s = "an ExecuTorch bundled program (.bpte)"; break;
    case ETP_FILE_PTD:
        s = "an ExecuTorch data file (.ptd, FlatTensor named data such as weights kept outside "
            "the program; it holds no profiling events)";
        break;
    case ETP_FILE_ZIP: s = "a ZIP archive (an ETRecord?)"; break;
    case ETP_FILE_JSON: s = "a JSON document"; break;
    case ETP_FILE_EMPTY: s = "an empty file"; break;
    default: break;
    }
    snprintf(what, cap, "%s", s);
    return k;
}
