/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "envfile.h"
#include "identity.h"
#include "log.h"
#include "profile.h"
#include "running.h"
#include "util.h"

int running_desktop_helper(const char *profile, int dirfd, struct helper_record *ret_rec) {
        int r;

        r = helper_record_read_at(dirfd, ret_rec);
        if (r < 0 || helper_alive(dirfd, ret_rec) <= 0) {
                log_error("Desktop %s is not running; start it with: botdesk start %s", profile, profile);
                return EXIT_NOT_RUNNING;
        }
        return EXIT_OK;
}

int running_desktop_env(const char *profile, int dirfd, const struct bd_paths *p, char ***ret_env) {
        int r;

        r = envfile_read_at(dirfd, "env", ret_env);
        if (r == -ENOENT) {
                log_error("Desktop %s is still starting; wait for `botdesk start %s` to return.", profile, profile);
                return EXIT_NOT_RUNNING;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot read %s: %m", p->env_file);
                return EXIT_FAILED;
        }
        return EXIT_OK;
}

int running_desktop_published(const char *profile, struct bd_paths *p, int *ret_fd, char ***ret_env,
                              struct helper_record *ret_rec) {
        _cleanup_close_ int dirfd = -EBADF;
        int r;

        if (cli_open_profile(profile, p, &dirfd) < 0)
                return EXIT_FAILED;
        r = running_desktop_helper(profile, dirfd, ret_rec);
        if (r != EXIT_OK)
                return r;
        r = running_desktop_env(profile, dirfd, p, ret_env);
        if (r != EXIT_OK)
                return r;
        *ret_fd = TAKE_FD(dirfd);
        return EXIT_OK;
}
