/* cmd_export.c - `etprof export FILE... --format v3|jsonl|csv`: the fleet export (library:
 * etp_export_write, etprof_fleet.h; docs/export.md). This file parses options and opens the
 * output. */
#include "cli.h"
#include "etprof_fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_fleet_labels(cli_args *a, etp_label *labels, char (*bufs)[512], size_t *n) {
    *n = 0;
    for (int i = 0; i < a->nlabels; i++) {
        etp_error err = {0};
        if (etp_label_parse(a->labels[i], bufs[i], sizeof bufs[i], &labels[i], &err)) {
            cli_error(&err);
            return EXIT_USAGE;
        }
        (*n)++;
    }
    return EXIT_OK;
}

static int run_export(cli_args *a) {
    etp_error err = {0};
    if (a->set[OPT_SCHEMA]) {
        if (strcmp(a->val[OPT_SCHEMA], "clickhouse") != 0) {
            cli_errorf("export: --schema %s: the schema is written for clickhouse", a->val[OPT_SCHEMA]);
            return EXIT_USAGE;
        }
        if (a->nmany) {
            cli_errorf("export: --schema takes no FILE");
            return EXIT_USAGE;
        }
        cli_out o;
        int rc = cli_out_open(a, &o);
        if (rc) return rc;
        rc = etp_export_schema_clickhouse(o.f, &err) ? EXIT_IO : EXIT_OK;
        return cli_out_close(&o, rc);
    }
    if (a->nmany < 1) {
        cli_errorf("export: missing argument (usage: etprof export FILE... --format v3|jsonl|csv)");
        return EXIT_USAGE;
    }
    etp_export_opts eo;
    memset(&eo, 0, sizeof eo);
    if (!a->set[OPT_FORMAT]) {
        cli_errorf("export: --format is required: v3, jsonl or csv");
        return EXIT_USAGE;
    }
    if (etp_export_format_parse(a->val[OPT_FORMAT], &eo.format)) {
        cli_errorf("export: unknown format \"%s\" (v3, jsonl, csv)", a->val[OPT_FORMAT]);
        return EXIT_USAGE;
    }
    etp_label labels[CLI_MAX_POS];
    char bufs[CLI_MAX_POS][512];
    int rc = cli_fleet_labels(a, labels, bufs, &eo.in.nlabels);
    if (rc) return rc;
    eo.in.labels = labels;
    eo.in.pte = a->set[OPT_PTE] ? a->val[OPT_PTE] : NULL;
    eo.in.method = a->set[OPT_METHOD] ? a->val[OPT_METHOD] : NULL;
    eo.csv_raw = a->set[OPT_CSV_RAW];
    eo.etrecord = a->set[OPT_ETRECORD] ? a->val[OPT_ETRECORD] : NULL;
    eo.repo = a->val[OPT_REPO];
    eo.head_branch = a->val[OPT_HEAD_BRANCH];
    eo.head_sha = a->val[OPT_HEAD_SHA];
    eo.workflow_id = a->val[OPT_WORKFLOW_ID];
    eo.job_id = a->val[OPT_JOB_ID];
    eo.run_attempt = a->val[OPT_RUN_ATTEMPT];
    if (a->set[OPT_TIMESTAMP]) {
        long t;
        if (!cli_get_long(a, OPT_TIMESTAMP, &t) || t < 0) {
            cli_errorf("export: --timestamp: expected Unix seconds, got \"%s\"", a->val[OPT_TIMESTAMP]);
            return EXIT_USAGE;
        }
        eo.timestamp = t;
        eo.timestamp_set = true;
    }
    if (eo.format == ETP_EXPORT_V3) { /* the required metadata, before any output */
        etp_export_stats st0;
        if (etp_export_write(NULL, NULL, 0, &eo, &st0, &err) == ETP_E_USAGE) {
            cli_error(&err);
            return EXIT_USAGE;
        }
    }
    cli_out o;
    if ((rc = cli_out_open(a, &o))) return rc;
    FILE *gz = NULL;
    if (a->set[OPT_GZIP] && !(gz = etp_gzip_open(o.f, &err))) {
        cli_error(&err);
        return cli_out_close(&o, EXIT_INTERNAL);
    }
    etp_export_stats st;
    int r = etp_export_write(gz ? gz : o.f, a->many, (size_t)a->nmany, &eo, &st, &err);
    int gz_errno = 0;
    if (gz && fclose(gz) != 0) gz_errno = errno ? errno : EIO;
    if ((r == ETP_E_IO && (gz || ferror(o.f))) || (!r && gz_errno)) {
        o.err = gz_errno ? gz_errno : errno;
        rc = EXIT_IO;
    } else if (r) {
        cli_error(&err);
        rc = cli_exit_for(r);
    }
    rc = cli_out_close(&o, rc);
    if (!rc && !a->quiet)
        fprintf(stderr, "etprof: export: %llu file(s), %llu record(s)\n",
                (unsigned long long)st.files, (unsigned long long)st.records);
    return rc;
}

static const opt_id export_opts[] = {OPT_PTE, OPT_METHOD, OPT_LABEL, OPT_ETRECORD, OPT_GZIP, OPT_SCHEMA,
                                     OPT_REPO, OPT_HEAD_BRANCH, OPT_HEAD_SHA, OPT_WORKFLOW_ID,
                                     OPT_JOB_ID, OPT_RUN_ATTEMPT, OPT_TIMESTAMP, OPT_NONE};

const cli_cmd cmd_export = {
    .name = "export",
    .summary = "many dumps as warehouse rows: PyTorch benchmark v3 records, or a long op table "
               "(JSONL, CSV) for ClickHouse, DuckDB, Spark",
    .usage = "FILE... --format v3|jsonl|csv [--pte P] [--etrecord R] [--label key=value ...] [--gzip] | --schema clickhouse",
    .help = "One file at a time (memory stays bounded whatever the number of files), every value\n"
            "the library's own per-file figure (docs/export.md):\n"
            "  --format v3     PyTorch benchmark v3 records as JSONEachRow, one per file, method\n"
            "                  and metric (latency p50/p90 and per run, delegate share, CPU\n"
            "                  fallback ops, HTP cycles, tokens/s); needs --repo, --head-sha,\n"
            "                  --workflow-id, --job-id, --run-attempt and --timestamp\n"
            "  --format jsonl  the long op table: one row per op, run and measure (inclusive,\n"
            "                  and exclusive where the op has children), with the dump's and the\n"
            "                  program's SHA-256, method, run index, warm-up flag and labels\n"
            "  --format csv    the same table as CSV\n"
            "--etrecord R fills the op table's module column (the row's innermost nn.Module).\n"
            "--label key=value applies to every FILE (device, soc, os, build, commit, model,\n"
            "backend, dtype...). --schema clickhouse prints the CREATE TABLE of the op table.\n"
            "--gzip compresses the output (gzip).",
    .opts = export_opts,
    .min_pos = 0,
    .max_pos = 1000000,
    .run = run_export,
    .own_format = true,
};
