/* fleet.c - one dump read for the run history and the fleet export: opened, hashed (SHA-256 of
 * its bytes and of the program's) and analysed by the library's own analyses (etp_ops_compute,
 * etp_runs_compute), so that every figure stored or exported is the one the other views show. */
#include "fleet_int.h"
#include "sha256.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int etp_label_parse(const char *s, char *buf, size_t cap, etp_label *out, etp_error *err) {
    const char *eq = s ? strchr(s, '=') : NULL;
    size_t kl = eq ? (size_t)(eq - s) : 0;
    bool ok = eq && kl >= 1 && kl <= 64 && strlen(s) < cap;
    for (size_t i = 0; ok && i < kl; i++)
        ok = isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-' || s[i] == '.';
    if (!ok) {
        etp_error_set(err, ETP_E_USAGE, "", -1, "--label",
                      "expected key=value (key: 1 to 64 letters, digits, '_', '-', '.'), got \"%.80s\"",
                      s ? s : "");
        return ETP_E_USAGE;
    }
    memcpy(buf, s, strlen(s) + 1);
    buf[kl] = 0;
    out->key = buf;
    out->value = buf + kl + 1;
    return ETP_OK;
}

void fleet_iso_time(int64_t t, char out[32]) {
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm)) out[0] = 0;
}

int fleet_prog_open(fleet_prog *p, const char *path, etp_error *err) {
    memset(p, 0, sizeof *p);
    p->path = path;
    if (!path) return ETP_OK;
    int rc = etp_blob_open_expect(&p->blob, path, ETP_EXPECT_PROGRAM, err);
    if (!rc) rc = etp_program_open(&p->prog, &p->blob, err);
    if (rc) {
        fleet_prog_close(p);
        return rc;
    }
    etp_sha256_hex(p->blob.data, p->blob.size, p->sha);
    return ETP_OK;
}

void fleet_prog_close(fleet_prog *p) {
    if (p->prog) etp_program_close(p->prog);
    etp_blob_close(&p->blob);
    memset(p, 0, sizeof *p);
}

int fleet_file_open(fleet_file *f, const char *path, const fleet_prog *p, const char *method,
                    etp_error *err) {
    memset(f, 0, sizeof *f);
    f->path = path;
    int rc = etp_blob_open_expect(&f->blob, path, ETP_EXPECT_DUMP, err);
    if (!rc) rc = etp_dump_open(&f->dump, &f->blob, err);
    if (rc) goto fail;
    etp_model_opts mo;
    etp_model_opts_init(&mo);
    mo.method = method;
    mo.dump_name = f->blob.name;
    mo.tick_ns = etp_dump_default_tick_ns(f->dump, NULL);
    if ((rc = etp_model_open(&f->model, f->dump, p ? p->prog : NULL, &mo, err))) goto fail;
    if ((rc = etp_ops_compute(f->model, NULL, &f->ops, err))) goto fail;
    if ((rc = etp_runs_compute(f->ops, NULL, &f->runs, err))) goto fail;
    etp_sha256_hex(f->blob.data, f->blob.size, f->sha);
    f->bytes = f->blob.size;
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0) fleet_iso_time((int64_t)st.st_mtime, f->mtime);
    return ETP_OK;
fail:
    if (!err->file[0]) snprintf(err->file, sizeof err->file, "%s", path);
    fleet_file_close(f);
    return rc;
}

void fleet_file_close(fleet_file *f) {
    if (f->runs) etp_runs_free(f->runs);
    if (f->ops) etp_ops_free(f->ops);
    if (f->model) etp_model_close(f->model);
    if (f->dump) etp_dump_close(f->dump);
    etp_blob_close(&f->blob);
    memset(f, 0, sizeof *f);
}

const char *fleet_label(const etp_fleet_opts *o, const char *key) {
    for (size_t i = 0; o && i < o->nlabels; i++)
        if (strcmp(o->labels[i].key, key) == 0) return o->labels[i].value;
    return NULL;
}

const char *fleet_backends(const etp_ops_method *m, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < m->n_parts; i++) {
        if (m->parts[i].place != ETP_PLACE_DELEGATE) continue;
        int w = snprintf(buf + n, cap - n, "%s%s", n ? "+" : "", m->parts[i].placement);
        if (w < 0 || (size_t)w >= cap - n) break;
        n += (size_t)w;
    }
    if (!n) snprintf(buf, cap, "cpu");
    return buf;
}

size_t fleet_method_runs(const etp_runs_result *x, uint32_t mi, const etp_runs_row **idx) {
    size_t k = 0, n = etp_runs_row_count(x);
    for (size_t i = 0; i < n; i++) {
        const etp_runs_row *r = etp_runs_row_get(x, i);
        if (r->method == mi) idx[k++] = r;
    }
    return k;
}
