/* main.c - the etprof command: picks a subcommand, parses its options, runs it. */
#include "cli.h"
#include "cli_gen.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Commands live in cmd_*.c. They are declared weak so that the table below can name commands
 * that a build does not contain yet. */
#define WEAK __attribute__((weak))
extern const cli_cmd cmd_summary WEAK, cmd_info WEAK, cmd_events WEAK, cmd_ops WEAK,
    cmd_tree WEAK, cmd_explain WEAK, cmd_qnn WEAK, cmd_trace WEAK, cmd_report WEAK,
    cmd_diff WEAK, cmd_runs WEAK, cmd_tensors WEAK, cmd_compare WEAK, cmd_check_outputs WEAK,
    cmd_modules WEAK, cmd_history WEAK, cmd_export WEAK, cmd_session WEAK;

static const cli_cmd *const commands[] = {&cmd_summary, &cmd_info, &cmd_events, &cmd_ops, &cmd_runs,
                                          &cmd_session,
                                          &cmd_tree, &cmd_explain, &cmd_qnn, &cmd_trace,
                                          &cmd_report, &cmd_diff, &cmd_tensors, &cmd_compare,
                                          &cmd_check_outputs, &cmd_modules, &cmd_history,
                                          &cmd_export};
#define NCMD (sizeof commands / sizeof commands[0])

static const opt_id global_opts[] = {OPT_FORMAT, OPT_OUTPUT, OPT_HELP, OPT_QUIET, OPT_CSV_RAW,
                                     OPT_WIDE, OPT_STRICT, OPT_NONE};

static void usage(FILE *f) {
    fprintf(f, "usage: etprof COMMAND FILE... [options]\n\n"
               "etprof reads ExecuTorch profiling files (ETDump .etdp, programs .pte) and\n"
               "answers where the time goes, on which hardware, and in which unit.\n\ncommands:\n");
    int w = 9;
    for (size_t i = 0; i < NCMD; i++)
        if (commands[i] && (int)strlen(commands[i]->name) > w) w = (int)strlen(commands[i]->name);
    for (size_t i = 0; i < NCMD; i++)
        if (commands[i]) fprintf(f, "  %-*s %s\n", w, commands[i]->name, commands[i]->summary);
    fprintf(f, "\nglobal options: --format table|csv|tsv|json|jsonl|md, -o FILE, -q, --wide, "
               "--csv-raw, --help, --version\n"
               "'etprof COMMAND --help' describes a command. Exit codes: 0 ok, 1 input rejected,\n"
               "2 usage error, 3 I/O error, 4 internal error, 5 regression found (diff, history\n"
               "gate), 6 inconclusive: too few runs to judge a change (diff, history gate) or no\n"
               "outputs logged (check-outputs), 7 a tensor below --fail-below-snr (compare) or\n"
               "an output out of tolerance (check-outputs).\n");
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

/* Edit distance of a and b[0..bn) (insertions, deletions, substitutions, adjacent swaps), capped
 * at 3: names are short, and only near misses are worth a suggestion. */
static unsigned edit_distance(const char *a, const char *b, size_t bn) {
    size_t an = strlen(a);
    if (an > 40 || bn > 40) return 3;
    unsigned d[42][42];
    for (size_t i = 0; i <= an; i++) d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= bn; j++) d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= an; i++)
        for (size_t j = 1; j <= bn; j++) {
            unsigned v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[an][bn] < 3 ? d[an][bn] : 3;
}

/* The closest command to `name`, or NULL when none is near (distance <= 2, or a prefix). */
static const cli_cmd *near_command(const char *name) {
    const cli_cmd *best = NULL;
    unsigned bd = 3;
    size_t n = strlen(name);
    for (size_t i = 0; i < NCMD; i++) {
        if (!commands[i]) continue;
        unsigned dd = edit_distance(commands[i]->name, name, n);
        if (n >= 2 && strncmp(commands[i]->name, name, n) == 0 && dd > 1) dd = 1;
        if (dd < bd) {
            bd = dd;
            best = commands[i];
        }
    }
    return bd <= 2 ? best : NULL;
}

/* The closest option of command `c` (NULL: of any command) to "--name" (name[0..len)), or NULL. */
static const cli_optdef *near_option(const cli_cmd *c, const char *name, size_t len) {
    const cli_optdef *best = NULL;
    unsigned bd = 3;
    for (int id = 1; id < OPT_COUNT_; id++) {
        const cli_optdef *d = cli_opt((opt_id)id);
        if (!d || (c && !accepts(c, d->id))) continue;
        unsigned dd = edit_distance(d->name, name, len);
        if (len >= 3 && strncmp(d->name, name, len) == 0 && dd > 1) dd = 1;
        if (dd < bd) {
            bd = dd;
            best = d;
        }
    }
    return bd <= 2 ? best : NULL;
}

/* "-format", "-top 5": a long option written with one dash (name[0..len) is that long name),
 * or NULL. Such a word is never taken as a bundle of short options ("-output" as "-o utput"). */
static const cli_optdef *one_dash_long(const char *s, size_t *len) {
    if (s[0] != '-' || s[1] == '-' || !s[1] || !s[2]) return NULL;
    const char *eq = strchr(s + 1, '=');
    *len = eq ? (size_t)(eq - s - 1) : strlen(s + 1);
    return *len > 1 ? find_long(s + 1, *len) : NULL;
}

static int unknown_option(const cli_cmd *c, const char *s, const char *name, size_t len) {
    const cli_optdef *d = len ? near_option(c, name, len) : NULL;
    if (len == 7 && strncmp(name, "version", 7) == 0)
        cli_errorf("%s: --version is no option of a command: 'etprof --version'", c->name);
    else if (d)
        cli_errorf("%s: unknown option %.*s: did you mean --%s? (see 'etprof %s --help')", c->name,
                   (int)(len + 2), s, d->name, c->name);
    else
        cli_errorf("%s: unknown option %s (see 'etprof %s --help')", c->name, s, c->name);
    return EXIT_USAGE;
}

/* Records option d (with value val, or the next argument when it takes one and val is NULL). */
static int take_option(const cli_cmd *c, const cli_optdef *d, const char *val, int argc,
                       char **argv, int *i, cli_args *a) {
    if (!accepts(c, d->id)) {
        char who[160] = "";
        size_t n = 0;
        for (size_t k = 0; k < NCMD; k++)
            if (commands[k] && accepts(commands[k], d->id)) {
                int w = snprintf(who + n, sizeof who - n, "%s%s", n ? ", " : "", commands[k]->name);
                if (w > 0 && (size_t)w < sizeof who - n) n += (size_t)w;
            }
        cli_errorf("%s: option --%s does not apply to this command%s%s%s", c->name, d->name,
                   n ? " (it is an option of " : "", who, n ? ")" : "");
        return EXIT_USAGE;
    }
    if (d->arg && !val) {
        if (*i + 1 >= argc) {
            cli_errorf("%s: option --%s needs a value (%s)", c->name, d->name, d->arg);
            return EXIT_USAGE;
        }
        val = argv[++*i];
    } else if (!d->arg && val) {
        cli_errorf("%s: option --%s takes no value", c->name, d->name);
        return EXIT_USAGE;
    }
    if (d->id == OPT_LABEL) { /* repeated: every value is kept */
        if (a->nlabels >= CLI_MAX_POS) {
            cli_errorf("%s: --label: at most %d labels", c->name, CLI_MAX_POS);
            return EXIT_USAGE;
        }
        a->labels[a->nlabels++] = val;
    }
    if (d->id == OPT_METHOD && a->nmethods < CLI_MAX_POS) a->methods[a->nmethods++] = val;
    a->set[d->id] = true;
    a->val[d->id] = val;
    return EXIT_OK;
}

/* Options and arguments of command c, in any order: "--name value", "--name=value", "-x value",
 * "-xvalue", bundled flags ("-qf json"), and "--" ending the options ("-" alone is an argument:
 * standard input). */
static int parse(const cli_cmd *c, int argc, char **argv, cli_args *a) {
    bool only_pos = false;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        int rc;
        if (!only_pos && strcmp(s, "--") == 0) {
            only_pos = true;
            continue;
        }
        if (!only_pos && s[0] == '-' && s[1] == '-') {
            const char *eq = strchr(s + 2, '=');
            size_t len = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
            const cli_optdef *d = find_long(s + 2, len);
            if (!d) return unknown_option(c, s, s + 2, len);
            if ((rc = take_option(c, d, eq ? eq + 1 : NULL, argc, argv, &i, a))) return rc;
            continue;
        }
        size_t l1;
        const cli_optdef *d1 = only_pos ? NULL : one_dash_long(s, &l1);
        if (d1) {
            cli_errorf("%s: unknown option %.*s: did you mean --%s? (long options take two dashes)",
                       c->name, (int)(l1 + 1), s, d1->name);
            return EXIT_USAGE;
        }
        if (!only_pos && s[0] == '-' && s[1]) {
            for (const char *p = s + 1; *p; p++) {
                const cli_optdef *d = find_short(*p);
                if (!d) {
                    char opt[3] = {'-', *p, 0};
                    return unknown_option(c, opt, NULL, 0);
                }
                const char *val = d->arg && p[1] ? p + 1 : NULL; /* "-ofile" */
                if ((rc = take_option(c, d, val, argc, argv, &i, a))) return rc;
                if (d->arg) break;
            }
            continue;
        }
        if (c->max_pos > CLI_MAX_POS) { /* every argument kept (argc at most) */
            if (!a->many && !(a->many = malloc((size_t)argc * sizeof *a->many))) {
                cli_errorf("out of memory");
                return EXIT_INTERNAL;
            }
            if (a->nmany >= c->max_pos) {
                cli_errorf("%s: more than %d arguments", c->name, c->max_pos);
                return EXIT_USAGE;
            }
            a->many[a->nmany++] = s;
            if (a->npos < CLI_MAX_POS) a->pos[a->npos++] = s;
            continue;
        }
        if (a->npos >= CLI_MAX_POS || a->npos >= c->max_pos) {
            cli_errorf("%s: unexpected argument \"%s\" (usage: etprof %s %s)", c->name, s, c->name,
                       c->usage);
            return EXIT_USAGE;
        }
        a->pos[a->npos++] = s;
    }
    return EXIT_OK;
}

static const cli_cmd *find_command(const char *name) {
    for (size_t i = 0; i < NCMD; i++)
        if (commands[i] && strcmp(commands[i]->name, name) == 0) return commands[i];
    return NULL;
}

/* How many arguments option `s` standing before the command takes: 1 (itself), 2 (with its
 * value), or 0 when it is no known option. Any option may stand there (the command then says
 * whether it applies); the global ones are those every command takes. */
static int global_arg_count(const char *s) {
    const cli_optdef *d = NULL;
    bool inline_val = false;
    size_t l1;
    if ((d = one_dash_long(s, &l1)) != NULL) {
        inline_val = s[1 + l1] == '='; /* the command's parser rejects it with a hint */
    } else if (s[0] == '-' && s[1] == '-' && s[2]) {
        const char *eq = strchr(s + 2, '=');
        d = find_long(s + 2, eq ? (size_t)(eq - s - 2) : strlen(s + 2));
        inline_val = eq != NULL;
    } else if (s[0] == '-' && s[1] && s[1] != '-') {
        for (const char *p = s + 1; *p; p++) {
            d = find_short(*p);
            if (!d) return 0;
            if (d->arg) {
                inline_val = p[1] != 0;
                break;
            }
        }
    }
    if (!d) return 0;
    return d->arg && !inline_val ? 2 : 1;
}

/* Appends " word" to b (room cap) as a shell would need it: in single quotes when it holds
 * anything but letters, digits and -_./=+,:@%. Returns false when it did not fit. */
static bool append_word(char *b, size_t cap, size_t *n, const char *w, bool *quoted) {
    if (strlen(w) > 400) return false; /* shown as "..." rather than cut */
    bool plain = *w != 0;
    for (const char *p = w; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                strchr("-_./=+,:@%", *p) != NULL;
    char q[600];
    size_t k = 0;
    if (!plain) q[k++] = '\'';
    for (const char *p = w; *p && k + 6 < sizeof q; p++) {
        if (*p == '\'' && !plain) {
            memcpy(q + k, "'\\''", 4);
            k += 4;
        } else {
            q[k++] = (unsigned char)*p < 0x20 ? '?' : *p;
        }
    }
    if (!plain) q[k++] = '\'';
    q[k] = 0;
    if (!plain) *quoted = true;
    int r = snprintf(b + *n, cap - *n, " %s", q);
    if (r < 0 || (size_t)r >= cap - *n) {
        b[*n] = 0;
        return false;
    }
    *n += (size_t)r;
    return true;
}

/* Does `s` name an input file rather than a command? (it exists, or has a path or an input's
 * extension; "-" is standard input) */
static bool looks_like_file(const char *s) {
    if (strcmp(s, "-") == 0 || strchr(s, '/')) return true;
    const char *dot = strrchr(s, '.');
    static const char *const ext[] = {".etdp", ".etdump", ".pte", ".bpte", ".ptd", ".bin",
                                      ".json", ".csv", ".txt", ".log"};
    for (size_t i = 0; dot && i < sizeof ext / sizeof ext[0]; i++)
        if (strcmp(dot, ext[i]) == 0) return true;
    FILE *f = fopen(s, "rb");
    if (f) fclose(f);
    return f != NULL;
}

/* argv[g] is no command: one line saying what was probably meant, e.g. for
 * "etprof run.etdp ops --top 3": did you mean 'etprof ops run.etdp --top 3'? */
static void unknown_command(int argc, char **argv, int g) {
    const char *name = argv[g];
    int at = -1; /* a command named later on the line */
    const char *later = NULL;
    for (int i = g + 1; i < argc && at < 0; i++)
        if (find_command(argv[i])) at = i;
    bool file = looks_like_file(name);
    for (int i = g + 1; i < argc && at < 0 && file; i++) {
        /* "etprof run.etdp oops": a misspelt command after the file */
        const cli_cmd *nc = argv[i][0] != '-' && !looks_like_file(argv[i]) ? near_command(argv[i]) : NULL;
        if (nc) {
            at = i;
            later = nc->name;
        }
    }
    if (name[0] == '-' && name[1]) {
        size_t len;
        const cli_optdef *d = one_dash_long(name, &len);
        if (!d && name[1] == '-' && name[2]) {
            const char *eq = strchr(name + 2, '=');
            len = eq ? (size_t)(eq - name - 2) : strlen(name + 2);
            d = near_option(NULL, name + 2, len);
        }
        if (d)
            cli_errorf("unknown option %.*s before the command: did you mean --%s? (see 'etprof "
                       "--help')",
                       (int)(len + (name[1] == '-' ? 2 : 1)), name, d->name);
        else
            cli_errorf("unknown option %s before the command (see 'etprof --help')", name);
        return;
    }
    if (at >= 0 || file) {
        /* the same words with the command first (summary for a lone dump, info for a program) */
        const char *cmd = later ? later : at >= 0 ? argv[at] : NULL;
        if (!cmd) {
            const char *dot = strrchr(name, '.');
            cmd = dot && (strcmp(dot, ".pte") == 0 || strcmp(dot, ".bpte") == 0) ? "info"
                                                                                  : "summary";
        }
        char b[1024];
        size_t n = 0;
        bool quoted = false, fits = append_word(b, sizeof b, &n, cmd, &quoted);
        for (int i = 1; i < argc && fits; i++)
            if (i != at) fits = append_word(b, sizeof b, &n, argv[i], &quoted);
        /* quoted words inside a quoted suggestion would read badly: then it stands alone */
        if (quoted)
            cli_errorf("unknown command \"%s\": the command comes first: did you mean: etprof%s%s",
                       name, b, fits ? "" : " ...");
        else
            cli_errorf("unknown command \"%s\": the command comes first: did you mean "
                       "'etprof%s%s'?",
                       name, b, fits ? "" : " ...");
        return;
    }
    const cli_cmd *near = near_command(name);
    if (near)
        cli_errorf("unknown command \"%s\": did you mean '%s'? (see 'etprof --help')", name,
                   near->name);
    else
        cli_errorf("unknown command \"%s\" (see 'etprof --help')", name);
}

/* An output naming one of the inputs (issue 35): `-o run.etdp` (through a link or another path
 * to the same file too) would replace the user's dump with the report. Refused as a usage error
 * before anything is read or written: the same device and inode, an existing regular file. */
static int output_is_input(const cli_cmd *c, const cli_args *a) {
    static const opt_id outs[] = {OPT_OUTPUT, OPT_HTML};
    static const opt_id ins[] = {
        OPT_PTE,      OPT_PTE_NEW,     OPT_QHAS,         OPT_OPTRACE,          OPT_RUNTRACE,
        OPT_HEAP,     OPT_PROFILE_LOG, OPT_PROFILE_CSV,  OPT_DEBUG_BUFFER,     OPT_DEBUG_BUFFER_NEW,
        OPT_ETRECORD, OPT_ETRECORD_NEW, OPT_RUNNER_LOG, OPT_RUNNER_LOG_NEW};
    const int nins = (int)(sizeof ins / sizeof ins[0]);
    for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++) {
        const char *out = a->set[outs[o]] ? a->val[outs[o]] : NULL;
        struct stat so;
        if (!out || strcmp(out, "-") == 0 || stat(out, &so) != 0) continue;
        for (int i = 0; i < a->npos + nins; i++) {
            int k = i - a->npos; /* an option, after the positional FILEs */
            const char *in = k < 0 ? a->pos[i] : a->set[ins[k]] ? a->val[ins[k]] : NULL;
            if (!in) continue;
            struct stat si;
            /* "-": standard input, which may be the file itself (`< run.etdp -o run.etdp`) */
            int r = strcmp(in, "-") == 0 ? fstat(STDIN_FILENO, &si) : stat(in, &si);
            if (r != 0 || !S_ISREG(si.st_mode) || si.st_dev != so.st_dev || si.st_ino != so.st_ino)
                continue;
            cli_errorf("%s: %s %s is the input %s: the output would replace it; write it to "
                       "another file",
                       c->name, outs[o] == OPT_HTML ? "--html" : "-o", out,
                       strcmp(in, "-") == 0 ? "<stdin>" : in);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

int main(int argc, char **argv) {
    /* Global options may stand before the command: "etprof --format csv ops F". They are
     * moved after it (before its own arguments, so that a "--" there still ends options). */
    int g = 1, dashdash = 0; /* dashdash: the index of a "--" before the command */
    while (g < argc) {
        if (strcmp(argv[g], "--version") == 0 || strcmp(argv[g], "--help") == 0 ||
            strcmp(argv[g], "-h") == 0)
            break;
        if (strcmp(argv[g], "--") == 0) { /* ends the global options: the command follows */
            dashdash = g++;
            break;
        }
        int k = global_arg_count(argv[g]);
        if (!k) break;
        g += k;
    }
    if (g >= argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[g];
    if (cli_gen_is_mode(name)) { /* man pages, completion (cmd_man.c) */
        const cli_gen_table gt = {commands, NCMD, global_opts, usage, cmd_help};
        return cli_gen_main(&gt, argc - g, argv + g);
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("etprof %s (JSON schema_version 1)\n", ETPROF_VERSION);
        return EXIT_OK;
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        const cli_cmd *hc = g + 1 < argc ? find_command(argv[g + 1]) : NULL;
        if (hc) cmd_help(hc, stdout);
        else usage(stdout);
        return EXIT_OK;
    }
    const cli_cmd *c = find_command(name);
    if (!c) {
        unknown_command(argc, argv, g);
        return EXIT_USAGE;
    }
    /* the command's arguments: the global options given before it, then the rest */
    int nglob = (g - 1) - (dashdash ? 1 : 0);
    int nargs = nglob + (argc - g - 1);
    char **args = malloc(((size_t)nargs + 1) * sizeof *args);
    if (!args) {
        cli_errorf("out of memory");
        return EXIT_INTERNAL;
    }
    int k = 0;
    for (int i = 1; i < g; i++)
        if (i != dashdash) args[k++] = argv[i];
    for (int i = g + 1; i < argc; i++) args[k++] = argv[i];
    args[nargs] = NULL;
    cli_args a;
    memset(&a, 0, sizeof a);
    int rc = parse(c, nargs, args, &a);
    if (rc) goto done;
    if (a.set[OPT_HELP]) {
        cmd_help(c, stdout);
        rc = EXIT_OK;
        goto done;
    }
    a.quiet = a.set[OPT_QUIET];
    a.fmt = ETP_FMT_TABLE;
    if (a.set[OPT_FORMAT] && !c->own_format) {
        /* `trace --format perfetto`: the trace's own second format (cmd_trace.c reads it) */
        bool trace_own = strcmp(c->name, "trace") == 0 && strcmp(a.val[OPT_FORMAT], "perfetto") == 0;
        if (!trace_own && etp_format_parse(a.val[OPT_FORMAT], &a.fmt) != 0) {
            cli_errorf("%s: unknown format \"%s\" (table, csv, tsv, json, jsonl, md)", c->name,
                       a.val[OPT_FORMAT]);
            rc = EXIT_USAGE;
            goto done;
        }
        a.fmt_set = !trace_own;
    }
    if (a.npos < c->min_pos) {
        cli_errorf("%s: missing argument (usage: etprof %s %s)", c->name, c->name, c->usage);
        rc = EXIT_USAGE;
        goto done;
    }
    if ((rc = output_is_input(c, &a))) goto done;
    char budget_warning[256]; /* ETPROF_MEMORY_BUDGET that does not parse: the default kept */
    etp_memory_budget(budget_warning, sizeof budget_warning);
    if (*budget_warning) cli_warnf("%s", budget_warning);
    rc = c->run(&a);
    cli_warn_flush(rc);
done:
    free(a.many);
    free(args);
    return rc;
}
