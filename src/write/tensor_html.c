/* tensor_html.c - the HTML page of etprof compare --html: a per-op SNR chart and the table
 * (include/etprof_tensor.h). */
#include "etprof_result.h"
#include "etprof_tensor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void esc(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

int etp_cmp_write_html(const etp_cmp_result *r, FILE *f, const etp_cmp_html_opts *o) {
    etp_cmp_html_opts dflt = {NULL, NULL, NAN, NULL};
    if (!o) o = &dflt;
    size_t n = etp_cmp_row_count(r), nm = 0;
    double lo = 0, hi = 10;
    for (size_t i = 0; i < n; i++) {
        const etp_cmp_row *x = etp_cmp_row_get(r, i);
        if (x->status != ETP_CMP_MATCHED) continue;
        nm++;
        double s = x->cmp.snr_db;
        if (isfinite(s)) {
            if (s > hi) hi = s;
            if (s < lo) lo = s;
        }
    }
    if (isfinite(o->threshold_db)) {
        if (o->threshold_db > hi) hi = o->threshold_db;
        if (o->threshold_db < lo) lo = o->threshold_db;
    }
    hi = ceil(hi / 10) * 10;
    lo = floor(lo / 10) * 10;
    int64_t first = etp_cmp_first_below(r, INFINITY);
    uint64_t matched = 0, only_b = 0, only_n = 0;
    etp_cmp_counts(r, &matched, &only_b, &only_n);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>etprof compare</title>\n<style>"
          "body{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,Arial,sans-serif;"
          "margin:24px;color:#1d2733}h1{font-size:20px}p.m{color:#5b6675}"
          "svg.chart{display:block;width:100%;max-width:960px;height:auto;margin:6px 0}"
          "svg text{font-size:11px;fill:#5b6675}table{border-collapse:collapse;font-size:12px}"
          "td,th{border-bottom:1px solid #dde3ea;padding:2px 8px;text-align:left}"
          "</style>\n</head>\n<body>\n<h1>Numeric comparison: SNR per tensor</h1>\n<p class=\"m\">",
          f);
    fputs("base ", f);
    esc(f, o->base_name ? o->base_name : "-");
    fputs(", new ", f);
    esc(f, o->new_name ? o->new_name : "-");
    fprintf(f, "; matched by %s: %llu matched, %llu only in base, %llu only in new</p>\n",
            etp_cmp_match_name(etp_cmp_matching(r)), (unsigned long long)matched,
            (unsigned long long)only_b, (unsigned long long)only_n);
    if (first >= 0) {
        const etp_cmp_row *x = etp_cmp_row_get(r, (size_t)first);
        fprintf(f, "<p>First divergence in execution order: run %u, instruction %d", etp_run_number(x->run),
                (int)x->instruction_id);
        if (x->op_base) {
            fputs(", ", f);
            esc(f, x->op_base);
        }
        fprintf(f, " (SNR %.2f dB).</p>\n", x->cmp.snr_db);
    } else {
        fputs("<p>Every matched tensor is identical.</p>\n", f);
    }
    /* the chart: 960 x 300, plot area x 50..950, y 20..260 */
    const double x0 = 50, x1 = 950, y0 = 20, y1 = 260;
    double bw = nm ? (x1 - x0) / (double)nm : 0;
#define Y(v) (y1 - ((v) - lo) / (hi - lo) * (y1 - y0))
    fputs("<svg class=\"chart\" viewBox=\"0 0 960 300\" width=\"960\" height=\"300\" role=\"img\" "
          "aria-label=\"SNR in dB per matched tensor, in execution order\">\n"
          "<defs><pattern id=\"h\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
          "<path d=\"M0 6L6 0\" stroke=\"#7fb07f\" stroke-width=\"1\"/></pattern></defs>\n", f);
    for (double t = lo; t <= hi + 1e-9; t += (hi - lo) / 5) {
        fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eef1f4\"/>"
                   "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n",
                x0, x1, Y(t), Y(t), x0 - 4, Y(t) + 4, t);
    }
    fprintf(f, "<text x=\"12\" y=\"14\">SNR (dB)</text>\n");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const etp_cmp_row *x = etp_cmp_row_get(r, i);
        if (x->status != ETP_CMP_MATCHED) continue;
        double s = x->cmp.snr_db, xl = x0 + bw * (double)k++;
        const char *fill;
        double top;
        if (isinf(s) && s > 0) {
            fill = "url(#h)";
            top = y0;
        } else if (isnan(s)) {
            continue; /* the base is all zeros: no SNR */
        } else {
            top = Y(s < lo ? lo : s);
            bool bad = (int64_t)i == first && !isfinite(o->threshold_db);
            if (isfinite(o->threshold_db) && s < o->threshold_db) bad = true;
            fill = bad ? "#d64545" : "#4a7fc1";
        }
        double zero = Y(lo < 0 && 0 < hi ? 0 : lo);
        double ya = top < zero ? top : zero, h = fabs(zero - top);
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
                   "<title>run %u, instruction %d",
                xl, ya, bw > 1.5 ? bw - 1 : bw, h, fill, etp_run_number(x->run), (int)x->instruction_id);
        if (x->op_base) {
            fputs(", ", f);
            esc(f, x->op_base);
        }
        if (isinf(s)) fputs(": identical (SNR inf)", f);
        else fprintf(f, ": SNR %.2f dB, max |diff| %g", s, x->cmp.max_abs);
        fputs("</title></rect>\n", f);
    }
    if (isfinite(o->threshold_db))
        fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d64545\" "
                   "stroke-dasharray=\"5 4\"/><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">"
                   "threshold %g dB</text>\n",
                x0, x1, Y(o->threshold_db), Y(o->threshold_db), x1, Y(o->threshold_db) - 4,
                o->threshold_db);
    fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#5b6675\"/>"
               "<text x=\"%.0f\" y=\"285\">matched tensors in base's execution order (%zu); "
               "hatched: identical</text>\n</svg>\n",
            x0, x1, y1, y1, x0, nm);
#undef Y
    if (o->table) {
        fputs("<h2>Tensors</h2>\n", f);
        if (etp_table_render_html(o->table, f, NULL) == ETP_E_IO) return ETP_E_IO;
    }
    fputs("</body>\n</html>\n", f);
    return ferror(f) ? ETP_E_IO : ETP_OK;
}
