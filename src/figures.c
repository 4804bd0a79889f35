/* figures.c - the figures several commands show, each computed once (etprof.h "Shared
 * figures", qnn_report.h): the top operators of a method, a DELEGATE_CALL split into backend
 * time and the rest, the QNN ops per HTP unit, the QNN ops by cycles. docs/json-contract.md
 * lists where each one appears. */
#include "analysis.h"
#include "etprof_backend.h"
#include "jw.h"
#include "qnn_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t etp_ops_top(const etp_ops_result *r, int32_t method, size_t top, uint32_t *idx) {
    etp_ops_filter f;
    etp_ops_filter_init(&f);
    f.method = method;
    f.kind = "operator";
    f.sort = "total";
    f.top = top;
    size_t n = 0;
    etp_error err = {0};
    if (etp_ops_select(r, &f, idx, &n, &err)) return 0; /* out of memory: nothing to show */
    return n;
}

int etp_ops_delegate_time_get(const etp_ops_result *r, size_t i, etp_ops_delegate_time *out) {
    memset(out, 0, sizeof *out);
    etp_stats_compute(NULL, 0, &out->delegate);
    out->backend = out->overhead = out->delegate;
    if (i >= etp_ops_row_count(r)) return ETP_E_USAGE;
    const etp_ops_row *row = etp_ops_row_get(r, i);
    if (row->kind != ETP_KIND_DELEGATE_CALL ||
        (row->unit != ETP_UNIT_NS && row->unit != ETP_UNIT_TICKS))
        return ETP_E_USAGE;
    out->row = (uint32_t)i;
    out->runs = row->runs;
    out->has_backend = row->has_children_same_unit;
    out->delegate = row->stats;
    out->overhead = row->excl;
    return etp_ops_children_stats(r, i, &out->backend);
}

void etp_qnn_unit_counts_get(const etp_qnn_derived *d, etp_qnn_unit_counts *out) {
    memset(out, 0, sizeof *out);
    if (!d) return;
    out->qnn_ops = d->n_rows;
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const etp_qnn_op_row *o = &d->rows[i];
        out->htp_ops += o->htp_ops;
        out->hmx += o->hmx;
        out->hvx += o->hvx;
        out->dma += o->dma;
        out->hmx_and_hvx += o->hmx && o->hvx;
        out->dma_only += o->dma && !o->hmx && !o->hvx;
        out->none += !o->hmx && !o->hvx && !o->dma;
    }
}

typedef struct cyc_key {
    int64_t cycles;
    uint32_t idx;
} cyc_key;

static int cmp_cycles(const void *x, const void *y) {
    const cyc_key *a = x, *b = y;
    if (a->cycles != b->cycles) return a->cycles > b->cycles ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int etp_qnn_rows_by_cycles(const etp_qnn_derived *d, uint32_t top, uint32_t *idx, uint32_t *n) {
    uint32_t m = d ? d->n_rows : 0;
    *n = 0;
    if (!m) return ETP_OK;
    cyc_key *k = malloc(m * sizeof *k);
    if (!k) return ETP_E_INTERNAL;
    for (uint32_t i = 0; i < m; i++) k[i] = (cyc_key){d->rows[i].cycles, i};
    qsort(k, m, sizeof *k, cmp_cycles);
    if (top && top < m) m = top;
    for (uint32_t i = 0; i < m; i++) idx[i] = k[i].idx;
    free(k);
    *n = m;
    return ETP_OK;
}

/* ---------------------------------------------------------------------------------------------
 * The same figures in JSON, written the same way by every command (analysis.h)
 * ------------------------------------------------------------------------------------------- */

static void json_stat3(jw *w, const ana_disp *d, etp_unit u, const etp_stats *s) {
    const char *un;
    jw_obj_begin(w);
    jw_key(w, "p50"); jw_double(w, ana_conv(d, u, s->p50, &un));
    jw_key(w, "avg"); jw_double(w, ana_conv(d, u, s->avg, &un));
    jw_key(w, "total"); jw_double(w, ana_conv(d, u, s->total, &un));
    jw_obj_end(w);
}

void ana_json_top_op(jw *w, const ana_disp *d, const etp_ops_row *row) {
    const char *un;
    jw_obj_begin(w);
    jw_key(w, "name"); jw_str(w, row->name);
    jw_key(w, "instruction_id");
    if (row->chain >= 0 && row->instr >= 0) jw_int(w, row->instr);
    else jw_null(w);
    jw_key(w, "operator"); jw_str(w, row->op);
    jw_key(w, "placement"); jw_str(w, row->placement);
    jw_key(w, "kind"); jw_str(w, etp_ops_row_kind_name(row));
    jw_key(w, "count"); jw_uint(w, row->count);
    jw_key(w, "p50"); jw_double(w, ana_conv(d, row->unit, row->stats.p50, &un));
    jw_key(w, "avg"); jw_double(w, ana_conv(d, row->unit, row->stats.avg, &un));
    jw_key(w, "total"); jw_double(w, ana_conv(d, row->unit, row->stats.total, &un));
    jw_key(w, "share"); jw_double(w, row->share);
    jw_key(w, "unit"); jw_str(w, un);
    jw_obj_end(w);
}

void ana_json_delegates(jw *w, const ana_disp *d, const etp_ops_result *r, uint32_t method) {
    jw_arr_begin(w);
    for (size_t i = 0; i < etp_ops_row_count(r); i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        etp_ops_delegate_time t;
        if (row->method != method || etp_ops_delegate_time_get(r, i, &t) != ETP_OK) continue;
        const char *un;
        ana_conv(d, row->unit, 0, &un);
        jw_obj_begin(w);
        jw_key(w, "instruction_id"); jw_int(w, row->instr);
        jw_key(w, "backend"); jw_str(w, row->placement);
        jw_key(w, "runs"); jw_uint(w, t.runs);
        jw_key(w, "unit"); jw_str(w, un);
        jw_key(w, "delegate_call"); json_stat3(w, d, row->unit, &t.delegate);
        jw_key(w, "backend_time");
        if (t.has_backend) json_stat3(w, d, row->unit, &t.backend);
        else jw_null(w);
        jw_key(w, "overhead");
        if (t.has_backend) json_stat3(w, d, row->unit, &t.overhead);
        else jw_null(w);
        /* additive (issue 14.2): which backend, read from the program or inferred */
        etp_backend_guess g;
        etp_backend_infer(r, i, &g);
        jw_key(w, "backend_name"); jw_str(w, g.name);
        jw_key(w, "backend_source"); jw_str(w, !g.name ? NULL : g.inferred ? "inferred" : "program");
        jw_key(w, "inner_rows"); jw_uint(w, g.inner_rows);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

void ana_json_qnn_join(jw *w, const etp_qnn_etd_join *j) {
    jw_obj_begin(w);
    jw_key(w, "etdump_nodes"); jw_uint(w, j->n_nodes);
    jw_key(w, "matched"); jw_uint(w, j->matched);
    jw_key(w, "matched_by_op_id"); jw_uint(w, j->matched_by_id);
    jw_key(w, "matched_by_name_only"); jw_uint(w, j->matched_by_name);
    jw_key(w, "etdump_only"); jw_uint(w, j->n_etdump_only);
    jw_key(w, "qnn_only"); jw_uint(w, j->n_qnn_only);
    jw_key(w, "conflicts"); jw_uint(w, j->conflicts);
    jw_key(w, "cycles_equal"); jw_uint(w, j->cycles_equal);
    jw_key(w, "cycles_different"); jw_uint(w, j->cycles_different);
    jw_key(w, "verdict"); jw_str(w, etp_qnn_etd_agreement(j));
    jw_obj_end(w);
}

void ana_json_unit_counts(jw *w, const etp_qnn_unit_counts *u) {
    jw_obj_begin(w);
    jw_key(w, "qnn_ops"); jw_uint(w, u->qnn_ops);
    jw_key(w, "htp_ops"); jw_uint(w, u->htp_ops);
    jw_key(w, "ops_using_hmx"); jw_uint(w, u->hmx);
    jw_key(w, "ops_using_hvx"); jw_uint(w, u->hvx);
    jw_key(w, "ops_using_dma"); jw_uint(w, u->dma);
    jw_key(w, "ops_using_both"); jw_uint(w, u->hmx_and_hvx);
    jw_key(w, "ops_dma_only"); jw_uint(w, u->dma_only);
    jw_key(w, "ops_using_none"); jw_uint(w, u->none);
    jw_obj_end(w);
}

/* ---- Data the analyses leave out or reinterpret (docs/analyses.md, "Data quality") ---- */

const char *ana_method_label(const etp_ops_method *m, char *buf, size_t cap) {
    if (m->name) return m->name;
    if (!m->n_candidates) return "(method unknown)";
    snprintf(buf, cap, "(ambiguous: %s)", m->candidates);
    return buf;
}

void ana_json_method_candidates(struct jw *w, const etp_ops_method *m) {
    jw_key(w, "method_candidates");
    jw_arr_begin(w);
    for (uint32_t c = 0; c < m->n_candidates; c++) jw_str(w, m->candidate_names[c]);
    jw_arr_end(w);
}

void ana_quality_notes(const etp_ops_result *r, void (*emit)(void *ctx, const char *text),
                       void *ctx) {
    char b[700];
    const char *first;
    uint32_t nm = etp_ops_program_mismatch(r, &first);
    if (nm) {
        snprintf(b, sizeof b,
                 "PROGRAM MISMATCH ignored (--ignore-program-mismatch): %u block(s) do not fit the "
                 "program and are shown without method, operators or backends; first: %.500s",
                 nm, first);
        emit(ctx, b);
    }
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
                 m->name ? m->name : "(method unknown)",
                 etp_profiling_level_name(m->profiling_level));
        emit(ctx, b);
    }
    uint64_t bad = 0, named = 0;
    size_t nbad = 0, nr = etp_ops_row_count(r);
    for (size_t i = 0; i < nr; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        bad += row->bad_time_count;
        nbad += row->bad_time_count != 0;
        named += row->event_name != NULL;
    }
    if (bad) {
        int w = snprintf(b, sizeof b,
                         "%llu event(s) in %zu row(s) end before they start and are no 32-bit "
                         "counter wrap: no duration, left out of the statistics and sums "
                         "(bad_time_count per row):",
                         (unsigned long long)bad, nbad);
        size_t shown = 0;
        for (size_t i = 0; i < nr && w > 0 && (size_t)w < sizeof b - 120 && shown < 5; i++) {
            const etp_ops_row *row = etp_ops_row_get(r, i);
            if (!row->bad_time_count) continue;
            w += snprintf(b + w, sizeof b - (size_t)w, "%s %.60s (instruction %d) %llu",
                          shown ? "," : "", row->name, row->instr,
                          (unsigned long long)row->bad_time_count);
            shown++;
        }
        if (shown < nbad && w > 0 && (size_t)w < sizeof b - 8)
            snprintf(b + w, sizeof b - (size_t)w, ", ...");
        emit(ctx, b);
    }
    for (size_t i = 0; i < nr; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        if (!row->nest_over_count) continue;
        const etp_ops_row *pr = row->parent >= 0 ? etp_ops_row_get(r, (size_t)row->parent) : NULL;
        snprintf(b, sizeof b,
                 "impossible nesting: %.100s (instruction %d) is up to %.1fx (%.0f%%) the %.100s "
                 "that encloses it, in %llu of %llu occurrence(s): %s; its share and the "
                 "enclosing exclusive time are not meaningful",
                 row->name, row->instr, row->nest_over_max_ratio,
                 100.0 * row->nest_over_max_ratio, pr ? pr->name : "event",
                 (unsigned long long)row->nest_over_count, (unsigned long long)row->count,
                 row->nest_over_backend
                     ? "a backend-reported duration longer than its host-timed container: a "
                       "wrong host tick rate (--tick-ns, --tick-hz), a value in another unit "
                       "than its label, or clocks that do not match"
                     : "times from clocks or units that do not match");
        emit(ctx, b);
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

void ana_json_quality(jw *w, const etp_ops_result *r) {
    size_t ng;
    const etp_ops_block_group *g = etp_ops_block_groups(r, &ng);
    const char *first;
    uint32_t nm = etp_ops_program_mismatch(r, &first);
    jw_obj_begin(w);
    jw_key(w, "program_mismatch");
    jw_obj_begin(w);
    jw_key(w, "blocks"); jw_uint(w, nm);
    jw_key(w, "first");
    if (nm) jw_str(w, first);
    else jw_null(w);
    jw_obj_end(w);
    jw_key(w, "blocks");
    jw_arr_begin(w);
    for (size_t i = 0; i < ng; i++) {
        jw_obj_begin(w);
        jw_key(w, "name"); jw_str(w, g[i].name);
        jw_key(w, "blocks"); jw_uint(w, g[i].blocks);
        jw_key(w, "events"); jw_uint(w, g[i].events);
        jw_key(w, "counted_as_runs"); jw_bool(w, g[i].kept);
        jw_key(w, "by_events"); jw_bool(w, g[i].by_events);
        jw_key(w, "reason"); jw_str(w, g[i].reason);
        jw_key(w, "include_with");
        if (g[i].kept) jw_null(w);
        else {
            char opt[300];
            snprintf(opt, sizeof opt, "--block %s", g[i].name);
            jw_str(w, opt);
        }
        jw_obj_end(w);
    }
    jw_arr_end(w);
    uint64_t bad = 0, wrapped = 0, named = 0;
    size_t nr = etp_ops_row_count(r);
    jw_key(w, "bad_time_rows");
    jw_arr_begin(w);
    for (size_t i = 0; i < nr; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        bad += row->bad_time_count;
        wrapped += row->wrapped_count;
        named += row->event_name != NULL;
        if (!row->bad_time_count) continue;
        jw_obj_begin(w);
        jw_key(w, "name"); jw_str(w, row->name);
        jw_key(w, "instruction_id");
        if (row->chain >= 0 && row->instr >= 0) jw_int(w, row->instr);
        else jw_null(w);
        jw_key(w, "kind"); jw_str(w, etp_ops_row_kind_name(row));
        jw_key(w, "count"); jw_uint(w, row->count);
        jw_key(w, "bad_time_count"); jw_uint(w, row->bad_time_count);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "impossible_nesting");
    jw_arr_begin(w);
    for (size_t i = 0; i < nr; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        if (!row->nest_over_count) continue;
        const etp_ops_row *pr = row->parent >= 0 ? etp_ops_row_get(r, (size_t)row->parent) : NULL;
        jw_obj_begin(w);
        jw_key(w, "name"); jw_str(w, row->name);
        jw_key(w, "instruction_id");
        if (row->chain >= 0 && row->instr >= 0) jw_int(w, row->instr);
        else jw_null(w);
        jw_key(w, "parent"); jw_str(w, pr ? pr->name : NULL);
        jw_key(w, "events"); jw_uint(w, row->nest_over_count);
        jw_key(w, "count"); jw_uint(w, row->count);
        jw_key(w, "max_ratio"); jw_double(w, row->nest_over_max_ratio);
        jw_key(w, "suspect");
        jw_str(w, row->nest_over_backend ? "tick_rate_unit_or_clock" : "clock_or_unit");
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "bad_time_events"); jw_uint(w, bad);
    jw_key(w, "wrapped_events"); jw_uint(w, wrapped);
    jw_key(w, "named_delegate_rows"); jw_uint(w, named);
    jw_obj_end(w);
}
