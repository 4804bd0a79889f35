/* session.c - LLM generation sessions (etprof_session.h, docs/session.md): the runs of a dump
 * in block order, each a prefill or decode step of a generation, and per generation the time to
 * first token, prefill and decode tokens/s, the per-token latencies and each phase's split. Every
 * time is a row of etp_runs_compute (one definition per figure). */
#include "etprof_session.h"
#include "etprof_runs.h"
#include "ops_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct etp_session_result {
    etp_session_opts opts;
    const etp_ops_result *ops;
    etp_unit unit;
    etp_session_run *runs;
    size_t nruns;
    etp_session_gen *gens;
    size_t ngens;
    uint32_t *slowest; /* all generations' lists */
    uint32_t basis[ETP_SB_COUNT_];
    uint32_t unresolved;
};

void etp_session_opts_init(etp_session_opts *o) {
    memset(o, 0, sizeof *o);
    etp_runs_opts ro;
    etp_runs_opts_init(&ro);
    o->warmup_factor = ro.warmup_factor;
    o->start_factor = 2;
    o->slowest = 5;
}

const char *etp_session_phase_name(etp_session_phase p) {
    return p == ETP_PHASE_PREFILL ? "prefill" : "decode";
}

const char *etp_session_basis_name(etp_session_basis b) {
    switch (b) {
    case ETP_SB_METHOD: return "method";
    case ETP_SB_OPTION: return "option";
    case ETP_SB_INFERRED: return "inferred";
    case ETP_SB_COUNT_: break;
    }
    return "inferred";
}

/* Whether `name` holds `key` (lower case), in any case. */
static bool holds(const char *name, const char *key) {
    size_t kl = strlen(key);
    for (const char *c = name; *c; c++) {
        size_t j = 0;
        while (j < kl && c[j] && tolower((unsigned char)c[j]) == key[j]) j++;
        if (j == kl) return true;
    }
    return false;
}

/* Tokens per run of method `name`: its first input, an integer tensor (INT 3, LONG 4) of shape
 * [1, L] (or [L]), gives L; 0 when the program does not say. */
static uint32_t tokens_of(const etp_program *p, const char *name) {
    if (!p || !name) return 0;
    int plan = etp_program_find_plan(p, name);
    if (plan < 0) return 0;
    int64_t vi = etp_program_plan_input(p, (uint32_t)plan, 0);
    etp_tensor_meta tm;
    if (vi < 0 || vi > UINT32_MAX || etp_program_value_tensor(p, (uint32_t)plan, (uint32_t)vi, &tm) != 1)
        return 0;
    if (tm.scalar_type != 3 && tm.scalar_type != 4) return 0;
    int32_t l;
    if (tm.sizes.len == 2 && etp_vec_i32(tm.sizes, 0) == 1) l = etp_vec_i32(tm.sizes, 1);
    else if (tm.sizes.len == 1) l = etp_vec_i32(tm.sizes, 0);
    else return 0;
    return l > 0 ? (uint32_t)l : 0;
}

/* The phase a method's runs have by the files: 1 prefill, 2 decode, 0 cannot tell. */
static int method_phase(const etp_program *p, const char *name, bool decode_style) {
    if (!name) return 0;
    uint32_t t = tokens_of(p, name);
    if (t > 1) return 1;
    if (t == 1) return 2;
    if (decode_style) return 2;
    if (holds(name, "prefill") || holds(name, "prompt")) return 1;
    return 0;
}

/* The prefill method among method m's names (itself when named, else its candidates): the one
 * whose token input holds more than one token, or NULL when none or several. */
static const char *prefill_method(const etp_program *p, const etp_ops_method *m, uint32_t *tokens) {
    *tokens = 0;
    if (m->name) {
        *tokens = tokens_of(p, m->name);
        return *tokens > 1 ? m->name : NULL;
    }
    const char *found = NULL;
    for (uint32_t i = 0; i < m->n_candidates; i++) {
        uint32_t t = tokens_of(p, m->candidate_names[i]);
        if (t <= 1) continue;
        if (found) return NULL;
        found = m->candidate_names[i];
        *tokens = t;
    }
    return found;
}

static int cmp_run_block(const void *a, const void *b) {
    const etp_session_run *x = a, *y = b;
    return x->block < y->block ? -1 : x->block > y->block;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void split_add(etp_session_split *s, const etp_session_run *r) {
    s->runs++;
    s->execute += r->execute;
    s->delegate += r->delegate;
    s->cpu += r->cpu;
    s->framework += r->framework;
}

static void split_pct(etp_session_split *s) {
    bool ok = s->execute > 0;
    s->delegate_pct = ok ? 100.0 * s->delegate / s->execute : NAN;
    s->cpu_pct = ok ? 100.0 * s->cpu / s->execute : NAN;
    s->framework_pct = ok ? 100.0 * s->framework / s->execute : NAN;
    if (!s->runs) s->execute = s->delegate = s->cpu = s->framework = NAN;
}

/* Fills the figures of generation g over runs[g->first_run .. + g->n_runs). */
static int gen_figures(etp_session_result *x, etp_session_gen *g, const etp_program *p,
                       uint32_t *slow_out) {
    etp_session_run *rs = x->runs + g->first_run;
    size_t n = g->n_runs;
    double *v = malloc((n ? n : 1) * sizeof *v);
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!v || !idx) {
        free(v);
        free(idx);
        return ETP_E_INTERNAL;
    }
    g->first_block = rs[0].block;
    g->last_block = rs[n - 1].block;
    g->ttft = NAN;
    const char *pm = NULL;
    uint32_t pm_tokens = 0;
    bool pm_conflict = false;
    for (size_t k = 0; k < n; k++) {
        if (rs[k].phase != ETP_PHASE_PREFILL) continue;
        g->prefill_runs++;
        rs[k].step = g->prefill_runs;
        split_add(&g->prefill, &rs[k]);
        g->ttft = isnan(g->ttft) ? rs[k].execute : g->ttft + rs[k].execute;
        uint32_t t;
        const char *name = prefill_method(p, etp_ops_method_get(x->ops, rs[k].method), &t);
        if (!name) continue;
        if (pm && strcmp(pm, name) != 0) pm_conflict = true;
        pm = name;
        pm_tokens = t;
    }
    /* decode steps: the warm-up rule over the generation's decode series */
    size_t nd = 0;
    for (size_t k = 0; k < n; k++)
        if (rs[k].phase == ETP_PHASE_DECODE) {
            idx[nd] = (uint32_t)(g->first_run + k);
            v[nd++] = rs[k].execute;
        }
    g->decode_runs = (uint32_t)nd;
    size_t m = 0;
    for (size_t k = 0; k < nd; k++)
        if (!isnan(v[k])) m++;
    double *s = malloc((m ? m : 1) * sizeof *s);
    if (!s) {
        free(v);
        free(idx);
        return ETP_E_INTERNAL;
    }
    m = 0;
    for (size_t k = 0; k < nd; k++)
        if (!isnan(v[k])) s[m++] = v[k];
    qsort(s, m, sizeof *s, cmp_double);
    double med = m ? etp_percentile(s, m, 50) : NAN;
    double all_total = 0, steady_total = 0;
    for (size_t k = 0; k < nd; k++) {
        etp_session_run *r = &x->runs[idx[k]];
        r->step = (uint32_t)k + 1;
        r->warmup = etp__warmup_is(v, k, x->opts.warmup_factor, med,
                                   k && x->runs[idx[k - 1]].warmup);
        split_add(&g->decode, r);
        if (isnan(r->execute)) continue;
        all_total += r->execute;
        if (r->warmup) g->warmup_runs++;
        else {
            g->steady_runs++;
            steady_total += r->execute;
        }
    }
    g->decode_steady_total = g->steady_runs ? steady_total : NAN;
    g->decode_tokens_per_second = etp__per_second(g->steady_runs, steady_total, x->unit);
    g->decode_tokens_per_second_all = etp__per_second((uint32_t)m, all_total, x->unit);
    etp_stats_compute(s, m, &g->token_latency);
    free(s);
    split_pct(&g->prefill);
    split_pct(&g->decode);
    /* the prompt length */
    if (x->opts.prompt_tokens) {
        g->prompt_tokens = x->opts.prompt_tokens;
        g->prompt_src = ETP_PS_OPTION;
    } else if (pm && !pm_conflict && g->prefill_runs) {
        /* each prefill chunk holds up to the input's tokens */
        g->prompt_tokens = pm_tokens * g->prefill_runs;
        g->prompt_src = ETP_PS_SHAPE;
        g->prompt_method = pm;
    }
    g->prefill_tokens_per_second = NAN;
    if (g->prompt_tokens && x->unit == ETP_UNIT_NS && g->ttft > 0)
        g->prefill_tokens_per_second = (double)g->prompt_tokens / (g->ttft / 1e9);
    /* the slowest decode steps: by Method::execute, slowest first (ties: earlier first) */
    size_t k2 = 0;
    for (size_t k = 0; k < nd; k++)
        if (!isnan(x->runs[idx[k]].execute)) idx[k2++] = idx[k];
    for (size_t a = 0; a < k2 && a < x->opts.slowest; a++) {
        size_t best = a;
        for (size_t b = a + 1; b < k2; b++)
            if (x->runs[idx[b]].execute > x->runs[idx[best]].execute) best = b;
        uint32_t t = idx[a];
        idx[a] = idx[best];
        idx[best] = t;
    }
    g->n_slowest = (uint32_t)(k2 < x->opts.slowest ? k2 : x->opts.slowest);
    memcpy(slow_out, idx, g->n_slowest * sizeof *idx);
    free(v);
    free(idx);
    return ETP_OK;
}

int etp_session_compute(const etp_ops_result *r, const etp_program *p, const etp_session_opts *o,
                        etp_session_result **out, etp_error *err) {
    *out = NULL;
    etp_session_opts op;
    if (o) op = *o;
    else etp_session_opts_init(&op);
    if (!(op.warmup_factor > 0) || !(op.start_factor > 0)) {
        etp_error_set(err, ETP_E_USAGE, "", -1, "etp_session_opts",
                      "warmup_factor and start_factor must be > 0");
        return ETP_E_USAGE;
    }
    etp_runs_opts ro;
    etp_runs_opts_init(&ro);
    ro.warmup_factor = op.warmup_factor;
    etp_runs_result *rr = NULL;
    int rc = etp_runs_compute(r, &ro, &rr, err);
    if (rc) return rc;
    etp_session_result *x = calloc(1, sizeof *x);
    size_t n = etp_runs_row_count(rr);
    if (!x) goto oom;
    x->opts = op;
    x->ops = r;
    x->unit = ETP_UNIT_NS;
    x->runs = calloc(n ? n : 1, sizeof *x->runs);
    x->gens = calloc(n ? n : 1, sizeof *x->gens);
    x->slowest = calloc(n ? n : 1, sizeof *x->slowest);
    if (!x->runs || !x->gens || !x->slowest) goto oom;
    /* phases by the files: per runs method */
    size_t nm = etp_runs_method_count(rr);
    int *mphase = calloc(nm ? nm : 1, sizeof *mphase);
    if (!mphase) goto oom;
    for (size_t i = 0; i < nm; i++) {
        const etp_runs_method *mr = etp_runs_method_get(rr, i);
        mphase[i] = method_phase(p, etp_ops_method_get(r, mr->method)->name, mr->decode_style);
    }
    for (size_t i = 0; i < n; i++) {
        const etp_runs_row *rw = etp_runs_row_get(rr, i);
        etp_session_run *s = &x->runs[i];
        s->block = rw->block;
        s->method = rw->method;
        s->execute = rw->execute;
        s->delegate = rw->delegate;
        s->cpu = rw->cpu;
        s->framework = rw->framework;
        if (i == 0) x->unit = rw->unit;
        /* the phase by the files, kept in `step` until the runs are ordered */
        for (size_t k = 0; k < nm; k++)
            if (etp_runs_method_get(rr, k)->method == rw->method) s->step = (uint32_t)mphase[k];
    }
    free(mphase);
    qsort(x->runs, n, sizeof *x->runs, cmp_run_block);
    x->nruns = n;
    /* the median Method::execute of all runs (the inference's basis) */
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) goto oom;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x->runs[i].execute)) v[m++] = x->runs[i].execute;
    qsort(v, m, sizeof *v, cmp_double);
    double med = m ? etp_percentile(v, m, 50) : NAN;
    free(v);
    /* phases and generations, in block order */
    uint32_t gen = 0, pos = 0; /* pos: runs so far in the current generation */
    bool started = false;
    etp_session_phase prev = ETP_PHASE_DECODE;
    for (size_t i = 0; i < n; i++) {
        etp_session_run *s = &x->runs[i];
        int known = (int)s->step;
        s->step = 0;
        bool start;
        if (known) {
            s->phase = known == 1 ? ETP_PHASE_PREFILL : ETP_PHASE_DECODE;
            s->basis = ETP_SB_METHOD;
            start = !started || (s->phase == ETP_PHASE_PREFILL && prev == ETP_PHASE_DECODE);
        } else {
            x->unresolved++;
            bool long_run = !isnan(s->execute) && !isnan(med) && s->execute >= op.start_factor * med;
            if (!started) start = true;
            else if (op.prefill_runs)
                start = pos >= op.prefill_runs && prev == ETP_PHASE_DECODE && long_run;
            else start = prev == ETP_PHASE_DECODE && long_run;
            uint32_t at = start ? 0 : pos;
            bool pre = op.prefill_runs ? at < op.prefill_runs : at == 0;
            s->phase = pre ? ETP_PHASE_PREFILL : ETP_PHASE_DECODE;
            /* with --prefill-runs, the phase is the user's; where the generation starts is still
             * inferred past the first one (said in the document) */
            s->basis = op.prefill_runs ? ETP_SB_OPTION : ETP_SB_INFERRED;
        }
        if (start) {
            if (started) gen++;
            started = true;
            pos = 0;
            x->gens[gen].index = gen;
            x->gens[gen].first_run = (uint32_t)i;
        }
        s->generation = gen;
        x->gens[gen].n_runs++;
        x->basis[s->basis]++;
        pos++;
        prev = s->phase;
    }
    x->ngens = started ? gen + 1 : 0;
    size_t so = 0;
    for (size_t gi = 0; gi < x->ngens; gi++) {
        etp_session_gen *g = &x->gens[gi];
        if (gen_figures(x, g, p, x->slowest + so)) goto oom;
        g->slowest = x->slowest + so;
        so += g->n_slowest;
    }
    etp_runs_free(rr);
    *out = x;
    return ETP_OK;
oom:
    etp_runs_free(rr);
    etp_session_free(x);
    etp_error_set(err, ETP_E_INTERNAL, "", -1, "", "out of memory");
    return ETP_E_INTERNAL;
}

void etp_session_free(etp_session_result *s) {
    if (!s) return;
    free(s->runs);
    free(s->gens);
    free(s->slowest);
    free(s);
}

const etp_session_opts *etp_session_get_opts(const etp_session_result *s) { return &s->opts; }
etp_unit etp_session_unit(const etp_session_result *s) { return s->unit; }
size_t etp_session_run_count(const etp_session_result *s) { return s->nruns; }
const etp_session_run *etp_session_run_get(const etp_session_result *s, size_t i) {
    return i < s->nruns ? &s->runs[i] : NULL;
}
size_t etp_session_gen_count(const etp_session_result *s) { return s->ngens; }
const etp_session_gen *etp_session_gen_get(const etp_session_result *s, size_t i) {
    return i < s->ngens ? &s->gens[i] : NULL;
}
uint32_t etp_session_basis_count(const etp_session_result *s, etp_session_basis b) {
    return b < ETP_SB_COUNT_ ? s->basis[b] : 0;
}
uint32_t etp_session_unresolved(const etp_session_result *s) { return s->unresolved; }
const etp_ops_result *etp_session_ops(const etp_session_result *s) { return s->ops; }
