/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client's RFB handshake (rfb-client.h) against servers' transcripts:
 * each version and security type, fed whole and a byte at a time; what the
 * client answers, byte for byte; every refusal with its error and words
 * that never carry the server's own text; and the VNC authentication's
 * responses against DES answers computed with OpenSSL.
 */
#include "tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "rfb-bytes.h"
#include "rfb-client.h"
#include "util.h"

static void server_init(struct bytes *b, uint16_t w, uint16_t h, const char *name, uint32_t name_len) {
        uint8_t head[20] = { (uint8_t) (w >> 8), (uint8_t) w, (uint8_t) (h >> 8), (uint8_t) h, 32, 24, 0, 1 };

        add(b, head, sizeof head);
        add32(b, name_len);
        if (name)
                add(b, name, strlen(name));
}

static const uint8_t challenge[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
/* openssl enc -des-ecb -nopad -K 46f62e26a6ced600 (botdesk, bits reversed) of 00..0f */
static const uint8_t botdesk_response[16] = { 0x8d, 0x8b, 0x6b, 0x0a, 0xd2, 0xd5, 0xb3, 0xe3,
                                              0x41, 0x8f, 0x37, 0xaf, 0x44, 0x7f, 0xa7, 0x78 };

struct run {
        ssize_t r;
        struct bytes out;
        struct rfb_client c;
};

/* Feeds the transcript (whole, or a byte at a time) and gathers what the client said. */
static void run(struct run *x, const char *password, const struct bytes *in, bool bytewise) {
        size_t off = 0;

        *x = (struct run) {};
        if (rfb_client_init(&x->c, password) < 0)
                abort();
        while (off < in->n) {
                size_t n = bytewise ? 1 : in->n - off;
                uint8_t o[64];
                size_t k;

                x->r = rfb_client_feed(&x->c, in->d + off, n);
                while ((k = rfb_client_take_out(&x->c, o, sizeof o)) > 0)
                        add(&x->out, o, k);
                if (x->r < 0 || (size_t) x->r < n) {
                        if (x->r >= 0)
                                x->r = (ssize_t) (off + (size_t) x->r);
                        return;
                }
                off += n;
                x->r = (ssize_t) off;
        }
}

static bool out_is(const struct run *x, const struct bytes *want) {
        return x->out.n == want->n && memcmp(x->out.d, want->d, want->n) == 0;
}

static void check_vnc_38(bool bytewise) {
        struct bytes in = {}, want = {};
        struct run x;

        add(&in, "RFB 003.008\n", 12);
        add(&in, "\x02\x01\x02", 3);
        add(&in, challenge, 16);
        add32(&in, 0);
        server_init(&in, 800, 600, "work", 4);
        add(&in, "\x00\x00", 2);                /* the session's first bytes: not the handshake's */
        add(&want, "RFB 003.008\n", 12);
        add(&want, "\x02", 1);
        add(&want, botdesk_response, 16);
        add(&want, "\x01", 1);
        run(&x, "botdesk", &in, bytewise);
        TAP_EQ_INT(x.r, in.n - 2, "3.8, VNC auth (%s): the handshake takes its bytes, not the session's",
                   bytewise ? "a byte at a time" : "whole");
        tap_ok(x.c.state == RFB_CLIENT_READY && x.c.width == 800 && x.c.height == 600 && streq(x.c.name, "work"),
               "... ready, with ServerInit's 800x600 and name");
        tap_ok(out_is(&x, &want), "... and it said version 3.8, VNC auth, the DES response and shared ClientInit");
        rfb_client_done(&x.c);
}

int main(void) {
        struct bytes in, want;
        uint8_t key[8], resp[16];
        struct rfb_client c;
        struct run x;

        /* DES: answers computed apart, with OpenSSL (openssl enc -des-ecb -nopad -K KEY). */
        TAP_EQ_INT(rfb_vnc_auth_key("botdesk", key), 0, "a password's key");
        rfb_vnc_auth_response(key, challenge, resp);
        tap_ok(memcmp(resp, botdesk_response, 16) == 0, "the response to a challenge is DES under the bit-reversed key");
        TAP_EQ_INT(rfb_vnc_auth_key("pässwörd-long", key), 0, "a password of Latin-1 characters, over 8: its first 8");
        {
                static const uint8_t ch[16] = { 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88,
                                                0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00 };
                static const uint8_t want_resp[16] = { 0x80, 0x40, 0xbd, 0x42, 0xd0, 0x38, 0xfd, 0xaa,
                                                       0x92, 0x67, 0xff, 0x53, 0xd8, 0x08, 0xbe, 0x1a };
                rfb_vnc_auth_response(key, ch, resp);
                tap_ok(memcmp(resp, want_resp, 16) == 0, "... as one byte each (ä, ö in Latin-1), the rest cut");
        }
        TAP_EQ_INT(rfb_vnc_auth_key("€uro", key), -EINVAL, "a character with no Latin-1 byte: -EINVAL");
        TAP_EQ_INT(rfb_client_init(&c, "€uro"), -EINVAL, "... which the handshake refuses up front");

        check_vnc_38(false);
        check_vnc_38(true);

        /* 3.889 (Apple's) is 3.8. */
        in = (struct bytes) {};
        add(&in, "RFB 003.889\n", 12);
        run(&x, NULL, &in, false);
        tap_ok(x.out.n == 12 && memcmp(x.out.d, "RFB 003.008\n", 12) == 0, "3.889 is answered as 3.8");
        rfb_client_done(&x.c);

        /* 3.3 with None: the server's one type, no SecurityResult. */
        in = (struct bytes) {};
        want = (struct bytes) {};
        add(&in, "RFB 003.003\n", 12);
        add32(&in, 1);
        server_init(&in, 1024, 768, "", 0);
        add(&want, "RFB 003.003\n\x01", 13);
        run(&x, NULL, &in, true);
        tap_ok(x.r == (ssize_t) in.n && x.c.state == RFB_CLIENT_READY && x.c.minor == 3 && out_is(&x, &want),
               "3.3, None: version, then ClientInit straight away; an empty name");
        rfb_client_done(&x.c);

        /* 3.7 with None: the client picks it, no SecurityResult either. */
        in = (struct bytes) {};
        want = (struct bytes) {};
        add(&in, "RFB 003.007\n\x01\x01", 14);
        server_init(&in, 640, 480, "x", 1);
        add(&want, "RFB 003.007\n\x01\x01", 14);
        run(&x, NULL, &in, false);
        tap_ok(x.c.state == RFB_CLIENT_READY && out_is(&x, &want), "3.7, None: the type, then ClientInit");
        rfb_client_done(&x.c);

        /* 3.8 with None: a SecurityResult comes. */
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x01\x01", 14);
        add32(&in, 0);
        server_init(&in, 640, 480, "x", 1);
        run(&x, "unused", &in, false);
        tap_ok(x.c.state == RFB_CLIENT_READY, "3.8, None offered alone: taken, even with a password");
        rfb_client_done(&x.c);

        /* A wrong password: 3.8 sends a reason, drained and never shown. */
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x01\x02", 14);
        add(&in, challenge, 16);
        add32(&in, 1);
        add32(&in, 20);
        add(&in, "SECRET-SERVER-TEXT!!", 20);
        run(&x, "wrong", &in, true);
        TAP_EQ_INT(x.r, -EACCES, "a wrong password: -EACCES");
        tap_ok(x.c.problem && !strstr(x.c.problem, "SECRET"), "... in botdesk's words, not the server's (%s)",
               strnull(x.c.problem));
        rfb_client_done(&x.c);

        /* 3.3: a failed authentication has no reason. */
        in = (struct bytes) {};
        add(&in, "RFB 003.003\n", 12);
        add32(&in, 2);
        add(&in, challenge, 16);
        add32(&in, 1);
        run(&x, "wrong", &in, false);
        TAP_EQ_INT(x.r, -EACCES, "3.3, a wrong password: -EACCES at once");
        rfb_client_done(&x.c);

        /* Apple's types alone. */
        in = (struct bytes) {};
        add(&in, "RFB 003.889\n\x04\x1e\x21\x23\x24", 17);
        run(&x, "pw", &in, false);
        TAP_EQ_INT(x.r, -EPROTONOSUPPORT, "only Apple's types (30, 33, 35, 36): -EPROTONOSUPPORT");
        tap_ok(x.out.n == 12, "... and nothing is chosen");
        rfb_client_done(&x.c);

        /* VNC auth without a password. */
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x01\x02", 14);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -ENOKEY, "VNC auth wanted and no password configured: -ENOKEY");
        rfb_client_done(&x.c);

        /* Refused at once, with a reason. */
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x00", 13);
        add32(&in, 12);
        add(&in, "too many sec", 12);
        run(&x, NULL, &in, true);
        TAP_EQ_INT(x.r, -ECONNREFUSED, "no security types, a reason: -ECONNREFUSED");
        rfb_client_done(&x.c);
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x00", 13);
        add32(&in, 5000);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -EPROTO, "a reason over 4096 bytes: -EPROTO before any of it is read");
        rfb_client_done(&x.c);

        /* ServerInit over the limits. */
        in = (struct bytes) {};
        add(&in, "RFB 003.003\n", 12);
        add32(&in, 1);
        server_init(&in, 5000, 5000, NULL, 0);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -EFBIG, "a 5000x5000 screen (over 16777216 pixels): -EFBIG");
        rfb_client_done(&x.c);
        in = (struct bytes) {};
        add(&in, "RFB 003.003\n", 12);
        add32(&in, 1);
        server_init(&in, 10, 10, NULL, 70000);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -EFBIG, "a name of 70000 bytes: -EFBIG before it is read");
        rfb_client_done(&x.c);

        /* Not RFB, or too old. */
        in = (struct bytes) {};
        add(&in, "HTTP/1.1 200", 12);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -EPROTO, "an HTTP server: -EPROTO");
        rfb_client_done(&x.c);
        in = (struct bytes) {};
        add(&in, "RFB 002.000\n", 12);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -EPROTONOSUPPORT, "RFB 2.0: -EPROTONOSUPPORT");
        rfb_client_done(&x.c);

        /* 3.3 offering a type of its own. */
        in = (struct bytes) {};
        add(&in, "RFB 003.003\n", 12);
        add32(&in, 19);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -EPROTONOSUPPORT, "3.3 with VeNCrypt (19) as its one type: -EPROTONOSUPPORT");
        rfb_client_done(&x.c);
        return tap_done();
}
