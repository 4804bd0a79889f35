/* thread.c - starting a helper thread on another CPU (thread.h). A platform utility of the base
 * layer: the ETDump reader's background verifier and the model's two-thread passes use it. */
#if defined(__linux__)
#define _GNU_SOURCE /* sched_getcpu, pthread_attr_setaffinity_np */
#include <sched.h>
#endif
#include "thread.h"

#include <stdlib.h>

/* ---- Starting a helper thread on another CPU ----
 * Linux places a new thread on its creator's CPU when the other CPUs ran recently (their load
 * is still counted), and moves it only at the next load balance: on two CPUs, a helper started
 * as the creator goes on working then shares its CPU for milliseconds while the other stays
 * idle (measured: a 2 ms start for the statistics' second half, docs/analyses.md "Two
 * threads"). So the helper starts on the creator's CPUs but the one it runs on, and takes all
 * of them back at once: the scheduler may then move it as it likes. */
typedef struct spawn {
    void *(*fn)(void *);
    void *arg;
#if defined(__linux__) && defined(CPU_SET)
    cpu_set_t all;
#endif
} spawn;

static void *spawn_main(void *p) {
    spawn s = *(spawn *)p;
    free(p);
#if defined(__linux__) && defined(CPU_SET)
    pthread_setaffinity_np(pthread_self(), sizeof s.all, &s.all);
#endif
    return s.fn(s.arg);
}

int etp__thread_start(pthread_t *th, void *(*fn)(void *), void *arg) {
#if defined(__linux__) && defined(CPU_SET)
    spawn *s = malloc(sizeof *s);
    int here = sched_getcpu();
    if (s && here >= 0 && here < CPU_SETSIZE &&
        pthread_getaffinity_np(pthread_self(), sizeof s->all, &s->all) == 0 &&
        CPU_ISSET(here, &s->all) && CPU_COUNT(&s->all) >= 2) {
        s->fn = fn;
        s->arg = arg;
        cpu_set_t away = s->all;
        CPU_CLR(here, &away);
        pthread_attr_t at;
        if (pthread_attr_init(&at) == 0) {
            int rc = pthread_attr_setaffinity_np(&at, sizeof away, &away) == 0
                         ? pthread_create(th, &at, spawn_main, s)
                         : -1;
            pthread_attr_destroy(&at);
            if (rc == 0) return 0;
        }
    }
    free(s);
#endif
    return pthread_create(th, NULL, fn, arg);
}
