/* outfile.c - atomic output files; see include/etprof_io.h. */
#include "etprof_io.h"

#include <ctype.h>
#include <pthread.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STDOUT_NAME "<stdout>"
/* Output buffer: large outputs (events, trace: hundreds of MB) then cost one write() per MiB
 * instead of one per 4 KiB block. */
#define SINK_BUF ((size_t)1 << 20)

struct etp_outfile {
    FILE *f;
    char *path; /* NULL for stdout */
    char *tmp;  /* NULL when writing directly (stdout, or a device/FIFO such as /dev/null) */
};

/* Temporary files to remove when SIGINT, SIGTERM or SIGHUP ends the process (issue 16.4). The
 * handler only reads this table and calls unlink() (async-signal-safe), then re-raises the
 * signal with its default action so the exit status still tells the shell which signal it was. */
#define SINK_MAX_LIVE 8
static char *volatile live_tmp[SINK_MAX_LIVE];
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig) {
    for (int i = 0; i < SINK_MAX_LIVE; i++) {
        char *t = live_tmp[i];
        if (t) unlink(t);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Registration is serialised (threads may open files at once); the handler only reads. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void track_tmp(char *tmp) {
    static bool installed;
    pthread_mutex_lock(&live_lock);
    if (!installed) {
        installed = true;
        for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++) {
            struct sigaction old;
            /* a signal the caller ignores (nohup) stays ignored */
            if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
                continue;
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_signal;
            sigemptyset(&sa.sa_mask);
            for (size_t j = 0; j < sizeof cleanup_signals / sizeof cleanup_signals[0]; j++)
                sigaddset(&sa.sa_mask, cleanup_signals[j]);
            sigaction(cleanup_signals[i], &sa, NULL);
        }
    }
    for (int i = 0; i < SINK_MAX_LIVE; i++)
        if (!live_tmp[i]) {
            live_tmp[i] = tmp;
            break;
        }
    pthread_mutex_unlock(&live_lock);
}

static void untrack_tmp(const char *tmp) {
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < SINK_MAX_LIVE; i++)
        if (live_tmp[i] == tmp) live_tmp[i] = NULL;
    pthread_mutex_unlock(&live_lock);
}

static void io_error(etp_error *err, const char *file, const char *what, int errnum) {
    char reason[128];
    snprintf(reason, sizeof reason, "%s", errnum ? strerror(errnum) : "write error");
    reason[0] = (char)tolower((unsigned char)reason[0]);
    if (err) etp_error_set(err, ETP_E_IO, file, -1, "", "%s: %s", what, reason);
}

void etp_outfile_write_error(const etp_outfile *s, int errnum, etp_error *err) {
    /* strerror's own wording ("No space left on device"), as the issue and other tools print it */
    if (err)
        etp_error_set(err, ETP_E_IO, s->path ? s->path : STDOUT_NAME, -1, "", "write failed: %s",
                      errnum ? strerror(errnum) : "write error");
}

bool etp_outfile_is_stdout(const etp_outfile *s) { return !s->path; }

static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Creates "<path>.XXXXXX.tmp" with O_EXCL (mkstemp would force mode 0600 onto the output, and
 * mkstemps is not POSIX). Returns the fd, or -1 with errno set. */
static int create_tmp(char *tmp, const char *path, const void *salt) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = mix((uint64_t)ts.tv_sec ^ ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)getpid() ^
                        (uint64_t)(uintptr_t)salt);
    size_t n = strlen(path);
    for (int attempt = 0; attempt < 100; attempt++) {
        seed = mix(seed + (uint64_t)attempt);
        memcpy(tmp, path, n);
        tmp[n] = '.';
        uint64_t r = seed;
        for (int i = 0; i < 6; i++, r /= 62) tmp[n + 1 + i] = alphabet[r % 62];
        memcpy(tmp + n + 7, ".tmp", 5);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1; /* errno == EEXIST */
}

int etp_outfile_open(etp_outfile **out, const char *path, etp_error *err) {
    *out = NULL;
    etp_outfile *s = calloc(1, sizeof *s);
    if (!s) {
        if (err) etp_error_set(err, ETP_E_INTERNAL, path ? path : "", -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    if (!path || strcmp(path, "-") == 0) {
        s->f = stdout;
        /* a terminal keeps its line buffering */
        if (!isatty(STDOUT_FILENO)) setvbuf(stdout, NULL, _IOFBF, SINK_BUF);
        *out = s;
        return ETP_OK;
    }
    size_t n = strlen(path);
    s->path = malloc(n + 1);
    s->tmp = malloc(n + sizeof ".XXXXXX.tmp");
    if (!s->path || !s->tmp) {
        etp_outfile_abort(s);
        if (err) etp_error_set(err, ETP_E_INTERNAL, path, -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    memcpy(s->path, path, n + 1);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        /* A device or FIFO (/dev/null, /dev/stdout, a pipe): renaming over it would replace it,
         * so write to it directly; there is nothing partial to clean up there. */
        free(s->tmp);
        s->tmp = NULL;
        s->f = fopen(path, "w");
        if (!s->f) {
            int e = errno;
            etp_outfile_abort(s);
            io_error(err, path, "cannot open output", e);
            return ETP_E_IO;
        }
        setvbuf(s->f, NULL, _IOFBF, SINK_BUF);
        *out = s;
        return ETP_OK;
    }
    bool replacing = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        sigaddset(&block, cleanup_signals[i]);
    sigprocmask(SIG_BLOCK, &block, &old); /* no window between creating and registering it */
    int fd = create_tmp(s->tmp, path, s);
    int cerr = errno;
    if (fd >= 0) track_tmp(s->tmp);
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = cerr;
    /* replacing a file keeps its permission bits (a 0600 file stays 0600) */
    if (fd >= 0 && replacing) (void)fchmod(fd, st.st_mode & 07777);
    if (fd < 0) {
        io_error(err, path, "cannot create temporary output file", errno);
        free(s->tmp);
        s->tmp = NULL; /* nothing to unlink */
        etp_outfile_abort(s);
        return ETP_E_IO;
    }
    s->f = fdopen(fd, "w");
    if (!s->f) {
        int e = errno;
        close(fd);
        unlink(s->tmp);
        untrack_tmp(s->tmp);
        free(s->tmp);
        s->tmp = NULL;
        etp_outfile_abort(s);
        io_error(err, path, "cannot open temporary output file", e);
        return ETP_E_IO;
    }
    setvbuf(s->f, NULL, _IOFBF, SINK_BUF);
    *out = s;
    return ETP_OK;
}

FILE *etp_outfile_stream(etp_outfile *s) { return s->f; }

static void outfile_free(etp_outfile *s) {
    if (s->tmp) untrack_tmp(s->tmp);
    free(s->path);
    free(s->tmp);
    free(s);
}

int etp_outfile_commit(etp_outfile *s, etp_error *err) {
    int rc = ETP_OK;
    if (!s->path) {
        errno = 0;
        if (fflush(s->f) != 0 || ferror(s->f)) {
            etp_outfile_write_error(s, errno, err);
            rc = ETP_E_IO;
        }
        outfile_free(s);
        return rc;
    }
    errno = 0;
    bool failed = fflush(s->f) != 0 || ferror(s->f);
    int e = errno;
    if (fclose(s->f) != 0 && !failed) failed = true, e = errno;
    s->f = NULL;
    /* Test hook (docs/cli.md, "Test hooks"): a signal at the worst moment, the temporary file
     * complete and not yet renamed, so that a test of the cleanup does not race the writer. */
    const char *hook = s->tmp ? getenv("ETPROF_TEST_RAISE_BEFORE_RENAME") : NULL;
    if (hook && !failed) {
        int sig = atoi(hook);
        if (sig > 0) raise(sig);
    }
    if (failed) {
        etp_outfile_write_error(s, e, err);
        rc = ETP_E_IO;
    } else if (s->tmp && rename(s->tmp, s->path) != 0) {
        io_error(err, s->path, "cannot replace file", errno);
        rc = ETP_E_IO;
    }
    if (rc != ETP_OK && s->tmp) unlink(s->tmp);
    outfile_free(s);
    return rc;
}

void etp_outfile_abort(etp_outfile *s) {
    if (!s) return;
    if (s->path) {
        if (s->f) fclose(s->f);
        if (s->tmp) unlink(s->tmp);
    } else if (s->f) {
        fflush(s->f);
    }
    outfile_free(s);
}
