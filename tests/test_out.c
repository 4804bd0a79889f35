/* test_out.c - the output layer: jw (JSON writer), out (six table formats), etp_outfile (atomic files).
 * Expected outputs are written by hand; every JSON output is also parsed back with jansson. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "etprof.h"
#include "jw.h"
#include "out.h"
#include "etprof_io.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers */

typedef struct {
    FILE *f;
    char *buf;
    size_t len;
} mem;

static void mem_open(mem *m) {
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
}

static const char *mem_str(mem *m) {
    fflush(m->f);
    return m->buf ? m->buf : "";
}

static void mem_close(mem *m) {
    fclose(m->f);
    free(m->buf);
}

/* Parses JSON text (all integers as reals: jansson has no uint64); NULL when invalid. */
static json_t *parse(const char *text) {
    json_error_t e;
    json_t *j = json_loads(text, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &e);
    if (!j) fprintf(stderr, "jansson: %s (line %d col %d) in:\n%s\n", e.text, e.line, e.column, text);
    return j;
}

#define CHECK_JSON_PARSES(text)                                                                   \
    do {                                                                                          \
        json_t *j_ = parse(text);                                                                 \
        CHECK(j_ != NULL);                                                                        \
        json_decref(j_);                                                                          \
    } while (0)

/* The JSON text jw writes for one string value (compact). */
static void jw_string_is(const char *in, size_t n, const char *expected) {
    mem m;
    mem_open(&m);
    jw w;
    jw_init(&w, m.f, false);
    jw_strn(&w, in, n);
    CHECK_EQ_I(jw_finish(&w), 0);
    const char *out = mem_str(&m);
    CHECK_EQ_S(out, expected);
    CHECK_JSON_PARSES(out);
    mem_close(&m);
}

static void jw_double_is(double v, const char *expected) {
    mem m;
    mem_open(&m);
    jw w;
    jw_init(&w, m.f, false);
    jw_double(&w, v);
    CHECK_EQ_I(jw_finish(&w), 0);
    CHECK_EQ_S(mem_str(&m), expected);
    mem_close(&m);
}

/* ------------------------------------------------------------------------------------------ */
/* jw */

static void test_jw_layout(void) {
    mem m;
    mem_open(&m);
    jw w;
    jw_init(&w, m.f, true);
    jw_obj_begin(&w);
    jw_key(&w, "a");
    jw_int(&w, -1);
    jw_key(&w, "b");
    jw_arr_begin(&w);
    jw_uint(&w, UINT64_MAX);
    jw_bool(&w, true);
    jw_null(&w);
    jw_obj_begin(&w);
    jw_obj_end(&w);
    jw_arr_begin(&w);
    jw_arr_end(&w);
    jw_arr_end(&w);
    jw_key(&w, "c");
    jw_hex(&w, "\x00\xab\xff\x10", 4);
    jw_key(&w, "d");
    jw_raw(&w, "{\"x\": [1, 2]}");
    jw_key(&w, "e");
    jw_str(&w, NULL);
    jw_key(&w, "f");
    jw_double(&w, 2.5);
    jw_obj_end(&w);
    CHECK_EQ_I(jw_finish(&w), 0);
    CHECK_EQ_S(mem_str(&m), "{\n"
                            "  \"a\": -1,\n"
                            "  \"b\": [\n"
                            "    18446744073709551615,\n"
                            "    true,\n"
                            "    null,\n"
                            "    {},\n"
                            "    []\n"
                            "  ],\n"
                            "  \"c\": \"00abff10\",\n"
                            "  \"d\": {\"x\": [1, 2]},\n"
                            "  \"e\": null,\n"
                            "  \"f\": 2.5\n"
                            "}"); /* jw_finish adds no newline */
    CHECK_JSON_PARSES(mem_str(&m));
    mem_close(&m);

    mem_open(&m);
    jw_init(&w, m.f, false);
    jw_arr_begin(&w);
    jw_obj_begin(&w);
    jw_key(&w, "k");
    jw_str(&w, "v");
    jw_key(&w, "n");
    jw_int(&w, INT64_MIN);
    jw_obj_end(&w);
    jw_hex(&w, "", 0);
    jw_arr_end(&w);
    CHECK_EQ_I(jw_finish(&w), 0);
    CHECK_EQ_S(mem_str(&m), "[{\"k\":\"v\",\"n\":-9223372036854775808},\"\"]");
    mem_close(&m);
}

static void test_jw_escaping(void) {
    jw_string_is("", 0, "\"\"");
    jw_string_is("plain", 5, "\"plain\"");
    jw_string_is("q\"b\\s/", 6, "\"q\\\"b\\\\s/\"");
    jw_string_is("\n\t\r\b\f", 5, "\"\\n\\t\\r\\b\\f\"");
    jw_string_is("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\x7f\"");
    jw_string_is("a\0b", 3, "\"a\\u0000b\"");
    /* valid UTF-8 passes through raw: 2, 3 and 4 bytes, and the edges of the ranges */
    jw_string_is("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    jw_string_is("\xc2\x80\xed\x9f\xbf\xee\x80\x80\xf4\x8f\xbf\xbf", 12,
                 "\"\xc2\x80\xed\x9f\xbf\xee\x80\x80\xf4\x8f\xbf\xbf\"");
    /* invalid UTF-8: every offending byte becomes \ufffd */
    jw_string_is("\x80", 1, "\"\\ufffd\"");                          /* lone continuation */
    jw_string_is("a\xbf" "b", 3, "\"a\\ufffdb\"");
    jw_string_is("\xc0\xaf", 2, "\"\\ufffd\\ufffd\"");               /* overlong '/' */
    jw_string_is("\xc1\xbf", 2, "\"\\ufffd\\ufffd\"");               /* overlong */
    jw_string_is("\xe0\x80\xaf", 3, "\"\\ufffd\\ufffd\\ufffd\"");    /* overlong, 3 bytes */
    jw_string_is("\xf0\x80\x80\xaf", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* overlong, 4 */
    jw_string_is("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");    /* surrogate U+D800 */
    jw_string_is("\xed\xbf\xbf", 3, "\"\\ufffd\\ufffd\\ufffd\"");    /* surrogate U+DFFF */
    jw_string_is("\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* > U+10FFFF */
    jw_string_is("\xf5\xfe\xff", 3, "\"\\ufffd\\ufffd\\ufffd\"");
    jw_string_is("\xe2\x82", 2, "\"\\ufffd\\ufffd\"");               /* truncated at the end */
    jw_string_is("\xe2\x82z", 3, "\"\\ufffd\\ufffdz\"");             /* truncated in the middle */
    jw_string_is("\xf0\x9f\x98", 3, "\"\\ufffd\\ufffd\\ufffd\"");
    jw_string_is("\xc3", 1, "\"\\ufffd\"");

    /* keys are escaped the same way */
    mem m;
    mem_open(&m);
    jw w;
    jw_init(&w, m.f, false);
    jw_obj_begin(&w);
    jw_key(&w, "k\"\xff");
    jw_int(&w, 1);
    jw_obj_end(&w);
    CHECK_EQ_I(jw_finish(&w), 0);
    CHECK_EQ_S(mem_str(&m), "{\"k\\\"\\ufffd\":1}");
    mem_close(&m);

    /* decoded by jansson: U+FFFD where the bad bytes were */
    mem_open(&m);
    jw_init(&w, m.f, false);
    jw_str(&w, "x\xc0y\xe2\x82\xac");
    jw_finish(&w);
    json_t *j = parse(mem_str(&m));
    CHECK(j && json_is_string(j));
    if (j) CHECK_EQ_S(json_string_value(j), "x\xef\xbf\xbdy\xe2\x82\xac");
    json_decref(j);
    mem_close(&m);
}

static void test_jw_doubles(void) {
    jw_double_is(0.1, "0.1");
    jw_double_is(12.0, "12");
    jw_double_is(-12.0, "-12");
    jw_double_is(0.0, "0");
    jw_double_is(-0.0, "-0");
    jw_double_is(1.5, "1.5");
    jw_double_is(1e300, "1e+300");
    jw_double_is(1e21, "1e+21");
    jw_double_is(1e-7, "1e-07");
    jw_double_is(5e-324 * 3, "1.48219693752374e-323");
    jw_double_is(1.0 / 3.0, "0.3333333333333333");       /* 16 digits */
    jw_double_is(2.0 / 3.0, "0.6666666666666666");
    jw_double_is(0.3, "0.3");
    jw_double_is(0.1 + 0.2, "0.30000000000000004");
    /* (expected texts: Python's '%.*g' with the same 15/16/17 loop) */
    jw_double_is(12345678901.03125, "12345678901.03125"); /* 15 digits: a tie, not v */
    jw_double_is(123456789012345.5, "123456789012345.5");
    jw_double_is(999999999999999.9, "999999999999999.9"); /* 15 digits: 1e+15, not v */
    jw_double_is(1.0000000000000004e-4, "0.00010000000000000005");
    jw_double_is(0.0003346694963574378, "0.0003346694963574378");
    jw_double_is(9007199254740993.0, "9007199254740992");
    jw_double_is(1.7976931348623157e308, "1.7976931348623157e+308");
    jw_double_is(5e-324, "4.94065645841247e-324");
    jw_double_is(NAN, "null");
    /* printf output in a locale whose decimal point is not '.' (',' or a multibyte one) */
    char num[32] = "-1,5e+10";
    CHECK_EQ_U(jw_c_number(num), 8);
    CHECK_EQ_S(num, "-1.5e+10");
    snprintf(num, sizeof num, "3\xd9\xab" "25");
    CHECK_EQ_U(jw_c_number(num), 4);
    CHECK_EQ_S(num, "3.25");
    jw_double_is(INFINITY, "null");
    jw_double_is(-INFINITY, "null");

    /* round trip: random bit patterns, checked with strtod and through jansson */
    uint64_t x = 0x243f6a8885a308d3u;
    int bad = 0, bad_json = 0, n = 0;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        memcpy(&v, &x, sizeof v);
        if (!isfinite(v)) continue;
        n++;
        char b[JW_DTOA_MAX];
        size_t len = jw_dtoa(b, v);
        double back = strtod(b, NULL);
        if (len == 0 || memcmp(&back, &v, sizeof v) != 0) bad++;
        if (i % 10 == 0) {
            char doc[64];
            snprintf(doc, sizeof doc, "[%s]", b);
            json_t *j = parse(doc);
            if (!j || json_number_value(json_array_get(j, 0)) != v) bad_json++;
            json_decref(j);
        }
    }
    CHECK(n > 90000);
    CHECK_EQ_I(bad, 0);
    CHECK_EQ_I(bad_json, 0);
}

/* The escaping as jw.h documents it, written the slow way. */
static size_t ref_escape(const unsigned char *s, size_t n, char *out) {
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len = 1;
        if (c >= 0x80) {
            len = jw_utf8_len(s + i, n - i);
            if (len == 0) {
                o += (size_t)sprintf(out + o, "\\ufffd");
                len = 1;
            } else {
                memcpy(out + o, s + i, len);
                o += len;
            }
        } else if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c == '\n') o += (size_t)sprintf(out + o, "\\n");
        else if (c == '\t') o += (size_t)sprintf(out + o, "\\t");
        else if (c == '\r') o += (size_t)sprintf(out + o, "\\r");
        else if (c == '\b') o += (size_t)sprintf(out + o, "\\b");
        else if (c == '\f') o += (size_t)sprintf(out + o, "\\f");
        else if (c < 0x20) o += (size_t)sprintf(out + o, "\\u%04x", c);
        else out[o++] = (char)c;
        i += len;
    }
    out[o++] = '"';
    out[o] = 0;
    return o;
}

/* The fast paths: 8 bytes at a time through plain text, a special byte at every position of
 * those 8, strings around the 256-byte fast-path limit; the integer and whole-double printers;
 * and jw_set_buffer(), whose output must be byte for byte the unbuffered one, with a buffer
 * small enough to spill in the middle of values. */
static void test_jw_fast_paths(void) {
    static const unsigned char specials[] = {'"', '\\', '\n', 0x01, 0x1f, 0x7f, 0x80, 0xc3, 0xe2, 0xff, 0};
    unsigned char in[1100];
    char want[8000];
    int bad = 0, cases = 0;
    uint64_t x = 0x243f6a8885a308d3u;
    static const size_t lens[] = {0, 1, 7, 8, 9, 15, 16, 17, 40, 255, 256, 257, 258, 300, 1024};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t n = lens[li];
        for (size_t pos = 0; pos <= (n < 20 ? n : 20); pos++) {
            for (size_t k = 0; k < sizeof specials; k++) {
                for (size_t i = 0; i < n; i++) in[i] = (unsigned char)('a' + i % 26);
                if (pos < n) in[pos] = specials[k];
                if (n > 100 && k % 2) { /* and a valid multibyte character near the end */
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                    size_t at = n - 3 - (size_t)(x % 40);
                    memcpy(in + at, "\xe2\x82\xac", 3);
                }
                ref_escape(in, n, want);
                mem m;
                mem_open(&m);
                jw w;
                jw_init(&w, m.f, false);
                jw_strn(&w, (const char *)in, n);
                if (jw_finish(&w) != 0 || strcmp(mem_str(&m), want) != 0) bad++;
                cases++;
                mem_close(&m);
            }
        }
    }
    CHECK(cases > 1000);
    CHECK_EQ_I(bad, 0);

    /* integers and whole doubles against printf */
    static const int64_t ints[] = {0, 1, -1, 9, 10, 99, 100, -100, 12345678901234, INT64_MAX,
                                   INT64_MIN, INT64_MIN + 1, 999999999999999, 1000000000000000};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        char expect[64];
        mem m;
        mem_open(&m);
        jw w;
        jw_init(&w, m.f, false);
        jw_int(&w, ints[i]);
        jw_finish(&w);
        snprintf(expect, sizeof expect, "%" PRId64, ints[i]);
        CHECK_EQ_S(mem_str(&m), expect);
        mem_close(&m);
        mem_open(&m);
        jw_init(&w, m.f, false);
        jw_uint(&w, (uint64_t)ints[i]);
        jw_finish(&w);
        snprintf(expect, sizeof expect, "%" PRIu64, (uint64_t)ints[i]);
        CHECK_EQ_S(mem_str(&m), expect);
        mem_close(&m);
    }
    int bad_d = 0;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v = (double)(int64_t)(x % 2000000000000000u) - 1e15; /* whole, around +-1e15 */
        if (i % 3 == 0) v = (double)(int64_t)(x % 100000);
        char got[JW_DTOA_MAX], ref[JW_DTOA_MAX];
        jw_dtoa(got, v);
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(ref, sizeof ref, "%.*g", prec, v);
            if (strtod(ref, NULL) == v) break;
        }
        if (strcmp(got, ref) != 0) bad_d++;
    }
    CHECK_EQ_I(bad_d, 0);
    /* decimals (the fixed-point path: n / 10^k): the same text as the printf loop, for every
     * place count, sign, magnitude around the path's limits (1e-4, 1e9, 15 digits) and values
     * one ulp away from a short decimal */
    int bad_f = 0, nf = 0;
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int k = (int)(x % 8);
        static const double p10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7};
        uint64_t mod = (x >> 8) % 4 == 0 ? 1000 : (x >> 8) % 4 == 1 ? 1000000000u
                       : (x >> 8) % 4 == 2 ? UINT64_C(1000000000000000) : UINT64_C(1999999999999999);
        double v = (double)((x >> 12) % mod) / p10[k];
        if (x & 1) v = -v;
        if ((x >> 3) % 16 == 0) v = nextafter(v, INFINITY);
        if ((x >> 3) % 16 == 1) v = nextafter(v, -INFINITY);
        if ((x >> 3) % 64 == 2) v = 1e-4 * (double)((x >> 20) % 20) / 10;
        if ((x >> 3) % 64 == 3) v = 1e9 + (double)((x >> 20) % 1000) / 1000 - 0.5;
        /* the exact path: any double from 1e-4 to 1e15 (log-uniform), dyadic k / 2^n (exact
         * decimal ties at 15 and 16 digits), ratios such as shares */
        if ((x >> 3) % 8 == 4) v = pow(10, -4.5 + 20.0 * (double)((x >> 11) % 1000003) / 1000003);
        if ((x >> 3) % 8 == 5) v = ldexp((double)((x >> 10) % (UINT64_C(1) << 53)), -(int)((x >> 2) % 64));
        if ((x >> 3) % 8 == 6) v = (double)((x >> 8) % 1000003) / (double)((x >> 30) % 999983 + 1);
        char got[JW_DTOA_MAX], ref[JW_DTOA_MAX];
        if (!isfinite(v) || v == (double)(int64_t)v) continue;
        nf++;
        jw_dtoa(got, v);
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(ref, sizeof ref, "%.*g", prec, v);
            if (strtod(ref, NULL) == v) break;
        }
        if (strcmp(got, ref) != 0 && bad_f++ < 5) fprintf(stderr, "dtoa %.17g: %s, printf %s\n", v, got, ref);
    }
    CHECK(nf > 200000);
    CHECK_EQ_I(bad_f, 0);
    jw_double_is(1.5, "1.5");
    jw_double_is(-0.000123, "-0.000123");
    jw_double_is(0.00001, "1e-05");
    jw_double_is(123456.789, "123456.789");
    jw_double_is(0.1 + 0.2, "0.30000000000000004");
    /* (expected texts: Python's '%.*g' with the same 15/16/17 loop) */
    jw_double_is(12345678901.03125, "12345678901.03125"); /* 15 digits: a tie, not v */
    jw_double_is(123456789012345.5, "123456789012345.5");
    jw_double_is(999999999999999.9, "999999999999999.9"); /* 15 digits: 1e+15, not v */
    jw_double_is(1.0000000000000004e-4, "0.00010000000000000005");
    jw_double_is(0.0003346694963574378, "0.0003346694963574378");
    jw_double_is(999999999999999.0, "999999999999999");
    jw_double_is(1e15, "1e+15");
    jw_double_is(-1e15, "-1e+15");

    /* buffered and unbuffered: the same bytes */
    for (int pretty = 0; pretty < 2; pretty++) {
        mem a, b;
        mem_open(&a);
        mem_open(&b);
        char buf[1024];
        jw wa, wb;
        jw_init(&wa, a.f, pretty);
        jw_init(&wb, b.f, pretty);
        jw_set_buffer(&wb, buf, sizeof buf);
        jw *ws[2] = {&wa, &wb};
        for (int k = 0; k < 2; k++) {
            jw *w = ws[k];
            jw_obj_begin(w);
            jw_key(w, "events");
            jw_arr_begin(w);
            for (int i = 0; i < 300; i++) {
                jw_obj_begin(w);
                jw_key(w, "index");
                jw_uint(w, (uint64_t)i);
                jw_key(w, "name");
                jw_strn(w, (const char *)in, (size_t)(i * 7) % 1100);
                jw_key(w, "value");
                jw_double(w, i / 7.0);
                jw_key(w, "meta");
                jw_hex(w, in, (size_t)i % 700);
                jw_obj_end(w);
            }
            jw_arr_end(w);
            jw_obj_end(w);
            CHECK_EQ_I(jw_finish(w), 0);
        }
        CHECK(strlen(mem_str(&a)) > 100000);
        CHECK(strcmp(mem_str(&a), mem_str(&b)) == 0);
        CHECK_JSON_PARSES(mem_str(&b));
        mem_close(&a);
        mem_close(&b);
    }
}

static int jw_misuse(int what) {
    mem m;
    mem_open(&m);
    jw w;
    jw_init(&w, m.f, what % 2);
    switch (what / 2) {
    case 0: /* value in an object without a key */
        jw_obj_begin(&w), jw_int(&w, 1), jw_obj_end(&w);
        break;
    case 1: /* key in an array */
        jw_arr_begin(&w), jw_key(&w, "k"), jw_int(&w, 1), jw_arr_end(&w);
        break;
    case 2: /* mismatched end */
        jw_arr_begin(&w), jw_obj_end(&w);
        break;
    case 3: /* key without value */
        jw_obj_begin(&w), jw_key(&w, "k"), jw_obj_end(&w);
        break;
    case 4: /* unclosed */
        jw_arr_begin(&w);
        break;
    case 5: /* two top-level values */
        jw_int(&w, 1), jw_int(&w, 2);
        break;
    case 6: /* nothing */
        break;
    case 7: /* too deep */
        for (int i = 0; i <= JW_MAX_DEPTH; i++) jw_arr_begin(&w);
        for (int i = 0; i <= JW_MAX_DEPTH; i++) jw_arr_end(&w);
        break;
    case 8: /* end at top level */
        jw_obj_end(&w);
        break;
    }
    int rc = jw_finish(&w);
    mem_close(&m);
    return rc;
}

static void test_jw_misuse(void) {
    for (int i = 0; i < 18; i++) CHECK_MSG(jw_misuse(i) == -1, "case %d", i);

    /* exactly JW_MAX_DEPTH levels are fine */
    mem m;
    mem_open(&m);
    jw w;
    jw_init(&w, m.f, false);
    for (int i = 0; i < JW_MAX_DEPTH; i++) jw_arr_begin(&w);
    for (int i = 0; i < JW_MAX_DEPTH; i++) jw_arr_end(&w);
    CHECK_EQ_I(jw_finish(&w), 0);
    CHECK_EQ_U(strlen(mem_str(&m)), 2 * JW_MAX_DEPTH);
    mem_close(&m);

    /* write errors are reported */
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        jw_init(&w, full, false);
        jw_arr_begin(&w);
        for (int i = 0; i < 10000; i++) jw_str(&w, "0123456789");
        jw_arr_end(&w);
        fflush(full);
        CHECK_EQ_I(jw_finish(&w), -1);
        fclose(full);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* out: the six formats on one small table */

static const out_col cols5[] = {
    {"name", "Name", OUT_STR, 0},     {"count", "Count", OUT_INT, 0},
    {"bytes", "Bytes", OUT_UINT, 0},  {"ms", "Time (ms)", OUT_FLOAT, 2},
    {"ok", "OK", OUT_BOOL, 0},
};

/* Writes the sample table in `fmt`; returns out_table_finish's result. */
static int sample(out_format fmt, FILE *f) {
    out_table *t = out_table_new(fmt, f, cols5, 5);
    if (!t) return -100;
    out_row_begin(t);
    out_cell_str(t, "conv");
    out_cell_int(t, -3);
    out_cell_uint(t, UINT64_MAX);
    out_cell_float(t, 1.5);
    out_cell_bool(t, true);
    out_row_end(t);
    out_row_begin(t);
    out_cell_str(t, "a,b \"q\"");
    out_cell_null(t);
    out_cell_uint(t, 0);
    out_cell_float(t, NAN);
    out_cell_bool(t, false);
    out_row_end(t);
    out_row_begin(t);
    out_cell_str(t, "h\xc3\xa9llo|x\ttab");
    out_cell_int(t, 42);
    out_cell_uint(t, 7);
    out_cell_float(t, -2.5);
    out_row_end(t); /* "ok" left out: absent */
    out_table_note(t, "2 rows skipped");
    int rc = out_table_finish(t);
    out_table_free(t);
    return rc;
}

static void sample_is(out_format fmt, const char *expected) {
    mem m;
    mem_open(&m);
    CHECK_EQ_I(sample(fmt, m.f), 0);
    CHECK_MSG(strcmp(mem_str(&m), expected) == 0, "format %s:\n%s\nexpected:\n%s",
              out_format_name(fmt), mem_str(&m), expected);
    mem_close(&m);
}

static void test_out_formats(void) {
    sample_is(OUT_TABLE, "Name         Count                 Bytes  Time (ms)  OK\n"
                         "-----------  -----  --------------------  ---------  -----\n"
                         "conv            -3  18446744073709551615       1.50  true\n"
                         "a,b \"q\"          -                     0          -  false\n"
                         "h\xc3\xa9llo|x tab     42                     7      -2.50  -\n"
                         "note: 2 rows skipped\n");
    sample_is(OUT_MD, "| Name         | Count |                Bytes | Time (ms) | OK    |\n"
                      "| ------------ | ----: | -------------------: | --------: | ----- |\n"
                      "| conv         |    -3 | 18446744073709551615 |      1.50 | true  |\n"
                      "| a,b \"q\"      |     - |                    0 |         - | false |\n"
                      "| h\xc3\xa9llo\\|x tab |    42 |                    7 |     -2.50 | -     |\n"
                      "\n"
                      "> 2 rows skipped\n");
    sample_is(OUT_CSV, "name,count,bytes,ms,ok\n"
                       "conv,-3,18446744073709551615,1.50,true\n"
                       "\"a,b \"\"q\"\"\",,0,,false\n"
                       "h\xc3\xa9llo|x\ttab,42,7,-2.50,\n");
    sample_is(OUT_TSV, "name\tcount\tbytes\tms\tok\n"
                       "conv\t-3\t18446744073709551615\t1.50\ttrue\n"
                       "a,b \"q\"\t\t0\t\tfalse\n"
                       "h\xc3\xa9llo|x tab\t42\t7\t-2.50\t\n");
    const char *json = "{\n"
                       "  \"schema_version\": 1,\n"
                       "  \"rows\": [\n"
                       "    {\n"
                       "      \"name\": \"conv\",\n"
                       "      \"count\": -3,\n"
                       "      \"bytes\": 18446744073709551615,\n"
                       "      \"ms\": 1.5,\n"
                       "      \"ok\": true\n"
                       "    },\n"
                       "    {\n"
                       "      \"name\": \"a,b \\\"q\\\"\",\n"
                       "      \"count\": null,\n"
                       "      \"bytes\": 0,\n"
                       "      \"ms\": null,\n"
                       "      \"ok\": false\n"
                       "    },\n"
                       "    {\n"
                       "      \"name\": \"h\xc3\xa9llo|x\\ttab\",\n"
                       "      \"count\": 42,\n"
                       "      \"bytes\": 7,\n"
                       "      \"ms\": -2.5,\n"
                       "      \"ok\": null\n"
                       "    }\n"
                       "  ],\n"
                       "  \"notes\": [\n"
                       "    \"2 rows skipped\"\n"
                       "  ]\n"
                       "}\n";
    sample_is(OUT_JSON, json);
    const char *jsonl =
        "{\"name\":\"conv\",\"count\":-3,\"bytes\":18446744073709551615,\"ms\":1.5,\"ok\":true}\n"
        "{\"name\":\"a,b \\\"q\\\"\",\"count\":null,\"bytes\":0,\"ms\":null,\"ok\":false}\n"
        "{\"name\":\"h\xc3\xa9llo|x\\ttab\",\"count\":42,\"bytes\":7,\"ms\":-2.5,\"ok\":null}\n";
    sample_is(OUT_JSONL, jsonl);

    /* the JSON parses, with the values we put in */
    json_t *j = parse(json);
    CHECK(j != NULL);
    if (j) {
        json_t *rows = json_object_get(j, "rows");
        CHECK_EQ_U(json_array_size(rows), 3);
        CHECK_EQ_I(json_number_value(json_object_get(j, "schema_version")), 1);
        CHECK(json_number_value(json_object_get(json_array_get(rows, 0), "bytes")) ==
              18446744073709551615.0);
        CHECK(json_is_null(json_object_get(json_array_get(rows, 1), "count")));
        CHECK_EQ_S(json_string_value(json_object_get(json_array_get(rows, 2), "name")),
                   "h\xc3\xa9llo|x\ttab");
        CHECK_EQ_S(json_string_value(json_array_get(json_object_get(j, "notes"), 0)),
                   "2 rows skipped");
    }
    json_decref(j);
    for (const char *line = jsonl; *line; line = strchr(line, '\n') + 1) {
        char one[256];
        size_t n = (size_t)(strchr(line, '\n') - line);
        memcpy(one, line, n);
        one[n] = '\0';
        CHECK_JSON_PARSES(one);
    }
}

static void test_out_empty(void) {
    static const struct {
        out_format fmt;
        const char *text;
    } cases[] = {
        {OUT_TABLE, "Name  Count  Bytes  Time (ms)  OK\n"
                    "----  -----  -----  ---------  --\n"},
        {OUT_MD, "| Name | Count | Bytes | Time (ms) | OK  |\n"
                 "| ---- | ----: | ----: | --------: | --- |\n"},
        {OUT_CSV, "name,count,bytes,ms,ok\n"},
        {OUT_TSV, "name\tcount\tbytes\tms\tok\n"},
        {OUT_JSON, "{\n  \"schema_version\": 1,\n  \"rows\": []\n}\n"},
        {OUT_JSONL, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mem m;
        mem_open(&m);
        out_table *t = out_table_new(cases[i].fmt, m.f, cols5, 5);
        CHECK_EQ_I(out_table_finish(t), 0);
        out_table_free(t);
        CHECK_MSG(strcmp(mem_str(&m), cases[i].text) == 0, "%s:\n%s", out_format_name(cases[i].fmt),
                  mem_str(&m));
        mem_close(&m);
    }
}

/* One-column tables: the text a single string cell becomes in each format. */
static void cell_is(out_format fmt, const char *in, size_t n, const char *expected) {
    static const out_col col[] = {{"s", "S", OUT_STR, 0}};
    mem m;
    mem_open(&m);
    out_table *t = out_table_new(fmt, m.f, col, 1);
    out_row_begin(t);
    out_cell_strn(t, in, n);
    out_row_end(t);
    CHECK_EQ_I(out_table_finish(t), 0);
    out_table_free(t);
    CHECK_MSG(strcmp(mem_str(&m), expected) == 0, "%s: got \"%s\" expected \"%s\"",
              out_format_name(fmt), mem_str(&m), expected);
    if (fmt == OUT_JSON || fmt == OUT_JSONL) CHECK_JSON_PARSES(mem_str(&m));
    mem_close(&m);
}

static void test_out_strings(void) {
    /* control characters (C0, DEL, C1 such as CSI U+009B) never reach table/md/tsv output */
    const char esc[] = "a\x1b[31mred\x7f\xc2\x9b" "b\r\n";
    cell_is(OUT_TABLE, esc, sizeof esc - 1, "S\n--------------\na [31mred  b  \n");
    cell_is(OUT_TSV, esc, sizeof esc - 1, "s\na [31mred  b  \n");
    cell_is(OUT_MD, esc, sizeof esc - 1,
            "| S              |\n| -------------- |\n| a [31mred  b   |\n");
    /* csv keeps CR/LF inside quotes, other controls become spaces */
    cell_is(OUT_CSV, esc, sizeof esc - 1, "s\n\"a [31mred  b\r\n\"\n");
    cell_is(OUT_CSV, "tab\there", 8, "s\ntab\there\n");
    cell_is(OUT_CSV, "\"", 1, "s\n\"\"\"\"\n");
    cell_is(OUT_CSV, "", 0, "s\n\n");
    cell_is(OUT_CSV, "x\ny", 3, "s\n\"x\ny\"\n");
    /* NUL bytes inside a string */
    cell_is(OUT_TSV, "a\0b", 3, "s\na b\n");
    cell_is(OUT_JSONL, "a\0b", 3, "{\"s\":\"a\\u0000b\"}\n");
    /* invalid UTF-8 becomes U+FFFD in every format */
    cell_is(OUT_TABLE, "x\xff\xc0\xafy", 5, "S\n-----\nx\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdy\n");
    cell_is(OUT_CSV, "x\xffy", 3, "s\nx\xef\xbf\xbdy\n");
    cell_is(OUT_TSV, "\xed\xa0\x80", 3, "s\n\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n");
    cell_is(OUT_MD, "\x80|", 2, "| S   |\n| --- |\n| \xef\xbf\xbd\\| |\n");
    cell_is(OUT_JSON, "x\xff", 2,
            "{\n  \"schema_version\": 1,\n  \"rows\": [\n    {\n      \"s\": \"x\\ufffd\"\n    }\n"
            "  ]\n}\n");
    cell_is(OUT_JSONL, "\xf4\x90\x80\x80", 4,
            "{\"s\":\"\\ufffd\\ufffd\\ufffd\\ufffd\"}\n");
    /* unicode width is counted in code points */
    cell_is(OUT_TABLE, "\xe2\x82\xac\xe2\x82\xac", 6, "S\n--\n\xe2\x82\xac\xe2\x82\xac\n");
    /* a table or md cell over 4,096 bytes is kept cut at a character's start, with the bytes
     * left out counted; csv keeps every byte. 4,095 'a', then a 3-byte euro sign over the
     * limit, then 'b's: the cut falls before the euro sign. */
    {
        size_t n = 10000;
        char *in = malloc(n);
        memset(in, 'a', 4095);
        memcpy(in + 4095, "\xe2\x82\xac", 3);
        memset(in + 4098, 'b', n - 4098);
        const char *mark = " [... 5905 more bytes]"; /* 10000 - 4095 */
        size_t w = 4095 + strlen(mark);
        char *want = malloc(3 * w + 16), *o = want;
        *o++ = 'S'; /* no padding after a left-aligned last column */
        *o++ = '\n';
        memset(o, '-', w), o += w;
        *o++ = '\n';
        memset(o, 'a', 4095), o += 4095;
        o += sprintf(o, "%s\n", mark);
        cell_is(OUT_TABLE, in, n, want);
        char *csv = malloc(n + 8);
        memcpy(csv, "s\n", 2);
        memcpy(csv + 2, in, n);
        memcpy(csv + 2 + n, "\n", 2);
        cell_is(OUT_CSV, in, n, csv);
        /* exactly 4,096 bytes: kept whole */
        memset(in, 'c', 4096);
        memcpy(csv + 2, in, 4096);
        memcpy(csv + 2 + 4096, "\n", 2);
        cell_is(OUT_CSV, in, 4096, csv);
        o = want;
        *o++ = 'S';
        *o++ = '\n';
        memset(o, '-', 4096), o += 4096;
        *o++ = '\n';
        memset(o, 'c', 4096), o += 4096;
        strcpy(o, "\n");
        cell_is(OUT_TABLE, in, 4096, want);
        free(csv);
        free(want);
        free(in);
    }
    /* absent string */
    cell_is(OUT_TABLE, NULL, 0, "S\n-\n-\n");
    cell_is(OUT_CSV, NULL, 0, "s\n\n");
    cell_is(OUT_JSONL, NULL, 0, "{\"s\":null}\n");
}

static void test_out_numbers(void) {
    static const out_col cols[] = {
        {"f0", "F0", OUT_FLOAT, 0},  {"f3", "F3", OUT_FLOAT, 3}, {"fs", "FS", OUT_FLOAT, -1},
        {"i", "I", OUT_INT, 0},      {"u", "U", OUT_UINT, 0},
    };
    mem m;
    mem_open(&m);
    out_table *t = out_table_new(OUT_CSV, m.f, cols, 5);
    out_row_begin(t);
    out_cell_float(t, 2.5e9);
    out_cell_float(t, -0.0001); /* rounds to zero: no "-0.000" */
    out_cell_float(t, 0.1);
    out_cell_int(t, INT64_MIN);
    out_cell_uint(t, UINT64_MAX);
    out_row_end(t);
    out_row_begin(t);
    out_cell_float(t, INFINITY);
    out_cell_float(t, -INFINITY);
    out_cell_float(t, 1.0 / 3.0);
    out_cell_int(t, INT64_MAX);
    out_cell_uint(t, 0);
    out_row_end(t);
    CHECK_EQ_I(out_table_finish(t), 0);
    out_table_free(t);
    CHECK_EQ_S(mem_str(&m), "f0,f3,fs,i,u\n"
                            "2500000000,0.000,0.1,-9223372036854775808,18446744073709551615\n"
                            "inf,-inf,0.3333333333333333,9223372036854775807,0\n");
    mem_close(&m);

    /* JSON: full precision, infinities are null, extremes exact */
    mem_open(&m);
    t = out_table_new(OUT_JSONL, m.f, cols, 5);
    out_row_begin(t);
    out_cell_float(t, 1.0 / 3.0);
    out_cell_float(t, INFINITY);
    out_cell_float(t, -1e-300);
    out_cell_int(t, INT64_MIN);
    out_cell_uint(t, UINT64_MAX);
    out_row_end(t);
    CHECK_EQ_I(out_table_finish(t), 0);
    out_table_free(t);
    CHECK_EQ_S(mem_str(&m), "{\"f0\":0.3333333333333333,\"f3\":null,\"fs\":-1e-300,"
                            "\"i\":-9223372036854775808,\"u\":18446744073709551615}\n");
    json_t *j = parse(mem_str(&m));
    CHECK(j && json_number_value(json_object_get(j, "f0")) == 1.0 / 3.0);
    CHECK(j && json_number_value(json_object_get(j, "fs")) == -1e-300);
    json_decref(j);
    mem_close(&m);
}

/* Fixed-place cells (the tables' "%.3f" columns): out_fmt_float writes them from an integer;
 * the text must be printf's, byte for byte, for every place count it takes: random magnitudes,
 * exact ties (k / 2^n, where printf rounds half to even), one ulp either side of a half, the
 * fast path's limits (2^52 / 10^places) and signs, -0.0 included. */
static void test_out_fixed_places(void) {
    uint64_t x = 0x9e3779b97f4a7c15u;
    int bad = 0, n = 0;
    for (int i = 0; i < 400000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int places = (int)(x % 11); /* 10: printf's own path */
        double v;
        switch ((x >> 4) % 8) {
        case 0: v = pow(10, -12.0 + 30.0 * (double)((x >> 11) % 1000003) / 1000003); break;
        case 1: v = ldexp((double)((x >> 10) % (UINT64_C(1) << 20)), -(int)((x >> 40) % 24)); break;
        case 2: v = ((double)((x >> 12) % 20000000) + 0.5) / pow(10, places); break;
        case 3: v = nextafter(((double)((x >> 12) % 20000000) + 0.5) / pow(10, places),
                              (x >> 50) & 1 ? INFINITY : -INFINITY); break;
        case 4: v = 4503599627370496.0 / pow(10, places) * (0.999 + (double)((x >> 20) % 3) / 1000); break;
        case 5: v = (double)((x >> 8) % 100000000) / 1000.0; break; /* times in us from ns */
        case 6: { /* percentiles: a + (b - a) * t */
            double a = (double)((x >> 8) % 3000000), b = a + (double)((x >> 30) % 5000);
            v = a + (b - a) * ((double)((x >> 45) % 1000) / 1000.0);
            break;
        }
        default: v = (double)((x >> 8) % 1000) * 1e-7; break;
        }
        if ((x >> 62) & 1) v = -v;
        char got[400], ref[400];
        const char *g = out_fmt_float(got, sizeof got, v, places);
        snprintf(ref, sizeof ref, "%.*f", places, v);
        const char *r = ref;
        if (ref[0] == '-' && strspn(ref + 1, "0.") == strlen(ref + 1)) r = ref + 1;
        n++;
        if (strcmp(g, r) != 0 && bad++ < 5)
            fprintf(stderr, "%d places of %.17g: %s, printf %s\n", places, v, g, r);
    }
    CHECK(n == 400000);
    CHECK_EQ_I(bad, 0);
    char b[400];
    CHECK_EQ_S(out_fmt_float(b, sizeof b, 0.0625, 3), "0.062"); /* a tie: to even */
    CHECK_EQ_S(out_fmt_float(b, sizeof b, 0.1875, 3), "0.188");
    CHECK_EQ_S(out_fmt_float(b, sizeof b, 2.5, 0), "2");
    CHECK_EQ_S(out_fmt_float(b, sizeof b, -0.0, 3), "0.000");
    CHECK_EQ_S(out_fmt_float(b, sizeof b, -1.0005, 2), "-1.00");
    CHECK_EQ_S(out_fmt_float(b, sizeof b, 1419408.8, 3), "1419408.800");
}

static void test_out_width(void) {
    static const out_col cols[] = {
        {"id", "ID", OUT_INT, 0}, {"name", "Name", OUT_STR, 0}, {"path", "Path", OUT_STR, 0}};
    for (int max = 0; max <= 2; max++) {
        mem m;
        mem_open(&m);
        out_table *t = out_table_new(OUT_TABLE, m.f, cols, 3);
        out_table_set_max_width(t, max == 0 ? 0 : max == 1 ? 40 : 10);
        out_row_begin(t);
        out_cell_int(t, 1);
        out_cell_str(t, "short");
        out_cell_str(t, "/very/long/path/to/some/file/that/is/long.c");
        out_row_end(t);
        out_row_begin(t);
        out_cell_int(t, 22);
        out_cell_str(t, "a much longer name here");
        out_cell_str(t, "x");
        out_row_end(t);
        CHECK_EQ_I(out_table_finish(t), 0);
        out_table_free(t);
        const char *want[] = {
            /* unlimited */
            "ID  Name                     Path\n"
            "--  -----------------------  -------------------------------------------\n"
            " 1  short                    /very/long/path/to/some/file/that/is/long.c\n"
            "22  a much longer name here  x\n",
            /* 40: the wider column first, then both in turn */
            "ID  Name               Path\n"
            "--  -----------------  -----------------\n"
            " 1  short              /very/long/path/~\n"
            "22  a much longer na~  x\n",
            /* 10: not below 12 per string column */
            "ID  Name          Path\n"
            "--  ------------  ------------\n"
            " 1  short         /very/long/~\n"
            "22  a much long~  x\n",
        };
        CHECK_MSG(strcmp(mem_str(&m), want[max]) == 0, "max %d:\n%s", max, mem_str(&m));
        mem_close(&m);
    }

    /* cuts fall on code points; headers are cut too; numbers and md are never cut */
    static const out_col wide[] = {{"s", "A very long header", OUT_STR, 0}, {"n", "N", OUT_UINT, 0}};
    for (int fmt = 0; fmt < 2; fmt++) {
        mem m;
        mem_open(&m);
        out_table *t = out_table_new(fmt ? OUT_MD : OUT_TABLE, m.f, wide, 2);
        out_table_set_max_width(t, 5);
        out_row_begin(t);
        out_cell_str(t, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"); /* 16 x é */
        out_cell_uint(t, UINT64_MAX);
        out_row_end(t);
        CHECK_EQ_I(out_table_finish(t), 0);
        out_table_free(t);
        const char *want =
            fmt ? "| A very long header |                    N |\n"
                  "| ------------------ | -------------------: |\n"
                  "| \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9   | 18446744073709551615 |\n"
                : "A very long~                     N\n"
                  "------------  --------------------\n"
                  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                  "\xc3\xa9~  18446744073709551615\n";
        CHECK_MSG(strcmp(mem_str(&m), want) == 0, "%s", mem_str(&m));
        mem_close(&m);
    }
}

/* Columns left out to fit (groups, the narrower ones brought back) and prose wrapping; the
 * expected texts are worked out by hand from the rules in out.h. */
/* Display widths of UTF-8 cells longer than 8 bytes (counted 8 bytes at a time): ten 3-byte
 * characters are 10 columns, three 4-byte ones and "abc" 6, so the next column lines up. */
static void test_out_width_utf8(void) {
    static const out_col cols[] = {{"s", "S", OUT_STR, 0}, {"n", "N", OUT_INT, 0}};
    mem m;
    mem_open(&m);
    out_table *t = out_table_new(OUT_TABLE, m.f, cols, 2);
    const char *cells[] = {"\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
                           "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac",
                           "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80" "abc", "abcdefghijk"};
    for (int i = 0; i < 3; i++) {
        out_row_begin(t);
        out_cell_str(t, cells[i]);
        out_cell_int(t, i);
        out_row_end(t);
    }
    CHECK_EQ_I(out_table_finish(t), 0);
    out_table_free(t);
    CHECK_EQ_S(mem_str(&m), "S            N\n"
                            "-----------  -\n"
                            "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
                            "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac   0\n"
                            "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80" "abc       1\n"
                            "abcdefghijk  2\n");
    mem_close(&m);
}

static void test_out_fit(void) {
    static const out_col cols[] = {{"name", "name", OUT_STR, 0},
                                   {"wide", "wide header", OUT_UINT, 0},
                                   {"x", "x", OUT_UINT, 0},
                                   {"v", "v", OUT_FLOAT, 1},
                                   {"u", "u", OUT_STR, 0}};
    static const char *const ranks[] = {"x:3", "wide:2", "v+u:1", NULL};
    /* full width 5 + 11 + 1 + 3 + 2 + 4 * 2 = 30 */
    static const struct {
        int max;
        const char *want;
    } cases[] = {
        {0, "name   wide header  x    v  u\n-----  -----------  -  ---  --\n"
            "alpha            1  2  3.5  ms\n"},
        {30, "name   wide header  x    v  u\n-----  -----------  -  ---  --\n"
             "alpha            1  2  3.5  ms\n"},
        /* x (27) then wide (14) go; x (17) fits again */
        {20, "name   x    v  u\n-----  -  ---  --\nalpha  2  3.5  ms\n"
             "note: columns left out to fit 20 terminal columns: wide header (--wide or COLUMNS=30 "
             "shows them; --format csv or json has every column)\n"},
        /* x, wide, then v with u (5); only x (8) comes back */
        {12, "name   x\n-----  -\nalpha  2\n"
             "note: columns left out to fit 12 terminal columns: wide header, v, u (--wide or "
             "COLUMNS=30 shows them; --format csv or json has every column)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mem m;
        mem_open(&m);
        out_table *t = out_table_new(OUT_TABLE, m.f, cols, 5);
        out_table_set_max_width(t, cases[i].max);
        out_table_set_droppable(t, ranks);
        out_row_begin(t);
        out_cell_str(t, "alpha");
        out_cell_uint(t, 1);
        out_cell_uint(t, 2);
        out_cell_float(t, 3.5);
        out_cell_str(t, "ms");
        out_row_end(t);
        CHECK_EQ_I(out_table_finish(t), 0);
        out_table_free(t);
        CHECK_MSG(strcmp(mem_str(&m), cases[i].want) == 0, "max %d:\n%s", cases[i].max,
                  mem_str(&m));
        mem_close(&m);
    }

    mem m;
    mem_open(&m);
    /* first line: 30 - "note: " = 24 columns; then 30 - 6 */
    out_wrap(m.f, 30, "note: ", 6, "one two three four five six seven eight nine ten");
    /* a label padded to the indent keeps its value (one long word) on its line */
    out_wrap(m.f, 40, NULL, 11, "file       /a/very/long/path/name/that/is/long.etdp x");
    out_wrap(m.f, 0, NULL, 2, "no width: one line however long it is, with no wrapping at all");
    out_wrapf(m.f, 24, 2, "\n%s: p50 %d us, p90 %d us\n\n", "forward", 15803, 16000);
    /* code points, not bytes: 11 x e-acute + space + 11 x e-acute fit 23 columns */
    out_wrap(m.f, 23, NULL, 2,
             "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 "
             "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
    const char *want =
        "note: one two three four five\n"
        "      six seven eight nine ten\n"
        "file       /a/very/long/path/name/that/is/long.etdp\n"
        "           x\n"
        "no width: one line however long it is, with no wrapping at all\n"
        "\n"
        "forward: p50 15803 us,\n"
        "  p90 16000 us\n"
        "\n"
        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 "
        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n";
    CHECK_MSG(strcmp(mem_str(&m), want) == 0, "%s", mem_str(&m));
    mem_close(&m);
}

static void test_out_notes(void) {
    static const out_col col[] = {{"k", "K", OUT_INT, 0}};
    static const struct {
        out_format fmt;
        const char *text;
    } cases[] = {
        {OUT_TABLE, "K\n-\n1\nnote: first\nnote: two\nnote: lines\nnote: tab there\n"},
        {OUT_MD, "|   K |\n| --: |\n|   1 |\n\n> first\n>\n> two\n> lines\n>\n> tab there\n"},
        {OUT_CSV, "k\n1\n"},
        {OUT_TSV, "k\n1\n"},
        {OUT_JSONL, "{\"k\":1}\n"},
        {OUT_JSON, "{\n  \"schema_version\": 1,\n  \"rows\": [\n    {\n      \"k\": 1\n    }\n  ],\n"
                   "  \"notes\": [\n    \"first\",\n    \"two\\nlines\\n\",\n    \"tab\\tthere\"\n"
                   "  ]\n}\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mem m;
        mem_open(&m);
        out_table *t = out_table_new(cases[i].fmt, m.f, col, 1);
        out_table_note(t, "first"); /* notes may come before the rows */
        out_row_begin(t);
        out_cell_int(t, 1);
        out_row_end(t);
        out_table_note(t, "two\nlines\n");
        out_table_note(t, "tab\tthere");
        CHECK_EQ_I(out_table_finish(t), 0);
        out_table_free(t);
        CHECK_MSG(strcmp(mem_str(&m), cases[i].text) == 0, "%s:\n%s", out_format_name(cases[i].fmt),
                  mem_str(&m));
        if (cases[i].fmt == OUT_JSON) CHECK_JSON_PARSES(mem_str(&m));
        mem_close(&m);
    }
}

static void test_out_in_json(void) {
    static const out_col cols[] = {{"k", "K", OUT_INT, 0}, {"v", "V", OUT_STR, 0}};
    mem m;
    mem_open(&m);
    jw w;
    jw_init(&w, m.f, true);
    jw_obj_begin(&w);
    jw_key(&w, "ops");
    out_table *t = out_table_new_in_json(&w, cols, 2);
    out_table_note(t, "ignored here");
    out_row_begin(t);
    out_cell_int(t, 1);
    out_cell_str(t, "a");
    out_row_end(t);
    out_row_begin(t);
    out_cell_int(t, 2);
    out_row_end(t);
    CHECK_EQ_I(out_table_finish(t), 0);
    out_table_free(t);
    jw_key(&w, "empty");
    t = out_table_new_in_json(&w, cols, 2);
    CHECK_EQ_I(out_table_finish(t), 0);
    out_table_free(t);
    jw_key(&w, "total");
    jw_int(&w, 2);
    jw_obj_end(&w);
    CHECK_EQ_I(jw_finish(&w), 0);
    CHECK_EQ_S(mem_str(&m), "{\n"
                            "  \"ops\": [\n"
                            "    {\n"
                            "      \"k\": 1,\n"
                            "      \"v\": \"a\"\n"
                            "    },\n"
                            "    {\n"
                            "      \"k\": 2,\n"
                            "      \"v\": null\n"
                            "    }\n"
                            "  ],\n"
                            "  \"empty\": [],\n"
                            "  \"total\": 2\n"
                            "}");
    CHECK_JSON_PARSES(mem_str(&m));
    mem_close(&m);
}

static void test_out_errors(void) {
    static const out_col col[] = {{"k", "K", OUT_INT, 0}};
    out_format f = OUT_TABLE;
    static const char *names[] = {"table", "csv", "tsv", "json", "jsonl", "md"};
    for (int i = 0; i < 6; i++) {
        CHECK_EQ_I(out_format_parse(names[i], &f), 0);
        CHECK_EQ_I(f, i);
        CHECK_EQ_S(out_format_name(f), names[i]);
    }
    CHECK_EQ_I(out_format_parse("JSON", &f), ETP_E_USAGE);
    CHECK_EQ_I(out_format_parse("", &f), ETP_E_USAGE);
    CHECK_EQ_I(out_format_parse(NULL, &f), ETP_E_USAGE);
    CHECK_EQ_I(f, OUT_MD); /* untouched by failures */
    CHECK(out_table_new((out_format)6, stdout, col, 1) == NULL);
    CHECK_EQ_S(out_format_name((out_format)6), "?");

    for (int fmt = 0; fmt < 6; fmt++) {
        /* too many cells / a cell outside a row / an unfinished row */
        for (int kind = 0; kind < 3; kind++) {
            mem m;
            mem_open(&m);
            out_table *t = out_table_new((out_format)fmt, m.f, col, 1);
            if (kind == 1) out_cell_int(t, 1);
            out_row_begin(t);
            out_cell_int(t, 1);
            if (kind == 0) out_cell_int(t, 2);
            if (kind != 2) out_row_end(t);
            CHECK_MSG(out_table_finish(t) == ETP_E_INTERNAL, "fmt %d kind %d", fmt, kind);
            CHECK_EQ_I(out_table_finish(t), ETP_E_INTERNAL); /* twice */
            out_table_free(t);
            mem_close(&m);
        }
        /* write errors */
        FILE *full = fopen("/dev/full", "w");
        if (!full) continue;
        out_table *t = out_table_new((out_format)fmt, full, col, 1);
        for (int r = 0; r < 3; r++) {
            out_row_begin(t);
            out_cell_int(t, r);
            out_row_end(t);
        }
        CHECK_MSG(out_table_finish(t) == ETP_E_IO, "fmt %d", fmt);
        out_table_free(t);
        fclose(full);
    }
    out_table_free(NULL);
}

/* jsonl (and csv/json) write each row as it comes: the FILE has every row before finish, and
 * memory does not grow with the number of rows. */
static void test_out_streaming(void) {
    static const out_col cols[] = {
        {"i", "I", OUT_UINT, 0}, {"name", "Name", OUT_STR, 0}, {"t", "T", OUT_FLOAT, 3}};
    static const out_format fmts[] = {OUT_JSONL, OUT_CSV, OUT_TSV, OUT_JSON};
    for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
        FILE *f = tmpfile();
        CHECK(f != NULL);
        if (!f) return;
        out_table *t = out_table_new(fmts[k], f, cols, 3);
        const uint32_t rows = fmts[k] == OUT_JSONL ? 200000 : 20000;
        long last = 0;
        size_t heap0 = 0, heap_max = 0;
        bool grew_each_time = true;
        for (uint32_t i = 1; i <= rows; i++) {
            out_row_begin(t);
            out_cell_uint(t, i);
            out_cell_str(t, "aten::convolution");
            out_cell_float(t, i * 0.5);
            out_row_end(t);
            if (i % 10000 == 0) {
                fflush(f);
                long now = ftell(f);
                /* every 10000 rows are at least 10000 lines long */
                if (now - last < 10000 * 20) grew_each_time = false;
                last = now;
                size_t heap = mallinfo2().uordblks;
                if (i == 10000) heap0 = heap;
                if (heap > heap_max) heap_max = heap;
            }
        }
        CHECK_MSG(grew_each_time, "%s", out_format_name(fmts[k]));
        CHECK_MSG(heap_max - heap0 < 64 * 1024, "%s: heap grew by %zu bytes",
                  out_format_name(fmts[k]), heap_max - heap0);
        CHECK_EQ_I(out_table_finish(t), 0);
        out_table_free(t);
        if (fmts[k] == OUT_JSONL) {
            /* the last line is row 200000 */
            long end = ftell(f);
            char tail[128] = "";
            fseek(f, end - 70, SEEK_SET);
            size_t got = fread(tail, 1, sizeof tail - 1, f);
            tail[got] = '\0';
            CHECK(strstr(tail, "\n{\"i\":200000,\"name\":\"aten::convolution\",\"t\":100000}\n") !=
                  NULL);
        }
        fclose(f);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* etp_outfile */

static int count_entries(const char *dir, const char *only) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (only && strcmp(e->d_name, only) != 0) continue;
        n++;
    }
    closedir(d);
    return n;
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static const char *read_file(const char *path, char *b, size_t cap) {
    FILE *f = fopen(path, "r");
    if (!f) return "(missing)";
    size_t n = fread(b, 1, cap - 1, f);
    b[n] = '\0';
    fclose(f);
    return b;
}

static void test_sink(void) {
    char dir[] = "/tmp/etprof_test_out_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char target[256], other[256], b[256];
    snprintf(target, sizeof target, "%s/out.json", dir);
    umask(022);

    /* abort leaves nothing */
    etp_outfile *s = NULL;
    etp_error err;
    memset(&err, 0, sizeof err);
    CHECK_EQ_I(etp_outfile_open(&s, target, &err), 0);
    CHECK(s && etp_outfile_stream(s) && etp_outfile_stream(s) != stdout);
    fputs("partial", etp_outfile_stream(s));
    CHECK_EQ_I(count_entries(dir, NULL), 1);      /* the temporary file */
    CHECK_EQ_I(count_entries(dir, "out.json"), 0); /* not the target */
    {
        /* the temporary file is named <path>.XXXXXX.tmp */
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            CHECK_EQ_U(strlen(e->d_name), strlen("out.json.XXXXXX.tmp"));
            CHECK(strncmp(e->d_name, "out.json.", 9) == 0);
            CHECK_EQ_S(e->d_name + 15, ".tmp");
        }
        if (d) closedir(d);
    }
    etp_outfile_abort(s);
    CHECK_EQ_I(count_entries(dir, NULL), 0);
    etp_outfile_abort(NULL);

    /* commit creates the file (mode 0666 & ~umask) */
    CHECK_EQ_I(etp_outfile_open(&s, target, &err), 0);
    fputs("first", etp_outfile_stream(s));
    CHECK_EQ_I(etp_outfile_commit(s, &err), 0);
    CHECK_EQ_S(read_file(target, b, sizeof b), "first");
    struct stat st;
    CHECK(stat(target, &st) == 0 && (st.st_mode & 0777) == 0644);
    CHECK_EQ_I(count_entries(dir, NULL), 1);

    /* commit replaces an existing file; until then the old one is intact */
    CHECK_EQ_I(etp_outfile_open(&s, target, &err), 0);
    fputs("second", etp_outfile_stream(s));
    fflush(etp_outfile_stream(s));
    CHECK_EQ_S(read_file(target, b, sizeof b), "first");
    CHECK_EQ_I(count_entries(dir, NULL), 2);
    CHECK_EQ_I(etp_outfile_commit(s, &err), 0);
    CHECK_EQ_S(read_file(target, b, sizeof b), "second");
    CHECK_EQ_I(count_entries(dir, NULL), 1);

    /* abort after writing leaves the old file as it was */
    CHECK_EQ_I(etp_outfile_open(&s, target, &err), 0);
    fputs("third", etp_outfile_stream(s));
    etp_outfile_abort(s);
    CHECK_EQ_S(read_file(target, b, sizeof b), "second");
    CHECK_EQ_I(count_entries(dir, NULL), 1);

    /* a directory that does not exist */
    snprintf(other, sizeof other, "%s/missing/out.csv", dir);
    memset(&err, 0, sizeof err);
    s = (etp_outfile *)&err; /* must be reset to NULL */
    CHECK_EQ_I(etp_outfile_open(&s, other, &err), ETP_E_IO);
    CHECK(s == NULL);
    CHECK_EQ_I(err.code, ETP_E_IO);
    CHECK_EQ_S(err.file, other);
    CHECK_MSG(strstr(err.msg, "no such file") != NULL, "%s", err.msg);
    char line[1024];
    etp_error_format(&err, line, sizeof line);
    CHECK(strstr(line, other) == line);

    /* a "directory" that is a file */
    snprintf(other, sizeof other, "%s/out.json/x", dir);
    memset(&err, 0, sizeof err);
    CHECK_EQ_I(etp_outfile_open(&s, other, &err), ETP_E_IO);
    CHECK_EQ_S(err.file, other);
    CHECK_MSG(strstr(err.msg, "not a directory") != NULL, "%s", err.msg);

    /* a directory without write permission (root may write anyway) */
    if (geteuid() != 0) {
        snprintf(other, sizeof other, "%s/ro", dir);
        mkdir(other, 0555);
        snprintf(other, sizeof other, "%s/ro/out.md", dir);
        memset(&err, 0, sizeof err);
        CHECK_EQ_I(etp_outfile_open(&s, other, &err), ETP_E_IO);
        CHECK_EQ_S(err.file, other);
        CHECK_MSG(strstr(err.msg, "permission denied") != NULL, "%s", err.msg);
        snprintf(other, sizeof other, "%s/ro", dir);
        rmdir(other);
    }

    /* rename fails (the target is a non-empty directory): no temporary file stays behind */
    snprintf(other, sizeof other, "%s/busy", dir);
    mkdir(other, 0755);
    snprintf(b, sizeof b, "%s/busy/keep", dir);
    write_file(b, "k");
    CHECK_EQ_I(etp_outfile_open(&s, other, &err), 0);
    fputs("data", etp_outfile_stream(s));
    memset(&err, 0, sizeof err);
    CHECK_EQ_I(etp_outfile_commit(s, &err), ETP_E_IO);
    CHECK_EQ_S(err.file, other);
    CHECK_EQ_I(count_entries(dir, NULL), 2); /* out.json and busy */
    CHECK_EQ_I(count_entries(other, NULL), 1);
    unlink(b);
    rmdir(other);

    /* stdout: no temporary file, nothing closed */
    CHECK_EQ_I(etp_outfile_open(&s, NULL, &err), 0);
    CHECK(etp_outfile_stream(s) == stdout);
    CHECK_EQ_I(etp_outfile_commit(s, &err), 0);
    CHECK_EQ_I(etp_outfile_open(&s, "-", &err), 0);
    CHECK(etp_outfile_stream(s) == stdout);
    etp_outfile_abort(s);
    CHECK(fflush(stdout) == 0);

    /* an out_table written through a etp_outfile */
    static const out_col col[] = {{"k", "K", OUT_INT, 0}};
    CHECK_EQ_I(etp_outfile_open(&s, target, &err), 0);
    out_table *t = out_table_new(OUT_CSV, etp_outfile_stream(s), col, 1);
    out_row_begin(t);
    out_cell_int(t, 7);
    out_row_end(t);
    CHECK_EQ_I(out_table_finish(t), 0);
    out_table_free(t);
    CHECK_EQ_I(etp_outfile_commit(s, &err), 0);
    CHECK_EQ_S(read_file(target, b, sizeof b), "k\n7\n");

    unlink(target);
    CHECK_EQ_I(count_entries(dir, NULL), 0);
    rmdir(dir);
}

/* The raw helpers (jw_put_*, jw_raw_begin/end: the events writer's hot path) write what the
 * checked calls write for the same values: strings of random bytes (escapes, control bytes,
 * valid and invalid UTF-8, every length up to 300), integers and doubles, and a raw line next to
 * the same line written member by member. */
static void checked_value(mem *m, int kind, const void *v, size_t n) {
    jw w;
    mem_open(m);
    jw_init(&w, m->f, false);
    if (kind == 0) jw_strn(&w, v, n);
    else if (kind == 1) jw_uint(&w, *(const uint64_t *)v);
    else if (kind == 2) jw_int(&w, *(const int64_t *)v);
    else jw_double(&w, *(const double *)v);
    CHECK(jw_finish(&w) == 0);
    fflush(m->f); /* m->len is read below */
}

static void test_jw_raw(void) {
    uint64_t r = 88172645463325252ull;
    static const unsigned char alphabet[] = {'a', 'Z', '0', ' ', '"', '\\', '\n', '\t', 0x01,
                                             0x1f, 0x7f, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0,
                                             0x9f, 0x98, 0x80, 0xff, 0xc0, 0x80, 0xed, 0xa0};
    char got[6 * 300 + 2 + 64];
    unsigned char in[300];
    for (int t = 0; t < 4000; t++) {
        size_t n = (size_t)(t % 301);
        bool plain_only = t % 3 == 0; /* long plain runs: the 8-byte paths */
        for (size_t i = 0; i < n; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            in[i] = plain_only ? (unsigned char)('a' + r % 26)
                               : alphabet[r % sizeof alphabet];
        }
        if (plain_only && n && t % 2) in[r % n] = alphabet[4 + r % 8]; /* one special byte */
        mem m;
        checked_value(&m, 0, in, n);
        char *e = jw_put_str(got, (const char *)in, n);
        CHECK((size_t)(e - got) <= 6 * n + 2);
        CHECK((size_t)(e - got) == m.len && memcmp(got, mem_str(&m), m.len) == 0);
        mem_close(&m);
    }
    for (int t = 0; t < 2000; t++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        uint64_t u = t < 64 ? (UINT64_C(1) << t) - 1 : r >> (r % 64);
        int64_t i = (int64_t)(t % 2 ? u : (uint64_t)0 - u);
        double d;
        memcpy(&d, &r, sizeof d);
        if (t % 4 == 0) d = (double)(int64_t)(r % 100000000) / 1000.0;
        const void *vals[3] = {&u, &i, &d};
        for (int k = 1; k <= 3; k++) {
            mem m;
            checked_value(&m, k, vals[k - 1], 0);
            char *e = k == 1 ? jw_put_uint(got, u) : k == 2 ? jw_put_int(got, i) : jw_put_double(got, d);
            CHECK((size_t)(e - got) == m.len && memcmp(got, mem_str(&m), m.len) == 0);
            mem_close(&m);
        }
    }
    /* integers written in place (their digits counted first): every power-of-ten boundary and
     * the extremes, against printf */
    {
        uint64_t p10 = 1;
        for (int k = 0; k <= 20; k++) {
            uint64_t cand[6] = {p10 - 1, p10, p10 + 1, p10 * 2, UINT64_MAX, (uint64_t)INT64_MAX};
            for (int c = 0; c < 6; c++) {
                char want[32];
                int64_t sv = (int64_t)cand[c];
                snprintf(want, sizeof want, "%" PRIu64, cand[c]);
                char *e = jw_put_uint(got, cand[c]);
                CHECK_MSG((size_t)(e - got) == strlen(want) && memcmp(got, want, strlen(want)) == 0,
                          "jw_put_uint(%s)", want);
                snprintf(want, sizeof want, "%" PRId64, sv);
                e = jw_put_int(got, sv);
                CHECK_MSG((size_t)(e - got) == strlen(want) && memcmp(got, want, strlen(want)) == 0,
                          "jw_put_int(%s)", want);
                if (sv == INT64_MIN) continue; /* below, alone: it has no negation */
                snprintf(want, sizeof want, "%" PRId64, -sv);
                e = jw_put_int(got, -sv);
                CHECK_MSG((size_t)(e - got) == strlen(want) && memcmp(got, want, strlen(want)) == 0,
                          "jw_put_int(%s)", want);
            }
            if (k < 19) p10 *= 10;
        }
        char want[32];
        snprintf(want, sizeof want, "%" PRId64, INT64_MIN);
        char *e = jw_put_int(got, INT64_MIN);
        CHECK((size_t)(e - got) == strlen(want) && memcmp(got, want, strlen(want)) == 0);
    }
    /* a raw line next to the checked one, through a buffered JSON Lines writer */
    mem a, b;
    mem_open(&a);
    mem_open(&b);
    char ba[2048], bb[2048];
    jw wa, wb;
    jw_init(&wa, a.f, false);
    jw_set_buffer(&wa, ba, sizeof ba);
    jw_init(&wb, b.f, false);
    jw_set_buffer(&wb, bb, sizeof bb);
    for (int line = 0; line < 50; line++) {
        char *o = jw_raw_begin(&wa, 200);
        CHECK(o != NULL);
        if (!o) break;
        o = jw_put_lit(o, "{\"n\":");
        o = jw_put_uint(o, (uint64_t)line);
        o = jw_put_lit(o, ",\"s\":");
        o = jw_put_strz(o, line % 2 ? "x\"y" : NULL);
        o = jw_put_lit(o, ",\"h\":");
        o = jw_put_hex(o, "\x01\xab", 2);
        *o++ = '}';
        jw_raw_end(&wa, o);
        CHECK(jw_line_end(&wa) == 0);
        jw_obj_begin(&wb);
        jw_key_lit(&wb, "n");
        jw_uint(&wb, (uint64_t)line);
        jw_key_lit(&wb, "s");
        jw_str(&wb, line % 2 ? "x\"y" : NULL);
        jw_key_lit(&wb, "h");
        jw_hex(&wb, "\x01\xab", 2);
        jw_obj_end(&wb);
        CHECK(jw_line_end(&wb) == 0);
    }
    jw_flush(&wa);
    jw_flush(&wb);
    fflush(a.f);
    fflush(b.f);
    CHECK(a.len > 0 && a.len == b.len && memcmp(mem_str(&a), mem_str(&b), a.len) == 0);
    /* raw writing applies only at a value's start of a compact buffered writer */
    jw_obj_begin(&wa);
    CHECK(jw_raw_begin(&wa, 10) == NULL); /* inside an object */
    CHECK(jw_raw_begin(&wa, sizeof ba + 1) == NULL);
    mem_close(&a);
    mem_close(&b);
    jw wp;
    mem m;
    mem_open(&m);
    jw_init(&wp, m.f, true);
    jw_set_buffer(&wp, ba, sizeof ba);
    CHECK(jw_raw_begin(&wp, 10) == NULL); /* pretty */
    jw_init(&wp, m.f, false);
    CHECK(jw_raw_begin(&wp, 10) == NULL); /* no buffer */
    mem_close(&m);
    /* the library's own names the events writer quotes without the escaping scan are plain */
    for (int k = 0; k < ETP_KIND_COUNT_; k++)
        for (const char *p = etp_kind_name((etp_kind)k); *p; p++)
            CHECK(*p > 0x20 && *p < 0x7f && *p != '"' && *p != '\\');
    for (int k = 1; k < ETP_UNIT_COUNT_; k++)
        for (const char *p = etp_unit_name((etp_unit)k); *p; p++)
            CHECK(*p > 0x20 && *p < 0x7f && *p != '"' && *p != '\\');
    for (int k = 0; k <= ETP_INSTR_FREE; k++)
        for (const char *p = etp_instr_kind_name((etp_instr_kind)k); p && *p; p++)
            CHECK(*p > 0x20 && *p < 0x7f && *p != '"' && *p != '\\');
}

/* An error is one line whatever names it carries: control characters become spaces. */
static void test_error_one_line(void) {
    etp_error e;
    etp_error_set(&e, ETP_E_INPUT, "a\nb.etdp", 7, "run_data[0]\tx",
                  "method %s of the program has no chain 0", "for\nward\r\x7f");
    char line[1024];
    etp_error_format(&e, line, sizeof line);
    CHECK_EQ_S(line, "a b.etdp: offset 7: run_data[0] x: method for ward   of the program has no "
                     "chain 0");
}

int main(void) {
    test_error_one_line();
    test_jw_layout();
    test_jw_raw();
    test_jw_escaping();
    test_jw_doubles();
    test_jw_fast_paths();
    test_jw_misuse();
    test_out_formats();
    test_out_empty();
    test_out_strings();
    test_out_numbers();
    test_out_fixed_places();
    test_out_width();
    test_out_width_utf8();
    test_out_fit();
    test_out_notes();
    test_out_in_json();
    test_out_errors();
    test_out_streaming();
    test_sink();
    return check_done();
}
