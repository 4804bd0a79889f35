/* pair_int.h - one pass over a dump's blocks on two threads (internal, not part of the API).
 *
 * An analysis that reads blocks in order with etp_model_block() and whose per-block work can be
 * merged (etp_ops_compute, etp_census_compute) splits the blocks in two when the dump is large:
 * the caller's thread reads the first half with its own model, a worker the second half with a
 * clone of it (its own scratch and caches), verifying those blocks itself just before it reads
 * each (etdump_int.h, the split) while the background verifier does the first half. The
 * analysis then merges the worker's part after its own as if one pass had read them in order,
 * or, when either part failed, makes the whole pass again on one thread, so that errors are the
 * one-thread ones. docs/analyses.md "Two threads".
 *
 *     etp__pair p;
 *     if (etp__pair_wanted(m, nb, allowed) && etp__pair_open(&p, m, nb, charge)) {
 *         ... the worker's context, reading blocks [p.lo, nb) with p.wm ...
 *         if (etp__pair_run(&p, main, ctx)) {
 *             rc = <blocks [0, p.lo) on this thread>;   (on failure: tell the worker to stop)
 *             etp__pair_join(&p);
 *             if (etp__pair_finish(&p, m, !rc && !worker_rc)) merge, done;
 *         }
 *         etp__pair_release();
 *     }
 *     one-thread pass (again)
 */
#ifndef ETPROF_PAIR_INT_H
#define ETPROF_PAIR_INT_H

#include "etprof.h"

#include <pthread.h>
#include "thread.h" /* etp__thread_start: every helper thread of the library starts so */
#include <stdbool.h>
#include <stdint.h>

typedef struct etp__pair {
    etp_model *wm;   /* the worker's model: a clone of the caller's */
    uint32_t lo, nb; /* the worker reads blocks [lo, nb); the caller [0, lo) */
    bool split;      /* the worker verifies its own blocks (etp__dump_split_begin) */
    bool taken;      /* the caller verifies the first part's (etp__dump_take_first) */
    etp_model *m;    /* the caller's model */
    pthread_t th;
} etp__pair;

/* Whether a pass over `nblocks` blocks of m's dump should take two threads, and if so this
 * process's one pair is now held (at most one pass runs on two threads at a time: a program that
 * computes several results at once, e.g. Python threads, already keeps the CPUs busy, and each
 * pair holds both halves against the one memory budget). `allowed` false: never.
 * ETPROF_THREADS=1 turns pairs off, ETPROF_THREADS=2 (or more) on for any dump of two blocks or
 * more; unset, they are on for a dump of 4 MiB or more with four blocks or more on a machine
 * with two CPUs or more. A true is followed by etp__pair_release() once the pass is done. */
bool etp__pair_wanted(const etp_model *m, uint32_t nblocks, bool allowed);
void etp__pair_release(void);

/* The same decision for work that is not a pass over blocks (etp_ops_compute's statistics):
 * `items` is its size (samples), two threads from PAIR_WORK_MIN on, or always/never as
 * ETPROF_THREADS says. A true holds the pair: etp__pair_release() once the work is done. */
#define PAIR_WORK_MIN 200000

bool etp__pair_work_wanted(uint64_t items);

/* The worker's half: a clone of m (charging `event_charge` bytes per event of its block, 0: as
 * m) reading blocks [nb / 2, nb), and the split of the verification when the dump allows it.
 * false when that could not be had (nothing is held then: read on one thread). */
bool etp__pair_open(etp__pair *p, etp_model *m, uint32_t nb, uint32_t event_charge);
/* Starts main(arg) on the worker thread. false when it could not start: the pair is closed
 * (nothing is held). */
bool etp__pair_run(etp__pair *p, void *(*main)(void *), void *arg);
/* Waits for the worker, and ends the split. */
void etp__pair_join(etp__pair *p);
/* After the join: `ok` is both parts' success. true when they succeeded and every block was
 * verified (the worker's model's counts are then added to m's); false when the pass must be
 * made again on one thread. The worker's model is closed either way. */
bool etp__pair_finish(etp__pair *p, etp_model *m, bool ok);

#endif
