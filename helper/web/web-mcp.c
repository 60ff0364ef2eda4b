/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * POST /PROFILE/mcp: MCP's Streamable HTTP for an agent on another host,
 * behind the bearer token of `botdesk web token PROFILE --for mcp`
 * (ticket.h) and the Host and Origin rules of every request here. The
 * request, read whole (at most 1 MiB), goes to `botdesk mcp PROFILE
 * --listen stdio` on a connection of its own, and the answer comes back to
 * the client as that server writes it, byte for byte and as it comes (an
 * event stream, for subscriptions/listen, lasts as long as both ends keep
 * it). Which server: a request stands alone in the 2026-07-28 revision, so
 * each goes to a child of its own, and requests of one desktop run side by
 * side; but one whose work outlives it goes to the server web keeps for the
 * desktop (web-mcp-host.c), whose tasks and subscriptions later requests
 * reach: the Tasks extension's methods, a tools/call of a client that
 * declared that extension (the server makes its long waits tasks),
 * subscriptions/listen and the cancellation that ends one, and
 * server/discover, which names what that server runs.
 */
#include <errno.h>
#include <strings.h>
#include <sys/socket.h>

#include "json.h"
#include "log.h"
#include "mcp-wire.h"
#include "ticket.h"
#include "util.h"
#include "web-conn.h"

#define DOWN_SIZE (64u * 1024)                  /* the answer's bytes between the server and the client */
#define CALLS_PER_TOKEN 4                       /* at once; one desktop serves one action at a time anyway */
#define CALL_TIMEOUT_USEC (3700ULL * 1000000ULL) /* ask_human waits up to an hour; a stream, that long quiet */
#define SILENT_END_USEC (10ULL * 1000000ULL)    /* a kept server that closed a request unanswered ends within */

struct web_mcp {
        struct web_conn *conn;
        char token_sha[65];             /* whose calls these are, for the per-token limit */
        char *body;                     /* the request body, then the request we send */
        size_t size, want;
        int fd;                         /* our end of the server's connection */
        sd_event_source *io;
        size_t sent;
        const struct web_mcp_host *host; /* the kept server it went to; NULL: a child of its own (c->job) */
        bool kept;                      /* it went to a kept server (host NULL once that ended) */
        bool relaying;                  /* the body is whole: the client's events are ours */
        bool upstream_done;             /* the server's end of the answer */
        struct buffer down;             /* answer bytes not yet sent */
        unsigned long long answered;    /* bytes of answer in all */
};

void web_mcp_free(struct web_mcp *m) {
        if (!m)
                return;
        sd_event_source_disable_unref(m->io);
        safe_close(m->fd);
        free(m->body);
        buffer_done(&m->down);
        free(m);
}

bool web_mcp_relaying(const struct web_conn *c) {
        return c->mcp && c->mcp->relaying;
}

/* A refusal of our own, in the words of the SDK's server: a JSON-RPC error without an id. */
static void refuse(struct web_conn *c, unsigned status, const char *headers, const char *message) {
        _cleanup_free_ char *body = NULL;
        struct json_mem m;

        /* The answer is web's now: the client's events go back to web-http.c. */
        if (c->mcp) {
                c->mcp->relaying = false;
                c->mcp->io = sd_event_source_disable_unref(c->mcp->io);
        }
        if (json_mem_open(&m) < 0) {
                web_conn_free(c, false);
                return;
        }
        json_object_begin(&m.j);
        json_kv_string(&m.j, "jsonrpc", "2.0");
        json_key(&m.j, "error");
        json_object_begin(&m.j);
        json_kv_int(&m.j, "code", -32000);
        json_kv_string(&m.j, "message", message);
        json_object_end(&m.j);
        json_kv_null(&m.j, "id");
        json_object_end(&m.j);
        if (json_mem_close(&m, &body) < 0) {
                web_conn_free(c, false);
                return;
        }
        web_respond(c, status, "application/json", headers, body, strlen(body), -1);
}

/* A server that ended without a byte of answer (status, its last words): the desktop stopped, or no server. */
static void refuse_unanswered(struct web_conn *c, int status, const char *last_words) {
        _cleanup_free_ char *message = strdup_printf("botdesk mcp %s ended (status %d) without an answer: %s", c->profile,
                                                     status, last_words && *last_words ? last_words : "no message");

        refuse(c, status == 4 ? 503 : 502, NULL, message ?: "botdesk mcp ended without an answer.");
}

/* Whether the client's end of the connection closed (or broke): read and dropped what it sent beside. */
static bool client_gone(struct web_conn *c) {
        for (;;) {
                uint8_t buf[4096];
                ssize_t n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return errno != EAGAIN;
                if (n == 0)
                        return true;
        }
}

static void want_upstream(struct web_mcp *m, uint32_t events) {
        if (!m->io)
                return;
        (void) sd_event_source_set_io_events(m->io, events);
        (void) sd_event_source_set_enabled(m->io, events ? SD_EVENT_ON : SD_EVENT_OFF);
}

/* Send what the answer has so far; at its end, the connection ends (it said Connection: close). True when m is
 * done with: its connection freed, or answered by refuse(). */
static bool flush_down(struct web_mcp *m) {
        struct web_conn *c = m->conn;

        if (buffer_send(c->fd, &m->down) < 0) {
                web_conn_free(c, false);
                return true;
        }
        if (buffer_len(&m->down) > 0) {
                (void) sd_event_source_set_io_events(c->io, EPOLLIN | EPOLLOUT);
                return false;
        }
        (void) sd_event_source_set_io_events(c->io, EPOLLIN);
        if (!m->upstream_done) {
                want_upstream(m, EPOLLIN);
                return false;
        }
        if (m->answered > 0) {
                web_conn_free(c, false);
                return true;
        }
        /* Closed without a byte: the server's end says why (on_child_done, web_mcp_host_gone). */
        if (m->kept && !m->host) {
                refuse(c, 502, NULL, "botdesk mcp closed the request without an answer.");
                return true;
        }
        if (m->kept)
                (void) sd_event_source_set_time_relative(c->timer, SILENT_END_USEC);
        return false;
}

/* Read what the server wrote, as far as there is room: then on to the client. As flush_down(). */
static bool pump(struct web_mcp *m) {
        while (!m->upstream_done && !buffer_full(&m->down)) {
                ssize_t n = buffer_recv(m->fd, &m->down);

                if (n == -EAGAIN)
                        break;
                if (n <= 0) {
                        m->upstream_done = true;
                        m->io = sd_event_source_disable_unref(m->io);
                        break;
                }
                m->answered += (unsigned long long) n;
                /* A call may wait as long as its tool does (ask_human: an hour); a stream as long as it says things. */
                (void) sd_event_source_set_time_relative(m->conn->timer, CALL_TIMEOUT_USEC);
        }
        if (buffer_full(&m->down))
                want_upstream(m, 0);    /* until the client has taken some */
        return flush_down(m);
}

static int on_upstream_io(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        struct web_mcp *m = userdata;

        if (m->sent < m->size) {
                while (m->sent < m->size) {
                        ssize_t n = send(fd, m->body + m->sent, m->size - m->sent, MSG_NOSIGNAL | MSG_DONTWAIT);

                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n < 0 && errno == EAGAIN)
                                return 0;
                        if (n < 0)
                                break;  /* the server is gone: its end says why */
                        m->sent += (size_t) n;
                }
                m->sent = m->size;
                want_upstream(m, EPOLLIN);
                return 0;
        }
        (void) pump(m);
        return 0;
}

void web_mcp_client_io(struct web_conn *c, uint32_t revents) {
        if ((revents & (EPOLLIN | EPOLLHUP | EPOLLERR)) && client_gone(c)) {
                /* Its request ends here: a child of its own is stopped, a kept server sees the close. */
                web_conn_free(c, false);
                return;
        }
        if (revents & EPOLLOUT)
                (void) flush_down(c->mcp);
}

static void on_child_done(int status, const char *out, const char *err, void *userdata) {
        struct web_mcp *m = userdata;

        m->conn->job = NULL;
        /* Its exit may come before its end of the socket is read: all it wrote is there now. */
        if (!m->upstream_done && pump(m))
                return;
        if (m->answered == 0)
                refuse_unanswered(m->conn, status, err);
}

void web_mcp_host_gone(struct web_conn *c, const struct web_mcp_host *host, int status, const char *last_words) {
        struct web_mcp *m = c->mcp;

        if (!m->kept || m->host != host)
                return;
        m->host = NULL;
        if (!m->upstream_done && pump(m))
                return;
        if (m->answered == 0)
                refuse_unanswered(c, status, last_words);
}

/* Whether the request's work outlives it (the file's comment): it goes to the desktop's kept server. */
static bool outlives_request(const char *body, size_t size) {
        static const char *const stateful[] = { "tasks/get", "tasks/update", "tasks/cancel", "subscriptions/listen",
                                                "notifications/cancelled", "server/discover" };
        _cleanup_(json_value_freep) struct json_value *v = NULL;
        const struct json_value *extensions;
        const char *method;

        if (json_parse(body, size, &v) < 0 || !(method = json_member_string(v, "method")))
                return false;   /* the server's to refuse, in a child of its own */
        for (size_t i = 0; i < ELEMENTSOF(stateful); i++)
                if (streq(method, stateful[i]))
                        return true;
        extensions = json_get(json_get(json_get(json_get(v, "params"), "_meta"), MCP_META_CLIENT_CAPABILITIES),
                              "extensions");
        return streq(method, "tools/call") && json_get(extensions, MCP_TASKS_EXTENSION);
}

/* The request whole, as the server reads it: our head, the client's headers that matter, its body. */
static int request_build(struct web_mcp *m) {
        const struct http_request *q = &m->conn->req;
        static const char *const passed[] = { "Content-Type", "Accept", "MCP-Protocol-Version", "Mcp-Method",
                                              "Mcp-Name" };
        _cleanup_free_ char *head = NULL;
        char *request;
        size_t size = 0;
        FILE *f;

        f = open_memstream(&head, &size);
        if (!f)
                return -ENOMEM;
        fprintf(f, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: %zu\r\n", m->size);
        for (size_t i = 0; i < ELEMENTSOF(passed); i++) {
                const char *v = http_header(q, passed[i]);

                if (v)
                        fprintf(f, "%s: %s\r\n", passed[i], v);
        }
        fputs("\r\n", f);
        if (fclose(f) != 0 || !(request = malloc(size + m->size + 1)))
                return -ENOMEM;
        memcpy(request, head, size);
        memcpy(request + size, m->body, m->size);
        free(m->body);
        m->body = request;
        m->size += size;
        return 0;
}

/* The body is whole: to a kept server, or to a child of its own. */
static void start(struct web_mcp *m) {
        struct web_conn *c = m->conn;
        char *const args[] = { (char *) "mcp", c->profile, (char *) "--listen", (char *) "stdio", NULL };
        int r;

        m->kept = outlives_request(m->body, m->size);
        /* The whole buffer now: a request that cannot have it fails before it reaches the server. */
        if (request_build(m) < 0 || buffer_reserve(&m->down, DOWN_SIZE) < DOWN_SIZE) {
                web_conn_free(c, false);
                return;
        }
        if (m->kept) {
                struct web_mcp_host *h;

                r = web_mcp_host_connect(c->server, c->profile, &h, &m->fd);
                if (r >= 0)
                        m->host = h;
        } else
                r = web_job_start_stream(c->server, args, on_child_done, m, &c->job, &m->fd);
        if (r < 0) {
                refuse(c, 503, "Retry-After: 1\r\n",
                       r == -EAGAIN ? "Too many requests at once; try again." : "Cannot start botdesk mcp now.");
                return;
        }
        r = sd_event_add_io(c->server->event, &m->io, m->fd, EPOLLOUT, on_upstream_io, m);
        if (r < 0) {
                web_conn_free(c, false);
                return;
        }
        m->relaying = true;
        c->responding = true;   /* no longer a connection that merely holds a slot (web_conns_make_room) */
        (void) sd_event_source_set_io_events(c->io, EPOLLIN);
        (void) sd_event_source_set_time_relative(c->timer, CALL_TIMEOUT_USEC);
}

void web_mcp_feed(struct web_conn *c, const void *data, size_t n) {
        struct web_mcp *m = c->mcp;

        if (!m || m->relaying)
                return; /* the body is whole: anything more is no part of it */
        if (n > m->want - m->size)
                n = m->want - m->size;
        memcpy(m->body + m->size, data, n);
        m->size += n;
        if (m->size == m->want)
                start(m);
}

/* How many calls of the token whose hash is sha are under way (read, or running). */
static unsigned calls_of(struct web_server *s, const char *sha) {
        unsigned n = 0;

        for (struct web_conn *c = s->conns; c; c = c->next)
                if (c->mcp && streq(c->mcp->token_sha, sha))
                        n++;
        return n;
}

/* Authorization: Bearer TOKEN, judged for profile: 0 with its hash in ret_sha, or the refusal answered. */
static int bearer_ok(struct web_conn *c, const char *profile, char ret_sha[static 65]) {
        const char *auth = http_header(&c->req, "Authorization"), *token;
        struct ticket t;
        int r;

        token = auth && strncasecmp(auth, "Bearer ", 7) == 0 ? auth + 7 + strspn(auth + 7, " ") : NULL;
        if (!token) {
                refuse(c, 401, "WWW-Authenticate: Bearer realm=\"botdesk\"\r\n",
                       "Unauthorized: send Authorization: Bearer TOKEN (botdesk web token PROFILE --for mcp).");
                return -EACCES;
        }
        r = ticket_bearer_check_at(c->server->ticket_dirfd, token, profile, realtime_usec(), &t);
        if (r == -EXDEV) {
                refuse(c, 403, NULL, "Forbidden: the token is for another profile.");
                return -EPERM;
        }
        if (r < 0) {
                refuse(c, 401, "WWW-Authenticate: Bearer realm=\"botdesk\", error=\"invalid_token\"\r\n",
                       "Unauthorized: the token is unknown, revoked or expired.");
                return -EACCES;
        }
        ticket_sha256_hex(token, ret_sha);
        if (calls_of(c->server, ret_sha) >= CALLS_PER_TOKEN) {
                refuse(c, 429, "Retry-After: 1\r\n", "Too Many Requests: at most 4 calls of one token at once.");
                return -EBUSY;
        }
        return 0;
}

void web_serve_mcp(struct web_conn *c, const char *profile, const void *early, size_t n_early) {
        struct web_mcp *m;
        const char *type = http_header(&c->req, "Content-Type");
        char sha[65];

        if (bearer_ok(c, profile, sha) < 0)
                return;
        if (!type || strncasecmp(type, "application/json", strlen("application/json")) != 0) {
                refuse(c, 415, NULL, "Unsupported Media Type: Content-Type must be application/json.");
                return;
        }
        if (c->req.content_length == 0) {
                refuse(c, 400, NULL, "Bad Request: a JSON-RPC message in the body.");
                return;
        }
        m = calloc(1, sizeof *m);
        if (!m || !(m->body = malloc(c->req.content_length))) {
                free(m);
                web_conn_free(c, false);
                return;
        }
        m->conn = c;
        memcpy(m->token_sha, sha, sizeof sha);
        m->down = BUFFER_GROWABLE(DOWN_SIZE);
        m->fd = -EBADF;
        m->want = c->req.content_length;
        snprintf(c->profile, sizeof c->profile, "%s", profile);
        c->mcp = m;
        web_mcp_feed(c, early, n_early);
}
