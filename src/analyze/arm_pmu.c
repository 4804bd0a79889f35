/* arm_pmu.c - the figures derived from an Arm runner's log (etprof_arm_pmu.h): the Ethos-U PMU
 * report per inference, the NPU share of the CPU cycles, two reports compared, the VGF device
 * time's p50 and its share of VGF_EXECUTE. One definition each; the report is read in
 * src/read/runner_log.c and shown by src/view/arm_pmu_view.c. */
#include "arm_pmu_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- the report's figures, in the order every view shows them ---- */
/* One figure of the report, in the order every view shows them. */

size_t etp__arm_pmu_figures(const etp_arm_pmu_report *r, pmu_fig *f) {
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

/* ---- two reports compared (diff) ---- */


size_t etp_arm_pmu_compare(const etp_arm_pmu_report *base, const etp_arm_pmu_report *new_,
                           etp_arm_pmu_change *out, size_t cap) {
    pmu_fig fb[8 + ETP_ARM_PMU_COUNTERS], fn[8 + ETP_ARM_PMU_COUNTERS];
    size_t nb = present(base) ? etp__arm_pmu_figures(base, fb) : 0, nn = present(new_) ? etp__arm_pmu_figures(new_, fn) : 0;
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

/* ---- the VGF device times ---- */

/* The ETDump's VGF_EXECUTE rows: events, and the one row's p50 and unit (nrows > 1: several
 * delegates or instructions, no single p50). */

vgf_host etp__vgf_host_of(const etp_ops_result *r) {
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
bool etp__vgf_device_stats(const etp_vgf_device_times *t, etp_stats *st) {
    double *v = malloc((t->n ? t->n : 1) * sizeof *v);
    if (!v) return false;
    memcpy(v, t->duration_ns, t->n * sizeof *v);
    etp_stats_compute(v, t->n, st);
    free(v);
    return true;
}

/* 100 x device p50 / host p50, when the host p50 is a time in ns. */
double etp__vgf_device_share(const etp_stats *st, const vgf_host *h) {
    if (h->nrows != 1 || h->unit != ETP_UNIT_NS || !(h->p50 > 0)) return NAN;
    return 100.0 * st->p50 / h->p50;
}

double etp_vgf_device_p50_ns(const etp_vgf_device_times *t) {
    etp_stats st;
    if (!t || !t->n || !etp__vgf_device_stats(t, &st)) return NAN;
    return st.p50;
}

double etp_vgf_device_share(const etp_vgf_device_times *t, const etp_ops_result *r) {
    etp_stats st;
    if (!t || !t->n || !etp__vgf_device_stats(t, &st)) return NAN;
    vgf_host h = etp__vgf_host_of(r);
    return etp__vgf_device_share(&st, &h);
}
