/* etrecord_join.c - from a profiling row (method, instruction, delegate id) or a QNN HTP node
 * name to the exported-program nodes of an ETRecord (include/etprof_etrecord.h). */
#include "etprof_etrecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "FILE:LINE" of the last `File "FILE", line N` of a Python traceback (the innermost frame). */
static char *innermost_frame(const char *t) {
    const char *best = NULL, *p = t;
    while ((p = strstr(p, "File \"")) != NULL) {
        best = p;
        p += 6;
    }
    if (!best) return NULL;
    const char *f = best + 6, *q = strchr(f, '"');
    if (!q) return NULL;
    const char *ln = strstr(q, ", line ");
    const char *nl = strchr(q, '\n');
    if (!ln || (nl && ln > nl)) return NULL;
    ln += 7;
    size_t dl = 0;
    while (ln[dl] >= '0' && ln[dl] <= '9') dl++;
    if (!dl) return NULL;
    size_t fl = (size_t)(q - f);
    char *s = malloc(fl + dl + 2);
    if (!s) return NULL;
    memcpy(s, f, fl);
    s[fl] = ':';
    memcpy(s + fl + 1, ln, dl);
    s[fl + 1 + dl] = 0;
    return s;
}

static bool same_module(const etp_etr_module *a, const etp_etr_module *b) {
    return strcmp(a->fqn, b->fqn) == 0 && strcmp(a->type, b->type) == 0;
}

/* module_stack: the common prefix of the nodes' stacks; module: its innermost entry. */
static void common_modules(etp_etr_join *j) {
    for (uint32_t i = 0; i < j->n_nodes; i++) {
        const etp_etr_node *n = j->nodes[i];
        if (!n->n_modules) continue;
        if (!j->module_stack) {
            j->module_stack = n->modules;
            j->n_module_stack = n->n_modules;
            continue;
        }
        uint32_t k = 0;
        while (k < j->n_module_stack && k < n->n_modules &&
               same_module(&j->module_stack[k], &n->modules[k]))
            k++;
        j->n_module_stack = k;
    }
    if (!j->n_module_stack) {
        j->module_stack = NULL;
        return;
    }
    j->module = j->module_stack[j->n_module_stack - 1].fqn;
    j->module_class = j->module_stack[j->n_module_stack - 1].type;
}

/* Fills the node-derived fields of `j` from its handles. */
static int fill(const etp_etrecord *r, const char *method, etp_etr_join *j) {
    const etp_etr_program *p = etp_etrecord_edge_program(r, method);
    if (!p) {
        j->via = ETP_ETR_VIA_NONE;
        j->why = "the ETRecord has no edge program for this method";
        return ETP_OK;
    }
    uint32_t cap = 0;
    for (uint32_t i = 0; i < j->n_handles; i++)
        cap += etp_etrecord_nodes_by_handle(p, j->handles[i], NULL, 0);
    j->nodes = malloc((cap ? cap : 1) * sizeof *j->nodes);
    if (!j->nodes) return ETP_E_INTERNAL;
    const etp_etr_node **tmp = malloc((cap ? cap : 1) * sizeof *tmp);
    if (!tmp) return ETP_E_INTERNAL;
    for (uint32_t i = 0; i < j->n_handles; i++) {
        uint32_t k = etp_etrecord_nodes_by_handle(p, j->handles[i], tmp, cap);
        for (uint32_t a = 0; a < k && a < cap; a++) {
            bool dup = false;
            for (uint32_t b = 0; b < j->n_nodes && !dup; b++) dup = j->nodes[b] == tmp[a];
            if (!dup && j->n_nodes < cap) j->nodes[j->n_nodes++] = tmp[a];
        }
    }
    free(tmp);
    /* graph order */
    for (uint32_t a = 1; a < j->n_nodes; a++)
        for (uint32_t b = a; b > 0 && j->nodes[b - 1]->index > j->nodes[b]->index; b--) {
            const etp_etr_node *t = j->nodes[b];
            j->nodes[b] = j->nodes[b - 1];
            j->nodes[b - 1] = t;
        }
    if (!j->n_nodes) {
        j->why = "no node of the edge program carries these debug handles";
        j->via = ETP_ETR_VIA_NONE;
    }
    size_t len = 1;
    for (uint32_t a = 0; a < j->n_nodes; a++) len += strlen(j->nodes[a]->op) + 2;
    j->op_types = malloc(len);
    if (!j->op_types) return ETP_E_INTERNAL;
    j->op_types[0] = 0;
    size_t at = 0;
    for (uint32_t a = 0; a < j->n_nodes; a++) {
        const char *op = j->nodes[a]->op;
        bool seen = false;
        for (uint32_t b = 0; b < a && !seen; b++) seen = strcmp(j->nodes[b]->op, op) == 0;
        if (seen) continue;
        at += (size_t)sprintf(j->op_types + at, "%s%s", at ? ", " : "", op);
    }
    common_modules(j);
    for (uint32_t a = 0; a < j->n_nodes && !j->stack_trace; a++)
        if (j->nodes[a]->stack_trace) {
            j->stack_trace = j->nodes[a]->stack_trace;
            j->frame = innermost_frame(j->stack_trace);
        }
    return ETP_OK;
}

static int take_handles(etp_etr_join *j, const int64_t *h, uint32_t n) {
    j->handles = malloc((n ? n : 1) * sizeof *h);
    if (!j->handles) return ETP_E_INTERNAL;
    if (n) memcpy(j->handles, h, n * sizeof *h);
    j->n_handles = n;
    return ETP_OK;
}

int etp_etrecord_join(const etp_etrecord *r, const char *method, int64_t instr,
                      const char *delegate_id, etp_etr_join *out) {
    memset(out, 0, sizeof *out);
    const int64_t *h;
    uint32_t n;
    int rc;
    out->backend = etp_etrecord_delegate_backend(r, method, instr);
    if (delegate_id) {
        if (!etp_etrecord_delegate_handles(r, method, instr, delegate_id, &h, &n)) {
            out->why = out->backend ? "delegate_map has no entry for this delegate debug id"
                                    : "delegate_map has no entry for this instruction";
            return ETP_OK;
        }
        out->via = ETP_ETR_VIA_DELEGATE;
    } else {
        if (!etp_etrecord_instr_handles(r, method, instr, &h, &n)) {
            out->why = "debug_handle_map has no entry for this instruction";
            return ETP_OK;
        }
        out->via = ETP_ETR_VIA_HANDLES;
    }
    if ((rc = take_handles(out, h, n)) || (rc = fill(r, method, out))) {
        etp_etrecord_join_free(out);
        return rc;
    }
    return ETP_OK;
}

/* builder and pass suffixes QNN adds to an fx node name (docs/qnn-profiling.md 4.1) */
static size_t strip_qnn_suffix(const char *s, size_t len) {
    static const char *const fixed[] = {"_sha_concat", "_alpha", "_beta", "_cast", "_convert",
                                        "_concat", "_value_tile", "_value_reshape",
                                        "_target_index_reshape", "_shape", "_updates_value",
                                        "_pre_reshape", "_post_reshape", "_identity"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        size_t l = strlen(fixed[i]);
        if (len > l && memcmp(s + len - l, fixed[i], l) == 0) return len - l;
    }
    /* _h_<k>, _tile_<i>, _reshape_<i>, _indices_tile_<i> */
    size_t d = len;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9') d--;
    if (d == len) return len;
    static const char *const numbered[] = {"_indices_tile_", "_h_", "_tile_", "_reshape_"};
    for (size_t i = 0; i < sizeof numbered / sizeof numbered[0]; i++) {
        size_t l = strlen(numbered[i]);
        if (d > l && memcmp(s + d - l, numbered[i], l) == 0) return d - l;
    }
    return len;
}

int etp_etrecord_join_name(const etp_etrecord *r, const char *method, const char *qnn_name,
                           etp_etr_join *out) {
    memset(out, 0, sizeof *out);
    const etp_etr_program *p = etp_etrecord_edge_program(r, method);
    if (!p) {
        out->why = "the ETRecord has no edge program for this method";
        return ETP_OK;
    }
    const char *colon = strstr(qnn_name, ":OpId_");
    size_t len = colon ? (size_t)(colon - qnn_name) : strlen(qnn_name);
    char *buf = malloc(len + 1);
    if (!buf) return ETP_E_INTERNAL;
    memcpy(buf, qnn_name, len);
    buf[len] = 0;
    const etp_etr_node *nd = NULL;
    for (int step = 0; step < 8 && len && !nd; step++) {
        buf[len] = 0;
        nd = etp_etrecord_node_by_name(p, buf);
        if (nd) break;
        size_t nl = strip_qnn_suffix(buf, len);
        if (nl == len) break;
        len = nl;
    }
    free(buf);
    if (!nd) {
        out->why = "no edge-program node has this name (with or without QNN's suffixes)";
        return ETP_OK;
    }
    int rc;
    if (nd->debug_handle >= 0) {
        if ((rc = take_handles(out, &nd->debug_handle, 1))) return rc;
    }
    out->via = ETP_ETR_VIA_NAME;
    out->nodes = malloc(sizeof *out->nodes);
    out->op_types = malloc(strlen(nd->op) + 1);
    if (!out->nodes || !out->op_types) {
        etp_etrecord_join_free(out);
        return ETP_E_INTERNAL;
    }
    out->nodes[0] = nd;
    out->n_nodes = 1;
    strcpy(out->op_types, nd->op);
    common_modules(out);
    if (nd->stack_trace) {
        out->stack_trace = nd->stack_trace;
        out->frame = innermost_frame(nd->stack_trace);
    }
    return ETP_OK;
}

bool etp_etrecord_row_joinable(const etp_ops_row *row) {
    return row && row->chain >= 0 && row->instr >= 0 && row->place != ETP_PLACE_FRAMEWORK;
}

bool etp_etrecord_event_joinable(const etp_mevent *e) {
    return e && e->chain >= 0 && e->instr >= 0 &&
           (e->kind == ETP_KIND_KERNEL || e->kind == ETP_KIND_OPERATOR_CALL ||
            e->kind == ETP_KIND_DELEGATE_CALL || e->kind == ETP_KIND_DELEGATE_INTERNAL);
}

/* The one rule: HTP nodes by name, other delegate-internal identities through delegate_map,
 * everything else through debug_handle_map. */
static int join_ident(const etp_etrecord *r, const char *method, bool joinable, bool htp_node,
                      bool delegate_internal, int64_t instr, const char *name, etp_etr_join *out) {
    memset(out, 0, sizeof *out);
    if (!joinable) {
        out->why = "framework rows and rows without an instruction are not joined";
        return ETP_OK;
    }
    if (htp_node) return etp_etrecord_join_name(r, method, name, out);
    if (delegate_internal) return etp_etrecord_join(r, method, instr, name, out);
    return etp_etrecord_join(r, method, instr, NULL, out);
}

int etp_etrecord_join_row(const etp_etrecord *r, const char *method, const etp_ops_row *row,
                          etp_etr_join *out) {
    return join_ident(r, method, etp_etrecord_row_joinable(row), row->htp_node,
                      row->kind == ETP_KIND_DELEGATE_INTERNAL, row->instr, row->name, out);
}

int etp_etrecord_join_event(const etp_etrecord *r, const char *method, const etp_mevent *e,
                            etp_etr_join *out) {
    bool htp = e->qnn == ETP_QNN_NODE || e->qnn == ETP_QNN_NODE_IO || e->qnn == ETP_QNN_NODE_SYS;
    return join_ident(r, method, etp_etrecord_event_joinable(e), htp,
                      e->kind == ETP_KIND_DELEGATE_INTERNAL, e->instr, e->label ? e->label : "",
                      out);
}

void etp_etrecord_join_free(etp_etr_join *j) {
    if (!j) return;
    free(j->handles);
    free((void *)j->nodes);
    free(j->op_types);
    free(j->frame);
    memset(j, 0, sizeof *j);
}
