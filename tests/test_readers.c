/* test_readers.c - the ETDump and program readers against facts that do not come from etprof:
 * tests/data/manifest_facts.json (parsed from the corpus MANIFEST.md, which was produced by an
 * independent decoder) and tests/data/pte_facts.json (decoded by Debian's flatc).
 *
 * usage: test_readers DATA_DIR */
#include "check.h"
#include "etdump_int.h"
#include "etprof.h"

#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *data_dir;

/* Label convention of the manifest: a name, "delegate_str:<s>" or "delegate_int:<n>". */
static void label_of(const etp_event *ev, char *buf, size_t cap) {
    const etp_profile_event *p = &ev->profile;
    if (p->name.ptr) snprintf(buf, cap, "%s", p->name.ptr);
    else if (p->delegate_debug_id_str.ptr) snprintf(buf, cap, "delegate_str:%s", p->delegate_debug_id_str.ptr);
    else snprintf(buf, cap, "delegate_int:%d", p->delegate_debug_id_int);
}

typedef struct counter {
    char **keys;
    long *vals;
    size_t n, cap;
} counter;

static void count(counter *c, const char *k) {
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->keys[i], k) == 0) {
            c->vals[i]++;
            return;
        }
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->keys = realloc(c->keys, c->cap * sizeof *c->keys);
        c->vals = realloc(c->vals, c->cap * sizeof *c->vals);
    }
    c->keys[c->n] = strdup(k);
    c->vals[c->n++] = 1;
}

static long get(const counter *c, const char *k) {
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->keys[i], k) == 0) return c->vals[i];
    return 0;
}

static void counter_free(counter *c) {
    for (size_t i = 0; i < c->n; i++) free(c->keys[i]);
    free(c->keys);
    free(c->vals);
}

static long type_count(json_t *obj, const char *k) {
    json_t *v = json_object_get(obj, k);
    return v ? (long)json_integer_value(v) : 0;
}

static void check_dump(json_t *fact) {
    const char *rel = json_string_value(json_object_get(fact, "file"));
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", data_dir, rel);
    etp_blob blob;
    etp_error err = {0};
    etp_dump *d = NULL;
    int rc = etp_blob_open(&blob, path, &err);
    CHECK_MSG(rc == 0, "%s: %s", rel, err.msg);
    if (rc) return;
    rc = etp_dump_open(&d, &blob, &err);
    CHECK_MSG(rc == 0, "%s: %s at %lld %s", rel, err.msg, (long long)err.offset, err.path);
    if (rc) {
        etp_blob_close(&blob);
        return;
    }
    const etp_dump_info *di = etp_dump_get_info(d);
    CHECK_EQ_U(blob.size, json_integer_value(json_object_get(fact, "size")));
    CHECK_EQ_I(di->size_prefixed, json_is_true(json_object_get(fact, "size_prefixed")));
    CHECK_EQ_U(di->version, json_integer_value(json_object_get(fact, "version")));
    CHECK_EQ_U(di->block_count, json_integer_value(json_object_get(fact, "block_count")));
    CHECK_EQ_U(di->event_count, json_integer_value(json_object_get(fact, "total_events")));
    json_t *by_type = json_object_get(fact, "total_events_by_type");
    if (json_is_object(by_type)) { /* null: the manifest does not say */
        CHECK_EQ_I(di->profile_count, type_count(by_type, "profile"));
        CHECK_EQ_I(di->allocation_count, type_count(by_type, "allocation"));
        CHECK_EQ_I(di->debug_count, type_count(by_type, "debug"));
    }
    json_t *names = json_object_get(fact, "block_names");
    json_t *blocks = json_object_get(fact, "blocks");
    counter labels = {0};
    long nonempty_md = 0;
    for (uint32_t b = 0; b < di->block_count; b++) {
        etp_block_info bi;
        etp_dump_block(d, b, &bi);
        json_t *nm = json_array_get(names, b);
        CHECK_MSG(nm && bi.name.ptr && strcmp(bi.name.ptr, json_string_value(nm)) == 0,
                  "%s block %u name %s", rel, b, bi.name.ptr ? bi.name.ptr : "(null)");
        long bt[4] = {0};
        for (uint32_t i = 0; i < bi.event_count; i++) {
            etp_event ev;
            etp_dump_event(d, b, i, &ev);
            bt[ev.type & 3]++;
            if (ev.type == ETP_EVENT_PROFILE) {
                char lab[512];
                label_of(&ev, lab, sizeof lab);
                count(&labels, lab);
                if (ev.profile.delegate_debug_metadata.len) nonempty_md++;
            }
        }
        /* per-block facts: the manifest lists blocks collapsed; match by position when the
         * expanded list is given, else by name (all blocks of a name share the facts) */
        json_t *bf = NULL;
        size_t nb = json_array_size(blocks);
        if (nb == di->block_count) bf = json_array_get(blocks, b);
        else
            for (size_t k = 0; k < nb && !bf; k++) {
                json_t *c = json_array_get(blocks, k);
                if (strcmp(json_string_value(json_object_get(c, "name")), bi.name.ptr ? bi.name.ptr : "") == 0)
                    bf = c;
            }
        if (bf) {
            CHECK_MSG(bi.event_count == json_integer_value(json_object_get(bf, "events")),
                      "%s block %u: %u events", rel, b, bi.event_count);
            json_t *bbt = json_object_get(bf, "events_by_type");
            if (json_is_object(bbt))
            CHECK_MSG(bt[ETP_EVENT_PROFILE] == type_count(bbt, "profile") &&
                          bt[ETP_EVENT_DEBUG] == type_count(bbt, "debug") &&
                          bt[ETP_EVENT_ALLOCATION] == type_count(bbt, "allocation"),
                      "%s block %u: by type %ld/%ld/%ld", rel, b, bt[1], bt[2], bt[3]);
            json_t *allocs = json_object_get(bf, "allocators");
            if (json_is_array(allocs)) {
                CHECK_EQ_U(bi.allocator_count, json_array_size(allocs));
                for (uint32_t k = 0; k < bi.allocator_count; k++) {
                    etp_str an = etp_dump_allocator_name(d, b, k);
                    CHECK_EQ_S(an.ptr, json_string_value(json_array_get(allocs, k)));
                }
            }
        }
    }
    json_t *md = json_object_get(fact, "events_with_nonempty_metadata");
    if (json_is_integer(md)) CHECK_EQ_I(nonempty_md, json_integer_value(md));
    json_t *pn = json_object_get(fact, "profile_names");
    if (json_is_object(pn)) {
        const char *k;
        json_t *v;
        CHECK_EQ_U(labels.n, json_object_size(pn));
        json_object_foreach(pn, k, v) {
            CHECK_MSG(get(&labels, k) == json_integer_value(v), "%s: label %s x%ld, manifest %lld",
                      rel, k, get(&labels, k), (long long)json_integer_value(v));
        }
    }
    json_t *ql = json_object_get(fact, "qnn_labels");
    if (json_is_object(ql)) {
        json_t *nn = json_object_get(ql, "non_node_labels");
        const char *k;
        json_t *v;
        json_object_foreach(nn, k, v) {
            CHECK_MSG(get(&labels, k) == json_integer_value(v), "%s: label %s x%ld, manifest %lld",
                      rel, k, get(&labels, k), (long long)json_integer_value(v));
        }
        CHECK_EQ_U(labels.n, json_integer_value(json_object_get(ql, "distinct_labels")));
        CHECK_EQ_U(labels.n - json_object_size(nn),
                   json_integer_value(json_object_get(ql, "node_label_count")));
        json_t *ex = json_object_get(ql, "node_label_examples");
        for (size_t i = 0; i < json_array_size(ex); i++)
            CHECK_MSG(get(&labels, json_string_value(json_array_get(ex, i))) > 0, "%s: missing %s",
                      rel, json_string_value(json_array_get(ex, i)));
    }
    counter_free(&labels);
    etp_dump_close(d);
    etp_blob_close(&blob);
}

/* The Ethos-U partial delegation dump: the model must link every runtime event to the right
 * instruction of the .pte (manifest "instruction pattern" + the operator list of the issue). */
static void check_ethosu(json_t *facts) {
    json_t *fact = NULL, *f;
    size_t i;
    json_array_foreach(json_object_get(facts, "etdumps"), i, f) {
        if (strstr(json_string_value(json_object_get(f, "file")), "ethosu_N_partial")) fact = f;
    }
    CHECK(fact != NULL);
    if (!fact) return;
    char path[1024], ptep[1024];
    snprintf(path, sizeof path, "%s/%s", data_dir, json_string_value(json_object_get(fact, "file")));
    snprintf(ptep, sizeof ptep, "%s/ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte", data_dir);
    etp_blob db, pb;
    etp_dump *d;
    etp_program *p;
    etp_model *m;
    etp_error err = {0};
    CHECK(etp_blob_open(&db, path, &err) == 0);
    CHECK(etp_dump_open(&d, &db, &err) == 0);
    CHECK(etp_blob_open(&pb, ptep, &err) == 0);
    CHECK(etp_program_open(&p, &pb, &err) == 0);
    CHECK(etp_model_open(&m, d, p, NULL, &err) == 0);
    etp_block_view v;
    CHECK(etp_model_block(m, 1, &v, &err) == 0);
    CHECK_EQ_S(v.method, "forward");
    /* Rebuild the pattern from the wrappers, in file order. */
    char pat[1024] = "";
    size_t n = 0;
    int quant = 0, dequant = 0, add = 0, del = 0, kernels = 0, scopes_in_delegates = 0;
    for (uint32_t k = 0; k < v.n; k++) {
        const etp_mevent *e = &v.events[k];
        if (e->kind == ETP_KIND_OPERATOR_CALL || e->kind == ETP_KIND_DELEGATE_CALL)
            n += (size_t)snprintf(pat + n, sizeof pat - n, "%s%c%d", n ? " " : "",
                                  e->kind == ETP_KIND_OPERATOR_CALL ? 'K' : 'D', e->instr);
        if (e->kind == ETP_KIND_OPERATOR_CALL) {
            CHECK_EQ_I(e->instr_kind, ETP_INSTR_KERNEL);
            char op[256];
            snprintf(op, sizeof op, "%s.%s", e->op_name ? e->op_name : "?", e->op_overload ? e->op_overload : "?");
            if (strcmp(op, "cortex_m::quantize_per_tensor.out") == 0) quant++;
            else if (strcmp(op, "cortex_m::dequantize_per_tensor.out") == 0) dequant++;
            else if (strcmp(op, "aten::add.out") == 0) add++;
            else CHECK_MSG(0, "unexpected operator %s", op);
        }
        if (e->kind == ETP_KIND_KERNEL) {
            kernels++;
            /* the kernel event's wrapper is the OPERATOR_CALL of the same instruction */
            CHECK(e->parent > (int32_t)k && v.events[e->parent].kind == ETP_KIND_OPERATOR_CALL &&
                  v.events[e->parent].instr == e->instr);
        }
        if (e->kind == ETP_KIND_DELEGATE_CALL) {
            del++;
            CHECK_EQ_I(e->instr_kind, ETP_INSTR_DELEGATE);
            CHECK_EQ_S(e->backend, "EthosUBackend");
        }
        if (e->kind == ETP_KIND_DELEGATE_INTERNAL) {
            scopes_in_delegates++;
            CHECK(e->parent >= 0 && v.events[e->parent].kind == ETP_KIND_DELEGATE_CALL);
            CHECK_EQ_S(e->backend, "EthosUBackend");
        }
    }
    CHECK_EQ_S(pat, json_string_value(json_object_get(fact, "instruction_pattern")));
    CHECK_EQ_I(quant, 11);
    CHECK_EQ_I(dequant, 21);
    CHECK_EQ_I(add, 10);
    CHECK_EQ_I(del, 11);
    CHECK_EQ_I(kernels, 42);
    CHECK_EQ_I(scopes_in_delegates, 33); /* memcpy + NPU + execute() per partition */
    etp_model_close(m);
    etp_program_close(p);
    etp_dump_close(d);
    etp_blob_close(&pb);
    etp_blob_close(&db);
}

/* Programs against the facts Debian's flatc decoded (tests/data/pte_facts.json). */
static void check_programs(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/pte_facts.json", data_dir);
    json_error_t je;
    json_t *facts = json_load_file(path, 0, &je);
    CHECK_MSG(facts != NULL, "%s: %s", path, je.text);
    if (!facts) return;
    json_t *progs = json_object_get(facts, "files");
    size_t i;
    json_t *f;
    CHECK(json_array_size(progs) >= 5);
    json_array_foreach(progs, i, f) {
        const char *rel = json_string_value(json_object_get(f, "file"));
        char p2[1024];
        snprintf(p2, sizeof p2, "%s/%s", data_dir, rel);
        etp_blob b;
        etp_error err = {0};
        etp_program *p = NULL;
        CHECK(etp_blob_open(&b, p2, &err) == 0);
        int rc = etp_program_open(&p, &b, &err);
        CHECK_MSG(rc == 0, "%s: %s %s", rel, err.path, err.msg);
        if (rc) {
            etp_blob_close(&b);
            continue;
        }
        if (json_is_object(json_object_get(f, "program"))) { /* bundled: facts of the embedded program */
            CHECK(etp_program_get_info(p)->bundled);
            CHECK_EQ_U(etp_program_get_info(p)->bundled_test_suite_count,
                       json_array_size(json_object_get(f, "method_test_suites")));
            f = json_object_get(f, "program");
        }
        json_t *plans = json_object_get(f, "plans");
        CHECK_EQ_U(etp_program_get_info(p)->plan_count, json_array_size(plans));
        CHECK_EQ_U(etp_program_get_info(p)->segment_count, json_integer_value(json_object_get(f, "segments")));
        CHECK_EQ_U(etp_program_get_info(p)->version, json_integer_value(json_object_get(f, "program_version")));
        size_t k;
        json_t *pl;
        json_array_foreach(plans, k, pl) {
            etp_plan_info pi;
            etp_program_plan(p, (uint32_t)k, &pi);
            CHECK_EQ_S(pi.name.ptr, json_string_value(json_object_get(pl, "name")));
            CHECK_EQ_U(pi.chain_count, json_integer_value(json_object_get(pl, "chains")));
            CHECK_EQ_U(pi.value_count, json_integer_value(json_object_get(pl, "values")));
            CHECK_EQ_U(pi.input_count, json_integer_value(json_object_get(pl, "inputs")));
            CHECK_EQ_U(pi.output_count, json_integer_value(json_object_get(pl, "outputs")));
            uint32_t kinds[6] = {0};
            for (uint32_t c = 0; c < pi.chain_count; c++) {
                etp_chain_info ci;
                etp_program_chain(p, (uint32_t)k, c, &ci);
                for (uint32_t x = 0; x < ci.instruction_count; x++) {
                    etp_instruction ins;
                    etp_program_instruction(p, (uint32_t)k, c, x, &ins);
                    kinds[ins.kind < 6 ? ins.kind : 0]++;
                }
            }
            json_t *ik = json_object_get(pl, "instruction_kinds");
            static const char *const kn[6] = {NULL, "KernelCall", "DelegateCall", "MoveCall",
                                              "JumpFalseCall", "FreeCall"};
            for (int t = 1; t < 6; t++)
                CHECK_MSG(kinds[t] == type_count(ik, kn[t]), "%s plan %zu %s: %u", rel, k, kn[t], kinds[t]);
            json_t *ops = json_object_get(pl, "operators");
            CHECK_EQ_U(pi.operator_count, json_array_size(ops));
            for (uint32_t o = 0; o < pi.operator_count; o++) {
                etp_operator op;
                etp_program_operator(p, (uint32_t)k, o, &op);
                char full[512];
                snprintf(full, sizeof full, "%s%s%s", op.name.ptr ? op.name.ptr : "",
                         op.overload.ptr && op.overload.len ? "." : "", op.overload.ptr ? op.overload.ptr : "");
                CHECK_EQ_S(full, json_string_value(json_array_get(ops, o)));
            }
            json_t *dels = json_object_get(pl, "delegates");
            CHECK_EQ_U(pi.delegate_count, json_array_size(dels));
            for (uint32_t o = 0; o < pi.delegate_count; o++) {
                etp_delegate dl;
                etp_program_delegate(p, (uint32_t)k, o, &dl);
                CHECK_EQ_S(dl.id.ptr, json_string_value(json_array_get(dels, o)));
            }
        }
        etp_program_close(p);
        etp_blob_close(&b);
    }
    json_decref(facts);
}

/* upstream/etdump.etdp against the decoded table of docs (etdump-format.md §6.1), read from the
 * bytes by hand: names, chain/instruction ids after defaults, raw timestamps. */
static void check_upstream_golden(void) {
    static const struct {
        uint32_t block, index;
        const char *name;
        int32_t chain, instr;
        uint64_t start, end;
    } g[] = {
        {0, 0, "Method::init", -1, 0, 399054, 421538},
        {0, 1, "Program::load_method", -1, 0, 398073, 422930},
        {1, 0, "native_call_convolution.out", 0, 0, 426786, 971569},
        {1, 1, "OPERATOR_CALL", 0, 0, 425624, 972440},
        {1, 12, "native_call_permute_copy.out", 0, 6, 2081748, 2235249},
        {1, 27, "OPERATOR_CALL", 0, 13, 2323163, 2324004},
        {1, 28, "Method::execute", -1, 0, 425313, 2324134},
    };
    char path[1024];
    snprintf(path, sizeof path, "%s/upstream/etdump.etdp", data_dir);
    etp_blob b;
    etp_dump *d;
    etp_error err = {0};
    CHECK(etp_blob_open(&b, path, &err) == 0);
    CHECK(etp_dump_open(&d, &b, &err) == 0);
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        etp_event ev;
        etp_dump_event(d, g[i].block, g[i].index, &ev);
        CHECK_EQ_I(ev.type, ETP_EVENT_PROFILE);
        CHECK_EQ_S(ev.profile.name.ptr, g[i].name);
        CHECK_EQ_I(ev.profile.chain_index, g[i].chain);
        CHECK_EQ_I(ev.profile.instruction_id, g[i].instr);
        CHECK_EQ_I(ev.profile.delegate_debug_id_int, -1);
        CHECK(ev.profile.delegate_debug_id_str.ptr == NULL);
        CHECK(ev.profile.delegate_debug_metadata.ptr == NULL);
        CHECK_EQ_U(ev.profile.start_time, g[i].start);
        CHECK_EQ_U(ev.profile.end_time, g[i].end);
    }
    etp_block_info bi;
    etp_dump_block(d, 1, &bi);
    CHECK_EQ_I(bi.bundled_input_index, -1);
    CHECK_EQ_U(bi.allocator_count, 0);
    etp_dump_close(d);
    etp_blob_close(&b);
}

/* ---- the model's decoder: the same events as etp_dump_event() ------------------------------
 * etp_model_block() decodes into buffers it reuses from block to block and only clears what the
 * previous event in a slot left; every field of every member must still be what
 * etp_dump_event() gives. Blocks are visited forwards and then backwards, so that slots change
 * event type. */

static bool same_str(etp_str a, etp_str b) { return a.ptr == b.ptr && a.len == b.len; }
static bool same_vec(etp_vec a, etp_vec b) { return a.ptr == b.ptr && a.len == b.len; }

static bool same_tensor(const etp_tensor *a, const etp_tensor *b) {
    return a->scalar_type == b->scalar_type && same_vec(a->sizes, b->sizes) &&
           same_vec(a->strides, b->strides) && a->offset == b->offset;
}

/* Compares the member the type names: the members share storage (a union). */
static bool same_event(const etp_event *a, const etp_event *b) {
    if (a->type != b->type) return false;
    if (a->type == ETP_EVENT_PROFILE) {
        const etp_profile_event *p = &a->profile, *q = &b->profile;
        return same_str(p->name, q->name) && p->chain_index == q->chain_index &&
               p->instruction_id == q->instruction_id &&
               p->delegate_debug_id_int == q->delegate_debug_id_int &&
               same_str(p->delegate_debug_id_str, q->delegate_debug_id_str) &&
               same_vec(p->delegate_debug_metadata, q->delegate_debug_metadata) &&
               p->start_time == q->start_time && p->end_time == q->end_time;
    }
    if (a->type == ETP_EVENT_ALLOCATION)
        return a->allocation.allocator_id == b->allocation.allocator_id &&
               a->allocation.allocation_size == b->allocation.allocation_size;
    if (a->type != ETP_EVENT_DEBUG) return true;
    const etp_debug_event *d = &a->debug, *e = &b->debug;
    const etp_value *v = &d->debug_entry, *w = &e->debug_entry;
    return d->chain_index == e->chain_index && d->instruction_id == e->instruction_id &&
           d->delegate_debug_id_int == e->delegate_debug_id_int &&
           same_str(d->delegate_debug_id_str, e->delegate_debug_id_str) &&
           same_str(d->name, e->name) && d->has_debug_entry == e->has_debug_entry &&
           v->val == w->val && v->has_tensor == w->has_tensor &&
           v->has_tensor_list == w->has_tensor_list && v->has_int == w->has_int &&
           v->has_float == w->has_float && v->has_double == w->has_double &&
           v->has_bool == w->has_bool && v->has_output == w->has_output &&
           same_tensor(&v->tensor, &w->tensor) && v->tensor_list_len == w->tensor_list_len &&
           v->int_val == w->int_val && memcmp(&v->float_val, &w->float_val, sizeof v->float_val) == 0 &&
           memcmp(&v->double_val, &w->double_val, sizeof v->double_val) == 0 &&
           v->bool_val == w->bool_val && v->output == w->output && v->buf_ == w->buf_ &&
           v->tensor_list_pos_ == w->tensor_list_pos_;
}

/* The events of every block of d, read by a model forwards and then backwards, against
 * etp_dump_event(): the number that differ (-1: the model failed); *checked counts them. */
static int model_decode_events(etp_dump *d, int *checked_out) {
    etp_error err = {0};
    etp_model *m = NULL;
    int checked = 0, bad = 0;
    if (etp_model_open(&m, d, NULL, NULL, &err) == 0) {
        uint32_t nb = etp_dump_get_info(d)->block_count;
        for (uint32_t k = 0; k < 2 * nb; k++) {
            uint32_t bi = k < nb ? k : 2 * nb - 1 - k;
            etp_block_view v;
            if (etp_model_block(m, bi, &v, &err)) {
                bad++;
                break;
            }
            for (uint32_t i = 0; i < v.n; i++) {
                etp_event ref;
                etp_dump_event(d, bi, i, &ref);
                if (!same_event(&v.events[i].ev, &ref)) bad++;
                checked++;
            }
        }
    } else {
        bad = -1;
    }
    etp_model_close(m);
    if (checked_out) *checked_out = checked;
    return bad;
}

static int model_decode_dump(etp_dump *d) { return model_decode_events(d, NULL); }

static int model_decode_one(const char *path) {
    etp_blob b;
    etp_error err = {0};
    etp_dump *d = NULL;
    if (etp_blob_open(&b, path, &err)) return 0;
    int checked = 0, bad = 0;
    if (etp_dump_open(&d, &b, &err) == 0) bad = model_decode_events(d, &checked);
    CHECK_MSG(bad == 0, "%s: %d events decoded differently by the model", path, bad);
    etp_dump_close(d);
    etp_blob_close(&b);
    return checked;
}

static int model_decode_dir(const char *dir) {
    DIR *dh = opendir(dir);
    if (!dh) return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dh))) {
        if (de->d_name[0] == '.') continue;
        char p[2048];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        size_t l = strlen(p);
        struct stat st;
        if (stat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) n += model_decode_dir(p);
        else if (l > 5 && strcmp(p + l - 5, ".etdp") == 0) n += model_decode_one(p);
    }
    closedir(dh);
    return n;
}

/* The bytes of file `path` (malloc'd; NULL when it cannot be read), their count in *n. */
static uint8_t *load_file(const char *path, long *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = *n > 0 ? malloc((size_t)*n) : NULL;
    if (b && fread(b, 1, (size_t)*n, f) != (size_t)*n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

/* ---- the verifier's fast path: the same verdict and the same error as the full verifier ----
 * Valid files mutated at random (bytes set to random values, to 0 or 0xff, small offsets moved),
 * opened with and without the fast path. */
static void check_fast_verifier(void) {
    static const char *files[] = {"real/add_pte_10x.etdp", "real/module_linear_intermediate_1x.etdp",
                                  "fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp",
                                  "synthetic/synth_qnn_mixed_small_3x.etdp", "upstream/etdump.etdp"};
    uint64_t x = 0x853c49e6748fea9bu;
    int cases = 0, differ = 0, rejected = 0;
    for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", data_dir, files[fi]);
        long n = 0;
        uint8_t *orig = load_file(p, &n);
        CHECK_MSG(orig != NULL, "%s", p);
        if (!orig) continue;
        uint8_t *buf = malloc((size_t)n);
        for (int k = 0; k < 600; k++) {
            memcpy(buf, orig, (size_t)n);
            int edits = 1 + k % 3;
            for (int e = 0; e < edits; e++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                size_t at = 12 + (size_t)(x % (uint64_t)(n - 12)); /* keep the header */
                switch ((x >> 40) % 4) {
                case 0: buf[at] = (uint8_t)(x >> 48); break;
                case 1: buf[at] = 0; break;
                case 2: buf[at] = 0xff; break;
                default: buf[at] = (uint8_t)(buf[at] + ((x >> 50) % 2 ? 4 : -4)); break;
                }
            }
            etp_blob b;
            etp_blob_borrow(&b, buf, (size_t)n, "mutant");
            etp_error e1 = {0}, e2 = {0};
            etp_dump *d1 = NULL, *d2 = NULL;
            etp__verify_fast = true;
            int r1 = etp_dump_open(&d1, &b, &e1);
            etp__verify_fast = false;
            int r2 = etp_dump_open(&d2, &b, &e2);
            etp__verify_fast = true;
            /* and verified in the background, read block by block through the model: the same
             * verdict, the same error, from the block that has it */
            etp__async_min = 0;
            etp_dump *d3 = NULL;
            etp_model *m3 = NULL;
            etp_error e3 = {0};
            etp_dump_open_opts bo = {.background = true};
            int r3 = etp_dump_open_with(&d3, &b, &bo, &e3);
            if (!r3 && !(r3 = etp_model_open(&m3, d3, NULL, NULL, &e3))) {
                uint32_t nb = etp_dump_get_info(d3)->block_count;
                for (uint32_t bi = 0; bi < nb && !r3; bi++) {
                    etp_block_view bv;
                    r3 = etp_model_block(m3, bi, &bv, &e3);
                }
                if (!r3) r3 = etp_dump_wait_verified(d3, &e3);
            }
            char m3s[1200];
            etp_error_format(&e3, m3s, sizeof m3s);
            if (r3 == 0 && d3 && r1 == 0) {
                const etp_dump_info *a = etp_dump_get_info(d1), *c = etp_dump_get_info(d3);
                if (a->profile_count != c->profile_count || a->debug_count != c->debug_count ||
                    a->event_count != c->event_count)
                    r3 = -99;
            }
            etp_model_close(m3);
            etp_dump_close(d3);
            etp__async_min = (uint32_t)4 << 20;
            char m1[1200], m2[1200];
            etp_error_format(&e1, m1, sizeof m1);
            etp_error_format(&e2, m2, sizeof m2);
            bool same = r1 == r2 && strcmp(m1, m2) == 0 && r3 == r1 && (r1 == 0 || strcmp(m3s, m1) == 0);
            if (same && r1 == 0) {
                const etp_dump_info *a = etp_dump_get_info(d1), *c = etp_dump_get_info(d2);
                same = a->event_count == c->event_count && a->profile_count == c->profile_count &&
                       a->allocation_count == c->allocation_count &&
                       a->debug_count == c->debug_count && a->none_count == c->none_count;
                /* and the model reads every event of it as the full decoder does (a mutant
                 * whose blocks still repeat one another is read as repeats) */
                if (same) same = model_decode_dump(d1) == 0;
            }
            if (!same) {
                differ++;
                fprintf(stderr, "fast verifier differs on %s mutant %d: %d \"%s\" vs %d \"%s\"\n",
                        files[fi], k, r1, m1, r2, m2);
            }
            rejected += r1 != 0;
            cases++;
            etp_dump_close(d1);
            etp_dump_close(d2);
        }
        free(orig);
        free(buf);
    }
    CHECK_EQ_I(differ, 0);
    CHECK_MSG(rejected > cases / 10 && rejected < cases, "%d of %d mutants rejected", rejected, cases);
}

/* ---- repeated blocks (etdump.c "Repeated blocks") ----
 * Which blocks the verifier takes as repeats of an earlier block's layout, against a second
 * decoder: tests/tools/count_translated.py finds the blocks whose every object (events vector,
 * tables, strings, vectors) lies at one distance from the previous block's and holds the same
 * content apart from the times (its counts are the numbers below). Every repeat found must
 * decode, through the public decoder, as the previous block moved by its distance; then bytes
 * of one repeat are changed: a name (no longer a repeat, read as written) and a time (still
 * one, read with the new time). */
static bool moved(const void *a, const void *b, int64_t delta) {
    if (!a || !b) return a == b;
    return (const uint8_t *)b - (const uint8_t *)a == delta;
}

/* Block b decodes as block a moved by delta, apart from the times. */
static bool decodes_moved(etp_dump *d, uint32_t a, uint32_t b, int64_t delta) {
    etp_block_info x, y;
    etp_dump_block(d, a, &x);
    etp_dump_block(d, b, &y);
    if (x.event_count != y.event_count) return false;
    for (uint32_t i = 0; i < x.event_count; i++) {
        etp_event e, f;
        etp_dump_event(d, a, i, &e);
        etp_dump_event(d, b, i, &f);
        if (e.type != f.type) return false;
        if (e.type == ETP_EVENT_ALLOCATION &&
            (e.allocation.allocator_id != f.allocation.allocator_id ||
             e.allocation.allocation_size != f.allocation.allocation_size))
            return false;
        if (e.type != ETP_EVENT_PROFILE) continue;
        const etp_profile_event *p = &e.profile, *q = &f.profile;
        if (p->chain_index != q->chain_index || p->instruction_id != q->instruction_id ||
            p->delegate_debug_id_int != q->delegate_debug_id_int || p->name.len != q->name.len ||
            p->delegate_debug_id_str.len != q->delegate_debug_id_str.len ||
            p->delegate_debug_metadata.len != q->delegate_debug_metadata.len ||
            !moved(p->name.ptr, q->name.ptr, delta) ||
            !moved(p->delegate_debug_id_str.ptr, q->delegate_debug_id_str.ptr, delta) ||
            !moved(p->delegate_debug_metadata.ptr, q->delegate_debug_metadata.ptr, delta) ||
            (p->name.ptr && memcmp(p->name.ptr, q->name.ptr, p->name.len) != 0) ||
            (p->delegate_debug_id_str.ptr &&
             memcmp(p->delegate_debug_id_str.ptr, q->delegate_debug_id_str.ptr,
                    p->delegate_debug_id_str.len) != 0))
            return false;
    }
    return true;
}

/* Blocks found as repeats of the block before them; -1 when one does not decode as such. */
static int repeats_found(etp_dump *d, uint32_t *last) {
    uint32_t nb = etp_dump_get_info(d)->block_count;
    int n = 0;
    for (uint32_t b = 1; b < nb; b++) {
        int64_t delta;
        if (!etp__dump_same_layout(d, b - 1, b, &delta)) continue;
        if (!decodes_moved(d, b - 1, b, delta)) return -1;
        n++;
        if (last) *last = b;
    }
    return n;
}

static void check_repeated_blocks(void) {
    static const struct {
        const char *file;
        int translated; /* tests/tools/count_translated.py */
    } cases[] = {
        {"fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp", 8},
        {"real/add_pte_100x.etdp", 98},
        {"real/module_linear_10x.etdp", 8},
        {"real/bundled_program_10x.etdp", 8},
        {"synthetic/synth_qnn_llm_20x2000.etdp", 9},
        {"synthetic/synth_qnn_mixed_small_3x.etdp", 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", data_dir, cases[c].file);
        etp_blob b;
        etp_error err = {0};
        etp_dump *d = NULL;
        CHECK_MSG(etp_blob_open(&b, p, &err) == 0, "%s", p);
        CHECK_MSG(etp_dump_open(&d, &b, &err) == 0, "%s", p);
        if (!d) continue;
        int n = repeats_found(d, NULL);
        CHECK_MSG(n == cases[c].translated, "%s: %d repeats, %d expected", p, n,
                  cases[c].translated);
        etp_dump_close(d);
        /* without the fast path, no repeat is taken */
        etp__verify_fast = false;
        CHECK(etp_dump_open(&d, &b, &err) == 0);
        etp__verify_fast = true;
        if (d) CHECK_EQ_I(repeats_found(d, NULL), 0);
        etp_dump_close(d);
        etp_blob_close(&b);
    }

    /* changed bytes in block 6 of the 10x dump (blocks 3 to 10 repeat) */
    char p[1024];
    snprintf(p, sizeof p, "%s/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp", data_dir);
    long n = 0;
    uint8_t *buf = load_file(p, &n);
    CHECK_MSG(buf != NULL, "%s", p);
    if (!buf) return;
    for (int what = 0; what < 2; what++) {
        etp_blob b;
        etp_blob_borrow(&b, buf, (size_t)n, "changed");
        etp_error err = {0};
        etp_dump *d = NULL;
        CHECK(etp_dump_open(&d, &b, &err) == 0);
        if (!d) break;
        /* the first profile event of block 6 from the 100th on with a name or id string */
        etp_event e;
        etp_str s = {NULL, 0};
        uint32_t tpos[2] = {0, 0}, k = 100;
        for (; k < 1530 && !(s.len && tpos[1]); k++) {
            etp_dump_event(d, 6, k, &e);
            if (e.type != ETP_EVENT_PROFILE) continue;
            s = e.profile.delegate_debug_id_str.len ? e.profile.delegate_debug_id_str : e.profile.name;
            etp__dump_event_reuse(d, 6, k, &(etp_event){0}, tpos);
        }
        k--;
        CHECK(s.len > 0 && tpos[1] > 0); /* its end time (a start time of 0 may be left out) */
        if (!s.len || !tpos[1]) break;
        uint64_t end = e.profile.end_time;
        size_t at = what == 0 ? (size_t)((const uint8_t *)s.ptr - buf)
                              : (size_t)(etp__dump_bytes(d) - buf) + tpos[1];
        etp_dump_close(d);
        uint8_t was = buf[at];
        buf[at] ^= 1; /* a name byte stays a printable non-NUL */
        CHECK(etp_dump_open(&d, &b, &err) == 0);
        if (!d) break;
        int64_t delta;
        uint32_t last = 0;
        if (what == 0) {
            /* block 6 is verified in full; 7 repeats the layout of block 2, not block 6 */
            CHECK(!etp__dump_same_layout(d, 5, 6, &delta));
            CHECK(!etp__dump_same_layout(d, 6, 7, &delta));
            CHECK(etp__dump_same_layout(d, 7, 8, &delta));
            CHECK_EQ_I(repeats_found(d, &last), 6);
        } else {
            CHECK(etp__dump_same_layout(d, 5, 6, &delta));
            CHECK_EQ_I(repeats_found(d, &last), 8);
            etp_dump_event(d, 6, k, &e);
            CHECK(e.profile.end_time != end);
        }
        CHECK_EQ_U(last, 10);
        /* the model reads the changed block (and every other) as the decoder does */
        CHECK_EQ_I(model_decode_dump(d), 0);
        etp_dump_close(d);
        buf[at] = was;
    }
    free(buf);
}

/* A crafted dump of `k` run_data entries that all refer to one RunData table, whose `ne` events
 * all refer to one Event table, whose name is `len` bytes ('a', and a NUL in the middle when
 * `nul`): tables shared as the verifier allows. Written here with a minimal forward FlatBuffer
 * writer (size prefix, identifier ED00). */
static uint8_t *shared_block_dump(uint32_t k, uint32_t ne, uint32_t len, bool nul, size_t *size) {
    size_t cap = 256 + 4 * (size_t)k + 4 * (size_t)ne + len;
    uint8_t *b = calloc(1, cap);
    size_t n = 12; /* size prefix, root uoffset, "ED00" */
    memcpy(b + 8, "ED00", 4);
#define P(x) ((uint32_t)((x) - 4)) /* buffer position of file offset x */
#define W16(v) (b[n] = (uint8_t)(v), b[n + 1] = (uint8_t)((v) >> 8), n += 2)
#define W32(v) (memcpy(b + n, &(uint32_t){(uint32_t)(v)}, 4), n += 4)
#define REF(at, to) memcpy(b + (at), &(uint32_t){(uint32_t)((to) - (at))}, 4)
    size_t vt_root = n;
    W16(8), W16(8), W16(0), W16(4);               /* ETDump vtable: run_data at 4 */
    size_t root = n;
    W32(P(root) - P(vt_root)), W32(0);            /* soffset, run_data */
    memcpy(b + 4, &(uint32_t){P(root)}, 4);
    size_t rdvec = n;
    W32(k);
    size_t slots = n;
    n += 4 * (size_t)k;
    size_t vt_rd = n;
    W16(12), W16(8), W16(0), W16(0), W16(0), W16(4); /* RunData vtable: events at 4 */
    size_t rd = n;
    W32(P(rd) - P(vt_rd)), W32(0);
    size_t evvec = n;
    W32(ne);
    size_t evslots = n;
    n += 4 * (size_t)ne;
    size_t vt_ev = n;
    W16(6), W16(8), W16(4), W16(0);               /* Event vtable: profile_event at 4 */
    size_t ev = n;
    W32(P(ev) - P(vt_ev)), W32(0);
    size_t vt_pe = n;
    W16(20), W16(24), W16(4), W16(0), W16(0), W16(0), W16(0), W16(0), W16(8), W16(16);
    size_t pe = n;
    W32(P(pe) - P(vt_pe)), W32(0), W32(1), W32(0), W32(2), W32(0); /* name, start, end */
    size_t name = n;
    W32(len);
    memset(b + n, 'a', len);
    if (nul) b[n + len / 2] = 0;
    n += len + 1;
    n = (n + 3) & ~(size_t)3;
    REF(root + 4, rdvec);
    for (uint32_t i = 0; i < k; i++) REF(slots + 4 * (size_t)i, rd);
    REF(rd + 4, evvec);
    for (uint32_t i = 0; i < ne; i++) REF(evslots + 4 * (size_t)i, ev);
    REF(ev + 4, pe);
    REF(pe + 4, name);
    memcpy(b, &(uint32_t){(uint32_t)(n - 4)}, 4);
#undef P
#undef W16
#undef W32
#undef REF
    *size = n;
    return b;
}

/* Blocks that are all the same bytes: the layouts go over at most twice the buffer (+1 MiB),
 * so only that many blocks are compared as repeats; the others are verified object by object. */
static void check_repeat_bound(void) {
    size_t size;
    uint32_t k = 2000, len = 64 << 10;
    uint8_t *buf = shared_block_dump(k, 1, len, false, &size);
    etp_blob b;
    etp_blob_borrow(&b, buf, size, "shared");
    etp_error err = {0};
    etp_dump *d = NULL;
    int rc = etp_dump_open(&d, &b, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (d) {
        CHECK_EQ_U(etp_dump_get_info(d)->block_count, k);
        CHECK_EQ_U(etp_dump_get_info(d)->profile_count, k);
        int n = 0;
        int64_t delta;
        for (uint32_t i = 1; i < k; i++) n += etp__dump_same_layout(d, i - 1, i, &delta);
        /* each comparison goes over the extent: the name and the tables before it */
        uint64_t bound = (2 * (uint64_t)(size - 4) + (1u << 20)) / len + 1;
        CHECK_MSG(n >= 1 && (uint64_t)n <= bound, "%d repeats, at most %llu expected", n,
                  (unsigned long long)bound);
        CHECK_EQ_I(model_decode_dump(d), 0);
    }
    etp_dump_close(d);
    free(buf);
    /* One block of 5,000 events sharing one Event table whose 64 KiB name holds a NUL: the model
     * reads the name once and makes one escaped copy (every event's label is that copy), not
     * 5,000 copies of 64 KiB. */
    buf = shared_block_dump(1, 5000, len, true, &size);
    etp_blob_borrow(&b, buf, size, "shared");
    d = NULL;
    etp_model *m = NULL;
    CHECK(etp_dump_open(&d, &b, &err) == 0);
    if (d && etp_model_open(&m, d, NULL, NULL, &err) == 0) {
        etp_block_view v;
        CHECK(etp_model_block(m, 0, &v, &err) == 0);
        CHECK_EQ_U(v.n, 5000);
        const char *first = v.n ? v.events[0].label : NULL;
        int same = 0;
        for (uint32_t i = 0; i < v.n; i++)
            same += v.events[i].label == first && (v.events[i].flags & ETP_MF_ESCAPED);
        CHECK_EQ_I(same, 5000);
        /* the copy: 'a' x len/2, then \0, then the rest */
        CHECK(first && strlen(first) == (size_t)len + 1 && first[len / 2] == '\\' &&
              first[len / 2 + 1] == '0');
    }
    etp_model_close(m);
    etp_dump_close(d);
    free(buf);
}

static void check_model_decode(void) {
    int n = model_decode_dir(data_dir);
    CHECK_MSG(n > 10000, "only %d events checked", n);
}

/* The public opening API: a device that does not start like the expected kind is refused
 * before it is read (/dev/zero would otherwise be read to ETP_STDIN_MAX); sniffing; a dump
 * opened with options (background, progress) gives the same counts as etp_dump_open(). */
static void progress_count(void *ctx, uint64_t done, uint64_t total) {
    uint64_t *c = ctx;
    c[0]++;
    c[1] = done;
    c[2] = total;
}

static void check_open_api(void) {
    static const unsigned kinds[] = {ETP_EXPECT_DUMP, ETP_EXPECT_PROGRAM,
                                     ETP_EXPECT_DUMP | ETP_EXPECT_PROGRAM};
    /* located at the identifier: byte 8 of a size-prefixed ETDump, byte 4 of a program */
    static const int64_t at[] = {8, 4, 8};
    for (size_t i = 0; i < 3; i++) {
        etp_blob b;
        etp_error err = {0};
        int rc = etp_blob_open_expect(&b, "/dev/zero", kinds[i], &err);
        CHECK_EQ_I(rc, ETP_E_INPUT);
        CHECK_EQ_I(err.offset, at[i]);
        CHECK(strcmp(err.file, "/dev/zero") == 0);
        if (!rc) etp_blob_close(&b);
    }
    static const uint8_t prog_head[16] = {0x1c, 0, 0, 0, 'E', 'T', '1', '2'};
    static const uint8_t dump_head[16] = {0x10, 0, 0, 0, 0x08, 0, 0, 0, 'E', 'D', '0', '0'};
    CHECK_EQ_I(etp_sniff_kind(prog_head, sizeof prog_head), ETP_FILE_PROGRAM);
    CHECK_EQ_I(etp_sniff_kind(dump_head, sizeof dump_head), ETP_FILE_ETDUMP);
    CHECK_EQ_I(etp_sniff_kind((const uint8_t *)"PK\3\4xxxxxxxxxxxx", 16), ETP_FILE_ZIP);

    char path[1024];
    snprintf(path, sizeof path, "%s/real/add_pte_100x.etdp", data_dir);
    etp_blob b;
    etp_error err = {0};
    CHECK(etp_blob_open_expect(&b, path, ETP_EXPECT_DUMP, &err) == 0);
    etp_dump *d0 = NULL, *d1 = NULL, *d2 = NULL;
    CHECK(etp_dump_open(&d0, &b, &err) == 0);
    uint64_t calls[3] = {0};
    etp_dump_open_opts po = {.progress = progress_count, .progress_ctx = calls};
    CHECK(etp_dump_open_with(&d1, &b, &po, &err) == 0);
    etp_dump_open_opts bo = {.background = true};
    CHECK(etp_dump_open_with(&d2, &b, &bo, &err) == 0);
    CHECK(d2 && etp_dump_wait_verified(d2, &err) == 0);
    CHECK(d0 && etp_dump_wait_verified(d0, &err) == 0); /* not opened in the background: at once */
    if (d0 && d1 && d2) {
        uint32_t nb = etp_dump_get_info(d0)->block_count;
        CHECK_EQ_U(nb, 101); /* tests/data/MANIFEST.md: 101 run_data blocks */
        CHECK_EQ_U(calls[1], nb);
        CHECK_EQ_U(calls[2], nb);
        CHECK(calls[0] >= 1);
        CHECK_EQ_U(etp_dump_get_info(d1)->event_count, etp_dump_get_info(d0)->event_count);
        CHECK_EQ_U(etp_dump_get_info(d2)->event_count, etp_dump_get_info(d0)->event_count);
    }
    etp_dump_close(d0);
    etp_dump_close(d1);
    etp_dump_close(d2);
    etp_blob_close(&b);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_readers DATA_DIR\n");
        return 2;
    }
    data_dir = argv[1];
    char path[1024];
    snprintf(path, sizeof path, "%s/manifest_facts.json", data_dir);
    json_error_t je;
    json_t *facts = json_load_file(path, 0, &je);
    CHECK_MSG(facts != NULL, "%s: %s", path, je.text);
    if (facts) {
        size_t i;
        json_t *f;
        CHECK(json_array_size(json_object_get(facts, "etdumps")) >= 20);
        json_array_foreach(json_object_get(facts, "etdumps"), i, f) check_dump(f);
        check_ethosu(facts);
        json_decref(facts);
    }
    check_upstream_golden();
    check_programs();
    check_model_decode();
    check_fast_verifier();
    check_repeated_blocks();
    check_repeat_bound();
    check_open_api();
    return check_done();
}
