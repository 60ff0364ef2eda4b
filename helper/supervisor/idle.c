/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/stat.h>

#include "hibernate.h"
#include "idle.h"
#include "lease.h"
#include "log.h"
#include "snapshot.h"
#include "util.h"

static uint64_t idle_limit_usec(const struct supervisor *s) {
        return (uint64_t) s->cfg.idle_stop_minutes * 60 * 1000000ULL;
}

static void idle_rearm(struct supervisor *s, uint64_t delay_usec) {
        int r = idle_arm(s, delay_usec);

        /* Said here: a negative return from the timer would only disable it. */
        if (r < 0)
                log_warning_errno(r, "Cannot re-arm the idle timer (%m); this desktop will not stop when idle.");
}

static int on_idle_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        struct supervisor *s = userdata;
        uint64_t limit = idle_limit_usec(s), idle;
        struct lease lease;
        struct stat st;

        if (s->state != DESKTOP_READY)
                return 0;
        if (fstatat(s->runtime_fd, "activity", &st, 0) < 0)
                idle = limit;
        else {
                uint64_t now = realtime_usec();
                uint64_t stamp = timespec_usec(&st.st_mtim);
                idle = now > stamp ? now - stamp : 0;
        }
        if (idle < limit) {
                idle_rearm(s, limit - idle);
                return 0;
        }
        (void) lease_read_at(s->runtime_fd, &lease);
        if (lease.holder == LEASE_HUMAN) {
                /* A human is at the screen, perhaps just reading: not idle. */
                idle_rearm(s, limit);
                return 0;
        }
        if (s->cfg.idle_action == IDLE_ACTION_HIBERNATE && s->ns_init_pid > 0) {
                _cleanup_(snapshot_manifest_done) struct snapshot_manifest m = {};
                _cleanup_free_ char *error = NULL;

                log_info("Idle for %u minutes (idle_stop_minutes), hibernating desktop :%d (idle_action).",
                         s->cfg.idle_stop_minutes, s->display);
                if (hibernate_now(s, &m, &error) >= 0) {
                        supervisor_feed(s, &(struct desktop_event) { .type = DESKTOP_EVENT_HIBERNATED });
                        return 0;
                }
                if (s->state != DESKTOP_READY)
                        return 0; /* it could not be taken back, and has failed */
                log_warning("Cannot hibernate the idle desktop (%s); it stops instead.", strnull(error));
        }
        supervisor_feed(s, &(struct desktop_event) { .type = DESKTOP_EVENT_IDLE });
        return 0;
}

int idle_arm(struct supervisor *s, uint64_t delay_usec) {
        s->idle_source = sd_event_source_disable_unref(s->idle_source);
        /* Accuracy of a second: the kernel may batch the wake-up with others. */
        return sd_event_add_time_relative(s->event, &s->idle_source, CLOCK_MONOTONIC, delay_usec, 1000000ULL,
                                          on_idle_timer, s);
}
