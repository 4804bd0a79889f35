/* backend.c - the backend registry (etprof_backend.h, docs/backends.md): one line per backend;
 * each backend's knowledge (how its events are recognised, unit and clock, naming and grouping,
 * metadata meaning) is its own file in src/analyze/backends/. The facts come from
 * ../shared/docs/user-needs.md section 2 (each backend's ETDump conventions). */
#include "backends/backend_int.h"
#include "etprof_runs.h"
#include "ops_int.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The registry: adding a backend is one file in src/analyze/backends/ and one line here. The order is
 * etp_backend_at()'s. */
static const etp_backend_decoder *const REGISTRY[] = {
    &etp__be_xnnpack, &etp__be_qnn, &etp__be_coreml, &etp__be_vulkan,
    &etp__be_ethosu,  &etp__be_vgf, &etp__be_neutron,
};
#define NREG (sizeof REGISTRY / sizeof REGISTRY[0])

size_t etp_backend_count(void) { return NREG; }

const etp_backend_info *etp_backend_at(size_t i) {
    return i < NREG ? &REGISTRY[i]->info : NULL;
}

static const etp_backend_decoder *decoder_of(const etp_backend_info *b) {
    for (size_t i = 0; i < NREG; i++)
        if (&REGISTRY[i]->info == b) return REGISTRY[i];
    return NULL;
}

const etp_backend_info *etp_backend_info_get(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < NREG; i++)
        if (!strcasecmp(REGISTRY[i]->info.name, name)) return &REGISTRY[i]->info;
    return NULL;
}

int etp_backend_infer(const etp_ops_result *r, size_t row, etp_backend_guess *out) {
    memset(out, 0, sizeof *out);
    if (row >= etp_ops_row_count(r)) return ETP_E_USAGE;
    const etp_ops_row *d = etp_ops_row_get(r, row);
    if (d->kind != ETP_KIND_DELEGATE_CALL) return ETP_E_USAGE;
    size_t nk = 0;
    const uint32_t *kids = etp_ops_children(r, row, &nk);
    uint32_t inner = 0, match[NREG] = {0};
    for (size_t j = 0; j < nk; j++) {
        const etp_ops_row *c = etp_ops_row_get(r, kids[j]);
        if (c->kind != ETP_KIND_DELEGATE_INTERNAL) continue;
        inner++;
        for (size_t b = 0; b < NREG; b++)
            if (REGISTRY[b]->child && REGISTRY[b]->child(d, c)) match[b]++;
    }
    out->inner_rows = inner;
    if (d->placement && strcmp(d->placement, "delegate") != 0) {
        out->name = d->placement;
        out->info = etp_backend_info_get(d->placement);
        return ETP_OK;
    }
    /* a backend whose rule needs one matching child first (registry order), then those whose
     * rule needs every child to match */
    const etp_backend_decoder *g = NULL;
    for (size_t b = 0; b < NREG && !g; b++)
        if (!REGISTRY[b]->all && match[b]) g = REGISTRY[b];
    for (size_t b = 0; b < NREG && !g; b++)
        if (REGISTRY[b]->all && inner && match[b] == inner) g = REGISTRY[b];
    if (g) {
        out->info = &g->info;
        out->name = g->info.name;
        out->inferred = true;
    }
    return ETP_OK;
}

const char *etp__backend_inferred_label(const etp_ops_result *r, size_t row) {
    etp_backend_guess g;
    if (etp_backend_infer(r, row, &g) != ETP_OK || !g.inferred) return NULL;
    const etp_backend_decoder *dec = decoder_of(g.info);
    return dec ? dec->inferred : NULL;
}

int etp_backend_split_get(const etp_ops_result *r, size_t row, etp_backend_split *out) {
    memset(out, 0, sizeof *out);
    int rc = etp_ops_delegate_time_get(r, row, &out->time);
    if (rc) return rc;
    return etp_backend_infer(r, row, &out->backend);
}

const char *etp_backend_op_group(const etp_backend_info *b, const char *name, char *buf,
                                 size_t cap) {
    const etp_backend_decoder *dec = decoder_of(b);
    if (dec && dec->group) return dec->group(name, buf, cap);
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

/* ---- the figures walk ---- */

const uint8_t *etp__be_meta(const etp_mevent *e, size_t *n) {
    *n = 0;
    if (e->ev.type != ETP_EVENT_PROFILE || !e->ev.profile.delegate_debug_metadata.ptr) return NULL;
    *n = e->ev.profile.delegate_debug_metadata.len;
    return *n ? e->ev.profile.delegate_debug_metadata.ptr : NULL;
}

const char *etp__be_label_copy(char *buf, size_t cap, const char *s) {
    if (cap) {
        size_t n = strlen(s);
        if (n >= cap) n = cap - 1;
        memcpy(buf, s, n);
        buf[n] = 0;
    }
    return buf;
}

int etp__be_group_add(etp_backend_group **g, uint32_t *n, uint32_t *cap, const char *name,
                      double v) {
    for (uint32_t i = 0; i < *n; i++)
        if (!strcmp((*g)[i].name, name)) {
            (*g)[i].count++;
            (*g)[i].value += v;
            return ETP_OK;
        }
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 16;
        etp_backend_group *ng = realloc(*g, nc * sizeof *ng);
        if (!ng) return ETP_E_INTERNAL;
        *g = ng;
        *cap = nc;
    }
    char *dup = strdup(name);
    if (!dup) return ETP_E_INTERNAL;
    (*g)[*n] = (etp_backend_group){dup, 1, v};
    (*n)++;
    return ETP_OK;
}

const char *etp_coreml_cu_name(etp_coreml_cu c) {
    switch (c) {
    case ETP_CU_NE: return "NE";
    case ETP_CU_CPU: return "CPU";
    case ETP_CU_GPU: return "GPU";
    default: return "other";
    }
}

static int group_cmp(const void *a, const void *b) {
    const etp_backend_group *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? 1 : -1;
    return strcmp(x->name, y->name);
}

int etp_backend_figures_get(etp_model *m, const etp_ops_result *r, etp_backend_figures *out,
                            etp_error *err) {
    memset(out, 0, sizeof *out);
    out->coreml_ane_share = NAN;
    out->runs = etp_ops_runs_kept(r);
    /* The walk decodes every run block again: only when a DELEGATE_CALL may hold events some
     * decoder accounts for (not when each is a backend without figures: QNN, XNNPACK). */
    bool need = false;
    for (size_t i = 0; i < etp_ops_row_count(r) && !need; i++) {
        if (etp_ops_row_get(r, i)->kind != ETP_KIND_DELEGATE_CALL) continue;
        etp_backend_guess g;
        if (etp_backend_infer(r, i, &g) != ETP_OK) continue;
        const etp_backend_decoder *dec = decoder_of(g.info);
        need = !dec || dec->account;
    }
    if (!need) return ETP_OK;
    int rc = ETP_OK;
    for (size_t mi = 0; mi < etp_ops_method_count(r) && !rc; mi++) {
        const etp_ops_method *meth = etp_ops_method_get(r, mi);
        const uint32_t *blocks = etp__ops_run_blocks(r, mi);
        for (uint32_t k = 0; k < meth->runs && !rc; k++) {
            etp_block_view v;
            rc = etp_model_block(m, blocks[k], &v, err);
            if (rc) break;
            for (uint32_t i = 0; i < v.n && !rc; i++) {
                const etp_mevent *e = &v.events[i];
                if (e->ev.type != ETP_EVENT_PROFILE || !e->label) continue;
                for (size_t b = 0; b < NREG && !rc; b++)
                    if (REGISTRY[b]->event && REGISTRY[b]->account && REGISTRY[b]->event(e))
                        rc = REGISTRY[b]->account(out, e);
            }
        }
    }
    if (rc == ETP_E_INTERNAL && err && !err->code)
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
    if (out->coreml_ops && out->coreml_time > 0)
        out->coreml_ane_share = 100.0 * out->coreml_time_cu[ETP_CU_NE] / out->coreml_time;
    if (out->n_vulkan_ops)
        qsort(out->vulkan_ops, out->n_vulkan_ops, sizeof *out->vulkan_ops, group_cmp);
    return rc;
}

void etp_backend_figures_free(etp_backend_figures *f) {
    if (!f) return;
    for (uint32_t i = 0; i < f->n_vulkan_ops; i++) free(f->vulkan_ops[i].name);
    free(f->vulkan_ops);
    f->vulkan_ops = NULL;
    f->n_vulkan_ops = f->vulkan_ops_cap = 0;
}

bool etp_backend_figures_any(const etp_backend_figures *f) {
    return f->coreml_ops || f->coreml_other_unit || f->vulkan_dispatches || f->vulkan_phases ||
           f->vulkan_other_unit || f->ethosu_scopes || f->ethosu_subscopes || f->vgf_phases ||
           f->vgf_stats_events || f->neutron_ops || f->neutron_dump_events ||
           f->neutron_other_unit;
}

bool etp_backend_event_device_clock(const etp_mevent *e) {
    if (e->ev.type != ETP_EVENT_PROFILE || e->kind != ETP_KIND_DELEGATE_INTERNAL || !e->label)
        return false;
    for (size_t b = 0; b < NREG; b++)
        if (REGISTRY[b]->device && REGISTRY[b]->device(e)) return true;
    return false;
}

bool etp_backend_row_device_clock(const etp_ops_result *r, size_t row) {
    if (row >= etp_ops_row_count(r)) return false;
    const etp_ops_row *w = etp_ops_row_get(r, row);
    if (w->kind != ETP_KIND_DELEGATE_INTERNAL || !w->name) return false;
    int64_t i = (int64_t)row;
    while (i >= 0 && etp_ops_row_get(r, (size_t)i)->kind != ETP_KIND_DELEGATE_CALL)
        i = etp_ops_row_get(r, (size_t)i)->parent;
    /* the program's backend id only (cheap: no inference per row; an inferred Vulkan call is
     * recognised by its JSON dispatch names) */
    const etp_backend_info *mine =
        i >= 0 ? etp_backend_info_get(etp_ops_row_get(r, (size_t)i)->placement) : NULL;
    for (size_t b = 0; b < NREG; b++)
        if (REGISTRY[b]->device_row && REGISTRY[b]->device_row(w, mine == &REGISTRY[b]->info))
            return true;
    return false;
}
