/* out.h - tabular command output in six formats (internal). docs/output-formats.md is the
 * contract for what each format looks like.
 *
 *     static const out_col cols[] = {
 *         {"op", "Operator", OUT_STR, 0},
 *         {"count", "Count", OUT_UINT, 0},
 *         {"ms", "Time (ms)", OUT_FLOAT, 3},
 *     };
 *     out_table *t = out_table_new(fmt, f, cols, 3);
 *     out_row_begin(t);
 *     out_cell_str(t, "conv"); out_cell_uint(t, 12); out_cell_float(t, 1.5);
 *     out_row_end(t);
 *     int rc = out_table_finish(t);
 *     out_table_free(t);
 *
 * Cells are given in column order; cells missing at out_row_end() are absent. A cell is printed
 * according to the function that gave it (the column type only decides alignment); float cells use
 * the column precision in the text formats (precision < 0: shortest round-trip form). Misuse (a
 * cell outside a row, more cells than columns) is not asserted: it is reported by
 * out_table_finish(). csv, tsv, json and jsonl stream rows to the FILE as they come; table and md
 * keep them until out_table_finish().
 */
#ifndef ETPROF_OUT_H
#define ETPROF_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jw.h"

typedef enum { OUT_TABLE, OUT_CSV, OUT_TSV, OUT_JSON, OUT_JSONL, OUT_MD } out_format;
typedef enum { OUT_STR, OUT_INT, OUT_UINT, OUT_FLOAT, OUT_BOOL } out_type;

typedef struct {
    const char *key;    /* JSON key and csv/tsv header; must stay valid while the table lives */
    const char *header; /* table/md header (NULL: use key) */
    out_type type;      /* OUT_INT/UINT/FLOAT columns are right-aligned in table and md */
    int precision;      /* digits after the point for float cells in table/md/csv/tsv */
} out_col;

typedef struct out_table out_table;

/* Parses "table", "csv", "tsv", "json", "jsonl", "md". Returns 0 or ETP_E_USAGE. */
int out_format_parse(const char *s, out_format *f);
const char *out_format_name(out_format f);

/* Returns NULL when out of memory or `fmt` is not an out_format. `cols` must outlive the table. */
out_table *out_table_new(out_format fmt, FILE *f, const out_col *cols, size_t ncols);
/* The rows become one JSON array value in `w`, e.g. right after jw_key(w, "ops"); the array is
 * closed by out_table_finish(). Notes are ignored (the caller owns the surrounding object). */
out_table *out_table_new_in_json(jw *w, const out_col *cols, size_t ncols);

/* csv/tsv: text cells beginning with '=', '+', '-', '@', TAB or CR get a leading "'" so that a
 * spreadsheet does not run them as a formula (CSV injection); numeric cells (int, uint, float,
 * bool) never do, so -3 stays a number. `raw` true turns the prefix off (--csv-raw). */
void out_table_set_csv_raw(out_table *t, bool raw);
/* Largest line width of the `table` format (0 = unlimited, the default); see the docs. */
void out_table_set_max_width(out_table *t, int cols);
/* Table format past that width: string columns are first shortened to 28 characters; then the
 * columns named here ("key:rank" pairs, e.g. {"p10:9", "min:8", NULL}; "per_run+unit:2" names
 * columns that go together) are left out, the highest rank first (the rightmost of a tie), and
 * only then are string columns cut further (to 12 at least). A note names the columns left out
 * and how to get them back (--wide, COLUMNS=N with the full width). Unknown keys are ignored. */
void out_table_set_droppable(out_table *t, const char *const *key_ranks);
/* A copy of `s` as the table, md and tsv formats show strings (docs/output-formats.md): valid
 * UTF-8 (each invalid byte becomes U+FFFD) with control characters (C0, DEL, C1) as spaces. For
 * names from the input that a command prints in its own text (headings, explanations, notes)
 * rather than in table cells. NULL when `s` is NULL or out of memory; free() it. */
char *out_text_dup(const char *s);
/* The text of a float cell in the text formats: "%.*f" with '.' as the decimal point
 * (precision < 0: the shortest text that reads back as v), "inf"/"-inf", no "-0.00". Returns b
 * or a constant; cap >= 400 holds any value. */
const char *out_fmt_float(char *b, size_t cap, double v, int precision);

/* Prose of a command's own (headings, explanations, notes outside a table) fitted to the
 * terminal as table notes are: each line of `text` ('\n' separates them) is written wrapped at
 * spaces to `width` columns (code points; 0 = unlimited), the first after `prefix` (NULL: none),
 * the continuation lines indented by `indent` spaces. A word longer than its line (a path) stays
 * whole; below 20 columns of room nothing is wrapped. The text is written as given (names from
 * the input: out_text_dup() first). out_wrapf formats first (printf), with no prefix. */
void out_wrap(FILE *f, int width, const char *prefix, size_t indent, const char *text);
void out_wrapf(FILE *f, int width, size_t indent, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* A note shown after the rows (table, md, json); copied. */
void out_table_note(out_table *t, const char *text);

void out_row_begin(out_table *t);
void out_cell_str(out_table *t, const char *s); /* NULL: absent */
void out_cell_strn(out_table *t, const char *s, size_t len);
void out_cell_int(out_table *t, int64_t v);
void out_cell_uint(out_table *t, uint64_t v);
void out_cell_float(out_table *t, double v); /* NaN: absent */
/* A float cell shown with its own number of digits after the point (<0: shortest), not the
 * column's precision (the text formats; JSON writes the value). */
void out_cell_float_prec(out_table *t, double v, int precision);
void out_cell_bool(out_table *t, bool v);
void out_cell_null(out_table *t);
void out_row_end(out_table *t);

/* Writes what was kept back and flushes the FILE. Returns 0, ETP_E_IO when writing failed, or
 * ETP_E_INTERNAL on misuse or when memory ran out. Call once. */
int out_table_finish(out_table *t);
void out_table_free(out_table *t); /* NULL is allowed */

#endif /* ETPROF_OUT_H */
