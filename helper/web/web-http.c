/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: one HTTP request per connection. Read the head (bounded in
 * size and time), decide who is asking (ticket or session), answer, close;
 * or hand the socket to a WebSocket stream after the 101 answer.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdarg.h>
#include <strings.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "record.h"
#include "log.h"
#include "util.h"
#include "web.h"
#include "web-conn.h"

#define CONN_READ_MAX 4096
#define RESPONSE_TIMEOUT_USEC (60ULL * 1000000ULL)


void web_conn_free(struct web_conn *c, bool handed_over) {
        struct web_server *s;

        if (!c)
                return;
        s = c->server;
        if (c->prev)
                c->prev->next = c->next;
        else
                s->conns = c->next;
        if (c->next)
                c->next->prev = c->prev;
        web_job_cancel(c->job);
        web_mcp_free(c->mcp);
        web_targets_free(c->targets);
        web_placed_lease_conn_gone(c);
        sd_event_source_disable_unref(c->io);
        sd_event_source_disable_unref(c->timer);
        safe_close(c->file_fd);
        buffer_done(&c->out);
        if (!handed_over) {
                safe_close(c->fd);
                free(c);
                web_server_connection_gone(s);
                return;
        }
        free(c);
}

void web_conns_close_all(struct web_server *s) {
        while (s->conns)
                web_conn_free(s->conns, false);
}

/* ---- responses ------------------------------------------------------------------------------ */

static int conn_flush(struct web_conn *c) {
        ssize_t k = buffer_send(c->fd, &c->out);

        if (k < 0)
                return (int) k;
        if (buffer_len(&c->out) > 0)
                return 0;
        while (c->file_fd >= 0 && c->file_left > 0) {
                ssize_t n = sendfile(c->fd, c->file_fd, NULL, c->file_left > 262144 ? 262144 : (size_t) c->file_left);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return errno == EAGAIN ? 0 : negative_errno();
                }
                if (n == 0)
                        return -EIO; /* the file shrank under us */
                c->file_left -= n;
        }
        return 1;
}

void web_conn_send(struct web_conn *c) {
        int r = conn_flush(c);

        /* A close frame went out: let the peer read it and close first, so
         * that no reset of ours destroys it in flight (RFC 6455 7.1.1). */
        if (r > 0 && c->linger && shutdown(c->fd, SHUT_WR) >= 0) {
                c->responding = false;
                (void) sd_event_source_set_io_events(c->io, EPOLLIN);
                return;
        }
        if (r != 0) {
                /* Sent (or the client is gone): one request per connection. */
                web_conn_free(c, false);
                return;
        }
        (void) sd_event_source_set_io_events(c->io, EPOLLOUT);
}

/* Queue a whole response: status, headers (each ending in CRLF), body. */
void web_respond(struct web_conn *c, unsigned status, const char *type, const char *headers, const void *body,
                    size_t size, off_t file_size) {
        _cleanup_free_ char *head = NULL;

        head = strdup_printf("HTTP/1.1 %u %s\r\n"
                             "Content-Type: %s\r\n"
                             "Content-Length: %lld\r\n"
                             "Connection: close\r\n"
                             "X-Content-Type-Options: nosniff\r\n"
                             "Referrer-Policy: no-referrer\r\n"
                             "%s"
                             "\r\n",
                             status, http_status_text(status), type, (long long) (file_size >= 0 ? file_size : (off_t) size),
                             headers ?: "");
        if (!head) {
                web_conn_free(c, false);
                return;
        }
        buffer_clear(&c->out);
        if (buffer_append(&c->out, head, strlen(head)) < 0 || buffer_append(&c->out, body, size) < 0) {
                web_conn_free(c, false);
                return;
        }
        c->responding = true;
        (void) sd_event_source_set_time_relative(c->timer, RESPONSE_TIMEOUT_USEC);
        web_conn_send(c);
}

static void respond_vtext(struct web_conn *c, unsigned status, const char *headers, const char *fmt, va_list ap)
        _printf_(4, 0);
static void respond_vtext(struct web_conn *c, unsigned status, const char *headers, const char *fmt, va_list ap) {
        _cleanup_free_ char *body = NULL;

        if (vasprintf(&body, fmt, ap) < 0) {
                body = NULL;
                web_conn_free(c, false);
                return;
        }
        web_respond(c, status, "text/plain; charset=utf-8", headers ?: "Cache-Control: no-store\r\n", body, strlen(body), -1);
}

void web_respond_text(struct web_conn *c, unsigned status, const char *headers, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        respond_vtext(c, status, headers, fmt, ap);
        va_end(ap);
}

/*
 * Refuse the request: with an HTTP status, or, when it asks for the stream
 * with a well-formed WebSocket upgrade, with a close code a gateway's client
 * can switch on. The handshake is answered (101) only to carry the close
 * frame: nothing of the desktop is connected or sent.
 */
void web_refuse(struct web_conn *c, unsigned status, uint16_t code, const char *reason, const char *fmt, ...) {
        _cleanup_free_ char *out = NULL;
        size_t size;
        va_list ap;

        out = c->ws ? web_refusal_frames(http_header(&c->req, "Sec-WebSocket-Key"), code, reason, &size) : NULL;
        if (!out) {
                va_start(ap, fmt);
                respond_vtext(c, status, NULL, fmt, ap);
                va_end(ap);
                return;
        }
        log_info("Refused a stream: %u %s.", code, reason);
        buffer_clear(&c->out);
        if (buffer_append(&c->out, out, size) < 0) {
                web_conn_free(c, false);
                return;
        }
        c->responding = c->linger = true;
        (void) sd_event_source_set_time_relative(c->timer, WEB_CLOSE_TIMEOUT_USEC);
        web_conn_send(c);
}

/* ---- routes --------------------------------------------------------------------------------- */

static void serve_lease(struct web_conn *c, const char *profile, struct web_session *session, const char *action) {
        struct web_profile *p;
        struct lease l;
        int r = 0;

        p = web_profile_get(c->server, profile, &r);
        if (!p) {
                web_respond_text(c, r == -ENOENT ? 503 : 500, NULL, "botdesk web: desktop %s is not running.\n", profile);
                return;
        }
        if (p->placed) {
                web_serve_placed_lease(c, p, session, action);
                web_profile_put(p);
                return;
        }
        if (action && streq(action, "take"))
                r = lease_take_at(p->dirfd, session->viewer, "botdesk web", &l);
        else if (action)
                r = lease_release_at(p->dirfd, session->viewer, &l);
        else
                r = lease_read_at(p->dirfd, &l);
        if (r < 0 && action) {
                web_profile_put(p);
                web_respond_text(c, 500, NULL, "botdesk web: cannot change the lease: %s\n", strerror(-r));
                return;
        }
        web_profile_put(p);
        web_respond_lease(c, &l, session ? session->viewer : NULL, session != NULL);
}

static int on_conn_io(sd_event_source *src, int fd, uint32_t revents, void *userdata);

void web_serve_upgrade(struct web_conn *c, const char *profile, struct web_session *session, const void *early,
                       size_t n_early) {
        _cleanup_(helper_record_done) struct helper_record rec = {};
        char accept[WS_ACCEPT_LEN + 1], head[WEB_UPGRADE_HEAD_MAX];
        const char *key = http_header(&c->req, "Sec-WebSocket-Key"), *version = http_header(&c->req, "Sec-WebSocket-Version");
        struct web_profile *p;
        int rfb, r = 0, n;

        if (!http_header_has_token(&c->req, "Upgrade", "websocket") ||
            !http_header_has_token(&c->req, "Connection", "upgrade")) {
                web_respond_text(c, 426, "Upgrade: websocket\r\nConnection: Upgrade\r\n",
                             "botdesk web: this is a WebSocket endpoint.\n");
                return;
        }
        if (!version || !streq(version, "13")) {
                web_respond_text(c, 426, "Sec-WebSocket-Version: 13\r\n", "botdesk web: WebSocket version 13 only.\n");
                return;
        }
        if (!key || ws_accept_key(key, accept) < 0) {
                web_respond_text(c, 400, NULL, "botdesk web: a missing or malformed Sec-WebSocket-Key.\n");
                return;
        }

        p = web_profile_get(c->server, profile, &r);
        if (!p) {
                web_refuse(c, r == -ENOENT ? 503 : 500, WS_CLOSE_DESKTOP_STOPPED, "desktop stopped",
                       "botdesk web: desktop %s is not running.\n", profile);
                return;
        }
        /* Placed: whether it runs is for the far side's `botdesk rfb` to say. */
        if (!p->placed && !p->remote && (helper_record_read_at(p->dirfd, &rec) < 0 || helper_alive(p->dirfd, &rec) <= 0)) {
                web_profile_put(p);
                web_refuse(c, 503, WS_CLOSE_DESKTOP_STOPPED, "desktop stopped",
                       "botdesk web: desktop %s is not running; start it with: botdesk start %s\n", profile, profile);
                return;
        }
        /* While a human holds control, only the holder sees the screen. */
        web_server_lease_changes(c->server);
        if (p->lease.holder == LEASE_HUMAN && !lease_allows_input(&p->lease, session->viewer)) {
                web_profile_put(p);
                web_refuse(c, 409, WS_CLOSE_EVICTED, "control-taken",
                       "botdesk web: a human holds control of %s; watching resumes when it is handed back.\n", profile);
                return;
        }
        /* [web] viewers = one: the newest viewer's stream is the one, the older
         * ones end with 4000 "replaced". A human's hold is untouched: while it
         * lasts only the holder got this far, so a replaced stream was either
         * the holder's own or nobody held control. */
        if (p->one_viewer)
                for (struct web_stream *st = p->streams, *next; st; st = next) {
                        /* A close may end the stream at once (a client already gone). */
                        next = web_stream_next(st);
                        web_stream_close(st, WS_CLOSE_EVICTED, "replaced");
                }
        /* After the upgrade, like every refusal of a stream: a WebSocket client
         * sees a close code (1013, try again later), not a failed handshake. */
        if (p->n_streams >= WEB_STREAMS_PER_PROFILE) {
                web_profile_put(p);
                web_refuse(c, 503, WS_CLOSE_TRY_AGAIN_LATER, "too many viewers",
                           "botdesk web: %s already has %d viewers.\n", profile, WEB_STREAMS_PER_PROFILE);
                return;
        }
        rfb = p->placed || p->remote ? -EBADF : web_rfb_connect(p->dirfd);
        if (rfb < 0 && !p->placed && !p->remote) {
                web_profile_put(p);
                web_respond_text(c, 503, NULL, "botdesk web: cannot connect to the RFB socket of %s: %s\n", profile,
                             strerror(-rfb));
                return;
        }
        n = web_upgrade_head(accept, head);
        /* epoll holds one registration per fd: the stream makes its own. */
        c->io = sd_event_source_disable_unref(c->io);
        r = web_stream_new(c->server, p, session, c->fd, rfb, head, (size_t) n, early, n_early);
        if (r < 0) {
                web_profile_put(p);
                if (sd_event_add_io(c->server->event, &c->io, c->fd, EPOLLOUT, on_conn_io, c) < 0) {
                        web_conn_free(c, false);
                        return;
                }
                web_respond_text(c, 500, NULL, "botdesk web: cannot start the stream: %s\n", strerror(-r));
                return;
        }
        log_info("A viewer connected to %s (%u stream(s)).", profile, p->n_streams);
        web_conn_free(c, true);
}

/*
 * The routes beneath /PROFILE/ (or /PROFILE/SCOPE/ over TCP), first match
 * wins; the last matches every path. A request of another method is
 * answered 405; then, in this order, who is asking, the origin rule, the
 * ticket's redemption, the session rule, and the handler: a ticket is spent
 * only by a request that passed everything else.
 */
struct route_request {
        const char *profile;
        struct web_session *session;    /* NULL: neither ticket nor session */
        const char *cookie;             /* a new session's cookie, else "" */
        bool by_cookie;                 /* only a cookie vouches for the request */
        const char *rel;                /* what follows a prefix route's path */
        const void *early;              /* what the client sent after its request head */
        size_t n_early;
};

struct web_route {
        const char *method;
        const char *path;
        bool prefix;                    /* path starts the request's, else is all of it */
        enum {
                ROUTE_ANY_ORIGIN,
                ROUTE_OWN_ORIGIN,       /* changes state or opens the stream: from our own page only */
        } origin;
        enum {
                ROUTE_SESSION_OVER_TCP, /* a ticket or a session over TCP; free over the Unix socket */
                ROUTE_SESSION,          /* a ticket or a session, whatever the listener */
                ROUTE_BEARER,           /* a bearer token (web-mcp.c), never a ticket or a cookie */
                ROUTE_DEVTOOLS,         /* a DevTools ticket (web-devtools.c), never a viewer's or a cookie */
        } auth;
        void (*serve)(struct web_conn *c, const struct route_request *rq);
};

static void route_take(struct web_conn *c, const struct route_request *rq) {
        serve_lease(c, rq->profile, rq->session, "take");
}

static void route_release(struct web_conn *c, const struct route_request *rq) {
        serve_lease(c, rq->profile, rq->session, "release");
}

static void route_stream(struct web_conn *c, const struct route_request *rq) {
        web_serve_upgrade(c, rq->profile, rq->session, rq->early, rq->n_early);
}

static void route_page(struct web_conn *c, const struct route_request *rq) {
        if (c->spent_ticket)
                /* As after a redemption: on to the page without the ticket. */
                web_respond(c, 303, "text/plain; charset=utf-8", "Location: ./\r\nCache-Control: no-store\r\n", "", 0, -1);
        else
                web_serve_page(c, rq->profile, rq->session, rq->cookie);
}

static void route_script(struct web_conn *c, const struct route_request *rq) {
        web_respond(c, 200, "text/javascript; charset=utf-8", "Cache-Control: no-store\r\n", web_page_script,
                    strlen(web_page_script), -1);
}

static void route_lease(struct web_conn *c, const struct route_request *rq) {
        serve_lease(c, rq->profile, rq->session, NULL);
}

static void route_journal(struct web_conn *c, const struct route_request *rq) {
        web_serve_journal(c, rq->profile, rq->rel);
}

static void route_novnc(struct web_conn *c, const struct route_request *rq) {
        web_serve_static(c, rq->rel, false);
}

static void route_none(struct web_conn *c, const struct route_request *rq) {
        web_respond_text(c, 404, NULL, "botdesk web: no such page.\n");
}

static void route_devtools(struct web_conn *c, const struct route_request *rq) {
        web_devtools_serve(c, rq->profile, NULL, rq->early, rq->n_early);
}

static void route_devtools_page(struct web_conn *c, const struct route_request *rq) {
        web_devtools_serve(c, rq->profile, rq->rel, rq->early, rq->n_early);
}

static void route_devtools_discovery(struct web_conn *c, const struct route_request *rq) {
        web_devtools_discovery(c, rq->profile, rq->rel);
}

static void route_mcp(struct web_conn *c, const struct route_request *rq) {
        web_serve_mcp(c, rq->profile, rq->early, rq->n_early);
}

static const struct web_route routes[] = {
        { "POST", "/mcp",        false, ROUTE_OWN_ORIGIN, ROUTE_BEARER,           route_mcp },
        { "GET",  "/devtools/browser", false, ROUTE_OWN_ORIGIN, ROUTE_DEVTOOLS,   route_devtools },
        { "GET",  "/devtools/page/", true, ROUTE_OWN_ORIGIN, ROUTE_DEVTOOLS,      route_devtools_page },
        { "GET",  "/devtools/",  true,  ROUTE_OWN_ORIGIN, ROUTE_DEVTOOLS,         route_devtools_discovery },
        { "POST", "/take",       false, ROUTE_OWN_ORIGIN, ROUTE_SESSION,          route_take },
        { "POST", "/release",    false, ROUTE_OWN_ORIGIN, ROUTE_SESSION,          route_release },
        { "GET",  "/websockify", false, ROUTE_OWN_ORIGIN, ROUTE_SESSION,          route_stream },
        { "GET",  "/",           false, ROUTE_ANY_ORIGIN, ROUTE_SESSION_OVER_TCP, route_page },
        { "GET",  "/botdesk.js", false, ROUTE_ANY_ORIGIN, ROUTE_SESSION_OVER_TCP, route_script },
        { "GET",  "/lease",      false, ROUTE_ANY_ORIGIN, ROUTE_SESSION_OVER_TCP, route_lease },
        { "GET",  "/journal",    true,  ROUTE_ANY_ORIGIN, ROUTE_SESSION,          route_journal },
        { "GET",  "/novnc/",     true,  ROUTE_ANY_ORIGIN, ROUTE_SESSION_OVER_TCP, route_novnc },
        { "GET",  "",            true,  ROUTE_ANY_ORIGIN, ROUTE_SESSION_OVER_TCP, route_none },
};

static bool route_match(const struct web_route *route, const char *rest, const char **ret_rel) {
        const char *rel = route->prefix ? startswith(rest, route->path) : streq(rest, route->path) ? "" : NULL;

        *ret_rel = rel;
        return rel != NULL;
}

static void route(struct web_conn *c, const void *early, size_t n_early) {
        const char *path = c->req.path, *rest, *method = c->req.method, *rel;
        char profile[PROFILE_NAME_MAX + 1], cookie[65], scope_buf[WEB_SCOPE_LEN + 1], *scope = NULL;
        struct web_session *session;
        const struct web_route *route;
        struct route_request rq;
        bool ticket;
        size_t l;

        l = strcspn(path + 1, "/");
        if (l == 0) {
                web_respond_text(c, 404, NULL, "botdesk web: open /PROFILE/ through a ticket "
                             "(botdesk web ticket PROFILE --viewer ID).\n");
                return;
        }
        if (l > PROFILE_NAME_MAX) {
                web_respond_text(c, 404, NULL, "botdesk web: no such profile.\n");
                return;
        }
        memcpy(profile, path + 1, l);
        profile[l] = 0;
        if (!profile_name_valid(profile)) {
                web_respond_text(c, 404, NULL, "botdesk web: no such profile.\n");
                return;
        }
        rest = path + 1 + l;

        if (streq(rest, "")) {
                /* The page's relative links need the trailing slash; keep the query (a ticket). */
                _cleanup_free_ char *loc = strdup_printf("Location: %s/%s%s\r\n", profile, c->req.query ? "?" : "",
                                                        c->req.query ?: "");
                if (!loc) {
                        web_conn_free(c, false);
                        return;
                }
                web_respond(c, 303, "text/plain; charset=utf-8", loc, "", 0, -1);
                return;
        }
        /* A viewer another site's page embeds: its ticket in the path, whatever the origin (web-embed.c). */
        if ((rel = startswith(rest, "/embed/"))) {
                web_serve_embed(c, profile, rel, early, n_early);
                return;
        }
        /* Over TCP, a session's pages live beneath /PROFILE/SCOPE/ (web-session.c). */
        if (c->server->tcp && rest[0] == '/' && strlen(rest + 1) > WEB_SCOPE_LEN && rest[1 + WEB_SCOPE_LEN] == '/' &&
            web_scope_valid(rest + 1)) {
                memcpy(scope_buf, rest + 1, WEB_SCOPE_LEN);
                scope_buf[WEB_SCOPE_LEN] = 0;
                scope = scope_buf;
                rest += 1 + WEB_SCOPE_LEN;
        }

        for (route = routes; !route_match(route, rest, &rel); route++)
                ;
        c->ws = (route->serve == route_stream || route->serve == route_devtools || route->serve == route_devtools_page) &&
                streq(method, route->method) &&
                http_header_has_token(&c->req, "Upgrade", "websocket") &&
                http_header_has_token(&c->req, "Connection", "upgrade") &&
                streq_ptr(http_header(&c->req, "Sec-WebSocket-Version"), "13");
        if (!web_host_ok(c->server, &c->req)) {
                web_refuse(c, 403, WS_CLOSE_FORBIDDEN, "host refused", "botdesk web: only a loopback Host is served here.\n");
                return;
        }
        if (!streq(method, route->method)) {
                char allow[32];

                snprintf(allow, sizeof allow, "Allow: %s\r\n", route->method);
                web_respond_text(c, 405, allow, "botdesk web: %s only.\n", route->method);
                return;
        }
        if (route->auth == ROUTE_DEVTOOLS) {
                /* Its own ticket in the query: a DevTools client (Playwright, Puppeteer) sends no Origin,
                 * a page of another site is refused. */
                if (!web_origin_ok_for(c, profile, false))
                        return;
                rq = (struct route_request) { .profile = profile, .rel = rel, .early = early, .n_early = n_early };
                route->serve(c, &rq);
                return;
        }
        /* Only an MCP message has a body: any other could only smuggle a second request. */
        if (c->req.content_length > 0 && route->auth != ROUTE_BEARER) {
                web_respond_text(c, 400, NULL, "botdesk web: a malformed request.\n");
                return;
        }
        if (route->auth == ROUTE_BEARER) {
                /* No page of another site may post here (DNS rebinding); an agent's client sends no Origin. */
                if (!web_origin_ok_for(c, profile, false))
                        return;
                rq = (struct route_request) { .profile = profile, .early = early, .n_early = n_early };
                route->serve(c, &rq);
                return;
        }
        if (web_authorize(c, profile, scope, &session, &ticket) != 0)
                return;
        cookie[0] = 0;
        if (route->origin == ROUTE_OWN_ORIGIN && !web_origin_ok_for(c, profile, session && !ticket))
                return;
        if (ticket && web_redeem(c, profile, &session, cookie) != 0)
                return;
        rq = (struct route_request) {
                .profile = profile,
                .session = session,
                .cookie = cookie,
                .by_cookie = session && !cookie[0],
                .rel = rel,
                .early = early,
                .n_early = n_early,
        };
        if ((route->auth == ROUTE_SESSION || c->server->tcp) && web_need_auth(c, session, profile))
                return;
        route->serve(c, &rq);
}

/* ---- the connection ------------------------------------------------------------------------- */

static int on_conn_io(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        struct web_conn *c = userdata;
        uint8_t buf[CONN_READ_MAX];
        size_t used;
        ssize_t n;
        int r;

        if (web_mcp_relaying(c)) {
                web_mcp_client_io(c, revents);
                return 0;
        }
        if (c->responding) {
                web_conn_send(c);
                return 0;
        }
        n = recv(c->fd, buf, sizeof buf, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
        if (n <= 0) {
                web_conn_free(c, false);
                return 0;
        }
        if (c->linger)
                return 0; /* the peer's close frame, or anything: read until it closes */
        if (c->mcp) {
                web_mcp_feed(c, buf, (size_t) n);
                return 0;
        }
        if (c->job || c->ask || c->targets)
                return 0; /* one request per connection: its answer is on its way */
        r = http_request_feed(&c->req, buf, (size_t) n, &used);
        if (r == -E2BIG) {
                web_respond_text(c, 431, NULL, "botdesk web: the request head is too long.\n");
                return 0;
        }
        if (r == -EFBIG) {
                web_respond_text(c, 413, NULL, "botdesk web: the request body is over 1 MiB.\n");
                return 0;
        }
        if (r < 0) {
                web_respond_text(c, 400, NULL, "botdesk web: a malformed request.\n");
                return 0;
        }
        if (r == 0)
                return 0;
        route(c, buf + used, (size_t) n - used);
        return 0;
}

static int on_conn_timeout(sd_event_source *src, uint64_t usec, void *userdata) {
        web_conn_free(userdata, false);
        return 0;
}

/* The oldest connection still sending its head, of peer (NULL: any); its peer's count in *ret_n. */
static struct web_conn *oldest_idle(struct web_server *s, const char *peer, unsigned *ret_n) {
        struct web_conn *oldest = NULL;
        unsigned n = 0;

        for (struct web_conn *c = s->conns; c; c = c->next)
                if (!c->responding && (!peer || streq(c->peer, peer))) {
                        oldest = c;
                        n++;
                }
        *ret_n = n;
        return oldest;
}

bool web_conns_make_room(struct web_server *s, const char *peer) {
        struct web_conn *victim = NULL;
        unsigned n, most = 0;

        /* A peer past its share makes room among its own: it cannot crowd out others. */
        victim = oldest_idle(s, peer, &n);
        if (n >= WEB_CONNECTIONS_PER_PEER) {
                web_conn_free(victim, false);
                return true;
        }
        if (s->n_connections < WEB_CONNECTIONS_MAX)
                return true;
        /* Full: the peer holding the most idle connections gives up its oldest. */
        victim = NULL;
        for (struct web_conn *c = s->conns; c; c = c->next) {
                struct web_conn *o;

                if (c->responding)
                        continue;
                o = oldest_idle(s, c->peer, &n);
                if (n > most) {
                        most = n;
                        victim = o;
                }
        }
        if (!victim)
                return false;
        web_conn_free(victim, false);
        return true;
}

int web_conn_new(struct web_server *s, int fd, const char *peer) {
        struct web_conn *c;
        int r;

        c = malloc(sizeof *c);
        if (!c) {
                safe_close(fd);
                return -ENOMEM;
        }
        *c = (struct web_conn) { .server = s, .fd = fd, .out = BUFFER_GROWABLE(WEB_RESPONSE_MAX), .file_fd = -EBADF };
        snprintf(c->peer, sizeof c->peer, "%s", peer);
        http_request_init(&c->req);
        c->req.body_max = WEB_BODY_MAX;
        s->n_connections++;
        c->next = s->conns;
        if (s->conns)
                s->conns->prev = c;
        s->conns = c;

        r = sd_event_add_io(s->event, &c->io, fd, EPOLLIN, on_conn_io, c);
        if (r >= 0)
                r = sd_event_add_time_relative(s->event, &c->timer, CLOCK_MONOTONIC, WEB_REQUEST_TIMEOUT_USEC, 0,
                                               on_conn_timeout, c);
        if (r < 0) {
                web_conn_free(c, false);
                return r;
        }
        return 0;
}
