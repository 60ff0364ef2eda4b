/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "copy-tree.h"
#include "snapshot-files.h"
#include "snapshot.h"
#include "util.h"

static int copy_all(const char *from, const char *to) {
        const char *list = SNAPSHOT_FILES_LIST;

        if (mkdir(to, 0700) < 0)
                return negative_errno();
        for (size_t n; *list; list += n + strspn(list + n, " ")) {
                _cleanup_free_ char *src = NULL, *dst = NULL;
                int r;

                n = strcspn(list, " ");
                src = strdup_printf("%s/%.*s", from, (int) n, list);
                dst = strdup_printf("%s/%.*s", to, (int) n, list);
                if (!src || !dst)
                        return -ENOMEM;
                if (access(src, F_OK) < 0)
                        continue;
                r = copy_tree(src, dst);
                if (r < 0) {
                        fprintf(stderr, "botdesk-helper: cannot copy %s to %s: %s\n", src, dst, strerror(-r));
                        return r;
                }
        }
        return 0;
}

/* The tree's own runtime dir (namespace.h): files its programs keep open there (dconf's map) go too. */
static int copy_runtime(const char *runtime, const char *to) {
        _cleanup_free_ char *src = strdup_printf("%s/" SNAPSHOT_RUNTIME_DIR, runtime);
        _cleanup_free_ char *dst = strdup_printf("%s/" SNAPSHOT_RUNTIME_DIR, to);

        if (!src || !dst)
                return -ENOMEM;
        if (access(src, F_OK) < 0)
                return 0;
        return copy_tree(src, dst);
}

bool snapshot_files_script(int argc, int *ret_status) {
        const char *action = getenv("CRTOOLS_SCRIPT_ACTION");
        const char *from = getenv("BOTDESK_FILES_FROM"), *to = getenv("BOTDESK_FILES_TO");
        const char *runtime = getenv("BOTDESK_FILES_RUNTIME");
        int r;

        if (argc != 1 || !action)
                return false;
        if (!streq(action, "post-dump")) {
                *ret_status = 0;
                return true;
        }
        if (!from || !to || from[0] != '/' || to[0] != '/') {
                fprintf(stderr, "botdesk-helper: run as CRIU's action script without BOTDESK_FILES_FROM and "
                                "BOTDESK_FILES_TO\n");
                *ret_status = 1;
                return true;
        }
        r = copy_all(from, to);
        if (r >= 0 && runtime)
                r = copy_runtime(runtime, to);
        if (r < 0)
                fprintf(stderr, "botdesk-helper: the snapshot's files in %s: %s\n", to, strerror(-r));
        *ret_status = r < 0 ? 1 : 0;
        return true;
}

int snapshot_files_script_path(char **ret) {
        char path[4096];
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);

        if (n < 0)
                return negative_errno();
        if ((size_t) n >= sizeof path - 1)
                return -ENAMETOOLONG;
        path[n] = 0;
        *ret = strdup(path);
        return *ret ? 0 : -ENOMEM;
}
