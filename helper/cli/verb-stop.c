/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* botdesk stop PROFILE [--force]: returns when nothing of the desktop runs. */
#include <systemd/sd-bus.h>

#include "cli.h"
#include "config.h"
#include "launch.h"
#include "lease.h"
#include "log.h"
#include "profile.h"
#include "unit.h"
#include "util.h"
#include "verbs.h"

int verb_stop(const struct cli_args *a) {
        _cleanup_(config_done) struct bd_config c = {};
        const char *profile = a->operand;
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, lock = -EBADF;
        sd_bus *bus = NULL;
        int r;

        r = launch_open_profile(profile, &c, &p, &dirfd, &lock);
        if (r != EXIT_OK)
                return r;
        if (a->remove) {
                /* A placed profile's stop never reaches here: cli-remote.c removes its container. */
                log_error("--remove removes the container of placement = podman or docker; desktop %s runs on this "
                          "host.", profile);
                return EXIT_USAGE;
        }
        if (!a->force && human_has_control(dirfd, "stop"))
                return EXIT_REFUSED;
        if (a->force) {
                /* A stopped desktop keeps no human in control: the next start and idle stop work again. */
                r = lease_end_at(dirfd, "ended by botdesk stop --force", NULL);
                if (r < 0)
                        log_warning_errno(r, "Cannot end the human's control lease of %s (%m); the next start may be refused.",
                                          profile);
                else if (r > 0 && !a->quiet)
                        fprintf(stderr, "%s: the human's control lease ended (stop --force).\n", profile);
        }
        if (!launch_standalone_forced())
                (void) unit_bus_open(&bus);
        r = desktop_stop(&p, dirfd, 30, bus, profile);
        sd_bus_flush_close_unref(bus);
        if (r < 0) {
                log_error_errno(r, "Cannot stop %s completely: %m; its processes may still run.", profile);
                return EXIT_FAILED;
        }
        if (!a->quiet)
                printf("%s: %s\n", profile, r == 1 ? "not running" : "stopped");
        return EXIT_OK;
}
