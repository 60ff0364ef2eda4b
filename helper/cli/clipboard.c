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
#include "util.h"

static xcb_atom_t intern(xcb_connection_t *c, const char *name) {
        xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, xcb_intern_atom(c, false, (uint16_t) strlen(name), name), NULL);
        xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;

        free(r);
        return a;
}

int clipboard_get(xcb_connection_t *c, xcb_window_t root, bool png, size_t max,
                  void (*other)(void *userdata, const xcb_generic_event_t *ev), void *userdata, uint8_t **ret,
                  size_t *ret_size) {
        xcb_atom_t clipboard = intern(c, "CLIPBOARD"), target = intern(c, png ? "image/png" : "UTF8_STRING"),
                   prop = intern(c, "BOTDESK_CLIPBOARD"), incr = intern(c, "INCR");
        unsigned long long deadline = now_usec() + CLIPBOARD_ANSWER_MS * 1000ull;
        xcb_window_t w = xcb_generate_id(c);
        xcb_get_property_reply_t *p;
        bool answered = false, got = false;
        int r = 0;

        xcb_create_window(c, XCB_COPY_FROM_PARENT, w, root, -1, -1, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_ONLY,
                          XCB_COPY_FROM_PARENT, 0, NULL);
        xcb_convert_selection(c, w, clipboard, target, prop, XCB_CURRENT_TIME);
        xcb_flush(c);
        /* The answer is an event: waited for on the connection, bounded, never polled for. */
        while (!answered) {
                xcb_generic_event_t *ev;
                unsigned long long now;
                struct pollfd pfd = { .fd = xcb_get_file_descriptor(c), .events = POLLIN };

                while (!answered && (ev = xcb_poll_for_event(c))) {
                        if ((ev->response_type & 0x7f) == XCB_SELECTION_NOTIFY &&
                            ((xcb_selection_notify_event_t *) ev)->requestor == w) {
                                answered = true;
                                got = ((xcb_selection_notify_event_t *) ev)->property != XCB_ATOM_NONE;
                        } else if (ev->response_type != 0 && other)
                                other(userdata, ev);
                        free(ev);
                }
                if (answered)
                        break;
                if (xcb_connection_has_error(c)) {
                        r = -EIO;
                        break;
                }
                now = now_usec();
                if (now >= deadline) {
                        r = -ETIME;
                        break;
                }
                if (poll(&pfd, 1, (int) ((deadline - now + 999) / 1000)) < 0 && errno != EINTR) {
                        r = negative_errno();
                        break;
                }
        }
        if (r < 0 || !got) {
                xcb_destroy_window(c, w);
                xcb_flush(c);
                return r < 0 ? r : -ENODATA;
        }
        /* One more byte than allowed: whether it holds more is then known. */
        p = xcb_get_property_reply(c, xcb_get_property(c, true, w, prop, XCB_ATOM_ANY, 0, (uint32_t) (max / 4 + 1)), NULL);
        xcb_destroy_window(c, w);
        xcb_flush(c);
        if (!p)
                return -EIO;
        /* INCR: the owner sends it in pieces, which only content beyond one request needs: beyond max. */
        if (p->type == incr || p->bytes_after > 0 || (size_t) xcb_get_property_value_length(p) > max) {
                free(p);
                return -EFBIG;
        }
        if (p->format != 8 || p->type == XCB_ATOM_NONE) {
                free(p);
                return -ENODATA;
        }
        *ret_size = (size_t) xcb_get_property_value_length(p);
        *ret = malloc(*ret_size + 1);
        if (!*ret) {
                free(p);
                return -ENOMEM;
        }
        memcpy(*ret, xcb_get_property_value(p), *ret_size);
        (*ret)[*ret_size] = 0;
        explicit_bzero(xcb_get_property_value(p), *ret_size);
        free(p);
        return 0;
}

int clipboard_set(int runtime_fd, bool png, const void *data, size_t size) {
        const char *name = png ? CLIPBOARD_FILE_PNG : CLIPBOARD_FILE_TEXT;
        unsigned long long deadline = now_usec() + CLIPBOARD_ANSWER_MS * 1000ull;
        _cleanup_close_ int ino = -EBADF;
        char self[64];
        int r;

        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (ino < 0)
                return negative_errno();
        /* The watch before the write: the helper's removal cannot come unseen. */
        snprintf(self, sizeof self, "/proc/self/fd/%d", runtime_fd);
        if (inotify_add_watch(ino, self, IN_DELETE | IN_ONLYDIR) < 0)
                return negative_errno();
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
