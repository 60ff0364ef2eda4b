/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * An argv from one line of text, with the quoting a shell user expects and
 * none of a shell's expansions: words separated by spaces or tabs; '...'
 * keeps everything literally; "..." keeps everything but \" and \\; outside
 * quotes a backslash keeps the next character. No variables, globs, command
 * substitution or operators: the words go to execve() as they are.
 *
 * Returns 0 with a NULL-terminated list of at least one word (owned by the
 * caller), -ENODATA for a line without words, -EBADMSG for an unterminated
 * quote, -EINVAL for a backslash at the end, -ENOMEM.
 */
int argv_split(const char *line, char ***ret);

/* The words quoted for a shell and separated by spaces, for messages (and
 * for prefixes such as ssh that hand their command to a remote shell). */
char *argv_join_quoted(char *const *argv);

/* A command line's words without each word of drop (NULL-terminated) before a "--", as a new list. */
int argv_without(char *const *args, char *const *drop, char ***ret);
