/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * botdesk web: the internals shared by its files. One sd-event loop per
 * user serves, on one listener (a 0600 Unix socket by default, or a
 * loopback TCP port), for every profile of that user:
 *
 *   GET  /PROFILE/             the botdesk page around noVNC (web-page.c)
 *   GET  /PROFILE/novnc/...    noVNC's static files, opened beneath its dir
 *   GET  /PROFILE/lease        who holds control, as JSON
 *   POST /PROFILE/take         this viewer takes control
 *   POST /PROFILE/release      this viewer hands control back
 *   GET  /PROFILE/websockify   RFB over a WebSocket (web-stream.c)
 *   GET  /PROFILE/devtools/browser  the browser's DevTools over a WebSocket, by a DevTools ticket
 *                              (web-devtools.c)
 *
 * Who is asking: a single-use ticket (ticket.h) in ?ticket= is redeemed by
 * the first request that carries it and becomes a session, a 256-bit random
 * cookie held only in this process's memory, bound to the ticket's profile
 * and viewer (web-session.c). Over TCP every request needs one or the
 * other, and a session's cookie counts only beneath its own random path,
 * /PROFILE/SCOPE/..., where its pages then live; over the Unix socket (a
 * gateway's reverse proxy in front) the page and files are free, and the
 * buttons and the stream need them too. Take, release and the stream must
 * also come from our own origin (web-http.c, origin_ok()).
 *
 * Files: web-server.c (loop, listener, limits, shutdown), web-profile.c
 * (a profile's lease, its watch, its deadline when no viewer is left),
 * web-http.c (one HTTP request per connection, the table of routes, responses,
 * refusals: an HTTP status, or a close code on a WebSocket upgrade),
 * web-auth.c (Host and Origin), web-static.c (noVNC's files, the lease
 * as JSON, the RFB socket),
 * web-stream.c (the WebSocket-RFB bridge), web-devtools.c (the DevTools relay), web-out.c (their way out to
 * the client: frames and control frames in one fixed buffer), web-session.c, web-page.c;
 * for a profile placed through an exec prefix, web-placed.c (children of
 * the CLI that run the verbs there) and web-placed-lease.c (its lease routes).
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "http.h"
#include "lease.h"
#include "profile.h"
#include "ticket.h"
#include "web-server.h"
#include "websocket.h"

#define WEB_CONNECTIONS_MAX 256                 /* HTTP connections and streams, per server */
#define WEB_CONNECTIONS_PER_PEER 32            /* of those, still sending their request head, per peer */
#define WEB_PEER_MAX 64                         /* "ip:ADDRESS" or "uid:N" */
#define WEB_STREAMS_PER_PROFILE 16
#define WEB_SESSIONS_MAX 256
#define WEB_FRAME_MAX (1024 * 1024)             /* the longest WebSocket frame a viewer may send */
#define WEB_REQUEST_TIMEOUT_USEC (10ULL * 1000000ULL)   /* for a request head to arrive */
#define WEB_PING_DEFAULT 30                     /* seconds of silence before a ping; as long again before closing */
#define WEB_CLOSE_TIMEOUT_USEC (5ULL * 1000000ULL)      /* for the peer's close frame */
#define WEB_SHUTDOWN_TIMEOUT_USEC (3ULL * 1000000ULL)
#define WEB_SESSION_IDLE_USEC (15ULL * 60 * 1000000ULL)
#define WEB_COOKIE "botdesk_session"
#define WEB_SCOPE_LEN 32                        /* hex digits: 128 random bits per session */
#define WEB_SOCKET_NAME "web.sock"
#define WEB_URL_FILE "web.url"
#define WEB_JOBS_MAX 64                         /* children of the CLI for placed profiles, per server */

struct web_server;
struct web_stream;
struct web_devtools;
struct web_job;
struct web_lease_ask;
struct web_mcp_host;

struct web_session {
        char hash[65];                  /* SHA-256 of the cookie; the cookie itself is not kept */
        char scope[WEB_SCOPE_LEN + 1];  /* over TCP, the path the cookie is sent to: /PROFILE/SCOPE/ */
        char profile[PROFILE_NAME_MAX + 1];
        char viewer[LEASE_VIEWER_MAX + 1];
        unsigned long long last_used;   /* monotonic usec */
        unsigned streams;
        bool used;
};

/* A profile with live streams: its runtime dir, watched for lease changes. */
struct web_profile {
        struct web_server *server;
        char name[PROFILE_NAME_MAX + 1];
        int dirfd;                      /* -1 when placed */
        int wd;                         /* inotify watch, -1 without */
        struct lease lease;             /* placed: as the far side last said (web-placed.c) */
        bool placed;                    /* placement = exec: served through the CLI's children */
        bool remote;                    /* remote =: its lease here, its stream a child `botdesk rfb` (remote-front.h) */
        struct web_job *watch;          /* placed, with streams: `botdesk watch P --json` there */
        bool watch_live;                /* its lines have told the lease: GET lease answers from it */
        char lease_hash[LEASE_HASH_LEN + 1]; /* placed: the holder's hash, as the far side says it */
        bool release_on_close;
        unsigned orphan_release_s;      /* [web] orphan_release_s */
        unsigned reconnect_grace_ms;    /* [web] reconnect_grace_ms */
        bool one_viewer;                /* [web] viewers = one: a new stream replaces the older ones */
        sd_event_source *deadline;      /* armed while a hold has no stream left (lease-deadline.h) */
        uint32_t max_cut_text;
        char *origin;                   /* [web] origin, NULL: the forwarded Host decides */
        struct web_stream *streams;     /* list */
        unsigned n_streams;
        struct web_profile *next;
};

struct web_server {
        sd_event *event;
        int listen_fd;
        bool tcp;                       /* tickets for every request */
        bool activated;                 /* the listener came from systemd: do not unlink it */
        char *socket_path;              /* the Unix socket we bound, removed at exit */
        char *url_file;                 /* RUNTIME_BASE/web.url we wrote, removed at exit */
        char *runtime_base;
        int ticket_dirfd;
        int novnc_fd;                   /* -1: noVNC not found */
        char *novnc_dir;
        sd_event_source *listen_source;
        int inotify_fd;
        sd_event_source *inotify_source;
        unsigned n_connections;         /* HTTP and streams */
        struct web_conn *conns;
        struct web_profile *profiles;
        struct web_devtools *devtools;  /* list: DevTools relays (web-devtools.c) */
        struct web_session sessions[WEB_SESSIONS_MAX];
        web_spawn_fn spawn;             /* the CLI's, for the children of placed profiles */
        struct web_job *jobs;           /* list */
        struct web_lease_ask *lease_asks; /* list: a placed profile's GET lease, one child for all who ask */
        struct web_mcp_host *mcp_hosts; /* list: the MCP servers kept per desktop (web-mcp-host.c) */
        unsigned n_jobs;
        bool exiting;
        unsigned long long ping_usec;
        uint8_t scratch[256 * 1024];    /* one read of RFB bytes, before framing */
};

/* ---- web-server.c --------------------------------------------------------------------------- */

/* The profile's live record (opened and watched on first use), or NULL with -errno in *ret_error. */
struct web_profile *web_profile_get(struct web_server *s, const char *name, int *ret_error);
void web_profile_put(struct web_profile *p);        /* frees it once it has no streams nor deadline */
/* At exit: every profile without streams freed, every deadline timer dropped. */
void web_profiles_done(struct web_server *s);
/*
 * The last stream of viewer, which holds control, closed: control returns
 * to the agent at a deadline, recorded beside the lease so that the desktop's
 * helper honours it should this server stop first. left: the viewer chose to
 * leave (a clean close under release_on_close): [web] reconnect_grace_ms,
 * else [web] orphan_release_s.
 */
void web_profile_viewer_gone(struct web_profile *p, const char *viewer, bool left);
/* A stream of viewer opened: its hold has a viewer again. */
void web_profile_viewer_back(struct web_profile *p, const char *viewer);
/* Read pending inotify events now, so lease changes apply to the bytes read next. */
void web_server_lease_changes(struct web_server *s);
void web_server_connection_gone(struct web_server *s);
/* Wait on src for events (EPOLLIN, EPOLLOUT), or, with none, not at all. */
void web_set_events(sd_event_source *src, uint32_t events);

/* A placed profile's lease, as the far side said it (its holder's hash too):
 * streams re-decided, others evicted. */
void web_profile_placed_lease(struct web_profile *p, const struct lease *l, const char *hash);
/* Follow a placed profile's lease as it changes there, from its first stream on (web-placed.c). */
void web_profile_placed_watch(struct web_profile *p);

/* ---- web-placed.c ---------------------------------------------------------------------------- */

/* A job's end: its exit status (128+N for signal N), its stdout (bounded), the tail of its stderr. */
typedef void (*web_job_done_t)(int status, const char *out, const char *err, void *userdata);
/*
 * `botdesk ARGS...` (this very binary) as a child: stdin and stdout
 * stdio_fd, or /dev/null and a pipe read for done when < 0. -EAGAIN when
 * WEB_JOBS_MAX run already; the job in *ret (unless NULL) until done runs.
 */
int web_job_start(struct web_server *s, char *const *args, int stdio_fd, web_job_done_t done, void *userdata,
                  struct web_job **ret);
/* The same with stdin and stdout one end of a socketpair: the other end, non-blocking, in *ret_fd (a
 * verb's byte stream: `botdesk rfb`, `botdesk cdp`), the job in *ret_job. */
int web_job_start_stream(struct web_server *s, char *const *args, web_job_done_t done, void *userdata,
                         struct web_job **ret_job, int *ret_fd);
/* Each line of the job's stdout (bounded; a longer one is dropped) goes to on_line as it comes. */
typedef void (*web_job_line_t)(const char *line, void *userdata);
void web_job_on_line(struct web_job *job, web_job_line_t on_line);
/* done never runs; the child is sent SIGTERM, SIGKILL after a grace, and reaped. */
void web_job_cancel(struct web_job *job);
/* At exit: every child killed and reaped, now. */
void web_jobs_done(struct web_server *s);
/*
 * `botdesk lease --json`'s line (or `botdesk watch --json`'s, its "lease")
 * into *ret; its holder's hash mapped back to viewer or to a viewer of p's
 * streams, else to a name nobody here has, and copied to ret_hash (unless
 * NULL; "" for the agent). -EBADMSG when it is no such line.
 */
int web_placed_lease_parse(const char *out, const struct web_profile *p, const char *viewer, struct lease *ret,
                           char ret_hash[]);
/* The lease as viewer sees it: holder's name viewer when hash is viewer's, else nobody here. */
void web_placed_lease_for(const struct lease *l, const char *hash, const char *viewer, struct lease *ret);

/* ---- web-mcp-host.c -------------------------------------------------------------------------- */

/*
 * A new connection to the MCP server web keeps for profile (started if it
 * is not running): our end, non-blocking, in *ret_fd, the server in
 * *ret_host. -EAGAIN when that server has too many connections waiting;
 * -errno. When the server ends, web_mcp_host_gone() is told of each
 * request (web-conn.h).
 */
int web_mcp_host_connect(struct web_server *s, const char *profile, struct web_mcp_host **ret_host, int *ret_fd);
/* At exit: every kept server ended. */
void web_mcp_hosts_done(struct web_server *s);

/* ---- web-http.c ------------------------------------------------------------------------------ */

/* Serve one HTTP request on fd (accepted, non-blocking) from peer; takes the fd. */
int web_conn_new(struct web_server *s, int fd, const char *peer);
/*
 * Make room for a new connection from peer: when peer already has
 * WEB_CONNECTIONS_PER_PEER connections still sending their head, its oldest
 * is closed; when the server is full, the oldest of the peer with the most
 * such connections is. Returns false when the server is full of requests
 * being answered and streams (the new one is refused).
 */
bool web_conns_make_room(struct web_server *s, const char *peer);
/* Close every connection still in its HTTP phase (shutdown). */
void web_conns_close_all(struct web_server *s);

/* ---- web-devtools.c ---------------------------------------------------------------------------- */

/* Close every DevTools relay with code and reason (shutdown). */
void web_devtools_close_all(struct web_server *s, uint16_t code, const char *reason);

/* ---- web-static.c ------------------------------------------------------------------------------ */

/* rel: what follows /PROFILE/novnc/, segments percent-decoded one by one: no
 * "..", no ".", no hidden names, no empty segments; opened beneath novnc_fd.
 * The fd, its size and content type; or -ENOENT. */
int web_static_open(int novnc_fd, const char *rel, off_t *ret_size, const char **ret_type);
/* GET /PROFILE/lease's answer (malloc'd): holder, you (viewer holds it), ticket, epoch. */
char *web_lease_json(const struct lease *l, const char *viewer, bool ticket, size_t *ret_size);
/* The answer to a WebSocket upgrade, up to its blank line, for the Sec-WebSocket-Accept value accept:
 * its length. */
#define WEB_UPGRADE_HEAD_MAX 256
int web_upgrade_head(const char *accept, char out[static WEB_UPGRADE_HEAD_MAX]);
/* A connection to the desktop's rfb.sock, through its runtime dir's fd; or -errno. */
int web_rfb_connect(int dirfd);
/* The answer to an upgrade refused with a close code: 101 for key, then the
 * close frame (malloc'd); NULL when key is not a WebSocket key (or no memory). */
char *web_refusal_frames(const char *key, uint16_t code, const char *reason, size_t *ret_size);

/* ---- web-auth.c -------------------------------------------------------------------------------- */

enum web_origin_verdict {
        WEB_ORIGIN_OK,
        WEB_ORIGIN_MISSING,             /* over TCP, a request only a cookie vouches for, without Origin */
        WEB_ORIGIN_OTHER,               /* another origin than the page's */
};
/* Whether a state-changing request comes from our own page (or from no page at all). */
enum web_origin_verdict web_origin_check(const struct web_server *s, const struct http_request *req,
                                         const char *configured, bool by_cookie);
/* Over TCP, whether Host names the loopback (DNS rebinding); always true over the Unix socket. */
bool web_host_ok(const struct web_server *s, const struct http_request *req);

/* ---- web-stream.c ---------------------------------------------------------------------------- */

/*
 * Bridge fd (a WebSocket after the 101 answer was queued in head[0..n_head))
 * to rfb_fd, for viewer of profile p; takes both fds, and early bytes the
 * client sent after its request. The stream counts in p and session.
 */
int web_stream_new(struct web_server *s, struct web_profile *p, struct web_session *session, int fd,
                   int rfb_fd, const void *head, size_t n_head, const void *early, size_t n_early);
/* The profile's lease changed: re-decide input for the stream; while a
 * human holds control, every stream but the holder's is closed (4000). */
void web_stream_lease_changed(struct web_stream *st);
/* Close with a code that says why (server shutting down...). */
void web_stream_close(struct web_stream *st, uint16_t code, const char *reason);
struct web_stream *web_stream_next(struct web_stream *st);
const char *web_stream_viewer(const struct web_stream *st);

/* ---- web-session.c --------------------------------------------------------------------------- */

/* A new session for ticket t; its cookie (64 hex digits) goes to ret_cookie. */
struct web_session *web_session_new(struct web_server *s, const struct ticket *t, char ret_cookie[static 65]);
/* The live session of this cookie for profile (NULL: any profile) and, unless NULL, scope; or NULL. */
struct web_session *web_session_find(struct web_server *s, const char *cookie, const char *profile, const char *scope);
/* Whether text starts with a session scope (WEB_SCOPE_LEN lowercase hex digits). */
bool web_scope_valid(const char *text);

/* ---- web-page.c ------------------------------------------------------------------------------ */

/* The botdesk page for profile (malloc'd HTML); novnc says whether noVNC was found. */
char *web_page_html(const char *profile, bool novnc);
/* botdesk.js, the page's script (a module that imports noVNC). */
extern const char web_page_script[];

/* ---- web-journal.c --------------------------------------------------------------------------- */

/*
 * What /PROFILE/journal{rel} shows: rel "/" a page of the journal (query
 * from=SEQ or before=SEQ, else the newest), rel "/frames/NAME.jpg" one of
 * its frames. 0 with the body (malloc'd), its size and type; -ENOENT for no
 * such journal, frame or page; -EINVAL for a query that names no seq;
 * -EPERM for a journal that is not the user's private directory; -errno.
 */
int web_journal_get(const char *profile, const char *rel, const char *query, char **ret_body, size_t *ret_size,
                    const char **ret_type);
