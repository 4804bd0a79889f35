/* fuzz_cli.c - fuzz target for the etprof command itself (every file of src/cli/).
 *
 * The other targets call the library; this one calls etprof_cli_main(argc, argv), which is
 * src/cli/main.c's main() renamed for this target only (fuzz/CMakeLists.txt), exactly as the shell
 * would run `etprof ...`, so the commands' own code (option checks, the ops/tree/summary/explain/
 * qnn/diff tables and JSON, the trace and report paths, -o and every error path) runs on fuzzed
 * files.
 *
 * Once, a private directory is made (mkdtemp under $TMPDIR or /tmp, removed at exit) holding fixed
 * files compiled into the target: two QNN ETDumps (one with HTP node events, with a QHAS and a
 * program that go with it), two more programs and QNN sample files. Per input, the bytes are
 * written there as one file (named .etdp or .pte by the input's hash) and commands run with it in
 * every role: as the ETDump (info, events, ops, tree, summary, explain, trace, report, diff
 * against itself and against a fixed dump, qnn joined to fixed QNN files), as a QNN file next to a
 * fixed ETDump (qnn --qhas/--optrace/--runtrace/--heap, ops/tree with it as the clock source,
 * trace --optrace, explain, report, the viewer readers) and as the program (--pte). The commands
 * of the role the input's first bytes suggest always run, the others one time in four (about 10
 * commands per input). The output format and options (--sort, --top, --skip-first, --stat, tick
 * options, -q ...) rotate with a generator seeded by the input's hash, never by global state, so
 * a crash replays from the input alone; so does whether ETDumps are verified in a second thread
 * (etp__async_min). Only combinations every command accepts are built (trace takes no --format
 * but json, report none, qnn needs --qhas or --optrace, report's --top starts at 1, info refuses
 * --pte for a program...), so a usage error is a failure too. FUZZ_CLI_VERBOSE=1 prints each
 * command line with its exit code and time.
 *
 * The contract checked for each run (abort() when broken):
 *  - the exit code is 0 or 1 (input rejected); 2 (usage), 3 (I/O), 4 (internal), 5
 *    (regression: only diff F F --fail-on-regression 0 asks, and a dump does not regress against
 *    itself) and 6 (inconclusive: that diff also passes --allow-inconclusive, as a dump with no
 *    Method::execute, or all of whose runs --skip-first drops, leaves the gate nothing to judge)
 *    are failures;
 *  - nothing is written to standard output (-o is always given);
 *  - exit 0: the output file exists; json parses (jansson), each jsonl line parses, the trace is
 *    JSON, the report is one whole HTML document (no control characters, no script but its own
 *    two, a data block that parses: docs/report.md); every output is valid UTF-8 and ends with a
 *    newline, table/md/csv/tsv output holds no control characters but LF (and TAB in tsv, TAB and
 *    quoted CR in csv), csv and tsv lines all have the header's number of fields
 *    (docs/output-formats.md);
 *  - exit 1: no output file, and standard error holds exactly one line, "etprof: PATH: ...",
 *    naming the input;
 *  - no temporary output file (out.XXXXXX.tmp) is left behind;
 *  - one command per input, chosen by the hash, runs twice and must give the same exit code,
 *    standard error and output bytes (no global state carried from one call to the next), the
 *    second time with the other ETPROF_THREADS setting (1 or 2: the two-thread pass gives the
 *    one-thread bytes).
 *
 * Standard error and standard output are captured by pointing the `stderr` and `stdout` FILE
 * pointers at memory streams for the duration of a call (glibc allows assigning them); fd 2 stays
 * where it was, so sanitizer reports remain visible. */
#include "fuzz_common.h"
#include "cli.h" /* EXIT_* */
#include "etdump_int.h" /* etp__async_min */
#include "sniff.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int etprof_cli_main(int argc, char **argv);


/* ---- the private directory and the fixed files ---- */

#define PATH_CAP 1024

static char dir[256]; /* $TMPDIR (at most 200 bytes, else /tmp) + /etprof-fuzz-cli.XXXXXX */
/* The fixed files, by role. The GEN_ ones belong together: an ETDump with HTP node events, a
 * QHAS that joins with it in every way a join can go, and its program. */
enum { FX_DUMP, FX_PROG, FX_ADD, FX_QHAS, FX_OPTRACE, FX_RUNTRACE, FX_HEAP, FX_GEN_DUMP,
       FX_GEN_QHAS, FX_GEN_PROG, FX_COUNT_ };
static const char *const fx_name[FX_COUNT_] = {
    "synth_qnn_mixed_small_3x.etdp", "stories260k_qnn_program_only.pte", "add.pte",
    "qhas_small.json", "optrace_small.json", "runtrace_small.json", "heap_ok.txt",
    "gen_qnn_llm_36n_1x.etdp", "gen_qnn_llm_36n_qhas.json", "gen_qnn_llm_36n.pte"};
static char fx_path[FX_COUNT_][PATH_CAP];
static char out_path[PATH_CAP];
/* The input's two possible names: info reads a damaged file named .pte as a program. */
static const char *const in_name[2] = {"input.etdp", "input.pte"};
static char in_path[2][PATH_CAP];

static void remove_dir(void) {
    if (!dir[0]) return;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        char p[PATH_CAP + 256];
        while ((de = readdir(d))) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
            snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
    dir[0] = 0;
}

static void write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    FZ_ASSERT(f != NULL, "cannot create %s: %s", path, strerror(errno));
    FZ_ASSERT(fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write %s", path);
}

static const unsigned char *fixture(const char *name, size_t *len) {
    const unsigned char *const *data[] = {etprof_fuzz_dump_data, etprof_fuzz_program_data,
                                          etprof_fuzz_qnn_data, etprof_fuzz_cli_data};
    const size_t *sizes[] = {etprof_fuzz_dump_size, etprof_fuzz_program_size,
                             etprof_fuzz_qnn_size, etprof_fuzz_cli_size};
    const char *const *names[] = {etprof_fuzz_dump_name, etprof_fuzz_program_name,
                                  etprof_fuzz_qnn_name, etprof_fuzz_cli_name};
    const size_t counts[] = {etprof_fuzz_dump_count, etprof_fuzz_program_count,
                             etprof_fuzz_qnn_count, etprof_fuzz_cli_count};
    for (int s = 0; s < 4; s++)
        for (size_t i = 0; i < counts[s]; i++)
            if (strcmp(names[s][i], name) == 0) {
                *len = sizes[s][i];
                return data[s][i];
            }
    fz_die("the fixture %s is not compiled in (fuzz/CMakeLists.txt)", name);
}

static void setup(void) {
    static bool done;
    if (done) return;
    done = true;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 200) tmp = "/tmp";
    snprintf(dir, sizeof dir, "%s/etprof-fuzz-cli.XXXXXX", tmp);
    FZ_ASSERT(mkdtemp(dir) != NULL, "mkdtemp(%s): %s", dir, strerror(errno));
    atexit(remove_dir);
    for (int k = 0; k < FX_COUNT_; k++) {
        size_t n;
        const unsigned char *p = fixture(fx_name[k], &n);
        snprintf(fx_path[k], sizeof fx_path[k], "%s/%s", dir, fx_name[k]);
        write_file(fx_path[k], p, n);
    }
    for (int k = 0; k < 2; k++) snprintf(in_path[k], sizeof in_path[k], "%s/%s", dir, in_name[k]);
    snprintf(out_path, sizeof out_path, "%s/out", dir);
}

/* Every entry of the directory is a fixed file, the input, or (`out_ok`) the output. */
static void check_dir(const char *input, bool out_ok, const char *what) {
    DIR *d = opendir(dir);
    FZ_ASSERT(d != NULL, "cannot list %s", dir);
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *n = de->d_name;
        bool known = strcmp(n, ".") == 0 || strcmp(n, "..") == 0 ||
                     strcmp(n, strrchr(input, '/') + 1) == 0 || (out_ok && strcmp(n, "out") == 0);
        for (int k = 0; k < FX_COUNT_ && !known; k++) known = strcmp(n, fx_name[k]) == 0;
        if (!known) {
            closedir(d);
            fz_die("%s: left %s/%s behind", what, dir, n);
        }
    }
    closedir(d);
}

/* ---- choices from the input's hash ---- */

static uint64_t next(uint64_t *s) {
    uint64_t x = (*s += 0x9e3779b97f4a7c15u);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static unsigned pick(uint64_t *s, unsigned n) { return (unsigned)(next(s) % n); }

/* ---- one command line ---- */

enum kind { K_TEXT, K_JSON, K_JSONL, K_HTML };

typedef struct cmd {
    char *argv[48];
    int argc;
    char num[8][24]; /* storage for numeric option values */
    int nnum;
    enum kind kind; /* what a successful output must be */
    out_format fmt; /* K_TEXT: table (the default), csv, tsv or md */
    const char *input;
} cmd;

static void arg(cmd *c, const char *s) {
    FZ_ASSERT(c->argc + 1 < (int)(sizeof c->argv / sizeof c->argv[0]), "too many arguments");
    c->argv[c->argc++] = (char *)s; /* main() does not write to its arguments */
    c->argv[c->argc] = NULL;
}

static void arg_num(cmd *c, const char *opt, double v) {
    FZ_ASSERT(c->nnum < 8, "too many numeric options");
    snprintf(c->num[c->nnum], sizeof c->num[0], "%g", v);
    arg(c, opt);
    arg(c, c->num[c->nnum++]);
}

static void begin(cmd *c, const char *name, const char *input) {
    memset(c, 0, sizeof *c);
    c->input = input;
    arg(c, "etprof");
    arg(c, name);
}

/* --format: one of the six, or none (table). */
static void fmt(cmd *c, uint64_t *s) {
    static const char *const f[] = {"table", "csv", "tsv", "json", "jsonl", "md", NULL};
    const char *x = f[pick(s, 7)];
    if (!x) return;
    arg(c, "--format");
    arg(c, x);
    FZ_ASSERT(out_format_parse(x, &c->fmt) == 0, "bad format %s", x);
    c->kind = strcmp(x, "json") == 0 ? K_JSON : strcmp(x, "jsonl") == 0 ? K_JSONL : K_TEXT;
}

/* The host tick options (they exclude each other): none most of the time. */
static void ticks(cmd *c, uint64_t *s) {
    switch (pick(s, 6)) {
    case 0: arg(c, "--ticks"); break;
    case 1: arg_num(c, "--tick-hz", 19.2e6); break;
    case 2: arg_num(c, "--tick-ns", 0.5); break;
    default: break;
    }
}

static void maybe(cmd *c, uint64_t *s, unsigned one_in, const char *opt, double lo, unsigned span) {
    if (pick(s, one_in) == 0) arg_num(c, opt, lo + pick(s, span));
}

static void time_unit(cmd *c, uint64_t *s) {
    static const char *const u[] = {"ns", "us", "ms", "s"};
    if (pick(s, 3) == 0) {
        arg(c, "--time-unit");
        arg(c, u[pick(s, 4)]);
    }
}

/* A fixed program, sometimes with one of its methods forced (a method it lacks is a usage
 * error). */
static void maybe_pte(cmd *c, uint64_t *s) {
    switch (pick(s, 4)) {
    case 0:
        arg(c, "--pte");
        arg(c, fx_path[FX_PROG]);
        if (pick(s, 4) == 0) {
            arg(c, "--method");
            arg(c, pick(s, 2) ? "kv_forward" : "prefill_forward");
        }
        break;
    case 1:
        arg(c, "--pte");
        arg(c, fx_path[FX_ADD]);
        if (pick(s, 4) == 0) {
            arg(c, "--method");
            arg(c, "forward");
        }
        break;
    case 2:
        arg(c, "--pte");
        arg(c, fx_path[FX_GEN_PROG]);
        if (pick(s, 4) == 0) {
            arg(c, "--method");
            arg(c, "kv_forward");
        }
        break;
    default: break;
    }
}

/* The fixed ETDump next to a fuzzed QNN file or program: the mixed one (QNN values without
 * node events) or the one with HTP nodes that the GEN QHAS joins with. */
static const char *fixed_dump(uint64_t *s) {
    return fx_path[pick(s, 2) ? FX_DUMP : FX_GEN_DUMP];
}

/* --block: the usual name, or one no block has. */
static void maybe_block(cmd *c, uint64_t *s) {
    if (pick(s, 6) == 0) {
        arg(c, "--block");
        arg(c, pick(s, 3) ? "Execute" : "Default");
    }
}

static void ops_sort(cmd *c, uint64_t *s) {
    static const char *const k[] = {"order", "method", "instruction_id", "name", "count", "min",
                                    "p10", "p50", "p90", "avg", "max", "total", "share", "unit",
                                    "placement", "kind", "operator"};
    if (pick(s, 2) == 0) {
        arg(c, "--sort");
        arg(c, k[pick(s, sizeof k / sizeof k[0])]);
    }
}

static void qnn_sort(cmd *c, uint64_t *s) {
    static const char *const k[] = {"order", "cycles", "share", "dominant_path_cycles", "htp_ops",
                                    "dram_read_bytes", "dram_write_bytes", "vtcm_read_bytes",
                                    "vtcm_write_bytes", "etdump_cycles", "op_id", "qnn_op",
                                    "qnn_op_type"};
    if (pick(s, 2) == 0) {
        arg(c, "--sort");
        arg(c, k[pick(s, sizeof k / sizeof k[0])]);
    }
}

/* A fixed QNN file with the option naming it: QHAS, optrace, runtrace or heap. */
static const char *const qnn_opt[] = {"--qhas", "--optrace", "--runtrace", "--heap"};
static const int qnn_fx[] = {FX_QHAS, FX_OPTRACE, FX_RUNTRACE, FX_HEAP};

/* The HTP clock of ops and tree: none, given, or from a fixed QHAS or runtrace. */
static void clock_source(cmd *c, uint64_t *s) {
    switch (pick(s, 8)) {
    case 0: arg_num(c, "--htp-clock-ghz", 1.5); break;
    case 1: arg(c, "--qhas"); arg(c, fx_path[FX_QHAS]); break;
    case 2: arg(c, "--qhas"); arg(c, fx_path[FX_GEN_QHAS]); break;
    case 3: arg(c, "--runtrace"); arg(c, fx_path[FX_RUNTRACE]); break;
    default: break;
    }
}

/* ---- the commands, by the input's role ---- */

typedef void (*job_fn)(cmd *c, const char *in, uint64_t *s);

/* The input as the ETDump. */

/* Set per input: info reads the input as a program (and refuses --pte, a usage error) when it
 * is one, or when its kind is unknown and its name ends in .pte; as cmd_info.c decides. */
static bool info_reads_program;

static void j_info(cmd *c, const char *in, uint64_t *s) {
    begin(c, "info", in);
    arg(c, in);
    fmt(c, s);
    if (!info_reads_program) maybe_pte(c, s);
    ticks(c, s);
}

static void j_events(cmd *c, const char *in, uint64_t *s) {
    begin(c, "events", in);
    arg(c, in);
    if (pick(s, 2)) { /* jsonl most often: the streaming writer */
        arg(c, "--format");
        arg(c, "jsonl");
        c->kind = K_JSONL;
    } else {
        fmt(c, s);
    }
    maybe_pte(c, s);
    ticks(c, s);
}

static void j_ops(cmd *c, const char *in, uint64_t *s) {
    static const char *const kinds[] = {"framework", "operator_call", "kernel", "delegate_call",
                                        "delegate_internal", "htp_node", "instruction", "other"};
    begin(c, "ops", in);
    arg(c, in);
    fmt(c, s);
    ops_sort(c, s);
    maybe(c, s, 2, "--top", 0, 5);
    maybe(c, s, 3, "--skip-first", 0, 3);
    if (pick(s, 3) == 0) arg(c, "--all");
    if (pick(s, 6) == 0) {
        arg(c, "--kind");
        arg(c, kinds[pick(s, sizeof kinds / sizeof kinds[0])]);
    }
    if (pick(s, 6) == 0) {
        arg(c, "--placement");
        arg(c, pick(s, 2) ? "cpu" : "QnnBackend");
    }
    clock_source(c, s);
    time_unit(c, s);
    maybe_block(c, s);
    maybe_pte(c, s);
    ticks(c, s);
}

static void j_tree(cmd *c, const char *in, uint64_t *s) {
    static const char *const stats[] = {"min", "p10", "p50", "p90", "avg", "max"};
    begin(c, "tree", in);
    arg(c, in);
    fmt(c, s);
    if (pick(s, 2) == 0) {
        arg(c, "--stat");
        arg(c, stats[pick(s, 6)]);
    }
    maybe(c, s, 2, "--top", 0, 4);
    maybe(c, s, 3, "--skip-first", 0, 3);
    clock_source(c, s);
    time_unit(c, s);
    maybe_block(c, s);
    maybe_pte(c, s);
    ticks(c, s);
}

static void j_summary(cmd *c, const char *in, uint64_t *s) {
    begin(c, "summary", in);
    arg(c, in);
    fmt(c, s);
    maybe(c, s, 2, "--top", 0, 4);
    maybe(c, s, 3, "--skip-first", 0, 3);
    time_unit(c, s);
    maybe_block(c, s);
    maybe_pte(c, s);
    ticks(c, s);
}

static void j_explain(cmd *c, const char *in, uint64_t *s) {
    begin(c, "explain", in);
    arg(c, in);
    fmt(c, s);
    maybe(c, s, 3, "--skip-first", 0, 3);
    for (int k = 0; k < 4; k++)
        if (pick(s, 3) == 0) {
            arg(c, qnn_opt[k]);
            arg(c, fx_path[qnn_fx[k]]);
        }
    time_unit(c, s);
    maybe_pte(c, s);
    ticks(c, s);
}

static void j_trace(cmd *c, const char *in, uint64_t *s) {
    begin(c, "trace", in);
    arg(c, in);
    c->kind = K_JSON; /* always */
    if (pick(s, 2)) {
        arg(c, "--format");
        arg(c, "json");
    }
    if (pick(s, 3) == 0) {
        arg(c, "--optrace");
        arg(c, fx_path[FX_OPTRACE]);
        switch (pick(s, 3)) { /* the clock is required */
        case 0: arg_num(c, "--htp-clock-ghz", 1.2); break;
        case 1: arg(c, "--qhas"); arg(c, fx_path[FX_QHAS]); break;
        default: arg(c, "--runtrace"); arg(c, fx_path[FX_RUNTRACE]); break;
        }
    }
    maybe_pte(c, s);
    ticks(c, s);
}

static void j_report(cmd *c, const char *in, uint64_t *s) {
    begin(c, "report", in);
    arg(c, in);
    c->kind = K_HTML; /* no --format */
    maybe(c, s, 2, "--top", 1, 20);
    maybe(c, s, 3, "--skip-first", 0, 3);
    for (int k = 0; k < 4; k++)
        if (pick(s, 4) == 0) {
            arg(c, qnn_opt[k]);
            arg(c, fx_path[qnn_fx[k]]);
        }
    time_unit(c, s);
    maybe_block(c, s);
    maybe_pte(c, s);
    ticks(c, s);
}

static void j_diff_self(cmd *c, const char *in, uint64_t *s) {
    begin(c, "diff", in);
    arg(c, in);
    arg(c, in);
    fmt(c, s);
    arg_num(c, "--fail-on-regression", 0); /* exit 5 would be a dump slower than itself */
    arg(c, "--allow-inconclusive");        /* nothing to judge is exit 6 without it */
    maybe(c, s, 3, "--threshold", 0, 10);
    maybe(c, s, 3, "--top", 0, 4);
    maybe(c, s, 3, "--skip-first", 0, 3);
    if (pick(s, 3) == 0) arg(c, "--all");
    time_unit(c, s);
    maybe_block(c, s);
    maybe_pte(c, s);
    ticks(c, s);
}

static void j_diff_fixed(cmd *c, const char *in, uint64_t *s) {
    begin(c, "diff", in);
    bool base = pick(s, 2); /* the input as BASE or as NEW */
    const char *fixed = fixed_dump(s);
    arg(c, base ? in : fixed);
    arg(c, base ? fixed : in);
    fmt(c, s);
    maybe(c, s, 3, "--threshold", 0, 10);
    maybe(c, s, 3, "--top", 0, 4);
    if (pick(s, 3) == 0) arg(c, "--all");
    if (pick(s, 3) == 0) {
        arg(c, "--pte");
        arg(c, fx_path[FX_PROG]);
        if (pick(s, 2)) {
            arg(c, "--pte-new");
            arg(c, fx_path[FX_ADD]);
        }
    }
    time_unit(c, s);
}

static void j_qnn_dump(cmd *c, const char *in, uint64_t *s) {
    begin(c, "qnn", in);
    arg(c, in);
    fmt(c, s);
    arg(c, "--qhas");
    arg(c, fx_path[pick(s, 2) ? FX_QHAS : FX_GEN_QHAS]);
    for (int k = 1; k < 4; k++)
        if (pick(s, 2) == 0) {
            arg(c, qnn_opt[k]);
            arg(c, fx_path[qnn_fx[k]]);
        }
    qnn_sort(c, s);
    maybe(c, s, 3, "--top", 0, 4);
    maybe(c, s, 3, "--skip-first", 0, 3);
    maybe_block(c, s);
    maybe_pte(c, s);
}

/* The input as a QNN file (next to the fixed QNN ETDump, or alone). */

static void j_qnn_alone(cmd *c, const char *in, uint64_t *s) {
    begin(c, "qnn", in);
    switch (pick(s, 4)) { /* qnn needs --qhas or --optrace: the fixed QHAS when the input is not */
    case 0: arg(c, "--qhas"); arg(c, in); break;
    case 1: arg(c, "--optrace"); arg(c, in); break;
    case 2: arg(c, "--qhas"); arg(c, fx_path[FX_QHAS]); arg(c, "--runtrace"); arg(c, in); break;
    default: arg(c, "--qhas"); arg(c, fx_path[FX_QHAS]); arg(c, "--heap"); arg(c, in); break;
    }
    if (pick(s, 3) == 0) {
        arg(c, "--optrace");
        arg(c, fx_path[FX_OPTRACE]);
    }
    fmt(c, s);
    qnn_sort(c, s);
    maybe(c, s, 3, "--top", 0, 4);
    if (pick(s, 4) == 0) arg_num(c, "--htp-clock-ghz", 1.4);
}

static void j_qnn_join(cmd *c, const char *in, uint64_t *s) {
    begin(c, "qnn", in);
    arg(c, fixed_dump(s));
    if (pick(s, 2)) {
        arg(c, "--qhas");
        arg(c, in);
    } else {
        arg(c, "--optrace");
        arg(c, in);
        if (pick(s, 2)) {
            arg(c, "--qhas");
            arg(c, fx_path[FX_QHAS]);
        }
    }
    fmt(c, s);
    qnn_sort(c, s);
    maybe(c, s, 3, "--top", 0, 4);
    maybe(c, s, 3, "--skip-first", 0, 3);
    if (pick(s, 3) == 0) {
        arg(c, "--pte");
        arg(c, fx_path[FX_PROG]);
    }
}

/* ops or tree with the input as the HTP clock source (--qhas or --runtrace). */
static void j_ana_clock(cmd *c, const char *in, uint64_t *s) {
    bool ops = pick(s, 2);
    begin(c, ops ? "ops" : "tree", in);
    arg(c, fixed_dump(s));
    arg(c, pick(s, 2) ? "--qhas" : "--runtrace");
    arg(c, in);
    fmt(c, s);
    if (ops) ops_sort(c, s);
    maybe(c, s, 2, "--top", 0, 5);
    time_unit(c, s);
}

static void j_trace_optrace(cmd *c, const char *in, uint64_t *s) {
    begin(c, "trace", in);
    arg(c, fixed_dump(s));
    arg(c, "--optrace");
    arg(c, in);
    c->kind = K_JSON;
    switch (pick(s, 3)) {
    case 0: arg_num(c, "--htp-clock-ghz", 1); break;
    case 1: arg(c, "--qhas"); arg(c, fx_path[FX_QHAS]); break;
    default: arg(c, "--runtrace"); arg(c, fx_path[FX_RUNTRACE]); break;
    }
}

/* explain or report with the input in one QNN slot (the others fixed or absent). */
static void j_qnn_slot(cmd *c, const char *in, uint64_t *s) {
    bool report = pick(s, 2);
    begin(c, report ? "report" : "explain", in);
    arg(c, fixed_dump(s));
    unsigned slot = pick(s, 4);
    for (unsigned k = 0; k < 4; k++) {
        if (k == slot) {
            arg(c, qnn_opt[k]);
            arg(c, in);
        } else if (pick(s, 2) == 0) {
            arg(c, qnn_opt[k]);
            arg(c, fx_path[qnn_fx[k]]);
        }
    }
    if (report) c->kind = K_HTML;
    else fmt(c, s);
}

static void j_viewer(cmd *c, const char *in, uint64_t *s) {
    begin(c, "qnn", in);
    arg(c, pick(s, 2) ? "--profile-log" : "--profile-csv");
    arg(c, in);
    fmt(c, s);
}

/* The input as the program. */

static void j_program(cmd *c, const char *in, uint64_t *s) {
    static const char *const cmds[] = {"ops", "summary", "tree", "events", "info"};
    const char *name = cmds[pick(s, 5)];
    begin(c, name, in);
    arg(c, fixed_dump(s));
    arg(c, "--pte");
    arg(c, in);
    fmt(c, s);
}

/* Which role each job gives the input; R_ANY: info reads ETDumps and programs alike. */
enum role { R_ANY, R_DUMP, R_QNN, R_PROG };

static const struct job {
    job_fn fn;
    enum role role;
} jobs[] = {
    {j_info, R_ANY},        {j_events, R_DUMP},         {j_ops, R_DUMP},
    {j_tree, R_DUMP},       {j_summary, R_DUMP},        {j_explain, R_DUMP},
    {j_trace, R_DUMP},      {j_report, R_DUMP},         {j_diff_self, R_DUMP},
    {j_diff_fixed, R_DUMP}, {j_qnn_dump, R_DUMP},       {j_qnn_alone, R_QNN},
    {j_qnn_join, R_QNN},    {j_ana_clock, R_QNN},       {j_trace_optrace, R_QNN},
    {j_qnn_slot, R_QNN},    {j_viewer, R_QNN},          {j_program, R_PROG},
};
#define NJOBS (sizeof jobs / sizeof jobs[0])

/* The role the input's first bytes suggest: an ETDump, a program, or else a QNN file (JSON, or
 * the heap and viewer text files). */
static enum role role_of(etp_file_kind k) {
    switch (k) {
    case ETP_FILE_ETDUMP: return R_DUMP;
    case ETP_FILE_PROGRAM:
    case ETP_FILE_BUNDLED: return R_PROG;
    default: return R_QNN;
    }
}

/* ---- running one command and checking what it did ---- */

typedef struct result {
    int rc;
    char *err, *out; /* standard error; the output file's bytes (NULL when there is none) */
    size_t err_len, out_len;
} result;

static void describe(const cmd *c, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < c->argc && n + 1 < cap; i++) {
        int w = snprintf(buf + n, cap - n, "%s%s", i ? " " : "", c->argv[i]);
        if (w < 0) break;
        n += (size_t)w;
    }
}

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap);
            FZ_ASSERT(nb != NULL, "out of memory");
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
    }
    FZ_ASSERT(!ferror(f), "cannot read %s", path);
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

static void run(cmd *c, result *r) {
    memset(r, 0, sizeof *r);
    char *obuf = NULL;
    size_t olen = 0;
    FILE *ef = open_memstream(&r->err, &r->err_len);
    FILE *of = open_memstream(&obuf, &olen);
    FZ_ASSERT(ef && of, "open_memstream failed");
    fflush(stdout);
    fflush(stderr);
    FILE *saved_err = stderr, *saved_out = stdout;
    stderr = ef;
    stdout = of;
    r->rc = etprof_cli_main(c->argc, c->argv);
    stderr = saved_err;
    stdout = saved_out;
    fclose(ef);
    fclose(of);
    char line[2048];
    describe(c, line, sizeof line);
    FZ_ASSERT(olen == 0, "`%s` wrote %zu bytes to standard output despite -o", line, olen);
    free(obuf);
    r->out = read_all(out_path, &r->out_len);
    check_dir(c->input, r->rc == EXIT_OK, line);
    unlink(out_path);
}

/* The length of the well-formed UTF-8 sequence at p (at most n bytes), 0 when there is none:
 * no overlong forms, no surrogates, nothing above U+10FFFF. *cp gets the code point. */
static size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp) {
    if (p[0] < 0x80) return *cp = p[0], 1;
    size_t len = p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
               : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : 0;
    if (!len || len > n) return 0;
    uint32_t v = p[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        v = v << 6 | (p[i] & 0x3F);
    }
    if ((len == 3 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) ||
        (len == 4 && (v < 0x10000 || v > 0x10FFFF)))
        return 0;
    return *cp = v, len;
}

/* docs/output-formats.md, for every output: text is valid UTF-8 and every line ends with LF.
 * The text formats: no control characters (C0, DEL, C1) but LF, and the field separator TAB
 * (tsv) or TAB and CR inside quotes (csv); tsv and csv lines all have the header's number of
 * fields. */
static void check_text(const cmd *c, const result *r, const char *line) {
    const unsigned char *p = (const unsigned char *)r->out;
    size_t n = r->out_len;
    FZ_ASSERT(n == 0 || p[n - 1] == '\n', "`%s`: the output does not end with a newline", line);
    bool text = c->kind == K_TEXT;
    size_t fields = 1, want = 0, lineno = 1; /* csv/tsv: fields of this line, of the header */
    bool quoted = false;                       /* csv: inside a quoted field */
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = utf8_seq(p + i, n - i, &cp);
        FZ_ASSERT(len > 0, "`%s`: byte %zu of the output (line %zu) is not valid UTF-8 (0x%02x)",
                  line, i, lineno, p[i]);
        bool ctl = cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
        if (text && ctl && cp != '\n') {
            bool ok = (c->fmt == OUT_TSV && cp == '\t') ||
                      (c->fmt == OUT_CSV && (cp == '\t' || (quoted && cp == '\r')));
            FZ_ASSERT(ok, "`%s`: control character U+%04X at byte %zu (line %zu) of the %s output",
                      line, (unsigned)cp, i, lineno, out_format_name(c->fmt));
        }
        if (text && c->fmt == OUT_TSV && cp == '\t') fields++;
        if (text && c->fmt == OUT_CSV) {
            if (cp == '"') quoted = !quoted; /* a doubled quote toggles twice */
            else if (cp == ',' && !quoted) fields++;
        }
        if (cp == '\n' && !(text && c->fmt == OUT_CSV && quoted)) {
            if (text && (c->fmt == OUT_TSV || c->fmt == OUT_CSV)) {
                if (!want) want = fields;
                FZ_ASSERT(fields == want, "`%s`: line %zu of the %s output has %zu fields, the "
                          "header %zu", line, lineno, out_format_name(c->fmt), fields, want);
            }
            fields = 1;
            lineno++;
        }
        i += len;
    }
    FZ_ASSERT(!quoted, "`%s`: the csv output ends inside a quoted field", line);
}

/* docs/report.md: C0 control characters from the inputs become U+FFFD, everything from an input is
 * HTML-escaped (so the two scripts the report writes are the only ones), and the data block is
 * JSON. */
static size_t count(const char *s, const char *what) {
    size_t n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

static void check_html(const result *r, const char *line) {
    for (size_t i = 0; i < r->out_len; i++) {
        unsigned char ch = (unsigned char)r->out[i];
        FZ_ASSERT(ch >= 0x20 || ch == '\n' || ch == '\t' || ch == '\r',
                  "`%s`: control character 0x%02x at byte %zu of the report", line, ch, i);
    }
    FZ_ASSERT(strlen(r->out) == r->out_len, "`%s`: the report holds a NUL byte", line);
    FZ_ASSERT(count(r->out, "<script") == 2 && count(r->out, "</script") == 2,
              "`%s`: the report has %zu <script and %zu </script (2 expected)", line,
              count(r->out, "<script"), count(r->out, "</script"));
    static const char open[] = "<script type=\"application/json\" id=\"etprof-data\">";
    const char *data = strstr(r->out, open);
    FZ_ASSERT(data != NULL, "`%s`: the report has no data block", line);
    data += sizeof open - 1;
    const char *end = strstr(data, "</script>");
    FZ_ASSERT(end != NULL, "`%s`: the data block is not closed", line);
    fz_check_json(data, (size_t)(end - data), line);
}

static void check(const cmd *c, const result *r) {
    char line[2048];
    describe(c, line, sizeof line);
    FZ_ASSERT(r->rc == EXIT_OK || r->rc == EXIT_INPUT,
              "`%s` exited %d (0 or 1 expected); standard error: %.*s", line, r->rc,
              (int)(r->err_len > 1000 ? 1000 : r->err_len), r->err);
    if (r->rc == EXIT_INPUT) {
        etprof_fuzz_rejected++;
        FZ_ASSERT(r->out == NULL, "`%s` rejected its input but wrote %s", line, out_path);
        const char *nl = memchr(r->err, '\n', r->err_len);
        FZ_ASSERT(nl && nl == r->err + r->err_len - 1,
                  "`%s` exited 1 without exactly one line on standard error: \"%.*s\"", line,
                  (int)(r->err_len > 1000 ? 1000 : r->err_len), r->err);
        char want[PATH_CAP + 16];
        snprintf(want, sizeof want, "etprof: %s: ", c->input);
        /* strstr, not a prefix: on a terminal a progress line may come first (no newline) */
        /* a program that does not fit the dump is located in the dump (docs/cli.md) */
        FZ_ASSERT(strstr(r->err, want) != NULL ||
                      strstr(r->err, ": not the program of this dump (check --pte") != NULL,
                  "`%s`: the error does not name the input: %s",
                  line, r->err);
        return;
    }
    etprof_fuzz_accepted++;
    FZ_ASSERT(r->out != NULL, "`%s` exited 0 without writing %s", line, out_path);
    check_text(c, r, line);
    switch (c->kind) {
    case K_TEXT: break;
    case K_JSON: fz_check_json(r->out, r->out_len, line); break;
    case K_JSONL:
        for (const char *p = r->out, *end = r->out + r->out_len; p < end;) {
            const char *q = memchr(p, '\n', (size_t)(end - p));
            FZ_ASSERT(q != NULL, "`%s`: the last JSONL line has no newline", line);
            fz_check_json(p, (size_t)(q - p), line);
            p = q + 1;
        }
        break;
    case K_HTML:
        FZ_ASSERT(r->out_len >= 15 && memcmp(r->out, "<!DOCTYPE html>", 15) == 0,
                  "`%s`: the report does not start with <!DOCTYPE html>", line);
        FZ_ASSERT(strstr(r->out, "</html>") != NULL, "`%s`: the report is cut short", line);
        check_html(r, line);
        break;
    }
}

static void same(const cmd *c, const result *a, const result *b) {
    char line[2048];
    describe(c, line, sizeof line);
    FZ_ASSERT(a->rc == b->rc, "`%s` exited %d, then %d", line, a->rc, b->rc);
    FZ_ASSERT(a->err_len == b->err_len && memcmp(a->err, b->err, a->err_len) == 0,
              "`%s` said something else on standard error when run again", line);
    FZ_ASSERT((a->out == NULL) == (b->out == NULL) &&
                  (!a->out || (a->out_len == b->out_len && memcmp(a->out, b->out, a->out_len) == 0)),
              "`%s` wrote another output when run again", line);
}

static void release(result *r) {
    free(r->err);
    free(r->out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    setup();
    /* FUZZ_CLI_VERBOSE=1: each command line and its exit code on standard error */
    static int verbose = -1;
    if (verbose < 0) verbose = getenv("FUZZ_CLI_VERBOSE") && *getenv("FUZZ_CLI_VERBOSE") == '1';
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 0x100000001b3u;
    uint64_t s = h;
    int named_pte = (int)(next(&s) & 1);
    const char *in = in_path[named_pte];
    write_file(in, data, size);
    etp_file_kind kind = etp_sniff_kind(data, size);
    info_reads_program = kind == ETP_FILE_PROGRAM || kind == ETP_FILE_BUNDLED ||
                         (kind == ETP_FILE_UNKNOWN && named_pte);
    /* Half the inputs have ETDumps of two blocks or more verified in a second thread while the
     * analysis commands and info run (normally only from 4 MiB on): then a damaged block is
     * reported by the analysis, not by the open. */
    static uint32_t async_min_default;
    static bool saved;
    if (!saved) async_min_default = etp__async_min, saved = true;
    etp__async_min = next(&s) & 1 ? 0 : async_min_default;
    /* Half the inputs run the analyses on two threads whenever the dump has two blocks or more
     * (ETPROF_THREADS=2; normally only from 4 MiB on: docs/analyses.md "Two threads"), the others
     * on one; the command run again runs with the other setting, so that same() also checks that
     * one and two threads give the same exit code, standard error and output. */
    bool two = next(&s) & 1;
    setenv("ETPROF_THREADS", two ? "2" : "1", 1);
    /* The jobs of the input's role always run; each of the others one time in four (so every
     * command still meets every kind of input), which keeps an input at about 10 commands. */
    enum role role = role_of(kind);
    unsigned again = pick(&s, NJOBS);
    for (size_t j = 0; j < NJOBS; j++) {
        bool other = jobs[j].role != R_ANY && jobs[j].role != role;
        if (pick(&s, 4) != 0 && other && j != again) continue;
        cmd c;
        jobs[j].fn(&c, in, &s);
        if (pick(&s, 4) == 0) arg(&c, "-q");
        arg(&c, "-o");
        arg(&c, out_path);
        result r;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        run(&c, &r);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (verbose) {
            char line[2048];
            describe(&c, line, sizeof line);
            fprintf(stderr, "fuzz_cli: exit %d in %.3f ms: %s\n", r.rc,
                    (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
                    line);
        }
        check(&c, &r);
        if (j == again) {
            result r2;
            setenv("ETPROF_THREADS", two ? "1" : "2", 1);
            run(&c, &r2);
            setenv("ETPROF_THREADS", two ? "2" : "1", 1);
            same(&c, &r, &r2);
            release(&r2);
        }
        release(&r);
    }
    unlink(in);
    return 0;
}
