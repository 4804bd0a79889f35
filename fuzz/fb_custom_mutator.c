/* fb_custom_mutator.c - libFuzzer's custom mutator for the FlatBuffer targets (etdump, pte, cli):
 * half of the mutations are FlatBuffer-aware (fuzz/fb_mutate.c), half libFuzzer's own. */
#include "fb_mutate.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    if (seed & 1) return LLVMFuzzerMutate(data, size, max_size);
    size_t n = etprof_fb_mutate(data, size, max_size, seed >> 1);
    return n ? n : LLVMFuzzerMutate(data, size, max_size);
}
