/* sniff.c - file kind from magic bytes. */
#include "sniff.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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

#define SNIFF_HEAD 4096 /* the bytes a text file's kind is told from */

/* `needle` in the first SNIFF_HEAD bytes: its position, or NULL. */
static const uint8_t *head_find(const uint8_t *d, size_t n, const char *needle) {
    size_t m = strlen(needle);
    if (n > SNIFF_HEAD) n = SNIFF_HEAD;
    for (size_t i = 0; i + m <= n; i++)
        if (d[i] == (uint8_t)needle[0] && memcmp(d + i, needle, m) == 0) return d + i;
    return NULL;
}

static bool head_is_text(const uint8_t *d, size_t n) {
    if (n > SNIFF_HEAD) n = SNIFF_HEAD;
    for (size_t i = 0; i < n; i++)
        if (d[i] < 0x20 && d[i] != '\n' && d[i] != '\r' && d[i] != '\t') return false;
    return n > 0;
}

size_t etp__qnn_artifact_of(const void *data, size_t n, const char **type) {
    const uint8_t *d = data;
    const uint8_t *p = head_find(d, n, "\"artifact_type\"");
    if (!p) return 0;
    const uint8_t *end = d + (n > SNIFF_HEAD ? SNIFF_HEAD : n);
    p += strlen("\"artifact_type\"");
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ':')) p++;
    if (p >= end || *p != '"') return 0;
    const uint8_t *v = ++p;
    while (p < end && *p != '"' && p - v < 40 && (isalnum(*p) || *p == '_')) p++;
    if (p >= end || *p != '"' || p == v) return 0;
    *type = (const char *)v;
    return (size_t)(p - v);
}

/* The QNN profiling JSON artifacts name their kind in header.artifact_type, near the start
 * (docs/qnn-inputs.md). */
static void json_kind(const uint8_t *d, size_t n, char *what, size_t cap) {
    const char *v;
    size_t len = etp__qnn_artifact_of(d, n, &v);
    if (!len) {
        if (head_find(d, n, "\"traceEvents\""))
            snprintf(what, cap, "a Chrome or Perfetto trace (JSON with traceEvents)");
        return;
    }
    const char *name = etp__qnn_artifact_name(v, len);
    if (name) snprintf(what, cap, "%s (JSON, artifact type %.*s)", name, (int)len, v);
    else snprintf(what, cap, "a QNN profiling JSON of artifact type %.*s", (int)len, v);
}

const char *etp__qnn_artifact_name(const char *type, size_t len) {
    static const struct {
        const char *type, *name;
    } names[] = {
        {"OP_TRACE", "a QNN optrace"},
        {"QHAS", "a QNN HTP analysis summary"},
        {"RUN_TRACE", "a QNN runtrace"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].type) == len && memcmp(names[i].type, type, len) == 0)
            return names[i].name;
    return NULL;
}

bool etp__looks_like_viewer_csv(const void *data, size_t len) {
    const char *p = data, *end = p + len;
    while (p < end && isspace((unsigned char)*p)) p++;
    size_t n = (size_t)(end - p);
    return (n >= 24 && strncasecmp(p, "input log file location,", 24) == 0) ||
           (n >= 14 && strncasecmp(p, "Msg Timestamp,", 14) == 0);
}

/* The text files of the QNN tools and runtime: qnn-profile-viewer's text and CSV output and
 * the runtime's DSP heap file. */
static void text_kind(const uint8_t *d, size_t n, char *what, size_t cap) {
    if (!head_is_text(d, n)) return;
    if (etp__looks_like_viewer_csv(d, n))
        snprintf(what, cap, "%s", ETP_SNIFF_VIEWER_CSV);
    else if (head_find(d, n, "qnn-profile-viewer") || head_find(d, n, "Qnn Init/Prepare"))
        snprintf(what, cap, "%s", ETP_SNIFF_VIEWER_TEXT);
    else if (head_find(d, n, "before_context_created") || head_find(d, n, "after_context_freed"))
        snprintf(what, cap, "%s", ETP_SNIFF_HEAP);
}

void etp__sniff_hint(etp_error *err, const void *data, size_t n, const char *expected) {
    char what[160];
    etp_sniff(data, n, what, sizeof what);
    if (!err || !what[0] || (expected && strcmp(what, expected) == 0)) return;
    size_t used = strlen(err->msg);
    if (used < sizeof err->msg)
        snprintf(err->msg + used, sizeof err->msg - used, "; this looks like %s", what);
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
    if (k == ETP_FILE_JSON) json_kind(d, n, what, cap);
    else if (k == ETP_FILE_UNKNOWN) text_kind(d, n, what, cap);
    return k;
}
