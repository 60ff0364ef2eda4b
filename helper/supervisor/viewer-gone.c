/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sys/inotify.h>

#include "lease-deadline.h"
#include "log.h"
#include "util.h"
#include "viewer-gone.h"

/* Expire what is due, then wait for what is still pending (or nothing). */
static void viewer_gone_check(struct viewer_gone *v) {
        unsigned long long next = 0;
        int r;

        r = lease_deadline_expire_at(v->runtime_fd, realtime_usec(), &next);
        if (r > 0)
                log_info("The human in control has had no viewer until the deadline: control returns to the agent.");
        else if (r < 0)
                log_warning_errno(r, "Cannot end a viewerless hold, ignoring: %m");
        if (next == 0) {
                if (v->timer)
                        (void) sd_event_source_set_enabled(v->timer, SD_EVENT_OFF);
                return;
        }
        if (sd_event_source_set_time(v->timer, next) < 0 || sd_event_source_set_enabled(v->timer, SD_EVENT_ONESHOT) < 0)
                log_warning("Cannot arm the timer of a viewerless hold, ignoring.");
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        viewer_gone_check(userdata);
        return 0;
}

static int on_dir_event(sd_event_source *s, const struct inotify_event *ev, void *userdata) {
        if (!(ev->mask & IN_Q_OVERFLOW) && (ev->len == 0 || !streq(ev->name, LEASE_DEADLINE_FILE)))
                return 0;
        viewer_gone_check(userdata);
        return 0;
}

int viewer_gone_watch(struct viewer_gone *v, sd_event *e, int runtime_fd) {
        int r;

        *v = (struct viewer_gone) { .runtime_fd = runtime_fd };
        r = sd_event_add_time(e, &v->timer, CLOCK_REALTIME, UINT64_MAX, 10 * 1000, on_timer, v);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(v->timer, SD_EVENT_OFF);
        /* Written by rename: IN_MOVED_TO is every new deadline. */
        r = sd_event_add_inotify_fd(e, &v->watch, runtime_fd, IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_ONLYDIR,
                                    on_dir_event, v);
        if (r < 0) {
                v->timer = sd_event_source_disable_unref(v->timer);
                return r;
        }
        /* A deadline recorded before this helper watched (a restart, an adoption). */
        viewer_gone_check(v);
        return 0;
}

void viewer_gone_done(struct viewer_gone *v) {
        v->watch = sd_event_source_disable_unref(v->watch);
        v->timer = sd_event_source_disable_unref(v->timer);
}
