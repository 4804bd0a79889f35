/* runs.c - one row per run (etprof_runs.h, docs/analyses.md "Runs"): the per-run values of the
 * rows that make each method's parts, with warm-up, outlier and trend flags. */
#include "etprof_runs.h"
#include "model_int.h"
#include "ops_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct etp_runs_result {
    etp_runs_opts opts;
    etp_runs_row *rows;
    size_t nrows;
    etp_runs_method *methods;
    size_t nmethods;
    etp_runs_backend *backends; /* all rows' entries */
    etp_runs_qnn *qnn;
    uint64_t charged; /* of the memory budget (ETP_MEM_PER_RUN a run), until freed */
};

/* The block of run k counted over every method's runs in order (etp__budget_blocks). */
static uint32_t block_of_run(const void *ctx, uint64_t k) {
    const etp_ops_result *r = ctx;
    for (size_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        if (k < m->runs) {
            const uint32_t *b = etp__ops_run_blocks(r, mi);
            return b ? b[k] : (uint32_t)k;
        }
        k -= m->runs;
    }
    return 0;
}

void etp_runs_opts_init(etp_runs_opts *o) {
    o->warmup_factor = 1.5;
    o->outlier_k = 3.5;
    o->trend_alpha = 0.05;
    o->trend_pct = 5;
}

const char *etp_runs_trend_name(etp_runs_trend t) {
    switch (t) {
    case ETP_TREND_TOO_FEW: return "too few runs";
    case ETP_TREND_STABLE: return "stable";
    case ETP_TREND_UP: return "drifting up";
    case ETP_TREND_DOWN: return "drifting down";
    }
    return "too few runs";
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median of v[0..n) (sorted in place); NaN when n == 0 */
static double median(double *v, size_t n) {
    if (!n) return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return etp_percentile(v, n, 50);
}

int etp_theil_sen(const double *x, const double *y, size_t n, double *slope, double *p) {
    *slope = *p = NAN;
    if (n < 2) return ETP_OK;
    size_t np = n * (n - 1) / 2, k = 0;
    double *s = malloc(np * sizeof *s);
    if (!s) return ETP_E_INTERNAL;
    double S = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double d = y[j] - y[i];
            S += (d > 0) - (d < 0);
            if (x[j] != x[i]) s[k++] = d / (x[j] - x[i]);
        }
    *slope = median(s, k);
    free(s);
    double var = (double)n * (double)(n - 1) * (2.0 * (double)n + 5) / 18.0;
    double z = S > 0 ? (S - 1) / sqrt(var) : S < 0 ? (S + 1) / sqrt(var) : 0;
    *p = erfc(fabs(z) / sqrt(2.0));
    return ETP_OK;
}

/* Whether `name` holds `key` (lower case), in any case. */
static bool name_holds(const char *name, const char *key) {
    size_t kl = strlen(key);
    for (const char *c = name; *c; c++) {
        size_t j = 0;
        while (j < kl && c[j] && tolower((unsigned char)c[j]) == key[j]) j++;
        if (j == kl) return true;
    }
    return false;
}

/* A decode-style method (one token per run) by its name: "decode", "kv" or "token", unless it
 * also says it takes a whole prompt ("prefill", "prompt": a KV-cache prefill method holds "kv"
 * too, and its run is many tokens). */
static bool decode_name(const char *name) {
    if (!name || name_holds(name, "prefill") || name_holds(name, "prompt")) return false;
    return name_holds(name, "decode") || name_holds(name, "kv") || name_holds(name, "token");
}

bool etp__warmup_is(const double *execute, size_t i, double factor, double median_all,
                    bool prev_warmup) {
    if (i == 0) return true;
    return prev_warmup && !isnan(execute[i]) && !isnan(median_all) &&
           execute[i] > factor * median_all;
}

double etp__per_second(uint32_t runs, double total, etp_unit unit) {
    if (unit != ETP_UNIT_NS || !(total > 0) || !runs) return NAN;
    return (double)runs / (total / 1e9);
}

#define TREND_MAX 2000

/* Flags and the trend of method `mr` over its rows rows[0..n). */
static int judge(etp_runs_result *x, etp_runs_method *mr, etp_runs_row *rows, size_t n) {
    const etp_runs_opts *o = &x->opts;
    double *v = malloc((n ? n : 1) * sizeof *v), *tx = malloc((n ? n : 1) * sizeof *tx);
    if (!v || !tx) {
        free(v);
        free(tx);
        return ETP_E_INTERNAL;
    }
    size_t m = 0;
    mr->execute_total = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(rows[i].execute)) {
            v[m++] = rows[i].execute;
            mr->execute_total += rows[i].execute;
        }
    mr->median_all = median(v, m);
    for (size_t i = 0; i < n; i++) v[i] = rows[i].execute;
    for (size_t i = 0; i < n; i++) {
        rows[i].warmup = etp__warmup_is(v, i, o->warmup_factor, mr->median_all, i && rows[i - 1].warmup);
        mr->warmup_runs += rows[i].warmup;
    }
    m = 0;
    mr->steady_execute_total = 0;
    for (size_t i = 0; i < n; i++)
        if (!rows[i].warmup && !isnan(rows[i].execute)) {
            v[m++] = rows[i].execute;
            mr->steady_execute_total += rows[i].execute;
        }
    mr->steady_runs = (uint32_t)m;
    mr->median = median(v, m);
    for (size_t i = 0; i < m; i++) v[i] = fabs(v[i] - mr->median);
    double mad = median(v, m);
    mr->scale = 1.4826 * mad;
    if (m && !(mr->scale > 0)) {
        double s = 0;
        for (size_t i = 0; i < m; i++) s += v[i];
        mr->scale = 1.2533 * s / (double)m;
    }
    if (!m) mr->scale = NAN;
    for (size_t i = 0; i < n; i++) {
        etp_runs_row *rw = &rows[i];
        rw->robust_z = NAN;
        if (rw->warmup || isnan(rw->execute) || !(mr->scale > 0)) continue;
        rw->robust_z = (rw->execute - mr->median) / mr->scale;
        rw->outlier = fabs(rw->robust_z) > o->outlier_k;
        mr->outliers += rw->outlier;
    }
    /* trend over the steady runs (at most TREND_MAX, evenly spaced) */
    size_t t = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].warmup || isnan(rows[i].execute)) continue;
        tx[t] = (double)rows[i].run;
        v[t++] = rows[i].execute;
    }
    if (t > TREND_MAX) {
        for (size_t j = 0; j < TREND_MAX; j++) {
            size_t src = (size_t)((double)j * (double)(t - 1) / (TREND_MAX - 1) + 0.5);
            tx[j] = tx[src];
            v[j] = v[src];
        }
        t = TREND_MAX;
    }
    mr->trend_runs = (uint32_t)t;
    mr->slope = mr->drift_pct = mr->trend_p = NAN;
    mr->trend = ETP_TREND_TOO_FEW;
    if (t >= 5) {
        if (etp_theil_sen(tx, v, t, &mr->slope, &mr->trend_p)) {
            free(v);
            free(tx);
            return ETP_E_INTERNAL;
        }
        double span = tx[t - 1] - tx[0];
        mr->drift_pct = mr->median > 0 ? mr->slope * span / mr->median * 100.0 : NAN;
        mr->trend = ETP_TREND_STABLE;
        if (mr->trend_p < o->trend_alpha && !isnan(mr->drift_pct)) {
            if (mr->drift_pct >= o->trend_pct) mr->trend = ETP_TREND_UP;
            else if (mr->drift_pct <= -o->trend_pct) mr->trend = ETP_TREND_DOWN;
        }
    }
    free(v);
    free(tx);
    return ETP_OK;
}

int etp_runs_compute(const etp_ops_result *r, const etp_runs_opts *o, etp_runs_result **out,
                     etp_error *err) {
    *out = NULL;
    etp_runs_result *x = calloc(1, sizeof *x);
    if (!x) goto oom;
    if (o) x->opts = *o;
    else etp_runs_opts_init(&x->opts);
    const etp_runs_opts *op = &x->opts;
    if (!(op->warmup_factor > 0) || !(op->outlier_k > 0) || !(op->trend_alpha > 0) ||
        !(op->trend_alpha < 1) || !(op->trend_pct >= 0)) {
        etp_error_set(err, ETP_E_USAGE, "", -1, "etp_runs_opts",
                      "warmup_factor and outlier_k must be > 0, trend_alpha in (0, 1), trend_pct "
                      ">= 0");
        free(x);
        return ETP_E_USAGE;
    }
    size_t nm = etp_ops_method_count(r), nrow = etp_ops_row_count(r);
    size_t total_runs = 0, nback = 0, nq = 0;
    for (size_t mi = 0; mi < nm; mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        size_t nd = 0, nqm = 0;
        for (uint32_t j = 0; j < m->n_parts; j++) nd += m->parts[j].place == ETP_PLACE_DELEGATE;
        for (size_t q = 0; q < etp_ops_qnn_count(r); q++) nqm += etp_ops_qnn_get(r, q)->method == mi;
        total_runs += m->runs;
        nback += (size_t)m->runs * nd;
        nq += (size_t)m->runs * nqm;
    }
    /* one row per run, and the table of them: the budget first (model_int.h) */
    int brc = etp__budget_blocks(etp__ops_dump(r), etp__ops_dump_name(r), total_runs,
                                 ETP_MEM_PER_RUN, "runs listed one by one", block_of_run, r, err);
    if (brc) {
        free(x);
        return brc;
    }
    x->charged = (uint64_t)total_runs * ETP_MEM_PER_RUN;
    x->rows = calloc(total_runs ? total_runs : 1, sizeof *x->rows);
    x->methods = calloc(nm ? nm : 1, sizeof *x->methods);
    x->backends = calloc(nback ? nback : 1, sizeof *x->backends);
    x->qnn = calloc(nq ? nq : 1, sizeof *x->qnn);
    if (!x->rows || !x->methods || !x->backends || !x->qnn) goto oom;
    size_t ro = 0, bo = 0, qo = 0;
    for (size_t mi = 0; mi < nm; mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        const uint32_t *blocks = etp__ops_run_blocks(r, mi);
        etp_runs_row *rows = x->rows + ro;
        uint32_t nd = 0, nqm = 0;
        for (uint32_t j = 0; j < m->n_parts; j++) nd += m->parts[j].place == ETP_PLACE_DELEGATE;
        for (size_t q = 0; q < etp_ops_qnn_count(r); q++) nqm += etp_ops_qnn_get(r, q)->method == mi;
        int32_t part_slot[64]; /* delegate part -> slot in a row's backends */
        uint32_t nslot = 0;
        for (uint32_t j = 0; j < m->n_parts && j < 64; j++)
            part_slot[j] = m->parts[j].place == ETP_PLACE_DELEGATE ? (int32_t)nslot++ : -1;
        int32_t cpu_part = -1;
        for (uint32_t j = 0; j < m->n_parts; j++)
            if (m->parts[j].place == ETP_PLACE_CPU) cpu_part = (int32_t)j;
        for (uint32_t k = 0; k < m->runs; k++) {
            etp_runs_row *rw = &rows[k];
            rw->method = (uint32_t)mi;
            rw->run = k;
            rw->block = blocks ? blocks[k] : 0;
            rw->unit = m->unit;
            rw->execute = NAN;
            rw->n_backends = nd;
            rw->backends = x->backends + bo + (size_t)k * nd;
            rw->n_qnn = nqm;
            rw->qnn = x->qnn + qo + (size_t)k * nqm;
            etp_runs_backend *b = x->backends + bo + (size_t)k * nd;
            for (uint32_t j = 0; j < m->n_parts; j++) {
                if (j >= 64 || part_slot[j] < 0) continue;
                etp_runs_backend *e = &b[part_slot[j]];
                e->placement = m->parts[j].placement;
                e->part = j;
                e->backend = e->overhead = NAN;
            }
            etp_runs_qnn *qq = x->qnn + qo + (size_t)k * nqm;
            uint32_t s = 0;
            for (size_t q = 0; q < etp_ops_qnn_count(r); q++) {
                if (etp_ops_qnn_get(r, q)->method != mi) continue;
                qq[s].qnn = (uint32_t)q;
                for (int t = 0; t < ETP_QT_COUNT_; t++) {
                    int32_t tr = etp_ops_qnn_get(r, q)->top[t];
                    qq[s].value[t] = NAN;
                    qq[s].unit[t] = tr >= 0 ? etp_ops_row_get(r, (size_t)tr)->unit : ETP_UNIT_NONE;
                }
                s++;
            }
        }
        if (m->n_parts > 64) {
            etp_error_set(err, ETP_E_INTERNAL, "", -1, "", "more than 64 backends in one method");
            etp_runs_free(x);
            return ETP_E_INTERNAL;
        }
        /* the per-run values: each row's samples go to the run they belong to */
        for (size_t i = 0; i < nrow; i++) {
            const etp_ops_row *row = etp_ops_row_get(r, i);
            if (row->method != mi) continue;
            int32_t part = etp__ops_row_part(r, i);
            bool is_exec = (int32_t)i == m->exec_row;
            int32_t qslot = -1, qtop = -1;
            uint32_t s = 0;
            for (size_t q = 0; q < etp_ops_qnn_count(r) && qslot < 0; q++) {
                const etp_ops_qnn *g = etp_ops_qnn_get(r, q);
                if (g->method != mi) continue;
                for (int t = 0; t < ETP_QT_COUNT_; t++)
                    if (g->top[t] == (int32_t)i) {
                        qslot = (int32_t)s;
                        qtop = t;
                    }
                s++;
            }
            if (!is_exec && part < 0 && qslot < 0) continue;
            for (uint32_t k = 0; k < row->runs; k++) {
                uint32_t run = etp__ops_sample_run(r, i, k);
                if (run >= m->runs) continue;
                etp_runs_row *rw = &rows[run];
                double v = row->samples[k];
                if (is_exec) rw->execute = isnan(rw->execute) ? v : rw->execute + v;
                if (qslot >= 0) {
                    double *qv = &x->qnn[qo + (size_t)run * nqm + (size_t)qslot].value[qtop];
                    *qv = isnan(*qv) ? v : *qv + v;
                }
                if (part < 0) continue;
                if (part == cpu_part) {
                    rw->cpu += v;
                } else if (part < 64 && part_slot[part] >= 0) {
                    etp_runs_backend *e =
                        &x->backends[bo + (size_t)run * nd + (size_t)part_slot[part]];
                    e->delegate += v;
                    if (row->kind == ETP_KIND_DELEGATE_CALL && row->has_children_same_unit) {
                        double c = etp__ops_sample_child(r, i, k);
                        if (!e->has_backend) e->backend = e->overhead = 0;
                        e->has_backend = true;
                        e->backend += c;
                        e->overhead += v - c;
                    }
                }
            }
        }
        /* a backend that logged time in some run logged it in every run it ran: the runs
         * where it did not are 0, not unknown */
        for (uint32_t j = 0; j < nd; j++) {
            bool any = false;
            for (uint32_t k = 0; k < m->runs; k++) any |= x->backends[bo + (size_t)k * nd + j].has_backend;
            if (!any) continue;
            for (uint32_t k = 0; k < m->runs; k++) {
                etp_runs_backend *e = &x->backends[bo + (size_t)k * nd + j];
                if (!e->has_backend) {
                    e->has_backend = true;
                    e->backend = 0;
                    e->overhead = e->delegate;
                }
            }
        }
        for (uint32_t k = 0; k < m->runs; k++) {
            etp_runs_row *rw = &rows[k];
            rw->delegate = 0;
            for (uint32_t j = 0; j < nd; j++) rw->delegate += rw->backends[j].delegate;
            rw->framework = rw->execute - rw->delegate - rw->cpu;
        }
        etp_runs_method *mr = &x->methods[mi];
        mr->method = (uint32_t)mi;
        mr->runs = m->runs;
        mr->unit = m->unit;
        if (judge(x, mr, rows, m->runs)) goto oom;
        mr->runs_per_second = mr->tokens_per_second = NAN;
        if (m->unit == ETP_UNIT_NS && mr->execute_total > 0)
            mr->runs_per_second = (double)m->runs / (mr->execute_total / 1e9);
        mr->runs_per_second_steady = etp__per_second(mr->steady_runs, mr->steady_execute_total, m->unit);
        mr->tokens_per_second_steady = NAN;
        mr->decode_style = decode_name(m->name);
        if (mr->decode_style) {
            mr->tokens_per_second = mr->runs_per_second;
            mr->tokens_per_second_steady = mr->runs_per_second_steady;
        }
        ro += m->runs;
        bo += (size_t)m->runs * nd;
        qo += (size_t)m->runs * nqm;
    }
    x->nrows = ro;
    x->nmethods = nm;
    *out = x;
    return ETP_OK;
oom:
    etp_runs_free(x);
    etp_error_set(err, ETP_E_INTERNAL, "", -1, "", "out of memory");
    return ETP_E_INTERNAL;
}

void etp_runs_free(etp_runs_result *x) {
    if (!x) return;
    etp__mem_give(x->charged);
    free(x->rows);
    free(x->methods);
    free(x->backends);
    free(x->qnn);
    free(x);
}

size_t etp_runs_row_count(const etp_runs_result *x) { return x->nrows; }
const etp_runs_row *etp_runs_row_get(const etp_runs_result *x, size_t i) {
    return i < x->nrows ? &x->rows[i] : NULL;
}
size_t etp_runs_method_count(const etp_runs_result *x) { return x->nmethods; }
const etp_runs_method *etp_runs_method_get(const etp_runs_result *x, size_t i) {
    return i < x->nmethods ? &x->methods[i] : NULL;
}
const etp_runs_opts *etp_runs_get_opts(const etp_runs_result *x) { return &x->opts; }

/* The one numbering of runs every view shows (etprof.h): 1, 2, ... in file order. */
uint32_t etp_run_number(uint32_t run_index) { return run_index + 1; }
