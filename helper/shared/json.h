/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

/*
 * A streaming JSON writer for the CLI's --json output: one object or array on
 * one line, keys in the order written, strings escaped per RFC 8259 (control
 * characters as \u00XX, invalid UTF-8 bytes as U+FFFD).
 */

#define JSON_MAX_DEPTH 16

struct json {
        FILE *f;
        unsigned depth;
        bool first[JSON_MAX_DEPTH];
        bool after_key;
};

void json_init(struct json *j, FILE *f);
/* Whether a JSON text was begun on stdout in this process: a command that failed with --json prints its
 * error object only when it gave no other answer there (cli/main.c). */
bool json_stdout_used(void);
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s); /* NULL writes null */
void json_int(struct json *j, long long v);
void json_double(struct json *j, double v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* key + value shorthands */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_int(struct json *j, const char *key, long long v);
void json_kv_bool(struct json *j, const char *key, bool v);
void json_kv_null(struct json *j, const char *key);
/* The value, or null when it is not present: every key always appears. */
void json_kv_opt_int(struct json *j, const char *key, long long v, bool present);
void json_kv_opt_double(struct json *j, const char *key, double v, bool present);
/* A size as the CLI writes every one: "key": [w, h]. */
void json_kv_size(struct json *j, const char *key, long long w, long long h);
/* A value that is already JSON (another botdesk's object), written as it is. */
void json_raw(struct json *j, const char *text);

/*
 * A JSON text built in memory: json_mem_open, then write through m->j;
 * json_mem_close hands the text out (the caller frees it). Both return 0
 * or -ENOMEM; after a failed close nothing is left to free.
 */
struct json_mem {
        struct json j;
        FILE *f;
        char *text;
        size_t size;
};
int json_mem_open(struct json_mem *m);
int json_mem_close(struct json_mem *m, char **ret);

/*
 * The reader (json-parse.c): one JSON text (RFC 8259) into a tree, for
 * messages that arrive as JSON (botdesk mcp, botdesk act). Strict: no
 * trailing commas, comments or bare words; strings must be valid UTF-8,
 * \u escapes are decoded (surrogate pairs joined, lone surrogates refused),
 * U+0000 refused (strings stay C strings); nesting at most
 * JSON_PARSE_MAX_DEPTH; whitespace around the value only.
 */
#define JSON_PARSE_MAX_DEPTH 64

enum json_type {
        JSON_NULL,
        JSON_FALSE,
        JSON_TRUE,
        JSON_NUMBER,
        JSON_STRING,
        JSON_ARRAY,
        JSON_OBJECT,
};

struct json_value {
        enum json_type type;
        double number;                  /* JSON_NUMBER */
        bool integer;                   /* JSON_NUMBER written without fraction or exponent */
        char *string;                   /* JSON_STRING */
        char *key;                      /* the key of an object's member */
        struct json_value *items;       /* JSON_ARRAY, JSON_OBJECT: n items, in the order written */
        size_t n;
};

/* Parse text[0..size) into a new tree handed to the caller (json_value_free). -EINVAL (malformed), -ENOMEM. */
int json_parse(const char *text, size_t size, struct json_value **ret);
struct json_value *json_value_free(struct json_value *v);
static inline void json_value_freep(struct json_value **v) {
        json_value_free(*v);
}

/* The member key of an object (the last one of that name), or NULL (also when v is not an object). */
const struct json_value *json_get(const struct json_value *v, const char *key);
/* A whole number in [min, max] (5.0 counts, 5.5 does not): 0 or -EINVAL. */
int json_get_int(const struct json_value *v, long long min, long long max, long long *ret);
/* The string member key of object v, or NULL (v NULL, no such member, not a string). */
const char *json_member_string(const struct json_value *v, const char *key);
/* The member key of object v as a whole number in [min, max]: true and *ret, or false. */
bool json_member_int(const struct json_value *v, const char *key, long long min, long long max, long long *ret);
/* The value written back as JSON (the id of a request echoed in its response). */
void json_value_write(struct json *j, const struct json_value *v);
/* v written as JSON text: a new string, or NULL on ENOMEM. */
char *json_value_text(const struct json_value *v);
