/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A remote profile's front (remote-front.h). The handshake with the server
 * runs here, blocking within its deadline, so that every refusal is this
 * verb's to say; the front is a fork that holds only the two sockets: it
 * greets the viewer (rfb-front.h), then moves bytes until either side ends.
 * A session in VeNCrypt's TLS gets a fork of its own first, the pump, so
 * that the session's fd is plain RFB for the front and everyone else.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buffer.h"
#include "cli.h"
#include "log.h"
#include "remote-connect.h"
#include "remote-front.h"
#include "remote-password.h"
#include "remote-target.h"
#include "rfb-front.h"
#include "rfb-grab.h"
#include "rfb-tls.h"
#include "util.h"

/* A CA bundle: the system's whole one is a few hundred KiB. */
#define REMOTE_CA_MAX (4u * 1024u * 1024u)
/* How long a pump whose plain end closed may take to pass on what it still holds. */
#define PUMP_END_MSEC 2000

/* Each way: a framebuffer update comes in large pieces, input in small ones. */
#define FRONT_BUF_SIZE (256u * 1024u)

/* Only the two sockets (and stderr, for the front's few words) stay open: the fork shares nothing else. */
static void keep_only(int a, int b) {
        int lo = a < b ? a : b, hi = a < b ? b : a;
        int null = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);

        if (null >= 0) {
                (void) dup2(null, STDIN_FILENO);
                (void) dup2(null, STDOUT_FILENO);
                if (null > STDERR_FILENO && null != a && null != b)
                        (void) close(null);
        }
        (void) syscall(SYS_close_range, 3U, (unsigned) lo - 1, 0U);
        (void) syscall(SYS_close_range, (unsigned) lo + 1, (unsigned) hi - 1, 0U);
        (void) syscall(SYS_close_range, (unsigned) hi + 1, ~0U, 0U);
}

/*
 * The front: greet the viewer, then carry bytes. What the server sent after
 * its ServerInit (rest) reaches the viewer after ours. Ends when either
 * side does, after passing on what the other side still had to say.
 */
static _Noreturn void front_main(int viewer, int server, struct rfb_front *hs, const uint8_t *rest, size_t n_rest) {
        static uint8_t up_data[FRONT_BUF_SIZE], down_data[FRONT_BUF_SIZE];
        struct buffer up = BUFFER_FIXED(up_data), down = BUFFER_FIXED(down_data);     /* viewer -> server, server -> viewer */
        unsigned long long deadline = now_usec() + REMOTE_FRONT_HANDSHAKE_SECONDS * 1000000ull;
        bool viewer_eof = false, server_eof = false;
        sigset_t all;

        sigfillset(&all);
        (void) sigprocmask(SIG_UNBLOCK, &all, NULL);
        (void) prctl(PR_SET_NAME, "botdesk-front");
        keep_only(viewer, server);
        (void) buffer_append(&down, rest, n_rest);      /* at most a read's worth: it fits */

        for (;;) {
                bool ready = hs->state == RFB_FRONT_READY;
                const uint8_t *greeting;
                size_t n_greeting = rfb_front_pending(hs, &greeting);
                struct pollfd pfd[2] = { { .fd = viewer }, { .fd = server } };
                int timeout = -1;

                if (viewer_eof && buffer_len(&up) == 0)
                        _exit(EXIT_SUCCESS);
                if (server_eof && buffer_len(&down) == 0 && n_greeting == 0)
                        _exit(EXIT_SUCCESS);
                if (!viewer_eof && buffer_room(&up) > 0)
                        pfd[0].events |= POLLIN;
                if (n_greeting > 0 || (ready && buffer_len(&down) > 0))
                        pfd[0].events |= POLLOUT;
                if (!server_eof && buffer_room(&down) > 0)
                        pfd[1].events |= POLLIN;
                if (ready && buffer_len(&up) > 0)
                        pfd[1].events |= POLLOUT;
                if (!ready) {
                        unsigned long long now = now_usec();

                        if (now >= deadline) {
                                log_error("A viewer of the remote desktop did not finish its RFB handshake in %u s.",
                                          REMOTE_FRONT_HANDSHAKE_SECONDS);
                                _exit(EXIT_FAILURE);
                        }
                        timeout = (int) ((deadline - now + 999) / 1000);
                }
                if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
                        _exit(EXIT_FAILURE);

                if (pfd[0].revents & (POLLOUT | POLLERR | POLLHUP)) {
                        if (n_greeting > 0) {
                                ssize_t n = send(viewer, greeting, n_greeting, MSG_NOSIGNAL | MSG_DONTWAIT);

                                if (n < 0 && errno != EAGAIN && errno != EINTR)
                                        _exit(EXIT_SUCCESS);
                                if (n > 0)
                                        rfb_front_sent(hs, (size_t) n);
                        } else if (ready && buffer_len(&down) > 0 && buffer_send(viewer, &down) < 0)
                                _exit(EXIT_SUCCESS);
                }
                if (pfd[0].revents & (POLLIN | POLLERR | POLLHUP)) {
                        /* Where the read lands: buffer_recv() then moves nothing. */
                        size_t before = (buffer_reserve(&up, 1), up.end);
                        ssize_t n = buffer_recv(viewer, &up);

                        if (n == 0 || (n < 0 && n != -EAGAIN))
                                viewer_eof = true;
                        if (n > 0 && !ready) {
                                /* The handshake's bytes are the front's; what follows ClientInit is the server's. */
                                ssize_t used = rfb_front_feed(hs, up.data + before, (size_t) n);

                                if (used < 0) {
                                        log_error("Refused a viewer of the remote desktop: %s.", hs->problem);
                                        _exit(EXIT_FAILURE);
                                }
                                memmove(up.data + before, up.data + before + used, (size_t) (n - used));
                                up.end -= (size_t) used;
                        }
                }
                if ((pfd[1].revents & (POLLOUT | POLLERR | POLLHUP)) && buffer_len(&up) > 0 && buffer_send(server, &up) < 0)
                        _exit(EXIT_SUCCESS);
                if (pfd[1].revents & (POLLIN | POLLERR | POLLHUP)) {
                        ssize_t n = buffer_recv(server, &down);

                        if (n == 0 || (n < 0 && n != -EAGAIN))
                                server_eof = true;
                }
        }
}

/* The pump: the TLS session and its transport, and the plain end; nothing else of ours. */
static _Noreturn void pump_main(struct rfb_tls *tls, int transport, int plain) {
        sigset_t all;

        sigfillset(&all);
        (void) sigprocmask(SIG_UNBLOCK, &all, NULL);
        (void) prctl(PR_SET_NAME, "botdesk-tls");
        keep_only(plain, transport);
        rfb_tls_pump(tls, plain);
        _exit(EXIT_SUCCESS);
}

/*
 * The session's fd made plain: a pump forked to carry *fd's TLS. 0 with
 * *fd the plain end (the transport closed here: the pump holds it) and
 * *ret_pid; or -errno, *fd untouched.
 */
static int pump_start(struct rfb_tls *tls, int *fd, pid_t *ret_pid) {
        int sv[2], r;
        pid_t pid;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
                return negative_errno();
        pid = fork();
        if (pid < 0) {
                r = negative_errno();
                safe_close(sv[0]);
                safe_close(sv[1]);
                return r;
        }
        if (pid == 0) {
                (void) close(sv[0]);
                pump_main(tls, *fd, sv[1]);
        }
        safe_close(sv[1]);
        safe_close(*fd);
        *fd = sv[0];
        *ret_pid = pid;
        return 0;
}

/* Once its plain end is closed: the pump passes on what it holds and exits; one that does not is killed. */
static void pump_end(pid_t *pid) {
        _cleanup_close_ int pidfd = -EBADF;

        if (*pid <= 0)
                return;
        pidfd = pidfd_open(*pid, 0);
        if (pidfd < 0 || poll(&(struct pollfd) { .fd = pidfd, .events = POLLIN }, 1, PUMP_END_MSEC) <= 0)
                (void) kill(*pid, SIGKILL);
        while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
                ;
        *pid = 0;
}

int remote_geometry_read_at(int dirfd, char **ret) {
        _cleanup_free_ char *text = NULL;
        unsigned long long w, h;
        char *x;
        int r;

        r = read_full_file_at(dirfd, REMOTE_GEOMETRY_FILE, &text, NULL, 32);
        if (r < 0)
                return r;
        text[strcspn(text, "\n")] = '\0';
        x = strchr(text, 'x');
        if (!x)
                return -EBADMSG;
        *x = '\0';
        if (parse_uint(text, 65535, &w) < 0 || parse_uint(x + 1, 65535, &h) < 0)
                return -EBADMSG;
        *ret = strdup_printf("%llux%llu", w, h);
        return *ret ? 0 : -ENOMEM;
}

static void geometry_write_at(int dirfd, uint16_t width, uint16_t height) {
        char text[32];
        int n = snprintf(text, sizeof text, "%ux%u\n", width, height);

        if (dirfd >= 0)
                (void) write_file_atomic_at(dirfd, REMOTE_GEOMETRY_FILE, text, (size_t) n, 0600);
}

int remote_session_open(const char *profile, const struct bd_config *c, int dirfd, struct remote_session *ret) {
        _cleanup_(remote_password_freep) char *password = NULL;
        _cleanup_free_ uint8_t *rest = NULL;
        _cleanup_free_ char *ca = NULL;
        _cleanup_free_ struct rfb_handshake_tls *tls = NULL;
        unsigned long long deadline;
        struct remote_target t;
        const char *problem = NULL;
        pid_t transport = 0, pump = 0;
        size_t ca_len = 0;
        int fd = -EBADF, r;

        *ret = (struct remote_session) { .fd = -EBADF };
        if (remote_target_parse(c->remote, &t, &problem) < 0) {
                log_error("Invalid remote = %s of profile %s: %s.", c->remote, profile, problem);
                return EXIT_USAGE;
        }
        /* With a CA the session is TLS or nothing (rfb_client_use_tls()): not in clear, whatever the address. */
        if (remote_target_public(&t) && !c->remote_ca_file)
                log_warning("Profile %s (remote = %s): %s.", profile, c->remote, REMOTE_PUBLIC_WARNING);
        if (c->remote_ca_file) {
                r = read_full_file(c->remote_ca_file, &ca, &ca_len, REMOTE_CA_MAX);
                if (r < 0) {
                        log_error_errno(r, "Cannot read remote_ca_file = %s of profile %s: %m", c->remote_ca_file,
                                        profile);
                        return EXIT_FAILED;
                }
        }
        r = remote_password_read(profile, c->remote_password_file, &password, &problem);
        if (r < 0) {
                log_error("Cannot use the VNC password of profile %s (%s): %s.", profile,
                          c->remote_password_file ?: "its credential", problem);
                return EXIT_FAILED;
        }
        rest = malloc(RFB_HANDSHAKE_READ);
        tls = calloc(1, sizeof *tls);
        if (!rest || !tls)
                return log_oom(), EXIT_FAILED;
        *tls = (struct rfb_handshake_tls) {
                .ca_pem = ca,
                .ca_len = ca_len,
                .address = t.kind == REMOTE_ADDRESS ? (const struct sockaddr *) &t.address : NULL,
        };

        deadline = now_usec() + REMOTE_FRONT_HANDSHAKE_SECONDS * 1000000ull;
        r = remote_connect(&t, deadline, &fd, &transport, &problem);
        if (r >= 0) {
                r = rfb_handshake(fd, password, tls, deadline, &ret->client, rest, &ret->n_rest, &problem);
                if (r < 0) {
                        fd = safe_close(fd);
                        remote_child_end(transport);
                }
        }
        if (r < 0) {
                /* The problem in botdesk's words (or GnuTLS's): never the server's own text. */
                log_error("The VNC server of profile %s (remote = %s): %s.", profile, c->remote, problem);
                return EXIT_FAILED;
        }
        geometry_write_at(dirfd, ret->client.width, ret->client.height);
        /* The key and the password are spent: no copy of them (a fork's included) outlives the handshake. */
        explicit_bzero(ret->client.key, sizeof ret->client.key);
        remote_password_free(TAKE_PTR(password));
        if (tls->tls) {
                r = pump_start(tls->tls, &fd, &pump);
                tls->tls = rfb_tls_free(tls->tls);
                if (r < 0) {
                        safe_close(fd);
                        remote_child_end(transport);
                        rfb_client_done(&ret->client);
                        log_error_errno(r, "Cannot start the TLS pump of profile %s: %m", profile);
                        return EXIT_FAILED;
                }
        }
        ret->fd = fd;
        ret->transport = transport;
        ret->pump = pump;
        ret->rest = TAKE_PTR(rest);
        return EXIT_OK;
}

void remote_session_close(struct remote_session *s) {
        s->fd = safe_close(s->fd);
        pump_end(&s->pump);
        remote_child_end(s->transport);
        s->transport = 0;
        rfb_client_done(&s->client);
        free(s->rest);
        s->rest = NULL;
        s->n_rest = 0;
}

int remote_front_open(const char *profile, const struct bd_config *c, int dirfd, struct remote_front *ret) {
        _cleanup_(remote_session_close) struct remote_session s = { .fd = -EBADF };
        _cleanup_(rfb_front_done) struct rfb_front hs = {};
        pid_t pid;
        int sv[2], r;

        *ret = (struct remote_front) { .fd = -EBADF };
        r = remote_session_open(profile, c, dirfd, &s);
        if (r != EXIT_OK)
                return r;
        r = rfb_front_init(&hs, s.client.width, s.client.height, s.client.pixel_format, s.client.name);
        if (r >= 0 && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                r = negative_errno();
        if (r < 0)
                return log_error_errno(r, "Cannot serve the remote desktop of %s: %m", profile), EXIT_FAILED;
        ret->width = s.client.width;
        ret->height = s.client.height;

        pid = fork();
        if (pid < 0) {
                r = negative_errno();
                safe_close(sv[0]);
                safe_close(sv[1]);
                return log_error_errno(r, "Cannot start the front of %s: %m", profile), EXIT_FAILED;
        }
        if (pid == 0) {
                (void) close(sv[0]);
                front_main(sv[1], s.fd, &hs, s.rest, s.n_rest);
        }
        safe_close(sv[1]);
        ret->fd = sv[0];
        ret->front = pid;
        /* The pump and the transport's command are the caller's to end, after the front. */
        ret->transport = s.transport;
        s.transport = 0;
        ret->pump = s.pump;
        s.pump = 0;
        return EXIT_OK;
}

void remote_front_close(struct remote_front *f) {
        f->fd = safe_close(f->fd);
        if (f->front > 0) {
                /* Ours and not yet reaped: the pid is still its. Its end is near anyway (its socket closed). */
                (void) kill(f->front, SIGTERM);
                while (waitpid(f->front, NULL, 0) < 0 && errno == EINTR)
                        ;
                f->front = 0;
        }
        pump_end(&f->pump);
        remote_child_end(f->transport);
        f->transport = 0;
}
