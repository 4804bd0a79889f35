/* etr_custom_mutator.c - libFuzzer's custom mutator for the etrecord target: half of the
 * mutations change one JSON entry and write the ZIP again with valid CRCs (fuzz/etr_mutate.c),
 * half are libFuzzer's own (the container's bytes). */
#include "etr_mutate.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    if (seed & 1) return LLVMFuzzerMutate(data, size, max_size);
    size_t n = etprof_etr_mutate(data, size, max_size, seed >> 1);
    return n ? n : LLVMFuzzerMutate(data, size, max_size);
}
