/*
 * etprof_result.h - one result model for every etprof output (issue 11.2).
 *
 * An analysis fills an etp_doc once; etp_doc_render() writes it in any of the six formats
 * (docs/output-formats.md, docs/result-model.md). The document has
 *
 *  - an envelope: schema_version, file, program (the JSON object's first members, written by
 *    the renderer only: no command writes them itself);
 *  - a tree of facts for the JSON view: the root object's members after the envelope, each a
 *    typed value (int, uint, float, string, bool, null), a nested object (a fact group), an
 *    array, or a table (an array of row objects);
 *  - notes (JSON: the "notes" array, placed with etp_doc_notes_here(), else last);
 *  - ordered sections for the text views (table, md): each a list of blocks, prose (optionally
 *    wrapped to the terminal) and tables;
 *  - tables with typed columns (key, header, unit, type, nullable, precision) and typed cells.
 *    A table is shown in the text views when added to a section, in csv/tsv/jsonl when marked
 *    with etp_doc_flat() (these formats write one table), and in JSON when attached to a node.
 *
 * Ownership and lifetime: the document owns everything added to it; every string given is
 * copied, so the caller's buffers may go right after the call. Nodes, tables and sections
 * returned by the builders belong to the document and live until etp_doc_free().
 *
 * Errors: builders never fail loudly. Running out of memory or misuse (a cell past the last
 * column, a keyed member in an array) sets a sticky error on the document, after which the
 * builders do nothing; etp_doc_render() then returns ETP_E_INTERNAL without writing. NULL
 * node/table/section arguments are ignored (so a failed builder's NULL result is harmless).
 *
 * Threads: a document is used by one thread at a time; distinct documents are independent.
 */
#ifndef ETPROF_RESULT_H
#define ETPROF_RESULT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etprof.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

/* Output formats (docs/output-formats.md). */
typedef enum { ETP_FMT_TABLE, ETP_FMT_CSV, ETP_FMT_TSV, ETP_FMT_JSON, ETP_FMT_JSONL, ETP_FMT_MD } etp_format;
/* "table", "csv", "tsv", "json", "jsonl", "md" -> the format: 0, or ETP_E_USAGE (unknown name,
 * *fmt untouched). etp_format_name() is the inverse ("?" for a value out of range). */
int etp_format_parse(const char *name, etp_format *fmt);
const char *etp_format_name(etp_format fmt);
/* Value and column types. */
typedef enum { ETP_T_STR, ETP_T_INT, ETP_T_UINT, ETP_T_FLOAT, ETP_T_BOOL, ETP_T_NULL } etp_type;

typedef struct etp_col {
    const char *key;    /* JSON key and csv/tsv header */
    const char *header; /* table/md header (NULL: the key) */
    const char *unit;   /* NULL: none; else shown in table/md headers as "header (unit)" */
    etp_type type;      /* numeric columns are right-aligned in table and md */
    bool nullable;      /* the column may hold null cells (documentation; JSON writes null) */
    int precision;      /* digits after the point of float cells in table/md/csv/tsv; <0 shortest */
} etp_col;

typedef struct etp_doc etp_doc;
typedef struct etp_node etp_node;
typedef struct etp_table etp_table;
typedef struct etp_section etp_section;

/* A new document for `command` with the envelope's values (file, program: NULL writes null).
 * schema_version < 0 leaves the envelope out of the JSON view altogether. NULL when out of
 * memory. */
etp_doc *etp_doc_new(const char *command, int schema_version, const char *file, const char *program);
void etp_doc_free(etp_doc *d); /* NULL is allowed */
const char *etp_doc_command(const etp_doc *d);
bool etp_doc_ok(const etp_doc *d); /* false after an error (out of memory, misuse) */

/* ---- facts: the JSON view ---- */
etp_node *etp_doc_root(etp_doc *d);
/* Members of an object take a key; members of an array take key NULL. */
void etp_node_int(etp_node *n, const char *key, int64_t v);
void etp_node_uint(etp_node *n, const char *key, uint64_t v);
void etp_node_float(etp_node *n, const char *key, double v); /* NaN, inf: null */
void etp_node_str(etp_node *n, const char *key, const char *s); /* NULL: null */
void etp_node_bool(etp_node *n, const char *key, bool v);
void etp_node_null(etp_node *n, const char *key);
etp_node *etp_node_obj(etp_node *n, const char *key); /* a nested object (a fact group) */
etp_node *etp_node_arr(etp_node *n, const char *key); /* a nested array */
/* The table's rows as an array of objects (one member per column, absent cells null) here. */
void etp_node_table(etp_node *n, const char *key, etp_table *t);
/* The JSON "notes" array goes here (at the current end of the root), not last. */
void etp_doc_notes_here(etp_doc *d);
void etp_doc_note(etp_doc *d, const char *text);
/* -- compact members (explain) -- */
/* The JSON view writes this object or array on one line (no indentation or spaces), also
 * inside the indented document: its 0.1.0 shape (explain's "facts"). */
void etp_node_compact(etp_node *n);

/* ---- tables ---- */
/* The columns are copied. NULL on error. */
etp_table *etp_doc_table(etp_doc *d, const etp_col *cols, size_t ncols);
void etp_table_row(etp_table *t); /* starts a row; cells follow in column order */
void etp_table_str(etp_table *t, const char *s); /* NULL: null */
void etp_table_int(etp_table *t, int64_t v);
void etp_table_uint(etp_table *t, uint64_t v);
void etp_table_float(etp_table *t, double v); /* NaN: null */
/* A float cell shown with its own number of digits after the point in the text views (table,
 * md, csv, tsv, HTML), not the column's precision: for a column whose digits depend on the value
 * (the HTML report's "1 decimal, 3 below 10"). <0: the shortest text that reads back as v;
 * more than 30: 30. JSON writes the value. NaN: null. */
void etp_table_float_prec(etp_table *t, double v, int precision);
void etp_table_bool(etp_table *t, bool v);
void etp_table_null(etp_table *t);
/* A note shown under the table (table, md) or as the table's "notes" (when it is a whole JSON
 * document's table: not used by the node view). */
void etp_table_note(etp_table *t, const char *text);
/* Table format past the width: columns to leave out first ("key:rank", NULL-terminated; see
 * docs/output-formats.md). Copied. */
void etp_table_droppable(etp_table *t, const char *const *key_ranks);
size_t etp_table_rows(const etp_table *t);
size_t etp_table_cols(const etp_table *t);
const etp_col *etp_table_col(const etp_table *t, size_t i);
/* The cell's type (ETP_T_NULL when null or absent) and value (a bool cell: *i is 1 or 0); false
 * out of range. */
bool etp_table_cell(const etp_table *t, size_t row, size_t col, etp_type *type, int64_t *i,
                    uint64_t *u, double *f, const char **s);
/* ---- a whole column at once (bindings: the Python package's DataFrames) ----
 * Column `j` of `t` as one typed array: out->type is the column's declared type (ETP_T_STR,
 * INT, UINT, FLOAT, BOOL; ETP_T_NULL: every cell null) and exactly the matching one of
 * i / u / f / b / s points at out->n values, row order; out->valid[r] is false for a null
 * cell, whose value is then 0 (NaN for FLOAT, NULL for STR). Cells of another numeric type
 * are converted to the column's (an INT cell in a FLOAT column: its value as a double; a UINT
 * cell in an INT column: cast); a cell that cannot be (text in a numeric column) is null.
 * Strings point into the table's document (valid until etp_doc_free), NUL-terminated.
 * out->key and out->unit are the column's (unit NULL: none). Everything is in one allocation,
 * out->mem: free(out->mem) when done (NULL for a table of no rows). 0, ETP_E_USAGE (t NULL or
 * j out of range; *out zeroed), ETP_E_INTERNAL (out of memory; *out zeroed). Thread-safe for
 * distinct `out` (the table is only read). */
typedef struct etp_col_data {
    const char *key, *unit;
    etp_type type;
    size_t n, nvalid; /* rows; rows whose cell is not null */
    int64_t *i;
    uint64_t *u;
    double *f;
    bool *b;
    const char **s;
    bool *valid;
    void *mem;
} etp_col_data;
int etp_table_column(const etp_table *t, size_t j, etp_col_data *out);

/* ---- sections: the text views ---- */
etp_section *etp_doc_section(etp_doc *d, const char *key);
/* Prose flags: wrap at the terminal width (continuation lines indented by `indent`), and show
 * names from the input safely (valid UTF-8, control characters as spaces). */
enum { ETP_TEXT_WRAP = 1, ETP_TEXT_SAFE = 2, ETP_TEXT_CELL = 4 };
/* ETP_TEXT_CELL: the text is shown exactly as a table cell is (as ETP_TEXT_SAFE, and line breaks
 * too become spaces): a line of prose that holds names from the input. */
void etp_section_text(etp_section *s, unsigned flags, const char *prefix, size_t indent, const char *text);
void etp_section_textf(etp_section *s, unsigned flags, size_t indent, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void etp_section_table(etp_section *s, etp_table *t);
/* csv, tsv, jsonl write this table (one per document; the last one given wins). */
void etp_doc_flat(etp_doc *d, etp_table *t);

/* -- a default wrap width (diff, explain) -- */
/* Table format: prose flagged ETP_TEXT_WRAP wraps at `width` columns when the render width is 0
 * (unlimited: --wide, or not a terminal). 0 (the default): such prose is not wrapped then. */
void etp_doc_wrap_width(etp_doc *d, int width);
/* -- JSON lines of records with nested values (explain) -- */
/* jsonl writes each element of the array node `arr` (a node of this document) as one compact
 * JSON value per line, instead of the flat table's rows; csv and tsv still write the flat table. */
void etp_doc_jsonl_array(etp_doc *d, etp_node *arr);

/* The document is this one table in every format, with its notes: the shape of the table
 * commands (ops, ...). JSON {schema_version, rows: [...], notes: [...] (only when there are
 * notes)}, without file and program (their 0.1.0 shape); text: the table and its notes;
 * csv/tsv/jsonl: the rows. Facts, sections and the flat table are then not rendered. */
void etp_doc_single_table(etp_doc *d, etp_table *t);

/* ---- partial JSON envelope (qnn) ---- */
/* Which members of the envelope the JSON view writes after "schema_version" (which stays, when
 * schema_version >= 0): ETP_ENV_FILE and/or ETP_ENV_PROGRAM; both by default (etp_doc_new), 0
 * for {schema_version, <facts>} (the shape of commands whose JSON names its inputs itself).
 * Cannot fail; NULL is ignored. */
enum { ETP_ENV_FILE = 1, ETP_ENV_PROGRAM = 2 };
void etp_doc_envelope(etp_doc *d, unsigned members);

/* ---- rendering ---- */
typedef struct etp_render_opts {
    int width;    /* table format: largest line width (0: unlimited, e.g. --wide or not a tty) */
    bool csv_raw; /* csv/tsv: no "'" before text cells that look like formulas (--csv-raw) */
} etp_render_opts;

/* Writes the document in `fmt` to `f` and flushes it. 0, ETP_E_IO (a write failed),
 * ETP_E_INTERNAL (the document had an error, or out of memory), ETP_E_USAGE (fmt unknown).
 * opts NULL: defaults. The document is not changed: render it as often as needed. */
int etp_doc_render(const etp_doc *d, etp_format fmt, FILE *f, const etp_render_opts *opts);

/* ---- JSON layout and safe names (info, tree: issue 11.3) ---- */
/* The envelope's "program" member goes here, at the current end of the root's members, instead
 * of right after "file" (info on an ETDump: its 0.1.0 shape). Once per document. */
void etp_doc_program_here(etp_doc *d);
/* Members left out of the JSON view: ETP_JSON_NO_NOTES, the "notes" array (shapes without one).
 * Flags add up over calls. (Which envelope members are written: etp_doc_envelope.) */
enum { ETP_JSON_NO_NOTES = 2 };
void etp_doc_json_omit(etp_doc *d, unsigned members);
/* A copy of `s` as the table and md formats show a text cell (docs/output-formats.md): valid
 * UTF-8, each invalid byte U+FFFD, control characters (line breaks too) as spaces. For a name
 * from the input inside a command's own prose when only that name, not the whole block
 * (ETP_TEXT_SAFE), is to be shown safely. NULL when `s` is NULL or out of memory; free() it.
 * Thread-safe (reads only its argument). */
char *etp_text_safe(const char *s);

/* ---- HTML: one table as an HTML <table> (the HTML report) ----
 * etp_table_render_html() writes
 *     [<div class="WRAP">]<table [class="CLASS"] [id="ID"]><thead><tr><th>...</th>...</tr></thead>
 *     <tbody><tr><td>...</td>...</tr>...</tbody></table>[</div>][<p class="note">NOTE</p>...]
 * with the cell formatting of the text views: headers "header (unit)" as in table and md,
 * integers in full, float cells with the column's (or the cell's, etp_table_float_prec)
 * precision, bool cells "yes"/"no", null cells `null_text`. Numeric columns (int, uint, float)
 * carry the class `num_class` on their th and td (right-aligned by the page's CSS), their th
 * data-type="num" and each non-null cell its exact value in data-v (the shortest text that
 * reads back as the value, for a sorting script). Every text (headers, cells, notes, the
 * options' id and classes, a hook's cls and title) is HTML-escaped: & < > " ' become character
 * references, C0 control characters (except tab and line feed), DEL and bytes that are not
 * well-formed UTF-8 become U+FFFD. No newline is written inside the table.
 *
 * A cell hook (optional) adds to one cell what the typed table cannot say: a class, a title
 * (tooltip), and markup before the cell's text or instead of it (a bar, a colour swatch, a
 * link). The renderer calls it once per body cell, in order, with *cell zeroed; what it points
 * to must stay valid until the next call. `html` is written AS IS: the hook escapes whatever it
 * puts there that comes from an input. */
typedef struct etp_html_cell {
    const char *cls;   /* a class added to the td's (after num_class and the column's) */
    const char *title; /* a title attribute (escaped) */
    const char *html;  /* markup written inside the td before the cell's text, not escaped */
    bool replace;      /* html is the whole content: the cell's text is not written */
} etp_html_cell;
typedef void (*etp_html_cell_fn)(void *ctx, const etp_table *t, size_t row, size_t col,
                                 etp_html_cell *cell);
typedef struct etp_html_opts {
    const char *id;                /* the table's id attribute (NULL: none) */
    const char *table_class;       /* its class, e.g. "sortable" (NULL: none) */
    const char *wrap_class;        /* a <div class="..."> around the table (NULL: no div) */
    const char *num_class;         /* class of the numeric columns' th and td (NULL: "n") */
    const char *null_text;         /* text of null cells (NULL: an en dash, U+2013) */
    const char *const *col_class;  /* NULL, or one class per column for its td (NULL: none) */
    etp_html_cell_fn cell;         /* NULL: no hook */
    void *ctx;                     /* the hook's first argument */
} etp_html_opts;
/* Writes table `t` as HTML to `f` (not flushed). opts NULL: all defaults. 0, ETP_E_IO (a write
 * to f failed), ETP_E_INTERNAL (the table's document had an error: nothing written),
 * ETP_E_USAGE (t or f NULL). The table is not changed; like etp_doc_render(), it reads the
 * document, which one thread uses at a time. */
int etp_table_render_html(const etp_table *t, FILE *f, const etp_html_opts *opts);

/* ---- streaming tables (etp_stream): rows written as they come, nothing kept ----
 * For outputs too large to hold as a document (`etprof events` on a 2 GB dump): the rows of one
 * table go to the FILE as they are given, with the cell formatting, escaping and column layout
 * of etp_doc_render() (csv, tsv, jsonl and json stream each row; table and md keep only the
 * cell text, as the renderer does, to size the columns). The JSON view is
 * {"schema_version": V, "file": F, "<rows_key>": [row objects]} (schema_version < 0: no
 * schema_version and file), jsonl one row object per line.
 *
 * Ownership: the stream copies the columns and strings it is given; it does not own `f` (close
 * writes the end of the output and frees the stream, it does not fclose). Errors: misuse (a
 * cell outside a row or past the last column) is sticky and reported by etp_stream_close();
 * NULL streams are ignored. Threads: one thread at a time per stream. */
typedef struct etp_stream etp_stream;
/* NULL when out of memory or `fmt` unknown. opts as for etp_doc_render (NULL: defaults);
 * rows_key NULL: "rows". */
etp_stream *etp_stream_open(etp_format fmt, FILE *f, const etp_render_opts *opts,
                            const etp_col *cols, size_t ncols, int schema_version,
                            const char *file, const char *rows_key);
/* As etp_table_droppable (table format past the width). Call before the first row. */
void etp_stream_droppable(etp_stream *s, const char *const *key_ranks);
void etp_stream_row(etp_stream *s);     /* starts a row; cells follow in column order */
void etp_stream_row_end(etp_stream *s); /* cells not given are null */
void etp_stream_str(etp_stream *s, const char *v); /* NULL: null */
void etp_stream_int(etp_stream *s, int64_t v);
void etp_stream_uint(etp_stream *s, uint64_t v);
void etp_stream_float(etp_stream *s, double v); /* NaN: null */
void etp_stream_bool(etp_stream *s, bool v);
void etp_stream_null(etp_stream *s);
/* Hands what the stream holds back to the FILE (no fflush); ETP_E_IO when a write to the FILE
 * has failed so far, else 0. For long outputs: call it now and then to stop early. */
int etp_stream_flush(etp_stream *s);
/* ETP_OK, or the error that stopped the stream's rows (the memory budget: the table and md
 * formats keep every row until close, docs/verifier.md "Memory"), copied to `err` (may be NULL):
 * one located line for the caller to print. Such a stream writes nothing at close. */
int etp_stream_error(const etp_stream *s, etp_error *err);
/* Writes the end (json: the closing brackets; table, md: the whole table) and frees the stream.
 * 0, ETP_E_IO (a write failed), ETP_E_INTERNAL (misuse, out of memory). NULL: ETP_E_INTERNAL. */
int etp_stream_close(etp_stream *s);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_RESULT_H */
