/* etprof_backend.h - what etprof knows about each ExecuTorch backend's ETDump conventions
 * (issue 14.2, docs/backends.md): a table of small decoders, one entry per backend, each saying
 * how its events are recognised, the unit and clock domain of their values, how its ops are
 * named and grouped, and what its delegate_debug_metadata means. Adding a backend is adding one
 * entry to the table in src/backend.c (a static table in one file: every entry is data plus at
 * most one small function, so one file per backend would be mostly boilerplate).
 *
 * Ownership and lifetime: etp_backend_info pointers point into a static table and stay valid for
 * the life of the process; never free them. etp_backend_guess.name points into the table or
 * into the ops result (the program's backend id) and lives as long as that result.
 * Thread safety: the table is read-only; every function here only reads its arguments, so any
 * number of threads may call them at once (on one ops result too).
 */
#ifndef ETPROF_BACKEND_H
#define ETPROF_BACKEND_H

#include "etprof.h"

#ifdef __cplusplus
extern "C" {
#endif
ETP_API_BEGIN

/* How a backend identifies the events it logs inside a DELEGATE_CALL. */
typedef enum etp_backend_ids {
    ETP_BID_NONE = 0, /* it logs nothing inside the DELEGATE_CALL */
    ETP_BID_STRING,   /* delegate_debug_id_str */
    ETP_BID_INT,      /* delegate_debug_id_int */
    ETP_BID_NAME,     /* ordinary named ProfileEvents (ProfileEvent.name), no delegate id */
} etp_backend_ids;

/* What its delegate_debug_metadata holds. */
typedef enum etp_backend_meta {
    ETP_BMETA_NONE = 0,      /* none is logged */
    ETP_BMETA_JSON,          /* a JSON document (Core ML, VGF neural statistics) */
    ETP_BMETA_FUNCTION_CODE, /* 1 byte: a function code (Neutron: 0 = profiling dump) */
} etp_backend_meta;

typedef struct etp_backend_info {
    const char *name;        /* the program's backend id: "XnnpackBackend" */
    const char *label;       /* short display name: "XNNPACK" */
    etp_backend_ids ids;
    const char *unit;        /* the unit of its values, in words */
    const char *clock;       /* "host" (PAL ticks, same clock as the DELEGATE_CALL), "device"
                                (its own clock domain), "none" (durations without a timeline) */
    const char *grouping;    /* how its op names group by op type, in words */
    etp_backend_meta meta;
    bool real_file_checked;  /* etprof was checked on a real dump of this backend */
} etp_backend_info;

/* The table: etp_backend_count() entries, in a fixed order. */
size_t etp_backend_count(void);
const etp_backend_info *etp_backend_at(size_t i); /* NULL past the end */
/* The entry whose name is `name` (case-insensitive), NULL when the backend is not in the table. */
const etp_backend_info *etp_backend_info_get(const char *name);

/* The backend behind one DELEGATE_CALL row of an ops result. */
typedef struct etp_backend_guess {
    const etp_backend_info *info; /* NULL: not in the table (or not recognised) */
    const char *name;       /* the program's backend id; else info->name; NULL when unknown */
    bool inferred;          /* true: recognised from the shapes of the events inside it (no
                               program); false: read from the program (or unknown) */
    uint32_t inner_rows;    /* delegate-internal rows directly inside it */
} etp_backend_guess;

/* Fills *out for DELEGATE_CALL row `row`. With a program the backend id is read from it. Without
 * one, the shapes of the rows directly inside decide:
 *   XNNPACK: every delegate-internal child is named "<op> #<k>" (k digits) and is host-timed
 *            (the DELEGATE_CALL's own time unit);
 *   QNN:     a child is a QNN event (etp_ops_row.qnn != ETP_QNN_NONE).
 * Anything else stays unknown (info NULL, name NULL). ETP_OK; ETP_E_USAGE when `row` is not a
 * DELEGATE_CALL row. */
int etp_backend_infer(const etp_ops_result *r, size_t row, etp_backend_guess *out);

/* One DELEGATE_CALL split for its backend: the DELEGATE_CALL, the sum of the ops its backend
 * logged inside it and the gap (for XNNPACK: XNNPACK's own overhead plus the gaps between ops).
 * The three figures are etp_ops_delegate_time_get()'s delegate, backend and overhead (the
 * backend's outermost timed events inside it, summed per run; delegate minus that per run), in
 * the DELEGATE_CALL row's unit: no second definition. */
typedef struct etp_backend_split {
    etp_backend_guess backend;
    etp_ops_delegate_time time;
} etp_backend_split;

/* ETP_OK; ETP_E_USAGE when `row` is not a DELEGATE_CALL row with a time unit; ETP_E_INTERNAL when
 * out of memory. */
int etp_backend_split_get(const etp_ops_result *r, size_t row, etp_backend_split *out);

/* The op type an inner event's name groups under for backend `b` (NULL: no rule, the name as
 * is): XNNPACK "Convolution (NHWC, F32) IGEMM #3" -> "Convolution (NHWC, F32) IGEMM" (the same
 * rule as etp_optype_of_name). Written into buf (cap bytes, truncated, always NUL-terminated);
 * returns buf. */
const char *etp_backend_op_group(const etp_backend_info *b, const char *name, char *buf,
                                 size_t cap);

/* How delegate_debug_metadata bytes were decoded. */
typedef enum etp_meta_kind {
    ETP_MK_EMPTY = 0,      /* no bytes */
    ETP_MK_JSON,           /* valid UTF-8 that parses as a JSON object or array: the text */
    ETP_MK_TEXT,           /* valid UTF-8 without control characters (tab/newline aside) */
    ETP_MK_FUNCTION_CODE,  /* the backend's 1-byte function code: "function code 0 (profiling
                              dump)" or "function code N (kernel N)" */
    ETP_MK_HEX,            /* anything else: lower-case hex */
} etp_meta_kind;

/* "empty", "json", "text", "function_code", "hex". */
const char *etp_meta_kind_name(etp_meta_kind k);

/* Decodes n metadata bytes for backend `b` (NULL: unknown backend; only JSON/text/hex apply).
 * One trailing NUL byte (C writers often include it) is not part of the text. The text goes to
 * buf (cap bytes, truncated, always NUL-terminated when cap > 0); *need (may be NULL) receives
 * the length of the whole text (buf is complete when *need < cap). */
etp_meta_kind etp_backend_metadata_decode(const etp_backend_info *b, const uint8_t *p, size_t n,
                                          char *buf, size_t cap, size_t *need);

ETP_API_END
#ifdef __cplusplus
}
#endif

#endif
