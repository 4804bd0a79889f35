/* fuzz_etrecord.c - fuzz target for the ETRecord reader (src/read/etrecord.c) and its joins.
 *
 * The input is opened as an ETRecord from memory (libzip's buffer source), with small limits so
 * that a claimed size cannot make the target allocate much. When it is accepted, every accessor
 * is called on every entry, program and node, and every instruction of every map is joined
 * (plus by name for every node); when it is rejected, the error must be a located ETP_E_INPUT
 * naming the file (fuzz_common.h). */
#include "fuzz_common.h"
#include "etrecord_int.h"

static void walk(const etp_etrecord *r) {
    uint32_t ne = etp_etrecord_entry_count(r);
    for (uint32_t i = 0; i <= ne; i++) {
        const etp_etr_entry *e = etp_etrecord_entry(r, i);
        if (i == ne) {
            FZ_ASSERT(!e, "entry past the end is not NULL");
            break;
        }
        fz_sink_ += (uint32_t)strlen(e->name) + (uint32_t)strlen(etp_etr_kind_name(e->kind)) +
                    (uint32_t)strlen(e->compression);
    }
    for (uint32_t i = 0; i < etp_etrecord_program_count(r); i++) {
        const etp_etr_program *p = etp_etrecord_program(r, i);
        for (uint32_t k = 0; k < p->n_nodes; k++) {
            const etp_etr_node *n = &p->nodes[k];
            fz_sink_ += (uint32_t)strlen(n->name) + (uint32_t)strlen(n->op);
            if (n->stack_trace) fz_sink_ += (uint32_t)strlen(n->stack_trace);
            for (uint32_t m = 0; m < n->n_modules; m++)
                fz_sink_ += (uint32_t)(strlen(n->modules[m].key) + strlen(n->modules[m].fqn) +
                                       strlen(n->modules[m].type));
            for (int32_t d = 0; d < n->ndim; d++) fz_sink_ += (uint32_t)n->sizes[d];
            const etp_etr_node *by[4];
            uint32_t c = etp_etrecord_nodes_by_handle(p, n->debug_handle, by, 4);
            FZ_ASSERT(n->debug_handle < 0 || c >= 1, "node %u's handle finds no node", k);
            FZ_ASSERT(etp_etrecord_node_by_name(p, n->name) != NULL, "node name not found");
            etp_etr_join j;
            if (etp_etrecord_join_name(r, p->method, n->name, &j) == ETP_OK) {
                /* a node with no output name (name "") joins nothing by name: the join takes
                 * no empty QNN name (found by the ETRecord mutator, fuzz/regressions/etrecord) */
                if (n->name[0] && p->kind == ETP_ETR_EDGE_PROGRAM &&
                    etp_etrecord_edge_program(r, p->method) == p)
                    FZ_ASSERT(j.n_nodes == 1, "by-name join of an edge node found nothing");
                etp_etrecord_join_free(&j);
            }
        }
    }
    for (uint32_t m = 0; m < etp_etrecord_map_method_count(r); m++) {
        const char *method = etp_etrecord_map_method(r, m);
        for (int64_t instr = 0; instr < 16; instr++) {
            etp_etr_join j;
            if (etp_etrecord_join(r, method, instr, NULL, &j) == ETP_OK) {
                if (j.op_types) fz_sink_ += (uint32_t)strlen(j.op_types);
                if (j.frame) fz_sink_ += (uint32_t)strlen(j.frame);
                etp_etrecord_join_free(&j);
            }
            if (etp_etrecord_join(r, method, instr, "0", &j) == ETP_OK) etp_etrecord_join_free(&j);
            fz_sink_ += (uint32_t)etp_etrecord_num_outs(r, method, instr);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    etp_etrecord_opts o;
    etp_etrecord_opts_init(&o);
    o.max_json_bytes = 1u << 20;
    o.max_entries = 1024;
    etp_error err = {0};
    etp_etrecord *r = NULL;
    int rc = etp__etrecord_open_buffer(&r, data, size, "fuzz.etrecord", &o, &err);
    if (rc) {
        fz_check_rejection("etp_etrecord_open", rc, &err, "fuzz.etrecord", size, true);
        return 0;
    }
    walk(r);
    etp_etrecord_close(r);
    return 0;
}
