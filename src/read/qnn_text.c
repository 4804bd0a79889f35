/*
 * qnn_text.c - readers for QNN's plain-text outputs:
 *   - the heap profiling file written by ExecuTorch's ProfileDataToFile
 *     (`DSP:before_context_created (bytes), 928212` / `DSP:after_context_freed (bytes), N`);
 *   - qnn-profile-viewer's text log (its default stdout output);
 *   - qnn-profile-viewer's CSV (`--output x.csv`).
 * The two viewer formats produce the same etp_qnn_viewer structure: blocks (executes and the
 * other phases), each a list of (identifier, value, unit, is_node) events.
 * Errors carry the byte offset of the offending line and "line N: ..." in the message.
 */
#include "qnn.h"
#include "sniff.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* =============================================================================================
 * Common text helpers
 * =========================================================================================== */

typedef struct text_in {
    const char *file;
    const char *buf;
    size_t len, pos;
    uint32_t line;     /* line number of the line last returned (1-based) */
    size_t line_start; /* its byte offset */
    etp_error *err;
} text_in;

/* A line without its terminator ("\n" or "\r\n"). */
typedef struct text_line {
    const char *s;
    size_t n;
} text_line;

static bool next_line(text_in *in, text_line *out) {
    if (in->pos >= in->len) return false;
    const char *s = in->buf + in->pos;
    const char *nl = memchr(s, '\n', in->len - in->pos);
    size_t n = nl ? (size_t)(nl - s) : in->len - in->pos;
    in->line_start = in->pos;
    in->line++;
    in->pos += n + (nl ? 1 : 0);
    if (n && s[n - 1] == '\r') n--;
    out->s = s;
    out->n = n;
    return true;
}

static void clean_copy(char *dst, size_t cap, const char *s, size_t n) {
    size_t i = 0;
    for (; i < n && i + 1 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        dst[i] = (ch < 0x20 || ch >= 0x7f) ? '?' : (char)ch;
    }
    if (cap) dst[i] = '\0';
}

static int fail_at(etp_error *err, const char *file, int code, uint32_t line, int64_t offset,
                   const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
static int fail_at(etp_error *err, const char *file, int code, uint32_t line, int64_t offset,
                   const char *fmt, ...) {
    char msg[ETP_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line) etp_error_set(err, code, file, offset, "", "line %u: %s", line, msg);
    else etp_error_set(err, code, file, offset, "", "%s", msg);
    return code;
}

/* Error on the current line; `excerpt` (may be NULL) is quoted, sanitized and shortened. */
static int line_fail(text_in *in, const char *what, const char *excerpt, size_t excerpt_len) {
    if (!excerpt)
        return fail_at(in->err, in->file, ETP_E_INPUT, in->line, (int64_t)in->line_start, "%s",
                       what);
    char ex[64];
    clean_copy(ex, excerpt_len > 60 ? 58 : sizeof ex, excerpt, excerpt_len);
    return fail_at(in->err, in->file, ETP_E_INPUT, in->line, (int64_t)in->line_start,
                   "%s '%s%s'", what, ex, excerpt_len > 60 ? "..." : "");
}

static int nomem(const char *file, etp_error *err) {
    etp_error_set(err, ETP_E_INTERNAL, file, -1, "", "out of memory");
    return ETP_E_INTERNAL;
}

static void trim(const char **s, size_t *n) {
    while (*n && (**s == ' ' || **s == '\t')) (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t')) (*n)--;
}

static bool starts_with(const char *s, size_t n, const char *pre) {
    size_t k = strlen(pre);
    return n >= k && memcmp(s, pre, k) == 0;
}

static bool ends_with(const char *s, size_t n, const char *suf) {
    size_t k = strlen(suf);
    return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* Rejects files holding NUL bytes (binary data). */
static int check_binary(text_in *in) {
    const char *z = memchr(in->buf, '\0', in->len);
    if (!z) return ETP_OK;
    size_t off = (size_t)(z - in->buf);
    uint32_t line = 1;
    for (size_t i = 0; i < off; i++) line += in->buf[i] == '\n';
    return fail_at(in->err, in->file, ETP_E_INPUT, line, (int64_t)off,
                   "binary data (NUL byte), not a text file");
}

/* Decimal integer (optional sign) spanning exactly s[0..n). */
static bool parse_i64(const char *s, size_t n, int64_t *out) {
    char tmp[32];
    if (n == 0 || n >= sizeof tmp) return false;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (!(isdigit((unsigned char)tmp[i]) || (i == 0 && (tmp[i] == '-' || tmp[i] == '+'))))
            return false;
    if (!isdigit((unsigned char)tmp[n - 1])) return false;
    errno = 0;
    char *end;
    long long v = strtoll(tmp, &end, 10);
    if (errno || *end) return false;
    *out = (int64_t)v;
    return true;
}

/* A finite number spanning exactly s[0..n) (integer or decimal/exponent form). */
static bool parse_num(const char *s, size_t n, double *out) {
    char tmp[64];
    if (n == 0 || n >= sizeof tmp) return false;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (!(isdigit((unsigned char)tmp[i]) || strchr("+-.eE", tmp[i]))) return false;
    errno = 0;
    char *end;
    double v = strtod(tmp, &end);
    if (errno || *end || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* double -> int64 without undefined behaviour (saturating, truncating toward zero). */
static int64_t to_i64(double v) {
    if (v >= 9.2233720368547758e18) return INT64_MAX;
    if (v <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)v;
}

/* =============================================================================================
 * Heap profiling file
 * =========================================================================================== */

static int read_heap(const etp_qnn_src *src, etp_qnn_heap **out, etp_error *err) {
    const char *path = src->name;
    char *buf;
    size_t len;
    *out = NULL;
    int rc = etp_qnn_load(src, &buf, &len, err);
    if (rc) return rc;
    text_in in = {.file = path, .buf = buf, .len = len, .err = err};
    etp_qnn_heap h;
    memset(&h, 0, sizeof h);
    text_line l;
    if (len == 0) {
        rc = fail_at(err, path, ETP_E_INPUT, 0, 0, "empty file");
        goto done;
    }
    if ((rc = check_binary(&in))) goto done;
    while (next_line(&in, &l)) {
        const char *s = l.s;
        size_t n = l.n;
        trim(&s, &n);
        if (n == 0) continue;
        const char *comma = NULL;
        for (size_t i = n; i-- > 0;)
            if (s[i] == ',') {
                comma = s + i;
                break;
            }
        if (!comma) {
            rc = line_fail(&in, "expected '<identifier>, <bytes>', got", s, n);
            goto done;
        }
        const char *id = s, *val = comma + 1;
        size_t idn = (size_t)(comma - s), valn = n - idn - 1;
        trim(&id, &idn);
        trim(&val, &valn);
        int64_t v;
        if (!parse_i64(val, valn, &v) || v < 0) {
            rc = line_fail(&in, "value is not a non-negative integer:", val, valn);
            goto done;
        }
        if (ends_with(id, idn, " (bytes)")) idn -= strlen(" (bytes)");
        etp_qnn_i64 *slot = NULL;
        const char *which = NULL;
        if (idn == strlen("DSP:before_context_created") &&
            memcmp(id, "DSP:before_context_created", idn) == 0) {
            slot = &h.before;
            which = "DSP:before_context_created";
        } else if (idn == strlen("DSP:after_context_freed") &&
                   memcmp(id, "DSP:after_context_freed", idn) == 0) {
            slot = &h.after;
            which = "DSP:after_context_freed";
        } else {
            rc = line_fail(&in, "unknown identifier (expected DSP:before_context_created or "
                                "DSP:after_context_freed):", id, idn);
            goto done;
        }
        if (slot->has) {
            char what[96];
            snprintf(what, sizeof what, "duplicate %s line", which);
            rc = line_fail(&in, what, NULL, 0);
            goto done;
        }
        slot->v = v;
        slot->has = true;
    }
    if (!h.before.has) {
        rc = fail_at(err, path, ETP_E_INPUT, 0, -1, "no DSP:before_context_created line");
        goto done;
    }
    if (h.after.has) {
        h.delta.v = h.after.v - h.before.v; /* both are non-negative: no overflow */
        h.delta.has = true;
    }
    if (!(*out = malloc(sizeof **out))) {
        rc = nomem(path, err);
        goto done;
    }
    **out = h;
done:
    if (rc == ETP_E_INPUT && len) etp__sniff_hint(err, buf, len, ETP_SNIFF_HEAP);
    free(buf);
    return rc;
}

ETP_QNN_READER_ENTRIES(heap, etp_qnn_heap, read_heap)

void etp_qnn_heap_free(etp_qnn_heap *h) { free(h); }

/* =============================================================================================
 * Viewer structure building (shared by text and CSV)
 * =========================================================================================== */

typedef struct vbuild {
    etp_qnn_viewer *v;
    const char *file;
    etp_error *err;
    uint32_t execs_cap, stats_cap, events_cap, n_events;
    bool cur_exec; /* current block: executes[n_executes-1] or stats[n_stats-1] */
    bool has_cur;
    bool skipping; /* inside a section etprof does not know: its lines are skipped */
} vbuild;

static const char *vintern(vbuild *b, const char *s, size_t n) {
    return etp_qnn_pool_intern(b->v->pool, s, n);
}

static etp_qnn_stat_block *vcur(vbuild *b) {
    if (!b->has_cur) return NULL;
    return b->cur_exec ? &b->v->executes[b->v->n_executes - 1] : &b->v->stats[b->v->n_stats - 1];
}

/* Starts a block; `title` is copied. */
static int vblock(vbuild *b, etp_qnn_stat_kind kind, const char *title, size_t tn, uint32_t line) {
    etp_qnn_viewer *v = b->v;
    bool ex = kind == ETP_QNN_STAT_EXECUTE;
    b->skipping = false;
    etp_qnn_stat_block *blk;
    uint32_t index = 1;
    if (ex) {
        if (etp_qnn_grow(&v->executes, &b->execs_cap, v->n_executes + 1, sizeof *v->executes))
            return nomem(b->file, b->err);
        blk = &v->executes[v->n_executes++];
        index = v->n_executes;
    } else {
        for (uint32_t i = 0; i < v->n_stats; i++) index += v->stats[i].kind == kind;
        if (etp_qnn_grow(&v->stats, &b->stats_cap, v->n_stats + 1, sizeof *v->stats))
            return nomem(b->file, b->err);
        blk = &v->stats[v->n_stats++];
    }
    memset(blk, 0, sizeof *blk);
    blk->kind = kind;
    blk->index = index;
    blk->line = line;
    blk->events = (etp_qnn_stat_event *)(uintptr_t)b->n_events; /* offset until fix-up */
    if (!(blk->title = vintern(b, title, tn))) return nomem(b->file, b->err);
    b->cur_exec = ex;
    b->has_cur = true;
    return ETP_OK;
}

static etp_qnn_unit unit_of(const char *u, size_t n) {
    static const struct {
        const char *w;
        etp_qnn_unit u;
    } t[] = {{"us", ETP_QNN_UNIT_US},         {"cycles", ETP_QNN_UNIT_CYCLES},
             {"count", ETP_QNN_UNIT_COUNT},   {"bytes", ETP_QNN_UNIT_BYTES},
             {"object", ETP_QNN_UNIT_OBJECT}};
    if (n == 0) return ETP_QNN_UNIT_NONE;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strlen(t[i].w) == n && strncasecmp(u, t[i].w, n) == 0) return t[i].u;
    return ETP_QNN_UNIT_OTHER;
}

/* Appends an event to the current block (which must exist). */
static int vevent(vbuild *b, const char *id, size_t idn, bool has_value, double value,
                  const char *unit, size_t un, bool is_node, uint32_t line) {
    etp_qnn_stat_block *blk = vcur(b);
    etp_qnn_viewer *v = b->v;
    if (etp_qnn_grow(&v->event_pool, &b->events_cap, b->n_events + 1, sizeof *v->event_pool))
        return nomem(b->file, b->err);
    etp_qnn_stat_event *e = &v->event_pool[b->n_events];
    memset(e, 0, sizeof *e);
    if (!(e->identifier = vintern(b, id, idn)) || !(e->unit_text = vintern(b, unit, un)))
        return nomem(b->file, b->err);
    e->has_value = has_value;
    if (has_value) {
        e->fvalue = value;
        e->value = to_i64(value);
    }
    e->unit = unit_of(unit, un);
    e->is_node = is_node;
    e->line = line;
    b->n_events++;
    blk->n_events++;
    return ETP_OK;
}

static void vfixup(etp_qnn_viewer *v) {
    for (uint32_t i = 0; i < v->n_executes; i++)
        v->executes[i].events = v->executes[i].n_events
                                    ? v->event_pool + (uintptr_t)v->executes[i].events
                                    : NULL;
    for (uint32_t i = 0; i < v->n_stats; i++)
        v->stats[i].events = v->stats[i].n_events ? v->event_pool + (uintptr_t)v->stats[i].events
                                                  : NULL;
}

static etp_qnn_viewer *vnew(void) {
    etp_qnn_viewer *v = calloc(1, sizeof *v);
    if (v && !(v->pool = etp_qnn_pool_new())) {
        free(v);
        v = NULL;
    }
    return v;
}

void etp_qnn_viewer_free(etp_qnn_viewer *v) {
    if (!v) return;
    free(v->executes);
    free(v->stats);
    free(v->event_pool);
    etp_qnn_pool_free(v->pool);
    free(v);
}

const etp_qnn_stat_event *etp_qnn_stat_find(const etp_qnn_stat_block *block,
                                            const char *identifier) {
    for (uint32_t i = 0; block && i < block->n_events; i++)
        if (strcmp(block->events[i].identifier, identifier) == 0) return &block->events[i];
    return NULL;
}

/* Stats kind from a text title or a CSV Message (case-insensitive). */
static etp_qnn_stat_kind kind_of(const char *t, size_t n) {
    char buf[64];
    size_t k = n < sizeof buf - 1 ? n : sizeof buf - 1;
    for (size_t i = 0; i < k; i++) buf[i] = (char)toupper((unsigned char)t[i]);
    buf[k] = '\0';
    if (strstr(buf, "DE-INIT") || strstr(buf, "DEINIT")) return ETP_QNN_STAT_DEINIT;
    if (strncmp(buf, "EXECUTE STAT", 12) == 0 || strcmp(buf, "EXECUTE") == 0)
        return ETP_QNN_STAT_EXECUTE;
    if (strstr(buf, "COMPOSE")) return ETP_QNN_STAT_COMPOSE;
    if (strstr(buf, "FINALIZE")) return ETP_QNN_STAT_FINALIZE;
    if (strstr(buf, "INIT") || strstr(buf, "CREATE FROM BINARY")) return ETP_QNN_STAT_INIT;
    return ETP_QNN_STAT_OTHER;
}

/* =============================================================================================
 * qnn-profile-viewer text log
 * =========================================================================================== */

/* "<value> <unit>" | "<value>" | "<unit>" (trimmed `s`). */
static int value_unit(text_in *in, const char *s, size_t n, bool *has, double *val,
                      const char **unit, size_t *un) {
    const char *sp = NULL;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '\t') {
            sp = s + i;
            break;
        }
    *has = false;
    *unit = s + n;
    *un = 0;
    if (n == 0) return line_fail(in, "missing value and unit", NULL, 0);
    if (!sp) {
        if (parse_num(s, n, val)) *has = true;
        else {
            *unit = s;
            *un = n;
        }
        return ETP_OK;
    }
    const char *u = sp;
    size_t vn = (size_t)(sp - s), rest = n - vn;
    trim(&u, &rest);
    for (size_t i = 0; i < rest; i++)
        if (u[i] == ' ' || u[i] == '\t') return line_fail(in, "expected '<value> <unit>', got", s, n);
    if (!parse_num(s, vn, val)) return line_fail(in, "value is not a number:", s, vn);
    *has = true;
    *unit = u;
    *un = rest;
    return ETP_OK;
}

/* Header "Key: value" lines before the first block. Returns true when recognised. */
static bool text_header(vbuild *b, const char *s, size_t n, bool *oom) {
    static const char *const str_keys[] = {"Input Log File Location:", "Log File Created:",
                                           "qnn-profile-viewer:", "qnn-net-run:", "Backend:"};
    etp_qnn_viewer *v = b->v;
    const char **slots[] = {&v->input_log, &v->log_created, &v->viewer_version,
                            &v->netrun_version, &v->backend_version};
    *oom = false;
    for (size_t k = 0; k < sizeof str_keys / sizeof str_keys[0]; k++) {
        if (!starts_with(s, n, str_keys[k])) continue;
        const char *val = s + strlen(str_keys[k]);
        size_t vn = n - strlen(str_keys[k]);
        trim(&val, &vn);
        if (!*slots[k] && !(*slots[k] = vintern(b, val, vn))) *oom = true;
        return true;
    }
    if (starts_with(s, n, "Time Scale:")) {
        const char *val = s + 11;
        size_t vn = n - 11;
        trim(&val, &vn);
        double d;
        if (parse_num(val, vn, &d)) v->time_scale = (etp_qnn_f64){d, true};
        return true;
    }
    if (starts_with(s, n, "Epoch Timestamp:")) {
        /* "Epoch Timestamp: N Steady Clock Timestamp: M" */
        const char *p = s + 16, *end = s + n;
        while (p < end && *p == ' ') p++;
        const char *q = p;
        while (q < end && isdigit((unsigned char)*q)) q++;
        int64_t x;
        if (parse_i64(p, (size_t)(q - p), &x)) v->epoch_timestamp = (etp_qnn_i64){x, true};
        static const char sc[] = "Steady Clock Timestamp:";
        for (const char *r = q; r + sizeof sc - 1 <= end; r++)
            if (memcmp(r, sc, sizeof sc - 1) == 0) {
                const char *a = r + sizeof sc - 1;
                size_t an = (size_t)(end - a);
                trim(&a, &an);
                if (parse_i64(a, an, &x)) v->steady_clock_timestamp = (etp_qnn_i64){x, true};
                break;
            }
        return true;
    }
    return starts_with(s, n, "Generated using:");
}

/* Whether a line holds the " : " that separates an event's identifier from its value. */
static bool has_sep(const char *s, size_t n) {
    for (size_t i = 0; i + 3 <= n; i++)
        if (s[i] == ' ' && s[i + 1] == ':' && s[i + 2] == ' ') return true;
    return ends_with(s, n, " :");
}

static int parse_text(vbuild *b, text_in *in) {
    text_line l;
    int rc;
    bool recognised = false;
    while (next_line(in, &l)) {
        const char *s = l.s;
        size_t n = l.n;
        bool indented = n && (s[0] == ' ' || s[0] == '\t');
        trim(&s, &n);
        if (n == 0) continue;
        size_t dashes = 0;
        while (dashes < n && s[dashes] == '-') dashes++;
        if (dashes == n) continue;
        if (dashes) { /* QNN 2.13 logs: "--- Init Stats:", "--- Graph 0 (model):" */
            s += dashes;
            n -= dashes;
            trim(&s, &n);
        }
        if (starts_with(s, n, "Execute Stats (") && ends_with(s, n, "):") && n > 17) {
            if ((rc = vblock(b, ETP_QNN_STAT_OTHER, s, n - 1, in->line))) return rc;
            if (!(vcur(b)->aggregate = vintern(b, s + 15, n - 17))) return nomem(b->file, b->err);
            recognised = true;
            continue;
        }
        if (starts_with(s, n, "Execute Stat ") && n > 13) {
            size_t i = 13;
            while (i < n && isdigit((unsigned char)s[i])) i++;
            if (i == n) {
                if ((rc = vblock(b, ETP_QNN_STAT_EXECUTE, s, n, in->line))) return rc;
                recognised = true;
                continue;
            }
        }
        if (n == strlen("Execute Stats:") && memcmp(s, "Execute Stats:", n) == 0) {
            b->has_cur = false; /* container heading of the Execute Stat blocks */
            b->skipping = false;
            recognised = true;
            continue;
        }
        if (ends_with(s, n, "Stats:")) {
            if ((rc = vblock(b, kind_of(s, n - 1), s, n - 1, in->line))) return rc;
            recognised = true;
            continue;
        }
        if (ends_with(s, n, "Statistics:") ||
            (n == 40 && memcmp(s, "Printing All Data Received From Back End", 40) == 0)) {
            b->has_cur = false;
            b->skipping = false;
            recognised = true;
            continue;
        }
        if (!indented && ends_with(s, n, ":") && !starts_with(s, n, "Graph ") &&
            !(n == 21 && memcmp(s, "Total Inference Time:", 21) == 0) && !has_sep(s, n) &&
            (b->has_cur || b->skipping || b->v->n_executes || b->v->n_stats)) {
            /* A section heading etprof does not know (a newer viewer's section): its lines are
               skipped and the heading is reported, rather than the whole file rejected. */
            etp_qnn_viewer *v = b->v;
            if (v->n_skipped < ETP_QNN_VIEWER_SKIPPED_MAX) {
                if (!(v->skipped[v->n_skipped] = vintern(b, s, n - 1)))
                    return nomem(b->file, b->err);
                v->skipped_line[v->n_skipped] = in->line;
            }
            v->n_skipped++;
            b->has_cur = false;
            b->skipping = true;
            continue;
        }
        if (b->skipping) continue;
        etp_qnn_stat_block *blk = vcur(b);
        if (!blk) {
            bool oom;
            if (b->v->n_executes == 0 && b->v->n_stats == 0 && text_header(b, s, n, &oom)) {
                if (oom) return nomem(b->file, b->err);
                recognised = true;
            }
            continue; /* anything else outside a block is ignored */
        }
        bool has;
        double val;
        const char *unit;
        size_t un;
        if (n == 21 && memcmp(s, "Total Inference Time:", 21) == 0) {
            blk->total_inference = true;
            continue;
        }
        if (starts_with(s, n, "Graph ") && ends_with(s, n, "):")) {
            /* "Graph <N> (<name>):" */
            size_t i = 6;
            while (i < n && isdigit((unsigned char)s[i])) i++;
            int64_t gi;
            if (i == 6 || i + 3 > n || s[i] != ' ' || s[i + 1] != '(' ||
                !parse_i64(s + 6, i - 6, &gi))
                return line_fail(in, "cannot parse graph line (expected 'Graph <N> (<name>):')",
                                 s, n);
            blk->graph_index = (etp_qnn_i64){gi, true};
            if (!(blk->graph_name = vintern(b, s + i + 2, n - i - 4))) return nomem(b->file, b->err);
            continue;
        }
        if (starts_with(s, n, "NetRun IPS:")) {
            const char *r = s + 11;
            size_t rn = n - 11;
            trim(&r, &rn);
            if ((rc = value_unit(in, r, rn, &has, &val, &unit, &un))) return rc;
            if (!has) return line_fail(in, "NetRun IPS has no value:", s, n);
            if (!(un == 7 && memcmp(unit, "inf/sec", 7) == 0))
                return line_fail(in, "NetRun IPS unit is not 'inf/sec':", s, n);
            blk->netrun_ips = (etp_qnn_f64){val, true};
            continue;
        }
        if (starts_with(s, n, "NetRun:")) {
            const char *r = s + 7;
            size_t rn = n - 7;
            trim(&r, &rn);
            if ((rc = value_unit(in, r, rn, &has, &val, &unit, &un))) return rc;
            if (has && !blk->netrun_us.has) blk->netrun_us = (etp_qnn_i64){to_i64(val), true};
            continue;
        }
        if (starts_with(s, n, "Backend (")) {
            /* "Backend (<identifier>): <value> <unit>"; the identifier may hold parentheses. */
            const char *close = NULL;
            for (size_t i = n - 1; i > 9; i--)
                if (s[i] == ':' && s[i - 1] == ')') {
                    close = s + i - 1;
                    break;
                }
            if (!close) return line_fail(in, "cannot parse summary line", s, n);
            const char *id = s + 9, *r = close + 2;
            size_t idn = (size_t)(close - id), rn = (size_t)(s + n - r);
            trim(&r, &rn);
            if ((rc = value_unit(in, r, rn, &has, &val, &unit, &un))) return rc;
            if ((rc = vevent(b, id, idn, has, val, unit, un, false, in->line))) return rc;
            continue;
        }
        /* "<identifier> : <value>  <unit>" - the identifier ends at the last " : ". */
        const char *sep = NULL;
        for (size_t i = n; i >= 3; i--)
            if (s[i - 3] == ' ' && s[i - 2] == ':' && s[i - 1] == ' ') {
                sep = s + i - 3;
                break;
            }
        if (!sep && ends_with(s, n, " :")) sep = s + n - 2;
        if (!sep) return line_fail(in, "cannot parse event line", s, n);
        const char *id = s, *r = sep + 3 <= s + n ? sep + 3 : s + n;
        size_t idn = (size_t)(sep - s), rn = (size_t)(s + n - r);
        trim(&id, &idn);
        trim(&r, &rn);
        if ((rc = value_unit(in, r, rn, &has, &val, &unit, &un))) return rc;
        if ((rc = vevent(b, id, idn, has, val, unit, un, indented, in->line))) return rc;
    }
    if (!recognised)
        return fail_at(in->err, in->file, ETP_E_INPUT, 0, -1,
                       "not a qnn-profile-viewer text log (no header and no 'Stats' section)");
    return ETP_OK;
}

/* =============================================================================================
 * qnn-profile-viewer CSV
 * =========================================================================================== */

#define CSV_MAX_FIELDS 16

typedef struct csv_rec {
    uint32_t n;                 /* fields in the record (may exceed CSV_MAX_FIELDS) */
    const char *f[CSV_MAX_FIELDS];
    size_t fn[CSV_MAX_FIELDS];
    uint32_t line;              /* first line of the record */
    size_t offset;
    char *scratch;              /* unescaped field text */
    size_t scap;
} csv_rec;

/* line_fail() located at the first line of record `r`. */
static int csv_fail(text_in *in, const csv_rec *r, const char *what, const char *ex, size_t exn) {
    uint32_t line = in->line;
    size_t start = in->line_start;
    in->line = r->line;
    in->line_start = r->offset;
    int rc = line_fail(in, what, ex, exn);
    in->line = line;
    in->line_start = start;
    return rc;
}

/* Reads one record (quote-aware, RFC 4180 + spaces around fields). 1 = record, 0 = EOF. */
static int csv_next(text_in *in, csv_rec *r) {
    if (in->pos >= in->len) return 0;
    r->n = 0;
    r->line = in->line + 1;
    r->offset = in->pos;
    in->line_start = in->pos;
    in->line++;
    size_t sl = 0; /* scratch used */
    size_t offs[CSV_MAX_FIELDS];
    const char *p = in->buf + in->pos, *end = in->buf + in->len;
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t')) p++;
        size_t start = sl;
        if (p < end && *p == '"') {
            p++;
            for (;;) {
                if (p >= end) {
                    in->pos = in->len;
                    return csv_fail(in, r, "unterminated quoted field", NULL, 0);
                }
                if (*p == '"') {
                    if (p + 1 < end && p[1] == '"') {
                        r->scratch[sl++] = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                if (*p == '\n') in->line++;
                r->scratch[sl++] = *p++;
            }
            while (p < end && (*p == ' ' || *p == '\t')) p++;
            if (p < end && *p != ',' && *p != '\n' && *p != '\r') {
                in->pos = (size_t)(p - in->buf);
                return csv_fail(in, r, "unexpected text after a quoted field", NULL, 0);
            }
        } else {
            while (p < end && *p != ',' && *p != '\n') r->scratch[sl++] = *p++;
            while (sl > start && (r->scratch[sl - 1] == ' ' || r->scratch[sl - 1] == '\t' ||
                                  r->scratch[sl - 1] == '\r'))
                sl--;
        }
        if (r->n < CSV_MAX_FIELDS) {
            offs[r->n] = start;
            r->fn[r->n] = sl - start;
        }
        r->n++;
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p < end && *p == '\r') p++;
        if (p < end && *p == '\n') p++;
        break;
    }
    in->pos = (size_t)(p - in->buf);
    for (uint32_t i = 0; i < r->n && i < CSV_MAX_FIELDS; i++) r->f[i] = r->scratch + offs[i];
    return 1;
}

static bool field_is(const csv_rec *r, uint32_t i, const char *s) {
    return i < r->n && i < CSV_MAX_FIELDS && r->fn[i] == strlen(s) &&
           strncasecmp(r->f[i], s, r->fn[i]) == 0;
}

static int parse_csv(vbuild *b, text_in *in) {
    static const char *const cols[] = {"Msg Timestamp",       "Message",      "Time",
                                       "Unit of Measurement", "Timing Source", "Event Level",
                                       "Event Identifier"};
    static const char *const pre[] = {"input log file location", "qnn-profile-viewer version",
                                      "qnn-net-run version", "backend version"};
    etp_qnn_viewer *v = b->v;
    const char **pre_slots[] = {&v->input_log, &v->viewer_version, &v->netrun_version,
                                &v->backend_version};
    csv_rec r;
    memset(&r, 0, sizeof r);
    r.scratch = malloc(in->len + 1); /* a record's text never exceeds the file */
    if (!r.scratch) return nomem(b->file, b->err);
    int rc, got;
    bool header = false;
    const char *prev_msg = NULL, *prev_ts = NULL;
    size_t prev_msg_n = 0, prev_ts_n = 0;
    char *keep = NULL; /* copy of the previous group key (scratch is reused) */
    while ((got = csv_next(in, &r)) == 1) {
        if (r.n == 1 && r.fn[0] == 0) continue; /* empty line */
        if (!header) {
            if (field_is(&r, 0, cols[0])) {
                if (r.n != 7) {
                    rc = csv_fail(in, &r, "CSV header must have 7 columns", NULL, 0);
                    goto out;
                }
                for (uint32_t i = 1; i < 7; i++)
                    if (!field_is(&r, i, cols[i])) {
                        char what[96];
                        snprintf(what, sizeof what, "unexpected column %u (expected '%s'):", i + 1,
                                 cols[i]);
                        rc = csv_fail(in, &r, what, r.f[i], r.fn[i]);
                        goto out;
                    }
                header = true;
                continue;
            }
            /* Preamble "key, value": the value is everything after the first comma. */
            for (size_t k = 0; k < sizeof pre / sizeof pre[0]; k++) {
                if (!field_is(&r, 0, pre[k]) || r.n < 2 || *pre_slots[k]) continue;
                const char *val = in->buf + r.offset, *e = in->buf + in->pos;
                while (val < e && *val != ',') val++;
                val++;
                size_t vn = val < e ? (size_t)(e - val) : 0;
                while (vn && (val[vn - 1] == '\n' || val[vn - 1] == '\r')) vn--;
                trim(&val, &vn);
                if (!(*pre_slots[k] = vintern(b, val, vn))) {
                    rc = nomem(b->file, b->err);
                    goto out;
                }
            }
            continue;
        }
        if (r.n != 7) {
            char what[64];
            snprintf(what, sizeof what, "expected 7 fields, got %u", r.n);
            rc = csv_fail(in, &r, what, NULL, 0);
            goto out;
        }
        /* Msg Timestamp, Message, Time, Unit, Timing Source, Event Level, Event Identifier */
        if (r.fn[1] == 0) {
            rc = csv_fail(in, &r, "empty Message field", NULL, 0);
            goto out;
        }
        double val;
        if (!parse_num(r.f[2], r.fn[2], &val)) {
            rc = csv_fail(in, &r, "Time is not a number:", r.f[2], r.fn[2]);
            goto out;
        }
        bool node;
        if (field_is(&r, 5, "ROOT")) node = false;
        else if (field_is(&r, 5, "SUB-EVENT")) node = true;
        else {
            rc = csv_fail(in, &r, "unknown Event Level (expected ROOT or SUB-EVENT):", r.f[5],
                           r.fn[5]);
            goto out;
        }
        bool netrun = field_is(&r, 4, "NETRUN");
        bool same = prev_msg && prev_msg_n == r.fn[1] && memcmp(prev_msg, r.f[1], r.fn[1]) == 0 &&
                    prev_ts_n == r.fn[0] && memcmp(prev_ts, r.f[0], r.fn[0]) == 0;
        if (!same) {
            if ((rc = vblock(b, kind_of(r.f[1], r.fn[1]), r.f[1], r.fn[1], r.line))) goto out;
            int64_t ts;
            if (parse_i64(r.f[0], r.fn[0], &ts)) vcur(b)->timestamp = (etp_qnn_i64){ts, true};
            free(keep);
            if (!(keep = malloc(r.fn[0] + r.fn[1] + 1))) {
                rc = nomem(b->file, b->err);
                goto out;
            }
            memcpy(keep, r.f[0], r.fn[0]);
            memcpy(keep + r.fn[0], r.f[1], r.fn[1]);
            prev_ts = keep;
            prev_ts_n = r.fn[0];
            prev_msg = keep + r.fn[0];
            prev_msg_n = r.fn[1];
        }
        etp_qnn_stat_block *blk = vcur(b);
        if (netrun) {
            if (!blk->netrun_us.has) {
                blk->netrun_us = (etp_qnn_i64){to_i64(val), true};
                if (!field_is(&r, 6, "null") && r.fn[6] &&
                    !(blk->label = vintern(b, r.f[6], r.fn[6]))) {
                    rc = nomem(b->file, b->err);
                    goto out;
                }
            }
            continue;
        }
        if ((rc = vevent(b, r.f[6], r.fn[6], true, val, r.f[3], r.fn[3], node, r.line))) goto out;
    }
    rc = got < 0 ? got : ETP_OK;
    if (rc == ETP_OK && !header)
        rc = fail_at(in->err, in->file, ETP_E_INPUT, 0, -1,
                     "no CSV header line ('Msg Timestamp, Message, Time, Unit of Measurement, "
                     "Timing Source, Event Level, Event Identifier')");
out:
    free(keep);
    free(r.scratch);
    return rc;
}

/* =============================================================================================
 * Public entry points
 * =========================================================================================== */

/* format: 0 = detect, else ETP_QNN_VIEWER_* */
static int read_viewer(const etp_qnn_src *src, int format, etp_qnn_viewer **out,
                       etp_error *err) {
    const char *path = src->name;
    char *buf;
    size_t len;
    *out = NULL;
    if (format != 0 && format != ETP_QNN_VIEWER_TEXT && format != ETP_QNN_VIEWER_CSV) {
        etp_error_set(err, ETP_E_USAGE, path, -1, "", "unknown viewer format %d", format);
        return ETP_E_USAGE;
    }
    int rc = etp_qnn_load(src, &buf, &len, err);
    if (rc) return rc;
    text_in in = {.file = path, .buf = buf, .len = len, .err = err};
    etp_qnn_viewer *v = NULL;
    if (len == 0) {
        rc = fail_at(err, path, ETP_E_INPUT, 0, 0, "empty file");
        goto done;
    }
    if ((rc = check_binary(&in))) goto done;
    if (!(v = vnew())) {
        rc = nomem(path, err);
        goto done;
    }
    if (!format)
        format = etp__looks_like_viewer_csv(buf, len) ? ETP_QNN_VIEWER_CSV : ETP_QNN_VIEWER_TEXT;
    v->format = (etp_qnn_viewer_format)format;
    vbuild b = {.v = v, .file = path, .err = err};
    rc = format == ETP_QNN_VIEWER_CSV ? parse_csv(&b, &in) : parse_text(&b, &in);
    vfixup(v);
    if (rc == ETP_OK) {
        *out = v;
        v = NULL;
    }
done:
    if (rc == ETP_E_INPUT && len)
        etp__sniff_hint(err, buf, len,
                        format == ETP_QNN_VIEWER_CSV ? ETP_SNIFF_VIEWER_CSV : ETP_SNIFF_VIEWER_TEXT);
    etp_qnn_viewer_free(v);
    free(buf);
    return rc;
}

int etp_qnn_read_viewer_text(const char *path, etp_qnn_viewer **out, etp_error *err) {
    etp_qnn_src src = {path, NULL, 0};
    return read_viewer(&src, ETP_QNN_VIEWER_TEXT, out, err);
}

int etp_qnn_read_viewer_csv(const char *path, etp_qnn_viewer **out, etp_error *err) {
    etp_qnn_src src = {path, NULL, 0};
    return read_viewer(&src, ETP_QNN_VIEWER_CSV, out, err);
}

int etp_qnn_read_viewer(const char *path, etp_qnn_viewer **out, etp_error *err) {
    etp_qnn_src src = {path, NULL, 0};
    return read_viewer(&src, 0, out, err);
}

int etp_qnn_read_viewer_mem(const char *name, const void *data, size_t len, int format,
                            etp_qnn_viewer **out, etp_error *err) {
    etp_qnn_src src = {name, data ? data : "", len};
    return read_viewer(&src, format, out, err);
}
