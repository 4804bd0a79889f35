/* outfile.c - atomic output files; see include/etprof_io.h. */
#include "etprof_io.h"

#include <ctype.h>
#include <limits.h>
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
    char *path;   /* NULL for stdout */
    char *tmp;    /* NULL when writing directly (stdout, or a device/FIFO such as /dev/null) */
    char *target; /* what the temporary file is renamed to: path with its symbolic links
                   * resolved (NULL when writing directly) */
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

/* A write past RLIMIT_FSIZE raises SIGXFSZ, whose default action kills the process and would
 * leave the temporary file behind (issue 35.5). At its default it is ignored instead, so that the
 * write fails with EFBIG and is reported and cleaned up like any failed write (exit 3). Done
 * once, on the first output opened (standard output too); a handler of the caller's is kept. */
static pthread_once_t xfsz_once = PTHREAD_ONCE_INIT;

static void xfsz_ignore(void) {
    struct sigaction old;
    if (sigaction(SIGXFSZ, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
        old.sa_handler == SIG_DFL) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_IGN;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGXFSZ, &sa, NULL);
    }
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

/* The temporary file's name for `target`: "<target>.XXXXXX.tmp" (X filled in by create_tmp), or,
 * when that name would pass NAME_MAX, the short "<dir>/.etprof-XXXXXX.tmp" in the same directory
 * (a legal 245-255-byte name must work: issue 35.6). NULL when out of memory; *x is where the six
 * X start. */
#define TMP_LONG_SUFFIX ".XXXXXX.tmp"
#define TMP_SHORT_NAME ".etprof-XXXXXX.tmp"
static char *tmp_name(const char *target, size_t *x) {
    size_t n = strlen(target);
    const char *slash = strrchr(target, '/');
    size_t dir = slash ? (size_t)(slash - target) + 1 : 0; /* bytes of "<dir>/" */
    bool shortname = n - dir + sizeof TMP_LONG_SUFFIX - 1 > NAME_MAX;
    size_t len = shortname ? dir + sizeof TMP_SHORT_NAME : n + sizeof TMP_LONG_SUFFIX;
    char *t = malloc(len);
    if (!t) return NULL;
    memcpy(t, target, dir);
    if (shortname) {
        memcpy(t + dir, TMP_SHORT_NAME, sizeof TMP_SHORT_NAME);
        *x = dir + 8;
    } else {
        memcpy(t + dir, target + dir, n - dir);
        memcpy(t + n, TMP_LONG_SUFFIX, sizeof TMP_LONG_SUFFIX);
        *x = n + 1;
    }
    return t;
}

/* Creates the file named by tmp_name(), its six X replaced, with O_EXCL (mkstemp would force
 * mode 0600 onto the output, and mkstemps is not POSIX). Returns the fd, or -1 with errno set. */
static int create_tmp(char *tmp, size_t x, const void *salt) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = mix((uint64_t)ts.tv_sec ^ ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)getpid() ^
                        (uint64_t)(uintptr_t)salt);
    for (int attempt = 0; attempt < 100; attempt++) {
        seed = mix(seed + (uint64_t)attempt);
        uint64_t r = seed;
        for (int i = 0; i < 6; i++, r /= 62) tmp[x + i] = alphabet[r % 62];
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1; /* errno == EEXIST */
}

/* A path through the kernel's links to open files (/dev/stdout -> /proc/self/fd/1): what they
 * name is an open file, not a place to create one in. */
static bool magic_link(const char *p) {
    return strncmp(p, "/proc/", 6) == 0 || strncmp(p, "/dev/fd/", 8) == 0;
}

/* `path` with its symbolic links followed (issue 35.8): the file a rename must replace so that
 * a link keeps pointing at the new output. *direct is set when the chain reaches a link to an
 * open file (/dev/stdout, /dev/fd/N, /proc/...): such a target is written in place. The result
 * may name a file that does not exist yet (a dangling link creates its target). NULL with errno
 * set (ELOOP after 40 links, ENOMEM, readlink's error). */
static char *resolve_links(const char *path, bool *direct) {
    *direct = false;
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        if (magic_link(cur)) {
            *direct = true;
            return cur;
        }
        struct stat lst;
        if (lstat(cur, &lst) != 0 || !S_ISLNK(lst.st_mode)) return cur;
        if (hops == 40) {
            free(cur);
            errno = ELOOP;
            return NULL;
        }
        size_t cap = lst.st_size > 0 && lst.st_size < PATH_MAX ? (size_t)lst.st_size + 1 : PATH_MAX;
        char *to = malloc(cap);
        ssize_t k = to ? readlink(cur, to, cap) : -1;
        if (k < 0 || (size_t)k >= cap) {
            int e = k < 0 ? (to ? errno : ENOMEM) : ENAMETOOLONG;
            free(to);
            free(cur);
            errno = e;
            return NULL;
        }
        to[k] = 0;
        const char *slash = strrchr(cur, '/');
        size_t dir = to[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dir + (size_t)k + 1);
        if (next) {
            memcpy(next, cur, dir);
            memcpy(next + dir, to, (size_t)k + 1);
        }
        free(to);
        free(cur);
        cur = next;
        if (!cur) errno = ENOMEM;
    }
    return NULL;
}

int etp_outfile_open(etp_outfile **out, const char *path, etp_error *err) {
    *out = NULL;
    pthread_once(&xfsz_once, xfsz_ignore);
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
    s->path = strdup(path);
    bool direct = false;
    s->target = s->path ? resolve_links(path, &direct) : NULL;
    if (!s->path || !s->target) {
        int e = s->path ? errno : ENOMEM;
        etp_outfile_abort(s);
        if (e == ENOMEM) {
            if (err) etp_error_set(err, ETP_E_INTERNAL, path, -1, "", "out of memory");
            return ETP_E_INTERNAL;
        }
        io_error(err, path, "cannot open output", e);
        return ETP_E_IO;
    }
    struct stat st;
    if (direct || (stat(s->target, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
        /* A device or FIFO (/dev/null, a pipe), or a link to an open file (/dev/stdout):
         * renaming over it would replace it, so write to it directly; there is nothing partial
         * to clean up there. Standard output named by such a link is written as it is open (its
         * offset, O_APPEND), not truncated. */
        free(s->target);
        s->target = NULL;
        struct stat so;
        int fd = -1;
        if (direct && stat(path, &st) == 0 && fstat(STDOUT_FILENO, &so) == 0 &&
            st.st_dev == so.st_dev && st.st_ino == so.st_ino)
            fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
        s->f = fd >= 0 ? fdopen(fd, "w") : fopen(path, "w");
        if (!s->f) {
            int e = errno;
            if (fd >= 0) close(fd);
            etp_outfile_abort(s);
            io_error(err, path, "cannot open output", e);
            return ETP_E_IO;
        }
        setvbuf(s->f, NULL, _IOFBF, SINK_BUF);
        *out = s;
        return ETP_OK;
    }
    bool replacing = stat(s->target, &st) == 0 && S_ISREG(st.st_mode);
    size_t x = 0;
    s->tmp = tmp_name(s->target, &x);
    if (!s->tmp) {
        etp_outfile_abort(s);
        if (err) etp_error_set(err, ETP_E_INTERNAL, path, -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        sigaddset(&block, cleanup_signals[i]);
    sigprocmask(SIG_BLOCK, &block, &old); /* no window between creating and registering it */
    int fd = create_tmp(s->tmp, x, s);
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
    free(s->target);
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
    } else if (s->tmp && rename(s->tmp, s->target) != 0) {
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
