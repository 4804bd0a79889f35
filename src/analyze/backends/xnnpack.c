/* xnnpack.c - XNNPACK (XnnpackBackend): after each xnn_runtime invoke, one post-hoc event per
 * operator, named "<XNNPACK op name> #<k>" (k counts repeats of the name), its per-op
 * microseconds converted to PAL ticks and laid back to back from the invoke's start: the same
 * host clock as the DELEGATE_CALL. No metadata. (../shared/docs/user-needs.md section 2.) */
#include "backend_int.h"
#include "etprof_runs.h"

#include <string.h>

/* "<something> #<digits>" */
static bool shaped(const char *s) {
    if (!s) return false;
    size_t n = strlen(s), k = n;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9') k--;
    return k < n && k >= 3 && s[k - 1] == '#' && s[k - 2] == ' ';
}

/* every delegate-internal child "<op> #<k>", timed in the DELEGATE_CALL's own (host) unit */
static bool child(const etp_ops_row *d, const etp_ops_row *c) {
    return shaped(c->name) && c->unit == d->unit;
}

const etp_backend_decoder etp__be_xnnpack = {
    {"XnnpackBackend", "XNNPACK", ETP_BID_STRING,
     "PAL ticks (XNNPACK's per-op microseconds converted; ops laid back to back from the "
     "invoke's start)",
     "host", "\"<op> #<k>\" -> \"<op>\" (the repeat counter dropped)", ETP_BMETA_NONE, true},
    "XnnpackBackend (inferred)",
    child, true, NULL, NULL, etp_optype_of_name, NULL, NULL,
};
