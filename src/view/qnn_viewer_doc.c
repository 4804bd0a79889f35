/* qnn_viewer_doc.c - the result document of `etprof qnn --profile-log/--profile-csv FILE`:
 * qnn-profile-viewer's own text or CSV output (read by etp_qnn_read_viewer_text/csv) as JSON facts
 * (versions, every execute's top-level events and nodes with their share and wall-time estimate,
 * the other statistics blocks, the sections skipped) and as one event table with its notes, for
 * the command and the Python package alike (include/etprof_qnn.h, etp_qnn_viewer_doc). */
#include "etprof_qnn.h"
#include "etprof_result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void etp_qnn_node_i64(etp_node *n, const char *k, etp_qnn_i64 v) {
    if (v.has) etp_node_int(n, k, v.v);
    else etp_node_null(n, k);
}

void etp_qnn_node_f64(etp_node *n, const char *k, etp_qnn_f64 v) {
    if (v.has) etp_node_float(n, k, v.v);
    else etp_node_null(n, k);
}

static const etp_col v_cols[] = {
    {"execute", "execute", NULL, ETP_T_UINT, true, 0}, /* null on the other blocks' rows */
    {"level", "level", NULL, ETP_T_STR, false, 0},
    {"name", "event", NULL, ETP_T_STR, false, 0},
    {"op_id", "OpId", NULL, ETP_T_UINT, true, 0},
    {"value", "value", NULL, ETP_T_FLOAT, true, 3},
    {"unit", "unit", NULL, ETP_T_STR, true, 0},
    {"share", "% of parent", NULL, ETP_T_FLOAT, true, 2},
    {"wall_est_us", "est. wall us", NULL, ETP_T_FLOAT, true, 3},
    {"note", "note", NULL, ETP_T_STR, true, 0},
};
#define NVCOLS (sizeof v_cols / sizeof v_cols[0])

static void v_event_row(etp_table *t, const etp_qnn_stat_block *b, const etp_qnn_stat_event *e,
                        const etp_qnn_viewer_sums *s) {
    etp_qnn_node_name nn;
    etp_table_row(t);
    etp_table_uint(t, b->index);
    etp_table_str(t, e->is_node ? "node" : "top");
    etp_table_str(t, e->identifier);
    if (e->is_node && etp_qnn_parse_node_name(e->identifier, &nn) != ETP_QNN_NODE_NONE)
        etp_table_uint(t, nn.op_id);
    else etp_table_null(t);
    bool ticks = etp_qnn_viewer_is_qtimer_ticks(e);
    if (!e->has_value) etp_table_null(t);
    else if (!ticks && e->fvalue == (double)e->value) etp_table_int(t, e->value);
    else etp_table_float(t, etp_qnn_viewer_event_value(e));
    etp_table_str(t, etp_qnn_event_unit_name(e));
    etp_table_float(t, etp_qnn_viewer_node_share(s, e));
    etp_table_float(t, etp_qnn_viewer_wall_est_us(s, e));
    if (ticks) {
        char b2[120];
        snprintf(b2, sizeof b2, "written %g \"us\": 19.2 MHz QTimer ticks, converted", e->fvalue);
        etp_table_str(t, b2);
    } else if (!e->has_value) {
        etp_table_str(t, "no value (opaque optrace payload)");
    } else {
        etp_table_null(t);
    }
}

/* The rows of a block other than an execute (init, compose, finalize, de-init, the viewer's
 * Execute Stats aggregates): its NetRun and NetRun IPS, then each event as written; execute is
 * null, level names the block ("init", ..., "deinit", or the aggregate in lower case: "average"),
 * the note its title and graph. */
static void v_stats_rows(etp_table *t, const etp_qnn_stat_block *b) {
    char level[32], note[300];
    const char *lv = b->aggregate ? b->aggregate : etp_qnn_stat_kind_name(b->kind);
    size_t k = 0;
    for (; lv[k] && k + 1 < sizeof level; k++)
        level[k] = (char)(lv[k] >= 'A' && lv[k] <= 'Z' ? lv[k] - 'A' + 'a' : lv[k]);
    level[k] = 0;
    if (b->graph_name)
        snprintf(note, sizeof note, "%s, graph %lld (%s)", b->title ? b->title : "?",
                 (long long)b->graph_index.v, b->graph_name);
    else snprintf(note, sizeof note, "%s", b->title ? b->title : "?");
    if (b->netrun_us.has) {
        etp_table_row(t);
        etp_table_null(t);
        etp_table_str(t, level);
        etp_table_str(t, "NetRun");
        etp_table_null(t);
        etp_table_int(t, b->netrun_us.v);
        etp_table_str(t, "us");
        etp_table_null(t);
        etp_table_null(t);
        etp_table_str(t, note);
    }
    if (b->netrun_ips.has) {
        etp_table_row(t);
        etp_table_null(t);
        etp_table_str(t, level);
        etp_table_str(t, "NetRun IPS");
        etp_table_null(t);
        etp_table_float(t, b->netrun_ips.v);
        etp_table_str(t, "inf/s");
        etp_table_null(t);
        etp_table_null(t);
        etp_table_str(t, note);
    }
    for (uint32_t i = 0; i < b->n_events; i++) {
        const etp_qnn_stat_event *e = &b->events[i];
        etp_table_row(t);
        etp_table_null(t);
        etp_table_str(t, level);
        etp_table_str(t, e->identifier);
        etp_table_null(t);
        if (!e->has_value) etp_table_null(t);
        else if (e->fvalue == (double)e->value) etp_table_int(t, e->value);
        else etp_table_float(t, e->fvalue);
        etp_table_str(t, etp_qnn_event_unit_name(e));
        etp_table_null(t);
        etp_table_null(t);
        etp_table_str(t, note);
    }
}

static void fact_viewer_block(etp_node *n, const etp_qnn_stat_block *b) {
    etp_qnn_viewer_sums s;
    etp_qnn_viewer_sums_get(b, &s);
    etp_node_uint(n, "index", b->index);
    etp_node_str(n, "title", b->title);
    etp_qnn_node_i64(n, "netrun_us", b->netrun_us);
    etp_qnn_node_i64(n, "timestamp", b->timestamp);
    etp_node *a = etp_node_arr(n, "events");
    for (uint32_t i = 0; i < b->n_events; i++) {
        const etp_qnn_stat_event *e = &b->events[i];
        if (e->is_node) continue;
        etp_node *o = etp_node_obj(a, NULL);
        etp_node_str(o, "name", e->identifier);
        if (!e->has_value) etp_node_null(o, "value");
        else etp_node_float(o, "value", etp_qnn_viewer_event_value(e));
        etp_node_str(o, "unit", etp_qnn_event_unit_name(e));
        if (e->has_value) etp_node_float(o, "written_value", e->fvalue);
        else etp_node_null(o, "written_value");
        etp_node_bool(o, "qtimer_ticks_converted", etp_qnn_viewer_is_qtimer_ticks(e));
    }
    a = etp_node_arr(n, "nodes");
    for (uint32_t i = 0; i < b->n_events; i++) {
        const etp_qnn_stat_event *e = &b->events[i];
        if (!e->is_node) continue;
        etp_qnn_node_name nn;
        etp_qnn_node_kind k = etp_qnn_parse_node_name(e->identifier, &nn);
        etp_node *o = etp_node_obj(a, NULL);
        etp_node_str(o, "name", e->identifier);
        if (nn.name) {
            /* the name is a part of the identifier */
            char *qn = malloc(nn.name_len + 1);
            if (qn) {
                memcpy(qn, nn.name, nn.name_len);
                qn[nn.name_len] = 0;
            }
            etp_node_str(o, "qnn_op", qn ? qn : "");
            free(qn);
        } else {
            etp_node_null(o, "qnn_op");
        }
        if (k != ETP_QNN_NODE_NONE) etp_node_uint(o, "op_id", nn.op_id);
        else etp_node_null(o, "op_id");
        etp_node_str(o, "kind", etp_qnn_node_kind_name(k));
        if (e->has_value) etp_node_float(o, "cycles", e->fvalue);
        else etp_node_null(o, "cycles");
        etp_node_str(o, "unit", etp_qnn_event_unit_name(e));
        etp_node_float(o, "share", etp_qnn_viewer_node_share(&s, e));
        etp_node_float(o, "wall_est_us", etp_qnn_viewer_wall_est_us(&s, e));
    }
    if (s.has_parent) etp_node_int(n, "parent_cycles", s.parent_cycles);
    else etp_node_null(n, "parent_cycles");
    etp_node_int(n, "node_cycles_sum", s.node_cycles_sum);
    etp_node_uint(n, "node_count", s.node_count);
    if (s.comparable) etp_node_bool(n, "nodes_sum_to_parent", s.nodes_equal_parent);
    else etp_node_null(n, "nodes_sum_to_parent");
}

/* The note naming the sections the reader skipped. */
static void viewer_skip_note(const etp_qnn_viewer *v, char *nb, size_t cap) {
    int k = snprintf(nb, cap, "%u section(s) etprof does not read were skipped:", v->n_skipped);
    for (uint32_t i = 0; i < v->n_skipped && i < ETP_QNN_VIEWER_SKIPPED_MAX; i++)
        if (k > 0 && (size_t)k < cap)
            k += snprintf(nb + k, cap - (size_t)k, "%s '%s' (line %u)", i ? "," : "",
                          v->skipped[i], v->skipped_line[i]);
    if (v->n_skipped > ETP_QNN_VIEWER_SKIPPED_MAX && k > 0 && (size_t)k < cap)
        snprintf(nb + k, cap - (size_t)k, ", ...");
}

/* JSON: {schema_version, file, format, input_log, versions, executes, other_stats,
 * skipped_sections, skipped_section_count, notes}. */
static void viewer_facts(const etp_qnn_viewer *v, etp_doc *doc) {
    etp_node *root = etp_doc_root(doc);
    etp_node_str(root, "format", v->format == ETP_QNN_VIEWER_CSV ? "csv" : "text");
    etp_node_str(root, "input_log", v->input_log);
    etp_node_str(root, "viewer_version", v->viewer_version);
    etp_node_str(root, "netrun_version", v->netrun_version);
    etp_node_str(root, "backend_version", v->backend_version);
    etp_node *a = etp_node_arr(root, "executes");
    for (uint32_t i = 0; i < v->n_executes; i++) fact_viewer_block(etp_node_obj(a, NULL), &v->executes[i]);
    a = etp_node_arr(root, "other_stats");
    for (uint32_t i = 0; i < v->n_stats; i++) {
        const etp_qnn_stat_block *b = &v->stats[i];
        etp_node *o = etp_node_obj(a, NULL);
        etp_node_str(o, "kind", etp_qnn_stat_kind_name(b->kind));
        etp_node_str(o, "title", b->title);
        etp_qnn_node_i64(o, "netrun_us", b->netrun_us);
        etp_node_str(o, "aggregate", b->aggregate);
        etp_node_str(o, "graph_name", b->graph_name);
        etp_qnn_node_i64(o, "graph_index", b->graph_index);
        etp_node_bool(o, "total_inference", b->total_inference);
        etp_qnn_node_f64(o, "netrun_ips_inf_per_sec", b->netrun_ips);
        etp_node *ev = etp_node_arr(o, "events");
        for (uint32_t k = 0; k < b->n_events; k++) {
            const etp_qnn_stat_event *e = &b->events[k];
            etp_node *eo = etp_node_obj(ev, NULL);
            etp_node_str(eo, "name", e->identifier);
            if (e->has_value) etp_node_float(eo, "value", e->fvalue);
            else etp_node_null(eo, "value");
            etp_node_str(eo, "unit", etp_qnn_event_unit_name(e));
        }
    }
    a = etp_node_arr(root, "skipped_sections");
    for (uint32_t i = 0; i < v->n_skipped && i < ETP_QNN_VIEWER_SKIPPED_MAX; i++) {
        etp_node *o = etp_node_obj(a, NULL);
        etp_node_str(o, "heading", v->skipped[i]);
        etp_node_int(o, "line", v->skipped_line[i]);
    }
    etp_node_int(root, "skipped_section_count", v->n_skipped);
    if (v->n_skipped) {
        char nb[300];
        viewer_skip_note(v, nb, sizeof nb);
        etp_doc_note(doc, nb);
    }
    etp_doc_note(doc, "node cycles are busy cycles summed over the HTP threads (work, not wall "
                      "time); share = % of the execute's Accelerator (execute) time (cycles)");
    etp_doc_note(doc, "wall_est_us = share x the execute's Accelerator (execute excluding wait) "
                      "time: the NPU compute wall time apportioned by cycle share, an ESTIMATE");
    etp_doc_note(doc, "\"Time for initial VTCM acquire\" and \"Time for HVX + HMX power on and "
                      "acquire\" are 19.2 MHz QTimer ticks despite their \"us\" label: value = "
                      "written value / 19.2 (us)");
}

/* The event table: every execute's events (csv/tsv/jsonl, and table/md with its notes). */
static etp_table *viewer_table(const etp_qnn_viewer *v, etp_doc *doc) {
    etp_table *t = etp_doc_table(doc, v_cols, NVCOLS);
    if (!t) return NULL;
    /* a narrow terminal loses these first */
    static const char *const drop[] = {"note:7", "wall_est_us:6", "op_id:5", "share:4",
                                       "level:3", "execute:2", NULL};
    etp_table_droppable(t, drop);
    for (uint32_t i = 0; i < v->n_executes; i++) {
        const etp_qnn_stat_block *b = &v->executes[i];
        etp_qnn_viewer_sums s;
        etp_qnn_viewer_sums_get(b, &s);
        for (uint32_t k = 0; k < b->n_events; k++) v_event_row(t, b, &b->events[k], &s);
        if (s.comparable) {
            char nb[300];
            snprintf(nb, sizeof nb,
                     "execute %u: %u node(s) sum to %lld cycles, Accelerator (execute) time "
                     "(cycles) = %lld: %s",
                     b->index, s.node_count, (long long)s.node_cycles_sum,
                     (long long)s.parent_cycles,
                     s.nodes_equal_parent ? "equal" : "DIFFERENT (events dropped?)");
            etp_table_note(t, nb);
        }
    }
    /* the other blocks (init, compose, finalize, de-init, the viewer's aggregates) in file
     * order: before, only JSON other_stats had them */
    for (uint32_t i = 0; i < v->n_stats; i++) v_stats_rows(t, &v->stats[i]);
    for (uint32_t i = 0; i < v->n_stats; i++) {
        const etp_qnn_stat_block *b = &v->stats[i];
        if (!b->aggregate) continue;
        char nb[400];
        int k = snprintf(nb, sizeof nb, "viewer Execute Stats (%s)", b->aggregate);
        if (b->graph_name && k > 0 && (size_t)k < sizeof nb)
            k += snprintf(nb + k, sizeof nb - (size_t)k, ", graph %lld (%s)",
                          (long long)b->graph_index.v, b->graph_name);
        if (b->total_inference && k > 0 && (size_t)k < sizeof nb)
            k += snprintf(nb + k, sizeof nb - (size_t)k, ", Total Inference Time");
        if (b->netrun_us.has && k > 0 && (size_t)k < sizeof nb)
            k += snprintf(nb + k, sizeof nb - (size_t)k, ": NetRun %lld us",
                          (long long)b->netrun_us.v);
        for (uint32_t e = 0; e < b->n_events && k > 0 && (size_t)k < sizeof nb; e++)
            if (strstr(b->events[e].identifier, "QNN (execute) time") && b->events[e].has_value)
                k += snprintf(nb + k, sizeof nb - (size_t)k, ", QNN (execute) time %g %s",
                              b->events[e].fvalue, b->events[e].unit_text);
        if (b->netrun_ips.has && k > 0 && (size_t)k < sizeof nb)
            snprintf(nb + k, sizeof nb - (size_t)k, ": NetRun IPS %.4f inf/sec", b->netrun_ips.v);
        etp_table_note(t, nb);
    }
    if (v->n_skipped) {
        char nb[300];
        viewer_skip_note(v, nb, sizeof nb);
        etp_table_note(t, nb);
    }
    etp_table_note(t, "node cycles are busy cycles summed over the HTP threads (work, not wall "
                      "time); % of parent = % of Accelerator (execute) time (cycles)");
    etp_table_note(t, "est. wall us = % of parent x the execute's Accelerator (execute excluding "
                      "wait) time: the NPU compute wall time apportioned by cycle share, an "
                      "ESTIMATE");
    etp_table_note(t, "values of \"Time for initial VTCM acquire\" and \"Time for HVX + HMX power "
                      "on and acquire\" are 19.2 MHz QTimer ticks despite their \"us\" label: "
                      "shown converted to us");
    return t;
}

etp_doc *etp_qnn_viewer_doc(const etp_qnn_viewer *v, const char *path, etp_format fmt) {
    etp_doc *doc = etp_doc_new("qnn", 1, path, NULL);
    if (!doc) return NULL;
    etp_doc_envelope(doc, ETP_ENV_FILE);
    viewer_facts(v, doc);
    etp_table *t = viewer_table(v, doc);
    if (!t) {
        etp_doc_free(doc);
        return NULL;
    }
    etp_doc_flat(doc, t);
    if (fmt == ETP_FMT_TABLE || fmt == ETP_FMT_MD) {
        etp_section *sec = etp_doc_section(doc, "viewer");
        etp_section_textf(sec, ETP_TEXT_WRAP, 2, "%sqnn-profile-viewer %s output: %s (%u execute(s))\n\n",
                          fmt == ETP_FMT_MD ? "# " : "",
                          v->format == ETP_QNN_VIEWER_CSV ? "CSV" : "text", path, v->n_executes);
        etp_section_table(sec, t);
    }
    return doc;
}
