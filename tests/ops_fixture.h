/* ops_fixture.h - a dump (and optional program) from tests/data opened through the public API,
 * modelled and run through etp_ops_compute: the fixture the C unit tests share. */
#ifndef ETPROF_OPS_FIXTURE_H
#define ETPROF_OPS_FIXTURE_H

#include "check.h"
#include "etprof.h"

#include <stdio.h>
#include <string.h>

typedef struct ops_fixture {
    etp_blob db, pb;
    etp_dump *dump;
    etp_program *prog;
    etp_model *model;
    etp_ops_result *r;
} ops_fixture;

static inline void ops_fixture_close(ops_fixture *fx) {
    etp_ops_free(fx->r);
    etp_model_close(fx->model);
    etp_dump_close(fx->dump);
    etp_program_close(fx->prog);
    if (fx->db.kind) etp_blob_close(&fx->db);
    if (fx->pb.kind) etp_blob_close(&fx->pb);
    memset(fx, 0, sizeof *fx);
}

/* DIR/ETDP with DIR/PTE (PTE may be NULL), ops options OO (NULL: defaults). On failure: a CHECK
 * fails, what is open is closed, false. */
static inline bool ops_fixture_open(ops_fixture *fx, const char *dir, const char *etdp,
                                    const char *pte, const etp_ops_opts *oo) {
    char p[1024];
    etp_error err = {0};
    memset(fx, 0, sizeof *fx);
    snprintf(p, sizeof p, "%s/%s", dir, etdp);
    if (etp_blob_open(&fx->db, p, &err) || etp_dump_open(&fx->dump, &fx->db, &err)) goto fail;
    if (pte) {
        snprintf(p, sizeof p, "%s/%s", dir, pte);
        if (etp_blob_open(&fx->pb, p, &err) || etp_program_open(&fx->prog, &fx->pb, &err)) goto fail;
    }
    if (etp_model_open(&fx->model, fx->dump, fx->prog, NULL, &err)) goto fail;
    if (etp_ops_compute(fx->model, oo, &fx->r, &err)) goto fail;
    return true;
fail:
    fprintf(stderr, "cannot open %s: %s\n", etdp, err.msg);
    CHECK(!"fixture opened");
    ops_fixture_close(fx);
    return false;
}

#endif
