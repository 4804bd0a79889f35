/* qnn.c - Qualcomm QNN (QnnBackend): one post-hoc event per top-level QNN profile event, plus
 * the HTP NODE sub-events, named by the QNN identifier with a unit suffix; start 0 and end the
 * value (no timeline). The QNN figures themselves are src/qnn_*.c; this entry only recognises
 * the backend and names its unit. (../shared/docs/user-needs.md section 2.) */
#include "backend_int.h"

/* any QNN-classified event inside */
static bool child(const etp_ops_row *d, const etp_ops_row *c) {
    (void)d;
    return c->qnn != ETP_QNN_NONE;
}

const etp_backend_decoder etp__be_qnn = {
    {"QnnBackend", "QNN", ETP_BID_STRING,
     "the unit suffix of the name: \" (us)\", \" (cycles)\" (none), \" (bytes)\", \" (count)\"",
     "none", "HTP nodes \"aten_<op>_..:OpId_N (cycles)\" -> the aten op", ETP_BMETA_NONE, false},
    "QnnBackend (inferred)",
    child, false, NULL, NULL, NULL, NULL, NULL,
};
