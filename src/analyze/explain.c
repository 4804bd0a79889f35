/* explain.c - the findings of `etprof explain` as typed facts (include/etprof_explain.h).
 * Nothing is measured or recomputed here: every number is a field of the ops result or a ratio
 * of two of them; the prose lives in the renderer (src/cli/cmd_explain.c). */
#include "etprof_explain.h"
#include "etprof_arm_pmu.h"
#include "etprof_figures.h"
#include "ops_int.h"
#include "qnn_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXPLAIN_TOP_OPS 5

typedef struct xb {
    etp_explain_result res;
    etp_finding *fi;
    size_t nfi, capfi;
    etp_fact *fa;
    size_t nfa, capfa;
    size_t *first; /* per finding: index of its first fact */
    bool oom;
    /* the current list, and the method of the facts added */
    const char *list;
    uint32_t item;
    int32_t method;
} xb;

static etp_fact *add(xb *b, const char *id, etp_fact_kind k) {
    if (b->oom) return NULL;
    if (b->nfa == b->capfa) {
        size_t cap = b->capfa ? 2 * b->capfa : 64;
        etp_fact *p = realloc(b->fa, cap * sizeof *p);
        if (!p) {
            b->oom = true;
            return NULL;
        }
        b->fa = p;
        b->capfa = cap;
    }
    etp_fact *f = &b->fa[b->nfa++];
    memset(f, 0, sizeof *f);
    f->id = id;
    f->kind = k;
    f->row = -1;
    f->list = b->list;
    f->item = b->item;
    f->method = b->method;
    return f;
}

static etp_fact *num(xb *b, const char *id, double v, etp_unit u) {
    etp_fact *f = add(b, id, ETP_FACT_NUMBER);
    if (f) f->value = v, f->unit = u;
    return f;
}
static etp_fact *pct(xb *b, const char *id, double v) {
    etp_fact *f = num(b, id, v, ETP_UNIT_NONE);
    if (f) f->percent = true;
    return f;
}
static etp_fact *cnt(xb *b, const char *id, uint64_t v) {
    etp_fact *f = add(b, id, ETP_FACT_COUNT);
    if (f) f->count = v;
    return f;
}
static etp_fact *txt(xb *b, const char *id, const char *v) {
    etp_fact *f = add(b, id, ETP_FACT_TEXT);
    if (f) f->text = v;
    return f;
}
static etp_fact *flg(xb *b, const char *id, bool v) {
    etp_fact *f = add(b, id, ETP_FACT_FLAG);
    if (f) f->flag = v;
    return f;
}
static etp_fact *row_fact(etp_fact *f, int32_t row, const char *name) {
    if (f) f->row = row, f->name = name;
    return f;
}
static etp_fact *extra(etp_fact *f) {
    if (f) f->extra = true;
    return f;
}
static void cannot(etp_fact *f, const char *settle) {
    if (f) f->cannot_tell = true, f->settle = settle;
}

static void list_begin(xb *b, const char *id, uint64_t n) {
    cnt(b, id, n);
    if (!b->oom) b->fa[b->nfa - 1].kind = ETP_FACT_LIST;
    b->list = id;
    b->item = 0;
}
static void record_begin(xb *b, const char *id, uint64_t n) {
    list_begin(b, id, n);
    if (!b->oom) b->fa[b->nfa - 1].kind = ETP_FACT_RECORD;
}
static void list_end(xb *b) {
    b->list = NULL;
    b->item = 0;
}

static void begin(xb *b, const char *id, etp_explain_question q, int32_t mi, const char *mname,
                  const char *text) {
    if (b->oom) return;
    if (b->nfi == b->capfi) {
        size_t cap = b->capfi ? 2 * b->capfi : 8;
        etp_finding *p = realloc(b->fi, cap * sizeof *p);
        size_t *fp = realloc(b->first, cap * sizeof *fp);
        if (p) b->fi = p;
        if (fp) b->first = fp;
        if (!p || !fp) {
            b->oom = true;
            return;
        }
        b->capfi = cap;
    }
    b->fi[b->nfi] = (etp_finding){.id = id, .question = q, .method = mi, .method_name = mname,
                                  .question_text = text};
    b->first[b->nfi] = b->nfa;
    b->nfi++;
    b->method = mi;
}

static const etp_ops_row *row_at(const etp_ops_result *r, int32_t i) {
    return i >= 0 ? etp_ops_row_get(r, (size_t)i) : NULL;
}

static const etp_ops_qnn *qnn_of(const etp_ops_result *r, uint32_t mi) {
    for (size_t i = 0; i < etp_ops_qnn_count(r); i++)
        if (etp_ops_qnn_get(r, i)->method == mi) return etp_ops_qnn_get(r, i);
    return NULL;
}

static int32_t row_index(const etp_ops_result *r, const etp_ops_row *row) {
    size_t n = etp_ops_row_count(r);
    for (size_t i = 0; row && i < n; i++)
        if (etp_ops_row_get(r, i) == row) return (int32_t)i;
    return -1;
}

static const char *const k_instr_settle =
    "profile again with instruction events on (not method-only)";

/* Question 1: Method::execute, DELEGATE_CALL and the QNN values of one method. */
static void q_same_thing(xb *b, const etp_ops_result *r, uint32_t mi) {
    const etp_ops_method *m = etp_ops_method_get(r, mi);
    const etp_ops_row *exec = row_at(r, m->exec_row);
    const etp_ops_qnn *q = qnn_of(r, mi);
    begin(b, "same_thing", ETP_EXQ_SAME_THING, (int32_t)mi, m->name,
          "Are \"Accelerator (execute) time (cycles)\", \"Method::execute\" and \"DELEGATE_CALL\" "
          "the same thing?");
    txt(b, "method", m->name);
    cnt(b, "runs", m->runs);
    txt(b, "stat", "p50");                      /* every value below is the p50 over the runs */
    txt(b, "time_unit", etp_unit_name(m->unit)); /* of the time values here (a renderer converts) */
    if (exec) row_fact(num(b, "method_execute", exec->stats.p50, exec->unit), m->exec_row, exec->name);
    const etp_ops_row *dc = q ? row_at(r, (int32_t)q->delegate_row) : NULL;
    if (!dc) {
        /* the largest partition, whatever the backend */
        size_t nrows = etp_ops_row_count(r);
        for (size_t i = 0; i < nrows; i++) {
            const etp_ops_row *row = etp_ops_row_get(r, i);
            if (row->method == mi && row->kind == ETP_KIND_DELEGATE_CALL &&
                (!dc || row->stats.p50 > dc->stats.p50))
                dc = row;
        }
    }
    int32_t dci = row_index(r, dc);
    if (dc) {
        row_fact(txt(b, "backend", dc->placement), dci, dc->name);
        row_fact(num(b, "delegate_call", dc->stats.p50, dc->unit), dci, dc->placement);
        if (exec && exec->stats.p50 > 0 && dc->unit == exec->unit)
            pct(b, "delegate_call_share_of_method", dc->stats.p50 / exec->stats.p50 * 100.0);
    }
    etp_fact *ie = extra(flg(b, "instruction_events", m->profiling_level == ETP_PL_FULL));
    if (m->profiling_level != ETP_PL_FULL) cannot(ie, k_instr_settle);
    txt(b, "profiling_level", etp_profiling_level_name(m->profiling_level));
    cnt(b, "delegate_partitions", m->delegate_partitions);
    const etp_ops_part *own = NULL;
    for (uint32_t j = 0; j < m->n_parts; j++)
        if (m->parts[j].backend_own && m->parts[j].backend_row >= 0) own = &m->parts[j];
    if (!q && own) {
        const etp_ops_row *br = row_at(r, own->backend_row);
        flg(b, "qnn_events", br->qnn != ETP_QNN_NONE);
        row_fact(txt(b, "backend_event", br->name), own->backend_row, own->placement);
        row_fact(num(b, "backend_own_time", br->stats.p50, br->unit), own->backend_row,
                 own->placement);
        return;
    }
    if (!q) {
        flg(b, "qnn_events", false);
        return;
    }
    flg(b, "qnn_events", true);
    static const struct {
        etp_qnn_top t;
        const char *label, *key;
    } chain[] = {
        {ETP_QT_QNN_EXECUTE, "QNN (execute) time", "qnn_execute"},
        {ETP_QT_RPC, "RPC (execute) time", "rpc_execute"},
        {ETP_QT_QNN_ACCEL, "QNN accelerator (execute) time", "qnn_accelerator_execute"},
        {ETP_QT_ACCEL_US, "Accelerator (execute) time", "accelerator_execute"},
        {ETP_QT_EXCL_WAIT, "Accelerator (execute excluding wait) time", "accelerator_excluding_wait"},
    };
    for (size_t k = 0; k < sizeof chain / sizeof chain[0]; k++) {
        const etp_ops_row *row = row_at(r, q->top[chain[k].t]);
        if (row) row_fact(num(b, chain[k].key, row->stats.p50, row->unit), q->top[chain[k].t], chain[k].label);
    }
    const etp_ops_row *qe = row_at(r, q->top[ETP_QT_QNN_EXECUTE]);
    etp_ops_delegate_time dt;
    if (dc && qe && dc->unit == qe->unit &&
        etp_ops_delegate_time_get(r, q->delegate_row, &dt) == ETP_OK && dt.has_backend) {
        row_fact(num(b, "delegate_overhead", dt.overhead.p50, dc->unit), dci, dc->placement);
        row_fact(num(b, "delegate_backend_time", dt.backend.p50, dc->unit), dci, dc->placement);
    }
    const etp_ops_row *cyc = row_at(r, q->top[ETP_QT_ACCEL_CYCLES]);
    const etp_ops_row *ex = row_at(r, q->top[ETP_QT_EXCL_WAIT]);
    if (cyc) {
        row_fact(num(b, "accelerator_cycles", cyc->stats.p50, ETP_UNIT_CYCLES),
                 q->top[ETP_QT_ACCEL_CYCLES], cyc->name);
        cnt(b, "htp_node_rows", q->node_rows);
        cnt(b, "node_sum_runs_checked", q->runs_checked);
        cnt(b, "node_sum_runs_mismatch", q->runs_sum_mismatch);
        if (ex && ex->stats.p50 > 0) {
            /* the excluding-wait row is in ns: cycles per microsecond */
            etp_fact *f = num(b, "cycles_per_us_excl_wait", cyc->stats.p50 / (ex->stats.p50 / 1000.0),
                              ETP_UNIT_CYCLES);
            if (f) f->per_unit = ETP_UNIT_US;
        }
    }
}

/* Question 2: what ran in a delegate, what on the CPU, and the largest operators, of one method. */
static void q_npu_cpu(xb *b, const etp_ops_result *r, uint32_t mi, bool has_prog, uint32_t ntop) {
    const etp_ops_method *m = etp_ops_method_get(r, mi);
    begin(b, "npu_vs_cpu", ETP_EXQ_NPU_CPU, (int32_t)mi, m->name,
          "Which rows ran on the NPU (inside a delegate) and which fell back to the CPU?");
    txt(b, "method", m->name);
    cnt(b, "delegate_partitions", m->delegate_partitions);
    uint32_t nd = 0;
    for (uint32_t j = 0; j < m->n_parts; j++) nd += m->parts[j].place == ETP_PLACE_DELEGATE;
    list_begin(b, "delegates", nd);
    for (uint32_t j = 0; j < m->n_parts; j++) {
        const etp_ops_part *p = &m->parts[j];
        if (p->place != ETP_PLACE_DELEGATE) continue;
        etp_fact *bk = txt(b, "backend", p->placement);
        if (!has_prog && bk) cannot(bk, "--pte: the program names the backend of each DELEGATE_CALL");
        cnt(b, "partitions", p->partitions);
        pct(b, "share_of_method", p->share);
        b->item++;
    }
    list_end(b);
    uint32_t ninstr = 0;
    for (uint32_t j = 0; j < m->n_cpu_ops; j++) ninstr += m->cpu_ops[j].instructions;
    list_begin(b, "cpu_operators", m->n_cpu_ops);
    for (uint32_t j = 0; j < m->n_cpu_ops; j++) {
        const etp_ops_cpu_op *o = &m->cpu_ops[j];
        txt(b, "operator", o->op);
        cnt(b, "instructions", o->instructions);
        num(b, "per_run", o->per_run, m->unit);
        pct(b, "share_of_method", o->share);
        b->item++;
    }
    list_end(b);
    etp_fact *ci = cnt(b, "cpu_kernel_instructions", ninstr);
    if (ninstr == 0 && m->profiling_level != ETP_PL_FULL)
        cannot(ci, k_instr_settle); /* no OPERATOR_CALL recorded: fallbacks unknown */
    extra(flg(b, "instruction_events", m->profiling_level == ETP_PL_FULL));
    extra(txt(b, "profiling_level", etp_profiling_level_name(m->profiling_level)));
    const etp_ops_part *cpu = NULL;
    for (uint32_t j = 0; j < m->n_parts; j++)
        if (m->parts[j].place == ETP_PLACE_CPU) cpu = &m->parts[j];
    if (cpu) {
        extra(num(b, "cpu_per_run", cpu->per_run, m->unit));
        extra(pct(b, "cpu_share_of_method", cpu->share));
    }
    uint32_t nq = 0, nodes = 0, aten = 0;
    for (size_t i = 0; i < etp_ops_qnn_count(r); i++) {
        const etp_ops_qnn *q = etp_ops_qnn_get(r, i);
        if (q->method != mi) continue;
        nq++;
        nodes += q->node_rows;
        aten += q->node_rows_aten;
    }
    extra(cnt(b, "qnn_partitions", nq));
    cnt(b, "htp_node_rows", nodes);
    cnt(b, "htp_node_rows_aten", aten);
    /* the top operators, as summary, report and `ops --kind operator` rank them */
    size_t nrows = etp_ops_row_count(r);
    uint32_t *top = malloc((nrows ? nrows : 1) * sizeof *top);
    size_t nt = top ? etp_ops_top(r, (int32_t)mi, ntop, top) : 0;
    if (!top) b->oom = true;
    list_begin(b, "top_operators", nt);
    for (size_t k = 0; k < nt; k++) {
        const etp_ops_row *row = etp_ops_row_get(r, top[k]);
        row_fact(add(b, "operator", ETP_FACT_ROW), (int32_t)top[k],
                 row->kind == ETP_KIND_DELEGATE_CALL ? "DELEGATE_CALL" : row->op ? row->op : row->name);
        b->item++;
    }
    list_end(b);
    free(top);
    etp_fact *pg = extra(flg(b, "program_given", has_prog));
    if (!has_prog) cannot(pg, "--pte: backends of the DELEGATE_CALLs and namespaced operator names");
}

static const char *const k_cmd_net_run =
    "qnn-net-run --backend libQnnHtp.so --retrieve_context <graph>.bin --input_list "
    "input_list.txt --use_native_input_files --use_native_output_files --config_file "
    "backend_extension_config.json --profiling_level detailed --profiling_option optrace";
static const char *const k_cmd_viewer =
    "qnn-profile-viewer --config viewer_config.json --schematic <graph>_schematic.bin --reader "
    "$QNN_SDK_ROOT/lib/x86_64-linux-clang/libQnnHtpOptraceProfilingReader.so --input_log "
    "qnn-profiling-data_0.log --output optrace.json";

/* The units of the rows and the traps: file-wide, some facts per method. */
static void q_units(xb *b, const etp_ops_result *r, double tick_ns) {
    begin(b, "units", ETP_EXQ_UNITS, -1, NULL, "What unit is each number in, and what are the traps?");
    size_t nrows = etp_ops_row_count(r);
    uint64_t per_unit[ETP_UNIT_COUNT_] = {0};
    uint32_t flags = 0, nu = 0;
    for (size_t i = 0; i < nrows; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        per_unit[row->unit]++;
        flags |= etp_disp_row_flags(row);
    }
    for (int u = 1; u < ETP_UNIT_COUNT_; u++) nu += per_unit[u] != 0;
    record_begin(b, "rows_per_unit", nu); /* members: unit name -> rows */
    for (int u = 1; u < ETP_UNIT_COUNT_; u++)
        if (per_unit[u]) cnt(b, etp_unit_name((etp_unit)u), per_unit[u]);
    list_end(b);
    etp_fact *tn = num(b, "tick_ns", tick_ns, ETP_UNIT_NS);
    if (tn) tn->per_unit = ETP_UNIT_TICKS;
    if (per_unit[ETP_UNIT_TICKS] || tick_ns <= 0)
        cannot(tn, "--tick-hz: the rate of the host tick counter");
    extra(flg(b, "qnn_values_not_wall", (flags & ETP_MF_NOT_WALL) != 0));
    if (flags & ETP_MF_QTIMER) flg(b, "qtimer_converted", true);
    for (uint32_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        const etp_ops_qnn *q = qnn_of(r, mi);
        b->method = (int32_t)mi;
        if (q) {
            const etp_ops_row *qa = row_at(r, q->top[ETP_QT_QNN_ACCEL]);
            const etp_ops_row *ac = row_at(r, q->top[ETP_QT_ACCEL_US]);
            if (qa && ac && ac->stats.p50 > 0)
                num(b, "qnn_accelerator_over_accelerator", qa->stats.p50 / ac->stats.p50, ETP_UNIT_NONE);
        }
        const etp_ops_row *exec = row_at(r, m->exec_row);
        if (exec && exec->runs > 2 && exec->stats.p50 > 0) {
            extra(row_fact(num(b, "first_run", exec->samples[0], exec->unit), m->exec_row, m->name));
            extra(row_fact(num(b, "method_p50", exec->stats.p50, exec->unit), m->exec_row, m->name));
            row_fact(num(b, "first_run_over_p50", exec->samples[0] / exec->stats.p50, ETP_UNIT_NONE),
                     m->exec_row, m->name);
        }
        if (m->operator_calls == 0 && m->delegate_calls == 0 && exec) {
            size_t n = 0;
            for (size_t i = 0; i < nrows; i++) {
                const etp_ops_row *row = etp_ops_row_get(r, i);
                n += row->method == mi && row->kind == ETP_KIND_DELEGATE_INTERNAL;
            }
            if (n) {
                etp_fact *mo = extra(flg(b, "method_only_backend_events", true));
                if (mo) mo->name = m->name;
                cannot(mo, k_instr_settle);
            }
        }
    }
    b->method = -1;
}

/* ---- questions 3 and 4: QNN's own files ---------------------------------------------------- */

static etp_fact *i64f(xb *b, const char *id, const etp_qnn_i64 *v) {
    etp_fact *f = num(b, id, v ? (double)v->v : 0, ETP_UNIT_NONE);
    if (f) f->integral = true, f->unknown = !v || !v->has;
    return f;
}
static etp_fact *f64f(xb *b, const char *id, const etp_qnn_f64 *v) {
    bool has = v && v->has;
    etp_fact *f = num(b, id, has ? v->v : NAN, ETP_UNIT_NONE);
    if (f) f->unknown = !has;
    return f;
}

static void set_unit(etp_fact *f, etp_unit u) {
    if (f) f->unit = u;
}
static void set_pct(etp_fact *f) {
    if (f) f->percent = true;
}

static void commands(xb *b) {
    list_begin(b, "commands", 2);
    if (!b->oom) b->fa[b->nfa - 1].flag = true;
    txt(b, "value", k_cmd_net_run);
    b->item++;
    txt(b, "value", k_cmd_viewer);
    list_end(b);
}

static void q_hmx_hvx(xb *b, const etp_ops_result *r, const etp_qnn_derived *d,
                      const etp_qnn_etd_join *j, double clock) {
    begin(b, "hmx_vs_hvx", ETP_EXQ_HMX_HVX, -1, NULL,
          "Does each op run on HMX (the matrix unit) or HVX (the vector unit)?");
    bool have = d && d->n_rows > 0;
    etp_fact *av = flg(b, "available", have);
    if (!have) {
        cannot(av, "--qhas F (QHAS htp_op_instances) or --optrace F (Flags uses_hmx/uses_hvx)");
        list_begin(b, "needs", 2);
        if (!b->oom) b->fa[b->nfa - 1].flag = true;
        txt(b, "value", "--qhas");
        b->item++;
        txt(b, "value", "--optrace");
        list_end(b);
        commands(b);
        return;
    }
    const etp_qnn_summary *s = &d->summary;
    etp_qnn_unit_counts uc;
    etp_qnn_unit_counts_get(d, &uc);
    txt(b, "rows_source", d->rows_source == ETP_QNN_SRC_QHAS ? "qhas" : "optrace");
    cnt(b, "qnn_ops", uc.qnn_ops);
    cnt(b, "ops_using_hmx", uc.hmx);
    cnt(b, "ops_using_hvx", uc.hvx);
    cnt(b, "ops_using_dma", uc.dma);
    cnt(b, "ops_using_both", uc.hmx_and_hvx);
    cnt(b, "ops_dma_only", uc.dma_only);
    cnt(b, "ops_using_none", uc.none);
    set_unit(i64f(b, "hmx_busy_cycles", &s->hmx_busy_cycles), ETP_UNIT_CYCLES);
    set_pct(f64f(b, "hmx_busy_share", &s->hmx_busy_share));
    set_unit(i64f(b, "hmx_op_cycles", &s->hmx_op_cycles), ETP_UNIT_CYCLES);
    set_pct(f64f(b, "hmx_op_share", &s->hmx_op_share));
    cnt(b, "htp_cores", s->htp_cores);
    set_unit(i64f(b, "hvx_busy_cycles", &s->hvx_busy_cycles), ETP_UNIT_CYCLES);
    set_pct(f64f(b, "hvx_busy_share", &s->hvx_busy_share));
    cnt(b, "hvx_threads", s->hvx_threads);
    set_unit(extra(i64f(b, "timeline_cycles", &s->timeline_cycles)), ETP_UNIT_CYCLES);
    /* the largest ops */
    uint32_t *top = malloc((d->n_rows ? d->n_rows : 1) * sizeof *top), nt = 0;
    if (!top || etp_qnn_rows_by_cycles(d, 5, top, &nt) != ETP_OK) b->oom = true;
    list_begin(b, "top_ops", nt);
    for (uint32_t k = 0; k < nt; k++) {
        const etp_qnn_op_row *o = &d->rows[top[k]];
        txt(b, "qnn_op", o->qnn_op);
        txt(b, "qnn_op_type", o->qnn_op_type);
        etp_qnn_i64 v = {o->cycles, true};
        set_unit(i64f(b, "cycles", &v), ETP_UNIT_CYCLES);
        pct(b, "share", o->share);
        flg(b, "hmx", o->hmx);
        flg(b, "hvx", o->hvx);
        flg(b, "dma", o->dma);
        v.v = o->hmx_cycles;
        set_unit(i64f(b, "hmx_cycles", &v), ETP_UNIT_CYCLES);
        v.v = o->hvx_cycles;
        set_unit(i64f(b, "hvx_cycles", &v), ETP_UNIT_CYCLES);
        v.v = o->dma_cycles;
        set_unit(i64f(b, "dma_cycles", &v), ETP_UNIT_CYCLES);
        num(b, "etdump_cycles", j ? j->row_etdump[top[k]] : NAN, ETP_UNIT_CYCLES);
        /* the ETDump wall-time estimate of its matched node: cycles x the partition's ns/cycle */
        double wall = NAN;
        int32_t orow = j ? j->row_ops[top[k]] : -1;
        if (orow >= 0 && !isnan(clock))
            wall = etp_ops_row_get(r, (size_t)orow)->stats.p50 * etp_qnn_wall_ns_per_cycle(r, (size_t)orow);
        row_fact(num(b, "wall_estimate", wall, ETP_UNIT_NS), orow, o->qnn_op);
        b->item++;
    }
    list_end(b);
    free(top);
    if (j) {
        record_begin(b, "join", 15);
        cnt(b, "etdump_nodes", j->n_nodes);
        cnt(b, "qnn_ops", j->n_qnn);
        cnt(b, "named_etdump_nodes", j->n_nodes_named);
        cnt(b, "named_qnn_ops", j->n_qnn_named);
        cnt(b, "named_matched", j->matched_named);
        cnt(b, "matched", j->matched);
        cnt(b, "matched_by_op_id", j->matched_by_id);
        cnt(b, "matched_by_name_only", j->matched_by_name);
        cnt(b, "etdump_only", j->n_etdump_only);
        cnt(b, "qnn_only", j->n_qnn_only);
        cnt(b, "conflicts", j->conflicts);
        cnt(b, "cycles_equal", j->cycles_equal);
        cnt(b, "cycles_different", j->cycles_different);
        txt(b, "verdict", etp_qnn_etd_agreement(j));
        txt(b, "graph", etp_qnn_etd_graph(j));
        list_end(b);
    }
}

static const char *const k_settle_util =
    "NPU utilization and the timeline (--qhas F: the QHAS summary, or --optrace F, computed)";
static const char *const k_settle_vtcm =
    "peak VTCM (--qhas F, or --optrace F when the viewer config had \"memory_info\": true)";
static const char *const k_settle_dram = "DRAM and VTCM traffic (--qhas F)";
static const char *const k_settle_clock =
    "the HTP clock (--runtrace F, measured: the viewer writes <name>_runtrace.json when "
    "viewer_config.json has \"runtrace\": true; else --qhas F approximates it; or --htp-clock-ghz G)";
static const char *const k_settle_heap =
    "the DSP heap (--heap F: the text file the ExecuTorch runtime writes with the runtime option "
    "qnn_runtime_heap_profiling_path, e.g. qnn_executor_runner --heap_profiling_path "
    "htp_heap_usage.txt, profile level above 0)";

static void q_memory(xb *b, const etp_ops_result *r, const etp_qnn_derived *d,
                     const etp_qnn_etd_join *j, double clock, const char *clock_src) {
    const etp_qnn_summary *s = d ? &d->summary : NULL;
    begin(b, "memory_utilization", ETP_EXQ_MEMORY, -1, NULL,
          "How much memory (VTCM/TCM, DRAM, heap) does the NPU use, how busy is it, and at what "
          "clock?");
    bool util = s && s->utilization_percent.has, vtcm = s && s->peak_vtcm_bytes.has,
         dram = s && s->dram_read_bytes.has, heap = s && s->heap_before_bytes.has,
         has_clock = !isnan(clock);
    flg(b, "available", util || vtcm || dram || heap || has_clock);
    extra(flg(b, "qnn_files", s != NULL));
    /* whether those files describe this ETDump's graph (etp_qnn_etd_graph; "unknown" without
     * an ETDump join) */
    extra(txt(b, "qnn_graph", j ? etp_qnn_etd_graph(j) : "unknown"));
    etp_fact *f = f64f(b, "utilization_percent", s ? &s->utilization_percent : NULL);
    if (f) f->percent = true;
    if (!util) cannot(f, k_settle_util);
    f = f64f(b, "idle_percent", s ? &s->idle_percent : NULL);
    if (f) f->percent = true;
    set_unit(i64f(b, "timeline_cycles", s ? &s->timeline_cycles : NULL), ETP_UNIT_CYCLES);
    set_unit(i64f(b, "graph_execute_us", s ? &s->graph_execute_us : NULL), ETP_UNIT_US);
    /* the same time with its source, to the tick from a runtrace (text only) */
    f = extra(f64f(b, "graph_execute_time_us", s ? &s->graph_execute_time_us : NULL));
    set_unit(f, ETP_UNIT_US);
    extra(txt(b, "graph_execute_source",
              s && s->graph_execute_time_us.has
                  ? etp_qnn_exec_time_meaning(s->graph_execute_source, true, s->estimated)
                  : NULL));
    extra(flg(b, "qhas_estimated", s && s->estimated));
    f = i64f(b, "peak_vtcm_bytes", s ? &s->peak_vtcm_bytes : NULL);
    if (f) f->unit = ETP_UNIT_BYTES;
    if (!vtcm) cannot(f, k_settle_vtcm);
    /* the budget the program's QNN graphs were compiled for (its qnn_compile_spec) */
    const etp_qnn_soc *soc = etp__ops_qnn_soc(r);
    bool has_soc = soc && soc->present;
    etp_qnn_i64 budget = {has_soc ? (int64_t)soc->vtcm_mb * 1048576 : 0, has_soc && soc->vtcm_mb};
    set_unit(i64f(b, "vtcm_budget_bytes", &budget), ETP_UNIT_BYTES);
    etp_qnn_f64 vshare = etp_qnn_vtcm_share(s, soc);
    set_pct(f64f(b, "peak_vtcm_share", &vshare));
    txt(b, "soc_model", has_soc ? soc->soc_name : NULL);
    cnt(b, "soc_model_id", has_soc ? (uint64_t)(uint32_t)soc->soc_model : 0);
    cnt(b, "htp_arch", has_soc ? (uint64_t)(uint32_t)soc->htp_arch : 0);
    set_unit(i64f(b, "vtcm_read_bytes", s ? &s->vtcm_read_bytes : NULL), ETP_UNIT_BYTES);
    set_unit(i64f(b, "vtcm_write_bytes", s ? &s->vtcm_write_bytes : NULL), ETP_UNIT_BYTES);
    f = i64f(b, "dram_read_bytes", s ? &s->dram_read_bytes : NULL);
    if (f) f->unit = ETP_UNIT_BYTES;
    if (!dram) cannot(f, k_settle_dram);
    set_unit(i64f(b, "dram_write_bytes", s ? &s->dram_write_bytes : NULL), ETP_UNIT_BYTES);
    if (dram) {
        /* the largest DRAM reader */
        const etp_qnn_op_row *big = NULL;
        for (uint32_t i = 0; i < d->n_rows; i++)
            if (d->rows[i].has_bytes && (!big || d->rows[i].dram_read_bytes > big->dram_read_bytes))
                big = &d->rows[i];
        if (big && big->dram_read_bytes > 0) {
            etp_qnn_i64 v = {big->dram_read_bytes, true};
            f = extra(i64f(b, "largest_dram_reader_bytes", &v));
            if (f) f->unit = ETP_UNIT_BYTES, f->name = big->qnn_op;
        }
    }
    f = i64f(b, "heap_before_bytes", s ? &s->heap_before_bytes : NULL);
    if (f) f->unit = ETP_UNIT_BYTES;
    if (!heap) cannot(f, k_settle_heap);
    set_unit(i64f(b, "heap_after_bytes", s ? &s->heap_after_bytes : NULL), ETP_UNIT_BYTES);
    set_unit(i64f(b, "heap_delta_bytes", s ? &s->heap_delta_bytes : NULL), ETP_UNIT_BYTES);
    if (has_clock) {
        /* the ETDump's accelerator cycles as thread-busy time at that clock */
        for (size_t qi = 0; qi < etp_ops_qnn_count(r); qi++) {
            const etp_ops_qnn *q = etp_ops_qnn_get(r, qi);
            const etp_ops_row *cy = row_at(r, q->top[ETP_QT_ACCEL_CYCLES]);
            const etp_ops_row *ex = row_at(r, q->top[ETP_QT_EXCL_WAIT]);
            if (!cy) continue;
            double busy_us = cy->stats.p50 / clock / 1000.0;
            extra(row_fact(num(b, "accelerator_cycles", cy->stats.p50, ETP_UNIT_CYCLES),
                           q->top[ETP_QT_ACCEL_CYCLES], cy->name));
            if (ex && ex->stats.p50 > 0) {
                double ex_us = ex->stats.p50 / 1000.0;
                extra(row_fact(num(b, "accelerator_excluding_wait_us", ex_us, ETP_UNIT_US),
                               q->top[ETP_QT_EXCL_WAIT], ex->name));
                num(b, "mean_busy_threads_estimate", busy_us / ex_us, ETP_UNIT_NONE);
            }
            num(b, "accelerator_busy_us_estimate", busy_us, ETP_UNIT_US);
            break;
        }
    }
    f = num(b, "clock_ghz", clock, ETP_UNIT_NONE);
    if (!has_clock) cannot(f, k_settle_clock);
    txt(b, "clock_source", clock_src);
    extra(txt(b, "clock_meaning", has_clock ? etp_qnn_clock_meaning(clock_src) : NULL));
    if (!util || !vtcm || !dram || !heap || !has_clock) commands(b);
    /* what the ETDump itself says */
    for (size_t qi = 0; qi < etp_ops_qnn_count(r); qi++) {
        const etp_ops_qnn *q = etp_ops_qnn_get(r, qi);
        const etp_ops_row *th = row_at(r, q->top[ETP_QT_HVX_THREADS]);
        const etp_ops_row *vt = row_at(r, q->top[ETP_QT_VTCM]);
        if (!th && !vt) continue;
        if (th)
            extra(row_fact(num(b, "etdump_hvx_threads", th->stats.p50, ETP_UNIT_COUNT),
                           q->top[ETP_QT_HVX_THREADS], th->name));
        if (vt)
            extra(row_fact(num(b, "etdump_vtcm_acquire", vt->stats.p50, vt->unit),
                           q->top[ETP_QT_VTCM], vt->name));
        break;
    }
}

/* What the ETDump cannot tell. */
static void q_cannot(xb *b, const etp_ops_result *r, const etp_qnn_derived *d,
                     const etp_arm_pmu_report *pmu, const etp_vgf_device_times *vgf) {
    bool any_qnn = etp_ops_qnn_count(r) > 0;
    begin(b, "cannot_tell", ETP_EXQ_CANNOT_TELL, -1, NULL, "What can this file not tell?");
    /* a fact's pointer is valid until the next add (the array may move): settle q first */
    etp_fact *q = flg(b, "qnn", any_qnn);
    if (any_qnn) cannot(q, "a QNN optrace run: optrace.json (--optrace) and its QHAS summary (--qhas)");
    extra(flg(b, "qnn_files", d != NULL)); /* they answer questions 3 and 4 above */
    if (any_qnn) commands(b);
    /* the Arm runner's PMU report in the log the ETDump came from (what the ETDump lacks) */
    if (pmu && pmu->present) {
        extra(cnt(b, "arm_pmu_line", pmu->line));
        extra(cnt(b, "arm_pmu_inferences", pmu->inferences));
        extra(txt(b, "arm_npu", pmu->npu));
        if (pmu->has_npu_cycles)
            extra(num(b, "arm_npu_cycles_per_inference",
                      etp_arm_pmu_per_inference(pmu, pmu->npu_cycles), ETP_UNIT_NONE));
        uint32_t beats = 0;
        for (uint32_t k = 0; k < pmu->n_counters; k++)
            beats += pmu->counters[k].unit == ETP_APU_BEATS;
        extra(cnt(b, "arm_pmu_beat_counters", beats));
        double share = etp_arm_pmu_npu_share(pmu);
        if (!isnan(share)) set_pct(extra(num(b, "arm_npu_share", share, ETP_UNIT_NONE)));
    }
    /* the VGF backend's device time in the runner's log (--runner-log) */
    if (vgf && vgf->n) {
        extra(cnt(b, "vgf_device_lines", vgf->n));
        extra(num(b, "vgf_device_p50", etp_vgf_device_p50_ns(vgf), ETP_UNIT_NS));
        double share = etp_vgf_device_share(vgf, r);
        if (!isnan(share)) set_pct(extra(num(b, "vgf_device_share", share, ETP_UNIT_NONE)));
    }
}

/* What is missing from the file or the command line. */
static void q_missing(xb *b, const etp_ops_result *r, bool has_prog) {
    begin(b, "missing", ETP_EXQ_MISSING, -1, NULL, "What is missing from this file or this command line?");
    etp_fact *pg = flg(b, "pte_given", has_prog);
    if (!has_prog) cannot(pg, "--pte: method names, backends, operator names, the method check");
    etp_fact *rk = cnt(b, "runs", etp_ops_runs_kept(r));
    if (etp_ops_runs_kept(r) < 3) cannot(rk, "more runs: percentiles need at least 3");
    for (uint32_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_qnn *q = qnn_of(r, mi);
        b->method = (int32_t)mi;
        if (q && q->top[ETP_QT_ACCEL_CYCLES] < 0 && q->node_rows == 0)
            cannot(extra(flg(b, "qnn_basic_level", true)), "QNN profile level 2 (detailed)");
        if (q && q->runs_sum_mismatch) extra(cnt(b, "node_sum_runs_mismatch", q->runs_sum_mismatch));
    }
    for (uint32_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        if (m->profiling_level == ETP_PL_FULL) continue;
        b->method = (int32_t)mi;
        etp_fact *pl = extra(txt(b, "profiling_level", etp_profiling_level_name(m->profiling_level)));
        if (pl) pl->name = m->name;
        cannot(pl, k_instr_settle);
    }
    b->method = -1;
}

int etp_explain_compute(const etp_ops_result *r, const etp_explain_options *opt,
                        etp_explain_result **out, etp_error *err) {
    if (!r || !out) {
        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL, "etp_explain_compute: no ops result or out");
        return ETP_E_USAGE;
    }
    *out = NULL;
    bool has_prog = opt && opt->program_given;
    uint32_t ntop = opt && opt->top_ops ? opt->top_ops : EXPLAIN_TOP_OPS;
    xb b = {0};
    uint32_t nm = (uint32_t)etp_ops_method_count(r);
    for (uint32_t mi = 0; mi < nm; mi++) q_same_thing(&b, r, mi);
    for (uint32_t mi = 0; mi < nm; mi++) q_npu_cpu(&b, r, mi, has_prog, ntop);
    q_units(&b, r, opt ? opt->tick_ns : 0);
    const etp_qnn_derived *qd = opt ? opt->qnn : NULL;
    double clock = opt && opt->htp_clock_ghz > 0 ? opt->htp_clock_ghz : NAN;
    if (etp_ops_qnn_count(r) > 0 || qd) {
        q_hmx_hvx(&b, r, qd, opt ? opt->qnn_join : NULL, clock);
        q_memory(&b, r, qd, opt ? opt->qnn_join : NULL, clock,
                 isnan(clock) ? NULL : opt->htp_clock_source);
    }
    q_cannot(&b, r, qd, opt ? opt->arm_pmu : NULL, opt ? opt->vgf : NULL);
    q_missing(&b, r, has_prog);
    /* one block: the result, then the findings, then the facts */
    etp_explain_result *x = NULL;
    if (!b.oom) {
        size_t sz = sizeof *x + b.nfi * sizeof(etp_finding) + b.nfa * sizeof(etp_fact);
        x = malloc(sz);
    }
    if (!x) {
        free(b.fa);
        free(b.fi);
        free(b.first);
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    etp_finding *fi = (etp_finding *)(x + 1);
    etp_fact *fa = (etp_fact *)(fi + b.nfi);
    if (b.nfa) memcpy(fa, b.fa, b.nfa * sizeof *fa);
    for (size_t i = 0; i < b.nfi; i++) {
        fi[i] = b.fi[i];
        size_t end = i + 1 < b.nfi ? b.first[i + 1] : b.nfa;
        fi[i].facts = fa + b.first[i];
        fi[i].n_facts = end - b.first[i];
    }
    x->n_findings = b.nfi;
    x->findings = fi;
    free(b.fa);
    free(b.fi);
    free(b.first);
    *out = x;
    return ETP_OK;
}

void etp_explain_free(etp_explain_result *x) { free(x); }

const etp_fact *etp_explain_fact(const etp_finding *f, const char *id) {
    for (size_t i = 0; f && id && i < f->n_facts; i++)
        if (!f->facts[i].list && strcmp(f->facts[i].id, id) == 0) return &f->facts[i];
    return NULL;
}
