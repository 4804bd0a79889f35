/*
 * qnn_report.c - QNN files loaded and derived in one call, the join of the derived per-QNN-op
 * rows with the ETDump's HTP node rows, and the per-node wall-time estimate (qnn_report.h).
 */
#include "qnn_report.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int oom(etp_error *err) {
    etp_error_set(err, ETP_E_INTERNAL, "", -1, "", "out of memory");
    return ETP_E_INTERNAL;
}

bool etp_qnn_paths_any(const etp_qnn_paths *p) {
    return p && (p->qhas || p->optrace || p->runtrace || p->heap);
}

void etp_qnn_bundle_free(etp_qnn_bundle *b) {
    if (!b) return;
    etp_qnn_derived_free(b->der);
    etp_qnn_qhas_free(b->qhas);
    etp_qnn_trace_free(b->trace);
    etp_qnn_runtrace_free(b->runtrace);
    etp_qnn_heap_free(b->heap);
    memset(b, 0, sizeof *b);
}

int etp_qnn_bundle_load(const etp_qnn_paths *p, etp_qnn_bundle *b, etp_error *err) {
    memset(b, 0, sizeof *b);
    if (!etp_qnn_paths_any(p)) return ETP_OK;
    int rc = ETP_OK;
    if (p->qhas) rc = etp_qnn_read_qhas(p->qhas, &b->qhas, err);
    if (!rc && p->optrace) rc = etp_qnn_read_optrace(p->optrace, &b->trace, err);
    if (!rc && p->runtrace) rc = etp_qnn_read_runtrace(p->runtrace, &b->runtrace, err);
    if (!rc && p->heap) rc = etp_qnn_read_heap(p->heap, &b->heap, err);
    if (!rc) {
        etp_qnn_sources src = {b->qhas, b->trace, b->runtrace, b->heap};
        rc = etp_qnn_derive(&src, &b->der, err);
    }
    if (rc) etp_qnn_bundle_free(b);
    return rc;
}

const char *etp_qnn_source_name(etp_qnn_source s) {
    switch (s) {
    case ETP_QNN_SRC_QHAS: return "qhas";
    case ETP_QNN_SRC_OPTRACE: return "optrace";
    case ETP_QNN_SRC_RUNTRACE: return "runtrace";
    default: return NULL;
    }
}

double etp_qnn_clock(double given_ghz, const etp_qnn_bundle *b, const char **source) {
    *source = NULL;
    if (given_ghz > 0 && isfinite(given_ghz)) {
        *source = "htp-clock-ghz";
        return given_ghz;
    }
    if (b && b->der && b->der->summary.clock_ghz.has && b->der->summary.clock_ghz.v > 0) {
        const etp_qnn_summary *s = &b->der->summary;
        *source = s->clock_source == ETP_QNN_SRC_QHAS && s->estimated
                      ? "qhas-estimated"
                      : etp_qnn_source_name(s->clock_source);
        return s->clock_ghz.v;
    }
    return NAN;
}

const char *etp_qnn_clock_meaning(const char *source) {
    if (!source) return "unknown: give --runtrace (measured) or --htp-clock-ghz";
    if (strcmp(source, "runtrace") == 0)
        return "measured: runtrace summary_htp_frequency_ghz of the first execute's Graph Execute";
    if (strcmp(source, "qhas-estimated") == 0)
        return "QHAS timeline_cycles / graph_execute_us, both estimated on the host (Hextimate): "
               "an estimate, not a measured clock";
    if (strcmp(source, "qhas") == 0)
        return "QHAS timeline_cycles / graph_execute_us (that time is truncated to whole us: "
               "approximate)";
    return "given with --htp-clock-ghz";
}

const char *etp_qnn_exec_time_meaning(etp_qnn_source src, bool graph, bool estimated) {
    if (src == ETP_QNN_SRC_RUNTRACE)
        return graph ? "runtrace Graph Execute of the first execute, dur ticks / 19.2 MHz "
                       "(= Accelerator (execute excluding wait) time)"
                     : "runtrace QNN DSP Execute of the first execute, dur ticks / 19.2 MHz";
    if (src == ETP_QNN_SRC_QHAS && estimated)
        return graph ? "QHAS graph_execute_us, estimated on the host (Hextimate), whole us"
                     : "QHAS time_us, estimated on the host (Hextimate), whole us";
    if (src == ETP_QNN_SRC_QHAS)
        return graph ? "QHAS graph_execute_us: the runtrace's time truncated to whole us "
                       "(give --runtrace for it to the tick)"
                     : "QHAS time_us: the runtrace's time truncated to whole us (give --runtrace "
                       "for it to the tick)";
    return "unknown: give --runtrace or --qhas";
}

bool etp_qnn_scope_note(uint32_t htp_cores, char *buf, size_t n) {
    if (n) buf[0] = 0;
    if (htp_cores <= 1) return false;
    snprintf(buf, n,
             "the QHAS describes %u HTP cores: utilization, timeline, clock, VTCM/DRAM totals, "
             "thread busy cycles and the critical path are core 0's (htp_overall_summary.data[0]), "
             "while the per-op rows and HMX compute add up the HTP ops of every core (no HMX "
             "compute share: no one timeline covers them)",
             htp_cores);
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * The ETDump join
 * ------------------------------------------------------------------------------------------- */

void etp_qnn_etd_join_free(etp_qnn_etd_join *j) {
    if (!j) return;
    free(j->pairs);
    free(j->etdump_only);
    free(j->qnn_only);
    free(j->row_etdump);
    free(j->row_ops);
    free(j);
}

const char *etp_qnn_etd_agreement(const etp_qnn_etd_join *j) {
    if (!j || j->cycles_equal + j->cycles_different == 0) return "none";
    if (j->cycles_different == 0) return "same_run";
    if (j->cycles_equal == 0) return "different_runs";
    return "mixed";
}

const char *etp_qnn_etd_graph(const etp_qnn_etd_join *j) {
    if (!j || j->qnn < 0 || !j->n_nodes_named || !j->n_qnn_named) return "unknown";
    uint64_t m2 = 2 * (uint64_t)j->matched_named;
    return m2 < j->n_qnn_named && m2 < j->n_nodes_named ? "other_graph" : "matches";
}

/* An op every QNN graph has: Input, Output, SystemService*, or no name (unnamed system node). */
static bool generic_op(const char *name, size_t n) {
    return !name || !n || (n == 5 && memcmp(name, "Input", 5) == 0) ||
           (n == 6 && memcmp(name, "Output", 6) == 0) ||
           (n >= 13 && memcmp(name, "SystemService", 13) == 0);
}

size_t etp_qnn_etd_graph_note(const etp_qnn_etd_join *j, char *buf, size_t n) {
    if (strcmp(etp_qnn_etd_graph(j), "other_graph") != 0) return 0;
    char conf[96] = "";
    if (j->conflicts)
        snprintf(conf, sizeof conf, ", and %u of its OpIds name another op there", j->conflicts);
    int k = snprintf(buf, n,
                     "the QNN files describe another graph than this ETDump: of their %u QNN "
                     "op(s) other than Input, Output and system ops, %u match one of its %u such "
                     "HTP nodes by OpId and name%s; their figures (utilization, HMX/HVX, memory, "
                     "per-op cycles) are that graph's, not this run's: give the optrace/QHAS made "
                     "from this program's QNN context binary",
                     j->n_qnn_named, j->matched_named, j->n_nodes_named, conf);
    return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n ? n - 1 : 0;
}

/* The HTP node rows of partition `q` as join nodes; returns how many (nodes/rows have room for
 * every ops row). */
static uint32_t partition_nodes(const etp_ops_result *r, const etp_ops_qnn *q,
                                etp_qnn_etdump_node *nodes, uint32_t *node_row) {
    const etp_ops_row *dc = etp_ops_row_get(r, q->delegate_row);
    size_t nrows = etp_ops_row_count(r);
    uint32_t n = 0;
    for (size_t i = 0; i < nrows; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        if (!row->htp_node || row->method != q->method || row->chain != dc->chain ||
            row->instr != dc->instr)
            continue;
        etp_qnn_node_name nn;
        if (etp_qnn_parse_node_name(row->name, &nn) == ETP_QNN_NODE_NONE) continue;
        double p50 = row->stats.p50;
        nodes[n] = (etp_qnn_etdump_node){
            .name = nn.name,
            .name_len = nn.name_len,
            .op_id = nn.op_id,
            .cycles = isfinite(p50) && fabs(p50) < 9e18 ? (int64_t)llround(p50) : 0,
        };
        node_row[n++] = (uint32_t)i;
    }
    return n;
}

static bool trusted_pair(const etp_qnn_etdump_node *nd, const etp_qnn_join_pair *p) {
    return p->same_name || !nd->name;
}

int etp_qnn_join_etdump(const etp_ops_result *r, const etp_qnn_derived *d, etp_qnn_etd_join **out,
                        etp_error *err) {
    *out = NULL;
    size_t nrows = etp_ops_row_count(r);
    uint32_t nd = d ? d->n_rows : 0;
    etp_qnn_etd_join *j = calloc(1, sizeof *j);
    if (j) {
        j->n_qnn = nd;
        for (uint32_t i = 0; i < nd; i++)
            j->n_qnn_named += !generic_op(d->rows[i].qnn_op,
                                          d->rows[i].qnn_op ? strlen(d->rows[i].qnn_op) : 0);
    }
    etp_qnn_etdump_node *nodes = malloc((nrows ? nrows : 1) * sizeof *nodes);
    uint32_t *node_row = malloc((nrows ? nrows : 1) * sizeof *node_row);
    etp_qnn_etdump_node *best_nodes = malloc((nrows ? nrows : 1) * sizeof *best_nodes);
    uint32_t *best_row = malloc((nrows ? nrows : 1) * sizeof *best_row);
    etp_qnn_join *best = NULL;
    uint32_t best_n = 0, best_trusted = 0;
    int rc = ETP_OK;
    if (!j || !nodes || !node_row || !best_nodes || !best_row) goto nomem;
    if (nd) {
        j->row_etdump = malloc(nd * sizeof *j->row_etdump);
        j->row_ops = malloc(nd * sizeof *j->row_ops);
        if (!j->row_etdump || !j->row_ops) goto nomem;
        for (uint32_t i = 0; i < nd; i++) {
            j->row_etdump[i] = NAN;
            j->row_ops[i] = -1;
        }
    }
    j->qnn = -1;
    for (size_t qi = 0; qi < etp_ops_qnn_count(r); qi++) {
        const etp_ops_qnn *q = etp_ops_qnn_get(r, qi);
        uint32_t n = partition_nodes(r, q, nodes, node_row);
        etp_qnn_join *jn = NULL;
        if ((rc = etp_qnn_join_nodes(nodes, n, nd ? d->rows : NULL, nd, &jn, err))) goto fail;
        uint32_t trusted = 0;
        for (uint32_t k = 0; k < jn->n_pairs; k++)
            trusted += trusted_pair(&nodes[jn->pairs[k].node], &jn->pairs[k]);
        if (j->qnn < 0 || trusted > best_trusted) {
            etp_qnn_join_free(best);
            best = jn;
            best_trusted = trusted;
            best_n = n;
            j->qnn = (int32_t)qi;
            memcpy(best_nodes, nodes, n * sizeof *nodes);
            memcpy(best_row, node_row, n * sizeof *node_row);
        } else {
            etp_qnn_join_free(jn);
        }
    }
    if (!best) {
        /* no QNN partition: every derived row is on the QNN side only */
        if (nd && !(j->qnn_only = malloc(nd * sizeof *j->qnn_only))) goto nomem;
        for (uint32_t i = 0; i < nd; i++) j->qnn_only[j->n_qnn_only++] = i;
        goto done;
    }
    j->n_nodes = best_n;
    for (uint32_t k = 0; k < best_n; k++)
        j->n_nodes_named += !generic_op(best_nodes[k].name, best_nodes[k].name_len);
    if (best->n_pairs && !(j->pairs = malloc(best->n_pairs * sizeof *j->pairs))) goto nomem;
    if (best->n_node_only && !(j->etdump_only = malloc(best->n_node_only * sizeof *j->etdump_only)))
        goto nomem;
    if (best->n_row_only && !(j->qnn_only = malloc(best->n_row_only * sizeof *j->qnn_only)))
        goto nomem;
    for (uint32_t k = 0; k < best->n_pairs; k++) {
        const etp_qnn_join_pair *p = &best->pairs[k];
        uint32_t orow = best_row[p->node];
        bool t = trusted_pair(&best_nodes[p->node], p);
        double p50 = etp_ops_row_get(r, orow)->stats.p50;
        j->pairs[j->n_pairs++] = (etp_qnn_etd_pair){orow, p->row, p->by_id, t, p50, false};
        if (!t) {
            j->conflicts++;
            continue;
        }
        j->matched++;
        const char *qn = d->rows[p->row].qnn_op;
        j->matched_named += !generic_op(qn, qn ? strlen(qn) : 0);
        if (p->by_id) j->matched_by_id++;
        else j->matched_by_name++;
        j->row_etdump[p->row] = p50;
        j->row_ops[p->row] = (int32_t)orow;
        int64_t qc = d->rows[p->row].cycles, ec = best_nodes[p->node].cycles;
        if (isfinite(p50) && ec == qc) {
            j->cycles_equal++;
        } else {
            j->cycles_different++;
            j->pairs[j->n_pairs - 1].cycles_differ = true;
            int64_t diff;
            if (__builtin_sub_overflow(ec, qc, &diff)) diff = INT64_MAX;
            if (diff < 0) diff = diff == INT64_MIN ? INT64_MAX : -diff;
            if (diff > j->max_abs_diff) j->max_abs_diff = diff;
        }
    }
    for (uint32_t k = 0; k < best->n_node_only; k++)
        j->etdump_only[j->n_etdump_only++] = best_row[best->node_only[k]];
    for (uint32_t k = 0; k < best->n_row_only; k++) j->qnn_only[j->n_qnn_only++] = best->row_only[k];
    j->cycles_compared = j->cycles_equal + j->cycles_different;
done:
    etp_qnn_join_free(best);
    free(nodes);
    free(node_row);
    free(best_nodes);
    free(best_row);
    *out = j;
    return ETP_OK;
nomem:
    rc = oom(err);
fail:
    etp_qnn_join_free(best);
    free(nodes);
    free(node_row);
    free(best_nodes);
    free(best_row);
    etp_qnn_etd_join_free(j);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Wall-time estimate
 * ------------------------------------------------------------------------------------------- */

double etp_qnn_wall_ns_per_cycle(const etp_ops_result *r, size_t row) {
    if (row >= etp_ops_row_count(r)) return NAN;
    const etp_ops_row *x = etp_ops_row_get(r, row);
    if (x->unit != ETP_UNIT_CYCLES) return NAN;
    for (size_t qi = 0; qi < etp_ops_qnn_count(r); qi++) {
        const etp_ops_qnn *q = etp_ops_qnn_get(r, qi);
        const etp_ops_row *dc = etp_ops_row_get(r, q->delegate_row);
        if (x->method != q->method || x->chain != dc->chain || x->instr != dc->instr) continue;
        if (!x->htp_node && (int32_t)row != q->top[ETP_QT_ACCEL_CYCLES]) return NAN;
        if (q->top[ETP_QT_EXCL_WAIT] < 0 || q->top[ETP_QT_ACCEL_CYCLES] < 0) return NAN;
        const etp_ops_row *ex = etp_ops_row_get(r, (size_t)q->top[ETP_QT_EXCL_WAIT]);
        const etp_ops_row *cy = etp_ops_row_get(r, (size_t)q->top[ETP_QT_ACCEL_CYCLES]);
        if (ex->unit != ETP_UNIT_NS || !(ex->stats.total > 0) || !(cy->stats.total > 0))
            return NAN;
        return ex->stats.total / cy->stats.total;
    }
    return NAN;
}
