/* fbb: minimal forward FlatBuffer builder (see fbb.h for the model and the rules). */
#include "fbb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fail(fbb *b, int err) {
  if (!b->failed)
    b->failed = err;
}

static int reserve(fbb *b, size_t extra) {
  if (b->failed)
    return -1;
  if (b->len + extra <= b->cap)
    return 0;
  size_t ncap = b->cap ? b->cap : 4096;
  while (ncap < b->len + extra)
    ncap *= 2;
  uint8_t *nb = realloc(b->buf, ncap);
  if (!nb) {
    fail(b, FBB_ERR_NOMEM);
    return -1;
  }
  b->buf = nb;
  b->cap = ncap;
  return 0;
}

static inline void put_le(uint8_t *p, uint64_t v, unsigned size) {
  for (unsigned i = 0; i < size; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

int fbb_init(fbb *b, uint64_t base, size_t initial_cap) {
  memset(b, 0, sizeof *b);
  b->base = base;
  b->size_slot = UINT64_MAX;
  if (initial_cap && reserve(b, initial_cap) != 0)
    return -1;
  return 0;
}

void fbb_free(fbb *b) {
  free(b->buf);
  b->buf = NULL;
  b->len = b->cap = 0;
}

void fbb_align(fbb *b, unsigned align, unsigned bias) {
  uint64_t pos = fbb_pos(b) + bias;
  size_t pad = (size_t)((align - (pos & (align - 1))) & (align - 1));
  if (pad && reserve(b, pad) == 0) {
    memset(b->buf + b->len, 0, pad);
    b->len += pad;
  }
}

uint64_t fbb_zeros(fbb *b, size_t n) {
  uint64_t pos = fbb_pos(b);
  if (reserve(b, n) == 0) {
    memset(b->buf + b->len, 0, n);
    b->len += n;
  }
  return pos;
}

uint64_t fbb_bytes(fbb *b, const void *p, size_t n) {
  uint64_t pos = fbb_pos(b);
  if (reserve(b, n) == 0) {
    if (n)
      memcpy(b->buf + b->len, p, n);
    b->len += n;
  }
  return pos;
}

void fbb_put_u32_at(fbb *b, uint64_t pos, uint32_t v) {
  if (b->failed)
    return;
  if (pos < b->base || pos + 4 > fbb_pos(b)) {
    fail(b, FBB_ERR_RULE);
    return;
  }
  put_le(b->buf + (pos - b->base), v, 4);
}

void fbb_file_header(fbb *b, const char *ident, int size_prefixed) {
  if (size_prefixed)
    b->size_slot = fbb_zeros(b, 4);
  b->root_slot = fbb_zeros(b, 4);
  if (ident)
    fbb_bytes(b, ident, 4);
}

void fbb_set_root(fbb *b, uint64_t root_table) { fbb_patch(b, b->root_slot, root_table); }

void fbb_set_size(fbb *b, uint64_t total_len) {
  if (b->size_slot == UINT64_MAX || total_len < 4 || total_len - 4 > UINT32_MAX) {
    fail(b, FBB_ERR_RULE);
    return;
  }
  fbb_put_u32_at(b, b->size_slot, (uint32_t)(total_len - 4));
}

/* ---- tables ------------------------------------------------------------------------------ */

void fbb_table_begin(fbb *b) { b->nfields = 0; }

static void add_field(fbb *b, unsigned id, unsigned size, uint64_t val, int is_off) {
  if (id >= FBB_MAX_FIELDS || b->nfields >= FBB_MAX_FIELDS) {
    fail(b, FBB_ERR_RULE);
    return;
  }
  fbb_field *f = &b->fields[b->nfields++];
  f->id = (uint16_t)id;
  f->size = (uint8_t)size;
  f->is_off = (uint8_t)is_off;
  f->val = val;
}

void fbb_add_u8(fbb *b, unsigned id, uint8_t v, uint8_t def) {
  if (v != def)
    add_field(b, id, 1, v, 0);
}
void fbb_add_i8(fbb *b, unsigned id, int8_t v, int8_t def) {
  if (v != def)
    add_field(b, id, 1, (uint8_t)v, 0);
}
void fbb_add_i32(fbb *b, unsigned id, int32_t v, int32_t def) {
  if (v != def)
    add_field(b, id, 4, (uint32_t)v, 0);
}
void fbb_add_u32(fbb *b, unsigned id, uint32_t v, uint32_t def) {
  if (v != def)
    add_field(b, id, 4, v, 0);
}
void fbb_add_i64(fbb *b, unsigned id, int64_t v, int64_t def) {
  if (v != def)
    add_field(b, id, 8, (uint64_t)v, 0);
}
void fbb_add_u64(fbb *b, unsigned id, uint64_t v, uint64_t def) {
  if (v != def)
    add_field(b, id, 8, v, 0);
}
void fbb_add_offset(fbb *b, unsigned id) { add_field(b, id, 4, 0, 1); }

static uint32_t vt_hash(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 16777619u;
  return h;
}

uint64_t fbb_table_end(fbb *b) {
  int n = b->nfields;
  fbb_field *f = b->fields;

  /* Largest fields first: with the table start chosen so that (table + 4) is aligned to the
   * largest size, every field is then naturally aligned and no padding is needed inside. */
  for (int i = 1; i < n; i++) {
    fbb_field t = f[i];
    int j = i - 1;
    while (j >= 0 && f[j].size < t.size) {
      f[j + 1] = f[j];
      j--;
    }
    f[j + 1] = t;
  }
  unsigned maxsz = 4, nslots = 0, body = 0;
  for (int i = 0; i < n; i++) {
    if (f[i].size > maxsz)
      maxsz = f[i].size;
    if (f[i].id + 1u > nslots)
      nslots = f[i].id + 1u;
    body += f[i].size;
  }

  /* Build the vtable: u16 vtable size, u16 table size, u16 field offset per slot (0 = absent). */
  uint8_t vt[4 + 2 * FBB_MAX_FIELDS];
  size_t vtlen = 4 + 2 * (size_t)nslots;
  memset(vt, 0, vtlen);
  put_le(vt, vtlen, 2);
  put_le(vt + 2, 4 + body, 2);
  unsigned off = 4;
  for (int i = 0; i < n; i++) {
    put_le(vt + 4 + 2 * f[i].id, off, 2);
    off += f[i].size;
  }

  uint32_t h = vt_hash(vt, vtlen);
  fbb_vt_ent *e = &b->vt[h & (FBB_VT_CACHE - 1)];
  /* Where the table will start if no vtable has to be written first. */
  uint64_t tpos = fbb_pos(b);
  tpos += (maxsz - ((tpos + 4) & (maxsz - 1))) & (maxsz - 1);
  uint64_t vtpos;
  if (e->len == vtlen && e->hash == h && memcmp(e->bytes, vt, vtlen) == 0 &&
      tpos - e->pos <= INT32_MAX) {
    vtpos = e->pos;
    b->vt_shared++;
  } else {
    fbb_align(b, 2, 0);
    vtpos = fbb_bytes(b, vt, vtlen);
    e->pos = vtpos;
    e->hash = h;
    e->len = (uint16_t)vtlen;
    memcpy(e->bytes, vt, vtlen);
    b->vt_written++;
  }

  fbb_align(b, maxsz, 4);
  uint64_t table = fbb_pos(b);
  memset(b->slots, 0, sizeof b->slots);
  if (reserve(b, 4 + body) != 0)
    return table;
  uint8_t *p = b->buf + b->len;
  put_le(p, (uint32_t)(int32_t)(table - vtpos), 4); /* soffset: vtable = table - soffset */
  off = 4;
  for (int i = 0; i < n; i++) {
    put_le(p + off, f[i].val, f[i].size);
    if (f[i].is_off)
      b->slots[f[i].id] = table + off;
    off += f[i].size;
  }
  b->len += 4 + body;
  b->nfields = 0;
  return table;
}

void fbb_patch(fbb *b, uint64_t slot, uint64_t target) {
  if (target <= slot || target - slot > UINT32_MAX) {
    fail(b, FBB_ERR_RULE);
    return;
  }
  fbb_put_u32_at(b, slot, (uint32_t)(target - slot));
}

/* ---- strings and vectors ----------------------------------------------------------------- */

uint64_t fbb_string(fbb *b, const char *s, size_t n) {
  fbb_align(b, 4, 0);
  uint64_t pos = fbb_pos(b);
  if (n > UINT32_MAX || reserve(b, 4 + n + 1) != 0) {
    fail(b, FBB_ERR_RULE);
    return pos;
  }
  uint8_t *p = b->buf + b->len;
  put_le(p, (uint32_t)n, 4);
  if (n)
    memcpy(p + 4, s, n);
  p[4 + n] = 0;
  b->len += 4 + n + 1;
  return pos;
}

uint64_t fbb_vec_scalars(fbb *b, const void *data, size_t elem_size, size_t count, unsigned align) {
  unsigned a = 4;
  if (elem_size > a)
    a = (unsigned)elem_size;
  if (align > a)
    a = align;
  fbb_align(b, a, 4);
  uint64_t pos = fbb_pos(b);
  size_t nbytes = elem_size * count;
  if (count > UINT32_MAX || reserve(b, 4 + nbytes) != 0) {
    fail(b, FBB_ERR_RULE);
    return pos;
  }
  uint8_t *p = b->buf + b->len;
  put_le(p, (uint32_t)count, 4);
  if (data)
    memcpy(p + 4, data, nbytes); /* caller supplies little-endian data */
  else
    memset(p + 4, 0, nbytes);
  b->len += 4 + nbytes;
  return pos;
}

uint64_t fbb_vec_offsets(fbb *b, size_t count) {
  fbb_align(b, 4, 0);
  uint64_t pos = fbb_pos(b);
  if (count > UINT32_MAX / 4) {
    fail(b, FBB_ERR_RULE);
    return pos;
  }
  uint8_t cnt[4];
  put_le(cnt, (uint32_t)count, 4);
  fbb_bytes(b, cnt, 4);
  fbb_zeros(b, 4 * count);
  return pos;
}

int fbb_flush_fd(fbb *b, int fd) {
  if (b->failed)
    return -1;
  size_t done = 0;
  while (done < b->len) {
    ssize_t w = write(fd, b->buf + done, b->len - done);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      fail(b, FBB_ERR_WRITE);
      return -1;
    }
    done += (size_t)w;
  }
  b->base += b->len;
  b->len = 0;
  return 0;
}

const char *fbb_strerror(int failed) {
  switch (failed) {
  case 0: return "no error";
  case FBB_ERR_NOMEM: return "out of memory";
  case FBB_ERR_RULE: return "internal error: FlatBuffer layout rule broken";
  case FBB_ERR_WRITE: return "write failed";
  default: return "unknown error";
  }
}
