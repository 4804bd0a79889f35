/* cli_gen.h - man pages and shell completion generated from the command table (cmd_man.c). */
#ifndef ETPROF_CLI_GEN_H
#define ETPROF_CLI_GEN_H

#include "cli.h"

/* What main.c knows: the command table, the options every command takes, and the two help
 * writers, so that the man pages say what --help says. */
typedef struct cli_gen_table {
    const cli_cmd *const *cmds; /* entries may be NULL (weak, not built) */
    size_t ncmd;
    const opt_id *global; /* 0-terminated */
    void (*usage)(FILE *f);
    void (*cmd_help)(const cli_cmd *c, FILE *f);
} cli_gen_table;

/* The hidden generator modes, argv[0] being the mode (not listed in --help; docs/install.md):
 *   --man [CMD]           the roff man page etprof(1) or etprof-CMD(1) on standard output
 *   --man-dir DIR         etprof.1 and every etprof-CMD.1 into DIR
 *   --completion bash|zsh [FILE]  the completion script (standard output or FILE)
 * Returns the exit code. */
bool cli_gen_is_mode(const char *arg);
int cli_gen_main(const cli_gen_table *t, int argc, char **argv);

#endif
