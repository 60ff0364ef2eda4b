/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfb-client-probe SOCKET [PASSWORD_FILE]: botdesk's RFB client handshake
 * (control/rfb-client.h) against a real server on a Unix socket. Prints
 * "ready WxH NAME" or "error ERRNO_NAME: PROBLEM" and exits 0 or 1. The
 * password comes from a file, as botdesk takes it, never from argv. Every
 * wait is bounded: 10 s for the whole handshake.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "rfb-client.h"
#include "util.h"

int main(int argc, char **argv) {
        _cleanup_free_ char *password = NULL;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        unsigned long long deadline = now_usec() + 10ull * 1000000ull;
        struct rfb_client c;
        size_t size;
        int fd, r;

        if (argc < 2 || argc > 3 || strlen(argv[1]) >= sizeof sa.sun_path) {
                fprintf(stderr, "usage: rfb-client-probe SOCKET [PASSWORD_FILE]\n");
                return 2;
        }
        if (argc == 3) {
                r = read_full_file(argv[2], &password, &size, 256);
                if (r < 0) {
                        fprintf(stderr, "cannot read %s: %s\n", argv[2], strerror(-r));
                        return 2;
                }
                password[strcspn(password, "\n")] = '\0';
        }
        if (rfb_client_init(&c, password) < 0) {
                printf("error EINVAL: the password is not Latin-1\n");
                return 1;
        }
        strcpy(sa.sun_path, argv[1]);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0) {
                printf("error %s: cannot connect\n", strerrorname_np(errno) ?: "?");
                return 1;
        }
        while (c.state != RFB_CLIENT_READY) {
                uint8_t buf[4096], out[64];
                long long left = (long long) (deadline - now_usec()) / 1000;
                ssize_t n;
                size_t k;

                if (left <= 0 || poll(&(struct pollfd) { .fd = fd, .events = POLLIN }, 1, (int) left) <= 0) {
                        printf("error ETIMEDOUT: the handshake did not end within 10 s\n");
                        return 1;
                }
                n = read(fd, buf, sizeof buf);
                if (n <= 0) {
                        printf("error ECONNRESET: the server closed the connection\n");
                        return 1;
                }
                r = (int) rfb_client_feed(&c, buf, (size_t) n);
                while ((k = rfb_client_take_out(&c, out, sizeof out)) > 0)
                        if (write_all(fd, out, k) < 0) {
                                printf("error EPIPE: cannot write to the server\n");
                                return 1;
                        }
                if (r < 0) {
                        printf("error %s: %s\n", strerrorname_np(-r) ?: "?", c.problem);
                        return 1;
                }
        }
        printf("ready %ux%u %s\n", c.width, c.height, c.name);
        close(fd);
        rfb_client_done(&c);
        return 0;
}
