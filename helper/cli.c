/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/stat.h>

#include "cli.h"
#include "lease.h"
#include "log.h"
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
                  "and wait until they hand control back (botdesk lease PROFILE release).",
                  l.since[0] ? " since " : "", l.since, what);
        return true;
}
