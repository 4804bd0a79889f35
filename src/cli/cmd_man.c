/* cmd_man.c - the man pages etprof(1), etprof-CMD(1) and the bash and zsh completion scripts,
 * generated from the command table and the option definitions that --help prints, so that they
 * cannot say something else (tests/install/test_man.py compares them). The build runs these
 * modes (CMakeLists.txt) and installs their output; see docs/install.md. */
#include "cli_gen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- roff ------------------------------------------------------------------------------- */

/* Text for a roff body line: backslash and minus escaped, a line starting with '.' or '\''
 * (a request) protected with \&. */
static void roff(FILE *f, const char *s, size_t n, bool at_line_start) {
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (at_line_start && (ch == '.' || ch == '\'')) fputs("\\&", f);
        at_line_start = ch == '\n';
        if (ch == '\\') fputs("\\e", f);
        else if (ch == '-') fputs("\\-", f);
        else fputc(ch, f);
    }
}

static void roffs(FILE *f, const char *s) { roff(f, s, strlen(s), false); }

/* One option as a tagged paragraph: the tag holds what --help's left column holds. */
static void man_option(FILE *f, const cli_optdef *d) {
    fputs(".TP\n", f);
    if (d->short_name) fprintf(f, "\\fB\\-%c\\fR, ", d->short_name);
    fputs("\\fB\\-\\-", f);
    roffs(f, d->name);
    fputs("\\fR", f);
    if (d->arg) {
        fputs(" \\fI", f);
        roffs(f, d->arg);
        fputs("\\fR", f);
    }
    fputc('\n', f);
    roff(f, d->help, strlen(d->help), true);
    fputc('\n', f);
}

/* Paragraphs (separated by a blank line) of --help prose: filled, unless a line of it is
 * indented (a list or an example), which is kept as it is. */
static void man_prose(FILE *f, const char *s) {
    while (*s) {
        const char *end = strstr(s, "\n\n");
        size_t n = end ? (size_t)(end - s) : strlen(s);
        while (n && s[n - 1] == '\n') n--;
        bool verbatim = s[0] == ' ';
        for (size_t i = 0; i + 1 < n && !verbatim; i++)
            if (s[i] == '\n' && s[i + 1] == ' ') verbatim = true;
        fputs(verbatim ? ".PP\n.nf\n" : ".PP\n", f);
        roff(f, s, n, true);
        fputs(verbatim ? "\n.fi\n" : "\n", f);
        s = end ? end + 2 : s + strlen(s);
        while (*s == '\n') s++;
    }
}

static void man_title(FILE *f, const char *name) {
    fputs(".TH \"", f);
    for (const char *p = name; *p; p++) {
        if (*p == '-') fputs("\\-", f);
        else fputc(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p, f);
    }
    fprintf(f, "\" 1 \"\" \"etprof %s\" \"etprof manual\"\n", ETPROF_VERSION);
}

/* usage()'s text, to take the parts etprof(1) shares with it. Caller frees. */
static char *usage_text(const cli_gen_table *t) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return NULL;
    t->usage(m);
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* EXIT STATUS: the "Exit codes:" sentence of usage() */
static void man_exit(FILE *f, const char *u) {
    const char *ex = u ? strstr(u, "Exit codes:") : NULL;
    if (!ex) return;
    fputs(".SH EXIT STATUS\n", f);
    ex += strlen("Exit codes:");
    while (*ex == ' ') ex++;
    roff(f, ex, strlen(ex), true);
}

static int man_main(const cli_gen_table *t, FILE *f) {
    char *u = usage_text(t);
    if (!u) {
        cli_errorf("out of memory");
        return EXIT_INTERNAL;
    }
    man_title(f, "etprof");
    fputs(".SH NAME\netprof \\- ExecuTorch profiling files (ETDump, .pte, QNN) explained\n"
          ".SH SYNOPSIS\n.B etprof\n\\fICOMMAND\\fR \\fIFILE\\fR... [\\fIoptions\\fR]\n.br\n"
          ".B etprof\n\\fICOMMAND\\fR \\fB\\-\\-help\\fR\n.br\n.B etprof\n\\fB\\-\\-version\\fR\n"
          ".SH DESCRIPTION\n",
          f);
    /* the paragraph between the usage line and "commands:" */
    const char *intro = strstr(u, "\n\n");
    const char *cmds = strstr(u, "\n\ncommands:");
    if (intro && cmds && cmds > intro) roff(f, intro + 2, (size_t)(cmds - intro - 2), true);
    fputs("\n.SH COMMANDS\n", f);
    for (size_t i = 0; i < t->ncmd; i++) {
        const cli_cmd *c = t->cmds[i];
        if (!c) continue;
        fputs(".TP\n.B ", f);
        roffs(f, c->name);
        fputc('\n', f);
        roffs(f, c->summary);
        fputs(" (\\fBetprof\\-", f);
        roffs(f, c->name);
        fputs("\\fR(1))\n", f);
    }
    fputs(".SH OPTIONS\nEvery command takes these; they may also stand before the command.\n", f);
    for (const opt_id *o = t->global; *o; o++) man_option(f, cli_opt(*o));
    fputs(".TP\n\\fB\\-\\-version\\fR\nprint the version and the JSON schema_version\n", f);
    man_exit(f, u);
    fputs(".SH SEE ALSO\n", f);
    bool first = true;
    for (size_t i = 0; i < t->ncmd; i++) {
        if (!t->cmds[i]) continue;
        fputs(first ? "" : ",\n", f);
        fputs(".BR etprof\\-", f);
        roffs(f, t->cmds[i]->name);
        fputs(" (1)", f);
        first = false;
    }
    fputs("\n", f);
    free(u);
    return EXIT_OK;
}

static int man_cmd(const cli_gen_table *t, const cli_cmd *c, FILE *f) {
    char *u = usage_text(t);
    if (!u) {
        cli_errorf("out of memory");
        return EXIT_INTERNAL;
    }
    char title[64];
    snprintf(title, sizeof title, "etprof-%s", c->name);
    man_title(f, title);
    fputs(".SH NAME\netprof\\-", f);
    roffs(f, c->name);
    fputs(" \\- ", f);
    roffs(f, c->summary);
    fputs("\n.SH SYNOPSIS\n.B etprof ", f);
    roffs(f, c->name);
    fputc('\n', f);
    roff(f, c->usage, strlen(c->usage), true);
    fputs("\n.SH DESCRIPTION\n", f);
    roffs(f, c->summary);
    fputs(".\n", f);
    if (c->help) man_prose(f, c->help);
    /* the order of cmd_help(): the command's own options, then the global ones */
    fputs(".SH OPTIONS\n", f);
    for (const opt_id *o = c->opts; o && *o; o++) man_option(f, cli_opt(*o));
    for (const opt_id *o = t->global; *o; o++) man_option(f, cli_opt(*o));
    man_exit(f, u);
    fputs(".SH SEE ALSO\n.BR etprof (1)\n", f);
    free(u);
    return EXIT_OK;
}

static const cli_cmd *gen_find(const cli_gen_table *t, const char *name) {
    for (size_t i = 0; i < t->ncmd; i++)
        if (t->cmds[i] && strcmp(t->cmds[i]->name, name) == 0) return t->cmds[i];
    return NULL;
}

static int write_page(const cli_gen_table *t, const cli_cmd *c, const char *dir) {
    char path[4096];
    if (c) snprintf(path, sizeof path, "%s/etprof-%s.1", dir, c->name);
    else snprintf(path, sizeof path, "%s/etprof.1", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_errorf("%s: cannot create: %s", path, strerror(errno));
        return EXIT_IO;
    }
    int rc = EXIT_OK;
    if (c) rc = man_cmd(t, c, f);
    else rc = man_main(t, f);
    bool werr = ferror(f) != 0;
    if (fclose(f) != 0 || werr) {
        cli_errorf("%s: write failed: %s", path, strerror(errno));
        return EXIT_IO;
    }
    return rc;
}

/* ---- completion ------------------------------------------------------------------------- */

/* What the value of an option is, from its placeholder in the option table. */
enum { VAL_NONE, VAL_FILE, VAL_FORMAT, VAL_OTHER };
static int value_kind(const cli_optdef *d) {
    if (!d->arg) return VAL_NONE;
    if (!strcmp(d->arg, "FILE") || !strcmp(d->arg, "F") || !strcmp(d->arg, "P")) return VAL_FILE;
    if (!strcmp(d->arg, "FMT")) return VAL_FORMAT;
    return VAL_OTHER;
}

static void formats(FILE *f) {
    for (int i = 0; i <= (int)ETP_FMT_MD; i++) fprintf(f, "%s%s", i ? " " : "", etp_format_name((etp_format)i));
}

/* The option words of a command (NULL: before any command) */
static void bash_words(const cli_gen_table *t, const cli_cmd *c, FILE *f) {
    bool first = true;
    const opt_id *lists[2] = {c ? c->opts : NULL, t->global};
    for (int l = 0; l < 2; l++)
        for (const opt_id *o = lists[l]; o && *o; o++) {
            const cli_optdef *d = cli_opt(*o);
            fprintf(f, "%s--%s", first ? "" : " ", d->name);
            if (d->short_name) fprintf(f, " -%c", d->short_name);
            first = false;
        }
    if (!c) fputs(" --version", f);
}

static void bash_value_case(FILE *f, int kind) {
    bool any = false;
    for (int id = 1; id < OPT_COUNT_; id++) {
        const cli_optdef *d = cli_opt((opt_id)id);
        if (!d || value_kind(d) != kind) continue;
        fprintf(f, "%s--%s", any ? "|" : "        ", d->name);
        if (d->short_name) fprintf(f, "|-%c", d->short_name);
        any = true;
    }
    if (!any) return;
    if (kind == VAL_FILE) fputs(")\n            COMPREPLY=($(compgen -f -- \"$cur\"))\n            return ;;\n", f);
    else if (kind == VAL_FORMAT) {
        fputs(")\n            COMPREPLY=($(compgen -W \"", f);
        formats(f);
        fputs("\" -- \"$cur\"))\n            return ;;\n", f);
    } else fputs(")\n            COMPREPLY=()\n            return ;;\n", f);
}

static void bash(const cli_gen_table *t, FILE *f) {
    fputs("# bash completion for etprof. Generated by `etprof --completion bash` from the command\n"
          "# table (src/cli/cmd_man.c); do not edit.\n"
          "_etprof() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= i opts\n"
          "    [ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
          "        case ${COMP_WORDS[i]} in\n"
          "        ",
          f);
    bool first = true;
    for (size_t i = 0; i < t->ncmd; i++) {
        if (!t->cmds[i]) continue;
        fprintf(f, "%s%s", first ? "" : "|", t->cmds[i]->name);
        first = false;
    }
    fputs(")\n            cmd=${COMP_WORDS[i]}\n            break ;;\n        esac\n    done\n"
          "    case $prev in\n",
          f);
    bash_value_case(f, VAL_FILE);
    bash_value_case(f, VAL_FORMAT);
    bash_value_case(f, VAL_OTHER);
    fputs("    esac\n    case $cmd in\n", f);
    for (size_t i = 0; i < t->ncmd; i++) {
        const cli_cmd *c = t->cmds[i];
        if (!c) continue;
        fprintf(f, "    %s) opts=\"", c->name);
        bash_words(t, c, f);
        fputs("\" ;;\n", f);
    }
    fputs("    *) opts=\"", f);
    bash_words(t, NULL, f);
    fputs("\" ;;\n    esac\n"
          "    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    elif [ -z \"$cmd\" ]; then\n"
          "        COMPREPLY=($(compgen -W \"",
          f);
    first = true;
    for (size_t i = 0; i < t->ncmd; i++) {
        if (!t->cmds[i]) continue;
        fprintf(f, "%s%s", first ? "" : " ", t->cmds[i]->name);
        first = false;
    }
    fputs("\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -o filenames -o bashdefault -F _etprof etprof\n",
          f);
}

/* zsh: text inside '...' of an _arguments spec or a _describe entry: ' closed and reopened;
 * [ ] : \ escaped with a backslash. */
static void zq(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else {
            if (*s == '[' || *s == ']' || *s == ':' || *s == '\\') fputc('\\', f);
            fputc(*s, f);
        }
    }
}

static void zsh_option(FILE *f, const cli_optdef *d) {
    fputs("        ", f);
    if (d->short_name) fprintf(f, "'(-%c --%s)'{-%c,--%s}'[", d->short_name, d->name, d->short_name, d->name);
    else fprintf(f, "'--%s[", d->name);
    zq(f, d->help);
    fputc(']', f);
    switch (value_kind(d)) {
    case VAL_FILE: fputs(":", f); zq(f, d->arg); fputs(":_files", f); break;
    case VAL_FORMAT: fputs(":", f); zq(f, d->arg); fputs(":(", f); formats(f); fputs(")", f); break;
    case VAL_OTHER: fputs(":", f); zq(f, d->arg); fputs(": ", f); break;
    default: break;
    }
    fputs("' \\\n", f);
}

static void zsh(const cli_gen_table *t, FILE *f) {
    fputs("#compdef etprof\n"
          "# zsh completion for etprof. Generated by `etprof --completion zsh` from the command\n"
          "# table (src/cli/cmd_man.c); do not edit.\n"
          "_etprof() {\n"
          "    local -a commands\n"
          "    commands=(\n",
          f);
    for (size_t i = 0; i < t->ncmd; i++) {
        const cli_cmd *c = t->cmds[i];
        if (!c) continue;
        fprintf(f, "        '%s:", c->name);
        zq(f, c->summary);
        fputs("'\n", f);
    }
    fputs("    )\n"
          "    if (( CURRENT == 2 )); then\n"
          "        _describe -t commands 'etprof command' commands\n"
          "        return\n"
          "    fi\n"
          "    local cmd=$words[2]\n"
          "    shift words\n"
          "    (( CURRENT-- ))\n"
          "    case $cmd in\n",
          f);
    for (size_t i = 0; i < t->ncmd; i++) {
        const cli_cmd *c = t->cmds[i];
        if (!c) continue;
        fprintf(f, "    %s)\n        _arguments -s \\\n", c->name);
        for (const opt_id *o = c->opts; o && *o; o++) zsh_option(f, cli_opt(*o));
        for (const opt_id *o = t->global; *o; o++) zsh_option(f, cli_opt(*o));
        fputs("        '*:file:_files' ;;\n", f);
    }
    fputs("    esac\n"
          "}\n"
          "_etprof \"$@\"\n",
          f);
}

/* ---- entry ------------------------------------------------------------------------------ */

bool cli_gen_is_mode(const char *arg) {
    return !strcmp(arg, "--man") || !strcmp(arg, "--man-dir") || !strcmp(arg, "--completion");
}

int cli_gen_main(const cli_gen_table *t, int argc, char **argv) {
    const char *mode = argv[0];
    if (!strcmp(mode, "--man")) {
        if (argc > 2) {
            cli_errorf("usage: etprof --man [COMMAND]");
            return EXIT_USAGE;
        }
        int rc = EXIT_OK;
        if (argc == 2) {
            const cli_cmd *c = gen_find(t, argv[1]);
            if (!c) {
                cli_errorf("--man: unknown command \"%s\" (see 'etprof --help')", argv[1]);
                return EXIT_USAGE;
            }
            rc = man_cmd(t, c, stdout);
        } else rc = man_main(t, stdout);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            cli_errorf("standard output: write failed: %s", strerror(errno));
            return EXIT_IO;
        }
        return rc;
    }
    if (!strcmp(mode, "--man-dir")) {
        if (argc != 2) {
            cli_errorf("usage: etprof --man-dir DIR");
            return EXIT_USAGE;
        }
        int rc = write_page(t, NULL, argv[1]);
        for (size_t i = 0; i < t->ncmd && !rc; i++)
            if (t->cmds[i]) rc = write_page(t, t->cmds[i], argv[1]);
        return rc;
    }
    /* --completion SHELL [FILE] */
    if (argc < 2 || argc > 3 || (strcmp(argv[1], "bash") != 0 && strcmp(argv[1], "zsh") != 0)) {
        cli_errorf("usage: etprof --completion bash|zsh [FILE]");
        return EXIT_USAGE;
    }
    const char *path = argc == 3 ? argv[2] : "standard output";
    FILE *f = argc == 3 ? fopen(argv[2], "w") : stdout;
    if (!f) {
        cli_errorf("%s: cannot create: %s", path, strerror(errno));
        return EXIT_IO;
    }
    if (!strcmp(argv[1], "bash")) bash(t, f);
    else zsh(t, f);
    bool werr = fflush(f) != 0 || ferror(f);
    if (f != stdout && fclose(f) != 0) werr = true;
    if (werr) {
        cli_errorf("%s: write failed: %s", path, strerror(errno));
        return EXIT_IO;
    }
    return EXIT_OK;
}
