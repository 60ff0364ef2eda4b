/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "journal-frame-request.h"
#include "journal-frames.h"
#include "journal.h"
#include "log.h"
#include "socket-util.h"
#include "thumbnail.h"
#include "util.h"
#include "x11.h"

/* Requests taken at one wake-up: the loop serves its other sources in between. */
#define REQUESTS_PER_WAKEUP 8

static void drop_connection(struct journal_frames *f) {
        f->x_io = sd_event_source_disable_unref(f->x_io);
        if (f->conn)
                xcb_disconnect(f->conn);
        f->conn = NULL;
}

/* Nothing is selected, but every client gets some events (MappingNotify): read, so they never pile up. */
static void drain(struct journal_frames *f) {
        xcb_generic_event_t *ev;

        while ((ev = xcb_poll_for_event(f->conn)))
                free(ev);
        if (xcb_connection_has_error(f->conn))
                drop_connection(f);
}

static int on_x(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        drain(userdata);
        return 0;
}

static int connect_x(struct journal_frames *f) {
        int r;

        if (f->conn)
                return 0;
        f->conn = x11_connect_plain(f->display, f->cookie, &f->screen);
        if (!f->conn)
                return -ECONNREFUSED;
        r = sd_event_add_io(f->event, &f->x_io, xcb_get_file_descriptor(f->conn), EPOLLIN, on_x, f);
        if (r < 0) {
                drop_connection(f);
                return r;
        }
        return 0;
}

static void take(struct journal_frames *f, struct journal_frame_request *req) {
        struct thumb_jpeg_rows jr = { .quality = THUMB_JPEG_QUALITY_DEFAULT };
        _cleanup_(thumb_image_done) struct thumb_image img = {};
        _cleanup_free_ uint8_t *jpeg = NULL;
        struct journal j = { .fd = req->journal_fd, .frames_fd = req->frames_fd };
        size_t size = 0;
        int r;

        r = connect_x(f);
        if (r >= 0)
                r = thumb_grab_scaled_stream(f->conn, f->screen, req->width, THUMB_SIZE_MAX, thumb_jpeg_rows, &jr,
                                             &img);
        /* The screen is read: the next action may go on. The lock's mtime
         * says when the last frame was taken (a gap, JOURNAL_GAP_S). */
        (void) futimens(req->lock_fd, NULL);
        req->lock_fd = safe_close(req->lock_fd);
        if (f->conn)
                drain(f);
        if (r >= 0)
                r = jr.jpeg ? thumb_jpeg_finish(jr.jpeg, &jpeg, &size) : -EIO;
        jr.jpeg = thumb_jpeg_free(jr.jpeg);
        if (r >= 0)
                r = journal_write_frame(&j, req->seq, req->before, jpeg, size);
        if (r < 0)
                log_debug_errno(r, "Cannot take frame %llu%s of the journal: %m", req->seq,
                                req->before ? " (before)" : "");
        else
                f->taken++;
        /* The grab's and the encoder's buffers go back to the system: an idle helper stays small. */
        (void) malloc_trim(0);
}

static int on_request(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct journal_frames *f = userdata;

        for (unsigned i = 0; i < REQUESTS_PER_WAKEUP; i++) {
                _cleanup_(journal_frame_request_done) struct journal_frame_request req = JOURNAL_FRAME_REQUEST_NULL;
                int r = journal_frame_request_receive(fd, &req);

                if (r == -EAGAIN)
                        break;
                if (r < 0) {
                        log_debug_errno(r, "Refused a journal frame request: %m");
                        continue;
                }
                take(f, &req);
        }
        return 0;
}

int journal_frames_start(struct journal_frames *f, sd_event *e, int runtime_fd, const char *runtime_dir, unsigned display,
                         const uint8_t cookie[XAUTH_COOKIE_SIZE]) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        int r;

        *f = (struct journal_frames) { .event = e, .display = display };
        memcpy(f->cookie, cookie, XAUTH_COOKIE_SIZE);
        f->dir_fd = fcntl(runtime_fd, F_DUPFD_CLOEXEC, 3);
        if (f->dir_fd < 0)
                return negative_errno();
        f->listening = true;
        path = strdup_printf("%s/%s", runtime_dir, JOURNAL_FRAME_SOCKET);
        if (!path)
                return -ENOMEM;
        /* A predecessor's socket, left by a crash: nobody listens there. */
        (void) unlinkat(f->dir_fd, JOURNAL_FRAME_SOCKET, 0);
        fd = socket_bind_private(path, SOCK_DGRAM | SOCK_NONBLOCK);
        if (fd < 0)
                return fd;
        r = sd_event_add_io(e, &f->requests, fd, EPOLLIN, on_request, f);
        if (r < 0)
                return r;
        /* The source owns the socket from here. */
        r = sd_event_source_set_io_fd_own(f->requests, true);
        if (r < 0)
                return r;
        TAKE_FD(fd);
        return 0;
}

void journal_frames_done(struct journal_frames *f) {
        f->requests = sd_event_source_disable_unref(f->requests);
        /* Through the dir, not its name: after an adoption the spare's name
         * leads to the profile's dir, where the profile's socket is bound. */
        if (f->listening) {
                (void) unlinkat(f->dir_fd, JOURNAL_FRAME_SOCKET, 0);
                f->dir_fd = safe_close(f->dir_fd);
                f->listening = false;
        }
        if (f->conn)
                log_debug("Took %llu journal frames.", f->taken);
        drop_connection(f);
        explicit_bzero(f->cookie, sizeof f->cookie);
}
