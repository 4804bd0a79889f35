/* consumer.c - a program built against an installed libetprof (tests/install/test_install.sh):
 * only <etprof.h> and <etprof_qnn.h>, only the public API. Opens an ETDump, prints its event
 * count and the Method::execute row of the per-operator statistics; with a QHAS file too, its
 * critical path and HMX/HVX/DMA op counts. One "key value" per line. */
#include <etprof.h>
#include <etprof_qnn.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: consumer FILE.etdp [QHAS.json]\n");
        return 2;
    }
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_blob blob;
    etp_dump *dump = NULL;
    etp_model *model = NULL;
    etp_ops_result *ops = NULL;
    int rc = etp_blob_open(&blob, argv[1], &err);
    if (rc) goto fail_noblob;
    if ((rc = etp_dump_open(&dump, &blob, &err))) goto fail;
    printf("events %llu\n", (unsigned long long)etp_dump_get_info(dump)->event_count);
    printf("blocks %u\n", etp_dump_get_info(dump)->block_count);

    etp_model_opts mo;
    etp_model_opts_init(&mo);
    if ((rc = etp_model_open(&model, dump, NULL, &mo, &err))) goto fail;
    etp_ops_opts oo;
    etp_ops_opts_init(&oo);
    if ((rc = etp_ops_compute(model, &oo, &ops, &err))) goto fail;
    for (size_t i = 0; i < etp_ops_row_count(ops); i++) {
        const etp_ops_row *row = etp_ops_row_get(ops, i);
        if (row->kind != ETP_KIND_FRAMEWORK || strcmp(row->name, "Method::execute") != 0) continue;
        printf("method_execute_unit %s\n", etp_unit_name(row->unit));
        printf("method_execute_runs %u\n", row->runs);
        printf("method_execute_avg %.17g\n", row->stats.avg);
        printf("method_execute_chain %d\n", row->chain);
        printf("method_execute_instr %d\n", row->instr);
        break;
    }
    if (argc == 3) {
        etp_qnn_paths qp = {argv[2], NULL, NULL, NULL};
        etp_qnn_bundle qb;
        etp_qnn_critical_path *cp = NULL;
        if ((rc = etp_qnn_bundle_load(&qp, &qb, &err))) goto fail;
        if ((rc = etp_qnn_critical_path_get(qb.der, &cp, &err))) {
            etp_qnn_bundle_free(&qb);
            goto fail;
        }
        etp_qnn_unit_counts uc;
        etp_qnn_unit_counts_get(qb.der, &uc);
        printf("qnn_path_cycles %lld\n", (long long)cp->path_cycles);
        printf("qnn_path_idle_cycles %lld\n", (long long)cp->idle_cycles);
        printf("qnn_path_top_op %s\n", cp->n_ops ? cp->ops[0].qnn_op : "-");
        printf("qnn_path_top_share %.17g\n", cp->n_ops ? cp->ops[0].share_percent : 0.0);
        printf("qnn_ops_using_hmx %u\n", uc.hmx);
        printf("qnn_ops_using_dma %u\n", uc.dma);
        etp_qnn_critical_path_free(cp);
        etp_qnn_bundle_free(&qb);
    }
    etp_ops_free(ops);
    etp_model_close(model);
    etp_dump_close(dump);
    etp_blob_close(&blob);
    return 0;
fail:
    etp_ops_free(ops);
    etp_model_close(model);
    etp_dump_close(dump);
    etp_blob_close(&blob);
fail_noblob: {
    char line[1024];
    etp_error_format(&err, line, sizeof line);
    fprintf(stderr, "consumer: %s\n", line);
    return etp_exit_code(rc);
}
}
