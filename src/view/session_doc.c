/* session_doc.c - the document of `etprof session` (etprof_session.h, docs/session.md): the
 * generations of an LLM session, their phase split and slowest decode steps, in every format.
 * How the phases were decided is said in every view: a column of the flat table (csv, tsv,
 * jsonl), a line above the tables (table, md), a member and a note (JSON). */
#include "etprof_session.h"
#include "etprof_figures.h"
#include "etprof_result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sctx {
    const etp_session_result *s;
    const etp_disp *d;
    const char *tu; /* the displayed time unit */
} sctx;

static double tv(const sctx *c, double v) {
    const char *u;
    return etp_disp_conv(c->d, etp_session_unit(c->s), v, &u);
}

/* How the phases of generation g (or of the whole session, g NULL) were decided: "method",
 * "option", "inferred", or "mixed" (several). */
static const char *phases_by(const etp_session_result *s, const etp_session_gen *g) {
    uint32_t n[ETP_SB_COUNT_] = {0};
    size_t from = g ? g->first_run : 0, to = g ? g->first_run + g->n_runs : etp_session_run_count(s);
    for (size_t i = from; i < to; i++) n[etp_session_run_get(s, i)->basis]++;
    int kinds = 0, last = ETP_SB_METHOD;
    for (int b = 0; b < ETP_SB_COUNT_; b++)
        if (n[b]) {
            kinds++;
            last = b;
        }
    return kinds > 1 ? "mixed" : etp_session_basis_name((etp_session_basis)last);
}

static const char *prompt_src_name(etp_session_prompt_src p) {
    return p == ETP_PS_OPTION ? "option" : p == ETP_PS_SHAPE ? "input_shape" : NULL;
}

/* The statement of how the phases were decided (one line; "" when the files told every run). */
static void phase_statement(const sctx *c, char *b, size_t cap) {
    const etp_session_result *s = c->s;
    const etp_session_opts *o = etp_session_get_opts(s);
    uint32_t n = (uint32_t)etp_session_run_count(s), un = etp_session_unresolved(s);
    b[0] = 0;
    if (!un) return;
    int w = snprintf(b, cap, "the files cannot tell prefill from decode for %u of %u run(s) (their "
                     "method is ambiguous, or neither its input shape nor its name says); ",
                     un, n);
    if (w < 0 || (size_t)w >= cap) return;
    if (o->prefill_runs)
        snprintf(b + w, cap - (size_t)w,
                 "by --prefill-runs %u, the first %u run(s) of each generation are prefill; where "
                 "a later generation starts is INFERRED (a run after a decode run, at least %u "
                 "runs into the generation, with Method::execute >= %.3g x the median run)",
                 o->prefill_runs, o->prefill_runs, o->prefill_runs, o->start_factor);
    else
        snprintf(b + w, cap - (size_t)w,
                 "phases INFERRED from order and duration: a generation starts at the first run "
                 "and at each run that follows a decode run with Method::execute >= %.3g x the "
                 "median run; its first run is taken as its prefill, the others as decode steps; give "
                 "--prefill-runs N to state it",
                 o->start_factor);
}

/* A note goes to the JSON notes and, as a "note: " line, to the text views. */
typedef struct note_sink {
    etp_doc *doc;
    etp_section *sec;
} note_sink;

static void note_cb(void *ctx, const char *text) {
    note_sink *ns = ctx;
    etp_doc_note(ns->doc, text);
    etp_section_text(ns->sec, ETP_TEXT_WRAP | ETP_TEXT_SAFE, "note: ", 6, text);
}

static void definitions(note_sink *doc, const sctx *c) {
    const etp_session_opts *o = etp_session_get_opts(c->s);
    char b[900];
    note_cb(doc, "generation = a prefill (one or more runs) then its decode steps (one run, one "
                      "token each); a new generation starts at a prefill run that follows a "
                      "decode run (docs/session.md)");
    note_cb(doc, "time to first token (ttft) = the sum of the generation's prefill runs' "
                      "Method::execute (one prefill run: from its start to its end); the runner's "
                      "own work between runs (tokenizing, sampling) is not in the dump and not "
                      "counted");
    note_cb(doc, "prefill tokens/s = prompt tokens / ttft; prompt tokens from --prompt-tokens, "
                      "else the prefill method's token input [1, L] in the program: its capacity "
                      "(a shorter prompt is padded to L), L per prefill run");
    snprintf(b, sizeof b,
             "decode tokens/s = steady decode steps / their summed Method::execute: warm-up "
             "excluded (the first decode step of a generation, and the ones right after it "
             "above %.3g x the median step, the rule of `etprof runs`); decode_tok_s_all covers "
             "every step, warm-up included",
             o->warmup_factor);
    note_cb(doc, b);
    note_cb(doc, "token latency p50/p90/max = over every decode step's Method::execute, "
                      "warm-up included (each is a token the user waits for)");
    note_cb(doc, "delegate / cpu / framework = the parts of `etprof runs` summed over the "
                      "phase's runs, percent of its Method::execute");
}

static void fill_json(etp_doc *doc, const sctx *c, const char *stmt) {
    const etp_session_result *s = c->s;
    const etp_ops_result *r = etp_session_ops(s);
    etp_node *root = etp_doc_root(doc);
    etp_node_str(root, "time_unit", c->tu);
    etp_node *ph = etp_node_obj(root, "phases");
    etp_node_str(ph, "decided_by", phases_by(s, NULL));
    etp_node_uint(ph, "runs", etp_session_run_count(s));
    etp_node_uint(ph, "from_files", etp_session_basis_count(s, ETP_SB_METHOD));
    etp_node_uint(ph, "from_option", etp_session_basis_count(s, ETP_SB_OPTION));
    etp_node_uint(ph, "inferred", etp_session_basis_count(s, ETP_SB_INFERRED));
    etp_node_bool(ph, "ambiguous", etp_session_unresolved(s) > 0);
    etp_node_str(ph, "statement", stmt[0] ? stmt : NULL);
    const etp_session_opts *o = etp_session_get_opts(s);
    etp_node *cr = etp_node_obj(root, "criteria");
    if (o->prefill_runs) etp_node_uint(cr, "prefill_runs", o->prefill_runs);
    else etp_node_null(cr, "prefill_runs");
    if (o->prompt_tokens) etp_node_uint(cr, "prompt_tokens", o->prompt_tokens);
    else etp_node_null(cr, "prompt_tokens");
    etp_node_float(cr, "warmup_factor", o->warmup_factor);
    etp_node_float(cr, "start_factor", o->start_factor);
    etp_node *gs = etp_node_arr(root, "generations");
    for (size_t gi = 0; gi < etp_session_gen_count(s); gi++) {
        const etp_session_gen *g = etp_session_gen_get(s, gi);
        etp_node *w = etp_node_obj(gs, NULL);
        etp_node_uint(w, "generation", g->index);
        etp_node_uint(w, "first_block", g->first_block);
        etp_node_uint(w, "last_block", g->last_block);
        etp_node_str(w, "phases_by", phases_by(s, g));
        etp_node *p = etp_node_obj(w, "prefill");
        etp_node_uint(p, "runs", g->prefill_runs);
        etp_node_float(p, "ttft", tv(c, g->ttft));
        if (g->prompt_tokens) etp_node_uint(p, "prompt_tokens", g->prompt_tokens);
        else etp_node_null(p, "prompt_tokens");
        etp_node_str(p, "prompt_tokens_from", prompt_src_name(g->prompt_src));
        etp_node_str(p, "prompt_method", g->prompt_method);
        etp_node_float(p, "tokens_per_second", g->prefill_tokens_per_second);
        etp_node *dd = etp_node_obj(w, "decode");
        etp_node_uint(dd, "steps", g->decode_runs);
        etp_node_uint(dd, "warmup_steps", g->warmup_runs);
        etp_node_uint(dd, "steady_steps", g->steady_runs);
        etp_node_float(dd, "steady_execute_total", tv(c, g->decode_steady_total));
        etp_node_float(dd, "tokens_per_second", g->decode_tokens_per_second);
        etp_node_float(dd, "tokens_per_second_all", g->decode_tokens_per_second_all);
        etp_node *tl = etp_node_obj(dd, "token_latency");
        etp_node_uint(tl, "n", g->token_latency.n);
        etp_node_float(tl, "p50", tv(c, g->token_latency.p50));
        etp_node_float(tl, "p90", tv(c, g->token_latency.p90));
        etp_node_float(tl, "max", tv(c, g->token_latency.max));
        etp_node *sl = etp_node_arr(dd, "slowest");
        for (uint32_t k = 0; k < g->n_slowest; k++) {
            const etp_session_run *rn = etp_session_run_get(s, g->slowest[k]);
            etp_node *o2 = etp_node_obj(sl, NULL);
            etp_node_uint(o2, "step", rn->step);
            etp_node_uint(o2, "block", rn->block);
            etp_node_float(o2, "execute", tv(c, rn->execute));
            etp_node_bool(o2, "warmup", rn->warmup);
        }
        etp_node *lat = etp_node_arr(dd, "latencies");
        for (uint32_t k = 0; k < g->n_runs; k++) {
            const etp_session_run *rn = etp_session_run_get(s, g->first_run + k);
            if (rn->phase == ETP_PHASE_DECODE) etp_node_float(lat, NULL, tv(c, rn->execute));
        }
        etp_node_compact(lat);
        const etp_session_split *sp[2] = {&g->prefill, &g->decode};
        const char *sk[2] = {"prefill_split", "decode_split"};
        for (int k = 0; k < 2; k++) {
            etp_node *o3 = etp_node_obj(w, sk[k]);
            etp_node_uint(o3, "runs", sp[k]->runs);
            etp_node_float(o3, "execute", tv(c, sp[k]->execute));
            etp_node_float(o3, "delegate", tv(c, sp[k]->delegate));
            etp_node_float(o3, "cpu", tv(c, sp[k]->cpu));
            etp_node_float(o3, "framework", tv(c, sp[k]->framework));
            etp_node_float(o3, "delegate_pct", sp[k]->delegate_pct);
            etp_node_float(o3, "cpu_pct", sp[k]->cpu_pct);
            etp_node_float(o3, "framework_pct", sp[k]->framework_pct);
        }
        etp_node_str(w, "unit", c->tu);
    }
    etp_node *rs = etp_node_arr(root, "runs");
    for (size_t i = 0; i < etp_session_run_count(s); i++) {
        const etp_session_run *rn = etp_session_run_get(s, i);
        const etp_ops_method *m = etp_ops_method_get(r, rn->method);
        etp_node *w = etp_node_obj(rs, NULL);
        etp_node_uint(w, "block", rn->block);
        etp_node_uint(w, "generation", rn->generation);
        etp_node_str(w, "phase", etp_session_phase_name(rn->phase));
        etp_node_str(w, "phase_by", etp_session_basis_name(rn->basis));
        etp_node_str(w, "method", m ? m->name : NULL);
        if (m) etp_fig_method_candidates(w, m);
        etp_node_uint(w, "step", rn->step);
        etp_node_bool(w, "warmup", rn->warmup);
        etp_node_float(w, "execute", tv(c, rn->execute));
        etp_node_float(w, "delegate", tv(c, rn->delegate));
        etp_node_float(w, "cpu", tv(c, rn->cpu));
        etp_node_float(w, "framework", tv(c, rn->framework));
        etp_node_compact(w);
    }
    etp_doc_notes_here(doc);
}

int etp_session_doc(etp_doc *doc, const etp_session_result *s, const etp_disp *d, etp_error *err) {
    sctx c = {.s = s, .d = d};
    etp_disp_conv(d, etp_session_unit(s), 0, &c.tu);
    char stmt[900];
    phase_statement(&c, stmt, sizeof stmt);
    fill_json(doc, &c, stmt);

    /* the generations: the flat table (csv, tsv, jsonl) and the first table of the text views */
    const etp_col gcols[] = {
        {"generation", NULL, NULL, ETP_T_UINT, false, -1},
        {"first_block", NULL, NULL, ETP_T_UINT, false, -1},
        {"last_block", NULL, NULL, ETP_T_UINT, false, -1},
        {"phases_by", NULL, NULL, ETP_T_STR, false, -1},
        {"prefill_runs", NULL, NULL, ETP_T_UINT, false, -1},
        {"decode_steps", NULL, NULL, ETP_T_UINT, false, -1},
        {"ttft", NULL, c.tu, ETP_T_FLOAT, true, d->precision},
        {"prompt_tokens", NULL, NULL, ETP_T_UINT, true, -1},
        {"prompt_from", NULL, NULL, ETP_T_STR, true, -1},
        {"prefill_tok_s", "prefill", "tokens/s", ETP_T_FLOAT, true, 1},
        {"decode_tok_s", "decode steady", "tokens/s", ETP_T_FLOAT, true, 1},
        {"steady_steps", NULL, NULL, ETP_T_UINT, false, -1},
        {"warmup_steps", NULL, NULL, ETP_T_UINT, false, -1},
        {"decode_tok_s_all", "decode all steps", "tokens/s", ETP_T_FLOAT, true, 1},
        {"token_p50", NULL, c.tu, ETP_T_FLOAT, true, d->precision},
        {"token_p90", NULL, c.tu, ETP_T_FLOAT, true, d->precision},
        {"token_max", NULL, c.tu, ETP_T_FLOAT, true, d->precision},
    };
    etp_table *gt = etp_doc_table(doc, gcols, sizeof gcols / sizeof gcols[0]);
    for (size_t gi = 0; gi < etp_session_gen_count(s); gi++) {
        const etp_session_gen *g = etp_session_gen_get(s, gi);
        etp_table_row(gt);
        etp_table_uint(gt, g->index);
        etp_table_uint(gt, g->first_block);
        etp_table_uint(gt, g->last_block);
        etp_table_str(gt, phases_by(s, g));
        etp_table_uint(gt, g->prefill_runs);
        etp_table_uint(gt, g->decode_runs);
        etp_table_float(gt, tv(&c, g->ttft));
        if (g->prompt_tokens) etp_table_uint(gt, g->prompt_tokens);
        else etp_table_null(gt);
        etp_table_str(gt, prompt_src_name(g->prompt_src));
        etp_table_float(gt, g->prefill_tokens_per_second);
        etp_table_float(gt, g->decode_tokens_per_second);
        etp_table_uint(gt, g->steady_runs);
        etp_table_uint(gt, g->warmup_runs);
        etp_table_float(gt, g->decode_tokens_per_second_all);
        etp_table_float(gt, tv(&c, g->token_latency.p50));
        etp_table_float(gt, tv(&c, g->token_latency.p90));
        etp_table_float(gt, tv(&c, g->token_latency.max));
    }
    etp_doc_flat(doc, gt);

    /* each phase's split */
    const etp_col pcols[] = {
        {"generation", NULL, NULL, ETP_T_UINT, false, -1},
        {"phase", NULL, NULL, ETP_T_STR, false, -1},
        {"runs", NULL, NULL, ETP_T_UINT, false, -1},
        {"execute", "Method::execute", c.tu, ETP_T_FLOAT, true, d->precision},
        {"delegate", NULL, c.tu, ETP_T_FLOAT, true, d->precision},
        {"cpu", NULL, c.tu, ETP_T_FLOAT, true, d->precision},
        {"framework", NULL, c.tu, ETP_T_FLOAT, true, d->precision},
        {"delegate_pct", "delegate share", "%", ETP_T_FLOAT, true, 2},
        {"cpu_pct", "cpu share", "%", ETP_T_FLOAT, true, 2},
        {"framework_pct", "framework share", "%", ETP_T_FLOAT, true, 2},
    };
    etp_table *pt = etp_doc_table(doc, pcols, sizeof pcols / sizeof pcols[0]);
    for (size_t gi = 0; gi < etp_session_gen_count(s); gi++) {
        const etp_session_gen *g = etp_session_gen_get(s, gi);
        const etp_session_split *sp[2] = {&g->prefill, &g->decode};
        for (int k = 0; k < 2; k++) {
            etp_table_row(pt);
            etp_table_uint(pt, g->index);
            etp_table_str(pt, etp_session_phase_name(k ? ETP_PHASE_DECODE : ETP_PHASE_PREFILL));
            etp_table_uint(pt, sp[k]->runs);
            etp_table_float(pt, tv(&c, sp[k]->execute));
            etp_table_float(pt, tv(&c, sp[k]->delegate));
            etp_table_float(pt, tv(&c, sp[k]->cpu));
            etp_table_float(pt, tv(&c, sp[k]->framework));
            etp_table_float(pt, sp[k]->delegate_pct);
            etp_table_float(pt, sp[k]->cpu_pct);
            etp_table_float(pt, sp[k]->framework_pct);
        }
    }

    /* the slowest decode steps */
    const etp_col scols[] = {
        {"generation", NULL, NULL, ETP_T_UINT, false, -1},
        {"step", "decode step", NULL, ETP_T_UINT, false, -1},
        {"block", NULL, NULL, ETP_T_UINT, false, -1},
        {"execute", "Method::execute", c.tu, ETP_T_FLOAT, true, d->precision},
        {"warmup", "warm-up", NULL, ETP_T_BOOL, false, -1},
    };
    etp_table *st = etp_doc_table(doc, scols, sizeof scols / sizeof scols[0]);
    for (size_t gi = 0; gi < etp_session_gen_count(s); gi++) {
        const etp_session_gen *g = etp_session_gen_get(s, gi);
        for (uint32_t k = 0; k < g->n_slowest; k++) {
            const etp_session_run *rn = etp_session_run_get(s, g->slowest[k]);
            etp_table_row(st);
            etp_table_uint(st, g->index);
            etp_table_uint(st, rn->step);
            etp_table_uint(st, rn->block);
            etp_table_float(st, tv(&c, rn->execute));
            etp_table_bool(st, rn->warmup);
        }
    }

    etp_section *sec = etp_doc_section(doc, "session");
    etp_section_textf(sec, 0, 0,
                      "session   %zu generation(s) over %zu run(s); phases decided by %s\n",
                      etp_session_gen_count(s), etp_session_run_count(s), phases_by(s, NULL));
    if (stmt[0]) {
        etp_section_text(sec, ETP_TEXT_WRAP, "AMBIGUOUS: ", 11, stmt);
    }
    etp_section_text(sec, 0, NULL, 0, "\n");
    etp_section_table(sec, gt);
    etp_section_text(sec, 0, NULL, 0, "\nwhere each phase's time went (the parts of `etprof runs`)\n\n");
    etp_section_table(sec, pt);
    etp_section_textf(sec, 0, 0, "\nslowest decode steps (at most %u per generation)\n\n",
                      etp_session_get_opts(s)->slowest);
    etp_section_table(sec, st);

    note_sink ns = {doc, sec};
    if (stmt[0]) {
        char b[1000];
        snprintf(b, sizeof b, "AMBIGUOUS: %s", stmt);
        note_cb(&ns, b);
    }
    const etp_session_opts *so = etp_session_get_opts(s);
    uint32_t told = etp_session_basis_count(s, ETP_SB_METHOD);
    if (so->prefill_runs && told) {
        char b[400];
        snprintf(b, sizeof b,
                 "--prefill-runs %u applies only to the %u run(s) the files cannot tell; the "
                 "phase of the other %u run(s) comes from their method (phase_by \"method\")",
                 so->prefill_runs, etp_session_unresolved(s), told);
        note_cb(&ns, b);
    }
    definitions(&ns, &c);
    etp_quality_notes(etp_session_ops(s), note_cb, &ns);
    (void)err;
    if (!etp_doc_ok(doc)) {
        etp_error_set(err, ETP_E_INTERNAL, "", -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    return ETP_OK;
}
