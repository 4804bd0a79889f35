/* arm_pmu.c - the Ethos-U performance report of the Arm bare-metal executor runner's serial log
 * (etprof_arm_pmu.h; docs/backends.md "Arm Ethos-U: the runner's PMU report"): the parser, the
 * derived figures, and the report as result-model facts. Written from the documented lines of
 * the runner's performance monitor (their text, not its code). */
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

/* ---- derived figures ---- */

double etp_arm_pmu_per_inference(const etp_arm_pmu_report *r, uint64_t total) {
    if (!r || !r->present || !r->inferences) return NAN;
    return (double)total / (double)r->inferences;
}

double etp_arm_pmu_npu_share(const etp_arm_pmu_report *r) {
    if (!r || !r->present || !r->has_wait || !r->has_runtime || !r->runtime_cycles) return NAN;
    return 100.0 * (double)r->wait_cycles / (double)r->runtime_cycles;
}

uint64_t etp_arm_pmu_etdump_runs(const etp_ops_result *r) {
    uint64_t n = 0;
    for (uint32_t i = 0; r && i < etp_ops_method_count(r); i++) {
        const etp_ops_method *m = etp_ops_method_get(r, i);
        n += (uint64_t)m->runs + m->skipped;
    }
    return n;
}

/* ---- the report as result-model facts ---- */

/* One figure of the report, in the order every view shows them. */
typedef struct pmu_fig {
    char name[80];
    const char *source; /* the log's key */
    uint64_t total;
    etp_arm_pmu_unit unit;
} pmu_fig;

static size_t figures(const etp_arm_pmu_report *r, pmu_fig *f) {
    size_t k = 0;
#define FIG(nm, src, v, u)                                                                        \
    do {                                                                                          \
        snprintf(f[k].name, sizeof f[k].name, "%s", nm);                                          \
        f[k].source = src;                                                                        \
        f[k].total = v;                                                                           \
        f[k++].unit = u;                                                                          \
    } while (0)
    if (r->has_delegations)
        FIG("NPU delegations (command streams run)", "NPU delegations", r->delegations,
            ETP_APU_COUNT);
    if (r->has_npu_cycles)
        FIG("NPU cycle counter", "ethosu_pmu_cycle_cntr", r->npu_cycles, ETP_APU_NPU_CYCLES);
    static const char *const cntr[ETP_ARM_PMU_COUNTERS] = {
        "ethosu_pmu_cntr0", "ethosu_pmu_cntr1", "ethosu_pmu_cntr2", "ethosu_pmu_cntr3",
        "ethosu_pmu_cntr4", "ethosu_pmu_cntr5", "ethosu_pmu_cntr6", "ethosu_pmu_cntr7"};
    for (uint32_t c = 0; c < r->n_counters; c++) {
        char nm[80];
        if (r->counters[c].event[0]) snprintf(nm, sizeof nm, "%s", r->counters[c].event);
        else snprintf(nm, sizeof nm, "event counter %u (event not named)", c);
        FIG(nm, cntr[c], r->counters[c].total, r->counters[c].unit);
    }
    if (r->has_runtime)
        FIG("CPU cycles of the measured runs", "Inference runtime", r->runtime_cycles,
            ETP_APU_CPU_CYCLES);
    if (r->has_backend)
        FIG("CPU cycles in EthosUBackend::execute", "ethos-u : cycle_cnt", r->backend_cycles,
            ETP_APU_CPU_CYCLES);
    if (r->has_wait)
        FIG("CPU cycles while the NPU ran", "cpu_wait_for_npu_cntr", r->wait_cycles,
            ETP_APU_CPU_CYCLES);
#undef FIG
    return k;
}

#define SHARE_SOURCE "cpu_wait_for_npu_cntr / Inference runtime"

void etp_fig_arm_pmu(etp_node *n, const char *key, const etp_arm_pmu_report *r, uint64_t runs) {
    if (!r || !r->present) {
        etp_node_null(n, key);
        return;
    }
    etp_node *o = etp_node_obj(n, key);
    etp_node_uint(o, "line", r->line);
    etp_node_uint(o, "reports", r->reports);
    etp_node_uint(o, "inferences", r->inferences);
    if (runs) etp_node_uint(o, "etdump_runs", runs);
    else etp_node_null(o, "etdump_runs");
    etp_node_str(o, "npu", r->npu);
    pmu_fig f[8 + ETP_ARM_PMU_COUNTERS];
    size_t nf = figures(r, f);
    etp_node *a = etp_node_arr(o, "figures");
    for (size_t i = 0; i < nf; i++) {
        etp_node *e = etp_node_obj(a, NULL);
        etp_node_str(e, "name", f[i].name);
        etp_node_str(e, "source", f[i].source);
        etp_node_uint(e, "total", f[i].total);
        etp_node_float(e, "per_inference", etp_arm_pmu_per_inference(r, f[i].total));
        etp_node_str(e, "unit", etp_arm_pmu_unit_name(f[i].unit));
    }
    etp_node_float(o, "npu_share_percent", etp_arm_pmu_npu_share(r));
    etp_node_str(o, "npu_share_basis", SHARE_SOURCE ", both CPU cycles");
    etp_node_bool(o, "runtime_wrapped", r->runtime_wrapped);
    etp_node_uint(o, "lines_left_out", r->bad_lines);
}

etp_table *etp_arm_pmu_table(etp_doc *doc, const etp_arm_pmu_report *r) {
    if (!r || !r->present) return NULL;
    static const etp_col cols[] = {
        {"figure", "figure", NULL, ETP_T_STR, false, 0},
        {"total", "total", NULL, ETP_T_FLOAT, false, 0},
        {"per_inference", "per inference", NULL, ETP_T_FLOAT, true, 1},
        {"unit", "unit", NULL, ETP_T_STR, false, 0},
        {"source", "log line", NULL, ETP_T_STR, false, 0},
    };
    etp_table *t = etp_doc_table(doc, cols, 5);
    if (!t) return NULL;
    static const char *const drop[] = {"source:2", "per_inference:1", NULL};
    etp_table_droppable(t, drop);
    pmu_fig f[8 + ETP_ARM_PMU_COUNTERS];
    size_t nf = figures(r, f);
    for (size_t i = 0; i < nf; i++) {
        etp_table_row(t);
        etp_table_str(t, f[i].name);
        etp_table_float_prec(t, (double)f[i].total, 0);
        etp_table_float(t, etp_arm_pmu_per_inference(r, f[i].total));
        etp_table_str(t, etp_arm_pmu_unit_name(f[i].unit));
        etp_table_str(t, f[i].source);
    }
    double share = etp_arm_pmu_npu_share(r);
    if (!isnan(share)) {
        etp_table_row(t);
        etp_table_str(t, "NPU share of the CPU cycles");
        etp_table_float_prec(t, share, 2);
        etp_table_null(t);
        etp_table_str(t, "%");
        etp_table_str(t, SHARE_SOURCE);
    }
    return etp_doc_ok(doc) ? t : NULL;
}

const char *etp_arm_pmu_heading(const etp_arm_pmu_report *r, char *buf, size_t cap) {
    if (!r || !r->present) {
        if (cap) buf[0] = 0;
        return buf;
    }
    snprintf(buf, cap,
             "Arm Ethos-U PMU report (the runner's serial log, line %llu: %llu inference(s)%s%s)",
             (unsigned long long)r->line, (unsigned long long)r->inferences, r->npu ? ", " : "",
             r->npu ? r->npu : "");
    return buf;
}

int etp_fig_arm_pmu_table(etp_doc *doc, etp_section *s, const etp_arm_pmu_report *r) {
    if (!r || !r->present) return ETP_OK;
    char h[200];
    etp_section_textf(s, ETP_TEXT_WRAP, 2, "\n%s\n\n", etp_arm_pmu_heading(r, h, sizeof h));
    etp_table *t = etp_arm_pmu_table(doc, r);
    if (!t) return ETP_E_INTERNAL;
    etp_section_table(s, t);
    return etp_doc_ok(doc) ? ETP_OK : ETP_E_INTERNAL;
}

void etp_arm_pmu_notes(const etp_arm_pmu_report *r, uint64_t runs,
                       void (*emit)(void *ctx, const char *text), void *ctx) {
    if (!r || !r->present) return;
    char b[512];
    if (r->reports > 1) {
        snprintf(b, sizeof b,
                 "The runner's log holds %u Ethos-U PMU reports before the ETDump; the last one "
                 "(line %llu) is shown.",
                 r->reports, (unsigned long long)r->line);
        emit(ctx, b);
    }
    if (runs && r->inferences != runs) {
        snprintf(b, sizeof b,
                 "The PMU report counts %llu inference(s) but the ETDump holds %llu run(s) of the "
                 "method: the report may not measure the runs of this ETDump; its per-inference "
                 "figures divide by the report's own count.",
                 (unsigned long long)r->inferences, (unsigned long long)runs);
        emit(ctx, b);
    }
    if (r->has_runtime || r->has_backend || r->has_wait)
        emit(ctx, "The PMU report's CPU cycles (and the NPU share made of them) come from the "
                  "Cortex-M cycle counter; as the runner itself prints, they need real hardware "
                  "or an FPGA whose CPU and NPU run at one frequency: on the Corstone FVP "
                  "simulator they are not timing.");
    bool beats = false, unnamed = false;
    for (uint32_t k = 0; k < r->n_counters; k++) {
        beats |= r->counters[k].unit == ETP_APU_BEATS;
        unnamed |= !r->counters[k].event[0];
    }
    if (beats)
        emit(ctx, "The memory traffic of the PMU report is in data beats: bytes = beats x the "
                  "data width of that memory interface in the NPU's configuration, which the log "
                  "does not give.");
    if (unnamed)
        emit(ctx, "The runner's log names no event for some Ethos-U PMU counters (no \"Ethos-U "
                  "PMU Events:[...]\" line): they are shown by number, as counts.");
    if (r->runtime_wrapped)
        emit(ctx, "The runner printed its CPU cycle total as a negative number (a 32-bit counter "
                  "printed signed): 2^32 was added. A total past 2^32 cycles would have wrapped "
                  "unseen.");
    if (r->bad_lines) {
        snprintf(b, sizeof b,
                 "%u line(s) of the PMU report hold no readable number (the first: line %llu) "
                 "and are left out.",
                 r->bad_lines, (unsigned long long)r->first_bad_line);
        emit(ctx, b);
    }
}

/* ---- two reports compared (diff) ---- */

static bool present(const etp_arm_pmu_report *r) { return r && r->present; }

size_t etp_arm_pmu_compare(const etp_arm_pmu_report *base, const etp_arm_pmu_report *new_,
                           etp_arm_pmu_change *out, size_t cap) {
    pmu_fig fb[8 + ETP_ARM_PMU_COUNTERS], fn[8 + ETP_ARM_PMU_COUNTERS];
    size_t nb = present(base) ? figures(base, fb) : 0, nn = present(new_) ? figures(new_, fn) : 0;
    bool used[8 + ETP_ARM_PMU_COUNTERS] = {false};
    size_t k = 0;
    for (size_t pass = 0; pass < 2; pass++) {
        size_t n = pass ? nn : nb;
        for (size_t i = 0; i < n; i++) {
            const pmu_fig *f = pass ? &fn[i] : &fb[i];
            double b = NAN, v = NAN;
            if (pass) {
                if (used[i]) continue;
                v = etp_arm_pmu_per_inference(new_, f->total);
            } else {
                b = etp_arm_pmu_per_inference(base, f->total);
                for (size_t j = 0; j < nn; j++)
                    if (!used[j] && strcmp(fn[j].source, f->source) == 0 &&
                        strcmp(fn[j].name, f->name) == 0) {
                        used[j] = true;
                        v = etp_arm_pmu_per_inference(new_, fn[j].total);
                        break;
                    }
            }
            if (k < cap) {
                etp_arm_pmu_change *c = &out[k];
                size_t len = strnlen(f->name, sizeof c->name - 1);
                memcpy(c->name, f->name, len);
                c->name[len] = 0;
                c->source = f->source;
                c->unit = f->unit;
                c->base_per_inference = b;
                c->new_per_inference = v;
                c->change_percent = isnan(b) || isnan(v) || b == 0 ? NAN : 100.0 * (v - b) / b;
            }
            k++;
        }
    }
    return k;
}

static void side(etp_node *n, const char *key, const etp_arm_pmu_report *r) {
    if (!present(r)) {
        etp_node_null(n, key);
        return;
    }
    etp_node *o = etp_node_obj(n, key);
    etp_node_uint(o, "line", r->line);
    etp_node_uint(o, "inferences", r->inferences);
    etp_node_str(o, "npu", r->npu);
}

void etp_fig_arm_pmu_diff(etp_node *n, const char *key, const etp_arm_pmu_report *base,
                          const etp_arm_pmu_report *new_) {
    etp_node *o = etp_node_obj(n, key);
    side(o, "base", base);
    side(o, "new", new_);
    etp_arm_pmu_change ch[ETP_ARM_PMU_MAX_CHANGES];
    size_t nc = etp_arm_pmu_compare(base, new_, ch, ETP_ARM_PMU_MAX_CHANGES);
    etp_node *a = etp_node_arr(o, "figures");
    for (size_t i = 0; i < nc && i < ETP_ARM_PMU_MAX_CHANGES; i++) {
        etp_node *e = etp_node_obj(a, NULL);
        etp_node_str(e, "name", ch[i].name);
        etp_node_str(e, "source", ch[i].source);
        etp_node_str(e, "unit", etp_arm_pmu_unit_name(ch[i].unit));
        etp_node_float(e, "base_per_inference", ch[i].base_per_inference);
        etp_node_float(e, "new_per_inference", ch[i].new_per_inference);
        etp_node_float(e, "change_percent", ch[i].change_percent);
    }
}

etp_table *etp_arm_pmu_diff_table(etp_doc *doc, const etp_arm_pmu_report *base,
                                  const etp_arm_pmu_report *new_) {
    if (!present(base) && !present(new_)) return NULL;
    static const etp_col cols[] = {
        {"figure", "figure (per inference)", NULL, ETP_T_STR, false, 0},
        {"base_per_inference", "base", NULL, ETP_T_FLOAT, true, 1},
        {"new_per_inference", "new", NULL, ETP_T_FLOAT, true, 1},
        {"change_percent", "change %", NULL, ETP_T_FLOAT, true, 2},
        {"unit", "unit", NULL, ETP_T_STR, false, 0},
    };
    etp_table *t = etp_doc_table(doc, cols, 5);
    if (!t) return NULL;
    etp_arm_pmu_change ch[ETP_ARM_PMU_MAX_CHANGES];
    size_t nc = etp_arm_pmu_compare(base, new_, ch, ETP_ARM_PMU_MAX_CHANGES);
    for (size_t i = 0; i < nc && i < ETP_ARM_PMU_MAX_CHANGES; i++) {
        etp_table_row(t);
        etp_table_str(t, ch[i].name);
        etp_table_float(t, ch[i].base_per_inference);
        etp_table_float(t, ch[i].new_per_inference);
        etp_table_float(t, ch[i].change_percent);
        etp_table_str(t, etp_arm_pmu_unit_name(ch[i].unit));
    }
    return etp_doc_ok(doc) ? t : NULL;
}

/* A side's notes, collected to say once what both sides say. */
typedef struct note_set {
    uint32_t n;
    char text[12][512];
} note_set;

static void collect(void *ctx, const char *text) {
    note_set *s = ctx;
    if (s->n < sizeof s->text / sizeof s->text[0]) snprintf(s->text[s->n++], 512, "%s", text);
}

static bool has_note(const note_set *s, const char *text) {
    for (uint32_t i = 0; i < s->n; i++)
        if (strcmp(s->text[i], text) == 0) return true;
    return false;
}

void etp_arm_pmu_diff_notes(const etp_arm_pmu_report *base, const etp_arm_pmu_report *new_,
                            void (*emit)(void *ctx, const char *text), void *ctx) {
    if (!present(base) && !present(new_)) return;
    emit(ctx, "The Ethos-U PMU reports are one total per log, not one value per run: their "
              "changes have no run-to-run spread to judge them by, so they get no verdict and "
              "no say in --fail-on-regression; compare them over several runs of each build.");
    if (present(base) != present(new_))
        emit(ctx, present(base) ? "Only BASE was read from a runner's log with an Ethos-U PMU "
                                  "report: NEW's side of its figures is empty."
                                : "Only NEW was read from a runner's log with an Ethos-U PMU "
                                  "report: BASE's side of its figures is empty.");
    note_set *nb = calloc(2, sizeof *nb);
    if (!nb) return;
    note_set *nn = nb + 1;
    etp_arm_pmu_notes(base, 0, collect, nb);
    etp_arm_pmu_notes(new_, 0, collect, nn);
    char b[600];
    for (uint32_t i = 0; i < nb->n; i++) {
        bool both = has_note(nn, nb->text[i]);
        snprintf(b, sizeof b, "%s%s", both ? "" : "BASE: ", nb->text[i]);
        emit(ctx, b);
    }
    for (uint32_t i = 0; i < nn->n; i++) {
        if (has_note(nb, nn->text[i])) continue;
        snprintf(b, sizeof b, "NEW: %s", nn->text[i]);
        emit(ctx, b);
    }
    free(nb);
}

/* ---- the VGF device times as result-model facts ---- */

/* The ETDump's VGF_EXECUTE rows: events, and the one row's p50 and unit (nrows > 1: several
 * delegates or instructions, no single p50). */
typedef struct vgf_host {
    uint64_t count;
    uint32_t nrows;
    double p50;
    etp_unit unit;
} vgf_host;

static vgf_host host_of(const etp_ops_result *r) {
    vgf_host h = {0, 0, NAN, ETP_UNIT_NONE};
    for (size_t i = 0; r && i < etp_ops_row_count(r); i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        if (!row->name || strcmp(row->name, "VGF_EXECUTE") != 0) continue;
        h.count += row->count;
        if (h.nrows++ == 0) {
            h.p50 = row->stats.p50;
            h.unit = row->unit;
        }
    }
    if (h.nrows != 1) h.p50 = NAN;
    return h;
}

/* The device time's statistics (ns); false when out of memory. */
static bool device_stats(const etp_vgf_device_times *t, etp_stats *st) {
    double *v = malloc((t->n ? t->n : 1) * sizeof *v);
    if (!v) return false;
    memcpy(v, t->duration_ns, t->n * sizeof *v);
    etp_stats_compute(v, t->n, st);
    free(v);
    return true;
}

/* 100 x device p50 / host p50, when the host p50 is a time in ns. */
static double device_share(const etp_stats *st, const vgf_host *h) {
    if (h->nrows != 1 || h->unit != ETP_UNIT_NS || !(h->p50 > 0)) return NAN;
    return 100.0 * st->p50 / h->p50;
}

void etp_fig_vgf_device_times(etp_node *n, const char *key, const etp_disp *d,
                              const etp_vgf_device_times *t, const etp_ops_result *r) {
    if (!t || !t->n) {
        etp_node_null(n, key);
        return;
    }
    etp_stats st;
    if (!device_stats(t, &st)) return;
    etp_node *o = etp_node_obj(n, key);
    etp_node_uint(o, "lines", t->n);
    etp_node_uint(o, "first_line", t->first_line);
    etp_node_float(o, "period_ns", t->has_period ? t->period_ns : NAN);
    if (t->has_period) etp_node_uint(o, "valid_bits", t->valid_bits);
    else etp_node_null(o, "valid_bits");
    etp_node_bool(o, "fallback_period", t->fallback_period);
    etp_node_uint(o, "lines_left_out", t->bad_lines);
    const char *un;
    etp_node *dt = etp_node_obj(o, "device_time");
    etp_node_uint(dt, "n", st.n);
    etp_node_float(dt, "min", etp_disp_conv(d, ETP_UNIT_NS, st.min, &un));
    etp_node_float(dt, "p10", etp_disp_conv(d, ETP_UNIT_NS, st.p10, &un));
    etp_node_float(dt, "p50", etp_disp_conv(d, ETP_UNIT_NS, st.p50, &un));
    etp_node_float(dt, "p90", etp_disp_conv(d, ETP_UNIT_NS, st.p90, &un));
    etp_node_float(dt, "avg", etp_disp_conv(d, ETP_UNIT_NS, st.avg, &un));
    etp_node_float(dt, "max", etp_disp_conv(d, ETP_UNIT_NS, st.max, &un));
    etp_node_float(dt, "total", etp_disp_conv(d, ETP_UNIT_NS, st.total, &un));
    etp_node_str(dt, "unit", un);
    vgf_host h = host_of(r);
    if (h.nrows) {
        etp_node *he = etp_node_obj(o, "etdump_vgf_execute");
        etp_node_uint(he, "count", h.count);
        etp_node_float(he, "p50", etp_disp_conv(d, h.unit, h.p50, &un));
        etp_node_str(he, "unit", h.nrows == 1 ? un : NULL);
    } else {
        etp_node_null(o, "etdump_vgf_execute");
    }
    etp_node_float(o, "device_share_of_host_p50_percent", device_share(&st, &h));
}

etp_table *etp_vgf_device_table(etp_doc *doc, const etp_disp *d, const etp_vgf_device_times *t,
                                const etp_ops_result *r) {
    if (!t || !t->n) return NULL;
    etp_stats st;
    if (!device_stats(t, &st)) return NULL;
    static const etp_col cols[] = {
        {"figure", "figure", NULL, ETP_T_STR, false, 0},
        {"value", "value", NULL, ETP_T_FLOAT, true, 3},
        {"unit", "unit", NULL, ETP_T_STR, false, 0},
    };
    etp_col c[3];
    memcpy(c, cols, sizeof c);
    c[1].precision = d->precision;
    etp_table *tb = etp_doc_table(doc, c, 3);
    if (!tb) return NULL;
    const char *un;
    static const char *const names[] = {"device time, min", "device time, p50", "device time, avg",
                                        "device time, p90", "device time, max",
                                        "device time, total"};
    const double vals[] = {st.min, st.p50, st.avg, st.p90, st.max, st.total};
    etp_table_row(tb);
    etp_table_str(tb, "executions timed");
    etp_table_float_prec(tb, (double)t->n, 0);
    etp_table_str(tb, "count");
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        double v = etp_disp_conv(d, ETP_UNIT_NS, vals[k], &un);
        etp_table_row(tb);
        etp_table_str(tb, names[k]);
        etp_table_float(tb, v);
        etp_table_str(tb, un);
    }
    vgf_host h = host_of(r);
    if (h.nrows == 1) {
        double v = etp_disp_conv(d, h.unit, h.p50, &un);
        etp_table_row(tb);
        etp_table_str(tb, "ETDump VGF_EXECUTE (host), p50");
        etp_table_float(tb, v);
        etp_table_str(tb, un);
    }
    double sh = device_share(&st, &h);
    if (!isnan(sh)) {
        etp_table_row(tb);
        etp_table_str(tb, "device p50 / VGF_EXECUTE p50");
        etp_table_float_prec(tb, sh, 2);
        etp_table_str(tb, "%");
    }
    return etp_doc_ok(doc) ? tb : NULL;
}

int etp_fig_vgf_device_table(etp_doc *doc, etp_section *s, const etp_disp *d,
                             const etp_vgf_device_times *t, const etp_ops_result *r) {
    if (!t || !t->n) return ETP_OK;
    etp_section_textf(s, ETP_TEXT_WRAP, 2,
                      "\nArm VGF device time (the runner's log: %u VGF_DATA_GRAPH_DEVICE_TIME "
                      "line(s) from line %llu; Vulkan timestamp queries around each data-graph "
                      "dispatch)\n\n",
                      t->n, (unsigned long long)t->first_line);
    etp_table *tb = etp_vgf_device_table(doc, d, t, r);
    if (!tb) return ETP_E_INTERNAL;
    etp_section_table(s, tb);
    return etp_doc_ok(doc) ? ETP_OK : ETP_E_INTERNAL;
}

double etp_vgf_device_p50_ns(const etp_vgf_device_times *t) {
    etp_stats st;
    if (!t || !t->n || !device_stats(t, &st)) return NAN;
    return st.p50;
}

double etp_vgf_device_share(const etp_vgf_device_times *t, const etp_ops_result *r) {
    etp_stats st;
    if (!t || !t->n || !device_stats(t, &st)) return NAN;
    vgf_host h = host_of(r);
    return device_share(&st, &h);
}

void etp_vgf_device_notes(const etp_vgf_device_times *t, const etp_ops_result *r,
                          void (*emit)(void *ctx, const char *text), void *ctx) {
    if (!t || !t->n) return;
    char b[512];
    vgf_host h = host_of(r);
    if (r && h.count != t->n) {
        snprintf(b, sizeof b,
                 "The runner's log times %u VGF execution(s) but the ETDump holds %llu "
                 "VGF_EXECUTE event(s): the log may not be this run's (or the ETDump dropped "
                 "events); the device statistics are the log's own.",
                 t->n, (unsigned long long)h.count);
        emit(ctx, b);
    }
    if (h.nrows == 1 && h.unit != ETP_UNIT_NS)
        emit(ctx, "VGF_EXECUTE is in host ticks of unknown rate here: give --tick-ns or --tick-hz "
                  "to compare the device time with it.");
    if (t->fallback_period)
        emit(ctx, "The Vulkan device reported no timestamp period: the VGF backend assumed 52 ns "
                  "per tick, so its device durations are only as right as that guess.");
    if (t->bad_lines) {
        snprintf(b, sizeof b,
                 "%u VGF_DATA_GRAPH_DEVICE_TIME line(s) hold no readable ticks and duration_ns "
                 "(the first: line %llu) and are left out.",
                 t->bad_lines, (unsigned long long)t->first_bad_line);
        emit(ctx, b);
    }
}
