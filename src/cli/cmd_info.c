/* cmd_info.c - `etprof info FILE [--pte P]`: what an ETDump or a program holds. */
#include "cli.h"
#include "etprof_arm_pmu.h"
#include "etprof_backend.h"
#include "etprof_qnn.h"

#include <stdlib.h>
#include <string.h>

static bool same_block(const etp_census_block *a, const etp_census_block *b) {
    return a->info.name.ptr && b->info.name.ptr && strcmp(a->info.name.ptr, b->info.name.ptr) == 0 &&
           memcmp(a->by_type, b->by_type, sizeof a->by_type) == 0 && a->plan == b->plan &&
           a->info.allocator_count == b->info.allocator_count;
}

/* Closes the text and adds it to `sec` as prose wrapped to the terminal under the values (column
 * 11); false when out of memory. */
static bool text_add(etp_section *sec, cli_text *b) {
    bool ok = cli_text_close(b);
    if (ok) etp_section_text(sec, ETP_TEXT_WRAP, NULL, 11, b->p);
    free(b->p);
    return ok;
}

/* A name from the program written as table cells are (valid UTF-8, control characters as
 * spaces). */
static void put_safe(FILE *f, const char *name) {
    char *n = etp_text_safe(name);
    fputs(n ? n : "?", f);
    free(n);
}

/* The table format's lines above the blocks: file, kind, events, kinds, and with --pte the
 * program, methods, backends and a mismatch that was ignored. Each line is wrapped under its
 * value (out_wrap is line by line, so the lines may go in several blocks). */
static bool dump_header(etp_section *sec, cli_args *a, const char *path, const etp_dump_info *di,
                        const cli_inputs *in, const uint64_t *kinds,
                        const etp_census_count *methods, uint32_t nmethods,
                        const etp_census_count *backends, uint32_t nbackends, uint32_t nm,
                        const char *first) {
    cli_text b;
    if (!cli_text_open(&b)) return false;
    FILE *f = b.f;
    fprintf(f, "file       %s\n", path);
    const char *src = etp_dump_source_kind(in->dump);
    fprintf(f, "kind       ETDump, %s, version %u, %llu bytes",
            di->size_prefixed ? "size-prefixed" : "not size-prefixed", di->version,
            (unsigned long long)etp_dump_byte_size(in->dump));
    if (strcmp(src, "etdump") != 0)
        fprintf(f, " (decoded from %s of %zu bytes)",
                strcmp(src, "base64") == 0 ? "a base64 file" : "the base64 in an Arm runner's serial log",
                in->dump_blob.size);
    fprintf(f, "\n");
    const etp_arm_pmu_report *pmu = etp_dump_arm_pmu(in->dump);
    if (pmu && pmu->present)
        fprintf(f, "pmu        the log's Ethos-U PMU report, line %llu: %llu inference(s) "
                   "(etprof summary shows it)\n",
                (unsigned long long)pmu->line, (unsigned long long)pmu->inferences);
    fprintf(f, "events     %llu (profile %llu, allocation %llu, debug %llu",
            (unsigned long long)di->event_count, (unsigned long long)di->profile_count,
            (unsigned long long)di->allocation_count, (unsigned long long)di->debug_count);
    if (di->none_count) fprintf(f, ", empty %llu", (unsigned long long)di->none_count);
    fprintf(f, ")\nkinds     ");
    for (int k = 1; k < ETP_KIND_COUNT_; k++)
        if (kinds[k]) fprintf(f, " %s %llu", etp_kind_name((etp_kind)k), (unsigned long long)kinds[k]);
    fprintf(f, "\n");
    if (!a->set[OPT_PTE]) {
        fprintf(f, "program    not given: --pte names the methods, operators and backends\n\n");
        return text_add(sec, &b);
    }
    fprintf(f, "program    %s\nmethods   ", a->val[OPT_PTE]);
    for (uint32_t i = 0; i < nmethods; i++) {
        fputc(' ', f);
        put_safe(f, methods[i].name);
        fprintf(f, " (%llu runs)", (unsigned long long)methods[i].n);
    }
    if (!nmethods) fprintf(f, " none resolved");
    fprintf(f, "\nbackends  ");
    for (uint32_t i = 0; i < nbackends; i++) {
        fputc(' ', f);
        put_safe(f, backends[i].name);
        fprintf(f, " (%llu delegate calls)", (unsigned long long)backends[i].n);
    }
    if (!nbackends) fprintf(f, " none (no DELEGATE_CALL)");
    fprintf(f, "\n");
    if (!text_add(sec, &b)) return false;
    if (nm)
        etp_section_textf(sec, ETP_TEXT_WRAP, 11,
                          "warning    PROGRAM MISMATCH ignored (--ignore-program-mismatch): %u "
                          "block(s) do not fit the program and are shown without method or "
                          "backends; first: %s\n",
                          nm, first);
    const char *cf = NULL;
    uint32_t nc = in->model ? etp_model_method_conflict(in->model, &cf) : 0;
    if (nc)
        etp_section_textf(sec, ETP_TEXT_WRAP, 11,
                          "warning    WARNING: the method given contradicts the files in %u "
                          "block(s), shown under the given name; first: %s\n",
                          nc, cf);
    etp_section_text(sec, ETP_TEXT_WRAP, NULL, 11, "\n");
    return true;
}

static void census_progress(void *ctx, uint64_t done, uint64_t total) {
    cli_progress(ctx, "info", done, total);
}

static int info_dump(cli_args *a, const char *path, etp_blob *blob) {
    cli_inputs in;
    /* the blocks are verified by a second thread while this one classifies them */
    int rc = cli_open_inputs_blob_kinds(a, blob, &in);
    if (rc) return rc;
    const etp_dump_info *di = etp_dump_get_info(in.dump);
    etp_error err = {0};
    etp_census *cen = NULL;
    etp_census_opts co = {census_progress, a};
    rc = etp_census_compute(in.model, &co, &cen, &err);
    cli_progress_end(a);
    /* the counts are complete from here */
    if (rc || (rc = etp_dump_wait_verified(in.dump, &err))) {
        cli_error(&err);
        etp_census_free(cen);
        cli_close_inputs(&in);
        return cli_exit_for(rc);
    }
    uint32_t nblocks, nmethods, nbackends;
    const etp_census_block *bs = etp_census_blocks(cen, &nblocks);
    const uint64_t *kinds = etp_census_kinds(cen);
    const etp_census_count *methods = etp_census_methods(cen, &nmethods);
    const etp_census_count *backends = etp_census_backends(cen, &nbackends);
    cli_out o;
    if ((rc = cli_out_open(a, &o))) {
        etp_census_free(cen);
        cli_close_inputs(&in);
        return rc;
    }
    const char *first = NULL;
    uint32_t nm = in.model ? etp_model_mismatch(in.model, &first) : 0;
    etp_doc *doc = etp_doc_new("info", 1, path, a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL);
    etp_doc_json_omit(doc, ETP_JSON_NO_NOTES);
    if (a->fmt == ETP_FMT_JSON) {
        /* {schema_version, file, kind, ..., kinds, program, methods, ...} (0.1.0) */
        etp_node *root = etp_doc_root(doc);
        etp_node_str(root, "kind", "etdump");
        etp_node_uint(root, "size_bytes", etp_dump_byte_size(in.dump));
        if (strcmp(etp_dump_source_kind(in.dump), "etdump") != 0) {
            /* a log or a base64 file: what the file was (additive) */
            etp_node *so = etp_node_obj(root, "source");
            etp_node_str(so, "kind", etp_dump_source_kind(in.dump));
            etp_node_uint(so, "size_bytes", in.dump_blob.size);
            const etp_arm_pmu_report *pmu = etp_dump_arm_pmu(in.dump);
            if (pmu && pmu->present) etp_node_uint(so, "pmu_report_line", pmu->line);
            else etp_node_null(so, "pmu_report_line");
        }
        etp_node_bool(root, "size_prefixed", di->size_prefixed);
        etp_node_uint(root, "version", di->version);
        etp_node_uint(root, "block_count", di->block_count);
        etp_node *ev = etp_node_obj(root, "events");
        etp_node_uint(ev, "total", di->event_count);
        etp_node_uint(ev, "profile", di->profile_count);
        etp_node_uint(ev, "allocation", di->allocation_count);
        etp_node_uint(ev, "debug", di->debug_count);
        etp_node_uint(ev, "none", di->none_count);
        etp_node *ki = etp_node_obj(root, "kinds");
        for (int k = 1; k < ETP_KIND_COUNT_; k++) etp_node_uint(ki, etp_kind_name((etp_kind)k), kinds[k]);
        etp_doc_program_here(doc);
        etp_node *ma = etp_node_arr(root, "methods");
        for (uint32_t i = 0; i < nmethods; i++) {
            etp_node *mo = etp_node_obj(ma, NULL);
            etp_node_str(mo, "name", methods[i].name);
            etp_node_uint(mo, "runs", methods[i].n);
        }
        etp_node *pm = etp_node_obj(root, "program_mismatch");
        etp_node_uint(pm, "blocks", nm);
        etp_node_str(pm, "first", nm ? first : NULL);
        const char *cf = NULL;
        uint32_t nc = in.model ? etp_model_method_conflict(in.model, &cf) : 0;
        etp_node *mc = etp_node_obj(root, "method_conflict");
        etp_node_uint(mc, "blocks", nc);
        etp_node_str(mc, "first", nc ? cf : NULL);
        etp_node *ba = etp_node_arr(root, "backends");
        for (uint32_t i = 0; i < nbackends; i++) {
            etp_node *bo = etp_node_obj(ba, NULL);
            etp_node_str(bo, "id", backends[i].name);
            etp_node_uint(bo, "delegate_calls", backends[i].n);
        }
        etp_node *bl = etp_node_arr(root, "blocks");
        for (uint32_t b = 0; b < di->block_count; b++) {
            etp_node *bo = etp_node_obj(bl, NULL);
            etp_node_uint(bo, "index", b);
            etp_node_str(bo, "name", bs[b].info.name.ptr);
            etp_node_int(bo, "bundled_input_index", bs[b].info.bundled_input_index);
            etp_node_uint(bo, "events", bs[b].info.event_count);
            etp_node_uint(bo, "profile", bs[b].by_type[ETP_EVENT_PROFILE]);
            etp_node_uint(bo, "allocation", bs[b].by_type[ETP_EVENT_ALLOCATION]);
            etp_node_uint(bo, "debug", bs[b].by_type[ETP_EVENT_DEBUG]);
            etp_node *al = etp_node_arr(bo, "allocators");
            for (uint32_t k = 0; k < bs[b].info.allocator_count; k++)
                etp_node_str(al, NULL, etp_dump_allocator_name(in.dump, b, k).ptr);
            etp_node_str(bo, "method", bs[b].method);
            etp_node_uint(bo, "method_candidates", bs[b].candidates);
            etp_node_str(bo, "method_basis", etp_method_basis_name(bs[b].basis));
            etp_node *cn = etp_node_arr(bo, "method_candidate_names");
            for (uint32_t k = 0; k < bs[b].n_candidate_names; k++)
                etp_node_str(cn, NULL, bs[b].candidate_names[k]);
        }
    } else {
        etp_section *sec = etp_doc_section(doc, "info");
        if (a->fmt == ETP_FMT_TABLE && !dump_header(sec, a, path, di, &in, kinds, methods, nmethods,
                                                 backends, nbackends, nm, first))
            rc = EXIT_INTERNAL;
        static const etp_col cols[] = {
            {"block", "block", NULL, ETP_T_STR, false, 0},
            {"name", "name", NULL, ETP_T_STR, true, 0},
            {"runs", "runs", NULL, ETP_T_UINT, false, 0},
            {"events", "events", NULL, ETP_T_UINT, false, 0},
            {"profile", "profile", NULL, ETP_T_UINT, false, 0},
            {"allocation", "allocation", NULL, ETP_T_UINT, false, 0},
            {"debug", "debug", NULL, ETP_T_UINT, false, 0},
            {"allocators", "allocators", NULL, ETP_T_UINT, false, 0},
            {"method", "method", NULL, ETP_T_STR, true, 0},
        };
        etp_table *t = etp_doc_table(doc, cols, sizeof cols / sizeof cols[0]);
        /* a narrow terminal loses these first (etp_table_droppable) */
        static const char *const drop[] = {"allocators:6", "allocation:5", "debug:4",
                                           "profile:3", "runs:2", "events:1", NULL};
        etp_table_droppable(t, drop);
        etp_section_table(sec, t);
        etp_doc_flat(doc, t);
        bool collapse = a->fmt == ETP_FMT_TABLE || a->fmt == ETP_FMT_MD;
        for (uint32_t b = 0; t && b < di->block_count;) {
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
                for (uint32_t q = 0; q < bs[b].n_candidate_names && k < sizeof meth; q++)
                    k += (size_t)snprintf(meth + k, sizeof meth - k, "%s%.40s", q ? ", " : " ",
                                          bs[b].candidate_names[q]);
                if (k < sizeof meth) snprintf(meth + k, sizeof meth - k, ")");
            }
            etp_table_row(t);
            etp_table_str(t, range);
            etp_table_str(t, bs[b].info.name.ptr);
            etp_table_uint(t, e - b);
            etp_table_uint(t, bs[b].info.event_count);
            etp_table_uint(t, bs[b].by_type[ETP_EVENT_PROFILE]);
            etp_table_uint(t, bs[b].by_type[ETP_EVENT_ALLOCATION]);
            etp_table_uint(t, bs[b].by_type[ETP_EVENT_DEBUG]);
            etp_table_uint(t, bs[b].info.allocator_count);
            etp_table_str(t, meth[0] ? meth : NULL);
            b = e;
        }
    }
    if (!rc && etp_doc_ok(doc)) {
        rc = cli_render(a, &o, doc);
    } else {
        cli_errorf("out of memory");
        rc = EXIT_INTERNAL;
    }
    etp_doc_free(doc);
    etp_census_free(cen);
    cli_close_inputs(&in);
    return cli_out_close(&o, rc);
}

/* A compile spec's value as text (valid UTF-8 without control characters, tabs and line breaks
 * as spaces, one trailing NUL dropped, as etp_backend_metadata_decode reads delegate metadata);
 * false for binary values and for text longer than buf. */
static bool spec_text(const etp_compile_spec *cs, char *buf, size_t cap) {
    size_t need = 0;
    etp_meta_kind k = etp_backend_metadata_decode(NULL, cs->value.ptr, cs->value.len, buf, cap, &need);
    if ((k != ETP_MK_TEXT && k != ETP_MK_JSON) || need >= cap) return false;
    for (char *c = buf; *c; c++)
        if (*c == '\t' || *c == '\n' || *c == '\r') *c = ' ';
    return true;
}

#define SPEC_LINES 24     /* spec lines shown at most */
#define SPEC_SCAN 10000   /* compile specs looked at for them at most (each compared with the
                           * lines so far: the work stays bounded whatever the program holds) */

/* The text lines of the program's compile specs with text values, once per backend, key and
 * value ("spec       EthosUBackend target = ethos-u55-128"), at most SPEC_LINES of the first
 * SPEC_SCAN specs, then a line saying there are more; NULL when out of memory. The caller frees
 * it. */
/* "devices    <method>: <sentence>" lines for the methods a newer program puts (partly) off
 * the CPU (etp_program_device_note); "" when none. Caller frees; NULL when out of memory. */
static char *device_lines(const etp_program *p) {
    const etp_program_info *pi = etp_program_get_info(p);
    size_t cap = 1, len = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    out[0] = 0;
    for (uint32_t pl = 0; pl < pi->plan_count; pl++) {
        char note[1200], line[1400];
        if (!etp_program_device_note(p, pl, note, sizeof note)) continue;
        etp_plan_info pli;
        etp_program_plan(p, pl, &pli);
        int w = snprintf(line, sizeof line, "devices    %s: %s\n", pli.name.ptr ? pli.name.ptr : "?",
                         note);
        if (w < 0) continue;
        if ((size_t)w >= sizeof line) w = (int)sizeof line - 1, line[w - 1] = '\n';
        char *nb = realloc(out, cap + (size_t)w);
        if (!nb) {
            free(out);
            return NULL;
        }
        out = nb;
        cap += (size_t)w;
        memcpy(out + len, line, (size_t)w + 1);
        len += (size_t)w;
    }
    return out;
}

/* "segment    i: SIZE bytes at +OFFSET" per segment of the program (the first SEG_LINES), or
 * its located reason when its table does not lie in the file. */
#define SEG_LINES 16
static void segment_lines(const etp_program *p, char *out, size_t cap) {
    const etp_program_info *pi = etp_program_get_info(p);
    size_t n = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < pi->segment_count && i < SEG_LINES && n + 1 < cap; i++) {
        uint64_t off, size;
        etp_error e = {0};
        int w;
        if (etp_program_segment(p, i, &off, &size, &e) == ETP_OK) {
            w = snprintf(out + n, cap - n, "segment    %u: %llu bytes at segment base + %llu\n", i,
                         (unsigned long long)size, (unsigned long long)off);
        } else {
            char m[300];
            etp_error_format(&e, m, sizeof m);
            w = snprintf(out + n, cap - n, "segment    %u: unreadable (what uses it is not read): %s\n",
                         i, m);
        }
        if (w < 0 || (size_t)w >= cap - n) {
            out[n] = 0;
            return;
        }
        n += (size_t)w;
    }
    if (pi->segment_count > SEG_LINES && n + 1 < cap)
        snprintf(out + n, cap - n, "segment    ... %u more\n", pi->segment_count - SEG_LINES);
}

static char *spec_lines(const etp_program *p) {
    const etp_program_info *pi = etp_program_get_info(p);
    size_t cap = 256, len = 0, n = 0, seen = 0;
    bool more = false;
    char *out = malloc(cap);
    if (!out) return NULL;
    out[0] = 0;
    for (uint32_t pl = 0; pl < pi->plan_count && !more; pl++) {
        etp_plan_info pli;
        etp_program_plan(p, pl, &pli);
        for (uint32_t d = 0; d < pli.delegate_count && !more; d++) {
            etp_delegate dl;
            if (!etp_program_delegate(p, pl, d, &dl)) continue;
            for (uint32_t k = 0; k < dl.compile_spec_count && !more; k++) {
                if (++seen > SPEC_SCAN) {
                    more = true;
                    break;
                }
                etp_compile_spec cs;
                char txt[4096], line[400];
                if (!etp_program_compile_spec(p, pl, d, k, &cs) || !spec_text(&cs, txt, sizeof txt))
                    continue;
                int w = snprintf(line, sizeof line, "spec       %s %s = %.200s%s\n",
                                 dl.id.ptr ? dl.id.ptr : "?", cs.key.ptr ? cs.key.ptr : "?", txt,
                                 strlen(txt) > 200 ? "..." : "");
                if (w < 0) continue;
                if ((size_t)w >= sizeof line) w = (int)sizeof line - 1, line[w - 1] = '\n';
                if (strstr(out, line)) continue; /* the same spec in another method */
                if (n == SPEC_LINES) {
                    more = true;
                    break;
                }
                if (len + (size_t)w + 1 > cap) {
                    while (len + (size_t)w + 1 > cap) cap *= 2;
                    char *g = realloc(out, cap);
                    if (!g) {
                        free(out);
                        return NULL;
                    }
                    out = g;
                }
                memcpy(out + len, line, (size_t)w + 1);
                len += (size_t)w;
                n++;
            }
        }
    }
    if (more) {
        char line[96];
        int w = snprintf(line, sizeof line, "spec       ... and more (--format json lists them all)\n");
        char *g = w > 0 ? realloc(out, len + (size_t)w + 1) : NULL;
        if (g) {
            out = g;
            memcpy(out + len, line, (size_t)w + 1);
        }
    }
    return out;
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
    etp_table *t = NULL;
    etp_node *methods = NULL;
    static const etp_col cols[] = {
        {"method", "method", NULL, ETP_T_STR, false, 0},
        {"instructions", "instructions", NULL, ETP_T_UINT, false, 0},
        {"kernel", "kernel", NULL, ETP_T_UINT, false, 0},
        {"delegate", "delegate", NULL, ETP_T_UINT, false, 0},
        {"move", "move", NULL, ETP_T_UINT, false, 0},
        {"jump_false", "jump_false", NULL, ETP_T_UINT, false, 0},
        {"free", "free", NULL, ETP_T_UINT, false, 0},
        {"operators", "operators", NULL, ETP_T_UINT, false, 0},
        {"backends", "backends", NULL, ETP_T_STR, true, 0},
    };
    /* JSON: {schema_version, file, kind, size_bytes, bundled, version, segments, methods} */
    etp_doc *doc = etp_doc_new("info", 1, path, NULL);
    etp_doc_envelope(doc, ETP_ENV_FILE); /* a program names no program */
    etp_doc_json_omit(doc, ETP_JSON_NO_NOTES);
    etp_qnn_soc soc;
    etp_qnn_program_soc(p, blob, &soc);
    char socline[1400] = "";
    if (soc.present) {
        char sn[64];
        etp_qnn_soc_name(&soc, sn, sizeof sn);
        int k = snprintf(socline, sizeof socline, "qnn soc    compiled for %s", sn);
        if (soc.vtcm_mb && k > 0 && (size_t)k < sizeof socline)
            k += snprintf(socline + k, sizeof socline - (size_t)k, ", VTCM budget %u MiB",
                          soc.vtcm_mb);
        if (k > 0 && (size_t)k < sizeof socline)
            snprintf(socline + k, sizeof socline - (size_t)k, " (qnn_compile_spec%s)\n",
                     soc.differs ? "; other QnnBackend delegates name another" : "");
    }
    if (soc.vtcm_conflict) {
        char w[600];
        etp_qnn_soc_vtcm_note(&soc, w, sizeof w);
        size_t k = strlen(socline);
        snprintf(socline + k, sizeof socline - k, "qnn vtcm   %s\n", w);
    }
    if (soc.unreadable) {
        char e[400];
        etp_error_format(&soc.error, e, sizeof e);
        size_t k = strlen(socline);
        snprintf(socline + k, sizeof socline - k, "qnn soc    %u qnn_compile_spec(s) not read: %s\n",
                 soc.unreadable, e);
    }
    char *specs = NULL, *devs = NULL;
    if (a->fmt == ETP_FMT_TABLE && (!(specs = spec_lines(p)) || !(devs = device_lines(p)))) {
        free(specs);
        cli_errorf("out of memory");
        etp_doc_free(doc);
        etp_program_close(p);
        return cli_out_close(&o, EXIT_INTERNAL);
    }
    if (a->fmt == ETP_FMT_JSON) {
        etp_node *root = etp_doc_root(doc);
        etp_node_str(root, "kind", "program");
        etp_node_uint(root, "size_bytes", blob->size);
        etp_node_bool(root, "bundled", pi->bundled);
        etp_node_uint(root, "version", pi->version);
        etp_node_uint(root, "segments", pi->segment_count);
        etp_node *sl = etp_node_arr(root, "segment_table");
        for (uint32_t i = 0; i < pi->segment_count; i++) {
            uint64_t off, size;
            etp_error e = {0};
            etp_node *so = etp_node_obj(sl, NULL);
            etp_node_uint(so, "index", i);
            if (etp_program_segment(p, i, &off, &size, &e) == ETP_OK) {
                etp_node_uint(so, "offset_bytes", off);
                etp_node_uint(so, "size_bytes", size);
                etp_node_null(so, "error");
            } else {
                char m[400];
                etp_error_format(&e, m, sizeof m);
                etp_node_null(so, "offset_bytes");
                etp_node_null(so, "size_bytes");
                etp_node_str(so, "error", m);
            }
        }
        if (soc.present) {
            etp_node *so = etp_node_obj(root, "qnn_soc");
            cli_node_qnn_soc(so, &soc);
            etp_node_uint(so, "specs", soc.specs);
        } else {
            etp_node_null(root, "qnn_soc");
        }
        etp_node_uint(root, "qnn_compile_specs_unreadable", soc.unreadable);
        methods = etp_node_arr(root, "methods");
    } else {
        etp_section *sec = etp_doc_section(doc, "info");
        char segs[SEG_LINES * 400 + 64];
        if (a->fmt == ETP_FMT_TABLE) segment_lines(p, segs, sizeof segs);
        if (a->fmt == ETP_FMT_TABLE)
            etp_section_textf(sec, ETP_TEXT_WRAP, 11,
                              "file       %s\nkind       ExecuTorch %sprogram, version %u, %zu "
                              "bytes, %u methods, %u segments\n%s%s%s%s\n",
                              path, pi->bundled ? "bundled " : "", pi->version, blob->size,
                              pi->plan_count, pi->segment_count, segs, socline, specs ? specs : "",
                              devs ? devs : "");
        t = etp_doc_table(doc, cols, sizeof cols / sizeof cols[0]);
        static const char *const drop[] = {"free:7", "jump_false:6", "move:5", "operators:4",
                                           "delegate:3", "kernel:2", "instructions:1", NULL};
        etp_table_droppable(t, drop);
        etp_section_table(sec, t);
        etp_doc_flat(doc, t);
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
        if (a->fmt == ETP_FMT_JSON) {
            etp_node *mo = etp_node_obj(methods, NULL);
            etp_node_str(mo, "name", pli.name.ptr);
            etp_node_uint(mo, "inputs", pli.input_count);
            etp_node_uint(mo, "outputs", pli.output_count);
            etp_node_uint(mo, "values", pli.value_count);
            etp_node_uint(mo, "chains", pli.chain_count);
            /* newer programs: the planned buffers off the CPU (null: a malformed list) and the
             * sentence saying so (null: everything on the CPU) */
            etp_buffer_device bd[64];
            int nbd = etp_program_buffer_devices(p, pl, bd, 64);
            if (nbd < 0) {
                etp_node_null(mo, "buffer_devices");
            } else {
                etp_node *ba = etp_node_arr(mo, "buffer_devices");
                for (int k = 0; k < nbd && k < 64; k++) {
                    etp_node *bo = etp_node_obj(ba, NULL);
                    etp_node_int(bo, "buffer", bd[k].buffer);
                    const char *tn = etp_device_type_name(bd[k].device_type);
                    if (tn) etp_node_str(bo, "device_type", tn);
                    else etp_node_int(bo, "device_type", bd[k].device_type);
                    etp_node_int(bo, "device_index", bd[k].device_index);
                }
            }
            char dnote[1200];
            etp_node_str(mo, "device_note",
                         etp_program_device_note(p, pl, dnote, sizeof dnote) ? dnote : NULL);
            etp_node *io = etp_node_obj(mo, "instructions");
            etp_node_uint(io, "total", total);
            for (int k = 1; k <= 5; k++)
                etp_node_uint(io, etp_instr_kind_name((etp_instr_kind)k), counts[k]);
            etp_node *oa = etp_node_arr(mo, "operators");
            for (uint32_t k = 0; k < pli.operator_count; k++) {
                etp_operator op;
                etp_program_operator(p, pl, k, &op);
                etp_node *oo = etp_node_obj(oa, NULL);
                etp_node_str(oo, "name", op.name.ptr);
                etp_node_str(oo, "overload", op.overload.ptr);
                etp_node_uint(oo, "calls", op_calls[k]);
            }
            etp_node *da = etp_node_arr(mo, "delegates");
            for (uint32_t k = 0; k < pli.delegate_count; k++) {
                etp_delegate dl;
                etp_program_delegate(p, pl, k, &dl);
                etp_node *dn = etp_node_obj(da, NULL);
                etp_node_str(dn, "id", dl.id.ptr);
                etp_node_uint(dn, "calls", del_calls[k]);
                etp_node *ca = etp_node_arr(dn, "compile_specs");
                for (uint32_t sp = 0; sp < dl.compile_spec_count; sp++) {
                    etp_compile_spec cs;
                    etp_program_compile_spec(p, pl, k, sp, &cs);
                    etp_node *co = etp_node_obj(ca, NULL);
                    etp_node_str(co, "key", cs.key.ptr);
                    etp_node_uint(co, "value_bytes", cs.value.len);
                    char txt[4096];
                    etp_node_str(co, "value_text",
                                 spec_text(&cs, txt, sizeof txt) ? txt : NULL);
                }
            }
        } else {
            etp_table_row(t);
            etp_table_str(t, pli.name.ptr);
            etp_table_uint(t, total);
            for (int k = 1; k <= 5; k++) etp_table_uint(t, counts[k]);
            etp_table_uint(t, pli.operator_count);
            etp_table_str(t, backends[0] ? backends : NULL);
        }
        free(op_calls);
        free(del_calls);
    }
    if (!rc && etp_doc_ok(doc)) {
        rc = cli_render(a, &o, doc);
    } else {
        cli_errorf("out of memory");
        rc = EXIT_INTERNAL;
    }
    etp_doc_free(doc);
    free(specs);
    free(devs);
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
    if (cli_is_zip(path)) return cli_etrecord_info(a, path); /* an ETRecord (cmd_etrecord.c) */
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
    .help = "FILE is an ETDump (.etdp), a program (.pte/.bpte) or an ETRecord (a ZIP: its\n"
            "entries, programs, node counts and what was skipped). For an ETDump, --pte resolves\n"
            "which method each Execute block ran and which backends its delegate calls used.",
    .opts = info_opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_info,
};
