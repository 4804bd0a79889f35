/* explain_doc.c - the `etprof explain` document (include/etprof_explain_doc.h): the findings of
 * etp_explain_compute (src/analyze/explain.c) rendered as answers in plain words with the file's own
 * numbers, their facts as JSON, and the text views. Moved from the command (src/cli/
 * cmd_explain.c), which now calls etp_explain_doc(); the Python binding renders the same. */
#include "etprof_explain_doc.h"
#include "etprof_etrecord.h"
#include "etprof_qnn.h"
#include "etprof_backend.h"

#include <stdio.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* A growable text (open_memstream). */
typedef struct sbuf {
    char *p;
    size_t n;
    FILE *f;
} sbuf;

static bool sb_open(sbuf *t) {
    t->p = NULL;
    t->n = 0;
    t->f = open_memstream(&t->p, &t->n);
    return t->f != NULL;
}

static char *sb_take(sbuf *s) {
    if (s->f) fclose(s->f);
    s->f = NULL;
    return s->p;
}

static void sb_printf(sbuf *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(sbuf *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(s->f, fmt, ap);
    va_end(ap);
}

#define MAX_FINDINGS 32

typedef struct finding {
    const char *id;
    const char *method;
    const char *question;
    char *answer;
} finding;

/* The renderer's state: the findings are computed by etp_explain_compute (src/analyze/explain.c); this
 * only turns their facts into the answer text and the document's facts nodes. */
typedef struct ex_ctx {
    const etp_ops_result *r;
    const etp_disp *d;
    const etp_qnn_paths *qp; /* QNN's own files given (named in the answers) */
    finding f[MAX_FINDINGS];
    size_t n;
    etp_node *findings; /* the JSON "findings" array */
    /* per finding under construction */
    const etp_finding *cur;
    sbuf ans;
    bool oom;
    const etp_etrecord *rec; /* --etrecord: the module and source of the top operators */
    etp_etr_counts etr;
} ex_ctx;

static void node_facts(ex_ctx *c, etp_node *fx, const etp_finding *fi);

static void begin(ex_ctx *c, const char *id, const char *method, const char *question) {
    if (!sb_open(&c->ans)) c->oom = true;
    c->f[c->n] = (finding){.id = id, .method = method, .question = question};
    c->cur = NULL;
}

/* The finding's record: {id, method, question, answer, facts} (facts on one line). */
static void end(ex_ctx *c) {
    finding *x = &c->f[c->n];
    free(x->answer);
    x->answer = c->ans.f ? sb_take(&c->ans) : NULL;
    if (x->answer) {
        size_t len = strlen(x->answer);
        while (len && x->answer[len - 1] == ' ') x->answer[--len] = 0;
    }
    if (!x->answer) c->oom = true;
    if (c->n + 1 < MAX_FINDINGS) {
        etp_node *o = etp_node_obj(c->findings, NULL);
        etp_node_str(o, "id", x->id);
        etp_node_str(o, "method", x->method);
        etp_node_str(o, "question", x->question);
        etp_node_str(o, "answer", x->answer);
        etp_node *fx = etp_node_obj(o, "facts");
        etp_node_compact(fx);
        if (c->cur) node_facts(c, fx, c->cur);
        c->n++;
    }
}

/* A time value (row unit ns or ticks) at the chosen statistic, in the display unit. */
static double tv(const ex_ctx *c, etp_unit u, double v) {
    const char *un;
    return etp_disp_conv(c->d, u, v, &un);
}

static const char *tu(const ex_ctx *c, etp_unit u) {
    const char *un;
    etp_disp_conv(c->d, u, 0, &un);
    return un;
}


/* "12.3 us" */
static void say_t(ex_ctx *c, etp_unit u, double v) {
    double x = tv(c, u, v);
    sb_printf(&c->ans, "%.*f %s", fabs(x) >= 100 ? 1 : fabs(x) >= 1 ? 2 : 3, x, tu(c, u));
}

/* ------------------------------------------------------------------------------------------- */

/* The facts of a finding as its JSON "facts" object (schema 1): time values in the display
 * unit, "time_unit" the display unit's name, extra facts left out. */
static void node_facts(ex_ctx *c, etp_node *fx, const etp_finding *fi) {
    const char *open = NULL; /* the list being written */
    etp_node *list = NULL;   /* its node */
    etp_node *rec = NULL;    /* its record being written */
    int64_t item = -1;       /* that record's index */
    bool plain = false;      /* its records are plain values (or it is one record) */
    bool record = false;     /* it is one record (a JSON object) */
    for (size_t i = 0; i < fi->n_facts; i++) {
        const etp_fact *f = &fi->facts[i];
        if (f->extra) continue;
        if (open && f->list != open) {
            open = NULL;
            list = rec = NULL;
            item = -1;
            plain = record = false;
        }
        if (f->kind == ETP_FACT_ROW) {
            const etp_ops_row *row = etp_ops_row_get(c->r, (size_t)f->row);
            etp_node *o = etp_fig_top_op(list ? list : fx, NULL, c->d, c->r, (size_t)f->row);
            if (c->rec)
                etp_etrecord_node_cells(o, c->rec, etp_ops_method_get(c->r, row->method)->name, row, NULL);
            continue;
        }
        if (f->list && !plain && (int64_t)f->item != item) {
            rec = etp_node_obj(list, NULL);
            item = f->item;
        }
        etp_node *at = !f->list ? fx : plain ? list : rec;
        const char *key = !f->list || !plain || record ? f->id : NULL;
        switch (f->kind) {
        case ETP_FACT_LIST:
            list = etp_node_arr(at, key);
            open = f->id;
            item = -1;
            plain = f->flag;
            break;
        case ETP_FACT_RECORD:
            list = etp_node_obj(at, key);
            open = f->id;
            item = -1;
            plain = true;
            record = true;
            break;
        case ETP_FACT_NUMBER:
            if (f->unknown) etp_node_null(at, key);
            else if (f->integral) etp_node_int(at, key, (int64_t)f->value);
            else etp_node_float(at, key, f->percent || f->per_unit != ETP_UNIT_NONE || f->unit == ETP_UNIT_CYCLES
                                             ? f->value
                                             : tv(c, f->unit, f->value));
            break;
        case ETP_FACT_COUNT: etp_node_uint(at, key, f->count); break;
        case ETP_FACT_FLAG: etp_node_bool(at, key, f->flag); break;
        case ETP_FACT_TEXT:
            etp_node_str(at, key, strcmp(f->id, "time_unit") == 0 ? c->d->time_unit : f->text);
            break;
        case ETP_FACT_ROW: break;
        }
    }
}

#define FACT(id) etp_explain_fact(fi, id)

/* A member fact of record `item` of list `list`. */
static const etp_fact *member(const etp_finding *fi, const char *list, uint32_t item, const char *id) {
    for (size_t i = 0; i < fi->n_facts; i++) {
        const etp_fact *f = &fi->facts[i];
        if (f->list && strcmp(f->list, list) == 0 && f->item == item && strcmp(f->id, id) == 0)
            return f;
    }
    return NULL;
}

static uint64_t count_of(const etp_finding *fi, const char *id) {
    const etp_fact *f = FACT(id);
    return f ? f->count : 0;
}

/* A DELEGATE_CALL row's backend as the other text views name it (etp_backend_placement_label:
 * the program's, or inferred from the backend's events); `fallback` without a row. */
static const char *dc_label(const ex_ctx *c, int32_t row, const char *fallback, char *buf,
                            size_t n) {
    if (row < 0 || !c->r) return fallback ? fallback : "";
    return etp_backend_placement_label(c->r, (size_t)row, buf, n);
}

/* A group of partitions (npu_vs_cpu.delegates[].backend) of method `mi`: the backend itself, or
 * for the placement "delegate" (no program) the backend its DELEGATE_CALLs were inferred to be
 * when they all agree. */
static const char *group_label(const ex_ctx *c, int32_t mi, const char *backend, char *buf,
                               size_t n) {
    if (!backend || strcmp(backend, "delegate") != 0 || !c->r || mi < 0) return backend;
    const char *one = NULL;
    char lab[300];
    snprintf(buf, n, "%s", backend);
    for (size_t i = 0; i < etp_ops_row_count(c->r); i++) {
        const etp_ops_row *row = etp_ops_row_get(c->r, i);
        if (row->method != (uint32_t)mi || row->kind != ETP_KIND_DELEGATE_CALL || !row->placement ||
            strcmp(row->placement, "delegate") != 0)
            continue;
        etp_backend_placement_label(c->r, i, lab, sizeof lab);
        if (one && strcmp(one, lab) != 0) return backend; /* they differ: the placement */
        if (!one) {
            snprintf(buf, n, "%s", lab);
            one = buf;
        }
    }
    return buf;
}

static void r_same_thing(ex_ctx *c, const etp_finding *fi) {
    begin(c, fi->id, fi->method_name, fi->question_text);
    c->cur = fi;
    sb_printf(&c->ans, "No. They are nested scopes measured by different clocks, and only two of "
                       "them are times. ");
    const etp_fact *me = FACT("method_execute");
    if (me) {
        unsigned runs = (unsigned)count_of(fi, "runs");
        sb_printf(&c->ans, "In %s (p50 over %u run%s): Method::execute = ",
                  fi->method_name ? fi->method_name : "this method", runs, runs == 1 ? "" : "s");
        say_t(c, me->unit, me->value);
        sb_printf(&c->ans, " is the whole method on the host clock. ");
    }
    const etp_fact *dc = FACT("delegate_call"), *ie = FACT("instruction_events");
    if (dc) {
        char lab[300];
        sb_printf(&c->ans, "DELEGATE_CALL [%s] = ", dc_label(c, dc->row, dc->name, lab, sizeof lab));
        say_t(c, dc->unit, dc->value);
        const etp_fact *share = FACT("delegate_call_share_of_method");
        if (share) {
            sb_printf(&c->ans, " (%.1f%% of Method::execute) is ExecuTorch's call into that delegate "
                               "partition (instruction %d), measured by the host around the backend's "
                               "execute(); the rest of Method::execute is the other instructions and "
                               "the interpreter. ",
                      share->value, etp_ops_row_get(c->r, (size_t)dc->row)->instr);
        } else {
            sb_printf(&c->ans, " is ExecuTorch's call into that delegate partition. ");
        }
        uint64_t parts = count_of(fi, "delegate_partitions");
        if (parts > 1)
            sb_printf(&c->ans, "This method has %u delegate partitions; each has its own DELEGATE_CALL. ",
                      (unsigned)parts);
    } else if (ie && !ie->flag) {
        sb_printf(&c->ans, "This method has no DELEGATE_CALL: its profiling level is %s, so the "
                           "instruction events (DELEGATE_CALL, OPERATOR_CALL) were not recorded. ",
                  FACT("profiling_level")->text);
    } else {
        sb_printf(&c->ans, "This method has no DELEGATE_CALL (nothing delegated). ");
    }
    const etp_fact *own = FACT("backend_own_time");
    if (own) {
        sb_printf(&c->ans, "The backend %s logged its own events under Method::execute; its "
                           "top-level \"%s\" = ", own->name, FACT("backend_event")->text);
        say_t(c, own->unit, own->value);
        sb_printf(&c->ans, " is the best available delegate time (the backend's own time, not a "
                           "DELEGATE_CALL: the host time around the backend call is not in the "
                           "file).");
        end(c);
        return;
    }
    const etp_fact *qe = FACT("qnn_events");
    if (!qe || !qe->flag) {
        sb_printf(&c->ans, "The file has no QNN events, so there is no \"Accelerator (execute) time "
                           "(cycles)\" here.");
        end(c);
        return;
    }
    static const char *const chain[] = {"qnn_execute", "rpc_execute", "qnn_accelerator_execute",
                                        "accelerator_execute", "accelerator_excluding_wait"};
    bool first = true;
    for (size_t k = 0; k < sizeof chain / sizeof chain[0]; k++) {
        const etp_fact *f = FACT(chain[k]);
        if (!f) continue;
        sb_printf(&c->ans, first ? "Inside the call, QNN reported durations (not timestamps): %s "
                                 : " which contains %s ",
                  f->name);
        say_t(c, f->unit, f->value);
        first = false;
    }
    if (!first) sb_printf(&c->ans, "; the last one is the NPU's compute wall time. ");
    const etp_fact *ov = FACT("delegate_overhead");
    if (ov) {
        sb_printf(&c->ans, "DELEGATE_CALL minus QNN (execute) time (p50 of the per-run "
                           "difference) = ");
        say_t(c, ov->unit, ov->value);
        sb_printf(&c->ans, " is ExecuTorch and profiling overhead around QnnGraph_execute "
                           "(including walking the profile events after every execute). ");
        if (ov->value < 0)
            sb_printf(&c->ans, "That is negative: QNN (execute) time exceeds the DELEGATE_CALL "
                               "that contains it, so these values are inconsistent (synthetic, or "
                               "logged in another unit than their label says). ");
    }
    const etp_fact *cyc = FACT("accelerator_cycles");
    if (cyc) {
        unsigned checked = (unsigned)count_of(fi, "node_sum_runs_checked");
        sb_printf(&c->ans, "\"Accelerator (execute) time (cycles)\" = %.0f cycles is not a time at all: "
                           "it is the parent of the %u HTP node rows and equals the sum of their "
                           "cycles",
                  cyc->value, (unsigned)count_of(fi, "htp_node_rows"));
        if (checked)
            sb_printf(&c->ans, " (checked: it matches in %u of %u runs)",
                      checked - (unsigned)count_of(fi, "node_sum_runs_mismatch"), checked);
        sb_printf(&c->ans, "; these are busy cycles added up over the HTP hardware threads (HVX and "
                           "HMX), i.e. work, not latency.");
        const etp_fact *cpu = FACT("cycles_per_us_excl_wait");
        if (cpu) {
            sb_printf(&c->ans, " Cycles per microsecond of the excluding-wait time: %.0f", cpu->value);
            if (cpu->value > 2000)
                sb_printf(&c->ans, ", more than one HTP thread at ~2 GHz can do, which shows the "
                                   "aggregation.");
            else sb_printf(&c->ans, ".");
        }
    }
    sb_printf(&c->ans, " They look alike because every QNN value is logged inside the same "
                       "DELEGATE_CALL instruction (same chain and instruction id), with start time 0 "
                       "and the value as end time.");
    end(c);
}

static void r_npu_cpu(ex_ctx *c, const etp_finding *fi) {
    begin(c, fi->id, fi->method_name, fi->question_text);
    c->cur = fi;
    for (uint32_t j = 0; j < count_of(fi, "delegates"); j++) {
        unsigned parts = (unsigned)member(fi, "delegates", j, "partitions")->count;
        const char *bk = member(fi, "delegates", j, "backend")->text;
        char lab[300];
        sb_printf(&c->ans, "%u partition%s ran in %s (%.1f%% of Method::execute). ", parts,
                  parts == 1 ? "" : "s", group_label(c, fi->method, bk, lab, sizeof lab),
                  member(fi, "delegates", j, "share_of_method")->value);
    }
    const etp_fact *ci = FACT("cpu_kernel_instructions");
    unsigned ninstr = (unsigned)ci->count;
    if (ninstr == 0 && ci->cannot_tell) {
        sb_printf(&c->ans, "Unknown: the profiling level is %s, so no instruction events "
                           "(OPERATOR_CALL, DELEGATE_CALL) were recorded and the file cannot tell "
                           "which operators fell back to the CPU. ",
                  FACT("profiling_level")->text);
    } else if (ninstr == 0) {
        sb_printf(&c->ans, "Nothing ran on the CPU as a fallback: the method has no OPERATOR_CALL "
                           "(kernel instruction) events. ");
    } else {
        sb_printf(&c->ans, "%u kernel instruction%s ran on the CPU (not delegated): ", ninstr,
                  ninstr == 1 ? "" : "s");
        for (uint32_t j = 0; j < count_of(fi, "cpu_operators"); j++)
            sb_printf(&c->ans, "%s%ux %s", j ? ", " : "",
                      (unsigned)member(fi, "cpu_operators", j, "instructions")->count,
                      member(fi, "cpu_operators", j, "operator")->text);
        const etp_fact *pr = FACT("cpu_per_run");
        if (pr) {
            sb_printf(&c->ans, "; together ");
            say_t(c, pr->unit, pr->value);
            sb_printf(&c->ans, " per run (%.1f%% of Method::execute). ",
                      FACT("cpu_share_of_method")->value);
        }
    }
    uint64_t nq = count_of(fi, "qnn_partitions");
    unsigned nodes = (unsigned)count_of(fi, "htp_node_rows");
    if (nq && nodes) {
        sb_printf(&c->ans, "The %u \"<name>:OpId_N (cycles)\" / \"Input|Output OpId_N (cycles)\" / "
                           "\"OpId_N (cycles)\" rows (%u of them named aten_*) are HTP nodes of the "
                           "QNN partition: they ran on the NPU. Their aten_* names are the graph node "
                           "names of the delegated subgraph, not CPU kernels; a CPU fallback shows up "
                           "only as an OPERATOR_CALL between DELEGATE_CALLs (QNN never falls back "
                           "inside a partition: unsupported ops are left out at export). ",
                  nodes, (unsigned)count_of(fi, "htp_node_rows_aten"));
    } else if (nq) {
        sb_printf(&c->ans, "The QNN partition logged no HTP node rows (profile level basic?), so "
                           "per-node NPU work is not in this file. ");
    }
    uint64_t nt = count_of(fi, "top_operators");
    bool kernel_listed = false;
    if (nt) {
        sb_printf(&c->ans, "Largest operators by total time (CPU kernels and delegate partitions, "
                           "which do not overlap): ");
        for (uint32_t k = 0; k < nt; k++) {
            const etp_fact *f = member(fi, "top_operators", k, "operator");
            const etp_ops_row *row = etp_ops_row_get(c->r, (size_t)f->row);
            sb_printf(&c->ans, "%s%s", k ? ", " : "", f->name);
            char lab[300];
            if (row->kind == ETP_KIND_DELEGATE_CALL)
                sb_printf(&c->ans, " [%s]", dc_label(c, f->row, row->placement, lab, sizeof lab));
            sb_printf(&c->ans, " (instruction %d, ", row->instr);
            say_t(c, row->unit, row->stats.total);
            sb_printf(&c->ans, " total");
            if (isfinite(row->share)) sb_printf(&c->ans, ", %.1f%% of Method::execute", row->share);
            char *where = c->rec ? etp_etrecord_where(c->rec, etp_ops_method_get(c->r, row->method)->name,
                                                 row, &c->etr)
                                 : NULL;
            if (where) sb_printf(&c->ans, "; %s", where);
            free(where);
            sb_printf(&c->ans, ")");
            kernel_listed |= row->kind == ETP_KIND_KERNEL;
        }
        sb_printf(&c->ans, ". ");
        if (kernel_listed && ninstr)
            sb_printf(&c->ans, "A CPU operator's time in that list is its kernel's "
                               "(native_call_*); the CPU time per run above counts its whole "
                               "OPERATOR_CALL, the kernel and its dispatch. ");
    }
    const etp_fact *pg = FACT("program_given");
    if (pg && !pg->flag)
        sb_printf(&c->ans, "Without --pte the program does not name the backend of each "
                           "DELEGATE_CALL: it is inferred from the events the backend logged where "
                           "they show it (\"(inferred)\"), else shown as \"delegate\"; CPU "
                           "operators are named from their native_call_ events only.");
    end(c);
}

#undef FACT

/* ------------------------------------------------------------------------------------------- */
/* Questions 3 and 4: answered from QNN's own files when given, else where to get them. */

/* "1126400 bytes (1.07 MiB)" */
static void say_bytes(ex_ctx *c, int64_t v) {
    sb_printf(&c->ans, "%lld bytes", (long long)v);
    if (v >= 1024 * 1024) sb_printf(&c->ans, " (%.2f MiB)", (double)v / (1024.0 * 1024.0));
    else if (v >= 1024) sb_printf(&c->ans, " (%.1f KiB)", (double)v / 1024.0);
}

static const char *files_given(const ex_ctx *c, char *b, size_t cap) {
    const etp_qnn_paths *p = c->qp;
    size_t n = 0;
    b[0] = 0;
    const char *names[] = {"--qhas", "--optrace", "--runtrace", "--heap"};
    const char *vals[] = {p->qhas, p->optrace, p->runtrace, p->heap};
    for (int i = 0; i < 4; i++)
        if (vals[i] && n < cap) n += (size_t)snprintf(b + n, cap - n, "%s%s %s", n ? ", " : "",
                                                      names[i], vals[i]);
    return b;
}

#define FACT(id) etp_explain_fact(fi, id)

/* A whole-number fact's value (0 when absent). */
static long long ival(const etp_fact *f) { return f ? (long long)f->value : 0; }

static void r_hmx_hvx(ex_ctx *c, const etp_finding *fi) {
    begin(c, fi->id, fi->method_name, fi->question_text);
    c->cur = fi;
    if (!FACT("available")->flag) {
        sb_printf(&c->ans,
                  "Not from an ETDump: its HTP node events hold one aggregate cycle count per "
                  "node, and QNN's per-op resource mask exists only at the linting profile level, "
                  "which ExecuTorch never requests. The per-op HMX/HVX/DMA flags are in the QNN "
                  "HTP analysis summary (QHAS, optrace_<i>_qnn_htp_analysis_summary.json: give it "
                  "with --qhas F) and in the optrace Chrome trace (optrace_<i>.json: --optrace F, "
                  "Flags uses_hmx/uses_hvx). Both come from an optrace run outside the ExecuTorch "
                  "runtime: compile with QNN profile level 3, then on the device: %s; then on the "
                  "host, with viewer_config.json = {\"features\":{\"qhas_json\":true}}: %s "
                  "(ExecuTorch's backends/qualcomm/debugger/utils.py generate_optrace() runs the "
                  "same steps). Then: etprof explain FILE --qhas F, or etprof qnn FILE --qhas F "
                  "for the table.",
                  member(fi, "commands", 0, "value")->text, member(fi, "commands", 1, "value")->text);
        end(c);
        return;
    }
    char fb[1200];
    if (FACT("join")) {
        /* the library's sentence when the files describe another graph, from the join's facts */
        etp_qnn_etd_join j = {0};
        j.n_nodes = (uint32_t)member(fi, "join", 0, "etdump_nodes")->count;
        j.n_qnn = (uint32_t)member(fi, "join", 0, "qnn_ops")->count;
        j.n_nodes_named = (uint32_t)member(fi, "join", 0, "named_etdump_nodes")->count;
        j.n_qnn_named = (uint32_t)member(fi, "join", 0, "named_qnn_ops")->count;
        j.matched_named = (uint32_t)member(fi, "join", 0, "named_matched")->count;
        j.matched = (uint32_t)member(fi, "join", 0, "matched")->count;
        j.conflicts = (uint32_t)member(fi, "join", 0, "conflicts")->count;
        if (etp_qnn_etd_graph_note(&j, fb, sizeof fb))
            sb_printf(&c->ans, "Trap: %s. ", fb);
    }
    sb_printf(&c->ans, "From %s (per-op unit flags of the %s): of %u QNN ops, %u use HMX, %u use "
                       "HVX (%u both), %u use DMA (%u only move data), %u use none of the three. ",
              files_given(c, fb, sizeof fb),
              strcmp(FACT("rows_source")->text, "qhas") == 0 ? "QHAS htp_op_instances" : "optrace Flags",
              (unsigned)count_of(fi, "qnn_ops"), (unsigned)count_of(fi, "ops_using_hmx"),
              (unsigned)count_of(fi, "ops_using_hvx"), (unsigned)count_of(fi, "ops_using_both"),
              (unsigned)count_of(fi, "ops_using_dma"), (unsigned)count_of(fi, "ops_dma_only"),
              (unsigned)count_of(fi, "ops_using_none"));
    const etp_fact *hmx = FACT("hmx_busy_cycles"), *hvx = FACT("hvx_busy_cycles");
    const etp_fact *hop = FACT("hmx_op_cycles"), *hsh = FACT("hmx_op_share");
    uint32_t cores = (uint32_t)count_of(fi, "htp_cores");
    if (!hmx->unknown)
        sb_printf(&c->ans, "The HMX thread was busy %lld cycles (%.2f%% of the %lld-cycle "
                           "timeline)",
                  ival(hmx), FACT("hmx_busy_share")->value, ival(FACT("timeline_cycles")));
    if (hop->unknown) {
        if (!hmx->unknown) sb_printf(&c->ans, ". ");
    } else if (cores > 1) { /* the thread is core 0's, the ops every core's: no "of which" */
        sb_printf(&c->ans, "%sThe HTP ops using HMX took %lld cycles on the %u cores together. ",
                  hmx->unknown ? "" : ". ", ival(hop), cores);
    } else if (!hmx->unknown) {
        sb_printf(&c->ans, ", of which the HTP ops using HMX took %lld cycles", ival(hop));
        if (!hsh->unknown) sb_printf(&c->ans, " (%.2f%% of the timeline)", hsh->value);
        sb_printf(&c->ans, ": the rest is the DMA and sync work that thread also runs, not HMX "
                           "compute. ");
    } else {
        sb_printf(&c->ans, "The HTP ops using HMX took %lld cycles", ival(hop));
        if (!hsh->unknown) sb_printf(&c->ans, " (%.2f%% of the timeline)", hsh->value);
        sb_printf(&c->ans, ". ");
    }
    char scope[400];
    if (etp_qnn_scope_note(cores, scope, sizeof scope))
        sb_printf(&c->ans, "Note: %s. ", scope);
    if (!hvx->unknown)
        sb_printf(&c->ans, "The %u HVX threads were busy %lld cycles together (mean load %.2f%% "
                           "of the timeline). ",
                  (unsigned)count_of(fi, "hvx_threads"), ival(hvx), FACT("hvx_busy_share")->value);
    sb_printf(&c->ans, "Largest ops by cycles (busy cycles of their HTP ops on whatever unit ran "
                       "them; an op's unit cycles can overlap): ");
    bool any_wall = false;
    for (uint32_t k = 0; k < count_of(fi, "top_ops"); k++) {
#define M(id) member(fi, "top_ops", k, id)
        bool uh = M("hmx")->flag, uv = M("hvx")->flag, ud = M("dma")->flag;
        const char *units = uh && uv ? "HMX+HVX" : uh ? "HMX" : uv ? "HVX" : ud ? "DMA only" : "no HMX/HVX/DMA";
        const char *type = M("qnn_op_type")->text;
        sb_printf(&c->ans, "%s%s (%s, %.1f%%): %s, HMX %lld / HVX %lld / DMA %lld cycles",
                  k ? "; " : "", M("qnn_op")->text, type ? type : "?", M("share")->value, units,
                  ival(M("hmx_cycles")), ival(M("hvx_cycles")), ival(M("dma_cycles")));
        const etp_fact *w = M("wall_estimate");
        double wall = tv(c, w->unit, w->value);
        if (!isnan(wall)) {
            sb_printf(&c->ans, ", its ETDump node ~%.3f %s of wall time (estimate)", wall,
                      c->d->est_unit);
            any_wall = true;
        }
#undef M
    }
    sb_printf(&c->ans, ". ");
    if (any_wall)
        sb_printf(&c->ans, "(Wall-time estimates apportion the partition's Accelerator (execute "
                           "excluding wait) time by cycle share.) ");
    if (FACT("join")) {
#define J(id) member(fi, "join", 0, id)
        unsigned conflicts = (unsigned)J("conflicts")->count;
        const char *v = J("verdict")->text;
        sb_printf(&c->ans, "Joined to this ETDump's %u HTP nodes by OpId and name: %u matched, %u "
                           "ETDump nodes have no QNN op in the files, %u QNN ops have no ETDump "
                           "node",
                  (unsigned)J("etdump_nodes")->count, (unsigned)J("matched")->count,
                  (unsigned)J("etdump_only")->count, (unsigned)J("qnn_only")->count);
        if (conflicts) sb_printf(&c->ans, ", %u OpId conflicts (same id, another name)", conflicts);
        sb_printf(&c->ans, "; cycles are equal for %u of %u matched ops: %s. ",
                  (unsigned)J("cycles_equal")->count,
                  (unsigned)(J("cycles_equal")->count + J("cycles_different")->count),
                  strcmp(v, "same_run") == 0 ? "the files come from the same run as the ETDump"
                  : strcmp(v, "none") == 0   ? "nothing to compare"
                                             : "they come from different runs (optrace/QHAS are "
                                               "made by a separate qnn-net-run), so compare shares, "
                                               "not cycles");
#undef J
    }
    sb_printf(&c->ans, "etprof qnn with the same files lists every op.");
    end(c);
}

/* "SM8650, HTP V75" from the memory finding's SoC facts (etp_qnn_soc_name's phrase). */
static void soc_of_facts(const etp_finding *fi, char *buf, size_t n) {
    etp_qnn_soc soc = {0};
    soc.present = true;
    soc.soc_model = (int32_t)count_of(fi, "soc_model_id");
    soc.soc_name = FACT("soc_model")->text;
    soc.htp_arch = (int32_t)count_of(fi, "htp_arch");
    etp_qnn_soc_name(&soc, buf, n);
}

static void r_memory(ex_ctx *c, const etp_finding *fi) {
    begin(c, fi->id, fi->method_name, fi->question_text);
    c->cur = fi;
    const etp_fact *util = FACT("utilization_percent"), *vtcm = FACT("peak_vtcm_bytes"),
                   *dram = FACT("dram_read_bytes"), *heap = FACT("heap_before_bytes"),
                   *clock = FACT("clock_ghz");
    bool files = FACT("qnn_files")->flag, has_clock = !clock->cannot_tell;
    char fb[1200];
    const etp_fact *graph = FACT("qnn_graph");
    if (files && graph && graph->text && strcmp(graph->text, "other_graph") == 0)
        sb_printf(&c->ans, "Trap: the QNN files describe another graph than this ETDump (the "
                           "HMX/HVX answer says how few of their ops match): every figure below "
                           "from them is that graph's, not this run's. ");
    if (files) sb_printf(&c->ans, "From %s: ", files_given(c, fb, sizeof fb));
    if (!util->unknown) {
        sb_printf(&c->ans, "NPU utilization %.2f%% of the graph timeline (%lld cycles; idle "
                           "%.2f%%)",
                  util->value, ival(FACT("timeline_cycles")), FACT("idle_percent")->value);
        const etp_fact *ge = FACT("graph_execute_time_us");
        const etp_fact *gs = FACT("graph_execute_source");
        const etp_fact *est = FACT("qhas_estimated");
        if (ge && !ge->unknown)
            sb_printf(&c->ans, ", graph execute %.*f us (%s)", ge->value == floor(ge->value) ? 0 : 3,
                      ge->value, gs && gs->text ? gs->text : "?");
        sb_printf(&c->ans, ". ");
        if (est && est->flag)
            sb_printf(&c->ans, "These QHAS figures were estimated on the host (Hextimate), not "
                               "measured on a device. ");
    }
    if (!vtcm->unknown) {
        sb_printf(&c->ans, "Peak VTCM (the HTP's tightly coupled memory, TCM) allocation ");
        say_bytes(c, ival(vtcm));
        const etp_fact *vb = FACT("vtcm_budget_bytes"), *vs = FACT("peak_vtcm_share");
        if (!vb->unknown && !vs->unknown) {
            char sn[64];
            soc_of_facts(fi, sn, sizeof sn);
            sb_printf(&c->ans, ", %.1f%% of the %lld MiB VTCM budget the program's QNN graphs were "
                               "compiled for (%s)",
                      vs->value, ival(vb) / 1048576, sn);
        }
        const etp_fact *vr = FACT("vtcm_read_bytes"), *vw = FACT("vtcm_write_bytes");
        if (!vr->unknown && !vw->unknown) {
            sb_printf(&c->ans, "; VTCM traffic ");
            say_bytes(c, ival(vr));
            sb_printf(&c->ans, " read, ");
            say_bytes(c, ival(vw));
            sb_printf(&c->ans, " written");
        }
        sb_printf(&c->ans, ". ");
    } else if (!FACT("vtcm_budget_bytes")->unknown) {
        char sn[64];
        soc_of_facts(fi, sn, sizeof sn);
        sb_printf(&c->ans, "The program's QNN graphs were compiled for a VTCM budget of %lld MiB "
                           "(%s); how much of it a run used is in the QHAS or optrace. ",
                  ival(FACT("vtcm_budget_bytes")) / 1048576, sn);
    }
    if (!dram->unknown) {
        const etp_fact *dw = FACT("dram_write_bytes"), *big = FACT("largest_dram_reader_bytes");
        sb_printf(&c->ans, "DRAM traffic: ");
        say_bytes(c, ival(dram));
        sb_printf(&c->ans, " read, ");
        say_bytes(c, dw->unknown ? 0 : ival(dw));
        sb_printf(&c->ans, " written per execute");
        if (big) sb_printf(&c->ans, " (largest reader: %s, %lld bytes)", big->name, ival(big));
        sb_printf(&c->ans, ". ");
    }
    if (!heap->unknown) {
        const etp_fact *after = FACT("heap_after_bytes");
        sb_printf(&c->ans, "DSP heap: %lld bytes before the context was created", ival(heap));
        if (!after->unknown)
            sb_printf(&c->ans, ", %lld after it was freed (delta %+lld bytes)", ival(after),
                      ival(FACT("heap_delta_bytes")));
        sb_printf(&c->ans, ". ");
    }
    if (has_clock) {
        sb_printf(&c->ans, "HTP clock %.4g GHz (%s). ", clock->value, FACT("clock_meaning")->text);
        const etp_fact *cy = FACT("accelerator_cycles"), *busy = FACT("accelerator_busy_us_estimate");
        if (cy && busy) {
            sb_printf(&c->ans, "At that clock this ETDump's Accelerator (execute) time (cycles) "
                               "p50 %.0f is ~%.1f us of thread-busy time (estimate)",
                      cy->value, busy->value);
            const etp_fact *ex = FACT("accelerator_excluding_wait_us");
            if (ex)
                sb_printf(&c->ans, " against %.1f us of Accelerator (execute excluding wait) time: "
                                   "~%.1f hardware threads busy on average",
                          ex->value, FACT("mean_busy_threads_estimate")->value);
            sb_printf(&c->ans, ". ");
        }
    }
    /* what is missing, and which file gives it: the settle texts of the facts not known */
    if (util->cannot_tell || vtcm->cannot_tell || dram->cannot_tell || heap->cannot_tell ||
        clock->cannot_tell) {
        sb_printf(&c->ans, "%s", files || has_clock ? "Not in the files given: " : "Not in an ETDump: ");
        const etp_fact *order[] = {util, vtcm, dram, clock, heap};
        bool first = true;
        for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
            if (order[i]->cannot_tell) {
                sb_printf(&c->ans, "%s%s", first ? "" : "; ", order[i]->settle);
                first = false;
            }
        sb_printf(&c->ans, ". The QHAS, optrace and runtrace come from one optrace run (the "
                           "commands are in the HMX/HVX answer and in facts.commands: qnn-net-run "
                           "--profiling_level detailed --profiling_option optrace on the device, "
                           "then qnn-profile-viewer with libQnnHtpOptraceProfilingReader.so on "
                           "the host) with viewer_config.json = {\"features\":{\"qhas_json\":"
                           "true,\"runtrace\":true,\"memory_info\":true}}. ");
    }
    /* what the ETDump itself says */
    const etp_fact *th = FACT("etdump_hvx_threads"), *vt = FACT("etdump_vtcm_acquire");
    if (th || vt) {
        sb_printf(&c->ans, "The ETDump itself has only");
        if (th) sb_printf(&c->ans, " the HVX thread count (%.0f)", th->value);
        if (vt) {
            sb_printf(&c->ans, "%s the VTCM acquire wait (p50 ", th ? " and" : "");
            say_t(c, vt->unit, vt->value);
            sb_printf(&c->ans, ")");
        }
        sb_printf(&c->ans, ".");
    }
    end(c);
}

#undef FACT

#define FACT(id) etp_explain_fact(fi, id)

/* A fact of this finding about method mi. */
static const etp_fact *fact_of(const etp_finding *fi, const char *id, int32_t mi) {
    for (size_t i = 0; i < fi->n_facts; i++)
        if (!fi->facts[i].list && fi->facts[i].method == mi && strcmp(fi->facts[i].id, id) == 0)
            return &fi->facts[i];
    return NULL;
}

static void r_units(ex_ctx *c, const etp_finding *fi) {
    begin(c, fi->id, fi->method_name, fi->question_text);
    c->cur = fi;
    const etp_fact *ns = member(fi, "rows_per_unit", 0, etp_unit_name(ETP_UNIT_NS));
    const etp_fact *ticks = member(fi, "rows_per_unit", 0, etp_unit_name(ETP_UNIT_TICKS));
    const etp_fact *cycles = member(fi, "rows_per_unit", 0, etp_unit_name(ETP_UNIT_CYCLES));
    const etp_fact *raw = member(fi, "rows_per_unit", 0, etp_unit_name(ETP_UNIT_RAW));
    double tick_ns = FACT("tick_ns")->value;
    if (ns && tick_ns > 0)
        sb_printf(&c->ans, "Runtime events (Method::execute, DELEGATE_CALL, OPERATOR_CALL, kernels, "
                           "backend scopes with timestamps) are host ticks, taken as %g ns per tick "
                           "(Linux/Android; --tick-hz for a bare-metal cycle counter), shown in %s. ",
                  tick_ns, c->d->time_unit);
    if (ticks)
        sb_printf(&c->ans, "Host times are ticks of unknown rate (--ticks, or a dump from a "
                           "bare-metal runner's serial log, whose ticks are its CPU cycle counter): "
                           "give --tick-hz to turn them into time. ");
    if (FACT("qnn_values_not_wall")->flag)
        sb_printf(&c->ans, "QNN values carry their unit in the name: \" (us)\" durations (shown in "
                           "%s), \" (cycles)\", \" (count)\"; they were logged with start 0, so they "
                           "have no position on the timeline. ",
                  c->d->time_unit);
    if (FACT("qtimer_converted"))
        sb_printf(&c->ans, "Trap: \"Time for initial VTCM acquire (us)\" and \"Time for HVX + HMX "
                           "power on and acquire (us)\" are 19.2 MHz QTimer ticks despite the label; "
                           "etprof divides them by 19.2. ");
    if (cycles)
        sb_printf(&c->ans, "Trap: HTP cycles are thread-aggregate busy cycles (HVX + HMX threads "
                           "added up): use them as work share, not as time; --htp-clock-ghz gives a "
                           "labelled estimate only. ");
    if (raw)
        sb_printf(&c->ans, "%llu row(s) are \"raw\": a delegate logged a value with start 0 and no "
                           "unit suffix, so its unit is unknown. ",
                  (unsigned long long)raw->count);
    /* detailed-profiling inflation, cold first run and method-only profiling, per method */
    for (size_t i = 0; i < fi->n_facts; i++) {
        const etp_fact *f = &fi->facts[i];
        if (f->method < 0 || f->list) continue;
        if (strcmp(f->id, "qnn_accelerator_over_accelerator") == 0) {
            sb_printf(&c->ans, "Trap: with detailed profiling (node cycles present) the host-side "
                               "QNN times are inflated; here QNN accelerator (execute) is %.1fx "
                               "Accelerator (execute). Trust \"Accelerator (execute excluding "
                               "wait) time\" for NPU time. ",
                      f->value);
        } else if (strcmp(f->id, "first_run_over_p50") == 0 && f->value > 1.2) {
            const etp_fact *first = fact_of(fi, "first_run", f->method),
                           *p50 = fact_of(fi, "method_p50", f->method);
            sb_printf(&c->ans, "Trap: the first run of %s is cold: ", f->name ? f->name : "the method");
            say_t(c, first->unit, first->value);
            sb_printf(&c->ans, " vs p50 ");
            say_t(c, p50->unit, p50->value);
            sb_printf(&c->ans, " (%.1fx); use --skip-first 1 for steady state. ", f->value);
        } else if (strcmp(f->id, "method_only_backend_events") == 0) {
            sb_printf(&c->ans, "Trap: %s has backend events but no OPERATOR_CALL or "
                               "DELEGATE_CALL: the dump was made with method-only profiling, "
                               "which hides the instruction scopes (and CPU kernels). ",
                      f->name ? f->name : "the method");
        }
    }
    sb_printf(&c->ans, "The Python Inspector converts every value with one scale (default ns to ms), "
                       "which is wrong for QNN us/cycles/count, and keeps only the last occurrence "
                       "of a repeated event per run; etprof keeps each row in its own unit and sums "
                       "repeats.");
    end(c);
}

static void r_cannot(ex_ctx *c, const etp_finding *fi) {
    begin(c, fi->id, fi->method_name, fi->question_text);
    c->cur = fi;
    bool any_qnn = FACT("qnn")->flag;
    if (any_qnn && FACT("qnn_files")->flag) {
        char fb[1200];
        sb_printf(&c->ans, "The QNN files given (%s) answer HMX vs HVX, memory, utilization and "
                           "the clock above; the ETDump alone could not. ",
                  files_given(c, fb, sizeof fb));
    }
    if (any_qnn) {
        sb_printf(&c->ans,
                  "An ETDump has no HMX vs HVX split per op, no VTCM/TCM or DDR traffic, no "
                  "per-unit utilization, no critical path and no HTP clock: HTP node cycles are "
                  "one aggregate number per node. Those come from a QNN optrace run and its QHAS "
                  "summary, made outside the ExecuTorch runtime: (1) compile the .pte with QNN "
                  "profile level 3 (optrace), which also writes <graph>_schematic.bin; (2) on the "
                  "device: qnn-net-run --backend libQnnHtp.so --retrieve_context <graph>.bin "
                  "--input_list input_list.txt --use_native_input_files --use_native_output_files "
                  "--config_file backend_extension_config.json --profiling_level detailed "
                  "--profiling_option optrace; (3) on the host: qnn-profile-viewer --config "
                  "viewer_config.json (containing {\"features\":{\"qhas_json\":true}}) --schematic "
                  "<graph>_schematic.bin --reader "
                  "$QNN_SDK_ROOT/lib/x86_64-linux-clang/libQnnHtpOptraceProfilingReader.so "
                  "--input_log qnn-profiling-data_0.log --output optrace.json. That gives "
                  "optrace.json (Chrome trace) and optrace_qnn_htp_analysis_summary.json (QHAS); "
                  "ExecuTorch's backends/qualcomm/debugger/utils.py generate_optrace() runs the same "
                  "steps. Join them to these rows by OpId (the number after OpId_).");
    } else {
        sb_printf(&c->ans, "Inside a delegate the file holds only what the backend chose to log: "
                           "no per-unit utilization, memory traffic or hardware counters (Ethos-U "
                           "NPU PMU counters, for example, go to the device log, not the ETDump). "
                           "Host times are wall time of one thread; the file has no CPU "
                           "frequency, cache or thread information.");
    }
    const etp_fact *pl = FACT("arm_pmu_line");
    if (pl) {
        /* the Arm runner's log the ETDump came from holds its PMU report (etprof_arm_pmu.h) */
        const etp_fact *npu = FACT("arm_npu"), *cyc = FACT("arm_npu_cycles_per_inference"),
                       *beats = FACT("arm_pmu_beat_counters"), *share = FACT("arm_npu_share");
        sb_printf(&c->ans, " This ETDump was read from the Arm runner's serial log, whose Ethos-U "
                           "PMU report (line %llu, %llu inference(s)%s%s) holds what the ETDump "
                           "does not:",
                  (unsigned long long)pl->count,
                  (unsigned long long)FACT("arm_pmu_inferences")->count,
                  npu && npu->text ? ", " : "", npu && npu->text ? npu->text : "");
        bool any = false;
        if (cyc && !isnan(cyc->value)) {
            sb_printf(&c->ans, " %.1f NPU cycles per inference (the NPU's own cycle counter)",
                      cyc->value);
            any = true;
        }
        if (beats && beats->count) {
            sb_printf(&c->ans, "%s memory traffic in data beats (%llu counter(s); bytes = beats x "
                               "the interface's data width)",
                      any ? ";" : "", (unsigned long long)beats->count);
            any = true;
        }
        if (share) {
            sb_printf(&c->ans, "%s an NPU share of %.2f %% of the measured CPU cycles (meaningful "
                               "on real hardware or an FPGA with one CPU and NPU frequency, not on "
                               "the FVP simulator)",
                      any ? ";" : "", share->value);
            any = true;
        }
        sb_printf(&c->ans, "%s. etprof summary shows every figure of it with its unit.",
                  any ? "" : " its counters");
    }
    const etp_fact *vl = FACT("vgf_device_lines");
    if (vl) {
        /* the VGF backend's device time from the runner's log (etprof_arm_pmu.h) */
        const etp_fact *p50 = FACT("vgf_device_p50"), *vs = FACT("vgf_device_share");
        sb_printf(&c->ans, " The runner's log given (--runner-log) holds the VGF backend's device "
                           "time, which the ETDump does not: %llu execution(s) timed on the "
                           "device, p50 ",
                  (unsigned long long)vl->count);
        say_t(c, p50->unit, p50->value);
        if (vs)
            sb_printf(&c->ans, ", %.2f %% of VGF_EXECUTE's p50 on the host (the rest is the "
                               "host's own work around the dispatch: copies, submission, "
                               "synchronisation)",
                      vs->value);
        sb_printf(&c->ans, ". etprof summary --runner-log shows its statistics.");
    }
    end(c);
}

static void r_missing(ex_ctx *c, const etp_finding *fi) {
    begin(c, fi->id, fi->method_name, fi->question_text);
    c->cur = fi;
    bool any = false;
    if (!FACT("pte_given")->flag) {
        sb_printf(&c->ans, "No --pte was given: the method names, the backend of each DELEGATE_CALL "
                           "and the operator names with namespaces (aten::add.out) come from the "
                           ".pte; with --pte etprof also checks which method each run executed. ");
        any = true;
    }
    unsigned runs = (unsigned)FACT("runs")->count;
    if (runs == 0) {
        sb_printf(&c->ans, "The file has no Execute block: the method was loaded but never run "
                           "with the event tracer on. ");
        any = true;
    } else if (runs < 3) {
        sb_printf(&c->ans, "Only %u run(s): percentiles need more runs; run the method more times "
                           "(the first one is usually cold). ",
                  runs);
        any = true;
    }
    for (size_t i = 0; i < fi->n_facts; i++) {
        const etp_fact *f = &fi->facts[i];
        if (f->method < 0 || f->list) continue;
        if (strcmp(f->id, "qnn_basic_level") == 0) {
            sb_printf(&c->ans, "The QNN partition has no cycles/node events: it was profiled at the "
                               "basic level; use profile level 2 (detailed) for per-node cycles. ");
            any = true;
        } else if (strcmp(f->id, "node_sum_runs_mismatch") == 0) {
            sb_printf(&c->ans, "In %u run(s) the HTP node cycles do not add up to Accelerator "
                               "(execute) time (cycles): node events were dropped (QNN's profile "
                               "event cap?). ",
                      (unsigned)f->count);
            any = true;
        } else if (strcmp(f->id, "profiling_level") == 0) {
            sb_printf(&c->ans, "%s%s: profiling level %s: the instruction events (OPERATOR_CALL, "
                               "DELEGATE_CALL, kernels) were not recorded, so the per-operator times, "
                               "the CPU fallbacks and the host time around each delegate call are not "
                               "in the file; profile again with instruction events on (not "
                               "method-only). ",
                      f->name ? "" : "method ", f->name ? f->name : "(unknown)", f->text);
            any = true;
        }
    }
    if (!any) sb_printf(&c->ans, "Nothing essential: the program was given and every run has its "
                                 "instruction events.");
    end(c);
}

#undef FACT

/* ------------------------------------------------------------------------------------------- */

/* Prose lines are wrapped to the terminal (COLUMNS or its width), else to 98 columns. */
#define PROSE_WIDTH 98

static void note_doc_cb(void *ctx, const char *text) { etp_doc_note(ctx, text); }

typedef struct text_ctx {
    etp_section *s;
    bool md, started;
} text_ctx;

/* The data-quality notes after the answers (names from the file written as table cells are). */
static void text_note_cb(void *ctx, const char *text) {
    text_ctx *t = ctx;
    if (!t->started) etp_section_textf(t->s, 0, 0, "\n%sData quality\n", t->md ? "## " : "");
    t->started = true;
    if (t->md) {
        etp_section_text(t->s, ETP_TEXT_CELL, "\n- ", 0, text);
        etp_section_text(t->s, 0, NULL, 0, "\n");
    } else {
        etp_section_text(t->s, ETP_TEXT_WRAP | ETP_TEXT_CELL, "  ", 2, text);
    }
}

/* table and md: the title, then each question and its answer, then the data-quality notes. The
 * method and the answer hold names from the input: shown as table cells are. */
static void fill_text(const ex_ctx *c, etp_doc *doc, bool md, const char *path, bool has_prog) {
    etp_section *s = etp_doc_section(doc, "explain");
    etp_section_textf(s, 0, 0, "%s%s%s\n", md ? "# etprof explain: " : "etprof explain: ", path,
                      has_prog ? "" : " (no --pte)");
    for (size_t i = 0; i < c->n; i++) {
        const finding *x = &c->f[i];
        etp_section_text(s, 0, NULL, 0, "\n");
        etp_section_textf(s, ETP_TEXT_WRAP | ETP_TEXT_CELL, 2, "%s%s%s%s%s", md ? "## " : "",
                          x->question, x->method ? " [" : "", x->method ? x->method : "",
                          x->method ? "]" : "");
        if (md) {
            etp_section_text(s, ETP_TEXT_CELL, "\n", 0, x->answer);
            etp_section_text(s, 0, NULL, 0, "\n");
        } else {
            etp_section_text(s, ETP_TEXT_WRAP | ETP_TEXT_CELL, "  ", 2, x->answer);
        }
    }
    text_ctx tc = {s, md, false};
    etp_quality_notes(c->r, text_note_cb, &tc);
    char wb[700];
    if (etp_etrecord_mismatch_note(c->rec, &c->etr, wb, sizeof wb) > 0) text_note_cb(&tc, wb);
}

/* csv, tsv: one row per finding; jsonl: one finding record per line. */
static void fill_flat(const ex_ctx *c, etp_doc *doc) {
    static const etp_col cols[] = {
        {"id", "id", NULL, ETP_T_STR, false, 0},
        {"method", "method", NULL, ETP_T_STR, true, 0},
        {"question", "question", NULL, ETP_T_STR, false, 0},
        {"answer", "answer", NULL, ETP_T_STR, false, 0},
    };
    etp_table *t = etp_doc_table(doc, cols, 4);
    etp_doc_flat(doc, t);
    for (size_t i = 0; t && i < c->n; i++) {
        etp_table_row(t);
        etp_table_str(t, c->f[i].id);
        etp_table_str(t, c->f[i].method);
        etp_table_str(t, c->f[i].question);
        etp_table_str(t, c->f[i].answer);
    }
    etp_doc_jsonl_array(doc, c->findings);
}

int etp_explain_doc(etp_doc *doc, const etp_ops_result *r, const etp_explain_doc_opts *o,
                    etp_error *err) {
    if (!doc || !r || !o || !o->disp) {
        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL, "explain: missing document, result or "
                                                         "options");
        return ETP_E_USAGE;
    }
    const etp_disp d = *o->disp;
    static const etp_qnn_paths none_given;
    const etp_qnn_paths qp = o->qnn_paths ? *o->qnn_paths : none_given;
    const struct etp_etrecord *rec = o->rec;
    const char *path = o->path ? o->path : "";
    int rc = ETP_OK;
    ex_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "explain: out of memory");
        return ETP_E_INTERNAL;
    }
    /* one document: the findings (JSON, jsonl), their flat table (csv, tsv) and the text (table,
     * md) */
    c->findings = etp_node_arr(etp_doc_root(doc), "findings");
    c->r = r;
    c->d = &d;
    c->qp = &qp;
    c->rec = rec;
    /* questions 1 and 2: the library's facts, rendered; room is kept for the findings that
     * follow (units, hmx_vs_hvx, memory, cannot, missing) */
    etp_explain_result *xr = NULL;
    etp_explain_options xo = o->explain;
    if (etp_explain_compute(r, &xo, &xr, err)) c->oom = true;
    for (size_t i = 0; xr && i < xr->n_findings; i++) {
        const etp_finding *fi = &xr->findings[i];
        if (fi->question == ETP_EXQ_SAME_THING && c->n + 7 < MAX_FINDINGS) r_same_thing(c, fi);
        if (fi->question == ETP_EXQ_NPU_CPU && c->n + 6 < MAX_FINDINGS) r_npu_cpu(c, fi);
    }
    for (size_t i = 0; xr && i < xr->n_findings; i++) {
        const etp_finding *fi = &xr->findings[i];
        if (fi->question == ETP_EXQ_UNITS) r_units(c, fi);
        if (fi->question == ETP_EXQ_HMX_HVX) r_hmx_hvx(c, fi);
        if (fi->question == ETP_EXQ_MEMORY) r_memory(c, fi);
        if (fi->question == ETP_EXQ_CANNOT_TELL) r_cannot(c, fi);
        if (fi->question == ETP_EXQ_MISSING) r_missing(c, fi);
    }
    if (!c->oom) {
        etp_doc_notes_here(doc);
        etp_quality_notes(r, note_doc_cb, doc);
        etp_etrecord_notes(rec, &c->etr, note_doc_cb, doc);
        etp_fig_quality(etp_doc_root(doc), "data_quality", r);
        fill_flat(c, doc);
        if (o->fmt == ETP_FMT_TABLE || o->fmt == ETP_FMT_MD)
            fill_text(c, doc, o->fmt == ETP_FMT_MD, path, xo.program_given);
        etp_doc_wrap_width(doc, PROSE_WIDTH);
        if (!etp_doc_ok(doc)) c->oom = true;
    }
    if (c->oom) {
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "explain: out of memory");
        rc = ETP_E_INTERNAL;
    }
    for (size_t i = 0; i < MAX_FINDINGS; i++) free(c->f[i].answer);
    if (c->ans.f) sb_take(&c->ans);
    free(c);
    etp_explain_free(xr);
    return rc;
}
