/*
 * _etprof.c - the CPython extension module behind the `etprof` Python package (docs/python.md).
 *
 * Written against the public API of libetprof only (include/etprof.h): CMake's build links the
 * shared library libetprof.so.0, which exports nothing else; `pip install ./python` compiles the
 * library's sources into this module instead (python/setup.py), hidden. One type,
 * _etprof.Profile, holds the mapped files, the verified dump and program, the model and
 * (computed once, on first use) the ops result. Tables the library builds as etp_table (ops,
 * events) leave through one converter (tabacc: etp_table_column, whole columns as bytes and
 * lists); the Python layer (etprof/__init__.py, _frame) turns them into DataFrames.
 *
 * Errors of the library (etp_error) become etprof.InputError / UsageError / IOError /
 * InternalError with the fields .file, .offset, .path, .reason and .exit_code.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <math.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etprof.h"
#include "etprof_inspector.h"
#include "etprof_runs.h"
#include "etprof_explain.h"
#include "etprof_qnn.h"
#include "etprof_etrecord.h"
#include "etprof_tensor.h"
#include "etprof_tree.h"
#include "etprof_modules.h"
#include "etprof_bundled.h"
#include "etprof_backend.h"
#include "etprof_arm_pmu.h"
#include "etprof_explain_doc.h"
#include "etprof_session.h"
#include "etprof_figures.h"
#include "etprof_result.h"
#include "etprof_events.h"

#ifndef ETPROF_VERSION_STR
#define ETPROF_VERSION_STR "unknown"
#endif

static PyObject *Error, *InputError, *UsageError, *IOErr, *InternalError;

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                     */

/* Text from the library or from a (possibly hostile) file: never fails on bad UTF-8. */
static PyObject *text(const char *s) {
    if (!s) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

static PyObject *raise_etp(int rc, const etp_error *err) {
    PyObject *type = rc == ETP_E_INPUT   ? InputError
                     : rc == ETP_E_USAGE ? UsageError
                     : rc == ETP_E_IO    ? IOErr
                                         : InternalError;
    char line[ETP_ERR_FILE_MAX + ETP_ERR_PATH_MAX + ETP_ERR_MSG_MAX + 64];
    etp_error_format(err, line, sizeof line);
    PyObject *msg = text(line);
    if (!msg) return NULL;
    PyObject *exc = PyObject_CallOneArg(type, msg);
    Py_DECREF(msg);
    if (!exc) return NULL;
    PyObject *file = err->file[0] ? PyUnicode_DecodeFSDefault(err->file) : (Py_INCREF(Py_None), Py_None);
    PyObject *off = err->offset >= 0 ? PyLong_FromLongLong(err->offset) : (Py_INCREF(Py_None), Py_None);
    PyObject *path = err->path[0] ? text(err->path) : (Py_INCREF(Py_None), Py_None);
    PyObject *reason = text(err->msg);
    PyObject *code = PyLong_FromLong(etp_exit_code(rc));
    if (!file || !off || !path || !reason || !code || PyObject_SetAttrString(exc, "file", file) ||
        PyObject_SetAttrString(exc, "offset", off) || PyObject_SetAttrString(exc, "path", path) ||
        PyObject_SetAttrString(exc, "reason", reason) ||
        PyObject_SetAttrString(exc, "exit_code", code)) {
        Py_XDECREF(file);
        Py_XDECREF(off);
        Py_XDECREF(path);
        Py_XDECREF(reason);
        Py_XDECREF(code);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(file);
    Py_DECREF(off);
    Py_DECREF(path);
    Py_DECREF(reason);
    Py_DECREF(code);
    PyErr_SetObject(type, exc);
    Py_DECREF(exc);
    return NULL;
}

static PyObject *raise_usage(const char *fmt, const char *arg) {
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_error_set(&err, ETP_E_USAGE, NULL, -1, NULL, fmt, arg);
    return raise_etp(ETP_E_USAGE, &err);
}

/* ------------------------------------------------------------------------------------------ */
/* Profile                                                                                    */

typedef struct {
    PyObject_HEAD
    etp_blob dump_blob, pte_blob;
    bool have_dump_blob, have_pte_blob;
    etp_dump *dump;
    etp_program *prog;
    etp_model *model;
    etp_ops_result *ops;
    PyObject *etdump_path, *pte_path, *method; /* as given (str / None; etdump "<bytes>") */
    /* a dump given as bytes: the object is kept (immutable, so the verified bytes stay as they
     * were verified) and its buffer borrowed by dump_blob */
    PyObject *dump_bytes;
    Py_buffer dump_view;
    bool have_view;
    /* a program given as bytes: kept and borrowed by pte_blob, as the dump */
    PyObject *pte_bytes;
    Py_buffer pte_view;
    bool have_pte_view;
    uint32_t skip_first;
    char *block; /* ops --block, NULL: the Execute blocks */
    double tick_ns; /* as given to the model */
    /* the debug buffer (tensors, compare): mapped from a path, or borrowed from a bytes object
     * kept here (other buffers are copied into one first, as the dump) */
    etp_blob dbuf_blob;
    bool have_dbuf_blob, have_dbuf_view;
    PyObject *dbuf_bytes, *dbuf_path; /* dbuf_path: str as given, "<debug_buffer>" or None */
    Py_buffer dbuf_view;
    etp_etrecord *rec;  /* etrecord=: the ETRecord joined to ops rows, or NULL */
    PyObject *rec_path; /* str as given, or None */
    /* qhas=, optrace=, runtrace=, heap=: QNN's own files, loaded at open (etprof_qnn.h) */
    etp_qnn_bundle qb;
    bool have_qb;
    PyObject *qnn_paths; /* dict of the four paths as given (None when absent) */
    /* runner_log=: the Arm runner's log apart from the dump (etprof_arm_pmu.h): its PMU report
     * and VGF device times */
    etp_runner_log rlog;
    bool have_pmu_given;
    /* Set (with the GIL held) while a library call runs without the GIL on this Profile's
     * state: every other entry point then refuses with UsageError instead of touching it
     * (the library's objects are used by one thread at a time: etprof.h). */
    int busy;
} Profile;

static const etp_arm_pmu_report *profile_pmu(const Profile *p);

/* Entry check of every method that touches the library state. */
static PyObject *raise_usage(const char *fmt, const char *arg);
static int busy_error(const Profile *p) {
    if (!p->busy) return 0;
    raise_usage("this etprof.Profile is busy in another thread (a long library call is running "
                "without the GIL)%s",
                "; use one Profile per thread, or wait for that call to return");
    return -1;
}

/* Runs `stmt` (C only: no Python object is touched) without the GIL, with p marked busy. */
#define WITHOUT_GIL(p, stmt)                                                                    \
    do {                                                                                        \
        PyThreadState *etp_save_;                                                               \
        (p)->busy++;                                                                            \
        etp_save_ = PyEval_SaveThread();                                                        \
        stmt;                                                                                   \
        PyEval_RestoreThread(etp_save_);                                                        \
        (p)->busy--;                                                                            \
    } while (0)

static void profile_release(Profile *p) {
    etp_runner_log_free(&p->rlog);
    p->have_pmu_given = false;
    etp_ops_free(p->ops);
    p->ops = NULL;
    etp_model_close(p->model);
    p->model = NULL;
    etp_dump_close(p->dump);
    p->dump = NULL;
    etp_program_close(p->prog);
    p->prog = NULL;
    if (p->have_dump_blob) etp_blob_close(&p->dump_blob);
    if (p->have_pte_blob) etp_blob_close(&p->pte_blob);
    p->have_dump_blob = p->have_pte_blob = false;
    if (p->have_view) PyBuffer_Release(&p->dump_view);
    p->have_view = false;
    Py_CLEAR(p->dump_bytes);
    if (p->have_pte_view) PyBuffer_Release(&p->pte_view);
    p->have_pte_view = false;
    Py_CLEAR(p->pte_bytes);
    if (p->have_dbuf_blob) etp_blob_close(&p->dbuf_blob);
    p->have_dbuf_blob = false;
    if (p->have_dbuf_view) PyBuffer_Release(&p->dbuf_view);
    p->have_dbuf_view = false;
    Py_CLEAR(p->dbuf_bytes);
    etp_etrecord_close(p->rec);
    p->rec = NULL;
    if (p->have_qb) etp_qnn_bundle_free(&p->qb);
    p->have_qb = false;
    free(p->block);
    p->block = NULL;
}

static void Profile_dealloc(Profile *p) {
    profile_release(p);
    Py_XDECREF(p->etdump_path);
    Py_XDECREF(p->pte_path);
    Py_XDECREF(p->method);
    Py_XDECREF(p->dbuf_path);
    Py_XDECREF(p->rec_path);
    Py_XDECREF(p->qnn_paths);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

/* os.fsdecode-like: a str path from str / bytes / os.PathLike (NULL with an exception set). */
static PyObject *path_str(PyObject *o) {
    PyObject *b = NULL;
    if (!PyUnicode_FSConverter(o, &b)) return NULL;
    PyObject *s = PyUnicode_DecodeFSDefaultAndSize(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b));
    Py_DECREF(b);
    return s;
}

/* The debug buffer: a path (mapped), bytes (borrowed, kept alive) or another buffer (copied).
 * ETP_OK, an ETP_E_* code with *err filled (the file could not be opened), or ETP_OK with
 * *pyerr set and a Python exception. */
static int open_dbuf(Profile *p, PyObject *o, etp_error *err, bool *pyerr) {
    PyObject *content = NULL, *name;
    *pyerr = true;
    if (PyBytes_Check(o)) {
        Py_INCREF(o);
        content = o;
    } else if (PyObject_CheckBuffer(o)) {
        if (!(content = PyBytes_FromObject(o))) return 0;
    }
    name = content ? PyUnicode_FromString("<debug_buffer>") : path_str(o);
    if (!name) {
        Py_XDECREF(content);
        return 0;
    }
    Py_XSETREF(p->dbuf_path, name);
    if (content) {
        if (PyObject_GetBuffer(content, &p->dbuf_view, PyBUF_SIMPLE)) {
            Py_DECREF(content);
            return 0;
        }
        p->have_dbuf_view = true;
        p->dbuf_bytes = content;
        etp_blob_borrow(&p->dbuf_blob, p->dbuf_view.buf, (size_t)p->dbuf_view.len,
                        "<debug_buffer>");
        p->have_dbuf_blob = true;
        *pyerr = false;
        return etp_debug_buffer_check(&p->dbuf_blob, NULL, err);
    }
    PyObject *b = NULL;
    if (!PyUnicode_FSConverter(name, &b)) return 0;
    *pyerr = false;
    int rc = etp_blob_open_expect(&p->dbuf_blob, PyBytes_AS_STRING(b), ETP_EXPECT_DEBUG_BUFFER,
                                  err);
    Py_DECREF(b);
    p->have_dbuf_blob = rc == ETP_OK;
    return rc ? rc : etp_debug_buffer_check(&p->dbuf_blob, NULL, err);
}

/* qhas, optrace, runtrace, heap (each a path or None): recorded in p->qnn_paths and, when any
 * is given, loaded into p->qb. 0; or -1 with *rc the library's error (in *err) or 0 with a
 * Python exception set. */
static int load_qnn_files(Profile *p, PyObject *const qf[4], etp_error *err, int *rc) {
    static const char *const keys[4] = {"qhas", "optrace", "runtrace", "heap"};
    *rc = 0;
    PyObject *paths = PyDict_New(), *fs[4] = {NULL, NULL, NULL, NULL};
    if (!paths) return -1;
    Py_XSETREF(p->qnn_paths, paths);
    const char *cp[4] = {NULL, NULL, NULL, NULL};
    int res = -1;
    for (int k = 0; k < 4; k++) {
        PyObject *s = qf[k] == Py_None ? (Py_INCREF(Py_None), Py_None) : path_str(qf[k]);
        if (!s) goto done;
        int e = PyDict_SetItemString(paths, keys[k], s);
        if (!e && s != Py_None) {
            if (!PyUnicode_FSConverter(s, &fs[k])) e = -1;
            else cp[k] = PyBytes_AS_STRING(fs[k]);
        }
        Py_DECREF(s);
        if (e) goto done;
    }
    etp_qnn_paths qp = {cp[0], cp[1], cp[2], cp[3]};
    if (etp_qnn_paths_any(&qp)) {
        memset(&p->qb, 0, sizeof p->qb);
        int r;
        WITHOUT_GIL(p, r = etp_qnn_bundle_load(&qp, &p->qb, err));
        if ((*rc = r)) goto done;
        p->have_qb = true;
    }
    res = 0;
done:
    for (int k = 0; k < 4; k++) Py_XDECREF(fs[k]);
    return res;
}

/* The dump, the program and the model, after the dump's blob: C only (run without the GIL). */
/* `rate_given`: tick_hz, tick_ns or ticks was given; else the dump's default rate is taken
 * (etp_dump_default_tick_ns: ticks for a bare-metal runner's log), its reason in *why. */
static int open_rest(Profile *p, const char *pte, etp_model_opts *mo, bool rate_given,
                     const char **why, etp_error *err) {
    int rc = etp_dump_open(&p->dump, &p->dump_blob, err);
    if (!rc && !rate_given) p->tick_ns = mo->tick_ns = etp_dump_default_tick_ns(p->dump, why);
    if (!rc && pte && !p->have_pte_blob) {
        rc = etp_blob_open(&p->pte_blob, pte, err);
        p->have_pte_blob = rc == ETP_OK;
    }
    if (!rc && p->have_pte_blob) rc = etp_program_open(&p->prog, &p->pte_blob, err);
    if (!rc) rc = etp_model_open(&p->model, p->dump, p->prog, mo, err);
    return rc;
}

static int Profile_init(Profile *p, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"etdump", "pte", "method", "skip_first", "block", "tick_hz",
                             "ignore_program_mismatch", "ticks", "debug_buffer", "etrecord",
                             "qhas", "optrace", "runtrace", "heap", "tick_ns", NULL};
    PyObject *etdump = NULL, *pte = Py_None, *method = Py_None, *tick = Py_None;
    PyObject *tick_ratio = Py_None;
    PyObject *dbuf = Py_None, *etr = Py_None, *qf[4] = {Py_None, Py_None, Py_None, Py_None};
    Py_ssize_t skip = 0;
    const char *block = NULL;
    int ignore_mismatch = 0, ticks = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$OnzOppOOOOOOO:Profile", kwlist, &etdump,
                                     &pte, &method, &skip, &block, &tick, &ignore_mismatch,
                                     &ticks, &dbuf, &etr, &qf[0], &qf[1], &qf[2], &qf[3],
                                     &tick_ratio))
        return -1;
    if (busy_error(p)) return -1;
    /* ETPROF_MEMORY_BUDGET that does not parse or overflows: the default is kept, said once per
     * Profile as a RuntimeWarning (the command's warning line) */
    char budget_warning[256];
    etp_memory_budget(budget_warning, sizeof budget_warning);
    if (*budget_warning && PyErr_WarnEx(PyExc_RuntimeWarning, budget_warning, 1) < 0) return -1;
    if (p->have_dump_blob || p->dump) {
        PyErr_SetString(PyExc_RuntimeError, "Profile is already open");
        return -1;
    }
    if (method != Py_None && !PyUnicode_Check(method)) {
        PyErr_SetString(PyExc_TypeError, "method must be a str or None");
        return -1;
    }
    if (skip < 0 || (uint64_t)skip > UINT32_MAX) {
        char v[32];
        snprintf(v, sizeof v, "%zd", skip);
        raise_usage("skip_first: expected a number of runs >= 0, got %s", v);
        return -1;
    }
    double tick_ns = 1; /* etp_model_opts_init's default: ns ticks (Linux) */
    if (tick != Py_None) {
        double hz = PyFloat_AsDouble(tick);
        if (hz == -1 && PyErr_Occurred()) return -1;
        if (!(hz > 0) || isinf(hz)) {
            char v[32];
            snprintf(v, sizeof v, "%g", hz);
            raise_usage("tick_hz: expected a positive frequency in Hz, got %s", v);
            return -1;
        }
        tick_ns = 1e9 / hz;
    }
    if (tick_ratio != Py_None) { /* --tick-ns: nanoseconds per host tick */
        if (tick != Py_None) {
            raise_usage("tick_ns: nanoseconds per tick%s", " and tick_hz exclude each other");
            return -1;
        }
        double r = PyFloat_AsDouble(tick_ratio);
        if (r == -1 && PyErr_Occurred()) return -1;
        if (!(r > 0) || isinf(r)) {
            char v[32];
            snprintf(v, sizeof v, "%g", r);
            raise_usage("tick_ns: expected a positive number of nanoseconds per tick, got %s", v);
            return -1;
        }
        tick_ns = r;
    }
    if (ticks) {
        if (tick != Py_None || tick_ratio != Py_None) {
            raise_usage("ticks: host ticks of unknown rate%s",
                        " and tick_hz / tick_ns exclude each other");
            return -1;
        }
        tick_ns = 0; /* --ticks: host ticks of unknown rate, never converted */
    }
    PyObject *ds;
    PyObject *content = NULL; /* the dump's bytes, when given as bytes */
    if (PyBytes_Check(etdump)) {
        Py_INCREF(etdump);
        content = etdump;
    } else if (PyObject_CheckBuffer(etdump)) {
        /* bytearray, memoryview...: copied, since the caller could change them after the
         * verification (the accessors may rely only on verified bytes) */
        if (!(content = PyBytes_FromObject(etdump))) return -1;
    }
    if (content) ds = PyUnicode_FromString("<bytes>");
    else ds = path_str(etdump);
    if (!ds) {
        Py_XDECREF(content);
        return -1;
    }
    PyObject *ps = NULL, *pcontent = NULL; /* the program: a path, or its bytes */
    if (pte != Py_None && (PyBytes_Check(pte) || PyObject_CheckBuffer(pte))) {
        if (PyBytes_Check(pte)) {
            Py_INCREF(pte);
            pcontent = pte;
        } else if (!(pcontent = PyBytes_FromObject(pte))) {
            Py_DECREF(ds);
            Py_XDECREF(content);
            return -1;
        }
        if (!(ps = PyUnicode_FromString("<pte bytes>"))) {
            Py_DECREF(pcontent);
            Py_DECREF(ds);
            Py_XDECREF(content);
            return -1;
        }
    } else if (pte != Py_None && !(ps = path_str(pte))) {
        Py_DECREF(ds);
        Py_XDECREF(content);
        return -1;
    }
    if (pcontent) {
        if (PyObject_GetBuffer(pcontent, &p->pte_view, PyBUF_SIMPLE)) {
            Py_DECREF(pcontent);
            Py_DECREF(ps);
            Py_DECREF(ds);
            Py_XDECREF(content);
            return -1;
        }
        Py_XSETREF(p->pte_bytes, pcontent); /* the reference is the Profile's now */
        p->have_pte_view = true;
        etp_blob_borrow(&p->pte_blob, p->pte_view.buf, (size_t)p->pte_view.len, "<pte bytes>");
        p->have_pte_blob = true;
    }
    /* __init__ may run again after a failed open: replace, do not leak, what it recorded */
    Py_XSETREF(p->etdump_path, ds);
    Py_XSETREF(p->pte_path, ps ? ps : (Py_INCREF(Py_None), Py_None));
    Py_INCREF(method);
    Py_XSETREF(p->method, method);

    PyObject *db = NULL, *pb = NULL;
    if ((!content && !PyUnicode_FSConverter(ds, &db)) ||
        (ps && !pcontent && !PyUnicode_FSConverter(ps, &pb))) {
        Py_XDECREF(db);
        Py_XDECREF(content);
        return -1;
    }
    p->skip_first = (uint32_t)skip;
    if (block && !(p->block = strdup(block))) {
        Py_XDECREF(db);
        Py_XDECREF(pb);
        Py_XDECREF(content);
        PyErr_NoMemory();
        return -1;
    }
    const char *mname = method == Py_None ? NULL : PyUnicode_AsUTF8(method);
    if (method != Py_None && !mname) {
        Py_XDECREF(db);
        Py_XDECREF(pb);
        Py_XDECREF(content);
        return -1;
    }
    /* the order of the commands (tensors, compare: the debug buffer first; then src/cli/cli.c
     * open_inputs: dump, program, model) */
    etp_error err;
    memset(&err, 0, sizeof err);
    int rc = ETP_OK;
    if (dbuf != Py_None) {
        bool pyerr = false;
        rc = open_dbuf(p, dbuf, &err, &pyerr);
        if (pyerr) rc = ETP_OK; /* a Python exception is set: raised as it is */
        if (pyerr || rc) goto fail;
    } else {
        Py_INCREF(Py_None);
        Py_XSETREF(p->dbuf_path, Py_None);
    }
    /* the ETRecord next (etprof ops opens it before the dump) */
    PyObject *es = etr == Py_None ? (Py_INCREF(Py_None), Py_None) : path_str(etr);
    if (!es) goto fail;
    Py_XSETREF(p->rec_path, es);
    if (es != Py_None) {
        PyObject *eb = NULL;
        if (!PyUnicode_FSConverter(es, &eb)) goto fail;
        const char *ep = PyBytes_AS_STRING(eb);
        etp_etrecord *rec = NULL;
        WITHOUT_GIL(p, rc = etp_etrecord_open(&rec, ep, NULL, &err));
        p->rec = rc ? NULL : rec;
        Py_DECREF(eb);
        if (rc) goto fail;
    }
    /* QNN's files next (etprof qnn loads them before the dump) */
    if (load_qnn_files(p, qf, &err, &rc)) goto fail;
    if (content) {
        if (PyObject_GetBuffer(content, &p->dump_view, PyBUF_SIMPLE)) {
            Py_XDECREF(pb);
            Py_DECREF(content);
            return -1;
        }
        p->have_view = true;
        p->dump_bytes = content; /* the reference is the Profile's now */
        etp_blob_borrow(&p->dump_blob, p->dump_view.buf, (size_t)p->dump_view.len, "<bytes>");
        p->have_dump_blob = true;
    } else {
        const char *dp = PyBytes_AS_STRING(db);
        WITHOUT_GIL(p, rc = etp_blob_open(&p->dump_blob, dp, &err));
        p->have_dump_blob = rc == ETP_OK;
    }
    etp_model_opts mo;
    etp_model_opts_init(&mo);
    mo.method = mname;
    mo.tick_ns = tick_ns;
    p->tick_ns = tick_ns;
    mo.ignore_program_mismatch = ignore_mismatch != 0;
    mo.dump_name = p->dump_blob.name;
    const char *pp = pb ? PyBytes_AS_STRING(pb) : NULL;
    /* verification and the model: the long part of an open, without the GIL (the bytes,
     * paths and names used are owned by p or by this call) */
    const char *why = NULL;
    bool rate_given = tick != Py_None || tick_ratio != Py_None || ticks;
    if (!rc) WITHOUT_GIL(p, rc = open_rest(p, pp, &mo, rate_given, &why, &err));
    Py_XDECREF(db);
    Py_XDECREF(pb);
    if (why && PyErr_WarnFormat(PyExc_UserWarning, 1, "%s: %s", p->dump_blob.name, why) < 0)
        return -1;
    if (rc) {
        profile_release(p);
        raise_etp(rc, &err);
        return -1;
    }
    return 0;

fail: /* before the dump is opened: rc set = a library error to raise, else a Python one is set */
    Py_XDECREF(db);
    Py_XDECREF(pb);
    Py_XDECREF(content);
    profile_release(p);
    if (rc) raise_etp(rc, &err);
    return -1;
}

static int need_ops(Profile *p) {
    if (!p->model) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed etprof.Profile");
        return -1;
    }
    if (p->ops) return 0;
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_ops_opts oo;
    etp_ops_opts_init(&oo);
    oo.skip_first = p->skip_first;
    oo.block = p->block;
    int rc;
    etp_ops_result *ops = NULL;
    WITHOUT_GIL(p, rc = etp_ops_compute(p->model, &oo, &ops, &err));
    /* the memory budget bounds each computation: the rows this Profile keeps do not count
     * against the next one (docs/python.md "Speed and memory") */
    if (!rc) etp_ops_release_budget(ops);
    p->ops = rc ? NULL : ops;
    if (rc) {
        p->ops = NULL;
        raise_etp(rc, &err);
        return -1;
    }
    /* method= that the files contradict: a Python warning, once per Profile (the result is
     * kept), as the command's WARNING note */
    const char *cf = NULL;
    uint32_t nc = etp_ops_method_conflict(ops, &cf);
    if (nc) {
        char w[ETP_ERR_FILE_MAX + ETP_ERR_PATH_MAX + ETP_ERR_MSG_MAX + 128];
        snprintf(w, sizeof w, "etprof: the method given contradicts the files in %u block(s), "
                              "shown under the given name; first: %s", nc, cf);
        if (PyErr_WarnEx(PyExc_UserWarning, w, 2) < 0) return -1;
    }
    return 0;
}

/* Time values in the display unit, as the command shows them (analysis.h etp_disp_conv). */
static double conv(etp_unit u, double v, double unit_ns) { return u == ETP_UNIT_NS ? v / unit_ns : v; }
static const char *conv_unit(etp_unit u, const char *time_unit) {
    return u == ETP_UNIT_NS ? time_unit : etp_unit_name(u);
}

static PyObject *fnum(double v) { return PyFloat_FromDouble(v); } /* NaN stays NaN */

static int view_disp(Profile *p, const char *tu, PyObject *clock, etp_disp *d, double *ghz,
                     const char **src);

/* Frees the model's per-block scratch and its share of the memory budget (etp_model_trim): called
 * when a pass over the blocks driven from Python (events) ends, so that an idle Profile holds
 * only its file and its results. */
static PyObject *Profile_trim(Profile *p, PyObject *Py_UNUSED(a)) {
    if (busy_error(p)) return NULL;
    if (p->model) etp_model_trim(p->model);
    Py_RETURN_NONE;
}

static PyObject *table_columns(const etp_table *t);

/* ops(): the library's ops table (etp_ops_table: the rows of `etprof ops --format json`, with
 * the HTP estimate and ETRecord columns) as whole columns, and every row's samples (its per-run
 * values in the row's displayed unit, etp_disp_conv) in one float64 buffer with their counts
 * (int64 each): numpy slices it without a Python float per value. */
static PyObject *Profile_ops_table(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"time_unit", "all", "kind", "placement", "sort", "top",
                             "htp_clock_ghz", NULL};
    const char *tu = "us", *kind = NULL, *placement = NULL, *sort = NULL;
    int all = 0;
    Py_ssize_t top = 0;
    PyObject *clock = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$spzzznO:ops_table", kwlist, &tu, &all, &kind,
                                     &placement, &sort, &top, &clock))
        return NULL;
    double uns = etp_time_unit_ns(tu);
    if (!(uns > 0)) return raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
    /* the HTP clock as `etprof ops` takes it: htp_clock_ghz=, else the Profile's runtrace or
     * QHAS (etp_qnn_clock); with one, cycles rows are shown as est_us and the wall-time estimate
     * columns are added */
    etp_disp disp;
    double ghz;
    const char *clock_src;
    if (view_disp(p, tu, clock, &disp, &ghz, &clock_src)) return NULL;
    if (top < 0) {
        char v[32];
        snprintf(v, sizeof v, "%zd", top);
        return raise_usage("top: expected a number of rows >= 0, got %s", v);
    }
    if (kind && strcmp(kind, "htp_node") != 0 && strcmp(kind, "operator") != 0 &&
        etp_kind_parse(kind) == ETP_KIND_NONE)
        return raise_usage("kind: unknown kind \"%s\" (framework, operator_call, kernel, "
                           "delegate_call, delegate_internal, htp_node, operator, instruction, "
                           "other)",
                           kind);
    if (need_ops(p)) return NULL;
    etp_ops_filter f;
    etp_ops_filter_init(&f);
    f.all = all != 0;
    f.kind = kind;
    f.placement = placement;
    f.sort = sort;
    f.top = (size_t)top;
    size_t nrows = etp_ops_row_count(p->ops), n = 0;
    uint32_t *idx = malloc((nrows ? nrows : 1) * sizeof *idx);
    if (!idx) return PyErr_NoMemory();
    etp_error err;
    memset(&err, 0, sizeof err);
    int rc = etp_ops_select(p->ops, &f, idx, &n, &err);
    if (rc) {
        free(idx);
        return raise_etp(rc, &err);
    }
    PyObject *cols = NULL, *buf = NULL, *lens = NULL, *res = NULL;
    etp_doc *doc = etp_doc_new("ops", 1, NULL, NULL);
    etp_table *t = doc ? etp_ops_table(doc, p->ops, idx, n, &disp, p->rec) : NULL;
    if (!t) {
        PyErr_NoMemory();
        goto done;
    }
    if (!(cols = table_columns(t))) goto done;
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        const etp_ops_row *row = etp_ops_row_get(p->ops, idx[k]);
        total += row->samples ? row->runs : 0;
    }
    buf = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(total * sizeof(double)));
    lens = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * sizeof(int64_t)));
    if (!buf || !lens) goto done;
    double *out = (double *)(void *)PyBytes_AS_STRING(buf);
    int64_t *ln = (int64_t *)(void *)PyBytes_AS_STRING(lens);
    for (size_t k = 0; k < n; k++) {
        const etp_ops_row *row = etp_ops_row_get(p->ops, idx[k]);
        uint32_t cnt = row->samples ? row->runs : 0;
        const char *un;
        for (uint32_t i = 0; i < cnt; i++) *out++ = etp_disp_conv(&disp, row->unit, row->samples[i], &un);
        ln[k] = cnt;
    }
    res = PyTuple_Pack(3, cols, buf, lens);
done:
    Py_XDECREF(cols);
    Py_XDECREF(buf);
    Py_XDECREF(lens);
    etp_doc_free(doc);
    free(idx);
    return res;
}

static PyObject *stats_dict(const etp_stats *s, etp_unit u, double uns) {
    return Py_BuildValue("{s:K,s:N,s:N,s:N,s:N,s:N,s:N,s:N}", "n", (unsigned long long)s->n,
                         "min", fnum(conv(u, s->min, uns)), "p10", fnum(conv(u, s->p10, uns)),
                         "p50", fnum(conv(u, s->p50, uns)), "p90", fnum(conv(u, s->p90, uns)),
                         "avg", fnum(conv(u, s->avg, uns)), "max", fnum(conv(u, s->max, uns)),
                         "total", fnum(conv(u, s->total, uns)));
}

static PyObject *Profile_summary(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"time_unit", NULL};
    const char *tu = "us";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$s:summary", kwlist, &tu)) return NULL;
    double uns = etp_time_unit_ns(tu);
    if (!(uns > 0)) return raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
    if (need_ops(p)) return NULL;
    size_t nm = etp_ops_method_count(p->ops);
    PyObject *methods = PyList_New((Py_ssize_t)nm);
    if (!methods) return NULL;
    for (size_t i = 0; i < nm; i++) {
        const etp_ops_method *m = etp_ops_method_get(p->ops, i);
        PyObject *md = Py_BuildValue(
            "{s:N,s:I,s:I,s:N,s:N,s:N,s:N}", "name", text(m->name), "runs", m->runs, "skipped",
            m->skipped, "unit", text(conv_unit(m->unit, tu)), "latency",
            stats_dict(&m->latency, m->unit, uns), "profiling_level",
            text(etp_profiling_level_name(m->profiling_level)), "candidates",
            text(m->candidates));
        if (!md) {
            Py_DECREF(methods);
            return NULL;
        }
        PyList_SET_ITEM(methods, (Py_ssize_t)i, md);
    }
    const etp_dump_info *di = etp_dump_get_info(p->dump);
    return Py_BuildValue("{s:I,s:I,s:I,s:K,s:N}", "blocks", di->block_count, "blocks_read",
                         etp_ops_blocks_read(p->ops), "runs", etp_ops_runs_kept(p->ops),
                         "events", (unsigned long long)di->event_count, "methods", methods);
}

static PyObject *Profile_close(Profile *p, PyObject *Py_UNUSED(ignored)) {
    if (busy_error(p)) return NULL;
    profile_release(p);
    Py_RETURN_NONE;
}

static PyObject *Profile_get_busy(Profile *p, void *Py_UNUSED(c)) {
    return PyBool_FromLong(p->busy != 0);
}
/* A new reference to o, or to None when o is NULL (the getters of what was given to open()). */
static PyObject *ref_or_none(PyObject *o) {
    o = o ? o : Py_None;
    Py_INCREF(o);
    return o;
}

static PyObject *Profile_get_closed(Profile *p, void *Py_UNUSED(c)) {
    if (p->busy) Py_RETURN_FALSE; /* being opened or used in another thread: not closed */
    return PyBool_FromLong(p->model == NULL);
}
static PyObject *Profile_get_etdump(Profile *p, void *Py_UNUSED(c)) {
    return ref_or_none(p->etdump_path);
}
static PyObject *Profile_get_pte(Profile *p, void *Py_UNUSED(c)) {
    return ref_or_none(p->pte_path);
}
static PyObject *Profile_get_method(Profile *p, void *Py_UNUSED(c)) {
    return ref_or_none(p->method);
}
static PyObject *Profile_get_blocks(Profile *p, void *Py_UNUSED(c)) {
    if (p->busy || !p->dump) Py_RETURN_NONE;
    return PyLong_FromUnsignedLong(etp_dump_get_info(p->dump)->block_count);
}
static PyObject *Profile_get_events(Profile *p, void *Py_UNUSED(c)) {
    if (p->busy || !p->dump) Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(etp_dump_get_info(p->dump)->event_count);
}

/* The Inspector's event table (etprof_inspector.h) as columns: one entry per event of every
 * block. Time samples (unit ns) are divided by `unit_ns` and named `time_unit`; other units stay
 * as they are. Statistics are those of the samples (etp_stats_compute: numpy's). */
enum {
    I_BLOCK, I_BLOCK_NAME, I_METHOD, I_RUNS, I_NAME, I_DELEGATED, I_DID, I_BACKEND, I_INSTR,
    I_KIND, I_UNIT, I_RAW, I_P10, I_P50, I_P90, I_AVG, I_MIN, I_MAX, I_START, I_REPLACED,
    I_MIXED, I_DEBUG, I_N
};
static const char *const icol_names[I_N] = {
    "event_block", "event_block_name", "method", "runs", "event_name", "is_delegated_op",
    "delegate_debug_identifier", "delegate_backend_name", "instruction_id", "kind", "unit",
    "raw", "p10", "p50", "p90", "avg", "min", "max", "start_time", "replaced", "mixed_units",
    "has_debug"};

static PyObject *bytes_text(const char *s, size_t n) {
    if (!s) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "replace");
}

static PyObject *insp_value(const etp_inspector_block *b, uint32_t bi,
                            const etp_inspector_event *e, int c, const etp_stats *st, double uns,
                            const char *tu) {
    /* time in either unit is shown in the target unit: us values (QNN) as ns first */
    bool tm = e->unit == ETP_UNIT_NS || e->unit == ETP_UNIT_US;
    if (e->unit == ETP_UNIT_US) uns /= 1e3;
    switch (c) {
    case I_BLOCK: return PyLong_FromUnsignedLong(bi);
    case I_BLOCK_NAME: return bytes_text(b->name.ptr, b->name.len);
    case I_METHOD: return text(b->method);
    case I_RUNS: return PyLong_FromUnsignedLong(b->n_runs);
    case I_NAME: return bytes_text(e->name, e->name_len);
    case I_DELEGATED: return PyBool_FromLong(e->is_delegated);
    case I_DID:
        if (e->delegate_id_int >= 0) return PyLong_FromLong(e->delegate_id_int);
        if (e->delegate_id_str.ptr) return bytes_text(e->delegate_id_str.ptr, e->delegate_id_str.len);
        Py_RETURN_NONE;
    case I_BACKEND: return text(e->backend);
    case I_INSTR:
        if (e->instruction_id >= 0) return PyLong_FromLong(e->instruction_id);
        Py_RETURN_NONE;
    case I_KIND: return text(etp_kind_name(e->kind));
    case I_UNIT:
        if (!e->has_perf) Py_RETURN_NONE;
        return text(tm ? tu : etp_unit_name(e->unit));
    case I_RAW:
    case I_START: {
        if (!e->has_perf) Py_RETURN_NONE;
        PyObject *l = PyList_New(e->n_samples);
        if (!l) return NULL;
        for (uint32_t i = 0; i < e->n_samples; i++) {
            PyObject *v = c == I_RAW ? fnum(tm ? e->values[i] / uns : e->values[i])
                                     : PyLong_FromUnsignedLongLong(e->start_times[i]);
            if (!v) {
                Py_DECREF(l);
                return NULL;
            }
            PyList_SET_ITEM(l, i, v);
        }
        return l;
    }
    case I_P10: case I_P50: case I_P90: case I_AVG: case I_MIN: case I_MAX: {
        if (!e->has_perf) Py_RETURN_NONE;
        double v = c == I_P10 ? st->p10 : c == I_P50 ? st->p50 : c == I_P90 ? st->p90
                 : c == I_AVG ? st->avg : c == I_MIN ? st->min : st->max;
        return fnum(tm ? v / uns : v);
    }
    case I_REPLACED: return PyLong_FromUnsignedLong(e->replaced);
    case I_MIXED: return PyBool_FromLong(e->mixed_units);
    case I_DEBUG: return PyBool_FromLong(e->has_debug);
    }
    Py_RETURN_NONE;
}

/* The ETRecord's answer for one Inspector event (the Inspector's op graph association): op types
 * per node (a list), stack traces and module stacks by node name; framework events get none. */
static int etr_fields(const etp_etrecord *rec, const etp_inspector_block *b,
                      const etp_inspector_event *e, PyObject **ops, PyObject **traces,
                      PyObject **mods) {
    *ops = PyList_New(0);
    *traces = PyDict_New();
    *mods = PyDict_New();
    if (!*ops || !*traces || !*mods) return -1;
    if (!rec || e->instruction_id < 0 || e->kind == ETP_KIND_FRAMEWORK) return 0;
    char did[32];
    const char *dp = NULL;
    if (e->is_delegated) {
        if (e->delegate_id_int >= 0) {
            snprintf(did, sizeof did, "%d", (int)e->delegate_id_int);
            dp = did;
        } else dp = e->delegate_id_str.ptr;
    }
    etp_etr_join j;
    if (etp_etrecord_join(rec, b->method, e->instruction_id, dp, &j)) {
        PyErr_NoMemory();
        return -1;
    }
    int rc = 0;
    for (uint32_t k = 0; k < j.n_nodes && !rc; k++) {
        const etp_etr_node *n = j.nodes[k];
        PyObject *op = text(n->op);
        if (!op || PyList_Append(*ops, op)) rc = -1;
        Py_XDECREF(op);
        if (rc) break;
        if (n->stack_trace) {
            PyObject *st = text(n->stack_trace);
            if (!st || PyDict_SetItemString(*traces, n->name, st)) rc = -1;
            Py_XDECREF(st);
        }
        if (!rc && n->n_modules) {
            PyObject *md = PyDict_New();
            for (uint32_t q = 0; md && q < n->n_modules; q++) {
                PyObject *t = Py_BuildValue("(ss)", n->modules[q].fqn, n->modules[q].type);
                if (!t || PyDict_SetItemString(md, n->modules[q].key, t)) {
                    Py_XDECREF(t);
                    Py_CLEAR(md);
                    break;
                }
                Py_DECREF(t);
            }
            if (!md || PyDict_SetItemString(*mods, n->name, md)) rc = -1;
            Py_XDECREF(md);
        }
    }
    etp_etrecord_join_free(&j);
    return rc;
}

static PyObject *Profile_inspector_columns(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"time_unit", "etrecord", NULL};
    const char *tu = "ms", *etr = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$sz:inspector_columns", kwlist, &tu, &etr))
        return NULL;
    double uns = etp_time_unit_ns(tu);
    if (!(uns > 0)) return raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
    if (!p->model) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed etprof.Profile");
        return NULL;
    }
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_etrecord *rec = NULL;
    if (etr) {
        int r0 = etp_etrecord_open(&rec, etr, NULL, &err);
        if (r0) return raise_etp(r0, &err);
    }
    etp_inspector_result *r = NULL;
    int rc;
    WITHOUT_GIL(p, rc = etp_inspector_compute(p->model, p->dump, &r, &err));
    etp_model_trim(p->model);
    if (rc) {
        etp_etrecord_close(rec);
        return raise_etp(rc, &err);
    }
    PyObject *eops = PyList_New(0), *etraces = PyList_New(0), *emods = PyList_New(0);
    size_t n = 0, maxs = 1;
    for (uint32_t b = 0; b < r->n_blocks; b++) {
        n += r->blocks[b].n_events;
        if (r->blocks[b].n_runs > maxs) maxs = r->blocks[b].n_runs;
    }
    PyObject *cols[I_N] = {0};
    PyObject *d = NULL;
    double *tmp = malloc(maxs * sizeof *tmp);
    if (!tmp) {
        PyErr_NoMemory();
        goto fail;
    }
    if (!(d = PyDict_New())) goto fail;
    for (int c = 0; c < I_N; c++) {
        if (!(cols[c] = PyList_New((Py_ssize_t)n))) goto fail;
        if (PyDict_SetItemString(d, icol_names[c], cols[c])) goto fail;
    }
    size_t k = 0;
    for (uint32_t b = 0; b < r->n_blocks; b++) {
        const etp_inspector_block *blk = &r->blocks[b];
        for (uint32_t i = 0; i < blk->n_events; i++, k++) {
            const etp_inspector_event *e = &blk->events[i];
            etp_stats st;
            size_t m = 0;
            for (uint32_t s = 0; s < e->n_samples; s++)
                if (!isnan(e->values[s])) tmp[m++] = e->values[s];
            etp_stats_compute(tmp, m, &st);
            for (int c = 0; c < I_N; c++) {
                PyObject *v = insp_value(blk, b, e, c, &st, uns, tu);
                if (!v) goto fail;
                PyList_SET_ITEM(cols[c], (Py_ssize_t)k, v);
            }
            PyObject *o1, *o2, *o3;
            int er = etr_fields(rec, blk, e, &o1, &o2, &o3);
            if (!er && (PyList_Append(eops, o1) || PyList_Append(etraces, o2) ||
                        PyList_Append(emods, o3)))
                er = -1;
            Py_XDECREF(o1);
            Py_XDECREF(o2);
            Py_XDECREF(o3);
            if (er) goto fail;
        }
    }
    if (!eops || !etraces || !emods || PyDict_SetItemString(d, "op_types", eops) ||
        PyDict_SetItemString(d, "stack_traces", etraces) ||
        PyDict_SetItemString(d, "module_hierarchy", emods))
        goto fail;
    PyObject *meta = Py_BuildValue("{s:I,s:K,s:K}", "runs", r->runs, "allocation_events",
                                   (unsigned long long)r->allocation_events, "replaced",
                                   (unsigned long long)r->replaced);
    if (!meta) goto fail;
    for (int c = 0; c < I_N; c++) Py_DECREF(cols[c]);
    Py_DECREF(eops);
    Py_DECREF(etraces);
    Py_DECREF(emods);
    free(tmp);
    etp_inspector_free(r);
    etp_etrecord_close(rec);
    return Py_BuildValue("(NN)", d, meta);
fail:
    for (int c = 0; c < I_N; c++) Py_XDECREF(cols[c]);
    Py_XDECREF(eops);
    Py_XDECREF(etraces);
    Py_XDECREF(emods);
    Py_XDECREF(d);
    free(tmp);
    etp_inspector_free(r);
    etp_etrecord_close(rec);
    return NULL;
}

/* A logged tensor as ("npy", .npy bytes) or, logged without bytes (offset -1), ("empty", the
 * header-only .npy): the bytes etp_tensor_write_npy writes (Python makes the numpy array). */
static PyObject *npy_tuple(const etp_tensor_view *v) {
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    if (!f) return PyErr_NoMemory();
    int rc = etp_tensor_write_npy(v, f);
    if (fclose(f) && !rc) rc = ETP_E_IO;
    if (rc) {
        free(mem);
        return PyErr_NoMemory(); /* a memory stream fails only when out of memory */
    }
    PyObject *b = PyBytes_FromStringAndSize(mem, (Py_ssize_t)len);
    free(mem);
    if (!b) return NULL;
    return Py_BuildValue("(sN)", v->base ? "npy" : "empty", b);
}

/* One debug event's entry inflated as the Inspector's debug_data holds it: int, bool, float
 * (Float and Double), a tensor as npy_tuple, a TensorList as a list of them; None for an event
 * without an entry or with another value type. A tensor outside the buffer raises the library's
 * located error. */
static PyObject *insp_entry(const etp_debug_event *d, const etp_blob *buf, uint32_t block,
                            uint32_t index) {
    if (!d->has_debug_entry) Py_RETURN_NONE;
    const etp_value *val = &d->debug_entry;
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_tensor_view v;
    char path[200];
    int rc;
    switch (val->val) {
    case ETP_VAL_INT: if (val->has_int) return PyLong_FromLongLong(val->int_val); break;
    case ETP_VAL_BOOL: if (val->has_bool) return PyBool_FromLong(val->bool_val); break;
    case ETP_VAL_FLOAT: if (val->has_float) return PyFloat_FromDouble(val->float_val); break;
    case ETP_VAL_DOUBLE: if (val->has_double) return PyFloat_FromDouble(val->double_val); break;
    case ETP_VAL_TENSOR:
        if (!val->has_tensor) break;
        snprintf(path, sizeof path, "run_data[%u].events[%u].debug_event.debug_entry.tensor",
                 block, index);
        if ((rc = etp_tensor_view_init(&val->tensor, buf, path, &v, &err)))
            return raise_etp(rc, &err);
        return npy_tuple(&v);
    case ETP_VAL_TENSOR_LIST: {
        if (!val->has_tensor_list) break;
        PyObject *l = PyList_New(val->tensor_list_len);
        for (uint32_t t = 0; l && t < val->tensor_list_len; t++) {
            etp_tensor tk;
            etp_value_tensor_list_get(val, t, &tk);
            snprintf(path, sizeof path,
                     "run_data[%u].events[%u].debug_event.debug_entry.tensor_list.tensors[%u]",
                     block, index, t);
            PyObject *x = NULL;
            if ((rc = etp_tensor_view_init(&tk, buf, path, &v, &err))) raise_etp(rc, &err);
            else x = npy_tuple(&v);
            if (!x) {
                Py_CLEAR(l);
                break;
            }
            PyList_SET_ITEM(l, t, x);
        }
        return l;
    }
    default: break;
    }
    Py_RETURN_NONE;
}

/* inspector_details(*, debug_data=False, samples=False) -> dict of column lists, one entry per
 * row of inspector_columns (same order):
 *   "debug_data" (debug_data=True, needs the debug buffer): per row, the first run's debug
 *     entries of the event (etp_inspector_debug_events), inflated by insp_entry;
 *   "end_time" (samples=True): per row, the raw end ticks per run (None without perf data);
 *   "delegate_debug_metadata" (samples=True): per row, the per-run metadata (bytes, "" when
 *     empty or absent), or None when every entry is empty or the row has no perf data. */
static PyObject *Profile_inspector_details(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"debug_data", "samples", NULL};
    int want_dbg = 0, want_samples = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$pp:inspector_details", kwlist, &want_dbg,
                                     &want_samples))
        return NULL;
    if (!p->model) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed etprof.Profile");
        return NULL;
    }
    if (want_dbg && !p->have_dbuf_blob)
        return raise_usage("inspector_details(debug_data=True): %s",
                           "open the dump with debug_buffer= (the debug buffer file)");
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_inspector_result *r = NULL;
    int rc;
    WITHOUT_GIL(p, rc = etp_inspector_compute(p->model, p->dump, &r, &err));
    etp_model_trim(p->model); /* an idle Profile holds no block */
    if (rc) return raise_etp(rc, &err);
    PyObject *d = PyDict_New(), *dbg = NULL, *ends = NULL, *metas = NULL;
    if (!d) goto fail;
    if (want_dbg && (!(dbg = PyList_New(0)) || PyDict_SetItemString(d, "debug_data", dbg)))
        goto fail;
    if (want_samples &&
        (!(ends = PyList_New(0)) || PyDict_SetItemString(d, "end_time", ends) ||
         !(metas = PyList_New(0)) || PyDict_SetItemString(d, "delegate_debug_metadata", metas)))
        goto fail;
    for (uint32_t b = 0; b < r->n_blocks; b++) {
        const etp_inspector_block *blk = &r->blocks[b];
        etp_block_view bv;
        if (want_dbg && (rc = etp_model_block(p->model, blk->first_run, &bv, &err))) {
            raise_etp(rc, &err);
            goto fail;
        }
        for (uint32_t i = 0; i < blk->n_events; i++) {
            const etp_inspector_event *e = &blk->events[i];
            if (want_dbg) {
                uint32_t n;
                const uint32_t *idx = etp_inspector_debug_events(r, b, i, &n);
                PyObject *l = PyList_New(n);
                for (uint32_t k = 0; l && k < n; k++) {
                    PyObject *x = NULL;
                    if (idx[k] < bv.n && bv.events[idx[k]].ev.type == ETP_EVENT_DEBUG)
                        x = insp_entry(&bv.events[idx[k]].ev.debug, &p->dbuf_blob,
                                       blk->first_run, idx[k]);
                    else
                        PyErr_SetString(InternalError, "inspector: a debug event index is "
                                        "not a debug event of its first run");
                    if (!x) {
                        Py_CLEAR(l);
                        break;
                    }
                    PyList_SET_ITEM(l, k, x);
                }
                int er = !l || PyList_Append(dbg, l);
                Py_XDECREF(l);
                if (er) goto fail;
            }
            if (want_samples) {
                const etp_inspector_sample *sm = etp_inspector_samples(r, b, i);
                PyObject *el = NULL, *ml = NULL;
                if (!sm || !e->has_perf) {
                    el = (Py_INCREF(Py_None), Py_None);
                    ml = (Py_INCREF(Py_None), Py_None);
                } else {
                    bool any = false;
                    for (uint32_t k = 0; k < e->n_samples; k++)
                        any |= sm[k].delegate_debug_metadata.len > 0;
                    el = PyList_New(e->n_samples);
                    ml = any ? PyList_New(e->n_samples) : (Py_INCREF(Py_None), Py_None);
                    for (uint32_t k = 0; el && ml && k < e->n_samples; k++) {
                        PyObject *x = PyLong_FromUnsignedLongLong(sm[k].end_time);
                        if (!x) {
                            Py_CLEAR(el);
                            break;
                        }
                        PyList_SET_ITEM(el, k, x);
                        if (!any) continue;
                        const etp_vec *mv = &sm[k].delegate_debug_metadata;
                        PyObject *y = mv->len ? PyBytes_FromStringAndSize((const char *)mv->ptr,
                                                                          (Py_ssize_t)mv->len)
                                              : PyUnicode_FromString("");
                        if (!y) {
                            Py_CLEAR(ml);
                            break;
                        }
                        PyList_SET_ITEM(ml, k, y);
                    }
                }
                int er = !el || !ml || PyList_Append(ends, el) || PyList_Append(metas, ml);
                Py_XDECREF(el);
                Py_XDECREF(ml);
                if (er) goto fail;
            }
        }
    }
    Py_XDECREF(dbg);
    Py_XDECREF(ends);
    Py_XDECREF(metas);
    etp_inspector_free(r);
    return d;
fail:
    Py_XDECREF(dbg);
    Py_XDECREF(ends);
    Py_XDECREF(metas);
    Py_XDECREF(d);
    etp_inspector_free(r);
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* The one table converter: any etp_table of the library (etp_table_column) as whole columns    */
/*                                                                                            */
/* A tabacc gathers one or more tables of the same columns (appended chunk by chunk: events of */
/* a whole dump) and gives, per column, (key, unit, kind, data, valid, nullable): kind 'i'     */
/* int64, 'u' uint64, 'f' float64, 'b' bool (one int64 0/1 each), 's' text, 'n' all null;     */
/* data the values as bytes (8 each, native order: numpy.frombuffer, memoryview.cast) or, for */
/* text, a list of str/None (equal texts share one object); valid None when no cell is null,   */
/* else bytes of 0/1. The Python layer (etprof._frame) makes the DataFrame or dict from it.    */

typedef struct {
    char *s;
    size_t n;
    Py_hash_t h;
    PyObject *o;
} strslot;

typedef struct {
    strslot *slot;
    size_t cap, used; /* cap: a power of two */
} strcache;

#define STRCACHE_MAX 65536 /* distinct texts shared at most (labels of a huge dump: the rest new) */

static Py_hash_t str_hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return (Py_hash_t)(h & 0x7fffffffffffffffull);
}

static void strcache_free(strcache *c) {
    for (size_t i = 0; i < c->cap; i++)
        if (c->slot[i].o) {
            free(c->slot[i].s);
            Py_DECREF(c->slot[i].o);
        }
    free(c->slot);
    memset(c, 0, sizeof *c);
}

/* A new reference to the str of s (shared with earlier equal texts). */
static PyObject *strcache_get(strcache *c, const char *s) {
    size_t n = strlen(s);
    if (c->used * 2 >= c->cap && c->used < STRCACHE_MAX) {
        size_t nc = c->cap ? c->cap * 2 : 256;
        strslot *ns = calloc(nc, sizeof *ns);
        if (ns) {
            for (size_t i = 0; i < c->cap; i++)
                if (c->slot[i].o) {
                    size_t k = (size_t)c->slot[i].h & (nc - 1);
                    while (ns[k].o) k = (k + 1) & (nc - 1);
                    ns[k] = c->slot[i];
                }
            free(c->slot);
            c->slot = ns;
            c->cap = nc;
        }
    }
    Py_hash_t h = str_hash(s, n);
    if (c->cap) {
        size_t k = (size_t)h & (c->cap - 1);
        while (c->slot[k].o) {
            if (c->slot[k].h == h && c->slot[k].n == n && !memcmp(c->slot[k].s, s, n)) {
                Py_INCREF(c->slot[k].o);
                return c->slot[k].o;
            }
            k = (k + 1) & (c->cap - 1);
        }
        PyObject *o = PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "replace");
        if (!o) return NULL;
        if (c->used * 2 < c->cap) {
            char *cp = malloc(n + 1);
            if (cp) {
                memcpy(cp, s, n + 1);
                c->slot[k] = (strslot){cp, n, h, o};
                Py_INCREF(o);
                c->used++;
            }
        }
        return o;
    }
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "replace");
}

typedef struct {
    char *key, *unit;
    etp_type type;
    bool nullable;
    PyObject *data;  /* numeric: bytes of cap values (8 bytes each), filled in place */
    PyObject *valid; /* numeric: bytes of cap flags */
    PyObject **strs; /* ETP_T_STR: cap new references */
    size_t n, cap, nnull;
} colacc;

typedef struct {
    colacc *c;
    size_t ncols;
    size_t reserve; /* rows expected in all (the buffers' first size) */
    strcache sc;
} tabacc;

static void tabacc_free(tabacc *a) {
    for (size_t j = 0; j < a->ncols; j++) {
        colacc *c = &a->c[j];
        free(c->key);
        free(c->unit);
        Py_XDECREF(c->data);
        Py_XDECREF(c->valid);
        for (size_t r = 0; c->strs && r < c->n; r++) Py_DECREF(c->strs[r]);
        free(c->strs);
    }
    free(a->c);
    strcache_free(&a->sc);
    memset(a, 0, sizeof *a);
}

static char *xstrdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Room for `need` rows in column c (one allocation when the reserve was right). */
static int colacc_room(colacc *c, size_t need) {
    if (need <= c->cap) return 0;
    size_t cap = c->cap ? c->cap : 1024;
    while (cap < need) cap *= 2;
    if (c->type == ETP_T_STR) {
        PyObject **s = realloc(c->strs, cap * sizeof *s);
        if (!s) return -1;
        c->strs = s;
    } else if (!c->data) {
        if (!(c->data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(cap * 8))) ||
            !(c->valid = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap)))
            return -1;
    } else if (_PyBytes_Resize(&c->data, (Py_ssize_t)(cap * 8)) ||
               _PyBytes_Resize(&c->valid, (Py_ssize_t)cap)) {
        return -1;
    }
    c->cap = cap;
    return 0;
}

/* Appends every row of t (the first table gives the columns). -1 with a Python error. */
static int tabacc_add(tabacc *a, const etp_table *t) {
    size_t nc = etp_table_cols(t);
    if (!a->c) {
        if (!(a->c = calloc(nc ? nc : 1, sizeof *a->c))) goto nomem;
        a->ncols = nc;
        for (size_t j = 0; j < nc; j++) {
            const etp_col *col = etp_table_col(t, j);
            colacc *c = &a->c[j];
            c->key = xstrdup(col->key);
            c->unit = xstrdup(col->unit);
            c->type = col->type;
            c->nullable = col->nullable;
            if (!c->key || (col->unit && !c->unit)) goto nomem;
            if (a->reserve && colacc_room(c, a->reserve)) goto nomem;
        }
    } else if (nc != a->ncols) {
        PyErr_SetString(PyExc_RuntimeError, "etprof: tables of different columns");
        return -1;
    }
    for (size_t j = 0; j < nc; j++) {
        colacc *c = &a->c[j];
        etp_col_data cd;
        int rc = etp_table_column(t, j, &cd);
        if (rc) {
            if (rc == ETP_E_INTERNAL) goto nomem;
            PyErr_SetString(PyExc_RuntimeError, "etprof: etp_table_column refused a column");
            return -1;
        }
        size_t n = cd.n;
        if (!n) continue;
        if (colacc_room(c, c->n + n)) {
            free(cd.mem);
            goto nomem;
        }
        c->nnull += n - cd.nvalid;
        if (c->type == ETP_T_STR) {
            for (size_t r = 0; r < n; r++) {
                PyObject *o = cd.valid[r] ? strcache_get(&a->sc, cd.s[r]) : (Py_INCREF(Py_None), Py_None);
                if (!o) {
                    free(cd.mem);
                    return -1;
                }
                c->strs[c->n++] = o;
            }
            free(cd.mem);
            continue;
        }
        unsigned char *dst = (unsigned char *)PyBytes_AS_STRING(c->data) + c->n * 8;
        if (c->type == ETP_T_BOOL) {
            for (size_t r = 0; r < n; r++) {
                int64_t x = cd.b[r];
                memcpy(dst + r * 8, &x, 8);
            }
        } else if (c->type == ETP_T_NULL) {
            memset(dst, 0, n * 8);
        } else {
            memcpy(dst, cd.mem, n * 8); /* int64, uint64, double: as etp_table_column gave them */
        }
        memcpy(PyBytes_AS_STRING(c->valid) + c->n, cd.valid, n);
        c->n += n;
        free(cd.mem);
    }
    return 0;
nomem:
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return -1;
}

/* The columns gathered: a list of (key, unit, kind, data, valid, nullable). The buffers move
 * into the result (the accumulator is then only freed). */
static PyObject *tabacc_result(tabacc *a) {
    PyObject *l = PyList_New((Py_ssize_t)a->ncols);
    if (!l) return NULL;
    for (size_t j = 0; j < a->ncols; j++) {
        colacc *c = &a->c[j];
        const char *kind = c->type == ETP_T_INT ? "i" : c->type == ETP_T_UINT ? "u"
                           : c->type == ETP_T_FLOAT ? "f" : c->type == ETP_T_BOOL ? "b"
                           : c->type == ETP_T_STR ? "s" : "n";
        PyObject *data = NULL, *valid = NULL;
        if (c->type == ETP_T_STR) {
            if ((data = PyList_New((Py_ssize_t)c->n))) {
                for (size_t r = 0; r < c->n; r++) PyList_SET_ITEM(data, (Py_ssize_t)r, c->strs[r]);
                c->n = 0; /* the references moved */
            }
            valid = (Py_INCREF(Py_None), Py_None);
        } else if (!c->data) { /* no rows */
            data = PyBytes_FromStringAndSize(NULL, 0);
            valid = (Py_INCREF(Py_None), Py_None);
        } else {
            if (c->n != c->cap && (_PyBytes_Resize(&c->data, (Py_ssize_t)(c->n * 8)) ||
                                   _PyBytes_Resize(&c->valid, (Py_ssize_t)c->n))) {
                Py_DECREF(l);
                return NULL;
            }
            c->cap = c->n;
            data = c->data;
            c->data = NULL;
            if (c->nnull) {
                valid = c->valid;
                c->valid = NULL;
            } else {
                valid = (Py_INCREF(Py_None), Py_None);
            }
        }
        PyObject *t6 = data && valid ? PyTuple_New(6) : NULL;
        PyObject *key = t6 ? text(c->key) : NULL, *unit = key ? text(c->unit) : NULL;
        PyObject *kd = unit ? PyUnicode_FromString(kind) : NULL;
        if (!kd) {
            Py_XDECREF(data);
            Py_XDECREF(valid);
            Py_XDECREF(key);
            Py_XDECREF(unit);
            Py_XDECREF(t6);
            Py_DECREF(l);
            return NULL;
        }
        PyTuple_SET_ITEM(t6, 0, key);
        PyTuple_SET_ITEM(t6, 1, unit);
        PyTuple_SET_ITEM(t6, 2, kd);
        PyTuple_SET_ITEM(t6, 3, data);
        PyTuple_SET_ITEM(t6, 4, valid);
        PyTuple_SET_ITEM(t6, 5, PyBool_FromLong(c->nullable));
        PyList_SET_ITEM(l, (Py_ssize_t)j, t6);
    }
    return l;
}

/* One table as columns (tabacc_result). */
static PyObject *table_columns(const etp_table *t) {
    tabacc a;
    memset(&a, 0, sizeof a);
    a.reserve = etp_table_rows(t);
    PyObject *r = tabacc_add(&a, t) ? NULL : tabacc_result(&a);
    tabacc_free(&a);
    return r;
}

/* Every event of every block as one set of columns (etp_events_table, the rows of `etprof
 * events --format csv`), built a few blocks at a time: the documents holding the rows go after
 * each chunk, so only the columns (8 bytes a value) stay. */
static PyObject *Profile_events_table(Profile *p, PyObject *Py_UNUSED(ignored)) {
    if (busy_error(p)) return NULL;
    if (!p->model) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed etprof.Profile");
        return NULL;
    }
    uint32_t nb = etp_dump_get_info(p->dump)->block_count;
    tabacc a;
    memset(&a, 0, sizeof a);
    a.reserve = etp_dump_get_info(p->dump)->event_count;
    etp_doc *doc = NULL;
    etp_table *t = NULL;
    PyObject *r = NULL;
    etp_error err;
    memset(&err, 0, sizeof err);
    for (uint32_t b = 0; b < nb; b++) {
        etp_block_view v;
        int rc = etp_model_block(p->model, b, &v, &err);
        if (rc) {
            raise_etp(rc, &err);
            goto done;
        }
        if (!doc && !(doc = etp_doc_new("events", 1, NULL, NULL))) {
            PyErr_NoMemory();
            goto done;
        }
        if (!(t = etp_events_table(doc, t, &v))) {
            PyErr_NoMemory();
            goto done;
        }
        if (etp_table_rows(t) >= 16384 || b + 1 == nb) {
            if (tabacc_add(&a, t)) goto done;
            etp_doc_free(doc);
            doc = NULL;
            t = NULL;
        }
    }
    if (!a.c) { /* no blocks: the columns, empty */
        if (!(doc = etp_doc_new("events", 1, NULL, NULL)) || !(t = etp_events_table(doc, NULL, NULL))) {
            PyErr_NoMemory();
            goto done;
        }
        if (tabacc_add(&a, t)) goto done;
    }
    r = tabacc_result(&a);
done:
    etp_doc_free(doc);
    tabacc_free(&a);
    return r;
}

/* The events of one block as columns, the columns of `etprof events --format csv` (src/cli
 * cmd_events.c; docs/cli.md): absent values None. */
enum {
    E_BLOCK, E_INDEX, E_TYPE, E_KIND, E_LABEL, E_CHAIN, E_INSTR, E_DINT, E_START, E_END, E_VALUE,
    E_UNIT, E_PARENT, E_METHOD, E_OPERATOR, E_BACKEND, E_N
};
static const char *const ecol_names[E_N] = {
    "block", "index", "type", "kind", "label", "chain_index", "instruction_id",
    "delegate_debug_id_int", "start_time", "end_time", "value", "unit", "parent", "method",
    "operator", "backend"};
static const char *const ev_type_names[] = {"none", "profile", "allocation", "debug"};

static PyObject *ev_value(const etp_block_view *v, const etp_mevent *e, int c) {
    bool pd = e->ev.type == ETP_EVENT_PROFILE || e->ev.type == ETP_EVENT_DEBUG;
    switch (c) {
    case E_BLOCK: return PyLong_FromUnsignedLong(v->block);
    case E_INDEX: return PyLong_FromUnsignedLong(e->index);
    case E_TYPE: return text(ev_type_names[e->ev.type & 3]);
    case E_KIND: return text(etp_kind_name(e->kind));
    case E_LABEL: return text(e->label);
    case E_CHAIN: if (pd) return PyLong_FromLong(e->chain); Py_RETURN_NONE;
    case E_INSTR: if (pd) return PyLong_FromLong(e->instr); Py_RETURN_NONE;
    case E_DINT:
        if (!pd) Py_RETURN_NONE;
        return PyLong_FromLong(e->ev.type == ETP_EVENT_PROFILE ? e->ev.profile.delegate_debug_id_int
                                                               : e->ev.debug.delegate_debug_id_int);
    case E_START:
        if (e->ev.type == ETP_EVENT_PROFILE) return PyLong_FromUnsignedLongLong(e->ev.profile.start_time);
        Py_RETURN_NONE;
    case E_END:
        if (e->ev.type == ETP_EVENT_PROFILE) return PyLong_FromUnsignedLongLong(e->ev.profile.end_time);
        Py_RETURN_NONE;
    case E_VALUE: return fnum(e->value);
    case E_UNIT: return text(e->unit ? etp_unit_name(e->unit) : NULL);
    case E_PARENT: if (e->parent >= 0) return PyLong_FromLong(e->parent); Py_RETURN_NONE;
    case E_METHOD: return text(v->method);
    case E_OPERATOR:
        if (e->op_name)
            return PyUnicode_FromFormat("%s%s%s", e->op_name,
                                        e->op_overload && *e->op_overload ? "." : "",
                                        e->op_overload ? e->op_overload : "");
        Py_RETURN_NONE;
    case E_BACKEND: return text(e->backend);
    }
    Py_RETURN_NONE;
}

static PyObject *Profile_event_columns(Profile *p, PyObject *args) {
    if (busy_error(p)) return NULL;
    unsigned long b;
    if (!PyArg_ParseTuple(args, "k:event_columns", &b)) return NULL;
    if (!p->model) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed etprof.Profile");
        return NULL;
    }
    if (b >= etp_dump_get_info(p->dump)->block_count) {
        PyErr_SetString(PyExc_IndexError, "block index out of range");
        return NULL;
    }
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_block_view v;
    int rc = etp_model_block(p->model, (uint32_t)b, &v, &err);
    if (rc) return raise_etp(rc, &err);
    PyObject *cols[E_N] = {0};
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (int c = 0; c < E_N; c++) {
        if (!(cols[c] = PyList_New((Py_ssize_t)v.n))) goto fail;
        if (PyDict_SetItemString(d, ecol_names[c], cols[c])) goto fail;
    }
    for (uint32_t i = 0; i < v.n; i++)
        for (int c = 0; c < E_N; c++) {
            PyObject *x = ev_value(&v, &v.events[i], c);
            if (!x) goto fail;
            PyList_SET_ITEM(cols[c], (Py_ssize_t)i, x);
        }
    for (int c = 0; c < E_N; c++) Py_DECREF(cols[c]);
    return d;
fail:
    for (int c = 0; c < E_N; c++) Py_XDECREF(cols[c]);
    Py_DECREF(d);
    return NULL;
}

/* ---- runs (etprof_runs.h): the rows of `etprof runs --format json` ---- */

static PyObject *tval(etp_unit u, double v, double uns) {
    return fnum(u == ETP_UNIT_NS ? v / uns : u == ETP_UNIT_US ? v * 1e3 / uns : v);
}
static const char *tname(etp_unit u, const char *tu) {
    return u == ETP_UNIT_NS || u == ETP_UNIT_US ? tu : etp_unit_name(u);
}

enum {
    R_METHOD, R_CANDS, R_RUN, R_BLOCK, R_WARMUP, R_OUTLIER, R_Z, R_EXECUTE, R_DELEGATE, R_CPU,
    R_FRAMEWORK, R_UNIT, R_BACKENDS, R_QNN, R_N
};
static const char *const rcol_names[R_N] = {
    "method", "method_candidates", "run", "block", "warmup", "outlier", "robust_z", "execute",
    "delegate", "cpu", "framework", "unit", "backends", "qnn"};

static PyObject *candidates(const etp_ops_method *m) {
    uint32_t n = m && !m->name && m->candidate_names ? m->n_candidates : 0;
    PyObject *l = PyList_New(0);
    for (uint32_t i = 0; l && i < n; i++) {
        PyObject *s = text(m->candidate_names[i]);
        if (!s || PyList_Append(l, s)) {
            Py_XDECREF(s);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(s);
    }
    return l;
}

static PyObject *run_value(const etp_ops_result *r, const etp_runs_row *rw, int c, double uns,
                           const char *tu) {
    const etp_ops_method *m = etp_ops_method_get(r, rw->method);
    switch (c) {
    case R_METHOD: return text(m ? m->name : NULL);
    case R_CANDS: return candidates(m);
    case R_RUN: return PyLong_FromUnsignedLong(etp_run_number(rw->run));
    case R_BLOCK: return PyLong_FromUnsignedLong(rw->block);
    case R_WARMUP: return PyBool_FromLong(rw->warmup);
    case R_OUTLIER: return PyBool_FromLong(rw->outlier);
    case R_Z: return fnum(rw->robust_z);
    case R_EXECUTE: return tval(rw->unit, rw->execute, uns);
    case R_DELEGATE: return tval(rw->unit, rw->delegate, uns);
    case R_CPU: return tval(rw->unit, rw->cpu, uns);
    case R_FRAMEWORK: return tval(rw->unit, rw->framework, uns);
    case R_UNIT: return text(tname(rw->unit, tu));
    case R_BACKENDS: {
        PyObject *l = PyList_New(rw->n_backends);
        for (uint32_t i = 0; l && i < rw->n_backends; i++) {
            const etp_runs_backend *b = &rw->backends[i];
            PyObject *x = Py_BuildValue("{s:s,s:N,s:N,s:N,s:s}", "placement", b->placement,
                                        "delegate", tval(rw->unit, b->delegate, uns),
                                        "backend_time", tval(rw->unit, b->backend, uns),
                                        "overhead", tval(rw->unit, b->overhead, uns), "unit",
                                        tname(rw->unit, tu));
            if (!x) {
                Py_DECREF(l);
                return NULL;
            }
            PyList_SET_ITEM(l, i, x);
        }
        return l;
    }
    case R_QNN: {
        PyObject *l = PyList_New(rw->n_qnn);
        for (uint32_t q = 0; l && q < rw->n_qnn; q++) {
            const etp_runs_qnn *qq = &rw->qnn[q];
            const etp_ops_qnn *g = etp_ops_qnn_get(r, qq->qnn);
            PyObject *figs = PyDict_New();
            for (int t = 0; figs && t < ETP_QT_COUNT_; t++) {
                if (g->top[t] < 0) continue;
                PyObject *x = Py_BuildValue("{s:N,s:s}", "value", tval(qq->unit[t], qq->value[t], uns),
                                            "unit", tname(qq->unit[t], tu));
                if (!x || PyDict_SetItemString(figs, etp_qnn_top_name((etp_qnn_top)t), x)) {
                    Py_XDECREF(x);
                    Py_CLEAR(figs);
                    break;
                }
                Py_DECREF(x);
            }
            PyObject *e = figs ? Py_BuildValue("{s:i,s:N}", "instruction_id",
                                               etp_ops_row_get(r, g->delegate_row)->instr,
                                               "figures", figs)
                               : NULL;
            if (!e) {
                Py_DECREF(l);
                return NULL;
            }
            PyList_SET_ITEM(l, q, e);
        }
        return l;
    }
    }
    Py_RETURN_NONE;
}

static PyObject *Profile_runs(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"time_unit", "warmup_factor", "outlier_k", "trend_alpha",
                             "trend_pct", NULL};
    const char *tu = "us";
    etp_runs_opts o;
    etp_runs_opts_init(&o);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$sdddd:runs", kwlist, &tu, &o.warmup_factor,
                                     &o.outlier_k, &o.trend_alpha, &o.trend_pct))
        return NULL;
    double uns = etp_time_unit_ns(tu);
    if (!(uns > 0)) return raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
    if (need_ops(p)) return NULL;
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_runs_result *x = NULL;
    int rc = etp_runs_compute(p->ops, &o, &x, &err);
    if (rc) return raise_etp(rc, &err);
    size_t n = etp_runs_row_count(x), nm = etp_runs_method_count(x);
    PyObject *cols[R_N] = {0}, *d = PyDict_New(), *methods = NULL, *res = NULL;
    if (!d) goto done;
    for (int c = 0; c < R_N; c++) {
        if (!(cols[c] = PyList_New((Py_ssize_t)n))) goto done;
        if (PyDict_SetItemString(d, rcol_names[c], cols[c])) goto done;
    }
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < R_N; c++) {
            PyObject *v = run_value(p->ops, etp_runs_row_get(x, i), c, uns, tu);
            if (!v) goto done;
            PyList_SET_ITEM(cols[c], (Py_ssize_t)i, v);
        }
    if (!(methods = PyList_New((Py_ssize_t)nm))) goto done;
    for (size_t i = 0; i < nm; i++) {
        const etp_runs_method *rm = etp_runs_method_get(x, i);
        const etp_ops_method *m = etp_ops_method_get(p->ops, rm->method);
        PyObject *v = Py_BuildValue(
            "{s:N,s:N,s:I,s:I,s:I,s:I,s:N,s:N,s:N,s:s,s:{s:s,s:N,s:N,s:N,s:I},s:N,s:O,s:N,s:N,s:N,"
            "s:N}",
            "name",
            text(m ? m->name : NULL), "method_candidates", candidates(m), "runs", rm->runs,
            "warmup_runs", rm->warmup_runs, "outliers", rm->outliers, "steady_runs",
            rm->steady_runs, "median", tval(rm->unit, rm->median, uns), "robust_scale",
            tval(rm->unit, rm->scale, uns), "execute_total", tval(rm->unit, rm->execute_total, uns),
            "unit", tname(rm->unit, tu), "trend", "verdict", etp_runs_trend_name(rm->trend),
            "slope_per_run", tval(rm->unit, rm->slope, uns), "drift_pct", fnum(rm->drift_pct),
            "p", fnum(rm->trend_p), "runs", rm->trend_runs, "runs_per_second",
            fnum(rm->runs_per_second), "decode_style", rm->decode_style ? Py_True : Py_False,
            "tokens_per_second", fnum(rm->tokens_per_second), "steady_execute_total",
            tval(rm->unit, rm->steady_execute_total, uns), "runs_per_second_steady",
            fnum(rm->runs_per_second_steady), "tokens_per_second_steady",
            fnum(rm->tokens_per_second_steady));
        if (!v) goto done;
        PyList_SET_ITEM(methods, (Py_ssize_t)i, v);
    }
    res = Py_BuildValue("(OO)", d, methods);
done:
    for (int c = 0; c < R_N; c++) Py_XDECREF(cols[c]);
    Py_XDECREF(d);
    Py_XDECREF(methods);
    etp_runs_free(x);
    return res;
}

/* ---- op types (etp_optype_compute): the rows of `etprof ops --by type --format json` ---- */

static PyObject *Profile_op_types(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"time_unit", NULL};
    const char *tu = "us";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$s:op_types", kwlist, &tu)) return NULL;
    double uns = etp_time_unit_ns(tu);
    if (!(uns > 0)) return raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
    if (need_ops(p)) return NULL;
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_optype_result *x = NULL;
    int rc = etp_optype_compute(p->ops, &x, &err);
    if (rc) return raise_etp(rc, &err);
    static const char *const names[] = {"method", "domain", "placement", "type", "rows", "count",
                                        "total", "avg", "per_run", "share", "cum_share", "unit"};
    enum { NC = 12 };
    size_t n = etp_optype_count(x);
    PyObject *cols[NC] = {0}, *d = PyDict_New(), *res = NULL;
    if (!d) goto done;
    for (int c = 0; c < NC; c++) {
        if (!(cols[c] = PyList_New((Py_ssize_t)n))) goto done;
        if (PyDict_SetItemString(d, names[c], cols[c])) goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const etp_optype_row *t = etp_optype_get(x, i);
        const etp_ops_method *m = etp_ops_method_get(p->ops, t->method);
        PyObject *v[NC] = {text(m ? m->name : NULL), text(etp_optype_domain_name(t->domain)),
                           text(t->placement), text(t->type), PyLong_FromUnsignedLong(t->rows),
                           PyLong_FromUnsignedLongLong(t->count), tval(t->unit, t->total, uns),
                           tval(t->unit, t->avg, uns), tval(t->unit, t->per_run, uns),
                           fnum(t->share), fnum(t->cum_share), text(tname(t->unit, tu))};
        for (int c = 0; c < NC; c++) {
            if (!v[c]) {
                for (int k = c; k < NC; k++) Py_XDECREF(v[k]);
                goto done;
            }
            PyList_SET_ITEM(cols[c], (Py_ssize_t)i, v[c]);
        }
    }
    Py_INCREF(d);
    res = d;
done:
    for (int c = 0; c < NC; c++) Py_XDECREF(cols[c]);
    Py_XDECREF(d);
    etp_optype_free(x);
    return res;
}

/* ---- explain (etprof_explain.h): the findings as flat fact records; etprof/__init__.py nests
 * them (lists, records) ---- */

static const char *const fact_kinds[] = {"number", "count", "text", "flag", "list", "row",
                                         "record"};

/* An ops row as explain's JSON names a top operator (src/figures.c ana_json_top_op), values in
 * the row's unit (ns for host time; etprof/__init__.py converts). */
static PyObject *row_dict(const etp_ops_result *r, int32_t i) {
    if (i < 0 || (size_t)i >= etp_ops_row_count(r)) Py_RETURN_NONE;
    const etp_ops_row *row = etp_ops_row_get(r, (size_t)i);
    char pl[300]; /* the label every view gives: an inferred backend named */
    etp_backend_placement_label(r, (size_t)i, pl, sizeof pl);
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:s,s:K,s:N,s:N,s:N,s:N,s:s}", "name", text(row->name),
                         "instruction_id",
                         row->chain >= 0 && row->instr >= 0 ? PyLong_FromLong(row->instr)
                                                            : (Py_INCREF(Py_None), Py_None),
                         "operator", text(row->op), "placement", text(pl), "kind",
                         etp_ops_row_kind_name(row), "count", (unsigned long long)row->count,
                         "p50", fnum(row->stats.p50), "avg", fnum(row->stats.avg), "total",
                         fnum(row->stats.total), "share", fnum(row->share), "unit",
                         etp_unit_name(row->unit));
}

static PyObject *fact_dict(const etp_ops_result *r, const etp_fact *f) {
    return Py_BuildValue(
        "{s:s,s:s,s:N,s:s,s:N,s:O,s:K,s:O,s:N,s:N,s:i,s:i,s:N,s:I,s:O,s:O,s:O,s:O,s:N,s:N}", "id",
        f->id, "kind", fact_kinds[f->kind <= ETP_FACT_RECORD ? f->kind : 0], "value",
        fnum(f->value), "unit", f->unit ? etp_unit_name(f->unit) : "", "per_unit",
        text(f->per_unit ? etp_unit_name(f->per_unit) : NULL), "percent",
        f->percent ? Py_True : Py_False, "count", (unsigned long long)f->count, "flag",
        f->flag ? Py_True : Py_False, "text", text(f->text), "name", text(f->name), "row", f->row,
        "method", f->method, "list", text(f->list), "item", f->item, "extra",
        f->extra ? Py_True : Py_False, "unknown", f->unknown ? Py_True : Py_False, "integral",
        f->integral ? Py_True : Py_False, "cannot_tell", f->cannot_tell ? Py_True : Py_False,
        "settle", text(f->settle), "row_data",
        f->kind == ETP_FACT_ROW ? row_dict(r, f->row) : (Py_INCREF(Py_None), Py_None));
}

static PyObject *Profile_explain(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"top", NULL};
    unsigned int top = 5;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$I:explain", kwlist, &top)) return NULL;
    if (need_ops(p)) return NULL;
    etp_explain_options o;
    memset(&o, 0, sizeof o);
    o.program_given = p->prog != NULL;
    o.top_ops = top;
    o.tick_ns = p->tick_ns;
    o.htp_clock_ghz = NAN;
    o.arm_pmu = profile_pmu(p);
    o.vgf = p->have_pmu_given && p->rlog.vgf.n ? &p->rlog.vgf : NULL;
    etp_error err;
    memset(&err, 0, sizeof err);
    /* QNN's files given to open(): the command's --qhas/--optrace/--runtrace/--heap */
    etp_qnn_etd_join *qj = NULL;
    if (p->have_qb && p->qb.der) {
        const char *src = NULL;
        o.htp_clock_ghz = etp_qnn_clock(0, &p->qb, &src);
        o.htp_clock_source = src;
        o.qnn = p->qb.der;
        if (etp_qnn_derived_row_count(p->qb.der)) {
            int r0 = etp_qnn_join_etdump(p->ops, p->qb.der, &qj, &err);
            if (r0) return raise_etp(r0, &err);
        }
        o.qnn_join = qj;
    }
    etp_explain_result *x = NULL;
    int rc = etp_explain_compute(p->ops, &o, &x, &err);
    if (rc) {
        etp_qnn_etd_join_free(qj);
        return raise_etp(rc, &err);
    }
    PyObject *l = PyList_New((Py_ssize_t)x->n_findings);
    for (size_t i = 0; l && i < x->n_findings; i++) {
        const etp_finding *fd = &x->findings[i];
        PyObject *facts = PyList_New((Py_ssize_t)fd->n_facts);
        for (size_t k = 0; facts && k < fd->n_facts; k++) {
            PyObject *fo = fact_dict(p->ops, &fd->facts[k]);
            if (!fo) {
                Py_CLEAR(facts);
                break;
            }
            PyList_SET_ITEM(facts, (Py_ssize_t)k, fo);
        }
        PyObject *e = facts ? Py_BuildValue("{s:s,s:i,s:i,s:N,s:N,s:N}", "id", fd->id, "question",
                                            (int)fd->question, "method", fd->method, "method_name",
                                            text(fd->method_name), "question_text",
                                            text(fd->question_text), "facts", facts)
                            : NULL;
        if (!e) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, e);
    }
    etp_explain_free(x);
    etp_qnn_etd_join_free(qj); /* after the facts were read: they may point into it */
    return l;
}

/* ---- documents (etprof_result.h) rendered in memory: the library builds the command's
 * document, etp_doc_render() writes it into a memory stream, Python parses the JSON (tree,
 * summary's backend figures) or keeps the text (explain). ---- */

/* The rendering of `doc` in `fmt` (width 0: as the command writes to a file or pipe) as a str;
 * NULL with an exception set. The document is not freed here. */
static double clock_arg(PyObject *o);

/* C only (runs without the GIL): the rendering into a malloc'd buffer; the library's code. */
static int doc_render_mem(const etp_doc *doc, etp_format fmt, char **buf, size_t *n) {
    *buf = NULL;
    *n = 0;
    FILE *f = open_memstream(buf, n);
    if (!f) return ETP_E_INTERNAL;
    etp_render_opts ro = {.width = 0, .csv_raw = false};
    int rc = etp_doc_render(doc, fmt, f, &ro);
    if (fclose(f) != 0 && rc == 0) rc = ETP_E_INTERNAL;
    return rc;
}

/* The rendered buffer as a str (freed here); NULL with an exception set. */
static PyObject *doc_result(int rc, char *buf, size_t n) {
    PyObject *res = NULL;
    if (rc) {
        etp_error err;
        memset(&err, 0, sizeof err);
        etp_error_set(&err, rc == ETP_E_USAGE ? ETP_E_USAGE : ETP_E_INTERNAL, NULL, -1, NULL,
                      "rendering the document failed (out of memory)");
        raise_etp(err.code, &err);
    } else {
        res = PyUnicode_DecodeUTF8(buf ? buf : "", (Py_ssize_t)n, "replace");
    }
    free(buf);
    return res;
}

/* The rendering of `doc` in `fmt` (width 0: as the command writes to a file or pipe) as a str;
 * NULL with an exception set. The document is not freed here. */
static PyObject *doc_text(const etp_doc *doc, etp_format fmt) {
    char *buf;
    size_t n;
    int rc = doc_render_mem(doc, fmt, &buf, &n);
    return doc_result(rc, buf, n);
}

/* The display units of a view: time_unit, the HTP clock (etp_qnn_clock: htp_clock_ghz=, else
 * the Profile's runtrace/QHAS), the Profile's host tick. -1 with an exception set. */
static int view_disp(Profile *p, const char *tu, PyObject *clock, etp_disp *d, double *ghz,
                     const char **src) {
    double given = clock_arg(clock);
    if (given < 0) return -1;
    etp_qnn_bundle empty;
    memset(&empty, 0, sizeof empty);
    *src = NULL;
    *ghz = etp_qnn_clock(given, p->have_qb ? &p->qb : &empty, src);
    if (etp_disp_init(d, tu, *ghz > 0 ? *ghz : 0, p->tick_ns)) {
        raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
        return -1;
    }
    return 0;
}

static const char *pystr_utf8(PyObject *o) {
    return o && PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
}

/* Profile.tree_json(): `etprof tree FILE [--pte P] --format json` (etp_tree_doc) as a str. */
static PyObject *Profile_tree_json(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"stat", "time_unit", "htp_clock_ghz", "format", NULL};
    const char *stat = "p50", *tu = "us", *fmts = "json";
    PyObject *clock = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$ssOs:tree", kwlist, &stat, &tu, &clock, &fmts))
        return NULL;
    etp_format fmt;
    if (strcmp(fmts, "json") == 0) fmt = ETP_FMT_JSON;
    else if (strcmp(fmts, "table") == 0) fmt = ETP_FMT_TABLE;
    else return raise_usage("format: expected json or table, got \"%s\"", fmts);
    etp_disp d;
    double ghz;
    const char *src;
    if (view_disp(p, tu, clock, &d, &ghz, &src)) return NULL;
    if (need_ops(p)) return NULL;
    const char *file = pystr_utf8(p->etdump_path), *prog = pystr_utf8(p->pte_path);
    if (PyErr_Occurred()) return NULL;
    etp_doc *doc = etp_doc_new("tree", 1, file, prog);
    if (!doc) return PyErr_NoMemory();
    etp_tree_opts to = {.stat = stat, .disp = &d, .fmt = fmt, .top = 10, .clock_ghz = ghz,
                        .clock_src = src, .rec = p->rec, .model = p->model};
    etp_error err;
    memset(&err, 0, sizeof err);
    /* building and rendering a large tree takes tens of ms: without the GIL (p is busy) */
    int rc, rrc = 0;
    char *buf = NULL;
    size_t n = 0;
    WITHOUT_GIL(p, rc = etp_tree_doc(doc, p->ops, &to, &err);
                if (!rc) rrc = doc_render_mem(doc, fmt, &buf, &n));
    etp_doc_free(doc);
    if (rc) {
        free(buf);
        return raise_etp(rc, &err);
    }
    return doc_result(rrc, buf, n);
}

/* Profile.session_json(): `etprof session FILE --pte P --format json` (etp_session_compute,
 * etp_session_doc) as a str. */
static PyObject *Profile_session_json(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"prefill_runs", "prompt_tokens", "time_unit", "top", NULL};
    unsigned int prefill = 0, prompt = 0, top = 5;
    const char *tu = "us";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$IIsI:session", kwlist, &prefill, &prompt, &tu,
                                     &top))
        return NULL;
    etp_disp d;
    if (etp_disp_init(&d, tu, 0, p->tick_ns))
        return raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
    if (need_ops(p)) return NULL;
    const char *file = pystr_utf8(p->etdump_path), *prog = pystr_utf8(p->pte_path);
    if (PyErr_Occurred()) return NULL;
    etp_session_opts so;
    etp_session_opts_init(&so);
    so.prefill_runs = prefill;
    so.prompt_tokens = prompt;
    so.slowest = top;
    etp_doc *doc = etp_doc_new("session", 1, file, prog);
    if (!doc) return PyErr_NoMemory();
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_session_result *s = NULL;
    int rc = etp_session_compute(p->ops, etp_model_program(p->model), &so, &s, &err);
    if (!rc) rc = etp_session_doc(doc, s, &d, &err);
    etp_session_free(s);
    if (rc) {
        etp_doc_free(doc);
        return raise_etp(rc, &err);
    }
    PyObject *res = doc_text(doc, ETP_FMT_JSON);
    etp_doc_free(doc);
    return res;
}

/* Profile.backend_figures_json(): summary's "backend_figures" member (etp_backend_figures_get,
 * etp_fig_backend_figures) as the JSON text of {"backend_figures": {...}}. */
static PyObject *Profile_backend_figures_json(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"time_unit", NULL};
    const char *tu = "us";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$s:backend_figures", kwlist, &tu)) return NULL;
    etp_disp d;
    if (etp_disp_init(&d, tu, 0, p->tick_ns))
        return raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
    if (need_ops(p)) return NULL;
    etp_backend_figures bf;
    etp_error err;
    memset(&err, 0, sizeof err);
    int rc;
    WITHOUT_GIL(p, rc = etp_backend_figures_get(p->model, p->ops, &bf, &err));
    if (rc) {
        etp_backend_figures_free(&bf);
        return raise_etp(err.code ? err.code : ETP_E_INTERNAL, &err);
    }
    etp_doc *doc = etp_doc_new("summary", -1, NULL, NULL);
    PyObject *res = NULL;
    if (!doc) {
        PyErr_NoMemory();
    } else {
        etp_doc_envelope(doc, 0);
        etp_doc_json_omit(doc, ETP_JSON_NO_NOTES);
        etp_fig_backend_figures(etp_doc_root(doc), "backend_figures", &d, &bf);
        res = doc_text(doc, ETP_FMT_JSON);
        etp_doc_free(doc);
    }
    etp_backend_figures_free(&bf);
    return res;
}

/* Profile.arm_pmu_json(): summary's "arm_pmu" member (etp_dump_arm_pmu, etp_fig_arm_pmu) as the
 * JSON text of {"arm_pmu": {...} or null, "notes": [...]}; None when the dump was not read from an
 * Arm runner's serial log. */
static void doc_note_py_cb(void *ctx, const char *text) { etp_doc_note(ctx, text); }

/* The PMU report in use: runner_log='s, else the one of the log the dump was read from. */
static const etp_arm_pmu_report *profile_pmu(const Profile *p) {
    return p->have_pmu_given ? &p->rlog.pmu : etp_dump_arm_pmu(p->dump);
}

/* Profile.set_runner_log(path): reads the Arm runner's log `path` (etp_runner_log_read: its PMU
 * report and VGF device times), used from then on by arm_pmu(), vgf_device_time(), explain and
 * the report. */
static PyObject *Profile_set_runner_log(Profile *p, PyObject *arg) {
    if (busy_error(p)) return NULL;
    PyObject *b = NULL;
    if (!PyUnicode_FSConverter(arg, &b)) return NULL;
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_runner_log l;
    int rc = etp_runner_log_read(PyBytes_AS_STRING(b), &l, &err);
    Py_DECREF(b);
    if (rc) return raise_etp(rc, &err);
    etp_runner_log_free(&p->rlog);
    p->rlog = l;
    p->have_pmu_given = true;
    Py_RETURN_NONE;
}

/* Profile.vgf_device_time_json(time_unit): summary's "vgf_device_time" member and its notes
 * (etp_fig_vgf_device_times, etp_vgf_device_notes) as the JSON text of {"vgf_device_time": ...,
 * "notes": [...]}; None without runner_log= or when its log holds no VGF device time. */
static PyObject *Profile_vgf_device_time_json(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"time_unit", NULL};
    const char *tu = "us";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$s:vgf_device_time", kwlist, &tu)) return NULL;
    etp_disp d;
    if (etp_disp_init(&d, tu, 0, p->tick_ns))
        return raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
    if (!p->have_pmu_given || !p->rlog.vgf.n) Py_RETURN_NONE;
    if (need_ops(p)) return NULL;
    etp_doc *doc = etp_doc_new("summary", -1, NULL, NULL);
    if (!doc) return PyErr_NoMemory();
    etp_doc_envelope(doc, 0);
    etp_fig_vgf_device_times(etp_doc_root(doc), "vgf_device_time", &d, &p->rlog.vgf, p->ops);
    etp_doc_notes_here(doc);
    etp_vgf_device_notes(&p->rlog.vgf, p->ops, doc_note_py_cb, doc);
    PyObject *res = doc_text(doc, ETP_FMT_JSON);
    etp_doc_free(doc);
    return res;
}

static PyObject *Profile_arm_pmu_json(Profile *p, PyObject *noargs) {
    (void)noargs;
    if (busy_error(p)) return NULL;
    const etp_arm_pmu_report *pmu = profile_pmu(p);
    if (!pmu) Py_RETURN_NONE;
    if (need_ops(p)) return NULL;
    uint64_t runs = etp_arm_pmu_etdump_runs(p->ops);
    etp_doc *doc = etp_doc_new("summary", -1, NULL, NULL);
    if (!doc) return PyErr_NoMemory();
    etp_doc_envelope(doc, 0);
    etp_fig_arm_pmu(etp_doc_root(doc), "arm_pmu", pmu, runs);
    etp_doc_notes_here(doc);
    etp_arm_pmu_notes(pmu, runs, doc_note_py_cb, doc);
    PyObject *res = doc_text(doc, ETP_FMT_JSON);
    etp_doc_free(doc);
    return res;
}

/* Profile.explain_doc(): `etprof explain FILE [--pte P] [QNN files] --format F` (etp_explain_doc)
 * rendered as a str: "table" is the command's text, "json" its JSON. The QNN files given to
 * open() are the command's --qhas/--optrace/--runtrace/--heap (joined to this dump). */
static PyObject *Profile_explain_doc(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"time_unit", "top", "htp_clock_ghz", "format", NULL};
    const char *tu = "us", *fmts = "table";
    unsigned int top = 5;
    PyObject *clock = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$sIOs:explain", kwlist, &tu, &top, &clock, &fmts))
        return NULL;
    etp_format fmt;
    if (strcmp(fmts, "json") == 0) fmt = ETP_FMT_JSON;
    else if (strcmp(fmts, "table") == 0) fmt = ETP_FMT_TABLE;
    else if (strcmp(fmts, "md") == 0) fmt = ETP_FMT_MD;
    else return raise_usage("format: expected table, md or json, got \"%s\"", fmts);
    double given = clock_arg(clock);
    if (given < 0) return NULL;
    etp_disp d;
    if (etp_disp_init(&d, tu, 0, p->tick_ns))
        return raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
    if (need_ops(p)) return NULL;
    /* the QNN paths as given (PyUnicode_AsUTF8 stays valid while the dict holds the str) */
    static const char *const keys[4] = {"qhas", "optrace", "runtrace", "heap"};
    const char *cp[4] = {NULL, NULL, NULL, NULL};
    for (int k = 0; p->qnn_paths && k < 4; k++) {
        PyObject *v = PyDict_GetItemString(p->qnn_paths, keys[k]);
        if (v && v != Py_None && !(cp[k] = PyUnicode_AsUTF8(v))) return NULL;
    }
    etp_qnn_paths qp = {cp[0], cp[1], cp[2], cp[3]};
    etp_qnn_bundle empty;
    memset(&empty, 0, sizeof empty);
    const etp_qnn_bundle *qb = p->have_qb ? &p->qb : &empty;
    const char *src = NULL;
    double ghz = etp_qnn_clock(given, qb, &src);
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_qnn_etd_join *qj = NULL;
    int rc = 0;
    if (qb->der && etp_qnn_derived_row_count(qb->der))
        rc = etp_qnn_join_etdump(p->ops, qb->der, &qj, &err);
    if (rc) return raise_etp(rc, &err);
    const char *file = pystr_utf8(p->etdump_path), *prog = pystr_utf8(p->pte_path);
    PyObject *res = NULL;
    etp_doc *doc = PyErr_Occurred() ? NULL : etp_doc_new("explain", 1, file, prog);
    if (!doc) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
    } else {
        etp_explain_doc_opts eo = {
            .disp = &d, .fmt = fmt, .path = file, .qnn_paths = &qp, .rec = p->rec,
            .explain = {.program_given = p->prog != NULL, .top_ops = top, .tick_ns = d.tick_ns,
                        .qnn = qb->der, .qnn_join = qj, .htp_clock_ghz = ghz,
                        .htp_clock_source = src, .arm_pmu = profile_pmu(p),
                        .vgf = p->have_pmu_given && p->rlog.vgf.n ? &p->rlog.vgf : NULL}};
        int rrc = 0;
        char *buf = NULL;
        size_t n = 0;
        WITHOUT_GIL(p, rc = etp_explain_doc(doc, p->ops, &eo, &err);
                    if (!rc) rrc = doc_render_mem(doc, fmt, &buf, &n));
        etp_doc_free(doc);
        if (rc) {
            free(buf);
            res = raise_etp(rc, &err);
        } else {
            res = doc_result(rrc, buf, n);
        }
    }
    etp_qnn_etd_join_free(qj);
    return res;
}

/* ---- modules (etprof_modules.h): time per nn.Module, the rows of `etprof modules --format
 * csv` (flat, tree order) as columns ---- */

enum { M_METHOD, M_DOMAIN, M_DEPTH, M_MODULE, M_CLASS, M_NO_MODULE, M_PARENT, M_INCL, M_EXCL,
       M_SHARE, M_COUNT, M_COUNT_EXCL, M_UNIT, M_RUNS, M_N };
static const char *const mcol_names[M_N] = {
    "method", "domain", "depth", "module", "class", "no_module", "parent", "inclusive",
    "exclusive", "share", "count", "count_exclusive", "unit", "runs"};

/* Profile.modules_columns(): (columns, {domains, joins}); `etrecord` a path to read for this
 * call (the Inspector's), else the Profile's. */
static PyObject *Profile_modules_columns(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"time_unit", "module", "etrecord", NULL};
    const char *tu = "us", *module = NULL, *etr = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$szz:modules", kwlist, &tu, &module, &etr))
        return NULL;
    etp_disp d;
    if (etp_disp_init(&d, tu, 0, p->tick_ns))
        return raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
    if (need_ops(p)) return NULL;
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_etrecord *own = NULL;
    if (etr) {
        int r0 = etp_etrecord_open(&own, etr, NULL, &err);
        if (r0) return raise_etp(r0, &err);
    }
    const etp_etrecord *rec = own ? own : p->rec;
    if (!rec)
        return raise_usage("modules: open the Profile with etrecord=R: the nn.Module of each "
                           "operator comes from the program's ETRecord%s (generate_etrecord=True "
                           "at export, then get_etrecord().save(PATH))", "");
    etp_modules_opts mo = {.module = module};
    etp_modules *m = NULL;
    int rc = etp_modules_compute(p->ops, rec, &mo, &m, &err);
    if (rc) {
        etp_etrecord_close(own);
        return raise_etp(rc, &err);
    }
    size_t n = etp_modules_row_count(m), nd = etp_modules_domain_count(m);
    PyObject *cols = PyDict_New(), *doms = PyList_New(0), *res = NULL;
    PyObject *l[M_N] = {0};
    if (!cols || !doms) goto done;
    for (int c = 0; c < M_N; c++) {
        if (!(l[c] = PyList_New((Py_ssize_t)n))) goto done;
        if (PyDict_SetItemString(cols, mcol_names[c], l[c])) goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const etp_module_row *r = etp_modules_row_get(m, i);
        const etp_modules_domain *dm = etp_modules_domain_get(m, r->domain);
        const char *un = NULL;
        double incl = etp_disp_conv(&d, r->unit, r->inclusive, &un);
        double excl = etp_disp_conv(&d, r->unit, r->exclusive, &un);
        PyObject *v[M_N];
        v[M_METHOD] = text(etp_ops_method_get(p->ops, r->method)->name);
        v[M_DOMAIN] = PyUnicode_FromString(etp_mod_domain_name(dm->domain));
        v[M_DEPTH] = PyLong_FromUnsignedLong(r->depth);
        v[M_MODULE] = text(r->no_module ? "(no module)" : r->path);
        v[M_CLASS] = text(r->cls);
        v[M_NO_MODULE] = PyBool_FromLong(r->no_module);
        v[M_PARENT] = PyLong_FromLong(r->parent);
        v[M_INCL] = fnum(incl);
        v[M_EXCL] = fnum(excl);
        v[M_SHARE] = fnum(r->share);
        v[M_COUNT] = PyLong_FromUnsignedLongLong(r->count);
        v[M_COUNT_EXCL] = PyLong_FromUnsignedLongLong(r->count_exclusive);
        v[M_UNIT] = text(un);
        v[M_RUNS] = PyLong_FromUnsignedLong(dm->runs);
        bool bad = false;
        for (int c = 0; c < M_N; c++) {
            if (!v[c]) bad = true;
            else PyList_SET_ITEM(l[c], (Py_ssize_t)i, v[c]);
        }
        if (bad) goto done;
    }
    for (size_t i = 0; i < nd; i++) {
        const etp_modules_domain *dm = etp_modules_domain_get(m, i);
        const char *un = NULL;
        double tot = etp_disp_conv(&d, dm->unit, dm->total, &un);
        PyObject *o = Py_BuildValue("{s:N,s:s,s:N,s:I,s:N,s:K,s:K}", "method",
                                    text(etp_ops_method_get(p->ops, dm->method)->name), "domain",
                                    etp_mod_domain_name(dm->domain), "unit", text(un), "runs",
                                    dm->runs, "total", fnum(tot), "rows",
                                    (unsigned long long)dm->rows, "rows_module",
                                    (unsigned long long)dm->rows_module);
        if (!o || PyList_Append(doms, o)) {
            Py_XDECREF(o);
            goto done;
        }
        Py_DECREF(o);
    }
    const etp_modules_joins *j = etp_modules_join_counts(m);
    res = Py_BuildValue("(O{s:O,s:{s:K,s:K,s:K,s:K},s:N})", cols, "domains", doms, "joins",
                        "rows", (unsigned long long)j->rows, "rows_matched",
                        (unsigned long long)j->matched, "htp_rows",
                        (unsigned long long)j->htp_rows, "htp_rows_matched",
                        (unsigned long long)j->htp_matched, "etrecord",
                        text(etp_etrecord_path(rec)));
done:
    for (int c = 0; c < M_N; c++) Py_XDECREF(l[c]);
    Py_XDECREF(cols);
    Py_XDECREF(doms);
    etp_modules_free(m);
    etp_etrecord_close(own);
    return res;
}

/* ---- check-outputs (etprof_bundled.h): the run's logged method outputs against the bundled
 * program's expected outputs, the keys of `etprof check-outputs --format json` ---- */

static PyObject *i64_dims(const int64_t *d, uint32_t n) {
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (uint32_t i = 0; l && i < n; i++) {
        PyObject *x = PyLong_FromLongLong((long long)d[i]);
        if (!x) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, x);
    }
    return l;
}

static PyObject *chk_row_dict(const etp_chk_row *x) {
    const etp_bvalue *ev = x->expected;
    bool ea = x->has_actual && x->actual_is_tensor;
    bool ee = x->has_expected && ev->kind == ETP_BV_TENSOR;
    const char *dt = !x->has_actual ? NULL
                     : x->actual_is_tensor ? etp_scalar_type_name(x->actual.scalar_type)
                                           : "scalar";
    const char *edt = !x->has_expected ? NULL
                      : ee ? etp_scalar_type_name(ev->tensor.scalar_type)
                           : etp_bvalue_kind_name(ev->kind);
    return Py_BuildValue(
        "{s:I,s:I,s:I,s:N,s:s,s:O,s:N,s:N,s:N,s:N,s:K,s:K,s:N,s:O,s:N}", "run", etp_run_number(x->run), "block",
        x->block, "output_index", x->output_index, "method", text(x->method), "status",
        etp_chk_status_name(x->status), "within_tolerance",
        x->status == ETP_CHK_PASS ? Py_True : Py_False, "dtype", text(dt), "expected_dtype",
        text(edt), "shape", ea ? i64_dims(x->actual.sizes, x->actual.rank) : PyList_New(0),
        "expected_shape", ee ? i64_dims(ev->tensor.sizes, ev->tensor.rank) : PyList_New(0),
        "numel", (unsigned long long)x->numel, "mismatched", (unsigned long long)x->mismatched,
        "max_abs", fnum(x->max_abs), "tolerance_used", x->tolerance_used ? Py_True : Py_False,
        "actual_scalar",
        x->has_actual && !x->actual_is_tensor ? fnum(x->actual_scalar)
                                              : (Py_INCREF(Py_None), Py_None));
}

/* Profile.check_outputs(): the Profile's program is the bundled program, its debug buffer the
 * one the run logged into. */
static PyObject *Profile_check_outputs(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"test_case", "rtol", "atol", NULL};
    etp_chk_opts co;
    etp_chk_opts_default(&co);
    unsigned int tc = 0;
    PyObject *rt = Py_None, *at = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$IOO:check_outputs", kwlist, &tc, &rt, &at))
        return NULL;
    co.test_case = tc;
    PyObject *const tol[2] = {rt, at};
    double *const dst[2] = {&co.rtol, &co.atol};
    for (int k = 0; k < 2; k++) {
        if (tol[k] == Py_None) continue;
        double v = PyFloat_AsDouble(tol[k]);
        if (v == -1 && PyErr_Occurred()) return NULL;
        if (!(v >= 0) || isinf(v)) {
            char b[32];
            snprintf(b, sizeof b, "%g", v);
            return raise_usage(k ? "atol: expected a number >= 0, got %s"
                                 : "rtol: expected a number >= 0, got %s", b);
        }
        *dst[k] = v;
    }
    if (!p->model) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed etprof.Profile");
        return NULL;
    }
    if (!p->prog || !p->have_pte_blob)
        return raise_usage("check_outputs: give the bundled program (the .bpte the run used)%s",
                           "");
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_bundled *b = NULL;
    etp_chk_result *r = NULL;
    int rc = etp_bundled_open(&b, &p->pte_blob, &err);
    if (!rc)
        WITHOUT_GIL(p, rc = etp_check_outputs(p->model, p->have_dbuf_blob ? &p->dbuf_blob : NULL,
                                              b, &co, &r, &err));
    if (rc) {
        etp_bundled_close(b);
        return raise_etp(rc, &err);
    }
    size_t n = etp_chk_row_count(r);
    uint32_t runs = etp_chk_runs(r);
    uint64_t failed = etp_chk_failed(r);
    PyObject *rows = PyList_New((Py_ssize_t)n), *res = NULL;
    for (size_t i = 0; rows && i < n; i++) {
        PyObject *o = chk_row_dict(etp_chk_row_get(r, i));
        if (!o) {
            Py_CLEAR(rows);
            break;
        }
        PyList_SET_ITEM(rows, (Py_ssize_t)i, o);
    }
    if (rows)
        res = Py_BuildValue("{s:I,s:d,s:d,s:I,s:n,s:K,s:O,s:N}", "test_case", co.test_case,
                            "rtol", co.rtol, "atol", co.atol, "runs", runs, "checked",
                            (Py_ssize_t)n, "failed", (unsigned long long)failed, "passed",
                            runs ? (failed == 0 ? Py_True : Py_False) : Py_None, "outputs",
                            rows);
    etp_chk_free(r);
    etp_bundled_close(b);
    return res;
}

/* Writes `path` atomically: a temporary file beside it, renamed over it when the writer
 * succeeded, removed otherwise (no partial output file). kind 0: trace, 1: report. */
/* The body of write_file: the trace or report written into `f` (closed here), then renamed
 * over `dst`. kind 0: JSON trace, 1: report, 2: Perfetto trace. C only: runs without the GIL.
 * The library's code, or 0 with *werr an errno. */
static int write_body(Profile *p, int kind, FILE *f, const char *dst, size_t n, const char *src,
                      const char *prog, const char *tu, const char *const qnn[4],
                      const char *tmp, etp_trace_stats *stp, int *werrp, etp_error *errp) {
    int rc, werr = 0;
    etp_trace_stats st;
    etp_error err;
    memset(&st, 0, sizeof st);
    memset(&err, 0, sizeof err);
    if (kind == 0 || kind == 2) {
        etp_trace_opts to;
        memset(&to, 0, sizeof to);
        to.source = src;
        to.program = prog;
        to.tick_ns = p->tick_ns;
        FILE *gz = n > 3 && strcmp(dst + n - 3, ".gz") == 0 ? etp_gzip_open(f, &err) : NULL;
        if (n > 3 && strcmp(dst + n - 3, ".gz") == 0 && !gz) rc = ETP_E_INTERNAL;
        else if (kind == 2)
            rc = etp_trace_write_perfetto(p->model, gz ? gz : f, &to, NULL, 0, NULL, &st, &err);
        else rc = etp_trace_write(p->model, gz ? gz : f, &to, &st, &err);
        if (gz && fclose(gz) && !rc) rc = ETP_E_IO; /* the gzip trailer; errno is set */
    } else {
        etp_report_opts ro;
        etp_report_opts_init(&ro);
        ro.source = src;
        ro.program = prog;
        ro.time_unit = tu;
        ro.tick_ns = p->tick_ns;
        ro.block = p->block;
        ro.skip_first = p->skip_first;
        ro.qhas = qnn[0];
        ro.optrace = qnn[1];
        ro.runtrace = qnn[2];
        ro.heap = qnn[3];
        ro.arm_pmu = profile_pmu(p);
        ro.vgf = p->have_pmu_given && p->rlog.vgf.n ? &p->rlog.vgf : NULL;
        rc = etp_report_write(p->model, f, &ro, &err);
    }
    etp_model_trim(p->model); /* an idle Profile holds no block */
    if (fflush(f) || ferror(f)) werr = errno ? errno : EIO;
    if (fsync(fileno(f)) && !werr && errno != EINVAL) werr = errno;
    if (fclose(f) && !werr) werr = errno ? errno : EIO;
    if (!rc && !werr && rename(tmp, dst)) werr = errno;
    *stp = st;
    *werrp = werr;
    *errp = err;
    return rc;
}

static PyObject *write_file(Profile *p, int kind, PyObject *path, const char *tu,
                            const char *const qnn[4]) {
    if (!p->model) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed etprof.Profile");
        return NULL;
    }
    PyObject *pb = NULL;
    if (!PyUnicode_FSConverter(path, &pb)) return NULL;
    const char *dst = PyBytes_AS_STRING(pb);
    size_t n = strlen(dst);
    char *tmp = malloc(n + 16);
    if (!tmp) {
        Py_DECREF(pb);
        return PyErr_NoMemory();
    }
    snprintf(tmp, n + 16, "%s.XXXXXX.tmp", dst);
    int fd = mkstemps(tmp, 4);
    if (fd < 0) {
        PyErr_SetFromErrnoWithFilename(IOErr, dst);
        free(tmp);
        Py_DECREF(pb);
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        PyErr_SetFromErrnoWithFilename(IOErr, dst);
        close(fd);
        unlink(tmp);
        free(tmp);
        Py_DECREF(pb);
        return NULL;
    }
    etp_error err;
    memset(&err, 0, sizeof err);
    const char *src = PyUnicode_AsUTF8(p->etdump_path);
    const char *prog = p->pte_path != Py_None ? PyUnicode_AsUTF8(p->pte_path) : NULL;
    int rc, werr = 0;
    etp_trace_stats st;
    memset(&st, 0, sizeof st);
    /* the writer and the file's end run without the GIL (C only) */
    WITHOUT_GIL(p, rc = write_body(p, kind, f, dst, n, src, prog, tu, qnn, tmp, &st, &werr, &err));
    if (rc || werr) {
        unlink(tmp);
        free(tmp);
        if (rc && rc != ETP_E_IO) {
            Py_DECREF(pb);
            return raise_etp(rc, &err);
        }
        errno = werr ? werr : EIO;
        PyErr_SetFromErrnoWithFilename(IOErr, dst);
        Py_DECREF(pb);
        return NULL;
    }
    free(tmp);
    Py_DECREF(pb);
    if (kind == 0 || kind == 2)
        return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "processes",
                             (unsigned long long)st.processes, "tracks",
                             (unsigned long long)st.tracks, "slices",
                             (unsigned long long)st.slices, "synthetic",
                             (unsigned long long)st.synthetic, "instants",
                             (unsigned long long)st.instants, "clamped",
                             (unsigned long long)st.clamped, "unplaced",
                             (unsigned long long)st.unplaced);
    Py_RETURN_NONE;
}

static PyObject *Profile_write_trace(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"path", "perfetto", NULL};
    PyObject *path;
    int perfetto = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p:write_trace", kwlist, &path, &perfetto))
        return NULL;
    return write_file(p, perfetto ? 2 : 0, path, NULL, NULL);
}

static PyObject *Profile_write_report(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"path", "time_unit", "qhas", "optrace", "runtrace", "heap", NULL};
    PyObject *path;
    const char *tu = "us";
    const char *q[4] = {NULL, NULL, NULL, NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$szzzz:write_report", kwlist, &path, &tu, &q[0],
                                     &q[1], &q[2], &q[3]))
        return NULL;
    if (!(etp_time_unit_ns(tu) > 0))
        return raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
    return write_file(p, 1, path, tu, q);
}

/* ------------------------------------------------------------------------------------------ */
/* Logged tensors and values (etprof tensors; include/etprof_tensor.h)                         */

/* One logged value, as `etprof tensors` lists them: a tensor (or one element of a TensorList)
 * with its view, or an inline int/bool/float/double. */
typedef struct trow {
    const etp_block_view *bv;
    const etp_mevent *e;
    const char *entry, *dtype;
    const etp_tensor_view *v; /* NULL for an inline value */
    const etp_value *val;
    double x; /* the inline value as a double */
    bool output;
    uint32_t run; /* the run (block with logged values, from 0) it is in: --select run=N */
} trow;

/* fn: 0 to go on, 1 to stop, -1 with a Python exception set */
typedef int (*trow_fn)(void *ctx, const trow *r);

/* Every logged value in the order of the command (src/cli/cmd_tensors.c): blocks, events,
 * TensorList elements. A tensor outside the buffer (or without one) is the library's located
 * error. 0, or -1 with an exception set. */
static int walk_tensors_blocks(Profile *p, trow_fn fn, void *ctx);

static int walk_tensors(Profile *p, trow_fn fn, void *ctx) {
    int rc = walk_tensors_blocks(p, fn, ctx);
    if (p->model) etp_model_trim(p->model); /* an idle Profile holds no block */
    return rc;
}

static int walk_tensors_blocks(Profile *p, trow_fn fn, void *ctx) {
    if (!p->model) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed etprof.Profile");
        return -1;
    }
    const etp_blob *buf = p->have_dbuf_blob ? &p->dbuf_blob : NULL;
    const etp_dump_info *di = etp_dump_get_info(p->dump);
    etp_error err;
    memset(&err, 0, sizeof err);
    uint32_t run = 0;
    for (uint32_t b = 0; b < di->block_count; b++) {
        etp_block_view bv;
        int rc = etp_model_block(p->model, b, &bv, &err);
        if (rc) {
            raise_etp(rc, &err);
            return -1;
        }
        bool logged = false; /* the command's rule (cmd_tensors.c): a block with any value */
        for (uint32_t i = 0; i < bv.n; i++) {
            const etp_mevent *e = &bv.events[i];
            if (e->ev.type != ETP_EVENT_DEBUG || !e->ev.debug.has_debug_entry) continue;
            const etp_value *val = &e->ev.debug.debug_entry;
            trow r = {&bv, e, NULL, NULL, NULL, val, 0, val->has_output && val->output, run};
            if ((val->val == ETP_VAL_TENSOR && val->has_tensor) ||
                (val->val == ETP_VAL_TENSOR_LIST && val->has_tensor_list) ||
                (val->val == ETP_VAL_INT && val->has_int) ||
                (val->val == ETP_VAL_BOOL && val->has_bool) ||
                (val->val == ETP_VAL_FLOAT && val->has_float) ||
                (val->val == ETP_VAL_DOUBLE && val->has_double))
                logged = true;
            etp_tensor_view v;
            int k = 0;
            if (val->val == ETP_VAL_TENSOR && val->has_tensor) {
                char path[160];
                snprintf(path, sizeof path, "run_data[%u].events[%u].debug_event.debug_entry.tensor",
                         b, i);
                if ((rc = etp_tensor_view_init(&val->tensor, buf, path, &v, &err))) {
                    raise_etp(rc, &err);
                    return -1;
                }
                r.entry = "tensor";
                r.dtype = etp_scalar_type_name(v.scalar_type);
                r.v = &v;
                k = fn(ctx, &r);
            } else if (val->val == ETP_VAL_TENSOR_LIST && val->has_tensor_list) {
                for (uint32_t t = 0; t < val->tensor_list_len && !k; t++) {
                    etp_tensor tk;
                    etp_value_tensor_list_get(val, t, &tk);
                    char ent[32], path[200];
                    snprintf(ent, sizeof ent, "tensor_list[%u]", t);
                    snprintf(path, sizeof path, "run_data[%u].events[%u].debug_event.debug_entry."
                             "tensor_list.tensors[%u]", b, i, t);
                    if ((rc = etp_tensor_view_init(&tk, buf, path, &v, &err))) {
                        raise_etp(rc, &err);
                        return -1;
                    }
                    r.entry = ent;
                    r.dtype = etp_scalar_type_name(v.scalar_type);
                    r.v = &v;
                    k = fn(ctx, &r);
                }
            } else if (val->val == ETP_VAL_INT && val->has_int) {
                r.entry = "int", r.dtype = "int64", r.x = (double)val->int_val;
                k = fn(ctx, &r);
            } else if (val->val == ETP_VAL_BOOL && val->has_bool) {
                r.entry = "bool", r.dtype = "bool", r.x = val->bool_val;
                k = fn(ctx, &r);
            } else if (val->val == ETP_VAL_FLOAT && val->has_float) {
                r.entry = "float", r.dtype = "float32", r.x = val->float_val;
                k = fn(ctx, &r);
            } else if (val->val == ETP_VAL_DOUBLE && val->has_double) {
                r.entry = "double", r.dtype = "float64", r.x = val->double_val;
                k = fn(ctx, &r);
            }
            if (k < 0) return -1;
            if (k > 0) return 0;
        }
        run += logged;
    }
    return 0;
}

/* ---- tensors(select="EXPR"): the rows etp_tensor_select_match keeps (--select EXPR) ---- */
typedef struct tsel_ctx {
    const etp_tensor_select *sel;
    PyObject *out;
    Py_ssize_t i;
} tsel_ctx;

static int tsel_row(void *vctx, const trow *r) {
    tsel_ctx *c = vctx;
    Py_ssize_t i = c->i++;
    if (!etp_tensor_select_match(c->sel, r->bv->block, r->run, r->e->instr, r->e->op_name,
                                 r->e->op_overload))
        return 0;
    PyObject *x = PyLong_FromSsize_t(i);
    int rc = x ? PyList_Append(c->out, x) : -1;
    Py_XDECREF(x);
    return rc < 0 ? -1 : 0;
}

static PyObject *Profile_tensor_select(Profile *p, PyObject *args) {
    if (busy_error(p)) return NULL;
    const char *expr;
    if (!PyArg_ParseTuple(args, "s:tensor_select", &expr)) return NULL;
    etp_tensor_select sel;
    etp_error err;
    memset(&err, 0, sizeof err);
    int rc = etp_tensor_select_parse(expr, &sel, &err);
    if (rc) return raise_etp(rc, &err);
    tsel_ctx c = {&sel, PyList_New(0), 0};
    if (!c.out) return NULL;
    if (walk_tensors(p, tsel_row, &c)) Py_CLEAR(c.out);
    return c.out;
}

enum {
    T_BLOCK, T_EVENT, T_INSTR, T_CHAIN, T_OUTPUT, T_METHOD, T_OPERATOR, T_DID, T_ENTRY, T_DTYPE,
    T_SHAPE, T_STRIDES, T_OFFSET, T_NUMEL, T_MIN, T_MAX, T_MEAN, T_STD, T_NAN, T_INF, T_ZF,
    T_VALUES, T_N
};
/* the keys of `etprof tensors --format json` rows, in order */
static const char *const tcol_names[T_N] = {
    "block", "event", "instruction_id", "chain_index", "output", "method", "operator",
    "delegate_debug_id_int", "entry", "dtype", "shape", "strides", "offset", "numel", "min",
    "max", "mean", "std", "nan", "inf", "zero_fraction", "values"};
#define T_NVALUES 8 /* first values shown, as the command */

static PyObject *i64_list(const int64_t *d, uint32_t n) {
    PyObject *l = PyList_New(n);
    for (uint32_t i = 0; l && i < n; i++) {
        PyObject *x = PyLong_FromLongLong(d[i]);
        if (!x) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, i, x);
    }
    return l;
}

static PyObject *trow_value(const trow *r, const etp_tensor_stats *st, int c) {
    const etp_mevent *e = r->e;
    const etp_tensor_view *v = r->v;
    switch (c) {
    case T_BLOCK: return PyLong_FromUnsignedLong(r->bv->block);
    case T_EVENT: return PyLong_FromUnsignedLong(e->index);
    case T_INSTR: return PyLong_FromLong(e->instr);
    case T_CHAIN: return PyLong_FromLong(e->chain);
    case T_OUTPUT: return PyBool_FromLong(r->output);
    case T_METHOD: return text(r->bv->method);
    case T_OPERATOR:
        if (e->op_name)
            return PyUnicode_FromFormat("%s%s%s", e->op_name,
                                        e->op_overload && *e->op_overload ? "." : "",
                                        e->op_overload ? e->op_overload : "");
        Py_RETURN_NONE;
    case T_DID: return PyLong_FromLong(e->ev.debug.delegate_debug_id_int);
    case T_ENTRY: return text(r->entry);
    case T_DTYPE: return text(r->dtype);
    case T_SHAPE: return v ? i64_list(v->sizes, v->rank) : PyList_New(0);
    case T_STRIDES: return v ? i64_list(v->strides, v->rank) : PyList_New(0);
    case T_OFFSET: if (v) return PyLong_FromLongLong(v->offset); Py_RETURN_NONE;
    case T_NUMEL: return PyLong_FromUnsignedLongLong(st->numel);
    case T_MIN: return fnum(st->min);
    case T_MAX: return fnum(st->max);
    case T_MEAN: return fnum(st->mean);
    case T_STD: return fnum(st->std);
    case T_NAN: return PyLong_FromUnsignedLongLong(st->nan);
    case T_INF: return PyLong_FromUnsignedLongLong(st->inf);
    case T_ZF: return fnum(st->numel ? (double)st->zeros / (double)st->numel : NAN);
    case T_VALUES: {
        uint64_t nv = v ? (v->base ? v->numel : 0) : 1;
        if (nv > T_NVALUES) nv = T_NVALUES;
        PyObject *l = PyList_New((Py_ssize_t)nv);
        for (uint64_t i = 0; l && i < nv; i++) {
            PyObject *x = fnum(v ? etp_tensor_get(v, i) : r->x);
            if (!x) {
                Py_CLEAR(l);
                break;
            }
            PyList_SET_ITEM(l, (Py_ssize_t)i, x);
        }
        return l;
    }
    }
    Py_RETURN_NONE;
}

typedef struct tcols_ctx {
    PyObject *cols[T_N];
} tcols_ctx;

static int tcols_row(void *vctx, const trow *r) {
    tcols_ctx *c = vctx;
    etp_tensor_stats st;
    memset(&st, 0, sizeof st);
    if (r->v) etp_tensor_stats_compute(r->v, &st);
    else { /* an inline value: the command's statistics of one element */
        st.numel = 1;
        st.min = st.max = st.mean = r->x;
        st.std = 0;
        st.zeros = r->x == 0;
        st.nan = isnan(r->x);
        st.inf = isinf(r->x);
    }
    for (int k = 0; k < T_N; k++) {
        PyObject *x = trow_value(r, &st, k);
        if (!x) return -1;
        int e = PyList_Append(c->cols[k], x);
        Py_DECREF(x);
        if (e) return -1;
    }
    return 0;
}

static PyObject *Profile_tensor_columns(Profile *p, PyObject *Py_UNUSED(ignored)) {
    if (busy_error(p)) return NULL;
    tcols_ctx c;
    memset(&c, 0, sizeof c);
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (int k = 0; k < T_N; k++)
        if (!(c.cols[k] = PyList_New(0)) || PyDict_SetItemString(d, tcol_names[k], c.cols[k]))
            goto fail;
    if (walk_tensors(p, tcols_row, &c)) goto fail;
    for (int k = 0; k < T_N; k++) Py_DECREF(c.cols[k]);
    return d;
fail:
    for (int k = 0; k < T_N; k++) Py_XDECREF(c.cols[k]);
    Py_DECREF(d);
    return NULL;
}

/* Row `want`'s values: ("npy", the .npy bytes etp_tensor_write_npy writes: dtype, shape and the
 * elements in row-major order through the strides) for a tensor; (entry, value) for an inline
 * value ("int" -> int, "bool" -> bool, "float"/"double" -> float). */
typedef struct tnpy_ctx {
    Py_ssize_t want, at;
    PyObject *res;
} tnpy_ctx;

static int tnpy_row(void *vctx, const trow *r) {
    tnpy_ctx *c = vctx;
    if (c->at++ != c->want) return 0;
    if (!r->v) {
        const etp_value *val = r->val;
        PyObject *x = val->val == ETP_VAL_INT    ? PyLong_FromLongLong(val->int_val)
                      : val->val == ETP_VAL_BOOL ? PyBool_FromLong(val->bool_val)
                                                 : PyFloat_FromDouble(r->x);
        if (!x) return -1;
        c->res = Py_BuildValue("(sN)", r->entry, x);
        return c->res ? 1 : -1;
    }
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    if (!f) {
        PyErr_NoMemory();
        return -1;
    }
    int rc = etp_tensor_write_npy(r->v, f);
    if (fclose(f) && !rc) rc = ETP_E_IO;
    if (rc) {
        free(mem);
        PyErr_NoMemory(); /* a memory stream fails only when out of memory */
        return -1;
    }
    PyObject *b = PyBytes_FromStringAndSize(mem, (Py_ssize_t)len);
    free(mem);
    if (!b) return -1;
    /* a tensor logged without bytes (offset -1): the .npy has the header only */
    c->res = Py_BuildValue("(sN)", r->v->base ? "npy" : "empty", b);
    return c->res ? 1 : -1;
}

static PyObject *Profile_tensor_npy(Profile *p, PyObject *args) {
    if (busy_error(p)) return NULL;
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n:tensor_npy", &i)) return NULL;
    tnpy_ctx c = {i, 0, NULL};
    if (i < 0) {
        PyErr_SetString(PyExc_IndexError, "tensor index out of range");
        return NULL;
    }
    if (walk_tensors(p, tnpy_row, &c)) return NULL;
    if (!c.res) PyErr_SetString(PyExc_IndexError, "tensor index out of range");
    return c.res;
}

static PyObject *qnn_result(const etp_qnn_bundle *bp, const etp_ops_result *ops,
                            const etp_qnn_etd_join *j, const char *sort, double ghz_given);

/* htp_clock_ghz= (--htp-clock-ghz): None, or a positive number of GHz. 0 = not given; -1 with
 * UsageError raised. */
static double clock_arg(PyObject *o) {
    if (o == Py_None) return 0;
    double g = PyFloat_AsDouble(o);
    if (g == -1 && PyErr_Occurred()) return -1;
    if (!(g > 0) || isinf(g)) {
        char v[32];
        snprintf(v, sizeof v, "%g", g);
        raise_usage("htp_clock_ghz: expected a positive number, got %s", v);
        return -1;
    }
    return g;
}

/* Profile.qnn(): the QNN files given at open joined to this dump's HTP nodes (etprof qnn DUMP
 * --qhas ... --format json). */
static PyObject *of64(etp_qnn_f64 v);

/* The command's "soc" object (None when no readable spec). New reference, NULL on error. */
static PyObject *soc_dict(const etp_qnn_soc *soc, const etp_qnn_summary *s) {
    if (!soc->present) Py_RETURN_NONE;
    PyObject *arch = soc->htp_arch ? PyLong_FromLong(soc->htp_arch) : Py_NewRef(Py_None);
    PyObject *budget = soc->vtcm_mb ? PyLong_FromLongLong((long long)soc->vtcm_mb * 1048576)
                                    : Py_NewRef(Py_None);
    if (!arch || !budget) {
        Py_XDECREF(arch);
        Py_XDECREF(budget);
        return NULL;
    }
    char w[600];
    PyObject *warn = etp_qnn_soc_vtcm_note(soc, w, sizeof w) > 0 ? text(w) : Py_NewRef(Py_None);
    return Py_BuildValue("{s:i,s:N,s:N,s:N,s:O,s:N,s:s,s:N}", "model_id", (int)soc->soc_model,
                         "model", text(soc->soc_name), "htp_arch", arch, "vtcm_budget_bytes",
                         budget, "differs", soc->differs ? Py_True : Py_False, "peak_vtcm_share",
                         of64(etp_qnn_vtcm_share(s, soc)), "source", "pte qnn_compile_spec",
                         "vtcm_warning", warn);
}

static PyObject *Profile_qnn(Profile *p, PyObject *args, PyObject *kw) {
    if (busy_error(p)) return NULL;
    static char *kwlist[] = {"sort", "htp_clock_ghz", NULL};
    const char *sort = "cycles";
    PyObject *clock = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$sO:qnn", kwlist, &sort, &clock)) return NULL;
    double ghz = clock_arg(clock);
    if (ghz < 0) return NULL;
    if (!etp_qnn_rows_sort_key_valid(sort))
        return raise_usage("sort: unknown key \"%s\" (order, cycles, share, "
                           "dominant_path_cycles, htp_ops, dram_read_bytes, ..., etdump_cycles, "
                           "op_id, qnn_op, qnn_op_type)", sort);
    if (need_ops(p)) return NULL;
    if (!p->have_qb)
        return raise_usage("qnn: open the Profile with QNN's files (qhas=, optrace=, runtrace=, "
                           "heap=)%s", "");
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_qnn_etd_join *j = NULL;
    int rc = etp_qnn_join_etdump(p->ops, p->qb.der, &j, &err);
    if (rc) return raise_etp(rc, &err);
    PyObject *res = qnn_result(&p->qb, p->ops, j, sort, ghz);
    etp_qnn_etd_join_free(j);
    if (!res) return NULL;
    /* "soc", as the command's: what the program's QNN delegates were compiled for */
    etp_qnn_soc soc;
    etp_qnn_program_soc(p->prog, p->have_pte_blob ? &p->pte_blob : NULL, &soc);
    PyObject *so = soc_dict(&soc, &p->qb.der->summary);
    if (!so || PyDict_SetItemString(res, "soc", so) < 0) {
        Py_XDECREF(so);
        Py_DECREF(res);
        return NULL;
    }
    Py_DECREF(so);
    return res;
}

static PyObject *Profile_get_qnn_files(Profile *p, void *Py_UNUSED(c)) {
    if (!p->qnn_paths) Py_RETURN_NONE;
    return PyDict_Copy(p->qnn_paths);
}

static PyObject *Profile_get_etrecord(Profile *p, void *Py_UNUSED(c)) {
    return ref_or_none(p->rec_path);
}

static PyObject *Profile_get_debug_buffer(Profile *p, void *Py_UNUSED(c)) {
    return ref_or_none(p->dbuf_path);
}

static PyMethodDef Profile_methods[] = {
    {"events_table", (PyCFunction)Profile_events_table, METH_NOARGS,
     "events_table() -> list of (key, unit, kind, data, valid, nullable): every event's row"},
    {"qnn", (PyCFunction)(void (*)(void))Profile_qnn, METH_VARARGS | METH_KEYWORDS,
     "qnn(*, sort='cycles') -> dict: QNN's files joined to this dump (etprof qnn DUMP --qhas)"},
    {"tensor_columns", (PyCFunction)Profile_tensor_columns, METH_NOARGS,
     "tensor_columns() -> dict of the columns of `etprof tensors --format json`"},
    {"tensor_npy", (PyCFunction)Profile_tensor_npy, METH_VARARGS,
     "tensor_npy(i) -> ('npy', bytes) or (entry, value): the values of row i"},
    {"modules_columns", (PyCFunction)(void (*)(void))Profile_modules_columns,
     METH_VARARGS | METH_KEYWORDS,
     "modules_columns(*, time_unit='us', module=None, etrecord=None): etprof modules rows"},
    {"tensor_select", (PyCFunction)Profile_tensor_select, METH_VARARGS,
     "tensor_select(expr): the tensors() row indices etprof tensors --select EXPR keeps"},
    {"check_outputs", (PyCFunction)(void (*)(void))Profile_check_outputs,
     METH_VARARGS | METH_KEYWORDS,
     "check_outputs(*, test_case=0, rtol=None, atol=None): etprof check-outputs"},
    {"set_runner_log", (PyCFunction)Profile_set_runner_log, METH_O,
     "set_runner_log(path): the Ethos-U PMU report of the Arm runner's serial log at path"},
    {"vgf_device_time_json", (PyCFunction)(void (*)(void))Profile_vgf_device_time_json,
     METH_VARARGS | METH_KEYWORDS,
     "vgf_device_time_json(*, time_unit='us') -> str or None: summary's vgf_device_time member"},
    {"arm_pmu_json", (PyCFunction)Profile_arm_pmu_json, METH_NOARGS,
     "arm_pmu_json() -> str or None: summary's arm_pmu member and its notes as JSON"},
    {"backend_figures_json", (PyCFunction)(void (*)(void))Profile_backend_figures_json,
     METH_VARARGS | METH_KEYWORDS, "backend_figures_json(*, time_unit='us'): summary's figures"},
    {"explain_doc", (PyCFunction)(void (*)(void))Profile_explain_doc, METH_VARARGS | METH_KEYWORDS,
     "explain_doc(*, time_unit='us', top=5, htp_clock_ghz=None, format='table'): etprof "
     "explain's document rendered as the command does"},
    {"session_json", (PyCFunction)(void (*)(void))Profile_session_json,
     METH_VARARGS | METH_KEYWORDS,
     "session_json(*, prefill_runs=0, prompt_tokens=0, time_unit='us', top=5): etprof "
     "session's JSON document"},
    {"tree_json", (PyCFunction)(void (*)(void))Profile_tree_json, METH_VARARGS | METH_KEYWORDS,
     "tree_json(*, stat='p50', time_unit='us', htp_clock_ghz=None, format='json'): etprof "
     "tree's document rendered as the command does (json or table)"},
    {"explain", (PyCFunction)(void (*)(void))Profile_explain, METH_VARARGS | METH_KEYWORDS,
     "explain(*, top=5) -> list of findings with flat fact records (etprof.Profile.explain)"},
    {"op_types", (PyCFunction)(void (*)(void))Profile_op_types, METH_VARARGS | METH_KEYWORDS,
     "op_types(*, time_unit='us') -> dict of column lists (etprof ops --by type)"},
    {"runs", (PyCFunction)(void (*)(void))Profile_runs, METH_VARARGS | METH_KEYWORDS,
     "runs(*, time_unit='us', ...) -> (dict of column lists, list of method dicts)"},
    {"event_columns", (PyCFunction)Profile_event_columns, METH_VARARGS,
     "event_columns(block) -> dict of column lists: the block's events (etprof.Profile.events)"},
    {"write_trace", (PyCFunction)(void (*)(void))Profile_write_trace, METH_VARARGS | METH_KEYWORDS,
     "write_trace(path) -> dict: the Perfetto trace written atomically; its counts"},
    {"write_report", (PyCFunction)(void (*)(void))Profile_write_report,
     METH_VARARGS | METH_KEYWORDS,
     "write_report(path, *, time_unit='us', qhas=None, optrace=None, runtrace=None, heap=None)"
     " -> None: the HTML report written atomically"},
    {"inspector_columns", (PyCFunction)(void (*)(void))Profile_inspector_columns,
     METH_VARARGS | METH_KEYWORDS,
     "inspector_columns(*, time_unit='ms') -> (dict of column lists, dict): the Inspector's "
     "event table (etprof.Inspector builds on it)"},
    {"trim", (PyCFunction)Profile_trim, METH_NOARGS,
     "trim(): free the per-block scratch of the last pass over the blocks"},
    {"inspector_details", (PyCFunction)(void (*)(void))Profile_inspector_details,
     METH_VARARGS | METH_KEYWORDS,
     "inspector_details(*, debug_data=False, samples=False) -> dict of column lists: per row of "
     "inspector_columns, the first run's debug entries (debug_data) and the per-run end ticks "
     "and delegate debug metadata (samples)"},
    {"ops_table", (PyCFunction)(void (*)(void))Profile_ops_table, METH_VARARGS | METH_KEYWORDS,
     "ops_table(*, time_unit='us', all=False, kind=None, placement=None, sort=None, top=0, "
     "htp_clock_ghz=None) -> (columns, samples, sample counts)"},
    {"summary", (PyCFunction)(void (*)(void))Profile_summary, METH_VARARGS | METH_KEYWORDS,
     "summary(*, time_unit='us') -> dict: blocks, runs, methods with latency statistics"},
    {"close", (PyCFunction)Profile_close, METH_NOARGS,
     "close() -> None: releases the files; further calls raise ValueError"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Profile_getset[] = {
    {"closed", (getter)Profile_get_closed, NULL, "True after close()", NULL},
    {"busy", (getter)Profile_get_busy, NULL,
     "True while a library call runs on this Profile without the GIL (in another thread)", NULL},
    {"etdump", (getter)Profile_get_etdump, NULL, "the ETDump path as given", NULL},
    {"pte", (getter)Profile_get_pte, NULL, "the program path as given, or None", NULL},
    {"method", (getter)Profile_get_method, NULL, "the forced method, or None", NULL},
    {"blocks", (getter)Profile_get_blocks, NULL, "number of run_data blocks (None when closed)",
     NULL},
    {"events", (getter)Profile_get_events, NULL, "number of events (None when closed)", NULL},
    {"etrecord", (getter)Profile_get_etrecord, NULL, "the ETRecord path as given, or None",
     NULL},
    {"qnn_files", (getter)Profile_get_qnn_files, NULL,
     "QNN's files as given: {qhas, optrace, runtrace, heap}", NULL},
    {"debug_buffer", (getter)Profile_get_debug_buffer, NULL,
     "the debug buffer path as given (\"<debug_buffer>\" for bytes), or None", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject ProfileType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "etprof._etprof.Profile",
    .tp_basicsize = sizeof(Profile),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Profile(etdump, pte=None, *, method=None): a verified ETDump (and program)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Profile_init,
    .tp_dealloc = (destructor)Profile_dealloc,
    .tp_methods = Profile_methods,
    .tp_getset = Profile_getset,
};

/* ------------------------------------------------------------------------------------------ */
/* Module                                                                                     */

/* qnn_viewer_text(path, format): `etprof qnn --profile-log/--profile-csv PATH --format F` (the
 * viewer output's format found by etp_qnn_read_viewer) as a str: the library's document
 * (etp_qnn_viewer_doc) rendered in json, table, md, csv, tsv or jsonl. */
static PyObject *mod_qnn_viewer_text(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"path", "format", NULL};
    PyObject *po;
    const char *fmts = "json";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|s:qnn_viewer_text", kwlist, &po, &fmts))
        return NULL;
    static const char *const names[] = {"table", "csv", "tsv", "json", "jsonl", "md"};
    static const etp_format fmts_[] = {ETP_FMT_TABLE, ETP_FMT_CSV, ETP_FMT_TSV,
                                       ETP_FMT_JSON,  ETP_FMT_JSONL, ETP_FMT_MD};
    int fi = -1;
    for (int i = 0; i < 6; i++)
        if (strcmp(fmts, names[i]) == 0) fi = i;
    if (fi < 0)
        return raise_usage("format: expected table, csv, tsv, json, jsonl or md, got \"%s\"", fmts);
    PyObject *ps = path_str(po);
    if (!ps) return NULL;
    const char *path = PyUnicode_AsUTF8(ps);
    if (!path) {
        Py_DECREF(ps);
        return NULL;
    }
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_qnn_viewer *v = NULL;
    int rc;
    char *buf = NULL;
    size_t n = 0;
    Py_BEGIN_ALLOW_THREADS
    rc = etp_qnn_read_viewer(path, &v, &err);
    if (!rc) {
        etp_doc *doc = etp_qnn_viewer_doc(v, path, fmts_[fi]);
        rc = doc ? doc_render_mem(doc, fmts_[fi], &buf, &n) : ETP_E_INTERNAL;
        etp_doc_free(doc);
        if (rc) etp_error_set(&err, rc, NULL, -1, NULL, "out of memory");
    }
    etp_qnn_viewer_free(v);
    Py_END_ALLOW_THREADS
    Py_DECREF(ps);
    if (rc) {
        free(buf);
        return raise_etp(rc, &err);
    }
    return doc_result(0, buf, n);
}

static PyObject *mod_library_version(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a)) {
    return PyUnicode_FromString(ETPROF_VERSION_STR);
}

/* ---- qnn (etprof_qnn.h): QNN's own files as typed results ---- */

static PyObject *oi64(etp_qnn_i64 v) {
    if (v.has) return PyLong_FromLongLong(v.v);
    Py_RETURN_NONE;
}
static PyObject *of64(etp_qnn_f64 v) {
    if (v.has) return PyFloat_FromDouble(v.v);
    Py_RETURN_NONE;
}

static PyObject *join_dict(const etp_ops_result *r, const etp_qnn_derived *d,
                           const etp_qnn_etd_join *j);

/* The figures of `etprof qnn --format json` from a loaded bundle: rows in `sort` order, the
 * summary and, with an ETDump (r and j not NULL), the rows' ETDump cycles and the join. */
static PyObject *qnn_result(const etp_qnn_bundle *bp, const etp_ops_result *ops,
                            const etp_qnn_etd_join *j, const char *sort, double ghz_given) {
    etp_qnn_bundle b = *bp; /* read only */
    etp_error err;
    memset(&err, 0, sizeof err);
    PyObject *res = NULL, *rows = NULL, *threads = NULL, *path = NULL;
    const etp_qnn_derived *d = b.der;
    const etp_qnn_summary *s = &d->summary;
    uint32_t *ord = malloc((d->n_rows ? d->n_rows : 1) * sizeof *ord), nord = 0;
    if (!ord) return PyErr_NoMemory();
    if (etp_qnn_rows_sorted(d, j ? j->row_etdump : NULL, sort, 0, ord, &nord)) {
        free(ord);
        return PyErr_NoMemory();
    }
    static const char *const cn[] = {"qnn_op", "op_id", "qnn_op_type", "cycles",
                                     "dominant_path_cycles", "share", "hmx", "hvx", "dma",
                                     "htp_ops", "dram_read_bytes", "dram_write_bytes",
                                     "vtcm_read_bytes", "vtcm_write_bytes", "hmx_cycles",
                                     "hvx_cycles", "dma_cycles", "etdump_cycles"};
    enum { NQ = 18 };
    int nq = j ? NQ : NQ - 1; /* etdump_cycles with an ETDump only, as the command */
    PyObject *cols[NQ] = {0}, *join = NULL;
    if (!(rows = PyDict_New())) goto done;
    for (int c = 0; c < nq; c++) {
        if (!(cols[c] = PyList_New(nord))) goto done;
        if (PyDict_SetItemString(rows, cn[c], cols[c])) goto done;
    }
    for (uint32_t i = 0; i < nord; i++) {
        const etp_qnn_op_row *r = &d->rows[ord[i]];
        PyObject *v[NQ] = {
            text(r->qnn_op),
            r->has_op_id ? PyLong_FromUnsignedLong(r->op_id) : (Py_INCREF(Py_None), Py_None),
            text(r->qnn_op_type), PyLong_FromLongLong(r->cycles),
            PyLong_FromLongLong(r->dominant_path_cycles), fnum(r->share), PyBool_FromLong(r->hmx),
            PyBool_FromLong(r->hvx), PyBool_FromLong(r->dma), PyLong_FromUnsignedLong(r->htp_ops),
            r->has_bytes ? PyLong_FromLongLong(r->dram_read_bytes) : (Py_INCREF(Py_None), Py_None),
            r->has_bytes ? PyLong_FromLongLong(r->dram_write_bytes) : (Py_INCREF(Py_None), Py_None),
            r->has_bytes ? PyLong_FromLongLong(r->vtcm_read_bytes) : (Py_INCREF(Py_None), Py_None),
            r->has_bytes ? PyLong_FromLongLong(r->vtcm_write_bytes) : (Py_INCREF(Py_None), Py_None),
            PyLong_FromLongLong(r->hmx_cycles), PyLong_FromLongLong(r->hvx_cycles),
            PyLong_FromLongLong(r->dma_cycles), NULL};
        if (j) { /* the p50 of the row's ETDump node: a whole number as an int (the command) */
            double e = j->row_etdump[ord[i]];
            v[NQ - 1] = isfinite(e) && e == floor(e) && fabs(e) < 9e18
                            ? PyLong_FromLongLong((long long)e)
                            : fnum(e);
        }
        for (int c = 0; c < nq; c++) {
            if (!v[c]) {
                for (int k = c; k < nq; k++) Py_XDECREF(v[k]);
                goto done;
            }
            PyList_SET_ITEM(cols[c], i, v[c]);
        }
    }
    if (j && !(join = join_dict(ops, d, j))) goto done;
    if (!(threads = PyList_New(s->n_threads))) goto done;
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const etp_qnn_thread_busy *t = &s->threads[i];
        PyObject *x = Py_BuildValue("{s:L,s:N,s:L,s:N}", "tid", (long long)t->tid, "type",
                                    text(t->type), "busy_cycles", (long long)t->busy_cycles,
                                    "share", of64(t->share));
        if (!x) goto done;
        PyList_SET_ITEM(threads, i, x);
    }
    etp_qnn_critical_path *cp = NULL;
    if (etp_qnn_critical_path_get(d, &cp, &err)) {
        raise_etp(ETP_E_INTERNAL, &err);
        goto done;
    }
    if (cp->present) {
        PyObject *tops = PyList_New(cp->n_ops);
        for (uint32_t i = 0; tops && i < cp->n_ops; i++) {
            PyObject *x = Py_BuildValue("{s:s,s:L,s:I,s:N}", "qnn_op", cp->ops[i].qnn_op,
                                        "dp_cycles", (long long)cp->ops[i].dp_cycles, "steps",
                                        cp->ops[i].steps, "share", fnum(cp->ops[i].share_percent));
            if (!x) {
                Py_CLEAR(tops);
                break;
            }
            PyList_SET_ITEM(tops, i, x);
        }
        path = tops ? Py_BuildValue("{s:s,s:I,s:L,s:L,s:L,s:N}", "source", cp->source, "steps",
                                    cp->steps, "path_cycles", (long long)cp->path_cycles,
                                    "idle_cycles", (long long)cp->idle_cycles, "span_cycles",
                                    (long long)cp->span_cycles, "top_ops", tops)
                    : NULL;
    } else {
        Py_INCREF(Py_None);
        path = Py_None;
    }
    etp_qnn_critical_path_free(cp);
    if (!path) goto done;
    etp_qnn_unit_counts u;
    etp_qnn_unit_counts_get(d, &u);
    const char *clock_src = NULL;
    double ghz = etp_qnn_clock(ghz_given, &b, &clock_src);
    PyObject *summary = Py_BuildValue(
        "{s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:I,s:N,s:I,s:N,s:O,s:O,s:N,s:N,"
        "s:N,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:L}",
        "source", text(etp_qnn_source_name(s->source)), "utilization_percent",
        of64(s->utilization_percent), "idle_percent", of64(s->idle_percent), "graph_execute_us",
        oi64(s->graph_execute_us), "time_us", oi64(s->time_us), "timeline_cycles",
        oi64(s->timeline_cycles), "clock_ghz", fnum(ghz), "clock_source", text(clock_src),
        "peak_vtcm_bytes", oi64(s->peak_vtcm_bytes), "dram_read_bytes", oi64(s->dram_read_bytes),
        "dram_write_bytes", oi64(s->dram_write_bytes), "vtcm_read_bytes", oi64(s->vtcm_read_bytes),
        "vtcm_write_bytes", oi64(s->vtcm_write_bytes), "hmx_busy_cycles", oi64(s->hmx_busy_cycles),
        "hmx_busy_share", of64(s->hmx_busy_share), "hmx_op_cycles", oi64(s->hmx_op_cycles),
        "hmx_op_share", of64(s->hmx_op_share), "htp_cores", s->htp_cores, "hvx_busy_cycles", oi64(s->hvx_busy_cycles),
        "hvx_threads", s->hvx_threads, "hvx_busy_share", of64(s->hvx_busy_share), "threads",
        threads, "dominant_path", path, "heap_before_bytes", oi64(s->heap_before_bytes),
        "heap_after_bytes", oi64(s->heap_after_bytes), "heap_delta_bytes",
        oi64(s->heap_delta_bytes), "qnn_ops", u.qnn_ops, "htp_ops", u.htp_ops, "ops_using_hmx",
        u.hmx, "ops_using_hvx", u.hvx, "ops_using_dma", u.dma, "ops_using_both", u.hmx_and_hvx,
        "ops_dma_only", u.dma_only, "ops_using_none", u.none, "total_cycles",
        (long long)d->total_cycles);
    if (!summary) goto done;
    /* the execute times with their source (runtrace to the tick, else the QHAS's whole us) */
    {
        const char *const ks[] = {"graph_execute_time_us", "graph_execute_source",
                                  "dsp_execute_time_us", "dsp_execute_source", "estimated"};
        PyObject *vs[] = {of64(s->graph_execute_time_us),
                          text(etp_qnn_source_name(s->graph_execute_source)),
                          of64(s->dsp_execute_time_us),
                          text(etp_qnn_source_name(s->dsp_execute_source)),
                          PyBool_FromLong(s->estimated)};
        bool bad = false;
        for (int k = 0; k < 5; k++) {
            if (!vs[k] || PyDict_SetItemString(summary, ks[k], vs[k]) < 0) bad = true;
            Py_XDECREF(vs[k]);
        }
        if (bad) {
            Py_CLEAR(summary);
            goto done;
        }
    }
    res = Py_BuildValue("{s:N,s:O,s:N,s:O}", "rows_source",
                        text(etp_qnn_source_name(d->rows_source)), "ops", rows, "summary",
                        summary, "join", join ? join : Py_None);
done:
    for (int c = 0; c < NQ; c++) Py_XDECREF(cols[c]);
    Py_XDECREF(rows);
    Py_XDECREF(threads);
    Py_XDECREF(path);
    Py_XDECREF(join);
    free(ord);
    return res;
}

static PyObject *mod_qnn(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"qhas", "optrace", "runtrace", "heap", "sort", "htp_clock_ghz", NULL};
    etp_qnn_paths qp = {0};
    const char *sort = "cycles";
    PyObject *clock = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$zzzzsO:qnn", kwlist, &qp.qhas, &qp.optrace,
                                     &qp.runtrace, &qp.heap, &sort, &clock))
        return NULL;
    double ghz = clock_arg(clock);
    if (ghz < 0) return NULL;
    if (!etp_qnn_rows_sort_key_valid(sort))
        return raise_usage("sort: unknown key \"%s\" (order, cycles, share, "
                           "dominant_path_cycles, htp_ops, dram_read_bytes, ..., op_id, qnn_op, "
                           "qnn_op_type)", sort);
    if (!etp_qnn_paths_any(&qp))
        return raise_usage("qnn: give at least one QNN file (qhas=, optrace=, runtrace=, heap=)%s",
                           "");
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_qnn_bundle b;
    memset(&b, 0, sizeof b);
    int rc = etp_qnn_bundle_load(&qp, &b, &err);
    if (rc) return raise_etp(rc, &err);
    PyObject *res = qnn_result(&b, NULL, NULL, sort, ghz);
    etp_qnn_bundle_free(&b);
    return res;
}

/* An ETDump node of the join: {name, op_id, cycles} and the like (src/cli/cmd_qnn.c json_join). */
static PyObject *opt_op_id(const etp_qnn_op_row *r) {
    if (r->has_op_id) return PyLong_FromUnsignedLong(r->op_id);
    Py_RETURN_NONE;
}

static int append_new(PyObject *l, PyObject *x) {
    if (!x) return -1;
    int e = PyList_Append(l, x);
    Py_DECREF(x);
    return e;
}

/* The "join" object of `etprof qnn DUMP --qhas Q --format json`. */
static PyObject *join_dict(const etp_ops_result *r, const etp_qnn_derived *d,
                           const etp_qnn_etd_join *j) {
    const etp_ops_qnn *q = j->qnn >= 0 ? etp_ops_qnn_get(r, (size_t)j->qnn) : NULL;
    const etp_ops_method *m = q ? etp_ops_method_get(r, q->method) : NULL;
    PyObject *eo = PyList_New(0), *qo = PyList_New(0), *no = PyList_New(0), *co = PyList_New(0),
             *dif = PyList_New(0), *cand = PyList_New(0), *res = NULL;
    if (!eo || !qo || !no || !co || !dif || !cand) goto done;
    for (uint32_t c = 0; m && c < m->n_candidates; c++) /* the fitting methods, ambiguous */
        if (append_new(cand, text(m->candidate_names[c]))) goto done;
    for (uint32_t k = 0; k < j->n_etdump_only; k++) {
        const etp_ops_row *row = etp_ops_row_get(r, j->etdump_only[k]);
        if (append_new(eo, Py_BuildValue("{s:N,s:L,s:N}", "name", text(row->name), "op_id",
                                          (long long)row->qnn_op_id, "cycles",
                                          fnum(row->stats.p50))))
            goto done;
    }
    for (uint32_t k = 0; k < j->n_qnn_only; k++) {
        const etp_qnn_op_row *x = &d->rows[j->qnn_only[k]];
        if (append_new(qo, Py_BuildValue("{s:N,s:N,s:L}", "qnn_op", text(x->qnn_op), "op_id",
                                          opt_op_id(x), "cycles", (long long)x->cycles)))
            goto done;
    }
    for (uint32_t k = 0; k < j->n_pairs; k++) {
        const etp_qnn_etd_pair *pr = &j->pairs[k];
        const etp_qnn_op_row *x = &d->rows[pr->qnn_row];
        const etp_ops_row *row = etp_ops_row_get(r, pr->ops_row);
        if (pr->trusted && !pr->by_id &&
            append_new(no, Py_BuildValue("{s:N,s:L,s:N,s:N}", "etdump_node", text(row->name),
                                         "etdump_op_id", (long long)row->qnn_op_id, "qnn_op",
                                         text(x->qnn_op), "qnn_op_id", opt_op_id(x))))
            goto done;
        if (!pr->trusted &&
            append_new(co, Py_BuildValue("{s:N,s:N,s:L,s:O}", "etdump_node", text(row->name),
                                         "qnn_op", text(x->qnn_op), "op_id",
                                         (long long)row->qnn_op_id, "by_op_id",
                                         pr->by_id ? Py_True : Py_False)))
            goto done;
        if (pr->cycles_differ &&
            append_new(dif, Py_BuildValue("{s:N,s:N,s:L}", "qnn_op", text(x->qnn_op),
                                          "etdump_cycles", fnum(pr->etdump_cycles), "qnn_cycles",
                                          (long long)x->cycles)))
            goto done;
    }
    res = Py_BuildValue(
        "{s:N,s:O,s:N,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:s,s:O,s:O,s:O,s:O,s:{s:I,s:I,s:I,s:L,s:s,"
        "s:O}}",
        "method", text(m ? m->name : NULL), "method_candidates", cand, "instruction_id",
        q ? PyLong_FromLong(etp_ops_row_get(r, q->delegate_row)->instr)
          : (Py_INCREF(Py_None), Py_None),
        "etdump_nodes", j->n_nodes, "qnn_ops", d->n_rows, "matched", j->matched,
        "matched_by_op_id", j->matched_by_id, "matched_by_name_only", j->matched_by_name,
        "named_etdump_nodes", j->n_nodes_named, "named_qnn_ops", j->n_qnn_named,
        "named_matched", j->matched_named, "graph", etp_qnn_etd_graph(j),
        "etdump_only", eo, "qnn_only", qo, "name_only", no, "conflicts", co, "cycle_agreement",
        "compared", j->cycles_compared, "equal", j->cycles_equal, "different",
        j->cycles_different, "max_abs_diff_cycles", (long long)j->max_abs_diff, "verdict",
        etp_qnn_etd_agreement(j), "different_ops", dif);
done:
    Py_XDECREF(eo);
    Py_XDECREF(qo);
    Py_XDECREF(no);
    Py_XDECREF(co);
    Py_XDECREF(dif);
    Py_XDECREF(cand);
    return res;
}

/* ---- diff ---- */

static PyObject *cmp_dict(const etp_diff_cmp *c, etp_unit u, double uns, const char *tu) {
    bool tm = u == ETP_UNIT_NS;
    double f = tm ? uns : 1;
    char gate[512];
    etp_diff_gate_text(&c->gate, gate, sizeof gate);
    return Py_BuildValue(
        "{s:I,s:I,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:O,s:s,s:s,s:s,s:s}",
        "runs_base", c->runs_base, "runs_new", c->runs_new, "p50_base", fnum(c->p50_base / f),
        "p50_new", fnum(c->p50_new / f), "p50_delta", fnum(c->p50_delta / f), "p50_pct",
        fnum(c->p50_pct), "total_base", fnum(c->total_base / f), "total_new",
        fnum(c->total_new / f), "total_delta", fnum(c->total_delta / f), "total_pct",
        fnum(c->total_pct), "impact_per_run", fnum(c->impact / f), "p_value", fnum(c->p), "q_value", fnum(c->q),
        "z", fnum(c->z), "significant", c->significant ? Py_True : Py_False, "verdict",
        etp_diff_verdict_name(c->verdict, u), "unit", tm ? tu : etp_unit_name(u), "gate",
        etp_diff_outcome_name(c->gate.outcome), "gate_reason", gate);
}

static int need_ops(Profile *p);

/* _etprof.arm_pmu_diff_json(base, new): diff's "arm_pmu" member and its notes (etp_fig_arm_pmu_diff,
 * etp_arm_pmu_diff_notes) as the JSON text of {"arm_pmu": {...}, "notes": [...]}, from each
 * Profile's report in use (profile_pmu); None when neither side has one. */
static PyObject *mod_arm_pmu_diff_json(PyObject *Py_UNUSED(m), PyObject *args) {
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "O!O!:arm_pmu_diff_json", &ProfileType, &a, &ProfileType, &b))
        return NULL;
    Profile *pa = (Profile *)a, *pb = (Profile *)b;
    if (busy_error(pa) || busy_error(pb)) return NULL;
    const etp_arm_pmu_report *ra = profile_pmu(pa), *rb = profile_pmu(pb);
    if (!ra && !rb) Py_RETURN_NONE;
    etp_doc *doc = etp_doc_new("diff", -1, NULL, NULL);
    if (!doc) return PyErr_NoMemory();
    etp_doc_envelope(doc, 0);
    etp_fig_arm_pmu_diff(etp_doc_root(doc), "arm_pmu", ra, rb);
    etp_doc_notes_here(doc);
    etp_arm_pmu_diff_notes(ra, rb, doc_note_py_cb, doc);
    PyObject *res = doc_text(doc, ETP_FMT_JSON);
    etp_doc_free(doc);
    return res;
}

static PyObject *mod_diff(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"base", "new", "time_unit", "alpha", "min_runs", "no_change_pct",
                             "threshold_pct", "fail_pct", "programs_differ", NULL};
    PyObject *a, *b;
    const char *tu = "us";
    etp_diff_opts o;
    etp_diff_opts_init(&o);
    unsigned int min_runs = o.min_runs;
    PyObject *fail = Py_None;
    int differ = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!|$sdIddOp:diff", kwlist, &ProfileType, &a,
                                     &ProfileType, &b, &tu, &o.alpha, &min_runs,
                                     &o.no_change_pct, &o.threshold_pct, &fail, &differ))
        return NULL;
    double uns = etp_time_unit_ns(tu);
    if (!(uns > 0)) return raise_usage("time_unit: expected ns, us, ms or s, got \"%s\"", tu);
    if (!(o.alpha > 0 && o.alpha < 1)) return raise_usage("alpha: expected a value in (0, 1)%s", "");
    o.min_runs = min_runs;
    o.programs_differ = differ != 0;
    if (fail != Py_None) {
        o.fail_pct = PyFloat_AsDouble(fail);
        if (o.fail_pct == -1 && PyErr_Occurred()) return NULL;
        if (!(o.fail_pct >= 0)) return raise_usage("fail_pct: expected a percentage >= 0%s", "");
    }
    Profile *pa = (Profile *)a, *pb = (Profile *)b;
    if (busy_error(pa) || busy_error(pb)) return NULL;
    if (need_ops(pa) || need_ops(pb)) return NULL;
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_diff_result *d = NULL;
    int rc = etp_diff_compute(pa->ops, pb->ops, &o, &d, &err);
    if (rc) return raise_etp(rc, &err);
    PyObject *res = NULL, *methods = NULL, *ops = NULL, *moves = NULL;
    size_t nm = etp_diff_method_count(d);
    if (!(methods = PyList_New((Py_ssize_t)nm))) goto fail;
    for (size_t i = 0; i < nm; i++) {
        const etp_diff_method *dm = etp_diff_method_get(d, i);
        PyObject *x = Py_BuildValue(
            "{s:N,s:N,s:N,s:O,s:N,s:N,s:N,s:N,s:I,s:I,s:O}", "method", text(dm->name), "latency",
            cmp_dict(&dm->latency, dm->unit, uns, tu), "unit",
            text(dm->unit == ETP_UNIT_NS ? tu : etp_unit_name(dm->unit)), "by_name",
            dm->by_name ? Py_True : Py_False, "cpu_share_base", fnum(dm->cpu_share_base),
            "cpu_share_new", fnum(dm->cpu_share_new), "delegate_share_base",
            fnum(dm->delegate_share_base), "delegate_share_new", fnum(dm->delegate_share_new),
            "partitions_base", dm->partitions_base, "partitions_new", dm->partitions_new,
            "regressed", dm->regressed ? Py_True : Py_False);
        if (!x) goto fail;
        PyList_SET_ITEM(methods, (Py_ssize_t)i, x);
    }
    if (!(ops = PyList_New(0))) goto fail;
    static const char *const st_names[] = {"matched", "added", "removed"};
    for (int s = 0; s < 3; s++) {
        size_t n = 0;
        const etp_diff_op *v = etp_diff_ops(d, (etp_diff_status)s, &n);
        for (size_t i = 0; i < n; i++) {
            const etp_ops_row *row = v[i].base ? v[i].base : v[i].new_;
            const etp_diff_method *dm = etp_diff_method_get(d, v[i].method);
            PyObject *c = cmp_dict(&v[i].cmp, row->unit, uns, tu);
            if (!c) goto fail;
            PyObject *x = Py_BuildValue("{s:s,s:N,s:N,s:N,s:N,s:O,s:O,s:N}", "status", st_names[s],
                                        "method", text(dm ? dm->name : NULL), "name",
                                        text(row->name), "kind", text(etp_ops_row_kind_name(row)),
                                        "instruction_id",
                                        row->chain >= 0 && row->instr >= 0
                                            ? PyLong_FromLong(row->instr)
                                            : (Py_INCREF(Py_None), Py_None),
                                        "by_name", v[i].by_name ? Py_True : Py_False, "hidden",
                                        v[i].hidden ? Py_True : Py_False, "cmp", c);
            if (!x) goto fail;
            int e = PyList_Append(ops, x);
            Py_DECREF(x);
            if (e) goto fail;
        }
    }
    size_t np = etp_diff_placement_count(d);
    if (!(moves = PyList_New((Py_ssize_t)np))) goto fail;
    for (size_t i = 0; i < np; i++) {
        const etp_diff_placement *pl = etp_diff_placement_get(d, i);
        const etp_diff_method *dm = etp_diff_method_get(d, pl->method);
        PyObject *x = Py_BuildValue("{s:s,s:N,s:N,s:N,s:N,s:I,s:I,s:I,s:I,s:O}", "move",
                                    etp_diff_move_name(pl->move), "method",
                                    text(dm ? dm->name : NULL), "operator", text(pl->op), "from",
                                    text(pl->from), "to", text(pl->to), "base_count",
                                    pl->base_count, "new_count", pl->new_count, "base_nodes",
                                    pl->base_nodes, "new_nodes", pl->new_nodes, "observed",
                                    pl->observed ? Py_True : Py_False);
        if (!x) goto fail;
        PyList_SET_ITEM(moves, (Py_ssize_t)i, x);
    }
    const etp_diff_summary *s = etp_diff_get_summary(d);
    res = Py_BuildValue(
        "{s:s,s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I},s:{s:s,s:s,s:I,s:I,s:I,"
        "s:I,s:I},s:O,s:O,s:O}",
        "result", etp_diff_result_name(d), "summary", "methods", s->methods, "methods_slower",
        s->methods_slower, "methods_faster", s->methods_faster, "methods_regressed",
        s->methods_regressed, "matched", s->matched, "slower", s->slower, "faster", s->faster,
        "noise", s->noise, "no_change", s->no_change, "too_few_runs", s->too_few, "added",
        s->added, "removed", s->removed, "hidden", s->hidden, "gate", "outcome",
        etp_diff_outcome_name(s->gate.outcome), "reason", s->gate.reason, "regressions",
        s->gate.regressions, "improvements", s->gate.improvements, "inconclusive",
        s->gate.inconclusive, "passes", s->gate.passes, "not_compared", s->gate.not_compared,
        "methods", methods, "ops", ops, "placement", moves);
fail:
    Py_XDECREF(methods);
    Py_XDECREF(ops);
    Py_XDECREF(moves);
    etp_diff_free(d);
    return res;
}

/* ---- compare (etprof compare; etp_cmp_compute) ---- */

enum {
    K_STATUS, K_RUN, K_INSTR, K_OCC, K_LIST, K_OUTPUT, K_OPERATOR, K_DTYPE, K_NUMEL, K_MSE,
    K_MAXABS, K_L1, K_SNR, K_COS, K_NONFINITE, K_N
};
/* the keys of `etprof compare --format json` "tensors" rows, in order */
static const char *const kcol_names[K_N] = {
    "status", "run", "instruction_id", "occurrence", "list_index", "output", "operator", "dtype",
    "numel", "mse", "max_abs", "l1", "snr_db", "cosine", "nonfinite"};

static PyObject *krow_value(const etp_cmp_row *x, int c) {
    const etp_tensor_view *v = x->status == ETP_CMP_ONLY_NEW ? &x->new_ : &x->base;
    bool m = x->status == ETP_CMP_MATCHED;
    switch (c) {
    case K_STATUS: return text(etp_cmp_status_name(x->status));
    case K_RUN: return PyLong_FromUnsignedLong(etp_run_number(x->run));
    case K_INSTR: return PyLong_FromLong(x->instruction_id);
    case K_OCC: return PyLong_FromUnsignedLong(x->occurrence);
    case K_LIST: if (x->list_index >= 0) return PyLong_FromLong(x->list_index); Py_RETURN_NONE;
    case K_OUTPUT: return PyBool_FromLong(x->output);
    case K_OPERATOR: return text(x->op_base);
    case K_DTYPE: return text(etp_scalar_type_name(v->scalar_type));
    case K_NUMEL: return PyLong_FromUnsignedLongLong(v->numel);
    case K_MSE: return fnum(m ? x->cmp.mse : NAN);
    case K_MAXABS: return fnum(m ? x->cmp.max_abs : NAN);
    case K_L1: return fnum(m ? x->cmp.l1 : NAN);
    case K_SNR: return fnum(m ? x->cmp.snr_db : NAN);
    case K_COS: return fnum(m ? x->cmp.cosine : NAN);
    case K_NONFINITE: return PyLong_FromUnsignedLongLong(m ? x->cmp.nonfinite : 0);
    }
    Py_RETURN_NONE;
}

static PyObject *mod_compare(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"base", "new", "fail_below_snr", NULL};
    PyObject *a, *b, *thr_o = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!|$O:compare", kwlist, &ProfileType, &a,
                                     &ProfileType, &b, &thr_o))
        return NULL;
    Profile *pa = (Profile *)a, *pb = (Profile *)b;
    if (busy_error(pa) || busy_error(pb)) return NULL;
    double thr = INFINITY;
    if (thr_o != Py_None) {
        thr = PyFloat_AsDouble(thr_o);
        if (thr == -1 && PyErr_Occurred()) return NULL;
        if (isnan(thr)) return raise_usage("fail_below_snr: expected a number of decibels%s", "");
    }
    if (!pa->model || !pb->model) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed etprof.Profile");
        return NULL;
    }
    if (!pa->have_dbuf_blob || !pb->have_dbuf_blob)
        return raise_usage("compare: give both debug buffers: debug_buffer=BASE.bin "
                           "debug_buffer_new=NEW.bin%s", "");
    etp_error err;
    memset(&err, 0, sizeof err);
    etp_cmp_result *r = NULL;
    int rc;
    pa->busy++;
    pb->busy++;
    Py_BEGIN_ALLOW_THREADS
    rc = etp_cmp_compute(pa->model, &pa->dbuf_blob, pb->model, &pb->dbuf_blob, &r, &err);
    Py_END_ALLOW_THREADS
    pa->busy--;
    pb->busy--;
    if (rc) return raise_etp(rc, &err);
    size_t n = etp_cmp_row_count(r);
    int64_t first = etp_cmp_first_below(r, INFINITY);
    int64_t below = thr_o != Py_None ? etp_cmp_first_below(r, thr) : -1;
    unsigned long long matched = 0, other = 0;
    PyObject *cols[K_N] = {0}, *d = NULL, *res = NULL;
    if (!(d = PyDict_New())) goto done;
    for (int c = 0; c < K_N; c++)
        if (!(cols[c] = PyList_New((Py_ssize_t)n)) || PyDict_SetItemString(d, kcol_names[c], cols[c]))
            goto done;
    for (size_t i = 0; i < n; i++) {
        const etp_cmp_row *x = etp_cmp_row_get(r, i);
        if (x->status == ETP_CMP_MATCHED) matched++;
        else other++;
        for (int c = 0; c < K_N; c++) {
            PyObject *v = krow_value(x, c);
            if (!v) goto done;
            PyList_SET_ITEM(cols[c], (Py_ssize_t)i, v);
        }
    }
    res = Py_BuildValue("{s:K,s:K,s:N,s:N,s:O}", "matched", matched, "unmatched", other,
                        "first_divergence",
                        first >= 0 ? PyLong_FromLongLong(first) : (Py_INCREF(Py_None), Py_None),
                        "first_below_snr",
                        below >= 0 ? PyLong_FromLongLong(below) : (Py_INCREF(Py_None), Py_None),
                        "tensors", d);
done:
    for (int c = 0; c < K_N; c++) Py_XDECREF(cols[c]);
    Py_XDECREF(d);
    etp_cmp_free(r);
    return res;
}

/* stats(values) -> dict p10, p50, p90, avg, min, max: etp_stats_compute (numpy's percentiles,
 * linear) over the values that are not NaN, as inspector_columns computes its statistics; for
 * values Python derived (the Inspector's delegate_time_scale_converter). */
static PyObject *mod_stats(PyObject *Py_UNUSED(m), PyObject *arg) {
    PyObject *seq = PySequence_Fast(arg, "stats: expected a sequence of numbers");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    size_t m = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double x = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (x == -1.0 && PyErr_Occurred()) {
            free(v);
            Py_DECREF(seq);
            return NULL;
        }
        if (!isnan(x)) v[m++] = x;
    }
    Py_DECREF(seq);
    etp_stats st;
    etp_stats_compute(v, m, &st);
    free(v);
    return Py_BuildValue("{s:d,s:d,s:d,s:d,s:d,s:d}", "p10", st.p10, "p50", st.p50, "p90",
                         st.p90, "avg", st.avg, "min", st.min, "max", st.max);
}

static PyMethodDef mod_methods[] = {
    {"stats", mod_stats, METH_O,
     "stats(values) -> dict p10, p50, p90, avg, min, max (libetprof's statistics, NaN left "
     "out)"},
    {"compare", (PyCFunction)(void (*)(void))mod_compare, METH_VARARGS | METH_KEYWORDS,
     "compare(base, new, *, fail_below_snr=None) -> dict (etprof.compare)"},
    {"qnn", (PyCFunction)(void (*)(void))mod_qnn, METH_VARARGS | METH_KEYWORDS,
     "qnn(*, qhas=None, optrace=None, runtrace=None, heap=None) -> dict (etprof.qnn)"},
    {"arm_pmu_diff_json", (PyCFunction)mod_arm_pmu_diff_json, METH_VARARGS,
     "arm_pmu_diff_json(base, new) -> str or None: diff's arm_pmu member and its notes"},
    {"diff", (PyCFunction)(void (*)(void))mod_diff, METH_VARARGS | METH_KEYWORDS,
     "diff(base, new, *, time_unit='us', alpha=0.05, min_runs=3, no_change_pct=1, "
     "threshold_pct=0, fail_pct=None, programs_differ=False) -> dict (etprof.diff)"},
    {"qnn_viewer_text", (PyCFunction)(void (*)(void))mod_qnn_viewer_text,
     METH_VARARGS | METH_KEYWORDS,
     "qnn_viewer_text(path, format='json'): etprof qnn --profile-log/--profile-csv PATH"},
    {"library_version", mod_library_version, METH_NOARGS,
     "the version of libetprof this module was built against"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, "_etprof",
    "Low-level binding of libetprof (use the etprof package, docs/python.md).", -1, mod_methods,
    NULL, NULL, NULL, NULL};

static PyObject *new_exc(PyObject *m, const char *name, PyObject *bases, const char *doc) {
    char full[64];
    snprintf(full, sizeof full, "etprof.%s", name);
    PyObject *e = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
    if (!e) return NULL;
    Py_INCREF(e);
    if (PyModule_AddObject(m, name, e)) {
        Py_DECREF(e);
        Py_DECREF(e);
        return NULL;
    }
    return e;
}

PyMODINIT_FUNC PyInit__etprof(void);
PyMODINIT_FUNC PyInit__etprof(void) {
    if (PyType_Ready(&ProfileType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (!m) return NULL;
    Py_INCREF(&ProfileType);
    if (PyModule_AddObject(m, "Profile", (PyObject *)&ProfileType)) {
        Py_DECREF(&ProfileType);
        goto fail;
    }
    if (!(Error = new_exc(m, "Error", NULL, "Base class of the errors etprof raises.")))
        goto fail;
    PyObject *b;
    if (!(b = PyTuple_Pack(2, Error, PyExc_ValueError))) goto fail;
    InputError = new_exc(m, "InputError", b,
                         "The input was rejected (corrupt, truncated, wrong kind): .file, "
                         ".offset (byte offset or None), .path (field path or None), .reason; "
                         "the command exits 1.");
    UsageError = new_exc(m, "UsageError", b,
                         "The caller asked for something impossible (unknown method, unit...); "
                         "the command exits 2.");
    Py_DECREF(b);
    if (!InputError || !UsageError) goto fail;
    if (!(b = PyTuple_Pack(2, Error, PyExc_OSError))) goto fail;
    IOErr = new_exc(m, "IOError", b, "A file could not be opened, read or mapped (exit 3).");
    Py_DECREF(b);
    if (!IOErr) goto fail;
    if (!(b = PyTuple_Pack(2, Error, PyExc_RuntimeError))) goto fail;
    InternalError = new_exc(m, "InternalError", b, "Out of memory or a bug (exit 4).");
    Py_DECREF(b);
    if (!InternalError) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
