/* neutron.c - NXP Neutron (NeutronBackend), models built with --use_profiling: post-hoc events
 * made from the Neutron profiling buffer, int ids 0..N (delegate_debug_id_int), in the Neutron
 * device clock (32-bit); metadata is 1 byte, the function code: 0 = the profiling dump (the
 * final event, its time is the dump's overhead, not an op), else the kernel number.
 * (../shared/docs/user-needs.md section 2.) */
#include "backend_int.h"

#include <math.h>

static bool event(const etp_mevent *e) {
    size_t n;
    return e->kind == ETP_KIND_DELEGATE_INTERNAL && e->ev.type == ETP_EVENT_PROFILE &&
           e->ev.profile.delegate_debug_id_int >= 0 && etp__be_meta(e, &n) && n == 1;
}

static int account(etp_backend_figures *f, const etp_mevent *e) {
    size_t n;
    const uint8_t *p = etp__be_meta(e, &n);
    if (!f->neutron_ops && !f->neutron_dump_events && !f->neutron_other_unit)
        f->neutron_unit = e->unit;
    if (e->unit != f->neutron_unit || isnan(e->value)) {
        f->neutron_other_unit++;
        return ETP_OK;
    }
    if (p[0] == 0) {
        f->neutron_dump_events++;
        f->neutron_dump_time += e->value;
    } else {
        f->neutron_ops++;
        f->neutron_op_time += e->value;
    }
    return ETP_OK;
}

static bool device_row(const etp_ops_row *w, bool mine) {
    (void)w;
    return mine;
}

const etp_backend_decoder etp__be_neutron = {
    {"NeutronBackend", "NXP Neutron", ETP_BID_INT,
     "Neutron device clock (32-bit); the last event adds host ticks", "device",
     "int ids 0..N; metadata's function code names the kernel", ETP_BMETA_FUNCTION_CODE, false},
    "NeutronBackend (inferred)",
    NULL, false, event, account, NULL, event, /* every event: the Neutron clock */
    device_row,
};
