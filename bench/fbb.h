/* fbb: a minimal *forward* FlatBuffer builder for etprof's benchmark generator.
 *
 * Forward means objects are appended in file order and every uoffset points to a higher
 * address: a table is written first with placeholder offset slots, its children are appended
 * after it, and the slots are patched (fbb_patch). That lets a generator stream a multi-GB
 * buffer to disk block by block (fbb_flush_fd) with bounded memory, which a classic back-to-front
 * builder cannot do.
 *
 * Positions are absolute file offsets (uint64_t): `base` is the file offset of buf[0], so a
 * builder can produce any slice of a file. Alignment is computed on absolute positions, so
 * scalars end up naturally aligned relative to the start of the file (prefix included), as
 * flatcc does. Everything is little-endian.
 *
 * Rules the caller must follow:
 *   - patch a slot only while it is still in the buffer (i.e. before flushing it);
 *   - a patch target must lie after the slot (uoffsets are unsigned, added to the slot position);
 *   - scalars equal to their default are omitted by the fbb_add_* functions (flatcc's rule).
 *
 * Vtables are deduplicated through a small hash cache (identical vtables are written once and
 * shared, like flatcc); a vtable is always written before the first table that uses it, so the
 * table's soffset is positive. A cached vtable is reused only while it is within INT32_MAX bytes.
 */
#ifndef ETPROF_BENCH_FBB_H
#define ETPROF_BENCH_FBB_H

#include <stddef.h>
#include <stdint.h>

#define FBB_MAX_FIELDS 24   /* highest field id + 1 supported in one table */
#define FBB_VT_CACHE 256    /* vtable cache slots (power of two) */

enum {
  FBB_ERR_NOMEM = 1, /* allocation failed */
  FBB_ERR_RULE = 2,  /* a layout rule was broken: backward/flushed patch, too many fields, ... */
  FBB_ERR_WRITE = 3, /* write(2) failed (errno tells why) */
};

typedef struct fbb_field {
  uint16_t id;
  uint8_t size;   /* 1, 2, 4 or 8 bytes; offsets are 4 */
  uint8_t is_off; /* 1: uoffset slot to patch later */
  uint64_t val;   /* little-endian bit pattern of the scalar */
} fbb_field;

typedef struct fbb_vt_ent {
  uint64_t pos;                       /* absolute position of the stored vtable */
  uint32_t hash;
  uint16_t len;                       /* 0: empty slot */
  uint8_t bytes[4 + 2 * FBB_MAX_FIELDS];
} fbb_vt_ent;

typedef struct fbb {
  uint8_t *buf;
  size_t len, cap;
  uint64_t base;  /* absolute file offset of buf[0] */
  int failed;     /* sticky: FBB_ERR_* of the first failure, 0 if none */

  fbb_field fields[FBB_MAX_FIELDS]; /* the table being built */
  int nfields;
  uint64_t slots[FBB_MAX_FIELDS];   /* offset slots of the last ended table, by field id; 0 = none */

  uint64_t root_slot; /* header: position of the root uoffset (0 = no header) */
  uint64_t size_slot; /* header: position of the size prefix, UINT64_MAX if not size-prefixed */

  fbb_vt_ent vt[FBB_VT_CACHE];
  uint64_t vt_written; /* statistics: vtables written */
  uint64_t vt_shared;  /* statistics: vtable reuses */
} fbb;

/* Initialise an empty builder whose first byte will be at absolute file offset `base`. */
int fbb_init(fbb *b, uint64_t base, size_t initial_cap);
void fbb_free(fbb *b);
/* Absolute position of the next byte to be written. */
static inline uint64_t fbb_pos(const fbb *b) { return b->base + b->len; }

/* Append zero bytes until (pos + bias) % align == 0. align is a power of two. */
void fbb_align(fbb *b, unsigned align, unsigned bias);
/* Append n zero bytes; returns the absolute position of the first. */
uint64_t fbb_zeros(fbb *b, size_t n);
/* Append raw bytes; returns their absolute position. */
uint64_t fbb_bytes(fbb *b, const void *p, size_t n);
/* Overwrite a little-endian u32 at an absolute position still in the buffer. */
void fbb_put_u32_at(fbb *b, uint64_t pos, uint32_t v);

/* File header: [u32 size prefix if size_prefixed][u32 root uoffset][4-byte identifier or none].
 * Must be the first thing written by a builder whose base is 0. */
void fbb_file_header(fbb *b, const char *ident /* 4 chars or NULL */, int size_prefixed);
/* Point the header's root uoffset at the root table. */
void fbb_set_root(fbb *b, uint64_t root_table);
/* Store the size prefix for a final file of total_len bytes (prefix = total_len - 4). */
void fbb_set_size(fbb *b, uint64_t total_len);

/* Tables. Scalars equal to `def` are omitted. fbb_add_offset reserves a uoffset slot. */
void fbb_table_begin(fbb *b);
void fbb_add_u8(fbb *b, unsigned id, uint8_t v, uint8_t def);
void fbb_add_i8(fbb *b, unsigned id, int8_t v, int8_t def);
void fbb_add_i32(fbb *b, unsigned id, int32_t v, int32_t def);
void fbb_add_u32(fbb *b, unsigned id, uint32_t v, uint32_t def);
void fbb_add_i64(fbb *b, unsigned id, int64_t v, int64_t def);
void fbb_add_u64(fbb *b, unsigned id, uint64_t v, uint64_t def);
void fbb_add_offset(fbb *b, unsigned id);
/* Writes the vtable (unless an identical one can be shared) and the table; returns the table's
 * absolute position. Offset slots are then available through fbb_slot(). */
uint64_t fbb_table_end(fbb *b);
/* Absolute position of field `id`'s uoffset slot in the last ended table (0 if not an offset). */
static inline uint64_t fbb_slot(const fbb *b, unsigned id) {
  return id < FBB_MAX_FIELDS ? b->slots[id] : 0;
}

/* Point the uoffset slot at `target` (an object start: table, string length or vector count). */
void fbb_patch(fbb *b, uint64_t slot, uint64_t target);

/* Strings: u32 length, bytes, NUL; 4-aligned. Returns the position of the length. */
uint64_t fbb_string(fbb *b, const char *s, size_t n);
/* Scalar vector: u32 count then count*elem_size bytes (zeros if data is NULL), data aligned to
 * max(4, elem_size, align). Returns the position of the count. */
uint64_t fbb_vec_scalars(fbb *b, const void *data, size_t elem_size, size_t count, unsigned align);
/* Vector of uoffsets (tables or strings): u32 count then count zeroed slots. Element i's slot
 * is at (returned position + 4 + 4 * i). */
uint64_t fbb_vec_offsets(fbb *b, size_t count);

/* Write the buffered bytes to fd at the current file position, then empty the buffer
 * (base advances). Returns 0 on success, -1 on error (b->failed is set). */
int fbb_flush_fd(fbb *b, int fd);
/* Human-readable text for b->failed. */
const char *fbb_strerror(int failed);

#endif
