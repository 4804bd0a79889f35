/* runner_log.c - the Arm runners' serial logs read (etprof_arm_pmu.h; docs/backends.md "Arm
 * Ethos-U: the runner's PMU report"): the Ethos-U performance report of the bare-metal executor
 * runner and the VGF backend's device times. The figures derived from them are in
 * src/analyze/arm_pmu.c, their views in src/view/arm_pmu_view.c. Written from the documented
 * lines of the runner's performance monitor (their text, not its code). */
#include "etprof_arm_pmu.h"
#include "etdump_int.h"
#include "membudget.h"
#include "sniff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *etp_arm_pmu_unit_name(etp_arm_pmu_unit u) {
    switch (u) {
    case ETP_APU_CPU_CYCLES: return "CPU cycles";
    case ETP_APU_NPU_CYCLES: return "NPU cycles";
    case ETP_APU_BEATS: return "beats";
    case ETP_APU_COUNT: return "count";
    }
    return "count";
}

/* ---- parsing ---- */

static const char *find_in(const char *s, size_t n, const char *pat) {
    size_t m = strlen(pat);
    for (size_t i = 0; m <= n && i + m <= n; i++)
        if (s[i] == pat[0] && memcmp(s + i, pat, m) == 0) return s + i;
    return NULL;
}

/* The message of a log line: after the "] " that ends an ET_LOG prefix ("I [executorch:f.cpp:12
 * fn()] ", "I 00:00:01.000 executorch:f.cpp:12] ", "[ET:f.cpp:12] "), else the line; leading
 * blanks skipped. */
static const char *message(const char *l, size_t n, size_t *mlen) {
    const char *p = find_in(l, n, "executorch:");
    if (!p) p = find_in(l, n, "[ET:");
    if (p) {
        const char *q = find_in(p, n - (size_t)(p - l), "] ");
        if (q) p = q + 2;
        else p = l;
    } else {
        p = l;
    }
    const char *e = l + n;
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    *mlen = (size_t)(e - p);
    return p;
}

/* s starts with key: the rest after it. */
static const char *after(const char *s, size_t n, const char *key, size_t *rest) {
    size_t k = strlen(key);
    if (n < k || memcmp(s, key, k) != 0) return NULL;
    *rest = n - k;
    return s + k;
}

/* ":" (blanks around it) then a decimal number (an optional '-' when `neg` may be set), which
 * must end at the end, a blank or '('. false when there is none or it does not fit 64 bits. */
static bool colon_number(const char *s, size_t n, uint64_t *v, bool *neg) {
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    if (i >= n || s[i] != ':') return false;
    i++;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    bool minus = false;
    if (neg && i < n && s[i] == '-') {
        minus = true;
        i++;
    }
    if (i >= n || s[i] < '0' || s[i] > '9') return false;
    uint64_t x = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (x > (UINT64_MAX - d) / 10) return false;
        x = x * 10 + d;
    }
    if (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '(') return false;
    *v = x;
    if (neg) *neg = minus;
    return true;
}

static etp_arm_pmu_unit event_unit(const char *ev) {
    if (strstr(ev, "_BEAT_")) return ETP_APU_BEATS;
    size_t n = strlen(ev);
    if (strcmp(ev, "NPU_IDLE") == 0 || (n > 7 && strcmp(ev + n - 7, "_ACTIVE") == 0))
        return ETP_APU_NPU_CYCLES;
    return ETP_APU_COUNT;
}

/* "Ethos-U PMU Events:[ETHOSU_PMU_A, ETHOSU_PMU_B]": the names of counters 0, 1, ... */
static void read_events(etp_arm_pmu_report *r, const char *s, size_t n) {
    const char *e = s + n, *close = memchr(s, ']', n);
    if (close) e = close;
    uint32_t k = 0;
    const char *p = s;
    while (p < e && k < ETP_ARM_PMU_COUNTERS) {
        while (p < e && (*p == ' ' || *p == ',')) p++;
        const char *q = p;
        while (q < e && *q != ',') q++;
        const char *end = q;
        while (end > p && end[-1] == ' ') end--;
        if (end > p) {
            size_t len = (size_t)(end - p);
            if (len > 11 && memcmp(p, "ETHOSU_PMU_", 11) == 0) {
                p += 11;
                len -= 11;
            }
            char *dst = r->counters[k].event;
            size_t cap = sizeof r->counters[k].event - 1;
            size_t w = 0;
            for (size_t i = 0; i < len && w < cap; i++) {
                char c = p[i];
                bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                          (c >= '0' && c <= '9') || c == '_';
                dst[w++] = ok ? c : '?';
            }
            dst[w] = 0;
            r->counters[k].unit = event_unit(dst);
            k++;
        }
        p = q;
    }
    if (k) r->events_named = true;
}

static void bad(etp_arm_pmu_report *r, uint64_t line) {
    if (!r->bad_lines++) r->first_bad_line = line;
}

/* One line of the report being read (r->present). */
static void report_line(etp_arm_pmu_report *r, const char *m, size_t n, uint64_t line) {
    const char *rest;
    size_t rn;
    uint64_t v;
    bool neg;
    /* the lines that carry one count each: the key, where the count goes, its has_* flag */
    const struct {
        const char *key;
        uint64_t *value;
        bool *has;
    } plain[] = {
        {"NPU delegations", &r->delegations, &r->has_delegations},
        {"ethos-u : cycle_cnt", &r->backend_cycles, &r->has_backend},
        {"cpu_wait_for_npu_cntr", &r->wait_cycles, &r->has_wait},
        {"ethosu_pmu_cycle_cntr", &r->npu_cycles, &r->has_npu_cycles},
    };
    for (size_t k = 0; k < sizeof plain / sizeof plain[0]; k++) {
        if (!(rest = after(m, n, plain[k].key, &rn))) continue;
        if (colon_number(rest, rn, &v, NULL)) {
            *plain[k].value = v;
            *plain[k].has = true;
        } else {
            bad(r, line);
        }
        return;
    }
    if ((rest = after(m, n, "Inference runtime", &rn))) {
        if (colon_number(rest, rn, &v, &neg) && (!neg || (v > 0 && v <= (UINT64_C(1) << 31)))) {
            r->runtime_wrapped = neg;
            r->runtime_cycles = neg ? (UINT64_C(1) << 32) - v : v;
            r->has_runtime = true;
        } else bad(r, line);
    } else if ((rest = after(m, n, "ethosu_pmu_cntr", &rn))) {
        size_t i = 0;
        unsigned k = 0;
        while (i < rn && i < 3 && rest[i] >= '0' && rest[i] <= '9') k = k * 10 + (unsigned)(rest[i++] - '0');
        if (i == 0 || k >= ETP_ARM_PMU_COUNTERS || !colon_number(rest + i, rn - i, &v, NULL)) {
            bad(r, line);
            return;
        }
        r->counters[k].total = v;
        if (k + 1 > r->n_counters) r->n_counters = k + 1;
    } else if ((rest = after(m, n, "Ethos-U PMU Events:[", &rn))) {
        read_events(r, rest, rn);
    }
}

static void finish(etp_arm_pmu_report *r) {
    if (!r->present) return;
    for (uint32_t k = r->n_counters; k < ETP_ARM_PMU_COUNTERS; k++) r->counters[k].event[0] = 0;
    bool axi = false, u85 = false;
    for (uint32_t k = 0; k < r->n_counters; k++) {
        const char *ev = r->counters[k].event;
        if (!ev[0]) r->counters[k].unit = ETP_APU_COUNT;
        if (strncmp(ev, "AXI", 3) == 0) axi = true;
        if (strncmp(ev, "SRAM_", 5) == 0 || strncmp(ev, "EXT_", 4) == 0) u85 = true;
    }
    r->npu = axi && !u85 ? "Ethos-U55 or U65" : u85 && !axi ? "Ethos-U85" : NULL;
}

void etp_arm_pmu_parse(const char *text, size_t n, uint64_t before_line, etp_arm_pmu_report *out) {
    memset(out, 0, sizeof *out);
    if (!text) return;
    etp_arm_pmu_report cur;
    memset(&cur, 0, sizeof cur);
    uint64_t line = 1;
    size_t pos = 0;
    while (pos < n && (!before_line || line < before_line)) {
        const char *l = text + pos;
        const char *nl = memchr(l, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - l) : n - pos;
        size_t ln = len;
        if (ln && l[ln - 1] == '\r') ln--;
        size_t mn;
        const char *m = message(l, ln, &mn);
        const char *rest;
        size_t rn;
        uint64_t v;
        if ((rest = after(m, mn, "NPU Inferences", &rn))) {
            uint32_t seen = cur.reports;
            memset(&cur, 0, sizeof cur);
            cur.present = true;
            cur.reports = seen + 1;
            cur.line = line;
            if (colon_number(rest, rn, &v, NULL)) cur.inferences = v;
            else bad(&cur, line);
        } else if (cur.present) {
            report_line(&cur, m, mn, line);
        }
        pos += len + 1;
        line++;
    }
    finish(&cur);
    *out = cur;
}

/* Opens `path` as a text log: ETP_E_INPUT (located, the kind named) for binary data. */
/* A pipe or device is judged by its first bytes and read to at most the memory budget. */
static int log_head(const uint8_t *head, size_t n, const char *name, etp_error *err) {
    if (!memchr(head, 0, n)) return ETP_OK;
    etp_error_set(err, ETP_E_INPUT, name, 0, NULL,
                  "binary data (a NUL byte), not the Arm runner's serial log with its Ethos-U "
                  "PMU report");
    etp__sniff_hint(err, head, n, NULL);
    return ETP_E_INPUT;
}

static int open_log(const char *path, etp_blob *b, etp_error *err) {
    uint64_t budget = etp__mem_budget();
    int rc = etp__blob_open_bounded(b, path, log_head,
                                    budget < ETP_STDIN_MAX ? budget : ETP_STDIN_MAX, err);
    if (rc) return rc;
    size_t head = b->size < 4096 ? b->size : 4096;
    if (memchr(b->data, 0, head)) {
        etp_error_set(err, ETP_E_INPUT, b->name, 0, NULL,
                      "binary data (a NUL byte), not the Arm runner's serial log with its Ethos-U "
                      "PMU report");
        etp__sniff_hint(err, b->data, b->size, NULL);
        etp_blob_close(b);
        return ETP_E_INPUT;
    }
    return ETP_OK;
}

/* The 1-based line of the first "#[RUN THIS]" (the runner's ETDump block), 0 when none. */
static uint64_t run_this_line(const char *text, size_t size) {
    uint64_t line = 1;
    for (size_t i = 0; i < size;) {
        const char *nl = memchr(text + i, '\n', size - i);
        size_t len = nl ? (size_t)(nl - (text + i)) : size - i;
        if (find_in(text + i, len, "#[RUN THIS]")) return line;
        i += len + 1;
        line++;
    }
    return 0;
}

/* ---- Arm VGF device times ---- */

/* A decimal number with an optional fraction ("123.456"), as ET_LOG's %.3f writes it; false when
 * there is none or it has no digits. */
static bool decimal(const char *s, size_t n, size_t *used, double *v) {
    size_t i = 0;
    double x = 0;
    bool digits = false;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits = true) x = x * 10 + (s[i] - '0');
    if (i < n && s[i] == '.') {
        double scale = 1;
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits = true) {
            scale /= 10;
            x += (s[i] - '0') * scale;
        }
    }
    if (!digits || !isfinite(x)) return false;
    *used = i;
    *v = x;
    return true;
}

/* "key=" then an unsigned integer or a decimal, at the start of s (blanks skipped). */
static bool kv(const char *s, size_t n, const char *key, size_t *used, double *dv, uint64_t *uv) {
    size_t i = 0, k = strlen(key);
    while (i < n && s[i] == ' ') i++;
    if (n - i < k || memcmp(s + i, key, k) != 0) return false;
    i += k;
    size_t u;
    if (uv) {
        uint64_t x = 0;
        size_t j = i;
        for (; j < n && s[j] >= '0' && s[j] <= '9'; j++) {
            unsigned d = (unsigned)(s[j] - '0');
            if (x > (UINT64_MAX - d) / 10) return false;
            x = x * 10 + d;
        }
        if (j == i) return false;
        *uv = x;
        *used = j;
        return true;
    }
    if (!decimal(s + i, n - i, &u, dv)) return false;
    *used = i + u;
    return true;
}

static int vgf_push(etp_vgf_device_times *t, uint32_t *cap, uint64_t ticks, double ns) {
    if (t->n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 64;
        double *d = realloc(t->duration_ns, c * sizeof *d);
        if (!d) return ETP_E_INTERNAL;
        t->duration_ns = d;
        uint64_t *k = realloc(t->ticks, c * sizeof *k);
        if (!k) return ETP_E_INTERNAL;
        t->ticks = k;
        *cap = c;
    }
    t->duration_ns[t->n] = ns;
    t->ticks[t->n++] = ticks;
    return ETP_OK;
}

int etp_vgf_device_times_parse(const char *text, size_t n, etp_vgf_device_times *out) {
    memset(out, 0, sizeof *out);
    if (!text) return ETP_OK;
    uint32_t cap = 0;
    uint64_t line = 1;
    for (size_t pos = 0; pos < n; line++) {
        const char *l = text + pos;
        const char *nl = memchr(l, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - l) : n - pos;
        pos += len + 1;
        size_t ln = len && l[len - 1] == '\r' ? len - 1 : len, mn, rn, u;
        const char *m = message(l, ln, &mn), *rest;
        if ((rest = after(m, mn, "VGF_DATA_GRAPH_DEVICE_TIME ", &rn))) {
            uint64_t ticks;
            double ns;
            size_t u2;
            if (kv(rest, rn, "ticks=", &u, NULL, &ticks) &&
                kv(rest + u, rn - u, "duration_ns=", &u2, &ns, NULL)) {
                if (!out->n) out->first_line = line;
                if (out->n == UINT32_MAX || vgf_push(out, &cap, ticks, ns)) {
                    etp_vgf_device_times_free(out);
                    return ETP_E_INTERNAL;
                }
            } else if (!out->bad_lines++) {
                out->first_bad_line = line;
            }
        } else if ((rest = after(m, mn, "VGF timestamp queries enabled:", &rn))) {
            const char *v = find_in(rest, rn, "valid_bits="), *p = find_in(rest, rn, "period_ns=");
            uint64_t bits;
            double per;
            if (v && p && kv(v, rn - (size_t)(v - rest), "valid_bits=", &u, NULL, &bits) &&
                kv(p, rn - (size_t)(p - rest), "period_ns=", &u, &per, NULL) && bits <= 64) {
                out->has_period = true;
                out->period_ns = per;
                out->valid_bits = (uint32_t)bits;
            }
        } else if ((rest = after(m, mn, "VGF timestampPeriod is ", &rn)) &&
                   find_in(rest, rn, "using fallback")) {
            out->fallback_period = true;
        }
    }
    return ETP_OK;
}

void etp_vgf_device_times_free(etp_vgf_device_times *t) {
    if (!t) return;
    free(t->duration_ns);
    free(t->ticks);
    memset(t, 0, sizeof *t);
}

int etp_runner_log_read(const char *path, etp_runner_log *out, etp_error *err) {
    memset(out, 0, sizeof *out);
    etp_blob b;
    int rc = open_log(path, &b, err);
    if (rc) return rc;
    const char *text = (const char *)b.data;
    etp_arm_pmu_parse(text, b.size, run_this_line(text, b.size), &out->pmu);
    if (etp_vgf_device_times_parse(text, b.size, &out->vgf)) {
        etp_error_set(err, ETP_E_INTERNAL, b.name, -1, NULL, "out of memory");
        etp_blob_close(&b);
        etp_runner_log_free(out);
        return ETP_E_INTERNAL;
    }
    if (!out->pmu.present && !out->vgf.n) {
        etp_error_set(err, ETP_E_INPUT, b.name, 0, NULL,
                      "no Ethos-U PMU report (\"NPU Inferences\" lines) and no VGF device time "
                      "(VGF_DATA_GRAPH_DEVICE_TIME lines) here: the runner logs them with its "
                      "performance monitor or EXECUTORCH_VGF_ENABLE_TIMESTAMP_QUERIES");
        etp__sniff_hint(err, b.data, b.size, NULL);
        etp_blob_close(&b);
        etp_runner_log_free(out);
        return ETP_E_INPUT;
    }
    etp_blob_close(&b);
    return ETP_OK;
}

void etp_runner_log_free(etp_runner_log *l) {
    if (!l) return;
    etp_vgf_device_times_free(&l->vgf);
    memset(l, 0, sizeof *l);
}
