/* etrecord_int.h - internals of the ETRecord reader shared with tests and the fuzz target. */
#ifndef ETPROF_ETRECORD_INT_H
#define ETPROF_ETRECORD_INT_H
#include "etprof_etrecord.h"

/* Opens a record held in memory (the fuzz target; `data` must outlive the call only). */
int etp__etrecord_open_buffer(etp_etrecord **out, const void *data, size_t size, const char *name,
                              const etp_etrecord_opts *opts, etp_error *err);
/* Splits an nn_module_stack string into at most `cap` entries pointing into `scratch`
 * (strlen(s) + 1 bytes); returns the number of entries. */
int etp__etr_split_modules(const char *s, etp_etr_module *out, uint32_t cap, char *scratch);
#endif
