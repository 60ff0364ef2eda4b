/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal-trim.h"
#include "json.h"
#include "util.h"

size_t journal_trim_utf8(const char *s, size_t max) {
        size_t n = strlen(s);

        if (n <= max)
                return n;
        /* Back over continuation bytes (10xxxxxx) to the start of the sequence cut. */
        n = max;
        while (n > 0 && ((unsigned char) s[n] & 0xc0) == 0x80)
                n--;
        return n;
}

/* Cut every string of v (keys included) past JOURNAL_FIELD_MAX, in place. */
static bool trim_value(struct json_value *v) {
        bool cut = false;

        if (v->key && strlen(v->key) > JOURNAL_FIELD_MAX) {
                v->key[journal_trim_utf8(v->key, JOURNAL_FIELD_MAX)] = 0;
                cut = true;
        }
        if (v->type == JSON_STRING && strlen(v->string) > JOURNAL_FIELD_MAX) {
                v->string[journal_trim_utf8(v->string, JOURNAL_FIELD_MAX)] = 0;
                cut = true;
        }
        if (v->type == JSON_ARRAY || v->type == JSON_OBJECT)
                for (size_t i = 0; i < v->n; i++)
                        cut |= trim_value(&v->items[i]);
        return cut;
}

int journal_trim_args(const char *args_json, char **ret, bool *ret_truncated) {
        struct json_value *v = NULL;
        struct json_mem m;
        size_t size = strlen(args_json);
        char *text = NULL;
        int r;

        *ret = NULL;
        if (size <= JOURNAL_FIELD_MAX)
                return 0;
        *ret_truncated = true;
        /* An object's strings cut one by one; anything else, or still too big, as its size alone. */
        if (json_parse(args_json, size, &v) >= 0 && v->type == JSON_OBJECT) {
                bool cut = trim_value(v);

                r = json_mem_open(&m);
                if (r < 0) {
                        json_value_free(v);
                        return r;
                }
                json_value_write(&m.j, v);
                json_value_free(v);
                r = json_mem_close(&m, &text);
                if (r < 0)
                        return r;
                if (strlen(text) <= JOURNAL_ARGS_MAX) {
                        if (!cut) {
                                *ret_truncated = false;
                                free(text);
                                return 0;
                        }
                        *ret = text;
                        return 0;
                }
                free(text);
        } else
                json_value_free(v);
        *ret = strdup_printf("{\"bytes\": %zu}", size);
        return *ret ? 0 : -ENOMEM;
}
