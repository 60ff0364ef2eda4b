/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The viewer's side of a remote profile's handshake (rfb-front.h): each
 * version a viewer may ask for, fed whole and a byte at a time; what the
 * front says, byte for byte; the server's ServerInit passed on as it came;
 * what follows ClientInit left to the session; and the refusals.
 */
#include "tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "rfb-bytes.h"
#include "rfb-front.h"
#include "util.h"

static const uint8_t pf[16] = { 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0 };

struct run {
        ssize_t used;                   /* of the last feed, or its error */
        size_t taken;                   /* all feeds' */
        struct bytes said;
        struct rfb_front f;
};

/* The viewer's bytes (whole or a byte at a time); everything the front says, gathered after each feed. */
static void run(struct run *x, const struct bytes *in, bool bytewise) {
        const uint8_t *out;
        size_t n;

        *x = (struct run) {};
        if (rfb_front_init(&x->f, 1280, 800, pf, "lab-vm") < 0)
                abort();
        n = rfb_front_pending(&x->f, &out);
        add(&x->said, out, n);
        rfb_front_sent(&x->f, n);
        for (size_t off = 0; off < in->n;) {
                size_t k = bytewise ? 1 : in->n - off;

                x->used = rfb_front_feed(&x->f, in->d + off, k);
                if (x->used < 0)
                        break;
                x->taken += (size_t) x->used;
                off += k;
                n = rfb_front_pending(&x->f, &out);
                add(&x->said, out, n);
                rfb_front_sent(&x->f, n);
        }
}

static void server_init(struct bytes *b) {
        add(b, (uint8_t[]) { 1280 >> 8, 1280 & 255, 800 >> 8, 800 & 255 }, 4);
        add(b, pf, sizeof pf);
        add32(b, 6);
        add(b, "lab-vm", 6);
}

static void check_version(const char *version, unsigned minor) {
        struct bytes in = {}, want = {};
        struct run x;

        add(&in, version, 12);
        if (minor != 3)
                add(&in, (uint8_t[]) { 1 }, 1);         /* None */
        add(&in, (uint8_t[]) { 0 }, 1);                 /* ClientInit, not shared */
        add(&in, (uint8_t[]) { 3, 0, 0, 0, 0, 0, 0, 16, 0, 16 }, 10);  /* a FramebufferUpdateRequest: the session's */

        add(&want, "RFB 003.008\n", 12);
        if (minor == 3)
                add32(&want, 1);
        else
                add(&want, (uint8_t[]) { 1, 1 }, 2);
        if (minor == 8)
                add32(&want, 0);
        server_init(&want);

        for (int bytewise = 0; bytewise < 2; bytewise++) {
                run(&x, &in, bytewise);
                TAP_EQ_INT(x.f.state, RFB_FRONT_READY, "3.%u%s: ready after ClientInit", minor, bytewise ? ", a byte at a time" : "");
                TAP_EQ_INT(x.taken, in.n - 10, "3.%u%s: the request after ClientInit is left to the session", minor,
                           bytewise ? ", a byte at a time" : "");
                tap_ok(x.said.n == want.n && memcmp(x.said.d, want.d, want.n) == 0,
                       "3.%u%s: the version, None, %sthe server's ServerInit, byte for byte", minor,
                       bytewise ? ", a byte at a time" : "", minor == 8 ? "its result, " : "");
                rfb_front_done(&x.f);
        }
}

static void check_refused(const char *what, const void *data, size_t n, const char *problem_part) {
        struct bytes in = {};
        struct run x;

        add(&in, data, n);
        run(&x, &in, false);
        TAP_EQ_INT(x.used, -EPROTO, "%s: -EPROTO", what);
        tap_ok(x.f.state == RFB_FRONT_FAILED && x.f.problem && strstr(x.f.problem, problem_part),
               "%s: failed, saying \"%s\"", what, problem_part);
        TAP_EQ_INT(rfb_front_feed(&x.f, "x", 1), -EPROTO, "%s: and every later feed fails the same way", what);
        rfb_front_done(&x.f);
}

int main(void) {
        struct rfb_front f;
        char *big;

        check_version("RFB 003.008\n", 8);
        check_version("RFB 003.007\n", 7);
        check_version("RFB 003.003\n", 3);

        check_refused("another version", "RFB 003.889\n", 12, "version");
        check_refused("not RFB", "GET / HTTP/1.1\r\n", 16, "version");
        check_refused("VNC authentication chosen (never offered)", "RFB 003.008\n\x02", 13, "not offered");

        big = malloc((64u * 1024u) + 2);
        if (!big)
                abort();
        memset(big, 'n', (64u * 1024u) + 1);
        big[(64u * 1024u) + 1] = '\0';
        TAP_EQ_INT(rfb_front_init(&f, 1, 1, pf, big), -E2BIG, "a name over 64 KiB is refused before anything is said");
        big[64u * 1024u] = '\0';
        TAP_EQ_INT(rfb_front_init(&f, 1, 1, pf, big), 0, "... one of 64 KiB is passed on");
        rfb_front_done(&f);
        free(big);
        return tap_done();
}
