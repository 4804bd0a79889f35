/* fuzz_qnn.c - fuzz target for QNN's own profiling files and everything downstream of them.
 *
 * The input is offered to every QNN reader: QHAS, optrace and runtrace (JSON), the heap profiling
 * file and qnn-profile-viewer output (text log and CSV, detected and forced). A reader that
 * rejects it must give a located ETP_E_INPUT (JSON readers locate by field path: their offset may
 * be -1). What is accepted is walked field by field, then derived alone and together with fixed
 * sample files compiled into the target (tests/data/qnn-fixtures), checked against the other
 * side (optrace vs QHAS cycles), joined to the HTP node rows of a fixed QNN ETDump and to the
 * viewer's node events, and an accepted optrace is drawn into a Perfetto trace in memory, which
 * must parse as JSON. */
#include "fuzz_common.h"
#include "qnn.h"
#include "qnn_report.h"
#include "etprof_qnn.h"


static const char NAME[] = "fuzz.qnn";

/* The fixed side: sample QNN files, and a QNN ETDump with its model and ops table. */
static struct {
    etp_qnn_qhas *qhas;
    etp_qnn_trace *trace;
    etp_qnn_runtrace *runtrace;
    etp_qnn_heap *heap;
    etp_blob dump_blob;
    etp_dump *dump;
    etp_model *model;
    etp_ops_result *ops;
} fx;

static const unsigned char *embedded(const unsigned char *const *data, const size_t *size,
                                     const char *const *names, size_t count, const char *name,
                                     size_t *len) {
    for (size_t i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0) {
            *len = size[i];
            return data[i];
        }
    fz_die("the fixture %s is not compiled in (fuzz/CMakeLists.txt)", name);
}

static const unsigned char *qnn_fixture(const char *name, size_t *len) {
    return embedded(etprof_fuzz_qnn_data, etprof_fuzz_qnn_size, etprof_fuzz_qnn_name,
                    etprof_fuzz_qnn_count, name, len);
}

#define FX_READ(fn, file, dst)                                                                    \
    do {                                                                                          \
        size_t n_;                                                                                \
        const unsigned char *p_ = qnn_fixture(file, &n_);                                         \
        etp_error e_ = {0};                                                                       \
        if (fn(file, p_, n_, dst, &e_)) fz_die("the fixture %s is rejected: %s", file, e_.msg);   \
    } while (0)

static void load_fixtures(void) {
    static bool loaded;
    if (loaded) return;
    loaded = true;
    FX_READ(etp_qnn_read_qhas_mem, "qhas_small.json", &fx.qhas);
    FX_READ(etp_qnn_read_optrace_mem, "optrace_small.json", &fx.trace);
    FX_READ(etp_qnn_read_runtrace_mem, "runtrace_small.json", &fx.runtrace);
    FX_READ(etp_qnn_read_heap_mem, "heap_ok.txt", &fx.heap);
    size_t n;
    const unsigned char *p = embedded(etprof_fuzz_dump_data, etprof_fuzz_dump_size,
                                      etprof_fuzz_dump_name, etprof_fuzz_dump_count,
                                      "synth_qnn_mixed_small_3x.etdp", &n);
    etp_error err = {0};
    etp_blob_borrow(&fx.dump_blob, p, n, "synth_qnn_mixed_small_3x.etdp");
    if (etp_dump_open(&fx.dump, &fx.dump_blob, &err) ||
        etp_model_open(&fx.model, fx.dump, NULL, NULL, &err) ||
        etp_ops_compute(fx.model, NULL, &fx.ops, &err))
        fz_die("the fixed QNN ETDump does not analyse: %s", err.msg);
}

/* ---- walks: every string is read to its NUL, every array to its end ---- */

static void cstr(const char *s) {
    if (!s) return;
    uint32_t h = 0;
    for (; *s; s++) h = h * 31 + (uint8_t)*s;
    fz_sink_ ^= h;
}

static void i64(etp_qnn_i64 v) { fz_sink_ ^= v.has ? (uint32_t)v.v : 0u; }
static void f64(etp_qnn_f64 v) { fz_sink_ ^= v.has && v.v > 0 ? 1u : 0u; }

static void dims(bool has, uint32_t n, const int64_t *d) {
    FZ_ASSERT(has || n == 0, "dims absent with %u entries", n);
    FZ_ASSERT(n == 0 || d != NULL, "%u dims without storage", n);
    for (uint32_t i = 0; i < n; i++) fz_sink_ ^= (uint32_t)d[i];
}

static void walk_op_type(const etp_qnn_qhas_op_type *t) {
    FZ_ASSERT(t->op != NULL, "QHAS op type without its required name");
    cstr(t->op);
    i64(t->cycles);
    f64(t->percent_active_cycles);
    i64(t->count);
}

static void walk_qhas(const etp_qnn_qhas *q) {
    cstr(q->model_id);
    if (q->n_cores) {
        const etp_qnn_qhas_overall *o = &q->overall;
        i64(o->timeline_cycles);
        i64(o->peak_vtcm_alloc);
        f64(o->percent_idle);
        FZ_ASSERT(o->n_resources == 0 || o->resources, "resources without storage");
    }
    for (uint32_t i = 0; i < q->n_qnn_op_types; i++) walk_op_type(&q->qnn_op_types[i]);
    for (uint32_t i = 0; i < q->n_htp_op_types; i++) walk_op_type(&q->htp_op_types[i]);
    for (uint32_t i = 0; i < q->n_nodes; i++) {
        const etp_qnn_qhas_node *n = &q->nodes[i];
        FZ_ASSERT(n->qnn_op != NULL, "QHAS node without its required name");
        cstr(n->qnn_op);
        cstr(n->qnn_op_type);
        fz_sink_ ^= (uint32_t)n->cycles;
    }
    for (uint32_t i = 0; i < q->n_instances; i++) {
        const etp_qnn_qhas_instance *x = &q->instances[i];
        FZ_ASSERT(x->qnn_op != NULL, "QHAS instance without its required QNN op");
        cstr(x->qnn_op);
        cstr(x->htp_op);
        cstr(x->qnn_op_type);
        cstr(x->dtype);
        i64(x->tid);
        dims(x->has_dims, x->n_dims, x->dims);
    }
    for (uint32_t i = 0; i < q->n_paths; i++) {
        const etp_qnn_qhas_path *p = &q->paths[i];
        FZ_ASSERT(i == 0 || q->paths[i - 1].core <= p->core, "dominant paths not sorted by core");
        for (uint32_t k = 0; k < p->n_steps; k++) {
            cstr(p->steps[k].htp_op);
            cstr(p->steps[k].qnn_op);
            i64(p->steps[k].dp_cycles);
        }
    }
}

static void walk_trace(const etp_qnn_trace *t) {
    FZ_ASSERT(t->n_x_events >= t->n_ops, "%u ops from %llu X events", t->n_ops,
              (unsigned long long)t->n_x_events);
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const etp_qnn_trace_op *op = &t->ops[i];
        FZ_ASSERT(op->name != NULL, "optrace op without its required name");
        FZ_ASSERT(op->occurrences >= 1, "optrace op seen %u times", op->occurrences);
        cstr(op->name);
        cstr(op->htp_op_type);
        cstr(op->qnn_op);
        cstr(op->qnn_op_type);
        cstr(op->data_type);
        dims(op->has_dims, op->n_dims, op->dims);
        cstr(etp_qnn_trace_thread_name(t, op->pid, op->tid));
    }
    for (uint32_t i = 0; i < t->n_threads; i++) cstr(t->threads[i].name);
    for (uint32_t i = 0; i < t->n_processes; i++) cstr(t->processes[i].name);
    for (uint32_t i = 0; i < t->n_counters; i++) {
        const etp_qnn_trace_counter *c = &t->counters[i];
        cstr(c->name);
        FZ_ASSERT(c->n_points == 0 || c->points, "counter points without storage");
        for (uint32_t k = 0; k < c->n_points; k++) fz_sink_ ^= (uint32_t)c->points[k].ts;
        if (c->kind != ETP_QNN_CTR_OTHER)
            FZ_ASSERT(etp_qnn_trace_counter_get(t, c->kind) != NULL, "counter kind %d not found",
                      (int)c->kind);
    }
}

static void walk_runtrace(const etp_qnn_runtrace *r) {
    cstr(r->thread_name);
    cstr(r->process_name);
    for (uint32_t i = 0; i < r->n_phases; i++) {
        cstr(r->phases[i].name);
        cstr(r->phases[i].graph_name);
        f64(r->phases[i].htp_frequency_ghz);
    }
    for (uint32_t e = 0; e < r->n_executes; e++) {
        const etp_qnn_rt_execute *x = &r->executes[e];
        FZ_ASSERT((uint64_t)x->first + x->count <= r->n_phases, "execute %u: phases %u+%u of %u", e,
                  x->first, x->count, r->n_phases);
        for (int k = 0; k < ETP_QNN_PHASE_KNOWN; k++) {
            const etp_qnn_rt_phase *ph = etp_qnn_runtrace_phase(r, e, (etp_qnn_phase_kind)k);
            FZ_ASSERT((ph != NULL) == (x->phase[k] >= 0), "execute %u phase %d lookup disagrees", e, k);
            if (ph) FZ_ASSERT(ph->kind == (etp_qnn_phase_kind)k, "phase of the wrong kind");
        }
    }
}

static void walk_viewer(const etp_qnn_viewer *v) {
    cstr(v->input_log);
    cstr(v->log_created);
    cstr(v->viewer_version);
    cstr(v->netrun_version);
    cstr(v->backend_version);
    const etp_qnn_stat_block *lists[2] = {v->executes, v->stats};
    uint32_t counts[2] = {v->n_executes, v->n_stats};
    for (int l = 0; l < 2; l++)
        for (uint32_t b = 0; b < counts[l]; b++) {
            const etp_qnn_stat_block *blk = &lists[l][b];
            FZ_ASSERT((l == 0) == (blk->kind == ETP_QNN_STAT_EXECUTE), "block %u in the wrong list", b);
            cstr(blk->title);
            cstr(blk->label);
            for (uint32_t i = 0; i < blk->n_events; i++) {
                const etp_qnn_stat_event *e = &blk->events[i];
                FZ_ASSERT(e->identifier && e->unit_text, "viewer event without identifier or unit");
                cstr(e->identifier);
                cstr(e->unit_text);
                FZ_ASSERT(etp_qnn_stat_find(blk, e->identifier) != NULL, "event \"%s\" not found",
                          e->identifier);
                etp_qnn_parse_node_name(e->identifier, NULL);
            }
        }
}

/* ---- downstream ---- */

static void walk_derived(const etp_qnn_derived *d) {
    int64_t total = 0;
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const etp_qnn_op_row *r = &d->rows[i];
        FZ_ASSERT(r->qnn_op != NULL, "derived row %u without a QNN op", i);
        cstr(r->qnn_op);
        cstr(r->qnn_op_type);
        FZ_ASSERT(etp_qnn_derived_row(d, r->qnn_op) != NULL, "row \"%s\" not found", r->qnn_op);
        total += r->cycles;
    }
    (void)total;
    const etp_qnn_summary *s = &d->summary;
    FZ_ASSERT(s->n_threads == 0 || s->threads, "thread busy rows without storage");
    for (uint32_t i = 0; i < s->n_threads; i++) cstr(s->threads[i].type);
    for (uint32_t i = 0; i < s->n_dominant; i++) {
        cstr(s->dominant[i].htp_op);
        cstr(s->dominant[i].qnn_op);
    }
    cstr(etp_qnn_source_name(d->rows_source));
    cstr(etp_qnn_source_name(s->source));
}

static void join_etdump(const etp_qnn_derived *d) {
    etp_error err = {0};
    etp_qnn_etd_join *j = NULL;
    int rc = etp_qnn_join_etdump(fx.ops, d, &j, &err);
    FZ_ASSERT(rc == ETP_OK, "etp_qnn_join_etdump failed: %s", err.msg);
    FZ_ASSERT(j->matched + j->conflicts == j->n_pairs, "join: %u trusted + %u conflicts != %u pairs",
              j->matched, j->conflicts, j->n_pairs);
    FZ_ASSERT(j->matched_by_id + j->matched_by_name == j->matched, "join: by id + by name != matched");
    for (uint32_t i = 0; i < j->n_pairs; i++)
        FZ_ASSERT(j->pairs[i].qnn_row < d->n_rows, "join pair %u names row %u of %u", i,
                  j->pairs[i].qnn_row, d->n_rows);
    for (uint32_t i = 0; i < j->n_qnn_only; i++)
        FZ_ASSERT(j->qnn_only[i] < d->n_rows, "QNN-only row %u of %u", j->qnn_only[i], d->n_rows);
    cstr(etp_qnn_etd_agreement(j));
    etp_qnn_etd_join_free(j);
}

static void join_viewer(const etp_qnn_viewer *v, const etp_qnn_derived *d) {
    for (uint32_t b = 0; b < v->n_executes; b++) {
        etp_error err = {0};
        etp_qnn_etdump_node *nodes = NULL;
        uint32_t n = 0;
        int rc = etp_qnn_viewer_nodes(&v->executes[b], &nodes, &n, &err);
        FZ_ASSERT(rc == ETP_OK, "etp_qnn_viewer_nodes failed: %s", err.msg);
        etp_qnn_join *j = NULL;
        rc = etp_qnn_join_nodes(nodes, n, d->rows, d->n_rows, &j, &err);
        FZ_ASSERT(rc == ETP_OK, "etp_qnn_join_nodes failed: %s", err.msg);
        FZ_ASSERT(j->n_pairs + j->n_node_only == n, "viewer join: %u pairs + %u node-only != %u nodes",
                  j->n_pairs, j->n_node_only, n);
        FZ_ASSERT(j->n_pairs + j->n_row_only == d->n_rows,
                  "viewer join: %u pairs + %u row-only != %u rows", j->n_pairs, j->n_row_only,
                  d->n_rows);
        etp_qnn_join_free(j);
        free(nodes);
    }
}

static etp_qnn_derived *derive(const etp_qnn_sources *src) {
    etp_error err = {0};
    etp_qnn_derived *d = NULL;
    int rc = etp_qnn_derive(src, &d, &err);
    FZ_ASSERT(rc == ETP_OK, "etp_qnn_derive failed: %s", err.msg);
    walk_derived(d);
    return d;
}

static void check_cycles(const etp_qnn_trace *t, const etp_qnn_qhas *q) {
    etp_error err = {0};
    etp_qnn_cycle_mismatch *mm = NULL;
    uint32_t n = 0;
    int rc = etp_qnn_check_optrace_qhas(t, q, &mm, &n, &err);
    FZ_ASSERT(rc == ETP_OK, "etp_qnn_check_optrace_qhas failed: %s", err.msg);
    for (uint32_t i = 0; i < n; i++) cstr(mm[i].qnn_op);
    free(mm);
}

static void htp_trace(const etp_qnn_trace *t, double ghz) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FZ_ASSERT(f != NULL, "open_memstream failed");
    etp_trace_opts o = {.source = fx.dump_blob.name, .tick_ns = 1};
    etp_trace_stats st;
    etp_error err = {0};
    int rc = etp_trace_write_htp(fx.model, f, &o, t, ghz, "fuzz", &st, &err);
    FZ_ASSERT(rc == ETP_OK, "etp_trace_write_htp failed: %s", err.msg);
    fclose(f);
    fz_check_json(buf, len, "HTP trace");
    free(buf);
    /* the same walk into Perfetto's protobuf: a Trace (packets, field 1) */
    buf = NULL;
    len = 0;
    f = open_memstream(&buf, &len);
    FZ_ASSERT(f != NULL, "open_memstream failed");
    rc = etp_trace_write_perfetto(fx.model, f, &o, t, ghz, "fuzz", &st, &err);
    FZ_ASSERT(rc == ETP_OK, "etp_trace_write_perfetto failed: %s", err.msg);
    fclose(f);
    FZ_ASSERT(len > 0 && (unsigned char)buf[0] == 0x0a, "perfetto trace is not a Trace");
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    load_fixtures();
    etp_error err;
    int rc;
#define READ(call, what, obj, walk)                                                               \
    do {                                                                                          \
        memset(&err, 0, sizeof err);                                                              \
        rc = call;                                                                                \
        if (rc) {                                                                                 \
            FZ_ASSERT(obj == NULL, what " failed but returned a result");                         \
            fz_check_rejection(what, rc, &err, NAME, size, true);                                 \
        } else {                                                                                  \
            FZ_ASSERT(obj != NULL, what " succeeded without a result");                           \
            etprof_fuzz_accepted++;                                                               \
            walk;                                                                                 \
        }                                                                                         \
    } while (0)

    etp_qnn_qhas *q = NULL;
    etp_qnn_trace *t = NULL;
    etp_qnn_runtrace *r = NULL;
    etp_qnn_heap *h = NULL;
    etp_qnn_viewer *v = NULL;
    READ(etp_qnn_read_qhas_mem(NAME, data, size, &q, &err), "etp_qnn_read_qhas", q, walk_qhas(q));
    READ(etp_qnn_read_optrace_mem(NAME, data, size, &t, &err), "etp_qnn_read_optrace", t,
         walk_trace(t));
    READ(etp_qnn_read_runtrace_mem(NAME, data, size, &r, &err), "etp_qnn_read_runtrace", r,
         walk_runtrace(r));
    READ(etp_qnn_read_heap_mem(NAME, data, size, &h, &err), "etp_qnn_read_heap", h,
         (i64(h->before), i64(h->after), i64(h->delta)));
    /* The viewer: detected, then the other format forced. */
    READ(etp_qnn_read_viewer_mem(NAME, data, size, 0, &v, &err), "etp_qnn_read_viewer", v,
         walk_viewer(v));
    int other = v && v->format == ETP_QNN_VIEWER_CSV ? ETP_QNN_VIEWER_TEXT : ETP_QNN_VIEWER_CSV;
    etp_qnn_viewer *v2 = NULL;
    READ(etp_qnn_read_viewer_mem(NAME, data, size, other, &v2, &err), "etp_qnn_read_viewer", v2,
         walk_viewer(v2));
    etp_qnn_viewer_free(v2);
#undef READ

    if (q || t || r || h) {
        /* The input alone, then in place of its kind among the fixed files. */
        etp_qnn_sources alone = {q, t, r, h};
        etp_qnn_derived *d1 = derive(&alone);
        join_etdump(d1);
        etp_qnn_derived_free(d1);
        etp_qnn_sources mixed = {q ? q : fx.qhas, t ? t : fx.trace, r ? r : fx.runtrace,
                                 h ? h : fx.heap};
        etp_qnn_derived *d2 = derive(&mixed);
        join_etdump(d2);
        if (v) join_viewer(v, d2);
        etp_qnn_derived_free(d2);
    }
    if (q || t) check_cycles(t ? t : fx.trace, q ? q : fx.qhas);
    if (v && !(q || t || r || h)) {
        etp_qnn_sources fixed = {fx.qhas, fx.trace, fx.runtrace, fx.heap};
        etp_qnn_derived *d = derive(&fixed);
        join_viewer(v, d);
        etp_qnn_derived_free(d);
    }
    if (t) {
        /* A clock from the fixed runtrace, or the given one when the input is the only source. */
        etp_qnn_bundle b = {.runtrace = fx.runtrace, .qhas = q};
        etp_qnn_sources s = {q, t, fx.runtrace, NULL};
        etp_qnn_derived *d = derive(&s);
        b.der = d;
        b.trace = t;
        const char *source = NULL;
        double ghz = etp_qnn_clock(0, &b, &source);
        if (!(ghz > 0)) ghz = etp_qnn_clock(1.5, &b, &source);
        FZ_ASSERT(ghz > 0 && source != NULL, "no clock although one was given");
        cstr(etp_qnn_clock_meaning(source));
        htp_trace(t, ghz);
        etp_qnn_derived_free(d);
    }
    etp_qnn_qhas_free(q);
    etp_qnn_trace_free(t);
    etp_qnn_runtrace_free(r);
    etp_qnn_heap_free(h);
    etp_qnn_viewer_free(v);
    return 0;
}
