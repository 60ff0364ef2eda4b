/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dlfcn.h>
#include <errno.h>

#include "dlopen-util.h"

int dlopen_symbols(const char *soname, const struct dlopen_symbol *syms, size_t n) {
        void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

        if (!h)
                return -ELIBACC;
        for (size_t i = 0; i < n; i++) {
                *syms[i].ptr = dlsym(h, syms[i].name);
                if (*syms[i].ptr)
                        continue;
                for (size_t k = 0; k <= i; k++)
                        *syms[k].ptr = NULL;
                dlclose(h);
                return -ELIBACC;
        }
        return 0;
}
