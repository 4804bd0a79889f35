/* cli_ana.h - what the analysis commands (ops, tree, summary, explain) share: their common
 * options checked once, the HTP clock, and the per-op computation over the ETDump. */
#ifndef ETPROF_CLI_ANA_H
#define ETPROF_CLI_ANA_H

#include "etprof_figures.h"
#include "cli.h"
#include "etprof_runs.h"

typedef struct cli_ana {
    const char *cmd;     /* for messages: "ops", "tree", ... */
    cli_args *args;
    long top;            /* --top (the command's default when not given) */
    long skip;           /* --skip-first */
    double ghz;          /* --htp-clock-ghz, 0 when not given */
    etp_model_opts mo;   /* --method, --tick-* */
    etp_disp d;          /* --time-unit and the clock used for cycle estimates */
    cli_inputs in;       /* the ETDump, the program and the model */
    etp_ops_result *r;   /* per-op rows over the runs */
} cli_ana;

/* Checks --top, --skip-first, --htp-clock-ghz, --time-unit and the model options of command
 * `cmd`. `clock_ghz` > 0 shows cycles as time estimates at that clock. Returns an exit code. */
int cli_ana_init(cli_args *a, const char *cmd, long top_default, double clock_ghz, cli_ana *c);
/* The HTP clock: --htp-clock-ghz, else measured by --runtrace, else from --qhas (those files
 * are read and, if bad, rejected here). *clock is NaN when none is known. Returns an exit code. */
int cli_ana_clock(cli_args *a, const char *cmd, double *clock, const char **source);
/* Opens FILE (+ --pte) and computes the rows (--block, --skip-first, progress). */
int cli_ana_compute(cli_args *a, const char *path, cli_ana *c);
/* Allocates `n` uint32_t of scratch (at least one) and opens the output (-o, atomically). On
 * failure prints why, releases the computation too and returns the exit code. */
int cli_ana_output(cli_args *a, cli_ana *c, size_t n, uint32_t **scratch, cli_out *o);
void cli_ana_close(cli_ana *c);
/* Several FILEs at once (the positional arguments, docs/analyses.md "Several dumps at once"):
 * checks --label (none, or one per FILE), opens each FILE (+ --pte), runs etp_multi_compute()
 * with --block and --skip-first, verifies every dump and closes the inputs. Returns an exit
 * code; on success *out holds the result (etp_multi_free). */
int cli_ana_multi(cli_args *a, cli_ana *c, etp_multi_result **out);
/* cli_ana_multi, then a row-index scratch as long as the largest file's rows (*idx) and the
 * output (*o); on failure everything is released and the exit code returned. */
int cli_ana_multi_output(cli_args *a, cli_ana *c, const char *cmd, etp_multi_result **x,
                         uint32_t **idx, cli_out *o);
/* true when the command was given several FILEs or a --label: the multi-file views */
bool cli_ana_is_multi(const cli_args *a);
#endif
