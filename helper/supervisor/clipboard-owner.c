/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "clipboard-owner.h"
#include "log.h"
#include "util.h"

static void forget(struct clipboard_owner *c) {
        if (c->data)
                explicit_bzero(c->data, c->size);
        free(c->data);
        c->data = NULL;
        c->size = 0;
}

static xcb_atom_t intern(xcb_connection_t *conn, const char *name) {
        xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(conn, xcb_intern_atom(conn, false, (uint16_t) strlen(name), name), NULL);
        xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;

        free(r);
        return a;
}

static bool is_text_target(const struct clipboard_owner *c, xcb_atom_t t) {
        return t == c->utf8 || t == XCB_ATOM_STRING || t == c->text || t == c->text_plain || t == c->text_plain_utf8;
}

/* Answer one SelectionRequest: the data in the property the requestor named, or a refusal (property None). */
static void answer(struct clipboard_owner *c, const xcb_selection_request_event_t *req) {
        xcb_connection_t *conn = c->x.conn;
        /* Obsolete clients name no property: the target is the property then (ICCCM 2.2). */
        xcb_atom_t prop = req->property != XCB_ATOM_NONE ? req->property : req->target;
        /* One ChangeProperty holds at most the server's request size (in 4-byte units), less its header. */
        size_t max_request = (size_t) xcb_get_maximum_request_length(conn) * 4 - 64;
        xcb_selection_notify_event_t ev = {
                .response_type = XCB_SELECTION_NOTIFY,
                .time = req->time,
                .requestor = req->requestor,
                .selection = req->selection,
                .target = req->target,
                .property = XCB_ATOM_NONE,
        };

        if ((req->selection == c->clipboard && c->empty_clipboard) ||
            (req->selection == XCB_ATOM_PRIMARY && c->empty_primary)) {
                /* Emptied at a hand-back: text, of no length. */
                if (req->target == c->targets) {
                        xcb_atom_t list[] = { c->targets, c->utf8, c->text_plain_utf8, c->text_plain, XCB_ATOM_STRING, c->text };

                        xcb_change_property(conn, XCB_PROP_MODE_REPLACE, req->requestor, prop, XCB_ATOM_ATOM, 32,
                                            ELEMENTSOF(list), list);
                        ev.property = prop;
                } else if (is_text_target(c, req->target)) {
                        xcb_change_property(conn, XCB_PROP_MODE_REPLACE, req->requestor, prop,
                                            req->target == c->text ? c->utf8 : req->target, 8, 0, "");
                        ev.property = prop;
                }
        } else if (req->selection == c->clipboard && c->data) {
                if (req->target == c->targets) {
                        xcb_atom_t list[7];
                        uint32_t n = 0;

                        list[n++] = c->targets;
                        if (c->png_data)
                                list[n++] = c->png;
                        else {
                                list[n++] = c->utf8;
                                list[n++] = c->text_plain_utf8;
                                list[n++] = c->text_plain;
                                list[n++] = XCB_ATOM_STRING;
                                list[n++] = c->text;
                        }
                        xcb_change_property(conn, XCB_PROP_MODE_REPLACE, req->requestor, prop, XCB_ATOM_ATOM, 32, n, list);
                        ev.property = prop;
                } else if (c->size <= max_request &&
                           ((c->png_data && req->target == c->png) || (!c->png_data && is_text_target(c, req->target)))) {
                        /* No INCR: content larger than one request is refused (clipboard_max_bytes keeps it smaller). */
                        xcb_change_property(conn, XCB_PROP_MODE_REPLACE, req->requestor, prop,
                                            req->target == c->text ? c->utf8 : req->target, 8, (uint32_t) c->size, c->data);
                        ev.property = prop;
                }
        }
        xcb_send_event(conn, false, req->requestor, XCB_EVENT_MASK_NO_EVENT, (const char *) &ev);
        xcb_flush(conn);
}

/* Every event the connection holds, read or queued: also after a reply was waited for, which queues them unseen. */
static void drain(struct clipboard_owner *c) {
        xcb_generic_event_t *ev;

        while ((ev = xcb_poll_for_event(c->x.conn))) {
                const xcb_selection_clear_event_t *clear = (const xcb_selection_clear_event_t *) ev;

                switch (ev->response_type & 0x7f) {
                case XCB_SELECTION_REQUEST:
                        answer(c, (const xcb_selection_request_event_t *) ev);
                        break;
                case XCB_SELECTION_CLEAR:
                        /* Someone else copied: their content is the selection now. */
                        if (clear->selection == XCB_ATOM_PRIMARY)
                                c->empty_primary = false;
                        else {
                                forget(c);
                                c->empty_clipboard = false;
                        }
                        break;
                }
                free(ev);
        }
        if (xcb_connection_has_error(c->x.conn)) {
                log_warning("The clipboard's X connection broke; the agent's clipboard is gone until the next start.");
                c->io = sd_event_source_disable_unref(c->io);
        }
}

static int on_x(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        drain(userdata);
        return 0;
}

static bool owns(struct clipboard_owner *c, xcb_atom_t selection) {
        xcb_get_selection_owner_reply_t *r =
                xcb_get_selection_owner_reply(c->x.conn, xcb_get_selection_owner(c->x.conn, selection), NULL);
        bool ours = r && r->owner == c->window;

        free(r);
        return ours;
}

int clipboard_owner_take_back(struct clipboard_owner *c) {
        bool ours;

        if (!c->io)
                return -ENOTCONN;
        /* The server's word, not the events read so far: a SelectionClear
         * may still be on its way. Still ours, it holds what the agent put
         * there (or the last hand-back's nothing): kept. */
        if (!owns(c, c->clipboard)) {
                forget(c);
                c->empty_clipboard = true;
                xcb_set_selection_owner(c->x.conn, c->window, c->clipboard, XCB_CURRENT_TIME);
        }
        if (!owns(c, XCB_ATOM_PRIMARY)) {
                c->empty_primary = true;
                xcb_set_selection_owner(c->x.conn, c->window, XCB_ATOM_PRIMARY, XCB_CURRENT_TIME);
        }
        /* The replies say the server made both ours, so every ConvertSelection from now on reaches us. */
        ours = owns(c, c->clipboard) && owns(c, XCB_ATOM_PRIMARY);
        drain(c);
        if (!ours)
                return c->io ? -EBUSY : -EIO;
        log_debug("Control is back with the agent: CLIPBOARD and PRIMARY are the helper's.");
        return 0;
}

static void take(struct clipboard_owner *c, const char *name, bool png) {
        char *data = NULL;
        size_t size = 0;
        int r;

        r = read_full_file_at(c->runtime_fd, name, &data, &size, c->max);
        /* Taken or not, the file goes: its removal tells the writer that the helper looked. */
        (void) unlinkat(c->runtime_fd, name, 0);
        if (r < 0) {
                log_warning_errno(r, "Cannot read the agent's clipboard content (%s, at most %zu bytes): %m", name, c->max);
                return;
        }
        forget(c);
        c->empty_clipboard = false;
        c->data = (uint8_t *) data;
        c->size = size;
        c->png_data = png;
        xcb_set_selection_owner(c->x.conn, c->window, c->clipboard, XCB_CURRENT_TIME);
        xcb_flush(c->x.conn);
        /* The size only: the content is the agent's, never the log's. */
        log_debug("The agent's clipboard holds %zu bytes of %s.", size, png ? "PNG" : "text");
}

static int on_file(sd_event_source *s, const struct inotify_event *ev, void *userdata) {
        struct clipboard_owner *c = userdata;

        if (ev->len == 0)
                return 0;
        if (streq(ev->name, CLIPBOARD_FILE_TEXT))
                take(c, CLIPBOARD_FILE_TEXT, false);
        else if (streq(ev->name, CLIPBOARD_FILE_PNG))
                take(c, CLIPBOARD_FILE_PNG, true);
        return 0;
}

int clipboard_owner_start(struct clipboard_owner *c, sd_event *e, int runtime_fd, unsigned display,
                          const uint8_t cookie[XAUTH_COOKIE_SIZE], size_t max_bytes) {
        int r;

        *c = (struct clipboard_owner) { .runtime_fd = runtime_fd, .max = max_bytes };
        r = x11_connect(&c->x, display, cookie);
        if (r < 0)
                return r;
        c->window = xcb_generate_id(c->x.conn);
        xcb_create_window(c->x.conn, XCB_COPY_FROM_PARENT, c->window, c->x.root, -1, -1, 1, 1, 0,
                          XCB_WINDOW_CLASS_INPUT_ONLY, XCB_COPY_FROM_PARENT, 0, NULL);
        c->clipboard = intern(c->x.conn, "CLIPBOARD");
        c->targets = intern(c->x.conn, "TARGETS");
        c->utf8 = intern(c->x.conn, "UTF8_STRING");
        c->text = intern(c->x.conn, "TEXT");
        c->text_plain = intern(c->x.conn, "text/plain");
        c->text_plain_utf8 = intern(c->x.conn, "text/plain;charset=utf-8");
        c->png = intern(c->x.conn, "image/png");
        if (xcb_connection_has_error(c->x.conn))
                return -EIO;
        r = sd_event_add_io(e, &c->io, x11_fd(&c->x), EPOLLIN, on_x, c);
        if (r < 0)
                return r;
        /* write_file_atomic_at() renames into place: IN_MOVED_TO is every new content. */
        return sd_event_add_inotify_fd(e, &c->inotify, runtime_fd, IN_MOVED_TO | IN_ONLYDIR, on_file, c);
}

void clipboard_owner_done(struct clipboard_owner *c) {
        c->inotify = sd_event_source_disable_unref(c->inotify);
        c->io = sd_event_source_disable_unref(c->io);
        forget(c);
        if (c->x.conn)
                x11_disconnect(&c->x);
}
