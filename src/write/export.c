/* export.c - the fleet export (docs/export.md): PyTorch benchmark v3 records (JSONEachRow, one
 * per file, method and metric) and a long op table (JSON Lines or CSV: one row per op, run and
 * measure, with the run's and the op's identity), written one file at a time so that memory
 * stays bounded by the largest file whatever the number of files; and the ClickHouse table the
 * op table loads into. Every value is a figure of the library's analyses (fleet.c). */
#include "etprof.h"
#include "etprof_etrecord.h"
#include "etprof_fleet.h"
#include "etprof_runs.h"
#include "fleet_int.h"
#include "jw.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int etp_export_format_parse(const char *s, etp_export_format *out) {
    static const char *const names[] = {"v3", "jsonl", "csv"};
    for (int i = 0; i < 3; i++)
        if (s && strcmp(s, names[i]) == 0) {
            *out = (etp_export_format)i;
            return ETP_OK;
        }
    return ETP_E_USAGE;
}

/* The long op table's columns, in order: name, ClickHouse type, what it holds (docs/export.md
 * repeats this list). */
typedef struct col_def {
    const char *name, *type;
} col_def;

static const col_def cols[] = {
    {"schema_version", "UInt32"}, {"dump_sha256", "String"},  {"program_sha256", "String"},
    {"dump_path", "String"},      {"captured_at", "String"},  {"method", "String"},
    {"method_index", "UInt32"},   {"run_index", "Int32"},     {"warmup", "UInt8"},
    {"device", "String"},         {"soc", "String"},          {"build", "String"},
    {"commit_sha", "String"},     {"label_keys", "Array(String)"},
    {"label_values", "Array(String)"},
    {"row", "UInt32"},            {"parent", "Int32"},        {"chain", "Int32"},
    {"instruction", "Int32"},     {"delegate_id", "String"},  {"name", "String"},
    {"op", "String"},             {"op_type", "String"},      {"kind", "String"},
    {"backend", "String"},        {"placement", "String"},    {"module", "String"},
    {"value", "Float64"},         {"unit", "String"},         {"clock", "String"},
    {"synthetic", "UInt8"},       {"measure", "String"},
};
#define NCOLS (sizeof cols / sizeof cols[0])

int etp_export_schema_clickhouse(FILE *f, etp_error *err) {
    fprintf(f, "-- etprof export --format jsonl (schema_version %d): the long op table.\n"
               "-- Load: clickhouse-client --query \"INSERT INTO etprof_ops FORMAT JSONEachRow\" < ops.jsonl\n"
               "-- Join across builds and devices on (program_sha256, method, instruction, delegate_id, name).\n"
               "CREATE TABLE IF NOT EXISTS etprof_ops\n(\n",
            ETP_EXPORT_SCHEMA_VERSION);
    for (size_t i = 0; i < NCOLS; i++)
        fprintf(f, "    %s %s%s\n", cols[i].name, cols[i].type, i + 1 < NCOLS ? "," : "");
    fprintf(f, ")\nENGINE = MergeTree()\n"
               "ORDER BY (program_sha256, method, instruction, row, dump_sha256, run_index);\n");
    if (fflush(f) != 0 || ferror(f)) {
        etp_error_set(err, ETP_E_IO, "", -1, "", "write failed");
        return ETP_E_IO;
    }
    return ETP_OK;
}

/* ---------------------------------------------------------------------------------------------
 * One row's values (both table formats)
 * ------------------------------------------------------------------------------------------- */

typedef struct row_ctx {
    const fleet_file *f;
    const fleet_prog *p;
    const etp_export_opts *o;
    const char *device, *soc, *build, *commit;
    FILE *out;
    jw w;
    char *buf;
    const char *type; /* the op row's type */
    char tbuf[256];
    const etp_etrecord *rec; /* --etrecord, NULL without */
    char module[512];        /* the op row's module ("" when none or not joined) */
    uint64_t rows;
} row_ctx;

static void csv_text(row_ctx *c, const char *s) {
    FILE *f = c->out;
    if (!s) s = "";
    bool guard = !c->o->csv_raw && (*s == '=' || *s == '+' || *s == '-' || *s == '@' ||
                                    *s == '\t' || *s == '\r');
    bool quote = guard || strpbrk(s, ",\"\r\n") != NULL;
    if (!quote) {
        fputs(s, f);
        return;
    }
    putc('"', f);
    if (guard) putc('\'', f);
    for (; *s; s++) {
        if (*s == '"') putc('"', f);
        putc(*s, f);
    }
    putc('"', f);
}

static void csv_num(row_ctx *c, double v) {
    char b[JW_DTOA_MAX];
    size_t n = jw_dtoa(b, v);
    if (n) fwrite(b, 1, n, c->out);
}

/* The clock domain of a measure: "host" (the runtime's clock), "backend" (a duration a backend
 * reported without timestamps), "accelerator" (cycles), "none" (counts, bytes, raw). */
static const char *clock_of(const etp_ops_row *r) {
    if (r->unit == ETP_UNIT_CYCLES) return "accelerator";
    if (!etp_unit_is_time(r->unit) && r->unit != ETP_UNIT_TICKS) return "none";
    return r->flags & ETP_MF_NOT_WALL ? "backend" : "host";
}

static const char *op_type(const etp_ops_row *r, char *buf, size_t cap) {
    if (r->htp_node && r->op) return etp_optype_of_htp(r->op, buf, cap);
    if (r->place == ETP_PLACE_CPU && r->op) return r->op;
    if (r->kind == ETP_KIND_DELEGATE_INTERNAL && r->name) return etp_optype_of_name(r->name, buf, cap);
    return r->op ? r->op : "";
}

static void emit_row(row_ctx *c, const etp_ops_row *r, uint32_t ri, const char *method,
                     uint32_t mi, int32_t run, bool warmup, double value, bool exclusive) {
    const fleet_file *f = c->f;
    const etp_fleet_opts *in = &c->o->in;
    bool synthetic = exclusive || (r->flags & (ETP_MF_MINIMAL_PAL | ETP_MF_NO_CLOCK));
    const char *delegate_id = r->kind == ETP_KIND_DELEGATE_INTERNAL ? r->name : "";
    const char *backend = r->place == ETP_PLACE_DELEGATE ? r->placement : "";
    int32_t instr = r->chain < 0 ? -1 : r->instr;
    c->rows++;
    if (c->o->format == ETP_EXPORT_CSV) {
        FILE *o = c->out;
        fprintf(o, "%d,%s,%s,", ETP_EXPORT_SCHEMA_VERSION, f->sha, c->p->sha);
        csv_text(c, f->path);
        fprintf(o, ",%s,", f->mtime);
        csv_text(c, method);
        fprintf(o, ",%u,%d,%d,", mi, run, warmup);
        csv_text(c, c->device);
        putc(',', o);
        csv_text(c, c->soc);
        putc(',', o);
        csv_text(c, c->build);
        putc(',', o);
        csv_text(c, c->commit);
        /* arrays: the keys and the values joined with ';' (CSV has no arrays) */
        for (int part = 0; part < 2; part++) {
            putc(',', o);
            char lb[2048];
            size_t n = 0;
            lb[0] = 0;
            for (size_t i = 0; i < in->nlabels; i++) {
                int w = snprintf(lb + n, sizeof lb - n, "%s%s", i ? ";" : "",
                                 part ? in->labels[i].value : in->labels[i].key);
                if (w < 0 || (size_t)w >= sizeof lb - n) break;
                n += (size_t)w;
            }
            csv_text(c, lb);
        }
        fprintf(o, ",%u,%d,%d,%d,", ri, r->parent, r->chain, instr);
        csv_text(c, delegate_id);
        putc(',', o);
        csv_text(c, r->name);
        putc(',', o);
        csv_text(c, r->op);
        putc(',', o);
        csv_text(c, c->type);
        fprintf(o, ",%s,", etp_ops_row_kind_name(r));
        csv_text(c, backend);
        putc(',', o);
        csv_text(c, r->placement);
        putc(',', o);
        csv_text(c, c->module);
        putc(',', o);
        csv_num(c, value);
        fprintf(o, ",%s,%s,%d,%s\n", etp_unit_name(r->unit), clock_of(r), synthetic,
                exclusive ? "exclusive" : "inclusive");
        return;
    }
    jw *w = &c->w;
    jw_obj_begin(w);
    jw_key_lit(w, "schema_version");
    jw_int(w, ETP_EXPORT_SCHEMA_VERSION);
    jw_key_lit(w, "dump_sha256");
    jw_str(w, f->sha);
    jw_key_lit(w, "program_sha256");
    jw_str(w, c->p->sha);
    jw_key_lit(w, "dump_path");
    jw_str(w, f->path);
    jw_key_lit(w, "captured_at");
    jw_str(w, f->mtime);
    jw_key_lit(w, "method");
    jw_str(w, method);
    jw_key_lit(w, "method_index");
    jw_uint(w, mi);
    jw_key_lit(w, "run_index");
    jw_int(w, run);
    jw_key_lit(w, "warmup");
    jw_int(w, warmup);
    jw_key_lit(w, "device");
    jw_str(w, c->device);
    jw_key_lit(w, "soc");
    jw_str(w, c->soc);
    jw_key_lit(w, "build");
    jw_str(w, c->build);
    jw_key_lit(w, "commit_sha");
    jw_str(w, c->commit);
    for (int part = 0; part < 2; part++) {
        jw_key(w, part ? "label_values" : "label_keys");
        jw_arr_begin(w);
        for (size_t i = 0; i < in->nlabels; i++)
            jw_str(w, part ? in->labels[i].value : in->labels[i].key);
        jw_arr_end(w);
    }
    jw_key_lit(w, "row");
    jw_uint(w, ri);
    jw_key_lit(w, "parent");
    jw_int(w, r->parent);
    jw_key_lit(w, "chain");
    jw_int(w, r->chain);
    jw_key_lit(w, "instruction");
    jw_int(w, instr);
    jw_key_lit(w, "delegate_id");
    jw_str(w, delegate_id ? delegate_id : "");
    jw_key_lit(w, "name");
    jw_str(w, r->name ? r->name : "");
    jw_key_lit(w, "op");
    jw_str(w, r->op ? r->op : "");
    jw_key_lit(w, "op_type");
    jw_str(w, c->type);
    jw_key_lit(w, "kind");
    jw_str(w, etp_ops_row_kind_name(r));
    jw_key_lit(w, "backend");
    jw_str(w, backend ? backend : "");
    jw_key_lit(w, "placement");
    jw_str(w, r->placement ? r->placement : "");
    jw_key_lit(w, "module");
    jw_str(w, c->module);
    jw_key_lit(w, "value");
    jw_double(w, value);
    jw_key_lit(w, "unit");
    jw_str(w, etp_unit_name(r->unit));
    jw_key_lit(w, "clock");
    jw_str(w, clock_of(r));
    jw_key_lit(w, "synthetic");
    jw_int(w, synthetic);
    jw_key_lit(w, "measure");
    jw_str(w, exclusive ? "exclusive" : "inclusive");
    jw_obj_end(w);
    jw_line_end(w);
}

/* Every op row of the file, one row per run (and per measure): the row's per-run values
 * (etp_ops_row.samples) in run order. A row present in every run of its method has run_index k
 * for its k-th value; a row missing from some runs cannot be placed on a run: run_index -1. */
static int write_table(row_ctx *c, etp_error *err) {
    const fleet_file *f = c->f;
    size_t nrows = etp_ops_row_count(f->ops), nruns = etp_runs_row_count(f->runs);
    const etp_runs_row **rr = malloc((nruns + 1) * sizeof *rr);
    if (!rr) {
        etp_error_set(err, ETP_E_INTERNAL, f->path, -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    int32_t cur = -1;
    size_t nr = 0;
    for (size_t i = 0; i < nrows; i++) {
        const etp_ops_row *r = etp_ops_row_get(f->ops, i);
        const etp_ops_method *m = etp_ops_method_get(f->ops, r->method);
        if ((int32_t)r->method != cur) {
            cur = (int32_t)r->method;
            nr = fleet_method_runs(f->runs, r->method, rr);
        }
        bool placed = r->runs == m->runs && nr == m->runs;
        const double *cs = etp_ops_row_child_sums(f->ops, i);
        c->type = op_type(r, c->tbuf, sizeof c->tbuf);
        c->module[0] = 0;
        if (c->rec && etp_etrecord_row_joinable(r)) { /* the rule of ops --etrecord */
            etp_etr_join j;
            if (etp_etrecord_join_row(c->rec, m->name, r, &j)) {
                free(rr);
                etp_error_set(err, ETP_E_INTERNAL, f->path, -1, "", "out of memory");
                return ETP_E_INTERNAL;
            }
            if (j.module) snprintf(c->module, sizeof c->module, "%s", j.module);
            etp_etrecord_join_free(&j);
        }
        for (uint32_t k = 0; k < r->runs; k++) {
            double v = r->samples[k];
            if (isnan(v)) continue;
            int32_t run = placed ? (int32_t)k : -1;
            bool warm = placed && rr[k]->warmup;
            emit_row(c, r, (uint32_t)i, m->name ? m->name : "", r->method, run, warm, v, false);
            if (cs && !isnan(cs[k]))
                emit_row(c, r, (uint32_t)i, m->name ? m->name : "", r->method, run, warm,
                         v - cs[k], true);
        }
    }
    free(rr);
    return ETP_OK;
}

/* ---------------------------------------------------------------------------------------------
 * v3 records
 * ------------------------------------------------------------------------------------------- */

static void kv(jw *w, const char *k, const char *v) {
    jw_key(w, k);
    jw_str(w, v ? v : "");
}

static void kvu(jw *w, const char *k, uint64_t v) {
    char b[32];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    kv(w, k, b);
}

static void meta_int(jw *w, const char *k, const char *v) {
    jw_key(w, k);
    jw_int(w, strtoll(v, NULL, 10));
}

/* One record: the metric `name` with its values. */
static void v3_record(row_ctx *c, const etp_ops_method *m, const etp_runs_method *rm,
                      const char *backends, const char *name, const char *unit,
                      const double *vals, size_t n, const char *what) {
    const etp_export_opts *o = c->o;
    const etp_fleet_opts *in = &o->in;
    jw *w = &c->w;
    const char *model = fleet_label(in, "model");
    char mbuf[256];
    if (!model) { /* the program's file name, else the dump's, without the directory */
        const char *p = c->p->path ? c->p->path : c->f->path;
        const char *sl = strrchr(p, '/');
        snprintf(mbuf, sizeof mbuf, "%s", sl ? sl + 1 : p);
        char *dot = strrchr(mbuf, '.');
        if (dot && dot != mbuf) *dot = 0;
        model = mbuf;
    }
    jw_obj_begin(w);
    jw_key_lit(w, "timestamp");
    jw_int(w, o->timestamp);
    kv(w, "schema_version", "v3");
    kv(w, "name", "etprof");
    kv(w, "repo", o->repo);
    kv(w, "head_branch", o->head_branch);
    kv(w, "head_sha", o->head_sha);
    meta_int(w, "workflow_id", o->workflow_id);
    meta_int(w, "run_attempt", o->run_attempt);
    meta_int(w, "job_id", o->job_id);
    jw_key_lit(w, "benchmark");
    jw_obj_begin(w);
    kv(w, "name", "ExecuTorch");
    kv(w, "mode", "inference");
    kv(w, "dtype", fleet_label(in, "dtype"));
    jw_key_lit(w, "extra_info");
    jw_obj_begin(w);
    kv(w, "tool", "etprof " ETPROF_VERSION);
    kv(w, "method", m->name);
    kv(w, "dump_sha256", c->f->sha);
    kv(w, "program_sha256", c->p->sha);
    kv(w, "dump", c->f->path);
    kv(w, "captured_at", c->f->mtime);
    jw_obj_end(w);
    jw_obj_end(w);
    jw_key_lit(w, "model");
    jw_obj_begin(w);
    kv(w, "name", model);
    kv(w, "type", "OSS model");
    kv(w, "backend", fleet_label(in, "backend") ? fleet_label(in, "backend") : backends);
    jw_key_lit(w, "origins");
    jw_arr_begin(w);
    jw_arr_end(w);
    jw_key_lit(w, "extra_info");
    jw_obj_begin(w);
    kv(w, "backends", backends);
    jw_obj_end(w);
    jw_obj_end(w);
    jw_key_lit(w, "metric");
    jw_obj_begin(w);
    kv(w, "name", name);
    jw_key_lit(w, "benchmark_values");
    jw_arr_begin(w);
    for (size_t i = 0; i < n; i++) jw_double(w, vals[i]);
    jw_arr_end(w);
    jw_key_lit(w, "target_value");
    jw_double(w, 0);
    jw_key_lit(w, "extra_info");
    jw_obj_begin(w);
    kv(w, "unit", unit);
    kv(w, "values", what);
    kvu(w, "runs", m->runs);
    kvu(w, "warmup_runs", rm ? rm->warmup_runs : 0);
    kvu(w, "steady_runs", rm ? rm->steady_runs : 0);
    jw_obj_end(w);
    jw_obj_end(w);
    jw_key_lit(w, "runners");
    jw_arr_begin(w);
    jw_obj_begin(w);
    kv(w, "name", fleet_label(in, "device"));
    kv(w, "type", fleet_label(in, "runner_type") ? fleet_label(in, "runner_type")
                                                   : fleet_label(in, "os"));
    kv(w, "cpu_info", fleet_label(in, "soc"));
    jw_key_lit(w, "cpu_count");
    jw_int(w, 0);
    kv(w, "mem_info", "");
    jw_key_lit(w, "avail_mem_in_gb");
    jw_int(w, 0);
    kv(w, "gpu_info", "");
    jw_key_lit(w, "gpu_count");
    jw_int(w, 0);
    kv(w, "gpu_mem_info", "");
    jw_key_lit(w, "avail_gpu_mem_in_gb");
    jw_int(w, 0);
    jw_key_lit(w, "extra_info");
    jw_obj_begin(w);
    for (size_t i = 0; i < in->nlabels; i++) kv(w, in->labels[i].key, in->labels[i].value);
    jw_obj_end(w);
    jw_obj_end(w);
    jw_arr_end(w);
    jw_key_lit(w, "inputs");
    jw_obj_begin(w);
    jw_obj_end(w);
    jw_key_lit(w, "dependencies");
    jw_obj_begin(w);
    jw_obj_end(w);
    jw_obj_end(w);
    jw_line_end(w);
    c->rows++;
}

static int write_v3(row_ctx *c, etp_error *err) {
    const fleet_file *f = c->f;
    size_t nruns = etp_runs_row_count(f->runs);
    const etp_runs_row **rr = malloc((nruns + 1) * sizeof *rr);
    double *v = malloc((nruns + 1) * sizeof *v);
    if (!rr || !v) {
        free(rr);
        free(v);
        etp_error_set(err, ETP_E_INTERNAL, f->path, -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    for (size_t mi = 0; mi < etp_ops_method_count(f->ops); mi++) {
        const etp_ops_method *m = etp_ops_method_get(f->ops, mi);
        const etp_runs_method *rm = NULL;
        for (size_t k = 0; k < etp_runs_method_count(f->runs); k++)
            if (etp_runs_method_get(f->runs, k)->method == mi) rm = etp_runs_method_get(f->runs, k);
        size_t nr = fleet_method_runs(f->runs, (uint32_t)mi, rr);
        char be[256];
        fleet_backends(m, be, sizeof be);
        bool ns = m->unit == ETP_UNIT_NS;
        double scale = ns ? 1e-6 : 1; /* ns -> ms */
        const char *u = ns ? "ms" : etp_unit_name(m->unit);
        char name[64];
        if (!isnan(m->latency.p50)) {
            double x = m->latency.p50 * scale;
            snprintf(name, sizeof name, "latency_p50(%s)", u);
            v3_record(c, m, rm, be, name, u, &x, 1, "p50 of Method::execute over the runs kept");
            x = m->latency.p90 * scale;
            snprintf(name, sizeof name, "latency_p90(%s)", u);
            v3_record(c, m, rm, be, name, u, &x, 1, "p90 of Method::execute over the runs kept");
            size_t k = 0;
            for (size_t i = 0; i < nr; i++)
                if (!rr[i]->warmup && !isnan(rr[i]->execute)) v[k++] = rr[i]->execute * scale;
            snprintf(name, sizeof name, "latency(%s)", u);
            v3_record(c, m, rm, be, name, u, v, k, "Method::execute of each steady run");
        }
        double del = NAN;
        for (uint32_t i = 0; i < m->n_parts; i++)
            if (m->parts[i].place == ETP_PLACE_DELEGATE)
                del = (isnan(del) ? 0 : del) + m->parts[i].share;
        if (!isnan(m->latency.p50)) {
            double x = isnan(del) ? 0 : del;
            v3_record(c, m, rm, be, "delegate_share(%)", "%", &x, 1,
                      "all backends' DELEGATE_CALLs, percent of Method::execute (summary)");
        }
        uint32_t cpu_ops = 0;
        for (uint32_t i = 0; i < m->n_parts; i++)
            if (m->parts[i].place == ETP_PLACE_CPU) cpu_ops = m->parts[i].partitions;
        double x = cpu_ops;
        v3_record(c, m, rm, be, "cpu_fallback_ops(count)", "count", &x, 1,
                  "distinct CPU kernel instructions (not delegated)");
        size_t k = 0;
        for (size_t i = 0; i < nr; i++) {
            double s = NAN;
            for (uint32_t q = 0; q < rr[i]->n_qnn; q++) {
                double y = rr[i]->qnn[q].value[ETP_QT_ACCEL_CYCLES];
                if (!isnan(y)) s = isnan(s) ? y : s + y;
            }
            if (!isnan(s) && !rr[i]->warmup) v[k++] = s;
        }
        if (k)
            v3_record(c, m, rm, be, "htp_cycles(cycles)", "cycles", v, k,
                      "Accelerator (execute) time (cycles) of each steady run, all QNN partitions");
        if (rm && !isnan(rm->tokens_per_second)) {
            x = rm->tokens_per_second;
            v3_record(c, m, rm, be, "tokens_per_second(tokens/s)", "tokens/s", &x, 1,
                      "runs per second of the summed Method::execute of a decode-style method");
        }
    }
    free(rr);
    free(v);
    return ETP_OK;
}

/* ---------------------------------------------------------------------------------------------
 * The export
 * ------------------------------------------------------------------------------------------- */

static bool is_int(const char *s) {
    if (!s || !*s) return false;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p)) return false;
    return strlen(s) < 19;
}

int etp_export_write(FILE *f, const char *const *dumps, size_t n, const etp_export_opts *o,
                     etp_export_stats *st, etp_error *err) {
    if (st) memset(st, 0, sizeof *st);
    if (o->format == ETP_EXPORT_V3) {
        struct {
            const char *v, *opt;
            bool num;
        } req[] = {{o->repo, "--repo", false},          {o->head_sha, "--head-sha", false},
                   {o->workflow_id, "--workflow-id", true}, {o->job_id, "--job-id", true},
                   {o->run_attempt, "--run-attempt", true}};
        for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
            if (!req[i].v || !*req[i].v) {
                etp_error_set(err, ETP_E_USAGE, "", -1, req[i].opt,
                              "the v3 format needs %s (the record's required metadata)", req[i].opt);
                return ETP_E_USAGE;
            }
            if (req[i].num && !is_int(req[i].v)) {
                etp_error_set(err, ETP_E_USAGE, "", -1, req[i].opt,
                              "%s: expected a non-negative integer, got \"%.60s\"", req[i].opt,
                              req[i].v);
                return ETP_E_USAGE;
            }
        }
        if (!o->timestamp_set) {
            etp_error_set(err, ETP_E_USAGE, "", -1, "--timestamp",
                          "the v3 format needs --timestamp (Unix seconds)");
            return ETP_E_USAGE;
        }
    }
    if (!f) return ETP_OK; /* the options checked, nothing written */
    row_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.out = f;
    c.device = fleet_label(&o->in, "device");
    c.soc = fleet_label(&o->in, "soc");
    c.build = fleet_label(&o->in, "build");
    c.commit = fleet_label(&o->in, "commit");
    if (!c.device) c.device = "";
    if (!c.soc) c.soc = "";
    if (!c.build) c.build = "";
    if (!c.commit) c.commit = "";
    fleet_prog p;
    int rc = fleet_prog_open(&p, o->in.pte, err);
    if (rc) return rc;
    c.p = &p;
    etp_etrecord *rec = NULL;
    if (o->etrecord && o->format != ETP_EXPORT_V3 &&
        (rc = etp_etrecord_open(&rec, o->etrecord, NULL, err))) {
        fleet_prog_close(&p);
        return rc;
    }
    c.rec = rec;
    c.buf = malloc(1 << 16);
    if (!c.buf) {
        etp_etrecord_close(rec);
        fleet_prog_close(&p);
        etp_error_set(err, ETP_E_INTERNAL, "", -1, "", "out of memory");
        return ETP_E_INTERNAL;
    }
    jw_init(&c.w, f, false);
    jw_set_buffer(&c.w, c.buf, 1 << 16);
    if (o->format == ETP_EXPORT_CSV) {
        for (size_t i = 0; i < NCOLS; i++) fprintf(f, "%s%s", i ? "," : "", cols[i].name);
        putc('\n', f);
    }
    for (size_t i = 0; i < n && !rc; i++) {
        fleet_file ff;
        if ((rc = fleet_file_open(&ff, dumps[i], &p, o->in.method, err))) break;
        c.f = &ff;
        rc = o->format == ETP_EXPORT_V3 ? write_v3(&c, err) : write_table(&c, err);
        jw_flush(&c.w);
        fleet_file_close(&ff);
        if (st) st->files++;
        if (ferror(f)) {
            etp_error_set(err, ETP_E_IO, "", -1, "", "write failed");
            rc = ETP_E_IO;
        }
    }
    jw_flush(&c.w);
    if (st) st->records = c.rows;
    free(c.buf);
    etp_etrecord_close(rec);
    fleet_prog_close(&p);
    if (!rc && (fflush(f) != 0 || ferror(f))) {
        etp_error_set(err, ETP_E_IO, "", -1, "", "write failed");
        rc = ETP_E_IO;
    }
    return rc;
}
