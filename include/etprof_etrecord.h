/*
 * etprof_etrecord.h - reading ExecuTorch ETRecords (the ZIP that `generate_etrecord` writes) and
 * joining their exported-program nodes to profiling rows.
 *
 * An ETRecord links the runtime's instruction ids and delegate debug ids to the nodes of the
 * exported program: the node's operator (`aten.mul.Tensor`), name (`aten_mul_tensor`), debug
 * handle, nn.Module hierarchy, source stack trace and output tensor metadata. The format is
 * described in docs/formats.md ("ETRecord").
 *
 * Conventions (as in etprof.h)
 *  - Functions that can fail return 0 (ETP_OK) or a negative ETP_E_* code and fill an etp_error:
 *    the file, the entry (path "entry NAME" or "entry NAME: JSON.PATH") and the reason. Offsets
 *    are -1: entries may be compressed, so no file offset names a byte of their JSON.
 *  - etp_etrecord_open() verifies every entry it reads before returning; afterwards every
 *    accessor is total.
 *  - Only the central directory and the JSON entries that are needed are read, one at a time,
 *    through libzip, with bounded buffers: nothing is extracted to disk and the archive is never
 *    held in memory. The torch.save pickles (`*_state_dict`, `*_constants`, `*_example_inputs`,
 *    `reference_outputs`, `representative_inputs`) are never read; they are listed as skipped.
 *
 * Ownership and lifetime
 *  - The etp_etrecord owns everything its accessors return (copies: the file may be closed and
 *    changed after open). Pointers stay valid until etp_etrecord_close().
 *  - etp_etr_join results own their strings and arrays; release them with
 *    etp_etrecord_join_free(). The node pointers in a join point into the record.
 *
 * Threads
 *  - An opened record is never modified by its accessors or by etp_etrecord_join(): it may be
 *    read from several threads at once. open and close are not concurrent with anything else on
 *    the same record.
 */
#ifndef ETPROF_ETRECORD_H
#define ETPROF_ETRECORD_H

#include "etprof.h"
#include "etprof_result.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

/* Limits (defaults; etp_etrecord_opts may lower or raise them). A record over a limit is
 * rejected with ETP_E_INPUT naming the limit. */
#define ETP_ETR_MAX_ENTRIES 65536u                 /* entries in the central directory */
#define ETP_ETR_MAX_JSON_BYTES ((uint64_t)1 << 30) /* uncompressed size of one JSON entry */
#define ETP_ETR_MAX_DEPTH 128u                     /* JSON nesting depth */

typedef struct etp_etrecord_opts {
    uint32_t max_entries;    /* 0: ETP_ETR_MAX_ENTRIES */
    uint64_t max_json_bytes; /* 0: ETP_ETR_MAX_JSON_BYTES */
    uint32_t max_depth;      /* 0: ETP_ETR_MAX_DEPTH */
} etp_etrecord_opts;

void etp_etrecord_opts_init(etp_etrecord_opts *o);

/* What an entry is, from its name (docs/formats.md, "ETRecord"). */
typedef enum etp_etr_kind {
    ETP_ETR_OTHER = 0,       /* unknown name: not read, listed as skipped */
    ETP_ETR_MARKER,          /* ETRECORD_V0 (required) */
    ETP_ETR_DEBUG_HANDLE_MAP,
    ETP_ETR_DELEGATE_MAP,
    ETP_ETR_NUM_OUTS_MAP,    /* instruction_id_to_num_outs_map */
    ETP_ETR_GRAPH_ID,        /* export_graph_id: not read (a Python id(), of no use) */
    ETP_ETR_EDGE_PROGRAM,    /* edge_dialect_exported_program/<method>, or the old single name */
    ETP_ETR_ATEN_PROGRAM,    /* exported_program, or the old aten_dialect_output/<method> */
    ETP_ETR_GRAPH_MAP,       /* <module>/<method>: a graph_map extra */
    ETP_ETR_PICKLE,          /* a torch.save archive: skipped, never read */
} etp_etr_kind;

/* "other", "marker", "debug_handle_map", "delegate_map", "num_outs_map", "export_graph_id",
 * "edge_program", "aten_program", "graph_map", "pickle" */
const char *etp_etr_kind_name(etp_etr_kind k);

typedef struct etp_etr_entry {
    const char *name;
    etp_etr_kind kind;
    uint64_t size;            /* uncompressed bytes, as the central directory claims */
    uint64_t compressed_size; /* bytes in the file */
    const char *compression;  /* "stored", "deflate" or "other" */
    bool read;                /* read and decoded (JSON entries); false: skipped */
} etp_etr_entry;

/* One entry of nn_module_stack: `key,fqn,type`, split with bracket awareness. */
typedef struct etp_etr_module {
    const char *key;  /* e.g. "L__self___conv1" */
    const char *fqn;  /* the module path, e.g. "layers.0.attention" ("" for the root) */
    const char *type; /* the class, e.g. "torch.nn.modules.conv.Conv2d" */
} etp_etr_module;

/* One node of an exported program's graph (`graph_module.graph.nodes[i]`). */
typedef struct etp_etr_node {
    uint32_t index;           /* position in the graph */
    const char *name;         /* its output's name ("aten_mul_tensor"); "" when it has none */
    const char *target;       /* as written ("executorch.exir.dialects.edge.ops.aten.mul.Tensor") */
    const char *op;           /* target without the edge/torch.ops prefix ("aten.mul.Tensor") */
    int64_t debug_handle;     /* metadata.debug_handle, -1 when absent */
    const char *stack_trace;  /* metadata.stack_trace (Python traceback text), NULL if absent */
    const char *source_fn_stack; /* metadata.source_fn_stack as written, NULL if absent */
    uint32_t n_modules;       /* nn_module_stack, outermost first */
    const etp_etr_module *modules;
    /* metadata of its (first) output tensor, from graph.tensor_values */
    int32_t dtype;            /* torch serde ScalarType number (7 = float32), -1 when unknown */
    int32_t ndim;             /* -1 when unknown */
    const int64_t *sizes;     /* ndim values; -1 for a symbolic size */
} etp_etr_node;

typedef struct etp_etr_program {
    const char *entry;        /* the entry name */
    etp_etr_kind kind;        /* EDGE_PROGRAM, ATEN_PROGRAM or GRAPH_MAP */
    const char *method;       /* the method ("forward" for the old single-method edge entry) */
    uint32_t n_nodes;
    const etp_etr_node *nodes; /* in graph order */
    uint32_t n_handled;       /* nodes with a debug handle */
} etp_etr_program;

typedef struct etp_etrecord etp_etrecord;

/* Opens and reads the record at `path` (a regular file; libzip reads it by seeking). `opts`
 * may be NULL. ETP_E_IO when it cannot be opened; ETP_E_INPUT when it is not a ZIP, is damaged,
 * exceeds a limit, has no ETRECORD_V0, or a JSON entry is malformed or not as documented. */
int etp_etrecord_open(etp_etrecord **out, const char *path, const etp_etrecord_opts *opts,
                      etp_error *err);
void etp_etrecord_close(etp_etrecord *r); /* NULL is allowed */

/* The file name as given to open. */
const char *etp_etrecord_path(const etp_etrecord *r);

uint32_t etp_etrecord_entry_count(const etp_etrecord *r);
const etp_etr_entry *etp_etrecord_entry(const etp_etrecord *r, uint32_t i);
/* Entries not read: pickles, export_graph_id and unknown names. */
uint32_t etp_etrecord_skipped_count(const etp_etrecord *r);

uint32_t etp_etrecord_program_count(const etp_etrecord *r);
const etp_etr_program *etp_etrecord_program(const etp_etrecord *r, uint32_t i);
/* The edge program of `method` (NULL: "forward"): edge_dialect_exported_program/<method>, else
 * the old single-method entry; NULL when the record has none. */
const etp_etr_program *etp_etrecord_edge_program(const etp_etrecord *r, const char *method);

/* Lookups in a program. by_name matches the node name exactly; by_handle fills up to `cap`
 * node pointers (graph order) and returns how many nodes carry the handle. */
const etp_etr_node *etp_etrecord_node_by_name(const etp_etr_program *p, const char *name);
uint32_t etp_etrecord_nodes_by_handle(const etp_etr_program *p, int64_t handle,
                                      const etp_etr_node **out, uint32_t cap);

/* The maps, per method. Methods that have a debug_handle_map / delegate_map entry: */
uint32_t etp_etrecord_map_method_count(const etp_etrecord *r);
const char *etp_etrecord_map_method(const etp_etrecord *r, uint32_t i);
/* debug_handle_map[method][instr]: false when absent. `*h` lives as long as the record. */
bool etp_etrecord_instr_handles(const etp_etrecord *r, const char *method, int64_t instr,
                                const int64_t **h, uint32_t *n);
/* delegate_map[method][instr]: the backend name (NULL when absent); with `delegate_id` (the
 * event's delegate_debug_id, as a string) also its handles (false when not mapped). */
const char *etp_etrecord_delegate_backend(const etp_etrecord *r, const char *method,
                                          int64_t instr);
bool etp_etrecord_delegate_handles(const etp_etrecord *r, const char *method, int64_t instr,
                                   const char *delegate_id, const int64_t **h, uint32_t *n);
/* instruction_id_to_num_outs_map[method][instr], or -1. */
int64_t etp_etrecord_num_outs(const etp_etrecord *r, const char *method, int64_t instr);

/* ---- The join: an ops row (instruction, optional delegate id) to source ---- */

typedef enum etp_etr_via {
    ETP_ETR_VIA_NONE = 0,   /* nothing matched (see `why`) */
    ETP_ETR_VIA_HANDLES,    /* debug_handle_map[method][instr] */
    ETP_ETR_VIA_DELEGATE,   /* delegate_map[method][instr].delegate_map[delegate_id] */
    ETP_ETR_VIA_NAME,       /* a QNN HTP node name = an edge node name + QNN suffixes */
} etp_etr_via;

typedef struct etp_etr_join {
    etp_etr_via via;
    const char *why;         /* static text when via is NONE ("no debug_handle_map entry for
                                method forward, instruction 3"...), else NULL */
    uint32_t n_handles;
    int64_t *handles;        /* the debug handles, as the map lists them */
    uint32_t n_nodes;
    const etp_etr_node **nodes; /* the program's nodes with those handles, graph order, distinct */
    const char *backend;     /* delegate_map name, NULL when none */
    char *op_types;          /* distinct node ops in node order, joined with ", " ("" if none) */
    const char *module;      /* the innermost nn.Module that every node with a module stack
                                lies in: the last entry of module_stack ("" = the root module),
                                NULL when no node has a stack or they share no module */
    const char *module_class;/* its class */
    char *frame;             /* innermost user frame of the first node with a stack trace:
                                "FILE:LINE" (the last `File "...", line N` of the trace), NULL */
    const char *stack_trace; /* that node's full trace, NULL when none */
    /* The longest common prefix of the nodes' nn_module_stacks (outermost first; nodes without
     * a stack are left out): a single node's whole stack; a DELEGATE_CALL lowering nodes of
     * several modules: down to their closest common ancestor. Points into the record. */
    uint32_t n_module_stack;
    const etp_etr_module *module_stack;
} etp_etr_join;

/* Joins instruction `instr` of `method` (NULL: "forward") to the nodes of the method's edge
 * program: through debug_handle_map, or for an event inside a delegate (`delegate_id` not NULL,
 * the delegate_debug_id as text) through delegate_map. Always fills `out` (via NONE with `why`
 * when nothing matched); ETP_E_INTERNAL only when out of memory. Release with
 * etp_etrecord_join_free(). */
int etp_etrecord_join(const etp_etrecord *r, const char *method, int64_t instr,
                      const char *delegate_id, etp_etr_join *out);
/* Joins a QNN HTP node name ("aten_convolution_default_28_h_7:OpId_1954") by name: the part
 * before ':' with QNN's suffixes ("_h_<n>", "_<n>" added by QNN lowering) removed step by step
 * until it equals an edge-program node name. via NAME when matched. */
int etp_etrecord_join_name(const etp_etrecord *r, const char *method, const char *qnn_name,
                           etp_etr_join *out);
void etp_etrecord_join_free(etp_etr_join *j);

/* The join of one profiling row (etprof.h etp_ops_row), the one rule every command uses:
 * framework rows and rows without an instruction are not joined (as the Inspector); QNN HTP
 * node rows by name (etp_etrecord_join_name); other delegate-internal rows through delegate_map
 * with their name as the delegate debug id; every other row through debug_handle_map.
 * etp_etrecord_row_joinable() says whether a row is joined at all. `method` is the row's method
 * name (NULL: "forward"). Fills `out` as etp_etrecord_join() (via NONE with `why` for a row that
 * is not joinable); ETP_E_INTERNAL only when out of memory. */
bool etp_etrecord_row_joinable(const etp_ops_row *row);
int etp_etrecord_join_row(const etp_etrecord *r, const char *method, const etp_ops_row *row,
                          etp_etr_join *out);
/* The same rule for one event of a block (etp_block_view): an instruction event (kernel,
 * OPERATOR_CALL, DELEGATE_CALL, delegate-internal) with chain and instruction; its identity
 * (etp_mevent.label) is what an ops row's name is. For the trace's args. */
bool etp_etrecord_event_joinable(const etp_mevent *e);
int etp_etrecord_join_event(const etp_etrecord *r, const char *method, const etp_mevent *e,
                            etp_etr_join *out);

/* ---- the ETRecord's columns in result documents (ops, tree, summary, explain) ----
 * The join of one ops row (etp_etrecord_join_row) as cells, written by every view from this one
 * definition. `rec` NULL or a row that does not join: every cell absent. Counts (optional) are
 * what etp_etrecord_notes() reports. Reentrant; the record is only read. */
typedef struct etp_etr_counts {
    uint64_t rows, matched, htp_rows, htp_matched; /* joinable rows tried / joined; HTP nodes */
} etp_etr_counts;
#define ETP_ETR_MAX_COLS 6
/* Columns op_types, module, module_class, stack_trace (+ stack_trace_full, debug_handles when
 * `machine`: the csv/tsv/json formats) appended at cols[n]; returns the new count. */
size_t etp_etrecord_cols(etp_col *cols, size_t n, bool machine);
/* The cells of one row as strings (NULL: absent), in etp_etrecord_cols order: v[0..5]; returns
 * how many (4, or 6 when `machine`). The strings live in `j` and `*hbuf` (the handles joined
 * with ","): release with etp_etrecord_join_free(j) and free(*hbuf). */
size_t etp_etrecord_row_cells(const etp_etrecord *rec, const char *method, const etp_ops_row *row,
                              bool machine, etp_etr_counts *st, etp_etr_join *j, const char *v[6],
                              char **hbuf);
/* The same cells appended to the current row of table `t`. */
void etp_etrecord_table_cells(etp_table *t, const etp_etrecord *rec, const char *method,
                              const etp_ops_row *row, bool machine, etp_etr_counts *st);
/* The machine formats' six cells as members of JSON object `n` (tree). */
void etp_etrecord_node_cells(etp_node *n, const etp_etrecord *rec, const char *method,
                             const etp_ops_row *row, etp_etr_counts *st);
/* "module PATH (CLASS), source FILE:LINE" of one row for prose (explain); NULL when the record
 * names neither (or out of memory). The caller frees it. */
char *etp_etrecord_where(const etp_etrecord *rec, const char *method, const etp_ops_row *row,
                         etp_etr_counts *st);
/* An ETRecord that joins none of the rows it could join (no instruction row, no HTP node) is
 * from another program: one WARNING line naming the record and the counts into buf; "" when it
 * joins any row or there is nothing to join. Returns the length snprintf would have written. */
int etp_etrecord_mismatch_note(const etp_etrecord *rec, const etp_etr_counts *st, char *buf,
                               size_t n);
/* The notes: the mismatch WARNING (etp_etrecord_mismatch_note), how many rows joined, HTP nodes
 * matched by name (nothing when rec is NULL). */
void etp_etrecord_notes(const etp_etrecord *rec, const etp_etr_counts *st,
                        void (*emit)(void *ctx, const char *text), void *ctx);
/* Without a record (rec NULL) and with rows a record would name: one note saying what a record
 * would add and how to produce one. */
void etp_etrecord_missing_note(const etp_etrecord *rec, const etp_ops_result *r,
                               void (*emit)(void *ctx, const char *text), void *ctx);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif
