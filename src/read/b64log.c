/* b64log.c - the ETDump base64 blocks of a serial log, and plain base64 files (b64log.h;
 * docs/formats.md "ETDumps in a serial log"). Written from the documented format; RFC 4648
 * base64 (standard and URL-safe alphabets, padding optional). */
#include "b64log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_MARK "#[RUN THIS]"
#define END_MARK "#[END]"

/* 0..63, 64 for '=', 65 for white space, 255 for anything else */
static unsigned b64_val(uint8_t c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    if (c == '=') return 64;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') return 65;
    return 255;
}

static const uint8_t *find(const uint8_t *s, size_t n, const char *pat) {
    size_t m = strlen(pat);
    if (m > n) return NULL;
    for (size_t i = 0; i + m <= n; i++)
        if (s[i] == (uint8_t)pat[0] && memcmp(s + i, pat, m) == 0) return s + i;
    return NULL;
}

/* Decodes [s, e) of `log` into out (room for 3/4 of it). `line0` is the line of s. */
static int decode_span(const uint8_t *log, size_t s, size_t e, uint64_t line0, const char *file,
                       uint8_t *out, size_t *out_len, etp_error *err) {
    uint64_t line = line0;
    size_t line_start = s;
    while (line_start > 0 && log[line_start - 1] != '\n') line_start--;
    uint32_t acc = 0, nacc = 0;
    size_t n = 0, data_chars = 0, pads = 0;
    for (size_t i = s; i < e; i++) {
        uint8_t c = log[i];
        unsigned v = b64_val(c);
        if (c == '\n') {
            line++;
            line_start = i + 1;
            continue;
        }
        if (v == 65) continue;
        if (v == 255 || (v < 64 && pads)) {
            char shown[8];
            if (c >= 0x20 && c < 0x7f) snprintf(shown, sizeof shown, "'%c'", c);
            else snprintf(shown, sizeof shown, "0x%02x", c);
            etp_error_set(err, ETP_E_INPUT, file, (int64_t)i, NULL,
                          "line %llu, column %llu: %s character %s in the ETDump's base64",
                          (unsigned long long)line, (unsigned long long)(i - line_start + 1),
                          pads ? "data after the '=' padding:" : "invalid base64", shown);
            return ETP_E_INPUT;
        }
        if (v == 64) {
            pads++;
            if (pads > 2) {
                etp_error_set(err, ETP_E_INPUT, file, (int64_t)i, NULL,
                              "line %llu, column %llu: more than two '=' in the ETDump's base64",
                              (unsigned long long)line, (unsigned long long)(i - line_start + 1));
                return ETP_E_INPUT;
            }
            continue;
        }
        data_chars++;
        acc = (acc << 6) | v;
        if (++nacc == 4) {
            out[n++] = (uint8_t)(acc >> 16);
            out[n++] = (uint8_t)(acc >> 8);
            out[n++] = (uint8_t)acc;
            acc = nacc = 0;
        }
    }
    if (nacc == 1 || (pads && (data_chars + pads) % 4 != 0)) {
        etp_error_set(err, ETP_E_INPUT, file, (int64_t)s, NULL,
                      "line %llu: the ETDump's base64 is truncated or corrupt: %zu characters "
                      "%s(a whole number of 4-character groups expected)",
                      (unsigned long long)line0, data_chars + pads, pads ? "with padding " : "");
        return ETP_E_INPUT;
    }
    if (nacc == 2) out[n++] = (uint8_t)(acc >> 4);
    if (nacc == 3) {
        out[n++] = (uint8_t)(acc >> 10);
        out[n++] = (uint8_t)(acc >> 2);
    }
    if (!n) {
        etp_error_set(err, ETP_E_INPUT, file, (int64_t)s, NULL,
                      "line %llu: the ETDump's base64 is empty", (unsigned long long)line0);
        return ETP_E_INPUT;
    }
    *out_len = n;
    return ETP_OK;
}

static bool plain_b64(const uint8_t *d, size_t n) {
    size_t chars = 0;
    uint8_t head[16];
    for (size_t i = 0; i < n; i++) {
        unsigned v = b64_val(d[i]);
        if (v == 255) return false;
        if (v < 64 && chars < 16) head[chars] = (uint8_t)v;
        chars += v < 64;
    }
    if (chars < 16) return false;
    /* the first 12 decoded bytes must hold an ETDump identifier (at byte 4 or 8) */
    uint8_t b[12];
    for (int q = 0; q < 4; q++) {
        uint32_t a = (uint32_t)head[4 * q] << 18 | (uint32_t)head[4 * q + 1] << 12 |
                     (uint32_t)head[4 * q + 2] << 6 | head[4 * q + 3];
        b[3 * q] = (uint8_t)(a >> 16);
        b[3 * q + 1] = (uint8_t)(a >> 8);
        b[3 * q + 2] = (uint8_t)a;
    }
    return memcmp(b + 8, "ED00", 4) == 0 || memcmp(b + 4, "ED00", 4) == 0;
}

bool etp__b64log_detect(const uint8_t *data, size_t size) {
    if (!data || !size) return false;
    return find(data, size, RUN_MARK) != NULL || plain_b64(data, size);
}

int etp__b64log_decode(const uint8_t *data, size_t size, const char *file, uint8_t **out,
                       size_t *out_len, etp_b64log_info *info, etp_error *err) {
    *out = NULL;
    *out_len = 0;
    memset(info, 0, sizeof *info);
    uint8_t *buf = malloc(size / 4 * 3 + 3);
    if (!buf) {
        etp_error_set(err, ETP_E_INTERNAL, file, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    int rc;
    if (!find(data, size, RUN_MARK)) {
        info->plain = true;
        info->dumps = info->used = 1;
        info->line = info->first_lines[0] = 1;
        rc = decode_span(data, 0, size, 1, file, buf, out_len, err);
        if (rc) free(buf);
        else *out = buf;
        return rc;
    }
    uint64_t line = 1, block_line = 0;
    size_t block_pos = 0;
    bool in_block = false, decoded = false;
    size_t pos = 0;
    rc = ETP_OK;
    while (pos < size) {
        const uint8_t *nl = memchr(data + pos, '\n', size - pos);
        size_t end = nl ? (size_t)(nl - data) : size;
        const uint8_t *l = data + pos;
        size_t ln = end - pos;
        const uint8_t *q;
        if (find(l, ln, RUN_MARK)) {
            in_block = true;
            block_line = line;
            block_pos = pos;
        } else if (in_block && find(l, ln, END_MARK)) {
            in_block = false;
        } else if (in_block && (q = find(l, ln, "echo \""))) {
            size_t ps = (size_t)(q - data) + 6, pe = ps;
            uint64_t lines_in = 0;
            while (pe < size && data[pe] != '"') lines_in += data[pe++] == '\n';
            if (pe >= size) {
                etp_error_set(err, ETP_E_INPUT, file, (int64_t)pos, NULL,
                              "line %llu: the base64 of this echo line has no closing '\"': the "
                              "log is truncated",
                              (unsigned long long)line);
                rc = ETP_E_INPUT;
                break;
            }
            /* the target of the redirection, after the closing quote on its line */
            const uint8_t *rest = data + pe + 1;
            const uint8_t *rnl = memchr(rest, '\n', size - (pe + 1));
            size_t rlen = rnl ? (size_t)(rnl - rest) : size - (pe + 1);
            const uint8_t *gt = find(rest, rlen, ">");
            bool debug_buffer = gt && find(gt, rlen - (size_t)(gt - rest), "debug_buffer");
            if (!debug_buffer) {
                if (info->dumps < 8) info->first_lines[info->dumps] = line;
                info->dumps++;
                if (!decoded) {
                    info->used = 1;
                    info->line = line;
                    if ((rc = decode_span(data, ps, pe, line, file, buf, out_len, err))) break;
                    decoded = true;
                }
            }
            line += lines_in;
            end = rnl ? (size_t)(rnl - data) : size;
        }
        line++;
        pos = end + 1;
    }
    if (!rc && !decoded) {
        etp_error_set(err, ETP_E_INPUT, file, (int64_t)block_pos, NULL,
                      "line %llu: this #[RUN THIS] block holds no `echo \"<base64>\" | base64 -d "
                      ">etdump.bin` line: the log is truncated, or not an ETDump print of the Arm "
                      "executor runner",
                      (unsigned long long)block_line);
        rc = ETP_E_INPUT;
    }
    if (rc) {
        free(buf);
        *out_len = 0;
        return rc;
    }
    *out = buf;
    return ETP_OK;
}

/* backend_int.h: plain base64 of a backend's metadata (VGF neural statistics blobs) */
int etp__b64_decode(const uint8_t *s, size_t n, uint8_t *out, size_t *out_len) {
    *out_len = 0;
    return decode_span(s, 0, n, 1, NULL, out, out_len, NULL);
}
