/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: GET /PROFILE/devtools/browser?ticket=T, the desktop's
 * browser for a DevTools client (Playwright's connectOverCDP, Puppeteer's
 * connect), and GET /PROFILE/devtools/page/ID?ticket=T, one page of it as
 * its own connection (what /json/list names: chrome-remote-interface and
 * the like): a WebSocket whose text messages are CDP's, relayed to the
 * browser's 0600 socket RUNTIME/cdp.sock (botdesk-browser), where each
 * message is JSON text ended by a NUL byte. No TCP port is ever opened on
 * the desktop's browser: this listener, with its single-use DevTools
 * tickets (ticket.h, KIND=devtools), is the one way in from outside.
 *
 * The relay never collects a message: client frames go on to the socket
 * as they arrive, a NUL after each message's last bytes (a NUL inside a
 * message would end it early and start another the client did not write:
 * refused, 1007); the browser's bytes go out as they come, as fragments of
 * one text message up to each NUL. So a page's 20 MB screenshot passes
 * through the fixed buffers below without a copy of its size, and a slow
 * reader only stops the socket from being read. What the browser's side
 * decides stays there: the lease's fence (a human's control answers every
 * command with human_has_control) and the number of clients.
 *
 * A desktop placed elsewhere (placement = exec, or a container botdesk
 * made) has its socket there: `botdesk cdp P` (verb-cdp.c), run through the
 * prefix as a child of the CLI (web-placed.c), carries the same bytes on a
 * socketpair, and its exit status says why the browser's side ended.
 */
#include <fcntl.h>
#include <sys/param.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "log.h"
#include "record.h"
#include "socket-util.h"
#include "util.h"
#include "web.h"
#include "web-conn.h"
#include "web-out.h"

#define IN_SIZE (64 * 1024)
#define UP_SIZE (64 * 1024 + 1)
#define FROM_SIZE (64 * 1024)
/* The longest frame a DevTools client may send; it is streamed, never held whole. */
#define DEVTOOLS_FRAME_MAX (256ULL * 1024 * 1024)

struct web_devtools {
        struct web_server *server;
        char profile[PROFILE_NAME_MAX + 1];
        int fd, cdp;
        sd_event_source *io, *cdp_io, *timer;
        struct ws_parser ws;
        bool client_eof, close_sent, close_received;
        bool down_in_message;           /* a browser message is open: its next bytes continue it */

        struct buffer in;               /* the client's frames, not yet parsed */
        struct buffer up;               /* its messages for the browser, each ended by a NUL */
        struct buffer from;             /* the browser's bytes not yet framed */
        struct web_out down;            /* to the client */
        uint8_t in_storage[IN_SIZE];
        uint8_t up_storage[UP_SIZE];
        uint8_t from_storage[FROM_SIZE];

        struct web_job *job;            /* placed: `botdesk cdp P` on the other end of cdp */

        struct web_devtools *prev, *next;
};

static void devtools_update(struct web_devtools *d);

static void devtools_free(struct web_devtools *d) {
        struct web_server *s = d->server;

        if (d->prev)
                d->prev->next = d->next;
        else
                s->devtools = d->next;
        if (d->next)
                d->next->prev = d->prev;
        web_job_cancel(d->job);
        sd_event_source_disable_unref(d->io);
        sd_event_source_disable_unref(d->cdp_io);
        sd_event_source_disable_unref(d->timer);
        safe_close(d->fd);
        safe_close(d->cdp);
        log_info("A DevTools client of %s is gone.", d->profile);
        free(d);
        web_server_connection_gone(s);
}

static void cdp_gone(struct web_devtools *d) {
        d->cdp_io = sd_event_source_disable_unref(d->cdp_io);
        d->cdp = safe_close(d->cdp);
}

/* Queue the close frame; nothing more goes to or comes from the browser. */
static void devtools_close(struct web_devtools *d, uint16_t code, const char *reason) {
        if (d->close_sent)
                return;
        log_info("Closing a DevTools connection of %s: %u %s.", d->profile, code, reason);
        web_out_close(&d->down, code, reason);
        d->close_sent = true;
        cdp_gone(d);
        (void) sd_event_source_set_time_relative(d->timer, WEB_CLOSE_TIMEOUT_USEC);
        (void) sd_event_source_set_enabled(d->timer, SD_EVENT_ONESHOT);
}

void web_devtools_close_all(struct web_server *s, uint16_t code, const char *reason) {
        for (struct web_devtools *d = s->devtools, *next; d; d = next) {
                next = d->next;
                devtools_close(d, code, reason);
                devtools_update(d);
        }
}

/* ---- buffers -------------------------------------------------------------------------------- */

/* The room for the client's next chunk: all of it, at the end. */
static size_t up_room(struct web_devtools *d) {
        return buffer_compact(&d->up);
}

static int flush_client(struct web_devtools *d) {
        return web_out_flush(&d->down, d->fd);
}

/* ---- the client's messages ------------------------------------------------------------------ */

static void process_in(struct web_devtools *d) {
        while (buffer_len(&d->in) > 0 && !d->close_received && !d->close_sent) {
                size_t room = up_room(d), give = buffer_len(&d->in), used;
                struct ws_event ev;
                int r;

                /* Each chunk of data goes on whole, with room for the NUL that may end its message. */
                if (room < 2)
                        return;
                if (give > room - 1)
                        give = room - 1;
                r = ws_parser_feed(&d->ws, buffer_data(&d->in), give, &ev, &used);
                buffer_consume(&d->in, used);
                if (r < 0) {
                        const char *why;
                        uint16_t code = ws_parser_error(&d->ws, &why);

                        buffer_clear(&d->in);
                        devtools_close(d, code, why);
                        return;
                }
                switch (ev.type) {
                case WS_EVENT_NONE:
                        if (used == 0)
                                return;
                        break;
                case WS_EVENT_DATA:
                        if (memchr(ev.data, 0, ev.size)) {
                                buffer_clear(&d->in);
                                devtools_close(d, WS_CLOSE_INVALID_PAYLOAD, "a NUL byte in a DevTools message");
                                return;
                        }
                        /* Within the room: give left one byte for the NUL. */
                        (void) buffer_append(&d->up, ev.data, ev.size);
                        if (ev.end)
                                (void) buffer_append(&d->up, "", 1);
                        break;
                case WS_EVENT_PING:
                        web_out_pong(&d->down, ev.data, ev.size);
                        break;
                case WS_EVENT_PONG:
                        break;
                case WS_EVENT_CLOSE:
                        d->close_received = true;
                        devtools_close(d, ev.code == WS_CLOSE_NO_STATUS ? WS_CLOSE_NORMAL : ev.code,
                                       d->close_sent ? "" : "closed by the client");
                        return;
                }
        }
}

static void read_client(struct web_devtools *d) {
        ssize_t n = buffer_recv(d->fd, &d->in);

        if (n == -EAGAIN || n == -ENOBUFS)
                return;
        if (n <= 0) {
                d->client_eof = true;
                return;
        }
        process_in(d);
}

/* ---- the browser's messages ----------------------------------------------------------------- */

/* One fragment of the browser's current message; fin when it is its last. */
static void down_fragment(struct web_devtools *d, const uint8_t *p, size_t n, bool fin) {
        uint8_t h[WS_HEADER_MAX];
        size_t hl = ws_frame_header(d->down_in_message ? WS_OP_CONTINUATION : WS_OP_TEXT, n, h);

        if (!fin)
                h[0] &= 0x7f;
        web_out_append(&d->down, h, hl);
        web_out_append(&d->down, p, n);
        d->down_in_message = !fin;
}

/* Frame what the browser sent, as far as the outgoing buffer takes it: the rest waits in from. */
static void frame_from(struct web_devtools *d) {
        while (buffer_len(&d->from) > 0) {
                const uint8_t *at = buffer_data(&d->from);
                const uint8_t *nul = memchr(at, 0, buffer_len(&d->from));
                size_t len = nul ? (size_t) (nul - at) : buffer_len(&d->from), room = web_out_room(&d->down), chunk;

                if (room < WS_HEADER_MAX + WEB_OUT_CONTROL_RESERVE + 1)
                        return;
                chunk = MIN(len, room - WS_HEADER_MAX - WEB_OUT_CONTROL_RESERVE);
                if (chunk == len && nul) {
                        /* The message's end: its last fragment may be empty; an empty message is none. */
                        if (len > 0 || d->down_in_message)
                                down_fragment(d, at, len, true);
                        buffer_consume(&d->from, len + 1);
                        continue;
                }
                if (chunk == 0)
                        return;
                down_fragment(d, at, chunk, false);
                buffer_consume(&d->from, chunk);
        }
}

static void read_cdp(struct web_devtools *d) {
        ssize_t n = buffer_recv(d->cdp, &d->from);

        if (n == -EAGAIN || n == -ENOBUFS)
                return;
        if (n <= 0) {
                /* The browser exited, or its launcher refused or dropped this client (after saying why
                 * in a message, framed first). Placed: why is the exit status of botdesk cdp, soon. */
                frame_from(d);
                if (d->job)
                        cdp_gone(d);
                else
                        devtools_close(d, WS_CLOSE_NORMAL, "the browser closed the connection");
                return;
        }
        frame_from(d);
}

/* ---- events --------------------------------------------------------------------------------- */

static void devtools_update(struct web_devtools *d) {
        uint32_t client = 0, cdp = 0;
        bool out_pending;

        if (flush_client(d) < 0)
                d->client_eof = true;
        /* What waited for room goes now that some left, and out with it. */
        if (!d->close_sent && buffer_len(&d->from) > 0) {
                frame_from(d);
                if (flush_client(d) < 0)
                        d->client_eof = true;
        }
        if (d->cdp >= 0 && buffer_send(d->cdp, &d->up) < 0)
                devtools_close(d, WS_CLOSE_NORMAL, "the browser closed the connection");

        out_pending = web_out_pending(&d->down);
        if (d->client_eof || (d->close_sent && d->close_received && !out_pending)) {
                devtools_free(d);
                return;
        }
        if (!buffer_full(&d->in) && !d->close_received)
                client |= EPOLLIN;
        if (out_pending)
                client |= EPOLLOUT;
        if (d->cdp >= 0) {
                if (!buffer_full(&d->from))
                        cdp |= EPOLLIN;
                if (buffer_len(&d->up) > 0)
                        cdp |= EPOLLOUT;
        }
        web_set_events(d->io, client);
        web_set_events(d->cdp_io, cdp);
}

static int on_client(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        struct web_devtools *d = userdata;

        if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR))
                read_client(d);
        process_in(d);
        devtools_update(d);
        return 0;
}

static int on_cdp(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        struct web_devtools *d = userdata;

        if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR))
                read_cdp(d);
        if (d->cdp >= 0 && buffer_send(d->cdp, &d->up) >= 0)
                process_in(d);
        devtools_update(d);
        return 0;
}

static int on_timer(sd_event_source *src, uint64_t usec, void *userdata) {
        /* Armed only by a close: the client never answered it. */
        devtools_free(userdata);
        return 0;
}

/* ---- a placed desktop's browser ------------------------------------------------------------ */

/* botdesk cdp ended there: the browser's side is over, and its exit status says how. */
static void on_cdp_job_done(int status, const char *out, const char *err, void *userdata) {
        struct web_devtools *d = userdata;

        d->job = NULL;
        if (status == 0)
                devtools_close(d, WS_CLOSE_NORMAL, "the browser closed the connection");
        else if (status == 4)           /* the CLI's EXIT_NOT_RUNNING */
                devtools_close(d, WS_CLOSE_DESKTOP_STOPPED, "desktop stopped");
        else if (status == 3)           /* EXIT_REFUSED: the placement refuses it */
                devtools_close(d, WS_CLOSE_POLICY, "refused there");
        else {
                log_warning("The DevTools of %s through its exec prefix ended (exit %d): %s", d->profile, status,
                            err[0] ? err : "no message");
                devtools_close(d, WS_CLOSE_TRY_AGAIN_LATER, "no browser");
        }
        devtools_update(d);
}

/* `botdesk cdp P` through the prefix, its stdio one end of a socketpair; the other end in *ret_cdp. */
static int cli_cdp_start(struct web_devtools *d, int *ret_cdp) {
        char *args[] = { (char *) "cdp", d->profile, NULL };

        return web_job_start_stream(d->server, args, on_cdp_job_done, d, &d->job, ret_cdp);
}

/* ---- the upgrade ---------------------------------------------------------------------------- */

/* cdp < 0: the profile is placed, and its browser is reached through botdesk cdp. target: a page's id, whose
 * own connection this is (the relay's botdesk.attachRoot makes it the root, cdp-relay.h), or NULL: the browser. */
static int devtools_new(struct web_server *s, const char *profile, const char *target, int fd, int cdp,
                        const char *head, size_t n_head, const void *early, size_t n_early) {
        struct web_devtools *d;
        int r;

        if (n_early > IN_SIZE || n_head + WEB_OUT_CONTROL_RESERVE > WEB_OUT_SIZE)
                return -E2BIG;
        d = calloc(1, sizeof *d);
        if (!d)
                return -ENOMEM;
        /* calloc()ed: set field by field, no struct of buffers on the stack. */
        d->server = s;
        d->fd = fd;
        d->cdp = cdp;
        (void) strscpy(d->profile, sizeof d->profile, profile);
        ws_parser_init_text(&d->ws, DEVTOOLS_FRAME_MAX);
        d->in = BUFFER_FIXED(d->in_storage);
        d->up = BUFFER_FIXED(d->up_storage);
        d->from = BUFFER_FIXED(d->from_storage);
        web_out_init(&d->down);
        web_out_append(&d->down, head, n_head);
        /* Before anything the client says: what it says is the page's. */
        if (target) {
                int n = snprintf((char *) buffer_tail(&d->up), UP_SIZE,
                                 "{\"id\":0,\"method\":\"botdesk.attachRoot\",\"params\":{\"targetId\":\"%s\"}}", target);

                buffer_advance(&d->up, (size_t) n + 1);     /* its NUL ends it on the socket */
        }
        (void) buffer_append(&d->in, early, n_early);    /* at most IN_SIZE: checked above */
        r = cdp >= 0 ? 0 : cli_cdp_start(d, &d->cdp);
        if (r >= 0)
                r = sd_event_add_io(s->event, &d->io, fd, EPOLLIN | EPOLLOUT, on_client, d);
        if (r >= 0)
                r = sd_event_add_io(s->event, &d->cdp_io, d->cdp, EPOLLIN, on_cdp, d);
        if (r >= 0)
                r = sd_event_add_time_relative(s->event, &d->timer, CLOCK_MONOTONIC, WEB_CLOSE_TIMEOUT_USEC, 0, on_timer,
                                               d);
        if (r >= 0)
                r = sd_event_source_set_enabled(d->timer, SD_EVENT_OFF);
        if (r < 0) {
                web_job_cancel(d->job);
                sd_event_source_disable_unref(d->io);
                sd_event_source_disable_unref(d->cdp_io);
                sd_event_source_disable_unref(d->timer);
                if (cdp < 0)
                        safe_close(d->cdp);     /* ours; a given one stays the caller's on failure */
                free(d);
                return r;
        }
        d->next = s->devtools;
        if (d->next)
                d->next->prev = d;
        s->devtools = d;
        process_in(d);
        devtools_update(d);
        return 0;
}

int web_devtools_browser(struct web_conn *c, const char *profile, int *ret_cdp) {
        _cleanup_(helper_record_done) struct helper_record rec = {};
        struct web_profile *p;
        struct stat st;
        int r = 0, cdp;

        p = web_profile_get(c->server, profile, &r);
        if (!p) {
                web_refuse(c, r == -ENOENT ? 503 : 500, WS_CLOSE_DESKTOP_STOPPED, "desktop stopped",
                           "botdesk web: desktop %s is not running.\n", profile);
                return r < 0 ? r : -ENOENT;
        }
        if (p->placed) {
                /* Its browser is there: botdesk cdp finds it, or says why not, once the client is upgraded
                 * (asking first would cost a trip through the prefix for every request). */
                web_profile_put(p);
                if (ret_cdp)
                        *ret_cdp = -EBADF;
                return 0;
        }
        if (helper_record_read_at(p->dirfd, &rec) < 0 || helper_alive(p->dirfd, &rec) <= 0) {
                web_profile_put(p);
                web_refuse(c, 503, WS_CLOSE_DESKTOP_STOPPED, "desktop stopped",
                           "botdesk web: desktop %s is not running; start it with: botdesk start %s\n", profile, profile);
                return -ESRCH;
        }
        /* A Unix socket connects at once or refuses at once; a look that stays one only asks it is there. */
        if (ret_cdp)
                cdp = socket_connect_at(p->dirfd, "cdp.sock", SOCK_STREAM | SOCK_NONBLOCK);
        else
                cdp = fstatat(p->dirfd, "cdp.sock", &st, AT_SYMLINK_NOFOLLOW) < 0 ? negative_errno()
                      : S_ISSOCK(st.st_mode) ? 0 : -ENOTSOCK;
        web_profile_put(p);
        if (cdp < 0) {
                web_refuse(c, 503, WS_CLOSE_TRY_AGAIN_LATER, "no browser",
                           "botdesk web: %s has no browser with DevTools running (%s); it starts with the dock's "
                           "browser, or botdesk exec %s -- botdesk-browser.\n",
                           profile, strerror(-cdp), profile);
                return cdp;
        }
        if (ret_cdp)
                *ret_cdp = cdp;
        return 0;
}

bool web_devtools_target_valid(const char *target) {
        size_t n = strlen(target);

        if (n == 0 || n > WEB_DEVTOOLS_TARGET_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((target[i] >= '0' && target[i] <= '9') || (target[i] >= 'A' && target[i] <= 'Z') ||
                      (target[i] >= 'a' && target[i] <= 'z')))
                        return false;
        return true;
}

void web_devtools_serve(struct web_conn *c, const char *profile, const char *target, const void *early,
                        size_t n_early) {
        const char *key = http_header(&c->req, "Sec-WebSocket-Key");
        char accept[WS_ACCEPT_LEN + 1], head[WEB_UPGRADE_HEAD_MAX], token[TICKET_TOKEN_LEN + 2];
        _cleanup_close_ int cdp = -EBADF;
        struct ticket t;
        int r = 0, n;

        if (!c->ws) {
                web_respond_text(c, 426, "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n",
                                 "botdesk web: this is the DevTools WebSocket of %s's browser "
                                 "(botdesk browser %s endpoint prints its URL).\n", profile, profile);
                return;
        }
        if (!key || ws_accept_key(key, accept) < 0) {
                web_respond_text(c, 400, NULL, "botdesk web: a missing or malformed Sec-WebSocket-Key.\n");
                return;
        }
        if (target && !web_devtools_target_valid(target)) {
                web_refuse(c, 404, WS_CLOSE_POLICY, "no such page",
                           "botdesk web: no such page; /json/list names the browser's pages.\n");
                return;
        }
        r = http_query_get(c->req.query, "ticket", token, sizeof token);
        r = r <= 0 ? -EINVAL : ticket_check_devtools_at(c->server->ticket_dirfd, token, profile, realtime_usec(), &t);
        if (r < 0) {
                const char *why = ticket_problem(r);

                explicit_bzero(token, sizeof token);
                log_info("Refused a DevTools ticket for %s: %s.", profile, why);
                web_refuse(c, 403, WS_CLOSE_BAD_TICKET, why,
                           "botdesk web: this DevTools ticket is %s; ask for a new URL (botdesk browser %s endpoint).\n",
                           why, profile);
                return;
        }

        r = web_devtools_browser(c, profile, &cdp);
        if (r < 0) {
                explicit_bzero(token, sizeof token);
                return;
        }
        /* Everything else passed: the ticket is spent now, by this one request. */
        r = ticket_redeem_devtools_at(c->server->ticket_dirfd, token, profile, realtime_usec(), &t);
        explicit_bzero(token, sizeof token);
        if (r < 0) {
                web_refuse(c, 403, WS_CLOSE_BAD_TICKET, ticket_problem(r),
                           "botdesk web: this DevTools ticket was used meanwhile.\n");
                return;
        }

        n = web_upgrade_head(accept, head);
        /* epoll holds one registration per fd: the relay makes its own. */
        c->io = sd_event_source_disable_unref(c->io);
        r = devtools_new(c->server, profile, target, c->fd, cdp, head, (size_t) n, early, n_early);
        if (r < 0) {
                log_warning_errno(r, "Cannot start a DevTools relay for %s: %m", profile);
                web_conn_free(c, false);
                return;
        }
        TAKE_FD(cdp);
        log_info("A DevTools client connected to %s's browser%s%s.", profile, target ? ", page " : "", target ?: "");
        web_conn_free(c, true);
}
