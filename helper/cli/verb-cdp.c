/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk cdp PROFILE: the desktop browser's DevTools on stdin and stdout,
 * as its launcher serves them on RUNTIME/cdp.sock (JSON text, each message
 * ended by a NUL byte), for a relay to carry anywhere. It is how `botdesk
 * web` reaches the browser of a desktop placed elsewhere: this verb runs
 * there through the profile's exec prefix, as `botdesk rfb` does for the
 * screen. The bytes pass unchanged both ways; what the launcher decides
 * stays there (the lease's fence answers every command with
 * human_has_control while a human holds control, and the number of
 * clients). Ends when the browser's side does, after passing on what it
 * said, or when stdin ends and the launcher has closed its side.
 */
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buffer.h"
#include "cli.h"
#include "log.h"
#include "running.h"
#include "socket-util.h"
#include "util.h"
#include "verbs.h"

/* Each way: a page's screenshot comes in megabytes, in pieces of this size. */
#define CDP_PIPE_BUF (256u * 1024u)

/* stdin -> sock, sock -> stdout, until the browser's side is done or stdout is gone. */
static int pump(int sock) {
        static uint8_t up_data[CDP_PIPE_BUF], down_data[CDP_PIPE_BUF];
        struct buffer up = BUFFER_FIXED(up_data), down = BUFFER_FIXED(down_data);
        bool in_eof = false, sock_eof = false, up_shut = false;

        for (;;) {
                struct pollfd pfd[3] = {
                        { .fd = STDIN_FILENO }, { .fd = STDOUT_FILENO }, { .fd = sock },
                };

                if (in_eof && !up_shut && buffer_len(&up) == 0) {
                        /* The client is done: the launcher sees the end, answers what is pending, closes. */
                        (void) shutdown(sock, SHUT_WR);
                        up_shut = true;
                }
                if (sock_eof && buffer_len(&down) == 0)
                        return 0;
                if (!in_eof && buffer_room(&up) > 0)
                        pfd[0].events = POLLIN;
                if (buffer_len(&down) > 0)
                        pfd[1].events = POLLOUT;
                if (!sock_eof && buffer_room(&down) > 0)
                        pfd[2].events |= POLLIN;
                if (buffer_len(&up) > 0)
                        pfd[2].events |= POLLOUT;
                if (poll(pfd, ELEMENTSOF(pfd), -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }

                if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
                        ssize_t n = buffer_recv(STDIN_FILENO, &up);

                        if (n == 0 || (n < 0 && n != -EAGAIN))
                                in_eof = true;
                }
                if (pfd[1].revents & (POLLERR | POLLHUP))
                        return -EPIPE;  /* the reader is gone (said even when nothing was asked of stdout) */
                if ((pfd[1].revents & POLLOUT) && buffer_send(STDOUT_FILENO, &down) < 0)
                        return -EPIPE;
                if ((pfd[2].revents & (POLLOUT | POLLERR | POLLHUP)) && buffer_len(&up) > 0 &&
                    buffer_send(sock, &up) < 0) {
                        /* The launcher will hear no more: what it already said still goes out. */
                        buffer_clear(&up);
                        in_eof = up_shut = true;
                }
                if (pfd[2].revents & (POLLIN | POLLHUP | POLLERR)) {
                        ssize_t n = buffer_recv(sock, &down);

                        if (n == 0 || (n < 0 && n != -EAGAIN))
                                sock_eof = true;
                }
        }
}

int verb_cdp(const struct cli_args *a) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, sock = -EBADF;
        const char *profile = a->operand;
        int r;

        r = running_desktop_live(profile, &p, &dirfd);
        if (r != EXIT_OK)
                return r;
        sock = socket_connect_at(dirfd, "cdp.sock", SOCK_STREAM);
        if (sock < 0) {
                log_error("Desktop %s has no browser with DevTools running (%s): start the dock's browser, or "
                          "botdesk exec %s -- botdesk-browser --cdp-socket \"$BOTDESK_CDP_SOCKET\" -- BROWSER.",
                          profile, strerror(-sock), profile);
                return EXIT_FAILED;
        }
        /* A reader gone is an error of a write, said here, not a signal that ends us unsaid. */
        (void) signal(SIGPIPE, SIG_IGN);
        r = pump(sock);
        if (r == -EPIPE)
                return EXIT_OK;         /* the client left: nothing of ours failed */
        if (r < 0) {
                log_error_errno(r, "The DevTools relay of %s failed: %m", profile);
                return EXIT_FAILED;
        }
        return EXIT_OK;
}
