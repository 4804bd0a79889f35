/*
 * etprof.h - the public API of libetprof.
 *
 * libetprof reads the profiling artifacts of ExecuTorch (ETDump `.etdp`, programs `.pte`/`.bpte`)
 * and answers questions about them. The `etprof` command and the Python package use this API
 * only (docs/architecture.md). The other public headers, by what a caller does:
 *   open and verify            etprof.h (errors, files, dump, program, model), etprof_io.h
 *   analyze                    etprof.h (ops, census), etprof_runs.h, etprof_figures.h,
 *                              etprof_modules.h, etprof_inspector.h, etprof_backend.h,
 *                              etprof_explain.h
 *   views and rendering        etprof_result.h (etp_doc and its renderer), etprof_tree.h,
 *                              etprof_explain_doc.h, etprof_events.h
 *   QNN and other side files   etprof_qnn.h, etprof_etrecord.h, etprof_arm_pmu.h,
 *                              etprof_bundled.h, etprof_tensor.h
 *
 * Conventions
 *  - Every function that can fail returns an `int` status: 0 (ETP_OK) or a negative ETP_E_* code,
 *    and fills an `etp_error` with the file, byte offset, field path and reason.
 *  - Readers verify a whole file before returning it. After a successful open, every accessor is
 *    total: it cannot read outside the file, whatever the file's bytes were.
 *  - Strings returned by accessors point into the mapped file (zero copy). They are NUL-terminated
 *    (the verifier checks the terminator) and live as long as the object they came from.
 *  - Absent optional values are reported as absent (e.g. `etp_str.ptr == NULL`); absent scalars
 *    carry their schema default.
 *
 * Threads
 *  - The library keeps no global mutable state: every function works on the objects it is given
 *    (comparators get their context as an argument; nothing is cached in statics), so distinct
 *    objects may be used from different threads at the same time.
 *  - An object is used by one thread at a time: etp_dump, etp_program, etp_model and every result
 *    (etp_ops_result, diff, trace, report...) hold caches or scratch that their calls update. A
 *    dump and a program may be read by several models only one after another. The dump reader
 *    may verify in a thread of its own; that is internal, and finished when its open or first
 *    use returns.
 *  - The one process-wide state is the command's output sink's list of temporary files, removed
 *    on SIGINT, SIGTERM and SIGHUP (internal, not in this header; one thread opens sinks).
 */
#ifndef ETPROF_H
#define ETPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Symbol visibility. The library is compiled with -fvisibility=hidden: what a public header
 * declares between ETP_API_BEGIN and ETP_API_END (or marks ETP_API) is exported, nothing else.
 * For a program using the library these change nothing. */
#if defined(__GNUC__) || defined(__clang__)
#define ETP_API __attribute__((visibility("default")))
#define ETP_API_BEGIN _Pragma("GCC visibility push(default)")
#define ETP_API_END _Pragma("GCC visibility pop")
#else
#define ETP_API
#define ETP_API_BEGIN
#define ETP_API_END
#endif

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

/* How every view names a method the files do not name (a dump without a program, or runs no
 * method of the program fits): one label, in every command, format and in Python. */
#define ETP_METHOD_UNKNOWN_LABEL "(method unknown)"

/* How every view numbers runs: 1, 2, ... in file order (per method where runs are per method),
 * from a library result's 0-based run index. The trace's "run N" tracks and --runs A-B, the
 * report, `runs`, `compare`, `check-outputs` and tensor selections (run=N) all use it. */
uint32_t etp_run_number(uint32_t run_index);

/* ---------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------- */

enum {
    ETP_OK = 0,
    ETP_E_INPUT = -1,    /* the input was rejected (corrupt, truncated, wrong kind) -> exit 1 */
    ETP_E_USAGE = -2,    /* the caller asked for something impossible             -> exit 2 */
    ETP_E_IO = -3,       /* open/read/write/mmap failed                           -> exit 3 */
    ETP_E_INTERNAL = -4, /* out of memory or a bug                                -> exit 4 */
};

#define ETP_ERR_FILE_MAX 512
#define ETP_ERR_PATH_MAX 256
#define ETP_ERR_MSG_MAX 256

typedef struct etp_error {
    int code;                     /* ETP_E_* (0 when no error was recorded) */
    char file[ETP_ERR_FILE_MAX];  /* file name as given by the caller, "" if none */
    int64_t offset;               /* byte offset in the file, -1 when not applicable */
    char path[ETP_ERR_PATH_MAX];  /* schema/JSON path of the field, "" when not applicable */
    char msg[ETP_ERR_MSG_MAX];    /* the reason, lower case, no trailing period */
} etp_error;

/* Formats the error as one line without a trailing newline:
 *   "FILE: offset 1234: run_data[3].events[17].profile_event.name: string is not NUL-terminated"
 * Parts that are absent are left out. Returns the length that was (or would have been) written. */
int etp_error_format(const etp_error *err, char *buf, size_t cap);

/* Sets an error (printf-style message). Used by the library and by readers built on it. */
void etp_error_set(etp_error *err, int code, const char *file, int64_t offset, const char *path,
                   const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Maps an ETP_E_* code to the documented process exit code (0..4). */
int etp_exit_code(int code);

/* ---------------------------------------------------------------------------------------------
 * Mapped input files
 * ------------------------------------------------------------------------------------------- */

/* Largest input accepted from a pipe (stdin, "-"): 4 GiB. Regular files are memory-mapped and may
 * be larger. */
#define ETP_STDIN_MAX ((uint64_t)4 << 30)

typedef struct etp_blob {
    const uint8_t *data;
    size_t size;
    char name[ETP_ERR_FILE_MAX]; /* for error messages */
    /* private */
    void *map_base;
    size_t map_size;
    int kind; /* 0 none, 1 mmap, 2 malloc, 3 borrowed */
} etp_blob;

/* Opens a file ("-" = stdin) read-only: mmap for regular files, a bounded read otherwise.
 * Rejects directories and files that cannot be read, with ETP_E_IO. */
int etp_blob_open(etp_blob *blob, const char *path, etp_error *err);
/* Wraps memory owned by the caller (no copy). */
void etp_blob_borrow(etp_blob *blob, const void *data, size_t size, const char *name);
void etp_blob_close(etp_blob *blob);

/* What a file is, from its first bytes (a guess for messages and for choosing a reader; the
 * readers verify). */
typedef enum etp_file_kind {
    ETP_FILE_UNKNOWN = 0,
    ETP_FILE_ETDUMP,  /* ED00, size-prefixed or plain */
    ETP_FILE_PROGRAM, /* ETxx at byte 4: a program (.pte) */
    ETP_FILE_BUNDLED, /* BP08 at byte 4: a bundled program (.bpte) */
    ETP_FILE_ZIP,     /* PK: an ETRecord is a ZIP */
    ETP_FILE_JSON,
    ETP_FILE_EMPTY,
    ETP_FILE_PTD,     /* FTxx at byte 4 (FH01 at byte 8): ExecuTorch named data */
} etp_file_kind;
etp_file_kind etp_sniff_kind(const uint8_t *data, size_t size);

/* What etp_blob_open_expect() checks a pipe or device for before reading the rest of it. */
#define ETP_EXPECT_ANY 0u     /* nothing: etp_blob_open() */
#define ETP_EXPECT_DUMP 1u    /* an ETDump: otherwise the error etp_dump_open() would give */
#define ETP_EXPECT_PROGRAM 2u /* a program: otherwise the error etp_program_open() would give */
/* A debug buffer (alone): raw tensor bytes, so nothing to judge a pipe or device by at its
 * start; one larger than the memory budget (docs/verifier.md "Memory", ETPROF_MEMORY_BUDGET)
 * is refused at that byte instead of being read to ETP_STDIN_MAX (`--debug-buffer /dev/zero`). */
#define ETP_EXPECT_DEBUG_BUFFER 4u
/* etp_blob_open() that, for a pipe or device (stdin, /dev/zero: anything a mapping cannot show
 * up front), looks at the first 16 bytes and fails at once with ETP_E_INPUT when they cannot
 * begin a file of the `expect`ed kinds (located at the identifier the reader would check: byte 8
 * for an ETDump, 4 for a program; both kinds: the ETDump's error), instead of
 * reading up to ETP_STDIN_MAX of something else. Regular files are mapped and not checked here
 * (the readers check them). */
int etp_blob_open_expect(etp_blob *blob, const char *path, unsigned expect, etp_error *err);

/* ---------------------------------------------------------------------------------------------
 * ETDump (.etdp)
 * ------------------------------------------------------------------------------------------- */

typedef struct etp_str {
    const char *ptr; /* NULL when the field is absent; else NUL-terminated, `len` bytes */
    uint32_t len;
} etp_str;

/* A little-endian vector inside the file; read elements with etp_vec_i64() etc. */
typedef struct etp_vec {
    const uint8_t *ptr; /* NULL when absent */
    uint32_t len;       /* number of elements */
} etp_vec;

int64_t etp_vec_i64(etp_vec v, uint32_t i);
uint8_t etp_vec_u8(etp_vec v, uint32_t i);
int32_t etp_vec_i32(etp_vec v, uint32_t i);

typedef enum etp_event_type {
    ETP_EVENT_NONE = 0, /* an Event table with none of the three set (tolerated, reported) */
    ETP_EVENT_PROFILE = 1,
    ETP_EVENT_ALLOCATION = 2,
    ETP_EVENT_DEBUG = 3,
} etp_event_type;

typedef struct etp_profile_event {
    etp_str name;                   /* absent on delegate events */
    int32_t chain_index;            /* default 0 */
    int32_t instruction_id;         /* default -1 (field absent). ExecuTorch's runtime writes 0
                                       for method-level events (Method::init, Method::execute,
                                       Program::load_method; chain_index -1): "no instruction"
                                       is chain_index < 0, not instruction_id -1 */
    int32_t delegate_debug_id_int;  /* default -1 */
    etp_str delegate_debug_id_str;  /* absent unless the delegate logged by name */
    etp_vec delegate_debug_metadata;/* bytes; ptr NULL when absent, len 0 when empty */
    uint64_t start_time;            /* default 0 */
    uint64_t end_time;              /* default 0 */
} etp_profile_event;

typedef struct etp_allocation_event {
    int32_t allocator_id;     /* 1-based index into the block's allocators, default 0 */
    uint64_t allocation_size; /* bytes, default 0 */
} etp_allocation_event;

/* Value.val codes */
typedef enum etp_value_type {
    ETP_VAL_NULL = 0,
    ETP_VAL_INT = 1,
    ETP_VAL_BOOL = 2,
    ETP_VAL_FLOAT = 3,
    ETP_VAL_DOUBLE = 4,
    ETP_VAL_TENSOR = 5,
    ETP_VAL_TENSOR_LIST = 6,
    ETP_VAL_STRING = 7,
} etp_value_type;

typedef struct etp_tensor {
    int8_t scalar_type; /* ScalarType code, default 0 (BYTE) */
    etp_vec sizes;      /* i64 elements */
    etp_vec strides;    /* i64 elements */
    int64_t offset;     /* byte offset in the debug buffer, default 0; -1 = empty tensor */
} etp_tensor;

typedef struct etp_value {
    int8_t val; /* etp_value_type, default 0 */
    bool has_tensor, has_tensor_list, has_int, has_float, has_double, has_bool, has_output;
    etp_tensor tensor;
    uint32_t tensor_list_len; /* read elements with etp_value_tensor_list_get() */
    int64_t int_val;
    float float_val;
    double double_val;
    bool bool_val;
    bool output;              /* Value.output.bool_val (only meaningful when has_output) */
    /* private */
    const uint8_t *buf_;
    uint32_t tensor_list_pos_;
} etp_value;

typedef struct etp_debug_event {
    uint64_t chain_index;          /* u64 in the schema; (u64)-1 = unset */
    int32_t instruction_id;        /* default -1; the runtime's program-output events carry 0
                                      (with chain_index (u64)-1) */
    int32_t delegate_debug_id_int; /* default -1 */
    etp_str delegate_debug_id_str;
    etp_str name;
    bool has_debug_entry;
    etp_value debug_entry;
} etp_debug_event;

typedef struct etp_event {
    etp_event_type type;
    /* One member, the one `type` names; they share storage (an event is one kind: the model
     * keeps one per event of a block, docs/verifier.md "Memory"). */
    union {
        etp_profile_event profile;       /* valid when type == ETP_EVENT_PROFILE */
        etp_allocation_event allocation; /* valid when type == ETP_EVENT_ALLOCATION */
        etp_debug_event debug;           /* valid when type == ETP_EVENT_DEBUG */
    };
} etp_event;

typedef struct etp_dump etp_dump;

typedef struct etp_dump_info {
    bool size_prefixed;
    uint32_t version;      /* default 0 */
    uint32_t block_count;
    uint64_t event_count;  /* over all blocks */
    uint64_t profile_count, allocation_count, debug_count, none_count;
} etp_dump_info;

typedef struct etp_block_info {
    etp_str name;
    int32_t bundled_input_index; /* default -1 */
    uint32_t allocator_count;
    uint32_t event_count;
    bool has_events;             /* false when the events vector is absent */
} etp_block_info;

/* Verifies and opens an ETDump held in `blob` (which must outlive the dump). Accepts the
 * size-prefixed form written by ExecuTorch and the plain form (identifier at byte 4). */
int etp_dump_open(etp_dump **out, const etp_blob *blob, etp_error *err);
void etp_dump_close(etp_dump *d);

/* How etp_dump_open_with() verifies. Zero-initialised = etp_dump_open(). */
typedef struct etp_dump_open_opts {
    /* Called after each verified block with (ctx, blocks done, blocks in all); NULL: none.
     * Called from the opening thread (not with `background`). */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    /* For a caller that reads the dump only through a model (etp_model_block()): after the
     * header, root and block vector checks the call returns, and a second thread verifies the
     * blocks in order while the caller works; etp_model_block(b) waits until block b is
     * verified and fails with that block's verification error (the error etp_dump_open() would
     * have given). Until etp_dump_wait_verified() returned ETP_OK, use no other accessor, nor
     * the counts of etp_dump_get_info() (block_count is valid). Buffers below 4 MiB are
     * verified before the call returns. The dump and its model are then used by one thread
     * (the verifier thread is the library's own). */
    bool background;
} etp_dump_open_opts;
int etp_dump_open_with(etp_dump **out, const etp_blob *blob, const etp_dump_open_opts *opts,
                       etp_error *err);
/* Waits for a background verification (etp_dump_open_opts.background) to end: ETP_OK (then the
 * dump is as etp_dump_open() returns it) or the verification error. ETP_OK at once for a dump
 * opened otherwise. Closing the dump without waiting is allowed (the thread is stopped). */
int etp_dump_wait_verified(etp_dump *d, etp_error *err);
/* A dump read from a serial log holding several ETDumps (docs/formats.md "Serial logs"): a
 * one-line note saying so and which one was analysed (the first); NULL otherwise. Lives as long
 * as the dump. */
const char *etp_dump_source_note(const etp_dump *d);
/* The ETDump's size in bytes: the file's, or for a dump read from a serial log or a base64 file
 * (docs/formats.md) the decoded ETDump's; and what it was read from: "etdump" (an ETDump),
 * "arm_runner_log" (the Arm bare-metal runner's serial log), "base64" (a file of base64). */
uint64_t etp_dump_byte_size(const etp_dump *d);
const char *etp_dump_source_kind(const etp_dump *d);
/* The tick rate (etp_model_opts.tick_ns) a dump's host times are read at when the caller was
 * given none: 1 ns per tick (Linux, Android, macOS), or 0, ticks of unknown rate, for a dump read
 * from the Arm bare-metal runner's serial log (docs/formats.md), whose runner counts Cortex-M PMU
 * cycles and calls them ticks at a ratio of 1. `why` (may be NULL) receives the one-line reason
 * for the second case (NULL otherwise); it lives as long as the program. */
double etp_dump_default_tick_ns(const etp_dump *d, const char **why);

const etp_dump_info *etp_dump_get_info(const etp_dump *d);
void etp_dump_block(const etp_dump *d, uint32_t block, etp_block_info *out);
etp_str etp_dump_allocator_name(const etp_dump *d, uint32_t block, uint32_t allocator);
/* Decodes event `index` of block `block` (no allocation; strings point into the file). */
void etp_dump_event(const etp_dump *d, uint32_t block, uint32_t index, etp_event *ev);
/* Element `i` of a TensorList value. */
void etp_value_tensor_list_get(const etp_value *v, uint32_t i, etp_tensor *out);

/* ScalarType helpers: name ("FLOAT"), element size in bytes (0 if unknown). */
const char *etp_scalar_type_name(int code);
int etp_scalar_type_size(int code);

/* ---------------------------------------------------------------------------------------------
 * Program (.pte / .bpte)
 * ------------------------------------------------------------------------------------------- */

typedef enum etp_instr_kind {
    ETP_INSTR_NONE = 0,
    ETP_INSTR_KERNEL = 1,
    ETP_INSTR_DELEGATE = 2,
    ETP_INSTR_MOVE = 3,
    ETP_INSTR_JUMP_FALSE = 4,
    ETP_INSTR_FREE = 5,
} etp_instr_kind;

typedef struct etp_instruction {
    etp_instr_kind kind;
    int32_t index;    /* KernelCall.op_index / DelegateCall.delegate_index; -1 otherwise */
    uint32_t n_args;  /* KernelCall/DelegateCall args count */
    int32_t a, b;     /* MoveCall from/to, JumpFalse cond/destination, Free value_index in a */
} etp_instruction;

typedef struct etp_operator {
    etp_str name;     /* e.g. "aten::convolution" */
    etp_str overload; /* e.g. "out" (may be empty/absent) */
} etp_operator;

typedef struct etp_compile_spec {
    etp_str key;
    etp_vec value; /* bytes */
} etp_compile_spec;

typedef struct etp_delegate {
    etp_str id; /* backend id, e.g. "QnnBackend" */
    uint32_t compile_spec_count;
    int8_t processed_location; /* 0 inline, 1 segment, -1 absent */
    uint32_t processed_index;
} etp_delegate;

typedef struct etp_chain_info {
    uint32_t instruction_count;
    bool has_stacktrace;
} etp_chain_info;

typedef struct etp_frame {
    etp_str filename, name, context;
    int32_t lineno;
} etp_frame;

typedef struct etp_plan_info {
    etp_str name;
    uint32_t input_count, output_count, value_count;
    uint32_t chain_count, operator_count, delegate_count;
} etp_plan_info;

typedef struct etp_program_info {
    bool bundled;            /* the file was a .bpte (BP08) wrapping the program */
    uint32_t version;
    uint32_t plan_count;
    uint32_t segment_count;
    bool has_extended_header;
    uint32_t ext_header_length;
    uint64_t program_size, segment_base_offset, segment_data_size;
    uint32_t bundled_test_suite_count; /* .bpte only */
} etp_program_info;

typedef struct etp_program etp_program;

int etp_program_open(etp_program **out, const etp_blob *blob, etp_error *err);
void etp_program_close(etp_program *p);
const etp_program_info *etp_program_get_info(const etp_program *p);
void etp_program_plan(const etp_program *p, uint32_t plan, etp_plan_info *out);
/* Plan index by name, or -1. */
int etp_program_find_plan(const etp_program *p, const char *name);
void etp_program_chain(const etp_program *p, uint32_t plan, uint32_t chain, etp_chain_info *out);
/* Returns false if (plan, chain, index) is out of range. */
bool etp_program_instruction(const etp_program *p, uint32_t plan, uint32_t chain, uint32_t index,
                             etp_instruction *out);
bool etp_program_operator(const etp_program *p, uint32_t plan, uint32_t op, etp_operator *out);
bool etp_program_delegate(const etp_program *p, uint32_t plan, uint32_t del, etp_delegate *out);
bool etp_program_compile_spec(const etp_program *p, uint32_t plan, uint32_t del, uint32_t i,
                              etp_compile_spec *out);
/* A Tensor value of an execution plan, as the program declares it. */
typedef struct etp_tensor_meta {
    int8_t scalar_type;    /* ScalarType code (BYTE 0, INT 3, FLOAT 6, UINT16 27, ...) */
    int8_t shape_dynamism; /* 0 static, 1 dynamic with upper bounds (sizes), 2 dynamic unbound */
    etp_vec sizes;         /* i32 elements (etp_vec_i32) */
    /* newer programs: the device the tensor lives on (extra_tensor_info device_type and
     * device_index); has_device false when the program does not say (the CPU) */
    bool has_device;
    int8_t device_type;    /* ETP_DEVICE_CPU, ETP_DEVICE_CUDA, or another code as written */
    int8_t device_index;   /* which device of that type; -1 = the default one */
} etp_tensor_meta;
/* Device types of newer programs (ExecuTorch's DeviceType). */
#define ETP_DEVICE_CPU 0
#define ETP_DEVICE_CUDA 1
/* "cpu", "cuda", or NULL for a code etprof does not know. */
const char *etp_device_type_name(int device_type);
/* A planned memory buffer (arena) that a newer program puts on a device other than the CPU
 * (ExecutionPlan.non_const_buffer_device). */
typedef struct etp_buffer_device {
    int32_t buffer;        /* index into the plan's non_const_buffer_sizes (0 is reserved) */
    int8_t device_type;    /* ETP_DEVICE_CUDA, ... */
    int8_t device_index;   /* which device of that type; -1 = the default one */
} etp_buffer_device;
/* The buffers of `plan` not on the CPU, the first `cap` of them into out (which may be NULL when
 * cap is 0). Returns how many the program lists (0: absent, every buffer on the CPU), or -1 when
 * the list is malformed (verified when read, like the values: cannot tell). */
int etp_program_buffer_devices(const etp_program *p, uint32_t plan, etp_buffer_device *out,
                               uint32_t cap);
/* The sentence saying which planned buffers and how many tensors of `plan` are off the CPU
 * (written into buf, NUL-terminated, truncated to n); false (buf empty) when all are on the CPU. */
bool etp_program_device_note(const etp_program *p, uint32_t plan, char *buf, size_t n);
/* The values table and the delegate data are verified when read (not at open): a malformed part
 * reads as "cannot tell", never as an error of the whole program.
 * etp_program_value_tensor: 1 and *out filled when value `value` of `plan` is a Tensor, 0 when it
 * is another kind, -1 when absent or malformed. */
uint32_t etp_program_value_count(const etp_program *p, uint32_t plan);
/* The value index of input `i` of `plan` (ExecutionPlan.inputs[i]); -1 when out of range. */
int64_t etp_program_plan_input(const etp_program *p, uint32_t plan, uint32_t i);
int etp_program_value_tensor(const etp_program *p, uint32_t plan, uint32_t value, etp_tensor_meta *out);
/* The processed blob of delegate `del` of `plan` (inline data or a segment of the file); its bytes
 * stay valid as long as the program's blob. False when absent or out of bounds. */
bool etp_program_delegate_payload(const etp_program *p, uint32_t plan, uint32_t del,
                                  const uint8_t **data, size_t *len);
/* Program.segments[i] (offset from the extended header's segment base, and size, in bytes), read
 * at open. ETP_OK; ETP_E_INPUT with the located reason when its table does not lie in the file
 * (the program still opens: only what uses that segment cannot be read); ETP_E_USAGE when i is
 * not below etp_program_info.segment_count. */
int etp_program_segment(const etp_program *p, uint32_t i, uint64_t *offset, uint64_t *size,
                        etp_error *err);
/* Innermost-last frames of an instruction's stack trace (count 0 when absent). */
uint32_t etp_program_frame_count(const etp_program *p, uint32_t plan, uint32_t chain, uint32_t index);
bool etp_program_frame(const etp_program *p, uint32_t plan, uint32_t chain, uint32_t index,
                       uint32_t frame, etp_frame *out);

const char *etp_instr_kind_name(etp_instr_kind k);

/* ---------------------------------------------------------------------------------------------
 * Model: events classified, paired with their wrappers and linked to the program
 * ------------------------------------------------------------------------------------------- */

typedef enum etp_kind {
    ETP_KIND_NONE = 0,
    ETP_KIND_FRAMEWORK,          /* Method::execute, Method::init, Program::load_method, Method::step */
    ETP_KIND_OPERATOR_CALL,      /* the OPERATOR_CALL wrapper of a kernel instruction */
    ETP_KIND_KERNEL,             /* native_call_<op> or <ns>::<op> inside an OPERATOR_CALL */
    ETP_KIND_DELEGATE_CALL,      /* DELEGATE_CALL */
    ETP_KIND_DELEGATE_INTERNAL,  /* logged by a backend inside a DELEGATE_CALL */
    ETP_KIND_INSTRUCTION,        /* JF_CALL, MOVE_CALL, FREE_CALL */
    ETP_KIND_DEBUG_INTERMEDIATE, /* a logged intermediate value */
    ETP_KIND_DEBUG_OUTPUT,       /* a program output (Value.output = true) */
    ETP_KIND_ALLOCATION,
    ETP_KIND_OTHER,              /* a named scope that fits none of the above */
    ETP_KIND_COUNT_
} etp_kind;

const char *etp_kind_name(etp_kind k); /* "framework", "operator_call", "kernel", ... */
etp_kind etp_kind_parse(const char *s);  /* ETP_KIND_NONE when unknown */

typedef enum etp_unit {
    ETP_UNIT_NONE = 0,
    ETP_UNIT_NS,     /* host time, converted from ticks with the tick rate */
    ETP_UNIT_US,
    ETP_UNIT_TICKS,  /* host ticks of unknown rate (bare-metal cycle counters) */
    ETP_UNIT_CYCLES, /* accelerator cycles (QNN HTP: thread-aggregate) */
    ETP_UNIT_COUNT,
    ETP_UNIT_BYTES,
    ETP_UNIT_RAW,    /* a delegate value whose unit the file does not say */
    ETP_UNIT_COUNT_
} etp_unit;

const char *etp_unit_name(etp_unit u); /* "ns", "us", "ticks", "cycles", "count", "bytes", "raw" */
bool etp_unit_is_time(etp_unit u);
/* Converts a time value between ns and us; other units are returned unchanged. */
double etp_unit_to_ns(etp_unit u, double v);

/* QNN classification of a delegate event name */
typedef enum etp_qnn_class {
    ETP_QNN_NONE = 0,
    ETP_QNN_TOP,       /* a top-level QNN event: "QNN (execute) time (us)", ... */
    ETP_QNN_NODE,      /* "<qnn op>:OpId_<n> (cycles)" */
    ETP_QNN_NODE_IO,   /* "Input OpId_<n> (cycles)" / "Output OpId_<n> (cycles)" */
    ETP_QNN_NODE_SYS,  /* "OpId_<n> (cycles)" (compiler/system op) */
} etp_qnn_class;

/* Event flags */
#define ETP_MF_WRAPPED 0x01      /* start > end: 32-bit counter wrap assumed */
#define ETP_MF_BAD_TIME 0x02     /* start > end and not a 32-bit wrap: duration unknown */
#define ETP_MF_MINIMAL_PAL 0x04  /* start == end == 11223344: the minimal PAL has no clock */
#define ETP_MF_FROM_TICKS 0x08   /* value was converted from host ticks with the tick rate */
#define ETP_MF_QTIMER 0x10       /* labelled "(us)" but 19.2 MHz ticks: converted to us */
#define ETP_MF_NOT_WALL 0x20     /* a value with no start/end timestamps (start 0 by convention) */
#define ETP_MF_AGGREGATE 0x40    /* thread-aggregate cycles (QNN HTP nodes), not wall time */
#define ETP_MF_NO_CLOCK 0x80     /* a host-timed event with start == end == 0: the clock returned
                                    0 (the Arm bare-metal runner on a core without a PMU) */
#define ETP_MF_ESCAPED 0x8000    /* the name in the file holds NUL bytes: `label` is an escaped
                                    copy (NUL as \0, backslash as \\), see docs/verifier.md */

typedef struct etp_mevent {
    etp_event ev;          /* the decoded event */
    uint32_t index;        /* position in its block */
    etp_kind kind;
    int32_t parent;        /* index (in this block) of the enclosing wrapper, -1 for none */
    int32_t chain;         /* chain index (debug events normalised: (u64)-1 -> -1) */
    int32_t instr;         /* instruction id as in the file: -1 when absent; method-level
                              events written by the runtime (Method::execute...) carry 0 with
                              chain -1, so test chain < 0 for "not an instruction" */
    const char *label;     /* display identity: name, delegate id string, or the int id; a C
                              string without NULs (ETP_MF_ESCAPED), valid until the next block */
    etp_instr_kind instr_kind; /* from the program, ETP_INSTR_NONE without one */
    const char *op_name;       /* kernel instructions: operator name, e.g. "aten::add" */
    const char *op_overload;   /* e.g. "out" */
    const char *backend;       /* delegate instructions and everything inside: backend id */
    etp_unit unit;         /* unit of `value` */
    double value;          /* duration (profile) or size (allocation) in `unit`; NaN if unknown */
    uint32_t flags;        /* ETP_MF_* */
    etp_qnn_class qnn;
    int64_t qnn_op_id;     /* OpId_<n> of QNN node events, -1 otherwise */
    uint32_t qnn_name_len; /* length of the QNN op name before ":OpId_" (0 if none) */
    const char *ev_name;   /* an event with both a name and a delegate debug id (Python-written
                              dumps): its name, while `label` is the id (int id if set, else the
                              string) as the Inspector names it, and kind is delegate_internal;
                              NULL otherwise */
} etp_mevent;

typedef struct etp_model_opts {
    const char *method;   /* --method: force this execution plan for every Execute block */
    double tick_ns;       /* ns per host tick; 0 = ticks of unknown rate. Default 1 (Linux) */
    const char *dump_name; /* the dump's file name, for errors (NULL: none) */
    /* --ignore-program-mismatch: a block whose events the program cannot explain (docs/cli.md
     * "Program check") is left unresolved and counted (etp_model_mismatch) instead of making
     * etp_model_block() fail with ETP_E_INPUT. */
    bool ignore_program_mismatch;
    /* For a caller that reads only the events' kinds, pairing, instructions, methods and
     * backends (etprof info): etp_model_block() then leaves every event's unit, value, flags
     * and QNN class unset (ETP_UNIT_NONE, NaN, 0, ETP_QNN_NONE) instead of deciding them. */
    bool kinds_only;
    /* With `method`: a block whose files name another method (etp_model_method_conflict) is a
     * located error (ETP_E_INPUT) instead of a counted warning. */
    bool strict_method;
} etp_model_opts;

typedef struct etp_model etp_model;

/* How a block's method was decided (docs/cli.md "Method resolution and the program check"). */
typedef enum etp_method_basis {
    ETP_MB_NONE = 0,         /* not decided: no program, ambiguous, or the program does not fit */
    ETP_MB_OPTION,           /* given (--method / opts.method) */
    ETP_MB_STRUCTURE,        /* the one method whose instructions explain the events */
    ETP_MB_ONLY_METHOD,      /* no instruction events, and the program has one method */
    ETP_MB_PROGRAM_CHECK,    /* the other methods that fit the structure fail the program check */
    ETP_MB_DEBUG_TENSORS,    /* the one method declaring the types and shapes of the tensors the
                                runtime logged (debug events without a delegate id) */
    ETP_MB_DELEGATE_PAYLOAD, /* the one method whose delegate blob holds the QNN node names */
    ETP_MB_COUNT_
} etp_method_basis;
const char *etp_method_basis_name(etp_method_basis b); /* "structure", "debug_tensors", ... */

typedef struct etp_block_view {
    uint32_t block;
    etp_block_info info;
    int plan;              /* resolved execution plan, -1 when unknown */
    const char *method;    /* its name, or NULL */
    uint32_t candidates;   /* how many plans fit the events; >1 (and no --method): ambiguous,
                              plan is -1 and method NULL (never one candidate taken) */
    bool is_execute;       /* a run: has a Method::execute event, is named "Execute", or is not
                              a load block (Method::init, Program::load_method) and holds
                              instruction-level profile events (chain and instruction >= 0) */
    bool run_by_events;    /* a run although not named "Execute" (apps and Python writers name
                              blocks freely): counted from its events */
    bool program_mismatch; /* the program cannot explain this block's events (ignored) */
    int32_t method_event;  /* index of Method::execute in the block, -1 if none */
    uint32_t n;
    const etp_mevent *events;
    /* An ambiguous block (plan -1, candidates > 1): the names of the fitting methods, in
     * program order (at most 16); 0 / NULL otherwise. Valid until the next call. */
    uint32_t n_candidate_names;
    const char *const *candidate_names;
    etp_method_basis method_basis; /* how `plan` was decided (ETP_MB_NONE when plan is -1) */
} etp_block_view;

void etp_model_opts_init(etp_model_opts *o);
/* `program` may be NULL. Both must outlive the model. */
int etp_model_open(etp_model **out, const etp_dump *dump, const etp_program *program,
                   const etp_model_opts *opts, etp_error *err);
void etp_model_close(etp_model *m);
/* Classifies block `block`; the view stays valid until the next call on this model. Fails with
 * ETP_E_INPUT, located at the block's events vector, when decoding the block would take more
 * than the memory budget, 64 MiB + 8 x the dump's FlatBuffer size (docs/verifier.md "Memory"). */
int etp_model_block(etp_model *m, uint32_t block, etp_block_view *view, etp_error *err);
const etp_dump *etp_model_dump(const etp_model *m);
const etp_program *etp_model_program(const etp_model *m);
/* Program check (with opts.ignore_program_mismatch): how many blocks decoded so far the program
 * could not explain, and the located one-line reason for the first of them ("" when none). */
uint32_t etp_model_mismatch(const etp_model *m, const char **first);
/* `method` given (opts.method): how many blocks decoded so far the files say ran another method
 * (the debug tensors, the delegate blob or the structure name one method, not that one), and the
 * one-line reason for the first ("" when none). A method the files agree with, or cannot judge,
 * is never counted. */
uint32_t etp_model_method_conflict(const etp_model *m, const char **first);
/* Frees the model's per-block scratch (the last view becomes invalid) and gives its share of
 * the process's memory budget back (docs/verifier.md "Memory"): for a caller that keeps the
 * model open between passes (the Python package), so that an idle model holds nothing. */
void etp_model_trim(etp_model *m);
/* Parses a QNN event name; returns its class and fills op id / op-name length. */
etp_qnn_class etp_qnn_classify(const char *name, size_t len, int64_t *op_id, uint32_t *name_len);

/* ---- Census: what a dump holds, block by block (etprof info) ----
 * One pass of etp_model_block() over every block (on two threads for a large dump: the result
 * is the one-thread one), counting the events by type and kind, the runs of each method and
 * the delegate calls of each backend. Use a model opened with kinds_only when nothing else is
 * wanted of it: the census reads no unit or value. */
#define ETP_CENSUS_CAND_MAX 4

typedef struct etp_census_block {
    etp_block_info info;        /* info.name: a copy held by the census */
    uint32_t by_type[4];        /* its events, indexed by their type: ETP_EVENT_* */
    bool is_execute;            /* as etp_block_view.is_execute */
    int plan;                   /* as etp_block_view: -1 when unknown */
    const char *method;         /* the program's string, or NULL */
    uint32_t candidates;        /* plans that fit its events (>1: ambiguous) */
    etp_method_basis basis;     /* how the method was decided */
    uint32_t n_candidate_names; /* an ambiguous block: the first ETP_CENSUS_CAND_MAX of the
                                   fitting methods' names (program strings), 0 otherwise */
    const char *candidate_names[ETP_CENSUS_CAND_MAX];
} etp_census_block;

/* A name and how often: a method and its runs (Execute blocks that resolved to it), or a backend
 * id and its DELEGATE_CALL events. In order of first appearance. */
typedef struct etp_census_count {
    const char *name; /* the program's string */
    uint64_t n;
} etp_census_count;

typedef struct etp_census etp_census;

typedef struct etp_census_opts {
    /* called after each block when set (done, total blocks) */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
} etp_census_opts;

/* Reads every block of m's dump (each verified before it is read, as etp_model_block() does).
 * Errors as etp_model_block()'s. The census points into m's program (names): keep the program
 * open while it is used; free it with etp_census_free(). opts may be NULL. A dump opened with
 * etp_dump_open_opts.background still needs etp_dump_wait_verified() for its own counts. */
int etp_census_compute(etp_model *m, const etp_census_opts *opts, etp_census **out,
                       etp_error *err);
void etp_census_free(etp_census *c);
/* Block i (0 <= i < *n, the dump's block count). */
const etp_census_block *etp_census_blocks(const etp_census *c, uint32_t *n);
/* Events of each etp_kind over the whole dump (ETP_KIND_COUNT_ entries). */
const uint64_t *etp_census_kinds(const etp_census *c);
const etp_census_count *etp_census_methods(const etp_census *c, uint32_t *n);
const etp_census_count *etp_census_backends(const etp_census *c, uint32_t *n);

/* ---- Analyses ---- */
/* ---------------------------------------------------------------------------------------------
 * Analyses: per-operator statistics over runs, the event hierarchy, placement (docs/analyses.md)
 * ------------------------------------------------------------------------------------------- */

/* Statistics of a sample, computed as numpy does by default: percentiles by linear interpolation
 * between the closest ranks (numpy.percentile, method "linear"), arithmetic mean, min, max; plus
 * the sum. Every field is NaN (and n 0) for an empty sample. */
typedef struct etp_stats {
    uint64_t n;
    double min, p10, p50, p90, avg, max, total;
} etp_stats;

/* The p-th percentile (0..100) of `sorted` (ascending); NaN when n == 0. */
double etp_percentile(const double *sorted, size_t n, double p);
/* Arithmetic mean (pairwise summation); NaN when n == 0. */
double etp_mean(const double *v, size_t n);
/* Sorts `v` in place and fills `out`. */
void etp_stats_compute(double *v, size_t n, etp_stats *out);
/* The field named "min", "p10", "p50", "p90", "avg", "max" or "total"; false if no such name. */
bool etp_stats_pick(const etp_stats *s, const char *name, double *out);
/* Nanoseconds per display time unit "ns", "us", "ms", "s"; 0 for any other name. */
double etp_time_unit_ns(const char *name);

/* Where a row's time was spent. */
typedef enum etp_place {
    ETP_PLACE_NONE = 0,
    ETP_PLACE_FRAMEWORK, /* Method::*, JF/MOVE/FREE instructions, scopes outside instructions */
    ETP_PLACE_CPU,       /* kernel instructions run by the interpreter (OPERATOR_CALL + kernel) */
    ETP_PLACE_DELEGATE,  /* DELEGATE_CALL and everything its backend logged inside it */
} etp_place;

typedef struct etp_ops_opts {
    const char *block;   /* only blocks with this name; NULL: the Execute blocks */
    uint32_t skip_first; /* ignore the first N runs of each method (warm-up) */
    /* called after each block when set (done, total blocks) */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
} etp_ops_opts;

void etp_ops_opts_init(etp_ops_opts *o);

/* One row per (method, chain, instruction, kind, identity, unit) over the runs of its method (an
 * event logged with different units in different runs is a row per unit, flagged unit_varies).
 * A run is one block (one Method::execute). An identity seen several times in one run (loops) is
 * summed into that run's sample; `count` is the number of occurrences. Statistics are over the
 * per-run sums of the runs in which the row occurred (`runs` of them). */
typedef struct etp_ops_row {
    uint32_t method;      /* index for etp_ops_method_get() */
    int32_t chain, instr; /* framework rows (Method::execute...): chain -1 and instr as the
                             events carry it, 0 from ExecuTorch's runtime (the commands print
                             instruction_id null when chain < 0) */
    const char *name;     /* identity: the event name, delegate id string, or the int id */
    etp_kind kind;
    etp_qnn_class qnn;    /* QNN name class (ETP_QNN_NONE for other events) */
    int64_t qnn_op_id;    /* OpId_<n> of a QNN node, -1 otherwise */
    bool htp_node;        /* a QNN HTP node row (qnn is NODE, NODE_IO or NODE_SYS) */
    const char *op;       /* kernels and OPERATOR_CALL: "aten::add.out" from the program, or
                             "add.out" from native_call_add.out without one; QNN nodes: the QNN
                             op name; other delegate-internal rows: the name; else NULL */
    etp_place place;
    const char *placement;/* "cpu", the backend id, "delegate" (backend unknown), "framework" */
    etp_unit unit;        /* ETP_UNIT_NS for every time (QNN us included), else the row's own */
    uint32_t flags;       /* OR of the events' ETP_MF_* flags */
    uint64_t count;       /* occurrences over the runs kept */
    uint32_t runs;        /* runs in which the row has a value (= stats.n) */
    etp_stats stats;      /* over the per-run sums */
    etp_stats excl;       /* per run: the sum minus its children of the same unit (exclusive) */
    bool has_children_same_unit; /* excl differs from stats only when true */
    bool parent_varies;   /* the row's events are enclosed by different rows from run to run (or
                             occurrence to occurrence): `parent` is the first one seen, while
                             excl and the parents' child sums follow each run's own nesting */
    bool unit_varies;     /* another row has this row's identity (method, instruction, kind,
                             name) in another unit: the events were logged with different units
                             in different runs (a start time of 0 decides some); each unit is
                             its own row, never mixed */
    double share;         /* percent: of the method's Method::execute total (time rows); of the
                             Accelerator (execute) time (cycles) total (HTP nodes); else NaN */
    int32_t parent;       /* the enclosing row in the hierarchy, -1 for a root */
    uint32_t depth;       /* 0 for roots */
    const double *samples;/* the per-run sums in run order (`runs` values) */
    const char *event_name;  /* delegate rows named by their id (etp_mevent.ev_name): the events'
                                own name; NULL otherwise */
    uint64_t bad_time_count; /* occurrences with start > end that are not a 32-bit wrap: no
                                duration, left out of the statistics (ETP_MF_BAD_TIME) */
    uint64_t wrapped_count;  /* occurrences read as a 32-bit counter wrap (ETP_MF_WRAPPED) */
    /* Impossible nesting: occurrences of a time longer than the event that encloses it (its
     * tree parent, same time unit). A wrong tick rate, a unit other than the label's, or clocks
     * that do not match; the row's share and its parent's exclusive time are not meaningful. */
    uint64_t nest_over_count;
    double nest_over_max_ratio;  /* largest value / enclosing value; NaN when none */
    bool nest_over_backend;      /* the value is a backend-reported duration (no timestamps) and
                                    its container host-timed: tick rate, unit or clock */
} etp_ops_row;

/* The blocks of the dump grouped by (name, what became of them), in order of first appearance. */
typedef struct etp_ops_block_group {
    const char *name;     /* the block name ("" when absent) */
    uint32_t blocks;      /* blocks in the group */
    uint64_t events;      /* their events */
    bool kept;            /* counted as runs */
    bool by_events;       /* kept although not named "Execute": their events look like runs */
    const char *reason;   /* "run", "load" (Method::init / Program::load_method), "no_events",
                             "not_a_run" (no instruction-level profile event, no
                             Method::execute), "block_filter" (--block names another block) */
} etp_ops_block_group;


/* A part of a method's time: one backend's DELEGATE_CALLs, the CPU kernels, or the framework. */
typedef struct etp_ops_part {
    etp_place place;
    const char *placement; /* backend id, "delegate", "cpu" or "framework" */
    uint32_t partitions;   /* delegates: distinct DELEGATE_CALL instructions; cpu: kernel ones */
    uint64_t calls;        /* occurrences over the runs */
    double total;          /* over the runs, in the method's unit */
    double per_run;        /* total / runs */
    double share;          /* percent of the Method::execute total (NaN without one) */
    bool backend_own;      /* delegates of a method-only dump (no DELEGATE_CALL): total is the
                              backend's own outermost timed events (QNN: "QNN (execute) time"),
                              the best available delegate time, not a DELEGATE_CALL; partitions
                              and calls count those events' rows and occurrences */
    int32_t backend_row;   /* backend_own: the first of those rows (its name labels the part);
                              else -1 */
} etp_ops_part;

/* Which kinds of profiling events a method's runs hold (docs/analyses.md, "Profiling level"). */
typedef enum etp_profiling_level {
    ETP_PL_FULL = 0,    /* instruction events (OPERATOR_CALL, DELEGATE_CALL or kernels) */
    ETP_PL_METHOD_ONLY, /* Method::execute (and backend events) but no instruction events */
    ETP_PL_NONE,        /* neither Method::execute nor instruction events */
} etp_profiling_level;
/* "full", "method_only", "none" */
const char *etp_profiling_level_name(etp_profiling_level l);

/* CPU (not delegated) kernels of one operator type. */
typedef struct etp_ops_cpu_op {
    const char *op;        /* "aten::add.out", or "add.out" without a program */
    uint32_t instructions; /* distinct kernel instructions */
    uint64_t calls;        /* occurrences over the runs */
    double total, per_run, share;
} etp_ops_cpu_op;

typedef struct etp_ops_method {
    const char *name;   /* NULL when no program names it */
    uint32_t runs;      /* runs kept */
    uint32_t skipped;   /* runs dropped by skip_first */
    etp_unit unit;      /* unit of its host time: ETP_UNIT_NS, or ETP_UNIT_TICKS */
    int32_t exec_row;   /* the Method::execute row, -1 when none */
    etp_stats latency;  /* Method::execute per run (NaN when none) */
    uint32_t n_parts;   /* delegates (one per placement, first seen first), then cpu, framework */
    const etp_ops_part *parts;
    uint32_t n_cpu_ops; /* by total, largest first */
    const etp_ops_cpu_op *cpu_ops;
    uint32_t delegate_partitions; /* distinct DELEGATE_CALL instructions, all backends */
    uint64_t operator_calls, delegate_calls; /* occurrences of the wrappers */
    uint32_t htp_node_rows;
    etp_profiling_level profiling_level;
    /* name NULL and several methods of the program fit these runs (no --method): their names
     * (n_candidates, program order) and the same joined with ", "; 0 / NULL otherwise. */
    uint32_t n_candidates;
    const char *const *candidate_names;
    const char *candidates;
    /* host-timed rows with an instruction id but no OPERATOR_CALL/DELEGATE_CALL wrapper (kind
     * other): instruction events were recorded, but whether they ran on the CPU or in a backend
     * is unknown; the first of them (an index of etp_ops_row_get, -1 when none) */
    uint32_t unwrapped_rows;
    int64_t unwrapped_first;
} etp_ops_method;

/* The QNN top-level execute events (qnn-profiling.md 3.1), in the nesting order of their times. */
typedef enum etp_qnn_top {
    ETP_QT_QNN_EXECUTE = 0, /* QNN (execute) time (us) */
    ETP_QT_RPC,             /* RPC (execute) time (us) */
    ETP_QT_QNN_ACCEL,       /* QNN accelerator (execute) time (us) */
    ETP_QT_ACCEL_US,        /* Accelerator (execute) time (us) */
    ETP_QT_EXCL_WAIT,       /* Accelerator (execute excluding wait) time (us) */
    ETP_QT_VTCM,            /* Time for initial VTCM acquire (us): 19.2 MHz ticks */
    ETP_QT_POWER,           /* Time for HVX + HMX power on and acquire (us): 19.2 MHz ticks */
    ETP_QT_ACCEL_CYCLES,    /* Accelerator (execute) time (cycles): parent of the HTP nodes */
    ETP_QT_HVX_THREADS,     /* Number of HVX threads used (count) */
    ETP_QT_YIELDS,          /* Num times yield occured (count) */
    ETP_QT_COUNT_
} etp_qnn_top;

/* ETP_QT_* of a QNN top-level event name, or -1. */
int etp_qnn_top_of(const char *name);
/* The documented name of a top-level event ("RPC (execute) time (us)"). */
const char *etp_qnn_top_name(etp_qnn_top t);

/* One delegate partition (DELEGATE_CALL row) whose backend logged QNN events. */
typedef struct etp_ops_qnn {
    uint32_t method;
    uint32_t delegate_row;         /* the DELEGATE_CALL row */
    int32_t top[ETP_QT_COUNT_];    /* row of each top-level event, -1 when absent */
    uint32_t node_rows;            /* distinct HTP node rows */
    uint32_t node_rows_named;      /* of which "<qnn op>:OpId_<n> (cycles)" */
    uint32_t node_rows_aten;       /* of which the op name starts with "aten_" */
    uint64_t node_events;          /* node events over the runs */
    uint32_t runs_checked;         /* runs with both nodes and the cycles parent */
    uint32_t runs_sum_mismatch;    /* of which the node cycles do not add up to the parent */
} etp_ops_qnn;

typedef struct etp_ops_result etp_ops_result;

/* Streams once over the blocks of the model and aggregates them. `opts` may be NULL. The result
 * owns its strings and stays valid after the model is closed; free it with etp_ops_free(). */
int etp_ops_compute(etp_model *m, const etp_ops_opts *opts, etp_ops_result **out, etp_error *err);
void etp_ops_free(etp_ops_result *r);
/* Gives back the share of the process's memory budget that r's rows hold (docs/verifier.md
 * "Memory"); r stays valid. The budget bounds what a computation materialises on top of what is
 * already held: a caller that keeps results for later (the Python package, where a session
 * holds results of many dumps) gives their share back once they are computed, so that the
 * results it keeps do not make the next computation fail. The command does not: its peak is
 * what it holds. */
void etp_ops_release_budget(etp_ops_result *r);
/* The process's memory budget in bytes (docs/verifier.md "Memory"): ETPROF_MEMORY_BUDGET (MiB) as
 * read now, 52 MiB when unset or empty, UINT64_MAX when 0 (no limit). A value that is not a
 * whole number of MiB (digits only: "64M", "-1", " 8"), or one too large to be counted in bytes
 * (over 2^44 - 1 MiB), keeps the default, never lifting the limit; `warning` (n bytes, may be
 * NULL) then receives one line saying so, else "". Thread-safe (reads the environment). */
uint64_t etp_memory_budget(char *warning, size_t n);

/* Rows are in hierarchy order: per method, a depth-first walk from Method::execute, children in
 * execution order (chain, instruction, then order of appearance); a parent precedes its
 * children. */
size_t etp_ops_row_count(const etp_ops_result *r);
const etp_ops_row *etp_ops_row_get(const etp_ops_result *r, size_t i);
/* Children of row `i` (or of the roots when i == SIZE_MAX), in order; `*n` receives the count. */
const uint32_t *etp_ops_children(const etp_ops_result *r, size_t i, size_t *n);
size_t etp_ops_method_count(const etp_ops_result *r);
const etp_ops_method *etp_ops_method_get(const etp_ops_result *r, size_t i);
size_t etp_ops_qnn_count(const etp_ops_result *r);
const etp_ops_qnn *etp_ops_qnn_get(const etp_ops_result *r, size_t i);
/* Blocks read / kept (after --block and skip_first). */
uint32_t etp_ops_blocks_read(const etp_ops_result *r);
uint32_t etp_ops_runs_kept(const etp_ops_result *r);
/* The block groups (*n of them); the array lives as long as the result. */
const etp_ops_block_group *etp_ops_block_groups(const etp_ops_result *r, size_t *n);
/* With opts.ignore_program_mismatch: how many blocks the program could not explain (left
 * unresolved: no method, operators or backends), and the located reason for the first ("" when
 * none); the string lives as long as the result. */
uint32_t etp_ops_program_mismatch(const etp_ops_result *r, const char **first);
/* With a method given (opts.method): how many blocks the files say ran another method, and the
 * reason for the first ("" when none): etp_model_method_conflict at the time of the result. */
uint32_t etp_ops_method_conflict(const etp_ops_result *r, const char **first);
/* "htp_node" for HTP node rows, else etp_kind_name(row->kind). */
const char *etp_ops_row_kind_name(const etp_ops_row *row);

/* Row selection for display. Filters combine with AND. */
typedef struct etp_ops_filter {
    int32_t method;        /* method index, -1 for any */
    const char *placement; /* "cpu", "framework", "delegate" or a backend id (case-insensitive) */
    const char *kind;      /* an etp_kind name, "htp_node" or "operator" (the operator rows of
                              etp_ops_top()); "delegate_internal" includes HTP nodes.
                              OPERATOR_CALL rows are left out unless `all` is set or kind is
                              "operator_call" (or "operator" and they are the method's operator
                              rows). */
    bool all;
    const char *sort;      /* NULL or "order": hierarchy order; else a column: method,
                              instruction_id, name, count, min, p10, p50, p90, avg, max, total,
                              share, unit, placement, kind, operator. Numbers sort largest first,
                              grouped by unit (time first) so that units never interleave; text
                              sorts A-Z. Ties keep hierarchy order. */
    size_t top;            /* keep the first N rows (0: all) */
} etp_ops_filter;

void etp_ops_filter_init(etp_ops_filter *f);
/* Fills idx[] (room for etp_ops_row_count() entries) and *n. ETP_E_USAGE for an unknown sort
 * key or kind. */
int etp_ops_select(const etp_ops_result *r, const etp_ops_filter *f, uint32_t *idx, size_t *n,
                   etp_error *err);
/* Statistics over the runs of row `i` of its per-run sum of its children of the same unit (what
 * `excl` subtracts), over the same runs as `stats` (0 in a run where no child had a value). For
 * a DELEGATE_CALL: the time its backend logged at the outermost level. ETP_OK; ETP_E_USAGE for
 * no such row, ETP_E_INTERNAL when out of memory (then every field is NaN). */
int etp_ops_children_stats(const etp_ops_result *r, size_t i, etp_stats *out);

/* ---- Shared figures ---- */
/* Figures that several commands show (summary, ops, tree, explain, report, qnn): each is computed
 * here, once, so that every view shows the same value (docs/json-contract.md, "Shared figures").
 *
 * The top operators of a method (summary top_ops, report "Top operators", explain
 * top_operators, `ops --kind operator --sort total`): the rows that each are one unit of the
 * method's work and never overlap one another:
 *   - DELEGATE_CALL rows (one per delegate partition), and
 *   - CPU kernel rows (`native_call_<op>`), or the OPERATOR_CALL rows in a method that has no
 *     kernel rows (kernel profiling off);
 * with a host time unit (ns or ticks) and a total. Ordered by total over the runs kept (the
 * method's time unit), largest first; equal totals keep hierarchy order (deterministic). Their
 * shares (of the Method::execute total) add up to at most 100%. HTP nodes and other events a
 * backend logged inside a DELEGATE_CALL are part of it and never top operators.
 * Fills idx[] (room for etp_ops_row_count() entries) with at most `top` rows (0: all) of method
 * `method` (-1: every method) and returns the count. */
size_t etp_ops_top(const etp_ops_result *r, int32_t method, size_t top, uint32_t *idx);

/* A DELEGATE_CALL split into the backend's time and the rest ("DELEGATE_CALL minus QNN (execute)
 * time" for QNN). Every figure is a statistic over the runs of the per-run value, never a
 * difference of two statistics: overhead.p50 is the median of the per-run differences (what the
 * tree shows as the DELEGATE_CALL's exclusive time), not p50(DELEGATE_CALL) - p50(backend). For
 * avg and total the two readings agree (both are linear). */
typedef struct etp_ops_delegate_time {
    uint32_t row;        /* the DELEGATE_CALL row */
    uint32_t runs;       /* runs with a value (= delegate.n) */
    bool has_backend;    /* the backend logged time inside it (else backend is 0 in every run) */
    etp_stats delegate;  /* DELEGATE_CALL per run (= the row's stats) */
    etp_stats backend;   /* per run: the backend's outermost timed events inside it, summed (for
                            QNN: QNN (execute) time) = etp_ops_children_stats() */
    etp_stats overhead;  /* per run: delegate minus backend (= the row's excl) */
} etp_ops_delegate_time;

/* ETP_OK; ETP_E_USAGE when row `i` is not a DELEGATE_CALL row with a time unit; ETP_E_INTERNAL
 * when out of memory. */
int etp_ops_delegate_time_get(const etp_ops_result *r, size_t i, etp_ops_delegate_time *out);
/* ---- end of Shared figures ---- */
/* ---- end of Analyses ---- */

/* ---- Diff ---- */
/* ---------------------------------------------------------------------------------------------
 * Diff: two runs of a model compared operator by operator, with a noise-aware verdict per row,
 * operators added and removed, and placement changes (docs/diff.md)
 * ------------------------------------------------------------------------------------------- */

/* Mann-Whitney U test of two independent samples: two-sided, normal approximation, variance
 * corrected for ties, continuity correction 0.5 (as scipy.stats.mannwhitneyu with
 * method="asymptotic", use_continuity=True). */
typedef struct etp_mwu {
    double u;    /* U of `b`: pairs (x of a, y of b) with y > x, plus half of those with y == x */
    double mean; /* of U under the null hypothesis: na * nb / 2 */
    double sd;   /* of U under the null hypothesis, tie-corrected; 0 when every value is tied */
    double z;    /* (u - mean) moved 0.5 toward 0, over sd; > 0 when `b` tends to be larger */
    double p;    /* two-sided p-value erfc(|z| / sqrt(2)); 1 when sd is 0 */
} etp_mwu;

/* ETP_OK; ETP_E_USAGE when a sample is empty or holds a NaN; ETP_E_INTERNAL when out of memory. */
int etp_mann_whitney_u(const double *a, size_t na, const double *b, size_t nb, etp_mwu *out);

/* Benjamini-Hochberg adjusted p-values (q-values): q[i] = min over p[j] >= p[i] of
 * p[j] * m / rank(j), capped at 1; NaN entries are skipped and stay NaN in q (m counts the
 * others). `q` may be `p`. ETP_E_INTERNAL when out of memory. */
int etp_bh_adjust(const double *p, size_t n, double *q);

typedef enum etp_diff_verdict {
    ETP_DV_NO_CHANGE = 0, /* not significant, and the p50 moved by less than no_change_pct */
    ETP_DV_NOISE,         /* the p50 moved, but the test cannot tell it from run-to-run noise */
    ETP_DV_SLOWER,        /* significant, NEW larger */
    ETP_DV_FASTER,        /* significant, NEW smaller */
    ETP_DV_TOO_FEW_RUNS,  /* fewer than min_runs samples on a side: no verdict */
    ETP_DV_ADDED,         /* only in NEW */
    ETP_DV_REMOVED,       /* only in BASE */
} etp_diff_verdict;

/* "no change", "noise", "slower", "faster", "too few runs", "added", "removed"; slower and
 * faster read "higher" and "lower" for units that are not durations (count, bytes, raw). */
const char *etp_diff_verdict_name(etp_diff_verdict v, etp_unit u);

typedef struct etp_diff_opts {
    double alpha;         /* significance level; default 0.05 */
    uint32_t min_runs;    /* fewer samples on either side: "too few runs"; default 3 */
    double no_change_pct; /* |p50 change| below this (percent) and not significant: "no change";
                             default 1 */
    double threshold_pct; /* matched operators whose |p50 change| is below this are marked
                             hidden; default 0 (none) */
    double fail_pct;      /* a method regresses when significantly slower by more than this
                             (percent of its p50 latency); NaN (default): no gate */
    bool programs_differ; /* the caller knows the programs differ (two different .pte files):
                             match operators by name everywhere */
} etp_diff_opts;

void etp_diff_opts_init(etp_diff_opts *o);

/* The smallest two-sided p-value the Mann-Whitney U test of etp_mann_whitney_u() can give for
 * samples of na and nb values, whatever they are: the larger of
 *  - 2 / C(na + nb, na): under "no change" every split of the pooled ranks is equally likely, and
 *    complete separation (all of one side above all of the other, in either direction) is 2 of
 *    the C(na + nb, na) splits; a rank test cannot honestly claim less;
 *  - the normal approximation at complete separation without ties:
 *    erfc(((na nb / 2) - 0.5) / sqrt(na nb (na + nb + 1) / 12) / sqrt(2)).
 * 1 when a side is empty. E.g. 1 vs 1: 1; 3 vs 3: 0.1 (2/20; approximation 0.081); 4 vs 4: 0.030
 * (approximation 0.0304, 2/70 = 0.029). docs/diff.md, "Too few runs to judge". */
double etp_mwu_min_p(uint32_t na, uint32_t nb);

/* The smallest n for which n runs per side let the test reach p < alpha (etp_mwu_min_p(n, n) <
 * alpha): 4 at alpha = 0.05, 6 at 0.01. 0 when alpha is not in (0, 1) or no n up to 1000 does. */
uint32_t etp_mwu_runs_needed(double alpha);

/* The CI gate (--fail-on-regression): its decision for one row and for the whole diff. */
typedef enum etp_diff_outcome {
    ETP_DIFF_PASS = 0,     /* no regression beyond the threshold */
    ETP_DIFF_REGRESSION,   /* significantly slower, and the p50 grew by more than the threshold */
    ETP_DIFF_IMPROVEMENT,  /* significantly faster, and the p50 fell by more than the threshold */
    ETP_DIFF_INCONCLUSIVE, /* the p50 grew by more than the threshold (or its change is unknown),
                              but the runs cannot reach confidence: neither a pass nor a failure */
    ETP_DIFF_NOT_COMPARED, /* one side only (added, removed), or no samples on either side */
} etp_diff_outcome;

/* "pass", "regression", "improvement", "inconclusive", "not compared". */
const char *etp_diff_outcome_name(etp_diff_outcome o);

/* Why a row got its outcome. */
typedef enum etp_diff_reason {
    ETP_DR_SIGNIFICANT = 0, /* REGRESSION / IMPROVEMENT: significant, beyond the threshold */
    ETP_DR_WITHIN,          /* PASS: the p50 did not grow by more than the threshold */
    ETP_DR_NOISE,           /* PASS: it grew by more, but the test, able to reach confidence with
                               these runs, found it not significant */
    ETP_DR_TOO_FEW_RUNS,    /* INCONCLUSIVE: it grew by more, and the runs cannot reach p < alpha
                               (etp_mwu_min_p() >= alpha, or fewer than min_runs on a side) */
    ETP_DR_UNDEFINED,       /* INCONCLUSIVE: the p50 change is undefined (BASE p50 is 0, or the
                               two sides measure in different units) */
    ETP_DR_NO_SAMPLES_BASE, /* INCONCLUSIVE: samples in NEW, none in BASE */
    ETP_DR_NO_SAMPLES_NEW,  /* INCONCLUSIVE: samples in BASE, none in NEW */
    ETP_DR_NO_SAMPLES,      /* NOT_COMPARED: no samples on either side */
    ETP_DR_ONE_SIDE,        /* NOT_COMPARED: the row or method exists on one side only */
} etp_diff_reason;

/* One row's gate decision (typed; etp_diff_gate_text() writes it as a sentence). */
typedef struct etp_diff_gate {
    etp_diff_outcome outcome;
    etp_diff_reason reason;
    double threshold_pct;  /* percent of the p50: fail_pct, or 0 when no gate is set */
    double p50_pct;        /* the row's p50 change, percent (NaN when undefined) */
    double p;              /* the significance value compared with alpha (q for operators, p for
                              methods); NaN when not tested */
    bool q_value;          /* p is a Benjamini-Hochberg q */
    double alpha;
    uint32_t runs_base, runs_new;
    double min_p;          /* etp_mwu_min_p(runs_base, runs_new) */
    uint32_t runs_needed;  /* per side for the test to be able to reach p < alpha (at least
                              min_runs): max(min_runs, etp_mwu_runs_needed(alpha)) */
    bool testable;         /* min_runs on each side, min_p < alpha, and the test was run */
} etp_diff_gate;

/* The row's decision as one line without a trailing newline ("p50 +41.00% > 5%, but 1 run in
 * BASE and 1 in NEW cannot reach p < 0.05 ..."); returns what snprintf returns. */
int etp_diff_gate_text(const etp_diff_gate *g, char *buf, size_t n);

/* The decision over the gated rows (the methods' latencies). */
typedef struct etp_diff_overall {
    etp_diff_outcome outcome;
    uint32_t regressions, improvements, inconclusive, passes, not_compared; /* rows of each */
    uint32_t untested_passes; /* PASS rows that were not testable (judged on the change alone) */
    int32_t first;            /* the first row with the deciding outcome; -1 when none */
    char reason[512];         /* one line: why */
} etp_diff_overall;

/* REGRESSION when any row regressed; else INCONCLUSIVE when any row is inconclusive, or when no
 * row was compared at all (nothing to judge); else IMPROVEMENT when any row improved; else PASS.
 * names[i] (NULL: "(unnamed)") names row i in the reason; `names` may be NULL. */
void etp_diff_gate_overall(const etp_diff_gate *rows, const char *const *names, size_t n,
                           etp_diff_overall *out);

/* Two samples compared. Values are in the rows' unit (ns for every time). */
typedef struct etp_diff_cmp {
    uint32_t runs_base, runs_new; /* samples on each side */
    double p50_base, p50_new, p50_delta;
    double p50_pct;   /* 100 * delta / base; 0 when both are 0; NaN when only the base is 0 */
    double total_base, total_new, total_delta, total_pct;
    double impact;    /* change of the total per run of the method (total / method runs, NEW
                         minus BASE): what sorts rows, robust to different run counts */
    double z, p;      /* Mann-Whitney U; NaN when not tested (too few runs) */
    double q;         /* operators: Benjamini-Hochberg q over the matched rows; methods: = p */
    bool significant; /* q < alpha */
    etp_diff_verdict verdict;
    etp_diff_gate gate; /* the CI gate's decision for this row (etp_diff_gate_row) */
} etp_diff_cmp;

/* The gate decision for one comparison. `both`: the row (method) exists on both sides; `q`: use
 * c->q (operators) rather than c->p (methods). c->verdict must be set. Rules (docs/diff.md):
 * one side only or no samples at all: NOT_COMPARED; a side without samples, or an undefined p50
 * change: INCONCLUSIVE; p50 change > threshold: not testable -> INCONCLUSIVE, verdict slower ->
 * REGRESSION, else PASS (noise); p50 change < -threshold, testable and verdict faster ->
 * IMPROVEMENT; otherwise PASS. The threshold is o->fail_pct, or 0 when it is NaN. */
void etp_diff_gate_row(const etp_diff_cmp *c, bool both, bool q, const etp_diff_opts *o,
                       etp_diff_gate *out);

typedef struct etp_diff_method {
    const char *name;     /* NULL when no program names it */
    int32_t base, new_;   /* method index in each etp_ops_result, -1 when on one side only */
    etp_unit unit;        /* of the latency (ns, or ticks) */
    bool by_name;         /* its operators were matched by name (the programs differ) */
    etp_diff_cmp latency; /* Method::execute per run */
    double cpu_share_base, cpu_share_new;           /* percent of Method::execute, NaN if none */
    double delegate_share_base, delegate_share_new; /* all backends */
    uint32_t partitions_base, partitions_new;       /* DELEGATE_CALL instructions */
    bool regressed;       /* fail_pct set and latency.gate.outcome == ETP_DIFF_REGRESSION */
} etp_diff_method;

typedef enum etp_diff_status { ETP_DS_MATCHED = 0, ETP_DS_ADDED, ETP_DS_REMOVED } etp_diff_status;

/* One operator row (any etp_ops_row but Method::execute, which is its method's latency). */
typedef struct etp_diff_op {
    etp_diff_status status;
    uint32_t method;               /* index for etp_diff_method_get() */
    const etp_ops_row *base, *new_;/* NULL on the side where the row is absent */
    bool by_name;                  /* matched by (kind, name/operator, occurrence) */
    bool hidden;                   /* matched, |p50_pct| < threshold_pct */
    etp_diff_cmp cmp;              /* added/removed: the present side only, impact signed */
} etp_diff_op;

typedef enum etp_diff_move {
    ETP_MOVE_TO_CPU = 0,   /* an operator's CPU kernels appeared while it left a delegate */
    ETP_MOVE_PARTITIONS,   /* a backend's number of partitions (DELEGATE_CALLs) changed */
    ETP_MOVE_TO_DELEGATE,  /* an operator's CPU kernels disappeared into a delegate */
} etp_diff_move;

typedef struct etp_diff_placement {
    etp_diff_move move;
    uint32_t method;
    const char *op;       /* the operator as its CPU kernel is named ("aten::add.out"); NULL for
                             PARTITIONS */
    const char *from, *to;/* "cpu", a backend id or "delegate"; PARTITIONS: the backend twice */
    uint32_t base_count, new_count; /* TO_*: CPU kernel instructions of `op`; PARTITIONS:
                                       DELEGATE_CALL instructions of the backend */
    uint32_t base_nodes, new_nodes; /* TO_*: nodes of the operator seen inside a delegate (QNN
                                       HTP nodes); 0 when the backend does not log them */
    bool observed;        /* TO_*: the nodes were seen leaving (entering) the delegate; false:
                             inferred (the other side delegates and shows no operators) */
    double base_per_run, new_per_run; /* time of those kernels / partitions per run, method unit */
} etp_diff_placement;

typedef struct etp_diff_summary {
    uint32_t methods, methods_slower, methods_faster, methods_too_few, methods_regressed;
    uint32_t matched, slower, faster, noise, no_change, too_few, added, removed, hidden;
    uint32_t to_cpu, to_delegate, partition_changes;
    bool by_name; /* some method's operators were matched by name */
    uint32_t methods_inconclusive, methods_improved; /* latency.gate outcomes */
    etp_diff_overall gate; /* the gate's decision over the methods' latencies (what CI reads) */
} etp_diff_summary;

typedef struct etp_diff_result etp_diff_result;

/* Compares BASE and NEW. Both results must outlive the diff (rows and strings are shared).
 * `o` may be NULL (defaults). */
int etp_diff_compute(const etp_ops_result *base, const etp_ops_result *new_, const etp_diff_opts *o,
                     etp_diff_result **out, etp_error *err);
void etp_diff_free(etp_diff_result *d);

/* Methods in BASE order, then the ones only in NEW. */
size_t etp_diff_method_count(const etp_diff_result *d);
const etp_diff_method *etp_diff_method_get(const etp_diff_result *d, size_t i);
/* Operators of one status, by impact: grouped by unit (ns, ticks, cycles, count, bytes, raw:
 * units never mix), largest |impact| first, ties in BASE (then NEW) hierarchy order. */
const etp_diff_op *etp_diff_ops(const etp_diff_result *d, etp_diff_status s, size_t *n);
/* TO_CPU first (largest NEW time first), then PARTITIONS, then TO_DELEGATE. */
size_t etp_diff_placement_count(const etp_diff_result *d);
const etp_diff_placement *etp_diff_placement_get(const etp_diff_result *d, size_t i);
const etp_diff_summary *etp_diff_get_summary(const etp_diff_result *d);
/* "to_cpu", "partitions", "to_delegate". */
const char *etp_diff_move_name(etp_diff_move m);
/* The methods' verdicts in one word: "mixed" (some slower, some faster), "slower", "faster",
 * "noise", "too few runs" (every method), "no change". */
const char *etp_diff_result_name(const etp_diff_result *d);

/* -- a view's listing (etprof diff) -- */
/* What a view of the diff lists, and the figures its notes state. A row is listed unless the
 * threshold hid it (etp_diff_op.hidden) or, without `all`, it is an OPERATOR_CALL wrapper (its
 * kernel row carries the same time). Computed on demand; nothing is allocated. */
typedef struct etp_diff_listing {
    size_t listed[3];       /* rows of each etp_diff_status listed */
    size_t shown[3];        /* of those, the ones shown: the matched capped at `top` (0: all) */
    size_t wrappers_hidden; /* OPERATOR_CALL rows not listed because `all` is false (rows the
                               threshold hid are not counted) */
    uint32_t flags;         /* ETP_MF_* flags of the listed rows, both sides */
    uint32_t units;         /* bit 1 << etp_unit of the listed rows (both sides) and of every
                               method's latency */
    bool runs_differ;       /* a method on both sides has a different number of runs on each */
    uint32_t runs_needed;   /* runs per side for the test to be able to reach p < alpha:
                               max(min_runs, etp_mwu_runs_needed(alpha)) of the diff's options */
} etp_diff_listing;
/* Is `op` listed (see etp_diff_listing)? false for NULL. */
bool etp_diff_op_listed(const etp_diff_op *op, bool all);
/* The placement a view shows for `op`: NEW's when BASE's is the generic "delegate" (no program
 * named the backend in BASE), else the row's (BASE's when present). NULL for NULL. */
const char *etp_diff_op_placement(const etp_diff_op *op);
/* Fills *out for the rows of `d` (NULL: all zero). Thread-safe on a finished diff. */
void etp_diff_list(const etp_diff_result *d, bool all, size_t top, etp_diff_listing *out);
/* ---- end of Diff ---- */

/* ---- Trace ---- */
/* Chrome Trace Event Format JSON (opens in Perfetto and chrome://tracing); see docs/trace.md.
 * One process per method (plus "load" for the other blocks), one group of tracks per run.
 * Events with real host timestamps are slices at those times (µs since the first host timestamp
 * of the file); delegate values without timestamps (QNN) are laid out inside their DELEGATE_CALL
 * and marked args.synthetic = true; counts, bytes and raw values are instant events. */
#ifdef __cplusplus
}
#endif
#include <stdio.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct etp_trace_opts {
    const char *source;  /* the ETDump's name, recorded in otherData (may be NULL) */
    const char *program; /* the program's name, recorded in otherData (may be NULL) */
    double tick_ns;      /* ns per host tick, as given to the model; 0 = unknown rate (1 tick is
                            drawn as 1 ns and otherData says so) */
    void (*progress)(void *ctx, uint64_t done, uint64_t total); /* per block, may be NULL */
    void *progress_ctx;
    /* Which runs are written, per method, counting its runs 1, 2, ... in file order (0: no
     * bound): not the first skip_first; only run_first..run_last (inclusive); at most max_runs
     * of those. A run keeps its number ("run 3") and its tracks. Blocks that are not runs (load)
     * are always written; the time base stays the file's first host timestamp. */
    uint32_t skip_first, run_first, run_last, max_runs;
    /* An ETRecord (etprof_etrecord.h; NULL: none): each joined instruction event's args gain
     * op_types, module, module_class and stack_trace (the innermost user frame FILE:LINE). */
    const struct etp_etrecord *etrecord;
} etp_trace_opts;

typedef struct etp_trace_stats {
    uint64_t blocks, processes, tracks;
    uint64_t slices;     /* X events, synthetic ones included */
    uint64_t synthetic;  /* X events without timestamps of their own */
    uint64_t instants;   /* i events: counts, bytes, raw values, allocations */
    uint64_t clamped;    /* slices shortened to fit their container */
    uint64_t overlapped; /* real slices moved to an overflow lane (overlap without nesting) */
    uint64_t unplaced;   /* events with no time and no timed container: left out */
    uint64_t runs_left_out; /* runs not written (etp_trace_opts skip_first, run_*, max_runs) */
} etp_trace_stats;

/* Writes the trace of every block of the model to `f` (streaming: one block in memory at a
 * time). `o` may be NULL (tick_ns 1); `st` may be NULL. Returns ETP_OK, ETP_E_IO when a write
 * failed, ETP_E_INTERNAL when out of memory. Does not flush or close `f`. */
/* A stream that gzip-compresses (zlib, RFC 1952) what is written to it into `out`, e.g. a trace
 * written as trace.json.gz (Perfetto and chrome://tracing open those). fclose() of the returned
 * stream writes the gzip trailer and flushes `out` (which stays open: the caller closes it) and
 * returns EOF with errno set when any write to `out` failed. NULL (with `err`, ETP_E_INTERNAL)
 * when out of memory. */
FILE *etp_gzip_open(FILE *out, etp_error *err);

int etp_trace_write(etp_model *m, FILE *f, const etp_trace_opts *o, etp_trace_stats *st,
                    etp_error *err);

/* ---- Report ---- */
/* A self-contained HTML report (docs/report.md): summary, where the time goes per method, latency
 * over runs, the hierarchy as an icicle chart, top operators, CPU fallback, QNN units and caveats,
 * and with QNN's own profiling files the HTP per-op, VTCM, DRAM and utilization view. One file:
 * inline CSS, inline SVG charts drawn by etprof, a few lines of script that sort tables; no
 * reference to anything outside it. Strings from the inputs are HTML-escaped. The same inputs and
 * options give the same bytes. */
typedef struct etp_report_opts {
    const char *source;    /* the ETDump's name as shown (may be NULL) */
    const char *program;   /* the program's name as shown, NULL when none was given */
    const char *time_unit; /* "ns", "us" (default), "ms" or "s" */
    double tick_ns;        /* as given to the model (0 = host ticks of unknown rate) */
    const char *block;     /* as etp_ops_opts.block */
    uint32_t skip_first;   /* as etp_ops_opts.skip_first */
    uint32_t top_ops;      /* rows of the top-operators table; 0 = 50 */
    uint32_t top_nodes;    /* rows of the HTP node and QNN op tables; 0 = 200 */
    /* QNN's own files (paths, read by the report), each NULL when not given */
    const char *qhas, *optrace, *runtrace, *heap;
    void (*progress)(void *ctx, uint64_t done, uint64_t total); /* per block, may be NULL */
    void *progress_ctx;
    /* etp_report_write_multi only (etprof_runs.h): the files' names as shown, one per model
     * (NULL: none); `source` is then not used */
    const char *const *sources;
    /* An ETRecord (etprof_etrecord.h; NULL: none): the top-operator tables gain module and
     * source columns and a "Time per nn.Module" section is written (etprof_modules.h). */
    const struct etp_etrecord *etrecord;
    /* The Arm runner's Ethos-U PMU report (etprof_arm_pmu.h) shown in its section, NULL: the
     * one of the log the ETDump was read from, if any (etp_dump_arm_pmu). */
    const struct etp_arm_pmu_report *arm_pmu;
    /* The VGF backend's device times of the runner's log (--runner-log; etprof_arm_pmu.h), NULL:
     * none. */
    const struct etp_vgf_device_times *vgf;
} etp_report_opts;

void etp_report_opts_init(etp_report_opts *o);
/* Reads the QNN files named in `o` (if any), computes the analyses of the model and writes the
 * report to `f`. `o` may be NULL. Returns ETP_OK; ETP_E_USAGE for an unknown time unit;
 * ETP_E_INPUT / ETP_E_IO (located) when a QNN file is rejected or unreadable; ETP_E_IO when a
 * write failed; ETP_E_INTERNAL when out of memory. Flushes but does not close `f`. */
int etp_report_write(etp_model *m, FILE *f, const etp_report_opts *o, etp_error *err);

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_H */
