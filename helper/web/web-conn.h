/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One HTTP request of botdesk web, inside web/: the connection, and how
 * web-http.c (the connection, who is asking, the routes) and web-pages.c
 * (the page, its static files, the journal) answer on it.
 */
#include <stdarg.h>
#include <sys/types.h>

#include "buffer.h"
#include "web.h"

struct web_mcp;

struct web_conn {
        struct web_server *server;
        int fd;
        sd_event_source *io;
        sd_event_source *timer;
        struct http_request req;
        struct buffer out;              /* the response head and its body, or a refusal's frames */
        int file_fd;                    /* a static file that follows, sent with sendfile() */
        off_t file_left;
        bool responding;
        bool ws;                        /* a well-formed WebSocket upgrade of the stream: refused with a close code */
        bool linger;                    /* after the response, wait for the peer to close (a close frame was sent) */
        bool spent_ticket;              /* a spent ticket, answered for by the same browser's session */
        struct web_job *job;            /* a placed profile's lease, asked of the far side */
        struct web_lease_ask *ask;      /* or the GET of it, shared with others (web-placed-lease.c) */
        struct web_mcp *mcp;            /* POST /PROFILE/mcp: its body, then its child (web-mcp.c) */
        struct web_targets *targets;    /* GET .../json/list: the browser asked (web-devtools-list.c) */
        char viewer[LEASE_VIEWER_MAX + 1]; /* for that job's answer: whose "you" it is */
        char profile[PROFILE_NAME_MAX + 1];
        bool session;                   /* the request had a session (the answer's "ticket") */
        char peer[WEB_PEER_MAX];        /* who connected: its address (TCP) or uid (Unix) */
        struct web_conn *prev, *next;   /* newest first */
};

/* A response is built whole before it goes out: none comes near this (static files go by sendfile()). */
#define WEB_RESPONSE_MAX (256u * 1024 * 1024)

void web_conn_free(struct web_conn *c, bool handed_over);
/* Send what c->out holds (c->responding set), then end the connection. */
void web_conn_send(struct web_conn *c);

/* The longest request body taken: an MCP message (web-mcp.c); every other request has none. */
#define WEB_BODY_MAX (1u << 20)

/* Queue a whole response: status, headers (each ending in CRLF), body, or a
 * file of file_size bytes at c->file_fd that follows it (sendfile). */
void web_respond(struct web_conn *c, unsigned status, const char *type, const char *headers, const void *body,
                 size_t size, off_t file_size);
void web_respond_text(struct web_conn *c, unsigned status, const char *headers, const char *fmt, ...) _printf_(4, 5);

/*
 * Refuse the request: with an HTTP status, or, when it asks for the stream
 * with a well-formed WebSocket upgrade, with a close code a gateway's client
 * can switch on.
 */
void web_refuse(struct web_conn *c, unsigned status, uint16_t code, const char *reason, const char *fmt, ...)
        _printf_(5, 6);

/* ---- web-authorize.c: who is asking, in the order web-http.c's route() asks ---- */
/*
 * 0 with the cookie's session in *ret_session (or NULL) and whether a good
 * ticket waits in the query (*ret_ticket); else an HTTP status, answered.
 * Spends nothing.
 */
int web_authorize(struct web_conn *c, const char *profile, const char *scope, struct web_session **ret_session,
                  bool *ret_ticket);
/* Whether the request's Origin passes for profile; else false, having answered 403 (or 4403). */
bool web_origin_ok_for(struct web_conn *c, const char *profile, bool by_cookie);
/* Spend the ticket web_authorize() found: 0 with the new session and its cookie; else a status, answered. */
int web_redeem(struct web_conn *c, const char *profile, struct web_session **ret_session, char *ret_cookie);
/* True when the request has no session, having answered 401 (or 4401). */
bool web_need_auth(struct web_conn *c, struct web_session *session, const char *profile);

/* ---- web-devtools.c ---- */
/* A page's id as Chromium writes them (32 hex digits): letters and digits, at most this many. */
#define WEB_DEVTOOLS_TARGET_MAX 64
bool web_devtools_target_valid(const char *target);
/* GET /PROFILE/devtools/browser?ticket=T (target NULL), or /PROFILE/devtools/page/TARGET?ticket=T: the upgrade
 * checked, the ticket spent, the relay to RUNTIME/cdp.sock started (it takes the connection); else refused with a
 * status, or a close code on a WebSocket upgrade. */
void web_devtools_serve(struct web_conn *c, const char *profile, const char *target, const void *early,
                        size_t n_early);
/* profile's browser as a DevTools client reaches it here (running, not placed, its launcher's cdp.sock there):
 * 0, with *ret_cdp a connection to that socket (NULL: only that it is there); else refused on c (a status, or a
 * close code on an upgrade) and negative. */
int web_devtools_browser(struct web_conn *c, const char *profile, int *ret_cdp);

/* ---- web-devtools-list.c ---- */
struct web_targets;
/* GET .../json/list (its ticket spent): the browser's targets as Chromium lists them, each page with the WebSocket
 * URL of its own connection and a ticket of its own, at host; answered on c once the browser has said. */
void web_devtools_list(struct web_conn *c, const char *profile, const char *host);
void web_targets_free(struct web_targets *t);

/* ---- web-discovery.c ---- */
/* GET /PROFILE/devtools/REL, REL "TICKET/json/version[/]": Chromium's discovery document, its WebSocket URL with
 * a fresh single-use ticket, the one in the path spent; else refused with a status. */
void web_devtools_discovery(struct web_conn *c, const char *profile, const char *rel);

/* ---- web-placed-lease.c ---- */
/* GET lease (action NULL), POST take or release, of placed profile p, answered when the far side has. */
void web_serve_placed_lease(struct web_conn *c, struct web_profile *p, struct web_session *session, const char *action);
/* c goes: it no longer waits for a shared GET of a lease (the last one to go ends it). */
void web_placed_lease_conn_gone(struct web_conn *c);

/* ---- web-mcp.c ---- */
/* POST /PROFILE/mcp: the bearer token judged, the body read (early: what came with the head), then relayed. */
void web_serve_mcp(struct web_conn *c, const char *profile, const void *early, size_t n_early);
/* More of that request's body. */
void web_mcp_feed(struct web_conn *c, const void *data, size_t n);
/* Whether c's client is the relay's now (its request whole): web_mcp_client_io() takes its events. */
bool web_mcp_relaying(const struct web_conn *c);
void web_mcp_client_io(struct web_conn *c, uint32_t revents);
/* The kept server host ended (status, its last words): c, when its request went there, answered if it was not. */
void web_mcp_host_gone(struct web_conn *c, const struct web_mcp_host *host, int status, const char *last_words);
void web_mcp_free(struct web_mcp *m);

/* ---- web-pages.c ---- */
/* The lease as JSON (web_lease_json()): whose "you" is viewer, "ticket" is session. */
void web_respond_lease(struct web_conn *c, const struct lease *l, const char *viewer, bool session);
void web_serve_page(struct web_conn *c, const char *profile, struct web_session *session, const char *cookie);
/* noVNC's file rel; any_origin: with Access-Control-Allow-Origin: * (an embedded viewer's modules). */
void web_serve_static(struct web_conn *c, const char *rel, bool any_origin);
void web_serve_journal(struct web_conn *c, const char *profile, const char *rel);

/* ---- web-embed.c ---- */
/* /PROFILE/embed/rel: noVNC and one watch-only stream for a viewer another site's page embeds. */
void web_serve_embed(struct web_conn *c, const char *profile, const char *rel, const void *early, size_t n_early);

/* ---- web-http.c ---- */
/* The stream's WebSocket upgrade for session's viewer, the desktop found running and the rules of viewers applied. */
void web_serve_upgrade(struct web_conn *c, const char *profile, struct web_session *session, const void *early,
                       size_t n_early);
