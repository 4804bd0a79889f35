/* cli_ana.c - options, clock and computation shared by the analysis commands. */
#include "cli_ana.h"

#include "etprof_qnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool bad_count(cli_args *a, opt_id id, long *out) {
    return a->set[id] && (!cli_get_long(a, id, out) || *out < 0);
}

int cli_ana_init(cli_args *a, const char *cmd, long top_default, double clock_ghz, cli_ana *c) {
    memset(c, 0, sizeof *c);
    c->cmd = cmd;
    c->args = a;
    c->top = top_default;
    if (bad_count(a, OPT_TOP, &c->top)) {
        cli_errorf("%s: --top: expected a number >= 0, got \"%s\"", cmd, a->val[OPT_TOP]);
        return EXIT_USAGE;
    }
    if (bad_count(a, OPT_SKIP_FIRST, &c->skip)) {
        cli_errorf("%s: --skip-first: expected a number >= 0, got \"%s\"", cmd,
                   a->val[OPT_SKIP_FIRST]);
        return EXIT_USAGE;
    }
    if (a->set[OPT_HTP_CLOCK_GHZ] &&
        (!cli_get_double(a, OPT_HTP_CLOCK_GHZ, &c->ghz) || c->ghz <= 0)) {
        cli_errorf("%s: --htp-clock-ghz: expected a positive number, got \"%s\"", cmd,
                   a->val[OPT_HTP_CLOCK_GHZ]);
        return EXIT_USAGE;
    }
    int rc = cli_model_opts(a, &c->mo);
    if (rc) return rc;
    if (etp_disp_init(&c->d, a->set[OPT_TIME_UNIT] ? a->val[OPT_TIME_UNIT] : "us",
                      clock_ghz > 0 ? clock_ghz : 0, c->mo.tick_ns)) {
        cli_errorf("%s: --time-unit: expected ns, us, ms or s, got \"%s\"", cmd,
                   a->val[OPT_TIME_UNIT]);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int cli_ana_clock(cli_args *a, const char *cmd, double *clock, const char **source) {
    double ghz = 0;
    *clock = NAN;
    *source = NULL;
    if (a->set[OPT_HTP_CLOCK_GHZ] && (!cli_get_double(a, OPT_HTP_CLOCK_GHZ, &ghz) || ghz <= 0)) {
        cli_errorf("%s: --htp-clock-ghz: expected a positive number, got \"%s\"", cmd,
                   a->val[OPT_HTP_CLOCK_GHZ]);
        return EXIT_USAGE;
    }
    etp_qnn_paths qp = {a->set[OPT_QHAS] ? a->val[OPT_QHAS] : NULL, NULL,
                        a->set[OPT_RUNTRACE] ? a->val[OPT_RUNTRACE] : NULL, NULL};
    etp_qnn_bundle qb;
    etp_error err = {0};
    int rc = etp_qnn_bundle_load(&qp, &qb, &err);
    if (rc) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    *clock = etp_qnn_clock(ghz, &qb, source);
    etp_qnn_bundle_free(&qb);
    return EXIT_OK;
}

static void progress(void *ctx, uint64_t done, uint64_t total) {
    cli_ana *c = ctx;
    cli_progress(c->args, c->cmd, done, total);
}

int cli_ana_compute(cli_args *a, const char *path, cli_ana *c) {
    /* the blocks are verified by a second thread while the first one analyses them */
    int rc = cli_open_inputs_bg(a, path, &c->in);
    if (rc) return rc;
    c->mo.tick_ns = c->d.tick_ns = c->in.tick_ns; /* the dump's default when none was given */
    etp_ops_opts oo;
    etp_ops_opts_init(&oo);
    oo.block = a->set[OPT_BLOCK] ? a->val[OPT_BLOCK] : NULL;
    oo.skip_first = (uint32_t)c->skip;
    oo.progress = progress;
    oo.progress_ctx = c;
    etp_error err = {0};
    rc = etp_ops_compute(c->in.model, &oo, &c->r, &err);
    if (!rc) rc = etp_dump_wait_verified(c->in.dump, &err);
    cli_progress_end(a);
    if (rc) {
        cli_error(&err);
        cli_ana_close(c);
        return cli_exit_for(rc);
    }
    return EXIT_OK;
}

int cli_ana_output(cli_args *a, cli_ana *c, size_t n, uint32_t **scratch, cli_out *o) {
    *scratch = malloc((n ? n : 1) * sizeof **scratch);
    if (!*scratch) {
        cli_errorf("%s: out of memory", c->cmd);
        cli_ana_close(c);
        return EXIT_INTERNAL;
    }
    int rc = cli_out_open(a, o);
    if (rc) {
        free(*scratch);
        *scratch = NULL;
        cli_ana_close(c);
    }
    return rc;
}

void cli_ana_close(cli_ana *c) {
    etp_ops_free(c->r);
    c->r = NULL;
    cli_close_inputs(&c->in);
}

bool cli_ana_is_multi(const cli_args *a) { return a->npos > 1 || a->nlabels > 0; }

int cli_ana_multi(cli_args *a, cli_ana *c, etp_multi_result **out) {
    *out = NULL;
    if (a->nlabels && a->nlabels != a->npos) {
        cli_errorf("%s: --label: %d label(s) for %d file(s) (give one --label per FILE, in "
                   "order, or none)",
                   c->cmd, a->nlabels, a->npos);
        return EXIT_USAGE;
    }
    if (a->nmethods > 1 && a->nmethods != a->npos) {
        cli_errorf("%s: --method: %d methods for %d file(s) (give one --method for every FILE, "
                   "one per FILE in order)",
                   c->cmd, a->nmethods, a->npos);
        return EXIT_USAGE;
    }
    cli_inputs in[CLI_MAX_POS];
    etp_multi_input mi[CLI_MAX_POS];
    memset(in, 0, sizeof in);
    int n = 0, rc = EXIT_OK;
    const char *method = a->val[OPT_METHOD];
    for (; n < a->npos; n++) {
        if (a->nmethods > 1) a->val[OPT_METHOD] = a->methods[n]; /* this file's method */
        rc = cli_open_inputs_bg(a, a->pos[n], &in[n]);
        a->val[OPT_METHOD] = method;
        if (rc) break;
        mi[n] = (etp_multi_input){a->nlabels ? a->labels[n] : NULL, a->pos[n], in[n].model};
    }
    if (!rc) {
        etp_ops_opts oo;
        etp_ops_opts_init(&oo);
        oo.block = a->set[OPT_BLOCK] ? a->val[OPT_BLOCK] : NULL;
        oo.skip_first = (uint32_t)c->skip;
        etp_error err = {0};
        int r = etp_multi_compute(mi, (size_t)n, &oo, NULL, out, &err);
        for (int i = 0; !r && i < n; i++) r = etp_dump_wait_verified(in[i].dump, &err);
        if (r) {
            cli_error(&err);
            etp_multi_free(*out);
            *out = NULL;
            rc = cli_exit_for(r);
        }
    }
    for (int i = 0; i < n; i++) cli_close_inputs(&in[i]);
    return rc;
}

int cli_ana_multi_output(cli_args *a, cli_ana *c, const char *cmd, etp_multi_result **x,
                         uint32_t **idx, cli_out *o) {
    int rc = cli_ana_multi(a, c, x);
    if (rc) return rc;
    size_t maxrows = 1;
    for (size_t i = 0; i < etp_multi_file_count(*x); i++) {
        size_t nr = etp_ops_row_count(etp_multi_file_get(*x, i)->ops);
        if (nr > maxrows) maxrows = nr;
    }
    *idx = malloc(maxrows * sizeof **idx);
    if (!*idx) {
        etp_multi_free(*x);
        cli_errorf("%s: out of memory", cmd);
        return EXIT_INTERNAL;
    }
    if ((rc = cli_out_open(a, o))) {
        free(*idx);
        etp_multi_free(*x);
        return rc;
    }
    return EXIT_OK;
}
