/* event_json.c - one event as JSON (the schema's own field names, docs/json-contract.md) and as
 * a flat row; the events view (include/etprof_events.h) of `etprof events`, and the fuzz targets. */
#include "event_json.h"
#include "etprof_backend.h"
#include "etprof_events.h"
#include "etdump_int.h"
#include "membudget.h"
#include "result_int.h"

#include <stdio.h>
#include <string.h>

static void j_tensor(jw *w, const etp_tensor *t) {
    jw_obj_begin(w);
    jw_key_lit(w, "scalar_type");
    const char *st = etp_scalar_type_name(t->scalar_type);
    if (st) jw_str(w, st);
    else jw_int(w, t->scalar_type);
    jw_key_lit(w, "sizes");
    if (t->sizes.ptr) {
        jw_arr_begin(w);
        for (uint32_t i = 0; i < t->sizes.len; i++) jw_int(w, etp_vec_i64(t->sizes, i));
        jw_arr_end(w);
    } else jw_null(w);
    jw_key_lit(w, "strides");
    if (t->strides.ptr) {
        jw_arr_begin(w);
        for (uint32_t i = 0; i < t->strides.len; i++) jw_int(w, etp_vec_i64(t->strides, i));
        jw_arr_end(w);
    } else jw_null(w);
    jw_key_lit(w, "offset");
    jw_int(w, t->offset);
    jw_obj_end(w);
}

static const char *const val_names[8] = {"Null", "Int", "Bool", "Float", "Double", "Tensor",
                                         "TensorList", "String"};

static void j_value(jw *w, const etp_value *v) {
    jw_obj_begin(w);
    jw_key_lit(w, "val");
    if (v->val >= 0 && v->val < 8) jw_str(w, val_names[(int)v->val]);
    else jw_int(w, v->val);
    if (v->has_tensor) {
        jw_key_lit(w, "tensor");
        j_tensor(w, &v->tensor);
    }
    if (v->has_tensor_list) {
        jw_key_lit(w, "tensor_list");
        jw_obj_begin(w);
        jw_key_lit(w, "tensors");
        jw_arr_begin(w);
        for (uint32_t i = 0; i < v->tensor_list_len; i++) {
            etp_tensor t;
            etp_value_tensor_list_get(v, i, &t);
            j_tensor(w, &t);
        }
        jw_arr_end(w);
        jw_obj_end(w);
    }
#define BOX(flag, key, inner, writer, field)                                                      \
    if (v->flag) {                                                                                \
        jw_key_lit(w, key);                                                                       \
        jw_obj_begin(w);                                                                          \
        jw_key_lit(w, inner);                                                                     \
        writer(w, v->field);                                                                      \
        jw_obj_end(w);                                                                            \
    }
    BOX(has_int, "int_value", "int_val", jw_int, int_val)
    BOX(has_float, "float_value", "float_val", jw_double, float_val)
    BOX(has_double, "double_value", "double_val", jw_double, double_val)
    BOX(has_bool, "bool_value", "bool_val", jw_bool, bool_val)
    BOX(has_output, "output", "bool_val", jw_bool, output)
#undef BOX
    jw_obj_end(w);
}

/* key: a literal (j_str's macro) */
static inline void j_str_(jw *w, const char *key, size_t klen, etp_str s) {
    jw_key_plain(w, key, klen);
    if (s.ptr) jw_strn(w, s.ptr, s.len);
    else jw_null(w);
}
#define j_str(w, key, s) j_str_((w), "" key, sizeof(key) - 1, (s))

const char *etp_event_type_name(etp_event_type t) {
    switch (t) {
    case ETP_EVENT_PROFILE: return "profile";
    case ETP_EVENT_ALLOCATION: return "allocation";
    case ETP_EVENT_DEBUG: return "debug";
    default: return "none";
    }
}

/* "op.overload" as the checked path formats it (snprintf into 512 bytes: at most 511 kept). */
static size_t op_text(char buf[512], const etp_mevent *e) {
    size_t n = 0;
    const char *parts[3] = {e->op_name, e->op_overload && *e->op_overload ? "." : "",
                            e->op_overload ? e->op_overload : ""};
    for (int k = 0; k < 3; k++)
        for (const char *p = parts[k]; *p && n < 511; p++) buf[n++] = *p;
    buf[n] = '\0';
    return n;
}

static size_t zlen(const char *s) { return s ? strlen(s) : 0; }

/* One of the library's own names (event type, kind, unit, instruction kind: printable ASCII
 * identifiers, test_out checks them) quoted without the escaping scan; null for NULL. */
static char *put_id(char *d, const char *s) {
    if (!s) return jw_put_lit(d, "null");
    *d++ = '"';
    while (*s) *d++ = *s++;
    *d++ = '"';
    return d;
}

/* The text of one profile or allocation event when the writer takes raw output (JSON Lines):
 * the same bytes as the checked calls below, without their per-call checks. false: not written
 * (the checked path writes it). */
static bool event_json_raw(jw *w, const etp_dump *d, const etp_block_view *v, const etp_mevent *e,
                           bool with_program) {
    if (e->ev.type != ETP_EVENT_PROFILE && e->ev.type != ETP_EVENT_ALLOCATION) return false;
    const etp_profile_event *p = &e->ev.profile;
    const etp_allocation_event *x = &e->ev.allocation;
    etp_str an = {NULL, 0};
    const uint8_t *meta = NULL;
    size_t meta_len = 0, text_len = 0;
    bool meta_text = false;
    size_t strs = v->info.name.len + zlen(v->method) + zlen(e->backend) + 511;
    if (e->ev.type == ETP_EVENT_PROFILE) {
        strs += p->name.len + p->delegate_debug_id_str.len;
        meta = p->delegate_debug_metadata.ptr;
        meta_len = meta ? p->delegate_debug_metadata.len : 0;
        if (meta && meta_len) {
            size_t need = 0;
            etp_meta_kind mk = etp_backend_metadata_decode(NULL, meta, meta_len, NULL, 0, &need);
            if (mk == ETP_MK_JSON || mk == ETP_MK_TEXT) {
                meta_text = true;
                text_len = meta_len && meta[meta_len - 1] == 0 ? meta_len - 1 : meta_len;
                strs += text_len;
            }
        }
    } else {
        if (x->allocator_id >= 1)
            an = etp_dump_allocator_name(d, v->block, (uint32_t)x->allocator_id - 1);
        strs += an.len;
    }
    /* keys, numbers and short names: well under 1 KiB; strings at most 6 bytes per byte */
    if (strs > ((size_t)1 << 20) || meta_len > ((size_t)1 << 20)) return false;
    char *o = jw_raw_begin(w, 1024 + 6 * strs + 2 * meta_len);
    if (!o) return false;
    o = jw_put_lit(o, "{\"block\":");
    o = jw_put_uint(o, v->block);
    o = jw_put_lit(o, ",\"block_name\":");
    o = v->info.name.ptr ? jw_put_str(o, v->info.name.ptr, v->info.name.len) : jw_put_lit(o, "null");
    o = jw_put_lit(o, ",\"index\":");
    o = jw_put_uint(o, e->index);
    o = jw_put_lit(o, ",\"type\":");
    o = put_id(o, etp_event_type_name(e->ev.type));
    o = jw_put_lit(o, ",\"kind\":");
    o = put_id(o, etp_kind_name(e->kind));
    if (e->ev.type == ETP_EVENT_PROFILE) {
        o = jw_put_lit(o, ",\"name\":");
        o = p->name.ptr ? jw_put_str(o, p->name.ptr, p->name.len) : jw_put_lit(o, "null");
        o = jw_put_lit(o, ",\"chain_index\":");
        o = jw_put_int(o, p->chain_index);
        o = jw_put_lit(o, ",\"instruction_id\":");
        o = jw_put_int(o, p->instruction_id);
        o = jw_put_lit(o, ",\"delegate_debug_id_int\":");
        o = jw_put_int(o, p->delegate_debug_id_int);
        o = jw_put_lit(o, ",\"delegate_debug_id_str\":");
        o = p->delegate_debug_id_str.ptr
                ? jw_put_str(o, p->delegate_debug_id_str.ptr, p->delegate_debug_id_str.len)
                : jw_put_lit(o, "null");
        o = jw_put_lit(o, ",\"delegate_debug_metadata\":");
        o = meta ? jw_put_hex(o, meta, meta_len) : jw_put_lit(o, "null");
        o = jw_put_lit(o, ",\"delegate_debug_metadata_text\":");
        o = meta_text ? jw_put_str(o, (const char *)meta, text_len) : jw_put_lit(o, "null");
        o = jw_put_lit(o, ",\"start_time\":");
        o = jw_put_uint(o, p->start_time);
        o = jw_put_lit(o, ",\"end_time\":");
        o = jw_put_uint(o, p->end_time);
    } else {
        o = jw_put_lit(o, ",\"allocator_id\":");
        o = jw_put_int(o, x->allocator_id);
        o = jw_put_lit(o, ",\"allocation_size\":");
        o = jw_put_uint(o, x->allocation_size);
        o = jw_put_lit(o, ",\"allocator_name\":");
        o = an.ptr ? jw_put_str(o, an.ptr, an.len) : jw_put_lit(o, "null");
    }
    o = jw_put_lit(o, ",\"parent\":");
    o = e->parent >= 0 ? jw_put_int(o, e->parent) : jw_put_lit(o, "null");
    o = jw_put_lit(o, ",\"value\":");
    o = jw_put_double(o, e->value);
    o = jw_put_lit(o, ",\"unit\":");
    o = put_id(o, e->unit ? etp_unit_name(e->unit) : NULL);
    if (with_program) {
        o = jw_put_lit(o, ",\"method\":");
        o = jw_put_strz(o, v->method);
        o = jw_put_lit(o, ",\"instruction_kind\":");
        o = put_id(o, e->instr_kind ? etp_instr_kind_name(e->instr_kind) : NULL);
        o = jw_put_lit(o, ",\"operator\":");
        if (e->op_name) {
            char buf[512];
            o = jw_put_str(o, buf, op_text(buf, e));
        } else {
            o = jw_put_lit(o, "null");
        }
        o = jw_put_lit(o, ",\"backend\":");
        o = jw_put_strz(o, e->backend);
    }
    *o++ = '}';
    jw_raw_end(w, o);
    return true;
}

void etp_event_json(jw *w, const etp_dump *d, const etp_block_view *v, const etp_mevent *e,
                    bool with_program) {
    if (event_json_raw(w, d, v, e, with_program)) return;
    jw_obj_begin(w);
    jw_key_lit(w, "block"); jw_uint(w, v->block);
    j_str(w, "block_name", v->info.name);
    jw_key_lit(w, "index"); jw_uint(w, e->index);
    jw_key_lit(w, "type"); jw_str(w, etp_event_type_name(e->ev.type));
    jw_key_lit(w, "kind"); jw_str(w, etp_kind_name(e->kind));
    switch (e->ev.type) {
    case ETP_EVENT_PROFILE: {
        const etp_profile_event *p = &e->ev.profile;
        j_str(w, "name", p->name);
        jw_key_lit(w, "chain_index"); jw_int(w, p->chain_index);
        jw_key_lit(w, "instruction_id"); jw_int(w, p->instruction_id);
        jw_key_lit(w, "delegate_debug_id_int"); jw_int(w, p->delegate_debug_id_int);
        j_str(w, "delegate_debug_id_str", p->delegate_debug_id_str);
        jw_key_lit(w, "delegate_debug_metadata");
        if (p->delegate_debug_metadata.ptr)
            jw_hex(w, p->delegate_debug_metadata.ptr, p->delegate_debug_metadata.len);
        else jw_null(w);
        /* additive (issue 14.2): the metadata as text when it is UTF-8 text or JSON, else null */
        jw_key_lit(w, "delegate_debug_metadata_text");
        {
            size_t need = 0;
            etp_meta_kind mk = ETP_MK_EMPTY;
            if (p->delegate_debug_metadata.ptr && p->delegate_debug_metadata.len)
                mk = etp_backend_metadata_decode(NULL, p->delegate_debug_metadata.ptr,
                                                 p->delegate_debug_metadata.len, NULL, 0, &need);
            if (mk == ETP_MK_JSON || mk == ETP_MK_TEXT) {
                size_t tn = p->delegate_debug_metadata.len;
                if (tn && p->delegate_debug_metadata.ptr[tn - 1] == 0) tn--;
                jw_strn(w, (const char *)p->delegate_debug_metadata.ptr, tn);
            } else jw_null(w);
        }
        jw_key_lit(w, "start_time"); jw_uint(w, p->start_time);
        jw_key_lit(w, "end_time"); jw_uint(w, p->end_time);
        break;
    }
    case ETP_EVENT_ALLOCATION: {
        const etp_allocation_event *x = &e->ev.allocation;
        jw_key_lit(w, "allocator_id"); jw_int(w, x->allocator_id);
        jw_key_lit(w, "allocation_size"); jw_uint(w, x->allocation_size);
        etp_str an = {NULL, 0};
        if (x->allocator_id >= 1) an = etp_dump_allocator_name(d, v->block, (uint32_t)x->allocator_id - 1);
        j_str(w, "allocator_name", an);
        break;
    }
    case ETP_EVENT_DEBUG: {
        const etp_debug_event *x = &e->ev.debug;
        jw_key_lit(w, "chain_index"); jw_uint(w, x->chain_index);
        jw_key_lit(w, "instruction_id"); jw_int(w, x->instruction_id);
        jw_key_lit(w, "delegate_debug_id_int"); jw_int(w, x->delegate_debug_id_int);
        j_str(w, "delegate_debug_id_str", x->delegate_debug_id_str);
        j_str(w, "name", x->name);
        jw_key_lit(w, "debug_entry");
        if (x->has_debug_entry) j_value(w, &x->debug_entry);
        else jw_null(w);
        break;
    }
    default: break;
    }
    /* derived fields (not schema fields) */
    jw_key_lit(w, "parent"); if (e->parent >= 0) jw_int(w, e->parent); else jw_null(w);
    jw_key_lit(w, "value"); jw_double(w, e->value);
    jw_key_lit(w, "unit"); if (e->unit) jw_str(w, etp_unit_name(e->unit)); else jw_null(w);
    if (with_program) {
        jw_key_lit(w, "method"); jw_str(w, v->method);
        jw_key_lit(w, "instruction_kind");
        if (e->instr_kind) jw_str(w, etp_instr_kind_name(e->instr_kind)); else jw_null(w);
        jw_key_lit(w, "operator");
        if (e->op_name) {
            char buf[512];
            jw_strn(w, buf, op_text(buf, e));
        } else jw_null(w);
        jw_key_lit(w, "backend"); jw_str(w, e->backend);
    }
    jw_obj_end(w);
}

const etp_col etp_event_cols[] = {
    {"block", "block", NULL, ETP_T_UINT, false, 0},
    {"index", "index", NULL, ETP_T_UINT, false, 0},
    {"type", "type", NULL, ETP_T_STR, false, 0},
    {"kind", "kind", NULL, ETP_T_STR, false, 0},
    {"label", "name / delegate id", NULL, ETP_T_STR, true, 0},
    {"chain_index", "chain", NULL, ETP_T_INT, true, 0},
    {"instruction_id", "instr", NULL, ETP_T_INT, true, 0},
    {"delegate_debug_id_int", "delegate_int", NULL, ETP_T_INT, true, 0},
    {"start_time", "start_time", NULL, ETP_T_UINT, true, 0},
    {"end_time", "end_time", NULL, ETP_T_UINT, true, 0},
    {"value", "value", NULL, ETP_T_FLOAT, true, 3},
    {"unit", "unit", NULL, ETP_T_STR, true, 0},
    {"parent", "parent", NULL, ETP_T_INT, true, 0},
    {"method", "method", NULL, ETP_T_STR, true, 0},
    {"operator", "operator", NULL, ETP_T_STR, true, 0},
    {"backend", "backend", NULL, ETP_T_STR, true, 0},
};
const size_t etp_event_ncols = sizeof etp_event_cols / sizeof etp_event_cols[0];

void etp_event_row(etp_stream *t, const etp_block_view *v, const etp_mevent *e) {
    etp_stream_row(t);
    etp_stream_uint(t, v->block);
    etp_stream_uint(t, e->index);
    etp_stream_str(t, etp_event_type_name(e->ev.type));
    etp_stream_str(t, etp_kind_name(e->kind));
    etp_stream_str(t, e->label);
    if (e->ev.type == ETP_EVENT_PROFILE || e->ev.type == ETP_EVENT_DEBUG) {
        etp_stream_int(t, e->chain);
        etp_stream_int(t, e->instr);
        etp_stream_int(t, e->ev.type == ETP_EVENT_PROFILE ? e->ev.profile.delegate_debug_id_int
                                                          : e->ev.debug.delegate_debug_id_int);
    } else {
        etp_stream_null(t);
        etp_stream_null(t);
        etp_stream_null(t);
    }
    if (e->ev.type == ETP_EVENT_PROFILE) {
        etp_stream_uint(t, e->ev.profile.start_time);
        etp_stream_uint(t, e->ev.profile.end_time);
    } else {
        etp_stream_null(t);
        etp_stream_null(t);
    }
    etp_stream_float(t, e->value);
    etp_stream_str(t, e->unit ? etp_unit_name(e->unit) : NULL);
    if (e->parent >= 0) etp_stream_int(t, e->parent);
    else etp_stream_null(t);
    etp_stream_str(t, v->method);
    if (e->op_name) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s%s%s", e->op_name, e->op_overload && *e->op_overload ? "." : "",
                 e->op_overload ? e->op_overload : "");
        etp_stream_str(t, buf);
    } else etp_stream_null(t);
    etp_stream_str(t, e->backend);
    etp_stream_row_end(t);
}

etp_table *etp_events_table(etp_doc *d, etp_table *t, const etp_block_view *v) {
    if (!t) t = etp_doc_table(d, etp_event_cols, etp_event_ncols);
    if (!t || !v) return t;
    for (uint32_t i = 0; i < v->n; i++) {
        const etp_mevent *e = &v->events[i];
        etp_table_row(t);
        etp_table_uint(t, v->block);
        etp_table_uint(t, e->index);
        etp_table_str(t, etp_event_type_name(e->ev.type));
        etp_table_str(t, etp_kind_name(e->kind));
        etp_table_str(t, e->label);
        if (e->ev.type == ETP_EVENT_PROFILE || e->ev.type == ETP_EVENT_DEBUG) {
            etp_table_int(t, e->chain);
            etp_table_int(t, e->instr);
            etp_table_int(t, e->ev.type == ETP_EVENT_PROFILE ? e->ev.profile.delegate_debug_id_int
                                                             : e->ev.debug.delegate_debug_id_int);
        } else {
            etp_table_null(t);
            etp_table_null(t);
            etp_table_null(t);
        }
        if (e->ev.type == ETP_EVENT_PROFILE) {
            etp_table_uint(t, e->ev.profile.start_time);
            etp_table_uint(t, e->ev.profile.end_time);
        } else {
            etp_table_null(t);
            etp_table_null(t);
        }
        etp_table_float(t, e->value);
        etp_table_str(t, e->unit ? etp_unit_name(e->unit) : NULL);
        if (e->parent >= 0) etp_table_int(t, e->parent);
        else etp_table_null(t);
        etp_table_str(t, v->method);
        if (e->op_name) {
            char buf[512];
            op_text(buf, e);
            etp_table_str(t, buf);
        } else etp_table_null(t);
        etp_table_str(t, e->backend);
    }
    return etp_doc_ok(d) ? t : NULL;
}

/* ---- the public events view (etprof_events.h) ---- */

etp_stream *etp_events_open(etp_format fmt, FILE *f, const etp_render_opts *opts, const char *file) {
    etp_stream *s = etp_stream_open(fmt, f, opts, etp_event_cols, etp_event_ncols, 1, file, "events");
    /* a narrow terminal loses these first */
    static const char *const drop[] = {
        "delegate_debug_id_int:14", "parent:13", "chain_index:12", "start_time:11",
        "end_time:10", "type:9", "method:8", "backend:7", "operator:6", "instruction_id:5",
        "kind:4", "unit+value:1", NULL};
    etp_stream_droppable(s, drop);
    return s;
}

/* Bytes a row of the events table holds until the table is written (its cells' text and
 * the row's index: 190 measured on 2^20 rows of 15 columns), charged for the blocks before the
 * one being written (its own rows are in the model's per-event charge). */
#define EVENTS_TABLE_ROW 256u

void etp_events_row(etp_stream *s, const etp_dump *d, const etp_block_view *v, const etp_mevent *e,
                    bool with_program) {
    if (!res_stream_charge_row(s, v->block, EVENTS_TABLE_ROW)) {
        etp_error *err = s ? res_stream_error(s) : NULL;
        if (err && !err->code) {
            uint32_t i = (uint32_t)(e - v->events);
            int64_t off = etp__dump_events_offset(d, v->block);
            if (off >= 0) off += 4 + 4 * (int64_t)i; /* the element's uoffset */
            char path[64];
            snprintf(path, sizeof path, "run_data[%u].events[%u]", v->block, i);
            uint64_t budget = etp__mem_budget();
            etp_error_set(err, ETP_E_INPUT, res_stream_file(s), off, path,
                          "a table keeps its rows to align them: over the memory budget of "
                          "%.1f MiB (docs/verifier.md \"Memory\"): use --format jsonl or csv, "
                          "or set ETPROF_MEMORY_BUDGET=MiB (0: no limit)",
                          (double)budget / 1048576.0);
        }
        return;
    }
    jw *w = res_stream_json_row(s);
    if (w) {
        etp_event_json(w, d, v, e, with_program);
        res_stream_json_row_end(s);
    } else {
        etp_event_row(s, v, e);
    }
}
