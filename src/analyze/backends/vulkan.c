/* vulkan.c - Vulkan (VulkanBackend). Real-time host phases ETVK_EXECUTE containing
 * ETVK_COPY_INPUTS, ETVK_RESIZE, ETVK_COMPUTE_GRAPH_EXECUTE, ETVK_COPY_OUTPUTS (PAL ticks), and
 * one post-hoc event per shader dispatch from the Vulkan query pool, in GPU timestamp ns: its own
 * clock domain. A dispatch's name is a JSON object {"operator": {"name", "delegate_node_id",
 * "args"}, "kernel_name", "operator_id", "dispatch_id"} ("operator" absent when no op JSON
 * exists); dumps older than 2025-12 name it by the plain kernel name. No metadata.
 * (../shared/docs/user-needs.md section 2.) */
#include "backend_int.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* the dispatch JSON (an object with kernel_name), NULL otherwise; caller json_decref()s */
static json_t *dispatch_json(const char *name) {
    if (!name || name[0] != '{') return NULL;
    json_t *j = json_loads(name, 0, NULL);
    if (j && json_is_object(j) && json_is_string(json_object_get(j, "kernel_name"))) return j;
    json_decref(j);
    return NULL;
}

static bool is_phase(const char *name) { return name && !strncmp(name, "ETVK_", 5); }

static bool is_dispatch(const char *name) {
    json_t *j = dispatch_json(name);
    json_decref(j);
    return j != NULL;
}

static bool child(const etp_ops_row *d, const etp_ops_row *c) {
    (void)d;
    return is_phase(c->name) || is_dispatch(c->name);
}

static bool in_vulkan(const etp_mevent *e) {
    return e->backend && !strcmp(e->backend, "VulkanBackend");
}

static bool event(const etp_mevent *e) {
    if (e->kind != ETP_KIND_DELEGATE_INTERNAL) return false;
    return is_phase(e->label) || is_dispatch(e->label) || in_vulkan(e);
}

/* operator name, else kernel name, else the name as is (old dumps: the kernel name) */
static const char *group(const char *name, char *buf, size_t cap) {
    json_t *j = dispatch_json(name);
    const char *g = name ? name : "";
    if (j) {
        const char *op = json_string_value(json_object_get(json_object_get(j, "operator"), "name"));
        g = op ? op : json_string_value(json_object_get(j, "kernel_name"));
    }
    if (cap) snprintf(buf, cap, "%s", g);
    json_decref(j);
    return buf;
}

static int account(etp_backend_figures *f, const etp_mevent *e) {
    if (is_phase(e->label)) {
        f->vulkan_phases++;
        if (!strcmp(e->label, "ETVK_EXECUTE") && !isnan(e->value)) {
            if (f->vulkan_phase_unit == ETP_UNIT_NONE) f->vulkan_phase_unit = e->unit;
            if (e->unit == f->vulkan_phase_unit) f->vulkan_execute_time += e->value;
        }
        return ETP_OK;
    }
    if (!f->vulkan_dispatches && !f->vulkan_other_unit) f->vulkan_unit = e->unit;
    if (e->unit != f->vulkan_unit || isnan(e->value)) {
        f->vulkan_other_unit++;
        return ETP_OK;
    }
    f->vulkan_dispatches++;
    f->vulkan_gpu_time += e->value;
    char g[512];
    group(e->label, g, sizeof g);
    return etp__be_group_add(&f->vulkan_ops, &f->n_vulkan_ops, &f->vulkan_ops_cap, g, e->value);
}

/* dispatches: GPU timestamps (the ETVK_* phases are host time) */
static bool device(const etp_mevent *e) { return event(e) && !is_phase(e->label); }

static bool device_row(const etp_ops_row *w, bool mine) {
    return mine ? !is_phase(w->name) : is_dispatch(w->name);
}

const etp_backend_decoder etp__be_vulkan = {
    {"VulkanBackend", "Vulkan", ETP_BID_STRING,
     "ETVK_* phases: PAL ticks; shader dispatches: GPU timestamp ns", "device",
     "dispatch names are JSON objects -> the operator name (kernel_name when none)",
     ETP_BMETA_NONE, false},
    "VulkanBackend (inferred)",
    child, false, event, account, group, device, device_row,
};
