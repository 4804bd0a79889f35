/* backend_view.c - the backend figures as result-model facts (etprof_figures.h; docs/backends.md):
 * the JSON object of etp_backend_figures, its text table, and the backend of each DELEGATE_CALL
 * (read from the program or inferred) for the text views. */
#include "etprof_backend.h"
#include "etprof_figures.h"
#include "backends/backend_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double per_run(const etp_backend_figures *f, double v) {
    return f->runs ? v / f->runs : NAN;
}

/* {"total": t, "per_run": t / runs, "unit": u} converted for display */
static void timed(etp_node *n, const char *key, const etp_disp *d, const etp_backend_figures *f,
                  etp_unit u, double v) {
    etp_node *o = etp_node_obj(n, key);
    const char *un;
    etp_node_float(o, "total", etp_disp_conv(d, u, v, &un));
    etp_node_float(o, "per_run", etp_disp_conv(d, u, per_run(f, v), &un));
    etp_node_str(o, "unit", un);
}

void etp_fig_backend_figures(etp_node *n, const char *key, const etp_disp *d,
                             const etp_backend_figures *f) {
    etp_node *o = etp_node_obj(n, key);
    etp_node_uint(o, "runs", f->runs);
    if (f->coreml_ops || f->coreml_other_unit) {
        etp_node *c = etp_node_obj(o, "coreml");
        etp_node_uint(c, "ops", f->coreml_ops);
        etp_node_str(c, "times", "estimate");
        etp_node_str(c, "times_basis", "the model's wall time split across its ops by "
                                       "estimatedCost (Core ML's own estimate, not measured)");
        timed(c, "estimated_time", d, f, f->coreml_unit, f->coreml_time);
        etp_node_float(c, "estimated_cost", f->coreml_cost);
        etp_node *a = etp_node_arr(c, "by_compute_unit");
        for (int k = 0; k < ETP_CU_COUNT_; k++) {
            if (!f->coreml_ops_cu[k]) continue;
            etp_node *u = etp_node_obj(a, NULL);
            etp_node_str(u, "preferred_compute_unit", etp_coreml_cu_name((etp_coreml_cu)k));
            etp_node_uint(u, "ops", f->coreml_ops_cu[k]);
            timed(u, "estimated_time", d, f, f->coreml_unit, f->coreml_time_cu[k]);
            etp_node_float(u, "estimated_cost", f->coreml_cost_cu[k]);
            etp_node_float(u, "share", f->coreml_time > 0
                                           ? 100.0 * f->coreml_time_cu[k] / f->coreml_time : NAN);
        }
        etp_node_float(c, "ane_share", f->coreml_ane_share);
        etp_node_str(c, "ane_share_basis",
                     "percent of the estimated op time whose preferredComputeUnit is NE (the "
                     "preferred unit: Core ML may still run an op elsewhere)");
        etp_node_uint(c, "ops_with_several_supported_units", f->coreml_multi_cu);
        etp_node_uint(c, "other_unit_events", f->coreml_other_unit);
    } else etp_node_null(o, "coreml");
    if (f->vulkan_dispatches || f->vulkan_phases || f->vulkan_other_unit) {
        etp_node *v = etp_node_obj(o, "vulkan");
        etp_node_uint(v, "dispatches", f->vulkan_dispatches);
        timed(v, "gpu_time", d, f, f->vulkan_unit, f->vulkan_gpu_time);
        etp_node_str(v, "gpu_clock", "device (GPU timestamp queries; not comparable with host "
                                     "timestamps)");
        etp_node *a = etp_node_arr(v, "by_operator");
        for (uint32_t k = 0; k < f->n_vulkan_ops; k++) {
            etp_node *g = etp_node_obj(a, NULL);
            etp_node_str(g, "operator", f->vulkan_ops[k].name);
            etp_node_uint(g, "dispatches", f->vulkan_ops[k].count);
            timed(g, "gpu_time", d, f, f->vulkan_unit, f->vulkan_ops[k].value);
        }
        etp_node_uint(v, "phases", f->vulkan_phases);
        timed(v, "execute_time", d, f, f->vulkan_phase_unit, f->vulkan_execute_time);
        etp_node_str(v, "execute_clock", "host (ETVK_EXECUTE, PAL ticks)");
        etp_node_uint(v, "other_unit_events", f->vulkan_other_unit);
    } else etp_node_null(o, "vulkan");
    if (f->ethosu_scopes || f->ethosu_subscopes) {
        etp_node *e = etp_node_obj(o, "ethosu");
        etp_node_uint(e, "scopes", f->ethosu_scopes);
        etp_node_uint(e, "sub_scopes", f->ethosu_subscopes);
        etp_node_uint(e, "npu_scopes", f->ethosu_npu_scopes);
        if (f->ethosu_npu_scopes) timed(e, "npu_time", d, f, f->ethosu_unit, f->ethosu_npu_time);
        else etp_node_null(e, "npu_time");
    } else etp_node_null(o, "ethosu");
    if (f->vgf_phases || f->vgf_stats_events) {
        etp_node *g = etp_node_obj(o, "vgf");
        etp_node_uint(g, "phases", f->vgf_phases);
        timed(g, "execute_time", d, f, f->vgf_unit, f->vgf_execute_time);
        etp_node *s = etp_node_obj(g, "neural_statistics");
        etp_node_uint(s, "events", f->vgf_stats_events);
        etp_node_uint(s, "not_the_documented_json", f->vgf_stats_bad);
        etp_node_uint(s, "segments", f->vgf_segments);
        etp_node_uint(s, "blobs", f->vgf_blobs);
        etp_node_uint(s, "blobs_available", f->vgf_blobs_available);
        etp_node_uint(s, "blobs_decoded", f->vgf_blobs_decoded);
        etp_node_uint(s, "blobs_bad", f->vgf_blobs_bad);
        etp_node_uint(s, "decoded_bytes", f->vgf_blob_bytes);
    } else etp_node_null(o, "vgf");
    if (f->neutron_ops || f->neutron_dump_events || f->neutron_other_unit) {
        etp_node *x = etp_node_obj(o, "neutron");
        etp_node_uint(x, "ops", f->neutron_ops);
        timed(x, "op_time", d, f, f->neutron_unit, f->neutron_op_time);
        etp_node_uint(x, "profiling_dump_events", f->neutron_dump_events);
        timed(x, "profiling_dump_overhead", d, f, f->neutron_unit, f->neutron_dump_time);
        etp_node_uint(x, "other_unit_events", f->neutron_other_unit);
    } else etp_node_null(o, "neutron");
}

static void trow(etp_table *t, const etp_disp *d, const etp_backend_figures *f, const char *be,
                 const char *what, uint64_t count, etp_unit u, double v, const char *basis) {
    const char *un = NULL;
    etp_table_row(t);
    etp_table_str(t, be);
    etp_table_str(t, what);
    etp_table_uint(t, count);
    if (u == ETP_UNIT_NONE) {
        etp_table_float(t, v);
        etp_table_str(t, "%");
    } else {
        etp_table_float(t, etp_disp_conv(d, u, per_run(f, v), &un));
        etp_table_str(t, un);
    }
    etp_table_str(t, basis);
}

int etp_fig_backend_table(etp_doc *doc, etp_section *s, const etp_disp *d,
                          const etp_backend_figures *f) {
    if (!etp_backend_figures_any(f)) return ETP_OK;
    etp_section_textf(s, ETP_TEXT_WRAP, 2,
                      "\nbackend figures (from each backend's own events, per run over %u "
                      "run(s))\n\n", f->runs);
    static const etp_col cols[] = {
        {"backend", "backend", NULL, ETP_T_STR, false, 0},
        {"figure", "figure", NULL, ETP_T_STR, false, 0},
        {"events", "events", NULL, ETP_T_UINT, false, 0},
        {"value", "per run", NULL, ETP_T_FLOAT, false, 3},
        {"unit", "unit", NULL, ETP_T_STR, false, 0},
        {"basis", "basis / clock", NULL, ETP_T_STR, false, 0},
    };
    etp_col c[6];
    memcpy(c, cols, sizeof c);
    c[3].precision = d->precision;
    etp_table *t = etp_doc_table(doc, c, 6);
    if (!t) return ETP_E_INTERNAL;
    etp_section_table(s, t);
    /* a narrow terminal loses these first (etp_table_droppable) */
    static const char *const drop[] = {"basis:4", "events:3", "backend:2", "value+unit:1", NULL};
    etp_table_droppable(t, drop);
    if (f->coreml_ops) {
        const char *est = "estimate (model time split by estimatedCost)";
        trow(t, d, f, "Core ML", "estimated op time", f->coreml_ops, f->coreml_unit,
             f->coreml_time, est);
        for (int k = 0; k < ETP_CU_COUNT_; k++) {
            if (!f->coreml_ops_cu[k]) continue;
            char w[64];
            snprintf(w, sizeof w, "estimated op time, preferred %s",
                     etp_coreml_cu_name((etp_coreml_cu)k));
            trow(t, d, f, "Core ML", w, f->coreml_ops_cu[k], f->coreml_unit, f->coreml_time_cu[k],
                 est);
        }
        etp_table_row(t);
        etp_table_str(t, "Core ML");
        etp_table_str(t, "share on the ANE (preferred NE)");
        etp_table_uint(t, f->coreml_ops_cu[ETP_CU_NE]);
        etp_table_float(t, f->coreml_ane_share);
        etp_table_str(t, "%");
        etp_table_str(t, "estimate: % of the estimated op time preferring NE");
    }
    if (f->vulkan_dispatches) {
        trow(t, d, f, "Vulkan", "shader dispatches (GPU time)", f->vulkan_dispatches,
             f->vulkan_unit, f->vulkan_gpu_time, "device clock (GPU timestamps)");
        for (uint32_t k = 0; k < f->n_vulkan_ops; k++) {
            char w[600];
            snprintf(w, sizeof w, "  %s (GPU time)", f->vulkan_ops[k].name);
            trow(t, d, f, "Vulkan", w, f->vulkan_ops[k].count, f->vulkan_unit,
                 f->vulkan_ops[k].value, "device clock (GPU timestamps)");
        }
    }
    if (f->vulkan_phases && f->vulkan_phase_unit != ETP_UNIT_NONE)
        trow(t, d, f, "Vulkan", "ETVK_EXECUTE (events: all ETVK_* phases)", f->vulkan_phases, f->vulkan_phase_unit,
             f->vulkan_execute_time, "host clock (ETVK_* phases)");
    if (f->ethosu_scopes || f->ethosu_subscopes) {
        etp_table_row(t);
        etp_table_str(t, "Arm Ethos-U");
        etp_table_str(t, "scopes (+ sub-scopes are children: etprof tree)");
        etp_table_uint(t, f->ethosu_scopes + f->ethosu_subscopes);
        etp_table_null(t);
        etp_table_null(t);
        etp_table_str(t, "host clock (Cortex-M PMU cycles on bare metal: --tick-hz)");
    }
    if (f->ethosu_npu_scopes)
        trow(t, d, f, "Arm Ethos-U", "NPU (+EthosUBackend::execute()NPU)", f->ethosu_npu_scopes,
             f->ethosu_unit, f->ethosu_npu_time,
             "host clock (Cortex-M PMU cycles on bare metal: --tick-hz)");
    if (f->vgf_phases && f->vgf_unit != ETP_UNIT_NONE)
        trow(t, d, f, "Arm VGF", "VGF_EXECUTE (events: all VGF_* phases)", f->vgf_phases, f->vgf_unit, f->vgf_execute_time,
             "host clock (VGF_* phases)");
    if (f->vgf_stats_events) {
        char w[160];
        snprintf(w, sizeof w, "neural statistics: %llu of %llu available blob(s) decoded, %llu "
                              "bytes",
                 (unsigned long long)f->vgf_blobs_decoded,
                 (unsigned long long)f->vgf_blobs_available,
                 (unsigned long long)f->vgf_blob_bytes);
        etp_table_row(t);
        etp_table_str(t, "Arm VGF");
        etp_table_str(t, w);
        etp_table_uint(t, f->vgf_stats_events);
        etp_table_null(t);
        etp_table_null(t);
        etp_table_str(t, "VGF_NEURAL_STATISTICS JSON, base64 blobs");
    }
    if (f->neutron_ops || f->neutron_dump_events) {
        trow(t, d, f, "NXP Neutron", "op time (profiling dump excluded)", f->neutron_ops,
             f->neutron_unit, f->neutron_op_time, "Neutron device clock");
        trow(t, d, f, "NXP Neutron", "profiling-dump overhead (function code 0)",
             f->neutron_dump_events, f->neutron_unit, f->neutron_dump_time,
             "not op time: the dump of the profiling buffer");
    }
    return ETP_OK;
}

/* the DELEGATE_CALL row enclosing row i (itself when it is one), -1 when none */
static int64_t enclosing_call(const etp_ops_result *r, size_t row) {
    int64_t i = (int64_t)row;
    while (i >= 0 && etp_ops_row_get(r, (size_t)i)->kind != ETP_KIND_DELEGATE_CALL)
        i = etp_ops_row_get(r, (size_t)i)->parent;
    return i;
}

const char *etp_backend_placement_label(const etp_ops_result *r, size_t row, char *buf,
                                        size_t cap) {
    const etp_ops_row *w = etp_ops_row_get(r, row);
    const char *p = w->placement ? w->placement : "";
    if (cap) snprintf(buf, cap, "%s", p);
    if (strcmp(p, "delegate") != 0) return buf;
    int64_t i = enclosing_call(r, row);
    if (i < 0) return buf;
    const char *lab = etp__backend_inferred_label(r, (size_t)i);
    if (lab && cap) snprintf(buf, cap, "%s", lab);
    return buf;
}

int etp_backend_placement_labels(const etp_ops_result *r, const char **out) {
    size_t n = etp_ops_row_count(r);
    /* per DELEGATE_CALL row: its label, computed once ("" = none inferred) */
    const char **memo = calloc(n ? n : 1, sizeof *memo);
    if (!memo) return ETP_E_INTERNAL;
    for (size_t k = 0; k < n; k++) {
        const etp_ops_row *w = etp_ops_row_get(r, k);
        out[k] = w->placement;
        if (!w->placement || strcmp(w->placement, "delegate") != 0) continue;
        int64_t i = enclosing_call(r, k);
        if (i < 0) continue;
        if (!memo[i]) {
            const char *lab = etp__backend_inferred_label(r, (size_t)i);
            memo[i] = lab ? lab : "";
        }
        if (*memo[i]) out[k] = memo[i];
    }
    free(memo);
    return ETP_OK;
}

void etp_backend_figures_notes(const etp_backend_figures *f,
                               void (*emit)(void *ctx, const char *text), void *ctx) {
    char b[400];
    if (f->coreml_ops) {
        snprintf(b, sizeof b,
                 "Core ML: the times of its %llu op event(s) are ESTIMATES (the model's wall time "
                 "split across its ops by estimatedCost), not measurements; etprof summary shows "
                 "the share on the ANE",
                 (unsigned long long)f->coreml_ops);
        emit(ctx, b);
    }
    if (f->vulkan_dispatches) {
        snprintf(b, sizeof b,
                 "Vulkan: the %llu shader dispatch event(s) are GPU durations in the device clock "
                 "(GPU timestamps), not host time; the ETVK_* phases are host time",
                 (unsigned long long)f->vulkan_dispatches);
        emit(ctx, b);
    }
    if (f->neutron_dump_events) {
        snprintf(b, sizeof b,
                 "NXP Neutron: the %llu event(s) with function code 0 are the profiling dump's "
                 "overhead, not an op; etprof summary shows the op time without them",
                 (unsigned long long)f->neutron_dump_events);
        emit(ctx, b);
    }
}

void etp_backend_notes(etp_model *m, const etp_ops_result *r,
                       void (*emit)(void *ctx, const char *text), void *ctx) {
    etp_backend_figures f;
    etp_error err = {0};
    if (etp_backend_figures_get(m, r, &f, &err) == ETP_OK) {
        etp_backend_figures_notes(&f, emit, ctx);
    } else {
        /* never dropped silently: the located reason the backends' figures are missing */
        char e[ETP_ERR_FILE_MAX + ETP_ERR_PATH_MAX + ETP_ERR_MSG_MAX + 8], b[sizeof e + 64];
        etp_error_format(&err, e, sizeof e);
        snprintf(b, sizeof b, "backend figures not computed: %s", e);
        emit(ctx, b);
    }
    etp_backend_figures_free(&f);
}

int etp_fig_delegate_split_table(etp_doc *doc, etp_section *s, const etp_disp *d,
                                 const etp_ops_result *r, uint32_t method) {
    etp_table *t = NULL;
    for (size_t i = 0; i < etp_ops_row_count(r); i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        if (row->method != method || row->kind != ETP_KIND_DELEGATE_CALL) continue;
        etp_backend_split sp;
        if (etp_backend_split_get(r, i, &sp) != ETP_OK || !sp.time.has_backend) continue;
        /* backends whose ops are host-timed inside the call (not QNN's values without a
         * timeline: its own views cover it) */
        if (!sp.backend.info || !strcmp(sp.backend.info->clock, "none")) continue;
        if (!t) {
            etp_section_textf(s, ETP_TEXT_WRAP, 2,
                              "\nDELEGATE_CALLs vs the ops their backend logged inside (gap = the "
                              "backend's own overhead and the time between its ops)\n\n");
            static const etp_col cols[] = {
                {"instr", "instr", NULL, ETP_T_INT, false, 0},
                {"backend", "backend", NULL, ETP_T_STR, false, 0},
                {"delegate_call", "DELEGATE_CALL", NULL, ETP_T_FLOAT, false, 3},
                {"backend_ops", "backend ops", NULL, ETP_T_FLOAT, false, 3},
                {"gap", "gap", NULL, ETP_T_FLOAT, false, 3},
                {"unit", "unit", NULL, ETP_T_STR, false, 0},
                {"gap_share", "gap % of call", NULL, ETP_T_FLOAT, false, 2},
            };
            etp_col c[7];
            memcpy(c, cols, sizeof c);
            c[2].precision = c[3].precision = c[4].precision = d->precision;
            t = etp_doc_table(doc, c, 7);
            if (!t) return ETP_E_INTERNAL;
            etp_section_table(s, t);
            static const char *const drop[] = {"gap_share:4", "backend_ops:3", "delegate_call:2",
                                               "gap+unit:1", NULL};
            etp_table_droppable(t, drop);
            etp_table_note(t, "per run: p50 over the runs; backend ops = the backend's outermost "
                              "timed events inside the call");
        }
        const char *un = NULL;
        char lab[300];
        etp_table_row(t);
        etp_table_int(t, row->instr);
        etp_table_str(t, etp_backend_placement_label(r, i, lab, sizeof lab));
        etp_table_float(t, etp_disp_conv(d, row->unit, sp.time.delegate.p50, &un));
        etp_table_float(t, etp_disp_conv(d, row->unit, sp.time.backend.p50, &un));
        etp_table_float(t, etp_disp_conv(d, row->unit, sp.time.overhead.p50, &un));
        etp_table_str(t, un);
        etp_table_float(t, sp.time.delegate.p50 > 0
                               ? 100.0 * sp.time.overhead.p50 / sp.time.delegate.p50 : NAN);
    }
    return ETP_OK;
}
