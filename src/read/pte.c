/* pte.c - ExecuTorch program (.pte) and bundled program (.bpte) verification and access.
 *
 * Field ids (declaration order of schema/program.fbs; a union takes two slots):
 *   Program{version 0, execution_plan 1, constant_buffer 2, backend_delegate_data 3, segments 4,
 *           constant_segment 5, mutable_data_segments 6, named_data 7}
 *   ExecutionPlan{name 0, container_meta_type 1, values 2, inputs 3, outputs 4, chains 5,
 *                 operators 6, delegates 7, non_const_buffer_sizes 8, non_const_buffer_device 9
 *                 (newer programs, read when asked: etp_program_buffer_devices)}
 *   NonConstBufferDevice{buffer_idx 0, device_type 1, device_index 2}
 *   Tensor{.., extra_tensor_info 9}  ExtraTensorInfo{.., device_type 3, device_index 4}
 *   Chain{inputs 0, outputs 1, instructions 2, stacktrace 3}
 *   Instruction{instr_args_type 0, instr_args 1}: 1 KernelCall{op_index, args},
 *     2 DelegateCall{delegate_index, args}, 3 MoveCall{move_from, move_to},
 *     4 JumpFalseCall{cond_value_index, destination_instruction}, 5 FreeCall{value_index}
 *   Operator{name 0, overload 1}  BackendDelegate{id 0, processed 1, compile_specs 2}
 *   BackendDelegateDataReference{location 0, index 1}  CompileSpec{key 0, value 1}
 *   FrameList{items 0}  Frame{filename 0, lineno 1, name 2, context 3}
 *   BundledProgram{version 0, method_test_suites 1, program 2}
 * Only what etprof reads is verified; the rest of the program (values, constants, segments'
 * contents) is never touched.
 */
#include "etprof.h"
#include "etdump_int.h"
#include "fb.h"
#include "membudget.h"
#include "sniff.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct chain {
    uint32_t instr_vec, n_instr;
    uint32_t st_vec, n_st;
} chain;

typedef struct plan {
    uint32_t table;
    uint32_t chains_vec, n_chains;
    uint32_t ops_vec, n_ops;
    uint32_t dels_vec, n_dels;
    chain *chains;
} plan;

/* Program.segments[i], read once at open (quietly: a segment the runtime could not read is
 * "unreadable" here, never an error of the whole program; etp_program_segment says where). */
typedef struct segment {
    uint64_t offset, size;
    bool ok; /* its table and both fields lie inside the buffer */
} segment;

struct etp_program {
    const uint8_t *buf;
    uint32_t size;
    etp_program_info info;
    plan *plans;
    segment *segs; /* info.segment_count entries */
    const char *file; /* the blob's name, for etp_program_segment's errors */
    int64_t base;     /* file offset of buf[0] */
    uint64_t charged; /* of the memory budget: ETP_MEM_PER_METHOD a method, until close */
};

/* Charged per method while the program is open (docs/verifier.md "Memory"): its record here
 * and what the commands build per method (a model's tables, `info`'s row or JSON object for
 * it: about 1.9 KB measured on 10^6 methods), so that a program of a million tiny methods
 * (28 MB) is refused at open instead of taking 1.9 GB in `info --format json`. */
#define ETP_MEM_PER_METHOD 2048u

#define TRY(x)                                                                                    \
    do {                                                                                          \
        int rc_ = (x);                                                                            \
        if (rc_) return rc_;                                                                      \
    } while (0)

static int verify_scalars(fbv *v, uint32_t t, const char *const *names, const unsigned *sizes,
                          unsigned n) {
    for (unsigned id = 0; id < n; id++) {
        if (!names[id]) continue;
        fbv_push(v, names[id]);
        if (sizes[id] == 0) TRY(fbv_string(v, t, id));
        else TRY(fbv_scalar(v, t, id, sizes[id]));
        fbv_pop(v);
    }
    return ETP_OK;
}

static int verify_int_vec(fbv *v, uint32_t t, unsigned id, const char *name, unsigned elem) {
    uint32_t vec, n;
    fbv_push(v, name);
    TRY(fbv_vector(v, t, id, elem, &vec, &n));
    fbv_pop(v);
    return ETP_OK;
}

static int verify_instruction(fbv *v, uint32_t t) {
    TRY(fbv_table(v, t));
    fbv_push(v, "instr_args_type");
    TRY(fbv_scalar(v, t, 0, 1));
    uint8_t type = fb_get_u8(v->buf, t, 0, 0);
    if (type > 5)
        return fbv_fail(v, t + fb_field(v->buf, t, 0),
                        "unknown instruction type %u (known: 1 KernelCall .. 5 FreeCall)", type);
    fbv_pop(v);
    static const char *const tname[6] = {"", "KernelCall", "DelegateCall", "MoveCall",
                                         "JumpFalseCall", "FreeCall"};
    uint32_t a;
    fbv_push(v, "instr_args");
    TRY(fbv_ref(v, t, 1, &a));
    if (type && !a) return fbv_fail(v, t, "%s instruction has no arguments table", tname[type]);
    if (!type && a) return fbv_fail(v, t, "instruction has arguments but no type");
    if (a) {
        fbv_push(v, tname[type]);
        TRY(fbv_table(v, a));
        switch (type) {
        case 1:
        case 2:
            fbv_push(v, type == 1 ? "op_index" : "delegate_index");
            TRY(fbv_scalar(v, a, 0, 4));
            fbv_pop(v);
            TRY(verify_int_vec(v, a, 1, "args", 4));
            break;
        case 3:
        case 4:
            fbv_push(v, type == 3 ? "move_from" : "cond_value_index");
            TRY(fbv_scalar(v, a, 0, 4));
            fbv_pop(v);
            fbv_push(v, type == 3 ? "move_to" : "destination_instruction");
            TRY(fbv_scalar(v, a, 1, 4));
            fbv_pop(v);
            break;
        case 5:
            fbv_push(v, "value_index");
            TRY(fbv_scalar(v, a, 0, 4));
            fbv_pop(v);
            break;
        }
        fbv_pop(v);
    }
    fbv_pop(v);
    return ETP_OK;
}

static int verify_frame(fbv *v, uint32_t t) {
    static const char *const names[4] = {"filename", "lineno", "name", "context"};
    static const unsigned sizes[4] = {0, 4, 0, 0};
    TRY(fbv_table(v, t));
    return verify_scalars(v, t, names, sizes, 4);
}

static int verify_table_vec(fbv *v, uint32_t t, unsigned id, const char *name, uint32_t *vec,
                            uint32_t *n, int (*each)(fbv *, uint32_t)) {
    fbv_push(v, name);
    TRY(fbv_vector(v, t, id, 4, vec, n));
    for (uint32_t i = 0; i < *n; i++) {
        uint32_t e;
        fbv_push_index(v, i);
        TRY(fbv_vec_elem(v, *vec, i, &e));
        TRY(each(v, e));
        fbv_pop(v);
    }
    fbv_pop(v);
    return ETP_OK;
}

static int verify_framelist(fbv *v, uint32_t t) {
    uint32_t vec, n;
    TRY(fbv_table(v, t));
    return verify_table_vec(v, t, 0, "items", &vec, &n, verify_frame);
}

static int verify_chain(fbv *v, uint32_t t, chain *c) {
    TRY(fbv_table(v, t));
    TRY(verify_int_vec(v, t, 0, "inputs", 4));
    TRY(verify_int_vec(v, t, 1, "outputs", 4));
    TRY(verify_table_vec(v, t, 2, "instructions", &c->instr_vec, &c->n_instr, verify_instruction));
    TRY(verify_table_vec(v, t, 3, "stacktrace", &c->st_vec, &c->n_st, verify_framelist));
    return ETP_OK;
}

static int verify_operator(fbv *v, uint32_t t) {
    static const char *const names[2] = {"name", "overload"};
    static const unsigned sizes[2] = {0, 0};
    TRY(fbv_table(v, t));
    return verify_scalars(v, t, names, sizes, 2);
}

static int verify_compile_spec(fbv *v, uint32_t t) {
    uint32_t vec, n;
    TRY(fbv_table(v, t));
    fbv_push(v, "key");
    TRY(fbv_string(v, t, 0));
    fbv_pop(v);
    fbv_push(v, "value");
    TRY(fbv_vector(v, t, 1, 1, &vec, &n));
    fbv_pop(v);
    return ETP_OK;
}

static int verify_delegate(fbv *v, uint32_t t) {
    uint32_t p, vec, n;
    TRY(fbv_table(v, t));
    fbv_push(v, "id");
    TRY(fbv_string(v, t, 0));
    fbv_pop(v);
    fbv_push(v, "processed");
    TRY(fbv_ref(v, t, 1, &p));
    if (p) {
        static const char *const names[2] = {"location", "index"};
        static const unsigned sizes[2] = {1, 4};
        TRY(fbv_table(v, p));
        TRY(verify_scalars(v, p, names, sizes, 2));
    }
    fbv_pop(v);
    TRY(verify_table_vec(v, t, 2, "compile_specs", &vec, &n, verify_compile_spec));
    return ETP_OK;
}

static int verify_plan(fbv *v, uint32_t t, plan *pl) {
    uint32_t vec, n;
    TRY(fbv_table(v, t));
    pl->table = t;
    fbv_push(v, "name");
    TRY(fbv_string(v, t, 0));
    fbv_pop(v);
    fbv_push(v, "values");
    TRY(fbv_vector(v, t, 2, 4, &vec, &n));
    fbv_pop(v);
    TRY(verify_int_vec(v, t, 3, "inputs", 4));
    TRY(verify_int_vec(v, t, 4, "outputs", 4));
    fbv_push(v, "chains");
    TRY(fbv_vector(v, t, 5, 4, &pl->chains_vec, &pl->n_chains));
    pl->chains = calloc(pl->n_chains ? pl->n_chains : 1, sizeof *pl->chains);
    if (!pl->chains) {
        etp_error_set(v->err, ETP_E_INTERNAL, v->file, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    for (uint32_t i = 0; i < pl->n_chains; i++) {
        uint32_t e;
        fbv_push_index(v, i);
        TRY(fbv_vec_elem(v, pl->chains_vec, i, &e));
        TRY(verify_chain(v, e, &pl->chains[i]));
        fbv_pop(v);
    }
    fbv_pop(v);
    TRY(verify_table_vec(v, t, 6, "operators", &pl->ops_vec, &pl->n_ops, verify_operator));
    TRY(verify_table_vec(v, t, 7, "delegates", &pl->dels_vec, &pl->n_dels, verify_delegate));
    return ETP_OK;
}

/* Program.segments[i]: its table, offset (field 0) and size (field 1), u64 each. */
static int read_segment(fbv *v, uint32_t vec, uint32_t i, uint64_t *off, uint64_t *size) {
    uint32_t t;
    *off = *size = 0;
    fbv_push(v, "segments");
    fbv_push_index(v, i);
    TRY(fbv_vec_elem(v, vec, i, &t));
    TRY(fbv_table(v, t));
    fbv_push(v, "offset");
    TRY(fbv_scalar(v, t, 0, 8));
    fbv_pop(v);
    fbv_push(v, "size");
    TRY(fbv_scalar(v, t, 1, 8));
    fbv_pop(v);
    fbv_pop(v);
    fbv_pop(v);
    *off = fb_get_u64(v->buf, t, 0, 0);
    *size = fb_get_u64(v->buf, t, 1, 0);
    return ETP_OK;
}

static int verify_program(fbv *v, etp_program *p) {
    uint32_t root = fb_u32(v->buf);
    if ((uint64_t)root + 4 > v->size) {
        fbv_push(v, "root");
        return fbv_fail(v, 0, "root offset %u points outside the buffer", root);
    }
    TRY(fbv_table(v, root));
    fbv_push(v, "version");
    TRY(fbv_scalar(v, root, 0, 4));
    fbv_pop(v);
    p->info.version = fb_get_u32(v->buf, root, 0, 0);
    uint32_t vec, n;
    fbv_push(v, "execution_plan");
    TRY(fbv_vector(v, root, 1, 4, &vec, &n));
    uint64_t budget = etp__mem_budget(), held = 0;
    if (n && !etp__mem_take((uint64_t)n * ETP_MEM_PER_METHOD, budget, &held)) {
        /* the method whose charge passes the budget */
        uint64_t k = held < budget ? (budget - held) / ETP_MEM_PER_METHOD : 0;
        if (k >= n) k = n - 1;
        fbv_push_index(v, (uint32_t)k);
        return fbv_fail(v, vec + 4 + 4 * k,
                        "%u methods would take %.1f MiB, over the memory budget of %.1f MiB "
                        "(docs/verifier.md \"Memory\"): set ETPROF_MEMORY_BUDGET=MiB (0: no "
                        "limit) to allow more memory",
                        n, (double)n * ETP_MEM_PER_METHOD / 1048576.0, (double)budget / 1048576.0);
    }
    p->charged = (uint64_t)n * ETP_MEM_PER_METHOD;
    p->plans = calloc(n ? n : 1, sizeof *p->plans);
    if (!p->plans) {
        etp_error_set(v->err, ETP_E_INTERNAL, v->file, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    p->info.plan_count = n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t e;
        fbv_push_index(v, i);
        TRY(fbv_vec_elem(v, vec, i, &e));
        TRY(verify_plan(v, e, &p->plans[i]));
        fbv_pop(v);
    }
    fbv_pop(v);
    fbv_push(v, "segments");
    TRY(fbv_vector(v, root, 4, 4, &vec, &n));
    fbv_pop(v);
    p->info.segment_count = n;
    p->segs = calloc(n ? n : 1, sizeof *p->segs);
    if (!p->segs) {
        etp_error_set(v->err, ETP_E_INTERNAL, v->file, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    /* Each segment once, quietly: the delegate payload lookups then read this table. */
    fbv q = *v;
    q.err = NULL;
    for (uint32_t i = 0; i < n; i++)
        p->segs[i].ok = read_segment(&q, vec, i, &p->segs[i].offset, &p->segs[i].size) == ETP_OK;
    return ETP_OK;
}

static bool is_program_id(const uint8_t *d) {
    return d[0] == 'E' && d[1] == 'T' && isdigit(d[2]) && isdigit(d[3]);
}

int etp__blob_check_program(const uint8_t *data, size_t size, const char *file,
                            etp_error *err) {
    if (size >= 8 && (is_program_id(data + 4) || memcmp(data + 4, "BP08", 4) == 0)) return ETP_OK;
    char what[160];
    etp_sniff(data, size, what, sizeof what);
    etp_error_set(err, ETP_E_INPUT, file, size < 8 ? 0 : 4, NULL,
                  "not an ExecuTorch program: no identifier ET12 (or BP08) at byte 4%s%s",
                  what[0] ? "; this looks like " : "", what);
    return ETP_E_INPUT;
}

int etp_program_open(etp_program **out, const etp_blob *blob, etp_error *err) {
    *out = NULL;
    const uint8_t *data = blob->data;
    size_t size = blob->size;
    const char *file = blob->name;
    int idrc = etp__blob_check_program(data, size, file, err);
    if (idrc) return idrc;
    if (size > UINT32_MAX) {
        etp_error_set(err, ETP_E_INPUT, file, 0, NULL,
                      "file of %zu bytes exceeds the FlatBuffer 4 GiB limit", size);
        return ETP_E_INPUT;
    }
    etp_program *p = calloc(1, sizeof *p);
    if (!p) {
        etp_error_set(err, ETP_E_INTERNAL, file, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    int rc;
    fbv v = {.buf = data, .size = (uint32_t)size, .base = 0, .file = file, .err = err};
    if (memcmp(data + 4, "BP08", 4) == 0) {
        /* Bundled program: verify the wrapper, then read the embedded program. */
        p->info.bundled = true;
        uint32_t root = fb_u32(data), vec, n;
        fbv_push(&v, "root");
        if ((uint64_t)root + 4 > v.size) {
            rc = fbv_fail(&v, 0, "root offset %u points outside the buffer", root);
            goto fail;
        }
        fbv_pop(&v);
        if ((rc = fbv_table(&v, root))) goto fail;
        fbv_push(&v, "method_test_suites");
        if ((rc = fbv_vector(&v, root, 1, 4, &vec, &n))) goto fail;
        fbv_pop(&v);
        p->info.bundled_test_suite_count = n;
        fbv_push(&v, "program");
        if ((rc = fbv_vector(&v, root, 2, 1, &vec, &n))) goto fail;
        if (!vec) {
            rc = fbv_fail(&v, root, "bundled program has no embedded program");
            goto fail;
        }
        if (n < 8 || !is_program_id(data + vec + 4 + 4)) {
            rc = fbv_fail(&v, vec + 4, "embedded program has no identifier ET12 at byte 4");
            goto fail;
        }
        fbv_pop(&v);
        v.buf = data + vec + 4;
        v.size = n;
        v.base = vec + 4;
        fbv_push(&v, "program");
    }
    p->buf = v.buf;
    p->size = v.size;
    p->file = file;
    p->base = v.base;
    if (v.size >= 16 && memcmp(v.buf + 8, "eh00", 4) == 0) {
        uint32_t hl = fb_u32(v.buf + 12);
        p->info.has_extended_header = true;
        p->info.ext_header_length = hl;
        if (hl < 24 || (uint64_t)8 + hl > v.size) {
            rc = fbv_fail(&v, 12, "extended header length %u is invalid", hl);
            goto fail;
        }
        p->info.program_size = fb_u64(v.buf + 16);
        p->info.segment_base_offset = fb_u64(v.buf + 24);
        if (hl >= 32) p->info.segment_data_size = fb_u64(v.buf + 32);
        if (p->info.program_size > v.size) {
            rc = fbv_fail(&v, 16,
                          "extended header says the program is %llu bytes but only %u are present: "
                          "the file is truncated",
                          (unsigned long long)p->info.program_size, v.size);
            goto fail;
        }
        if (p->info.program_size >= 8) v.size = (uint32_t)p->info.program_size;
        /* Written so that a huge base or size cannot wrap the sum around past the check. */
        if (p->info.segment_data_size > 0 &&
            (p->info.segment_base_offset > (uint64_t)p->size ||
             p->info.segment_data_size > (uint64_t)p->size - p->info.segment_base_offset)) {
            if (p->info.segment_data_size > UINT64_MAX - p->info.segment_base_offset) {
                rc = fbv_fail(&v, 24,
                              "segments at byte %llu holding %llu bytes end past the %u-byte file",
                              (unsigned long long)p->info.segment_base_offset,
                              (unsigned long long)p->info.segment_data_size, p->size);
                goto fail;
            }
            rc = fbv_fail(&v, 24,
                          "segments end at byte %llu but the file has %u bytes: the file is "
                          "truncated",
                          (unsigned long long)(p->info.segment_base_offset +
                                               p->info.segment_data_size),
                          p->size);
            goto fail;
        }
    }
    if ((rc = verify_program(&v, p))) goto fail;
    *out = p;
    return ETP_OK;
fail:
    etp_program_close(p);
    return rc;
}

void etp_program_close(etp_program *p) {
    if (!p) return;
    if (p->plans)
        for (uint32_t i = 0; i < p->info.plan_count; i++) free(p->plans[i].chains);
    free(p->plans);
    free(p->segs);
    etp__mem_give(p->charged);
    free(p);
}

const etp_program_info *etp_program_get_info(const etp_program *p) { return &p->info; }

void etp_program_plan(const etp_program *p, uint32_t i, etp_plan_info *out) {
    memset(out, 0, sizeof *out);
    if (i >= p->info.plan_count) return; /* out of range: an empty plan */
    const plan *pl = &p->plans[i];
    out->name = fb_str(p->buf, pl->table, 0);
    out->value_count = fb_vec(p->buf, pl->table, 2).len;
    out->input_count = fb_vec(p->buf, pl->table, 3).len;
    out->output_count = fb_vec(p->buf, pl->table, 4).len;
    out->chain_count = pl->n_chains;
    out->operator_count = pl->n_ops;
    out->delegate_count = pl->n_dels;
}

int etp_program_find_plan(const etp_program *p, const char *name) {
    for (uint32_t i = 0; i < p->info.plan_count; i++) {
        etp_str s = fb_str(p->buf, p->plans[i].table, 0);
        if (s.ptr && strcmp(s.ptr, name) == 0) return (int)i;
    }
    return -1;
}

void etp_program_chain(const etp_program *p, uint32_t pi, uint32_t ci, etp_chain_info *out) {
    memset(out, 0, sizeof *out);
    if (pi >= p->info.plan_count || ci >= p->plans[pi].n_chains) return;
    const chain *c = &p->plans[pi].chains[ci];
    out->instruction_count = c->n_instr;
    out->has_stacktrace = c->n_st > 0;
}

bool etp_program_instruction(const etp_program *p, uint32_t pi, uint32_t ci, uint32_t ii,
                             etp_instruction *out) {
    memset(out, 0, sizeof *out);
    out->index = -1;
    if (pi >= p->info.plan_count || ci >= p->plans[pi].n_chains) return false;
    const chain *c = &p->plans[pi].chains[ci];
    if (ii >= c->n_instr) return false;
    uint32_t t = fb_vec_table(p->buf, c->instr_vec, ii);
    uint8_t type = fb_get_u8(p->buf, t, 0, 0);
    uint32_t a = fb_ref(p->buf, t, 1);
    out->kind = (etp_instr_kind)type;
    if (!a) return true;
    switch (type) {
    case 1:
    case 2:
        out->index = fb_get_i32(p->buf, a, 0, 0);
        out->n_args = fb_vec(p->buf, a, 1).len;
        break;
    case 3:
    case 4:
        out->a = fb_get_i32(p->buf, a, 0, 0);
        out->b = fb_get_i32(p->buf, a, 1, 0);
        break;
    case 5: out->a = fb_get_i32(p->buf, a, 0, 0); break;
    }
    return true;
}

bool etp_program_operator(const etp_program *p, uint32_t pi, uint32_t oi, etp_operator *out) {
    memset(out, 0, sizeof *out);
    if (pi >= p->info.plan_count || oi >= p->plans[pi].n_ops) return false;
    uint32_t t = fb_vec_table(p->buf, p->plans[pi].ops_vec, oi);
    out->name = fb_str(p->buf, t, 0);
    out->overload = fb_str(p->buf, t, 1);
    return true;
}

bool etp_program_delegate(const etp_program *p, uint32_t pi, uint32_t di, etp_delegate *out) {
    memset(out, 0, sizeof *out);
    out->processed_location = -1;
    if (pi >= p->info.plan_count || di >= p->plans[pi].n_dels) return false;
    uint32_t t = fb_vec_table(p->buf, p->plans[pi].dels_vec, di);
    out->id = fb_str(p->buf, t, 0);
    uint32_t pr = fb_ref(p->buf, t, 1);
    if (pr) {
        out->processed_location = fb_get_i8(p->buf, pr, 0, 0);
        out->processed_index = fb_get_u32(p->buf, pr, 1, 0);
    }
    out->compile_spec_count = fb_vec(p->buf, t, 2).len;
    return true;
}

bool etp_program_compile_spec(const etp_program *p, uint32_t pi, uint32_t di, uint32_t i,
                              etp_compile_spec *out) {
    memset(out, 0, sizeof *out);
    if (pi >= p->info.plan_count || di >= p->plans[pi].n_dels) return false;
    uint32_t t = fb_vec_table(p->buf, p->plans[pi].dels_vec, di);
    uint32_t vec = fb_ref(p->buf, t, 2);
    if (!vec || i >= fb_u32(p->buf + vec)) return false;
    uint32_t cs = fb_vec_table(p->buf, vec, i);
    out->key = fb_str(p->buf, cs, 0);
    out->value = fb_vec(p->buf, cs, 1);
    return true;
}

uint32_t etp_program_frame_count(const etp_program *p, uint32_t pi, uint32_t ci, uint32_t ii) {
    if (pi >= p->info.plan_count || ci >= p->plans[pi].n_chains) return 0;
    const chain *c = &p->plans[pi].chains[ci];
    if (ii >= c->n_st) return 0;
    uint32_t fl = fb_vec_table(p->buf, c->st_vec, ii);
    return fb_vec(p->buf, fl, 0).len;
}

bool etp_program_frame(const etp_program *p, uint32_t pi, uint32_t ci, uint32_t ii, uint32_t fi,
                       etp_frame *out) {
    memset(out, 0, sizeof *out);
    if (fi >= etp_program_frame_count(p, pi, ci, ii)) return false;
    const chain *c = &p->plans[pi].chains[ci];
    uint32_t fl = fb_vec_table(p->buf, c->st_vec, ii);
    uint32_t items = fb_ref(p->buf, fl, 0);
    uint32_t f = fb_vec_table(p->buf, items, fi);
    out->filename = fb_str(p->buf, f, 0);
    out->lineno = fb_get_i32(p->buf, f, 1, 0);
    out->name = fb_str(p->buf, f, 2);
    out->context = fb_str(p->buf, f, 3);
    return true;
}

const char *etp_instr_kind_name(etp_instr_kind k) {
    switch (k) {
    case ETP_INSTR_KERNEL: return "kernel";
    case ETP_INSTR_DELEGATE: return "delegate";
    case ETP_INSTR_MOVE: return "move";
    case ETP_INSTR_JUMP_FALSE: return "jump_false";
    case ETP_INSTR_FREE: return "free";
    default: return "none";
    }
}

/* ---- Values and delegate payloads, read on demand ----
 * The values table and the delegate data are not verified at open (etprof reads them only to
 * tell methods apart): each read verifies what it touches with a fresh verifier and reports a
 * malformed part as "cannot tell" (-1 / false), never as an error of the whole program. */

/* A quiet verifier (err NULL): a failing lookup returns "cannot tell" without formatting a
 * message, so a lookup made per event costs no more when it fails. */
static void lazy_fbv(const etp_program *p, fbv *v) {
    memset(v, 0, sizeof *v);
    v->buf = p->buf;
    v->size = p->size;
    v->file = "";
    v->err = NULL;
}

int etp_program_value_tensor(const etp_program *p, uint32_t pi, uint32_t vi, etp_tensor_meta *out) {
    memset(out, 0, sizeof *out);
    if (pi >= p->info.plan_count) return -1;
    fbv v;
    lazy_fbv(p, &v);
    uint32_t pt = p->plans[pi].table, vec, n, ev, t, sizes, ns;
    if (fbv_vector(&v, pt, 2, 4, &vec, &n) || vi >= n) return -1;
    if (fbv_vec_elem(&v, vec, vi, &ev) || fbv_table(&v, ev) || fbv_scalar(&v, ev, 0, 1)) return -1;
    if (fb_get_u8(p->buf, ev, 0, 0) != 5) return 0; /* KernelTypes: 5 = Tensor */
    if (fbv_ref(&v, ev, 1, &t) || !t || fbv_table(&v, t)) return -1;
    if (fbv_scalar(&v, t, 0, 1) || fbv_scalar(&v, t, 8, 1)) return -1;
    if (fbv_vector(&v, t, 2, 4, &sizes, &ns)) return -1;
    out->scalar_type = fb_get_i8(p->buf, t, 0, 0);
    out->shape_dynamism = fb_get_i8(p->buf, t, 8, 0);
    out->sizes = fb_vec(p->buf, t, 2);
    /* Tensor.extra_tensor_info (id 9) {.., device_type 3, device_index 4}: newer programs; a
     * malformed one leaves the device unknown, not the tensor */
    uint32_t x;
    if (!fbv_ref(&v, t, 9, &x) && x && !fbv_table(&v, x) && !fbv_scalar(&v, x, 3, 1) &&
        !fbv_scalar(&v, x, 4, 1) && (fb_field(p->buf, x, 3) || fb_field(p->buf, x, 4))) {
        out->has_device = true;
        out->device_type = fb_get_i8(p->buf, x, 3, ETP_DEVICE_CPU);
        out->device_index = fb_get_i8(p->buf, x, 4, 0);
    }
    return 1;
}

int64_t etp_program_plan_input(const etp_program *p, uint32_t pi, uint32_t i) {
    if (pi >= p->info.plan_count) return -1;
    etp_vec in = fb_vec(p->buf, p->plans[pi].table, 3); /* verified at open (4-byte elements) */
    if (i >= in.len) return -1;
    return etp_vec_i32(in, i);
}

const char *etp_device_type_name(int device_type) {
    switch (device_type) {
    case ETP_DEVICE_CPU: return "cpu";
    case ETP_DEVICE_CUDA: return "cuda";
    default: return NULL;
    }
}

int etp_program_buffer_devices(const etp_program *p, uint32_t pi, etp_buffer_device *out,
                               uint32_t cap) {
    if (pi >= p->info.plan_count) return 0;
    fbv v;
    lazy_fbv(p, &v);
    /* ExecutionPlan.non_const_buffer_device (id 9): [NonConstBufferDevice{buffer_idx 0,
     * device_type 1, device_index 2}] */
    uint32_t vec, n, t;
    if (fbv_vector(&v, p->plans[pi].table, 9, 4, &vec, &n)) return -1;
    if (n > INT32_MAX) return -1;
    for (uint32_t i = 0; i < n; i++) {
        if (fbv_vec_elem(&v, vec, i, &t) || fbv_table(&v, t) || fbv_scalar(&v, t, 0, 4) ||
            fbv_scalar(&v, t, 1, 1) || fbv_scalar(&v, t, 2, 1))
            return -1;
        if (i < cap)
            out[i] = (etp_buffer_device){fb_get_i32(p->buf, t, 0, 0),
                                         fb_get_i8(p->buf, t, 1, ETP_DEVICE_CPU),
                                         fb_get_i8(p->buf, t, 2, 0)};
    }
    return (int)n;
}

uint32_t etp_program_value_count(const etp_program *p, uint32_t pi) {
    if (pi >= p->info.plan_count) return 0;
    fbv v;
    lazy_fbv(p, &v);
    uint32_t vec, n;
    if (fbv_vector(&v, p->plans[pi].table, 2, 4, &vec, &n)) return 0;
    return n;
}

bool etp_program_delegate_payload(const etp_program *p, uint32_t pi, uint32_t di,
                                  const uint8_t **data, size_t *len) {
    *data = NULL;
    *len = 0;
    etp_delegate d;
    if (!etp_program_delegate(p, pi, di, &d) || d.processed_location < 0) return false;
    fbv v;
    lazy_fbv(p, &v);
    uint32_t root = fb_u32(p->buf), vec, n, t, bytes, nb;
    if (fbv_table(&v, root)) return false;
    if (d.processed_location == 0) { /* Program.backend_delegate_data[index].data */
        if (fbv_vector(&v, root, 3, 4, &vec, &n) || d.processed_index >= n) return false;
        if (fbv_vec_elem(&v, vec, d.processed_index, &t) || fbv_table(&v, t)) return false;
        if (fbv_vector(&v, t, 0, 1, &bytes, &nb) || !bytes) return false;
        *data = p->buf + bytes + 4;
        *len = nb;
        return true;
    }
    if (d.processed_location != 1 || !p->info.has_extended_header) return false;
    /* Program.segments[index] (read at open): offset and size relative to the extended
     * header's base. */
    if (d.processed_index >= p->info.segment_count || !p->segs[d.processed_index].ok) return false;
    uint64_t off = p->segs[d.processed_index].offset, sz = p->segs[d.processed_index].size;
    uint64_t base = p->info.segment_base_offset;
    if (base > p->size || off > p->size - base || sz > p->size - base - off) return false;
    *data = p->buf + base + off;
    *len = (size_t)sz;
    return true;
}

int etp_program_segment(const etp_program *p, uint32_t i, uint64_t *offset, uint64_t *size,
                        etp_error *err) {
    *offset = *size = 0;
    if (i >= p->info.segment_count) {
        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL, "no segment %u (the program has %u)", i,
                      p->info.segment_count);
        return ETP_E_USAGE;
    }
    if (p->segs[i].ok) {
        *offset = p->segs[i].offset;
        *size = p->segs[i].size;
        return ETP_OK;
    }
    /* Read again, loudly, for the located reason (once per call: not a per-event path). */
    fbv v;
    lazy_fbv(p, &v);
    v.err = err;
    v.file = p->file ? p->file : "";
    v.base = p->base;
    uint32_t root = fb_u32(p->buf), vec, n;
    int rc = fbv_table(&v, root);
    if (!rc) rc = fbv_vector(&v, root, 4, 4, &vec, &n);
    if (!rc) rc = read_segment(&v, vec, i, offset, size);
    return rc ? rc : ETP_E_INPUT;
}
