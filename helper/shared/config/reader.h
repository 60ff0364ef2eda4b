/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/*
 * The INI syntax of botdesk.ini: libinih's, read through a reader that
 * counts lines and refuses what inih would bend. What the names and values
 * mean is the caller's. Every callback gets the line number; a negative
 * return (-ENOMEM) stops the reading, which returns it.
 */
struct config_reader_ops {
        /* A "[name]" header; name is what stands between the brackets, as written. */
        int (*section)(void *userdata, unsigned line, const char *name);
        /* A header that cannot be read: the entries below it belong to a
         * section nobody can name (the error comes through ->error). */
        int (*bad_section)(void *userdata, unsigned line);
        /* "key = value" (or "key: value"), both trimmed, an inline comment cut off. */
        int (*entry)(void *userdata, unsigned line, const char *key, const char *value);
        /* A line that breaks the syntax; message says how. */
        int (*error)(void *userdata, unsigned line, const char *message);
};

int config_read(const char *text, size_t size, const struct config_reader_ops *ops, void *userdata);
