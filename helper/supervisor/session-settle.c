/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "adopt-state.h"
#include "log.h"
#include "session-settle.h"
#include "util.h"

/* Where xfconfd saves the session's settings, below the state dir. */
#define XFCONF_CHANNEL_DIR SESSION_STATE_DIR "/config/xfce4/xfconf/xfce-perchannel-xml"

void session_settle_record(struct supervisor *s) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *dir = NULL;
        int r;

        if (!s->state_fresh || !s->state_settled)
                return;
        dir = strdup_printf("%s/" SESSION_STATE_DIR, s->paths.state);
        if (!dir)
                return;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        r = fd < 0 ? negative_errno() : session_state_manifest_write(fd);
        if (r < 0)
                log_warning_errno(r, "Cannot record that %s is a fresh session's (%m); the next start will not adopt a spare.",
                                  dir);
}

static void settled(struct supervisor *s) {
        session_settle_done(s);
        s->state_settled = true;
        session_settle_record(s);
}

static int on_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        settled(userdata);
        return 0;
}

static int on_inotify(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct supervisor *s = userdata;
        union {
                struct inotify_event ev;
                char buf[4096];
        } u;

        /* What was written does not matter, only that something was: drain, then wait for quiet. */
        while (read(fd, u.buf, sizeof u.buf) > 0)
                ;
        if (sd_event_source_set_time_relative(s->settle_state_timer, SESSION_SETTLE_QUIET_USEC) < 0 ||
            sd_event_source_set_enabled(s->settle_state_timer, SD_EVENT_ONESHOT) < 0)
                settled(s);
        return 0;
}

int session_settle_watch(struct supervisor *s) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *dir = NULL;
        int r;

        /* Again after an adoption: the spare's watch goes on, or is done. */
        if (s->cfg.desktop != DESKTOP_XFCE || !s->state_fresh || s->state_settled || s->settle_state_io)
                return 0;
        dir = strdup_printf("%s/" XFCONF_CHANNEL_DIR, s->paths.state);
        if (!dir)
                return -ENOMEM;
        fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (fd < 0)
                return negative_errno();
        if (inotify_add_watch(fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ONLYDIR | IN_DONT_FOLLOW) < 0) {
                /* No settings dir (no skeleton): nothing will be written there to wait for. */
                if (errno != ENOENT)
                        return negative_errno();
                settled(s);
                return 0;
        }
        r = sd_event_add_time_relative(s->event, &s->settle_state_timer, CLOCK_MONOTONIC, SESSION_SETTLE_CAP_USEC, 0,
                                       on_timer, s);
        if (r >= 0)
                r = sd_event_add_io(s->event, &s->settle_state_io, fd, EPOLLIN, on_inotify, s);
        if (r < 0) {
                session_settle_done(s);
                return r;
        }
        (void) sd_event_source_set_io_fd_own(s->settle_state_io, true);
        TAKE_FD(fd);
        return 0;
}

void session_settle_done(struct supervisor *s) {
        s->settle_state_io = sd_event_source_disable_unref(s->settle_state_io);
        s->settle_state_timer = sd_event_source_disable_unref(s->settle_state_timer);
}
