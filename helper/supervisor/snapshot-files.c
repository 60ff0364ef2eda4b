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
        r = mkdir(to, 0700) < 0 ? negative_errno() : 0;
        if (r >= 0)
                r = copy_dirs(from, to, snapshot_state_dirs);
        if (r >= 0 && runtime)
                r = copy_dirs(runtime, to, snapshot_runtime_dirs);
        if (r >= 0 && runtime)
                r = copy_dirs(runtime, to, snapshot_runtime_files);
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
