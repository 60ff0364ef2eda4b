/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "json.h"
#include "utf8.h"
#include "util.h"

/* Whether anything began a JSON text on stdout: the CLI's answer to --json was given (json.h). */
static bool stdout_used;

void json_init(struct json *j, FILE *f) {
        *j = (struct json) { .f = f };
        j->first[0] = true;
        if (f == stdout)
                stdout_used = true;
}

bool json_stdout_used(void) {
        return stdout_used;
}

int json_mem_open(struct json_mem *m) {
        *m = (struct json_mem) {};
        m->f = open_memstream(&m->text, &m->size);
        if (!m->f)
                return -ENOMEM;
        json_init(&m->j, m->f);
        return 0;
}

int json_mem_close(struct json_mem *m, char **ret) {
        int r = fclose(m->f);

        m->f = NULL;
        if (r != 0) {
                free(m->text);
                m->text = NULL;
                return -ENOMEM;
        }
        *ret = TAKE_PTR(m->text);
        return 0;
}

static void json_separate(struct json *j) {
        if (j->after_key) {
                j->after_key = false;
                return;
        }
        if (!j->first[j->depth])
                fputs(", ", j->f);
        j->first[j->depth] = false;
}

static void json_open(struct json *j, char c) {
        json_separate(j);
        fputc(c, j->f);
        if (j->depth + 1 < JSON_MAX_DEPTH)
                j->depth++;
        j->first[j->depth] = true;
}

static void json_close(struct json *j, char c) {
        fputc(c, j->f);
        if (j->depth > 0)
                j->depth--;
}

void json_raw(struct json *j, const char *text) {
        json_separate(j);
        fputs(text, j->f);
}

void json_object_begin(struct json *j) {
        json_open(j, '{');
}
void json_object_end(struct json *j) {
        json_close(j, '}');
}
void json_array_begin(struct json *j) {
        json_open(j, '[');
}
void json_array_end(struct json *j) {
        json_close(j, ']');
}

static void json_write_string(FILE *f, const char *s) {
        const unsigned char *p = (const unsigned char *) s;

        fputc('"', f);
        while (*p) {
                size_t n = 0;

                /* Plain ASCII goes out a run at a time (a screenshot's base64
                 * is a few hundred KB of it): one fwrite, not one a byte. */
                while (p[n] >= 0x20 && p[n] < 0x7f && p[n] != '"' && p[n] != '\\')
                        n++;
                if (n > 0) {
                        fwrite(p, 1, n, f);
                        p += n;
                        continue;
                }
                switch (*p) {
                case '"':
                        fputs("\\\"", f);
                        p++;
                        continue;
                case '\\':
                        fputs("\\\\", f);
                        p++;
                        continue;
                case '\n':
                        fputs("\\n", f);
                        p++;
                        continue;
                case '\t':
                        fputs("\\t", f);
                        p++;
                        continue;
                case '\r':
                        fputs("\\r", f);
                        p++;
                        continue;
                default:
                        break;
                }
                /* DEL and C1 are legal raw in JSON, but a terminal that shows the text obeys them. */
                if (*p < 0x20 || *p == 0x7f) {
                        fprintf(f, "\\u%04x", *p);
                        p++;
                        continue;
                }
                n = utf8_decode(p, p + strnlen((const char *) p, 4), NULL);
                if (n == 0) {
                        fputs("\\ufffd", f);
                        p++;
                        continue;
                }
                if (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f) {
                        fprintf(f, "\\u%04x", p[1]);
                        p += 2;
                        continue;
                }
                fwrite(p, 1, n, f);
                p += n;
        }
        fputc('"', f);
}

void json_key(struct json *j, const char *key) {
        json_separate(j);
        json_write_string(j->f, key);
        fputs(": ", j->f);
        j->after_key = true;
}

void json_string(struct json *j, const char *s) {
        json_separate(j);
        if (s)
                json_write_string(j->f, s);
        else
                fputs("null", j->f);
}

void json_int(struct json *j, long long v) {
        json_separate(j);
        fprintf(j->f, "%lld", v);
}

void json_double(struct json *j, double v) {
        json_separate(j);
        fprintf(j->f, "%.1f", v);
}

void json_bool(struct json *j, bool v) {
        json_separate(j);
        fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j) {
        json_separate(j);
        fputs("null", j->f);
}

void json_kv_string(struct json *j, const char *key, const char *s) {
        json_key(j, key);
        json_string(j, s);
}

void json_kv_int(struct json *j, const char *key, long long v) {
        json_key(j, key);
        json_int(j, v);
}

void json_kv_size(struct json *j, const char *key, long long w, long long h) {
        json_key(j, key);
        json_array_begin(j);
        json_int(j, w);
        json_int(j, h);
        json_array_end(j);
}

void json_kv_bool(struct json *j, const char *key, bool v) {
        json_key(j, key);
        json_bool(j, v);
}

void json_kv_null(struct json *j, const char *key) {
        json_key(j, key);
        json_null(j);
}

void json_kv_opt_int(struct json *j, const char *key, long long v, bool present) {
        if (present)
                json_kv_int(j, key, v);
        else
                json_kv_null(j, key);
}

void json_kv_opt_double(struct json *j, const char *key, double v, bool present) {
        json_key(j, key);
        if (present)
                json_double(j, v);
        else
                json_null(j);
}
