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
/* A value that is already JSON (another botdesk's object), written as it is. */
void json_raw(struct json *j, const char *text);
