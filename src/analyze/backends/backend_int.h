/* backend_int.h - one backend decoder (internal; docs/backends.md "Adding a backend"). Each file
 * of src/analyze/backends/ defines one or more of these; src/analyze/backend.c lists them in its registry.
 * A decoder is the public etp_backend_info (the facts) plus small rules:
 *   child    - does this delegate-internal row (directly inside DELEGATE_CALL `dcall`) look like
 *              one of ours? Used without --pte to infer the backend (etp_backend_infer).
 *   all      - inference needs every delegate-internal child to match (else: any one).
 *   event    - is this event one of ours (the figures walk; no program needed)?
 *   account  - adds one of our events to the figures.
 *   group    - the op type an event name groups under (NULL: the name as is).
 *   device   - this event's timestamps are in the backend's own device clock (not the host's).
 *   device_row - the same for an ops row; `mine`: its DELEGATE_CALL is this backend's.
 * Every rule may be NULL. */
#ifndef ETPROF_BACKEND_INT_H
#define ETPROF_BACKEND_INT_H

#include "etprof_backend.h"

typedef struct etp_backend_decoder {
    etp_backend_info info;
    const char *inferred; /* the text views' placement when inferred: "<name> (inferred)" */
    bool (*child)(const etp_ops_row *dcall, const etp_ops_row *child);
    bool all;
    bool (*event)(const etp_mevent *e);
    int (*account)(etp_backend_figures *f, const etp_mevent *e);
    const char *(*group)(const char *name, char *buf, size_t cap);
    bool (*device)(const etp_mevent *e);
    bool (*device_row)(const etp_ops_row *row, bool mine);
} etp_backend_decoder;

extern const etp_backend_decoder etp__be_xnnpack, etp__be_qnn, etp__be_coreml, etp__be_vulkan,
    etp__be_ethosu, etp__be_vgf, etp__be_neutron;

/* Shared helpers (src/analyze/backend.c). */
/* "<backend id> (inferred)" (static) for DELEGATE_CALL row `row` when its backend was inferred,
 * else NULL. */
const char *etp__backend_inferred_label(const etp_ops_result *r, size_t row);
/* The event's delegate_debug_metadata (NULL, 0 when none). */
const uint8_t *etp__be_meta(const etp_mevent *e, size_t *n);
/* The event's value in ns when its unit is a time (ns or us), else NaN. */
double etp__be_ns(const etp_mevent *e);
/* Adds `ns` to the operator group `name` of list (*g, *n): ETP_OK or ETP_E_INTERNAL. */
int etp__be_group_add(etp_backend_group **g, uint32_t *n, uint32_t *cap, const char *name,
                      double ns);
/* Copies s into buf (cap bytes, cut to fit, NUL-terminated when cap > 0); returns buf: the end
 * of every decoder's group() callback. */
const char *etp__be_label_copy(char *buf, size_t cap, const char *s);
#endif
