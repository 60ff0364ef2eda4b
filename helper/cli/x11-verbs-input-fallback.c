/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A build without XTEST or xkbcommon: no input verbs (x11-verbs.h). */
#include <stddef.h>

#include "x11-verbs.h"

x11_verb_fn x11_input_verb(const char *name) {
        return NULL;
}
