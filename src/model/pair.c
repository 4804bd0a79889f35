/* pair.c - one pass over a dump's blocks on two threads (pair_int.h). */
#include "pair_int.h"
#include "thread.h"
#include "etdump_int.h"
#include "model_int.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_int pairs_running;

/* ETPROF_THREADS as a number >= 1, or 0 when unset or not one */
static long threads_env(void) {
    const char *e = getenv("ETPROF_THREADS");
    if (e && *e) {
        char *end;
        long v = strtol(e, &end, 10);
        if (!*end && v >= 1) return v;
    }
    return 0;
}

bool etp__pair_wanted(const etp_model *m, uint32_t nblocks, bool allowed) {
    if (!allowed) return false;
    long want = threads_env();
    if (want == 1 || nblocks < 2) return false;
    if (want < 2 && !(nblocks >= 4 && etp__dump_buffer_size(etp_model_dump(m)) >= ((size_t)4 << 20) &&
                      sysconf(_SC_NPROCESSORS_ONLN) >= 2))
        return false;
    int idle = 0;
    return atomic_compare_exchange_strong(&pairs_running, &idle, 1);
}

void etp__pair_release(void) { atomic_store(&pairs_running, 0); }

bool etp__pair_work_wanted(uint64_t items) {
    long want = threads_env();
    if (want == 1) return false;
    if (want < 2 && !(items >= PAIR_WORK_MIN && sysconf(_SC_NPROCESSORS_ONLN) >= 2)) return false;
    int idle = 0;
    return atomic_compare_exchange_strong(&pairs_running, &idle, 1);
}

bool etp__pair_open(etp__pair *p, etp_model *m, uint32_t nb, uint32_t event_charge) {
    p->wm = NULL;
    p->lo = nb / 2;
    p->nb = nb;
    p->split = false;
    p->taken = false;
    p->m = m;
    etp_error err = {0};
    if (etp__model_clone(m, &p->wm, &err)) return false;
    if (event_charge) etp__model_set_event_charge(p->wm, event_charge);
    /* the worker verifies its own blocks while the background verifier does the first part's,
     * rather than waiting for it to pass them (etdump_int.h) */
    if ((p->split = etp__dump_split_begin(etp_model_dump(m), p->lo))) etp__model_set_split(p->wm, p->lo);
    /* and this thread verifies the first part's blocks itself, from where the verifier is:
     * two threads, each verifying and reading its half, rather than three on two CPUs */
    p->taken = p->split && etp__dump_take_first(etp_model_dump(m));
    if (p->taken) etp__model_set_taken(m, true);
    return true;
}

static void give_back(etp__pair *p) {
    if (!p->taken) return;
    etp__model_set_taken(p->m, false);
    etp__dump_give_back(etp_model_dump(p->m));
    p->taken = false;
}

bool etp__pair_run(etp__pair *p, void *(*main)(void *), void *arg) {
    if (etp__thread_start(&p->th, main, arg) == 0) return true;
    give_back(p);
    if (p->split) etp__dump_split_end(etp_model_dump(p->wm));
    etp_model_close(p->wm);
    p->wm = NULL;
    return false;
}

void etp__pair_join(etp__pair *p) {
    pthread_join(p->th, NULL);
    give_back(p);
    if (p->split) etp__dump_split_end(etp_model_dump(p->wm));
}

bool etp__pair_finish(etp__pair *p, etp_model *m, bool ok) {
    /* every block verified as one pass would have it, or the one-thread pass decides */
    if (ok && p->split && etp__dump_wait(etp_model_dump(m), p->nb, NULL)) ok = false;
    if (ok) etp__model_absorb(m, p->wm);
    etp_model_close(p->wm);
    p->wm = NULL;
    return ok;
}
