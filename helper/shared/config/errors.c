/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entries.h"

void config_errors_done(struct config_errors *e) {
        if (!e)
                return;
        for (size_t i = 0; i < e->n; i++) {
                free(e->items[i].file);
                free(e->items[i].message);
        }
        free(e->items);
        *e = (struct config_errors) {};
}

/* The struct has no capacity field: grow to the next power of two whenever
 * n reaches one, so that a file full of errors stays linear. */
static int errors_grow(struct config_errors *e) {
        struct config_error *items;
        size_t cap;

        if (e->n == 0)
                cap = 8;
        else if (e->n >= 8 && (e->n & (e->n - 1)) == 0)
                cap = e->n * 2;
        else
                return 0;
        items = reallocarray(e->items, cap, sizeof(*items));
        if (!items)
                return -ENOMEM;
        e->items = items;
        return 0;
}

int config_errors_addv(struct config_errors *e, const char *file, unsigned line, const char *fmt, va_list ap) {
        _cleanup_free_ char *message = NULL, *f = NULL;

        if (vasprintf(&message, fmt, ap) < 0) {
                message = NULL;
                return -ENOMEM;
        }
        f = strdup(file);
        if (!f || errors_grow(e) < 0)
                return -ENOMEM;
        e->items[e->n++] = (struct config_error) {
                .file = TAKE_PTR(f),
                .line = line,
                .message = TAKE_PTR(message),
        };
        return 0;
}

int config_errors_add(struct config_errors *e, const char *file, unsigned line, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = config_errors_addv(e, file, line, fmt, ap);
        va_end(ap);
        return r;
}

char *config_error_text(const struct config_error *x) {
        if (x->line > 0)
                return strdup_printf("%s:%u: %s", x->file, x->line, x->message);
        return strdup_printf("%s: %s", x->file, x->message);
}

void config_errors_print(const struct config_errors *e, FILE *f) {
        for (size_t i = 0; i < e->n; i++) {
                _cleanup_free_ char *t = config_error_text(&e->items[i]);

                fprintf(f, "%s\n", t ?: e->items[i].message);
        }
}
