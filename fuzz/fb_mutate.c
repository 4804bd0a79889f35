/* fb_mutate.c - a FlatBuffer-aware mutator: it changes fields, not bytes (issue 16.5).
 *
 * Byte-level mutation rarely produces the inputs that break a FlatBuffer reader after its
 * verifier: a string whose length is off by one or holds a NUL, a vector whose count runs past
 * the buffer, two references to one table (shared tables), a vtable entry pointing outside its
 * table. This mutator finds the FlatBuffer structure without a schema - every aligned 32-bit word
 * that, read as a forward uoffset, lands inside the buffer, and what it lands on: a string (length,
 * bytes, NUL), a vector (count) or a table (soffset to a plausible vtable) - and changes one of
 * those fields. Used by the libFuzzer targets (LLVMFuzzerCustomMutator, half of the mutations) and
 * by the replay driver's --fb-mutate mode under ctest, so the same mutations run on every machine.
 */
#include "fb_mutate.h"

#include <string.h>

#define MAX_REFS 4096

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void wr32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static void wr16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static uint32_t next(uint32_t *s) { /* xorshift32 */
    uint32_t x = *s ? *s : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

typedef struct ref {
    uint32_t at;     /* position of the uoffset */
    uint32_t target; /* where it points */
} ref;

/* A string at t: length L, L bytes, a NUL, all inside the buffer. */
static bool is_string(const uint8_t *d, size_t size, uint32_t t) {
    if ((size_t)t + 4 > size) return false;
    uint32_t len = rd32(d + t);
    return len > 0 && len < 65536 && (size_t)t + 4 + len < size && d[t + 4 + len] == 0;
}

/* A table at t: its soffset leads to a vtable inside the buffer with even, plausible sizes. */
static bool table_vtable(const uint8_t *d, size_t size, uint32_t t, uint32_t *vt) {
    if ((size_t)t + 4 > size) return false;
    int64_t v = (int64_t)t - (int32_t)rd32(d + t);
    if (v < 0 || (uint64_t)v + 4 > size || (v & 1)) return false;
    uint16_t vlen = rd16(d + v), tlen = rd16(d + v + 2);
    if (vlen < 6 || (vlen & 1) || (uint64_t)v + vlen > size || tlen < 4 || t + (size_t)tlen > size)
        return false;
    *vt = (uint32_t)v;
    return true;
}

size_t etprof_fb_mutate(uint8_t *d, size_t size, size_t max_size, uint32_t seed) {
    (void)max_size;
    if (size < 16 || size > UINT32_MAX) return 0;
    uint32_t rng = seed * 2654435761u + 1;
    /* size-prefixed (ETDump: "ED00" at byte 8) or plain */
    uint32_t base = memcmp(d + 8, "ED00", 4) == 0 ? 4 : 0;
    bool prefixed = base == 4 && rd32(d) == size - 4;
    static ref refs[MAX_REFS];
    size_t n = 0;
    uint32_t start = base + 4 * (next(&rng) % 4); /* vary which part of a big file is sampled */
    for (uint32_t p = start; (size_t)p + 4 <= size && n < MAX_REFS; p += 4) {
        uint32_t v = rd32(d + p);
        if (v < 4 || (v & 3) || (uint64_t)p + v + 4 > size) continue;
        refs[n++] = (ref){p, p + v};
    }
    if (n == 0) return 0;
    for (int attempt = 0; attempt < 16; attempt++) {
        ref r = refs[next(&rng) % n];
        uint32_t t = r.target, vt;
        switch (next(&rng) % 6) {
        case 0: /* a NUL inside a string */
            if (!is_string(d, size, t)) continue;
            d[t + 4 + next(&rng) % rd32(d + t)] = 0;
            break;
        case 1: { /* a string's length off by a little or a lot */
            if (!is_string(d, size, t)) continue;
            uint32_t len = rd32(d + t);
            const uint32_t pick[] = {0, len - 1, len + 1, len + 4, (uint32_t)(size - t - 4),
                                     (uint32_t)(size - t - 3), 0x7fffffffu, 0xffffffffu};
            wr32(d + t, pick[next(&rng) % 8]);
            break;
        }
        case 2: { /* shared reference: this uoffset points at another's target */
            ref o = refs[next(&rng) % n];
            if (o.target <= r.at) continue;
            wr32(d + r.at, o.target - r.at);
            break;
        }
        case 3: { /* many references to one target: a shared-table bomb */
            ref o = refs[next(&rng) % n];
            int done = 0;
            for (size_t k = 0; k < n && done < 64; k++)
                if (refs[k].at < o.target && refs[k].at != o.at && next(&rng) % 4 == 0) {
                    wr32(d + refs[k].at, o.target - refs[k].at);
                    done++;
                }
            if (!done) continue;
            break;
        }
        case 4: { /* a vector's count */
            uint32_t cnt = rd32(d + t);
            if (is_string(d, size, t) || cnt == 0 || cnt > 1u << 20) continue;
            const uint32_t pick[] = {0, cnt + 1, cnt * 2 + 1, (uint32_t)((size - t) / 4),
                                     0x3fffffffu, 0xffffffffu};
            wr32(d + t, pick[next(&rng) % 6]);
            break;
        }
        case 5: { /* a vtable entry: absent, at the table's end, past it, or huge */
            if (!table_vtable(d, size, t, &vt)) continue;
            uint16_t vlen = rd16(d + vt), tlen = rd16(d + vt + 2);
            uint32_t field = next(&rng) % (uint32_t)((vlen - 4) / 2);
            const uint16_t pick[] = {0, (uint16_t)(tlen - 1), tlen, (uint16_t)(tlen + 4), 0xffff, 4};
            wr16(d + vt + 4 + 2 * field, pick[next(&rng) % 6]);
            break;
        }
        }
        /* keep the size prefix right most of the time, so the mutation reaches the verifier */
        if (base == 4 && (prefixed ? next(&rng) % 8 != 0 : false)) wr32(d, (uint32_t)(size - 4));
        return size;
    }
    return 0;
}
