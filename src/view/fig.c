/* fig.c - how the shared figures are shown (etprof_figures.h): the display unit of a value,
 * the clock and unit notes, the data-quality notes, and the figures as result-model nodes and
 * JSON members. The figures themselves are computed once, in src/analyze/figures.c. */
#include "analysis.h"
#include "etprof_backend.h"
#include "jw.h"
#include "ops_int.h"
#include "result_int.h"
#include "qnn_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * The display unit of a value (etprof_figures.h)
 * ------------------------------------------------------------------------------------------- */

int etp_disp_init(etp_disp *d, const char *time_unit, double htp_ghz, double tick_ns) {
    memset(d, 0, sizeof *d);
    d->time_unit = time_unit ? time_unit : "us";
    d->unit_ns = etp_time_unit_ns(d->time_unit);
    if (d->unit_ns <= 0) {
        memset(d, 0, sizeof *d);
        return ETP_E_USAGE;
    }
    d->htp_ghz = htp_ghz > 0 ? htp_ghz : 0;
    d->tick_ns = tick_ns;
    snprintf(d->est_unit, sizeof d->est_unit, "est_%s", d->time_unit);
    d->precision = d->unit_ns >= 1e9 ? 9 : d->unit_ns >= 1e6 ? 6 : d->unit_ns >= 1e3 ? 3 : 1;
    return 0;
}

/* A value of a row in unit `u` as displayed, and the displayed unit's name. */
double etp_disp_conv(const etp_disp *d, etp_unit u, double v, const char **uname) {
    if (u == ETP_UNIT_NS) {
        *uname = d->time_unit;
        return v / d->unit_ns;
    }
    if (u == ETP_UNIT_CYCLES && d->htp_ghz > 0) {
        *uname = d->est_unit;
        return v / d->htp_ghz / d->unit_ns;
    }
    *uname = etp_unit_name(u);
    return v;
}

/* Notes explaining the units of rows with these flags and units (bit 1 << etp_unit). Each note
 * goes to emit(). */
void etp_disp_unit_notes(const etp_disp *d, uint32_t flags, uint32_t units,
                         void (*emit)(void *ctx, const char *text), void *ctx) {
    char b[512];
    if (units & (1u << ETP_UNIT_NS)) {
        if (d->tick_ns > 0) {
            snprintf(b, sizeof b,
                     "host times are ETDump ticks converted to ns at %g ns/tick (--tick-ns, "
                     "--tick-hz to change), shown in %s",
                     d->tick_ns, d->time_unit);
            emit(ctx, b);
        }
        if (flags & ETP_MF_NOT_WALL) {
            snprintf(b, sizeof b,
                     "QNN \"(us)\" values are durations QNN reported (logged with start 0, "
                     "not timestamps), also shown in %s",
                     d->time_unit);
            emit(ctx, b);
        }
    }
    if (units & (1u << ETP_UNIT_TICKS)) {
        emit(ctx, "ticks: host ticks of unknown rate (--ticks, or a dump from a bare-metal "
                  "runner's serial log: its cycle counter); give --tick-hz or --tick-ns to "
                  "convert them to time");
    }
    if (flags & ETP_MF_QTIMER)
        emit(ctx, "\"Time for initial VTCM acquire (us)\" and \"Time for HVX + HMX power on and "
                  "acquire (us)\" are 19.2 MHz QTimer ticks despite their label: converted "
                  "(value / 19.2) to time");
    if (units & (1u << ETP_UNIT_CYCLES)) {
        emit(ctx, "cycles: HTP node cycles and \"Accelerator (execute) time (cycles)\" are busy "
                  "cycles summed over the HTP hardware threads (HVX, HMX): work, not wall time; "
                  "a node's share is its % of Accelerator (execute) time (cycles)");
        if (d->htp_ghz > 0) {
            snprintf(b, sizeof b,
                     "%s: an ESTIMATE, cycles / %g GHz (--htp-clock-ghz); thread-aggregate "
                     "busy time, not latency",
                     d->est_unit, d->htp_ghz);
            emit(ctx, b);
        }
    }
    if (units & (1u << ETP_UNIT_RAW))
        emit(ctx, "raw: a delegate value whose unit the file does not state (start time 0, no "
                  "unit suffix): not converted");
    if (flags & (ETP_MF_WRAPPED | ETP_MF_BAD_TIME))
        emit(ctx, "some events had start > end: a 32-bit counter wrap was assumed where "
                  "possible, the others have no duration and only count");
}

void etp_clock_notes(uint32_t flags, void (*emit)(void *ctx, const char *text), void *ctx) {
    if (flags & ETP_MF_MINIMAL_PAL)
        emit(ctx, "some timestamps are 11223344: the minimal PAL has no clock, times are 0");
    if (flags & ETP_MF_NO_CLOCK)
        emit(ctx, "some host timestamps are 0 at both ends: the clock returned 0 (the Arm "
                  "bare-metal runner on a Cortex-M core without a PMU counts no cycles), so those "
                  "times are 0, not measured");
}

/* ---------------------------------------------------------------------------------------------
 * The same figures in JSON, written the same way by every command (analysis.h)
 * ------------------------------------------------------------------------------------------- */

static void node_stat3(etp_node *n, const char *key, const etp_disp *d, etp_unit u, const etp_stats *s) {
    const char *un;
    etp_node *o = etp_node_obj(n, key);
    etp_node_float(o, "p50", etp_disp_conv(d, u, s->p50, &un));
    etp_node_float(o, "avg", etp_disp_conv(d, u, s->avg, &un));
    etp_node_float(o, "total", etp_disp_conv(d, u, s->total, &un));
}

/* The jw versions below write what the node builders build: one definition of each shape. */
static etp_node *scratch(etp_doc **d) {
    *d = etp_doc_new("", -1, NULL, NULL);
    return *d ? etp_node_arr(etp_doc_root(*d), "v") : NULL;
}
static void scratch_write(jw *w, etp_doc *d, etp_node *a) {
    if (!d || !etp_doc_ok(d)) jw_null(w);
    else res_node_json(w, res_node_child(a, 0));
    etp_doc_free(d);
}

etp_node *etp_fig_top_op(etp_node *n, const char *key, const etp_disp *d, const etp_ops_result *r,
                         size_t ri) {
    const etp_ops_row *row = etp_ops_row_get(r, ri);
    const char *un;
    char pl[300];
    etp_node *o = etp_node_obj(n, key);
    etp_node_str(o, "name", row->name);
    if (row->chain >= 0 && row->instr >= 0) etp_node_int(o, "instruction_id", row->instr);
    else etp_node_null(o, "instruction_id");
    etp_node_str(o, "operator", row->op);
    /* the label every view gives (an inferred backend named: etp_backend_placement_label) */
    etp_node_str(o, "placement", etp_backend_placement_label(r, ri, pl, sizeof pl));
    etp_node_str(o, "kind", etp_ops_row_kind_name(row));
    etp_node_uint(o, "count", row->count);
    etp_node_float(o, "p50", etp_disp_conv(d, row->unit, row->stats.p50, &un));
    etp_node_float(o, "avg", etp_disp_conv(d, row->unit, row->stats.avg, &un));
    etp_node_float(o, "total", etp_disp_conv(d, row->unit, row->stats.total, &un));
    etp_node_float(o, "share", row->share);
    etp_node_str(o, "unit", un);
    return o;
}

void ana_json_top_op(jw *w, const etp_disp *d, const etp_ops_result *r, size_t ri) {
    etp_doc *doc;
    etp_node *a = scratch(&doc);
    etp_fig_top_op(a, NULL, d, r, ri);
    scratch_write(w, doc, a);
}

void etp_fig_delegates(etp_node *n, const char *key, const etp_disp *d, const etp_ops_result *r,
                        uint32_t method) {
    etp_node *arr = etp_node_arr(n, key);
    for (size_t i = 0; i < etp_ops_row_count(r); i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        etp_ops_delegate_time t;
        if (row->method != method || etp_ops_delegate_time_get(r, i, &t) != ETP_OK) continue;
        const char *un;
        etp_disp_conv(d, row->unit, 0, &un);
        etp_node *o = etp_node_obj(arr, NULL);
        etp_node_int(o, "instruction_id", row->instr);
        etp_node_str(o, "backend", row->placement);
        etp_node_uint(o, "runs", t.runs);
        etp_node_str(o, "unit", un);
        node_stat3(o, "delegate_call", d, row->unit, &t.delegate);
        if (t.has_backend) node_stat3(o, "backend_time", d, row->unit, &t.backend);
        else etp_node_null(o, "backend_time");
        if (t.has_backend) node_stat3(o, "overhead", d, row->unit, &t.overhead);
        else etp_node_null(o, "overhead");
        /* additive (issue 14.2): which backend, read from the program or inferred */
        etp_backend_guess g;
        etp_backend_infer(r, i, &g);
        etp_node_str(o, "backend_name", g.name);
        etp_node_str(o, "backend_source", !g.name ? NULL : g.inferred ? "inferred" : "program");
        etp_node_uint(o, "inner_rows", g.inner_rows);
    }
}

void ana_json_delegates(jw *w, const etp_disp *d, const etp_ops_result *r, uint32_t method) {
    etp_doc *doc;
    etp_node *a = scratch(&doc);
    etp_fig_delegates(a, NULL, d, r, method);
    scratch_write(w, doc, a);
}

void etp_fig_qnn_join(etp_node *n, const char *key, const etp_qnn_etd_join *j) {
    etp_node *o = etp_node_obj(n, key);
    etp_node_uint(o, "etdump_nodes", j->n_nodes);
    etp_node_uint(o, "matched", j->matched);
    etp_node_uint(o, "matched_by_op_id", j->matched_by_id);
    etp_node_uint(o, "matched_by_name_only", j->matched_by_name);
    etp_node_uint(o, "etdump_only", j->n_etdump_only);
    etp_node_uint(o, "qnn_only", j->n_qnn_only);
    etp_node_uint(o, "conflicts", j->conflicts);
    etp_node_uint(o, "cycles_equal", j->cycles_equal);
    etp_node_uint(o, "cycles_different", j->cycles_different);
    etp_node_str(o, "verdict", etp_qnn_etd_agreement(j));
    etp_node_uint(o, "named_etdump_nodes", j->n_nodes_named);
    etp_node_uint(o, "named_qnn_ops", j->n_qnn_named);
    etp_node_uint(o, "named_matched", j->matched_named);
    etp_node_str(o, "graph", etp_qnn_etd_graph(j));
}

void ana_json_qnn_join(jw *w, const etp_qnn_etd_join *j) {
    etp_doc *doc;
    etp_node *a = scratch(&doc);
    etp_fig_qnn_join(a, NULL, j);
    scratch_write(w, doc, a);
}

void etp_fig_unit_counts(etp_node *n, const char *key, const etp_qnn_unit_counts *u) {
    etp_fig_unit_counts_members(etp_node_obj(n, key), u);
}

void etp_fig_unit_counts_members(etp_node *o, const etp_qnn_unit_counts *u) {
    etp_node_uint(o, "qnn_ops", u->qnn_ops);
    etp_node_uint(o, "htp_ops", u->htp_ops);
    etp_node_uint(o, "ops_using_hmx", u->hmx);
    etp_node_uint(o, "ops_using_hvx", u->hvx);
    etp_node_uint(o, "ops_using_dma", u->dma);
    etp_node_uint(o, "ops_using_both", u->hmx_and_hvx);
    etp_node_uint(o, "ops_dma_only", u->dma_only);
    etp_node_uint(o, "ops_using_none", u->none);
}

void ana_json_unit_counts(jw *w, const etp_qnn_unit_counts *u) {
    etp_doc *doc;
    etp_node *a = scratch(&doc);
    etp_fig_unit_counts(a, NULL, u);
    scratch_write(w, doc, a);
}

/* ---- Data the analyses leave out or reinterpret (docs/analyses.md, "Data quality") ---- */

const char *etp_method_label(const etp_ops_method *m, char *buf, size_t cap) {
    if (m->name) return m->name;
    if (!m->n_candidates) return ETP_METHOD_UNKNOWN_LABEL;
    snprintf(buf, cap, "(ambiguous: %s)", m->candidates);
    return buf;
}

void etp_fig_method_candidates(etp_node *n, const etp_ops_method *m) {
    etp_node *a = etp_node_arr(n, "method_candidates");
    for (uint32_t c = 0; c < m->n_candidates; c++) etp_node_str(a, NULL, m->candidate_names[c]);
}

void ana_json_method_candidates(struct jw *w, const etp_ops_method *m) {
    etp_doc *doc;
    etp_node *a = scratch(&doc);
    etp_fig_method_candidates(etp_node_obj(a, NULL), m);
    jw_key(w, "method_candidates");
    /* the scratch object's one member */
    if (!doc || !etp_doc_ok(doc)) jw_null(w);
    else res_node_json(w, res_node_child(res_node_child(a, 0), 0));
    etp_doc_free(doc);
}

/* A row's unit in the data-quality notes: "time" for host time (shown in the time unit the
 * view uses), else its name ("ticks", "cycles", "count", "bytes", "raw"). */
static const char *unit_word(etp_unit u) { return u == ETP_UNIT_NS ? "time" : etp_unit_name(u); }

/* The name of row's parent in the hierarchy, `none` for a root. */
static const char *parent_name(const etp_ops_result *r, const etp_ops_row *row, const char *none) {
    return row->parent >= 0 ? etp_ops_row_get(r, (size_t)row->parent)->name : none;
}

/* The rows a data-quality note lists: each writes "SEP NAME (instruction N) ..." into b (the
 * length, as snprintf returns it) or returns -1 when the note is not about it. */
typedef int (*note_item)(char *b, size_t cap, const etp_ops_result *r, const etp_ops_row *row,
                         const char *sep);

static int bad_time_item(char *b, size_t cap, const etp_ops_result *r, const etp_ops_row *row,
                         const char *sep) {
    (void)r;
    if (!row->bad_time_count) return -1;
    return snprintf(b, cap, "%s %.60s (instruction %d) %llu", sep, row->name, row->instr,
                    (unsigned long long)row->bad_time_count);
}

static int parent_varies_item(char *b, size_t cap, const etp_ops_result *r,
                              const etp_ops_row *row, const char *sep) {
    if (!row->parent_varies) return -1;
    return snprintf(b, cap, "%s %.60s (instruction %d) shown under %.60s", sep, row->name,
                    row->instr, parent_name(r, row, "the top level"));
}

static int unit_varies_item(char *b, size_t cap, const etp_ops_result *r, const etp_ops_row *row,
                            const char *sep) {
    (void)r;
    if (!row->unit_varies) return -1;
    return snprintf(b, cap, "%s %.60s (instruction %d) as %s", sep, row->name, row->instr,
                    unit_word(row->unit));
}

/* Ends the note in b (w bytes written) with the rows item() lists, at most `max` of them and
 * while `room` bytes are left, then ", ..." when fewer than the n rows it is about were listed;
 * emits it. */
static void note_rows(char *b, size_t cap, int w, size_t n, size_t max, size_t room,
                      const etp_ops_result *r, note_item item,
                      void (*emit)(void *ctx, const char *text), void *ctx) {
    size_t shown = 0, nr = etp_ops_row_count(r);
    for (size_t i = 0; i < nr && w > 0 && (size_t)w < cap - room && shown < max; i++) {
        int k = item(b + w, cap - (size_t)w, r, etp_ops_row_get(r, i), shown ? "," : "");
        if (k < 0) continue;
        w += k;
        shown++;
    }
    if (shown < n && w > 0 && (size_t)w < cap - 8) snprintf(b + w, cap - (size_t)w, ", ...");
    emit(ctx, b);
}

void etp_quality_notes(const etp_ops_result *r, void (*emit)(void *ctx, const char *text),
                       void *ctx) {
    char b[700];
    const char *first;
    uint32_t clock = 0; /* the stopped-clock flags of any row */
    for (size_t i = 0; i < etp_ops_row_count(r); i++)
        clock |= etp_ops_row_get(r, i)->flags & (ETP_MF_MINIMAL_PAL | ETP_MF_NO_CLOCK);
    etp_clock_notes(clock, emit, ctx);
    uint32_t nc = etp_ops_method_conflict(r, &first);
    if (nc) {
        snprintf(b, sizeof b,
                 "WARNING: the method given contradicts the files in %u block(s), shown under the "
                 "given name; first: %.500s",
                 nc, first);
        emit(ctx, b);
    }
    uint32_t nm = etp_ops_program_mismatch(r, &first);
    if (nm) {
        snprintf(b, sizeof b,
                 "PROGRAM MISMATCH ignored (--ignore-program-mismatch): %u block(s) do not fit the "
                 "program and are shown without method, operators or backends; first: %.500s",
                 nm, first);
        emit(ctx, b);
    }
    if (etp_qnn_soc_vtcm_note(etp__ops_qnn_soc(r), b, sizeof b) > 0) emit(ctx, b);
    for (size_t i = 0; i < etp_ops_method_count(r); i++) {
        const etp_ops_method *m = etp_ops_method_get(r, i);
        if (!m->n_candidates) continue;
        snprintf(b, sizeof b,
                 "method unknown for %u run(s): they fit %u methods of the program (%.400s) and "
                 "the files cannot tell which ran (same instructions; no logged tensor shape or "
                 "delegate blob tells them apart); they are shown as method \"(ambiguous)\"; "
                 "--method NAME settles it",
                 m->runs + m->skipped, m->n_candidates, m->candidates);
        emit(ctx, b);
    }
    size_t ng;
    const etp_ops_block_group *g = etp_ops_block_groups(r, &ng);
    for (size_t i = 0; i < ng; i++) {
        if (g[i].by_events) {
            snprintf(b, sizeof b,
                     "%u block(s) named \"%.200s\" counted as runs: their events look like an "
                     "execution (instruction-level events or Method::execute), although the "
                     "runtime names its run blocks \"Execute\"",
                     g[i].blocks, g[i].name);
            emit(ctx, b);
        } else if (!g[i].kept && (strcmp(g[i].reason, "not_a_run") == 0 ||
                                  strcmp(g[i].reason, "no_events") == 0)) {
            snprintf(b, sizeof b,
                     "%u block(s) named \"%.200s\" (%llu events) not counted as runs: %s; "
                     "--block \"%.200s\" analyses them",
                     g[i].blocks, g[i].name, (unsigned long long)g[i].events,
                     strcmp(g[i].reason, "no_events") == 0
                         ? "no events"
                         : "no Method::execute and no instruction-level profile event",
                     g[i].name);
            emit(ctx, b);
        }
    }
    for (size_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        if (m->profiling_level == ETP_PL_FULL) continue;
        snprintf(b, sizeof b,
                 "%.200s: profiling level %s: instruction-level events (OPERATOR_CALL, "
                 "DELEGATE_CALL, kernels) were not recorded, which hides the CPU kernels "
                 "(fallbacks), the per-operator times and the host time around each backend call",
                 m->name ? m->name : ETP_METHOD_UNKNOWN_LABEL,
                 etp_profiling_level_name(m->profiling_level));
        emit(ctx, b);
    }
    for (size_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        if (!m->unwrapped_rows || m->operator_calls || m->delegate_calls) continue;
        const etp_ops_row *u = etp_ops_row_get(r, (size_t)m->unwrapped_first);
        snprintf(b, sizeof b,
                 "%.200s: %u row(s) with an instruction id (the first: %.100s, instruction %d) "
                 "were recorded without the runtime's OPERATOR_CALL or DELEGATE_CALL around them "
                 "(a writer other than the runtime's): they are listed as kind \"other\", and "
                 "whether they ran on the CPU or in a backend is unknown",
                 m->name ? m->name : ETP_METHOD_UNKNOWN_LABEL, m->unwrapped_rows,
                 u ? u->name : "?", u ? u->instr : -1);
        emit(ctx, b);
    }
    uint64_t bad = 0, named = 0;
    size_t nbad = 0, nvar = 0, nunit = 0, nr = etp_ops_row_count(r);
    for (size_t i = 0; i < nr; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        bad += row->bad_time_count;
        nbad += row->bad_time_count != 0;
        named += row->event_name != NULL;
        nvar += row->parent_varies;
        nunit += row->unit_varies;
    }
    if (bad) {
        int w = snprintf(b, sizeof b,
                         "%llu event(s) in %zu row(s) end before they start and are no 32-bit "
                         "counter wrap: no duration, left out of the statistics and sums "
                         "(bad_time_count per row):",
                         (unsigned long long)bad, nbad);
        note_rows(b, sizeof b, w, nbad, 5, 120, r, bad_time_item, emit, ctx);
    }
    for (size_t i = 0; i < nr; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        /* a row inside a method cannot take more of it than all of it */
        if (row->kind == ETP_KIND_FRAMEWORK || !etp_unit_is_time(row->unit) ||
            !isfinite(row->share) || row->share <= 100.0 + 1e-9)
            continue;
        snprintf(b, sizeof b,
                 "WARNING: %.100s (instruction %d) is shown at %.2f%% of Method::execute: a part "
                 "cannot take more than the whole; its events are not inside Method::execute, or "
                 "their times come from another clock or unit; its share is not meaningful",
                 row->name, row->instr, row->share);
        emit(ctx, b);
    }
    for (size_t i = 0; i < nr; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        if (!row->nest_over_count) continue;
        snprintf(b, sizeof b,
                 "impossible nesting: %.100s (instruction %d) is up to %.1fx (%.0f%%) the %.100s "
                 "that encloses it, in %llu of %llu occurrence(s): %s; its share and the "
                 "enclosing exclusive time are not meaningful",
                 row->name, row->instr, row->nest_over_max_ratio,
                 100.0 * row->nest_over_max_ratio, parent_name(r, row, "event"),
                 (unsigned long long)row->nest_over_count, (unsigned long long)row->count,
                 row->nest_over_backend
                     ? "a backend-reported duration longer than its host-timed container: a "
                       "wrong host tick rate (--tick-ns, --tick-hz), a value in another unit "
                       "than its label, or clocks that do not match"
                     : "times from clocks or units that do not match");
        emit(ctx, b);
    }
    if (nvar) {
        int w = snprintf(b, sizeof b,
                         "the nesting varies between runs: %zu row(s) are enclosed by different "
                         "events in different runs or occurrences; the tree shows each under the "
                         "first it was seen in, while exclusive times follow each run's own "
                         "nesting, so the children shown under a node need not add up to its "
                         "inclusive minus exclusive time (data_quality.parent_varies):",
                         nvar);
        note_rows(b, sizeof b, w, nvar, 5, 240, r, parent_varies_item, emit, ctx);
    }
    if (nunit) {
        int w = snprintf(b, sizeof b,
                         "units differ between runs: %zu row(s) are one event logged with "
                         "different units in different runs (a start time of 0 makes a delegate "
                         "value read in its label's unit, or raw; otherwise the times give a host "
                         "duration); each unit is its own row, never mixed "
                         "(data_quality.unit_varies):",
                         nunit);
        note_rows(b, sizeof b, w, nunit, 6, 120, r, unit_varies_item, emit, ctx);
    }
    if (named) {
        snprintf(b, sizeof b,
                 "%llu row(s) are events with both a name and a delegate debug id (not written "
                 "by the runtime; Python writers do): delegate-internal, named by the id as the "
                 "Inspector does, their own name in the operator column (event_name)",
                 (unsigned long long)named);
        emit(ctx, b);
    }
}

/* An entry of a data_quality list about one row: {name, instruction_id, ...}. */
static etp_node *row_entry(etp_node *arr, const etp_ops_row *row) {
    etp_node *o = etp_node_obj(arr, NULL);
    etp_node_str(o, "name", row->name);
    if (row->chain >= 0 && row->instr >= 0) etp_node_int(o, "instruction_id", row->instr);
    else etp_node_null(o, "instruction_id");
    return o;
}

void etp_fig_quality(etp_node *n, const char *key, const etp_ops_result *r) {
    size_t ng;
    const etp_ops_block_group *g = etp_ops_block_groups(r, &ng);
    const char *first;
    uint32_t nm = etp_ops_program_mismatch(r, &first);
    etp_node *q = etp_node_obj(n, key);
    etp_node *pm = etp_node_obj(q, "program_mismatch");
    etp_node_uint(pm, "blocks", nm);
    etp_node_str(pm, "first", nm ? first : NULL);
    uint32_t nc = etp_ops_method_conflict(r, &first);
    etp_node *mc = etp_node_obj(q, "method_conflict");
    etp_node_uint(mc, "blocks", nc);
    etp_node_str(mc, "first", nc ? first : NULL);
    etp_node *bl = etp_node_arr(q, "blocks");
    for (size_t i = 0; i < ng; i++) {
        etp_node *o = etp_node_obj(bl, NULL);
        etp_node_str(o, "name", g[i].name);
        etp_node_uint(o, "blocks", g[i].blocks);
        etp_node_uint(o, "events", g[i].events);
        etp_node_bool(o, "counted_as_runs", g[i].kept);
        etp_node_bool(o, "by_events", g[i].by_events);
        etp_node_str(o, "reason", g[i].reason);
        if (g[i].kept) etp_node_null(o, "include_with");
        else {
            char opt[300];
            snprintf(opt, sizeof opt, "--block %s", g[i].name);
            etp_node_str(o, "include_with", opt);
        }
    }
    uint64_t bad = 0, wrapped = 0, named = 0;
    size_t nr = etp_ops_row_count(r);
    etp_node *bt = etp_node_arr(q, "bad_time_rows"), *im = etp_node_arr(q, "impossible_nesting");
    etp_node *pv = etp_node_arr(q, "parent_varies"), *uv = etp_node_arr(q, "unit_varies");
    for (size_t i = 0; i < nr; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        bad += row->bad_time_count;
        wrapped += row->wrapped_count;
        named += row->event_name != NULL;
        if (row->bad_time_count) {
            etp_node *o = row_entry(bt, row);
            etp_node_str(o, "kind", etp_ops_row_kind_name(row));
            etp_node_uint(o, "count", row->count);
            etp_node_uint(o, "bad_time_count", row->bad_time_count);
        }
        if (row->nest_over_count) {
            etp_node *o = row_entry(im, row);
            etp_node_str(o, "parent", parent_name(r, row, NULL));
            etp_node_uint(o, "events", row->nest_over_count);
            etp_node_uint(o, "count", row->count);
            etp_node_float(o, "max_ratio", row->nest_over_max_ratio);
            etp_node_str(o, "suspect",
                         row->nest_over_backend ? "tick_rate_unit_or_clock" : "clock_or_unit");
        }
        if (row->parent_varies) {
            etp_node *o = row_entry(pv, row);
            etp_node_str(o, "shown_under", parent_name(r, row, NULL));
            etp_node_uint(o, "count", row->count);
        }
        if (row->unit_varies) {
            etp_node *o = row_entry(uv, row);
            etp_node_str(o, "kind", etp_ops_row_kind_name(row));
            etp_node_str(o, "unit", unit_word(row->unit));
            etp_node_uint(o, "count", row->count);
        }
    }
    etp_node_uint(q, "bad_time_events", bad);
    etp_node_uint(q, "wrapped_events", wrapped);
    etp_node_uint(q, "named_delegate_rows", named);
}

void ana_json_quality(jw *w, const etp_ops_result *r) {
    etp_doc *doc;
    etp_node *a = scratch(&doc);
    etp_fig_quality(a, NULL, r);
    scratch_write(w, doc, a);
}
