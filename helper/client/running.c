/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "published-env.h"
#include "record.h"
#include "log.h"
#include "profile.h"
#include "running.h"
#include "util.h"

int running_desktop_open(const char *profile, struct bd_paths *p, int *ret_fd) {
        _cleanup_close_ int dirfd = -EBADF;
        struct stat st;
        int r;

        r = paths_for_profile(profile, p);
        if (r == -ENAMETOOLONG) {
                log_error("The RFB socket path of profile %s would be longer than a Unix socket allows (%s); set a shorter XDG_RUNTIME_DIR.",
                          profile, p->runtime ?: "?");
                return EXIT_USAGE;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot compute the paths of profile %s: %m", profile);
                return EXIT_FAILED;
        }
        dirfd = open(p->runtime, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dirfd < 0 && errno == ENOENT) {
                log_error("Desktop %s is not running; start it with: botdesk start %s", profile, profile);
                return EXIT_NOT_RUNNING;
        }
        if (dirfd < 0) {
                log_error_errno(errno, "Cannot open %s: %m", p->runtime);
                return EXIT_FAILED;
        }
        if (fstat(dirfd, &st) < 0 || st.st_uid != getuid() || (st.st_mode & 077) != 0) {
                log_error("%s is not a private directory of uid %u; remove it or fix its owner and mode.", p->runtime,
                          (unsigned) getuid());
                return EXIT_FAILED;
        }
        *ret_fd = TAKE_FD(dirfd);
        return EXIT_OK;
}

int running_desktop_helper(const char *profile, int dirfd, struct helper_record *ret_rec) {
        int r;

        r = helper_record_read_at(dirfd, ret_rec);
        if (r < 0 || helper_alive(dirfd, ret_rec) <= 0) {
                log_error("Desktop %s is not running; start it with: botdesk start %s", profile, profile);
                return EXIT_NOT_RUNNING;
        }
        return EXIT_OK;
}

int running_desktop_live(const char *profile, struct bd_paths *p, int *ret_fd) {
        _cleanup_(helper_record_done) struct helper_record rec = {};
        int r;

        r = running_desktop_open(profile, p, ret_fd);
        if (r == EXIT_OK)
                r = running_desktop_helper(profile, *ret_fd, &rec);
        return r;
}

int running_desktop_env(const char *profile, int dirfd, const struct bd_paths *p, char ***ret_env) {
        _cleanup_free_ char *bad = NULL;
        int r;

        r = published_env_read_at(dirfd, ret_env, &bad);
        if (r == -ENOENT) {
                log_error("Desktop %s is still starting; wait for `botdesk start %s` to return.", profile, profile);
                return EXIT_NOT_RUNNING;
        }
        /* Written by the helper, but writable by the desktop's programs too: what it did not write is not used. */
        if (r == -EBADMSG) {
                log_error("%s holds %s%s, which the desktop's helper does not publish in that form: refusing to use it. "
                          "Restart the desktop: botdesk restart %s",
                          p->env_file, bad ? "the variable " : "a line that does not parse", bad ?: "", profile);
                return EXIT_FAILED;
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
