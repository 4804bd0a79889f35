/* cmd_info.c - `etprof info FILE [--pte P]`: what an ETDump or a program holds. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct block_sum {
    etp_block_info bi; /* bi.name: a copy (see keep_name) */
    uint32_t by_type[4];
    int plan;
    const char *method;
    uint32_t candidates;
    etp_method_basis basis;     /* how its method was decided */
    uint32_t ncand;             /* an ambiguous block: the fitting methods (program strings) */
    const char *cand[4];
    bool owns_name;
} block_sum;

/* The block's name, kept in memory: the pass over a large file gives the file's pages back as it
 * goes, and mapping one page again per block for the output would cost more than the copy. A
 * block named like the one before it (usually "Execute") shares its copy. */
static bool keep_name(block_sum *bs, uint32_t b) {
    etp_str *n = &bs[b].bi.name;
    if (!n->ptr) return true;
    if (b > 0 && bs[b - 1].bi.name.ptr && bs[b - 1].bi.name.len == n->len &&
        memcmp(bs[b - 1].bi.name.ptr, n->ptr, n->len) == 0) {
        n->ptr = bs[b - 1].bi.name.ptr;
        return true;
    }
    char *c = malloc((size_t)n->len + 1);
    if (!c) return false;
    memcpy(c, n->ptr, (size_t)n->len + 1);
    n->ptr = c;
    bs[b].owns_name = true;
    return true;
}

static void free_block_sums(block_sum *bs, uint32_t n) {
    if (!bs) return;
    for (uint32_t b = 0; b < n; b++)
        if (bs[b].owns_name) free((char *)bs[b].bi.name.ptr);
    free(bs);
}

#define MAX_NAMES 64

typedef struct name_count {
    const char *name;
    uint64_t n;
} name_count;

static void bump(name_count *t, uint32_t *nt, const char *name) {
    if (!name) return;
    for (uint32_t i = 0; i < *nt; i++)
        if (strcmp(t[i].name, name) == 0) {
            t[i].n++;
            return;
        }
    if (*nt < MAX_NAMES) t[(*nt)++] = (name_count){name, 1};
}

static bool same_block(const block_sum *a, const block_sum *b) {
    return a->bi.name.ptr && b->bi.name.ptr && strcmp(a->bi.name.ptr, b->bi.name.ptr) == 0 &&
           memcmp(a->by_type, b->by_type, sizeof a->by_type) == 0 && a->plan == b->plan &&
           a->bi.allocator_count == b->bi.allocator_count;
}

static int info_dump(cli_args *a, const char *path, etp_blob *blob) {
    cli_inputs in;
    /* the blocks are verified by a second thread while this one classifies them */
    int rc = cli_open_inputs_blob_kinds(a, blob, &in);
    if (rc) return rc;
    const etp_dump_info *di = etp_dump_get_info(in.dump);
    block_sum *bs = calloc(di->block_count ? di->block_count : 1, sizeof *bs);
    if (!bs) {
        cli_errorf("out of memory");
        cli_close_inputs(&in);
        return EXIT_INTERNAL;
    }
    uint64_t kinds[ETP_KIND_COUNT_] = {0};
    name_count methods[MAX_NAMES], backends[MAX_NAMES];
    uint32_t nmethods = 0, nbackends = 0;
    etp_error err = {0};
    for (uint32_t b = 0; b < di->block_count; b++) {
        etp_block_view v;
        if ((rc = etp_model_block(in.model, b, &v, &err))) {
            cli_error(&err);
            free_block_sums(bs, b);
            cli_close_inputs(&in);
            return cli_exit_for(rc);
        }
        bs[b].bi = v.info;
        if (!keep_name(bs, b)) {
            cli_errorf("out of memory");
            free_block_sums(bs, b);
            cli_close_inputs(&in);
            return EXIT_INTERNAL;
        }
        bs[b].plan = v.plan;
        bs[b].method = v.method;
        bs[b].candidates = v.candidates;
        bs[b].basis = v.method_basis;
        bs[b].ncand = v.n_candidate_names < 4 ? v.n_candidate_names : 4;
        for (uint32_t k = 0; k < bs[b].ncand; k++) bs[b].cand[k] = v.candidate_names[k];
        if (v.is_execute && v.method) bump(methods, &nmethods, v.method);
        for (uint32_t i = 0; i < v.n; i++) {
            const etp_mevent *e = &v.events[i];
            bs[b].by_type[e->ev.type & 3]++;
            kinds[e->kind]++;
            if (e->kind == ETP_KIND_DELEGATE_CALL && e->backend) bump(backends, &nbackends, e->backend);
        }
        cli_progress(a, "info", b + 1, di->block_count);
    }
    cli_progress_end(a);
    if ((rc = etp_dump_wait_verified(in.dump, &err))) { /* the counts are complete from here */
        cli_error(&err);
        free_block_sums(bs, di->block_count);
        cli_close_inputs(&in);
        return cli_exit_for(rc);
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        free_block_sums(bs, di->block_count);
        cli_close_inputs(&in);
        return rc;
    }
    FILE *f = o.f;
    if (a->fmt == OUT_JSON) {
        jw w;
        jw_init(&w, f, true);
        jw_obj_begin(&w);
        jw_key(&w, "schema_version"); jw_int(&w, 1);
        jw_key(&w, "file"); jw_str(&w, path);
        jw_key(&w, "kind"); jw_str(&w, "etdump");
        jw_key(&w, "size_bytes"); jw_uint(&w, in.dump_blob.size);
        jw_key(&w, "size_prefixed"); jw_bool(&w, di->size_prefixed);
        jw_key(&w, "version"); jw_uint(&w, di->version);
        jw_key(&w, "block_count"); jw_uint(&w, di->block_count);
        jw_key(&w, "events");
        jw_obj_begin(&w);
        jw_key(&w, "total"); jw_uint(&w, di->event_count);
        jw_key(&w, "profile"); jw_uint(&w, di->profile_count);
        jw_key(&w, "allocation"); jw_uint(&w, di->allocation_count);
        jw_key(&w, "debug"); jw_uint(&w, di->debug_count);
        jw_key(&w, "none"); jw_uint(&w, di->none_count);
        jw_obj_end(&w);
        jw_key(&w, "kinds");
        jw_obj_begin(&w);
        for (int k = 1; k < ETP_KIND_COUNT_; k++) {
            jw_key(&w, etp_kind_name((etp_kind)k));
            jw_uint(&w, kinds[k]);
        }
        jw_obj_end(&w);
        jw_key(&w, "program");
        if (a->set[OPT_PTE]) jw_str(&w, a->val[OPT_PTE]);
        else jw_null(&w);
        jw_key(&w, "methods");
        jw_arr_begin(&w);
        for (uint32_t i = 0; i < nmethods; i++) {
            jw_obj_begin(&w);
            jw_key(&w, "name"); jw_str(&w, methods[i].name);
            jw_key(&w, "runs"); jw_uint(&w, methods[i].n);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        {
            const char *first = NULL;
            uint32_t nm = in.model ? etp_model_mismatch(in.model, &first) : 0;
            jw_key(&w, "program_mismatch");
            jw_obj_begin(&w);
            jw_key(&w, "blocks"); jw_uint(&w, nm);
            jw_key(&w, "first");
            if (nm) jw_str(&w, first);
            else jw_null(&w);
            jw_obj_end(&w);
        }
        jw_key(&w, "backends");
        jw_arr_begin(&w);
        for (uint32_t i = 0; i < nbackends; i++) {
            jw_obj_begin(&w);
            jw_key(&w, "id"); jw_str(&w, backends[i].name);
            jw_key(&w, "delegate_calls"); jw_uint(&w, backends[i].n);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_key(&w, "blocks");
        jw_arr_begin(&w);
        for (uint32_t b = 0; b < di->block_count; b++) {
            jw_obj_begin(&w);
            jw_key(&w, "index"); jw_uint(&w, b);
            jw_key(&w, "name"); jw_str(&w, bs[b].bi.name.ptr);
            jw_key(&w, "bundled_input_index"); jw_int(&w, bs[b].bi.bundled_input_index);
            jw_key(&w, "events"); jw_uint(&w, bs[b].bi.event_count);
            jw_key(&w, "profile"); jw_uint(&w, bs[b].by_type[ETP_EVENT_PROFILE]);
            jw_key(&w, "allocation"); jw_uint(&w, bs[b].by_type[ETP_EVENT_ALLOCATION]);
            jw_key(&w, "debug"); jw_uint(&w, bs[b].by_type[ETP_EVENT_DEBUG]);
            jw_key(&w, "allocators");
            jw_arr_begin(&w);
            for (uint32_t k = 0; k < bs[b].bi.allocator_count; k++)
                jw_str(&w, etp_dump_allocator_name(in.dump, b, k).ptr);
            jw_arr_end(&w);
            jw_key(&w, "method"); jw_str(&w, bs[b].method);
            jw_key(&w, "method_candidates"); jw_uint(&w, bs[b].candidates);
            jw_key(&w, "method_basis"); jw_str(&w, etp_method_basis_name(bs[b].basis));
            jw_key(&w, "method_candidate_names");
            jw_arr_begin(&w);
            for (uint32_t k = 0; k < bs[b].ncand; k++) jw_str(&w, bs[b].cand[k]);
            jw_arr_end(&w);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_obj_end(&w);
        rc = jw_finish(&w) ? EXIT_IO : EXIT_OK;
        fputc('\n', f);
    } else {
        FILE *out = f;
        char *hbuf = NULL;
        size_t hlen = 0;
        if (a->fmt == OUT_TABLE && o.width) {
            /* the lines are wrapped under their values to fit the terminal */
            f = open_memstream(&hbuf, &hlen);
            if (!f) f = out;
        }
        if (a->fmt == OUT_TABLE) {
            fprintf(f, "file       %s\n", path);
            fprintf(f, "kind       ETDump, %s, version %u, %zu bytes\n",
                    di->size_prefixed ? "size-prefixed" : "not size-prefixed", di->version,
                    in.dump_blob.size);
            fprintf(f, "events     %llu (profile %llu, allocation %llu, debug %llu",
                    (unsigned long long)di->event_count, (unsigned long long)di->profile_count,
                    (unsigned long long)di->allocation_count, (unsigned long long)di->debug_count);
            if (di->none_count) fprintf(f, ", empty %llu", (unsigned long long)di->none_count);
            fprintf(f, ")\nkinds     ");
            for (int k = 1; k < ETP_KIND_COUNT_; k++)
                if (kinds[k]) fprintf(f, " %s %llu", etp_kind_name((etp_kind)k), (unsigned long long)kinds[k]);
            fprintf(f, "\n");
            if (a->set[OPT_PTE]) {
                fprintf(f, "program    %s\nmethods   ", a->val[OPT_PTE]);
                /* method and backend names come from the program: written as table cells are
                 * (valid UTF-8, control characters as spaces) */
                for (uint32_t i = 0; i < nmethods; i++) {
                    char *n = out_text_dup(methods[i].name);
                    fprintf(f, " %s (%llu runs)", n ? n : "?", (unsigned long long)methods[i].n);
                    free(n);
                }
                if (!nmethods) fprintf(f, " none resolved");
                fprintf(f, "\nbackends  ");
                for (uint32_t i = 0; i < nbackends; i++) {
                    char *n = out_text_dup(backends[i].name);
                    fprintf(f, " %s (%llu delegate calls)", n ? n : "?",
                            (unsigned long long)backends[i].n);
                    free(n);
                }
                if (!nbackends) fprintf(f, " none (no DELEGATE_CALL)");
                fprintf(f, "\n");
                const char *first = NULL;
                uint32_t nm = in.model ? etp_model_mismatch(in.model, &first) : 0;
                if (nm)
                    out_wrapf(f, o.width, 11,
                              "warning    PROGRAM MISMATCH ignored (--ignore-program-mismatch): %u "
                              "block(s) do not fit the program and are shown without method or "
                              "backends; first: %s\n",
                              nm, first);
            } else {
                fprintf(f, "program    not given: --pte names the methods, operators and backends\n");
            }
            fprintf(f, "\n");
        }
        if (f != out) {
            bool ok = fclose(f) == 0;
            f = out;
            if (ok) out_wrap(f, o.width, NULL, 11, hbuf);
            free(hbuf);
            if (!ok) {
                cli_errorf("out of memory");
                rc = EXIT_INTERNAL;
            }
        }
        static const out_col cols[] = {
            {"block", "block", OUT_STR, 0},        {"name", "name", OUT_STR, 0},
            {"runs", "runs", OUT_UINT, 0},         {"events", "events", OUT_UINT, 0},
            {"profile", "profile", OUT_UINT, 0},   {"allocation", "allocation", OUT_UINT, 0},
            {"debug", "debug", OUT_UINT, 0},       {"allocators", "allocators", OUT_UINT, 0},
            {"method", "method", OUT_STR, 0},
        };
        out_table *t = cli_table(a, &o, cols, sizeof cols / sizeof cols[0]);
        /* a narrow terminal loses these first (out_table_set_droppable) */
        static const char *const drop[] = {"allocators:6", "allocation:5", "debug:4",
                                           "profile:3", "runs:2", "events:1", NULL};
        if (t) out_table_set_droppable(t, drop);
        bool collapse = a->fmt == OUT_TABLE || a->fmt == OUT_MD;
        for (uint32_t b = 0; b < di->block_count;) {
            uint32_t e = b + 1;
            if (collapse)
                while (e < di->block_count && same_block(&bs[b], &bs[e])) e++;
            char range[48];
            if (e - b > 1) snprintf(range, sizeof range, "%u-%u", b, e - 1);
            else snprintf(range, sizeof range, "%u", b);
            char meth[160];
            snprintf(meth, sizeof meth, "%s", bs[b].method ? bs[b].method : "");
            if (bs[b].candidates > 1) {
                size_t k = strlen(meth);
                k += (size_t)snprintf(meth + k, sizeof meth - k, "(ambiguous:");
                for (uint32_t q = 0; q < bs[b].ncand && k < sizeof meth; q++)
                    k += (size_t)snprintf(meth + k, sizeof meth - k, "%s%.40s", q ? ", " : " ",
                                          bs[b].cand[q]);
                if (k < sizeof meth) snprintf(meth + k, sizeof meth - k, ")");
            }
            out_row_begin(t);
            out_cell_str(t, range);
            out_cell_str(t, bs[b].bi.name.ptr);
            out_cell_uint(t, e - b);
            out_cell_uint(t, bs[b].bi.event_count);
            out_cell_uint(t, bs[b].by_type[ETP_EVENT_PROFILE]);
            out_cell_uint(t, bs[b].by_type[ETP_EVENT_ALLOCATION]);
            out_cell_uint(t, bs[b].by_type[ETP_EVENT_DEBUG]);
            out_cell_uint(t, bs[b].bi.allocator_count);
            out_cell_str(t, meth[0] ? meth : NULL);
            out_row_end(t);
            b = e;
        }
        int frc = out_table_finish(t) ? EXIT_IO : EXIT_OK;
        if (!rc) rc = frc;
        out_table_free(t);
    }
    free_block_sums(bs, di->block_count);
    cli_close_inputs(&in);
    return cli_out_close(&o, rc);
}

static int info_program(cli_args *a, const char *path, etp_blob *blob) {
    etp_error err = {0};
    etp_program *p = NULL;
    int rc = etp_program_open(&p, blob, &err);
    if (rc) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        etp_program_close(p);
        return rc;
    }
    const etp_program_info *pi = etp_program_get_info(p);
    jw w;
    out_table *t = NULL;
    static const out_col cols[] = {
        {"method", "method", OUT_STR, 0},        {"instructions", "instructions", OUT_UINT, 0},
        {"kernel", "kernel", OUT_UINT, 0},       {"delegate", "delegate", OUT_UINT, 0},
        {"move", "move", OUT_UINT, 0},           {"jump_false", "jump_false", OUT_UINT, 0},
        {"free", "free", OUT_UINT, 0},           {"operators", "operators", OUT_UINT, 0},
        {"backends", "backends", OUT_STR, 0},
    };
    if (a->fmt == OUT_JSON) {
        jw_init(&w, o.f, true);
        jw_obj_begin(&w);
        jw_key(&w, "schema_version"); jw_int(&w, 1);
        jw_key(&w, "file"); jw_str(&w, path);
        jw_key(&w, "kind"); jw_str(&w, "program");
        jw_key(&w, "size_bytes"); jw_uint(&w, blob->size);
        jw_key(&w, "bundled"); jw_bool(&w, pi->bundled);
        jw_key(&w, "version"); jw_uint(&w, pi->version);
        jw_key(&w, "segments"); jw_uint(&w, pi->segment_count);
        jw_key(&w, "methods");
        jw_arr_begin(&w);
    } else {
        if (a->fmt == OUT_TABLE)
            out_wrapf(o.f, o.width, 11, "file       %s\nkind       ExecuTorch %sprogram, version %u, %zu bytes, "
                         "%u methods, %u segments\n\n",
                    path, pi->bundled ? "bundled " : "", pi->version, blob->size, pi->plan_count,
                    pi->segment_count);
        t = cli_table(a, &o, cols, sizeof cols / sizeof cols[0]);
        static const char *const drop[] = {"free:7", "jump_false:6", "move:5", "operators:4",
                                           "delegate:3", "kernel:2", "instructions:1", NULL};
        if (t) out_table_set_droppable(t, drop);
    }
    for (uint32_t pl = 0; pl < pi->plan_count; pl++) {
        etp_plan_info pli;
        etp_program_plan(p, pl, &pli);
        uint32_t counts[6] = {0}, total = 0;
        uint32_t *op_calls = calloc(pli.operator_count + 1, sizeof *op_calls);
        uint32_t *del_calls = calloc(pli.delegate_count + 1, sizeof *del_calls);
        if (!op_calls || !del_calls) {
            free(op_calls);
            free(del_calls);
            rc = EXIT_INTERNAL;
            break;
        }
        for (uint32_t c = 0; c < pli.chain_count; c++) {
            etp_chain_info ci;
            etp_program_chain(p, pl, c, &ci);
            for (uint32_t i = 0; i < ci.instruction_count; i++) {
                etp_instruction ins;
                etp_program_instruction(p, pl, c, i, &ins);
                counts[ins.kind < 6 ? ins.kind : 0]++;
                total++;
                if (ins.kind == ETP_INSTR_KERNEL && ins.index >= 0 &&
                    (uint32_t)ins.index < pli.operator_count)
                    op_calls[ins.index]++;
                if (ins.kind == ETP_INSTR_DELEGATE && ins.index >= 0 &&
                    (uint32_t)ins.index < pli.delegate_count)
                    del_calls[ins.index]++;
            }
        }
        char backends[256] = "";
        size_t bl = 0;
        for (uint32_t d = 0; d < pli.delegate_count; d++) {
            etp_delegate dl;
            etp_program_delegate(p, pl, d, &dl);
            const char *id = dl.id.ptr ? dl.id.ptr : "?";
            if (strstr(backends, id)) continue;
            int wn = snprintf(backends + bl, sizeof backends - bl, "%s%s", bl ? "," : "", id);
            if (wn > 0 && (size_t)wn < sizeof backends - bl) bl += (size_t)wn;
        }
        if (a->fmt == OUT_JSON) {
            jw_obj_begin(&w);
            jw_key(&w, "name"); jw_str(&w, pli.name.ptr);
            jw_key(&w, "inputs"); jw_uint(&w, pli.input_count);
            jw_key(&w, "outputs"); jw_uint(&w, pli.output_count);
            jw_key(&w, "values"); jw_uint(&w, pli.value_count);
            jw_key(&w, "chains"); jw_uint(&w, pli.chain_count);
            jw_key(&w, "instructions");
            jw_obj_begin(&w);
            jw_key(&w, "total"); jw_uint(&w, total);
            for (int k = 1; k <= 5; k++) {
                jw_key(&w, etp_instr_kind_name((etp_instr_kind)k));
                jw_uint(&w, counts[k]);
            }
            jw_obj_end(&w);
            jw_key(&w, "operators");
            jw_arr_begin(&w);
            for (uint32_t k = 0; k < pli.operator_count; k++) {
                etp_operator op;
                etp_program_operator(p, pl, k, &op);
                jw_obj_begin(&w);
                jw_key(&w, "name"); jw_str(&w, op.name.ptr);
                jw_key(&w, "overload"); jw_str(&w, op.overload.ptr);
                jw_key(&w, "calls"); jw_uint(&w, op_calls[k]);
                jw_obj_end(&w);
            }
            jw_arr_end(&w);
            jw_key(&w, "delegates");
            jw_arr_begin(&w);
            for (uint32_t k = 0; k < pli.delegate_count; k++) {
                etp_delegate dl;
                etp_program_delegate(p, pl, k, &dl);
                jw_obj_begin(&w);
                jw_key(&w, "id"); jw_str(&w, dl.id.ptr);
                jw_key(&w, "calls"); jw_uint(&w, del_calls[k]);
                jw_key(&w, "compile_specs");
                jw_arr_begin(&w);
                for (uint32_t s = 0; s < dl.compile_spec_count; s++) {
                    etp_compile_spec cs;
                    etp_program_compile_spec(p, pl, k, s, &cs);
                    jw_obj_begin(&w);
                    jw_key(&w, "key"); jw_str(&w, cs.key.ptr);
                    jw_key(&w, "value_bytes"); jw_uint(&w, cs.value.len);
                    jw_obj_end(&w);
                }
                jw_arr_end(&w);
                jw_obj_end(&w);
            }
            jw_arr_end(&w);
            jw_obj_end(&w);
        } else {
            out_row_begin(t);
            out_cell_str(t, pli.name.ptr);
            out_cell_uint(t, total);
            for (int k = 1; k <= 5; k++) out_cell_uint(t, counts[k]);
            out_cell_uint(t, pli.operator_count);
            out_cell_str(t, backends[0] ? backends : NULL);
            out_row_end(t);
        }
        free(op_calls);
        free(del_calls);
    }
    if (a->fmt == OUT_JSON) {
        jw_arr_end(&w);
        jw_obj_end(&w);
        if (jw_finish(&w)) rc = EXIT_IO;
        fputc('\n', o.f);
    } else {
        if (out_table_finish(t)) rc = EXIT_IO;
        out_table_free(t);
    }
    etp_program_close(p);
    return cli_out_close(&o, rc);
}

static int run_info(cli_args *a) {
    const char *path = a->pos[0];
    etp_blob blob;
    etp_error err = {0};
    size_t pl = strlen(path);
    bool pte_name = (pl > 4 && strcmp(path + pl - 4, ".pte") == 0) ||
                    (pl > 5 && strcmp(path + pl - 5, ".bpte") == 0);
    /* a pipe or device that does not start like a dump or a program is rejected before the
     * rest of it is read */
    int rc = etp_blob_open_expect(&blob, path,
                                  pte_name ? ETP_EXPECT_ANY : ETP_EXPECT_DUMP | ETP_EXPECT_PROGRAM,
                                  &err);
    if (rc) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    etp_file_kind k = etp_sniff_kind(blob.data, blob.size);
    /* A program whose identifier is damaged is still a program: let its reader say what is
     * wrong rather than "not an ETDump". */
    if (k == ETP_FILE_PROGRAM || k == ETP_FILE_BUNDLED || (k == ETP_FILE_UNKNOWN && pte_name)) {
        if (a->set[OPT_PTE]) {
            etp_blob_close(&blob);
            cli_errorf("info: %s is a program; --pte applies to ETDumps", path);
            return EXIT_USAGE;
        }
        rc = info_program(a, path, &blob);
        etp_blob_close(&blob);
        return rc;
    }
    return info_dump(a, path, &blob);
}

static const opt_id info_opts[] = {OPT_PTE, OPT_METHOD, OPT_IGNORE_MISMATCH, OPT_TICK_NS, OPT_TICK_HZ, OPT_TICKS, 0};

const cli_cmd cmd_info = {
    .name = "info",
    .summary = "what a file is and holds: blocks, events by kind, methods, backends",
    .usage = "FILE [--pte P]",
    .help = "FILE is an ETDump (.etdp) or a program (.pte/.bpte). For an ETDump, --pte resolves\n"
            "which method each Execute block ran and which backends its delegate calls used.",
    .opts = info_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_info,
};
