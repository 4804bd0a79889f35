/* test_etrecord_api.c - the public ETRecord API (include/etprof_etrecord.h) on the crafted seed
 * fuzz/corpus/etrecord/new_deflate.etrecord (written by Python's zipfile with DEFLATE; its JSON,
 * by which the expected values below were written by hand):
 *   edge_dialect_exported_program/forward: nodes aten_add_tensor (aten.add.Tensor, handle 1,
 *     trace `File "m.py", line 3`, nn_module_stack "L__self__,,M;L__self___l,l[0],torch.nn.Linear")
 *     and aten_conv_default_28 (aten.convolution.default, handle 2)
 *   debug_handle_map {"forward": {"0": 1, "1": [1, 2]}}
 *   delegate_map {"forward": {"1": {"name": "QnnBackend", "delegate_map": {"0": [2], "7": 1}}}}
 *   instruction_id_to_num_outs_map {"forward": {"1": 2}}
 * and the bracket-aware nn_module_stack split.
 * usage: test_etrecord_api SOURCE_DIR */
#include "check.h"
#include "etprof_etrecord.h"
#include "etrecord_int.h"

#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    char path[1024];
    snprintf(path, sizeof path, "%s/fuzz/corpus/etrecord/new_deflate.etrecord", argv[1]);
    etp_etrecord *r = NULL;
    etp_error err = {0};
    int rc = etp_etrecord_open(&r, path, NULL, &err);
    CHECK_MSG(rc == ETP_OK, "%s", err.msg);
    if (rc) return check_done();
    const etp_etr_program *p = etp_etrecord_edge_program(r, NULL);
    CHECK(p && p->n_nodes == 2 && strcmp(p->method, "forward") == 0);
    CHECK(etp_etrecord_edge_program(r, "other") == NULL);
    const etp_etr_node *n = etp_etrecord_node_by_name(p, "aten_add_tensor");
    CHECK(n && n->debug_handle == 1 && strcmp(n->op, "aten.add.Tensor") == 0);
    CHECK(n && n->n_modules == 2 && strcmp(n->modules[1].fqn, "l[0]") == 0 &&
          strcmp(n->modules[1].type, "torch.nn.Linear") == 0 && strcmp(n->modules[0].fqn, "") == 0);
    const etp_etr_node *by[2];
    CHECK(etp_etrecord_nodes_by_handle(p, 2, by, 2) == 1 &&
          strcmp(by[0]->name, "aten_conv_default_28") == 0);
    CHECK(etp_etrecord_nodes_by_handle(p, 9, by, 2) == 0);

    etp_etr_join j;
    CHECK(etp_etrecord_join(r, "forward", 1, NULL, &j) == ETP_OK);
    CHECK(j.via == ETP_ETR_VIA_HANDLES && j.n_handles == 2 && j.n_nodes == 2);
    CHECK(strcmp(j.op_types, "aten.add.Tensor, aten.convolution.default") == 0);
    CHECK(j.backend && strcmp(j.backend, "QnnBackend") == 0);
    CHECK(j.frame && strcmp(j.frame, "m.py:3") == 0);
    CHECK(j.module && strcmp(j.module, "l[0]") == 0);
    etp_etrecord_join_free(&j);
    /* delegate event with debug id 0 -> handles [2]; id 7 -> 1; id 70 (contains "7"): none */
    CHECK(etp_etrecord_join(r, NULL, 1, "0", &j) == ETP_OK);
    CHECK(j.via == ETP_ETR_VIA_DELEGATE && j.n_handles == 1 && j.handles[0] == 2 &&
          j.n_nodes == 1 && strcmp(j.op_types, "aten.convolution.default") == 0 && !j.frame);
    etp_etrecord_join_free(&j);
    CHECK(etp_etrecord_join(r, NULL, 1, "7", &j) == ETP_OK && j.n_nodes == 1 &&
          strcmp(j.nodes[0]->name, "aten_add_tensor") == 0);
    etp_etrecord_join_free(&j);
    CHECK(etp_etrecord_join(r, NULL, 1, "70", &j) == ETP_OK && j.via == ETP_ETR_VIA_NONE &&
          j.why && j.n_nodes == 0);
    etp_etrecord_join_free(&j);
    CHECK(etp_etrecord_join(r, NULL, 5, NULL, &j) == ETP_OK && j.via == ETP_ETR_VIA_NONE);
    etp_etrecord_join_free(&j);
    CHECK(etp_etrecord_num_outs(r, NULL, 1) == 2 && etp_etrecord_num_outs(r, NULL, 0) == -1);
    /* QNN names: exact, with _h_<k>, with _cast; a bare _<n> is never stripped */
    CHECK(etp_etrecord_join_name(r, NULL, "aten_conv_default_28_h_7:OpId_1954 (cycles)", &j) ==
              ETP_OK && j.via == ETP_ETR_VIA_NAME && j.n_nodes == 1 && j.handles[0] == 2);
    etp_etrecord_join_free(&j);
    CHECK(etp_etrecord_join_name(r, NULL, "aten_add_tensor_cast:OpId_5 (cycles)", &j) == ETP_OK &&
          j.n_nodes == 1);
    etp_etrecord_join_free(&j);
    CHECK(etp_etrecord_join_name(r, NULL, "aten_add_tensor_3:OpId_6 (cycles)", &j) == ETP_OK &&
          j.n_nodes == 0 && j.via == ETP_ETR_VIA_NONE);
    etp_etrecord_join_free(&j);
    CHECK(etp_etrecord_join_name(r, NULL, "Input OpId_2 (cycles)", &j) == ETP_OK && j.n_nodes == 0);
    etp_etrecord_join_free(&j);
    etp_etrecord_close(r);

    /* bracket-aware split */
    const char *s = "k1,a.b,pkg.A;k2,x[1;2],Foo[T, U];k3";
    char scratch[64];
    etp_etr_module m[4];
    CHECK(etp__etr_split_modules(s, m, 4, scratch) == 3);
    CHECK(strcmp(m[0].key, "k1") == 0 && strcmp(m[0].fqn, "a.b") == 0 &&
          strcmp(m[0].type, "pkg.A") == 0);
    CHECK(strcmp(m[1].key, "k2") == 0 && strcmp(m[1].fqn, "x[1;2]") == 0 &&
          strcmp(m[1].type, "Foo[T, U]") == 0);
    CHECK(strcmp(m[2].key, "k3") == 0 && strcmp(m[2].fqn, "") == 0);
    return check_done();
}
