/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/*
 * A library loaded only by the processes that need it (GnuTLS for a remote
 * profile's TLS, libpng for a PNG), as systemd loads its optional ones:
 * each symbol's address goes where its row says.
 */
struct dlopen_symbol {
        const char *name;
        void **ptr;
};

/* The row of symbol NAME, kept in the pointer field FIELD (of its own type). */
#define DLOPEN_SYMBOL(name, field) { #name, (void **) &(field) }

/* dlopen(soname) and every symbol of syms looked up, all or nothing: 0, or -ELIBACC with every ptr NULL. Loaded
 * for the process's life: never closed once it served. */
int dlopen_symbols(const char *soname, const struct dlopen_symbol *syms, size_t n);
