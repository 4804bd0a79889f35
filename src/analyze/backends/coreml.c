/* coreml.c - Apple Core ML (CoreMLBackend): per-MIL-op events built from MLComputePlan. The
 * model's whole wall time is split across its ops by each op's estimatedCost, so per-op times
 * are ESTIMATES laid one after another. Names: the debug symbol, or "<first output
 * name>:<operatorName>". Metadata: a JSON object {"preferredComputeUnit": "NE"|"CPU"|"GPU",
 * "supportedComputeUnits": [...], "outputNames": [...], "operatorName": "...",
 * "estimatedCost": double}. (../shared/docs/user-needs.md section 2.) */
#include "backend_int.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

/* Core ML's metadata: a JSON object holding preferredComputeUnit or estimatedCost. NULL when
 * not (the caller json_decref()s a non-NULL result). */
static json_t *meta_json(const etp_mevent *e) {
    size_t n;
    const uint8_t *p = etp__be_meta(e, &n);
    if (!p || n < 2) return NULL;
    if (p[n - 1] == 0) n--;
    if (!n || p[0] != '{') return NULL;
    json_t *j = json_loadb((const char *)p, n, 0, NULL);
    if (j && json_is_object(j) &&
        (json_object_get(j, "preferredComputeUnit") || json_object_get(j, "estimatedCost")))
        return j;
    json_decref(j);
    return NULL;
}

static bool event(const etp_mevent *e) {
    if (e->kind != ETP_KIND_DELEGATE_INTERNAL) return false;
    json_t *j = meta_json(e);
    json_decref(j);
    return j != NULL;
}

static etp_coreml_cu cu_of(const char *s) {
    if (!s) return ETP_CU_OTHER;
    if (!strcmp(s, "NE")) return ETP_CU_NE;
    if (!strcmp(s, "CPU")) return ETP_CU_CPU;
    if (!strcmp(s, "GPU")) return ETP_CU_GPU;
    return ETP_CU_OTHER;
}

static int account(etp_backend_figures *f, const etp_mevent *e) {
    json_t *j = meta_json(e);
    if (!j) return ETP_OK;
    etp_coreml_cu cu = cu_of(json_string_value(json_object_get(j, "preferredComputeUnit")));
    json_t *sup = json_object_get(j, "supportedComputeUnits");
    json_t *cost = json_object_get(j, "estimatedCost");
    double c = json_is_number(cost) ? json_number_value(cost) : NAN;
    if (json_is_array(sup) && json_array_size(sup) > 1) f->coreml_multi_cu++;
    json_decref(j);
    if (!f->coreml_ops && !f->coreml_other_unit) f->coreml_unit = e->unit;
    if (e->unit != f->coreml_unit || isnan(e->value)) {
        f->coreml_other_unit++;
        return ETP_OK;
    }
    f->coreml_ops++;
    f->coreml_ops_cu[cu]++;
    f->coreml_time += e->value;
    f->coreml_time_cu[cu] += e->value;
    if (!isnan(c)) {
        f->coreml_cost += c;
        f->coreml_cost_cu[cu] += c;
    }
    return ETP_OK;
}

/* "<output>:<operatorName>" -> the operator name; a debug symbol stays as is */
static const char *group(const char *name, char *buf, size_t cap) {
    const char *s = name ? name : "";
    const char *c = strrchr(s, ':');
    if (c && c[1] && c > s && c[-1] != ':') s = c + 1;
    return etp__be_label_copy(buf, cap, s);
}

const etp_backend_decoder etp__be_coreml = {
    {"CoreMLBackend", "Core ML", ETP_BID_STRING,
     "ns (the model's wall time split by estimatedCost: per-op times are estimates)", "host",
     "the debug symbol, or \"<output>:<operatorName>\" -> operatorName", ETP_BMETA_JSON, false},
    "CoreMLBackend (inferred)",
    NULL, false, event, account, group, NULL, NULL,
};
