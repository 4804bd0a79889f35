/* report.c - the self-contained HTML report (docs/report.md).
 *
 * One HTML file: inline CSS, charts drawn here as inline SVG, a few lines of inline script that
 * only sort tables, no reference to anything outside the file. Every string that comes from an
 * input file is HTML-escaped (and invalid UTF-8 replaced); every number carries its unit. The
 * output depends only on the inputs and the options (no clock, no locale, no environment).
 *
 * Sections: summary, where the time goes (stacked bar per method), latency over runs, the
 * hierarchy (icicle per method), top operators, CPU fallback, QNN (units and caveats, the µs
 * nesting, HTP node cycles in their own unit) and QNN deep data (QHAS / optrace / runtrace /
 * heap: per-op HMX/HVX/DMA, VTCM, DRAM, utilization, the HTP timeline), notes.
 */
#include "sort.h"
#include "analysis.h"
#include "etprof.h"
#include "etprof_runs.h"
#include "etprof_backend.h"
#include "etprof_arm_pmu.h"
#include "etprof_etrecord.h"
#include "etprof_modules.h"
#include "jw.h"
#include "qnn.h"
#include "qnn_report.h"
#include "result_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define DEF_TOP_OPS 50
#define DEF_TOP_NODES 200
#define CHART_W 960           /* SVG user units; the chart scales down with the page */
#define ICICLE_MAX_RECTS 4000 /* per chart */
#define ICICLE_MIN_W 0.5      /* narrower boxes are not drawn (their time stays in the parent) */
#define RUNS_MAX_POINTS 2000  /* more runs: min/max per bucket */
#define TIMELINE_MAX_RECTS 6000
#define JSON_MAX_RUNS 10000   /* per-run latencies embedded in the data block */
#define MAX_BACKENDS 16
#define STRIP_MAX_NODES 200 /* more HTP nodes: the operator-type chart replaces the node strip */
#define TYPE_BARS 25        /* bars per operator-type chart; the rest share one bar */

static const char *const DASH = "\xE2\x80\x93"; /* en dash: no value */

/* Fill colours (all light enough for dark text). */
static const char *const BACKEND_COLORS[] = {"#6f9be8", "#a58be0", "#5cc0b0", "#e07fa8",
                                             "#c9b44e", "#7fb3d5", "#b58f6d", "#8fbf6a"};
#define N_BACKEND_COLORS (sizeof BACKEND_COLORS / sizeof BACKEND_COLORS[0])
#define COL_CPU "#f0a35a"
#define COL_OPCALL "#f6c792"
#define COL_FRAMEWORK "#aeb7c2"
#define COL_OTHER "#cdd3da"
#define COL_HMX "#a58be0"
#define COL_HVX "#5cc0b0"
#define COL_DMA "#e9b949"
#define COL_NODE_A "#7fa6ea"
#define COL_NODE_B "#9dbcf0"
#define COL_NODE_IO "#e9b949"
#define COL_NODE_SYS "#b9c2cc"

typedef struct rep {
    FILE *f;
    const etp_report_opts *o;
    const etp_ops_result *r;
    etp_disp d;
    uint32_t top_ops, top_nodes;
    uint32_t flags, units; /* of the values shown, for the unit notes */
    char nb[8][96];
    unsigned nbi;
    const char *backends[MAX_BACKENDS];
    uint32_t n_backends;
    etp_qnn_soc soc; /* the SoC the QNN delegates were compiled for (the program's spec) */
    /* QNN deep data (any may be NULL) */
    etp_qnn_qhas *qhas;
    etp_qnn_trace *trace;
    etp_qnn_runtrace *rt;
    etp_qnn_heap *heap;
    etp_qnn_derived *der;
    /* join of the derived per-op rows with one QNN partition's HTP node rows (qnn_report.h);
     * NULL when there is nothing to join */
    etp_qnn_etd_join *join;
    int32_t *row_drow;          /* per ops row: derived row of its trusted pair, -1 */
    etp_doc *tdoc;              /* the scratch document of the table being written (tab_begin) */
    etp_optype_result *types;   /* the operators by type (etp_optype_compute) */
    const etp_etrecord *etr;    /* --etrecord, NULL when none */
    const char **plab;          /* per ops row: its placement as the text views name it
                                   (etp_backend_placement_labels: an inferred backend named) */
    const etp_arm_pmu_report *pmu; /* the Arm runner's PMU report (a dump read from its log) */
    bool oom;                   /* a table could not be built: the report fails */
} rep;

/* ---------------------------------------------------------------------------------------------
 * Output primitives
 * ------------------------------------------------------------------------------------------- */

static void P(rep *R, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void P(rep *R, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(R->f, fmt, ap);
    va_end(ap);
}

static void S(rep *R, const char *s) { fputs(s, R->f); }

/* HTML-escapes s[0..n) (res_html_esc, the escaping of the result model's HTML tables): & < > " '
 * become references, control characters and bytes that are not well-formed UTF-8 become U+FFFD.
 * Safe in text and in quoted attribute values. */
static void esc_n(FILE *f, const char *s, size_t n) { res_html_esc(f, s, n); }

static void E(rep *R, const char *s) {
    if (!s) s = "";
    esc_n(R->f, s, strlen(s));
}

/* Escaped, cut to at most `max` code points (with an ellipsis when cut). */
static void E_trunc(FILE *f, const char *s, size_t max) {
    if (!s) return;
    size_t n = strlen(s), i = 0, cp = 0;
    while (i < n && cp < max) {
        size_t l = (unsigned char)s[i] < 0x80 ? 1 : jw_utf8_len((const unsigned char *)s + i, n - i);
        i += l ? l : 1;
        cp++;
    }
    if (i >= n) {
        esc_n(f, s, n);
        return;
    }
    if (max == 0) return;
    /* room for the ellipsis: drop the last code point */
    size_t j = 0, k = 0, cut = 0;
    while (j < n && k + 1 < max) {
        size_t l = (unsigned char)s[j] < 0x80 ? 1 : jw_utf8_len((const unsigned char *)s + j, n - j);
        j += l ? l : 1;
        k++;
        cut = j;
    }
    esc_n(f, s, cut);
    fputs("\xE2\x80\xA6", f);
}

/* A number in a rotating buffer ('.' decimal point whatever the locale), DASH when not finite. */
static const char *num(rep *R, double v, int prec) {
    char *b = R->nb[R->nbi++ & 7];
    if (!isfinite(v)) return DASH;
    if (prec < 0) prec = 0;
    if (prec > 9) prec = 9;
    snprintf(b, sizeof R->nb[0], "%.*f", prec, v);
    jw_c_number(b);
    if (b[0] == '-') { /* no "-0.000" */
        bool zero = true;
        for (const char *q = b + 1; *q; q++)
            if (*q >= '1' && *q <= '9') zero = false;
        if (zero) memmove(b, b + 1, strlen(b));
    }
    return b;
}

static bool is_time(etp_unit u) { return u == ETP_UNIT_NS || u == ETP_UNIT_TICKS; }

/* A value of unit u as displayed (time in the report's unit) and that unit's name. */
static double dv(rep *R, etp_unit u, double v) {
    const char *un;
    return etp_disp_conv(&R->d, u, v, &un);
}

static const char *du(rep *R, etp_unit u) {
    const char *un;
    etp_disp_conv(&R->d, u, 0, &un);
    return un;
}

/* The digits after the point of a displayed value x of unit u: the time precision for times,
 * else none for a whole value, 3 below 10 and 1 above for one that is not (e.g. a p50 between
 * two cycle counts). */
static int fv_prec(const rep *R, etp_unit u, double x) {
    if (u == ETP_UNIT_NS) return R->d.precision < 0 ? 0 : R->d.precision > 9 ? 9 : R->d.precision;
    if (isfinite(x) && x != floor(x)) return fabs(x) < 10 ? 3 : 1;
    return 0;
}

/* The displayed number of a value of unit u (in the report's time unit for times). */
static const char *fv(rep *R, etp_unit u, double v) {
    R->units |= 1u << u;
    double x = dv(R, u, v);
    return num(R, x, fv_prec(R, u, x));
}

static int pct_prec(double v) { return fabs(v) < 0.1 && v != 0 ? 3 : 1; }
static const char *pct(rep *R, double v) { return num(R, v, pct_prec(v)); }

/* ---- tables: each one a result-model table (include/etprof_result.h) in a scratch document,
 * written by etp_table_render_html(), so that its cells have the one cell formatting of every
 * view. The report's own markup in cells (colour swatches, share bars, yes/no classes) comes
 * from a cell hook. */

static etp_table *tab_begin(rep *R, const etp_col *cols, size_t ncols) {
    etp_doc_free(R->tdoc);
    R->tdoc = etp_doc_new("report", -1, NULL, NULL);
    etp_table *t = etp_doc_table(R->tdoc, cols, ncols);
    if (!t) R->oom = true;
    return t;
}

static void tab_end(rep *R, etp_table *t, const etp_html_opts *o) {
    if (t && etp_table_render_html(t, R->f, o) == ETP_E_INTERNAL) R->oom = true;
    etp_doc_free(R->tdoc);
    R->tdoc = NULL;
}

/* A value of unit u as fv() shows it (null when not finite). */
static void tab_v(rep *R, etp_table *t, etp_unit u, double v) {
    R->units |= 1u << u;
    double x = dv(R, u, v);
    if (isfinite(x)) etp_table_float_prec(t, x, fv_prec(R, u, x));
    else etp_table_null(t);
}

/* A percentage as pct() shows it; a float with `prec` digits (prec < 0: pct's); null when not
 * finite. */
static void tab_f(etp_table *t, double v, int prec) {
    if (isfinite(v)) etp_table_float_prec(t, v, prec < 0 ? pct_prec(v) : prec);
    else etp_table_null(t);
}
static void tab_pct(etp_table *t, double v) { tab_f(t, v, -1); }

/* A bool cell (yes / no) has the class "yes" or "no" (null cells: "no"), as the page's CSS
 * colours them. */
static void flag_class(const etp_table *t, size_t row, size_t col, etp_html_cell *c) {
    if (etp_table_col(t, col)->type != ETP_T_BOOL) return;
    etp_type ty = ETP_T_NULL;
    int64_t yes = 0;
    etp_table_cell(t, row, col, &ty, &yes, NULL, NULL, NULL);
    c->cls = ty == ETP_T_BOOL && yes ? "yes" : "no";
}

/* A card: key, value, unit. */
static void card(rep *R, const char *key, const char *value, const char *unit, const char *id) {
    S(R, "<div class=\"card\"");
    if (id) P(R, " id=\"%s\"", id);
    S(R, "><div class=\"k\">");
    E(R, key);
    S(R, "</div><div class=\"v\">");
    E(R, value);
    if (unit && *unit) {
        S(R, "<span class=\"u\">");
        E(R, unit);
        S(R, "</span>");
    }
    S(R, "</div></div>");
}

/* Text width estimate of an 11 px sans-serif label, in SVG units. */
static double text_w(const char *s, double px) {
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p & 0xc0) != 0x80) n++;
    return (double)n * px * 0.58;
}

static size_t fit_chars(double width, double px) {
    double n = (width - 6) / (px * 0.58);
    return n < 0 ? 0 : (size_t)n;
}

/* Mixes a "#rrggbb" colour with white (t = 0: unchanged, 1: white). */
static void lighten(const char *hex, double t, char out[8]) {
    unsigned v = (unsigned)strtoul(hex + 1, NULL, 16);
    unsigned c[3] = {(v >> 16) & 255, (v >> 8) & 255, v & 255};
    for (int i = 0; i < 3; i++) c[i] = (unsigned)(c[i] + (255 - c[i]) * t + 0.5);
    snprintf(out, 8, "#%02x%02x%02x", c[0] & 255, c[1] & 255, c[2] & 255);
}

static const char *backend_color(rep *R, const char *backend) {
    for (uint32_t i = 0; backend && i < R->n_backends; i++)
        if (strcmp(R->backends[i], backend) == 0) return BACKEND_COLORS[i % N_BACKEND_COLORS];
    return BACKEND_COLORS[0];
}

static double nice_step(double range, int target) {
    if (!(range > 0) || !isfinite(range)) return 1;
    double raw = range / target;
    double mag = pow(10, floor(log10(raw)));
    double r = raw / mag;
    double s = r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10;
    return s * mag;
}

static int step_prec(double step) {
    if (step >= 1) return 0;
    return (int)ceil(-log10(step) - 1e-9);
}

/* ---------------------------------------------------------------------------------------------
 * Rows
 * ------------------------------------------------------------------------------------------- */

static const etp_ops_row *row_at(const rep *R, int32_t i) {
    return i >= 0 ? etp_ops_row_get(R->r, (size_t)i) : NULL;
}

/* Mean per run over all runs of the method (additive: children never exceed their parent). */
static double per_run(const rep *R, const etp_ops_row *row) {
    const etp_ops_method *m = etp_ops_method_get(R->r, row->method);
    return m->runs ? row->stats.total / m->runs : NAN;
}

static const char *method_name(const etp_ops_method *m) {
    static char lb[600]; /* one report at a time (single-threaded CLI) */
    return etp_method_label(m, lb, sizeof lb);
}

/* Row i's placement as the text views name it (an inferred backend named). */
static const char *row_place(const rep *R, size_t i) {
    const char *p = R->plab ? R->plab[i] : etp_ops_row_get(R->r, i)->placement;
    return p ? p : "?";
}

/* The label of row i in charts and tables. Writes into buf when it builds one. */
static const char *row_label(const rep *R, size_t i, char *buf, size_t cap) {
    const etp_ops_row *row = etp_ops_row_get(R->r, i);
    if (row->kind == ETP_KIND_DELEGATE_CALL) {
        snprintf(buf, cap, "DELEGATE_CALL [%s]", row_place(R, i));
        return buf;
    }
    if (row->kind == ETP_KIND_OPERATOR_CALL && row->op) {
        snprintf(buf, cap, "OPERATOR_CALL [%s]", row->op);
        return buf;
    }
    if (row->kind == ETP_KIND_KERNEL && row->op) return row->op;
    if (row->htp_node && row->op && row->qnn == ETP_QNN_NODE) return row->op;
    return row->name ? row->name : "?";
}

static const char *row_color(rep *R, const etp_ops_row *row, char tmp[8]) {
    switch (row->kind) {
    case ETP_KIND_FRAMEWORK: return COL_FRAMEWORK;
    case ETP_KIND_OPERATOR_CALL: return COL_OPCALL;
    case ETP_KIND_KERNEL: return COL_CPU;
    case ETP_KIND_DELEGATE_CALL: return backend_color(R, row->placement);
    case ETP_KIND_DELEGATE_INTERNAL: {
        double t = 0.22 * (row->depth >= 2 ? row->depth - 1 : 1);
        lighten(backend_color(R, row->placement), t > 0.7 ? 0.7 : t, tmp);
        return tmp;
    }
    default: return COL_OTHER;
    }
}

static const etp_ops_qnn *qnn_of_method(const rep *R, uint32_t mi) {
    for (size_t i = 0; i < etp_ops_qnn_count(R->r); i++)
        if (etp_ops_qnn_get(R->r, i)->method == mi) return etp_ops_qnn_get(R->r, i);
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Head, summary
 * ------------------------------------------------------------------------------------------- */

static const char CSS[] =
    ":root{--fg:#1b2430;--muted:#5b6675;--line:#d9dee5;--bg:#f4f6f8;--card:#fff;--accent:#2f6fd6}"
    "*{box-sizing:border-box}"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica Neue\","
    "Arial,sans-serif;color:var(--fg);background:var(--bg)}"
    "header{background:#1f2a37;color:#fff;padding:16px 28px}"
    "header h1{margin:0 0 2px;font-size:20px;font-weight:600}"
    "header .sub{color:#c7d0db;font-size:13px;overflow-wrap:anywhere}"
    "nav{position:sticky;top:0;background:#fff;border-bottom:1px solid var(--line);"
    "padding:6px 28px;z-index:2;font-size:13px}"
    "nav a{margin-right:14px;color:var(--accent);text-decoration:none;white-space:nowrap}"
    "main{max-width:1120px;margin:0 auto;padding:4px 24px 40px}"
    "section{background:var(--card);border:1px solid var(--line);border-radius:8px;"
    "padding:14px 20px;margin:16px 0}"
    "h2{font-size:17px;margin:0 0 8px}h3{font-size:14px;margin:16px 0 6px}"
    "p{margin:6px 0}"
    ".cards{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0}"
    ".card{border:1px solid var(--line);border-radius:6px;padding:7px 12px;min-width:140px;"
    "background:#fbfcfd}"
    ".card .k{font-size:11px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}"
    ".card .v{font-size:19px;font-weight:600;font-variant-numeric:tabular-nums;"
    "overflow-wrap:anywhere}"
    ".card .u{font-size:12px;font-weight:400;color:var(--muted);margin-left:4px}"
    "div.tw{overflow-x:auto;margin:6px 0}div.tw.scroll{max-height:560px;overflow-y:auto;"
    "border:1px solid #eceff3}div.tw.scroll th{position:sticky;top:0;z-index:1}"
    "table{border-collapse:collapse;width:100%;font-size:12.5px}"
    "th,td{padding:3px 8px;border-bottom:1px solid #eceff3;text-align:left;vertical-align:top}"
    "th{background:#f1f3f6;font-weight:600}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}td.n{white-space:nowrap}"
    "tbody tr:nth-child(even){background:#fafbfc}"
    "table.sortable th{cursor:pointer;user-select:none}"
    "table.sortable th[aria-sort=descending]::after{content:\" \\25BE\"}"
    "table.sortable th[aria-sort=ascending]::after{content:\" \\25B4\"}"
    ".name{overflow-wrap:break-word;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
    "font-size:12px}"
    ".note{color:var(--muted);font-size:12.5px}"
    ".warn{background:#fff7e6;border-left:3px solid #f0a35a;padding:6px 10px;margin:8px 0}"
    ".ok{background:#edf7ef;border-left:3px solid #4caf6a;padding:6px 10px;margin:8px 0}"
    "ul{margin:6px 0;padding-left:22px}li{margin:3px 0}"
    "dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:6px 0}"
    "dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}"
    "svg.chart{display:block;width:100%;max-width:960px;height:auto;margin:6px 0}"
    "svg text{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,Arial,sans-serif;"
    "fill:#1b2430}"
    "svg text.m{fill:#5b6675}"
    ".legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;margin:2px 0 6px}"
    ".sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;"
    "vertical-align:-1px;border:1px solid rgba(0,0,0,.15)}"
    ".bar{display:inline-block;height:8px;background:#6f9be8;border-radius:2px;"
    "vertical-align:middle;margin-right:6px}"
    ".yes{color:#1a7f37;font-weight:600}.no{color:#9aa3ad}"
    "code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;"
    "background:#f1f3f6;padding:0 3px;border-radius:3px}"
    "footer{color:var(--muted);font-size:12px;text-align:center;margin:18px 0}";

/* Sorts tables with class "sortable" when a header is clicked (numbers by data-v). Written to
 * run without errors whatever the table holds; does nothing else. */
static const char JS[] =
    "(function(){'use strict';"
    "function key(c,num){if(!c)return num?-Infinity:'';"
    "if(num){var v=parseFloat(c.getAttribute('data-v'));return isNaN(v)?-Infinity:v;}"
    "return(c.textContent||'').toLowerCase();}"
    "var ts=document.querySelectorAll('table.sortable');"
    "Array.prototype.forEach.call(ts,function(t){"
    "if(!t.tHead||!t.tHead.rows.length||!t.tBodies.length)return;"
    "var hs=t.tHead.rows[0].cells;"
    "Array.prototype.forEach.call(hs,function(h,col){"
    "h.addEventListener('click',function(){"
    "var num=h.getAttribute('data-type')==='num';"
    "var desc=h.getAttribute('aria-sort')!=='descending';"
    "if(!num&&!h.hasAttribute('aria-sort'))desc=false;"
    "Array.prototype.forEach.call(hs,function(o){o.removeAttribute('aria-sort');});"
    "h.setAttribute('aria-sort',desc?'descending':'ascending');"
    "var b=t.tBodies[0],rs=Array.prototype.slice.call(b.rows);"
    "rs.sort(function(x,y){var a=key(x.cells[col],num),c=key(y.cells[col],num);"
    "return a<c?(desc?1:-1):a>c?(desc?-1:1):0;});"
    "rs.forEach(function(r){b.appendChild(r);});});});});})();";

static void write_head(rep *R) {
    const char *src = R->o->source ? R->o->source : "(ETDump)";
    S(R, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<meta name=\"generator\" content=\"etprof " ETPROF_VERSION "\">\n<title>etprof report: ");
    E(R, src);
    S(R, "</title>\n<style>");
    S(R, CSS);
    S(R, "</style>\n</head>\n<body>\n<header><h1>etprof report</h1><div class=\"sub\">");
    E(R, src);
    if (R->o->program) {
        S(R, " &middot; program ");
        E(R, R->o->program);
    }
    S(R, "</div></header>\n");
}

static void write_nav(rep *R, bool qnn, bool deep) {
    S(R, "<nav><a href=\"#summary\">Summary</a><a href=\"#placement\">Where the time goes</a>"
         "<a href=\"#runs\">Latency over runs</a><a href=\"#hierarchy\">Hierarchy</a>"
         "<a href=\"#top-ops\">Top operators</a><a href=\"#op-types\">Operators by type</a>"
         "<a href=\"#cpu-fallback\">CPU fallback</a>");
    if (qnn) S(R, "<a href=\"#qnn\">QNN</a>");
    if (deep) S(R, "<a href=\"#qnn-deep\">QNN deep data</a>");
    if (R->pmu && R->pmu->present) S(R, "<a href=\"#arm-pmu\">Ethos-U PMU</a>");
    if (R->o->vgf && R->o->vgf->n) S(R, "<a href=\"#vgf-device\">VGF device time</a>");
    S(R, "<a href=\"#notes\">Units &amp; notes</a></nav>\n<main>\n");
}

static uint32_t kernel_instructions(const etp_ops_method *m) {
    uint32_t n = 0;
    for (uint32_t j = 0; j < m->n_cpu_ops; j++) n += m->cpu_ops[j].instructions;
    return n;
}

static void write_summary(rep *R) {
    const etp_ops_result *r = R->r;
    size_t nm = etp_ops_method_count(r);
    S(R, "<section id=\"summary\"><h2>Summary</h2>\n<dl class=\"facts\"><dt>file</dt><dd id=\"file\">");
    E(R, R->o->source ? R->o->source : "(ETDump)");
    S(R, "</dd><dt>program</dt><dd>");
    if (R->o->program) E(R, R->o->program);
    else S(R, "not given: methods, operator names and backends are unknown (give <code>--pte P</code>)");
    P(R, "</dd><dt>runs</dt><dd id=\"runs-total\">%u</dd><dt>blocks read</dt><dd>%u</dd>",
      etp_ops_runs_kept(r), etp_ops_blocks_read(r));
    P(R, "<dt>methods</dt><dd>%zu</dd>", nm);
    if (R->o->skip_first)
        P(R, "<dt>warm-up skipped</dt><dd>the first %u run(s) of each method (--skip-first)</dd>",
          R->o->skip_first);
    if (R->o->block) {
        S(R, "<dt>blocks</dt><dd>only blocks named ");
        E(R, R->o->block);
        S(R, "</dd>");
    }
    const char *qf[4] = {R->o->qhas, R->o->optrace, R->o->runtrace, R->o->heap};
    const char *qn[4] = {"QHAS", "optrace", "runtrace", "heap file"};
    for (int i = 0; i < 4; i++)
        if (qf[i]) {
            P(R, "<dt>QNN %s</dt><dd>", qn[i]);
            E(R, qf[i]);
            S(R, "</dd>");
        }
    S(R, "</dl>\n");
    if (nm == 0) {
        S(R, "<p class=\"warn\">No Execute runs in this file (no block with a Method::execute "
             "event): there is no latency to report.</p>");
    }
    for (size_t mi = 0; mi < nm; mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        const etp_ops_row *exec = row_at(R, m->exec_row);
        S(R, "<h3>");
        E(R, method_name(m));
        S(R, "</h3><div class=\"cards\">");
        char id[64];
        snprintf(id, sizeof id, "m%zu-method", mi);
        card(R, "method", method_name(m), NULL, id);
        char b[64];
        snprintf(b, sizeof b, "%u", m->runs);
        snprintf(id, sizeof id, "m%zu-runs", mi);
        card(R, "runs", b, m->skipped ? "kept" : NULL, id);
        snprintf(id, sizeof id, "m%zu-p50", mi);
        card(R, "latency p50", fv(R, m->unit, m->latency.p50), du(R, m->unit), id);
        snprintf(id, sizeof id, "m%zu-p90", mi);
        card(R, "latency p90", fv(R, m->unit, m->latency.p90), du(R, m->unit), id);
        if (exec && exec->runs > 1)
            card(R, "first run", fv(R, m->unit, exec->samples[0]), du(R, m->unit), NULL);
        snprintf(b, sizeof b, "%u", m->delegate_partitions);
        card(R, "delegate partitions", b, NULL, NULL);
        snprintf(b, sizeof b, "%u", kernel_instructions(m));
        card(R, "CPU kernels", b, "instructions", NULL);
        S(R, "</div>\n");
    }
    if (nm) {
        /* the unit is a column: methods may differ (ticks without a rate) */
        static const etp_col cols[] = {
            {"method", NULL, NULL, ETP_T_STR, false, 0},
            {"runs", NULL, NULL, ETP_T_UINT, false, 0},
            {"min", NULL, NULL, ETP_T_FLOAT, true, -1},
            {"p10", NULL, NULL, ETP_T_FLOAT, true, -1},
            {"p50", NULL, NULL, ETP_T_FLOAT, true, -1},
            {"p90", NULL, NULL, ETP_T_FLOAT, true, -1},
            {"avg", NULL, NULL, ETP_T_FLOAT, true, -1},
            {"max", NULL, NULL, ETP_T_FLOAT, true, -1},
            {"unit", NULL, NULL, ETP_T_STR, false, 0},
            {"delegate partitions", NULL, NULL, ETP_T_UINT, false, 0},
        };
        static const char *const cls[] = {"name", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
        etp_table *t = tab_begin(R, cols, sizeof cols / sizeof cols[0]);
        for (size_t mi = 0; mi < nm; mi++) {
            const etp_ops_method *m = etp_ops_method_get(r, mi);
            etp_table_row(t);
            etp_table_str(t, method_name(m));
            etp_table_uint(t, m->runs);
            for (int i = 2; i < 8; i++) {
                double v = NAN;
                etp_stats_pick(&m->latency, cols[i].key, &v);
                tab_v(R, t, m->unit, v);
            }
            etp_table_str(t, du(R, m->unit));
            etp_table_uint(t, m->delegate_partitions);
        }
        tab_end(R, t, &(etp_html_opts){.wrap_class = "tw", .col_class = cls});
        S(R, "<p class=\"note\">Latency = Method::execute per run (one run = one "
             "Execute block); percentiles interpolate linearly between ranks (numpy's default).</p>");
    }
    S(R, "</section>\n");
}

/* ---------------------------------------------------------------------------------------------
 * Where the time goes: stacked bar per method
 * ------------------------------------------------------------------------------------------- */

static const char *part_label(const etp_ops_part *p, char *buf, size_t cap) {
    if (p->place == ETP_PLACE_DELEGATE && p->backend_own)
        snprintf(buf, cap, "%s own time (backend's own, no DELEGATE_CALL)", p->placement);
    else if (p->place == ETP_PLACE_DELEGATE) snprintf(buf, cap, "%s DELEGATE_CALLs", p->placement);
    else if (p->place == ETP_PLACE_CPU) snprintf(buf, cap, "CPU kernels (OPERATOR_CALL)");
    else snprintf(buf, cap, "framework overhead");
    return buf;
}

static const char *part_color(rep *R, const etp_ops_part *p) {
    if (p->place == ETP_PLACE_DELEGATE) return backend_color(R, p->placement);
    if (p->place == ETP_PLACE_CPU) return COL_CPU;
    return COL_FRAMEWORK;
}

/* Column 0 holds a colour of the page's own ("#rrggbb"): a swatch of it instead of the text. */
static void swatch_cell(void *ctx, const etp_table *t, size_t row, size_t col, etp_html_cell *c) {
    const char *colour = NULL;
    if (col != 0 || !etp_table_cell(t, row, col, NULL, NULL, NULL, NULL, &colour) || !colour) return;
    char *b = ctx;
    snprintf(b, 96, "<span class=\"sw\" style=\"background:%s\"></span>", colour);
    c->html = b;
    c->replace = true;
}

static void write_placement(rep *R) {
    const etp_ops_result *r = R->r;
    S(R, "<section id=\"placement\"><h2>Where the time goes</h2>\n<p class=\"note\">Per method: "
         "time inside each backend's DELEGATE_CALLs, in CPU kernels (OPERATOR_CALL, run by the "
         "interpreter) and the framework overhead (the rest of Method::execute). Mean per run "
         "(total over runs / runs), so the parts add up to Method::execute; % of Method::execute."
         "</p>\n");
    for (size_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        const etp_ops_row *exec = row_at(R, m->exec_row);
        double whole = exec ? per_run(R, exec) : 0;
        bool by_sum = !(whole > 0);
        if (by_sum) {
            whole = 0;
            for (uint32_t j = 0; j < m->n_parts; j++)
                if (m->parts[j].per_run > 0) whole += m->parts[j].per_run;
        }
        S(R, "<h3>");
        E(R, method_name(m));
        P(R, ": Method::execute %s %s per run (mean of %u run%s)</h3>\n",
          exec ? fv(R, m->unit, whole) : DASH, du(R, m->unit), m->runs, m->runs == 1 ? "" : "s");
        if (!(whole > 0)) {
            S(R, "<p class=\"note\">No time to split (no Method::execute and no timed part).</p>");
            continue;
        }
        const double x0 = 10, bw = CHART_W - 20, bh = 38, y0 = 6;
        P(R, "<svg class=\"chart\" viewBox=\"0 0 %d 78\" width=\"%d\" height=\"78\" role=\"img\" "
             "aria-label=\"where the time goes in ",
          CHART_W, CHART_W);
        E(R, method_name(m));
        S(R, "\">");
        P(R, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#eef1f4\"/>",
          num(R, x0, 1), num(R, y0, 1), num(R, bw, 1), num(R, bh, 1));
        double x = x0;
        for (uint32_t j = 0; j < m->n_parts; j++) {
            const etp_ops_part *p = &m->parts[j];
            if (!(p->per_run > 0)) continue;
            double w = p->per_run / whole * bw;
            if (x + w > x0 + bw) w = x0 + bw - x;
            double share = p->per_run / whole * 100.0;
            char lb[300];
            part_label(p, lb, sizeof lb);
            P(R, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" stroke=\"#fff\" "
                 "stroke-width=\"1\"><title>",
              num(R, x, 2), num(R, y0, 1), num(R, w, 2), num(R, bh, 1), part_color(R, p));
            E(R, lb);
            P(R, ": %s %s per run, %s%% of Method::execute</title></rect>",
              fv(R, m->unit, p->per_run), du(R, m->unit), pct(R, share));
            /* label inside when it fits: name + time + %, else time + %, else % */
            char t1[400], t2[160], t3[40];
            snprintf(t1, sizeof t1, "%s \xC2\xB7 %s %s \xC2\xB7 %s%%", lb, fv(R, m->unit, p->per_run),
                     du(R, m->unit), pct(R, share));
            snprintf(t2, sizeof t2, "%s %s \xC2\xB7 %s%%", fv(R, m->unit, p->per_run), du(R, m->unit),
                     pct(R, share));
            snprintf(t3, sizeof t3, "%s%%", pct(R, share));
            const char *t = text_w(t1, 12) + 10 < w ? t1 : text_w(t2, 12) + 10 < w ? t2
                          : text_w(t3, 12) + 6 < w ? t3 : NULL;
            if (t) {
                P(R, "<text x=\"%s\" y=\"%s\" font-size=\"12\">", num(R, x + 5, 1), num(R, y0 + 23, 1));
                E(R, t);
                S(R, "</text>");
            }
            x += w;
        }
        for (int k = 0; k <= 4; k++) {
            double tx = x0 + bw * k / 4.0;
            P(R, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#8a95a3\"/>", num(R, tx, 1),
              num(R, tx, 1), num(R, y0 + bh, 1), num(R, y0 + bh + 5, 1));
            P(R, "<text class=\"m\" x=\"%s\" y=\"%s\" font-size=\"11\" text-anchor=\"%s\">%d%%</text>",
              num(R, tx, 1), num(R, y0 + bh + 18, 1), k == 0 ? "start" : k == 4 ? "end" : "middle",
              k * 25);
        }
        S(R, "</svg>\n");
        /* column 0: the part's colour, shown as a swatch (swatch_cell) */
        const etp_col cols[] = {
            {"colour", "", NULL, ETP_T_STR, false, 0},
            {"where", NULL, NULL, ETP_T_STR, false, 0},
            {"partitions / instructions", NULL, NULL, ETP_T_UINT, true, 0},
            {"calls", NULL, NULL, ETP_T_UINT, false, 0},
            {"per run", NULL, du(R, m->unit), ETP_T_FLOAT, true, -1},
            {"% of Method::execute", NULL, NULL, ETP_T_FLOAT, true, -1},
        };
        etp_table *t = tab_begin(R, cols, sizeof cols / sizeof cols[0]);
        for (uint32_t j = 0; j < m->n_parts; j++) {
            const etp_ops_part *p = &m->parts[j];
            char lb[300];
            etp_table_row(t);
            etp_table_str(t, part_color(R, p));
            etp_table_str(t, part_label(p, lb, sizeof lb));
            if (p->place == ETP_PLACE_FRAMEWORK) etp_table_null(t);
            else etp_table_uint(t, p->partitions);
            etp_table_uint(t, p->calls);
            tab_v(R, t, m->unit, p->per_run);
            tab_pct(t, by_sum ? p->per_run / whole * 100.0 : p->share);
        }
        char sw[96];
        tab_end(R, t, &(etp_html_opts){.wrap_class = "tw", .cell = swatch_cell, .ctx = sw});
        if (by_sum)
            S(R, "<p class=\"note\">No Method::execute event: shares are of the sum of the parts.</p>");
        P(R, "<p class=\"note\">%u delegate partition(s) (distinct DELEGATE_CALL instructions); "
             "framework overhead = Method::execute minus the DELEGATE_CALLs and OPERATOR_CALLs.",
          m->delegate_partitions);
        if (m->profiling_level == ETP_PL_METHOD_ONLY)
            S(R, " Profiling level method_only (instruction events not recorded): a "
                 "backend's part is its own top-level time (the best available delegate time, "
                 "not a DELEGATE_CALL), the framework part everything else.");
        if (qnn_of_method(R, (uint32_t)mi))
            S(R, " QNN's DELEGATE_CALL times are inflated by detailed (per-op) profiling: see "
                 "<a href=\"#qnn\">QNN</a>.");
        S(R, "</p>\n");
    }
    S(R, "</section>\n");
}

/* ---------------------------------------------------------------------------------------------
 * Latency over runs
 * ------------------------------------------------------------------------------------------- */

static void write_runs(rep *R) {
    const etp_ops_result *r = R->r;
    S(R, "<section id=\"runs\"><h2>Latency over runs</h2>\n<p class=\"note\">Method::execute of "
         "each run in file order. The first run usually pays warm-up costs (caches, power-up, "
         "lazy initialisation); the dashed line is the p50, the dotted one the p90.</p>\n");
    for (size_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        const etp_ops_row *exec = row_at(R, m->exec_row);
        S(R, "<h3>");
        E(R, method_name(m));
        P(R, ": %u run%s</h3>\n", m->runs, m->runs == 1 ? "" : "s");
        if (!exec || exec->runs == 0) {
            S(R, "<p class=\"note\">No Method::execute event: no per-run latency.</p>");
            continue;
        }
        uint32_t n = exec->runs;
        const double *s = exec->samples;
        double vmax = 0;
        for (uint32_t i = 0; i < n; i++)
            if (isfinite(s[i]) && dv(R, exec->unit, s[i]) > vmax) vmax = dv(R, exec->unit, s[i]);
        const double L = 78, Rm = 150, T = 16, B = 40, H = 270;
        const double pw = CHART_W - L - Rm, ph = H - T - B;
        double ystep = nice_step(vmax > 0 ? vmax * 1.08 : 1, 5);
        double ymax = ceil((vmax > 0 ? vmax * 1.08 : 1) / ystep) * ystep;
        int yp = step_prec(ystep);
        const char *unit = du(R, exec->unit);
        P(R, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
             "aria-label=\"latency per run of ",
          CHART_W, (int)H, CHART_W, (int)H);
        E(R, method_name(m));
        S(R, "\">");
#define XR(i) (L + (n > 1 ? (double)(i) / (double)(n - 1) * pw : pw / 2))
#define YV(v) (T + ph - (v) / ymax * ph)
        /* warm-up band */
        if (n > 1) {
            double bw = pw / (double)(n - 1) / 2;
            if (bw > 24) bw = 24;
            if (bw < 4) bw = 4;
            P(R, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#fff1e0\"/>",
              num(R, L, 1), num(R, T, 1), num(R, bw, 1), num(R, ph, 1));
        }
        /* y grid */
        for (double yv = 0; yv <= ymax + ystep / 2; yv += ystep) {
            double y = YV(yv);
            P(R, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"%s\"/>", num(R, L, 1),
              num(R, L + pw, 1), num(R, y, 1), num(R, y, 1), yv == 0 ? "#8a95a3" : "#e6e9ee");
            P(R, "<text class=\"m\" x=\"%s\" y=\"%s\" font-size=\"11\" text-anchor=\"end\">%s</text>",
              num(R, L - 6, 1), num(R, y + 4, 1), num(R, yv, yp));
        }
        P(R, "<text class=\"m\" x=\"14\" y=\"%s\" font-size=\"11\" transform=\"rotate(-90 14 %s)\" "
             "text-anchor=\"middle\">Method::execute (%s)</text>",
          num(R, T + ph / 2, 1), num(R, T + ph / 2, 1), unit);
        /* x ticks: run numbers as in the file (after --skip-first) */
        double xstep = nice_step(n > 1 ? n - 1 : 1, 8);
        if (xstep < 1) xstep = 1;
        /* ticks at the first run and at multiples of the step (run numbers as in the file) */
        for (double k = 1; k <= n;) {
            double x = XR(k - 1);
            P(R, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#8a95a3\"/>", num(R, x, 1),
              num(R, x, 1), num(R, T + ph, 1), num(R, T + ph + 4, 1));
            P(R, "<text class=\"m\" x=\"%s\" y=\"%s\" font-size=\"11\" text-anchor=\"middle\">%s</text>",
              num(R, x, 1), num(R, T + ph + 17, 1), num(R, k + m->skipped, 0));
            double next = k == 1 ? xstep : k + xstep;
            k = next > k ? next : k + 1;
        }
        P(R, "<text class=\"m\" x=\"%s\" y=\"%s\" font-size=\"11\" text-anchor=\"middle\">run</text>",
          num(R, L + pw / 2, 1), num(R, H - 6, 1));
        /* p50 and p90 */
        double p50 = dv(R, exec->unit, m->latency.p50), p90 = dv(R, exec->unit, m->latency.p90);
        if (isfinite(p50)) {
            P(R, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#2f6fd6\" "
                 "stroke-dasharray=\"6 4\"/>",
              num(R, L, 1), num(R, L + pw, 1), num(R, YV(p50), 1), num(R, YV(p50), 1));
            double ly = YV(p50) + 4;
            if (isfinite(p90) && n > 1 && fabs(YV(p90) - YV(p50)) < 14) ly = YV(p50) + 11;
            P(R, "<text x=\"%s\" y=\"%s\" font-size=\"11\" style=\"fill:#2f6fd6\">p50 %s %s</text>",
              num(R, L + pw + 6, 1), num(R, ly, 1), fv(R, exec->unit, m->latency.p50), unit);
        }
        if (isfinite(p90) && n > 1) {
            P(R, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#7b52c7\" "
                 "stroke-dasharray=\"2 3\"/>",
              num(R, L, 1), num(R, L + pw, 1), num(R, YV(p90), 1), num(R, YV(p90), 1));
            double ly = YV(p90) + 4;
            if (fabs(YV(p90) - YV(p50)) < 14) ly = YV(p90) - 3;
            P(R, "<text x=\"%s\" y=\"%s\" font-size=\"11\" style=\"fill:#7b52c7\">p90 %s %s</text>",
              num(R, L + pw + 6, 1), num(R, ly, 1), fv(R, exec->unit, m->latency.p90), unit);
        }
        /* the series */
        if (n <= RUNS_MAX_POINTS) {
            if (n > 1) {
                S(R, "<polyline fill=\"none\" stroke=\"#5b6675\" stroke-width=\"1.2\" points=\"");
                for (uint32_t i = 0; i < n; i++)
                    P(R, "%s%s,%s", i ? " " : "", num(R, XR(i), 1),
                      num(R, YV(isfinite(s[i]) ? dv(R, exec->unit, s[i]) : 0), 1));
                S(R, "\"/>");
            }
            double rad = n <= 100 ? 3.5 : n <= 400 ? 2 : 0;
            for (uint32_t i = 0; i < n && rad > 0; i++) {
                if (!isfinite(s[i])) continue;
                P(R, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\" fill=\"%s\"><title>run %u: %s %s</title>"
                     "</circle>",
                  num(R, XR(i), 1), num(R, YV(dv(R, exec->unit, s[i])), 1), num(R, rad, 1),
                  i == 0 && n > 1 ? "#e8872b" : "#2f6fd6", i + 1 + m->skipped,
                  fv(R, exec->unit, s[i]), unit);
            }
        } else {
            uint32_t k = (n + 999) / 1000, nb = (n + k - 1) / k;
            S(R, "<g stroke=\"#9dbcf0\">");
            for (uint32_t bi = 0; bi < nb; bi++) {
                double lo = INFINITY, hi = -INFINITY;
                for (uint32_t i = bi * k; i < n && i < (bi + 1) * k; i++)
                    if (isfinite(s[i])) {
                        double v = dv(R, exec->unit, s[i]);
                        if (v < lo) lo = v;
                        if (v > hi) hi = v;
                    }
                if (!isfinite(lo)) continue;
                double x = XR((double)bi * k + (k - 1) / 2.0);
                P(R, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\"/>", num(R, x, 1), num(R, x, 1),
                  num(R, YV(lo), 1), num(R, YV(hi) - 0.5, 1));
            }
            S(R, "</g>");
            if (isfinite(s[0]))
                P(R, "<circle cx=\"%s\" cy=\"%s\" r=\"3.5\" fill=\"#e8872b\"><title>run %u: %s %s"
                     "</title></circle>",
                  num(R, XR(0), 1), num(R, YV(dv(R, exec->unit, s[0])), 1), 1 + m->skipped,
                  fv(R, exec->unit, s[0]), unit);
        }
        /* warm-up annotation */
        if (n > 1 && isfinite(s[0]) && m->latency.p50 > 0) {
            double ratio = s[0] / m->latency.p50;
            double ax = XR(0) + 8, ay = YV(dv(R, exec->unit, s[0]));
            if (ay < T + 12) ay = T + 12;
            P(R, "<text x=\"%s\" y=\"%s\" font-size=\"11.5\" style=\"fill:#b35c00\">run %u: %s %s "
                 "= %s\xC3\x97 p50%s</text>",
              num(R, ax, 1), num(R, ay + 4, 1), 1 + m->skipped, fv(R, exec->unit, s[0]), unit,
              num(R, ratio, 2), ratio >= 1.2 ? " (warm-up)" : "");
        }
#undef XR
#undef YV
        S(R, "</svg>\n");
        if (n > RUNS_MAX_POINTS)
            P(R, "<p class=\"note\">%u runs: each vertical line spans the min..max of %u "
                 "consecutive runs.</p>",
              n, (n + 999) / 1000);
        if (n == 1) S(R, "<p class=\"note\">One run: no trend and no warm-up to see.</p>");
        if (m->skipped)
            P(R, "<p class=\"note\">The first %u run(s) were skipped (--skip-first).</p>", m->skipped);
    }
    S(R, "</section>\n");
}

/* ---------------------------------------------------------------------------------------------
 * Hierarchy: icicle charts (time) and the HTP node cycles strip
 * ------------------------------------------------------------------------------------------- */

typedef struct icx {
    rep *R;
    FILE *b;       /* the rects, written before the svg header that needs the height */
    const etp_ops_method *m;
    double scale;  /* px per unit */
    double rowh;
    uint32_t drawn, skipped, clamped, maxdepth;
    uint32_t kinds; /* 1 << etp_kind drawn, for the legend */
} icx;

static void ic_rect(icx *c, const etp_ops_row *row, double x, double y, double w, const char *fill,
                    const char *label) {
    rep *R = c->R;
    FILE *f = c->b;
    fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" stroke=\"#fff\" "
               "stroke-width=\"0.6\"><title>",
            num(R, x, 2), num(R, y, 1), num(R, w, 2), num(R, c->rowh - 1, 1), fill);
    esc_n(f, label, strlen(label));
    if (row) {
        double v = per_run(R, row);
        fprintf(f, "&#10;mean per run: %s %s", fv(R, row->unit, v), du(R, row->unit));
        if (row->runs) fprintf(f, "&#10;p50: %s %s", fv(R, row->unit, row->stats.p50), du(R, row->unit));
        if (isfinite(row->share))
            fprintf(f, "&#10;%s%% of %s", pct(R, row->share),
                    row->htp_node ? "Accelerator (execute) time (cycles)" : "Method::execute");
        if (row->chain >= 0 && row->instr >= 0) fprintf(f, "&#10;instruction %d", row->instr);
        if (row->placement) {
            fputs("&#10;placement: ", f);
            esc_n(f, row->placement, strlen(row->placement));
        }
        fprintf(f, "&#10;count %llu over %u run(s)", (unsigned long long)row->count, row->runs);
    }
    fputs("</title></rect>", f);
    size_t fit = fit_chars(w, 11);
    if (fit >= 3) {
        fprintf(f, "<text x=\"%s\" y=\"%s\" font-size=\"11\" pointer-events=\"none\">",
                num(R, x + 3, 2), num(R, y + c->rowh - 6, 1));
        E_trunc(f, label, fit);
        fputs("</text>", f);
    }
}

static bool ic_child_ok(const etp_ops_row *parent, const etp_ops_row *kid) {
    return !kid->htp_node && is_time(kid->unit) && kid->unit == parent->unit &&
           kid->method == parent->method;
}

static void ic_node(icx *c, size_t i, double x, double w, uint32_t depth) {
    rep *R = c->R;
    const etp_ops_row *row = etp_ops_row_get(R->r, i);
    char tmp[8], lb[700];
    const char *label = row_label(R, i, lb, sizeof lb);
    ic_rect(c, row, x, depth * c->rowh, w, row_color(R, row, tmp), label);
    c->drawn++;
    c->kinds |= 1u << row->kind;
    R->flags |= etp_disp_row_flags(row);
    R->units |= 1u << row->unit;
    if (depth > c->maxdepth) c->maxdepth = depth;
    size_t n;
    const uint32_t *kids = etp_ops_children(R->r, i, &n);
    double sum = 0, pv = per_run(R, row);
    for (size_t k = 0; k < n; k++) {
        const etp_ops_row *kid = etp_ops_row_get(R->r, kids[k]);
        if (ic_child_ok(row, kid) && per_run(R, kid) > 0) sum += per_run(R, kid);
    }
    double f = pv > 0 ? w / pv : 0; /* px per unit of this box (smaller when it was clamped) */
    if (sum > pv * (1 + 1e-9) && sum > 0) {
        f *= pv / sum;
        c->clamped++;
    }
    double cx = x;
    for (size_t k = 0; k < n; k++) {
        const etp_ops_row *kid = etp_ops_row_get(R->r, kids[k]);
        if (!ic_child_ok(row, kid)) continue;
        double v = per_run(R, kid);
        if (!(v > 0)) continue;
        double kw = v * f;
        if (kw < ICICLE_MIN_W || c->drawn >= ICICLE_MAX_RECTS) c->skipped++;
        else ic_node(c, kids[k], cx, kw, depth + 1);
        cx += kw;
    }
}

static void legend_item(rep *R, const char *color, const char *label) {
    P(R, "<span><span class=\"sw\" style=\"background:%s\"></span>", color);
    E(R, label);
    S(R, "</span>");
}

static void write_hierarchy(rep *R, bool qnn) {
    const etp_ops_result *r = R->r;
    S(R, "<section id=\"hierarchy\"><h2>Hierarchy (icicle)</h2>\n<p class=\"note\">Each box is "
         "a scope; its width is its inclusive time (mean per run), its children sit below it in "
         "execution order. Empty space under a box is its own (exclusive) time: framework "
         "overhead for Method::execute and OPERATOR_CALL, delegate-call overhead for "
         "DELEGATE_CALL. Values in other units (cycles, counts) are not time and are not drawn "
         "here");
    if (qnn) S(R, "; HTP node cycles have their own chart in the <a href=\"#qnn\">QNN</a> section");
    S(R, ". Hover a box for its numbers.</p>\n");
    for (size_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        S(R, "<h3>");
        E(R, method_name(m));
        S(R, "</h3>\n");
        /* roots: Method::execute, else the method's top-level time rows side by side */
        size_t nroots;
        const uint32_t *roots = etp_ops_children(r, SIZE_MAX, &nroots);
        double total = 0;
        for (size_t k = 0; k < nroots; k++) {
            const etp_ops_row *row = etp_ops_row_get(r, roots[k]);
            if (row->method == mi && is_time(row->unit) && !row->htp_node && per_run(R, row) > 0 &&
                (m->exec_row < 0 || (int32_t)roots[k] == m->exec_row))
                total += per_run(R, row);
        }
        if (!(total > 0)) {
            S(R, "<p class=\"note\">No timed scope to draw.</p>");
            continue;
        }
        icx c = {.R = R, .m = m, .rowh = 22};
        char *buf = NULL;
        size_t blen = 0;
        c.b = open_memstream(&buf, &blen);
        if (!c.b) return;
        const double x0 = 4, w = CHART_W - 8;
        c.scale = w / total;
        double x = x0;
        for (size_t k = 0; k < nroots; k++) {
            const etp_ops_row *row = etp_ops_row_get(r, roots[k]);
            if (!(row->method == mi && is_time(row->unit) && !row->htp_node && per_run(R, row) > 0 &&
                  (m->exec_row < 0 || (int32_t)roots[k] == m->exec_row)))
                continue;
            double rw = per_run(R, row) * c.scale;
            ic_node(&c, roots[k], x, rw, 0);
            x += rw;
        }
        fclose(c.b);
        double h = (c.maxdepth + 1) * c.rowh + 22;
        P(R, "<svg class=\"chart\" viewBox=\"0 0 %d %s\" width=\"%d\" height=\"%s\" role=\"img\" "
             "aria-label=\"hierarchy of ",
          CHART_W, num(R, h, 0), CHART_W, num(R, h, 0));
        E(R, method_name(m));
        S(R, "\">");
        if (buf) fwrite(buf, 1, blen, R->f);
        free(buf);
        /* scale */
        double ay = (c.maxdepth + 1) * c.rowh + 2;
        double st = nice_step(dv(R, m->unit, total), 6);
        int sp = step_prec(st);
        for (double v = 0; v <= dv(R, m->unit, total) * (1 + 1e-9); v += st) {
            double tx = x0 + v / dv(R, m->unit, total) * w;
            P(R, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#8a95a3\"/>", num(R, tx, 1),
              num(R, tx, 1), num(R, ay, 1), num(R, ay + 4, 1));
            P(R, "<text class=\"m\" x=\"%s\" y=\"%s\" font-size=\"10.5\" text-anchor=\"%s\">%s %s"
                 "</text>",
              num(R, tx, 1), num(R, ay + 16, 1), v == 0 ? "start" : "middle", num(R, v, sp),
              du(R, m->unit));
        }
        S(R, "</svg>\n<div class=\"legend\">");
        if (c.kinds & (1u << ETP_KIND_FRAMEWORK)) legend_item(R, COL_FRAMEWORK, "framework");
        if (c.kinds & (1u << ETP_KIND_OPERATOR_CALL)) legend_item(R, COL_OPCALL, "OPERATOR_CALL");
        if (c.kinds & (1u << ETP_KIND_KERNEL)) legend_item(R, COL_CPU, "CPU kernel");
        for (uint32_t j = 0; j < m->n_parts; j++)
            if (m->parts[j].place == ETP_PLACE_DELEGATE) {
                char lb[300];
                snprintf(lb, sizeof lb, "%s (DELEGATE_CALL; lighter: events it logged)",
                         m->parts[j].placement);
                legend_item(R, backend_color(R, m->parts[j].placement), lb);
            }
        S(R, "</div>");
        if (c.skipped)
            P(R, "<p class=\"note\">%u scope(s) narrower than %s px%s are not drawn: their time "
                 "stays inside their parent's box.</p>",
              c.skipped, num(R, ICICLE_MIN_W, 1),
              c.drawn >= ICICLE_MAX_RECTS ? " (or beyond the cap of 4000 boxes)" : "");
        if (c.clamped)
            P(R, "<p class=\"note\">%u scope(s) had children longer than themselves (overlapping "
                 "or mis-nested events): their children were scaled to fit.</p>",
              c.clamped);
    }
    S(R, "</section>\n");
}

/* ---------------------------------------------------------------------------------------------
 * Top operators
 * ------------------------------------------------------------------------------------------- */

/* Rows by total, largest first (ctx: the ops result). */
static int cmp_total_desc(const void *a, const void *b, void *ctx) {
    const etp_ops_result *r = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    double tx = etp_ops_row_get(r, x)->stats.total, ty = etp_ops_row_get(r, y)->stats.total;
    if (isnan(tx)) tx = -INFINITY;
    if (isnan(ty)) ty = -INFINITY;
    if (tx > ty) return -1;
    if (tx < ty) return 1;
    return x < y ? -1 : x > y;
}

static bool has_time_children(const etp_ops_result *r, size_t i) {
    size_t n;
    const uint32_t *kids = etp_ops_children(r, i, &n);
    const etp_ops_row *row = etp_ops_row_get(r, i);
    for (size_t k = 0; k < n; k++)
        if (ic_child_ok(row, etp_ops_row_get(r, kids[k]))) return true;
    return false;
}

/* The share column of a ranked table: a bar (width by the largest share shown, the colour of the
 * row's placement) before the number. */
typedef struct bar_ctx {
    rep *R;
    const uint32_t *idx;
    size_t col;
    double maxshare;
    char buf[128];
} bar_ctx;

static void bar_cell(void *ctx, const etp_table *t, size_t k, size_t col, etp_html_cell *c) {
    bar_ctx *b = ctx;
    (void)t;
    if (col != b->col || !(b->maxshare > 0)) return;
    const etp_ops_row *row = etp_ops_row_get(b->R->r, b->idx[k]);
    if (!isfinite(row->share)) return;
    snprintf(b->buf, sizeof b->buf, "<span class=\"bar\" style=\"width:%spx;background:%s\"></span>",
             num(b->R, row->share / b->maxshare * 60, 1),
             row->place == ETP_PLACE_CPU ? COL_CPU : backend_color(b->R, row->placement));
    c->html = b->buf;
}

/* One ranked table of rows idx[0..n) (already sorted). */
static void ops_table(rep *R, const uint32_t *idx, size_t n, const char *id, bool kind_col) {
    const etp_ops_result *r = R->r;
    size_t nm = etp_ops_method_count(r);
    size_t shown = n < R->top_ops ? n : R->top_ops;
    const char *u = du(R, etp_ops_row_get(r, idx[0])->unit);
    etp_col cols[14];
    const char *cls[14] = {NULL};
    size_t nc = 0;
    cols[nc++] = (etp_col){"#", NULL, NULL, ETP_T_UINT, false, 0};
    if (nm > 1) {
        cls[nc] = "name";
        cols[nc++] = (etp_col){"method", NULL, NULL, ETP_T_STR, false, 0};
    }
    cls[nc] = "name";
    cols[nc++] = (etp_col){"operator / event", NULL, NULL, ETP_T_STR, false, 0};
    cols[nc++] = (etp_col){"instr", NULL, NULL, ETP_T_INT, true, 0};
    if (kind_col) cols[nc++] = (etp_col){"kind", NULL, NULL, ETP_T_STR, false, 0};
    cols[nc++] = (etp_col){"placement", NULL, NULL, ETP_T_STR, true, 0};
    cols[nc++] = (etp_col){"count", NULL, NULL, ETP_T_UINT, false, 0};
    cols[nc++] = (etp_col){"runs", NULL, NULL, ETP_T_UINT, false, 0};
    cols[nc++] = (etp_col){"p50", NULL, u, ETP_T_FLOAT, true, -1};
    cols[nc++] = (etp_col){"p90", NULL, u, ETP_T_FLOAT, true, -1};
    cols[nc++] = (etp_col){"total", NULL, u, ETP_T_FLOAT, true, -1};
    cols[nc++] = (etp_col){"% of Method::execute", NULL, NULL, ETP_T_FLOAT, true, -1};
    bar_ctx bc = {.R = R, .idx = idx, .col = nc - 1};
    if (R->etr) {
        cls[nc] = "name";
        cols[nc++] = (etp_col){"module", NULL, NULL, ETP_T_STR, true, 0};
        cls[nc] = "name";
        cols[nc++] = (etp_col){"source", NULL, NULL, ETP_T_STR, true, 0};
    }
    for (size_t k = 0; k < shown; k++) {
        double sh = etp_ops_row_get(r, idx[k])->share;
        if (isfinite(sh) && sh > bc.maxshare) bc.maxshare = sh;
    }
    etp_table *t = tab_begin(R, cols, nc);
    for (size_t k = 0; k < shown; k++) {
        const etp_ops_row *row = etp_ops_row_get(r, idx[k]);
        char lb[700];
        etp_table_row(t);
        etp_table_uint(t, k + 1);
        if (nm > 1) etp_table_str(t, method_name(etp_ops_method_get(r, row->method)));
        etp_table_str(t, row_label(R, idx[k], lb, sizeof lb));
        if (row->chain >= 0 && row->instr >= 0) etp_table_int(t, row->instr);
        else etp_table_null(t);
        if (kind_col) etp_table_str(t, etp_ops_row_kind_name(row));
        etp_table_str(t, row_place(R, idx[k]));
        etp_table_uint(t, row->count);
        etp_table_uint(t, row->runs);
        tab_v(R, t, row->unit, row->stats.p50);
        tab_v(R, t, row->unit, row->stats.p90);
        tab_v(R, t, row->unit, row->stats.total);
        tab_f(t, row->share, fabs(row->share) < 0.01 && row->share != 0 ? 4 : 2);
        if (R->etr) {
            etp_etr_join j;
            bool ok = etp_etrecord_join_row(R->etr, etp_ops_method_get(r, row->method)->name, row,
                                            &j) == ETP_OK && j.n_nodes;
            etp_table_str(t, ok ? j.module : NULL);
            etp_table_str(t, ok ? j.frame : NULL);
            etp_etrecord_join_free(&j);
        }
        R->flags |= etp_disp_row_flags(row);
    }
    tab_end(R, t, &(etp_html_opts){.id = id, .table_class = "sortable",
                                   .wrap_class = shown > 30 ? "tw scroll" : "tw", .col_class = cls,
                                   .cell = bar_cell, .ctx = &bc});
    if (shown < n)
        P(R, "<p class=\"note\">Showing the top %zu of %zu rows; <code>etprof ops FILE --pte P</code> "
             "lists every row.</p>",
          shown, n);
}

/* Time per nn.Module (etp_modules_compute): the tree as an indented table per domain. */
static void write_modules(rep *R) {
    etp_modules *m = NULL;
    etp_error err = {0};
    S(R, "<section id=\"modules\"><h2>Time per nn.Module</h2>\n");
    if (etp_modules_compute(R->r, R->etr, NULL, &m, &err)) {
        S(R, "<p class=\"note\">Not available: ");
        E(R, err.msg);
        S(R, "</p>\n</section>\n");
        return;
    }
    const etp_modules_joins *jc = etp_modules_join_counts(m);
    etp_etr_counts st = {jc->rows, jc->matched, jc->htp_rows, jc->htp_matched};
    char wb[700];
    if (etp_etrecord_mismatch_note(R->etr, &st, wb, sizeof wb) > 0) {
        S(R, "<p class=\"warn\">");
        E(R, wb);
        S(R, "</p>\n");
    }
    S(R, "<p class=\"note\">From the ETRecord ");
    E(R, etp_etrecord_path(R->etr));
    P(R, ": %llu of %llu instruction rows joined to its edge-program nodes",
      (unsigned long long)jc->matched, (unsigned long long)jc->rows);
    if (jc->htp_rows)
        P(R, "; %llu of %llu QNN HTP nodes matched by name", (unsigned long long)jc->htp_matched,
          (unsigned long long)jc->htp_rows);
    S(R, ". Each row adds its exclusive value (a DELEGATE_CALL is never counted with the events "
         "inside it); host time and HTP cycles (work share) are separate tables; rows no module "
         "claims are \"(no module)\". <code>etprof modules</code> gives the same in every "
         "format.</p>\n");
    for (size_t di = 0; di < etp_modules_domain_count(m); di++) {
        const etp_modules_domain *dm = etp_modules_domain_get(m, di);
        const etp_ops_method *meth = etp_ops_method_get(R->r, dm->method);
        const char *u = du(R, dm->unit);
        S(R, "<h3>");
        E(R, meth->name ? meth->name : ETP_METHOD_UNKNOWN_LABEL);
        P(R, ": %s</h3>\n", dm->domain == ETP_MOD_HTP ? "HTP cycles (work share)" : "host time");
        etp_col cols[] = {
            {"module", NULL, NULL, ETP_T_STR, false, 0},
            {"class", NULL, NULL, ETP_T_STR, true, 0},
            {"inclusive", NULL, u, ETP_T_FLOAT, false, -1},
            {"exclusive", NULL, u, ETP_T_FLOAT, false, -1},
            {"% of total", NULL, NULL, ETP_T_FLOAT, true, -1},
            {"count", NULL, NULL, ETP_T_UINT, false, 0},
        };
        const char *cls[6] = {"name", "name"};
        etp_table *t = tab_begin(R, cols, 6);
        for (size_t i = 0; i < etp_modules_row_count(m); i++) {
            const etp_module_row *mr = etp_modules_row_get(m, i);
            if (mr->domain != di) continue;
            char lb[600];
            unsigned dep = mr->depth > 32 ? 32 : mr->depth;
            size_t k = 0;
            for (unsigned q = 0; q < dep * 2; q++, k += 2) memcpy(lb + k, "\xc2\xa0", 2);
            snprintf(lb + k, sizeof lb - k, "%s",
                     mr->no_module ? "(no module)" : mr->path[0] ? mr->path : "(root)");
            etp_table_row(t);
            etp_table_str(t, lb);
            etp_table_str(t, mr->cls);
            tab_v(R, t, mr->unit, mr->inclusive);
            tab_v(R, t, mr->unit, mr->exclusive);
            tab_f(t, mr->share, 2);
            etp_table_uint(t, mr->count);
        }
        tab_end(R, t, &(etp_html_opts){.wrap_class = "tw", .col_class = cls});
    }
    S(R, "</section>\n");
    etp_modules_free(m);
}

static void write_top_ops(rep *R, uint32_t *idx) {
    const etp_ops_result *r = R->r;
    size_t nrows = etp_ops_row_count(r), ni = 0;
    uint32_t *inner = malloc((nrows ? nrows : 1) * sizeof *inner);
    if (!inner) return;
    /* the top operators: one definition for every view (etp_ops_top) */
    size_t n = etp_ops_top(r, -1, 0, idx);
    for (size_t i = 0; i < nrows; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        if (!is_time(row->unit) || row->htp_node || isnan(row->stats.total)) continue;
        if (row->kind == ETP_KIND_DELEGATE_INTERNAL && row->qnn == ETP_QNN_NONE &&
            !has_time_children(r, i))
            inner[ni++] = (uint32_t)i;
    }
    etp__sort(inner, ni, sizeof *inner, cmp_total_desc, (void *)r);
    S(R, "<section id=\"top-ops\"><h2>Top operators</h2>\n");
    if (n == 0) {
        S(R, "<p class=\"note\">No operator events: the file holds no OPERATOR_CALL, kernel or "
             "DELEGATE_CALL events (method-only profiling?).</p>\n");
    } else {
        S(R, "<p class=\"note\">CPU kernels and delegate partitions (one DELEGATE_CALL per "
             "partition) by total time over the runs; these do not overlap, so their shares add up "
             "to at most 100% of Method::execute. A CPU operator's time here is its kernel's "
             "(native_call_*); the CPU fallback section counts its whole OPERATOR_CALL (the kernel "
             "and its dispatch). Click a column to sort.</p>\n");
        ops_table(R, idx, n, "top-ops-table", true);
    }
    if (ni) {
        S(R, "<h3>Inside the delegates: the innermost timed events backends logged</h3>\n"
             "<p class=\"note\">Part of their DELEGATE_CALL above (do not add the two tables up). "
             "Host time, as the backend logged it.</p>\n");
        ops_table(R, inner, ni, "delegate-events-table", false);
    }
    free(inner);
    S(R, "</section>\n");
    if (R->etr) write_modules(R);
}

/* ---------------------------------------------------------------------------------------------
 * Operators by type: one sorted horizontal bar chart per (method, domain, placement, unit)
 * group of etp_optype_compute (the grouping of `ops --by type` and `summary`)
 * ------------------------------------------------------------------------------------------- */

static void type_chart(rep *R, size_t i, size_t e) {
    const etp_optype_row *g0 = etp_optype_get(R->types, i);
    const etp_ops_method *m = etp_ops_method_get(R->r, g0->method);
    const char *what = g0->domain == ETP_OTD_CPU   ? "CPU kernels by operator"
                       : g0->domain == ETP_OTD_HTP ? "HTP nodes by ATen op"
                                                   : "backend operators by name";
    size_t ntypes = e - i, nbars = ntypes > TYPE_BARS ? TYPE_BARS : ntypes;
    double rest = 0;
    uint64_t rest_count = 0;
    for (size_t k = i + nbars; k < e; k++) {
        rest += etp_optype_get(R->types, k)->per_run;
        rest_count += etp_optype_get(R->types, k)->count;
    }
    bool has_rest = nbars < ntypes;
    double maxv = etp_optype_get(R->types, i)->per_run;
    if (has_rest && rest > maxv) maxv = rest;
    if (!(maxv > 0)) return;
    R->units |= 1u << g0->unit;
    S(R, "<h3>");
    E(R, method_name(m));
    S(R, ": ");
    E(R, what);
    S(R, " (");
    E(R, g0->placement);
    P(R, ", %s per run)</h3>\n", du(R, g0->unit));
    const double lw = 300, vx = lw + 8, bw = CHART_W - vx - 190, rowh = 20;
    size_t rows = nbars + (has_rest ? 1 : 0);
    double h = (double)rows * rowh + 6;
    P(R, "<svg class=\"chart\" viewBox=\"0 0 %d %s\" width=\"%d\" height=\"%s\" role=\"img\" "
         "aria-label=\"operators by type\">",
      CHART_W, num(R, h, 0), CHART_W, num(R, h, 0));
    for (size_t k = 0; k < rows; k++) {
        const etp_optype_row *g = k < nbars ? etp_optype_get(R->types, i + k) : NULL;
        double v = g ? g->per_run : rest;
        double share = g ? g->share : 100.0 - etp_optype_get(R->types, i + nbars - 1)->cum_share;
        char lab[400];
        if (g) snprintf(lab, sizeof lab, "%s", g->type);
        else snprintf(lab, sizeof lab, "(%zu other types)", ntypes - nbars);
        double y = (double)k * rowh + 3;
        P(R, "<text x=\"%s\" y=\"%s\" font-size=\"12\" text-anchor=\"end\">", num(R, lw, 1),
          num(R, y + 14, 1));
        E_trunc(R->f, lab, fit_chars(lw, 12));
        S(R, "</text>");
        double w = v / maxv * bw;
        P(R, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\"><title>", num(R, vx, 1),
          num(R, y + 2, 1), num(R, w > 0.5 ? w : 0.5, 1), num(R, rowh - 4, 1),
          g ? (g0->domain == ETP_OTD_CPU ? COL_CPU : COL_NODE_A) : COL_OTHER);
        E(R, lab);
        P(R, ": %s %s per run, count %" PRIu64 ", %s%% of the group</title></rect>",
          fv(R, g0->unit, v), du(R, g0->unit), g ? g->count : rest_count, pct(R, share));
        P(R, "<text class=\"m\" x=\"%s\" y=\"%s\" font-size=\"11\">%s %s &middot; %s%%</text>",
          num(R, vx + w + 6, 1), num(R, y + 14, 1), fv(R, g0->unit, v), du(R, g0->unit),
          pct(R, share));
    }
    S(R, "</svg>\n");
    P(R, "<p class=\"note\">%zu type(s), sorted by %s per run (total over the runs / %u runs); "
         "%% = share of this chart's total%s.</p>\n",
      ntypes, du(R, g0->unit), m->runs,
      has_rest ? "; every type: <code>etprof ops --by type</code>" : "");
}

static void write_op_types(rep *R) {
    S(R, "<section id=\"op-types\"><h2>Operators by type</h2>\n<p class=\"note\">Operators "
         "grouped by type, as <code>etprof ops --by type</code>: CPU kernels by operator, QNN "
         "HTP nodes by their ATen op (<code>aten_convolution_default_28_h_7:OpId_1954</code> "
         "&rarr; convolution), other backend operators by name without <code>#k</code>. One "
         "chart per method, domain, backend and unit: units never share an axis (HTP cycles "
         "are thread-aggregate work, apart from host time).</p>\n");
    size_t n = R->types ? etp_optype_count(R->types) : 0;
    if (n == 0) S(R, "<p class=\"note\">No operator rows with a time or cycle count.</p>\n");
    for (size_t i = 0; i < n;) {
        const etp_optype_row *g0 = etp_optype_get(R->types, i);
        size_t e = i;
        while (e < n) {
            const etp_optype_row *g = etp_optype_get(R->types, e);
            if (g->method != g0->method || g->domain != g0->domain || g->unit != g0->unit ||
                strcmp(g->placement, g0->placement) != 0)
                break;
            e++;
        }
        type_chart(R, i, e);
        i = e;
    }
    S(R, "</section>\n");
}

/* ---------------------------------------------------------------------------------------------
 * CPU fallback
 * ------------------------------------------------------------------------------------------- */

static void write_cpu(rep *R) {
    const etp_ops_result *r = R->r;
    size_t nrows = etp_ops_row_count(r);
    S(R, "<section id=\"cpu-fallback\"><h2>CPU fallback</h2>\n<p class=\"note\">Kernel "
         "instructions run by the ExecuTorch interpreter on the CPU (not inside a delegate), "
         "grouped by operator; time per run and % of Method::execute.</p>\n");
    for (size_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        S(R, "<h3>");
        E(R, method_name(m));
        S(R, "</h3>");
        if (m->n_cpu_ops == 0) {
            if (m->delegate_partitions)
                P(R, "<p class=\"ok\">No CPU fallback: every operator ran inside a delegate (%u "
                     "partition%s).</p>",
                  m->delegate_partitions, m->delegate_partitions == 1 ? "" : "s");
            else if (m->unwrapped_rows)
                P(R, "<p class=\"note\">%u row(s) with an instruction id were recorded without "
                     "OPERATOR_CALL or DELEGATE_CALL: where they ran (CPU or a backend) is "
                     "unknown.</p>",
                  m->unwrapped_rows);
            else
                S(R, "<p class=\"note\">No OPERATOR_CALL or DELEGATE_CALL events: nothing to "
                     "attribute (method-only profiling?).</p>");
            continue;
        }
        P(R, "<p><b>%u</b> CPU kernel instruction(s) of <b>%u</b> operator type(s).</p>",
          kernel_instructions(m), m->n_cpu_ops);
        const etp_col cols[] = {
            {"operator", NULL, NULL, ETP_T_STR, false, 0},
            {"instructions", NULL, NULL, ETP_T_UINT, false, 0},
            {"calls", NULL, NULL, ETP_T_UINT, false, 0},
            {"per run", NULL, du(R, m->unit), ETP_T_FLOAT, true, -1},
            {"% of Method::execute", NULL, NULL, ETP_T_FLOAT, true, -1},
            {"instruction ids", NULL, NULL, ETP_T_STR, true, 0},
        };
        static const char *const cls[] = {"name", NULL, NULL, NULL, NULL, "note"};
        etp_table *t = tab_begin(R, cols, sizeof cols / sizeof cols[0]);
        for (uint32_t j = 0; j < m->n_cpu_ops; j++) {
            const etp_ops_cpu_op *op = &m->cpu_ops[j];
            etp_table_row(t);
            etp_table_str(t, op->op);
            etp_table_uint(t, op->instructions);
            etp_table_uint(t, op->calls);
            tab_v(R, t, m->unit, op->per_run);
            tab_pct(t, op->share);
            /* the instruction ids of this operator's OPERATOR_CALL rows (24 at most) */
            char ids[24 * 13 + 32];
            size_t at = 0;
            uint32_t listed = 0, more = 0;
            int32_t last = -2;
            for (size_t i = 0; i < nrows; i++) {
                const etp_ops_row *row = etp_ops_row_get(r, i);
                if (row->method != mi || row->kind != ETP_KIND_OPERATOR_CALL || !row->op ||
                    strcmp(row->op, op->op) != 0 || row->instr == last)
                    continue;
                last = row->instr;
                if (listed < 24)
                    at += (size_t)snprintf(ids + at, sizeof ids - at, "%s%d", listed ? ", " : "", row->instr);
                else more++;
                listed++;
            }
            if (more) snprintf(ids + at, sizeof ids - at, " \xE2\x80\xA6 (+%u)", more);
            etp_table_str(t, listed ? ids : NULL);
        }
        char id[48];
        snprintf(id, sizeof id, "cpu-table-%zu", mi);
        tab_end(R, t, &(etp_html_opts){.id = id, .table_class = "sortable",
                                       .wrap_class = m->n_cpu_ops > 30 ? "tw scroll" : "tw",
                                       .col_class = cls});
    }
    S(R, "</section>\n");
}

/* ---------------------------------------------------------------------------------------------
 * QNN (from the ETDump)
 * ------------------------------------------------------------------------------------------- */

static const char *qt_meaning(int t) {
    switch (t) {
    case ETP_QT_QNN_EXECUTE:
        return "host: QnnGraph_execute as QNN measured it (includes RPC); inflated by detailed "
               "profiling";
    case ETP_QT_RPC: return "FastRPC round trip to the DSP (includes the DSP side)";
    case ETP_QT_QNN_ACCEL: return "DSP side of QNN (includes the accelerator)";
    case ETP_QT_ACCEL_US: return "the HTP graph including waits (VTCM acquire, power-up)";
    case ETP_QT_EXCL_WAIT: return "NPU compute wall time: the usable NPU number";
    case ETP_QT_VTCM:
    case ETP_QT_POWER:
        return "19.2 MHz QTimer ticks despite the \"(us)\" label: converted (ticks / 19.2)";
    case ETP_QT_ACCEL_CYCLES:
        return "busy cycles summed over the HTP hardware threads: work, not wall time; the sum "
               "of the HTP node cycles";
    case ETP_QT_HVX_THREADS: return "count";
    case ETP_QT_YIELDS: return "count";
    default: return "";
    }
}

/* The join's derived row of an ops row (HTP node), or NULL. */
static const etp_qnn_op_row *drow_of(const rep *R, size_t ops_row) {
    if (!R->row_drow || !R->der) return NULL;
    int32_t d = R->row_drow[ops_row];
    return d >= 0 ? &R->der->rows[d] : NULL;
}

static const char *drow_color(const etp_qnn_op_row *d) {
    if (d->hmx) return COL_HMX;
    if (d->hvx) return COL_HVX;
    if (d->dma) return COL_DMA;
    return COL_NODE_SYS;
}

static void write_node_strip(rep *R, const etp_ops_qnn *q) {
    const etp_ops_result *r = R->r;
    if (q->node_rows > STRIP_MAX_NODES) {
        /* one sliver per node is unreadable: the nodes grouped by ATen op instead */
        P(R, "<p class=\"note\">%u HTP nodes are too many to draw one by one: see their "
             "cycles grouped by ATen op under <a href=\"#op-types\">Operators by type</a> "
             "(the node strip is drawn up to %d nodes).</p>\n",
          q->node_rows, STRIP_MAX_NODES);
        return;
    }
    int32_t pi = q->top[ETP_QT_ACCEL_CYCLES] >= 0 ? q->top[ETP_QT_ACCEL_CYCLES] : (int32_t)q->delegate_row;
    const etp_ops_row *parent = etp_ops_row_get(r, (size_t)pi);
    size_t n;
    const uint32_t *kids = etp_ops_children(r, (size_t)pi, &n);
    double sum = 0;
    uint32_t nn = 0, nzero = 0;
    for (size_t k = 0; k < n; k++) {
        const etp_ops_row *kid = etp_ops_row_get(r, kids[k]);
        if (kid->htp_node && per_run(R, kid) > 0) {
            sum += per_run(R, kid);
            nn++;
        } else if (kid->htp_node) {
            nzero++;
        }
    }
    if (nn == 0) return;
    bool is_cycles_parent = q->top[ETP_QT_ACCEL_CYCLES] >= 0;
    double whole = is_cycles_parent && per_run(R, parent) > sum ? per_run(R, parent) : sum;
    const double x0 = 4, w = CHART_W - 8;
    icx c = {.R = R, .rowh = 24};
    c.b = R->f;
    double scale = w / whole;
    double h = 2 * c.rowh + 22;
    S(R, "<h3>HTP node cycles (thread-aggregate work, not time)</h3>\n");
    P(R, "<svg class=\"chart\" viewBox=\"0 0 %d %s\" width=\"%d\" height=\"%s\" role=\"img\" "
         "aria-label=\"HTP node cycles\">",
      CHART_W, num(R, h, 0), CHART_W, num(R, h, 0));
    char lb[300];
    snprintf(lb, sizeof lb, "%s: %s cycles per run (mean)",
             is_cycles_parent ? "Accelerator (execute) time (cycles)" : "HTP nodes (no cycles parent)",
             fv(R, ETP_UNIT_CYCLES, whole));
    ic_rect(&c, is_cycles_parent ? parent : NULL, x0, 0, w, "#c7d3e3", lb);
    double x = x0;
    uint32_t drawn = 0, skipped = 0, alt = 0;
    bool deep = false;
    for (size_t k = 0; k < n; k++) {
        const etp_ops_row *kid = etp_ops_row_get(r, kids[k]);
        if (!kid->htp_node || !(per_run(R, kid) > 0)) continue;
        double kw = per_run(R, kid) * scale;
        if (kw < 0.3 || drawn >= ICICLE_MAX_RECTS) {
            skipped++;
            x += kw;
            continue;
        }
        const etp_qnn_op_row *d = drow_of(R, kids[k]);
        const char *fill;
        if (d) {
            fill = drow_color(d);
            deep = true;
        } else if (kid->qnn == ETP_QNN_NODE_IO) fill = COL_NODE_IO;
        else if (kid->qnn == ETP_QNN_NODE_SYS) fill = COL_NODE_SYS;
        else fill = (alt++ & 1) ? COL_NODE_B : COL_NODE_A;
        char nl[700];
        ic_rect(&c, kid, x, c.rowh, kw, fill, row_label(R, kids[k], nl, sizeof nl));
        drawn++;
        x += kw;
    }
    double ay = 2 * c.rowh + 2;
    double st = nice_step(whole, 6);
    for (double v = 0; v <= whole * (1 + 1e-9); v += st) {
        double tx = x0 + v / whole * w;
        P(R, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#8a95a3\"/>", num(R, tx, 1),
          num(R, tx, 1), num(R, ay, 1), num(R, ay + 4, 1));
        P(R, "<text class=\"m\" x=\"%s\" y=\"%s\" font-size=\"10.5\" text-anchor=\"%s\">%s cycles"
             "</text>",
          num(R, tx, 1), num(R, ay + 16, 1), v == 0 ? "start" : "middle", num(R, v, step_prec(st)));
    }
    S(R, "</svg>\n<div class=\"legend\">");
    if (deep) {
        legend_item(R, COL_HMX, "uses HMX");
        legend_item(R, COL_HVX, "HVX (no HMX)");
        legend_item(R, COL_DMA, "DMA only");
        legend_item(R, COL_NODE_SYS, "none of these");
        legend_item(R, COL_NODE_A, "not in the QNN files");
    } else {
        legend_item(R, COL_NODE_A, "QNN op node (alternating shades)");
        legend_item(R, COL_NODE_IO, "Input / Output node");
        legend_item(R, COL_NODE_SYS, "system op (OpId only)");
    }
    S(R, "</div>");
    P(R, "<p class=\"note\">%u HTP node(s) with cycles in execution order, each sized by its mean "
         "cycles per run",
      nn);
    if (nzero) P(R, " (%u more node(s) report 0 cycles)", nzero);
    P(R, ".%s Node cycles add up to Accelerator (execute) time (cycles), not to a time.</p>\n",
      skipped ? " Nodes narrower than 0.3 px are not drawn individually." : "");
}

static void flag_cell(void *ctx, const etp_table *t, size_t row, size_t col, etp_html_cell *c) {
    (void)ctx;
    flag_class(t, row, col, c);
}

static void write_node_table(rep *R, const etp_ops_qnn *q, uint32_t *idx) {
    const etp_ops_result *r = R->r;
    size_t nrows = etp_ops_row_count(r), n = 0;
    for (size_t i = 0; i < nrows; i++) {
        const etp_ops_row *row = etp_ops_row_get(r, i);
        if (row->htp_node && row->method == q->method && row->instr == etp_ops_row_get(r, q->delegate_row)->instr &&
            row->chain == etp_ops_row_get(r, q->delegate_row)->chain)
            idx[n++] = (uint32_t)i;
    }
    if (!n) return;
    etp__sort(idx, n, sizeof *idx, cmp_total_desc, (void *)r);
    size_t shown = n < R->top_nodes ? n : R->top_nodes;
    const etp_ops_row *excl = row_at(R, q->top[ETP_QT_EXCL_WAIT]);
    bool joined = R->row_drow != NULL && R->join->matched > 0 && R->join->qnn >= 0 &&
                  etp_ops_qnn_get(r, (size_t)R->join->qnn) == q;
    P(R, "<h3>HTP nodes by cycles (%s%zu of %zu)</h3>\n", shown < n ? "top " : "all ", shown, n);
    etp_col cols[10];
    size_t nc = 0;
    cols[nc++] = (etp_col){"#", NULL, NULL, ETP_T_UINT, false, 0};
    cols[nc++] = (etp_col){"HTP node", NULL, NULL, ETP_T_STR, true, 0};
    cols[nc++] = (etp_col){"runs", NULL, NULL, ETP_T_UINT, false, 0};
    cols[nc++] = (etp_col){"p50", NULL, "cycles", ETP_T_FLOAT, true, -1};
    cols[nc++] = (etp_col){"mean", NULL, "cycles", ETP_T_FLOAT, true, -1};
    cols[nc++] = (etp_col){"% of accel. cycles", NULL, NULL, ETP_T_FLOAT, true, 2};
    if (excl) cols[nc++] = (etp_col){"est. wall", NULL, du(R, excl->unit), ETP_T_FLOAT, true, -1};
    if (joined) {
        cols[nc++] = (etp_col){"HMX", NULL, NULL, ETP_T_BOOL, true, 0};
        cols[nc++] = (etp_col){"HVX", NULL, NULL, ETP_T_BOOL, true, 0};
        cols[nc++] = (etp_col){"DMA", NULL, NULL, ETP_T_BOOL, true, 0};
    }
    static const char *const cls[] = {NULL, "name", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    etp_table *t = tab_begin(R, cols, nc);
    for (size_t k = 0; k < shown; k++) {
        const etp_ops_row *row = etp_ops_row_get(r, idx[k]);
        etp_table_row(t);
        etp_table_uint(t, k + 1);
        etp_table_str(t, row->name);
        etp_table_uint(t, row->runs);
        tab_v(R, t, ETP_UNIT_CYCLES, row->stats.p50);
        tab_v(R, t, ETP_UNIT_CYCLES, per_run(R, row));
        tab_f(t, row->share, 2);
        /* the one estimate every view shows: the node's p50 cycles x the partition's ns per cycle */
        if (excl) tab_v(R, t, ETP_UNIT_NS, row->stats.p50 * etp_qnn_wall_ns_per_cycle(r, idx[k]));
        if (joined) {
            const etp_qnn_op_row *d = drow_of(R, idx[k]);
            for (int u = 0; u < 3; u++) {
                if (d) etp_table_bool(t, u == 0 ? d->hmx : u == 1 ? d->hvx : d->dma);
                else etp_table_null(t); /* not in the QNN files */
            }
        }
    }
    tab_end(R, t, &(etp_html_opts){.id = "htp-nodes", .table_class = "sortable",
                                   .wrap_class = shown > 30 ? "tw scroll" : "tw", .col_class = cls,
                                   .cell = flag_cell});
    if (shown < n)
        P(R, "<p class=\"note\">%zu more HTP node(s) not shown (<code>etprof ops FILE --kind "
             "htp_node</code> lists them all).</p>",
          n - shown);
    if (excl)
        P(R, "<p class=\"note\">est. wall = the node's p50 cycles \xC3\x97 the partition's "
             "Accelerator (execute excluding wait) time per accelerator cycle (totals over the "
             "runs): an ESTIMATE of the node's part of the NPU wall time, not a measurement.</p>\n");
}

static void write_qnn(rep *R, uint32_t *idx) {
    const etp_ops_result *r = R->r;
    size_t nq = etp_ops_qnn_count(r);
    S(R, "<section id=\"qnn\"><h2>QNN: units, nesting and caveats</h2>\n");
    S(R, "<ul class=\"caveats\">"
         "<li><b>HTP node cycles are thread-aggregate</b>: a node's cycles are the busy cycles of "
         "its HTP ops summed over the hardware threads that ran them (HMX, several HVX threads, "
         "DMA). They add up to <code>Accelerator (execute) time (cycles)</code>, which exceeds the "
         "graph's wall span. Read them as work share, never as latency.</li>"
         "<li><b>Two \"(us)\" events are 19.2 MHz ticks</b>: <code>Time for initial VTCM acquire "
         "(us)</code> and <code>Time for HVX + HMX power on and acquire (us)</code> hold QTimer "
         "ticks; etprof divides them by 19.2 and shows microseconds.</li>"
         "<li><b>Detailed profiling inflates host-side times</b>: with per-op (detailed) "
         "profiling, <code>QNN (execute)</code>, <code>RPC (execute)</code>, <code>QNN "
         "accelerator (execute)</code> and so the DELEGATE_CALL can be many times their "
         "basic-level values. <code>Accelerator (execute excluding wait) time</code> is the usable "
         "NPU compute wall time.</li>"
         "<li><b>aten_* rows are HTP nodes</b>: names like <code>aten_convolution_default:OpId_23 "
         "(cycles)</code> are nodes that ran on the NPU inside the QNN partition, not CPU "
         "fallbacks (those are OPERATOR_CALLs, listed under <a href=\"#cpu-fallback\">CPU "
         "fallback</a>).</li>"
         "<li>Cycles become time only with a known clock (QNN runtrace or QHAS give it); HMX vs "
         "HVX, VTCM, DRAM traffic and utilization are not in the ETDump: they come from QNN's "
         "optrace and QHAS files (<code>--optrace</code>, <code>--qhas</code>).</li></ul>\n");
    if (nq == 0)
        S(R, "<p class=\"note\">The ETDump holds no QNN events.</p>\n");
    for (size_t qi = 0; qi < nq; qi++) {
        const etp_ops_qnn *q = etp_ops_qnn_get(r, qi);
        const etp_ops_method *m = etp_ops_method_get(r, q->method);
        const etp_ops_row *dc = etp_ops_row_get(r, q->delegate_row);
        S(R, "<h3>");
        E(R, method_name(m));
        P(R, ": QNN partition, DELEGATE_CALL instruction %d</h3>\n", dc->instr);
        static const etp_col cols[] = {
            {"event (outer to inner)", NULL, NULL, ETP_T_STR, false, 0},
            {"p50", NULL, NULL, ETP_T_FLOAT, true, -1},
            {"unit", NULL, NULL, ETP_T_STR, false, 0},
            {"% of the line above", NULL, NULL, ETP_T_FLOAT, true, -1},
            {"what it is", NULL, NULL, ETP_T_STR, false, 0},
        };
        static const char *const cls[] = {"name", NULL, NULL, NULL, NULL};
        etp_table *t = tab_begin(R, cols, sizeof cols / sizeof cols[0]);
        etp_table_row(t);
        char dlab[320];
        etp_table_str(t, row_label(R, q->delegate_row, dlab, sizeof dlab));
        tab_v(R, t, dc->unit, dc->stats.p50);
        etp_table_str(t, du(R, dc->unit));
        etp_table_null(t);
        etp_table_str(t, "ExecuTorch's call into the partition, host clock");
        const etp_ops_row *prev = dc;
        for (int tt = 0; tt < ETP_QT_COUNT_; tt++) {
            const etp_ops_row *row = row_at(R, q->top[tt]);
            if (!row) continue;
            R->flags |= etp_disp_row_flags(row);
            etp_table_row(t);
            etp_table_str(t, row->name);
            tab_v(R, t, row->unit, row->stats.p50);
            etp_table_str(t, du(R, row->unit));
            double sp = NAN;
            if (tt <= ETP_QT_EXCL_WAIT && prev && prev->unit == row->unit && prev->stats.p50 > 0)
                sp = row->stats.p50 / prev->stats.p50 * 100.0;
            if ((tt == ETP_QT_VTCM || tt == ETP_QT_POWER) && row_at(R, q->top[ETP_QT_ACCEL_US]) &&
                row_at(R, q->top[ETP_QT_ACCEL_US])->stats.p50 > 0)
                sp = row->stats.p50 / row_at(R, q->top[ETP_QT_ACCEL_US])->stats.p50 * 100.0;
            tab_pct(t, sp);
            etp_table_str(t, qt_meaning(tt));
            if (tt <= ETP_QT_EXCL_WAIT) prev = row;
        }
        tab_end(R, t, &(etp_html_opts){.wrap_class = "tw", .col_class = cls});
        const etp_ops_row *qe = row_at(R, q->top[ETP_QT_QNN_EXECUTE]);
        etp_ops_delegate_time dt;
        if (qe && qe->unit == dc->unit &&
            etp_ops_delegate_time_get(r, q->delegate_row, &dt) == ETP_OK && dt.has_backend) {
            P(R, "<p class=\"note\" id=\"qnn-overhead-%zu\">DELEGATE_CALL minus QNN (execute) "
                 "time = <span data-v=\"%s\">%s</span> %s (p50 of the per-run difference): "
                 "ExecuTorch-side cost of the call, including the QNN profiler's own event "
                 "collection. VTCM acquire and power-up are shown as %% of Accelerator (execute) "
                 "time (us).</p>",
              qi, num(R, dv(R, dc->unit, dt.overhead.p50), 6), fv(R, dc->unit, dt.overhead.p50),
              du(R, dc->unit));
        }
        P(R, "<p>%u HTP node row(s) (%u named <code>&lt;qnn op&gt;:OpId_N</code>, of which %u "
             "<code>aten_*</code>): all ran on the NPU. ",
          q->node_rows, q->node_rows_named, q->node_rows_aten);
        if (q->runs_checked)
            P(R, "In %u of %u run(s) the node cycles add up exactly to Accelerator (execute) time "
                 "(cycles)%s.",
              q->runs_checked - q->runs_sum_mismatch, q->runs_checked,
              q->runs_sum_mismatch ? " (a mismatch suggests dropped events)" : "");
        S(R, "</p>\n");
        write_node_strip(R, q);
        write_node_table(R, q, idx);
    }
    S(R, "</section>\n");
}

/* ---------------------------------------------------------------------------------------------
 * QNN deep data (QHAS / optrace / runtrace / heap)
 * ------------------------------------------------------------------------------------------- */

static const char *src_name(etp_qnn_source s) {
    switch (s) {
    case ETP_QNN_SRC_QHAS: return "QHAS";
    case ETP_QNN_SRC_OPTRACE: return "optrace";
    case ETP_QNN_SRC_RUNTRACE: return "runtrace";
    default: return "none";
    }
}

/* The join of the derived per-op rows with the QNN partition that matches best (the one the
 * qnn, ops and tree commands use), and its trusted pairs per ops row. */
static int build_join(rep *R, etp_error *err) {
    const etp_ops_result *r = R->r;
    size_t nrows = etp_ops_row_count(r);
    if (!R->der || R->der->n_rows == 0 || etp_ops_qnn_count(r) == 0) return ETP_OK;
    int rc = etp_qnn_join_etdump(r, R->der, &R->join, err);
    if (rc) return rc;
    if (!(R->row_drow = malloc((nrows ? nrows : 1) * sizeof *R->row_drow))) {
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    for (size_t i = 0; i < nrows; i++) R->row_drow[i] = -1;
    /* an OpId match under another name is a coincidence of two graphs: not shown as the node's
     * data (counted in the join paragraph) */
    for (uint32_t k = 0; k < R->join->n_pairs; k++)
        if (R->join->pairs[k].trusted)
            R->row_drow[R->join->pairs[k].ops_row] = (int32_t)R->join->pairs[k].qnn_row;
    return ETP_OK;
}

static void card_i64(rep *R, const char *key, etp_qnn_i64 v, const char *unit) {
    if (!v.has) return;
    card(R, key, num(R, (double)v.v, 0), unit, NULL);
}

/* An execute time in us with where it comes from (etp_qnn_exec_time_meaning): to the tick from
 * a runtrace, whole us from a QHAS. */
static void card_time(rep *R, const char *key, etp_qnn_f64 v, const char *meaning,
                      const char *id) {
    if (!v.has) return;
    char u[300];
    snprintf(u, sizeof u, "us (%s)", meaning);
    card(R, key, num(R, v.v, v.v == floor(v.v) ? 0 : 3), u, id);
}

static void card_bytes(rep *R, const char *key, etp_qnn_i64 v, const char *id) {
    if (!v.has) return;
    char u[64];
    double x = (double)v.v;
    if (x >= 1024.0 * 1024.0) snprintf(u, sizeof u, "bytes (%s MiB)", num(R, x / 1048576.0, 2));
    else if (x >= 1024.0) snprintf(u, sizeof u, "bytes (%s KiB)", num(R, x / 1024.0, 1));
    else snprintf(u, sizeof u, "bytes");
    card(R, key, num(R, x, 0), u, id);
}

static void write_threads(rep *R) {
    const etp_qnn_summary *s = &R->der->summary;
    if (!s->n_threads) return;
    S(R, "<h3>Hardware threads: busy share of the graph timeline</h3>\n");
    const double L = 150, bw = CHART_W - L - 210, rh = 22;
    double h = s->n_threads * rh + 26;
    P(R, "<svg class=\"chart\" viewBox=\"0 0 %d %s\" width=\"%d\" height=\"%s\" role=\"img\" "
         "aria-label=\"HTP thread utilization\">",
      CHART_W, num(R, h, 0), CHART_W, num(R, h, 0));
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const etp_qnn_thread_busy *t = &s->threads[i];
        double y = i * rh + 2;
        double share = t->share.has ? t->share.v : NAN;
        const char *col = t->type && strcmp(t->type, "HMX") == 0 ? COL_HMX
                          : t->type && strcmp(t->type, "HVX") == 0 ? COL_HVX : COL_NODE_SYS;
        P(R, "<text x=\"%s\" y=\"%s\" font-size=\"11.5\" text-anchor=\"end\">", num(R, L - 8, 1),
          num(R, y + 14, 1));
        if (t->type) E(R, t->type);
        else S(R, "thread");
        P(R, " (tid %lld)</text>", (long long)t->tid);
        P(R, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#eef1f4\"/>", num(R, L, 1),
          num(R, y, 1), num(R, bw, 1), num(R, rh - 5, 1));
        if (isfinite(share))
            P(R, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\"><title>%s cycles busy"
                 "</title></rect>",
              num(R, L, 1), num(R, y, 1), num(R, bw * (share > 100 ? 1 : share < 0 ? 0 : share / 100), 1),
              num(R, rh - 5, 1), col, num(R, (double)t->busy_cycles, 0));
        P(R, "<text x=\"%s\" y=\"%s\" font-size=\"11.5\">%s%% \xC2\xB7 %s cycles</text>",
          num(R, L + bw + 6, 1), num(R, y + 14, 1), isfinite(share) ? pct(R, share) : DASH,
          num(R, (double)t->busy_cycles, 0));
    }
    double ay = s->n_threads * rh + 4;
    for (int k = 0; k <= 4; k++) {
        double tx = L + bw * k / 4.0;
        P(R, "<text class=\"m\" x=\"%s\" y=\"%s\" font-size=\"10.5\" text-anchor=\"middle\">%d%%"
             "</text>",
          num(R, tx, 1), num(R, ay + 14, 1), k * 25);
    }
    S(R, "</svg>\n");
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The optrace HTP timeline: one lane per hardware thread, ops as boxes (x = cycles). */
static void write_timeline(rep *R) {
    const etp_qnn_trace *t = R->trace;
    if (!t || !t->n_ops) return;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int64_t *tids = malloc(t->n_ops * sizeof *tids);
    if (!tids) return;
    uint32_t nt = 0;
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const etp_qnn_trace_op *op = &t->ops[i];
        if (op->ts < lo) lo = op->ts;
        if (op->ts + op->dur > hi) hi = op->ts + op->dur;
        tids[nt++] = op->tid;
    }
    qsort(tids, nt, sizeof *tids, cmp_i64);
    uint32_t nu = 0;
    for (uint32_t i = 0; i < nt; i++)
        if (nu == 0 || tids[nu - 1] != tids[i]) tids[nu++] = tids[i];
    const etp_qnn_trace_counter *vt = etp_qnn_trace_counter_get(t, ETP_QNN_CTR_VTCM_ALLOC);
    for (uint32_t i = 0; vt && i < vt->n_points; i++) {
        if (vt->points[i].ts < lo) lo = vt->points[i].ts;
        if (vt->points[i].ts > hi) hi = vt->points[i].ts;
    }
    if (!(hi > lo)) {
        free(tids);
        return;
    }
    const double L = 150, pw = CHART_W - L - 16, rh = 22;
    double vh = vt && vt->n_points ? 70 : 0;
    double h = nu * rh + 30 + (vh > 0 ? vh + 16 : 0);
    double span = (double)(hi - lo);
    S(R, "<h3>HTP timeline (optrace)</h3>\n");
    P(R, "<svg class=\"chart\" viewBox=\"0 0 %d %s\" width=\"%d\" height=\"%s\" role=\"img\" "
         "aria-label=\"HTP timeline\">",
      CHART_W, num(R, h, 0), CHART_W, num(R, h, 0));
#define TX(c) (L + ((double)(c) - (double)lo) / span * pw)
    for (uint32_t k = 0; k < nu; k++) {
        double y = k * rh + 2;
        P(R, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#f3f5f7\"/>", num(R, L, 1),
          num(R, y, 1), num(R, pw, 1), num(R, rh - 4, 1));
        P(R, "<text x=\"%s\" y=\"%s\" font-size=\"11\" text-anchor=\"end\">", num(R, L - 8, 1),
          num(R, y + 13, 1));
        S(R, tids[k] == 256 ? "HMX" : tids[k] >= 512 ? "HVX" : "thread");
        P(R, " tid %lld</text>", (long long)tids[k]);
    }
    uint32_t drawn = 0, skipped = 0;
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const etp_qnn_trace_op *op = &t->ops[i];
        uint32_t lane = 0;
        while (lane < nu && tids[lane] != op->tid) lane++;
        double x = TX(op->ts), w = (double)op->dur / span * pw;
        if (w < 0.3) w = 0.3;
        if (drawn >= TIMELINE_MAX_RECTS) {
            skipped++;
            continue;
        }
        const char *fill = op->flags & ETP_QNN_F_HMX   ? COL_HMX
                           : op->flags & ETP_QNN_F_HVX ? COL_HVX
                           : op->flags & ETP_QNN_F_ANY_DMA ? COL_DMA : COL_NODE_SYS;
        P(R, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" stroke=\"#fff\" "
             "stroke-width=\"0.4\"><title>",
          num(R, x, 2), num(R, lane * rh + 2, 1), num(R, w, 2), num(R, rh - 4, 1), fill);
        E(R, op->name);
        if (op->qnn_op) {
            S(R, " (QNN op ");
            E(R, op->qnn_op);
            S(R, ")");
        }
        P(R, "&#10;%lld cycles from cycle %lld</title></rect>", (long long)op->dur,
          (long long)(op->ts - lo));
        drawn++;
    }
    double ay = nu * rh + 4;
    double st = nice_step(span, 8);
    for (double v = 0; v <= span * (1 + 1e-9); v += st) {
        double tx = L + v / span * pw;
        P(R, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#8a95a3\"/>", num(R, tx, 1),
          num(R, tx, 1), num(R, ay - 2, 1), num(R, ay + 3, 1));
        P(R, "<text class=\"m\" x=\"%s\" y=\"%s\" font-size=\"10.5\" text-anchor=\"middle\">%s</text>",
          num(R, tx, 1), num(R, ay + 15, 1), num(R, v, 0));
    }
    P(R, "<text class=\"m\" x=\"%s\" y=\"%s\" font-size=\"10.5\" text-anchor=\"end\">cycles</text>",
      num(R, L - 8, 1), num(R, ay + 15, 1));
    if (vh > 0) {
        double vy0 = ay + 26, vmax = 0;
        for (uint32_t i = 0; i < vt->n_points; i++)
            if (vt->points[i].value > vmax) vmax = vt->points[i].value;
        if (vmax <= 0) vmax = 1;
        P(R, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#f7f4fc\"/>", num(R, L, 1),
          num(R, vy0, 1), num(R, pw, 1), num(R, vh, 1));
        S(R, "<polyline fill=\"none\" stroke=\"#7b52c7\" stroke-width=\"1.4\" points=\"");
        double py = vy0 + vh;
        for (uint32_t i = 0; i < vt->n_points; i++) {
            double x = TX(vt->points[i].ts);
            double y = vy0 + vh - vt->points[i].value / vmax * (vh - 6);
            P(R, "%s%s,%s %s,%s", i ? " " : "", num(R, x, 1), num(R, py, 1), num(R, x, 1), num(R, y, 1));
            py = y;
        }
        P(R, " %s,%s\"/>", num(R, L + pw, 1), num(R, py, 1));
        P(R, "<text x=\"%s\" y=\"%s\" font-size=\"11\" text-anchor=\"end\">VTCM allocated</text>",
          num(R, L - 8, 1), num(R, vy0 + 14, 1));
        P(R, "<text class=\"m\" x=\"%s\" y=\"%s\" font-size=\"10.5\" text-anchor=\"end\">max %s "
             "bytes</text>",
          num(R, L - 8, 1), num(R, vy0 + 28, 1), num(R, vmax, 0));
    }
#undef TX
    S(R, "</svg>\n<div class=\"legend\">");
    legend_item(R, COL_HMX, "HTP op uses HMX");
    legend_item(R, COL_HVX, "uses HVX (no HMX)");
    legend_item(R, COL_DMA, "DMA only");
    legend_item(R, COL_NODE_SYS, "other");
    S(R, "</div>");
    P(R, "<p class=\"note\">%u HTP op(s) of one execute on their hardware threads; x is in HTP "
         "cycles (optrace ts/dur are cycles, not microseconds)",
      t->n_ops);
    if (R->der && R->der->summary.clock_ghz.has && R->der->summary.clock_ghz.v > 0)
        P(R, "; at the %s GHz clock the span of %s cycles is %s us", num(R, R->der->summary.clock_ghz.v, 3),
          num(R, span, 0), num(R, span / R->der->summary.clock_ghz.v / 1000.0, 2));
    P(R, ".%s</p>\n", skipped ? " Ops beyond the cap of 6000 boxes are not drawn." : "");
    free(tids);
}

/* The QNN op table's cells: HMX / HVX / DMA classed yes / no; the DRAM and VTCM columns (read +
 * write, the sort key) shown as "read / write". */
typedef struct qnn_ops_ctx {
    rep *R;
    const etp_qnn_derived *d;
    const uint32_t *ord;
    char buf[96];
} qnn_ops_ctx;

static void qnn_ops_cell(void *ctx, const etp_table *t, size_t k, size_t col, etp_html_cell *c) {
    qnn_ops_ctx *q = ctx;
    flag_class(t, k, col, c);
    const etp_qnn_op_row *o = &q->d->rows[q->ord[k]];
    if ((col != 10 && col != 11) || !o->has_bytes) return;
    int64_t r = col == 10 ? o->dram_read_bytes : o->vtcm_read_bytes;
    int64_t w = col == 10 ? o->dram_write_bytes : o->vtcm_write_bytes;
    snprintf(q->buf, sizeof q->buf, "%s / %s", num(q->R, (double)r, 0), num(q->R, (double)w, 0));
    c->html = q->buf;
    c->replace = true;
}

static void write_deep(rep *R) {
    if (!R->der) return;
    const etp_qnn_derived *d = R->der;
    const etp_qnn_summary *s = &d->summary;
    S(R, "<section id=\"qnn-deep\"><h2>QNN deep data: HMX / HVX / DMA, VTCM, DRAM, "
         "utilization</h2>\n<p class=\"note\">From QNN's own profiling files (");
    bool first = true;
    const char *qf[4] = {R->o->qhas, R->o->optrace, R->o->runtrace, R->o->heap};
    const char *qn[4] = {"QHAS", "optrace", "runtrace", "heap"};
    for (int i = 0; i < 4; i++)
        if (qf[i]) {
            P(R, "%s%s ", first ? "" : ", ", qn[i]);
            S(R, "<code>");
            E(R, qf[i]);
            S(R, "</code>");
            first = false;
        }
    P(R, "). Per-op rows from %s; summary from %s.", src_name(d->rows_source),
      src_name(s->source));
    char scope[400];
    if (etp_qnn_scope_note(s->htp_cores, scope, sizeof scope)) {
        S(R, " <span id=\"qnn-scope\">Note: ");
        E(R, scope);
        S(R, ".</span>");
    }
    S(R, "</p>\n");
    char graph[600];
    if (R->join && etp_qnn_etd_graph_note(R->join, graph, sizeof graph)) {
        S(R, "<p class=\"warn\" id=\"qnn-other-graph\">Warning: ");
        E(R, graph);
        S(R, ".</p>\n");
    }
    if (s->estimated) {
        S(R, "<p class=\"warn\" id=\"qnn-estimated\">Estimated on the host: ");
        E(R, ETP_QNN_ESTIMATED_NOTE);
        S(R, ".</p>\n");
    }
    S(R, "<div class=\"cards\">");
    if (s->utilization_percent.has)
        card(R, "NPU utilization", pct(R, s->utilization_percent.v), "% of the timeline", "qnn-util");
    if (s->idle_percent.has) card(R, "idle", pct(R, s->idle_percent.v), "%", NULL);
    card_time(R, "graph execute", s->graph_execute_time_us,
              etp_qnn_exec_time_meaning(s->graph_execute_source, true, s->estimated),
              "qnn-graph-execute");
    card_time(R, "QNN DSP execute", s->dsp_execute_time_us,
              etp_qnn_exec_time_meaning(s->dsp_execute_source, false, s->estimated),
              "qnn-dsp-execute");
    card_i64(R, "timeline", s->timeline_cycles, "cycles");
    if (s->clock_ghz.has) {
        char u[64];
        snprintf(u, sizeof u, "GHz (%s)",
                 s->clock_source == ETP_QNN_SRC_RUNTRACE ? "runtrace, measured"
                 : s->estimated ? "QHAS timeline / graph execute, estimated on the host"
                                : "QHAS timeline / graph execute");
        card(R, "HTP clock", num(R, s->clock_ghz.v, 3), u, "qnn-clock");
    }
    card_bytes(R, "peak VTCM", s->peak_vtcm_bytes, "qnn-vtcm-peak");
    if (R->soc.present && R->soc.vtcm_mb) {
        etp_qnn_f64 sh = etp_qnn_vtcm_share(s, &R->soc);
        char u[160], sn[64];
        etp_qnn_soc_name(&R->soc, sn, sizeof sn);
        snprintf(u, sizeof u, "bytes (%u MiB; compiled for %s; peak %s%%)", R->soc.vtcm_mb, sn,
                 sh.has ? pct(R, sh.v) : DASH);
        card(R, "VTCM budget", num(R, (double)R->soc.vtcm_mb * 1048576.0, 0), u, "qnn-vtcm-budget");
    }
    card_bytes(R, "DRAM read", s->dram_read_bytes, "qnn-dram-read");
    card_bytes(R, "DRAM write", s->dram_write_bytes, "qnn-dram-write");
    card_bytes(R, "VTCM read", s->vtcm_read_bytes, NULL);
    card_bytes(R, "VTCM write", s->vtcm_write_bytes, NULL);
    if (s->hmx_busy_cycles.has) {
        char u[80];
        snprintf(u, sizeof u, "cycles of the HMX thread, DMA and sync included (%s%% of the timeline)",
                 s->hmx_busy_share.has ? pct(R, s->hmx_busy_share.v) : DASH);
        card(R, "HMX thread busy", num(R, (double)s->hmx_busy_cycles.v, 0), u, "qnn-hmx-busy");
    }
    if (s->hmx_op_cycles.has) {
        char u[96];
        snprintf(u, sizeof u, "cycles of HTP ops using HMX (%s%% of the timeline)",
                 s->hmx_op_share.has ? pct(R, s->hmx_op_share.v) : DASH);
        card(R, "HMX compute", num(R, (double)s->hmx_op_cycles.v, 0), u, "qnn-hmx-compute");
    }
    if (s->hvx_busy_cycles.has) {
        char u[96];
        snprintf(u, sizeof u, "cycles on %u thread(s) (mean load %s%%)", s->hvx_threads,
                 s->hvx_busy_share.has ? pct(R, s->hvx_busy_share.v) : DASH);
        card(R, "HVX busy", num(R, (double)s->hvx_busy_cycles.v, 0), u, NULL);
    }
    card_bytes(R, "DSP heap before", s->heap_before_bytes, NULL);
    card_bytes(R, "DSP heap after", s->heap_after_bytes, NULL);
    if (s->heap_delta_bytes.has)
        card(R, "DSP heap delta", num(R, (double)s->heap_delta_bytes.v, 0), "bytes (after - before)",
             NULL);
    S(R, "</div>\n");
    write_threads(R);
    write_timeline(R);
    /* per-op table */
    if (d->n_rows) {
        uint32_t n = d->n_rows, shown = n < R->top_nodes ? n : R->top_nodes;
        uint32_t *ord = malloc(n * sizeof *ord), nord = 0;
        /* by cycles, largest first (the order explain uses too) */
        if (ord && etp_qnn_rows_by_cycles(d, 0, ord, &nord) == ETP_OK && nord == n) {
            bool joined = R->join && R->join->matched > 0;
            P(R, "<h3>Per QNN op (%s%u of %u, by cycles)</h3>\n", shown < n ? "top " : "all ", shown, n);
            etp_col cols[13] = {
                {"QNN op", NULL, NULL, ETP_T_STR, true, 0},
                {"OpId", NULL, NULL, ETP_T_INT, true, 0},
                {"type", NULL, NULL, ETP_T_STR, true, 0},
                {"cycles", NULL, NULL, ETP_T_INT, false, 0},
                {"share %", NULL, NULL, ETP_T_FLOAT, true, -1},
                {"dom. path", NULL, "cycles", ETP_T_INT, false, 0},
                {"HMX", NULL, NULL, ETP_T_BOOL, false, 0},
                {"HVX", NULL, NULL, ETP_T_BOOL, false, 0},
                {"DMA", NULL, NULL, ETP_T_BOOL, false, 0},
                {"HTP ops", NULL, NULL, ETP_T_INT, false, 0},
                /* read + write; shown as "read / write" (qnn_ops_cell) */
                {"DRAM read / write", NULL, "bytes", ETP_T_INT, true, 0},
                {"VTCM read / write", NULL, "bytes", ETP_T_INT, true, 0},
                {"ETDump p50", NULL, "cycles", ETP_T_FLOAT, true, -1},
            };
            static const char *const cls[13] = {"name"};
            etp_table *t = tab_begin(R, cols, joined ? 13 : 12);
            for (uint32_t k = 0; k < shown; k++) {
                const etp_qnn_op_row *o = &d->rows[ord[k]];
                etp_table_row(t);
                etp_table_str(t, o->qnn_op);
                if (o->has_op_id) etp_table_int(t, o->op_id);
                else etp_table_null(t);
                etp_table_str(t, o->qnn_op_type);
                etp_table_int(t, (int64_t)o->cycles);
                tab_pct(t, o->share);
                etp_table_int(t, (int64_t)o->dominant_path_cycles);
                etp_table_bool(t, o->hmx);
                etp_table_bool(t, o->hvx);
                etp_table_bool(t, o->dma);
                etp_table_int(t, (int64_t)o->htp_ops);
                if (o->has_bytes) {
                    etp_table_int(t, o->dram_read_bytes + o->dram_write_bytes);
                    etp_table_int(t, o->vtcm_read_bytes + o->vtcm_write_bytes);
                } else {
                    etp_table_null(t);
                    etp_table_null(t);
                }
                if (joined) {
                    double e = R->join->row_etdump ? R->join->row_etdump[ord[k]] : NAN;
                    tab_f(t, e, e == floor(e) ? 0 : 1);
                }
            }
            qnn_ops_ctx qc = {.R = R, .d = d, .ord = ord};
            tab_end(R, t, &(etp_html_opts){.id = "qnn-ops", .table_class = "sortable",
                                           .wrap_class = shown > 30 ? "tw scroll" : "tw",
                                           .col_class = cls, .cell = qnn_ops_cell, .ctx = &qc});
            if (shown < n)
                P(R, "<p class=\"note\">%u more QNN op(s) not shown.</p>", n - shown);
            S(R, "<p class=\"note\">HMX / HVX / DMA: yes when any HTP op of the QNN op uses the "
                 "unit (QHAS htp_op_instances flags, or optrace Flags). Cycles are thread-aggregate "
                 "busy cycles.</p>\n");
        }
        free(ord);
    }
    /* the join */
    if (etp_ops_qnn_count(R->r) == 0) {
        S(R, "<p class=\"note\">The ETDump has no QNN node events: nothing to join.</p>\n");
    } else if (R->join && R->join->qnn >= 0) {
        const etp_qnn_etd_join *J = R->join;
        const etp_ops_qnn *q = etp_ops_qnn_get(R->r, (size_t)J->qnn);
        P(R, "<h3>Join with the ETDump's HTP nodes</h3><p id=\"qnn-join\">Partition: method ");
        E(R, method_name(etp_ops_method_get(R->r, q->method)));
        P(R, ", instruction %d. <b>%u</b> of %u ETDump node(s) matched a QNN op (%u by OpId and "
             "name, %u by name only); %u ETDump node(s) have no QNN op in the files; %u QNN op(s) "
             "have no ETDump node; %u OpId conflict(s).",
          etp_ops_row_get(R->r, q->delegate_row)->instr, J->matched, J->n_nodes, J->matched_by_id,
          J->matched_by_name, J->n_etdump_only, J->n_qnn_only, J->conflicts);
        if (J->conflicts)
            P(R, " An OpId conflict is a node whose OpId is a QNN op's under another name; "
                 "those %u are not matched and not used.",
              J->conflicts);
        if (J->matched)
            P(R, " Cycles agree exactly for %u of %u matched op(s)%s.", J->cycles_equal, J->matched,
              J->cycles_equal == J->matched
                  ? " (one run, measured twice)"
                  : ": the files probably come from another run (optrace/QHAS are made by a "
                    "separate qnn-net-run): compare shares rather than cycles");
        else
            S(R, " No node matched by name: the QNN files probably describe another graph.");
        S(R, "</p>\n");
    }
    /* dominant path */
    if (s->n_dominant) {
        uint32_t n = s->n_dominant, shown = n < 10 ? n : 10;
        uint32_t *ord = malloc(n * sizeof *ord);
        if (ord) {
            for (uint32_t i = 0; i < n; i++) ord[i] = i;
            for (uint32_t i = 1; i < n; i++) {
                uint32_t v = ord[i], j = i;
                int64_t cv = s->dominant[v].dp_cycles.has ? s->dominant[v].dp_cycles.v : s->dominant[v].cycles;
                while (j > 0) {
                    const etp_qnn_dp_op *p = &s->dominant[ord[j - 1]];
                    int64_t cp = p->dp_cycles.has ? p->dp_cycles.v : p->cycles;
                    if (cp >= cv) break;
                    ord[j] = ord[j - 1];
                    j--;
                }
                ord[j] = v;
            }
            P(R, "<h3>Dominant (critical) path: the %u steps with the most path cycles (of %u, "
                 "from %s)</h3>\n",
              shown, n, src_name(s->dominant_source));
            static const etp_col cols[] = {
                {"HTP op", NULL, NULL, ETP_T_STR, true, 0},
                {"QNN op", NULL, NULL, ETP_T_STR, true, 0},
                {"path cycles", NULL, NULL, ETP_T_INT, true, 0},
                {"op cycles", NULL, NULL, ETP_T_INT, false, 0},
                {"% of the path", NULL, NULL, ETP_T_FLOAT, true, -1},
            };
            static const char *const cls[] = {"name", "name", NULL, NULL, NULL};
            etp_table *t = tab_begin(R, cols, sizeof cols / sizeof cols[0]);
            for (uint32_t k = 0; k < shown; k++) {
                const etp_qnn_dp_op *p = &s->dominant[ord[k]];
                double pc = p->dp_cycles.has ? (double)p->dp_cycles.v : NAN;
                etp_table_row(t);
                etp_table_str(t, p->htp_op);
                etp_table_str(t, p->qnn_op);
                if (p->dp_cycles.has) etp_table_int(t, p->dp_cycles.v);
                else etp_table_null(t);
                etp_table_int(t, (int64_t)p->cycles);
                tab_pct(t, s->dominant_dp_cycles > 0 ? pc / (double)s->dominant_dp_cycles * 100 : NAN);
            }
            tab_end(R, t, &(etp_html_opts){.wrap_class = "tw", .col_class = cls});
            P(R, "<p class=\"note\">Path total %s cycles, plus %s idle cycles on the path.</p>\n",
              num(R, (double)s->dominant_dp_cycles, 0), num(R, (double)s->dominant_idle_cycles, 0));
            free(ord);
        }
    }
    S(R, "<ul class=\"caveats\"><li>optrace and QHAS come from a separate <code>qnn-net-run "
         "--profiling_level detailed --profiling_option optrace</code> run of the partition's "
         "context binary, not from the ExecuTorch run in the ETDump (unless the cycles agree "
         "above).</li><li>Utilization = % of the graph timeline in which at least one unit is "
         "busy; per-thread shares are busy cycles / timeline cycles.</li>"
         "<li>Cycle counts are HTP processor cycles; time = cycles / clock, and the clock moves "
         "with DCVS.</li></ul>\n</section>\n");
}

/* ---------------------------------------------------------------------------------------------
 * Notes, data, end
 * ------------------------------------------------------------------------------------------- */

static void note_li(void *ctx, const char *text) {
    rep *R = ctx;
    S(R, "<li>");
    E(R, text);
    S(R, "</li>");
}

/* The Arm runner's Ethos-U PMU report of the log the ETDump came from (etprof_arm_pmu.h): the
 * table and notes summary shows. */
static void write_arm_pmu(rep *R) {
    if (!R->pmu || !R->pmu->present) return;
    const etp_arm_pmu_report *pm = R->pmu;
    P(R, "<section id=\"arm-pmu\"><h2>Arm Ethos-U PMU report</h2>\n<p class=\"note\">From "
         "the runner's serial log, line %llu: %llu inference(s)%s%s. The NPU's own counters, "
         "which the ETDump does not hold.</p>\n",
      (unsigned long long)pm->line, (unsigned long long)pm->inferences, pm->npu ? ", " : "",
      pm->npu ? pm->npu : "");
    etp_doc_free(R->tdoc);
    R->tdoc = etp_doc_new("report", -1, NULL, NULL);
    etp_table *t = R->tdoc ? etp_arm_pmu_table(R->tdoc, R->pmu) : NULL;
    if (!t) R->oom = true;
    tab_end(R, t, &(etp_html_opts){.id = "arm-pmu-table", .wrap_class = "tw"});
    S(R, "<ul>");
    etp_arm_pmu_notes(R->pmu, etp_arm_pmu_etdump_runs(R->r), note_li, R);
    S(R, "</ul></section>\n");
}

/* The VGF backend's device times of the runner's log: the table summary shows, and its notes. */
static void write_vgf_device(rep *R) {
    const etp_vgf_device_times *v = R->o->vgf;
    if (!v || !v->n) return;
    P(R, "<section id=\"vgf-device\"><h2>Arm VGF device time</h2>\n<p class=\"note\">From the "
         "runner's log: %u VGF_DATA_GRAPH_DEVICE_TIME line(s) from line %llu (Vulkan timestamp "
         "queries around each data-graph dispatch), which the ETDump does not hold.</p>\n",
      v->n, (unsigned long long)v->first_line);
    etp_doc_free(R->tdoc);
    R->tdoc = etp_doc_new("report", -1, NULL, NULL);
    etp_table *t = R->tdoc ? etp_vgf_device_table(R->tdoc, &R->d, v, R->r) : NULL;
    if (!t) R->oom = true;
    tab_end(R, t, &(etp_html_opts){.id = "vgf-device-table", .wrap_class = "tw"});
    S(R, "<ul>");
    etp_vgf_device_notes(v, R->r, note_li, R);
    S(R, "</ul></section>\n");
}

static void write_notes(rep *R, bool has_qnn_events) {
    S(R, "<section id=\"notes\"><h2>Units &amp; notes</h2>\n<ul>");
    P(R, "<li>Times are shown in %s", R->d.time_unit);
    S(R, "; cycles, counts and bytes keep their own unit and are never mixed with time.</li>");
    etp_disp d0 = R->d;
    d0.htp_ghz = 0;
    etp_disp_unit_notes(&d0, R->flags, R->units, note_li, R);
    etp_quality_notes(R->r, note_li, R);
    if (!R->o->program)
        S(R, "<li>No program (.pte) was given: methods, operator names (aten::\xE2\x80\xA6) and "
             "backend ids are unknown; <code>--pte P</code> adds them.</li>");
    if (has_qnn_events && !R->der)
        S(R, "<li>HMX vs HVX per op, VTCM, DRAM traffic and NPU utilization are not in the "
             "ETDump. Produce QNN's optrace and QHAS (ExecuTorch's Qualcomm debugger runs "
             "<code>qnn-net-run --profiling_level detailed --profiling_option optrace</code> and "
             "<code>qnn-profile-viewer</code> with the optrace reader and "
             "<code>{\"features\":{\"qhas_json\":true}}</code>) and pass them with "
             "<code>--optrace</code> / <code>--qhas</code> (and <code>--runtrace</code> for the "
             "measured clock).</li>");
    P(R, "<li>Tables are capped: top %u operators, top %u HTP nodes and QNN ops; the command "
         "line (<code>etprof ops</code>, <code>etprof tree</code>, <code>etprof qnn</code>) has "
         "every row.</li>",
      R->top_ops, R->top_nodes);
    S(R, "<li>This file is self-contained: no network access, no external assets. Charts are "
         "SVG drawn by etprof; the only script sorts tables.</li></ul>\n</section>\n");
}

/* The data the charts were drawn from, as JSON in a non-executed script element. '<', '>' and
 * '&' only occur inside JSON strings, where \u escapes are equivalent: replaced so that no input
 * string can close the element. */
static void write_data(rep *R, uint32_t *idx) {
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    if (!mf) return;
    const etp_ops_result *r = R->r;
    jw w;
    jw_init(&w, mf, false);
    jw_obj_begin(&w);
    jw_key(&w, "schema_version"); jw_int(&w, 1);
    jw_key(&w, "file"); jw_str(&w, R->o->source);
    jw_key(&w, "program"); jw_str(&w, R->o->program);
    jw_key(&w, "time_unit"); jw_str(&w, R->d.time_unit);
    jw_key(&w, "runs"); jw_uint(&w, etp_ops_runs_kept(r));
    jw_key(&w, "data_quality");
    ana_json_quality(&w, r);
    jw_key(&w, "methods");
    jw_arr_begin(&w);
    for (size_t mi = 0; mi < etp_ops_method_count(r); mi++) {
        const etp_ops_method *m = etp_ops_method_get(r, mi);
        const etp_ops_row *exec = row_at(R, m->exec_row);
        jw_obj_begin(&w);
        jw_key(&w, "name"); jw_str(&w, m->name);
        jw_key(&w, "runs"); jw_uint(&w, m->runs);
        jw_key(&w, "skipped_runs"); jw_uint(&w, m->skipped);
        jw_key(&w, "unit"); jw_str(&w, du(R, m->unit));
        jw_key(&w, "latency");
        jw_obj_begin(&w);
        const char *st[] = {"min", "p10", "p50", "p90", "avg", "max", "total"};
        for (int i = 0; i < 7; i++) {
            double v = NAN;
            etp_stats_pick(&m->latency, st[i], &v);
            jw_key(&w, st[i]);
            jw_double(&w, dv(R, m->unit, v));
        }
        jw_obj_end(&w);
        jw_key(&w, "run_latency");
        jw_arr_begin(&w);
        for (uint32_t i = 0; exec && i < exec->runs && i < JSON_MAX_RUNS; i++)
            jw_double(&w, dv(R, m->unit, exec->samples[i]));
        jw_arr_end(&w);
        jw_key(&w, "placement");
        jw_arr_begin(&w);
        for (uint32_t j = 0; j < m->n_parts; j++) {
            jw_obj_begin(&w);
            jw_key(&w, "placement"); jw_str(&w, m->parts[j].placement);
            jw_key(&w, "per_run"); jw_double(&w, dv(R, m->unit, m->parts[j].per_run));
            jw_key(&w, "share"); jw_double(&w, m->parts[j].share);
            jw_key(&w, "backend_own"); jw_bool(&w, m->parts[j].backend_own);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_key(&w, "profiling_level"); jw_str(&w, etp_profiling_level_name(m->profiling_level));
        jw_key(&w, "cpu_operators");
        jw_arr_begin(&w);
        for (uint32_t j = 0; j < m->n_cpu_ops; j++) {
            jw_obj_begin(&w);
            jw_key(&w, "operator"); jw_str(&w, m->cpu_ops[j].op);
            jw_key(&w, "instructions"); jw_uint(&w, m->cpu_ops[j].instructions);
            jw_key(&w, "per_run"); jw_double(&w, dv(R, m->unit, m->cpu_ops[j].per_run));
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        /* the shared figures (etprof.h), as summary writes them */
        jw_key(&w, "delegates");
        ana_json_delegates(&w, &R->d, r, (uint32_t)mi);
        jw_key(&w, "top_ops");
        jw_arr_begin(&w);
        size_t nt = etp_ops_top(r, (int32_t)mi, R->top_ops, idx);
        for (size_t k = 0; k < nt; k++) ana_json_top_op(&w, &R->d, r, idx[k]);
        jw_arr_end(&w);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_key(&w, "qnn_join");
    if (R->join && R->join->qnn >= 0) ana_json_qnn_join(&w, R->join);
    else jw_null(&w);
    jw_key(&w, "qnn_units");
    if (R->der) {
        etp_qnn_unit_counts uc;
        etp_qnn_unit_counts_get(R->der, &uc);
        ana_json_unit_counts(&w, &uc);
    } else {
        jw_null(&w);
    }
    jw_obj_end(&w);
    fflush(mf);
    bool ok = jw_finish(&w) == 0;
    fclose(mf);
    if (ok && buf) {
        S(R, "<script type=\"application/json\" id=\"etprof-data\">");
        for (size_t i = 0; i < len; i++) {
            char c = buf[i];
            if (c == '<') S(R, "\\u003c");
            else if (c == '>') S(R, "\\u003e");
            else if (c == '&') S(R, "\\u0026");
            else fputc(c, R->f);
        }
        S(R, "</script>\n");
    }
    free(buf);
}

/* ---------------------------------------------------------------------------------------------
 * Entry point
 * ------------------------------------------------------------------------------------------- */

void etp_report_opts_init(etp_report_opts *o) {
    memset(o, 0, sizeof *o);
    o->time_unit = "us";
    o->tick_ns = 1;
}

static void rep_free(rep *R) {
    free(R->plab);
    etp_optype_free(R->types);
    etp_doc_free(R->tdoc);
    etp_qnn_etd_join_free(R->join);
    free(R->row_drow);
    etp_qnn_derived_free(R->der);
    etp_qnn_qhas_free(R->qhas);
    etp_qnn_trace_free(R->trace);
    etp_qnn_runtrace_free(R->rt);
    etp_qnn_heap_free(R->heap);
}

static int read_qnn(rep *R, etp_error *err) {
    const etp_report_opts *o = R->o;
    int rc = ETP_OK;
    if (o->qhas && (rc = etp_qnn_read_qhas(o->qhas, &R->qhas, err))) return rc;
    if (o->optrace && (rc = etp_qnn_read_optrace(o->optrace, &R->trace, err))) return rc;
    if (o->runtrace && (rc = etp_qnn_read_runtrace(o->runtrace, &R->rt, err))) return rc;
    if (o->heap && (rc = etp_qnn_read_heap(o->heap, &R->heap, err))) return rc;
    if (R->qhas || R->trace || R->rt || R->heap) {
        etp_qnn_sources src = {R->qhas, R->trace, R->rt, R->heap};
        if ((rc = etp_qnn_derive(&src, &R->der, err))) return rc;
    }
    return ETP_OK;
}

int etp_report_write(etp_model *m, FILE *f, const etp_report_opts *opts, etp_error *err) {
    etp_report_opts defaults;
    if (!opts) {
        etp_report_opts_init(&defaults);
        opts = &defaults;
    }
    rep R;
    memset(&R, 0, sizeof R);
    R.f = f;
    R.o = opts;
    R.etr = opts->etrecord;
    R.top_ops = opts->top_ops ? opts->top_ops : DEF_TOP_OPS;
    R.top_nodes = opts->top_nodes ? opts->top_nodes : DEF_TOP_NODES;
    if (etp_disp_init(&R.d, opts->time_unit ? opts->time_unit : "us", 0, opts->tick_ns)) {
        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL,
                      "unknown time unit \"%s\" (ns, us, ms or s)", opts->time_unit);
        return ETP_E_USAGE;
    }
    int rc = read_qnn(&R, err);
    if (rc) {
        rep_free(&R);
        return rc;
    }
    etp_qnn_program_soc(etp_model_program(m), NULL, &R.soc);
    R.pmu = opts->arm_pmu ? opts->arm_pmu : etp_dump_arm_pmu(etp_model_dump(m));
    etp_ops_opts oo;
    etp_ops_opts_init(&oo);
    oo.block = opts->block;
    oo.skip_first = opts->skip_first;
    oo.progress = opts->progress;
    oo.progress_ctx = opts->progress_ctx;
    etp_ops_result *res = NULL;
    if ((rc = etp_ops_compute(m, &oo, &res, err))) {
        rep_free(&R);
        return rc;
    }
    R.r = res;
    if ((rc = etp_optype_compute(res, &R.types, err))) {
        etp_ops_free(res);
        rep_free(&R);
        return rc;
    }
    size_t nrows = etp_ops_row_count(res);
    uint32_t *idx = malloc((nrows ? nrows : 1) * sizeof *idx);
    if (!idx) {
        etp_ops_free(res);
        rep_free(&R);
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    if ((rc = build_join(&R, err))) {
        free(idx);
        etp_ops_free(res);
        rep_free(&R);
        return rc;
    }
    /* each row's placement as the text views name it (a failure leaves the placements) */
    if ((R.plab = malloc((etp_ops_row_count(res) ? etp_ops_row_count(res) : 1) * sizeof *R.plab)) &&
        etp_backend_placement_labels(res, R.plab) != ETP_OK) {
        free(R.plab);
        R.plab = NULL;
    }
    /* backend colours by first appearance */
    for (size_t mi = 0; mi < etp_ops_method_count(res); mi++) {
        const etp_ops_method *mm = etp_ops_method_get(res, mi);
        for (uint32_t j = 0; j < mm->n_parts; j++) {
            const etp_ops_part *p = &mm->parts[j];
            if (p->place != ETP_PLACE_DELEGATE || !p->placement) continue;
            bool seen = false;
            for (uint32_t k = 0; k < R.n_backends; k++)
                if (strcmp(R.backends[k], p->placement) == 0) seen = true;
            if (!seen && R.n_backends < MAX_BACKENDS) R.backends[R.n_backends++] = p->placement;
        }
    }
    bool has_qnn = etp_ops_qnn_count(res) > 0;
    write_head(&R);
    write_nav(&R, has_qnn || R.der, R.der != NULL);
    write_summary(&R);
    write_placement(&R);
    write_runs(&R);
    write_hierarchy(&R, has_qnn);
    write_top_ops(&R, idx);
    write_op_types(&R);
    write_cpu(&R);
    if (has_qnn || R.der) write_qnn(&R, idx);
    write_deep(&R);
    write_arm_pmu(&R);
    write_vgf_device(&R);
    write_notes(&R, has_qnn);
    S(&R, "</main>\n<footer>etprof " ETPROF_VERSION " &middot; ");
    E(&R, opts->source ? opts->source : "");
    S(&R, "</footer>\n");
    write_data(&R, idx);
    S(&R, "<script>");
    S(&R, JS);
    S(&R, "</script>\n</body>\n</html>\n");
    free(idx);
    etp_ops_free(res);
    bool oom = R.oom;
    rep_free(&R);
    if (oom) {
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    if (fflush(f) != 0 || ferror(f)) {
        etp_error_set(err, ETP_E_IO, NULL, -1, NULL, "write failed");
        return ETP_E_IO;
    }
    return ETP_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Several dumps at once (etprof_runs.h): one page, a files table, and each file's own report
 * unchanged in a frame (srcdoc: inline, no reference outside the file), so that no figure and no
 * element id of two files can mix.
 * ------------------------------------------------------------------------------------------- */

int etp_report_write_multi(etp_model *const *models, const char *const *labels, size_t n,
                           FILE *f, const etp_report_opts *opts, etp_error *err) {
    etp_report_opts defaults;
    if (!opts) {
        etp_report_opts_init(&defaults);
        opts = &defaults;
    }
    if (n == 0 || !labels) {
        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL, "no file, or no labels");
        return ETP_E_USAGE;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (!labels[i] || !*labels[i] || strcmp(labels[i], labels[j]) == 0) {
                etp_error_set(err, ETP_E_USAGE, NULL, -1, "--label",
                              "two files have the label \"%.500s\" (give each file its own "
                              "--label)", labels[i] ? labels[i] : "");
                return ETP_E_USAGE;
            }
    rep R;
    memset(&R, 0, sizeof R);
    R.f = f;
    R.o = opts;
    if (etp_disp_init(&R.d, opts->time_unit ? opts->time_unit : "us", 0, opts->tick_ns)) {
        etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL,
                      "unknown time unit \"%s\" (ns, us, ms or s)", opts->time_unit);
        return ETP_E_USAGE;
    }
    char **inner = calloc(n, sizeof *inner);
    size_t *inner_len = calloc(n, sizeof *inner_len);
    etp_ops_result **ops = calloc(n, sizeof *ops);
    int rc = inner && inner_len && ops ? ETP_OK : ETP_E_INTERNAL;
    if (rc) etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
    const char *const *sources = opts->sources;
    for (size_t i = 0; !rc && i < n; i++) {
        /* the file's own report, exactly as `etprof report FILE` writes it */
        etp_report_opts o = *opts;
        o.source = sources ? sources[i] : NULL;
        o.sources = NULL;
        FILE *mf = open_memstream(&inner[i], &inner_len[i]);
        if (!mf) {
            etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
            rc = ETP_E_INTERNAL;
            break;
        }
        rc = etp_report_write(models[i], mf, &o, err);
        if (fclose(mf) != 0 && !rc) {
            etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
            rc = ETP_E_INTERNAL;
        }
        etp_ops_opts oo;
        etp_ops_opts_init(&oo);
        oo.block = opts->block;
        oo.skip_first = opts->skip_first;
        if (!rc) rc = etp_ops_compute(models[i], &oo, &ops[i], err);
    }
    if (!rc) {
        S(&R, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
              "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
              "<meta name=\"generator\" content=\"etprof " ETPROF_VERSION "\">\n<title>etprof "
              "report: ");
        for (size_t i = 0; i < n; i++) {
            if (i) S(&R, ", ");
            E(&R, labels[i]);
        }
        S(&R, "</title>\n<style>");
        S(&R, CSS);
        S(&R, "iframe.file{width:100%;height:85vh;border:1px solid #ccd3dc;border-radius:4px}"
              "</style>\n</head>\n<body>\n<header><h1>etprof report</h1><div class=\"sub\">");
        P(&R, "%zu files", n);
        if (opts->program) {
            S(&R, " &middot; program ");
            E(&R, opts->program);
        }
        S(&R, "</div></header>\n<nav><a href=\"#files\">Files</a>");
        for (size_t i = 0; i < n; i++) {
            P(&R, "<a href=\"#file-%zu\">", i + 1);
            E(&R, labels[i]);
            S(&R, "</a>");
        }
        S(&R, "</nav>\n<main>\n<section id=\"files\"><h2>Files</h2>\n<p class=\"note\">Each "
              "file is analysed on its own: its runs, methods, shares and operator types are "
              "never merged with another file's (prefill and decode stay apart). Below, each "
              "file's full report, exactly as <code>etprof report FILE</code> writes it.</p>\n"
              "<table><thead><tr><th>file</th><th>path</th><th>method</th><th>runs</th>"
              "<th>latency p50</th><th>latency p90</th><th>unit</th></tr></thead><tbody>\n");
        for (size_t i = 0; i < n; i++) {
            R.r = ops[i];
            for (size_t mi = 0; mi < etp_ops_method_count(ops[i]); mi++) {
                const etp_ops_method *m = etp_ops_method_get(ops[i], mi);
                S(&R, "<tr><td class=\"name\">");
                E(&R, labels[i]);
                S(&R, "</td><td class=\"name\">");
                E(&R, sources ? sources[i] : "");
                S(&R, "</td><td class=\"name\">");
                E(&R, method_name(m));
                P(&R, "</td><td class=\"num\">%u</td><td class=\"num\">%s</td>", m->runs,
                  fv(&R, m->unit, m->latency.p50));
                P(&R, "<td class=\"num\">%s</td><td>%s</td></tr>\n",
                  fv(&R, m->unit, m->latency.p90), du(&R, m->unit));
            }
        }
        S(&R, "</tbody></table>\n</section>\n");
        for (size_t i = 0; i < n; i++) {
            P(&R, "<section id=\"file-%zu\"><h2>", i + 1);
            E(&R, labels[i]);
            S(&R, "</h2>\n<iframe class=\"file\" title=\"");
            E(&R, labels[i]);
            S(&R, "\" srcdoc=\"");
            esc_n(R.f, inner[i], inner_len[i]);
            S(&R, "\"></iframe>\n</section>\n");
        }
        S(&R, "</main>\n<footer>etprof " ETPROF_VERSION "</footer>\n</body>\n</html>\n");
        if (fflush(f) != 0 || ferror(f)) {
            etp_error_set(err, ETP_E_IO, NULL, -1, NULL, "write failed");
            rc = ETP_E_IO;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (inner) free(inner[i]);
        if (ops) etp_ops_free(ops[i]);
    }
    free(inner);
    free(inner_len);
    free(ops);
    rep_free(&R);
    return rc;
}
