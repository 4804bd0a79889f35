/* etr_mutate.h - an ETRecord-aware mutator (fuzz/etr_mutate.c): mutates one JSON entry of a ZIP
 * and writes the ZIP again with valid CRCs and sizes (a raw byte mutation of a ZIP almost never
 * passes libzip's CRC check, so it never reaches the JSON parser). */
#ifndef ETPROF_ETR_MUTATE_H
#define ETPROF_ETR_MUTATE_H

#include <stddef.h>
#include <stdint.h>

/* Mutates data[0..size) (an ETRecord) in place, chosen by `seed` (the same seed and input give
 * the same result): one JSON entry is changed (an array element repeated up to 2^18 times, a
 * value nested deep, a run of whitespace, an extreme number, a long or escaped string, a value
 * of another type, a key repeated, a span cut, a byte changed) and every entry written again,
 * deflated or stored, with its CRC-32 and sizes. Returns the new size (<= max_size), or 0 when
 * the input is not a ZIP with a JSON entry or the result would not fit (the caller then
 * mutates bytes). */
size_t etprof_etr_mutate(uint8_t *data, size_t size, size_t max_size, uint32_t seed);

#endif
