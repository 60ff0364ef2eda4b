/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Text from a desktop (window titles, accessibility names, journal
 * messages, a far side's status) printed to a terminal: a terminal obeys
 * the control characters in what it is shown, and ESC ] 52 writes the
 * clipboard, ESC ] 8 forges links, others move the cursor over what was
 * printed before. What we print from there is escaped on a terminal:
 * C0 controls, DEL, C1 controls (U+0080..U+009F in UTF-8) and every byte
 * that is not UTF-8 (a terminal in another charset takes 0x80..0x9F for
 * C1) become \xNN (\u00NN for a C1 in UTF-8). Output to a pipe or a file
 * is left as it is; --json output is escaped by json.c.
 */

#include <stdbool.h>
#include <stdio.h>

/*
 * A new string: n bytes of s escaped as above. keep_lines: \n and \t pass
 * (a block of lines); else they are escaped too (one field of a line).
 * NULL on -ENOMEM.
 */
char *term_escape(const char *s, size_t n, bool keep_lines);

/* Whether f writes to a terminal. */
bool term_is_tty(FILE *f);

/*
 * One field of a line for f: s itself when f is no terminal (or s is
 * NULL), else its escaped copy, left in *buf for the caller to free.
 */
const char *term_field(FILE *f, const char *s, char **buf);

/* Write n bytes of lines to f, escaped (lines kept) when f is a terminal. */
int term_write(FILE *f, const char *s, size_t n);
