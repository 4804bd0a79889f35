/* fb_mutate.h - a FlatBuffer-aware mutator (fuzz/fb_mutate.c). */
#ifndef ETPROF_FB_MUTATE_H
#define ETPROF_FB_MUTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Mutates one FlatBuffer field of data[0..size) in place (a string's bytes or length, a vector's
   count, a uoffset made to share another's target, a vtable entry), chosen by `seed`: the same
   seed and input give the same mutation. Returns the new size (== size), or 0 when the input
   holds no structure it recognises (the caller then mutates bytes). */
size_t etprof_fb_mutate(uint8_t *data, size_t size, size_t max_size, uint32_t seed);

#endif
