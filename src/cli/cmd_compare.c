/* cmd_compare.c - `etprof compare BASE.etdp NEW.etdp --debug-buffer A.bin --debug-buffer-new
 * B.bin [--pte P] [--fail-below-snr DB]`: the two runs' logged tensors matched and compared
 * (etp_cmp_compute, include/etprof_tensor.h); this file only renders. */
#include "cli.h"
#include "etprof_etrecord.h"
#include "etprof_tensor.h"

#include <errno.h>
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
/* different programs: the NEW side's instruction and operator, and the handle matched on */
static const etp_col cross_cols[] = {
    {"instruction_id_new", "instr new", NULL, ETP_T_INT, true, 0},
    {"operator_new", "operator new", NULL, ETP_T_STR, true, 0},
    {"debug_handle", "debug handle", NULL, ETP_T_INT, true, 0},
};
#define NX (sizeof cross_cols / sizeof cross_cols[0])

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
    int rc = cli_open_debug_buffer(&ba, a->val[OPT_DEBUG_BUFFER]);
    if (rc) return rc;
    if ((rc = cli_open_debug_buffer(&bb, a->val[OPT_DEBUG_BUFFER_NEW]))) {
        etp_blob_close(&ba);
        return rc;
    }
    cli_inputs ib, in;
    etp_etrecord *rb = NULL, *rn = NULL;
    if ((rc = cli_open_inputs(a, bp, &ib))) goto out_bufs;
    cli_args an = *a;
    if (a->set[OPT_PTE_NEW]) {
        an.set[OPT_PTE] = true;
        an.val[OPT_PTE] = a->val[OPT_PTE_NEW];
    }
    if ((rc = cli_open_inputs(&an, np, &in))) {
        cli_close_inputs(&ib);
        goto out_bufs;
    }
    /* different programs: by debug handle with both ETRecords, else by operator order */
    bool cross = a->set[OPT_PTE_NEW] &&
                 !(ib.prog && in.prog && ib.pte_blob.size == in.pte_blob.size &&
                   memcmp(ib.pte_blob.data, in.pte_blob.data, ib.pte_blob.size) == 0);
    etp_cmp_opts co;
    memset(&co, 0, sizeof co);
    co.match = ETP_CMP_BY_INSTRUCTION;
    if (cross && a->set[OPT_ETRECORD] != a->set[OPT_ETRECORD_NEW]) {
        cli_errorf("compare: give the ETRecords of both programs (--etrecord R --etrecord-new R2) "
                   "or neither");
        rc = EXIT_USAGE;
        goto out_inputs;
    }
    if (cross && a->set[OPT_ETRECORD]) {
        if ((rc = etp_etrecord_open(&rb, a->val[OPT_ETRECORD], NULL, &err)) ||
            (rc = etp_etrecord_open(&rn, a->val[OPT_ETRECORD_NEW], NULL, &err))) {
            cli_error(&err);
            rc = cli_exit_for(rc);
            goto out_inputs;
        }
        co.match = ETP_CMP_BY_DEBUG_HANDLE;
        co.base_etrecord = rb;
        co.new_etrecord = rn;
        co.base_method = co.new_method = a->set[OPT_METHOD] ? a->val[OPT_METHOD] : NULL;
    } else if (cross) {
        co.match = ETP_CMP_BY_OP_ORDER;
    }
    etp_cmp_result *r = NULL;
    if ((rc = etp_cmp_compute_with(ib.model, &ba, in.model, &bb, &co, &r, &err))) {
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
                 etp_run_number(f->run), (int)f->instruction_id, f->op_base ? ", " : "",
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
    uint64_t c_m = 0, c_ob = 0, c_on = 0;
    etp_cmp_counts(r, &c_m, &c_ob, &c_on);
    char mnote[512] = "";
    if (cross) {
        etp_node_str(root, "matching", etp_cmp_match_name(etp_cmp_matching(r)));
        etp_node_str(root, "program_new", a->val[OPT_PTE_NEW]);
        etp_node_uint(root, "only_base", c_ob);
        etp_node_uint(root, "only_new", c_on);
        snprintf(mnote, sizeof mnote,
                 "different programs: matched by %s: %llu matched, %llu only in base, %llu only "
                 "in new%s",
                 co.match == ETP_CMP_BY_DEBUG_HANDLE
                     ? "debug handle (the instruction's highest handle in each ETRecord)"
                     : "operator order, dtype and shape",
                 (unsigned long long)c_m, (unsigned long long)c_ob, (unsigned long long)c_on,
                 co.match == ETP_CMP_BY_OP_ORDER
                     ? "; give --etrecord R --etrecord-new R2 to match by debug handle"
                     : "");
    }
    etp_node *tens = etp_node_arr(root, "tensors");
    etp_col cols[NC + NX];
    memcpy(cols, cmp_cols, sizeof cmp_cols);
    if (cross) memcpy(cols + NC, cross_cols, sizeof cross_cols);
    etp_table *t = etp_doc_table(doc, cols, cross ? NC + NX : NC);
    for (size_t i = 0; i < n; i++) {
        const etp_cmp_row *x = etp_cmp_row_get(r, i);
        const etp_tensor_view *v = x->status == ETP_CMP_ONLY_NEW ? &x->new_ : &x->base;
        bool m = x->status == ETP_CMP_MATCHED;
        etp_node *j = etp_node_obj(tens, NULL);
        etp_node_str(j, "status", etp_cmp_status_name(x->status));
        etp_node_uint(j, "run", etp_run_number(x->run));
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
        if (cross) {
            etp_node_int(j, "instruction_id_new", x->instruction_id_new);
            etp_node_str(j, "operator_new", x->op_new);
            if (x->debug_handle >= 0) etp_node_int(j, "debug_handle", x->debug_handle);
            else etp_node_null(j, "debug_handle");
        }

        etp_table_row(t);
        etp_table_str(t, etp_cmp_status_name(x->status));
        etp_table_uint(t, etp_run_number(x->run));
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
        if (cross) {
            if (x->instruction_id_new >= 0) etp_table_int(t, x->instruction_id_new);
            else etp_table_null(t);
            etp_table_str(t, x->op_new);
            if (x->debug_handle >= 0) etp_table_int(t, x->debug_handle);
            else etp_table_null(t);
        }
    }
    if (*mnote) {
        etp_doc_note(doc, mnote);
        etp_table_note(t, mnote);
    }
    etp_doc_note(doc, note);
    etp_table_note(t, note);
    etp_table_note(t, "values are the tensors' own data (no unit); SNR = 10 log10(sum base^2 / sum "
                      "(base - new)^2), inf when identical");
    etp_section_table(etp_doc_section(doc, "tensors"), t);
    etp_doc_flat(doc, t);
    rc = cli_render(a, &o, doc);
    if (!rc && a->set[OPT_HTML]) { /* the page: a library writer, written atomically */
        etp_outfile *hf = NULL;
        etp_error herr = {0};
        int hr = etp_outfile_open(&hf, a->val[OPT_HTML], &herr);
        if (!hr) {
            etp_cmp_html_opts ho = {bp, np, a->set[OPT_FAIL_BELOW_SNR] ? thr : NAN, t};
            hr = etp_cmp_write_html(r, etp_outfile_stream(hf), &ho);
            if (hr) {
                etp_outfile_write_error(hf, errno, &herr);
                etp_outfile_abort(hf);
            } else {
                hr = etp_outfile_commit(hf, &herr);
            }
        }
        if (hr) {
            cli_error(&herr);
            rc = cli_exit_for(hr);
        }
    }
    etp_doc_free(doc);
    rc = cli_out_close(&o, rc);
    if (!rc && below >= 0) {
        const etp_cmp_row *f = etp_cmp_row_get(r, (size_t)below);
        fprintf(stderr, "etprof: compare: SNR %.2f dB < %g dB at run %u, instruction %d: exit 7\n",
                f->cmp.snr_db, thr, etp_run_number(f->run), (int)f->instruction_id);
        rc = EXIT_DIVERGED;
    }
out_r:
    etp_cmp_free(r);
out_inputs:
    etp_etrecord_close(rb);
    etp_etrecord_close(rn);
    cli_close_inputs(&ib);
    cli_close_inputs(&in);
out_bufs:
    etp_blob_close(&ba);
    etp_blob_close(&bb);
    return rc;
}

static const opt_id compare_opts[] = {OPT_DEBUG_BUFFER, OPT_DEBUG_BUFFER_NEW, OPT_FAIL_BELOW_SNR,
                                      OPT_PTE, OPT_METHOD, OPT_IGNORE_MISMATCH, OPT_PTE_NEW,
                                      OPT_ETRECORD, OPT_ETRECORD_NEW, OPT_HTML, 0};

const cli_cmd cmd_compare = {
    .name = "compare",
    .summary = "two runs' logged tensors compared: MSE, max |diff|, SNR, cosine, first divergence",
    .usage = "BASE.etdp NEW.etdp --debug-buffer A.bin --debug-buffer-new B.bin [--pte P] "
             "[--pte-new P2 [--etrecord R --etrecord-new R2]] [--fail-below-snr DB] [--html F]",
    .help = "Matches the intermediate and output tensors of two runs of the same program by run,\n"
            "instruction, occurrence and TensorList index, and compares them element by element:\n"
            "MSE, max and mean |diff|, SNR in dB (inf when identical) and cosine similarity; the\n"
            "first tensor that differs in BASE's execution order is named. --fail-below-snr DB\n"
            "exits 7 when a compared tensor's SNR is below DB (the output is written first).\n"
            "Different programs (--pte-new P2 with other bytes than --pte P): matched by debug\n"
            "handle when both ETRecords are given (--etrecord R --etrecord-new R2: the\n"
            "instruction's highest handle), else by operator order, dtype and shape; the output\n"
            "then names the matching and counts matched / only-in-base / only-in-new tensors.\n"
            "--html F also writes one self-contained HTML page (no network) with a per-op SNR\n"
            "chart in execution order and the table.",
    .opts = compare_opts,
    .min_pos = 2,
    .max_pos = 2,
    .run = run_compare,
};
