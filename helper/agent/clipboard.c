/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "clipboard.h"
#include "clipboard-files.h"
#include "lease-settled.h"
#include "cli-desktop.h"
#include "util.h"

/*
 * The next event for window w, bounded by deadline: its SelectionNotify (want
 * XCB_SELECTION_NOTIFY; *ret_property is the answer's property) or a new
 * value of its property prop (want XCB_PROPERTY_NOTIFY). The connection's
 * other events go to other; w's own other events are dropped.
 */
static int next_event(xcb_connection_t *c, xcb_window_t w, xcb_atom_t prop, uint8_t want, unsigned long long deadline,
                      void (*other)(void *userdata, const xcb_generic_event_t *ev), void *userdata,
                      xcb_atom_t *ret_property) {
        for (;;) {
                xcb_generic_event_t *ev;
                unsigned long long now;
                struct pollfd pfd = { .fd = xcb_get_file_descriptor(c), .events = POLLIN };

                while ((ev = xcb_poll_for_event(c))) {
                        uint8_t type = ev->response_type & 0x7f;
                        const xcb_selection_notify_event_t *sn = (const xcb_selection_notify_event_t *) ev;
                        const xcb_property_notify_event_t *pn = (const xcb_property_notify_event_t *) ev;
                        bool ours = (type == XCB_SELECTION_NOTIFY && sn->requestor == w) ||
                                    (type == XCB_PROPERTY_NOTIFY && pn->window == w);
                        bool wanted = ours && type == want &&
                                      (type == XCB_SELECTION_NOTIFY || (pn->atom == prop && pn->state == XCB_PROPERTY_NEW_VALUE));

                        if (wanted && type == XCB_SELECTION_NOTIFY)
                                *ret_property = sn->property;
                        else if (!ours && ev->response_type != 0 && other)
                                other(userdata, ev);
                        free(ev);
                        if (wanted)
                                return 0;
                }
                if (xcb_connection_has_error(c))
                        return -EIO;
                now = now_usec();
                if (now >= deadline)
                        return -ETIME;
                if (poll(&pfd, 1, (int) ((deadline - now + 999) / 1000)) < 0 && errno != EINTR)
                        return negative_errno();
        }
}

/*
 * Property prop of w, up to room + 1 bytes, deleted as it is read when del
 * (which says to the owner that it was taken: in an INCR transfer, send the
 * next piece).
 */
static xcb_get_property_reply_t *read_property(xcb_connection_t *c, xcb_window_t w, xcb_atom_t prop, size_t room, bool del) {
        return xcb_get_property_reply(c, xcb_get_property(c, del, w, prop, XCB_ATOM_ANY, 0, (uint32_t) (room / 4 + 1)), NULL);
}

/*
 * The pieces of an INCR transfer (ICCCM 2.7.2), once its INCR property was
 * deleted: each new value of prop is the next piece, read and deleted; an
 * empty one ends it. More than max bytes in all is -EFBIG (the transfer is
 * abandoned: the owner's own timeout ends it).
 */
static int read_incr(xcb_connection_t *c, xcb_window_t w, xcb_atom_t prop, size_t max, unsigned long long deadline,
                     void (*other)(void *userdata, const xcb_generic_event_t *ev), void *userdata, uint8_t *buf,
                     size_t *ret_size) {
        size_t n = 0;

        for (;;) {
                xcb_get_property_reply_t *p;
                size_t len;
                int r;

                r = next_event(c, w, prop, XCB_PROPERTY_NOTIFY, deadline, other, userdata, NULL);
                if (r < 0)
                        return r;
                p = read_property(c, w, prop, max - n, true);
                if (!p)
                        return -EIO;
                len = (size_t) xcb_get_property_value_length(p);
                if (p->bytes_after > 0 || len > max - n) {
                        free(p);
                        return -EFBIG;
                }
                if (len > 0 && p->format != 8) {
                        free(p);
                        return -ENODATA;
                }
                memcpy(buf + n, xcb_get_property_value(p), len);
                explicit_bzero(xcb_get_property_value(p), len);
                free(p);
                n += len;
                if (len == 0)
                        break;
        }
        *ret_size = n;
        return 0;
}

int clipboard_get(xcb_connection_t *c, xcb_window_t root, bool png, size_t max,
                  void (*other)(void *userdata, const xcb_generic_event_t *ev), void *userdata, uint8_t **ret,
                  size_t *ret_size) {
        xcb_atom_t clipboard = cli_intern_atom(c, "CLIPBOARD"), target = cli_intern_atom(c, png ? "image/png" : "UTF8_STRING"),
                   prop = cli_intern_atom(c, "BOTDESK_CLIPBOARD"), incr = cli_intern_atom(c, "INCR"), answer = XCB_ATOM_NONE;
        unsigned long long deadline = now_usec() + CLIPBOARD_ANSWER_MS * 1000ull;
        const uint32_t events = XCB_EVENT_MASK_PROPERTY_CHANGE;
        xcb_window_t w = xcb_generate_id(c);
        xcb_get_property_reply_t *p;
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size = 0;
        int r;

        /* Property changes: how an owner sending in pieces (INCR) says the next one is there. */
        xcb_create_window(c, XCB_COPY_FROM_PARENT, w, root, -1, -1, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_ONLY,
                          XCB_COPY_FROM_PARENT, XCB_CW_EVENT_MASK, &events);
        xcb_convert_selection(c, w, clipboard, target, prop, XCB_CURRENT_TIME);
        xcb_flush(c);
        /* The answer is an event: waited for on the connection, bounded, never polled for. */
        r = next_event(c, w, prop, XCB_SELECTION_NOTIFY, deadline, other, userdata, &answer);
        if (r >= 0 && answer == XCB_ATOM_NONE)
                r = -ENODATA;
        /* One more byte than allowed: whether it holds more is then known. */
        p = r >= 0 ? read_property(c, w, prop, max, false) : NULL;
        if (r >= 0 && !p)
                r = -EIO;
        if (r >= 0 && p->type == incr && p->format == 32 && xcb_get_property_value_length(p) == 4 &&
            *(const uint32_t *) xcb_get_property_value(p) > max)
                /* In pieces, and more than max in all, as its lower bound says: not even asked for (left undeleted). */
                r = -EFBIG;
        else if (r >= 0) {
                /* Taken: for an owner sending in pieces, send the first one. */
                xcb_delete_property(c, w, prop);
                xcb_flush(c);
        }
        if (r >= 0 && p->type == incr) {
                buf = malloc(max + 1);
                r = buf ? read_incr(c, w, prop, max, deadline, other, userdata, buf, &size) : -ENOMEM;
                if (r < 0 && buf)
                        explicit_bzero(buf, max + 1);
        } else if (r >= 0 && (p->bytes_after > 0 || (size_t) xcb_get_property_value_length(p) > max))
                r = -EFBIG;
        else if (r >= 0 && (p->format != 8 || p->type == XCB_ATOM_NONE))
                r = -ENODATA;
        else if (r >= 0) {
                size = (size_t) xcb_get_property_value_length(p);
                buf = malloc(size + 1);
                if (buf)
                        memcpy(buf, xcb_get_property_value(p), size);
                else
                        r = -ENOMEM;
        }
        if (p) {
                explicit_bzero(xcb_get_property_value(p), (size_t) xcb_get_property_value_length(p));
                free(p);
        }
        xcb_destroy_window(c, w);
        xcb_flush(c);
        if (r < 0)
                return r;
        buf[size] = 0;
        *ret = TAKE_PTR(buf);
        *ret_size = size;
        return 0;
}

int clipboard_set(int runtime_fd, bool png, const void *data, size_t size) {
        const char *name = png ? CLIPBOARD_FILE_PNG : CLIPBOARD_FILE_TEXT;
        unsigned long long deadline = now_usec() + CLIPBOARD_ANSWER_MS * 1000ull;
        _cleanup_close_ int ino = -EBADF;
        int r;

        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (ino < 0)
                return negative_errno();
        /* The watch before the write: the helper's removal cannot come unseen. */
        r = inotify_add_watch_fd(ino, runtime_fd, IN_DELETE | IN_ONLYDIR);
        if (r < 0)
                return r;
        r = write_file_atomic_at(runtime_fd, name, data, size, 0600);
        if (r < 0)
                return r;
        for (;;) {
                char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
                struct pollfd pfd = { .fd = ino, .events = POLLIN };
                unsigned long long now;
                ssize_t n;

                if (faccessat(runtime_fd, name, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
                        return 0;
                now = now_usec();
                if (now >= deadline) {
                        (void) unlinkat(runtime_fd, name, 0);
                        return -ETIME;
                }
                if (poll(&pfd, 1, (int) ((deadline - now + 999) / 1000)) < 0 && errno != EINTR)
                        return negative_errno();
                while ((n = read(ino, buf, sizeof buf)) > 0)
                        ;
        }
}

int clipboard_wait_handback(int runtime_fd, unsigned long long epoch) {
        return lease_settled_wait_at(runtime_fd, epoch, LEASE_SETTLED_WAIT_MS);
}
