/* arm_pmu_view.c - an Arm runner log's figures as result-model facts, tables and notes
 * (etprof_arm_pmu.h): the Ethos-U PMU report, two reports compared (diff), the VGF device times.
 * The figures come from src/analyze/arm_pmu.c. */
#include "arm_pmu_int.h"
#include "etprof_figures.h"
#include "etprof_result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    size_t nf = etp__arm_pmu_figures(r, f);
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
    size_t nf = etp__arm_pmu_figures(r, f);
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

void etp_fig_vgf_device_times(etp_node *n, const char *key, const etp_disp *d,
                              const etp_vgf_device_times *t, const etp_ops_result *r) {
    if (!t || !t->n) {
        etp_node_null(n, key);
        return;
    }
    etp_stats st;
    if (!etp__vgf_device_stats(t, &st)) return;
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
    vgf_host h = etp__vgf_host_of(r);
    if (h.nrows) {
        etp_node *he = etp_node_obj(o, "etdump_vgf_execute");
        etp_node_uint(he, "count", h.count);
        etp_node_float(he, "p50", etp_disp_conv(d, h.unit, h.p50, &un));
        etp_node_str(he, "unit", h.nrows == 1 ? un : NULL);
    } else {
        etp_node_null(o, "etdump_vgf_execute");
    }
    etp_node_float(o, "device_share_of_host_p50_percent", etp__vgf_device_share(&st, &h));
}

etp_table *etp_vgf_device_table(etp_doc *doc, const etp_disp *d, const etp_vgf_device_times *t,
                                const etp_ops_result *r) {
    if (!t || !t->n) return NULL;
    etp_stats st;
    if (!etp__vgf_device_stats(t, &st)) return NULL;
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
    vgf_host h = etp__vgf_host_of(r);
    if (h.nrows == 1) {
        double v = etp_disp_conv(d, h.unit, h.p50, &un);
        etp_table_row(tb);
        etp_table_str(tb, "ETDump VGF_EXECUTE (host), p50");
        etp_table_float(tb, v);
        etp_table_str(tb, un);
    }
    double sh = etp__vgf_device_share(&st, &h);
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

void etp_vgf_device_notes(const etp_vgf_device_times *t, const etp_ops_result *r,
                          void (*emit)(void *ctx, const char *text), void *ctx) {
    if (!t || !t->n) return;
    char b[512];
    vgf_host h = etp__vgf_host_of(r);
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
