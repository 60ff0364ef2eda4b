/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: the event loop, the listener, the limits, the lease watch
 * and the shutdown. Everything waits on sd-event: accepts, sockets, one
 * inotify descriptor for the runtime dirs of the profiles being watched,
 * SIGTERM/SIGINT, timers.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>

#include "config.h"
#include "log.h"
#include "socket-util.h"
#include "util.h"
#include "web-server.h"
#include "web.h"

static int on_inotify(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        web_server_lease_changes(userdata);
        return 0;
}

/* ---- listener ------------------------------------------------------------------------------- */

static void maybe_exit(struct web_server *s) {
        if (s->exiting && s->n_connections == 0)
                (void) sd_event_exit(s->event, 0);
}

void web_set_events(sd_event_source *src, uint32_t events) {
        if (!src)
                return;
        if (events) {
                (void) sd_event_source_set_io_events(src, events);
                (void) sd_event_source_set_enabled(src, SD_EVENT_ON);
        } else
                (void) sd_event_source_set_enabled(src, SD_EVENT_OFF);
}

void web_server_connection_gone(struct web_server *s) {
        s->n_connections--;
        maybe_exit(s);
}

/*
 * Who is on the other end, for the per-peer share of the connections: the
 * address over TCP (every local user shares 127.0.0.1, but the share only
 * decides whose idle connection makes room, never refuses a request that
 * arrives), the uid over a Unix socket.
 */
static void peer_name(int fd, const struct sockaddr *sa, char *out, size_t size) {
        char text[INET6_ADDRSTRLEN] = "?";
        struct ucred cred;
        socklen_t l = sizeof cred;

        if (sa->sa_family == AF_INET)
                (void) inet_ntop(AF_INET, &((const struct sockaddr_in *) sa)->sin_addr, text, sizeof text);
        else if (sa->sa_family == AF_INET6)
                (void) inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) sa)->sin6_addr, text, sizeof text);
        else {
                if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &l) >= 0)
                        snprintf(out, size, "uid:%u", (unsigned) cred.uid);
                else
                        snprintf(out, size, "uid:?");
                return;
        }
        snprintf(out, size, "ip:%s", text);
}

static int on_accept(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        struct web_server *s = userdata;

        for (unsigned i = 0; i < 16; i++) {
                union {
                        struct sockaddr sa;
                        struct sockaddr_in in4;
                        struct sockaddr_in6 in6;
                        struct sockaddr_un un;
                } a = {};
                socklen_t len = sizeof a;
                char peer[WEB_PEER_MAX];
                int c = accept4(fd, &a.sa, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);

                if (c < 0) {
                        if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
                                log_warning_errno(errno, "accept() failed, ignoring: %m");
                        return 0;
                }
                peer_name(c, &a.sa, peer, sizeof peer);
                if (!web_conns_make_room(s, peer)) {
                        static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n"
                                                   "Content-Length: 0\r\n\r\n";
                        (void) send(c, busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
                        safe_close(c);
                        continue;
                }
                if (web_conn_new(s, c, peer) < 0)
                        log_warning("Cannot serve a new connection, ignoring.");
        }
        return 0;
}

static int listen_unix(struct web_server *s, const char *path) {
        _cleanup_close_ int fd = -EBADF;
        struct sockaddr_un sa;
        struct stat st;

        if (sockaddr_un_set_path(&sa, path) == -ENAMETOOLONG)
                return log_error_errno(ENAMETOOLONG, "The socket path %s is longer than a Unix socket allows.", path);

        /* A socket left by a server that died is replaced; a live one is not. */
        if (lstat(path, &st) >= 0) {
                _cleanup_close_ int probe = -EBADF;

                if (!S_ISSOCK(st.st_mode))
                        return log_error_errno(EEXIST, "%s exists and is not a socket; remove it.", path);
                probe = socket_connect_at(AT_FDCWD, path, SOCK_STREAM);
                if (probe >= 0)
                        return log_error_errno(EADDRINUSE, "botdesk web already listens on %s.", path);
                (void) unlink(path);
        }

        /* 0600 from the start: no window in which another user may connect. */
        fd = socket_listen_private(path, SOCK_STREAM | SOCK_NONBLOCK, SOMAXCONN);
        if (fd < 0)
                return log_error_errno(fd, "Cannot listen on %s: %m", path);
        s->socket_path = strdup(path);
        if (!s->socket_path)
                return log_oom();
        s->listen_fd = TAKE_FD(fd);
        return 0;
}

/* 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104: the only addresses botdesk web serves on. */
static bool address_is_loopback(const struct sockaddr *sa) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) sa;

        if (sa->sa_family == AF_INET)
                return (ntohl(((const struct sockaddr_in *) sa)->sin_addr.s_addr) >> 24) == 127;
        if (sa->sa_family == AF_INET6)
                return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
                       (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127);
        return false;
}

/* The URL of a bound TCP socket, malloc'd; NULL when out of memory. */
static char *tcp_url(const struct sockaddr *sa) {
        char shown[INET6_ADDRSTRLEN];

        if (sa->sa_family == AF_INET) {
                const struct sockaddr_in *in4 = (const struct sockaddr_in *) sa;
                inet_ntop(AF_INET, &in4->sin_addr, shown, sizeof shown);
                return strdup_printf("http://%s:%u", shown, ntohs(in4->sin_port));
        }
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, shown, sizeof shown);
        return strdup_printf("http://[%s]:%u", shown, ntohs(in6->sin6_port));
}

/* HOST:PORT, only a loopback address: anything wider would be every local user's and more. */
static int listen_tcp(struct web_server *s, const char *spec, char **ret_url) {
        _cleanup_free_ char *host = NULL;
        union {
                struct sockaddr sa;
                struct sockaddr_in in4;
                struct sockaddr_in6 in6;
        } a = {};
        socklen_t len;
        const char *colon = strrchr(spec, ':');
        unsigned long long port;
        _cleanup_close_ int fd = -EBADF;
        int one = 1;

        if (!colon || parse_uint(colon + 1, 65535, &port) < 0)
                return log_error_errno(EINVAL, "Cannot parse --listen %s: use unix:PATH or 127.0.0.1:PORT.", spec);
        host = strndup(spec, (size_t) (colon - spec));
        if (!host)
                return log_oom();
        if (host[0] == '[' && host[strlen(host) - 1] == ']') {
                memmove(host, host + 1, strlen(host) - 2);
                host[strlen(host) - 2] = 0;
        }
        if (inet_pton(AF_INET, host, &a.in4.sin_addr) == 1) {
                a.in4.sin_family = AF_INET;
                a.in4.sin_port = htons((uint16_t) port);
                len = sizeof a.in4;
                if (!address_is_loopback(&a.sa))
                        goto not_loopback;
        } else if (inet_pton(AF_INET6, host, &a.in6.sin6_addr) == 1) {
                a.in6.sin6_family = AF_INET6;
                a.in6.sin6_port = htons((uint16_t) port);
                len = sizeof a.in6;
                if (!address_is_loopback(&a.sa))
                        goto not_loopback;
        } else
                return log_error_errno(EINVAL, "--listen %s: %s is not an IP address (use 127.0.0.1 or ::1).", spec, host);

        fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return log_error_errno(errno, "Cannot create a TCP socket: %m");
        (void) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, &a.sa, len) < 0)
                return log_error_errno(errno, "Cannot bind %s: %m", spec);
        if (listen(fd, SOMAXCONN) < 0)
                return log_error_errno(errno, "Cannot listen on %s: %m", spec);
        /* Port 0 picks one: say which. */
        len = sizeof a;
        if (getsockname(fd, &a.sa, &len) < 0)
                return log_error_errno(errno, "getsockname() failed: %m");
        *ret_url = tcp_url(&a.sa);
        if (!*ret_url)
                return log_oom();
        s->tcp = true;
        s->listen_fd = TAKE_FD(fd);
        return 0;

not_loopback:
        return log_error_errno(EPERM, "--listen %s: only a loopback address (127.0.0.0/8, ::1) is allowed; "
                               "put a reverse proxy with its own authentication in front for anything wider.", spec);
}

/*
 * A socket from systemd (botdesk-web.socket): a Unix one is private, a TCP
 * one needs tickets and, as --listen, a loopback address: a unit that says
 * ListenStream=8080 binds every interface, and serving that would hand the
 * page (and the login it leads to) to the network.
 */
static int listen_activated(struct web_server *s, char **ret_url) {
        int n = sd_listen_fds(true), fd = SD_LISTEN_FDS_START;
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;

        if (n < 0)
                return log_error_errno(n, "Cannot take the sockets passed by systemd (LISTEN_FDS): %m");
        if (n == 0)
                return 0;
        if (n > 1)
                log_warning("%d sockets passed by systemd; using the first, ignoring the others.", n);
        if (sd_is_socket(fd, AF_UNSPEC, SOCK_STREAM, 1) <= 0)
                return log_error_errno(EINVAL, "The socket passed by systemd is not a listening stream socket.");
        if (getsockname(fd, (struct sockaddr *) &ss, &len) < 0)
                return log_error_errno(errno, "getsockname() failed: %m");
        if (ss.ss_family == AF_INET || ss.ss_family == AF_INET6) {
                if (!address_is_loopback((struct sockaddr *) &ss)) {
                        _cleanup_free_ char *where = tcp_url((struct sockaddr *) &ss);
                        return log_error_errno(EPERM, "The socket passed by systemd is bound to %s: only a loopback "
                                               "address (127.0.0.0/8, ::1) is served; set ListenStream=127.0.0.1:PORT, "
                                               "or put a reverse proxy with its own authentication in front.",
                                               where ? where + strlen("http://") : "a non-loopback address");
                }
                s->tcp = true;
                *ret_url = tcp_url((struct sockaddr *) &ss);
                if (!*ret_url)
                        return log_oom();
        } else if (ss.ss_family != AF_UNIX)
                return log_error_errno(EINVAL, "The socket passed by systemd is neither Unix nor TCP.");
        if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
                return log_error_errno(errno, "Cannot set up the socket passed by systemd: %m");
        s->listen_fd = fd;
        s->activated = true;
        return 1;
}

/* ---- the base dir, noVNC -------------------------------------------------------------------- */

static int ensure_runtime_base(const char *base) {
        if (mkdir(base, 0700) < 0 && errno != EEXIST)
                return negative_errno();
        return dir_is_private(base, getuid());
}

static const char *const novnc_dirs[] = { "/usr/share/novnc", "/usr/share/javascript/novnc" };

static void open_novnc(struct web_server *s, const char *dir) {
        for (size_t i = 0; i < (dir ? 1 : ELEMENTSOF(novnc_dirs)); i++) {
                const char *d = dir ?: novnc_dirs[i];
                int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                struct stat st;

                /* noVNC is there when its RFB module is. */
                if (fd >= 0 && fstatat(fd, "core/rfb.js", &st, 0) >= 0 && S_ISREG(st.st_mode)) {
                        s->novnc_fd = fd;
                        s->novnc_dir = strdup(d);
                        return;
                }
                safe_close(fd);
        }
        log_warning("noVNC not found in %s; the page says how to install it (package novnc, or --novnc DIR).",
                    dir ?: "/usr/share/novnc");
}

/* ---- signals and shutdown ------------------------------------------------------------------- */

static int on_shutdown_timeout(sd_event_source *src, uint64_t usec, void *userdata) {
        struct web_server *s = userdata;

        log_warning("%u connection(s) did not close in time; exiting anyway.", s->n_connections);
        return sd_event_exit(s->event, 0);
}

static int on_signal(sd_event_source *src, const struct signalfd_siginfo *si, void *userdata) {
        struct web_server *s = userdata;

        if (s->exiting)
                return sd_event_exit(s->event, 0);
        log_info("Signal %u: closing every stream, then exiting.", si->ssi_signo);
        s->exiting = true;
        s->listen_source = sd_event_source_disable_unref(s->listen_source);
        web_conns_close_all(s);
        web_devtools_close_all(s, WS_CLOSE_GOING_AWAY, "server shutting down");
        web_server_lease_changes(s);
        for (struct web_profile *p = s->profiles, *next; p; p = next) {
                next = p->next;
                /* Its viewer's streams end with this server: record the deadline of
                 * the hold now, for the desktop's helper to honour, whether or not
                 * they finish their close in time. */
                for (struct web_stream *st = p->streams; st; st = web_stream_next(st))
                        if (lease_allows_input(&p->lease, web_stream_viewer(st))) {
                                web_profile_viewer_gone(p, web_stream_viewer(st), false);
                                break;
                        }
                for (struct web_stream *st = p->streams, *n2; st; st = n2) {
                        n2 = web_stream_next(st);
                        web_stream_close(st, WS_CLOSE_GOING_AWAY, "server shutting down");
                }
        }
        (void) sd_event_add_time_relative(s->event, NULL, CLOCK_MONOTONIC, WEB_SHUTDOWN_TIMEOUT_USEC, 0,
                                          on_shutdown_timeout, s);
        maybe_exit(s);
        return 0;
}

static void server_free(struct web_server *s) {
        if (!s)
                return;
        web_profiles_done(s);
        web_mcp_hosts_done(s);
        web_jobs_done(s);
        sd_event_source_disable_unref(s->listen_source);
        sd_event_source_disable_unref(s->inotify_source);
        if (s->socket_path && !s->activated)
                (void) unlink(s->socket_path);
        if (s->url_file)
                (void) unlink(s->url_file);
        if (!s->activated)
                safe_close(s->listen_fd);
        safe_close(s->inotify_fd);
        safe_close(s->ticket_dirfd);
        safe_close(s->novnc_fd);
        sd_event_unref(s->event);
        free(s->socket_path);
        free(s->url_file);
        free(s->runtime_base);
        free(s->novnc_dir);
        free(s);
}

int web_server_run(const char *listen_spec, const char *novnc_dir, unsigned ping, web_spawn_fn spawn) {
        struct web_server *s;
        _cleanup_free_ char *url = NULL;
        sigset_t mask;
        int r;

        s = calloc(1, sizeof *s);
        if (!s)
                return log_oom();
        s->listen_fd = s->inotify_fd = s->ticket_dirfd = s->novnc_fd = -EBADF;
        s->ping_usec = (unsigned long long) ping * 1000000ULL;
        s->spawn = spawn;

        r = paths_runtime_base(&s->runtime_base);
        if (r < 0) {
                log_error_errno(r, "Cannot find the runtime directory: %m");
                goto out;
        }
        r = ensure_runtime_base(s->runtime_base);
        if (r < 0) {
                log_error_errno(r, "%s is not a private directory of uid %u (%m); remove it or fix its owner and mode.",
                                s->runtime_base, (unsigned) getuid());
                goto out;
        }
        r = ticket_dir_open(s->runtime_base, true, &s->ticket_dirfd);
        if (r < 0) {
                log_error_errno(r, "Cannot open the ticket directory %s/" TICKET_DIR ": %m", s->runtime_base);
                goto out;
        }

        r = listen_spec ? 0 : listen_activated(s, &url);
        if (r < 0)
                goto out;
        if (r == 0) {
                if (listen_spec && !startswith(listen_spec, "unix:"))
                        r = listen_tcp(s, listen_spec, &url);
                else {
                        _cleanup_free_ char *def = strdup_printf("%s/" WEB_SOCKET_NAME, s->runtime_base);
                        r = def ? listen_unix(s, listen_spec ? listen_spec + 5 : def) : -ENOMEM;
                }
                if (r < 0)
                        goto out;
        }
        open_novnc(s, novnc_dir);

        r = sd_event_new(&s->event);
        if (r < 0) {
                log_error_errno(r, "Cannot create the event loop: %m");
                goto out;
        }
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        /* The children of placed profiles are child sources (web-placed.c). */
        sigaddset(&mask, SIGCHLD);
        (void) sigprocmask(SIG_BLOCK, &mask, NULL);
        (void) signal(SIGPIPE, SIG_IGN);
        if ((r = sd_event_add_signal(s->event, NULL, SIGTERM, on_signal, s)) < 0 ||
            (r = sd_event_add_signal(s->event, NULL, SIGINT, on_signal, s)) < 0) {
                log_error_errno(r, "Cannot handle signals: %m");
                goto out;
        }
        s->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (s->inotify_fd < 0) {
                r = log_error_errno(errno, "Cannot watch control leases (inotify): %m");
                goto out;
        }
        r = sd_event_add_io(s->event, &s->inotify_source, s->inotify_fd, EPOLLIN, on_inotify, s);
        if (r >= 0)
                r = sd_event_add_io(s->event, &s->listen_source, s->listen_fd, EPOLLIN, on_accept, s);
        if (r < 0) {
                log_error_errno(r, "Cannot watch the listener: %m");
                goto out;
        }

        /* `botdesk web ticket` prints a whole URL when it knows where the server listens. */
        if (url) {
                s->url_file = strdup_printf("%s/" WEB_URL_FILE, s->runtime_base);
                if (s->url_file) {
                        _cleanup_close_ int dfd = open(s->runtime_base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        _cleanup_free_ char *line = strdup_printf("%s\n", url);
                        if (dfd < 0 || !line || write_file_atomic_at(dfd, WEB_URL_FILE, line, strlen(line), 0600) < 0)
                                log_warning("Cannot write %s, ignoring: tickets will print a path only.", s->url_file);
                }
        }
        if (s->tcp)
                printf("Listening on %s/ (every request needs a ticket)\n", url ?: "a TCP socket from systemd");
        else
                printf("Listening on unix:%s\n", s->socket_path ?: "a socket from systemd");
        fflush(stdout);
        (void) sd_notify(false, "READY=1\nSTATUS=Serving noVNC and RFB over WebSocket");

        r = sd_event_loop(s->event);
        if (r < 0)
                log_error_errno(r, "The event loop failed: %m");
out:
        server_free(s);
        return r;
}
