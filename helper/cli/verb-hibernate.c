/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk hibernate PROFILE [--timeout S] [--json]: a checkpointable
 * desktop's whole tree (its memory, its windows, what runs in them) dumped
 * into STATE/snapshot/ and then stopped; `botdesk start PROFILE` restores
 * it. botdesk snapshot PROFILE NAME: the same into STATE/snapshots/NAME/,
 * the desktop running on, for botdesk fork. The helper does the work (it
 * must let go of its connections into the tree first, supervisor/
 * hibernate.c); this asks it over RUNTIME/hibernate.sock and waits for its
 * answer (a hibernation: then for nothing of the desktop to run). A dump
 * that fails leaves the desktop running, and says why.
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

/* request sent, the helper's answer parsed: "ok SIZE DUMP_USEC", or its error said naming what. */
static int ask(int dirfd, const char *profile, const char *request, const char *what, unsigned timeout,
               unsigned long long *ret_size, unsigned long long *ret_dump_usec) {
        _cleanup_close_ int fd = socket_connect_at(dirfd, HIBERNATE_SOCKET, SOCK_SEQPACKET);
        char answer[HIBERNATE_ANSWER_MAX];
        ssize_t n;
        int r;

        if (fd < 0) {
                log_error("Desktop %s does not answer on %s: it started before [session] checkpointable = yes, or "
                          "is not ready (%s).", profile, HIBERNATE_SOCKET, strerror(-fd));
                return EXIT_FAILED;
        }
        if (send(fd, request, strlen(request), MSG_NOSIGNAL) < 0)
                return log_error_errno(-errno, "Cannot ask desktop %s for its %s: %m", profile, what), EXIT_FAILED;
        r = fd_wait_until(fd, POLLIN, now_usec() + (unsigned long long) timeout * 1000000ULL);
        if (r == -ETIMEDOUT) {
                log_error("Desktop %s did not finish its %s within %u s (--timeout).", profile, what, timeout);
                return EXIT_FAILED;
        }
        n = r < 0 ? r : recv(fd, answer, sizeof answer - 1, 0);
        if (n <= 0) {
                log_error("Desktop %s ended without answering its %s%s%s; see botdesk status %s.", profile, what,
                          n < 0 ? ": " : "", n < 0 ? strerror(errno) : "", profile);
                return EXIT_FAILED;
        }
        answer[n] = 0;
        if (startswith(answer, "error ")) {
                log_error("Cannot %s %s: %s", streq(what, "hibernation") ? "hibernate" : "snapshot", profile,
                          answer + strlen("error "));
                return EXIT_FAILED;
        }
        if (sscanf(answer, "ok %llu %llu", ret_size, ret_dump_usec) != 2) {
                log_error("Desktop %s answered its %s with \"%s\".", profile, what, answer);
                return EXIT_FAILED;
        }
        return EXIT_OK;
}

/* The profile's, checkpointable and running, no human in control: EXIT_OK with its runtime dir. */
static int open_checkpointable(const char *profile, struct bd_config *c, struct bd_paths *p, int *dirfd,
                               int *lock, const char *verb) {
        _cleanup_(helper_record_done) struct helper_record rec = {};
        int r;

        r = launch_open_profile(profile, c, p, dirfd, lock);
        if (r != EXIT_OK)
                return r;
        if (!c->checkpointable) {
                log_error("Desktop %s is not checkpointable: set [session] checkpointable = yes for it and restart it.",
                          profile);
                return EXIT_REFUSED;
        }
        r = running_desktop_helper(profile, *dirfd, &rec);
        if (r != EXIT_OK)
                return r;
        if (human_has_control(*dirfd, verb))
                return EXIT_REFUSED;
        return EXIT_OK;
}

static void emit(const char *profile, const char *name, unsigned long long size,
                 unsigned long long dump_usec) {
        struct json j;

        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "profile", profile);
        if (name)
                json_kv_string(&j, "snapshot", name);
        else
                json_kv_bool(&j, "hibernated", true);
        json_kv_int(&j, "size", (long long) size);
        json_kv_int(&j, "dump_ms", (long long) (dump_usec / 1000));
        json_object_end(&j);
        putchar('\n');
}

int verb_hibernate(const struct cli_args *a) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, lock = -EBADF;
        const char *profile = a->operand;
        unsigned long long size = 0, dump_usec = 0;
        unsigned timeout = a->timeout > 0 ? a->timeout : HIBERNATE_TIMEOUT_DEFAULT;
        sd_bus *bus = NULL;
        int r;

        r = open_checkpointable(profile, &c, &p, &dirfd, &lock, "hibernate");
        if (r != EXIT_OK)
                return r;
        r = ask(dirfd, profile, HIBERNATE_REQUEST, "hibernation", timeout, &size, &dump_usec);
        if (r != EXIT_OK)
                return r;
        /* Its helper ends by itself once dumped: returns when nothing of it runs. */
        if (!launch_standalone_forced())
                (void) unit_bus_open(&bus);
        r = desktop_stop(&p, dirfd, 30, bus, profile);
        sd_bus_flush_close_unref(bus);
        if (r < 0)
                log_warning_errno(r, "Desktop %s hibernated, but its helper did not end cleanly: %m", profile);
        if (a->json)
                emit(profile, NULL, size, dump_usec);
        else if (!a->quiet)
                printf("%s: hibernated (%llu MiB, dumped in %llu ms); botdesk start %s resumes it\n", profile,
                       size >> 20, dump_usec / 1000, profile);
        return EXIT_OK;
}

int verb_snapshot(const struct cli_args *a) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, lock = -EBADF;
        _cleanup_free_ char *request = NULL;
        const char *profile = a->operand, *name = a->n_operands > 1 ? a->operands[1] : NULL;
        unsigned long long size = 0, dump_usec = 0;
        unsigned timeout = a->timeout > 0 ? a->timeout : HIBERNATE_TIMEOUT_DEFAULT;
        int r;

        if (cli_check_snapshot_name("snapshot", profile, name) < 0)
                return EXIT_USAGE;
        r = open_checkpointable(profile, &c, &p, &dirfd, &lock, "snapshot");
        if (r != EXIT_OK)
                return r;
        request = strdup_printf(SNAPSHOT_REQUEST "%s", name);
        if (!request)
                return log_oom(), EXIT_FAILED;
        r = ask(dirfd, profile, request, "snapshot", timeout, &size, &dump_usec);
        if (r != EXIT_OK)
                return r;
        if (a->json)
                emit(profile, name, size, dump_usec);
        else if (!a->quiet)
                printf("%s: snapshot %s kept (%llu MiB, dumped in %llu ms); botdesk fork %s %s --as NEW forks it\n",
                       profile, name, size >> 20, dump_usec / 1000, profile, name);
        return EXIT_OK;
}
