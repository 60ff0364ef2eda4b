/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * The published env file: KEY=VALUE lines, no quoting, values may contain '='.
 * The reader tolerates a UTF-8 BOM, CRLF line ends, blank lines and '#'
 * comments; refuses keys that are not [A-Za-z_][A-Za-z0-9_]* and lines
 * without '='. Values cannot contain newlines.
 */

/* Parse text into a NULL-terminated strv of "KEY=VALUE". -EBADMSG on a bad line (*ret_line set). */
int envfile_parse(const char *text, size_t size, char ***ret, unsigned *ret_line);

/* Read and parse a file. */
int envfile_read(const char *path, char ***ret);
/* The same for dirfd/name, a state file (read_full_file_at's rules). */
int envfile_read_at(int dirfd, const char *name, char ***ret);

/* Serialise a strv of KEY=VALUE. -EINVAL if a value holds a newline or a key is invalid. */
int envfile_format(char *const *env, char **ret);

/* Write atomically (temp + rename, 0600) into dirfd/name. */
int envfile_write_at(int dirfd, const char *name, char *const *env);

/* Shell-quote a value for `export KEY='value'` lines. */
char *shell_quote(const char *value);

bool env_key_valid(const char *key);
