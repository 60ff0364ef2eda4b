/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sys/stat.h>

#include "find-executable.h"
#include "util.h"

static bool is_executable_file(const char *path) {
        struct stat st;

        /* access() answers for the real uid, which is who runs the child. */
        return stat(path, &st) >= 0 && S_ISREG(st.st_mode) && access(path, X_OK) >= 0;
}

static int found(const char *path, char **ret) {
        if (!ret)
                return 0;
        *ret = strdup(path);
        return *ret ? 0 : -ENOMEM;
}

int find_executable(const char *name, const char *path, char **ret) {
        if (!name || !*name)
                return -EINVAL;
        if (strchr(name, '/'))
                return is_executable_file(name) ? found(name, ret) : -ENOENT;

        path = path ?: getenv("PATH") ?: DEFAULT_PATH;
        for (const char *p = path; *p;) {
                size_t l = strcspn(p, ":");

                if (l > 0 && p[0] == '/') {
                        _cleanup_free_ char *candidate = strdup_printf("%.*s/%s", (int) l, p, name);

                        if (!candidate)
                                return -ENOMEM;
                        if (is_executable_file(candidate)) {
                                if (ret)
                                        *ret = TAKE_PTR(candidate);
                                return 0;
                        }
                }
                p += l;
                p += *p == ':';
        }
        return -ENOENT;
}
