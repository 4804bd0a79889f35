/* replay.c - the plain-main driver every fuzz target is linked with when libFuzzer is not used, so
 * the corpus and every crash ever found are replayed by ctest on any machine and compiler.
 *
 * usage: fuzz_<name>_replay [-v] PATH... [--mutate FILE...]
 *
 *   PATH      a file, or a directory: every regular file under it (recursively, sorted by path)
 *   --mutate  each FILE after it is not run as is but mutated: every prefix (length 0 to size-1);
 *             when the file starts with a FlatBuffer size prefix, every prefix of 8 bytes or more
 *             with that prefix rewritten to match (so the verifier, not the prefix check, meets
 *             the cut); every byte inverted in turn; every aligned 32-bit word set to 0xFFFFFFFF
 *             and, in turn, increased by 4
 *   -v        print every input as it runs
 *
 * Each input is copied into a heap block of exactly its size, so a sanitizer sees a read past its
 * end. The target aborts on a broken contract (fuzz/fuzz_common.h); if the process dies, the
 * driver names the input on stderr and saves its bytes as ./replay-crash.bin for the regression
 * corpus. Exit status: 0 when every input ran, 2 on a usage or I/O error. */
#include "etr_mutate.h"
#include "fb_mutate.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
extern unsigned long etprof_fuzz_accepted __attribute__((weak));
extern unsigned long etprof_fuzz_rejected __attribute__((weak));

/* ---- what is running, for the crash report ---- */

static char current[1024];
static const uint8_t *current_data;
static size_t current_size;

static void put(const char *s) {
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r;
}

/* Async-signal-safe: only write(2), open(2) and close(2). */
static void report_crash(void) {
    put("replay: the target crashed on: ");
    put(current);
    put("\n");
    if (!current_data) return;
    int fd = open("replay-crash.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    size_t done = 0;
    while (done < current_size) {
        ssize_t w = write(fd, current_data + done, current_size - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    close(fd);
    put("replay: its bytes are saved as ./replay-crash.bin\n");
}

static void on_signal(int sig) {
    report_crash();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_crash_report(void) {
    /* Under a sanitizer its own handler reports memory errors, then calls us back. */
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(report_crash);
    int sigs[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        if (sigs[i] != SIGABRT && __sanitizer_set_death_callback) continue;
        signal(sigs[i], on_signal);
    }
}

/* ---- running inputs ---- */

static bool verbose;
static unsigned long runs;

static void run(const uint8_t *data, size_t size) {
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) {
        fprintf(stderr, "replay: out of memory\n");
        exit(2);
    }
    if (size) memcpy(copy, data, size);
    current_data = copy;
    current_size = size;
    if (verbose) fprintf(stderr, "replay: %s\n", current);
    LLVMFuzzerTestOneInput(copy, size);
    current_data = NULL;
    free(copy);
    runs++;
}

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        uint8_t *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = len;
    return buf;
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void wr32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void mutate(const char *path, const uint8_t *data, size_t size) {
    uint8_t *m = malloc(size ? size : 1);
    if (!m) exit(2);
    for (size_t n = 0; n < size; n++) {
        snprintf(current, sizeof current, "%s truncated to %zu bytes", path, n);
        run(data, n);
    }
    if (size >= 8 && rd32(data) == size - 4) {
        for (size_t n = 8; n < size; n++) {
            memcpy(m, data, n);
            wr32(m, (uint32_t)(n - 4));
            snprintf(current, sizeof current, "%s truncated to %zu bytes, size prefix set to %zu",
                     path, n, n - 4);
            run(m, n);
        }
    }
    memcpy(m, data, size);
    for (size_t i = 0; i < size; i++) {
        m[i] ^= 0xFF;
        snprintf(current, sizeof current, "%s with byte %zu inverted", path, i);
        run(m, size);
        m[i] ^= 0xFF;
    }
    for (size_t i = 0; i + 4 <= size; i += 4) {
        uint32_t old = rd32(m + i);
        wr32(m + i, 0xFFFFFFFFu);
        snprintf(current, sizeof current, "%s with word at %zu set to 0xffffffff", path, i);
        run(m, size);
        wr32(m + i, old + 4);
        snprintf(current, sizeof current, "%s with word at %zu increased by 4", path, i);
        run(m, size);
        wr32(m + i, old);
    }
    free(m);
}

/* The FlatBuffer-aware mutations of fb_mutate.c, seeds 1..count, each on a fresh copy. */
static void fb_mutations(const char *path, const uint8_t *data, size_t size, unsigned long count) {
    uint8_t *m = malloc(size ? size : 1);
    if (!m) exit(2);
    unsigned long done = 0;
    for (unsigned long s = 1; s <= count; s++) {
        if (size) memcpy(m, data, size);
        size_t n = etprof_fb_mutate(m, size, size, (uint32_t)s);
        if (!n) continue;
        snprintf(current, sizeof current, "%s with FlatBuffer mutation %lu (fb_mutate.c)", path, s);
        run(m, n);
        done++;
    }
    if (done == 0) {
        fprintf(stderr, "replay: %s: no FlatBuffer structure found to mutate\n", path);
        exit(2);
    }
    free(m);
}

/* The ETRecord-aware mutations of etr_mutate.c (a JSON entry changed, the ZIP written again
 * with valid CRCs), seeds 1..count, each on a fresh copy with room for what the mutation adds. */
static void etr_mutations(const char *path, const uint8_t *data, size_t size,
                          unsigned long count) {
    size_t cap = size + ((size_t)1 << 20);
    uint8_t *m = malloc(cap);
    if (!m) exit(2);
    unsigned long done = 0;
    for (unsigned long s = 1; s <= count; s++) {
        memcpy(m, data, size);
        size_t n = etprof_etr_mutate(m, size, cap, (uint32_t)s);
        if (!n) continue;
        snprintf(current, sizeof current, "%s with ETRecord mutation %lu (etr_mutate.c)", path, s);
        run(m, n);
        done++;
    }
    if (done == 0) {
        fprintf(stderr, "replay: %s: no ZIP with a JSON entry found to mutate\n", path);
        exit(2);
    }
    free(m);
}

/* ---- collecting files ---- */

typedef struct list {
    char **v;
    size_t n, cap;
} list;

static void add(list *l, const char *s) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) exit(2);
    }
    l->v[l->n] = strdup(s);
    if (!l->v[l->n]) exit(2);
    l->n++;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int collect(list *l, const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        add(l, path);
        return 0;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    list sub = {0};
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        size_t n = strlen(path) + strlen(de->d_name) + 2;
        char *p = malloc(n);
        if (!p) exit(2);
        snprintf(p, n, "%s/%s", path, de->d_name);
        add(&sub, p);
        free(p);
    }
    closedir(d);
    qsort(sub.v, sub.n, sizeof *sub.v, by_name);
    int rc = 0;
    for (size_t i = 0; i < sub.n; i++) {
        if (collect(l, sub.v[i])) rc = -1;
        free(sub.v[i]);
    }
    free(sub.v);
    return rc;
}

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    install_crash_report();
    list plain = {0}, mut = {0};
    bool mutating = false;
    unsigned long fb_count = 0; /* --fb-mutate N: the FILEs after --mutate get N FlatBuffer
                                   mutations each instead of the byte-level ones */
    unsigned long etr_count = 0; /* --etr-mutate N: N ETRecord (JSON entry) mutations each */
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) verbose = true;
        else if (strcmp(argv[i], "--mutate") == 0) mutating = true;
        else if (strcmp(argv[i], "--fb-mutate") == 0 && i + 1 < argc) {
            fb_count = strtoul(argv[++i], NULL, 10);
            mutating = true;
        } else if (strcmp(argv[i], "--etr-mutate") == 0 && i + 1 < argc) {
            etr_count = strtoul(argv[++i], NULL, 10);
            mutating = true;
        }
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: %s [-v] PATH... [--mutate FILE... | --fb-mutate N FILE... | "
                    "--etr-mutate N FILE...]\n",
                    argv[0]);
            return 2;
        } else if (collect(mutating ? &mut : &plain, argv[i])) bad = 1;
    }
    if (bad || plain.n + mut.n == 0) {
        if (!bad) fprintf(stderr, "replay: no input files\n");
        for (size_t i = 0; i < plain.n; i++) free(plain.v[i]);
        for (size_t i = 0; i < mut.n; i++) free(mut.v[i]);
        free(plain.v);
        free(mut.v);
        return 2;
    }
    for (size_t i = 0; i < plain.n + mut.n; i++) {
        bool m = i >= plain.n;
        const char *path = m ? mut.v[i - plain.n] : plain.v[i];
        size_t size;
        uint8_t *data = read_file(path, &size);
        if (!data) {
            fprintf(stderr, "replay: %s: cannot read: %s\n", path, strerror(errno));
            return 2;
        }
        snprintf(current, sizeof current, "%s", path);
        if (m && etr_count) etr_mutations(path, data, size, etr_count);
        else if (m && fb_count) fb_mutations(path, data, size, fb_count);
        else if (m) mutate(path, data, size);
        else run(data, size);
        free(data);
    }
    printf("replay: %lu inputs from %zu files", runs, plain.n + mut.n);
    if (&etprof_fuzz_accepted && &etprof_fuzz_rejected)
        printf(": %lu accepted, %lu rejected with a located error", etprof_fuzz_accepted,
               etprof_fuzz_rejected);
    printf("\n");
    for (size_t i = 0; i < plain.n; i++) free(plain.v[i]);
    for (size_t i = 0; i < mut.n; i++) free(mut.v[i]);
    free(plain.v);
    free(mut.v);
    return 0;
}
