/* program_devices.c - where a newer program puts its planned memory buffers and tensors when not
 * on the CPU (ExecutionPlan.non_const_buffer_device, Tensor.extra_tensor_info device fields; read
 * by src/read/pte.c), as the one sentence that `info` and the summary's placement show. */
#include "etprof.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define DEV_SHOWN 8 /* buffers named in the sentence; the count says the rest */

static void dev_name(int type, int index, char *b, size_t n) {
    const char *t = etp_device_type_name(type);
    if (t && index >= 0) snprintf(b, n, "%s:%d", t, index);
    else if (t) snprintf(b, n, "%s", t);
    else if (index >= 0) snprintf(b, n, "device type %d:%d", type, index);
    else snprintf(b, n, "device type %d", type);
}

/* appends to buf (capacity n, k bytes used), truncating */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void add(char *buf, size_t n, size_t *k, const char *fmt, ...) {
    if (*k + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *k, n - *k, fmt, ap);
    va_end(ap);
    if (w > 0) *k = (size_t)w < n - *k ? *k + (size_t)w : n - 1;
}

bool etp_program_device_note(const etp_program *p, uint32_t plan, char *buf, size_t n) {
    if (n) buf[0] = 0;
    if (!p || !n) return false;
    etp_buffer_device bd[DEV_SHOWN];
    int nb = etp_program_buffer_devices(p, plan, bd, DEV_SHOWN);
    uint32_t tensors = 0, nv = etp_program_value_count(p, plan);
    int8_t tt = 0, ti = 0;
    for (uint32_t i = 0; i < nv; i++) {
        etp_tensor_meta m;
        if (etp_program_value_tensor(p, plan, i, &m) == 1 && m.has_device &&
            m.device_type != ETP_DEVICE_CPU) {
            if (!tensors) tt = m.device_type, ti = m.device_index;
            tensors++;
        }
    }
    if (nb == 0 && tensors == 0) return false;
    size_t k = 0;
#define ADD(...) add(buf, n, &k, __VA_ARGS__)
    char dn[48];
    if (nb < 0) {
        ADD("its list of planned buffers on devices (non_const_buffer_device) is malformed: "
            "which buffers are off the CPU cannot be told");
    } else if (nb > 0) {
        ADD("the program plans ");
        for (int i = 0; i < nb && i < DEV_SHOWN; i++) {
            dev_name(bd[i].device_type, bd[i].device_index, dn, sizeof dn);
            ADD("%sbuffer %d on %s", i ? (i + 1 == nb ? " and " : ", ") : "", (int)bd[i].buffer,
                dn);
        }
        if (nb > DEV_SHOWN) ADD(" (and %d more)", nb - DEV_SHOWN);
        ADD(" (non_const_buffer_device): the tensors planned there live in that device's memory, "
            "not the CPU's");
    }
    if (tensors) {
        dev_name(tt, ti, dn, sizeof dn);
        ADD("%s%u tensor(s) declared on a device other than the CPU (extra_tensor_info; the first "
            "on %s)",
            k ? "; " : "", tensors, dn);
    }
#undef ADD
    return true;
}
