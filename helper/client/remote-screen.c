/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cli.h"
#include "drag-walk.h"
#include "log.h"
#include "remote-screen.h"
#include "rfb-grab.h"
#include "socket-util.h"
#include "util.h"

int remote_screen_send(struct remote_screen *s, const void *data, size_t size, unsigned long long deadline) {
        const uint8_t *p = data;

        while (size > 0) {
                ssize_t n = send(s->session.fd, p, size, MSG_NOSIGNAL | MSG_DONTWAIT);
                int r;

                if (n < 0 && errno != EAGAIN && errno != EINTR) {
                        s->broken = true;
                        return negative_errno();
                }
                if (n > 0) {
                        p += n;
                        size -= (size_t) n;
                        continue;
                }
                r = fd_wait_until(s->session.fd, POLLOUT, deadline);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Read and paint until the reader has counted more than `updates` updates. */
static int read_updates(struct remote_screen *s, unsigned updates, unsigned long long deadline) {
        while (s->rd.updates <= updates) {
                ssize_t n = recv(s->session.fd, s->buf, RFB_HANDSHAKE_READ, MSG_DONTWAIT);
                int r;

                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
                        s->broken = true;
                        return n == 0 ? -ECONNRESET : negative_errno();
                }
                if (n > 0) {
                        if (rfb_update_feed(&s->rd, &s->fb, s->buf, (size_t) n) < 0) {
                                s->broken = true;
                                return -EPROTO;
                        }
                        continue;
                }
                r = fd_wait_until(s->session.fd, POLLIN, deadline);
                if (r < 0)
                        return r;
        }
        return 0;
}

int remote_screen_sync(struct remote_screen *s, unsigned long long deadline) {
        uint8_t req[10];
        int r;

        /* Not incremental: answered even when nothing changed. One pixel: cheap to answer. */
        r = remote_screen_send(s, req, rfb_request_update(false, 0, 0, 1, 1, req), deadline);
        return r < 0 ? r : read_updates(s, s->rd.updates, deadline);
}

/* How long a send forced by a full queue may take: the whole action's bound. */
#define REMOTE_OUT_SECONDS 10u

static void queue(struct remote_screen *s, const uint8_t *msg, size_t n) {
        if (s->out_len + n > REMOTE_OUT_MAX) {
                int r = remote_screen_flush(s, now_usec() + REMOTE_OUT_SECONDS * 1000000ull);

                if (r < 0 && s->out_error == 0)
                        s->out_error = r;
        }
        memcpy(s->out + s->out_len, msg, n);
        s->out_len += n;
}

void remote_screen_key(struct remote_screen *s, uint32_t keysym, bool down) {
        uint8_t m[RFB_KEY_EVENT_SIZE];

        queue(s, m, rfb_key_event(keysym, down, m));
}

void remote_screen_move(struct remote_screen *s, unsigned x, unsigned y) {
        uint8_t m[RFB_POINTER_EVENT_SIZE];

        queue(s, m, rfb_pointer_move(&s->pointer, (uint16_t) x, (uint16_t) y, m));
}

void remote_screen_button(struct remote_screen *s, unsigned button, bool down) {
        uint8_t m[RFB_POINTER_EVENT_SIZE];

        queue(s, m, rfb_pointer_button(&s->pointer, button, down, m));
}

/* The VNC server's side of drag_walk(). */
struct rfb_drag {
        struct remote_screen *s;
        unsigned button, quiet_ms, cap_ms;
};

static void rfb_drag_move(void *userdata, unsigned x, unsigned y) {
        struct rfb_drag *d = userdata;

        remote_screen_move(d->s, x, y);
}

static void rfb_drag_button(void *userdata, bool down) {
        struct rfb_drag *d = userdata;

        remote_screen_button(d->s, d->button, down);
}

/* The drag so far on its way and the far screen settled; a failure is the final flush's to say. */
static void rfb_drag_pace(void *userdata) {
        struct rfb_drag *d = userdata;
        bool changed, quiet;
        unsigned ms;

        if (remote_screen_flush(d->s, now_usec() + (d->cap_ms + 1000ull) * 1000ull) >= 0)
                (void) remote_screen_settle(d->s, d->quiet_ms, d->cap_ms, &changed, &quiet, &ms);
}

void remote_screen_drag(struct remote_screen *s, unsigned button, const unsigned (*path)[2], size_t n, unsigned steps,
                        unsigned quiet_ms, unsigned cap_ms) {
        const struct drag_ops ops = { rfb_drag_move, rfb_drag_button, quiet_ms > 0 ? rfb_drag_pace : NULL };
        struct rfb_drag d = { s, button, quiet_ms, cap_ms };

        drag_walk(path, n, steps, &ops, &d);
}

static void wheel(struct remote_screen *s, long long steps, unsigned plus, unsigned minus) {
        unsigned b = steps > 0 ? plus : minus;

        for (long long i = 0; i < (steps > 0 ? steps : -steps); i++) {
                remote_screen_button(s, b, true);
                remote_screen_button(s, b, false);
        }
}

void remote_screen_scroll(struct remote_screen *s, long long dx, long long dy) {
        wheel(s, dy, 5, 4);
        wheel(s, dx, 7, 6);
}

void remote_screen_combo(struct remote_screen *s, const uint32_t *keysyms, size_t n) {
        for (size_t k = 0; k < n; k++)
                remote_screen_key(s, keysyms[k], true);
        for (size_t k = n; k > 0; k--)
                remote_screen_key(s, keysyms[k - 1], false);
}

void remote_screen_type(struct remote_screen *s, uint32_t keysym) {
        bool shift = rfb_keysym_shifted(keysym);

        if (shift)
                remote_screen_key(s, RFB_KEYSYM_SHIFT_L, true);
        remote_screen_key(s, keysym, true);
        remote_screen_key(s, keysym, false);
        if (shift)
                remote_screen_key(s, RFB_KEYSYM_SHIFT_L, false);
}

int remote_screen_type_text(struct remote_screen *s, const uint32_t *keysyms, size_t n, size_t batch,
                            bool (*still_ours)(void *userdata), void *userdata, size_t *ret_sent) {
        *ret_sent = 0;
        for (size_t i = 0; i < n; i += batch) {
                size_t end = i + batch < n ? i + batch : n;
                unsigned long long deadline = now_usec() + REMOTE_OUT_SECONDS * 1000000ull;
                int r;

                if (!still_ours(userdata))
                        return -ESTALE;
                for (size_t k = i; k < end; k++)
                        remote_screen_type(s, keysyms[k]);
                r = remote_screen_flush(s, deadline);
                if (r >= 0)
                        r = remote_screen_sync(s, deadline);
                if (r < 0)
                        return r;
                *ret_sent = end;
        }
        return 0;
}

int remote_screen_flush(struct remote_screen *s, unsigned long long deadline) {
        int r = s->out_error;

        s->out_error = 0;
        if (r >= 0 && s->out_len > 0)
                r = remote_screen_send(s, s->out, s->out_len, deadline);
        s->out_len = 0;
        return r;
}

int remote_screen_settle(struct remote_screen *s, unsigned quiet_ms, unsigned cap_ms, bool *ret_changed,
                         bool *ret_quiet, unsigned *ret_ms) {
        unsigned long long start = now_usec(), quiet_since = start, cap = start + cap_ms * 1000ull;
        uint8_t req[10];
        bool changed = false;
        int r;

        /* Incremental: the server answers once something changed, and not before. */
        r = remote_screen_send(s, req, rfb_request_update(true, 0, 0, s->fb.width, s->fb.height, req), cap);
        for (; r >= 0;) {
                unsigned long long now = now_usec(), until = quiet_since + quiet_ms * 1000ull;
                unsigned updates = s->rd.updates;

                if (now >= until || now >= cap) {
                        *ret_changed = changed;
                        *ret_quiet = now >= until;
                        *ret_ms = (unsigned) ((now - start) / 1000);
                        return 0;
                }
                r = read_updates(s, updates, until < cap ? until : cap);
                if (r == -ETIMEDOUT) {
                        r = 0;
                        continue;
                }
                if (r >= 0 && s->rd.updates > updates) {
                        changed = true;
                        quiet_since = now_usec();
                        r = remote_screen_send(s, req, rfb_request_update(true, 0, 0, s->fb.width, s->fb.height, req),
                                               cap);
                }
        }
        return r;
}

static void load_pointer(struct remote_screen *s, int dirfd) {
        _cleanup_free_ char *text = NULL;
        unsigned long long x, y;
        char *sp;

        s->pointer = (struct rfb_pointer) { .x = s->fb.width / 2, .y = s->fb.height / 2 };
        if (read_full_file_at(dirfd, REMOTE_POINTER_FILE, &text, NULL, 64) < 0)
                return;
        sp = strchr(text, ' ');
        if (!sp)
                return;
        *sp = '\0';
        sp[strcspn(sp + 1, "\n") + 1] = '\0';
        /* Another screen size since: the centre of this one. */
        if (parse_uint(text, s->fb.width - 1u, &x) < 0 || parse_uint(sp + 1, s->fb.height - 1u, &y) < 0)
                return;
        s->pointer.x = (uint16_t) x;
        s->pointer.y = (uint16_t) y;
}

void remote_screen_save_pointer(const struct remote_screen *s, int dirfd) {
        char text[32];
        int n = snprintf(text, sizeof text, "%u %u\n", s->pointer.x, s->pointer.y);

        (void) write_file_atomic_at(dirfd, REMOTE_POINTER_FILE, text, (size_t) n, 0600);
}

int remote_screen_open(const char *profile, const struct bd_config *c, int dirfd, struct remote_screen *ret) {
        unsigned long long deadline = now_usec() + REMOTE_FRONT_HANDSHAKE_SECONDS * 1000000ull;
        uint8_t msg[64];
        int r;

        *ret = (struct remote_screen) { .session.fd = -EBADF };
        rfb_update_reader_init(&ret->rd);
        r = remote_session_open(profile, c, dirfd, &ret->session);
        if (r != EXIT_OK)
                return r;
        ret->buf = malloc(RFB_HANDSHAKE_READ);
        ret->out = malloc(REMOTE_OUT_MAX);
        r = ret->buf && ret->out ? rfb_framebuffer_init(&ret->fb, ret->session.client.width, ret->session.client.height) : -ENOMEM;
        if (r < 0) {
                remote_screen_close(ret);
                return log_oom(), EXIT_FAILED;
        }
        r = remote_screen_send(ret, msg, rfb_request_pixel_format(msg), deadline);
        if (r >= 0)
                r = remote_screen_send(ret, msg, rfb_request_encodings(msg), deadline);
        if (r >= 0)
                r = remote_screen_send(ret, msg, rfb_request_update(false, 0, 0, ret->fb.width, ret->fb.height, msg),
                                       deadline);
        /* What the server sent after its ServerInit comes first. */
        if (r >= 0 && ret->session.n_rest > 0 &&
            rfb_update_feed(&ret->rd, &ret->fb, ret->session.rest, ret->session.n_rest) < 0)
                r = -EPROTO;
        if (r >= 0)
                r = read_updates(ret, 0, deadline);
        load_pointer(ret, dirfd);
        if (r < 0) {
                log_error("The VNC server of profile %s (remote = %s): %s.", profile, c->remote,
                          r == -ETIMEDOUT ? "it sent no whole screen in time"
                          : r == -EPROTO  ? "it sent a message botdesk cannot read"
                                          : "the connection broke");
                remote_screen_close(ret);
                return EXIT_FAILED;
        }
        return EXIT_OK;
}

void remote_screen_close(struct remote_screen *s) {
        remote_session_close(&s->session);
        rfb_update_reader_done(&s->rd);
        rfb_framebuffer_done(&s->fb);
        free(s->buf);
        free(s->out);
        s->buf = s->out = NULL;
        s->out_len = 0;
}
