/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/stat.h>

#include "cli.h"
#include "lease.h"
#include "log.h"
#include "profile.h"
#include "util.h"

void activity_stamp(int runtime_fd) {
        int fd = openat(runtime_fd, "activity", O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);

        if (fd >= 0) {
                (void) futimens(fd, NULL);
                close(fd);
        }
}

bool human_has_control(int runtime_fd, const char *what) {
        struct lease l;

        (void) lease_read_at(runtime_fd, &l);
        if (l.holder != LEASE_HUMAN)
                return false;
        log_error("A human has control of this screen%s%s; %s is refused. Tell the user what you need, "
                  "and wait until they hand control back (botdesk lease PROFILE release --viewer ID).",
                  l.since[0] ? " since " : "", l.since, what);
        return true;
}

int cli_check_profile(const char *profile) {
        if (!profile) {
                log_error("Missing PROFILE argument.");
                return -EINVAL;
        }
        if (!profile_name_valid(profile)) {
                log_error("Invalid profile name \"%s\": use 1-32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit.",
                          profile);
                return -EINVAL;
        }
        return 0;
}

/* The profile's paths with its runtime dir created and verified, opened. */
int cli_open_profile(const char *profile, struct bd_paths *p, int *ret_fd) {
        int r, fd;

        r = paths_for_profile(profile, p);
        if (r == -ENAMETOOLONG) {
                log_error("The RFB socket path of profile %s would be longer than a Unix socket allows (%s); set a shorter XDG_RUNTIME_DIR.",
                          profile, p->runtime ?: "?");
                return -EINVAL;
        }
        if (r < 0)
                return log_error_errno(r, "Cannot compute the paths of profile %s: %m", profile);
        r = paths_ensure(p);
        if (r < 0) {
                /* Name the directory that is wrong: often the base (someone
                 * else's /tmp/botdesk-UID), not the profile's below it. */
                const char *bad = dir_is_private(p->runtime_base, getuid()) < 0 ? p->runtime_base : p->runtime;
                return log_error_errno(r, "%s is not a private directory of uid %u (%m); remove it or fix its owner and mode.",
                                       bad, (unsigned) getuid());
        }
        /* Checked again on the opened fds: what is read below is what was verified. */
        fd = paths_open_runtime(p, NULL);
        if (fd < 0)
                return log_error_errno(fd, "Cannot open %s as a private directory of uid %u: %m", p->runtime,
                                       (unsigned) getuid());
        *ret_fd = fd;
        return 0;
}
