/* tensor_select.c - the --select expression of etprof tensors (include/etprof_tensor.h). */
#include "etprof_tensor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "::" -> "." into out (cap bytes); false when it does not fit. */
static bool norm_op(char *out, size_t cap, const char *a, size_t na) {
    size_t k = 0;
    for (size_t i = 0; i < na; i++) {
        if (a[i] == ':' && i + 1 < na && a[i + 1] == ':') {
            i++;
            if (k + 1 >= cap) return false;
            out[k++] = '.';
            continue;
        }
        if (k + 1 >= cap) return false;
        out[k++] = a[i];
    }
    out[k] = 0;
    return true;
}

static bool parse_i64(const char *s, size_t n, int64_t *out) {
    char b[32];
    if (n == 0 || n >= sizeof b) return false;
    memcpy(b, s, n);
    b[n] = 0;
    char *end;
    errno = 0;
    long long v = strtoll(b, &end, 10);
    if (errno || *end || end == b || b[0] == '+' || b[0] == ' ') return false;
    *out = v;
    return true;
}

/* "N" or "A-B" (A <= B; A may be negative only for instr, written "-1"). */
static bool parse_range(const char *s, size_t n, int64_t *lo, int64_t *hi) {
    size_t dash = 0;
    for (size_t i = 1; i < n; i++)
        if (s[i] == '-') {
            dash = i;
            break;
        }
    if (!dash) {
        if (!parse_i64(s, n, lo)) return false;
        *hi = *lo;
        return true;
    }
    return parse_i64(s, dash, lo) && parse_i64(s + dash + 1, n - dash - 1, hi) && *lo <= *hi;
}

int etp_tensor_select_parse(const char *expr, etp_tensor_select *o, etp_error *err) {
    memset(o, 0, sizeof *o);
    const char *p = expr ? expr : "";
    while (*p) {
        const char *t = p, *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        p = end ? end + 1 : p + n;
        char term[96];
        snprintf(term, sizeof term, "%.*s", (int)(n < 80 ? n : 80), t);
        const char *eq = memchr(t, '=', n);
        int64_t off = t - expr;
        if (!eq) {
            etp_error_set(err, ETP_E_USAGE, NULL, off, term,
                          "expected KEY=VALUE (keys: instr, run, block, op)");
            return ETP_E_USAGE;
        }
        size_t kl = (size_t)(eq - t);
        const char *v = eq + 1;
        size_t vl = n - kl - 1;
        int64_t lo, hi;
        if (kl == 2 && !memcmp(t, "op", 2)) {
            bool exact = vl > 0 && v[0] == '=';
            if (exact) {
                v++;
                vl--;
            }
            if (!vl || !norm_op(o->op, sizeof o->op, v, vl)) {
                etp_error_set(err, ETP_E_USAGE, NULL, off, term,
                              "op: expected a non-empty operator name below %d bytes",
                              ETP_SELECT_OP_MAX);
                return ETP_E_USAGE;
            }
            o->has_op = true;
            o->op_exact = exact;
        } else if ((kl == 5 && !memcmp(t, "instr", 5)) || (kl == 3 && !memcmp(t, "run", 3)) ||
                   (kl == 5 && !memcmp(t, "block", 5))) {
            bool instr = t[0] == 'i';
            bool run = t[0] == 'r';
            if (!parse_range(v, vl, &lo, &hi) ||
                (run && (lo < 1 || hi > (int64_t)UINT32_MAX)) ||
                (!instr && !run && (lo < 0 || hi > (int64_t)UINT32_MAX)) ||
                (instr && (lo < INT32_MIN || hi > INT32_MAX))) {
                etp_error_set(err, ETP_E_USAGE, NULL, off, term,
                              "%.*s: expected N or A-B (integers, A <= B%s)", (int)kl, t,
                              instr ? "" : run ? ", from 1" : ", from 0");
                return ETP_E_USAGE;
            }
            if (instr) {
                o->has_instr = true;
                o->instr_lo = lo;
                o->instr_hi = hi;
            } else if (t[0] == 'r') {
                o->has_run = true; /* runs are numbered from 1 (etp_run_number); kept as indexes */
                o->run_lo = (uint32_t)(lo - 1);
                o->run_hi = (uint32_t)(hi - 1);
            } else {
                o->has_block = true;
                o->block_lo = (uint32_t)lo;
                o->block_hi = (uint32_t)hi;
            }
        } else {
            etp_error_set(err, ETP_E_USAGE, NULL, off, term,
                          "unknown key \"%.*s\" (keys: instr, run, block, op)", (int)kl, t);
            return ETP_E_USAGE;
        }
    }
    return ETP_OK;
}

bool etp_tensor_select_match(const etp_tensor_select *s, uint32_t block, uint32_t run,
                             int32_t instr, const char *op_name, const char *op_overload) {
    if (!s) return true;
    if (s->has_instr && (instr < s->instr_lo || instr > s->instr_hi)) return false;
    if (s->has_run && (run < s->run_lo || run > s->run_hi)) return false;
    if (s->has_block && (block < s->block_lo || block > s->block_hi)) return false;
    if (s->has_op) {
        if (!op_name) return false;
        char full[2 * ETP_SELECT_OP_MAX], nm[2 * ETP_SELECT_OP_MAX];
        int k = snprintf(full, sizeof full, "%s%s%s", op_name,
                         op_overload && *op_overload ? "." : "", op_overload ? op_overload : "");
        if (k < 0 || (size_t)k >= sizeof full || !norm_op(nm, sizeof nm, full, (size_t)k))
            return false;
        if (s->op_exact ? strcmp(nm, s->op) != 0 : strstr(nm, s->op) == NULL) return false;
    }
    return true;
}
