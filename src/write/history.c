/* history.c - the run history: an SQLite file (Debian's libsqlite3) of dumps added over time,
 * each with its identity, labels and the per-method, per-run and per-op figures of the library's
 * analyses; series of a metric per (program, method, device) judged with the test of `diff`
 * (docs/history.md has the schema). */
#include "etprof.h"
#include "etprof_fleet.h"
#include "etprof_runs.h"
#include "fleet_int.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define HISTORY_APP_ID 0x45545046 /* "ETPF" */
#define HISTORY_VERSION 1

struct etp_history {
    sqlite3 *db;
    char path[ETP_ERR_FILE_MAX];
};

int etp_history_schema_version(void) { return HISTORY_VERSION; }

static const char *const schema_sql =
    "CREATE TABLE entry(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  added_at TEXT NOT NULL,\n"
    "  captured_at TEXT NOT NULL,\n"
    "  dump_path TEXT NOT NULL,\n"
    "  dump_sha256 TEXT NOT NULL,\n"
    "  dump_bytes INTEGER NOT NULL,\n"
    "  program_path TEXT,\n"
    "  program_sha256 TEXT NOT NULL,\n"
    "  device TEXT NOT NULL,\n"
    "  labels TEXT NOT NULL);\n"
    "CREATE TABLE label(\n"
    "  entry_id INTEGER NOT NULL REFERENCES entry(id),\n"
    "  key TEXT NOT NULL,\n"
    "  value TEXT NOT NULL,\n"
    "  PRIMARY KEY(entry_id, key));\n"
    "CREATE TABLE method(\n"
    "  entry_id INTEGER NOT NULL REFERENCES entry(id),\n"
    "  method INTEGER NOT NULL,\n"
    "  name TEXT NOT NULL,\n"
    "  unit TEXT NOT NULL,\n"
    "  runs INTEGER NOT NULL,\n"
    "  warmup_runs INTEGER NOT NULL,\n"
    "  steady_runs INTEGER NOT NULL,\n"
    "  latency_min REAL, latency_p50 REAL, latency_p90 REAL, latency_max REAL,\n"
    "  latency_avg REAL,\n"
    "  delegate_share_pct REAL, cpu_share_pct REAL,\n"
    "  tokens_per_second REAL,\n"
    "  backends TEXT NOT NULL,\n"
    "  PRIMARY KEY(entry_id, method));\n"
    "CREATE TABLE run(\n"
    "  entry_id INTEGER NOT NULL REFERENCES entry(id),\n"
    "  method INTEGER NOT NULL,\n"
    "  run INTEGER NOT NULL,\n"
    "  block INTEGER NOT NULL,\n"
    "  unit TEXT NOT NULL,\n"
    "  execute REAL, delegate REAL, cpu REAL, framework REAL,\n"
    "  warmup INTEGER NOT NULL,\n"
    "  outlier INTEGER NOT NULL,\n"
    "  PRIMARY KEY(entry_id, method, run));\n"
    "CREATE TABLE op(\n"
    "  entry_id INTEGER NOT NULL REFERENCES entry(id),\n"
    "  row INTEGER NOT NULL,\n"
    "  method INTEGER NOT NULL,\n"
    "  parent INTEGER NOT NULL,\n"
    "  chain INTEGER NOT NULL,\n"
    "  instruction INTEGER NOT NULL,\n"
    "  kind TEXT NOT NULL,\n"
    "  name TEXT,\n"
    "  op TEXT,\n"
    "  placement TEXT,\n"
    "  unit TEXT NOT NULL,\n"
    "  count INTEGER NOT NULL,\n"
    "  runs INTEGER NOT NULL,\n"
    "  min REAL, p50 REAL, p90 REAL, max REAL, avg REAL, total REAL,\n"
    "  excl_p50 REAL,\n"
    "  share_pct REAL,\n"
    "  PRIMARY KEY(entry_id, row));\n"
    "CREATE INDEX entry_series ON entry(program_sha256, device, captured_at);\n";

/* ---------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------- */

static int db_error(etp_history *h, etp_error *err, const char *what) {
    int ec = h->db ? sqlite3_extended_errcode(h->db) : SQLITE_ERROR;
    int pc = ec & 0xff;
    int code = pc == SQLITE_CORRUPT || pc == SQLITE_NOTADB ? ETP_E_INPUT
               : pc == SQLITE_IOERR || pc == SQLITE_CANTOPEN || pc == SQLITE_READONLY ||
                       pc == SQLITE_FULL || pc == SQLITE_PERM
                   ? ETP_E_IO
                   : ETP_E_INTERNAL;
    const char *m = h->db ? sqlite3_errmsg(h->db) : sqlite3_errstr(ec);
    if (pc == SQLITE_NOTADB) /* SQLite's header or first page does not hold */
        etp_error_set(err, code, h->path, 0, "header",
                      "not a valid SQLite database (sqlite: %s); left as it is", m);
    else if (pc == SQLITE_CORRUPT)
        etp_error_set(err, code, h->path, -1, "sqlite",
                      "corrupt history database (%s: %s); left as it is", what, m);
    else
        etp_error_set(err, code, h->path, -1, "", "%s: %s", what, m);
    return code;
}

static int exec(etp_history *h, const char *sql, etp_error *err) {
    if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) != SQLITE_OK) return db_error(h, err, "sqlite");
    return ETP_OK;
}

static int pragma_int(etp_history *h, const char *sql, int64_t *out, etp_error *err) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) return db_error(h, err, sql);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (r != SQLITE_ROW && r != SQLITE_DONE) return db_error(h, err, sql);
    return ETP_OK;
}

/* PRAGMA quick_check: "ok", or the first problem ("*** in database main *** Page 3: ..."),
 * located at the page when the message names one. */
static int quick_check(etp_history *h, etp_error *err) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h->db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK)
        return db_error(h, err, "quick_check");
    int r = sqlite3_step(st);
    char msg[200] = "";
    if (r == SQLITE_ROW) snprintf(msg, sizeof msg, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (r != SQLITE_ROW) return db_error(h, err, "quick_check");
    if (strcmp(msg, "ok") == 0) return ETP_OK;
    int64_t off = -1, psz = 0;
    const char *pg = strstr(msg, "Page ");
    long page = pg ? strtol(pg + 5, NULL, 10) : 0;
    if (page > 0 && pragma_int(h, "PRAGMA page_size", &psz, err) == ETP_OK) off = (page - 1) * psz;
    for (char *c = msg; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
    etp_error_set(err, ETP_E_INPUT, h->path, off, "sqlite", "corrupt history database: %s", msg);
    return ETP_E_INPUT;
}

/* ---------------------------------------------------------------------------------------------
 * Open
 * ------------------------------------------------------------------------------------------- */

static int init_schema(etp_history *h, etp_error *err) {
    int rc = exec(h, "BEGIN IMMEDIATE", err);
    if (rc) return rc;
    int64_t ver = 0, app = 0, ntab = 0;
    if ((rc = pragma_int(h, "PRAGMA user_version", &ver, err)) ||
        (rc = pragma_int(h, "PRAGMA application_id", &app, err)) ||
        (rc = pragma_int(h, "SELECT count(*) FROM sqlite_master", &ntab, err)))
        goto fail;
    if (app == 0 && ver == 0 && ntab == 0) { /* new: ours to set up (another writer may have) */
        char sql[128];
        if ((rc = exec(h, schema_sql, err))) goto fail;
        snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d",
                 HISTORY_APP_ID, HISTORY_VERSION);
        if ((rc = exec(h, sql, err))) goto fail;
        app = HISTORY_APP_ID;
        ver = HISTORY_VERSION;
    }
    if (app != HISTORY_APP_ID) {
        etp_error_set(err, ETP_E_INPUT, h->path, 68, "application_id",
                      "an SQLite database of another application (application_id 0x%08llx, %lld "
                      "table(s)), not an etprof history (0x%08x); left as it is",
                      (unsigned long long)(uint32_t)app, (long long)ntab, HISTORY_APP_ID);
        rc = ETP_E_INPUT;
        goto fail;
    }
    if (ver != HISTORY_VERSION) {
        etp_error_set(err, ETP_E_INPUT, h->path, 60, "user_version",
                      "history schema version %lld; this etprof reads version %d", (long long)ver,
                      HISTORY_VERSION);
        rc = ETP_E_INPUT;
        goto fail;
    }
    return exec(h, "COMMIT", err);
fail:
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int etp_history_open(etp_history **out, const char *path, bool create, etp_error *err) {
    *out = NULL;
    etp_history *h = calloc(1, sizeof *h);
    if (!h) {
        etp_error_set(err, ETP_E_INTERNAL, path, -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    snprintf(h->path, sizeof h->path, "%s", path);
    int rc = ETP_OK;
    struct stat st;
    bool existed = stat(path, &st) == 0;
    if (!existed && !create) {
        etp_error_set(err, ETP_E_IO, path, -1, "", "cannot open: %s (history add creates a history)",
                      strerror(errno));
        rc = ETP_E_IO;
        goto fail;
    }
    if (existed && !S_ISREG(st.st_mode)) {
        etp_error_set(err, ETP_E_IO, path, -1, "", "not a regular file");
        rc = ETP_E_IO;
        goto fail;
    }
    if (existed && st.st_size > 0) { /* the SQLite header, before SQLite touches the file */
        unsigned char hd[100];
        FILE *f = fopen(path, "rb");
        if (!f) {
            etp_error_set(err, ETP_E_IO, path, -1, "", "cannot open: %s", strerror(errno));
            rc = ETP_E_IO;
            goto fail;
        }
        size_t got = fread(hd, 1, sizeof hd, f);
        fclose(f);
        if (got < sizeof hd || memcmp(hd, "SQLite format 3", 16) != 0) {
            etp_error_set(err, ETP_E_INPUT, path, 0, "header",
                          got < sizeof hd ? "%zu bytes: too short for an SQLite database (an "
                                            "etprof history is one); left as it is"
                                          : "not an SQLite database (an etprof history is one); "
                                            "left as it is",
                          got);
            rc = ETP_E_INPUT;
            goto fail;
        }
    }
    if (sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        rc = db_error(h, err, "cannot open");
        goto fail;
    }
    sqlite3_busy_timeout(h->db, 30000);
    if (existed && st.st_size > 0) {
        int64_t app = 0, ntab = 0;
        /* read the identity inside a write transaction: it waits (busy timeout) for a writer
         * that is creating the file at this moment, and so never sees its tables without the
         * application_id it sets in the same transaction */
        if ((rc = exec(h, "BEGIN IMMEDIATE", err))) goto fail;
        if ((rc = pragma_int(h, "PRAGMA application_id", &app, err)) ||
            (app != HISTORY_APP_ID &&
             (rc = pragma_int(h, "SELECT count(*) FROM sqlite_master", &ntab, err)))) {
            sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
            goto fail;
        }
        sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL);
        if (app != HISTORY_APP_ID && (app != 0 || ntab != 0)) {
            etp_error_set(err, ETP_E_INPUT, path, 68, "application_id",
                          "an SQLite database of another application (application_id 0x%08llx, "
                          "%lld table(s)), not an etprof history (0x%08x); left as it is",
                          (unsigned long long)(uint32_t)app, (long long)ntab, HISTORY_APP_ID);
            rc = ETP_E_INPUT;
            goto fail;
        }
        if ((rc = quick_check(h, err))) goto fail;
    }
    /* WAL: readers do not block the writer, and a writer waits (busy timeout) for another */
    if ((rc = exec(h, "PRAGMA journal_mode=WAL", err))) goto fail;
    if ((rc = exec(h, "PRAGMA foreign_keys=ON", err))) goto fail;
    if ((rc = init_schema(h, err))) goto fail;
    *out = h;
    return ETP_OK;
fail:
    etp_history_close(h);
    return rc;
}

void etp_history_close(etp_history *h) {
    if (!h) return;
    if (h->db) sqlite3_close(h->db);
    free(h);
}

/* ---------------------------------------------------------------------------------------------
 * Add
 * ------------------------------------------------------------------------------------------- */

typedef struct stmts {
    sqlite3_stmt *entry, *label, *method, *run, *op;
} stmts;

static void bind_text(sqlite3_stmt *s, int i, const char *v) {
    if (v) sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(s, i);
}

static void bind_real(sqlite3_stmt *s, int i, double v) {
    if (isnan(v)) sqlite3_bind_null(s, i);
    else sqlite3_bind_double(s, i, v);
}

static bool step_done(sqlite3_stmt *s) {
    int r = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return r == SQLITE_DONE;
}

static int cmp_label(const void *a, const void *b) {
    return strcmp(((const etp_label *)a)->key, ((const etp_label *)b)->key);
}

/* "k=v,k=v" in key order (the later of two equal keys wins), in a malloc'd string */
static char *labels_text(const etp_fleet_opts *o, etp_label *sorted, size_t *ns) {
    size_t n = o ? o->nlabels : 0, len = 1, k = 0;
    for (size_t i = 0; i < n; i++) {
        bool later = false;
        for (size_t j = i + 1; j < n; j++) later |= strcmp(o->labels[i].key, o->labels[j].key) == 0;
        if (later) continue;
        sorted[k++] = o->labels[i];
        len += strlen(o->labels[i].key) + strlen(o->labels[i].value) + 2;
    }
    qsort(sorted, k, sizeof *sorted, cmp_label);
    char *s = malloc(len);
    if (!s) return NULL;
    s[0] = 0;
    size_t w = 0;
    for (size_t i = 0; i < k; i++)
        w += (size_t)sprintf(s + w, "%s%s=%s", i ? "," : "", sorted[i].key, sorted[i].value);
    *ns = k;
    return s;
}

static void method_shares(const etp_ops_method *m, double *del, double *cpu) {
    *del = *cpu = NAN;
    for (uint32_t i = 0; i < m->n_parts; i++) {
        const etp_ops_part *p = &m->parts[i];
        if (p->place == ETP_PLACE_DELEGATE) *del = (isnan(*del) ? 0 : *del) + p->share;
        else if (p->place == ETP_PLACE_CPU) *cpu = p->share;
    }
}

static int add_one(etp_history *h, stmts *s, const fleet_file *f, const fleet_prog *p,
                   const etp_fleet_opts *o, int64_t *id, etp_error *err) {
    etp_label sorted[64];
    size_t ns = 0;
    etp_fleet_opts lo = *o;
    if (lo.nlabels > 64) lo.nlabels = 64;
    char *lt = labels_text(&lo, sorted, &ns);
    if (!lt) {
        etp_error_set(err, ETP_E_INTERNAL, h->path, -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    char now[32];
    fleet_iso_time((int64_t)time(NULL), now);
    const char *captured = fleet_label(o, "captured");
    const char *device = fleet_label(o, "device");
    int rc = exec(h, "BEGIN IMMEDIATE", err);
    if (rc) {
        free(lt);
        return rc;
    }
    sqlite3_stmt *e = s->entry;
    bind_text(e, 1, now);
    bind_text(e, 2, captured ? captured : f->mtime[0] ? f->mtime : now);
    bind_text(e, 3, f->path);
    bind_text(e, 4, f->sha);
    sqlite3_bind_int64(e, 5, (sqlite3_int64)f->bytes);
    bind_text(e, 6, p->path);
    bind_text(e, 7, p->sha);
    bind_text(e, 8, device ? device : "");
    bind_text(e, 9, lt);
    free(lt);
    if (!step_done(e)) goto dberr;
    *id = sqlite3_last_insert_rowid(h->db);
    for (size_t i = 0; i < ns; i++) {
        sqlite3_bind_int64(s->label, 1, *id);
        bind_text(s->label, 2, sorted[i].key);
        bind_text(s->label, 3, sorted[i].value);
        if (!step_done(s->label)) goto dberr;
    }
    size_t nm = etp_ops_method_count(f->ops);
    for (size_t mi = 0; mi < nm; mi++) {
        const etp_ops_method *m = etp_ops_method_get(f->ops, mi);
        const etp_runs_method *rm = NULL;
        for (size_t k = 0; k < etp_runs_method_count(f->runs); k++)
            if (etp_runs_method_get(f->runs, k)->method == mi) rm = etp_runs_method_get(f->runs, k);
        double del, cpu;
        method_shares(m, &del, &cpu);
        char be[256];
        sqlite3_stmt *q = s->method;
        sqlite3_bind_int64(q, 1, *id);
        sqlite3_bind_int64(q, 2, (sqlite3_int64)mi);
        bind_text(q, 3, m->name ? m->name : "");
        bind_text(q, 4, etp_unit_name(m->unit));
        sqlite3_bind_int64(q, 5, m->runs);
        sqlite3_bind_int64(q, 6, rm ? rm->warmup_runs : 0);
        sqlite3_bind_int64(q, 7, rm ? rm->steady_runs : 0);
        bind_real(q, 8, m->latency.min);
        bind_real(q, 9, m->latency.p50);
        bind_real(q, 10, m->latency.p90);
        bind_real(q, 11, m->latency.max);
        bind_real(q, 12, m->latency.avg);
        bind_real(q, 13, del);
        bind_real(q, 14, cpu);
        bind_real(q, 15, rm ? rm->tokens_per_second : NAN);
        bind_text(q, 16, fleet_backends(m, be, sizeof be));
        if (!step_done(q)) goto dberr;
    }
    for (size_t i = 0; i < etp_runs_row_count(f->runs); i++) {
        const etp_runs_row *r = etp_runs_row_get(f->runs, i);
        sqlite3_stmt *q = s->run;
        sqlite3_bind_int64(q, 1, *id);
        sqlite3_bind_int64(q, 2, r->method);
        sqlite3_bind_int64(q, 3, r->run);
        sqlite3_bind_int64(q, 4, r->block);
        bind_text(q, 5, etp_unit_name(r->unit));
        bind_real(q, 6, r->execute);
        bind_real(q, 7, r->delegate);
        bind_real(q, 8, r->cpu);
        bind_real(q, 9, r->framework);
        sqlite3_bind_int(q, 10, r->warmup);
        sqlite3_bind_int(q, 11, r->outlier);
        if (!step_done(q)) goto dberr;
    }
    for (size_t i = 0; i < etp_ops_row_count(f->ops); i++) {
        const etp_ops_row *r = etp_ops_row_get(f->ops, i);
        sqlite3_stmt *q = s->op;
        sqlite3_bind_int64(q, 1, *id);
        sqlite3_bind_int64(q, 2, (sqlite3_int64)i);
        sqlite3_bind_int64(q, 3, r->method);
        sqlite3_bind_int64(q, 4, r->parent);
        sqlite3_bind_int64(q, 5, r->chain);
        sqlite3_bind_int64(q, 6, r->instr);
        bind_text(q, 7, etp_ops_row_kind_name(r));
        bind_text(q, 8, r->name);
        bind_text(q, 9, r->op);
        bind_text(q, 10, r->placement);
        bind_text(q, 11, etp_unit_name(r->unit));
        sqlite3_bind_int64(q, 12, (sqlite3_int64)r->count);
        sqlite3_bind_int64(q, 13, r->runs);
        bind_real(q, 14, r->stats.min);
        bind_real(q, 15, r->stats.p50);
        bind_real(q, 16, r->stats.p90);
        bind_real(q, 17, r->stats.max);
        bind_real(q, 18, r->stats.avg);
        bind_real(q, 19, r->stats.total);
        bind_real(q, 20, r->excl.p50);
        bind_real(q, 21, r->share);
        if (!step_done(q)) goto dberr;
    }
    return exec(h, "COMMIT", err);
dberr:
    rc = db_error(h, err, "adding an entry");
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int etp_history_add(etp_history *h, const char *const *dumps, size_t n, const etp_fleet_opts *o,
                    int64_t *ids, size_t *done, etp_error *err) {
    etp_fleet_opts def = {0};
    if (!o) o = &def;
    if (done) *done = 0;
    stmts s = {0};
    fleet_prog p;
    int rc = fleet_prog_open(&p, o->pte, err);
    if (rc) return rc;
    static const char entry_sql[] =
        "INSERT INTO entry(added_at, captured_at, dump_path, dump_sha256, dump_bytes, "
        "program_path, program_sha256, device, labels) VALUES(?,?,?,?,?,?,?,?,?)";
    const char *sql[5] = {
        entry_sql,
        "INSERT INTO label(entry_id, key, value) VALUES(?,?,?)",
        "INSERT INTO method VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        "INSERT INTO run VALUES(?,?,?,?,?,?,?,?,?,?,?)",
        "INSERT INTO op VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    };
    sqlite3_stmt **sp[5] = {&s.entry, &s.label, &s.method, &s.run, &s.op};
    for (int i = 0; i < 5 && !rc; i++)
        if (sqlite3_prepare_v2(h->db, sql[i], -1, sp[i], NULL) != SQLITE_OK)
            rc = db_error(h, err, "preparing");
    for (size_t i = 0; i < n && !rc; i++) {
        fleet_file f;
        if ((rc = fleet_file_open(&f, dumps[i], &p, o->method, err))) break;
        int64_t id = 0;
        rc = add_one(h, &s, &f, &p, o, &id, err);
        fleet_file_close(&f);
        if (!rc) {
            if (ids) ids[i] = id;
            if (done) *done = i + 1;
        }
    }
    for (int i = 0; i < 5; i++) sqlite3_finalize(*sp[i]);
    fleet_prog_close(&p);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * List
 * ------------------------------------------------------------------------------------------- */

struct etp_history_list {
    etp_history_entry *e;
    char **strs; /* every string, freed with the list */
    size_t n, cap, ns, scap;
};

static const char *keep(etp_history_list *l, const unsigned char *s, bool *oom) {
    if (l->ns == l->scap) {
        size_t cap = l->scap ? l->scap * 2 : 256;
        char **p = realloc(l->strs, cap * sizeof *p);
        if (!p) {
            *oom = true;
            return "";
        }
        l->strs = p;
        l->scap = cap;
    }
    char *d = strdup(s ? (const char *)s : "");
    if (!d) {
        *oom = true;
        return "";
    }
    l->strs[l->ns++] = d;
    return d;
}

static double col_real(sqlite3_stmt *s, int i) {
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

static etp_unit unit_parse(const char *s) {
    for (int u = 1; u < ETP_UNIT_COUNT_; u++)
        if (strcmp(etp_unit_name((etp_unit)u), s) == 0) return (etp_unit)u;
    return ETP_UNIT_NONE;
}

int etp_history_list_get(etp_history *h, int64_t entry_id, etp_history_list **out, etp_error *err) {
    *out = NULL;
    etp_history_list *l = calloc(1, sizeof *l);
    if (!l) {
        etp_error_set(err, ETP_E_INTERNAL, h->path, -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    sqlite3_stmt *s = NULL;
    const char *sql =
        "SELECT e.id, m.method, e.added_at, e.captured_at, e.dump_path, e.dump_sha256, "
        "e.program_sha256, m.name, e.device, e.labels, m.runs, m.warmup_runs, m.steady_runs, "
        "m.unit, m.latency_p50, m.latency_p90, m.delegate_share_pct, m.cpu_share_pct, "
        "m.tokens_per_second FROM entry e JOIN method m ON m.entry_id = e.id "
        "WHERE ?1 <= 0 OR e.id = ?1 ORDER BY e.id, m.method";
    int rc = ETP_OK;
    bool oom = false;
    if (sqlite3_prepare_v2(h->db, sql, -1, &s, NULL) != SQLITE_OK) {
        rc = db_error(h, err, "listing");
        goto done;
    }
    sqlite3_bind_int64(s, 1, entry_id);
    int r;
    while ((r = sqlite3_step(s)) == SQLITE_ROW) {
        if (l->n == l->cap) {
            size_t cap = l->cap ? l->cap * 2 : 64;
            etp_history_entry *p = realloc(l->e, cap * sizeof *p);
            if (!p) {
                oom = true;
                break;
            }
            l->e = p;
            l->cap = cap;
        }
        etp_history_entry *e = &l->e[l->n++];
        e->id = sqlite3_column_int64(s, 0);
        e->method_index = (uint32_t)sqlite3_column_int64(s, 1);
        e->added_at = keep(l, sqlite3_column_text(s, 2), &oom);
        e->captured_at = keep(l, sqlite3_column_text(s, 3), &oom);
        e->dump_path = keep(l, sqlite3_column_text(s, 4), &oom);
        e->dump_sha256 = keep(l, sqlite3_column_text(s, 5), &oom);
        e->program_sha256 = keep(l, sqlite3_column_text(s, 6), &oom);
        e->method = keep(l, sqlite3_column_text(s, 7), &oom);
        e->device = keep(l, sqlite3_column_text(s, 8), &oom);
        e->labels = keep(l, sqlite3_column_text(s, 9), &oom);
        e->runs = (uint32_t)sqlite3_column_int64(s, 10);
        e->warmup_runs = (uint32_t)sqlite3_column_int64(s, 11);
        e->steady_runs = (uint32_t)sqlite3_column_int64(s, 12);
        e->unit = unit_parse((const char *)sqlite3_column_text(s, 13));
        e->p50 = col_real(s, 14);
        e->p90 = col_real(s, 15);
        e->delegate_share = col_real(s, 16);
        e->cpu_share = col_real(s, 17);
        e->tokens_per_second = col_real(s, 18);
        if (oom) break;
    }
    if (oom) {
        etp_error_set(err, ETP_E_INTERNAL, h->path, -1, "", "out of memory");
        rc = ETP_E_INTERNAL;
    } else if (r != SQLITE_DONE) {
        rc = db_error(h, err, "listing");
    }
done:
    sqlite3_finalize(s);
    if (rc) {
        etp_history_list_free(l);
        return rc;
    }
    *out = l;
    return ETP_OK;
}

void etp_history_list_free(etp_history_list *l) {
    if (!l) return;
    for (size_t i = 0; i < l->ns; i++) free(l->strs[i]);
    free(l->strs);
    free(l->e);
    free(l);
}

size_t etp_history_list_count(const etp_history_list *l) { return l ? l->n : 0; }
const etp_history_entry *etp_history_list_entry(const etp_history_list *l, size_t i) {
    return l && i < l->n ? &l->e[i] : NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Series
 * ------------------------------------------------------------------------------------------- */

static const char *const metric_names[ETP_HM_COUNT_] = {"latency", "delegate", "cpu", "framework"};
static const char *const metric_cols[ETP_HM_COUNT_] = {"execute", "delegate", "cpu", "framework"};

const char *etp_history_metric_name(etp_history_metric m) {
    return (unsigned)m < ETP_HM_COUNT_ ? metric_names[m] : "?";
}

int etp_history_metric_parse(const char *s, etp_history_metric *out) {
    for (int i = 0; i < ETP_HM_COUNT_; i++)
        if (s && strcmp(s, metric_names[i]) == 0) {
            *out = (etp_history_metric)i;
            return ETP_OK;
        }
    return ETP_E_USAGE;
}

struct etp_history_trend {
    etp_history_list *list;
    etp_history_series *series;
    size_t nseries;
    etp_history_point *points; /* every series' points, series after series */
    etp_diff_opts o;
};

typedef struct pt_ref {
    size_t entry;  /* index in the list */
    size_t series; /* series index */
} pt_ref;

static int cmp_pt(const void *a, const void *b, void *ctx) {
    const pt_ref *x = a, *y = b;
    const etp_history_list *l = ctx;
    if (x->series != y->series) return x->series < y->series ? -1 : 1;
    const etp_history_entry *ex = &l->e[x->entry], *ey = &l->e[y->entry];
    int c = strcmp(ex->captured_at, ey->captured_at);
    if (c) return c;
    return ex->id < ey->id ? -1 : ex->id > ey->id;
}

static bool same_series(const etp_history_entry *a, const etp_history_entry *b) {
    return strcmp(a->program_sha256, b->program_sha256) == 0 && strcmp(a->method, b->method) == 0 &&
           strcmp(a->device, b->device) == 0 && a->unit == b->unit;
}

/* the metric's steady-run values of one (entry, method), appended to *v (grown) */
static int run_values(etp_history *h, sqlite3_stmt *s, const etp_history_entry *e, double **v,
                      size_t *n, size_t *cap, etp_error *err) {
    sqlite3_bind_int64(s, 1, e->id);
    sqlite3_bind_int64(s, 2, e->method_index);
    int r;
    while ((r = sqlite3_step(s)) == SQLITE_ROW) {
        if (*n == *cap) {
            size_t c = *cap ? *cap * 2 : 256;
            double *p = realloc(*v, c * sizeof *p);
            if (!p) {
                sqlite3_reset(s);
                etp_error_set(err, ETP_E_INTERNAL, h->path, -1, "", "out of memory");
                return ETP_E_INTERNAL;
            }
            *v = p;
            *cap = c;
        }
        (*v)[(*n)++] = sqlite3_column_double(s, 0);
    }
    sqlite3_reset(s);
    if (r != SQLITE_DONE) return db_error(h, err, "reading runs");
    return ETP_OK;
}

/* "qsort_r" without a GNU extension: a plain insertion-merge would do; entries are few */
static void sort_pts(pt_ref *p, size_t n, const etp_history_list *l) {
    for (size_t i = 1; i < n; i++) {
        pt_ref x = p[i];
        size_t j = i;
        while (j > 0 && cmp_pt(&p[j - 1], &x, (void *)l) > 0) {
            p[j] = p[j - 1];
            j--;
        }
        p[j] = x;
    }
}

int etp_history_trend_get(etp_history *h, etp_history_metric m, const etp_diff_opts *o,
                          etp_history_trend **out, etp_error *err) {
    *out = NULL;
    if ((unsigned)m >= ETP_HM_COUNT_) {
        etp_error_set(err, ETP_E_USAGE, "", -1, "--metric", "unknown metric");
        return ETP_E_USAGE;
    }
    etp_history_trend *t = calloc(1, sizeof *t);
    if (!t) {
        etp_error_set(err, ETP_E_INTERNAL, h->path, -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    if (o) t->o = *o;
    else etp_diff_opts_init(&t->o);
    int rc = etp_history_list_get(h, 0, &t->list, err);
    sqlite3_stmt *s = NULL;
    pt_ref *refs = NULL;
    double *v = NULL;
    size_t *ends = NULL;
    if (rc) goto done;
    size_t n = t->list->n;
    refs = malloc((n + 1) * sizeof *refs);
    t->series = calloc(n + 1, sizeof *t->series);
    t->points = calloc(n + 1, sizeof *t->points);
    ends = calloc(n + 1, sizeof *ends);
    if (!refs || !t->series || !t->points || !ends) {
        etp_error_set(err, ETP_E_INTERNAL, h->path, -1, "", "out of memory");
        rc = ETP_E_INTERNAL;
        goto done;
    }
    /* series in order of their first entry */
    for (size_t i = 0; i < n; i++) {
        const etp_history_entry *e = &t->list->e[i];
        size_t k = 0;
        while (k < t->nseries && !same_series(t->list->e + ends[k], e)) k++;
        if (k == t->nseries) {
            ends[k] = i; /* the series' first entry */
            t->series[k].program_sha256 = e->program_sha256;
            t->series[k].method = e->method;
            t->series[k].device = e->device;
            t->series[k].unit = e->unit;
            t->nseries++;
        }
        refs[i].entry = i;
        refs[i].series = k;
    }
    sort_pts(refs, n, t->list);
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT %s FROM run WHERE entry_id = ?1 AND method = ?2 AND warmup = 0 AND %s IS "
             "NOT NULL ORDER BY run",
             metric_cols[m], metric_cols[m]);
    if (sqlite3_prepare_v2(h->db, sql, -1, &s, NULL) != SQLITE_OK) {
        rc = db_error(h, err, "reading runs");
        goto done;
    }
    size_t vn = 0, vcap = 0, start = 0; /* v: the current series' values, point after point */
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && refs[i].series != refs[i - 1].series) {
            vn = 0;
            start = i;
        }
        etp_history_point *pt = &t->points[i];
        etp_history_series *se = &t->series[refs[i].series];
        if (i == start) se->points = pt;
        se->npoints++;
        pt->entry = &t->list->e[refs[i].entry];
        size_t before = vn;
        if ((rc = run_values(h, s, pt->entry, &v, &vn, &vcap, err))) goto done;
        pt->runs = (uint32_t)(vn - before);
        etp_stats st;
        double *tmp = malloc((pt->runs + 1) * sizeof *tmp);
        if (!tmp) {
            etp_error_set(err, ETP_E_INTERNAL, h->path, -1, "", "out of memory");
            rc = ETP_E_INTERNAL;
            goto done;
        }
        memcpy(tmp, v + before, pt->runs * sizeof *tmp);
        etp_stats_compute(tmp, pt->runs, &st);
        free(tmp);
        pt->p50 = st.p50;
        pt->runs_before = (uint32_t)before;
        pt->compared = i > start;
        if (pt->compared &&
            (rc = etp_diff_compare_samples(v, before, v + before, pt->runs, &t->o, &pt->cmp))) {
            etp_error_set(err, rc, h->path, -1, "", "out of memory");
            goto done;
        }
    }
done:
    sqlite3_finalize(s);
    free(refs);
    free(v);
    free(ends);
    if (rc) {
        etp_history_trend_free(t);
        return rc;
    }
    *out = t;
    return ETP_OK;
}

void etp_history_trend_free(etp_history_trend *t) {
    if (!t) return;
    etp_history_list_free(t->list);
    free(t->series);
    free(t->points);
    free(t);
}

size_t etp_history_series_count(const etp_history_trend *t) { return t ? t->nseries : 0; }
const etp_history_series *etp_history_series_get(const etp_history_trend *t, size_t i) {
    return t && i < t->nseries ? &t->series[i] : NULL;
}

void etp_history_gate(const etp_history_trend *t, etp_diff_overall *out) {
    size_t n = t ? t->nseries : 0;
    etp_diff_gate *rows = calloc(n + 1, sizeof *rows);
    const char **names = calloc(n + 1, sizeof *names);
    char *nb = calloc(n + 1, 160);
    if (!rows || !names || !nb) { /* out of memory: nothing judged, said as such */
        memset(out, 0, sizeof *out);
        out->outcome = ETP_DIFF_INCONCLUSIVE;
        out->first = -1;
        snprintf(out->reason, sizeof out->reason, "out of memory: no series judged");
        free(rows);
        free(names);
        free(nb);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const etp_history_series *s = &t->series[i];
        const etp_history_point *last = &s->points[s->npoints - 1];
        if (!last->compared) {
            rows[i].outcome = ETP_DIFF_NOT_COMPARED;
            rows[i].reason = ETP_DR_ONE_SIDE;
        } else {
            rows[i] = last->cmp.gate;
        }
        snprintf(nb + 160 * i, 160, "%.60s%s%.60s", s->method[0] ? s->method : "(unnamed)",
                 s->device[0] ? " on " : "", s->device);
        names[i] = nb + 160 * i;
    }
    etp_diff_gate_overall(rows, names, n, out);
    free(rows);
    free(names);
    free(nb);
}
