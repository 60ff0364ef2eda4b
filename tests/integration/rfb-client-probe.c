/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfb-client-probe SOCKET [PASSWORD_FILE] [--frame]: botdesk's RFB client
 * (control/rfb-client.h, rfb-client-update.h) against a real server on a
 * Unix socket. Prints "ready WxH NAME" or "error ERRNO_NAME: PROBLEM" and
 * exits 0 or 1; with --frame, then asks for the whole screen and prints
 * "frame RRGGBB N" (the colour at its centre, and how many pixels differ
 * from it). The password comes from a file, as botdesk takes it, never
 * from argv. Every wait is bounded: 10 s in all.
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
#include "rfb-client-update.h"
#include "util.h"

int main(int argc, char **argv) {
        _cleanup_free_ char *password = NULL;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        unsigned long long deadline = now_usec() + 10ull * 1000000ull;
        /* Freed on every way out: the sanitizers' leak check runs on this program too. */
        _cleanup_(rfb_client_done) struct rfb_client c = {};
        _cleanup_(rfb_framebuffer_done) struct rfb_framebuffer fb = {};
        _cleanup_close_ int fd = -EBADF;
        size_t size;
        int r = 0;

        bool frame = argc > 2 && streq(argv[argc - 1], "--frame");

        if (frame)
                argc--;
        if (argc < 2 || argc > 3 || strlen(argv[1]) >= sizeof sa.sun_path) {
                fprintf(stderr, "usage: rfb-client-probe SOCKET [PASSWORD_FILE] [--frame]\n");
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
        uint8_t buf[65536], out[64];
        ssize_t n = 0;

        while (c.state != RFB_CLIENT_READY) {
                long long left = (long long) (deadline - now_usec()) / 1000;
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
        if (frame) {
                struct rfb_update_reader rd;
                uint8_t req[20];
                size_t rest = (size_t) n - (size_t) r, differ = 0;
                uint32_t centre;

                if (rfb_framebuffer_init(&fb, c.width, c.height) < 0)
                        return 1;
                rfb_update_reader_init(&rd);
                if (write_all(fd, req, rfb_request_pixel_format(req)) < 0 ||
                    write_all(fd, req, rfb_request_encodings(req)) < 0 ||
                    write_all(fd, req, rfb_request_update(false, 0, 0, c.width, c.height, req)) < 0) {
                        printf("error EPIPE: cannot write to the server\n");
                        return 1;
                }
                /* What came after ServerInit in the last read is the session's. */
                if (rest > 0 && rfb_update_feed(&rd, &fb, buf + r, rest) < 0) {
                        printf("error EPROTO: a message botdesk cannot read\n");
                        return 1;
                }
                while (rd.updates == 0) {
                        long long left = (long long) (deadline - now_usec()) / 1000;

                        if (left <= 0 || poll(&(struct pollfd) { .fd = fd, .events = POLLIN }, 1, (int) left) <= 0) {
                                printf("error ETIMEDOUT: no whole update within 10 s\n");
                                return 1;
                        }
                        n = read(fd, buf, sizeof buf);
                        if (n <= 0 || rfb_update_feed(&rd, &fb, buf, (size_t) n) < 0) {
                                printf("error EPROTO: the server closed, or sent what botdesk cannot read\n");
                                return 1;
                        }
                }
                centre = fb.pixels[(size_t) (c.height / 2) * c.width + c.width / 2];
                for (size_t i = 0; i < (size_t) c.width * c.height; i++)
                        differ += fb.pixels[i] != centre;
                printf("frame %06x %zu\n", (unsigned) centre, differ);
        }
        return 0;
}
