/* main.c - the etprof command: picks a subcommand, parses its options, runs it. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* Commands live in cmd_*.c. They are declared weak so that the table below can name commands
 * that a build does not contain yet. */
#define WEAK __attribute__((weak))
extern const cli_cmd cmd_summary WEAK, cmd_info WEAK, cmd_events WEAK, cmd_ops WEAK,
    cmd_tree WEAK, cmd_explain WEAK, cmd_qnn WEAK, cmd_trace WEAK, cmd_report WEAK,
    cmd_diff WEAK;

static const cli_cmd *const commands[] = {&cmd_summary, &cmd_info, &cmd_events, &cmd_ops,
                                          &cmd_tree, &cmd_explain, &cmd_qnn, &cmd_trace,
                                          &cmd_report, &cmd_diff};
#define NCMD (sizeof commands / sizeof commands[0])

static const opt_id global_opts[] = {OPT_FORMAT, OPT_OUTPUT, OPT_HELP, OPT_QUIET, OPT_NONE};

static void usage(FILE *f) {
    fprintf(f, "usage: etprof COMMAND FILE... [options]\n\n"
               "etprof reads ExecuTorch profiling files (ETDump .etdp, programs .pte) and\n"
               "answers where the time goes, on which hardware, and in which unit.\n\ncommands:\n");
    for (size_t i = 0; i < NCMD; i++)
        if (commands[i]) fprintf(f, "  %-9s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "\nglobal options: --format table|csv|tsv|json|jsonl|md, -o FILE, -q, --help, "
               "--version\n"
               "'etprof COMMAND --help' describes a command. Exit codes: 0 ok, 1 input rejected,\n"
               "2 usage error, 3 I/O error, 4 internal error, 5 regression found (diff).\n");
}

static bool accepts(const cli_cmd *c, opt_id id) {
    for (const opt_id *o = global_opts; *o; o++)
        if (*o == id) return true;
    for (const opt_id *o = c->opts; o && *o; o++)
        if (*o == id) return true;
    return false;
}

static void print_opt(FILE *f, const cli_optdef *d) {
    char lhs[64];
    if (d->short_name)
        snprintf(lhs, sizeof lhs, "-%c, --%s%s%s", d->short_name, d->name, d->arg ? " " : "",
                 d->arg ? d->arg : "");
    else
        snprintf(lhs, sizeof lhs, "    --%s%s%s", d->name, d->arg ? " " : "", d->arg ? d->arg : "");
    fprintf(f, "  %-28s %s\n", lhs, d->help);
}

static void cmd_help(const cli_cmd *c, FILE *f) {
    fprintf(f, "usage: etprof %s %s\n\n%s\n", c->name, c->usage, c->summary);
    if (c->help) fprintf(f, "\n%s\n", c->help);
    fprintf(f, "\noptions:\n");
    for (const opt_id *o = c->opts; o && *o; o++) print_opt(f, cli_opt(*o));
    for (const opt_id *o = global_opts; *o; o++) print_opt(f, cli_opt(*o));
}

static const cli_optdef *find_long(const char *name, size_t len) {
    for (int id = 1; id < OPT_COUNT_; id++) {
        const cli_optdef *d = cli_opt((opt_id)id);
        if (d && strlen(d->name) == len && strncmp(d->name, name, len) == 0) return d;
    }
    return NULL;
}

static const cli_optdef *find_short(char c) {
    for (int id = 1; id < OPT_COUNT_; id++) {
        const cli_optdef *d = cli_opt((opt_id)id);
        if (d && d->short_name == c) return d;
    }
    return NULL;
}

static int parse(const cli_cmd *c, int argc, char **argv, cli_args *a) {
    bool only_pos = false;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        const cli_optdef *d = NULL;
        const char *val = NULL;
        if (!only_pos && strcmp(s, "--") == 0) {
            only_pos = true;
            continue;
        }
        if (!only_pos && s[0] == '-' && s[1] == '-' && s[2]) {
            const char *eq = strchr(s + 2, '=');
            size_t len = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
            d = find_long(s + 2, len);
            if (!d) {
                cli_errorf("%s: unknown option %s (see 'etprof %s --help')", c->name, s, c->name);
                return EXIT_USAGE;
            }
            if (eq) val = eq + 1;
        } else if (!only_pos && s[0] == '-' && s[1] && !s[2]) {
            d = find_short(s[1]);
            if (!d) {
                cli_errorf("%s: unknown option %s (see 'etprof %s --help')", c->name, s, c->name);
                return EXIT_USAGE;
            }
        }
        if (!d) {
            if (a->npos >= CLI_MAX_POS || a->npos >= c->max_pos) {
                cli_errorf("%s: unexpected argument \"%s\" (usage: etprof %s %s)", c->name, s,
                           c->name, c->usage);
                return EXIT_USAGE;
            }
            a->pos[a->npos++] = s;
            continue;
        }
        if (!accepts(c, d->id)) {
            cli_errorf("%s: option --%s does not apply to this command", c->name, d->name);
            return EXIT_USAGE;
        }
        if (d->arg && !val) {
            if (i + 1 >= argc) {
                cli_errorf("%s: option --%s needs a value (%s)", c->name, d->name, d->arg);
                return EXIT_USAGE;
            }
            val = argv[++i];
        } else if (!d->arg && val) {
            cli_errorf("%s: option --%s takes no value", c->name, d->name);
            return EXIT_USAGE;
        }
        a->set[d->id] = true;
        a->val[d->id] = val;
    }
    return EXIT_OK;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("etprof %s (JSON schema_version 1)\n", ETPROF_VERSION);
        return EXIT_OK;
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        if (argc > 2)
            for (size_t i = 0; i < NCMD; i++)
                if (commands[i] && strcmp(commands[i]->name, argv[2]) == 0) {
                    cmd_help(commands[i], stdout);
                    return EXIT_OK;
                }
        usage(stdout);
        return EXIT_OK;
    }
    const cli_cmd *c = NULL;
    for (size_t i = 0; i < NCMD; i++)
        if (commands[i] && strcmp(commands[i]->name, name) == 0) c = commands[i];
    if (!c) {
        cli_errorf("unknown command \"%s\" (see 'etprof --help')", name);
        return EXIT_USAGE;
    }
    cli_args a;
    memset(&a, 0, sizeof a);
    int rc = parse(c, argc - 2, argv + 2, &a);
    if (rc) return rc;
    if (a.set[OPT_HELP]) {
        cmd_help(c, stdout);
        return EXIT_OK;
    }
    a.quiet = a.set[OPT_QUIET];
    a.fmt = OUT_TABLE;
    if (a.set[OPT_FORMAT]) {
        if (out_format_parse(a.val[OPT_FORMAT], &a.fmt) != 0) {
            cli_errorf("%s: unknown format \"%s\" (table, csv, tsv, json, jsonl, md)", c->name,
                       a.val[OPT_FORMAT]);
            return EXIT_USAGE;
        }
        a.fmt_set = true;
    }
    if (a.npos < c->min_pos) {
        cli_errorf("%s: missing argument (usage: etprof %s %s)", c->name, c->name, c->usage);
        return EXIT_USAGE;
    }
    return c->run(&a);
}
