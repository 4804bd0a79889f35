/* etdump_int.h - ETDump internals shared with the model (internal, not part of the API). */
#ifndef ETPROF_ETDUMP_INT_H
#define ETPROF_ETDUMP_INT_H

#include "etprof.h"

/* The verifier checks most events on a fast path that accepts exactly what the full verifier
 * accepts (and hands anything else to it). Tests turn it off to compare the two. */
extern bool etp__verify_fast;

/* Buffers smaller than this are verified before etp_dump_open_with(background) returns (4 MiB; tests
 * lower it). */
extern uint32_t etp__async_min;
/* Waits until the first `blocks` blocks are verified: ETP_OK, or the verification error. No-op
 * for a dump opened otherwise. */
int etp__dump_wait(const etp_dump *d, uint32_t blocks, etp_error *err);

/* A split of the verification (pair_int.h, two threads): blocks [from, count) are verified by
 * the thread that reads them, just before it reads each, instead of by the background verifier,
 * which verifies those before `from` and then waits at `from`. Begins only while the background
 * verifier has not reached `from` (false: no split, read as before). After a true, that thread
 * calls etp__dump_split_verify(b) for its blocks in order before reading each (ETP_OK, or
 * failure: it stops) and etp__dump_split_end() exactly once when it is done, however it ended.
 * When every block from `from` was verified, they count as verified by the background verifier
 * (the counts added); otherwise it verifies them again in order, so errors, their order and
 * the counts are what one pass gives. etp__dump_wait() does not see a split's blocks as
 * verified before its end. */
bool etp__dump_split_begin(const etp_dump *d, uint32_t from);
int etp__dump_split_verify(const etp_dump *d, uint32_t block, etp_error *err);
void etp__dump_split_end(const etp_dump *d);

/* During a split, the blocks before it are verified by the thread that reads them too, just
 * before it reads each (while they are in its cache), rather than by the background verifier
 * on another CPU: etp__dump_take_first() asks the verifier to stop at its next block and lend
 * its state; true when it did (false: it had already reached the split, or there is none).
 * The taker then calls etp__dump_taken_verify(n) before reading blocks below n (ETP_OK, or
 * the verifier's error for the first block that fails: it verifies no more), and
 * etp__dump_give_back() exactly once, however it ended: the verifier goes on from the first
 * block not verified (at the split, as before), or ends with that error. Only the taker calls
 * etp__dump_taken_verify; every other waiter sees the blocks verified as they pass. */
bool etp__dump_take_first(const etp_dump *d);
int etp__dump_taken_verify(const etp_dump *d, uint32_t blocks, etp_error *err);
void etp__dump_give_back(const etp_dump *d);

/* As etp_dump_event(), for a caller that decodes event after event into the same structures:
 * `ev` must hold zeros or what an earlier call (or etp_dump_event()) left there. Only the member
 * of the previous event's type is cleared; the result is the same as etp_dump_event()'s. Returns
 * the position of the event's Event table in the FlatBuffer; tpos gets the positions of a
 * profile event's start and end time fields (0 when absent or not a profile event). */
uint32_t etp__dump_event_reuse(const etp_dump *d, uint32_t block, uint32_t index, etp_event *ev,
                               uint32_t tpos[2]);

/* Files smaller than this keep their pages: a second pass over them (etprof trace makes two)
 * then costs no page faults, and their resident set is small anyway. */
#define ETP_RELEASE_MIN ((size_t)64 << 20)
/* Pages are given back in steps of this many bytes (each step costs a TLB flush). */
#define ETP_RELEASE_STEP ((uintptr_t)16 << 20)

/* The page range a streaming pass has given back (addresses; lo == hi: none yet). */
typedef struct etp__released {
    uintptr_t lo, hi;
} etp__released;

/* A streaming pass is done with buffer bytes [lo, hi) (a range that only grows from call to
 * call): when the dump lies in a file mapping made by etp_blob_open(), the whole pages inside it
 * that `r` does not cover yet are dropped from the process (MADV_DONTNEED). They stay in the page
 * cache, and a later access maps them again with the same bytes, so every pointer into the file
 * stays valid. (The kernel may drop clean file pages at any time anyway; this only does it
 * early.) Keeps the resident set of a pass over a multi-GB file within the file size, whatever
 * the pass allocates. No-op for other blobs, and for files below ETP_RELEASE_MIN. */
void etp__dump_release(const etp_dump *d, etp__released *r, uint32_t lo, uint32_t hi);

/* Repeated blocks (etdump.c "Repeated blocks"): true when the verifier found the events of
 * block b laid out byte for byte as those of block a (both verified), `delta` bytes further on,
 * apart from their times: every event of b is then a's, with every position moved by delta,
 * and its own start and end times (read where a's are, moved by delta). */
bool etp__dump_same_layout(const etp_dump *d, uint32_t a, uint32_t b, int64_t *delta);
/* The FlatBuffer (position 0 of every position above). */
const uint8_t *etp__dump_bytes(const etp_dump *d);

/* The FlatBuffer's size in bytes (the file without the size prefix and trailing bytes), and
 * the file offset of block `bi`'s events vector (-1 when it has none). */
uint64_t etp__dump_buffer_size(const etp_dump *d);
int64_t etp__dump_events_offset(const etp_dump *d, uint32_t bi);
/* The file offset of run_data[bi] (the vector element's uoffset), -1 when out of range. */
int64_t etp__dump_block_offset(const etp_dump *d, uint32_t bi);

/* The old rule of the model's per-block scratch, kept to name the likely cause in the error:
 * a block that needs more than ETP_MODEL_BUDGET_BASE + ETP_MODEL_BUDGET_PER_BYTE x the
 * FlatBuffer's size can only come from tables shared by many references (docs/verifier.md). */
#define ETP_MODEL_BUDGET_BASE ((uint64_t)64 << 20)
#define ETP_MODEL_BUDGET_PER_BYTE 8u

#include "blob.h" /* etp_blob_check, etp__blob_open_checked */
/* Checks: the identifier of an ETDump (the error etp_dump_open() gives), of a program (the
 * error of etp_program_open()), of either (the ETDump's error). */
int etp__blob_check_dump(const uint8_t *head, size_t n, const char *name, etp_error *err);
/* The same without the text allowance (a pipe's head that is text may be a serial log with a
 * base64 ETDump, b64log.h): the identifier only. */
int etp__blob_check_dump_id(const uint8_t *head, size_t n, const char *name, etp_error *err);
int etp__blob_check_program(const uint8_t *head, size_t n, const char *name, etp_error *err);
int etp__blob_check_dump_or_program(const uint8_t *head, size_t n, const char *name,
                                    etp_error *err);

#endif
