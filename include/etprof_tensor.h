/*
 * etprof_tensor.h - tensors the runtime logged into a debug buffer (debug events with a Tensor
 * value): their element type, shape and strides, their values decoded for every ScalarType of the
 * ETDump schema, and statistics. docs/formats.md "Debug buffer" describes the layout.
 *
 * A debug buffer is a plain byte blob (no header); Tensor.offset is a byte offset into it and the
 * bytes are the tensor's storage, little endian, in the order its strides give (row-major when
 * they are absent). Elements are read through the strides (the Python Inspector ignores them).
 *
 * Ownership: a view borrows the buffer (an etp_blob the caller keeps open) and the dump's vectors;
 * it owns nothing and needs no freeing. Thread safety: views are read-only; any number of
 * threads may read them. Errors: ETP_E_INPUT located in the debug buffer (file = its name, byte
 * offset = the tensor's, path = the event's) when the bytes lie outside it, the rank or the size
 * is beyond the limits, or the type has no defined element layout; never zeros in their place.
 */
#ifndef ETPROF_TENSOR_H
#define ETPROF_TENSOR_H

#include "etprof.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

#define ETP_TENSOR_MAX_RANK 16

/* Element types: the schema's ScalarType codes, etp_scalar_type_name() / etp_scalar_type_size()
 * (etprof.h). */

typedef struct etp_tensor_view {
    int scalar_type;
    uint32_t rank;
    int64_t sizes[ETP_TENSOR_MAX_RANK];
    int64_t strides[ETP_TENSOR_MAX_RANK]; /* in elements; the row-major ones when absent */
    bool strided;        /* the file gave strides that are not row-major */
    int64_t offset;      /* byte offset in the buffer; -1: an empty tensor (no bytes) */
    uint64_t numel;      /* product of sizes (1 for rank 0) */
    uint64_t span_bytes; /* bytes from offset: the larger of numel x element size (what the
                            runtime wrote) and what the strides reach */
    const uint8_t *base; /* buffer + offset (NULL when empty) */
} etp_tensor_view;

/* Whether `buf` can be a debug buffer. A debug buffer has no header, so all that can be told is
 * what it is not: a file that begins with another kind's identifier (an ETDump, a program, a
 * bundled program, a .ptd, a ZIP such as an ETRecord), whose bytes read as tensors would be
 * confident nonsense. ETP_OK, or ETP_E_INPUT naming the kind (file = the buffer's name, offset 0,
 * `path` as given, may be NULL). etp_tensor_view_init() checks it too; a caller checks it once
 * up front to fail before any output. */
int etp_debug_buffer_check(const etp_blob *buf, const char *path, etp_error *err);

/* A view of tensor `t` in `buf` (which must outlive the view). `path` names the event in errors
 * (e.g. "run_data[1].events[5].debug_event.debug_entry.tensor"; may be NULL). */
int etp_tensor_view_init(const etp_tensor *t, const etp_blob *buf, const char *path,
                         etp_tensor_view *v, etp_error *err);
/* Element `i` (0 <= i < numel, row-major logical order) as a double: integers exactly up to
 * 2^53, HALF/BFLOAT16/FLOAT8 variants expanded exactly, BOOL 0/1, quantized types their
 * stored integer (QUINT4X2/QUINT2X4: the whole byte). NaN outside the tensor. */
double etp_tensor_get(const etp_tensor_view *v, uint64_t i);

typedef struct etp_tensor_stats {
    uint64_t numel, nan, inf, zeros;
    double min, max, mean, std; /* over the finite values (NaN when there are none) */
} etp_tensor_stats;
/* Statistics over every element. Cannot fail. */
void etp_tensor_stats_compute(const etp_tensor_view *v, etp_tensor_stats *out);

/* Writes the tensor as a NumPy .npy file (format 1.0: magic, header dict with descr,
 * fortran_order False and the shape, then the elements in row-major order through the
 * strides). Types NumPy has: their own descr, little endian ('<f2' HALF, '<f4' FLOAT, '|b1' BOOL,
 * '<u2' UINT16/BITS16, '|i1' CHAR/QINT8, '|u1' BYTE/QUINT8/QUINT4X2/QUINT2X4, ...); BFLOAT16 and
 * the FLOAT8 variants, which NumPy lacks, are widened exactly to '<f4'. An empty tensor is a
 * file with no elements. ETP_OK, or ETP_E_IO when a write failed (errno set). */
int etp_tensor_write_npy(const etp_tensor_view *v, FILE *f);

/* ---------------------------------------------------------------------------------------------
 * Numeric comparison of two runs' logged tensors (etprof compare)
 * ------------------------------------------------------------------------------------------- */

typedef struct etp_tensor_cmp {
    uint64_t numel;
    double mse;          /* mean of (a - b)^2 */
    double max_abs;      /* largest |a - b| */
    double l1;           /* mean |a - b| */
    double snr_db;       /* 10 log10(sum a^2 / sum (a - b)^2): +inf when equal, NaN when a is all
                            zeros and b is not */
    double cosine;       /* a.b / (|a| |b|); 1 when both are all zeros, NaN when one is */
    uint64_t nonfinite;  /* elements where either side is NaN/Inf (left out of the figures) */
} etp_tensor_cmp;

/* Compares the elements of two views of the same numel (a is the reference). ETP_OK, or
 * ETP_E_USAGE when the element counts differ. */
int etp_tensor_compare(const etp_tensor_view *a, const etp_tensor_view *b, etp_tensor_cmp *out);

typedef enum etp_cmp_status {
    ETP_CMP_MATCHED = 0,
    ETP_CMP_SHAPE_DIFFERS, /* matched by position, but shapes (element counts) differ */
    ETP_CMP_ONLY_BASE,
    ETP_CMP_ONLY_NEW,
} etp_cmp_status;
const char *etp_cmp_status_name(etp_cmp_status s); /* "matched", "shape differs", ... */

typedef struct etp_cmp_row {
    etp_cmp_status status;
    uint32_t run;            /* index among the runs that logged tensors (0-based) */
    int32_t instruction_id;
    uint32_t occurrence;     /* the k-th value logged by this instruction in the run */
    int32_t list_index;      /* element of a TensorList, -1 */
    bool output;             /* a method output */
    const char *op_base;     /* the operator of the BASE side (with a program), else NULL */
    etp_tensor_view base, new_; /* the views (zeroed on the absent side) */
    etp_tensor_cmp cmp;      /* MATCHED only */
    /* added with etp_cmp_compute_with (zero / NULL / -1 from etp_cmp_compute) */
    int32_t instruction_id_new; /* NEW's instruction (matched and ONLY_NEW rows), -1 */
    const char *op_new;         /* NEW's operator (with its program), else NULL */
    int64_t debug_handle;       /* ETP_CMP_BY_DEBUG_HANDLE: the handle matched on, else -1 */
} etp_cmp_row;

typedef struct etp_cmp_result etp_cmp_result;

/* Matches the logged tensors of two runs of the same program: by run (in order), instruction,
 * occurrence within the instruction and TensorList index, in BASE's execution order, then the
 * ones only in NEW. Models and buffers must outlive the result (views point into the buffers;
 * names into the programs). Errors: a tensor outside its buffer (located, as
 * etp_tensor_view_init), ETP_E_INTERNAL when out of memory. */
int etp_cmp_compute(etp_model *base, const etp_blob *base_buf, etp_model *new_,
                    const etp_blob *new_buf, etp_cmp_result **out, etp_error *err);
void etp_cmp_free(etp_cmp_result *r);
size_t etp_cmp_row_count(const etp_cmp_result *r);
const etp_cmp_row *etp_cmp_row_get(const etp_cmp_result *r, size_t i);
/* How the tensors of two runs are matched (etp_cmp_compute_with). */
typedef enum etp_cmp_match {
    ETP_CMP_BY_INSTRUCTION = 0, /* the same program: run, instruction, occurrence, list index */
    ETP_CMP_BY_DEBUG_HANDLE,    /* different programs with their ETRecords: run, the highest
                                   debug handle of the instruction's nodes (the group's last
                                   node, whose value the instruction outputs), occurrence of that
                                   handle in the run, list index; a tensor whose instruction has
                                   no handle stays unmatched */
    ETP_CMP_BY_OP_ORDER,        /* different programs without ETRecords: per run, in execution
                                   order, the next NEW tensor (at most ETP_CMP_LOOKAHEAD ahead)
                                   with the same operator name (when both sides know it), dtype
                                   and shape */
} etp_cmp_match;
#define ETP_CMP_LOOKAHEAD 256
const char *etp_cmp_match_name(etp_cmp_match m); /* "instruction", "debug handle", "op order" */

struct etp_etrecord;
typedef struct etp_cmp_opts {
    etp_cmp_match match;
    const struct etp_etrecord *base_etrecord, *new_etrecord; /* BY_DEBUG_HANDLE: both needed */
    const char *base_method, *new_method; /* ETRecord map method, NULL: the block's, else
                                             "forward" */
} etp_cmp_opts;

/* etp_cmp_compute with a choice of matching. Method outputs (values flagged as outputs) are
 * matched by their order in the run whatever the matching. ETP_E_USAGE when BY_DEBUG_HANDLE
 * lacks an ETRecord. Otherwise as etp_cmp_compute. */
int etp_cmp_compute_with(etp_model *base, const etp_blob *base_buf, etp_model *new_,
                         const etp_blob *new_buf, const etp_cmp_opts *opts,
                         etp_cmp_result **out, etp_error *err);
etp_cmp_match etp_cmp_matching(const etp_cmp_result *r);
/* Rows by status: matched (incl. shape differs), only in BASE, only in NEW. */
void etp_cmp_counts(const etp_cmp_result *r, uint64_t *matched, uint64_t *only_base,
                    uint64_t *only_new);

/* The comparison as one self-contained HTML page (etprof compare --html FILE): a per-op SNR
 * chart (inline SVG drawn here: one bar per matched tensor in BASE's execution order, height the
 * SNR in dB; identical tensors, SNR +inf, as a full-height hatched bar; the first divergence and
 * the bars below the threshold in red; a dashed line at the threshold) and the comparison table
 * `table` (rendered with etp_table_render_html; may be NULL). No script, no reference to
 * anything outside the file; strings HTML-escaped; same inputs, same bytes. ETP_OK, ETP_E_IO
 * when a write failed. */
struct etp_table;
typedef struct etp_cmp_html_opts {
    const char *base_name, *new_name; /* shown (may be NULL) */
    double threshold_db;              /* --fail-below-snr, NaN when none */
    const struct etp_table *table;
} etp_cmp_html_opts;
int etp_cmp_write_html(const etp_cmp_result *r, FILE *f, const etp_cmp_html_opts *o);

/* The first MATCHED row in BASE's execution order whose SNR is below `snr_db` (pass +inf for
 * "the first that differs at all"); -1 when none. */
int64_t etp_cmp_first_below(const etp_cmp_result *r, double snr_db);

/* ---------------------------------------------------------------------------------------------
 * Selecting logged values (etprof tensors --select EXPR)
 * ------------------------------------------------------------------------------------------- */

/* A selection: every criterion given must hold (AND). EXPR is a comma-separated list of
 *   instr=N | instr=A-B     instruction id N, or A to B inclusive (as in the file: method
 *                            outputs, logged after the method ran, carry instruction 0)
 *   run=N | run=A-B         the N-th run that logged values, counted from 0 (compare's "run")
 *   block=N | block=A-B     the run_data block index (tensors' "block")
 *   op=TEXT                 the operator name contains TEXT (case-sensitive substring)
 *   op==TEXT                the operator name is exactly TEXT
 * The operator name is the program's "name.overload" with "::" written ".", e.g.
 * "aten.add.out" (so op=aten.add, op=add.out and op==aten.add.out all select it); "aten::add"
 * in TEXT is accepted too. Without --pte there is no operator name and an op criterion selects
 * nothing. A value with no criterion (empty EXPR) selects everything. */
#define ETP_SELECT_OP_MAX 256
typedef struct etp_tensor_select {
    bool has_instr, has_run, has_block, has_op, op_exact;
    int64_t instr_lo, instr_hi;  /* inclusive */
    uint32_t run_lo, run_hi;     /* inclusive */
    uint32_t block_lo, block_hi; /* inclusive */
    char op[ETP_SELECT_OP_MAX];  /* normalised ("::" -> ".") */
} etp_tensor_select;

/* Parses EXPR into *out. ETP_OK, or ETP_E_USAGE with a message naming the bad term (err->path
 * is the term, err->offset its character offset in EXPR). */
int etp_tensor_select_parse(const char *expr, etp_tensor_select *out, etp_error *err);
/* Whether a value logged by instruction `instr` in block `block` (the run-th run with values)
 * by operator `op_name`/`op_overload` (NULL without a program) is selected. */
bool etp_tensor_select_match(const etp_tensor_select *s, uint32_t block, uint32_t run,
                             int32_t instr, const char *op_name, const char *op_overload);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_TENSOR_H */
