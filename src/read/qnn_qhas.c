/*
 * qnn_qhas.c - QHAS reader (`*_qnn_htp_analysis_summary.json`, artifact_type "QHAS"), and the
 * helpers the other qnn_*.c readers share: file loading, located JSON getters, string pool.
 */
#include "sniff.h"
#include "qnn.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* =============================================================================================
 * File loading
 * =========================================================================================== */

/* QNN inputs are text (JSON, viewer logs, heap dumps): in a stream (pipe, device, stdin), a byte
 * below 0x20 other than tab, line feed, carriage return, form feed or escape in the first
 * SNIFF_TEXT bytes means another kind of file (a binary, /dev/zero, /dev/urandom, UTF-16):
 * rejected before the rest is read. A regular file is bounded by its size; its readers locate a
 * binary byte by line and column. */
#define SNIFF_TEXT 4096
static bool not_text_byte(unsigned char c) {
    return c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b;
}

/* A JSON document read from a stream is checked as it arrives (json_scan), so that a stream
 * that cannot be a QNN JSON file is rejected before the rest is read: its first byte other than
 * white space must open an object, and the structural characters are counted against the
 * readers' budget (json_over_budget) while reading, not after the end. */
typedef struct json_scan {
    uint64_t max;   /* the budget of values and keys; 0: no check (not JSON, or a regular file) */
    uint64_t count;
    const char *artifact; /* "QHAS", "optrace", ... for the message */
    bool started, in_str, esc;
} json_scan;

static int json_scan_bytes(json_scan *js, const char *b, size_t from, size_t to, const char *path,
                           etp_error *err) {
    for (size_t i = from; i < to; i++) {
        char ch = b[i];
        if (!js->started) {
            if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') continue;
            if (ch != '{') {
                etp_error_set(err, ETP_E_INPUT, path, (int64_t)i, "",
                              "not a JSON object (a QNN JSON file starts with '{'): byte 0x%02x",
                              (unsigned char)ch);
                return ETP_E_INPUT;
            }
            js->started = true;
        }
        if (js->in_str) {
            if (js->esc) js->esc = false;
            else if (ch == '\\') js->esc = true;
            else if (ch == '"') js->in_str = false;
        } else if (ch == '"') {
            js->in_str = true;
        } else if (ch == '{' || ch == '[' || ch == ',' || ch == ':') {
            if (++js->count > js->max) {
                etp_error_set(err, ETP_E_INPUT, path, (int64_t)i, "",
                              "more than %llu JSON values and keys: over the %s reader's memory "
                              "budget (docs/qnn-inputs.md \"Memory\"; "
                              "ETPROF_QNN_JSON_MAX_VALUES=N raises it)",
                              (unsigned long long)js->max, js->artifact);
                return ETP_E_INPUT;
            }
        }
    }
    return ETP_OK;
}

static int slurp_fd(int fd, const char *path, size_t hint, uint64_t limit, bool sniff,
                    uint64_t json_max, const char *artifact, char **buf, size_t *len,
                    etp_error *err) {
    size_t cap = hint ? hint : 65536, n = 0, sniffed = sniff ? 0 : SNIFF_TEXT, scanned = 0;
    json_scan js = {.max = sniff ? json_max : 0, .artifact = artifact};
    char *b = malloc(cap + 1);
    if (!b) goto nomem;
    for (;;) {
        for (; sniffed < n && sniffed < SNIFF_TEXT; sniffed++)
            if (not_text_byte((unsigned char)b[sniffed])) {
                unsigned char c = (unsigned char)b[sniffed];
                char what[160];
                etp_sniff((const uint8_t *)b, n, what, sizeof what);
                free(b);
                etp_error_set(err, ETP_E_INPUT, path, (int64_t)sniffed, "",
                              "not a text file (QNN JSON or log): byte 0x%02x%s%s", c,
                              what[0] ? "; this looks like " : "", what);
                return ETP_E_INPUT;
            }
        /* the JSON check once the text sniff is done with these bytes (its error first) */
        if (js.max && scanned < n && sniffed >= SNIFF_TEXT) {
            if (json_scan_bytes(&js, b, scanned, n, path, err)) {
                free(b);
                return ETP_E_INPUT;
            }
            scanned = n;
        }
        if (n == cap) {
            if ((uint64_t)cap >= limit) {
                /* Full: one more byte tells whether the input is larger than allowed. */
                char extra;
                ssize_t r;
                do r = read(fd, &extra, 1);
                while (r < 0 && errno == EINTR);
                if (r == 0) break;
                free(b);
                etp_error_set(err, ETP_E_IO, path, -1, "",
                              "input larger than %" PRIu64 " bytes", limit);
                return ETP_E_IO;
            }
            uint64_t want = (uint64_t)cap * 2;
            if (want > limit) want = limit;
            if (want >= SIZE_MAX) goto nomem;
            char *nb = realloc(b, (size_t)want + 1);
            if (!nb) goto nomem;
            b = nb;
            cap = (size_t)want;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(b);
            etp_error_set(err, ETP_E_IO, path, -1, "", "cannot read: %s", strerror(e));
            return ETP_E_IO;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return ETP_OK;
nomem:
    free(b);
    etp_error_set(err, ETP_E_INTERNAL, path, -1, "", "out of memory");
    return ETP_E_INTERNAL;
}

static int slurp_path(const char *path, uint64_t json_max, const char *artifact, char **buf,
                      size_t *len, etp_error *err) {
    *buf = NULL;
    *len = 0;
    if (!path) {
        etp_error_set(err, ETP_E_USAGE, "", -1, "", "no file name given");
        return ETP_E_USAGE;
    }
    if (strcmp(path, "-") == 0)
        return slurp_fd(0, "-", 0, ETP_STDIN_MAX, true, json_max, artifact, buf, len, err);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        etp_error_set(err, ETP_E_IO, path, -1, "", "cannot open: %s", strerror(errno));
        return ETP_E_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        etp_error_set(err, ETP_E_IO, path, -1, "", "cannot stat: %s", strerror(e));
        return ETP_E_IO;
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        etp_error_set(err, ETP_E_IO, path, -1, "", "is a directory");
        return ETP_E_IO;
    }
    /* Regular files: read what is there (a file growing meanwhile is still bounded). Other
     * readable files (pipes, devices): the stdin limit. */
    uint64_t limit = ETP_STDIN_MAX;
    size_t hint = 0;
    if (S_ISREG(st.st_mode)) {
        if ((uint64_t)st.st_size >= (uint64_t)SIZE_MAX / 2) {
            close(fd);
            etp_error_set(err, ETP_E_IO, path, -1, "", "file too large");
            return ETP_E_IO;
        }
        if ((uint64_t)st.st_size > limit) limit = (uint64_t)st.st_size;
        hint = st.st_size > 0 ? (size_t)st.st_size : 0;
    }
    int rc = slurp_fd(fd, path, hint, limit, !S_ISREG(st.st_mode), json_max, artifact, buf, len,
                      err);
    close(fd);
    return rc;
}

int etp_qnn_slurp(const char *path, char **buf, size_t *len, etp_error *err) {
    return slurp_path(path, 0, NULL, buf, len, err);
}

static int load(const etp_qnn_src *src, uint64_t json_max, const char *artifact, char **buf,
                size_t *len, etp_error *err) {
    if (!src->data) return slurp_path(src->name, json_max, artifact, buf, len, err);
    *buf = NULL;
    *len = 0;
    if (src->len >= SIZE_MAX / 2 || !(*buf = malloc(src->len + 1))) {
        etp_error_set(err, ETP_E_INTERNAL, src->name, -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    if (src->len) memcpy(*buf, src->data, src->len);
    (*buf)[src->len] = '\0';
    *len = src->len;
    return ETP_OK;
}

int etp_qnn_load(const etp_qnn_src *src, char **buf, size_t *len, etp_error *err) {
    return load(src, 0, NULL, buf, len, err);
}

/* =============================================================================================
 * JSON location context and getters
 * =========================================================================================== */

void etp_qnn_jctx_init(etp_qnn_jctx *c, const char *file, etp_error *err) {
    c->file = file;
    c->err = err;
    c->len = 0;
    c->path[0] = '\0';
}

static size_t jappend(etp_qnn_jctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static size_t jappend(etp_qnn_jctx *c, const char *fmt, ...) {
    size_t mark = c->len;
    if (c->len < sizeof c->path - 1) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(c->path + c->len, sizeof c->path - c->len, fmt, ap);
        va_end(ap);
        if (n > 0) {
            c->len += (size_t)n;
            if (c->len > sizeof c->path - 1) c->len = sizeof c->path - 1;
        }
    }
    return mark;
}

size_t etp_qnn_jpush_key(etp_qnn_jctx *c, const char *key) {
    /* Keys that would make a dotted path ambiguous are written as ["key"]. */
    if (!*key || strpbrk(key, ".[]\"")) return jappend(c, "[\"%.60s\"]", key);
    return c->len ? jappend(c, ".%s", key) : jappend(c, "%s", key);
}

size_t etp_qnn_jpush_index(etp_qnn_jctx *c, size_t index) { return jappend(c, "[%zu]", index); }

void etp_qnn_jpop(etp_qnn_jctx *c, size_t mark) {
    if (mark <= c->len) {
        c->len = mark;
        c->path[mark] = '\0';
    }
}

/* Copies `s` into `dst` replacing control and non-ASCII bytes by '?', so messages stay one
 * printable line whatever the input contained. */
static void sanitize(char *dst, size_t cap, const char *s) {
    size_t i = 0;
    for (; s && *s && i + 1 < cap; s++) {
        unsigned char ch = (unsigned char)*s;
        dst[i++] = (ch < 0x20 || ch >= 0x7f) ? '?' : (char)ch;
    }
    if (cap) dst[i] = '\0';
}

int etp_qnn_jfail(etp_qnn_jctx *c, const char *key, const char *fmt, ...) {
    char msg[ETP_ERR_MSG_MAX], clean[ETP_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sanitize(clean, sizeof clean, msg);
    size_t mark = key ? etp_qnn_jpush_key(c, key) : c->len;
    etp_error_set(c->err, ETP_E_INPUT, c->file, -1, c->path, "%s", clean);
    etp_qnn_jpop(c, mark);
    return ETP_E_INPUT;
}

int etp_qnn_jnomem(etp_qnn_jctx *c) {
    etp_error_set(c->err, ETP_E_INTERNAL, c->file, -1, c->path, "out of memory");
    return ETP_E_INTERNAL;
}

const char *etp_qnn_json_type_name(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "an unknown value";
}

/* Member lookup; NULL when absent or null. `*missing` tells which. */
static json_t *member(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                      int *rc) {
    json_t *v = json_object_get(obj, key);
    *rc = ETP_OK;
    if (!v || json_is_null(v)) {
        if (required) *rc = etp_qnn_jfail(c, key, v ? "required key is null" : "missing required key");
        return NULL;
    }
    return v;
}

static bool real_to_i64(double d, int64_t *out) {
    if (!isfinite(d) || d != floor(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
        return false;
    *out = (int64_t)d;
    return true;
}

int etp_qnn_jget_i64(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                     etp_qnn_i64 *out) {
    int rc;
    out->v = 0;
    out->has = false;
    json_t *v = member(c, obj, key, required, &rc);
    if (!v) return rc;
    if (json_is_integer(v)) {
        out->v = (int64_t)json_integer_value(v);
    } else if (json_is_real(v)) {
        if (!real_to_i64(json_real_value(v), &out->v))
            return etp_qnn_jfail(c, key, "expected an integer, got %g", json_real_value(v));
    } else {
        return etp_qnn_jfail(c, key, "expected an integer, got %s", etp_qnn_json_type_name(v));
    }
    out->has = true;
    return ETP_OK;
}

int etp_qnn_jget_f64(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                     etp_qnn_f64 *out) {
    int rc;
    out->v = 0;
    out->has = false;
    json_t *v = member(c, obj, key, required, &rc);
    if (!v) return rc;
    if (!json_is_number(v))
        return etp_qnn_jfail(c, key, "expected a number, got %s", etp_qnn_json_type_name(v));
    out->v = json_number_value(v);
    out->has = true;
    return ETP_OK;
}

int etp_qnn_jget_bool(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                      etp_qnn_flag *out) {
    int rc;
    out->v = false;
    out->has = false;
    json_t *v = member(c, obj, key, required, &rc);
    if (!v) return rc;
    if (!json_is_boolean(v))
        return etp_qnn_jfail(c, key, "expected a boolean, got %s", etp_qnn_json_type_name(v));
    out->v = json_is_true(v);
    out->has = true;
    return ETP_OK;
}

int etp_qnn_jget_str(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                     const char **out) {
    int rc;
    *out = NULL;
    json_t *v = member(c, obj, key, required, &rc);
    if (!v) return rc;
    if (!json_is_string(v))
        return etp_qnn_jfail(c, key, "expected a string, got %s", etp_qnn_json_type_name(v));
    *out = json_string_value(v);
    return ETP_OK;
}

bool etp_qnn_parse_opid_str(const char *s, uint64_t *out) {
    uint64_t v = 0;
    if (!s || !*s) return false;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        const char *p = s + 2;
        size_t n = 0;
        for (; *p; p++, n++) {
            int d;
            if (*p >= '0' && *p <= '9') d = *p - '0';
            else if (*p >= 'a' && *p <= 'f') d = *p - 'a' + 10;
            else if (*p >= 'A' && *p <= 'F') d = *p - 'A' + 10;
            else return false;
            if (n >= 16) return false;
            v = (v << 4) | (uint64_t)d;
        }
        if (n == 0) return false;
    } else {
        for (const char *p = s; *p; p++) {
            if (*p < '0' || *p > '9') return false;
            uint64_t d = (uint64_t)(*p - '0');
            if (v > (UINT64_MAX - d) / 10) return false;
            v = v * 10 + d;
        }
    }
    *out = v;
    return true;
}

int etp_qnn_jget_opid(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                      uint64_t *out, bool *has) {
    int rc;
    *out = 0;
    if (has) *has = false;
    json_t *v = member(c, obj, key, required, &rc);
    if (!v) return rc;
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0)
            return etp_qnn_jfail(c, key, "op id is negative");
        *out = (uint64_t)json_integer_value(v);
    } else if (json_is_string(v)) {
        if (!etp_qnn_parse_opid_str(json_string_value(v), out))
            return etp_qnn_jfail(c, key, "malformed op id \"%.40s\" (expected 0x + 1..16 hex "
                                 "digits or a decimal number)", json_string_value(v));
    } else {
        return etp_qnn_jfail(c, key, "expected an op id (hex string or integer), got %s",
                             etp_qnn_json_type_name(v));
    }
    if (has) *has = true;
    return ETP_OK;
}

int etp_qnn_jget_obj(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                     json_t **out) {
    int rc;
    *out = NULL;
    json_t *v = member(c, obj, key, required, &rc);
    if (!v) return rc;
    if (!json_is_object(v))
        return etp_qnn_jfail(c, key, "expected an object, got %s", etp_qnn_json_type_name(v));
    *out = v;
    return ETP_OK;
}

int etp_qnn_jget_arr(etp_qnn_jctx *c, const json_t *obj, const char *key, bool required,
                     json_t **out) {
    int rc;
    *out = NULL;
    json_t *v = member(c, obj, key, required, &rc);
    if (!v) return rc;
    if (!json_is_array(v))
        return etp_qnn_jfail(c, key, "expected an array, got %s", etp_qnn_json_type_name(v));
    *out = v;
    return ETP_OK;
}

/* The JSON readers' budget (docs/qnn-inputs.md, "Memory"): jansson builds the whole document
 * in memory, tens of bytes per value, so the structural characters `{` `[` `,` `:` outside
 * strings (about one per value or key) are counted before parsing, and a file with more than
 * the budget is rejected at the byte where the count passes it. ETPROF_QNN_JSON_MAX_VALUES
 * (a positive integer) replaces the default. Returns that offset, or -1 within the budget. */
static uint64_t json_budget(void) {
    const char *e = getenv("ETPROF_QNN_JSON_MAX_VALUES");
    if (e && *e) {
        char *end;
        unsigned long long v = strtoull(e, &end, 10);
        if (!*end && v > 0) return v;
    }
    return ETP_QNN_JSON_MAX_VALUES;
}

static int64_t json_over_budget(const char *b, size_t n, uint64_t max) {
    uint64_t count = 0;
    bool in_str = false;
    for (size_t i = 0; i < n; i++) {
        char ch = b[i];
        if (in_str) {
            if (ch == '\\') i++;
            else if (ch == '"') in_str = false;
        } else if (ch == '"') {
            in_str = true;
        } else if (ch == '{' || ch == '[' || ch == ',' || ch == ':') {
            if (++count > max) return (int64_t)i;
        }
    }
    return -1;
}

int etp_qnn_json_open(const etp_qnn_src *src, const char *artifact, json_t **root,
                      etp_qnn_version *version, etp_error *err) {
    const char *path = src->name;
    char *buf;
    size_t len;
    *root = NULL;
    memset(version, 0, sizeof *version);
    uint64_t budget = json_budget();
    int rc = load(src, budget, artifact, &buf, &len, err);
    if (rc) return rc;
    if (len == 0) {
        free(buf);
        etp_error_set(err, ETP_E_INPUT, path, 0, "", "empty file");
        return ETP_E_INPUT;
    }
    int64_t over = json_over_budget(buf, len, budget);
    if (over >= 0) {
        free(buf);
        etp_error_set(err, ETP_E_INPUT, path, over, "",
                      "more than %llu JSON values and keys: over the %s reader's memory budget "
                      "(docs/qnn-inputs.md \"Memory\"; ETPROF_QNN_JSON_MAX_VALUES=N raises it)",
                      (unsigned long long)budget, artifact);
        return ETP_E_INPUT;
    }
    json_error_t je;
    /* Duplicate keys would make "which value was used" ambiguous: rejected (none in real files). */
    json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    /* what the file is, for an error: another QNN artifact, an ETDump, a program (nothing
     * when it says it is the artifact expected: then it is one, broken) */
    char what[160];
    const char *said;
    size_t said_n = etp__qnn_artifact_of(buf, len, &said);
    if (said_n == strlen(artifact) && memcmp(said, artifact, said_n) == 0) what[0] = 0;
    else etp_sniff((const uint8_t *)buf, len, what, sizeof what);
    free(buf);
    if (!doc) {
        char text[JSON_ERROR_TEXT_LENGTH];
        sanitize(text, sizeof text, je.text);
        if (json_error_code(&je) == json_error_out_of_memory) {
            etp_error_set(err, ETP_E_INTERNAL, path, -1, "", "out of memory");
            return ETP_E_INTERNAL;
        }
        etp_error_set(err, ETP_E_INPUT, path, je.position, "",
                      "invalid JSON at line %d column %d: %s%s%s", je.line, je.column, text,
                      what[0] ? "; this looks like " : "", what);
        return ETP_E_INPUT;
    }
    etp_qnn_jctx c;
    etp_qnn_jctx_init(&c, path, err);
    if (!json_is_object(doc)) {
        rc = etp_qnn_jfail(&c, NULL, "expected a JSON object at the top level, got %s",
                           etp_qnn_json_type_name(doc));
        goto fail;
    }
    json_t *header, *ver;
    const char *type;
    if ((rc = etp_qnn_jget_obj(&c, doc, "header", true, &header))) goto fail;
    size_t m = etp_qnn_jpush_key(&c, "header");
    if ((rc = etp_qnn_jget_str(&c, header, "artifact_type", true, &type))) goto fail;
    if (strcmp(type, artifact) != 0) {
        const char *is = etp__qnn_artifact_name(type, strlen(type)),
                   *want = etp__qnn_artifact_name(artifact, strlen(artifact));
        rc = etp_qnn_jfail(&c, "artifact_type",
                           "artifact type is \"%.60s\", expected \"%s\"%s%s%s%s", type, artifact,
                           is ? ": this is " : "", is ? is : "", is && want ? ", not " : "",
                           is && want ? want : "");
        goto fail;
    }
    if ((rc = etp_qnn_jget_obj(&c, header, "version", false, &ver))) goto fail;
    if (ver) {
        etp_qnn_i64 a, b, d;
        size_t m2 = etp_qnn_jpush_key(&c, "version");
        if ((rc = etp_qnn_jget_i64(&c, ver, "major", false, &a)) ||
            (rc = etp_qnn_jget_i64(&c, ver, "minor", false, &b)) ||
            (rc = etp_qnn_jget_i64(&c, ver, "patch", false, &d)))
            goto fail;
        etp_qnn_jpop(&c, m2);
        version->major = a.v;
        version->minor = b.v;
        version->patch = d.v;
        version->has = true;
    }
    etp_qnn_jpop(&c, m);
    *root = doc;
    return ETP_OK;
fail:
    json_decref(doc);
    return rc;
}

/* =============================================================================================
 * String pool
 * =========================================================================================== */

typedef struct pool_chunk {
    struct pool_chunk *next;
    size_t used, cap;
    char data[];
} pool_chunk;

typedef struct strpool {
    pool_chunk *chunks;
    const char **slots; /* open addressing, NULL = empty */
    size_t nslots, count;
} strpool;

void *etp_qnn_pool_new(void) { return calloc(1, sizeof(strpool)); }

void etp_qnn_pool_free(void *pool) {
    strpool *p = pool;
    if (!p) return;
    for (pool_chunk *c = p->chunks, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(p->slots);
    free(p);
}

static uint64_t hash_bytes(const char *s, size_t len) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static bool pool_rehash(strpool *p) {
    size_t n = p->nslots ? p->nslots * 2 : 256;
    const char **s = calloc(n, sizeof *s);
    if (!s) return false;
    for (size_t i = 0; i < p->nslots; i++) {
        const char *str = p->slots[i];
        if (!str) continue;
        size_t j = hash_bytes(str, strlen(str)) & (n - 1);
        while (s[j]) j = (j + 1) & (n - 1);
        s[j] = str;
    }
    free(p->slots);
    p->slots = s;
    p->nslots = n;
    return true;
}

const char *etp_qnn_pool_intern(void *pool, const char *s, size_t len) {
    strpool *p = pool;
    if ((p->count + 1) * 2 > p->nslots && !pool_rehash(p)) return NULL;
    size_t j = hash_bytes(s, len) & (p->nslots - 1);
    for (; p->slots[j]; j = (j + 1) & (p->nslots - 1)) {
        const char *t = p->slots[j];
        if (strncmp(t, s, len) == 0 && t[len] == '\0' && memchr(s, 0, len) == NULL) return t;
    }
    pool_chunk *c = p->chunks;
    if (!c || c->cap - c->used < len + 1) {
        size_t cap = len + 1 > 65536 ? len + 1 : 65536;
        pool_chunk *nc = malloc(sizeof *nc + cap);
        if (!nc) return NULL;
        nc->next = p->chunks;
        nc->used = 0;
        nc->cap = cap;
        p->chunks = c = nc;
    }
    char *dst = c->data + c->used;
    memcpy(dst, s, len);
    dst[len] = '\0';
    c->used += len + 1;
    p->slots[j] = dst;
    p->count++;
    return dst;
}

int etp_qnn_grow(void *ptr, uint32_t *cap, uint32_t need, size_t elem) {
    void *cur;
    memcpy(&cur, ptr, sizeof cur);
    if (need <= *cap) return ETP_OK;
    uint64_t n = *cap ? (uint64_t)*cap * 2 : 16;
    while (n < need) n *= 2;
    if (n > UINT32_MAX) n = UINT32_MAX;
    if (n < need || n > SIZE_MAX / elem) return ETP_E_INTERNAL;
    void *nb = realloc(cur, (size_t)n * elem);
    if (!nb) return ETP_E_INTERNAL;
    memcpy(ptr, &nb, sizeof nb);
    *cap = (uint32_t)n;
    return ETP_OK;
}

/* =============================================================================================
 * QHAS reader
 * =========================================================================================== */

typedef struct qhas_reader {
    etp_qnn_jctx c;
    etp_qnn_qhas *q;
    uint32_t dims_len, dims_cap;
} qhas_reader;

/* `section`.data as an array (section object required when present). Returns the array or NULL
 * when the section is absent. */
static int section_array(qhas_reader *r, const json_t *data, const char *name, json_t **arr,
                         size_t *mark) {
    json_t *sec;
    int rc;
    *arr = NULL;
    if ((rc = etp_qnn_jget_obj(&r->c, data, name, false, &sec)) || !sec) return rc;
    *mark = etp_qnn_jpush_key(&r->c, name);
    if ((rc = etp_qnn_jget_arr(&r->c, sec, "data", true, arr))) return rc;
    etp_qnn_jpush_key(&r->c, "data");
    return ETP_OK;
}

/* Element i of an array as an object; pushes "[i]". */
static int element_obj(qhas_reader *r, const json_t *arr, size_t i, json_t **out, size_t *mark) {
    *mark = etp_qnn_jpush_index(&r->c, i);
    *out = json_array_get(arr, i);
    if (!json_is_object(*out))
        return etp_qnn_jfail(&r->c, NULL, "expected an object, got %s",
                             etp_qnn_json_type_name(*out));
    return ETP_OK;
}

#define TRY(x)                                                                                    \
    do {                                                                                          \
        if ((rc = (x)) != ETP_OK) return rc;                                                      \
    } while (0)

static int read_resource(qhas_reader *r, const json_t *o, etp_qnn_qhas_resource *res) {
    int rc;
    etp_qnn_i64 tid, used;
    etp_qnn_jctx *c = &r->c;
    TRY(etp_qnn_jget_str(c, o, "type", true, &res->type));
    TRY(etp_qnn_jget_i64(c, o, "tid", true, &tid));
    TRY(etp_qnn_jget_i64(c, o, "cycles_used", true, &used));
    res->tid = tid.v;
    res->cycles_used = used.v;
    TRY(etp_qnn_jget_i64(c, o, "start_cycle", false, &res->start_cycle));
    TRY(etp_qnn_jget_i64(c, o, "end_cycle", false, &res->end_cycle));
    TRY(etp_qnn_jget_i64(c, o, "timeline_cycles", false, &res->timeline_cycles));
    TRY(etp_qnn_jget_f64(c, o, "utilization", false, &res->utilization));
    TRY(etp_qnn_jget_i64(c, o, "dram_read", false, &res->dram_read));
    TRY(etp_qnn_jget_i64(c, o, "dram_write", false, &res->dram_write));
    TRY(etp_qnn_jget_i64(c, o, "vtcm_read", false, &res->vtcm_read));
    TRY(etp_qnn_jget_i64(c, o, "vtcm_write", false, &res->vtcm_write));
    return ETP_OK;
}

static int read_overall(qhas_reader *r, const json_t *data) {
    json_t *arr, *o, *resarr;
    size_t m0 = r->c.len, m1;
    int rc;
    etp_qnn_jctx *c = &r->c;
    TRY(section_array(r, data, "htp_overall_summary", &arr, &m0));
    if (!arr) return ETP_OK;
    r->q->sections |= ETP_QNN_QHAS_OVERALL;
    /* Every core entry must be an object; only the first is decoded. */
    for (size_t i = 0; i < json_array_size(arr); i++) {
        TRY(element_obj(r, arr, i, &o, &m1));
        etp_qnn_jpop(c, m1);
    }
    r->q->n_cores = (uint32_t)json_array_size(arr);
    if (r->q->n_cores == 0) {
        etp_qnn_jpop(c, m0);
        return ETP_OK;
    }
    etp_qnn_qhas_overall *ov = &r->q->overall;
    TRY(element_obj(r, arr, 0, &o, &m1));
    TRY(etp_qnn_jget_i64(c, o, "htp", false, &ov->htp));
    TRY(etp_qnn_jget_f64(c, o, "percent_utilization", false, &ov->percent_utilization));
    TRY(etp_qnn_jget_f64(c, o, "percent_idle", false, &ov->percent_idle));
    TRY(etp_qnn_jget_i64(c, o, "time_us", false, &ov->time_us));
    TRY(etp_qnn_jget_i64(c, o, "graph_execute_us", false, &ov->graph_execute_us));
    TRY(etp_qnn_jget_f64(c, o, "inf_per_s", false, &ov->inf_per_s));
    TRY(etp_qnn_jget_i64(c, o, "timeline_cycles", false, &ov->timeline_cycles));
    TRY(etp_qnn_jget_i64(c, o, "total_dram_read", false, &ov->total_dram_read));
    TRY(etp_qnn_jget_i64(c, o, "total_dram_write", false, &ov->total_dram_write));
    TRY(etp_qnn_jget_i64(c, o, "total_dram", false, &ov->total_dram));
    TRY(etp_qnn_jget_i64(c, o, "total_vtcm_read", false, &ov->total_vtcm_read));
    TRY(etp_qnn_jget_i64(c, o, "total_vtcm_write", false, &ov->total_vtcm_write));
    TRY(etp_qnn_jget_i64(c, o, "total_vtcm", false, &ov->total_vtcm));
    TRY(etp_qnn_jget_i64(c, o, "peak_vtcm_alloc", false, &ov->peak_vtcm_alloc));
    TRY(etp_qnn_jget_i64(c, o, "unique_qnn_ops", false, &ov->unique_qnn_ops));
    TRY(etp_qnn_jget_i64(c, o, "qnn_nodes", false, &ov->qnn_nodes));
    TRY(etp_qnn_jget_i64(c, o, "unique_htp_ops", false, &ov->unique_htp_ops));
    TRY(etp_qnn_jget_i64(c, o, "htp_nodes", false, &ov->htp_nodes));
    size_t m2;
    TRY(section_array(r, o, "htp_resources", &resarr, &m2));
    if (resarr) {
        size_t n = json_array_size(resarr);
        if (n) {
            ov->resources = calloc(n, sizeof *ov->resources);
            if (!ov->resources) return etp_qnn_jnomem(c);
        }
        for (size_t i = 0; i < n; i++) {
            size_t m3;
            json_t *e;
            TRY(element_obj(r, resarr, i, &e, &m3));
            TRY(read_resource(r, e, &ov->resources[i]));
            ov->n_resources++;
            etp_qnn_jpop(c, m3);
        }
        etp_qnn_jpop(c, m2);
    }
    etp_qnn_jpop(c, m0);
    return ETP_OK;
}

static int read_op_type(qhas_reader *r, const json_t *o, bool htp, etp_qnn_qhas_op_type *t) {
    int rc;
    etp_qnn_jctx *c = &r->c;
    TRY(etp_qnn_jget_str(c, o, "op", true, &t->op));
    TRY(etp_qnn_jget_i64(c, o, "cycles", false, &t->cycles));
    TRY(etp_qnn_jget_f64(c, o, "percent_active_cycles", false, &t->percent_active_cycles));
    TRY(etp_qnn_jget_i64(c, o, "num_dominant_path_cycles_htp_0", false, &t->dominant_path_cycles));
    TRY(etp_qnn_jget_f64(c, o, "percent_dominant_path_cycles_htp_0", false,
                         &t->percent_dominant_path_cycles));
    TRY(etp_qnn_jget_i64(c, o, htp ? "instances" : "num_htp_ops", false, &t->count));
    TRY(etp_qnn_jget_i64(c, o, "dram_read", false, &t->dram_read));
    TRY(etp_qnn_jget_i64(c, o, "dram_write", false, &t->dram_write));
    TRY(etp_qnn_jget_i64(c, o, "vtcm_read", false, &t->vtcm_read));
    TRY(etp_qnn_jget_i64(c, o, "vtcm_write", false, &t->vtcm_write));
    if (htp) {
        TRY(etp_qnn_jget_bool(c, o, "format_change", false, &t->format_change));
        TRY(etp_qnn_jget_bool(c, o, "reference_op", false, &t->reference_op));
    }
    return ETP_OK;
}

static int read_node(qhas_reader *r, const json_t *o, etp_qnn_qhas_node *n) {
    int rc;
    etp_qnn_i64 cy;
    etp_qnn_jctx *c = &r->c;
    TRY(etp_qnn_jget_str(c, o, "qnn_op", true, &n->qnn_op));
    TRY(etp_qnn_jget_str(c, o, "qnn_op_type", false, &n->qnn_op_type));
    TRY(etp_qnn_jget_i64(c, o, "cycles", true, &cy));
    n->cycles = cy.v;
    TRY(etp_qnn_jget_f64(c, o, "percent_active_cycles", false, &n->percent_active_cycles));
    TRY(etp_qnn_jget_i64(c, o, "num_dominant_path_cycles_htp_0", false, &n->dominant_path_cycles));
    TRY(etp_qnn_jget_f64(c, o, "percent_dominant_path_cycles_htp_0", false,
                         &n->percent_dominant_path_cycles));
    TRY(etp_qnn_jget_i64(c, o, "num_htp_ops", false, &n->num_htp_ops));
    TRY(etp_qnn_jget_i64(c, o, "dram_read", false, &n->dram_read));
    TRY(etp_qnn_jget_i64(c, o, "dram_write", false, &n->dram_write));
    TRY(etp_qnn_jget_i64(c, o, "vtcm_read", false, &n->vtcm_read));
    TRY(etp_qnn_jget_i64(c, o, "vtcm_write", false, &n->vtcm_write));
    return ETP_OK;
}

/* dims: array of integers, appended to the pool; the pointer is fixed up at the end. */
static int read_dims(qhas_reader *r, const json_t *o, etp_qnn_qhas_instance *in) {
    json_t *arr;
    int rc;
    TRY(etp_qnn_jget_arr(&r->c, o, "dims", false, &arr));
    if (!arr) return ETP_OK;
    size_t n = json_array_size(arr);
    if (n > UINT32_MAX - r->dims_len) return etp_qnn_jnomem(&r->c);
    if (etp_qnn_grow(&r->q->dims_pool, &r->dims_cap, r->dims_len + (uint32_t)n,
                     sizeof(int64_t)))
        return etp_qnn_jnomem(&r->c);
    size_t m = etp_qnn_jpush_key(&r->c, "dims");
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(arr, i);
        int64_t d;
        if (json_is_integer(v)) d = (int64_t)json_integer_value(v);
        else if (!(json_is_real(v) && real_to_i64(json_real_value(v), &d))) {
            size_t m2 = etp_qnn_jpush_index(&r->c, i);
            rc = etp_qnn_jfail(&r->c, NULL, "expected an integer, got %s",
                               etp_qnn_json_type_name(v));
            etp_qnn_jpop(&r->c, m2);
            return rc;
        }
        r->q->dims_pool[r->dims_len + i] = d;
    }
    etp_qnn_jpop(&r->c, m);
    in->has_dims = true;
    in->n_dims = (uint32_t)n;
    in->dims = (const int64_t *)(uintptr_t)r->dims_len; /* offset until fix-up */
    r->dims_len += (uint32_t)n;
    return ETP_OK;
}

static int read_instance(qhas_reader *r, const json_t *o, etp_qnn_qhas_instance *in) {
    int rc;
    etp_qnn_i64 cy;
    etp_qnn_jctx *c = &r->c;
    TRY(etp_qnn_jget_opid(c, o, "op_id", true, &in->op_id, NULL));
    TRY(etp_qnn_jget_str(c, o, "qnn_op", true, &in->qnn_op));
    TRY(etp_qnn_jget_i64(c, o, "cycles", true, &cy));
    in->cycles = cy.v;
    TRY(etp_qnn_jget_str(c, o, "htp_op", false, &in->htp_op));
    TRY(etp_qnn_jget_str(c, o, "qnn_op_type", false, &in->qnn_op_type));
    TRY(etp_qnn_jget_str(c, o, "dtype", false, &in->dtype));
    TRY(etp_qnn_jget_i64(c, o, "htp", false, &in->htp));
    TRY(etp_qnn_jget_i64(c, o, "tid", false, &in->tid));
    TRY(etp_qnn_jget_i64(c, o, "start_cycle", false, &in->start_cycle));
    TRY(etp_qnn_jget_i64(c, o, "num_dominant_path_cycles", false, &in->num_dominant_path_cycles));
    TRY(etp_qnn_jget_i64(c, o, "rank", false, &in->rank));
    TRY(etp_qnn_jget_i64(c, o, "zero_offset", false, &in->zero_offset));
    TRY(etp_qnn_jget_f64(c, o, "percent_dominant_path_cycles", false,
                         &in->percent_dominant_path_cycles));
    TRY(etp_qnn_jget_f64(c, o, "step_size", false, &in->step_size));
    TRY(etp_qnn_jget_f64(c, o, "cycles_per_packet", false, &in->cycles_per_packet));
    TRY(etp_qnn_jget_bool(c, o, "hmx", false, &in->hmx));
    TRY(etp_qnn_jget_bool(c, o, "hvx", false, &in->hvx));
    TRY(etp_qnn_jget_bool(c, o, "dma", false, &in->dma));
    TRY(etp_qnn_jget_bool(c, o, "dma_set", false, &in->dma_set));
    TRY(etp_qnn_jget_bool(c, o, "dma_wait", false, &in->dma_wait));
    TRY(etp_qnn_jget_bool(c, o, "sync", false, &in->sync));
    TRY(etp_qnn_jget_bool(c, o, "fmt_change", false, &in->fmt_change));
    TRY(etp_qnn_jget_bool(c, o, "ref_op", false, &in->ref_op));
    in->flags = (in->hmx.v ? ETP_QNN_F_HMX : 0) | (in->hvx.v ? ETP_QNN_F_HVX : 0) |
                (in->dma.v ? ETP_QNN_F_DMA : 0) | (in->dma_set.v ? ETP_QNN_F_DMA_SET : 0) |
                (in->dma_wait.v ? ETP_QNN_F_DMA_WAIT : 0) | (in->sync.v ? ETP_QNN_F_SYNC : 0);
    TRY(etp_qnn_jget_i64(c, o, "dram_read", false, &in->dram_read));
    TRY(etp_qnn_jget_i64(c, o, "dram_write", false, &in->dram_write));
    TRY(etp_qnn_jget_i64(c, o, "vtcm_read", false, &in->vtcm_read));
    TRY(etp_qnn_jget_i64(c, o, "vtcm_write", false, &in->vtcm_write));
    TRY(read_dims(r, o, in));
    return ETP_OK;
}

static int read_step(qhas_reader *r, const json_t *o, etp_qnn_qhas_step *s) {
    int rc;
    etp_qnn_i64 cy;
    etp_qnn_jctx *c = &r->c;
    TRY(etp_qnn_jget_opid(c, o, "op_id", false, &s->op_id, &s->has_op_id));
    TRY(etp_qnn_jget_str(c, o, "htp_op", false, &s->htp_op));
    TRY(etp_qnn_jget_str(c, o, "qnn_op", false, &s->qnn_op));
    TRY(etp_qnn_jget_i64(c, o, "cycles", true, &cy));
    s->cycles = cy.v;
    TRY(etp_qnn_jget_i64(c, o, "dp_cycles", false, &s->dp_cycles));
    TRY(etp_qnn_jget_i64(c, o, "start_cycle", false, &s->start_cycle));
    TRY(etp_qnn_jget_i64(c, o, "end_cycle", false, &s->end_cycle));
    TRY(etp_qnn_jget_bool(c, o, "partial", false, &s->partial));
    s->is_idle = (s->htp_op && strcmp(s->htp_op, "Accumulated Idle") == 0) ||
                 (s->qnn_op && strcmp(s->qnn_op, "Accumulated Idle") == 0);
    return ETP_OK;
}

/* Generic "array of records" section: allocates *items (n x size) and calls fn per element. */
typedef int (*record_fn)(qhas_reader *r, const json_t *o, void *item, int arg);

static int rec_op_type(qhas_reader *r, const json_t *o, void *item, int htp) {
    return read_op_type(r, o, htp != 0, item);
}
static int rec_node(qhas_reader *r, const json_t *o, void *item, int arg) {
    (void)arg;
    return read_node(r, o, item);
}
static int rec_instance(qhas_reader *r, const json_t *o, void *item, int arg) {
    (void)arg;
    return read_instance(r, o, item);
}
static int rec_step(qhas_reader *r, const json_t *o, void *item, int arg) {
    (void)arg;
    return read_step(r, o, item);
}

static int read_records(qhas_reader *r, const json_t *data, const char *name, unsigned bit,
                        size_t size, record_fn fn, int arg, void **items, uint32_t *count) {
    json_t *arr;
    size_t m0 = r->c.len;
    int rc;
    *items = NULL;
    *count = 0;
    TRY(section_array(r, data, name, &arr, &m0));
    if (!arr) return ETP_OK;
    r->q->sections |= bit;
    size_t n = json_array_size(arr);
    if (n > UINT32_MAX) return etp_qnn_jfail(&r->c, NULL, "too many entries");
    if (n) {
        *items = calloc(n, size);
        if (!*items) return etp_qnn_jnomem(&r->c);
    }
    for (size_t i = 0; i < n; i++) {
        json_t *o;
        size_t m1;
        TRY(element_obj(r, arr, i, &o, &m1));
        TRY(fn(r, o, (char *)*items + i * size, arg));
        ++*count;
        etp_qnn_jpop(&r->c, m1);
    }
    etp_qnn_jpop(&r->c, m0);
    return ETP_OK;
}

static int cmp_path(const void *a, const void *b) {
    const etp_qnn_qhas_path *x = a, *y = b;
    return (x->core > y->core) - (x->core < y->core);
}

/* Is `key` "dominant_path_htp_<digits>"? */
static bool dominant_key(const char *key, uint32_t *core) {
    static const char pre[] = "dominant_path_htp_";
    if (strncmp(key, pre, sizeof pre - 1) != 0) return false;
    const char *p = key + sizeof pre - 1;
    if (!*p) return false;
    uint64_t v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > UINT32_MAX) return false;
    }
    *core = (uint32_t)v;
    return true;
}

static int read_paths(qhas_reader *r, const json_t *data) {
    const char *key;
    json_t *val;
    int rc;
    size_t n = 0;
    uint32_t core;
    json_object_foreach((json_t *)data, key, val) {
        if (dominant_key(key, &core)) n++;
    }
    if (!n) return ETP_OK;
    r->q->paths = calloc(n, sizeof *r->q->paths);
    if (!r->q->paths) return etp_qnn_jnomem(&r->c);
    r->q->sections |= ETP_QNN_QHAS_DOMINANT_PATH;
    json_object_foreach((json_t *)data, key, val) {
        if (!dominant_key(key, &core)) continue;
        etp_qnn_qhas_path *p = &r->q->paths[r->q->n_paths++];
        p->core = core;
        void *items;
        rc = read_records(r, data, key, ETP_QNN_QHAS_DOMINANT_PATH, sizeof(etp_qnn_qhas_step),
                          rec_step, 0, &items, &p->n_steps);
        p->steps = items; /* also on failure: freed with the QHAS */
        if (rc) return rc;
    }
    qsort(r->q->paths, r->q->n_paths, sizeof *r->q->paths, cmp_path);
    return ETP_OK;
}

/* A QHAS written by QNN's host-side estimator (Hextimate) rather than from a device's profile:
 * a string member of `header` (its tool, generator or producer) names it. No real sample was
 * at hand: the rule follows the public description of the tool (docs/qnn.md, "Hextimate"). */
static bool by_hextimate(const json_t *header) {
    const char *k;
    const json_t *v;
    if (!json_is_object(header)) return false;
    json_object_foreach((json_t *)header, k, v) {
        if (!json_is_string(v)) continue;
        const char *sv = json_string_value(v);
        size_t n = json_string_length(v);
        for (size_t i = 0; i + 9 <= n; i++)
            if (strncasecmp(sv + i, "hextimate", 9) == 0) return true;
    }
    return false;
}

static int read_qhas(const etp_qnn_src *src, etp_qnn_qhas **out, etp_error *err) {
    const char *path = src->name;
    *out = NULL;
    qhas_reader r;
    memset(&r, 0, sizeof r);
    etp_qnn_jctx_init(&r.c, path, err);
    etp_qnn_qhas *q = calloc(1, sizeof *q);
    if (!q) {
        etp_error_set(err, ETP_E_INTERNAL, path, -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    r.q = q;
    int rc = etp_qnn_json_open(src, "QHAS", &q->root, &q->version, err);
    if (rc) goto fail;
    json_t *data;
    void *items;
    if ((rc = etp_qnn_jget_str(&r.c, q->root, "model_id", false, &q->model_id))) goto fail;
    q->estimated = by_hextimate(json_object_get(q->root, "header"));
    if ((rc = etp_qnn_jget_obj(&r.c, q->root, "data", true, &data))) goto fail;
    etp_qnn_jpush_key(&r.c, "data");
    if ((rc = read_overall(&r, data))) goto fail;
    if (q->estimated && q->n_cores && q->overall.time_us.has && q->overall.time_us.v == 0) {
        /* Hextimate writes time_us 0 when it stopped before timing the graph */
        etp_qnn_jpush_key(&r.c, "htp_overall_summary");
        etp_qnn_jpush_key(&r.c, "data");
        etp_qnn_jpush_index(&r.c, 0);
        rc = etp_qnn_jfail(&r.c, "time_us",
                           "0 us in a QHAS estimated on the host (Hextimate): a truncated "
                           "estimate, its figures cannot be used (run the estimator again)");
        goto fail;
    }
    /* items are stored before rc is checked: a partly read section is freed with the QHAS. */
    rc = read_records(&r, data, "qnn_op_types", ETP_QNN_QHAS_QNN_OP_TYPES,
                      sizeof(etp_qnn_qhas_op_type), rec_op_type, 0, &items, &q->n_qnn_op_types);
    q->qnn_op_types = items;
    if (rc) goto fail;
    rc = read_records(&r, data, "qnn_op_instances_nodes", ETP_QNN_QHAS_NODES,
                      sizeof(etp_qnn_qhas_node), rec_node, 0, &items, &q->n_nodes);
    q->nodes = items;
    if (rc) goto fail;
    rc = read_records(&r, data, "htp_op_types", ETP_QNN_QHAS_HTP_OP_TYPES,
                      sizeof(etp_qnn_qhas_op_type), rec_op_type, 1, &items, &q->n_htp_op_types);
    q->htp_op_types = items;
    if (rc) goto fail;
    rc = read_records(&r, data, "htp_op_instances", ETP_QNN_QHAS_INSTANCES,
                      sizeof(etp_qnn_qhas_instance), rec_instance, 0, &items, &q->n_instances);
    q->instances = items;
    /* Fix up dims pointers (also on failure, so that nothing dangles). */
    for (uint32_t i = 0; i < q->n_instances; i++) {
        etp_qnn_qhas_instance *in = &q->instances[i];
        in->dims = in->has_dims && in->n_dims ? q->dims_pool + (uintptr_t)in->dims : NULL;
    }
    if (rc) goto fail;
    if ((rc = read_paths(&r, data))) goto fail;
    *out = q;
    return ETP_OK;
fail:
    etp_qnn_qhas_free(q);
    return rc;
}

ETP_QNN_READER_ENTRIES(qhas, etp_qnn_qhas, read_qhas)

void etp_qnn_qhas_free(etp_qnn_qhas *q) {
    if (!q) return;
    free(q->overall.resources);
    free(q->qnn_op_types);
    free(q->nodes);
    free(q->htp_op_types);
    free(q->instances);
    for (uint32_t i = 0; i < q->n_paths; i++) free(q->paths[i].steps);
    free(q->paths);
    free(q->dims_pool);
    json_decref(q->root);
    free(q);
}
