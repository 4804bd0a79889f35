/* layer_seed.c - a seeded violation for the layer test (tests/check_layers.py --extra): compiled
 * as if it were a file of src/read/, it calls the ops analysis (src/analyze/), which the rule
 * forbids; the test passes only when the checker fails on it. */
#include "etprof.h"

size_t layer_seed_rows(const etp_ops_result *r);
size_t layer_seed_rows(const etp_ops_result *r) { return etp_ops_row_count(r); }
