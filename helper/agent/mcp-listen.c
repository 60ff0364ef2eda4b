/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The watch behind one subscription of `botdesk mcp P` (mcp-subs.h): a
 * process with its own connection to the desktop that turns the lease's
 * inotify events, the root's PropertyNotify of _NET_CLIENT_LIST and the
 * screen's DAMAGE into notifications/resources/updated lines on a pipe,
 * which the server's poll loop copies to its output. One poll(); no timer
 * but the screen's throttle and settle's read-back.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "agent.h"
#include "cli.h"
#include "cli-desktop.h"
#include "window-list.h"
#include "json.h"
#include "lease.h"
#include "lease-watch.h"
#include "mcp-resources.h"
#include "mcp-subs.h"
#include "mcp-tasks.h"
#include "subscriptions.h"
#include "util.h"

struct listener {
        struct agent *a;
        const struct mcp_sub *sub;
        unsigned what;
        FILE *out;
        int ino;
        struct lease lease;             /* the last one said */
        xcb_atom_t client_list;
        xcb_window_t *windows;          /* the last list said */
        size_t n_windows;
        unsigned long long screen_said; /* CLOCK_MONOTONIC usec of the last screen notification, 0: none */
};

static int lease_said(struct listener *l) {
        _cleanup_free_ char *meta = NULL;
        struct lease cur;
        struct json_mem m;

        (void) lease_read_at(l->a->dirfd, &cur);
        /* A pending request or a settled input moves the file too: those are no hand-over. */
        if (cur.holder == l->lease.holder && cur.epoch == l->lease.epoch)
                return 0;
        l->lease = cur;
        if (json_mem_open(&m) < 0)
                return -ENOMEM;
        mcp_lease_write(&m.j, &cur);
        if (json_mem_close(&m, &meta) < 0)
                return -ENOMEM;
        mcp_sub_write_updated(l->out, l->sub, l->a->profile, MCP_RESOURCE_LEASE, meta);
        return 0;
}

static bool listed(const xcb_window_t *ids, size_t n, xcb_window_t id) {
        for (size_t i = 0; i < n; i++)
                if (ids[i] == id)
                        return true;
        return false;
}

/* The client list read again; with say, what opened and closed since the last read, as one notification. */
static int windows_read(struct listener *l, bool say) {
        struct cli_window_title *t = NULL;
        _cleanup_free_ char *meta = NULL;
        xcb_window_t *ids;
        size_t n = 0;
        bool wm, changed = false;
        struct json_mem m;
        int r;

        r = cli_windows_titles(l->a->conn, l->a->root, &t, &n, &wm);
        if (r < 0)
                return r;
        ids = calloc(n ?: 1, sizeof *ids);
        if (!ids || json_mem_open(&m) < 0) {
                free(ids);
                cli_window_titles_free(t, n);
                return -ENOMEM;
        }
        json_object_begin(&m.j);
        json_key(&m.j, "opened");
        json_array_begin(&m.j);
        for (size_t i = 0; i < n; i++) {
                ids[i] = t[i].id;
                if (listed(l->windows, l->n_windows, t[i].id))
                        continue;
                changed = true;
                json_object_begin(&m.j);
                json_kv_int(&m.j, "id", t[i].id);
                json_kv_string(&m.j, "title", t[i].title);
                json_object_end(&m.j);
        }
        json_array_end(&m.j);
        json_key(&m.j, "closed");
        json_array_begin(&m.j);
        for (size_t i = 0; i < l->n_windows; i++)
                if (!listed(ids, n, l->windows[i])) {
                        changed = true;
                        json_int(&m.j, l->windows[i]);
                }
        json_array_end(&m.j);
        json_object_end(&m.j);
        cli_window_titles_free(t, n);
        r = json_mem_close(&m, &meta);
        free(l->windows);
        l->windows = ids;
        l->n_windows = n;
        if (r < 0)
                return -ENOMEM;
        /* A restack or a title rewrites the list without a window coming or going: nothing to say. */
        if (say && changed)
                mcp_sub_write_updated(l->out, l->sub, l->a->profile, MCP_RESOURCE_WINDOWS, meta);
        return 0;
}

/* Everything watched before the first read, so that no change falls between the acknowledgment and the watch. */
static int listener_setup(struct listener *l) {
        struct agent *a = l->a;

        if (!a->conn)
                /* A VNC server botdesk did not start: a lease, but no windows of ours and no DAMAGE. */
                l->what &= MCP_RESOURCE_LEASE;
        if (!a->have_settle)
                l->what &= ~MCP_RESOURCE_SCREEN;
        if (l->what & MCP_RESOURCE_LEASE) {
                if (lease_watch_add(l->ino, a->dirfd) < 0)
                        return negative_errno();
                (void) lease_read_at(a->dirfd, &l->lease);
        }
        if (l->what & MCP_RESOURCE_WINDOWS) {
                static const uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;

                /* The connection is this process's own: its root selection is nobody else's. */
                xcb_change_window_attributes(a->conn, a->root, XCB_CW_EVENT_MASK, &mask);
                l->client_list = cli_intern_atom(a->conn, "_NET_CLIENT_LIST");
                if (windows_read(l, false) < 0)
                        return -EIO;
        }
        if (l->what & MCP_RESOURCE_SCREEN)
                settle_begin(&a->settle);
        if (a->conn)
                xcb_flush(a->conn);
        return 0;
}

/* The X events queued or arriving: DAMAGE to settle, the client list's change to a new read. */
static int take_events(struct listener *l, xcb_generic_event_t *(*next)(xcb_connection_t *c), bool *ret_any) {
        xcb_generic_event_t *ev;
        bool windows = false;

        while ((ev = next(l->a->conn))) {
                const xcb_property_notify_event_t *p = (const xcb_property_notify_event_t *) ev;

                *ret_any = true;
                if (l->what & MCP_RESOURCE_SCREEN)
                        settle_event(&l->a->settle, ev);
                if ((ev->response_type & 0x7f) == XCB_PROPERTY_NOTIFY && p->window == l->a->root &&
                    p->atom == l->client_list)
                        windows = true;
                free(ev);
        }
        return windows && (l->what & MCP_RESOURCE_WINDOWS) ? windows_read(l, true) : 0;
}

static int on_lease_event(const struct inotify_event *ev, void *userdata) {
        bool *changed = userdata;

        if (lease_event_changes(ev))
                *changed = true;
        return 0;
}

/* When the screen wants looking at again (CLOCK_MONOTONIC usec; 0: not before an event), after saying a change
 * once the throttle allows. */
static unsigned long long screen_step(struct listener *l) {
        struct settle *s = &l->a->settle;
        unsigned long long again = settle_poll(s), now = now_usec(), allowed;

        if (!s->last_change)
                return again;
        allowed = l->screen_said ? l->screen_said + MCP_SUBS_SCREEN_MS * 1000ull : 0;
        if (now < allowed)
                return again && again < allowed ? again : allowed;
        mcp_sub_write_updated(l->out, l->sub, l->a->profile, MCP_RESOURCE_SCREEN, NULL);
        l->screen_said = now;
        settle_rearm(s);
        return again;
}

static int listen_loop(struct listener *l) {
        int xfd = l->a->conn ? xcb_get_file_descriptor(l->a->conn) : -EBADF;

        for (;;) {
                struct pollfd p[2] = {
                        { .fd = l->ino, .events = POLLIN },
                        /* Read even for the lease alone: settle's DAMAGE comes all the same, and an X server
                         * whose client reads nothing buffers for it without end. */
                        { .fd = xfd, .events = POLLIN },
                };
                unsigned long long until = 0;
                bool any = false, lease = false;
                int r, timeout = -1;

                if (p[1].fd >= 0) {
                        r = take_events(l, xcb_poll_for_event, &any);
                        if (r < 0)
                                return r;
                        if (xcb_connection_has_error(l->a->conn))
                                return -EIO;
                        if (l->what & MCP_RESOURCE_SCREEN)
                                until = screen_step(l);
                        /* settle's read-back may have queued events the socket no longer announces. */
                        r = take_events(l, xcb_poll_for_queued_event, &any);
                        if (r < 0)
                                return r;
                        if (any)
                                continue;
                        xcb_flush(l->a->conn);
                }
                if (ferror(l->out))
                        return -EPIPE;
                if (until) {
                        unsigned long long now = now_usec(), ms = until > now ? (until - now + 999) / 1000 : 0;

                        timeout = ms > INT_MAX ? INT_MAX : (int) ms;
                }
                if (poll(p, ELEMENTSOF(p), timeout) < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (p[0].revents) {
                        r = inotify_drain(l->ino, on_lease_event, &lease);
                        if (r < 0)
                                return r;
                        if (lease && (l->what & MCP_RESOURCE_LEASE) && (r = lease_said(l)) < 0)
                                return r;
                }
        }
}

_noreturn_ void mcp_listen_child(const char *profile, const struct mcp_sub *sub, int fd, pid_t server) {
        struct agent a = {};
        struct listener l = { .a = &a, .sub = sub, .what = sub->what, .ino = -EBADF };
        int r;

        mcp_child_begin(server, fd);
        /* A server gone mid-line: the write fails rather than the signal killing us unsaid. */
        (void) signal(SIGPIPE, SIG_IGN);
        l.out = fdopen(fd, "w");
        l.ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (!l.out || l.ino < 0 || agent_open(&a, profile) != EXIT_OK)
                _exit(EXIT_FAILED);
        r = listener_setup(&l);
        if (r >= 0) {
                mcp_sub_write_ack(l.out, sub, profile, l.what);
                r = listen_loop(&l);
        }
        /* _exit: the server's memory, copied at the fork, is the server's to free; the pipe's end says we ended. */
        _exit(r < 0 ? EXIT_FAILED : EXIT_OK);
}
