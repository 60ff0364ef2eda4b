/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfb-client-probe SOCKET [PASSWORD_FILE] [--frame]: botdesk's RFB client
 * (control/rfb-client.h, rfb-client-update.h) against a real server on a
 * Unix socket. Prints "ready WxH NAME" or "error ERRNO_NAME: PROBLEM" and
 * exits 0 or 1; with --frame, also "frame RRGGBB N" (the colour at the
 * centre of the whole screen it read, and how many pixels differ from
 * it). The grab is botdesk's own (control/rfb-grab.h). The password comes
 * from a file, as botdesk takes it, never from argv. Every wait is
 * bounded: 10 s in all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "rfb-grab.h"
#include "util.h"

int main(int argc, char **argv) {
        _cleanup_free_ char *password = NULL, *name = NULL;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        /* Freed on every way out: the sanitizers' leak check runs on this program too. */
        _cleanup_(rfb_framebuffer_done) struct rfb_framebuffer fb = {};
        _cleanup_close_ int fd = -EBADF;
        const char *problem = NULL;
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
        strcpy(sa.sun_path, argv[1]);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0) {
                printf("error %s: cannot connect\n", strerrorname_np(errno) ?: "?");
                return 1;
        }
        /* botdesk's own grab (control/rfb-grab.h): the handshake, then one whole screen, 10 s in all. */
        r = rfb_grab(fd, password, now_usec() + 10ull * 1000000ull, &fb, &name, &problem);
        if (r < 0) {
                printf("error %s: %s\n", strerrorname_np(-r) ?: "?", problem);
                return 1;
        }
        printf("ready %ux%u %s\n", fb.width, fb.height, name);
        if (frame) {
                uint32_t centre = fb.pixels[(size_t) (fb.height / 2) * fb.width + fb.width / 2];
                size_t differ = 0;

                for (size_t i = 0; i < (size_t) fb.width * fb.height; i++)
                        differ += fb.pixels[i] != centre;
                printf("frame %06x %zu\n", (unsigned) centre, differ);
        }
        return 0;
}
