/* backend.c - the backend table (etprof_backend.h, docs/backends.md). The facts come from
 * ../shared/docs/user-needs.md section 2 (each backend's ETDump conventions). */
#include "etprof_backend.h"
#include "etprof_runs.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const etp_backend_info TABLE[] = {
    {"XnnpackBackend", "XNNPACK", ETP_BID_STRING,
     "PAL ticks (XNNPACK's per-op microseconds converted; ops laid back to back from the "
     "invoke's start)",
     "host", "\"<op> #<k>\" -> \"<op>\" (the repeat counter dropped)", ETP_BMETA_NONE, true},
    {"QnnBackend", "QNN", ETP_BID_STRING,
     "the unit suffix of the name: \" (us)\", \" (cycles)\" (none), \" (bytes)\", \" (count)\"",
     "none", "HTP nodes \"aten_<op>_..:OpId_N (cycles)\" -> the aten op", ETP_BMETA_NONE, false},
    {"CoreMLBackend", "Core ML", ETP_BID_STRING,
     "ns (the model's wall time split by estimatedCost: per-op times are estimates)", "host",
     "the debug symbol, or \"<output>:<operatorName>\"", ETP_BMETA_JSON, false},
    {"VulkanBackend", "Vulkan", ETP_BID_STRING,
     "ETVK_* phases: PAL ticks; shader dispatches: GPU timestamp ns", "device",
     "dispatch names are JSON objects (operator name, kernel_name)", ETP_BMETA_NONE, false},
    {"EthosUBackend", "Arm Ethos-U", ETP_BID_NAME,
     "Cortex-M PMU cycles on bare metal (ticks)", "host",
     "named scopes; a leading '+' marks a sub-scope", ETP_BMETA_NONE, false},
    {"VgfBackend", "Arm VGF", ETP_BID_STRING, "CPU PAL ticks (VGF_* phases)", "host",
     "fixed VGF_* phase names", ETP_BMETA_JSON, false},
    {"NeutronBackend", "NXP Neutron", ETP_BID_INT,
     "Neutron device clock (32-bit); the last event adds host ticks", "device",
     "int ids 0..N; metadata's function code names the kernel", ETP_BMETA_FUNCTION_CODE, false},
};

size_t etp_backend_count(void) { return sizeof TABLE / sizeof TABLE[0]; }

const etp_backend_info *etp_backend_at(size_t i) {
    return i < etp_backend_count() ? &TABLE[i] : NULL;
}

const etp_backend_info *etp_backend_info_get(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < etp_backend_count(); i++)
        if (!strcasecmp(TABLE[i].name, name)) return &TABLE[i];
    return NULL;
}

/* "<something> #<digits>" */
static bool xnn_shaped(const char *s) {
    if (!s) return false;
    size_t n = strlen(s), k = n;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9') k--;
    return k < n && k >= 3 && s[k - 1] == '#' && s[k - 2] == ' ';
}

int etp_backend_infer(const etp_ops_result *r, size_t row, etp_backend_guess *out) {
    memset(out, 0, sizeof *out);
    if (row >= etp_ops_row_count(r)) return ETP_E_USAGE;
    const etp_ops_row *d = etp_ops_row_get(r, row);
    if (d->kind != ETP_KIND_DELEGATE_CALL) return ETP_E_USAGE;
    size_t nk = 0;
    const uint32_t *kids = etp_ops_children(r, row, &nk);
    uint32_t inner = 0, xnn = 0, qnn = 0;
    for (size_t j = 0; j < nk; j++) {
        const etp_ops_row *c = etp_ops_row_get(r, kids[j]);
        if (c->kind != ETP_KIND_DELEGATE_INTERNAL) continue;
        inner++;
        if (c->qnn != ETP_QNN_NONE) qnn++;
        if (xnn_shaped(c->name) && c->unit == d->unit) xnn++;
    }
    out->inner_rows = inner;
    if (d->placement && strcmp(d->placement, "delegate") != 0) {
        out->name = d->placement;
        out->info = etp_backend_info_get(d->placement);
        return ETP_OK;
    }
    const char *guess = NULL;
    if (qnn) guess = "QnnBackend";
    else if (inner && xnn == inner) guess = "XnnpackBackend";
    if (guess) {
        out->info = etp_backend_info_get(guess);
        out->name = out->info->name;
        out->inferred = true;
    }
    return ETP_OK;
}

int etp_backend_split_get(const etp_ops_result *r, size_t row, etp_backend_split *out) {
    memset(out, 0, sizeof *out);
    int rc = etp_ops_delegate_time_get(r, row, &out->time);
    if (rc) return rc;
    return etp_backend_infer(r, row, &out->backend);
}

const char *etp_backend_op_group(const etp_backend_info *b, const char *name, char *buf,
                                 size_t cap) {
    if (b && !strcmp(b->name, "XnnpackBackend")) return etp_optype_of_name(name, buf, cap);
    if (cap) snprintf(buf, cap, "%s", name ? name : "");
    return buf;
}

const char *etp_meta_kind_name(etp_meta_kind k) {
    switch (k) {
    case ETP_MK_JSON: return "json";
    case ETP_MK_TEXT: return "text";
    case ETP_MK_FUNCTION_CODE: return "function_code";
    case ETP_MK_HEX: return "hex";
    default: return "empty";
    }
}

/* Valid UTF-8 (no overlongs, no surrogates, at most U+10FFFF); *ctl: a control character other
 * than tab, newline or carriage return, or a NUL, was seen. */
static bool utf8_ok(const uint8_t *p, size_t n, bool *ctl) {
    *ctl = false;
    for (size_t i = 0; i < n;) {
        uint8_t c = p[i];
        if (c < 0x80) {
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) *ctl = true;
            i++;
            continue;
        }
        size_t len;
        uint32_t cp;
        if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f;
        else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f;
        else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07;
        else return false;
        if (i + len > n) return false;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xc0) != 0x80) return false;
            cp = (cp << 6) | (p[i + k] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += len;
    }
    return true;
}

static size_t put(char *buf, size_t cap, const char *s, size_t n) {
    if (cap) {
        size_t m = n < cap - 1 ? n : cap - 1;
        memcpy(buf, s, m);
        buf[m] = 0;
    }
    return n;
}

etp_meta_kind etp_backend_metadata_decode(const etp_backend_info *b, const uint8_t *p, size_t n,
                                          char *buf, size_t cap, size_t *need) {
    size_t dummy;
    if (!need) need = &dummy;
    *need = put(buf, cap, "", 0);
    if (!p || !n) return ETP_MK_EMPTY;
    if (b && b->meta == ETP_BMETA_FUNCTION_CODE && n == 1) {
        char t[64];
        int k = p[0] ? snprintf(t, sizeof t, "function code %u (kernel %u)", p[0], p[0])
                     : snprintf(t, sizeof t, "function code 0 (profiling dump)");
        *need = put(buf, cap, t, (size_t)k);
        return ETP_MK_FUNCTION_CODE;
    }
    size_t tn = n;
    if (p[tn - 1] == 0) tn--;
    bool ctl = false;
    if (tn && utf8_ok(p, tn, &ctl) && !ctl) {
        json_error_t e;
        json_t *j = json_loadb((const char *)p, tn, JSON_DECODE_ANY, &e);
        bool is_json = j && (json_is_object(j) || json_is_array(j));
        json_decref(j);
        *need = put(buf, cap, (const char *)p, tn);
        return is_json ? ETP_MK_JSON : ETP_MK_TEXT;
    }
    static const char hx[] = "0123456789abcdef";
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (cap && w + 2 < cap) {
            buf[w] = hx[p[i] >> 4];
            buf[w + 1] = hx[p[i] & 15];
            buf[w + 2] = 0;
        }
        w += 2;
    }
    *need = w;
    return ETP_MK_HEX;
}
