/* cmd_history.c - `etprof history add|list|show|trend|gate DB ...`: the run history (library:
 * etprof_fleet.h, src/write/history.c; docs/history.md). This file parses and renders. */
#include "cli.h"
#include "etprof_fleet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int open_db(const char *path, bool create, etp_history **h) {
    etp_error err = {0};
    int rc = etp_history_open(h, path, create, &err);
    if (rc) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    return EXIT_OK;
}

static int do_add(cli_args *a, etp_history *h) {
    if (a->nmany < 3) {
        cli_errorf("history add: missing FILE (usage: etprof history add DB FILE... [--pte P] "
                   "[--label key=value ...])");
        return EXIT_USAGE;
    }
    etp_fleet_opts fo;
    memset(&fo, 0, sizeof fo);
    etp_label labels[CLI_MAX_POS];
    char bufs[CLI_MAX_POS][512];
    int rc = cli_fleet_labels(a, labels, bufs, &fo.nlabels);
    if (rc) return rc;
    fo.labels = labels;
    fo.pte = a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL;
    fo.method = a->set[OPT_METHOD] ? a->val[OPT_METHOD] : NULL;
    size_t n = (size_t)a->nmany - 2, done = 0;
    int64_t *ids = calloc(n, sizeof *ids);
    if (!ids) {
        cli_errorf("out of memory");
        return EXIT_INTERNAL;
    }
    etp_error err = {0};
    int r = etp_history_add(h, a->many + 2, n, &fo, ids, &done, &err);
    if (r) {
        cli_error(&err);
        if (done)
            fprintf(stderr, "etprof: history: %zu of %zu dump(s) were added before the error\n",
                    done, n);
        rc = cli_exit_for(r);
    } else if (!a->quiet) {
        fprintf(stderr, "etprof: history: %zu dump(s) added to %s (entries %lld to %lld)\n", n,
                a->many[1], (long long)ids[0], (long long)ids[n - 1]);
    }
    free(ids);
    return rc;
}

static const etp_col list_cols[] = {
    {"entry", "entry", NULL, ETP_T_INT, false, -1},
    {"captured_at", "captured", NULL, ETP_T_STR, false, -1},
    {"method", "method", NULL, ETP_T_STR, false, -1},
    {"device", "device", NULL, ETP_T_STR, false, -1},
    {"runs", "runs", NULL, ETP_T_UINT, false, -1},
    {"warmup_runs", "warm-up", NULL, ETP_T_UINT, false, -1},
    {"latency_p50_ns", "p50", "ns", ETP_T_FLOAT, true, 0},
    {"latency_p90_ns", "p90", "ns", ETP_T_FLOAT, true, 0},
    {"latency_p50_ticks", "p50", "ticks", ETP_T_FLOAT, true, 0},
    {"delegate_share_pct", "delegate", "%", ETP_T_FLOAT, true, 1},
    {"cpu_share_pct", "cpu", "%", ETP_T_FLOAT, true, 1},
    {"tokens_per_second", "tokens/s", NULL, ETP_T_FLOAT, true, 2},
    {"dump_sha256", "dump sha256", NULL, ETP_T_STR, false, -1},
    {"program_sha256", "program sha256", NULL, ETP_T_STR, false, -1},
    {"labels", "labels", NULL, ETP_T_STR, false, -1},
    {"dump_path", "dump", NULL, ETP_T_STR, false, -1},
};
#define NLIST (sizeof list_cols / sizeof list_cols[0])

static int do_list(cli_args *a, etp_history *h, int64_t id) {
    etp_error err = {0};
    etp_history_list *l = NULL;
    int r = etp_history_list_get(h, id, &l, &err);
    if (r) {
        cli_error(&err);
        return cli_exit_for(r);
    }
    if (id > 0 && etp_history_list_count(l) == 0) {
        etp_history_list_free(l);
        cli_errorf("history show: %s: no entry %lld", a->many[1], (long long)id);
        return EXIT_USAGE;
    }
    etp_doc *doc = etp_doc_new(id > 0 ? "history show" : "history list", 1, a->many[1], NULL);
    etp_table *t = etp_doc_table(doc, list_cols, NLIST);
    bool machine = a->fmt != ETP_FMT_TABLE && a->fmt != ETP_FMT_MD;
    for (size_t i = 0; i < etp_history_list_count(l); i++) {
        const etp_history_entry *e = etp_history_list_entry(l, i);
        bool ns = e->unit == ETP_UNIT_NS;
        etp_table_row(t);
        etp_table_int(t, e->id);
        etp_table_str(t, e->captured_at);
        etp_table_str(t, e->method);
        etp_table_str(t, e->device);
        etp_table_uint(t, e->runs);
        etp_table_uint(t, e->warmup_runs);
        etp_table_float(t, ns ? e->p50 : NAN);
        etp_table_float(t, ns ? e->p90 : NAN);
        etp_table_float(t, ns ? NAN : e->p50);
        etp_table_float(t, e->delegate_share);
        etp_table_float(t, e->cpu_share);
        etp_table_float(t, e->tokens_per_second);
        char s1[16], s2[16];
        snprintf(s1, sizeof s1, "%.12s", e->dump_sha256);
        snprintf(s2, sizeof s2, "%.12s", e->program_sha256);
        etp_table_str(t, machine ? e->dump_sha256 : s1);
        etp_table_str(t, machine ? e->program_sha256 : s2);
        etp_table_str(t, e->labels);
        etp_table_str(t, e->dump_path);
    }
    if (!machine)
        etp_table_note(t, "dump and program sha256: the first 12 hex digits (all 64 in csv, tsv, "
                          "json and jsonl)");
    etp_doc_single_table(doc, t);
    cli_out o;
    int rc = cli_out_open(a, &o);
    if (!rc) rc = cli_out_close(&o, cli_render(a, &o, doc));
    etp_doc_free(doc);
    etp_history_list_free(l);
    return rc;
}

static const etp_col trend_cols[] = {
    {"method", "method", NULL, ETP_T_STR, false, -1},
    {"device", "device", NULL, ETP_T_STR, false, -1},
    {"program_sha256", "program", NULL, ETP_T_STR, false, -1},
    {"entry", "entry", NULL, ETP_T_INT, false, -1},
    {"captured_at", "captured", NULL, ETP_T_STR, false, -1},
    {"runs", "runs", NULL, ETP_T_UINT, false, -1},
    {"p50_ns", "p50", "ns", ETP_T_FLOAT, true, 0},
    {"p50_ticks", "p50", "ticks", ETP_T_FLOAT, true, 0},
    {"runs_before", "runs before", NULL, ETP_T_UINT, false, -1},
    {"p50_before_ns", "p50 before", "ns", ETP_T_FLOAT, true, 0},
    {"p50_before_ticks", "p50 before", "ticks", ETP_T_FLOAT, true, 0},
    {"p50_change_pct", "change", "%", ETP_T_FLOAT, true, 2},
    {"p_value", "p", NULL, ETP_T_FLOAT, true, 6},
    {"verdict", "verdict", NULL, ETP_T_STR, true, -1},
    {"gate", "gate", NULL, ETP_T_STR, true, -1},
};
#define NTREND (sizeof trend_cols / sizeof trend_cols[0])

static void trend_row(etp_table *t, const etp_history_series *s, const etp_history_point *p,
                      bool machine) {
    char s2[16];
    snprintf(s2, sizeof s2, "%.12s", s->program_sha256);
    etp_table_row(t);
    etp_table_str(t, s->method[0] ? s->method : "(unnamed)");
    etp_table_str(t, s->device);
    etp_table_str(t, machine ? s->program_sha256 : s2);
    bool ns = s->unit == ETP_UNIT_NS;
    double before = p->compared ? p->cmp.p50_base : NAN;
    etp_table_int(t, p->entry->id);
    etp_table_str(t, p->entry->captured_at);
    etp_table_uint(t, p->runs);
    etp_table_float(t, ns ? p->p50 : NAN);
    etp_table_float(t, ns ? NAN : p->p50);
    etp_table_uint(t, p->runs_before);
    etp_table_float(t, ns ? before : NAN);
    etp_table_float(t, ns ? NAN : before);
    etp_table_float(t, p->compared ? p->cmp.p50_pct : NAN);
    etp_table_float(t, p->compared ? p->cmp.p : NAN);
    if (p->compared) {
        etp_table_str(t, etp_diff_verdict_name(p->cmp.verdict, s->unit));
        etp_table_str(t, etp_diff_outcome_name(p->cmp.gate.outcome));
    } else {
        etp_table_null(t);
        etp_table_null(t);
    }
}

static int do_trend(cli_args *a, etp_history *h, bool gate) {
    etp_history_metric m = ETP_HM_LATENCY;
    if (a->set[OPT_METRIC] && etp_history_metric_parse(a->val[OPT_METRIC], &m)) {
        cli_errorf("history: --metric %s: expected latency, delegate, cpu or framework",
                   a->val[OPT_METRIC]);
        return EXIT_USAGE;
    }
    etp_diff_opts dopt;
    etp_diff_opts_init(&dopt);
    if (a->set[OPT_FAIL_ON_REGRESSION]) {
        double v;
        if (!cli_get_double(a, OPT_FAIL_ON_REGRESSION, &v) || v < 0) {
            cli_errorf("history: --fail-on-regression: expected a percentage >= 0, got \"%s\"",
                       a->val[OPT_FAIL_ON_REGRESSION]);
            return EXIT_USAGE;
        }
        dopt.fail_pct = v;
    }
    etp_error err = {0};
    etp_history_trend *tr = NULL;
    int r = etp_history_trend_get(h, m, &dopt, &tr, &err);
    if (r) {
        cli_error(&err);
        return cli_exit_for(r);
    }
    bool machine = a->fmt != ETP_FMT_TABLE && a->fmt != ETP_FMT_MD;
    etp_doc *doc = etp_doc_new(gate ? "history gate" : "history trend", 1, a->many[1], NULL);
    etp_table *t = etp_doc_table(doc, trend_cols, NTREND);
    for (size_t i = 0; i < etp_history_series_count(tr); i++) {
        const etp_history_series *s = etp_history_series_get(tr, i);
        for (size_t k = gate ? s->npoints - 1 : 0; k < s->npoints; k++)
            trend_row(t, s, &s->points[k], machine);
    }
    char note[900];
    snprintf(note, sizeof note,
             "metric: %s of each steady run (warm-up runs left out); "
             "each entry is compared with every earlier entry of its series (program, method, "
             "device) pooled, by the test of diff (Mann-Whitney U, alpha %g, at least %u runs a "
             "side)",
             etp_history_metric_name(m), dopt.alpha, dopt.min_runs);
    etp_table_note(t, note);
    int code = EXIT_OK;
    if (gate) {
        etp_diff_overall ov;
        etp_history_gate(tr, &ov);
        snprintf(note, sizeof note, "gate: %s: %s (threshold %g %%)",
                 etp_diff_outcome_name(ov.outcome), ov.reason,
                 isnan(dopt.fail_pct) ? 0.0 : dopt.fail_pct);
        etp_table_note(t, note);
        code = ov.outcome == ETP_DIFF_REGRESSION     ? EXIT_REGRESSION
               : ov.outcome == ETP_DIFF_INCONCLUSIVE ? EXIT_INCONCLUSIVE
                                                     : EXIT_OK;
    }
    etp_doc_single_table(doc, t);
    cli_out o;
    int rc = cli_out_open(a, &o);
    if (!rc) rc = cli_out_close(&o, cli_render(a, &o, doc));
    etp_doc_free(doc);
    etp_history_trend_free(tr);
    return rc ? rc : code;
}

static int run_history(cli_args *a) {
    static const char *const subs[] = {"add", "list", "show", "trend", "gate"};
    int sub = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(a->many[0], subs[i]) == 0) sub = i;
    if (sub < 0) {
        cli_errorf("history: unknown action \"%s\" (add, list, show, trend, gate)", a->many[0]);
        return EXIT_USAGE;
    }
    if (sub != 0 && a->nmany != (sub == 2 ? 3 : 2)) {
        cli_errorf("history %s: usage: etprof history %s DB%s", subs[sub], subs[sub],
                   sub == 2 ? " ENTRY" : "");
        return EXIT_USAGE;
    }
    int64_t id = 0;
    if (sub == 2) {
        char *end;
        id = strtoll(a->many[2], &end, 10);
        if (*end || id <= 0) {
            cli_errorf("history show: ENTRY: expected an entry id (history list), got \"%s\"",
                       a->many[2]);
            return EXIT_USAGE;
        }
    }
    etp_history *h = NULL;
    int rc = open_db(a->many[1], sub == 0, &h);
    if (rc) return rc;
    switch (sub) {
    case 0: rc = do_add(a, h); break;
    case 1: rc = do_list(a, h, 0); break;
    case 2: rc = do_list(a, h, id); break;
    default: rc = do_trend(a, h, sub == 4); break;
    }
    etp_history_close(h);
    return rc;
}

static const opt_id history_opts[] = {OPT_PTE, OPT_METHOD, OPT_LABEL, OPT_METRIC,
                                      OPT_FAIL_ON_REGRESSION, OPT_NONE};

const cli_cmd cmd_history = {
    .name = "history",
    .summary = "a run history in SQLite: dumps added with labels, a metric over time per "
               "(program, method, device), a gate on the newest entry",
    .usage = "add DB FILE... [--pte P] [--label key=value ...] | list DB | show DB ENTRY | "
             "trend DB [--metric M] | gate DB [--metric M] [--fail-on-regression PCT]",
    .help = "DB is an SQLite file (add creates it; docs/history.md has its schema). add\n"
            "records each dump's SHA-256 and its program's, the labels (device, soc, os, build,\n"
            "commit...; `captured` sets the capture time, else the file's modification time),\n"
            "and its per-method, per-run and per-op figures. trend follows a per-run metric\n"
            "(latency, delegate, cpu, framework; steady runs) per (program, method, device) and\n"
            "compares each entry with the earlier ones by the test of `diff`. gate judges the\n"
            "newest entry of each series and exits as diff --fail-on-regression: 5 regression,\n"
            "6 inconclusive, 0 otherwise. Two processes may add at once. A file that is not an\n"
            "etprof history is refused (exit 1) and left as it is.",
    .opts = history_opts,
    .min_pos = 2,
    .max_pos = 1000000,
    .run = run_history,
};
