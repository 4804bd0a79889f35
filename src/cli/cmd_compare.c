/* cmd_compare.c - `etprof compare BASE.etdp NEW.etdp --debug-buffer A.bin --debug-buffer-new
 * B.bin [--pte P] [--fail-below-snr DB]`: the two runs' logged tensors matched and compared
 * (etp_cmp_compute, include/etprof_tensor.h); this file only renders. */
#include "cli.h"
#include "etprof_tensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const out_col cmp_cols[] = {
    {"status", "status", OUT_STR, 0},
    {"run", "run", OUT_UINT, 0},
    {"instruction_id", "instr", OUT_INT, 0},
    {"occurrence", "occ", OUT_UINT, 0},
    {"output", "output", OUT_BOOL, 0},
    {"operator", "operator", OUT_STR, 0},
    {"dtype", "dtype", OUT_STR, 0},
    {"numel", "numel", OUT_UINT, 0},
    {"mse", "MSE", OUT_FLOAT, -1},
    {"max_abs", "max |diff|", OUT_FLOAT, -1},
    {"l1", "mean |diff|", OUT_FLOAT, -1},
    {"snr_db", "SNR (dB)", OUT_FLOAT, 2},
    {"cosine", "cosine", OUT_FLOAT, 6},
};
#define NC (sizeof cmp_cols / sizeof cmp_cols[0])

static void jnum(jw *w, double v) { /* JSON has no infinity: SNR of identical tensors */
    if (isinf(v)) jw_str(w, v > 0 ? "Infinity" : "-Infinity");
    else jw_double(w, v);
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
    if (a->fmt == OUT_JSON) {
        jw w;
        jw_init(&w, o.f, true);
        jw_obj_begin(&w);
        jw_key(&w, "schema_version"); jw_int(&w, 1);
        jw_key(&w, "base"); jw_str(&w, bp);
        jw_key(&w, "new"); jw_str(&w, np);
        jw_key(&w, "matched"); jw_uint(&w, matched);
        jw_key(&w, "unmatched"); jw_uint(&w, other);
        jw_key(&w, "first_divergence");
        if (first >= 0) jw_int(&w, first);
        else jw_null(&w);
        jw_key(&w, "fail_below_snr_db");
        if (a->set[OPT_FAIL_BELOW_SNR]) jw_double(&w, thr);
        else jw_null(&w);
        jw_key(&w, "first_below_snr");
        if (below >= 0) jw_int(&w, below);
        else jw_null(&w);
        jw_key(&w, "tensors");
        jw_arr_begin(&w);
        for (size_t i = 0; i < n; i++) {
            const etp_cmp_row *x = etp_cmp_row_get(r, i);
            const etp_tensor_view *v = x->status == ETP_CMP_ONLY_NEW ? &x->new_ : &x->base;
            jw_obj_begin(&w);
            jw_key(&w, "status"); jw_str(&w, etp_cmp_status_name(x->status));
            jw_key(&w, "run"); jw_uint(&w, x->run);
            jw_key(&w, "instruction_id"); jw_int(&w, x->instruction_id);
            jw_key(&w, "occurrence"); jw_uint(&w, x->occurrence);
            jw_key(&w, "list_index");
            if (x->list_index >= 0) jw_int(&w, x->list_index);
            else jw_null(&w);
            jw_key(&w, "output"); jw_bool(&w, x->output);
            jw_key(&w, "operator"); jw_str(&w, x->op_base);
            jw_key(&w, "dtype"); jw_str(&w, etp_scalar_type_name(v->scalar_type));
            jw_key(&w, "numel"); jw_uint(&w, v->numel);
            bool m = x->status == ETP_CMP_MATCHED;
            jw_key(&w, "mse"); if (m) jnum(&w, x->cmp.mse); else jw_null(&w);
            jw_key(&w, "max_abs"); if (m) jnum(&w, x->cmp.max_abs); else jw_null(&w);
            jw_key(&w, "l1"); if (m) jnum(&w, x->cmp.l1); else jw_null(&w);
            jw_key(&w, "snr_db"); if (m) jnum(&w, x->cmp.snr_db); else jw_null(&w);
            jw_key(&w, "cosine"); if (m) jnum(&w, x->cmp.cosine); else jw_null(&w);
            jw_key(&w, "nonfinite"); jw_uint(&w, m ? x->cmp.nonfinite : 0);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_key(&w, "notes");
        jw_arr_begin(&w);
        jw_str(&w, note);
        jw_arr_end(&w);
        jw_obj_end(&w);
        if (jw_finish(&w)) rc = EXIT_IO;
        fputc('\n', o.f);
    } else {
        out_table *t = cli_table(a, &o, cmp_cols, NC);
        for (size_t i = 0; t && i < n; i++) {
            const etp_cmp_row *x = etp_cmp_row_get(r, i);
            const etp_tensor_view *v = x->status == ETP_CMP_ONLY_NEW ? &x->new_ : &x->base;
            bool m = x->status == ETP_CMP_MATCHED;
            out_row_begin(t);
            out_cell_str(t, etp_cmp_status_name(x->status));
            out_cell_uint(t, x->run);
            out_cell_int(t, x->instruction_id);
            out_cell_uint(t, x->occurrence);
            out_cell_bool(t, x->output);
            out_cell_str(t, x->op_base);
            out_cell_str(t, etp_scalar_type_name(v->scalar_type));
            out_cell_uint(t, v->numel);
            out_cell_float(t, m ? x->cmp.mse : NAN);
            out_cell_float(t, m ? x->cmp.max_abs : NAN);
            out_cell_float(t, m ? x->cmp.l1 : NAN);
            if (m && isinf(x->cmp.snr_db)) out_cell_str(t, x->cmp.snr_db > 0 ? "inf" : "-inf");
            else out_cell_float(t, m ? x->cmp.snr_db : NAN);
            out_cell_float(t, m ? x->cmp.cosine : NAN);
            out_row_end(t);
        }
        if (t) {
            out_table_note(t, note);
            out_table_note(t, "values are the tensors' own data (no unit); SNR = 10 log10(sum "
                              "base^2 / sum (base - new)^2), inf when identical");
            if (out_table_finish(t)) rc = EXIT_IO;
            out_table_free(t);
        } else rc = EXIT_INTERNAL;
    }
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
