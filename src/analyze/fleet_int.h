/* fleet_int.h - one dump read for the run history and the fleet export (internal): the files
 * opened, their identity (SHA-256) and the library's analyses of them (ops, runs). */
#ifndef ETPROF_FLEET_INT_H
#define ETPROF_FLEET_INT_H

#include "etprof.h"
#include "etprof_fleet.h"
#include "etprof_runs.h"

typedef struct fleet_prog {
    etp_blob blob;
    etp_program *prog; /* NULL without a program */
    char sha[65];      /* "" without a program */
    const char *path;
} fleet_prog;

typedef struct fleet_file {
    const char *path;
    etp_blob blob;
    etp_dump *dump;
    etp_model *model;
    etp_ops_result *ops;
    etp_runs_result *runs;
    char sha[65];
    uint64_t bytes;
    char mtime[32]; /* UTC ISO 8601 of the file's modification time, "" when unknown */
} fleet_file;

/* path NULL: no program (p->prog NULL, sha ""). */
int fleet_prog_open(fleet_prog *p, const char *path, etp_error *err);
void fleet_prog_close(fleet_prog *p);
/* Opens, hashes and analyses one dump (etp_ops_compute, etp_runs_compute with defaults). */
int fleet_file_open(fleet_file *f, const char *path, const fleet_prog *p, const char *method,
                    etp_error *err);
void fleet_file_close(fleet_file *f);

/* The value of label `key`, or NULL. */
const char *fleet_label(const etp_fleet_opts *o, const char *key);
/* The method's delegate backends joined with "+" ("cpu" when it has none) into buf. */
const char *fleet_backends(const etp_ops_method *m, char *buf, size_t cap);
/* The method's runs rows (etp_runs_row of method mi), run order, in idx (room for every row of
 * the result); returns how many. */
size_t fleet_method_runs(const etp_runs_result *x, uint32_t mi, const etp_runs_row **idx);
/* UTC ISO 8601 ("2026-12-06T03:14:08Z") of Unix time t. */
void fleet_iso_time(int64_t t, char out[32]);

#endif
