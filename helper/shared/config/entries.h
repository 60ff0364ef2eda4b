/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdarg.h>

#include "config.h"
#include "util.h"
#include "values.h"

/* One valid "key = value" line of one file. */
struct config_entry {
        enum config_key key;
        unsigned line;
        const char *file;  /* the config_file's name */
        char *profile;     /* NULL: a global section */
        struct config_value v;
};

struct config_file {
        char *name;
        struct config_entry *entries;
        size_t n_entries, n_allocated;
};

/* The valid entries of every file one load read, files in the order of
 * application: what every profile's values are built from. */
struct config_set {
        struct config_file *files;
        size_t n_files, n_allocated;
};

void config_file_done(struct config_file *f);

/* load.c: judges one file's text, appending every error to errs and every
 * valid entry to out (whose name is already set). Returns 0 or -ENOMEM;
 * errors in the text are not failures here. */
int config_parse_text(const char *text, size_t size, bool user_file, struct config_file *out,
                      struct config_errors *errs);
/* s with control characters as \xNN, for terminals and the journal: a new
 * string, or NULL on ENOMEM. */
char *config_escape(const char *s);

/* sources.c: every file of src read into s, in the order of application,
 * every error recorded in errs. 0, -ENOMEM, or the first failure to read a
 * file that exists (-errno; the other files are read all the same). */
int config_sources_read(const struct config_sources *src, struct config_set *s, struct config_errors *errs);

/* Whether e takes part in the globals (globals) or in profile's sections. */
bool config_entry_applies(const struct config_entry *e, bool globals, const char *profile);

/* The checks that need the effective pair of two keys, for the globals and
 * every profile (profiles.c): appended to errs; 0 or -ENOMEM. */
int config_set_check(const struct config_set *s, struct config_errors *errs);

/* Appends "FILE:LINE: message" to e (line 0: the file as a whole); 0 or -ENOMEM. */
int config_errors_addv(struct config_errors *e, const char *file, unsigned line, const char *fmt, va_list ap)
        _printf_(4, 0);
int config_errors_add(struct config_errors *e, const char *file, unsigned line, const char *fmt, ...)
        _printf_(4, 5);
