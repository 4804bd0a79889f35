/* cmd_tensors.c - `etprof tensors RUN.etdp --debug-buffer X.bin [--pte P]`: every tensor (and
 * inline value) the runtime logged, decoded from the debug buffer (include/etprof_tensor.h);
 * the decoding and the statistics are the library's, this file only renders. */
#include "cli.h"
#include "etprof_tensor.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

static const out_col tensor_cols[] = {
    {"block", "block", OUT_UINT, 0},
    {"event", "event", OUT_UINT, 0},
    {"instruction_id", "instr", OUT_INT, 0},
    {"output", "output", OUT_BOOL, 0},
    {"operator", "operator", OUT_STR, 0},
    {"entry", "entry", OUT_STR, 0},
    {"dtype", "dtype", OUT_STR, 0},
    {"shape", "shape", OUT_STR, 0},
    {"strides", "strides", OUT_STR, 0},
    {"offset", "offset (bytes)", OUT_INT, 0},
    {"numel", "numel", OUT_UINT, 0},
    {"min", "min", OUT_FLOAT, -1},
    {"max", "max", OUT_FLOAT, -1},
    {"mean", "mean", OUT_FLOAT, -1},
    {"std", "std", OUT_FLOAT, -1},
    {"nan", "NaN", OUT_UINT, 0},
    {"inf", "Inf", OUT_UINT, 0},
    {"zero_fraction", "zero fraction", OUT_FLOAT, 4},
    {"values", "first values", OUT_STR, 0},
};
#define NCOLS (sizeof tensor_cols / sizeof tensor_cols[0])

static void dims(char *b, size_t n, const int64_t *d, uint32_t rank) {
    size_t k = (size_t)snprintf(b, n, "[");
    for (uint32_t i = 0; i < rank && k < n; i++)
        k += (size_t)snprintf(b + k, n - k, "%s%lld", i ? ", " : "", (long long)d[i]);
    if (k < n) snprintf(b + k, n - k, "]");
}

typedef struct tctx {
    const char *dump_dir; /* --dump DIR, or NULL */
    uint64_t written;     /* .npy files written */
    cli_args *a;
    out_table *t;
    jw w;
    bool json;
    uint32_t nvalues;
} tctx;

/* One row: a tensor (view) or an inline value (v NULL, x the value). */
static void row(tctx *c, const etp_block_view *bv, const etp_mevent *e, const char *entry,
                const char *dtype, const etp_tensor_view *v, double x, bool output) {
    etp_tensor_stats st;
    memset(&st, 0, sizeof st);
    if (v) etp_tensor_stats_compute(v, &st);
    else {
        st.numel = 1;
        st.min = st.max = st.mean = x;
        st.std = 0;
        st.zeros = x == 0;
        st.nan = isnan(x);
        st.inf = isinf(x);
    }
    char shape[256] = "", strides[256] = "", op[256] = "";
    if (v) {
        dims(shape, sizeof shape, v->sizes, v->rank);
        if (v->strided) dims(strides, sizeof strides, v->strides, v->rank);
    }
    if (e->op_name)
        snprintf(op, sizeof op, "%s%s%s", e->op_name, e->op_overload && *e->op_overload ? "." : "",
                 e->op_overload ? e->op_overload : "");
    uint64_t nv = v ? (v->base ? v->numel : 0) : 1;
    if (nv > c->nvalues) nv = c->nvalues;
    double zf = st.numel ? (double)st.zeros / (double)st.numel : NAN;
    if (c->json) {
        jw *w = &c->w;
        jw_obj_begin(w);
        jw_key(w, "block"); jw_uint(w, bv->block);
        jw_key(w, "event"); jw_uint(w, e->index);
        jw_key(w, "instruction_id"); jw_int(w, e->instr);
        jw_key(w, "chain_index"); jw_int(w, e->chain);
        jw_key(w, "output"); jw_bool(w, output);
        jw_key(w, "method"); jw_str(w, bv->method);
        jw_key(w, "operator"); jw_str(w, *op ? op : NULL);
        jw_key(w, "delegate_debug_id_int");
        jw_int(w, e->ev.debug.delegate_debug_id_int);
        jw_key(w, "entry"); jw_str(w, entry);
        jw_key(w, "dtype"); jw_str(w, dtype);
        jw_key(w, "shape");
        jw_arr_begin(w);
        for (uint32_t d = 0; v && d < v->rank; d++) jw_int(w, v->sizes[d]);
        jw_arr_end(w);
        jw_key(w, "strides");
        jw_arr_begin(w);
        for (uint32_t d = 0; v && d < v->rank; d++) jw_int(w, v->strides[d]);
        jw_arr_end(w);
        jw_key(w, "offset");
        if (v) jw_int(w, v->offset);
        else jw_null(w);
        jw_key(w, "numel"); jw_uint(w, st.numel);
        jw_key(w, "min"); jw_double(w, st.min);
        jw_key(w, "max"); jw_double(w, st.max);
        jw_key(w, "mean"); jw_double(w, st.mean);
        jw_key(w, "std"); jw_double(w, st.std);
        jw_key(w, "nan"); jw_uint(w, st.nan);
        jw_key(w, "inf"); jw_uint(w, st.inf);
        jw_key(w, "zero_fraction"); jw_double(w, zf);
        jw_key(w, "values");
        jw_arr_begin(w);
        for (uint64_t i = 0; i < nv; i++) { /* JSON has no NaN/Inf: those as strings */
            double y = v ? etp_tensor_get(v, i) : x;
            if (isnan(y)) jw_str(w, "NaN");
            else if (isinf(y)) jw_str(w, y > 0 ? "Infinity" : "-Infinity");
            else jw_double(w, y);
        }
        jw_arr_end(w);
        jw_obj_end(w);
        return;
    }
    char vals[512];
    size_t k = (size_t)snprintf(vals, sizeof vals, "[");
    for (uint64_t i = 0; i < nv && k < sizeof vals; i++)
        k += (size_t)snprintf(vals + k, sizeof vals - k, "%s%.9g", i ? ", " : "",
                              v ? etp_tensor_get(v, i) : x);
    if (k < sizeof vals)
        snprintf(vals + k, sizeof vals - k, "%s]", (v && v->numel > nv) ? ", ..." : "");
    out_row_begin(c->t);
    out_cell_uint(c->t, bv->block);
    out_cell_uint(c->t, e->index);
    out_cell_int(c->t, e->instr);
    out_cell_bool(c->t, output);
    out_cell_str(c->t, *op ? op : NULL);
    out_cell_str(c->t, entry);
    out_cell_str(c->t, dtype);
    out_cell_str(c->t, v ? shape : NULL);
    out_cell_str(c->t, *strides ? strides : NULL);
    if (v) out_cell_int(c->t, v->offset);
    else out_cell_null(c->t);
    out_cell_uint(c->t, st.numel);
    out_cell_float(c->t, st.min);
    out_cell_float(c->t, st.max);
    out_cell_float(c->t, st.mean);
    out_cell_float(c->t, st.std);
    out_cell_uint(c->t, st.nan);
    out_cell_uint(c->t, st.inf);
    out_cell_float(c->t, zf);
    out_cell_str(c->t, vals);
    out_row_end(c->t);
}

/* --dump DIR: the tensor as DIR/b<block>_e<event>_i<instruction>[_l<k>][_output].npy. */
static int dump_npy(tctx *c, const etp_block_view *bv, const etp_mevent *e, int list_k,
                    bool output, const etp_tensor_view *v) {
    char path[4096];
    char lk[24] = "";
    if (list_k >= 0) snprintf(lk, sizeof lk, "_l%d", list_k);
    snprintf(path, sizeof path, "%s/b%u_e%u_i%d%s%s.npy", c->dump_dir, bv->block, e->index,
             (int)e->instr, lk, output ? "_output" : "");
    FILE *f = fopen(path, "wb");
    if (!f) {
        cli_errorf("tensors: %s: cannot create: %s", path, strerror(errno));
        return EXIT_IO;
    }
    int rc = etp_tensor_write_npy(v, f);
    int e1 = errno;
    if (fclose(f) && !rc) {
        rc = ETP_E_IO;
        e1 = errno;
    }
    if (rc) {
        cli_errorf("tensors: %s: write failed: %s", path, strerror(e1 ? e1 : EIO));
        remove(path);
        return EXIT_IO;
    }
    c->written++;
    return EXIT_OK;
}

static int run_tensors(cli_args *a) {
    const char *path = a->pos[0];
    if (a->fmt_set && a->fmt == OUT_JSONL) {
        cli_errorf("tensors: --format jsonl is not supported; use json");
        return EXIT_USAGE;
    }
    etp_blob dbuf;
    memset(&dbuf, 0, sizeof dbuf);
    etp_error err = {0};
    if (a->set[OPT_DEBUG_BUFFER]) {
        int r0 = etp_blob_open(&dbuf, a->val[OPT_DEBUG_BUFFER], &err);
        if (r0) {
            cli_error(&err);
            return cli_exit_for(r0);
        }
    }
    cli_inputs in;
    int rc = cli_open_inputs(a, path, &in);
    if (rc) {
        etp_blob_close(&dbuf);
        return rc;
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        cli_close_inputs(&in);
        etp_blob_close(&dbuf);
        return rc;
    }
    tctx c;
    memset(&c, 0, sizeof c);
    c.a = a;
    if (a->set[OPT_DUMP_DIR]) {
        c.dump_dir = a->val[OPT_DUMP_DIR];
        struct stat sb;
        if (mkdir(c.dump_dir, 0777) && (errno != EEXIST || stat(c.dump_dir, &sb) ||
                                        !S_ISDIR(sb.st_mode))) {
            cli_errorf("tensors: --dump %s: cannot make the directory: %s", c.dump_dir,
                       strerror(errno == EEXIST ? ENOTDIR : errno));
            cli_close_inputs(&in);
            etp_blob_close(&dbuf);
            cli_out_close(&o, EXIT_USAGE);
            return EXIT_USAGE;
        }
    }
    c.nvalues = 8;
    c.json = a->fmt == OUT_JSON;
    if (c.json) {
        jw_init(&c.w, o.f, true);
        jw_obj_begin(&c.w);
        jw_key(&c.w, "schema_version"); jw_int(&c.w, 1);
        jw_key(&c.w, "file"); jw_str(&c.w, path);
        jw_key(&c.w, "debug_buffer");
        jw_str(&c.w, a->set[OPT_DEBUG_BUFFER] ? a->val[OPT_DEBUG_BUFFER] : NULL);
        jw_key(&c.w, "tensors");
        jw_arr_begin(&c.w);
    } else {
        c.t = cli_table(a, &o, tensor_cols, NCOLS);
        static const char *const drop[] = {"strides:9", "inf:8", "nan:7", "std:6", "mean:5",
                                           "zero_fraction:4", "offset:3", "event:2", NULL};
        if (c.t) out_table_set_droppable(c.t, drop);
    }
    const etp_dump_info *di = etp_dump_get_info(in.dump);
    uint64_t n = 0;
    for (uint32_t b = 0; b < di->block_count && !rc; b++) {
        etp_block_view bv;
        if ((rc = etp_model_block(in.model, b, &bv, &err))) {
            cli_error(&err);
            rc = cli_exit_for(rc);
            break;
        }
        for (uint32_t i = 0; i < bv.n && !rc; i++) {
            const etp_mevent *e = &bv.events[i];
            if (e->ev.type != ETP_EVENT_DEBUG || !e->ev.debug.has_debug_entry) continue;
            const etp_value *val = &e->ev.debug.debug_entry;
            bool output = val->has_output && val->output;
            char p[160];
            snprintf(p, sizeof p, "run_data[%u].events[%u].debug_event.debug_entry.tensor", b, i);
            if (val->val == ETP_VAL_TENSOR && val->has_tensor) {
                etp_tensor_view v;
                if ((rc = etp_tensor_view_init(&val->tensor, a->set[OPT_DEBUG_BUFFER] ? &dbuf : NULL,
                                               p, &v, &err))) {
                    cli_error(&err);
                    rc = cli_exit_for(rc);
                    break;
                }
                row(&c, &bv, e, "tensor", etp_scalar_type_name(v.scalar_type), &v, 0, output);
                n++;
                if (c.dump_dir) rc = dump_npy(&c, &bv, e, -1, output, &v);
            } else if (val->val == ETP_VAL_TENSOR_LIST && val->has_tensor_list) {
                for (uint32_t k = 0; k < val->tensor_list_len && !rc; k++) {
                    etp_tensor tk;
                    etp_value_tensor_list_get(val, k, &tk);
                    char ent[32], pk[200];
                    snprintf(ent, sizeof ent, "tensor_list[%u]", k);
                    snprintf(pk, sizeof pk, "run_data[%u].events[%u].debug_event.debug_entry."
                             "tensor_list.tensors[%u]", b, i, k);
                    etp_tensor_view v;
                    if ((rc = etp_tensor_view_init(&tk, a->set[OPT_DEBUG_BUFFER] ? &dbuf : NULL,
                                                   pk, &v, &err))) {
                        cli_error(&err);
                        rc = cli_exit_for(rc);
                        break;
                    }
                    row(&c, &bv, e, ent, etp_scalar_type_name(v.scalar_type), &v, 0, output);
                    n++;
                    if (c.dump_dir) rc = dump_npy(&c, &bv, e, (int)k, output, &v);
                }
            } else if (val->val == ETP_VAL_INT && val->has_int) {
                row(&c, &bv, e, "int", "int64", NULL, (double)val->int_val, output);
                n++;
            } else if (val->val == ETP_VAL_BOOL && val->has_bool) {
                row(&c, &bv, e, "bool", "bool", NULL, val->bool_val, output);
                n++;
            } else if (val->val == ETP_VAL_FLOAT && val->has_float) {
                row(&c, &bv, e, "float", "float32", NULL, val->float_val, output);
                n++;
            } else if (val->val == ETP_VAL_DOUBLE && val->has_double) {
                row(&c, &bv, e, "double", "float64", NULL, val->double_val, output);
                n++;
            }
        }
        if (c.json) jw_flush(&c.w);
    }
    if (c.json) {
        jw_arr_end(&c.w);
        jw_obj_end(&c.w);
        if (jw_finish(&c.w) && !rc) rc = EXIT_IO;
        fputc('\n', o.f);
    } else if (c.t) {
        if (!rc && n == 0)
            out_table_note(c.t, "no logged values: run with intermediate-output logging "
                                "(etdump_runner --debug_level intermediate, or "
                                "ETDumpGen::set_debug_buffer + event_tracer_debug_level)");
        if (out_table_finish(c.t) && !rc) rc = EXIT_IO;
        out_table_free(c.t);
    }
    cli_close_inputs(&in);
    etp_blob_close(&dbuf);
    return cli_out_close(&o, rc);
}

static const opt_id tensors_opts[] = {OPT_DEBUG_BUFFER, OPT_DUMP_DIR, OPT_PTE, OPT_METHOD, OPT_IGNORE_MISMATCH, 0};

const cli_cmd cmd_tensors = {
    .name = "tensors",
    .summary = "the tensors and values the runtime logged, decoded from the debug buffer",
    .usage = "FILE --debug-buffer X.bin [--pte P] [--dump DIR]",
    .help = "One row per logged value (intermediate outputs and method outputs): instruction,\n"
            "operator (with --pte), dtype, shape, strides (when not row-major), byte offset in\n"
            "the debug buffer, element count, min/max/mean/std over the finite values, NaN and\n"
            "Inf counts, the fraction of zeros and the first values. Every ScalarType of the\n"
            "schema is decoded (HALF, BFLOAT16, FLOAT8 variants, BOOL, quantized, unsigned), and\n"
            "strides are honoured. A tensor whose bytes lie outside the buffer, or a missing\n"
            "--debug-buffer, is a located error, never zeros. --dump DIR also writes each tensor\n"
            "as DIR/b<block>_e<event>_i<instruction>[_l<k>][_output].npy (NumPy's format;\n"
            "BFLOAT16 and FLOAT8 widened to float32). JSON: docs/json-contract.md.",
    .opts = tensors_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_tensors,
};
