/* thread.h - starting a helper thread on another CPU (internal; src/base/thread.c). */
#ifndef ETPROF_THREAD_H
#define ETPROF_THREAD_H

#include <pthread.h>

/* pthread_create, placing the new thread on another of the caller's CPUs when there is one
 * (then letting the scheduler move it freely). Returns pthread_create's result. */
int etp__thread_start(pthread_t *th, void *(*fn)(void *), void *arg);

#endif
