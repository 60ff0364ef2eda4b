/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk mcp PROFILE --listen unix:PATH: MCP's Streamable HTTP on a Unix
 * socket (mcp-http.h). One process, one X connection, so one request runs
 * at a time: the others wait in their connections, each bounded in time
 * and size. On a socket of its own, the server lives on between requests:
 * a 2026 client that declares the Tasks extension gets its long waits as
 * tasks (mcp-tasks.h), processes of their own whose table answers tasks/get
 * on any connection. The same loop serves the connections botdesk web hands
 * over (mcp-http.h): one alone, with no tasks, since nothing would outlive
 * it; or many, handed one by one, to the process web keeps for the desktop.
 * The answers are JSON (the transport lets the server choose JSON over an
 * event stream), but for subscriptions/listen on a socket of its own: its
 * response is a text/event-stream that carries the acknowledgment and the
 * notifications as they come, one event each, until the client closes it
 * (which ends the subscription) or the server ends it (its completion and
 * notifications/cancelled, then the connection closes). What each refusal
 * gets follows the SDK v2's reference server (server.h for the protocol's,
 * here for HTTP's).
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent.h"
#include "cli.h"
#include "http.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp-http.h"
#include "mcp-tasks.h"
#include "socket-util.h"
#include "util.h"

#define CONNS_MAX 8
#define IDLE_USEC (30ULL * 1000000ULL)         /* a connection that sends nothing for this long is closed */
#define WRITE_USEC (10ULL * 1000000ULL)        /* and one that takes no answer for this long */
#define BODY_MAX JSONRPC_LINE_MAX

struct conn {
        int fd;
        struct http_request req;
        bool head_done;
        char *in;                       /* bytes read and not yet taken */
        size_t size, off;
        unsigned long long deadline;    /* now_usec() past which it is closed */
        /* An event stream (a subscriptions/listen response): nothing more is read from it as requests. */
        FILE *events;
        char *sub_id;                   /* its subscription's id (NULL: one acknowledged with nothing to watch) */
};

static void conn_reset(struct conn *c) {
        http_request_init(&c->req);
        c->req.body_max = BODY_MAX;
        c->head_done = false;
}

/* The subscription of c's event stream, while the server has it. */
static struct mcp_sub *conn_sub(struct mcp_server *s, const struct conn *c) {
        return c->sub_id && s->subs ? mcp_subs_find(s->subs, c->sub_id) : NULL;
}

static void conn_close(struct mcp_server *s, struct conn *c) {
        struct mcp_sub *sub = conn_sub(s, c);

        /* The client left its stream: nobody reads the subscription any more. */
        if (sub)
                mcp_subs_drop(s->subs, sub);
        if (c->events)
                fclose(c->events);
        c->events = NULL;
        free(c->sub_id);
        c->sub_id = NULL;
        c->fd = safe_close(c->fd);
        free(c->in);
        c->in = NULL;
        c->size = c->off = 0;
}

/* All of n bytes to the socket fd (non-blocking, so not write_all()), waiting for room at most WRITE_USEC in all. */
static int send_all(int fd, const char *p, size_t n) {
        unsigned long long end = now_usec() + WRITE_USEC;

        while (n > 0) {
                ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

                if (k > 0) {
                        p += k;
                        n -= (size_t) k;
                        continue;
                }
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0 && errno != EAGAIN)
                        return -errno;
                unsigned long long t = now_usec();
                if (t >= end)
                        return -ETIMEDOUT;
                struct pollfd pfd = { .fd = fd, .events = POLLOUT };
                if (poll(&pfd, 1, (int) ((end - t + 999) / 1000)) < 0 && errno != EINTR)
                        return -errno;
        }
        return 0;
}

/*
 * An event stream as a FILE: each line written to it (a JSON-RPC message,
 * as the subscriptions' code writes them) goes out as one event, "event:
 * message" and "data: LINE". A client that takes nothing for WRITE_USEC
 * makes it fail (ferror), and the loop closes its connection.
 */
struct event_stream {
        int fd;
        char *line;
        size_t len;
        bool broken;
};

static ssize_t event_stream_write(void *cookie, const char *p, size_t n) {
        struct event_stream *e = cookie;
        char *grown = realloc(e->line, e->len + n + 1);

        if (e->broken || !grown)
                return -1;
        e->line = grown;
        memcpy(e->line + e->len, p, n);
        e->len += n;
        for (char *nl; (nl = memchr(e->line, '\n', e->len));) {
                size_t k = (size_t) (nl - e->line);
                _cleanup_free_ char *event = strdup_printf("event: message\ndata: %.*s\n\n", (int) k, e->line);

                if (!event || send_all(e->fd, event, strlen(event)) < 0) {
                        e->broken = true;
                        return -1;
                }
                memmove(e->line, nl + 1, e->len - k - 1);
                e->len -= k + 1;
        }
        return (ssize_t) n;
}

static int event_stream_close(void *cookie) {
        struct event_stream *e = cookie;

        /* The fd is the connection's, closed with it. */
        free(e->line);
        free(e);
        return 0;
}

/* c's response head for an event stream, and the stream (line-buffered) in c->events. */
static int events_begin(struct conn *c) {
        static const char head[] = "HTTP/1.1 200 OK\r\n"
                                   "Content-Type: text/event-stream\r\n"
                                   "Cache-Control: no-store\r\n"
                                   "Connection: close\r\n"
                                   "\r\n";
        struct event_stream *e;
        int r;

        r = send_all(c->fd, head, strlen(head));
        if (r < 0)
                return r;
        e = calloc(1, sizeof *e);
        if (!e)
                return -ENOMEM;
        e->fd = c->fd;
        c->events = fopencookie(e, "w", (cookie_io_functions_t) { .write = event_stream_write,
                                                                  .close = event_stream_close });
        if (!c->events) {
                free(e);
                return -ENOMEM;
        }
        setvbuf(c->events, NULL, _IOLBF, 0);
        /* Nothing to read as requests any more, and no idle end: the stream lasts while the client wants it. */
        c->deadline = ULLONG_MAX;
        return 0;
}

/* One response: status, JSON body (NULL: none), and whether the connection ends after it. */
static int respond(struct conn *c, unsigned status, const char *body, bool allow_post, bool close_after) {
        _cleanup_free_ char *head = NULL;
        size_t n = body ? strlen(body) : 0;
        int r;

        head = strdup_printf("HTTP/1.1 %u %s\r\n"
                             "%s"
                             "Content-Length: %zu\r\n"
                             "Cache-Control: no-store\r\n"
                             "%s%s"
                             "\r\n",
                             status, http_status_text(status), body ? "Content-Type: application/json\r\n" : "", n,
                             allow_post ? "Allow: POST\r\n" : "", close_after ? "Connection: close\r\n" : "");
        if (!head)
                return -ENOMEM;
        r = send_all(c->fd, head, strlen(head));
        if (r >= 0 && n > 0)
                r = send_all(c->fd, body, n);
        return r;
}

/* A refusal of HTTP's own, as the SDK's server words it: a JSON-RPC error without an id. */
static int refuse(struct conn *c, unsigned status, int code, const char *message, bool allow_post, bool close_after) {
        _cleanup_free_ char *body = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&body, &size);

        if (!f)
                return -ENOMEM;
        jsonrpc_write_error(f, NULL, code, message);
        if (fclose(f) != 0)
                return -ENOMEM;
        /* One line: HTTP's body is the JSON without its newline. */
        if (size > 0 && body[size - 1] == '\n')
                body[--size] = 0;
        return respond(c, status, body, allow_post, close_after);
}

/* Whether authority (HOST[:PORT]) names this machine's loopback: localhost, 127.0.0.1 or [::1]. */
static bool loopback_authority(const char *authority) {
        static const char *const names[] = { "localhost", "127.0.0.1", "[::1]" };

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                size_t n = strlen(names[i]);

                if (strncasecmp(authority, names[i], n) == 0 &&
                    (authority[n] == 0 || (authority[n] == ':' && authority[n + 1] &&
                                           strspn(authority + n + 1, "0123456789") == strlen(authority + n + 1))))
                        return true;
        }
        return false;
}

/*
 * DNS rebinding: a page of some site whose name was made to resolve to
 * this host (through a TCP front) must not reach the desktop. Its Host is
 * that name, and its Origin that site: only loopback names pass, and an
 * Origin only of a loopback page (none is sent by an agent's client).
 */
static bool host_origin_ok(const struct http_request *q) {
        const char *host = http_header(q, "Host"), *origin = http_header(q, "Origin"), *rest;

        if (host && !loopback_authority(host))
                return false;
        if (!origin)
                return true;
        rest = startswith(origin, "http://") ?: startswith(origin, "https://");
        return rest && loopback_authority(rest);
}

static bool json_content_type(const char *v) {
        size_t n = strlen("application/json");

        return v && strncasecmp(v, "application/json", n) == 0 && (v[n] == 0 || v[n] == ';' || v[n] == ' ');
}

/*
 * The request whose head is parsed and whose body is in c->in at c->off:
 * answered. Returns 1 to keep the connection, 0 to close it, -ENOMEM.
 */
static int serve_request(struct mcp_server *s, struct conn *c) {
        const struct http_request *q = &c->req;
        bool keep = q->minor >= 1 && !http_header_has_token(q, "Connection", "close");
        struct mcp_http_headers h = {
                .protocol_version = http_header(q, "MCP-Protocol-Version"),
                .method = http_header(q, "Mcp-Method"),
                .name = http_header(q, "Mcp-Name"),
        };
        _cleanup_free_ char *out = NULL;
        size_t size = 0;
        unsigned status = 0;
        FILE *f;
        int r;

        if (!host_origin_ok(q))
                r = refuse(c, 403, -32000, "Forbidden: Host and Origin must name the loopback (localhost).", false, !keep);
        else if (!streq(q->path, "/") && !streq(q->path, "/mcp"))
                r = refuse(c, 404, -32000, "Not found: the MCP endpoint is /mcp.", false, !keep);
        else if (!streq(q->method, "POST"))
                /* 2026-07-28 has no GET stream and no session to DELETE. */
                r = refuse(c, 405, -32000, "Method not allowed.", true, !keep);
        else if (!json_content_type(http_header(q, "Content-Type")))
                r = refuse(c, 415, -32000, "Unsupported Media Type: Content-Type must be application/json.", false, !keep);
        else {
                size_t n_subs = s->subs ? s->subs->n : 0;

                f = open_memstream(&out, &size);
                if (!f)
                        return -ENOMEM;
                r = mcp_server_handle_http(s, c->in + c->off, q->content_length, &h, f, &status);
                if (fclose(f) != 0 && r >= 0)
                        r = -ENOMEM;
                if (r < 0)
                        return r;
                /* A subscriptions/listen that started (or was acknowledged with nothing to watch): an event stream. */
                if (status == 0 && s->subs && (s->subs->n > n_subs || (size > 0 && !strstr(out, "\"error\"")))) {
                        struct mcp_sub *sub = s->subs->n > n_subs ? s->subs->subs[s->subs->n - 1] : NULL;

                        r = events_begin(c);
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0) {
                                if (sub)
                                        mcp_subs_drop(s->subs, sub);
                                return 0;
                        }
                        if (sub) {
                                c->sub_id = strdup(sub->id);
                                if (!c->sub_id)
                                        return -ENOMEM;
                                sub->out = c->events;
                        }
                        if (size > 0)
                                fwrite(out, 1, size, c->events);
                        return ferror(c->events) ? 0 : 1;
                }
                /* The response is one line; HTTP's body is the JSON without its newline. */
                if (size > 0 && out[size - 1] == '\n')
                        out[--size] = 0;
                r = respond(c, status ?: 200, size > 0 ? out : NULL, false, !keep);
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                log_debug_errno(r, "An MCP client's connection took no answer: %m");
        return r >= 0 && keep;
}

/* What c has read: every whole request in it served. 1 to keep reading, 0 to close, -ENOMEM. */
static int conn_process(struct mcp_server *s, struct agent *a, struct conn *c) {
        for (;;) {
                size_t used = 0;
                int k;

                if (!c->head_done) {
                        if (c->off == c->size)
                                return 1;
                        k = http_request_feed(&c->req, c->in + c->off, c->size - c->off, &used);
                        c->off += used;
                        if (k == 0)
                                return 1;
                        if (k == -EFBIG)
                                return refuse(c, 413, -32000, "Payload Too Large: a request body is at most 1 MiB.",
                                              false, true) == -ENOMEM ? -ENOMEM : 0;
                        if (k == -E2BIG)
                                return refuse(c, 431, -32000, "Request header fields too large.", false, true) == -ENOMEM
                                               ? -ENOMEM : 0;
                        if (k < 0)
                                return refuse(c, 400, -32600, "Bad Request: not an HTTP/1.1 request botdesk takes.",
                                              false, true) == -ENOMEM ? -ENOMEM : 0;
                        c->head_done = true;
                }
                if (c->size - c->off < c->req.content_length)
                        return 1;
                /* A desktop that was dumped under us: opened again for this request (else broken, and we end). */
                if (agent_reopen(a) != EXIT_OK)
                        return 0;
                k = serve_request(s, c);
                if (k <= 0)
                        return k;
                c->off += c->req.content_length;
                conn_reset(c);
                /* An event stream now: what else the client sent is not read as requests. */
                if (c->events)
                        return 1;
                if (agent_broken(a))
                        return 0;
        }
}

/* Reads what c's peer sent. 1 to keep the connection, 0 to close it, -ENOMEM. */
static int conn_read(struct mcp_server *s, struct agent *a, struct conn *c) {
        size_t room_max = HTTP_HEAD_MAX + BODY_MAX + 1;
        ssize_t k;

        if (c->off > 0) {
                memmove(c->in, c->in + c->off, c->size - c->off);
                c->size -= c->off;
                c->off = 0;
        }
        if (!c->in) {
                c->in = malloc(room_max);
                if (!c->in)
                        return -ENOMEM;
        }
        k = recv(c->fd, c->in + c->size, room_max - c->size, 0);
        if (k < 0)
                return errno == EAGAIN || errno == EINTR;
        if (k == 0)
                return 0;
        /* A stream's client has nothing to say on it: bytes it sends are dropped, its close ends the stream. */
        if (c->events)
                return 1;
        c->size += (size_t) k;
        c->deadline = now_usec() + IDLE_USEC;
        return conn_process(s, a, c);
}

/* Only the desktop's own user talks to its agent socket (the 0600 mode says so too). */
static bool peer_allowed(int fd) {
        struct ucred cred;
        socklen_t len = sizeof cred;

        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return false;
        if (cred.uid != geteuid()) {
                log_warning("Refused an MCP connection from uid %u (pid %d): not this desktop's user.",
                            (unsigned) cred.uid, (int) cred.pid);
                return false;
        }
        return true;
}

int mcp_http_listen(const char *spec, char **ret_path) {
        _cleanup_free_ char *path = NULL, *dir = NULL;
        const char *p = startswith(spec, "unix:");
        struct stat st;
        int fd;

        if (!p || p[0] != '/') {
                log_error("--listen takes unix:PATH, an absolute path, got \"%s\".", spec);
                return -EINVAL;
        }
        path = strdup(p);
        dir = strndup(p, (size_t) (strrchr(p, '/') - p));
        if (!path || !dir)
                return log_oom(), -ENOMEM;
        if (stat(*dir ? dir : "/", &st) < 0)
                return log_error_errno(-errno, "Cannot use %s for --listen: %m", *dir ? dir : "/");
        if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 0077)) {
                log_error("%s may be entered by others (mode %04o, owner %u): --listen needs a directory only "
                          "you can enter (mode 0700, yours), such as $XDG_RUNTIME_DIR.",
                          *dir ? dir : "/", (unsigned) (st.st_mode & 07777), (unsigned) st.st_uid);
                return -EPERM;
        }
        if (lstat(path, &st) == 0) {
                int probe;

                if (!S_ISSOCK(st.st_mode)) {
                        log_error("%s exists and is not a socket: botdesk mcp --listen replaces only a socket.", path);
                        return -EEXIST;
                }
                probe = socket_connect_at(AT_FDCWD, path, SOCK_STREAM);
                if (probe >= 0) {
                        safe_close(probe);
                        log_error("%s is in use: another server listens there.", path);
                        return -EADDRINUSE;
                }
                /* A socket nobody listens on any more: a server before this one left it. */
                if (unlink(path) < 0 && errno != ENOENT)
                        return log_error_errno(-errno, "Cannot replace %s: %m", path);
        }
        fd = socket_listen_private(path, SOCK_STREAM | SOCK_NONBLOCK, 16);
        if (fd < 0)
                return log_error_errno(fd, "Cannot listen on %s: %m", path);
        *ret_path = TAKE_PTR(path);
        return fd;
}

/* The next connection from fd: a new fd, -EAGAIN for none now, -EPIPE when no more will come. */
static int next_conn(enum mcp_http_from from, int fd) {
        int c;

        if (from == MCP_HTTP_HANDED) {
                c = socket_recv_fd(fd);
                if (c == -EBADMSG)
                        return -EAGAIN; /* a message that handed nothing: ignored */
        } else {
                c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (c < 0)
                        return errno == EAGAIN || errno == EINTR || errno == ECONNABORTED ? -EAGAIN : -errno;
        }
        if (c >= 0 && from == MCP_HTTP_HANDED && fd_nonblock(c, true) < 0)
                c = safe_close(c);
        if (c >= 0 && !peer_allowed(c))
                c = safe_close(c);
        return c >= 0 ? c : c == -EBADF ? -EAGAIN : c;
}

/* The X server's end, seen as a hang-up of its connection: how a desktop's stop reaches an idle server. */
static int x_fd(const struct agent *a) {
        return a->conn ? xcb_get_file_descriptor(a->conn) : -EBADF;
}

int mcp_http_serve(struct mcp_server *s, struct agent *a, enum mcp_http_from from, int fd) {
        struct conn conns[CONNS_MAX];
        _cleanup_close_ int sigfd = -EBADF;
        struct mcp_task_host *tasks = NULL;
        int listen_fd = from == MCP_HTTP_ONE ? -EBADF : fd;
        bool x_gone = false;
        sigset_t mask;
        int r = EXIT_OK;

        for (size_t i = 0; i < CONNS_MAX; i++)
                conns[i] = (struct conn) { .fd = -EBADF };
        if (from == MCP_HTTP_ONE) {
                int k = fd_nonblock(fd, true);

                if (k < 0) {
                        log_error_errno(k, "Cannot make the connection non-blocking: %m");
                        return EXIT_FAILED;
                }
                conns[0] = (struct conn) { .fd = fd, .deadline = now_usec() + IDLE_USEC };
                conn_reset(&conns[0]);
        }
        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 || (sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
                log_error_errno(-errno, "Cannot set up signal handling: %m");
                return EXIT_FAILED;
        }
        if (listen_fd >= 0 && !(tasks = mcp_task_host_new(a, s, true)))
                return log_oom(), EXIT_FAILED;

        for (;;) {
                struct pollfd pfd[CONNS_MAX + 3 + MCP_TASK_HOST_FDS_MAX];
                size_t map[CONNS_MAX], n = 3, n_conns, busy = 0;
                unsigned long long t = now_usec(), next = ULLONG_MAX;
                int timeout;

                pfd[0] = (struct pollfd) { .fd = sigfd, .events = POLLIN };
                for (size_t i = 0; i < CONNS_MAX; i++) {
                        if (conns[i].fd < 0)
                                continue;
                        /* A stream whose subscription the server ended (or a client stopped taking): done. */
                        if (conns[i].deadline <= t ||
                            (conns[i].events && (ferror(conns[i].events) || (conns[i].sub_id && !conn_sub(s, &conns[i]))))) {
                                conn_close(s, &conns[i]);
                                continue;
                        }
                        busy++;
                        if (conns[i].deadline < next)
                                next = conns[i].deadline;
                        map[n - 3] = i;
                        pfd[n++] = (struct pollfd) { .fd = conns[i].fd, .events = POLLIN };
                }
                /* The one connection served, and gone. */
                if (listen_fd < 0 && busy == 0)
                        break;
                /* The desktop stopped, and its streams have had their ends said (the subscriptions'). */
                if (x_gone && busy == 0) {
                        r = EXIT_NOT_RUNNING;
                        break;
                }
                /* With every slot taken, new clients wait in the backlog; with the desktop gone, for the next server. */
                pfd[1] = (struct pollfd) { .fd = busy < CONNS_MAX && !x_gone ? listen_fd : -1, .events = POLLIN };
                pfd[2] = (struct pollfd) { .fd = x_gone ? -1 : x_fd(a) };  /* no events: its hang-up alone */
                n_conns = n;
                timeout = next == ULLONG_MAX ? -1 : (int) ((next - t + 999) / 1000);
                if (tasks) {
                        int until_expiry = mcp_task_host_timeout(tasks);

                        n += mcp_task_host_fds(tasks, pfd + n);
                        if (until_expiry >= 0 && (timeout < 0 || until_expiry < timeout))
                                timeout = until_expiry;
                }
                if (poll(pfd, n, timeout) < 0) {
                        if (errno == EINTR)
                                continue;
                        log_error_errno(-errno, "Cannot wait for MCP clients: %m");
                        r = EXIT_FAILED;
                        break;
                }
                if (pfd[0].revents)
                        break;
                /* Ended for a dump: opened again at the next request (which ends us if it cannot be). Else
                 * the desktop stopped or restarted. */
                if ((pfd[2].revents & (POLLHUP | POLLERR)) && !agent_lose_if_dumped(a, false)) {
                        log_error("Desktop %s's X server ended (stopped or restarted?); ending once its streams have.",
                                  a->profile);
                        x_gone = true;
                }
                /* A task that finished is one before the next request asks after it. */
                if (tasks)
                        mcp_task_host_dispatch(tasks, pfd + n_conns, NULL);
                if (pfd[1].revents) {
                        int cfd = next_conn(from, listen_fd);

                        /* The hander (botdesk web) is gone: so are the clients it would hand over. */
                        if (cfd == -EPIPE)
                                break;
                        for (size_t i = 0; cfd >= 0 && i < CONNS_MAX; i++)
                                if (conns[i].fd < 0) {
                                        conns[i].fd = TAKE_FD(cfd);
                                        conns[i].deadline = now_usec() + IDLE_USEC;
                                        conn_reset(&conns[i]);
                                }
                }
                for (size_t k = 3; k < n_conns; k++) {
                        struct conn *c = &conns[map[k - 3]];
                        int q;

                        if (!pfd[k].revents)
                                continue;
                        q = conn_read(s, a, c);
                        if (q == -ENOMEM) {
                                log_oom();
                                r = EXIT_FAILED;
                                goto done;
                        }
                        if (q == 0)
                                conn_close(s, c);
                }
                /* Not opened again after a dump: the desktop is gone, and so are we once its streams have
                 * said their ends. */
                if (!x_gone && agent_broken(a) && !a->conn && !a->remote) {
                        log_error("Desktop %s is gone; ending once its streams have.", a->profile);
                        x_gone = true;
                } else if (!x_gone && agent_broken(a) && !agent_lose_if_dumped(a, true)) {
                        log_error("The connection to desktop %s broke (stopped or restarted?); ending.", a->profile);
                        r = EXIT_FAILED;
                        break;
                }
        }
done:
        for (size_t i = 0; i < CONNS_MAX; i++)
                conn_close(s, &conns[i]);
        mcp_task_host_free(tasks, s);
        return r;
}
