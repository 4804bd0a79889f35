/* etprof_session.h - LLM generation sessions (issue 33.1, `etprof session`, docs/session.md): the
 * runs of a dump from an LLM runner read as generations, each a prefill (one or more runs of
 * the prompt method) then decode steps (one run, one token, each): time to first token, prefill
 * and decode tokens per second, the per-token latency series and the delegate / CPU / framework
 * split of each phase.
 *
 * Every time is a figure of `etprof runs` (etp_runs_compute on the same ops result): a run's
 * Method::execute and its delegate, cpu and framework parts; warm-up is the runs view's rule
 * (etp_runs_opts.warmup_factor) applied to each generation's decode steps. Nothing is
 * recomputed from the events.
 *
 * Which run is prefill and which decode, in this order:
 *   1. the files: the run's method, resolved by the existing signals (structure, logged tensor
 *      shapes, delegate blob...), is a prefill method when its token input holds more than one
 *      token (the program's first input, an integer tensor [1, L]: L tokens per run), a decode
 *      method when it holds one; without that input, by its name (etp_runs_method.decode_style
 *      rule: "prefill"/"prompt" vs "decode"/"kv"/"token");
 *   2. the user: opts.prefill_runs N (--prefill-runs N): the first N runs of each generation are
 *      prefill (for the runs the files cannot tell);
 *   3. inferred from order and duration, and said: see etp_session_opts.start_factor.
 * A generation starts at the first run and at each prefill run that follows a decode run.
 *
 * Ownership and lifetime: the result is owned by the caller (etp_session_free); its names point
 * into the ops result and the program, which must outlive it. Errors: ETP_E_USAGE for bad options
 * (err->path names the option), ETP_E_INTERNAL when out of memory. Thread safety: computing only
 * reads the ops result and the program; a result may be read by several threads.
 */
#ifndef ETPROF_SESSION_H
#define ETPROF_SESSION_H

#include "etprof.h"
#include "etprof_figures.h"
#include "etprof_result.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

typedef struct etp_session_opts {
    uint32_t prefill_runs;  /* --prefill-runs N: runs the files cannot tell: the first N of each
                               generation are prefill. 0: not given */
    uint32_t prompt_tokens; /* --prompt-tokens N: the prompt length. 0: from the program (the
                               prefill method's token input: its capacity) */
    double warmup_factor;   /* the runs view's warm-up rule over each generation's decode steps
                               (default 1.5, etp_runs_opts) */
    /* Inference, for runs the files cannot tell: a run starts a new generation (and is its
     * prefill) when it is the dump's first run, or when it follows a decode run (not a prefill
     * run: a first decode step is often slow) and its Method::execute is at least start_factor x
     * the median Method::execute of all runs. With prefill_runs N, the first N runs of each
     * generation are prefill; without it, the first one. Default 2. */
    double start_factor;
    uint32_t slowest;       /* slowest decode steps listed per generation (default 5) */
} etp_session_opts;

void etp_session_opts_init(etp_session_opts *o);

typedef enum etp_session_phase {
    ETP_PHASE_PREFILL = 0,
    ETP_PHASE_DECODE,
} etp_session_phase;
const char *etp_session_phase_name(etp_session_phase p); /* "prefill", "decode" */

/* How a run's phase was decided. */
typedef enum etp_session_basis {
    ETP_SB_METHOD = 0, /* its method, resolved from the files (input shape, or name) */
    ETP_SB_OPTION,     /* --prefill-runs */
    ETP_SB_INFERRED,   /* order and duration (start_factor) */
    ETP_SB_COUNT_
} etp_session_basis;
const char *etp_session_basis_name(etp_session_basis b); /* "method", "option", "inferred" */

typedef struct etp_session_run {
    uint32_t block;         /* the dump's block index */
    uint32_t generation;    /* 0-based */
    etp_session_phase phase;
    etp_session_basis basis;
    uint32_t method;        /* index for etp_ops_method_get() (name NULL when ambiguous) */
    uint32_t step;          /* decode: 1-based step within its generation; prefill: 1-based
                               chunk */
    bool warmup;            /* decode steps only: the warm-up rule */
    double execute, delegate, cpu, framework; /* etp_runs_row's, in the session's unit */
} etp_session_run;

/* The time of one phase of one generation, summed over its runs, and each part's share. */
typedef struct etp_session_split {
    uint32_t runs;
    double execute, delegate, cpu, framework;
    double delegate_pct, cpu_pct, framework_pct; /* of execute; NaN when execute is 0 or NaN */
} etp_session_split;

typedef enum etp_session_prompt_src {
    ETP_PS_NONE = 0,   /* unknown: no flag, no method with a token input */
    ETP_PS_OPTION,     /* --prompt-tokens */
    ETP_PS_SHAPE,      /* the prefill method's token input [1, L] (its capacity: a shorter
                          prompt is padded to L) */
} etp_session_prompt_src;

typedef struct etp_session_gen {
    uint32_t index;
    uint32_t first_run, n_runs;        /* its runs: etp_session_run_get(first_run + k) */
    uint32_t first_block, last_block;
    uint32_t prefill_runs, decode_runs, warmup_runs, steady_runs;
    /* time to first token: the sum of the generation's prefill runs' Method::execute (one
     * prefill run: from its start to its end); NaN without a prefill run. The runner's work
     * between runs (tokenizing, sampling) is not in the dump's Method::execute and not counted. */
    double ttft;
    uint32_t prompt_tokens;            /* 0 when unknown */
    etp_session_prompt_src prompt_src;
    const char *prompt_method;         /* the method the shape was read from (ETP_PS_SHAPE) */
    double prefill_tokens_per_second;  /* prompt_tokens / ttft (ns only; else NaN) */
    double decode_tokens_per_second;   /* steady decode steps / their summed Method::execute */
    double decode_tokens_per_second_all; /* every decode step, warm-up included */
    double decode_steady_total;        /* summed Method::execute of the steady steps */
    etp_stats token_latency;           /* Method::execute of every decode step (warm-up
                                          included: each is a token the user waits for) */
    etp_session_split prefill, decode;
    uint32_t n_slowest;                /* the slowest decode steps, slowest first */
    const uint32_t *slowest;           /* indices for etp_session_run_get() */
} etp_session_gen;

typedef struct etp_session_result etp_session_result;

/* `program` may be NULL (no shapes: names only); `o` may be NULL (defaults). */
int etp_session_compute(const etp_ops_result *r, const etp_program *program,
                        const etp_session_opts *o, etp_session_result **out, etp_error *err);
void etp_session_free(etp_session_result *s);
const etp_session_opts *etp_session_get_opts(const etp_session_result *s);
etp_unit etp_session_unit(const etp_session_result *s); /* ns, or ticks */
size_t etp_session_run_count(const etp_session_result *s);
const etp_session_run *etp_session_run_get(const etp_session_result *s, size_t i);
size_t etp_session_gen_count(const etp_session_result *s);
const etp_session_gen *etp_session_gen_get(const etp_session_result *s, size_t i);
/* Runs whose phase was decided by basis b. */
uint32_t etp_session_basis_count(const etp_session_result *s, etp_session_basis b);
/* Runs the files could not tell (their method ambiguous or unnamed, or a method neither prefill
 * nor decode by shape and name); these are the runs the option or the inference decided. */
uint32_t etp_session_unresolved(const etp_session_result *s);
/* The ops result the session was computed from. */
const etp_ops_result *etp_session_ops(const etp_session_result *s);

/* The document of `etprof session` (fill `doc` from etp_doc_new("session", 1, FILE, PROGRAM)):
 * facts (definitions, how phases were decided, the generations), the generations table, the
 * slowest decode steps, the per-phase split and the notes; JSON adds each generation's
 * per-token latency series. Every view and format states how the phases were decided when the
 * files could not tell. ETP_E_INTERNAL when out of memory. */
int etp_session_doc(etp_doc *doc, const etp_session_result *s, const etp_disp *d, etp_error *err);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_SESSION_H */
