/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk hibernate PROFILE [--timeout S] [--json]: a checkpointable
 * desktop's whole tree (its memory, its windows, what runs in them) dumped
 * into STATE/snapshot/ and then stopped; `botdesk start PROFILE` restores
 * it. The helper does the work (it must let go of its connections into the
 * tree first, supervisor/hibernate.c); this asks it over RUNTIME/
 * hibernate.sock and waits for its answer, then for nothing of the desktop
 * to run. A dump that fails leaves the desktop running, and says why.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>

#include "cli.h"
#include "config.h"
#include "json.h"
#include "launch.h"
#include "log.h"
#include "profile.h"
#include "running.h"
#include "snapshot.h"
#include "socket-util.h"
#include "unit.h"
#include "util.h"
#include "verbs.h"

/* A dump takes about a second; CRIU's own deadline in the helper is 120 s. */
#define HIBERNATE_TIMEOUT_DEFAULT 150u

static int ask(int dirfd, const char *profile, unsigned timeout, char *answer, size_t size) {
        _cleanup_close_ int fd = socket_connect_at(dirfd, HIBERNATE_SOCKET, SOCK_SEQPACKET);
        ssize_t n;
        int r;

        if (fd < 0) {
                log_error("Desktop %s does not answer on %s: it started before [session] checkpointable = yes, or "
                          "is not ready (%s).", profile, HIBERNATE_SOCKET, strerror(-fd));
                return EXIT_FAILED;
        }
        if (send(fd, HIBERNATE_REQUEST, strlen(HIBERNATE_REQUEST), MSG_NOSIGNAL) < 0)
                return log_error_errno(-errno, "Cannot ask desktop %s to hibernate: %m", profile), EXIT_FAILED;
        r = fd_wait_until(fd, POLLIN, now_usec() + (unsigned long long) timeout * 1000000ULL);
        if (r == -ETIMEDOUT) {
                log_error("Desktop %s did not finish its hibernation within %u s (--timeout).", profile, timeout);
                return EXIT_FAILED;
        }
        n = r < 0 ? r : recv(fd, answer, size - 1, 0);
        if (n <= 0) {
                log_error("Desktop %s ended without answering its hibernation%s%s; see botdesk status %s.", profile,
                          n < 0 ? ": " : "", n < 0 ? strerror(errno) : "", profile);
                return EXIT_FAILED;
        }
        answer[n] = 0;
        return EXIT_OK;
}

int verb_hibernate(const struct cli_args *a) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, lock = -EBADF;
        const char *profile = a->operand;
        unsigned long long size = 0, dump_usec = 0;
        unsigned timeout = a->timeout > 0 ? a->timeout : HIBERNATE_TIMEOUT_DEFAULT;
        char answer[HIBERNATE_ANSWER_MAX];
        sd_bus *bus = NULL;
        int r;

        r = launch_open_profile(profile, &c, &p, &dirfd, &lock);
        if (r != EXIT_OK)
                return r;
        if (!c.checkpointable) {
                log_error("Desktop %s is not checkpointable: set [session] checkpointable = yes for it and restart it.",
                          profile);
                return EXIT_REFUSED;
        }
        {
                _cleanup_(helper_record_done) struct helper_record rec = {};

                r = running_desktop_helper(profile, dirfd, &rec);
                if (r != EXIT_OK)
                        return r;
        }
        if (human_has_control(dirfd, "hibernate"))
                return EXIT_REFUSED;
        r = ask(dirfd, profile, timeout, answer, sizeof answer);
        if (r != EXIT_OK)
                return r;
        if (startswith(answer, "error ")) {
                log_error("Cannot hibernate %s: %s", profile, answer + strlen("error "));
                return EXIT_FAILED;
        }
        if (sscanf(answer, "ok %llu %llu", &size, &dump_usec) != 2) {
                log_error("Desktop %s answered its hibernation with \"%s\".", profile, answer);
                return EXIT_FAILED;
        }
        /* Its helper ends by itself once dumped: returns when nothing of it runs. */
        if (!launch_standalone_forced())
                (void) unit_bus_open(&bus);
        r = desktop_stop(&p, dirfd, 30, bus, profile);
        sd_bus_flush_close_unref(bus);
        if (r < 0)
                log_warning_errno(r, "Desktop %s hibernated, but its helper did not end cleanly: %m", profile);
        if (a->json) {
                struct json j;

                json_init(&j, stdout);
                json_object_begin(&j);
                json_kv_string(&j, "profile", profile);
                json_kv_bool(&j, "hibernated", true);
                json_kv_int(&j, "size", (long long) size);
                json_kv_int(&j, "dump_ms", (long long) (dump_usec / 1000));
                json_object_end(&j);
                putchar('\n');
        } else if (!a->quiet)
                printf("%s: hibernated (%llu MiB, dumped in %llu ms); botdesk start %s resumes it\n", profile,
                       size >> 20, dump_usec / 1000, profile);
        return EXIT_OK;
}
