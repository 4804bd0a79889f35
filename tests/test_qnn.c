/*
 * test_qnn.c - tests of the QNN deep-data readers (src/qnn*.c).
 *
 *   test_qnn <fixtures-dir>        hand-written fixtures (tests/data/qnn-fixtures): good files with
 *                                  hand-computed expectations, bad files with exact error locations,
 *                                  and a crash sweep (every reader x every fixture, truncations)
 *   test_qnn --real <corpus-dir>   the real QAIRT samples in <corpus-dir>/fc256_{native,v8c8};
 *                                  expected values come from reading the QHAS/runtrace JSON with
 *                                  jansson directly (not through the readers) and from hand
 *                                  calculations in qnn-profiling.md. Exits 77 (skip) when the
 *                                  corpus is missing.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "qnn.h"

static const char *g_dir;

/* "<dir>/<name>" in one of a few rotating buffers. */
static const char *fx(const char *name) {
    static char buf[8][1024];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
    return buf[k];
}

static bool printable_line(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f) return false;
    return true;
}

/* A failed read: code, file, JSON path and message exactly as expected; out stays NULL. */
#define CHECK_FAIL(rc_, out_, e_, code_, file_, path_, msg_)                                      \
    do {                                                                                          \
        CHECK_EQ_I((rc_), (code_));                                                               \
        CHECK_EQ_I((e_).code, (code_));                                                           \
        CHECK((out_) == NULL);                                                                    \
        CHECK_EQ_S((e_).file, (file_));                                                           \
        CHECK_EQ_S((e_).path, (path_));                                                           \
        CHECK_EQ_S((e_).msg, (msg_));                                                             \
        CHECK(printable_line((e_).msg));                                                          \
    } while (0)

/* ---------------------------------------------------------------------------------------------
 * Reader wrappers (uniform signature for the sweeps)
 * ------------------------------------------------------------------------------------------- */

typedef int (*reader_fn)(const char *path, bool *got, etp_error *err);

static int rd_qhas(const char *p, bool *got, etp_error *e) {
    etp_qnn_qhas *x = NULL;
    int rc = etp_qnn_read_qhas(p, &x, e);
    *got = x != NULL;
    etp_qnn_qhas_free(x);
    return rc;
}
static int rd_optrace(const char *p, bool *got, etp_error *e) {
    etp_qnn_trace *x = NULL;
    int rc = etp_qnn_read_optrace(p, &x, e);
    *got = x != NULL;
    etp_qnn_trace_free(x);
    return rc;
}
static int rd_runtrace(const char *p, bool *got, etp_error *e) {
    etp_qnn_runtrace *x = NULL;
    int rc = etp_qnn_read_runtrace(p, &x, e);
    *got = x != NULL;
    etp_qnn_runtrace_free(x);
    return rc;
}
static int rd_heap(const char *p, bool *got, etp_error *e) {
    etp_qnn_heap *x = NULL;
    int rc = etp_qnn_read_heap(p, &x, e);
    *got = x != NULL;
    etp_qnn_heap_free(x);
    return rc;
}
static int rd_text(const char *p, bool *got, etp_error *e) {
    etp_qnn_viewer *x = NULL;
    int rc = etp_qnn_read_viewer_text(p, &x, e);
    *got = x != NULL;
    etp_qnn_viewer_free(x);
    return rc;
}
static int rd_csv(const char *p, bool *got, etp_error *e) {
    etp_qnn_viewer *x = NULL;
    int rc = etp_qnn_read_viewer_csv(p, &x, e);
    *got = x != NULL;
    etp_qnn_viewer_free(x);
    return rc;
}
static int rd_viewer(const char *p, bool *got, etp_error *e) {
    etp_qnn_viewer *x = NULL;
    int rc = etp_qnn_read_viewer(p, &x, e);
    *got = x != NULL;
    etp_qnn_viewer_free(x);
    return rc;
}

static const struct {
    const char *name;
    reader_fn fn;
    bool json;
} readers[] = {
    {"qhas", rd_qhas, true},     {"optrace", rd_optrace, true}, {"runtrace", rd_runtrace, true},
    {"heap", rd_heap, false},    {"viewer_text", rd_text, false}, {"viewer_csv", rd_csv, false},
    {"viewer", rd_viewer, false},
};
#define N_READERS (sizeof readers / sizeof readers[0])

/* ---------------------------------------------------------------------------------------------
 * Fixtures: QHAS
 * ------------------------------------------------------------------------------------------- */

static void test_qhas_small(void) {
    etp_error e = {0};
    etp_qnn_qhas *q = NULL;
    int rc = etp_qnn_read_qhas(fx("qhas_small.json"), &q, &e);
    CHECK_MSG(rc == ETP_OK, "%s: %s: %s", e.file, e.path, e.msg);
    if (!q) return;
    CHECK(q->version.has);
    CHECK_EQ_I(q->version.major, 1);
    CHECK_EQ_I(q->version.minor, 2);
    CHECK_EQ_I(q->version.patch, 3);
    CHECK_EQ_S(q->model_id, "tiny");
    CHECK_EQ_U(q->sections, ETP_QNN_QHAS_OVERALL | ETP_QNN_QHAS_QNN_OP_TYPES | ETP_QNN_QHAS_NODES |
                                ETP_QNN_QHAS_HTP_OP_TYPES | ETP_QNN_QHAS_INSTANCES |
                                ETP_QNN_QHAS_DOMINANT_PATH);
    /* passthrough: unknown sections stay reachable in the kept document */
    json_t *fut = json_object_get(json_object_get(q->root, "data"), "future_section");
    CHECK(json_is_object(fut));
    CHECK(json_is_object(json_object_get(q->root, "unknown_top_level")));

    const etp_qnn_qhas_overall *o = &q->overall;
    CHECK_EQ_U(q->n_cores, 1);
    CHECK(o->percent_utilization.has);
    CHECK_NEAR(o->percent_utilization.v, 90.0, 0);
    CHECK_NEAR(o->percent_idle.v, 10.0, 0);
    CHECK_EQ_I(o->time_us.v, 100);
    CHECK_EQ_I(o->graph_execute_us.v, 1);
    CHECK_NEAR(o->inf_per_s.v, 10000.0, 0);
    CHECK_EQ_I(o->timeline_cycles.v, 1000);
    CHECK_EQ_I(o->total_dram_read.v, 2048);
    CHECK_EQ_I(o->total_dram_write.v, 1024);
    CHECK_EQ_I(o->total_dram.v, 3072);
    CHECK_EQ_I(o->peak_vtcm_alloc.v, 4096);
    CHECK_EQ_I(o->total_vtcm.v, 16384);
    CHECK_EQ_I(o->unique_qnn_ops.v, 4);
    CHECK_EQ_I(o->qnn_nodes.v, 5);
    CHECK_EQ_I(o->unique_htp_ops.v, 6);
    CHECK_EQ_I(o->htp_nodes.v, 7);
    CHECK_EQ_U(o->n_resources, 3);
    if (o->n_resources == 3) {
        CHECK_EQ_S(o->resources[0].type, "HMX");
        CHECK_EQ_I(o->resources[0].tid, 256);
        CHECK_EQ_I(o->resources[0].cycles_used, 650);
        CHECK_EQ_I(o->resources[0].start_cycle.v, 5000);
        CHECK_EQ_I(o->resources[0].end_cycle.v, 6000);
        CHECK_NEAR(o->resources[0].utilization.v, 65.0, 0);
        CHECK_EQ_I(o->resources[0].vtcm_write.v, 6144);
        CHECK_EQ_S(o->resources[2].type, "HVX");
        CHECK_EQ_I(o->resources[2].tid, 513);
        CHECK(!o->resources[2].start_cycle.has); /* missing optional key: absent, not 0 */
        CHECK(!o->resources[2].utilization.has);
    }
    CHECK_EQ_U(q->n_qnn_op_types, 2);
    if (q->n_qnn_op_types == 2) {
        CHECK_EQ_S(q->qnn_op_types[0].op, "Conv2d");
        CHECK_EQ_I(q->qnn_op_types[0].count.v, 3);
        CHECK(!q->qnn_op_types[1].count.has);
    }
    CHECK_EQ_U(q->n_htp_op_types, 1);
    if (q->n_htp_op_types == 1) {
        CHECK_EQ_I(q->htp_op_types[0].count.v, 1);
        CHECK(q->htp_op_types[0].reference_op.has && q->htp_op_types[0].reference_op.v);
        CHECK(q->htp_op_types[0].format_change.has && !q->htp_op_types[0].format_change.v);
    }
    CHECK_EQ_U(q->n_nodes, 5);
    if (q->n_nodes == 5) {
        CHECK_EQ_S(q->nodes[0].qnn_op, "Input");
        CHECK_EQ_I(q->nodes[0].dominant_path_cycles.v, 100);
        CHECK(!q->nodes[3].qnn_op_type);
        CHECK_EQ_I(q->nodes[4].cycles, 7);
    }
    CHECK_EQ_U(q->n_instances, 7);
    if (q->n_instances == 7) {
        const etp_qnn_qhas_instance *in = q->instances;
        CHECK_EQ_U(in[0].op_id, 0x0000111100000002ull);
        CHECK_EQ_U(etp_qnn_qnn_op_id(in[0].op_id), 2);
        CHECK_EQ_S(in[0].dtype, "QUInt8");
        CHECK_EQ_U(in[0].n_dims, 4);
        CHECK(in[0].dims && in[0].dims[2] == 4 && in[0].dims[3] == 4);
        CHECK_EQ_U(in[0].flags, ETP_QNN_F_DMA);
        CHECK(in[0].hmx.has && !in[0].hmx.v);
        CHECK(in[1].dtype == NULL);                  /* null -> absent */
        CHECK_EQ_U(in[1].flags, ETP_QNN_F_DMA_SET);
        CHECK_EQ_U(in[2].op_id, 77309411333ull);     /* op id given as a JSON number */
        CHECK_EQ_U(etp_qnn_qnn_op_id(in[2].op_id), 5);
        CHECK_EQ_I(in[3].cycles, 150);               /* 150.0 accepted as an integer */
        CHECK(in[3].has_dims && in[3].n_dims == 0 && in[3].dims == NULL);
        CHECK_EQ_U(in[4].op_id, 0x1400000005ull);    /* "0X" prefix */
        CHECK(!in[4].hmx.has && !in[4].hvx.has);     /* absent booleans */
        CHECK_EQ_U(in[4].flags, ETP_QNN_F_DMA_WAIT);
        CHECK(!in[5].has_dims && in[5].dims == NULL);
        CHECK_EQ_U(in[6].flags, ETP_QNN_F_SYNC);
        CHECK_EQ_U(etp_qnn_qnn_op_id(in[6].op_id), 0);
    }
    CHECK_EQ_U(q->n_paths, 2);
    if (q->n_paths == 2) {
        CHECK_EQ_U(q->paths[0].core, 0); /* sorted although htp_1 came first */
        CHECK_EQ_U(q->paths[0].n_steps, 4);
        CHECK_EQ_U(q->paths[1].core, 1);
        CHECK(q->paths[0].steps[1].is_idle);
        CHECK(q->paths[0].steps[2].partial.v);
        CHECK(!q->paths[0].steps[3].start_cycle.has);
    }
    etp_qnn_qhas_free(q);
}

static void test_qhas_bad(void) {
    etp_error e;
    etp_qnn_qhas *q;
    int rc;
#define QHAS_BAD(file, code, path, msg)                                                           \
    do {                                                                                          \
        memset(&e, 0, sizeof e);                                                                  \
        q = (etp_qnn_qhas *)&e; /* must be reset to NULL */                                       \
        rc = etp_qnn_read_qhas(fx(file), &q, &e);                                                 \
        CHECK_FAIL(rc, q, e, code, fx(file), path, msg);                                          \
    } while (0)
    QHAS_BAD("qhas_wrong_artifact.json", ETP_E_INPUT, "header.artifact_type",
             "artifact type is \"OP_TRACE\", expected \"QHAS\": this is a QNN optrace, not a QNN HTP "
             "analysis summary");
    QHAS_BAD("qhas_missing_cycles.json", ETP_E_INPUT, "data.htp_op_instances.data[1].cycles",
             "missing required key");
    QHAS_BAD("qhas_bad_type.json", ETP_E_INPUT,
             "data.htp_overall_summary.data[0].htp_resources.data[1].cycles_used",
             "expected an integer, got a string");
    QHAS_BAD("qhas_bad_opid.json", ETP_E_INPUT, "data.htp_op_instances.data[0].op_id",
             "malformed op id \"0xZZ\" (expected 0x + 1..16 hex digits or a decimal number)");
    QHAS_BAD("qhas_long_opid.json", ETP_E_INPUT, "data.htp_op_instances.data[0].op_id",
             "malformed op id \"0x00000000000000001\" (expected 0x + 1..16 hex digits or a "
             "decimal number)");
    QHAS_BAD("qhas_bad_flag.json", ETP_E_INPUT, "data.htp_op_instances.data[0].hmx",
             "expected a boolean, got an integer");
    QHAS_BAD("qhas_real_cycles.json", ETP_E_INPUT, "data.htp_op_instances.data[0].cycles",
             "expected an integer, got 1.5");
    QHAS_BAD("qhas_bad_dims.json", ETP_E_INPUT, "data.htp_op_instances.data[0].dims[1]",
             "expected an integer, got a string");
    QHAS_BAD("qhas_bad_path.json", ETP_E_INPUT, "data.dominant_path_htp_0.data[0].cycles",
             "missing required key");
    QHAS_BAD("qhas_bad_element.json", ETP_E_INPUT, "data.qnn_op_instances_nodes.data[1]",
             "expected an object, got an integer");
    QHAS_BAD("qhas_bad_section.json", ETP_E_INPUT, "data.qnn_op_types",
             "expected an object, got an array");
    QHAS_BAD("qhas_no_header.json", ETP_E_INPUT, "header", "missing required key");
    QHAS_BAD("qhas_no_data.json", ETP_E_INPUT, "data", "missing required key");
    QHAS_BAD("qhas_root_array.json", ETP_E_INPUT, "",
             "expected a JSON object at the top level, got an array");
    QHAS_BAD("qhas_truncated.json", ETP_E_INPUT, "",
             "invalid JSON at line 3 column 46: '}' expected near end of file");
    CHECK_EQ_I(e.offset, 125); /* = file size: jansson's byte position */
    QHAS_BAD("qhas_dup_key.json", ETP_E_INPUT, "",
             "invalid JSON at line 1 column 89: duplicate object key near '\"op\"'");
    QHAS_BAD("empty.json", ETP_E_INPUT, "", "empty file");
    CHECK_EQ_I(e.offset, 0);
    /* a reader of one kind given another kind's file */
    QHAS_BAD("optrace_small.json", ETP_E_INPUT, "header.artifact_type",
             "artifact type is \"OP_TRACE\", expected \"QHAS\": this is a QNN optrace, not a QNN HTP "
             "analysis summary");
    /* the one-line form */
    char line[1024];
    memset(&e, 0, sizeof e);
    etp_qnn_read_qhas(fx("qhas_truncated.json"), &q, &e);
    etp_error_format(&e, line, sizeof line);
    char want[1200];
    snprintf(want, sizeof want,
             "%s: offset 125: invalid JSON at line 3 column 46: '}' expected near end of file",
             fx("qhas_truncated.json"));
    CHECK_EQ_S(line, want);
    memset(&e, 0, sizeof e);
    etp_qnn_read_qhas(fx("qhas_missing_cycles.json"), &q, &e);
    etp_error_format(&e, line, sizeof line);
    snprintf(want, sizeof want, "%s: data.htp_op_instances.data[1].cycles: missing required key",
             fx("qhas_missing_cycles.json"));
    CHECK_EQ_S(line, want);
#undef QHAS_BAD
}

/* ---------------------------------------------------------------------------------------------
 * Fixtures: optrace, runtrace
 * ------------------------------------------------------------------------------------------- */

static void test_optrace_small(void) {
    etp_error e = {0};
    etp_qnn_trace *t = NULL;
    int rc = etp_qnn_read_optrace(fx("optrace_small.json"), &t, &e);
    CHECK_MSG(rc == ETP_OK, "%s: %s: %s", e.file, e.path, e.msg);
    if (!t) return;
    CHECK(t->version.has && t->version.minor == 1);
    CHECK_EQ_U(t->n_events, 22);
    CHECK_EQ_U(t->n_x_events, 6);
    CHECK_EQ_U(t->n_ops, 4);
    CHECK_EQ_U(t->n_dup_conflicts, 1); /* the pid-3 copy of 0x1300000005 has dur 151 */
    CHECK_EQ_U(t->n_flow_events, 2);
    CHECK_EQ_U(t->n_other_events, 1);
    if (t->n_ops == 4) {
        const etp_qnn_trace_op *op = t->ops;
        CHECK_EQ_U(op[0].id, 0x0000111100000002ull);
        CHECK_EQ_S(op[0].name, "q::*InputSlice");
        CHECK_EQ_S(op[0].htp_op_type, "q::*InputSlice");
        CHECK_EQ_S(op[0].qnn_op, "Input");
        CHECK_EQ_S(op[0].qnn_op_type, "Input");
        CHECK_EQ_S(op[0].data_type, "QUInt8");
        CHECK_EQ_I(op[0].pid, 0);
        CHECK_EQ_I(op[0].tid, 256);
        CHECK_EQ_I(op[0].ts, 0);
        CHECK_EQ_I(op[0].dur, 100);
        CHECK_EQ_I(op[0].start_cycle.v, 1000);
        CHECK_EQ_I(op[0].duration_cycles.v, 100);
        CHECK_EQ_I(op[0].dominant_path_cycles.v, 100);
        CHECK(op[0].has_flags);
        CHECK_EQ_U(op[0].flags, ETP_QNN_F_DMA);
        CHECK_EQ_U(op[0].n_dims, 4);
        CHECK(op[0].dims && op[0].dims[3] == 4);
        CHECK_EQ_U(op[0].occurrences, 2);
        CHECK_EQ_U(op[1].id, 77309411333ull);
        CHECK_EQ_U(op[1].flags, ETP_QNN_F_HMX);
        CHECK_EQ_U(op[1].n_other_flags, 1);
        CHECK(!op[1].has_dims && op[1].dims == NULL);
        CHECK(op[1].qnn_op == op[2].qnn_op); /* interned once */
        CHECK_EQ_U(op[2].flags, ETP_QNN_F_HVX);
        CHECK_EQ_I(op[2].dur, 150); /* first copy kept */
        CHECK(!op[2].duration_cycles.has);
        CHECK_EQ_U(op[2].occurrences, 2);
        CHECK(op[3].qnn_op == NULL);
        CHECK(!op[3].has_flags);
        CHECK_EQ_U(op[3].occurrences, 1);
    }
    CHECK_EQ_U(t->n_threads, 3);
    CHECK_EQ_S(etp_qnn_trace_thread_name(t, 0, 256), "Type: HMX"); /* first name kept */
    CHECK_EQ_S(etp_qnn_trace_thread_name(t, 2, 256), "Core:0 Type: HMX Tid: 256");
    CHECK(etp_qnn_trace_thread_name(t, 5, 5) == NULL);
    CHECK_EQ_U(t->n_processes, 3);
    if (t->n_processes == 3) {
        CHECK_EQ_S(t->processes[0].name, "Core 0 Overview");
        CHECK(!t->processes[0].has_opid);
        CHECK_EQ_S(t->processes[1].name, "QNN::Input");
        CHECK(t->processes[1].has_opid && t->processes[1].opid == 2);
        CHECK_EQ_I(t->processes[1].sort_index.v, 2);
        CHECK(t->processes[2].name == NULL);
        CHECK_EQ_I(t->processes[2].sort_index.v, 5);
    }
    CHECK_EQ_U(t->n_counters, 3);
    const etp_qnn_trace_counter *va = etp_qnn_trace_counter_get(t, ETP_QNN_CTR_VTCM_ALLOC);
    CHECK(va && va->n_points == 2 && va->points[1].ts == 200 && va->points[1].value == 1024);
    const etp_qnn_trace_counter *dr = etp_qnn_trace_counter_get(t, ETP_QNN_CTR_DRAM_READ);
    CHECK(dr && dr->n_points == 1 && dr->points[0].value == 2048);
    CHECK(etp_qnn_trace_counter_get(t, ETP_QNN_CTR_DRAM_WRITE) == NULL);
    if (t->n_counters == 3) {
        CHECK_EQ_S(t->counters[2].name, "custom counter");
        CHECK_EQ_I(t->counters[2].kind, ETP_QNN_CTR_OTHER);
        CHECK_NEAR(t->counters[2].points[0].value, 7.5, 0);
    }
    etp_qnn_trace_free(t);
}

static void test_optrace_bad(void) {
    etp_error e;
    etp_qnn_trace *t;
    int rc;
#define TRACE_BAD(file, path, msg)                                                                \
    do {                                                                                          \
        memset(&e, 0, sizeof e);                                                                  \
        t = (etp_qnn_trace *)&e;                                                                  \
        rc = etp_qnn_read_optrace(fx(file), &t, &e);                                              \
        CHECK_FAIL(rc, t, e, ETP_E_INPUT, fx(file), path, msg);                                   \
    } while (0)
    TRACE_BAD("optrace_missing_id.json", "traceEvents[2].args.ID", "missing required key");
    TRACE_BAD("optrace_bad_flags.json", "traceEvents[0].args.Flags",
              "expected an array, got a string");
    TRACE_BAD("optrace_bad_dims.json", "traceEvents[0].args.Dims[1]",
              "expected an integer, got a string");
    TRACE_BAD("optrace_negative_dur.json", "traceEvents[0].dur", "negative duration -4");
    TRACE_BAD("optrace_bad_counter.json", "traceEvents[0].args[\"\"]",
              "expected a number, got a string");
    TRACE_BAD("optrace_no_ph.json", "traceEvents[0].ph", "missing required key");
    TRACE_BAD("optrace_no_events.json", "traceEvents", "missing required key");
    TRACE_BAD("qhas_small.json", "header.artifact_type",
              "artifact type is \"QHAS\", expected \"OP_TRACE\": this is a QNN HTP analysis summary, "
              "not a QNN optrace");
#undef TRACE_BAD
}

static void test_runtrace_small(void) {
    etp_error e = {0};
    etp_qnn_runtrace *r = NULL;
    int rc = etp_qnn_read_runtrace(fx("runtrace_small.json"), &r, &e);
    CHECK_MSG(rc == ETP_OK, "%s: %s: %s", e.file, e.path, e.msg);
    if (!r) return;
    CHECK_EQ_U(r->n_phases, 8);
    CHECK_EQ_U(r->n_executes, 3);
    CHECK_EQ_S(r->thread_name, "Core 0 Execs");
    CHECK_EQ_S(r->process_name, "g Runtraces");
    if (r->n_executes == 3) {
        CHECK_EQ_U(r->executes[0].first, 0);
        CHECK_EQ_U(r->executes[0].count, 4);
        const etp_qnn_rt_phase *ge = etp_qnn_runtrace_phase(r, 0, ETP_QNN_PHASE_GRAPH_EXECUTE);
        CHECK(ge && ge->dur == 960 && ge->htp_frequency_ghz.v == 1.25);
        CHECK(ge && ge->time_us.v == 50.0 && ge->inf_per_s.v == 20000.0);
        CHECK(ge && !ge->stat_start_ticks.has && ge->stat_start_cycles.v == 5010000);
        /* the documented relation: GHz = cycles / (ticks / 19.2 MHz) */
        if (ge)
            CHECK_NEAR((double)(ge->stat_end_cycles.v - ge->stat_start_cycles.v) /
                           (ge->dur / ETP_QNN_TICK_HZ * 1e9),
                       ge->htp_frequency_ghz.v, 1e-12);
        const etp_qnn_rt_phase *va = etp_qnn_runtrace_phase(r, 0, ETP_QNN_PHASE_VTCM_ACQUIRE);
        CHECK(va && va->dur == 192 && va->ts == 10);
        CHECK_EQ_S(va ? va->graph_name : NULL, "g");
        CHECK(etp_qnn_runtrace_phase(r, 0, ETP_QNN_PHASE_POWER_ON) != NULL);
        const etp_qnn_rt_phase *dsp = etp_qnn_runtrace_phase(r, 0, ETP_QNN_PHASE_DSP_EXECUTE);
        CHECK(dsp && dsp->stat_end_ticks.v == 1001920);
        CHECK_EQ_U(r->executes[1].first, 4);
        CHECK_EQ_U(r->executes[1].count, 3); /* DSP, Custom Phase, Graph Execute */
        CHECK(etp_qnn_runtrace_phase(r, 1, ETP_QNN_PHASE_VTCM_ACQUIRE) == NULL);
        CHECK_EQ_I(r->phases[5].kind, ETP_QNN_PHASE_OTHER);
        CHECK(r->phases[5].graph_name == NULL && !r->phases[5].time_us.has);
        CHECK_EQ_U(r->executes[2].first, 7); /* a second Graph Execute starts an execute */
        CHECK(etp_qnn_runtrace_phase(r, 2, ETP_QNN_PHASE_DSP_EXECUTE) == NULL);
        CHECK(etp_qnn_runtrace_phase(r, 2, ETP_QNN_PHASE_GRAPH_EXECUTE) == &r->phases[7]);
    }
    CHECK(etp_qnn_runtrace_phase(r, 9, ETP_QNN_PHASE_GRAPH_EXECUTE) == NULL);
    CHECK(etp_qnn_runtrace_phase(r, 0, ETP_QNN_PHASE_OTHER) == NULL);
    etp_qnn_runtrace_free(r);

    etp_qnn_runtrace *b;
#define RT_BAD(file, path, msg)                                                                   \
    do {                                                                                          \
        memset(&e, 0, sizeof e);                                                                  \
        b = (etp_qnn_runtrace *)&e;                                                               \
        rc = etp_qnn_read_runtrace(fx(file), &b, &e);                                             \
        CHECK_FAIL(rc, b, e, ETP_E_INPUT, fx(file), path, msg);                                   \
    } while (0)
    RT_BAD("runtrace_bad_freq.json", "traceEvents[1].args.summary_htp_frequency_ghz",
           "expected a number, got a string");
    RT_BAD("runtrace_wrong_artifact.json", "header.artifact_type",
           "artifact type is \"QHAS\", expected \"RUN_TRACE\": this is a QNN HTP analysis summary, "
           "not a QNN runtrace");
    RT_BAD("runtrace_no_dur.json", "traceEvents[0].dur", "missing required key");
#undef RT_BAD
}

/* ---------------------------------------------------------------------------------------------
 * Fixtures: heap file, viewer text and CSV
 * ------------------------------------------------------------------------------------------- */

static void test_heap(void) {
    etp_error e = {0};
    etp_qnn_heap *h = NULL;
    int rc = etp_qnn_read_heap(fx("heap_ok.txt"), &h, &e);
    CHECK_MSG(rc == ETP_OK, "%s: %s", e.file, e.msg);
    if (h) {
        CHECK(h->before.has && h->before.v == 928212);
        CHECK(h->after.has && h->after.v == 931000);
        CHECK(h->delta.has && h->delta.v == 2788);
        etp_qnn_heap_free(h);
    }
    h = NULL;
    rc = etp_qnn_read_heap(fx("heap_before_only.txt"), &h, &e);
    CHECK_MSG(rc == ETP_OK, "%s: %s", e.file, e.msg);
    if (h) {
        CHECK(h->before.has && h->before.v == 4096);
        CHECK(!h->after.has && !h->delta.has);
        etp_qnn_heap_free(h);
    }
#define HEAP_BAD(file, off, msg)                                                                  \
    do {                                                                                          \
        memset(&e, 0, sizeof e);                                                                  \
        h = (etp_qnn_heap *)&e;                                                                   \
        rc = etp_qnn_read_heap(fx(file), &h, &e);                                                 \
        CHECK_FAIL(rc, h, e, ETP_E_INPUT, fx(file), "", msg);                                     \
        CHECK_EQ_I(e.offset, off);                                                                \
    } while (0)
    HEAP_BAD("heap_bad_value.txt", 43, "line 2: value is not a non-negative integer: 'abc'");
    HEAP_BAD("heap_negative.txt", 0, "line 1: value is not a non-negative integer: '-5'");
    HEAP_BAD("heap_unknown_id.txt", 38,
             "line 2: unknown identifier (expected DSP:before_context_created or "
             "DSP:after_context_freed): 'DSP:middle'");
    HEAP_BAD("heap_duplicate.txt", 38, "line 2: duplicate DSP:before_context_created line");
    HEAP_BAD("heap_no_before.txt", -1, "no DSP:before_context_created line");
    HEAP_BAD("heap_no_comma.txt", 0,
             "line 1: expected '<identifier>, <bytes>', got 'DSP:before_context_created (bytes) "
             "928212'");
    HEAP_BAD("empty.json", 0, "empty file");
    HEAP_BAD("garbage.bin", 8, "line 3: binary data (NUL byte), not a text file");
#undef HEAP_BAD
}

static const char *const exec1_ids[] = {
    "Number of HVX threads used", "RPC (execute) time", "Time for initial VTCM acquire",
    "Accelerator (execute) time (cycles)", "Input OpId_2 (cycles)", "Conv_1:OpId_5 (cycles)",
    "OpId_9 (cycles)", "Output OpId_3 (cycles)", "Accelerator (execute) time",
    "Accelerator (execute excluding wait) time"};

/* What both formats of viewer_small must give. */
static void check_viewer_small(const etp_qnn_viewer *v, bool csv) {
    CHECK_EQ_S(v->input_log, "device_out/qnn-profiling-data_0.log");
    CHECK_EQ_S(v->viewer_version, "v2.45.0.1");
    CHECK_EQ_S(v->netrun_version, "v2.45.0.2");
    CHECK_EQ_S(v->backend_version, "v2.45.0.3");
    CHECK_EQ_U(v->n_executes, 2);
    if (v->n_executes != 2) return;
    const etp_qnn_stat_block *x1 = &v->executes[0], *x2 = &v->executes[1];
    CHECK_EQ_I(x1->kind, ETP_QNN_STAT_EXECUTE);
    CHECK_EQ_U(x1->index, 1);
    CHECK_EQ_U(x2->index, 2);
    CHECK_EQ_U(x1->n_events, csv ? 11 : 12); /* the text log also has the OBJECT line */
    for (size_t i = 0; i < sizeof exec1_ids / sizeof exec1_ids[0] && i < x1->n_events; i++)
        CHECK_EQ_S(x1->events[i].identifier, exec1_ids[i]);
    const etp_qnn_stat_event *ev = etp_qnn_stat_find(x1, "Accelerator (execute) time (cycles)");
    CHECK(ev && ev->has_value && ev->value == 757 && ev->unit == ETP_QNN_UNIT_CYCLES && !ev->is_node);
    int64_t sum = 0;
    uint32_t nodes = 0;
    for (uint32_t i = 0; i < x1->n_events; i++)
        if (x1->events[i].is_node) {
            sum += x1->events[i].value;
            nodes++;
            CHECK_EQ_I(x1->events[i].unit, ETP_QNN_UNIT_CYCLES);
        }
    CHECK_EQ_U(nodes, 4);
    CHECK_EQ_I(sum, 757); /* node values sum to the parent */
    ev = etp_qnn_stat_find(x1, "Number of HVX threads used");
    CHECK(ev && ev->value == 4 && ev->unit == ETP_QNN_UNIT_COUNT);
    CHECK_EQ_S(ev ? ev->unit_text : NULL, csv ? "COUNT" : "count");
    ev = etp_qnn_stat_find(x1, "QNN (execute) time");
    CHECK(ev && ev->value == 3955 && ev->unit == ETP_QNN_UNIT_US);
    ev = etp_qnn_stat_find(x2, "Accelerator (execute excluding wait) time");
    CHECK(ev && ev->value == 29 && ev->fvalue == 29.5);
    CHECK(etp_qnn_stat_find(x2, "no such event") == NULL);
    if (!csv) {
        ev = etp_qnn_stat_find(x1, "Unknown event type");
        CHECK(ev && !ev->has_value && ev->unit == ETP_QNN_UNIT_OBJECT);
        CHECK_EQ_S(ev ? ev->unit_text : NULL, "object");
    }
}

static void test_viewer(void) {
    etp_error e = {0};
    etp_qnn_viewer *t = NULL, *c = NULL, *a = NULL;
    int rc = etp_qnn_read_viewer_text(fx("viewer_small.txt"), &t, &e);
    CHECK_MSG(rc == ETP_OK, "%s: %s", e.file, e.msg);
    rc = etp_qnn_read_viewer_csv(fx("viewer_small.csv"), &c, &e);
    CHECK_MSG(rc == ETP_OK, "%s: %s", e.file, e.msg);
    if (t) {
        CHECK_EQ_I(t->format, ETP_QNN_VIEWER_TEXT);
        check_viewer_small(t, false);
        CHECK_EQ_S(t->log_created, "Tue Apr 28 00:38:19 2026");
        CHECK(t->time_scale.has && t->time_scale.v == 1e-6);
        CHECK_EQ_I(t->epoch_timestamp.v, 1777307899187320);
        CHECK_EQ_I(t->steady_clock_timestamp.v, 865951363683);
        CHECK_EQ_U(t->n_stats, 4);
        if (t->n_stats == 4) {
            CHECK_EQ_S(t->stats[0].title, "Init Stats");
            CHECK_EQ_I(t->stats[0].kind, ETP_QNN_STAT_INIT);
            CHECK_EQ_I(t->stats[0].netrun_us.v, 1000);
            CHECK_EQ_U(t->stats[0].n_events, 2);
            CHECK_EQ_S(t->stats[0].events[0].identifier, "RPC (load binary) time");
            CHECK_EQ_I(t->stats[0].events[0].value, 500);
            CHECK_EQ_I(t->stats[1].kind, ETP_QNN_STAT_COMPOSE);
            CHECK(t->stats[1].netrun_us.has && t->stats[1].netrun_us.v == 0);
            CHECK(t->stats[1].n_events == 0 && t->stats[1].events == NULL);
            CHECK_EQ_I(t->stats[2].kind, ETP_QNN_STAT_DEINIT);
            CHECK_EQ_S(t->stats[3].title, "Create From Binary Stats");
            CHECK_EQ_I(t->stats[3].kind, ETP_QNN_STAT_INIT);
            CHECK_EQ_U(t->stats[3].index, 2);
            CHECK(!t->stats[3].netrun_us.has);
        }
        CHECK_EQ_U(t->executes[0].line, 37);
        CHECK_EQ_U(t->executes[0].events[4].line, 43);
    }
    if (c) {
        CHECK_EQ_I(c->format, ETP_QNN_VIEWER_CSV);
        check_viewer_small(c, true);
        CHECK_EQ_S(c->executes[0].label, "Graph 0: \"model\"");
        CHECK_EQ_I(c->executes[0].netrun_us.v, 4000);
        CHECK_EQ_I(c->executes[0].timestamp.v, 222);
        CHECK_EQ_I(c->executes[1].timestamp.v, 333);
        CHECK_EQ_U(c->executes[0].line, 11);
        CHECK_EQ_U(c->n_stats, 3);
        if (c->n_stats == 3) {
            CHECK_EQ_S(c->stats[0].title, "INIT");
            CHECK_EQ_I(c->stats[0].netrun_us.v, 1000);
            CHECK(c->stats[0].label == NULL); /* "null" */
            CHECK_EQ_I(c->stats[1].kind, ETP_QNN_STAT_COMPOSE);
            CHECK_EQ_I(c->stats[2].kind, ETP_QNN_STAT_DEINIT);
            CHECK_EQ_U(c->stats[2].n_events, 2);
            CHECK_EQ_S(c->stats[2].events[0].identifier, "QNN (deinit) time, with \"quotes\"");
            CHECK_EQ_S(c->stats[2].events[1].identifier, "multi\nline");
            CHECK_EQ_U(c->stats[2].events[1].line, 33);
        }
    }
    /* Same executes from both formats, OBJECT lines aside. */
    if (t && c && t->n_executes == c->n_executes) {
        for (uint32_t x = 0; x < t->n_executes; x++) {
            const etp_qnn_stat_block *bt = &t->executes[x], *bc = &c->executes[x];
            uint32_t i = 0, j = 0;
            for (; i < bt->n_events && j < bc->n_events; i++, j++) {
                if (bt->events[i].unit == ETP_QNN_UNIT_OBJECT) i++;
                if (i >= bt->n_events) break;
                CHECK_EQ_S(bt->events[i].identifier, bc->events[j].identifier);
                CHECK_EQ_I(bt->events[i].value, bc->events[j].value);
                CHECK_EQ_I(bt->events[i].unit, bc->events[j].unit);
                CHECK_EQ_I(bt->events[i].is_node, bc->events[j].is_node);
            }
            CHECK_EQ_U(j, bc->n_events);
        }
    }
    /* format detection */
    rc = etp_qnn_read_viewer(fx("viewer_small.csv"), &a, &e);
    CHECK(rc == ETP_OK && a && a->format == ETP_QNN_VIEWER_CSV);
    etp_qnn_viewer_free(a);
    rc = etp_qnn_read_viewer(fx("viewer_small.txt"), &a, &e);
    CHECK(rc == ETP_OK && a && a->format == ETP_QNN_VIEWER_TEXT);
    etp_qnn_viewer_free(a);
    etp_qnn_viewer_free(t);
    etp_qnn_viewer_free(c);

    etp_qnn_viewer *b;
#define VIEW_BAD(fn, file, off, msg)                                                              \
    do {                                                                                          \
        memset(&e, 0, sizeof e);                                                                  \
        b = (etp_qnn_viewer *)&e;                                                                 \
        rc = fn(fx(file), &b, &e);                                                                \
        CHECK_FAIL(rc, b, e, ETP_E_INPUT, fx(file), "", msg);                                     \
        CHECK_EQ_I(e.offset, off);                                                                \
    } while (0)
    VIEW_BAD(etp_qnn_read_viewer_text, "viewer_bad_line.txt", 102,
             "line 8: cannot parse event line 'this line has no separator'");
    VIEW_BAD(etp_qnn_read_viewer_text, "viewer_bad_value.txt", 15,
             "line 2: value is not a number: '12x'");
    VIEW_BAD(etp_qnn_read_viewer_text, "viewer_not_a_log.txt", -1,
             "not a qnn-profile-viewer text log (no header and no 'Stats' section)");
    VIEW_BAD(etp_qnn_read_viewer_csv, "viewer_bad_fields.csv", 284, "line 7: expected 7 fields, got 6");
    VIEW_BAD(etp_qnn_read_viewer_csv, "viewer_bad_header.csv", 157,
             "line 5: unexpected column 3 (expected 'Time'): 'Duration'");
    VIEW_BAD(etp_qnn_read_viewer_csv, "viewer_unterminated.csv", 253,
             "line 6: unterminated quoted field");
    VIEW_BAD(etp_qnn_read_viewer_csv, "viewer_bad_level.csv", 253,
             "line 6: unknown Event Level (expected ROOT or SUB-EVENT): 'LEAF'");
    VIEW_BAD(etp_qnn_read_viewer_csv, "viewer_bad_time.csv", 253,
             "line 6: Time is not a number: 'fast'");
    VIEW_BAD(etp_qnn_read_viewer, "viewer_no_header.csv", -1,
             "no CSV header line ('Msg Timestamp, Message, Time, Unit of Measurement, Timing "
             "Source, Event Level, Event Identifier')");
    VIEW_BAD(etp_qnn_read_viewer_text, "garbage.bin", 8,
             "line 3: binary data (NUL byte), not a text file");
#undef VIEW_BAD
}


/* QNN 2.13-style text log: "Execute Stats (Average|Min|Max|Overall):", "Graph N (name):",
 * "--- " prefixes, "Total Inference Time:", "NetRun IPS". Values read from viewer_213.txt. */
static const etp_qnn_stat_block *agg_block(const etp_qnn_viewer *v, const char *agg) {
    for (uint32_t i = 0; i < v->n_stats; i++)
        if (v->stats[i].aggregate && strcmp(v->stats[i].aggregate, agg) == 0) return &v->stats[i];
    return NULL;
}

static void test_viewer_213(void) {
    etp_qnn_viewer *v = NULL;
    etp_error e;
    memset(&e, 0, sizeof e);
    int rc = etp_qnn_read_viewer_text(fx("viewer_213.txt"), &v, &e);
    CHECK_MSG(rc == ETP_OK, "viewer_213.txt: %s", e.msg);
    if (rc == ETP_OK) {
        CHECK_EQ_U(v->n_executes, 0);
        CHECK_EQ_U(v->n_stats, 6);
        CHECK_EQ_I(v->stats[0].kind, ETP_QNN_STAT_INIT);
        CHECK_EQ_I(v->stats[0].netrun_us.v, 100);
        CHECK_EQ_I(v->stats[1].kind, ETP_QNN_STAT_FINALIZE);
        CHECK(v->stats[1].graph_name && strcmp(v->stats[1].graph_name, "mobilenet") == 0);
        CHECK(v->stats[1].graph_index.has && v->stats[1].graph_index.v == 3);
        CHECK_EQ_I(v->stats[1].netrun_us.v, 250);
        const etp_qnn_stat_block *avg = agg_block(v, "Average"), *mn = agg_block(v, "Min"),
                                 *mx = agg_block(v, "Max"), *ov = agg_block(v, "Overall");
        CHECK(avg && mn && mx && ov);
        if (avg && mn && mx && ov) {
            CHECK(avg->total_inference);
            CHECK(!mn->total_inference);
            CHECK(avg->graph_name && strcmp(avg->graph_name, "net_a") == 0);
            CHECK_EQ_I(avg->graph_index.v, 1);
            CHECK_EQ_I(avg->netrun_us.v, 1500);
            CHECK_EQ_I(mn->netrun_us.v, 1200);
            CHECK_EQ_I(mx->netrun_us.v, 1900);
            CHECK_EQ_U(avg->n_events, 1);
            CHECK_EQ_S(avg->events[0].identifier, "QNN (execute) time");
            CHECK_EQ_I(avg->events[0].value, 1490);
            CHECK_EQ_I(avg->events[0].unit, ETP_QNN_UNIT_US);
            CHECK_EQ_I(mx->events[0].value, 1880);
            CHECK(!avg->netrun_ips.has);
            CHECK(ov->netrun_ips.has);
            CHECK_NEAR(ov->netrun_ips.v, 666.5, 1e-9);
            CHECK(ov->graph_name == NULL);
        }
        etp_qnn_viewer_free(v);
    }
    etp_qnn_viewer *b = (etp_qnn_viewer *)&e;
    memset(&e, 0, sizeof e);
    rc = etp_qnn_read_viewer_text(fx("viewer_bad_graph.txt"), &b, &e);
    CHECK_FAIL(rc, b, e, ETP_E_INPUT, fx("viewer_bad_graph.txt"), "",
               "line 8: cannot parse graph line (expected 'Graph <N> (<name>):') "
               "'Graph three (mobilenet):'");
    CHECK_EQ_I(e.offset, 144);
}

/* The real QNN 2.13 viewer logs of ../shared/corpus/external/qnn-viewer (values read by hand). */
static int viewer_real(const char *dir) {
    static const char *const files[] = {"csdn_blog__qnn-profile-viewer_basic_v2.13.txt",
                                        "csdn_blog__qnn-profile-viewer_basic_v2.13.reconstructed.txt"};
    char p[1200];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, files[0]);
    if (stat(p, &st) != 0) {
        printf("SKIP: real qnn-profile-viewer logs not found at %s (set up "
               "../shared/corpus/external/qnn-viewer)\n", dir);
        return 77;
    }
    for (int f = 0; f < 2; f++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[f]);
        etp_qnn_viewer *v = NULL;
        etp_error e;
        memset(&e, 0, sizeof e);
        int rc = etp_qnn_read_viewer_text(p, &v, &e);
        CHECK_MSG(rc == ETP_OK, "%s: %s", files[f], e.msg);
        if (rc != ETP_OK) continue;
        /* Init 331158, Compose 74748, Finalize (Graph 0 model) 256372, De-Init 15810,
         * Execute Stats (Average) 2952 us, QNN (execute) 2949 us, Overall 214.8888 inf/sec */
        CHECK_EQ_U(v->n_stats, 6);
        if (v->n_stats == 6) {
            CHECK_EQ_I(v->stats[0].kind, ETP_QNN_STAT_INIT);
            CHECK_EQ_I(v->stats[0].netrun_us.v, 331158);
            CHECK_EQ_I(v->stats[1].kind, ETP_QNN_STAT_COMPOSE);
            CHECK_EQ_I(v->stats[1].netrun_us.v, 74748);
            CHECK_EQ_I(v->stats[2].kind, ETP_QNN_STAT_FINALIZE);
            CHECK_EQ_I(v->stats[2].netrun_us.v, 256372);
            CHECK(v->stats[2].graph_name && strcmp(v->stats[2].graph_name, "model") == 0);
            CHECK_EQ_I(v->stats[2].graph_index.v, 0);
            CHECK_EQ_I(v->stats[3].kind, ETP_QNN_STAT_DEINIT);
            CHECK_EQ_I(v->stats[3].netrun_us.v, 15810);
            const etp_qnn_stat_block *avg = agg_block(v, "Average"), *ov = agg_block(v, "Overall");
            CHECK(avg && ov);
            if (avg && ov) {
                CHECK(avg->total_inference);
                CHECK(avg->graph_name && strcmp(avg->graph_name, "model") == 0);
                CHECK_EQ_I(avg->netrun_us.v, 2952);
                const etp_qnn_stat_event *q = etp_qnn_stat_find(avg, "QNN (execute) time");
                CHECK(q && q->value == 2949 && q->unit == ETP_QNN_UNIT_US);
                const etp_qnn_stat_event *h = etp_qnn_stat_find(avg, "Number of HVX threads used");
                CHECK(h && h->value == 4 && h->unit == ETP_QNN_UNIT_COUNT);
                CHECK(ov->netrun_ips.has);
                CHECK_NEAR(ov->netrun_ips.v, 214.8888, 1e-9);
            }
        }
        etp_qnn_viewer_free(v);
    }
    return check_done();
}

/* ---------------------------------------------------------------------------------------------
 * Derived results on fixtures, node names, join
 * ------------------------------------------------------------------------------------------- */

static void test_derive_fixtures(void) {
    etp_error e = {0};
    etp_qnn_qhas *q = NULL, *qmin = NULL;
    etp_qnn_trace *t = NULL;
    etp_qnn_runtrace *r = NULL;
    etp_qnn_heap *h = NULL;
    etp_qnn_read_qhas(fx("qhas_small.json"), &q, &e);
    etp_qnn_read_qhas(fx("qhas_min.json"), &qmin, &e);
    etp_qnn_read_optrace(fx("optrace_small.json"), &t, &e);
    etp_qnn_read_runtrace(fx("runtrace_small.json"), &r, &e);
    etp_qnn_read_heap(fx("heap_ok.txt"), &h, &e);
    CHECK(q && qmin && t && r && h);
    if (!(q && qmin && t && r && h)) goto out;

    /* QHAS source, no runtrace: clock from QHAS = 1000 cycles / 1 us / 1000 = 1 GHz */
    etp_qnn_sources s1 = {q, t, NULL, h};
    etp_qnn_derived *d = NULL;
    CHECK_EQ_I(etp_qnn_derive(&s1, &d, &e), ETP_OK);
    if (d) {
        CHECK_EQ_I(d->rows_source, ETP_QNN_SRC_QHAS);
        CHECK_EQ_U(d->n_rows, 5);
        CHECK_EQ_I(d->total_cycles, 1007);
        const etp_qnn_op_row *in = etp_qnn_derived_row(d, "Input");
        const etp_qnn_op_row *cv = etp_qnn_derived_row(d, "Conv_1");
        const etp_qnn_op_row *ou = etp_qnn_derived_row(d, "Output");
        const etp_qnn_op_row *sy = etp_qnn_derived_row(d, "SystemService_X");
        const etp_qnn_op_row *orph = etp_qnn_derived_row(d, "Orphan");
        CHECK(in && cv && ou && sy && orph);
        CHECK(etp_qnn_derived_row(d, "nope") == NULL);
        if (in && cv && ou && sy && orph) {
            CHECK(in == &d->rows[0] && cv == &d->rows[1] && orph == &d->rows[4]);
            CHECK_EQ_U(in->op_id, 2);
            CHECK(in->has_op_id && !in->op_id_conflict);
            CHECK_EQ_I(in->cycles, 120);
            CHECK_EQ_U(in->htp_ops, 2);
            CHECK(!in->hmx && !in->hvx && in->dma); /* dma from dma and dma_set */
            CHECK_EQ_I(in->dma_cycles, 120);
            CHECK_EQ_I(in->dominant_path_cycles, 100);
            CHECK(in->has_bytes && in->dram_read_bytes == 2048 && in->vtcm_write_bytes == 2048);
            CHECK_EQ_S(in->qnn_op_type, "Input");
            CHECK_NEAR(in->share, 120.0 * 100 / 1007, 1e-12);
            CHECK_EQ_U(cv->op_id, 5);
            CHECK_EQ_I(cv->cycles, 630);
            CHECK(cv->hmx && cv->hvx && cv->dma);
            CHECK_EQ_I(cv->hmx_cycles, 400);
            CHECK_EQ_I(cv->hvx_cycles, 150);
            CHECK_EQ_I(cv->dma_cycles, 80);
            CHECK_EQ_I(cv->dominant_path_cycles, 300);
            CHECK_EQ_U(cv->htp_ops, 3);
            CHECK_EQ_I(cv->vtcm_read_bytes, 4096);
            CHECK_EQ_S(cv->qnn_op_type, "Conv2d");
            CHECK_NEAR(cv->share, 62.562065541211519, 1e-12);
            CHECK_EQ_U(ou->op_id, 3);
            CHECK(!ou->hmx && ou->hvx && !ou->dma && ou->hvx_cycles == 200);
            CHECK_EQ_I(ou->dram_write_bytes, 1024);
            CHECK_EQ_U(sy->op_id, 0);
            CHECK(!sy->hmx && !sy->hvx && !sy->dma && sy->cycles == 50);
            CHECK(!orph->has_op_id && orph->cycles == 7 && orph->htp_ops == 0);
            CHECK_EQ_I(orph->dram_read_bytes, 11);
            CHECK_EQ_S(orph->qnn_op_type, "Reshape");
        }
        const etp_qnn_summary *s = &d->summary;
        CHECK_EQ_I(s->source, ETP_QNN_SRC_QHAS);
        CHECK_NEAR(s->utilization_percent.v, 90.0, 0);
        CHECK_NEAR(s->idle_percent.v, 10.0, 0);
        CHECK_EQ_I(s->graph_execute_us.v, 1);
        CHECK_EQ_I(s->time_us.v, 100);
        CHECK_EQ_I(s->timeline_cycles.v, 1000);
        CHECK_EQ_I(s->clock_source, ETP_QNN_SRC_QHAS);
        CHECK_NEAR(s->clock_ghz.v, 1.0, 1e-12);
        CHECK_EQ_I(s->peak_vtcm_bytes.v, 4096);
        CHECK_EQ_I(s->dram_read_bytes.v, 2048);
        CHECK_EQ_I(s->dram_write_bytes.v, 1024);
        CHECK_EQ_I(s->vtcm_read_bytes.v, 8192);
        CHECK_EQ_I(s->vtcm_write_bytes.v, 8192);
        CHECK_EQ_I(s->hmx_busy_cycles.v, 650);
        CHECK_NEAR(s->hmx_busy_share.v, 65.0, 1e-12);
        /* HMX compute unknown: the row Orphan is a node without HTP op instances (no flags) */
        CHECK(!s->hmx_op_cycles.has && !s->hmx_op_share.has);
        CHECK_EQ_U(s->htp_cores, 1);
        CHECK_EQ_I(s->hvx_busy_cycles.v, 350);
        CHECK_EQ_U(s->hvx_threads, 2);
        CHECK_NEAR(s->hvx_busy_share.v, 17.5, 1e-12);
        CHECK_EQ_U(s->n_threads, 3);
        if (s->n_threads == 3) {
            CHECK(s->threads[0].tid == 256 && s->threads[0].busy_cycles == 650);
            CHECK(s->threads[2].tid == 513 && s->threads[2].busy_cycles == 200);
            CHECK_NEAR(s->threads[2].share.v, 20.0, 1e-12);
        }
        CHECK_EQ_I(s->dominant_source, ETP_QNN_SRC_QHAS);
        CHECK_EQ_U(s->n_dominant, 3);
        if (s->n_dominant == 3) {
            CHECK_EQ_S(s->dominant[0].qnn_op, "Input");
            CHECK_EQ_S(s->dominant[1].htp_op, "q::Conv");
            CHECK(s->dominant[1].partial && s->dominant[1].cycles == 400);
            CHECK(s->dominant[1].dp_cycles.v == 300 && s->dominant[1].op_id == 77309411333ull);
            CHECK_EQ_S(s->dominant[2].qnn_op, "Output");
        }
        CHECK_EQ_I(s->dominant_dp_cycles, 600);
        CHECK_EQ_I(s->dominant_idle_cycles, 10);
        CHECK(s->heap_before_bytes.v == 928212 && s->heap_delta_bytes.v == 2788);
    }
    etp_qnn_derived_free(d);

    /* one core: the summary and the rows cover the same core, no scope note */
    {
        char nb[400] = "x";
        CHECK(!etp_qnn_scope_note(1, nb, sizeof nb) && nb[0] == 0);
        CHECK(!etp_qnn_scope_note(0, nb, sizeof nb) && nb[0] == 0);
    }

    /* two cores (qhas_two_cores.json, written by hand): the summary is core 0's (HMX thread
     * 700 busy cycles of a 1000-cycle timeline), the rows hold both cores' ops, so HMX compute
     * (500 on core 0 + 450 on core 1) has no share of one timeline, and the note says so */
    {
        etp_qnn_qhas *q2 = NULL;
        CHECK_EQ_I(etp_qnn_read_qhas(fx("qhas_two_cores.json"), &q2, &e), ETP_OK);
        etp_qnn_sources s5 = {q2, NULL, NULL, NULL};
        etp_qnn_derived *d2 = NULL;
        if (q2) CHECK_EQ_I(etp_qnn_derive(&s5, &d2, &e), ETP_OK);
        if (d2) {
            const etp_qnn_summary *s = &d2->summary;
            CHECK_EQ_U(s->htp_cores, 2);
            CHECK_EQ_U(d2->n_rows, 4);
            CHECK(s->hmx_busy_cycles.has && s->hmx_busy_cycles.v == 700);
            CHECK(s->timeline_cycles.has && s->timeline_cycles.v == 1000);
            CHECK(s->hmx_op_cycles.has && s->hmx_op_cycles.v == 950);
            CHECK(!s->hmx_op_share.has);
            char nb[400];
            CHECK(etp_qnn_scope_note(s->htp_cores, nb, sizeof nb));
            CHECK(strstr(nb, "describes 2 HTP cores") != NULL && strstr(nb, "core 0's") != NULL);
            char small[16];
            CHECK(etp_qnn_scope_note(2, small, sizeof small) && strlen(small) == sizeof small - 1);
        }
        etp_qnn_derived_free(d2);
        etp_qnn_qhas_free(q2);
    }

    /* with the runtrace, the clock comes from the first execute's Graph Execute */
    etp_qnn_sources s2 = {q, NULL, r, NULL};
    d = NULL;
    CHECK_EQ_I(etp_qnn_derive(&s2, &d, &e), ETP_OK);
    if (d) {
        CHECK_EQ_I(d->summary.clock_source, ETP_QNN_SRC_RUNTRACE);
        CHECK_NEAR(d->summary.clock_ghz.v, 1.25, 0);
        CHECK(!d->summary.heap_before_bytes.has);
    }
    etp_qnn_derived_free(d);

    /* optrace only: rows and summary computed from the ops */
    etp_qnn_sources s3 = {NULL, t, NULL, NULL};
    d = NULL;
    CHECK_EQ_I(etp_qnn_derive(&s3, &d, &e), ETP_OK);
    if (d) {
        CHECK_EQ_I(d->rows_source, ETP_QNN_SRC_OPTRACE);
        CHECK_EQ_U(d->n_rows, 2);
        CHECK_EQ_U(d->unattributed_ops, 1);
        CHECK_EQ_I(d->total_cycles, 650);
        const etp_qnn_op_row *cv = etp_qnn_derived_row(d, "Conv_1");
        CHECK(cv && cv->op_id == 5 && cv->cycles == 550 && cv->hmx && cv->hvx && !cv->dma);
        CHECK(cv && cv->hmx_cycles == 400 && cv->hvx_cycles == 150 && !cv->has_bytes);
        CHECK(cv && cv->dominant_path_cycles == 300 && cv->htp_ops == 2);
        const etp_qnn_summary *s = &d->summary;
        CHECK_EQ_I(s->source, ETP_QNN_SRC_OPTRACE);
        /* spans [1000,1100) [1150,1550) [1200,1350): timeline 550, busy 500 */
        CHECK_EQ_I(s->timeline_cycles.v, 550);
        CHECK_NEAR(s->utilization_percent.v, 500.0 * 100 / 550, 1e-12);
        CHECK_NEAR(s->idle_percent.v, 50.0 * 100 / 550, 1e-12);
        CHECK(!s->graph_execute_us.has && !s->dram_read_bytes.has);
        CHECK_EQ_I(s->peak_vtcm_bytes.v, 4096);
        CHECK_EQ_I(s->hmx_busy_cycles.v, 500);
        /* HMX compute: the one op flagged uses_hmx (q::Conv, 400 cycles); the HMX thread's
         * other 100 busy cycles are Input's DMA op */
        CHECK(s->hmx_op_cycles.has && s->hmx_op_cycles.v == 400);
        CHECK_NEAR(s->hmx_op_share.v, 400.0 * 100 / 550, 1e-12);
        CHECK_EQ_I(s->hvx_busy_cycles.v, 150);
        CHECK_EQ_U(s->hvx_threads, 1);
        CHECK_EQ_I(s->clock_source, ETP_QNN_SRC_NONE);
        CHECK(!s->clock_ghz.has);
        CHECK_EQ_I(s->dominant_source, ETP_QNN_SRC_OPTRACE);
        CHECK_EQ_U(s->n_dominant, 2);
        CHECK_EQ_I(s->dominant_dp_cycles, 400);
    }
    etp_qnn_derived_free(d);

    /* nothing given */
    etp_qnn_sources s4 = {NULL, NULL, NULL, NULL};
    d = NULL;
    CHECK_EQ_I(etp_qnn_derive(&s4, &d, &e), ETP_OK);
    CHECK(d && d->n_rows == 0 && d->rows_source == ETP_QNN_SRC_NONE &&
          d->summary.source == ETP_QNN_SRC_NONE && !d->summary.utilization_percent.has);
    etp_qnn_derived_free(d);

    /* optrace vs QHAS: qhas_min agrees; qhas_small differs on every op */
    etp_qnn_cycle_mismatch *mm = NULL;
    uint32_t nm = 99;
    CHECK_EQ_I(etp_qnn_check_optrace_qhas(t, qmin, &mm, &nm, &e), ETP_OK);
    CHECK_EQ_U(nm, 0);
    free(mm);
    CHECK_EQ_I(etp_qnn_check_optrace_qhas(t, q, &mm, &nm, &e), ETP_OK);
    CHECK_EQ_U(nm, 5);
    if (nm == 5) {
        CHECK_EQ_S(mm[0].qnn_op, "Input");
        CHECK(mm[0].optrace_cycles.v == 100 && mm[0].qhas_cycles.v == 120);
        CHECK_EQ_S(mm[1].qnn_op, "Conv_1");
        CHECK(mm[1].optrace_cycles.v == 550 && mm[1].qhas_cycles.v == 630);
        CHECK_EQ_S(mm[2].qnn_op, "Output");
        CHECK(!mm[2].optrace_cycles.has && mm[2].qhas_cycles.v == 200);
    }
    free(mm);
    CHECK_EQ_I(etp_qnn_check_optrace_qhas(NULL, q, &mm, &nm, &e), ETP_E_USAGE);
out:
    etp_qnn_qhas_free(q);
    etp_qnn_qhas_free(qmin);
    etp_qnn_trace_free(t);
    etp_qnn_runtrace_free(r);
    etp_qnn_heap_free(h);
}

static void test_node_names(void) {
    static const struct {
        const char *s;
        etp_qnn_node_kind kind;
        const char *name;
        uint32_t id;
    } cases[] = {
        {"aten_convolution_default:OpId_23 (cycles)", ETP_QNN_NODE_NAMED, "aten_convolution_default", 23},
        {"Input OpId_2 (cycles)", ETP_QNN_NODE_INPUT, "Input", 2},
        {"Output OpId_3 (cycles)", ETP_QNN_NODE_OUTPUT, "Output", 3},
        {"OpId_0 (cycles)", ETP_QNN_NODE_SYSTEM, NULL, 0},
        {"OpId_4294967295 (cycles)", ETP_QNN_NODE_SYSTEM, NULL, 4294967295u},
        {"/Mul:OpId_17 (cycles)", ETP_QNN_NODE_NAMED, "/Mul", 17},
        {"a:b:OpId_7 (cycles)", ETP_QNN_NODE_NAMED, "a:b", 7},
        {"MatMul_0_pre_reshape:OpId_016 (cycles)", ETP_QNN_NODE_NAMED, "MatMul_0_pre_reshape", 16},
        {"Accelerator (execute) time (cycles)", ETP_QNN_NODE_NONE, NULL, 0},
        {"OpId_ (cycles)", ETP_QNN_NODE_NONE, NULL, 0},
        {"OpId_12", ETP_QNN_NODE_NONE, NULL, 0},
        {"OpId_4294967296 (cycles)", ETP_QNN_NODE_NONE, NULL, 0},
        {"OpId_99999999999 (cycles)", ETP_QNN_NODE_NONE, NULL, 0},
        {"Foo OpId_3 (cycles)", ETP_QNN_NODE_NONE, NULL, 0},
        {":OpId_3 (cycles)", ETP_QNN_NODE_NONE, NULL, 0},
        {"Input OpId_2 (us)", ETP_QNN_NODE_NONE, NULL, 0},
        {"Input OpId_2 (cycles) ", ETP_QNN_NODE_NONE, NULL, 0},
        {"xOpId_2 (cycles)", ETP_QNN_NODE_NONE, NULL, 0},
        {"", ETP_QNN_NODE_NONE, NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        etp_qnn_node_name nn;
        etp_qnn_node_kind k = etp_qnn_parse_node_name(cases[i].s, &nn);
        CHECK_MSG(k == cases[i].kind && nn.kind == k, "\"%s\": kind %d, expected %d", cases[i].s,
                  (int)k, (int)cases[i].kind);
        if (k != cases[i].kind) continue;
        CHECK_EQ_U(nn.op_id, cases[i].id);
        if (cases[i].name)
            CHECK_MSG(nn.name && nn.name_len == strlen(cases[i].name) &&
                          memcmp(nn.name, cases[i].name, nn.name_len) == 0,
                      "\"%s\": name", cases[i].s);
        else CHECK(nn.name == NULL && nn.name_len == 0);
    }
    CHECK_EQ_I(etp_qnn_parse_node_name(NULL, NULL), ETP_QNN_NODE_NONE);
    CHECK_EQ_I(etp_qnn_parse_node_name("OpId_5 (cycles)", NULL), ETP_QNN_NODE_SYSTEM);
}

static void test_join(void) {
    etp_error e = {0};
    etp_qnn_qhas *q = NULL;
    etp_qnn_read_qhas(fx("qhas_small.json"), &q, &e);
    etp_qnn_sources src = {q, NULL, NULL, NULL};
    etp_qnn_derived *d = NULL;
    if (!q || etp_qnn_derive(&src, &d, &e) != ETP_OK) {
        CHECK(0);
        etp_qnn_qhas_free(q);
        return;
    }
    /* rows: 0 Input(2) 1 Conv_1(5) 2 Output(3) 3 SystemService_X(0) 4 Orphan(no id) */
    etp_qnn_etdump_node nodes[] = {
        {"Input", 5, 2, 120},   {"Conv_1", 6, 5, 630},   {NULL, 0, 9, 7},
        {"Renamed", 7, 3, 0},   {"OnlyHere", 8, 77, 1},  {"Orphan", 6, 999, 7},
    };
    etp_qnn_join *j = NULL;
    CHECK_EQ_I(etp_qnn_join_nodes(nodes, 6, d->rows, d->n_rows, &j, &e), ETP_OK);
    if (j) {
        CHECK_EQ_U(j->n_pairs, 4);
        if (j->n_pairs == 4) {
            CHECK(j->pairs[0].node == 0 && j->pairs[0].row == 0 && j->pairs[0].by_id &&
                  j->pairs[0].same_name);
            CHECK(j->pairs[1].node == 1 && j->pairs[1].row == 1 && j->pairs[1].same_name);
            CHECK(j->pairs[2].node == 3 && j->pairs[2].row == 2 && j->pairs[2].by_id &&
                  !j->pairs[2].same_name);
            CHECK(j->pairs[3].node == 5 && j->pairs[3].row == 4 && !j->pairs[3].by_id &&
                  j->pairs[3].same_name);
        }
        CHECK(j->n_node_only == 2 && j->node_only[0] == 2 && j->node_only[1] == 4);
        CHECK(j->n_row_only == 1 && j->row_only[0] == 3);
    }
    etp_qnn_join_free(j);

    /* an unnamed system node takes the row with its id; two nodes cannot share a row */
    etp_qnn_etdump_node sys[] = {{NULL, 0, 0, 50}, {NULL, 0, 0, 1}};
    j = NULL;
    CHECK_EQ_I(etp_qnn_join_nodes(sys, 2, d->rows, d->n_rows, &j, &e), ETP_OK);
    if (j) {
        CHECK(j->n_pairs == 1 && j->pairs[0].row == 3 && !j->pairs[0].same_name);
        CHECK(j->n_node_only == 1 && j->node_only[0] == 1);
        CHECK_EQ_U(j->n_row_only, 4);
    }
    etp_qnn_join_free(j);
    j = NULL;
    CHECK_EQ_I(etp_qnn_join_nodes(NULL, 0, NULL, 0, &j, &e), ETP_OK);
    CHECK(j && j->n_pairs == 0 && j->n_node_only == 0 && j->n_row_only == 0);
    etp_qnn_join_free(j);

    /* viewer nodes -> join */
    etp_qnn_viewer *v = NULL;
    etp_qnn_read_viewer_text(fx("viewer_small.txt"), &v, &e);
    etp_qnn_etdump_node *vn = NULL;
    uint32_t n = 0;
    if (v) {
        CHECK_EQ_I(etp_qnn_viewer_nodes(&v->executes[0], &vn, &n, &e), ETP_OK);
        CHECK_EQ_U(n, 4);
        if (n == 4) {
            CHECK(vn[0].name_len == 5 && memcmp(vn[0].name, "Input", 5) == 0 && vn[0].op_id == 2 &&
                  vn[0].cycles == 120);
            CHECK(vn[1].name_len == 6 && memcmp(vn[1].name, "Conv_1", 6) == 0 && vn[1].op_id == 5);
            CHECK(vn[2].name == NULL && vn[2].op_id == 9 && vn[2].cycles == 7);
            CHECK(vn[3].op_id == 3 && vn[3].cycles == 0);
        }
        j = NULL;
        CHECK_EQ_I(etp_qnn_join_nodes(vn, n, d->rows, d->n_rows, &j, &e), ETP_OK);
        CHECK(j && j->n_pairs == 3 && j->n_node_only == 1 && j->n_row_only == 2);
        etp_qnn_join_free(j);
        free(vn);
    }
    etp_qnn_viewer_free(v);
    etp_qnn_derived_free(d);
    etp_qnn_qhas_free(q);
}

/* ---------------------------------------------------------------------------------------------
 * Crash sweeps: every reader on every fixture; truncated copies of the good fixtures
 * ------------------------------------------------------------------------------------------- */

static void check_outcome(const char *reader, const char *file, int rc, bool got,
                          const etp_error *e) {
    if (rc == ETP_OK) {
        CHECK_MSG(got, "%s on %s: OK without a result", reader, file);
        return;
    }
    CHECK_MSG(!got, "%s on %s: failed but returned a result", reader, file);
    CHECK_MSG(rc == ETP_E_INPUT || rc == ETP_E_IO, "%s on %s: rc %d", reader, file, rc);
    CHECK_MSG(e->code == rc, "%s on %s: err.code %d rc %d", reader, file, e->code, rc);
    CHECK_MSG(e->msg[0] && printable_line(e->msg), "%s on %s: bad message \"%s\"", reader, file,
              e->msg);
    CHECK_MSG(strcmp(e->file, file) == 0, "%s on %s: err.file \"%s\"", reader, file, e->file);
}

static void test_sweep_all_fixtures(void) {
    static const char *const files[] = {
        "empty.json", "garbage.bin", "heap_bad_value.txt", "heap_before_only.txt",
        "heap_duplicate.txt", "heap_negative.txt", "heap_no_before.txt", "heap_no_comma.txt",
        "heap_ok.txt", "heap_unknown_id.txt", "optrace_bad_counter.json", "optrace_bad_dims.json",
        "optrace_bad_flags.json", "optrace_missing_id.json", "optrace_negative_dur.json",
        "optrace_no_events.json", "optrace_no_ph.json", "optrace_small.json",
        "qhas_bad_dims.json", "qhas_bad_element.json", "qhas_bad_flag.json",
        "qhas_bad_opid.json", "qhas_bad_path.json", "qhas_bad_section.json", "qhas_bad_type.json",
        "qhas_dup_key.json", "qhas_long_opid.json", "qhas_min.json", "qhas_missing_cycles.json",
        "qhas_no_data.json", "qhas_no_header.json", "qhas_real_cycles.json",
        "qhas_root_array.json", "qhas_small.json", "qhas_truncated.json",
        "qhas_wrong_artifact.json", "runtrace_bad_freq.json", "runtrace_no_dur.json",
        "runtrace_small.json", "runtrace_wrong_artifact.json", "viewer_bad_fields.csv",
        "viewer_bad_header.csv", "viewer_bad_level.csv", "viewer_bad_line.txt",
        "viewer_bad_time.csv", "viewer_bad_value.txt", "viewer_no_header.csv",
        "viewer_not_a_log.txt", "viewer_small.csv", "viewer_small.txt",
        "viewer_unterminated.csv"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++)
        for (size_t r = 0; r < N_READERS; r++) {
            etp_error e = {0};
            bool got = true;
            int rc = readers[r].fn(fx(files[f]), &got, &e);
            check_outcome(readers[r].name, fx(files[f]), rc, got, &e);
        }
    /* common failures, every reader */
    char missing[1100];
    snprintf(missing, sizeof missing, "%s/does-not-exist.json", g_dir);
    for (size_t r = 0; r < N_READERS; r++) {
        etp_error e = {0};
        bool got = true;
        int rc = readers[r].fn(g_dir, &got, &e);
        CHECK_FAIL(rc, got ? (void *)1 : NULL, e, ETP_E_IO, g_dir, "", "is a directory");
        memset(&e, 0, sizeof e);
        rc = readers[r].fn(missing, &got, &e);
        CHECK_FAIL(rc, got ? (void *)1 : NULL, e, ETP_E_IO, missing, "",
                   "cannot open: No such file or directory");
        memset(&e, 0, sizeof e);
        rc = readers[r].fn(fx("empty.json"), &got, &e);
        CHECK_FAIL(rc, got ? (void *)1 : NULL, e, ETP_E_INPUT, fx("empty.json"), "", "empty file");
        memset(&e, 0, sizeof e);
        rc = readers[r].fn(fx("garbage.bin"), &got, &e);
        CHECK_EQ_I(rc, ETP_E_INPUT);
        CHECK(!got && printable_line(e.msg));
        if (readers[r].json)
            CHECK_MSG(strncmp(e.msg, "invalid JSON at line 1 column ", 30) == 0, "%s: %s",
                      readers[r].name, e.msg);
        else
            CHECK_EQ_S(e.msg, "line 3: binary data (NUL byte), not a text file");
    }
}

/* Prefixes of every good fixture (about 400 evenly spaced lengths each, every length for small
 * files) must read or fail cleanly. */
static void test_sweep_truncations(void) {
    static const struct {
        const char *file;
        size_t reader;
    } goods[] = {{"qhas_small.json", 0},     {"optrace_small.json", 1}, {"runtrace_small.json", 2},
                 {"heap_ok.txt", 3},         {"viewer_small.txt", 4},   {"viewer_small.csv", 5},
                 {"viewer_small.csv", 6}};
    struct stat sst;
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir) tmpdir = stat("/dev/shm", &sst) == 0 && S_ISDIR(sst.st_mode) ? "/dev/shm" : "/tmp";
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s/test_qnn_XXXXXX", tmpdir);
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    size_t runs = 0, oks = 0;
    for (size_t g = 0; g < sizeof goods / sizeof goods[0]; g++) {
        FILE *f = fopen(fx(goods[g].file), "rb");
        CHECK(f != NULL);
        if (!f) continue;
        char *data = malloc(1 << 20);
        size_t n = data ? fread(data, 1, 1 << 20, f) : 0;
        fclose(f);
        size_t stride = n > 400 ? n / 400 : 1;
        for (size_t len = 0; len < n; len += stride) {
            FILE *o = fopen(tmp, "wb");
            if (!o) break;
            fwrite(data, 1, len, o);
            fclose(o);
            etp_error e = {0};
            bool got = true;
            int rc = readers[goods[g].reader].fn(tmp, &got, &e);
            check_outcome(readers[goods[g].reader].name, tmp, rc, got, &e);
            runs++;
            oks += rc == ETP_OK;
        }
        free(data);
    }
    unlink(tmp);
    printf("truncation sweep: %zu reads, %zu accepted prefixes\n", runs, oks);
}

/* ---------------------------------------------------------------------------------------------
 * Real samples
 * ------------------------------------------------------------------------------------------- */

/* Direct lookup "a.b[2].c" in a jansson document (independent of the readers). */
static json_t *jp(json_t *root, const char *path) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = root;
    for (char *tok = strtok(buf, "."); tok && cur; tok = strtok(NULL, ".")) {
        char *br = strchr(tok, '[');
        if (br) *br = '\0';
        if (*tok) cur = json_object_get(cur, tok);
        while (br && cur) {
            cur = json_array_get(cur, strtoul(br + 1, NULL, 10));
            br = strchr(br + 1, '[');
        }
    }
    return cur;
}
static long long ji(json_t *root, const char *path) { return json_integer_value(jp(root, path)); }
static double jd(json_t *root, const char *path) { return json_number_value(jp(root, path)); }

typedef struct direct_op {
    const char *name;
    bool hmx, hvx, dma;
    long long hmx_cycles, hvx_cycles, dma_cycles;
    uint32_t op_id;
} direct_op;

static void real_set(const char *corpus, const char *set) {
    char dir[1100], p[1200];
    snprintf(dir, sizeof dir, "%s/%s", corpus, set);
    bool native = strcmp(set, "fc256_native") == 0;
    printf("-- %s\n", set);
    etp_error e = {0};
    etp_qnn_qhas *q = NULL;
    etp_qnn_trace *t = NULL;
    etp_qnn_runtrace *r = NULL;
    etp_qnn_viewer *v = NULL;
    snprintf(p, sizeof p, "%s/chrometrace_qnn_htp_analysis_summary.json", dir);
    CHECK_MSG(etp_qnn_read_qhas(p, &q, &e) == ETP_OK, "%s: %s: %s", e.file, e.path, e.msg);
    json_t *J = json_load_file(p, 0, NULL);
    snprintf(p, sizeof p, "%s/chrometrace.json", dir);
    CHECK_MSG(etp_qnn_read_optrace(p, &t, &e) == ETP_OK, "%s: %s: %s", e.file, e.path, e.msg);
    snprintf(p, sizeof p, "%s/chrometrace_runtrace.json", dir);
    CHECK_MSG(etp_qnn_read_runtrace(p, &r, &e) == ETP_OK, "%s: %s: %s", e.file, e.path, e.msg);
    json_t *R = json_load_file(p, 0, NULL);
    snprintf(p, sizeof p, "%s/profile_text.txt", dir);
    CHECK_MSG(etp_qnn_read_viewer(p, &v, &e) == ETP_OK, "%s: %s", e.file, e.msg);
    CHECK(J && R);
    if (!(q && t && r && v && J && R)) goto out;

    etp_qnn_sources all = {q, t, r, NULL}, only_trace = {NULL, t, NULL, NULL};
    etp_qnn_derived *d = NULL, *dt = NULL;
    CHECK_EQ_I(etp_qnn_derive(&all, &d, &e), ETP_OK);
    CHECK_EQ_I(etp_qnn_derive(&only_trace, &dt, &e), ETP_OK);
    if (!d || !dt) {
        etp_qnn_derived_free(d);
        etp_qnn_derived_free(dt);
        goto out;
    }
    const etp_qnn_summary *s = &d->summary, *st = &dt->summary;
    const char *ov = "data.htp_overall_summary.data[0]";
    char k[256];
#define OV(field) (snprintf(k, sizeof k, "%s.%s", ov, field), k)

    /* --- summary vs direct QHAS lookups --- */
    CHECK_NEAR(s->utilization_percent.v, jd(J, OV("percent_utilization")), 0);
    CHECK_NEAR(s->idle_percent.v, jd(J, OV("percent_idle")), 0);
    CHECK_EQ_I(s->peak_vtcm_bytes.v, ji(J, OV("peak_vtcm_alloc")));
    CHECK_EQ_I(s->dram_read_bytes.v, ji(J, OV("total_dram_read")));
    CHECK_EQ_I(s->dram_write_bytes.v, ji(J, OV("total_dram_write")));
    CHECK_EQ_I(s->vtcm_read_bytes.v, ji(J, OV("total_vtcm_read")));
    CHECK_EQ_I(s->vtcm_write_bytes.v, ji(J, OV("total_vtcm_write")));
    CHECK_EQ_I(s->timeline_cycles.v, ji(J, OV("timeline_cycles")));
    CHECK_EQ_I(s->graph_execute_us.v, ji(J, OV("graph_execute_us")));
    CHECK_EQ_I(s->time_us.v, ji(J, OV("time_us")));
    long long timeline = ji(J, OV("timeline_cycles"));
    json_t *res = jp(J, OV("htp_resources.data"));
    long long hmx = 0, hvx = 0, used = 0;
    size_t nhvx = 0;
    CHECK_EQ_U(s->n_threads, json_array_size(res));
    for (size_t i = 0; i < json_array_size(res); i++) {
        json_t *x = json_array_get(res, i);
        const char *type = json_string_value(json_object_get(x, "type"));
        long long tid = json_integer_value(json_object_get(x, "tid"));
        long long cu = json_integer_value(json_object_get(x, "cycles_used"));
        used += cu;
        if (strcmp(type, "HMX") == 0) hmx += cu;
        if (strcmp(type, "HVX") == 0) {
            hvx += cu;
            nhvx++;
        }
        bool found = false, found_t = false;
        for (uint32_t j = 0; j < s->n_threads; j++)
            if (s->threads[j].tid == tid) {
                found = true;
                CHECK_EQ_I(s->threads[j].busy_cycles, cu);
                CHECK_EQ_S(s->threads[j].type, type);
                CHECK_NEAR(s->threads[j].share.v, json_number_value(json_object_get(x, "utilization")),
                           1e-9);
            }
        for (uint32_t j = 0; j < st->n_threads; j++)
            if (st->threads[j].tid == tid) {
                found_t = true;
                CHECK_EQ_I(st->threads[j].busy_cycles, cu); /* optrace-only, same busy cycles */
                CHECK_EQ_S(st->threads[j].type, type);
            }
        CHECK_MSG(found && found_t, "tid %lld", tid);
    }
    CHECK_EQ_I(s->hmx_busy_cycles.v, hmx);
    CHECK_NEAR(s->hmx_busy_share.v, 100.0 * hmx / timeline, 1e-9);
    CHECK_EQ_I(s->hvx_busy_cycles.v, hvx);
    CHECK_EQ_U(s->hvx_threads, nhvx);
    CHECK_NEAR(s->hvx_busy_share.v, 100.0 * hvx / ((double)timeline * nhvx), 1e-9);
    CHECK_EQ_I(d->total_cycles, used); /* sum of node cycles = sum of per-thread busy cycles */

    /* optrace-only summary: computed from op intervals, must agree with QHAS */
    CHECK_EQ_I(st->source, ETP_QNN_SRC_OPTRACE);
    CHECK_EQ_I(st->timeline_cycles.v, timeline);
    CHECK_NEAR(st->utilization_percent.v, jd(J, OV("percent_utilization")), 1e-9);
    CHECK_EQ_I(st->peak_vtcm_bytes.v, ji(J, OV("peak_vtcm_alloc")));
    CHECK_EQ_I(st->hmx_busy_cycles.v, hmx);
    CHECK_EQ_I(st->hvx_busy_cycles.v, hvx);
    CHECK_EQ_I(st->dominant_dp_cycles, s->dominant_dp_cycles);

    /* --- per-op rows vs direct QHAS: nodes, and flags OR-ed over htp_op_instances --- */
    json_t *nodes = jp(J, "data.qnn_op_instances_nodes.data");
    json_t *inst = jp(J, "data.htp_op_instances.data");
    direct_op ops[64];
    size_t nops = 0;
    for (size_t i = 0; i < json_array_size(inst); i++) {
        json_t *x = json_array_get(inst, i);
        const char *name = json_string_value(json_object_get(x, "qnn_op"));
        long long cy = json_integer_value(json_object_get(x, "cycles"));
        size_t o = 0;
        while (o < nops && strcmp(ops[o].name, name) != 0) o++;
        if (o == nops) {
            if (nops == 64) break;
            memset(&ops[nops], 0, sizeof ops[nops]);
            ops[nops].name = name;
            ops[nops].op_id = (uint32_t)strtoull(json_string_value(json_object_get(x, "op_id")),
                                                 NULL, 16);
            nops++;
        }
        bool fh = json_is_true(json_object_get(x, "hmx"));
        bool fv = json_is_true(json_object_get(x, "hvx"));
        bool fd = json_is_true(json_object_get(x, "dma")) ||
                  json_is_true(json_object_get(x, "dma_set")) ||
                  json_is_true(json_object_get(x, "dma_wait"));
        ops[o].hmx |= fh;
        ops[o].hvx |= fv;
        ops[o].dma |= fd;
        ops[o].hmx_cycles += fh ? cy : 0;
        ops[o].hvx_cycles += fv ? cy : 0;
        ops[o].dma_cycles += fd ? cy : 0;
    }
    CHECK_EQ_U(d->n_rows, json_array_size(nodes));
    CHECK_EQ_U(dt->n_rows, json_array_size(nodes));
    for (size_t i = 0; i < json_array_size(nodes); i++) {
        json_t *x = json_array_get(nodes, i);
        const char *name = json_string_value(json_object_get(x, "qnn_op"));
        const etp_qnn_op_row *row = etp_qnn_derived_row(d, name);
        const etp_qnn_op_row *rt = etp_qnn_derived_row(dt, name);
        CHECK_MSG(row && rt, "row %s", name);
        if (!row || !rt) continue;
        long long cy = json_integer_value(json_object_get(x, "cycles"));
        CHECK_EQ_I(row->cycles, cy);
        CHECK_EQ_I(rt->cycles, cy); /* optrace-derived per-op cycles = QHAS per-node cycles */
        CHECK_EQ_I(row->dominant_path_cycles,
                   json_integer_value(json_object_get(x, "num_dominant_path_cycles_htp_0")));
        CHECK_EQ_I(rt->dominant_path_cycles, row->dominant_path_cycles);
        CHECK_EQ_I(row->htp_ops, json_integer_value(json_object_get(x, "num_htp_ops")));
        CHECK_EQ_I(row->dram_read_bytes, json_integer_value(json_object_get(x, "dram_read")));
        CHECK_EQ_I(row->dram_write_bytes, json_integer_value(json_object_get(x, "dram_write")));
        CHECK_EQ_I(row->vtcm_read_bytes, json_integer_value(json_object_get(x, "vtcm_read")));
        CHECK_EQ_I(row->vtcm_write_bytes, json_integer_value(json_object_get(x, "vtcm_write")));
        CHECK_EQ_S(row->qnn_op_type, json_string_value(json_object_get(x, "qnn_op_type")));
        CHECK_NEAR(row->share, json_number_value(json_object_get(x, "percent_active_cycles")), 1e-9);
        size_t o = 0;
        while (o < nops && strcmp(ops[o].name, name) != 0) o++;
        CHECK_MSG(o < nops, "instances of %s", name);
        if (o == nops) continue;
        CHECK_MSG(row->hmx == ops[o].hmx && row->hvx == ops[o].hvx && row->dma == ops[o].dma,
                  "%s flags", name);
        CHECK_MSG(rt->hmx == ops[o].hmx && rt->hvx == ops[o].hvx && rt->dma == ops[o].dma,
                  "%s optrace flags", name);
        CHECK_EQ_I(row->hmx_cycles, ops[o].hmx_cycles);
        CHECK_EQ_I(row->hvx_cycles, ops[o].hvx_cycles);
        CHECK_EQ_I(row->dma_cycles, ops[o].dma_cycles);
        CHECK_EQ_I(rt->hmx_cycles, ops[o].hmx_cycles);
        CHECK_EQ_U(row->op_id, ops[o].op_id);
        CHECK(!row->op_id_conflict && row->has_op_id);
    }
    etp_qnn_cycle_mismatch *mm = NULL;
    uint32_t nm = 99;
    CHECK_EQ_I(etp_qnn_check_optrace_qhas(t, q, &mm, &nm, &e), ETP_OK);
    CHECK_EQ_U(nm, 0);
    free(mm);
    /* optrace layout: every attributed op appears twice, no copies disagree */
    uint32_t attributed = 0;
    for (uint32_t i = 0; i < t->n_ops; i++)
        if (t->ops[i].qnn_op) {
            attributed++;
            CHECK_EQ_U(t->ops[i].occurrences, 2);
        }
    CHECK_EQ_U(attributed, json_array_size(inst));
    CHECK_EQ_U(t->n_dup_conflicts, 0);

    /* --- dominant path: non-idle dp + idle dp = the whole timeline --- */
    json_t *dp = jp(J, "data.dominant_path_htp_0.data");
    size_t idle = 0;
    for (size_t i = 0; i < json_array_size(dp); i++)
        idle += strcmp(json_string_value(json_object_get(json_array_get(dp, i), "htp_op")),
                       "Accumulated Idle") == 0;
    CHECK_EQ_U(s->n_dominant, json_array_size(dp) - idle);
    CHECK_EQ_I(s->dominant_dp_cycles + s->dominant_idle_cycles, timeline);

    /* --- runtrace --- */
    json_t *rev = json_object_get(R, "traceEvents");
    double ghz = 0;
    for (size_t i = 0; i < json_array_size(rev); i++) {
        json_t *x = json_array_get(rev, i);
        const char *nm2 = json_string_value(json_object_get(x, "name"));
        if (nm2 && strcmp(nm2, "Graph Execute") == 0) {
            ghz = json_number_value(jp(x, "args.summary_htp_frequency_ghz"));
            break;
        }
    }
    CHECK_EQ_I(s->clock_source, ETP_QNN_SRC_RUNTRACE);
    CHECK_NEAR(s->clock_ghz.v, ghz, 0);
    CHECK_EQ_U(r->n_executes, 3);
    CHECK_EQ_U(v->n_executes, 3);
    for (uint32_t x = 0; x < r->n_executes && x < v->n_executes; x++) {
        const etp_qnn_stat_block *blk = &v->executes[x];
        const etp_qnn_rt_phase *va = etp_qnn_runtrace_phase(r, x, ETP_QNN_PHASE_VTCM_ACQUIRE);
        const etp_qnn_rt_phase *po = etp_qnn_runtrace_phase(r, x, ETP_QNN_PHASE_POWER_ON);
        const etp_qnn_rt_phase *ge = etp_qnn_runtrace_phase(r, x, ETP_QNN_PHASE_GRAPH_EXECUTE);
        const etp_qnn_stat_event *tv = etp_qnn_stat_find(blk, "Time for initial VTCM acquire");
        const etp_qnn_stat_event *tp =
            etp_qnn_stat_find(blk, "Time for HVX + HMX power on and acquire");
        const etp_qnn_stat_event *tx =
            etp_qnn_stat_find(blk, "Accelerator (execute excluding wait) time");
        CHECK(va && po && ge && tv && tp && tx);
        if (!(va && po && ge && tv && tp && tx)) continue;
        /* the two "us" events are 19.2 MHz ticks: equal to the runtrace durations */
        CHECK_EQ_I(va->dur, tv->value);
        CHECK_EQ_I(po->dur, tp->value);
        CHECK_NEAR(va->time_us.v, va->dur / 19.2, 1e-3);
        CHECK_NEAR(ge->time_us.v, ge->dur / 19.2, 1e-3);
        CHECK_EQ_I((int64_t)ge->time_us.v, tx->value); /* Graph Execute us = excl. wait us */
        /* node values sum to the cycles parent in every execute */
        int64_t sum = 0;
        for (uint32_t i = 0; i < blk->n_events; i++) sum += blk->events[i].is_node ? blk->events[i].value : 0;
        const etp_qnn_stat_event *par = etp_qnn_stat_find(blk, "Accelerator (execute) time (cycles)");
        CHECK(par && par->value == sum);
    }
    CHECK_EQ_I(s->graph_execute_us.v, (int64_t)etp_qnn_runtrace_phase(r, 0, ETP_QNN_PHASE_GRAPH_EXECUTE)->time_us.v);

    /* --- viewer execute 1 joined with the QHAS rows: same cycles per op --- */
    etp_qnn_etdump_node *vn = NULL;
    uint32_t nvn = 0;
    etp_qnn_join *j = NULL;
    CHECK_EQ_I(etp_qnn_viewer_nodes(&v->executes[0], &vn, &nvn, &e), ETP_OK);
    CHECK_EQ_I(etp_qnn_join_nodes(vn, nvn, d->rows, d->n_rows, &j, &e), ETP_OK);
    int64_t joined = 0, rows_only = 0;
    if (j) {
        for (uint32_t i = 0; i < j->n_pairs; i++) {
            const etp_qnn_join_pair *pp = &j->pairs[i];
            CHECK(pp->by_id);
            CHECK_EQ_I(vn[pp->node].cycles, d->rows[pp->row].cycles);
            joined += vn[pp->node].cycles;
        }
        for (uint32_t i = 0; i < j->n_node_only; i++) CHECK_EQ_I(vn[j->node_only[i]].cycles, 0);
        for (uint32_t i = 0; i < j->n_row_only; i++) rows_only += d->rows[j->row_only[i]].cycles;
        CHECK_EQ_U(j->n_row_only, 1); /* the SystemService_ChunkPreload op */
        CHECK_EQ_U(j->n_pairs, d->n_rows - 1);
        const etp_qnn_stat_event *par =
            etp_qnn_stat_find(&v->executes[0], "Accelerator (execute) time (cycles)");
        CHECK(par && par->value == joined);
        CHECK_EQ_I(joined + rows_only, used);
    }
    etp_qnn_join_free(j);
    free(vn);

    /* --- hand-calculated facts (qnn-profiling.md §3.4, §5.1, §9, §10) --- */
    const etp_qnn_stat_event *par =
        etp_qnn_stat_find(&v->executes[0], "Accelerator (execute) time (cycles)");
    if (native) {
        CHECK(par && par->value == 251974);
        CHECK_EQ_I(used, 252465);
        CHECK_EQ_I(d->total_cycles, 252465);
        CHECK_EQ_I(s->hmx_busy_cycles.v, 62633);
        CHECK_EQ_I(s->timeline_cycles.v, 104608);
        CHECK_NEAR(s->hmx_busy_share.v, 59.87, 0.005);
        /* HMX compute: the X events of pid 0 whose Flags hold uses_hmx, 16531 cycles (summed
         * from the optrace with Python's json module); the thread's other 46102 busy cycles
         * are dma / dma_set / dma_wait / sync ops (qnn-profiling.md: "HMX busy" must come from
         * the flags, not from the tid) */
        CHECK(s->hmx_op_cycles.has && s->hmx_op_cycles.v == 16531);
        CHECK_NEAR(s->hmx_op_share.v, 16531.0 * 100 / 104608, 1e-9);
        CHECK_EQ_I(s->peak_vtcm_bytes.v, 1126400);
        CHECK_EQ_I(s->dram_read_bytes.v, 1064960);
        CHECK_EQ_I(s->dram_write_bytes.v, 524288);
        CHECK_NEAR(s->clock_ghz.v, 1.939, 0.0005);
        static const int64_t vtcm_ticks[3] = {517, 192, 78};
        for (uint32_t x = 0; x < 3 && x < r->n_executes; x++)
            CHECK_EQ_I(etp_qnn_runtrace_phase(r, x, ETP_QNN_PHASE_VTCM_ACQUIRE)->dur, vtcm_ticks[x]);
        const etp_qnn_op_row *m2 = etp_qnn_derived_row(d, "MatMul_2");
        CHECK(m2 && m2->op_id == 35 && m2->cycles == 67827 && m2->hmx && m2->hvx && m2->dma);
        CHECK_EQ_I(d->rows_source, ETP_QNN_SRC_QHAS);
        /* the QHAS clock estimate when no runtrace is given: 104608 / 56 / 1000 */
        etp_qnn_sources qo = {q, NULL, NULL, NULL};
        etp_qnn_derived *dq = NULL;
        CHECK_EQ_I(etp_qnn_derive(&qo, &dq, &e), ETP_OK);
        CHECK(dq && dq->summary.clock_source == ETP_QNN_SRC_QHAS);
        if (dq) CHECK_NEAR(dq->summary.clock_ghz.v, 104608.0 / 56 / 1000, 1e-12);
        etp_qnn_derived_free(dq);
    } else {
        CHECK(par && par->value == 317465);
        CHECK_EQ_I(used, 317483);
        CHECK_EQ_I(s->timeline_cycles.v, 186647);
        CHECK_EQ_I(s->peak_vtcm_bytes.v, 919552);
        CHECK_EQ_I(s->hmx_busy_cycles.v, 169635);
        CHECK(s->hmx_op_cycles.has && s->hmx_op_cycles.v == 145106); /* uses_hmx, as above */
        /* the custom HMX op package: one HTP op per node, HMX only */
        const etp_qnn_op_row *b0 = etp_qnn_derived_row(d, "bbb_indep0");
        CHECK(b0 && b0->op_id == 19 && b0->htp_ops == 1 && b0->hmx && !b0->hvx && !b0->dma);
        /* an unnamed system node (OpId_17) joins $Const_11 by id */
        const etp_qnn_op_row *c11 = etp_qnn_derived_row(d, "$Const_11");
        CHECK(c11 && c11->op_id == 17);
    }
#undef OV
    etp_qnn_derived_free(d);
    etp_qnn_derived_free(dt);
out:
    json_decref(J);
    json_decref(R);
    etp_qnn_qhas_free(q);
    etp_qnn_trace_free(t);
    etp_qnn_runtrace_free(r);
    etp_qnn_viewer_free(v);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--real") == 0) {
        struct stat st;
        char p[1100];
        snprintf(p, sizeof p, "%s/fc256_native", argv[2]);
        if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
            printf("SKIP: real QNN samples not found at %s (set up ../shared/corpus/qnn)\n", argv[2]);
            return 77;
        }
        real_set(argv[2], "fc256_native");
        snprintf(p, sizeof p, "%s/fc256_v8c8", argv[2]);
        if (stat(p, &st) == 0) real_set(argv[2], "fc256_v8c8");
        return check_done();
    }
    if (argc == 3 && strcmp(argv[1], "--viewer-real") == 0) return viewer_real(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: test_qnn <fixtures-dir> | test_qnn --real <corpus-qnn-dir>\n");
        return 2;
    }
    g_dir = argv[1];
    test_qhas_small();
    test_qhas_bad();
    test_optrace_small();
    test_optrace_bad();
    test_runtrace_small();
    test_heap();
    test_viewer();
    test_viewer_213();
    test_derive_fixtures();
    test_node_names();
    test_join();
    test_sweep_all_fixtures();
    test_sweep_truncations();
    return check_done();
}
