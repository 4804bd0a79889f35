/* arm.c - Arm backends. (../shared/docs/user-needs.md section 2.)
 * Ethos-U (EthosUBackend): no delegate events; plain profiling scopes become ordinary named
 *   events carrying the DELEGATE_CALL's instruction id: "EthosUBackend::execute()", and
 *   sub-scopes with a leading '+': "+EthosUBackend::execute()NPU". On the bare-metal runner the
 *   ticks are the Cortex-M PMU cycle counter (--tick-hz gives the core clock). No metadata.
 * VGF (VgfBackend): real-time host phases VGF_* (VGF_INIT_TOTAL, VGF_EXECUTE, ...), and an
 *   optional VGF_NEURAL_STATISTICS event whose metadata is JSON: schema
 *   "executorch.vgf.neural_statistics", schema_version 1, segments[] whose blobs
 *   (debug_database, statistics_info, statistics_memory) are {available, is_text,
 *   vulkan_result, size, encoding: "base64", reason, data}.
 * Cortex-M (not a delegate): cortex_m::* operators are ordinary kernel events, CPU cycles. */
#include "backend_int.h"
#include "b64log.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Ethos-U ---- */
static bool ethosu_name(const char *n) {
    if (!n) return false;
    if (n[0] == '+') n++;
    return !strncmp(n, "EthosUBackend::", 15);
}

static bool ethosu_child(const etp_ops_row *d, const etp_ops_row *c) {
    (void)d;
    return ethosu_name(c->name);
}

static bool ethosu_event(const etp_mevent *e) {
    return e->ev.type == ETP_EVENT_PROFILE && ethosu_name(e->label);
}

static int ethosu_account(etp_backend_figures *f, const etp_mevent *e) {
    if (e->label[0] == '+') f->ethosu_subscopes++;
    else f->ethosu_scopes++;
    if (!strcmp(e->label, "+EthosUBackend::execute()NPU") && !isnan(e->value)) {
        if (!f->ethosu_npu_scopes) f->ethosu_unit = e->unit;
        if (e->unit == f->ethosu_unit) {
            f->ethosu_npu_scopes++;
            f->ethosu_npu_time += e->value;
        }
    }
    return ETP_OK;
}

/* "+EthosUBackend::execute()NPU" groups under its sub-scope name without the '+' */
static const char *ethosu_group(const char *name, char *buf, size_t cap) {
    const char *s = name ? name : "";
    if (s[0] == '+') s++;
    return etp__be_label_copy(buf, cap, s);
}

const etp_backend_decoder etp__be_ethosu = {
    {"EthosUBackend", "Arm Ethos-U", ETP_BID_NAME,
     "Cortex-M PMU cycles on bare metal (ticks; --tick-hz gives the core clock)", "host",
     "named scopes; a leading '+' marks a sub-scope (a child)", ETP_BMETA_NONE, false},
    "EthosUBackend (inferred)",
    ethosu_child, false, ethosu_event, ethosu_account, ethosu_group, NULL, NULL,
};

/* ---- VGF ---- */
static bool vgf_name(const char *n) { return n && !strncmp(n, "VGF_", 4); }

static bool vgf_child(const etp_ops_row *d, const etp_ops_row *c) {
    (void)d;
    return vgf_name(c->name);
}

static bool vgf_event(const etp_mevent *e) {
    return e->ev.type == ETP_EVENT_PROFILE && e->kind == ETP_KIND_DELEGATE_INTERNAL &&
           vgf_name(e->label);
}

/* one blob {available, size, encoding, data} */
static int vgf_blob(etp_backend_figures *f, json_t *b) {
    if (!json_is_object(b)) return ETP_OK;
    f->vgf_blobs++;
    if (!json_is_true(json_object_get(b, "available"))) return ETP_OK;
    f->vgf_blobs_available++;
    const char *enc = json_string_value(json_object_get(b, "encoding"));
    const char *data = json_string_value(json_object_get(b, "data"));
    json_t *sz = json_object_get(b, "size");
    if (!enc || strcmp(enc, "base64") || !data || !json_is_integer(sz)) {
        f->vgf_blobs_bad++;
        return ETP_OK;
    }
    size_t n = strlen(data), got = 0;
    if (!n) {
        if (json_integer_value(sz) == 0) f->vgf_blobs_decoded++;
        else f->vgf_blobs_bad++;
        return ETP_OK;
    }
    uint8_t *out = malloc(n / 4 * 3 + 3);
    if (!out) return ETP_E_INTERNAL;
    if (etp__b64_decode((const uint8_t *)data, n, out, &got) == ETP_OK &&
        (json_int_t)got == json_integer_value(sz)) {
        f->vgf_blobs_decoded++;
        f->vgf_blob_bytes += got;
    } else f->vgf_blobs_bad++;
    free(out);
    return ETP_OK;
}

static int vgf_stats(etp_backend_figures *f, const etp_mevent *e) {
    f->vgf_stats_events++;
    size_t n;
    const uint8_t *p = etp__be_meta(e, &n);
    if (p && n && p[n - 1] == 0) n--;
    json_t *j = p && n ? json_loadb((const char *)p, n, 0, NULL) : NULL;
    const char *schema = json_string_value(json_object_get(j, "schema"));
    json_t *segs = json_object_get(j, "segments");
    if (!schema || strcmp(schema, "executorch.vgf.neural_statistics") || !json_is_array(segs)) {
        f->vgf_stats_bad++;
        json_decref(j);
        return ETP_OK;
    }
    static const char *const blobs[] = {"debug_database", "statistics_info", "statistics_memory"};
    int rc = ETP_OK;
    size_t i;
    json_t *s;
    json_array_foreach(segs, i, s) {
        f->vgf_segments++;
        for (size_t k = 0; k < 3 && !rc; k++) rc = vgf_blob(f, json_object_get(s, blobs[k]));
    }
    json_decref(j);
    return rc;
}

static int vgf_account(etp_backend_figures *f, const etp_mevent *e) {
    if (!strcmp(e->label, "VGF_NEURAL_STATISTICS")) return vgf_stats(f, e);
    f->vgf_phases++;
    if (!strcmp(e->label, "VGF_EXECUTE") && !isnan(e->value)) {
        if (f->vgf_unit == ETP_UNIT_NONE) f->vgf_unit = e->unit;
        if (e->unit == f->vgf_unit) f->vgf_execute_time += e->value;
    }
    return ETP_OK;
}

const etp_backend_decoder etp__be_vgf = {
    {"VgfBackend", "Arm VGF", ETP_BID_STRING, "CPU PAL ticks (VGF_* phases)", "host",
     "fixed VGF_* phase names", ETP_BMETA_JSON, false},
    "VgfBackend (inferred)",
    vgf_child, false, vgf_event, vgf_account, NULL, NULL, NULL,
};
