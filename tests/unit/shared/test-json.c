/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>

#include "json.h"
#include "tap.h"
#include "util.h"

/* s as json_string() writes it. */
static char *escaped(const char *s) {
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);
        struct json j;

        if (!f)
                return NULL;
        json_init(&j, f);
        json_string(&j, s);
        fclose(f);
        return out;
}

/* Each string as json_string() must write it. */
static const struct {
        const char *in, *want, *what;
} cases[] = {
        { "plain", "\"plain\"", "a plain string is quoted as it is" },
        { "a\"b", "\"a\\\"b\"", "a quote is escaped" },
        { "a\\b", "\"a\\\\b\"", "a backslash is escaped" },
        { "a\nb\tc\rd", "\"a\\nb\\tc\\rd\"", "newline, tab and carriage return get their short escapes" },
        { "\x01\x1f", "\"\\u0001\\u001f\"", "other control characters are written as \\u00XX" },
        { "\x7f\xc2\x9b\xc2\xa0", "\"\\u007f\\u009b\xc2\xa0\"", "DEL and C1 (U+009B) are written as \\u00XX, NBSP as it is" },
        { "/", "\"/\"", "a slash is not escaped" },
        { "h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
          "valid UTF-8 of two, three and four bytes passes unescaped" },
        { "a\xff" "b", "\"a\\ufffdb\"", "a byte that starts no UTF-8 sequence becomes U+FFFD" },
        { "a\xc3", "\"a\\ufffd\"", "a sequence cut short by the end becomes U+FFFD" },
        { "\xc3(", "\"\\ufffd(\"", "a lead byte without its continuation becomes U+FFFD, the next byte kept" },
        { "\xc0\xaf", "\"\\ufffd\\ufffd\"", "an overlong form is invalid, byte by byte" },
        { "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "a UTF-16 surrogate is invalid" },
        { "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", "a code point beyond U+10FFFF is invalid" },
        { "ab\"cd\\ef\x01gh\xc3\xa9ij\xffkl", "\"ab\\\"cd\\\\ef\\u0001gh\xc3\xa9ij\\ufffdkl\"",
          "runs of plain ASCII between every kind of escape keep their bytes and order" },
};

static void test_strings(void) {
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *got = escaped(cases[i].in);

                TAP_EQ_STR(got, cases[i].want, "%s", cases[i].what);
        }
}

/* A base64 image's worth of plain ASCII, with an escape at the end of it: written whole. */
static void test_long_run(void) {
        const size_t n = 300000;
        _cleanup_free_ char *in = malloc(n + 2), *got = NULL;
        bool same;

        if (!in) {
                tap_ok(0, "memory for a long string");
                return;
        }
        for (size_t i = 0; i < n; i++)
                in[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="[i % 65];
        in[n] = '\n';
        in[n + 1] = 0;
        got = escaped(in);
        same = got && strlen(got) == n + 4 && got[0] == '"' && memcmp(got + 1, in, n) == 0 &&
               streq(got + 1 + n, "\\n\"");
        tap_ok(same, "a 300 KB run of base64 characters is written as it is, the newline after it escaped");
}

static void test_document(void) {
        _cleanup_free_ char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);
        struct json j;

        if (!tap_ok(f != NULL, "a memory stream to write to"))
                return;
        json_init(&j, f);
        json_object_begin(&j);
        json_kv_string(&j, "k\"ey", "v");
        json_kv_string(&j, "none", NULL);
        json_kv_opt_int(&j, "n", 3, true);
        json_kv_opt_int(&j, "absent", 0, false);
        json_kv_size(&j, "size", 1280, 800);
        json_key(&j, "list");
        json_array_begin(&j);
        json_bool(&j, true);
        json_raw(&j, "{\"x\": 1}");
        json_array_end(&j);
        json_object_end(&j);
        fclose(f);
        TAP_EQ_STR(out, "{\"k\\\"ey\": \"v\", \"none\": null, \"n\": 3, \"absent\": null, \"size\": [1280, 800], "
                        "\"list\": [true, {\"x\": 1}]}",
                   "keys are escaped like values, NULL and absent values are null, a size is [w, h], in the order written");
}

/* json_mem: what was written through it is the text it hands out, whole and NUL-terminated. */
static void test_mem(void) {
        _cleanup_free_ char *out = NULL, *empty = NULL;
        struct json_mem m;

        if (!tap_ok(json_mem_open(&m) == 0, "a JSON text in memory can be begun"))
                return;
        json_object_begin(&m.j);
        json_kv_int(&m.j, "n", 7);
        json_object_end(&m.j);
        tap_ok(json_mem_close(&m, &out) == 0, "closing it hands the text out");
        TAP_EQ_STR(out, "{\"n\": 7}", "the text handed out is what was written through m.j");
        tap_ok(m.f == NULL && m.text == NULL, "after the close m owns nothing");

        if (!tap_ok(json_mem_open(&m) == 0, "a second JSON text in memory can be begun"))
                return;
        tap_ok(json_mem_close(&m, &empty) == 0 && empty && streq(empty, ""),
               "nothing written is an empty string, not NULL");
}

/* The reader: what it accepts, what it refuses, and a round trip through the writer. */
static void test_parse(void) {
        static const char *const bad[] = {
                "", "{", "[1,]", "{\"a\" 1}", "{'a': 1}", "01", "1.", "-", ".5", "tru", "nul", "\"\\x\"",
                "\"a\nb\"", "\"\\ud800\"", "\"\\u0000\"", "\"\xc3\"", "[1] 2", "NaN", "1e999",
        };
        const char *doc = "{\"a\": [1, -2.5e1, true, false, null], \"s\": \"\\u00e9\\ud83d\\ude00\\n\", \"a\": 7}";
        _cleanup_free_ char *out = NULL;
        size_t size = 0;
        struct json_value *v = NULL;
        long long n;
        char deep[200];
        FILE *f;

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct json_value *w = NULL;
                char shown[32];

                /* A newline in a test's name would end its TAP line. */
                snprintf(shown, sizeof shown, "%s", bad[i]);
                for (char *c = shown; *c; c++)
                        if (*c == '\n')
                                *c = ' ';
                tap_ok(json_parse(bad[i], strlen(bad[i]), &w) == -EINVAL && !w, "json_parse refuses %s", shown);
        }
        memset(deep, '[', sizeof deep);
        tap_ok(json_parse(deep, sizeof deep, &v) == -EINVAL, "nesting deeper than %d is refused", JSON_PARSE_MAX_DEPTH);
        tap_ok(json_parse(doc, strlen(doc), &v) == 0, "a document of every kind of value parses");
        tap_ok(json_get_int(json_get(v, "a"), 0, 10, &n) == 0 && n == 7, "json_get finds the last member of a name");
        TAP_EQ_STR(json_get(v, "s")->string, "\xc3\xa9\xf0\x9f\x98\x80\n", "escapes decode, surrogate pairs joined");
        tap_ok(json_get_int(&v->items[0].items[1], -100, 100, &n) == 0 && n == -25, "-2.5e1 is the whole number -25");
        tap_ok(json_get_int(json_get(v, "s"), -100, 100, &n) < 0, "a string is not a number");
        f = open_memstream(&out, &size);
        if (f) {
                struct json j;

                json_init(&j, f);
                json_value_write(&j, v);
                fclose(f);
        }
        TAP_EQ_STR(out, "{\"a\": [1, -25, true, false, null], \"s\": \"\xc3\xa9\xf0\x9f\x98\x80\\n\", \"a\": 7}",
                   "a parsed value is written back as JSON");
        json_value_free(v);
}

int main(void) {
        test_strings();
        test_long_run();
        test_document();
        test_mem();
        test_parse();
        return tap_done();
}
