/* trace_int.h - the trace model shared by the trace writers (src/write/trace.c: the walk and the
 * Chrome JSON sink; src/write/trace_pftrace.c: Perfetto's protobuf sink).
 *
 * The walk (trace.c) reads one block at a time, lays its events out on tracks (tslice, tinst)
 * and hands the block to a sink (trace_sink); the optrace's HTP ops and counters likewise. A
 * sink only writes: it never reads the dump again. */
#ifndef ETPROF_TRACE_INT_H
#define ETPROF_TRACE_INT_H

#include "etprof.h"
#include "etprof_qnn.h"
#include "jw.h"
#include "qnn.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Tracks of one run: tid = run_base + sub. */
enum {
    SUB_HOST = 0,   /* real host timestamps */
    SUB_LANE1,      /* overflow lanes: real events that overlap a sibling without nesting */
    SUB_LANE2,
    SUB_LANE3,
    SUB_TIME,       /* synthetic: backend-reported times (QNN µs chain and waits) */
    SUB_OTHER,      /* synthetic: other backend-reported times, each ending at the call's end */
    SUB_NODES,      /* synthetic: QNN nodes laid back to back by cycle share */
    /* Synthetic set k (k = 1 .. N_SETS-1) is SUB_TIME + 3k .. SUB_NODES + 3k: used when the
     * containers of a run nest (e.g. events that lost their DELEGATE_CALL fall back to
     * Method::execute), so that groups sharing a track never overlap in time. */
    SUB_COUNT_ = SUB_TIME + 3 * 8
};
#define N_LANES 4 /* host + 3 overflow lanes */
#define N_SETS 8  /* synthetic track sets */
#define TIDS_PER_RUN 32

/* What a slice is, for its name, args and sort order. */
enum {
    ROLE_REAL = 0,    /* an event with real timestamps */
    ROLE_CHAIN,       /* QNN top-level µs event of the nesting chain, end-aligned */
    ROLE_WAIT,        /* QNN VTCM acquire / power-up wait, after the accelerator start */
    ROLE_OTHER,       /* other time-valued backend event, end-aligned */
    ROLE_NODE_PARENT, /* container of the node slices (the cycles parent event, or made up) */
    ROLE_NODE,        /* QNN node, sized by its share of the node-cycle total */
};

typedef struct tslice {
    int64_t ts, dur;   /* ns since the trace base */
    int64_t rank;      /* order among slices of one track with equal ts and dur (outer first) */
    int32_t ev;        /* event index in the block, -1 for a made-up container */
    int32_t container; /* event index of the enclosing timed event (synthetic slices), else -1 */
    uint8_t sub, role;
    bool clamped;      /* shortened to fit its container */
    double share;      /* ROLE_NODE: fraction of the node-cycle total */
    double node_sum;   /* ROLE_NODE_PARENT: sum of the node cycles */
    uint32_t node_count;
    const char *window; /* ROLE_NODE_PARENT: which span the nodes were spread over */
} tslice;

typedef struct tinst {
    int64_t ts;
    int32_t ev;
    int32_t container; /* -1 when placed by file order (allocations) */
    uint8_t sub;
} tinst;

typedef struct method_proc {
    const char *name; /* NULL = unknown */
    int pid;
    uint64_t runs;
} method_proc;

/* Runs seen and written per method, for the run selection (etp_trace_opts.run_*). */
typedef struct run_count {
    const char *name;
    uint64_t seen, kept;
} run_count;

/* Host clock: unwraps 32-bit counters (decided by the pre-pass), converts ticks to ns. */
typedef struct hclock {
    bool unwrap;
    uint64_t epoch, last;
    bool have_last;
} hclock;

typedef struct trace {
    etp_model *m;
    const etp_trace_opts *o;
    etp_trace_stats *st;
    jw w;
    FILE *f;
    /* clock */
    double ns_per_tick;
    uint64_t base;
    bool have_base, unwrap;
    hclock clk;
    /* processes */
    method_proc *procs;
    size_t nprocs, capprocs;
    int next_pid;
    bool load_named;
    uint64_t load_runs;
    run_count *rc;
    size_t nrc, caprc;
    /* per-block scratch */
    tslice *sl;
    size_t nsl, capsl;
    tslice *sl2;         /* sort scratch */
    size_t capsl2;
    tinst *in;
    size_t nin, capin;
    int32_t *slice_of;   /* event -> slice index, -1 */
    int64_t *ws, *we;    /* event -> wall start/end in ns since the base (valid when wall[i]) */
    uint8_t *wall;       /* event has real timestamps */
    int32_t *order;      /* scratch permutation */
    int32_t *lane[N_LANES];  /* open slices per lane (a stack) */
    int32_t *grp;        /* (container, event) pairs for synthetic placement */
    uint32_t cap;
    /* origin of the HTP (optrace) process: the first QnnBackend DELEGATE_CALL, ns */
    int64_t qnn_origin;
    bool have_qnn_origin;
    /* without a program: the DELEGATE_CALLs whose backend the ops views infer
     * (etp_backend_infer), by instruction */
    struct inferred {
        int32_t chain, instr;
        const char *name; /* static (the backend table) */
    } *inf;
    size_t ninf;
    /* the writer */
    const struct trace_sink *sink;
    void *sink_state;   /* the sink's own (trace_pftrace.c) */
    int sink_rc;        /* first error of a sink call that returns nothing (sink_err says it) */
    etp_error sink_err;
    /* optrace (etp_trace_write_htp) */
    const etp_qnn_trace *ot;
    double ghz;
    const char *clock_source;
    uint64_t htp_slices, htp_overlap;
} trace;

/* A trace writer. `block` receives a laid-out block (t->sl[0..nsl), sorted by track then
 * nesting order, outer first; t->in[0..nin) the instants), `pid`/`run` its process and run
 * number. The void calls latch an error in t->sink_rc / t->sink_err. */
typedef struct trace_sink {
    int (*begin)(trace *t, etp_error *err);
    void (*process)(trace *t, int pid, const char *name, int sort);
    void (*thread)(trace *t, int pid, int64_t tid, const char *name); /* HTP tracks */
    int (*block)(trace *t, const etp_block_view *v, int pid, uint64_t run, etp_error *err);
    /* an optrace op on hardware thread track `tid` (overflow lane when `overlap`), s..e in ns */
    void (*htp_op)(trace *t, int pid, int64_t tid, const etp_qnn_trace_op *op, int64_t s,
                   int64_t e, bool overlap);
    /* one point of an optrace counter ("VTCM read (bytes)"; `label` includes the unit) */
    void (*htp_counter)(trace *t, int pid, const etp_qnn_trace_counter *ct, const char *label,
                        int64_t ts, double value);
    int (*end)(trace *t, etp_error *err); /* after the last block and the optrace */
    void (*release)(trace *t);            /* always called once; frees the sink's state */
} trace_sink;

extern const trace_sink etp__trace_json_sink;
extern const trace_sink etp__trace_pftrace_sink;

/* Shared by the sinks (trace.c). */
const char *etp__trace_qnn_class_name(etp_qnn_class q);
const char *etp__trace_placement(const etp_mevent *e);
/* The backend the ops views infer for the DELEGATE_CALL of (chain, instr), NULL. */
const char *etp__trace_inferred_backend(const trace *t, int32_t chain, int32_t instr);
/* The names of a block's tracks, as the JSON writes them: `runname` ("run 3", "Default (block
 * 0)") and `backend` (the containers' backend, "delegates" if mixed). */
void etp__trace_block_names(const trace *t, const etp_block_view *v, int pid, uint64_t run,
                            char *runname, size_t nrun, const char **backend);
/* The name of track `sub` of a block ("run 3", "run 3: QnnBackend time (synthetic)"). */
void etp__trace_track_name(const char *runname, const char *backend, int sub, char *buf,
                           size_t n);

#endif
