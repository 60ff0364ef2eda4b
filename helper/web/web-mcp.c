/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * POST /PROFILE/mcp: MCP's Streamable HTTP for an agent on another host,
 * behind the bearer token of `botdesk web token PROFILE --for mcp`
 * (ticket.h) and the Host and Origin rules of every request here. The
 * request, read whole (at most 1 MiB), goes to a child of its own,
 * `botdesk mcp PROFILE --listen stdio`, on one end of a socketpair, and
 * its answer comes back to the client as the child wrote it: each request
 * stands alone in the 2026-07-28 revision, so nothing is kept between two.
 */
#include <errno.h>
#include <strings.h>
#include <sys/socket.h>

#include "json.h"
#include "log.h"
#include "ticket.h"
#include "util.h"
#include "web-conn.h"

#define ANSWER_MAX (32u << 20)                  /* a screenshot's base64 is a few hundred KiB */
#define CALLS_PER_TOKEN 4                       /* at once; one desktop serves one action at a time anyway */
#define CALL_TIMEOUT_USEC (3700ULL * 1000000ULL) /* ask_human waits up to an hour */

struct web_mcp {
        struct web_conn *conn;
        char token_sha[65];             /* whose calls these are, for the per-token limit */
        char *body;                     /* the request body, then the request we send */
        size_t size, want;
        int fd;                         /* our end of the child's socketpair */
        sd_event_source *io;
        size_t sent;
        char *answer;
        size_t answer_size;
        bool answered;
};

void web_mcp_free(struct web_mcp *m) {
        if (!m)
                return;
        sd_event_source_disable_unref(m->io);
        safe_close(m->fd);
        free(m->body);
        free(m->answer);
        free(m);
}

/* A refusal of our own, in the words of the SDK's server: a JSON-RPC error without an id. */
static void refuse(struct web_conn *c, unsigned status, const char *headers, const char *message) {
        _cleanup_free_ char *body = NULL;
        struct json_mem m;

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

/* The child's answer, passed on as it wrote it (a whole HTTP response, its Connection: close included). */
static void pass_answer(struct web_mcp *m) {
        struct web_conn *c = m->conn;

        m->answered = true;
        free(c->out);
        c->out = TAKE_PTR(m->answer);
        c->out_size = m->answer_size;
        c->out_sent = 0;
        c->responding = true;
        web_conn_send(c);
}

/* Reads what the child wrote: 1 at its end (EOF, or an answer too long to pass), 0 for more to come, -ENOMEM. */
static int drain(struct web_mcp *m) {
        for (;;) {
                char buf[65536];
                ssize_t n = recv(m->fd, buf, sizeof buf, MSG_DONTWAIT);
                char *grown;

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return 0;
                if (n <= 0)
                        return 1;
                if (m->answer_size + (size_t) n > ANSWER_MAX) {
                        log_warning("botdesk mcp answered more than %u bytes; the answer was dropped.", ANSWER_MAX);
                        m->answer_size = 0;
                        return 1;
                }
                grown = realloc(m->answer, m->answer_size + (size_t) n);
                if (!grown)
                        return -ENOMEM;
                m->answer = grown;
                memcpy(m->answer + m->answer_size, buf, (size_t) n);
                m->answer_size += (size_t) n;
        }
}

static int on_child_io(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        struct web_mcp *m = userdata;
        int r;

        if (revents & EPOLLOUT) {
                while (m->sent < m->size) {
                        ssize_t n = send(fd, m->body + m->sent, m->size - m->sent, MSG_NOSIGNAL | MSG_DONTWAIT);

                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n < 0 && errno == EAGAIN)
                                return 0;
                        if (n < 0)
                                break;  /* the child is gone: its end says why (on_child_done) */
                        m->sent += (size_t) n;
                }
                (void) sd_event_source_set_io_events(src, EPOLLIN);
                return 0;
        }
        r = drain(m);
        if (r == -ENOMEM) {
                web_conn_free(m->conn, false);
                return 0;
        }
        if (r == 0)
                return 0;
        /* The end: the child closed its side after its answer (Connection: close), or died. */
        m->io = sd_event_source_disable_unref(m->io);
        if (m->answer_size > 0)
                pass_answer(m);
        return 0;
}

static void on_child_done(int status, const char *out, const char *err, void *userdata) {
        struct web_mcp *m = userdata;
        struct web_conn *c = m->conn;
        _cleanup_free_ char *message = NULL;

        c->job = NULL;
        if (m->answered)
                return;
        /* Its exit may come before its end of the socket is read: all it wrote is there now. */
        if (m->fd >= 0 && drain(m) == 1 && m->answer_size > 0) {
                m->io = sd_event_source_disable_unref(m->io);
                pass_answer(m);
                return;
        }
        /* It ended without an answer: the desktop is not running, or botdesk mcp could not start. */
        message = strdup_printf("botdesk mcp %s ended (status %d) without an answer: %s", c->profile, status,
                                err && *err ? err : "no message");
        refuse(c, status == 4 ? 503 : 502, NULL, message ?: "botdesk mcp ended without an answer.");
}

/* The body is whole: the request goes to a child of its own. */
static void start_child(struct web_mcp *m) {
        struct web_conn *c = m->conn;
        const struct http_request *q = &c->req;
        static const char *const passed[] = { "Content-Type", "Accept", "MCP-Protocol-Version", "Mcp-Method",
                                              "Mcp-Name" };
        char *const args[] = { (char *) "mcp", c->profile, (char *) "--listen", (char *) "stdio", NULL };
        _cleanup_close_ int child_end = -EBADF;
        _cleanup_free_ char *head = NULL, *request = NULL;
        size_t size = 0;
        FILE *f;
        int sv[2], r;

        f = open_memstream(&head, &size);
        if (!f) {
                web_conn_free(c, false);
                return;
        }
        fprintf(f, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: %zu\r\n", m->size);
        for (size_t i = 0; i < ELEMENTSOF(passed); i++) {
                const char *v = http_header(q, passed[i]);

                if (v)
                        fprintf(f, "%s: %s\r\n", passed[i], v);
        }
        fputs("\r\n", f);
        if (fclose(f) != 0 || !(request = malloc(size + m->size + 1))) {
                web_conn_free(c, false);
                return;
        }
        memcpy(request, head, size);
        memcpy(request + size, m->body, m->size);
        free(m->body);
        m->body = TAKE_PTR(request);
        m->size += size;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
                refuse(c, 503, NULL, "Cannot reach botdesk mcp now.");
                return;
        }
        m->fd = sv[0];
        child_end = sv[1];
        r = web_job_start(c->server, args, child_end, on_child_done, m, &c->job);
        if (r < 0) {
                refuse(c, 503, "Retry-After: 1\r\n",
                       r == -EAGAIN ? "Too many requests at once; try again." : "Cannot start botdesk mcp now.");
                return;
        }
        r = sd_event_add_io(c->server->event, &m->io, m->fd, EPOLLOUT, on_child_io, m);
        if (r < 0) {
                web_conn_free(c, false);
                return;
        }
        /* A call may wait as long as its tool does (ask_human: an hour), not a request head's time. */
        (void) sd_event_source_set_time_relative(c->timer, CALL_TIMEOUT_USEC);
}

void web_mcp_feed(struct web_conn *c, const void *data, size_t n) {
        struct web_mcp *m = c->mcp;

        if (!m || m->fd >= 0 || c->job)
                return; /* the body is whole: anything more is no part of it */
        if (n > m->want - m->size)
                n = m->want - m->size;
        memcpy(m->body + m->size, data, n);
        m->size += n;
        if (m->size == m->want)
                start_child(m);
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
        m->fd = -EBADF;
        m->want = c->req.content_length;
        snprintf(c->profile, sizeof c->profile, "%s", profile);
        c->mcp = m;
        web_mcp_feed(c, early, n_early);
}
