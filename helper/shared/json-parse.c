/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The JSON reader (json.h): a recursive descent over one text, bounded in
 * depth so that hostile input (a line of "[[[[...") cannot exhaust the
 * stack, building a tree the caller frees in one call.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "utf8.h"
#include "util.h"

struct parser {
        const char *p, *end;
        unsigned depth;
};

static void skip_ws(struct parser *ps) {
        while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
                ps->p++;
}

static void value_clear(struct json_value *v) {
        free(v->string);
        free(v->key);
        for (size_t i = 0; i < v->n; i++)
                value_clear(&v->items[i]);
        free(v->items);
        *v = (struct json_value) {};
}

struct json_value *json_value_free(struct json_value *v) {
        if (v) {
                value_clear(v);
                free(v);
        }
        return NULL;
}

static bool literal(struct parser *ps, const char *word) {
        size_t n = strlen(word);

        if ((size_t) (ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
                return false;
        ps->p += n;
        return true;
}

static int hex4(struct parser *ps, unsigned *ret) {
        unsigned v = 0;

        if (ps->end - ps->p < 4)
                return -EINVAL;
        for (int i = 0; i < 4; i++) {
                char c = *ps->p++;

                v <<= 4;
                if (c >= '0' && c <= '9')
                        v |= (unsigned) (c - '0');
                else if (c >= 'a' && c <= 'f')
                        v |= (unsigned) (c - 'a' + 10);
                else if (c >= 'A' && c <= 'F')
                        v |= (unsigned) (c - 'A' + 10);
                else
                        return -EINVAL;
        }
        *ret = v;
        return 0;
}

static size_t utf8_put(char *out, unsigned cp) {
        if (cp < 0x80) {
                out[0] = (char) cp;
                return 1;
        }
        if (cp < 0x800) {
                out[0] = (char) (0xc0 | (cp >> 6));
                out[1] = (char) (0x80 | (cp & 0x3f));
                return 2;
        }
        if (cp < 0x10000) {
                out[0] = (char) (0xe0 | (cp >> 12));
                out[1] = (char) (0x80 | ((cp >> 6) & 0x3f));
                out[2] = (char) (0x80 | (cp & 0x3f));
                return 3;
        }
        out[0] = (char) (0xf0 | (cp >> 18));
        out[1] = (char) (0x80 | ((cp >> 12) & 0x3f));
        out[2] = (char) (0x80 | ((cp >> 6) & 0x3f));
        out[3] = (char) (0x80 | (cp & 0x3f));
        return 4;
}

/* At the opening quote: the decoded string, new, in *ret. */
static int parse_string(struct parser *ps, char **ret) {
        const char *start = ++ps->p;
        size_t cap = 0;
        char *out, *o;

        /* Escapes only shrink: the raw length bounds the decoded one. */
        while (ps->p < ps->end && *ps->p != '"') {
                if (*ps->p == '\\')
                        ps->p++;
                ps->p++;
        }
        if (ps->p >= ps->end)
                return -EINVAL;
        cap = (size_t) (ps->p - start);
        out = o = malloc(cap + 1);
        if (!out)
                return -ENOMEM;
        for (ps->p = start; *ps->p != '"';) {
                unsigned char c = (unsigned char) *ps->p;
                unsigned cp, lo;
                size_t n;

                if (c < 0x20)
                        goto bad;
                if (c != '\\') {
                        n = utf8_decode((const uint8_t *) ps->p, (const uint8_t *) ps->end, NULL);
                        if (n == 0)
                                goto bad;
                        memcpy(o, ps->p, n);
                        o += n;
                        ps->p += n;
                        continue;
                }
                ps->p++;
                switch (*ps->p++) {
                case '"': *o++ = '"'; break;
                case '\\': *o++ = '\\'; break;
                case '/': *o++ = '/'; break;
                case 'b': *o++ = '\b'; break;
                case 'f': *o++ = '\f'; break;
                case 'n': *o++ = '\n'; break;
                case 'r': *o++ = '\r'; break;
                case 't': *o++ = '\t'; break;
                case 'u':
                        if (hex4(ps, &cp) < 0)
                                goto bad;
                        if (cp >= 0xd800 && cp <= 0xdbff) {
                                /* A high surrogate is half a character: its low half must follow. */
                                if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u')
                                        goto bad;
                                ps->p += 2;
                                if (hex4(ps, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
                                        goto bad;
                                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        } else if (cp >= 0xdc00 && cp <= 0xdfff)
                                goto bad;
                        /* Strings are C strings here: an embedded NUL would cut them silently. */
                        if (cp == 0)
                                goto bad;
                        o += utf8_put(o, cp);
                        break;
                default:
                        goto bad;
                }
        }
        ps->p++;
        *o = 0;
        *ret = out;
        return 0;
bad:
        free(out);
        return -EINVAL;
}

static int parse_number(struct parser *ps, struct json_value *v) {
        const char *s = ps->p;
        char buf[64];
        char *end;
        size_t n;

        v->integer = true;
        if (ps->p < ps->end && *ps->p == '-')
                ps->p++;
        if (ps->p >= ps->end)
                return -EINVAL;
        if (*ps->p == '0')
                ps->p++;
        else if (*ps->p >= '1' && *ps->p <= '9')
                while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
                        ps->p++;
        else
                return -EINVAL;
        if (ps->p < ps->end && *ps->p == '.') {
                v->integer = false;
                ps->p++;
                if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
                        return -EINVAL;
                while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
                        ps->p++;
        }
        if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
                v->integer = false;
                ps->p++;
                if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
                        ps->p++;
                if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
                        return -EINVAL;
                while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
                        ps->p++;
        }
        n = (size_t) (ps->p - s);
        /* The grammar is checked above; strtod only converts (its own copy: the text is not NUL-terminated). */
        if (n >= sizeof buf)
                return -EINVAL;
        memcpy(buf, s, n);
        buf[n] = 0;
        errno = 0;
        v->number = strtod(buf, &end);
        if (end != buf + n || !isfinite(v->number))
                return -EINVAL;
        v->type = JSON_NUMBER;
        return 0;
}

static int parse_value(struct parser *ps, struct json_value *v);

static int push_item(struct json_value *v, size_t *cap, struct json_value **ret) {
        if (v->n == *cap) {
                size_t c = *cap ? *cap * 2 : 4;
                struct json_value *items = realloc(v->items, c * sizeof *items);

                if (!items)
                        return -ENOMEM;
                v->items = items;
                *cap = c;
        }
        *ret = &v->items[v->n];
        **ret = (struct json_value) {};
        return 0;
}

static int parse_container(struct parser *ps, struct json_value *v, bool object) {
        char close = object ? '}' : ']';
        size_t cap = 0;
        int r;

        if (++ps->depth > JSON_PARSE_MAX_DEPTH)
                return -EINVAL;
        v->type = object ? JSON_OBJECT : JSON_ARRAY;
        ps->p++;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == close) {
                ps->p++;
                ps->depth--;
                return 0;
        }
        for (;;) {
                struct json_value *item;
                _cleanup_free_ char *key = NULL;

                skip_ws(ps);
                if (object) {
                        if (ps->p >= ps->end || *ps->p != '"')
                                return -EINVAL;
                        r = parse_string(ps, &key);
                        if (r < 0)
                                return r;
                        skip_ws(ps);
                        if (ps->p >= ps->end || *ps->p != ':')
                                return -EINVAL;
                        ps->p++;
                }
                r = push_item(v, &cap, &item);
                if (r < 0)
                        return r;
                r = parse_value(ps, item);
                v->n++;                 /* counted even when half built: value_clear frees it */
                if (r < 0)
                        return r;
                item->key = TAKE_PTR(key);
                skip_ws(ps);
                if (ps->p >= ps->end)
                        return -EINVAL;
                if (*ps->p == ',') {
                        ps->p++;
                        continue;
                }
                if (*ps->p != close)
                        return -EINVAL;
                ps->p++;
                ps->depth--;
                return 0;
        }
}

static int parse_value(struct parser *ps, struct json_value *v) {
        skip_ws(ps);
        if (ps->p >= ps->end)
                return -EINVAL;
        switch (*ps->p) {
        case '{':
                return parse_container(ps, v, true);
        case '[':
                return parse_container(ps, v, false);
        case '"':
                v->type = JSON_STRING;
                return parse_string(ps, &v->string);
        case 't':
                v->type = JSON_TRUE;
                return literal(ps, "true") ? 0 : -EINVAL;
        case 'f':
                v->type = JSON_FALSE;
                return literal(ps, "false") ? 0 : -EINVAL;
        case 'n':
                v->type = JSON_NULL;
                return literal(ps, "null") ? 0 : -EINVAL;
        default:
                return parse_number(ps, v);
        }
}

int json_parse(const char *text, size_t size, struct json_value **ret) {
        struct parser ps = { .p = text, .end = text + size };
        struct json_value *v = calloc(1, sizeof *v);
        int r;

        if (!v)
                return -ENOMEM;
        r = parse_value(&ps, v);
        if (r >= 0) {
                skip_ws(&ps);
                if (ps.p != ps.end)
                        r = -EINVAL;
        }
        if (r < 0) {
                json_value_free(v);
                return r;
        }
        *ret = v;
        return 0;
}

const struct json_value *json_get(const struct json_value *v, const char *key) {
        const struct json_value *found = NULL;

        if (!v || v->type != JSON_OBJECT)
                return NULL;
        for (size_t i = 0; i < v->n; i++)
                if (streq(v->items[i].key, key))
                        found = &v->items[i];
        return found;
}

int json_get_int(const struct json_value *v, long long min, long long max, long long *ret) {
        /* Range first: the cast of a double beyond long long is undefined. */
        if (!v || v->type != JSON_NUMBER || v->number < (double) min || v->number > (double) max ||
            v->number != (double) (long long) v->number)
                return -EINVAL;
        *ret = (long long) v->number;
        return 0;
}

void json_value_write(struct json *j, const struct json_value *v) {
        char buf[64];

        switch (v->type) {
        case JSON_NULL:
                json_null(j);
                break;
        case JSON_FALSE:
        case JSON_TRUE:
                json_bool(j, v->type == JSON_TRUE);
                break;
        case JSON_NUMBER:
                if (v->integer && v->number > -9007199254740992.0 && v->number < 9007199254740992.0)
                        json_int(j, (long long) v->number);
                else {
                        snprintf(buf, sizeof buf, "%.17g", v->number);
                        json_raw(j, buf);
                }
                break;
        case JSON_STRING:
                json_string(j, v->string);
                break;
        case JSON_ARRAY:
        case JSON_OBJECT:
                if (v->type == JSON_OBJECT)
                        json_object_begin(j);
                else
                        json_array_begin(j);
                for (size_t i = 0; i < v->n; i++) {
                        if (v->type == JSON_OBJECT)
                                json_key(j, v->items[i].key);
                        json_value_write(j, &v->items[i]);
                }
                if (v->type == JSON_OBJECT)
                        json_object_end(j);
                else
                        json_array_end(j);
                break;
        }
}

char *json_value_text(const struct json_value *v) {
        _cleanup_free_ char *text = NULL;
        struct json_mem m;

        if (json_mem_open(&m) < 0)
                return NULL;
        json_value_write(&m.j, v);
        if (json_mem_close(&m, &text) < 0)
                return NULL;
        return TAKE_PTR(text);
}

const char *json_member_string(const struct json_value *v, const char *key) {
        const struct json_value *m = v ? json_get(v, key) : NULL;

        return m && m->type == JSON_STRING ? m->string : NULL;
}

bool json_member_int(const struct json_value *v, const char *key, long long min, long long max, long long *ret) {
        const struct json_value *m = v ? json_get(v, key) : NULL;

        return m && json_get_int(m, min, max, ret) >= 0;
}
