/*
 * etprof_inspector.h - the event table of ExecuTorch's Python Inspector, computed by libetprof:
 * runs with the same event structure merged into event blocks, one event per signature, its
 * samples over the runs. For scripts written against the Inspector (the Python package's
 * etprof.Inspector, docs/python.md); etprof's own views are in etprof.h.
 *
 * What is the Inspector's (../shared/docs/etdump-format.md section 3 describes it; nothing of
 * its code is used): every run_data block with events is a run; within a run, events are keyed
 * by (instruction_id, chain_index, delegate ids), in order of first appearance; each profile
 * event is one signature (name or delegate id, instruction, delegate ids) with the first debug
 * event of its key; a key with debug events only is one signature without perf data; a
 * signature repeated within a run keeps the position of its first occurrence and the sample of
 * its last (the Inspector's behaviour: the loop's earlier samples are dropped, and counted here
 * in `replaced`); runs with the same name, signature sequence and bundled input index form one
 * event block, in the order of their first run. Event names: the profile name for
 * non-delegated events, the delegate id (the int id in decimal when set, else the string) for
 * delegated ones.
 *
 * Where it differs from the Inspector, on purpose:
 *  - Samples are in the event's own unit (etp_mevent.unit/value: ns of host time, HTP cycles,
 *    bytes, counts...) instead of one scale for everything; start > end is a 32-bit counter
 *    wrap only where the model decides so (exact modular arithmetic), else the sample is NaN.
 *  - Allocation events are left out (counted in allocation_events) instead of an exception.
 *  - The backend comes from the program (etp_mevent.backend) when one is given, for every
 *    delegated event and DELEGATE_CALL.
 *
 * Ownership and lifetime: the result is the caller's (etp_inspector_free()); its strings point
 * into the dump (which must outlive the result) or into the result. Thread safety: computing
 * uses the model (one thread at a time, as every model call); the finished result is read-only
 * and may be shared between threads. Errors: as etp_model_block() (ETP_E_INPUT, located), or
 * ETP_E_INTERNAL when out of memory.
 */
#ifndef ETPROF_INSPECTOR_H
#define ETPROF_INSPECTOR_H

#include "etprof.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

typedef struct etp_inspector_event {
    const char *name;         /* the Inspector's event_name ("" when none): may hold NUL bytes */
    size_t name_len;          /* its length in bytes */
    bool is_delegated;        /* a delegate debug id is set */
    int32_t delegate_id_int;  /* -1 when none */
    etp_str delegate_id_str;  /* ptr NULL when none */
    int32_t instruction_id;   /* -1 when none */
    int32_t chain_index;      /* of the first occurrence; -1 for none */
    etp_kind kind;            /* etprof's kind of the event (framework, kernel, ...) */
    const char *backend;      /* the delegate's backend id from the program; NULL without one */
    bool has_perf;            /* false: a debug-only signature (no samples) */
    etp_unit unit;            /* unit of `values` (ETP_UNIT_NONE without perf data) */
    bool mixed_units;         /* the runs gave different units (then values are NaN where the
                                 unit is not `unit`) */
    uint32_t n_samples;       /* one per run of the block (0 without perf data) */
    const double *values;     /* per run, in `unit`; NaN when the run's duration is unknown */
    const uint64_t *start_times; /* per run: the raw start_time of the sample (file ticks) */
    uint32_t replaced;        /* samples dropped over the runs: the signature occurred again
                                 later in the same run (the later one is kept) */
    bool has_debug;           /* the signature carries debug events */
} etp_inspector_event;

typedef struct etp_inspector_block {
    etp_str name;                /* the runs' block name */
    int32_t bundled_input_index; /* as in the file (-1 in practice) */
    uint32_t n_runs;             /* runs merged into this block */
    uint32_t first_run;          /* run_data index of its first run */
    const char *method;          /* the first run's method when the model resolved it, else NULL */
    uint32_t n_events;
    const etp_inspector_event *events;
} etp_inspector_block;

typedef struct etp_inspector_result {
    uint32_t n_blocks;
    const etp_inspector_block *blocks;
    uint32_t runs;               /* run_data blocks with events */
    uint64_t allocation_events;  /* left out */
    uint64_t replaced;           /* sum of the events' `replaced` */
    void *priv_;
} etp_inspector_result;

/* Computes the table over every block of `m`'s dump (`d`, the dump the model was opened on).
 * ETP_OK and *out, or an error (*out NULL). */
int etp_inspector_compute(etp_model *m, const etp_dump *d, etp_inspector_result **out,
                          etp_error *err);
void etp_inspector_free(etp_inspector_result *r); /* NULL allowed */

/* The debug events of event `event` of block `block` as the Inspector's debug_data takes them:
 * those of the block's FIRST run (run_data[first_run]) with the event's instruction key
 * (instruction, chain index, delegate ids; for a signature repeated in the run, the key of the
 * kept, last sample), program outputs (debug_entry.output true) left out, in file order. *n of
 * them, as indices into that block's events (etp_model_block(m, first_run)'s `events`); NULL and
 * *n 0 when none or out of range. Later runs' debug events are not compared (the Inspector
 * asserts them equal; etprof's tensors/compare show per-run differences). */
const uint32_t *etp_inspector_debug_events(const etp_inspector_result *r, uint32_t block,
                                           uint32_t event, uint32_t *n);

/* What each sample (run) of an event with perf data carries besides its value and start. */
typedef struct etp_inspector_sample {
    uint64_t end_time;                /* the raw end_time (file ticks), as start_times */
    etp_vec delegate_debug_metadata;  /* the sample's bytes, pointing into the dump (ptr NULL
                                         when absent, len 0 when empty) */
} etp_inspector_sample;

/* Per run (n_samples of them) of event `event` of block `block`; NULL without perf data or out
 * of range. Valid as the result (and the dump). */
const etp_inspector_sample *etp_inspector_samples(const etp_inspector_result *r, uint32_t block,
                                                  uint32_t event);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_INSPECTOR_H */
