/* multi.c - several dumps at once (etprof_runs.h, docs/analyses.md "Several dumps at once"): each
 * file's single-file analyses, kept apart and labelled. Nothing is recomputed or merged here. */
#include "etprof_runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct etp_multi_result {
    etp_multi_file *files;
    size_t n;
};

const char *etp_multi_label(const char *path, char *buf, size_t cap) {
    if (!cap) return buf;
    const char *s = path ? path : "";
    const char *slash = strrchr(s, '/');
    if (slash && slash[1]) s = slash + 1;
    snprintf(buf, cap, "%s", s);
    return buf;
}

static char *dup_str(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

void etp_multi_free(etp_multi_result *x) {
    if (!x) return;
    for (size_t i = 0; i < x->n; i++) {
        etp_multi_file *f = &x->files[i];
        etp_runs_free((etp_runs_result *)f->runs);
        etp_optype_free((etp_optype_result *)f->types);
        etp_ops_free((etp_ops_result *)f->ops);
        free((char *)f->label);
        free((char *)f->path);
    }
    free(x->files);
    free(x);
}

int etp_multi_compute(const etp_multi_input *in, size_t n, const etp_ops_opts *oo,
                      const etp_runs_opts *ro, etp_multi_result **out, etp_error *err) {
    *out = NULL;
    if (n == 0) {
        etp_error_set(err, ETP_E_USAGE, "", -1, "", "no file to analyse");
        return ETP_E_USAGE;
    }
    etp_multi_result *x = calloc(1, sizeof *x);
    if (!x || !(x->files = calloc(n, sizeof *x->files))) {
        free(x);
        etp_error_set(err, ETP_E_INTERNAL, "", -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    int rc = ETP_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        etp_multi_file *f = &x->files[i];
        char lb[1024];
        const char *label = in[i].label ? in[i].label : etp_multi_label(in[i].path, lb, sizeof lb);
        if (!*label) {
            etp_error_set(err, ETP_E_USAGE, in[i].path ? in[i].path : "", -1, "--label",
                          "empty label");
            rc = ETP_E_USAGE;
            break;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(x->files[j].label, label) == 0) {
                etp_error_set(err, ETP_E_USAGE, in[i].path ? in[i].path : "", -1, "--label",
                              "two files have the label \"%.500s\" (give each file its own "
                              "--label)",
                              label);
                rc = ETP_E_USAGE;
                break;
            }
        if (rc) break;
        x->n = i + 1;
        f->label = dup_str(label);
        f->path = dup_str(in[i].path);
        if (!f->label || (in[i].path && !f->path)) {
            etp_error_set(err, ETP_E_INTERNAL, "", -1, "", "out of memory");
            rc = ETP_E_INTERNAL;
            break;
        }
        etp_ops_result *ops = NULL;
        etp_optype_result *types = NULL;
        etp_runs_result *runs = NULL;
        rc = etp_ops_compute(in[i].model, oo, &ops, err);
        if (rc && err && !err->file[0] && in[i].path)
            snprintf(err->file, sizeof err->file, "%s", in[i].path);
        f->ops = ops;
        if (!rc) rc = etp_optype_compute(ops, &types, err);
        f->types = types;
        if (!rc) rc = etp_runs_compute(ops, ro, &runs, err);
        f->runs = runs;
    }
    if (rc) {
        etp_multi_free(x);
        return rc;
    }
    *out = x;
    return ETP_OK;
}

size_t etp_multi_file_count(const etp_multi_result *x) { return x ? x->n : 0; }
const etp_multi_file *etp_multi_file_get(const etp_multi_result *x, size_t i) {
    return x && i < x->n ? &x->files[i] : NULL;
}
