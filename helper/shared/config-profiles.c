/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <ini.h>

#include "config-profiles.h"
#include "profile.h"
#include "util.h"

struct names {
        char **l;
        int r;
};

static int on_entry(void *userdata, const char *section, const char *key, const char *value) {
        struct names *n = userdata;
        const char *name = startswith(section, "profile.");

        if (!name || !profile_name_valid(name) || n->r < 0)
                return 1;
        for (char **i = n->l; i && *i; i++)
                if (streq(*i, name))
                        return 1;
        n->r = strv_push(&n->l, strdup(name));
        return 1; /* keep going: errors are config_load's to report */
}

int config_profile_names(const char *path, char ***ret) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_fclose_ FILE *f = NULL;
        struct names n = {};

        *ret = NULL;
        /* O_NONBLOCK: a FIFO at the path must not hang the caller (a generator at boot). */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return errno == ENOENT ? 0 : negative_errno();
        f = fdopen(fd, "re");
        if (!f)
                return negative_errno();
        TAKE_FD(fd);

        (void) ini_parse_file(f, on_entry, &n);
        if (n.r < 0) {
                strv_free(n.l);
                return n.r;
        }
        *ret = n.l;
        return 0;
}
