/* cmd_compare.c - `etprof compare BASE.etdp NEW.etdp --debug-buffer A.bin --debug-buffer-new
 * B.bin [--pte P] [--fail-below-snr DB]`: the two runs' logged tensors matched and compared
 * (etp_cmp_compute, include/etprof_tensor.h); this file only renders. */
#include "cli.h"
#include "etprof_tensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const etp_col cmp_cols[] = {
    {"status", "status", NULL, ETP_T_STR, false, 0},
    {"run", "run", NULL, ETP_T_UINT, false, 0},
    {"instruction_id", "instr", NULL, ETP_T_INT, false, 0},
    {"occurrence", "occ", NULL, ETP_T_UINT, false, 0},
    {"output", "output", NULL, ETP_T_BOOL, false, 0},
    {"operator", "operator", NULL, ETP_T_STR, true, 0},
    {"dtype", "dtype", NULL, ETP_T_STR, false, 0},
    {"numel", "numel", NULL, ETP_T_UINT, false, 0},
    {"mse", "MSE", NULL, ETP_T_FLOAT, true, -1},
    {"max_abs", "max |diff|", NULL, ETP_T_FLOAT, true, -1},
    {"l1", "mean |diff|", NULL, ETP_T_FLOAT, true, -1},
    {"snr_db", "SNR (dB)", NULL, ETP_T_FLOAT, true, 2}, /* "inf" when identical */
    {"cosine", "cosine", NULL, ETP_T_FLOAT, true, 6},
};
#define NC (sizeof cmp_cols / sizeof cmp_cols[0])

/* A figure of a matched pair (null otherwise); JSON has no infinity: the SNR of identical
 * tensors is the string "Infinity". */
static void jnum(etp_node *n, const char *key, bool matched, double v) {
    if (!matched) etp_node_null(n, key);
    else if (isinf(v)) etp_node_str(n, key, v > 0 ? "Infinity" : "-Infinity");
    else etp_node_float(n, key, v);
}

static int run_compare(cli_args *a) {
    const char *bp = a->pos[0], *np = a->pos[1];
    double thr = INFINITY;
    if (a->set[OPT_FAIL_BELOW_SNR] && !cli_get_double(a, OPT_FAIL_BELOW_SNR, &thr)) {
        cli_errorf("compare: --fail-below-snr: expected a number of decibels, got \"%s\"",
                   a->val[OPT_FAIL_BELOW_SNR]);
        return EXIT_USAGE;
    }
    if (!a->set[OPT_DEBUG_BUFFER] || !a->set[OPT_DEBUG_BUFFER_NEW]) {
        cli_errorf("compare: give both debug buffers: --debug-buffer BASE.bin --debug-buffer-new "
                   "NEW.bin");
        return EXIT_USAGE;
    }
    etp_blob ba, bb;
    memset(&ba, 0, sizeof ba);
    memset(&bb, 0, sizeof bb);
    etp_error err = {0};
    int rc = etp_blob_open(&ba, a->val[OPT_DEBUG_BUFFER], &err);
    if (!rc && (rc = etp_blob_open(&bb, a->val[OPT_DEBUG_BUFFER_NEW], &err))) etp_blob_close(&ba);
    if (rc) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    cli_inputs ib, in;
    if ((rc = cli_open_inputs(a, bp, &ib))) goto out_bufs;
    if ((rc = cli_open_inputs(a, np, &in))) {
        cli_close_inputs(&ib);
        goto out_bufs;
    }
    etp_cmp_result *r = NULL;
    if ((rc = etp_cmp_compute(ib.model, &ba, in.model, &bb, &r, &err))) {
        cli_error(&err);
        rc = cli_exit_for(rc);
        goto out_inputs;
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) goto out_r;
    size_t n = etp_cmp_row_count(r);
    int64_t first = etp_cmp_first_below(r, INFINITY);
    int64_t below = a->set[OPT_FAIL_BELOW_SNR] ? etp_cmp_first_below(r, thr) : -1;
    uint64_t matched = 0, other = 0;
    for (size_t i = 0; i < n; i++) {
        if (etp_cmp_row_get(r, i)->status == ETP_CMP_MATCHED) matched++;
        else other++;
    }
    char note[512];
    if (first >= 0) {
        const etp_cmp_row *f = etp_cmp_row_get(r, (size_t)first);
        snprintf(note, sizeof note,
                 "first divergence in execution order: run %u, instruction %d%s%s (SNR %.2f dB, "
                 "max |diff| %g)",
                 f->run, (int)f->instruction_id, f->op_base ? ", " : "",
                 f->op_base ? f->op_base : "", f->cmp.snr_db, f->cmp.max_abs);
    } else {
        snprintf(note, sizeof note, "every matched tensor is identical (%llu matched)",
                 (unsigned long long)matched);
    }
    /* one document: the JSON facts, and the table (text, csv, tsv, jsonl) with its notes */
    etp_doc *doc = etp_doc_new("compare", 1, NULL, NULL);
    etp_doc_envelope(doc, 0); /* the JSON names its inputs: base, new */
    etp_node *root = etp_doc_root(doc);
    etp_node_str(root, "base", bp);
    etp_node_str(root, "new", np);
    etp_node_uint(root, "matched", matched);
    etp_node_uint(root, "unmatched", other);
    if (first >= 0) etp_node_int(root, "first_divergence", first);
    else etp_node_null(root, "first_divergence");
    if (a->set[OPT_FAIL_BELOW_SNR]) etp_node_float(root, "fail_below_snr_db", thr);
    else etp_node_null(root, "fail_below_snr_db");
    if (below >= 0) etp_node_int(root, "first_below_snr", below);
    else etp_node_null(root, "first_below_snr");
    etp_node *tens = etp_node_arr(root, "tensors");
    etp_table *t = etp_doc_table(doc, cmp_cols, NC);
    for (size_t i = 0; i < n; i++) {
        const etp_cmp_row *x = etp_cmp_row_get(r, i);
        const etp_tensor_view *v = x->status == ETP_CMP_ONLY_NEW ? &x->new_ : &x->base;
        bool m = x->status == ETP_CMP_MATCHED;
        etp_node *j = etp_node_obj(tens, NULL);
        etp_node_str(j, "status", etp_cmp_status_name(x->status));
        etp_node_uint(j, "run", x->run);
        etp_node_int(j, "instruction_id", x->instruction_id);
        etp_node_uint(j, "occurrence", x->occurrence);
        if (x->list_index >= 0) etp_node_int(j, "list_index", x->list_index);
        else etp_node_null(j, "list_index");
        etp_node_bool(j, "output", x->output);
        etp_node_str(j, "operator", x->op_base);
        etp_node_str(j, "dtype", etp_scalar_type_name(v->scalar_type));
        etp_node_uint(j, "numel", v->numel);
        jnum(j, "mse", m, x->cmp.mse);
        jnum(j, "max_abs", m, x->cmp.max_abs);
        jnum(j, "l1", m, x->cmp.l1);
        jnum(j, "snr_db", m, x->cmp.snr_db);
        jnum(j, "cosine", m, x->cmp.cosine);
        etp_node_uint(j, "nonfinite", m ? x->cmp.nonfinite : 0);

        etp_table_row(t);
        etp_table_str(t, etp_cmp_status_name(x->status));
        etp_table_uint(t, x->run);
        etp_table_int(t, x->instruction_id);
        etp_table_uint(t, x->occurrence);
        etp_table_bool(t, x->output);
        etp_table_str(t, x->op_base);
        etp_table_str(t, etp_scalar_type_name(v->scalar_type));
        etp_table_uint(t, v->numel);
        etp_table_float(t, m ? x->cmp.mse : NAN);
        etp_table_float(t, m ? x->cmp.max_abs : NAN);
        etp_table_float(t, m ? x->cmp.l1 : NAN);
        if (m && isinf(x->cmp.snr_db)) etp_table_str(t, x->cmp.snr_db > 0 ? "inf" : "-inf");
        else etp_table_float(t, m ? x->cmp.snr_db : NAN);
        etp_table_float(t, m ? x->cmp.cosine : NAN);
    }
    etp_doc_note(doc, note);
    etp_table_note(t, note);
    etp_table_note(t, "values are the tensors' own data (no unit); SNR = 10 log10(sum base^2 / sum "
                      "(base - new)^2), inf when identical");
    etp_section_table(etp_doc_section(doc, "tensors"), t);
    etp_doc_flat(doc, t);
    rc = cli_render(a, &o, doc);
    etp_doc_free(doc);
    rc = cli_out_close(&o, rc);
    if (!rc && below >= 0) {
        const etp_cmp_row *f = etp_cmp_row_get(r, (size_t)below);
        fprintf(stderr, "etprof: compare: SNR %.2f dB < %g dB at run %u, instruction %d: exit 7\n",
                f->cmp.snr_db, thr, f->run, (int)f->instruction_id);
        rc = EXIT_DIVERGED;
    }
out_r:
    etp_cmp_free(r);
out_inputs:
    cli_close_inputs(&ib);
    cli_close_inputs(&in);
out_bufs:
    etp_blob_close(&ba);
    etp_blob_close(&bb);
    return rc;
}

static const opt_id compare_opts[] = {OPT_DEBUG_BUFFER, OPT_DEBUG_BUFFER_NEW, OPT_FAIL_BELOW_SNR,
                                      OPT_PTE, OPT_METHOD, OPT_IGNORE_MISMATCH, 0};

const cli_cmd cmd_compare = {
    .name = "compare",
    .summary = "two runs' logged tensors compared: MSE, max |diff|, SNR, cosine, first divergence",
    .usage = "BASE.etdp NEW.etdp --debug-buffer A.bin --debug-buffer-new B.bin [--pte P] "
             "[--fail-below-snr DB]",
    .help = "Matches the intermediate and output tensors of two runs of the same program by run,\n"
            "instruction, occurrence and TensorList index, and compares them element by element:\n"
            "MSE, max and mean |diff|, SNR in dB (inf when identical) and cosine similarity; the\n"
            "first tensor that differs in BASE's execution order is named. --fail-below-snr DB\n"
            "exits 7 when a compared tensor's SNR is below DB (the output is written first).",
    .opts = compare_opts,
    .min_pos = 2,
    .max_pos = 2,
    .run = run_compare,
};
