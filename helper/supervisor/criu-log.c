/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "criu-log.h"
#include "util.h"

/* "Error (" at the line's start, or after -v4's "(SS.UUUUUU) " stamp. */
static const char *error_of(const char *line, size_t len) {
        const char *e = memmem(line, len, "Error (", 7);

        if (!e || (e != line && line[0] != '('))
                return NULL;
        return e;
}

char *criu_log_cause(const char *text) {
        const char *cause = NULL, *last = NULL, *next;
        _cleanup_free_ char *line = NULL;

        for (const char *l = text; l && *l && !cause; l = next) {
                size_t len = strcspn(l, "\n");
                const char *e = error_of(l, len);

                next = l[len] ? l + len + 1 : l + len;
                if (e && !memmem(e, len - (size_t) (e - l), "rlimit:", 7))
                        cause = e;
                if (len > 0)
                        last = l;
        }
        cause = cause ?: last;
        if (!cause)
                return strdup("CRIU said nothing");
        line = strndup(cause, strcspn(cause, "\n"));
        if (!line)
                return NULL;
        if (strstr(line, "half of stream unix connection") || strstr(line, "external"))
                return strdup_printf("a connection from outside the desktop is open (a program of the host on its X "
                                     "display or its bus, say): CRIU cannot keep it (%s)", line);
        return TAKE_PTR(line);
}
