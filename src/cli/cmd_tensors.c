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

static const etp_col tensor_cols[] = {
    {"block", "block", NULL, ETP_T_UINT, false, 0},
    {"event", "event", NULL, ETP_T_UINT, false, 0},
    {"instruction_id", "instr", NULL, ETP_T_INT, false, 0},
    {"output", "output", NULL, ETP_T_BOOL, false, 0},
    {"operator", "operator", NULL, ETP_T_STR, true, 0},
    {"entry", "entry", NULL, ETP_T_STR, false, 0},
    {"dtype", "dtype", NULL, ETP_T_STR, false, 0},
    {"shape", "shape", NULL, ETP_T_STR, true, 0},
    {"strides", "strides", NULL, ETP_T_STR, true, 0},
    {"offset", "offset", "bytes", ETP_T_INT, true, 0},
    {"numel", "numel", NULL, ETP_T_UINT, false, 0},
    {"min", "min", NULL, ETP_T_FLOAT, true, -1},
    {"max", "max", NULL, ETP_T_FLOAT, true, -1},
    {"mean", "mean", NULL, ETP_T_FLOAT, true, -1},
    {"std", "std", NULL, ETP_T_FLOAT, true, -1},
    {"nan", "NaN", NULL, ETP_T_UINT, false, 0},
    {"inf", "Inf", NULL, ETP_T_UINT, false, 0},
    {"zero_fraction", "zero fraction", NULL, ETP_T_FLOAT, true, 4},
    {"values", "first values", NULL, ETP_T_STR, false, 0},
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
    bool npy_pass;        /* the second pass: only the .npy files of --dump (no rows) */
    uint64_t written;     /* .npy files written */
    cli_args *a;
    etp_node *json; /* the "tensors" array of the JSON view */
    etp_table *t;   /* the table of the other views */
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
    etp_node *w = etp_node_obj(c->json, NULL);
    etp_node_uint(w, "block", bv->block);
    etp_node_uint(w, "event", e->index);
    etp_node_int(w, "instruction_id", e->instr);
    etp_node_int(w, "chain_index", e->chain);
    etp_node_bool(w, "output", output);
    etp_node_str(w, "method", bv->method);
    etp_node_str(w, "operator", *op ? op : NULL);
    etp_node_int(w, "delegate_debug_id_int", e->ev.debug.delegate_debug_id_int);
    etp_node_str(w, "entry", entry);
    etp_node_str(w, "dtype", dtype);
    etp_node *arr = etp_node_arr(w, "shape");
    for (uint32_t d = 0; v && d < v->rank; d++) etp_node_int(arr, NULL, v->sizes[d]);
    arr = etp_node_arr(w, "strides");
    for (uint32_t d = 0; v && d < v->rank; d++) etp_node_int(arr, NULL, v->strides[d]);
    if (v) etp_node_int(w, "offset", v->offset);
    else etp_node_null(w, "offset");
    etp_node_uint(w, "numel", st.numel);
    etp_node_float(w, "min", st.min);
    etp_node_float(w, "max", st.max);
    etp_node_float(w, "mean", st.mean);
    etp_node_float(w, "std", st.std);
    etp_node_uint(w, "nan", st.nan);
    etp_node_uint(w, "inf", st.inf);
    etp_node_float(w, "zero_fraction", zf);
    arr = etp_node_arr(w, "values");
    for (uint64_t i = 0; i < nv; i++) { /* JSON has no NaN/Inf: those as strings */
        double y = v ? etp_tensor_get(v, i) : x;
        if (isnan(y)) etp_node_str(arr, NULL, "NaN");
        else if (isinf(y)) etp_node_str(arr, NULL, y > 0 ? "Infinity" : "-Infinity");
        else etp_node_float(arr, NULL, y);
    }
    char vals[512];
    size_t k = (size_t)snprintf(vals, sizeof vals, "[");
    for (uint64_t i = 0; i < nv && k < sizeof vals; i++)
        k += (size_t)snprintf(vals + k, sizeof vals - k, "%s%.9g", i ? ", " : "",
                              v ? etp_tensor_get(v, i) : x);
    if (k < sizeof vals)
        snprintf(vals + k, sizeof vals - k, "%s]", (v && v->numel > nv) ? ", ..." : "");
    etp_table_row(c->t);
    etp_table_uint(c->t, bv->block);
    etp_table_uint(c->t, e->index);
    etp_table_int(c->t, e->instr);
    etp_table_bool(c->t, output);
    etp_table_str(c->t, *op ? op : NULL);
    etp_table_str(c->t, entry);
    etp_table_str(c->t, dtype);
    etp_table_str(c->t, v ? shape : NULL);
    etp_table_str(c->t, *strides ? strides : NULL);
    if (v) etp_table_int(c->t, v->offset);
    else etp_table_null(c->t);
    etp_table_uint(c->t, st.numel);
    etp_table_float(c->t, st.min);
    etp_table_float(c->t, st.max);
    etp_table_float(c->t, st.mean);
    etp_table_float(c->t, st.std);
    etp_table_uint(c->t, st.nan);
    etp_table_uint(c->t, st.inf);
    etp_table_float(c->t, zf);
    etp_table_str(c->t, vals);
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

/* One pass over every logged value: the rows (c->npy_pass false), or the .npy files of --dump.
 * *n_out: the values logged, *nsel_out: those --select kept. EXIT_OK, or the exit code of the
 * error it printed. */
static int walk(tctx *c, cli_inputs *in, const etp_tensor_select *sel, const etp_blob *dbuf,
                uint64_t *n_out, uint64_t *nsel_out) {
    const etp_dump_info *di = etp_dump_get_info(in->dump);
    etp_error err = {0};
    int rc = EXIT_OK;
    uint64_t n = 0, nsel = 0;
    uint32_t run = 0; /* runs (blocks) that logged values so far: --select run=N */
    for (uint32_t b = 0; b < di->block_count && !rc; b++) {
        etp_block_view bv;
        if ((rc = etp_model_block(in->model, b, &bv, &err))) {
            cli_error(&err);
            rc = cli_exit_for(rc);
            break;
        }
        bool logged = false;
        for (uint32_t i = 0; i < bv.n && !rc; i++) {
            const etp_mevent *e = &bv.events[i];
            if (e->ev.type != ETP_EVENT_DEBUG || !e->ev.debug.has_debug_entry) continue;
            const etp_value *val = &e->ev.debug.debug_entry;
            bool output = val->has_output && val->output;
            if ((val->val == ETP_VAL_TENSOR && val->has_tensor) ||
                (val->val == ETP_VAL_TENSOR_LIST && val->has_tensor_list) ||
                (val->val == ETP_VAL_INT && val->has_int) ||
                (val->val == ETP_VAL_BOOL && val->has_bool) ||
                (val->val == ETP_VAL_FLOAT && val->has_float) ||
                (val->val == ETP_VAL_DOUBLE && val->has_double))
                logged = true;
            else
                continue;
            n++;
            if (!etp_tensor_select_match(sel, b, run, e->instr, e->op_name, e->op_overload))
                continue;
            nsel++;
            char p[160];
            snprintf(p, sizeof p, "run_data[%u].events[%u].debug_event.debug_entry.tensor", b, i);
            if (val->val == ETP_VAL_TENSOR && val->has_tensor) {
                etp_tensor_view v;
                if ((rc = etp_tensor_view_init(&val->tensor, dbuf,
                                               p, &v, &err))) {
                    cli_error(&err);
                    rc = cli_exit_for(rc);
                    break;
                }
                if (c->npy_pass) rc = dump_npy(c, &bv, e, -1, output, &v);
                else row(c, &bv, e, "tensor", etp_scalar_type_name(v.scalar_type), &v, 0, output);
            } else if (val->val == ETP_VAL_TENSOR_LIST && val->has_tensor_list) {
                for (uint32_t k = 0; k < val->tensor_list_len && !rc; k++) {
                    etp_tensor tk;
                    etp_value_tensor_list_get(val, k, &tk);
                    char ent[32], pk[200];
                    snprintf(ent, sizeof ent, "tensor_list[%u]", k);
                    snprintf(pk, sizeof pk, "run_data[%u].events[%u].debug_event.debug_entry."
                             "tensor_list.tensors[%u]", b, i, k);
                    etp_tensor_view v;
                    if ((rc = etp_tensor_view_init(&tk, dbuf,
                                                   pk, &v, &err))) {
                        cli_error(&err);
                        rc = cli_exit_for(rc);
                        break;
                    }
                    if (c->npy_pass) rc = dump_npy(c, &bv, e, (int)k, output, &v);
                    else row(c, &bv, e, ent, etp_scalar_type_name(v.scalar_type), &v, 0, output);
                }
            } else if (c->npy_pass) {
                continue; /* an inline value has no .npy file */
            } else if (val->val == ETP_VAL_INT && val->has_int) {
                row(c, &bv, e, "int", "int64", NULL, (double)val->int_val, output);
            } else if (val->val == ETP_VAL_BOOL && val->has_bool) {
                row(c, &bv, e, "bool", "bool", NULL, val->bool_val, output);
            } else if (val->val == ETP_VAL_FLOAT && val->has_float) {
                row(c, &bv, e, "float", "float32", NULL, val->float_val, output);
            } else if (val->val == ETP_VAL_DOUBLE && val->has_double) {
                row(c, &bv, e, "double", "float64", NULL, val->double_val, output);
            }
        }
        if (logged) run++;
    }
    *n_out = n;
    *nsel_out = nsel;
    return rc;
}

static int run_tensors(cli_args *a) {
    const char *path = a->pos[0];
    if (a->fmt_set && a->fmt == ETP_FMT_JSONL) {
        cli_errorf("tensors: --format jsonl is not supported; use json");
        return EXIT_USAGE;
    }
    etp_blob dbuf;
    memset(&dbuf, 0, sizeof dbuf);
    etp_error err = {0};
    etp_tensor_select sel;
    if (etp_tensor_select_parse(a->set[OPT_SELECT] ? a->val[OPT_SELECT] : "", &sel, &err)) {
        cli_errorf("tensors: --select: %s: %s", err.path, err.msg);
        return EXIT_USAGE;
    }
    if (a->set[OPT_DEBUG_BUFFER]) {
        int r0 = cli_open_debug_buffer(&dbuf, a->val[OPT_DEBUG_BUFFER]);
        if (r0) return r0;
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
    c.nvalues = 8;
    /* one document: the JSON view {schema_version, file, debug_buffer, tensors} (no notes), the
     * table (with its note) for the others */
    etp_doc *doc = etp_doc_new("tensors", 1, path, NULL);
    etp_doc_envelope(doc, ETP_ENV_FILE);
    etp_doc_json_omit(doc, ETP_JSON_NO_NOTES);
    etp_node *root = etp_doc_root(doc);
    etp_node_str(root, "debug_buffer", a->set[OPT_DEBUG_BUFFER] ? a->val[OPT_DEBUG_BUFFER] : NULL);
    if (a->set[OPT_SELECT]) etp_node_str(root, "select", a->val[OPT_SELECT]);
    c.json = etp_node_arr(root, "tensors");
    c.t = etp_doc_table(doc, tensor_cols, NCOLS);
    static const char *const drop[] = {"strides:9", "inf:8", "nan:7", "std:6", "mean:5",
                                       "zero_fraction:4", "offset:3", "event:2", NULL};
    etp_table_droppable(c.t, drop);
    etp_section_table(etp_doc_section(doc, "tensors"), c.t);
    etp_doc_flat(doc, c.t);
    /* Every value is decoded and checked, and its row made, before anything is written
     * (issue 35): an input error is then exit 1 with no output (no rows of the values before it
     * on stdout, no .npy files); the .npy files of --dump come from a second pass once every
     * tensor is known to be sound. */
    uint64_t n = 0, nsel = 0;
    rc = walk(&c, &in, &sel, a->set[OPT_DEBUG_BUFFER] ? &dbuf : NULL, &n, &nsel);
    if (!rc && n == 0)
        etp_table_note(c.t, "no logged values: run with intermediate-output logging "
                            "(etdump_runner --debug_level intermediate, or "
                            "ETDumpGen::set_debug_buffer + event_tracer_debug_level)");
    if (!rc && a->set[OPT_SELECT]) {
        char note[640];
        snprintf(note, sizeof note, "--select %s: %llu of %llu logged values selected%s",
                 a->val[OPT_SELECT], (unsigned long long)nsel, (unsigned long long)n,
                 sel.has_op && !a->set[OPT_PTE] ? " (op= needs --pte: without the program no "
                                                   "value has an operator name)" : "");
        etp_table_note(c.t, note);
    }
    if (!rc && a->set[OPT_DUMP_DIR]) {
        c.dump_dir = a->val[OPT_DUMP_DIR];
        struct stat sb;
        if (mkdir(c.dump_dir, 0777) && (errno != EEXIST || stat(c.dump_dir, &sb) ||
                                        !S_ISDIR(sb.st_mode))) {
            cli_errorf("tensors: --dump %s: cannot make the directory: %s", c.dump_dir,
                       strerror(errno == EEXIST ? ENOTDIR : errno));
            rc = EXIT_USAGE;
        } else {
            c.npy_pass = true;
            uint64_t n2, nsel2;
            rc = walk(&c, &in, &sel, a->set[OPT_DEBUG_BUFFER] ? &dbuf : NULL, &n2, &nsel2);
        }
    }
    if (!rc) rc = cli_render(a, &o, doc);
    etp_doc_free(doc);
    cli_close_inputs(&in);
    etp_blob_close(&dbuf);
    return cli_out_close(&o, rc);
}

static const opt_id tensors_opts[] = {OPT_DEBUG_BUFFER, OPT_DUMP_DIR, OPT_PTE, OPT_METHOD,
                                      OPT_IGNORE_MISMATCH, OPT_SELECT, 0};

const cli_cmd cmd_tensors = {
    .name = "tensors",
    .summary = "the tensors and values the runtime logged, decoded from the debug buffer",
    .usage = "FILE --debug-buffer X.bin [--pte P] [--dump DIR] [--select EXPR]",
    .help = "One row per logged value (intermediate outputs and method outputs): instruction,\n"
            "operator (with --pte), dtype, shape, strides (when not row-major), byte offset in\n"
            "the debug buffer, element count, min/max/mean/std over the finite values, NaN and\n"
            "Inf counts, the fraction of zeros and the first values. Every ScalarType of the\n"
            "schema is decoded (HALF, BFLOAT16, FLOAT8 variants, BOOL, quantized, unsigned), and\n"
            "strides are honoured. A tensor whose bytes lie outside the buffer, or a missing\n"
            "--debug-buffer, is a located error, never zeros. --dump DIR also writes each tensor\n"
            "as DIR/b<block>_e<event>_i<instruction>[_l<k>][_output].npy (NumPy's format;\n"
            "BFLOAT16 and FLOAT8 widened to float32). --select EXPR keeps only some values, in\n"
            "the table, the JSON and --dump: instr=N or A-B, run=N or A-B (runs that logged\n"
            "values, from 0), block=N or A-B, op=TEXT (the operator \"aten.add.out\" contains\n"
            "TEXT) or op==TEXT (is TEXT), joined by commas (all must hold); docs/tensors.md.\n"
            "JSON: docs/json-contract.md.",
    .opts = tensors_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_tensors,
};
