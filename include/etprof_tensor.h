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

ETP_API_END
#ifdef __cplusplus
}
#endif
#endif /* ETPROF_TENSOR_H */
